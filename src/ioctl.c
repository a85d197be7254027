// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA ioctls: file system label, inode generation, an inode's log
 * size and GC bound (NOVA_IOC_LOG_INFO).  Inode flags
 * (FS_IOC_GETFLAGS/SETFLAGS) go through the VFS fileattr operations.
 */
#include <linux/compat.h>
#include <linux/uaccess.h>
#include <linux/mount.h>
#include "nova.h"

static int nova_ioc_getfslabel(struct super_block *sb, char __user *arg)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	char label[NOVA_LABEL_LEN + 1];

	BUILD_BUG_ON(NOVA_LABEL_LEN >= FSLABEL_MAX);
	mutex_lock(&sbi->s_lock);
	memcpy(label, sbi->s_super.s_label, NOVA_LABEL_LEN);
	mutex_unlock(&sbi->s_lock);
	label[NOVA_LABEL_LEN] = '\0';
	if (copy_to_user(arg, label, sizeof(label)))
		return -EFAULT;
	return 0;
}

static int nova_ioc_setfslabel(struct file *filp, const char __user *arg)
{
	struct super_block *sb = file_inode(filp)->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	char label[FSLABEL_MAX];
	size_t len;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(label, arg, sizeof(label)))
		return -EFAULT;
	len = strnlen(label, FSLABEL_MAX);
	if (len > NOVA_LABEL_LEN)
		return -EINVAL;

	ret = mnt_want_write_file(filp);
	if (ret)
		return ret;
	ret = nova_emergency_state(sb);
	if (!ret) {
		mutex_lock(&sbi->s_lock);
		memset(sbi->s_super.s_label, 0, NOVA_LABEL_LEN);
		memcpy(sbi->s_super.s_label, label, len);
		ret = nova_sync_super(sb);
		mutex_unlock(&sbi->s_lock);
	}
	mnt_drop_write_file(filp);
	return ret;
}

static int nova_ioc_log_info(struct inode *inode, void __user *arg)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_log_info li = {};

	mutex_lock(&sih->log_mutex);
	li.log_pages = sih->log_pages;
	li.live_bytes = nova_live_log_bytes(inode);
	li.need_pages = nova_log_need_pages(inode);
	li.limit_pages = nova_log_limit(inode);
	li.data_pages = sih->data_pages;
	li.live_writes = sih->live_writes;
	mutex_unlock(&sih->log_mutex);
	return copy_to_user(arg, &li, sizeof(li)) ? -EFAULT : 0;
}

#ifndef FS_IOC_SHUTDOWN
#define FS_IOC_SHUTDOWN			_IOR('X', 125, __u32)
#define FS_SHUTDOWN_FLAGS_DEFAULT	0x0
#define FS_SHUTDOWN_FLAGS_LOGFLUSH	0x1
#define FS_SHUTDOWN_FLAGS_NOLOGFLUSH	0x2
#endif

/*
 * FS_IOC_SHUTDOWN (also XFS_IOC_GOINGDOWN): stop writing.  Every update
 * NOVA made is durable when its call returned, so the flags differ only
 * in the times kept in DRAM (in-place writes, atime): DEFAULT and
 * LOGFLUSH log them first, NOLOGFLUSH loses them as a power cut would.
 * Afterwards every operation fails with EIO, unmount writes nothing
 * (no clean-unmount snapshot), and the next mount recovers.
 */
static int nova_ioc_shutdown(struct super_block *sb, u32 __user *arg)
{
	u32 flags;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (get_user(flags, arg))
		return -EFAULT;
	if (flags > FS_SHUTDOWN_FLAGS_NOLOGFLUSH)
		return -EINVAL;
	if (nova_is_shutdown(sb))
		return 0;
	if (flags != FS_SHUTDOWN_FLAGS_NOLOGFLUSH && !sb_rdonly(sb)) {
		down_read(&sb->s_umount);
		sync_filesystem(sb);
		up_read(&sb->s_umount);
	}
	nova_shut_down(sb);
	pr_info("NOVA (%s): shut down (flags %u): every operation fails with EIO until it is mounted again\n",
		sb->s_id, flags);
	return 0;
}

long nova_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct super_block *sb = file_inode(filp)->i_sb;

	if (cmd == FS_IOC_SHUTDOWN)
		return nova_ioc_shutdown(sb, (u32 __user *)arg);
	if (nova_is_shutdown(sb))
		return -EIO;
	switch (cmd) {
	case FS_IOC_GETVERSION:
		return put_user(file_inode(filp)->i_generation, (int __user *)arg);
	case FS_IOC_GETFSLABEL:
		return nova_ioc_getfslabel(sb, (char __user *)arg);
	case FS_IOC_SETFSLABEL:
		return nova_ioc_setfslabel(filp, (const char __user *)arg);
	case NOVA_IOC_LOG_INFO:
		return nova_ioc_log_info(file_inode(filp), (void __user *)arg);
	default:
		/* the FS_IOC_*ENCRYPTION* calls */
		return nova_crypt_ioctl(filp, cmd, arg);
	}
}

#ifdef CONFIG_COMPAT
/*
 * 32-bit callers on a 64-bit kernel: every argument has the same layout
 * (NOVA_IOC_LOG_INFO's fields are all 64-bit, fscrypt's are fixed-size)
 * except FS_IOC_GETVERSION's long, as in ext4_compat_ioctl().  The
 * FS_IOC32_GETFLAGS family is the VFS's.
 */
long nova_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	if (cmd == FS_IOC32_GETVERSION)
		cmd = FS_IOC_GETVERSION;
	return nova_ioctl(filp, cmd, (unsigned long)compat_ptr(arg));
}
#endif
