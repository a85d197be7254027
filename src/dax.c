// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA file data: the per-file DRAM index, read, copy-on-write and
 * in-place write, truncate, fallocate and hole punching.
 *
 * File data lives outside the log.  Each NOVA_FILE_WRITE entry maps
 * num_pages file pages starting at pgoff to consecutive blocks starting
 * at block (block 0: a hole, written by hole punching).  The DRAM index
 * (an xarray, page -> the pmem address of the live write entry) is
 * rebuilt from the log when the inode is read.
 *
 * Copy-on-write (default) ordering: new blocks are filled with
 * non-temporal stores (partial head and tail pages completed from the old
 * blocks), the write entries of all runs are appended, then one fence and
 * one durable 8-byte log_tail store commit the whole write: after a crash
 * a file shows all of a write or none of it.  Only then are the replaced
 * blocks freed (DRAM allocator state) and the index updated.  The
 * filling runs without the mapping's invalidate lock (a fault on the
 * user buffer, which may map this very file, takes it), so a write fault
 * may meanwhile give a hole page a block and store to it, or store to a
 * block already mapped: the commit, with the range unmapped and faults
 * held off, copies the partial pages' other bytes again where they may
 * have changed (nova_refill_edges()), before the old blocks are freed.
 *
 * One exception: a copy-on-write write into preallocated pages
 * (fallocate) that finds no free block writes them in place, as below,
 * since fallocate promised that writes there do not fail for space; such
 * a write is not atomic (nova_prealloc_inplace()).
 *
 * In-place mode (inplace_data_updates=1): pages that already have a
 * block are overwritten where they are (durable before the call
 * returns, not atomic), pages without one take the copy-on-write path.
 * An in-place write that does not change the size logs nothing: its new
 * mtime and ctime are in DRAM (visible to stat at once), the inode is
 * marked dirty (sih->attr_dirty), and one set-attribute entry records
 * them at fsync, writeback (sync, the flusher), eviction or unmount
 * (inode.c: nova_write_attr()), or before an O_SYNC or RWF_SYNC write
 * returns (nova_write_sync_needed()).  After a crash before that, the
 * file has the new data with the times of its last logged change - as
 * with other file systems' timestamps before fsync; sizes are still
 * logged before write() returns.
 *
 * Bytes past EOF are no file data, but blocks may hold some there:
 * stores through a mapping into the last page, in-place writes into
 * preallocated pages whose size commit failed or was cut by a crash.
 * Whatever grows a file (write, truncate, fallocate) zeroes them between
 * the old and the new EOF before it commits the new size.
 */
#include <linux/uio.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/falloc.h>
#include "nova.h"

/* nova_entry_block() (nova.h) found page @pg of @e at bad block @blk */
u64 nova_entry_block_bad(struct super_block *sb,
			 const struct nova_file_write_entry *e, pgoff_t pg,
			 u64 blk)
{
	nova_error(sb, "write entry at 0x%llx: page %lu has bad block 0x%llx",
		   nova_get_addr_off(NOVA_SB(sb), e), pg, blk);
	return 0;
}

/* Block offset of file page @pg, 0 for a hole */
u64 nova_find_page(struct inode *inode, pgoff_t pg)
{
	struct nova_file_write_entry *e;

	e = xa_load(&NOVA_I(inode)->header.pages, pg);
	return e ? nova_entry_block(inode->i_sb, e, pg) : 0;
}

/* Is file page @pg preallocated and not written since (all zeros)? */
static bool nova_page_unwritten(struct inode *inode, pgoff_t pg)
{
	struct nova_file_write_entry *e;

	e = xa_load(&NOVA_I(inode)->header.pages, pg);
	return e && (e->flags & NOVA_WRITE_UNWRITTEN);
}

/*
 * Block offset of file page @pg, 0 for a hole, with one index lookup;
 * *@unwritten: the page has a block and is preallocated, not written
 * since (a damaged entry's page is a hole: never unwritten)
 */
u64 nova_find_page_state(struct inode *inode, pgoff_t pg, bool *unwritten)
{
	struct nova_file_write_entry *e;
	u64 blk;

	e = xa_load(&NOVA_I(inode)->header.pages, pg);
	blk = e ? nova_entry_block(inode->i_sb, e, pg) : 0;
	*unwritten = blk && (e->flags & NOVA_WRITE_UNWRITTEN);
	return blk;
}

/* Is any of file pages [pg, pg + n) preallocated and not written since? */
static bool nova_any_unwritten(struct inode *inode, pgoff_t pg,
			       unsigned long n)
{
	struct nova_file_write_entry *e;
	unsigned long index;

	xa_for_each_range(&NOVA_I(inode)->header.pages, index, e, pg,
			  pg + n - 1)
		if (e->flags & NOVA_WRITE_UNWRITTEN)
			return true;
	return false;
}

/*
 * Block offset of file page @pg if it may be written in place, else 0
 * (a hole, a preallocated page, a block shared with another page)
 */
static u64 nova_inplace_block(struct inode *inode, pgoff_t pg)
{
	struct nova_file_write_entry *e;
	u64 blk;

	/* one index lookup per page of the in-place write path */
	e = xa_load(&NOVA_I(inode)->header.pages, pg);
	blk = e ? nova_entry_block(inode->i_sb, e, pg) : 0;
	if (!blk || (e->flags & NOVA_WRITE_UNWRITTEN) ||
	    nova_entry_page_shared(inode->i_sb, e, pg))
		return 0;
	return blk;
}

/*
 * Point pages [pg, pg + n) at entry @e (NULL: holes).  @how says what
 * happens to the entries and blocks the pages had: NOVA_INDEX_FREE, each
 * replaced page dies in its old entry and its block goes back to the
 * allocator (a shared one loses a reference: share.c); NOVA_INDEX_MOVE, the page dies but its block stays (another
 * entry maps it now: shift.c); NOVA_INDEX_REPLAY, nothing (a replay: the
 * allocator is rebuilt from the final state, i_blocks is set from the
 * index).  Otherwise the quota (and i_blocks) follow the pages that
 * become and stop being mapped, using the *@charged blocks charged for
 * them ahead first (quota.c).  Returns the number of blocks freed,
 * -ENOMEM (only possible for new indexes that were not reserved) or
 * -EUCLEAN (more pages mapped than the device has blocks: only a damaged
 * log being replayed can do that).
 */
long nova_index_set(struct super_block *sb, struct inode *inode, pgoff_t pg,
		    unsigned long n, struct nova_file_write_entry *e,
		    enum nova_index_how how, unsigned long *charged)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long run_start = 0, run_len = 0, i, index;
	unsigned long mapped = 0, unmapped = 0;
	bool hole = !e || !le64_to_cpu(e->block);
	unsigned long max_pages = nova_max_mapped_pages(sb);
	long freed = 0;

	for (i = 0; i < n; i++) {
		struct nova_file_write_entry *old;
		u64 oblk = 0;

		if (hole) {
			/* only the mapped pages of the range matter */
			index = pg + i;
			old = xa_find(&sih->pages, &index, pg + n - 1, XA_PRESENT);
			if (!old)
				break;
			i = index - pg;
			xa_erase(&sih->pages, index);
		} else {
			old = xa_store(&sih->pages, pg + i, e, GFP_KERNEL);
			if (xa_is_err(old))
				return xa_err(old);
			/*
			 * A log that maps more pages than the device has
			 * blocks, clones aside, is damaged (and would
			 * exhaust memory): share.c
			 */
			if (!old && ++mapped &&
			    ++sih->data_pages > max_pages)
				return -EUCLEAN;
		}
		/* one entry may map a whole device: let others run */
		if (!(i & 1023)) {
			cond_resched();
			/* a replay may stop (nothing of it is kept then) */
			if (how == NOVA_INDEX_REPLAY && nova_walk_killed(sb))
				return -EINTR;
		}
		if (!old)
			continue;
		if (hole) {
			sih->data_pages--;
			unmapped++;
		}
		if (how == NOVA_INDEX_REPLAY)
			continue;
		/*
		 * Read before the entry can die: a truncate kills entries
		 * without the log mutex, and once a log page is all dead
		 * another thread's append may free and reuse it (fast GC)
		 */
		if (how != NOVA_INDEX_MOVE)
			oblk = nova_entry_block(sb, old, pg + i) >>
			       NOVA_BLOCK_SHIFT;
		/* its last page gone: one live entry less (gc.c) */
		if (nova_invalidate_pages(sb, old, 1)) {
			if (sih->live_writes)
				sih->live_writes--;
			NOVA_INJECT_DEAD_ENTRY(inode, old);
		}
		if (how == NOVA_INDEX_MOVE)
			continue;
		if (run_len && oblk == run_start + run_len) {
			run_len++;
			continue;
		}
		if (run_len)
			freed += nova_free_data_blocks(sb, run_start, run_len);
		run_start = oblk;
		run_len = 1;
	}
	if (run_len)
		freed += nova_free_data_blocks(sb, run_start, run_len);
	if (!hole && n)
		sih->live_writes++;
	if (how == NOVA_INDEX_REPLAY)
		inode->i_blocks = sih->data_pages << (NOVA_BLOCK_SHIFT - 9);
	else
		nova_quota_settle(inode, mapped, unmapped, charged);
	return freed;
}

/* Log replay of a write entry (inode.c) */
int nova_replay_write_entry(struct super_block *sb, struct inode *inode,
			    struct nova_file_write_entry *e)
{
	u64 blk = le64_to_cpu(e->block);
	u32 n = le32_to_cpu(e->num_pages);
	u64 pg = le64_to_cpu(e->pgoff);
	struct timespec64 mtime, ctime;
	long ret;

	if (!n || pg + n < pg || pg + n > (MAX_LFS_FILESIZE >> NOVA_BLOCK_SHIFT) + 1 ||
	    le64_to_cpu(e->size) > MAX_LFS_FILESIZE || !nova_write_flags_ok(e) ||
	    (blk && (blk & (NOVA_BLOCK_SIZE - 1) ||
		     !nova_range_valid(NOVA_SB(sb), blk,
				       (u64)n << NOVA_BLOCK_SHIFT)))) {
		nova_error(sb, "inode %llu: bad write entry (page %llu, %u pages, block 0x%llx, flags 0x%x)",
			   nova_ino(inode), pg, n, blk, e->flags);
		return -EUCLEAN;
	}
	ret = nova_index_set(sb, inode, pg, n, e, NOVA_INDEX_REPLAY, NULL);
	if (ret == -EUCLEAN)
		nova_error_mapped_pages(sb, nova_ino(inode));
	if (ret < 0)
		return ret;
	inode->i_size = le64_to_cpu(e->size);
	nova_set_mtime(inode, nova_ns_to_ts(le64_to_cpu(e->mtime)));
	/*
	 * a write sets both times; an entry that logs pages again with the
	 * same data (a clone's flag, a fault's copy, unwritten made
	 * written) carries an older mtime than a change logged before it
	 */
	mtime = nova_get_mtime(inode);
	ctime = nova_get_ctime(inode);
	if (timespec64_compare(&mtime, &ctime) > 0)
		nova_set_ctime(inode, mtime);
	return 0;
}

/*
 * The block of page @pg (entry @e) that the claim bitmap tracks for the
 * file, 0 for none: a hole, or a page whose block may be shared (a clone
 * made on this mount: several inodes hold it; the next mount scans,
 * which checks every claim of it)
 */
