// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova pass 4: the inode logs (e2fsck's pass 1).
 *
 * Every valid inode, in the kernel's scan order (bbuild.c), is read and
 * its log replayed by libnova as the kernel does: page chains, tails,
 * entry types and lengths, checksums, increasing trans_ids, entries the
 * replay rejects (extended attribute groups and fscrypt contexts among
 * them; ciphertext names and symlink targets only with a context).  Then
 * what steers the log garbage collector and lies outside the checksums:
 * page-tail counters, dead marks, write entries' superseded page counts.
 * The inode's log pages and data blocks go into the block map.  The
 * project quota file (reserved inode 6) is read as a regular file, and
 * cleared if it is not one the kernel can use.  Last, the feature bits
 * that what the logs hold needs.
 *
 * A repair during the scan appends nothing: it moves a log tail back,
 * clears a pointer, or replaces a bad entry in the middle of a log by a
 * dead entry of the same length that changes nothing (neutralize()), so
 * that the entries after it survive.  After a repair the inode is read
 * again.  The repairs that log a new entry (the casefold flag, the
 * project ID: a link-change entry), which may take a new log page, are
 * made at the end of the pass, when every used block is known: until
 * then an inode's log pages and data blocks are known used only once it
 * has been checked (repair_deferred()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fsck.h"

/*
 * What a check leaves the inode's check to do: the next check, all again
 * (after a repair), nothing (cleared), or nothing more (a problem left
 * as it is that makes the other checks moot)
 */
enum { CK_NEXT, CK_AGAIN, CK_CLEARED, CK_DONE };

static bool zero_block(struct nova_fsck *ctx, uint64_t blk)
{
	const uint8_t *p = nv_ptr(&ctx->fs, blk);
	size_t i;

	for (i = 0; i < NOVA_BLOCK_SIZE; i++)
		if (p[i])
			return false;
	return true;
}

static bool same_xattrs(struct nv_inode_state *a, struct nv_inode_state *b,
			char *what, size_t len)
{
	size_t i;

	if (a->nxattrs != b->nxattrs) {
		snprintf(what, len, "%zu extended attributes instead of %zu",
			 a->nxattrs, b->nxattrs);
		return false;
	}
	for (i = 0; i < b->nxattrs; i++) {
		struct nv_xattr *x = &b->xattrs[i];
		struct nv_xattr *y = nv_xattr_lookup(a, x->index, x->name,
						     x->name_len);
		char name[64];

		if (y && y->off == x->off)
			continue;
		nv_xattr_fullname(name, sizeof(name), x->index, x->name,
				  x->name_len > 40 ? 40 : x->name_len);
		snprintf(what, len, "xattr %s lost", name);
		return false;
	}
	return true;
}

static bool same_names(struct nv_inode_state *a, struct nv_inode_state *b,
		       char *what, size_t len)
{
	size_t i;

	if (a->dir.alive != b->dir.alive) {
		snprintf(what, len, "%zu names instead of %zu",
			 a->dir.alive, b->dir.alive);
		return false;
	}
	for (i = 0; i < b->dir.n; i++) {
		struct nv_dent *e = &b->dir.d[i], *f;

		if (!e->alive)
			continue;
		f = nv_dir_lookup(&a->dir, e->name, e->len);
		if (!f || f->ino != e->ino || f->ftype != e->ftype) {
			char esc[100];	/* cut to fit @what */

			nova_safe_str(esc, sizeof(esc), e->name, e->len);
			snprintf(what, len, "name '%s' lost", esc);
			return false;
		}
	}
	return true;
}

static bool same_pages(struct nova_fsck *ctx, struct nv_inode_state *a,
		       struct nv_inode_state *b, char *what, size_t len)
{
	uint64_t pg, blk, blk2, limit;
	size_t it;

	limit = (a->size + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT;
	for (it = 0; nv_pmap_next(&b->pages, &it, &pg, &blk, NULL);) {
		if (pg >= limit)
			continue;
		if (!nv_pmap_get(&a->pages, pg, &blk2, NULL) ?
		    !zero_block(ctx, blk) : blk2 != blk) {
			snprintf(what, len, "file page %llu lost",
				 (unsigned long long)pg);
			return false;
		}
	}
	for (it = 0; nv_pmap_next(&a->pages, &it, &pg, &blk, NULL);) {
		if (pg < limit && !nv_pmap_get(&b->pages, pg, NULL, NULL) &&
		    !zero_block(ctx, blk)) {
			snprintf(what, len, "file page %llu resurrected",
				 (unsigned long long)pg);
			return false;
		}
	}
	return true;
}

/* Do two replays of one inode give the same file system state? */
static bool same_state(struct nova_fsck *ctx, struct nv_inode_state *a,
		       struct nv_inode_state *b, char *what, size_t len)
{
	if (a->links != b->links || a->mode != b->mode || a->uid != b->uid ||
	    a->gid != b->gid || a->size != b->size || a->flags != b->flags) {
		snprintf(what, len, "attributes differ");
		return false;
	}
	if (a->projid != b->projid) {
		snprintf(what, len, "project IDs differ");
		return false;
	}
	if (!same_xattrs(a, b, what, len))
		return false;
	if (S_ISDIR(a->mode) && !same_names(a, b, what, len))
		return false;
	if (S_ISLNK(a->mode) && (a->symlink_block != b->symlink_block ||
				 a->pages.n != b->pages.n)) {
		snprintf(what, len, "the symlink's target block is not counted as used");
		return false;
	}
	return !S_ISREG(a->mode) || same_pages(ctx, a, b, what, len);
}

/* @fn on every entry of the log of @st, read without a problem */
static void walk_log(struct nova_fsck *ctx, const struct nv_inode_state *st,
		     nv_entry_fn fn, void *arg)
{
	const struct nv_walk w = { .entry = fn, .arg = arg };
	struct nv_log lg;

	if (nv_log_walk(&ctx->fs, st->log.head, st->log.tail, &lg, &w))
		fsck_fatal(ctx, "out of memory");
	nv_log_free(&lg);
}

static int clear_marks_fn(const struct nv_entry *e, void *arg)
{
	const uint8_t *p = e->p;
	int fo = nv_entry_flag_offset(p[0]);

	if (fo >= 0 && p[fo]) {
		nv_put8(e->fs, e->off + fo, 0);
		(*(unsigned int *)arg)++;
	}
	if (p[0] == NOVA_FILE_WRITE)
		nv_put32(e->fs, e->off + offsetof(struct nova_file_write_entry,
						  invalid_pages), 0);
	return 0;
}

/* Clear every dead mark of a log (entries, write entries' page counts,
 * page tails): always safe, the marks only steer the garbage collector.
 * The page tails' dead counts first, durable before the entries live
 * again: a count above the dead entries lets the collector free the
 * page.
 */
static unsigned int clear_dead_marks(struct nova_fsck *ctx,
				     struct nv_inode_state *st)
{
	const struct nv_log *lg = &st->log;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < lg->npages; i++)
		nv_put32(&ctx->fs,
			 pt_field(lg->pages[i],
				  offsetof(struct nova_log_page_tail, invalid_entries)),
			 0);
	nv_barrier(&ctx->fs);
	walk_log(ctx, st, clear_marks_fn, &n);
	return n;
}

struct pages_ck {
	struct nv_inode_state *all;
	uint64_t bad, first, recorded, actual;
	bool fix;
};

/* A write entry may not count more superseded pages than it has */
static int pages_fn(const struct nv_entry *ent, void *arg)
{
	struct pages_ck *c = arg;
	const struct nova_file_write_entry *e = ent->p;
	uint64_t actual = 0;
	uint32_t rec;

	if (e->entry_type != NOVA_FILE_WRITE || !e->block)
		return 0;
	rec = le32_to_cpu(e->invalid_pages);
	nv_pmap_get(&c->all->superseded, ent->off, &actual, NULL);
	if (rec <= actual)
		return 0;
	if (!c->bad++) {
		c->first = ent->off;
		c->recorded = rec;
		c->actual = actual;
	}
	if (c->fix)
		nv_put32(ent->fs, ent->off + offsetof(struct nova_file_write_entry,
						      invalid_pages), actual);
	return 0;
}

/*
 * A dead xattr part (part 1) of @size bytes: with no live part 0 right
 * before it, every replay skips it, dead or not
 */
static void xattr_filler(struct nova_xattr_entry *e, size_t size, uint64_t tid)
{
	memset(e, 0, size);
	e->entry_type = NOVA_XATTR;
	e->name_index = NOVA_XATTR_INDEX_USER;
	e->invalid = 1;
	e->xe_len = cpu_to_le16(size);
	e->part_len = cpu_to_le16(size - NOVA_XATTR_HEADER);
	e->value_len = cpu_to_le32(size - NOVA_XATTR_HEADER);
	e->part = cpu_to_le16(1);
	e->trans_id = cpu_to_le64(tid);
	nv_entry_csum(e, size);
}

union dead_entry {
	struct nova_setattr_entry sa;
	struct nova_link_change_entry lc;
	struct nova_dentry de;
	struct nova_xattr_entry xe;
	uint64_t raw[NOVA_XATTR_ENTRY_MAX / 8];
};

/*
 * The dead entry that replaces the @size-byte entry @p at @off: false if
 * no entry of that size changes nothing
 */
static bool dead_entry(union dead_entry *e, const struct nv_inode_state *st,
		       const uint8_t *p, uint64_t off, size_t size)
{
	uint64_t tid = st->log.last_tid + 1;

	memset(e, 0, sizeof(*e));
	if (p[0] == NOVA_XATTR) {
		/* part 0 of a group the replay rejected passed the walk */
		xattr_filler(&e->xe, size, off == st->log.xgroup_off ?
			     nv_entry_tid(p) : tid);
		return true;
	}
	if (size == sizeof(e->sa)) {
		e->sa.entry_type = NOVA_SET_ATTR;
		e->sa.invalid = 1;
		e->sa.trans_id = cpu_to_le64(tid);
	} else if (size == sizeof(e->lc)) {
		e->lc.entry_type = NOVA_LINK_CHANGE;
		e->lc.invalid = 1;
		e->lc.links = cpu_to_le32(st->links);
		e->lc.ctime = cpu_to_le64((uint64_t)st->ctime);
		e->lc.flags = cpu_to_le32(st->flags);
		e->lc.generation = cpu_to_le32(st->generation);
		e->lc.projid = cpu_to_le32(st->projid);
		e->lc.trans_id = cpu_to_le64(tid);
	} else if (S_ISDIR(st->mode) && size > NOVA_DENTRY_HEADER + 1 &&
		   NOVA_DENTRY_LEN(size - NOVA_DENTRY_HEADER - 1) == size &&
		   size - NOVA_DENTRY_HEADER - 1 <= NOVA_NAME_LEN) {
		e->de.entry_type = NOVA_DIR_LOG;
		e->de.name_len = size - NOVA_DENTRY_HEADER - 1;
		e->de.de_len = cpu_to_le16(size);
		e->de.invalid = 1;
		e->de.links_count = cpu_to_le32(st->links);
		e->de.mtime = cpu_to_le64((uint64_t)st->mtime);
		e->de.trans_id = cpu_to_le64(tid);
		memset(e->de.name, '~', e->de.name_len);
	} else {
		return false;
	}
	nv_entry_csum(e, size);
	return true;
}

/* An entry of a log page, replaced, and what it was (to put it back) */
struct swap {
	uint64_t off, inv;		/* the entry, its page's dead count */
	size_t size;
	uint32_t old_inv;
	uint8_t save[NOVA_XATTR_ENTRY_MAX];
};

/*
 * The entry is replaced in place, a commit (torn, it keeps a bad
 * checksum); its page's dead count follows it, and goes back before it.
 * False after an I/O error.
 */
static bool swap_in(struct nova_fsck *ctx, struct swap *s, const void *e)
{
	struct nv_fs *fs = &ctx->fs;

	s->inv = pt_field(s->off & ~(uint64_t)(NOVA_BLOCK_SIZE - 1),
			  offsetof(struct nova_log_page_tail, invalid_entries));
	s->old_inv = le32_to_cpu(*(uint32_t *)nv_ptr(fs, s->inv));
	memcpy(s->save, nv_ptr(fs, s->off), s->size);
	if (nv_commit(fs, s->off, e, s->size))
		return false;
	nv_put32(fs, s->inv, s->old_inv + 1);
	return true;
}

static void swap_back(struct nova_fsck *ctx, const struct swap *s)
{
	nv_put32(&ctx->fs, s->inv, s->old_inv);
	nv_commit(&ctx->fs, s->off, s->save, s->size);
}

/*
 * A bad entry inside a log (more committed entries after it): replace
 * it by a dead entry of the same length that changes nothing - a
 * set-attribute entry setting nothing (64 bytes), a link-change entry
 * (48), in a directory a removal dentry of a name nobody has, carrying
 * the directory's link count and time as they were, or for an xattr
 * entry an xattr part without a part 0 - so that the entries after it
 * survive.  Inside a live xattr group (nv_log.xgroup_off), the group's
 * part 0 is replaced too: its other parts are then skipped.  Kept only
 * if the log then walks past it; otherwise the caller truncates.
 * Returns the number of entries replaced.
 */
static int neutralize(struct nova_fsck *ctx, uint64_t ino,
		      struct nv_inode_state *st, uint64_t off)
{
	struct nv_fs *fs = &ctx->fs;
	uint8_t *p = nv_ptr(fs, off);
	size_t in = off & (NOVA_BLOCK_SIZE - 1);
	size_t size = nv_entry_size(p, NOVA_LOG_LAST_ENTRY - in);
	uint64_t page = off - in;
	/* part 0 of the live xattr group @off is in, if not @off itself */
	uint64_t g = st->log.xgroup_off != off ? st->log.xgroup_off : 0;
	struct swap ent = { .off = off, .size = size }, grp = { .off = g };
	union dead_entry e, ge;
	struct nv_inode_state ns;
	bool ok;

	/* the last entry: truncating loses nothing more */
	if (!size || in + size > NOVA_LOG_LAST_ENTRY ||
	    ((st->log.tail & ~(uint64_t)(NOVA_BLOCK_SIZE - 1)) == page &&
	     off + size >= st->log.tail))
		return 0;
	if (g) {
		uint8_t *gp = nv_ptr(fs, g);

		grp.size = nv_entry_size(gp, NOVA_LOG_LAST_ENTRY -
					 (g & (NOVA_BLOCK_SIZE - 1)));
		if (!grp.size)
			return 0;
		/* it passed the walk: its own trans_id fits */
		xattr_filler(&ge.xe, grp.size, nv_entry_tid(gp));
	}
	if (!dead_entry(&e, st, p, off, size))
		return 0;
	/* part 0 first: then the group's other parts are skipped */
	if ((g && !swap_in(ctx, &grp, &ge)) || !swap_in(ctx, &ent, &e))
		return 0;	/* an I/O error: the run ends */
	/* kept if at least one entry after it is good */
	ok = !nv_iread(fs, ino, &ns, NV_IREAD_NO_DATA | iread_raw(ino),
		       page_free, ctx) &&
	     (!ns.log.err || ns.log.nentries > st->log.nentries + 1);
	nv_ifree(&ns);
	if (!ok) {
		swap_back(ctx, &ent);
		if (g)
			swap_back(ctx, &grp);
	}
	return ok ? 1 + !!g : 0;
}

/* -v: an inode's extended attributes, one a line */
static void list_xattrs(struct nova_fsck *ctx, struct nv_inode_state *st)
{
	char name[NOVA_SAFE_SIZE(NOVA_XATTR_NAME_MAX) + 32], val[48];
	uint8_t v[40];
	size_t i, k;

	for (i = 0; ctx->verbose && i < st->nxattrs; i++) {
		const struct nv_xattr *x = &st->xattrs[i];
		bool text = x->value_len <= sizeof(v);

		nv_xattr_fullname(name, sizeof(name), x->index, x->name,
				  x->name_len);
		if (text)
			nv_xattr_read(&ctx->fs, x, v);
		for (k = 0; text && k < x->value_len; k++)
			text = v[k] >= 0x20 && v[k] < 0x7f && v[k] != '"';
		if (text)
			snprintf(val, sizeof(val), " \"%.*s\"", (int)x->value_len, v);
		else
			val[0] = '\0';
		info(ctx, "inode %llu: xattr %s, %u bytes%s",
		     (unsigned long long)st->ino, name, x->value_len, val);
	}
}

/* The log's page chain: its head, each page's next pointer */
static int check_chain(struct nova_fsck *ctx, uint64_t ino,
		       struct nv_inode_state *st)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_log *lg = &st->log;
	uint64_t h, page, p;

	if (lg->chain_err == NV_CHAIN_HEAD) {
		h = lg->chain_err_ptr;
		if (!problem(ctx, PR_LOG_BAD_HEAD, (unsigned long long)ino,
			     (unsigned long long)h,
			     !nv_page_valid(fs, h) ? "outside the data area or misaligned" :
			     owner_desc(ctx, h >> NOVA_BLOCK_SHIFT, 0)))
			return CK_NEXT;
		/* the tail first: a tail without a head is another problem */
		nv_commit64(fs, tail_field(fs, ino), 0);
		nv_commit64(fs, head_field(fs, ino), 0);
		fixed(ctx, PR_LOG_BAD_HEAD, "inode %llu: log cleared (head and tail set to 0)",
		      (unsigned long long)ino);
		return CK_AGAIN;
	}
	if (!lg->chain_err)
		return CK_NEXT;
	page = lg->pages[lg->chain_err_idx];
	p = lg->chain_err_ptr;
	if (!problem(ctx, PR_LOG_BAD_NEXT, (unsigned long long)ino,
		     (unsigned long long)page, (unsigned long long)p,
		     lg->chain_err == NV_CHAIN_LOOP ? "points back into the log (loop)" :
		     lg->chain_err == NV_CHAIN_RANGE ? "is outside the data area or misaligned" :
		     "points to a page of ",
		     lg->chain_err == NV_CHAIN_CONFLICT ?
		     owner_desc(ctx, p >> NOVA_BLOCK_SHIFT, 0) : ""))
		return CK_NEXT;
	nv_commit64(fs, pt_field(page, offsetof(struct nova_log_page_tail, next_page)), 0);
	fixed(ctx, PR_LOG_BAD_NEXT, "inode %llu: log ends at page 0x%llx (next pointer cleared)",
	      (unsigned long long)ino, (unsigned long long)page);
	return CK_AGAIN;
}

