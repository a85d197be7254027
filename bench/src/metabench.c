// SPDX-License-Identifier: GPL-2.0
/*
 * metabench: metadata micro-benchmark for the NOVA benchmark suite.
 *
 * Times four phases over N empty files, each phase on its own:
 *   create  open(O_CREAT|O_EXCL|O_WRONLY) + close
 *   stat    stat() of every file
 *   rename  rename() of every file to a new name in the same directory
 *   unlink  unlink() of every (renamed) file
 * in one of two layouts:
 *   -d 1    all N files in one directory          (DIR/d000/)
 *   -d 100  spread round-robin over 100 directories (DIR/d000..d099/)
 * The directories are made before the clock starts and removed at the end.
 *
 * Usage: metabench [-n N] [-d NDIRS] [-k] [-q] DIR
 *   -n N     number of files (default 100000)
 *   -d NDIRS directories to spread them over (default 1)
 *   -k       create only, keep the files (for the mount-time benchmark)
 *   -q       no per-phase progress on stderr
 * Output, one line per phase (stdout):
 *   metabench phase=create dirs=1 files=100000 secs=1.234567 ops_per_sec=81000.0 us_per_op=12.35
 * Exit status 0 on success; any failing system call is reported and ends the run.
 *
 * Static binary (busybox guest has no libc): gcc -static -O2 -o metabench metabench.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long nfiles = 100000;
static int ndirs = 1;
static const char *root;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "metabench: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* File i lives in directory i % ndirs; prefix 'f' before rename, 'r' after. */
static void path_of(char *buf, size_t len, long i, char prefix)
{
	snprintf(buf, len, "%s/d%03ld/%c%08ld", root, i % ndirs, prefix, i);
}

static void report(const char *phase, double secs)
{
	printf("metabench phase=%s dirs=%d files=%ld secs=%.6f ops_per_sec=%.1f us_per_op=%.2f\n",
	       phase, ndirs, nfiles, secs, nfiles / secs, secs * 1e6 / nfiles);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char p[4096], q[4096];
	int opt, keep = 0, quiet = 0;
	double t0;
	struct stat st;
	long i;

	while ((opt = getopt(argc, argv, "n:d:kq")) != -1) {
		switch (opt) {
		case 'n': nfiles = atol(optarg); break;
		case 'd': ndirs = atoi(optarg); break;
		case 'k': keep = 1; break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "usage: metabench [-n N] [-d NDIRS] [-k] [-q] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1 || nfiles <= 0 || ndirs <= 0 || ndirs > 1000) {
		fprintf(stderr, "usage: metabench [-n N] [-d NDIRS] [-k] [-q] DIR\n");
		return 2;
	}
	root = argv[optind];
	for (i = 0; i < ndirs; i++) {
		snprintf(p, sizeof(p), "%s/d%03ld", root, i);
		if (mkdir(p, 0755) && errno != EEXIST)
			die("mkdir", p);
	}
	sync();

	t0 = now();
	for (i = 0; i < nfiles; i++) {
		int fd;

		path_of(p, sizeof(p), i, 'f');
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create", p);
		close(fd);
	}
	report("create", now() - t0);
	if (keep)
		return 0;
	if (!quiet)
		fprintf(stderr, "metabench: created %ld files\n", nfiles);

	t0 = now();
	for (i = 0; i < nfiles; i++) {
		path_of(p, sizeof(p), i, 'f');
		if (stat(p, &st))
			die("stat", p);
	}
	report("stat", now() - t0);

	t0 = now();
	for (i = 0; i < nfiles; i++) {
		path_of(p, sizeof(p), i, 'f');
		path_of(q, sizeof(q), i, 'r');
		if (rename(p, q))
			die("rename", p);
	}
	report("rename", now() - t0);

	t0 = now();
	for (i = 0; i < nfiles; i++) {
		path_of(p, sizeof(p), i, 'r');
		if (unlink(p))
			die("unlink", p);
	}
	report("unlink", now() - t0);

	for (i = 0; i < ndirs; i++) {
		snprintf(p, sizeof(p), "%s/d%03ld", root, i);
		if (rmdir(p))
			die("rmdir", p);
	}
	return 0;
}
