// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA regular files: file operations, lseek with SEEK_DATA/SEEK_HOLE,
 * FIEMAP, fsync, and DAX mmap through the kernel's iomap DAX fault path.
 *
 * mmap maps file blocks directly; a write fault on a hole allocates a
 * zeroed block through the log (nova_fault_alloc()), one on preallocated
 * pages logs them written (nova_convert_unwritten()).  Writes through
 * write() to a file that is mapped go in place, so every mapping stays
 * coherent.  Metadata is durable when each operation returns, so MAP_SYNC
 * needs nothing more than that (IOMAP_F_DIRTY is never set); fsync writes
 * back CPU cache lines dirtied through mappings.
 */
#include <linux/fiemap.h>
#include <linux/iomap.h>
#include <linux/dax.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/quotaops.h>
#include "nova.h"

/* Does index entry @e hold data (not preallocated and unwritten)? */
static bool nova_is_data(void *e)
{
	return !(((struct nova_file_write_entry *)e)->flags &
		 NOVA_WRITE_UNWRITTEN);
}

/* Every 1024 entries of a walk under RCU: let others run */
static void nova_xas_yield(struct xa_state *xas, unsigned long *n)
{
	if (++*n & 1023)
		return;
	xas_pause(xas);
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
}

/*
 * The first page at or after @index that is a hole or at or past @size;
 * preallocated pages not written since are holes too (as ext4's and
 * XFS' unwritten extents).  A file may map as many pages as the device
 * has blocks: walk the index in order, yielding the CPU now and then.
 */
static unsigned long nova_next_hole(struct nova_inode_info_header *sih,
				    unsigned long index, loff_t size)
{
	XA_STATE(xas, &sih->pages, index);
	unsigned long n = 0;
	void *e;

	rcu_read_lock();
	xas_for_each(&xas, e, ULONG_MAX) {
		/* (a slot a write fault reserved is a hole still) */
		if (xa_is_zero(e))
			break;
		if (xas_retry(&xas, e))
			continue;
		if (xas.xa_index != index || !nova_is_data(e) ||
		    ((loff_t)index << NOVA_BLOCK_SHIFT) >= size)
			break;
		index++;
		nova_xas_yield(&xas, &n);
	}
	rcu_read_unlock();
	return index;
}

/* The first page at or after @index that holds data, ULONG_MAX: none */
static unsigned long nova_next_data(struct nova_inode_info_header *sih,
				    unsigned long index, loff_t size)
{
	XA_STATE(xas, &sih->pages, index);
	unsigned long n = 0, found = ULONG_MAX;
	void *e;

	rcu_read_lock();
	xas_for_each(&xas, e, ULONG_MAX) {
		if (((loff_t)xas.xa_index << NOVA_BLOCK_SHIFT) >= size)
			break;
		/* (reserved slots and retries: no entry to read) */
		if (xas_retry(&xas, e))
			continue;
		if (nova_is_data(e)) {
			found = xas.xa_index;
			break;
		}
		nova_xas_yield(&xas, &n);
	}
	rcu_read_unlock();
	return found;
}

static loff_t nova_seek_data_hole(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	loff_t size;
	unsigned long index;

	inode_lock_shared(inode);
	size = i_size_read(inode);
	if (offset < 0 || offset >= size) {
		inode_unlock_shared(inode);
		return -ENXIO;
	}
	index = offset >> NOVA_BLOCK_SHIFT;
	if (whence == SEEK_DATA) {
		index = nova_next_data(sih, index, size);
		if (index == ULONG_MAX)
			offset = -ENXIO;
		else
			offset = max_t(loff_t, offset,
				       (loff_t)index << NOVA_BLOCK_SHIFT);
	} else {
		index = nova_next_hole(sih, index, size);
		offset = min_t(loff_t, size,
			       max_t(loff_t, offset, (loff_t)index << NOVA_BLOCK_SHIFT));
	}
	inode_unlock_shared(inode);
	if (offset < 0)
		return offset;
	return vfs_setpos(file, offset, inode->i_sb->s_maxbytes);
}

