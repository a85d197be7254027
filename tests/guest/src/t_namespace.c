// SPDX-License-Identifier: GPL-2.0
/*
 * t_namespace: POSIX namespace and metadata conformance tests.
 *
 *   t_namespace DIR            run every case, each in DIR/<case-name>
 *   t_namespace DIR CASE...    run only the named cases
 *   t_namespace --list         print the case names, one a line
 *
 * DIR must be an (empty) directory on the file system under test and the
 * program must run as root. For every case it prints exactly one line,
 * "PASS <case>" or "FAIL <case>: line N: <what, expected vs got>", plus
 * optional "INFO <case>: ..." lines; then "t_namespace: N passed, N failed".
 * Exit status: 0 when every case passed, 1 when one failed, 2 on usage
 * errors.
 *
 * Each case runs with its own fresh directory as the working directory and
 * umask 0, and uses relative paths only. A passing case's directory is
 * removed; a failing case's directory is kept (with append-only/immutable
 * flags cleared) for inspection.
 *
 * The program only does metadata operations: it never writes file data
 * (ENOSPC and data tests are elsewhere).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include "tcase.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void info(const char *fmt, ...)
{
	va_list ap;

	printf("INFO %s: ", g_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void eqo_at(long long got, long long want, int line, const char *eg,
		   const char *ew)
{
	if (got != want)
		fail_at(line, "%s: expected 0%llo (%s), got 0%llo", eg, want, ew,
			got);
}
#define CHECK_MODE(got, want) \
	eqo_at((long long)(got), (long long)(want), __LINE__, #got, #want)

static void streq_at(const char *got, const char *want, int line,
		     const char *eg)
{
	if ((got == NULL) != (want == NULL) ||
	    (got && strcmp(got, want)))
		fail_at(line, "%s: expected '%s', got '%s'", eg,
			want ? want : "(none)", got ? got : "(none)");
}
#define CHECK_STR(got, want) streq_at((got), (want), __LINE__, #got)

/* ------------------------------------------------------------------ */
/* File system helpers                                                 */
/* ------------------------------------------------------------------ */

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "regular file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case S_IFIFO: return "fifo";
	case S_IFCHR: return "char device";
	case S_IFBLK: return "block device";
	case S_IFSOCK: return "socket";
	}
	return "unknown type";
}

static struct stat lst_at(const char *p, int line)
{
	struct stat st;

	if (lstat(p, &st))
		fail_at(line, "lstat(%s): expected success, got %s", p,
			errname(errno));
	return st;
}
#define LST(p) lst_at((p), __LINE__)

static struct stat st_at(const char *p, int line)
{
	struct stat st;

	if (stat(p, &st))
		fail_at(line, "stat(%s): expected success, got %s", p,
			errname(errno));
	return st;
}
#define STT(p) st_at((p), __LINE__)

static struct stat fst_at(int fd, int line)
{
	struct stat st;

	if (fstat(fd, &st))
		fail_at(line, "fstat(%d): expected success, got %s", fd,
			errname(errno));
	return st;
}
#define FST(fd) fst_at((fd), __LINE__)

#define INO(p) (lst_at((p), __LINE__).st_ino)
#define NLINK(p) (lst_at((p), __LINE__).st_nlink)

static void absent_at(const char *p, int line)
{
	struct stat st;

	if (lstat(p, &st) == 0)
		fail_at(line, "%s exists (%s, ino %llu), expected it gone (ENOENT)",
			p, type_name(st.st_mode),
			(unsigned long long)st.st_ino);
	if (errno != ENOENT)
		fail_at(line, "lstat(%s): expected ENOENT, got %s", p,
			errname(errno));
}
#define ABSENT(p) absent_at((p), __LINE__)

static void type_at(const char *p, mode_t type, int line)
{
	struct stat st = lst_at(p, line);

	if ((st.st_mode & S_IFMT) != type)
		fail_at(line, "%s: expected %s, got %s (mode 0%o)", p,
			type_name(type), type_name(st.st_mode),
			(unsigned)st.st_mode);
}
#define CHECK_TYPE(p, t) type_at((p), (t), __LINE__)

static void mkfile_at(const char *p, mode_t mode, int line)
{
	int fd = open(p, O_CREAT | O_EXCL | O_RDONLY, mode);

	if (fd < 0)
		fail_at(line, "create %s: expected success, got %s", p,
			errname(errno));
	close(fd);
}
#define MKFILE(p, m) mkfile_at((p), (m), __LINE__)
#define MKDIR(p, m) OK(mkdir((p), (m)))

static long rn2(const char *from, const char *to, unsigned int flags)
{
	return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

struct ldirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static long gd64(int fd, void *buf, size_t n)
{
	return syscall(SYS_getdents64, fd, buf, n);
}

static void tick(void)
{
	/* long enough for a coarse (jiffy-based) clock to advance */
	struct timespec d = { 0, 30 * 1000 * 1000 };

	nanosleep(&d, NULL);
}

static struct timespec now_rt(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t;
}

static long long tsns(struct timespec t)
{
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void ts_eq_at(struct timespec got, struct timespec want, int line,
		     const char *eg)
{
	if (got.tv_sec != want.tv_sec || got.tv_nsec != want.tv_nsec)
		fail_at(line, "%s: expected %lld.%09ld, got %lld.%09ld", eg,
			(long long)want.tv_sec, want.tv_nsec,
			(long long)got.tv_sec, got.tv_nsec);
}
#define CHECK_TS_EQ(got, want) ts_eq_at((got), (want), __LINE__, #got)

static void ts_later_at(struct timespec after, struct timespec before,
			int line, const char *ea)
{
	if (tsns(after) <= tsns(before))
		fail_at(line, "%s: expected it to advance past %lld.%09ld, got %lld.%09ld",
			ea, (long long)before.tv_sec, before.tv_nsec,
			(long long)after.tv_sec, after.tv_nsec);
}
#define CHECK_TS_LATER(after, before) \
	ts_later_at((after), (before), __LINE__, #after)

static void ts_near_now_at(struct timespec t, int line, const char *e)
{
	long long d = tsns(t) - tsns(now_rt());

	if (d < -1000000000LL || d > 1000000000LL)
		fail_at(line, "%s = %lld.%09ld: expected within 1 s of now (off by %lld ns)",
			e, (long long)t.tv_sec, t.tv_nsec, d);
}
#define CHECK_TS_NOW(t) ts_near_now_at((t), __LINE__, #t)

/* --- directory listings ------------------------------------------- */

struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *ns, const char *s)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 64;
		ns->v = realloc(ns->v, ns->cap * sizeof(*ns->v));
		if (!ns->v)
			abort();
	}
	ns->v[ns->n] = strdup(s);
	if (!ns->v[ns->n])
		abort();
	ns->n++;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	ns->v = NULL;
	ns->n = ns->cap = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct names read_names_at(const char *path, int line)
{
	struct names ns = { 0 };
	struct dirent *de;
	DIR *d = opendir(path);

	if (!d)
		fail_at(line, "opendir(%s): %s", path, errname(errno));
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		names_add(&ns, de->d_name);
	}
	if (errno)
		fail_at(line, "readdir(%s): %s", path, errname(errno));
	closedir(d);
	return ns;
}

/*
 * The listing of path must be exactly ".", ".." and exp[0..nexp), each
 * name once.
 */
static void check_dir_at(const char *path, const char *const *exp,
			 size_t nexp, int line)
{
	struct names got = read_names_at(path, line);
	const char **want = malloc((nexp + 2) * sizeof(*want));
	char prob[1024] = "";
	size_t i = 0, j = 0, nw = nexp + 2, nprob = 0;
	int len = 0;

	if (!want)
		abort();
	want[0] = ".";
	want[1] = "..";
	for (size_t k = 0; k < nexp; k++)
		want[k + 2] = exp[k];
	qsort(want, nw, sizeof(*want), cmp_str);
	qsort(got.v, got.n, sizeof(*got.v), cmp_str);

#define PROB(...) do {							\
		if (nprob++ < 4 && len < (int)sizeof(prob) - 1)		\
			len += snprintf(prob + len, sizeof(prob) - len,	\
					__VA_ARGS__);			\
	} while (0)
	while (i < got.n || j < nw) {
		int c;

		if (i < got.n && i > 0 && !strcmp(got.v[i], got.v[i - 1])) {
			PROB(" duplicate '%s';", got.v[i]);
			i++;
			continue;
		}
		if (i >= got.n)
			c = 1;
		else if (j >= nw)
			c = -1;
		else
			c = strcmp(got.v[i], want[j]);
		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			PROB(" unexpected '%s';", got.v[i]);
			i++;
		} else {
			PROB(" missing '%s';", want[j]);
			j++;
		}
	}
#undef PROB
	if (nprob)
		fail_at(line, "readdir(%s): %zu entries, expected %zu;%s%s", path,
			got.n, nw, prob, nprob > 4 ? " ..." : "");
	names_free(&got);
	free(want);
}
#define CHECK_DIR(path, ...) do {					\
		const char *const _exp[] = { __VA_ARGS__ };		\
		check_dir_at((path), _exp, sizeof(_exp) / sizeof(_exp[0]), \
			     __LINE__);					\
	} while (0)
#define CHECK_DIR_EMPTY(path) check_dir_at((path), NULL, 0, __LINE__)

/* d_ino and d_type of name in the listing of dir (must be there once) */
static struct dirent dirent_of_at(const char *dir, const char *name, int line)
{
	struct dirent *de, res;
	DIR *d = opendir(dir);
	int found = 0;

	memset(&res, 0, sizeof(res));
	if (!d)
		fail_at(line, "opendir(%s): %s", dir, errname(errno));
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, name))
			continue;
		found++;
		res = *de;
	}
	closedir(d);
	if (found != 1)
		fail_at(line, "readdir(%s): '%s' listed %d times, expected once",
			dir, name, found);
	return res;
}
#define DIRENT(dir, name) dirent_of_at((dir), (name), __LINE__)

/* --- inode flags --------------------------------------------------- */

static int open_meta(const char *p, int line)
{
	int fd = open(p, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);

	if (fd < 0)
		fail_at(line, "open(%s, O_RDONLY): %s", p, errname(errno));
	return fd;
}

static int getflags_at(const char *p, int line)
{
	int fd = open_meta(p, line), fl = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl)) {
		int e = errno;

		close(fd);
		if (e == ENOTTY || e == EOPNOTSUPP || e == EINVAL)
			fail_at(line, "FS_IOC_GETFLAGS on %s: not supported by this file system (%s)",
				p, errname(e));
		fail_at(line, "FS_IOC_GETFLAGS on %s: %s", p, errname(e));
	}
	close(fd);
	return fl;
}
#define GETFLAGS(p) getflags_at((p), __LINE__)

static void setflags_at(const char *p, int fl, int line)
{
	int fd = open_meta(p, line);

	if (ioctl(fd, FS_IOC_SETFLAGS, &fl)) {
		int e = errno;

		close(fd);
		if (e == ENOTTY || e == EOPNOTSUPP)
			fail_at(line, "FS_IOC_SETFLAGS 0x%x on %s: not supported by this file system (%s)",
				fl, p, errname(e));
		fail_at(line, "FS_IOC_SETFLAGS 0x%x on %s: %s", fl, p,
			errname(e));
	}
	close(fd);
}
#define SETFLAGS(p, fl) setflags_at((p), (fl), __LINE__)

static unsigned int getversion_at(const char *p, int line)
{
	int fd = open_meta(p, line);
	long v = 0;

	if (ioctl(fd, FS_IOC_GETVERSION, &v)) {
		int e = errno;

		close(fd);
		if (e == ENOTTY || e == EOPNOTSUPP || e == EINVAL)
			fail_at(line, "FS_IOC_GETVERSION on %s: not supported by this file system (%s)",
				p, errname(e));
		fail_at(line, "FS_IOC_GETVERSION on %s: %s", p, errname(e));
	}
	close(fd);
	return (unsigned int)v;
}
#define GETVERSION(p) getversion_at((p), __LINE__)

