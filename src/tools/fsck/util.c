// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova's messages other than problems (problem.c): -v details, pass
 * headings, operational errors, and the names and paths they show (e2fsck's
 * util.c and message.c).  Once a run has stopped (ctx->stop) nothing more
 * is printed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fsck.h"

/* A line of the report that is not a problem */
void out(struct nova_fsck *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx->stop)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* An operational error: on stderr; the run ends with FSCK_ERROR */
int fsck_fatal(struct nova_fsck *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	nova_vwarn(ctx->prog, NULL, fmt, ap);
	va_end(ap);
	ctx->stop |= FSCK_ERROR;
	return -1;
}

/*
 * For the tests only (tests/unit): NOVA_FSCK_TEST_KILL=@where ends the
 * process here at once (exit 8, no cleanup), as a fsck killed there
 */
void test_kill_point(const char *where)
{
	const char *v = getenv("NOVA_FSCK_TEST_KILL");

	if (v && !strcmp(v, where)) {
		fflush(stdout);
		_exit(FSCK_ERROR);
	}
}

const char *type_str(uint32_t m)
{
	return nv_type_name(m) ?: "inode";
}

/*
 * A name read from the image (@len bytes, a NUL among them if it is
 * ciphertext), for messages: its control characters escaped
 * (nova_safe_str()).  One of 8 buffers is used in turn, so one message
 * can show several (ipath() uses none of them).
 */
const char *pname(struct nova_fsck *ctx, const char *name, size_t len)
{
	char *b = ctx->name_buf[ctx->name_k++ & 7];

	return nova_safe_str(b, sizeof(ctx->name_buf[0]), name, len);
}

/* The path of @ino through first names (pass 5), for messages (escaped) */
const char *ipath(struct nova_fsck *ctx, uint64_t ino)
{
	char *b = ctx->path_buf[ctx->path_k++ & 3], tmp[PATH_MAX];
	char esc[NOVA_SAFE_SIZE(NOVA_NAME_LEN)];
	struct fsck_inode_info *ni = ctx->ni;
	int depth = 0;

	if (ino == NOVA_ROOT_INO)
		return "/";
	b[0] = '\0';
	while (ino != NOVA_ROOT_INO) {
		if (!ni || ino >= ctx->ni_max || !ni[ino].nname || ++depth > 64) {
			if (depth > 64)	/* a cycle */
				b[0] = '\0';
			snprintf(tmp, sizeof(tmp), "<inode %llu>%s",
				 (unsigned long long)ino, b);
			snprintf(b, PATH_MAX, "%s", tmp);
			return b;
		}
		nova_safe_str(esc, sizeof(esc), ni[ino].nname,
			      ni[ino].nname_len);
		snprintf(tmp, sizeof(tmp), "/%s%s", esc, b);
		snprintf(b, PATH_MAX, "%s", tmp);
		ino = ni[ino].ndir;
	}
	return b;
}
