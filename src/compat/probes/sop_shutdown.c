// SPDX-License-Identifier: GPL-2.0
/* 6.5: super_operations.shutdown, called when the block device dies (6.6) */
#include <linux/fs.h>

static void s(struct super_block *sb)
{
}

static __used const struct super_operations p = {
	.shutdown = s,
};
