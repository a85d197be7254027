// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova: check and repair a NOVA file system on a pmem device or an
 * image file, without the kernel module.  Options, main() and the order
 * of the passes (e2fsck's unix.c); fsck.h lists the other files.
 *
 *   fsck.nova [-n | -y | -p | -a] [-f] [-v] [-V] device|image
 *
 * The checks follow what the kernel does at mount and when it reads an
 * inode, so that "clean" here means "the kernel mounts it and can read
 * every file":
 *
 *   pass 1  super blocks     (super.c)
 *   pass 2  journals         (journal.c)
 *   pass 3  reserved inodes and inode tables (itable.c)
 *   pass 4  inode logs       (inode.c)
 *   pass 5  directories, connectivity and link counts (namespace.c)
 *   pass 6  block accounting (blocks.c) and the clean-unmount snapshot
 *           (snapshot.c)
 *   pass 7  the project quota file (quota.c)
 *
 * Each problem found has a code (problem.h), which its lines name; the
 * problem table (problem.c) says which repairs -p makes.  Repairs append
 * ordinary log entries (removal dentries, link-change entries, write
 * entries) or move a log tail back: what the kernel itself would write.
 * A repair may uncover more, so the passes run again until a round
 * repairs nothing.
 *
 * Exit status (as e2fsck): 0 no errors, 1 errors corrected, 4 errors
 * left uncorrected, 8 operational error, 16 usage error; bits combine.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "fsck.h"

#ifndef NOVA_VERSION
#define NOVA_VERSION "unknown"
#endif

/* ------------------------------------------------------- mounted? */

static bool same_file(const char *name, const struct stat *st)
{
	struct stat n;

	if (name[0] != '/' || stat(name, &n))
		return false;
	if (S_ISBLK(st->st_mode) && S_ISBLK(n.st_mode))
		return st->st_rdev == n.st_rdev;
	return S_ISREG(st->st_mode) && S_ISREG(n.st_mode) &&
	       st->st_dev == n.st_dev && st->st_ino == n.st_ino;
}

static bool rdev_mounted(dev_t rdev)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool found = false;

	while (f && !found) {
		struct stat n;

		m = getmntent(f);
		if (!m)
			break;
		found = m->mnt_fsname[0] == '/' && !stat(m->mnt_fsname, &n) &&
			S_ISBLK(n.st_mode) && n.st_rdev == rdev;
	}
	if (f)
		endmntent(f);
	return found;
}

/* One line of a sysfs file, into @buf */
static bool read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *g = fopen(path, "r");
	size_t l;

	if (!g)
		return false;
	l = fread(buf, 1, len - 1, g);
	fclose(g);
	buf[l] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/* Is loop device @loop backed by @st, and mounted? */
static bool loop_mounted(const char *loop, const struct stat *st)
{
	char p[PATH_MAX], buf[PATH_MAX];
	unsigned int ma, mi;
	struct stat b;

	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", loop);
	if (!read_sysfs(p, buf, sizeof(buf)))
		return false;
	if (stat(buf, &b) || b.st_dev != st->st_dev || b.st_ino != st->st_ino)
		return false;
	snprintf(p, sizeof(p), "/sys/block/%s/dev", loop);
	if (!read_sysfs(p, buf, sizeof(buf)))
		return false;
	return sscanf(buf, "%u:%u", &ma, &mi) == 2 &&
	       rdev_mounted(makedev(ma, mi));
}

/* Mounted directly, or (an image) through a loop device? */
static bool is_mounted(const char *path)
{
	struct stat st;
	struct mntent *m;
	struct dirent *de;
	bool found = false;
	FILE *f;
	DIR *d;

	if (stat(path, &st))
		return false;
	f = setmntent("/proc/self/mounts", "r");
	while (f && !found) {
		m = getmntent(f);
		if (!m)
			break;
		found = same_file(m->mnt_fsname, &st);
	}
	if (f)
		endmntent(f);
	if (found || !S_ISREG(st.st_mode))
		return found;
	d = opendir("/sys/block");
	if (!d)
		return false;
	while (!found) {
		de = readdir(d);
		if (!de)
			break;
		if (!strncmp(de->d_name, "loop", 4))
			found = loop_mounted(de->d_name, &st);
	}
	closedir(d);
	return found;
}

/* ----------------------------------------------------------- a run */