/* statx attribute bit must match when the fs advertises it */
static void check_statx_attr_at(const char *p, uint64_t attr, int want,
				const char *aname, int line)
{
	struct statx sx;

	if (statx(AT_FDCWD, p, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx))
		fail_at(line, "statx(%s): %s", p, errname(errno));
	if (!(sx.stx_attributes_mask & attr)) {
		info("statx does not report %s (stx_attributes_mask 0x%llx)",
		     aname, (unsigned long long)sx.stx_attributes_mask);
		return;
	}
	if (!!(sx.stx_attributes & attr) != want)
		fail_at(line, "statx(%s): %s is %s, expected %s", p, aname,
			(sx.stx_attributes & attr) ? "set" : "clear",
			want ? "set" : "clear");
}
#define CHECK_STATX_ATTR(p, a, want) \
	check_statx_attr_at((p), (a), (want), #a, __LINE__)

/* --- running a function as another user ---------------------------- */

static void run_as_at(uid_t uid, gid_t gid, void (*fn)(void), int line)
{
	char buf[4096];
	size_t len = 0;
	ssize_t r;
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		fail_at(line, "pipe: %s", errname(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail_at(line, "fork: %s", errname(errno));
	if (pid == 0) {
		close(p[0]);
		g_in_child = 1;
		g_child_fd = p[1];
		OK(setgroups(0, NULL));
		OK(setresgid(gid, gid, gid));
		OK(setresuid(uid, uid, uid));
		CHECK_EQ(geteuid(), uid);
		CHECK_EQ(getegid(), gid);
		fn();
		_exit(0);
	}
	close(p[1]);
	while (len < sizeof(buf) - 1 &&
	       (r = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = 0;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		fail_at(line, "waitpid: %s", errname(errno));
	if (len)
		fail_at(line, "as uid %u: %s", (unsigned)uid, buf);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_at(line, "as uid %u: child ended with status 0x%x", (unsigned)uid,
			(unsigned)status);
}
#define RUN_AS(uid, gid, fn) run_as_at((uid), (gid), (fn), __LINE__)

/* ------------------------------------------------------------------ */
/* create / open                                                       */
/* ------------------------------------------------------------------ */

static void t_create_excl_new(void)
{
	int fd = (int)OK(open("f", O_CREAT | O_EXCL | O_RDWR, 0640));
	struct stat fst = FST(fd), st = LST("f");

	CHECK_EQ(st.st_ino, fst.st_ino);
	CHECK_MODE(st.st_mode, S_IFREG | 0640);
	CHECK_EQ(st.st_nlink, 1);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(st.st_uid, 0);
	CHECK_EQ(st.st_gid, 0);
	OK(close(fd));
	CHECK_DIR(".", "f");
}

static void t_create_excl_exists(void)
{
	ino_t ino;

	MKFILE("f", 0600);
	MKDIR("d", 0755);
	OK(symlink("f", "l"));
	ino = INO("f");
	ERR(open("f", O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
	ERR(open("d", O_CREAT | O_EXCL | O_RDONLY, 0644), EEXIST);
	ERR(open("l", O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
	CHECK_EQ(INO("f"), ino);
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0600);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_TYPE("l", S_IFLNK);
	CHECK_DIR(".", "f", "d", "l");
}

static void t_create_existing_noexcl(void)
{
	ino_t ino;
	int fd;

	MKFILE("f", 0600);
	ino = INO("f");
	fd = (int)OK(open("f", O_CREAT | O_RDWR, 0777));
	CHECK_EQ(FST(fd).st_ino, ino);
	OK(close(fd));
	/* O_CREAT on an existing file does not touch its mode */
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0600);
	CHECK_EQ(NLINK("f"), 1);
	CHECK_DIR(".", "f");
}

static void t_create_enoent_parent(void)
{
	ERR(open("nodir/f", O_CREAT | O_RDWR, 0644), ENOENT);
	ERR(mkdir("nodir/d", 0755), ENOENT);
	ERR(mknod("nodir/p", S_IFIFO | 0644, 0), ENOENT);
	ERR(symlink("x", "nodir/l"), ENOENT);
	ERR(open("", O_CREAT | O_RDWR, 0644), ENOENT);
	ABSENT("nodir");
	CHECK_DIR_EMPTY(".");
}

static void t_create_enotdir_component(void)
{
	struct stat st;

	MKFILE("f", 0644);
	ERR(open("f/x", O_CREAT | O_RDWR, 0644), ENOTDIR);
	ERR(stat("f/x", &st), ENOTDIR);
	ERR(mkdir("f/x", 0755), ENOTDIR);
	ERR(open("f/", O_RDONLY), ENOTDIR);
	ERR(lstat("f/", &st), ENOTDIR);
	ERR(symlink("t", "f/l"), ENOTDIR);
	CHECK_TYPE("f", S_IFREG);
	CHECK_DIR(".", "f");
}

static void t_create_trailing_slash(void)
{
	ERR(open("new/", O_CREAT | O_RDWR, 0644), EISDIR);
	ABSENT("new");
	/* mkdir accepts a trailing slash */
	OK(mkdir("nd/", 0755));
	CHECK_TYPE("nd", S_IFDIR);
	CHECK_DIR(".", "nd");
}

static void t_create_umask(void)
{
	umask(022);
	MKFILE("f", 0777);
	MKDIR("d", 0777);
	OK(mknod("p", S_IFIFO | 0666, 0));
	OK(symlink("f", "l"));
	umask(0);
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0755);
	CHECK_MODE(LST("d").st_mode, S_IFDIR | 0755);
	CHECK_MODE(LST("p").st_mode, S_IFIFO | 0644);
	CHECK_MODE(LST("l").st_mode, S_IFLNK | 0777);
}

static void t_create_in_deleted_dir(void)
{
	char buf[1024] __attribute__((aligned(8)));
	int dfd;

	MKDIR("d", 0755);
	dfd = (int)OK(open("d", O_RDONLY | O_DIRECTORY));
	OK(rmdir("d"));
	ABSENT("d");
	ERR(openat(dfd, "x", O_CREAT | O_RDWR, 0644), ENOENT);
	ERR(mkdirat(dfd, "y", 0755), ENOENT);
	ERR(symlinkat("t", dfd, "z"), ENOENT);
	CHECK_EQ(FST(dfd).st_nlink, 0);
	ERR(gd64(dfd, buf, sizeof(buf)), ENOENT);
	OK(close(dfd));
	CHECK_DIR_EMPTY(".");
}

static void t_create_excl_dangling_symlink(void)
{
	OK(symlink("target", "l"));
	ERR(open("l", O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
	ABSENT("target");
	CHECK_TYPE("l", S_IFLNK);
	CHECK_DIR(".", "l");
}

static void t_create_via_dangling_symlink(void)
{
	int fd;

	OK(symlink("target", "l"));
	fd = (int)OK(open("l", O_CREAT | O_RDWR, 0640));
	CHECK_MODE(LST("target").st_mode, S_IFREG | 0640);
	CHECK_EQ(FST(fd).st_ino, INO("target"));
	OK(close(fd));
	CHECK_TYPE("l", S_IFLNK);
	CHECK_EQ(STT("l").st_ino, INO("target"));
	CHECK_DIR(".", "l", "target");
}

static void t_open_dir_eisdir(void)
{
	int fd;

	MKDIR("d", 0755);
	ERR(open("d", O_WRONLY), EISDIR);
	ERR(open("d", O_RDWR), EISDIR);
	ERR(open("d", O_WRONLY | O_CREAT, 0644), EISDIR);
	ERR(open("d", O_RDONLY | O_CREAT, 0644), EISDIR);
	ERR(open("d", O_RDONLY | O_TRUNC), EISDIR);
	fd = (int)OK(open("d", O_RDONLY));
	CHECK_MODE(FST(fd).st_mode, S_IFDIR | 0755);
	OK(close(fd));
	CHECK_EQ(NLINK("d"), 2);
}

static void t_open_odirectory_file(void)
{
	int fd;

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	OK(mknod("p", S_IFIFO | 0644, 0));
	OK(symlink("f", "lf"));
	OK(symlink("d", "ld"));
	ERR(open("f", O_RDONLY | O_DIRECTORY), ENOTDIR);
	ERR(open("p", O_RDONLY | O_DIRECTORY | O_NONBLOCK), ENOTDIR);
	ERR(open("lf", O_RDONLY | O_DIRECTORY), ENOTDIR);
	fd = (int)OK(open("ld", O_RDONLY | O_DIRECTORY));
	CHECK_EQ(FST(fd).st_ino, INO("d"));
	OK(close(fd));
	/* O_NOFOLLOW on a symlink: ELOOP */
	ERR(open("lf", O_RDONLY | O_NOFOLLOW), ELOOP);
}

/* ------------------------------------------------------------------ */
/* mkdir / rmdir                                                       */
/* ------------------------------------------------------------------ */

static void t_mkdir_basic(void)
{
	nlink_t pn = NLINK(".");
	struct stat st;

	MKDIR("d", 0750);
	st = LST("d");
	CHECK_MODE(st.st_mode, S_IFDIR | 0750);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(st.st_uid, 0);
	CHECK_EQ(st.st_gid, 0);
	CHECK_EQ(NLINK("."), pn + 1);
	CHECK_EQ(INO("d/."), st.st_ino);
	CHECK_EQ(INO("d/.."), INO("."));
	CHECK_DIR_EMPTY("d");
	CHECK_DIR(".", "d");
}

static void t_mkdir_eexist(void)
{
	MKDIR("d", 0755);
	MKFILE("f", 0644);
	OK(symlink("d", "l"));
	OK(symlink("nowhere", "dl"));
	ERR(mkdir("d", 0755), EEXIST);
	ERR(mkdir("f", 0755), EEXIST);
	ERR(mkdir("l", 0755), EEXIST);
	ERR(mkdir("dl", 0755), EEXIST);	/* never follows the symlink */
	ERR(mkdir(".", 0755), EEXIST);
	ABSENT("nowhere");
	CHECK_TYPE("f", S_IFREG);
	CHECK_TYPE("dl", S_IFLNK);
	CHECK_EQ(NLINK("."), 3);
	CHECK_EQ(NLINK("d"), 2);
	CHECK_DIR(".", "d", "f", "l", "dl");
}

static void t_mkdir_enoent(void)
{
	ERR(mkdir("a/b", 0755), ENOENT);
	ERR(mkdir("a/b/c", 0755), ENOENT);
	ERR(mkdir("", 0755), ENOENT);
	ABSENT("a");
	CHECK_EQ(NLINK("."), 2);
	CHECK_DIR_EMPTY(".");
}

static void t_mkdir_parent_nlink(void)
{
	nlink_t pn = NLINK(".");
	char n[16];

	for (int i = 0; i < 5; i++) {
		snprintf(n, sizeof(n), "f%d", i);
		MKFILE(n, 0644);
	}
	OK(mknod("p", S_IFIFO | 0644, 0));
	OK(symlink("x", "l"));
	CHECK_EQ(NLINK("."), pn);	/* non-directories do not count */
	MKDIR("s1", 0755);
	MKDIR("s2", 0755);
	MKDIR("s3", 0755);
	CHECK_EQ(NLINK("."), pn + 3);
	MKDIR("s1/x", 0755);
	MKDIR("s1/y", 0755);
	CHECK_EQ(NLINK("."), pn + 3);
	CHECK_EQ(NLINK("s1"), 4);
	OK(rmdir("s1/x"));
	CHECK_EQ(NLINK("s1"), 3);
	OK(rmdir("s2"));
	CHECK_EQ(NLINK("."), pn + 2);
	CHECK_DIR("s1", "y");
}

static void t_mkdir_mode_bits(void)
{
	MKDIR("a", 0);
	MKDIR("b", 0700);
	MKDIR("c", 01777);
	MKDIR("d", 02755);	/* S_ISGID is not taken from mkdir's mode */
	MKDIR("e", 07777);
	CHECK_MODE(LST("a").st_mode, S_IFDIR | 0);
	CHECK_MODE(LST("b").st_mode, S_IFDIR | 0700);
	CHECK_MODE(LST("c").st_mode, S_IFDIR | 01777);
	CHECK_MODE(LST("d").st_mode, S_IFDIR | 0755);
	CHECK_MODE(LST("e").st_mode, S_IFDIR | 01777);
	/* root may still create inside a mode 0 directory */
	MKFILE("a/f", 0644);
	CHECK_DIR("a", "f");
}

#define DEEP 32

static void t_mkdir_deep(void)
{
	char path[DEEP * 2 + 8], up[DEEP * 2 + 8];
	size_t len = 0;

	for (int i = 0; i < DEEP; i++) {
		if (i)
			path[len++] = '/';
		path[len++] = 'd';
		path[len] = 0;
		MKDIR(path, 0755);
	}
	MKFILE("d/d/d/d/d/d/d/d/f", 0644);
	/* each level: nlink 3 (one subdir), the deepest 2; .. is the parent */
	for (int i = DEEP; i > 0; i--) {
		size_t l = (size_t)(2 * i - 1);
		ino_t parent_ino;

		memcpy(up, path, l);
		up[l] = 0;
		CHECK_EQ(NLINK(up), i == DEEP ? 2 : 3);
		if (i > 1) {
			char pp[DEEP * 2 + 8];

			memcpy(pp, path, l - 2);
			pp[l - 2] = 0;
			parent_ino = INO(pp);
		} else {
			parent_ino = INO(".");
		}
		strcat(up, "/..");
		CHECK_EQ(INO(up), parent_ino);
	}
	OK(unlink("d/d/d/d/d/d/d/d/f"));
	for (int i = DEEP; i > 0; i--) {
		path[2 * i - 1] = 0;
		OK(rmdir(path));
	}
	ABSENT("d");
	CHECK_EQ(NLINK("."), 2);
	CHECK_DIR_EMPTY(".");
}

static void t_rmdir_basic(void)
{
	char buf[1024] __attribute__((aligned(8)));
	nlink_t pn = NLINK(".");
	int fd;

	MKDIR("d", 0755);
	CHECK_EQ(NLINK("."), pn + 1);
	fd = (int)OK(open("d", O_RDONLY | O_DIRECTORY));
	OK(rmdir("d"));
	CHECK_EQ(NLINK("."), pn);
	ABSENT("d");
	CHECK_EQ(FST(fd).st_nlink, 0);
	CHECK_EQ(FST(fd).st_size, 0);	/* as ext4_rmdir() */
	ERR(gd64(fd, buf, sizeof(buf)), ENOENT);
	OK(close(fd));
	CHECK_DIR_EMPTY(".");
	MKDIR("d", 0700);
	CHECK_MODE(LST("d").st_mode, S_IFDIR | 0700);
	CHECK_DIR_EMPTY("d");
}

static void t_rmdir_enotempty(void)
{
	MKDIR("d", 0755);
	MKFILE("d/f", 0644);
	MKDIR("e", 0755);
	MKDIR("e/sub", 0755);
	MKDIR("g", 0755);
	OK(symlink("x", "g/l"));
	MKDIR("h", 0755);
	OK(mknod("h/p", S_IFIFO | 0600, 0));
	ERR(rmdir("d"), ENOTEMPTY);
	ERR(rmdir("e"), ENOTEMPTY);
	ERR(rmdir("g"), ENOTEMPTY);
	ERR(rmdir("h"), ENOTEMPTY);
	CHECK_DIR("d", "f");
	CHECK_DIR("e", "sub");
	CHECK_DIR("g", "l");
	CHECK_DIR("h", "p");
	CHECK_EQ(NLINK("e"), 3);
	CHECK_EQ(NLINK("."), 6);
}

static void t_rmdir_enotdir(void)
{
	MKFILE("f", 0644);
	MKDIR("d", 0755);
	OK(symlink("d", "l"));
	OK(mknod("p", S_IFIFO | 0644, 0));
	ERR(rmdir("f"), ENOTDIR);
	ERR(rmdir("l"), ENOTDIR);
	ERR(rmdir("p"), ENOTDIR);
	ERR(rmdir("f/x"), ENOTDIR);
	CHECK_TYPE("f", S_IFREG);
	CHECK_TYPE("l", S_IFLNK);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_DIR(".", "f", "d", "l", "p");
}

static void t_rmdir_dot(void)
{
	MKDIR("d", 0755);
	ERR(rmdir("."), EINVAL);
	ERR(rmdir("d/."), EINVAL);
	ERR(rmdir("d/.."), ENOTEMPTY);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_EQ(NLINK("."), 3);
	CHECK_DIR(".", "d");
}

static void t_rmdir_enoent(void)
{
	ERR(rmdir("x"), ENOENT);
	ERR(rmdir("x/y"), ENOENT);
	MKDIR("d", 0755);
	ERR(rmdir("d/y"), ENOENT);
	CHECK_DIR(".", "d");
}

static void t_rmdir_after_emptied(void)
{
	char n[32];

	MKDIR("d", 0755);
	for (int i = 0; i < 50; i++) {
		snprintf(n, sizeof(n), "d/file%02d", i);
		MKFILE(n, 0644);
	}
	for (int i = 0; i < 5; i++) {
		snprintf(n, sizeof(n), "d/sub%d", i);
		MKDIR(n, 0755);
	}
	CHECK_EQ(NLINK("d"), 7);
	ERR(rmdir("d"), ENOTEMPTY);
	for (int i = 0; i < 50; i++) {
		snprintf(n, sizeof(n), "d/file%02d", i);
		OK(unlink(n));
	}
	ERR(rmdir("d"), ENOTEMPTY);
	for (int i = 0; i < 5; i++) {
		snprintf(n, sizeof(n), "d/sub%d", i);
		OK(rmdir(n));
	}
	CHECK_EQ(NLINK("d"), 2);
	CHECK_DIR_EMPTY("d");
	OK(rmdir("d"));
	ABSENT("d");
	CHECK_DIR_EMPTY(".");
}

/* ------------------------------------------------------------------ */
/* unlink                                                              */
/* ------------------------------------------------------------------ */

static void t_unlink_basic(void)
{
	ino_t ino;

	MKFILE("f", 0644);
	ino = INO("f");
	OK(link("f", "g"));
	CHECK_EQ(NLINK("f"), 2);
	OK(unlink("f"));
	ABSENT("f");
	CHECK_EQ(NLINK("g"), 1);
	CHECK_EQ(INO("g"), ino);
	CHECK_DIR(".", "g");
	OK(unlink("g"));
	ABSENT("g");
	CHECK_DIR_EMPTY(".");
	OK(symlink("t", "l"));
	OK(mknod("p", S_IFIFO | 0644, 0));
	OK(unlink("l"));
	OK(unlink("p"));
	CHECK_DIR_EMPTY(".");
}

static void t_unlink_enoent(void)
{
	ERR(unlink("x"), ENOENT);
	ERR(unlink("x/y"), ENOENT);
	MKFILE("f", 0644);
	ERR(unlink("f/y"), ENOTDIR);
	OK(unlink("f"));
	ERR(unlink("f"), ENOENT);
	CHECK_DIR_EMPTY(".");
}

static void t_unlink_dir_eisdir(void)
{
	MKDIR("d", 0755);
	MKFILE("f", 0644);
	ERR(unlink("d"), EISDIR);
	ERR(unlinkat(AT_FDCWD, "d", 0), EISDIR);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_EQ(NLINK("d"), 2);
	CHECK_EQ(NLINK("."), 3);
	ERR(unlinkat(AT_FDCWD, "f", AT_REMOVEDIR), ENOTDIR);
	CHECK_TYPE("f", S_IFREG);
	OK(unlinkat(AT_FDCWD, "d", AT_REMOVEDIR));
	ABSENT("d");
	CHECK_EQ(NLINK("."), 2);
	CHECK_DIR(".", "f");
}

static void t_unlink_open_file(void)
{
	struct stat st;
	int fd;

	MKFILE("f", 0640);
	fd = (int)OK(open("f", O_RDONLY));
	OK(unlink("f"));
	ABSENT("f");
	st = FST(fd);
	CHECK_EQ(st.st_nlink, 0);
	CHECK_MODE(st.st_mode, S_IFREG | 0640);
	OK(fchmod(fd, 0600));
	CHECK_MODE(FST(fd).st_mode, S_IFREG | 0600);
	OK(close(fd));
	CHECK_DIR_EMPTY(".");
}

static void t_unlink_trailing_slash(void)
{
	MKFILE("f", 0644);
	MKDIR("d", 0755);
	ERR(unlink("f/"), ENOTDIR);
	ERR(unlink("missing/"), ENOENT);
	ERR(unlink("d/"), EISDIR);
	CHECK_TYPE("f", S_IFREG);
	CHECK_DIR(".", "f", "d");
}

/* ------------------------------------------------------------------ */
/* link                                                                */
/* ------------------------------------------------------------------ */

static void t_link_basic(void)
{
	struct stat a, b;

	MKFILE("f", 0600);
	OK(link("f", "g"));
	a = LST("f");
	b = LST("g");
	CHECK_EQ(a.st_ino, b.st_ino);
	CHECK_EQ(a.st_nlink, 2);
	CHECK_EQ(b.st_nlink, 2);
	CHECK_MODE(b.st_mode, S_IFREG | 0600);
	CHECK_EQ(NLINK("."), 2);
	CHECK_DIR(".", "f", "g");
	/* fifo and symlink can be linked too */
	OK(mknod("p", S_IFIFO | 0644, 0));
	OK(link("p", "p2"));
	CHECK_EQ(INO("p2"), INO("p"));
	CHECK_EQ(NLINK("p"), 2);
	CHECK_TYPE("p2", S_IFIFO);
}

static void t_link_eexist(void)
{
	MKFILE("f", 0644);
	MKFILE("g", 0644);
	MKDIR("d", 0755);
	OK(symlink("nowhere", "l"));
	ERR(link("f", "g"), EEXIST);
	ERR(link("f", "d"), EEXIST);
	ERR(link("f", "l"), EEXIST);
	ERR(link("f", "f"), EEXIST);
	CHECK_EQ(NLINK("f"), 1);
	CHECK_EQ(NLINK("g"), 1);
	CHECK_NE(INO("f"), INO("g"));
	ABSENT("nowhere");
	CHECK_DIR(".", "f", "g", "d", "l");
}

static void t_link_dir_eperm(void)
{
	MKDIR("d", 0755);
	ERR(link("d", "d2"), EPERM);
	ERR(link(".", "d3"), EPERM);
	ABSENT("d2");
	ABSENT("d3");
	CHECK_EQ(NLINK("d"), 2);
	CHECK_EQ(NLINK("."), 3);
	CHECK_DIR(".", "d");
}

static void t_link_enoent(void)
{
	ERR(link("x", "y"), ENOENT);
	MKFILE("f", 0644);
	ERR(link("f", "nodir/y"), ENOENT);
	ERR(link("f", "f/y"), ENOTDIR);
	ERR(link("f/x", "y"), ENOTDIR);
	ABSENT("y");
	CHECK_EQ(NLINK("f"), 1);
	CHECK_DIR(".", "f");
}

static void t_link_many(void)
{
	const char *names[31];
	char buf[31][8];
	ino_t ino;

	MKFILE("f", 0644);
	ino = INO("f");
	names[0] = "f";
	for (int i = 0; i < 30; i++) {
		snprintf(buf[i], sizeof(buf[i]), "l%02d", i);
		names[i + 1] = buf[i];
		OK(link("f", buf[i]));
		CHECK_EQ(NLINK("f"), i + 2);
	}
	for (int i = 0; i < 30; i++)
		CHECK_EQ(INO(buf[i]), ino);
	check_dir_at(".", names, 31, __LINE__);
	for (int i = 0; i < 15; i++)
		OK(unlink(buf[i]));
	CHECK_EQ(NLINK("f"), 16);
	OK(unlink("f"));
	CHECK_EQ(NLINK(buf[20]), 15);
	check_dir_at(".", names + 16, 15, __LINE__);
	for (int i = 15; i < 30; i++)
		OK(unlink(buf[i]));
	CHECK_DIR_EMPTY(".");
}

static void t_link_across_dirs(void)
{
	MKDIR("a", 0755);
	MKDIR("b", 0755);
	MKFILE("a/f", 0644);
	OK(link("a/f", "b/g"));
	CHECK_EQ(INO("b/g"), INO("a/f"));
	CHECK_EQ(NLINK("a/f"), 2);
	CHECK_EQ(NLINK("a"), 2);
	CHECK_EQ(NLINK("b"), 2);
	CHECK_DIR("a", "f");
	CHECK_DIR("b", "g");
	OK(unlink("a/f"));
	CHECK_EQ(NLINK("b/g"), 1);
	CHECK_DIR_EMPTY("a");
	CHECK_DIR("b", "g");
}

static void t_link_symlink_nofollow(void)
{
	char buf[64];

	MKFILE("f", 0644);
	OK(symlink("f", "l"));
	OK(link("l", "h"));	/* Linux link() does not follow symlinks */
	CHECK_TYPE("h", S_IFLNK);
	CHECK_EQ(INO("h"), INO("l"));
	CHECK_EQ(NLINK("l"), 2);
	CHECK_EQ(NLINK("f"), 1);
	CHECK_EQ(OK(readlink("h", buf, sizeof(buf))), 1);
	CHECK(buf[0] == 'f');
	OK(linkat(AT_FDCWD, "l", AT_FDCWD, "h2", AT_SYMLINK_FOLLOW));
	CHECK_TYPE("h2", S_IFREG);
	CHECK_EQ(INO("h2"), INO("f"));
	CHECK_EQ(NLINK("f"), 2);
	CHECK_DIR(".", "f", "l", "h", "h2");
}

/* ------------------------------------------------------------------ */
/* rename                                                              */
/* ------------------------------------------------------------------ */

static void t_rename_same_dir(void)
{
	ino_t fi, di;

	MKFILE("a", 0640);
	MKDIR("d", 0755);
	fi = INO("a");
	di = INO("d");
	OK(rename("a", "b"));
	ABSENT("a");
	CHECK_EQ(INO("b"), fi);
	CHECK_EQ(NLINK("b"), 1);
	CHECK_MODE(LST("b").st_mode, S_IFREG | 0640);
	OK(rename("d", "e"));
	ABSENT("d");
	CHECK_EQ(INO("e"), di);
	CHECK_EQ(NLINK("e"), 2);
	CHECK_EQ(INO("e/.."), INO("."));
	CHECK_EQ(NLINK("."), 3);
	CHECK_DIR(".", "b", "e");
}

static void t_rename_across_dirs(void)
{
	ino_t ino;

	MKDIR("p", 0755);
	MKDIR("q", 0755);
	MKFILE("p/f", 0644);
	OK(symlink("target", "p/l"));
	ino = INO("p/f");
	OK(rename("p/f", "q/g"));
	OK(rename("p/l", "q/l"));
	ABSENT("p/f");
	CHECK_EQ(INO("q/g"), ino);
	CHECK_EQ(NLINK("q/g"), 1);
	CHECK_TYPE("q/l", S_IFLNK);
	CHECK_EQ(NLINK("p"), 2);
	CHECK_EQ(NLINK("q"), 2);
	CHECK_DIR_EMPTY("p");
	CHECK_DIR("q", "g", "l");
}

static void t_rename_over_file(void)
{
	ino_t ia, ib;
	int fd;

	MKFILE("a", 0600);
	MKFILE("b", 0644);
	OK(link("b", "b2"));
	ia = INO("a");
	ib = INO("b");
	OK(rename("a", "b"));
	ABSENT("a");
	CHECK_EQ(INO("b"), ia);
	CHECK_MODE(LST("b").st_mode, S_IFREG | 0600);
	CHECK_EQ(NLINK("b"), 1);
	CHECK_EQ(INO("b2"), ib);
	CHECK_EQ(NLINK("b2"), 1);	/* the replaced inode lost a link */
	CHECK_DIR(".", "b", "b2");
	/* replacing the last link of an open file leaves it with nlink 0 */
	MKFILE("x", 0644);
	fd = (int)OK(open("x", O_RDONLY));
	OK(rename("b2", "x"));
	CHECK_EQ(FST(fd).st_nlink, 0);
	OK(close(fd));
	CHECK_EQ(INO("x"), ib);
	CHECK_EQ(NLINK("x"), 1);
	CHECK_DIR(".", "b", "x");
}

static void t_rename_dir_over_empty_dir(void)
{
	nlink_t pn;
	ino_t i1;
	int fd;

	MKDIR("d1", 0755);
	MKFILE("d1/f", 0644);
	MKDIR("d2", 0700);
	pn = NLINK(".");
	i1 = INO("d1");
	fd = (int)OK(open("d2", O_RDONLY | O_DIRECTORY));
	OK(rename("d1", "d2"));
	ABSENT("d1");
	CHECK_EQ(INO("d2"), i1);
	CHECK_MODE(LST("d2").st_mode, S_IFDIR | 0755);
	CHECK_EQ(NLINK("."), pn - 1);
	CHECK_EQ(NLINK("d2"), 2);
	CHECK_EQ(FST(fd).st_nlink, 0);	/* the replaced directory is dead */
	OK(close(fd));
	CHECK_EQ(INO("d2/.."), INO("."));
	CHECK_DIR("d2", "f");
	CHECK_DIR(".", "d2");
}

static void t_rename_dir_over_empty_dir_across(void)
{
	ino_t ia;

	MKDIR("p1", 0755);
	MKDIR("p2", 0755);
	MKDIR("p1/a", 0755);
	MKDIR("p1/a/sub", 0755);
	MKDIR("p2/b", 0755);
	ia = INO("p1/a");
	CHECK_EQ(NLINK("p1"), 3);
	CHECK_EQ(NLINK("p2"), 3);
	OK(rename("p1/a", "p2/b"));
	ABSENT("p1/a");
	CHECK_EQ(INO("p2/b"), ia);
	CHECK_EQ(NLINK("p1"), 2);
	CHECK_EQ(NLINK("p2"), 3);
	CHECK_EQ(NLINK("p2/b"), 3);
	CHECK_EQ(INO("p2/b/.."), INO("p2"));
	CHECK_EQ(DIRENT("p2/b", "..").d_ino, INO("p2"));
	CHECK_EQ(INO("p2/b/sub/.."), ia);
	CHECK_DIR_EMPTY("p1");
	CHECK_DIR("p2", "b");
	CHECK_DIR("p2/b", "sub");
}

static void t_rename_dir_over_nonempty_dir(void)
{
	MKDIR("a", 0755);
	MKDIR("b", 0755);
	MKFILE("b/x", 0644);
	MKDIR("c", 0755);
	MKDIR("c/sub", 0755);
	ERR(rename("a", "b"), ENOTEMPTY);
	ERR(rename("a", "c"), ENOTEMPTY);
	CHECK_TYPE("a", S_IFDIR);
	CHECK_DIR("b", "x");
	CHECK_DIR("c", "sub");
	CHECK_EQ(NLINK("."), 5);
	CHECK_EQ(NLINK("c"), 3);
	CHECK_DIR(".", "a", "b", "c");
}

static void t_rename_file_over_dir(void)
{
	MKFILE("f", 0644);
	MKDIR("d", 0755);
	MKDIR("e", 0755);
	MKFILE("e/x", 0644);
	ERR(rename("f", "d"), EISDIR);
	ERR(rename("f", "e"), EISDIR);
	CHECK_TYPE("f", S_IFREG);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_EQ(NLINK("."), 4);
	CHECK_DIR_EMPTY("d");
	CHECK_DIR(".", "f", "d", "e");
}

static void t_rename_dir_over_file(void)
{
	MKFILE("f", 0644);
	MKDIR("d", 0755);
	ERR(rename("d", "f"), ENOTDIR);
	CHECK_TYPE("f", S_IFREG);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_EQ(NLINK("."), 3);
	CHECK_DIR(".", "f", "d");
}

static void t_rename_to_itself(void)
{
	struct stat f0, d0;

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	f0 = LST("f");
	d0 = LST("d");
	OK(rename("f", "f"));
	OK(rename("d", "d"));
	OK(rename("d/", "d"));
	CHECK_EQ(INO("f"), f0.st_ino);
	CHECK_EQ(INO("d"), d0.st_ino);
	CHECK_EQ(NLINK("f"), 1);
	CHECK_EQ(NLINK("d"), 2);
	CHECK_EQ(NLINK("."), 3);
	CHECK_DIR(".", "f", "d");
}

static void t_rename_hardlinks_same_inode(void)
{
	ino_t ino;

	MKFILE("a", 0644);
	OK(link("a", "b"));
	ino = INO("a");
	/* POSIX: both names refer to the same file: rename does nothing */
	OK(rename("a", "b"));
	CHECK_EQ(INO("a"), ino);
	CHECK_EQ(INO("b"), ino);
	CHECK_EQ(NLINK("a"), 2);
	CHECK_DIR(".", "a", "b");
}

static void t_rename_dir_into_subtree(void)
{
	MKDIR("a", 0755);
	MKDIR("a/b", 0755);
	MKDIR("a/b/c", 0755);
	ERR(rename("a", "a/b/c/x"), EINVAL);
	ERR(rename("a", "a/x"), EINVAL);
	ERR(rename("a/b", "a/b/c/y"), EINVAL);
	ERR(rename("a/b", "a/b/y"), EINVAL);
	/* target an ancestor of source: non-empty */
	ERR(rename("a/b/c", "a"), ENOTEMPTY);
	CHECK_DIR(".", "a");
	CHECK_DIR("a", "b");
	CHECK_DIR("a/b", "c");
	CHECK_DIR_EMPTY("a/b/c");
	CHECK_EQ(NLINK("a"), 3);
	CHECK_EQ(NLINK("a/b"), 3);
	CHECK_EQ(NLINK("a/b/c"), 2);
}

static void t_rename_dir_across_parents(void)
{
	ino_t di;

	MKDIR("p1", 0755);
	MKDIR("p2", 0755);
	MKDIR("p1/d", 0755);
	MKFILE("p1/d/f", 0644);
	di = INO("p1/d");
	CHECK_EQ(NLINK("p1"), 3);
	CHECK_EQ(NLINK("p2"), 2);
	OK(rename("p1/d", "p2/d"));
	ABSENT("p1/d");
	CHECK_EQ(INO("p2/d"), di);
	CHECK_EQ(NLINK("p1"), 2);
	CHECK_EQ(NLINK("p2"), 3);
	CHECK_EQ(NLINK("p2/d"), 2);
	CHECK_EQ(NLINK("."), 4);
	/* .. of the moved directory is the new parent */
	CHECK_EQ(INO("p2/d/.."), INO("p2"));
	CHECK_EQ(DIRENT("p2/d", "..").d_ino, INO("p2"));
	CHECK_TYPE("p2/d/../d/f", S_IFREG);
	CHECK_DIR_EMPTY("p1");
	CHECK_DIR("p2", "d");
	OK(rmdir("p1"));
	CHECK_EQ(NLINK("."), 3);
	/* and back up one level, renamed */
	OK(rename("p2/d", "top"));
	CHECK_EQ(NLINK("p2"), 2);
	CHECK_EQ(NLINK("."), 4);
	CHECK_EQ(INO("top/.."), INO("."));
	CHECK_DIR(".", "p2", "top");
}

static void t_rename_enoent(void)
{
	ERR(rename("x", "y"), ENOENT);
	MKFILE("f", 0644);
	ERR(rename("f", "nodir/g"), ENOENT);
	ERR(rename("f", "f/g"), ENOTDIR);
	ERR(rename("", "g"), ENOENT);
	ABSENT("y");
	ABSENT("g");
	CHECK_TYPE("f", S_IFREG);
	CHECK_DIR(".", "f");
}

static void t_rename_dot_ebusy(void)
{
	MKDIR("d", 0755);
	MKFILE("f", 0644);
	ERR(rename("d/.", "x"), EBUSY);
	ERR(rename("d/..", "x"), EBUSY);
	ERR(rename("f", "d/."), EBUSY);
	ERR(rename("f", "d/.."), EBUSY);
	ABSENT("x");
	CHECK_DIR(".", "d", "f");
	CHECK_DIR_EMPTY("d");
}

static void t_rename_readdir(void)
{
	static char nb[100][8];
	const char *exp[100];
	char a[8];

	for (int i = 0; i < 100; i++) {
		snprintf(a, sizeof(a), "a%03d", i);
		MKFILE(a, 0644);
	}
	for (int i = 0; i < 100; i++) {
		snprintf(a, sizeof(a), "a%03d", i);
		snprintf(nb[i], sizeof(nb[i]), "b%03d", (i * 37) % 100);
		exp[i] = nb[i];
		OK(rename(a, nb[i]));
	}
	check_dir_at(".", exp, 100, __LINE__);
	CHECK_EQ(NLINK("."), 2);
}

static void t_rename_noreplace_exists(void)
{
	ino_t ia, ib;

	MKFILE("a", 0644);
	MKFILE("b", 0644);
	MKDIR("d", 0755);
	ia = INO("a");
	ib = INO("b");
	ERR(rn2("a", "b", RENAME_NOREPLACE), EEXIST);
	ERR(rn2("a", "d", RENAME_NOREPLACE), EEXIST);
	ERR(rn2("d", "a", RENAME_NOREPLACE), EEXIST);
	ERR(rn2("a", "a", RENAME_NOREPLACE), EEXIST);
	ERR(rn2("a", "c", RENAME_NOREPLACE | RENAME_EXCHANGE), EINVAL);
	ABSENT("c");
	CHECK_EQ(INO("a"), ia);
	CHECK_EQ(INO("b"), ib);
	CHECK_EQ(NLINK("a"), 1);
	CHECK_EQ(NLINK("b"), 1);
	CHECK_DIR(".", "a", "b", "d");
}

static void t_rename_noreplace_absent(void)
{
	ino_t fi, di;

	MKFILE("a", 0644);
	MKDIR("d", 0755);
	MKDIR("p", 0755);
	fi = INO("a");
	di = INO("d");
	OK(rn2("a", "c", RENAME_NOREPLACE));
	ABSENT("a");
	CHECK_EQ(INO("c"), fi);
	OK(rn2("d", "p/d2", RENAME_NOREPLACE));
	ABSENT("d");
	CHECK_EQ(INO("p/d2"), di);
	CHECK_EQ(NLINK("p"), 3);
	CHECK_EQ(NLINK("."), 3);
	CHECK_EQ(INO("p/d2/.."), INO("p"));
	CHECK_DIR(".", "c", "p");
	CHECK_DIR("p", "d2");
}

static void t_rename_exchange_files(void)
{
	ino_t ia, ib;

	MKFILE("a", 0600);
	MKFILE("b", 0644);
	ia = INO("a");
	ib = INO("b");
	OK(rn2("a", "b", RENAME_EXCHANGE));
	CHECK_EQ(INO("a"), ib);
	CHECK_EQ(INO("b"), ia);
	CHECK_MODE(LST("a").st_mode, S_IFREG | 0644);
	CHECK_MODE(LST("b").st_mode, S_IFREG | 0600);
	CHECK_EQ(NLINK("a"), 1);
	CHECK_EQ(NLINK("b"), 1);
	CHECK_DIR(".", "a", "b");
	/* file <-> symlink across directories */
	MKDIR("p", 0755);
	OK(symlink("target", "p/l"));
	OK(rn2("a", "p/l", RENAME_EXCHANGE));
	CHECK_TYPE("a", S_IFLNK);
	CHECK_EQ(INO("p/l"), ib);
	CHECK_TYPE("p/l", S_IFREG);
	CHECK_DIR(".", "a", "b", "p");
	CHECK_DIR("p", "l");
}

static void t_rename_exchange_file_dir(void)
{
	ino_t fi, di;

	MKDIR("p1", 0755);
	MKDIR("p2", 0755);
	MKFILE("p1/f", 0644);
	MKDIR("p2/d", 0755);
	MKFILE("p2/d/x", 0644);
	fi = INO("p1/f");
	di = INO("p2/d");
	CHECK_EQ(NLINK("p1"), 2);
	CHECK_EQ(NLINK("p2"), 3);
	OK(rn2("p1/f", "p2/d", RENAME_EXCHANGE));
	CHECK_EQ(INO("p1/f"), di);
	CHECK_TYPE("p1/f", S_IFDIR);
	CHECK_EQ(INO("p2/d"), fi);
	CHECK_TYPE("p2/d", S_IFREG);
	CHECK_EQ(NLINK("p1"), 3);
	CHECK_EQ(NLINK("p2"), 2);
	CHECK_EQ(NLINK("p1/f"), 2);
	CHECK_EQ(NLINK("p2/d"), 1);
	CHECK_EQ(INO("p1/f/.."), INO("p1"));
	CHECK_EQ(DIRENT("p1/f", "..").d_ino, INO("p1"));
	CHECK_DIR("p1/f", "x");
	CHECK_DIR("p1", "f");
	CHECK_DIR("p2", "d");
	CHECK_EQ(DIRENT("p1", "f").d_type, DT_DIR);
	CHECK_EQ(DIRENT("p2", "d").d_type, DT_REG);
	/* and back again */
	OK(rn2("p2/d", "p1/f", RENAME_EXCHANGE));
	CHECK_EQ(INO("p1/f"), fi);
	CHECK_EQ(INO("p2/d"), di);
	CHECK_EQ(NLINK("p1"), 2);
	CHECK_EQ(NLINK("p2"), 3);
	CHECK_EQ(INO("p2/d/.."), INO("p2"));
}

static void t_rename_exchange_dirs(void)
{
	ino_t ia, ib;

	MKDIR("p1", 0755);
	MKDIR("p2", 0755);
	MKDIR("p1/a", 0755);
	MKDIR("p2/b", 0700);
	MKDIR("p2/b/sub", 0755);
	ia = INO("p1/a");
	ib = INO("p2/b");
	OK(rn2("p1/a", "p2/b", RENAME_EXCHANGE));
	CHECK_EQ(INO("p1/a"), ib);
	CHECK_EQ(INO("p2/b"), ia);
	CHECK_EQ(INO("p1/a/.."), INO("p1"));
	CHECK_EQ(INO("p2/b/.."), INO("p2"));
	CHECK_EQ(DIRENT("p1/a", "..").d_ino, INO("p1"));
	CHECK_EQ(DIRENT("p2/b", "..").d_ino, INO("p2"));
	CHECK_EQ(NLINK("p1"), 3);
	CHECK_EQ(NLINK("p2"), 3);
	CHECK_EQ(NLINK("p1/a"), 3);
	CHECK_MODE(LST("p1/a").st_mode, S_IFDIR | 0700);
	CHECK_DIR("p1/a", "sub");
	CHECK_DIR_EMPTY("p2/b");
	/* same parent */
	OK(rn2("p1/a", "p2", RENAME_EXCHANGE));
	CHECK_EQ(INO("p2"), ib);
	CHECK_EQ(INO("p2/.."), INO("."));
	CHECK_EQ(INO("p1/a/.."), INO("p1"));
	CHECK_EQ(NLINK("."), 4);
}

static void t_rename_exchange_enoent(void)
{
	ino_t ino;

	MKFILE("a", 0644);
	ino = INO("a");
	ERR(rn2("a", "missing", RENAME_EXCHANGE), ENOENT);
	ERR(rn2("missing", "a", RENAME_EXCHANGE), ENOENT);
	ERR(rn2("a", "nodir/x", RENAME_EXCHANGE), ENOENT);
	ABSENT("missing");
	CHECK_EQ(INO("a"), ino);
	CHECK_DIR(".", "a");
}

/* ------------------------------------------------------------------ */
/* symlink / readlink                                                  */
/* ------------------------------------------------------------------ */

static void check_symlink_at(const char *p, const char *target, int line)
{
	size_t tl = strlen(target);
	char *buf = malloc(tl + 64);
	struct stat st = lst_at(p, line);
	ssize_t r;

	if (!buf)
		abort();
	if (!S_ISLNK(st.st_mode))
		fail_at(line, "%s: expected symlink, got %s", p,
			type_name(st.st_mode));
	if ((st.st_mode & 07777) != 0777)
		fail_at(line, "%s: symlink permission 0%o, expected 0777", p,
			(unsigned)(st.st_mode & 07777));
	if ((size_t)st.st_size != tl)
		fail_at(line, "%s: st_size %lld, expected target length %zu", p,
			(long long)st.st_size, tl);
	memset(buf, 'Z', tl + 64);
	r = readlink(p, buf, tl + 64);
	if (r < 0)
		fail_at(line, "readlink(%s): %s", p, errname(errno));
	if ((size_t)r != tl)
		fail_at(line, "readlink(%s): returned %zd, expected %zu", p, r,
			tl);
	if (memcmp(buf, target, tl))
		fail_at(line, "readlink(%s): content differs from the target", p);
	if (buf[tl] != 'Z')
		fail_at(line, "readlink(%s): wrote past the returned length", p);
	free(buf);
}
#define CHECK_SYMLINK(p, t) check_symlink_at((p), (t), __LINE__)

static void t_symlink_short(void)
{
	char buf[8];

	OK(symlink("short/target", "l"));
	CHECK_SYMLINK("l", "short/target");
	/* a small buffer truncates silently */
	CHECK_EQ(OK(readlink("l", buf, 5)), 5);
	CHECK(!memcmp(buf, "short", 5));
	OK(symlink("x", "one"));
	CHECK_SYMLINK("one", "x");
	CHECK_EQ(NLINK("l"), 1);
	CHECK_EQ(LST("l").st_uid, 0);
	CHECK_DIR(".", "l", "one");
}

static void make_target(char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (i % 16 == 15) ? '/' : (char)('a' + (i * 7 + i / 16) % 26);
	buf[len] = 0;
}

static void t_symlink_long(void)
{
	static char t[3001];

	make_target(t, 3000);
	OK(symlink(t, "l"));
	CHECK_SYMLINK("l", t);
	/* boundary around an inline/short-symlink optimisation */
	for (size_t n = 55; n <= 65; n++) {
		char name[16];

		make_target(t, n);
		snprintf(name, sizeof(name), "l%zu", n);
		OK(symlink(t, name));
		CHECK_SYMLINK(name, t);
	}
}

static void t_symlink_4095(void)
{
	static char t[4096];

	make_target(t, 4095);
	OK(symlink(t, "l"));
	CHECK_SYMLINK("l", t);
	CHECK_DIR(".", "l");
}

static void t_symlink_follow(void)
{
	char abs[4200], cwd[4096];
	int fd;

	MKFILE("f", 0640);
	MKDIR("d", 0755);
	OK(symlink("f", "l"));
	OK(symlink("../f", "d/l2"));
	if (!getcwd(cwd, sizeof(cwd)))
		FAIL("getcwd: %s", errname(errno));
	snprintf(abs, sizeof(abs), "%s/f", cwd);
	OK(symlink(abs, "labs"));
	OK(symlink("l", "ll"));	/* chain */
	CHECK_EQ(STT("l").st_ino, INO("f"));
	CHECK_EQ(STT("d/l2").st_ino, INO("f"));
	CHECK_EQ(STT("labs").st_ino, INO("f"));
	CHECK_EQ(STT("ll").st_ino, INO("f"));
	CHECK_MODE(STT("l").st_mode, S_IFREG | 0640);
	fd = (int)OK(open("ll", O_RDONLY));
	CHECK_EQ(FST(fd).st_ino, INO("f"));
	OK(close(fd));
	CHECK_TYPE("l", S_IFLNK);
	CHECK_SYMLINK("labs", abs);
}

static void t_symlink_dangling(void)
{
	struct stat st;

	OK(symlink("nonexistent", "l"));
	ERR(stat("l", &st), ENOENT);
	ERR(open("l", O_RDONLY), ENOENT);
	CHECK_SYMLINK("l", "nonexistent");
	MKFILE("nonexistent", 0644);
	CHECK_EQ(STT("l").st_ino, INO("nonexistent"));
	OK(unlink("nonexistent"));
	ERR(stat("l", &st), ENOENT);
	CHECK_DIR(".", "l");
}

static void t_symlink_loop(void)
{
	struct stat st;

	OK(symlink("self", "self"));
	OK(symlink("b", "a"));
	OK(symlink("a", "b"));
	ERR(stat("self", &st), ELOOP);
	ERR(open("self", O_RDONLY), ELOOP);
	ERR(stat("a", &st), ELOOP);
	ERR(stat("a/x", &st), ELOOP);
	ERR(open("b", O_CREAT | O_RDWR, 0644), ELOOP);
	CHECK_SYMLINK("self", "self");
	CHECK_SYMLINK("a", "b");
	CHECK_DIR(".", "self", "a", "b");
}

static void t_symlink_eexist(void)
{
	MKFILE("f", 0644);
	MKDIR("d", 0755);
	OK(symlink("t", "l"));
	ERR(symlink("x", "f"), EEXIST);
	ERR(symlink("x", "d"), EEXIST);
	ERR(symlink("x", "l"), EEXIST);
	CHECK_TYPE("f", S_IFREG);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_SYMLINK("l", "t");
	CHECK_DIR(".", "f", "d", "l");
}

static void t_symlink_dir_follow(void)
{
	int fd;

	MKDIR("d", 0755);
	MKFILE("d/x", 0644);
	OK(symlink("d", "l"));
	CHECK_EQ(STT("l/x").st_ino, INO("d/x"));
	CHECK_TYPE("l/", S_IFDIR);	/* trailing slash follows */
	CHECK_EQ(INO("l/"), INO("d"));
	fd = (int)OK(open("l", O_RDONLY | O_DIRECTORY));
	CHECK_EQ(FST(fd).st_ino, INO("d"));
	OK(close(fd));
	ERR(rmdir("l"), ENOTDIR);
	MKFILE("l/y", 0644);
	CHECK_DIR("d", "x", "y");
	OK(unlink("l"));
	CHECK_TYPE("d", S_IFDIR);
	CHECK_DIR(".", "d");
}

static void t_readlink_einval(void)
{
	char buf[64];

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	OK(symlink("f", "l"));
	ERR(readlink("f", buf, sizeof(buf)), EINVAL);
	ERR(readlink("d", buf, sizeof(buf)), EINVAL);
	ERR(readlink("missing", buf, sizeof(buf)), ENOENT);
	ERR(readlink("l", buf, 0), EINVAL);
	CHECK_EQ(OK(readlink("l", buf, sizeof(buf))), 1);
}

/* ------------------------------------------------------------------ */
/* mknod                                                               */
/* ------------------------------------------------------------------ */

static void check_node_at(const char *p, mode_t mode, dev_t rdev, int line)
{
	struct stat st = lst_at(p, line);

	if (st.st_mode != mode)
		fail_at(line, "%s: mode 0%o (%s), expected 0%o (%s)", p,
			(unsigned)st.st_mode, type_name(st.st_mode),
			(unsigned)mode, type_name(mode));
	if (st.st_rdev != rdev)
		fail_at(line, "%s: st_rdev %u:%u, expected %u:%u", p,
			major(st.st_rdev), minor(st.st_rdev), major(rdev),
			minor(rdev));
	if (st.st_nlink != 1)
		fail_at(line, "%s: nlink %lu, expected 1", p,
			(unsigned long)st.st_nlink);
	if (st.st_size != 0)
		fail_at(line, "%s: size %lld, expected 0", p,
			(long long)st.st_size);
}
#define CHECK_NODE(p, mode, rdev) check_node_at((p), (mode), (rdev), __LINE__)

static void t_mknod_fifo(void)
{
	int fd;

	OK(mknod("p", S_IFIFO | 0640, 0));
	CHECK_NODE("p", S_IFIFO | 0640, 0);
	OK(mkfifo("q", 0600));
	CHECK_NODE("q", S_IFIFO | 0600, 0);
	fd = (int)OK(open("p", O_RDONLY | O_NONBLOCK));
	CHECK_EQ(FST(fd).st_ino, INO("p"));
	OK(close(fd));
	CHECK_EQ(DIRENT(".", "p").d_type, DT_FIFO);
	CHECK_DIR(".", "p", "q");
}

static void t_mknod_chr(void)
{
	OK(mknod("c", S_IFCHR | 0666, makedev(1, 3)));
	CHECK_NODE("c", S_IFCHR | 0666, makedev(1, 3));
	OK(mknod("c0", S_IFCHR | 0600, makedev(0, 0)));
	CHECK_NODE("c0", S_IFCHR | 0600, makedev(0, 0));
	CHECK_EQ(DIRENT(".", "c").d_type, DT_CHR);
	CHECK_DIR(".", "c", "c0");
}

static void t_mknod_chr_large_dev(void)
{
	/* needs the "new" (32-bit) device encoding: 12-bit major, 20-bit minor */
	OK(mknod("c", S_IFCHR | 0600, makedev(300, 70000)));
	CHECK_NODE("c", S_IFCHR | 0600, makedev(300, 70000));
	OK(mknod("b", S_IFBLK | 0600, makedev(4095, 1048575)));
	CHECK_NODE("b", S_IFBLK | 0600, makedev(4095, 1048575));
}

static void t_mknod_blk(void)
{
	OK(mknod("b", S_IFBLK | 0660, makedev(7, 0)));
	CHECK_NODE("b", S_IFBLK | 0660, makedev(7, 0));
	OK(mknod("b2", S_IFBLK | 0600, makedev(259, 5)));
	CHECK_NODE("b2", S_IFBLK | 0600, makedev(259, 5));
	CHECK_EQ(DIRENT(".", "b").d_type, DT_BLK);
	CHECK_DIR(".", "b", "b2");
}

static void t_mknod_sock(void)
{
	OK(mknod("s", S_IFSOCK | 0755, 0));
	CHECK_NODE("s", S_IFSOCK | 0755, 0);
	CHECK_EQ(DIRENT(".", "s").d_type, DT_SOCK);
	CHECK_DIR(".", "s");
}

static void t_mknod_reg_eexist(void)
{
	OK(mknod("r", S_IFREG | 0600, 0));
	CHECK_NODE("r", S_IFREG | 0600, 0);
	OK(mknod("r0", 0640, 0));	/* no type bits: regular file */
	CHECK_NODE("r0", S_IFREG | 0640, 0);
	MKDIR("d", 0755);
	ERR(mknod("r", S_IFIFO | 0600, 0), EEXIST);
	ERR(mknod("d", S_IFCHR | 0600, makedev(1, 3)), EEXIST);
	ERR(mknod("x", S_IFDIR | 0755, 0), EPERM);	/* not via mknod */
	ABSENT("x");
	CHECK_TYPE("r", S_IFREG);
	CHECK_TYPE("d", S_IFDIR);
	CHECK_DIR(".", "r", "r0", "d");
}

/* ------------------------------------------------------------------ */
/* names                                                               */
/* ------------------------------------------------------------------ */

static void t_name_255(void)
{
	char n[256], m[256], u[256], pm[300], tg[300];

	memset(n, 'n', 255);
	n[255] = 0;
	memset(m, 'm', 255);
	m[254] = 'z';
	m[255] = 0;
	/* 85 three-byte UTF-8 characters (U+65E5) */
	for (int i = 0; i < 85; i++)
		memcpy(u + 3 * i, "\xe6\x97\xa5", 3);
	u[255] = 0;
	CHECK_EQ(strlen(u), 255);
	OK(close((int)OK(open(n, O_CREAT | O_EXCL | O_RDWR, 0644))));
	CHECK_TYPE(n, S_IFREG);
	MKDIR(u, 0755);
	CHECK_TYPE(u, S_IFDIR);
	CHECK_DIR(".", n, u);
	OK(rename(n, m));
	ABSENT(n);
	CHECK_TYPE(m, S_IFREG);
	OK(link(m, n));
	CHECK_EQ(INO(n), INO(m));
	snprintf(pm, sizeof(pm), "%s/x", u);
	snprintf(tg, sizeof(tg), "../%s", m);
	OK(symlink(tg, pm));
	CHECK_SYMLINK(pm, tg);
	CHECK_EQ(STT(pm).st_ino, INO(m));
	OK(unlink(pm));
	OK(symlink("t", "short"));
	ERR(rename("short", u), EISDIR);	/* symlink over a directory */
	CHECK_DIR(".", n, m, u, "short");
	OK(unlink(n));
	OK(unlink(m));
	OK(rmdir(u));
	OK(unlink("short"));
	CHECK_DIR_EMPTY(".");
}

static void t_name_256(void)
{
	char n[257], t[300];
	struct stat st;

	memset(n, 'x', 256);
	n[256] = 0;
	MKFILE("f", 0644);
	MKDIR("d", 0755);
	ERR(open(n, O_CREAT | O_RDWR, 0644), ENAMETOOLONG);
	ERR(open(n, O_CREAT | O_EXCL | O_RDWR, 0644), ENAMETOOLONG);
	ERR(stat(n, &st), ENAMETOOLONG);
	ERR(lstat(n, &st), ENAMETOOLONG);
	ERR(mkdir(n, 0755), ENAMETOOLONG);
	ERR(mknod(n, S_IFIFO | 0644, 0), ENAMETOOLONG);
	ERR(symlink("t", n), ENAMETOOLONG);
	ERR(link("f", n), ENAMETOOLONG);
	ERR(rename("f", n), ENAMETOOLONG);
	ERR(unlink(n), ENAMETOOLONG);
	ERR(rmdir(n), ENAMETOOLONG);
	snprintf(t, sizeof(t), "d/%s", n);
	ERR(open(t, O_CREAT | O_RDWR, 0644), ENAMETOOLONG);
	ERR(rename(t, "g"), ENAMETOOLONG);
	CHECK_TYPE("f", S_IFREG);
	CHECK_EQ(NLINK("f"), 1);
	CHECK_DIR_EMPTY("d");
	CHECK_DIR(".", "f", "d");
}

static void t_name_special_chars(void)
{
	static const char *const names[] = {
		"with space", " leading", "trailing ", "  ", ".hidden", "...",
		"..x", ".x.", "-dash", "tab\there", "new\nline",
		"\xc3\xa9t\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
		"\xf0\x9f\x98\x80", "\xff\xfe\x80", "\x01\x7f", "a:b;c*d?e",
		"back\\slash", "q\"u'o`te", "#%&()[]{}<>|$!~=+,@^",
	};
	size_t n = sizeof(names) / sizeof(names[0]);

	for (size_t i = 0; i < n; i++) {
		if (i % 3 == 1)
			MKDIR(names[i], 0755);
		else
			MKFILE(names[i], 0644);
	}
	check_dir_at(".", names, n, __LINE__);
	for (size_t i = 0; i < n; i++) {
		CHECK_TYPE(names[i], i % 3 == 1 ? S_IFDIR : S_IFREG);
		CHECK_EQ(DIRENT(".", names[i]).d_ino, INO(names[i]));
	}
	for (size_t i = 0; i < n; i++) {
		if (i % 3 == 1)
			OK(rmdir(names[i]));
		else
			OK(unlink(names[i]));
		ABSENT(names[i]);
	}
	CHECK_DIR_EMPTY(".");
}

static void t_name_similar(void)
{
	static const char *const names[] = {
		"abc", "ABC", "abC", "ab", "abcd", "abc ", "abc.", "a", "aa",
		"aaa", "b", "ba", "abd", "acb", "bca", "cba",
	};
	size_t n = sizeof(names) / sizeof(names[0]);
	ino_t inos[sizeof(names) / sizeof(names[0])];

	for (size_t i = 0; i < n; i++) {
		MKFILE(names[i], 0600 + (mode_t)i);
		inos[i] = INO(names[i]);
	}
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ(INO(names[i]), inos[i]);
		CHECK_MODE(LST(names[i]).st_mode, S_IFREG | (0600 + i));
		for (size_t j = 0; j < i; j++)
			CHECK_NE(inos[i], inos[j]);
	}
	check_dir_at(".", names, n, __LINE__);
	OK(unlink("abc"));
	ABSENT("abc");
	CHECK_EQ(INO("ABC"), inos[1]);
	CHECK_EQ(INO("abcd"), inos[4]);
	CHECK_EQ(INO("ab"), inos[3]);
	check_dir_at(".", names + 1, n - 1, __LINE__);
}

/* ------------------------------------------------------------------ */
/* readdir                                                             */
/* ------------------------------------------------------------------ */

static void t_readdir_empty(void)
{
	struct dirent dot, dotdot;

	CHECK_DIR_EMPTY(".");
	MKDIR("d", 0755);
	CHECK_DIR_EMPTY("d");
	CHECK_DIR(".", "d");
	dot = DIRENT("d", ".");
	dotdot = DIRENT("d", "..");
	CHECK_EQ(dot.d_ino, INO("d"));
	CHECK_EQ(dotdot.d_ino, INO("."));
	CHECK_EQ(dot.d_type, DT_DIR);
	CHECK_EQ(dotdot.d_type, DT_DIR);
}

#define NBIG 500

static void t_readdir_500(void)
{
	static char nb[NBIG][16];
	const char *exp[NBIG];

	for (int i = 0; i < NBIG; i++) {
		snprintf(nb[i], sizeof(nb[i]), "entry_%04d", i);
		exp[i] = nb[i];
		if (i % 50 == 7)
			MKDIR(nb[i], 0755);
		else
			MKFILE(nb[i], 0644);
		if (i == 0 || i == 9 || i == 99 || i == 255)
			check_dir_at(".", exp, (size_t)i + 1, __LINE__);
	}
	check_dir_at(".", exp, NBIG, __LINE__);
	CHECK_EQ(NLINK("."), 2 + 10);
}

static void t_readdir_after_unlink(void)
{
	static char nb[120][16];
	const char *exp[120];
	size_t ne = 0;

	for (int i = 0; i < 100; i++) {
		snprintf(nb[i], sizeof(nb[i]), "f%03d", i);
		MKFILE(nb[i], 0644);
	}
	for (int i = 0; i < 100; i++) {
		if (i % 2)
			OK(unlink(nb[i]));
		else
			exp[ne++] = nb[i];
	}
	check_dir_at(".", exp, ne, __LINE__);
	for (int i = 100; i < 120; i++) {
		snprintf(nb[i], sizeof(nb[i]), "new%03d", i);
		MKFILE(nb[i], 0644);
		exp[ne++] = nb[i];
	}
	check_dir_at(".", exp, ne, __LINE__);
	for (int i = 0; i < 100; i += 2)
		OK(unlink(nb[i]));
	check_dir_at(".", exp + 50, 20, __LINE__);
}

/*
 * Renaming each entry away and back as readdir() returns it: every name
 * comes back under a new position past the end, and a directory stream
 * that follows them never ends (xfstests generic/736).  Each of the
 * names is seen at least once, and the stream ends.
 */
static void t_readdir_while_renames(void)
{
	static char nb[NBIG][16];
	int seen[NBIG] = { 0 };
	struct dirent *de;
	size_t count = 0;
	DIR *d;

	for (int i = 0; i < NBIG; i++) {
		snprintf(nb[i], sizeof(nb[i]), "%d", i);
		MKFILE(nb[i], 0644);
	}
	d = opendir(".");
	CHECK(d != NULL);
	while ((de = readdir(d))) {
		if (++count > 3 * NBIG) {
			FAIL("readdir while renaming: more than %d entries", 3 * NBIG);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		seen[atoi(de->d_name)] = 1;
		OK(rename(de->d_name, "TEMPFILE"));
		OK(rename("TEMPFILE", de->d_name));
	}
	closedir(d);
	for (int i = 0; i < NBIG; i++)
		if (!seen[i])
			FAIL("readdir while renaming: '%s' never listed", nb[i]);
}

static void t_readdir_dtype(void)
{
	static const struct { const char *n; unsigned char t; } want[] = {
		{ "reg", DT_REG }, { "dir", DT_DIR }, { "lnk", DT_LNK },
		{ "fifo", DT_FIFO }, { "chr", DT_CHR }, { "blk", DT_BLK },
		{ "sock", DT_SOCK }, { ".", DT_DIR }, { "..", DT_DIR },
	};

	MKFILE("reg", 0644);
	MKDIR("dir", 0755);
	OK(symlink("reg", "lnk"));
	OK(mknod("fifo", S_IFIFO | 0644, 0));
	OK(mknod("chr", S_IFCHR | 0644, makedev(1, 3)));
	OK(mknod("blk", S_IFBLK | 0644, makedev(7, 0)));
	OK(mknod("sock", S_IFSOCK | 0644, 0));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct dirent de = DIRENT(".", want[i].n);

		if (de.d_type != want[i].t)
			FAIL("readdir: d_type of '%s' is %u, expected %u%s",
			     want[i].n, de.d_type, want[i].t,
			     de.d_type == DT_UNKNOWN ? " (DT_UNKNOWN)" : "");
	}
	CHECK_DIR(".", "reg", "dir", "lnk", "fifo", "chr", "blk", "sock");
}

static void t_readdir_ino(void)
{
	static const char *const names[] = { "f", "d", "l", "p", "h" };
	DIR *d;
	struct dirent *de;
	int seen = 0;

	MKDIR("sub", 0755);
	MKFILE("sub/f", 0644);
	MKDIR("sub/d", 0755);
	OK(symlink("f", "sub/l"));
	OK(mknod("sub/p", S_IFIFO | 0644, 0));
	OK(link("sub/f", "sub/h"));
	d = opendir("sub");
	if (!d)
		FAIL("opendir(sub): %s", errname(errno));
	while ((de = readdir(d))) {
		char p[300];
		ino_t want;

		if (!strcmp(de->d_name, "."))
			want = INO("sub");
		else if (!strcmp(de->d_name, ".."))
			want = INO(".");
		else {
			snprintf(p, sizeof(p), "sub/%s", de->d_name);
			want = INO(p);
		}
		if (de->d_ino != want)
			FAIL("readdir(sub): d_ino of '%s' is %llu, lstat says %llu",
			     de->d_name, (unsigned long long)de->d_ino,
			     (unsigned long long)want);
		seen++;
	}
	closedir(d);
	CHECK_EQ(seen, 7);
	check_dir_at("sub", names, 5, __LINE__);
	CHECK_EQ(DIRENT("sub", "h").d_ino, DIRENT("sub", "f").d_ino);
}

/* parse a getdents64 buffer into names (and optionally offsets) */
static void parse_dents(char *buf, long n, struct names *out, int64_t *offs,
			size_t *noffs)
{
	for (long pos = 0; pos < n;) {
		struct ldirent64 *d = (struct ldirent64 *)(buf + pos);

		if (offs)
			offs[(*noffs)++] = d->d_off;
		names_add(out, d->d_name);
		pos += d->d_reclen;
	}
}

#define STAB_N 200

static int stab_index(const char *s, char pfx, int max)
{
	char *end;
	long v;

	if (s[0] != pfx || !s[1])
		return -1;
	v = strtol(s + 1, &end, 10);
	if (*end || v < 0 || v >= max || strlen(s) != 4)
		return -1;
	return (int)v;
}

static void t_readdir_stability(void)
{
	/* e000..e199 present at open; n000..n049 created mid-way */
	char buf[256] __attribute__((aligned(8)));
	static char bigbuf[32768] __attribute__((aligned(8)));
	int ecount[STAB_N] = { 0 }, ncount[50] = { 0 };
	int in_first[STAB_N] = { 0 }, removed[STAB_N] = { 0 };
	int dots = 0, dotdots = 0, phase1 = 0, removed_u = 0, removed_r = 0;
	int new_seen = 0;
	struct names r1 = { 0 }, r2 = { 0 };
	char n[32];
	long got;
	int fd;

	MKDIR("d", 0755);
	for (int i = 0; i < STAB_N; i++) {
		snprintf(n, sizeof(n), "d/e%03d", i);
		MKFILE(n, 0644);
	}
	fd = (int)OK(open("d", O_RDONLY | O_DIRECTORY));
	/* read about half, with a small buffer */
	while (phase1 < STAB_N / 2) {
		size_t before = r1.n;

		got = OK(gd64(fd, buf, sizeof(buf)));
		if (got == 0)
			FAIL("getdents64: end of directory after %d of %d names",
			     phase1, STAB_N);
		parse_dents(buf, got, &r1, NULL, NULL);
		for (size_t i = before; i < r1.n; i++) {
			int k = stab_index(r1.v[i], 'e', STAB_N);

			if (k >= 0) {
				in_first[k]++;
				phase1++;
			}
		}
	}
	/* 50 new names; unlink 50 not yet returned and 50 already returned */
	for (int i = 0; i < 50; i++) {
		snprintf(n, sizeof(n), "d/n%03d", i);
		MKFILE(n, 0644);
	}
	for (int i = 0; i < STAB_N; i++) {
		if (!in_first[i] && removed_u < 50) {
			removed[i] = 1;
			removed_u++;
		} else if (in_first[i] && removed_r < 50) {
			removed[i] = 2;
			removed_r++;
		} else {
			continue;
		}
		snprintf(n, sizeof(n), "d/e%03d", i);
		OK(unlink(n));
	}
	CHECK_EQ(removed_u, 50);
	CHECK_EQ(removed_r, 50);
	/* read the rest */
	for (;;) {
		got = OK(gd64(fd, bigbuf, sizeof(bigbuf)));
		if (got == 0)
			break;
		parse_dents(bigbuf, got, &r2, NULL, NULL);
	}
	OK(close(fd));
	for (int pass = 0; pass < 2; pass++) {
		struct names *r = pass ? &r2 : &r1;

		for (size_t i = 0; i < r->n; i++) {
			const char *s = r->v[i];
			int k;

			if (!strcmp(s, "."))
				dots++;
			else if (!strcmp(s, ".."))
				dotdots++;
			else if ((k = stab_index(s, 'e', STAB_N)) >= 0) {
				ecount[k]++;
				if (pass && removed[k] == 1)
					FAIL("getdents64: '%s' returned after it was unlinked (it had not been returned before)",
					     s);
			} else if ((k = stab_index(s, 'n', 50)) >= 0) {
				ncount[k]++;
			} else {
				FAIL("getdents64: unexpected name '%s'", s);
			}
		}
	}
	CHECK_EQ(dots, 1);
	CHECK_EQ(dotdots, 1);
	for (int i = 0; i < STAB_N; i++) {
		if (ecount[i] > 1)
			FAIL("getdents64: 'e%03d' returned %d times", i, ecount[i]);
		if (!removed[i] && ecount[i] != 1)
			FAIL("getdents64: 'e%03d' (present throughout) returned %d times, expected once",
			     i, ecount[i]);
	}
	for (int i = 0; i < 50; i++) {
		if (ncount[i] > 1)
			FAIL("getdents64: 'n%03d' returned %d times", i, ncount[i]);
		new_seen += ncount[i];
	}
	info("%d of 50 names created during the scan were returned (either is allowed); first part %zu entries, rest %zu",
	     new_seen, r1.n, r2.n);
	names_free(&r1);
	names_free(&r2);
	/* a fresh scan sees exactly the current contents */
	{
		static char nb[STAB_N + 50][8];
		const char *exp[STAB_N + 50];
		size_t ne = 0;

		for (int i = 0; i < STAB_N; i++)
			if (!removed[i]) {
				snprintf(nb[ne], sizeof(nb[ne]), "e%03d", i);
				exp[ne] = nb[ne];
				ne++;
			}
		for (int i = 0; i < 50; i++) {
			snprintf(nb[ne], sizeof(nb[ne]), "n%03d", i);
			exp[ne] = nb[ne];
			ne++;
		}
		check_dir_at("d", exp, ne, __LINE__);
	}
}

static void t_readdir_telldir_seekdir(void)
{
	static const int ks[] = { 0, 1, 2, 37, 70, 100, 101 };
	char n[16];
	DIR *d;

	for (int i = 0; i < 100; i++) {
		snprintf(n, sizeof(n), "f%03d", i);
		MKFILE(n, 0644);
	}
	d = opendir(".");
	if (!d)
		FAIL("opendir: %s", errname(errno));
	for (size_t t = 0; t < sizeof(ks) / sizeof(ks[0]); t++) {
		char first[256] = "", again[256] = "";
		struct dirent *de;
		long pos;

		rewinddir(d);
		for (int i = 0; i < ks[t]; i++)
			if (!readdir(d))
				FAIL("readdir: end after %d of 102 entries", i);
		pos = telldir(d);
		if (pos < 0)
			FAIL("telldir: %s", errname(errno));
		de = readdir(d);
		if (de)
			snprintf(first, sizeof(first), "%s", de->d_name);
		for (int i = 0; i < 5; i++)
			if (!readdir(d))
				break;
		seekdir(d, pos);
		de = readdir(d);
		if (de)
			snprintf(again, sizeof(again), "%s", de->d_name);
		if (strcmp(first, again))
			FAIL("after %d entries: telldir/seekdir: next entry was '%s', after seekdir '%s'",
			     ks[t], first, again);
		if (ks[t] < 102 && !first[0])
			FAIL("after %d entries: readdir returned no entry", ks[t]);
		if (ks[t] >= 102 && first[0])
			FAIL("readdir returned '%s' past the end", first);
	}
	closedir(d);
}

static void t_readdir_rewind(void)
{
	struct names a = { 0 }, b = { 0 };
	struct dirent *de;
	char n[16];
	DIR *d;

	for (int i = 0; i < 30; i++) {
		snprintf(n, sizeof(n), "f%02d", i);
		MKFILE(n, 0644);
	}
	d = opendir(".");
	if (!d)
		FAIL("opendir: %s", errname(errno));
	while ((de = readdir(d)))
		names_add(&a, de->d_name);
	CHECK_EQ(a.n, 32);
	/* rewinddir must make the stream see the current contents */
	OK(unlink("f00"));
	MKFILE("new", 0644);
	rewinddir(d);
	while ((de = readdir(d)))
		names_add(&b, de->d_name);
	closedir(d);
	CHECK_EQ(b.n, 32);
	qsort(b.v, b.n, sizeof(*b.v), cmp_str);
	for (size_t i = 0; i < b.n; i++) {
		if (!strcmp(b.v[i], "f00"))
			FAIL("readdir after rewinddir: returned unlinked 'f00'");
		if (i && !strcmp(b.v[i], b.v[i - 1]))
			FAIL("readdir after rewinddir: '%s' twice", b.v[i]);
	}
	CHECK(bsearch(&(const char *){ "new" }, b.v, b.n, sizeof(*b.v), cmp_str));
	names_free(&a);
	names_free(&b);
}

static void t_readdir_getdents_offsets(void)
{
	static char buf[32768] __attribute__((aligned(8)));
	char small[512] __attribute__((aligned(8)));
	struct names all = { 0 };
	int64_t offs[128];
	size_t no = 0;
	char n[16];
	long got;
	int fd;

	for (int i = 0; i < 60; i++) {
		snprintf(n, sizeof(n), "g%02d", i);
		MKFILE(n, 0644);
	}
	fd = (int)OK(open(".", O_RDONLY | O_DIRECTORY));
	while ((got = OK(gd64(fd, buf, sizeof(buf)))) > 0)
		parse_dents(buf, got, &all, offs, &no);
	CHECK_EQ(all.n, 62);
	CHECK_EQ(no, 62);
	/* lseek to entry i's d_off resumes with entry i+1 */
	for (size_t i = 0; i < all.n; i++) {
		struct names one = { 0 };

		CHECK_EQ(OK(lseek(fd, offs[i], SEEK_SET)), offs[i]);
		got = OK(gd64(fd, small, sizeof(small)));
		if (i + 1 == all.n) {
			if (got != 0)
				FAIL("getdents64 after seeking to the last d_off returned %ld bytes, expected 0",
				     got);
			continue;
		}
		if (got == 0)
			FAIL("getdents64 after seeking to d_off of entry %zu ('%s') returned nothing, expected '%s'",
			     i, all.v[i], all.v[i + 1]);
		parse_dents(small, got, &one, NULL, NULL);
		if (strcmp(one.v[0], all.v[i + 1]))
			FAIL("seek to d_off of '%s': next entry '%s', expected '%s'",
			     all.v[i], one.v[0], all.v[i + 1]);
		names_free(&one);
	}
	/* and back to the start */
	CHECK_EQ(OK(lseek(fd, 0, SEEK_SET)), 0);
	{
		struct names one = { 0 };

		got = OK(gd64(fd, small, sizeof(small)));
		CHECK(got > 0);
		parse_dents(small, got, &one, NULL, NULL);
		CHECK_STR(one.v[0], all.v[0]);
		names_free(&one);
	}
	OK(close(fd));
	names_free(&all);
}

static void t_readdir_small_buffer(void)
{
	/* every name here gives a 24-byte record: one entry per call */
	union { struct ldirent64 d; char b[24]; } u;
	struct names got = { 0 };
	static char nb[40][8];
	const char *exp[40];
	char tiny[8] __attribute__((aligned(8)));
	int fd, calls = 0;
	long r;

	for (int i = 0; i < 40; i++) {
		snprintf(nb[i], sizeof(nb[i]), "f%02d", i);
		exp[i] = nb[i];
		MKFILE(nb[i], 0644);
	}
	fd = (int)OK(open(".", O_RDONLY | O_DIRECTORY));
	ERR(gd64(fd, tiny, sizeof(tiny)), EINVAL);	/* no room for one */
	while ((r = OK(gd64(fd, u.b, sizeof(u.b)))) > 0) {
		CHECK_EQ(r, 24);
		CHECK_EQ(u.d.d_reclen, 24);
		parse_dents(u.b, r, &got, NULL, NULL);
		if (++calls > 100)
			FAIL("getdents64 does not reach the end");
	}
	CHECK_EQ(calls, 42);
	CHECK_EQ(OK(gd64(fd, u.b, sizeof(u.b))), 0);	/* stays at the end */
	OK(close(fd));
	qsort(got.v, got.n, sizeof(*got.v), cmp_str);
	for (size_t i = 1; i < got.n; i++)
		if (!strcmp(got.v[i], got.v[i - 1]))
			FAIL("getdents64: '%s' returned twice", got.v[i]);
	CHECK_EQ(got.n, 42);
	names_free(&got);
	check_dir_at(".", exp, 40, __LINE__);
}

/* ------------------------------------------------------------------ */
/* attributes                                                          */
/* ------------------------------------------------------------------ */

static void t_chmod_exact(void)
{
	static const mode_t modes[] = {
		0, 0644, 0777, 0400, 04755, 02755, 01777, 07777, 06000, 0111,
	};
	int fd;

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		OK(chmod("f", modes[i]));
		CHECK_MODE(LST("f").st_mode, S_IFREG | modes[i]);
		OK(chmod("d", modes[i]));
		CHECK_MODE(LST("d").st_mode, S_IFDIR | modes[i]);
	}
	fd = (int)OK(open("f", O_RDONLY));
	OK(fchmod(fd, 0604));
	CHECK_MODE(FST(fd).st_mode, S_IFREG | 0604);
	OK(close(fd));
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0604);
	OK(fchmodat(AT_FDCWD, "d", 0750, 0));
	CHECK_MODE(LST("d").st_mode, S_IFDIR | 0750);
	CHECK_EQ(NLINK("f"), 1);
	CHECK_EQ(NLINK("d"), 2);
}

static void t_chown_exact(void)
{
	struct stat st;
	int fd;

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	OK(chown("f", 1000, 2000));
	st = LST("f");
	CHECK_EQ(st.st_uid, 1000);
	CHECK_EQ(st.st_gid, 2000);
	OK(chown("f", (uid_t)-1, 3000));
	st = LST("f");
	CHECK_EQ(st.st_uid, 1000);
	CHECK_EQ(st.st_gid, 3000);
	OK(chown("f", 4000, (gid_t)-1));
	st = LST("f");
	CHECK_EQ(st.st_uid, 4000);
	CHECK_EQ(st.st_gid, 3000);
	OK(chown("f", (uid_t)-1, (gid_t)-1));
	st = LST("f");
	CHECK_EQ(st.st_uid, 4000);
	CHECK_EQ(st.st_gid, 3000);
	CHECK_MODE(st.st_mode, S_IFREG | 0644);
	fd = (int)OK(open("f", O_RDONLY));
	OK(fchown(fd, 0, 0));
	CHECK_EQ(FST(fd).st_uid, 0);
	OK(close(fd));
	CHECK_EQ(LST("f").st_gid, 0);
	OK(chown("d", 123456, 654321));	/* ids above 16 bits */
	st = LST("d");
	CHECK_EQ(st.st_uid, 123456);
	CHECK_EQ(st.st_gid, 654321);
	CHECK_MODE(st.st_mode, S_IFDIR | 0755);
}

static void t_lchown_symlink(void)
{
	MKFILE("f", 0644);
	OK(symlink("f", "l"));
	OK(lchown("l", 55, 66));
	CHECK_EQ(LST("l").st_uid, 55);
	CHECK_EQ(LST("l").st_gid, 66);
	CHECK_EQ(LST("f").st_uid, 0);
	CHECK_EQ(LST("f").st_gid, 0);
	OK(chown("l", 77, 88));	/* follows */
	CHECK_EQ(LST("f").st_uid, 77);
	CHECK_EQ(LST("f").st_gid, 88);
	CHECK_EQ(LST("l").st_uid, 55);
	CHECK_EQ(LST("l").st_gid, 66);
	OK(fchownat(AT_FDCWD, "l", 99, 111, AT_SYMLINK_NOFOLLOW));
	CHECK_EQ(LST("l").st_uid, 99);
	CHECK_EQ(LST("f").st_uid, 77);
}

static void t_utimensat_ns(void)
{
	struct timespec ts[2] = { { 1000000000, 123456789 },
				  { 1500000000, 987654321 } };
	struct stat st;
	int fd;

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	st = LST("f");
	CHECK_TS_EQ(st.st_atim, ts[0]);
	CHECK_TS_EQ(st.st_mtim, ts[1]);
	OK(utimensat(AT_FDCWD, "d", ts, 0));
	st = LST("d");
	CHECK_TS_EQ(st.st_atim, ts[0]);
	CHECK_TS_EQ(st.st_mtim, ts[1]);
	ts[0].tv_nsec = 1;
	ts[1].tv_nsec = 999999999;
	fd = (int)OK(open("f", O_RDONLY));
	OK(futimens(fd, ts));
	OK(close(fd));
	st = LST("f");
	CHECK_TS_EQ(st.st_atim, ts[0]);
	CHECK_TS_EQ(st.st_mtim, ts[1]);
	ts[0].tv_nsec = 0;
	ts[1].tv_nsec = 0;
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	st = LST("f");
	CHECK_TS_EQ(st.st_atim, ts[0]);
	CHECK_TS_EQ(st.st_mtim, ts[1]);
	ts[0].tv_nsec = 1000000000;	/* out of range */
	ERR(utimensat(AT_FDCWD, "f", ts, 0), EINVAL);
}

static void t_utimensat_omit(void)
{
	struct timespec base[2] = { { 1100000000, 111 }, { 1200000000, 222 } };
	struct timespec ts[2];
	struct stat st, st0;

	MKFILE("f", 0644);
	OK(utimensat(AT_FDCWD, "f", base, 0));
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = 1300000000;
	ts[1].tv_nsec = 333;
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	st = LST("f");
	CHECK_TS_EQ(st.st_atim, base[0]);
	CHECK_TS_EQ(st.st_mtim, ts[1]);
	ts[0].tv_sec = 1400000000;
	ts[0].tv_nsec = 444;
	ts[1].tv_nsec = UTIME_OMIT;
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	st = LST("f");
	CHECK_TS_EQ(st.st_atim, ts[0]);
	CHECK_EQ(st.st_mtim.tv_sec, 1300000000);
	CHECK_EQ(st.st_mtim.tv_nsec, 333);
	st0 = st;
	tick();
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_nsec = UTIME_OMIT;
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	st = LST("f");
	CHECK_TS_EQ(st.st_atim, st0.st_atim);
	CHECK_TS_EQ(st.st_mtim, st0.st_mtim);
	CHECK_TS_EQ(st.st_ctim, st0.st_ctim);	/* both omitted: no change */
}

static void t_utimensat_now(void)
{
	struct timespec old[2] = { { 1000000000, 5 }, { 1000000000, 6 } };
	struct timespec ts[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	struct stat st;

	MKFILE("f", 0644);
	OK(utimensat(AT_FDCWD, "f", old, 0));
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	st = LST("f");
	CHECK_TS_NOW(st.st_atim);
	CHECK_TS_NOW(st.st_mtim);
	CHECK_TS_NOW(st.st_ctim);
	OK(utimensat(AT_FDCWD, "f", old, 0));
	OK(utimensat(AT_FDCWD, "f", NULL, 0));
	st = LST("f");
	CHECK_TS_NOW(st.st_atim);
	CHECK_TS_NOW(st.st_mtim);
	OK(utimensat(AT_FDCWD, "f", old, 0));
	ts[1] = old[1];
	ts[1].tv_nsec = 7;
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	st = LST("f");
	CHECK_TS_NOW(st.st_atim);
	CHECK_TS_EQ(st.st_mtim, ts[1]);
}

static void t_utimensat_nofollow(void)
{
	struct timespec ts[2] = { { 1111111111, 11 }, { 1222222222, 22 } };
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct stat st;

	MKFILE("f", 0644);
	OK(utimensat(AT_FDCWD, "f", old, 0));
	OK(symlink("f", "l"));
	OK(utimensat(AT_FDCWD, "l", ts, AT_SYMLINK_NOFOLLOW));
	st = LST("l");
	CHECK_TS_EQ(st.st_atim, ts[0]);
	CHECK_TS_EQ(st.st_mtim, ts[1]);
	st = LST("f");
	CHECK_TS_EQ(st.st_atim, old[0]);
	CHECK_TS_EQ(st.st_mtim, old[1]);
	OK(utimensat(AT_FDCWD, "l", ts, 0));	/* follows */
	CHECK_TS_EQ(LST("f").st_mtim, ts[1]);
}

static void t_utimensat_wide_range(void)
{
	/* after 2038, after 2106, before 1970 */
	static const struct timespec t[] = {
		{ 2147483648LL, 1 }, { 4102444800LL, 5 }, { 4294967296LL, 6 },
		{ -1, 0 }, { -86400LL * 365, 123 }, { 0, 0 },
	};
	struct timespec ts[2];
	struct stat st;

	MKFILE("f", 0644);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ts[0] = t[i];
		ts[1] = t[i];
		ts[1].tv_nsec += 100;
		OK(utimensat(AT_FDCWD, "f", ts, 0));
		st = LST("f");
		CHECK_TS_EQ(st.st_atim, ts[0]);
		CHECK_TS_EQ(st.st_mtim, ts[1]);
	}
}

static void t_ctime_chmod(void)
{
	struct stat a, b;
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	MKFILE("f", 0644);
	a = LST("f");
	tick();
	OK(chmod("f", 0600));
	b = LST("f");
	CHECK_TS_LATER(b.st_ctim, a.st_ctim);
	CHECK_TS_EQ(b.st_mtim, a.st_mtim);	/* chmod leaves mtime */
	CHECK_TS_NOW(b.st_ctim);
	a = b;
	tick();
	OK(chown("f", 5, 5));
	b = LST("f");
	CHECK_TS_LATER(b.st_ctim, a.st_ctim);
	CHECK_TS_EQ(b.st_mtim, a.st_mtim);
	a = b;
	tick();
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	b = LST("f");
	CHECK_TS_LATER(b.st_ctim, a.st_ctim);	/* setting times changes ctime */
	CHECK_TS_NOW(b.st_ctim);
	/* chmod of a directory too */
	MKDIR("d", 0755);
	a = LST("d");
	tick();
	OK(chmod("d", 0700));
	CHECK_TS_LATER(LST("d").st_ctim, a.st_ctim);
}

static void t_ctime_link(void)
{
	struct stat a, b;

	MKFILE("f", 0644);
	a = LST("f");
	tick();
	OK(link("f", "g"));
	b = LST("f");
	CHECK_TS_LATER(b.st_ctim, a.st_ctim);
	CHECK_TS_EQ(b.st_mtim, a.st_mtim);
	CHECK_TS_NOW(b.st_ctim);
	CHECK_EQ(b.st_nlink, 2);
}

static void t_ctime_unlink(void)
{
	struct stat a, b;

	MKFILE("f", 0644);
	OK(link("f", "g"));
	a = LST("g");
	tick();
	OK(unlink("f"));
	b = LST("g");
	CHECK_TS_LATER(b.st_ctim, a.st_ctim);
	CHECK_TS_EQ(b.st_mtim, a.st_mtim);
	CHECK_EQ(b.st_nlink, 1);
}

static void t_ctime_rename(void)
{
	struct stat a, b, t0;

	MKFILE("f", 0644);
	MKDIR("p", 0755);
	a = LST("f");
	tick();
	OK(rename("f", "g"));
	b = LST("g");
	CHECK_TS_LATER(b.st_ctim, a.st_ctim);
	CHECK_TS_EQ(b.st_mtim, a.st_mtim);
	a = b;
	tick();
	OK(rename("g", "p/g"));
	b = LST("p/g");
	CHECK_TS_LATER(b.st_ctim, a.st_ctim);
	/* the replaced target (still linked elsewhere) gets a new ctime */
	MKFILE("t", 0644);
	OK(link("t", "t2"));
	t0 = LST("t2");
	tick();
	OK(rename("p/g", "t"));
	b = LST("t2");
	CHECK_TS_LATER(b.st_ctim, t0.st_ctim);
	CHECK_EQ(b.st_nlink, 1);
}

static void t_dir_mtime_create_unlink(void)
{
	struct stat a, b;

#define STEP(op) do {							\
		a = LST("d");						\
		tick();							\
		OK(op);							\
		b = LST("d");						\
		if (tsns(b.st_mtim) <= tsns(a.st_mtim))			\
			FAIL("%s: directory mtime did not advance (%lld.%09ld -> %lld.%09ld)", \
			     #op, (long long)a.st_mtim.tv_sec, a.st_mtim.tv_nsec, \
			     (long long)b.st_mtim.tv_sec, b.st_mtim.tv_nsec); \
		if (tsns(b.st_ctim) <= tsns(a.st_ctim))			\
			FAIL("%s: directory ctime did not advance", #op); \
		CHECK_TS_NOW(b.st_mtim);				\
	} while (0)

	MKDIR("d", 0755);
	MKFILE("other", 0644);
	STEP(close((int)OK(open("d/f", O_CREAT | O_EXCL | O_RDONLY, 0644))));
	STEP(mkdir("d/sub", 0755));
	STEP(symlink("t", "d/l"));
	STEP(mknod("d/p", S_IFIFO | 0644, 0));
	STEP(link("other", "d/h"));
	STEP(unlink("d/f"));
	STEP(rmdir("d/sub"));
	STEP(unlink("d/l"));
#undef STEP
	/* lookups and failed operations do not change it */
	a = LST("d");
	tick();
	ERR(mkdir("d/p", 0755), EEXIST);
	ERR(unlink("d/nothing"), ENOENT);
	LST("d/h");
	b = LST("d");
	CHECK_TS_EQ(b.st_mtim, a.st_mtim);
	CHECK_TS_EQ(b.st_ctim, a.st_ctim);
}

static void t_dir_mtime_rename(void)
{
	struct stat p1a, p2a, p1b, p2b;

	MKDIR("p1", 0755);
	MKDIR("p2", 0755);
	MKFILE("p1/f", 0644);
	p1a = LST("p1");
	p2a = LST("p2");
	tick();
	OK(rename("p1/f", "p2/f"));
	p1b = LST("p1");
	p2b = LST("p2");
	CHECK_TS_LATER(p1b.st_mtim, p1a.st_mtim);
	CHECK_TS_LATER(p1b.st_ctim, p1a.st_ctim);
	CHECK_TS_LATER(p2b.st_mtim, p2a.st_mtim);
	CHECK_TS_LATER(p2b.st_ctim, p2a.st_ctim);
	/* same-directory rename changes that directory */
	p2a = p2b;
	tick();
	OK(rename("p2/f", "p2/g"));
	p2b = LST("p2");
	CHECK_TS_LATER(p2b.st_mtim, p2a.st_mtim);
	/* moving a directory across parents */
	MKDIR("p1/d", 0755);
	p1a = LST("p1");
	p2a = LST("p2");
	tick();
	OK(rename("p1/d", "p2/d"));
	CHECK_TS_LATER(LST("p1").st_mtim, p1a.st_mtim);
	CHECK_TS_LATER(LST("p2").st_mtim, p2a.st_mtim);
}

static void t_statx_basic_btime(void)
{
	struct timespec before = now_rt(), ts[2] = { { 1000000000, 0 },
						     { 1000000000, 0 } };
	struct statx sx, sx2;
	struct stat st;

	MKFILE("f", 0640);
	OK(statx(AT_FDCWD, "f", AT_SYMLINK_NOFOLLOW,
		 STATX_BASIC_STATS | STATX_BTIME, &sx));
	st = LST("f");
	CHECK_EQ(sx.stx_mask & STATX_BASIC_STATS, STATX_BASIC_STATS);
	CHECK_EQ(sx.stx_ino, st.st_ino);
	CHECK_EQ(sx.stx_mode, st.st_mode);
	CHECK_EQ(sx.stx_nlink, st.st_nlink);
	CHECK_EQ(sx.stx_uid, st.st_uid);
	CHECK_EQ(sx.stx_gid, st.st_gid);
	CHECK_EQ(sx.stx_size, st.st_size);
	CHECK_EQ(sx.stx_ctime.tv_sec, st.st_ctim.tv_sec);
	CHECK_EQ(sx.stx_ctime.tv_nsec, st.st_ctim.tv_nsec);
	CHECK_EQ(sx.stx_mtime.tv_nsec, st.st_mtim.tv_nsec);
	if (!(sx.stx_mask & STATX_BTIME)) {
		info("file system does not report STATX_BTIME (stx_mask 0x%x)",
		     sx.stx_mask);
		return;
	}
	if (sx.stx_btime.tv_sec < before.tv_sec - 1 ||
	    sx.stx_btime.tv_sec > now_rt().tv_sec + 1)
		FAIL("btime %lld is not the creation time (created at ~%lld)",
		     (long long)sx.stx_btime.tv_sec, (long long)before.tv_sec);
	tick();
	OK(chmod("f", 0600));
	OK(utimensat(AT_FDCWD, "f", ts, 0));
	OK(statx(AT_FDCWD, "f", 0, STATX_BTIME, &sx2));
	CHECK(sx2.stx_mask & STATX_BTIME);
	CHECK_EQ(sx2.stx_btime.tv_sec, sx.stx_btime.tv_sec);
	CHECK_EQ(sx2.stx_btime.tv_nsec, sx.stx_btime.tv_nsec);
	info("STATX_BTIME reported: %lld.%09u", (long long)sx.stx_btime.tv_sec,
	     sx.stx_btime.tv_nsec);
}

/* ------------------------------------------------------------------ */
/* inode flags                                                         */
/* ------------------------------------------------------------------ */

/*
 * A flag that does not fit the type of the inode is EOPNOTSUPP, as ext4's
 * ext4_mask_flags(): DIRSYNC and CASEFOLD on a regular file.  DIRSYNC on
 * a directory is kept.  (A FIFO's or device's descriptor has no fileattr
 * operations on either file system: ENOTTY.)
 */
static void t_flags_type(void)
{
	int fd, fl, v;

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	fd = (int)OK(open("f", O_RDONLY));
	fl = GETFLAGS("f");
	v = fl | FS_DIRSYNC_FL;
	ERR(ioctl(fd, FS_IOC_SETFLAGS, &v), EOPNOTSUPP);
	v = fl | 0x40000000;	/* FS_CASEFOLD_FL */
	ERR(ioctl(fd, FS_IOC_SETFLAGS, &v), EOPNOTSUPP);
	OK(close(fd));
	CHECK_EQ(GETFLAGS("f"), fl);
	fl = GETFLAGS("d");
	SETFLAGS("d", fl | FS_DIRSYNC_FL);
	CHECK(GETFLAGS("d") & FS_DIRSYNC_FL);
	SETFLAGS("d", fl);
	CHECK(!(GETFLAGS("d") & FS_DIRSYNC_FL));
	OK(unlink("f"));
	OK(rmdir("d"));
}

static void t_flags_noatime(void)
{
	int fl;

	MKFILE("f", 0644);
	MKDIR("d", 0755);
	fl = GETFLAGS("f");
	CHECK(!(fl & (FS_NOATIME_FL | FS_APPEND_FL | FS_IMMUTABLE_FL)));
	SETFLAGS("f", fl | FS_NOATIME_FL);
	CHECK_EQ(GETFLAGS("f"), fl | FS_NOATIME_FL);
	SETFLAGS("f", fl);
	CHECK_EQ(GETFLAGS("f"), fl);
	fl = GETFLAGS("d");
	SETFLAGS("d", fl | FS_NOATIME_FL);
	CHECK(GETFLAGS("d") & FS_NOATIME_FL);
	SETFLAGS("d", fl & ~FS_NOATIME_FL);
	CHECK(!(GETFLAGS("d") & FS_NOATIME_FL));
	/* the flags do not move to other names/inodes */
	MKFILE("g", 0644);
	SETFLAGS("f", fl | FS_NOATIME_FL);
	CHECK(!(GETFLAGS("g") & FS_NOATIME_FL));
	OK(link("f", "f2"));
	CHECK(GETFLAGS("f2") & FS_NOATIME_FL);
}

static void t_flags_append(void)
{
	int fl, fd;

	MKFILE("f", 0644);
	MKFILE("x", 0644);
	fl = GETFLAGS("f");
	SETFLAGS("f", fl | FS_APPEND_FL);
	CHECK(GETFLAGS("f") & FS_APPEND_FL);
	CHECK_STATX_ATTR("f", STATX_ATTR_APPEND, 1);
	ERR(open("f", O_WRONLY), EPERM);
	ERR(open("f", O_RDWR), EPERM);
	ERR(open("f", O_WRONLY | O_APPEND | O_TRUNC), EPERM);
	fd = (int)OK(open("f", O_WRONLY | O_APPEND));
	OK(close(fd));
	fd = (int)OK(open("f", O_RDONLY));
	OK(close(fd));
	ERR(unlink("f"), EPERM);
	ERR(rename("f", "g"), EPERM);
	ERR(rename("x", "f"), EPERM);
	ERR(link("f", "h"), EPERM);
	ERR(chmod("f", 0600), EPERM);
	ERR(truncate("f", 0), EPERM);
	CHECK_TYPE("f", S_IFREG);
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0644);
	CHECK_DIR(".", "f", "x");
	SETFLAGS("f", fl & ~FS_APPEND_FL);
	CHECK(!(GETFLAGS("f") & FS_APPEND_FL));
	CHECK_STATX_ATTR("f", STATX_ATTR_APPEND, 0);
	fd = (int)OK(open("f", O_WRONLY));
	OK(close(fd));
	OK(chmod("f", 0600));
	OK(unlink("f"));
	ABSENT("f");
	CHECK_DIR(".", "x");
}

static void t_flags_immutable(void)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	int fl, fd;

	MKFILE("f", 0644);
	MKFILE("x", 0644);
	fl = GETFLAGS("f");
	SETFLAGS("f", fl | FS_IMMUTABLE_FL);
	CHECK(GETFLAGS("f") & FS_IMMUTABLE_FL);
	CHECK_STATX_ATTR("f", STATX_ATTR_IMMUTABLE, 1);
	ERR(open("f", O_WRONLY), EPERM);
	ERR(open("f", O_RDWR), EPERM);
	ERR(open("f", O_WRONLY | O_APPEND), EPERM);
	fd = (int)OK(open("f", O_RDONLY));
	OK(close(fd));
	ERR(unlink("f"), EPERM);
	ERR(chmod("f", 0600), EPERM);
	ERR(chown("f", 1, 1), EPERM);
	ERR(rename("f", "g"), EPERM);
	ERR(rename("x", "f"), EPERM);
	ERR(link("f", "h"), EPERM);
	ERR(utimensat(AT_FDCWD, "f", ts, 0), EPERM);
	ERR(truncate("f", 0), EPERM);
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0644);
	CHECK_EQ(LST("f").st_uid, 0);
	CHECK_EQ(NLINK("f"), 1);
	CHECK_DIR(".", "f", "x");
	SETFLAGS("f", fl & ~FS_IMMUTABLE_FL);
	CHECK(!(GETFLAGS("f") & FS_IMMUTABLE_FL));
	CHECK_STATX_ATTR("f", STATX_ATTR_IMMUTABLE, 0);
	fd = (int)OK(open("f", O_WRONLY));
	OK(close(fd));
	OK(chmod("f", 0600));
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0600);
	OK(link("f", "h"));
	OK(rename("f", "g"));
	OK(unlink("g"));
	OK(unlink("h"));
	CHECK_DIR(".", "x");
}

/*
 * A descriptor opened before chattr +i cannot change the file either
 * (as ext4): write, ftruncate, fallocate, fchmod fail with EPERM, and a
 * store through a shared mapping made before gets SIGBUS, also to a page
 * already written through it (chattr +i write-protects it, as ext4).
 */
static void t_flags_immutable_open_fd(void)
{
	int fl, fd, status;
	pid_t pid;

	MKFILE("f", 0644);
	fd = (int)OK(open("f", O_RDWR));
	OK(ftruncate(fd, 8192));
	fl = GETFLAGS("f");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/*
		 * A page this process already stores to (writable in its page
		 * table), then chattr +i, then a store to it: SIGBUS
		 */
		char *q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
		int f2 = fl | FS_IMMUTABLE_FL;

		signal(SIGBUS, SIG_DFL);
		if (q == MAP_FAILED)
			_exit(2);
		q[1] = 1;
		if (ioctl(fd, FS_IOC_SETFLAGS, &f2))
			_exit(3);
		q[0] = 1;
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	CHECK(GETFLAGS("f") & FS_IMMUTABLE_FL);
	ERR(write(fd, "x", 1), EPERM);
	ERR(pwrite(fd, "x", 1, 100), EPERM);
	ERR(ftruncate(fd, 0), EPERM);
	ERR(ftruncate(fd, 100000), EPERM);
	ERR(fallocate(fd, 0, 0, 4096), EPERM);
	ERR(fchmod(fd, 0600), EPERM);
	ERR(futimens(fd, NULL), EPERM);
	CHECK_EQ(FST(fd).st_size, 8192);
	SETFLAGS("f", fl);
	OK(ftruncate(fd, 0));
	OK(close(fd));
	OK(unlink("f"));
}

static void t_flags_immutable_dir(void)
{
	int fl;

	MKDIR("d", 0755);
	MKFILE("d/f", 0644);
	fl = GETFLAGS("d");
	SETFLAGS("d", fl | FS_IMMUTABLE_FL);
	CHECK(GETFLAGS("d") & FS_IMMUTABLE_FL);
	ERR(open("d/g", O_CREAT | O_RDWR, 0644), EPERM);
	ERR(mkdir("d/s", 0755), EPERM);
	ERR(symlink("t", "d/l"), EPERM);
	ERR(unlink("d/f"), EPERM);
	ERR(rename("d/f", "d/h"), EPERM);
	ERR(rename("d/f", "moved"), EPERM);
	ERR(chmod("d", 0700), EPERM);
	CHECK_DIR("d", "f");
	CHECK_MODE(LST("d").st_mode, S_IFDIR | 0755);
	SETFLAGS("d", fl & ~FS_IMMUTABLE_FL);
	CHECK(!(GETFLAGS("d") & FS_IMMUTABLE_FL));
	MKFILE("d/g", 0644);
	OK(rename("d/f", "d/h"));
	OK(unlink("d/h"));
	CHECK_DIR("d", "g");
}

static void t_flags_append_dir(void)
{
	int fl;

	MKDIR("d", 0755);
	MKFILE("d/f", 0644);
	fl = GETFLAGS("d");
	SETFLAGS("d", fl | FS_APPEND_FL);
	CHECK(GETFLAGS("d") & FS_APPEND_FL);
	/* an append-only directory allows adding names, not removing them */
	MKFILE("d/g", 0644);
	MKDIR("d/s", 0755);
	ERR(unlink("d/f"), EPERM);
	ERR(rmdir("d/s"), EPERM);
	ERR(rename("d/f", "d/h"), EPERM);
	CHECK_DIR("d", "f", "g", "s");
	SETFLAGS("d", fl & ~FS_APPEND_FL);
	CHECK(!(GETFLAGS("d") & FS_APPEND_FL));
	OK(unlink("d/f"));
	OK(rmdir("d/s"));
	CHECK_DIR("d", "g");
}

/* ------------------------------------------------------------------ */
/* setgid directories, permissions as non-root                         */
/* ------------------------------------------------------------------ */

static void t_setgid_dir_inherit(void)
{
	struct stat st;

	MKDIR("g", 0775);
	OK(chown("g", 0, 1234));
	OK(chmod("g", 02775));
	CHECK_MODE(LST("g").st_mode, S_IFDIR | 02775);
	MKFILE("g/f", 0644);
	st = LST("g/f");
	CHECK_EQ(st.st_gid, 1234);
	CHECK_EQ(st.st_uid, 0);
	CHECK_MODE(st.st_mode, S_IFREG | 0644);
	MKDIR("g/sub", 0755);
	st = LST("g/sub");
	CHECK_EQ(st.st_gid, 1234);
	CHECK_MODE(st.st_mode, S_IFDIR | 02755);
	MKFILE("g/sub/f2", 0600);
	CHECK_EQ(LST("g/sub/f2").st_gid, 1234);
	OK(mknod("g/p", S_IFIFO | 0644, 0));
	CHECK_EQ(LST("g/p").st_gid, 1234);
	OK(symlink("f", "g/l"));
	CHECK_EQ(LST("g/l").st_gid, 1234);
	/* without S_ISGID the creator's group is used */
	MKDIR("n", 0775);
	OK(chown("n", 0, 1234));
	MKFILE("n/f", 0644);
	CHECK_EQ(LST("n/f").st_gid, 0);
	MKDIR("n/sub", 0755);
	CHECK_EQ(LST("n/sub").st_gid, 0);
	CHECK_MODE(LST("n/sub").st_mode, S_IFDIR | 0755);
}

static void c_perm_create_eacces(void)
{
	struct stat st;
	int fd;

	ERR(open("ro/x", O_CREAT | O_EXCL | O_RDWR, 0644), EACCES);
	ERR(mkdir("ro/y", 0755), EACCES);
	ERR(mknod("ro/p", S_IFIFO | 0644, 0), EACCES);
	ERR(symlink("t", "ro/l"), EACCES);
	ERR(unlink("ro/rootfile"), EACCES);
	ERR(rename("ro/rootfile", "ro/z"), EACCES);
	ERR(rmdir("ro/sub"), EACCES);
	ERR(open("ro/rootfile", O_WRONLY), EACCES);
	OK(stat("ro/rootfile", &st));
	CHECK_EQ(st.st_uid, 0);
	fd = (int)OK(open("ro/rootfile", O_RDONLY));
	OK(close(fd));
	CHECK_DIR("ro", "rootfile", "sub");
}

static void t_perm_create_eacces(void)
{
	MKDIR("ro", 0755);
	MKFILE("ro/rootfile", 0644);
	MKDIR("ro/sub", 0755);
	RUN_AS(1000, 1000, c_perm_create_eacces);
	CHECK_DIR("ro", "rootfile", "sub");
	CHECK_EQ(NLINK("ro"), 3);
}

static void c_perm_create_0777(void)
{
	struct stat st;

	MKFILE("rw/f", 0640);
	st = LST("rw/f");
	CHECK_EQ(st.st_uid, 1000);
	CHECK_EQ(st.st_gid, 1000);
	CHECK_MODE(st.st_mode, S_IFREG | 0640);
	MKDIR("rw/d", 0750);
	CHECK_EQ(LST("rw/d").st_uid, 1000);
	OK(symlink("f", "rw/l"));
	CHECK_EQ(LST("rw/l").st_uid, 1000);
	OK(rename("rw/f", "rw/f2"));
	OK(link("rw/f2", "rw/f3"));
	OK(chmod("rw/f2", 0600));
	OK(unlink("rw/f3"));
	CHECK_DIR("rw", "f2", "d", "l");
}

static void t_perm_create_0777(void)
{
	MKDIR("rw", 0777);
	RUN_AS(1000, 1000, c_perm_create_0777);
	CHECK_EQ(LST("rw/f2").st_uid, 1000);
	CHECK_EQ(LST("rw/f2").st_gid, 1000);
	CHECK_MODE(LST("rw/f2").st_mode, S_IFREG | 0600);
	CHECK_EQ(LST("rw/d").st_uid, 1000);
	CHECK_EQ(NLINK("rw"), 3);
	CHECK_DIR("rw", "f2", "d", "l");
}

static void c_perm_sticky(void)
{
	ERR(unlink("s/other"), EPERM);
	ERR(unlink("s/rootf"), EPERM);
	ERR(rename("s/other", "s/x"), EPERM);
	ERR(rmdir("s/otherdir"), EPERM);
	MKFILE("s/mine", 0644);
	OK(rename("s/mine", "s/mine2"));
	ERR(rename("s/mine2", "s/other"), EPERM);	/* would replace it */
	OK(unlink("s/mine2"));
	MKDIR("s/md", 0755);
	OK(rmdir("s/md"));
	CHECK_DIR("s", "other", "rootf", "otherdir");
}

static void t_perm_sticky(void)
{
	MKDIR("s", 01777);
	CHECK_MODE(LST("s").st_mode, S_IFDIR | 01777);
	MKFILE("s/other", 0666);
	OK(chown("s/other", 2000, 2000));
	MKFILE("s/rootf", 0666);
	MKDIR("s/otherdir", 0777);
	OK(chown("s/otherdir", 2000, 2000));
	RUN_AS(1000, 1000, c_perm_sticky);
	CHECK_EQ(LST("s/other").st_uid, 2000);
	CHECK_DIR("s", "other", "rootf", "otherdir");
	/* root may */
	OK(unlink("s/other"));
	CHECK_DIR("s", "rootf", "otherdir");
}

static void c_perm_search_eacces(void)
{
	struct stat st;
	int fd;

	ERR(stat("nx/f", &st), EACCES);
	ERR(open("nx/f", O_RDONLY), EACCES);
	ERR(open("nx", O_RDONLY | O_DIRECTORY), EACCES);
	ERR(open("nx/new", O_CREAT | O_RDWR, 0644), EACCES);
	/* search only: lookups work, listing does not */
	OK(stat("xo/f", &st));
	ERR(open("xo", O_RDONLY | O_DIRECTORY), EACCES);
	/* read only: listing works, lookups do not */
	fd = (int)OK(open("ro", O_RDONLY | O_DIRECTORY));
	OK(close(fd));
	CHECK_DIR("ro", "f");
	ERR(stat("ro/f", &st), EACCES);
}

static void t_perm_search_eacces(void)
{
	MKDIR("nx", 0700);
	MKFILE("nx/f", 0644);
	MKDIR("xo", 0711);
	MKFILE("xo/f", 0644);
	MKDIR("ro", 0744);
	MKFILE("ro/f", 0644);
	RUN_AS(1000, 1000, c_perm_search_eacces);
	CHECK_DIR("nx", "f");
}

static void c_perm_chmod_chown_eperm(void)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	ERR(chmod("f", 0777), EPERM);
	ERR(chown("f", 1000, 1000), EPERM);
	ERR(utimensat(AT_FDCWD, "f", ts, 0), EPERM);
	ERR(utimensat(AT_FDCWD, "f", NULL, 0), EACCES);	/* not writable */
	OK(utimensat(AT_FDCWD, "w", NULL, 0));	/* writable: may touch */
	ERR(utimensat(AT_FDCWD, "w", ts, 0), EPERM);
	OK(chmod("mine", 0600));
	OK(chown("mine", (uid_t)-1, 1000));
	ERR(chown("mine", 2000, (gid_t)-1), EPERM);
	ERR(chown("mine", (uid_t)-1, 2000), EPERM);
	OK(utimensat(AT_FDCWD, "mine", ts, 0));
}

