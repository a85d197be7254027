// SPDX-License-Identifier: GPL-2.0
/*
 * nova_fuzz: hostile-image fuzzer for NOVA, run inside one guest boot.
 *
 *   nova_fuzz run -d DEV -m MNT [-n ITERS] [-s SEED] [options]
 *   nova_fuzz replay SEED -d DEV -m MNT [-v]
 *
 * DEV is a small DAX block device (a partition of a pmem device, e.g.
 * 16 MiB).  Once per run the fuzzer formats it (mount -o init), runs a
 * deterministic workload (files, directories, symlinks, special files,
 * hard links, overwrites, truncates, fallocate, attributes, flags,
 * renames, mmap writes, directory churn that triggers GC, deletes) with
 * every operation pinned to a CPU chosen by the workload's RNG (NOVA's
 * stripe is the CPU number, so the layout is reproducible), and keeps two
 * base images in memory:
 *
 *   live   copied while mounted: what a power cut leaves; mount scans
 *   clean  after umount: with the clean-unmount snapshot; mount restores
 *
 * Each iteration (its own 64-bit seed, derived from the run seed) takes
 * one base image, applies 1-3 corruptions chosen from a catalogue of the
 * image's structures (super block copies, reserved inodes, inode table
 * pointers and blocks, inodes, log page tails, log entries, journal
 * pointers and entries, snapshot records, symlink blocks, random bytes),
 * with and without recomputing the checksums the corruption breaks, and
 * writes the result to DEV (O_DIRECT).  A child process then mounts it
 * (errors allowed), walks the whole tree (lstat, readdir, readlink, read,
 * pread, SEEK_DATA/HOLE, mmap read), runs random namespace and data
 * operations (create, write, log growth, truncate, fallocate, mkdir,
 * rmdir, unlink, rename, link, symlink, chmod/chown/utimes, mmap write,
 * FS_IOC_SETFLAGS, fsync), walks again, unmounts, and mounts, walks and
 * unmounts once more.  The parent bounds the child with a timeout and
 * reads the kernel log (/dev/kmsg) after every iteration: the first Oops,
 * BUG, WARNING, general protection fault, lockup, hung task or sanitizer
 * line stops the run with the seed, the corruption and the kernel log of
 * the iteration.  A hang stops it too (with the child's kernel stack).
 *
 * Every failure is expected to be clean: the mount fails with EINVAL (or
 * EUCLEAN/EIO) and a NOVA log line, or operations fail with EUCLEAN/EIO
 * (and the usual errnos of a damaged tree), or errors= applies.  Errnos
 * outside that set, an endless readdir and silent errors are counted as
 * soft findings and listed at the end (with --strict they fail the run).
 *
 * Determinism: an iteration depends only on its seed (and the base
 * images, which depend only on the workload seed -w and the CPU count).
 * "nova_fuzz replay SEED" rebuilds the base images and runs that one
 * iteration verbosely.
 *
 * Exit status: 0 no kernel report and no hang (and no soft finding with
 * --strict); 1 setup error; 2 kernel report; 3 hang; 4 soft findings
 * with --strict.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/libnova.h"
#define TUTIL_XALLOC
#include "tutil.h"

/* <linux/fs.h> clashes with <sys/mount.h> in glibc 2.36: define what we use */
#ifndef BLKGETSIZE64
#define BLKGETSIZE64	_IOR(0x12, 114, size_t)
#endif
#ifndef BLKFLSBUF
#define BLKFLSBUF	_IO(0x12, 97)
#endif
#define FUZZ_IOC_GETFLAGS	_IOR('f', 1, long)
#define FUZZ_IOC_SETFLAGS	_IOW('f', 2, long)
#define FL_SYNC		0x00000008
#define FL_IMMUTABLE	0x00000010
#define FL_APPEND	0x00000020
#define FL_NODUMP	0x00000040
#define FL_NOATIME	0x00000080
#define FL_DIRSYNC	0x00010000

#define BS		NOVA_BLOCK_SIZE
#define PT_OFF		NOVA_LOG_LAST_ENTRY	/* page tail in a log page */
#define PT_NEXT		(PT_OFF + offsetof(struct nova_log_page_tail, next_page))

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;

/* ------------------------------------------------------------------ */
/* options and small helpers                                          */

static const char *g_dev, *g_mnt;
static int g_verbose;
static unsigned int g_iter_timeout = 120;	/* seconds per iteration */
static int g_ncpu = 1;
static u64 g_wseed = 0x4e4f5641u;		/* workload seed */
static int g_strict;

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "nova_fuzz: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static const char *ename(int e)
{
	const char *n = e ? strerrorname_np(e) : "OK";

	return n ? n : "E?";
}

/* little-endian field access in an image */
static u64 getv(const u8 *p, int w)
{
	u64 v = 0;
	int i;

	for (i = w - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void putv(u8 *p, int w, u64 v)
{
	int i;

	for (i = 0; i < w; i++, v >>= 8)
		p[i] = (u8)v;
}

static u64 wmask(int w)
{
	return w >= 8 ? ~0ULL : (1ULL << (8 * w)) - 1;
}

/* ------------------------------------------------------------------ */
/* deterministic RNG (splitmix64)                                     */

struct rng {
	u64 s;
};

static u64 rnext(struct rng *r)
{
	return splitmix64(&r->s);
}

static u64 rnd(struct rng *r, u64 n)
{
	return n ? rnext(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 100) < pct;
}

static u64 iter_seed(u64 master, u64 i)
{
	u64 s = master ^ (i * 0xd1b54a32d192ed03ULL);
	u64 v = splitmix64(&s);

	return v ? v : 1;
}

/* Run on one CPU: NOVA's stripe (allocator, inode table, journal) is
 * the current CPU, so pinning makes the layout reproducible. */
static void pin(struct rng *r)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)rnd(r, g_ncpu), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < g_ncpu; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* ------------------------------------------------------------------ */
/* kernel log (/dev/kmsg)                                             */

static int kmsg_fd = -1;
#define KLOG_MAX 600
static char *klog[KLOG_MAX];
static int klog_n, klog_dropped;
static int klog_bad;		/* lines matching bad_pat this iteration */
static int klog_nova;		/* NOVA lines this iteration */
static char klog_first_bad[1200];

static const char *const bad_pat[] = {
	"Oops", "BUG:", "kernel BUG", "WARNING:", "general protection",
	"soft lockup", "hard LOCKUP", "hung_task", "blocked for more than",
	"KASAN", "UBSAN", "Call Trace", "Kernel panic", "detected stalls",
	"nable to handle", "stack-protector", "invalid opcode",
	"double fault", "list_add corruption", "list_del corruption",
	"kfence", "KFENCE", "refcount_t:", NULL
};

static bool is_bad_line(const char *msg)
{
	int i;

	if (strncmp(msg, "BUG ", 4) == 0)
		return true;
	for (i = 0; bad_pat[i]; i++)
		if (strstr(msg, bad_pat[i]))
			return true;
	return false;
}

static void klog_reset(void)
{
	int i;

	for (i = 0; i < klog_n; i++)
		free(klog[i]);
	klog_n = klog_dropped = klog_bad = klog_nova = 0;
	klog_first_bad[0] = 0;
}

static void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0)
		die("cannot open /dev/kmsg: %s", strerror(errno));
	lseek(kmsg_fd, 0, SEEK_END);
}

/* Read every new kernel log record into the iteration's buffer */
static void kmsg_drain(void)
{
	char buf[8192];

	for (;;) {
		ssize_t n = read(kmsg_fd, buf, sizeof(buf) - 1);
		unsigned long long ts = 0;
		char *msg, *nl, line[1200];

		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* records were overwritten */
			break;
		}
		if (n == 0)
			break;
		buf[n] = 0;
		msg = strchr(buf, ';');
		if (!msg)
			continue;
		sscanf(buf, "%*u,%*u,%llu", &ts);
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		if (strncmp(msg, "nova_fuzz:", 10) == 0)
			continue;	/* our own markers */
		snprintf(line, sizeof(line), "[%5llu.%06llu] %s", ts / 1000000,
			 ts % 1000000, msg);
		if (is_bad_line(msg)) {
			if (!klog_bad++)
				snprintf(klog_first_bad, sizeof(klog_first_bad),
					 "%s", line);
		}
		if (strstr(msg, "NOVA"))
			klog_nova++;
		if (klog_n < KLOG_MAX)
			klog[klog_n++] = xstrdup(line);
		else
			klog_dropped++;
		if (g_verbose)
			printf("  kernel: %s\n", line);
	}
}

static void kmsg_mark(const char *fmt, ...)
{
	char buf[300];
	va_list ap;
	int fd, n;

	n = snprintf(buf, sizeof(buf), "<7>nova_fuzz: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, buf, strlen(buf)) < 0) {
			/* nothing to do */
		}
		close(fd);
	}
}

static void klog_print(const char *prefix, int max)
{
	int i, start = klog_n > max ? klog_n - max : 0;

	if (start)
		printf("%s(%d earlier kernel lines not shown)\n", prefix, start);
	for (i = start; i < klog_n; i++)
		printf("%s%s\n", prefix, klog[i]);
	if (klog_dropped)
		printf("%s(%d more kernel lines not kept)\n", prefix, klog_dropped);
}

/* ------------------------------------------------------------------ */
/* the device                                                         */

static u64 g_size;		/* bytes of DEV we use (a block multiple) */

static u64 dev_size(void)
{
	u64 sz = 0;
	int fd = open(g_dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &sz))
		die("%s: %s", g_dev, strerror(errno));
	close(fd);
	return sz & ~(u64)(BS - 1);
}

static void dev_io(u8 *buf, bool wr)
{
	int fd = open(g_dev, (wr ? O_WRONLY : O_RDONLY) | O_DIRECT | O_CLOEXEC);
	u64 off = 0;

	if (fd < 0)
		die("open %s: %s", g_dev, strerror(errno));
	while (off < g_size) {
		size_t n = g_size - off > (1 << 20) ? (1 << 20) : g_size - off;
		ssize_t got = wr ? pwrite(fd, buf + off, n, off) :
			      pread(fd, buf + off, n, off);

		if (got <= 0)
			die("%s %s at %llu: %s", wr ? "write" : "read", g_dev,
			    (unsigned long long)off, got ? strerror(errno) : "short");
		off += got;
	}
	if (wr && fsync(fd))
		die("fsync %s: %s", g_dev, strerror(errno));
	ioctl(fd, BLKFLSBUF, 0);
	close(fd);
}

static u8 *img_alloc(void)
{
	void *p;

	if (posix_memalign(&p, BS, g_size))
		die("out of memory");
	return p;
}

static bool is_mounted(void)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char line[1024], pat[600];
	bool m = false;

	if (!f)
		return false;
	snprintf(pat, sizeof(pat), " %s ", g_mnt);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, pat))
			m = true;
	fclose(f);
	return m;
}

/* ------------------------------------------------------------------ */
/* the base workload                                                  */

struct names {
	char **v;
	int n, cap;
};

static void names_add(struct names *s, const char *p)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = xstrdup(p);
}

static void names_del(struct names *s, int i)
{
	free(s->v[i]);
	s->v[i] = s->v[--s->n];
}

static void names_free(struct names *s)
{
	while (s->n)
		names_del(s, 0);
	free(s->v);
	s->v = NULL;
	s->cap = 0;
}

static void wcheck(int ret, const char *what, const char *p)
{
	if (ret < 0)
		die("workload: %s %s: %s", what, p, strerror(errno));
}

static void wfill(u8 *buf, size_t n, u64 tag)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (u8)(tag * 131 + i * 7 + (i >> 9));
}

static void wwrite(const char *p, off_t off, size_t n, u64 tag, int flags)
{
	static u8 buf[256 << 10];
	int fd = open(p, O_WRONLY | O_CREAT | flags, 0644);

	wcheck(fd, "open", p);
	while (n) {
		size_t k = n > sizeof(buf) ? sizeof(buf) : n;

		wfill(buf, k, tag++);
		wcheck((int)pwrite(fd, buf, k, off), "write", p);
		off += k;
		n -= k;
	}
	close(fd);
}