static unsigned long nova_claim_block(struct super_block *sb,
				      const struct nova_file_write_entry *e,
				      pgoff_t pg)
{
	if (e->flags & NOVA_WRITE_SHARED)
		return 0;
	return nova_entry_block(sb, e, pg) >> NOVA_BLOCK_SHIFT;
}

/*
 * Release the claims (balloc.c) of the file's data blocks, run by run,
 * for the runs that start before page @end (ULONG_MAX: all of them).
 */
void nova_index_unclaim(struct super_block *sb, struct inode *inode,
			unsigned long end)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_file_write_entry *e;
	unsigned long index, start = 0, len = 0;

	if (!NOVA_SB(sb)->claimed || !end)
		return;
	xa_for_each_range(&sih->pages, index, e, 0, end - 1) {
		unsigned long b = nova_claim_block(sb, e, index);

		if (len && b == start + len) {
			len++;
			continue;
		}
		if (len)
			nova_unclaim_blocks(sb, start, len);
		start = b;
		len = b ? 1 : 0;
	}
	if (len)
		nova_unclaim_blocks(sb, start, len);
}

/*
 * After a replay: claim the file's data blocks (balloc.c), one range per
 * run of contiguous blocks.  A block that the allocator calls free (a
 * damaged log would hand it out twice) or that is claimed already
 * (another inode's log page or data, an inode table or journal block,
 * or a page of this file twice) makes the inode corrupt.  Earlier
 * entries may name freed blocks, so only the final index counts.
 */
int nova_index_claim(struct super_block *sb, struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_file_write_entry *e;
	unsigned long index, start = 0, len = 0, first = 0;
	int ret = 0;

	xa_for_each(&sih->pages, index, e) {
		unsigned long b = nova_claim_block(sb, e, index);

		if (len && b == start + len) {
			len++;
			continue;
		}
		if (len)
			ret = nova_claim_blocks(sb, start, len);
		if (ret)
			goto bad;
		start = b;
		len = b ? 1 : 0;
		first = index;
	}
	if (len)
		ret = nova_claim_blocks(sb, start, len);
	if (!ret)
		return 0;
bad:
	nova_error(sb, "inode %llu: data blocks %lu+%lu are %s",
		   nova_ino(inode), start, len, ret == -ENOENT ?
		   "free in the allocator" :
		   "claimed twice (another inode's, metadata or this file's)");
	/* the runs before the failed one */
	nova_index_unclaim(sb, inode, first);
	return -EUCLEAN;
}

/* Drop index entries of pages at or past @size (replay or truncate) */
long nova_index_truncate(struct super_block *sb, struct inode *inode,
			 loff_t size, bool free_old)
{
	pgoff_t first = DIV_ROUND_UP(size, NOVA_BLOCK_SIZE);

	return nova_index_set(sb, inode, first,
			      (MAX_LFS_FILESIZE >> NOVA_BLOCK_SHIFT) + 1 - first,
			      NULL, free_old ? NOVA_INDEX_FREE : NOVA_INDEX_REPLAY,
			      NULL);
}

void nova_index_free(struct inode *inode)
{
	xa_destroy(&NOVA_I(inode)->header.pages);
}

/* Free every data block of a file being deleted */
void nova_free_file_data(struct super_block *sb, struct inode *inode)
{
	nova_index_truncate(sb, inode, 0, true);
}

/*
 * Copy file bytes from *@pos into @to, up to the size read at the start;
 * *@pos moves on.  Returns the bytes copied, or the error when none was:
 * EFAULT for a bad buffer, EIO for bad data.  The caller holds the inode
 * lock shared (a read) or the writes are its own (the quota files).
 */
static ssize_t nova_read_pages(struct inode *inode, struct iov_iter *to,
			       loff_t *pos)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	loff_t size = i_size_read(inode);
	ssize_t done = 0;
	size_t count;

	if (IS_ENCRYPTED(inode))
		return nova_crypt_read(inode, to, pos);
	if (*pos >= size)
		return 0;
	count = min_t(u64, iov_iter_count(to), size - *pos);
	while (count) {
		pgoff_t pg = *pos >> NOVA_BLOCK_SHIFT;
		size_t off = *pos & (NOVA_BLOCK_SIZE - 1);
		struct nova_file_write_entry *e = xa_load(&sih->pages, pg);
		size_t n = min_t(size_t, count, NOVA_BLOCK_SIZE - off), got;

		if (e) {
			/* extend over following pages of the same entry */
			pgoff_t end = le64_to_cpu(e->pgoff) + le32_to_cpu(e->num_pages);
			u64 blk;

			while (n < count && pg + 1 < end &&
			       xa_load(&sih->pages, pg + 1) == e) {
				pg++;
				n = min_t(size_t, count, n + NOVA_BLOCK_SIZE);
			}
			/* the entry is read again from pmem: check the run */
			blk = nova_entry_block(sb, e, *pos >> NOVA_BLOCK_SHIFT);
			if (!blk || !nova_range_valid(NOVA_SB(sb), blk, off + n)) {
				done = done ? done : -EIO;
				break;
			}
			got = _copy_mc_to_iter(nova_get_block(sb, blk) + off, n, to);
		} else {
			got = iov_iter_zero(n, to);
		}
		done += got;
		*pos += got;
		count -= got;
		if (got < n) {
			/*
			 * A bad user buffer (EFAULT, as DAX read elsewhere),
			 * or a media error in the data (EIO): only then can
			 * the buffer still be faulted in for writing
			 */
			if (!done)
				done = e && !fault_in_iov_iter_writeable(to, n - got) ?
				       -EIO : -EFAULT;
			break;
		}
	}
	return done;
}

ssize_t nova_dax_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct super_block *sb = inode->i_sb;
	loff_t pos = iocb->ki_pos;
	ssize_t done;
	u64 t = nova_timer_start();

	if (nova_is_shutdown(sb))
		return -EIO;
	if (!iov_iter_count(to))
		return 0;
	/* RWF_NOWAIT, io_uring: nothing on pmem waits, only the lock may */
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock_shared(inode))
			return -EAGAIN;
	} else {
		inode_lock_shared(inode);
	}
	done = nova_read_pages(inode, to, &pos);
	iocb->ki_pos = pos;
	inode_unlock_shared(inode);
	file_accessed(iocb->ki_filp);
	nova_stat_inc(NOVA_SB(sb), read_calls);
	if (done > 0)
		nova_stat_add(NOVA_SB(sb), read_bytes, done);
	NOVA_TIMER_END(NOVA_SB(sb), T_READ, t);
	return done;
}

/*
 * Read @len bytes at @pos of @inode into kernel memory, without the
 * inode lock (the quota files, quota.c).  Returns the bytes read (short
 * at the end of the file) or an error.
 */
ssize_t nova_kernel_read(struct inode *inode, void *buf, size_t len,
			 loff_t pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter to;

	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	iov_iter_kvec(&to, READ, &kv, 1, len);
	return nova_read_pages(inode, &to, &pos);
}

/*
 * Fill bytes [from, to) of a new block at @dst for file page @pg: the old
 * contents where the page had a block and the bytes are below @size,
 * zeros elsewhere.  Non-temporal stores: durable after the next fence.
 */
static int nova_fill_partial(struct super_block *sb, struct inode *inode,
			     pgoff_t pg, void *dst, size_t from, size_t to,
			     loff_t size)
{
	loff_t pstart = (loff_t)pg << NOVA_BLOCK_SHIFT;
	size_t valid = size <= pstart ? 0 :
		       min_t(loff_t, size - pstart, NOVA_BLOCK_SIZE);
	static const char zeros[NOVA_BLOCK_SIZE];
	char *buf = NULL;
	u64 oblk;

	if (to <= from)
		return 0;
	oblk = nova_find_page(inode, pg);
	if (oblk && valid > from) {
		size_t end = min(valid, to);

		buf = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		if (nova_read_pmem(buf, nova_get_block(sb, oblk) + from, end - from)) {
			kfree(buf);
			return -EIO;
		}
		nova_memcpy_nt(dst + from, buf, end - from);
		kfree(buf);
		from = end;
	}
	if (to > from)
		nova_memcpy_nt(dst + from, zeros, to - from);
	return 0;
}

/*
 * Before the file grows from @old to @new: bytes past EOF are not file
 * data, yet the blocks of the file may hold something there - stores
 * through a mapping past EOF in the last page, an in-place write past
 * EOF into preallocated pages (fallocate KEEP_SIZE) whose size commit
 * failed (a full log) or was cut by a crash.  Zero, in place and
 * durably, whatever the blocks hold in [old, new), so that the commit of
 * the larger size (after the fence of nova_log_commit()) exposes zeros
 * only; a crash before it leaves them past EOF.  Only nonzero bytes are
 * written.  Caller holds the inode lock.
 */
void nova_zero_grow(struct inode *inode, loff_t old, loff_t new)
{
	struct super_block *sb = inode->i_sb;
	struct nova_file_write_entry *e;
	unsigned long index, n = 0;

	/* an encrypted file rewrites its tail instead (nova_crypt_grow()) */
	if (new <= old || IS_ENCRYPTED(inode))
		return;
	xa_for_each_range(&NOVA_I(inode)->header.pages, index, e,
			  old >> NOVA_BLOCK_SHIFT, (new - 1) >> NOVA_BLOCK_SHIFT) {
		loff_t ps = (loff_t)index << NOVA_BLOCK_SHIFT;
		size_t from = max(old, ps) - ps;
		size_t to = min_t(loff_t, new - ps, NOVA_BLOCK_SIZE);
		u64 blk = nova_entry_block(sb, e, index);
		char *p = nova_get_block(sb, blk);

		if (blk && memchr_inv(p + from, 0, to - from))
			nova_memset_persist(p + from, 0, to - from);
		if (!(++n % 512))
			cond_resched();
	}
}

/*
 * Reserve index slots for new pages so the post-commit update cannot
 * fail.  Returns how many of the pages are holes now (the blocks the
 * quota is charged for), or -ENOMEM.
 */
long nova_reserve_pages(struct inode *inode, pgoff_t pg, unsigned long n)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long i, holes = 0;
	int ret;

	for (i = 0; i < n; i++) {
		if (xa_load(&sih->pages, pg + i))
			continue;
		ret = xa_reserve(&sih->pages, pg + i, GFP_KERNEL);
		if (ret) {
			while (i--)
				xa_release(&sih->pages, pg + i);
			return ret;
		}
		holes++;
		/* (a fallocate may reserve a whole device's pages) */
		if (!(holes & 1023))
			cond_resched();
	}
	return holes;
}

/* How many of pages [pg, pg + n) are holes (reserved slots count) */
static unsigned long nova_count_holes(struct inode *inode, pgoff_t pg,
				      unsigned long n)
{
	unsigned long i, holes = 0;

	for (i = 0; i < n; i++)
		holes += !xa_load(&NOVA_I(inode)->header.pages, pg + i);
	return holes;
}

/* Give back reservations that were not used (present entries stay) */
void nova_release_pages(struct inode *inode, pgoff_t pg, unsigned long n)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long i;

	for (i = 0; i < n; i++)
		xa_release(&sih->pages, pg + i);
}

