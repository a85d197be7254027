// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: clones and dedupe (FICLONE, FICLONERANGE, FIDEDUPERANGE and
 * copy_file_range through ->remap_file_range).
 *
 * A clone maps the destination's pages to the source's blocks, which
 * become shared (share.c).  It works in batches of runs (consecutive
 * source pages on consecutive blocks, or holes); for each batch:
 *   1. the source's pages whose entries lack NOVA_WRITE_SHARED are logged
 *      again with it (same blocks) and committed;
 *   2. each block's reference count goes up (DRAM);
 *   3. the destination's entries (the same blocks with the flag, hole
 *      entries for the source's holes) are committed with one tail store,
 *      and the pages the destination had there are freed (a shared one
 *      loses a reference).
 * A crash between 1 and 3 leaves flags on blocks mapped once, which the
 * next mount's scan takes as such; a crash between batches leaves the
 * batches before done, each one whole, as XFS clones extent by extent.
 *
 * No mapping maps a shared block (dax.c nova_unshare_page()): both ranges
 * are unmapped first, and a fault on a shared page copies it.  Writes
 * copy on write around shared pages, also in place mode; whatever may
 * store into a block in place (a punch's partial page, the bytes past
 * EOF a growing file zeroes) unshares it first (nova_unshare_edges()).
 * The destination is charged (quota, i_blocks) for every page it maps,
 * as XFS does.
 */
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/dax.h>
#include "nova.h"

/* Source pages [pg, pg + n) on blocks from @blk (0: holes) */
struct nova_clone_run {
	pgoff_t pg;
	unsigned long n;
	u64 blk;
	u8 flags;		/* NOVA_WRITE_UNWRITTEN and _SHARED of its entries */
	u64 entry;		/* its new entry's offset */
	bool got;		/* its blocks' counts were raised */
	long charged;		/* quota charged for the destination's holes, or -1 */
};

#define NOVA_CLONE_BATCH	16

/*
 * The next batch of runs of source pages [*pg, end); *@pg moves past
 * them.  Holes are found a mapped page at a time (xa_find()), so a
 * sparse range costs what its mapped pages cost.
 */
static int nova_clone_runs(struct inode *src, pgoff_t *pg, pgoff_t end,
			   struct nova_clone_run *r)
{
	struct super_block *sb = src->i_sb;
	struct xarray *pages = &NOVA_I(src)->header.pages;
	int nr = 0;

	while (*pg < end) {
		struct nova_file_write_entry *e = xa_load(pages, *pg);
		unsigned long next = *pg;
		u64 blk = e ? nova_entry_block(sb, e, *pg) : 0;
		u8 flags = blk ? e->flags & (NOVA_WRITE_UNWRITTEN |
					     NOVA_WRITE_SHARED) : 0;
		unsigned long n = 1;

		if (!blk) {
			/* a hole (or a damaged entry's page): up to the next page */
			if (xa_find_after(pages, &next, end - 1, XA_PRESENT))
				n = next - *pg;
			else
				n = end - *pg;
			/* (an entry maps at most U32_MAX pages) */
			n = min_t(unsigned long, n, U32_MAX);
		}
		if (nr && r[nr - 1].pg + r[nr - 1].n == *pg &&
		    r[nr - 1].flags == flags && r[nr - 1].n + n <= U32_MAX &&
		    (blk ? r[nr - 1].blk &&
			   r[nr - 1].blk + (r[nr - 1].n << NOVA_BLOCK_SHIFT) == blk :
			   !r[nr - 1].blk)) {
			r[nr - 1].n += n;
		} else {
			if (nr == NOVA_CLONE_BATCH)
				break;
			r[nr++] = (struct nova_clone_run){
				.pg = *pg, .n = n, .blk = blk, .flags = flags,
			};
		}
		*pg += n;
		if (!(*pg & 1023))
			cond_resched();
	}
	return nr;
}

