// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the NOVA user-space tools. */
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include "nova_tools.h"

long long nova_dev_size(int fd)
{
	struct stat st;
	unsigned long long sz;

	if (fstat(fd, &st))
		return -1;
	if (S_ISREG(st.st_mode))
		return st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &sz) == 0)
		return (long long)sz;
	return -1;
}

static const char *read_copy(int fd, long long off, long long size,
			     struct nova_super_block *sb)
{
	if (pread(fd, sb, sizeof(*sb), off) != (ssize_t)sizeof(*sb))
		return "cannot read the super block";
	return nova_check_super(sb, (__u64)size);
}

int nova_read_super(int fd, struct nova_super_block *sb, const char **why)
{
	long long size = nova_dev_size(fd);
	const char *rwhy;

	if (size < (long long)NOVA_MIN_SIZE) {
		*why = size < 0 ? "cannot get the device size" :
		       "device too small";
		return -1;
	}
	*why = read_copy(fd, 0, size, sb);
	if (!*why)
		return 0;
	rwhy = read_copy(fd, (size & ~(long long)(NOVA_BLOCK_SIZE - 1)) -
			 NOVA_BLOCK_SIZE, size, sb);
	return rwhy ? -1 : 1;
}

void nova_uuid_str(const __u8 u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}
