// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA log garbage collection, in two phases (seeds' patches 010/011).
 *
 * Entries die when what they describe is superseded: a write entry when
 * every page it maps has been overwritten, punched or truncated; a
 * dentry when its name is removed or re-pointed; a set-attribute or
 * link-change entry when a newer one of its kind is committed; an
 * extended attribute group or tombstone when a newer group of its name
 * is (xattr.c).  Dead
 * entries carry a flag and are counted in their page's tail
 * (log.c: nova_invalidate_entry()).  Removal dentries, hole entries and
 * set-attribute entries that shrank a file stay valid: dropping them
 * could bring back what they removed.
 *
 * Fast GC (when a log must grow): unlink and free every page whose
 * entries are all dead, except the page holding the committed tail and
 * any page after it.  Each unlink is one durable 8-byte store (the
 * previous page's next pointer, or log_head) and the page held only dead
 * entries, so every crash point leaves the same file system.
 *
 * When: a log may hold at most 2 N + 1 pages, N being the pages its
 * live entries need (nova_log_limit()).  The live size is kept as
 * running counts (live write entries of a file, dentry bytes of a
 * directory's names), so the check is O(1) and runs after every commit.
 * A log extension first runs a fast GC and grows at most to the limit;
 * a log past it after a commit (it grew by the one page an append
 * needed, or a truncate or unlink shrank N) gets a fast GC and, if that
 * is not enough, a thorough GC.
 *
 * Thorough GC: write a new log that describes the inode's current state
 * - its live dentries (readdir cookies kept) or its live page runs, its
 * live extended attribute groups, one set-attribute and one link-change
 * entry - into new pages; mark the end
 * of the old log with a NEXT_PAGE marker and link the new pages after the
 * tail page; commit with the 8-byte tail store (now old + new log, whose
 * replay gives the same state); switch log_head to the new pages with one
 * more 8-byte store; re-point the DRAM indexes; then free the old pages.
 * A crash at any point leaves either the old log, old + new, or the new
 * log: all replay to the same state.
 */
#include "nova.h"

/*
 * Are all entries of log page @page dead?  Read from the entries' own
 * flags, not from the page tail's counters: a damaged counter must not
 * free a page that live index entries point into.
 */
static bool nova_page_all_dead(struct super_block *sb, u64 page)
{
	u64 off = 0;

	while (off < NOVA_LOG_LAST_ENTRY) {
		u8 *p = nova_get_block(sb, page + off);
		size_t size;

		/* the end-of-page mark, or unused space of a rewritten log */
		if (*p == NOVA_NEXT_PAGE || !*p)
			break;
		size = nova_entry_size(p, NOVA_LOG_LAST_ENTRY - off);
		if (!size || size > NOVA_LOG_LAST_ENTRY - off ||
		    !nova_entry_is_invalid(p))
			return false;
		off += size;
	}
	return off > 0;
}

/*
 * Fast GC of the log of @inode; @keep is the working tail's position.
 * The pages before the tail's are read from pmem: the chain up to it is
 * checked first (log.c nova_log_walk_chain()), and a bad one leaves the
 * log as it is - no store into a page that is not the log's, no foreign
 * page freed.
 */
void nova_fast_gc(struct super_block *sb, struct inode *inode, u64 keep)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_inode *pi = nova_get_block(sb, sih->pi_addr);
	u64 stop1 = sih->log_tail & ~(u64)(NOVA_BLOCK_SIZE - 1);
	u64 stop2 = keep & ~(u64)(NOVA_BLOCK_SIZE - 1);
	u64 prev = 0, page = sih->log_head;
	unsigned long freed = 0, guard = sih->log_pages;

	if (!page || sih->gc_hold ||
	    nova_log_walk_chain(sb, inode, page, stop1, stop2, sih->log_pages) < 0)
		return;
	while (page && page != stop1 && page != stop2 && guard--) {
		struct nova_log_page_tail *pt = nova_page_tail(sb, page);
		u32 n = le32_to_cpu(pt->num_entries);
		u64 next = le64_to_cpu(pt->next_page);

		if (!n || le32_to_cpu(pt->invalid_entries) < n || !next ||
		    !nova_page_all_dead(sb, page)) {
			prev = page;
			page = next;
			continue;
		}
		/* every entry of this page is dead: unlink it */
		if (prev) {
			nova_store_le64(&nova_page_tail(sb, prev)->next_page, next);
		} else {
			nova_store_le64(&pi->log_head, next);
			sih->log_head = next;
		}
		NOVA_CRASH_POINT(CP_FAST_GC);
		nova_free_blocks(sb, page >> NOVA_BLOCK_SHIFT, 1);
		freed++;
		page = next;
	}
	if (freed) {
		sih->log_pages -= freed;
		nova_quota_log_pages(inode, -(long)freed, false);
		nova_stat_inc(sbi, fast_gc_runs);
		nova_stat_add(sbi, fast_gc_pages, freed);
	}
}

/*
 * Bytes the regenerated log of @inode would take, in O(1): the caller
 * keeps the counts up to date as entries are committed and die -
 * sih->live_writes (regular files: write entries the page index still
 * points at, dax.c: nova_index_set()) and sih->dir_name_bytes
 * (directories: dentry bytes of the indexed names, dir.c).
 */
u64 nova_live_log_bytes(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	u64 bytes = sizeof(struct nova_setattr_entry) +
		    sizeof(struct nova_link_change_entry) + sih->xattr_bytes;

	if (S_ISDIR(inode->i_mode))
		bytes += NOVA_DENTRY_LEN(1) + NOVA_DENTRY_LEN(2) +
			 sih->dir_name_bytes;
	else if (S_ISREG(inode->i_mode))
		bytes += (u64)sih->live_writes *
			 sizeof(struct nova_file_write_entry);
	else if (S_ISLNK(inode->i_mode))
		bytes += sizeof(struct nova_file_write_entry);
	return bytes;
}

/*
 * Log pages the live entries need.  Entries never cross a page, so a
 * page may waste up to one entry's size: count each page as holding
 * NOVA_LOG_LAST_ENTRY minus the largest entry its inode type logs.
 */
unsigned long nova_log_need_pages(struct inode *inode)
{
	size_t waste = S_ISDIR(inode->i_mode) ? sizeof(struct nova_dentry) :
		       sizeof(struct nova_file_write_entry);

	if (NOVA_I(inode)->header.xattr_count)
		waste = NOVA_XATTR_ENTRY_MAX;

	return DIV_ROUND_UP(nova_live_log_bytes(inode),
			    NOVA_LOG_LAST_ENTRY - waste);
}

/*
 * The bound GC keeps a log within: twice the pages its live entries
 * need, plus the page the tail is in.  Past it, a thorough GC writes at
 * most half of what it frees, so its cost is at most one page written
 * per page appended.
 */
unsigned long nova_log_limit(struct inode *inode)
{
	return 2 * nova_log_need_pages(inode) + 1;
}

/* Recount sih->live_writes from the page index (after a log replay) */
void nova_count_live_writes(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_file_write_entry *e, *prev = NULL;
	unsigned long index, n = 0;

	/*
	 * An entry whose pages were partly overwritten before the remount
	 * may be counted once per remaining run: an overestimate, which only
	 * delays a GC, and the next thorough GC sets the exact count.
	 */
	xa_for_each(&sih->pages, index, e) {
		if (e != prev)
			n++;
		prev = e;
	}
	sih->live_writes = n;
}

/* Is the log of @inode over its bound (or was a rewrite asked for)? */
bool nova_gc_needed(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;

	return sih->gc_pending || sih->log_pages > nova_log_limit(inode);
}

/* A log under construction in fresh pages */
struct nova_new_log {
	struct super_block *sb;
	u64 head;
	u64 tail;		/* next write position */
	unsigned long pages;
	unsigned long write_entries;	/* of a regular file's pages */
};

static int nova_new_log_append(struct nova_new_log *nl, const void *entry,
			       size_t size, u64 *off)
{
	struct super_block *sb = nl->sb;
	struct nova_log_page_tail *pt;
	unsigned long blk;
	int ret;

	if (!nl->tail ||
	    (nl->tail & (NOVA_BLOCK_SIZE - 1)) + size > NOVA_LOG_LAST_ENTRY) {
		u64 page;

		ret = nova_new_blocks(sb, &blk, 1, -1, false);
		if (ret < 0)
			return ret;
		page = nova_block_off(blk);
		pt = nova_page_tail(sb, page);
		memset(pt, 0, sizeof(*pt));
		nova_flush(pt, sizeof(*pt));
		if (nl->tail) {
			u64 cur = nl->tail & ~(u64)(NOVA_BLOCK_SIZE - 1);

			if ((nl->tail & (NOVA_BLOCK_SIZE - 1)) < NOVA_LOG_LAST_ENTRY) {
				u8 *mark = nova_get_block(sb, nl->tail);

				*mark = NOVA_NEXT_PAGE;
				nova_flush(mark, 1);
			}
			nova_page_tail(sb, cur)->next_page = cpu_to_le64(page);
			nova_flush(&nova_page_tail(sb, cur)->next_page, 8);
		} else {
			nl->head = page;
		}
		nl->tail = page;
		nl->pages++;
	}
	nova_memcpy_nt(nova_get_block(sb, nl->tail), entry, size);
	pt = nova_page_tail(sb, nl->tail & ~(u64)(NOVA_BLOCK_SIZE - 1));
	le32_add_cpu(&pt->num_entries, 1);
	nova_flush(&pt->num_entries, sizeof(pt->num_entries));
	if (off)
		*off = nl->tail;
	nl->tail += size;
	return 0;
}

static int nova_new_log_append_cb(void *nl, const void *entry, size_t size,
				  u64 *off)
{
	return nova_new_log_append(nl, entry, size, off);
}

static void nova_new_log_free(struct nova_new_log *nl)
{
	nova_free_log(nl->sb, nl->head, nl->pages);
}

static int nova_gc_write_attrs(struct inode *inode, struct nova_new_log *nl,
			       u64 *sa_off, u64 *lc_off)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_setattr_entry sa = {
		.entry_type = NOVA_SET_ATTR,
		.attr = NOVA_ATTR_MODE | NOVA_ATTR_UID | NOVA_ATTR_GID |
			NOVA_ATTR_ATIME | NOVA_ATTR_MTIME | NOVA_ATTR_CTIME |
			NOVA_ATTR_SIZE,
		.mode = cpu_to_le16(inode->i_mode),
		.uid = cpu_to_le32(i_uid_read(inode)),
		.gid = cpu_to_le32(i_gid_read(inode)),
		.atime = cpu_to_le64(nova_ts_to_ns(nova_get_atime(inode))),
		.mtime = cpu_to_le64(nova_ts_to_ns(nova_get_mtime(inode))),
		.ctime = cpu_to_le64(nova_ts_to_ns(nova_get_ctime(inode))),
		.size = cpu_to_le64(inode->i_size),
	};
	struct nova_link_change_entry lc = {
		.entry_type = NOVA_LINK_CHANGE,
		.links = cpu_to_le32(inode->i_nlink),
		.ctime = cpu_to_le64(nova_ts_to_ns(nova_get_ctime(inode))),
		.flags = cpu_to_le32(sih->flags),
		.generation = cpu_to_le32(inode->i_generation),
		.projid = cpu_to_le32(sih->projid),
	};
	int ret;

	sa.trans_id = cpu_to_le64(sih->trans_id++);
	nova_entry_csum(&sa, sizeof(sa));
	ret = nova_new_log_append(nl, &sa, sizeof(sa), sa_off);
	if (ret)
		return ret;
	lc.trans_id = cpu_to_le64(sih->trans_id++);
	nova_entry_csum(&lc, sizeof(lc));
	return nova_new_log_append(nl, &lc, sizeof(lc), lc_off);
}

