// SPDX-License-Identifier: GPL-2.0
/*
 * t_ioctl PATH: NOVA's own ioctls on PATH (a file or directory), printed
 * one per line, the same way from a 64-bit and a 32-bit build (t_ioctl32,
 * gcc -m32: a 32-bit process on the 64-bit guest kernel goes through the
 * file system's compat_ioctl):
 *   label=L           FS_IOC_GETFSLABEL
 *   version=N         FS_IOC_GETVERSION (a long: FS_IOC32_GETVERSION in 32-bit)
 *   flags=0xN         FS_IOC_GETFLAGS (the VFS's own compat path)
 *   log_pages=N       NOVA_IOC_LOG_INFO
 *   policy=ERR        FS_IOC_GET_ENCRYPTION_POLICY_EX (ENODATA: not encrypted)
 * A failing call prints its errno's name instead of the value.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>
#include "nova_ioctl.h"
#include "tutil.h"

int main(int argc, char **argv)
{
	char label[FSLABEL_MAX];
	struct nova_log_info li;
	struct fscrypt_get_policy_ex_arg pol;
	long version = 0;
	int flags = 0, fd;

	if (argc != 2) {
		fprintf(stderr, "usage: t_ioctl PATH\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		printf("open=%s\n", errname(errno));
		return 1;
	}
	memset(label, 0, sizeof(label));
	if (ioctl(fd, FS_IOC_GETFSLABEL, label))
		printf("label=%s\n", errname(errno));
	else
		printf("label=%s\n", label);
	if (ioctl(fd, FS_IOC_GETVERSION, &version))
		printf("version=%s\n", errname(errno));
	else
		printf("version=%u\n", (unsigned int)version);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		printf("flags=%s\n", errname(errno));
	else
		printf("flags=0x%x\n", flags);
	if (ioctl(fd, NOVA_IOC_LOG_INFO, &li))
		printf("log_pages=%s\n", errname(errno));
	else
		printf("log_pages=%llu\n", (unsigned long long)li.log_pages);
	memset(&pol, 0, sizeof(pol));
	pol.policy_size = sizeof(pol.policy);
	if (ioctl(fd, FS_IOC_GET_ENCRYPTION_POLICY_EX, &pol))
		printf("policy=%s\n", errname(errno));
	else
		printf("policy=v%d\n", pol.policy.version);
	close(fd);
	return 0;
}