/* The problem code of a log walk's error */
static int log_err_code(int err)
{
	switch (err) {
	case NV_LOG_CHAIN:		return PR_LOG_CHAIN;
	case NV_LOG_TAIL_OUTSIDE:	return PR_LOG_TAIL_OUTSIDE;
	case NV_LOG_HEAD_ZERO_TAIL:	return PR_LOG_TAIL_NO_HEAD;
	case NV_LOG_CROSS_TAIL:		return PR_LOG_ENTRY_CROSS_TAIL;
	case NV_LOG_CSUM:		return PR_LOG_ENTRY_CSUM;
	case NV_LOG_TID:		return PR_LOG_ENTRY_TID;
	case NV_LOG_SEMANTIC:		return PR_LOG_ENTRY_REJECTED;
	case NV_LOG_PAST_CHAIN:		return PR_LOG_PAST_CHAIN;
	case NV_LOG_XATTR_END:		return PR_LOG_XATTR_END;
	}
	return PR_LOG_ENTRY_BAD;
}

/* Move the tail back before what the walk rejected */
static void truncate_log(struct nova_fsck *ctx, uint64_t ino,
			 const struct nv_log *lg, int code)
{
	uint64_t nt = lg->err == NV_LOG_HEAD_ZERO_TAIL ? 0 : lg->good_end;

	nv_commit64(&ctx->fs, tail_field(&ctx->fs, ino), nt);
	if (lg->err == NV_LOG_HEAD_ZERO_TAIL)
		fixed(ctx, code, "inode %llu: log tail cleared", (unsigned long long)ino);
	else if (lg->err == NV_LOG_TAIL_OUTSIDE)
		fixed(ctx, code, "inode %llu: log tail set to 0x%llx, after its last valid entry (%llu entries kept)",
		      (unsigned long long)ino, (unsigned long long)nt,
		      (unsigned long long)lg->nentries);
	else
		fixed(ctx, code, "inode %llu: log truncated to 0x%llx, dropping the entry at 0x%llx and all after it (%llu entries kept)",
		      (unsigned long long)ino, (unsigned long long)nt,
		      (unsigned long long)lg->err_off,
		      (unsigned long long)lg->nentries);
}

