// SPDX-License-Identifier: GPL-2.0
/*
 * nova-stat: show the statistics of a mounted NOVA file system.
 *
 *   nova-stat [-t|-i|-a|-g] [-c] MOUNTPOINT|DEVICE
 *
 * Finds /proc/fs/NOVA/<device>/ for the mount point (or device) and
 * prints its files: timing_stats (-t), IO_stats (-i), allocator (-a) and
 * gc (-g); all of them by default.  -c clears the timing and I/O
 * statistics after printing them.  Exit status: 0 ok, 1 not a mounted
 * NOVA file system, 2 usage error.
 */
#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int show(const char *dir, const char *name)
{
	char path[PATH_MAX + 64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "nova-stat: %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("== %s ==\n", name);
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
	putchar('\n');
	return 0;
}

static int clear_stats(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs("1\n", f) == EOF || fclose(f)) {
		fprintf(stderr, "nova-stat: cannot clear %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	return 0;
}

/* The device name (e.g. pmem0) of the NOVA mount at or of @arg */
static int find_device(const char *arg, char *dev, size_t len)
{
	char real[PATH_MAX];
	struct mntent *m;
	FILE *f;
	int found = 0;

	if (!realpath(arg, real))
		snprintf(real, sizeof(real), "%s", arg);
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return 0;
	while ((m = getmntent(f))) {
		if (strcmp(m->mnt_type, "NOVA"))
			continue;
		if (!strcmp(m->mnt_dir, real) || !strcmp(m->mnt_fsname, real) ||
		    !strcmp(m->mnt_fsname, arg)) {
			const char *base = strrchr(m->mnt_fsname, '/');

			snprintf(dev, len, "%s", base ? base + 1 : m->mnt_fsname);
			found = 1;
			break;
		}
	}
	endmntent(f);
	return found;
}

int main(int argc, char **argv)
{
	/* the files, and the option of each */
	static const char *const names[] = {
		"timing_stats", "IO_stats", "allocator", "gc"
	};
	static const char letters[] = "tiag";
	int want[4] = { 0 }, any = 0, do_clear = 0, opt, i, ret = 0;
	char dev[256], dir[PATH_MAX];

	while ((opt = getopt(argc, argv, "tiagch")) != -1) {
		const char *l = strchr(letters, opt);

		if (l) {
			want[l - letters] = any = 1;
		} else if (opt == 'c') {
			do_clear = 1;
		} else {
			fprintf(stderr, "usage: nova-stat [-t|-i|-a|-g] [-c] MOUNTPOINT|DEVICE\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: nova-stat [-t|-i|-a|-g] [-c] MOUNTPOINT|DEVICE\n");
		return 2;
	}
	if (!find_device(argv[optind], dev, sizeof(dev))) {
		fprintf(stderr, "nova-stat: %s: not a mounted NOVA file system\n",
			argv[optind]);
		return 1;
	}
	snprintf(dir, sizeof(dir), "/proc/fs/NOVA/%s", dev);
	for (i = 0; i < 4; i++)
		if (!any || want[i])
			ret |= show(dir, names[i]);
	if (do_clear) {
		ret |= clear_stats(dir, "timing_stats");
		ret |= clear_stats(dir, "IO_stats");
	}
	return ret ? 1 : 0;
}
