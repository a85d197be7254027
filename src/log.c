// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA inode logs.
 *
 * A log is a singly linked list of 4 KiB pages; the last 32 bytes of a
 * page are its tail (next page, entry counts).  Entries never cross a
 * page: when the next entry does not fit, a NOVA_NEXT_PAGE marker byte is
 * written (if there is room) and the log continues at the next page.
 * Logs grow by doubling up to NOVA_LOG_EXTEND_THRESHOLD pages, then by
 * NOVA_LOG_EXTEND_STEP pages at a time.
 *
 * Ordering rule of an append: the caller builds entries with
 * nova_log_append() (each copied with non-temporal stores) and then
 * commits them all with nova_log_commit(), which fences and then makes
 * the single 8-byte store of the inode's log_tail durable.  A crash
 * before that store leaves the old tail: the new entries do not exist.
 * New pages are linked into the chain before the commit; that is safe,
 * since readers stop at the tail and the allocator rebuild counts every
 * page reachable from log_head.
 */
#include "nova.h"

struct nova_log_page_tail *nova_page_tail(struct super_block *sb,
						 u64 page)
{
	return nova_get_block(sb, page + NOVA_LOG_LAST_ENTRY);
}

/* Link @num fresh pages starting at block @blk into a chain, durable */
static void nova_init_log_pages(struct super_block *sb, unsigned long blk,
				unsigned long num)
{
	unsigned long i;

	for (i = 0; i < num; i++) {
		struct nova_log_page_tail *pt =
			nova_page_tail(sb, nova_block_off(blk + i));

		memset(pt, 0, sizeof(*pt));
		if (i + 1 < num)
			pt->next_page = cpu_to_le64(nova_block_off(blk + i + 1));
		nova_flush(pt, sizeof(*pt));
	}
	nova_fence();
}

/*
 * Allocate @want log pages (fewer if space is short, at least one) as
 * one or more runs and link them.  Returns the first page's offset via
 * @first, the last page's via @last, and the count, or -ENOSPC.
 */
static long nova_alloc_log_pages(struct super_block *sb, unsigned long want,
				 u64 *first, u64 *last, u8 reserve)
{
	unsigned long got = 0, blk, n = want, free, keep;
	u64 prev = 0;

	/* a full device still lets deletions log what they do */
	keep = reserve == NOVA_RESERVE_ALL ? 0 : NOVA_SB(sb)->reserved_blocks;
	if (reserve == NOVA_RESERVE_HALF)
		keep /= 2;
	if (keep) {
		free = nova_free_blocks_at_least(sb, keep + want);
		if (free < keep + 1)
			return -ENOSPC;
		n = want = min(want, free - keep);
	}

	while (got < want) {
		int ret = nova_new_blocks(sb, &blk, n, -1, false);

		if (ret < 0) {
			if (n > 1) {
				n /= 2;
				continue;
			}
			break;
		}
		nova_init_log_pages(sb, blk, n);
		if (prev)
			nova_store_le64(&nova_page_tail(sb, prev)->next_page,
					nova_block_off(blk));
		else
			*first = nova_block_off(blk);
		prev = nova_block_off(blk + n - 1);
		got += n;
		n = min(n, want - got);
	}
	if (!got)
		return -ENOSPC;
	*last = prev;
	return got;
}

/* Is @page a plausible log page: block aligned, inside the dynamic area? */
static bool nova_log_page_ok(struct nova_sb_info *sbi, u64 page)
{
	return !(page & (NOVA_BLOCK_SIZE - 1)) &&
	       nova_range_valid(sbi, page, NOVA_BLOCK_SIZE);
}

/*
 * Check the page chain of a log read from pmem before anything follows
 * it: every page aligned and inside the device, not a free block, no
 * loop (Brent's cycle detection), and the tail inside one of the pages.
 * Returns the page count, or -EUCLEAN (logged) for a damaged chain.
 */
