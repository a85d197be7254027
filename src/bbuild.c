// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: rebuilding the allocators and the in-use inode maps at mount.
 *
 * After the lite journals have been rolled back, every block of the
 * dynamic area that is reachable from the super block is marked in a
 * bitmap of used blocks: the per-stripe inode table chains, the journal
 * pages, and for every valid inode its log pages and the data blocks its
 * log points to.  The free trees are then built from the gaps.  Inodes
 * whose last logged link count is zero (unlinked while open at a crash)
 * are reclaimed here.
 *
 * Every pointer read from pmem is validated before it is followed, and a
 * block reached twice (a loop or a cross-link) makes the image corrupt
 * (-EUCLEAN).
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/vmalloc.h>
#include <linux/bitmap.h>
#include "nova.h"

/*
 * serial_scan=1: the crash recovery scan walks the stripes one after the
 * other in the mounting thread instead of one worker per stripe (to
 * measure what the parallel scan gains; the result is the same).
 */
static bool serial_scan;
module_param(serial_scan, bool, 0644);
MODULE_PARM_DESC(serial_scan, "Recovery scan: one stripe after the other, no workers");

struct nova_scan {
	struct super_block *sb;
	unsigned long *used;		/* shared by all stripes' scans */
	unsigned long inodes;
	unsigned long orphans;
	unsigned int stripe;
	int ret;
	struct work_struct work;
	/* per inode, filled by the entry walk */
	unsigned long ino;
	u32 links;
	u64 size;			/* file size so far in the walk */
	/* live page -> block number << 1, | 1 if it may be shared */
	struct xarray pages;
	unsigned long npages;		/* pages in @pages */
};

/* Mark [off, off + len) used; it must be a valid, unclaimed range */
static int nova_mark_used(struct nova_scan *sc, u64 off, u64 len,
			  const char *what, unsigned long ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sc->sb);
	unsigned long b, first, n;

	if (off & (NOVA_BLOCK_SIZE - 1) || !nova_range_valid(sbi, off, len)) {
		nova_error(sc->sb, "inode %lu: %s at offset 0x%llx+0x%llx is outside the device",
			   ino, what, off, len);
		return -EUCLEAN;
	}
	first = off >> NOVA_BLOCK_SHIFT;
	n = DIV_ROUND_UP(len, NOVA_BLOCK_SIZE);
	for (b = first; b < first + n; b++) {
		if (test_and_set_bit(b, sc->used)) {
			nova_error(sc->sb, "inode %lu: %s block %lu is used twice",
				   ino, what, b);
			return -EUCLEAN;
		}
	}
	return 0;
}

/*
 * May the recovery scan reclaim orphans in pmem?  Not on a read-only
 * device, and not when norecovery left a journal transaction open: a
 * half-done operation can make a linked inode look unlinked, and the
 * roll-back of the next mount would bring its name back.
 */
static bool nova_scan_may_write(struct super_block *sb)
{
	return !bdev_read_only(sb->s_bdev) && !NOVA_SB(sb)->recovery_skipped;
}

/* Every page of the chain, including pre-allocated pages past the tail */
static int nova_scan_log_pages(struct nova_scan *sc, struct nova_inode *pi,
			       unsigned long ino)
{
	u64 page = le64_to_cpu(pi->log_head);
	u64 tail = le64_to_cpu(pi->log_tail);
	bool tail_seen = !tail;
	int ret;

	while (page) {
		struct nova_log_page_tail *pt;

		ret = nova_mark_used(sc, page, NOVA_BLOCK_SIZE, "log page", ino);
		if (ret)
			return ret;
		if (tail >= page && tail <= page + NOVA_LOG_LAST_ENTRY)
			tail_seen = true;
		pt = nova_get_block(sc->sb, page + NOVA_LOG_LAST_ENTRY);
		page = le64_to_cpu(READ_ONCE(pt->next_page));
	}
	if (!tail_seen) {
		nova_error(sc->sb, "inode %lu: log tail 0x%llx is not in its log",
			   ino, tail);
		return -EUCLEAN;
	}
	return 0;
}

/* Every 1024 pages of a write entry: let others run; true: stop (killed) */
static bool nova_scan_yield(struct nova_scan *sc)
{
	cond_resched();
	return nova_walk_killed(sc->sb);
}

/*
 * Entry walk: the last logged link count, and the live data pages: later
 * write entries replace earlier ones page by page, hole entries and size
 * cuts remove pages.
 */
