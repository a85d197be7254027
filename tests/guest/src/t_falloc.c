// SPDX-License-Identifier: GPL-2.0
/*
 * t_falloc: fallocate(2) as the guest tests need to watch it.
 *
 *   t_falloc bounded FILE MODE OFF LEN SECS
 *       fallocate in a child process, which must return within SECS
 *       seconds: prints "ret=0|ERRNO secs=S.SSS", exit 0.  Otherwise
 *       prints "timeout after SECS s", kills the child (SIGKILL) and
 *       prints "killed: ended after N ms" or "killed: still running
 *       after 10 s", exit 1.
 *   t_falloc frozen FILE MODE OFF LEN MNT
 *       freeze the file system of MNT (FIFREEZE), fallocate in a child,
 *       which sleeps uninterruptibly until the thaw (sb_start_write() in
 *       vfs_fallocate()), SIGKILL it there, thaw (FITHAW): the call then
 *       starts with a fatal signal pending, whatever the speed of the
 *       machine.  Prints "ended N ms after the thaw" (exit 0), or what
 *       went wrong (exit 1).
 *   t_falloc rlimit FILE MODE OFF LEN LIMIT
 *       setrlimit(RLIMIT_FSIZE, LIMIT bytes), SIGXFSZ caught and
 *       counted, then the fallocate: prints "ret=0|ERRNO sigxfsz=N
 *       size=BYTES", exit 0.
 *
 * MODE: default, keep (KEEP_SIZE), punch (PUNCH_HOLE | KEEP_SIZE), zero
 * (ZERO_RANGE), zerokeep (ZERO_RANGE | KEEP_SIZE).  FILE is created if
 * it does not exist.  Exit 2 on usage and setup errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include "tutil.h"

static int parse_mode(const char *s)
{
	if (!strcmp(s, "default"))
		return 0;
	if (!strcmp(s, "keep"))
		return FALLOC_FL_KEEP_SIZE;
	if (!strcmp(s, "punch"))
		return FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	if (!strcmp(s, "zero"))
		return FALLOC_FL_ZERO_RANGE;
	if (!strcmp(s, "zerokeep"))
		return FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE;
	fprintf(stderr, "t_falloc: unknown mode %s\n", s);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	printf("error %s: %s\n", what, errname(errno));
	exit(2);
}

static int open_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT, 0644);

	if (fd < 0)
		die("open");
	return fd;
}

/* wait for @pid up to @secs; 1 if it ended (status in *@st), else 0 */
static int wait_for(pid_t pid, double secs, int *st)
{
	double end = now() + secs;
	struct timespec pause = { 0, 5 * 1000 * 1000 };

	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0)
			die("waitpid");
		if (now() > end)
			return 0;
		nanosleep(&pause, NULL);
	}
}

/*
 * The child: open @path, tell the parent on @wfd ('r') that the call
 * starts, fallocate, then send its errno (0: success) as an int.
 */
