// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA fallocate COLLAPSE_RANGE and INSERT_RANGE: the pages of a file
 * from an offset on move down (collapse: the range is cut out) or up
 * (insert: a hole opens) by whole pages, without copying data.
 *
 * The new mapping of every page that changes is logged: write entries
 * naming the same blocks at their new page numbers, and hole entries
 * (block 0) for the pages that become holes, each carrying the new
 * size.  One tail store commits them all, so after a crash the file is
 * as before or wholly shifted, as after any other fallocate.  Then the
 * DRAM index takes the new entries: the pages the old entries had die
 * in them as after a write, but their blocks stay where they are (they
 * moved to other pages); only a collapsed range's blocks are freed.
 *
 * A replay applies the entries in log order and gets the same mapping:
 * every page that changes, and only those, is named by exactly one of
 * the new entries.  The entries are built from the index before the
 * commit, with the inode, invalidate and log locks held, so nothing
 * changes the mapping meanwhile; index slots of new pages are reserved
 * first, so applying them cannot fail.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/falloc.h>
#include "nova.h"

/* One new entry: pages [pg, pg + n) at block offset @blk, 0 for holes */
struct nova_shift_ent {
	pgoff_t pg;
	unsigned long n;
	u64 blk;
	u64 off;		/* where the entry is in the log */
	bool cut;		/* pages of a collapsed range: free their blocks */
	u8 flags;		/* NOVA_WRITE_UNWRITTEN, _SHARED of its pages */
};

struct nova_shift {
	struct inode *inode;
	bool collapse;
	pgoff_t first;		/* first page that changes */
	pgoff_t pages;		/* by how many pages */
	struct nova_shift_ent *ents;
	int nr, cap;
	int reserved;		/* entries whose index slots are reserved */
};

/*
 * Block offset the new page @p gets, 0 for a hole; *@flags: whether it
 * stays unwritten (NOVA_WRITE_UNWRITTEN), and whether its block may be
 * shared (NOVA_WRITE_SHARED: it keeps the flag wherever it moves)
 */
static u64 nova_shift_source(struct nova_shift *s, pgoff_t p, u8 *flags)
{
	pgoff_t src = s->collapse ? p + s->pages : p - s->pages;
	bool unwritten;
	u64 blk;

	*flags = 0;
	if (!s->collapse && p < s->first + s->pages)
		return 0;	/* the inserted hole */
	blk = nova_find_page_state(s->inode, src, &unwritten);
	if (unwritten)
		*flags = NOVA_WRITE_UNWRITTEN;
	if (blk && nova_page_shared(s->inode, src))
		*flags |= NOVA_WRITE_SHARED;
	return blk;
}

/*
 * The first page at or after @p that changes, or ULONG_MAX: one that is
 * mapped now, or whose source page is mapped.
 */
static pgoff_t nova_shift_next(struct nova_shift *s, pgoff_t p)
{
	struct xarray *xa = &NOVA_I(s->inode)->header.pages;
	unsigned long a = p, b;
	pgoff_t next = ULONG_MAX;

	if (xa_find(xa, &a, ULONG_MAX, XA_PRESENT))
		next = a;
	if (s->collapse) {
		b = p + s->pages;
		if (xa_find(xa, &b, ULONG_MAX, XA_PRESENT))
			next = min(next, b - s->pages);
	} else {
		b = max(p, s->first + s->pages) - s->pages;
		if (xa_find(xa, &b, ULONG_MAX, XA_PRESENT))
			next = min(next, b + s->pages);
	}
	return next;
}

/*
 * Add page @p at block offset @blk (0: a hole) with @flags to the new
 * entries
 */
static int nova_shift_add(struct nova_shift *s, pgoff_t p, u64 blk, u8 flags)
{
	struct nova_shift_ent *l = s->nr ? &s->ents[s->nr - 1] : NULL;
	bool cut = s->collapse && p < s->first + s->pages;

	/* pages kept past EOF (KEEP_SIZE) may not move past the largest file */
	if (p > (MAX_LFS_FILESIZE >> NOVA_BLOCK_SHIFT))
		return -EFBIG;
	if (l && l->pg + l->n == p && l->cut == cut && l->n < U32_MAX &&
	    l->flags == flags &&
	    (blk ? l->blk &&
		   l->blk + ((u64)l->n << NOVA_BLOCK_SHIFT) == blk : !l->blk)) {
		l->n++;
		return 0;
	}
	if (s->nr == s->cap) {
		/* a fragmented file has many: past kmalloc's limit, vmalloc */
		int cap = s->cap > INT_MAX / 2 ? 0 : s->cap ? s->cap * 2 : 16;
		struct nova_shift_ent *n;

		if (!cap)
			return -ENOMEM;
		n = kvmalloc_array(cap, sizeof(*n), GFP_KERNEL);
		if (!n)
			return -ENOMEM;
		if (s->nr)
			memcpy(n, s->ents, s->nr * sizeof(*n));
		kvfree(s->ents);
		s->ents = n;
		s->cap = cap;
	}
	s->ents[s->nr++] = (struct nova_shift_ent){
		.pg = p, .n = 1, .blk = blk, .cut = cut, .flags = flags,
	};
	return 0;
}