/* Passes 2 to 6, in order (pass 1, the super blocks: check_fs()) */
static const struct fsck_pass {
	const char *heading;		/* NULL: the pass before goes on */
	int (*run)(struct nova_fsck *ctx);
} fsck_passes[] = {
	{ "Pass 2: journals", pass_journals },
	{ "Pass 3: reserved inodes and inode tables", pass_reserved },
	{ NULL, pass_itables },
	{ "Pass 4: inode logs", pass_inodes },
	{ "Pass 5: directories, connectivity and link counts", pass_namespace },
	{ NULL, pass_links },
	{ "Pass 6: block accounting", pass_data },
	{ NULL, pass_snapshot },
	{ "Pass 7: project quotas", pass_prjquota },
};

/* The passes, once; -1 if the run stops */
static int run_passes(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t b, used = 0;
	size_t i;

	ctx->blocks_known = false;
	for (i = 0; i < ARRAY_SIZE(fsck_passes); i++) {
		if (fsck_passes[i].heading)
			pass_heading(ctx, "%s", fsck_passes[i].heading);
		if (fsck_passes[i].run(ctx))
			return -1;
		if (io_failed(ctx))
			return -1;
	}
	for (b = 0; b < fs->nblocks; b++)
		if (ctx->bkind[b] != K_FREE)
			used++;
	if (ctx->first_run || ctx->verbose)
		info(ctx, "%llu blocks in use", (unsigned long long)used);
	if (!ctx->run_fixed)
		out(ctx, "%s: %llu inodes, %llu/%llu blocks", ctx->dev,
		    (unsigned long long)ctx->n_inodes, (unsigned long long)used,
		    (unsigned long long)fs->nblocks);
	return 0;
}

/*
 * Repairs may uncover more: the passes again until a round changes
 * nothing (at most 6 rounds)
 */
static int run_rounds(struct nova_fsck *ctx)
{
	int run;

	ctx->stale_on_repair = true;
	for (run = 0; run < 6; run++) {
		ctx->run_fixed = 0;
		if (run && pass_super(ctx))
			return -1;
		if (run_passes(ctx))
			return -1;
		ctx->first_run = false;
		if (!ctx->run_fixed || ctx->mode == MODE_NO)
			break;
		if (ctx->mode != MODE_PREEN)
			out(ctx, "Checking again after the repairs");
	}
	if (ctx->run_fixed && ctx->mode != MODE_NO) {
		out(ctx, "%s: the repairs are not complete; run %s again",
		    ctx->dev, ctx->prog);
		ctx->n_unfixed++;
	}
	return 0;
}

/*
 * A run that repaired something: the project quota file's usage may no
 * longer match the file system, so the next mount with prjquota counts
 * it again (NOVA_STATE_PRJQUOTA cleared)
 */
/*
 * The clean flag cleared, the snapshot dropped, the prjquota flag
 * cleared, in the super block copies; nothing said (fs_modified() says
 * it).  Done once: before the first repair after pass 1 (problem()),
 * at the first block allocation of a repair (alloc_hook()), or at the
 * end of a run that repaired.  The snapshot's pages are free blocks to
 * fsck's allocator, and a fsck killed or cut off by a power failure
 * after a repair committed must not leave a clean flag the next mount
 * trusts: the super block copies are commits, durable before the
 * repair's.
 */
void fs_stale(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint32_t state = le32_to_cpu(fs->sb.s_state);

	if (ctx->mode == MODE_NO || !(state & (NOVA_STATE_CLEAN | NOVA_STATE_PRJQUOTA)))
		return;
	ctx->clean_cleared |= !!(state & NOVA_STATE_CLEAN);
	ctx->prjquota_cleared |= !!(state & NOVA_STATE_PRJQUOTA);
	fs->sb.s_state = cpu_to_le32(state & ~(NOVA_STATE_CLEAN | NOVA_STATE_PRJQUOTA));
	write_super_copies(ctx);
	if (state & NOVA_STATE_CLEAN)
		drop_snapshot_inodes(ctx);
}

/*
 * A repair that could not be made durable (an msync() that failed) ends
 * the run, at once: from then on libnova makes no store, and no repair
 * is said to be made (fixed())
 */
bool io_failed(struct nova_fsck *ctx)
{
	int err = ctx->fs.io_error;

	if (err && !(ctx->stop & FSCK_ERROR))
		fsck_fatal(ctx, "%s: writing the repairs failed: %s", ctx->dev,
			   strerror(err));
	return err;
}

/*
 * nv_alloc()'s hook: a repair takes blocks.  Not before every used block
 * is known (the end of pass 4): the allocator would hand out a block in
 * use; such a repair is a bug, which ends the run.
 */
static bool alloc_hook(void *arg)
{
	struct nova_fsck *ctx = arg;

	if (!ctx->blocks_known) {
		fsck_fatal(ctx, "internal error: a repair takes a block before every used block is known");
		return false;
	}
	fs_stale(ctx);
	return true;
}

