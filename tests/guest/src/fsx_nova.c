// SPDX-License-Identifier: GPL-2.0
/*
 * fsx_nova: a randomized file-operations exerciser in the style of fsx.
 *
 *   fsx_nova [-N ops] [-S seed] [-l maxlen] [-o maxoplen] [-m|-M]
 *            [-p progress] [-c check] [-R] FILE
 *
 *   -N ops       number of operations (default 100000)
 *   -S seed      random seed; 0 (the default) picks one from the clock
 *   -l maxlen    maximum file length (default 8 MiB)
 *   -o maxoplen  maximum length of one operation (default 256 KiB)
 *   -m           use mmap reads and writes (the default)
 *   -M           no mmap operations
 *   -p N         print a progress line every N operations
 *   -c N         compare the whole file every N operations (default 1000)
 *   -R           every fallocate mode is required: refuse to run where one
 *                is unsupported (without -R such a mode is left out, with
 *                a warning)
 *
 * FILE is created (or truncated).  The program keeps an in-memory model
 * of the file and applies a random mix of write(), pwrite(), pwritev(),
 * pread(), read() through a second (read-only) descriptor, writes through
 * a third (O_APPEND) descriptor, ftruncate up and down, mmap reads and
 * writes (the file extended with ftruncate first when a mapped write goes
 * past EOF), fallocate (default, KEEP_SIZE, PUNCH_HOLE, ZERO_RANGE with
 * and without KEEP_SIZE, COLLAPSE_RANGE, INSERT_RANGE, and shifts that
 * must fail with EINVAL), fsync/fdatasync and reopening.  After every
 * operation st_size and the bytes around the touched range are compared
 * with the model, the whole file every -c operations and at the end
 * (through a freshly opened descriptor).  On a mismatch or an unexpected
 * error it prints the offset, the expected and actual bytes and the last
 * 50 operations, and exits 1.  On success the last line is
 * "fsx_nova: N operations, 0 mismatches".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/falloc.h>
#include "tutil.h"

#define BS 4096LL
#define LOGSZ 50

enum op {
	OP_WRITE, OP_PWRITE, OP_WRITEV, OP_READ, OP_READ2, OP_APPEND,
	OP_TRUNCATE, OP_MAPREAD, OP_MAPWRITE, OP_FALLOC, OP_FALLOC_KEEP,
	OP_PUNCH, OP_ZERO, OP_ZERO_KEEP, OP_COLLAPSE, OP_INSERT, OP_FSYNC,
	OP_REOPEN, OP_NR
};

static const char *const op_names[OP_NR] = {
	"write", "pwrite", "pwritev", "pread", "read(fd2)", "append(fd3)",
	"truncate", "mapread", "mapwrite", "falloc", "falloc_keep",
	"punch_hole", "zero_range", "zero_keep", "collapse", "insert",
	"fsync", "reopen",
};

/* relative weights of the operations */
static int weight[OP_NR] = {
	[OP_WRITE] = 12, [OP_PWRITE] = 12, [OP_WRITEV] = 5, [OP_READ] = 10,
	[OP_READ2] = 8, [OP_APPEND] = 6, [OP_TRUNCATE] = 7, [OP_MAPREAD] = 8,
	[OP_MAPWRITE] = 8, [OP_FALLOC] = 3, [OP_FALLOC_KEEP] = 3,
	[OP_PUNCH] = 4, [OP_ZERO] = 3, [OP_ZERO_KEEP] = 2, [OP_COLLAPSE] = 2,
	[OP_INSERT] = 2, [OP_FSYNC] = 2, [OP_REOPEN] = 1,
};

struct logent {
	long n;
	enum op op;
	long long off, len;		/* as requested */
	long long size0, size1;		/* file size before and after */
	char note[48];
};

static struct logent oplog[LOGSZ];
static long nlogged;
static long op_count[OP_NR];

static const char *path;
static long long maxlen = 8LL << 20, maxoplen = 256 << 10;
static long nops = 100000, progress, check_every = 1000;
static int use_mmap = 1, require_all;
static unsigned long long seed;

