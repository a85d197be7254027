// SPDX-License-Identifier: GPL-2.0
/*
 * nova-fsctl: small guest-side helper for the tests.
 *
 *   nova-fsctl getlabel PATH          print the file system label
 *   nova-fsctl setlabel PATH LABEL    set it (FS_IOC_SETFSLABEL)
 *   nova-fsctl statfs PATH            print statfs fields, one per line
 *   nova-fsctl exchange PATH1 PATH2   renameat2(RENAME_EXCHANGE)
 *   nova-fsctl keepsize PATH OFF LEN  fallocate(FALLOC_FL_KEEP_SIZE)
 *   nova-fsctl punch PATH OFF LEN     fallocate(PUNCH_HOLE | KEEP_SIZE)
 *   nova-fsctl zero PATH OFF LEN      fallocate(FALLOC_FL_ZERO_RANGE)
 *   nova-fsctl collapse|insert PATH OFF LEN
 *                                     fallocate(COLLAPSE_RANGE, INSERT_RANGE)
 *   nova-fsctl deaddir DIR MNT        open DIR, rmdir it, then through the
 *                                     descriptor fchmod, fsetxattr user.k
 *                                     and fchown; then shut MNT down
 *                                     (NOLOGFLUSH) with DIR still open: the
 *                                     next mount recovers a removed
 *                                     directory whose last entries are not
 *                                     its removal
 *   nova-fsctl linkfull FILE DIR      on a full device: link FILE into DIR
 *                                     under new names until one fails
 *                                     (ENOSPC: the directory's log needs a
 *                                     page), 20 ms apart; then the failed
 *                                     link must have left DIR's mtime and
 *                                     ctime and FILE's ctime as they were
 *                                     (prints "links=N times kept", exit 1
 *                                     otherwise)
 *   nova-fsctl sparsefill FILE N      write pages 0, 2, 4, ... 2N-2 of FILE
 *                                     (4 KiB each, byte k of page p is
 *                                     (p + k) & 0xff): N extents
 *   nova-fsctl suidgc FILE N          N times: make FILE set-user-ID, store
 *                                     into a hole through a shared mapping
 *                                     (a fault that logs a block), punch
 *                                     the page again (fallocate must drop
 *                                     set-user-ID first: a setattr that may
 *                                     run a GC); run as the file's owner
 *                                     without CAP_FSETID
 *   nova-fsctl dax PATH [+|-]         print "xflag=0|1 statx=0|1"
 *                                     (FS_XFLAG_DAX, STATX_ATTR_DAX); with
 *                                     + or -: set or clear FS_XFLAG_DAX
 *                                     (FS_IOC_FSSETXATTR, as xfs_io chattr)
 *   nova-fsctl proj PATH [ID [+|-]]   print "projid=N inherit=0|1" (the
 *                                     project ID and FS_XFLAG_PROJINHERIT);
 *                                     with ID: set the project ID, and with
 *                                     + or - also set or clear PROJINHERIT
 *                                     (FS_IOC_FSSETXATTR, as xfs_io chproj
 *                                     and chattr +P)
 *   nova-fsctl nocow PATH [+|-]       print "nocow=0|1" (FS_NOCOW_FL); with
 *                                     + or -: set or clear it (chattr +C)
 *   nova-fsctl casefold PATH [+|-]    the same for FS_CASEFOLD_FL (chattr +F)
 *   nova-fsctl freeze|thaw PATH       FIFREEZE, FITHAW
 *   nova-fsctl uuid PATH              print the UUID FS_IOC_GETFSUUID gives
 *                                     (Linux 6.10 and later)
 *   nova-fsctl remount PATH DATA      mount(2) MS_REMOUNT with DATA alone
 *                                     (busybox and util-linux merge in the
 *                                     options of /proc/mounts)
 *   nova-fsctl shutdown PATH FLAGS    FS_IOC_SHUTDOWN (0 default, 1 logflush,
 *                                     2 nologflush)
 *   nova-fsctl readnoatime PATH       read a file (list a directory) through
 *                                     a descriptor opened with O_NOATIME
 *   nova-fsctl readfsync PATH N       N times: read the file (list the
 *                                     directory), fsync it, sleep 10 ms (a
 *                                     new atime each time with strictatime)
 *   nova-fsctl pmdstore FILE [PRE]    FILE made 4 MiB long (ftruncate; with
 *                                     PRE, pages [0, PRE) preallocated
 *                                     first, fallocate), mapped whole
 *                                     MAP_SHARED, one byte stored at
 *                                     1 MiB + 8 (PRE: in page PRE / 2),
 *                                     unmapped; prints "aligned=0|1
 *                                     blocks=N data=OFF" (the mapping's
 *                                     address 2 MiB-aligned, st_blocks,
 *                                     lseek(SEEK_DATA, 0))
 *   nova-fsctl syncwrite FILE HOW OFF LEN
 *                                     write LEN bytes at OFF: HOW osync
 *                                     (O_SYNC), odsync (O_DSYNC), rwfsync,
 *                                     rwfdsync (pwritev2 RWF_SYNC,
 *                                     RWF_DSYNC) or plain; prints what
 *                                     "times" prints after it
 *   nova-fsctl times PATH             print "mtime=S.N ctime=S.N"
 *   nova-fsctl nowait FILE [direct]   pwritev2(RWF_NOWAIT) 4 KiB of 'N' at 0,
 *                                     then preadv2(RWF_NOWAIT) 4 KiB at 0
 *                                     (direct: opened O_DIRECT): prints
 *                                     "write=N read=N" (an errno's name for
 *                                     a failed call) and " same=0|1" when
 *                                     both worked
 *   nova-fsctl handle save PATH FILE  name_to_handle_at(PATH) into FILE
 *   nova-fsctl handle open MNT FILE   open_by_handle_at() of FILE's handle
 *                                     on the file system of MNT, read-only;
 *                                     a failure prints the errno's name
 *                                     (ESTALE, EUCLEAN, ...) alone
 *
 * Exit status 0 on success; on failure prints the errno name and exits
 * with 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/fs.h>
#include "tutil.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int fail(const char *what)
{
	int e = errno;

	printf("error %s: %s (errno %d)\n", what, strerror(e), e);
	return 1;
}

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

/* FS_XFLAG_DAX and STATX_ATTR_DAX of @path; @how "+"/"-": set/clear it */
static int dax_flag(const char *path, const char *how)
{
	struct fsxattr fa;
	struct statx stx;
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return fail("open");
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa))
		return fail("FS_IOC_FSGETXATTR");
	if (how) {
		if (strcmp(how, "+") && strcmp(how, "-")) {
			fprintf(stderr, "nova-fsctl dax: + or -, not %s\n", how);
			return 2;
		}
		if (*how == '+')
			fa.fsx_xflags |= FS_XFLAG_DAX;
		else
			fa.fsx_xflags &= ~FS_XFLAG_DAX;
		if (ioctl(fd, FS_IOC_FSSETXATTR, &fa))
			return fail("FS_IOC_FSSETXATTR");
		close(fd);
		return 0;
	}
	if (syscall(SYS_statx, AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx))
		return fail("statx");
	printf("xflag=%d statx=%d\n", !!(fa.fsx_xflags & FS_XFLAG_DAX),
	       !!(stx.stx_attributes & STATX_ATTR_DAX));
	close(fd);
	return 0;
}

