// SPDX-License-Identifier: GPL-2.0
/*
 * nova_stress: fsstress-like concurrency stress for NOVA.
 *
 *   nova_stress -d DIR [-p PROCS] [-t SECS] [-s SEED] [-v] [--stop]
 *
 * PROCS processes run for SECS seconds on a shared tree under DIR:
 * top directories d0..d7, each holding subdirectories s0..s3, files
 * f0..f23 and symlinks l0..l5, all created, written, renamed, linked and
 * removed concurrently, so that the processes race on the same names.
 * Operations: create, write (sizes 1 byte .. 256 KiB, offsets up to
 * 1 MiB, O_APPEND, O_DIRECT), read, mmap read/write, rename (across
 * directories, over files, RENAME_EXCHANGE, RENAME_NOREPLACE), link,
 * unlink, truncate, fallocate (all modes), readdir, chmod/chown/utimes,
 * symlink, readlink, mkdir, rmdir, fsync/fdatasync, stat, statfs.
 *
 * Besides the shared tree every process owns a few files in its own
 * directory pN and keeps their contents in memory: every read of them is
 * compared, and the whole files at the end, so data corruption under
 * concurrency is caught, not only errors.
 *
 * Every operation has a set of errnos that races explain (ENOENT,
 * EEXIST, ENOTEMPTY, EISDIR, ...).  Anything else (EUCLEAN, EIO, ESTALE,
 * EFAULT, ...) is an unexpected error: it is printed and the exit status
 * is 1 (with --stop the run ends at the first one).  A run that does not
 * finish within SECS + 120 seconds is reported as a hang with each
 * process's kernel stack (exit status 3).  Kernel log lines that look
 * like a kernel report (Oops, BUG, WARNING, lockups, hung tasks) give
 * exit status 2.  At the end the operation counts are printed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
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
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t u64;
typedef uint8_t u8;

#define NTOP	8
#define NSUB	4
#define NFILE	24
#define NLINK	6
#define NOWN	4		/* private files per process */
#define OWN_MAX	(1 << 20)	/* their maximum size */
#define BUFSZ	(256 << 10)

static const char *g_dir;
static int g_procs = 4, g_verbose, g_stop;
static unsigned int g_secs = 60;
static u64 g_seed;

enum { OP_CREATE, OP_WRITE, OP_READ, OP_MMAPRD, OP_MMAPWR, OP_RENAME,
       OP_LINK, OP_UNLINK, OP_TRUNC, OP_FALLOC, OP_READDIR, OP_SETATTR,
       OP_SYMLINK, OP_READLINK, OP_MKDIR, OP_RMDIR, OP_FSYNC, OP_STAT,
       OP_STATFS, OP_OWNWRITE, OP_OWNREAD, OP_OWNTRUNC, OP_OWNMMAP,
       OP_OWNFALLOC, OP_MAX };
static const char *const op_name[] = { "create", "write", "read", "mmap-read",
	"mmap-write", "rename", "link", "unlink", "truncate", "fallocate",
	"readdir", "setattr", "symlink", "readlink", "mkdir", "rmdir", "fsync",
	"stat", "statfs", "own-write", "own-read", "own-truncate", "own-mmap",
	"own-fallocate" };

#define NERR 140
struct shared {
	u64 cnt[OP_MAX][NERR];		/* [op][0] = successes */
	u64 unexpected;
	u64 corrupt;			/* private data mismatches */
	u64 sigbus;			/* SIGBUS from truncation races */
	volatile int stop;
};
static struct shared *sh;

/* ---- RNG ---- */
struct rng {
	u64 s;
};