static unsigned char *model, *rdbuf;
static long long fsize;		/* the model's size */
static int fd = -1, rfd = -1, afd = -1;
static long opno;
static enum op cur_op = OP_NR;

/* ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return splitmix64(&rng_state);
}

static long long rndr(long long n)	/* [0, n) */
{
	return n > 0 ? (long long)(rnd() % (uint64_t)n) : 0;
}

/*
 * Write data comes from a pool of random bytes at a random offset, so
 * each operation writes different data.  The bytes are never zero, so a
 * wrongly zeroed byte always shows.
 */
static unsigned char *pool;
static long long pool_len;

static void init_pool(void)
{
	pool_len = 2 * maxoplen + (1 << 20);
	pool = malloc(pool_len);
	if (!pool) {
		fprintf(stderr, "fsx_nova: out of memory\n");
		exit(2);
	}
	for (long long i = 0; i < pool_len; i++)
		pool[i] = (unsigned char)(rnd() % 255 + 1);
}

static const unsigned char *data(long long len)
{
	return pool + rndr(pool_len - len + 1);
}

/* ------------------------------------------------------------------ */
/* Reporting                                                           */
/* ------------------------------------------------------------------ */

static void print_log(long long bad)
{
	long first = nlogged > LOGSZ ? nlogged - LOGSZ : 0;

	printf("fsx_nova: last %ld operations (oldest first)%s:\n",
	       nlogged - first,
	       bad >= 0 ? "; '*' marks those whose range covers the bad offset" : "");
	for (long i = first; i < nlogged; i++) {
		struct logent *e = &oplog[i % LOGSZ];
		long long lo = e->off, hi = e->off + e->len;
		int mark = 0;

		if (e->op == OP_TRUNCATE) {
			lo = e->size0 < e->size1 ? e->size0 : e->size1;
			hi = e->size0 < e->size1 ? e->size1 : e->size0;
		} else if (e->op == OP_APPEND) {
			lo = e->size0;
			hi = e->size1;
		}
		if (bad >= 0 && e->op != OP_READ && e->op != OP_READ2 &&
		    e->op != OP_MAPREAD && e->op != OP_FSYNC &&
		    e->op != OP_REOPEN && bad >= lo && bad < hi)
			mark = 1;
		printf("%c %7ld %-12s off %10lld len %8lld  size %lld -> %lld%s%s\n",
		       mark ? '*' : ' ', e->n, op_names[e->op], e->off, e->len,
		       e->size0, e->size1, e->note[0] ? "  " : "", e->note);
	}
}