static loff_t nova_llseek(struct file *file, loff_t offset, int whence)
{
	switch (whence) {
	case SEEK_DATA:
	case SEEK_HOLE:
		return nova_seek_data_hole(file, offset, whence);
	default:
		return generic_file_llseek(file, offset, whence);
	}
}

/*
 * Every write(), truncate and metadata change is durable on return, but
 * for times kept in DRAM: those of in-place writes that kept the size
 * (dax.c) and an atime updated by reads (inode.c: nova_dirty_inode());
 * fsync logs those and writes back the cache lines that stores through
 * DAX mappings dirtied.
 */
static int nova_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct nova_sb_info *sbi = NOVA_SB(file_inode(file)->i_sb);
	int ret;
	u64 t = nova_timer_start();

	/* EIO after a shutdown, EROFS after an error (as ext4) */
	ret = nova_emergency_state(file_inode(file)->i_sb);
	if (ret)
		return ret;
	ret = file_write_and_wait_range(file, start, end);
	/* times kept in DRAM: in-place writes, atime */
	if (!ret)
		ret = nova_write_attr(file_inode(file));
	nova_fence();
	nova_stat_inc(sbi, fsync_calls);
	NOVA_TIMER_END(sbi, T_FSYNC, t);
	return ret;
}

static int nova_dax_writepages(struct address_space *mapping,
			       struct writeback_control *wbc)
{
	return dax_writeback_mapping_range(mapping,
					   NOVA_SB(mapping->host->i_sb)->s_dax_dev,
					   wbc);
}

/*
 * FIBMAP: the device block of file block @block (4 KiB units, as FIEMAP's
 * byte offsets), 0 for a hole
 */
static sector_t nova_bmap(struct address_space *mapping, sector_t block)
{
	struct inode *inode = mapping->host;
	u64 blk;

	if (block > (MAX_LFS_FILESIZE >> NOVA_BLOCK_SHIFT))
		return 0;
	inode_lock_shared(inode);
	blk = nova_find_page(inode, block);
	/* a writer of raw blocks would change the other files (as XFS) */
	if (nova_page_shared(inode, block))
		blk = 0;
	inode_unlock_shared(inode);
	return blk >> NOVA_BLOCK_SHIFT;
}

const struct address_space_operations nova_dax_aops = {
	.writepages	= nova_dax_writepages,
	.direct_IO	= noop_direct_IO,
	.dirty_folio	= noop_dirty_folio,
	.bmap		= nova_bmap,
};

/* Map [offset, offset + length) to the longest contiguous run of blocks */
/*
 * Damaged images only: may the @n blocks from @blk, file pages from @pg,
 * be mapped into @inode's mapping?  fs/dax.c ties a mapped pmem page to
 * one (mapping, index); a page already tied elsewhere means that two
 * file pages share a block (a corrupt log, or one that fsck would call
 * cross-linked), and dax_associate_entry() would warn.  Refuse the fault
 * with EUCLEAN instead.  Best effort: two faults racing on such a pair
 * are not caught.
 */
static bool nova_fault_crosslinked(struct inode *inode, pgoff_t pg, u64 blk,
				   unsigned long n)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	unsigned long i;

	if (!sbi->base_pfn)
		return false;
	for (i = 0; i < n; i++) {
		/* base_pfn is the pfn of file system offset 0 */
		struct page *page =
			pfn_to_page(sbi->base_pfn + (blk >> PAGE_SHIFT) + i);
		/*
		 * The owner is kept in the folio (a 2 MiB mapping is one
		 * folio since 6.15; before, each page was its own folio).
		 */
		struct folio *folio = page_folio(page);
		struct address_space *m = READ_ONCE(folio->mapping);
		pgoff_t idx = READ_ONCE(folio->index) + folio_page_idx(folio, page);

		if (m && (m != inode->i_mapping || idx != pg + i)) {
			nova_error(inode->i_sb,
				   "inode %llu: block %llu of page %lu is mapped by another file page",
				   nova_ino(inode), (blk >> NOVA_BLOCK_SHIFT) + i, pg + i);
			return true;
		}
	}
	return false;
}

/*
 * A fault maps @length bytes at @offset: one page, or 2 MiB for a PMD
 * fault.  The kernel falls back to page faults when what is mapped is
 * shorter than a PMD fault's length or not 2 MiB-aligned on pmem: a PMD
 * fault that cannot be served changes nothing then (a write fault on a
 * hole allocates nothing, preallocated pages are not logged written),
 * and the page fault that follows does that for the one page it maps.
 */
