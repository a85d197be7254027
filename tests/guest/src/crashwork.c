// SPDX-License-Identifier: GPL-2.0
/*
 * crashwork: deterministic workload and checker for NOVA power-cut tests.
 *
 *   crashwork run DIR SEED OPS [--profile P] [--arm POINT@K] [--param FILE]
 *                 [--records DEV]
 *   crashwork verify DIR SEED RECORDFILE [--profile P] [--ops N]
 *   crashwork stress DIR SEED
 *   crashwork list SEED OPS [--profile P]
 *
 * run: DIR must be an empty directory (normally the mount point itself).
 * A pseudo-random workload, a function of (SEED, OPS, profile) only, is
 * applied to DIR.  Every operation is a short sequence of system calls;
 * after one completes, one record line goes to stdout:
 *
 *   REC <n> <op> <args...> #<crc32>
 *
 * and stdout is flushed and drained (tcdrain on a tty: the serial console
 * has transmitted the line before the next operation starts); or with
 * --records DEV the record is written to the block device DEV with
 * O_DIRECT before the next operation starts (a second pmem device: much
 * faster than the serial line; the host extracts the REC lines from its
 * backing file, e.g. tr '\0' '\n' <img | grep -a 'REC ').  REC 0
 * carries the start state (profile, OPS, free blocks, used inodes).  So a
 * console log cut by a power failure holds exactly the records of the
 * operations that completed; operation N+1 was in flight (or done, its
 * record not yet out).  At the end (no crash) run checks the file system
 * against its model and prints "PASS run" or "FAIL run: ...".
 *   --arm POINT@K  after operation K, write POINT to the crash_point module
 *                  parameter (--param, default
 *                  /sys/module/nova/parameters/crash_point)
 *
 * Operations: create (+ one write), append + fsync, pwrite, full 64 KiB
 * overwrites of "big" with pattern k in ONE write(), 4 KiB overwrites of
 * page 0 of "hot" (in every third burst, one in eight to pages 1..15), rename
 * (within/across directories, over files and empty directories),
 * RENAME_EXCHANGE, unlink, unlink of an open file, mkdir, rmdir, link,
 * symlink, truncate, fallocate (allocate, keep size, punch hole, zero
 * range), shift (fallocate COLLAPSE_RANGE or INSERT_RANGE of whole pages,
 * within ext4's rules so that it always succeeds: a collapsed range ends
 * before EOF, an insert starts before it), tmpfile (open O_TMPFILE, one
 * write, then half of them linked with linkat, the others closed: an
 * orphan that must vanish), mmap store + msync, chmod; and bursts that
 * make the logs need garbage collection: hundreds of create/unlink pairs
 * in "churn" (half the bursts keep one in eight under a new name),
 * hundreds of overwrites of "hot", mass creates in "many" (inode table
 * growth).  Extended
 * attributes: xset (lsetxattr of user., trusted. or security. names -
 * only the last two on symlinks - of up to 255 bytes with the prefix,
 * values of 0 to 64 KiB, flags 0, XATTR_CREATE or XATTR_REPLACE; several
 * per inode, on files, directories, symlinks and "hot"), xrm
 * (lremovexattr, ACLs too), setacl (system.posix_acl_access or _default
 * in the binary posix_acl_xattr form, version 2).  The model follows the
 * kernel's ACL rules exactly: an access ACL sets the mode's permission
 * bits (group: the mask) and is not stored when the mode says it all
 * (posix_acl_update_mode); chmod rewrites the access ACL's owner, mask
 * and other entries (posix_acl_chmod); a file or directory created in a
 * directory with a default ACL gets the access ACL and mode of
 * posix_acl_create_masq() (a directory: the default ACL too).  With an
 * access ACL a chmod is two commits in NOVA (setattr, then the ACL), so
 * its in-flight state may be the new mode with the old ACL.  A tmpfile
 * gets its mode and ACLs from the directory it is made in, wherever it
 * is linked.  Profiles weight them: mixed, write, ns, gc, xattr (mixed: a
 * few xattr, shift and tmpfile ops; write: shifts; xattr: tmpfiles; ns
 * and gc: neither, their operation lists are those from before), crypt
 * (mixed's, without mmap and shifts, which encrypted files refuse, in
 * DIR/enc, encrypted: run makes it with a v2 policy of a key made from
 * SEED before REC 0, verify adds the key again; REC 0's bfree is from
 * before DIR/enc was made, its inode count from after).
 * Profile eof is a workload of its own, for bytes stored past EOF by a
 * write cut before its commit (the eof section below); its --arm arms the
 * point inside the next operation.
 * Profile clone: the data operations (create, append, pwrite, bigwrite,
 * hot and its bursts, truncate, fallocate, shift, mmap, rename, link,
 * unlink, unlinkopen) with clones and dedupe, which only it has: clone
 * (FICLONERANGE of whole pages, or pages up to the source's EOF, at most
 * 16 of them, of a file, "big" or "hot" onto a page-aligned offset of
 * another file, of a new one or of the same file without overlap; or
 * FICLONE of a whole file of at most 16 pages into a new one) and dedupe
 * (FIDEDUPERANGE of two page-aligned ranges within both files' EOF:
 * mostly a recent clone's ranges, equal unless written since, else
 * random ones, mostly different; the record says what the model
 * expects: "same", every byte deduped, or "differs",
 * FILE_DEDUPE_RANGE_DIFFERS).  NOVA clones in batches of 16 runs of
 * pages, each committed with one tail store of the destination
 * (src/reflink.c): 16 pages are one batch, so a clone's in-flight states
 * are the destination before and after (a new one: also empty), and the
 * destination becomes the source's bytes, its size the larger of its
 * own and the clone's end.  A dedupe changes no data.  After each clone
 * and each deduplication of equal ranges, run checks with FIEMAP that
 * the destination's pages map the source's blocks (a clone takes no
 * data blocks); the statfs check of this profile counts the tree's
 * distinct blocks (FIEMAP), not the sum of st_blocks, which counts a
 * shared block once per file.  NOVA maps no shared block (a fault copies
 * the page first), so on a read-only mount a shared last page cannot be
 * mapped (SIGBUS): there its bytes past EOF are not checked.
 *
 * verify: rebuilds the operation list from SEED (each record's text must
 * match the regenerated one), replays records 1..N in an in-memory model
 * and builds the candidate states of the in-flight operation N+1: the
 * state before it, after each of its atomic steps (for example create:
 * the empty file, then the file with its data), and for steps that are
 * not atomic by design (stores through mmap) a state in which each byte
 * of the range may be old or new.  Punch hole and zero range are one
 * step: in the copy-on-write mode (the module's default, the only one
 * these tests use) their partial edge pages get new blocks, committed
 * with the rest.  A shift is one step too (NOVA commits the new mapping
 * of every page that moves with one tail store).  A tmpfile's one step
 * is its link, with all its data (written before); an unlinked one
 * changes nothing, and its inode must be gone (the inode count below:
 * recovery reclaims an orphan left by a power cut).  The whole tree
 * under DIR must equal one candidate exactly: names (no unknown or
 * missing ones), types,
 * permission bits, link counts (files: names; directories: 2 + subdirs),
 * hard links (the same inode), sizes, every byte of every file, symlink
 * targets; "..", readdir d_type, no duplicate names; every inode's
 * extended attributes (llistxattr, lgetxattr): no unknown or missing
 * names, every value's size and bytes (ACLs: the canonical binary form
 * that the kernel gives back).  Every file is read completely (a read
 * error fails).  statfs: sane counters; the used inode
 * count must equal REC 0's plus the inodes in the tree (an unreclaimed
 * orphan or leaked inode fails).  Prints PASS/FAIL lines (for a FAIL the
 * differences against the committed state and the closest candidate) and
 * "verify: matched <state>"; exit 1 on any violation.
 *
 * stress: after recovery, allocate and free a lot (files in DIR/.stress)
 * and check that what was written reads back; then remove it.  A verify
 * afterwards shows that the new allocations did not overwrite live data.
 *
 * list: print the operation list that run would execute (model only).
 *
 * Exit status: 0 pass, 1 violation or failed operation, 2 usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <sys/ioctl.h>
#define TUTIL_XALLOC
#include "tutil.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define MAXP		1024	/* path buffers */
#define BIGSIZE		65536	/* "big": overwritten whole by one write() */
#define PAGE		4096
#define FILE_CAP	(192 * 1024)	/* the workload keeps files below this */
#define MAXDEPTH	4
#define MAXDIFF		40

static const char *prog = "crashwork";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ------------------------------------------------------------ hashing */

static uint32_t crc32(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static uint64_t g_seed;

/*
 * The data of operation @opn: 8-byte words with the operation number in
 * the top 24 bits (so foreign data in a file can be traced to its op).
 */
static void fill_data(unsigned char *buf, size_t len, unsigned opn)
{
	uint64_t s = g_seed * 0x100000001b3ULL ^ (uint64_t)opn * 0xd1b54a32d192ed03ULL;
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = ((uint64_t)(opn & 0xffffff) << 40) |
			     (splitmix64(&s) & 0xffffffffffULL);
		size_t n = len - i < 8 ? len - i : 8;

		memcpy(buf + i, &w, n);
	}
}

/* Pattern k of "big": word i = B16 marker | k | i */
static void fill_big(unsigned char *buf, unsigned k)
{
	size_t i;

	for (i = 0; i < BIGSIZE / 8; i++) {
		uint64_t w = 0xB160000000000000ULL | ((uint64_t)k << 16) | i;

		memcpy(buf + i * 8, &w, 8);
	}
}

/* ------------------------------------------------------------ the model */

enum { T_FREE, T_REG, T_DIR, T_LNK };

/* One extended attribute: its full name ("user.x", "system.posix_acl_access") */
struct mxattr {
	char *name;
	unsigned char *val;
	size_t len;
};

struct dent {
	char *name;
	int id;
};

struct mnode {
	int type;
	unsigned mode;		/* permission bits */
	int nlink;
	unsigned char *data;	/* T_REG */
	size_t size;
	unsigned char *alt;	/* candidate only: each byte may be data or alt */
	char *target;		/* T_LNK */
	struct dent *ents;	/* T_DIR, in insertion order */
	int nents, capents;
	int parent;		/* T_DIR */
	struct mxattr *xa;	/* extended attributes (ACLs included) */
	int nxa;
	unsigned uid, gid;	/* 0 unless chown */
	int64_t mtime;		/* checked when has_mtime (utimes) */
	int has_mtime;
};

struct model {
	struct mnode *n;
	int nn, cap;
};

static int m_alloc(struct model *m, int type, unsigned mode)
{
	int id;

	for (id = 0; id < m->nn; id++)
		if (m->n[id].type == T_FREE)
			break;
	if (id == m->nn) {
		if (m->nn == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 64;
			m->n = xrealloc(m->n, m->cap * sizeof(*m->n));
		}
		m->nn++;
	}
	memset(&m->n[id], 0, sizeof(m->n[id]));
	m->n[id].type = type;
	m->n[id].mode = mode;
	m->n[id].nlink = type == T_DIR ? 2 : 1;
	return id;
}

static void m_release(struct model *m, int id)
{
	struct mnode *x = &m->n[id];
	int i;

	free(x->data);
	free(x->alt);
	free(x->target);
	for (i = 0; i < x->nents; i++)
		free(x->ents[i].name);
	free(x->ents);
	for (i = 0; i < x->nxa; i++) {
		free(x->xa[i].name);
		free(x->xa[i].val);
	}
	free(x->xa);
	memset(x, 0, sizeof(*x));
	x->type = T_FREE;
}

static void m_init(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m_alloc(m, T_DIR, 0755);
	m->n[0].parent = 0;
}

static void m_free(struct model *m)
{
	int i;

	for (i = 0; i < m->nn; i++)
		m_release(m, i);
	free(m->n);
	memset(m, 0, sizeof(*m));
}

static void m_clone(struct model *dst, const struct model *src)
{
	int i, j;

	dst->nn = dst->cap = src->nn;
	dst->n = xmalloc((src->nn ? src->nn : 1) * sizeof(*dst->n));
	for (i = 0; i < src->nn; i++) {
		const struct mnode *s = &src->n[i];
		struct mnode *d = &dst->n[i];

		*d = *s;
		d->data = NULL;
		d->alt = NULL;
		d->target = NULL;
		d->ents = NULL;
		d->xa = NULL;
		if (s->nxa) {
			d->xa = xmalloc(s->nxa * sizeof(*d->xa));
			for (j = 0; j < s->nxa; j++) {
				d->xa[j].name = xstrdup(s->xa[j].name);
				d->xa[j].len = s->xa[j].len;
				d->xa[j].val = xmalloc(s->xa[j].len);
				memcpy(d->xa[j].val, s->xa[j].val, s->xa[j].len);
			}
		}
		if (s->data) {
			d->data = xmalloc(s->size);
			memcpy(d->data, s->data, s->size);
		}
		if (s->alt) {
			d->alt = xmalloc(s->size);
			memcpy(d->alt, s->alt, s->size);
		}
		if (s->target)
			d->target = xstrdup(s->target);
		if (s->type == T_DIR) {
			d->capents = s->nents;
			d->ents = xmalloc((s->nents ? s->nents : 1) * sizeof(*d->ents));
			for (j = 0; j < s->nents; j++) {
				d->ents[j].name = xstrdup(s->ents[j].name);
				d->ents[j].id = s->ents[j].id;
			}
		}
	}
}

static int d_find(const struct mnode *d, const char *name)
{
	int i;

	for (i = 0; i < d->nents; i++)
		if (!strcmp(d->ents[i].name, name))
			return i;
	return -1;
}

static void d_add(struct mnode *d, const char *name, int id)
{
	if (d->nents == d->capents) {
		d->capents = d->capents ? d->capents * 2 : 8;
		d->ents = xrealloc(d->ents, d->capents * sizeof(*d->ents));
	}
	d->ents[d->nents].name = xstrdup(name);
	d->ents[d->nents].id = id;
	d->nents++;
}

static void d_del(struct mnode *d, int i)
{
	free(d->ents[i].name);
	memmove(&d->ents[i], &d->ents[i + 1], (d->nents - i - 1) * sizeof(*d->ents));
	d->nents--;
}

/* Resolve a path relative to the root ("" is the root); -1 if absent */
static int m_lookup(const struct model *m, const char *path)
{
	char buf[MAXP], *save = NULL, *tok;
	int id = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		int i;

		if (m->n[id].type != T_DIR)
			return -1;
		i = d_find(&m->n[id], tok);
		if (i < 0)
			return -1;
		id = m->n[id].ents[i].id;
	}
	return id;
}

/* Split @path into its parent's id and the last name */
static int m_parent(const struct model *m, const char *path, const char **name)
{
	char buf[MAXP];
	const char *slash = strrchr(path, '/');
	int id;

	if (!slash) {
		*name = path;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)(slash - path), path);
	*name = slash + 1;
	id = m_lookup(m, buf);
	if (id < 0 || m->n[id].type != T_DIR)
		die("model: no parent directory for %s", path);
	return id;
}

static void m_setsize(struct mnode *x, size_t size)
{
	if (size > x->size) {
		x->data = xrealloc(x->data, size);
		memset(x->data + x->size, 0, size - x->size);
	}
	x->size = size;
}

static void m_write(struct mnode *x, uint64_t off, const unsigned char *buf, size_t len)
{
	if (off + len > x->size)
		m_setsize(x, off + len);
	memcpy(x->data + off, buf, len);
}

/* ------------------------------------------------------------ xattrs, ACLs */

#define ACL_ACCESS	"system.posix_acl_access"
#define ACL_DEFAULT	"system.posix_acl_default"
#define XA_MAX_NAMES	6	/* non-ACL names per inode the workload keeps */

static int x_find(const struct mnode *x, const char *name)
{
	int i;

	for (i = 0; i < x->nxa; i++)
		if (!strcmp(x->xa[i].name, name))
			return i;
	return -1;
}

static void x_set(struct mnode *x, const char *name, const unsigned char *val, size_t len)
{
	int i = x_find(x, name);

	if (i < 0) {
		x->xa = xrealloc(x->xa, (x->nxa + 1) * sizeof(*x->xa));
		i = x->nxa++;
		x->xa[i].name = xstrdup(name);
	} else {
		free(x->xa[i].val);
	}
	x->xa[i].val = xmalloc(len);
	memcpy(x->xa[i].val, val, len);
	x->xa[i].len = len;
}

static void x_del(struct mnode *x, const char *name)
{
	int i = x_find(x, name);

	if (i < 0)
		return;
	free(x->xa[i].name);
	free(x->xa[i].val);
	memmove(&x->xa[i], &x->xa[i + 1], (x->nxa - i - 1) * sizeof(*x->xa));
	x->nxa--;
}

static int is_acl_name(const char *name)
{
	return !strcmp(name, ACL_ACCESS) || !strcmp(name, ACL_DEFAULT);
}

/*
 * POSIX ACLs in the VFS's xattr form (posix_acl_xattr_header: version 2,
 * then 8-byte entries tag, perm, id; little endian), canonical: sorted by
 * tag, the named ones by id, id -1 for the others.  That is what the
 * kernel gives back (posix_acl_to_xattr), so the model compares bytes.
 */
enum {
	A_USER_OBJ = 0x01, A_USER = 0x02, A_GROUP_OBJ = 0x04, A_GROUP = 0x08,
	A_MASK = 0x10, A_OTHER = 0x20,
};
#define ACL_MAXE	16

struct acl_e {
	unsigned tag, perm;
	uint32_t id;
};

struct acl {
	struct acl_e e[ACL_MAXE];
	int n;
};

/* "u::rwx,u:1001:r-x,g::r--,m::rwx,o::---" -> @a; 0 or -1 */
static int acl_parse(const char *text, struct acl *a)
{
	char buf[MAXP], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", text);
	a->n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *c1 = strchr(tok, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		struct acl_e *e;
		int named, k;

		if (!c2 || strlen(c2 + 1) != 3 || a->n == ACL_MAXE)
			return -1;
		e = &a->e[a->n++];
		named = c2 > c1 + 1;
		e->id = named ? (uint32_t)strtoul(c1 + 1, NULL, 10) : 0xffffffffu;
		e->perm = 0;
		for (k = 0; k < 3; k++)
			if (c2[1 + k] != '-')
				e->perm |= 4 >> k;
		switch (tok[0]) {
		case 'u': e->tag = named ? A_USER : A_USER_OBJ; break;
		case 'g': e->tag = named ? A_GROUP : A_GROUP_OBJ; break;
		case 'm': e->tag = A_MASK; break;
		case 'o': e->tag = A_OTHER; break;
		default: return -1;
		}
	}
	return 0;
}

static size_t acl_to_xattr(const struct acl *a, unsigned char *out)
{
	uint32_t v = 2;
	int i;

	memcpy(out, &v, 4);
	for (i = 0; i < a->n; i++) {
		uint16_t t = a->e[i].tag, p = a->e[i].perm;

		memcpy(out + 4 + 8 * i, &t, 2);
		memcpy(out + 6 + 8 * i, &p, 2);
		memcpy(out + 8 + 8 * i, &a->e[i].id, 4);
	}
	return 4 + 8 * a->n;
}

static int acl_from_xattr(const unsigned char *v, size_t len, struct acl *a)
{
	uint32_t ver;
	size_t i;

	a->n = 0;
	if (len < 4 || (len - 4) % 8 || (len - 4) / 8 > ACL_MAXE)
		return -1;
	memcpy(&ver, v, 4);
	if (ver != 2)
		return -1;
	for (i = 4; i < len; i += 8) {
		uint16_t t, p;
		struct acl_e *e = &a->e[a->n++];

		memcpy(&t, v + i, 2);
		memcpy(&p, v + i + 2, 2);
		memcpy(&e->id, v + i + 4, 4);
		e->tag = t;
		e->perm = p;
	}
	return 0;
}

/* An xattr value for messages: an ACL as text, else its size and first bytes */
static void xa_describe(char *out, size_t sz, const char *name, const unsigned char *v,
			size_t len)
{
	struct acl a;
	size_t o = 0;
	int i;

	if (is_acl_name(name) && !acl_from_xattr(v, len, &a)) {
		out[0] = 0;
		for (i = 0; i < a.n && o + 24 < sz; i++) {
			const struct acl_e *e = &a.e[i];
			char t = e->tag & (A_USER_OBJ | A_USER) ? 'u' :
				 e->tag & (A_GROUP_OBJ | A_GROUP) ? 'g' :
				 e->tag == A_MASK ? 'm' : e->tag == A_OTHER ? 'o' : '?';
			char id[16] = "";

			if (e->tag == A_USER || e->tag == A_GROUP)
				snprintf(id, sizeof(id), "%u", e->id);
			o += snprintf(out + o, sz - o, "%s%c:%s:%c%c%c", i ? "," : "", t, id,
				      e->perm & 4 ? 'r' : '-', e->perm & 2 ? 'w' : '-',
				      e->perm & 1 ? 'x' : '-');
		}
		return;
	}
	if (len >= 8) {
		uint64_t w;

		memcpy(&w, v, 8);
		snprintf(out, sz, "%zu bytes, data of op %llu?", len,
			 (unsigned long long)(w >> 40));
	} else {
		snprintf(out, sz, "%zu bytes", len);
	}
}

/*
 * posix_acl_equiv_mode(): the permission bits an access ACL gives, and
 * whether it says more than them (named entries or a mask)
 */
