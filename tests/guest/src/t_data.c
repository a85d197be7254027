// SPDX-License-Identifier: GPL-2.0
/*
 * t_data: file data-path conformance tests.
 *
 *   t_data DIR            run every case
 *   t_data DIR CASE...    run only the named cases
 *   t_data --list         print the case names, one a line
 *
 * DIR must be a directory on the file system under test; the program runs
 * as root.  For every case it prints exactly one line, "PASS <case>" or
 * "FAIL <case>: line N: <what, expected vs got>"; then "t_data: N passed,
 * N failed".  Exit status: 0 when every case passed, 1 when one failed,
 * 2 on usage errors.
 *
 * Each case works on its own files DIR/<case> and DIR/<case>.N and removes
 * them when it passes (a failing case's files are kept for inspection).
 * Every content check compares against an in-memory reference buffer.
 *
 * The semantics asserted are the Linux ones, checked against tmpfs and
 * ext4.  Cases that need a DAX file system (MAP_SYNC) fail elsewhere with
 * EOPNOTSUPP, and tmpfs has no FALLOC_FL_ZERO_RANGE; the failure message
 * says so.  sparse_16t_alias accepts EFBIG past 16 TiB except on NOVA and
 * tmpfs (whose limit is MAX_LFS_FILESIZE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/falloc.h>
#include "tcase.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef SEEK_DATA
#define SEEK_DATA 3
#define SEEK_HOLE 4
#endif

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#define NOVA_SUPER_MAGIC 0x4E4F5641

#define BS 4096L
#define KiB 1024L
#define MiB (1024L * 1024L)
#define GiB (1024LL * 1024LL * 1024LL)

static int g_dirfd = -1;	/* DIR, where the cases work */

/* ------------------------------------------------------------------ */
/* Per-case resources: files, buffers, mappings                        */
/* ------------------------------------------------------------------ */

#define MAXFILES 8
#define MAXBUFS 32
#define MAXMAPS 16

static char g_used[MAXFILES];
static void *g_bufs[MAXBUFS];
static struct { void *p; size_t len; } g_maps[MAXMAPS];

/* name of the case's file number n: "<case>" for 0, "<case>.n" otherwise */
static const char *fname(int n)
{
	static char names[MAXFILES][300];

	if (n < 0 || n >= MAXFILES)
		abort();
	g_used[n] = 1;
	if (n == 0)
		snprintf(names[n], sizeof(names[n]), "%s", g_case);
	else
		snprintf(names[n], sizeof(names[n]), "%s.%d", g_case, n);
	return names[n];
}

static int open_at(int n, int flags, int line)
{
	const char *nm = fname(n);
	int fd = openat(g_dirfd, nm, flags, 0644);

	if (fd < 0)
		fail_at(line, "open(%s, 0%o): expected success, got %s", nm,
			flags, errname(errno));
	if (fd >= MAXFD)
		fail_at(line, "fd %d too large", fd);
	return fd;
}
/* a new empty file number n, open read-write */
#define NEWF(n) open_at((n), O_RDWR | O_CREAT | O_TRUNC, __LINE__)
#define OPENF(n, fl) open_at((n), (fl), __LINE__)

static void *xalloc(size_t len)
{
	void *p = NULL;
	int i;

	for (i = 0; i < MAXBUFS && g_bufs[i]; i++)
		;
	if (i == MAXBUFS)
		FAIL("test bug: too many buffers");
	if (posix_memalign(&p, BS, len ? len : 1))
		FAIL("out of memory (%zu bytes)", len);
	memset(p, 0, len);
	g_bufs[i] = p;
	return p;
}

static void *map_at(size_t len, int prot, int flags, int fd, off_t off,
		    int line)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);
	int i;

	if (p == MAP_FAILED)
		fail_at(line, "mmap(len %zu, off %lld): expected success, got %s",
			len, (long long)off, errname(errno));
	for (i = 0; i < MAXMAPS && g_maps[i].p; i++)
		;
	if (i == MAXMAPS)
		fail_at(line, "test bug: too many mappings");
	g_maps[i].p = p;
	g_maps[i].len = len;
	return p;
}
#define MAP(len, prot, flags, fd, off) \
	map_at((len), (prot), (flags), (fd), (off), __LINE__)

static void unmap_at(void *p, int line)
{
	for (int i = 0; i < MAXMAPS; i++) {
		if (g_maps[i].p == p) {
			if (munmap(p, g_maps[i].len))
				fail_at(line, "munmap: %s", errname(errno));
			g_maps[i].p = NULL;
			return;
		}
	}
	fail_at(line, "test bug: unmap of an unknown mapping");
}
#define UNMAP(p) unmap_at((p), __LINE__)

static void release_resources(void)
{
	for (int i = 0; i < MAXMAPS; i++) {
		if (g_maps[i].p)
			munmap(g_maps[i].p, g_maps[i].len);
		g_maps[i].p = NULL;
	}
	for (int i = 0; i < MAXBUFS; i++) {
		free(g_bufs[i]);
		g_bufs[i] = NULL;
	}
	tcase_close_fds(g_dirfd);
}

/* ------------------------------------------------------------------ */
/* Data helpers                                                        */
/* ------------------------------------------------------------------ */

static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	uint64_t x = g_rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	g_rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* pseudo-random bytes; never all-zero for long, so zeros stand out */
static void fill(void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;

	while (i + 8 <= len) {
		uint64_t v = rnd() | 0x0101010101010101ULL;

		memcpy(p + i, &v, 8);
		i += 8;
	}
	while (i < len)
		p[i++] = (unsigned char)(rnd() | 1);
}

static void *rbuf(size_t len)
{
	void *p = xalloc(len);

	fill(p, len);
	return p;
}

static uint64_t fnv64(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void hexbytes(char *out, size_t outlen, const unsigned char *p,
		     size_t n)
{
	size_t o = 0;

	out[0] = 0;
	for (size_t i = 0; i < n && o + 3 < outlen; i++)
		o += snprintf(out + o, outlen - o, "%02x", p[i]);
}

/* got[0..len) must equal want[0..len); base is the file offset of got[0] */
static void mem_eq_at(const void *gotv, const void *wantv, size_t len,
		      long long base, const char *what, int line)
{
	const unsigned char *got = gotv, *want = wantv;
	size_t first, last, n = mem_diff(got, want, len, &first, &last), k;
	char g[40], w[40];

	if (!n)
		return;
	k = len - first < 8 ? len - first : 8;
	hexbytes(w, sizeof(w), want + first, k);
	hexbytes(g, sizeof(g), got + first, k);
	fail_at(line, "%s: content differs at file offset %lld: expected %s, got %s"
		" (%zu of %zu bytes differ, last at offset %lld)",
		what, base + (long long)first, w, g, n, len,
		base + (long long)last);
}
#define MEM_EQ(got, want, len, base, what) \
	mem_eq_at((got), (want), (len), (base), (what), __LINE__)

static const unsigned char *zeros(size_t len)
{
	static unsigned char *z;
	static size_t zlen;

	if (len > zlen) {
		free(z);
		z = calloc(1, len);
		if (!z)
			abort();
		zlen = len;
	}
	return z;
}

static void pwrite_at(int fd, const void *buf, size_t len, off_t off,
		      int line)
{
	ssize_t r = pwrite(fd, buf, len, off);

	if (r < 0)
		fail_at(line, "pwrite(len %zu, off %lld): expected success, got %s",
			len, (long long)off, errname(errno));
	if ((size_t)r != len)
		fail_at(line, "pwrite(len %zu, off %lld): expected %zu, got %zd",
			len, (long long)off, len, r);
}
#define PWRITE(fd, buf, len, off) pwrite_at((fd), (buf), (len), (off), __LINE__)

static void write_at(int fd, const void *buf, size_t len, int line)
{
	ssize_t r = write(fd, buf, len);

	if (r < 0)
		fail_at(line, "write(len %zu): expected success, got %s", len,
			errname(errno));
	if ((size_t)r != len)
		fail_at(line, "write(len %zu): expected %zu, got %zd", len, len,
			r);
}
#define WRITE(fd, buf, len) write_at((fd), (buf), (len), __LINE__)

/* read exactly len bytes at off (pread loop; a short file is an error) */
static void pread_at(int fd, void *buf, size_t len, off_t off, int line)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done,
				  off + done);

		if (r < 0)
			fail_at(line, "pread(len %zu, off %lld): expected success, got %s",
				len - done, (long long)(off + done),
				errname(errno));
		if (r == 0)
			fail_at(line, "pread(len %zu, off %lld): expected %zu bytes, got end of file after %zu",
				len, (long long)off, len, done);
		done += r;
	}
}
#define PREAD(fd, buf, len, off) pread_at((fd), (buf), (len), (off), __LINE__)

/* file bytes [off, off+len) must equal want (read in chunks) */
static void file_eq_at(int fd, const void *want, size_t len, off_t off,
		       const char *what, int line)
{
	static unsigned char tmp[4 * 1024 * 1024];
	size_t chunk = sizeof(tmp), done = 0;

	while (done < len) {
		size_t n = len - done < chunk ? len - done : chunk;
		ssize_t r = pread(fd, tmp, n, off + done);

		if (r < 0 || (size_t)r != n) {
			int e = errno;

			if (r < 0)
				fail_at(line, "%s: pread(len %zu, off %lld): %s",
					what, n, (long long)(off + done),
					errname(e));
			fail_at(line, "%s: pread(len %zu, off %lld): expected %zu, got %zd",
				what, n, (long long)(off + done), n, r);
		}
		mem_eq_at(tmp, (const char *)want + done, n, off + done, what,
			  line);
		done += n;
	}
}
#define FILE_EQ(fd, want, len, off) \
	file_eq_at((fd), (want), (len), (off), "file content", __LINE__)
#define FILE_ZERO(fd, len, off) \
	file_eq_at((fd), zeros(len), (len), (off), "zeros expected", __LINE__)

static struct stat fst_at(int fd, int line)
{
	struct stat st;