/* What the log walk and the replay rejected */
static int check_walk(struct nova_fsck *ctx, uint64_t ino,
		      struct nv_inode_state *st)
{
	struct nv_log *lg = &st->log;
	int code = log_err_code(lg->err), n = 0;

	if (!lg->err || lg->chain_err == NV_CHAIN_HEAD)
		return CK_NEXT;
	/* every code of log_err_code() has the message PR_LOG_MSG */
	if (0 ? problem_args(PR_LOG_MSG, (unsigned long long)ino, lg->msg) :
	    !fsck_problem(ctx, code, (unsigned long long)ino, lg->msg))
		return CK_NEXT;
	if (lg->err == NV_LOG_CSUM || lg->err == NV_LOG_TID ||
	    lg->err == NV_LOG_SEMANTIC)
		n = neutralize(ctx, ino, st, lg->err_off);
	if (n == 1)
		fixed(ctx, code, "inode %llu: the entry at 0x%llx replaced by a dead entry that changes nothing, keeping the entries after it",
		      (unsigned long long)ino, (unsigned long long)lg->err_off);
	else if (n)
		fixed(ctx, code, "inode %llu: the entry at 0x%llx and part 0 of its xattr group at 0x%llx replaced by dead entries that change nothing, keeping the entries after them",
		      (unsigned long long)ino, (unsigned long long)lg->err_off,
		      (unsigned long long)lg->xgroup_off);
	else
		truncate_log(ctx, ino, lg, code);
	return CK_AGAIN;
}

