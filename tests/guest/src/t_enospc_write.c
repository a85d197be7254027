// SPDX-License-Identifier: GPL-2.0
/*
 * t_enospc_write: a write whose log entries do not all fit on a full
 * device.
 *
 *   t_enospc_write write DIR    fill the device, free scattered single
 *                               blocks, write DIR/target across them;
 *                               prints "written N"
 *   t_enospc_write write DIR interleave
 *                               the same, with every other page of the
 *                               target preallocated past EOF first
 *                               (fallocate KEEP_SIZE): in place mode
 *                               writes those in place, between the runs
 *   t_enospc_write verify DIR N DIR/target holds exactly the N bytes
 *
 * A copy-on-write write first allocates its data blocks (one run per
 * contiguous range: here one per page) and then appends one write entry
 * per run to the file's log.  When the data took the last free blocks,
 * the log cannot grow: only the runs whose entries fit are committed, the
 * write returns their bytes, and the file size must end exactly there
 * (it once ran one run further, so reads returned more bytes than the
 * write had said, and a remount shrank the file again).
 *
 * Interleaved in-place pages once pushed the size past the write's end:
 * the size committed with the first runs covered the in-place pages
 * after the run where the log filled.
 *
 * The write mode fails (exit 1) unless the write stopped because the
 * log was full (free blocks are left over: the data of the runs that were
 * not committed went back), not because the data ran out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define BS	4096
#define MAXF	20000
#define PREALLOC 800	/* interleave: preallocated pages 2, 4, .. 1600 */

static unsigned char pat(long i)
{
	return (unsigned char)(i * 7 + i / BS + 1);
}

static int fail(const char *what)
{
	printf("FAIL: %s\n", what);
	return 1;
}

static int check(const char *path, long n)
{
	unsigned char *buf;
	struct stat st;
	long i, want = n > 0 ? n : 1;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return fail("open/fstat of the target");
	if (st.st_size != want) {
		printf("FAIL: the write returned %ld, the file size is %lld (expected %ld)\n",
		       n, (long long)st.st_size, want);
		return 1;
	}
	buf = malloc(want + BS);
	r = pread(fd, buf, want + BS, 0);
	if (r != want) {
		printf("FAIL: read returned %zd of %ld bytes\n", r, want);
		return 1;
	}
	for (i = 0; i < want; i++) {
		unsigned char e = n > 0 ? pat(i) : 'x';

		if (buf[i] != e) {
			printf("FAIL: byte %ld is 0x%02x, expected 0x%02x\n", i,
			       buf[i], e);
			return 1;
		}
	}
	printf("PASS: size %ld and contents match the write's result\n", want);
	close(fd);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	static char path[4096], target[4096];
	static unsigned char blk[BS];
	struct statfs sf;
	long nf, i, len, freed = 0;
	int inter;
	unsigned char *buf;
	ssize_t r;
	int fd;

	if (argc < 3)
		return fprintf(stderr, "usage: t_enospc_write write|verify DIR [N|interleave]\n"), 2;
	snprintf(target, sizeof(target), "%s/target", argv[2]);
	if (!strcmp(argv[1], "verify") && argc == 4)
		return check(target, atol(argv[3]));
	if (strcmp(argv[1], "write"))
		return 2;
	inter = argc == 4 && !strcmp(argv[3], "interleave");

	/* the target's log page exists before the device fills */
	fd = open(target, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || pwrite(fd, "x", 1, 0) != 1)
		return fail("create the target");
	for (i = 1; inter && i <= PREALLOC; i++)
		if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 2 * i * BS, BS))
			return fail("fallocate KEEP_SIZE of the target's even pages");
	close(fd);
	snprintf(path, sizeof(path), "%s/fill", argv[2]);
	if (mkdir(path, 0755))
		return fail("mkdir fill");

	/* one-block files until the device is full */
	memset(blk, 0xa5, sizeof(blk));
	for (nf = 0; nf < MAXF; nf++) {
		snprintf(path, sizeof(path), "%s/fill/f%ld", argv[2], nf);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			break;
		r = write(fd, blk, BS);
		close(fd);
		if (r != BS) {
			unlink(path);
			break;
		}
	}
	if (nf == MAXF || errno != ENOSPC)
		return fail("the device did not fill up with ENOSPC");
	/* free every other one of the last 400: scattered single blocks */
	for (i = nf - 1; i >= 0 && i >= nf - 400; i -= 2) {
		snprintf(path, sizeof(path), "%s/fill/f%ld", argv[2], i);
		if (unlink(path))
			return fail("unlink on a full device");
		freed++;
	}
	if (statfs(argv[2], &sf))
		return fail("statfs");
	printf("INFO: %ld one-block files, %ld removed, %llu blocks free\n",
	       nf, freed, (unsigned long long)sf.f_bfree);
	if (sf.f_bfree < 100)
		return fail("fewer than 100 blocks free after the removals");

	/* more pages than free blocks: the write must stop somewhere */
	len = (long)(sf.f_bfree + 16) * BS;
	if (inter) {
		/* twice as many pages: every other one is preallocated */
		if (sf.f_bfree + 16 > PREALLOC)
			return fail("more free blocks than preallocated pages");
		len *= 2;
	}
	buf = malloc(len);
	for (i = 0; i < len; i++)
		buf[i] = pat(i);
	fd = open(target, O_WRONLY);
	if (fd < 0)
		return fail("open the target");
	r = pwrite(fd, buf, len, 0);
	printf("INFO: pwrite of %ld bytes returned %zd (%s)\n", len, r,
	       r < 0 ? strerror(errno) : "ok");
	close(fd);
	if (r < 0 && errno != ENOSPC)
		return fail("the write failed with an error other than ENOSPC");
	if (r <= 0)
		return fail("nothing was written: the test needs a partial write");
	if (statfs(argv[2], &sf))
		return fail("statfs");
	printf("INFO: %llu blocks free after the write\n",
	       (unsigned long long)sf.f_bfree);
	if (!sf.f_bfree)
		return fail("the data ran out before the log: the full-log path was not reached");
	if (check(target, r))
		return 1;
	printf("written %zd\n", r);
	return 0;
}