static int acl_equiv_mode(const struct acl *a, unsigned *mode)
{
	unsigned m = *mode & ~0777u;
	int i, not_equiv = 0;

	for (i = 0; i < a->n; i++) {
		switch (a->e[i].tag) {
		case A_USER_OBJ: m |= (a->e[i].perm & 7) << 6; break;
		case A_GROUP_OBJ: m |= (a->e[i].perm & 7) << 3; break;
		case A_OTHER: m |= a->e[i].perm & 7; break;
		case A_MASK: m = (m & ~070u) | ((a->e[i].perm & 7) << 3); not_equiv = 1; break;
		default: not_equiv = 1; break;
		}
	}
	*mode = m;
	return not_equiv;
}

/* setting an access ACL: posix_acl_update_mode(), then stored or dropped */
static void m_set_access_acl(struct mnode *x, const struct acl *a)
{
	unsigned char buf[4 + 8 * ACL_MAXE];

	if (acl_equiv_mode(a, &x->mode))
		x_set(x, ACL_ACCESS, buf, acl_to_xattr(a, buf));
	else
		x_del(x, ACL_ACCESS);	/* the mode says it all */
}

/* __posix_acl_chmod(): the access ACL follows a chmod; 0 if there is none */
static int m_acl_chmod(struct mnode *x)
{
	unsigned char buf[4 + 8 * ACL_MAXE];
	struct acl a;
	int i = x_find(x, ACL_ACCESS), k, mask = 0;

	if (i < 0)
		return 0;
	if (acl_from_xattr(x->xa[i].val, x->xa[i].len, &a))
		die("model: bad access ACL");
	for (k = 0; k < a.n; k++)
		mask |= a.e[k].tag == A_MASK;
	for (k = 0; k < a.n; k++) {
		struct acl_e *e = &a.e[k];

		if (e->tag == A_USER_OBJ)
			e->perm = (x->mode >> 6) & 7;
		else if (e->tag == A_MASK || (e->tag == A_GROUP_OBJ && !mask))
			e->perm = (x->mode >> 3) & 7;
		else if (e->tag == A_OTHER)
			e->perm = x->mode & 7;
	}
	x_set(x, ACL_ACCESS, buf, acl_to_xattr(&a, buf));
	return 1;
}

/*
 * posix_acl_create(): a new inode @id (mode already its create mode) in
 * directory @pid.  With a default ACL there: posix_acl_create_masq() on
 * a copy masks the mode and, if the copy says more than the mode, is the
 * new inode's access ACL; a new directory inherits the default ACL.  (No
 * umask: crashwork runs with umask 0.)
 */
static void m_inherit(struct model *m, int pid, int id)
{
	const struct mnode *dir = &m->n[pid];
	struct mnode *x = &m->n[id];
	unsigned char buf[4 + 8 * ACL_MAXE];
	int i = x_find(dir, ACL_DEFAULT), k, not_equiv = 0;
	struct acl_e *group_obj = NULL, *mask_obj = NULL;
	unsigned mode = x->mode & 0777;
	struct acl a;

	if (i < 0 || x->type == T_LNK)
		return;
	if (acl_from_xattr(dir->xa[i].val, dir->xa[i].len, &a))
		die("model: bad default ACL");
	if (x->type == T_DIR)
		x_set(x, ACL_DEFAULT, dir->xa[i].val, dir->xa[i].len);
	for (k = 0; k < a.n; k++) {
		struct acl_e *e = &a.e[k];

		switch (e->tag) {
		case A_USER_OBJ:
			e->perm &= (mode >> 6) & 7;
			mode &= (e->perm << 6) | ~0700u;
			break;
		case A_USER:
		case A_GROUP:
			not_equiv = 1;
			break;
		case A_GROUP_OBJ:
			group_obj = e;
			break;
		case A_OTHER:
			e->perm &= mode & 7;
			mode &= e->perm | ~07u;
			break;
		case A_MASK:
			mask_obj = e;
			not_equiv = 1;
			break;
		}
	}
	if (mask_obj) {
		mask_obj->perm &= (mode >> 3) & 7;
		mode &= (mask_obj->perm << 3) | ~070u;
	} else if (group_obj) {
		group_obj->perm &= (mode >> 3) & 7;
		mode &= (group_obj->perm << 3) | ~070u;
	}
	x->mode = (x->mode & ~0777u) | (mode & 0777);
	if (not_equiv)
		x_set(x, ACL_ACCESS, buf, acl_to_xattr(&a, buf));
}

/* Remove name @i of directory @pid; drop the inode when unreferenced */
static void m_drop_name(struct model *m, int pid, int i)
{
	int id = m->n[pid].ents[i].id;

	d_del(&m->n[pid], i);
	if (m->n[id].type == T_DIR) {
		m->n[pid].nlink--;
		m_release(m, id);
	} else if (--m->n[id].nlink == 0) {
		m_release(m, id);
	}
}

/* ------------------------------------------------------------ operations */

enum {
	OP_MKDIR, OP_CREATE, OP_APPEND, OP_PWRITE, OP_BIGWRITE, OP_HOT, OP_RENAME,
	OP_EXCHANGE, OP_UNLINK, OP_RMDIR, OP_LINK, OP_SYMLINK, OP_TRUNCATE, OP_FALLOC,
	OP_MMAP, OP_UNLINKOPEN, OP_CHMOD, OP_XSET, OP_XRM, OP_SETACL, OP_SHIFT,
	OP_TMPFILE,
	/* the store-level crash tests' workloads only (crashwork ace) */
	OP_FSYNC, OP_CHOWN, OP_UTIMES,
	/* profile clone only */
	OP_CLONE, OP_DEDUPE,
	OP_NK,
	/* burst starts (generator only) */
	B_CHURN = OP_NK, B_HOT, B_MASS,
	W_N
};

static const char *const opname[OP_NK] = {
	"mkdir", "create", "append", "pwrite", "bigwrite", "hot", "rename",
	"exchange", "unlink", "rmdir", "link", "symlink", "truncate", "falloc",
	"mmap", "unlinkopen", "chmod", "xset", "xrm", "setacl", "shift",
	"tmpfile", "fsync", "chown", "utimes", "clone", "dedupe",
};

/* clone: op->fl */
#define CL_NEW		1	/* into a new file (open O_CREAT | O_EXCL) */
#define CL_WHOLE	2	/* FICLONE of the whole file (else FICLONERANGE) */
/* dedupe: op->fl */
#define DD_DIFFERS	1	/* the model says the ranges differ */
#define CLONE_MAXP	16	/* pages of a clone or dedupe: one batch in NOVA */

struct op {
	int kind;
	unsigned n;
	char a[MAXP], b[MAXP];
	uint64_t off, len;	/* bigwrite: len = k; truncate: off = size;
				 * chmod, tmpfile: off = mode;
				 * xset: len = value bytes;
				 * clone, dedupe: off and len of the source's range */
	uint64_t dst;		/* clone, dedupe: the destination's offset */
	int fl;			/* falloc, shift: mode; xset: XATTR_CREATE/REPLACE;
				 * setacl: 1 default, 0 access; tmpfile: 1 linked;
				 * clone: CL_*; dedupe: DD_DIFFERS */
	/*
	 * xset, xrm: b = the attribute's full name; setacl: b = the ACL;
	 * tmpfile: a = the directory ("" the root), b = the name it is
	 * linked under; clone, dedupe: a = the source, b = the destination
	 */
};

static const char *xflag_name(int fl)
{
	return fl == XATTR_CREATE ? "create" : fl == XATTR_REPLACE ? "replace" : "0";
}

static void op_text(const struct op *op, char *buf, size_t sz)
{
	const char *k = opname[op->kind];
	unsigned long long off = op->off, len = op->len;

	switch (op->kind) {
	case OP_MKDIR: case OP_UNLINK: case OP_RMDIR: case OP_UNLINKOPEN:
		snprintf(buf, sz, "%s %s", k, op->a);
		break;
	case OP_HOT:
		if (off)
			snprintf(buf, sz, "%s %s off=%llu", k, op->a, off);
		else
			snprintf(buf, sz, "%s %s", k, op->a);
		break;
	case OP_CREATE: case OP_APPEND:
		snprintf(buf, sz, "%s %s len=%llu", k, op->a, len);
		break;
	case OP_PWRITE: case OP_MMAP:
		snprintf(buf, sz, "%s %s off=%llu len=%llu", k, op->a, off, len);
		break;
	case OP_BIGWRITE:
		snprintf(buf, sz, "%s %s k=%llu", k, op->a, len);
		break;
	case OP_RENAME: case OP_EXCHANGE: case OP_LINK:
		snprintf(buf, sz, "%s %s %s", k, op->a, op->b);
		break;
	case OP_SYMLINK:
		snprintf(buf, sz, "%s %s target=%s", k, op->a, op->b);
		break;
	case OP_TRUNCATE:
		snprintf(buf, sz, "%s %s size=%llu", k, op->a, off);
		break;
	case OP_FALLOC:
		snprintf(buf, sz, "%s %s mode=%d off=%llu len=%llu", k, op->a,
			 op->fl, off, len);
		break;
	case OP_CHMOD:
		snprintf(buf, sz, "%s %s mode=0%llo", k, op->a, off);
		break;
	case OP_FSYNC:
		snprintf(buf, sz, "%s %s", k, *op->a ? op->a : ".");
		break;
	case OP_CHOWN:
		snprintf(buf, sz, "%s %s %llu:%llu", k, op->a, off, len);
		break;
	case OP_UTIMES:
		snprintf(buf, sz, "%s %s mtime=%llu", k, op->a, off);
		break;
	case OP_XSET:
		snprintf(buf, sz, "%s %s %s len=%llu flags=%s", k, op->a, op->b, len,
			 xflag_name(op->fl));
		break;
	case OP_XRM:
		snprintf(buf, sz, "%s %s %s", k, op->a, op->b);
		break;
	case OP_SETACL:
		snprintf(buf, sz, "%s %s %s %s", k, op->a, op->fl ? "default" : "access", op->b);
		break;
	case OP_SHIFT:
		snprintf(buf, sz, "%s %s %s off=%llu len=%llu", k, op->a,
			 op->fl == FALLOC_FL_COLLAPSE_RANGE ? "collapse" : "insert", off, len);
		break;
	case OP_CLONE:
		snprintf(buf, sz, "%s %s %s off=%llu dst=%llu len=%llu%s%s", k, op->a, op->b,
			 off, (unsigned long long)op->dst, len,
			 op->fl & CL_WHOLE ? " ficlone" : "", op->fl & CL_NEW ? " new" : "");
		break;
	case OP_DEDUPE:
		snprintf(buf, sz, "%s %s %s off=%llu dst=%llu len=%llu %s", k, op->a, op->b,
			 off, (unsigned long long)op->dst, len,
			 op->fl & DD_DIFFERS ? "differs" : "same");
		break;
	case OP_TMPFILE:
		if (op->fl)
			snprintf(buf, sz, "%s %s len=%llu mode=0%llo link=%s", k,
				 *op->a ? op->a : ".", len, off, op->b);
		else
			snprintf(buf, sz, "%s %s len=%llu mode=0%llo unlinked", k,
				 *op->a ? op->a : ".", len, off);
		break;
	default:
		snprintf(buf, sz, "?");
	}
}

/*
 * Apply @op to the model.  @cb (if set) is called after every atomic
 * step with the state reached; fuzzy steps set ->alt on the node for the
 * duration of the call.
 */
typedef void (*step_cb)(struct model *m, const char *label, void *arg);

static void step(struct model *m, step_cb cb, void *arg, const char *label)
{
	if (cb)
		cb(m, label, arg);
}

static void apply(struct model *m, const struct op *op, step_cb cb, void *arg)
{
	const char *name, *name2;
	unsigned char *buf;
	int pid, pid2, id, id2, i, j;
	struct mnode *x;

	switch (op->kind) {
	case OP_MKDIR:
		pid = m_parent(m, op->a, &name);
		id = m_alloc(m, T_DIR, 0755);
		m->n[id].parent = pid;
		m_inherit(m, pid, id);
		d_add(&m->n[pid], name, id);
		m->n[pid].nlink++;
		step(m, cb, arg, "mkdir done");
		break;
	case OP_CREATE:
		pid = m_parent(m, op->a, &name);
		id = m_alloc(m, T_REG, 0644);
		/* the inherited ACLs commit before the name: one step */
		m_inherit(m, pid, id);
		d_add(&m->n[pid], name, id);
		step(m, cb, arg, "created empty");
		if (op->len) {
			buf = xmalloc(op->len);
			fill_data(buf, op->len, op->n);
			m_write(&m->n[id], 0, buf, op->len);
			free(buf);
			step(m, cb, arg, "data written");
		}
		break;
	case OP_APPEND:
	case OP_PWRITE:
	case OP_HOT:
		x = &m->n[m_lookup(m, op->a)];
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		m_write(x, op->kind == OP_APPEND ? x->size : op->off, buf, op->len);
		free(buf);
		step(m, cb, arg, "written");
		break;
	case OP_BIGWRITE:
		x = &m->n[m_lookup(m, op->a)];
		buf = xmalloc(BIGSIZE);
		fill_big(buf, op->len);
		m_write(x, 0, buf, BIGSIZE);
		free(buf);
		step(m, cb, arg, "written");
		break;
	case OP_MMAP:
		id = m_lookup(m, op->a);
		x = &m->n[id];
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		if (cb) {
			/* stores through the mapping: any mix of old and new */
			x->alt = xmalloc(x->size);
			memcpy(x->alt, x->data, x->size);
			memcpy(x->alt + op->off, buf, op->len);
			cb(m, "mmap stores partly done", arg);
			free(x->alt);
			x->alt = NULL;
		}
		memcpy(x->data + op->off, buf, op->len);
		free(buf);
		step(m, cb, arg, "mmap stores done");
		break;
	case OP_TRUNCATE:
		m_setsize(&m->n[m_lookup(m, op->a)], op->off);
		step(m, cb, arg, "truncated");
		break;
	case OP_FALLOC: {
		uint64_t end = op->off + op->len;

		/*
		 * one step: the copy-on-write mode these tests run in gives
		 * partial edge pages new blocks, committed with the rest
		 */
		id = m_lookup(m, op->a);
		x = &m->n[id];
		if (!(op->fl & FALLOC_FL_KEEP_SIZE) && end > x->size)
			m_setsize(x, end);
		if (op->fl & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
			uint64_t e = end < x->size ? end : x->size;

			if (op->off < e)
				memset(x->data + op->off, 0, e - op->off);
		}
		step(m, cb, arg, "fallocate committed");
		break;
	}
	case OP_SHIFT: {
		size_t old;

		/* one step: NOVA commits the new mapping with one tail store */
		x = &m->n[m_lookup(m, op->a)];
		old = x->size;
		if (op->fl == FALLOC_FL_COLLAPSE_RANGE) {
			memmove(x->data + op->off, x->data + op->off + op->len,
				old - op->off - op->len);
			m_setsize(x, old - op->len);
		} else {
			m_setsize(x, old + op->len);
			memmove(x->data + op->off + op->len, x->data + op->off, old - op->off);
			memset(x->data + op->off, 0, op->len);
		}
		step(m, cb, arg, op->fl == FALLOC_FL_COLLAPSE_RANGE ? "range collapsed" :
			   "range inserted");
		break;
	}
	case OP_TMPFILE:
		if (!op->fl) {
			/* an orphan from start to end: no visible change */
			step(m, cb, arg, "tmpfile closed unlinked (no change)");
			break;
		}
		/*
		 * the data is written before the link: the name comes with
		 * all of it, and the mode and ACLs of the directory it was
		 * made in
		 */
		id = m_alloc(m, T_REG, op->off);
		m_inherit(m, m_lookup(m, op->a), id);
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		m_write(&m->n[id], 0, buf, op->len);
		free(buf);
		pid = m_parent(m, op->b, &name);
		d_add(&m->n[pid], name, id);
		step(m, cb, arg, "tmpfile linked (with its data)");
		break;
	case OP_CLONE:
		/*
		 * one step (a new destination: its create first): at most
		 * CLONE_MAXP pages are one batch, committed with one tail
		 * store; the bytes are the source's, the size the larger of
		 * the destination's and the clone's end (bytes up to the
		 * source's EOF only when that is past the destination's)
		 */
		x = &m->n[m_lookup(m, op->a)];
		buf = xmalloc(op->len ? op->len : 1);
		if (op->len)
			memcpy(buf, x->data + op->off, op->len);
		if (op->fl & CL_NEW) {
			pid = m_parent(m, op->b, &name);
			id = m_alloc(m, T_REG, 0644);
			m_inherit(m, pid, id);
			d_add(&m->n[pid], name, id);
			step(m, cb, arg, "clone's destination created empty");
		} else {
			id = m_lookup(m, op->b);
		}
		if (op->len)
			m_write(&m->n[id], op->dst, buf, op->len);
		free(buf);
		step(m, cb, arg, "cloned");
		break;
	case OP_DEDUPE:
		/* equal ranges share blocks (or different ones are refused) */
		step(m, cb, arg, op->fl & DD_DIFFERS ? "dedupe refused (no change)" :
			   "deduped (no visible change)");
		break;
	case OP_CHMOD:
		x = &m->n[m_lookup(m, op->a)];
		x->mode = op->off;
		if (x_find(x, ACL_ACCESS) < 0) {
			step(m, cb, arg, "mode changed");
			break;
		}
		/*
		 * with an access ACL, NOVA's setattr commits the mode, then
		 * posix_acl_chmod() the ACL with the new mask: two commits
		 */
		step(m, cb, arg, "mode changed, its access ACL not yet (two commits)");
		m_acl_chmod(x);
		step(m, cb, arg, "mode changed, and its access ACL");
		break;
	case OP_FSYNC:
		step(m, cb, arg, "fsynced (no change)");
		break;
	case OP_CHOWN:
		x = &m->n[m_lookup(m, op->a)];
		x->uid = op->off;
		x->gid = op->len;
		/* a regular file loses set-user-ID (and set-group-ID if g+x) */
		if (x->type == T_REG)
			x->mode &= ~(04000 | ((x->mode & 010) ? 02000 : 0));
		step(m, cb, arg, "owner changed");
		break;
	case OP_UTIMES:
		x = &m->n[m_lookup(m, op->a)];
		x->mtime = op->off;
		x->has_mtime = 1;
		step(m, cb, arg, "times set");
		break;
	case OP_XSET:
		x = &m->n[m_lookup(m, op->a)];
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		x_set(x, op->b, buf, op->len);
		free(buf);
		step(m, cb, arg, "xattr set");
		break;
	case OP_XRM:
		x_del(&m->n[m_lookup(m, op->a)], op->b);
		step(m, cb, arg, "xattr removed");
		break;
	case OP_SETACL: {
		unsigned char abuf[4 + 8 * ACL_MAXE];
		struct acl a;

		x = &m->n[m_lookup(m, op->a)];
		if (acl_parse(op->b, &a))
			die("model: bad ACL %s", op->b);
		if (op->fl)
			x_set(x, ACL_DEFAULT, abuf, acl_to_xattr(&a, abuf));
		else
			m_set_access_acl(x, &a);
		step(m, cb, arg, op->fl ? "default ACL set" : "access ACL set (with the mode)");
		break;
	}
	case OP_UNLINK:
	case OP_UNLINKOPEN:
	case OP_RMDIR:
		pid = m_parent(m, op->a, &name);
		i = d_find(&m->n[pid], name);
		id = m->n[pid].ents[i].id;
		m_drop_name(m, pid, i);
		step(m, cb, arg, "removed");
		if (op->kind == OP_UNLINKOPEN && m->n[id].type == T_REG) {
			/* other names remain: the write through the fd shows */
			buf = xmalloc(PAGE);
			fill_data(buf, PAGE, op->n);
			m_write(&m->n[id], 0, buf, PAGE);
			free(buf);
			step(m, cb, arg, "written through the open fd");
		}
		break;
	case OP_SYMLINK:
		pid = m_parent(m, op->a, &name);
		id = m_alloc(m, T_LNK, 0777);
		m->n[id].target = xstrdup(op->b);
		d_add(&m->n[pid], name, id);
		step(m, cb, arg, "symlink created");
		break;
	case OP_LINK:
		id = m_lookup(m, op->a);
		pid = m_parent(m, op->b, &name);
		d_add(&m->n[pid], name, id);
		m->n[id].nlink++;
		step(m, cb, arg, "linked");
		break;
	case OP_RENAME:
		id = m_lookup(m, op->a);
		id2 = m_lookup(m, op->b);
		if (id == id2) {
			step(m, cb, arg, "renamed (same inode: no-op)");
			break;
		}
		pid2 = m_parent(m, op->b, &name2);
		if (id2 >= 0)
			m_drop_name(m, pid2, d_find(&m->n[pid2], name2));
		pid = m_parent(m, op->a, &name);
		d_del(&m->n[pid], d_find(&m->n[pid], name));
		d_add(&m->n[pid2], name2, id);
		if (m->n[id].type == T_DIR && pid != pid2) {
			m->n[pid].nlink--;
			m->n[pid2].nlink++;
			m->n[id].parent = pid2;
		}
		step(m, cb, arg, "renamed");
		break;
	case OP_EXCHANGE:
		pid = m_parent(m, op->a, &name);
		pid2 = m_parent(m, op->b, &name2);
		i = d_find(&m->n[pid], name);
		j = d_find(&m->n[pid2], name2);
		id = m->n[pid].ents[i].id;
		id2 = m->n[pid2].ents[j].id;
		m->n[pid].ents[i].id = id2;
		m->n[pid2].ents[j].id = id;
		if (pid != pid2) {
			if (m->n[id].type == T_DIR) {
				m->n[pid].nlink--;
				m->n[pid2].nlink++;
				m->n[id].parent = pid2;
			}
			if (m->n[id2].type == T_DIR) {
				m->n[pid2].nlink--;
				m->n[pid].nlink++;
				m->n[id2].parent = pid;
			}
		}
		step(m, cb, arg, "exchanged");
		break;
	}
}