static void workload(const char *mnt, u64 seed)
{
	struct rng r = { seed };
	struct names dirs = { 0 }, files = { 0 };
	static const size_t sizes[] = { 0, 1, 100, 1000, 4095, 4096, 4097,
					8192, 12000, 40000, 100000, 300000 };
	char p[PATH_MAX], q[PATH_MAX];
	int i, fd;

	for (i = 0; i < 8; i++) {
		pin(&r);
		snprintf(p, sizeof(p), "%s/d%d", mnt, i);
		wcheck(mkdir(p, 0755), "mkdir", p);
		names_add(&dirs, p);
	}
	snprintf(p, sizeof(p), "%s/d0/s1", mnt);
	for (i = 0; i < 3; i++) {
		pin(&r);
		wcheck(mkdir(p, 0750), "mkdir", p);
		names_add(&dirs, p);
		strcat(p, i == 0 ? "/s2" : "/s3");
	}
	/* plain files of mixed sizes, written in 1-3 pieces */
	for (i = 0; i < 140; i++) {
		size_t sz = sizes[rnd(&r, sizeof(sizes) / sizeof(sizes[0]))];
		size_t a = sz ? rnd(&r, sz) : 0;

		pin(&r);
		snprintf(p, sizeof(p), "%s/f%03d", dirs.v[rnd(&r, dirs.n)], i);
		wwrite(p, 0, a, i, O_TRUNC);
		wwrite(p, a, sz - a, i + 1000, 0);
		names_add(&files, p);
	}
	/* a directory whose log spans several pages */
	for (i = 0; i < 120; i++) {
		pin(&r);
		snprintf(p, sizeof(p), "%s/d1/entry-with-a-longer-name-%03d", mnt, i);
		wwrite(p, 0, rnd(&r, 200), i, O_TRUNC);
		names_add(&files, p);
	}
	/* symlinks: short, long, dangling, to directories */
	for (i = 0; i < 16; i++) {
		size_t len = i % 4 == 0 ? 1 + rnd(&r, 4000) : 1 + rnd(&r, 40);
		size_t k;

		for (k = 0; k < len; k++)
			q[k] = "abcdefgh/.-_xyz"[rnd(&r, 15)];
		q[len] = 0;
		if (i == 1)
			snprintf(q, sizeof(q), "../d2");
		if (i == 2)
			snprintf(q, sizeof(q), "/nonexistent/target");
		pin(&r);
		snprintf(p, sizeof(p), "%s/ln%02d", dirs.v[rnd(&r, dirs.n)], i);
		wcheck(symlink(q, p), "symlink", p);
	}
	/* special files (only ever lstat'ed) */
	for (i = 0; i < 4; i++) {
		pin(&r);
		snprintf(p, sizeof(p), "%s/d3/special%d", mnt, i);
		wcheck(mknod(p, i == 0 ? S_IFCHR | 0600 : i == 1 ? S_IFBLK | 0600 :
			     S_IFIFO | 0644, i < 2 ? makedev(1 + i, 3) : 0), "mknod", p);
	}
	/* hard links, some originals removed */
	for (i = 0; i < 14; i++) {
		int f = (int)rnd(&r, files.n);

		pin(&r);
		snprintf(p, sizeof(p), "%s/hl%02d", dirs.v[rnd(&r, dirs.n)], i);
		wcheck(link(files.v[f], p), "link", p);
		if (i % 3 == 0) {
			wcheck(unlink(files.v[f]), "unlink", files.v[f]);
			names_del(&files, f);
		}
		names_add(&files, p);
	}
	/* a hot file: many overwrites (dead entries, fast GC) */
	snprintf(p, sizeof(p), "%s/d4/hot", mnt);
	pin(&r);
	wwrite(p, 0, 16 * BS, 7, O_TRUNC);
	for (i = 0; i < 260; i++) {
		pin(&r);
		wwrite(p, rnd(&r, 16) * BS, i % 5 ? BS : 100, i, 0);
	}
	names_add(&files, p);
	/* many small appends: a multi-page file log */
	snprintf(p, sizeof(p), "%s/d5/appends", mnt);
	for (i = 0; i < 200; i++) {
		pin(&r);
		wwrite(p, (off_t)i * 10, 10, i, i ? 0 : O_TRUNC);
	}
	names_add(&files, p);
	/* a sparse file with a far page */
	snprintf(p, sizeof(p), "%s/d6/sparse", mnt);
	pin(&r);
	wwrite(p, 50LL << 20, BS, 3, O_TRUNC);
	wwrite(p, 5 * BS + 17, 3000, 4, 0);
	names_add(&files, p);
	/* truncates */
	for (i = 0; i < 24; i++) {
		int f = (int)rnd(&r, files.n);
		struct stat st;

		pin(&r);
		wcheck(stat(files.v[f], &st), "stat", files.v[f]);
		wcheck(truncate(files.v[f], i % 3 ? (off_t)rnd(&r, st.st_size + 1) :
				st.st_size + (off_t)rnd(&r, 3 * BS)), "truncate",
		       files.v[f]);
	}
	/* fallocate in every mode */
	for (i = 0; i < 16; i++) {
		static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_ZERO_RANGE };
		int f = (int)rnd(&r, files.n);

		pin(&r);
		fd = open(files.v[f], O_RDWR);
		wcheck(fd, "open", files.v[f]);
		wcheck(fallocate(fd, modes[i % 4], (off_t)rnd(&r, 6 * BS),
				 1 + (off_t)rnd(&r, 5 * BS)), "fallocate", files.v[f]);
		close(fd);
	}
	/* attributes */
	for (i = 0; i < 36; i++) {
		const char *t = i % 4 ? files.v[rnd(&r, files.n)] : dirs.v[rnd(&r, dirs.n)];
		struct timespec ts[2] = { { (time_t)rnd(&r, 2000000000), 5 },
					  { (time_t)rnd(&r, 2000000000), 7 } };

		pin(&r);
		switch (i % 3) {
		case 0:
			wcheck(chmod(t, (i % 4 ? 0600 : 0700) | (mode_t)rnd(&r, 077)),
			       "chmod", t);
			break;
		case 1:
			wcheck(chown(t, (uid_t)rnd(&r, 3000), (gid_t)rnd(&r, 3000)),
			       "chown", t);
			break;
		default:
			wcheck(utimensat(AT_FDCWD, t, ts, 0), "utimensat", t);
		}
	}
	/* inode flags (link-change entries); one append-only, one immutable */
	for (i = 0; i < 8; i++) {
		int f = (int)rnd(&r, files.n);
		long fl = i == 0 ? FL_APPEND : i == 1 ? FL_IMMUTABLE :
			  i % 2 ? FL_NODUMP : FL_NOATIME | FL_SYNC;

		pin(&r);
		fd = open(files.v[f], O_RDONLY);
		wcheck(fd, "open", files.v[f]);
		wcheck(ioctl(fd, FUZZ_IOC_SETFLAGS, &fl), "setflags", files.v[f]);
		close(fd);
		if (i < 2)
			names_del(&files, f);	/* leave them alone from now on */
	}
	/* renames: within and across directories, over files, exchanges */
	for (i = 0; i < 32; i++) {
		int f = (int)rnd(&r, files.n);

		pin(&r);
		if (i % 8 == 7) {
			int g = (int)rnd(&r, files.n);

			if (f != g)
				wcheck(renameat2(AT_FDCWD, files.v[f], AT_FDCWD,
						 files.v[g], RENAME_EXCHANGE),
				       "exchange", files.v[f]);
			continue;
		}
		if (i % 8 == 5) {
			int g = (int)rnd(&r, files.n);

			if (f == g)
				continue;
			wcheck(rename(files.v[f], files.v[g]), "rename over", files.v[g]);
			names_del(&files, f);
			continue;
		}
		snprintf(p, sizeof(p), "%s/mv%02d", dirs.v[rnd(&r, dirs.n)], i);
		wcheck(rename(files.v[f], p), "rename", p);
		names_del(&files, f);
		names_add(&files, p);
	}
	/* mmap writes: in place, and fault allocation in holes */
	for (i = 0; i < 3; i++) {
		u8 *m;

		pin(&r);
		snprintf(p, sizeof(p), "%s/d%d/mapped%d", mnt, 2 + i, i);
		wwrite(p, 0, 2 * BS, i, O_TRUNC);
		fd = open(p, O_RDWR);
		wcheck(fd, "open", p);
		wcheck(ftruncate(fd, 6 * BS), "ftruncate", p);
		m = mmap(NULL, 6 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			die("workload: mmap %s: %s", p, strerror(errno));
		memset(m + 100, 0x5a, 200);
		memset(m + 3 * BS + 10, 0xa5, 100);
		memset(m + 5 * BS, 0x33, BS);
		msync(m, 6 * BS, MS_SYNC);
		munmap(m, 6 * BS);
		close(fd);
		names_add(&files, p);
	}
	/* directory churn: thorough GC of d2's log */
	for (i = 0; i < 260; i++) {
		pin(&r);
		snprintf(p, sizeof(p), "%s/d2/churn-file-with-quite-a-long-name-%03d",
			 mnt, i);
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		wcheck(fd, "create", p);
		close(fd);
		if (i % 20)
			wcheck(unlink(p), "unlink", p);
	}
	/* deletes */
	for (i = 0; i < 26 && files.n; i++) {
		int f = (int)rnd(&r, files.n);

		pin(&r);
		wcheck(unlink(files.v[f]), "unlink", files.v[f]);
		names_del(&files, f);
	}
	/* a removed subtree, a moved directory */
	snprintf(p, sizeof(p), "%s/d6/gone", mnt);
	snprintf(q, sizeof(q), "%s/d6/gone/sub", mnt);
	pin(&r);
	wcheck(mkdir(p, 0755), "mkdir", p);
	wcheck(mkdir(q, 0755), "mkdir", q);
	wcheck(rmdir(q), "rmdir", q);
	pin(&r);
	wcheck(rmdir(p), "rmdir", p);
	snprintf(p, sizeof(p), "%s/d7", mnt);
	snprintf(q, sizeof(q), "%s/d6/d7-moved", mnt);
	pin(&r);
	wcheck(rename(p, q), "rename dir", p);
	unpin();
	names_free(&dirs);
	names_free(&files);
}

/* ------------------------------------------------------------------ */
/* catalogue of an image's structures                                 */

enum pkind { PK_FIXED, PK_ITABLE, PK_LOG, PK_JOURNAL, PK_SNAP, PK_SYMLINK };
static const char *const pkind_name[] = { "fixed", "itable", "log", "journal",
					  "snapshot", "symlink" };

struct cpage {
	u64 off;
	u8 kind;
	int inode;		/* index in cat.in, -1 */
	u32 hot;		/* bytes that hold something */
};

struct centry {
	u64 off;
	u16 size;
	u8 type;
	int inode;
};

struct cinode {
	u64 ino, off;		/* number, offset of the slot */
	u16 mode;
	u64 head, tail;
	int first_page, npages;
	int first_entry, nentries;
};

struct cat {
	const char *name;
	bool clean;
	u8 *img;
	struct nv_fs fs;	/* img, for libnova's log walker */
	u64 nblocks;
	u32 stripes, itbs, jpages;
	struct cinode *in;
	int nin, capin;
	struct centry *en;
	int nen, capen;
	struct cpage *pg;
	int npg, cappg;
	u64 *data;
	int ndata, capdata;
	u64 *fslot, *fino;	/* free inode slots */
	int nfree, capfree;
	u64 itab[64];		/* inode table blocks (first ones) */
	int nitab;
	u64 snap_head[2];	/* inodes 3 and 4 */
	u64 snap_records[2];
};

#define PUSH(arr, n, cap) do {						\
	if ((n) == (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 64;				\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
	}								\
} while (0)

static bool page_ok(const struct cat *c, u64 off)
{
	return !(off & (BS - 1)) && off >= (u64)NOVA_HEAD_RESERVED_BLOCKS * BS &&
	       off < (c->nblocks - NOVA_TAIL_RESERVED_BLOCKS) * BS;
}

static int add_page(struct cat *c, u64 off, int kind, int inode, u32 hot)
{
	int i;

	for (i = 0; i < c->npg; i++)
		if (c->pg[i].off == off)
			return -1;
	PUSH(c->pg, c->npg, c->cappg);
	c->pg[c->npg] = (struct cpage){ off, (u8)kind, inode, hot };
	return c->npg++;
}

/* An inode's log being catalogued, and the walk's guard limits */
struct cat_log {
	struct cat *c;
	int ii;			/* index in cat.in */
	int pages;		/* of the chain: at most 4096 */
	long entries;		/* at most 200000 */
};

/* A page of the log's chain: catalogued, or the chain stops */
static bool cat_log_page(void *arg, uint64_t page)
{
	struct cat_log *cl = arg;

	if (cl->pages >= 4096 || add_page(cl->c, page, PK_LOG, cl->ii, BS) < 0)
		return false;
	cl->pages++;
	return true;
}

static int cat_log_entry(const struct nv_entry *e, void *arg)
{
	struct cat_log *cl = arg;
	struct cat *c = cl->c;
	const u8 *p = e->p;
	u16 mode = c->in[cl->ii].mode;

	if (cl->entries++ >= 200000)
		return 1;
	PUSH(c->en, c->nen, c->capen);
	c->en[c->nen++] = (struct centry){ e->off, (u16)e->size, p[0], cl->ii };
	if (p[0] == NOVA_FILE_WRITE) {
		const struct nova_file_write_entry *w = e->p;
		u64 blk = le64toh(w->block);

		if (blk && S_ISLNK(mode) && page_ok(c, blk))
			add_page(c, blk, PK_SYMLINK, cl->ii, BS);
		else if (blk && S_ISREG(mode) && c->ndata < 4096) {
			PUSH(c->data, c->ndata, c->capdata);
			c->data[c->ndata++] = blk;
		}
	}
	return 0;
}

/*
 * An inode's log, walked by libnova leniently (no checksums or
 * trans_ids: a damaged log is catalogued as far as it goes)
 */
static void cat_inode(struct cat *c, u64 ino, u64 off)
{
	struct nova_inode *pi = (void *)(c->img + off);
	struct cat_log cl = { .c = c };
	const struct nv_walk w = {
		.page_ok = cat_log_page, .page_arg = &cl,
		.entry = cat_log_entry, .arg = &cl, .flags = NV_WALK_LENIENT,
	};
	struct nv_log lg;
	struct cinode *ci;

	PUSH(c->in, c->nin, c->capin);
	cl.ii = c->nin++;
	ci = &c->in[cl.ii];
	ci->ino = ino;
	ci->off = off;
	ci->mode = le16toh(pi->i_mode);
	ci->head = le64toh(pi->log_head);
	ci->tail = le64toh(pi->log_tail);
	ci->first_page = c->npg;
	ci->first_entry = c->nen;
	if (nv_log_walk(&c->fs, ci->head, ci->tail, &lg, &w))
		die("out of memory");
	nv_log_free(&lg);
	ci->npages = cl.pages;	/* the symlink's block after them */
	ci->nentries = c->nen - ci->first_entry;
}