/* The project ID of @path; @id: set it, @how "+"/"-": and PROJINHERIT */
static int proj(const char *path, const char *id, const char *how)
{
	struct fsxattr fa;
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return fail("open");
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa))
		return fail("FS_IOC_FSGETXATTR");
	if (id) {
		fa.fsx_projid = strtoul(id, NULL, 0);
		if (how && !strcmp(how, "+"))
			fa.fsx_xflags |= FS_XFLAG_PROJINHERIT;
		else if (how && !strcmp(how, "-"))
			fa.fsx_xflags &= ~FS_XFLAG_PROJINHERIT;
		else if (how) {
			fprintf(stderr, "nova-fsctl proj: + or -, not %s\n", how);
			return 2;
		}
		if (ioctl(fd, FS_IOC_FSSETXATTR, &fa))
			return fail("FS_IOC_FSSETXATTR");
		close(fd);
		return 0;
	}
	printf("projid=%u inherit=%d\n", fa.fsx_projid,
	       !!(fa.fsx_xflags & FS_XFLAG_PROJINHERIT));
	close(fd);
	return 0;
}

#ifndef FS_NOCOW_FL
#define FS_NOCOW_FL 0x00800000
#endif
#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

/* Inode flag @bit (@name) of @path; @how "+"/"-": set/clear it */
static int inode_flag(const char *path, const char *how, int bit,
		      const char *name)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK), flags;

	if (fd < 0)
		return fail("open");
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return fail("FS_IOC_GETFLAGS");
	if (how) {
		if (strcmp(how, "+") && strcmp(how, "-")) {
			fprintf(stderr, "nova-fsctl %s: + or -, not %s\n", name,
				how);
			return 2;
		}
		if (*how == '+')
			flags |= bit;
		else
			flags &= ~bit;
		if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
			return fail("FS_IOC_SETFLAGS");
	} else {
		printf("%s=%d\n", name, !!(flags & bit));
	}
	close(fd);
	return 0;
}