	if (fstat(fd, &st))
		fail_at(line, "fstat: %s", errname(errno));
	return st;
}
#define FST(fd) fst_at((fd), __LINE__)
#define SIZE_EQ(fd, want) \
	eq_at((long long)FST(fd).st_size, (long long)(want), __LINE__, \
	      "st_size", #want)
#define BLOCKS_EQ(fd, want) \
	eq_at((long long)FST(fd).st_blocks, (long long)(want), __LINE__, \
	      "st_blocks (512-byte units)", #want)

static void fallocate_at(int fd, int mode, off_t off, off_t len, int line,
			 const char *mname)
{
	if (fallocate(fd, mode, off, len) == 0)
		return;
	if (errno == EOPNOTSUPP && (mode & FALLOC_FL_ZERO_RANGE))
		fail_at(line, "fallocate(%s, off %lld, len %lld): expected success, got EOPNOTSUPP"
			" (this file system has no FALLOC_FL_ZERO_RANGE: tmpfs does not)",
			mname, (long long)off, (long long)len);
	fail_at(line, "fallocate(%s, off %lld, len %lld): expected success, got %s",
		mname, (long long)off, (long long)len, errname(errno));
}
#define FALLOC(fd, mode, off, len) \
	fallocate_at((fd), (mode), (off), (len), __LINE__, #mode)

static void seek_eq_at(int fd, off_t off, int whence, long long want,
		       int line, const char *wn)
{
	off_t before = lseek(fd, 0, SEEK_CUR);
	off_t r = lseek(fd, off, whence);
	const char *w = whence == SEEK_DATA ? "SEEK_DATA" :
			whence == SEEK_HOLE ? "SEEK_HOLE" :
			whence == SEEK_SET ? "SEEK_SET" :
			whence == SEEK_END ? "SEEK_END" : "SEEK_CUR";

	if (want < 0) {
		int e = errno;

		if (r >= 0)
			fail_at(line, "lseek(%lld, %s): expected %s, got %lld",
				(long long)off, w, errname((int)-want),
				(long long)r);
		if (e != -want)
			fail_at(line, "lseek(%lld, %s): expected %s, got %s",
				(long long)off, w, errname((int)-want),
				errname(e));
		if (lseek(fd, 0, SEEK_CUR) != before)
			fail_at(line, "lseek(%lld, %s) failed but moved the file position from %lld to %lld",
				(long long)off, w, (long long)before,
				(long long)lseek(fd, 0, SEEK_CUR));
		return;
	}
	if (r < 0)
		fail_at(line, "lseek(%lld, %s): expected %lld (%s), got %s",
			(long long)off, w, want, wn, errname(errno));
	if (r != want)
		fail_at(line, "lseek(%lld, %s): expected %lld (%s), got %lld",
			(long long)off, w, want, wn, (long long)r);
	if (lseek(fd, 0, SEEK_CUR) != want)
		fail_at(line, "lseek(%lld, %s) returned %lld but the position is %lld",
			(long long)off, w, want,
			(long long)lseek(fd, 0, SEEK_CUR));
}
#define SEEK_EQ(fd, off, whence, want) \
	seek_eq_at((fd), (off), (whence), (want), __LINE__, #want)

/* ------------------------------------------------------------------ */
/* Signals: SIGBUS/SIGSEGV probing and timeouts                        */
/* ------------------------------------------------------------------ */

static sigjmp_buf g_bus_jmp;
static volatile sig_atomic_t g_bus_armed;
static volatile sig_atomic_t g_bus_sig;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (g_bus_armed) {
		g_bus_armed = 0;
		g_bus_sig = sig;
		siglongjmp(g_bus_jmp, 1);
	}
	snprintf(g_msg, sizeof(g_msg), "unexpected %s at address %p (code %d)",
		 sig == SIGBUS ? "SIGBUS" : "SIGSEGV", si->si_addr, si->si_code);
	siglongjmp(g_jmp, 2);
}

static void on_alarm(int sig)
{
	(void)sig;
	snprintf(g_msg, sizeof(g_msg), "timed out");
	siglongjmp(g_jmp, 2);
}

/*
 * Access one byte; returns 0 when it worked, else the signal number
 * (SIGBUS or SIGSEGV).  *val is the byte written or the byte read.
 */
static int probe(volatile unsigned char *p, int wr, unsigned char *val)
{
	g_bus_sig = 0;
	if (sigsetjmp(g_bus_jmp, 1))
		return g_bus_sig;
	g_bus_armed = 1;
	if (wr)
		*p = *val;
	else
		*val = *p;
	g_bus_armed = 0;
	return 0;
}

static const char *signame(int s)
{
	return s == SIGBUS ? "SIGBUS" : s == SIGSEGV ? "SIGSEGV" :
	       s ? "a signal" : "no signal (access worked)";
}

#define EXPECT_SIGBUS(p, wr) do {					\
		unsigned char v_ = 0x5a;				\
		int s_ = probe((p), (wr), &v_);				\
		if (s_ != SIGBUS)					\
			FAIL("%s of %s: expected SIGBUS, got %s",	\
			     (wr) ? "store" : "load", #p, signame(s_));	\
	} while (0)

/* ------------------------------------------------------------------ */
/* Timestamps                                                          */
/* ------------------------------------------------------------------ */

static void tick(void)
{
	/* long enough for a coarse (jiffy-based) clock to advance */
	struct timespec d = { 0, 30 * 1000 * 1000 };

	nanosleep(&d, NULL);
}

static long long tsns(struct timespec t)
{
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#define TS_LATER(after, before, what) do {				\
		if (tsns(after) <= tsns(before))			\
			FAIL("%s: expected it to advance past %lld ns, got %lld ns", \
			     what, tsns(before), tsns(after));		\
	} while (0)
#define TS_SAME(after, before, what) do {				\
		if (tsns(after) != tsns(before))			\
			FAIL("%s: expected it unchanged at %lld ns, got %lld ns", \
			     what, tsns(before), tsns(after));		\
	} while (0)

/* ------------------------------------------------------------------ */
/* Cases: plain reads and writes of many sizes                         */
/* ------------------------------------------------------------------ */

/* write() len bytes in one call, read() them back, reopen, pread them */
static void rw_size(size_t len)
{
	unsigned char *ref = rbuf(len), *got = xalloc(len + 1);
	int fd = NEWF(0);
	ssize_t r;

	WRITE(fd, ref, len);
	SIZE_EQ(fd, len);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), len);
	OK(lseek(fd, 0, SEEK_SET));
	r = OK(read(fd, got, len + 1));
	CHECK_EQ(r, len);
	MEM_EQ(got, ref, len, 0, "read() after write()");
	CHECK_EQ(read(fd, got, 1), 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, (len + BS - 1) / BS * 8);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, len, 0);
}

#define RW_SIZE(name, n) static void name(void) { rw_size(n); }
RW_SIZE(rw_size_1, 1)
RW_SIZE(rw_size_511, 511)
RW_SIZE(rw_size_4095, 4095)
RW_SIZE(rw_size_4096, 4096)
RW_SIZE(rw_size_4097, 4097)
RW_SIZE(rw_size_12287, 12287)
RW_SIZE(rw_size_65537, 65537)
RW_SIZE(rw_size_1m_minus_1, MiB - 1)
RW_SIZE(rw_size_2m_plus_3, 2 * MiB + 3)
RW_SIZE(rw_size_8m, 8 * MiB)

/* many small write() calls of odd sizes, read back with odd-sized reads */
static void rw_chunked(void)
{
	size_t len = MiB + 12345, off = 0, step = 1;
	unsigned char *ref = rbuf(len), *got = xalloc(len);
	int fd = NEWF(0);

	while (off < len) {
		size_t n = step < len - off ? step : len - off;

		WRITE(fd, ref + off, n);
		off += n;
		step = step * 3 + 1;
		if (step > 70000)
			step = 1;
	}
	SIZE_EQ(fd, len);
	OK(lseek(fd, 0, SEEK_SET));
	off = 0;
	while (off < len) {
		ssize_t r = OK(read(fd, got + off, 777));

		if (r == 0)
			FAIL("read() hit end of file at %zu, expected %zu bytes", off, len);
		off += r;
	}
	MEM_EQ(got, ref, len, 0, "odd-sized read() chunks");
}

/* a large write: 64 MiB in one call, read back, checksum */
static void rw_64m(void)
{
	size_t len = 64 * MiB;
	unsigned char *ref = rbuf(len);
	uint64_t want = fnv64(ref, len), got;
	unsigned char *tmp = xalloc(MiB);
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd = NEWF(0);

	WRITE(fd, ref, len);
	SIZE_EQ(fd, len);
	OK(fsync(fd));
	close(fd);
	fd = OPENF(0, O_RDONLY);
	for (size_t off = 0; off < len; off += MiB) {
		PREAD(fd, tmp, MiB, off);
		for (size_t i = 0; i < (size_t)MiB; i++) {
			h ^= tmp[i];
			h *= 0x100000001b3ULL;
		}
		MEM_EQ(tmp, ref + off, MiB, off, "64 MiB file");
	}
	got = h;
	if (got != want)
		FAIL("checksum: expected %016llx, got %016llx",
		     (unsigned long long)want, (unsigned long long)got);
	BLOCKS_EQ(fd, len / 512);
}

/* ------------------------------------------------------------------ */
/* Unaligned writes and overwrites                                     */
/* ------------------------------------------------------------------ */

static const long offs_d[] = { -2048, -100, -7, -1, 0, 1, 7, 100, 2047 };
static const size_t lens_u[] = { 1, 2, 100, 4095, 4096, 4097, 8191, 12289 };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* overwrites at offsets around block boundaries of a 64 KiB file */
static void unaligned_overwrite(void)
{
	size_t flen = 64 * KiB;
	unsigned char *ref = rbuf(flen), *src = rbuf(16 * KiB);
	int fd = NEWF(0);

	PWRITE(fd, ref, flen, 0);
	for (long k = 1; k <= 3; k++)
		for (size_t d = 0; d < NELEM(offs_d); d++)
			for (size_t l = 0; l < NELEM(lens_u); l++) {
				off_t off = k * BS + offs_d[d];
				size_t n = lens_u[l];

				fill(src, n);
				PWRITE(fd, src, n, off);
				memcpy(ref + off, src, n);
				FILE_EQ(fd, ref, flen, 0);
			}
	SIZE_EQ(fd, flen);
	OK(fsync(fd));
	BLOCKS_EQ(fd, flen / 512);
}

/* unaligned writes into an empty file: zeros before, nothing stale after */
static void unaligned_fresh(void)
{
	unsigned char *src = rbuf(16 * KiB);

	for (long k = 0; k <= 2; k++)
		for (size_t d = 0; d < NELEM(offs_d); d++)
			for (size_t l = 0; l < NELEM(lens_u); l += 2) {
				off_t off = k * BS + offs_d[d];
				size_t n = lens_u[l];
				int fd;

				if (off < 0)
					continue;
				fd = NEWF(0);
				PWRITE(fd, src, n, off);
				SIZE_EQ(fd, off + n);
				FILE_ZERO(fd, off, 0);
				FILE_EQ(fd, src, n, off);
				/* the rest of the last block must be zero */
				OK(ftruncate(fd, off + n + 2 * BS));
				FILE_ZERO(fd, 2 * BS, off + n);
				FILE_EQ(fd, src, n, off);
				close(fd);
			}
}

/* extend an unaligned file with a write past EOF: the gap reads zeros */
static void write_past_eof_gap(void)
{
	unsigned char *a = rbuf(3 * BS), *b = rbuf(300);
	int fd = NEWF(0);

	PWRITE(fd, a, 5000, 0);
	PWRITE(fd, b, 300, 9000);
	SIZE_EQ(fd, 9300);
	FILE_EQ(fd, a, 5000, 0);
	FILE_ZERO(fd, 4000, 5000);
	FILE_EQ(fd, b, 300, 9000);
	/* same after the blocks held data past the new EOF */
	close(fd);
	fd = NEWF(1);
	PWRITE(fd, a, 3 * BS, 0);
	OK(ftruncate(fd, 5000));
	PWRITE(fd, b, 1, 12000);
	FILE_EQ(fd, a, 5000, 0);
	FILE_ZERO(fd, 7000, 5000);
	FILE_EQ(fd, b, 1, 12000);
}

/* overwrite part of one block: the rest of the block is kept */
static void overwrite_partial_block(void)
{
	unsigned char *ref = rbuf(3 * BS), *src = rbuf(BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 3 * BS, 0);
	OK(fsync(fd));
	PWRITE(fd, src, 100, BS + 100);
	memcpy(ref + BS + 100, src, 100);
	FILE_EQ(fd, ref, 3 * BS, 0);
	PWRITE(fd, src, 1, 3 * BS - 1);
	ref[3 * BS - 1] = src[0];
	PWRITE(fd, src + 7, 1, 0);
	ref[0] = src[7];
	FILE_EQ(fd, ref, 3 * BS, 0);
	SIZE_EQ(fd, 3 * BS);
	BLOCKS_EQ(fd, 24);
}

/* overwrite the same region many times with varying offsets and sizes */
static void overwrite_repeat(void)
{
	size_t flen = 40 * KiB;
	unsigned char *ref = rbuf(flen), *src = xalloc(flen);
	int fd = NEWF(0);

	PWRITE(fd, ref, flen, 0);
	for (int i = 0; i < 200; i++) {
		off_t off = rnd() % (flen - 1);
		size_t n = 1 + rnd() % (flen - off);

		if (i % 3 == 0)
			n = n > 2 * BS ? 2 * BS : n;
		fill(src, n);
		PWRITE(fd, src, n, off);
		memcpy(ref + off, src, n);
		FILE_EQ(fd, ref, flen, 0);
	}
	SIZE_EQ(fd, flen);
	OK(fsync(fd));
	BLOCKS_EQ(fd, flen / 512);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, flen, 0);
}

