// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova pass 5: names, connectivity and link counts (e2fsck's passes
 * 2, 3 and 4).
 *
 * Every directory's live names must point to valid inodes of the right
 * type, with unique readdir cookies; a directory has one name; every
 * valid inode has a name (else it goes to /lost+found, or, with link
 * count 0, is freed as mount would); every directory is reachable from
 * the root; link counts and ".." agree with the names.
 *
 * A repair appends ordinary log entries, as the kernel would write them:
 * removal dentries, dentries, link-change entries; then the analysis
 * runs again, until nothing changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck.h"

void ns_free(struct nova_fsck *ctx)
{
	uint64_t i;
	size_t j;

	for (i = 0; ctx->ni && i < ctx->ni_max; i++) {
		for (j = 0; j < ctx->ni[i].nents; j++)
			free(ctx->ni[i].ents[j].name);
		free(ctx->ni[i].ents);
		free(ctx->ni[i].nname);
	}
	free(ctx->ni);
	ctx->ni = NULL;
	ctx->ni_max = 0;
}

/* ------------------------------------------------------- the analysis */

/* Are the names @a (@alen bytes) and @b (@blen) the same? */
static bool same_name(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

/* A copy of the @len bytes of @name, NUL terminated (for messages) */
static char *dup_name(const char *name, size_t len)
{
	char *n = malloc(len + 1);

	if (n) {
		memcpy(n, name, len);
		n[len] = '\0';
	}
	return n;
}

/* Directory entry @e's name, for messages (pname()) */
static const char *ename(struct nova_fsck *ctx, const struct fsck_name *e)
{
	return pname(ctx, e->name, e->len);
}

/* A directory's live names into @n */
static int read_names(struct fsck_inode_info *n, struct nv_inode_state *st)
{
	size_t i;

	n->ents = calloc(st->dir.alive ? st->dir.alive : 1, sizeof(*n->ents));
	if (!n->ents)
		return -1;
	for (i = 0; i < st->dir.n; i++) {
		struct nv_dent *e = &st->dir.d[i];
		struct fsck_name *x;

		if (!e->alive)
			continue;
		x = &n->ents[n->nents++];
		x->ino = e->ino;
		x->off = e->off;
		x->cookie = e->cookie;
		x->ftype = e->ftype;
		x->len = e->len;
		x->name = dup_name(e->name, e->len);
		if (!x->name)
			return -1;
	}
	return 0;
}

/*
 * Count each inode's names; a directory's first name is the one in its
 * ".." directory, if there is one
 */
static void count_names(struct nova_fsck *ctx)
{
	struct fsck_inode_info *ni = ctx->ni;
	uint64_t d;
	size_t i;

	for (d = NOVA_ROOT_INO; d < ctx->ni_max; d++) {
		for (i = 0; i < ni[d].nents; i++) {
			struct fsck_name *e = &ni[d].ents[i];
			struct fsck_inode_info *t;

			if (e->ino >= ctx->ni_max || e->ino == d ||
			    e->ino == NOVA_ROOT_INO)
				continue;
			t = &ni[e->ino];
			if (!t->valid || t->reserved)
				continue;
			t->names++;
			if (S_ISDIR(t->mode))
				t->dirnames++;
			if (!t->nname || (S_ISDIR(t->mode) && d == t->parent &&
					  t->ndir != t->parent)) {
				free(t->nname);
				t->nname = dup_name(e->name, e->len);
				t->nname_len = e->len;
				t->ndir = d;
			}
		}
	}
}

/* A directory's subdirectories: those whose first name is in it */
static void count_subdirs(struct nova_fsck *ctx)
{
	struct fsck_inode_info *ni = ctx->ni;
	uint64_t d;
	size_t i;

	for (d = NOVA_ROOT_INO; d < ctx->ni_max; d++)
		for (i = 0; i < ni[d].nents; i++) {
			struct fsck_name *e = &ni[d].ents[i];

			if (e->ino < ctx->ni_max && ni[e->ino].valid &&
			    !ni[e->ino].reserved && e->ino != d &&
			    e->ino != NOVA_ROOT_INO && S_ISDIR(ni[e->ino].mode) &&
			    ni[e->ino].ndir == d &&
			    same_name(ni[e->ino].nname, ni[e->ino].nname_len,
				      e->name, e->len))
				ni[d].subdirs++;
		}
}

/* Read every inode's names, links and ".." */
static int ns_analyze(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t ino;

	ns_free(ctx);
	ctx->ni_max = nv_max_ino(fs);
	ctx->ni = calloc(ctx->ni_max, sizeof(*ctx->ni));
	if (!ctx->ni)
		return fsck_fatal(ctx, "out of memory");
	for (ino = NOVA_ROOT_INO; ino < ctx->ni_max; ino++) {
		struct nv_inode_state st;
		struct fsck_inode_info *n = &ctx->ni[ino];

		if (!nv_inode_slot_valid(fs, ino) ||
		    nv_iread(fs, ino, &st, NV_IREAD_NO_DATA, NULL, NULL))
			continue;
		n->valid = !st.bad;
		n->reserved = ino != NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START;
		n->mode = st.mode;
		n->links = st.links;
		n->parent = st.parent;
		if (n->valid && S_ISDIR(st.mode) && !n->reserved &&
		    read_names(n, &st)) {
			nv_ifree(&st);
			return fsck_fatal(ctx, "out of memory");
		}
		nv_ifree(&st);
	}
	count_names(ctx);
	count_subdirs(ctx);
	return 0;
}

/* -------------------------------------------------------- the repairs */

static int wlog_of(struct nova_fsck *ctx, uint64_t ino, struct nv_wlog *w)
{
	struct nv_inode_state st;

	if (nv_iread(&ctx->fs, ino, &st, NV_IREAD_NO_DATA, NULL, NULL))
		return -1;
	nv_wlog_from_state(w, &st);
	nv_ifree(&st);
	return 0;
}

/*
 * Log @name (@len bytes) in directory @d again, pointing to @ino (0: a
 * removal dentry), and mark the old entry dead.  The directory keeps its
 * times: a repair is not a user change.
 */
static bool relog_name(struct nova_fsck *ctx, uint64_t d, const char *name,
		       size_t len, uint64_t ino, uint8_t ftype, uint64_t old_off)
{
	struct nv_wlog w;

	if (wlog_of(ctx, d, &w))
		return false;
	if (nv_append_dentry(&ctx->fs, &w, name, len, ino, ftype, NULL) ||
	    nv_log_commit(&ctx->fs, &w))
		return false;
	if (old_off)
		nv_invalidate_entry(&ctx->fs, old_off);
	return true;
}

static bool remove_name(struct nova_fsck *ctx, uint64_t d, const char *name,
			size_t len, uint64_t old_off)
{
	return relog_name(ctx, d, name, len, 0, 0, old_off);
}

/* Remove directory @d's entry @e, for problem @code */
static bool remove_entry(struct nova_fsck *ctx, int code, uint64_t d,
			 const struct fsck_name *e)
{
	if (remove_name(ctx, d, e->name, e->len, e->off)) {
		fixed(ctx, code, "directory %llu: entry '%s' removed",
		      (unsigned long long)d, ename(ctx, e));
		return true;
	}
	not_fixed(ctx, code, "directory %llu: no space to remove '%s'",
		  (unsigned long long)d, ename(ctx, e));
	return false;
}

static bool set_links(struct nova_fsck *ctx, uint64_t ino, uint32_t links)
{
	struct nv_wlog w;
	uint64_t old;

	if (wlog_of(ctx, ino, &w))
		return false;
	old = w.last_lc;
	w.links = links;
	if (nv_append_link_change(&ctx->fs, &w, NULL) ||
	    nv_log_commit(&ctx->fs, &w))
		return false;
	if (old)
		nv_invalidate_entry(&ctx->fs, old);
	return true;
}

static bool set_dotdot(struct nova_fsck *ctx, uint64_t ino, uint64_t parent)
{
	struct nv_wlog w;

	if (wlog_of(ctx, ino, &w))
		return false;
	if (nv_append_dentry(&ctx->fs, &w, "..", 2, parent, nv_dtype(S_IFDIR),
			     NULL))
		return false;
	return !nv_log_commit(&ctx->fs, &w);
}

/* /lost+found, created if needed (for problem @code); 0 if none */
static uint64_t get_lost_found(struct nova_fsck *ctx, int code)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_inode_state rs;
	struct nv_dent *e;
	struct nv_wlog rw, lw;
	struct nv_attr a;
	int ret;

	if (ctx->lost_found && nv_inode_slot_valid(fs, ctx->lost_found))
		return ctx->lost_found;
	if (nv_iread(fs, NOVA_ROOT_INO, &rs, NV_IREAD_NO_DATA, NULL, NULL))
		return 0;
	e = nv_dir_lookup(&rs.dir, "lost+found", 10);
	if (e) {
		uint64_t ino = e->ino;

		nv_ifree(&rs);
		if (ino < ctx->ni_max && ctx->ni[ino].valid &&
		    S_ISDIR(ctx->ni[ino].mode))
			return ctx->lost_found = ino;
		not_fixed(ctx, code, "/lost+found exists but is not a directory");
		return 0;
	}
	nv_wlog_from_state(&rw, &rs);
	nv_ifree(&rs);
	memset(&a, 0, sizeof(a));
	/* as the kernel's new inodes in a directory with PROJINHERIT */
	if (rw.flags & NV_PROJINHERIT_FL) {
		a.projid = rw.projid;
		a.flags = NV_PROJINHERIT_FL;
	}
	a.mode = S_IFDIR | 0700;
	a.links = 2;
	a.size = NOVA_BLOCK_SIZE;
	a.atime = a.mtime = a.ctime = a.btime = ctx->now;
	rw.mtime = rw.ctime = ctx->now;
	ret = nv_create(fs, &rw, "lost+found", 10, &a, NULL, 0, &lw);
	if (ret) {
		not_fixed(ctx, code, "cannot create /lost+found: %s",
			  ret == -ENOSPC ? "no space" : strerror(-ret));
		return 0;
	}
	fixed(ctx, code, "created directory /lost+found (inode %llu)",
	      (unsigned long long)lw.ino);
	return ctx->lost_found = lw.ino;
}

