// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes and POSIX ACLs for the guest tests (busybox has no
 * getfattr or setfacl).  Every call uses the l*xattr() system calls, so
 * a symlink is itself.  A failing call prints the errno's name (ENODATA,
 * EEXIST, ...) on stdout and exits 2; usage errors exit 1.
 *
 *   t_xattr set PATH NAME VALUE [create|replace]
 *   t_xattr fill PATH NAME SIZE SEED [create|replace]  SIZE pattern bytes
 *   t_xattr get PATH NAME            print the value
 *   t_xattr check PATH NAME SIZE SEED  value is fill's pattern
 *   t_xattr size PATH NAME           print the value's size (size 0 query)
 *   t_xattr getbuf PATH NAME BUFSIZE get into a buffer of BUFSIZE bytes
 *   t_xattr rm PATH NAME
 *   t_xattr list PATH                the names, one per line
 *   t_xattr listbuf PATH BUFSIZE     listxattr into BUFSIZE bytes
 *   t_xattr many PATH PREFIX N SIZE  set PREFIX0..PREFIX(N-1), SIZE bytes
 *   t_xattr checkmany PATH PREFIX N SIZE
 *   t_xattr churn PATH NAME N SIZE   replace NAME N times (last seed N-1)
 *   t_xattr setacl PATH ACL [default]  ACL as "u::rwx,u:1000:r-x,g::r-x,m::rwx,o::---"
 *   t_xattr getacl PATH [default]    print it in the same form
 *   t_xattr asuser UID GID CMD...    run CMD with those ids
 *   t_xattr lcforge PATH             set user.abcdefghijklmnop to 48 bytes
 *                                    that are a well-formed link-change
 *                                    entry with links 0 and its checksum:
 *                                    the group's entry ends with them, so
 *                                    they are the 48 bytes before the tail
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/xattr.h>

#define ACL_NAME	"system.posix_acl_access"
#define ACL_DEFAULT	"system.posix_acl_default"

static const struct { int e; const char *n; } errs[] = {
	{ ENODATA, "ENODATA" }, { EEXIST, "EEXIST" }, { ERANGE, "ERANGE" },
	{ E2BIG, "E2BIG" }, { ENOSPC, "ENOSPC" }, { EPERM, "EPERM" },
	{ EACCES, "EACCES" }, { EOPNOTSUPP, "EOPNOTSUPP" }, { EINVAL, "EINVAL" },
	{ EROFS, "EROFS" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
	{ EDQUOT, "EDQUOT" },
};

static int fail_errno(const char *what)
{
	int e = errno;
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		if (errs[i].e == e) {
			printf("%s\n", errs[i].n);
			return 2;
		}
	}
	printf("errno %d (%s: %s)\n", e, what, strerror(e));
	return 2;
}

static void pattern(unsigned char *p, size_t n, unsigned long seed)
{
	uint32_t x = 2166136261u ^ (uint32_t)seed;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x >> 24;
	}
}

/* CRC32C (Castagnoli, reflected), with the usual inversions */
static uint32_t crc32c(const unsigned char *p, size_t n)
{
	uint32_t crc = ~0u;
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0x82f63b78u & -(crc & 1));
	}
	return ~crc;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * A value that reads as a struct nova_link_change_entry (nova_format.h:
 * entry_type 4 at 0, invalid at 1, links at 4, ctime at 8, e_csum at 24,
 * trans_id at 32; 48 bytes) with links 0, checksummed as nova_lib.h's
 * nova_entry_crc() does: CRC32C of the entry with e_csum and invalid
 * taken as zero.  A user.* name of 16 bytes after "user." makes the
 * extended attribute entry 48 + 16 + 48 bytes, no padding, so the value
 * ends at the log tail.  Anyone who may set user.* attributes can do it.
 */
static int lc_forge(const char *path)
{
	unsigned char v[48];

	memset(v, 0, sizeof(v));
	v[0] = 4;			/* NOVA_LINK_CHANGE */
	put_le32(v + 4, 0);		/* links */
	put_le32(v + 8, 1000000000);	/* ctime (low half) */
	put_le32(v + 32, 1);		/* trans_id (low half) */
	put_le32(v + 24, crc32c(v, sizeof(v)));
	if (lsetxattr(path, "user.abcdefghijklmnop", v, sizeof(v), 0))
		return fail_errno("lsetxattr");
	return 0;
}