/*
 * What any repair leaves stale, also those of a run that stops (-p at a
 * problem it may not repair, an operational error): a clean-unmount
 * snapshot no longer describes the blocks, so the clean flag is cleared
 * and the snapshot dropped, and the next mount scans; the project quota
 * usage is counted again.  Once the run has stopped nothing is said.
 */
static void fs_modified(struct nova_fsck *ctx)
{
	if (ctx->mode == MODE_NO)
		return;
	if (ctx->n_fixed)
		fs_stale(ctx);
	if (ctx->clean_cleared)
		out(ctx, "%s: clean flag cleared: the file system was modified",
		    ctx->dev);
	if (ctx->prjquota_cleared)
		out(ctx, "%s: project quota usage to be counted again: the file system was modified",
		    ctx->dev);
}

/*
 * The super block's flags after a run that ended, and the summary; the
 * error flag is cleared only by a check that ended with nothing left
 */
static void finish_report(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint32_t state = le32_to_cpu(fs->sb.s_state);

	if (ctx->mode != MODE_NO && (state & NOVA_STATE_ERROR) && !ctx->n_unfixed) {
		fs->sb.s_state = cpu_to_le32(state & ~NOVA_STATE_ERROR);
		write_super_copies(ctx);
		fixed(ctx, PR_SB_ERROR_STATE, "error state cleared in the super block");
	}
	fs_modified(ctx);
	if (ctx->n_fixed && ctx->mode != MODE_PREEN)
		out(ctx, "\n%s: ***** FILE SYSTEM WAS MODIFIED *****", ctx->dev);
	if (ctx->n_unfixed && ctx->mode != MODE_PREEN)
		out(ctx, "\n%s: ********** WARNING: Filesystem still has errors **********",
		    ctx->dev);
}

/* Check the open file system; returns the exit status before the counts */
static int check_fs(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint32_t state;

	pass_heading(ctx, "Pass 1: super blocks");
	if (pass_super(ctx))
		goto stop;
	state = le32_to_cpu(fs->sb.s_state);
	if (!ctx->force && !ctx->sb_problems && (state & NOVA_STATE_CLEAN) &&
	    !(state & NOVA_STATE_ERROR) && journals_quiet(ctx)) {
		out(ctx, "%s: clean, %llu blocks, %u stripes (use -f to force a check)",
		    ctx->dev, (unsigned long long)fs->nblocks, fs->stripes);
		return FSCK_OK;
	}
	if (state & NOVA_STATE_ERROR)
		(void)problem(ctx, PR_SB_ERROR_STATE, ctx->dev);
	if (run_rounds(ctx))
		goto stop;
	finish_report(ctx);
	return FSCK_OK;

stop:
	/* the run ends here; its repairs are kept, and what they make stale goes */
	fs_modified(ctx);
	return ctx->stop;
}

/* ----------------------------------------------------------- options */

static void print_usage(struct nova_fsck *ctx, FILE *f)
{
	fprintf(f,
		"Usage: %s [-n | -y | -p | -a] [-f] [-v] [-V] device|image\n"
		"\n"
		"  -n    check only: open read-only, change nothing\n"
		"  -y    repair every problem found\n"
		"  -p    repair what is safe without asking (-a: the same)\n"
		"  -f    check even if the file system is marked clean\n"
		"  -v    verbose\n"
		"  -V    print the version and exit\n"
		"Without -n, -y or -p every repair is asked for on the terminal.\n"
		"\n"
		"Exit status: 0 no errors, 1 errors corrected, 4 errors left\n"
		"uncorrected, 8 operational error, 16 usage error.\n", ctx->prog);
}

/*
 * The command line into @ctx: -1 to go on, else the exit status (-V, -h,
 * a usage error)
 */
static int parse_options(struct nova_fsck *ctx, int argc, char **argv)
{
	int c, modes = 0;

	ctx->prog = nova_prog_name(argv[0], ctx->prog);
	optind = 0;		/* getopt from the start (glibc) */
	while ((c = getopt(argc, argv, "nyapfvVhC:")) != -1) {
		switch (c) {
		case 'n':
		case 'y':
		case 'a':	/* -a is -p, as in e2fsck */
		case 'p':
			ctx->mode = c == 'n' ? MODE_NO :
				    c == 'y' ? MODE_YES : MODE_PREEN;
			modes |= 1 << ctx->mode;
			break;
		case 'f':
			ctx->force = true;
			break;
		case 'v':
			ctx->verbose = true;
			break;
		case 'C':
			break;	/* progress: accepted for fsck(8), not shown */
		case 'V':
			printf("%s %s (NOVA format %d.%d)\n", ctx->prog, NOVA_VERSION,
			       NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);
			return FSCK_OK;
		case 'h':
			print_usage(ctx, stdout);
			return FSCK_OK;
		default:
			print_usage(ctx, stderr);
			return FSCK_USAGE;
		}
	}
	if (modes & (modes - 1)) {
		fprintf(stderr, "%s: only one of -n, -y and -p can be given\n",
			ctx->prog);
		print_usage(ctx, stderr);
		return FSCK_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", ctx->prog, optind == argc ?
			"no device or image given" : "too many arguments");
		print_usage(ctx, stderr);
		return FSCK_USAGE;
	}
	ctx->dev = argv[optind];
	return -1;
}

