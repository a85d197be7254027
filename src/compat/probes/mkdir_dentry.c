// SPDX-License-Identifier: GPL-2.0
/* 6.15: ->mkdir() returns a dentry */
#include <linux/fs.h>

static struct dentry *p(struct mnt_idmap *idmap, struct inode *dir,
			struct dentry *dentry, umode_t mode)
{
	return NULL;
}

static const struct inode_operations ops __used = { .mkdir = p };