/* An inode the kernel cannot read as a file */
static int check_bad(struct nova_fsck *ctx, uint64_t ino,
		     struct nv_inode_state *st)
{
	int code = st->bad == NV_IBAD_MODE ? PR_INODE_BAD_MODE : PR_INODE_REJECTED;
	bool fix;

	if (!st->bad)
		return CK_NEXT;
	if (st->bad == NV_IBAD_MODE)
		fix = problem(ctx, PR_INODE_BAD_MODE, (unsigned long long)ino,
			      st->bad_msg);
	else
		fix = problem(ctx, PR_INODE_REJECTED, (unsigned long long)ino,
			      type_str(st->mode), st->bad_msg);
	if (!fix)
		return CK_NEXT;
	free_slot(ctx, st->pi_off);
	fixed(ctx, code, "inode %llu cleared", (unsigned long long)ino);
	return CK_CLEARED;
}

/*
 * What makes the project quota file unusable, NULL if nothing: it must
 * be a regular file with one link (it has no name: the kernel makes it
 * with i_links_count 1 and logs no link-change entry), and its data, if
 * it has any (a crash right after the kernel made it leaves none; the
 * next mount writes the header), must start with the quota_v2 header of
 * project quotas
 */
const char *prjquota_bad(struct nova_fsck *ctx, const struct nv_inode_state *st,
			 char *buf, size_t len)
{
	uint32_t h[2];

	if (!S_ISREG(st->mode)) {
		snprintf(buf, len, "mode 0%o, %s", st->mode,
			 nv_type_name(st->mode) ? "not a regular file" :
			 "not a known file type");
		return buf;
	}
	/* a log problem is reported (and repaired) as for any file first */
	if (st->log.err || st->log.chain_err)
		return NULL;
	if (st->links != 1) {
		snprintf(buf, len, "link count %u, not 1", st->links);
		return buf;
	}
	if (!st->size)
		return NULL;
	if (st->size < sizeof(h)) {
		snprintf(buf, len, "%llu bytes, too short for the quota file header",
			 (unsigned long long)st->size);
		return buf;
	}
	nv_file_read(&ctx->fs, st, 0, sizeof(h), h);
	if (le32_to_cpu(h[0]) == NV_PRJQUOTA_MAGIC &&
	    le32_to_cpu(h[1]) == NV_PRJQUOTA_VERSION)
		return NULL;
	snprintf(buf, len, "its header (magic 0x%08x, version %u) is not that of a project quota file (0x%08x, %u)",
		 le32_to_cpu(h[0]), le32_to_cpu(h[1]), NV_PRJQUOTA_MAGIC,
		 NV_PRJQUOTA_VERSION);
	return buf;
}