static int nova_scan_entry(struct super_block *sb, u64 off, const void *entry,
			   size_t size, void *arg)
{
	struct nova_scan *sc = arg;
	const struct nova_file_write_entry *e = entry;
	const struct nova_setattr_entry *sa = entry;
	u64 pg, blk, i, n;
	unsigned long index, max_pages;
	bool shared;
	void *old;

	switch (*(const u8 *)entry) {
	case NOVA_DIR_LOG:
		sc->links = le32_to_cpu(((const struct nova_dentry *)entry)->links_count);
		break;
	case NOVA_LINK_CHANGE:
		if (!nova_entry_is_invalid(entry))
			sc->links = le32_to_cpu(((const struct nova_link_change_entry *)entry)->links);
		break;
	case NOVA_SET_ATTR:
		if (!(sa->attr & NOVA_ATTR_SIZE) || nova_entry_is_invalid(entry))
			break;
		/* as in the replay: only a shrink cuts pages */
		if (le64_to_cpu(sa->size) >= sc->size) {
			sc->size = le64_to_cpu(sa->size);
			break;
		}
		sc->size = le64_to_cpu(sa->size);
		pg = DIV_ROUND_UP(le64_to_cpu(sa->size), NOVA_BLOCK_SIZE);
		xa_for_each_start(&sc->pages, index, old, pg) {
			xa_erase(&sc->pages, index);
			sc->npages--;
			if (!(sc->npages & 1023) && nova_scan_yield(sc))
				return -EINTR;
		}
		break;
	case NOVA_FILE_WRITE:
		if (nova_entry_is_invalid(entry))
			break;	/* every page superseded */
		pg = le64_to_cpu(e->pgoff);
		n = le32_to_cpu(e->num_pages);
		blk = le64_to_cpu(e->block);
		sc->size = le64_to_cpu(e->size);
		if (!n || pg + n < pg || pg + n > ULONG_MAX / 2 ||
		    !nova_write_flags_ok(e) ||
		    (blk && (blk & (NOVA_BLOCK_SIZE - 1) ||
			     !nova_range_valid(NOVA_SB(sb), blk, n << NOVA_BLOCK_SHIFT)))) {
			nova_error(sb, "inode %lu: bad write entry at 0x%llx",
				   sc->ino, off);
			return -EUCLEAN;
		}
		if (!blk) {
			xa_for_each_range(&sc->pages, index, old, pg, pg + n - 1) {
				xa_erase(&sc->pages, index);
				sc->npages--;
				if (!(sc->npages & 1023) && nova_scan_yield(sc))
					return -EINTR;
			}
			break;
		}
		blk >>= NOVA_BLOCK_SHIFT;
		/* (the flag means nothing without the feature: share.c) */
		shared = (e->flags & NOVA_WRITE_SHARED) &&
			 nova_reflink_enabled(sb);
		max_pages = nova_max_mapped_pages(sb);
		for (i = 0; i < n; i++) {
			old = xa_store(&sc->pages, pg + i,
				       xa_mk_value((blk + i) << 1 | shared),
				       GFP_KERNEL);
			if (xa_is_err(old))
				return xa_err(old);
			/* each page has a block of its own, clones aside */
			if (!old && ++sc->npages > max_pages) {
				nova_error_mapped_pages(sb, sc->ino);
				return -EUCLEAN;
			}
			if (!(i & 1023) && nova_scan_yield(sc))
				return -EINTR;
		}
		break;
	}
	return 0;
}

/*
 * A directory's link count only drops to zero through rmdir (or a rename
 * over it), which logs a link-change entry with links 0; a change made
 * later through a descriptor logs another one after its own entries
 * (inode.c: nova_append_dead_dir_mark()).  So the last entry of a
 * directory's log tells whether it was removed while open, and the scan
 * reads that one entry instead of walking the whole log.
 *
 * The bytes just before the tail prove nothing by themselves: they may
 * be the end of an extended attribute value or of a name, which the user
 * who sets it chooses, checksum included.  The last entry is found by
 * walking the tail's page from its start: every log page is filled from
 * offset 0 with entries back to back (log.c nova_log_make_room(), gc.c
 * nova_new_log_append(), and the tools' nv_log_append()), and the
 * committed tail is the end of one of them.  A page that does not parse
 * up to the tail reads as linked: the directory is kept, and reading it
 * reports the damage.
 */
static u32 nova_dir_last_links(struct super_block *sb, struct nova_inode *pi)
{
	u64 tail = le64_to_cpu(pi->log_tail);
	size_t end = tail & (NOVA_BLOCK_SIZE - 1), off = 0, size = 0;
	const struct nova_link_change_entry *lc;
	const u8 *page;

	/* a tail outside the device is reported by nova_scan_log_pages() */
	if (!end || end > NOVA_LOG_LAST_ENTRY ||
	    !nova_range_valid(NOVA_SB(sb), tail - end, NOVA_BLOCK_SIZE))
		return 1;
	page = nova_get_block(sb, tail - end);
	while (off < end) {
		size = nova_entry_size(page + off, end - off);
		if (!size || size > end - off)
			return 1;
		off += size;
	}
	/* the entry that ends at the tail */
	lc = (const void *)(page + end - size);
	if (lc->entry_type != NOVA_LINK_CHANGE || size != sizeof(*lc) ||
	    !nova_entry_csum_ok(lc, sizeof(*lc)))
		return 1;
	return le32_to_cpu(lc->links);
}