long nova_log_check_chain(struct super_block *sb, unsigned long ino,
			  u64 head, u64 tail)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 page = head, turtle = 0;
	unsigned long n = 0, power = 1, lam = 0;
	bool tail_seen = !tail;

	while (page) {
		if (!nova_log_page_ok(sbi, page)) {
			nova_error(sb, "inode %lu: log page 0x%llx is outside the device",
				   ino, page);
			return -EUCLEAN;
		}
		if (sbi->free_lists &&
		    nova_block_is_free(sb, page >> NOVA_BLOCK_SHIFT)) {
			nova_error(sb, "inode %lu: log page 0x%llx is a free block",
				   ino, page);
			return -EUCLEAN;
		}
		if (page == turtle || n >= sbi->layout.num_blocks) {
			nova_error(sb, "inode %lu: log page chain loops at 0x%llx",
				   ino, page);
			return -EUCLEAN;
		}
		if (tail >= page && tail <= page + NOVA_LOG_LAST_ENTRY)
			tail_seen = true;
		if (lam == power) {
			turtle = page;
			power <<= 1;
			lam = 0;
		}
		lam++;
		n++;
		page = le64_to_cpu(READ_ONCE(nova_page_tail(sb, page)->next_page));
	}
	if (!tail_seen) {
		nova_error(sb, "inode %lu: log tail 0x%llx is not in its log",
			   ino, tail);
		return -EUCLEAN;
	}
	return n;
}

/*
 * Release the claims of the first @max pages of the log chain at @head
 * (all pages for ULONG_MAX: an inode leaving the cache).  The chain was
 * checked when the inode was read and has been this inode's since.
 */
void nova_log_unclaim(struct super_block *sb, u64 head, unsigned long max)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long guard = sbi->layout.num_blocks;

	if (!sbi->claimed)
		return;
	while (head && max-- && guard-- && nova_log_page_ok(sbi, head)) {
		nova_unclaim_blocks(sb, head >> NOVA_BLOCK_SHIFT, 1);
		head = le64_to_cpu(READ_ONCE(nova_page_tail(sb, head)->next_page));
	}
}

/*
 * Claim the @pages pages of the log chain at @head (checked by
 * nova_log_check_chain()) for inode @ino (balloc.c): a page that is
 * another inode's, a table or a journal block refuses the inode.
 */
int nova_log_claim(struct super_block *sb, unsigned long ino, u64 head,
		   unsigned long pages)
{
	u64 page = head;
	unsigned long i;
	int ret;

	if (!NOVA_SB(sb)->claimed)
		return 0;
	for (i = 0; i < pages && page; i++) {
		ret = nova_claim_blocks(sb, page >> NOVA_BLOCK_SHIFT, 1);
		if (ret) {
			nova_error(sb, "inode %lu: log page 0x%llx is %s",
				   ino, page, ret == -ENOENT ? "a free block" :
				   "claimed twice (another inode's or metadata)");
			nova_log_unclaim(sb, head, i);
			return -EUCLEAN;
		}
		page = le64_to_cpu(READ_ONCE(nova_page_tail(sb, page)->next_page));
	}
	return 0;
}

/*
 * Follow the chain of @inode's log from @page: at most @max pages up to
 * (not counting) @stop1 or @stop2, whichever comes first, every hop aligned, inside the device and not a
 * free block.  Pointers read from pmem after the inode was read (by the
 * GC, by freeing) are checked again here: the chain was checked at that
 * read (nova_log_check_chain()), but a damaged image may change it since
 * (a block the log shares with a file, a write to the device).  Returns
 * the pages walked, or -EUCLEAN (logged) if the chain leaves the device,
 * reaches a free block, ends early or is longer than @max.  A stop 0:
 * the chain's end.
 */
long nova_log_walk_chain(struct super_block *sb, struct inode *inode,
			 u64 page, u64 stop1, u64 stop2, unsigned long max)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long n = 0;
	const char *why;

	while (page != stop1 && page != stop2) {
		if (!page) {
			why = "ends before its end";
			goto bad;
		}
		if (!nova_log_page_ok(sbi, page)) {
			why = "leaves the device";
			goto bad;
		}
		if (nova_block_is_free(sb, page >> NOVA_BLOCK_SHIFT)) {
			why = "reaches a free block";
			goto bad;
		}
		if (n++ >= max) {
			why = "is longer than its page count";
			goto bad;
		}
		page = le64_to_cpu(READ_ONCE(nova_page_tail(sb, page)->next_page));
	}
	return n;