/*
 * The project quota file (reserved inode NOVA_PRJQUOTA_INO), which the
 * kernel makes at the first mount with prjquota: unusable, it is
 * cleared, and its blocks are free; the next mount with prjquota makes
 * a new one.  First of its checks: not a regular file, the problems of
 * its log would only be noise.
 */
static int check_prjquota(struct nova_fsck *ctx, uint64_t ino,
			  struct nv_inode_state *st)
{
	const char *why;
	char buf[160];

	if (ino != NOVA_PRJQUOTA_INO)
		return CK_NEXT;
	why = prjquota_bad(ctx, st, buf, sizeof(buf));
	if (!why)
		return CK_NEXT;
	if (!problem(ctx, PR_PRJQUOTA_BAD, NOVA_PRJQUOTA_INO, why))
		return CK_DONE;
	free_slot(ctx, st->pi_off);
	fixed(ctx, PR_PRJQUOTA_BAD,
	      "reserved inode %u cleared: the next mount with prjquota makes a new project quota file",
	      NOVA_PRJQUOTA_INO);
	return CK_CLEARED;
}

/* Page tails: the fast GC frees a page when invalid >= num entries */
static void check_page_tails(struct nova_fsck *ctx, uint64_t ino,
			     struct nv_inode_state *st)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_log *lg = &st->log;
	/* pages whose every entry was walked (not those after an error) */
	long walked = !lg->err && lg->tail_idx >= 0 ? lg->tail_idx :
		      lg->good_idx;
	size_t i;

	/* the tail page and after: not collected */
	for (i = 0; (long)i < walked && i < lg->npages; i++) {
		uint64_t pt = pt_field(lg->pages[i], 0);
		const struct nova_log_page_tail *t = nv_ptr(fs, pt);
		uint32_t num = le32_to_cpu(t->num_entries);
		uint32_t inv = le32_to_cpu(t->invalid_entries);

		if (inv <= lg->ndead[i] && num >= lg->nent[i])
			continue;
		if (!problem(ctx, PR_LOG_PAGE_COUNTS, (unsigned long long)ino,
			     (unsigned long long)lg->pages[i], num, inv,
			     lg->nent[i], lg->ndead[i]))
			continue;
		if (num < lg->nent[i])
			nv_put32(fs, pt + offsetof(struct nova_log_page_tail, num_entries),
				 lg->nent[i]);
		nv_put32(fs, pt + offsetof(struct nova_log_page_tail, invalid_entries),
			 lg->ndead[i]);
		fixed(ctx, PR_LOG_PAGE_COUNTS, "inode %llu: log page 0x%llx tail counts corrected",
		      (unsigned long long)ino, (unsigned long long)lg->pages[i]);
	}
}

/*
 * A thorough GC cut short between its commit (the tail in the new log)
 * and its head switch: the log is the old one followed by the copy, so
 * live names appear twice with the same cookie.  The kernel reads the
 * later copy; the earlier ones die at the next rewrite.  Normal after a
 * power cut, not an error; a repairing run marks the superseded copies
 * dead.
 */
static int check_relogged(struct nova_fsck *ctx, uint64_t ino,
			  struct nv_inode_state *st)
{
	if (!st->dir.nselfck ||
	    !problem(ctx, PR_DIR_RELOGGED, (unsigned long long)ino, st->dir.nselfck))
		return CK_NEXT;
	nv_invalidate_entries(&ctx->fs, st->dir.selfck, st->dir.nselfck);
	fixed(ctx, PR_DIR_RELOGGED, "directory %llu: the %zu superseded entries marked dead",
	      (unsigned long long)ino, st->dir.nselfck);
	return CK_AGAIN;
}

/* Write entries that count more superseded pages than they have */
static void check_superseded(struct nova_fsck *ctx, uint64_t ino,
			     struct nv_inode_state *st,
			     struct nv_inode_state *all)
{
	struct pages_ck pc = { .all = all };

	walk_log(ctx, st, pages_fn, &pc);
	if (!pc.bad ||
	    !problem(ctx, PR_WRITE_SUPERSEDED, (unsigned long long)ino,
		     (unsigned long long)pc.bad, pc.bad == 1 ? "y" : "ies",
		     (unsigned long long)pc.first,
		     (unsigned long long)pc.recorded,
		     (unsigned long long)pc.actual))
		return;
	pc.fix = true;
	pc.bad = 0;
	walk_log(ctx, st, pages_fn, &pc);
	fixed(ctx, PR_WRITE_SUPERSEDED, "inode %llu: superseded page counts corrected in %llu write entr%s",
	      (unsigned long long)ino, (unsigned long long)pc.bad,
	      pc.bad == 1 ? "y" : "ies");
}