/* Step 1: the source's runs not flagged yet are logged again, flagged */
static int nova_clone_flag_source(struct inode *src, struct nova_clone_run *r,
				  int nr)
{
	struct super_block *sb = src->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(src)->header;
	u64 tail;
	int i, ret = 0, todo = 0;

	for (i = 0; i < nr; i++)
		todo += r[i].blk && !(r[i].flags & NOVA_WRITE_SHARED);
	if (!todo)
		return 0;
	mutex_lock(&sih->log_mutex);
	tail = sih->log_tail;
	for (i = 0; i < nr && !ret; i++)
		if (r[i].blk && !(r[i].flags & NOVA_WRITE_SHARED))
			ret = nova_append_write_entry(src, r[i].pg, r[i].n, r[i].blk,
						      r[i].flags | NOVA_WRITE_SHARED,
						      src->i_size, &tail,
						      &r[i].entry);
	if (!ret) {
		nova_log_commit(sb, src, tail);
		for (i = 0; i < nr; i++) {
			if (!r[i].blk || (r[i].flags & NOVA_WRITE_SHARED))
				continue;
			nova_index_set(sb, src, r[i].pg, r[i].n,
				       nova_get_block(sb, r[i].entry),
				       NOVA_INDEX_MOVE, NULL);
			r[i].flags |= NOVA_WRITE_SHARED;
		}
	}
	mutex_unlock(&sih->log_mutex);
	return ret;
}

/* Undo step 2 and the destination's reservations (nothing committed) */
static void nova_clone_undo(struct inode *dst, struct nova_clone_run *r,
			    int nr, pgoff_t off)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (r[i].got)
			nova_share_drop(dst->i_sb, r[i].blk >> NOVA_BLOCK_SHIFT,
					r[i].n);
		if (r[i].charged >= 0) {
			nova_release_pages(dst, r[i].pg + off, r[i].n);
			nova_quota_release(dst, r[i].charged);
		}
	}
}

/* Step 2, and the destination's index slots and quota for its new pages */
static int nova_clone_take(struct inode *dst, struct nova_clone_run *r,
			   pgoff_t off)
{
	long holes;
	int ret;

	ret = nova_share_get(dst->i_sb, r->blk >> NOVA_BLOCK_SHIFT, r->n);
	if (ret)
		return ret;
	r->got = true;
	holes = nova_reserve_pages(dst, r->pg + off, r->n);
	if (holes < 0)
		return holes;
	ret = nova_quota_charge(dst, holes);
	if (ret) {
		nova_release_pages(dst, r->pg + off, r->n);
		return ret;
	}
	r->charged = holes;
	return 0;
}

/* Does the destination map any of pages [pg, pg + n)? */
static bool nova_clone_dst_mapped(struct inode *dst, pgoff_t pg,
				  unsigned long n)
{
	unsigned long index = pg;

	return xa_find(&NOVA_I(dst)->header.pages, &index, pg + n - 1,
		       XA_PRESENT);
}

/*
 * Steps 2 and 3 for one batch: destination page = source page + @off;
 * @size: the destination's size after the batch.
 */
static int nova_clone_batch(struct inode *dst, struct nova_clone_run *r,
			    int nr, pgoff_t off, loff_t size)
{
	struct super_block *sb = dst->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(dst)->header;
	unsigned long cloned = 0;
	u64 tail;
	int i, ret = 0;

	for (i = 0; i < nr; i++) {
		r[i].got = false;
		r[i].charged = -1;
		r[i].entry = 0;
	}
	for (i = 0; i < nr && !ret; i++)
		if (r[i].blk)
			ret = nova_clone_take(dst, &r[i], off);
	if (ret)
		goto undo;
	mutex_lock(&sih->log_mutex);
	tail = sih->log_tail;
	for (i = 0; i < nr && !ret; i++) {
		/*
		 * a hole only where the destination has pages, or as the
		 * last entry of a batch that grows the file and has no other
		 * (its size must be logged)
		 */
		if (!r[i].blk && !nova_clone_dst_mapped(dst, r[i].pg + off, r[i].n) &&
		    (i < nr - 1 || tail != sih->log_tail || size <= dst->i_size))
			continue;
		ret = nova_append_write_entry(dst, r[i].pg + off, r[i].n,
					      r[i].blk, r[i].flags, size, &tail,
					      &r[i].entry);
	}
	if (ret) {
		mutex_unlock(&sih->log_mutex);
		goto undo;
	}
	nova_log_commit(sb, dst, tail);
	for (i = 0; i < nr; i++) {
		if (r[i].entry)
			nova_apply_entry(dst, r[i].entry, max(r[i].charged, 0L));
		else if (r[i].charged > 0)
			nova_quota_release(dst, r[i].charged);
		if (r[i].blk)
			cloned += r[i].n;
	}
	if (size > dst->i_size)
		i_size_write(dst, size);
	mutex_unlock(&sih->log_mutex);
	nova_stat_add(NOVA_SB(sb), cloned_pages, cloned);
	return 0;
undo:
	nova_clone_undo(dst, r, nr, off);
	return ret;
}