static u64 rnext(struct rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rnd(struct rng *r, u64 n)
{
	return n ? rnext(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 100) < pct;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *ename(int e)
{
	const char *n = e ? strerrorname_np(e) : "OK";

	return n ? n : "E?";
}

/* ---- errno classification ---- */

/* errnos that concurrent namespace changes explain, per operation */
static bool expected(int op, int e)
{
	switch (e) {
	case ENOENT:		/* a name removed or renamed by another process */
		return op < OP_OWNWRITE;
	case ENOSPC:		/* the device filled up (never for removals) */
		return op != OP_READ && op != OP_MMAPRD && op != OP_STAT &&
		       op != OP_STATFS && op != OP_READDIR && op != OP_READLINK &&
		       op != OP_OWNREAD && op != OP_UNLINK && op != OP_RMDIR;
	case EEXIST:
		return op == OP_CREATE || op == OP_LINK || op == OP_SYMLINK ||
		       op == OP_MKDIR || op == OP_RENAME;
	case ENOTEMPTY:
		return op == OP_RMDIR || op == OP_RENAME;
	case EISDIR:		/* the name is a directory now */
		return op == OP_CREATE || op == OP_WRITE || op == OP_READ ||
		       op == OP_UNLINK || op == OP_TRUNC || op == OP_RENAME ||
		       op == OP_MMAPRD || op == OP_MMAPWR || op == OP_FALLOC ||
		       op == OP_FSYNC;
	case ENOTDIR:		/* a directory name is a file now */
		return op == OP_RMDIR || op == OP_READDIR || op == OP_RENAME ||
		       op == OP_MKDIR || op == OP_CREATE || op == OP_LINK ||
		       op == OP_SYMLINK || op == OP_UNLINK || op == OP_STAT ||
		       op == OP_SETATTR || op == OP_TRUNC || op == OP_WRITE ||
		       op == OP_READ || op == OP_MMAPRD || op == OP_MMAPWR ||
		       op == OP_FALLOC || op == OP_FSYNC || op == OP_READLINK;
	case EINVAL:		/* a directory into its own subtree; readlink
				 * of a non-symlink; mmap of an empty file */
		return op == OP_RENAME || op == OP_READLINK || op == OP_MMAPRD ||
		       op == OP_MMAPWR;
	case EPERM:		/* link() of a directory */
		return op == OP_LINK;
	case ELOOP:		/* O_NOFOLLOW on a symlink; symlink loops: a
				 * symlink renamed to a directory name (d0/s3)
				 * makes every path through it loop */
		return op < OP_OWNWRITE;
	case ENXIO:		/* SEEK_DATA/SEEK_HOLE past the end */
		return op == OP_READ;
	case ENODEV:		/* fallocate/mmap on something not a file */
		return op == OP_FALLOC || op == OP_MMAPRD || op == OP_MMAPWR;
	case EBUSY:		/* rename/rmdir of a directory in use: not on
				 * Linux; kept unexpected */
		return false;
	}
	return false;
}

static struct rng *cur_rng;
static int me;

static int rec(int op, long ret, const char *what)
{
	int e = ret < 0 ? errno : 0;

	if (e >= NERR)
		e = NERR - 1;
	__atomic_add_fetch(&sh->cnt[op][e], 1, __ATOMIC_RELAXED);
	if (e && !expected(op, e)) {
		__atomic_add_fetch(&sh->unexpected, 1, __ATOMIC_RELAXED);
		printf("UNEXPECTED [proc %d] %s %s: %s (%s)\n", me, op_name[op],
		       what, ename(e), strerror(e));
		if (g_stop)
			sh->stop = 1;
	} else if (g_verbose) {
		printf("[%d] %s %s: %s\n", me, op_name[op], what, ename(e));
	}
	errno = e;
	return (int)ret;
}

/* ---- SIGBUS around mapped accesses ---- */
static sigjmp_buf bus_jmp;
static volatile sig_atomic_t in_map;

static void bus_handler(int sig)
{
	if (in_map)
		siglongjmp(bus_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- names in the shared tree ---- */
static void rpath(struct rng *r, char *p, size_t n, int kind)
{
	int top = (int)rnd(r, NTOP);
	char dir[64];

	if (chance(r, 25))
		snprintf(dir, sizeof(dir), "%s/d%d/s%d", g_dir, top, (int)rnd(r, NSUB));
	else
		snprintf(dir, sizeof(dir), "%s/d%d", g_dir, top);
	if (kind < 0)
		kind = (int)rnd(r, 10);
	if (kind < 6)		/* a file name */
		snprintf(p, n, "%s/f%d", dir, (int)rnd(r, NFILE));
	else if (kind < 8)	/* a directory name */
		snprintf(p, n, "%s/s%d", dir, (int)rnd(r, NSUB));
	else			/* a symlink name */
		snprintf(p, n, "%s/l%d", dir, (int)rnd(r, NLINK));
}

static u8 *wbuf;

static void fill(struct rng *r, u8 *b, size_t n)
{
	size_t i;
	u64 v = rnext(r);

	for (i = 0; i < n; i++) {
		if (!(i & 7))
			v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		b[i] = (u8)(v >> (8 * (i & 7)));
	}
}

/* ---- private, verified files ---- */
/* the last operations on a private file, printed with a mismatch */
#define NHIST	16
struct own_hist {
	char kind;		/* w)rite r)ead t)runcate m)map f)allocate */
	int err;		/* errno, 0 on success */
	long off, len, ret;
	size_t size;		/* the model's size afterwards */
};

struct own {
	char path[256];
	u8 *data;
	size_t size;
	struct own_hist h[NHIST];
	unsigned int nh;
};
static struct own own[NOWN];

static void own_note(struct own *o, char kind, long off, long len, long ret)
{
	struct own_hist *h = &o->h[o->nh++ % NHIST];

	h->kind = kind;
	h->err = ret < 0 ? errno : 0;
	h->off = off;
	h->len = len;
	h->ret = ret;
	h->size = o->size;
}

static void own_corrupt(struct own *o, const char *how, size_t off)
{
	__atomic_add_fetch(&sh->corrupt, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->unexpected, 1, __ATOMIC_RELAXED);
	printf("CORRUPTION [proc %d] %s: %s at offset %zu (size %zu)\n", me,
	       o->path, how, off, o->size);
	for (unsigned int i = o->nh > NHIST ? o->nh - NHIST : 0; i < o->nh; i++) {
		struct own_hist *h = &o->h[i % NHIST];

		printf("  history %u: %c off %ld len %ld -> %ld %s, size %zu\n",
		       i, h->kind, h->off, h->len, h->ret,
		       h->err ? ename(h->err) : "", h->size);
	}
	if (g_stop)
		sh->stop = 1;
}

static int rnd_mode_idx(int mode)
{
	if (mode & FALLOC_FL_PUNCH_HOLE)
		return 2;
	if (mode & FALLOC_FL_ZERO_RANGE)
		return 3;
	return mode & FALLOC_FL_KEEP_SIZE ? 1 : 0;
}

/* Re-read a private file into its shadow (after an ambiguous failure) */
static void own_resync(struct own *o)
{
	int fd = open(o->path, O_RDONLY);
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) || st.st_size > OWN_MAX) {
		if (fd >= 0)
			close(fd);
		return;
	}
	n = pread(fd, o->data, st.st_size, 0);
	if (n == st.st_size)
		o->size = st.st_size;
	close(fd);
}

static void own_verify(struct own *o, const char *when)
{
	static u8 *buf;
	int fd = open(o->path, O_RDONLY);
	struct stat st;
	ssize_t n;
	size_t i;

	if (!buf)
		buf = malloc(OWN_MAX + BUFSZ);
	if (rec(OP_OWNREAD, fd, o->path) < 0)
		return;
	if (fstat(fd, &st) == 0 && (size_t)st.st_size != o->size) {
		char how[100];

		snprintf(how, sizeof(how), "%s: size %lld, expected %zu", when,
			 (long long)st.st_size, o->size);
		own_corrupt(o, how, 0);
		if (st.st_size <= OWN_MAX)
			o->size = st.st_size;
	}
	n = pread(fd, buf, OWN_MAX, 0);
	if (rec(OP_OWNREAD, n, o->path) >= 0) {
		if ((size_t)n != o->size) {
			char how[160];
			struct stat st2;
			ssize_t again = pread(fd, buf, OWN_MAX, 0);

			snprintf(how, sizeof(how), "%s: whole-file read returned %zd (again: %zd, fstat size %lld)",
				 when, n, again, fstat(fd, &st2) ? -1LL : (long long)st2.st_size);
			own_corrupt(o, how, 0);
		} else {
			for (i = 0; i < o->size && buf[i] == o->data[i]; i++)
				;
			if (i < o->size) {
				char how[120];

				snprintf(how, sizeof(how), "%s: byte 0x%02x, expected 0x%02x",
					 when, buf[i], o->data[i]);
				own_corrupt(o, how, i);
				memcpy(o->data, buf, o->size);
			}
		}
	}
	close(fd);
}

/* Is the page at file offset @pg preallocated and unwritten (FIEMAP)? */
static bool page_unwritten(int fd, off_t pg)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe;
	} f;

	memset(&f, 0, sizeof(f));
	f.fm.fm_start = pg;
	f.fm.fm_length = 4096;
	f.fm.fm_extent_count = 1;
	return ioctl(fd, FS_IOC_FIEMAP, &f.fm) == 0 && f.fm.fm_mapped_extents &&
	       (f.fe.fe_flags & FIEMAP_EXTENT_UNWRITTEN);
}

