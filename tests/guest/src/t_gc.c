// SPDX-License-Identifier: GPL-2.0
/*
 * Log GC acceptance checks (tests/guest/061-gc-bounds.sh, 062-gc-dir.sh,
 * _gc-bounds.sh).  Static, for the busybox guest.
 *
 *   t_gc overwrite FILE WRITES SPAN EVERY MODEL
 *       fill FILE with SPAN bytes, then WRITES 4 KiB writes at random
 *       byte offsets inside it; every EVERY writes check the log bound
 *       and the space used; finally compare FILE with the in-memory model
 *       and save the model to MODEL
 *   t_gc appendtrunc FILE OPS MAXSIZE EVERY MODEL
 *       random appends (1 B .. 64 KiB) and shrinking truncates, same checks
 *   t_gc bench FILE SIZE WRITES
 *       fill FILE with SIZE bytes, time WRITES page-aligned 4 KiB writes at
 *       random offsets; prints writes/s and MiB/s
 *   t_gc mkdirents DIR N          create N files DIR/f<i>-<padding>
 *   t_gc rmdirents DIR N STEP     remove every file whose i % STEP != 0
 *   t_gc checkdir DIR N STEP      readdir lists exactly the i % STEP == 0 files
 *   t_gc loginfo PATH             print the NOVA_IOC_LOG_INFO fields
 *   t_gc procwrite FILE STRING ERR
 *       write STRING to FILE in one write(); ERR is "ok" or an errno name
 *       (EINVAL, ENOENT, ...) that the write must fail with
 *
 * The log bound checked is the test's own: a regular file of P pages has
 * at most P live write entries (64 bytes) plus one set-attribute (64) and
 * one link-change entry (48), at most 63 entries fit in a 4 KiB log page,
 * so its live entries need N = ceil((P + 2) / 62) pages (one entry's room
 * lost per page) and the log must stay within 2 N + 1 pages.  The kernel's
 * own figure (limit_pages) must also hold.  Exit status 0: all checks
 * passed; 1: a check failed (the reason is printed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tools/nova_shim.h"
#include "nova_format.h"
#include "nova_lib.h"
#include "nova_ioctl.h"
#include "tutil.h"

#define PG 4096UL

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void die(const char *fmt, const char *arg)
{
	printf("FAIL: ");
	printf(fmt, arg);
	printf(" (%s)\n", strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void log_info(int fd, struct nova_log_info *li)
{
	if (ioctl(fd, NOVA_IOC_LOG_INFO, li))
		die("%s", "NOVA_IOC_LOG_INFO");
}

static long used_blocks(int fd)
{
	struct statfs st;

	if (fstatfs(fd, &st))
		die("%s", "fstatfs");
	return (long)(st.f_blocks - st.f_bfree);
}

static void fill_random(char *buf, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t v = rnd();

		memcpy(buf + i, &v, 8);
	}
	for (; i < n; i++)
		buf[i] = (char)rnd();
}

static void xpwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (pwrite(fd, buf, n, off) != (ssize_t)n)
		die("%s", "pwrite");
}

/* Log bound of a file of @size bytes, from the test's own arithmetic */
static unsigned long test_bound(off_t size)
{
	unsigned long p = (size + PG - 1) / PG;
	unsigned long need = (p + 2 + 61) / 62;

	if (!need)
		need = 1;
	return 2 * need + 1;
}

struct sampler {
	int fd;
	long used_base;		/* used blocks with no data, one log page */
	unsigned long samples, max_log, max_over;	/* max log - bound */
	long max_extra;		/* used - (base + data), max */
};

static void sample(struct sampler *s, off_t size, const char *what,
		   unsigned long op)
{
	struct nova_log_info li;
	unsigned long bound = test_bound(size), p = (size + PG - 1) / PG;
	long used = used_blocks(s->fd), extra;

	log_info(s->fd, &li);
	s->samples++;
	if (li.log_pages > s->max_log)
		s->max_log = li.log_pages;
	if (li.log_pages > li.limit_pages || li.log_pages > bound) {
		printf("FAIL: %s op %lu: size %lld: log %llu pages, kernel limit %llu, test bound %lu (live %llu bytes, %llu writes)\n",
		       what, op, (long long)size,
		       (unsigned long long)li.log_pages,
		       (unsigned long long)li.limit_pages, bound,
		       (unsigned long long)li.live_bytes,
		       (unsigned long long)li.live_writes);
		exit(1);
	}
	if (li.data_pages != p) {
		printf("FAIL: %s op %lu: %llu data pages, the file has %lu\n",
		       what, op, (unsigned long long)li.data_pages, p);
		exit(1);
	}
	/* space: the data, the log within its bound, nothing leaked */
	extra = used - s->used_base - (long)p;
	if (extra > s->max_extra)
		s->max_extra = extra;
	if (extra > (long)bound - 1) {
		printf("FAIL: %s op %lu: %ld blocks used, base %ld + %lu data + at most %lu more log pages\n",
		       what, op, used, s->used_base, p, bound - 1);
		exit(1);
	}
}