/*
 * Dead marks must only be on entries whose effect is superseded, and
 * write entries may not count more superseded pages than they have (the
 * kernel marks them dead when the count reaches their size): both are
 * outside the checksums.  Compared with a replay that ignores the marks.
 */
static int check_dead(struct nova_fsck *ctx, uint64_t ino,
		      struct nv_inode_state *st)
{
	struct nv_log *lg = &st->log;
	struct nv_inode_state all;
	uint64_t total_dead = 0;
	char what[120];
	int ret = CK_NEXT;
	size_t i;

	for (i = 0; i < lg->npages; i++)
		total_dead += lg->ndead[i];
	if (lg->err || st->bad || iread_raw(ino) ||
	    (!total_dead && !S_ISREG(st->mode)))
		return CK_NEXT;
	if (nv_iread(&ctx->fs, ino, &all, NV_IREAD_IGNORE_DEAD | NV_IREAD_COUNT,
		     NULL, NULL) == 0 && !all.log.err) {
		if (total_dead && !same_state(ctx, st, &all, what, sizeof(what)) &&
		    problem(ctx, PR_LOG_DEAD_LIVE, (unsigned long long)ino, what)) {
			unsigned int n = clear_dead_marks(ctx, st);

			fixed(ctx, PR_LOG_DEAD_LIVE, "inode %llu: dead marks cleared from %u log entries",
			      (unsigned long long)ino, n);
			ret = CK_AGAIN;
		} else {
			check_superseded(ctx, ino, st, &all);
		}
	}
	nv_ifree(&all);
	return ret;
}

/*
 * Inode @ino's repair @fix (FIX_*), for the end of the pass: it logs a
 * link-change entry, which may take a new log page, and no block may be
 * taken before every used block is known
 */
static void defer(struct nova_fsck *ctx, uint64_t ino, unsigned int fix)
{
	struct fsck_deferred *d = ctx->ndeferred ?
				  &ctx->deferred[ctx->ndeferred - 1] : NULL;

	if (d && d->ino == ino) {
		d->fix |= fix;
		return;
	}
	d = nv_grow(ctx->deferred, &ctx->deferred_cap, ctx->ndeferred,
		    sizeof(*d), 16);
	if (!d) {
		fsck_fatal(ctx, "out of memory");
		return;
	}
	ctx->deferred = d;
	d[ctx->ndeferred++] = (struct fsck_deferred){ ino, fix };
}

/* The repairs deferred for inode @ino (the last inode checked), 0 if none */
static unsigned int deferred_fix(const struct nova_fsck *ctx, uint64_t ino)
{
	const struct fsck_deferred *d = ctx->ndeferred ?
					&ctx->deferred[ctx->ndeferred - 1] : NULL;

	return d && d->ino == ino ? d->fix : 0;
}

/*
 * FS_CASEFOLD_FL only on a directory, with the casefold feature, and not
 * encrypted (the kernel refuses such an inode with EUCLEAN).  Whether a
 * casefolded directory holds two names that fold to the same one is not
 * checked: that needs the kernel's Unicode tables.  Cleared at the end
 * of the pass (repair_deferred()).
 */
static int check_casefold(struct nova_fsck *ctx, uint64_t ino,
			  struct nv_inode_state *st)
{
	struct nv_fs *fs = &ctx->fs;
	bool feature = fs->sb.s_feature_incompat &
		       cpu_to_le64(NOVA_FEATURE_INCOMPAT_CASEFOLD);
	const char *what;

	if (!(st->flags & NV_CASEFOLD_FL))
		return CK_NEXT;
	if (!S_ISDIR(st->mode))
		what = "a non-directory";
	else if (!feature)
		what = "a file system without the casefold feature";
	else if (nv_encryption_context(st))
		what = "an encrypted directory";
	else
		return CK_NEXT;
	if (problem(ctx, PR_INODE_CASEFOLD, (unsigned long long)ino, what))
		defer(ctx, ino, FIX_CASEFOLD);
	return CK_NEXT;
}

/*
 * Project ID 4294967295, the kernel's INVALID_PROJID: no inode gets it
 * through the VFS (FS_IOC_FSSETXATTR refuses it, dqget() too), so it is
 * damage.  The kernel skips such an inode when it counts the project
 * usage at mount, and so counts it again at every mount, and a quota
 * transfer to or from it fails.  Checked where the kernel counts: the
 * root and the inodes from NOVA_NORMAL_INODE_START.  Set to 0 at the end
 * of the pass (repair_deferred()).
 */
static int check_projid(struct nova_fsck *ctx, uint64_t ino,
			struct nv_inode_state *st)
{
	if (st->projid == NV_INVALID_PROJID &&
	    (ino == NOVA_ROOT_INO || ino >= NOVA_NORMAL_INODE_START) &&
	    problem(ctx, PR_INODE_PROJID, (unsigned long long)ino,
		    type_str(st->mode)))
		defer(ctx, ino, FIX_PROJID);
	return CK_NEXT;
}

/*
 * The deferred repairs of inode @d->ino, as FS_IOC_SETFLAGS and
 * FS_IOC_FSSETXATTR log them: one link-change entry that clears the
 * casefold flag and sets the project ID to 0, committed, then the entry
 * it supersedes marked dead, and the inode's fields.  Its log pages, new
 * ones too, in the block map.
 */