static void die(long long bad, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void die(long long bad, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("fsx_nova: FAILED at operation %ld (%s): ", opno,
	       cur_op < OP_NR ? op_names[cur_op] : "setup");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	print_log(bad);
	printf("fsx_nova: seed %llu, file %s, model size %lld; reproduce with:"
	       " fsx_nova -N %ld -S %llu -l %lld -o %lld%s FILE\n",
	       seed, path, fsize, opno, seed, maxlen, maxoplen,
	       use_mmap ? "" : " -M");
	exit(1);
}

static void on_signal(int sig)
{
	die(-1, "got signal %d (%s)", sig,
	    sig == SIGBUS ? "SIGBUS" : sig == SIGSEGV ? "SIGSEGV" : "?");
}

static void hexline(const char *tag, const unsigned char *p, long long start,
		    long long n, long long mark)
{
	printf("  %-8s %10lld:", tag, start);
	for (long long i = 0; i < n; i++)
		printf("%s%02x", start + i == mark ? "[" : " ", p[i]);
	printf("\n");
}

/*
 * got holds the file's bytes [off, off+len): compare them with the model
 * and die on the first difference.
 */
static void compare(const unsigned char *got, long long off, long long len,
		    const char *how)
{
	const unsigned char *want = model + off;
	size_t f, l, nd = mem_diff(got, want, len, &f, &l);
	long long first = f, last = l, n = nd, s, e;

	if (!nd)
		return;
	printf("fsx_nova: MISMATCH (%s) at file offset %lld (block %lld + %lld):"
	       " expected 0x%02x, got 0x%02x; %lld of %lld bytes checked differ,"
	       " last at offset %lld\n", how, off + first, (off + first) / BS,
	       (off + first) % BS, want[first], got[first], n, len, off + last);
	s = first & ~15LL;
	e = s + 32 < len ? s + 32 : len;
	for (long long j = s; j < e; j += 16) {
		long long k = e - j < 16 ? e - j : 16;

		hexline("expected", want + j, off + j, k, off + first);
		hexline("actual", got + j, off + j, k, off + first);
	}
	die(off + first, "file content differs from the model (%s)", how);
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

static void check_size(void)
{
	struct stat st;

	if (fstat(fd, &st))
		die(-1, "fstat: %s", errname(errno));
	if (st.st_size != fsize)
		die(fsize < st.st_size ? fsize : st.st_size,
		    "st_size is %lld, the model says %lld",
		    (long long)st.st_size, fsize);
}

/* read [off, off+len) through descriptor d and compare with the model */
static void check_range_fd(int d, long long off, long long len,
			   const char *how)
{
	long long done = 0, chunk = 4LL << 20;

	if (off < 0) {
		len += off;
		off = 0;
	}
	if (off + len > fsize)
		len = fsize - off;
	while (done < len) {
		long long n = len - done < chunk ? len - done : chunk;
		ssize_t r = pread(d, rdbuf, n, off + done);

		if (r < 0)
			die(-1, "pread(off %lld, len %lld) for a check: %s",
			    off + done, n, errname(errno));
		if (r != n)
			die(off + done + r, "pread(off %lld, len %lld) for a check returned %zd (file size by the model %lld)",
			    off + done, n, r, fsize);
		compare(rdbuf, off + done, n, how);
		done += n;
	}
}

/*
 * After an operation on [off, end) of a file that was old bytes long:
 * the range plus a block on either side, and when the operation left a
 * gap past the old EOF, the start of the gap (whole-file checks cover
 * the rest).
 */
static void check_op(long long old, long long off, long long end)
{
	check_size();
	check_range_fd(fd, off - BS, end - off + 2 * BS,
		       "read back after the operation");
	if (old < off - BS)
		check_range_fd(fd, old - BS, 17 * BS,
			       "read back of the gap past the old EOF");
}

static void check_all(int d, const char *how)
{
	check_size();
	check_range_fd(d, 0, fsize, how);
}

/* ------------------------------------------------------------------ */
/* Parameter choice                                                    */
/* ------------------------------------------------------------------ */

static long long pick_off(long long limit)	/* [0, limit) */
{
	long long o;

	if (limit <= 0)
		return 0;
	switch (rnd() % 8) {
	case 0:			/* block aligned */
		o = rndr(limit) & ~(BS - 1);
		break;
	case 1:			/* next to a block boundary */
		o = (rndr(limit) & ~(BS - 1)) + (long long)(rnd() % 33) - 16;
		break;
	case 2:			/* next to EOF */
		o = fsize + (long long)(rnd() % 16385) - 8192;
		break;
	case 3:			/* 2 MiB aligned, for huge mappings */
		o = rndr(limit) & ~((2LL << 20) - 1);
		break;
	default:
		o = rndr(limit);
	}
	if (o < 0)
		o = 0;
	if (o >= limit)
		o = limit - 1;
	return o;
}

static long long pick_len(long long limit)	/* [1, min(limit, maxoplen)] */
{
	long long m = limit < maxoplen ? limit : maxoplen, l;

	if (m <= 0)
		return 0;
	switch (rnd() % 8) {
	case 0:			/* whole blocks */
		l = (1 + rndr(m / BS > 0 ? m / BS : 1)) * BS;
		break;
	case 1:			/* tiny */
		l = 1 + rndr(16);
		break;
	case 2:			/* around one block */
		l = BS - 8 + rndr(17);
		break;
	default:
		l = 1 + rndr(m);
	}
	if (l > m)
		l = m;
	if (l < 1)
		l = 1;
	return l;
}

static void model_write(long long off, long long len, const unsigned char *src)
{
	memcpy(model + off, src, len);
	if (off + len > fsize)
		fsize = off + len;
}

static void model_truncate(long long size)
{
	if (size < fsize)
		memset(model + size, 0, fsize - size);
	fsize = size;
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

static struct logent *log_op(enum op op, long long off, long long len)
{
	struct logent *e = &oplog[nlogged % LOGSZ];

	nlogged++;
	op_count[op]++;
	e->n = opno;
	e->op = op;
	e->off = off;
	e->len = len;
	e->size0 = e->size1 = fsize;
	e->note[0] = 0;
	return e;
}

static void full_write(int d, const unsigned char *p, long long len,
		       long long off, int positional, const char *what)
{
	ssize_t r = positional ? pwrite(d, p, len, off) : write(d, p, len);

	if (r < 0)
		die(off, "%s(off %lld, len %lld): %s", what, off, len,
		    errname(errno));
	if (r != len)
		die(off + r, "%s(off %lld, len %lld) returned %zd", what, off,
		    len, r);
}

static void do_write(enum op op)
{
	long long off = pick_off(maxlen), len = pick_len(maxlen - off);
	long long old = fsize;
	struct logent *e = log_op(op, off, len);
	const unsigned char *buf;

	buf = data(len);
	if (op == OP_WRITE) {
		if (lseek(fd, off, SEEK_SET) != off)
			die(off, "lseek(%lld): %s", off, errname(errno));
		full_write(fd, buf, len, off, 0, "write");
		if (lseek(fd, 0, SEEK_CUR) != off + len)
			die(off, "file position after write is %lld, expected %lld",
			    (long long)lseek(fd, 0, SEEK_CUR), off + len);
	} else if (op == OP_PWRITE) {
		full_write(fd, buf, len, off, 1, "pwrite");
	} else {
		struct iovec iov[8];
		int n = 1 + (int)rndr(8);
		long long p = 0;
		ssize_t r;

		for (int i = 0; i < n; i++) {
			long long l = i == n - 1 ? len - p : rndr(len - p + 1);

			iov[i].iov_base = (void *)(buf + p);
			iov[i].iov_len = l;
			p += l;
		}
		snprintf(e->note, sizeof(e->note), "%d iovecs", n);
		r = pwritev(fd, iov, n, off);
		if (r < 0)
			die(off, "pwritev(off %lld, len %lld): %s", off, len,
			    errname(errno));
		if (r != len)
			die(off + r, "pwritev(off %lld, len %lld) returned %zd",
			    off, len, r);
	}
	model_write(off, len, buf);
	e->size1 = fsize;
	check_op(old, off, off + len);
}

static void do_read(enum op op)
{
	long long off, len, want;
	ssize_t r;
	struct logent *e;

	off = rndr(8) == 0 ? fsize + rndr(3 * BS) : pick_off(fsize + 1);
	len = pick_len(maxoplen);
	e = log_op(op, off, len);
	(void)e;
	want = off >= fsize ? 0 : (fsize - off < len ? fsize - off : len);
	if (op == OP_READ) {
		r = pread(fd, rdbuf, len, off);
	} else if (rnd() & 1) {
		if (lseek(rfd, off, SEEK_SET) != off)
			die(off, "lseek(fd2, %lld): %s", off, errname(errno));
		r = read(rfd, rdbuf, len);
		if (r >= 0 && lseek(rfd, 0, SEEK_CUR) != off + r)
			die(off, "fd2 position after read is %lld, expected %lld",
			    (long long)lseek(rfd, 0, SEEK_CUR), off + r);
	} else {
		struct iovec iov[2];
		long long a = rndr(len + 1);

		iov[0].iov_base = rdbuf;
		iov[0].iov_len = a;
		iov[1].iov_base = rdbuf + a;
		iov[1].iov_len = len - a;
		r = preadv(rfd, iov, 2, off);
	}
	if (r < 0)
		die(off, "read(off %lld, len %lld): %s", off, len, errname(errno));
	if (r != want)
		die(off + (r < want ? r : want),
		    "read(off %lld, len %lld) returned %zd, expected %lld (size %lld)",
		    off, len, r, want, fsize);
	if (want)
		compare(rdbuf, off, want, "read");
	check_size();
}

static void do_append(void)
{
	long long len = pick_len(maxlen - fsize), old = fsize;
	const unsigned char *buf;
	struct logent *e;

	if (len <= 0) {			/* file at its maximum: shrink it */
		long long n = fsize / 2;

		e = log_op(OP_TRUNCATE, n, 0);
		if (ftruncate(fd, n))
			die(n, "ftruncate(%lld): %s", n, errname(errno));
		model_truncate(n);
		e->size1 = fsize;
		check_op(n, n, n);
		return;
	}
	e = log_op(OP_APPEND, old, len);
	buf = data(len);
	/* the position of fd3 is irrelevant: O_APPEND writes at EOF */
	if (rnd() & 1)
		lseek(afd, rndr(fsize + 1), SEEK_SET);
	full_write(afd, buf, len, old, 0, "write(O_APPEND fd3)");
	if (lseek(afd, 0, SEEK_CUR) != old + len)
		die(old, "O_APPEND fd3 position after the write is %lld, expected %lld",
		    (long long)lseek(afd, 0, SEEK_CUR), old + len);
	model_write(old, len, buf);
	e->size1 = fsize;
	check_op(old, old, old + len);
}

static void do_truncate(void)
{
	long long n, old = fsize;
	struct logent *e;

	switch (rnd() % 5) {
	case 0:
		n = fsize + rndr(2 * BS + 1) - BS;
		break;
	case 1:
		n = rndr(maxlen + 1) & ~(BS - 1);
		break;
	case 2:
		n = fsize / 2 + rndr(BS);
		break;
	default:
		n = rndr(maxlen + 1);
	}
	if (n < 0)
		n = 0;
	if (n > maxlen)
		n = maxlen;
	e = log_op(OP_TRUNCATE, n, 0);
	if (ftruncate(fd, n))
		die(n, "ftruncate(%lld): %s", n, errname(errno));
	model_truncate(n);
	e->size1 = fsize;
	if (n < old)
		check_op(n, n, n);
	else
		check_op(old, old, n < old + 16 * BS ? n : old + 16 * BS);
}

static void do_mapread(void)
{
	long long off, len, pg, mlen, end;
	unsigned char *m;

	if (fsize == 0) {
		do_read(OP_READ);
		return;
	}
	off = pick_off(fsize);
	len = pick_len(fsize - off);
	log_op(OP_MAPREAD, off, len);
	pg = off & ~(BS - 1);
	mlen = off + len - pg;
	m = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, pg);
	if (m == MAP_FAILED)
		die(off, "mmap(PROT_READ, off %lld, len %lld): %s", pg, mlen,
		    errname(errno));
	compare(m + (off - pg), off, len, "mmap read");
	/* the part of the EOF page past EOF reads as zeros */
	end = off + len;
	if (end == fsize && (end & (BS - 1))) {
		long long tail = BS - (end & (BS - 1));

		for (long long i = 0; i < tail; i++)
			if (m[end - pg + i])
				die(end + i, "mmap read: byte %lld past EOF (%lld) in the EOF page is 0x%02x, expected zero",
				    end + i, fsize, m[end - pg + i]);
	}
	if (munmap(m, mlen))
		die(-1, "munmap: %s", errname(errno));
	check_size();
}

static void do_mapwrite(void)
{
	long long off = pick_off(maxlen), len = pick_len(maxlen - off);
	long long pg, mlen, old = fsize;
	struct logent *e = log_op(OP_MAPWRITE, off, len);
	const unsigned char *buf;
	unsigned char *m;
	int how = (int)(rnd() % 3);

	if (off + len > fsize) {
		/* mapped stores cannot extend the file: ftruncate first */
		if (ftruncate(fd, off + len))
			die(off, "ftruncate(%lld) before a mapped write: %s",
			    off + len, errname(errno));
		model_truncate(off + len);
		snprintf(e->note, sizeof(e->note), "extended by ftruncate");
	}
	pg = off & ~(BS - 1);
	mlen = off + len - pg;
	m = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pg);
	if (m == MAP_FAILED)
		die(off, "mmap(PROT_READ|PROT_WRITE, off %lld, len %lld): %s",
		    pg, mlen, errname(errno));
	buf = data(len);
	memcpy(m + (off - pg), buf, len);
	if (how < 2 && msync(m, mlen, how ? MS_SYNC : MS_ASYNC))
		die(off, "msync: %s", errname(errno));
	if (how == 2)
		strncat(e->note, e->note[0] ? ", no msync" : "no msync",
			sizeof(e->note) - strlen(e->note) - 1);
	if (munmap(m, mlen))
		die(-1, "munmap: %s", errname(errno));
	model_write(off, len, buf);
	e->size1 = fsize;
	check_op(old, off, off + len);
}

static void do_falloc(enum op op)
{
	static const int modes[OP_NR] = {
		[OP_FALLOC] = 0,
		[OP_FALLOC_KEEP] = FALLOC_FL_KEEP_SIZE,
		[OP_PUNCH] = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		[OP_ZERO] = FALLOC_FL_ZERO_RANGE,
		[OP_ZERO_KEEP] = FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
	};
	int mode = modes[op];
	long long off = pick_off(maxlen), len = pick_len(maxlen - off);
	long long end = off + len, old = fsize;
	struct logent *e = log_op(op, off, len);

	if (fallocate(fd, mode, off, len))
		die(off, "fallocate(mode 0x%x, off %lld, len %lld): %s", mode,
		    off, len, errname(errno));
	if (op == OP_PUNCH || op == OP_ZERO || op == OP_ZERO_KEEP) {
		long long zend = end < fsize ? end : fsize;

		if (off < zend)
			memset(model + off, 0, zend - off);
	}
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > fsize)
		fsize = end;		/* the model is zero past its size */
	e->size1 = fsize;
	check_op(old, off, end);
}

