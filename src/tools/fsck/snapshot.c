// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova pass 6, last: the clean-unmount snapshot.
 *
 * A cleanly unmounted file system keeps its free block ranges and its
 * in-use inode ranges in reserved inodes 3 and 4 (NOVA_BLOCKNODE_INO,
 * NOVA_INODELIST_INO), which the next mount loads instead of scanning.
 * They must be what the kernel accepts (nova_snap_load()) and match the
 * block map the passes built; else the snapshot is dropped and the clean
 * flag cleared, so that the next mount scans.  A snapshot without the
 * clean flag is stale: the kernel discards it at mount.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck.h"

struct snap {
	uint64_t *pages;		/* the whole chain */
	size_t n;
	uint64_t records;
	struct nova_range_node_lowhigh *r;
};

/* What snap_load() and snap_compare() return when memory runs out */
static const char snap_oom[] = "out of memory";

static void snap_free(struct snap *sn)
{
	free(sn->pages);
	free(sn->r);
	memset(sn, 0, sizeof(*sn));
}

/* The snapshot's page chain into @sn: NULL if the kernel would follow it */
static const char *snap_pages(struct nova_fsck *ctx, uint64_t head,
			      struct snap *sn)
{
	const char *why = NULL;
	struct nv_log lg;

	if (nv_log_chain(&ctx->fs, head, &lg, NULL, NULL))
		why = snap_oom;
	else if (!lg.npages)
		why = "its first page is not a valid page";
	else if (lg.chain_err == NV_CHAIN_LOOP)
		why = "its pages form a loop";
	else if (lg.chain_err)
		why = "a page pointer is invalid";
	sn->pages = lg.pages;
	sn->n = lg.npages;
	lg.pages = NULL;
	nv_log_free(&lg);
	return why;
}

/* nova_snap_load() without applying: NULL if the kernel would use it */
static const char *snap_load(struct nova_fsck *ctx, unsigned int ino,
			     struct snap *sn)
{
	struct nv_fs *fs = &ctx->fs;
	const struct nova_inode *pi = nv_pi(fs, nv_inode_off(fs, ino));
	uint64_t i, idx = 0, slot = 1, pages;
	struct nova_snapshot_header h;
	uint32_t crc = ~0U;
	const char *why;

	memset(sn, 0, sizeof(*sn));
	if (pi->i_valid != NOVA_INODE_VALID)
		return "its inode is not valid";
	why = snap_pages(ctx, le64_to_cpu(pi->log_head), sn);
	if (why)
		return why;
	memcpy(&h, nv_ptr(fs, sn->pages[0]), sizeof(h));
	sn->records = le64_to_cpu(h.records);
	if (le32_to_cpu(h.magic) != NOVA_SNAPSHOT_MAGIC)
		return "bad magic number";
	if (sn->records > fs->nblocks)
		return "too many records";
	/* as many pages as its first page says, or as its records fill */
	pages = nv_get64(fs, sn->pages[0] + NOVA_LOG_LAST_ENTRY +
			 offsetof(struct nova_log_page_tail, pad));
	if (pages && (pages > fs->nblocks ||
		      !NOVA_SNAPSHOT_PAGES_OK(sn->records, pages)))
		return "its page count does not fit its records";
	if (!pages)
		pages = NOVA_SNAPSHOT_PAGES(sn->records);
	if (sn->n != pages)
		return pages > sn->n ? "its records run past its pages" :
		       "it has more pages than it says (the next mount would not free them)";
	sn->r = malloc((sn->records + 1) * sizeof(*sn->r));
	if (!sn->r)
		return snap_oom;
	for (i = 0; i < sn->records; i++, slot++) {
		if (slot == NOVA_SNAPSHOT_PER_PAGE) {
			slot = 0;
			if (++idx >= sn->n)
				return "its records run past its pages";
		}
		memcpy(&sn->r[i], nv_ptr(fs, sn->pages[idx] + slot * sizeof(*sn->r)),
		       sizeof(*sn->r));
		crc = nova_crc32c_update(crc, &sn->r[i], sizeof(*sn->r));
	}
	if (~crc != le32_to_cpu(h.csum))
		return "bad checksum";
	return NULL;
}