/* suidgc: fallocate on a set-user-ID file whose log wants a GC */
static int suid_gc(const char *file, long n)
{
	const long pages = 64;
	struct stat st;
	char *p;
	long i;
	int fd = open(file, O_RDWR | O_CREAT, 0755);

	if (fd < 0)
		return fail("open");
	if (ftruncate(fd, pages * 4096))
		return fail("ftruncate");
	p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	for (i = 0; i < n; i++) {
		long pg = i % pages;

		if (fchmod(fd, 04755))
			return fail("fchmod");
		p[pg * 4096] = 1;
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      pg * 4096, 4096))
			return fail("fallocate");
		if (fstat(fd, &st))
			return fail("fstat");
		if (st.st_mode & S_ISUID) {
			printf("iteration %ld: still set-user-ID after fallocate\n", i);
			return 1;
		}
	}
	munmap(p, pages * 4096);
	close(fd);
	printf("suidgc: %ld iterations\n", n);
	return 0;
}

/* sparsefill: every other page written, N extents with holes between */
static int sparse_fill(const char *file, long n)
{
	unsigned char buf[4096];
	int fd = open(file, O_WRONLY | O_CREAT, 0644);
	long i;
	int k;

	if (fd < 0)
		return fail("open");
	for (i = 0; i < n; i++) {
		for (k = 0; k < 4096; k++)
			buf[k] = (unsigned char)(2 * i + k);
		if (pwrite(fd, buf, sizeof(buf), 2 * i * 4096) != sizeof(buf))
			return fail("pwrite");
	}
	close(fd);
	return 0;
}

