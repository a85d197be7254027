// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA disk quotas: user and group quotas of the VFS quota subsystem in
 * its quota_v2 format, kept in quota files that are ordinary NOVA files
 * (aquota.user and aquota.group, made by quotacheck and turned on by
 * quotaon), as ext2 and ext4 without the quota feature do.
 *
 * Space is counted in whole 4 KiB blocks, exactly as st_blocks: a file's
 * mapped data pages, a symlink's block and a directory's log pages (its
 * entries: ext4 counts a directory's blocks).  The logs of other inodes
 * are metadata and count as nothing, as in st_blocks.  The dquot calls
 * keep i_blocks: whatever maps new pages charges them before its commit
 * (EDQUOT then stops it with nothing committed), and nova_index_set(),
 * where the mapped page count changes, settles the charge with the pages
 * it really mapped and releases the pages that stopped being mapped.
 * Only a log replay sets i_blocks directly, from the replayed index.
 *
 * As with ext2, the usage in the quota files is only as current as the
 * last dquot write-back (sync, quotaoff, unmount): after a power cut,
 * quotacheck recounts it.
 *
 * The quota files are read and written like any NOVA file, through the
 * read and the copy-on-write paths (nova_kernel_read() and
 * nova_kernel_write()).  The quota code writes different dquots of one
 * file at once and holds its own locks (dq_lock, dqio_sem) while it
 * does, and a dquot is written back while the inode lock of the file
 * whose owner changes is held: the quota file's inode lock would invert
 * that order, so the writes are serialized by sbi->quota_write_lock
 * instead (as ext2 and ext4 do not take it either; nobody else may
 * write a quota file in use).
 */
#include <linux/quotaops.h>
#include <linux/namei.h>
#include "nova.h"

nova_dquot_ptr_t *nova_get_dquots(struct inode *inode)
{
	return NOVA_I(inode)->i_dquot;
}

ssize_t nova_quota_read(struct super_block *sb, int type, char *data,
			size_t len, loff_t off)
{
	return nova_kernel_read(sb_dqopt(sb)->files[type], data, len, off);
}

ssize_t nova_quota_write(struct super_block *sb, int type,
			 const char *data, size_t len, loff_t off)
{
	struct inode *inode = sb_dqopt(sb)->files[type];
	ssize_t ret;

	mutex_lock(&NOVA_SB(sb)->quota_write_lock);
	ret = nova_kernel_write(inode, data, len, off);
	mutex_unlock(&NOVA_SB(sb)->quota_write_lock);
	if (ret >= 0 && ret < len)
		ret = -ENOSPC;
	if (ret < 0)
		pr_warn("NOVA (%s): cannot write the quota file of type %d (%zd)\n",
			sb->s_id, type, ret);
	return ret;
}

static int nova_quota_on(struct super_block *sb, int type, int format_id,
			 const struct path *path)
{
	/* the quota file must be on this file system */
	if (path->dentry->d_sb != sb)
		return -EXDEV;
	return dquot_quota_on(sb, type, format_id, path);
}

static const struct quotactl_ops nova_quotactl_ops = {
	.quota_on	= nova_quota_on,
	.quota_off	= dquot_quota_off,
	.quota_sync	= dquot_quota_sync,
	.get_state	= dquot_get_state,
	.set_info	= dquot_set_dqinfo,
	.get_dqblk	= dquot_get_dqblk,
	.set_dqblk	= dquot_set_dqblk,
	.get_nextdqblk	= dquot_get_next_dqblk,
};

/*
 * A change of owner was transferred in the quota (dquot_transfer()) but
 * not committed: the usage goes back to @uid and @gid.
 */
void nova_quota_transfer_back(struct inode *inode, kuid_t uid, kgid_t gid)
{
	struct iattr ia = {
		.ia_valid = ATTR_UID | ATTR_GID,
		.ia_vfsuid = VFSUIDT_INIT(uid),
		.ia_vfsgid = VFSGIDT_INIT(gid),
	};

	if (dquot_transfer(nova_nop_idmap, inode, &ia))
		pr_warn("NOVA (%s): inode %llu: quota usage not given back to its owner\n",
			inode->i_sb->s_id, nova_ino(inode));
}

/* Quotas of a new super block (nova_fill_super()) */
void nova_quota_setup(struct super_block *sb)
{
	mutex_init(&NOVA_SB(sb)->quota_write_lock);
	sb->dq_op = &dquot_operations;
	sb->s_qcop = &nova_quotactl_ops;
	sb->s_quota_types = QTYPE_MASK_USR | QTYPE_MASK_GRP;
}

/* Unmount: write back and close the quota files before the last state */
void nova_quota_off_umount(struct super_block *sb)
{
	int type;

	for (type = 0; type < MAXQUOTAS; type++)
		dquot_quota_off(sb, type);
}

/*
 * Charge @n new blocks of @inode before they are committed: -EDQUOT
 * when over a hard limit.  Settled by nova_index_set() and
 * nova_quota_release().
 */
int nova_quota_charge(struct inode *inode, unsigned long n)
{
	return n ? dquot_alloc_block_nodirty(inode, n) : 0;
}

/* Give back @n charged blocks (not mapped after all, or freed) */
void nova_quota_release(struct inode *inode, unsigned long n)
{
	if (n)
		dquot_free_block_nodirty(inode, n);
}

/*
 * A directory's log grew (@delta > 0) or shrank by @delta pages (log.c,
 * gc.c); other inodes' logs are not counted.  A growth that may fail
 * (@may_fail: not a removal, which must go through on a full quota as on
 * a full device) gives -EDQUOT over a hard limit.
 */
int nova_quota_log_pages(struct inode *inode, long delta, bool may_fail)
{
	if (!S_ISDIR(inode->i_mode) || !delta)
		return 0;
	if (delta < 0) {
		dquot_free_block_nodirty(inode, -delta);
		return 0;
	}
	if (may_fail)
		return dquot_alloc_block_nodirty(inode, delta);
	return __dquot_alloc_space(inode, (qsize_t)delta << NOVA_BLOCK_SHIFT,
				   DQUOT_SPACE_NOFAIL);
}

/*
 * @mapped pages of @inode became mapped and @unmapped stopped being
 * mapped; *@charged (NULL: none) blocks were charged for the change
 * ahead and are used first.  What is left of them stays in *@charged
 * for the caller to release.  Pages mapped without a charge ahead (a
 * shift moving pages) cannot be refused any more: charged regardless of
 * limits.
 */
void nova_quota_settle(struct inode *inode, unsigned long mapped,
		       unsigned long unmapped, unsigned long *charged)
{
	unsigned long pre = charged ? min(*charged, mapped) : 0;

	if (charged)
		*charged -= pre;
	if (mapped > pre)
		__dquot_alloc_space(inode, (qsize_t)(mapped - pre) << NOVA_BLOCK_SHIFT,
				    DQUOT_SPACE_NOFAIL);
	nova_quota_release(inode, unmapped);
}