/*
 * Post-commit: point the index at the write entry just committed at
 * @off (which frees the blocks it replaced), with @charged blocks
 * charged for its new pages ahead (the rest is released).  The entry
 * was built here, so it is not read back through the log walk's checks.
 */
void nova_apply_entry(struct inode *inode, u64 off, unsigned long charged)
{
	struct super_block *sb = inode->i_sb;
	struct nova_file_write_entry *e = nova_get_block(sb, off);
	long ret;

	ret = nova_index_set(sb, inode, le64_to_cpu(e->pgoff),
			     le32_to_cpu(e->num_pages), e, NOVA_INDEX_FREE,
			     &charged);
	if (ret < 0)
		nova_error(sb, "inode %llu: cannot index committed writes (%ld)",
			   nova_ino(inode), ret);
	nova_quota_release(inode, charged);
}

/*
 * Append a write entry mapping pages [pg, pg + n) to the blocks from
 * offset @block (0: holes), with @flags (NOVA_WRITE_*) and the file size
 * after it; *@entry_off (if not NULL) is where it went.  Committed by
 * the caller.
 */
int nova_append_write_entry(struct inode *inode, pgoff_t pg, unsigned long n,
			    u64 block, u8 flags, loff_t new_size, u64 *tail,
			    u64 *entry_off)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_file_write_entry e = {
		.entry_type = NOVA_FILE_WRITE,
		.flags = flags,
		.num_pages = cpu_to_le32(n),
		.block = cpu_to_le64(block),
		.pgoff = cpu_to_le64(pg),
		.mtime = cpu_to_le64(nova_ts_to_ns(nova_get_mtime(inode))),
		.size = cpu_to_le64(new_size),
		.trans_id = cpu_to_le64(sih->trans_id++),
	};

	/* (its checksum and mutable fields are zero: one pass) */
	nova_new_entry_csum(&e, sizeof(e));
	return nova_log_append(inode->i_sb, inode, &e, sizeof(e), tail,
			       entry_off);
}

/* Should writes to existing pages of @inode go in place? */
static bool nova_write_inplace_mode(struct inode *inode)
{
	/*
	 * mapped files: in place keeps every mapping coherent with write();
	 * encrypted files are never mapped, and each block is written whole
	 */
	if (IS_ENCRYPTED(inode))
		return false;
	/* chattr +C: this file's writes go in place (as btrfs' NOCOW) */
	return READ_ONCE(inplace_data_updates) ||
	       (NOVA_I(inode)->header.flags & FS_NOCOW_FL) ||
	       nova_test_opt(NOVA_SB(inode->i_sb), INPLACE) ||
	       mapping_mapped(inode->i_mapping);
}

/*
 * Wait for a pinned page without the invalidate lock.  A clone holds two
 * (filemap_invalidate_lock_two()): both are dropped and taken again in
 * their order, and the clone sees the wait in layout_waits.
 */
static void nova_wait_dax_page(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct inode *other = sih->layout_other;

	sih->layout_waits++;
	if (other) {
		filemap_invalidate_unlock_two(inode->i_mapping, other->i_mapping);
		schedule();
		filemap_invalidate_lock_two(inode->i_mapping, other->i_mapping);
		return;
	}
	filemap_invalidate_unlock(inode->i_mapping);
	schedule();
	filemap_invalidate_lock(inode->i_mapping);
}

/*
 * Before 6.15 the kernel finds no pinned page in a file that nobody maps
 * (nova_dax_break_layout()), but a page pinned through a mapping that is
 * gone is still pinned: check the pages of the blocks of [start, end]
 * here.  Returns 0 when none is pinned, 1 after a wait (which dropped the
 * invalidate lock: the caller starts over), or -ERESTARTSYS.
 */
static int nova_wait_pinned_blocks(struct inode *inode, loff_t start,
				   loff_t end)
{
	struct super_block *sb = inode->i_sb;
	unsigned long base = NOVA_SB(sb)->base_pfn, index, n = 0;
	struct nova_file_write_entry *e;
	int ret;

	if (NOVA_DAX_BUSY_SEES_UNMAPPED || !base)
		return 0;
	xa_for_each_range(&NOVA_I(inode)->header.pages, index, e,
			  start >> NOVA_BLOCK_SHIFT, end >> NOVA_BLOCK_SHIFT) {
		u64 blk = nova_entry_block(sb, e, index);

		if (blk) {
			ret = nova_dax_wait_page_idle(inode,
					pfn_to_page(base + (blk >> PAGE_SHIFT)),
					nova_wait_dax_page);
			if (ret)
				return ret;
		}
		if (!(++n % 1024))
			cond_resched();
	}
	return 0;
}

/*
 * Before blocks of [start, end] stop belonging to @inode: wait until no
 * DAX page of the range is pinned (get_user_pages), then drop the user
 * mappings and the mapping's DAX entries, so that a freed block is never
 * still associated with this file.  Only a fault adds a pin, and faults
 * wait for the invalidate lock, which the caller holds (the waits drop
 * it).  Returns 0, or -ERESTARTSYS when a signal ended a wait.
 */
int __nova_break_layouts(struct inode *inode, loff_t start, loff_t end,
			 bool flush)
{
	/*
	 * Whole pages: the page cache keeps the DAX entry of a page the
	 * range covers in part, which would then track a block the page
	 * no longer has.  The stores made through the mappings of such an
	 * edge page are written back before its entry goes.
	 */
	loff_t s = round_down(start, PAGE_SIZE);
	loff_t e = end == LLONG_MAX ? end : round_up(end + 1, PAGE_SIZE) - 1;
	int ret;

	if (!inode->i_mapping->nrpages)
		return 0;
	do {
		ret = nova_dax_break_layout(inode, s, e, nova_wait_dax_page);
		if (!ret)
			ret = nova_wait_pinned_blocks(inode, s, e);
	} while (ret == 1);
	/* unmapped, and no fault can come: nothing is dirtied again */
	if (!ret && flush)
		ret = filemap_write_and_wait_range(inode->i_mapping, s, e);
	if (!ret && !flush && s != start)
		ret = filemap_write_and_wait_range(inode->i_mapping, s,
						   s + PAGE_SIZE - 1);
	if (!ret && !flush && e != end)
		ret = filemap_write_and_wait_range(inode->i_mapping,
						   e + 1 - PAGE_SIZE, e);
	if (!ret)
		truncate_pagecache_range(inode, s, e);
	return ret;
}

/*
 * The same when the blocks stay in the file at other offsets (shift.c):
 * stores made through the mappings are written back (their cache lines
 * flushed) before the DAX entries that track them are dropped.
 */
int nova_break_layouts_flush(struct inode *inode, loff_t start, loff_t end)
{
	return __nova_break_layouts(inode, start, end, true);
}

/* A run of new blocks filled by a copy-on-write write */
struct nova_run {
	pgoff_t pg;
	unsigned long n;
	unsigned long blk;
	loff_t start;		/* file offset of the first data byte */
	loff_t end;		/* file offset just past the data */
	/*
	 * Past the bytes that the write stored in place after the run (0:
	 * none): its commit's size covers them.  Never moves end, which
	 * says where the run's own partial last page starts being old bytes.
	 */
	loff_t inplace_end;
	bool short_copy;	/* the user buffer faulted */
	/* blocks whose bytes completed the partial first and last page */
	u64 head_from, tail_from;
	u64 entry;		/* its write entry, once appended */
	unsigned long charged;	/* quota charged for its holes */
	bool unwritten;		/* preallocated zeroed blocks (fallocate) */
};

/* A run that will not be committed: its blocks, slots and charge go */
static void nova_drop_run(struct inode *inode, struct nova_run *r)
{
	if (!r->blk)
		return;		/* a hole run reserves nothing */
	nova_free_blocks(inode->i_sb, r->blk, r->n);
	nova_release_pages(inode, r->pg, r->n);
	nova_quota_release(inode, r->charged);
}

/* What a write saw of the file's mappings when it started */
struct nova_write_faults {
	unsigned int seq;	/* the inode's write fault count */
	bool mapped;		/* mapping_mapped() */
};

/* Must the partial page @pg, completed from block @from, be copied again? */
static bool nova_edge_stale(struct inode *inode, pgoff_t pg, u64 from,
			    bool stored)
{
	u64 now = nova_find_page(inode, pg);

	return now != from || (stored && now);
}

/*
 * A write's phase 1 completed the partial first and last page of each
 * run from the pages' blocks without the invalidate lock, so stores
 * through a shared mapping may have reached those blocks after they were
 * read: a write fault may have given a hole page a block
 * (nova_fault_alloc()) and stored to it, a page of a file that was
 * mapped may have been writable already, and a file that was not mapped
 * may have been mapped and written to since (its write fault count
 * changed).  The commit replaces and frees those blocks: copy the bytes
 * outside the write's range again, now that no mapping of the range is
 * left and no fault can come (the invalidate lock).  Returns the number
 * of runs that can be committed (all, unless a copy failed), or the
 * error when none.
 */
static int nova_refill_edges(struct inode *inode, struct nova_run *runs,
			     int nr, const struct nova_write_faults *wf)
{
	struct super_block *sb = inode->i_sb;
	bool stored = wf->mapped ||
		      atomic_read(&NOVA_I(inode)->header.write_faults) != wf->seq;
	int i, ret;

	/* (encrypted files cannot be mapped) */
	if (IS_ENCRYPTED(inode))
		return nr;
	for (i = 0; i < nr; i++) {
		struct nova_run *r = &runs[i];
		pgoff_t last = r->pg + r->n - 1;
		size_t hoff = r->start & (NOVA_BLOCK_SIZE - 1);
		size_t toff = r->end & (NOVA_BLOCK_SIZE - 1);
		char *addr;

		if (!r->blk)
			continue;
		addr = nova_get_block(sb, nova_block_off(r->blk));
		ret = 0;
		if (hoff && nova_edge_stale(inode, r->pg, r->head_from, stored))
			ret = nova_fill_partial(sb, inode, r->pg, addr, 0, hoff,
						inode->i_size);
		if (!ret && toff &&
		    nova_edge_stale(inode, last, r->tail_from, stored))
			ret = nova_fill_partial(sb, inode, last,
						addr + ((last - r->pg) << NOVA_BLOCK_SHIFT),
						toff, NOVA_BLOCK_SIZE, inode->i_size);
		if (ret)
			return i ? i : ret;
	}
	return nr;
}

/*
 * Phase 2 of a write or fallocate: wait until no page of the range is
 * pinned and zap its user mappings, append the entries of @runs, commit
 * them with one tail store, then switch the index (which frees replaced
 * blocks).  Runs whose entry does not fit in the log (ENOSPC) are dropped
 * with their blocks.  A write passes @wf (see nova_refill_edges()),
 * fallocate NULL.  Returns the number of runs committed, or an error
 * when none was: -ERESTARTSYS when a signal ended the wait (the blocks
 * of @runs freed).  Caller holds the inode and invalidate locks.
 */