static int nova_gc_write_dentry(struct inode *dir, struct nova_new_log *nl,
				const char *name, int len, u64 ino, u8 ftype,
				u64 cookie, u64 *off)
{
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;
	struct nova_dentry de;
	u16 de_len = NOVA_DENTRY_LEN(len);

	memset(&de, 0, de_len);
	de.entry_type = NOVA_DIR_LOG;
	de.name_len = len;
	de.de_len = cpu_to_le16(de_len);
	de.file_type = ftype;
	de.links_count = cpu_to_le32(dir->i_nlink);
	de.mtime = cpu_to_le64(nova_ts_to_ns(nova_get_mtime(dir)));
	de.ino = cpu_to_le64(ino);
	de.cookie = cpu_to_le64(cookie);
	de.trans_id = cpu_to_le64(sih->trans_id++);
	memcpy(de.name, name, len);
	nova_entry_csum(&de, de_len);
	return nova_new_log_append(nl, &de, de_len, off);
}

/* @we for @n pages from @pgoff in the blocks from byte @blk, appended */
static int nova_gc_write_pages(struct inode *inode, struct nova_new_log *nl,
			       struct nova_file_write_entry *we, u64 pgoff,
			       u64 n, u64 blk, u8 flags)
{
	we->flags = flags;
	we->pgoff = cpu_to_le64(pgoff);
	we->num_pages = cpu_to_le32(n);
	we->block = cpu_to_le64(blk);
	we->trans_id = cpu_to_le64(NOVA_I(inode)->header.trans_id++);
	nova_entry_csum(we, sizeof(*we));
	return nova_new_log_append(nl, we, sizeof(*we), NULL);
}

