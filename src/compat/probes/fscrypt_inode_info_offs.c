// SPDX-License-Identifier: GPL-2.0
/* after 6.12: the file system keeps the fscrypt info pointer (s_cop->inode_info_offs) */
#include <linux/fscrypt.h>

static const struct fscrypt_operations __used ops = {
	.inode_info_offs = 0,
};
