// SPDX-License-Identifier: GPL-2.0
/*
 * t_mmap_race: write() and a store through a shared mapping into the same
 * hole page, on disjoint bytes, at the same time.
 *
 *   t_mmap_race DIR [PAGES]
 *
 * DIR/race is PAGES pages of holes, mapped shared.  For each page in
 * turn, one thread stores a pattern into its first half through the
 * mapping (a write fault allocates the page's block) while the other
 * pwrite()s its second half (the write copies on write: a new block,
 * whose first half it fills from the page's old contents).  Both start
 * together (a spin barrier; a per-page jitter varies which gets ahead).
 * Afterwards both halves must hold what was stored: a write that
 * replaces the block the fault gave the page, with the old contents read
 * before the fault, loses the stores made through the mapping.
 * Prints the number of pages that lost bytes; exit status 1 if any did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG	4096
#define HALF	(PG / 2)

static int fd;
static unsigned char *map;
static long npages;
static atomic_long go = -1, done_w = -1;

static unsigned char pat_m(long pg, long i)
{
	return (unsigned char)(0x80 | ((pg * 13 + i) & 0x7f));
}

static unsigned char pat_w(long pg, long i)
{
	return (unsigned char)(1 + ((pg * 7 + i) % 127));
}

static void spin(unsigned n)
{
	volatile unsigned i;

	for (i = 0; i < n; i++)
		;
}

static void *writer(void *arg)
{
	unsigned char buf[HALF];
	long pg, i;

	(void)arg;
	for (pg = 0; pg < npages; pg++) {
		for (i = 0; i < HALF; i++)
			buf[i] = pat_w(pg, i);
		while (atomic_load(&go) < pg)
			;
		spin((pg * 7919) % 2000);
		if (pwrite(fd, buf, HALF, pg * PG + HALF) != HALF) {
			perror("pwrite");
			exit(1);
		}
		atomic_store(&done_w, pg);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	unsigned char *chk;
	long pg, i, lost = 0, lost_w = 0, first = -1;
	pthread_t t;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: t_mmap_race DIR [PAGES]\n");
		return 2;
	}
	npages = argc == 3 ? atol(argv[2]) : 2000;
	snprintf(path, sizeof(path), "%s/race", argv[1]);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || ftruncate(fd, npages * PG)) {
		perror(path);
		return 1;
	}
	map = mmap(NULL, npages * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (pthread_create(&t, NULL, writer, NULL)) {
		perror("pthread_create");
		return 1;
	}
	for (pg = 0; pg < npages; pg++) {
		atomic_store(&go, pg);
		spin((pg * 104729) % 2000);
		for (i = 0; i < HALF; i++)
			map[pg * PG + i] = pat_m(pg, i);
		while (atomic_load(&done_w) < pg)
			;
	}
	pthread_join(t, NULL);
	chk = malloc(PG);
	for (pg = 0; pg < npages; pg++) {
		int bad_m = 0, bad_w = 0;

		if (pread(fd, chk, PG, pg * PG) != PG) {
			perror("pread");
			return 1;
		}
		for (i = 0; i < HALF; i++) {
			bad_m |= chk[i] != pat_m(pg, i) || map[pg * PG + i] != pat_m(pg, i);
			bad_w |= chk[HALF + i] != pat_w(pg, i);
		}
		if (bad_m && first < 0)
			first = pg;
		lost += bad_m;
		lost_w += bad_w;
	}
	printf("%s: %ld of %ld pages lost the stores made through the mapping",
	       lost || lost_w ? "FAIL" : "PASS", lost, npages);
	if (first >= 0)
		printf(" (first: page %ld, byte 0 reads 0x%02x, stored 0x%02x)", first,
		       (pread(fd, chk, 1, first * PG) == 1 ? chk[0] : 0), pat_m(first, 0));
	printf("; %ld lost the write's bytes\n", lost_w);
	munmap(map, npages * PG);
	close(fd);
	unlink(path);
	return lost || lost_w ? 1 : 0;
}
