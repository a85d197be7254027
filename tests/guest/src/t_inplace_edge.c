// SPDX-License-Identifier: GPL-2.0
/*
 * t_inplace_edge: a write that goes in place (the file is mapped) copies
 * a hole page on write, then writes part of the next page in place; a
 * write fault gives the hole page a block before the write commits.
 *
 *   t_inplace_edge run DIR     make DIR/edge, write it as below, check it
 *   t_inplace_edge check DIR   check DIR/edge again (after a remount)
 *
 * DIR/edge has three pages: 'a' in page 0, a hole at page 1, 'c' in
 * page 2; it is mapped shared.  A thread pwrite()s 8192 + 100 bytes at
 * offset 0 from a buffer holding 'A' (page 0), 'B' (page 1) and 'C'
 * (page 2), whose third page is registered with userfaultfd and not yet
 * there: the write goes in place in page 0, copies page 1 on write (a
 * new block, all of it written), and its in-place copy into page 2
 * faults on the buffer.  While it waits, this thread stores 'X' through
 * the mapping at byte 200 of page 1 (a write fault gives the hole a
 * block) and then supplies the buffer's page.  The write must return
 * 8292 and the file (read and through the mapping) hold 'A' x 4096,
 * 'B' x 4096, 'C' x 100, then 'c' x 3996, but for the stored byte: it
 * raced with the write, so either may have won it ('B' or 'X').  Exit
 * status 0 when it does; 1 otherwise, with the offsets that differ.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PG	4096
#define NPG	3
#define TAIL	100			/* the write's bytes in page 2 */
#define LEN	(2 * PG + TAIL)
#define XOFF	(PG + 200)		/* the store through the mapping */

static int fd;
static unsigned char *buf;
static ssize_t wret;
static int werr;

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *writer(void *arg)
{
	(void)arg;
	wret = pwrite(fd, buf, LEN, 0);
	werr = errno;
	return NULL;
}

/* the file's expected bytes after the write */
static void expected(unsigned char *e)
{
	memset(e, 'A', PG);
	memset(e + PG, 'B', PG);
	memset(e + 2 * PG, 'c', PG);
	memset(e + 2 * PG, 'C', TAIL);
}

/* @got against the expected bytes; prints what differs; 1 if anything */
static int compare(const char *what, const unsigned char *got)
{
	unsigned char e[NPG * PG];
	long i, first = -1, last = -1, n = 0;

	expected(e);
	for (i = 0; i < NPG * PG; i++) {
		if (got[i] == e[i] || (i == XOFF && got[i] == 'X'))
			continue;
		if (first < 0)
			first = i;
		last = i;
		n++;
	}
	if (!n) {
		printf("PASS: %s: the write's bytes and the old ones (the raced byte: '%c')\n",
		       what, got[XOFF]);
		return 0;
	}
	printf("FAIL: %s: %ld bytes differ in [%ld, %ld]: byte %ld reads 0x%02x, want 0x%02x\n",
	       what, n, first, last, first, got[first], e[first]);
	return 1;
}

static int check(int cfd, const unsigned char *map)
{
	unsigned char got[NPG * PG];
	struct stat st;
	int bad = 0;

	if (fstat(cfd, &st))
		die("fstat");
	if (st.st_size != NPG * PG) {
		printf("FAIL: size %lld, want %d\n", (long long)st.st_size, NPG * PG);
		bad = 1;
	}
	if (pread(cfd, got, sizeof(got), 0) != (ssize_t)sizeof(got))
		die("pread");
	bad |= compare("read", got);
	if (map)
		bad |= compare("mapping", map);
	return bad;
}

static int run(const char *path)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_copy copy = { 0 };
	struct uffd_msg msg;
	struct pollfd pfd;
	unsigned char *map, *page;
	unsigned char fill[PG];
	pthread_t t;
	int uffd, bad;

	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		die(path);
	memset(fill, 'a', PG);
	if (pwrite(fd, fill, PG, 0) != PG)
		die("pwrite page 0");
	memset(fill, 'c', PG);
	if (pwrite(fd, fill, PG, 2 * PG) != PG)
		die("pwrite page 2");
	if (lseek(fd, 0, SEEK_HOLE) != PG) {
		printf("FAIL: page 1 is not a hole before the write\n");
		return 1;
	}
	/* mapped: write() goes in place where a page has a block */
	map = mmap(NULL, NPG * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");

	buf = mmap(NULL, NPG * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	page = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || page == MAP_FAILED)
		die("mmap anonymous");
	memset(buf, 'A', PG);
	memset(buf + PG, 'B', PG);
	memset(page, 'C', PG);
	/* the buffer's page 2 is not there yet: its first access waits here */
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		die("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	reg.range.start = (unsigned long)(buf + 2 * PG);
	reg.range.len = PG;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");

	if (pthread_create(&t, NULL, writer, NULL))
		die("pthread_create");
	pfd.fd = uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 30000) != 1) {
		printf("FAIL: the write did not fault on its buffer's page 2 within 30 s\n");
		return 1;
	}
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		die("read userfaultfd");
	if (msg.event != UFFD_EVENT_PAGEFAULT ||
	    msg.arg.pagefault.address < reg.range.start ||
	    msg.arg.pagefault.address >= reg.range.start + PG) {
		printf("FAIL: unexpected userfaultfd event %u at 0x%llx\n",
		       msg.event, (unsigned long long)msg.arg.pagefault.address);
		return 1;
	}
	/* the write is inside pwrite(), past page 1: a write fault on the hole */
	map[XOFF] = 'X';
	copy.dst = reg.range.start;
	copy.src = (unsigned long)page;
	copy.len = PG;
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		die("UFFDIO_COPY");
	pthread_join(t, NULL);
	if (wret != LEN) {
		printf("FAIL: pwrite returned %zd (%s), want %d\n", wret,
		       wret < 0 ? strerror(werr) : "short", LEN);
		return 1;
	}
	bad = check(fd, map);
	munmap(map, NPG * PG);
	close(uffd);
	close(fd);
	return bad;
}

int main(int argc, char **argv)
{
	char path[4096];
	int cfd, bad;

	if (argc != 3 || (strcmp(argv[1], "run") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: t_inplace_edge run|check DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/edge", argv[2]);
	if (!strcmp(argv[1], "run"))
		return run(path);
	cfd = open(path, O_RDONLY);
	if (cfd < 0)
		die(path);
	bad = check(cfd, NULL);
	close(cfd);
	return bad;
}
