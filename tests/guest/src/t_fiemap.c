// SPDX-License-Identifier: GPL-2.0
/*
 * t_fiemap: print a file's FS_IOC_FIEMAP extents, one per line:
 *   LOGICAL PHYSICAL LENGTH FLAGS       (bytes, decimal; flags in hex)
 *
 *   t_fiemap [-a] FILE [START LEN [MAX]]
 *                                       MAX: extents per call (default 32;
 *                                       0: only the count is asked for,
 *                                       printed as "count N"); -a: the
 *                                       extended attributes' extents
 *                                       (FIEMAP_FLAG_XATTR)
 *   t_fiemap -b FILE BLOCK              FIBMAP of file block BLOCK (4 KiB):
 *                                       the device block, 0 for a hole
 * Calls again after a full array until the last extent. Exit 0, or 1
 * with the failing call on stdout (errno name).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t start = 0, len = FIEMAP_MAX_OFFSET;
	unsigned int max = 32, i;
	uint32_t flags = FIEMAP_FLAG_SYNC;
	struct fiemap *fm;
	int fd, done = 0;

	if (argc == 4 && !strcmp(argv[1], "-b")) {
		int blk = atoi(argv[3]);

		fd = open(argv[2], O_RDONLY);
		if (fd < 0 || ioctl(fd, FIBMAP, &blk)) {
			printf("t_fiemap: FIBMAP: %s\n", strerrorname_np(errno));
			return 1;
		}
		printf("%d\n", blk);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-a")) {
		flags |= FIEMAP_FLAG_XATTR;
		argv++;
		argc--;
	}
	if (argc != 2 && argc != 4 && argc != 5) {
		fprintf(stderr, "usage: t_fiemap [-a] FILE [START LEN [MAX]]\n");
		return 2;
	}
	if (argc >= 4) {
		start = strtoull(argv[2], NULL, 0);
		len = strtoull(argv[3], NULL, 0);
	}
	if (argc == 5)
		max = strtoul(argv[4], NULL, 0);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		printf("t_fiemap: open %s: %s\n", argv[1], strerrorname_np(errno));
		return 1;
	}
	fm = calloc(1, sizeof(*fm) + max * sizeof(struct fiemap_extent));
	if (!fm)
		return 1;
	while (!done) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = len;
		fm->fm_flags = flags;
		fm->fm_extent_count = max;
		if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
			printf("t_fiemap: FS_IOC_FIEMAP: %s\n", strerrorname_np(errno));
			return 1;
		}
		if (!max) {
			printf("count %u\n", fm->fm_mapped_extents);
			return 0;
		}
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];

			printf("%llu %llu %llu %x\n", (unsigned long long)e->fe_logical,
			       (unsigned long long)e->fe_physical,
			       (unsigned long long)e->fe_length, e->fe_flags);
			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				done = 1;
		}
		if (fm->fm_mapped_extents < max || !fm->fm_mapped_extents) {
			done = 1;
		} else if (!done) {
			struct fiemap_extent *e = &fm->fm_extents[i - 1];
			uint64_t next = e->fe_logical + e->fe_length;

			if (next >= start + len || next < start)
				break;
			len -= next - start;
			start = next;
		}
	}
	close(fd);
	return 0;
}