/* overwrite a whole file with write(), read sees only the new data */
static void overwrite_whole(void)
{
	size_t len = 256 * KiB + 10;
	unsigned char *a = rbuf(len), *b = rbuf(len);
	int fd = NEWF(0);

	WRITE(fd, a, len);
	FILE_EQ(fd, a, len, 0);
	OK(lseek(fd, 0, SEEK_SET));
	WRITE(fd, b, len);
	FILE_EQ(fd, b, len, 0);
	SIZE_EQ(fd, len);
	OK(fsync(fd));
	BLOCKS_EQ(fd, (len + BS - 1) / BS * 8);
}

/* ------------------------------------------------------------------ */
/* pread/pwrite, readv/writev, file positions                          */
/* ------------------------------------------------------------------ */

/* pread/pwrite at random offsets; they do not move the file position */
static void pread_pwrite(void)
{
	size_t flen = 300 * KiB;
	unsigned char *ref = xalloc(flen), *src = xalloc(64 * KiB);
	unsigned char *got = xalloc(64 * KiB);
	size_t size = 0;
	int fd = NEWF(0);

	OK(lseek(fd, 1234, SEEK_SET));
	for (int i = 0; i < 300; i++) {
		off_t off = rnd() % (flen - 64 * KiB);
		size_t n = 1 + rnd() % (64 * KiB);

		fill(src, n);
		PWRITE(fd, src, n, off);
		memcpy(ref + off, src, n);
		if (off + n > size)
			size = off + n;
		off = rnd() % size;
		n = 1 + rnd() % (64 * KiB);
		{
			ssize_t r = OK(pread(fd, got, n, off));
			size_t want = size - off < n ? size - off : n;

			CHECK_EQ(r, want);
			MEM_EQ(got, ref + off, want, off, "pread");
		}
	}
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 1234);
	SIZE_EQ(fd, size);
	FILE_EQ(fd, ref, size, 0);
}

static void pread_pwrite_negative(void)
{
	char b[8] = "abcdefg";
	int fd = NEWF(0);

	WRITE(fd, b, 8);
	ERR(pwrite(fd, b, 1, -1), EINVAL);
	ERR(pread(fd, b, 1, -1), EINVAL);
	/* offset + count past LLONG_MAX */
	ERR(pwrite(fd, b, 1, LLONG_MAX), EINVAL);
	ERR(pwrite(fd, b, 8, LLONG_MAX - 4), EINVAL);
	SIZE_EQ(fd, 8);
}

/* writev/readv with many small and empty iovecs across block boundaries */
static void readv_writev(void)
{
	struct iovec iov[64];
	size_t total = 0, lens[64];
	unsigned char *ref = rbuf(200 * KiB), *got = xalloc(200 * KiB + 1);
	unsigned char *p;
	int fd = NEWF(0);
	ssize_t r;

	for (int i = 0; i < 64; i++) {
		if (i % 5 == 0)
			lens[i] = 0;
		else if (i % 7 == 0)
			lens[i] = 5000 + i;
		else
			lens[i] = 1 + rnd() % 3000;
		total += lens[i];
	}
	p = ref;
	for (int i = 0; i < 64; i++) {
		iov[i].iov_base = p;
		iov[i].iov_len = lens[i];
		p += lens[i];
	}
	OK(lseek(fd, 100, SEEK_SET));
	r = OK(writev(fd, iov, 64));
	CHECK_EQ(r, total);
	SIZE_EQ(fd, 100 + total);
	FILE_ZERO(fd, 100, 0);
	FILE_EQ(fd, ref, total, 100);
	/* read back scattered in a different split */
	p = got;
	for (int i = 0; i < 64; i++) {
		iov[i].iov_base = p;
		iov[i].iov_len = lens[63 - i];
		p += lens[63 - i];
	}
	r = OK(preadv(fd, iov, 64, 100));
	CHECK_EQ(r, total);
	MEM_EQ(got, ref, total, 100, "preadv");
	/* pwritev at an unaligned offset inside the file */
	iov[0].iov_base = ref + 7;
	iov[0].iov_len = 4000;
	iov[1].iov_base = ref + 9000;
	iov[1].iov_len = 0;
	iov[2].iov_base = ref + 11;
	iov[2].iov_len = 5000;
	r = OK(pwritev(fd, iov, 3, 3000));
	CHECK_EQ(r, 9000);
	memcpy(got, ref + 7, 4000);
	memcpy(got + 4000, ref + 11, 5000);
	FILE_EQ(fd, got, 9000, 3000);
}

/* readv past EOF returns what there is, then 0 */
static void readv_short_eof(void)
{
	unsigned char *ref = rbuf(10000), *got = xalloc(20000);
	struct iovec iov[3] = {
		{ got, 3000 }, { got + 3000, 5000 }, { got + 8000, 9000 },
	};
	int fd = NEWF(0);

	PWRITE(fd, ref, 10000, 0);
	CHECK_EQ(OK(readv(fd, iov, 3)), 10000);
	MEM_EQ(got, ref, 10000, 0, "readv");
	CHECK_EQ(OK(readv(fd, iov, 3)), 0);
	CHECK_EQ(OK(preadv(fd, iov, 3, 9999)), 1);
	CHECK_EQ(got[0], ref[9999]);
}

/* read at and past EOF returns 0; a read across EOF is short */
static void read_past_eof(void)
{
	unsigned char *ref = rbuf(5000), *got = xalloc(3 * BS);
	int fd = NEWF(0);

	CHECK_EQ(OK(read(fd, got, 100)), 0);
	CHECK_EQ(OK(pread(fd, got, 100, 0)), 0);
	CHECK_EQ(OK(pread(fd, got, 100, 1 * MiB)), 0);
	PWRITE(fd, ref, 5000, 0);
	CHECK_EQ(OK(pread(fd, got, 100, 5000)), 0);
	CHECK_EQ(OK(pread(fd, got, 100, 5001)), 0);
	CHECK_EQ(OK(pread(fd, got, 100, 1LL << 40)), 0);
	CHECK_EQ(OK(pread(fd, got, 3 * BS, 4000)), 1000);
	MEM_EQ(got, ref + 4000, 1000, 4000, "read across EOF");
	OK(lseek(fd, 4990, SEEK_SET));
	CHECK_EQ(OK(read(fd, got, 3 * BS)), 10);
	CHECK_EQ(OK(read(fd, got, 3 * BS)), 0);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 5000);
	OK(lseek(fd, 100000, SEEK_SET));
	CHECK_EQ(OK(read(fd, got, 3 * BS)), 0);
	SIZE_EQ(fd, 5000);
}

/* write() after lseek past EOF leaves a zero gap; zero-length writes */
static void lseek_write_gap(void)
{
	unsigned char *ref = rbuf(BS);
	int fd = NEWF(0);

	OK(lseek(fd, 10000, SEEK_SET));
	WRITE(fd, ref, 100);
	SIZE_EQ(fd, 10100);
	FILE_ZERO(fd, 10000, 0);
	FILE_EQ(fd, ref, 100, 10000);
	CHECK_EQ(OK(write(fd, ref, 0)), 0);
	CHECK_EQ(OK(pwrite(fd, ref, 0, 50000)), 0);
	SIZE_EQ(fd, 10100);
	OK(lseek(fd, 0, SEEK_END));
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 10100);
}

/* two descriptors see each other's writes at once */
static void two_fds_coherent(void)
{
	unsigned char *ref = rbuf(64 * KiB), *got = xalloc(64 * KiB);
	int a = NEWF(0), b = OPENF(0, O_RDWR);

	PWRITE(a, ref, 20000, 0);
	CHECK_EQ(OK(pread(b, got, 64 * KiB, 0)), 20000);
	MEM_EQ(got, ref, 20000, 0, "second fd");
	PWRITE(b, ref + 30000, 5000, 18000);
	memcpy(ref + 18000, ref + 30000, 5000);
	CHECK_EQ(FST(a).st_size, 23000);
	FILE_EQ(a, ref, 23000, 0);
}

/* read on O_WRONLY and write on O_RDONLY fail with EBADF */
static void bad_fd_modes(void)
{
	char b[16] = "0123456789";
	int w = OPENF(0, O_WRONLY | O_CREAT | O_TRUNC), r;

	WRITE(w, b, 10);
	r = OPENF(0, O_RDONLY);
	ERR(read(w, b, 1), EBADF);
	ERR(write(r, b, 1), EBADF);
	ERR(pwrite(r, b, 1, 0), EBADF);
	ERR(ftruncate(r, 0), EINVAL);
	SIZE_EQ(r, 10);
}

/* ------------------------------------------------------------------ */
/* O_APPEND                                                            */
/* ------------------------------------------------------------------ */

static void append_basic(void)
{
	unsigned char *ref = rbuf(3 * BS);
	int fd = NEWF(0), a;

	WRITE(fd, ref, 1000);
	close(fd);
	a = OPENF(0, O_WRONLY | O_APPEND);
	OK(lseek(a, 0, SEEK_SET));
	WRITE(a, ref + 1000, 3500);
	CHECK_EQ(lseek(a, 0, SEEK_CUR), 4500);
	OK(lseek(a, 10, SEEK_SET));
	WRITE(a, ref + 4500, 7000);
	CHECK_EQ(lseek(a, 0, SEEK_CUR), 11500);
	fd = OPENF(0, O_RDONLY);
	SIZE_EQ(fd, 11500);
	FILE_EQ(fd, ref, 11500, 0);
}

/* one plain fd and one O_APPEND fd on the same file */
static void append_two_fds(void)
{
	size_t size = 0, n;
	unsigned char *ref = xalloc(256 * KiB), *src = xalloc(8 * KiB);
	int fd = NEWF(0), a = OPENF(0, O_WRONLY | O_APPEND);

	for (int i = 0; i < 40; i++) {
		n = 1 + rnd() % (6 * KiB);
		fill(src, n);
		if (i % 2) {
			WRITE(a, src, n);
			memcpy(ref + size, src, n);
			size += n;
			CHECK_EQ(lseek(a, 0, SEEK_CUR), size);
		} else {
			/* the plain fd extends the file past where 'a' was */
			off_t off = size > 100 ? size - 100 : 0;

			PWRITE(fd, src, n, off);
			memcpy(ref + off, src, n);
			if (off + n > size)
				size = off + n;
		}
		SIZE_EQ(fd, size);
	}
	FILE_EQ(fd, ref, size, 0);
}

/* on Linux, pwrite on an O_APPEND fd appends and ignores the offset */
static void append_pwrite(void)
{
	unsigned char *ref = rbuf(BS);
	int fd = NEWF(0), a;

	WRITE(fd, ref, 100);
	a = OPENF(0, O_RDWR | O_APPEND);
	PWRITE(a, ref + 100, 50, 0);
	SIZE_EQ(fd, 150);
	FILE_EQ(fd, ref, 150, 0);
}

/* ------------------------------------------------------------------ */
/* O_DIRECT                                                            */
/* ------------------------------------------------------------------ */