/* ------------------------------------------------------------ generator */

/* P_EOF: no generated operations, a workload of its own (do_run_eof()) */
enum { P_MIXED, P_WRITE, P_NS, P_GC, P_XATTR, P_CRYPT, P_CLONE, P_N, P_EOF = P_N };
static const char *const profname[P_N + 1] = {
	"mixed", "write", "ns", "gc", "xattr", "crypt", "clone", "eof"
};

/*
 * weights per profile: OP_* kinds, then burst starts (bursts are long).
 * A kind of weight 0 leaves a profile's pick as it was: the operation
 * lists of ns and gc are those from before shift and tmpfile existed, and
 * those of every profile but clone from before clone and dedupe.
 */
static const int weights[P_N][W_N] = {
	/*           mkd  cre  app  pwr  big  hot  ren  exc  unl  rmd  lnk  sym  trn  fal  mma  uop  chm  xse  xrm  acl  shf  tmp  fsy  cho  uti  clo  ded  CHU HOT MAS */
	[P_MIXED] = { 40, 140,  80,  80,  60,  30,  70,  20,  70,  20,  40,  30,  50,  40,  30,  20,  20,  12,   4,   6,  10,  10,   0,   0,   0,   0,   0,   1,  1,  1 },
	/* data: writes, truncates, fallocate (collapse and insert too) */
	[P_WRITE] = { 10,  80, 120, 140, 120,  40,  10,   0,  30,   0,  10,   0, 100,  80,  60,  20,  10,   0,   0,   0,  40,   0,   0,   0,   0,   0,   0,   0,  2,  0 },
	[P_NS]    = { 80, 180,  10,  10,  10,   0, 140,  50, 100,  40,  80,  50,  10,   0,   0,  30,  20,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,  0,  3 },
	[P_GC]    = { 10,  40,  20,  20,  20,  10,  20,  10,  20,  10,  10,  10,  10,  10,  10,  10,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,  60, 60, 20 },
	/* xattrs and ACLs, with creates (tmpfiles too) in directories with
	 * default ACLs, chmod (the mask), renames, links, removals and a few
	 * hot bursts (GC of a log that holds attributes) */
	[P_XATTR] = { 40, 110,  10,  10,   5,   5,  30,  10,  40,  10,  20,  30,   5,   0,   0,  10,  40, 220,  60,  90,   0,  10,   0,   0,   0,   0,   0,   0,  1,  0 },
	/* mixed in an encrypted directory: no mmap, no shifts (EOPNOTSUPP) */
	[P_CRYPT] = { 40, 140,  80,  80,  60,  30,  70,  20,  70,  20,  40,  30,  50,  40,   0,  20,  20,  12,   4,   6,   0,  10,   0,   0,   0,   0,   0,   1,  1,  1 },
	/* data operations on files that share blocks: clones and dedupe,
	 * then writes, truncates, punches, shifts and stores through
	 * mappings on either copy (copy on write), unlinks of one; hot bursts
	 * (GC of a log with shared pages) */
	[P_CLONE] = { 10, 100,  50,  70,  20,  15,  25,   0,  50,   0,  10,   0,  40,  40,  25,  10,   0,   0,   0,   0,  10,   0,   0,   0,   0, 120,  50,   0,  1,  0 },
};

struct gen {
	uint64_t rng;
	int profile;
	unsigned n;		/* next op number */
	unsigned bigk;
	int burst, left, phase;
	int scatter;		/* this burst keeps live entries scattered */
	unsigned bursts[3];	/* bursts started, per kind */
	char pend[MAXP];
	/* the last clones (profile clone): the ranges dedupe mostly takes */
	struct {
		char a[MAXP], b[MAXP];
		uint64_t off, dst, len;
	} clones[8];
	unsigned nclones;
};

/* the setup operations every workload starts with */
static const char *const setup_ops[] = {
	"mkdir d0", "mkdir d1", "mkdir churn", "mkdir many",
	"create big", "bigwrite", "create hot",
};
#define NSETUP (sizeof(setup_ops) / sizeof(setup_ops[0]))

static uint64_t rnd(struct gen *g, uint64_t n)
{
	return n ? splitmix64(&g->rng) % n : 0;
}

struct plist {
	char **p;
	int n, cap;
};

static void pl_add(struct plist *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->p = xrealloc(l->p, l->cap * sizeof(*l->p));
	}
	l->p[l->n++] = xstrdup(s);
}

static void pl_free(struct plist *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->p[i]);
	free(l->p);
	memset(l, 0, sizeof(*l));
}

struct lists {
	struct plist files;	/* regular files (every name), not big/hot/churn */
	struct plist syms;
	struct plist dirs;	/* where new names may go (root included) */
	struct plist mdirs;	/* movable/removable directories */
	struct plist edirs;	/* empty movable directories */
};

static int special(const char *p)
{
	return !strcmp(p, "big") || !strcmp(p, "hot") || !strcmp(p, "churn") ||
	       !strcmp(p, "many") || !strncmp(p, "churn/", 6);
}

static int depth_of(const char *p)
{
	int d = *p ? 1 : 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

static void collect(const struct model *m, int id, const char *path, struct lists *l)
{
	const struct mnode *d = &m->n[id];
	char sub[MAXP];
	int i;

	for (i = 0; i < d->nents; i++) {
		const struct mnode *x = &m->n[d->ents[i].id];

		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "", d->ents[i].name);
		if (special(sub) && strcmp(sub, "many"))
			continue;
		if (x->type == T_REG) {
			pl_add(&l->files, sub);
		} else if (x->type == T_LNK) {
			pl_add(&l->syms, sub);
		} else if (x->type == T_DIR) {
			if (depth_of(sub) < MAXDEPTH)
				pl_add(&l->dirs, sub);
			if (strcmp(sub, "many")) {
				pl_add(&l->mdirs, sub);
				if (!x->nents)
					pl_add(&l->edirs, sub);
			}
			collect(m, d->ents[i].id, sub, l);
		}
	}
}

static void lists_free(struct lists *l)
{
	pl_free(&l->files);
	pl_free(&l->syms);
	pl_free(&l->dirs);
	pl_free(&l->mdirs);
	pl_free(&l->edirs);
}

static const char *pick(struct gen *g, const struct plist *l)
{
	return l->n ? l->p[rnd(g, l->n)] : NULL;
}

/* a new name in directory @dir */
static void new_name(struct gen *g, char *out, const char *dir, const char *kind)
{
	static const char *const tails[] = { "", "-x", "-long-name-for-a-bigger-dentry",
					     "-q", "-abcdefghijklmnopqrstuvwxyz" };

	snprintf(out, MAXP, "%s%s%s%u%s", dir, *dir ? "/" : "", kind, g->n,
		 tails[rnd(g, 5)]);
}

static int is_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(p, dir, n) && (p[n] == '/' || p[n] == 0);
}

static uint64_t rnd_len(struct gen *g)
{
	switch (rnd(g, 8)) {
	case 0: return 0;
	case 1: case 2: case 3: return 1 + rnd(g, 3000);
	case 4: case 5: return 1 + rnd(g, 16384);
	case 6: return PAGE * (1 + rnd(g, 8));
	default: return 1 + rnd(g, 65536);
	}
}

/*
 * The inode an xattr operation targets: a file (sometimes "hot", whose
 * log the hot bursts make the GC rewrite), a movable directory or (with
 * @syms) a symlink.  Its path goes to op->a.
 */
static int xa_target(struct gen *g, const struct model *m, const struct lists *l,
		     int syms, struct op *op, const struct mnode **x)
{
	const char *s;
	uint64_t r = rnd(g, 20);

	if (r < 11)
		s = pick(g, &l->files);
	else if (r < 16)
		s = pick(g, &l->mdirs);
	else if (r < 19)
		s = syms ? pick(g, &l->syms) : pick(g, &l->files);
	else
		s = "hot";
	if (!s)
		return 0;
	snprintf(op->a, MAXP, "%s", s);
	*x = &m->n[m_lookup(m, s)];
	return 1;
}

/* value sizes: empty, small, around one part, several parts, 64 KiB */
static uint64_t xa_len(struct gen *g)
{
	uint64_t r = rnd(g, 20);

	if (r < 2)
		return 0;
	if (r < 8)
		return 1 + rnd(g, 100);
	if (r < 13)
		return 1 + rnd(g, 2200);
	if (r < 17)
		return 2000 + rnd(g, 14000);
	if (r < 19)
		return 16000 + rnd(g, 65536 - 16000 + 1);
	return 65536;
}

static void xa_new_name(struct gen *g, char *out, int is_lnk)
{
	static const char *const ns[] = { "user.", "trusted.", "security." };
	const char *pre = is_lnk ? ns[1 + rnd(g, 2)] :
			  ns[rnd(g, 20) < 12 ? 0 : rnd(g, 3) ? 1 : 2];
	size_t n, want;

	n = snprintf(out, MAXP, "%sx%u", pre, g->n);
	switch (rnd(g, 6)) {
	case 0: want = 255; break;		/* XATTR_NAME_MAX */
	case 1: want = n + 1 + rnd(g, 255 - n); break;
	case 2: snprintf(out + n, MAXP - n, ".with.dots"); return;
	default: return;
	}
	out[n++] = '-';
	while (n < want) {
		out[n] = 'a' + n % 26;
		n++;
	}
	out[n] = 0;
}

/* the ACL: owner, named users and groups, mask, other */
static void xa_acl_text(struct gen *g, char *out, int minimal)
{
	static const char *const p[] = { "---", "--x", "-w-", "-wx", "r--", "r-x", "rw-", "rwx" };
	size_t n = 0;
	int named = 0;

	n += snprintf(out + n, MAXP - n, "u::%s", p[rnd(g, 8)]);
	if (!minimal) {
		if (rnd(g, 4))
			n += snprintf(out + n, MAXP - n, ",u:%u:%s", 1001 + (unsigned)rnd(g, 2), p[rnd(g, 8)]), named++;
		if (rnd(g, 3) == 0)
			n += snprintf(out + n, MAXP - n, ",u:1003:%s", p[rnd(g, 8)]), named++;
	}
	n += snprintf(out + n, MAXP - n, ",g::%s", p[rnd(g, 8)]);
	if (!minimal && (rnd(g, 3) == 0 || !named))
		n += snprintf(out + n, MAXP - n, ",g:%u:%s", 2001 + (unsigned)rnd(g, 2), p[rnd(g, 8)]);
	if (!minimal)
		n += snprintf(out + n, MAXP - n, ",m::%s", p[rnd(g, 8)]);
	snprintf(out + n, MAXP - n, ",o::%s", p[rnd(g, 8)]);
}

static int build_xattr(struct gen *g, const struct model *m, const struct lists *l,
		       int k, struct op *op)
{
	const struct mnode *x;
	int i, nx = 0, idx[64];

	if (k == OP_SETACL) {
		if (!xa_target(g, m, l, 0, op, &x))
			return 0;
		op->fl = x->type == T_DIR && rnd(g, 2);
		/* an access ACL equal to a mode only sets the mode */
		xa_acl_text(g, op->b, !op->fl && rnd(g, 4) == 0);
		return 1;
	}
	if (!xa_target(g, m, l, 1, op, &x))
		return 0;
	for (i = 0; i < x->nxa && nx < 64; i++)
		if (k == OP_XRM || !is_acl_name(x->xa[i].name))
			idx[nx++] = i;
	if (k == OP_XRM) {
		if (!nx)
			return 0;
		snprintf(op->b, MAXP, "%s", x->xa[idx[rnd(g, nx)]].name);
		return 1;
	}
	if (nx && (nx >= XA_MAX_NAMES || rnd(g, 2))) {
		snprintf(op->b, MAXP, "%s", x->xa[idx[rnd(g, nx)]].name);
		op->fl = rnd(g, 3) ? 0 : XATTR_REPLACE;
	} else {
		xa_new_name(g, op->b, x->type == T_LNK);
		if (x_find(x, op->b) >= 0)
			return 0;
		op->fl = rnd(g, 3) ? 0 : XATTR_CREATE;
	}
	op->len = xa_len(g);
	return 1;
}