static int nova_commit_runs(struct inode *inode, struct nova_run *runs,
			    int nr, loff_t keep_size, bool extend,
			    const struct nova_write_faults *wf)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	u64 tail;
	loff_t size = keep_size;
	int i, done = 0, stop, ok = nr;
	u64 t = nova_timer_start();

	/* replaced blocks must leave the mapping before they are freed */
	stop = nova_break_layouts(inode, (loff_t)runs[0].pg << NOVA_BLOCK_SHIFT,
				  ((loff_t)(runs[nr - 1].pg + runs[nr - 1].n) <<
				   NOVA_BLOCK_SHIFT) - 1);
	if (!stop && wf) {
		ok = nova_refill_edges(inode, runs, nr, wf);
		if (ok < 0)
			stop = ok;
	}
	mutex_lock(&sih->log_mutex);
	NOVA_TIMER_END(NOVA_SB(sb), T_COW_LOCK, t);
	t = nova_timer_start();
	/* a punched hole frees space: on a full device it may use the reserve */
	sih->use_reserve = false;
	for (i = 0; i < nr; i++)
		if (!runs[i].blk)
			sih->use_reserve = true;
	tail = sih->log_tail;
	/* (interrupted while waiting for pinned pages: nothing is committed) */
	for (i = 0; i < ok && !stop; i++) {
		/* the size only grows with a run whose entry is in the log */
		loff_t run_size = extend ? max3(size, runs[i].end,
						runs[i].inplace_end) : size;

		if (nova_append_write_entry(inode, runs[i].pg, runs[i].n,
					    runs[i].blk ?
					    nova_block_off(runs[i].blk) : 0,
					    runs[i].unwritten ?
					    NOVA_WRITE_UNWRITTEN : 0,
					    run_size, &tail, &runs[i].entry))
			break;
		size = run_size;
		done++;
	}
	for (i = done; i < nr; i++)
		nova_drop_run(inode, &runs[i]);
	if (done) {
		NOVA_CRASH_POINT(CP_WRITE_ENTRIES);
		nova_log_commit(sb, inode, tail);
		NOVA_TIMER_END(NOVA_SB(sb), T_COW_LOG, t);
		t = nova_timer_start();
		inode->i_size = size;
		for (i = 0; i < done; i++)
			nova_apply_entry(inode, runs[i].entry, runs[i].charged);
		nova_gc_if_pending(inode);
		NOVA_TIMER_END(NOVA_SB(sb), T_COW_INDEX, t);
	}
	sih->use_reserve = false;
	mutex_unlock(&sih->log_mutex);
	return stop && !done ? stop : done;
}

/*
 * Append @r to the array *@runs of *@nr runs with room for *@cap, growing
 * it on the heap when full.  @inl: the caller's own first array, if
 * *@runs may still be it (it is not freed then).
 */
static int nova_push_run(struct nova_run **runs, int *nr, int *cap,
			 const struct nova_run *inl, struct nova_run r)
{
	if (*nr == *cap) {
		int ncap = *cap ? *cap * 2 : 8;
		struct nova_run *n = kmalloc_array(ncap, sizeof(*n), GFP_KERNEL);

		if (!n)
			return -ENOMEM;
		if (*nr)
			memcpy(n, *runs, *nr * sizeof(*n));
		if (*runs != inl)
			kfree(*runs);
		*runs = n;
		*cap = ncap;
	}
	(*runs)[(*nr)++] = r;
	return 0;
}

/*
 * Phase 1 of a copy-on-write chunk: allocate blocks for the pages of
 * [p, p + len) (as many as one contiguous run gives), complete partial
 * head and tail pages from the old data and copy the user data.
 */
static ssize_t nova_cow_chunk(struct inode *inode, struct iov_iter *from,
			      loff_t p, size_t len, pgoff_t limit,
			      struct nova_run *run)
{
	struct super_block *sb = inode->i_sb;
	pgoff_t pg = p >> NOVA_BLOCK_SHIFT;
	size_t off = p & (NOVA_BLOCK_SIZE - 1), bytes, got, tail_off;
	unsigned long want = ((p + len - 1) >> NOVA_BLOCK_SHIFT) - pg + 1;
	unsigned long n, used, blk;
	long holes;
	void *addr;
	int ret;
	u64 t;

	want = min_t(unsigned long, want, limit - pg);
	*run = (struct nova_run){};
	t = nova_timer_start();
	ret = -ENOSPC;
	/* whole 2 MiB file ranges get 2 MiB-aligned blocks: PMD mappings */
	if (IS_ALIGNED(pg, NOVA_HUGE_BLOCKS) && want >= NOVA_HUGE_BLOCKS)
		ret = nova_new_aligned_blocks(sb, &blk,
					      round_down(want, NOVA_HUGE_BLOCKS));
	if (ret < 0)
		ret = nova_new_data_blocks(sb, &blk, want,
					   nova_may_take_reserve(inode, p + len));
	if (ret < 0)
		return ret;
	n = ret;
	holes = nova_reserve_pages(inode, pg, n);
	if (holes < 0) {
		ret = holes;
		goto fail;
	}
	/* over a quota limit: as much as fits (the write goes on after it) */
	while ((ret = nova_quota_charge(inode, holes)) == -EDQUOT && n > 1) {
		unsigned long keep = n / 2;

		nova_free_blocks(sb, blk + keep, n - keep);
		holes -= nova_count_holes(inode, pg + keep, n - keep);
		nova_release_pages(inode, pg + keep, n - keep);
		n = keep;
	}
	if (ret) {
		holes = 0;
		goto fail_release;
	}
	NOVA_TIMER_END(NOVA_SB(sb), T_COW_ALLOC, t);
	t = nova_timer_start();
	addr = nova_get_block(sb, nova_block_off(blk));
	bytes = min_t(size_t, len, (n << NOVA_BLOCK_SHIFT) - off);
	/* read before the bytes are: a fault may give the page a block */
	run->head_from = off ? nova_find_page(inode, pg) : 0;
	if (IS_ENCRYPTED(inode)) {
		/* whole pages, each built and encrypted in DRAM (crypto.c) */
		ssize_t r = nova_crypt_fill(inode, pg, addr, off, bytes, from);

		if (r < 0) {
			ret = r;
			goto fail_release;
		}
		got = r;
	} else {
		ret = off ? nova_fill_partial(sb, inode, pg, addr, 0, off,
					      inode->i_size) : 0;
		if (ret)
			goto fail_release;
		got = nova_copy_from_iter_nt(addr + off, bytes, from);
	}
	if (!got) {
		ret = -EFAULT;
		goto fail_release;
	}
	used = DIV_ROUND_UP(off + got, NOVA_BLOCK_SIZE);
	tail_off = (off + got) & (NOVA_BLOCK_SIZE - 1);
	if (tail_off) {
		run->tail_from = nova_find_page(inode, pg + used - 1);
		ret = IS_ENCRYPTED(inode) ? 0 :
		      nova_fill_partial(sb, inode, pg + used - 1,
					addr + ((used - 1) << NOVA_BLOCK_SHIFT),
					tail_off, NOVA_BLOCK_SIZE, inode->i_size);
		if (ret)
			goto fail_release;
	}
	if (used < n) {
		unsigned long spare = nova_count_holes(inode, pg + used, n - used);

		nova_quota_release(inode, spare);
		holes -= spare;
		nova_free_blocks(sb, blk + used, n - used);
		nova_release_pages(inode, pg + used, n - used);
	}
	run->pg = pg;
	run->n = used;
	run->blk = blk;
	run->charged = holes;
	run->start = p;
	run->end = p + got;
	run->short_copy = got < bytes;
	nova_stat_add(NOVA_SB(sb), cow_pages, used);
	NOVA_TIMER_END(NOVA_SB(sb), T_COW_COPY, t);
	return got;
fail_release:
	nova_release_pages(inode, pg, n);
	nova_quota_release(inode, holes);
fail:
	nova_free_blocks(sb, blk, n);
	return ret;
}

/*
 * A write that committed no run wrote @written bytes at @pos in place: a
 * new size is logged now (its entry may use @reserve: NOVA_RESERVE_*),
 * times later.  When the log is full, only the bytes below the old size
 * count (*@ret is set to the error).  Returns the bytes written.
 */
static size_t nova_inplace_size(struct inode *inode, loff_t pos,
				size_t written, u8 reserve, ssize_t *ret)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	loff_t old_size = inode->i_size, end = pos + written;
	bool times_only = end <= old_size;
	int err;

	/* under the log mutex: nova_write_attr() clears attr_dirty there */
	mutex_lock(&sih->log_mutex);
	if (!times_only) {
		inode->i_size = end;
		sih->use_reserve = reserve;
		err = nova_log_attr(inode, false);
		sih->use_reserve = NOVA_RESERVE_NONE;
		if (err) {
			inode->i_size = old_size;
			written = old_size > pos ?
				  min_t(loff_t, written, old_size - pos) : 0;
			times_only = written;
			*ret = err;
		}
	}
	if (times_only)
		WRITE_ONCE(sih->attr_dirty, true);
	mutex_unlock(&sih->log_mutex);
	if (times_only)
		mark_inode_dirty_sync(inode);
	return written;
}

/*
 * A copy-on-write write found no free block for page @pg: if the page is
 * preallocated (fallocate), the write must not fail for space, so the
 * preallocated run from @pg (up to @limit) is logged written (its blocks
 * hold zeros) and then written in place, as in-place mode does.  Such a
 * write is not atomic: a crash may leave part of it.  Returns the end of
 * the pages converted (@pg: none, not preallocated or the log is full).
 */
static pgoff_t nova_prealloc_inplace(struct inode *inode, pgoff_t pg,
				     pgoff_t limit)
{
	pgoff_t end = pg;

	/* (an encrypted file's blocks are written whole, never in place) */
	if (IS_ENCRYPTED(inode))
		return pg;
	while (end < limit && nova_page_unwritten(inode, end) &&
	       !nova_page_shared(inode, end))
		end++;
	if (end == pg)
		return pg;
	nova_convert_unwritten(inode, pg, end - pg);
	/* those that could not be logged written end the run */
	for (limit = pg; limit < end && nova_inplace_block(inode, limit); limit++)
		;
	if (limit > pg)
		nova_stat_add(NOVA_SB(inode->i_sb), prealloc_inplace_pages,
			      limit - pg);
	return limit;
}

/*
 * The write path; the caller holds the inode lock and has done the
 * generic checks.  Returns bytes written or an error.
 */