static void odirect_rw(void)
{
	size_t len = MiB;
	unsigned char *ref = rbuf(len + 64 * KiB), *got = xalloc(len + 64 * KiB);
	int fd, b;
	ssize_t r;

	fd = open_at(0, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, __LINE__);
	r = OK(write(fd, ref, len));
	CHECK_EQ(r, len);
	r = OK(pwrite(fd, ref + len, 64 * KiB, len + 64 * KiB));
	CHECK_EQ(r, 64 * KiB);
	SIZE_EQ(fd, len + 128 * KiB);
	r = OK(pread(fd, got, len, 0));
	CHECK_EQ(r, len);
	MEM_EQ(got, ref, len, 0, "O_DIRECT read");
	r = OK(pread(fd, got, 128 * KiB, len));
	CHECK_EQ(r, 128 * KiB);
	MEM_EQ(got, zeros(64 * KiB), 64 * KiB, len, "O_DIRECT read of the gap");
	MEM_EQ(got + 64 * KiB, ref + len, 64 * KiB, len + 64 * KiB, "O_DIRECT read");
	/* O_DIRECT read at EOF */
	CHECK_EQ(OK(pread(fd, got, BS, len + 128 * KiB)), 0);
	b = OPENF(0, O_RDONLY);
	FILE_EQ(b, ref, len, 0);
	FILE_EQ(b, ref + len, 64 * KiB, len + 64 * KiB);
	OK(fsync(fd));
	BLOCKS_EQ(fd, (len + 64 * KiB) / 512);
}

/* buffered and direct I/O on one file stay coherent */
static void odirect_mixed(void)
{
	unsigned char *ref = rbuf(64 * KiB), *got = xalloc(64 * KiB);
	unsigned char *src = rbuf(16 * KiB);
	int b = NEWF(0), d;

	d = open_at(0, O_RDWR | O_DIRECT, __LINE__);
	PWRITE(b, ref, 40000, 0);		/* buffered, unaligned size */
	CHECK_EQ(OK(pread(d, got, 64 * KiB, 0)), 40000);
	MEM_EQ(got, ref, 40000, 0, "O_DIRECT read after buffered write");
	CHECK_EQ(OK(pwrite(d, src, 8 * KiB, 8 * KiB)), 8 * KiB);
	memcpy(ref + 8 * KiB, src, 8 * KiB);
	FILE_EQ(b, ref, 40000, 0);
	PWRITE(b, src + 100, 3, 8 * KiB + 5);	/* buffered into the direct block */
	memcpy(ref + 8 * KiB + 5, src + 100, 3);
	CHECK_EQ(OK(pread(d, got, 16 * KiB, 0)), 16 * KiB);
	MEM_EQ(got, ref, 16 * KiB, 0, "O_DIRECT read after buffered overwrite");
	/* an O_DIRECT write at EOF extends the file */
	CHECK_EQ(OK(pwrite(d, src, BS, 40 * KiB)), BS);
	SIZE_EQ(b, 44 * KiB);
	memset(ref + 40000, 0, 40 * KiB - 40000);
	memcpy(ref + 40 * KiB, src, BS);
	FILE_EQ(b, ref, 44 * KiB, 0);
	/* an O_DIRECT read across an unaligned EOF is short */
	OK(ftruncate(b, 4096 + 100));
	CHECK_EQ(OK(pread(d, got, 8 * KiB, 0)), 4196);
	MEM_EQ(got, ref, 4196, 0, "O_DIRECT read across EOF");
}

/* ------------------------------------------------------------------ */
/* Holes and sparse files                                              */
/* ------------------------------------------------------------------ */

static void hole_1m(void)
{
	unsigned char *ref = rbuf(5000);
	int fd = NEWF(0);

	PWRITE(fd, ref, 5000, MiB);
	SIZE_EQ(fd, MiB + 5000);
	FILE_ZERO(fd, MiB, 0);
	FILE_EQ(fd, ref, 5000, MiB);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 16);
}

static void hole_middle(void)
{
	unsigned char *ref = rbuf(3 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, BS, 0);
	PWRITE(fd, ref + BS, 2 * BS, 100 * BS + 7);
	FILE_EQ(fd, ref, BS, 0);
	FILE_ZERO(fd, 99 * BS + 7, BS);
	FILE_EQ(fd, ref + BS, 2 * BS, 100 * BS + 7);
	/* fill part of the hole; its neighbours stay zero */
	PWRITE(fd, ref, 10, 50 * BS - 5);
	FILE_ZERO(fd, 49 * BS - 5, BS);
	FILE_EQ(fd, ref, 10, 50 * BS - 5);
	FILE_ZERO(fd, 50 * BS + 2, 50 * BS + 5);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 8 * 6);
}

/* sparse files far out: 8 TiB and 1 TiB */
static void sparse_8t(void)
{
	off_t off = (1LL << 43) - BS;
	unsigned char *ref = rbuf(BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, BS, off);
	SIZE_EQ(fd, 1LL << 43);
	FILE_EQ(fd, ref, BS, off);
	FILE_ZERO(fd, 3 * BS, off - 3 * BS);
	FILE_ZERO(fd, BS, 0);
	FILE_ZERO(fd, 2 * BS, (1LL << 42) - BS);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 8);
	/* page index 2^31 (past a signed 32-bit index) and a low page */
	PWRITE(fd, ref + BS, BS, (1LL << 43) + 2 * BS);
	PWRITE(fd, ref + 2 * BS, BS, 2 * BS);
	SIZE_EQ(fd, (1LL << 43) + 3 * BS);
	FILE_EQ(fd, ref + 2 * BS, BS, 2 * BS);
	FILE_ZERO(fd, 2 * BS, 0);
	FILE_ZERO(fd, 2 * BS, 1LL << 43);
	FILE_EQ(fd, ref + BS, BS, (1LL << 43) + 2 * BS);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 24);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, BS, off);
	FILE_EQ(fd, ref + BS, BS, (1LL << 43) + 2 * BS);
	FILE_EQ(fd, ref + 2 * BS, BS, 2 * BS);
}

/*
 * Past 16 TiB the page index needs more than 32 bits: data there must not
 * alias a low page.  A file system whose size limit is lower (ext4 and
 * NOVA: 16 TiB - 4 KiB, 2^32 - 1 blocks) refuses with EFBIG and keeps the
 * file as it was; tmpfs (limit MAX_LFS_FILESIZE) must not refuse.
 */
static void sparse_16t_alias(void)
{
	off_t low = 3 * BS + 10, high = (1LL << 44) + low;
	unsigned char *ref = rbuf(2 * BS);
	struct statfs sfs;
	int fd = NEWF(0);

	OK(fstatfs(fd, &sfs));
	PWRITE(fd, ref, 100, low);
	if (pwrite(fd, ref + BS, 100, high) < 0) {
		if (errno == EFBIG && sfs.f_type != TMPFS_MAGIC) {
			/* this file system stops at 16 TiB */
			SIZE_EQ(fd, low + 100);
			FILE_EQ(fd, ref, 100, low);
			return;
		}
		FAIL("pwrite(len 100, off 2^44 + %lld): expected success, got %s",
		     (long long)low, errname(errno));
	}
	if (sfs.f_type == NOVA_SUPER_MAGIC)
		FAIL("pwrite(len 100, off 2^44 + %lld): past NOVA's largest file, but no EFBIG",
		     (long long)low);
	SIZE_EQ(fd, high + 100);
	FILE_EQ(fd, ref, 100, low);
	FILE_ZERO(fd, low, 0);
	FILE_ZERO(fd, BS, 1LL << 44);
	FILE_EQ(fd, ref + BS, 100, high);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 16);
	/* and past 2^45 */
	PWRITE(fd, ref + 50, 100, (1LL << 45) + low);
	FILE_EQ(fd, ref + 50, 100, (1LL << 45) + low);
	FILE_EQ(fd, ref, 100, low);
	FILE_EQ(fd, ref + BS, 100, high);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 24);
}

static void sparse_1t_unaligned(void)
{
	off_t off = (1LL << 40) + 123;
	unsigned char *ref = rbuf(5000), *b = rbuf(10);
	int fd = NEWF(0);

	PWRITE(fd, ref, 5000, off);
	SIZE_EQ(fd, off + 5000);
	FILE_ZERO(fd, 123, 1LL << 40);
	FILE_EQ(fd, ref, 5000, off);
	/* the rest of the last block is zero once the file is extended */
	OK(ftruncate(fd, off + 5000 + 2 * BS));
	FILE_ZERO(fd, 2 * BS, off + 5000);
	/* and a small write at the start of the file */
	PWRITE(fd, b, 10, 3);
	FILE_ZERO(fd, 3, 0);
	FILE_EQ(fd, b, 10, 3);
	FILE_ZERO(fd, BS - 13, 13);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 24);
}

/* a file larger than 4 GiB: a byte at 5 GiB, writes across 4 GiB */
static void large_5g(void)
{
	unsigned char *ref = rbuf(3 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 1, 5 * GiB);
	SIZE_EQ(fd, 5 * GiB + 1);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 8);
	FILE_EQ(fd, ref, 1, 5 * GiB);
	FILE_ZERO(fd, BS, 5 * GiB - BS);
	FILE_ZERO(fd, BS, 4 * GiB);
	FILE_ZERO(fd, BS, GiB);		/* 5 GiB modulo 4 GiB */
	FILE_ZERO(fd, BS, MiB);
	/* across the 4 GiB boundary (page index 2^20) */
	PWRITE(fd, ref + 1, 2 * BS, 4 * GiB - BS - 10);
	FILE_EQ(fd, ref + 1, 2 * BS, 4 * GiB - BS - 10);
	FILE_ZERO(fd, BS, 4 * GiB - 2 * BS - 10);
	FILE_ZERO(fd, BS, 4 * GiB + BS - 10);
	FILE_EQ(fd, ref, 1, 5 * GiB);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 8 * 4);
	/* a file position beyond 4 GiB works with write() */
	OK(lseek(fd, 6 * GiB, SEEK_SET));
	WRITE(fd, ref, 3);
	SIZE_EQ(fd, 6 * GiB + 3);
	FILE_EQ(fd, ref, 3, 6 * GiB);
	FILE_ZERO(fd, BS, 6 * GiB - BS);
}

/* ------------------------------------------------------------------ */
/* Truncate                                                            */
/* ------------------------------------------------------------------ */

/* 0xff over 3 blocks, truncate to 4097, extend to 12288: zeros after 4097 */
static void truncate_down_up(void)
{
	unsigned char *ref = xalloc(3 * BS);
	int fd = NEWF(0);

	memset(ref, 0xff, 3 * BS);
	PWRITE(fd, ref, 3 * BS, 0);
	OK(fsync(fd));
	OK(ftruncate(fd, 4097));
	SIZE_EQ(fd, 4097);
	FILE_EQ(fd, ref, 4097, 0);
	{
		unsigned char b;

		CHECK_EQ(OK(pread(fd, &b, 1, 4097)), 0);
	}
	OK(ftruncate(fd, 12288));
	SIZE_EQ(fd, 12288);
	FILE_EQ(fd, ref, 4097, 0);
	FILE_ZERO(fd, 12288 - 4097, 4097);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 4097, 0);
	FILE_ZERO(fd, 12288 - 4097, 4097);
}

/* truncating frees blocks; truncate to a block boundary keeps the rest */
static void truncate_blocks(void)
{
	unsigned char *ref = rbuf(16 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 16 * BS, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 128);
	OK(ftruncate(fd, 8 * BS));
	SIZE_EQ(fd, 8 * BS);
	BLOCKS_EQ(fd, 64);
	FILE_EQ(fd, ref, 8 * BS, 0);
	OK(ftruncate(fd, 3 * BS + 1));
	BLOCKS_EQ(fd, 32);
	OK(ftruncate(fd, 3 * BS));
	BLOCKS_EQ(fd, 24);
	OK(ftruncate(fd, 20 * BS));
	BLOCKS_EQ(fd, 24);
	FILE_EQ(fd, ref, 3 * BS, 0);
	FILE_ZERO(fd, 17 * BS, 3 * BS);
}

