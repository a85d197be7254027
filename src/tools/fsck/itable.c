// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova pass 3: the reserved inodes and the inode tables.
 *
 * The root inode and the replica of the reserved inodes' block (block
 * n-2); every stripe's inode table chain (pointers, loops); then the
 * block map starts (blocks.c) with the fixed areas, the tables and the
 * journals' pages.  A stripe whose table head or journal cannot be kept
 * gets a new empty one at the end of pass 4, when every used block is
 * known (replace_journals_itables()).
 */
#include <stdlib.h>
#include <string.h>
#include "fsck.h"

static bool root_ok(const struct nova_inode *pi)
{
	return pi->i_valid == NOVA_INODE_VALID &&
	       le64_to_cpu(pi->i_ino) == NOVA_ROOT_INO &&
	       S_ISDIR(le16_to_cpu(pi->i_mode));
}

/*
 * The root from the replica block (with the primary's log if it is
 * sound), or a new empty root directory
 */
static void repair_root(struct nova_fsck *ctx, uint64_t off,
			const struct nova_inode *root,
			const struct nova_inode *rroot)
{
	struct nv_fs *fs = &ctx->fs;
	const struct nv_walk walk = { 0 };
	struct nova_inode n;
	struct nv_log lg;

	if (root_ok(rroot)) {
		n = *rroot;
		nv_log_walk(fs, le64_to_cpu(root->log_head),
			    le64_to_cpu(root->log_tail), &lg, &walk);
		if (!lg.err && !lg.chain_err && root->log_head) {
			n.log_head = root->log_head;
			n.log_tail = root->log_tail;
		}
		nv_log_free(&lg);
		nv_commit(fs, off, &n, sizeof(n));
		fixed(ctx, PR_ROOT_BAD, "root inode restored from the replica block%s",
		      n.log_head == root->log_head ? "" :
		      " (with the replica's log)");
		return;
	}
	memset(&n, 0, sizeof(n));
	n.i_mode = cpu_to_le16(S_IFDIR | 0755);
	n.i_links_count = cpu_to_le32(2);
	n.i_size = cpu_to_le64(NOVA_BLOCK_SIZE);
	n.i_atime = n.i_mtime = n.i_ctime = n.i_btime =
		cpu_to_le64((uint64_t)ctx->now);
	n.i_ino = cpu_to_le64(NOVA_ROOT_INO);
	n.i_valid = NOVA_INODE_VALID;
	nv_commit(fs, off, &n, sizeof(n));
	fixed(ctx, PR_ROOT_BAD, "root inode re-created as an empty directory");
}

/*
 * The replica block: only the log pointers may differ (the kernel never
 * refreshes them there), and the clean-unmount snapshot inodes are not
 * replicated at all, nor the project quota file, which the kernel makes
 * long after mkfs (the replica serves to restore the root).
 */
static void check_reserved_replica(struct nova_fsck *ctx, uint64_t b1,
				   uint64_t rb)
{
	struct nv_fs *fs = &ctx->fs;
	struct nova_inode a, b;
	unsigned int i;

	for (i = 0; i < NOVA_RESERVED_INODES; i++) {
		if (i == NOVA_BLOCKNODE_INO || i == NOVA_INODELIST_INO ||
		    i == NOVA_PRJQUOTA_INO)
			continue;
		a = *(struct nova_inode *)nv_ptr(fs, b1 + i * sizeof(a));
		b = *(struct nova_inode *)nv_ptr(fs, rb + i * sizeof(b));
		a.log_head = a.log_tail = 0;
		b.log_head = b.log_tail = 0;
		if (!memcmp(&a, &b, sizeof(a)))
			continue;
		if (problem(ctx, PR_RESERVED_REPLICA,
			    (unsigned long long)(fs->nblocks - 2),
			    NOVA_RESERVED_INODE_BLOCK, i)) {
			nv_commit(fs, rb, nv_ptr(fs, b1), NOVA_BLOCK_SIZE);
			fixed(ctx, PR_RESERVED_REPLICA,
			      "replica of the reserved inodes rewritten from block %u",
			      NOVA_RESERVED_INODE_BLOCK);
		}
		break;
	}
}

int pass_reserved(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t b1 = (uint64_t)NOVA_RESERVED_INODE_BLOCK << NOVA_BLOCK_SHIFT;
	uint64_t rb = (fs->nblocks - 2) << NOVA_BLOCK_SHIFT;
	uint64_t off = b1 + NOVA_ROOT_INO * sizeof(struct nova_inode);
	struct nova_inode *root = nv_ptr(fs, off);
	struct nova_inode *rroot = nv_ptr(fs, rb + NOVA_ROOT_INO * sizeof(*root));

	if (!root_ok(root)) {
		const char *why = root->i_valid != NOVA_INODE_VALID ? "not valid" :
				  le64_to_cpu(root->i_ino) != NOVA_ROOT_INO ?
				  "wrong inode number" : "not a directory";

		if (problem(ctx, PR_ROOT_BAD, why))
			repair_root(ctx, off, root, rroot);
		if (ctx->stop)
			return -1;
	}
	check_reserved_replica(ctx, b1, rb);
	return ctx->stop ? -1 : 0;
}

