// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA symbolic links.  The target (up to 4095 bytes) is stored,
 * NUL-terminated, in one data block described by a NOVA_FILE_WRITE entry
 * for page 0 of the link's log; a DRAM copy serves readlink.
 */
#include <linux/slab.h>
#include "nova.h"

/*
 * Write @target to a new data block (durable before the entry that points
 * at it is appended) and append the write entry at the working tail.
 */
int nova_symlink_write(struct inode *inode, const char *target, size_t len,
		       u64 *tail)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_file_write_entry e = { .entry_type = NOVA_FILE_WRITE };
	unsigned long blk;
	char *copy;
	void *addr;
	int ret;

	copy = kmemdup_nul(target, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	/* the block counts in i_blocks and in its owner's quota */
	ret = nova_quota_charge(inode, 1);
	if (ret)
		goto out_free;
	ret = nova_in_reserve(sb, 1) ? -ENOSPC :
	      nova_new_blocks(sb, &blk, 1, -1, false);
	if (ret < 0)
		goto out_uncharge;
	addr = nova_get_block(sb, nova_block_off(blk));
	nova_memcpy_nt(addr, copy, len + 1);
	nova_fence();

	e.num_pages = cpu_to_le32(1);
	e.block = cpu_to_le64(nova_block_off(blk));
	e.pgoff = 0;
	e.mtime = cpu_to_le64(nova_ts_to_ns(nova_get_mtime(inode)));
	e.size = cpu_to_le64(len);
	e.trans_id = cpu_to_le64(sih->trans_id++);
	nova_entry_csum(&e, sizeof(e));
	ret = nova_log_append(sb, inode, &e, sizeof(e), tail, NULL);
	if (ret) {
		nova_free_blocks(sb, blk, 1);
		goto out_uncharge;
	}
	sih->symlink_block = nova_block_off(blk);
	inode->i_size = len;
	/* an encrypted target is decrypted on each read (crypto.c) */
	if (IS_ENCRYPTED(inode))
		kfree(copy);
	else
		inode->i_link = copy;
	return 0;
out_uncharge:
	nova_quota_release(inode, 1);
out_free:
	kfree(copy);
	return ret;
}

/* After the log replay: load the target into DRAM */
int nova_symlink_read(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	size_t len = inode->i_size;
	char *buf;

	if (!sih->symlink_block || !len || len >= NOVA_BLOCK_SIZE) {
		nova_error(sb, "symlink %llu has no valid target", nova_ino(inode));
		return -EUCLEAN;
	}
	/* an encrypted target (binary) is read and decrypted by get_link */
	if (IS_ENCRYPTED(inode))
		return 0;
	buf = kmalloc(len + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (nova_read_pmem(buf, nova_get_block(sb, sih->symlink_block), len)) {
		kfree(buf);
		nova_error(sb, "symlink %llu: media error", nova_ino(inode));
		return -EIO;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		kfree(buf);
		nova_error(sb, "symlink %llu: target length mismatch", nova_ino(inode));
		return -EUCLEAN;
	}
	inode->i_link = buf;
	return 0;
}

const struct inode_operations nova_symlink_inode_operations = {
	.get_link	= simple_get_link,
	.getattr	= nova_getattr,
	.setattr	= nova_setattr,
	.listxattr	= nova_listxattr,
};
