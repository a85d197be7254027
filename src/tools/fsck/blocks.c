// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova's block map, and pass 6: the files' data blocks (the model
 * of the kernel's bbuild.c; e2fsck's pass 1b and 5).
 *
 * The map says what each block is used for, one byte per block (enum
 * fsck_block_kind): the fixed areas, the inode tables and journals
 * (pass 3), the inode logs (pass 4), the data blocks (here).  Who uses a
 * block is only looked up (by a search) when it turns out to be used
 * twice.  The map also feeds libnova's allocator (nv_mark_used()), from
 * which the repairs take their blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include "fsck.h"

int blockmap_init(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t b;

	ctx->blocks_known = false;
	free(ctx->bkind);
	ctx->bkind = calloc(fs->nblocks, 1);
	ctx->owner_searches = 0;
	if (!ctx->bkind || nv_alloc_init(fs))
		return fsck_fatal(ctx, "out of memory");
	for (b = 0; b < fs->data_start; b++)
		ctx->bkind[b] = K_FIXED;
	for (b = fs->data_end + 1; b < fs->nblocks; b++)
		ctx->bkind[b] = K_FIXED;
	return 0;
}

void claim(struct nova_fsck *ctx, uint64_t blk, enum fsck_block_kind kind)
{
	ctx->bkind[blk] = kind;
	nv_mark_used(&ctx->fs, blk, 1);
}

/* nv_page_fn for the log walks: a page nothing else uses */
bool page_free(void *arg, uint64_t page)
{
	struct nova_fsck *ctx = arg;

	return ctx->bkind[page >> NOVA_BLOCK_SHIFT] == K_FREE;
}

/* The inode whose log (or data) holds @blk, 0 if none is found */
static uint64_t find_owner(struct nova_fsck *ctx, uint64_t blk, bool data,
			   uint64_t exclude)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t ino, max = nv_max_ino(fs), b;
	size_t i, it;

	if (++ctx->owner_searches > 32)
		return 0;
	for (ino = NOVA_ROOT_INO; ino < max; ino++) {
		struct nv_inode_state st;
		bool found = false;

		if (ino == NOVA_BLOCKNODE_INO || ino == NOVA_INODELIST_INO ||
		    ino == exclude || !nv_inode_slot_valid(fs, ino) ||
		    nv_iread(fs, ino, &st, data ? 0 : NV_IREAD_NO_DATA, NULL, NULL))
			continue;
		for (i = 0; !data && i < st.log.npages; i++)
			found |= st.log.pages[i] >> NOVA_BLOCK_SHIFT == blk;
		for (it = 0; data && nv_pmap_next(&st.pages, &it, NULL, &b, NULL);)
			found |= b >> NOVA_BLOCK_SHIFT == blk;
		nv_ifree(&st);
		if (found)
			return ino;
	}
	return 0;
}

static const char *table_owner(struct nova_fsck *ctx, uint64_t blk, char *b)
{
	struct nv_fs *fs = &ctx->fs;
	unsigned int s;
	uint64_t i;

	for (s = 0; s < fs->stripes; s++)
		for (i = 0; i < fs->itab[s].n; i++)
			if (blk - (fs->itab[s].blocks[i] >> NOVA_BLOCK_SHIFT) <
			    fs->itb_blocks) {
				snprintf(b, 80, "stripe %u's inode table", s);
				return b;
			}
	return "an inode table";
}

static const char *journal_owner(struct nova_fsck *ctx, uint64_t blk, char *b)
{
	struct nv_fs *fs = &ctx->fs;
	unsigned int s;

	for (s = 0; s < fs->stripes; s++)
		if (blk - (nv_get64(fs, nv_journal_ptr_off(s)) >>
			   NOVA_BLOCK_SHIFT) < fs->journal_pages) {
			snprintf(b, 80, "stripe %u's journal", s);
			return b;
		}
	return "a journal";
}

/* Who uses @blk (other than inode @exclude, if not 0), for messages */
const char *owner_desc(struct nova_fsck *ctx, uint64_t blk, uint64_t exclude)
{
	char *b = ctx->owner_buf[ctx->owner_k++ & 3];
	uint8_t kind = ctx->bkind[blk];
	uint64_t ino;

	switch (kind) {
	case K_FIXED:
		return "the fixed area or a snapshot";
	case K_TABLE:
		return table_owner(ctx, blk, b);
	case K_JOURNAL:
		return journal_owner(ctx, blk, b);
	case K_LOG:
	case K_DATA:
		ino = find_owner(ctx, blk, kind == K_DATA, exclude);
		if (!ino && exclude)
			return kind == K_LOG ? "its own log" :
			       "another of its own pages";
		if (!ino)
			return kind == K_LOG ? "another inode's log" :
			       "another inode's data";
		snprintf(b, 80, "inode %llu's %s", (unsigned long long)ino,
			 kind == K_LOG ? "log" : "data");
		return b;
	}
	return "nothing";
}

struct conflict {
	uint64_t pg, blk, ent;
};