static void repair_one(struct nova_fsck *ctx, const struct fsck_deferred *d)
{
	struct nv_fs *fs = &ctx->fs;
	unsigned long long ino = d->ino;
	struct nv_inode_state st;
	const char *why = NULL;
	struct nv_wlog w;
	uint64_t old;
	size_t i;
	int ret;

	if (!nv_inode_slot_valid(fs, d->ino))
		return;
	if (nv_iread(fs, d->ino, &st, NV_IREAD_NO_DATA, NULL, NULL)) {
		fsck_fatal(ctx, "out of memory");
		return;
	}
	nv_wlog_from_state(&w, &st);
	old = w.last_lc;
	if (d->fix & FIX_CASEFOLD)
		w.flags &= ~NV_CASEFOLD_FL;
	if (d->fix & FIX_PROJID)
		w.projid = 0;
	ret = nv_append_link_change(fs, &w, NULL);
	if (ret)
		why = ret == -EIO ? NULL : "no space in its log";
	else if (nv_log_commit(fs, &w))
		ret = -EIO;
	if (ret) {
		/* an I/O error ends the run: nothing is said of the repair */
		if (d->fix & FIX_CASEFOLD && why)
			not_fixed(ctx, PR_INODE_CASEFOLD, "inode %llu: %s", ino, why);
		if (d->fix & FIX_PROJID && why)
			not_fixed(ctx, PR_INODE_PROJID, "inode %llu: %s", ino, why);
		if (d->fix & FIX_PROJID)
			ctx->n_projid++;	/* it keeps its ID */
		nv_ifree(&st);
		return;
	}
	if (old)
		nv_invalidate_entry(fs, old);
	if (d->fix & FIX_CASEFOLD)
		nv_put32(fs, st.pi_off + offsetof(struct nova_inode, i_flags),
			 le32_to_cpu(st.pi.i_flags) & ~NV_CASEFOLD_FL);
	if (d->fix & FIX_PROJID &&
	    le32_to_cpu(st.pi.i_projid) == NV_INVALID_PROJID)
		nv_put32(fs, st.pi_off + offsetof(struct nova_inode, i_projid), 0);
	nv_ifree(&st);
	if (!nv_iread(fs, d->ino, &st, NV_IREAD_NO_DATA, NULL, NULL)) {
		for (i = 0; i < st.log.npages; i++)
			claim(ctx, st.log.pages[i] >> NOVA_BLOCK_SHIFT, K_LOG);
		nv_ifree(&st);
	}
	if (d->fix & FIX_CASEFOLD)
		fixed(ctx, PR_INODE_CASEFOLD, "inode %llu: casefold flag cleared", ino);
	if (d->fix & FIX_PROJID)
		fixed(ctx, PR_INODE_PROJID, "inode %llu: project ID set to 0", ino);
}

/* The repairs deferred to the end of the pass, every used block known */
static void repair_deferred(struct nova_fsck *ctx)
{
	size_t i;

	for (i = 0; i < ctx->ndeferred && !ctx->stop; i++)
		repair_one(ctx, &ctx->deferred[i]);
	ctx->ndeferred = 0;
}

/* One round of an inode's checks */
static int check_once(struct nova_fsck *ctx, uint64_t ino,
		      struct nv_inode_state *st)
{
	int r = check_prjquota(ctx, ino, st);

	if (r == CK_NEXT)
		r = check_chain(ctx, ino, st);
	if (r == CK_NEXT)
		r = check_walk(ctx, ino, st);
	if (r == CK_NEXT)
		r = check_bad(ctx, ino, st);
	if (r == CK_NEXT) {
		check_page_tails(ctx, ino, st);
		r = check_relogged(ctx, ino, st);
	}
	if (r == CK_NEXT)
		r = check_dead(ctx, ino, st);
	if (r == CK_NEXT)
		r = check_casefold(ctx, ino, st);
	if (r == CK_NEXT)
		r = check_projid(ctx, ino, st);
	return r;
}

/* Check inode @ino until a round repairs nothing, then account for it */
static int check_inode(struct nova_fsck *ctx, uint64_t ino)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_inode_state st;
	int rounds = 0, r = CK_NEXT;
	uint64_t blk;
	size_t i, it;

	for (;;) {
		if (nv_iread(fs, ino, &st, iread_raw(ino), page_free, ctx))
			return fsck_fatal(ctx, "out of memory");
		if (++rounds > 8)
			break;
		r = check_once(ctx, ino, &st);
		if (r != CK_AGAIN)
			break;
		nv_ifree(&st);
	}
	if (r != CK_CLEARED) {
		ctx->n_xattr_entries += st.xattr_entries;
		ctx->n_xattrs += st.nxattrs;
		if (nv_encryption_context(&st))
			ctx->n_encrypted++;
		/* one deferred repair sets it to 0 */
		if (st.projid && !(deferred_fix(ctx, ino) & FIX_PROJID))
			ctx->n_projid++;
		if (ino == NOVA_PRJQUOTA_INO)
			ctx->prjquota = true;
		list_xattrs(ctx, &st);
		for (i = 0; i < st.log.npages; i++)
			claim(ctx, st.log.pages[i] >> NOVA_BLOCK_SHIFT, K_LOG);
		for (it = 0; nv_pmap_next(&st.pages, &it, NULL, &blk, NULL);)
			nv_mark_used(fs, blk >> NOVA_BLOCK_SHIFT, 1);
		ctx->n_inodes++;
	}
	nv_ifree(&st);
	return ctx->stop ? -1 : 0;
}

/* A slot whose inode number is not its own: cleared */
static void check_number(struct nova_fsck *ctx, uint64_t ino, uint64_t off,
			 bool reserved)
{
	unsigned long long n = le64_to_cpu(nv_pi(&ctx->fs, off)->i_ino);
	bool fix;

	if (reserved)
		fix = problem(ctx, PR_RESERVED_SLOT_INO, (unsigned long long)ino, n);
	else
		fix = problem(ctx, PR_SLOT_INO, (unsigned long long)ino, n);
	if (!fix)
		return;
	free_slot(ctx, off);
	fixed(ctx, reserved ? PR_RESERVED_SLOT_INO : PR_SLOT_INO,
	      "%sinode slot %llu cleared", reserved ? "reserved " : "",
	      (unsigned long long)ino);
}

