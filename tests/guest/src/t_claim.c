// SPDX-License-Identifier: GPL-2.0
/*
 * t_claim: build hostile images where one block has two users, and look
 * at where an inode's blocks are (tests/guest/071-double-claim.sh,
 * 063-gc-chain.sh).  Static, for the busybox guest; uses libnova.
 *
 *   t_claim info DEV INO
 *       print the inode's log_head=, log_tail=, log_pages= (count),
 *       page<i>= (each log page, in chain order), symlink= and data<p>=
 *       (block offset of file page p, first 16 pages); the device may
 *       be mounted: run "blockdev --flushbufs DEV" first
 *   t_claim itable DEV STRIPE
 *       print the offset of the first inode table block of STRIPE
 *   t_claim setblock DEV INO PAGE OFF
 *       unmounted DEV: make the live write entry of file page PAGE of
 *       inode INO (page 0 of a symlink: its block) map it to block
 *       offset OFF, with a good checksum (the entry must map one page
 *       or OFF is where its first page goes, minus the page's place)
 *   t_claim poke DEV OFF VALUE
 *       store the 64-bit VALUE at byte offset OFF of DEV with O_DIRECT
 *       (read-modify-write of its 4 KiB block): also on a mounted DEV
 *   t_claim open PATH ERR
 *       open PATH and read a byte; ERR is "ok" or the errno
 *       name the open or the read must fail with (EUCLEAN, EIO, ...)
 *   t_claim readlink PATH ERR
 *       readlink PATH; ERR as above (prints the target when ok)
 *
 * Exit status 0: done (and ERR as expected); 1: failure (printed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libnova.h"
#include "tutil.h"

static int die(const char *what)
{
	printf("FAIL: %s\n", what);
	exit(1);
}

static void open_fs(struct nv_fs *fs, const char *dev, int mode)
{
	char err[256];
	struct nova_sb_search s;

	if (nv_open(fs, dev, mode, err, sizeof(err)))
		die(err);
	if (nv_load_super(fs, 0, &s) < 0)
		die(s.why);
	if (nv_load_itables(fs))
		die("inode tables");
}

static void read_inode(struct nv_fs *fs, uint64_t ino,
		       struct nv_inode_state *st)
{
	if (!nv_inode_slot_valid(fs, ino) || nv_iread(fs, ino, st, 0, NULL, NULL))
		die("cannot read the inode");
}

static int cmd_info(char **av)
{
	struct nv_fs fs;
	struct nv_inode_state st;
	uint64_t blk, p;
	size_t i;

	open_fs(&fs, av[0], NV_OPEN_RO);
	read_inode(&fs, strtoull(av[1], NULL, 0), &st);
	printf("log_head=%llu\nlog_tail=%llu\nlog_pages=%zu\n",
	       (unsigned long long)le64_to_cpu(st.pi.log_head),
	       (unsigned long long)le64_to_cpu(st.pi.log_tail), st.log.npages);
	for (i = 0; i < st.log.npages; i++)
		printf("page%zu=%llu\n", i, (unsigned long long)st.log.pages[i]);
	printf("symlink=%llu\n", (unsigned long long)st.symlink_block);
	for (p = 0; p < 16; p++)
		if (nv_pmap_get(&st.pages, p, &blk, NULL))
			printf("data%llu=%llu\n", (unsigned long long)p,
			       (unsigned long long)blk);
	nv_ifree(&st);
	nv_close(&fs);
	return 0;
}

static int cmd_itable(char **av)
{
	struct nv_fs fs;
	unsigned int s = strtoul(av[1], NULL, 0);

	open_fs(&fs, av[0], NV_OPEN_RO);
	if (s >= fs.stripes || !fs.itab[s].n)
		die("no such stripe");
	printf("%llu\n", (unsigned long long)fs.itab[s].blocks[0]);
	nv_close(&fs);
	return 0;
}

static int cmd_setblock(char **av)
{
	struct nv_fs fs;
	struct nv_inode_state st;
	struct nova_file_write_entry e;
	uint64_t pg = strtoull(av[2], NULL, 0), off = strtoull(av[3], NULL, 0);
	uint64_t blk, ent;

	open_fs(&fs, av[0], NV_OPEN_RW);
	read_inode(&fs, strtoull(av[1], NULL, 0), &st);
	if (!nv_pmap_get(&st.pages, pg, &blk, &ent) || !ent)
		die("the page has no block");
	memcpy(&e, nv_ptr(&fs, ent), sizeof(e));
	if (e.entry_type != NOVA_FILE_WRITE)
		die("not a write entry");
	e.block = cpu_to_le64(off - ((pg - le64_to_cpu(e.pgoff)) << NOVA_BLOCK_SHIFT));
	nv_entry_csum(&e, sizeof(e));
	nv_put(&fs, ent, &e, sizeof(e));
	printf("entry at %llu: page %llu block %llu -> %llu\n",
	       (unsigned long long)ent, (unsigned long long)pg,
	       (unsigned long long)blk, (unsigned long long)off);
	nv_ifree(&st);
	if (nv_sync(&fs))
		die("sync");
	nv_close(&fs);
	return 0;
}

static int cmd_poke(char **av)
{
	uint64_t off = strtoull(av[1], NULL, 0), val = strtoull(av[2], NULL, 0);
	uint64_t base = off & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	void *buf;
	int fd = open(av[0], O_RDWR | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, NOVA_BLOCK_SIZE, NOVA_BLOCK_SIZE))
		die("open");
	if (off & 7 || pread(fd, buf, NOVA_BLOCK_SIZE, base) != NOVA_BLOCK_SIZE)
		die("read");
	val = htole64(val);
	memcpy((char *)buf + (off - base), &val, 8);
	if (pwrite(fd, buf, NOVA_BLOCK_SIZE, base) != NOVA_BLOCK_SIZE || fsync(fd))
		die("write");
	close(fd);
	free(buf);
	return 0;
}

static int check_err(const char *what, int err, const char *want)
{
	const char *got = err ? errname(err) : "ok";

	printf("%s: %s\n", what, got);
	if (strcmp(got, want)) {
		printf("FAIL: %s: got %s, expected %s\n", what, got, want);
		return 1;
	}
	return 0;
}

static int cmd_open(char **av)
{
	char c;
	int fd = open(av[0], O_RDONLY), err = 0;

	if (fd < 0)
		err = errno;
	else if (pread(fd, &c, 1, 0) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	return check_err(av[0], err, av[1]);
}

static int cmd_readlink(char **av)
{
	char buf[4096];
	ssize_t n = readlink(av[0], buf, sizeof(buf) - 1);

	if (n >= 0) {
		buf[n] = 0;
		printf("target: %s\n", buf);
	}
	return check_err(av[0], n < 0 ? errno : 0, av[1]);
}

int main(int ac, char **av)
{
	static const struct tcmd cmds[] = {
		{ "info", 2, cmd_info }, { "itable", 2, cmd_itable },
		{ "setblock", 4, cmd_setblock }, { "poke", 3, cmd_poke },
		{ "open", 2, cmd_open }, { "readlink", 2, cmd_readlink },
	};

	return run_cmd(cmds, sizeof(cmds) / sizeof(cmds[0]), ac, av, "t_claim");
}
