// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: reference counts of shared data blocks (clones, reflink.c).
 *
 * A data block mapped by more than one file page (NOVA_WRITE_SHARED,
 * INCOMPAT_REFLINK) has its count in an xarray, block number -> count;
 * a block mapped once has no entry.  The counts live in DRAM only: a
 * mount of a file system with INCOMPAT_REFLINK always scans (bbuild.c),
 * and the scan counts the pages that map each flagged block.
 *
 * Freeing a data block (a page replaced, punched, truncated or deleted)
 * goes through nova_free_data_blocks(): a shared block loses one
 * reference instead of going back to the allocator.  Counts change under
 * share_lock, so that a clone and a free of another sharer of the same
 * block do not lose an update; lookups (is this page shared?) take no
 * lock: a page's sharing only changes under its inode's lock, which the
 * caller that asks holds.
 */
#include <linux/xarray.h>
#include "nova.h"

void nova_share_init(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	xa_init(&sbi->shared);
	mutex_init(&sbi->share_lock);
}

void nova_share_destroy(struct super_block *sb)
{
	xa_destroy(&NOVA_SB(sb)->shared);
}

/* The error of a log that maps more than nova_max_mapped_pages() */
void nova_error_mapped_pages(struct super_block *sb, u64 ino)
{
	nova_error(sb, "inode %llu: its log maps more pages than %s", ino,
		   nova_reflink_enabled(sb) ? "a file can have" :
		   "the device has blocks");
}

/* References to data block @blk: 0 if it is not shared */
unsigned long nova_share_count(struct super_block *sb, unsigned long blk)
{
	void *v;

	if (xa_empty(&NOVA_SB(sb)->shared))
		return 0;
	v = xa_load(&NOVA_SB(sb)->shared, blk);
	return v ? xa_to_value(v) : 0;
}

/* Is the block of file page @pg (entry @e) shared with another page? */
bool nova_entry_page_shared(struct super_block *sb,
			    const struct nova_file_write_entry *e, pgoff_t pg)
{
	u64 blk;

	if (!e || !(e->flags & NOVA_WRITE_SHARED))
		return false;
	blk = nova_entry_block(sb, e, pg);
	return blk && nova_share_count(sb, blk >> NOVA_BLOCK_SHIFT);
}

bool nova_page_shared(struct inode *inode, pgoff_t pg)
{
	return nova_entry_page_shared(inode->i_sb,
				      xa_load(&NOVA_I(inode)->header.pages, pg),
				      pg);
}

/*
 * Does file page @pg's entry carry NOVA_WRITE_SHARED (its block may be
 * shared, or was)?  An entry's flags never change, so a fault that
 * finds it unflagged may map the block it read from the same entry.
 */
bool nova_page_flagged(struct inode *inode, pgoff_t pg)
{
	struct nova_file_write_entry *e;

	if (xa_empty(&NOVA_SB(inode->i_sb)->shared))
		return false;
	e = xa_load(&NOVA_I(inode)->header.pages, pg);
	return e && (e->flags & NOVA_WRITE_SHARED);
}

/* Does any of file pages [pg, pg + n) carry NOVA_WRITE_SHARED? */
bool nova_any_flagged(struct inode *inode, pgoff_t pg, unsigned long n)
{
	struct nova_file_write_entry *e;
	unsigned long index;

	if (!n || xa_empty(&NOVA_SB(inode->i_sb)->shared))
		return false;
	xa_for_each_range(&NOVA_I(inode)->header.pages, index, e, pg,
			  pg + n - 1)
		if (e->flags & NOVA_WRITE_SHARED)
			return true;
	return false;
}

/* One reference less of shared block @blk (its entry @v); share_lock held */
static void nova_share_put_entry(struct nova_sb_info *sbi, unsigned long blk,
				 void *v)
{
	unsigned long c = xa_to_value(v);

	if (c <= 2)
		xa_erase(&sbi->shared, blk);
	else
		xa_store(&sbi->shared, blk, xa_mk_value(c - 1), GFP_NOFS);
}

/* Drop one reference of each of blocks [blk, blk + n); share_lock held */
static void nova_share_put_locked(struct nova_sb_info *sbi, unsigned long blk,
				  unsigned long n)
{
	unsigned long i;
	void *v;

	for (i = 0; i < n; i++) {
		v = xa_load(&sbi->shared, blk + i);
		if (v)
			nova_share_put_entry(sbi, blk + i, v);
		if ((i & 1023) == 1023)
			cond_resched();
	}
}

/*
 * One more page maps each of blocks [blk, blk + n) (a clone, before its
 * commit).  Returns 0 or -ENOMEM (nothing changed then).
 */