/* The file of a clone or dedupe: a regular file, or "big" or "hot" */
static const char *pick_data(struct gen *g, const struct lists *l)
{
	switch (rnd(g, 10)) {
	case 8: return "big";
	case 9: return "hot";
	default: return pick(g, &l->files);
	}
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * clone: FICLONE of a whole file (at most CLONE_MAXP pages) into a new
 * one, or FICLONERANGE of at most CLONE_MAXP pages from a page of the
 * source up to the end of a page or of the source (its EOF) onto a page
 * of a new file, of another or of the same one.  The kernel's rules
 * (generic_remap_checks(), generic_remap_check_len()): a range that ends
 * at the source's partial last page must end at or past the
 * destination's EOF, and one file's two ranges may not overlap.
 */
static int build_clone(struct gen *g, const struct model *m, const struct lists *l,
		       struct op *op)
{
	const struct mnode *x, *y;
	uint64_t pages, sp, n, dp;
	const char *s, *t;
	unsigned h;

	if (!(s = pick_data(g, l)))
		return 0;
	x = &m->n[m_lookup(m, s)];
	snprintf(op->a, MAXP, "%s", s);
	pages = (x->size + PAGE - 1) / PAGE;
	switch (rnd(g, 8)) {
	case 0:
		if (pages > CLONE_MAXP)
			return 0;
		op->fl = CL_NEW | CL_WHOLE;
		t = pick(g, &l->dirs);
		new_name(g, op->b, t ? t : "", "c");
		op->len = x->size;
		goto done;
	case 1:
		t = s;			/* within the file */
		break;
	case 2: case 3:
		op->fl = CL_NEW;
		t = NULL;
		break;
	default:
		if (!(t = pick_data(g, l)))
			return 0;
		break;
	}
	if (!pages)
		return 0;
	sp = rnd(g, pages);
	n = 1 + rnd(g, min_u64(CLONE_MAXP, pages - sp));
	op->off = sp * PAGE;
	op->len = sp + n == pages ? x->size - op->off : n * PAGE;
	if (op->fl & CL_NEW) {
		dp = rnd(g, 4) ? 0 : rnd(g, 8);
		t = pick(g, &l->dirs);
		new_name(g, op->b, t ? t : "", "c");
	} else {
		y = &m->n[m_lookup(m, t)];
		dp = rnd(g, (y->size + PAGE - 1) / PAGE + 4);
		/* a partial last page: to the destination's EOF or past it */
		if (op->len % PAGE && dp * PAGE + op->len < y->size)
			dp = (y->size - op->len + PAGE - 1) / PAGE;
		if (y == x && dp < sp + n && sp < dp + n)
			return 0;	/* overlapping ranges: EINVAL */
		snprintf(op->b, MAXP, "%s", t);
	}
	op->dst = dp * PAGE;
	if (op->dst + n * PAGE > FILE_CAP)
		return 0;
done:
	h = g->nclones++ % 8;
	snprintf(g->clones[h].a, MAXP, "%s", op->a);
	snprintf(g->clones[h].b, MAXP, "%s", op->b);
	g->clones[h].off = op->off;
	g->clones[h].dst = op->dst;
	g->clones[h].len = op->len;
	return 1;
}

/*
 * dedupe: one of the last clones' ranges (or whole pages of it), equal
 * unless written since, or random ranges of two files or of one, mostly
 * different; both within their files' EOF.  The length is what the
 * kernel dedupes (generic_remap_checks(): a partial last page only when
 * both ranges end at their EOF, else whole pages), and the model says
 * whether the bytes are equal.
 */
static int build_dedupe(struct gen *g, const struct model *m, const struct lists *l,
			struct op *op)
{
	const struct mnode *x, *y;
	uint64_t k, n;
	int ida, idb;

	if (g->nclones && rnd(g, 3)) {
		unsigned h = rnd(g, g->nclones < 8 ? g->nclones : 8);

		snprintf(op->a, MAXP, "%s", g->clones[h].a);
		snprintf(op->b, MAXP, "%s", g->clones[h].b);
		op->off = g->clones[h].off;
		op->dst = g->clones[h].dst;
		op->len = g->clones[h].len;
		n = (op->len + PAGE - 1) / PAGE;
		if (n > 1 && rnd(g, 2)) {
			/* whole pages of it */
			k = rnd(g, n);
			op->off += k * PAGE;
			op->dst += k * PAGE;
			op->len = min_u64(op->len - k * PAGE, (1 + rnd(g, n - k)) * PAGE);
		}
	} else {
		const char *s = pick_data(g, l), *t = rnd(g, 4) ? pick_data(g, l) : s;

		if (!s || !t)
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		snprintf(op->b, MAXP, "%s", t);
		x = &m->n[m_lookup(m, s)];
		y = &m->n[m_lookup(m, t)];
		if (!x->size || !y->size)
			return 0;
		op->off = rnd(g, (x->size + PAGE - 1) / PAGE) * PAGE;
		op->dst = rnd(g, (y->size + PAGE - 1) / PAGE) * PAGE;
		op->len = (1 + rnd(g, CLONE_MAXP)) * PAGE;
	}
	/* both still there (a clone's names may be gone), regular files */
	ida = m_lookup(m, op->a);
	idb = m_lookup(m, op->b);
	if (ida < 0 || idb < 0 || m->n[ida].type != T_REG || m->n[idb].type != T_REG)
		return 0;
	x = &m->n[ida];
	y = &m->n[idb];
	if (op->off >= x->size || op->dst >= y->size)
		return 0;
	op->len = min_u64(op->len, min_u64(x->size - op->off, y->size - op->dst));
	if (op->len % PAGE && !(op->off + op->len == x->size && op->dst + op->len == y->size))
		op->len &= ~(uint64_t)(PAGE - 1);
	if (!op->len)
		return 0;
	n = (op->len + PAGE - 1) / PAGE;
	if (ida == idb && op->dst < op->off + n * PAGE && op->off < op->dst + n * PAGE)
		return 0;	/* overlapping ranges of one file: EINVAL */
	if (memcmp(x->data + op->off, y->data + op->dst, op->len))
		op->fl = DD_DIFFERS;
	return 1;
}

/* Build an operation of kind @k; 0 when the state allows none */
static int build(struct gen *g, const struct model *m, struct lists *l, int k,
		 struct op *op)
{
	const char *s, *t;
	const struct mnode *x;
	int id;

	op->kind = k;
	switch (k) {
	case OP_MKDIR:
		s = pick(g, &l->dirs);
		if (!s)
			s = "";
		if (is_under(s, "many") && rnd(g, 2))
			s = "";
		new_name(g, op->a, s, "d");
		return 1;
	case OP_CREATE:
		s = pick(g, &l->dirs);
		new_name(g, op->a, s ? s : "", "f");
		op->len = rnd_len(g);
		return 1;
	case OP_APPEND:
		if (!(s = pick(g, &l->files)))
			return 0;
		x = &m->n[m_lookup(m, s)];
		op->len = 1 + rnd(g, rnd(g, 4) ? 3000 : 12000);
		if (x->size + op->len > FILE_CAP)
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_PWRITE:
		if (!(s = pick(g, &l->files)))
			return 0;
		x = &m->n[m_lookup(m, s)];
		op->off = rnd(g, x->size + 8192);
		if (rnd(g, 3) == 0)
			op->off &= ~(uint64_t)(PAGE - 1);
		op->len = 1 + rnd(g, rnd(g, 3) ? 6000 : 20000);
		if (op->off + op->len > FILE_CAP)
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_BIGWRITE:
		snprintf(op->a, MAXP, "big");
		op->len = ++g->bigk;
		return 1;
	case OP_HOT:
		snprintf(op->a, MAXP, "hot");
		op->len = PAGE;
		op->off = 0;
		return 1;
	case OP_RENAME:
		if (rnd(g, 4) == 0) {
			/* a directory, possibly over an empty one */
			if (!(s = pick(g, &l->mdirs)))
				return 0;
			if (rnd(g, 3) == 0 && (t = pick(g, &l->edirs)) &&
			    !is_under(t, s) && !is_under(s, t)) {
				snprintf(op->b, MAXP, "%s", t);
			} else {
				t = pick(g, &l->dirs);
				if (!t || is_under(t, s))
					t = "";
				new_name(g, op->b, t, "r");
			}
			if (depth_of(op->b) + 2 > MAXDEPTH + 2)
				return 0;
		} else {
			s = rnd(g, 6) ? pick(g, &l->files) : pick(g, &l->syms);
			if (!s)
				return 0;
			if (rnd(g, 3) == 0 && (t = pick(g, &l->files)) && strcmp(s, t)) {
				snprintf(op->b, MAXP, "%s", t);	/* replace a file */
			} else {
				t = pick(g, &l->dirs);
				new_name(g, op->b, t ? t : "", "r");
			}
		}
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_EXCHANGE:
		s = rnd(g, 3) ? pick(g, &l->files) : pick(g, &l->mdirs);
		t = rnd(g, 3) ? pick(g, &l->files) : pick(g, &l->mdirs);
		if (!s || !t || !strcmp(s, t) || is_under(s, t) || is_under(t, s))
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		snprintf(op->b, MAXP, "%s", t);
		return 1;
	case OP_UNLINK:
	case OP_UNLINKOPEN:
		s = (k == OP_UNLINK && rnd(g, 5) == 0) ? pick(g, &l->syms) : pick(g, &l->files);
		if (!s)
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_RMDIR:
		if (!(s = pick(g, &l->edirs)))
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_LINK:
		if (!(s = pick(g, &l->files)))
			return 0;
		t = pick(g, &l->dirs);
		new_name(g, op->b, t ? t : "", "l");
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_SYMLINK:
		s = pick(g, &l->dirs);
		new_name(g, op->a, s ? s : "", "s");
		t = pick(g, &l->files);
		if (t && rnd(g, 2))
			snprintf(op->b, MAXP, "/%s", t);
		else
			snprintf(op->b, MAXP, "target-%u-%llx", g->n,
				 (unsigned long long)rnd(g, 1ULL << 40));
		return 1;
	case OP_TRUNCATE:
		if (!(s = pick(g, &l->files)))
			return 0;
		x = &m->n[m_lookup(m, s)];
		switch (rnd(g, 4)) {
		case 0: op->off = 0; break;
		case 1: op->off = rnd(g, x->size + 1); break;
		case 2: op->off = x->size + rnd(g, 20000); break;
		default: op->off = rnd(g, x->size + 1) & ~(uint64_t)(PAGE - 1); break;
		}
		if (op->off > FILE_CAP)
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_FALLOC: {
		static const int modes[] = {
			0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_ZERO_RANGE, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
			FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		};

		if (!(s = pick(g, &l->files)))
			return 0;
		x = &m->n[m_lookup(m, s)];
		op->fl = modes[rnd(g, 6)];
		op->off = rnd(g, x->size + 8192);
		op->len = 1 + rnd(g, 24000);
		if (rnd(g, 2)) {
			op->off &= ~(uint64_t)(PAGE - 1);
			op->len = PAGE * (1 + op->len / (4 * PAGE));
		}
		if (op->off + op->len > FILE_CAP)
			return 0;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	}
	case OP_MMAP:
		if (!(s = pick(g, &l->files)))
			return 0;
		x = &m->n[m_lookup(m, s)];
		if (!x->size)
			return 0;
		op->off = rnd(g, x->size);
		op->len = 1 + rnd(g, x->size - op->off < 9000 ? x->size - op->off : 9000);
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	case OP_SHIFT: {
		uint64_t pages;

		s = pick(g, &l->files);
		if (!s)
			return 0;
		x = &m->n[m_lookup(m, s)];
		if (!x->size)
			return 0;
		/* whole pages before the page of the last byte */
		pages = (x->size - 1) / PAGE;
		if (rnd(g, 2)) {
			/* collapse: the range ends before EOF (strictly) */
			if (!pages)
				return 0;
			op->fl = FALLOC_FL_COLLAPSE_RANGE;
			op->len = 1 + rnd(g, pages < 8 ? pages : 8);
			op->off = rnd(g, pages - op->len + 1);
		} else {
			/* insert: from a page that starts before EOF */
			op->fl = FALLOC_FL_INSERT_RANGE;
			op->len = 1 + rnd(g, rnd(g, 4) ? 4 : 16);
			op->off = rnd(g, pages + 1);
			if (x->size + op->len * PAGE > FILE_CAP)
				return 0;
		}
		op->off *= PAGE;
		op->len *= PAGE;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	}
	case OP_TMPFILE: {
		static const unsigned modes[] = { 0644, 0600, 0640, 0664 };

		s = pick(g, &l->dirs);
		snprintf(op->a, MAXP, "%s", s ? s : "");
		op->off = modes[rnd(g, 4)];
		op->len = rnd_len(g);
		op->fl = rnd(g, 2);
		if (op->fl) {
			/* mostly into the directory it was made in */
			t = rnd(g, 3) ? op->a : pick(g, &l->dirs);
			new_name(g, op->b, t ? t : "", "t");
		}
		return 1;
	}
	case OP_CLONE:
		return build_clone(g, m, l, op);
	case OP_DEDUPE:
		return build_dedupe(g, m, l, op);
	case OP_XSET:
	case OP_XRM:
	case OP_SETACL:
		return build_xattr(g, m, l, k, op);
	case OP_CHMOD: {
		static const unsigned modes[] = { 0600, 0644, 0755, 0700, 0640, 0444 };

		s = rnd(g, 4) ? pick(g, &l->files) : pick(g, &l->mdirs);
		if (!s)
			return 0;
		id = m_lookup(m, s);
		op->off = modes[rnd(g, 6)];
		if (m->n[id].type == T_DIR)
			op->off |= 0700;
		snprintf(op->a, MAXP, "%s", s);
		return 1;
	}
	}
	return 0;
}

static void gen_init(struct gen *g, int profile)
{
	memset(g, 0, sizeof(*g));
	g->rng = g_seed ^ 0x5eed5eed5eed5eedULL;
	g->profile = profile;
	g->n = 1;
}

/* The next operation, a function of the generator and the model only */
static void gen_next(struct gen *g, const struct model *m, struct op *op)
{
	struct lists l;
	int k, tries;
	unsigned nb;

	memset(op, 0, sizeof(*op));
	op->n = g->n;
	if (g->n <= NSETUP) {
		const char *s = setup_ops[g->n - 1];

		if (!strncmp(s, "mkdir ", 6)) {
			op->kind = OP_MKDIR;
			snprintf(op->a, MAXP, "%s", s + 6);
		} else if (!strcmp(s, "create big")) {
			op->kind = OP_CREATE;
			snprintf(op->a, MAXP, "big");
		} else if (!strcmp(s, "bigwrite")) {
			op->kind = OP_BIGWRITE;
			snprintf(op->a, MAXP, "big");
			op->len = ++g->bigk;
		} else {
			op->kind = OP_CREATE;
			snprintf(op->a, MAXP, "hot");
			op->len = PAGE;
		}
		g->n++;
		return;
	}

	if (g->burst) {
		g->left--;
		switch (g->burst) {
		case B_CHURN:
			if (g->phase == 0) {
				op->kind = OP_CREATE;
				snprintf(op->a, MAXP, "churn/churn-entry-with-a-longer-name-%u", g->n);
				snprintf(g->pend, MAXP, "%s", op->a);
				op->len = rnd(g, 4) ? 0 : 1 + rnd(g, 200);
			} else if (!g->scatter || rnd(g, 8)) {
				op->kind = OP_UNLINK;
				snprintf(op->a, MAXP, "%s", g->pend);
			} else {
				/*
				 * a scattering burst keeps one in eight under a
				 * new name: the log pages then hold live entries
				 * among dead ones, which only a thorough GC
				 * reclaims (the other bursts leave whole pages
				 * dead, for the fast GC)
				 */
				op->kind = OP_RENAME;
				snprintf(op->a, MAXP, "%s", g->pend);
				snprintf(op->b, MAXP, "churn/kept-%u", g->n);
			}
			g->phase ^= 1;
			if (g->left <= 0 && g->phase == 0)
				g->burst = 0;
			else if (g->left <= 0)
				g->left = 1;	/* finish the pair */
			break;
		case B_HOT:
			op->kind = OP_HOT;
			snprintf(op->a, MAXP, "hot");
			op->len = PAGE;
			/*
			 * a scattering burst writes one in eight to pages
			 * 1..15: their live entries stay scattered over the
			 * log pages, past what a fast GC can free, so the log
			 * needs a thorough GC
			 */
			if (g->scatter && !rnd(g, 8))
				op->off = PAGE * (1 + rnd(g, 15));
			if (g->left <= 0)
				g->burst = 0;
			break;
		case B_MASS: {
			const struct mnode *many = &m->n[m_lookup(m, "many")];
			int i, files = 0;

			for (i = 0; i < many->nents; i++)
				files += m->n[many->ents[i].id].type == T_REG;
			if (g->phase == 0) {
				op->kind = OP_CREATE;
				snprintf(op->a, MAXP, "many/m%u", g->n);
				op->len = rnd(g, 2) ? 0 : 1 + rnd(g, 5000);
				if (g->left <= 0) {
					g->phase = 1;
					g->left = files / 2;
				}
			} else {
				for (i = 0; i < many->nents; i++) {
					int j = (i + rnd(g, many->nents)) % many->nents;

					if (m->n[many->ents[j].id].type == T_REG) {
						op->kind = OP_UNLINK;
						snprintf(op->a, MAXP, "many/%s", many->ents[j].name);
						break;
					}
				}
				if (i == many->nents) {
					op->kind = OP_CREATE;
					snprintf(op->a, MAXP, "many/m%u", g->n);
				}
				if (g->left <= 0)
					g->burst = 0;
			}
			break;
		}
		}
		g->n++;
		return;
	}

	memset(&l, 0, sizeof(l));
	pl_add(&l.dirs, "");
	collect(m, 0, "", &l);
	for (tries = 0; tries < 20; tries++) {
		const int *w = weights[g->profile];
		int total = 0, r;

		for (k = 0; k < W_N; k++)
			total += w[k];
		r = rnd(g, total);
		for (k = 0; k < W_N && r >= w[k]; k++)
			r -= w[k];
		if (k >= OP_NK) {
			g->burst = k;
			g->phase = 0;
			/*
			 * churn: every other burst, from the second; hot:
			 * every third (the plain ones are what the fast GC
			 * needs)
			 */
			nb = g->bursts[k - OP_NK]++;
			g->scatter = k == B_HOT ? nb % 3 == 2 : nb % 2 == 1;
			switch (k) {
			case B_CHURN: g->left = 2 * (80 + rnd(g, 80)); break;
			case B_HOT:
				/*
				 * a plain one fills 4 or more log pages with
				 * dead entries, which the fast GC frees
				 */
				g->left = g->scatter ? 100 + rnd(g, 150) :
					  250 + rnd(g, 150);
				break;
			default: g->left = 40 + rnd(g, 50); break;
			}
			lists_free(&l);
			gen_next(g, m, op);
			return;
		}
		memset(op, 0, sizeof(*op));
		op->n = g->n;
		if (build(g, m, &l, k, op))
			break;
	}
	if (tries == 20) {
		memset(op, 0, sizeof(*op));
		op->n = g->n;
		build(g, m, &l, OP_CREATE, op);
	}
	lists_free(&l);
	g->n++;
}

/* ------------------------------------------------------------ run */

#define DIRMAX	256	/* the directory under test */
#define FULLP	(DIRMAX + MAXP + 2)
static char g_dir[DIRMAX];
static int g_profile = -1;	/* of the workload being run or verified */

static void full(char *out, const char *rel)
{
	snprintf(out, FULLP, "%s%s%s", g_dir, *rel ? "/" : "", rel);
}

/* a SIGBUS in accesses through a mapping: reported, not the end of the program */
static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* memcpy() to a mapping: 0, or -1 on a SIGBUS */
static int store_mapped(void *to, const void *from, size_t len)
{
	signal(SIGBUS, on_sigbus);
	if (sigsetjmp(bus_jmp, 1)) {
		signal(SIGBUS, SIG_DFL);
		return -1;
	}
	memcpy(to, from, len);
	signal(SIGBUS, SIG_DFL);
	return 0;
}

static int write_all(int fd, const unsigned char *buf, size_t len, off_t off, int append)
{
	ssize_t r = append ? write(fd, buf, len) : pwrite(fd, buf, len, off);

	if (r < 0)
		return -1;
	if ((size_t)r != len) {
		errno = EIO;	/* one call must do it all (atomicity) */
		return -1;
	}
	return 0;
}

/*
 * The block (byte offset on the device, FIEMAP) of each of pages [pg,
 * pg + n) of @fd, 0 for a hole; 0 or -1 (errno set)
 */
static int fiemap_pages(int fd, uint64_t pg, unsigned n, uint64_t *phys)
{
	enum { NEXT = 2 * CLONE_MAXP + 2 };
	struct fiemap *fm = xmalloc(sizeof(*fm) + NEXT * sizeof(struct fiemap_extent));
	unsigned i, e;

	memset(fm, 0, sizeof(*fm) + NEXT * sizeof(struct fiemap_extent));
	fm->fm_start = pg * PAGE;
	fm->fm_length = (uint64_t)n * PAGE;
	fm->fm_extent_count = NEXT;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
		free(fm);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t pos = (pg + i) * PAGE;

		phys[i] = 0;
		for (e = 0; e < fm->fm_mapped_extents; e++) {
			const struct fiemap_extent *x = &fm->fm_extents[e];

			if (pos >= x->fe_logical && pos < x->fe_logical + x->fe_length)
				phys[i] = x->fe_physical + (pos - x->fe_logical);
		}
	}
	free(fm);
	return 0;
}

/*
 * After a clone or a dedupe of equal ranges: each page of the
 * destination's range maps the block of the source's page (no data block
 * taken), or both are holes.  0, or -1 with errno EIO and @msg.
 */
static int check_shared(int sfd, uint64_t off, int dfd, uint64_t dst, uint64_t len,
			char *msg, size_t sz)
{
	unsigned n = (len + PAGE - 1) / PAGE, i;
	uint64_t ps[CLONE_MAXP], pd[CLONE_MAXP];

	if (!n)
		return 0;	/* FICLONE of an empty file */
	if (n > CLONE_MAXP) {
		snprintf(msg, sz, "check_shared: %u pages", n);
		errno = EINVAL;
		return -1;
	}
	if (fiemap_pages(sfd, off / PAGE, n, ps) || fiemap_pages(dfd, dst / PAGE, n, pd)) {
		snprintf(msg, sz, "ioctl(FS_IOC_FIEMAP)");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (ps[i] == pd[i])
			continue;
		snprintf(msg, sz, "FIEMAP: destination page %llu on block %#llx, "
			 "the source's page %llu on %#llx (not shared)",
			 (unsigned long long)(dst / PAGE + i), (unsigned long long)pd[i],
			 (unsigned long long)(off / PAGE + i), (unsigned long long)ps[i]);
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Execute @op on the real file system; 0 or -1 with a message */
static int execute(const struct op *op)
{
	char a[FULLP], b[FULLP], what[192] = "", msg[160] = "";
	unsigned char *buf = NULL;
	int fd = -1, fd2 = -1, ret = -1;
	struct stat st;
	void *p;

	full(a, op->a);
	full(b, op->b);
#define TRY(call, name) do { if ((call) < 0) { snprintf(what, sizeof(what), "%s", name); goto out; } } while (0)
	switch (op->kind) {
	case OP_MKDIR:
		TRY(mkdir(a, 0755), "mkdir");
		break;
	case OP_CREATE:
		TRY(fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644), "open(O_CREAT|O_EXCL)");
		if (op->len) {
			buf = xmalloc(op->len);
			fill_data(buf, op->len, op->n);
			TRY(write_all(fd, buf, op->len, 0, 0), "write");
		}
		break;
	case OP_APPEND:
		TRY(fd = open(a, O_WRONLY | O_APPEND), "open(O_APPEND)");
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		TRY(write_all(fd, buf, op->len, 0, 1), "write");
		TRY(fsync(fd), "fsync");
		break;
	case OP_PWRITE:
	case OP_HOT:
		TRY(fd = open(a, O_WRONLY), "open");
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		TRY(write_all(fd, buf, op->len, op->off, 0), "pwrite");
		break;
	case OP_BIGWRITE:
		TRY(fd = open(a, O_WRONLY), "open");
		buf = xmalloc(BIGSIZE);
		fill_big(buf, op->len);
		TRY(write_all(fd, buf, BIGSIZE, 0, 0), "pwrite(64 KiB)");
		break;
	case OP_MMAP:
		TRY(fd = open(a, O_RDWR), "open");
		TRY(fstat(fd, &st), "fstat");
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			snprintf(what, sizeof(what), "mmap");
			goto out;
		}
		if (store_mapped((char *)p + op->off, buf, op->len)) {
			errno = EFAULT;
			snprintf(what, sizeof(what), "a store through the mapping (SIGBUS)");
			munmap(p, st.st_size);
			goto out;
		}
		if (msync(p, st.st_size, MS_SYNC) < 0) {
			snprintf(what, sizeof(what), "msync");
			munmap(p, st.st_size);
			goto out;
		}
		TRY(munmap(p, st.st_size), "munmap");
		break;
	case OP_TRUNCATE:
		TRY(truncate(a, op->off), "truncate");
		break;
	case OP_FALLOC:
		TRY(fd = open(a, O_WRONLY), "open");
		TRY(fallocate(fd, op->fl, op->off, op->len), "fallocate");
		break;
	case OP_SHIFT:
		TRY(fd = open(a, O_WRONLY), "open");
		TRY(fallocate(fd, op->fl, op->off, op->len),
		    op->fl == FALLOC_FL_COLLAPSE_RANGE ? "fallocate(COLLAPSE_RANGE)" :
		    "fallocate(INSERT_RANGE)");
		break;
	case OP_TMPFILE:
		TRY(fd = open(a, O_TMPFILE | O_RDWR, op->off), "open(O_TMPFILE)");
		if (op->len) {
			buf = xmalloc(op->len);
			fill_data(buf, op->len, op->n);
			TRY(write_all(fd, buf, op->len, 0, 0), "write");
		}
		if (!op->fl)
			break;	/* close: the inode goes at eviction */
		/*
		 * AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH (ENOENT without);
		 * /proc/self/fd is the unprivileged way
		 */
		if (linkat(fd, "", AT_FDCWD, b, AT_EMPTY_PATH) < 0) {
			char proc[64];

			if (errno != ENOENT && errno != EPERM) {
				snprintf(what, sizeof(what), "linkat(AT_EMPTY_PATH)");
				goto out;
			}
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
			TRY(linkat(AT_FDCWD, proc, AT_FDCWD, b, AT_SYMLINK_FOLLOW),
			    "linkat(/proc/self/fd, AT_SYMLINK_FOLLOW)");
		}
		break;
	case OP_CLONE:
		TRY(fd2 = open(a, O_RDONLY), "open(the source)");
		TRY(fd = open(b, op->fl & CL_NEW ? O_CREAT | O_EXCL | O_WRONLY : O_WRONLY, 0644),
		    op->fl & CL_NEW ? "open(O_CREAT|O_EXCL)" : "open(the destination)");
		if (op->fl & CL_WHOLE) {
			TRY(ioctl(fd, FICLONE, fd2), "ioctl(FICLONE)");
		} else {
			struct file_clone_range cr = {
				.src_fd = fd2, .src_offset = op->off, .src_length = op->len,
				.dest_offset = op->dst,
			};

			TRY(ioctl(fd, FICLONERANGE, &cr), "ioctl(FICLONERANGE)");
		}
		TRY(check_shared(fd2, op->off, fd, op->dst, op->len, msg, sizeof(msg)), msg);
		break;
	case OP_DEDUPE: {
		struct file_dedupe_range *dr;
		struct file_dedupe_range_info *di;

		TRY(fd2 = open(a, O_RDONLY), "open(the source)");
		TRY(fd = open(b, O_RDWR), "open(the destination)");
		buf = xmalloc(sizeof(*dr) + sizeof(*di));
		memset(buf, 0, sizeof(*dr) + sizeof(*di));
		dr = (struct file_dedupe_range *)buf;
		di = &dr->info[0];
		dr->src_offset = op->off;
		dr->src_length = op->len;
		dr->dest_count = 1;
		di->dest_fd = fd;
		di->dest_offset = op->dst;
		TRY(ioctl(fd2, FIDEDUPERANGE, dr), "ioctl(FIDEDUPERANGE)");
		if (di->status < 0) {
			errno = -di->status;
			snprintf(msg, sizeof(msg), "ioctl(FIDEDUPERANGE) status");
			TRY(-1, msg);
		}
		if (op->fl & DD_DIFFERS) {
			if (di->status != FILE_DEDUPE_RANGE_DIFFERS) {
				errno = EIO;
				snprintf(msg, sizeof(msg), "FIDEDUPERANGE: status %d (%llu bytes deduped), "
					 "the model says the ranges differ", di->status,
					 (unsigned long long)di->bytes_deduped);
				TRY(-1, msg);
			}
			break;
		}
		if (di->status != FILE_DEDUPE_RANGE_SAME || di->bytes_deduped != op->len) {
			errno = EIO;
			snprintf(msg, sizeof(msg), "FIDEDUPERANGE: status %d, %llu bytes deduped, "
				 "the model says the ranges are equal", di->status,
				 (unsigned long long)di->bytes_deduped);
			TRY(-1, msg);
		}
		TRY(check_shared(fd2, op->off, fd, op->dst, op->len, msg, sizeof(msg)), msg);
		break;
	}
	case OP_CHMOD:
		TRY(chmod(a, op->off), "chmod");
		break;
	case OP_FSYNC:
		TRY(fd = open(a, O_RDONLY), "open");
		TRY(fsync(fd), "fsync");
		break;
	case OP_CHOWN:
		TRY(lchown(a, op->off, op->len), "lchown");
		break;
	case OP_UTIMES: {
		struct timespec ts[2] = { { op->off, 0 }, { op->off, 0 } };

		TRY(utimensat(AT_FDCWD, a, ts, AT_SYMLINK_NOFOLLOW), "utimensat");
		break;
	}
	case OP_UNLINK:
		TRY(unlink(a), "unlink");
		break;
	case OP_UNLINKOPEN:
		TRY(fd = open(a, O_RDWR), "open");
		TRY(unlink(a), "unlink");
		buf = xmalloc(PAGE);
		fill_data(buf, PAGE, op->n);
		TRY(write_all(fd, buf, PAGE, 0, 1), "write after unlink");
		TRY(fsync(fd), "fsync");
		break;
	case OP_RMDIR:
		TRY(rmdir(a), "rmdir");
		break;
	case OP_SYMLINK:
		TRY(symlink(op->b, a), "symlink");
		break;
	case OP_LINK:
		TRY(link(a, b), "link");
		break;
	case OP_RENAME:
		TRY(rename(a, b), "rename");
		break;
	case OP_EXCHANGE:
		TRY(syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE),
		    "renameat2(RENAME_EXCHANGE)");
		break;
	case OP_XSET:
		buf = xmalloc(op->len);
		fill_data(buf, op->len, op->n);
		TRY(lsetxattr(a, op->b, buf, op->len, op->fl), "lsetxattr");
		break;
	case OP_XRM:
		TRY(lremovexattr(a, op->b), "lremovexattr");
		break;
	case OP_SETACL: {
		struct acl acl;

		if (acl_parse(op->b, &acl)) {
			errno = EINVAL;
			snprintf(what, sizeof(what), "the ACL text");
			goto out;
		}
		buf = xmalloc(4 + 8 * ACL_MAXE);
		TRY(lsetxattr(a, op->fl ? ACL_DEFAULT : ACL_ACCESS, buf,
			      acl_to_xattr(&acl, buf), 0), "lsetxattr(ACL)");
		break;
	}
	}