/* A name in /lost+found for inode @t: "#ino", or "#ino.k" if taken */
static uint64_t lost_found_name(struct nova_fsck *ctx, uint64_t t, int code,
				char *name, size_t len, struct nv_wlog *lw)
{
	struct nv_inode_state ls;
	uint64_t lf = get_lost_found(ctx, code);
	unsigned int k = 0;

	if (!lf || nv_iread(&ctx->fs, lf, &ls, NV_IREAD_NO_DATA, NULL, NULL))
		return 0;
	snprintf(name, len, "#%llu", (unsigned long long)t);
	while (nv_dir_lookup(&ls.dir, name, strlen(name)))
		snprintf(name, len, "#%llu.%u", (unsigned long long)t, ++k);
	nv_wlog_from_state(lw, &ls);
	nv_ifree(&ls);
	return lf;
}

/*
 * Move inode @t to /lost+found, for problem @code: its own change first
 * (its "..", its link count), then its name, so that a power cut between
 * the two leaves it as it was, without a name, not with a name and a
 * wrong ".." or link count
 */
static bool move_to_lost_found(struct nova_fsck *ctx, uint64_t t, int code)
{
	struct nv_fs *fs = &ctx->fs;
	struct nv_wlog lw, tw;
	char name[64];
	uint64_t lf, old;
	bool dir = S_ISDIR(ctx->ni[t].mode), relinked = false;

	lf = lost_found_name(ctx, t, code, name, sizeof(name), &lw);
	if (!lf || wlog_of(ctx, t, &tw))
		return false;
	if (dir) {
		if (!nv_append_dentry(fs, &tw, "..", 2, lf, nv_dtype(S_IFDIR), NULL) &&
		    nv_log_commit(fs, &tw))
			return false;
	} else if (tw.links != 1) {
		old = tw.last_lc;
		tw.links = 1;
		tw.ctime = ctx->now;
		if (!nv_append_link_change(fs, &tw, NULL)) {
			if (nv_log_commit(fs, &tw))
				return false;
			if (old)
				nv_invalidate_entry(fs, old);
			relinked = true;
		}
	}
	lw.mtime = lw.ctime = ctx->now;
	if (dir)
		lw.links++;
	if (nv_append_dentry(fs, &lw, name, strlen(name), t,
			     nv_dtype(ctx->ni[t].mode), NULL) ||
	    nv_log_commit(fs, &lw))
		return false;
	fixed(ctx, code, "inode %llu (%s) moved to /lost+found/%s%s",
	      (unsigned long long)t, type_str(ctx->ni[t].mode), name,
	      relinked ? ", link count set to 1" : "");
	return true;
}