static int nova_scan_inode(struct nova_scan *sc, struct nova_inode *pi,
			   unsigned long ino)
{
	u64 head = le64_to_cpu(pi->log_head), tail = le64_to_cpu(pi->log_tail);
	unsigned long index;
	void *v;
	int ret = 0;

	if (pi->i_valid != NOVA_INODE_VALID)
		return 0;
	if (le64_to_cpu(pi->i_ino) != ino) {
		nova_error(sc->sb, "inode slot %lu holds inode number %llu",
			   ino, le64_to_cpu(pi->i_ino));
		return -EUCLEAN;
	}
	sc->ino = ino;
	sc->links = le32_to_cpu(pi->i_links_count);
	sc->size = le64_to_cpu(pi->i_size);
	xa_init(&sc->pages);
	sc->npages = 0;
	/* the chain first: a loop must not make the walk below spin */
	ret = nova_log_check_chain(sc->sb, ino, head, tail);
	if (ret < 0)
		goto out;
	ret = 0;
	if (S_ISDIR(le16_to_cpu(pi->i_mode))) {
		/* directory logs point at no data: pages only */
		if (tail)
			sc->links = nova_dir_last_links(sc->sb, pi);
	} else {
		ret = nova_log_walk(sc->sb, ino, head, tail, nova_scan_entry, sc);
		if (ret)
			goto out;
	}
	if (!sc->links && ino != NOVA_ROOT_INO) {
		/*
		 * Unlinked while still open at a crash: reclaim it, on a
		 * read-only mount too unless the device is read-only (as
		 * ext4 and the journals, super.c): a later remount
		 * read-write must not find it valid with its blocks free.
		 */
		if (nova_scan_may_write(sc->sb)) {
			pi->i_valid = NOVA_INODE_FREE;
			nova_persist(pi, sizeof(*pi));
		}
		sc->orphans++;
		goto out;
	}
	xa_for_each(&sc->pages, index, v) {
		unsigned long b = xa_to_value(v);

		/* a shared block: counted, marked used at the end */
		if (b & 1)
			ret = nova_share_scan_add(sc->sb, b >> 1);
		else
			ret = nova_mark_used(sc, (u64)(b >> 1) << NOVA_BLOCK_SHIFT,
					     NOVA_BLOCK_SIZE, "data", ino);
		if (ret)
			goto out;
		if (!(index & 1023))
			cond_resched();
	}
	ret = nova_scan_log_pages(sc, pi, ino);
	if (ret)
		goto out;
	/* (statfs' inodes: the root and the normal ones, as a snapshot's) */
	if (ino >= NOVA_NORMAL_INODE_START || ino == NOVA_ROOT_INO)
		sc->inodes++;
	if (ino >= NOVA_NORMAL_INODE_START)
		nova_inode_map_set(sc->sb, ino);
out:
	xa_destroy(&sc->pages);
	return ret;
}

static int nova_scan_inode_table(struct nova_scan *sc, unsigned int stripe)
{
	struct super_block *sb = sc->sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long per_block = sbi->layout.itable_block_size /
				  sizeof(struct nova_inode) - 1;
	u64 blk = le64_to_cpu(nova_inode_table(sb, stripe)->log_head);
	unsigned long index = 0;
	int ret;

	if (!blk) {
		nova_error(sb, "stripe %u has no inode table", stripe);
		return -EUCLEAN;
	}
	while (blk) {
		struct nova_inode *pi;
		unsigned long slot;
		__le64 *next;

		ret = nova_mark_used(sc, blk, sbi->layout.itable_block_size,
				     "inode table", 0);
		if (ret)
			return ret;
		ret = nova_inode_map_add_block(sb, stripe, blk);
		if (ret)
			return ret;
		pi = nova_get_block(sb, blk);
		for (slot = 0; slot < per_block; slot++, index++) {
			unsigned long ino = index * sbi->layout.stripes + stripe;

			if (ino < NOVA_NORMAL_INODE_START) {
				nova_inode_map_set(sb, ino);
				continue;
			}
			ret = nova_scan_inode(sc, &pi[slot], ino);
			if (ret)
				return ret;
		}
		next = nova_get_block(sb, blk + sbi->layout.itable_block_size -
				      sizeof(__le64));
		blk = le64_to_cpu(READ_ONCE(*next));
	}
	return 0;
}