/*
 * COLLAPSE_RANGE / INSERT_RANGE of whole blocks: the rest of the file
 * moves down or up.  One in eight is a call the file system must refuse
 * with EINVAL (an unaligned range; a collapse reaching EOF, an insert
 * at or past it), leaving the file as it was.
 */
static void do_shift(enum op op)
{
	int collapse = op == OP_COLLAPSE;
	int mode = collapse ? FALLOC_FL_COLLAPSE_RANGE : FALLOC_FL_INSERT_RANGE;
	long long lastb = fsize ? (fsize - 1) / BS : -1; /* block of the last byte */
	long long maxb = maxoplen / BS, nb, ob, off, len, old = fsize;
	struct logent *e;

	if (!maxb)
		maxb = 1;
	if (collapse)
		nb = lastb < maxb ? lastb : maxb;		/* off + len <= lastb */
	else
		nb = (maxlen - fsize) / BS < maxb ? (maxlen - fsize) / BS : maxb;
	if (nb < 1 || lastb < 0 || rnd() % 8 == 0) {
		/* refused: unaligned, or past the limits */
		off = rnd() % 2 ? BS + 1 + rndr(BS - 1) : (lastb + 1) * BS;
		len = BS;
		e = log_op(op, off, len);
		snprintf(e->note, sizeof(e->note), "expect EINVAL");
		if (fallocate(fd, mode, off, len) == 0)
			die(off, "fallocate(%s, off %lld, len %lld) succeeded: EINVAL expected",
			    op_names[op], off, len);
		if (errno != EINVAL)
			die(off, "fallocate(%s, off %lld, len %lld): %s, EINVAL expected",
			    op_names[op], off, len, errname(errno));
		e->size1 = fsize;
		check_size();
		return;
	}
	len = (1 + rndr(nb)) * BS;
	ob = collapse ? rndr(lastb - len / BS + 1) : rndr(lastb + 1);
	off = ob * BS;
	e = log_op(op, off, len);
	if (fallocate(fd, mode, off, len))
		die(off, "fallocate(%s, off %lld, len %lld): %s", op_names[op],
		    off, len, errname(errno));
	if (collapse) {
		memmove(model + off, model + off + len, fsize - off - len);
		memset(model + fsize - len, 0, len);
		fsize -= len;
	} else {
		memmove(model + off + len, model + off, fsize - off);
		memset(model + off, 0, len);
		fsize += len;
	}
	e->size1 = fsize;
	check_op(old, off, fsize > old ? fsize : old);
}