/* ----------------------------------------------------------- names */

/* Why directory @d's entry @e cannot stay, NULL if it can */
static const char *bad_target(struct nova_fsck *ctx, uint64_t d,
			      const struct fsck_name *e)
{
	if (e->ino >= ctx->ni_max || !nv_inode_off(&ctx->fs, e->ino))
		return "an inode number without a slot";
	if (e->ino == NOVA_ROOT_INO)
		return "the root directory";
	if (e->ino == d)
		return "the directory itself";
	if (ctx->ni[e->ino].reserved)
		return "a reserved inode";
	if (!nv_inode_slot_valid(&ctx->fs, e->ino))
		return "a free inode";
	if (!ctx->ni[e->ino].valid)
		return "an unreadable inode";
	return NULL;
}

/* An entry that points nowhere, or with the wrong file type */
static bool check_entry(struct nova_fsck *ctx, uint64_t d,
			const struct fsck_name *e)
{
	const char *why = bad_target(ctx, d, e);
	uint32_t mode;

	if (why)
		return problem(ctx, PR_DENTRY_BAD_INO, (unsigned long long)d,
			       ipath(ctx, d), ename(ctx, e), why,
			       (unsigned long long)e->ino) &&
		       remove_entry(ctx, PR_DENTRY_BAD_INO, d, e);
	mode = ctx->ni[e->ino].mode;
	if (e->ftype == nv_dtype(mode) ||
	    !problem(ctx, PR_DENTRY_FTYPE, (unsigned long long)d, ipath(ctx, d),
		     ename(ctx, e), e->ftype, (unsigned long long)e->ino,
		     type_str(mode)))
		return false;
	if (relog_name(ctx, d, e->name, e->len, e->ino, nv_dtype(mode),
		       e->off)) {
		fixed(ctx, PR_DENTRY_FTYPE, "directory %llu: entry '%s' rewritten with file type %u",
		      (unsigned long long)d, ename(ctx, e), nv_dtype(mode));
		return true;
	}
	not_fixed(ctx, PR_DENTRY_FTYPE, "directory %llu: no space to rewrite '%s'",
		  (unsigned long long)d, ename(ctx, e));
	return false;
}

