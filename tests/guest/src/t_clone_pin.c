// SPDX-License-Identifier: GPL-2.0
/*
 * t_clone_pin: a clone or dedupe that waits for a pinned page of its
 * destination range drops the invalidate lock; a fault may map a page of
 * the source range meanwhile.  When the clone shares the blocks, no
 * mapping may still map one writable, and a dedupe must share only what
 * it compared (tests/guest/100-reflink-pin.sh).
 *
 *   t_clone_pin DIR
 *
 * Each case: the destination range's first page is vmsplice'd into a pipe
 * that nobody reads (a page reference, as an O_DIRECT read into a mapped
 * buffer holds); a child runs the clone, which must wait for it; this
 * process then stores through a writable shared mapping of the source
 * range (a write fault during the wait), reads the pipe (the clone goes
 * on), and after the clone stores again through the same mapping:
 *
 *  clone, one file:    FICLONERANGE pages 0-1 -> 4-5 of DIR/f; the store
 *                      after the clone must not reach the destination;
 *  dedupe, one file:   FIDEDUPERANGE of two equal ranges of DIR/f; the
 *                      store during the wait makes them differ: the
 *                      dedupe must say so and leave the destination;
 *  clone, two files:   DIR/s -> DIR/d; the store during the wait runs in
 *                      a second child (it may wait for the clone).
 *
 * Exit status 0 when every check passed; 1 otherwise (each failed check
 * is printed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define BS	4096
#define NP	8	/* pages of each file */
#define SRC	0	/* first page of the source range (2 pages) */
#define DST	4	/* first page of the destination range */

static const char *dir;
static int bad;

static void die(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	printf("t_clone_pin: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(e));
	exit(1);
}

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	bad++;
}

/* DIR/name with NP pages: page i filled with fill(i) */
static int make_file(const char *name, char (*fill)(int))
{
	char path[4200], buf[BS];
	int fd, i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		die("open %s", path);
	for (i = 0; i < NP; i++) {
		memset(buf, fill(i), BS);
		if (pwrite(fd, buf, BS, (off_t)i * BS) != BS)
			die("write %s", path);
	}
	return fd;
}

static char fill_distinct(int i)
{
	return 'a' + i;
}

/* the source and destination ranges hold the same bytes */
static char fill_equal(int i)
{
	return (i >= DST && i < DST + 2) ? 's' + i - DST :
	       (i >= SRC && i < SRC + 2) ? 's' + i - SRC : 'a' + i;
}

static char *map_file(int fd)
{
	char *m = mmap(NULL, NP * BS, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);

	if (m == MAP_FAILED)
		die("mmap");
	return m;
}

/* pin page @pg of mapping @m: returns the pipe's read end */
static int pin(char *m, int pg, int *wfd)
{
	struct iovec iov = { .iov_base = m + (size_t)pg * BS, .iov_len = BS };
	int p[2];

	if (pipe(p))
		die("pipe");
	if (vmsplice(p[1], &iov, 1, 0) != BS)
		die("vmsplice");
	*wfd = p[1];
	return p[0];
}

static void unpin(int rfd, int wfd)
{
	char buf[BS];

	if (read(rfd, buf, BS) != BS)
		die("read the pipe");
	close(rfd);
	close(wfd);
}

enum op { CLONE, DEDUPE };

/*
 * Fork a child that clones (or dedupes) 2 pages from @sfd at SRC to @dfd
 * at DST; it writes 0 or an errno, then for a dedupe its status, to the
 * pipe whose read end is returned.
 */