/* The new log's entries, in an order whose replay gives today's state */
static int nova_gc_write_state(struct inode *inode, struct nova_new_log *nl,
			       u64 *sa_off, u64 *lc_off)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long index;
	int ret = 0;

	if (S_ISDIR(inode->i_mode)) {
		struct nova_dir_node *dn;

		/*
		 * ".." comes from the DRAM state (set at mkdir, rename and
		 * replay; mkfs logs nothing for the root): never guess, a
		 * wrong one would be committed.
		 */
		u64 parent = inode->i_ino == NOVA_ROOT_INO ? NOVA_ROOT_INO :
			     sih->parent_ino;

		if (WARN_ON_ONCE(!parent))
			return -EINVAL;
		ret = nova_gc_write_dentry(inode, nl, ".", 1, inode->i_ino,
					   DT_DIR, 0, NULL);
		if (!ret)
			ret = nova_gc_write_dentry(inode, nl, "..", 2, parent,
						   DT_DIR, 0, NULL);
		xa_for_each(&sih->dir_cookies, index, dn) {
			if (ret)
				break;
			ret = nova_gc_write_dentry(inode, nl, dn->name,
						   dn->name_len, dn->ino,
						   dn->file_type, dn->cookie, NULL);
		}
	} else if (S_ISREG(inode->i_mode) || S_ISLNK(inode->i_mode)) {
		struct nova_file_write_entry *e, we = {
			.entry_type = NOVA_FILE_WRITE,
			.mtime = cpu_to_le64(nova_ts_to_ns(nova_get_mtime(inode))),
			.size = cpu_to_le64(inode->i_size),
		};
		u64 start = 0, blk = 0, n = 0;
		unsigned long runs = 0;
		u8 fl = 0;

		if (S_ISLNK(inode->i_mode))
			ret = nova_gc_write_pages(inode, nl, &we, 0, 1,
						  sih->symlink_block, 0);
		/* one entry per run of pages with consecutive blocks */
		xa_for_each(&sih->pages, index, e) {
			u64 b = nova_entry_block(sb, e, index);
			/*
			 * (a damaged entry's page is a hole: never unwritten;
			 * a shared block keeps its flag: reflink.c)
			 */
			u8 f = b ? e->flags & (NOVA_WRITE_UNWRITTEN |
					       NOVA_WRITE_SHARED) : 0;

			if (ret)
				break;
			if (n && index == start + n && b == blk + (n << NOVA_BLOCK_SHIFT) &&
			    f == fl && n < U32_MAX) {
				n++;
				continue;
			}
			if (n) {
				ret = nova_gc_write_pages(inode, nl, &we, start,
							  n, blk, fl);
				runs++;
			}
			start = index;
			blk = b;
			n = 1;
			fl = f;
		}
		if (!ret && n) {
			ret = nova_gc_write_pages(inode, nl, &we, start, n, blk,
						  fl);
			runs++;
		}
		nl->write_entries = runs;
	}
	/* the live extended attributes of any inode type */
	if (!ret)
		ret = nova_xattr_gc_write(inode, nova_new_log_append_cb, nl);
	if (!ret)
		ret = nova_gc_write_attrs(inode, nl, sa_off, lc_off);
	return ret;
}

