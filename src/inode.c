// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA inodes: the VFS inode cache, reading inodes from pmem, and the
 * root inode that format creates.
 */
#include <linux/slab.h>
#include <linux/cred.h>
#include "nova.h"

static struct kmem_cache *nova_inode_cachep;

static void nova_inode_init_once(void *p)
{
	struct nova_inode_info *vi = p;

	inode_init_once(&vi->vfs_inode);
}

int __init nova_init_inode_cache(void)
{
	nova_inode_cachep = kmem_cache_create("nova_inode_cache",
					      sizeof(struct nova_inode_info), 0,
					      SLAB_RECLAIM_ACCOUNT | SLAB_MEM_SPREAD |
					      SLAB_ACCOUNT,
					      nova_inode_init_once);
	return nova_inode_cachep ? 0 : -ENOMEM;
}

void nova_destroy_inode_cache(void)
{
	/* free_inode callbacks may still be pending */
	rcu_barrier();
	kmem_cache_destroy(nova_inode_cachep);
}

struct inode *nova_alloc_inode(struct super_block *sb)
{
	struct nova_inode_info *vi;

	vi = alloc_inode_sb(sb, nova_inode_cachep, GFP_NOFS);
	if (!vi)
		return NULL;
	memset(&vi->header, 0, sizeof(vi->header));
	return &vi->vfs_inode;
}

void nova_free_inode(struct inode *inode)
{
	kmem_cache_free(nova_inode_cachep, NOVA_I(inode));
}

/* Where the pmem inode of @ino lives, or 0 if @ino is out of range */
static u64 nova_inode_off(struct super_block *sb, unsigned long ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long per_block, index, stripe;
	u64 blk;

	if (ino < NOVA_NORMAL_INODE_START)
		return nova_block_off(NOVA_RESERVED_INODE_BLOCK) +
		       ino * sizeof(struct nova_inode);

	per_block = sbi->itable_block_size / sizeof(struct nova_inode) - 1;
	stripe = ino % sbi->stripes;
	index = ino / sbi->stripes;
	blk = le64_to_cpu(nova_inode_table(sb, stripe)->log_head);
	while (blk && index >= per_block) {
		__le64 *next;

		if (!nova_range_valid(sbi, blk, sbi->itable_block_size))
			return 0;
		next = nova_get_block(sb, blk + sbi->itable_block_size -
				      sizeof(__le64));
		blk = le64_to_cpu(READ_ONCE(*next));
		index -= per_block;
	}
	if (!blk || !nova_range_valid(sbi, blk, sbi->itable_block_size))
		return 0;
	return blk + index * sizeof(struct nova_inode);
}

static int nova_read_inode(struct super_block *sb, struct inode *inode,
			   u64 pi_off)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_inode pi;
	int ret;

	ret = nova_read_pmem(&pi, nova_get_block(sb, pi_off), sizeof(pi));
	if (ret) {
		nova_error(sb, "inode %lu: media error reading the inode",
			   inode->i_ino);
		return ret;
	}
	if (pi.i_valid != NOVA_INODE_VALID || le64_to_cpu(pi.i_ino) != inode->i_ino)
		return -ESTALE;

	inode->i_mode = le16_to_cpu(pi.i_mode);
	i_uid_write(inode, le32_to_cpu(pi.i_uid));
	i_gid_write(inode, le32_to_cpu(pi.i_gid));
	set_nlink(inode, le32_to_cpu(pi.i_links_count));
	inode->i_size = le64_to_cpu(pi.i_size);
	inode->i_atime = nova_ns_to_ts(le64_to_cpu(pi.i_atime));
	inode->i_mtime = nova_ns_to_ts(le64_to_cpu(pi.i_mtime));
	inode->i_ctime = nova_ns_to_ts(le64_to_cpu(pi.i_ctime));
	inode->i_generation = le32_to_cpu(pi.i_generation);
	inode->i_blocks = 0;

	sih->pi_addr = pi_off;
	sih->log_head = le64_to_cpu(pi.log_head);
	sih->log_tail = le64_to_cpu(pi.log_tail);
	sih->ino = inode->i_ino;

	switch (inode->i_mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &nova_dir_inode_operations;
		inode->i_fop = &nova_dir_operations;
		break;
	default:
		nova_error(sb, "inode %lu: unsupported mode 0%o",
			   inode->i_ino, inode->i_mode);
		return -EUCLEAN;
	}
	return 0;
}

struct inode *nova_iget(struct super_block *sb, unsigned long ino)
{
	struct inode *inode;
	u64 pi_off;
	int ret;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;

	pi_off = nova_inode_off(sb, ino);
	if (!pi_off) {
		ret = -ESTALE;
		goto fail;
	}
	ret = nova_read_inode(sb, inode, pi_off);
	if (ret)
		goto fail;
	unlock_new_inode(inode);
	return inode;
fail:
	iget_failed(inode);
	return ERR_PTR(ret);
}

/* Write the root inode of a new file system (format time, durable) */
void nova_init_root_inode(struct super_block *sb, umode_t mode, kuid_t uid,
			  kgid_t gid)
{
	struct nova_inode *pi = nova_reserved_inode(sb, NOVA_ROOT_INO);
	s64 now = nova_now_ns();

	memset(pi, 0, sizeof(*pi));
	pi->i_mode = cpu_to_le16(S_IFDIR | (mode & 07777));
	pi->i_uid = cpu_to_le32(from_kuid(&init_user_ns, uid));
	pi->i_gid = cpu_to_le32(from_kgid(&init_user_ns, gid));
	pi->i_links_count = cpu_to_le32(2);
	pi->i_size = cpu_to_le64(NOVA_BLOCK_SIZE);
	pi->i_atime = cpu_to_le64(now);
	pi->i_mtime = cpu_to_le64(now);
	pi->i_ctime = cpu_to_le64(now);
	pi->i_btime = cpu_to_le64(now);
	pi->i_ino = cpu_to_le64(NOVA_ROOT_INO);
	pi->i_valid = NOVA_INODE_VALID;
	nova_persist(pi, sizeof(*pi));
}

int nova_getattr(struct user_namespace *mnt_userns, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);

	generic_fillattr(mnt_userns, inode, stat);
	stat->blksize = NOVA_BLOCK_SIZE;
	return 0;
}

/*
 * Attribute changes are log entries (NOVA_SET_ATTR); until the log write
 * path exists, refuse them rather than change only the DRAM inode.
 */
int nova_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		 struct iattr *attr)
{
	return -EOPNOTSUPP;
}
