// SPDX-License-Identifier: GPL-2.0
/*
 * t_dax_pin: a block that a get_user_pages reference still pins is never
 * freed (tests/guest/097-dax-pinned.sh).
 *
 *   t_dax_pin DIR cow|inplace
 *
 * (inplace: the file system writes existing pages in place.)  DIR/f has
 * NP pages, page i filled with 'a' + i.  This process maps it (DAX) and
 * vmsplices page PIN into a pipe that nobody reads: the pipe buffer holds
 * a reference on the pmem page, as an O_DIRECT read into a mapped buffer
 * would while it runs.  A child then runs an operation that frees the
 * pinned page's block (ftruncate to 0, PUNCH_HOLE or ZERO_RANGE of that
 * page; with cow, also a write to the page of the unmapped file):
 *
 *  wait:    it must wait for the pin (it is still in its system call
 *           after 2 s) with nothing changed meanwhile: the file size
 *           is the old one;
 *  signal:  SIGKILL, or SIGUSR1 caught without SA_RESTART (the call then
 *           fails with EINTR), ends the wait; size, st_blocks, the free
 *           block count and the contents are as before, and NEW files
 *           written afterwards do not get the pinned block: the pipe then
 *           reads the page's own data;
 *  release: reading the pipe drops the pin while the child waits: the
 *           operation then completes.
 *
 * The same again after munmap: the pin outlives the mapping (before
 * 6.15, dax_layout_busy_page_range() skips files that nobody maps).
 * Growing the file and shrinking it to above the pinned page free no
 * pinned block: they do not wait.  Everything runs on CPU 0, so that a
 * freed block goes to the very next allocations.  Exit status 0 when
 * every check passed; 1 otherwise (each failed check is printed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BS	4096
#define NP	4	/* pages of DIR/f */
#define PIN	1	/* the pinned page */
#define NEW	32	/* one-page files that would reuse a freed block */

enum op { OP_TRUNC, OP_PUNCH, OP_ZERO, OP_WRITE, OP_GROW, OP_TRUNC_ABOVE };

static const char *const op_name[] = {
	[OP_TRUNC] = "truncate to 0",
	[OP_PUNCH] = "punch hole",
	[OP_ZERO] = "zero range",
	[OP_WRITE] = "write",
	[OP_GROW] = "truncate up",
	[OP_TRUNC_ABOVE] = "truncate above the pinned page",
};

static const char *dir;
static char path[4096];
static int fd = -1;		/* DIR/f */
static char *map;		/* DIR/f, mapped (NULL: unmapped) */
static int unmap;		/* unmap DIR/f once its page is pinned */
static int pin[2] = { -1, -1 };	/* the pipe that holds page PIN */
static pid_t child;		/* the child running an operation */
static int bad;