/* Re-point the DRAM indexes at the new log's entries */
static int nova_gc_repoint(struct super_block *sb, u64 off, const void *entry,
			   size_t size, void *arg)
{
	struct inode *inode = arg;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	const struct nova_dentry *de = entry;
	struct nova_file_write_entry *we = nova_get_block(sb, off);
	struct nova_dir_node *dn;
	u64 i;

	switch (*(const u8 *)entry) {
	case NOVA_XATTR:
		nova_xattr_gc_repoint(inode, off, entry);
		break;
	case NOVA_DIR_LOG:
		if (!le64_to_cpu(de->ino) || !le64_to_cpu(de->cookie))
			break;
		dn = nova_dir_find_exact(inode, de->name, de->name_len);
		if (dn)
			dn->de_off = off;
		break;
	case NOVA_FILE_WRITE:
		if (!S_ISREG(inode->i_mode))
			break;
		for (i = 0; i < le32_to_cpu(we->num_pages); i++)
			xa_store(&sih->pages, le64_to_cpu(we->pgoff) + i, we,
				 GFP_NOWAIT);
		break;
	}
	return 0;
}

/*
 * Thorough GC of @inode's log.  Caller holds the inode's locks (and for
 * a regular file the mapping's invalidate lock) and its log mutex.
 */