/* @fn on the valid slot of inode @ino; its number checked or skipped */
static int slot(struct nova_fsck *ctx, uint64_t ino, inode_fn fn,
		bool check_numbers)
{
	uint64_t off = nv_inode_off(&ctx->fs, ino);
	struct nova_inode *pi = nv_pi(&ctx->fs, off);

	if (pi->i_valid != NOVA_INODE_VALID)
		return 0;
	if (le64_to_cpu(pi->i_ino) == ino)
		return fn(ctx, ino);
	/* the root was dealt with in pass_reserved() */
	if (check_numbers)
		check_number(ctx, ino, off, ino < NOVA_NORMAL_INODE_START);
	return ctx->stop ? -1 : 0;
}

/*
 * @fn on every valid inode, in the kernel's scan order (bbuild.c): the
 * reserved ones (not the snapshots: pass_snapshot()), then each stripe's
 * table.  Stops when @fn returns non-zero.
 */
int scan_inodes(struct nova_fsck *ctx, inode_fn fn, bool check_numbers)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t ino, b, s;

	for (ino = NOVA_ROOT_INO; ino < NOVA_NORMAL_INODE_START; ino++) {
		if (ino == NOVA_BLOCKNODE_INO || ino == NOVA_INODELIST_INO)
			continue;
		if (slot(ctx, ino, fn, check_numbers))
			return -1;
	}
	for (s = 0; s < fs->stripes; s++) {
		for (b = 0; b < fs->itab[s].n * fs->per_block; b++) {
			ino = b * fs->stripes + s;
			if (ino < NOVA_NORMAL_INODE_START)
				continue;
			if (slot(ctx, ino, fn, check_numbers))
				return -1;
		}
	}
	return 0;
}

/*
 * Encrypted inodes (a live fscrypt context): a module that predates the
 * encrypt feature would take their ciphertext names for damage
 */
static void check_encrypt_feature(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;

	if (ctx->n_encrypted)
		info(ctx, "%llu encrypted inodes",
		     (unsigned long long)ctx->n_encrypted);
	if (!ctx->n_encrypted ||
	    (fs->sb.s_feature_incompat &
	     cpu_to_le64(NOVA_FEATURE_INCOMPAT_ENCRYPT)) ||
	    !problem(ctx, PR_ENCRYPT_FEATURE,
		     (unsigned long long)ctx->n_encrypted))
		return;
	fs->sb.s_feature_incompat |= cpu_to_le64(NOVA_FEATURE_INCOMPAT_ENCRYPT);
	write_super_copies(ctx);
	fixed(ctx, PR_ENCRYPT_FEATURE,
	      "encrypt feature (NOVA_FEATURE_INCOMPAT_ENCRYPT) set in the super block");
}

/*
 * Project IDs other than 0 (in the inodes or their link-change entries)
 * and the project quota file: a module that predates them would log
 * project ID 0 and reclaim the quota file, which has no name
 */
static void check_project_feature(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	char qf[64] = "";

	if (ctx->n_projid)
		info(ctx, "%llu inodes with a project ID other than 0",
		     (unsigned long long)ctx->n_projid);
	if (ctx->prjquota) {
		info(ctx, "project quota file: reserved inode %u",
		     NOVA_PRJQUOTA_INO);
		snprintf(qf, sizeof(qf),
			 " and the project quota file (reserved inode %u) exists",
			 NOVA_PRJQUOTA_INO);
	}
	if ((!ctx->n_projid && !ctx->prjquota) ||
	    (fs->sb.s_feature_ro_compat &
	     cpu_to_le64(NOVA_FEATURE_RO_COMPAT_PROJECT)) ||
	    !problem(ctx, PR_PROJECT_FEATURE,
		     (unsigned long long)ctx->n_projid, qf))
		return;
	fs->sb.s_feature_ro_compat |= cpu_to_le64(NOVA_FEATURE_RO_COMPAT_PROJECT);
	write_super_copies(ctx);
	fixed(ctx, PR_PROJECT_FEATURE,
	      "project feature (NOVA_FEATURE_RO_COMPAT_PROJECT) set in the super block");
}

int pass_inodes(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;

	ctx->n_inodes = ctx->n_xattr_entries = ctx->n_xattrs = 0;
	ctx->n_encrypted = ctx->n_projid = 0;
	ctx->prjquota = false;
	ctx->ndeferred = 0;
	if (scan_inodes(ctx, check_inode, true))
		return -1;
	/* every used block known: the repairs that take blocks */
	ctx->blocks_known = true;
	replace_journals_itables(ctx);
	repair_deferred(ctx);
	if (ctx->stop)
		return -1;
	info(ctx, "%llu valid inodes", (unsigned long long)ctx->n_inodes);
	if (ctx->n_xattr_entries)
		info(ctx, "%llu extended attributes, %llu xattr log entries",
		     (unsigned long long)ctx->n_xattrs,
		     (unsigned long long)ctx->n_xattr_entries);
	/* a module that predates them takes xattr entries for damage */
	if (ctx->n_xattr_entries &&
	    !(fs->sb.s_feature_incompat & cpu_to_le64(NOVA_FEATURE_INCOMPAT_XATTR)) &&
	    problem(ctx, PR_XATTR_FEATURE, (unsigned long long)ctx->n_xattr_entries)) {
		fs->sb.s_feature_incompat |= cpu_to_le64(NOVA_FEATURE_INCOMPAT_XATTR);
		write_super_copies(ctx);
		fixed(ctx, PR_XATTR_FEATURE,
		      "xattr feature (NOVA_FEATURE_INCOMPAT_XATTR) set in the super block");
	}
	check_encrypt_feature(ctx);
	check_project_feature(ctx);
	return ctx->stop ? -1 : 0;
}