/*
 * A store into a mapped hole allocates a block, one into a preallocated
 * page logs it written; on a full device the fault fails with SIGBUS (as
 * on ext4 and XFS): ENOSPC, not corruption.  @pg is the file offset of
 * the faulting page.
 */
static bool sigbus_is_enospc(int fd, off_t pg)
{
	struct statfs sf;

	if (lseek(fd, pg, SEEK_HOLE) != pg && !page_unwritten(fd, pg))
		return false;	/* the page had a block, written */
	/* nearly full: other processes allocate and free meanwhile */
	return fstatfs(fd, &sf) == 0 && sf.f_bavail < 1024;
}

static void own_op(struct rng *r)
{
	struct own *o = &own[rnd(r, NOWN)];
	int fd, k = (int)rnd(r, 10);
	off_t off;
	size_t len;
	long ret;

	if (k < 4) {			/* write */
		off = (off_t)rnd(r, OWN_MAX / 2);
		len = 1 + rnd(r, chance(r, 70) ? 8192 : OWN_MAX / 2);
		if ((size_t)off + len > OWN_MAX)
			len = OWN_MAX - off;
		fd = open(o->path, O_WRONLY);
		if (rec(OP_OWNWRITE, fd, o->path) < 0)
			return;
		fill(r, wbuf, len);
		ret = pwrite(fd, wbuf, len, off);
		if (rec(OP_OWNWRITE, ret, o->path) > 0) {
			if ((size_t)off > o->size)
				memset(o->data + o->size, 0, off - o->size);
			memcpy(o->data + off, wbuf, ret);
			if ((size_t)off + ret > o->size)
				o->size = off + ret;
		}
		own_note(o, 'w', off, len, ret);
		close(fd);
	} else if (k < 6) {		/* read part and compare */
		static u8 buf[65536];

		fd = open(o->path, O_RDONLY);
		if (rec(OP_OWNREAD, fd, o->path) < 0)
			return;
		off = (off_t)rnd(r, o->size + 1);
		ret = pread(fd, buf, sizeof(buf), off);
		own_note(o, 'r', off, sizeof(buf), ret);
		if (rec(OP_OWNREAD, ret, o->path) >= 0) {
			size_t want = o->size - off < sizeof(buf) ? o->size - off : sizeof(buf);

			if ((size_t)ret != want) {
				char how[160];
				struct stat st2;
				ssize_t again = pread(fd, buf, sizeof(buf), off);

				snprintf(how, sizeof(how), "read returned %ld of %zu (again: %zd, fstat size %lld)",
					 ret, want, again,
					 fstat(fd, &st2) ? -1LL : (long long)st2.st_size);
				own_corrupt(o, how, off);
			}
			else if (memcmp(buf, o->data + off, want))
				own_corrupt(o, "read differs", off);
		}
		close(fd);
	} else if (k < 7) {		/* truncate */
		size_t ns = rnd(r, OWN_MAX);

		ret = truncate(o->path, ns);
		if (rec(OP_OWNTRUNC, ret, o->path) == 0) {
			if (ns > o->size)
				memset(o->data + o->size, 0, ns - o->size);
			o->size = ns;
			own_note(o, 't', ns, 0, ret);
		} else {
			own_note(o, 't', ns, 0, ret);
			own_resync(o);
			own_note(o, 'R', 0, 0, (long)o->size);
		}
	} else if (k < 9) {		/* mmap write */
		u8 *m;
		size_t mlen = o->size;

		if (!mlen)
			return;
		fd = open(o->path, O_RDWR);
		if (rec(OP_OWNMMAP, fd, o->path) < 0)
			return;
		m = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rec(OP_OWNMMAP, m == MAP_FAILED ? -1 : 0, o->path) == 0) {
			int n = 1 + (int)rnd(r, 32), j;
			static volatile size_t at;

			in_map = 1;
			if (!sigsetjmp(bus_jmp, 1)) {
				for (j = 0; j < n; j++) {
					u8 v = (u8)rnext(r);

					at = rnd(r, mlen);
					m[at] = v;
					o->data[at] = v;
				}
				if (chance(r, 50))
					msync(m, mlen, MS_SYNC);
				own_note(o, 'm', 0, mlen, n);
			} else if (sigbus_is_enospc(fd, at & ~(size_t)4095)) {
				/* the store did not happen: data still agrees */
				errno = ENOSPC;
				rec(OP_OWNMMAP, -1, o->path);
				own_note(o, 'm', at, mlen, -1);
			} else {
				own_corrupt(o, "SIGBUS on a private mapping", at);
			}
			in_map = 0;
			munmap(m, mlen);
		}
		close(fd);
	} else {			/* fallocate */
		static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_ZERO_RANGE };
		int mode = modes[rnd(r, 4)];

		off = (off_t)rnd(r, OWN_MAX / 2);
		len = 1 + rnd(r, OWN_MAX / 4);
		fd = open(o->path, O_RDWR);
		if (rec(OP_OWNFALLOC, fd, o->path) < 0)
			return;
		ret = fallocate(fd, mode, off, len);
		if (rec(OP_OWNFALLOC, ret, o->path) == 0) {
			size_t end = off + len;

			if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
				size_t zend = end < o->size ? end : o->size;

				if ((size_t)off < zend)
					memset(o->data + off, 0, zend - off);
			}
			if (!(mode & FALLOC_FL_KEEP_SIZE) && end > o->size) {
				memset(o->data + o->size, 0, end - o->size);
				o->size = end;
			}
			own_note(o, "fkpz"[rnd_mode_idx(mode)], off, len, ret);
		} else {
			own_note(o, "fkpz"[rnd_mode_idx(mode)], off, len, ret);
			own_resync(o);
			own_note(o, 'R', 0, 0, (long)o->size);
		}
		close(fd);
	}
}

