// SPDX-License-Identifier: GPL-2.0
/* 7.0: inode->i_state is read through inode_state_read_once() */
#include <linux/fs.h>

static __used bool p(struct inode *inode)
{
	return inode_state_read_once(inode) & I_NEW;
}
