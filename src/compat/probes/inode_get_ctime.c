// SPDX-License-Identifier: GPL-2.0
/* 6.6: inode->i_ctime is private; accessors */
#include <linux/fs.h>

static __used struct timespec64 p(struct inode *i)
{
	inode_set_ctime_to_ts(i, inode_set_ctime_current(i));
	return inode_get_ctime(i);
}