/*
 * Map destination bytes [pos_out, pos_out + len) to the source's blocks
 * of [pos_in, pos_in + len); both aligned to pages but the end, which may
 * be the source's EOF.  Returns 0 or an error (the batches before it
 * done).
 */
static int nova_clone_range(struct inode *src, loff_t pos_in,
			    struct inode *dst, loff_t pos_out, loff_t len,
			    bool dedupe)
{
	pgoff_t pg = pos_in >> NOVA_BLOCK_SHIFT;
	pgoff_t end = DIV_ROUND_UP(pos_in + len, NOVA_BLOCK_SIZE);
	pgoff_t off = (pos_out >> NOVA_BLOCK_SHIFT) - pg;
	struct nova_clone_run r[NOVA_CLONE_BATCH];
	loff_t old_size = dst->i_size;
	int nr, ret = 0;

	nova_set_feature(src->i_sb, &NOVA_SB(src->i_sb)->s_super.s_feature_incompat,
			 NOVA_FEATURE_INCOMPAT_REFLINK);
	/* bytes past the destination's EOF become file data: zeros first */
	nova_zero_grow(dst, old_size, pos_out);
	/* a dedupe changes no data: no new times (as XFS) */
	if (!dedupe)
		nova_touch_mctime(dst);
	while (pg < end && !ret) {
		loff_t size;

		nr = nova_clone_runs(src, &pg, end, r);
		ret = nova_clone_flag_source(src, r, nr);
		size = min_t(loff_t, (loff_t)(pg + off) << NOVA_BLOCK_SHIFT,
			     pos_out + len);
		if (!ret)
			ret = nova_clone_batch(dst, r, nr, off,
					       max(size, dst->i_size));
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
	}
	return ret;
}

/* Do destination bytes [pos_out, +len) equal the source's? (dedupe) */
static int nova_same_data(struct inode *src, loff_t pos_in,
			  struct inode *dst, loff_t pos_out, loff_t len)
{
	struct super_block *sb = src->i_sb;
	char *a, *b;
	int ret = 0;

	a = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
	b = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
	if (!a || !b) {
		ret = -ENOMEM;
		goto out;
	}
	while (len > 0 && !ret) {
		size_t n = min_t(loff_t, len, NOVA_BLOCK_SIZE);
		u64 ba = nova_find_page(src, pos_in >> NOVA_BLOCK_SHIFT);
		u64 bb = nova_find_page(dst, pos_out >> NOVA_BLOCK_SHIFT);

		/* the same block (or both holes) holds the same bytes */
		if (ba != bb) {
			memset(a, 0, n);
			memset(b, 0, n);
			if ((ba && nova_read_pmem(a, nova_get_block(sb, ba), n)) ||
			    (bb && nova_read_pmem(b, nova_get_block(sb, bb), n)))
				ret = -EIO;
			else if (memcmp(a, b, n))
				ret = -EBADE;
		}
		pos_in += n;
		pos_out += n;
		len -= n;
		if (fatal_signal_pending(current) && !ret)
			ret = -EINTR;
		cond_resched();
	}
out:
	kfree(a);
	kfree(b);
	return ret;
}

/*
 * The kernel's dedupe comparison for DAX files (used by
 * dax_remap_file_range_prep()) compares the wrong bytes on 6.1 when a
 * range has more than one extent; NOVA compares the data itself after
 * the checks (nova_same_data()), so the kernel's comparison is given
 * one hole for each range, which compare equal.
 */
static int nova_prep_iomap_begin(struct inode *inode, loff_t offset,
				 loff_t length, unsigned int flags,
				 struct iomap *iomap, struct iomap *srcmap)
{
	iomap->type = IOMAP_HOLE;
	iomap->addr = IOMAP_NULL_ADDR;
	iomap->offset = offset;
	iomap->length = length;
	iomap->bdev = inode->i_sb->s_bdev;
	iomap->dax_dev = NOVA_SB(inode->i_sb)->s_dax_dev;
	return 0;
}

static const struct iomap_ops nova_prep_iomap_ops = {
	.iomap_begin	= nova_prep_iomap_begin,
};