#undef TRY
	ret = 0;
out:
	if (ret)
		ret = -errno;
	if (fd >= 0 && close(fd) < 0 && !ret) {
		snprintf(what, sizeof(what), "close");
		ret = -errno;
	}
	if (fd2 >= 0)
		close(fd2);
	free(buf);
	if (ret) {
		char t[2 * MAXP + 64];

		op_text(op, t, sizeof(t));
		printf("ERROR: op %u (%s): %s failed: %s\n", op->n, t, what, strerror(-ret));
		fflush(stdout);
	}
	return ret;
}

/*
 * Records go to stdout (the serial console; drained before the next
 * operation) or, with --records DEV, to a block device with O_DIRECT
 * writes: DEV is a second pmem device, whose backing file the host reads
 * after the power cut.  The log there is the text of the records, packed,
 * each write covering the 4 KiB blocks that the new record touches.  It is
 * much faster than the serial line, so that power cuts land inside the
 * operations rather than while a record is being sent.
 */
static int rec_fd = -1;
static char *rec_buf;
static size_t rec_len, rec_cap;

static void rec_open(const char *dev)
{
	rec_fd = open(dev, O_WRONLY | O_DIRECT);
	if (rec_fd < 0)
		die("--records %s: %s", dev, strerror(errno));
	rec_cap = 8 << 20;
	if (posix_memalign((void **)&rec_buf, 4096, rec_cap))
		die("out of memory");
	memset(rec_buf, 0, rec_cap);
}

static void rec_write(const char *line, size_t n)
{
	size_t from, to;

	if (rec_len + n + 4096 > rec_cap) {
		char *nb;

		if (posix_memalign((void **)&nb, 4096, rec_cap * 2))
			die("out of memory");
		memcpy(nb, rec_buf, rec_cap);
		memset(nb + rec_cap, 0, rec_cap);
		free(rec_buf);
		rec_buf = nb;
		rec_cap *= 2;
	}
	memcpy(rec_buf + rec_len, line, n);
	from = rec_len & ~(size_t)4095;
	rec_len += n;
	to = (rec_len + 4095) & ~(size_t)4095;
	if (pwrite(rec_fd, rec_buf + from, to - from, from) != (ssize_t)(to - from))
		die("writing the record log: %s", strerror(errno));
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
	char line[3 * MAXP], out[3 * MAXP + 32];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = snprintf(out, sizeof(out), "REC %s #%08x\n", line, crc32(line, strlen(line)));
	if (rec_fd >= 0) {
		rec_write(out, n);
		return;
	}
	fputs(out, stdout);
	fflush(stdout);
	/* wait until the serial line has sent it: the record then precedes
	 * the next operation on the console */
	if (isatty(STDOUT_FILENO))
		tcdrain(STDOUT_FILENO);
}

/* ------------------------------------------------------------ snapshot */

struct snode {
	char *name;
	int type;
	unsigned mode;
	unsigned long nlink;
	uint64_t ino;
	uint64_t size, blocks;
	unsigned char *data;
	char *target;
	struct snode *kids;
	int nkids;
	int bad;		/* read problems (reported already) */
	struct mxattr *xa;	/* every extended attribute, sorted by name */
	int nxa;
	int xbad;		/* reading them failed (reported already) */
	unsigned uid, gid;
	int64_t mtime;
};

static int n_fail;

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL verify: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	n_fail++;
}

static int cmp_snode(const void *a, const void *b)
{
	return strcmp(((const struct snode *)a)->name, ((const struct snode *)b)->name);
}

static int type_of(mode_t m)
{
	return S_ISREG(m) ? T_REG : S_ISDIR(m) ? T_DIR : S_ISLNK(m) ? T_LNK : -1;
}

static unsigned long s_files, s_bytes;

static int cmp_mxattr(const void *a, const void *b)
{
	return strcmp(((const struct mxattr *)a)->name, ((const struct mxattr *)b)->name);
}

/* Every extended attribute of @path (not following a symlink) */
static void snap_xattrs(const char *path, struct snode *s)
{
	ssize_t n = llistxattr(path, NULL, 0), m;
	char *list, *p;
	int i;

	if (n < 0) {
		failf("%s: llistxattr: %s", path, strerror(errno));
		s->xbad = 1;
		return;
	}
	list = xmalloc(n + 1);
	m = llistxattr(path, list, n);
	if (m != n) {
		failf("%s: llistxattr gave %zd bytes, then %zd (%s)", path, n, m,
		      m < 0 ? strerror(errno) : "no change was going on");
		s->xbad = 1;
		free(list);
		return;
	}
	for (p = list; p < list + n; p += strlen(p) + 1) {
		struct mxattr *x;
		ssize_t len, got;

		if (memchr(p, 0, list + n - p) == NULL) {
			failf("%s: llistxattr: the last name is not terminated", path);
			s->xbad = 1;
			break;
		}
		s->xa = xrealloc(s->xa, (s->nxa + 1) * sizeof(*s->xa));
		x = &s->xa[s->nxa++];
		x->name = xstrdup(p);
		x->val = NULL;
		x->len = 0;
		len = lgetxattr(path, p, NULL, 0);
		if (len < 0) {
			failf("%s: listed xattr %s: lgetxattr: %s", path, p, strerror(errno));
			s->xbad = 1;
			continue;
		}
		x->val = xmalloc(len);
		got = lgetxattr(path, p, x->val, len);
		if (got != len) {
			failf("%s: xattr %s: lgetxattr gave %zd bytes, its size is %zd (%s)",
			      path, p, got, len, got < 0 ? strerror(errno) : "-");
			s->xbad = 1;
			continue;
		}
		x->len = len;
	}
	free(list);
	qsort(s->xa, s->nxa, sizeof(*s->xa), cmp_mxattr);
	for (i = 1; i < s->nxa; i++)
		if (!strcmp(s->xa[i].name, s->xa[i - 1].name))
			failf("%s: xattr %s is listed twice", path, s->xa[i].name);
}

/* Read the tree at @path into @s (lstat already in s) */
static void snap(const char *path, struct snode *s, uint64_t parent_ino)
{
	snap_xattrs(path, s);
	if (s->type == T_REG) {
		int fd = open(path, O_RDONLY);
		uint64_t got = 0;

		s_files++;
		s->data = xmalloc(s->size + 1);
		if (fd < 0) {
			failf("%s: open: %s", path, strerror(errno));
			s->bad = 1;
			return;
		}
		while (got <= s->size) {
			ssize_t r = read(fd, s->data + got, s->size + 1 - got);

			if (r < 0) {
				failf("%s: read at %llu: %s", path,
				      (unsigned long long)got, strerror(errno));
				s->bad = 1;
				break;
			}
			if (!r)
				break;
			got += r;
		}
		close(fd);
		s_bytes += got;
		if (!s->bad && got != s->size) {
			failf("%s: read %llu bytes, st_size %llu", path,
			      (unsigned long long)got, (unsigned long long)s->size);
			s->bad = 1;
		}
	} else if (s->type == T_LNK) {
		char buf[PATH_MAX + 1];
		ssize_t r = readlink(path, buf, PATH_MAX);

		if (r < 0) {
			failf("%s: readlink: %s", path, strerror(errno));
			s->bad = 1;
			r = 0;
		}
		buf[r] = 0;
		s->target = xstrdup(buf);
	} else if (s->type == T_DIR) {
		DIR *d = opendir(path);
		struct dirent *de;
		struct stat st;
		char sub[MAXP];
		int cap = 0, i, dots = 0;

		if (!d) {
			failf("%s: opendir: %s", path, strerror(errno));
			s->bad = 1;
			return;
		}
		errno = 0;
		while ((de = readdir(d))) {
			struct snode *k;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) {
				dots++;
				continue;
			}
			if (s->nkids == cap) {
				cap = cap ? cap * 2 : 16;
				s->kids = xrealloc(s->kids, cap * sizeof(*s->kids));
			}
			k = &s->kids[s->nkids++];
			memset(k, 0, sizeof(*k));
			k->name = xstrdup(de->d_name);
			snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
			if (lstat(sub, &st) < 0) {
				failf("%s: lstat of a listed name: %s", sub, strerror(errno));
				k->bad = 1;
				k->type = -1;
				continue;
			}
			k->type = type_of(st.st_mode);
			k->mode = st.st_mode & 07777;
			k->nlink = st.st_nlink;
			k->ino = st.st_ino;
			k->size = st.st_size;
			k->blocks = st.st_blocks;
			k->uid = st.st_uid;
			k->gid = st.st_gid;
			k->mtime = st.st_mtime;
			if (k->type < 0)
				failf("%s: unexpected file type 0%o", sub, st.st_mode & S_IFMT);
			if (de->d_type != DT_UNKNOWN && IFTODT(st.st_mode) != de->d_type)
				failf("%s: readdir d_type %d, lstat says %d", sub, de->d_type,
				      IFTODT(st.st_mode));
			if (de->d_ino != st.st_ino)
				failf("%s: readdir ino %llu, lstat ino %llu", sub,
				      (unsigned long long)de->d_ino,
				      (unsigned long long)st.st_ino);
			errno = 0;
		}
		if (errno)
			failf("%s: readdir: %s", path, strerror(errno));
		closedir(d);
		if (dots != 2)
			failf("%s: readdir gave %d of \".\" and \"..\"", path, dots);
		snprintf(sub, sizeof(sub), "%s/..", path);
		if (parent_ino && stat(sub, &st) == 0 && st.st_ino != parent_ino)
			failf("%s: \"..\" is inode %llu, the parent is %llu", path,
			      (unsigned long long)st.st_ino, (unsigned long long)parent_ino);
		qsort(s->kids, s->nkids, sizeof(*s->kids), cmp_snode);
		for (i = 1; i < s->nkids; i++)
			if (!strcmp(s->kids[i].name, s->kids[i - 1].name))
				failf("%s: the name \"%s\" is listed twice", path, s->kids[i].name);
		for (i = 0; i < s->nkids; i++) {
			if (s->kids[i].bad)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, s->kids[i].name);
			snap(sub, &s->kids[i], s->ino);
		}
	}
}

static void snap_free(struct snode *s)
{
	int i;

	for (i = 0; i < s->nkids; i++)
		snap_free(&s->kids[i]);
	free(s->kids);
	free(s->name);
	free(s->data);
	free(s->target);
	for (i = 0; i < s->nxa; i++) {
		free(s->xa[i].name);
		free(s->xa[i].val);
	}
	free(s->xa);
}

/* distinct inodes of the tree and the sum of their blocks */
struct inoset {
	uint64_t *v;
	int n, cap;
};

static int ino_add(struct inoset *s, uint64_t ino)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == ino)
			return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = ino;
	return 1;
}

static void count_inodes(const struct snode *s, struct inoset *set, uint64_t *blocks)
{
	int i;

	if (ino_add(set, s->ino))
		*blocks += s->blocks;
	for (i = 0; i < s->nkids; i++)
		count_inodes(&s->kids[i], set, blocks);
}

/* ------------------------------------------------------------ compare */

struct diffs {
	char msg[MAXDIFF][2 * MAXP];
	int n;
	int *map;		/* model id -> index in inos, -1 */
	uint64_t *ino;		/* model id -> real inode */
};

static void diff(struct diffs *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diff(struct diffs *d, const char *fmt, ...)
{
	va_list ap;

	if (d->n < MAXDIFF) {
		va_start(ap, fmt);
		vsnprintf(d->msg[d->n], sizeof(d->msg[0]), fmt, ap);
		va_end(ap);
	}
	d->n++;
}

static const char *tname(int t)
{
	return t == T_REG ? "file" : t == T_DIR ? "directory" : t == T_LNK ? "symlink" : "?";
}

static void hex8(char *out, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 16; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * (i < 16 ? i : 16)] = 0;
}

/* Describe what one 4 KiB page of the file holds (for big: its pattern) */
static void page_origin(char *out, size_t sz, const unsigned char *p, size_t n)
{
	uint64_t w = 0;
	size_t i;

	for (i = 0; i < n && !p[i]; i++)
		;
	if (i == n) {
		snprintf(out, sz, "zeros");
		return;
	}
	if (n >= 8) {
		memcpy(&w, p, 8);
		if ((w >> 48) == 0xB160)
			snprintf(out, sz, "big pattern %llu", (unsigned long long)((w >> 16) & 0xffffffff));
		else
			snprintf(out, sz, "data of op %llu?", (unsigned long long)(w >> 40));
	} else {
		snprintf(out, sz, "%zu bytes", n);
	}
}

static void cmp_data(struct diffs *d, const char *path, const struct mnode *x,
		     const struct snode *s)
{
	size_t n = x->size < s->size ? x->size : s->size, i, first = n, last = 0, cnt = 0;
	size_t pg, pages = 0;
	char e[40], g[40], eo[64], go[64];

	if (x->size != s->size)
		diff(d, "%s: size %llu, expected %zu", path, (unsigned long long)s->size, x->size);
	if (s->bad)
		return;
	for (i = 0; i < n; i++) {
		if (s->data[i] == x->data[i] || (x->alt && s->data[i] == x->alt[i]))
			continue;
		if (first == n)
			first = i;
		last = i;
		cnt++;
	}
	if (!cnt)
		return;
	diff(d, "%s: %zu bytes differ in [%zu, %zu]", path, cnt, first, last);
	/* one line per differing page (the first few) */
	for (pg = first / PAGE; pg <= last / PAGE; pg++) {
		size_t lo = pg * PAGE, hi = lo + PAGE < n ? lo + PAGE : n, f = hi;

		for (i = lo; i < hi; i++)
			if (s->data[i] != x->data[i] && !(x->alt && s->data[i] == x->alt[i])) {
				f = i;
				break;
			}
		if (f == hi)
			continue;
		if (++pages > 6) {
			diff(d, "%s:   ... more pages differ", path);
			break;
		}
		hex8(e, x->data + f, hi - f);
		hex8(g, s->data + f, hi - f);
		page_origin(eo, sizeof(eo), x->data + lo, hi - lo);
		page_origin(go, sizeof(go), s->data + lo, hi - lo);
		diff(d, "%s:   page %zu from byte %zu: found %s (page holds %s), expected %s (%s)%s",
		     path, pg, f, g, go, e, eo, x->alt ? " or the old bytes" : "");
	}
}

/* The extended attributes: the same names, sizes and values exactly */
static void cmp_xattrs(struct diffs *d, const char *path, const struct mnode *x,
		       const struct snode *s)
{
	struct mxattr *mx = xmalloc((x->nxa ? x->nxa : 1) * sizeof(*mx));
	char e[160], f[160];
	int i = 0, j = 0;

	if (x->nxa)
		memcpy(mx, x->xa, x->nxa * sizeof(*mx));
	qsort(mx, x->nxa, sizeof(*mx), cmp_mxattr);
	while (i < x->nxa || j < s->nxa) {
		int c = i == x->nxa ? 1 : j == s->nxa ? -1 : strcmp(mx[i].name, s->xa[j].name);

		if (c < 0) {
			xa_describe(e, sizeof(e), mx[i].name, mx[i].val, mx[i].len);
			diff(d, "%s: xattr %s missing (expected %s)", path, mx[i].name, e);
			i++;
		} else if (c > 0) {
			xa_describe(f, sizeof(f), s->xa[j].name, s->xa[j].val, s->xa[j].len);
			diff(d, "%s: unexpected xattr %s (%s)", path, s->xa[j].name, f);
			j++;
		} else {
			const struct mxattr *a = &mx[i], *b = &s->xa[j];

			if (a->len != b->len || memcmp(a->val, b->val, a->len)) {
				size_t k = 0, n = a->len < b->len ? a->len : b->len;

				while (k < n && a->val[k] == b->val[k])
					k++;
				xa_describe(e, sizeof(e), a->name, a->val, a->len);
				xa_describe(f, sizeof(f), b->name, b->val, b->len);
				diff(d, "%s: xattr %s: found %s, expected %s (first difference at byte %zu)",
				     path, a->name, f, e, k);
				if (!is_acl_name(a->name) && k < n) {
					uint64_t w = 0;

					memcpy(&w, b->val + (k & ~(size_t)7),
					       n - (k & ~(size_t)7) < 8 ? n - (k & ~(size_t)7) : 8);
					diff(d, "%s:   xattr %s: the bytes found there look like data of op %llu",
					     path, a->name, (unsigned long long)(w >> 40));
				}
			}
			i++;
			j++;
		}
	}
	free(mx);
}

static void cmp_tree(const struct model *m, int id, const struct snode *s,
		     const char *path, struct diffs *d)
{
	const struct mnode *x = &m->n[id];
	char sub[MAXP];
	int i, j, *order;

	if (s->type != x->type) {
		diff(d, "%s: is a %s, expected a %s", *path ? path : "/", tname(s->type),
		     tname(x->type));
		return;
	}
	/* the same model inode must be the same real inode, and vice versa */
	if (d->ino[id]) {
		if (d->ino[id] != s->ino)
			diff(d, "%s: inode %llu, but its hard link is inode %llu", path,
			     (unsigned long long)s->ino, (unsigned long long)d->ino[id]);
		return;		/* checked through the first name */
	}
	for (i = 0; i < m->nn; i++)
		if (d->ino[i] == s->ino && i != id)
			diff(d, "%s: inode %llu is also another, unrelated name", path,
			     (unsigned long long)s->ino);
	d->ino[id] = s->ino;
	if (x->nlink != (int)s->nlink)
		diff(d, "%s: link count %lu, expected %d", *path ? path : "/", s->nlink, x->nlink);
	if (id && x->type != T_LNK && x->mode != s->mode)
		diff(d, "%s: mode 0%o, expected 0%o", path, s->mode, x->mode);
	if (x->uid != s->uid || x->gid != s->gid)
		diff(d, "%s: owner %u:%u, expected %u:%u", *path ? path : "/", s->uid, s->gid,
		     x->uid, x->gid);
	if (x->has_mtime && x->mtime != s->mtime)
		diff(d, "%s: mtime %lld, expected %lld", *path ? path : "/", (long long)s->mtime,
		     (long long)x->mtime);
	if (!s->xbad)
		cmp_xattrs(d, *path ? path : "/", x, s);
	if (x->type == T_REG) {
		cmp_data(d, path, x, s);
	} else if (x->type == T_LNK) {
		if (s->target && strcmp(s->target, x->target))
			diff(d, "%s: symlink target \"%s\", expected \"%s\"", path, s->target,
			     x->target);
		if (s->size != strlen(x->target))
			diff(d, "%s: symlink size %llu, expected %zu", path,
			     (unsigned long long)s->size, strlen(x->target));
	} else {
		/* names: both sides sorted */
		order = xmalloc((x->nents ? x->nents : 1) * sizeof(int));
		for (i = 0; i < x->nents; i++)
			order[i] = i;
		for (i = 1; i < x->nents; i++)
			for (j = i; j > 0 && strcmp(x->ents[order[j - 1]].name,
						    x->ents[order[j]].name) > 0; j--) {
				int t = order[j];

				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		i = j = 0;
		while (i < x->nents || j < s->nkids) {
			int c = i == x->nents ? 1 : j == s->nkids ? -1 :
				strcmp(x->ents[order[i]].name, s->kids[j].name);

			if (c < 0) {
				snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "",
					 x->ents[order[i]].name);
				diff(d, "%s: missing (expected a %s)", sub,
				     tname(m->n[x->ents[order[i]].id].type));
				i++;
			} else if (c > 0) {
				snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "",
					 s->kids[j].name);
				diff(d, "%s: unknown name (a %s, %llu bytes)", sub,
				     tname(s->kids[j].type), (unsigned long long)s->kids[j].size);
				j++;
			} else {
				snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "",
					 s->kids[j].name);
				if (!s->kids[j].bad)
					cmp_tree(m, x->ents[order[i]].id, &s->kids[j], sub, d);
				i++;
				j++;
			}
		}
		free(order);
	}
}

