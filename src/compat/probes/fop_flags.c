// SPDX-License-Identifier: GPL-2.0
/* 6.11: file_operations.fop_flags (FOP_MMAP_SYNC) replaces mmap_supported_flags */
#include <linux/fs.h>

static const struct file_operations ops __used = {
	.fop_flags = FOP_MMAP_SYNC,
};
