// SPDX-License-Identifier: GPL-2.0
/* 6.2: ->get_acl() became ->get_inode_acl(); ->set_acl() takes a dentry */
#include <linux/fs.h>

static struct posix_acl *p(struct inode *inode, int type, bool rcu)
{
	return NULL;
}

static const struct inode_operations ops __used = { .get_inode_acl = p };