static int compare(const struct model *m, const struct snode *root, struct diffs *d)
{
	d->n = 0;
	d->ino = xmalloc(m->nn * sizeof(*d->ino));
	memset(d->ino, 0, m->nn * sizeof(*d->ino));
	d->map = NULL;
	cmp_tree(m, 0, root, "", d);
	free(d->ino);
	return d->n;
}

/* ------------------------------------------------------------ verify */

struct cand {
	struct model m;
	char label[128];
};

struct cands {
	struct cand c[16];
	int n;
	const struct op *op;
};

static void add_cand(struct model *m, const char *label, void *arg)
{
	struct cands *cs = arg;

	if (cs->n == 16)
		die("too many candidate states");
	m_clone(&cs->c[cs->n].m, m);
	snprintf(cs->c[cs->n].label, sizeof(cs->c[0].label), "op %u %s", cs->op->n, label);
	cs->n++;
}

struct records {
	char **text;		/* index n: text of REC n or NULL */
	unsigned max;		/* highest record number seen, -1u: none */
	int have0;
	char prof[32];
	unsigned long ops;
	unsigned long long bfree, inodes, blocks;
};

static void read_records(const char *file, struct records *r)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, *p;
	size_t cap = 0, tcap = 0;
	unsigned bad = 0;

	if (!f)
		die("%s: %s", file, strerror(errno));
	memset(r, 0, sizeof(*r));
	r->max = -1u;
	while (getline(&line, &cap, f) > 0) {
		char *hash, *end;
		unsigned long n, crc;

		line[strcspn(line, "\r\n")] = 0;
		p = strstr(line, "REC ");
		if (!p)
			continue;
		p += 4;
		hash = strrchr(p, '#');
		n = strtoul(p, &end, 10);
		if (!hash || end == p || *end != ' ' || hash < end || hash[-1] != ' ') {
			bad++;
			continue;
		}
		crc = strtoul(hash + 1, &end, 16);
		hash[-1] = 0;
		if (*end || crc32(p, strlen(p)) != crc) {
			printf("WARNING: garbled record line ignored: %s\n", line);
			bad++;
			continue;
		}
		if (n >= tcap) {
			size_t nc = tcap ? tcap : 1024;

			while (nc <= n)
				nc *= 2;
			r->text = xrealloc(r->text, nc * sizeof(*r->text));
			memset(r->text + tcap, 0, (nc - tcap) * sizeof(*r->text));
			tcap = nc;
		}
		if (r->text[n])
			die("%s: record %lu appears twice", file, n);
		r->text[n] = xstrdup(strchr(p, ' ') + 1);
		if (r->max == -1u || n > r->max)
			r->max = n;
		if (n == 0) {
			r->have0 = 1;
			if (sscanf(r->text[0], "start profile=%31s ops=%lu bfree=%llu inodes=%llu blocks=%llu",
				   r->prof, &r->ops, &r->bfree, &r->inodes, &r->blocks) != 5)
				die("%s: bad REC 0: %s", file, r->text[0]);
		}
	}
	free(line);
	fclose(f);
	if (bad)
		printf("WARNING: %u record lines could not be parsed\n", bad);
}

static int parse_profile(const char *s)
{
	int i;

	for (i = 0; i <= P_EOF; i++)
		if (!strcmp(s, profname[i]))
			return i;
	die("unknown profile %s (mixed, write, ns, gc, xattr, crypt, clone, eof)", s);
}

/*
 * Profile crypt: add the key made from the seed to the file system (its
 * keyring outlives this process); with @policy, make DIR/enc encrypted
 * with a v2 policy of that key (the root cannot be encrypted).  The
 * workload's directory is DIR/enc from then on.
 */
static void crypt_setup(int policy)
{
	union {
		struct fscrypt_add_key_arg a;
		unsigned char b[sizeof(struct fscrypt_add_key_arg) + 64];
	} k;
	struct fscrypt_policy_v2 p;
	uint64_t r = g_seed ^ 0x6e6f7661637279ULL;
	int fd, i;

	memset(&k, 0, sizeof(k));
	k.a.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	k.a.raw_size = 64;
	for (i = 0; i < 64; i++)
		k.a.raw[i] = (unsigned char)splitmix64(&r);
	fd = open(g_dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die("%s: %s", g_dir, strerror(errno));
	if (ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, &k.a) < 0)
		die("FS_IOC_ADD_ENCRYPTION_KEY: %s", strerror(errno));
	close(fd);
	snprintf(g_dir + strlen(g_dir), sizeof(g_dir) - strlen(g_dir), "/enc");
	if (policy && mkdir(g_dir, 0755) < 0)
		die("mkdir %s: %s", g_dir, strerror(errno));
	fd = open(g_dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die("%s: %s", g_dir, strerror(errno));
	if (policy) {
		memset(&p, 0, sizeof(p));
		p.version = FSCRYPT_POLICY_V2;
		p.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
		p.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
		p.flags = FSCRYPT_POLICY_FLAGS_PAD_32;
		memcpy(p.master_key_identifier, k.a.key_spec.u.identifier,
		       FSCRYPT_KEY_IDENTIFIER_SIZE);
		if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p) < 0)
			die("FS_IOC_SET_ENCRYPTION_POLICY on %s: %s", g_dir,
			    strerror(errno));
	}
	close(fd);
}

/* extents on the device: [v[i][0], v[i][0] + v[i][1]) */
struct extents {
	uint64_t (*v)[2];
	size_t n, cap;
};

/* Every extent of the file @path (FIEMAP) to @ex; 0 or -1 (reported) */
static int file_extents(const char *path, struct extents *ex)
{
	enum { NEXT = 256 };
	struct fiemap *fm = xmalloc(sizeof(*fm) + NEXT * sizeof(struct fiemap_extent));
	uint64_t start = 0;
	int fd = open(path, O_RDONLY), ret = 0;
	unsigned i;

	if (fd < 0) {
		failf("%s: open: %s", path, strerror(errno));
		free(fm);
		return -1;
	}
	for (;;) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_extent_count = NEXT;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			failf("%s: FIEMAP: %s", path, strerror(errno));
			ret = -1;
			break;
		}
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			const struct fiemap_extent *x = &fm->fm_extents[i];

			if (ex->n == ex->cap) {
				ex->cap = ex->cap ? 2 * ex->cap : 1024;
				ex->v = xrealloc(ex->v, ex->cap * sizeof(*ex->v));
			}
			ex->v[ex->n][0] = x->fe_physical;
			ex->v[ex->n][1] = x->fe_length;
			ex->n++;
			start = x->fe_logical + x->fe_length;
		}
		if (!fm->fm_mapped_extents ||
		    (fm->fm_extents[fm->fm_mapped_extents - 1].fe_flags & FIEMAP_EXTENT_LAST))
			break;
	}
	close(fd);
	free(fm);
	return ret;
}

static void tree_extents(const struct snode *s, const char *path, struct inoset *seen,
			 struct extents *ex)
{
	char sub[MAXP + DIRMAX];
	int i;

	if (s->type == T_REG && !s->bad && ino_add(seen, s->ino))
		file_extents(path, ex);
	for (i = 0; i < s->nkids; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, s->kids[i].name);
		if (!s->kids[i].bad)
			tree_extents(&s->kids[i], sub, seen, ex);
	}
}

static int cmp_extent(const void *a, const void *b)
{
	uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];

	return x < y ? -1 : x > y;
}

/*
 * The data blocks of the files under the root, each counted once however
 * many pages map it (clones share blocks: the sum of st_blocks counts
 * them once per page)
 */
static uint64_t distinct_blocks(const struct snode *root)
{
	struct extents ex = { 0 };
	struct inoset seen = { 0 };
	uint64_t bytes = 0, end = 0;
	size_t i;

	tree_extents(root, g_dir, &seen, &ex);
	qsort(ex.v, ex.n, sizeof(*ex.v), cmp_extent);
	for (i = 0; i < ex.n; i++) {
		uint64_t a = ex.v[i][0], b = a + ex.v[i][1];

		if (a < end)
			a = end;
		if (b > a)
			bytes += b - a;
		if (b > end)
			end = b;
	}
	free(ex.v);
	free(seen.v);
	return bytes / PAGE;
}

/* statfs checks; @inodes0: used inodes at REC 0 (-1: unknown) */
static void check_statfs(const struct snode *root, long long inodes0)
{
	struct statfs sf;
	struct inoset set = { 0 };
	uint64_t blocks = 0;
	unsigned long long used;

	if (statfs(g_dir, &sf) < 0) {
		failf("statfs %s: %s", g_dir, strerror(errno));
		return;
	}
	count_inodes(root, &set, &blocks);
	printf("INFO: statfs: blocks %llu, free %llu, avail %llu, files %llu, ffree %llu; "
	       "tree: %d inodes, %llu data blocks, %lu files read (%lu bytes)\n",
	       (unsigned long long)sf.f_blocks, (unsigned long long)sf.f_bfree,
	       (unsigned long long)sf.f_bavail, (unsigned long long)sf.f_files,
	       (unsigned long long)sf.f_ffree, set.n, (unsigned long long)blocks / 8,
	       s_files, s_bytes);
	if (sf.f_bfree > sf.f_blocks || sf.f_bavail > sf.f_bfree || sf.f_ffree > sf.f_files)
		failf("statfs counters inconsistent");
	if (g_profile == P_CLONE) {
		/* shared blocks: st_blocks counts them once per file */
		uint64_t distinct = distinct_blocks(root);

		printf("INFO: the files map %llu distinct data blocks (FIEMAP), "
		       "%llu with each shared one counted per file (st_blocks)\n",
		       (unsigned long long)distinct, (unsigned long long)blocks / 8);
		if (distinct > sf.f_blocks - sf.f_bfree)
			failf("statfs: %llu blocks used, but the files alone map %llu distinct ones",
			      (unsigned long long)(sf.f_blocks - sf.f_bfree),
			      (unsigned long long)distinct);
	} else if (blocks / 8 > sf.f_blocks - sf.f_bfree) {
		failf("statfs: %llu blocks used, but the files alone hold %llu",
		      (unsigned long long)(sf.f_blocks - sf.f_bfree),
		      (unsigned long long)blocks / 8);
	}
	used = sf.f_files - sf.f_ffree;
	if (inodes0 >= 0 && used != (unsigned long long)inodes0 + set.n - 1)
		failf("statfs: %llu inodes in use, expected %llu (%lld at the start + %d in the tree)",
		      used, (unsigned long long)inodes0 + set.n - 1, inodes0, set.n - 1);
	free(set.v);
}

/*
 * Bytes past EOF in a file's last page must read as zeros through mmap
 * (POSIX; with DAX the mapping shows the block itself).  Stale bytes there
 * would also become file data when a later write extends the file past
 * that page without rewriting it.
 */
static int dir_readonly(void);

/* Is page @pg of the file @path on a shared block (FIEMAP)?  -1: unknown */
static int page_shared(const char *path, uint64_t pg)
{
	struct fiemap *fm = xmalloc(sizeof(*fm) + 4 * sizeof(struct fiemap_extent));
	int fd = open(path, O_RDONLY), ret = -1;
	unsigned i;

	memset(fm, 0, sizeof(*fm) + 4 * sizeof(struct fiemap_extent));
	fm->fm_start = pg * PAGE;
	fm->fm_length = PAGE;
	fm->fm_extent_count = 4;
	if (fd >= 0 && ioctl(fd, FS_IOC_FIEMAP, fm) == 0) {
		ret = 0;
		for (i = 0; i < fm->fm_mapped_extents; i++)
			if (fm->fm_extents[i].fe_flags & FIEMAP_EXTENT_SHARED)
				ret = 1;
	}
	if (fd >= 0)
		close(fd);
	free(fm);
	return ret;
}