/* ---- operations on the shared tree ---- */
static void do_op(struct rng *r)
{
	char p[256], q[256];
	int op = (int)rnd(r, 30), fd;
	long ret;
	struct stat st;

	if (op >= 24) {
		own_op(r);
		return;
	}
	switch (op) {
	case 0: case 1:		/* create (+ write) */
		rpath(r, p, sizeof(p), 0);
		fd = open(p, O_CREAT | O_WRONLY | O_NOFOLLOW |
			  (chance(r, 30) ? O_EXCL : 0) | (chance(r, 20) ? O_TRUNC : 0),
			  0644);
		if (rec(OP_CREATE, fd, p) < 0)
			break;
		if (chance(r, 70)) {
			size_t len = rnd(r, 16384);

			fill(r, wbuf, len);
			rec(OP_WRITE, write(fd, wbuf, len), p);
		}
		close(fd);
		break;
	case 2: case 3: {	/* write */
		int fl = O_WRONLY | O_NOFOLLOW;
		size_t len = 1 + rnd(r, chance(r, 80) ? 16384 : BUFSZ);
		off_t off = (off_t)rnd(r, 1 << 20);

		if (chance(r, 15))
			fl |= O_APPEND;
		if (chance(r, 10)) {
			fl |= O_DIRECT;
			len = (len + 4095) & ~(size_t)4095;
			if (len > BUFSZ)
				len = BUFSZ;
			off &= ~(off_t)4095;
		}
		rpath(r, p, sizeof(p), 0);
		fd = open(p, fl);
		if (rec(OP_WRITE, fd, p) < 0)
			break;
		fill(r, wbuf, len);
		rec(OP_WRITE, pwrite(fd, wbuf, len, off), p);
		close(fd);
		break;
	}
	case 4: {		/* read, SEEK_DATA/SEEK_HOLE */
		static u8 buf[BUFSZ];

		rpath(r, p, sizeof(p), 0);
		fd = open(p, O_RDONLY | O_NOFOLLOW);
		if (rec(OP_READ, fd, p) < 0)
			break;
		rec(OP_READ, pread(fd, buf, 1 + rnd(r, BUFSZ), (off_t)rnd(r, 1 << 20)), p);
		if (chance(r, 30)) {
			ret = lseek(fd, (off_t)rnd(r, 1 << 20), chance(r, 50) ? SEEK_DATA :
				    SEEK_HOLE);
			rec(OP_READ, ret, p);
		}
		close(fd);
		break;
	}
	case 5: case 6: {	/* mmap read or write */
		bool wr = op == 6;
		int oper = wr ? OP_MMAPWR : OP_MMAPRD;
		u8 *m;
		size_t mlen;

		rpath(r, p, sizeof(p), 0);
		fd = open(p, (wr ? O_RDWR : O_RDONLY) | O_NOFOLLOW);
		if (rec(oper, fd, p) < 0)
			break;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
			close(fd);
			break;
		}
		mlen = st.st_size < (1 << 20) ? st.st_size : 1 << 20;
		m = mmap(NULL, mlen, wr ? PROT_READ | PROT_WRITE : PROT_READ,
			 MAP_SHARED, fd, 0);
		if (rec(oper, m == MAP_FAILED ? -1 : 0, p) == 0) {
			volatile u8 sum = 0;
			int n = 1 + (int)rnd(r, 64), j;

			in_map = 1;
			if (!sigsetjmp(bus_jmp, 1)) {
				for (j = 0; j < n; j++) {
					size_t at = rnd(r, mlen);

					if (wr)
						m[at] = (u8)rnext(r);
					else
						sum += m[at];
				}
				if (wr && chance(r, 30))
					msync(m, mlen, MS_SYNC);
			} else {
				/* another process truncated the file */
				__atomic_add_fetch(&sh->sigbus, 1, __ATOMIC_RELAXED);
			}
			in_map = 0;
			munmap(m, mlen);
		}
		close(fd);
		break;
	}
	case 7: case 8: {	/* rename */
		unsigned int fl = 0;

		rpath(r, p, sizeof(p), -1);
		rpath(r, q, sizeof(q), chance(r, 50) ? -1 : (int)rnd(r, 10));
		if (chance(r, 10))
			fl = RENAME_EXCHANGE;
		else if (chance(r, 10))
			fl = RENAME_NOREPLACE;
		rec(OP_RENAME, renameat2(AT_FDCWD, p, AT_FDCWD, q, fl), p);
		break;
	}
	case 9:
		rpath(r, p, sizeof(p), 0);
		rpath(r, q, sizeof(q), 0);
		rec(OP_LINK, link(p, q), p);
		break;
	case 10:
		rpath(r, p, sizeof(p), chance(r, 80) ? 0 : 9);
		rec(OP_UNLINK, unlink(p), p);
		break;
	case 11:
		rpath(r, p, sizeof(p), 0);
		rec(OP_TRUNC, truncate(p, (off_t)rnd(r, 2 << 20)), p);
		break;
	case 12: {
		static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_ZERO_RANGE };

		rpath(r, p, sizeof(p), 0);
		fd = open(p, O_RDWR | O_NOFOLLOW);
		if (rec(OP_FALLOC, fd, p) < 0)
			break;
		rec(OP_FALLOC, fallocate(fd, modes[rnd(r, 4)], (off_t)rnd(r, 1 << 20),
					 1 + (off_t)rnd(r, 256 << 10)), p);
		close(fd);
		break;
	}
	case 13: {		/* readdir */
		DIR *d;
		struct dirent *de;
		int n = 0;

		rpath(r, p, sizeof(p), 6);
		if (chance(r, 50))
			*strrchr(p, '/') = 0;
		d = opendir(p);
		if (rec(OP_READDIR, d ? 0 : -1, p) < 0)
			break;
		errno = 0;
		while ((de = readdir(d)) && n < 10000)
			n++;
		if (errno)
			rec(OP_READDIR, -1, p);
		closedir(d);
		break;
	}
	case 14: {		/* chmod / chown / utimes */
		struct timespec ts[2] = { { (time_t)rnd(r, 1 << 30), 0 },
					  { (time_t)rnd(r, 1 << 30), 0 } };

		rpath(r, p, sizeof(p), -1);
		switch (rnd(r, 3)) {
		case 0: rec(OP_SETATTR, chmod(p, 0600 | (mode_t)rnd(r, 01000)), p); break;
		case 1: rec(OP_SETATTR, lchown(p, (uid_t)rnd(r, 10), (gid_t)rnd(r, 10)), p); break;
		default: rec(OP_SETATTR, utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), p);
		}
		break;
	}
	case 15: {
		rpath(r, p, sizeof(p), 8);
		snprintf(q, sizeof(q), "../d%d/f%d", (int)rnd(r, NTOP), (int)rnd(r, NFILE));
		rec(OP_SYMLINK, symlink(q, p), p);
		break;
	}
	case 16: {
		char buf[256];

		rpath(r, p, sizeof(p), 8);
		rec(OP_READLINK, readlink(p, buf, sizeof(buf)), p);
		break;
	}
	case 17:
		rpath(r, p, sizeof(p), 6);
		rec(OP_MKDIR, mkdir(p, 0755), p);
		break;
	case 18:
		rpath(r, p, sizeof(p), 6);
		rec(OP_RMDIR, rmdir(p), p);
		break;
	case 19:
		rpath(r, p, sizeof(p), 0);
		fd = open(p, O_RDONLY | O_NOFOLLOW);
		if (rec(OP_FSYNC, fd, p) < 0)
			break;
		rec(OP_FSYNC, chance(r, 50) ? fsync(fd) : fdatasync(fd), p);
		close(fd);
		break;
	case 20: case 21: case 22:
		rpath(r, p, sizeof(p), -1);
		rec(OP_STAT, chance(r, 50) ? lstat(p, &st) : stat(p, &st), p);
		break;
	default: {
		struct statfs sfs;

		rec(OP_STATFS, statfs(g_dir, &sfs), g_dir);
		break;
	}
	}
}

