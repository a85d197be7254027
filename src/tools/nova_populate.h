/* SPDX-License-Identifier: GPL-2.0 */
/* mkfs.nova -d: copy a directory tree into a new file system */
#ifndef NOVA_POPULATE_H
#define NOVA_POPULATE_H

#include <stdint.h>
#include <sys/stat.h>
#include "libnova.h"

struct nova_populate_stats {
	uint64_t files, dirs, symlinks, special, hardlinks;
	uint64_t bytes, data_blocks, used_blocks;
	uint64_t xattrs;		/* extended attributes copied */
};

/*
 * Copy the tree under @src into the file system mapped by @fs (geometry
 * set, root inode written, everything but the super block in place).
 * @skip, if not NULL, is the image file itself, never copied.  Errors
 * are printed; returns 0 or -1.
 */
int nova_populate(struct nv_fs *fs, const char *src, const struct stat *skip,
		  struct nova_populate_stats *stats);

#endif
