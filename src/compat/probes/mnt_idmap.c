// SPDX-License-Identifier: GPL-2.0
/* 6.3: inode operations take a struct mnt_idmap, not a user namespace */
#include <linux/fs.h>

static int p(struct mnt_idmap *idmap, struct dentry *d, struct iattr *a)
{
	return 0;
}

static const struct inode_operations ops __used = { .setattr = p };