static void truncate_zero(void)
{
	unsigned char *ref = rbuf(MiB), *got = xalloc(16);
	int fd = NEWF(0);

	PWRITE(fd, ref, MiB, 0);
	OK(ftruncate(fd, 0));
	SIZE_EQ(fd, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 0);
	CHECK_EQ(OK(pread(fd, got, 16, 0)), 0);
	/* rewrite a little: nothing of the old data comes back */
	PWRITE(fd, ref + 5, 100, 0);
	OK(ftruncate(fd, 64 * KiB));
	FILE_EQ(fd, ref + 5, 100, 0);
	FILE_ZERO(fd, 64 * KiB - 100, 100);
	close(fd);
	/* O_TRUNC */
	fd = OPENF(0, O_RDWR | O_TRUNC);
	SIZE_EQ(fd, 0);
	BLOCKS_EQ(fd, 0);
	CHECK_EQ(OK(pread(fd, got, 16, 0)), 0);
}

/* extending an empty file with ftruncate gives zeros and no blocks */
static void truncate_up_sparse(void)
{
	int fd = NEWF(0);

	OK(ftruncate(fd, MiB + 17));
	SIZE_EQ(fd, MiB + 17);
	FILE_ZERO(fd, MiB + 17, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 0);
	ERR(ftruncate(fd, -1), EINVAL);
}

/* truncate inside an mmapped page: the mapping shows zeros after it */
static void truncate_mmap_zero(void)
{
	unsigned char *ref = xalloc(3 * BS), *m;
	int fd = NEWF(0);

	memset(ref, 0xff, 3 * BS);
	PWRITE(fd, ref, 3 * BS, 0);
	m = MAP(3 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	MEM_EQ(m, ref, 3 * BS, 0, "mapping before truncate");
	OK(ftruncate(fd, 4097));
	OK(ftruncate(fd, 3 * BS));
	MEM_EQ(m, ref, 4097, 0, "mapping after truncate down and up");
	MEM_EQ(m + 4097, zeros(3 * BS), 3 * BS - 4097, 4097,
	       "mapping after truncate down and up");
	FILE_ZERO(fd, 3 * BS - 4097, 4097);
}

/* ------------------------------------------------------------------ */
/* fallocate                                                           */
/* ------------------------------------------------------------------ */

static void falloc_default(void)
{
	int fd = NEWF(0);

	FALLOC(fd, 0, 0, MiB);
	SIZE_EQ(fd, MiB);
	FILE_ZERO(fd, MiB, 0);
	BLOCKS_EQ(fd, MiB / 512);
	/* unaligned range past EOF: size is offset+len exactly */
	FALLOC(fd, 0, MiB + 100, 5000);
	SIZE_EQ(fd, MiB + 5100);
	FILE_ZERO(fd, MiB + 5100, 0);
	BLOCKS_EQ(fd, (MiB + 8192) / 512);
	/* a range inside the file changes nothing */
	FALLOC(fd, 0, 1000, 1000);
	SIZE_EQ(fd, MiB + 5100);
}

/* fallocate over existing data keeps it */
static void falloc_keeps_data(void)
{
	unsigned char *ref = rbuf(64 * KiB);
	int fd = NEWF(0);

	PWRITE(fd, ref, 8 * KiB + 10, 0);
	PWRITE(fd, ref + 40 * KiB, 100, 40 * KiB);
	FALLOC(fd, 0, 0, 64 * KiB);
	SIZE_EQ(fd, 64 * KiB);
	FILE_EQ(fd, ref, 8 * KiB + 10, 0);
	FILE_ZERO(fd, 32 * KiB - 10, 8 * KiB + 10);
	FILE_EQ(fd, ref + 40 * KiB, 100, 40 * KiB);
	FILE_ZERO(fd, 24 * KiB - 100, 40 * KiB + 100);
	BLOCKS_EQ(fd, 128);
	/* writes into the preallocated range read back */
	PWRITE(fd, ref + 20000, 3000, 20000);
	FILE_EQ(fd, ref + 20000, 3000, 20000);
	FILE_ZERO(fd, 40 * KiB - 23000, 23000);
	BLOCKS_EQ(fd, 128);
}

static void falloc_keep_size(void)
{
	unsigned char *ref = rbuf(BS), *got = xalloc(BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 100, 0);
	FALLOC(fd, FALLOC_FL_KEEP_SIZE, 0, 64 * KiB);
	SIZE_EQ(fd, 100);
	BLOCKS_EQ(fd, 128);
	CHECK_EQ(OK(pread(fd, got, BS, 0)), 100);
	MEM_EQ(got, ref, 100, 0, "data before the preallocation");
	CHECK_EQ(OK(pread(fd, got, BS, 100)), 0);
	/* extending shows zeros in the preallocated blocks */
	OK(ftruncate(fd, 32 * KiB));
	FILE_EQ(fd, ref, 100, 0);
	FILE_ZERO(fd, 32 * KiB - 100, 100);
	BLOCKS_EQ(fd, 128);
	/* a write past EOF into preallocated blocks leaves zeros between */
	PWRITE(fd, ref, 10, 50 * KiB);
	SIZE_EQ(fd, 50 * KiB + 10);
	FILE_ZERO(fd, 18 * KiB, 32 * KiB);
	FILE_EQ(fd, ref, 10, 50 * KiB);
	BLOCKS_EQ(fd, 128);
	/* truncating frees the blocks preallocated past EOF */
	OK(ftruncate(fd, 100));
	BLOCKS_EQ(fd, 8);
	FILE_EQ(fd, ref, 100, 0);
}

/*
 * Drop the kernel's unused dentries and inodes (root only; elsewhere a
 * no-op), so that the next open reads the inode back from the file
 * system: on NOVA a replay of its log.
 */
static void drop_inode_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0)
		FAIL("open /proc/sys/vm/drop_caches: %s", errname(errno));
	if (write(fd, "2", 1) != 1)
		FAIL("write /proc/sys/vm/drop_caches: %s", errname(errno));
	close(fd);
}

/*
 * Blocks kept past EOF, the file extended over them, then cut back into
 * them: the cut and the freed blocks must stay so when the inode is read
 * back (on NOVA the cut's set-attribute entry supersedes the extending
 * one, so the replay saw no shrink and brought the freed pages back).
 */
static void falloc_keep_cut_reread(void)
{
	unsigned char *ref = rbuf(2 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 2 * BS, 0);
	FALLOC(fd, FALLOC_FL_KEEP_SIZE, 10 * BS, 10 * BS);
	BLOCKS_EQ(fd, 12 * BS / 512);
	OK(ftruncate(fd, 30 * BS));
	OK(ftruncate(fd, 15 * BS));
	BLOCKS_EQ(fd, 7 * BS / 512);
	OK(close(fd));
	drop_inode_caches();
	fd = OPENF(0, O_RDWR);
	SIZE_EQ(fd, 15 * BS);
	BLOCKS_EQ(fd, 7 * BS / 512);
	FILE_EQ(fd, ref, 2 * BS, 0);
	FILE_ZERO(fd, 13 * BS, 2 * BS);
	/* growing again shows zeros where the cut blocks were */
	OK(ftruncate(fd, 30 * BS));
	FILE_ZERO(fd, 28 * BS, 2 * BS);
	BLOCKS_EQ(fd, 7 * BS / 512);
	OK(close(fd));
	drop_inode_caches();
	fd = OPENF(0, O_RDONLY);
	BLOCKS_EQ(fd, 7 * BS / 512);
	FILE_ZERO(fd, 28 * BS, 2 * BS);
}

static void punch_hole(void)
{
	unsigned char *ref = rbuf(8 * BS);
	off_t off = BS + 100, end = 5 * BS + 200;
	int fd = NEWF(0);

	PWRITE(fd, ref, 8 * BS, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 64);
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, end - off);
	SIZE_EQ(fd, 8 * BS);
	memset(ref + off, 0, end - off);
	FILE_EQ(fd, ref, 8 * BS, 0);
	/* the whole blocks 2, 3 and 4 are gone; the edge blocks stay */
	BLOCKS_EQ(fd, 40);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 8 * BS, 0);
}

/* punch inside one block zeros only that range and frees nothing */
static void punch_hole_in_block(void)
{
	unsigned char *ref = rbuf(3 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 3 * BS, 0);
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, BS + 100, 200);
	memset(ref + BS + 100, 0, 200);
	FILE_EQ(fd, ref, 3 * BS, 0);
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1);
	ref[0] = 0;
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 3 * BS - 1, 1);
	ref[3 * BS - 1] = 0;
	FILE_EQ(fd, ref, 3 * BS, 0);
	SIZE_EQ(fd, 3 * BS);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 24);
}

/* block-aligned punch, punch past EOF, punch needs KEEP_SIZE */
static void punch_hole_aligned_eof(void)
{
	unsigned char *ref = rbuf(10 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 10 * BS, 0);
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * BS, 2 * BS);
	memset(ref + 2 * BS, 0, 2 * BS);
	FILE_EQ(fd, ref, 10 * BS, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 64);
	/* from the middle of block 8 to well past EOF */
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8 * BS + 10, MiB);
	memset(ref + 8 * BS + 10, 0, 2 * BS - 10);
	SIZE_EQ(fd, 10 * BS);
	FILE_EQ(fd, ref, 10 * BS, 0);
	BLOCKS_EQ(fd, 56);
	/* entirely past EOF: nothing changes */
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, MiB, MiB);
	SIZE_EQ(fd, 10 * BS);
	ERR(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, BS), EOPNOTSUPP);
	FILE_EQ(fd, ref, 10 * BS, 0);
	ERR(fallocate(fd, 0, 0, 0), EINVAL);
	ERR(fallocate(fd, 0, -1, BS), EINVAL);
}

/* write into a punched hole: new data, neighbours still zero */
static void punch_then_write(void)
{
	unsigned char *ref = rbuf(16 * BS), *src = rbuf(BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 16 * BS, 0);
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * BS, 12 * BS);
	memset(ref + 2 * BS, 0, 12 * BS);
	PWRITE(fd, src, 100, 7 * BS + 50);
	memcpy(ref + 7 * BS + 50, src, 100);
	FILE_EQ(fd, ref, 16 * BS, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 40);
}

/* punch a hole under a shared mapping: the mapping sees zeros */
static void punch_hole_mmap(void)
{
	unsigned char *ref = rbuf(4 * BS), *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, 4 * BS, 0);
	m = MAP(4 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	MEM_EQ(m, ref, 4 * BS, 0, "mapping");
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, BS - 10, 2 * BS + 20);
	memset(ref + BS - 10, 0, 2 * BS + 20);
	MEM_EQ(m, ref, 4 * BS, 0, "mapping after punch");
	/* a store to the punched page works and reaches the file */
	m[2 * BS + 1] = 0x42;
	ref[2 * BS + 1] = 0x42;
	FILE_EQ(fd, ref, 4 * BS, 0);
}

static void zero_range(void)
{
	unsigned char *ref = rbuf(8 * BS);
	off_t off = BS + 100, end = 5 * BS + 200;
	int fd = NEWF(0);

	PWRITE(fd, ref, 8 * BS, 0);
	FALLOC(fd, FALLOC_FL_ZERO_RANGE, off, end - off);
	memset(ref + off, 0, end - off);
	SIZE_EQ(fd, 8 * BS);
	FILE_EQ(fd, ref, 8 * BS, 0);
	/* past EOF without KEEP_SIZE: the size grows to offset+len */
	FALLOC(fd, FALLOC_FL_ZERO_RANGE, 7 * BS + 5, 3 * BS);
	memset(ref + 7 * BS + 5, 0, BS - 5);
	SIZE_EQ(fd, 10 * BS + 5);
	FILE_EQ(fd, ref, 8 * BS, 0);
	FILE_ZERO(fd, 2 * BS + 5, 8 * BS);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 8 * BS, 0);
}

