// SPDX-License-Identifier: GPL-2.0
/*
 * t_eof_zero: bytes between an old EOF and a new one read as zeros after
 * the file grows (POSIX), whatever was stored past the old EOF.
 *
 *   t_eof_zero mmap DIR      stores through a shared mapping past EOF in
 *                            the last page, then each way of growing the
 *                            file (a fresh file each):
 *                              truncate up, a write in the same page past
 *                              EOF, a write that leaves a gap, fallocate
 *                              (mode 0) past EOF, fallocate KEEP_SIZE then
 *                              truncate up; with the mapping kept and
 *                              after munmap
 *   t_eof_zero extend FILE N FILE has N bytes and may hide anything past
 *                            them (preallocated pages written in place by
 *                            a write that failed): grow it by a write with
 *                            a gap, fallocate and truncate, each time
 *                            checking that the new bytes are zeros
 *
 * A store through a mapping past EOF (in the last page: the kernel maps
 * the whole page) lands in the file's block.  A later extension that does
 * not rewrite those bytes made them file data.  Exit status 0 when every
 * check passes, 1 otherwise (each failure prints a FAIL line).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PG	4096
#define SIZE0	100	/* the file's size while the mapping stores past it */

static int fails;

static void failf(const char *what, const char *why)
{
	printf("FAIL: %s: %s\n", what, why);
	fails++;
}

/*
 * [from, to) of @fd must be zeros, [0, keep) the pattern byte 'A';
 * the size must be @size.
 */
static void check(int fd, const char *what, off_t keep, off_t from, off_t to,
		  off_t size)
{
	struct stat st;
	unsigned char *buf;
	off_t i, bad = -1, nbad = 0;

	if (fstat(fd, &st)) {
		failf(what, strerror(errno));
		return;
	}
	if (st.st_size != size) {
		printf("FAIL: %s: size %lld, expected %lld\n", what,
		       (long long)st.st_size, (long long)size);
		fails++;
		return;
	}
	buf = malloc(to);
	if (!buf || pread(fd, buf, to, 0) != to) {
		failf(what, "short read");
		free(buf);
		return;
	}
	for (i = 0; i < keep; i++)
		if (buf[i] != 'A') {
			printf("FAIL: %s: byte %lld of the data is 0x%02x, expected 'A'\n",
			       what, (long long)i, buf[i]);
			fails++;
			break;
		}
	for (i = from; i < to; i++)
		if (buf[i] && !nbad++)
			bad = i;
	if (nbad) {
		printf("FAIL: %s: %lld of the %lld bytes in [%lld, %lld) that the extension added are not zero (first at %lld: 0x%02x)\n",
		       what, (long long)nbad, (long long)(to - from), (long long)from,
		       (long long)to, (long long)bad, buf[bad]);
		fails++;
	} else {
		printf("PASS: %s: [%lld, %lld) reads as zeros\n", what,
		       (long long)from, (long long)to);
	}
	free(buf);
}

enum how { TRUNC, SAMEPAGE, GAP, FALLOC, KEEP_TRUNC, N_HOW };
static const struct {
	const char *name;
	off_t end;	/* the size it grows the file to */
} hows[N_HOW] = {
	[TRUNC] = { "truncate up", 3 * PG },
	[SAMEPAGE] = { "a write in the same page past EOF", 2000 },
	[GAP] = { "a write leaving a gap", 2 * PG + 10 },
	[FALLOC] = { "fallocate past EOF", 2 * PG + 10 },
	[KEEP_TRUNC] = { "fallocate KEEP_SIZE, then truncate up", 2 * PG + 10 },
};

/* grow @fd to @end bytes the way @how says; nonzero on an error (errno) */
static int grow(int fd, enum how how, off_t end)
{
	switch (how) {
	case TRUNC:
		return ftruncate(fd, end);
	case SAMEPAGE:
	case GAP:
		/* its last byte 'A' is data */
		return pwrite(fd, "A", 1, end - 1) != 1;
	case FALLOC:
		return fallocate(fd, 0, 0, end);
	case KEEP_TRUNC:
		return fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4 * PG) ||
		       ftruncate(fd, end);
	default:
		return 0;
	}
}

static void mmap_case(const char *dir, enum how how, int keep_map)
{
	char path[4096], what[256];
	unsigned char a[SIZE0];
	unsigned char *m;
	off_t end = hows[how].end;
	int fd;

	snprintf(path, sizeof(path), "%s/eof-%d-%d", dir, how, keep_map);
	snprintf(what, sizeof(what), "mmap store past EOF, %s, %s", hows[how].name,
		 keep_map ? "still mapped" : "after munmap");
	memset(a, 'A', sizeof(a));
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || pwrite(fd, a, SIZE0, 0) != SIZE0) {
		failf(what, "create");
		return;
	}
	m = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		failf(what, "mmap");
		close(fd);
		return;
	}
	/* past EOF: not file data, but it lands in the block */
	memset(m + SIZE0, 0xee, PG - SIZE0);
	if (msync(m, PG, MS_SYNC))
		failf(what, "msync");
	if (!keep_map)
		munmap(m, PG);
	if (grow(fd, how, end))
		failf(what, strerror(errno));
	check(fd, what, SIZE0, SIZE0,
	      how == SAMEPAGE || how == GAP ? end - 1 : end, end);
	if (keep_map)
		munmap(m, PG);
	close(fd);
	unlink(path);
}

/* FILE holds N bytes: grow it three ways, each time over hidden pages */
static int extend(const char *path, off_t n)
{
	off_t a, b, c;
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		failf(path, strerror(errno));
		return 1;
	}
	/* a write that leaves a gap of a few pages */
	a = n + 3 * PG + 123;
	if (pwrite(fd, "\0", 1, a) != 1)
		failf("extend: a write past EOF", strerror(errno));
	check(fd, "extend: a write past EOF leaving a gap", 0, n, a + 1, a + 1);
	/* fallocate (it allocates the holes) */
	b = a + 1 + 5 * PG + 7;
	if (fallocate(fd, 0, a + 1, b - a - 1))
		failf("extend: fallocate", strerror(errno));
	check(fd, "extend: fallocate past EOF", 0, a + 1, b, b);
	/* truncate over whatever else the write left */
	c = b + 4096L * PG;
	if (ftruncate(fd, c))
		failf("extend: truncate", strerror(errno));
	check(fd, "extend: truncate up", 0, b, c, c);
	close(fd);
	return fails != 0;
}

int main(int argc, char **argv)
{
	int how, k;

	if (argc == 4 && !strcmp(argv[1], "extend"))
		return extend(argv[2], atoll(argv[3]));
	if (argc != 3 || strcmp(argv[1], "mmap")) {
		fprintf(stderr, "usage: t_eof_zero mmap DIR | extend FILE N\n");
		return 2;
	}
	for (how = 0; how < N_HOW; how++)
		for (k = 1; k >= 0; k--)
			mmap_case(argv[2], how, k);
	printf("%s: %d failures\n", fails ? "FAIL" : "PASS", fails);
	return fails != 0;
}
