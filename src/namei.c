// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA namespace operations.
 */
#include "nova.h"

static struct dentry *nova_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	if (dentry->d_name.len > NOVA_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	/* no directory entries yet: every name is a negative dentry */
	return d_splice_alias(NULL, dentry);
}

const struct inode_operations nova_dir_inode_operations = {
	.lookup		= nova_lookup,
	.getattr	= nova_getattr,
	.setattr	= nova_setattr,
};
