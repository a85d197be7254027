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
 * With -t T, T processes (fork) share the N files, each its N/T of them in
 * its own NDIRS directories (process k: DIR/d<k*NDIRS>..d<k*NDIRS+NDIRS-1>),
 * and every phase is timed from before the first process is forked until the
 * last one has exited: ops_per_sec is the aggregate throughput of all T.
 * The directories are made before the clock starts and removed at the end.
 *
 * Usage: metabench [-n N] [-d NDIRS] [-t T] [-k] [-q] DIR
 *   -n N     number of files, all processes together (default 100000)
 *   -d NDIRS directories per process to spread them over (default 1)
 *   -t T     processes (default 1: no fork, the files in DIR/d000..)
 *   -k       create only, keep the files (for the mount-time benchmark)
 *   -q       no per-phase progress on stderr
 * Output, one line per phase (stdout):
 *   metabench phase=create dirs=1 files=100000 threads=1 secs=1.234567 ops_per_sec=81000.0 us_per_op=12.35
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long nfiles = 100000;
static int ndirs = 1;
static int nthreads = 1;
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

/*
 * File i of process k lives in directory k * ndirs + i % ndirs; prefix 'f'
 * before rename, 'r' after.
 */
static void path_of(char *buf, size_t len, int k, long i, char prefix)
{
	snprintf(buf, len, "%s/d%03ld/%c%08ld", root, (long)k * ndirs + i % ndirs, prefix, i);
}

/* Process k's share of the files: [first(k), first(k + 1)) */
static long first(int k)
{
	return nfiles * k / nthreads;
}

static void do_create(int k)
{
	char p[4096];
	long i;

	for (i = first(k); i < first(k + 1); i++) {
		int fd;

		path_of(p, sizeof(p), k, i, 'f');
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create", p);
		close(fd);
	}
}

static void do_stat(int k)
{
	char p[4096];
	struct stat st;
	long i;

	for (i = first(k); i < first(k + 1); i++) {
		path_of(p, sizeof(p), k, i, 'f');
		if (stat(p, &st))
			die("stat", p);
	}
}

static void do_rename(int k)
{
	char p[4096], q[4096];
	long i;

	for (i = first(k); i < first(k + 1); i++) {
		path_of(p, sizeof(p), k, i, 'f');
		path_of(q, sizeof(q), k, i, 'r');
		if (rename(p, q))
			die("rename", p);
	}
}

static void do_unlink(int k)
{
	char p[4096];
	long i;

	for (i = first(k); i < first(k + 1); i++) {
		path_of(p, sizeof(p), k, i, 'r');
		if (unlink(p))
			die("unlink", p);
	}
}

static void report(const char *phase, double secs)
{
	printf("metabench phase=%s dirs=%d files=%ld threads=%d secs=%.6f ops_per_sec=%.1f us_per_op=%.2f\n",
	       phase, ndirs, nfiles, nthreads, secs, nfiles / secs, secs * 1e6 / nfiles);
	fflush(stdout);
}

/*
 * One phase over all the files: in this process (-t 1), or in nthreads
 * children, timed from before the first fork until the last child has been
 * reaped. A failing child has printed why; the run ends once all are back.
 */
static void phase(const char *name, void (*fn)(int k))
{
	double t0 = now();
	int k, status, failed = 0;
	pid_t pid;

	if (nthreads == 1) {
		fn(0);
		report(name, now() - t0);
		return;
	}
	for (k = 0; k < nthreads; k++) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "metabench: fork: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		if (pid == 0) {
			fn(k);
			_exit(0);
		}
	}
	while ((pid = wait(&status)) > 0 || (pid < 0 && errno == EINTR))
		if (pid > 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
			failed = 1;
	if (failed) {
		fprintf(stderr, "metabench: phase %s failed\n", name);
		exit(1);
	}
	report(name, now() - t0);
}

#define USAGE "usage: metabench [-n N] [-d NDIRS] [-t T] [-k] [-q] DIR\n"

int main(int argc, char **argv)
{
	char p[4096];
	int opt, keep = 0, quiet = 0;
	long i;

	while ((opt = getopt(argc, argv, "n:d:t:kq")) != -1) {
		switch (opt) {
		case 'n': nfiles = atol(optarg); break;
		case 'd': ndirs = atoi(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 'k': keep = 1; break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, USAGE);
			return 2;
		}
	}
	if (optind != argc - 1 || nfiles <= 0 || ndirs <= 0 || ndirs > 1000 ||
	    nthreads <= 0 || nthreads > 1024 || nthreads > nfiles) {
		fprintf(stderr, USAGE);
		return 2;
	}
	root = argv[optind];
	for (i = 0; i < (long)ndirs * nthreads; i++) {
		snprintf(p, sizeof(p), "%s/d%03ld", root, i);
		if (mkdir(p, 0755) && errno != EEXIST)
			die("mkdir", p);
	}
	sync();

	phase("create", do_create);
	if (keep)
		return 0;
	if (!quiet)
		fprintf(stderr, "metabench: created %ld files\n", nfiles);
	phase("stat", do_stat);
	phase("rename", do_rename);
	phase("unlink", do_unlink);

	for (i = 0; i < (long)ndirs * nthreads; i++) {
		snprintf(p, sizeof(p), "%s/d%03ld", root, i);
		if (rmdir(p))
			die("rmdir", p);
	}
	return 0;
}