static ssize_t nova_do_write(struct inode *inode, struct iov_iter *from,
			     loff_t pos)
{
	struct super_block *sb = inode->i_sb;
	size_t count = iov_iter_count(from), written = 0;
	struct nova_write_faults wf;
	bool inplace;
	/* preallocated pages before it are written in place (no space) */
	pgoff_t prealloc_end = 0;
	bool prealloc = false;
	u8 reserve;
	/* most writes are one run: no allocation for it */
	struct nova_run inl[2], *runs = inl, run;
	int nr = 0, cap = ARRAY_SIZE(inl), done = 0;
	ssize_t ret = 0;
	struct timespec64 old_mtime = nova_get_mtime(inode);
	struct timespec64 old_ctime = nova_get_ctime(inode);

	nova_share_drops(inode);
	/* growing zeroes the bytes past EOF in place: not in a shared block */
	if (pos + count > inode->i_size) {
		ret = nova_unshare_edges(inode, 0, 0, true);
		if (ret)
			return ret;
	}
	wf.seq = atomic_read(&NOVA_I(inode)->header.write_faults);
	/*
	 * The write fault count before the mapping is looked at: a fault
	 * that makes a page of a file that is not mapped now writable
	 * counts after this (pairs with nova_dax_huge_fault()'s barrier)
	 */
	smp_rmb();
	wf.mapped = mapping_mapped(inode->i_mapping);
	inplace = nova_write_inplace_mode(inode);
	/*
	 * In place, preallocated pages are logged written first, then
	 * written in place: they need no new block.  Those this fails for
	 * (a full log) are copied on write below.
	 */
	if (inplace && count) {
		pgoff_t first = pos >> NOVA_BLOCK_SHIFT;
		unsigned long n = ((pos + count - 1) >> NOVA_BLOCK_SHIFT) -
				  first + 1;

		prealloc = nova_any_unwritten(inode, first, n);
		if (prealloc)
			nova_convert_unwritten(inode, first, n);
	}
	/* a gap past EOF reads as zeros, whatever its blocks held */
	nova_zero_grow(inode, inode->i_size, pos);
	/*
	 * (encrypted: the write itself zeroes past EOF in the page it
	 * starts in; an older last page is rewritten first)
	 */
	if (IS_ENCRYPTED(inode) && pos > inode->i_size &&
	    (pos >> NOVA_BLOCK_SHIFT) != (inode->i_size >> NOVA_BLOCK_SHIFT)) {
		filemap_invalidate_lock(inode->i_mapping);
		ret = nova_crypt_grow(inode, pos);
		filemap_invalidate_unlock(inode->i_mapping);
		if (ret)
			return ret;
	}
	nova_touch_mctime(inode);
	while (written < count) {
		loff_t p = pos + written;
		pgoff_t pg = p >> NOVA_BLOCK_SHIFT, limit;
		u64 blk = inplace || pg < prealloc_end ?
			  nova_inplace_block(inode, pg) : 0;
		size_t got;

		if (blk) {
			size_t off = p & (NOVA_BLOCK_SIZE - 1);
			size_t n = min(count - written, NOVA_BLOCK_SIZE - off);

			got = nova_copy_from_iter_nt(nova_get_block(sb, blk) + off,
						     n, from);
			written += got;
			/* the size the run before commits covers these bytes */
			if (nr)
				runs[nr - 1].inplace_end = p + got;
			nova_stat_add(NOVA_SB(sb), inplace_bytes, got);
			if (got < n) {
				ret = -EFAULT;
				break;
			}
			continue;
		}
		/*
		 * copy-on-write, in place mode: up to the next page that is
		 * mapped and written (preallocated pages that could not be
		 * logged written are copied: the new entry marks them so)
		 */
		limit = ((p + (count - written) - 1) >> NOVA_BLOCK_SHIFT) + 1;
		if (inplace) {
			pgoff_t q;

			for (q = pg + 1; q < limit && !nova_inplace_block(inode, q); q++)
				;
			limit = q;
		}
		ret = nova_cow_chunk(inode, from, p, count - written, limit, &run);
		/*
		 * (only before any run: in-place bytes after a run that then
		 * fails to commit would change a file whose write fails; the
		 * write ends at the run, the next one starts there)
		 */
		if (ret == -ENOSPC && !nr && pg >= prealloc_end) {
			pgoff_t end = nova_prealloc_inplace(inode, pg, limit);

			if (end > pg) {
				prealloc_end = end;
				prealloc = true;
				continue;
			}
		}
		if (ret <= 0)
			break;
		got = ret;
		ret = nova_push_run(&runs, &nr, &cap, inl, run);
		if (ret) {
			nova_drop_run(inode, &run);
			break;
		}
		written += got;
		if (run.short_copy)
			break;
	}

	/*
	 * The size entry of a write into preallocated space may use the
	 * conversions' part of the deletion reserve too: it must not fail
	 * for space on a full device either
	 */
	reserve = prealloc ? NOVA_RESERVE_HALF : NOVA_RESERVE_NONE;
	if (nr) {
		NOVA_CRASH_POINT(CP_WRITE_DATA);
		filemap_invalidate_lock(inode->i_mapping);
		done = nova_commit_runs(inode, runs, nr, inode->i_size, true,
					&wf);
		filemap_invalidate_unlock(inode->i_mapping);
		if (done < nr) {
			/*
			 * The log is full, or (done < 0) a signal came while
			 * waiting for pinned pages: the write ends before the
			 * first run not committed.
			 */
			written = runs[max(done, 0)].start - pos;
			ret = done < 0 ? done : -ENOSPC;
			/* nothing committed: in-place bytes before it may remain */
			if (done <= 0 && written)
				written = nova_inplace_size(inode, pos, written,
							    reserve, &ret);
		}
	} else if (written) {
		written = nova_inplace_size(inode, pos, written, reserve, &ret);
	}
	if (runs != inl)
		kfree(runs);
	if (!written) {
		/* nothing written: the times stay */
		nova_set_mtime(inode, old_mtime);
		nova_set_ctime(inode, old_ctime);
	}
	i_size_write(inode, inode->i_size);
	nova_fence();
	/* a commit of runs ran any GC it asked for; a size entry may not have */
	if (done <= 0)
		nova_gc_maybe(inode);
	return written ? written : ret;
}

/*
 * After a synchronous write (O_SYNC, O_DSYNC, RWF_SYNC, RWF_DSYNC, a
 * sync inode): must it run fsync's work on its range, as ext4 does with
 * generic_write_sync()?  The data is durable already, and so is every
 * size change and every copy-on-write commit (with its times), so only
 * if something is left for nova_fsync(): the times kept in DRAM
 * (sih->attr_dirty: an in-place overwrite that kept the size), which
 * file integrity (IOCB_SYNC) covers and data integrity does not, or
 * cache lines that stores through a mapping dirtied.
 */
static bool nova_write_sync_needed(struct kiocb *iocb, struct inode *inode)
{
	if (!iocb_is_dsync(iocb))
		return false;
	return ((iocb->ki_flags & IOCB_SYNC) &&
		READ_ONCE(NOVA_I(inode)->header.attr_dirty)) ||
	       mapping_tagged(inode->i_mapping, PAGECACHE_TAG_DIRTY);
}

ssize_t nova_dax_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	ssize_t ret;
	u64 t = nova_timer_start();

	ret = nova_emergency_state(inode->i_sb);
	if (ret)
		return ret;
	/*
	 * RWF_NOWAIT, io_uring: a write waits for no I/O (pmem is memory),
	 * only for the inode lock, and for clearing set-user-ID and
	 * set-group-ID (a logged attribute change), as ext4's
	 */
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock(inode))
			return -EAGAIN;
	} else {
		inode_lock(inode);
	}
	/* chattr +i after the open (as ext4) */
	ret = -EPERM;
	if (IS_IMMUTABLE(inode))
		goto out;
	ret = generic_write_checks(iocb, from);
	if (ret <= 0)
		goto out;
	ret = -EAGAIN;
	if ((iocb->ki_flags & IOCB_NOWAIT) && !IS_NOSEC(inode) &&
	    (inode->i_mode & (S_ISUID | S_ISGID)) && !capable(CAP_FSETID))
		goto out;
	ret = file_remove_privs(file);
	if (ret)
		goto out;
	ret = nova_do_write(inode, from, iocb->ki_pos);
	if (ret > 0)
		iocb->ki_pos += ret;
out:
	inode_unlock(inode);
	nova_stat_inc(sbi, write_calls);
	if (ret > 0) {
		nova_stat_add(sbi, write_bytes, ret);
		if (nova_write_sync_needed(iocb, inode))
			ret = generic_write_sync(iocb, ret);
	}
	NOVA_TIMER_END(sbi, T_WRITE, t);
	return ret;
}

/*
 * Write @len bytes of kernel memory at @pos of @inode through the write
 * path (the quota files, quota.c).  Caller holds the inode lock.
 * Returns the bytes written or an error.
 */
ssize_t nova_kernel_write(struct inode *inode, const void *buf, size_t len,
			  loff_t pos)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter from;
	int ret = nova_emergency_state(inode->i_sb);

	if (ret)
		return ret;
	iov_iter_kvec(&from, WRITE, &kv, 1, len);
	return nova_do_write(inode, &from, pos);
}

/*
 * Zero [start, end) of one page in place, if the page has a block (even
 * bytes that read as zeros: a store through a mapping may not be durable)
 */
static void nova_zero_in_page(struct inode *inode, loff_t start, loff_t end)
{
	u64 blk = nova_find_page(inode, start >> NOVA_BLOCK_SHIFT);

	if (blk && end > start)
		nova_memset_persist(nova_get_block(inode->i_sb, blk) +
				    (start & (NOVA_BLOCK_SIZE - 1)), 0, end - start);
}

/*
 * After a replay: the bytes past EOF in the last page must be zero.  A
 * crash after a shrinking truncate's commit and before its zeroing
 * leaves old bytes there, which a later extension would expose.  Only a
 * nonzero tail is written, and never on a read-only mount (nor after an
 * error with errors=remount-ro).
 */
void nova_zero_past_eof(struct inode *inode)
{
	loff_t size = inode->i_size;
	size_t off = size & (NOVA_BLOCK_SIZE - 1);
	u64 blk;
	char *p;

	if (!off || sb_rdonly(inode->i_sb) || nova_emergency_state(inode->i_sb))
		return;
	blk = nova_find_page(inode, size >> NOVA_BLOCK_SHIFT);
	/* a shared block: its next write or fault copies it, zeros past EOF */
	if (!blk || nova_page_shared(inode, size >> NOVA_BLOCK_SHIFT))
		return;
	p = nova_get_block(inode->i_sb, blk);
	if (memchr_inv(p + off, 0, NOVA_BLOCK_SIZE - off))
		nova_memset_persist(p + off, 0, NOVA_BLOCK_SIZE - off);
}

/*
 * A new block for file page @pg (which has one): its old bytes, with
 * [from, to) zeros (an encrypted page: its plaintext so, encrypted
 * again), durable after the next fence; @reserve: it may come from the
 * deletion reserve (not counted in cow_pages: the callers do).  Returns 0 with the block in *@blk, or an error
 * (-ENOSPC: no free block).
 */
static int nova_cow_zero_block(struct inode *inode, pgoff_t pg, size_t from,
			       size_t to, bool reserve, unsigned long *blk)
{
	struct super_block *sb = inode->i_sb;
	void *addr;
	int ret;

	ret = nova_new_data_blocks(sb, blk, 1, reserve);
	if (ret < 0)
		return ret;
	addr = nova_get_block(sb, nova_block_off(*blk));
	if (IS_ENCRYPTED(inode)) {
		/* its plaintext, zeros past EOF too, encrypted again */
		ret = nova_crypt_zero_fill(inode, pg, addr, from, to,
					   inode->i_size);
	} else {
		/* size 0: zeros only; LLONG_MAX: every old byte */
		ret = nova_fill_partial(sb, inode, pg, addr, 0, from, LLONG_MAX);
		if (!ret)
			ret = nova_fill_partial(sb, inode, pg, addr, from, to, 0);
		if (!ret)
			ret = nova_fill_partial(sb, inode, pg, addr, to,
						NOVA_BLOCK_SIZE, LLONG_MAX);
	}
	if (ret)
		nova_free_blocks(sb, *blk, 1);
	return ret;
}