static int nova_scan_journal(struct nova_scan *sc, unsigned int stripe)
{
	struct nova_sb_info *sbi = NOVA_SB(sc->sb);
	struct nova_journal_ptr *jp = nova_journal_ptr(sc->sb, stripe);
	u64 head = le64_to_cpu(jp->journal_head);
	u64 len = (u64)le32_to_cpu(sbi->s_super.s_journal_pages) <<
		  NOVA_BLOCK_SHIFT;

	return nova_mark_used(sc, head & ~(u64)(NOVA_BLOCK_SIZE - 1), len,
			      "journal", 0);
}

static void nova_scan_stripe_work(struct work_struct *work)
{
	struct nova_scan *sc = container_of(work, struct nova_scan, work);

	sc->ret = nova_scan_journal(sc, sc->stripe);
	if (!sc->ret)
		sc->ret = nova_scan_inode_table(sc, sc->stripe);
}

/* A stale snapshot (the unmount was not clean): forget it */
static void nova_drop_stale_snapshots(struct super_block *sb)
{
	unsigned long ino;

	if (sb_rdonly(sb))
		return;
	for (ino = NOVA_BLOCKNODE_INO; ino <= NOVA_INODELIST_INO; ino++) {
		struct nova_inode *pi = nova_reserved_inode(sb, ino);

		if (pi->i_valid || pi->log_head)
			nova_memset_persist(pi, 0, sizeof(*pi));
	}
}

/*
 * Crash recovery scan: rebuild the allocators and inode maps from the
 * image, one worker per stripe scanning its inode table in parallel (the
 * last stripe in the mounting thread itself), or, with the serial_scan
 * module parameter, one stripe after the other.
 * The journals must have been recovered (their pointers are validated
 * there).
 */
int nova_rebuild_allocator(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_scan main = { .sb = sb }, *scans;
	unsigned long ino, inodes, orphans, largest = 0;
	bool serial = READ_ONCE(serial_scan);
	unsigned int s;
	int ret;
	u64 t = nova_timer_start(), t0 = ktime_get_ns();

	main.used = vzalloc(BITS_TO_LONGS(sbi->layout.num_blocks) * sizeof(long));
	scans = kcalloc(sbi->layout.stripes, sizeof(*scans), GFP_KERNEL);
	if (!main.used || !scans) {
		ret = -ENOMEM;
		goto out;
	}
	nova_drop_stale_snapshots(sb);
	/* the workers stop when the mount is killed (nova_walk_killed()) */
	WRITE_ONCE(sbi->scan_task, current);
	for (ino = NOVA_ROOT_INO; ino < NOVA_NORMAL_INODE_START; ino++) {
		if (ino == NOVA_BLOCKNODE_INO || ino == NOVA_INODELIST_INO)
			continue;
		ret = nova_scan_inode(&main, nova_reserved_inode(sb, ino), ino);
		if (ret)
			goto out;
	}
	for (s = 0; s < sbi->layout.stripes; s++) {
		scans[s].sb = sb;
		scans[s].used = main.used;
		scans[s].stripe = s;
		INIT_WORK(&scans[s].work, nova_scan_stripe_work);
		/* parallel: the last stripe in this thread, the others in workers */
		if (serial || s == sbi->layout.stripes - 1)
			nova_scan_stripe_work(&scans[s].work);
		else
			queue_work(system_unbound_wq, &scans[s].work);
	}
	ret = 0;
	inodes = main.inodes;
	orphans = main.orphans;
	for (s = 0; s < sbi->layout.stripes; s++) {
		flush_work(&scans[s].work);
		if (scans[s].ret && !ret)
			ret = scans[s].ret;
		inodes += scans[s].inodes;
		orphans += scans[s].orphans;
		largest = max(largest, scans[s].inodes);
	}
	if (!ret)
		ret = nova_share_scan_finish(sb, main.used);
	if (ret)
		goto out;
	ret = nova_build_free_lists_from_bitmap(sb, main.used);
	atomic64_set(&sbi->inodes_used, inodes);
	if (orphans && !nova_scan_may_write(sb)) {
		/* free in DRAM, still valid in pmem: no remount read-write */
		sbi->orphans_left = orphans;
		pr_info("NOVA (%s): %lu unlinked inodes left for a writable device\n",
			sb->s_id, orphans);
	} else if (orphans) {
		pr_info("NOVA (%s): reclaimed %lu unlinked inodes\n", sb->s_id,
			orphans);
	}
	pr_info("NOVA (%s): recovery scan: %lu inodes, %u stripes (largest %lu), %s, %llu us\n",
		sb->s_id, inodes, sbi->layout.stripes, largest,
		serial ? "serial" : "parallel", div_u64(ktime_get_ns() - t0, 1000));
	nova_dbgv(sb, "rebuilt allocator: %lu inodes, %lu free blocks\n",
		  inodes, nova_count_free_blocks(sb));
	NOVA_TIMER_END(sbi, T_REBUILD, t);
out:
	WRITE_ONCE(sbi->scan_task, NULL);
	kfree(scans);
	vfree(main.used);
	return ret;
}

