// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA file handles (NFS export, open_by_handle_at(), overlayfs index):
 * the generic inode number + generation handles.  A handle of a freed
 * inode, or of one whose slot was reused (another generation), is stale.
 */
#include <linux/exportfs.h>
#include "nova.h"

static struct inode *nova_nfs_get_inode(struct super_block *sb, u64 ino,
					u32 generation)
{
	struct inode *inode;

	/* the other reserved numbers are no files */
	if (ino != NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START)
		return ERR_PTR(-ESTALE);
	if (ino > ULONG_MAX)
		return ERR_PTR(-ESTALE);
	inode = nova_iget_flags(sb, ino, NOVA_IGET_HANDLE);
	if (IS_ERR(inode))
		return ERR_CAST(inode);
	if (generation && inode->i_generation != generation) {
		iput(inode);
		return ERR_PTR(-ESTALE);
	}
	return inode;
}

static struct dentry *nova_fh_to_dentry(struct super_block *sb, struct fid *fid,
					int fh_len, int fh_type)
{
	return generic_fh_to_dentry(sb, fid, fh_len, fh_type, nova_nfs_get_inode);
}

static struct dentry *nova_fh_to_parent(struct super_block *sb, struct fid *fid,
					int fh_len, int fh_type)
{
	return generic_fh_to_parent(sb, fid, fh_len, fh_type, nova_nfs_get_inode);
}

/* A directory's ".." is in its DRAM state (mkdir, rename, replay) */
static struct dentry *nova_get_parent(struct dentry *child)
{
	struct inode *dir = d_inode(child);
	u64 parent = dir->i_ino == NOVA_ROOT_INO ? NOVA_ROOT_INO :
		     NOVA_I(dir)->header.parent_ino;

	if (!parent)
		return ERR_PTR(-ENOENT);
	return d_obtain_alias(nova_iget(dir->i_sb, parent));
}

const struct export_operations nova_export_ops = {
	.encode_fh	= NOVA_ENCODE_FH,
	.fh_to_dentry	= nova_fh_to_dentry,
	.fh_to_parent	= nova_fh_to_parent,
	.get_parent	= nova_get_parent,
};