static void cat_build(struct cat *c, const char *name, u8 *img, bool clean)
{
	const struct nova_super_block *sb = (const void *)img;
	u32 s, slot;
	u64 ino;

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->img = img;
	c->clean = clean;
	if (nova_check_super(sb, g_size))
		die("base image %s: bad super block (%s)", name,
		    nova_check_super(sb, g_size));
	nv_open_mem(&c->fs, img, g_size);
	nv_set_geometry(&c->fs, sb);
	c->nblocks = le64toh(sb->s_num_blocks);
	c->stripes = le32toh(sb->s_stripes);
	c->itbs = le32toh(sb->s_itable_block_size);
	c->jpages = le32toh(sb->s_journal_pages);

	add_page(c, 0, PK_FIXED, -1, sizeof(struct nova_super_block));
	add_page(c, (u64)NOVA_RESERVED_INODE_BLOCK * BS, PK_FIXED, -1, BS);
	add_page(c, (u64)NOVA_INODE_TABLE_BLOCK * BS, PK_FIXED, -1, c->stripes * 64);
	add_page(c, (u64)NOVA_JOURNAL_PTR_BLOCK * BS, PK_FIXED, -1, c->stripes * 64);
	add_page(c, (c->nblocks - 2) * BS, PK_FIXED, -1, BS);
	add_page(c, (c->nblocks - 1) * BS, PK_FIXED, -1,
		 sizeof(struct nova_super_block));

	/* reserved inodes (root and anything else valid; not the snapshots) */
	for (ino = 1; ino < NOVA_NORMAL_INODE_START; ino++) {
		u64 off = (u64)NOVA_RESERVED_INODE_BLOCK * BS + ino * 128;
		const struct nova_inode *pi = (const void *)(img + off);

		if (ino == NOVA_BLOCKNODE_INO || ino == NOVA_INODELIST_INO)
			continue;
		if (pi->i_valid == NOVA_INODE_VALID)
			cat_inode(c, ino, off);
	}
	/* inode tables */
	for (s = 0; s < c->stripes; s++) {
		u64 blk = le64toh(*(const __le64 *)(img + NOVA_INODE_TABLE_BLOCK * BS +
						    s * 64));
		u64 per = c->itbs / 128 - 1, idx = 0;
		int guard = 0;

		while (blk && page_ok(c, blk) && guard++ < 4096) {
			if (add_page(c, blk, PK_ITABLE, -1, c->itbs) < 0)
				break;
			if (c->nitab < 64)
				c->itab[c->nitab++] = blk;
			for (slot = 0; slot < per; slot++, idx++) {
				u64 off = blk + slot * 128;
				const struct nova_inode *pi = (const void *)(img + off);

				ino = idx * c->stripes + s;
				if (ino < NOVA_NORMAL_INODE_START)
					continue;
				if (pi->i_valid == NOVA_INODE_VALID &&
				    le64toh(pi->i_ino) == ino) {
					cat_inode(c, ino, off);
				} else if (c->nfree < 256) {
					PUSH(c->fslot, c->nfree, c->capfree);
					c->fino = xrealloc(c->fino, c->capfree * sizeof(u64));
					c->fslot[c->nfree] = off;
					c->fino[c->nfree++] = ino;
				}
			}
			blk = getv(img + blk + c->itbs - 8, 8);
		}
	}
	/* journals */
	for (s = 0; s < c->stripes; s++) {
		u64 h = getv(img + NOVA_JOURNAL_PTR_BLOCK * BS + s * 64, 8);

		if (page_ok(c, h & ~(u64)(BS - 1)))
			add_page(c, h & ~(u64)(BS - 1), PK_JOURNAL, -1, BS);
	}
	/* clean-unmount snapshots */
	for (s = 0; s < 2; s++) {
		u64 off = (u64)NOVA_RESERVED_INODE_BLOCK * BS +
			  (NOVA_BLOCKNODE_INO + s) * 128;
		const struct nova_inode *pi = (const void *)(img + off);
		u64 page = le64toh(pi->log_head);
		int guard = 0;

		if (pi->i_valid != NOVA_INODE_VALID || !page_ok(c, page))
			continue;
		c->snap_head[s] = page;
		c->snap_records[s] = getv(img + page + 8, 8);
		while (page && page_ok(c, page) && guard++ < 1024) {
			if (add_page(c, page, PK_SNAP, -1, BS) < 0)
				break;
			page = getv(img + page + PT_NEXT, 8);
		}
	}
}

static void cat_summary(const struct cat *c)
{
	int k[6] = { 0 }, i, t[8] = { 0 };

	for (i = 0; i < c->npg; i++)
		k[c->pg[i].kind]++;
	for (i = 0; i < c->nen; i++)
		t[c->en[i].type & 7]++;
	printf("base image %-5s: %u stripes, %d inodes, %d free slots, pages: %d itable %d log %d journal %d snapshot %d symlink; entries: %d (write %d dentry %d setattr %d link %d mmap %d); %d data blocks\n",
	       c->name, c->stripes, c->nin, c->nfree, k[PK_ITABLE], k[PK_LOG],
	       k[PK_JOURNAL], k[PK_SNAP], k[PK_SYMLINK], c->nen,
	       t[NOVA_FILE_WRITE], t[NOVA_DIR_LOG], t[NOVA_SET_ATTR],
	       t[NOVA_LINK_CHANGE], t[NOVA_MMAP_WRITE], c->ndata);
}

/* ------------------------------------------------------------------ */
/* checksums                                                          */

/*
 * Recompute an entry's checksum as the kernel computes it (nova_lib.h
 * nova_entry_csum()); not of xattr entries, nor of entries longer than
 * the longest dentry
 */
static bool entry_fix(u8 *e, size_t size)
{
	int csum = nova_entry_layout_of(e[0]).csum;

	if (e[0] == NOVA_XATTR || csum < 0 ||
	    size > NOVA_DENTRY_HEADER + NOVA_NAME_LEN + 1 ||
	    size < (size_t)csum + 4)
		return false;
	nova_entry_csum(e, size);
	return true;
}

static void sb_fix(u8 *p)
{
	struct nova_super_block *sb = (void *)p;

	sb->s_sum = htole32(nova_sb_csum(sb));
}

static void jentry_fix(u8 *p)
{
	struct nova_journal_entry *e = (void *)p;

	e->e_csum = htole32(nova_crc32c(e, offsetof(struct nova_journal_entry, e_csum)));
}

/* Recompute a snapshot's record checksum (records bounded by its pages) */
static void snap_fix(struct cat *c, u8 *img, u64 head)
{
	u64 records = getv(img + head + 8, 8), seen = 0, p = head;
	u32 crc = ~0U, slot = 1;

	while (seen < records && seen < c->nblocks) {
		if (slot == NOVA_SNAPSHOT_PER_PAGE) {
			p = getv(img + p + PT_NEXT, 8);
			slot = 0;
			if (!page_ok(c, p))
				break;
		}
		crc = nova_crc32c_update(crc, img + p + slot * 16, 16);
		slot++;
		seen++;
	}
	putv(img + head + 4, 4, ~crc);
}

/* ------------------------------------------------------------------ */
/* corruptions                                                        */

struct mut {
	char d[2048];
	size_t len;
	u64 hot[8];		/* inodes the corruption touched */
	int nhot;
};

/* the user operations focus on the inodes a corruption touched */
static void mhot(struct mut *m, u64 ino)
{
	int i;

	for (i = 0; i < m->nhot; i++)
		if (m->hot[i] == ino)
			return;
	if (m->nhot < 8)
		m->hot[m->nhot++] = ino;
}

static void md(struct mut *m, const char *fmt, ...)
{
	va_list ap;

	if (m->len >= sizeof(m->d) - 1)
		return;
	va_start(ap, fmt);
	m->len += vsnprintf(m->d + m->len, sizeof(m->d) - m->len, fmt, ap);
	va_end(ap);
	if (m->len >= sizeof(m->d))
		m->len = sizeof(m->d) - 1;
}

enum vkind { VK_GEN, VK_PTR, VK_CNT, VK_MODE, VK_TIME, VK_BYTE, VK_INO,
	     VK_TAIL, VK_SIZE, VK_FLAGS };

static u64 any_page(struct rng *r, const struct cat *c)
{
	if (c->ndata && chance(r, 25))
		return c->data[rnd(r, c->ndata)];
	return c->pg[rnd(r, c->npg)].off;
}

static u64 gen_value(struct rng *r, const struct cat *c, int kind, u64 orig,
		     int w)
{
	u64 size = c->nblocks * BS, v;

	if (chance(r, 15)) {
		switch (rnd(r, 6)) {
		case 0: v = 0; break;
		case 1: v = ~0ULL; break;
		case 2: v = orig ^ (1ULL << rnd(r, 8 * w)); break;
		case 3: v = orig + 1; break;
		case 4: v = orig - 1; break;
		default: v = rnext(r); break;
		}
		return v & wmask(w);
	}
	switch (kind) {
	case VK_PTR:
	case VK_TAIL:
		if (kind == VK_TAIL && chance(r, 55)) {
			static const int d[] = { 16, 32, 48, 64, 80, -16, -48, -64 };
			static const int o[] = { 0, 16, 48, 64, 1, PT_OFF - 16,
						 PT_OFF, PT_OFF - 1, BS - 8 };

			switch (rnd(r, 4)) {
			case 0: v = orig + d[rnd(r, 8)]; break;
			case 1: v = (orig & ~(u64)(BS - 1)) + o[rnd(r, 9)]; break;
			case 2: v = (orig & ~(u64)(BS - 1)) + (rnd(r, PT_OFF) & ~15ULL); break;
			default: v = c->in[rnd(r, c->nin)].tail; break;
			}
			break;
		}
		switch (rnd(r, 14)) {
		case 0: v = 0; break;
		case 1: case 2: case 3: v = any_page(r, c); break;
		case 4: v = any_page(r, c) + (rnd(r, PT_OFF) & ~15ULL); break;
		case 5: v = orig + (rnd(r, 2) ? 8 : 1); break;
		case 6: v = orig + (rnd(r, 2) ? BS : -(u64)BS); break;
		case 7: v = size - rnd(r, 3) * BS; break;
		case 8: v = size + rnd(r, 64) * BS; break;
		case 9: v = 1ULL << (32 + rnd(r, 32)); break;
		case 10: v = rnd(r, NOVA_HEAD_RESERVED_BLOCKS) * BS; break;
		case 11: v = (rnext(r) % (2 * size)) & ~(u64)(BS - 1); break;
		case 12: v = orig & ~(u64)(BS - 1); break;
		default: v = rnext(r); break;
		}
		break;
	case VK_CNT:
		switch (rnd(r, 11)) {
		case 0: v = 0; break;
		case 1: v = 1; break;
		case 2: v = orig + 1; break;
		case 3: v = orig - 1; break;
		case 4: v = orig * 2 + 1; break;
		case 5: v = 63 + rnd(r, 3); break;
		case 6: v = 0x7fffffff; break;
		case 7: v = 0xffffffff; break;
		case 8: v = rnd(r, 100); break;
		case 9: v = 1ULL << rnd(r, 64); break;
		default: v = rnext(r); break;
		}
		break;
	case VK_MODE: {
		static const u16 types[] = { S_IFREG, S_IFDIR, S_IFLNK, S_IFCHR,
					     S_IFBLK, S_IFIFO, S_IFSOCK, 0, 0170000,
					     0030000 };

		v = chance(r, 30) ? (orig & S_IFMT) | rnd(r, 010000) :
		    types[rnd(r, 10)] | rnd(r, 010000);
		break;
	}
	case VK_TIME:
		switch (rnd(r, 6)) {
		case 0: v = 0; break;
		case 1: v = (u64)INT64_MIN; break;
		case 2: v = (u64)INT64_MAX; break;
		case 3: v = (u64)-1; break;
		case 4: v = orig + 1; break;
		default: v = rnext(r); break;
		}
		break;
	case VK_BYTE:
		switch (rnd(r, 6)) {
		case 0: v = 0; break;
		case 1: v = 1; break;
		case 2: v = 2; break;
		case 3: v = 0xff; break;
		case 4: v = orig ^ 1; break;
		default: v = rnd(r, 256); break;
		}
		break;
	case VK_INO:
		switch (rnd(r, 10)) {
		case 0: v = rnd(r, NOVA_NORMAL_INODE_START); break;
		case 1: case 2: case 3: v = c->in[rnd(r, c->nin)].ino; break;
		case 4: v = c->nfree ? c->fino[rnd(r, c->nfree)] : 0; break;
		case 5: v = orig + c->stripes; break;
		case 6: v = orig + 1; break;
		case 7: v = 1ULL << (20 + rnd(r, 44)); break;
		case 8: v = 0; break;
		default: v = rnext(r); break;
		}
		break;
	case VK_SIZE:
		switch (rnd(r, 9)) {
		case 0: v = 0; break;
		case 1: v = size; break;
		case 2: v = orig + BS; break;
		case 3: v = orig - BS; break;
		case 4: v = (u64)INT64_MAX; break;
		case 5: v = 1ULL << (12 + rnd(r, 52)); break;
		case 6: v = rnd(r, 100000); break;
		case 7: v = orig * 2; break;
		default: v = rnext(r); break;
		}
		break;
	case VK_FLAGS: {
		static const u32 fl[] = { FL_SYNC, FL_IMMUTABLE, FL_APPEND, FL_NODUMP,
					  FL_NOATIME, FL_DIRSYNC, 0x1, 0x80000000 };

		v = chance(r, 50) ? fl[rnd(r, 8)] : rnext(r);
		break;
	}
	default:
		v = chance(r, 50) ? rnext(r) : orig ^ (1ULL << rnd(r, 8 * w));
		break;
	}
	return v & wmask(w);
}

struct field {
	const char *name;
	u16 off;
	u8 w;
	u8 kind;
};

#define FLD(st, f, k) { #f, offsetof(struct st, f), sizeof(((struct st *)0)->f), k }

static const struct field inode_fields[] = {
	FLD(nova_inode, i_valid, VK_BYTE), FLD(nova_inode, i_deleted, VK_BYTE),
	FLD(nova_inode, i_blk_type, VK_BYTE), FLD(nova_inode, i_flags, VK_FLAGS),
	FLD(nova_inode, i_size, VK_SIZE), FLD(nova_inode, i_ctime, VK_TIME),
	FLD(nova_inode, i_mtime, VK_TIME), FLD(nova_inode, i_atime, VK_TIME),
	FLD(nova_inode, i_mode, VK_MODE), FLD(nova_inode, i_links_count, VK_CNT),
	FLD(nova_inode, i_uid, VK_GEN), FLD(nova_inode, i_gid, VK_GEN),
	FLD(nova_inode, i_generation, VK_GEN), FLD(nova_inode, i_rdev, VK_GEN),
	FLD(nova_inode, i_ino, VK_INO), FLD(nova_inode, log_head, VK_PTR),
	FLD(nova_inode, log_head, VK_PTR), FLD(nova_inode, log_tail, VK_TAIL),
	FLD(nova_inode, log_tail, VK_TAIL), FLD(nova_inode, log_tail, VK_TAIL),
	FLD(nova_inode, i_btime, VK_TIME),
};