static int flag_of(const char *s)
{
	if (!s)
		return 0;
	if (!strcmp(s, "create"))
		return XATTR_CREATE;
	if (!strcmp(s, "replace"))
		return XATTR_REPLACE;
	fprintf(stderr, "bad flag %s\n", s);
	exit(1);
}

static int check(const char *path, const char *name, size_t size,
		 unsigned long seed)
{
	unsigned char *want = malloc(size + 1), *got = malloc(size + 1);
	ssize_t n;

	pattern(want, size, seed);
	n = lgetxattr(path, name, got, size + 1);
	if (n < 0)
		return fail_errno("lgetxattr");
	if ((size_t)n != size || memcmp(want, got, size)) {
		printf("MISMATCH %s: %zd bytes\n", name, n);
		return 3;
	}
	free(want);
	free(got);
	return 0;
}

/* ACL text <-> the VFS xattr form (version 2, 8-byte entries) */
struct acl_ent {
	uint16_t tag, perm;
	uint32_t id;
};

static int perm_of(const char *p)
{
	return (p[0] == 'r' ? 4 : 0) | (p[1] == 'w' ? 2 : 0) | (p[2] == 'x' ? 1 : 0);
}

static int cmd_setacl(const char *path, char *text, int dflt)
{
	struct { uint32_t version; struct acl_ent e[32]; } buf;
	int n = 0;
	char *tok;

	buf.version = 2;
	for (tok = strtok(text, ","); tok && n < 32; tok = strtok(NULL, ",")) {
		char *c1 = strchr(tok, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		struct acl_ent *e = &buf.e[n++];

		if (!c2 || strlen(c2 + 1) != 3) {
			fprintf(stderr, "bad ACL entry %s\n", tok);
			return 1;
		}
		e->perm = perm_of(c2 + 1);
		e->id = 0xffffffffu;
		if (c2 > c1 + 1)
			e->id = strtoul(c1 + 1, NULL, 10);
		switch (tok[0]) {
		case 'u':
			e->tag = c2 > c1 + 1 ? 0x02 : 0x01;
			break;
		case 'g':
			e->tag = c2 > c1 + 1 ? 0x08 : 0x04;
			break;
		case 'm':
			e->tag = 0x10;
			break;
		case 'o':
			e->tag = 0x20;
			break;
		default:
			fprintf(stderr, "bad ACL tag %s\n", tok);
			return 1;
		}
	}
	if (lsetxattr(path, dflt ? ACL_DEFAULT : ACL_NAME, &buf,
		      4 + n * sizeof(struct acl_ent), 0))
		return fail_errno("lsetxattr");
	return 0;
}

static int cmd_getacl(const char *path, int dflt)
{
	unsigned char buf[4 + 32 * 8];
	ssize_t n = lgetxattr(path, dflt ? ACL_DEFAULT : ACL_NAME, buf, sizeof(buf));
	const char *sep = "";
	ssize_t i;

	if (n < 0)
		return fail_errno("lgetxattr");
	for (i = 4; i + 8 <= n; i += 8) {
		struct acl_ent e;
		char id[16] = "";
		const char *t = "?";

		memcpy(&e, buf + i, sizeof(e));
		switch (e.tag) {
		case 0x01: t = "u"; break;
		case 0x02: t = "u"; snprintf(id, sizeof(id), "%u", e.id); break;
		case 0x04: t = "g"; break;
		case 0x08: t = "g"; snprintf(id, sizeof(id), "%u", e.id); break;
		case 0x10: t = "m"; break;
		case 0x20: t = "o"; break;
		}
		printf("%s%s:%s:%c%c%c", sep, t, id, e.perm & 4 ? 'r' : '-',
		       e.perm & 2 ? 'w' : '-', e.perm & 1 ? 'x' : '-');
		sep = ",";
	}
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	const char *path = argc > 2 ? argv[2] : "";

	if (!strcmp(cmd, "set") && argc >= 5) {
		if (lsetxattr(path, argv[3], argv[4], strlen(argv[4]),
			      flag_of(argv[5])))
			return fail_errno("lsetxattr");
		return 0;
	}
	if (!strcmp(cmd, "fill") && argc >= 6) {
		size_t size = strtoul(argv[4], NULL, 0);
		unsigned char *v = malloc(size + 1);

		pattern(v, size, strtoul(argv[5], NULL, 0));
		if (lsetxattr(path, argv[3], v, size, flag_of(argv[6])))
			return fail_errno("lsetxattr");
		return 0;
	}
	if (!strcmp(cmd, "get") && argc == 4) {
		char buf[65536];
		ssize_t n = lgetxattr(path, argv[3], buf, sizeof(buf));

		if (n < 0)
			return fail_errno("lgetxattr");
		fwrite(buf, 1, n, stdout);
		printf("\n");
		return 0;
	}
	if (!strcmp(cmd, "check") && argc == 6)
		return check(path, argv[3], strtoul(argv[4], NULL, 0),
			     strtoul(argv[5], NULL, 0));
	if (!strcmp(cmd, "size") && argc == 4) {
		ssize_t n = lgetxattr(path, argv[3], NULL, 0);

		if (n < 0)
			return fail_errno("lgetxattr");
		printf("%zd\n", n);
		return 0;
	}
	if (!strcmp(cmd, "getbuf") && argc == 5) {
		size_t size = strtoul(argv[4], NULL, 0);
		char *buf = malloc(size + 1);
		ssize_t n = lgetxattr(path, argv[3], buf, size);

		if (n < 0)
			return fail_errno("lgetxattr");
		printf("%zd\n", n);
		return 0;
	}
	if (!strcmp(cmd, "rm") && argc == 4) {
		if (lremovexattr(path, argv[3]))
			return fail_errno("lremovexattr");
		return 0;
	}
	if ((!strcmp(cmd, "list") && argc == 3) ||
	    (!strcmp(cmd, "listbuf") && argc == 4)) {
		size_t size = argc == 4 ? strtoul(argv[3], NULL, 0) : 1 << 20;
		char *buf = malloc(size + 1);
		ssize_t n = llistxattr(path, buf, size), i;

		if (n < 0)
			return fail_errno("llistxattr");
		if (argc == 4) {
			printf("%zd\n", n);
			return 0;
		}
		for (i = 0; i < n; i += strlen(buf + i) + 1)
			printf("%s\n", buf + i);
		return 0;
	}
	if ((!strcmp(cmd, "many") || !strcmp(cmd, "checkmany")) && argc == 6) {
		unsigned long n = strtoul(argv[4], NULL, 0), i;
		size_t size = strtoul(argv[5], NULL, 0);
		unsigned char *v = malloc(size + 1);
		char name[300];
		int ret;

		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%s%lu", argv[3], i);
			if (cmd[0] == 'c') {
				ret = check(path, name, size, i);
				if (ret)
					return ret;
				continue;
			}
			pattern(v, size, i);
			if (lsetxattr(path, name, v, size, 0))
				return fail_errno("lsetxattr");
		}
		return 0;
	}
	if (!strcmp(cmd, "churn") && argc == 6) {
		unsigned long n = strtoul(argv[4], NULL, 0), i;
		size_t size = strtoul(argv[5], NULL, 0);
		unsigned char *v = malloc(size + 1);

		for (i = 0; i < n; i++) {
			pattern(v, size, i);
			if (lsetxattr(path, argv[3], v, size, 0))
				return fail_errno("lsetxattr");
		}
		return 0;
	}
	if (!strcmp(cmd, "setacl") && argc >= 4)
		return cmd_setacl(path, argv[3], argc > 4);
	if (!strcmp(cmd, "getacl") && argc >= 3)
		return cmd_getacl(path, argc > 3);
	if (!strcmp(cmd, "lcforge") && argc == 3)
		return lc_forge(path);
	if (!strcmp(cmd, "asuser") && argc >= 5) {
		gid_t gid = strtoul(argv[3], NULL, 0);

		if (setgroups(1, &gid) || setgid(gid) ||
		    setuid(strtoul(argv[2], NULL, 0)))
			return fail_errno("setuid");
		execvp(argv[4], argv + 4);
		return fail_errno("execvp");
	}
	fprintf(stderr, "usage: see the comment at the top of t_xattr.c\n");
	return 1;
}