static void t_perm_chmod_chown_eperm(void)
{
	struct timespec old[2] = { { 1200000000, 0 }, { 1200000000, 0 } };

	MKFILE("f", 0644);
	MKFILE("w", 0666);
	MKFILE("mine", 0644);
	OK(chown("mine", 1000, 3000));
	OK(utimensat(AT_FDCWD, "w", old, 0));
	RUN_AS(1000, 1000, c_perm_chmod_chown_eperm);
	CHECK_MODE(LST("f").st_mode, S_IFREG | 0644);
	CHECK_EQ(LST("f").st_uid, 0);
	CHECK_MODE(LST("mine").st_mode, S_IFREG | 0600);
	CHECK_EQ(LST("mine").st_gid, 1000);
	CHECK_EQ(LST("mine").st_mtim.tv_sec, 1000000000);
	CHECK_TS_NOW(LST("w").st_mtim);
}

/* ------------------------------------------------------------------ */
/* inode number reuse and generation                                   */
/* ------------------------------------------------------------------ */

static void t_inode_reuse_generation(void)
{
	ino_t keep_ino;
	int reused = 0;

	MKFILE("keep", 0644);
	keep_ino = INO("keep");
	for (int t = 0; t < 20 && !reused; t++) {
		ino_t ia, ib;
		unsigned int ga, gb;

		MKFILE("a", 0644);
		ia = INO("a");
		ga = GETVERSION("a");
		CHECK_EQ(GETVERSION("a"), ga);	/* stable */
		OK(unlink("a"));
		ABSENT("a");
		MKFILE("b", 0644);
		ib = INO("b");
		gb = GETVERSION("b");
		CHECK_NE(ib, keep_ino);
		if (ib == ia) {
			reused = 1;
			if (ga == gb)
				FAIL("inode %llu was reused but its generation stayed %u",
				     (unsigned long long)ib, ga);
			info("inode %llu reused (try %d): generation %u -> %u",
			     (unsigned long long)ib, t + 1, ga, gb);
		}
		OK(unlink("b"));
	}
	if (!reused)
		info("no inode number was reused in 20 tries; generation change not checked");
	CHECK_EQ(INO("keep"), keep_ino);
	CHECK_DIR(".", "keep");
}

