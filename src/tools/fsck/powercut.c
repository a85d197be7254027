// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova's model of a power cut during its repairs, for the tests only
 * (tests/unit/test_powercut.sh): NOVA_FSCK_TEST_POWERCUT=N, N:late,
 * N:early, N:torn:I or N:eio.
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
 *   N:early  at the N-th barrier: none of the stores made since the
 *            barrier before reached the device: the shadow alone.
 *   N:torn:I at the N-th barrier: of the stores made since the barrier
 *            before, only the I-th (from 1) reached the device, with
 *            the bytes it stored; the rest is the shadow.  The device
 *            writes back pages in any order, and a page in sectors: a
 *            store that must not be durable before an earlier one (a
 *            dead count before the dead mark it counts, a live mark
 *            before the count that would free the page, a tail before
 *            the entries it publishes) without a barrier between them
 *            shows here.
 *
 * And no power cut but an I/O error:
 *
 *   N:eio    the N-th barrier fails as a failed msync() ("I/O error at
 *            barrier N" on stderr); the run goes on as it does after
 *            one, and the image is what it leaves.
 *
 * A run that gets to none of these ends as usual, and says on stderr how
 * many commits and barriers it made, and how many stores each barrier
 * made durable.  The shadow takes as much memory as the image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fsck.h"

/* A store since the last barrier: where, and the bytes it stored */
struct pc_store {
	uint64_t off;
	size_t len;
	uint8_t *data;
};

struct fsck_powercut {
	unsigned long at;		/* the commit or barrier to cut at, from 1 */
	bool late;			/* N:late: a barrier */
	bool eio;			/* N:eio: a barrier fails */
	bool early;			/* N:early: a barrier, nothing since */
	unsigned long torn;		/* N:torn:I: I, the one store durable */
	unsigned long commits, barriers;	/* so far */
	uint8_t *shadow;		/* what is durable */
	struct nv_range *pend;		/* commits not yet made durable */
	size_t npend, cap;
	struct pc_store *epoch;		/* the stores since the last barrier */
	size_t nepoch, epoch_cap;
	unsigned long *sizes;		/* how many before each barrier */
	size_t sizes_cap;
};

static void oom(struct nova_fsck *ctx)
{
	fprintf(stderr, "%s: NOVA_FSCK_TEST_POWERCUT: out of memory\n", ctx->prog);
	_exit(FSCK_ERROR);
}

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

/* nv_fs.store_hook: [@off, @off + @len) stored (N:torn:I keeps one) */
static void stored(void *arg, uint64_t off, size_t len)
{
	struct nova_fsck *ctx = arg;
	struct fsck_powercut *pc = ctx->powercut;
	struct pc_store *more;
	uint8_t *data = NULL;

	if (pc->torn && pc->barriers + 1 == pc->at) {
		data = malloc(len);
		if (!data)
			oom(ctx);
		memcpy(data, nv_ptr(&ctx->fs, off), len);
	}
	more = nv_grow(pc->epoch, &pc->epoch_cap, pc->nepoch, sizeof(*more), 64);
	if (!more)
		oom(ctx);
	pc->epoch = more;
	pc->epoch[pc->nepoch++] = (struct pc_store){ off, len, data };
}

/* The end of the run, the image as the power cut leaves it */
static void __attribute__((noreturn)) cut(struct nova_fsck *ctx)
{
	struct fsck_powercut *pc = ctx->powercut;
	struct nv_fs *fs = &ctx->fs;

	msync(fs->map, fs->map_size, MS_SYNC);
	fflush(stdout);
	fprintf(stderr, "%s: power cut at %s %lu (NOVA_FSCK_TEST_POWERCUT)\n",
		ctx->prog, pc->late || pc->early || pc->torn ? "barrier" : "commit",
		pc->at);
	_exit(FSCK_ERROR);
}

/* The map as the shadow, what is durable (the other blocks stay clean) */
static void to_shadow(struct nova_fsck *ctx)
{
	struct fsck_powercut *pc = ctx->powercut;
	struct nv_fs *fs = &ctx->fs;
	uint64_t b;

	for (b = 0; b < fs->map_size; b += NOVA_BLOCK_SIZE)
		if (memcmp(fs->map + b, pc->shadow + b, NOVA_BLOCK_SIZE))
			memcpy(fs->map + b, pc->shadow + b, NOVA_BLOCK_SIZE);
}

/* nv_fs.barrier_hook: N:late and N:torn:I cut here, N:eio fails */
static int at_barrier(void *arg)
{
	struct nova_fsck *ctx = arg;
	struct fsck_powercut *pc = ctx->powercut;
	const struct pc_store *s;
	unsigned long *more;
	size_t i;

	more = nv_grow(pc->sizes, &pc->sizes_cap, pc->barriers,
		       sizeof(*more), 64);
	if (!more)
		oom(ctx);
	pc->sizes = more;
	pc->sizes[pc->barriers] = pc->nepoch;
	if (++pc->barriers == pc->at && pc->eio) {
		fflush(stdout);
		fprintf(stderr, "%s: I/O error at barrier %lu (NOVA_FSCK_TEST_POWERCUT)\n",
			ctx->prog, pc->at);
		return -EIO;
	}
	if (pc->barriers == pc->at && pc->late) {
		/* every store there, but the commits not durable */
		for (i = 0; i < pc->npend; i++)
			memcpy(ctx->fs.map + pc->pend[i].lo,
			       pc->shadow + pc->pend[i].lo,
			       pc->pend[i].hi - pc->pend[i].lo);
		cut(ctx);
	}
	if (pc->barriers == pc->at && pc->early) {
		to_shadow(ctx);
		cut(ctx);
	}
	if (pc->barriers == pc->at && pc->torn) {
		if (pc->torn > pc->nepoch) {
			fprintf(stderr, "%s: NOVA_FSCK_TEST_POWERCUT: barrier %lu follows %zu stores, not %lu\n",
				ctx->prog, pc->at, pc->nepoch, pc->torn);
			_exit(FSCK_ERROR);
		}
		/* what was durable, and one store since */
		s = &pc->epoch[pc->torn - 1];
		to_shadow(ctx);
		memcpy(ctx->fs.map + s->off, s->data, s->len);
		cut(ctx);
	}
	for (i = 0; i < pc->nepoch; i++)
		free(pc->epoch[i].data);
	pc->nepoch = 0;
	return 0;
}

/* nv_fs.commit_hook: a commit stored at [@off, @off + @len); N cuts here */
static void committed(void *arg, uint64_t off, size_t len)
{
	struct nova_fsck *ctx = arg;
	struct fsck_powercut *pc = ctx->powercut;
	struct nv_fs *fs = &ctx->fs;
	uint8_t save[NOVA_BLOCK_SIZE];
	struct nv_range *more;

	if (++pc->commits == pc->at && !pc->late && !pc->early && !pc->torn &&
	    !pc->eio) {
		/* the shadow and the commit */
		memcpy(save, nv_ptr(fs, off), len);
		to_shadow(ctx);
		memcpy(fs->map + off, save, len);
		cut(ctx);
	}
	more = nv_grow(pc->pend, &pc->cap, pc->npend, sizeof(*more), 16);
	if (!more)
		oom(ctx);
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
	if (!strcmp(end, ":late"))
		pc->late = true;
	else if (!strcmp(end, ":eio"))
		pc->eio = true;
	else if (!strcmp(end, ":early"))
		pc->early = true;
	else if (!strncmp(end, ":torn:", 6) && end[6] >= '1' && end[6] <= '9')
		pc->torn = strtoul(end + 6, &end, 10);
	if (!pc->at || (*end && !pc->late && !pc->eio && !pc->early)) {
		fprintf(stderr, "%s: NOVA_FSCK_TEST_POWERCUT=%s: not N, N:late, N:early, N:torn:I or N:eio (N, I > 0)\n",
			ctx->prog, v);
		return -1;
	}
	pc->shadow = malloc(fs->map_size);
	if (!pc->shadow)
		goto oom;
	memcpy(pc->shadow, fs->map, fs->map_size);
	fs->persist_hook = persisted;
	fs->store_hook = stored;
	fs->barrier_hook = at_barrier;
	fs->commit_hook = committed;
	fs->order_arg = ctx;
	return 0;
oom:
	fprintf(stderr, "%s: NOVA_FSCK_TEST_POWERCUT: out of memory\n", ctx->prog);
	return -1;
}

/*
 * The end of a run that was not cut: how many commits and barriers it
 * made, and how many stores each barrier made durable
 */
void powercut_free(struct nova_fsck *ctx)
{
	struct fsck_powercut *pc = ctx->powercut;
	size_t i;

	if (!pc)
		return;
	if (pc->shadow && !pc->eio) {
		fprintf(stderr, "%s: %lu commits, %lu barriers, no power cut (NOVA_FSCK_TEST_POWERCUT)\n",
			ctx->prog, pc->commits, pc->barriers);
		fprintf(stderr, "%s: stores before each barrier:", ctx->prog);
		for (i = 0; i < pc->barriers; i++)
			fprintf(stderr, " %lu", pc->sizes[i]);
		fprintf(stderr, "\n");
	}
	ctx->fs.persist_hook = NULL;
	ctx->fs.store_hook = NULL;
	ctx->fs.barrier_hook = NULL;
	ctx->fs.commit_hook = NULL;
	for (i = 0; i < pc->nepoch; i++)
		free(pc->epoch[i].data);
	free(pc->epoch);
	free(pc->sizes);
	free(pc->shadow);
	free(pc->pend);
	free(pc);
	ctx->powercut = NULL;
}
