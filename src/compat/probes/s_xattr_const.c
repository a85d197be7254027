// SPDX-License-Identifier: GPL-2.0
/* 6.7: super_block.s_xattr is an array of const pointers */
#include <linux/fs.h>
#include <linux/xattr.h>

static const struct xattr_handler * const handlers[] = { NULL };

static __used void p(struct super_block *sb)
{
	sb->s_xattr = handlers;
}