bad:
	nova_error(sb, "inode %llu: log chain %s at 0x%llx (%lu pages of %lu)",
		   nova_ino(inode), why, page, n, max);
	return -EUCLEAN;
}

/*
 * Give the pages of a log chain back to the allocator: at most @max
 * pages (the log's page count), each one checked before it is followed
 * or freed; a bad one stops it (logged): a page leaks rather than a
 * foreign one being freed.
 */
void nova_free_log(struct super_block *sb, u64 head, unsigned long max)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	while (head) {
		u64 next;

		if (!max-- || !nova_log_page_ok(sbi, head) ||
		    nova_block_is_free(sb, head >> NOVA_BLOCK_SHIFT)) {
			nova_error(sb, "freeing a log with a bad page 0x%llx", head);
			return;
		}
		next = le64_to_cpu(nova_page_tail(sb, head)->next_page);
		nova_free_blocks(sb, head >> NOVA_BLOCK_SHIFT, 1);
		head = next;
	}
}

/*
 * Up to @want new pages for the log of @inode (nova_alloc_log_pages()); a
 * directory's are charged to its owner first (quota.c), one page when
 * @want do not fit.  Returns the count, -EDQUOT or -ENOSPC.
 */
static long nova_alloc_inode_log_pages(struct inode *inode,
				       struct nova_inode_info_header *sih,
				       unsigned long want, u64 *first,
				       u64 *last)
{
	/* (a quota file's log: bounded by GC, any write of it) */
	u8 reserve = IS_NOQUOTA(inode) ? NOVA_RESERVE_ALL : sih->use_reserve;
	bool may_fail = reserve != NOVA_RESERVE_ALL;
	long got;
	int ret;

	ret = nova_quota_log_pages(inode, want, may_fail);
	if (ret == -EDQUOT && want > 1) {
		want = 1;
		ret = nova_quota_log_pages(inode, 1, may_fail);
	}
	if (ret)
		return ret;
	got = nova_alloc_log_pages(inode->i_sb, want, first, last, reserve);
	/* the pages not had are not charged */
	nova_quota_log_pages(inode, -(long)(want - max(got, 0L)), false);
	return got;
}

/*
 * Make room for an entry of @size bytes at *@tail (an uncommitted working
 * tail), moving to the next page and extending the log as needed.
 */
static int nova_log_make_room(struct super_block *sb, struct inode *inode,
			      struct nova_inode_info_header *sih,
			      struct nova_inode *pi, u64 *tail, size_t size)
{
	u64 cur = *tail, page, next, first, last;
	long got;

	if (!cur) {
		/*
		 * Empty log.  A first page may hang at log_head already: an
		 * operation that appended here aborted before its commit
		 * (ENOSPC for another inode of a rename, say).  log_tail is
		 * still 0, so nothing in that page is committed: reuse it
		 * (and any pages linked after it).  Allocating another one
		 * and moving log_head would leak it.
		 */
		if (sih->log_head) {
			*tail = sih->log_head;
			return 0;
		}
		/* its first page; head is set before any commit */
		got = nova_alloc_inode_log_pages(inode, sih, 1, &first, &last);
		if (got < 0)
			return got;
		nova_store_le64(&pi->log_head, first);
		sih->log_head = first;
		sih->log_pages = 1;
		*tail = first;
		return 0;
	}
	if ((cur & (NOVA_BLOCK_SIZE - 1)) + size <= NOVA_LOG_LAST_ENTRY)
		return 0;