static int start(enum op op, int sfd, int dfd, pid_t *pid)
{
	int p[2], res[2] = { 0, 0 };

	if (pipe(p))
		die("pipe");
	fflush(stdout);
	*pid = fork();
	if (*pid < 0)
		die("fork");
	if (!*pid) {
		close(p[0]);
		if (op == CLONE) {
			struct file_clone_range r = {
				.src_fd = sfd,
				.src_offset = SRC * BS,
				.src_length = 2 * BS,
				.dest_offset = DST * BS,
			};

			if (ioctl(dfd, FICLONERANGE, &r))
				res[0] = errno;
		} else {
			struct {
				struct file_dedupe_range r;
				struct file_dedupe_range_info i;
			} d = {
				.r = { .src_offset = SRC * BS,
				       .src_length = 2 * BS, .dest_count = 1 },
				.i = { .dest_fd = dfd, .dest_offset = DST * BS },
			};

			if (ioctl(sfd, FIDEDUPERANGE, &d))
				res[0] = errno;
			res[1] = d.i.status;
		}
		if (write(p[1], res, sizeof(res)) != sizeof(res))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

/* the child's result within @ms: 1, or 0 while it still runs */
static int result(int rfd, int ms, int res[2])
{
	struct pollfd pfd = { .fd = rfd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	if (read(rfd, res, 2 * sizeof(int)) != 2 * sizeof(int))
		res[0] = -1;
	close(rfd);
	return 1;
}

/* byte @off of @fd read with pread */
static char byte_at(int fd, off_t off)
{
	char c = 0;

	if (pread(fd, &c, 1, off) != 1)
		die("pread");
	return c;
}

static void run_case(const char *what, enum op op, int two)
{
	int sfd, dfd, prfd, pwfd, rfd, res[2], waited;
	char *sm, *dm, d0, d1;
	pid_t pid, storer = 0;

	printf("%s\n", what);
	sfd = make_file(two ? "s" : "f", op == DEDUPE ? fill_equal :
							fill_distinct);
	dfd = two ? make_file("d", fill_distinct) : sfd;
	if (fsync(sfd) || fsync(dfd))
		die("fsync");
	sm = map_file(sfd);
	dm = two ? map_file(dfd) : sm;
	d0 = byte_at(dfd, DST * BS);
	d1 = byte_at(dfd, DST * BS + 1);
	prfd = pin(dm, DST, &pwfd);
	rfd = start(op, sfd, dfd, &pid);
	/* under TCG the clone may take a while to reach its wait */
	waited = !result(rfd, 3000, res);
	check(waited, "%s: did not wait for the pinned page", what);
	if (two) {
		/* (it may wait for the clone's invalidate locks) */
		storer = fork();
		if (storer < 0)
			die("fork");
		if (!storer) {
			sm[SRC * BS] = 'X';
			_exit(0);
		}
		sleep(2);
	} else {
		/* a write fault on the source range during the wait */
		sm[SRC * BS] = 'X';
	}
	unpin(prfd, pwfd);
	if (waited && !result(rfd, 120000, res))
		die("%s: the clone did not end 120 s after the pin went", what);
	waitpid(pid, NULL, 0);
	if (storer)
		waitpid(storer, NULL, 0);
	/* after the clone: a store through the source's old mapping */
	sm[SRC * BS + 1] = 'Y';
	if (op == CLONE) {
		check(res[0] == 0, "%s: FICLONERANGE failed: %s", what,
		      strerror(res[0]));
		check(byte_at(dfd, DST * BS + 1) != 'Y',
		      "%s: a store to the source after the clone changed the destination (its page was still mapped writable)",
		      what);
		check(byte_at(sfd, SRC * BS + 1) == 'Y',
		      "%s: the store to the source is lost", what);
	} else {
		check(res[0] == 0, "%s: FIDEDUPERANGE failed: %s", what,
		      strerror(res[0]));
		check(res[1] == FILE_DEDUPE_RANGE_DIFFERS,
		      "%s: status %d, expected FILE_DEDUPE_RANGE_DIFFERS (%d): the source changed before the compare",
		      what, res[1], FILE_DEDUPE_RANGE_DIFFERS);
		check(byte_at(dfd, DST * BS) == d0 &&
		      byte_at(dfd, DST * BS + 1) == d1,
		      "%s: the destination reads '%c%c', not '%c%c': a dedupe changed its data",
		      what, byte_at(dfd, DST * BS), byte_at(dfd, DST * BS + 1),
		      d0, d1);
	}
	munmap(sm, NP * BS);
	if (two)
		munmap(dm, NP * BS);
	close(sfd);
	if (two)
		close(dfd);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: t_clone_pin DIR\n");
		return 2;
	}
	dir = argv[1];
	alarm(600);
	run_case("clone, one file", CLONE, 0);
	run_case("dedupe, one file", DEDUPE, 0);
	run_case("clone, two files", CLONE, 1);
	printf("%s\n", bad ? "FAILED" : "passed");
	return !!bad;
}
