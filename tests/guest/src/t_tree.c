// SPDX-License-Identifier: GPL-2.0
/*
 * t_tree: build and list a tree of files for persistence tests.
 *
 *   t_tree create DIR NDIRS NPERDIR   deterministic tree with mixed types,
 *                                     modes, owners, times, sizes, links
 *   t_tree list DIR                   one line per object, sorted by path:
 *                                     type, mode, nlink, uid, gid, size,
 *                                     mtime (ns), inode, and a CRC32 of the
 *                                     content or the symlink target
 *   t_tree utime PATH ASEC ANSEC MSEC MNSEC
 *                                     set the access and modification
 *                                     times (utimensat)
 *   t_tree times PATH                 print "atime_sec.nsec mtime_sec.nsec"
 *   t_tree mwrite PATH                store one byte through a shared
 *                                     mapping of the file's first page
 *                                     (msync, munmap)
 *
 * Exit status 0 on success; any failing call is printed and exits 1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void die(const char *what, const char *path)
{
	printf("t_tree: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static uint32_t crc32(uint32_t crc, const unsigned char *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320U & (0U - (crc & 1)));
	}
	return ~crc;
}

static void write_file(const char *p, size_t size, unsigned int seed)
{
	static unsigned char buf[65536];
	size_t i, done = 0;
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die("create", p);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(seed * 31 + i * 7);
	while (done < size) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);

		if (write(fd, buf, n) != (ssize_t)n)
			die("write", p);
		done += n;
	}
	if (close(fd))
		die("close", p);
}

static int create(const char *root, int ndirs, int per)
{
	char d[2048], p[4096], t[4096];
	int i, j;

	for (i = 0; i < ndirs; i++) {
		snprintf(d, sizeof(d), "%s/dir%d", root, i);
		if (mkdir(d, 0700 + (i % 64)))
			die("mkdir", d);
		for (j = 0; j < per; j++) {
			struct timespec ts[2] = {
				{ 1000000000L + i * 1000 + j, j * 1111 },
				{ 1100000000L + i * 1000 + j, j * 7777 },
			};

			snprintf(p, sizeof(p), "%s/file%d", d, j);
			switch (j % 6) {
			case 0:
				write_file(p, 0, i + j);
				break;
			case 1:
				write_file(p, (i * 131 + j * 17) % 20000, i + j);
				break;
			case 2:
				snprintf(t, sizeof(t), "file%d-target-%d", j - 1, i);
				if (symlink(t, p))
					die("symlink", p);
				break;
			case 3:
				if (mkdir(p, 0755))
					die("mkdir", p);
				break;
			case 4:
				if (mknod(p, S_IFIFO | 0640, 0))
					die("mknod", p);
				break;
			case 5:
				write_file(p, 4096 * (1 + j % 3), i * j);
				snprintf(t, sizeof(t), "%s/link%d", d, j);
				if (link(p, t))
					die("link", t);
				break;
			}
			if (j % 6 != 2) {
				if (chmod(p, (j % 6 == 3 ? 0700 : 0600) | (i % 8) << 3 | j % 8))
					die("chmod", p);
				if (lchown(p, i * 10 + j % 10, i * 3 + j % 4))
					die("chown", p);
			}
			if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW))
				die("utimensat", p);
		}
	}
	return 0;
}

static char **paths;
static size_t npaths, cap;

static void collect(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		die("opendir", dir);
	while ((de = readdir(d))) {
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
			die("asprintf", dir);
		if (npaths == cap) {
			cap = cap ? cap * 2 : 1024;
			paths = realloc(paths, cap * sizeof(*paths));
			if (!paths)
				die("realloc", dir);
		}
		paths[npaths++] = p;
		if (de->d_type == DT_DIR)
			collect(p);
	}
	closedir(d);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

static uint32_t content_crc(const char *p, const struct stat *st)
{
	unsigned char buf[65536];
	uint32_t crc = 0;
	ssize_t n;
	int fd;

	if (S_ISLNK(st->st_mode)) {
		n = readlink(p, (char *)buf, sizeof(buf));
		if (n < 0)
			die("readlink", p);
		return crc32(0, buf, n);
	}
	if (!S_ISREG(st->st_mode))
		return 0;
	fd = open(p, O_RDONLY);
	if (fd < 0)
		die("open", p);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, n);
	if (n < 0)
		die("read", p);
	close(fd);
	return crc;
}

static int list(const char *root)
{
	size_t i, skip = strlen(root);

	collect(root);
	qsort(paths, npaths, sizeof(*paths), cmp);
	for (i = 0; i < npaths; i++) {
		struct stat st;

		if (lstat(paths[i], &st))
			die("lstat", paths[i]);
		printf("%s %o %lu %u %u %lld %lld.%09ld %llu %08x\n",
		       paths[i] + skip, st.st_mode, (unsigned long)st.st_nlink,
		       st.st_uid, st.st_gid, (long long)st.st_size,
		       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		       (unsigned long long)st.st_ino, content_crc(paths[i], &st));
	}
	fprintf(stderr, "t_tree: %zu objects\n", npaths);
	return 0;
}

static int utime_path(char **a)
{
	struct timespec ts[2] = {
		{ strtoll(a[1], NULL, 0), strtol(a[2], NULL, 0) },
		{ strtoll(a[3], NULL, 0), strtol(a[4], NULL, 0) },
	};

	if (utimensat(AT_FDCWD, a[0], ts, AT_SYMLINK_NOFOLLOW))
		die("utimensat", a[0]);
	return 0;
}

static int times(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		die("lstat", path);
	printf("%lld.%09ld %lld.%09ld\n", (long long)st.st_atim.tv_sec,
	       st.st_atim.tv_nsec, (long long)st.st_mtim.tv_sec,
	       st.st_mtim.tv_nsec);
	return 0;
}

static int mwrite(const char *path)
{
	int fd = open(path, O_RDWR);
	char *p;

	if (fd < 0)
		die("open", path);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap", path);
	p[0] ^= 1;
	if (msync(p, 4096, MS_SYNC))
		die("msync", path);
	if (munmap(p, 4096))
		die("munmap", path);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "create"))
		return create(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "list"))
		return list(argv[2]);
	if (argc == 7 && !strcmp(argv[1], "utime"))
		return utime_path(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "times"))
		return times(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "mwrite"))
		return mwrite(argv[2]);
	fprintf(stderr, "usage: t_tree create DIR NDIRS NPERDIR | list DIR | utime PATH ASEC ANSEC MSEC MNSEC | times PATH | mwrite PATH\n");
	return 2;
}