static void do_fsync(void)
{
	int data = (int)(rnd() & 1);
	struct logent *e = log_op(OP_FSYNC, 0, 0);

	snprintf(e->note, sizeof(e->note), data ? "fdatasync" : "fsync");
	if (data ? fdatasync(fd) : fsync(fd))
		die(-1, "%s: %s", e->note, errname(errno));
	check_size();
}

static int open_or_die(int flags)
{
	int d = open(path, flags, 0644);

	if (d < 0)
		die(-1, "open(%s, 0%o): %s", path, flags, errname(errno));
	return d;
}

static void do_reopen(void)
{
	log_op(OP_REOPEN, 0, 0);
	close(fd);
	close(rfd);
	fd = open_or_die(O_RDWR);
	rfd = open_or_die(O_RDONLY);
	check_size();
}

/* ------------------------------------------------------------------ */

/* fallocate modes this file system supports; unsupported ones are dropped */
static void probe_fallocate(void)
{
	static const struct { enum op op; int mode; const char *name; } p[] = {
		{ OP_FALLOC, 0, "default mode" },
		{ OP_FALLOC_KEEP, FALLOC_FL_KEEP_SIZE, "FALLOC_FL_KEEP_SIZE" },
		{ OP_PUNCH, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  "FALLOC_FL_PUNCH_HOLE" },
		{ OP_ZERO, FALLOC_FL_ZERO_RANGE, "FALLOC_FL_ZERO_RANGE" },
		{ OP_ZERO_KEEP, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		  "FALLOC_FL_ZERO_RANGE|FALLOC_FL_KEEP_SIZE" },
		{ OP_COLLAPSE, FALLOC_FL_COLLAPSE_RANGE,
		  "FALLOC_FL_COLLAPSE_RANGE" },
		{ OP_INSERT, FALLOC_FL_INSERT_RANGE, "FALLOC_FL_INSERT_RANGE" },
	};

	/* a file of two blocks: a collapse or insert of the first is valid */
	if (ftruncate(fd, 2 * BS))
		die(-1, "ftruncate(%lld): %s", 2 * BS, errname(errno));
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		int shift = p[i].op == OP_COLLAPSE || p[i].op == OP_INSERT;

		if (fallocate(fd, p[i].mode, 0, shift ? BS : 1) == 0)
			continue;
		if (errno != EOPNOTSUPP)
			die(-1, "fallocate(%s) probe: %s", p[i].name,
			    errname(errno));
		if (require_all)
			die(-1, "fallocate(%s) is not supported (EOPNOTSUPP) and -R requires it",
			    p[i].name);
		printf("fsx_nova: WARNING: fallocate(%s) is not supported here (EOPNOTSUPP): left out\n",
		       p[i].name);
		weight[p[i].op] = 0;
	}
	if (ftruncate(fd, 0))
		die(-1, "ftruncate(0): %s", errname(errno));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fsx_nova [-N ops] [-S seed] [-l maxlen] [-o maxoplen] [-m|-M]\n"
		"                [-p progress] [-c check_every] [-R] FILE\n");
	exit(2);
}

