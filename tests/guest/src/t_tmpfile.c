// SPDX-License-Identifier: GPL-2.0
/*
 * O_TMPFILE for the guest tests.
 *
 *   t_tmpfile DIR [-s SIZE] [-l NAME] [-m MODE] [-x NAME=VALUE] [-w SECONDS]
 *
 * Opens an unnamed file in DIR (O_TMPFILE | O_RDWR, MODE, default 0600),
 * writes SIZE pattern bytes, sets a user. attribute, prints "nlink N" of
 * the open file, links it as NAME (linkat() through /proc/self/fd) and
 * prints "nlink N" again, then waits SECONDS (to hold it open) and
 * closes it.  Errors print the call and errno and exit 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/xattr.h>

static int die(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dir, *name = NULL, *xattr = NULL;
	unsigned long size = 0, wait = 0, i;
	mode_t mode = 0600;
	char buf[4096], path[64];
	struct stat st;
	int fd, opt;

	while ((opt = getopt(argc, argv, "s:l:m:x:w:")) != -1) {
		switch (opt) {
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'l': name = optarg; break;
		case 'm': mode = strtoul(optarg, NULL, 8); break;
		case 'x': xattr = optarg; break;
		case 'w': wait = strtoul(optarg, NULL, 0); break;
		default: return 1;
		}
	}
	if (optind != argc - 1)
		return 1;
	dir = argv[optind];
	fd = open(dir, O_TMPFILE | O_RDWR, mode);
	if (fd < 0)
		die("open O_TMPFILE");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = 'a' + i % 26;
	for (i = 0; i < size; i += sizeof(buf)) {
		size_t n = size - i < sizeof(buf) ? size - i : sizeof(buf);

		if (write(fd, buf, n) != (ssize_t)n)
			die("write");
	}
	if (xattr) {
		char *eq = strchr(xattr, '=');

		if (!eq)
			return 1;
		*eq = 0;
		if (fsetxattr(fd, xattr, eq + 1, strlen(eq + 1), 0))
			die("fsetxattr");
	}
	if (fstat(fd, &st))
		die("fstat");
	printf("nlink %lu mode %o\n", (unsigned long)st.st_nlink,
	       (unsigned)st.st_mode & 07777);
	fflush(stdout);
	if (name) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, path, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
			die("linkat");
		if (fstat(fd, &st))
			die("fstat");
		printf("nlink %lu\n", (unsigned long)st.st_nlink);
		fflush(stdout);
	}
	if (wait)
		sleep(wait);
	if (close(fd))
		die("close");
	return 0;
}
