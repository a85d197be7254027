// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the NOVA user-space tools. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include "nova_tools.h"

const char *nova_prog_name(const char *argv0, const char *dflt)
{
	const char *b;

	if (!argv0 || !*argv0)
		return dflt;
	b = strrchr(argv0, '/');
	return b ? b + 1 : argv0;
}

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

/* Does the device show NOVA at its start?  (nova_shows_nova()) */
static int shows_nova(nova_read_fn rd, void *arg,
		      const struct nova_super_block *p)
{
	struct nova_inode root;
	__u64 off = ((__u64)NOVA_RESERVED_INODE_BLOCK << NOVA_BLOCK_SHIFT) +
		    NOVA_ROOT_INO * sizeof(root);

	return nova_shows_nova(p, rd(arg, off, &root, sizeof(root)) ? NULL : &root);
}

int nova_find_super(nova_read_fn rd, void *arg, __u64 dev_size,
		    unsigned int flags, struct nova_super_block *sb,
		    struct nova_sb_search *s)
{
	struct nova_super_block p;
	struct nova_replica_iter it;
	const char *w;
	__u64 off;

	memset(s, 0, sizeof(*s));
	if (rd(arg, 0, &p, sizeof(p))) {
		s->why = "cannot read the super block";
		memset(&p, 0, sizeof(p));
	} else {
		s->why = nova_check_super(&p, dev_size);
	}
	if (!s->why) {
		*sb = p;
		return 0;
	}
	nova_replica_iter_init(&it, &p, dev_size, !(flags & NOVA_SB_NO_SCAN) &&
			       shows_nova(rd, arg, &p));
	while ((off = nova_replica_next(&it))) {
		s->scanned = it.scanned;
		/* most blocks a search looks at hold data: the magic first */
		if (rd(arg, off, sb, sizeof(*sb)))
			w = "cannot read the super block";
		else if (le32_to_cpu(sb->s_magic) != NOVA_SUPER_MAGIC)
			w = "bad magic number";
		else
			w = nova_check_replica(sb, off, dev_size);
		if (!w) {
			s->off = off;
			return 1;
		}
		if (!s->rwhy)
			s->rwhy = w;
	}
	if (!s->rwhy)
		s->rwhy = "none found";
	return -1;
}

static int fd_read(void *arg, __u64 off, void *buf, size_t len)
{
	return pread(*(int *)arg, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

int nova_read_super(int fd, unsigned int flags, struct nova_super_block *sb,
		    const char **why)
{
	long long size = nova_dev_size(fd);
	struct nova_sb_search s;
	int which;

	if (size < (long long)NOVA_MIN_SIZE) {
		*why = size < 0 ? "cannot get the device size" :
		       "device too small";
		return -1;
	}
	which = nova_find_super(fd_read, &fd, (__u64)size, flags, sb, &s);
	*why = s.why;
	return which;
}

void nova_vwarn(const char *prog, const char *what, const char *fmt,
		va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	if (what)
		fprintf(stderr, "%s: ", what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