/* ------------------------------------------------------------------ */
/* runner                                                              */
/* ------------------------------------------------------------------ */

#define T(n) { #n, t_##n }
static const struct tcase cases[] = {
	T(create_excl_new),
	T(create_excl_exists),
	T(create_existing_noexcl),
	T(create_enoent_parent),
	T(create_enotdir_component),
	T(create_trailing_slash),
	T(create_umask),
	T(create_in_deleted_dir),
	T(create_excl_dangling_symlink),
	T(create_via_dangling_symlink),
	T(open_dir_eisdir),
	T(open_odirectory_file),
	T(mkdir_basic),
	T(mkdir_eexist),
	T(mkdir_enoent),
	T(mkdir_parent_nlink),
	T(mkdir_mode_bits),
	T(mkdir_deep),
	T(rmdir_basic),
	T(rmdir_enotempty),
	T(rmdir_enotdir),
	T(rmdir_dot),
	T(rmdir_enoent),
	T(rmdir_after_emptied),
	T(unlink_basic),
	T(unlink_enoent),
	T(unlink_dir_eisdir),
	T(unlink_open_file),
	T(unlink_trailing_slash),
	T(link_basic),
	T(link_eexist),
	T(link_dir_eperm),
	T(link_enoent),
	T(link_many),
	T(link_across_dirs),
	T(link_symlink_nofollow),
	T(rename_same_dir),
	T(rename_across_dirs),
	T(rename_over_file),
	T(rename_dir_over_empty_dir),
	T(rename_dir_over_empty_dir_across),
	T(rename_dir_over_nonempty_dir),
	T(rename_file_over_dir),
	T(rename_dir_over_file),
	T(rename_to_itself),
	T(rename_hardlinks_same_inode),
	T(rename_dir_into_subtree),
	T(rename_dir_across_parents),
	T(rename_enoent),
	T(rename_dot_ebusy),
	T(rename_readdir),
	T(rename_noreplace_exists),
	T(rename_noreplace_absent),
	T(rename_exchange_files),
	T(rename_exchange_file_dir),
	T(rename_exchange_dirs),
	T(rename_exchange_enoent),
	T(symlink_short),
	T(symlink_long),
	T(symlink_4095),
	T(symlink_follow),
	T(symlink_dangling),
	T(symlink_loop),
	T(symlink_eexist),
	T(symlink_dir_follow),
	T(readlink_einval),
	T(mknod_fifo),
	T(mknod_chr),
	T(mknod_chr_large_dev),
	T(mknod_blk),
	T(mknod_sock),
	T(mknod_reg_eexist),
	T(name_255),
	T(name_256),
	T(name_special_chars),
	T(name_similar),
	T(readdir_empty),
	T(readdir_500),
	T(readdir_after_unlink),
	T(readdir_while_renames),
	T(readdir_dtype),
	T(readdir_ino),
	T(readdir_stability),
	T(readdir_telldir_seekdir),
	T(readdir_rewind),
	T(readdir_getdents_offsets),
	T(readdir_small_buffer),
	T(chmod_exact),
	T(chown_exact),
	T(lchown_symlink),
	T(utimensat_ns),
	T(utimensat_omit),
	T(utimensat_now),
	T(utimensat_nofollow),
	T(utimensat_wide_range),
	T(ctime_chmod),
	T(ctime_link),
	T(ctime_unlink),
	T(ctime_rename),
	T(dir_mtime_create_unlink),
	T(dir_mtime_rename),
	T(statx_basic_btime),
	T(flags_type),
	T(flags_noatime),
	T(flags_append),
	T(flags_immutable),
	T(flags_immutable_open_fd),
	T(flags_immutable_dir),
	T(flags_append_dir),
	T(setgid_dir_inherit),
	T(perm_create_eacces),
	T(perm_create_0777),
	T(perm_sticky),
	T(perm_search_eacces),
	T(perm_chmod_chown_eperm),
	T(inode_reuse_generation),
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Clear append-only/immutable on an open file or directory. */
static void clear_flags_fd(int fd)
{
	int fl;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 &&
	    (fl & (FS_APPEND_FL | FS_IMMUTABLE_FL))) {
		fl &= ~(FS_APPEND_FL | FS_IMMUTABLE_FL);
		if (ioctl(fd, FS_IOC_SETFLAGS, &fl)) {
			/* reported by the unlink that follows */
		}
	}
}