/*
 * Truncate, before the new size is committed: growing zeroes what the
 * blocks hold between the old size and the new one (the old last page's
 * tail, preallocated pages), so no stale bytes ever become part of the
 * file (a crash before the commit leaves them past EOF).
 *
 * Shrinking within a page that has a block: the bytes past the new EOF
 * in that page must read as zeros (through a mapping), also after a
 * crash right after the commit on a device mounted read-only then,
 * which cannot zero them.  So the page is copied to a new block with
 * zeros from the new EOF on, and the commit maps it (its entry is
 * committed with the size: nova_log_setattr()).  Returns that block
 * (0: none needed, or no free block: nova_truncate_blocks() zeroes the
 * old one in place after the commit).  The block may come from the
 * deletion reserve: the page's old block is freed in the same step.
 * Caller holds the inode, invalidate and log locks.
 */
unsigned long nova_truncate_prepare(struct inode *inode, loff_t size)
{
	size_t off = size & (NOVA_BLOCK_SIZE - 1);
	pgoff_t pg = size >> NOVA_BLOCK_SHIFT;
	unsigned long blk;

	if (size >= inode->i_size) {
		nova_zero_grow(inode, inode->i_size, size);
		return 0;
	}
	/*
	 * (an encrypted file rewrites its tail when it grows: nova_crypt_grow();
	 * a preallocated page holds zeros)
	 */
	if (!off || IS_ENCRYPTED(inode) || !nova_find_page(inode, pg) ||
	    nova_page_unwritten(inode, pg))
		return 0;
	if (nova_cow_zero_block(inode, pg, off, NOVA_BLOCK_SIZE, true, &blk))
		return 0;
	nova_stat_inc(NOVA_SB(inode->i_sb), cow_pages);
	return blk;
}

/*
 * A shrinking truncate, before anything changes: it frees the blocks of
 * the whole pages past @size, so wait until none of them is pinned
 * (get_user_pages: O_DIRECT in flight, vmsplice), and unmap them.  Any
 * signal ends the wait: -ERESTARTSYS, and the truncate must fail.  Caller
 * holds the inode and invalidate locks (the wait drops the latter), not
 * the log mutex, and keeps the invalidate lock until the blocks are freed
 * (nova_truncate_blocks), so that no fault maps or pins them again.
 */
int nova_truncate_break_layouts(struct inode *inode, loff_t size)
{
	if (size >= inode->i_size)
		return 0;
	/* (the page the new EOF falls in may get a new block) */
	return nova_break_layouts(inode, round_down(size, NOVA_BLOCK_SIZE),
				  LLONG_MAX);
}

/* Has @inode pages past @size (kept past EOF by fallocate KEEP_SIZE)? */
bool nova_pages_past(struct inode *inode, loff_t size)
{
	unsigned long index = DIV_ROUND_UP(size, NOVA_BLOCK_SIZE);

	return xa_find(&NOVA_I(inode)->header.pages, &index, ULONG_MAX,
		       XA_PRESENT);
}

/*
 * Truncate, after the new size is committed: drop the cached DAX entries
 * past it (nova_truncate_break_layouts() has waited for pins and unmapped
 * them), then free the blocks (also a truncate to the same size: those
 * kept past EOF).  @tail_new: the commit gave the last page a new block
 * with zeros past EOF (nova_truncate_prepare()); else they are zeroed
 * in place now.
 */
void nova_truncate_blocks(struct inode *inode, loff_t old, loff_t size,
			  bool tail_new)
{
	if (size > old)
		return;
	truncate_pagecache(inode, size);
	nova_index_truncate(inode->i_sb, inode, size, true);
	/* (an encrypted file's tail: when it grows, nova_crypt_grow()) */
	if ((size & (NOVA_BLOCK_SIZE - 1)) && !tail_new && !IS_ENCRYPTED(inode))
		nova_zero_in_page(inode, size, round_up(size, NOVA_BLOCK_SIZE));
}

/*
 * A shrinking truncate, before its set-attribute entry: hole entries
 * (block 0) for the mapped pages at and past @size, appended at *@tail
 * and committed with that entry by the same tail store.  A replay takes
 * a set-attribute entry as a cut only if its size is below the size
 * before it, and that earlier size can be gone: the set-attribute entry
 * that extended the file over blocks kept past EOF (fallocate
 * KEEP_SIZE) is superseded (marked dead) by the cut itself.  The replay
 * then kept the cut pages, whose blocks the truncate frees.  Hole
 * entries remove pages whatever the size before them, and never die.
 * Caller holds the log mutex (and the inode and invalidate locks, so
 * no page is added meanwhile).
 */
int nova_append_cut_holes(struct inode *inode, loff_t size, u64 *tail)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long next = DIV_ROUND_UP(size, NOVA_BLOCK_SIZE);
	unsigned long start, last, index;
	void *e;
	int ret;

	for (;;) {
		start = next;
		if (!xa_find(&sih->pages, &start, ULONG_MAX, XA_PRESENT))
			return 0;
		/* one entry covers at most U32_MAX pages */
		last = start;
		xa_for_each_range(&sih->pages, index, e, start, start + U32_MAX - 1)
			last = index;
		ret = nova_append_write_entry(inode, start, last - start + 1, 0,
					      0, size, tail, NULL);
		if (ret)
			return ret;
		next = last + 1;
	}
}

/*
 * Copy-on-write zeroing of [from, to) in file page @pg (a partial edge
 * page of PUNCH_HOLE or ZERO_RANGE): a new block with the old bytes
 * outside the range and zeros inside, pushed as a run that the caller
 * commits with the rest of the operation, so a crash shows the page all
 * old or all new.  Nothing to do for a hole.  -ENOSPC: no free block,
 * the caller zeroes in place instead.
 */
static int nova_cow_zero_page(struct inode *inode, pgoff_t pg, size_t from,
			      size_t to, struct nova_run **runs, int *nr,
			      int *cap)
{
	struct nova_run r = { .pg = pg, .n = 1 };
	int ret;

	if (!nova_find_page(inode, pg))
		return 0;
	ret = nova_cow_zero_block(inode, pg, from, to, false, &r.blk);
	if (ret)
		return ret;
	r.start = (loff_t)pg << NOVA_BLOCK_SHIFT;
	r.end = r.start + NOVA_BLOCK_SIZE;
	ret = nova_push_run(runs, nr, cap, NULL, r);
	if (ret) {
		nova_free_blocks(inode->i_sb, r.blk, 1);
		return ret;
	}
	nova_stat_inc(NOVA_SB(inode->i_sb), cow_pages);
	return 0;
}

/*
 * Zero [start, end) of page @pg (a partial edge page): copy-on-write
 * unless writes to this file go in place, or no block is free.
 */
static int nova_zero_edge(struct inode *inode, pgoff_t pg, loff_t start,
			  loff_t end, struct nova_run **runs, int *nr, int *cap)
{
	loff_t base = (loff_t)pg << NOVA_BLOCK_SHIFT;
	int ret = -ENOSPC;

	/* a preallocated page is zeros already, and stays unwritten */
	if (nova_page_unwritten(inode, pg))
		return 0;
	if (!nova_write_inplace_mode(inode))
		ret = nova_cow_zero_page(inode, pg, start - base, end - base,
					 runs, nr, cap);
	/* zeroing ciphertext in place would garble the whole block */
	if (ret == -ENOSPC && !IS_ENCRYPTED(inode)) {
		nova_zero_in_page(inode, start, end);
		ret = 0;
	}
	return ret;
}

/*
 * An encrypted file about to grow to @size: the plaintext past EOF in its
 * last page may be stale (a shrinking truncate cannot zero ciphertext in
 * place), so that page is rewritten with zeros from EOF on, and
 * committed, before the size grows over them.  Only bytes past EOF
 * change: a crash after this commit leaves the file as it was.  Caller
 * holds the inode and invalidate locks.
 */
int nova_crypt_grow(struct inode *inode, loff_t size)
{
	loff_t old = inode->i_size;
	size_t off = old & (NOVA_BLOCK_SIZE - 1);
	pgoff_t pg = old >> NOVA_BLOCK_SHIFT;
	struct nova_run *runs = NULL;
	int nr = 0, cap = 0, ret;

	if (!IS_ENCRYPTED(inode) || size <= old || !off ||
	    nova_page_unwritten(inode, pg))
		return 0;
	ret = nova_cow_zero_page(inode, pg, off, NOVA_BLOCK_SIZE, &runs, &nr,
				 &cap);
	if (!ret && nr) {
		/* its entry carries the times the growing operation sets */
		nova_touch_mctime(inode);
		ret = nova_commit_runs(inode, runs, nr, old, false, NULL);
		ret = ret < 0 ? ret : ret ? 0 : -ENOSPC;
	}
	kfree(runs);
	return ret;
}

/*
 * Zero @n blocks from @blk, durable, 2 MiB at a time: a fallocate of
 * gigabytes must not hold the CPU (soft lockups, xfstests generic/103),
 * and ends at a fatal signal (-EINTR: the blocks are the caller's to free).
 */
