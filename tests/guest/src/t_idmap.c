// SPDX-License-Identifier: GPL-2.0
/*
 * Idmapped mounts for the guest tests.
 *
 *   t_idmap SRC DST BASE
 *
 * Mounts a clone of the mount at SRC on DST, idmapped through a user
 * namespace that maps ids 0..65535 to BASE..BASE+65535: a file owned by
 * BASE + n on the file system shows owner n under DST, and what is
 * created as n under DST is stored as BASE + n.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define OPEN_TREE_CLONE_		1
#define MOVE_MOUNT_F_EMPTY_PATH_	0x00000004
#define MOUNT_ATTR_IDMAP_		0x00100000

struct mount_attr_ {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static void die(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	exit(2);
}

static void write_map(pid_t pid, const char *file, const char *map)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map))
		die(path);
	close(fd);
}

int main(int argc, char **argv)
{
	struct mount_attr_ attr = { .attr_set = MOUNT_ATTR_IDMAP_ };
	char map[64], path[64];
	int pipefd[2], fd, ns;
	pid_t pid;
	char c;

	if (argc != 4)
		return 1;
	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		close(pipefd[1]);
		/* wait until the parent is done with our namespace */
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	/* the child must have unshared before its maps are written */
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	for (;;) {
		char a[64], b[64];
		ssize_t n1 = readlink(path, a, sizeof(a) - 1);
		ssize_t n2 = readlink("/proc/self/ns/user", b, sizeof(b) - 1);

		if (n1 < 0)
			die("readlink child ns");
		a[n1] = 0;
		b[n2 < 0 ? 0 : n2] = 0;
		if (strcmp(a, b))
			break;
		usleep(1000);
	}
	snprintf(map, sizeof(map), "0 %s 65536\n", argv[3]);
	write_map(pid, "uid_map", map);
	write_map(pid, "gid_map", map);
	ns = open(path, O_RDONLY);
	if (ns < 0)
		die("open ns");
	attr.userns_fd = ns;
	fd = syscall(SYS_open_tree, AT_FDCWD, argv[1], OPEN_TREE_CLONE_);
	if (fd < 0)
		die("open_tree");
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)))
		die("mount_setattr");
	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, argv[2], MOVE_MOUNT_F_EMPTY_PATH_))
		die("move_mount");
	close(pipefd[1]);
	waitpid(pid, NULL, 0);
	return 0;
}
