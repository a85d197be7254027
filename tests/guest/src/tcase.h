/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcase.h: the case runner that t_data and t_namespace share.
 *
 *   PROG DIR            run every case
 *   PROG DIR CASE...    run only the named cases
 *   PROG --list         print the case names, one a line
 *
 * A case is a function that returns when it passes and calls FAIL() (or
 * one of the checks below, which do) when it fails: the failure is
 * recorded in g_msg ("line N: ...") and the case's sigsetjmp() on g_jmp
 * returns nonzero.  In a forked child (g_in_child) a failure is written
 * to g_child_fd instead and the child exits with 1.
 *
 * For every case the runner prints one line, "PASS <case>" or
 * "FAIL <case>: <g_msg>", then "PROG: N passed, N failed".
 */
#ifndef TCASE_H
#define TCASE_H

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <unistd.h>
#include "tutil.h"

#define MAXFD 1024

struct tcase {
	const char *name;
	void (*fn)(void);
};

static sigjmp_buf g_jmp;
static const char *g_case = "?";
static char g_msg[4096];
static int g_in_child;		/* in a forked child: report through g_child_fd */
static int g_child_fd = -1;
static char g_fd_open_at_start[MAXFD];

static inline void fail_at(int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static inline void fail_at(int line, const char *fmt, ...)
{
	char tmp[3072];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	snprintf(g_msg, sizeof(g_msg), "line %d: %s", line, tmp);
	if (g_in_child) {
		if (write(g_child_fd, g_msg, strlen(g_msg)) < 0) {
			/* nothing left to report to */
		}
		_exit(1);
	}
	siglongjmp(g_jmp, 1);
}

#define FAIL(...) fail_at(__LINE__, __VA_ARGS__)

/* call must succeed (return >= 0); evaluates to its result */
static inline long long ok_at(long long r, int line, const char *expr)
{
	int e = errno;

	if (r < 0)
		fail_at(line, "%s: expected success, got %lld (%s)", expr, r,
			errname(e));
	return r;
}
#define OK(call) ok_at((long long)(call), __LINE__, #call)

/* call must fail with errno E */
static inline void err_at(long long r, int want, int line, const char *expr,
			  const char *wname)
{
	int e = errno;

	if (r >= 0)
		fail_at(line, "%s: expected %s, got success (%lld)", expr, wname,
			r);
	if (e != want)
		fail_at(line, "%s: expected %s, got %s", expr, wname,
			errname(e));
}
#define ERR(call, E) err_at((long long)(call), (E), __LINE__, #call, #E)

#define CHECK(cond) do {						\
		if (!(cond))						\
			fail_at(__LINE__, "check failed: %s", #cond);	\
	} while (0)

static inline void eq_at(long long got, long long want, int line,
			 const char *eg, const char *ew)
{
	if (got != want)
		fail_at(line, "%s: expected %lld (%s), got %lld", eg, want, ew,
			got);
}
#define CHECK_EQ(got, want) \
	eq_at((long long)(got), (long long)(want), __LINE__, #got, #want)

static inline void ne_at(long long a, long long b, int line, const char *ea,
			 const char *eb)
{
	if (a == b)
		fail_at(line, "%s and %s: expected different values, both %lld",
			ea, eb, a);
}
#define CHECK_NE(a, b) \
	ne_at((long long)(a), (long long)(b), __LINE__, #a, #b)

/* close what a case left open (but @keep) */
static inline void tcase_close_fds(int keep)
{
	for (int i = 3; i < MAXFD; i++)
		if (!g_fd_open_at_start[i] && i != keep)
			close(i);
}

/* the case's line: PASS, or FAIL with g_msg on one line; returns @failed */
static inline int tcase_report(const char *name, int failed)
{
	const char *s;

	if (!failed) {
		printf("PASS %s\n", name);
		return 0;
	}
	printf("FAIL %s: ", name);
	for (s = g_msg; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	printf("\n");
	return 1;
}

/*
 * Run @tc's function, for at most @secs seconds (then SIGALRM, whose
 * handler the program sets); returns whether the case failed.
 */
static inline int tcase_call(const struct tcase *tc, unsigned int secs)
{
	volatile int failed = 0;

	g_case = tc->name;
	g_msg[0] = 0;
	fflush(stdout);
	alarm(secs);
	if (sigsetjmp(g_jmp, 1) == 0)
		tc->fn();
	else
		failed = 1;
	alarm(0);
	return failed;
}

/*
 * The program (see the head).  --list prints the cases (status 0); a
 * usage error, an unknown case, not being root or a failing @setup is
 * status 2.  Else DIR is opened into *@dirfd, the descriptors open then
 * are noted (tcase_close_fds), @setup(DIR) runs, then @run for each case
 * selected, and "PROG: N passed, N failed"; status 1 when one failed.
 */
static inline int tcase_main(int argc, char **argv, const char *prog,
			     const struct tcase *cases, size_t n, int *dirfd,
			     int (*setup)(const char *dir),
			     int (*run)(const struct tcase *tc))
{
	const struct tcase *sel[n];
	size_t i, nsel = 0;
	int a, passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < n; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s DIR [CASE...]\n"
			"       %s --list\n", prog, prog);
		return 2;
	}
	for (i = 0; argc == 2 && i < n; i++)
		sel[nsel++] = &cases[i];
	for (a = 2; a < argc; a++) {
		for (i = 0; i < n; i++)
			if (!strcmp(argv[a], cases[i].name))
				break;
		if (i == n) {
			fprintf(stderr, "%s: unknown case '%s' (see --list)\n",
				prog, argv[a]);
			return 2;
		}
		if (nsel < n)
			sel[nsel++] = &cases[i];
	}
	if (geteuid() != 0) {
		fprintf(stderr, "%s: must run as root\n", prog);
		return 2;
	}
	*dirfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (*dirfd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[1], strerror(errno));
		return 2;
	}
	for (a = 0; a < MAXFD; a++)
		g_fd_open_at_start[a] = fcntl(a, F_GETFD) != -1;
	if (setup(argv[1]))
		return 2;
	for (i = 0; i < nsel; i++) {
		if (run(sel[i]))
			failed++;
		else
			passed++;
	}
	printf("%s: %d passed, %d failed\n", prog, passed, failed);
	return failed ? 1 : 0;
}

#endif /* TCASE_H */
