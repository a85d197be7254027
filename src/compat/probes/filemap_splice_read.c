// SPDX-License-Identifier: GPL-2.0
/* 6.5: generic_file_splice_read() is gone; filemap_splice_read() */
#include <linux/fs.h>

static const struct file_operations ops __used = {
	.splice_read = filemap_splice_read,
};