static const struct field tail_fields[] = {
	FLD(nova_log_page_tail, invalid_entries, VK_CNT),
	FLD(nova_log_page_tail, num_entries, VK_CNT),
	FLD(nova_log_page_tail, epoch_id, VK_GEN),
	FLD(nova_log_page_tail, next_page, VK_PTR),
	FLD(nova_log_page_tail, next_page, VK_PTR),
	FLD(nova_log_page_tail, next_page, VK_PTR),
};

static const struct field write_fields[] = {
	FLD(nova_file_write_entry, entry_type, VK_BYTE),
	FLD(nova_file_write_entry, reassigned, VK_BYTE),
	FLD(nova_file_write_entry, updating, VK_BYTE),
	FLD(nova_file_write_entry, num_pages, VK_CNT),
	FLD(nova_file_write_entry, num_pages, VK_CNT),
	FLD(nova_file_write_entry, block, VK_PTR),
	FLD(nova_file_write_entry, block, VK_PTR),
	FLD(nova_file_write_entry, pgoff, VK_CNT),
	FLD(nova_file_write_entry, pgoff, VK_CNT),
	FLD(nova_file_write_entry, invalid_pages, VK_CNT),
	FLD(nova_file_write_entry, e_csum, VK_GEN),
	FLD(nova_file_write_entry, mtime, VK_TIME),
	FLD(nova_file_write_entry, size, VK_SIZE),
	FLD(nova_file_write_entry, size, VK_SIZE),
	FLD(nova_file_write_entry, trans_id, VK_CNT),
};

static const struct field dentry_fields[] = {
	FLD(nova_dentry, entry_type, VK_BYTE),
	FLD(nova_dentry, name_len, VK_BYTE),
	FLD(nova_dentry, name_len, VK_BYTE),
	FLD(nova_dentry, invalid, VK_BYTE),
	FLD(nova_dentry, de_len, VK_CNT),
	FLD(nova_dentry, file_type, VK_BYTE),
	FLD(nova_dentry, links_count, VK_CNT),
	FLD(nova_dentry, e_csum, VK_GEN),
	FLD(nova_dentry, mtime, VK_TIME),
	FLD(nova_dentry, ino, VK_INO),
	FLD(nova_dentry, ino, VK_INO),
	FLD(nova_dentry, ino, VK_INO),
	FLD(nova_dentry, cookie, VK_CNT),
	FLD(nova_dentry, cookie, VK_CNT),
	FLD(nova_dentry, trans_id, VK_CNT),
};

static const struct field setattr_fields[] = {
	FLD(nova_setattr_entry, entry_type, VK_BYTE),
	FLD(nova_setattr_entry, attr, VK_BYTE),
	FLD(nova_setattr_entry, invalid, VK_BYTE),
	FLD(nova_setattr_entry, mode, VK_MODE),
	FLD(nova_setattr_entry, uid, VK_GEN),
	FLD(nova_setattr_entry, gid, VK_GEN),
	FLD(nova_setattr_entry, e_csum, VK_GEN),
	FLD(nova_setattr_entry, atime, VK_TIME),
	FLD(nova_setattr_entry, mtime, VK_TIME),
	FLD(nova_setattr_entry, ctime, VK_TIME),
	FLD(nova_setattr_entry, size, VK_SIZE),
	FLD(nova_setattr_entry, size, VK_SIZE),
	FLD(nova_setattr_entry, trans_id, VK_CNT),
};

static const struct field link_fields[] = {
	FLD(nova_link_change_entry, entry_type, VK_BYTE),
	FLD(nova_link_change_entry, invalid, VK_BYTE),
	FLD(nova_link_change_entry, links, VK_CNT),
	FLD(nova_link_change_entry, links, VK_CNT),
	FLD(nova_link_change_entry, ctime, VK_TIME),
	FLD(nova_link_change_entry, flags, VK_FLAGS),
	FLD(nova_link_change_entry, generation, VK_GEN),
	FLD(nova_link_change_entry, e_csum, VK_GEN),
	FLD(nova_link_change_entry, trans_id, VK_CNT),
};

static const struct field mmap_fields[] = {
	FLD(nova_mmap_entry, entry_type, VK_BYTE),
	FLD(nova_mmap_entry, invalid, VK_BYTE),
	FLD(nova_mmap_entry, pgoff, VK_CNT),
	FLD(nova_mmap_entry, num_pages, VK_CNT),
	FLD(nova_mmap_entry, trans_id, VK_CNT),
};

#define NF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Mutate one field at @base (w <= 8) */
static void mut_field(struct rng *r, const struct cat *c, u8 *base,
		      const struct field *f, struct mut *m)
{
	u64 old = getv(base + f->off, f->w);
	u64 v = gen_value(r, c, f->kind, old, f->w);

	if (v == old)
		v = (old + 1) & wmask(f->w);
	putv(base + f->off, f->w, v);
	md(m, ".%s 0x%llx->0x%llx", f->name, (unsigned long long)old,
	   (unsigned long long)v);
}

static const char *const ename_type[] = { "?", "WRITE", "DENTRY", "SETATTR",
					  "LINK", "MMAP", "NEXTPAGE", "?" };

static int pick_inode(struct rng *r, const struct cat *c, int want_type)
{
	int i, tries;

	for (tries = 0; tries < 20 && want_type; tries++) {
		i = (int)rnd(r, c->nin);
		if ((c->in[i].mode & S_IFMT) == (u32)want_type)
			return i;
	}
	return (int)rnd(r, c->nin);
}

/* --- the super block --- */
static void mut_super(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	static const char *const names[] = { "s_magic", "s_version",
		"s_blocksize", "s_size", "s_num_blocks", "s_stripes",
		"s_inode_size", "s_itable_block_size", "s_state",
		"s_journal_pages", "s_feature_compat", "s_feature_ro_compat",
		"s_feature_incompat", "s_label", "s_mount_count", "s_epoch_id",
		"s_stripes", "s_size", "s_journal_pages", "s_itable_block_size" };
	int which = (int)rnd(r, 10), f = (int)rnd(r, NF(names));
	bool fix = chance(r, 60), both = which >= 4, rep = which < 2;
	u8 *copies[2] = { img, img + (c->nblocks - 1) * BS };
	u64 size = c->nblocks * BS, v = 0;
	int k, w = 4;
	size_t off = 0;

	md(m, "super(%s%s) %s", both ? "both" : rep ? "replica" : "primary",
	   fix ? ",csum fixed" : "", names[f]);
#define SBF(x) do { off = offsetof(struct nova_super_block, x); \
		    w = sizeof(((struct nova_super_block *)0)->x); } while (0)
	switch (f) {
	case 0: SBF(s_magic); v = rnd(r, 2) ? rnext(r) : NOVA_SUPER_MAGIC ^ 0x100; break;
	case 1: SBF(s_version);
		v = (u64[]){ 0, 2 << 16, (1 << 16) | 7, 0xffffffff }[rnd(r, 4)]; break;
	case 2: SBF(s_blocksize); v = (u64[]){ 0, 512, 8192, 2 << 20 }[rnd(r, 4)]; break;
	case 3: case 17: SBF(s_size);
		v = (u64[]){ 0, size - BS, size + BS, NOVA_MIN_SIZE, size / 2,
			     size * 2, size - 1, rnext(r) }[rnd(r, 8)];
		break;
	case 4: SBF(s_num_blocks);
		v = (u64[]){ 0, c->nblocks - 1, c->nblocks + 1, ~0ULL }[rnd(r, 4)];
		break;
	case 5: case 16: SBF(s_stripes);
		v = (u64[]){ 0, 1, c->stripes + 1, 3, 4, 64, 1024, 1025,
			     rnext(r) & 0xffffffff }[rnd(r, 9)];
		break;
	case 6: SBF(s_inode_size); v = (u64[]){ 0, 64, 256, 129 }[rnd(r, 4)]; break;
	case 7: case 19: SBF(s_itable_block_size);
		v = (u64[]){ 0, NOVA_SMALL_ITABLE_SIZE, NOVA_LARGE_ITABLE_SIZE,
			     8192, 2048 }[rnd(r, 5)];
		break;
	case 8: SBF(s_state); v = rnd(r, 4) ? rnd(r, 4) : rnext(r); break;
	case 9: case 18: SBF(s_journal_pages);
		v = (u64[]){ 0, 2, 15, 16, 17, 0xffffffff }[rnd(r, 6)];
		break;
	case 10: SBF(s_feature_compat); v = rnext(r); break;
	case 11: SBF(s_feature_ro_compat); v = rnext(r); break;
	case 12: SBF(s_feature_incompat); v = 1ULL << rnd(r, 64); break;
	case 13: SBF(s_label); w = 0; break;
	case 14: SBF(s_mount_count); v = rnext(r); break;
	default: SBF(s_epoch_id); v = rnext(r); break;
	}
#undef SBF
	md(m, "=0x%llx", (unsigned long long)(w ? v & wmask(w) : 0));
	for (k = 0; k < 2; k++) {
		u8 *sb = copies[k];

		if (!both && (k == 1) != rep)
			continue;
		if (w)
			putv(sb + off, w, v);
		else
			memset(sb + off, 'X', NOVA_LABEL_LEN);
		/* keep s_num_blocks consistent half of the time */
		if (f == 3 || f == 17) {
			if (chance(r, 50))
				putv(sb + offsetof(struct nova_super_block, s_num_blocks),
				     8, v >> NOVA_BLOCK_SHIFT);
		}
		if (fix)
			sb_fix(sb);
	}
	(void)c;
}

/* --- reserved inodes and inode slots --- */
static void forge_inode(struct rng *r, struct cat *c, u8 *pi, u64 ino,
			struct mut *m)
{
	struct nova_inode *p = (void *)pi;
	int src = (int)rnd(r, c->nin);
	u64 head, tail;

	if (chance(r, 50)) {
		/* a copy of another inode (shares its log: a cross-link) */
		memcpy(pi, c->img + c->in[src].off, 128);
		md(m, " copy of ino %llu", (unsigned long long)c->in[src].ino);
	} else {
		memset(pi, 0, 128);
		p->i_mode = htole16(gen_value(r, c, VK_MODE, S_IFREG, 2));
		p->i_links_count = htole32(rnd(r, 3));
		head = chance(r, 70) ? any_page(r, c) : gen_value(r, c, VK_PTR, 0, 8);
		tail = chance(r, 50) ? head + 64 * rnd(r, 4) :
		       gen_value(r, c, VK_TAIL, head, 8);
		p->log_head = htole64(head);
		p->log_tail = htole64(tail);
		p->i_size = htole64(gen_value(r, c, VK_SIZE, 4096, 8));
		md(m, " forged mode 0%o head 0x%llx tail 0x%llx",
		   le16toh(p->i_mode), (unsigned long long)head,
		   (unsigned long long)tail);
	}
	p->i_ino = htole64(chance(r, 90) ? ino : gen_value(r, c, VK_INO, ino, 8));
	p->i_valid = NOVA_INODE_VALID;
}

static void mut_reserved(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	u64 slot = chance(r, 60) ? NOVA_ROOT_INO :
		   chance(r, 40) ? NOVA_BLOCKNODE_INO + rnd(r, 2) :
		   2 + rnd(r, NOVA_NORMAL_INODE_START - 2);
	u8 *pi = img + NOVA_RESERVED_INODE_BLOCK * BS + slot * 128;

	md(m, "reserved inode %llu", (unsigned long long)slot);
	if (slot == NOVA_ROOT_INO)
		mhot(m, slot);
	if (slot != NOVA_ROOT_INO && chance(r, 40) &&
	    ((struct nova_inode *)pi)->i_valid != NOVA_INODE_VALID) {
		forge_inode(r, c, pi, slot, m);
		return;
	}
	mut_field(r, c, pi, &inode_fields[rnd(r, NF(inode_fields))], m);
}

static void mut_itable(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	u64 v, old;
	u8 *p;

	if (chance(r, 50) || c->nitab < 2) {
		u32 s = (u32)rnd(r, c->stripes);

		p = img + NOVA_INODE_TABLE_BLOCK * BS + s * 64;
		old = getv(p, 8);
		v = chance(r, 30) ? c->itab[rnd(r, c->nitab)] :
		    gen_value(r, c, VK_PTR, old, 8);
		md(m, "itable pointer[%u] 0x%llx->0x%llx", s,
		   (unsigned long long)old, (unsigned long long)v);
	} else {
		u64 blk = c->itab[rnd(r, c->nitab)];

		p = img + blk + c->itbs - 8;
		old = getv(p, 8);
		switch (rnd(r, 4)) {
		case 0: v = blk; break;				/* self loop */
		case 1: v = c->itab[rnd(r, c->nitab)]; break;	/* loop/cross */
		case 2: v = c->pg[rnd(r, c->npg)].off; break;	/* onto a log page */
		default: v = gen_value(r, c, VK_PTR, old, 8); break;
		}
		md(m, "itable block 0x%llx next 0x%llx->0x%llx",
		   (unsigned long long)blk, (unsigned long long)old,
		   (unsigned long long)v);
	}
	putv(p, 8, v);
}

static void mut_inode(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	static const int types[] = { 0, S_IFDIR, S_IFREG, S_IFLNK, S_IFDIR };
	int i = pick_inode(r, c, types[rnd(r, 5)]);
	const struct cinode *ci = &c->in[i];

	md(m, "inode %llu (mode 0%o @0x%llx)", (unsigned long long)ci->ino,
	   ci->mode, (unsigned long long)ci->off);
	mhot(m, ci->ino);
	mut_field(r, c, img + ci->off, &inode_fields[rnd(r, NF(inode_fields))], m);
	if (chance(r, 15)) {
		md(m, ",");
		mut_field(r, c, img + ci->off, &inode_fields[rnd(r, NF(inode_fields))], m);
	}
}