/* One pass over the chains; true if a repair changed one */
static bool check_chains(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	bool changed = false;
	unsigned int s;

	for (s = 0; s < fs->stripes && !ctx->stop; s++) {
		struct nv_itable *t = &fs->itab[s];
		struct fsck_reset_state *r = &ctx->itreset[s];

		if (!t->err || r->state)
			continue;
		if (t->err == NV_CHAIN_HEAD) {
			r->code = PR_ITABLE_BAD_HEAD;
			if (problem(ctx, PR_ITABLE_BAD_HEAD, s,
				    (unsigned long long)t->err_ptr))
				r->state = RESET_NEW;	/* after the block scan */
			else
				r->state = RESET_UNUSABLE;
			continue;
		}
		if (problem(ctx, PR_ITABLE_BAD_NEXT, s,
			    (unsigned long long)t->err_block,
			    (unsigned long long)t->err_ptr,
			    t->err == NV_CHAIN_LOOP ?
			    "points to an inode table block (loop)" :
			    "is outside the data area or misaligned")) {
			nv_commit64(fs, t->err_block + fs->itbs - 8, 0);
			fixed(ctx, PR_ITABLE_BAD_NEXT,
			      "stripe %u: inode table ends at block 0x%llx (next pointer cleared)",
			      s, (unsigned long long)t->err_block);
			changed = true;
		}
	}
	return changed;
}

/* A stripe's journal pages: in the data area and used by nothing else */
static void claim_journal(struct nova_fsck *ctx, unsigned int s)
{
	struct nv_fs *fs = &ctx->fs;
	struct fsck_reset_state *r = &ctx->jreset[s];
	uint64_t base = nv_get64(fs, nv_journal_ptr_off(s)) &
			~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	uint64_t first = base >> NOVA_BLOCK_SHIFT, b;

	if (r->state)
		return;
	for (b = first; b < first + fs->journal_pages; b++) {
		if (b >= fs->data_start && b <= fs->data_end &&
		    ctx->bkind[b] == K_FREE)
			continue;
		r->code = PR_JOURNAL_PAGE_USED;
		if (problem(ctx, PR_JOURNAL_PAGE_USED, s, (unsigned long long)b,
			    b < fs->data_start || b > fs->data_end ?
			    "outside the data area" : owner_desc(ctx, b, 0)))
			r->state = RESET_NEW;
		else
			r->state = RESET_UNUSABLE;
		return;
	}
	for (b = first; b < first + fs->journal_pages; b++)
		claim(ctx, b, K_JOURNAL);
}

int pass_itables(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	unsigned int s;
	uint64_t b, i;

	free(ctx->itreset);
	ctx->itreset = calloc(fs->stripes, sizeof(*ctx->itreset));
	if (!ctx->itreset)
		return fsck_fatal(ctx, "out of memory");
	do {
		if (nv_load_itables(fs))
			return fsck_fatal(ctx, "out of memory");
	} while (check_chains(ctx));
	if (ctx->stop)
		return -1;

	/* the block map: fixed areas, tables, journals */
	if (blockmap_init(ctx))
		return -1;
	for (s = 0; s < fs->stripes; s++)
		for (i = 0; i < fs->itab[s].n; i++)
			for (b = 0; b < fs->itb_blocks; b++)
				claim(ctx, (fs->itab[s].blocks[i] >> NOVA_BLOCK_SHIFT) + b,
				      K_TABLE);
	for (s = 0; s < fs->stripes && !ctx->stop; s++)
		claim_journal(ctx, s);
	if (ctx->stop)
		return -1;
	for (s = 0; s < fs->stripes; s++)
		info(ctx, "stripe %u: %zu inode table block(s)", s, fs->itab[s].n);
	return 0;
}

/*
 * New empty journals and inode tables for the stripes that asked for
 * them (RESET_NEW), now that every used block is known: at the end of
 * pass 4
 */
void replace_journals_itables(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	unsigned int s;
	uint64_t blk, jp[2];

	for (s = 0; s < fs->stripes; s++) {
		struct fsck_reset_state *j = &ctx->jreset[s], *t = &ctx->itreset[s];

		if (j->state == RESET_NEW) {
			if (!nv_alloc(fs, fs->journal_pages, s, false, &blk)) {
				not_fixed(ctx, j->code,
					  "stripe %u: no free block for a new journal", s);
				continue;
			}
			nv_zero(fs, blk << NOVA_BLOCK_SHIFT,
				(size_t)fs->journal_pages << NOVA_BLOCK_SHIFT);
			/*
			 * head and tail in one store: the two words of one
			 * cache line, which a sector write holds whole
			 */
			jp[0] = jp[1] = cpu_to_le64(blk << NOVA_BLOCK_SHIFT);
			nv_commit(fs, nv_journal_ptr_off(s), jp, sizeof(jp));
			claim(ctx, blk, K_JOURNAL);
			fixed(ctx, j->code, "stripe %u: new empty journal at block %llu",
			      s, (unsigned long long)blk);
		}
		if (t->state == RESET_NEW) {
			if (!nv_alloc(fs, fs->itb_blocks, s, false, &blk)) {
				not_fixed(ctx, t->code,
					  "stripe %u: no free blocks for a new inode table", s);
				continue;
			}
			nv_zero(fs, blk << NOVA_BLOCK_SHIFT, fs->itbs);
			nv_commit64(fs, nv_itable_ptr_off(s), blk << NOVA_BLOCK_SHIFT);
			fixed(ctx, t->code,
			      "stripe %u: new empty inode table at block %llu (its inodes are lost)",
			      s, (unsigned long long)blk);
		}
	}
}