/* Open the device for the mode: -1 to go on, else the exit status */
static int open_fs(struct nova_fsck *ctx)
{
	char msg[512];
	bool mounted;

	if (ctx->mode == MODE_ASK && !isatty(STDIN_FILENO)) {
		fprintf(stderr, "%s: need a terminal for interactive repairs (use -n, -y or -p)\n",
			ctx->prog);
		return FSCK_ERROR;
	}
	mounted = is_mounted(ctx->dev);
	if (ctx->mode != MODE_NO && mounted) {
		fprintf(stderr, "%s: %s is mounted; it cannot be checked or repaired now\n",
			ctx->prog, ctx->dev);
		return FSCK_ERROR;
	}
	if (mounted)
		fprintf(stderr, "%s: warning: %s is mounted; the results may be wrong\n",
			ctx->prog, ctx->dev);
	ctx->private_map = ctx->mode == MODE_NO;
	if (nv_open(&ctx->fs, ctx->dev,
		    ctx->private_map ? NV_OPEN_PRIVATE : NV_OPEN_RW, msg,
		    sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", ctx->prog, msg);
		return FSCK_ERROR;
	}
	ctx->fs.alloc_hook = alloc_hook;
	ctx->fs.alloc_arg = ctx;
	if (!ctx->private_map) {
		nv_set_ordered(&ctx->fs);
		if (powercut_arm(ctx))
			return FSCK_ERROR;
	}
	return -1;
}

/* Everything a run holds */
static void fsck_free(struct nova_fsck *ctx)
{
	free(ctx->bkind);
	free(ctx->dclaim);
	free(ctx->jreset);
	free(ctx->itreset);
	free(ctx->deferred);
	nv_pmap_free(&ctx->prj_usage);
	ns_free(ctx);
	powercut_free(ctx);
	nv_close(&ctx->fs);
	free(ctx);
}

/* The end of a run: the repairs written, the counts in the status */
static int fsck_end(struct nova_fsck *ctx, int code)
{
	struct nv_fs *fs = &ctx->fs;

	/* after an I/O error nothing more is written (nv_sync() either) */
	if (io_failed(ctx)) {
		code |= FSCK_ERROR;
	} else if (fs->map && fs->mode == NV_OPEN_RW && nv_sync(fs)) {
		fprintf(stderr, "%s: %s: writing the repairs failed: %s\n",
			ctx->prog, ctx->dev, strerror(errno));
		code |= FSCK_ERROR;
	}
	fflush(stdout);
	/*
	 * -p stopped at a problem it may not repair: exit 4 even after
	 * repairs (kept), as e2fsck's preenhalt()
	 */
	if (ctx->stop & FSCK_UNCORRECTED)
		return (code & FSCK_ERROR) | FSCK_UNCORRECTED;
	if (ctx->n_fixed)
		code |= FSCK_NONDESTRUCT;
	if (ctx->n_unfixed)
		code |= FSCK_UNCORRECTED;
	return code;
}

/* fsck.nova's command line; returns the exit status */
int fsck_main(int argc, char **argv)
{
	struct nova_fsck *ctx = calloc(1, sizeof(*ctx));
	int code;

	if (!ctx) {
		fprintf(stderr, "fsck.nova: out of memory\n");
		return FSCK_ERROR;
	}
	ctx->prog = "fsck.nova";
	ctx->mode = MODE_ASK;
	ctx->first_run = true;
	ctx->fs.fd = -1;
	code = parse_options(ctx, argc, argv);
	if (code < 0)
		code = open_fs(ctx);
	if (code < 0) {
		ctx->now = nv_now();
		ctx->fs.next_generation = (uint32_t)ctx->now ^ (uint32_t)getpid();
		if (ctx->mode != MODE_PREEN)
			printf("%s %s (NOVA format %d.%d)\n", ctx->prog,
			       NOVA_VERSION, NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);
		code = fsck_end(ctx, check_fs(ctx));
	}
	fsck_free(ctx);
	return code;
}

#ifndef FSCK_NO_MAIN
int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return fsck_main(argc, argv);
}
#endif