static void mut_free_slot(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	int k;

	if (!c->nfree) {
		mut_inode(r, c, img, m);
		return;
	}
	k = (int)rnd(r, c->nfree);
	md(m, "free slot ino %llu @0x%llx made valid:", (unsigned long long)c->fino[k],
	   (unsigned long long)c->fslot[k]);
	forge_inode(r, c, img + c->fslot[k], c->fino[k], m);
}

static int pick_log_page(struct rng *r, const struct cat *c)
{
	int i, tries;

	for (tries = 0; tries < 50; tries++) {
		i = (int)rnd(r, c->npg);
		if (c->pg[i].kind == PK_LOG)
			return i;
	}
	return -1;
}

static void mut_page_tail(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	int i = pick_log_page(r, c), j;
	const struct cinode *ci;
	u8 *pt;
	u64 old, v;

	if (i < 0)
		return;
	/* prefer the page holding the tail: appends go past it */
	ci = &c->in[c->pg[i].inode];
	if (chance(r, 35) && ci->npages) {
		for (j = ci->first_page; j < ci->first_page + ci->npages; j++)
			if (ci->tail >= c->pg[j].off && ci->tail <= c->pg[j].off + PT_OFF)
				i = j;
	}
	pt = img + c->pg[i].off + PT_OFF;
	mhot(m, ci->ino);
	md(m, "log page 0x%llx of ino %llu (mode 0%o, %d pages) tail",
	   (unsigned long long)c->pg[i].off, (unsigned long long)ci->ino, ci->mode,
	   ci->npages);
	if (chance(r, 35)) {
		old = getv(pt + 24, 8);
		switch (rnd(r, 5)) {
		case 0: v = c->pg[i].off; break;			/* self */
		case 1: v = ci->head; break;				/* loop */
		case 2: j = pick_log_page(r, c);			/* cross */
			v = c->pg[j < 0 ? i : j].off;
			break;
		case 3: v = c->ndata ? c->data[rnd(r, c->ndata)] : 0; break; /* data */
		default: v = c->itab[rnd(r, c->nitab)]; break;	/* inode table */
		}
		putv(pt + 24, 8, v);
		md(m, ".next_page 0x%llx->0x%llx", (unsigned long long)old,
		   (unsigned long long)v);
		return;
	}
	if (chance(r, 25)) {
		/* every entry "dead": fast GC would unlink the page */
		old = getv(pt, 4);
		v = getv(pt + 4, 4) + rnd(r, 2);
		putv(pt, 4, v);
		md(m, ".invalid_entries %llu->%llu (=num_entries)",
		   (unsigned long long)old, (unsigned long long)v);
		return;
	}
	mut_field(r, c, pt, &tail_fields[rnd(r, NF(tail_fields))], m);
}

static void mut_entry(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	const struct centry *e;
	const struct field *f;
	bool fix = chance(r, 65);
	int n, i;
	u8 *p;

	if (!c->nen)
		return;
	/* bias towards the rarer entry types */
	i = (int)rnd(r, c->nen);
	if (chance(r, 40)) {
		int want = (int)(1 + rnd(r, 5)), tries;

		for (tries = 0; tries < 40 && c->en[i].type != want; tries++)
			i = (int)rnd(r, c->nen);
	}
	e = &c->en[i];
	p = img + e->off;
	mhot(m, c->in[e->inode].ino);
	if (e->type == NOVA_DIR_LOG && getv(p + 24, 8))
		mhot(m, getv(p + 24, 8));
	md(m, "entry %s@0x%llx of ino %llu (mode 0%o)%s", ename_type[e->type & 7],
	   (unsigned long long)e->off, (unsigned long long)c->in[e->inode].ino,
	   c->in[e->inode].mode, fix ? " csum fixed" : "");
	switch (e->type) {
	case NOVA_FILE_WRITE: f = write_fields; n = NF(write_fields); break;
	case NOVA_DIR_LOG: f = dentry_fields; n = NF(dentry_fields); break;
	case NOVA_SET_ATTR: f = setattr_fields; n = NF(setattr_fields); break;
	case NOVA_LINK_CHANGE: f = link_fields; n = NF(link_fields); break;
	default: f = mmap_fields; n = NF(mmap_fields); break;
	}
	if (e->type == NOVA_DIR_LOG && chance(r, 15)) {
		u8 nl = p[1];
		int k = nl ? (int)rnd(r, nl) : 0;
		u8 ch = "/\0\377."[rnd(r, 4)];

		md(m, ".name[%d] '%c'->0x%02x", k, p[48 + k] >= 32 && p[48 + k] < 127 ?
		   p[48 + k] : '?', ch);
		p[48 + k] = ch;
	} else if (e->type == NOVA_FILE_WRITE && chance(r, 20)) {
		/* a block that belongs to something else: a cross-link */
		u64 old = getv(p + 8, 8), v = c->pg[rnd(r, c->npg)].off;

		putv(p + 8, 8, v);
		md(m, ".block 0x%llx->0x%llx (metadata page)", (unsigned long long)old,
		   (unsigned long long)v);
	} else if (e->type == NOVA_DIR_LOG && chance(r, 15)) {
		/* a directory entry for a directory that has one already */
		u64 old = getv(p + 24, 8);
		int d = pick_inode(r, c, S_IFDIR);

		putv(p + 24, 8, c->in[d].ino);
		p[6] = 4;	/* DT_DIR */
		md(m, ".ino %llu->%llu (directory)", (unsigned long long)old,
		   (unsigned long long)c->in[d].ino);
	} else {
		mut_field(r, c, p, &f[rnd(r, n)], m);
	}
	if (fix) {
		size_t sz = nova_entry_size(p, PT_OFF - (e->off & (BS - 1)));

		if (!entry_fix(p, sz ? sz : e->size))
			md(m, " (no csum for this type)");
	}
}

/* The effective link count (or size) of an inode: the entry that sets it last */
static void mut_links(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	static const u32 vals[] = { 0, 0, 0, 1, 2, 0xffffffff, 65000, 65001 };
	int i = pick_inode(r, c, chance(r, 50) ? S_IFDIR : S_IFREG), k, last = -1;
	const struct cinode *ci = &c->in[i];
	u32 v = vals[rnd(r, 8)];
	bool size = chance(r, 25) && S_ISREG(ci->mode);

	mhot(m, ci->ino);
	for (k = ci->first_entry; k < ci->first_entry + ci->nentries; k++) {
		const struct centry *e = &c->en[k];

		if (size ? (e->type == NOVA_FILE_WRITE || e->type == NOVA_SET_ATTR) :
		    (e->type == NOVA_LINK_CHANGE ||
		     (e->type == NOVA_DIR_LOG && S_ISDIR(ci->mode))))
			last = k;
	}
	if (size) {
		u64 sz = gen_value(r, c, VK_SIZE, 0, 8);

		if (last < 0) {
			putv(img + ci->off + offsetof(struct nova_inode, i_size), 8, sz);
			md(m, "inode %llu i_size=0x%llx", (unsigned long long)ci->ino,
			   (unsigned long long)sz);
			return;
		}
		k = c->en[last].type == NOVA_FILE_WRITE ?
		    offsetof(struct nova_file_write_entry, size) :
		    offsetof(struct nova_setattr_entry, size);
		if (c->en[last].type == NOVA_SET_ATTR)
			img[c->en[last].off + 1] |= NOVA_ATTR_SIZE;
		putv(img + c->en[last].off + k, 8, sz);
		entry_fix(img + c->en[last].off, c->en[last].size);
		md(m, "inode %llu (mode 0%o): last size entry %s@0x%llx size=0x%llx csum fixed",
		   (unsigned long long)ci->ino, ci->mode,
		   ename_type[c->en[last].type & 7],
		   (unsigned long long)c->en[last].off, (unsigned long long)sz);
		return;
	}
	if (last < 0) {
		putv(img + ci->off + offsetof(struct nova_inode, i_links_count), 4, v);
		md(m, "inode %llu (mode 0%o) i_links_count=%u", (unsigned long long)ci->ino,
		   ci->mode, v);
		return;
	}
	k = c->en[last].type == NOVA_LINK_CHANGE ?
	    offsetof(struct nova_link_change_entry, links) :
	    offsetof(struct nova_dentry, links_count);
	putv(img + c->en[last].off + k, 4, v);
	entry_fix(img + c->en[last].off, c->en[last].size);
	md(m, "inode %llu (mode 0%o): last link entry %s@0x%llx links=%u csum fixed",
	   (unsigned long long)ci->ino, ci->mode, ename_type[c->en[last].type & 7],
	   (unsigned long long)c->en[last].off, v);
}

static void mut_journal(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	u32 s = (u32)rnd(r, c->stripes);
	u8 *jp = img + NOVA_JOURNAL_PTR_BLOCK * BS + s * 64;
	u64 head = getv(jp, 8), tail = getv(jp + 8, 8);
	u64 base = head & ~(u64)(BS - 1);
	int k, n;

	if (chance(r, 25)) {
		int f = (int)rnd(r, 2);
		u64 old = getv(jp + 8 * f, 8);
		u64 v = chance(r, 50) ? gen_value(r, c, VK_PTR, old, 8) :
			base + 32 * rnd(r, 128) + (chance(r, 20) ? 8 : 0);

		putv(jp + 8 * f, 8, v);
		md(m, "journal[%u].%s 0x%llx->0x%llx", s, f ? "tail" : "head",
		   (unsigned long long)old, (unsigned long long)v);
		return;
	}
	if (!page_ok(c, base))
		return;
	/* an uncommitted transaction of n forged entries */
	n = chance(r, 90) ? 1 + (int)rnd(r, 8) : 1 + (int)rnd(r, 140);
	md(m, "journal[%u] forged %d pending entries:", s, n);
	for (k = 0; k < n; k++) {
		u64 pos = base + ((tail - base) + 32 * (u64)k) % BS;
		struct nova_journal_entry *e = (void *)(img + pos);
		bool fix = chance(r, 85);
		u64 addr, val;
		int i;

		switch (rnd(r, 8)) {
		case 0: case 1:
			i = (int)rnd(r, c->nin);
			mhot(m, c->in[i].ino);
			addr = c->in[i].off + offsetof(struct nova_inode, log_tail);
			val = chance(r, 50) ? gen_value(r, c, VK_TAIL, c->in[i].tail, 8) :
			      c->in[(int)rnd(r, c->nin)].tail;
			break;
		case 2:
			i = (int)rnd(r, c->nin);
			mhot(m, c->in[i].ino);
			addr = c->in[i].off;	/* the valid byte's word */
			val = getv(img + addr, 8) ^ (rnd(r, 2) ? 1 : rnext(r));
			break;
		case 3:
			addr = NOVA_INODE_TABLE_BLOCK * BS + rnd(r, c->stripes) * 64;
			val = gen_value(r, c, VK_PTR, getv(img + addr, 8), 8);
			break;
		case 4:
			i = pick_log_page(r, c);
			addr = (i < 0 ? 0 : c->pg[i].off) + PT_NEXT;
			val = gen_value(r, c, VK_PTR, getv(img + addr, 8), 8);
			break;
		case 5:
			addr = (BS + rnd(r, c->nblocks * BS - BS - 8)) & ~7ULL;
			val = rnext(r);
			break;
		case 6:
			addr = (u64[]){ 0, 8, BS - 8, c->nblocks * BS - 8,
					c->nblocks * BS, BS + 4, ~0ULL, 2 * BS + 1 }
				[rnd(r, 8)];
			val = rnext(r);
			break;
		default:
			addr = c->pg[rnd(r, c->npg)].off + (rnd(r, BS) & ~7ULL);
			val = gen_value(r, c, VK_PTR, 0, 8);
			break;
		}
		e->type = htole64(chance(r, 92) ? NOVA_JOURNAL_ENTRY : rnd(r, 4));
		e->data1 = htole64(addr);
		e->data2 = htole64(val);
		e->pad = 0;
		if (fix)
			jentry_fix((u8 *)e);
		else
			e->e_csum = htole32(rnext(r));
		if (k < 4)
			md(m, " [%llu]=0x%llx%s", (unsigned long long)addr,
			   (unsigned long long)val, fix ? "" : "(bad csum)");
	}
	tail = base + ((tail - base) + 32 * (u64)n) % BS;
	putv(jp + 8, 8, tail);
	md(m, " tail->0x%llx", (unsigned long long)tail);
}

