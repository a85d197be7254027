// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the NOVA user-space tools. */
#include <stdio.h>
#include <string.h>
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
	struct nova_super_block p;
	struct nova_replica_iter it;
	__u64 off;

	if (size < (long long)NOVA_MIN_SIZE) {
		*why = size < 0 ? "cannot get the device size" :
		       "device too small";
		return -1;
	}
	*why = read_copy(fd, 0, size, &p);
	if (!*why) {
		*sb = p;
		return 0;
	}
	if (!strcmp(*why, "cannot read the super block"))
		memset(&p, 0, sizeof(p));
	/* no scan (nova_lib.h): this runs on any device udev sees */
	nova_replica_iter_init(&it, &p, (__u64)size, 0);
	while ((off = nova_replica_next(&it)))
		if (pread(fd, sb, sizeof(*sb), (off_t)off) == (ssize_t)sizeof(*sb) &&
		    !nova_check_replica(sb, off, (__u64)size))
			return 1;
	return -1;
}

void nova_uuid_str(const __u8 u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

char *nova_safe_str(char *buf, size_t size, const char *s, size_t len)
{
	size_t o = 0, i;

	if (!size)
		return buf;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char f[4];
		size_t n = 0;

		if (c >= 0x80) {
			f[n++] = 'M';
			f[n++] = '-';
			c -= 0x80;
		}
		if (c < 0x20 || c == 0x7f) {
			f[n++] = '^';
			c ^= 0x40;	/* ^@, ^A, ... ^_; ^? for DEL */
		}
		f[n++] = (char)c;
		if (o + n >= size)
			break;
		memcpy(buf + o, f, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}
