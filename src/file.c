// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA regular files: file and inode operations.
 */
#include "nova.h"

const struct file_operations nova_file_operations = {
	.llseek		= generic_file_llseek,
	.open		= generic_file_open,
	.fsync		= noop_fsync,
	.unlocked_ioctl	= nova_ioctl,
};

const struct inode_operations nova_file_inode_operations = {
	.getattr	= nova_getattr,
	.setattr	= nova_setattr,
	.fileattr_get	= nova_fileattr_get,
	.fileattr_set	= nova_fileattr_set,
};