/* Copy each file page in @c to a block of its own */
static void copy_shared(struct nova_fsck *ctx, uint64_t ino,
			struct nv_inode_state *st, const struct conflict *c,
			size_t nc)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_wlog w;
	size_t i;

	nv_wlog_from_state(&w, st);
	for (i = 0; i < nc; i++) {
		uint64_t nb;

		if (!nv_alloc(fs, 1, (int)(ino % fs->stripes), false, &nb)) {
			not_fixed(ctx, PR_DATA_BLOCK_SHARED,
				  "inode %llu: no free block to copy file page %llu",
				  (unsigned long long)ino, (unsigned long long)c[i].pg);
			continue;
		}
		nv_put(fs, nb << NOVA_BLOCK_SHIFT, nv_ptr(fs, c[i].blk),
		       NOVA_BLOCK_SIZE);
		if (nv_append_write(fs, &w, c[i].pg, 1, nb << NOVA_BLOCK_SHIFT,
				    NULL)) {
			not_fixed(ctx, PR_DATA_BLOCK_SHARED,
				  "inode %llu: no log space to copy file page %llu",
				  (unsigned long long)ino, (unsigned long long)c[i].pg);
			continue;
		}
		if (nv_log_commit(fs, &w))
			return;		/* an I/O error: the run ends */
		nv_invalidate_pages(fs, c[i].ent, 1);
		claim(ctx, nb, K_DATA);
		fixed(ctx, PR_DATA_BLOCK_SHARED,
		      "inode %llu: file page %llu copied to block %llu, its own now",
		      (unsigned long long)ino, (unsigned long long)c[i].pg,
		      (unsigned long long)nb);
	}
}

/*
 * Inode @ino in its project's usage as the kernel counts it when it
 * turns project quotas on (quota.c nova_prjquota_count(), over
 * nova_walk_inodes()): the root and the inodes from
 * NOVA_NORMAL_INODE_START that have a link (the mount frees the others),
 * unless it cannot read them, nor those of project ID -1; the space in
 * whole blocks, as i_blocks: a file's mapped pages, a symlink's block, a
 * directory's log pages
 */
static void count_usage(struct nova_fsck *ctx, uint64_t ino,
			const struct nv_inode_state *st)
{
	uint64_t pages, space = 0, inodes = 0;

	if ((ino != NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START) ||
	    (!st->links && ino != NOVA_ROOT_INO))
		return;
	if (st->bad || st->log.err || st->log.chain_err) {
		ctx->prj_unread++;
		return;
	}
	if (st->projid == NV_INVALID_PROJID)
		return;
	pages = S_ISDIR(st->mode) ? st->log.npages :
		S_ISREG(st->mode) || S_ISLNK(st->mode) ? st->pages.n : 0;
	nv_pmap_get(&ctx->prj_usage, st->projid, &space, &inodes);
	if (nv_pmap_set(&ctx->prj_usage, st->projid,
			space + (pages << NOVA_BLOCK_SHIFT), inodes + 1, NULL) < 0)
		fsck_fatal(ctx, "out of memory");
}

/* Claim an inode's data blocks; a block used already is copied */
static int data_inode(struct nova_fsck *ctx, uint64_t ino)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_inode_state st;
	struct conflict *c = NULL, *more;
	size_t nc = 0, cap = 0, it;
	uint64_t pg, blk, ent;
	int ret = 0;

	if (!nv_inode_slot_valid(fs, ino) ||
	    nv_iread(fs, ino, &st, iread_raw(ino), NULL, NULL))
		return 0;
	count_usage(ctx, ino, &st);
	if (st.bad || (!st.links && ino != NOVA_ROOT_INO)) {
		nv_ifree(&st);	/* the kernel would not count its blocks */
		return 0;
	}
	for (it = 0; nv_pmap_next(&st.pages, &it, &pg, &blk, &ent);) {
		uint64_t b = blk >> NOVA_BLOCK_SHIFT;

		if (ctx->bkind[b] == K_FREE) {
			claim(ctx, b, K_DATA);
			continue;
		}
		if (!problem(ctx, PR_DATA_BLOCK_SHARED, (unsigned long long)ino,
			     type_str(st.mode), ipath(ctx, ino),
			     (unsigned long long)b, (unsigned long long)pg,
			     owner_desc(ctx, b, ino)))
			continue;
		more = nv_grow(c, &cap, nc, sizeof(*c), 8);
		if (!more) {
			ret = fsck_fatal(ctx, "out of memory");
			break;
		}
		c = more;
		c[nc++] = (struct conflict){ pg, blk, ent };
	}
	if (!ctx->stop)
		copy_shared(ctx, ino, &st, c, nc);
	free(c);
	nv_ifree(&st);
	return ctx->stop ? -1 : ret;
}

int pass_data(struct nova_fsck *ctx)
{
	nv_pmap_free(&ctx->prj_usage);
	ctx->prj_unread = 0;
	return scan_inodes(ctx, data_inode, false);
}