static void clear_flags_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);

	if (fd >= 0) {
		clear_flags_fd(fd);
		close(fd);
	}
}

/*
 * Remove dfd/name recursively; with only_flags, just clear append-only and
 * immutable flags everywhere. Returns 0 or -1 with a message in err.
 */
static int rm_tree(int dfd, const char *name, int only_flags, char *err,
		   size_t errsz)
{
	struct stat st;
	int rc = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errsz, "lstat(%s): %s", name, errname(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		struct names ns = { 0 };
		struct dirent *de;
		DIR *d;
		int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

		if (fd < 0) {
			snprintf(err, errsz, "open(%s): %s", name, errname(errno));
			return -1;
		}
		clear_flags_fd(fd);
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			snprintf(err, errsz, "fdopendir(%s): %s", name,
				 errname(errno));
			return -1;
		}
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				names_add(&ns, de->d_name);
		for (size_t i = 0; i < ns.n; i++)
			if (rm_tree(dirfd(d), ns.v[i], only_flags, err, errsz))
				rc = -1;
		names_free(&ns);
		closedir(d);
		if (rc || only_flags)
			return rc;
		if (unlinkat(dfd, name, AT_REMOVEDIR)) {
			if (errno == EPERM) {
				clear_flags_fd(dfd);
				if (!unlinkat(dfd, name, AT_REMOVEDIR))
					return 0;
			}
			snprintf(err, errsz, "rmdir(%s): %s", name, errname(errno));
			return -1;
		}
		return 0;
	}
	if (S_ISREG(st.st_mode))
		clear_flags_at(dfd, name);
	if (only_flags)
		return 0;
	if (unlinkat(dfd, name, 0)) {
		if (errno == EPERM) {
			clear_flags_fd(dfd);
			if (!unlinkat(dfd, name, 0))
				return 0;
		}
		snprintf(err, errsz, "unlink(%s): %s", name, errname(errno));
		return -1;
	}
	return 0;
}

