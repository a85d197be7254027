// SPDX-License-Identifier: GPL-2.0
/* 6.7: file handles need an explicit ->encode_fh (no default encoder) */
#include <linux/fs.h>
#include <linux/exportfs.h>

static const struct export_operations ops __used = {
	.encode_fh = generic_encode_ino32_fh,
};
