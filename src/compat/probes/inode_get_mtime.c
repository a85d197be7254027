// SPDX-License-Identifier: GPL-2.0
/* 6.7: inode->i_atime and i_mtime are private; accessors */
#include <linux/fs.h>

static __used struct timespec64 p(struct inode *i)
{
	inode_set_mtime_to_ts(i, inode_get_atime(i));
	inode_set_atime_to_ts(i, inode_get_mtime(i));
	return inode_get_mtime(i);
}