static int cmp_cookie(const void *a, const void *b)
{
	const struct fsck_name *x = *(struct fsck_name *const *)a;
	const struct fsck_name *y = *(struct fsck_name *const *)b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

/* Readdir cookies must be unique among a directory's live names */
static int check_cookies(struct nova_fsck *ctx, uint64_t d, bool *changed)
{
	struct fsck_inode_info *n = &ctx->ni[d];
	struct fsck_name **byck;
	size_t i;

	if (n->nents < 2)
		return 0;
	byck = malloc(n->nents * sizeof(*byck));
	if (!byck)
		return fsck_fatal(ctx, "out of memory");
	for (i = 0; i < n->nents; i++)
		byck[i] = &n->ents[i];
	qsort(byck, n->nents, sizeof(*byck), cmp_cookie);
	for (i = 1; i < n->nents; i++) {
		struct fsck_name *e = byck[i];

		if (e->cookie != byck[i - 1]->cookie ||
		    !problem(ctx, PR_DENTRY_COOKIE, (unsigned long long)d,
			     ipath(ctx, d), ename(ctx, byck[i - 1]),
			     ename(ctx, e), (unsigned long long)e->cookie))
			continue;
		if (relog_name(ctx, d, e->name, e->len, e->ino, e->ftype,
			       e->off)) {
			fixed(ctx, PR_DENTRY_COOKIE, "directory %llu: entry '%s' rewritten with a new cookie",
			      (unsigned long long)d, ename(ctx, e));
			*changed = true;
		} else {
			not_fixed(ctx, PR_DENTRY_COOKIE, "directory %llu: no space to rewrite '%s'",
				  (unsigned long long)d, ename(ctx, e));
		}
	}
	free(byck);
	return 0;
}

/* Names that point nowhere, have the wrong type, or share a cookie */
static int ns_entries(struct nova_fsck *ctx, bool *changed)
{
	uint64_t d;
	size_t i;

	for (d = NOVA_ROOT_INO; d < ctx->ni_max; d++) {
		for (i = 0; i < ctx->ni[d].nents; i++)
			if (check_entry(ctx, d, &ctx->ni[d].ents[i]))
				*changed = true;
		if (ctx->stop || check_cookies(ctx, d, changed))
			return -1;
	}
	return 0;
}

/* A directory may have one name */
static int ns_dir_links(struct nova_fsck *ctx, bool *changed)
{
	struct fsck_inode_info *ni = ctx->ni;
	uint64_t d, t;
	size_t i;

	for (d = NOVA_ROOT_INO; d < ctx->ni_max; d++) {
		for (i = 0; i < ni[d].nents; i++) {
			struct fsck_name *e = &ni[d].ents[i];

			t = e->ino;
			if (t >= ctx->ni_max || !ni[t].valid || ni[t].reserved ||
			    t == d || t == NOVA_ROOT_INO || !S_ISDIR(ni[t].mode) ||
			    ni[t].dirnames < 2)
				continue;
			if (ni[t].ndir == d &&
			    same_name(ni[t].nname, ni[t].nname_len, e->name, e->len))
				continue;	/* the name that stays */
			if (problem(ctx, PR_DIR_HARDLINK, (unsigned long long)t,
				    ni[t].dirnames, ename(ctx, e),
				    (unsigned long long)d, ipath(ctx, d)) &&
			    remove_entry(ctx, PR_DIR_HARDLINK, d, e))
				*changed = true;
			if (ctx->stop)
				return -1;
		}
	}
	return 0;
}

/* Valid inodes without a name */
static int ns_orphans(struct nova_fsck *ctx, bool *changed)
{
	struct fsck_inode_info *ni = ctx->ni;
	uint64_t t;

	for (t = NOVA_NORMAL_INODE_START; t < ctx->ni_max; t++) {
		if (!ni[t].valid || ni[t].names)
			continue;
		if (!ni[t].links) {
			/*
			 * Unlinked while open, or its unlink cut short, at a
			 * crash: normal after a power cut, and mount frees it
			 * (as ext4 processes its orphan list).  Not an error;
			 * a repairing run frees it.
			 */
			if (problem(ctx, PR_ORPHAN_UNLINKED, (unsigned long long)t,
				    type_str(ni[t].mode))) {
				free_slot(ctx, nv_inode_off(&ctx->fs, t));
				fixed(ctx, PR_ORPHAN_UNLINKED,
				      "inode %llu freed (as the kernel would at mount)",
				      (unsigned long long)t);
				*changed = true;
			}
		} else if (problem(ctx, PR_ORPHAN, (unsigned long long)t,
				   type_str(ni[t].mode), ni[t].links)) {
			if (move_to_lost_found(ctx, t, PR_ORPHAN))
				*changed = true;
			else
				not_fixed(ctx, PR_ORPHAN,
					  "inode %llu: could not move it to /lost+found",
					  (unsigned long long)t);
		}
		if (ctx->stop)
			return -1;
	}
	return 0;
}

/* Mark what the root reaches through names (directories: first names) */
static int mark_reachable(struct nova_fsck *ctx)
{
	struct fsck_inode_info *ni = ctx->ni;
	uint64_t *queue, qh = 0, qt = 0, t;
	size_t i;

	queue = malloc(ctx->ni_max * sizeof(*queue));
	if (!queue)
		return fsck_fatal(ctx, "out of memory");
	for (t = 0; t < ctx->ni_max; t++)
		ni[t].reachable = false;
	ni[NOVA_ROOT_INO].reachable = true;
	queue[qt++] = NOVA_ROOT_INO;
	while (qh < qt) {
		uint64_t d = queue[qh++];

		for (i = 0; i < ni[d].nents; i++) {
			uint64_t c = ni[d].ents[i].ino;

			if (c >= ctx->ni_max || !ni[c].valid || ni[c].reachable ||
			    ni[c].reserved)
				continue;
			if (S_ISDIR(ni[c].mode) &&
			    (ni[c].ndir != d ||
			     !same_name(ni[c].nname, ni[c].nname_len,
					ni[d].ents[i].name, ni[d].ents[i].len)))
				continue;	/* an extra name of a directory */
			ni[c].reachable = true;
			if (S_ISDIR(ni[c].mode))
				queue[qt++] = c;
		}
	}
	free(queue);
	return 0;
}

/* Is directory @t in a cycle of first names, away from the root? */
static bool in_cycle(struct nova_fsck *ctx, uint64_t t)
{
	struct fsck_inode_info *ni = ctx->ni;
	uint64_t p = t;
	unsigned int steps = 0;

	while (p < ctx->ni_max && ni[p].names && !ni[p].reachable &&
	       steps++ < ctx->ni_max && (p = ni[p].ndir) != t)
		;
	return p == t;
}

/* Take directory @t out of its cycle, into /lost+found */
static bool break_cycle(struct nova_fsck *ctx, uint64_t t)
{
	struct fsck_inode_info *ni = ctx->ni, *pd = &ni[ni[t].ndir];
	uint64_t off = 0;
	size_t i;

	for (i = 0; i < pd->nents; i++)
		if (pd->ents[i].ino == t)
			off = pd->ents[i].off;
	if (remove_name(ctx, ni[t].ndir, ni[t].nname, ni[t].nname_len, off) &&
	    move_to_lost_found(ctx, t, PR_DIR_CYCLE))
		return true;
	not_fixed(ctx, PR_DIR_CYCLE, "directory %llu: could not reconnect it",
		  (unsigned long long)t);
	return false;
}

/* Directories that have a name but cannot be reached from the root */
static int ns_connect(struct nova_fsck *ctx, bool *changed)
{
	struct fsck_inode_info *ni = ctx->ni;
	uint64_t t, p;
	unsigned int steps;

	if (mark_reachable(ctx))
		return -1;
	for (t = NOVA_NORMAL_INODE_START; t < ctx->ni_max && !*changed; t++) {
		if (!ni[t].valid || ni[t].reachable || !S_ISDIR(ni[t].mode) ||
		    !ni[t].names || !in_cycle(ctx, t))
			continue;
		if (problem(ctx, PR_DIR_CYCLE, (unsigned long long)t,
			    pname(ctx, ni[t].nname, ni[t].nname_len),
			    (unsigned long long)ni[t].ndir)) {
			if (break_cycle(ctx, t))
				*changed = true;
		} else {
			/* not fixed: report the cycle once */
			for (p = ni[t].ndir, steps = 0; p != t && steps++ < ctx->ni_max;
			     p = ni[p].ndir)
				ni[p].reachable = true;
		}
		if (ctx->stop)
			return -1;
	}
	return 0;
}

/*
 * Names, one name per directory, orphans, connectivity: again after
 * each repair, as a repair changes what the others see
 */
int pass_namespace(struct nova_fsck *ctx)
{
	static int (*const steps[])(struct nova_fsck *, bool *) = {
		ns_entries, ns_dir_links, ns_orphans, ns_connect,
	};
	bool changed = true;
	size_t k;
	int i;

	ctx->lost_found = 0;
	for (i = 0; i < 16 && changed; i++) {
		if (ns_analyze(ctx))
			return -1;
		changed = false;
		for (k = 0; k < ARRAY_SIZE(steps) && !changed; k++)
			if (steps[k](ctx, &changed))
				return -1;
	}
	return 0;
}

/* ----------------------------------------------- link counts and ".." */

static void check_links(struct nova_fsck *ctx, uint64_t t)
{
	struct fsck_inode_info *n = &ctx->ni[t];
	uint32_t want;

	if (!n->valid || n->reserved)
		return;
	if (S_ISDIR(n->mode)) {
		/* an rmdir cut short at a crash, reported already */
		if (t != NOVA_ROOT_INO && !n->names && !n->links)
			return;
		want = 2 + n->subdirs;
	} else {
		if (!n->names)
			return;	/* an orphan, reported already */
		want = n->names;
	}
	if (n->links == want ||
	    !problem(ctx, PR_LINK_COUNT, (unsigned long long)t, type_str(n->mode),
		     ipath(ctx, t), n->links, want))
		return;
	if (set_links(ctx, t, want)) {
		fixed(ctx, PR_LINK_COUNT, "inode %llu: link count set to %u",
		      (unsigned long long)t, want);
		n->links = want;
	} else {
		not_fixed(ctx, PR_LINK_COUNT, "inode %llu: no space to log the link count",
			  (unsigned long long)t);
	}
}

static void check_dotdot(struct nova_fsck *ctx, uint64_t t)
{
	struct fsck_inode_info *n = &ctx->ni[t];
	uint64_t want;

	if (!n->valid || n->reserved || !S_ISDIR(n->mode))
		return;
	if (t == NOVA_ROOT_INO) {
		if (!n->parent || n->parent == NOVA_ROOT_INO)
			return;
		want = NOVA_ROOT_INO;
	} else {
		if (!n->names)
			return;
		want = n->ndir;
	}
	if (n->parent == want ||
	    !problem(ctx, PR_DOTDOT, (unsigned long long)t, ipath(ctx, t),
		     n->parent ? "inode " : "missing, ",
		     (unsigned long long)n->parent, (unsigned long long)want))
		return;
	if (set_dotdot(ctx, t, want))
		fixed(ctx, PR_DOTDOT, "directory %llu: '..' set to %llu",
		      (unsigned long long)t, (unsigned long long)want);
	else
		not_fixed(ctx, PR_DOTDOT, "directory %llu: no space to log '..'",
			  (unsigned long long)t);
}

/* Link counts and ".." */
int pass_links(struct nova_fsck *ctx)
{
	uint64_t t;

	if (ns_analyze(ctx))
		return -1;
	for (t = NOVA_ROOT_INO; t < ctx->ni_max && !ctx->stop; t++)
		check_links(ctx, t);
	for (t = NOVA_ROOT_INO; t < ctx->ni_max && !ctx->stop; t++)
		check_dotdot(ctx, t);
	return ctx->stop ? -1 : 0;
}
