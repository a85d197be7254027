// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the fsck.nova tests (test_fsck.sh): an allocation
 * that fails, so that a run ends with an operational error where the
 * host would never make it end.  NOVA_TEST_CALLOC_FAIL="NMEMB SIZE N":
 * the N-th call calloc(NMEMB, SIZE) returns NULL (errno ENOMEM); every
 * other call is glibc's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

void *__libc_calloc(size_t nmemb, size_t size);

void *calloc(size_t nmemb, size_t size)
{
	static unsigned long long fail_nmemb, fail_size, nth, seen;
	static int armed = -1;		/* -1: the variable not read yet */
	const char *spec;
	char *end;

	if (armed < 0) {
		spec = getenv("NOVA_TEST_CALLOC_FAIL");
		armed = 0;
		if (spec) {
			fail_nmemb = strtoull(spec, &end, 0);
			fail_size = strtoull(end, &end, 0);
			nth = strtoull(end, &end, 0);
			armed = nth > 0;
		}
	}
	if (armed && nmemb == fail_nmemb && size == fail_size && ++seen == nth) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(nmemb, size);
}