/* ---- clean unmount snapshot ---- */

struct nova_snap {
	struct super_block *sb;
	u64 head;
	unsigned long pages;	/* in the chain from head */
	u64 page;
	unsigned int slot;
	u64 records;
	u32 crc;
};

/* Allocate and link the pages for @records records plus the header */
static int nova_snap_begin(struct nova_snap *sn, u64 records)
{
	struct super_block *sb = sn->sb;
	unsigned long pages = NOVA_SNAPSHOT_PAGES(records), i;
	u64 prev = 0;

	for (i = 0; i < pages; i++) {
		unsigned long blk;
		struct nova_log_page_tail *pt;
		int ret = nova_new_blocks(sb, &blk, 1, -1, false);

		if (ret < 0) {
			nova_free_log(sb, sn->head, ULONG_MAX);
			sn->head = 0;
			return ret;
		}
		pt = nova_page_tail(sb, nova_block_off(blk));
		memset(pt, 0, sizeof(*pt));
		if (prev)
			nova_page_tail(sb, prev)->next_page =
				cpu_to_le64(nova_block_off(blk));
		else
			sn->head = nova_block_off(blk);
		prev = nova_block_off(blk);
	}
	sn->pages = pages;
	sn->page = sn->head;
	sn->slot = 1;		/* the header goes in slot 0 */
	sn->crc = ~0U;
	return 0;
}

static void nova_snap_put(struct nova_snap *sn, u64 low, u64 high)
{
	struct nova_range_node_lowhigh r = {
		.range_low = cpu_to_le64(low),
		.range_high = cpu_to_le64(high),
	};
	struct nova_log_page_tail *pt;

	if (!sn->page)
		return;
	if (sn->slot == NOVA_SNAPSHOT_PER_PAGE) {
		pt = nova_page_tail(sn->sb, sn->page);
		pt->num_entries = cpu_to_le32(sn->slot);
		sn->page = le64_to_cpu(pt->next_page);
		sn->slot = 0;
		if (!sn->page)
			return;
	}
	memcpy(nova_get_block(sn->sb, sn->page) + sn->slot * sizeof(r), &r,
	       sizeof(r));
	sn->crc = nova_crc32c_update(sn->crc, &r, sizeof(r));
	sn->slot++;
	sn->records++;
}

/* Write the header, make every page durable, return the chain */
static u64 nova_snap_end(struct nova_snap *sn)
{
	struct super_block *sb = sn->sb;
	struct nova_snapshot_header *h = nova_get_block(sb, sn->head);
	u64 page;

	if (sn->page)
		nova_page_tail(sb, sn->page)->num_entries = cpu_to_le32(sn->slot);
	h->magic = cpu_to_le32(NOVA_SNAPSHOT_MAGIC);
	h->csum = cpu_to_le32(~sn->crc);
	h->records = cpu_to_le64(sn->records);
	/* its pages may be more than its records fill (nova_format.h) */
	nova_page_tail(sb, sn->head)->pad = cpu_to_le64(sn->pages);
	for (page = sn->head; page;
	     page = le64_to_cpu(nova_page_tail(sb, page)->next_page))
		nova_flush(nova_get_block(sb, page), NOVA_BLOCK_SIZE);
	nova_fence();
	return sn->head;
}

static void nova_snap_set_inode(struct super_block *sb, unsigned long ino,
				u64 head)
{
	struct nova_inode *pi = nova_reserved_inode(sb, ino);

	memset(pi, 0, sizeof(*pi));
	pi->i_ino = cpu_to_le64(ino);
	pi->log_head = cpu_to_le64(head);
	pi->i_valid = head ? NOVA_INODE_VALID : NOVA_INODE_FREE;
	nova_persist(pi, sizeof(*pi));
}

/*
 * The in-use inode ranges, stripe by stripe (the stripe in the top 16
 * bits, the slot below): put into @sn, or only counted if @sn is NULL
 */
static u64 nova_snap_inode_ranges(struct nova_sb_info *sbi,
				  struct nova_snap *sn)
{
	u64 ranges = 0;
	unsigned int s;

