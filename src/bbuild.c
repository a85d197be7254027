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
#include <linux/vmalloc.h>
#include <linux/bitmap.h>
#include "nova.h"

struct nova_scan {
	struct super_block *sb;
	unsigned long *used;
	unsigned long inodes;
	unsigned long orphans;
	/* per inode, filled by the entry walk */
	unsigned long ino;
	u32 links;
	struct xarray pages;		/* live page -> block number */
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
		if (__test_and_set_bit(b, sc->used)) {
			nova_error(sc->sb, "inode %lu: %s block %lu is used twice",
				   ino, what, b);
			return -EUCLEAN;
		}
	}
	return 0;
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
	unsigned long index;
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
		pg = DIV_ROUND_UP(le64_to_cpu(sa->size), NOVA_BLOCK_SIZE);
		xa_for_each_start(&sc->pages, index, old, pg)
			xa_erase(&sc->pages, index);
		break;
	case NOVA_FILE_WRITE:
		if (nova_entry_is_invalid(entry))
			break;	/* every page superseded */
		pg = le64_to_cpu(e->pgoff);
		n = le32_to_cpu(e->num_pages);
		blk = le64_to_cpu(e->block);
		if (!n || pg + n < pg || pg + n > ULONG_MAX / 2 ||
		    (blk && (blk & (NOVA_BLOCK_SIZE - 1) ||
			     !nova_range_valid(NOVA_SB(sb), blk, n << NOVA_BLOCK_SHIFT)))) {
			nova_error(sb, "inode %lu: bad write entry at 0x%llx",
				   sc->ino, off);
			return -EUCLEAN;
		}
		if (!blk) {
			xa_for_each_range(&sc->pages, index, old, pg, pg + n - 1)
				xa_erase(&sc->pages, index);
			break;
		}
		blk >>= NOVA_BLOCK_SHIFT;
		for (i = 0; i < n; i++) {
			old = xa_store(&sc->pages, pg + i, xa_mk_value(blk + i),
				       GFP_KERNEL);
			if (xa_is_err(old))
				return xa_err(old);
		}
		break;
	}
	return 0;
}

static int nova_scan_inode(struct nova_scan *sc, struct nova_inode *pi,
			   unsigned long ino)
{
	u64 head = le64_to_cpu(pi->log_head), tail = le64_to_cpu(pi->log_tail);
	unsigned long index;
	void *v;
	int ret;

	if (pi->i_valid != NOVA_INODE_VALID)
		return 0;
	if (le64_to_cpu(pi->i_ino) != ino) {
		nova_error(sc->sb, "inode slot %lu holds inode number %llu",
			   ino, le64_to_cpu(pi->i_ino));
		return -EUCLEAN;
	}
	sc->ino = ino;
	sc->links = le32_to_cpu(pi->i_links_count);
	xa_init(&sc->pages);
	ret = nova_log_walk(sc->sb, ino, head, tail, nova_scan_entry, sc);
	if (ret)
		goto out;
	if (!sc->links && ino != NOVA_ROOT_INO) {
		/* unlinked while still open at a crash: reclaim it */
		pi->i_valid = NOVA_INODE_FREE;
		nova_persist(pi, sizeof(*pi));
		sc->orphans++;
		goto out;
	}
	xa_for_each(&sc->pages, index, v) {
		ret = nova_mark_used(sc, (u64)xa_to_value(v) << NOVA_BLOCK_SHIFT,
				     NOVA_BLOCK_SIZE, "data", ino);
		if (ret)
			goto out;
	}
	ret = nova_scan_log_pages(sc, pi, ino);
	if (ret)
		goto out;
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
	unsigned long per_block = sbi->itable_block_size /
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

		ret = nova_mark_used(sc, blk, sbi->itable_block_size,
				     "inode table", 0);
		if (ret)
			return ret;
		ret = nova_inode_map_add_block(sb, stripe, blk);
		if (ret)
			return ret;
		pi = nova_get_block(sb, blk);
		for (slot = 0; slot < per_block; slot++, index++) {
			unsigned long ino = index * sbi->stripes + stripe;

			if (ino < NOVA_NORMAL_INODE_START) {
				nova_inode_map_set(sb, ino);
				continue;
			}
			ret = nova_scan_inode(sc, &pi[slot], ino);
			if (ret)
				return ret;
		}
		next = nova_get_block(sb, blk + sbi->itable_block_size -
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

/*
 * Rebuild the allocators and inode maps from the image.  The journals
 * must have been recovered (their pointers are validated there).
 */
int nova_rebuild_allocator(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_scan sc = { .sb = sb };
	unsigned long ino;
	unsigned int s;
	int ret;

	sc.used = vzalloc(BITS_TO_LONGS(sbi->num_blocks) * sizeof(long));
	if (!sc.used)
		return -ENOMEM;

	for (ino = NOVA_ROOT_INO; ino < NOVA_NORMAL_INODE_START; ino++) {
		ret = nova_scan_inode(&sc, nova_reserved_inode(sb, ino), ino);
		if (ret)
			goto out;
	}
	for (s = 0; s < sbi->stripes; s++) {
		ret = nova_scan_journal(&sc, s);
		if (ret)
			goto out;
		ret = nova_scan_inode_table(&sc, s);
		if (ret)
			goto out;
	}
	ret = nova_build_free_lists_from_bitmap(sb, sc.used);
	atomic64_set(&sbi->inodes_used, sc.inodes);
	if (sc.orphans)
		pr_info("NOVA (%s): reclaimed %lu unlinked inodes\n", sb->s_id,
			sc.orphans);
	nova_dbgv("rebuilt allocator: %lu inodes, %lu free blocks\n",
		  sc.inodes, nova_count_free_blocks(sb));
out:
	vfree(sc.used);
	return ret;
}
