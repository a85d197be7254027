// SPDX-License-Identifier: GPL-2.0
/* 6.17: struct fileattr is now struct file_kattr */
#include <linux/fs.h>
#include <linux/fileattr.h>

static int p(struct dentry *d, struct file_kattr *fa)
{
	fileattr_fill_flags(fa, 0);
	return 0;
}

static const struct inode_operations ops __used = { .fileattr_get = p };