/* a broken precondition: no point going on */
static void die(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	printf("t_dax_pin: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(e));
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

/* a failed check: print it, go on */
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

static void setup(void)
{
	char buf[BS];
	int i;

	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		die("open %s", path);
	for (i = 0; i < NP; i++) {
		memset(buf, 'a' + i, BS);
		if (pwrite(fd, buf, BS, (off_t)i * BS) != BS)
			die("write %s", path);
	}
	if (fsync(fd))
		die("fsync");
	map = mmap(NULL, NP * BS, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
}

static void teardown(void)
{
	if (map)
		munmap(map, NP * BS);
	close(fd);
	if (unlink(path))
		die("unlink %s", path);
}

/* vmsplice page PIN of the mapping into a new pipe: a page reference */
static void pin_page(void)
{
	struct iovec iov = { .iov_base = map + PIN * BS, .iov_len = BS };

	if (map[PIN * BS] != 'a' + PIN)
		die("page %d reads '%c' through the mapping", PIN, map[PIN * BS]);
	if (pipe(pin))
		die("pipe");
	if (vmsplice(pin[1], &iov, 1, 0) != BS)
		die("vmsplice");
	if (unmap) {
		munmap(map, NP * BS);
		map = NULL;
	}
}

/* read the pipe (dropping the pin): it must hold page PIN's data */
static void unpin(const char *what)
{
	char buf[BS];
	int i;

	if (read(pin[0], buf, BS) != BS)
		die("read the pipe");
	for (i = 0; i < BS && buf[i] == 'a' + PIN; i++)
		;
	check(i == BS,
	      "%s: the pinned page reads '%c' (0x%02x) at byte %d, not '%c': its block went to another file",
	      what, buf[i], (unsigned char)buf[i], i, 'a' + PIN);
	close(pin[0]);
	close(pin[1]);
}

struct state {
	off_t size;
	blkcnt_t blocks;
	unsigned long long bfree;
};

static void snap(struct state *s)
{
	struct stat st;
	struct statfs sf;

	if (fstat(fd, &st) || fstatfs(fd, &sf))
		die("stat");
	s->size = st.st_size;
	s->blocks = st.st_blocks;
	s->bfree = sf.f_bfree;
}

/* page @pg of DIR/f must read @c from byte 0 up to the file size */
static void check_page(int pg, char c, const char *what)
{
	char buf[BS];
	ssize_t n = pread(fd, buf, BS, (off_t)pg * BS);
	int i;

	if (n < 0)
		die("read %s", path);
	for (i = 0; i < n && buf[i] == c; i++)
		;
	check(i == n, "%s: page %d reads 0x%02x at byte %d, expected 0x%02x",
	      what, pg, (unsigned char)buf[i], i, (unsigned char)c);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int do_op(enum op op)
{
	char buf[BS];

	switch (op) {
	case OP_TRUNC:
		return ftruncate(fd, 0);
	case OP_PUNCH:
		return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				 PIN * BS, BS);
	case OP_ZERO:
		return fallocate(fd, FALLOC_FL_ZERO_RANGE, PIN * BS, BS);
	case OP_WRITE:
		memset(buf, 'W', BS);
		return pwrite(fd, buf, BS, PIN * BS) == BS ? 0 : -1;
	case OP_GROW:
		return ftruncate(fd, (NP + 1) * BS);
	case OP_TRUNC_ABOVE:
		return ftruncate(fd, (PIN + 1) * BS + 100);
	}
	return -1;
}

static long op_syscall(enum op op)
{
	if (op == OP_WRITE)
		return SYS_pwrite64;
	return op == OP_PUNCH || op == OP_ZERO ? SYS_fallocate : SYS_ftruncate;
}

/*
 * Fork a child that runs @op; it writes its result (0 or an errno) to
 * the pipe whose read end is returned.  SIGUSR1 interrupts it (no
 * SA_RESTART).
 */
static int start(enum op op)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int p[2], err;

	if (pipe(p))
		die("pipe");
	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		close(p[0]);
		sigaction(SIGUSR1, &sa, NULL);
		err = do_op(op) ? errno : 0;
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

/*
 * The child's result within @ms: 1 and *@err (0, an errno, or -1 when it
 * died without one), or 0 when it is still running.  Reaps it when done.
 */
static int result(int rfd, int ms, int *err)
{
	struct pollfd pfd = { .fd = rfd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	if (read(rfd, err, sizeof(*err)) != sizeof(*err))
		*err = -1;
	close(rfd);
	waitpid(child, NULL, 0);
	child = 0;
	return 1;
}

/* the first word of /proc/PID/FILE */
static void proc_word(const char *file, char *w, size_t len)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/%s", (int)child, file);
	w[0] = 0;
	f = fopen(p, "r");
	if (!f)
		return;
	if (!fgets(w, len, f))
		w[0] = 0;
	w[strcspn(w, "\n ")] = 0;
	fclose(f);
}

/*
 * The child must be asleep in @op's system call, and still there 2 s
 * later.  Returns 1 if so; 0 when the operation finished (*@err).
 */
static int in_wait(enum op op, int rfd, int *err)
{
	char want[32], w[64];
	int i;

	snprintf(want, sizeof(want), "%ld", op_syscall(op));
	for (i = 0; i < 1200; i++) {	/* TCG is slow: up to 60 s */
		if (result(rfd, 50, err))
			return 0;
		proc_word("syscall", w, sizeof(w));
		if (!strcmp(w, want))
			break;
	}
	if (i == 1200) {
		errno = 0;
		die("%s: the child never slept in its system call", op_name[op]);
	}
	if (result(rfd, 2000, err))
		return 0;
	proc_word("wchan", w, sizeof(w));
	printf("  %s waits (wchan %s)\n", op_name[op], w[0] ? w : "?");
	return 1;
}

/* files that a freed block of DIR/f would go to */
static void write_new(int unlink_them)
{
	char p[4200], buf[BS];
	int i, nfd;

	memset(buf, 'Z', BS);
	for (i = 0; i < NEW; i++) {
		snprintf(p, sizeof(p), "%s/new%d", dir, i);
		if (unlink_them) {
			unlink(p);
			continue;
		}
		nfd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
		if (nfd < 0 || write(nfd, buf, BS) != BS || fsync(nfd))
			die("write %s", p);
		close(nfd);
	}
}

/*
 * Set up, pin a page (@s0: the state then) and start @op in the child
 * (its result pipe in *@rfd): @op must wait for the pin, and while it
 * waits the size is still @s0's.  Returns whether @op waits.
 */
static int pinned_wait(enum op op, const char *what, struct state *s0,
		       int *rfd)
{
	struct state s1;
	int err;

	printf("%s\n", what);
	setup();
	pin_page();
	snap(s0);
	*rfd = start(op);
	if (!in_wait(op, *rfd, &err)) {
		check(0, "%s: did not wait for the pinned page (result %d)",
		      what, err);
		return 0;
	}
	snap(&s1);
	check(s1.size == s0->size,
	      "%s: size %lld while waiting, expected %lld (committed before the wait)",
	      what, (long long)s1.size, (long long)s0->size);
	return 1;
}

/* @op on the pinned page, ended by signal @sig: nothing may change */
static void case_signal(enum op op, int sig, const char *sig_name)
{
	struct state s0, s1;
	int rfd, err, i, done;
	char what[128];

	snprintf(what, sizeof(what), "%s interrupted by %s%s", op_name[op],
		 sig_name, unmap ? ", file unmapped" : "");
	if (pinned_wait(op, what, &s0, &rfd)) {
		kill(child, sig);
		done = result(rfd, 60000, &err);
		if (!done)
			die("%s: still running 60 s after the signal", what);
		if (sig == SIGUSR1)
			check(err == EINTR, "%s: result %s, expected EINTR",
			      what, err ? strerror(err) : "success");
	}
	snap(&s1);
	check(s1.size == s0.size, "%s: size %lld, expected %lld", what,
	      (long long)s1.size, (long long)s0.size);
	check(s1.blocks == s0.blocks, "%s: st_blocks %lld, expected %lld",
	      what, (long long)s1.blocks, (long long)s0.blocks);
	check(s1.bfree == s0.bfree, "%s: %llu free blocks, expected %llu",
	      what, s1.bfree, s0.bfree);
	for (i = 0; i < NP && s1.size == s0.size; i++)
		check_page(i, 'a' + i, what);
	write_new(0);
	unpin(what);
	write_new(1);
	teardown();
}

/* @op waits for the pinned page; the pin goes: @op completes */
static void case_release(enum op op)
{
	struct state s0, s1;
	int rfd, err, i, waits;
	char what[128];

	snprintf(what, sizeof(what), "%s, pin released while it waits%s",
		 op_name[op], unmap ? ", file unmapped" : "");
	waits = pinned_wait(op, what, &s0, &rfd);
	unpin(what);
	if (waits) {
		if (!result(rfd, 60000, &err))
			die("%s: still waiting 60 s after the pin went", what);
		check(!err, "%s: %s", what, err ? strerror(err) : "");
	}
	snap(&s1);
	if (op == OP_TRUNC) {
		check(s1.size == 0 && s1.blocks == 0,
		      "%s: size %lld, st_blocks %lld, expected 0 and 0", what,
		      (long long)s1.size, (long long)s1.blocks);
		check(s1.bfree >= s0.bfree + NP,
		      "%s: %llu free blocks, expected at least %llu", what,
		      s1.bfree, s0.bfree + NP);
	} else {
		check(s1.size == s0.size, "%s: size %lld, expected %lld", what,
		      (long long)s1.size, (long long)s0.size);
		check(s1.blocks == s0.blocks - (op == OP_PUNCH ? BS / 512 : 0),
		      "%s: st_blocks %lld (before: %lld)", what,
		      (long long)s1.blocks, (long long)s0.blocks);
		for (i = 0; i < NP; i++)
			check_page(i, i != PIN ? 'a' + i :
				   op == OP_WRITE ? 'W' : 0, what);
	}
	teardown();
}

/* @op frees no pinned block: it must not wait */
static void case_unpinned(enum op op)
{
	off_t want = op == OP_GROW ? (NP + 1) * BS : (PIN + 1) * BS + 100;
	struct state s;
	int rfd, err;

	printf("%s, page %d pinned\n", op_name[op], PIN);
	setup();
	pin_page();
	rfd = start(op);
	if (!result(rfd, 60000, &err))
		check(0, "%s: waits", op_name[op]);
	else
		check(!err, "%s: %s", op_name[op], strerror(err));
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
		close(rfd);
	}
	snap(&s);
	check(s.size == want, "%s: size %lld, expected %lld", op_name[op],
	      (long long)s.size, (long long)want);
	check_page(PIN, 'a' + PIN, op_name[op]);
	unpin(op_name[op]);
	teardown();
}

int main(int argc, char **argv)
{
	cpu_set_t set;

	if (argc != 3 || (strcmp(argv[2], "cow") && strcmp(argv[2], "inplace"))) {
		fprintf(stderr, "usage: t_dax_pin DIR cow|inplace\n");
		return 2;
	}
	dir = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	case_signal(OP_TRUNC, SIGKILL, "SIGKILL");
	case_signal(OP_TRUNC, SIGUSR1, "SIGUSR1");
	case_signal(OP_PUNCH, SIGUSR1, "SIGUSR1");
	case_signal(OP_ZERO, SIGKILL, "SIGKILL");
	case_release(OP_TRUNC);
	case_release(OP_PUNCH);
	case_release(OP_ZERO);
	unmap = 1;
	case_signal(OP_TRUNC, SIGUSR1, "SIGUSR1");
	case_release(OP_TRUNC);
	case_signal(OP_PUNCH, SIGKILL, "SIGKILL");
	if (!strcmp(argv[2], "cow")) {
		case_signal(OP_WRITE, SIGUSR1, "SIGUSR1");
		case_release(OP_WRITE);
	}
	unmap = 0;
	case_unpinned(OP_GROW);
	case_unpinned(OP_TRUNC_ABOVE);
	printf("t_dax_pin: %s\n", bad ? "FAILED" : "all checks passed");
	return bad ? 1 : 0;
}