	page = cur & ~(u64)(NOVA_BLOCK_SIZE - 1);
	next = le64_to_cpu(nova_page_tail(sb, page)->next_page);
	/* a page after the tail was never walked: check it before use */
	if (next && (!nova_log_page_ok(NOVA_SB(sb), next) || next == page ||
		     next == sih->log_head ||
		     nova_block_is_free(sb, next >> NOVA_BLOCK_SHIFT))) {
		nova_error(sb, "inode %llu: log page 0x%llx links to bad page 0x%llx",
			   nova_ino(inode), page, next);
		return -EUCLEAN;
	}
	if (!next) {
		unsigned long want, limit;

		/* before growing: drop dead pages */
		nova_fast_gc(sb, inode, cur);
		want = sih->log_pages < NOVA_LOG_EXTEND_THRESHOLD ?
		       max(sih->log_pages, 1UL) : NOVA_LOG_EXTEND_STEP;
		/*
		 * Grow at most to the GC bound (gc.c: nova_log_limit()).  At
		 * the bound, take one page to finish this append and let the
		 * committer rewrite the log (nova_gc_if_pending()): a thorough
		 * GC cannot run here, with entries past the committed tail.
		 */
		limit = nova_log_limit(inode);
		if (sih->log_pages >= limit) {
			sih->gc_pending = true;
			want = 1;
		} else {
			want = min(want, limit - sih->log_pages);
		}

		got = nova_alloc_inode_log_pages(inode, sih, want, &first,
						 &last);
		if (got < 0)
			return got;
		nova_store_le64(&nova_page_tail(sb, page)->next_page, first);
		NOVA_CRASH_POINT(CP_LOG_EXTEND);
		sih->log_pages += got;
		next = first;
	}
	if ((cur & (NOVA_BLOCK_SIZE - 1)) < NOVA_LOG_LAST_ENTRY) {
		u8 *mark = nova_get_block(sb, cur);

		*mark = NOVA_NEXT_PAGE;
		nova_flush(mark, 1);
	}
	*tail = next;
	return 0;
}

/*
 * Append one entry (already checksummed by the caller through
 * nova_entry_csum()) at the working tail *@tail; on return *@tail is
 * just past it and *@entry_off (if not NULL) is where it went.  Nothing
 * is visible until nova_log_commit().
 */
int nova_log_append(struct super_block *sb, struct inode *inode,
		    const void *entry, size_t size, u64 *tail, u64 *entry_off)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_inode *pi = nova_get_block(sb, sih->pi_addr);
	struct nova_log_page_tail *pt;
	int ret;

	ret = nova_emergency_state(sb);
	if (ret)
		return ret;
	ret = nova_log_make_room(sb, inode, sih, pi, tail, size);
	if (ret)
		return ret;
	nova_memcpy_nt(nova_get_block(sb, *tail), entry, size);
	pt = nova_page_tail(sb, *tail & ~(u64)(NOVA_BLOCK_SIZE - 1));
	le32_add_cpu(&pt->num_entries, 1);
	nova_flush(&pt->num_entries, sizeof(pt->num_entries));
	if (entry_off)
		*entry_off = *tail;
	*tail += size;
	return 0;
}

/* Commit: entries durable first, then the 8-byte tail store */
void nova_log_commit(struct super_block *sb, struct inode *inode, u64 tail)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_inode *pi = nova_get_block(sb, sih->pi_addr);

	nova_fence();
	NOVA_CRASH_POINT(CP_LOG_BEFORE_TAIL);
	if (nova_mutant(NOVA_MUT_LOG_TAIL_FLUSH))
		WRITE_ONCE(pi->log_tail, cpu_to_le64(tail));	/* no flush */
	else
		nova_store_le64(&pi->log_tail, tail);
	NOVA_CRASH_POINT(CP_LOG_AFTER_TAIL);
	sih->log_tail = tail;
}

/*
 * Walk the committed entries of a log, calling @fn(sb, entry_off, entry,
 * size, arg) for each.  Every step is validated: a page outside the
 * device, a loop, a malformed entry or a bad checksum stops the walk with
 * -EUCLEAN.  With @own, the log is one this mount has just written (a
 * thorough GC's new log): the entries' checksums are not computed again.
 * Otherwise (a replay, the recovery scan) a killed waiter stops the walk
 * with -EINTR (nova_walk_killed()).
 */