static pid_t start_child(const char *path, int mode, off_t off, off_t len,
			 int *rfd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd = open_file(path), e = 0, null = open("/dev/null", O_WRONLY);
		char c = 'r';

		/* a child stuck in the kernel must not keep the caller's output open */
		if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(3);
		close(p[0]);
		if (write(p[1], &c, 1) != 1)
			_exit(3);
		if (fallocate(fd, mode, off, len))
			e = errno;
		if (write(p[1], &e, sizeof(e)) != sizeof(e))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

/* after a SIGKILL: how long until @pid is gone (up to @secs) */
static int reap_killed(pid_t pid, double secs)
{
	double t0 = now();
	int st;

	kill(pid, SIGKILL);
	if (!wait_for(pid, secs, &st)) {
		printf("killed: still running after %.0f s\n", secs);
		return 1;
	}
	printf("killed: ended after %.0f ms%s\n", (now() - t0) * 1000,
	       WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "" :
	       " (not by SIGKILL)");
	return 0;
}

static int bounded(const char *path, int mode, off_t off, off_t len,
		   double secs)
{
	double t0 = now();
	int rfd, st, e;
	pid_t pid = start_child(path, mode, off, len, &rfd);
	char c;

	if (read(rfd, &c, 1) != 1)
		die("read (child start)");
	if (!wait_for(pid, secs, &st)) {
		printf("timeout after %.0f s\n", secs);
		reap_killed(pid, 10);
		return 1;
	}
	if (read(rfd, &e, sizeof(e)) != sizeof(e)) {
		printf("the child died (status 0x%x)\n", st);
		return 1;
	}
	printf("ret=%s secs=%.3f\n", e ? errname(e) : "0", now() - t0);
	return 0;
}

/* the state letter of process @pid (/proc/PID/stat), '?' if unknown */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

static int frozen(const char *path, int mode, off_t off, off_t len,
		  const char *mnt)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int fd = open_file(path), mfd = open(mnt, O_RDONLY | O_DIRECTORY);
	double t0;
	pid_t pid;
	int i, st;

	if (mfd < 0)
		die("open mount point");
	if (ioctl(mfd, FIFREEZE, 0))
		die("FIFREEZE");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		/* a child stuck in the kernel must not keep the caller's output open */
		if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(3);
		fallocate(fd, mode, off, len);
		_exit(0);
	}
	for (i = 0; i < 1000 && proc_state(pid) != 'D'; i++)
		nanosleep(&pause, NULL);
	if (proc_state(pid) != 'D') {
		printf("the fallocate did not wait for the thaw (state %c)\n",
		       proc_state(pid));
		ioctl(mfd, FITHAW, 0);
		kill(pid, SIGKILL);
		return 1;
	}
	kill(pid, SIGKILL);
	/* still waiting, now with SIGKILL pending */
	pause.tv_nsec = 100 * 1000 * 1000;
	nanosleep(&pause, NULL);
	if (proc_state(pid) != 'D') {
		printf("SIGKILL ended the wait for the thaw (state %c)\n",
		       proc_state(pid));
		ioctl(mfd, FITHAW, 0);
		return 1;
	}
	t0 = now();
	if (ioctl(mfd, FITHAW, 0))
		die("FITHAW");
	if (!wait_for(pid, 30, &st)) {
		printf("still running 30 s after the thaw\n");
		return 1;
	}
	printf("ended %.0f ms after the thaw%s\n", (now() - t0) * 1000,
	       WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "" :
	       " (not by SIGKILL)");
	return 0;
}

static volatile sig_atomic_t g_sigxfsz;

static void on_xfsz(int sig)
{
	(void)sig;
	g_sigxfsz++;
}

static int rlimited(const char *path, int mode, off_t off, off_t len,
		    unsigned long long limit)
{
	struct rlimit rl = { limit, limit };
	int fd = open_file(path), e = 0;
	struct stat st;

	signal(SIGXFSZ, on_xfsz);
	if (setrlimit(RLIMIT_FSIZE, &rl))
		die("setrlimit");
	if (fallocate(fd, mode, off, len))
		e = errno;
	if (fstat(fd, &st))
		die("fstat");
	printf("ret=%s sigxfsz=%d size=%lld\n", e ? errname(e) : "0",
	       (int)g_sigxfsz, (long long)st.st_size);
	return 0;
}

int main(int argc, char **argv)
{
	int mode;
	off_t off, len;

	if (argc != 7) {
		fprintf(stderr, "usage: t_falloc bounded FILE MODE OFF LEN SECS\n"
			"       t_falloc frozen FILE MODE OFF LEN MNT\n"
			"       t_falloc rlimit FILE MODE OFF LEN LIMIT\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	mode = parse_mode(argv[3]);
	off = strtoll(argv[4], NULL, 0);
	len = strtoll(argv[5], NULL, 0);
	if (!strcmp(argv[1], "bounded"))
		return bounded(argv[2], mode, off, len, strtod(argv[6], NULL));
	if (!strcmp(argv[1], "frozen"))
		return frozen(argv[2], mode, off, len, argv[6]);
	if (!strcmp(argv[1], "rlimit"))
		return rlimited(argv[2], mode, off, len,
				strtoull(argv[6], NULL, 0));
	fprintf(stderr, "t_falloc: unknown command %s\n", argv[1]);
	return 2;
}