static void zero_range_keep_size(void)
{
	unsigned char *ref = rbuf(8 * BS), *got = xalloc(BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 6 * BS + 10, 0);
	FALLOC(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 3 * BS - 1, 10 * BS);
	memset(ref + 3 * BS - 1, 0, 3 * BS + 11);
	SIZE_EQ(fd, 6 * BS + 10);
	FILE_EQ(fd, ref, 6 * BS + 10, 0);
	CHECK_EQ(OK(pread(fd, got, BS, 6 * BS + 10)), 0);
	/* within one block */
	FALLOC(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 5, 7);
	memset(ref + 5, 0, 7);
	FILE_EQ(fd, ref, 6 * BS + 10, 0);
	/* extending afterwards shows zeros past the old EOF */
	OK(ftruncate(fd, 12 * BS));
	FILE_EQ(fd, ref, 6 * BS + 10, 0);
	FILE_ZERO(fd, 6 * BS - 10, 6 * BS + 10);
}

/*
 * FALLOC_FL_ZERO_RANGE preallocates: after it, the range is backed by
 * blocks (fallocate(2): "blocks are preallocated for the regions that
 * span the holes"), so st_blocks does not shrink and covers a hole.
 */
static void zero_range_allocates(void)
{
	unsigned char *ref = rbuf(8 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 8 * BS, 0);
	OK(fsync(fd));
	FALLOC(fd, FALLOC_FL_ZERO_RANGE, BS, 4 * BS);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 64);
	FALLOC(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 8 * BS, 4 * BS);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 96);
	SIZE_EQ(fd, 8 * BS);
	memset(ref + BS, 0, 4 * BS);
	FILE_EQ(fd, ref, 8 * BS, 0);
}

/* ------------------------------------------------------------------ */
/* lseek SEEK_DATA / SEEK_HOLE                                         */
/* ------------------------------------------------------------------ */

/* data 0..8K, hole 8K..1M, data 1M..1M+4K */
static void seek_data_hole(void)
{
	unsigned char *ref = rbuf(3 * BS);
	long long M = MiB, sz = MiB + BS;
	int fd = NEWF(0);

	PWRITE(fd, ref, 2 * BS, 0);
	PWRITE(fd, ref + 2 * BS, BS, M);
	OK(fsync(fd));
	SEEK_EQ(fd, 0, SEEK_DATA, 0);
	SEEK_EQ(fd, 100, SEEK_DATA, 100);
	SEEK_EQ(fd, 8191, SEEK_DATA, 8191);
	SEEK_EQ(fd, 8192, SEEK_DATA, M);
	SEEK_EQ(fd, 500000, SEEK_DATA, M);
	SEEK_EQ(fd, M - 1, SEEK_DATA, M);
	SEEK_EQ(fd, M, SEEK_DATA, M);
	SEEK_EQ(fd, M + 4095, SEEK_DATA, M + 4095);
	SEEK_EQ(fd, sz, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, 2 * M, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, 0, SEEK_HOLE, 8192);
	SEEK_EQ(fd, 8191, SEEK_HOLE, 8192);
	SEEK_EQ(fd, 8192, SEEK_HOLE, 8192);
	SEEK_EQ(fd, 500000, SEEK_HOLE, 500000);
	SEEK_EQ(fd, M - 1, SEEK_HOLE, M - 1);
	SEEK_EQ(fd, M, SEEK_HOLE, sz);		/* the implicit hole at EOF */
	SEEK_EQ(fd, sz - 1, SEEK_HOLE, sz);
	SEEK_EQ(fd, sz, SEEK_HOLE, -ENXIO);
	SEEK_EQ(fd, 3 * M, SEEK_HOLE, -ENXIO);
	/* a trailing hole after extending with ftruncate */
	OK(ftruncate(fd, 2 * M));
	SEEK_EQ(fd, sz, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, 2 * M - 1, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, 8192, SEEK_DATA, M);
	SEEK_EQ(fd, M, SEEK_HOLE, sz);
	SEEK_EQ(fd, sz, SEEK_HOLE, sz);
	SEEK_EQ(fd, 3 * M / 2, SEEK_HOLE, 3 * M / 2);
	SEEK_EQ(fd, 2 * M, SEEK_HOLE, -ENXIO);
}

/* an unaligned EOF: SEEK_HOLE in the last block returns the size */
static void seek_hole_unaligned_eof(void)
{
	unsigned char *ref = rbuf(200);
	int fd = NEWF(0);

	PWRITE(fd, ref, 100, MiB);
	SEEK_EQ(fd, 0, SEEK_DATA, MiB);
	SEEK_EQ(fd, 0, SEEK_HOLE, 0);
	SEEK_EQ(fd, MiB, SEEK_HOLE, MiB + 100);
	SEEK_EQ(fd, MiB + 99, SEEK_DATA, MiB + 99);
	SEEK_EQ(fd, MiB + 100, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, MiB + 100, SEEK_HOLE, -ENXIO);
}

static void seek_empty_file(void)
{
	int fd = NEWF(0);

	SEEK_EQ(fd, 0, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, 0, SEEK_HOLE, -ENXIO);
	OK(ftruncate(fd, 64 * KiB));
	SEEK_EQ(fd, 0, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, 0, SEEK_HOLE, 0);
	SEEK_EQ(fd, 100, SEEK_HOLE, 100);
}

/* a punched range is a hole for SEEK_HOLE/SEEK_DATA */
static void seek_after_punch(void)
{
	unsigned char *ref = rbuf(16 * BS);
	int fd = NEWF(0);

	PWRITE(fd, ref, 16 * BS, 0);
	OK(fsync(fd));
	SEEK_EQ(fd, 0, SEEK_HOLE, 16 * BS);
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4 * BS, 4 * BS);
	SEEK_EQ(fd, 0, SEEK_HOLE, 4 * BS);
	SEEK_EQ(fd, 4 * BS, SEEK_DATA, 8 * BS);
	SEEK_EQ(fd, 5 * BS, SEEK_HOLE, 5 * BS);
	SEEK_EQ(fd, 8 * BS, SEEK_HOLE, 16 * BS);
	/* and a punch of the tail leaves a trailing hole */
	FALLOC(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 12 * BS, 4 * BS);
	SEEK_EQ(fd, 8 * BS, SEEK_HOLE, 12 * BS);
	SEEK_EQ(fd, 12 * BS, SEEK_DATA, -ENXIO);
}

/*
 * Preallocated pages not written since are holes for SEEK_DATA and
 * SEEK_HOLE, as on ext4 and XFS (iomap: an unwritten extent without
 * cached pages, which a DAX file never has)
 */
static void seek_unwritten(void)
{
	unsigned char *ref = rbuf(BS);
	int fd = NEWF(0);

	FALLOC(fd, 0, 0, 16 * BS);
	SEEK_EQ(fd, 0, SEEK_DATA, -ENXIO);
	SEEK_EQ(fd, 0, SEEK_HOLE, 0);
	PWRITE(fd, ref, BS, 4 * BS);
	SEEK_EQ(fd, 0, SEEK_DATA, 4 * BS);
	SEEK_EQ(fd, 0, SEEK_HOLE, 0);
	SEEK_EQ(fd, 4 * BS, SEEK_HOLE, 5 * BS);
	SEEK_EQ(fd, 5 * BS, SEEK_DATA, -ENXIO);
	/* data up to EOF, KEEP_SIZE past it: the hole at EOF as before */
	PWRITE(fd, ref, BS, 15 * BS);
	FALLOC(fd, FALLOC_FL_KEEP_SIZE, 16 * BS, 16 * BS);
	SEEK_EQ(fd, 5 * BS, SEEK_DATA, 15 * BS);
	SEEK_EQ(fd, 15 * BS, SEEK_HOLE, 16 * BS);
	SEEK_EQ(fd, 16 * BS, SEEK_DATA, -ENXIO);
}

/* ------------------------------------------------------------------ */
/* fsync, st_blocks, timestamps                                        */
/* ------------------------------------------------------------------ */

static void fsync_fdatasync(void)
{
	unsigned char *ref = rbuf(64 * KiB);
	int fd = NEWF(0), r;

	CHECK_EQ(fsync(fd), 0);
	CHECK_EQ(fdatasync(fd), 0);
	PWRITE(fd, ref, 64 * KiB, 0);
	CHECK_EQ(fsync(fd), 0);
	PWRITE(fd, ref, 100, 5);
	CHECK_EQ(fdatasync(fd), 0);
	OK(ftruncate(fd, 100 * KiB));
	CHECK_EQ(fdatasync(fd), 0);
	r = OPENF(0, O_RDONLY);
	CHECK_EQ(fsync(r), 0);
	CHECK_EQ(fdatasync(r), 0);
	memmove(ref + 5, ref, 100);
	FILE_EQ(r, ref, 64 * KiB, 0);
	FILE_ZERO(r, 36 * KiB, 64 * KiB);
	CHECK_EQ(OK(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER)), 0);
}

/* O_SYNC and O_DSYNC writes work and read back */
static void osync_write(void)
{
	unsigned char *ref = rbuf(3 * BS);
	int fd = open_at(0, O_RDWR | O_CREAT | O_TRUNC | O_SYNC, __LINE__);
	int d = open_at(0, O_RDWR | O_DSYNC, __LINE__);

	WRITE(fd, ref, 5000);
	PWRITE(d, ref + 5000, 3 * BS - 5000, 5000);
	FILE_EQ(fd, ref, 3 * BS, 0);
	SIZE_EQ(d, 3 * BS);
}

/* st_blocks counts allocated 4 KiB blocks exactly in simple cases */
static void st_blocks_simple(void)
{
	unsigned char *ref = rbuf(8 * BS);
	int fd = NEWF(0);

	BLOCKS_EQ(fd, 0);
	PWRITE(fd, ref, 1, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 8);
	PWRITE(fd, ref, 3 * BS, 0);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 24);
	PWRITE(fd, ref, 1, 3 * BS);	/* 4 KiB + 1 byte past: one more block */
	OK(fsync(fd));
	BLOCKS_EQ(fd, 32);
	PWRITE(fd, ref, 8 * BS, 0);	/* overwrite and extend */
	OK(fsync(fd));
	BLOCKS_EQ(fd, 64);
	PWRITE(fd, ref, 5, 20 * BS + 4094);	/* one write, two new blocks */
	OK(fsync(fd));
	BLOCKS_EQ(fd, 80);
	for (int i = 0; i < 20; i++)	/* overwrites do not add blocks */
		PWRITE(fd, ref, 6000, 1000);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 80);
	OK(ftruncate(fd, 0));
	BLOCKS_EQ(fd, 0);
}

static void times_write(void)
{
	unsigned char *ref = rbuf(BS);
	struct iovec iov = { ref, 10 };
	struct stat a, b;
	int fd = NEWF(0);

	WRITE(fd, ref, 100);
	a = FST(fd);
	tick();
	WRITE(fd, ref, 100);
	b = FST(fd);
	TS_LATER(b.st_mtim, a.st_mtim, "mtime after write()");
	TS_LATER(b.st_ctim, a.st_ctim, "ctime after write()");
	a = b;
	tick();
	PWRITE(fd, ref, 10, 5);		/* overwrite, no size change */
	b = FST(fd);
	TS_LATER(b.st_mtim, a.st_mtim, "mtime after pwrite() overwrite");
	TS_LATER(b.st_ctim, a.st_ctim, "ctime after pwrite() overwrite");
	a = b;
	tick();
	CHECK_EQ(OK(pwritev(fd, &iov, 1, 3000)), 10);
	b = FST(fd);
	TS_LATER(b.st_mtim, a.st_mtim, "mtime after pwritev()");
	TS_LATER(b.st_ctim, a.st_ctim, "ctime after pwritev()");
}