	for (s = 0; s < sbi->layout.stripes; s++) {
		struct nova_inode_map *map = &sbi->inode_maps[s];
		unsigned long lo, hi = 0;

		for (lo = find_first_bit(map->inuse, map->capacity);
		     lo < map->capacity;
		     lo = find_next_bit(map->inuse, map->capacity, hi)) {
			hi = find_next_zero_bit(map->inuse, map->capacity, lo);
			if (sn)
				nova_snap_put(sn, (u64)s << 48 | lo,
					      (u64)s << 48 | (hi - 1));
			ranges++;
		}
	}
	return ranges;
}

/*
 * Clean unmount: save the in-use inode ranges and the free block ranges.
 * The caller then sets NOVA_STATE_CLEAN in the super block, the commit.
 */
int nova_save_snapshot(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap in = { .sb = sb }, bl = { .sb = sb };
	u64 block_ranges = 0;
	unsigned int s;
	int ret;

	ret = nova_snap_begin(&in, nova_snap_inode_ranges(sbi, NULL));
	if (ret)
		return ret;
	nova_snap_inode_ranges(sbi, &in);
	/* the block snapshot's own pages are allocated before counting */
	nova_settle_free_lists(sb);
	for (s = 0; s < sbi->layout.stripes; s++)
		block_ranges += sbi->free_lists[s].num_nodes;
	ret = nova_snap_begin(&bl, block_ranges + 1);
	if (ret) {
		nova_free_log(sb, in.head, ULONG_MAX);
		return ret;
	}
	for (s = 0; s < sbi->layout.stripes; s++) {
		struct nova_free_list *fl = &sbi->free_lists[s];
		struct rb_node *n;

		spin_lock(&fl->lock);
		for (n = rb_first(&fl->tree); n; n = rb_next(n)) {
			struct nova_range_node *rn =
				rb_entry(n, struct nova_range_node, node);

			nova_snap_put(&bl, rn->low, rn->high);
		}
		spin_unlock(&fl->lock);
	}
	nova_snap_set_inode(sb, NOVA_INODELIST_INO, nova_snap_end(&in));
	nova_snap_set_inode(sb, NOVA_BLOCKNODE_INO, nova_snap_end(&bl));
	/* a remount read-write frees them (nova_discard_snapshot()) */
	sbi->snap_pages[0] = bl.pages;
	sbi->snap_pages[1] = in.pages;
	return 0;
}

/*
 * The pages of the snapshot chain from @page with @records records, into
 * *@pages: as many as its first page says, each a valid page and the
 * last one ending the chain; or, in a snapshot without the count, the
 * pages its records fill (nova_format.h).  -EUCLEAN if it does not hold.
 */
static int nova_snap_chain(struct super_block *sb, u64 page, u64 records,
			   unsigned long *pages)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 n = le64_to_cpu(nova_page_tail(sb, page)->pad), i;

	if (!n) {
		*pages = NOVA_SNAPSHOT_PAGES(records);
		return 0;
	}
	if (n > sbi->layout.num_blocks || !NOVA_SNAPSHOT_PAGES_OK(records, n))
		return -EUCLEAN;
	for (i = 1; i < n; i++) {
		page = le64_to_cpu(nova_page_tail(sb, page)->next_page);
		if (!nova_range_valid(sbi, page, NOVA_BLOCK_SIZE) ||
		    page & (NOVA_BLOCK_SIZE - 1))
			return -EUCLEAN;
	}
	if (nova_page_tail(sb, page)->next_page)
		return -EUCLEAN;
	*pages = n;
	return 0;
}

/* Read and check one snapshot; @fn(sb, low, high) takes each range */
static int nova_snap_load(struct super_block *sb, unsigned long ino,
			  int (*fn)(struct super_block *sb, u64 low, u64 high))
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi = nova_reserved_inode(sb, ino);
	u64 page = le64_to_cpu(pi->log_head), records, seen = 0;
	struct nova_snapshot_header h;
	unsigned long pages;
	unsigned int slot = 1;
	u32 crc = ~0U;
	int pass, ret;

	if (pi->i_valid != NOVA_INODE_VALID || !nova_range_valid(sbi, page, NOVA_BLOCK_SIZE) ||
	    page & (NOVA_BLOCK_SIZE - 1))
		return -EUCLEAN;
	memcpy(&h, nova_get_block(sb, page), sizeof(h));
	records = le64_to_cpu(h.records);
	if (le32_to_cpu(h.magic) != NOVA_SNAPSHOT_MAGIC ||
	    records > sbi->layout.num_blocks)
		return -EUCLEAN;
	ret = nova_snap_chain(sb, page, records, &pages);
	if (ret)
		return ret;
	/* pass 0 checks the checksum and bounds, pass 1 applies */
	for (pass = 0; pass < 2; pass++) {
		u64 p = page;

		slot = 1;
		seen = 0;
		sbi->snap_prev = 0;
		while (seen < records) {
			struct nova_range_node_lowhigh *r;

			if (slot == NOVA_SNAPSHOT_PER_PAGE) {
				p = le64_to_cpu(nova_page_tail(sb, p)->next_page);
				slot = 0;
				if (!nova_range_valid(sbi, p, NOVA_BLOCK_SIZE) ||
				    p & (NOVA_BLOCK_SIZE - 1))
					return -EUCLEAN;
			}
			r = nova_get_block(sb, p) + slot * sizeof(*r);
			if (pass == 0) {
				crc = nova_crc32c_update(crc, r, sizeof(*r));
			} else {
				ret = fn(sb, le64_to_cpu(r->range_low),
					 le64_to_cpu(r->range_high));
				if (ret)
					return ret;
			}
			slot++;
			seen++;
		}
		if (pass == 0 && ~crc != le32_to_cpu(h.csum))
			return -EUCLEAN;
	}
	/* only these pages may be freed when the snapshot is discarded */
	sbi->snap_pages[ino - NOVA_BLOCKNODE_INO] = pages;
	return 0;
}

