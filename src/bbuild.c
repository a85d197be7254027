// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: rebuilding the allocators at mount.
 *
 * Every block of the dynamic area that is reachable from the super block
 * is marked in a bitmap of used blocks: the per-stripe inode table
 * chains, the lite journal pages, and the log pages of every valid inode.
 * The free trees are then built from the gaps.  Every pointer read from
 * pmem is validated before it is followed, and a block reached twice
 * (a loop or a cross-link) makes the image corrupt (-EUCLEAN).
 */
#include <linux/vmalloc.h>
#include <linux/bitmap.h>
#include "nova.h"

struct nova_scan {
	struct super_block *sb;
	unsigned long *used;
	unsigned long inodes;
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

static int nova_scan_log(struct nova_scan *sc, struct nova_inode *pi,
			 unsigned long ino)
{
	u64 page = le64_to_cpu(pi->log_head);
	u64 tail = le64_to_cpu(pi->log_tail);
	bool tail_seen = !page && !tail;
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

static int nova_scan_inode(struct nova_scan *sc, struct nova_inode *pi,
			   unsigned long ino)
{
	if (pi->i_valid != NOVA_INODE_VALID)
		return 0;
	if (le64_to_cpu(pi->i_ino) != ino) {
		nova_error(sc->sb, "inode slot %lu holds inode number %llu",
			   ino, le64_to_cpu(pi->i_ino));
		return -EUCLEAN;
	}
	sc->inodes++;
	return nova_scan_log(sc, pi, ino);
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
		pi = nova_get_block(sb, blk);
		for (slot = 0; slot < per_block; slot++, index++) {
			unsigned long ino = index * sbi->stripes + stripe;

			if (ino < NOVA_NORMAL_INODE_START)
				continue;
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
	u64 tail = le64_to_cpu(jp->journal_tail);
	u64 base = head & ~(u64)(NOVA_BLOCK_SIZE - 1);
	u64 len = (u64)le32_to_cpu(sbi->s_super.s_journal_pages) <<
		  NOVA_BLOCK_SHIFT;

	if (!head || tail < base || tail >= base + len) {
		nova_error(sc->sb, "stripe %u: bad journal pointers 0x%llx/0x%llx",
			   stripe, head, tail);
		return -EUCLEAN;
	}
	return nova_mark_used(sc, base, len, "journal", 0);
}

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
	nova_dbgv("rebuilt allocator: %lu inodes, %lu free blocks\n",
		  sc.inodes, nova_count_free_blocks(sb));
out:
	vfree(sc.used);
	return ret;
}
