// SPDX-License-Identifier: GPL-2.0
/*
 * t_dax_stale: reproducer for stale DAX page-cache entries after a
 * copy-on-write write (found by nova_fuzz).
 *
 *   t_dax_stale DIR
 *
 * 1. file A, one page; mmap it, read the page, munmap: A's mapping now
 *    holds a DAX entry for A's block X (and X's struct page points to A's
 *    mapping);
 * 2. pwrite A's page: NOVA copies on write (A is not mapped any more), so
 *    A gets a new block Y and X is freed - but the DAX entry for X stays
 *    in A's mapping;
 * 3. file B, one page: first fit hands out X again;
 * 4. mmap B and read: dax_associate_entry() finds X's page still owned
 *    by A's mapping: WARNING at fs/dax.c (dax_associate_entry);
 * 5. mmap A again and read: must show A's new data.
 * Every step runs on CPU 0 so that both files use the same allocator.
 * Exit status 0 when the data checks pass (the kernel log is checked by
 * the caller); 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define N 64

static int fail(const char *what)
{
	printf("t_dax_stale: %s: %s\n", what, strerror(errno));
	return 1;
}

static int put(const char *p, char c)
{
	char buf[4096];
	int fd = open(p, O_CREAT | O_WRONLY, 0644);

	memset(buf, c, sizeof(buf));
	if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return -1;
	return close(fd);
}

/* mmap @p, return its first byte (or -1) */
static int peek(const char *p)
{
	int fd = open(p, O_RDONLY), c;
	unsigned char *m;

	if (fd < 0)
		return -1;
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	c = m[0];
	munmap(m, 4096);
	return c;
}

static const char *dir;

/* DIR/<@series><@i> */
static const char *path(char series, int i)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/%c%d", dir, series, i);
	return p;
}

/* fill the page of each file of @series with @c */
static int put_all(char series, char c)
{
	int i;

	for (i = 0; i < N; i++)
		if (put(path(series, i), c))
			return -1;
	return 0;
}

/* map and read each file of @series: how many do not read @c */
static int bad_reads(char series, char c)
{
	int i, got, bad = 0;

	for (i = 0; i < N; i++) {
		got = peek(path(series, i));
		if (got != c) {
			printf("%c%d reads '%c' through mmap\n", series, i, got);
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	cpu_set_t set;
	int i, bad;

	if (argc != 2) {
		fprintf(stderr, "usage: t_dax_stale DIR\n");
		return 2;
	}
	dir = argv[1];
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	/* many pairs, so that some B gets some A's old block as data */
	for (i = 0; i < N; i++) {
		if (put(path('A', i), 'a'))
			return fail("write A");
		if (peek(path('A', i)) != 'a')
			return fail("A's data through mmap");
	}
	printf("1. %d files A written, mapped, read and unmapped\n", N);
	if (put_all('A', 'A'))
		return fail("overwrite A");
	printf("2. the A files overwritten (copy-on-write frees their old blocks)\n");
	if (put_all('B', 'b'))
		return fail("write B");
	printf("3. %d files B written (they reuse the freed blocks)\n", N);
	bad = bad_reads('B', 'b');
	printf("4. the B files mapped and read\n");
	bad += bad_reads('A', 'A');
	printf("5. the A files mapped and read again: %d wrong\n", bad);
	return bad ? 1 : 0;
}