static int nova_snap_free_range(struct super_block *sb, u64 low, u64 high)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_free_list *fl;

	if (low > high || low < nova_data_start() || high > nova_data_end(sbi))
		return -EUCLEAN;
	fl = &sbi->free_lists[nova_stripe_of_block(sbi, low)];
	if (high > fl->block_end)
		return -EUCLEAN;
	return nova_insert_free_range(sb, fl, low, high);
}

static int nova_snap_inode_range(struct super_block *sb, u64 low, u64 high)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int s = low >> 48;
	struct nova_inode_map *map;
	u64 i;

	low &= (1ULL << 48) - 1;
	high &= (1ULL << 48) - 1;
	if (s >= sbi->layout.stripes || low > high)
		return -EUCLEAN;
	/* saved stripe by stripe in ascending order: no overlap, no repeat */
	if (sbi->snap_prev && ((u64)s << 48 | low) <= sbi->snap_prev)
		return -EUCLEAN;
	sbi->snap_prev = (u64)s << 48 | high;
	map = &sbi->inode_maps[s];
	if (high >= map->capacity)
		return -EUCLEAN;
	for (i = low; i <= high; i++)
		nova_inode_map_set(sb, i * sbi->layout.stripes + s);
	return 0;
}

/* Give a snapshot's pages back and clear its inode */
static void nova_snap_discard(struct super_block *sb, unsigned long ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi = nova_reserved_inode(sb, ino);
	unsigned long *n = &sbi->snap_pages[ino - NOVA_BLOCKNODE_INO];
	u64 page = le64_to_cpu(pi->log_head);

	/*
	 * Free only the pages that nova_snap_load() checked: a damaged
	 * chain must not hand live blocks to the allocator.  A snapshot
	 * that was not loaded (a scan rebuilt the allocator without its
	 * pages) is only cleared.
	 */
	while (page && *n) {
		u64 next = le64_to_cpu(nova_page_tail(sb, page)->next_page);

		nova_free_blocks(sb, page >> NOVA_BLOCK_SHIFT, 1);
		(*n)--;
		page = next;
	}
	*n = 0;
	nova_snap_set_inode(sb, ino, 0);
}

/* Remount read-write: the snapshot stops being valid */
void nova_discard_snapshot(struct super_block *sb)
{
	nova_snap_discard(sb, NOVA_BLOCKNODE_INO);
	nova_snap_discard(sb, NOVA_INODELIST_INO);
}

/* The inode table chains (their blocks are in use in the snapshot) */
static int nova_load_inode_tables(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int s;
	int ret;

	for (s = 0; s < sbi->layout.stripes; s++) {
		u64 blk = le64_to_cpu(nova_inode_table(sb, s)->log_head);
		u64 turtle = 0;
		unsigned long power = 1, lam = 0;

		while (blk) {
			/* Brent's cycle detection: a loop is damage */
			if (!nova_range_valid(sbi, blk, sbi->layout.itable_block_size) ||
			    blk & (NOVA_BLOCK_SIZE - 1) || blk == turtle)
				return -EUCLEAN;
			if (lam == power) {
				turtle = blk;
				power <<= 1;
				lam = 0;
			}
			lam++;
			ret = nova_inode_map_add_block(sb, s, blk);
			if (ret)
				return ret;
			blk = le64_to_cpu(*(__le64 *)nova_get_block(sb, blk +
					sbi->layout.itable_block_size - sizeof(__le64)));
		}
		if (!sbi->inode_maps[s].nblocks)
			return -EUCLEAN;
	}
	for (s = 0; s < NOVA_NORMAL_INODE_START; s++)
		nova_inode_map_set(sb, s);
	return 0;
}