static int nova_iomap_begin(struct inode *inode, loff_t offset, loff_t length,
			    unsigned int flags, struct iomap *iomap,
			    struct iomap *srcmap)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	pgoff_t pg = offset >> NOVA_BLOCK_SHIFT, last;
	u64 blk = nova_find_page(inode, pg), next;
	bool huge = (flags & IOMAP_FAULT) && length > NOVA_BLOCK_SIZE;
	bool new = false;
	int ret;

	/*
	 * No mapping maps a shared block: a page fault copies it (dax.c).
	 * Decided by the entry's flag, which never changes: a fault that
	 * read the entry a copy made by another fault or a write replaced
	 * takes the block under the log mutex.  A read-only mount cannot
	 * copy: such a page cannot be mapped there.
	 */
	if (blk && (flags & IOMAP_FAULT) && !huge && nova_page_flagged(inode, pg)) {
		/* (nothing changes the pages of a read-only mount) */
		if (sb_rdonly(inode->i_sb) && nova_page_shared(inode, pg))
			return -EROFS;
		if (!sb_rdonly(inode->i_sb)) {
			ret = nova_unshare_page(inode, pg, &blk, true);
			if (ret)
				return ret;
		}
	}
	if (!blk && (flags & IOMAP_WRITE) && !huge) {
		ret = nova_fault_alloc(inode, pg, &blk);
		if (ret)
			return ret;
		new = true;
	}
	iomap->flags = new ? IOMAP_F_NEW : 0;
	iomap->offset = (loff_t)pg << NOVA_BLOCK_SHIFT;
	iomap->dax_dev = sbi->s_dax_dev;
	iomap->bdev = inode->i_sb->s_bdev;
	if (!blk) {
		iomap->type = IOMAP_HOLE;
		iomap->addr = IOMAP_NULL_ADDR;
		iomap->length = NOVA_BLOCK_SIZE;
		return 0;
	}
	last = (offset + length - 1) >> NOVA_BLOCK_SHIFT;
	next = blk;
	while (pg < last && !new) {
		u64 b = nova_find_page(inode, pg + 1);

		if (b != next + NOVA_BLOCK_SIZE)
			break;
		next = b;
		pg++;
	}
	iomap->type = IOMAP_MAPPED;
	iomap->addr = blk + sbi->s_dax_part_off;
	/* a PMD fault that will fall back: its first page, nothing changed */
	if (huge && (pg < last ||
		     nova_any_flagged(inode, offset >> NOVA_BLOCK_SHIFT,
				      pg + 1 - (offset >> NOVA_BLOCK_SHIFT)) ||
		     (sbi->base_pfn &&
		      !IS_ALIGNED(sbi->base_pfn + (blk >> PAGE_SHIFT),
				  length >> PAGE_SHIFT)))) {
		iomap->length = NOVA_BLOCK_SIZE;
		return 0;
	}
	if ((flags & IOMAP_FAULT) && !new &&
	    nova_fault_crosslinked(inode, offset >> NOVA_BLOCK_SHIFT, blk,
				   pg + 1 - (offset >> NOVA_BLOCK_SHIFT)))
		return -EUCLEAN;
	/* preallocated pages about to be written become written */
	if ((flags & IOMAP_WRITE) && !new) {
		ret = nova_convert_unwritten(inode, offset >> NOVA_BLOCK_SHIFT,
					     pg + 1 - (offset >> NOVA_BLOCK_SHIFT));
		if (ret)
			return ret;
	}
	iomap->length = next + NOVA_BLOCK_SIZE - blk;
	return 0;
}

const struct iomap_ops nova_iomap_ops = {
	.iomap_begin	= nova_iomap_begin,
};

