// SPDX-License-Identifier: GPL-2.0
/* 6.2: posix_acl_chmod() takes a dentry, not an inode */
#include <linux/fs.h>
#include <linux/posix_acl.h>

static __used int p(struct dentry *d)
{
	return posix_acl_chmod(NULL, d, 0);
}
