// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the mkfs.nova -d tests (test_fsck.sh): what a
 * source file system can answer to llistxattr() that the host's cannot
 * be made to.  NOVA_TEST_XATTR=enotsup: every call fails with ENOTSUP
 * (no xattr support); NOVA_TEST_XATTR=extra: the list also has
 * "system.nfs4_acl", a name NOVA does not keep.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/xattr.h>

typedef ssize_t (*list_fn)(const char *path, char *list, size_t size);

ssize_t llistxattr(const char *path, char *list, size_t size)
{
	static const char extra[] = "system.nfs4_acl";
	const char *mode = getenv("NOVA_TEST_XATTR");
	list_fn real;
	ssize_t n;

	if (mode && !strcmp(mode, "enotsup")) {
		errno = ENOTSUP;
		return -1;
	}
	real = (list_fn)dlsym(RTLD_NEXT, "llistxattr");
	if (!real) {
		errno = ENOTSUP;
		return -1;
	}
	n = real(path, list, size);
	if (!mode || strcmp(mode, "extra") || n < 0)
		return n;
	if (!size)
		return n + sizeof(extra);
	if ((size_t)n + sizeof(extra) > size) {
		errno = ERANGE;
		return -1;
	}
	memcpy(list + n, extra, sizeof(extra));
	return n + sizeof(extra);
}