static void verify(int fd, const char *model, off_t size, const char *what)
{
	char *buf = malloc(size + 1);
	struct stat st;

	if (!buf)
		die("%s", "malloc");
	if (fstat(fd, &st))
		die("%s", "fstat");
	if (st.st_size != size) {
		printf("FAIL: %s: size %lld, model %lld\n", what,
		       (long long)st.st_size, (long long)size);
		exit(1);
	}
	if (size && pread(fd, buf, size, 0) != size)
		die("%s", "pread");
	if (memcmp(buf, model, size)) {
		off_t i = 0;

		while (buf[i] == model[i])
			i++;
		printf("FAIL: %s: contents differ from the model at byte %lld\n",
		       what, (long long)i);
		exit(1);
	}
	free(buf);
}

static void save_model(const char *path, const char *model, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || (size && write(fd, model, size) != size) || close(fd))
		die("cannot save the model to %s", path);
}

static int open_new(const char *path, struct sampler *s)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct nova_log_info li;

	if (fd < 0)
		die("open %s", path);
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	log_info(fd, &li);
	/* an empty file: its log (if any) counts as the base's log page */
	s->used_base = used_blocks(fd) - (long)li.log_pages + 1;
	return fd;
}

static void report(const char *what, struct sampler *s, unsigned long ops,
		   double secs)
{
	struct nova_log_info li;

	log_info(s->fd, &li);
	printf("INFO: %s: %lu ops in %.1f s (%.0f ops/s), %lu samples, log max %lu pages, now %llu (limit %llu), max extra used blocks %ld\n",
	       what, ops, secs, ops / secs, s->samples, s->max_log,
	       (unsigned long long)li.log_pages,
	       (unsigned long long)li.limit_pages, s->max_extra);
}

/*
 * The end of a timed run of @ops operations from @t0 on: the file must
 * hold @model, which is saved to @path for a later check; the statistics.
 */
static int finish(int fd, struct sampler *s, const char *model, off_t size,
		  const char *what, unsigned long ops, double t0,
		  const char *path)
{
	double secs = now() - t0;

	verify(fd, model, size, what);
	report(what, s, ops, secs);
	save_model(path, model, size);
	close(fd);
	return 0;
}

static int cmd_overwrite(char **av)
{
	unsigned long writes = strtoul(av[1], NULL, 0), i;
	off_t span = strtoll(av[2], NULL, 0);
	unsigned long every = strtoul(av[3], NULL, 0);
	char *model = malloc(span), buf[PG];
	struct sampler s;
	double t;
	int fd = open_new(av[0], &s);

	if (!model || span < (off_t)PG || !every)
		die("%s", "bad arguments");
	fill_random(model, span);
	xpwrite(fd, model, span, 0);
	sample(&s, span, "overwrite", 0);
	t = now();
	for (i = 1; i <= writes; i++) {
		off_t off = rnd() % (span - PG + 1);

		fill_random(buf, PG);
		xpwrite(fd, buf, PG, off);
		memcpy(model + off, buf, PG);
		if (i % every == 0)
			sample(&s, span, "overwrite", i);
	}
	return finish(fd, &s, model, span, "overwrite", writes, t, av[4]);
}

static int cmd_appendtrunc(char **av)
{
	unsigned long ops = strtoul(av[1], NULL, 0), i;
	off_t max = strtoll(av[2], NULL, 0), size = 0;
	unsigned long every = strtoul(av[3], NULL, 0);
	char *model = malloc(max);
	struct sampler s;
	double t;
	int fd = open_new(av[0], &s);

	if (!model || max < 65536 || !every)
		die("%s", "bad arguments");
	t = now();
	for (i = 1; i <= ops; i++) {
		off_t len = 1 + rnd() % 65536;

		if (size + len <= max && rnd() % 3) {
			fill_random(model + size, len);
			xpwrite(fd, model + size, len, size);
			size += len;
		} else {
			/* shrink: often to zero, else anywhere below */
			size = rnd() % 4 ? (off_t)(rnd() % (size + 1)) : 0;
			if (ftruncate(fd, size))
				die("%s", "ftruncate");
		}
		if (i % every == 0)
			sample(&s, size, "appendtrunc", i);
	}
	return finish(fd, &s, model, size, "appendtrunc", ops, t, av[4]);
}