static void times_truncate(void)
{
	unsigned char *ref = rbuf(3 * BS);
	struct stat a, b;
	int fd = NEWF(0);

	PWRITE(fd, ref, 3 * BS, 0);
	a = FST(fd);
	tick();
	OK(ftruncate(fd, 5000));
	b = FST(fd);
	TS_LATER(b.st_mtim, a.st_mtim, "mtime after truncate down");
	TS_LATER(b.st_ctim, a.st_ctim, "ctime after truncate down");
	a = b;
	tick();
	OK(ftruncate(fd, MiB));
	b = FST(fd);
	TS_LATER(b.st_mtim, a.st_mtim, "mtime after truncate up");
	TS_LATER(b.st_ctim, a.st_ctim, "ctime after truncate up");
	a = b;
	tick();
	OK(truncate(fname(0), 0));
	b = FST(fd);
	TS_LATER(b.st_mtim, a.st_mtim, "mtime after truncate(2) to 0");
	TS_LATER(b.st_ctim, a.st_ctim, "ctime after truncate(2) to 0");
}

/* reads (read, pread, readv, mmap loads) do not change mtime or ctime */
static void times_read(void)
{
	unsigned char *ref = rbuf(3 * BS), *got = xalloc(3 * BS);
	volatile unsigned char *m;
	struct iovec iov = { got, 100 };
	struct stat a, b;
	unsigned sum = 0;
	int fd = NEWF(0);

	PWRITE(fd, ref, 3 * BS, 0);
	OK(fsync(fd));
	a = FST(fd);
	tick();
	PREAD(fd, got, 3 * BS, 0);
	OK(lseek(fd, 0, SEEK_SET));
	CHECK_EQ(OK(read(fd, got, 10)), 10);
	CHECK_EQ(OK(readv(fd, &iov, 1)), 100);
	m = MAP(3 * BS, PROT_READ, MAP_SHARED, fd, 0);
	for (int i = 0; i < 3 * BS; i += 512)
		sum += m[i];
	(void)sum;
	UNMAP((void *)m);
	CHECK_EQ(OK(pread(fd, got, 10, 1 * MiB)), 0);
	tick();
	b = FST(fd);
	TS_SAME(b.st_mtim, a.st_mtim, "mtime after reads");
	TS_SAME(b.st_ctim, a.st_ctim, "ctime after reads");
	CHECK_EQ(b.st_size, a.st_size);
}

/* ------------------------------------------------------------------ */
/* mmap                                                                */
/* ------------------------------------------------------------------ */

static void mmap_read(void)
{
	size_t len = 5 * BS + 123;
	unsigned char *ref = rbuf(len), *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, len, 0);
	m = MAP(len, PROT_READ, MAP_SHARED, fd, 0);
	MEM_EQ(m, ref, len, 0, "MAP_SHARED read");
	/* the rest of the last page reads as zeros */
	MEM_EQ(m + len, zeros(BS), 6 * BS - len, len, "mapping past EOF in the last page");
	UNMAP(m);
	/* a mapping at a nonzero file offset */
	m = MAP(2 * BS, PROT_READ, MAP_SHARED, fd, 2 * BS);
	MEM_EQ(m, ref + 2 * BS, 2 * BS, 2 * BS, "mapping at offset 8192");
}

/* stores through a shared mapping are seen by read() at once */
static void mmap_write_read_coherent(void)
{
	unsigned char *ref = rbuf(8 * BS), *src = rbuf(3 * BS), *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, 8 * BS, 0);
	m = MAP(8 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	memcpy(m + BS - 50, src, 2 * BS + 100);
	memcpy(ref + BS - 50, src, 2 * BS + 100);
	m[7 * BS + 4095] = 0x11;
	ref[7 * BS + 4095] = 0x11;
	FILE_EQ(fd, ref, 8 * BS, 0);	/* no msync */
	SIZE_EQ(fd, 8 * BS);
	OK(msync(m, 8 * BS, MS_SYNC));
	UNMAP(m);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 8 * BS, 0);
}

/* write() to a mapped file shows through the existing mapping */
static void mmap_sees_write(void)
{
	unsigned char *ref = rbuf(8 * BS), *src = rbuf(3 * BS);
	volatile unsigned char *m;
	unsigned char first;
	int fd = NEWF(0);

	PWRITE(fd, ref, 8 * BS, 0);
	m = MAP(8 * BS, PROT_READ, MAP_SHARED, fd, 0);
	first = m[BS];			/* fault the pages in first */
	CHECK_EQ(first, ref[BS]);
	MEM_EQ((void *)m, ref, 8 * BS, 0, "mapping");
	PWRITE(fd, src, 2 * BS + 10, BS - 5);
	memcpy(ref + BS - 5, src, 2 * BS + 10);
	MEM_EQ((void *)m, ref, 8 * BS, 0, "mapping after pwrite()");
	/* overwrite many times: each shows through */
	for (int i = 0; i < 20; i++) {
		fill(src, 100);
		PWRITE(fd, src, 100, 5 * BS + i * 37);
		memcpy(ref + 5 * BS + i * 37, src, 100);
		MEM_EQ((void *)m, ref, 8 * BS, 0, "mapping after repeated pwrite()");
	}
}

/* a store to a hole page (file extended by ftruncate) allocates it */
static void mmap_write_hole(void)
{
	unsigned char *ref = xalloc(16 * BS), *m;
	int fd = NEWF(0);

	OK(ftruncate(fd, 16 * BS));
	BLOCKS_EQ(fd, 0);
	m = MAP(16 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	fill(ref + 3 * BS + 5, 100);
	memcpy(m + 3 * BS + 5, ref + 3 * BS + 5, 100);
	fill(ref + 7 * BS, BS);
	memcpy(m + 7 * BS, ref + 7 * BS, BS);
	CHECK_EQ(OK(msync(m, 16 * BS, MS_SYNC)), 0);
	SIZE_EQ(fd, 16 * BS);
	OK(fsync(fd));
	BLOCKS_EQ(fd, 16);
	FILE_EQ(fd, ref, 16 * BS, 0);
	MEM_EQ(m, ref, 16 * BS, 0, "mapping");
	UNMAP(m);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 16 * BS, 0);
}

/* MAP_PRIVATE stores never reach the file */
static void mmap_private(void)
{
	unsigned char *ref = rbuf(4 * BS), *p, *s;
	int fd = NEWF(0);

	PWRITE(fd, ref, 4 * BS, 0);
	OK(fsync(fd));
	p = MAP(4 * BS, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	s = MAP(4 * BS, PROT_READ, MAP_SHARED, fd, 0);
	MEM_EQ(p, ref, 4 * BS, 0, "private mapping");
	memset(p + BS + 10, 0xab, 3000);
	p[0] = (unsigned char)~ref[0];
	CHECK_EQ(p[BS + 10], 0xab);
	CHECK_EQ(p[0], (unsigned char)~ref[0]);
	FILE_EQ(fd, ref, 4 * BS, 0);
	MEM_EQ(s, ref, 4 * BS, 0, "shared mapping next to a private one");
	OK(msync(p, 4 * BS, MS_SYNC));
	UNMAP(p);
	FILE_EQ(fd, ref, 4 * BS, 0);
	BLOCKS_EQ(fd, 32);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 4 * BS, 0);
}

/* access past the page holding EOF raises SIGBUS */
static void mmap_sigbus_eof(void)
{
	unsigned char *ref = rbuf(100), v;
	volatile unsigned char *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, 100, 0);
	m = MAP(3 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	MEM_EQ((void *)m, ref, 100, 0, "mapping");
	CHECK_EQ(probe(m + 4095, 0, &v), 0);
	CHECK_EQ(v, 0);
	EXPECT_SIGBUS(m + BS, 0);
	EXPECT_SIGBUS(m + 2 * BS + 7, 1);
	SIZE_EQ(fd, 100);
	/* after extending, the page is accessible and reads zeros */
	OK(ftruncate(fd, 2 * BS));
	CHECK_EQ(probe(m + BS + 1, 0, &v), 0);
	CHECK_EQ(v, 0);
	EXPECT_SIGBUS(m + 2 * BS, 0);
	FILE_EQ(fd, ref, 100, 0);
	FILE_ZERO(fd, 2 * BS - 100, 100);
}

/* truncating below a mapped page makes it raise SIGBUS */
static void mmap_sigbus_truncate(void)
{
	unsigned char *ref = rbuf(3 * BS), v;
	volatile unsigned char *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, 3 * BS, 0);
	m = MAP(3 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK_EQ(probe(m + 2 * BS, 0, &v), 0);
	CHECK_EQ(v, ref[2 * BS]);
	m[2 * BS + 1] = 7;		/* dirty the page too */
	OK(ftruncate(fd, BS));
	EXPECT_SIGBUS(m + 2 * BS, 0);
	EXPECT_SIGBUS(m + BS, 1);
	MEM_EQ((void *)m, ref, BS, 0, "mapping after truncate");
	SIZE_EQ(fd, BS);
	/* extending again: zeros, not the old contents */
	OK(ftruncate(fd, 3 * BS));
	MEM_EQ((void *)(m + BS), zeros(2 * BS), 2 * BS, BS, "mapping after re-extend");
	FILE_ZERO(fd, 2 * BS, BS);
}

/* a mapping made before the file grows covers the new pages */
static void mmap_grow_after_map(void)
{
	unsigned char *ref = rbuf(4 * BS);
	volatile unsigned char *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, 10, 0);
	m = MAP(4 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_SIGBUS(m + 2 * BS, 0);
	PWRITE(fd, ref + 10, 4 * BS - 10, 10);
	MEM_EQ((void *)m, ref, 4 * BS, 0, "mapping after the file grew");
	m[3 * BS + 3] = 9;
	ref[3 * BS + 3] = 9;
	FILE_EQ(fd, ref, 4 * BS, 0);
}