static void check_eof_tails(const struct snode *s, const char *path, struct inoset *seen)
{
	char sub[MAXP + DIRMAX];
	int i;

	if (s->type == T_DIR) {
		for (i = 0; i < s->nkids; i++) {
			snprintf(sub, sizeof(sub), "%s/%s", path, s->kids[i].name);
			if (!s->kids[i].bad)
				check_eof_tails(&s->kids[i], sub, seen);
		}
		return;
	}
	if (s->type != T_REG || !(s->size % PAGE) || !ino_add(seen, s->ino))
		return;
	{
		int fd = open(path, O_RDONLY);
		size_t tail = PAGE - s->size % PAGE, n = 0, first = 0, j;
		const unsigned char *m;

		if (fd < 0) {
			failf("%s: open: %s", path, strerror(errno));
			return;
		}
		m = mmap(NULL, s->size, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		/*
		 * an encrypted file cannot be mapped, and its tail past EOF
		 * is not kept zero: it is rewritten when the file grows
		 */
		if (m == MAP_FAILED && errno == EOPNOTSUPP && g_profile == P_CRYPT)
			return;
		if (m == MAP_FAILED) {
			failf("%s: mmap: %s", path, strerror(errno));
			return;
		}
		/* a fault the kernel refuses: a failure, not the end of the check */
		signal(SIGBUS, on_sigbus);
		if (sigsetjmp(bus_jmp, 1)) {
			signal(SIGBUS, SIG_DFL);
			munmap((void *)m, s->size);
			/*
			 * NOVA maps no shared block: a fault copies the page
			 * first, which a read-only mount cannot (src/file.c
			 * nova_iomap_begin(): EROFS)
			 */
			if (g_profile == P_CLONE && dir_readonly() &&
			    page_shared(path, s->size / PAGE) == 1) {
				printf("INFO: %s: its last page is shared: not mapped on a "
				       "read-only mount (SIGBUS), bytes past EOF not checked\n", path);
				return;
			}
			failf("%s: SIGBUS reading its last page (%llu) through mmap (size %llu; "
			      "the kernel log may say why)", path,
			      (unsigned long long)(s->size / PAGE), (unsigned long long)s->size);
			return;
		}
		for (j = 0; j < tail; j++)
			if (m[s->size + j] && !n++)
				first = s->size + j;
		signal(SIGBUS, SIG_DFL);
		if (n)
			failf("%s: %zu bytes past EOF (size %llu) in its last page are not zero "
			      "(mmap; from offset %zu: %02x%02x%02x%02x...); a write that extends "
			      "the file would expose them", path, n, (unsigned long long)s->size,
			      first, m[first], m[first + 1 < s->size + tail ? first + 1 : first],
			      m[first + 2 < s->size + tail ? first + 2 : first],
			      m[first + 3 < s->size + tail ? first + 3 : first]);
		munmap((void *)m, s->size);
	}
}

static void take_snapshot(struct snode *root)
{
	struct stat st;

	memset(root, 0, sizeof(*root));
	if (lstat(g_dir, &st) < 0)
		die("%s: %s", g_dir, strerror(errno));
	root->name = xstrdup("");
	root->type = T_DIR;
	root->ino = st.st_ino;
	root->nlink = st.st_nlink;
	root->mode = st.st_mode & 07777;
	root->uid = st.st_uid;
	root->gid = st.st_gid;
	root->mtime = st.st_mtime;
	s_files = s_bytes = 0;
	snap(g_dir, root, 0);
}

static void print_diffs(const struct diffs *d, const char *indent)
{
	int i;

	for (i = 0; i < d->n && i < MAXDIFF; i++)
		printf("%s%s\n", indent, d->msg[i]);
	if (d->n > MAXDIFF)
		printf("%s... %d more\n", indent, d->n - MAXDIFF);
}

/*
 * The allowed state of @cs closest to the tree @root: its index, and in
 * *@bestn its number of differences (0: a match).
 */
static int closest_state(struct cands *cs, struct snode *root,
			 struct diffs *d, int *bestn)
{
	int i, best = -1;

	*bestn = 0;
	for (i = 0; i < cs->n; i++) {
		int n = compare(&cs->c[i].m, root, d);

		if (best < 0 || n < *bestn) {
			best = i;
			*bestn = n;
		}
		if (!n)
			break;
	}
	return best;
}

/* A failed match: how the tree differs from the closest state (not the first) */
static void print_closest(struct cands *cs, int best, struct snode *root,
			  struct diffs *d)
{
	if (!best)
		return;
	compare(&cs->c[best].m, root, d);
	printf("  differences from the closest allowed state, %s (%d):\n",
	       cs->c[best].label, d->n);
	print_diffs(d, "    ");
}

/* The end of a verify: the bytes past EOF, then free what it built */
static void verify_end(struct snode *root, struct cands *cs, struct model *m,
		       struct diffs *d)
{
	struct inoset seen = { 0 };
	int i;

	check_eof_tails(root, g_dir, &seen);
	free(seen.v);
	snap_free(root);
	for (i = 0; i < cs->n; i++)
		m_free(&cs->c[i].m);
	m_free(m);
	free(d);
}

static int do_verify_eof(const struct records *r, unsigned long ops);

static int do_verify(const char *recfile, int profile_arg, long ops_arg)
{
	struct records r;
	struct model m;
	struct gen g;
	struct op op;
	struct cands cs;
	struct snode root;
	struct diffs *d = xmalloc(sizeof(*d));
	char text[3 * MAXP];
	unsigned n, last, mismatches = 0, missing = 0;
	int profile, best = -1, bestn = 0;
	unsigned long ops;

	read_records(recfile, &r);
	if (r.have0) {
		profile = parse_profile(r.prof);
		ops = r.ops;
		if ((profile_arg >= 0 && profile_arg != profile) ||
		    (ops_arg >= 0 && (unsigned long)ops_arg != ops))
			die("REC 0 says profile=%s ops=%lu, the command line differs", r.prof, ops);
	} else {
		if (profile_arg < 0 || ops_arg < 0)
			die("no REC 0 in %s: give --profile and --ops", recfile);
		profile = profile_arg;
		ops = ops_arg;
	}
	if (profile == P_EOF)
		return do_verify_eof(&r, ops);
	g_profile = profile;
	if (profile == P_CRYPT)
		crypt_setup(0);
	last = r.max == -1u ? 0 : r.max;
	if (last > ops)
		die("record %u is past the %lu operations", last, ops);
	printf("INFO: seed %llu, profile %s, %lu operations, %u completed (records), %s\n",
	       (unsigned long long)g_seed, profname[profile], ops, last,
	       last < ops ? "the next one may have been in flight" : "all done");

	m_init(&m);
	gen_init(&g, profile);
	for (n = 1; n <= last; n++) {
		gen_next(&g, &m, &op);
		op_text(&op, text, sizeof(text));
		if (!r.text[n]) {
			missing++;
		} else if (strcmp(r.text[n], text)) {
			if (mismatches++ < 5)
				failf("record %u is \"%s\", the workload regenerates \"%s\"",
				      n, r.text[n], text);
		}
		apply(&m, &op, NULL, NULL);
	}
	if (missing)
		printf("WARNING: %u records before %u missing from the log\n", missing, last);

	cs.n = 0;
	memset(&op, 0, sizeof(op));
	cs.op = &op;
	add_cand(&m, "", &cs);
	snprintf(cs.c[0].label, sizeof(cs.c[0].label), "after op %u (op %u not started)",
		 last, last + 1);
	if (last < ops) {
		struct model tmp;

		gen_next(&g, &m, &op);
		op_text(&op, text, sizeof(text));
		printf("INFO: in flight: op %u: %s\n", op.n, text);
		m_clone(&tmp, &m);
		apply(&tmp, &op, add_cand, &cs);
		m_free(&tmp);
	}

	take_snapshot(&root);
	best = closest_state(&cs, &root, d, &bestn);
	if (bestn == 0) {
		printf("verify: matched %s\n", cs.c[best].label);
	} else {
		failf("the file system matches none of the %d allowed states", cs.n);
		op_text(&op, text, sizeof(text));
		printf("  seed %llu, profile %s; %u records; in flight: %s\n",
		       (unsigned long long)g_seed, profname[profile], last,
		       last < ops ? text : "nothing");
		compare(&cs.c[0].m, &root, d);
		printf("  differences from the state after op %u (%d):\n", last, d->n);
		print_diffs(d, "    ");
		print_closest(&cs, best, &root, d);
	}
	check_statfs(&root, r.have0 ? (long long)r.inodes : -1);
	verify_end(&root, &cs, &m, d);
	if (n_fail) {
		printf("FAIL verify (%d problems)\n", n_fail);
		return 1;
	}
	printf("PASS verify\n");
	return 0;
}

/* ------------------------------------------------------------ run */

static void arm(int point, long after, const char *param)
{
	FILE *f = fopen(param, "w");

	if (!f || fprintf(f, "%d\n", point) < 0 || fclose(f))
		die("cannot arm crash point %d via %s: %s", point, param, strerror(errno));
	printf("ARMED crash point %d after op %ld\n", point, after);
	fflush(stdout);
}

static int do_run(unsigned long ops, int profile, int arm_point, long arm_at,
		  const char *param, long stop_after)
{
	struct model m;
	struct gen g;
	struct op op;
	struct statfs sf;
	struct stat st;
	struct snode root;
	struct diffs *d;
	char text[3 * MAXP];
	DIR *dir;
	struct dirent *de;
	unsigned long long bfree;
	unsigned n;

	if (stat(g_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		die("%s is not a directory", g_dir);
	dir = opendir(g_dir);
	if (!dir)
		die("%s: %s", g_dir, strerror(errno));
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			die("%s is not empty (%s)", g_dir, de->d_name);
	closedir(dir);
	if (statfs(g_dir, &sf) < 0)
		die("statfs: %s", strerror(errno));
	bfree = sf.f_bfree;
	g_profile = profile;
	if (profile == P_CRYPT) {
		crypt_setup(1);
		if (statfs(g_dir, &sf) < 0)
			die("statfs: %s", strerror(errno));
	}
	umask(0);
	emit("0 start profile=%s ops=%lu bfree=%llu inodes=%llu blocks=%llu",
	     profname[profile], ops, (unsigned long long)bfree,
	     (unsigned long long)(sf.f_files - sf.f_ffree),
	     (unsigned long long)sf.f_blocks);
	m_init(&m);
	gen_init(&g, profile);
	for (n = 1; n <= ops; n++) {
		if (arm_point >= 0 && (long)n == arm_at + 1)
			arm(arm_point, arm_at, param);
		if (stop_after >= 0 && (long)n > stop_after) {
			printf("STOPPED after op %ld\n", stop_after);
			m_free(&m);
			return 0;
		}
		gen_next(&g, &m, &op);
		if (execute(&op)) {
			printf("FAIL run: operation %u failed\n", n);
			return 1;
		}
		op_text(&op, text, sizeof(text));
		emit("%u %s", n, text);
		apply(&m, &op, NULL, NULL);
		if (rec_fd >= 0 && n % 1000 == 0)
			printf("PROGRESS %u\n", n);
	}
	if (arm_point >= 0 && arm_at >= (long)ops)
		arm(arm_point, arm_at, param);	/* e.g. for the unmount */
	/* no power cut: the file system must match the model exactly */
	d = xmalloc(sizeof(*d));
	take_snapshot(&root);
	if (compare(&m, &root, d)) {
		failf("after all %lu operations the file system differs from the model", ops);
		print_diffs(d, "  ");
	}
	check_statfs(&root, (long long)(sf.f_files - sf.f_ffree));
	{
		struct inoset seen = { 0 };

		check_eof_tails(&root, g_dir, &seen);
		free(seen.v);
	}
	snap_free(&root);
	m_free(&m);
	free(d);
	printf("%s run (%lu operations)\n", n_fail ? "FAIL" : "PASS", ops);
	return n_fail ? 1 : 0;
}

/* ------------------------------------------------------------ eof */

/*
 * Profile eof: bytes that a write stored past EOF and never committed
 * must not become file data when the file grows later (run it on a
 * mount with inplace_data_updates=1).  Operation n, "eof e<n>":
 *
 *   1. create e<n>, truncate it to EOF_SIZE0 bytes (zeros);
 *   2. fallocate KEEP_SIZE pages 0..3: preallocated past EOF;
 *   3. pwrite pages 2..5 with pattern n: in place mode stores pages 2
 *      and 3 where they are (past EOF), then copies pages 4 and 5 on
 *      write and commits them with the new size (CP_WRITE_DATA,
 *      CP_WRITE_ENTRIES: between the stores and the commit).
 *
 * --arm POINT@K arms the point in operation K + 1 just before step 3,
 * so that the write reaches it.  After a power cut there, e<n> has the
 * size of step 1 and holds the pattern in its preallocated pages past
 * EOF.  verify checks every file (the complete ones, and the one in
 * flight in any of its states), then grows each to EOF_GROW bytes
 * (truncate) and checks that what the growth added reads as zeros; the
 * grown state is accepted on later verifies.
 */
#define EOF_SIZE0	100
#define EOF_PAGES	6
#define EOF_GROW	(8 * PAGE)

static unsigned char eof_pat(unsigned n, size_t i)
{
	return (unsigned char)(0x80 | ((n * 31 + i) & 0x7f));
}

static int eof_op(unsigned n, int arm_point, long arm_at, const char *param)
{
	char path[FULLP];
	unsigned char *buf = xmalloc(4 * PAGE);
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/e%u", g_dir, n);
	for (i = 0; i < 4 * PAGE; i++)
		buf[i] = eof_pat(n, 2 * PAGE + i);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);
	if (fd < 0 || ftruncate(fd, EOF_SIZE0) ||
	    fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4 * PAGE)) {
		printf("ERROR: op %u: %s: %s\n", n, path, strerror(errno));
		return 1;
	}
	if (arm_point >= 0 && (long)n == arm_at + 1)
		arm(arm_point, arm_at, param);
	if (pwrite(fd, buf, 4 * PAGE, 2 * PAGE) != 4 * PAGE || close(fd)) {
		printf("ERROR: op %u: pwrite %s: %s\n", n, path, strerror(errno));
		return 1;
	}
	free(buf);
	return 0;
}

/*
 * Check e<n>: complete (@done) or in any state of its operation; with
 * @grow, truncate it to EOF_GROW first and check the bytes added.
 * Returns 1 if the file exists.
 */
/* Is the file system under test mounted read-only? */
static int dir_readonly(void)
{
	struct statvfs sv;

	return !statvfs(g_dir, &sv) && (sv.f_flag & ST_RDONLY);
}

static int eof_check(unsigned n, int done, int grow)
{
	char path[FULLP];
	unsigned char *buf = xmalloc(EOF_GROW);
	struct stat st;
	size_t i, data, bad = 0, first = 0;
	off_t size;
	int fd;

	snprintf(path, sizeof(path), "%s/e%u", g_dir, n);
	/* the verify on a read-only device reads only */
	if (dir_readonly())
		grow = 0;
	fd = open(path, grow ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		if (done || errno != ENOENT)
			failf("%s: %s", path, strerror(errno));
		free(buf);
		return 0;
	}
	if (fstat(fd, &st)) {
		failf("%s: fstat: %s", path, strerror(errno));
		goto out;
	}
	size = st.st_size;
	/* the pattern's bytes: a complete file, or one grown after it */
	data = size >= EOF_PAGES * PAGE ? EOF_PAGES * PAGE : 0;
	if (done ? size != EOF_PAGES * PAGE && size != EOF_GROW :
	    size != 0 && size != EOF_SIZE0 && size != EOF_PAGES * PAGE &&
	    size != EOF_GROW) {
		failf("%s: size %lld (operation %s)", path, (long long)size,
		      done ? "complete" : "in flight");
		goto out;
	}
	if (grow && size < EOF_GROW && ftruncate(fd, EOF_GROW)) {
		failf("%s: truncate to %d: %s", path, EOF_GROW, strerror(errno));
		goto out;
	}
	if (grow)
		size = EOF_GROW;
	if (pread(fd, buf, size, 0) != size) {
		failf("%s: short read", path);
		goto out;
	}
	/* grown by an earlier verify: the pattern (never 0) or zeros */
	if (!done && size == EOF_GROW && !buf[2 * PAGE])
		data = 0;
	for (i = 0; i < (size_t)size; i++) {
		unsigned char want = i >= 2 * PAGE && i < data ? eof_pat(n, i) : 0;

		if (buf[i] != want && !bad++)
			first = i;
	}
	if (bad)
		failf("%s: %zu bytes differ (size %lld%s; first at %zu: 0x%02x, expected 0x%02x)%s",
		      path, bad, (long long)size, grow ? " after growing it" : "", first,
		      buf[first], first >= 2 * PAGE && first < data ? eof_pat(n, first) : 0,
		      first >= EOF_SIZE0 && !data ?
		      ": bytes stored past EOF by a write that never committed became file data" : "");
out:
	close(fd);
	free(buf);
	return 1;
}

static int do_run_eof(unsigned long ops, int arm_point, long arm_at, const char *param)
{
	struct statfs sf;
	unsigned n;

	if (statfs(g_dir, &sf) < 0)
		die("statfs: %s", strerror(errno));
	emit("0 start profile=eof ops=%lu bfree=%llu inodes=%llu blocks=%llu", ops,
	     (unsigned long long)sf.f_bfree, (unsigned long long)(sf.f_files - sf.f_ffree),
	     (unsigned long long)sf.f_blocks);
	for (n = 1; n <= ops; n++) {
		if (eof_op(n, arm_point, arm_at, param)) {
			printf("FAIL run: operation %u failed\n", n);
			return 1;
		}
		emit("%u eof e%u", n, n);
	}
	for (n = 1; n <= ops; n++)
		eof_check(n, 1, 1);
	printf("%s run (%lu operations)\n", n_fail ? "FAIL" : "PASS", ops);
	return n_fail ? 1 : 0;
}

static int do_verify_eof(const struct records *r, unsigned long ops)
{
	char text[64];
	unsigned n, last = r->max == -1u ? 0 : r->max, names = 0, want;
	DIR *dir;
	struct dirent *de;

	if (last > ops)
		die("record %u is past the %lu operations", last, ops);
	printf("INFO: profile eof, %lu operations, %u completed (records)\n", ops, last);
	for (n = 1; n <= last; n++) {
		snprintf(text, sizeof(text), "eof e%u", n);
		if (r->text[n] && strcmp(r->text[n], text))
			failf("record %u is \"%s\", expected \"%s\"", n, r->text[n], text);
		eof_check(n, 1, 1);
	}
	want = last;
	if (last < ops) {
		printf("INFO: in flight: op %u: eof e%u\n", last + 1, last + 1);
		want += eof_check(last + 1, 0, 1);
	}
	dir = opendir(g_dir);
	if (!dir)
		die("%s: %s", g_dir, strerror(errno));
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			names++;
	closedir(dir);
	if (names != want)
		failf("%u names in %s, expected %u", names, g_dir, want);
	if (n_fail) {
		printf("FAIL verify (%d problems)\n", n_fail);
		return 1;
	}
	printf("verify: matched eof after op %u (%u files)\n", last, want);
	printf("PASS verify\n");
	return 0;
}

static int do_list(unsigned long ops, int profile)
{
	struct model m;
	struct gen g;
	struct op op;
	char text[3 * MAXP];
	unsigned n;

	m_init(&m);
	gen_init(&g, profile);
	for (n = 1; n <= ops; n++) {
		gen_next(&g, &m, &op);
		op_text(&op, text, sizeof(text));
		printf("%u %s\n", n, text);
		apply(&m, &op, NULL, NULL);
	}
	m_free(&m);
	return 0;
}

/* ------------------------------------------------------------ stress */

static int do_stress(void)
{
	char dir[DIRMAX + 16], path[DIRMAX + 32];
	unsigned char *buf, *rb;
	int i, fails = 0, nf = 150;
	size_t sizes[150];
	struct statfs a, b;

	snprintf(dir, sizeof(dir), "%s/.stress", g_dir);
	if (statfs(g_dir, &a) < 0 || mkdir(dir, 0755) < 0) {
		printf("FAIL stress: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	buf = xmalloc(1 << 20);
	rb = xmalloc(1 << 20);
	for (i = 0; i < nf; i++) {
		uint64_t s = g_seed + i;
		int fd;

		sizes[i] = i % 10 == 0 ? (1 << 20) : 1 + splitmix64(&s) % 70000;
		snprintf(path, sizeof(path), "%s/s%d", dir, i);
		fill_data(buf, sizes[i], 0xF00000 + i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || write_all(fd, buf, sizes[i], 0, 0) || close(fd)) {
			printf("FAIL stress: write %s: %s\n", path, strerror(errno));
			fails++;
			break;
		}
	}
	for (i = 0; i < nf && !fails; i++) {
		int fd;
		ssize_t r;

		snprintf(path, sizeof(path), "%s/s%d", dir, i);
		fill_data(buf, sizes[i], 0xF00000 + i);
		fd = open(path, O_RDONLY);
		r = fd < 0 ? -1 : read(fd, rb, sizes[i] + 1);
		if (fd >= 0)
			close(fd);
		if (r != (ssize_t)sizes[i] || memcmp(buf, rb, sizes[i])) {
			printf("FAIL stress: %s reads back wrong (%zd of %zu bytes)\n", path, r,
			       sizes[i]);
			fails++;
		}
	}
	for (i = 0; i < nf; i++) {
		snprintf(path, sizeof(path), "%s/s%d", dir, i);
		unlink(path);
	}
	if (rmdir(dir) < 0) {
		printf("FAIL stress: rmdir %s: %s\n", dir, strerror(errno));
		fails++;
	}
	statfs(g_dir, &b);
	printf("INFO: stress: free blocks %llu before, %llu after\n",
	       (unsigned long long)a.f_bfree, (unsigned long long)b.f_bfree);
	free(buf);
	free(rb);
	printf("%s stress\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}

/* ------------------------------------------------------------ main */

static void usage(void) __attribute__((noreturn));
static void usage(void)
{
	fprintf(stderr,
		"usage: %s run DIR SEED OPS [--profile P] [--arm POINT@K] [--param FILE] [--records DEV]\n"
		"       %s verify DIR SEED RECORDFILE [--profile P] [--ops N]\n"
		"       %s stress DIR SEED\n"
		"       %s list SEED OPS [--profile P]\n"
		"       %s ace list|run DIR W|verify DIR W K [--seq N] [--trace F] [--out DEV] [--proc DIR]\n"
		"profiles: mixed (default), write, ns, gc, xattr, crypt, clone, eof (run and verify)\n",
		prog, prog, prog, prog, prog);
	exit(2);
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad number: %s", s);
	return v;
}

/* ------------------------------------------------------------ ace */

/*
 * ace: the workloads of the store-level crash tests
 * (tests/crash/run-crash-stores.sh), in the style of ACE (Mohan et al.,
 * OSDI '18): a small prepared tree, then one call (seq 1) or two (seq 2)
 * of every kind, each with and without a trailing fsync; writes in place
 * too (module parameter inplace_data_updates=1, "inplace" in the list);
 * and a log at its GC threshold, then one more entry.
 *
 *   crashwork ace list [--seq N]
 *   crashwork ace run DIR W [--seq N] [--trace FILE] [--out DEV] [--proc DIR]
 *                     [--gc-at N]
 *   crashwork ace verify DIR W K [--seq N]
 *
 * run: on an empty, freshly formatted DIR, the setup (untraced), then
 * "start" to the persistence trace FILE (/proc/fs/NOVA/<dev>/pmemtrace of
 * a NOVA_DEBUG module), each call of workload W between "begin W<w>
 * c<k> <call>" and "end", then "stop"; the trace goes into the archive
 * DEV (an index in its first 256 KiB, then the traces, 4 KiB aligned).
 * Finally the tree must equal the model.  A GC workload (gc=1 fast, 2
 * thorough in the list) first runs without --gc-at: it prints "ACE-GC-AT
 * N", the write that ran the first GC of its kind; then, on a fresh file
 * system, --gc-at N traces that write.
 *
 * verify: the tree of a crash image taken during call K (1..; 0: before
 * the first, calls + 1: after the last) must equal the model's state
 * before call K or after one of its atomic steps (every call atomic; all
 * earlier calls, fsync'ed or not, complete: NOVA's calls are synchronous).
 */
#define ACE_SEED	21
#define ACE_FILL_N	900000	/* the pattern of every GC-preparation write */
#define ACE_HOT_PAGES	64
#define ACE_MAXOPS	4
#define ACE_INDEX	(256 * 1024)

static const char *const ace_setup[] = {
	"mkdir A", "mkdir B", "mkdir C", "mkdir D",
	"create A/foo 10000", "create A/bar 100", "create B/baz 5000",
	"create D/x 10", "symlink A/sl foo", "xset A/foo user.k 20 0",
	"create A/big 20480", "link B/baz D/bazlink",
};
#define ACE_NSETUP (sizeof(ace_setup) / sizeof(ace_setup[0]))

/* every call of seq 1; "inplace": with inplace_data_updates=1 */
static const char *const ace_ops[] = {
	"create A/new 0", "create A/new 3000", "mkdir A/sub", "mkdir C/sub",
	"link A/foo B/foolink", "unlink A/bar", "unlink B/baz", "unlink A/foo",
	"rmdir C", "rename A/bar A/bar2", "rename A/bar B/bar", "rename A/bar B/baz",
	"rename C B/C", "rename C D/x2", "rename A/sl B/sl", "exchange A/foo B/baz",
	"exchange C A/bar", "symlink A/sl2 ../B/baz",
	"truncate A/foo 20000", "truncate A/foo 1000", "truncate A/foo 0",
	"falloc A/foo 0 8192 12288", "falloc A/foo keep 12288 8192",
	"falloc A/foo punch 4096 4096", "falloc A/foo zero 1000 5000",
	"pwrite A/foo 100 200", "pwrite A/foo 4096 4096", "pwrite A/foo 9000 3000",
	"append A/bar 500", "chmod A/foo 0600", "chmod C 0700",
	"chown A/foo 1000 1000", "chown C 1000 1000", "utimes A/foo 1000000",
	"xset A/foo user.new 100 create", "xset A/foo user.k 30 replace",
	"xrm A/foo user.k", "setacl A/foo access u::rw-,u:1001:r--,g::r--,m::r--,o::---",
	"setacl C default u::rwx,g::r-x,o::---",
	"shift A/big collapse 4096 4096", "shift A/big insert 4096 4096",
	"tmpfile A 3000 0644 A/t1", "tmpfile A 3000 0644 -", "unlinkopen A/bar",
	"inplace pwrite A/foo 100 200", "inplace pwrite A/foo 4096 4096",
	"inplace pwrite A/foo 9000 3000", "inplace append A/bar 500",
	"gc fast", "gc thorough",
};
#define ACE_NOPS (sizeof(ace_ops) / sizeof(ace_ops[0]))

struct ace_w {
	int nops;
	struct op ops[ACE_MAXOPS];
	int inplace;
	int gc;			/* 1 fast, 2 thorough: A/hot at its GC threshold */
};

/* "KIND PATH MODE OFF LEN": the offset and length of a range call */
static void ace_off_len(const char *spec, struct op *op)
{
	unsigned long long x, y;

	if (sscanf(spec, "%*s %*s %*s %llu %llu", &x, &y) != 2)
		die("ace: bad call \"%s\"", spec);
	op->off = x;
	op->len = y;
}

static void ace_parse(const char *spec, struct op *op, unsigned n)
{
	char k[32], a[MAXP], b[MAXP], c[64];
	unsigned long long x = 0, y = 0;
	int f;

	memset(op, 0, sizeof(*op));
	op->n = n;
	*b = *c = 0;
	f = sscanf(spec, "%31s %1023s %1023s %63s %llu %llu", k, a, b, c, &x, &y);
	if (f < 2)
		die("ace: bad call \"%s\"", spec);
	snprintf(op->a, MAXP, "%s", a);
	for (op->kind = 0; op->kind < OP_NK; op->kind++)
		if (!strcmp(opname[op->kind], k))
			break;
	switch (op->kind) {
	case OP_CREATE: case OP_APPEND: case OP_TRUNCATE:
		op->len = op->off = strtoull(b, NULL, 0);
		if (op->kind != OP_TRUNCATE)
			op->off = 0;
		break;
	case OP_PWRITE:
		op->off = strtoull(b, NULL, 0);
		op->len = strtoull(c, NULL, 0);
		break;
	case OP_RENAME: case OP_EXCHANGE: case OP_LINK: case OP_SYMLINK: case OP_XRM:
		snprintf(op->b, MAXP, "%s", b);
		break;
	case OP_FALLOC:
		op->fl = !strcmp(b, "keep") ? FALLOC_FL_KEEP_SIZE :
			 !strcmp(b, "punch") ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
			 !strcmp(b, "zero") ? FALLOC_FL_ZERO_RANGE : 0;
		ace_off_len(spec, op);
		break;
	case OP_CHMOD:
		op->off = strtoull(b, NULL, 8);
		break;
	case OP_CHOWN:
		op->off = strtoull(b, NULL, 0);
		op->len = strtoull(c, NULL, 0);
		break;
	case OP_UTIMES:
		op->off = strtoull(b, NULL, 0);
		break;
	case OP_XSET:
		snprintf(op->b, MAXP, "%s", b);
		op->len = strtoull(c, NULL, 0);
		if (sscanf(spec, "%*s %*s %*s %*s %63s", c) != 1)
			die("ace: bad call \"%s\"", spec);
		op->fl = !strcmp(c, "create") ? XATTR_CREATE : !strcmp(c, "replace") ? XATTR_REPLACE : 0;
		break;
	case OP_SETACL:
		op->fl = !strcmp(b, "default");
		snprintf(op->b, MAXP, "%s", c);
		break;
	case OP_SHIFT:
		op->fl = !strcmp(b, "collapse") ? FALLOC_FL_COLLAPSE_RANGE : FALLOC_FL_INSERT_RANGE;
		ace_off_len(spec, op);
		break;
	case OP_TMPFILE:
		op->len = strtoull(b, NULL, 0);
		op->off = strtoull(c, NULL, 8);
		if (sscanf(spec, "%*s %*s %*s %*s %1023s", b) != 1)
			die("ace: bad call \"%s\"", spec);
		op->fl = strcmp(b, "-") != 0;
		if (op->fl)
			snprintf(op->b, MAXP, "%s", b);
		break;
	case OP_MKDIR: case OP_UNLINK: case OP_RMDIR: case OP_UNLINKOPEN: case OP_FSYNC:
		break;
	default:
		die("ace: unknown call \"%s\"", spec);
	}
}

/* May @op run on the state @m (the second call of a pair)? */
static int ace_valid(const struct model *m, const struct op *op)
{
	const char *slash = strrchr(op->a, '/');
	char par[MAXP];
	int id = m_lookup(m, op->a), p, id2;
	const struct mnode *x = id >= 0 ? &m->n[id] : NULL;

	snprintf(par, sizeof(par), "%.*s", slash ? (int)(slash - op->a) : 0, op->a);
	p = m_lookup(m, par);
	switch (op->kind) {
	case OP_MKDIR: case OP_CREATE: case OP_SYMLINK:
		return !x && p >= 0 && m->n[p].type == T_DIR;
	case OP_TMPFILE:
		return x && x->type == T_DIR && (!op->fl || m_lookup(m, op->b) < 0);
	case OP_LINK:
		return x && x->type == T_REG && m_lookup(m, op->b) < 0;
	case OP_UNLINK: case OP_UNLINKOPEN:
		return x && x->type != T_DIR;
	case OP_RMDIR:
		return x && x->type == T_DIR && !x->nents;
	case OP_RENAME:
		if (!x)
			return 0;
		id2 = m_lookup(m, op->b);
		if (id2 >= 0)
			return (m->n[id2].type == T_DIR) == (x->type == T_DIR) &&
			       (m->n[id2].type != T_DIR || !m->n[id2].nents);
		snprintf(par, sizeof(par), "%s", op->b);
		*(strrchr(par, '/') ? strrchr(par, '/') : par) = 0;
		p = m_lookup(m, par);
		return p >= 0 && m->n[p].type == T_DIR && p != id;
	case OP_EXCHANGE:
		return x && m_lookup(m, op->b) >= 0;
	case OP_APPEND: case OP_PWRITE: case OP_TRUNCATE: case OP_FALLOC:
		return x && x->type == T_REG;
	case OP_SHIFT:
		return x && x->type == T_REG && (op->fl == FALLOC_FL_COLLAPSE_RANGE ?
			op->off + op->len < x->size : op->off < x->size);
	case OP_XSET:
		if (!x || (op->fl && (x_find(x, op->b) >= 0) != (op->fl == XATTR_REPLACE)))
			return 0;
		return 1;
	case OP_XRM:
		return x && x_find(x, op->b) >= 0;
	default:
		return x != NULL;
	}
}

/* fsync after @op: its file, else (gone) its parent directory */
static void ace_fsync_op(const struct model *m, const struct op *op, struct op *f, unsigned n)
{
	const char *slash;

	memset(f, 0, sizeof(*f));
	f->kind = OP_FSYNC;
	f->n = n;
	if (op->kind == OP_TMPFILE) {
		snprintf(f->a, MAXP, "%s", op->fl ? op->b : op->a);
	} else if (m_lookup(m, op->a) >= 0) {
		snprintf(f->a, MAXP, "%s", op->a);
	} else {
		slash = strrchr(op->a, '/');
		snprintf(f->a, MAXP, "%.*s", slash ? (int)(slash - op->a) : 0, op->a);
	}
	if (op->kind == OP_RENAME || op->kind == OP_LINK)
		snprintf(f->a, MAXP, "%s", op->b);
	/* a symlink cannot be opened itself: its directory */
	if (m_lookup(m, f->a) >= 0 && m->n[m_lookup(m, f->a)].type == T_LNK) {
		slash = strrchr(f->a, '/');
		if (slash)
			*(char *)slash = 0;
		else
			*f->a = 0;
	}
}

static void ace_setup_model(struct model *m)
{
	struct op op;
	unsigned i;

	m_init(m);
	for (i = 0; i < ACE_NSETUP; i++) {
		ace_parse(ace_setup[i], &op, i + 1);
		apply(m, &op, NULL, NULL);
	}
}

/* one call of seq-1 entry @i: 0 if it is not a plain call (gc) */
static int ace_call(unsigned i, struct op *op, int *inplace, unsigned n)
{
	const char *s = ace_ops[i];

	*inplace = !strncmp(s, "inplace ", 8);
	if (*inplace)
		s += 8;
	if (!strncmp(s, "gc ", 3))
		return 0;
	ace_parse(s, op, n);
	return 1;
}

/* The gc preparation's write of page @k of A/hot: the fill pattern */
static void ace_hot_fill_op(struct op *op, unsigned k)
{
	memset(op, 0, sizeof(*op));
	op->kind = OP_HOT;
	op->n = ACE_FILL_N;
	snprintf(op->a, MAXP, "A/hot");
	op->off = (uint64_t)k * PAGE;
	op->len = PAGE;
}

/* The gc preparation in the model: A/hot, every page the fill pattern */
static void ace_gc_model(struct model *m)
{
	struct op op;
	unsigned k;

	ace_parse("create A/hot 0", &op, 50);
	apply(m, &op, NULL, NULL);
	for (k = 0; k < ACE_HOT_PAGES; k++) {
		ace_hot_fill_op(&op, k);
		apply(m, &op, NULL, NULL);
	}
}

/*
 * Workload @w of sequence length @seq: 0, or -1 past the last.  seq 1:
 * every call alone, then with a trailing fsync; seq 2: every valid pair
 * of the plain copy-on-write calls.
 */
static int ace_workload(int seq, unsigned w, struct ace_w *out)
{
	struct model m0, m1;
	unsigned i, j, k = 0;
	int inpl, inpl2;
	struct op a, b;

	memset(out, 0, sizeof(*out));
	if (seq == 1) {
		if (w >= 2 * ACE_NOPS)
			return -1;
		i = w % ACE_NOPS;
		if (!ace_call(i, &out->ops[0], &out->inplace, 101)) {
			out->gc = strstr(ace_ops[i], "thorough") ? 2 : 1;
			memset(&out->ops[0], 0, sizeof(out->ops[0]));
			out->ops[0].kind = OP_HOT;
			out->ops[0].n = 101;
			snprintf(out->ops[0].a, MAXP, "A/hot");
			out->ops[0].len = PAGE;
		}
		out->nops = 1;
		if (w >= ACE_NOPS) {
			ace_setup_model(&m0);
			if (out->gc)
				ace_gc_model(&m0);
			apply(&m0, &out->ops[0], NULL, NULL);
			ace_fsync_op(&m0, &out->ops[0], &out->ops[1], 102);
			m_free(&m0);
			out->nops = 2;
		}
		return 0;
	}
	if (seq != 2)
		return -1;
	ace_setup_model(&m0);
	for (i = 0; i < ACE_NOPS; i++) {
		if (!ace_call(i, &a, &inpl, 101) || inpl)
			continue;
		m_clone(&m1, &m0);
		apply(&m1, &a, NULL, NULL);
		for (j = 0; j < ACE_NOPS; j++) {
			if (!ace_call(j, &b, &inpl2, 102) || inpl2 || !ace_valid(&m1, &b))
				continue;
			if (k++ == w) {
				out->ops[0] = a;
				out->ops[1] = b;
				out->nops = 2;
				m_free(&m1);
				m_free(&m0);
				return 0;
			}
		}
		m_free(&m1);
	}
	m_free(&m0);
	return -1;
}

static void ace_text(const struct ace_w *W, char *buf, size_t sz)
{
	char t[3 * MAXP];
	size_t n = 0;
	int k;

	*buf = 0;
	for (k = 0; k < W->nops; k++) {
		op_text(&W->ops[k], t, sizeof(t));
		n += snprintf(buf + n, sz - n, "%s%s", k ? " ; " : "", t);
		if (n >= sz)
			break;
	}
}

static int do_ace_list(int seq)
{
	struct ace_w W;
	char t[4 * MAXP];
	unsigned w;

	for (w = 0; !ace_workload(seq, w, &W); w++) {
		ace_text(&W, t, sizeof(t));
		printf("W %u inplace=%d gc=%d calls=%d %s%s\n", w, W.inplace, W.gc, W.nops,
		       W.gc ? (W.gc == 1 ? "[A/hot at its fast-GC threshold] " :
			       "[A/hot at its thorough-GC threshold] ") : "", t);
	}
	return 0;
}

static void ace_ctl(const char *trace, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ace_ctl(const char *trace, const char *fmt, ...)
{
	char buf[4 * MAXP];
	va_list ap;
	int fd, n;

	if (!trace)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(trace, O_WRONLY);
	if (fd < 0 || write(fd, buf, n) != n)
		die("%s: \"%s\": %s", trace, buf, strerror(errno));
	close(fd);
}

/* fast_gc_runs + thorough_gc_runs of /proc/fs/NOVA/<dev>/gc */
static unsigned long long ace_gc_runs(const char *proc, unsigned long long *thorough)
{
	char path[MAXP], name[64];
	unsigned long long v, sum = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/gc", proc);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	*thorough = 0;
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, "fast_gc_runs"))
			sum += v;
		if (!strcmp(name, "thorough_gc_runs")) {
			sum += v;
			*thorough = v;
		}
	}
	fclose(f);
	return sum;
}

/* The i-th write of the GC preparation: page 0, or now and then another */
static void ace_gc_write(int gc, unsigned long i, unsigned n)
{
	struct op op;

	memset(&op, 0, sizeof(op));
	op.kind = OP_HOT;
	op.n = n;
	snprintf(op.a, MAXP, "A/hot");
	op.len = PAGE;
	/* thorough: one live entry in every log page keeps pages from dying */
	if (gc == 2 && i % 24 == 23)
		op.off = (uint64_t)(1 + (i / 24) % (ACE_HOT_PAGES - 1)) * PAGE;
	if (execute(&op))
		die("the GC preparation failed");
}

/* Append @len bytes of trace to the archive @dev */
static void ace_archive(const char *dev, unsigned w, int seq, const char *data, size_t len)
{
	int fd = open(dev, O_RDWR | O_DIRECT);
	size_t alen = (len + 4095) & ~(size_t)4095;
	uint64_t *idx, next, cnt;
	char *buf;

	if (fd < 0)
		die("%s: %s", dev, strerror(errno));
	if (posix_memalign((void **)&idx, 4096, ACE_INDEX) ||
	    posix_memalign((void **)&buf, 4096, alen ? alen : 4096))
		die("out of memory");
	if (pread(fd, idx, ACE_INDEX, 0) != ACE_INDEX)
		die("%s: reading the index: %s", dev, strerror(errno));
	if (memcmp(idx, "NOVAPTAR", 8)) {
		memset(idx, 0, ACE_INDEX);
		memcpy(idx, "NOVAPTAR", 8);
		idx[1] = 0;
		idx[2] = ACE_INDEX;
	}
	cnt = idx[1];
	next = idx[2];
	if (8 + 4 * (cnt + 1) > ACE_INDEX / 8)
		die("%s: the archive index is full", dev);
	memset(buf, 0, alen);
	memcpy(buf, data, len);
	if (alen && pwrite(fd, buf, alen, next) != (ssize_t)alen)
		die("%s: writing the trace: %s", dev, strerror(errno));
	idx[8 + 4 * cnt] = next;
	idx[8 + 4 * cnt + 1] = len;
	idx[8 + 4 * cnt + 2] = w;
	idx[8 + 4 * cnt + 3] = seq;
	idx[1] = cnt + 1;
	idx[2] = next + alen;
	if (pwrite(fd, idx, ACE_INDEX, 0) != ACE_INDEX || fsync(fd))
		die("%s: writing the index: %s", dev, strerror(errno));
	close(fd);
	free(idx);
	free(buf);
}

static int do_ace_run(int seq, unsigned w, const char *trace, const char *out,
		      const char *proc, long gc_at)
{
	struct ace_w W;
	struct model m;
	struct op op;
	struct snode root;
	struct diffs *d;
	char t[3 * MAXP];
	unsigned long long gc0 = 0, th0 = 0;
	unsigned i;
	int k, fd;

	if (ace_workload(seq, w, &W))
		die("no workload %u of seq %d", w, seq);
	umask(0);
	ace_setup_model(&m);
	for (i = 0; i < ACE_NSETUP; i++) {
		ace_parse(ace_setup[i], &op, i + 1);
		if (execute(&op))
			die("setup call %u failed", i + 1);
	}
	if (W.gc) {
		unsigned long long before, after, th1;
		unsigned long n = 0;

		ace_parse("create A/hot 0", &op, 50);
		if (execute(&op))
			die("setup: create A/hot failed");
		for (i = 0; i < ACE_HOT_PAGES; i++) {
			ace_hot_fill_op(&op, i);
			if (execute(&op))
				die("setup: writing A/hot failed");
		}
		ace_gc_model(&m);
		if (gc_at <= 0) {
			/*
			 * calibration: the first write that runs a GC of the
			 * kind; on a fresh file system the same writes lead to
			 * the same logs, so --gc-at N makes write N the traced one
			 */
			before = ace_gc_runs(proc, &th0);
			do {
				ace_gc_write(W.gc, n++, ACE_FILL_N);
				after = ace_gc_runs(proc, &th1);
				if (n > 20000)
					die("no GC after %lu writes", n);
			} while (W.gc == 2 ? th1 == th0 : after == before);
			printf("ACE-GC-AT %lu\n", n);
			m_free(&m);
			return 0;
		}
		while (n + 1 < (unsigned long)gc_at)
			ace_gc_write(W.gc, n++, ACE_FILL_N);
		/* the traced write is the gc_at-th, to page 0 with new data */
		if (W.gc == 2 && n % 24 == 23)
			die("--gc-at %ld: that write of the pattern is not to page 0", gc_at);
		printf("INFO: GC preparation: %lu writes, then the traced one\n", n);
	}
	gc0 = W.gc ? ace_gc_runs(proc, &th0) : 0;
	sync();
	ace_ctl(trace, "start");
	for (k = 0; k < W.nops; k++) {
		op_text(&W.ops[k], t, sizeof(t));
		ace_ctl(trace, "begin W%u c%d %s", w, k + 1, t);
		if (execute(&W.ops[k]))
			die("call %d (%s) failed", k + 1, t);
		ace_ctl(trace, "end");
		apply(&m, &W.ops[k], NULL, NULL);
	}
	ace_ctl(trace, "stop");
	if (W.gc) {
		unsigned long long th, now = ace_gc_runs(proc, &th);

		printf("ACE-GC %s: %llu GC runs in the traced calls (%llu thorough)\n",
		       now > gc0 ? "ok" : "MISSED", now - gc0, th - th0);
		if (now == gc0)
			failf("workload %u: no GC in its traced calls", w);
	}
	if (trace && out) {
		size_t cap = 1 << 20, len = 0;
		char *buf = xmalloc(cap);
		ssize_t r;

		fd = open(trace, O_RDONLY);
		if (fd < 0)
			die("%s: %s", trace, strerror(errno));
		while ((r = read(fd, buf + len, cap - len)) > 0) {
			len += r;
			if (len == cap)
				buf = xrealloc(buf, cap *= 2);
		}
		if (r < 0)
			die("%s: read: %s", trace, strerror(errno));
		close(fd);
		ace_archive(out, w, seq, buf, len);
		printf("INFO: trace of workload %u: %zu bytes\n", w, len);
		free(buf);
	}
	d = xmalloc(sizeof(*d));
	take_snapshot(&root);
	if (compare(&m, &root, d)) {
		failf("after workload %u the file system differs from the model", w);
		print_diffs(d, "  ");
	}
	snap_free(&root);
	m_free(&m);
	free(d);
	ace_text(&W, t, sizeof(t));
	printf("%s ace run W%u: %s\n", n_fail ? "FAIL" : "PASS", w, t);
	return n_fail ? 1 : 0;
}

static int do_ace_verify(int seq, unsigned w, int call)
{
	struct ace_w W;
	struct model m, tmp;
	struct cands cs;
	struct snode root;
	struct diffs *d = xmalloc(sizeof(*d));
	char t[3 * MAXP];
	int k, best = -1, bestn = 0;

	if (ace_workload(seq, w, &W) || call < 0 || call > W.nops + 1)
		die("no workload %u of seq %d, call %d", w, seq, call);
	ace_setup_model(&m);
	if (W.gc)
		ace_gc_model(&m);
	for (k = 0; k + 1 < call && k < W.nops; k++)
		apply(&m, &W.ops[k], NULL, NULL);
	cs.n = 0;
	memset(&tmp, 0, sizeof(tmp));
	cs.op = &W.ops[0];
	add_cand(&m, "", &cs);
	snprintf(cs.c[0].label, sizeof(cs.c[0].label), "before call %d", call);
	/*
	 * in-place mode (README): an overwrite within the size may leave a
	 * mix of old and new bytes; the size and new blocks commit at once
	 */
	if (W.inplace && call >= 1 && call <= W.nops && W.ops[call - 1].kind == OP_PWRITE) {
		const struct op *o = &W.ops[call - 1];
		int id = m_lookup(&m, o->a);
		struct mnode *x = id >= 0 ? &m.n[id] : NULL;

		if (x && o->off < x->size) {
			uint64_t e = o->off + o->len < x->size ? o->off + o->len : x->size;
			unsigned char *buf = xmalloc(o->len);

			fill_data(buf, o->len, o->n);
			x->alt = xmalloc(x->size);
			memcpy(x->alt, x->data, x->size);
			memcpy(x->alt + o->off, buf, e - o->off);
			cs.op = o;
			add_cand(&m, "in place: bytes partly written, the size not yet", &cs);
			free(x->alt);
			x->alt = NULL;
			free(buf);
		}
	}
	if (call >= 1 && call <= W.nops) {
		op_text(&W.ops[call - 1], t, sizeof(t));
		printf("INFO: in flight: call %d: %s\n", call, t);
		cs.op = &W.ops[call - 1];
		m_clone(&tmp, &m);
		apply(&tmp, &W.ops[call - 1], add_cand, &cs);
		m_free(&tmp);
	}
	take_snapshot(&root);
	best = closest_state(&cs, &root, d, &bestn);
	if (!bestn) {
		printf("verify: matched %s\n", cs.c[best].label);
	} else {
		failf("the file system matches none of the %d allowed states", cs.n);
		compare(&cs.c[0].m, &root, d);
		printf("  differences from the state before call %d (%d):\n", call, d->n);
		print_diffs(d, "    ");
		print_closest(&cs, best, &root, d);
	}
	check_statfs(&root, -1);
	verify_end(&root, &cs, &m, d);
	printf("%s verify\n", n_fail ? "FAIL" : "PASS");
	return n_fail ? 1 : 0;
}

static int do_ace(int argc, char **argv)
{
	const char *trace = NULL, *out = NULL, *proc = "/proc/fs/NOVA/pmem0";
	long gc_at = 0;
	char *pos[4];
	int seq = 1, npos = 0, i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--seq") && i + 1 < argc)
			seq = num(argv[++i]);
		else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
			trace = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--proc") && i + 1 < argc)
			proc = argv[++i];
		else if (!strcmp(argv[i], "--gc-at") && i + 1 < argc)
			gc_at = num(argv[++i]);
		else if (argv[i][0] == '-' || npos == 4)
			usage();
		else
			pos[npos++] = argv[i];
	}
	g_seed = ACE_SEED;
	if (npos >= 1 && !strcmp(pos[0], "list") && npos == 1)
		return do_ace_list(seq);
	if (npos < 3)
		usage();
	snprintf(g_dir, sizeof(g_dir), "%s", pos[1]);
	if (!strcmp(pos[0], "run") && npos == 3)
		return do_ace_run(seq, num(pos[2]), trace, out, proc, gc_at);
	if (!strcmp(pos[0], "verify") && npos == 4)
		return do_ace_verify(seq, num(pos[2]), num(pos[3]));
	usage();
}

int main(int argc, char **argv)
{
	const char *cmd, *param = "/sys/module/nova/parameters/crash_point", *records = NULL;
	int profile = -1, arm_point = -1, i, npos = 0;
	long arm_at = -1, ops_arg = -1, stop_after = -1;
	char *pos[4];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage();
	cmd = argv[1];
	if (!strcmp(cmd, "ace"))
		return do_ace(argc, argv);
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--profile") && i + 1 < argc) {
			profile = parse_profile(argv[++i]);
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			ops_arg = num(argv[++i]);
		} else if (!strcmp(argv[i], "--records") && i + 1 < argc) {
			records = argv[++i];
		} else if (!strcmp(argv[i], "--stop-after") && i + 1 < argc) {
			stop_after = num(argv[++i]);	/* testing verify */
		} else if (!strcmp(argv[i], "--param") && i + 1 < argc) {
			param = argv[++i];
		} else if (!strcmp(argv[i], "--arm") && i + 1 < argc) {
			char *at = strchr(argv[++i], '@');

			if (!at)
				usage();
			*at = 0;
			arm_point = num(argv[i]);
			arm_at = num(at + 1);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage();
		} else if (npos < 4) {
			pos[npos++] = argv[i];
		} else {
			usage();
		}
	}
	if (!strcmp(cmd, "list")) {
		if (npos != 2 || profile == P_EOF)
			usage();
		g_seed = num(pos[0]);
		return do_list(num(pos[1]), profile < 0 ? P_MIXED : profile);
	}
	if (npos < 2)
		usage();
	snprintf(g_dir, sizeof(g_dir), "%s", pos[0]);
	while (strlen(g_dir) > 1 && g_dir[strlen(g_dir) - 1] == '/')
		g_dir[strlen(g_dir) - 1] = 0;
	g_seed = num(pos[1]);
	if (!strcmp(cmd, "run") && npos == 3 && records)
		rec_open(records);
	if (!strcmp(cmd, "run") && npos == 3 && profile == P_EOF)
		return do_run_eof(num(pos[2]), arm_point, arm_at, param);
	if (!strcmp(cmd, "run") && npos == 3)
		return do_run(num(pos[2]), profile < 0 ? P_MIXED : profile, arm_point,
			      arm_at, param, stop_after);
	if (!strcmp(cmd, "verify") && npos == 3)
		return do_verify(pos[2], profile, ops_arg);
	if (!strcmp(cmd, "stress") && npos == 2)
		return do_stress();
	usage();
}
