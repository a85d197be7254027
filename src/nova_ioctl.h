/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA's ioctl ABI, shared by the module and user space (as xfs_fs.h):
 * the NOVA-specific ioctls.  The generic ones (FS_IOC_*, FIEMAP) are the
 * kernel's own.
 */
#ifndef NOVA_IOCTL_H
#define NOVA_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * NOVA_IOC_LOG_INFO (ioctl on any open NOVA file or directory): the
 * inode's log and what its garbage collection aims at.
 */
struct nova_log_info {
	__u64	log_pages;	/* pages in the log chain */
	__u64	live_bytes;	/* bytes a rewritten log would take */
	__u64	need_pages;	/* pages those need */
	__u64	limit_pages;	/* GC keeps log_pages within this */
	__u64	data_pages;	/* file pages with a block */
	__u64	live_writes;	/* live write entries (regular files) */
};

#define NOVA_IOC_LOG_INFO	_IOR('N', 0x40, struct nova_log_info)

#endif /* NOVA_IOCTL_H */