static void mut_snapshot(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	int s = (int)rnd(r, 2);
	u64 head = c->snap_head[s], recs = c->snap_records[s], k, off, lo, hi;
	bool fix = chance(r, 70);
	u8 *sb;

	if (!head) {
		mut_entry(r, c, img, m);
		return;
	}
	md(m, "snapshot %s", s ? "inodes" : "blocks");
	switch (rnd(r, 10)) {
	case 0:		/* header */
		off = head + 4 * rnd(r, 3);
		if (off == head + 8) {
			u64 v = gen_value(r, c, VK_CNT, recs, 8);

			putv(img + head + 8, 8, v);
			md(m, ".records %llu->%llu", (unsigned long long)recs,
			   (unsigned long long)v);
		} else {
			putv(img + off, 4, rnext(r));
			md(m, ".%s random", off == head ? "magic" : "csum");
			fix = false;
		}
		break;
	case 1:		/* its inode */
		mut_field(r, c, img + NOVA_RESERVED_INODE_BLOCK * BS +
			  (NOVA_BLOCKNODE_INO + s) * 128,
			  &inode_fields[chance(r, 50) ? 0 : 15], m);
		break;
	case 2:		/* clear the clean flag: stale snapshot, scan */
		for (k = 0; k < 2; k++) {
			sb = img + (k ? (c->nblocks - 1) * BS : 0);
			putv(sb + offsetof(struct nova_super_block, s_state), 4,
			     getv(sb + offsetof(struct nova_super_block, s_state), 4) &
			     ~(u64)NOVA_STATE_CLEAN);
			sb_fix(sb);
		}
		md(m, ": clean flag cleared (both copies)");
		return;
	default:	/* a record */
		if (!recs)
			return;
		k = 1 + rnd(r, recs);	/* slot index, header is slot 0 */
		off = head + (k % NOVA_SNAPSHOT_PER_PAGE) * 16;
		if (k >= NOVA_SNAPSHOT_PER_PAGE) {
			u64 p = head, j;

			for (j = 0; j < k / NOVA_SNAPSHOT_PER_PAGE; j++)
				p = getv(img + p + PT_NEXT, 8);
			if (!page_ok(c, p))
				return;
			off = p + (k % NOVA_SNAPSHOT_PER_PAGE) * 16;
		}
		lo = getv(img + off, 8);
		hi = getv(img + off + 8, 8);
		if (s == 0) {
			/* free block range: overlap something in use, etc. */
			u64 used = any_page(r, c) >> NOVA_BLOCK_SHIFT;

			switch (rnd(r, 7)) {
			case 0: case 1: lo = used; hi = used + rnd(r, 3); break;
			case 2: hi = lo - 1; break;
			case 3: lo = rnd(r, NOVA_HEAD_RESERVED_BLOCKS); break;
			case 4: hi = c->nblocks - 1 - rnd(r, 2); break;
			case 5: hi = hi + 1 + rnd(r, 64); break;
			default: lo = rnext(r); hi = lo + rnd(r, 10); break;
			}
		} else {
			u64 st = lo >> 48;

			switch (rnd(r, 6)) {
			case 0: lo = (st + 1) << 48 | (lo & 0xffffffffffffULL); break;
			case 1: hi = (lo & 0xffffffffffffULL) + 1000000; break;
			case 2: hi = lo - 1; break;
			case 3: lo = st << 48 | 0; hi = st << 48 | 5; break;
			case 4: lo = st << 48 | 40; hi = st << 48 | (40 + rnd(r, 60)); break;
			default: lo = rnext(r); hi = rnext(r); break;
			}
		}
		putv(img + off, 8, lo);
		putv(img + off + 8, 8, hi);
		md(m, ".record[%llu] = [0x%llx, 0x%llx]", (unsigned long long)k,
		   (unsigned long long)lo, (unsigned long long)hi);
		break;
	}
	if (fix) {
		snap_fix(c, img, head);
		md(m, " csum fixed");
	}
}

static void mut_symlink(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	int i, tries;

	for (tries = 0; tries < 100; tries++) {
		i = (int)rnd(r, c->npg);
		if (c->pg[i].kind != PK_SYMLINK)
			continue;
		mhot(m, c->in[c->pg[i].inode].ino);
		switch (rnd(r, 3)) {
		case 0: {
			size_t len = strnlen((char *)img + c->pg[i].off, BS);
			size_t at = len ? rnd(r, len) : 0;

			img[c->pg[i].off + at] = 0;
			md(m, "symlink block 0x%llx: NUL at %zu of %zu",
			   (unsigned long long)c->pg[i].off, at, len);
			break;
		}
		case 1:
			memset(img + c->pg[i].off, 'A', BS);
			md(m, "symlink block 0x%llx: no NUL", (unsigned long long)c->pg[i].off);
			break;
		default:
			memset(img + c->pg[i].off, 0, BS);
			md(m, "symlink block 0x%llx: zeroed", (unsigned long long)c->pg[i].off);
			break;
		}
		return;
	}
	mut_entry(r, c, img, m);
}

static void mut_random(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	const struct cpage *pg = &c->pg[rnd(r, c->npg)];
	u32 span = chance(r, 70) && pg->hot ? pg->hot : BS;
	u64 off;
	int n, k;

	md(m, "random bytes in %s page 0x%llx:", pkind_name[pg->kind],
	   (unsigned long long)pg->off);
	if (pg->inode >= 0)
		mhot(m, c->in[pg->inode].ino);
	switch (rnd(r, 5)) {
	case 0:
		n = 1 + (int)rnd(r, 8);
		for (k = 0; k < n; k++) {
			off = pg->off + rnd(r, span);
			img[off] = (u8)rnext(r);
		}
		md(m, " %d bytes", n);
		break;
	case 1:
		off = pg->off + (rnd(r, span) & ~7ULL);
		putv(img + off, 8, rnext(r));
		md(m, " u64 at +%llu", (unsigned long long)(off - pg->off));
		break;
	case 2:
		off = pg->off + rnd(r, span);
		n = 1 + (int)rnd(r, 256);
		if (off + n > pg->off + BS)
			n = (int)(pg->off + BS - off);
		memset(img + off, 0, n);
		md(m, " %d zero bytes at +%llu", n, (unsigned long long)(off - pg->off));
		break;
	case 3:
		off = pg->off + rnd(r, span);
		img[off] ^= (u8)(1 << rnd(r, 8));
		md(m, " bit flip at +%llu", (unsigned long long)(off - pg->off));
		break;
	default:
		off = pg->off + rnd(r, span);
		n = 1 + (int)rnd(r, 64);
		if (off + n > pg->off + BS)
			n = (int)(pg->off + BS - off);
		for (k = 0; k < n; k++)
			img[off + k] = (u8)rnext(r);
		md(m, " %d random bytes at +%llu", n, (unsigned long long)(off - pg->off));
		break;
	}
}

typedef void (*mut_fn)(struct rng *, struct cat *, u8 *, struct mut *);

static const struct {
	mut_fn fn;
	int weight;
	const char *name;
} mutators[] = {
	{ mut_super, 8, "super" },
	{ mut_reserved, 6, "reserved" },
	{ mut_itable, 6, "itable" },
	{ mut_inode, 14, "inode" },
	{ mut_links, 5, "links" },
	{ mut_free_slot, 3, "slot" },
	{ mut_page_tail, 11, "pagetail" },
	{ mut_entry, 24, "entry" },
	{ mut_journal, 7, "journal" },
	{ mut_snapshot, 7, "snapshot" },
	{ mut_symlink, 2, "symlink" },
	{ mut_random, 10, "random" },
};

static const char *g_exclude = "";	/* -x: mutator names to leave out */

static bool excluded(int i)
{
	const char *p = g_exclude;
	size_t l = strlen(mutators[i].name);

	while ((p = strstr(p, mutators[i].name))) {
		if ((p == g_exclude || p[-1] == ',') && (p[l] == ',' || !p[l]))
			return true;
		p += l;
	}
	return false;
}

static void mutate(struct rng *r, struct cat *c, u8 *img, struct mut *m)
{
	int total = 0, i, k, n = chance(r, 70) ? 1 : chance(r, 67) ? 2 : 3;

	for (i = 0; i < NF(mutators); i++)
		total += excluded(i) ? 0 : mutators[i].weight;
	if (!total)
		die("-x leaves no corruption class");
	for (k = 0; k < n; k++) {
		int x = (int)rnd(r, total);

		for (i = 0; excluded(i) || x >= mutators[i].weight; i++)
			if (!excluded(i))
				x -= mutators[i].weight;
		if (k)
			md(m, " | ");
		mutators[i].fn(r, c, img, m);
	}
}

/* ------------------------------------------------------------------ */
/* what a user does with the mounted image (in a child process)       */

enum { OP_MOUNT, OP_LSTAT, OP_OPENDIR, OP_READDIR, OP_OPEN, OP_READ,
       OP_READLINK, OP_MMAPREAD, OP_SEEK, OP_STATFS, OP_CREATE, OP_WRITE,
       OP_GROW, OP_TRUNC, OP_FALLOC, OP_MKDIR, OP_RMDIR, OP_UNLINK, OP_RENAME,
       OP_LINK, OP_SYMLINK, OP_SETATTR, OP_MMAPWRITE, OP_SETFLAGS, OP_FSYNC,
       OP_UMOUNT, OP_REMOUNT, OP_MAX };
static const char *const op_name[] = { "mount", "lstat", "opendir", "readdir",
	"open", "read", "readlink", "mmap-read", "lseek", "statfs", "create",
	"write", "log-grow", "truncate", "fallocate", "mkdir", "rmdir", "unlink",
	"rename", "link", "symlink", "setattr", "mmap-write", "setflags", "fsync",
	"umount", "remount" };

#define NERR 140
struct shared {
	/* whole run */
	u64 cnt[OP_MAX][NERR];
	u64 first[OP_MAX][NERR];	/* seed of the first iteration */
	/* this iteration */
	int mount_err, remount_err;
	int it_err[NERR];
	int it_cnt[OP_MAX][NERR];
	long walked, ops;
	int readdir_loop;
	int sigbus;
	char note[256];
};
static struct shared *sh;
static u64 cur_seed;

static bool errno_expected(int op, int e)
{
	if (op == OP_MOUNT || op == OP_REMOUNT)
		return e == EINVAL || e == EUCLEAN || e == EIO;
	switch (e) {
	case ENOENT: case EEXIST: case ENOTEMPTY: case ENOTDIR: case EISDIR:
	case ENOSPC: case EROFS: case EPERM: case EMLINK: case ELOOP:
	case EFBIG: case EINVAL: case EUCLEAN: case EIO: case ENXIO:
	case EOPNOTSUPP: case ENOTTY: case ENODEV: case ESTALE:
	case ENAMETOOLONG: case EXDEV:
	/*
	 * EBUSY: the VFS refuses a second alias of a directory (a damaged
	 * image that names one directory inode twice; d_splice_alias()).
	 */
	case EBUSY:
		return true;
	}
	return false;
}

static int rec(int op, int ret, const char *path)
{
	int e = ret < 0 ? errno : 0;

	if (e >= NERR)
		e = NERR - 1;
	sh->cnt[op][e]++;
	sh->it_cnt[op][e]++;
	if (!sh->first[op][e])
		sh->first[op][e] = cur_seed;
	if (e)
		sh->it_err[e]++;
	if (g_verbose && (e || (op >= OP_CREATE && op != OP_GROW &&
				op != OP_SYMLINK)))
		printf("    %s %s: %s\n", op_name[op], path ? path : "", ename(e));
	errno = e;
	return ret;
}

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t in_fault_zone;

static void fault_handler(int sig)
{
	if (in_fault_zone)
		siglongjmp(fault_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

struct tctx {
	struct rng r;
	struct names dirs, files, all;
	struct names hdirs, hfiles, hall;	/* names of the hot inodes */
	bool rw;
};

static const struct mut *g_hotm;	/* the iteration's corruption */

static bool is_hot(ino_t ino)
{
	int i;

	for (i = 0; g_hotm && i < g_hotm->nhot; i++)
		if (g_hotm->hot[i] == (u64)ino)
			return true;
	return false;
}

static void read_file(struct tctx *t, const char *p, const struct stat *st)
{
	static char buf[65536];
	volatile off_t size = st->st_size;
	off_t done = 0;
	int fd, k;

	fd = rec(OP_OPEN, open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), p);
	if (fd < 0)
		return;
	while (done < 256 * 1024) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0) {
			if (n < 0)
				rec(OP_READ, -1, p);
			break;
		}
		done += n;
	}
	if (size > 0 && size < (1LL << 62)) {
		rec(OP_READ, (int)pread(fd, buf, 4096, size - 1), p);
		for (k = 0; k < 2; k++)
			rec(OP_READ, (int)pread(fd, buf, 1 + rnd(&t->r, 8192),
						(off_t)rnd(&t->r, size)), p);
	}
	if (lseek(fd, 0, SEEK_DATA) < 0 && errno != ENXIO)
		rec(OP_SEEK, -1, p);
	if (lseek(fd, size > 0 ? (off_t)rnd(&t->r, size) : 0, SEEK_HOLE) < 0 &&
	    errno != ENXIO)
		rec(OP_SEEK, -1, p);
	if (size > 0) {
		volatile u8 sum = 0;
		volatile off_t mlen = size < 8 * BS ? (size + BS - 1) & ~(off_t)(BS - 1) : 8 * BS;
		u8 *map = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);

		if (map == MAP_FAILED) {
			rec(OP_MMAPREAD, -1, p);
		} else {
			int sig;

			in_fault_zone = 1;
			sig = sigsetjmp(fault_jmp, 1);
			if (!sig) {
				for (k = 0; k < mlen; k += BS)
					if (k < size)
						sum += map[k];
			} else {
				sh->sigbus++;
				if (g_verbose)
					printf("    mmap-read %s: signal %d\n", p, sig);
			}
			in_fault_zone = 0;
			munmap(map, mlen);
			(void)sum;
		}
	}
	close(fd);
}

/* Walk the tree: everything is lstat'ed, files read, links read */
static void walk(struct tctx *t, const char *path, int depth, bool collect)
{
	DIR *d;
	struct dirent *de;
	long count = 0;

	d = opendir(path);
	if (!d) {
		rec(OP_OPENDIR, -1, path);
		return;
	}
	if (collect)
		names_add(&t->dirs, path);
	if (collect && depth == 0 && is_hot(NOVA_ROOT_INO))
		names_add(&t->hdirs, path);
	for (;;) {
		char p[PATH_MAX];
		struct stat st;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				rec(OP_READDIR, -1, path);
			break;
		}
		if (++count > 4000) {
			sh->readdir_loop++;
			snprintf(sh->note, sizeof(sh->note),
				 "readdir of %s returned more than 4000 entries", path);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", path, de->d_name) >= (int)sizeof(p))
			continue;
		sh->walked++;
		if (rec(OP_LSTAT, lstat(p, &st), p) < 0)
			continue;
		if (collect && t->all.n < 20000)
			names_add(&t->all, p);
		if (collect && is_hot(st.st_ino) && t->hall.n < 100) {
			names_add(&t->hall, p);
			if (S_ISDIR(st.st_mode))
				names_add(&t->hdirs, p);
			else if (S_ISREG(st.st_mode))
				names_add(&t->hfiles, p);
		}
		if (S_ISDIR(st.st_mode)) {
			if (depth < 20 && sh->walked < 20000)
				walk(t, p, depth + 1, collect);
		} else if (S_ISREG(st.st_mode)) {
			if (collect)
				names_add(&t->files, p);
			read_file(t, p, &st);
		} else if (S_ISLNK(st.st_mode)) {
			char buf[PATH_MAX];

			rec(OP_READLINK, (int)readlink(p, buf, sizeof(buf)), p);
		}
	}
	closedir(d);
}

