// SPDX-License-Identifier: GPL-2.0
/* after 6.12: generic_drop_inode() is inode_generic_drop() */
#include <linux/fs.h>

static __used int p(struct inode *inode)
{
	return inode_generic_drop(inode);
}