/* Claim blocks [blk, blk + n) of a fixed structure (balloc.c) */
static int nova_snap_claim(struct super_block *sb, u64 blk, unsigned long n,
			   const char *what)
{
	int ret = nova_claim_blocks(sb, blk, n);

	if (ret)
		pr_warn("NOVA (%s): %s block %llu is %s\n", sb->s_id, what, blk,
			ret == -ENOENT ? "free in the snapshot" : "used twice");
	return ret ? -EUCLEAN : 0;
}

/*
 * The fixed metadata are claimed before any inode is read: the inode
 * table blocks, the journal pages and the snapshots' own pages (kept
 * on a read-only mount, freed - released - on a read-write one).  A
 * block of them that the snapshot calls free, or that two of them
 * share, makes the snapshot unusable: the caller scans.
 */
static int nova_snap_claim_metadata(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long per = sbi->layout.itable_block_size >> NOVA_BLOCK_SHIFT, i;
	unsigned long jpages = le32_to_cpu(sbi->s_super.s_journal_pages);
	unsigned int s;
	int ret;

	for (s = 0; s < sbi->layout.stripes; s++) {
		struct nova_inode_map *map = &sbi->inode_maps[s];
		u64 j = le64_to_cpu(nova_journal_ptr(sb, s)->journal_head);

		for (i = 0; i < map->nblocks; i++) {
			ret = nova_snap_claim(sb, map->blocks[i] >> NOVA_BLOCK_SHIFT,
					      per, "inode table");
			if (ret)
				return ret;
		}
		/* the journal pointers were checked by the journal recovery */
		if (!nova_range_valid(sbi, j & ~(u64)(NOVA_BLOCK_SIZE - 1),
				      (u64)jpages << NOVA_BLOCK_SHIFT))
			return -EUCLEAN;
		ret = nova_snap_claim(sb, j >> NOVA_BLOCK_SHIFT, jpages, "journal");
		if (ret)
			return ret;
	}
	for (s = 0; s < 2; s++) {
		struct nova_inode *pi = nova_reserved_inode(sb, NOVA_BLOCKNODE_INO + s);
		u64 page = le64_to_cpu(pi->log_head);

		/* the pages nova_snap_load() checked */
		for (i = 0; i < sbi->snap_pages[s] && page; i++) {
			ret = nova_snap_claim(sb, page >> NOVA_BLOCK_SHIFT, 1,
					      "snapshot");
			if (ret)
				return ret;
			page = le64_to_cpu(nova_page_tail(sb, page)->next_page);
		}
	}
	return 0;
}

/*
 * A snapshot that cannot be used leaves nothing of what its load set up:
 * the scan starts as after a crash.  No claim bitmap (a scan needs
 * none), no free range (the scan refuses a log page that the free trees
 * hold, log.c nova_log_check_chain(): one the refused snapshot called
 * free would fail the mount), empty inode maps, no loaded pages.
 * Returns -ENOMEM if the inode maps cannot be had again.
 */
static int nova_snap_forget(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	nova_claim_destroy(sb);
	nova_clear_free_lists(sb);
	sbi->snap_pages[0] = 0;
	sbi->snap_pages[1] = 0;
	sbi->snap_prev = 0;
	nova_free_inode_maps(sb);
	return nova_alloc_inode_maps(sb);
}

/*
 * Mount after a clean unmount: restore the allocators and inode maps from
 * the snapshot, claim the fixed metadata in a new claim bitmap (inodes
 * claim their blocks when they are read: balloc.c), then (read-write)
 * free the snapshot's pages and clear it, so that a later crash cannot
 * use it.  Returns -EUCLEAN if it cannot be used, with the allocators
 * and inode maps empty again: the caller then scans.  -ENOMEM if not
 * even that is possible.
 */
int nova_restore_snapshot(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long used = 0;
	unsigned int s;
	int ret;

	ret = nova_claim_init(sb);
	if (!ret)
		ret = nova_load_inode_tables(sb);
	if (!ret)
		ret = nova_snap_load(sb, NOVA_BLOCKNODE_INO, nova_snap_free_range);
	if (!ret)
		ret = nova_snap_load(sb, NOVA_INODELIST_INO, nova_snap_inode_range);
	if (!ret)
		ret = nova_snap_claim_metadata(sb);
	if (ret)
		return nova_snap_forget(sb) ?: -EUCLEAN;
	for (s = 0; s < sbi->layout.stripes; s++)
		used += sbi->inode_maps[s].used;
	atomic64_set(&sbi->inodes_used, used - NOVA_NORMAL_INODE_START + 1);
	if (!sb_rdonly(sb)) {
		nova_snap_discard(sb, NOVA_BLOCKNODE_INO);
		nova_snap_discard(sb, NOVA_INODELIST_INO);
	}
	return 0;
}