int nova_thorough_gc(struct super_block *sb, struct inode *inode)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_inode *pi = nova_get_block(sb, sih->pi_addr);
	struct nova_new_log nl = { .sb = sb };
	u64 old_head = sih->log_head, old_tail = sih->log_tail, tail_page;
	u64 sa_off = 0, lc_off = 0, extra, page;
	unsigned long old_pages = sih->log_pages, guard = sbi->layout.num_blocks;
	long before, after = -1;
	int ret;
	u64 t = nova_timer_start();

	if (!old_head || !old_tail)
		return 0;
	/*
	 * Every old page is freed below, those up to the tail's and those
	 * hanging after it: the chain read from pmem must be the log's own
	 * pages, all of them (log.c nova_log_walk_chain()), or nothing
	 * changes.
	 */
	tail_page = old_tail & ~(u64)(NOVA_BLOCK_SIZE - 1);
	before = nova_log_walk_chain(sb, inode, old_head, tail_page, tail_page,
				     old_pages ? old_pages - 1 : 0);
	extra = before < 0 ? 0 :
		le64_to_cpu(nova_page_tail(sb, tail_page)->next_page);
	if (before >= 0)
		after = nova_log_walk_chain(sb, inode, extra, 0, 0,
					    old_pages - before - 1);
	if (after < 0)
		return -EUCLEAN;
	if (before + 1 + after != old_pages) {
		nova_error(sb, "inode %llu: log chain has %ld pages, not %lu",
			   nova_ino(inode), before + 1 + after, old_pages);
		return -EUCLEAN;
	}
	ret = nova_gc_write_state(inode, &nl, &sa_off, &lc_off);
	if (ret) {
		nova_new_log_free(&nl);
		return ret;
	}
	nova_fence();

	/* end the old log where it stands and link the new pages after it */
	if ((old_tail & (NOVA_BLOCK_SIZE - 1)) < NOVA_LOG_LAST_ENTRY) {
		u8 *mark = nova_get_block(sb, old_tail);

		*mark = NOVA_NEXT_PAGE;
		nova_flush(mark, 1);
	}
	nova_fence();
	/* readers of extended attributes wait until the old log is gone */
	down_write(&sih->xattr_sem);
	nova_store_le64(&nova_page_tail(sb, tail_page)->next_page, nl.head);
	NOVA_CRASH_POINT(CP_GC_LINKED);
	/* commit: old log + new log */
	nova_store_le64(&pi->log_tail, nl.tail);
	NOVA_CRASH_POINT(CP_GC_TAIL);
	/* switch: new log only */
	nova_store_le64(&pi->log_head, nl.head);
	NOVA_CRASH_POINT(CP_GC_HEAD);
	sih->log_head = nl.head;
	sih->log_tail = nl.tail;
	sih->log_pages = nl.pages;
	nova_quota_log_pages(inode, (long)nl.pages - (long)old_pages, false);

	/* DRAM indexes now point into the new log */
	nova_log_walk_own(sb, inode->i_ino, nl.head, nl.tail, nova_gc_repoint,
			  inode);
	sih->last_sa = sa_off;
	sih->last_sa_cut = false;
	sih->last_lc = lc_off;
	if (S_ISREG(inode->i_mode))
		sih->live_writes = nl.write_entries;
	sih->gc_pending = false;

	/* free the old pages, and any unused ones that hung after them */
	page = old_head;
	while (page && guard--) {
		u64 next = le64_to_cpu(nova_page_tail(sb, page)->next_page);

		nova_free_blocks(sb, page >> NOVA_BLOCK_SHIFT, 1);
		if (page == tail_page)
			break;
		page = next;
	}
	nova_free_log(sb, extra, after);
	nova_xattr_gc_drop_removed(inode);
	up_write(&sih->xattr_sem);

	nova_stat_inc(sbi, thorough_gc_runs);
	nova_stat_add(sbi, thorough_gc_pages_written, nl.pages);
	nova_stat_add(sbi, thorough_gc_pages_freed, old_pages);
	NOVA_TIMER_END(sbi, T_THOROUGH_GC, t);
	return 0;
}