static long long num(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);

	if (end == s)
		usage();
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || v < 0)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	int c, total = 0;
	struct timespec ts;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "N:S:l:o:mMp:c:R")) != -1) {
		switch (c) {
		case 'N': nops = num(optarg); break;
		case 'S': seed = (unsigned long long)num(optarg); break;
		case 'l': maxlen = num(optarg); break;
		case 'o': maxoplen = num(optarg); break;
		case 'm': use_mmap = 1; break;
		case 'M': use_mmap = 0; break;
		case 'p': progress = num(optarg); break;
		case 'c': check_every = num(optarg); break;
		case 'R': require_all = 1; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || maxlen < 1 || maxoplen < 1)
		usage();
	path = argv[optind];
	if (seed == 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((unsigned long long)ts.tv_sec * 1000003ULL) ^
		       (unsigned long long)ts.tv_nsec ^
		       ((unsigned long long)getpid() << 20);
		seed %= 1000000000ULL;
		if (seed == 0)
			seed = 1;
	}
	rng_state = seed;
	printf("fsx_nova: seed %llu, %ld operations, file %s, maxlen %lld, maxoplen %lld%s\n",
	       seed, nops, path, maxlen, maxoplen, use_mmap ? ", mmap" : "");
	if (!use_mmap)
		weight[OP_MAPREAD] = weight[OP_MAPWRITE] = 0;

	model = calloc(1, maxlen + maxoplen + BS);
	init_pool();
	rdbuf = malloc((maxlen > (4LL << 20) ? 4LL << 20 : maxlen) + maxoplen + 4 * BS);
	if (!model || !rdbuf) {
		fprintf(stderr, "fsx_nova: out of memory\n");
		return 2;
	}
	signal(SIGBUS, on_signal);
	signal(SIGSEGV, on_signal);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "fsx_nova: %s: %s\n", path, strerror(errno));
		return 2;
	}
	rfd = open_or_die(O_RDONLY);
	afd = open_or_die(O_WRONLY | O_APPEND);
	probe_fallocate();
	for (int i = 0; i < OP_NR; i++)
		total += weight[i];

	for (opno = 1; opno <= nops; opno++) {
		int r = (int)rndr(total), op = 0;

		while (r >= weight[op])
			r -= weight[op++];
		cur_op = (enum op)op;
		switch (cur_op) {
		case OP_WRITE: case OP_PWRITE: case OP_WRITEV:
			do_write(cur_op);
			break;
		case OP_READ: case OP_READ2:
			do_read(cur_op);
			break;
		case OP_APPEND:
			do_append();
			break;
		case OP_TRUNCATE:
			do_truncate();
			break;
		case OP_MAPREAD:
			do_mapread();
			break;
		case OP_MAPWRITE:
			do_mapwrite();
			break;
		case OP_FALLOC: case OP_FALLOC_KEEP: case OP_PUNCH:
		case OP_ZERO: case OP_ZERO_KEEP:
			do_falloc(cur_op);
			break;
		case OP_COLLAPSE: case OP_INSERT:
			do_shift(cur_op);
			break;
		case OP_FSYNC:
			do_fsync();
			break;
		case OP_REOPEN:
			do_reopen();
			break;
		case OP_NR:
			break;
		}
		if (check_every && opno % check_every == 0)
			check_all(rfd, "periodic whole-file check");
		if (progress && opno % progress == 0)
			printf("fsx_nova: %ld operations done, size %lld\n", opno,
			       fsize);
	}
	opno = nops;
	cur_op = OP_NR;
	/* the whole file through new descriptors */
	close(fd);
	close(rfd);
	close(afd);
	fd = open_or_die(O_RDONLY);
	check_all(fd, "final whole-file check after reopening");
	close(fd);
	printf("fsx_nova: operations done:");
	for (int i = 0; i < OP_NR; i++)
		printf(" %s %ld%s", op_names[i], op_count[i],
		       i == OP_NR - 1 ? "\n" : ",");
	printf("fsx_nova: %ld operations, 0 mismatches\n", nops);
	return 0;
}