void drop_snapshot_inodes(struct nova_fsck *ctx)
{
	unsigned int ino;

	for (ino = NOVA_BLOCKNODE_INO; ino <= NOVA_INODELIST_INO; ino++)
		nv_zero(&ctx->fs, nv_inode_off(&ctx->fs, ino),
			sizeof(struct nova_inode));
}

/* The free ranges, as nova_snap_free_range() accepts them, into @freeb */
static const char *free_ranges(struct nova_fsck *ctx, const struct snap *bl,
			       uint8_t *freeb)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t i, b, lo, hi, st, end;

	for (i = 0; i < bl->records; i++) {
		lo = le64_to_cpu(bl->r[i].range_low);
		hi = le64_to_cpu(bl->r[i].range_high);
		if (lo > hi || lo < fs->data_start || hi > fs->data_end)
			return "a free range outside the data area";
		nv_stripe_region(fs, nv_stripe_of(fs, lo), &st, &end);
		if (hi > end)
			return "a free range crossing a stripe";
		for (b = lo; b <= hi; b++) {
			if (freeb[b])
				return "overlapping free ranges";
			freeb[b] = 1;
		}
	}
	return NULL;
}

/* The in-use inode ranges, as nova_snap_inode_range() accepts them */
static const char *inode_ranges(struct nova_fsck *ctx, const struct snap *in,
				uint8_t **slots)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t i, b, lo, hi;
	unsigned int s;

	for (i = 0; i < in->records; i++) {
		lo = le64_to_cpu(in->r[i].range_low);
		hi = le64_to_cpu(in->r[i].range_high);
		s = lo >> 48;
		lo &= (1ULL << 48) - 1;
		hi &= (1ULL << 48) - 1;
		if (s >= fs->stripes || lo > hi ||
		    hi >= fs->itab[s].n * fs->per_block)
			return "an inode range outside the inode tables";
		for (b = lo; b <= hi; b++)
			slots[s][b] = 1;
	}
	return NULL;
}

struct snap_diff {
	uint64_t bad_used, first_bad, leaked, ino_free, ino_extra;
};

/* The snapshots against the block map and the inode slots */
static void snap_diff(struct nova_fsck *ctx, const struct snap *bl,
		      const struct snap *in, const uint8_t *freeb,
		      uint8_t *const *slots, struct snap_diff *d)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t i, b;
	unsigned int s;

	/* the snapshots' own pages are in use until the mount frees them */
	for (i = 0; i < bl->n + in->n; i++) {
		uint64_t pb = (i < bl->n ? bl->pages[i] : in->pages[i - bl->n]) >>
			      NOVA_BLOCK_SHIFT;

		if (ctx->bkind[pb] != K_FREE && !d->bad_used++)
			d->first_bad = pb;
		ctx->bkind[pb] = K_FIXED;
	}
	/* a block shared by several file pages (reflink) is used once */
	for (b = fs->data_start; b <= fs->data_end; b++) {
		bool used = ctx->bkind[b] != K_FREE;

		if (freeb[b] && used && !d->bad_used++)
			d->first_bad = b;
		else if (!freeb[b] && !used)
			d->leaked++;
	}
	for (s = 0; s < fs->stripes; s++) {
		for (i = 0; i < fs->itab[s].n * fs->per_block; i++) {
			uint64_t ino = i * fs->stripes + s;
			bool valid = ino < NOVA_NORMAL_INODE_START ||
				     nv_inode_slot_valid(fs, ino);

			if (valid && !slots[s][i])
				d->ino_free++;
			else if (!valid && slots[s][i])
				d->ino_extra++;
		}
	}
}

