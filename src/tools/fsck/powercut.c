// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova's model of a power cut during its repairs, for the tests only
 * (tests/unit/test_powercut.sh): NOVA_FSCK_TEST_POWERCUT=N or N:late.
 *
 * libnova orders the repairs (nv_commit(), nv_barrier(), nv_persist():
 * what a commit publishes is durable before it, the commit before what
 * depends on it) and calls the hooks here.  A shadow copy of the image
 * holds what is durable: the image as it was opened, and each range
 * nv_persist() made durable since.  The run ends (exit 8, "power cut at
 * ..." on stderr) leaving the image as the worst a power cut may leave it:
 *
 *   N        at the N-th commit: its store reached the device, and of
 *            the stores made before it only those made durable (the
 *            shadow and the commit).  A commit made before what it
 *            publishes is durable shows as a pointer to what was never
 *            written.
 *   N:late   at the N-th barrier (nv_barrier() with something to make
 *            durable): every store reached the device but the commits
 *            not yet made durable, which are as in the shadow.  A store
 *            that depends on a commit (a dead mark on what it
 *            supersedes, a block it frees taken again) made before the
 *            commit is durable shows here.
 *
 * And no power cut but an I/O error:
 *
 *   N:eio    the N-th barrier fails as a failed msync() ("I/O error at
 *            barrier N" on stderr); the run goes on as it does after
 *            one, and the image is what it leaves.
 *
 * A run that gets to none of these ends as usual, and says on stderr how
 * many commits and barriers it made.  The shadow takes as much memory as
 * the image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fsck.h"

struct fsck_powercut {
	unsigned long at;		/* the commit or barrier to cut at, from 1 */
	bool late;			/* N:late: a barrier */
	bool eio;			/* N:eio: a barrier fails */
	unsigned long commits, barriers;	/* so far */
	uint8_t *shadow;		/* what is durable */
	struct nv_range *pend;		/* commits not yet made durable */
	size_t npend, cap;
};

/* nv_fs.persist_hook: [@off, @off + @len) is durable */
static void persisted(void *arg, uint64_t off, uint64_t len)
{
	struct nova_fsck *ctx = arg;
	struct fsck_powercut *pc = ctx->powercut;
	size_t i, k;

	memcpy(pc->shadow + off, nv_ptr(&ctx->fs, off), len);
	for (i = 0, k = 0; i < pc->npend; i++)
		if (pc->pend[i].lo < off || pc->pend[i].hi > off + len)
			pc->pend[k++] = pc->pend[i];
	pc->npend = k;
}

/* The end of the run, the image as the power cut leaves it */
static void __attribute__((noreturn)) cut(struct nova_fsck *ctx)
{
	struct fsck_powercut *pc = ctx->powercut;
	struct nv_fs *fs = &ctx->fs;

	msync(fs->map, fs->map_size, MS_SYNC);
	fflush(stdout);
	fprintf(stderr, "%s: power cut at %s %lu (NOVA_FSCK_TEST_POWERCUT)\n",
		ctx->prog, pc->late ? "barrier" : "commit", pc->at);
	_exit(FSCK_ERROR);
}

/* nv_fs.barrier_hook: N:late cuts here, N:eio fails */
static int barrier(void *arg)
{
	struct nova_fsck *ctx = arg;
	struct fsck_powercut *pc = ctx->powercut;
	size_t i;

	if (++pc->barriers != pc->at || !(pc->late || pc->eio))
		return 0;
	if (pc->eio) {
		fflush(stdout);
		fprintf(stderr, "%s: I/O error at barrier %lu (NOVA_FSCK_TEST_POWERCUT)\n",
			ctx->prog, pc->at);
		return EIO;
	}
	/* every store there, but the commits not durable */
	for (i = 0; i < pc->npend; i++)
		memcpy(ctx->fs.map + pc->pend[i].lo, pc->shadow + pc->pend[i].lo,
		       pc->pend[i].hi - pc->pend[i].lo);
	cut(ctx);
}

/* nv_fs.commit_hook: a commit stored at [@off, @off + @len); N cuts here */
static void committed(void *arg, uint64_t off, size_t len)
{
	struct nova_fsck *ctx = arg;
	struct fsck_powercut *pc = ctx->powercut;
	struct nv_fs *fs = &ctx->fs;
	uint8_t save[NOVA_BLOCK_SIZE];
	struct nv_range *more;
	uint64_t b;

	if (++pc->commits == pc->at && !pc->late && !pc->eio) {
		/* the shadow and the commit; the other blocks stay clean */
		memcpy(save, nv_ptr(fs, off), len);
		for (b = 0; b < fs->map_size; b += NOVA_BLOCK_SIZE)
			if (memcmp(fs->map + b, pc->shadow + b, NOVA_BLOCK_SIZE))
				memcpy(fs->map + b, pc->shadow + b, NOVA_BLOCK_SIZE);
		memcpy(fs->map + off, save, len);
		cut(ctx);
	}
	more = nv_grow(pc->pend, &pc->cap, pc->npend, sizeof(*more), 16);
	if (!more) {
		fsck_fatal(ctx, "out of memory");
		return;
	}
	pc->pend = more;
	pc->pend[pc->npend++] = (struct nv_range){ off, off + len };
}

/*
 * NOVA_FSCK_TEST_POWERCUT set: the hooks in place, the shadow made.
 * Returns 0, or -1 (a bad value, out of memory: said on stderr).
 */
int powercut_arm(struct nova_fsck *ctx)
{
	const char *v = getenv("NOVA_FSCK_TEST_POWERCUT");
	struct nv_fs *fs = &ctx->fs;
	struct fsck_powercut *pc;
	char *end;

	if (!v || !fs->ordered)
		return 0;
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		goto oom;
	ctx->powercut = pc;
	pc->at = strtoul(v, &end, 10);
	pc->late = !strcmp(end, ":late");
	pc->eio = !strcmp(end, ":eio");
	if (!pc->at || (*end && !pc->late && !pc->eio)) {
		fprintf(stderr, "%s: NOVA_FSCK_TEST_POWERCUT=%s: not N, N:late or N:eio (N > 0)\n",
			ctx->prog, v);
		return -1;
	}
	pc->shadow = malloc(fs->map_size);
	if (!pc->shadow)
		goto oom;
	memcpy(pc->shadow, fs->map, fs->map_size);
	fs->persist_hook = persisted;
	fs->barrier_hook = barrier;
	fs->commit_hook = committed;
	fs->order_arg = ctx;
	return 0;
oom:
	fprintf(stderr, "%s: NOVA_FSCK_TEST_POWERCUT: out of memory\n", ctx->prog);
	return -1;
}

/* The end of a run that was not cut: how many commits it made */
void powercut_free(struct nova_fsck *ctx)
{
	struct fsck_powercut *pc = ctx->powercut;

	if (!pc)
		return;
	if (pc->shadow && !pc->eio)
		fprintf(stderr, "%s: %lu commits, %lu barriers, no power cut (NOVA_FSCK_TEST_POWERCUT)\n",
			ctx->prog, pc->commits, pc->barriers);
	ctx->fs.persist_hook = NULL;
	ctx->fs.barrier_hook = NULL;
	ctx->fs.commit_hook = NULL;
	free(pc->shadow);
	free(pc->pend);
	free(pc);
	ctx->powercut = NULL;
}