static int cmd_bench(char **av)
{
	off_t size = strtoll(av[1], NULL, 0);
	unsigned long writes = strtoul(av[2], NULL, 0), i;
	unsigned long pages = size / PG;
	char buf[PG], *fill = calloc(1, 1 << 20);
	double t;
	off_t o;
	int fd = open(av[0], O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || !fill || !pages)
		die("%s", "bench setup");
	for (o = 0; o < size; o += 1 << 20)
		xpwrite(fd, fill, size - o < (1 << 20) ? size - o : 1 << 20, o);
	fill_random(buf, PG);
	t = now();
	for (i = 0; i < writes; i++)
		xpwrite(fd, buf, PG, (off_t)(rnd() % pages) * PG);
	t = now() - t;
	printf("INFO: bench: %lu x 4 KiB random writes in a %lld KiB file: %.2f s, %.0f writes/s, %.1f MiB/s\n",
	       writes, (long long)size >> 10, t, writes / t,
	       writes * 4.0 / 1024 / t);
	close(fd);
	return 0;
}

static void dirent_name(char *name, size_t n, const char *dir, unsigned long i)
{
	snprintf(name, n, "%s/f%05lu-a-name-of-some-length", dir, i);
}

static int cmd_mkdirents(char **av)
{
	unsigned long n = strtoul(av[1], NULL, 0), i;
	char name[512];

	for (i = 0; i < n; i++) {
		int fd;

		dirent_name(name, sizeof(name), av[0], i);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || close(fd))
			die("create %s", name);
	}
	return 0;
}

static int cmd_rmdirents(char **av)
{
	unsigned long n = strtoul(av[1], NULL, 0), step = strtoul(av[2], NULL, 0);
	unsigned long i;
	char name[512];

	for (i = 0; i < n; i++) {
		if (i % step == 0)
			continue;
		dirent_name(name, sizeof(name), av[0], i);
		if (unlink(name))
			die("unlink %s", name);
	}
	return 0;
}

static int cmd_checkdir(char **av)
{
	unsigned long n = strtoul(av[1], NULL, 0), step = strtoul(av[2], NULL, 0);
	unsigned long i, found = 0, want = (n + step - 1) / step;
	char *seen = calloc(n, 1), name[512];
	DIR *d = opendir(av[0]);
	struct dirent *de;

	if (!d || !seen)
		die("opendir %s", av[0]);
	while ((de = readdir(d))) {
		char *end;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		i = strtoul(de->d_name + 1, &end, 10);
		dirent_name(name, sizeof(name), "", i);
		if (de->d_name[0] != 'f' || i >= n || i % step ||
		    strcmp(de->d_name, name + 1) || seen[i]) {
			printf("FAIL: %s: unexpected or repeated entry %s\n",
			       av[0], de->d_name);
			return 1;
		}
		seen[i] = 1;
		found++;
	}
	closedir(d);
	if (found != want) {
		printf("FAIL: %s: %lu entries, expected %lu\n", av[0], found, want);
		return 1;
	}
	printf("INFO: %s: exactly the %lu expected entries\n", av[0], found);
	return 0;
}

static int cmd_loginfo(char **av)
{
	struct nova_log_info li;
	int fd = open(av[0], O_RDONLY);

	if (fd < 0)
		die("open %s", av[0]);
	log_info(fd, &li);
	printf("log_pages=%llu\nlive_bytes=%llu\nneed_pages=%llu\nlimit_pages=%llu\ndata_pages=%llu\nlive_writes=%llu\n",
	       (unsigned long long)li.log_pages,
	       (unsigned long long)li.live_bytes,
	       (unsigned long long)li.need_pages,
	       (unsigned long long)li.limit_pages,
	       (unsigned long long)li.data_pages,
	       (unsigned long long)li.live_writes);
	close(fd);
	return 0;
}

static int cmd_procwrite(char **av)
{
	size_t len = strlen(av[1]);
	int fd = open(av[0], O_WRONLY), want = 0;
	ssize_t ret;

	if (strcmp(av[2], "ok")) {
		want = errno_by_name(av[2]);
		if (want < 0)
			die("unknown errno name %s", av[2]);
	}
	if (fd < 0)
		die("open %s", av[0]);
	errno = 0;
	ret = write(fd, av[1], len);
	if (!want && ret == (ssize_t)len)
		return 0;
	if (want && ret < 0 && errno == want)
		return 0;
	printf("FAIL: write '%s' to %s: returned %zd, errno %d (%s), expected %s\n",
	       av[1], av[0], ret, errno, strerror(errno), av[2]);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct tcmd cmds[] = {
		{ "overwrite", 5, cmd_overwrite },
		{ "appendtrunc", 5, cmd_appendtrunc },
		{ "bench", 3, cmd_bench },
		{ "mkdirents", 2, cmd_mkdirents },
		{ "rmdirents", 3, cmd_rmdirents },
		{ "checkdir", 3, cmd_checkdir },
		{ "loginfo", 1, cmd_loginfo },
		{ "procwrite", 3, cmd_procwrite },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("T_GC_SEED"))
		rng = strtoull(getenv("T_GC_SEED"), NULL, 0) | 1;
	return run_cmd(cmds, sizeof(cmds) / sizeof(cmds[0]), argc, argv,
		       "t_gc");
}
