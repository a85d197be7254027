// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: fsck.nova on random images (make fuzz-fsck;
 * tests/README.md, "fsck fuzzing").
 *
 * Each input (fuzz_image.h) is decoded into a memfd, which fsck.nova's
 * own command line entry point checks in-process: with -n (a private
 * mapping, nothing written), or with -y or -p (repairs written into the
 * memfd, a private copy of the input) and then again with -n: a crash
 * there is a crash on an image fsck.nova itself wrote (with
 * NOVA_FUZZ_STRICT=1, also a failure if a repair that reported nothing
 * uncorrected left an image that -n does not find clean).  -p stops at
 * the first problem it may not repair: everything the passes hold must
 * be freed on that way out too (LeakSanitizer).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_image.h"
#include "libnova.h"

int fsck_main(int argc, char **argv);

static int fd = -1;
static char path[64];
static bool strict;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null = open("/dev/null", O_WRONLY);

	(void)argc;
	(void)argv;
	/* fsck.nova's report is not wanted here: only its crashes */
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0) {
		perror("/dev/null");
		exit(1);
	}
	close(null);
	fd = memfd_create("nova-fuzz", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		exit(1);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	strict = getenv("NOVA_FUZZ_STRICT") && atoi(getenv("NOVA_FUZZ_STRICT"));
	return 0;
}

static int run(const char *opt, bool verbose)
{
	char *argv[] = { "fsck.nova", "-f", (char *)opt, path, NULL, NULL };
	int argc = 4;

	if (verbose) {
		argv[4] = path;
		argv[3] = "-v";
		argc = 5;
	}
	return fsck_main(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t size = fz_image_size(data, len);
	uint8_t *img, flags;
	int code;

	if (!size)
		return -1;
	flags = data[0];
	if (ftruncate(fd, 0) || ftruncate(fd, size))
		abort();
	img = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (img == MAP_FAILED)
		abort();
	fz_decode(data, len, img, size);
	fz_fixup(flags, img, size);
	munmap(img, size);

	if (!(flags & (FZ_REPAIR | FZ_PREEN))) {
		code = run("-n", flags & FZ_VERBOSE);
	} else {
		code = run(flags & FZ_REPAIR ? "-y" : "-p", flags & FZ_VERBOSE);
		if (!(code & 8)) {
			int after = run("-n", false);

			/* NOVA_FUZZ_STRICT=1: a repair that left nothing
			 * uncorrected must leave a clean file system */
			if (strict && !(code & 4) && after) {
				fprintf(stderr, "fsck.nova %s exit %d, then -n exit %d\n",
					flags & FZ_REPAIR ? "-y" : "-p", code, after);
				abort();
			}
			code = after;
		}
	}
	/* exit codes are e2fsck's: bits 1, 4, 8, nothing else */
	if (code & ~(1 | 4 | 8)) {
		fprintf(stderr, "fsck.nova exit status %d\n", code);
		abort();
	}
	return 0;
}