/* read faults on holes, then write() fills them: the mapping sees data */
static void mmap_hole_read_then_write(void)
{
	unsigned char *ref = xalloc(6 * BS), *src = rbuf(3 * BS);
	volatile unsigned char *m;
	unsigned sum = 0;
	int fd = NEWF(0);

	OK(ftruncate(fd, 6 * BS));
	m = MAP(6 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	for (int i = 0; i < 6 * BS; i += 512)	/* read-fault every page */
		sum += m[i];
	CHECK_EQ(sum, 0);
	PWRITE(fd, src, 2 * BS, BS + 100);
	memcpy(ref + BS + 100, src, 2 * BS);
	MEM_EQ((void *)m, ref, 6 * BS, 0, "mapping of holes after pwrite()");
	/* a store to a page that was read-faulted as a hole */
	m[5 * BS + 9] = 0x77;
	ref[5 * BS + 9] = 0x77;
	FILE_EQ(fd, ref, 6 * BS, 0);
	/* and fallocate under the read-faulted mapping */
	FALLOC(fd, 0, 0, 6 * BS);
	MEM_EQ((void *)m, ref, 6 * BS, 0, "mapping after fallocate");
	m[0] = 0x66;
	ref[0] = 0x66;
	FILE_EQ(fd, ref, 6 * BS, 0);
}

/*
 * read() into memory it cannot write gives EFAULT (a read-only mapping of
 * another DAX file, or no mapping at all), also with O_DIRECT, and the
 * mapped file is not changed (xfstests generic/462); an error in the
 * source would be EIO.
 */
static void read_efault(void)
{
	unsigned char *ref = rbuf(2 * BS), *m;
	void *volatile unmapped = (void *)4096;	/* hidden from -Wstringop */
	int fd = NEWF(0), fd1 = NEWF(1), dfd;

	PWRITE(fd, ref, 2 * BS, 0);
	PWRITE(fd1, ref + BS, BS, 0);
	m = MAP(BS, PROT_READ, MAP_SHARED, fd1, 0);
	CHECK_EQ(m[0], ref[BS]);		/* a read-only PTE is in place */
	ERR(pread(fd, m, BS, 0), EFAULT);
	dfd = OPENF(0, O_RDONLY | O_DIRECT);
	ERR(pread(dfd, m, BS, 0), EFAULT);
	ERR(pread(fd, unmapped, BS, 0), EFAULT);
	close(dfd);
	MEM_EQ(m, ref + BS, BS, 0, "read-only mapping");
	UNMAP(m);
	FILE_EQ(fd1, ref + BS, BS, 0);
}

/*
 * read() into and write() from a mapping of the same file: the copy
 * faults on the file while the I/O is in progress (a classic deadlock
 * when the write path holds a lock that the fault path takes).  Last in
 * the list, so a hang does not hide the other results.
 */
static void rw_own_mapping(void)
{
	unsigned char *ref = xalloc(16 * BS);
	unsigned char *m;
	int fd = NEWF(0);

	fill(ref, 6 * BS);
	PWRITE(fd, ref, 6 * BS, 0);
	OK(ftruncate(fd, 16 * BS));		/* pages 6..15 are holes */
	m = MAP(16 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* write() from mapped data pages into hole pages */
	PWRITE(fd, m + 100, 2 * BS, 8 * BS + 50);
	memmove(ref + 8 * BS + 50, ref + 100, 2 * BS);
	FILE_EQ(fd, ref, 16 * BS, 0);
	/* read() into mapped hole pages (write faults during the copy) */
	PREAD(fd, m + 12 * BS + 7, 3 * BS, 10);
	memmove(ref + 12 * BS + 7, ref + 10, 3 * BS);
	FILE_EQ(fd, ref, 16 * BS, 0);
	/* write() from mapped data pages into other data pages */
	PWRITE(fd, m + BS, BS, 4 * BS + 10);
	memmove(ref + 4 * BS + 10, ref + BS, BS);
	FILE_EQ(fd, ref, 16 * BS, 0);
	/* write() from a mapped hole page (reads zeros) */
	PWRITE(fd, m + 7 * BS, BS, 2 * BS);
	memset(ref + 2 * BS, 0, BS);
	FILE_EQ(fd, ref, 16 * BS, 0);
	MEM_EQ(m, ref, 16 * BS, 0, "mapping");
	OK(fsync(fd));
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 16 * BS, 0);
}

static void mmap_sync(void)
{
	unsigned char *ref = rbuf(4 * BS), *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, 4 * BS, 0);
	m = mmap(NULL, 4 * BS, PROT_READ | PROT_WRITE,
		 MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (m == MAP_FAILED) {
		if (errno == EOPNOTSUPP)
			FAIL("mmap(MAP_SHARED_VALIDATE|MAP_SYNC): expected success, got EOPNOTSUPP"
			     " (the file system is not DAX; expected on tmpfs and non-DAX ext4)");
		FAIL("mmap(MAP_SHARED_VALIDATE|MAP_SYNC): expected success, got %s",
		     errname(errno));
	}
	for (int i = 0; i < MAXMAPS; i++)
		if (!g_maps[i].p) {
			g_maps[i].p = m;
			g_maps[i].len = 4 * BS;
			break;
		}
	MEM_EQ(m, ref, 4 * BS, 0, "MAP_SYNC mapping");
	memset(m + BS + 1, 0x5c, BS);
	memset(ref + BS + 1, 0x5c, BS);
	FILE_EQ(fd, ref, 4 * BS, 0);
	OK(msync(m, 4 * BS, MS_SYNC));
	/* an unknown flag with MAP_SHARED_VALIDATE is refused */
	{
		void *x = mmap(NULL, BS, PROT_READ, MAP_SHARED_VALIDATE | 0x800000,
			       fd, 0);

		if (x != MAP_FAILED) {
			munmap(x, BS);
			FAIL("mmap(MAP_SHARED_VALIDATE|unknown flag 0x800000): expected EOPNOTSUPP, got success");
		}
		CHECK_EQ(errno, EOPNOTSUPP);
	}
}

static void mmap_msync(void)
{
	unsigned char *ref = rbuf(6 * BS), *m;
	int fd = NEWF(0);

	PWRITE(fd, ref, 6 * BS, 0);
	m = MAP(6 * BS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	memset(m + 100, 1, 10);
	memset(ref + 100, 1, 10);
	CHECK_EQ(msync(m, 6 * BS, MS_ASYNC), 0);
	memset(m + 3 * BS, 2, BS);
	memset(ref + 3 * BS, 2, BS);
	CHECK_EQ(msync(m + 3 * BS, BS, MS_SYNC), 0);
	CHECK_EQ(msync(m, 6 * BS, MS_INVALIDATE), 0);
	CHECK_EQ(msync(m, 6 * BS, MS_SYNC | MS_INVALIDATE), 0);
	ERR(msync(m + 1, BS, MS_SYNC), EINVAL);
	ERR(msync(m, BS, MS_SYNC | MS_ASYNC), EINVAL);
	MEM_EQ(m, ref, 6 * BS, 0, "mapping after msync");
	FILE_EQ(fd, ref, 6 * BS, 0);
	OK(fsync(fd));
	UNMAP(m);
	close(fd);
	fd = OPENF(0, O_RDONLY);
	FILE_EQ(fd, ref, 6 * BS, 0);
}

/* 4 MiB mappings of a file written with 2 MiB-aligned 4 MiB writes */
static void mmap_4m_pmd(void)
{
	size_t len = 8 * MiB;
	unsigned char *ref = rbuf(len), *m, *n;
	int fd = NEWF(0);

	PWRITE(fd, ref, 4 * MiB, 0);
	PWRITE(fd, ref + 4 * MiB, 4 * MiB, 4 * MiB);
	m = MAP(4 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * MiB);
	MEM_EQ(m, ref + 2 * MiB, 4 * MiB, 2 * MiB, "4 MiB mapping at 2 MiB");
	n = MAP(4 * MiB, PROT_READ, MAP_SHARED, fd, 0);
	MEM_EQ(n, ref, 4 * MiB, 0, "4 MiB mapping at 0");
	/* stores across the 2 MiB boundaries, seen by read() and the other map */
	for (int i = 0; i < 3; i++) {
		size_t o = (size_t)i * MiB + MiB - 33;

		memset(m + o, 0x30 + i, 66);
		memset(ref + 2 * MiB + o, 0x30 + i, 66);
	}
	OK(msync(m, 4 * MiB, MS_SYNC));
	FILE_EQ(fd, ref, len, 0);
	MEM_EQ(n, ref, 4 * MiB, 0, "4 MiB mapping at 0 after stores");
	/* and write() shows through the mapping */
	PWRITE(fd, ref + 100, 8192, 4 * MiB - 4096);
	memcpy(ref + 4 * MiB - 4096, ref + 100, 8192);
	MEM_EQ(m, ref + 2 * MiB, 4 * MiB, 2 * MiB, "4 MiB mapping after pwrite()");
}

/* ------------------------------------------------------------------ */
/* Copy paths (splice based)                                           */
/* ------------------------------------------------------------------ */

static void copy_file_range_basic(void)
{
	size_t len = 100 * KiB;
	unsigned char *ref = rbuf(len), *want = xalloc(60 * KiB);
	int s = NEWF(0), d = NEWF(1);
	loff_t in = 1000, out = 5000;
	size_t left = 50000;

	PWRITE(s, ref, len, 0);
	while (left) {
		ssize_t r = OK(copy_file_range(s, &in, d, &out, left, 0));

		if (r == 0)
			FAIL("copy_file_range returned 0 with %zu bytes left", left);
		left -= r;
	}
	CHECK_EQ(in, 51000);
	CHECK_EQ(out, 55000);
	SIZE_EQ(d, 55000);
	memcpy(want + 5000, ref + 1000, 50000);
	FILE_EQ(d, want, 55000, 0);
	FILE_EQ(s, ref, len, 0);
}

static void sendfile_basic(void)
{
	size_t len = 70 * KiB + 3;
	unsigned char *ref = rbuf(len);
	int s = NEWF(0), d = NEWF(1);
	off_t in = 0;
	size_t left = len;

	PWRITE(s, ref, len, 0);
	while (left) {
		ssize_t r = OK(sendfile(d, s, &in, left));

		if (r == 0)
			FAIL("sendfile returned 0 with %zu bytes left", left);
		left -= r;
	}
	SIZE_EQ(d, len);
	FILE_EQ(d, ref, len, 0);
}

/* ------------------------------------------------------------------ */
/* Case table and runner                                               */
/* ------------------------------------------------------------------ */

#define C(f) { #f, f }
static const struct tcase cases[] = {
	C(rw_size_1), C(rw_size_511), C(rw_size_4095), C(rw_size_4096),
	C(rw_size_4097), C(rw_size_12287), C(rw_size_65537),
	C(rw_size_1m_minus_1), C(rw_size_2m_plus_3), C(rw_size_8m),
	C(rw_chunked), C(rw_64m),
	C(unaligned_overwrite), C(unaligned_fresh), C(write_past_eof_gap),
	C(overwrite_partial_block), C(overwrite_repeat), C(overwrite_whole),
	C(pread_pwrite), C(pread_pwrite_negative), C(readv_writev),
	C(readv_short_eof), C(read_past_eof), C(lseek_write_gap),
	C(two_fds_coherent), C(bad_fd_modes),
	C(append_basic), C(append_two_fds), C(append_pwrite),
	C(odirect_rw), C(odirect_mixed),
	C(hole_1m), C(hole_middle), C(sparse_8t), C(sparse_1t_unaligned),
	C(sparse_16t_alias),
	C(large_5g),
	C(truncate_down_up), C(truncate_blocks), C(truncate_zero),
	C(truncate_up_sparse), C(truncate_mmap_zero),
	C(falloc_default), C(falloc_keeps_data), C(falloc_keep_size),
	C(falloc_keep_cut_reread),
	C(punch_hole), C(punch_hole_in_block), C(punch_hole_aligned_eof),
	C(punch_then_write), C(punch_hole_mmap),
	C(zero_range), C(zero_range_keep_size), C(zero_range_allocates),
	C(seek_data_hole), C(seek_hole_unaligned_eof), C(seek_empty_file),
	C(seek_after_punch), C(seek_unwritten),
	C(fsync_fdatasync), C(osync_write), C(st_blocks_simple),
	C(times_write), C(times_truncate), C(times_read),
	C(mmap_read), C(mmap_write_read_coherent), C(mmap_sees_write),
	C(mmap_write_hole), C(mmap_private), C(mmap_sigbus_eof),
	C(mmap_sigbus_truncate), C(mmap_grow_after_map),
	C(mmap_hole_read_then_write), C(mmap_sync), C(mmap_msync),
	C(mmap_4m_pmd),
	C(copy_file_range_basic), C(sendfile_basic),
	C(read_efault),
	C(rw_own_mapping),
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int run_case(const struct tcase *tc)
{
	int failed;

	memset(g_used, 0, sizeof(g_used));
	g_rng = 0x9e3779b97f4a7c15ULL ^ fnv64(tc->name, strlen(tc->name));
	failed = tcase_call(tc, 300);
	g_bus_armed = 0;
	release_resources();
	if (!failed) {
		for (int n = 0; n < MAXFILES; n++) {
			const char *nm;

			if (!g_used[n])
				continue;
			nm = fname(n);
			if (unlinkat(g_dirfd, nm, 0) && errno != ENOENT) {
				snprintf(g_msg, sizeof(g_msg),
					 "cleanup: unlink(%s): %s", nm,
					 errname(errno));
				failed = 1;
			}
		}
	}
	return tcase_report(tc->name, failed);
}

/* the cases work in DIR, with handlers for faults and timeouts */
static int setup(const char *dir)
{
	struct sigaction sa;

	if (fchdir(g_dirfd)) {
		fprintf(stderr, "t_data: chdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	signal(SIGALRM, on_alarm);
	return 0;
}

int main(int argc, char **argv)
{
	return tcase_main(argc, argv, "t_data", cases, NCASES, &g_dirfd, setup,
			  run_case);
}