static vm_fault_t nova_dax_huge_fault(struct vm_fault *vmf,
				      nova_fault_size_t pe_size)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	bool write = (vmf->flags & FAULT_FLAG_WRITE) &&
		     (vmf->vma->vm_flags & VM_SHARED);
	/*
	 * a read fault on a shared page copies it: a change too (dax.c),
	 * on any file system that has shared blocks
	 */
	bool change = write || !xa_empty(&NOVA_SB(inode->i_sb)->shared);
	vm_fault_t ret;
	nova_pfn_t pfn;
	u64 t = nova_timer_start();

	if (nova_is_shutdown(inode->i_sb))
		return VM_FAULT_SIGBUS;
	/* a mapping made before chattr +i (as ext4's page_mkwrite) */
	if (write && IS_IMMUTABLE(inode))
		return VM_FAULT_SIGBUS;
again:
	if (change) {
		sb_start_pagefault(inode->i_sb);
		/* read-only after an error (maybe while this waited for a thaw) */
		if (nova_emergency_state(inode->i_sb)) {
			sb_end_pagefault(inode->i_sb);
			return VM_FAULT_SIGBUS;
		}
	} else {
		NOVA_INJECT_FAULT(inode);
	}
	if (write) {
		/*
		 * mtime and ctime as write(2) sets them; marking the inode
		 * dirty (nova_dirty_inode()) gets them logged at fsync,
		 * writeback or eviction
		 */
		file_update_time(vmf->vma->vm_file);
		atomic_inc(&NOVA_I(inode)->header.write_faults);
		/*
		 * Counted before a page becomes writable: a write() that
		 * read the page's old bytes earlier, to complete a partial
		 * page copied on write, copies them again at its commit
		 * (dax.c: nova_refill_edges(); pairs with the barrier in
		 * nova_do_write())
		 */
		smp_mb__after_atomic();
	}
	filemap_invalidate_lock_shared(inode->i_mapping);
	/*
	 * A clone shared blocks since the check above (it does so under
	 * this lock, reflink.c): this read fault may copy one now, so it
	 * must hold off a freeze as a write fault does
	 */
	if (!change && !xa_empty(&NOVA_SB(inode->i_sb)->shared)) {
		filemap_invalidate_unlock_shared(inode->i_mapping);
		change = true;
		goto again;
	}
	ret = dax_iomap_fault(vmf, pe_size, &pfn, NULL, &nova_iomap_ops);
	if (pe_size == NOVA_FAULT_PMD && !(ret & (VM_FAULT_FALLBACK | VM_FAULT_ERROR)))
		nova_stat_inc(NOVA_SB(inode->i_sb), pmd_faults);
	if (ret & VM_FAULT_NEEDDSYNC)
		ret = dax_finish_sync_fault(vmf, pe_size, pfn);
	filemap_invalidate_unlock_shared(inode->i_mapping);
	/*
	 * The references a copy of a shared page left: now if no read()
	 * runs (a trylock: the fault holds the mmap lock), else at the next
	 * change of the file (share.c), so that statfs counts them free
	 */
	if (!xa_empty(&NOVA_I(inode)->header.share_drops) &&
	    inode_trylock(inode)) {
		nova_share_drops(inode);
		inode_unlock(inode);
	}
	if (change)
		sb_end_pagefault(inode->i_sb);
	NOVA_TIMER_END(NOVA_SB(inode->i_sb), T_FAULT, t);
	return ret;
}

static vm_fault_t nova_dax_fault(struct vm_fault *vmf)
{
	return nova_dax_huge_fault(vmf, NOVA_FAULT_PTE);
}

static const struct vm_operations_struct nova_dax_vm_ops = {
	.fault		= nova_dax_fault,
	.huge_fault	= nova_dax_huge_fault,
	.page_mkwrite	= nova_dax_fault,
	.pfn_mkwrite	= nova_dax_fault,
};

static int nova_dax_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (nova_is_shutdown(file_inode(file)->i_sb))
		return -EIO;
	/* DAX would map the ciphertext on pmem (crypto.c) */
	if (IS_ENCRYPTED(file_inode(file)))
		return -EOPNOTSUPP;
	file_accessed(file);
	vma->vm_ops = &nova_dax_vm_ops;
	nova_vm_flags_set(vma, VM_HUGEPAGE);
	return 0;
}

