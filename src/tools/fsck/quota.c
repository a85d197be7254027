// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova pass 7: the project quota file (reserved inode
 * NOVA_PRJQUOTA_INO) as the kernel uses it (e2fsck's quota checks at
 * the end of pass 5).
 *
 * Pass 4 made sure it is a regular file that starts with a quota_v2
 * header of project quotas.  Here its whole quota tree is read as
 * quota_tree.c reads it (libnova's nv_quota_read()): the info block,
 * every reference, the data blocks and their entries, the free-block
 * and free-entry lists.  Each write of the file is atomic, but one
 * change of the tree (a new ID: a block from the free list, its
 * parent's reference, the info block) is several writes, and a power cut
 * between them leaves a tree that makes the kernel's dqget() fail, and
 * with it every mount with prjquota.  When the super block says the
 * file's usage is current (a clean unmount with project quotas on:
 * NOVA_STATE_CLEAN and NOVA_STATE_PRJQUOTA, so the next mount does not
 * count it again) and nothing was repaired, each project's usage in it
 * must also be the one pass 6 counted (as the kernel counts it at
 * mount).
 *
 * The repair, as e2fsck's, writes the file anew: the kernel's empty file
 * with every ID inserted as quota_tree.c inserts it, each with the
 * limits of its entry (if the old tree leads to one) and the usage
 * counted.  It is written copy-on-write as a file write of the kernel:
 * new blocks, write entries for them (and hole entries that map out the
 * old pages past the new end), one tail store, so that a crash leaves
 * the old file or the new one.  Without room for it, the file is cleared as in pass 4
 * (the next mount with prjquota makes a new one, the limits are lost).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck.h"

/* Problems reported one by one; the rest are only counted */
#define QUOTA_REPORT_MAX	20

/* The problems found in the file, to be reported in order */
struct qprob {
	int code;
	char msg[256];
};

struct qcheck {
	struct nova_fsck *ctx;
	struct qprob *p;		/* the first ones, to report */
	size_t np, cap;
	size_t n;			/* all of them */
	int accepted;			/* the first problem to repair, or -1 */
};

static int qerr_code(int err)
{
	switch (err) {
	case NV_QERR_INFO:
		return PR_PRJQUOTA_INFO;
	case NV_QERR_REF:
		return PR_PRJQUOTA_REF;
	case NV_QERR_DATA:
		return PR_PRJQUOTA_DATA;
	case NV_QERR_ENTRY:
		return PR_PRJQUOTA_ENTRY;
	case NV_QERR_FREE_BLK:
		return PR_PRJQUOTA_FREE_BLK;
	}
	return PR_PRJQUOTA_FREE_ENTRY;
}

/* nv_qerr_fn: a problem of the tree, kept to be reported */
static void collect(void *arg, int err, const char *msg)
{
	struct qcheck *qc = arg;
	struct qprob *p;

	qc->n++;
	if (qc->np >= QUOTA_REPORT_MAX)
		return;
	p = nv_grow(qc->p, &qc->cap, qc->np, sizeof(*p), QUOTA_REPORT_MAX);
	if (!p)
		return;
	qc->p = p;
	p[qc->np].code = qerr_code(err);
	snprintf(p[qc->np].msg, sizeof(p->msg), "%s", msg);
	qc->np++;
}

/* Each problem of the tree reported: is one to be repaired? */
static void report_tree(struct qcheck *qc)
{
	struct nova_fsck *ctx = qc->ctx;
	size_t i;

	for (i = 0; i < qc->np; i++) {
		/* every code of qerr_code() has the message PR_PRJQUOTA_TREE_MSG */
		if (0 ? problem_args(PR_PRJQUOTA_TREE_MSG, qc->p[i].msg) :
		    fsck_problem(ctx, qc->p[i].code, qc->p[i].msg))
			if (qc->accepted < 0)
				qc->accepted = qc->p[i].code;
	}
	if (qc->n > qc->np)
		out(ctx, "project quota file: %zu more problems in its tree",
		    qc->n - qc->np);
}

/* Project @id's usage as counted in pass 6 (0, 0 if none) */
static void counted(struct nova_fsck *ctx, uint32_t id, uint64_t *space,
		    uint64_t *inodes)
{
	*space = *inodes = 0;
	nv_pmap_get(&ctx->prj_usage, id, space, inodes);
}

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The projects with usage, by ID: *@n of them (NULL: out of memory) */
static uint32_t *counted_ids(struct nova_fsck *ctx, size_t *n)
{
	uint32_t *ids = malloc((ctx->prj_usage.n + 1) * sizeof(*ids));
	uint64_t id;
	size_t it;

	*n = 0;
	if (!ids)
		return NULL;
	for (it = 0; nv_pmap_next(&ctx->prj_usage, &it, &id, NULL, NULL);)
		ids[(*n)++] = id;
	qsort(ids, *n, sizeof(*ids), cmp_id);
	return ids;
}

/*
 * Each project's usage in the file against the count: an entry's, and
 * a project with usage but no entry ("[QUOTA WARNING]" of e2fsck)
 */
static void check_usage(struct qcheck *qc, const struct nv_quota *q)
{
	struct nova_fsck *ctx = qc->ctx;
	unsigned long shown = 0, more = 0;
	uint64_t space, inodes;
	uint32_t *ids;
	size_t i, n;
	bool fix;

	for (i = 0; i < q->ndq; i++) {
		const struct nv_dquot *d = &q->dq[i];

		counted(ctx, d->id, &space, &inodes);
		if (space == d->curspace && inodes == d->curinodes)
			continue;
		if (++shown > QUOTA_REPORT_MAX) {
			more++;
			continue;
		}
		fix = problem(ctx, PR_PRJQUOTA_USAGE, d->id,
			      (unsigned long long)space,
			      (unsigned long long)inodes,
			      (unsigned long long)d->curspace,
			      (unsigned long long)d->curinodes);
		if (fix && qc->accepted < 0)
			qc->accepted = PR_PRJQUOTA_USAGE;
	}
	ids = counted_ids(ctx, &n);
	if (!ids) {
		fsck_fatal(ctx, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		if (nv_quota_find(q, ids[i]))
			continue;
		if (++shown > QUOTA_REPORT_MAX) {
			more++;
			continue;
		}
		counted(ctx, ids[i], &space, &inodes);
		fix = problem(ctx, PR_PRJQUOTA_MISSING, ids[i],
			      (unsigned long long)space,
			      (unsigned long long)inodes);
		if (fix && qc->accepted < 0)
			qc->accepted = PR_PRJQUOTA_MISSING;
	}
	free(ids);
	if (more)
		out(ctx, "project quota: the usage of %lu more IDs is inconsistent",
		    more);
}

/*
 * The grace time of a soft limit, as the kernel sets it with the usage
 * it counted (quota.c nova_prj_set_usage()): none when not over the
 * limit, else the one set, else from now on
 */
static uint64_t grace_end(uint64_t soft, uint64_t used, uint64_t end,
			  uint64_t now, uint32_t grace)
{
	if (!soft || used <= soft)
		return 0;
	return end ? end : now + grace;
}

/*
 * The entries of the new file, by ID, into *@dq: each project with
 * usage or limits, the limits of the entry the old tree leads to (an
 * entry with neither the kernel drops), the usage counted.  *@kept: the
 * entries whose limits are kept.  Returns their number, -1 when out of
 * memory.
 */
static long new_entries(struct nova_fsck *ctx, const struct nv_quota *q,
			const struct nv_qinfo *qi, struct nv_dquot **dq,
			size_t *kept)
{
	uint64_t now = ctx->now / 1000000000LL, space, inodes;
	size_t i, j, n = 0, nids;
	uint32_t *ids = counted_ids(ctx, &nids);
	struct nv_dquot *d;

	*kept = 0;
	*dq = ids ? calloc(q->ndq + nids + 1, sizeof(**dq)) : NULL;
	if (!*dq) {
		free(ids);
		return -1;
	}
	/* two lists by ID, merged */
	for (i = 0, j = 0; i < q->ndq || j < nids;) {
		d = &(*dq)[n];
		if (j >= nids || (i < q->ndq && q->dq[i].id <= ids[j])) {
			*d = q->dq[i];
			if (j < nids && ids[j] == d->id)
				j++;
			i++;
		} else {
			memset(d, 0, sizeof(*d));
			d->id = ids[j++];
		}
		counted(ctx, d->id, &space, &inodes);
		d->curspace = space;
		d->curinodes = inodes;
		if (!nv_dquot_limited(d) && !space && !inodes)
			continue;
		*kept += nv_dquot_limited(d);
		d->btime = grace_end(d->bsoftlimit << 10, space, d->btime, now,
				     qi->bgrace);
		d->itime = grace_end(d->isoftlimit, inodes, d->itime, now,
				     qi->igrace);
		n++;
	}
	free(ids);
	return n;
}

/* A run of the new file's pages in new blocks */
struct qrun {
	uint64_t pg, blk, n;
};

/* The old file's pages past @npages, sorted, into *@pg: their number */
static long old_pages_past(const struct nv_inode_state *st, uint64_t npages,
			   uint64_t **pg)
{
	size_t it, n = 0;
	uint64_t p;

	*pg = malloc((st->pages.n + 1) * sizeof(**pg));
	if (!*pg)
		return -1;
	for (it = 0; nv_pmap_next(&st->pages, &it, &p, NULL, NULL);)
		if (p >= npages)
			(*pg)[n++] = p;
	qsort(*pg, n, sizeof(**pg), cmp_u64);
	return n;
}

/* The old pages of @st, superseded: counted so in their write entries */
static void supersede_old(struct nv_fs *fs, const struct nv_inode_state *st)
{
	uint64_t ent, n;
	struct nv_pmap cnt;
	size_t it;

	/* (the counts only steer the log garbage collector) */
	nv_pmap_init(&cnt);
	for (it = 0; nv_pmap_next(&st->pages, &it, NULL, NULL, &ent);) {
		n = 0;
		nv_pmap_get(&cnt, ent, &n, NULL);
		if (nv_pmap_set(&cnt, ent, n + 1, 0, NULL) < 0)
			break;
	}
	for (it = 0; nv_pmap_next(&cnt, &it, &ent, &n, NULL);)
		nv_invalidate_pages(fs, ent, n);
	nv_pmap_free(&cnt);
}

/*
 * @len bytes of @buf, the whole new content of the quota file @st,
 * written copy-on-write as the kernel writes a file: new blocks filled,
 * then write entries for them and hole entries (block 0) for the old
 * pages past the new end (which map them out whatever the size before),
 * all committed by one tail store.  Returns 0, or -ENOSPC, -ENOMEM or
 * -EIO (an I/O error) with nothing committed.
 */
static int write_qfile(struct nova_fsck *ctx, struct nv_inode_state *st,
		       const uint8_t *buf, size_t len)
{
	uint64_t npages = (len + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT;
	struct nv_fs *fs = &ctx->fs;
	uint64_t pg, got, blk, k, *old = NULL;
	struct qrun *run = NULL, *more;
	size_t nrun = 0, cap = 0, i, j;
	struct nv_wlog w;
	int ret = -ENOSPC;
	long nold;

	for (pg = 0; pg < npages; pg += got) {
		got = nv_alloc(fs, npages - pg, NOVA_PRJQUOTA_INO % fs->stripes,
			       true, &blk);
		if (!got)
			goto fail;
		more = nv_grow(run, &cap, nrun, sizeof(*run), 4);
		if (!more) {
			nv_mark_free(fs, blk, got);
			ret = -ENOMEM;
			goto fail;
		}
		run = more;
		run[nrun++] = (struct qrun){ pg, blk, got };
		for (k = 0; k < got; k++) {
			uint64_t at = (pg + k) << NOVA_BLOCK_SHIFT;
			uint64_t b = (blk + k) << NOVA_BLOCK_SHIFT;

			nv_zero(fs, b, NOVA_BLOCK_SIZE);
			nv_put(fs, b, buf + at, len - at < NOVA_BLOCK_SIZE ?
			       len - at : NOVA_BLOCK_SIZE);
		}
	}
	nold = old_pages_past(st, npages, &old);
	if (nold < 0) {
		ret = -ENOMEM;
		goto fail;
	}
	nv_wlog_from_state(&w, st);
	w.size = len;
	w.mtime = w.ctime = ctx->now;
	for (i = 0, ret = 0; i < nrun && !ret; i++)
		ret = nv_append_write(fs, &w, run[i].pg, run[i].n,
				      run[i].blk << NOVA_BLOCK_SHIFT, NULL);
	for (i = 0; i < (size_t)nold && !ret; i = j) {
		for (j = i + 1; j < (size_t)nold && old[j] == old[j - 1] + 1 &&
		     j - i < UINT32_MAX; j++)
			;
		ret = nv_append_write(fs, &w, old[i], j - i, 0, NULL);
	}
	if (!ret && nv_log_commit(fs, &w))
		ret = -EIO;
	if (ret)
		goto fail;
	test_kill_point("prjquota-commit");
	supersede_old(fs, st);
	for (i = 0; i < nrun; i++)
		for (k = 0; k < run[i].n; k++)
			claim(ctx, run[i].blk + k, K_DATA);
	free(run);
	free(old);
	return 0;
fail:
	for (i = 0; i < nrun; i++)
		nv_mark_free(fs, run[i].blk, run[i].n);
	free(run);
	free(old);
	return ret;
}

/*
 * No room for a new file: it is cleared, as an unusable one in pass 4
 * (PR_PRJQUOTA_BAD, which -p does not repair: the limits are lost)
 */
static void no_room(struct nova_fsck *ctx, const struct nv_inode_state *st,
		    const struct nv_quota *q)
{
	size_t i, limited = 0;
	char why[160];

	for (i = 0; i < q->ndq; i++)
		limited += nv_dquot_limited(&q->dq[i]);
	snprintf(why, sizeof(why),
		 "there is no room to write it anew (the limits of %zu project IDs would be lost)",
		 limited);
	if (!problem(ctx, PR_PRJQUOTA_BAD, NOVA_PRJQUOTA_INO, why))
		return;
	free_slot(ctx, st->pi_off);
	fixed(ctx, PR_PRJQUOTA_BAD,
	      "reserved inode %u cleared, the limits of %zu project IDs lost: the next mount with prjquota makes a new project quota file",
	      NOVA_PRJQUOTA_INO, limited);
}

/* The repair of problem @code: the file written anew */
static void rebuild(struct nova_fsck *ctx, struct nv_inode_state *st,
		    const struct nv_quota *q, int code)
{
	struct nv_qinfo qi = { .bgrace = NV_QT_GRACE, .igrace = NV_QT_GRACE };
	struct nv_dquot *dq;
	uint8_t *buf = NULL;
	size_t kept, len;
	long n;
	int ret;

	if (q->info_ok) {
		qi.bgrace = q->info.bgrace;
		qi.igrace = q->info.igrace;
	}
	n = new_entries(ctx, q, &qi, &dq, &kept);
	if (n < 0) {
		fsck_fatal(ctx, "out of memory");
		return;
	}
	ret = nv_quota_build(&qi, dq, n, &buf, &len);
	free(dq);
	if (!ret)
		ret = write_qfile(ctx, st, buf, len);
	free(buf);
	if (ret == -ENOSPC)
		no_room(ctx, st, q);
	else if (ret == -EIO)
		io_failed(ctx);
	else if (ret)
		fsck_fatal(ctx, "out of memory");
	else if (q->lost)
		fixed(ctx, code,
		      "project quota file written anew: %ld project IDs, the limits of %zu kept, the usage counted; %lu entries the tree did not lead to dropped",
		      n, kept, q->lost);
	else
		fixed(ctx, code,
		      "project quota file written anew: %ld project IDs, the limits of %zu kept, the usage counted",
		      n, kept);
}

/* Why the file's usage is not compared with the count, NULL if it is */
static const char *no_usage_check(struct nova_fsck *ctx,
				  const struct nv_quota *q)
{
	uint32_t state = le32_to_cpu(ctx->fs.sb.s_state);

	if (q->errors)
		return "the tree is damaged";
	if (!(state & NOVA_STATE_CLEAN) || !(state & NOVA_STATE_PRJQUOTA))
		return "not current (the next mount with prjquota counts it)";
	if (ctx->n_fixed)
		return "the repairs change it (the next mount with prjquota counts it)";
	if (ctx->prj_unread)
		return "some inodes cannot be read";
	return NULL;
}

int pass_prjquota(struct nova_fsck *ctx)
{
	struct qcheck qc = { .ctx = ctx, .accepted = -1 };
	struct nv_fs *fs = &ctx->fs;
	struct nv_inode_state st;
	const char *why;
	struct nv_quota q;
	char buf[160];

	if (!nv_inode_slot_valid(fs, NOVA_PRJQUOTA_INO))
		return 0;
	if (nv_iread(fs, NOVA_PRJQUOTA_INO, &st, 0, NULL, NULL))
		return fsck_fatal(ctx, "out of memory");
	/*
	 * what pass 4 reports (and repairs or clears) first; an empty file
	 * is one the kernel made and had no time to write (it writes it)
	 */
	if (st.bad || st.log.err || st.log.chain_err || !st.size ||
	    prjquota_bad(ctx, &st, buf, sizeof(buf)))
		goto out;
	if (nv_quota_read(fs, &st, &q, collect, &qc)) {
		fsck_fatal(ctx, "out of memory");
		goto out;
	}
	info(ctx, "project quota file: %zu IDs, %u blocks of 1 KiB",
	     q.ndq, q.info.blocks);
	report_tree(&qc);
	why = no_usage_check(ctx, &q);
	if (why)
		info(ctx, "project quota usage not compared: %s", why);
	else
		check_usage(&qc, &q);
	if (qc.accepted >= 0 && !ctx->stop)
		rebuild(ctx, &st, &q, qc.accepted);
	nv_quota_free(&q);
out:
	free(qc.p);
	nv_ifree(&st);
	return ctx->stop ? -1 : 0;
}
