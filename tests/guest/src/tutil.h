/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tutil.h: small helpers that the guest test programs share.  Each program
 * is one .c file (plus libnova for some) that make guest-bin links
 * statically; this header is all they share, so everything here is static
 * inline.
 *
 * A program that defines TUTIL_XALLOC before including it also gets
 * xmalloc(), xrealloc() and xstrdup(), which end it through its own
 * die(const char *fmt, ...) when memory runs out.
 */
#ifndef TUTIL_H
#define TUTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "EINVAL", or "errno N" for a number without a name */
static inline const char *errname(int e)
{
	static char buf[32];
	const char *n = e ? strerrorname_np(e) : NULL;

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* the errno called @name ("EINVAL"), or -1 */
static inline int errno_by_name(const char *name)
{
	int e;

	for (e = 1; e < 4096; e++)
		if (strerrorname_np(e) && !strcmp(strerrorname_np(e), name))
			return e;
	return -1;
}

/* one step of splitmix64 on the state @s */
static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * How many of the @len bytes of @got differ from @want (0: none); when
 * some do, the offsets of the first and the last in *@first and *@last.
 */
static inline size_t mem_diff(const unsigned char *got,
			      const unsigned char *want, size_t len,
			      size_t *first, size_t *last)
{
	size_t i, n = 0;

	*first = *last = 0;
	if (!memcmp(got, want, len))
		return 0;
	for (i = 0; i < len; i++)
		if (got[i] != want[i]) {
			if (!n++)
				*first = i;
			*last = i;
		}
	return n;
}

/*
 * Programs of several commands: "PROG CMD ARG...".  run_cmd() runs the
 * one named @argv[1] that takes the number of arguments given, with
 * them; anything else is a usage error (status 2).
 */
struct tcmd {
	const char *name;
	int args;
	int (*fn)(char **av);
};

static inline int run_cmd(const struct tcmd *cmds, size_t n, int argc,
			  char **argv, const char *prog)
{
	size_t i;

	for (i = 0; argc > 1 && i < n; i++)
		if (!strcmp(argv[1], cmds[i].name) && argc == cmds[i].args + 2)
			return cmds[i].fn(argv + 2);
	fprintf(stderr, "usage: see the head of %s.c\n", prog);
	return 2;
}

#ifdef TUTIL_XALLOC
static void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static inline void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static inline char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}
#endif

#endif /* TUTIL_H */