/*
 * After a commit: bring the log of @inode back within its bound - first
 * by dropping dead pages, and if that is not enough by rewriting it.
 * Caller holds the locks nova_thorough_gc() needs.
 */
void nova_gc_if_pending(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct super_block *sb = inode->i_sb;

	/* no reader can hold an entry that died before these locks */
	sih->gc_hold = false;
	if (!nova_gc_needed(inode))
		return;
	if (!sih->gc_pending) {
		/* nothing is appended past the committed tail now */
		nova_fast_gc(sb, inode, sih->log_tail);
		if (!nova_gc_needed(inode))
			return;
	}
	sih->gc_pending = false;
	nova_thorough_gc(sb, inode);
}

/*
 * The same, for a caller that holds only the inode lock: takes a
 * regular file's invalidate lock (GC re-points the page index, which
 * page faults read under it) and the log mutex, in the order of the
 * write path.
 */
void nova_gc_maybe(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	bool reg = S_ISREG(inode->i_mode);

	if (!READ_ONCE(sih->gc_pending) && !nova_gc_needed(inode))
		return;
	if (reg)
		filemap_invalidate_lock(inode->i_mapping);
	mutex_lock(&sih->log_mutex);
	nova_gc_if_pending(inode);
	mutex_unlock(&sih->log_mutex);
	if (reg)
		filemap_invalidate_unlock(inode->i_mapping);
}