static void on_alarm(int sig)
{
	static const char a[] = "FAIL ", b[] = ": timed out\nt_namespace: aborted\n";

	(void)sig;
	if (write(1, a, sizeof(a) - 1) < 0 ||
	    write(1, g_case, strlen(g_case)) < 0 ||
	    write(1, b, sizeof(b) - 1) < 0) {
		/* nothing to do */
	}
	_exit(1);
}

static int basefd;	/* DIR */

static int run_case(const struct tcase *tc)
{
	char err[512] = "";
	int failed, fd;

	if (mkdirat(basefd, tc->name, 0755) && errno == EEXIST) {
		if (rm_tree(basefd, tc->name, 0, err, sizeof(err)) == 0)
			mkdirat(basefd, tc->name, 0755);
	}
	fd = openat(basefd, tc->name, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fchown(fd, 0, 0) || fchmod(fd, 0755) || fchdir(fd)) {
		printf("FAIL %s: setup: cannot create/enter the case directory: %s%s%s\n",
		       tc->name, errname(errno), err[0] ? "; " : "", err);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	umask(0);
	failed = tcase_call(tc, 120);
	umask(0);
	if (fchdir(basefd)) {
		printf("FAIL %s: cannot return to the base directory: %s\n",
		       tc->name, errname(errno));
		exit(1);
	}
	/* close whatever a failed case left open */
	tcase_close_fds(basefd);
	if (!failed) {
		if (rm_tree(basefd, tc->name, 0, err, sizeof(err))) {
			snprintf(g_msg, sizeof(g_msg), "cleanup of the case directory failed: %s",
				 err);
			failed = 1;
		}
	} else {
		rm_tree(basefd, tc->name, 1, err, sizeof(err));
	}
	return tcase_report(tc->name, failed);
}

static int setup(const char *dir)
{
	(void)dir;
	signal(SIGALRM, on_alarm);
	return 0;
}

int main(int argc, char **argv)
{
	return tcase_main(argc, argv, "t_namespace", cases, NCASES, &basefd,
			  setup, run_case);
}
