// SPDX-License-Identifier: GPL-2.0
/* 6.7: s_cop->has_32bit_inodes replaces ->get_ino_and_lblk_bits() */
#include <linux/fscrypt.h>

static const struct fscrypt_operations __used ops = {
	.has_32bit_inodes = 1,
};