static int same_ts(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* linkfull: a link that fails for want of space changes no time */
static int link_full(const char *file, const char *dir)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	struct stat d0, f0, d1, f1;
	char name[PATH_MAX];
	int n;

	for (n = 0; n < 100000; n++) {
		if (stat(dir, &d0) || stat(file, &f0))
			return fail("stat");
		nanosleep(&pause, NULL);
		snprintf(name, sizeof(name), "%s/l%d", dir, n);
		if (!link(file, name))
			continue;
		if (errno != ENOSPC)
			return fail("link");
		if (stat(dir, &d1) || stat(file, &f1))
			return fail("stat");
		if (!same_ts(&d0.st_mtim, &d1.st_mtim) ||
		    !same_ts(&d0.st_ctim, &d1.st_ctim) ||
		    !same_ts(&f0.st_ctim, &f1.st_ctim) ||
		    d0.st_nlink != d1.st_nlink || f0.st_nlink != f1.st_nlink) {
			printf("links=%d failed link (ENOSPC) changed times or link counts:"
			       " dir mtime %ld.%09ld -> %ld.%09ld, ctime %ld.%09ld -> %ld.%09ld;"
			       " file ctime %ld.%09ld -> %ld.%09ld, nlink %lu -> %lu\n", n,
			       (long)d0.st_mtim.tv_sec, d0.st_mtim.tv_nsec,
			       (long)d1.st_mtim.tv_sec, d1.st_mtim.tv_nsec,
			       (long)d0.st_ctim.tv_sec, d0.st_ctim.tv_nsec,
			       (long)d1.st_ctim.tv_sec, d1.st_ctim.tv_nsec,
			       (long)f0.st_ctim.tv_sec, f0.st_ctim.tv_nsec,
			       (long)f1.st_ctim.tv_sec, f1.st_ctim.tv_nsec,
			       (unsigned long)f0.st_nlink, (unsigned long)f1.st_nlink);
			return 1;
		}
		printf("links=%d times kept\n", n);
		return 0;
	}
	printf("links=%d: no link failed\n", n);
	return 1;
}

/* deaddir: changes to a removed directory through its descriptor, then a shutdown */
static int dead_dir(const char *dir, const char *mnt)
{
	unsigned int flags = 2;	/* FS_SHUTDOWN_FLAGS_NOLOGFLUSH */
	int fd = open(dir, O_RDONLY | O_DIRECTORY), m;

	if (fd < 0)
		return fail("open");
	if (rmdir(dir))
		return fail("rmdir");
	if (fchmod(fd, 0700))
		return fail("fchmod");
	if (fsetxattr(fd, "user.k", "v", 1, 0))
		return fail("fsetxattr");
	if (fchown(fd, 1, 1))
		return fail("fchown");
	m = open(mnt, O_RDONLY | O_DIRECTORY);
	if (m < 0)
		return fail("open mount point");
	if (ioctl(m, _IOR('X', 125, unsigned int), &flags))
		return fail("FS_IOC_SHUTDOWN");
	close(m);
	close(fd);
	return 0;
}

/* Read @path (list it if a directory) @n times, fsync after each if @sync */
static int read_times(const char *path, int flags, long n, int sync)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	char buf[4096];
	struct stat st;
	long i;
	int fd;

	fd = open(path, O_RDONLY | flags);
	if (fd < 0)
		return fail("open");
	if (fstat(fd, &st))
		return fail("fstat");
	for (i = 0; i < n; i++) {
		ssize_t got;

		if (S_ISDIR(st.st_mode)) {
			if (lseek(fd, 0, SEEK_SET) < 0)
				return fail("lseek");
			got = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		} else {
			got = pread(fd, buf, sizeof(buf), 0);
		}
		if (got < 0)
			return fail("read");
		if (sync && fsync(fd))
			return fail("fsync");
		if (i + 1 < n)
			nanosleep(&pause, NULL);
	}
	close(fd);
	return 0;
}

/* ioctl @req (named @name) on the file system of @fd */
static int fs_ioctl(int fd, unsigned long req, void *arg, const char *name)
{
	if (ioctl(fd, req, arg))
		return fail(name);
	return 0;
}