/* The new entries: every page that changes, in page order */
static int nova_shift_plan(struct nova_shift *s)
{
	struct xarray *xa = &NOVA_I(s->inode)->header.pages;
	unsigned long count = 0;
	pgoff_t p = s->first;
	int ret;

	while ((p = nova_shift_next(s, p)) != ULONG_MAX) {
		for (;;) {
			u8 flags;
			u64 blk = nova_shift_source(s, p, &flags);

			if (!blk && !xa_load(xa, p))
				break;
			ret = nova_shift_add(s, p, blk, flags);
			if (ret)
				return ret;
			p++;
			if (!(++count % 4096)) {
				if (fatal_signal_pending(current))
					return -EINTR;
				cond_resched();
			}
		}
	}
	/* nothing moves: one hole entry still logs the new size */
	if (!s->nr)
		return nova_shift_add(s, s->first, 0, 0);
	return 0;
}

/* Reserve the index slots of the new entries' pages */
static int nova_shift_reserve(struct nova_shift *s)
{
	long ret;

	for (; s->reserved < s->nr; s->reserved++) {
		struct nova_shift_ent *t = &s->ents[s->reserved];

		if (!t->blk)
			continue;
		ret = nova_reserve_pages(s->inode, t->pg, t->n);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void nova_shift_unreserve(struct nova_shift *s)
{
	while (s->reserved--)
		if (s->ents[s->reserved].blk)
			nova_release_pages(s->inode, s->ents[s->reserved].pg,
					   s->ents[s->reserved].n);
	s->reserved = 0;
}

/*
 * Log the new entries and commit them with one tail store; then point
 * the index at them.  Caller holds the log mutex.  An error before the
 * commit (a full device, memory) leaves everything as it was.
 */
static int nova_shift_commit(struct nova_shift *s, loff_t new_size)
{
	struct inode *inode = s->inode;
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct timespec64 mtime = nova_get_mtime(inode);
	struct timespec64 ctime = nova_get_ctime(inode);
	u64 tail = sih->log_tail;
	int i, ret;

	ret = nova_shift_plan(s);
	if (!ret)
		ret = nova_shift_reserve(s);
	if (ret)
		goto out;
	/* a collapse frees space: on a full device it may use the reserve */
	sih->use_reserve = s->collapse;
	nova_touch_mctime(inode);
	for (i = 0; i < s->nr; i++) {
		struct nova_shift_ent *t = &s->ents[i];

		ret = nova_append_write_entry(inode, t->pg, t->n, t->blk,
					      t->flags, new_size, &tail, &t->off);
		if (ret) {
			/* nothing committed: no other entry may log the times */
			nova_set_mtime(inode, mtime);
			nova_set_ctime(inode, ctime);
			goto out;
		}
	}
	NOVA_CRASH_POINT(CP_WRITE_ENTRIES);
	nova_log_commit(sb, inode, tail);
	inode->i_size = new_size;
	for (i = 0; i < s->nr; i++) {
		struct nova_shift_ent *t = &s->ents[i];

		/* slots were reserved, or are replaced: this cannot fail */
		nova_index_set(sb, inode, t->pg, t->n,
			       t->blk ? nova_get_block(sb, t->off) : NULL,
			       t->cut ? NOVA_INDEX_FREE : NOVA_INDEX_MOVE, NULL);
		if (!(i % 1024))
			cond_resched();
	}
	s->reserved = 0;
	nova_gc_if_pending(inode);
out:
	sih->use_reserve = false;
	nova_shift_unreserve(s);
	return ret;
}

/*
 * The checks of COLLAPSE_RANGE and INSERT_RANGE, with ext4's rules:
 * offset and length in whole blocks (EINVAL), a collapse must end before
 * EOF and an insert start before it (EINVAL), the file may not grow past
 * the maximum size (EFBIG).  Caller holds the inode lock.
 */
int nova_shift_check(struct inode *inode, int mode, loff_t offset,
		     loff_t len)
{
	/* as ext4: encrypted blocks are tied to their file page (crypto.c) */
	if (IS_ENCRYPTED(inode))
		return -EOPNOTSUPP;
	if (!IS_ALIGNED(offset | len, NOVA_BLOCK_SIZE))
		return -EINVAL;
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		return offset + len >= inode->i_size ? -EINVAL : 0;
	if (len > inode->i_sb->s_maxbytes - inode->i_size)
		return -EFBIG;
	return offset >= inode->i_size ? -EINVAL : 0;
}

/*
 * Move the pages from @offset on by @len, down (@collapse) or up.  Pages
 * kept past EOF (KEEP_SIZE) move too (EFBIG if one would move past the
 * largest file).  Caller holds the inode and invalidate locks, with no
 * page of the file from @offset on mapped or pinned.
 */
static long nova_shift_range(struct inode *inode, bool collapse,
			     loff_t offset, loff_t len, loff_t new_size)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_shift s = {
		.inode = inode,
		.collapse = collapse,
		.first = offset >> NOVA_BLOCK_SHIFT,
		.pages = len >> NOVA_BLOCK_SHIFT,
	};
	long ret;

	mutex_lock(&sih->log_mutex);
	ret = nova_shift_commit(&s, new_size);
	mutex_unlock(&sih->log_mutex);
	if (!ret)
		i_size_write(inode, new_size);
	kvfree(s.ents);
	return ret;
}

/* fallocate COLLAPSE_RANGE: the range is cut out, the file shrinks */
long nova_shift_collapse(struct inode *inode, loff_t offset, loff_t len)
{
	return nova_shift_range(inode, true, offset, len, inode->i_size - len);
}

/* fallocate INSERT_RANGE: a hole opens at @offset, the file grows */
long nova_shift_insert(struct inode *inode, loff_t offset, loff_t len)
{
	return nova_shift_range(inode, false, offset, len, inode->i_size + len);
}