static int nova_zero_blocks(struct super_block *sb, unsigned long blk,
			    unsigned long n)
{
	while (n) {
		unsigned long k = min(n, NOVA_HUGE_BLOCKS);

		nova_memset_persist(nova_get_block(sb, nova_block_off(blk)), 0,
				    k << NOVA_BLOCK_SHIFT);
		blk += k;
		n -= k;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * fallocate, one function per mode (as ext4): the default mode and
 * KEEP_SIZE allocate zeroed blocks for the holes in the range.
 * PUNCH_HOLE and ZERO_RANGE give partial edge pages new blocks with the
 * range zeroed (in place in in-place mode or on a full device);
 * PUNCH_HOLE logs a hole entry (block 0) for the whole pages, ZERO_RANGE
 * gives them new zeroed blocks (and fills holes), so the range stays
 * allocated.  Each mode builds the runs of one call, which
 * nova_falloc_commit() commits with one tail store, the edge pages'
 * entries with the rest: in copy-on-write mode a crash leaves the whole
 * operation or nothing.  COLLAPSE_RANGE and INSERT_RANGE: shift.c.
 */
struct nova_falloc {
	struct inode *inode;
	loff_t offset, end;		/* the range */
	loff_t new_size;
	struct nova_run *runs;		/* in page order */
	int nr, cap;
};

/* Does fallocate leave page @p as it is? */
static bool nova_falloc_keep(struct inode *inode, pgoff_t p, bool zero,
			     pgoff_t zfirst, pgoff_t zend)
{
	return nova_find_page(inode, p) &&
	       !(zero && p >= zfirst && p < zend && !nova_page_unwritten(inode, p));
}

/* Every 1024 pages of a long walk: let others run, end at a fatal signal */
static int nova_falloc_yield(unsigned long *count)
{
	if (++*count & 1023)
		return 0;
	cond_resched();
	return fatal_signal_pending(current) ? -EINTR : 0;
}

/*
 * How many pages of [first, last] fallocate must fill (those that
 * nova_falloc_keep() does not keep), counted from the mapped pages of
 * the range: a range of billions of pages costs no more than the blocks
 * the file has.  Returns the count or -EINTR.
 */
static long nova_falloc_need(struct inode *inode, pgoff_t first,
			     pgoff_t last, bool zero, pgoff_t zfirst,
			     pgoff_t zend)
{
	struct nova_file_write_entry *e;
	unsigned long index, kept = 0, count = 0;
	int ret;

	xa_for_each_range(&NOVA_I(inode)->header.pages, index, e, first, last) {
		if (nova_falloc_keep(inode, index, zero, zfirst, zend))
			kept++;
		ret = nova_falloc_yield(&count);
		if (ret)
			return ret;
	}
	return last - first + 1 - kept;
}

/*
 * Pages [pg, pg + n), all to be filled: zeroed blocks for as many of
 * them as one contiguous run gives (2 MiB-aligned where the range is),
 * pushed as one run.  Returns the number of pages, or an error (the
 * run's blocks, slots and charge given back).
 */
static long nova_falloc_run(struct nova_falloc *f, pgoff_t pg,
			    unsigned long n)
{
	struct inode *inode = f->inode;
	struct super_block *sb = inode->i_sb;
	struct nova_run r = { .pg = pg };
	long holes;
	int ret = -ENOSPC;

	if (IS_ALIGNED(pg, NOVA_HUGE_BLOCKS) && n >= NOVA_HUGE_BLOCKS)
		ret = nova_new_aligned_blocks(sb, &r.blk,
					      round_down(n, NOVA_HUGE_BLOCKS));
	if (ret < 0)
		ret = nova_new_data_blocks(sb, &r.blk, n, false);
	if (ret < 0)
		return ret;
	r.n = ret;
	holes = nova_reserve_pages(inode, pg, r.n);
	if (holes < 0) {
		nova_free_blocks(sb, r.blk, r.n);
		return holes;
	}
	ret = nova_quota_charge(inode, holes);
	if (!ret) {
		r.charged = holes;
		r.unwritten = true;
		nova_set_feature(sb, &NOVA_SB(sb)->s_super.s_feature_ro_compat,
				 NOVA_FEATURE_RO_COMPAT_UNWRITTEN);
		ret = nova_zero_blocks(sb, r.blk, r.n);
	}
	if (!ret)
		ret = nova_push_run(&f->runs, &f->nr, &f->cap, NULL, r);
	if (ret) {
		nova_drop_run(inode, &r);
		return ret;
	}
	return r.n;
}

/*
 * Zeroed blocks, logged unwritten, for every hole in the range; with
 * @zero (ZERO_RANGE) also in place of every whole page that is written
 * (partial pages at the edges: nova_falloc_edges()).  fallocate is all
 * or nothing (nova_falloc_commit() drops every run when one fails), so
 * when the pages to fill are more than the free blocks it fails with
 * ENOSPC before it allocates or zeroes anything (as XFS, which reserves
 * the space first), whatever the size of the range.  A fatal signal
 * ends it (-EINTR).
 */
static int nova_falloc_fill(struct nova_falloc *f, bool zero)
{
	struct inode *inode = f->inode;
	pgoff_t pg = f->offset >> NOVA_BLOCK_SHIFT;
	pgoff_t last = (f->end - 1) >> NOVA_BLOCK_SHIFT;
	pgoff_t zfirst = DIV_ROUND_UP(f->offset, NOVA_BLOCK_SIZE);
	pgoff_t zend = f->end >> NOVA_BLOCK_SHIFT;
	unsigned long count = 0;
	long need, ret;

	need = nova_falloc_need(inode, pg, last, zero, zfirst, zend);
	if (need < 0)
		return need;
	if (need && nova_in_reserve(inode->i_sb, need))
		return -ENOSPC;
	while (pg <= last) {
		pgoff_t end;

		if (nova_falloc_keep(inode, pg, zero, zfirst, zend)) {
			pg++;
			ret = nova_falloc_yield(&count);
			if (ret)
				return ret;
			continue;
		}
		/* the pages to fill from here: [pg, end) */
		for (end = pg + 1; end <= last &&
		     !nova_falloc_keep(inode, end, zero, zfirst, zend); end++) {
			ret = nova_falloc_yield(&count);
			if (ret)
				return ret;
		}
		while (pg < end) {
			ret = nova_falloc_run(f, pg, end - pg);
			if (ret < 0)
				return ret;
			pg += ret;
		}
	}
	return 0;
}

/*
 * PUNCH_HOLE and ZERO_RANGE: zero the partial pages at the edges of the
 * range.  They come last, so that on a nearly full device the whole
 * pages get the blocks and the edges fall back to zeroing in place; the
 * head edge's run then moves to the front.
 */
static int nova_falloc_edges(struct nova_falloc *f)
{
	pgoff_t hp = f->offset >> NOVA_BLOCK_SHIFT;
	pgoff_t tp = f->end >> NOVA_BLOCK_SHIFT;
	bool head = f->offset & (NOVA_BLOCK_SIZE - 1);
	bool tail = (f->end & (NOVA_BLOCK_SIZE - 1)) && (tp != hp || !head);
	int ret, before = f->nr;

	if (head) {
		ret = nova_zero_edge(f->inode, hp, f->offset,
				     min_t(loff_t, f->end, (loff_t)(hp + 1) <<
					   NOVA_BLOCK_SHIFT),
				     &f->runs, &f->nr, &f->cap);
		if (ret)
			return ret;
		if (f->nr > before && f->nr > 1) {
			struct nova_run r = f->runs[f->nr - 1];

			memmove(&f->runs[1], &f->runs[0],
				(f->nr - 1) * sizeof(*f->runs));
			f->runs[0] = r;
		}
	}
	if (tail)
		return nova_zero_edge(f->inode, tp, (loff_t)tp << NOVA_BLOCK_SHIFT,
				      f->end, &f->runs, &f->nr, &f->cap);
	return 0;
}

/* A mode failed: free the blocks of its runs */
static void nova_falloc_drop(struct nova_falloc *f)
{
	while (f->nr--)
		nova_drop_run(f->inode, &f->runs[f->nr]);
}

/*
 * The end of a mode: the runs it built, or its error @ret.  Commit the
 * runs with the new size and times, with one tail store.  With no run,
 * a new size or a PUNCH_HOLE or ZERO_RANGE (@log) is logged with the
 * times as attributes; else the times are logged at writeback.
 */
static long nova_falloc_commit(struct nova_falloc *f, long ret, bool log)
{
	struct inode *inode = f->inode;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct timespec64 mtime = nova_get_mtime(inode);
	struct timespec64 ctime = nova_get_ctime(inode);
	bool committed;

	if (ret) {
		nova_falloc_drop(f);
		return ret;
	}
	nova_touch_mctime(inode);
	if (f->nr) {
		int done = nova_commit_runs(inode, f->runs, f->nr, f->new_size,
					    false, NULL);

		if (done < 0)
			ret = done;
		else if (done < f->nr)
			ret = -ENOSPC;
		committed = done > 0;
	} else if (f->new_size != inode->i_size || log) {
		loff_t old_size = inode->i_size;

		mutex_lock(&sih->log_mutex);
		inode->i_size = f->new_size;
		ret = nova_log_attr(inode, false);
		if (ret)
			inode->i_size = old_size;	/* not in the log */
		committed = !ret;
		mutex_unlock(&sih->log_mutex);
	} else {
		/* nothing to commit: the new times are logged at writeback */
		mark_inode_dirty_sync(inode);
		committed = true;
	}
	if (!committed) {
		/* nothing logged: no other entry may log these times */
		nova_set_mtime(inode, mtime);
		nova_set_ctime(inode, ctime);
	}
	i_size_write(inode, inode->i_size);
	return ret;
}

/* PUNCH_HOLE: a hole entry for the whole pages, the edges zeroed */
static long nova_punch_hole(struct nova_falloc *f)
{
	pgoff_t first = DIV_ROUND_UP(f->offset, NOVA_BLOCK_SIZE);
	pgoff_t tp = f->end >> NOVA_BLOCK_SHIFT;
	int ret = 0;

	if (tp > first)
		ret = nova_push_run(&f->runs, &f->nr, &f->cap, NULL,
				    (struct nova_run){ .pg = first, .n = tp - first });
	if (!ret)
		ret = nova_falloc_edges(f);
	return nova_falloc_commit(f, ret, true);
}

/* ZERO_RANGE: new zeroed blocks for the whole pages, the edges zeroed */
static long nova_zero_range(struct nova_falloc *f)
{
	int ret;

	/*
	 * Growing: pages kept past the old EOF (preallocated) and the old
	 * last page may hold bytes past it; the range is zeroed anyway
	 */
	nova_zero_grow(f->inode, f->inode->i_size,
		       min(f->offset, f->new_size));
	ret = nova_crypt_grow(f->inode, f->new_size);
	if (!ret)
		ret = nova_falloc_fill(f, true);
	if (!ret)
		ret = nova_falloc_edges(f);
	return nova_falloc_commit(f, ret, true);
}

/* The default mode and KEEP_SIZE: zeroed blocks for the holes */
static long nova_alloc_range(struct nova_falloc *f)
{
	long ret;

	/* growing: as ZERO_RANGE, up to the new size */
	nova_zero_grow(f->inode, f->inode->i_size, f->new_size);
	ret = nova_crypt_grow(f->inode, f->new_size);
	if (!ret)
		ret = nova_falloc_fill(f, false);
	return nova_falloc_commit(f, ret, false);
}

/*
 * fallocate: the checks and locks all modes share, then the mode's
 * function (COLLAPSE_RANGE and INSERT_RANGE: shift.c)
 */
long nova_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);
	struct nova_falloc f = {
		.inode = inode, .offset = offset, .end = offset + len,
	};
	bool shift = mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE);
	long ret;

	ret = nova_emergency_state(inode->i_sb);
	if (ret)
		return ret;
	/* the VFS lets no flag be combined with a shift */
	if (!shift && (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
				FALLOC_FL_ZERO_RANGE | FALLOC_FL_UNSHARE_RANGE)))
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && (mode & FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	if (!S_ISREG(inode->i_mode))
		return -ENODEV;

	inode_lock(inode);
	/*
	 * The file size limit (RLIMIT_FSIZE: SIGXFSZ and EFBIG) only for a
	 * mode that grows the file, as ext4 and XFS: not KEEP_SIZE, so not
	 * PUNCH_HOLE (s_maxbytes: vfs_fallocate())
	 */
	ret = 0;
	if (shift)
		ret = nova_shift_check(inode, mode, offset, len);
	else if (!(mode & FALLOC_FL_KEEP_SIZE) && f.end > inode->i_size)
		ret = inode_newsize_ok(inode, f.end);
	/*
	 * Before the invalidate lock: dropping set-user-ID is a setattr,
	 * which may run a GC that takes that lock.  The times: logged with
	 * the commit.
	 */
	if (!ret)
		ret = file_remove_privs(file);
	if (ret)
		goto out_inode;
	/*
	 * Every mode but allocation frees, replaces or moves the blocks of
	 * the range (PUNCH_HOLE and ZERO_RANGE: edge pages included; a
	 * shift: to EOF, after stores through mappings are made durable):
	 * first wait until none of them is pinned, before anything changes,
	 * and keep page faults out until the commit.  A signal ends the
	 * wait: the call fails, nothing changed.
	 */
	filemap_invalidate_lock(inode->i_mapping);
	if (shift)
		ret = nova_break_layouts_flush(inode, offset, LLONG_MAX);
	else if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		ret = nova_break_layouts(inode, offset, f.end - 1);
	nova_share_drops(inode);
	/* pages zeroed in place must not be shared (reflink.c) */
	if (!ret && (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)))
		ret = nova_unshare_edges(inode, offset, f.end, false);
	if (!ret && (shift || (!(mode & FALLOC_FL_KEEP_SIZE) &&
			       f.end > inode->i_size)))
		ret = nova_unshare_edges(inode, 0, 0, true);
	if (ret)
		goto out;
	/*
	 * A shift moves the last page whole, EOF at the same offset in it:
	 * what stores through a mapping left past EOF there would stay past
	 * the new EOF, where a mapping shows it (xfstests generic/363, fsx
	 * -e).  Zero it first, in place: it is no file data, a crash leaves
	 * zeros there.
	 */
	if (shift && (inode->i_size & (NOVA_BLOCK_SIZE - 1)))
		nova_zero_in_page(inode, inode->i_size,
				  round_up(inode->i_size, NOVA_BLOCK_SIZE));
	f.new_size = (mode & FALLOC_FL_KEEP_SIZE) ? inode->i_size :
		     max_t(loff_t, inode->i_size, f.end);
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		ret = nova_shift_collapse(inode, offset, len);
	else if (mode & FALLOC_FL_INSERT_RANGE)
		ret = nova_shift_insert(inode, offset, len);
	else if (mode & FALLOC_FL_PUNCH_HOLE)
		ret = nova_punch_hole(&f);
	else if (mode & FALLOC_FL_ZERO_RANGE)
		ret = nova_zero_range(&f);
	else if (mode & FALLOC_FL_UNSHARE_RANGE)
		/* shared pages get blocks of their own, then as allocation */
		ret = nova_unshare_pages(inode, offset >> NOVA_BLOCK_SHIFT,
					 ((f.end - 1) >> NOVA_BLOCK_SHIFT) -
					 (offset >> NOVA_BLOCK_SHIFT) + 1) ?:
		      nova_alloc_range(&f);
	else
		ret = nova_alloc_range(&f);