static void worker(int idx)
{
	struct rng r = { g_seed ^ ((u64)(idx + 1) * 0xd1b54a32d192ed03ULL) };
	double end = now_s() + g_secs;
	struct sigaction sa;
	char p[256];
	int i, fd;
	long n = 0;

	me = idx;
	cur_rng = &r;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bus_handler;
	sigaction(SIGBUS, &sa, NULL);
	wbuf = malloc(BUFSZ > OWN_MAX ? BUFSZ : OWN_MAX);
	snprintf(p, sizeof(p), "%s/p%d", g_dir, idx);
	if (mkdir(p, 0755) && errno != EEXIST) {
		printf("UNEXPECTED [proc %d] mkdir %s: %s\n", idx, p, strerror(errno));
		_exit(1);
	}
	for (i = 0; i < NOWN; i++) {
		snprintf(own[i].path, sizeof(own[i].path), "%s/p%d/own%d", g_dir, idx, i);
		own[i].data = calloc(1, OWN_MAX);
		own[i].size = 0;
		fd = open(own[i].path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
		if (fd < 0) {
			printf("UNEXPECTED [proc %d] create %s: %s\n", idx, own[i].path,
			       strerror(errno));
			_exit(1);
		}
		close(fd);
	}
	while (!sh->stop && now_s() < end) {
		do_op(&r);
		n++;
	}
	for (i = 0; i < NOWN; i++)
		own_verify(&own[i], "final check");
	if (g_verbose)
		printf("[proc %d] %ld operations\n", idx, n);
	_exit(0);
}

/* ---- kernel log check ---- */
static int kmsg_bad(int fd)
{
	static const char *const pat[] = { "Oops", "BUG:", "kernel BUG", "WARNING:",
		"general protection", "soft lockup", "hard LOCKUP", "hung_task",
		"blocked for more than", "KASAN", "UBSAN", "Call Trace",
		"Kernel panic", "detected stalls", "nable to handle", "NOVA error",
		NULL };
	char buf[8192];
	int bad = 0, i;

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		char *msg, *nl;

		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		buf[n] = 0;
		msg = strchr(buf, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		for (i = 0; pat[i]; i++)
			if (strstr(msg, pat[i])) {
				if (bad++ < 100)
					printf("KERNEL: %s\n", msg);
				break;
			}
	}
	return bad;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nova_stress -d DIR [-p PROCS] [-t SECS] [-s SEED] [-v] [--stop]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pid_t *pids;
	double t0, last;
	int i, k, e, alive, result = 0, kfd;
	u64 total = 0;
	char p[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-v")) {
			g_verbose = 1;
			continue;
		}
		if (!strcmp(a, "--stop")) {
			g_stop = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "-d"))
			g_dir = v;
		else if (!strcmp(a, "-p"))
			g_procs = atoi(v);
		else if (!strcmp(a, "-t"))
			g_secs = (unsigned int)atoi(v);
		else if (!strcmp(a, "-s"))
			g_seed = strtoull(v, NULL, 0);
		else
			usage();
	}
	if (!g_dir || g_procs < 1 || g_procs > 256)
		usage();
	if (!g_seed)
		g_seed = (u64)time(NULL) ^ ((u64)getpid() << 32);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	memset(sh, 0, sizeof(*sh));
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	for (i = 0; i < NTOP; i++) {
		snprintf(p, sizeof(p), "%s/d%d", g_dir, i);
		if (mkdir(p, 0755) && errno != EEXIST) {
			printf("mkdir %s: %s\n", p, strerror(errno));
			return 1;
		}
	}
	printf("nova_stress: %d processes, %us, seed 0x%llx, tree %s\n", g_procs,
	       g_secs, (unsigned long long)g_seed, g_dir);
	pids = calloc(g_procs, sizeof(*pids));
	for (i = 0; i < g_procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(i);
		if (pids[i] < 0) {
			printf("fork: %s\n", strerror(errno));
			sh->stop = 1;
			return 1;
		}
	}
	t0 = last = now_s();
	for (;;) {
		int st;

		alive = 0;
		for (i = 0; i < g_procs; i++) {
			if (!pids[i])
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				if (!WIFEXITED(st) || WEXITSTATUS(st)) {
					printf("UNEXPECTED: process %d ended with status 0x%x\n",
					       i, st);
					sh->unexpected++;
				}
				pids[i] = 0;
			} else {
				alive++;
			}
		}
		if (!alive)
			break;
		if (now_s() - last >= 10) {
			u64 n = 0;

			for (k = 0; k < OP_MAX; k++)
				for (e = 0; e < NERR; e++)
					n += sh->cnt[k][e];
			last = now_s();
			printf("  %.0fs: %llu operations, %llu unexpected\n", last - t0,
			       (unsigned long long)n, (unsigned long long)sh->unexpected);
		}
		if (now_s() - t0 > g_secs + 120) {
			FILE *f;
			char line[256];

			printf("HANG: %d processes still running %us after the end\n",
			       alive, 120);
			for (i = 0; i < g_procs; i++) {
				if (!pids[i])
					continue;
				printf("process %d (pid %d) kernel stack:\n", i, pids[i]);
				snprintf(p, sizeof(p), "/proc/%d/stack", pids[i]);
				f = fopen(p, "r");
				while (f && fgets(line, sizeof(line), f))
					printf("  %s", line);
				if (f)
					fclose(f);
			}
			f = fopen("/proc/sysrq-trigger", "w");
			if (f) {
				fputs("w", f);
				fclose(f);
			}
			if (kfd >= 0)
				kmsg_bad(kfd);
			return 3;
		}
		usleep(200000);
	}
	printf("nova_stress: finished in %.1fs\n", now_s() - t0);
	printf("%-14s %10s  errors\n", "operation", "total");
	for (k = 0; k < OP_MAX; k++) {
		char line[1024];
		size_t l = 0;
		u64 tot = 0;

		for (e = 0; e < NERR; e++) {
			if (!sh->cnt[k][e])
				continue;
			tot += sh->cnt[k][e];
			if (e)
				l += snprintf(line + l, sizeof(line) - l, " %s%s:%llu",
					      expected(k, e) ? "" : "!", ename(e),
					      (unsigned long long)sh->cnt[k][e]);
			if (l >= sizeof(line))
				l = sizeof(line) - 1;
		}
		line[l] = 0;
		total += tot;
		printf("%-14s %10llu %s\n", op_name[k], (unsigned long long)tot, line);
	}
	printf("total operations: %llu, SIGBUS from truncation races: %llu, private data mismatches: %llu, unexpected errors: %llu\n",
	       (unsigned long long)total, (unsigned long long)sh->sigbus,
	       (unsigned long long)sh->corrupt, (unsigned long long)sh->unexpected);
	if (sh->unexpected)
		result = 1;
	if (kfd >= 0 && kmsg_bad(kfd)) {
		printf("kernel log has error/report lines (above)\n");
		result = 2;
	}
	return result;
}