/* "mtime=S.N ctime=S.N" of @st */
static void print_times(const struct stat *st)
{
	printf("mtime=%lld.%09ld ctime=%lld.%09ld\n",
	       (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
	       (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

#ifndef RWF_DSYNC
#define RWF_DSYNC 0x00000002
#endif
#ifndef RWF_SYNC
#define RWF_SYNC 0x00000004
#endif

/* syncwrite: LEN bytes at OFF through a synchronous write of kind @how */
static int sync_write(const char *file, const char *how, off_t off, size_t len)
{
	int oflags = O_WRONLY, rwf = 0, fd;
	struct iovec iov;
	struct stat st;
	char *buf;

	if (!strcmp(how, "osync"))
		oflags |= O_SYNC;
	else if (!strcmp(how, "odsync"))
		oflags |= O_DSYNC;
	else if (!strcmp(how, "rwfsync"))
		rwf = RWF_SYNC;
	else if (!strcmp(how, "rwfdsync"))
		rwf = RWF_DSYNC;
	else if (strcmp(how, "plain")) {
		fprintf(stderr, "nova-fsctl syncwrite: osync, odsync, rwfsync, rwfdsync or plain, not %s\n",
			how);
		return 2;
	}
	buf = malloc(len ? len : 1);
	if (!buf)
		return fail("malloc");
	memset(buf, 'S', len);
	fd = open(file, oflags);
	if (fd < 0)
		return fail("open");
	iov.iov_base = buf;
	iov.iov_len = len;
	if (pwritev2(fd, &iov, 1, off, rwf) != (ssize_t)len)
		return fail("pwritev2");
	if (fstat(fd, &st))
		return fail("fstat");
	print_times(&st);
	close(fd);
	free(buf);
	return 0;
}

/* pmdstore: one byte stored into a hole of a 2 MiB-aligned shared mapping */
static int pmd_store(const char *file, long pre)
{
	const size_t len = 4 << 20;
	size_t at = pre ? (size_t)pre / 2 * 4096 + 8 : (1 << 20) + 8;
	struct stat st;
	off_t data;
	char *p;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return fail("open");
	if (pre && fallocate(fd, 0, 0, pre * 4096))
		return fail("fallocate");
	if (ftruncate(fd, len))
		return fail("ftruncate");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	p[at] = 1;
	if (munmap(p, len))
		return fail("munmap");
	if (fstat(fd, &st))
		return fail("fstat");
	data = lseek(fd, 0, SEEK_DATA);
	if (data < 0)
		return fail("lseek(SEEK_DATA)");
	printf("aligned=%d blocks=%lld data=%lld\n",
	       !((unsigned long)p & ((2 << 20) - 1)), (long long)st.st_blocks,
	       (long long)data);
	close(fd);
	return 0;
}

/* nowait FILE [direct]: RWF_NOWAIT write and read of 4 KiB at 0 */
static int nowait(const char *file, int direct)
{
	static char w[4096] __attribute__((aligned(4096)));
	static char r[4096] __attribute__((aligned(4096)));
	struct iovec iov = { .iov_base = w, .iov_len = sizeof(w) };
	ssize_t wn, rn;
	int fd = open(file, O_RDWR | (direct ? O_DIRECT : 0));

	if (fd < 0)
		return fail("open");
	memset(w, 'N', sizeof(w));
	wn = pwritev2(fd, &iov, 1, 0, RWF_NOWAIT);
	if (wn < 0)
		printf("write=%s ", errname(errno));
	else
		printf("write=%zd ", wn);
	iov.iov_base = r;
	rn = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	if (rn < 0)
		printf("read=%s\n", errname(errno));
	else if (wn < 0)
		printf("read=%zd\n", rn);
	else
		printf("read=%zd same=%d\n", rn, !memcmp(w, r, sizeof(w)));
	close(fd);
	return wn < 0 || rn < 0;
}

/* handle save PATH FILE, handle open MNT FILE */
static int handle(const char *how, const char *path, const char *file)
{
	struct {
		struct file_handle fh;
		unsigned char buf[MAX_HANDLE_SZ];
	} h;
	int fd, mnt_id, mfd;
	FILE *f;

	if (!strcmp(how, "save")) {
		h.fh.handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt_id, 0))
			return fail("name_to_handle_at");
		f = fopen(file, "w");
		if (!f || fwrite(&h, sizeof(h.fh) + h.fh.handle_bytes, 1, f) != 1 ||
		    fclose(f))
			return fail("write the handle");
		return 0;
	}
	f = fopen(file, "r");
	if (!f || fread(&h.fh, sizeof(h.fh), 1, f) != 1 ||
	    h.fh.handle_bytes > MAX_HANDLE_SZ ||
	    fread(h.buf, 1, h.fh.handle_bytes, f) != h.fh.handle_bytes)
		return fail("read the handle");
	fclose(f);
	mfd = open(path, O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		return fail("open the mount point");
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	if (fd < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	close(fd);
	close(mfd);
	return 0;
}

int main(int argc, char **argv)
{
	char label[FSLABEL_MAX];
	struct statfs st;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: nova-fsctl getlabel|setlabel|statfs PATH [LABEL]\n"
			"       nova-fsctl exchange PATH1 PATH2\n"
			"       nova-fsctl keepsize|punch|zero|collapse|insert PATH OFF LEN\n"
			"       nova-fsctl dax PATH [+|-]\n"
			"       nova-fsctl nocow|casefold PATH [+|-]\n"
			"       nova-fsctl proj PATH [ID [+|-]]\n"
			"       nova-fsctl deaddir DIR MNT\n"
			"       nova-fsctl linkfull FILE DIR\n"
			"       nova-fsctl sparsefill FILE N\n"
			"       nova-fsctl suidgc FILE N\n"
			"       nova-fsctl freeze|thaw PATH\n"
			"       nova-fsctl uuid PATH\n"
			"       nova-fsctl shutdown PATH FLAGS\n"
			"       nova-fsctl readnoatime PATH\n"
			"       nova-fsctl readfsync PATH N\n"
			"       nova-fsctl pmdstore FILE [PRE]\n"
			"       nova-fsctl syncwrite FILE HOW OFF LEN\n"
			"       nova-fsctl times PATH\n"
			"       nova-fsctl nowait FILE [direct]\n"
			"       nova-fsctl handle save|open PATH|MNT FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "pmdstore") && (argc == 3 || argc == 4))
		return pmd_store(argv[2], argc == 4 ? strtol(argv[3], NULL, 0) : 0);
	if (!strcmp(argv[1], "syncwrite") && argc == 6)
		return sync_write(argv[2], argv[3], strtoll(argv[4], NULL, 0),
				  strtoul(argv[5], NULL, 0));
	if (!strcmp(argv[1], "nowait") && (argc == 3 ||
	    (argc == 4 && !strcmp(argv[3], "direct"))))
		return nowait(argv[2], argc == 4);
	if (!strcmp(argv[1], "handle") && argc == 5)
		return handle(argv[2], argv[3], argv[4]);
	if (!strcmp(argv[1], "times") && argc == 3) {
		struct stat ts;

		if (stat(argv[2], &ts))
			return fail("stat");
		print_times(&ts);
		return 0;
	}
	if (!strcmp(argv[1], "readnoatime") && argc == 3)
		return read_times(argv[2], O_NOATIME, 1, 0);
	if (!strcmp(argv[1], "readfsync") && argc == 4)
		return read_times(argv[2], 0, strtol(argv[3], NULL, 0), 1);
	if (!strcmp(argv[1], "exchange") && argc == 4) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3],
			    RENAME_EXCHANGE))
			return fail("renameat2(RENAME_EXCHANGE)");
		return 0;
	}
	if (!strcmp(argv[1], "suidgc") && argc == 4)
		return suid_gc(argv[2], strtol(argv[3], NULL, 0));
	if (!strcmp(argv[1], "sparsefill") && argc == 4)
		return sparse_fill(argv[2], strtol(argv[3], NULL, 0));
	if (!strcmp(argv[1], "linkfull") && argc == 4)
		return link_full(argv[2], argv[3]);
	if (!strcmp(argv[1], "deaddir") && argc == 4)
		return dead_dir(argv[2], argv[3]);
	if (!strcmp(argv[1], "remount") && argc == 4) {
		if (mount("none", argv[2], NULL, MS_REMOUNT, argv[3]))
			return fail("mount MS_REMOUNT");
		return 0;
	}
	if (!strcmp(argv[1], "dax") && (argc == 3 || argc == 4))
		return dax_flag(argv[2], argc == 4 ? argv[3] : NULL);
	if (!strcmp(argv[1], "proj") && argc >= 3 && argc <= 5)
		return proj(argv[2], argc >= 4 ? argv[3] : NULL,
			    argc == 5 ? argv[4] : NULL);
	if (!strcmp(argv[1], "nocow") && (argc == 3 || argc == 4))
		return inode_flag(argv[2], argc == 4 ? argv[3] : NULL,
				  FS_NOCOW_FL, "nocow");
	if (!strcmp(argv[1], "casefold") && (argc == 3 || argc == 4))
		return inode_flag(argv[2], argc == 4 ? argv[3] : NULL,
				  FS_CASEFOLD_FL, "casefold");
	if ((!strcmp(argv[1], "keepsize") || !strcmp(argv[1], "punch") ||
	     !strcmp(argv[1], "zero") || !strcmp(argv[1], "collapse") ||
	     !strcmp(argv[1], "insert")) && argc == 5) {
		int mode = FALLOC_FL_KEEP_SIZE;

		if (!strcmp(argv[1], "punch"))
			mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
		else if (!strcmp(argv[1], "zero"))
			mode = FALLOC_FL_ZERO_RANGE;
		else if (!strcmp(argv[1], "collapse"))
			mode = FALLOC_FL_COLLAPSE_RANGE;
		else if (!strcmp(argv[1], "insert"))
			mode = FALLOC_FL_INSERT_RANGE;
		fd = open(argv[2], O_WRONLY);
		if (fd < 0)
			return fail("open");
		if (fallocate(fd, mode, strtoll(argv[3], NULL, 0),
			      strtoll(argv[4], NULL, 0)))
			return fail("fallocate");
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "statfs")) {
		if (statfs(argv[2], &st))
			return fail("statfs");
		printf("type=0x%lx\nbsize=%ld\nblocks=%llu\nbfree=%llu\nbavail=%llu\nfiles=%llu\nffree=%llu\nnamelen=%ld\n",
		       (unsigned long)st.f_type, (long)st.f_bsize,
		       (unsigned long long)st.f_blocks,
		       (unsigned long long)st.f_bfree,
		       (unsigned long long)st.f_bavail,
		       (unsigned long long)st.f_files,
		       (unsigned long long)st.f_ffree, (long)st.f_namelen);
		return 0;
	}
	fd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fail("open");
	if (!strcmp(argv[1], "getlabel")) {
		memset(label, 0, sizeof(label));
		if (ioctl(fd, FS_IOC_GETFSLABEL, label))
			return fail("FS_IOC_GETFSLABEL");
		printf("%s\n", label);
		return 0;
	}
	if (!strcmp(argv[1], "setlabel") && argc == 4) {
		memset(label, 0, sizeof(label));
		strncpy(label, argv[3], sizeof(label) - 1);
		return fs_ioctl(fd, FS_IOC_SETFSLABEL, label, "FS_IOC_SETFSLABEL");
	}
	if (!strcmp(argv[1], "freeze"))
		return fs_ioctl(fd, FIFREEZE, NULL, "FIFREEZE");
	if (!strcmp(argv[1], "shutdown") && argc == 4) {
		unsigned int flags = strtoul(argv[3], NULL, 0);

		return fs_ioctl(fd, _IOR('X', 125, unsigned int), &flags,
				"FS_IOC_SHUTDOWN");
	}
	if (!strcmp(argv[1], "thaw"))
		return fs_ioctl(fd, FITHAW, NULL, "FITHAW");
	if (!strcmp(argv[1], "uuid")) {
		/* struct fsuuid2 of <linux/fs.h> (6.10) */
		struct {
			unsigned char len;
			unsigned char uuid[16];
		} u = { 0 };
		const unsigned char *b = u.uuid;

		if (ioctl(fd, _IOR(0x15, 0, u), &u))
			return fail("FS_IOC_GETFSUUID");
		if (u.len != 16) {
			printf("error FS_IOC_GETFSUUID: length %u\n", u.len);
			return 1;
		}
		printf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
		       b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8],
		       b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
		return 0;
	}
	fprintf(stderr, "unknown command %s\n", argv[1]);
	return 2;
}