/* A GC the clone's appends asked for (all locks held) */
static void nova_clone_gc(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;

	mutex_lock(&sih->log_mutex);
	nova_gc_if_pending(inode);
	mutex_unlock(&sih->log_mutex);
}

/*
 * Before blocks are shared: no mapping may keep a page of either range
 * (dax.c), and the destination's EOF page, which a clone past EOF zeroes
 * past the old size, must have a block of its own.  A wait for a pinned
 * page drops the invalidate locks (nova_wait_dax_page()), and faults may
 * map the other range again meanwhile (the same file's, or either file's
 * when the EOF page's copy waited): both breaks run again until neither
 * waited.  Caller holds both inode and invalidate locks.
 */
static int nova_clone_break_layouts(struct inode *src, loff_t pos_in,
				    struct inode *dst, loff_t pos_out,
				    loff_t len)
{
	struct nova_inode_info_header *ssih = &NOVA_I(src)->header;
	struct nova_inode_info_header *dsih = &NOVA_I(dst)->header;
	unsigned int waits;
	int ret;

	if (src != dst) {
		ssih->layout_other = dst;
		dsih->layout_other = src;
	}
	ret = nova_unshare_edges(dst, 0, 0, pos_out > i_size_read(dst));
	do {
		waits = ssih->layout_waits + dsih->layout_waits;
		if (!ret)
			ret = nova_break_layouts_flush(src, pos_in,
						       pos_in + len - 1);
		if (!ret)
			ret = nova_break_layouts(dst, pos_out,
						 pos_out + len - 1);
	} while (!ret && waits != ssih->layout_waits + dsih->layout_waits);
	ssih->layout_other = NULL;
	dsih->layout_other = NULL;
	return ret;
}

loff_t nova_remap_file_range(struct file *file_in, loff_t pos_in,
			     struct file *file_out, loff_t pos_out,
			     loff_t len, unsigned int remap_flags)
{
	struct inode *src = file_inode(file_in);
	struct inode *dst = file_inode(file_out);
	struct super_block *sb = dst->i_sb;
	bool same = src == dst;
	int ret;

	if (remap_flags & ~(REMAP_FILE_DEDUP | REMAP_FILE_ADVISORY))
		return -EINVAL;
	if (nova_is_shutdown(sb))
		return -EIO;
	/* as ext4 and XFS: no encrypted clones; the quota files are internal */
	if (IS_ENCRYPTED(src) || IS_ENCRYPTED(dst))
		return -EOPNOTSUPP;
	if (IS_NOQUOTA(src) || IS_NOQUOTA(dst))
		return -EPERM;
	if (same)
		inode_lock(src);
	else
		lock_two_nondirectories(src, dst);
	if (IS_APPEND(dst)) {
		ret = -EPERM;
		goto out_inodes;
	}
	/*
	 * The checks (and dropping set-user-ID, a setattr that may run a GC,
	 * which takes the invalidate lock) before the invalidate locks
	 */
	ret = dax_remap_file_range_prep(file_in, pos_in, file_out, pos_out,
					&len, remap_flags, &nova_prep_iomap_ops);
	if (ret || !len)
		goto out_inodes;
	if (same)
		filemap_invalidate_lock(src->i_mapping);
	else
		filemap_invalidate_lock_two(src->i_mapping, dst->i_mapping);
	nova_share_drops(src);
	if (!same)
		nova_share_drops(dst);
	ret = nova_emergency_state(sb);
	if (!ret)
		ret = nova_clone_break_layouts(src, pos_in, dst, pos_out, len);
	/* compared unmapped: no store through a mapping can come after */
	if (!ret && (remap_flags & REMAP_FILE_DEDUP))
		ret = nova_same_data(src, pos_in, dst, pos_out, len);
	if (!ret)
		ret = nova_clone_range(src, pos_in, dst, pos_out, len,
				       remap_flags & REMAP_FILE_DEDUP);
	nova_clone_gc(src);
	if (!same)
		nova_clone_gc(dst);
	if (same)
		filemap_invalidate_unlock(src->i_mapping);
	else
		filemap_invalidate_unlock_two(src->i_mapping, dst->i_mapping);
out_inodes:
	if (same)
		inode_unlock(src);
	else
		unlock_two_nondirectories(src, dst);
	return ret < 0 ? ret : len;
}