int nova_share_get(struct super_block *sb, unsigned long blk, unsigned long n)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long i, c;
	void *v;
	int ret = 0;

	mutex_lock(&sbi->share_lock);
	for (i = 0; i < n; i++) {
		v = xa_load(&sbi->shared, blk + i);
		c = v ? xa_to_value(v) + 1 : 2;
		ret = xa_err(xa_store(&sbi->shared, blk + i, xa_mk_value(c),
				      GFP_NOFS));
		if (ret)
			break;
		/* a clone's run may be a whole device */
		if ((i & 1023) == 1023)
			cond_resched();
	}
	if (ret)
		nova_share_put_locked(sbi, blk, i);
	mutex_unlock(&sbi->share_lock);
	return ret;
}

/* Undo nova_share_get() (a clone that did not commit): nothing is freed */
void nova_share_drop(struct super_block *sb, unsigned long blk,
		     unsigned long n)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	mutex_lock(&sbi->share_lock);
	nova_share_put_locked(sbi, blk, n);
	mutex_unlock(&sbi->share_lock);
}

/*
 * nova_free_data_blocks() (nova.h) of @n > 0 blocks when some block of
 * the file system is shared
 */
unsigned long __nova_free_data_blocks(struct super_block *sb,
				      unsigned long blk, unsigned long n)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long index, start = blk, freed = 0, k = 0;
	void *v;

	/* only the shared blocks are looked at: a huge run costs no more */
	mutex_lock(&sbi->share_lock);
	xa_for_each_range(&sbi->shared, index, v, blk, blk + n - 1) {
		if (index > start) {
			nova_free_blocks(sb, start, index - start);
			freed += index - start;
		}
		nova_share_put_entry(sbi, index, v);
		start = index + 1;
		if (!(++k & 1023))
			cond_resched();
	}
	if (start < blk + n) {
		nova_free_blocks(sb, start, blk + n - start);
		freed += blk + n - start;
	}
	mutex_unlock(&sbi->share_lock);
	return freed;
}

/*
 * The recovery scan met a page of a NOVA_WRITE_SHARED entry mapping
 * block @blk: count it (the scan's stripes run in parallel).
 */
int nova_share_scan_add(struct super_block *sb, unsigned long blk)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	void *v;
	int ret;

	mutex_lock(&sbi->share_lock);
	v = xa_load(&sbi->shared, blk);
	ret = xa_err(xa_store(&sbi->shared, blk,
			      xa_mk_value(v ? xa_to_value(v) + 1 : 1),
			      GFP_KERNEL));
	mutex_unlock(&sbi->share_lock);
	return ret;
}

/*
 * After the scan of every inode: mark the flagged blocks used in @used,
 * where nothing else may have claimed them (a log page, table, journal
 * or a page of an entry without the flag: damage), and keep counts only
 * for the blocks mapped more than once.
 */
int nova_share_scan_finish(struct super_block *sb, unsigned long *used)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long blk, n = 0;
	void *v;

	xa_for_each(&sbi->shared, blk, v) {
		if (test_and_set_bit(blk, used)) {
			nova_error(sb, "data block %lu of a shared write entry is also used by an entry without the shared flag or by metadata",
				   blk);
			return -EUCLEAN;
		}
		if (xa_to_value(v) < 2)
			xa_erase(&sbi->shared, blk);
		if (!(++n & 1023))
			cond_resched();
	}
	return 0;
}

/*
 * Drop the references that @inode's fault copies left (dax.c
 * nova_unshare_page()).  Caller holds the inode lock (no read() of the
 * file runs), or evicts the inode; not the log mutex.
 */
void nova_share_drops(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long blk;
	void *v;

	if (xa_empty(&sih->share_drops))
		return;
	/* (a fault adds to the counts under the log mutex) */
	mutex_lock(&sih->log_mutex);
	xa_for_each(&sih->share_drops, blk, v) {
		unsigned long n = xa_to_value(v);

		xa_erase(&sih->share_drops, blk);
		while (n--)
			nova_free_data_blocks(inode->i_sb, blk, 1);
		cond_resched();
	}
	mutex_unlock(&sih->log_mutex);
}

/* A fault's copy that failed: its block keeps the reference */
void nova_share_drop_undo(struct inode *inode, unsigned long blk)
{
	struct xarray *drops = &NOVA_I(inode)->header.share_drops;
	void *v = xa_load(drops, blk);

	if (v && xa_to_value(v) > 1)
		xa_store(drops, blk, xa_mk_value(xa_to_value(v) - 1), GFP_NOFS);
	else
		xa_erase(drops, blk);
}
