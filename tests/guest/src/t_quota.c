// SPDX-License-Identifier: GPL-2.0
/*
 * Disk quotas for the guest tests, through quotactl(2) (busybox has no
 * quota tools).  A failing call prints the errno's name on stdout and
 * exits 2; usage errors exit 1.  TYPE is user, group or project (whose
 * hidden file the prjquota mount option turns on: get, set and state).
 *
 *   t_quota init FILE TYPE          an empty quota file (vfsv1 format, as
 *                                   quotacheck writes one with no usage)
 *   t_quota on DEV FILE TYPE        Q_QUOTAON with QFMT_VFS_V1
 *   t_quota off DEV TYPE            Q_QUOTAOFF
 *   t_quota sync DEV                Q_SYNC of every type
 *   t_quota get DEV TYPE ID         "blocks=N inodes=N bhard=N ihard=N"
 *                                   (4 KiB blocks of usage and limit)
 *   t_quota set DEV TYPE ID BHARD IHARD   hard limits (4 KiB blocks; 0:
 *                                   none), soft limits none
 *   t_quota state DEV TYPE          "on" or "off" (Q_GETINFO works)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/quota.h>
#include <linux/quota.h>
#include "tutil.h"

static int qtype(const char *s)
{
	if (!strcmp(s, "user"))
		return USRQUOTA;
	if (!strcmp(s, "group"))
		return GRPQUOTA;
	if (!strcmp(s, "project"))
		return PRJQUOTA;
	fprintf(stderr, "t_quota: bad type %s\n", s);
	exit(1);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static int fail(void)
{
	printf("%s\n", errname(errno));
	return 2;
}

/* Header, info and an empty tree root: 2 blocks of 1 KiB */
static int init_file(const char *path, int type)
{
	static const uint32_t magic[] = { 0xd9c01f11, 0xd9c01927 };
	unsigned char buf[2048] = { 0 };
	int fd;

	put32(buf, magic[type]);
	put32(buf + 4, 1);		/* version 1: QFMT_VFS_V1 */
	put32(buf + 8, 7 * 24 * 3600);	/* block grace */
	put32(buf + 12, 7 * 24 * 3600);	/* inode grace */
	put32(buf + 16, 0);		/* flags */
	put32(buf + 20, 2);		/* blocks in the file */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
		return fail();
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct if_dqblk dq;
	struct if_dqinfo di;
	int type;

	if (argc < 3)
		goto usage;
	if (!strcmp(argv[1], "init") && argc == 4)
		return init_file(argv[2], qtype(argv[3]));
	if (!strcmp(argv[1], "sync") && argc == 3) {
		if (quotactl(QCMD(Q_SYNC, USRQUOTA), argv[2], 0, NULL) ||
		    quotactl(QCMD(Q_SYNC, GRPQUOTA), argv[2], 0, NULL))
			return fail();
		return 0;
	}
	if (!strcmp(argv[1], "on") && argc == 5) {
		type = qtype(argv[4]);
		if (quotactl(QCMD(Q_QUOTAON, type), argv[2], QFMT_VFS_V1, argv[3]))
			return fail();
		return 0;
	}
	if (argc < 4)
		goto usage;
	type = qtype(argv[3]);
	if (!strcmp(argv[1], "off") && argc == 4) {
		if (quotactl(QCMD(Q_QUOTAOFF, type), argv[2], 0, NULL))
			return fail();
		return 0;
	}
	if (!strcmp(argv[1], "state") && argc == 4) {
		if (quotactl(QCMD(Q_GETINFO, type), argv[2], 0, (void *)&di))
			printf(errno == ESRCH ? "off\n" : "%s\n", errname(errno));
		else
			printf("on\n");
		return 0;
	}
	if (!strcmp(argv[1], "get") && argc == 5) {
		if (quotactl(QCMD(Q_GETQUOTA, type), argv[2], atoi(argv[4]),
			     (void *)&dq))
			return fail();
		printf("blocks=%llu inodes=%llu bhard=%llu ihard=%llu\n",
		       (unsigned long long)dq.dqb_curspace / 4096,
		       (unsigned long long)dq.dqb_curinodes,
		       (unsigned long long)dq.dqb_bhardlimit / 4,
		       (unsigned long long)dq.dqb_ihardlimit);
		return 0;
	}
	if (!strcmp(argv[1], "set") && argc == 7) {
		memset(&dq, 0, sizeof(dq));
		dq.dqb_bhardlimit = strtoull(argv[5], NULL, 0) * 4;	/* 1 KiB units */
		dq.dqb_ihardlimit = strtoull(argv[6], NULL, 0);
		dq.dqb_valid = QIF_LIMITS;
		if (quotactl(QCMD(Q_SETQUOTA, type), argv[2], atoi(argv[4]),
			     (void *)&dq))
			return fail();
		return 0;
	}
usage:
	fprintf(stderr, "usage: see the head of t_quota.c\n");
	return 1;
}
