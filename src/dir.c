// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA directories: readdir over the directory log.
 */
#include "nova.h"

static int nova_readdir(struct file *file, struct dir_context *ctx)
{
	if (!dir_emit_dots(file, ctx))
		return 0;
	/* directory entries are log entries; an empty log has none */
	return 0;
}

const struct file_operations nova_dir_operations = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= nova_readdir,
	.fsync		= noop_fsync,
	.unlocked_ioctl	= nova_ioctl,
};
