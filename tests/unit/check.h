/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h: the PASS/FAIL lines of the C unit tests (test_format.c,
 * test_xattr.c) and their count.  CHECK_PREFIX, if defined before the
 * include, goes before every case name.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>

#ifndef CHECK_PREFIX
#define CHECK_PREFIX ""
#endif

static int passed, failed;

#define CHECK(name, cond) do {						\
	if (cond) {							\
		passed++;						\
		printf("PASS " CHECK_PREFIX "%s\n", name);		\
	} else {							\
		failed++;						\
		printf("FAIL " CHECK_PREFIX "%s (%s:%d: %s)\n", name,	\
		       __FILE__, __LINE__, #cond);			\
	}								\
} while (0)

/* "WHAT: N passed, N failed"; the exit status */
static inline int check_done(const char *what)
{
	printf("%s: %d passed, %d failed\n", what, passed, failed);
	return failed ? 1 : 0;
}

#endif /* CHECK_H */