static const char *pick(struct tctx *t, struct names *s)
{
	return s->n ? s->v[rnd(&t->r, s->n)] : g_mnt;
}

static void do_ops(struct tctx *t)
{
	static u8 buf[65536];
	int nops = 6 + (int)rnd(&t->r, 12), i, fd;
	char p[PATH_MAX], q[PATH_MAX];

	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (u8)(i * 13 + 1);
	for (i = 0; i < nops; i++) {
		int op = (int)rnd(&t->r, 17);
		const char *f = pick(t, t->hfiles.n && chance(&t->r, 60) ? &t->hfiles :
				     &t->files);
		const char *d = pick(t, t->hdirs.n && chance(&t->r, 60) ? &t->hdirs :
				     &t->dirs);
		const char *a = pick(t, t->hall.n && chance(&t->r, 50) ? &t->hall :
				     &t->all);

		/* grow the logs of the damaged inodes: appends cross pages */
		if ((t->hfiles.n || t->hdirs.n) && chance(&t->r, 25))
			op = t->hfiles.n && (!t->hdirs.n || chance(&t->r, 50)) ? 2 : 10;

		pin(&t->r);
		sh->ops++;
		snprintf(p, sizeof(p), "%s/fz%d-%d", d, i, (int)rnd(&t->r, 1000));
		switch (op) {
		case 0:		/* create and write */
			fd = rec(OP_CREATE, open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644), p);
			if (fd >= 0) {
				rec(OP_WRITE, (int)write(fd, buf, rnd(&t->r, sizeof(buf))), p);
				close(fd);
				names_add(&t->files, p);
			}
			break;
		case 1:		/* overwrite / extend an existing file */
			fd = rec(OP_OPEN, open(f, O_WRONLY | O_NOFOLLOW | O_NONBLOCK), f);
			if (fd >= 0) {
				rec(OP_WRITE, (int)pwrite(fd, buf, 1 + rnd(&t->r, 16384),
							  (off_t)rnd(&t->r, 64 * BS)), f);
				close(fd);
			}
			break;
		case 2: {	/* many small writes: the file's log grows */
			int k, n = 40 + (int)rnd(&t->r, 100);

			fd = rec(OP_OPEN, open(f, O_WRONLY | O_NOFOLLOW | O_NONBLOCK), f);
			if (fd < 0)
				break;
			for (k = 0; k < n; k++)
				if (rec(OP_GROW, (int)pwrite(fd, buf, 1,
							     (off_t)k * BS + k), f) < 0)
					break;
			if (g_verbose)
				printf("    log-grow %s: %d of %d one-byte writes\n", f, k, n);
			close(fd);
			break;
		}
		case 3:
			rec(OP_TRUNC, truncate(f, (off_t)rnd(&t->r, 20 * BS)), f);
			break;
		case 4: {
			static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE,
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				FALLOC_FL_ZERO_RANGE };

			fd = rec(OP_OPEN, open(f, O_RDWR | O_NOFOLLOW | O_NONBLOCK), f);
			if (fd >= 0) {
				rec(OP_FALLOC, fallocate(fd, modes[rnd(&t->r, 4)],
							 (off_t)rnd(&t->r, 8 * BS),
							 1 + (off_t)rnd(&t->r, 8 * BS)), f);
				close(fd);
			}
			break;
		}
		case 5:
			if (rec(OP_MKDIR, mkdir(p, 0755), p) == 0)
				names_add(&t->dirs, p);
			break;
		case 6:		/* (not the mount point: EBUSY) */
			if (strcmp(d, g_mnt))
				rec(OP_RMDIR, rmdir(d), d);
			break;
		case 7:
			rec(OP_UNLINK, unlink(f), f);
			break;
		case 8:		/* rename anything, sometimes over a file */
			if (strcmp(a, g_mnt))
				rec(OP_RENAME, rename(a, chance(&t->r, 30) ? f : p), a);
			break;
		case 9:
			rec(OP_LINK, link(f, p), f);
			break;
		case 10: {
			/* many entries: the directory's log grows */
			int k, n = chance(&t->r, 30) || t->hdirs.n ?
				   60 + (int)rnd(&t->r, 60) : 1;

			for (k = 0; k < n; k++) {
				snprintf(q, sizeof(q), "%s/sl%d-%d-a-somewhat-longer-name", d, i, k);
				if (rec(OP_SYMLINK, symlink(a, q), q) < 0)
					break;
			}
			if (g_verbose && n > 1)
				printf("    dir-grow %s: %d of %d symlinks\n", d, k, n);
			break;
		}
		case 11: {
			struct timespec ts[2] = { { (time_t)rnd(&t->r, 1 << 30), 0 },
						  { (time_t)rnd(&t->r, 1 << 30), 0 } };

			switch (rnd(&t->r, 3)) {
			case 0: rec(OP_SETATTR, chmod(a, 0777 & rnext(&t->r)), a); break;
			case 1: rec(OP_SETATTR, lchown(a, (uid_t)rnd(&t->r, 100),
						       (gid_t)rnd(&t->r, 100)), a); break;
			default: rec(OP_SETATTR, utimensat(AT_FDCWD, a, ts,
							   AT_SYMLINK_NOFOLLOW), a);
			}
			break;
		}
		case 12: {	/* mmap write */
			u8 *map;

			fd = rec(OP_OPEN, open(f, O_RDWR | O_NOFOLLOW | O_NONBLOCK), f);
			if (fd < 0)
				break;
			map = mmap(NULL, 4 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (map == MAP_FAILED) {
				rec(OP_MMAPWRITE, -1, f);
			} else {
				struct stat st;

				if (!fstat(fd, &st) && st.st_size > 0) {
					int sig;

					in_fault_zone = 1;
					sig = sigsetjmp(fault_jmp, 1);
					if (!sig) {
						off_t k, lim = st.st_size < 4 * BS ?
							       st.st_size : 4 * BS;

						for (k = 0; k < lim; k += 1000)
							map[k] ^= 0x55;
						msync(map, 4 * BS, MS_SYNC);
					} else {
						sh->sigbus++;
					}
					in_fault_zone = 0;
				}
				munmap(map, 4 * BS);
			}
			close(fd);
			break;
		}
		case 13: {
			long fl = chance(&t->r, 50) ? 0 : FL_NODUMP;

			fd = open(a, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
			if (fd >= 0) {
				rec(OP_SETFLAGS, ioctl(fd, FUZZ_IOC_SETFLAGS, &fl), a);
				close(fd);
			}
			break;
		}
		case 14:
			fd = open(f, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
			if (fd >= 0) {
				rec(OP_FSYNC, fsync(fd), f);
				close(fd);
			}
			break;
		case 15: {
			struct statfs sfs;

			rec(OP_STATFS, statfs(g_mnt, &sfs), g_mnt);
			break;
		}
		default: {	/* exchange two names */
			const char *b = pick(t, &t->all);

			if (strcmp(a, g_mnt) && strcmp(b, g_mnt))
				rec(OP_RENAME, renameat2(AT_FDCWD, a, AT_FDCWD, b,
							 RENAME_EXCHANGE), a);
			break;
		}
		}
	}
	unpin();
}

static int do_umount(void)
{
	int k;

	for (k = 0; k < 5; k++) {
		if (!umount2(g_mnt, 0))
			return rec(OP_UMOUNT, 0, g_mnt);
		if (errno != EBUSY)
			break;
		msleep(200);
	}
	rec(OP_UMOUNT, -1, g_mnt);
	snprintf(sh->note, sizeof(sh->note), "umount failed: %s", strerror(errno));
	umount2(g_mnt, MNT_DETACH);
	return -1;
}

static void child_main(u64 seed)
{
	struct tctx t = { .r = { seed } };
	static const char *const opts[] = { "", "errors=remount-ro",
					    "errors=continue", "" };
	const char *o = opts[rnd(&t.r, 4)];
	unsigned long fl = chance(&t.r, 8) ? MS_RDONLY : 0;
	struct sigaction sa;
	struct statfs sfs;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fault_handler;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	alarm(g_iter_timeout * 3 / 4);	/* user-space loops end here */
	t.rw = !fl;
	pin(&t.r);
	if (g_verbose)
		printf("    mount -o %s%s\n", o, fl ? " (read-only)" : "");
	if (rec(OP_MOUNT, mount(g_dev, g_mnt, "NOVA", fl, o), g_dev) < 0) {
		sh->mount_err = errno;
		_exit(0);
	}
	rec(OP_STATFS, statfs(g_mnt, &sfs), g_mnt);
	walk(&t, g_mnt, 0, true);
	if (t.rw) {
		do_ops(&t);
		walk(&t, g_mnt, 0, false);
	}
	if (do_umount() < 0)
		_exit(0);
	if (chance(&t.r, 60)) {
		if (rec(OP_REMOUNT, mount(g_dev, g_mnt, "NOVA", 0, ""), g_dev) < 0) {
			sh->remount_err = errno;
		} else {
			walk(&t, g_mnt, 0, false);
			do_umount();
		}
	}
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* soft findings                                                       */

#define MAX_FIND 64
static struct {
	char kind[64];
	long count;
	u64 seed;
	char desc[400];
} finds[MAX_FIND];
static int nfinds;

static void finding(const char *kind, const char *desc)
{
	int i;

	for (i = 0; i < nfinds; i++)
		if (!strcmp(finds[i].kind, kind)) {
			finds[i].count++;
			return;
		}
	if (nfinds == MAX_FIND)
		return;
	snprintf(finds[nfinds].kind, sizeof(finds[nfinds].kind), "%s", kind);
	finds[nfinds].count = 1;
	finds[nfinds].seed = cur_seed;
	snprintf(finds[nfinds].desc, sizeof(finds[nfinds].desc), "%s", desc);
	nfinds++;
	printf("  SOFT FINDING %s (seed 0x%016llx): %s\n", kind,
	       (unsigned long long)cur_seed, desc);
}

/* ------------------------------------------------------------------ */
/* the driver                                                          */

struct base {
	u8 *img[2];
	struct cat cat[2];
};

static u8 *g_work;

static void build_base(struct base *b)
{
	struct rng r = { g_wseed };
	double t0 = now_s();
	char opts[] = "init";

	if (is_mounted() && umount2(g_mnt, 0))
		die("%s is mounted and busy", g_mnt);
	pin(&r);
	if (mount(g_dev, g_mnt, "NOVA", 0, opts))
		die("mount -o init %s: %s", g_dev, strerror(errno));
	workload(g_mnt, rnext(&r));
	sync();
	b->img[0] = img_alloc();
	dev_io(b->img[0], false);	/* the live image: a power cut */
	pin(&r);
	if (umount2(g_mnt, 0))
		die("umount %s: %s", g_mnt, strerror(errno));
	unpin();
	b->img[1] = img_alloc();
	dev_io(b->img[1], false);
	cat_build(&b->cat[0], "live", b->img[0], false);
	cat_build(&b->cat[1], "clean", b->img[1], true);
	cat_summary(&b->cat[0]);
	cat_summary(&b->cat[1]);
	printf("base images built in %.1fs (workload seed 0x%llx, %d CPUs, %llu KiB)\n",
	       now_s() - t0, (unsigned long long)g_wseed, g_ncpu,
	       (unsigned long long)(g_size >> 10));
}

static void print_report_header(const char *what, int it, u64 seed,
				const struct mut *m, const char *var)
{
	printf("\n==================== FUZZ %s ====================\n", what);
	printf("iteration %d, seed 0x%016llx (replay: nova_fuzz replay 0x%016llx)\n",
	       it, (unsigned long long)seed, (unsigned long long)seed);
	printf("base image: %s\ncorruption: %s\n", var, m->d);
	if (*g_exclude)
		printf("(run with -x %s)\n", g_exclude);
}

static int last_it = -1;
static u64 last_seed;
static struct mut last_mut;
static const char *last_var;

/* Returns 0 (fine), 2 (kernel report), 3 (hang) */
static int run_iteration(struct base *b, int it, u64 seed)
{
	struct rng r = { seed };
	int v = (int)rnd(&r, 2), k;
	struct cat *c = &b->cat[v];
	struct mut m = { .len = 0 };
	double t0 = now_s(), deadline;
	sigset_t set;
	pid_t pid;
	int status = 0, done = 0;
	u64 cseed;

	/* kernel lines that came after the previous iteration ended */
	kmsg_drain();
	if (klog_bad && last_it >= 0) {
		print_report_header("KERNEL REPORT (after the iteration ended)",
				    last_it, last_seed, &last_mut, last_var);
		printf("first bad line: %s\nkernel log:\n", klog_first_bad);
		klog_print("  ", 300);
		return 2;
	}
	cur_seed = seed;
	memcpy(g_work, c->img, g_size);
	mutate(&r, c, g_work, &m);
	cseed = rnext(&r);
	g_hotm = &m;
	printf("it %d seed 0x%016llx %s: %s\n", it, (unsigned long long)seed,
	       c->name, m.d);
	last_it = it;
	last_seed = seed;
	last_mut = m;
	last_var = c->name;
	fflush(stdout);
	dev_io(g_work, true);

	kmsg_drain();
	klog_reset();
	kmsg_mark("it %d seed 0x%016llx", it, (unsigned long long)seed);
	sh->mount_err = sh->remount_err = 0;
	memset(sh->it_err, 0, sizeof(sh->it_err));
	memset(sh->it_cnt, 0, sizeof(sh->it_cnt));
	sh->walked = sh->ops = 0;
	sh->readdir_loop = sh->sigbus = 0;
	sh->note[0] = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		child_main(cseed);
	}
	deadline = t0 + g_iter_timeout;
	while (!done) {
		struct timespec ts = { 1, 0 };

		sigtimedwait(&set, NULL, &ts);
		if (waitpid(pid, &status, WNOHANG) == pid)
			done = 1;
		kmsg_drain();
		if (klog_bad && !done) {
			/* give the report a moment to complete, then stop */
			msleep(2000);
			kmsg_drain();
			break;
		}
		if (!done && now_s() > deadline)
			break;
	}
	if (!done || klog_bad) {
		char path[64], line[512];
		FILE *f;

		if (!done && !klog_bad) {
			print_report_header("HANG", it, seed, &m, c->name);
			printf("the iteration did not finish within %us; the child's kernel stack:\n",
			       g_iter_timeout);
			snprintf(path, sizeof(path), "/proc/%d/stack", pid);
			f = fopen(path, "r");
			while (f && fgets(line, sizeof(line), f))
				printf("  %s", line);
			if (f)
				fclose(f);
			snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
			f = fopen(path, "r");
			if (f && fgets(line, sizeof(line), f))
				printf("  wchan: %s\n", line);
			if (f)
				fclose(f);
			f = fopen("/proc/sysrq-trigger", "w");
			if (f) {
				fputs("w", f);
				fclose(f);
			}
			msleep(1000);
			kmsg_drain();
			printf("kernel log of the iteration:\n");
			klog_print("  ", 300);
			kill(pid, SIGKILL);
			return 3;
		}
		print_report_header("KERNEL REPORT", it, seed, &m, c->name);
		printf("first bad line: %s\n", klog_first_bad);
		printf("kernel log of the iteration:\n");
		klog_print("  ", 300);
		if (!done)
			kill(pid, SIGKILL);
		return 2;
	}
	if (WIFSIGNALED(status)) {
		char d[100];

		snprintf(d, sizeof(d), "the test process died of signal %d",
			 WTERMSIG(status));
		finding(WTERMSIG(status) == SIGALRM ? "child-timeout" : "child-signal", d);
	}
	if (is_mounted()) {
		finding("left-mounted", "the mount point was still mounted after the iteration");
		if (umount2(g_mnt, 0))
			umount2(g_mnt, MNT_DETACH);
	}
	/* soft findings of this iteration */
	for (k = 0; k < OP_MAX; k++) {
		int e;

		for (e = 1; e < NERR; e++) {
			char kind[64], d[200];

			if (!sh->it_cnt[k][e] || errno_expected(k, e))
				continue;
			snprintf(kind, sizeof(kind), "errno:%s:%s", op_name[k], ename(e));
			snprintf(d, sizeof(d), "%s failed with %s", op_name[k], ename(e));
			finding(kind, d);
		}
	}
	if (sh->readdir_loop)
		finding("readdir-endless", sh->note);
	if (sh->mount_err && !klog_nova) {
		char d[100];

		snprintf(d, sizeof(d), "mount failed with %s and no NOVA kernel line",
			 ename(sh->mount_err));
		finding("silent-mount-failure", d);
	}
	if ((sh->it_err[EUCLEAN] || sh->it_err[EIO]) && !klog_nova)
		finding("silent-EUCLEAN/EIO", "EUCLEAN or EIO returned, no NOVA kernel line");
	if (!sh->mount_err && sh->note[0] && strstr(sh->note, "umount"))
		finding("umount-failed", sh->note);
	{
		char errs[300] = "";
		size_t el = 0;
		int e;

		for (e = 1; e < NERR && el < sizeof(errs) - 40; e++)
			if (sh->it_err[e])
				el += snprintf(errs + el, sizeof(errs) - el, " %s:%d",
					       ename(e), sh->it_err[e]);
		printf("  -> mount %s, %ld walked, %ld ops, %d NOVA log lines, errors:%s%s%s, %.1fs\n",
		       ename(sh->mount_err), sh->walked, sh->ops, klog_nova,
		       el ? errs : " none", sh->remount_err ? ", remount " : "",
		       sh->remount_err ? ename(sh->remount_err) : "", now_s() - t0);
	}
	if (g_verbose)
		klog_print("  k: ", 200);
	fflush(stdout);
	return 0;
}

static void summary(int iters, double secs, int result)
{
	int k, e;

	printf("\n==================== FUZZ SUMMARY ====================\n");
	printf("%d images in %.0fs (%.2f s/image)\n", iters, secs,
	       iters ? secs / iters : 0.0);
	printf("operation results (count; unexpected errnos marked '!'):\n");
	for (k = 0; k < OP_MAX; k++) {
		char line[1024];
		size_t l = 0;
		u64 tot = 0;

		for (e = 0; e < NERR; e++) {
			if (!sh->cnt[k][e])
				continue;
			tot += sh->cnt[k][e];
			l += snprintf(line + l, sizeof(line) - l, " %s%s:%llu",
				      e && !errno_expected(k, e) ? "!" : "", ename(e),
				      (unsigned long long)sh->cnt[k][e]);
			if (l >= sizeof(line))
				l = sizeof(line) - 1;
		}
		if (tot)
			printf("  %-10s %8llu:%s\n", op_name[k], (unsigned long long)tot, line);
	}
	printf("soft findings: %d kinds\n", nfinds);
	for (k = 0; k < nfinds; k++)
		printf("  %-32s %5ld  first seed 0x%016llx: %s\n", finds[k].kind,
		       finds[k].count, (unsigned long long)finds[k].seed, finds[k].desc);
	printf("result: %s\n", result == 2 ? "KERNEL REPORT" : result == 3 ? "HANG" :
	       nfinds ? "no kernel report (soft findings above)" : "clean");
}

/* Host self-test of the catalogue and the corruptions on an image file */
static int selftest(const char *path, long n)
{
	struct cat c;
	u8 *img, *work;
	long i;
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	g_size = st.st_size & ~(u64)(BS - 1);
	img = img_alloc();
	work = img_alloc();
	if (pread(fd, img, g_size, 0) != (ssize_t)g_size)
		die("%s: short read", path);
	close(fd);
	cat_build(&c, "file", img, true);
	cat_summary(&c);
	for (i = 0; i < n; i++) {
		struct rng r = { iter_seed(1, i) };
		struct mut m = { .len = 0 };

		memcpy(work, img, g_size);
		mutate(&r, &c, work, &m);
		if (g_verbose || i < 40)
			printf("%ld: %s\n", i, m.d);
	}
	return 0;
}

/*
 * bigmap DEV INO [same]: a hostile image for issue #20 finding 11.  Every
 * live write entry of regular file INO is made to map the whole dynamic
 * area, each at its own file offset, checksums fixed: the log then maps
 * far more pages than the device has blocks.  With @same, every entry
 * maps it at file offset 0: never more pages than the device has blocks,
 * but each entry replaces every page of the one before (a review finding:
 * the replay and the scan then take hours, and could not be killed).
 */
static int bigmap(const char *dev, u64 ino, int same)
{
	struct cat c;
	u8 *img;
	u64 first = NOVA_HEAD_RESERVED_BLOCKS, n, k = 0;
	int i, ii = -1;

	g_dev = dev;
	g_size = dev_size();
	img = img_alloc();
	dev_io(img, false);
	cat_build(&c, "dev", img, true);
	for (i = 0; i < c.nin; i++)
		if (c.in[i].ino == ino)
			ii = i;
	if (ii < 0 || !S_ISREG(c.in[ii].mode))
		die("inode %llu: not a regular file of %s", (unsigned long long)ino, dev);
	n = c.nblocks - NOVA_TAIL_RESERVED_BLOCKS - first;
	for (i = c.in[ii].first_entry; i < c.in[ii].first_entry + c.in[ii].nentries; i++) {
		struct nova_file_write_entry *e = (void *)(img + c.en[i].off);

		if (c.en[i].type != NOVA_FILE_WRITE || e->reassigned)
			continue;
		e->block = htole64(first * BS);
		e->num_pages = htole32((u32)n);
		e->pgoff = htole64(same ? 0 : k * n);
		k++;
		e->invalid_pages = 0;
		entry_fix((u8 *)e, c.en[i].size);
	}
	if (!k)
		die("inode %llu has no live write entries", (unsigned long long)ino);
	dev_io(img, true);
	printf("bigmap: %llu write entries of inode %llu map %llu pages each (%llu blocks)\n",
	       (unsigned long long)k, (unsigned long long)ino,
	       (unsigned long long)n, (unsigned long long)c.nblocks);
	return 0;
}

/*
 * feature DEV FIELD BITS: set BITS in the super block's feature FIELD
 * (compat, ro_compat or incompat), in the primary and the replica,
 * checksums fixed: a file system with features this module lacks.
 */
static int set_feature(const char *dev, const char *field, u64 bits)
{
	struct nova_super_block sb;
	__le64 *f;
	u64 off = 0;
	int fd = open(dev, O_RDWR | O_SYNC), copy;

	if (fd < 0)
		die("%s: %s", dev, strerror(errno));
	for (copy = 0; copy < 2; copy++) {
		if (pread(fd, &sb, sizeof(sb), off) != sizeof(sb))
			die("%s: cannot read the super block at %llu", dev,
			    (unsigned long long)off);
		if (!strcmp(field, "compat"))
			f = &sb.s_feature_compat;
		else if (!strcmp(field, "ro_compat"))
			f = &sb.s_feature_ro_compat;
		else if (!strcmp(field, "incompat"))
			f = &sb.s_feature_incompat;
		else
			die("unknown feature field %s", field);
		*f = htole64(le64toh(*f) | bits);
		sb_fix((u8 *)&sb);
		if (pwrite(fd, &sb, sizeof(sb), off) != sizeof(sb))
			die("%s: cannot write the super block", dev);
		off = (le64toh(sb.s_num_blocks) - 1) * BS;
	}
	close(fd);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nova_fuzz run -d DEV -m MNT [-n ITERS] [-s SEED] [-t SECS] [-w WSEED] [-v] [--strict]\n"
		"       nova_fuzz replay SEED -d DEV -m MNT [-w WSEED]\n"
		"       nova_fuzz bigmap DEV INO [same]  (one hostile image: every write\n"
		"                                   entry of file INO maps the whole device;\n"
		"                                   same: all at file offset 0)\n"
		"       nova_fuzz feature DEV compat|ro_compat|incompat BITS\n"
		"                                  (set feature bits, checksums fixed)\n"
		"  DEV: a small DAX block device (e.g. a 16 MiB partition of /dev/pmem0)\n"
		"  -n ITERS   images to try (default 100)\n"
		"  -s SEED    run seed (default: from the clock; printed)\n"
		"  -t SECS    time limit per image (default 120)\n"
		"  -T SECS    stop starting new images after SECS seconds\n"
		"  -w WSEED   workload seed of the base images (default 0x4e4f5641)\n"
		"  -x LIST    leave out these corruption classes (comma list of: super,\n"
		"             reserved,itable,inode,links,slot,pagetail,entry,journal,snapshot,\n"
		"             symlink,random); replays need the same -x\n"
		"  -v         verbose: every operation and kernel line\n"
		"  --strict   soft findings (unexpected errnos, endless readdir) fail the run\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct base b;
	u64 seed = 0, replay = 0;
	long iters = 100, i;
	double t0, tmax = 0;
	int result = 0, argi = 2, done_iters = 0;
	bool is_replay;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "selftest") && argc >= 4)
		return selftest(argv[2], strtol(argv[3], NULL, 0));
	if (!strcmp(argv[1], "bigmap") && (argc == 4 ||
	    (argc == 5 && !strcmp(argv[4], "same"))))
		return bigmap(argv[2], strtoull(argv[3], NULL, 0), argc == 5);
	if (!strcmp(argv[1], "feature") && argc == 5)
		return set_feature(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	is_replay = !strcmp(argv[1], "replay");
	if (!is_replay && strcmp(argv[1], "run"))
		usage();
	if (is_replay) {
		if (argc < 3)
			usage();
		replay = strtoull(argv[2], NULL, 0);
		argi = 3;
		g_verbose = 1;
		iters = 1;
	}
	for (; argi < argc; argi++) {
		const char *a = argv[argi], *v = argi + 1 < argc ? argv[argi + 1] : NULL;

		if (!strcmp(a, "-v")) {
			g_verbose = 1;
			continue;
		}
		if (!strcmp(a, "--strict")) {
			g_strict = 1;
			continue;
		}
		if (!v)
			usage();
		argi++;
		if (!strcmp(a, "-d"))
			g_dev = v;
		else if (!strcmp(a, "-m"))
			g_mnt = v;
		else if (!strcmp(a, "-n"))
			iters = strtol(v, NULL, 0);
		else if (!strcmp(a, "-s"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "-t"))
			g_iter_timeout = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(a, "-T"))
			tmax = strtod(v, NULL);
		else if (!strcmp(a, "-w"))
			g_wseed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "-x"))
			g_exclude = v;
		else
			usage();
	}
	if (!g_dev || !g_mnt)
		usage();
	if (!seed)
		seed = (u64)time(NULL) * 2654435761ULL ^ (u64)getpid();
	g_ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (g_ncpu < 1)
		g_ncpu = 1;
	g_size = dev_size();
	if (g_size < NOVA_MIN_SIZE || g_size > (256ULL << 20))
		die("%s: %llu bytes; use a device of 2-256 MiB", g_dev,
		    (unsigned long long)g_size);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	memset(sh, 0, sizeof(*sh));
	kmsg_open();
	build_base(&b);
	kmsg_drain();
	if (klog_bad) {
		printf("kernel report while building the base images:\n");
		klog_print("  ", 200);
		return 2;
	}
	klog_reset();
	g_work = img_alloc();
	if (!is_replay)
		printf("run seed 0x%016llx: %ld images, %us per image\n",
		       (unsigned long long)seed, iters, g_iter_timeout);
	t0 = now_s();
	for (i = 0; i < iters; i++) {
		if (tmax > 0 && now_s() - t0 > tmax) {
			printf("time limit of %.0fs reached\n", tmax);
			break;
		}
		result = run_iteration(&b, (int)i, is_replay ? replay : iter_seed(seed, i));
		done_iters++;
		if (result)
			break;
	}
	summary(done_iters, now_s() - t0, result);
	if (!result && g_strict && nfinds)
		result = 4;
	return result;
}