static int __nova_log_walk(struct super_block *sb, unsigned long ino,
			   u64 head, u64 tail, nova_entry_fn fn, void *arg,
			   bool own)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 cur = head;
	unsigned long guard = sbi->layout.num_blocks;
	int ret;

	if (!cur || !tail)
		return 0;
	/* @head may be a page start or a position inside a page */
	if (!nova_range_valid(sbi, cur & ~(u64)(NOVA_BLOCK_SIZE - 1),
			      NOVA_BLOCK_SIZE))
		goto corrupt;
	while (cur != tail) {
		u64 in_page = cur & (NOVA_BLOCK_SIZE - 1);
		u8 *p = nova_get_block(sb, cur);
		size_t size;

		if (in_page >= NOVA_LOG_LAST_ENTRY || *p == NOVA_NEXT_PAGE) {
			u64 page = cur - in_page;

			cur = le64_to_cpu(nova_page_tail(sb, page)->next_page);
			if (!cur || !nova_range_valid(sbi, cur, NOVA_BLOCK_SIZE) ||
			    cur & (NOVA_BLOCK_SIZE - 1) || !guard--)
				goto corrupt;
			cond_resched();
			/* (a thorough GC's walk of its own log goes on) */
			if (!own && nova_walk_killed(sb))
				return -EINTR;
			continue;
		}
		size = nova_entry_size(p, NOVA_LOG_LAST_ENTRY - in_page);
		if (!size || in_page + size > NOVA_LOG_LAST_ENTRY)
			goto corrupt;
		/* the tail is in this page: the entry must end at or before it */
		if ((tail & ~(u64)(NOVA_BLOCK_SIZE - 1)) == cur - in_page &&
		    tail < cur + size)
			goto corrupt;
		if (!own && !nova_entry_csum_ok(p, size)) {
			nova_error(sb, "inode %lu: log entry at 0x%llx has a bad checksum",
				   ino, cur);
			return -EUCLEAN;
		}
		ret = fn(sb, cur, p, size, arg);
		if (ret)
			return ret;
		cur += size;
	}
	return 0;
corrupt:
	nova_error(sb, "inode %lu: corrupt log near 0x%llx", ino, cur);
	return -EUCLEAN;
}

int nova_log_walk(struct super_block *sb, unsigned long ino, u64 head,
		  u64 tail, nova_entry_fn fn, void *arg)
{
	return __nova_log_walk(sb, ino, head, tail, fn, arg, false);
}

int nova_log_walk_own(struct super_block *sb, unsigned long ino, u64 head,
		      u64 tail, nova_entry_fn fn, void *arg)
{
	return __nova_log_walk(sb, ino, head, tail, fn, arg, true);
}

/* One more dead entry in the log page of the entry at @off */
static void nova_page_count_dead(struct super_block *sb, u64 off)
{
	struct nova_log_page_tail *pt;

	pt = nova_page_tail(sb, off & ~(u64)(NOVA_BLOCK_SIZE - 1));
	le32_add_cpu(&pt->invalid_entries, 1);
	nova_flush(&pt->invalid_entries, sizeof(pt->invalid_entries));
}

/*
 * Mark the entry at @off dead: its flag, then its page's invalid count,
 * each durable.  Only after the entry that supersedes it is committed.
 */
void nova_invalidate_entry(struct super_block *sb, u64 off)
{
	u8 *p = nova_get_block(sb, off);
	struct nova_entry_layout l = nova_entry_layout_of(p[0]);

	if (l.flag < 0 || p[l.flag])
		return;
	p[l.flag] = 1;
	nova_persist(p + l.flag, 1);
	nova_page_count_dead(sb, off);
	nova_fence();
}

/*
 * A write entry lost @n pages; dead when all are gone (returns true
 * then).  The flag and the counts are hints that need not be durable at
 * any point (a recovery that still finds the entry live replays it
 * before the entries that superseded it, and garbage collection reads
 * them in the running system): only the page's count is ordered after
 * the flag, and the next fence makes them durable.
 */
bool nova_invalidate_pages(struct super_block *sb,
			   struct nova_file_write_entry *e, unsigned int n)
{
	u32 before = le32_to_cpu(e->invalid_pages), dead = before + n;
	u32 num = le32_to_cpu(e->num_pages);
	bool dies = dead >= num && le64_to_cpu(e->block);

	e->invalid_pages = cpu_to_le32(dead);
	if (!dies || e->reassigned) {
		nova_flush(&e->invalid_pages, sizeof(e->invalid_pages));
	} else {
		/*
		 * the flag and the page count in one flush of the entry's
		 * head; the page's dead count never gets ahead of the flags
		 * that reach the media (fsck.nova: PR_LOG_PAGE_COUNTS)
		 */
		e->reassigned = 1;
		nova_flush(e, offsetofend(struct nova_file_write_entry,
					  invalid_pages));
		nova_fence();
		nova_page_count_dead(sb, nova_get_addr_off(NOVA_SB(sb), e));
	}
	return dies && before < num;
}