/* Check the snapshot's free ranges and in-use inode ranges */
static const char *snap_compare(struct nova_fsck *ctx, const struct snap *bl,
				const struct snap *in, char *buf, size_t len)
{
	struct nv_fs *fs = &ctx->fs;
	uint8_t *freeb = calloc(fs->nblocks, 1), **slots;
	struct snap_diff d = { 0 };
	const char *why = NULL;
	unsigned int s;

	slots = calloc(fs->stripes, sizeof(*slots));
	for (s = 0; slots && s < fs->stripes; s++) {
		slots[s] = calloc(fs->itab[s].n * fs->per_block + 1, 1);
		if (!slots[s])
			why = snap_oom;
	}
	if (!freeb || !slots)
		why = snap_oom;
	if (!why)
		why = free_ranges(ctx, bl, freeb);
	if (!why)
		why = inode_ranges(ctx, in, slots);
	if (!why) {
		snap_diff(ctx, bl, in, freeb, slots, &d);
		if (d.bad_used || d.leaked || d.ino_free || d.ino_extra) {
			snprintf(buf, len,
				 "%llu used block(s) listed as free (first: %llu), %llu free block(s) not listed, %llu inode(s) in use listed as free, %llu free inode slot(s) listed as in use",
				 (unsigned long long)d.bad_used,
				 (unsigned long long)d.first_bad,
				 (unsigned long long)d.leaked,
				 (unsigned long long)d.ino_free,
				 (unsigned long long)d.ino_extra);
			why = buf;
		}
	}
	for (s = 0; slots && s < fs->stripes; s++)
		free(slots[s]);
	free(slots);
	free(freeb);
	return why;
}

/*
 * A snapshot without the clean flag, left by a crash after it was saved
 * and before the clean flag, or after a read-write mount: normal, and
 * mount discards it.  Not an error; a repairing run discards it.
 */
static void check_stale(struct nova_fsck *ctx)
{
	unsigned int ino;

	for (ino = NOVA_BLOCKNODE_INO; ino <= NOVA_INODELIST_INO; ino++) {
		uint64_t off = nv_inode_off(&ctx->fs, ino);
		const struct nova_inode *pi = nv_pi(&ctx->fs, off);

		if (!pi->i_valid && !pi->log_head)
			continue;
		if (problem(ctx, PR_SNAPSHOT_STALE, ino)) {
			nv_zero(&ctx->fs, off, sizeof(*pi));
			fixed(ctx, PR_SNAPSHOT_STALE,
			      "stale snapshot in reserved inode %u discarded", ino);
		}
	}
}

int pass_snapshot(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	struct snap bl, in;
	const char *why;
	char buf[512], cmp[384];

	if (!(fs->sb.s_state & cpu_to_le32(NOVA_STATE_CLEAN))) {
		check_stale(ctx);
		return ctx->stop ? -1 : 0;
	}
	if (ctx->n_fixed)
		return 0;	/* the repairs invalidate it: dropped at the end */
	memset(&in, 0, sizeof(in));
	why = snap_load(ctx, NOVA_BLOCKNODE_INO, &bl);
	if (why) {
		snprintf(buf, sizeof(buf), "free-block snapshot (reserved inode %u): %s",
			 NOVA_BLOCKNODE_INO, why);
		goto report;
	}
	why = snap_load(ctx, NOVA_INODELIST_INO, &in);
	if (why) {
		snprintf(buf, sizeof(buf), "in-use inode snapshot (reserved inode %u): %s",
			 NOVA_INODELIST_INO, why);
		goto report;
	}
	why = snap_compare(ctx, &bl, &in, cmp, sizeof(cmp));
	if (why)
		snprintf(buf, sizeof(buf), "it does not match the file system: %s",
			 why);
report:
	if (why == snap_oom) {
		fsck_fatal(ctx, "out of memory");
	} else if (!why) {
		info(ctx, "clean-unmount snapshot: %llu free ranges, %llu inode ranges, consistent",
		     (unsigned long long)bl.records, (unsigned long long)in.records);
	} else if (problem(ctx, PR_SNAPSHOT_BAD, buf)) {
		fs->sb.s_state &= ~cpu_to_le32(NOVA_STATE_CLEAN);
		write_super_copies(ctx);
		drop_snapshot_inodes(ctx);
		fixed(ctx, PR_SNAPSHOT_BAD,
		      "clean-unmount snapshot discarded and clean flag cleared: the next mount scans");
	}
	snap_free(&bl);
	snap_free(&in);
	return ctx->stop ? -1 : 0;
}