out:
	filemap_invalidate_unlock(inode->i_mapping);
	kfree(f.runs);
out_inode:
	inode_unlock(inode);
	return ret;
}

/*
 * A write fault on a hole of a shared mapping: one zeroed block, logged
 * and committed like a one-page write (the file size does not change).
 * Caller holds the mapping's invalidate lock shared.
 */
int nova_fault_alloc(struct inode *inode, pgoff_t pg, u64 *blk)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long b;
	u64 tail, off;
	int ret;

	mutex_lock(&sih->log_mutex);
	*blk = nova_find_page(inode, pg);
	if (*blk)
		goto out;	/* another fault got there first */
	ret = nova_quota_charge(inode, 1);
	if (ret)
		goto out_err;
	ret = nova_in_reserve(sb, 1) ? -ENOSPC :
	      nova_new_blocks(sb, &b, 1, -1, true);
	if (ret < 0)
		goto out_uncharge;
	ret = xa_reserve(&sih->pages, pg, GFP_KERNEL);
	if (ret)
		goto out_free;
	tail = sih->log_tail;
	nova_touch_mctime(inode);
	ret = nova_append_write_entry(inode, pg, 1, nova_block_off(b), 0,
				      inode->i_size, &tail, &off);
	if (ret) {
		xa_release(&sih->pages, pg);
		goto out_free;
	}
	nova_log_commit(sb, inode, tail);
	nova_apply_entry(inode, off, 1);
	*blk = nova_block_off(b);
	nova_stat_inc(NOVA_SB(sb), fault_allocs);
out:
	mutex_unlock(&sih->log_mutex);
	return 0;
out_free:
	nova_free_blocks(sb, b, 1);
out_uncharge:
	nova_quota_release(inode, 1);
out_err:
	mutex_unlock(&sih->log_mutex);
	return ret;
}

/*
 * Before pages [pg, pg + n) are written in place (a write fault, or
 * write() in place): log the preallocated ones among them again, same
 * blocks, without the unwritten flag, in batches of runs committed with
 * one tail store each.  Caller holds the mapping's invalidate lock
 * shared, or the inode lock.
 */
int nova_convert_unwritten(struct inode *inode, pgoff_t pg, unsigned long n)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct {
		pgoff_t pg;
		unsigned long n;
		u64 blk, entry;
	} r[8];
	pgoff_t p = pg, end = pg + n;
	int nr, k, ret = 0;
	u64 tail;

	/* most write faults find none: no log mutex for them */
	while (p < end && !nova_page_unwritten(inode, p))
		p++;
	if (p == end)
		return 0;
	mutex_lock(&sih->log_mutex);
	/*
	 * The pages have their blocks already (fallocate's guarantee): on a
	 * full device their entries may take the upper half of the deletion
	 * reserve (ext4 keeps a pool for its unwritten extent conversions
	 * too).  Past that, the conversion fails: write() copies on write,
	 * a fault gets SIGBUS.
	 */
	sih->use_reserve = NOVA_RESERVE_HALF;
	while (p < end && !ret) {
		nr = 0;
		for (; p < end; p++) {
			bool unwritten;
			u64 blk = nova_find_page_state(inode, p, &unwritten);

			/* (a shared page is copied before it is written) */
			if (!unwritten || nova_page_shared(inode, p))
				continue;
			if (nr && r[nr - 1].pg + r[nr - 1].n == p &&
			    r[nr - 1].blk + (r[nr - 1].n << NOVA_BLOCK_SHIFT) == blk) {
				r[nr - 1].n++;
				continue;
			}
			if (nr == ARRAY_SIZE(r))
				break;
			r[nr].pg = p;
			r[nr].n = 1;
			r[nr++].blk = blk;
		}
		if (!nr)
			break;
		tail = sih->log_tail;
		for (k = 0; k < nr && !ret; k++)
			ret = nova_append_write_entry(inode, r[k].pg, r[k].n,
						      r[k].blk, 0, inode->i_size,
						      &tail, &r[k].entry);
		if (ret)
			break;
		nova_log_commit(sb, inode, tail);
		/* readers without the log mutex may hold the entries */
		sih->gc_hold = true;
		for (k = 0; k < nr; k++)
			nova_index_set(sb, inode, r[k].pg, r[k].n,
				       nova_get_block(sb, r[k].entry),
				       NOVA_INDEX_MOVE, NULL);
	}
	sih->use_reserve = NOVA_RESERVE_NONE;
	mutex_unlock(&sih->log_mutex);
	return ret;
}

/*
 * Give file page @pg a block of its own if its block is shared (a clone:
 * share.c, reflink.c): a copy, with zeros past EOF, logged and committed
 * like a one-page write.  Done before anything stores into the page's
 * block in place, and by every fault on it: no mapping ever maps a shared
 * block (the kernel's DAX code gives each page one file and offset).
 * The caller holds the inode lock, or, for a @fault, the mapping's
 * invalidate lock shared: then a read() of the file may still be copying
 * from the old block, so its reference goes later (nova_share_drops()),
 * and so do the log pages of the entry that dies (gc_hold).  Returns 0
 * with the page's block offset (0: a hole) in *@blk if @blk is not NULL,
 * read under the log mutex, or -ENOSPC, -ENOMEM, -EIO.
 */
int nova_unshare_page(struct inode *inode, pgoff_t pg, u64 *blk, bool fault)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_file_write_entry *e;
	unsigned long b, charged = 0;
	u64 tail, off, cur;
	int ret;

	mutex_lock(&sih->log_mutex);
	e = xa_load(&sih->pages, pg);
	cur = e ? nova_entry_block(sb, e, pg) : 0;
	ret = 0;
	if (!nova_entry_page_shared(sb, e, pg))
		goto out;	/* never shared, or another fault got there */
	if (fault) {
		/* (one file may map a block at several pages: counted) */
		void *v = xa_load(&sih->share_drops, cur >> NOVA_BLOCK_SHIFT);

		ret = xa_err(xa_store(&sih->share_drops, cur >> NOVA_BLOCK_SHIFT,
				      xa_mk_value(v ? xa_to_value(v) + 1 : 1),
				      GFP_NOFS));
		if (ret)
			goto out;
	}
	ret = nova_new_data_blocks(sb, &b, 1, false);
	if (ret < 0)
		goto out_drop;
	ret = nova_fill_partial(sb, inode, pg,
				nova_get_block(sb, nova_block_off(b)), 0,
				NOVA_BLOCK_SIZE, inode->i_size);
	tail = sih->log_tail;
	if (!ret)
		ret = nova_append_write_entry(inode, pg, 1, nova_block_off(b),
					      e->flags & NOVA_WRITE_UNWRITTEN,
					      inode->i_size, &tail, &off);
	if (ret) {
		nova_free_blocks(sb, b, 1);
		goto out_drop;
	}
	nova_log_commit(sb, inode, tail);
	if (fault) {
		/* readers without the log mutex may hold the old entry */
		sih->gc_hold = true;
		nova_index_set(sb, inode, pg, 1, nova_get_block(sb, off),
			       NOVA_INDEX_MOVE, &charged);
	} else {
		nova_apply_entry(inode, off, 0);
	}
	cur = nova_block_off(b);
	nova_stat_inc(NOVA_SB(sb), unshares);
	goto out;
out_drop:
	if (fault)
		nova_share_drop_undo(inode, cur >> NOVA_BLOCK_SHIFT);
out:
	mutex_unlock(&sih->log_mutex);
	if (blk)
		*blk = cur;
	return ret;
}

/* nova_unshare_page() for each shared page of [pg, pg + n) */
int nova_unshare_pages(struct inode *inode, pgoff_t pg, unsigned long n)
{
	struct nova_file_write_entry *e;
	unsigned long index;
	int ret;

	/* (a flag is all it takes to look: shared pages are flagged) */
	if (!nova_any_flagged(inode, pg, n))
		return 0;
	xa_for_each_range(&NOVA_I(inode)->header.pages, index, e, pg,
			  pg + n - 1) {
		if (!nova_entry_page_shared(inode->i_sb, e, index))
			continue;
		ret = nova_unshare_page(inode, index, NULL, false);
		if (ret)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Before pages may be zeroed in place: the partial pages at @start and
 * @end (a punch's or zero range's edges, a shrinking truncate's new last
 * page) and, with @eof, the page EOF is in (a growing file zeroes its
 * bytes past EOF, a shift moves it) must have blocks of their own.
 * Caller holds the inode lock.
 */
int nova_unshare_edges(struct inode *inode, loff_t start, loff_t end, bool eof)
{
	loff_t size = i_size_read(inode);
	int ret = 0;

	if (xa_empty(&NOVA_SB(inode->i_sb)->shared))
		return 0;
	if (start & (NOVA_BLOCK_SIZE - 1))
		ret = nova_unshare_page(inode, start >> NOVA_BLOCK_SHIFT, NULL, false);
	if (!ret && end > start && (end & (NOVA_BLOCK_SIZE - 1)))
		ret = nova_unshare_page(inode, end >> NOVA_BLOCK_SHIFT, NULL, false);
	if (!ret && eof && (size & (NOVA_BLOCK_SIZE - 1)))
		ret = nova_unshare_page(inode, size >> NOVA_BLOCK_SHIFT, NULL, false);
	return ret;
}
