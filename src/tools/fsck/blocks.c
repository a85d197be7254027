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
 *
 * With the reflink feature (NOVA_FEATURE_INCOMPAT_REFLINK) a data block
 * may be mapped by several live file pages, of one file or of several
 * (a clone), when every write entry that maps it carries
 * NOVA_WRITE_SHARED: it is in use once, and its reference count, the
 * number of pages that map it, is the kernel's to count at mount (there
 * is none on pmem).  Any other block mapped twice is damage, and so is a
 * data page on metadata: the page is copied to a block of its own.
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
	int code;			/* the problem: PR_DATA_* */
};

/*
 * Copy each file page in @c to a block of its own, logged without
 * NOVA_WRITE_SHARED (it maps the block alone).  An unwritten page
 * (NOVA_WRITE_UNWRITTEN) reads as zeros, and its block holds zeros (the
 * kernel zeroes it at fallocate): it gets a zeroed block and keeps the
 * flag, not the bytes of the block's other user.
 */
static void copy_shared(struct nova_fsck *ctx, uint64_t ino,
			struct nv_inode_state *st, const struct conflict *c,
			size_t nc)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_wlog w;
	size_t i;

	nv_wlog_from_state(&w, st);
	for (i = 0; i < nc; i++) {
		const struct nova_file_write_entry *e = nv_ptr(fs, c[i].ent);
		uint8_t flags = e->flags & NOVA_WRITE_UNWRITTEN;
		uint64_t nb;

		if (!nv_alloc(fs, 1, (int)(ino % fs->stripes), false, &nb)) {
			not_fixed(ctx, c[i].code,
				  "inode %llu: no free block to copy file page %llu",
				  (unsigned long long)ino, (unsigned long long)c[i].pg);
			continue;
		}
		if (flags)
			nv_zero(fs, nb << NOVA_BLOCK_SHIFT, NOVA_BLOCK_SIZE);
		else
			nv_put(fs, nb << NOVA_BLOCK_SHIFT, nv_ptr(fs, c[i].blk),
			       NOVA_BLOCK_SIZE);
		if (nv_append_write_flags(fs, &w, c[i].pg, 1,
					  nb << NOVA_BLOCK_SHIFT, flags, NULL)) {
			not_fixed(ctx, c[i].code,
				  "inode %llu: no log space to copy file page %llu",
				  (unsigned long long)ino, (unsigned long long)c[i].pg);
			continue;
		}
		if (nv_log_commit(fs, &w))
			return;		/* an I/O error: the run ends */
		nv_invalidate_pages(fs, c[i].ent, 1);
		claim(ctx, nb, K_DATA);
		fixed(ctx, c[i].code,
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

/*
 * Inode @ino read with its data pages into @st, if the kernel counts its
 * blocks (else false, @st freed); its project usage counted with @usage
 */
static bool data_read(struct nova_fsck *ctx, uint64_t ino,
		      struct nv_inode_state *st, bool usage)
{
	struct nv_fs *fs = &ctx->fs;

	if (!nv_inode_slot_valid(fs, ino) ||
	    nv_iread(fs, ino, st, iread_raw(ino), NULL, NULL))
		return false;
	if (usage)
		count_usage(ctx, ino, st);
	if (st->bad || (!st->links && ino != NOVA_ROOT_INO)) {
		nv_ifree(st);	/* the kernel would not count its blocks */
		return false;
	}
	return true;
}

/*
 * What the scan finds of a data block's pages (ctx->dclaim): mapped more
 * than once, by a page of an entry flagged NOVA_WRITE_SHARED, by a page
 * of an entry without the flag; and in the second scan, that a page
 * kept it
 */
enum { DC_MANY = 1, DC_FLAGGED = 2, DC_UNFLAGGED = 4, DC_KEPT = 8 };

static bool reflink(const struct nova_fsck *ctx)
{
	return ctx->fs.sb.s_feature_incompat &
	       cpu_to_le64(NOVA_FEATURE_INCOMPAT_REFLINK);
}

/*
 * The DC_ bit of a page mapped by the write entry at @ent: a regular
 * file's may be shared (a symlink's block is its own)
 */
static uint8_t page_flag(struct nova_fsck *ctx, const struct nv_inode_state *st,
			 uint64_t ent)
{
	const struct nova_file_write_entry *e = nv_ptr(&ctx->fs, ent);

	return S_ISREG(st->mode) && e->entry_type == NOVA_FILE_WRITE &&
	       (e->flags & NOVA_WRITE_SHARED) ? DC_FLAGGED : DC_UNFLAGGED;
}

/*
 * A block mapped by several pages is shared legitimately when every one
 * of them is of an entry flagged NOVA_WRITE_SHARED, with the reflink
 * feature: the kernel counts its references at mount, and it is in use
 * once
 */
static bool shared_ok(const struct nova_fsck *ctx, uint8_t dc)
{
	return reflink(ctx) && !(dc & DC_UNFLAGGED);
}

/*
 * The first scan: inode @ino's data blocks claimed, and what maps each
 * (ctx->dclaim); a page whose block is a log page, a table, a journal or
 * outside the data area only counted, for the second scan
 */
static int claim_inode(struct nova_fsck *ctx, uint64_t ino)
{
	struct nv_inode_state st;
	uint64_t blk, ent;
	size_t it;

	if (!data_read(ctx, ino, &st, true))
		return ctx->stop ? -1 : 0;
	for (it = 0; nv_pmap_next(&st.pages, &it, NULL, &blk, &ent);) {
		uint64_t b = blk >> NOVA_BLOCK_SHIFT;
		uint8_t f = page_flag(ctx, &st, ent);

		if (ctx->bkind[b] == K_FREE) {
			claim(ctx, b, K_DATA);
			ctx->dclaim[b] = f;
		} else if (ctx->bkind[b] == K_DATA) {
			ctx->dclaim[b] |= DC_MANY | f;
		} else {
			ctx->dclaim[b] = DC_MANY;	/* metadata */
		}
	}
	nv_ifree(&st);
	return ctx->stop ? -1 : 0;
}

/*
 * The problem of @st's page that maps block @b through the entry at
 * @ent, 0 if none: a block of metadata; a block several pages map that
 * they may not share, of which the first page keeps it; with the reflink
 * feature, a block that flagged pages share, for an unflagged page
 */
static int page_problem(struct nova_fsck *ctx, const struct nv_inode_state *st,
			uint64_t b, uint64_t ent)
{
	uint8_t dc = ctx->dclaim[b];

	if (ctx->bkind[b] == K_FREE) {
		claim(ctx, b, K_DATA);	/* not seen by the first scan */
		ctx->dclaim[b] = page_flag(ctx, st, ent) | DC_KEPT;
		return 0;
	}
	if (ctx->bkind[b] != K_DATA)
		return PR_DATA_BLOCK_SHARED;
	if (!(dc & DC_MANY) || shared_ok(ctx, dc))
		return 0;
	if (reflink(ctx) && (dc & DC_FLAGGED))
		return page_flag(ctx, st, ent) == DC_FLAGGED ? 0 :
		       PR_DATA_SHARED_UNFLAGGED;
	if (!(dc & DC_KEPT)) {
		ctx->dclaim[b] |= DC_KEPT;
		return 0;
	}
	return PR_DATA_BLOCK_SHARED;
}

/* Report the problem @code of a page; true to copy it */
static bool report_page(struct nova_fsck *ctx, uint64_t ino,
			const struct nv_inode_state *st, int code, uint64_t pg,
			uint64_t b, uint64_t ent)
{
	static const char no_feature[] =
		" (flagged shared, but the super block lacks the reflink feature)";
	bool flagged = !reflink(ctx) && ctx->bkind[b] == K_DATA &&
		       (ctx->dclaim[b] & DC_FLAGGED);

	if (code == PR_DATA_SHARED_UNFLAGGED)
		return problem(ctx, PR_DATA_SHARED_UNFLAGGED,
			       (unsigned long long)ino, type_str(st->mode),
			       ipath(ctx, ino), (unsigned long long)b,
			       (unsigned long long)pg, owner_desc(ctx, b, ino),
			       (unsigned long long)ent);
	return problem(ctx, PR_DATA_BLOCK_SHARED, (unsigned long long)ino,
		       type_str(st->mode), ipath(ctx, ino),
		       (unsigned long long)b, (unsigned long long)pg,
		       owner_desc(ctx, b, ino), flagged ? no_feature : "");
}

/*
 * The second scan, when the first found blocks used twice: inode @ino's
 * pages whose block is not theirs to map are reported, and copied
 */
static int copy_inode(struct nova_fsck *ctx, uint64_t ino)
{
	struct nv_inode_state st;
	struct conflict *c = NULL, *more;
	size_t nc = 0, cap = 0, it;
	uint64_t pg, blk, ent;
	int ret = 0, code;

	if (!data_read(ctx, ino, &st, false))
		return ctx->stop ? -1 : 0;
	for (it = 0; nv_pmap_next(&st.pages, &it, &pg, &blk, &ent);) {
		uint64_t b = blk >> NOVA_BLOCK_SHIFT;

		code = page_problem(ctx, &st, b, ent);
		if (!code || !report_page(ctx, ino, &st, code, pg, b, ent))
			continue;
		more = nv_grow(c, &cap, nc, sizeof(*c), 8);
		if (!more) {
			ret = fsck_fatal(ctx, "out of memory");
			break;
		}
		c = more;
		c[nc++] = (struct conflict){ pg, blk, ent, code };
	}
	if (!ctx->stop)
		copy_shared(ctx, ino, &st, c, nc);
	free(c);
	nv_ifree(&st);
	return ctx->stop ? -1 : ret;
}

/*
 * The files' data blocks: a first scan claims them and notes who maps
 * each; a block mapped by several pages is in use once, shared (reflink)
 * if they may share it.  Only when a page maps a block it may not (one
 * of metadata, one that another page maps and may not share) does a
 * second scan, in the same order, report and copy those pages.
 */
int pass_data(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t b, bad = 0;
	int ret;

	nv_pmap_free(&ctx->prj_usage);
	ctx->prj_unread = 0;
	ctx->n_shared = 0;
	free(ctx->dclaim);
	ctx->dclaim = calloc(fs->nblocks, 1);
	if (!ctx->dclaim)
		return fsck_fatal(ctx, "out of memory");
	ret = scan_inodes(ctx, claim_inode, false);
	for (b = 0; !ret && b < fs->nblocks; b++) {
		if (!(ctx->dclaim[b] & DC_MANY))
			continue;
		if (ctx->bkind[b] == K_DATA && shared_ok(ctx, ctx->dclaim[b]))
			ctx->n_shared++;
		else
			bad++;
	}
	if (!ret && ctx->n_shared)
		info(ctx, "%llu data blocks shared by several file pages (reflink)",
		     (unsigned long long)ctx->n_shared);
	if (!ret && bad)
		ret = scan_inodes(ctx, copy_inode, false);
	free(ctx->dclaim);
	ctx->dclaim = NULL;
	return ret;
}