static int nova_file_open(struct inode *inode, struct file *file)
{
	int ret;

	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	/* an encrypted file needs its key (and its directory's policy) */
	ret = fscrypt_file_open(inode, file);
	if (ret)
		return ret;
	/* RWF_NOWAIT and io_uring's inline reads and writes (dax.c) */
	file->f_mode |= FMODE_NOWAIT;
	/* a writer's quota structures are set up before any write */
	return dquot_file_open(inode, file);
}

const struct file_operations nova_file_operations = {
	.llseek		= nova_llseek,
	.read_iter	= nova_dax_read_iter,
	.write_iter	= nova_dax_write_iter,
	.open		= nova_file_open,
	.fsync		= nova_fsync,
	.unlocked_ioctl	= nova_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= nova_compat_ioctl,
#endif
	.fallocate	= nova_fallocate,
	.remap_file_range = nova_remap_file_range,
	.mmap		= nova_dax_mmap,
	.get_unmapped_area = thp_get_unmapped_area,
	NOVA_FOP_MMAP_SYNC,
	.splice_read	= nova_splice_read,
	.splice_write	= iter_file_splice_write,
};

/*
 * FIEMAP: the file's blocks as extents, each a run of pages whose blocks
 * follow each other on pmem; holes are left out.  Physical addresses are
 * byte offsets on the block device.  Preallocated pages not written
 * since are FIEMAP_EXTENT_UNWRITTEN, shared blocks (clones) are
 * FIEMAP_EXTENT_SHARED; NOVA data has no delayed or inline states.  An extent that crosses the end
 * of the requested range is reported whole, and the file's last extent is
 * marked FIEMAP_EXTENT_LAST.  FIEMAP_FLAG_XATTR maps the extended
 * attributes instead (nova_xattr_fiemap()).
 */
static int nova_fiemap(struct inode *inode, struct fiemap_extent_info *fi,
		       u64 start, u64 len)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	unsigned long index, last;
	u64 lg = 0, ph = 0, ln = 0;	/* the extent not reported yet */
	u32 fl = 0;			/* and its flags */
	u64 blk;
	int ret;

	ret = fiemap_prep(inode, fi, start, &len, FIEMAP_FLAG_XATTR);
	if (ret)
		return ret;
	if (fi->fi_flags & FIEMAP_FLAG_XATTR)
		return nova_xattr_fiemap(inode, fi);
	index = start >> NOVA_BLOCK_SHIFT;
	last = (start + len - 1) >> NOVA_BLOCK_SHIFT;
	inode_lock_shared(inode);
	while (xa_find(&sih->pages, &index, ULONG_MAX, XA_PRESENT)) {
		bool unwritten;
		u32 f;

		blk = nova_find_page_state(inode, index, &unwritten);
		f = unwritten ? FIEMAP_EXTENT_UNWRITTEN : 0;
		if (nova_page_shared(inode, index))
			f |= FIEMAP_EXTENT_SHARED;
		if (ln && ((u64)index << NOVA_BLOCK_SHIFT) == lg + ln &&
		    blk == ph + ln && f == fl) {
			ln += NOVA_BLOCK_SIZE;
		} else {
			/* a later extent exists: the pending one is not last */
			if (ln) {
				ret = fiemap_fill_next_extent(fi, lg, ph, ln, fl);
				ln = 0;
				if (ret)
					break;
			}
			if (index > last)
				break;
			lg = (u64)index << NOVA_BLOCK_SHIFT;
			ph = blk;
			ln = NOVA_BLOCK_SIZE;
			fl = f;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (index == ULONG_MAX)
			break;
		index++;
		cond_resched();
	}
	if (ln && !ret)
		ret = fiemap_fill_next_extent(fi, lg, ph, ln,
					      fl | FIEMAP_EXTENT_LAST);
	inode_unlock_shared(inode);
	/* 1: the caller's array is full, or the last extent is in it */
	return ret < 0 ? ret : 0;
}

const struct inode_operations nova_file_inode_operations = {
	.fiemap		= nova_fiemap,
	.getattr	= nova_getattr,
	.setattr	= nova_setattr,
	.fileattr_get	= nova_fileattr_get,
	.fileattr_set	= nova_fileattr_set,
	.listxattr	= nova_listxattr,
	.NOVA_GET_ACL_OP = nova_get_inode_acl,
	.set_acl	= nova_set_acl,
};
