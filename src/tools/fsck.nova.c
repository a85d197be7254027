// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova: check and repair a NOVA file system on a pmem device or an
 * image file, without the kernel module.
 *
 *   fsck.nova [-n | -y | -p | -a] [-f] [-v] [-V] device|image
 *
 * The checks follow what the kernel does at mount and when it reads an
 * inode, so that "clean" here means "the kernel mounts it and can read
 * every file":
 *
 *   super blocks      nova_check_super() on both copies, agreement;
 *                     the replica in the file system's last block, or
 *                     when the primary is bad found as the kernel finds
 *                     it (nova_replica_next() in nova_format.h)
 *   journals          the lite journals' pointers and entries exactly as
 *                     nova_journal_recover() validates them; an open
 *                     transaction is rolled back as it does (with -n the
 *                     roll-back happens in a private copy, so the rest of
 *                     the check sees what the kernel would)
 *   reserved inodes   the root inode, the replica block n-2
 *   inode tables      every stripe's chain: pointers, loops
 *   inode logs        page chains, tails, entry types and lengths,
 *                     checksums, increasing trans_ids, entries the
 *                     replay rejects (extended attribute groups among
 *                     them), page-tail counters and dead marks (both
 *                     steer the log garbage collector); the super
 *                     block's xattr feature when a log holds xattrs
 *   namespace         names -> valid inodes of the right type, directory
 *                     hard links, readdir cookies, "..", connectivity,
 *                     orphans, link counts
 *   blocks            every block used once, inside the data area (the
 *                     model of bbuild.c)
 *
 * Repairs append ordinary log entries (removal dentries, link-change
 * entries, write entries) or move a log tail back: what the kernel
 * itself would write.
 *
 * Exit status (as e2fsck): 0 no errors, 1 errors corrected, 4 errors
 * left uncorrected, 8 operational error, 16 usage error; bits combine.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <mntent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "libnova.h"

#ifndef NOVA_VERSION
#define NOVA_VERSION "unknown"
#endif

#define FSCK_OK			0
#define FSCK_NONDESTRUCT	1
#define FSCK_UNCORRECTED	4
#define FSCK_ERROR		8
#define FSCK_USAGE		16

enum { M_ASK, M_NO, M_YES, M_PREEN };

static const char *prog = "fsck.nova";
static int mode = M_ASK;
static bool force, verbose;
static const char *dev;
static struct nv_fs fs;
static bool private_map;		/* -n: changes stay in memory */
static bool first_run = true;
static unsigned long n_fixed, n_unfixed, run_fixed;
static int64_t now;
/* finish() ends a run here (fsck_main() returns the code) */
static jmp_buf finish_jmp;
static int finish_code;

/* ------------------------------------------------------------ output */

static void finish(int code) __attribute__((noreturn));

static void vreport(const char *tag, const char *fmt, va_list ap)
{
	if (mode == M_PREEN)
		printf("%s: ", dev);
	if (tag)
		printf("%s", tag);
	vprintf(fmt, ap);
	putchar('\n');
}

static bool ask(void)
{
	char line[64];

	for (;;) {
		printf("Fix<y>? ");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin)) {
			printf("\n");
			return false;
		}
		if (line[0] == 'y' || line[0] == 'Y' || line[0] == '\n')
			return true;
		if (line[0] == 'n' || line[0] == 'N')
			return false;
	}
}

/*
 * A problem: print it and say whether to fix it.  @preen_ok: -p may fix
 * it (the kernel would do the same, or nothing is lost).
 */
static bool __attribute__((format(printf, 2, 3)))
problem(bool preen_ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("ERROR: ", fmt, ap);
	va_end(ap);
	switch (mode) {
	case M_YES:
		return true;
	case M_PREEN:
		if (preen_ok)
			return true;
		printf("\n%s: UNEXPECTED INCONSISTENCY; RUN fsck.nova MANUALLY.\n"
		       "\t(i.e., without -a or -p options)\n", dev);
		n_unfixed++;
		finish(FSCK_UNCORRECTED);
	case M_NO:
		n_unfixed++;
		return false;
	default:
		if (ask())
			return true;
		n_unfixed++;
		return false;
	}
}

static void __attribute__((format(printf, 1, 2))) fixed(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("FIXED: ", fmt, ap);
	va_end(ap);
	n_fixed++;
	run_fixed++;
}

static void __attribute__((format(printf, 1, 2))) not_fixed(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("NOT FIXED: ", fmt, ap);
	va_end(ap);
	n_unfixed++;
}

static void __attribute__((format(printf, 1, 2))) info(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void __attribute__((format(printf, 1, 2))) pass(const char *fmt, ...)
{
	va_list ap;

	if (mode == M_PREEN || !first_run)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void finish(int code)
{
	if (fs.map && fs.mode == NV_OPEN_RW && nv_sync(&fs)) {
		fprintf(stderr, "%s: %s: writing the repairs failed: %s\n", prog,
			dev, strerror(errno));
		code |= FSCK_ERROR;
	}
	nv_close(&fs);
	fflush(stdout);
	if (n_fixed)
		code |= FSCK_NONDESTRUCT;
	if (n_unfixed)
		code |= FSCK_UNCORRECTED;
	finish_code = code;
	longjmp(finish_jmp, 1);
}

/* --------------------------------------------------- block ownership */

/*
 * What each block is used for, one byte per block; who uses it is only
 * looked up (by a search) when a block turns out to be used twice.
 */
enum { K_FREE, K_FIXED, K_TABLE, K_JOURNAL, K_LOG, K_DATA };
static uint8_t *bkind;
static unsigned int owner_searches;

/* The inode whose log (or data) holds @blk, 0 if none is found */
static uint64_t find_owner(uint64_t blk, bool data, uint64_t exclude)
{
	uint64_t ino, max = nv_max_ino(&fs), b;
	size_t i, it;

	if (++owner_searches > 32)
		return 0;
	for (ino = NOVA_ROOT_INO; ino < max; ino++) {
		struct nv_inode_state st;
		bool found = false;

		if (ino == NOVA_BLOCKNODE_INO || ino == NOVA_INODELIST_INO ||
		    ino == exclude || !nv_inode_slot_valid(&fs, ino) ||
		    nv_iread(&fs, ino, &st, data ? 0 : NV_IREAD_NO_DATA, NULL, NULL))
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

/* Who uses @blk (other than inode @exclude, if not 0) */
static const char *owner_desc_x(uint64_t blk, uint64_t exclude)
{
	static char buf[4][80];
	static int k;
	char *b = buf[k++ & 3];
	unsigned int s;
	uint64_t i, ino;

	switch (bkind[blk]) {
	case K_FIXED:
		return "the fixed area or a snapshot";
	case K_TABLE:
		for (s = 0; s < fs.stripes; s++)
			for (i = 0; i < fs.itab[s].n; i++)
				if (blk - (fs.itab[s].blocks[i] >> NOVA_BLOCK_SHIFT) <
				    fs.itb_blocks) {
					snprintf(b, 80, "stripe %u's inode table", s);
					return b;
				}
		return "an inode table";
	case K_JOURNAL:
		for (s = 0; s < fs.stripes; s++)
			if (blk - (nv_get64(&fs, nv_journal_ptr_off(s)) >>
				   NOVA_BLOCK_SHIFT) < fs.journal_pages) {
				snprintf(b, 80, "stripe %u's journal", s);
				return b;
			}
		return "a journal";
	case K_LOG:
	case K_DATA:
		ino = find_owner(blk, bkind[blk] == K_DATA, exclude);
		if (!ino && exclude)
			return bkind[blk] == K_LOG ? "its own log" :
			       "another of its own pages";
		if (!ino)
			return bkind[blk] == K_LOG ? "another inode's log" :
			       "another inode's data";
		snprintf(b, 80, "inode %llu's %s", (unsigned long long)ino,
			 bkind[blk] == K_LOG ? "log" : "data");
		return b;
	}
	return "nothing";
}

static const char *owner_desc(uint64_t blk)
{
	return owner_desc_x(blk, 0);
}

static void claim(uint64_t blk, int kind)
{
	bkind[blk] = kind;
	nv_mark_used(&fs, blk, 1);
}

static bool page_free(void *arg, uint64_t page)
{
	(void)arg;
	return bkind[page >> NOVA_BLOCK_SHIFT] == K_FREE;
}

/* --------------------------------------------------------- inodes */

struct nent {
	uint64_t ino, off, cookie;
	uint8_t ftype, len;
	char *name;
};

struct ninfo {
	bool valid;			/* readable inode */
	bool reserved;			/* 2..31 */
	uint32_t mode, links;
	uint64_t parent;		/* ".." */
	uint32_t names, subdirs, dirnames;
	uint64_t ndir;			/* directory of the first name */
	char *nname;
	bool reachable;
	struct nent *ents;		/* directories: live names */
	size_t nents;
};

static struct ninfo *ni;
static uint64_t ni_max;

static void ns_free(void)
{
	uint64_t i;
	size_t j;

	for (i = 0; ni && i < ni_max; i++) {
		for (j = 0; j < ni[i].nents; j++)
			free(ni[i].ents[j].name);
		free(ni[i].ents);
		free(ni[i].nname);
	}
	free(ni);
	ni = NULL;
	ni_max = 0;
}

static const char *type_str(uint32_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR:	return "directory";
	case S_IFREG:	return "regular file";
	case S_IFLNK:	return "symlink";
	case S_IFCHR:	return "character device";
	case S_IFBLK:	return "block device";
	case S_IFIFO:	return "fifo";
	case S_IFSOCK:	return "socket";
	}
	return "inode";
}

/*
 * A name read from the image, for messages: its control characters
 * escaped (nova_safe_str()).  One of 8 buffers is used in turn, so one
 * message can show several (ipath() uses none of them).
 */
static const char *pname(const char *name)
{
	static char buf[8][NOVA_SAFE_SIZE(NOVA_NAME_LEN)];
	static unsigned int k;

	return nova_safe_str(buf[k++ & 7], sizeof(buf[0]), name, strlen(name));
}

/* The path of @ino through first names, for messages (escaped) */
static const char *ipath(uint64_t ino)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *b = buf[k++ & 3], tmp[PATH_MAX];
	char esc[NOVA_SAFE_SIZE(NOVA_NAME_LEN)];
	int depth = 0;

	if (ino == NOVA_ROOT_INO)
		return "/";
	b[0] = '\0';
	while (ino != NOVA_ROOT_INO) {
		if (!ni || ino >= ni_max || !ni[ino].nname || ++depth > 64) {
			if (depth > 64)	/* a cycle */
				b[0] = '\0';
			snprintf(tmp, sizeof(tmp), "<inode %llu>%s",
				 (unsigned long long)ino, b);
			snprintf(b, PATH_MAX, "%s", tmp);
			return b;
		}
		nova_safe_str(esc, sizeof(esc), ni[ino].nname,
			      strlen(ni[ino].nname));
		snprintf(tmp, sizeof(tmp), "/%s%s", esc, b);
		snprintf(b, PATH_MAX, "%s", tmp);
		ino = ni[ino].ndir;
	}
	return b;
}

static uint64_t tail_field(uint64_t ino)
{
	return nv_inode_off(&fs, ino) + offsetof(struct nova_inode, log_tail);
}

static uint64_t head_field(uint64_t ino)
{
	return nv_inode_off(&fs, ino) + offsetof(struct nova_inode, log_head);
}

static uint64_t pt_field(uint64_t page, size_t field)
{
	return page + NOVA_LOG_LAST_ENTRY + field;
}

/* -------------------------------------------------- pass: super block */

static bool sb_problems;

static void write_super_copies(void)
{
	fs.sb.s_sum = cpu_to_le32(nova_sb_csum(&fs.sb));
	nv_put(&fs, 0, &fs.sb, sizeof(fs.sb));
	nv_put(&fs, nv_replica_sb_off(&fs), &fs.sb, sizeof(fs.sb));
}

static void pass_super(void)
{
	const struct nova_super_block *p = nv_ptr(&fs, 0), *r;
	const char *pwhy, *rwhy;
	uint64_t roff, scanned;
	uint32_t state;

	sb_problems = false;
	pwhy = nova_check_super(p, fs.dev_size);
	if (!pwhy) {
		nv_set_geometry(&fs, p);
		roff = nv_replica_sb_off(&fs);
		r = nv_ptr(&fs, roff);
		rwhy = nova_check_super(r, fs.dev_size);
		if (rwhy) {
			sb_problems = true;
			if (problem(true, "replica super block (block %llu) is invalid: %s",
				    (unsigned long long)(roff >> NOVA_BLOCK_SHIFT), rwhy)) {
				nv_put(&fs, roff, p, NOVA_BLOCK_SIZE);
				fixed("replica super block rewritten from the primary");
			}
		} else if (memcmp(p, r, sizeof(*p))) {
			sb_problems = true;
			if (problem(true, "primary and replica super blocks differ")) {
				nv_put(&fs, roff, p, NOVA_BLOCK_SIZE);
				fixed("replica super block rewritten from the primary");
			}
		}
	} else {
		/* the kernel's search (nova_format.h, nova_replica_next()) */
		roff = nv_find_replica(&fs, &rwhy, &scanned);
		if (!roff) {
			fprintf(stderr,
				"%s: %s: no valid NOVA super block (primary: %s; replica: %s%s)\n",
				prog, dev, pwhy, rwhy,
				scanned ? "; no other found on the device" : "");
			finish(FSCK_ERROR);
		}
		r = nv_ptr(&fs, roff);
		nv_set_geometry(&fs, r);
		sb_problems = true;
		if (first_run && scanned && mode != M_PREEN)
			printf("replica super block found in block %llu by a search of %llu blocks\n",
			       (unsigned long long)(roff >> NOVA_BLOCK_SHIFT),
			       (unsigned long long)scanned);
		if (problem(true, "primary super block is invalid (%s); the replica in block %llu is valid",
			    pwhy, (unsigned long long)(roff >> NOVA_BLOCK_SHIFT))) {
			nv_put(&fs, 0, r, NOVA_BLOCK_SIZE);
			fixed("primary super block rewritten from the replica");
		}
	}
	state = le32_to_cpu(fs.sb.s_state);
	if (state & ~(NOVA_STATE_CLEAN | NOVA_STATE_ERROR)) {
		sb_problems = true;
		if (problem(true, "super block state 0x%x has unknown bits", state)) {
			fs.sb.s_state = cpu_to_le32(state & (NOVA_STATE_CLEAN |
							    NOVA_STATE_ERROR));
			write_super_copies();
			fixed("unknown super block state bits cleared");
		}
	}
	if (first_run && (fs.sb.s_feature_compat & ~cpu_to_le64(NOVA_FEATURE_COMPAT_SUPP) ||
			  fs.sb.s_feature_ro_compat & ~cpu_to_le64(NOVA_FEATURE_RO_COMPAT_SUPP)))
		printf("WARNING: the file system has features this fsck.nova does not know\n");
	info("super block: %llu blocks, %u stripes, %u-byte inode table blocks, state 0x%x",
	     (unsigned long long)fs.nblocks, fs.stripes, fs.itbs,
	     le32_to_cpu(fs.sb.s_state));
	if (fs.size < fs.map_size)
		info("the file system ends %llu blocks before the device's end",
		     (unsigned long long)((fs.map_size - fs.size) >> NOVA_BLOCK_SHIFT));
}

/* ----------------------------------------------------- pass: journals */

#define J_SLOTS	(NOVA_BLOCK_SIZE / sizeof(struct nova_journal_entry))
static int *jreset;			/* per stripe: 2 = needs a new page */

static uint64_t j_prev(uint64_t base, uint64_t pos)
{
	return pos == base ? base + NOVA_BLOCK_SIZE - sizeof(struct nova_journal_entry) :
	       pos - sizeof(struct nova_journal_entry);
}

static bool j_entry_ok(const struct nova_journal_entry *e)
{
	uint64_t addr = le64_to_cpu(e->data1);

	return le64_to_cpu(e->type) == NOVA_JOURNAL_ENTRY &&
	       le32_to_cpu(e->e_csum) ==
	       nova_crc32c(e, offsetof(struct nova_journal_entry, e_csum)) &&
	       !(addr & 7) && addr >= NOVA_BLOCK_SIZE &&
	       addr <= (fs.nblocks << NOVA_BLOCK_SHIFT) - 8;	/* no wrap */
}

static void pass_journals(void)
{
	unsigned int s;

	free(jreset);
	jreset = calloc(fs.stripes, sizeof(*jreset));
	for (s = 0; s < fs.stripes; s++) {
		uint64_t jo = nv_journal_ptr_off(s);
		uint64_t head = nv_get64(&fs, jo), tail = nv_get64(&fs, jo + 8);
		uint64_t base = head & ~(uint64_t)(NOVA_BLOCK_SIZE - 1), pos;
		unsigned int n = 0, k = 0;
		bool bad = false, fix;

		if (!nv_page_valid(&fs, base) ||
		    (tail & ~(uint64_t)(NOVA_BLOCK_SIZE - 1)) != base ||
		    head % sizeof(struct nova_journal_entry) ||
		    tail % sizeof(struct nova_journal_entry)) {
			if (problem(false, "stripe %u: journal pointers (head 0x%llx, tail 0x%llx) are invalid",
				    s, (unsigned long long)head,
				    (unsigned long long)tail)) {
				if (nv_page_valid(&fs, base) &&
				    !(head % sizeof(struct nova_journal_entry))) {
					nv_put64(&fs, jo + 8, head);
					fixed("stripe %u: journal emptied (tail set to head 0x%llx)",
					      s, (unsigned long long)head);
				} else {
					jreset[s] = 2;	/* after the block scan */
				}
			} else {
				jreset[s] = 1;	/* unusable, not fixed */
			}
			continue;
		}
		if (head == tail)
			continue;
		for (pos = tail; pos != head && n <= J_SLOTS; n++) {
			pos = j_prev(base, pos);
			if (!j_entry_ok(nv_ptr(&fs, pos))) {
				bad = true;
				break;
			}
		}
		if (n > J_SLOTS)
			bad = true;
		if (bad)
			fix = problem(true, "stripe %u: uncommitted journal transaction with a corrupt entry after %u good one%s (the kernel refuses to mount)",
				      s, n, n == 1 ? "" : "s");
		else {
			/*
			 * An operation cut short by a crash: normal after a
			 * power cut, and mount rolls it back (like ext4's
			 * needs_recovery).  Not an error: -n checks the
			 * rolled-back state, a repairing run rolls it back.
			 */
			printf("stripe %u: uncommitted journal transaction (%u entr%s) of an operation cut short by a crash\n",
			       s, n, n == 1 ? "y" : "ies");
			fix = mode != M_NO;
		}
		if (!fix && !private_map)
			continue;
		/* nova_journal_recover(): old values back, newest first */
		for (pos = tail; pos != head && k < J_SLOTS; k++) {
			const struct nova_journal_entry *e;

			pos = j_prev(base, pos);
			e = nv_ptr(&fs, pos);
			if (!j_entry_ok(e))
				break;
			nv_put64(&fs, le64_to_cpu(e->data1), le64_to_cpu(e->data2));
		}
		nv_put64(&fs, jo, tail);
		if (fix)
			fixed("stripe %u: rolled back %u journal entr%s%s", s, k,
			      k == 1 ? "y" : "ies",
			      bad ? ", discarded the corrupt rest" : "");
		else
			printf("  (%s; checking the rolled-back state)\n",
			       bad ? "a repair rolls back the good entries" :
			       "the kernel rolls it back at mount");
	}
}

/* ---------------------------------------------- pass: reserved inodes */

static bool root_ok(const struct nova_inode *pi)
{
	return pi->i_valid == NOVA_INODE_VALID &&
	       le64_to_cpu(pi->i_ino) == NOVA_ROOT_INO &&
	       S_ISDIR(le16_to_cpu(pi->i_mode));
}

static void pass_reserved(void)
{
	uint64_t b1 = (uint64_t)NOVA_RESERVED_INODE_BLOCK << NOVA_BLOCK_SHIFT;
	uint64_t rb = (fs.nblocks - 2) << NOVA_BLOCK_SHIFT;
	struct nova_inode *root = nv_ptr(&fs, b1 + NOVA_ROOT_INO * sizeof(*root));
	struct nova_inode *rroot = nv_ptr(&fs, rb + NOVA_ROOT_INO * sizeof(*root));
	unsigned int i;

	if (!root_ok(root)) {
		const char *why = root->i_valid != NOVA_INODE_VALID ? "not valid" :
				  le64_to_cpu(root->i_ino) != NOVA_ROOT_INO ?
				  "wrong inode number" : "not a directory";

		if (problem(false, "root inode is invalid (%s)", why)) {
			struct nova_inode n;
			struct nv_log lg;

			if (root_ok(rroot)) {
				n = *rroot;
				/* keep the primary's log if it is sound */
				nv_log_scan(&fs, le64_to_cpu(root->log_head),
					    le64_to_cpu(root->log_tail), &lg,
					    NULL, NULL, NULL, NULL);
				if (!lg.err && !lg.chain_err && root->log_head) {
					n.log_head = root->log_head;
					n.log_tail = root->log_tail;
				}
				nv_log_free(&lg);
				nv_put(&fs, b1 + NOVA_ROOT_INO * sizeof(n), &n, sizeof(n));
				fixed("root inode restored from the replica block%s",
				      n.log_head == root->log_head ? "" :
				      " (with the replica's log)");
			} else {
				memset(&n, 0, sizeof(n));
				n.i_mode = cpu_to_le16(S_IFDIR | 0755);
				n.i_links_count = cpu_to_le32(2);
				n.i_size = cpu_to_le64(NOVA_BLOCK_SIZE);
				n.i_atime = n.i_mtime = n.i_ctime = n.i_btime =
					cpu_to_le64((uint64_t)now);
				n.i_ino = cpu_to_le64(NOVA_ROOT_INO);
				n.i_valid = NOVA_INODE_VALID;
				nv_put(&fs, b1 + NOVA_ROOT_INO * sizeof(n), &n, sizeof(n));
				fixed("root inode re-created as an empty directory");
			}
		}
	}
	/*
	 * The replica: only the log pointers may differ (the kernel never
	 * refreshes them there), and the clean-unmount snapshot inodes are
	 * not replicated at all.
	 */
	for (i = 0; i < NOVA_RESERVED_INODES; i++) {
		if (i == NOVA_BLOCKNODE_INO || i == NOVA_INODELIST_INO)
			continue;
		struct nova_inode a = *(struct nova_inode *)nv_ptr(&fs, b1 + i * sizeof(a));
		struct nova_inode b = *(struct nova_inode *)nv_ptr(&fs, rb + i * sizeof(b));

		a.log_head = a.log_tail = b.log_head = b.log_tail = 0;
		if (!memcmp(&a, &b, sizeof(a)))
			continue;
		if (problem(true, "the replica of the reserved inodes (block %llu) differs from block %u (inode %u)",
			    (unsigned long long)(fs.nblocks - 2),
			    NOVA_RESERVED_INODE_BLOCK, i)) {
			nv_put(&fs, rb, nv_ptr(&fs, b1), NOVA_BLOCK_SIZE);
			fixed("replica of the reserved inodes rewritten from block %u",
			      NOVA_RESERVED_INODE_BLOCK);
		}
		break;
	}
}

/* ------------------------------------------------- pass: inode tables */

static int *itreset;			/* per stripe: table head to replace */

static void pass_itables(void)
{
	unsigned int s;
	uint64_t b, i;
	bool changed;

	free(itreset);
	itreset = calloc(fs.stripes, sizeof(*itreset));
	do {
		changed = false;
		if (nv_load_itables(&fs)) {
			fprintf(stderr, "%s: out of memory\n", prog);
			finish(FSCK_ERROR);
		}
		for (s = 0; s < fs.stripes; s++) {
			struct nv_itable *t = &fs.itab[s];

			if (!t->err || itreset[s])
				continue;
			if (t->err == NV_CHAIN_HEAD) {
				if (problem(false, "stripe %u: inode table head pointer 0x%llx is invalid",
					    s, (unsigned long long)t->err_ptr))
					itreset[s] = 2;	/* after the block scan */
				else
					itreset[s] = 1;
				continue;
			}
			if (problem(false, "stripe %u: inode table block 0x%llx: next pointer 0x%llx %s",
				    s, (unsigned long long)t->err_block,
				    (unsigned long long)t->err_ptr,
				    t->err == NV_CHAIN_LOOP ?
				    "points to an inode table block (loop)" :
				    "is outside the data area or misaligned")) {
				nv_put64(&fs, t->err_block + fs.itbs - 8, 0);
				fixed("stripe %u: inode table ends at block 0x%llx (next pointer cleared)",
				      s, (unsigned long long)t->err_block);
				changed = true;
			}
		}
	} while (changed);

	/* the block map: fixed areas, tables, journals */
	free(bkind);
	bkind = calloc(fs.nblocks, 1);
	owner_searches = 0;
	if (!bkind || nv_alloc_init(&fs)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		finish(FSCK_ERROR);
	}
	for (b = 0; b < fs.data_start; b++)
		bkind[b] = K_FIXED;
	for (b = fs.data_end + 1; b < fs.nblocks; b++)
		bkind[b] = K_FIXED;
	for (s = 0; s < fs.stripes; s++)
		for (i = 0; i < fs.itab[s].n; i++)
			for (b = 0; b < fs.itb_blocks; b++)
				claim((fs.itab[s].blocks[i] >> NOVA_BLOCK_SHIFT) + b,
				      K_TABLE);
	for (s = 0; s < fs.stripes; s++) {
		uint64_t base = nv_get64(&fs, nv_journal_ptr_off(s)) &
				~(uint64_t)(NOVA_BLOCK_SIZE - 1);
		uint64_t first = base >> NOVA_BLOCK_SHIFT;

		if (jreset[s])
			continue;
		for (b = first; b < first + fs.journal_pages; b++) {
			if (b < fs.data_start || b > fs.data_end ||
			    bkind[b] != K_FREE) {
				if (problem(false, "stripe %u: journal page %llu is %s",
					    s, (unsigned long long)b,
					    b < fs.data_start || b > fs.data_end ?
					    "outside the data area" : owner_desc(b)))
					jreset[s] = 2;
				else
					jreset[s] = 1;
				break;
			}
		}
		if (jreset[s])
			continue;
		for (b = first; b < first + fs.journal_pages; b++)
			claim(b, K_JOURNAL);
	}
	for (s = 0; s < fs.stripes; s++)
		info("stripe %u: %zu inode table block(s)", s, fs.itab[s].n);
}

/* ------------------------------------------------ pass: inode logs */

static uint64_t n_inodes, n_xattr_entries, n_xattrs;

struct cmp_state {
	char what[120];
};

static bool zero_block(uint64_t blk)
{
	const uint8_t *p = nv_ptr(&fs, blk);
	size_t i;

	for (i = 0; i < NOVA_BLOCK_SIZE; i++)
		if (p[i])
			return false;
	return true;
}

/* Do two replays of one inode give the same file system state? */
static bool same_state(struct nv_inode_state *a, struct nv_inode_state *b,
		       char *what, size_t len)
{
	size_t i, it;
	uint64_t pg, blk, blk2, limit;

	if (a->links != b->links || a->mode != b->mode || a->uid != b->uid ||
	    a->gid != b->gid || a->size != b->size || a->flags != b->flags) {
		snprintf(what, len, "attributes differ");
		return false;
	}
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
	if (S_ISDIR(a->mode)) {
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
	}
	if (S_ISLNK(a->mode) && (a->symlink_block != b->symlink_block ||
				 a->pages.n != b->pages.n)) {
		snprintf(what, len, "the symlink's target block is not counted as used");
		return false;
	}
	if (!S_ISREG(a->mode))
		return true;
	limit = (a->size + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT;
	for (it = 0; nv_pmap_next(&b->pages, &it, &pg, &blk, NULL);) {
		if (pg >= limit)
			continue;
		if (!nv_pmap_get(&a->pages, pg, &blk2, NULL) ? !zero_block(blk) :
		    blk2 != blk) {
			snprintf(what, len, "file page %llu lost",
				 (unsigned long long)pg);
			return false;
		}
	}
	for (it = 0; nv_pmap_next(&a->pages, &it, &pg, &blk, NULL);) {
		if (pg < limit && !nv_pmap_get(&b->pages, pg, NULL, NULL) &&
		    !zero_block(blk)) {
			snprintf(what, len, "file page %llu resurrected",
				 (unsigned long long)pg);
			return false;
		}
	}
	return true;
}

/* Call @fn for every entry of the valid part of a log */
typedef void (*entry_fn)(uint64_t off, const uint8_t *p, void *arg);

static void for_each_entry(const struct nv_log *lg, entry_fn fn, void *arg)
{
	uint64_t cur = lg->head, end = lg->good_end;
	size_t idx = 0;

	while (cur && cur != end) {
		const uint8_t *p = nv_ptr(&fs, cur);
		size_t in = cur & (NOVA_BLOCK_SIZE - 1), sz;

		if (in >= NOVA_LOG_LAST_ENTRY || *p == NOVA_NEXT_PAGE) {
			if (++idx >= lg->npages)
				break;
			cur = lg->pages[idx];
			continue;
		}
		sz = nv_entry_size(p, NOVA_LOG_LAST_ENTRY - in);
		if (!sz)
			break;
		fn(cur, p, arg);
		cur += sz;
	}
}

static void clear_marks_fn(uint64_t off, const uint8_t *p, void *arg)
{
	int fo = nv_entry_flag_offset(p[0]);

	if (fo >= 0 && p[fo]) {
		nv_put8(&fs, off + fo, 0);
		(*(unsigned int *)arg)++;
	}
	if (p[0] == NOVA_FILE_WRITE)
		nv_put32(&fs, off + offsetof(struct nova_file_write_entry,
					     invalid_pages), 0);
}

/* Clear every dead mark of a log (entries, write entries' page counts,
 * page tails): always safe, the marks only steer the garbage collector */
static unsigned int clear_dead_marks(struct nv_inode_state *st)
{
	const struct nv_log *lg = &st->log;
	unsigned int n = 0;
	size_t i;

	for_each_entry(lg, clear_marks_fn, &n);
	for (i = 0; i < lg->npages; i++)
		nv_put32(&fs, pt_field(lg->pages[i],
				       offsetof(struct nova_log_page_tail, invalid_entries)),
			 0);
	return n;
}

struct pages_ck {
	struct nv_inode_state *all;
	uint64_t bad, first, recorded, actual;
	bool fix;
};

/* A write entry may not count more superseded pages than it has */
static void pages_fn(uint64_t off, const uint8_t *p, void *arg)
{
	struct pages_ck *c = arg;
	const struct nova_file_write_entry *e = (const void *)p;
	uint64_t actual = 0;
	uint32_t rec;

	if (p[0] != NOVA_FILE_WRITE || !e->block)
		return;
	rec = le32_to_cpu(e->invalid_pages);
	nv_pmap_get(&c->all->superseded, off, &actual, NULL);
	if (rec <= actual)
		return;
	if (!c->bad++) {
		c->first = off;
		c->recorded = rec;
		c->actual = actual;
	}
	if (c->fix)
		nv_put32(&fs, off + offsetof(struct nova_file_write_entry,
					     invalid_pages), actual);
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
static int neutralize(uint64_t ino, struct nv_inode_state *st, uint64_t off)
{
	uint8_t *p = nv_ptr(&fs, off), save[NOVA_XATTR_ENTRY_MAX];
	size_t in = off & (NOVA_BLOCK_SIZE - 1), size = nv_entry_size(p, NOVA_LOG_LAST_ENTRY - in);
	uint64_t page = off - in, tid = st->log.last_tid + 1;
	uint64_t inv = pt_field(page, offsetof(struct nova_log_page_tail, invalid_entries));
	uint32_t old_inv = le32_to_cpu(*(uint32_t *)nv_ptr(&fs, inv));
	/* part 0 of the live xattr group @off is in, if not @off itself */
	uint64_t g = st->log.xgroup_off != off ? st->log.xgroup_off : 0;
	uint8_t *gp = g ? nv_ptr(&fs, g) : NULL, gsave[NOVA_XATTR_ENTRY_MAX];
	size_t gsize = 0;
	uint64_t ginv = 0;
	uint32_t old_ginv = 0;
	struct nv_inode_state ns;
	union {
		struct nova_setattr_entry sa;
		struct nova_link_change_entry lc;
		struct nova_dentry de;
		struct nova_xattr_entry xe;
		uint64_t raw[NOVA_XATTR_ENTRY_MAX / 8];
	} e, ge;
	bool ok;

	/* the last entry: truncating loses nothing more */
	if (!size || in + size > NOVA_LOG_LAST_ENTRY ||
	    ((st->log.tail & ~(uint64_t)(NOVA_BLOCK_SIZE - 1)) == page &&
	     off + size >= st->log.tail))
		return 0;
	if (g) {
		gsize = nv_entry_size(gp, NOVA_LOG_LAST_ENTRY -
				      (g & (NOVA_BLOCK_SIZE - 1)));
		if (!gsize)
			return 0;
		/* it passed the walk: its own trans_id fits */
		xattr_filler(&ge.xe, gsize, nv_entry_tid(gp));
		ginv = pt_field(g & ~(uint64_t)(NOVA_BLOCK_SIZE - 1),
				offsetof(struct nova_log_page_tail, invalid_entries));
	}
	memset(&e, 0, sizeof(e));
	if (p[0] == NOVA_XATTR) {
		/* part 0 of a group the replay rejected passed the walk */
		xattr_filler(&e.xe, size, off == st->log.xgroup_off ?
			     nv_entry_tid(p) : tid);
	} else if (size == sizeof(e.sa)) {
		e.sa.entry_type = NOVA_SET_ATTR;
		e.sa.invalid = 1;
		e.sa.trans_id = cpu_to_le64(tid);
	} else if (size == sizeof(e.lc)) {
		e.lc.entry_type = NOVA_LINK_CHANGE;
		e.lc.invalid = 1;
		e.lc.links = cpu_to_le32(st->links);
		e.lc.ctime = cpu_to_le64((uint64_t)st->ctime);
		e.lc.flags = cpu_to_le32(st->flags);
		e.lc.generation = cpu_to_le32(st->generation);
		e.lc.trans_id = cpu_to_le64(tid);
	} else if (S_ISDIR(st->mode) && size > NOVA_DENTRY_HEADER + 1 &&
		   NOVA_DENTRY_LEN(size - NOVA_DENTRY_HEADER - 1) == size &&
		   size - NOVA_DENTRY_HEADER - 1 <= NOVA_NAME_LEN) {
		e.de.entry_type = NOVA_DIR_LOG;
		e.de.name_len = size - NOVA_DENTRY_HEADER - 1;
		e.de.de_len = cpu_to_le16(size);
		e.de.invalid = 1;
		e.de.links_count = cpu_to_le32(st->links);
		e.de.mtime = cpu_to_le64((uint64_t)st->mtime);
		e.de.trans_id = cpu_to_le64(tid);
		memset(e.de.name, '~', e.de.name_len);
	} else {
		return 0;
	}
	memcpy(save, p, size);
	if (p[0] != NOVA_XATTR)
		nv_entry_csum(&e, size);
	nv_put(&fs, off, &e, size);
	nv_put32(&fs, inv, old_inv + 1);
	if (g) {
		memcpy(gsave, gp, gsize);
		old_ginv = le32_to_cpu(*(uint32_t *)nv_ptr(&fs, ginv));
		nv_put(&fs, g, &ge, gsize);
		nv_put32(&fs, ginv, old_ginv + 1);
	}
	/* kept if at least one entry after it is good */
	ok = !nv_iread(&fs, ino, &ns, NV_IREAD_NO_DATA |
			(ino != NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START ?
			 NV_IREAD_RAW : 0), page_free, NULL) &&
	     (!ns.log.err || ns.log.nentries > st->log.nentries + 1);
	nv_ifree(&ns);
	if (!ok) {
		if (g) {
			nv_put(&fs, g, gsave, gsize);
			nv_put32(&fs, ginv, old_ginv);
		}
		nv_put(&fs, off, save, size);
		nv_put32(&fs, inv, old_inv);
	}
	return ok ? 1 + !!g : 0;
}

/* -v: an inode's extended attributes, one a line */
static void list_xattrs(struct nv_inode_state *st)
{
	char name[NOVA_SAFE_SIZE(NOVA_XATTR_NAME_MAX) + 32], val[48];
	uint8_t v[40];
	size_t i, k;

	for (i = 0; verbose && i < st->nxattrs; i++) {
		const struct nv_xattr *x = &st->xattrs[i];
		bool text = x->value_len <= sizeof(v);

		nv_xattr_fullname(name, sizeof(name), x->index, x->name,
				  x->name_len);
		if (text)
			nv_xattr_read(&fs, x, v);
		for (k = 0; text && k < x->value_len; k++)
			text = v[k] >= 0x20 && v[k] < 0x7f && v[k] != '"';
		if (text)
			snprintf(val, sizeof(val), " \"%.*s\"", (int)x->value_len, v);
		else
			val[0] = '\0';
		info("inode %llu: xattr %s, %u bytes%s", (unsigned long long)st->ino,
		     name, x->value_len, val);
	}
}

static void check_inode(uint64_t ino)
{
	struct nv_inode_state st;
	struct nv_log *lg;
	uint64_t total_dead = 0, blk;
	size_t i, it;
	int rounds = 0;
	/* reserved inodes other than the root are only scanned, never read */
	unsigned int raw = ino != NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START ?
			   NV_IREAD_RAW : 0;

again:
	if (nv_iread(&fs, ino, &st, raw, page_free, NULL)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		finish(FSCK_ERROR);
	}
	lg = &st.log;
	if (++rounds > 8)
		goto claim;
	if (lg->chain_err == NV_CHAIN_HEAD) {
		uint64_t h = lg->chain_err_ptr;

		if (problem(false, "inode %llu: log head 0x%llx is %s", (unsigned long long)ino,
			    (unsigned long long)h,
			    !nv_page_valid(&fs, h) ? "outside the data area or misaligned" :
			    owner_desc(h >> NOVA_BLOCK_SHIFT))) {
			nv_put64(&fs, head_field(ino), 0);
			nv_put64(&fs, tail_field(ino), 0);
			fixed("inode %llu: log cleared (head and tail set to 0)",
			      (unsigned long long)ino);
			nv_ifree(&st);
			goto again;
		}
	} else if (lg->chain_err) {
		uint64_t page = lg->pages[lg->chain_err_idx], p = lg->chain_err_ptr;

		if (problem(false, "inode %llu: log page 0x%llx: next pointer 0x%llx %s%s",
			    (unsigned long long)ino, (unsigned long long)page,
			    (unsigned long long)p,
			    lg->chain_err == NV_CHAIN_LOOP ? "points back into the log (loop)" :
			    lg->chain_err == NV_CHAIN_RANGE ? "is outside the data area or misaligned" :
			    "points to a page of ",
			    lg->chain_err == NV_CHAIN_CONFLICT ?
			    owner_desc(p >> NOVA_BLOCK_SHIFT) : "")) {
			nv_put64(&fs, pt_field(page, offsetof(struct nova_log_page_tail,
							      next_page)), 0);
			fixed("inode %llu: log ends at page 0x%llx (next pointer cleared)",
			      (unsigned long long)ino, (unsigned long long)page);
			nv_ifree(&st);
			goto again;
		}
	}
	if (lg->err && lg->chain_err != NV_CHAIN_HEAD) {
		uint64_t nt = lg->err == NV_LOG_HEAD_ZERO_TAIL ? 0 : lg->good_end;

		if (problem(false, "inode %llu: %s", (unsigned long long)ino, lg->msg)) {
			int n = 0;

			if (lg->err == NV_LOG_CSUM || lg->err == NV_LOG_TID ||
			    lg->err == NV_LOG_SEMANTIC)
				n = neutralize(ino, &st, lg->err_off);
			if (n == 1)
				fixed("inode %llu: the entry at 0x%llx replaced by a dead entry that changes nothing, keeping the entries after it",
				      (unsigned long long)ino,
				      (unsigned long long)lg->err_off);
			else if (n)
				fixed("inode %llu: the entry at 0x%llx and part 0 of its xattr group at 0x%llx replaced by dead entries that change nothing, keeping the entries after them",
				      (unsigned long long)ino,
				      (unsigned long long)lg->err_off,
				      (unsigned long long)lg->xgroup_off);
			if (n) {
				nv_ifree(&st);
				goto again;
			}
			nv_put64(&fs, tail_field(ino), nt);
			if (lg->err == NV_LOG_HEAD_ZERO_TAIL)
				fixed("inode %llu: log tail cleared", (unsigned long long)ino);
			else if (lg->err == NV_LOG_TAIL_OUTSIDE)
				fixed("inode %llu: log tail set to 0x%llx, after its last valid entry (%llu entries kept)",
				      (unsigned long long)ino, (unsigned long long)nt,
				      (unsigned long long)lg->nentries);
			else
				fixed("inode %llu: log truncated to 0x%llx, dropping the entry at 0x%llx and all after it (%llu entries kept)",
				      (unsigned long long)ino, (unsigned long long)nt,
				      (unsigned long long)lg->err_off,
				      (unsigned long long)lg->nentries);
			nv_ifree(&st);
			goto again;
		}
	}
	if (st.bad) {
		if (problem(false, "inode %llu%s%s%s: %s", (unsigned long long)ino,
			    st.bad == NV_IBAD_MODE ? "" : " (",
			    st.bad == NV_IBAD_MODE ? "" : type_str(st.mode),
			    st.bad == NV_IBAD_MODE ? "" : ")", st.bad_msg)) {
			nv_put8(&fs, st.pi_off + offsetof(struct nova_inode, i_valid),
				NOVA_INODE_FREE);
			fixed("inode %llu cleared", (unsigned long long)ino);
			nv_ifree(&st);
			return;
		}
	}
	/* page tails: the fast GC frees a page when invalid >= num entries */
	for (i = 0; i < lg->npages; i++) {
		uint64_t pt = pt_field(lg->pages[i], 0);
		const struct nova_log_page_tail *t = nv_ptr(&fs, pt);
		uint32_t num = le32_to_cpu(t->num_entries);
		uint32_t inv = le32_to_cpu(t->invalid_entries);
		/* pages whose every entry was walked (not those after an error) */
		long walked = !lg->err && lg->tail_idx >= 0 ? lg->tail_idx :
			      lg->good_idx;

		total_dead += lg->ndead[i];
		if ((long)i >= walked)
			continue;	/* the tail page and after: not collected */
		if (inv <= lg->ndead[i] && num >= lg->nent[i])
			continue;
		if (problem(true, "inode %llu: log page 0x%llx: its tail counts %u entries, %u dead, but it holds %u, %u dead",
			    (unsigned long long)ino,
			    (unsigned long long)lg->pages[i], num, inv,
			    lg->nent[i], lg->ndead[i])) {
			if (num < lg->nent[i])
				nv_put32(&fs, pt + offsetof(struct nova_log_page_tail,
							    num_entries),
					 lg->nent[i]);
			nv_put32(&fs, pt + offsetof(struct nova_log_page_tail,
						    invalid_entries),
				 lg->ndead[i]);
			fixed("inode %llu: log page 0x%llx tail counts corrected",
			      (unsigned long long)ino,
			      (unsigned long long)lg->pages[i]);
		}
	}
	/*
	 * A thorough GC cut short between its commit (the tail in the new
	 * log) and its head switch: the log is the old one followed by the
	 * copy, so live names appear twice with the same cookie.  The kernel
	 * reads the later copy; the earlier ones die at the next rewrite.
	 * Normal after a power cut, not an error; a repairing run marks the
	 * superseded copies dead.
	 */
	if (st.dir.nselfck) {
		printf("directory %llu: %zu live name(s) logged twice with the same readdir cookie: a log rewrite cut short by a crash, the later copies count\n",
		       (unsigned long long)ino, st.dir.nselfck);
		if (mode != M_NO) {
			for (i = 0; i < st.dir.nselfck; i++)
				nv_invalidate_entry(&fs, st.dir.selfck[i]);
			fixed("directory %llu: the %zu superseded entries marked dead",
			      (unsigned long long)ino, st.dir.nselfck);
			nv_ifree(&st);
			goto again;
		}
	}
	/*
	 * Dead marks must only be on entries whose effect is superseded,
	 * and write entries may not count more superseded pages than they
	 * have (the kernel marks them dead when the count reaches their
	 * size): both are outside the checksums.
	 */
	if (!lg->err && !st.bad && !raw && (total_dead || S_ISREG(st.mode))) {
		struct nv_inode_state all;
		struct pages_ck pc = { .all = &all };
		char what[120];

		if (nv_iread(&fs, ino, &all, NV_IREAD_IGNORE_DEAD | NV_IREAD_COUNT,
			     NULL, NULL) == 0 && !all.log.err) {
			if (total_dead && !same_state(&st, &all, what, sizeof(what)) &&
			    problem(false, "inode %llu: log entries marked dead are still live (%s)",
				    (unsigned long long)ino, what)) {
				unsigned int n = clear_dead_marks(&st);

				fixed("inode %llu: dead marks cleared from %u log entries",
				      (unsigned long long)ino, n);
				nv_ifree(&all);
				nv_ifree(&st);
				goto again;
			}
			for_each_entry(lg, pages_fn, &pc);
			if (pc.bad && problem(true, "inode %llu: %llu write entr%s count more superseded pages than there are (at 0x%llx: %llu, not %llu)",
					      (unsigned long long)ino,
					      (unsigned long long)pc.bad,
					      pc.bad == 1 ? "y" : "ies",
					      (unsigned long long)pc.first,
					      (unsigned long long)pc.recorded,
					      (unsigned long long)pc.actual)) {
				pc.fix = true;
				pc.bad = 0;
				for_each_entry(lg, pages_fn, &pc);
				fixed("inode %llu: superseded page counts corrected in %llu write entr%s",
				      (unsigned long long)ino,
				      (unsigned long long)pc.bad, pc.bad == 1 ? "y" : "ies");
			}
		}
		nv_ifree(&all);
	}
claim:
	n_xattr_entries += st.xattr_entries;
	n_xattrs += st.nxattrs;
	list_xattrs(&st);
	for (i = 0; i < lg->npages; i++)
		claim(lg->pages[i] >> NOVA_BLOCK_SHIFT, K_LOG);
	for (it = 0; nv_pmap_next(&st.pages, &it, NULL, &blk, NULL);)
		nv_mark_used(&fs, blk >> NOVA_BLOCK_SHIFT, 1);
	n_inodes++;
	nv_ifree(&st);
}

/* Every valid inode, in the kernel's scan order (bbuild.c) */
typedef void (*inode_fn)(uint64_t ino);

static void for_each_slot(inode_fn fn, bool check_numbers)
{
	unsigned int s;
	uint64_t ino, b, slot;

	for (ino = NOVA_ROOT_INO; ino < NOVA_NORMAL_INODE_START; ino++) {
		uint64_t off = nv_inode_off(&fs, ino);
		struct nova_inode *pi = nv_pi(&fs, off);

		if (pi->i_valid != NOVA_INODE_VALID ||
		    ino == NOVA_BLOCKNODE_INO || ino == NOVA_INODELIST_INO)
			continue;	/* snapshots: pass_snapshot() */
		if (le64_to_cpu(pi->i_ino) != ino) {
			/* the root was dealt with in pass_reserved() */
			if (check_numbers &&
			    problem(false, "reserved inode slot %llu holds inode number %llu",
				    (unsigned long long)ino,
				    (unsigned long long)le64_to_cpu(pi->i_ino))) {
				nv_put8(&fs, off + offsetof(struct nova_inode, i_valid),
					NOVA_INODE_FREE);
				fixed("reserved inode slot %llu cleared",
				      (unsigned long long)ino);
			}
			continue;
		}
		fn(ino);
	}
	for (s = 0; s < fs.stripes; s++) {
		for (b = 0; b < fs.itab[s].n; b++) {
			for (slot = 0; slot < fs.per_block; slot++) {
				uint64_t idx = b * fs.per_block + slot;
				uint64_t off;
				struct nova_inode *pi;

				ino = idx * fs.stripes + s;
				if (ino < NOVA_NORMAL_INODE_START)
					continue;
				off = nv_inode_off(&fs, ino);
				pi = nv_pi(&fs, off);
				if (pi->i_valid != NOVA_INODE_VALID)
					continue;
				if (le64_to_cpu(pi->i_ino) != ino) {
					if (!check_numbers)
						continue;
					if (problem(false, "inode slot %llu holds inode number %llu",
						    (unsigned long long)ino,
						    (unsigned long long)le64_to_cpu(pi->i_ino))) {
						nv_put8(&fs, off + offsetof(struct nova_inode, i_valid),
							NOVA_INODE_FREE);
						fixed("inode slot %llu cleared",
						      (unsigned long long)ino);
					}
					continue;
				}
				fn(ino);
			}
		}
	}
}

static void deferred_fixes(void)
{
	unsigned int s;
	uint64_t blk;

	for (s = 0; s < fs.stripes; s++) {
		if (jreset[s] == 2) {
			if (!nv_alloc(&fs, fs.journal_pages, s, false, &blk)) {
				not_fixed("stripe %u: no free block for a new journal", s);
				continue;
			}
			nv_zero(&fs, blk << NOVA_BLOCK_SHIFT,
				(size_t)fs.journal_pages << NOVA_BLOCK_SHIFT);
			nv_put64(&fs, nv_journal_ptr_off(s), blk << NOVA_BLOCK_SHIFT);
			nv_put64(&fs, nv_journal_ptr_off(s) + 8, blk << NOVA_BLOCK_SHIFT);
			claim(blk, K_JOURNAL);
			fixed("stripe %u: new empty journal at block %llu", s,
			      (unsigned long long)blk);
		}
		if (itreset[s] == 2) {
			if (!nv_alloc(&fs, fs.itb_blocks, s, false, &blk)) {
				not_fixed("stripe %u: no free blocks for a new inode table", s);
				continue;
			}
			nv_zero(&fs, blk << NOVA_BLOCK_SHIFT, fs.itbs);
			nv_put64(&fs, nv_itable_ptr_off(s), blk << NOVA_BLOCK_SHIFT);
			fixed("stripe %u: new empty inode table at block %llu (its inodes are lost)",
			      s, (unsigned long long)blk);
		}
	}
}

static void pass_inodes(void)
{
	n_inodes = n_xattr_entries = n_xattrs = 0;
	for_each_slot(check_inode, true);
	deferred_fixes();
	info("%llu valid inodes", (unsigned long long)n_inodes);
	if (n_xattr_entries)
		info("%llu extended attributes, %llu xattr log entries",
		     (unsigned long long)n_xattrs,
		     (unsigned long long)n_xattr_entries);
	/* a module that predates them takes xattr entries for damage */
	if (n_xattr_entries &&
	    !(fs.sb.s_feature_incompat & cpu_to_le64(NOVA_FEATURE_INCOMPAT_XATTR)) &&
	    problem(true, "%llu log entries hold extended attributes, but the super block lacks the xattr feature",
		    (unsigned long long)n_xattr_entries)) {
		fs.sb.s_feature_incompat |= cpu_to_le64(NOVA_FEATURE_INCOMPAT_XATTR);
		write_super_copies();
		fixed("xattr feature (NOVA_FEATURE_INCOMPAT_XATTR) set in the super block");
	}
}

/* ----------------------------------------------------- namespace */

static int wlog_of(uint64_t ino, struct nv_wlog *w, struct nv_inode_state *keep)
{
	struct nv_inode_state st;

	if (nv_iread(&fs, ino, &st, NV_IREAD_NO_DATA, NULL, NULL))
		return -1;
	nv_wlog_from_state(w, &st);
	if (keep)
		*keep = st;
	else
		nv_ifree(&st);
	return 0;
}

static void ns_analyze(void)
{
	uint64_t ino, d;
	size_t i;

	ns_free();
	ni_max = nv_max_ino(&fs);
	ni = calloc(ni_max, sizeof(*ni));
	if (!ni) {
		fprintf(stderr, "%s: out of memory\n", prog);
		finish(FSCK_ERROR);
	}
	for (ino = NOVA_ROOT_INO; ino < ni_max; ino++) {
		struct nv_inode_state st;
		struct ninfo *n = &ni[ino];

		if (!nv_inode_slot_valid(&fs, ino) ||
		    nv_iread(&fs, ino, &st, NV_IREAD_NO_DATA, NULL, NULL))
			continue;
		n->valid = !st.bad;
		n->reserved = ino != NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START;
		n->mode = st.mode;
		n->links = st.links;
		n->parent = st.parent;
		if (n->valid && S_ISDIR(st.mode) && !n->reserved) {
			n->ents = calloc(st.dir.alive ? st.dir.alive : 1,
					 sizeof(*n->ents));
			for (i = 0; i < st.dir.n; i++) {
				struct nv_dent *e = &st.dir.d[i];
				struct nent *x;

				if (!e->alive)
					continue;
				x = &n->ents[n->nents++];
				x->ino = e->ino;
				x->off = e->off;
				x->cookie = e->cookie;
				x->ftype = e->ftype;
				x->len = e->len;
				x->name = strndup(e->name, e->len);
			}
		}
		nv_ifree(&st);
	}
	/* names */
	for (d = NOVA_ROOT_INO; d < ni_max; d++) {
		for (i = 0; i < ni[d].nents; i++) {
			struct nent *e = &ni[d].ents[i];
			struct ninfo *t;

			if (e->ino >= ni_max || e->ino == d ||
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
				t->nname = strdup(e->name);
				t->ndir = d;
			}
		}
	}
	for (d = NOVA_ROOT_INO; d < ni_max; d++)
		for (i = 0; i < ni[d].nents; i++) {
			struct nent *e = &ni[d].ents[i];

			if (e->ino < ni_max && ni[e->ino].valid &&
			    !ni[e->ino].reserved && e->ino != d &&
			    e->ino != NOVA_ROOT_INO && S_ISDIR(ni[e->ino].mode) &&
			    ni[e->ino].ndir == d && !strcmp(ni[e->ino].nname, e->name))
				ni[d].subdirs++;
		}
}

static bool remove_name(uint64_t d, const char *name, uint64_t old_off)
{
	struct nv_wlog w;

	/* the directory keeps its times: a repair is not a user change */
	if (wlog_of(d, &w, NULL))
		return false;
	if (nv_append_dentry(&fs, &w, name, strlen(name), 0, 0, NULL))
		return false;
	nv_log_commit(&fs, &w);
	if (old_off)
		nv_invalidate_entry(&fs, old_off);
	return true;
}

static bool readd_name(uint64_t d, const char *name, uint64_t ino, uint8_t ftype,
		       uint64_t old_off)
{
	struct nv_wlog w;

	if (wlog_of(d, &w, NULL))
		return false;
	if (nv_append_dentry(&fs, &w, name, strlen(name), ino, ftype, NULL))
		return false;
	nv_log_commit(&fs, &w);
	if (old_off)
		nv_invalidate_entry(&fs, old_off);
	return true;
}

static bool set_links(uint64_t ino, uint32_t links)
{
	struct nv_wlog w;
	uint64_t old;

	if (wlog_of(ino, &w, NULL))
		return false;
	old = w.last_lc;
	w.links = links;
	if (nv_append_link_change(&fs, &w, NULL))
		return false;
	nv_log_commit(&fs, &w);
	if (old)
		nv_invalidate_entry(&fs, old);
	return true;
}

static bool set_dotdot(uint64_t ino, uint64_t parent)
{
	struct nv_wlog w;

	if (wlog_of(ino, &w, NULL))
		return false;
	if (nv_append_dentry(&fs, &w, "..", 2, parent, nv_dtype(S_IFDIR), NULL))
		return false;
	nv_log_commit(&fs, &w);
	return true;
}

static int cmp_cookie(const void *a, const void *b)
{
	const struct nent *x = *(struct nent *const *)a, *y = *(struct nent *const *)b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

/* Names that point nowhere, have the wrong type, or share a cookie */
static bool ns_entries(void)
{
	uint64_t d;
	size_t i;
	bool changed = false;

	for (d = NOVA_ROOT_INO; d < ni_max; d++) {
		struct nent **byck;

		for (i = 0; i < ni[d].nents; i++) {
			struct nent *e = &ni[d].ents[i];
			const char *why = NULL;

			if (e->ino >= ni_max || !nv_inode_off(&fs, e->ino))
				why = "an inode number without a slot";
			else if (e->ino == NOVA_ROOT_INO)
				why = "the root directory";
			else if (e->ino == d)
				why = "the directory itself";
			else if (ni[e->ino].reserved)
				why = "a reserved inode";
			else if (!nv_inode_slot_valid(&fs, e->ino))
				why = "a free inode";
			else if (!ni[e->ino].valid)
				why = "an unreadable inode";
			if (why) {
				if (problem(false, "directory %llu (%s): entry '%s' points to %s (%llu)",
					    (unsigned long long)d, ipath(d), pname(e->name), why,
					    (unsigned long long)e->ino)) {
					if (remove_name(d, e->name, e->off)) {
						fixed("directory %llu: entry '%s' removed",
						      (unsigned long long)d, pname(e->name));
						changed = true;
					} else {
						not_fixed("directory %llu: no space to remove '%s'",
							  (unsigned long long)d, pname(e->name));
					}
				}
				continue;
			}
			if (e->ftype != nv_dtype(ni[e->ino].mode)) {
				if (problem(true, "directory %llu (%s): entry '%s' has file type %u, but inode %llu is a %s",
					    (unsigned long long)d, ipath(d), pname(e->name),
					    e->ftype, (unsigned long long)e->ino,
					    type_str(ni[e->ino].mode))) {
					if (readd_name(d, e->name, e->ino,
						       nv_dtype(ni[e->ino].mode), e->off)) {
						fixed("directory %llu: entry '%s' rewritten with file type %u",
						      (unsigned long long)d, pname(e->name),
						      nv_dtype(ni[e->ino].mode));
						changed = true;
					} else {
						not_fixed("directory %llu: no space to rewrite '%s'",
							  (unsigned long long)d, pname(e->name));
					}
				}
			}
		}
		/* readdir cookies must be unique among live names */
		if (ni[d].nents < 2)
			continue;
		byck = malloc(ni[d].nents * sizeof(*byck));
		for (i = 0; i < ni[d].nents; i++)
			byck[i] = &ni[d].ents[i];
		qsort(byck, ni[d].nents, sizeof(*byck), cmp_cookie);
		for (i = 1; i < ni[d].nents; i++) {
			struct nent *e = byck[i];

			if (e->cookie != byck[i - 1]->cookie)
				continue;
			if (problem(false, "directory %llu (%s): entries '%s' and '%s' have the same readdir cookie %llu",
				    (unsigned long long)d, ipath(d), pname(byck[i - 1]->name),
				    pname(e->name), (unsigned long long)e->cookie)) {
				if (readd_name(d, e->name, e->ino, e->ftype, e->off)) {
					fixed("directory %llu: entry '%s' rewritten with a new cookie",
					      (unsigned long long)d, pname(e->name));
					changed = true;
				} else {
					not_fixed("directory %llu: no space to rewrite '%s'",
						  (unsigned long long)d, pname(e->name));
				}
			}
		}
		free(byck);
	}
	return changed;
}

/* A directory may have one name */
static bool ns_dir_links(void)
{
	uint64_t d, t;
	size_t i;
	bool changed = false;

	for (d = NOVA_ROOT_INO; d < ni_max; d++) {
		for (i = 0; i < ni[d].nents; i++) {
			struct nent *e = &ni[d].ents[i];

			t = e->ino;
			if (t >= ni_max || !ni[t].valid || ni[t].reserved ||
			    t == d || t == NOVA_ROOT_INO || !S_ISDIR(ni[t].mode) ||
			    ni[t].dirnames < 2)
				continue;
			if (ni[t].ndir == d && !strcmp(ni[t].nname, e->name))
				continue;	/* the name that stays */
			if (problem(false, "directory %llu has %u names: '%s' in directory %llu (%s) is an extra one",
				    (unsigned long long)t, ni[t].dirnames, pname(e->name),
				    (unsigned long long)d, ipath(d))) {
				if (remove_name(d, e->name, e->off)) {
					fixed("directory %llu: entry '%s' removed",
					      (unsigned long long)d, pname(e->name));
					changed = true;
				} else {
					not_fixed("directory %llu: no space to remove '%s'",
						  (unsigned long long)d, pname(e->name));
				}
			}
		}
	}
	return changed;
}

static uint64_t lost_found;

static uint64_t get_lost_found(void)
{
	struct nv_inode_state rs;
	struct nv_dent *e;
	struct nv_wlog rw, lw;
	struct nv_attr a;
	int ret;

	if (lost_found && nv_inode_slot_valid(&fs, lost_found))
		return lost_found;
	if (nv_iread(&fs, NOVA_ROOT_INO, &rs, NV_IREAD_NO_DATA, NULL, NULL))
		return 0;
	e = nv_dir_lookup(&rs.dir, "lost+found", 10);
	if (e) {
		uint64_t ino = e->ino;

		nv_ifree(&rs);
		if (ino < ni_max && ni[ino].valid && S_ISDIR(ni[ino].mode))
			return lost_found = ino;
		not_fixed("/lost+found exists but is not a directory");
		return 0;
	}
	nv_wlog_from_state(&rw, &rs);
	nv_ifree(&rs);
	memset(&a, 0, sizeof(a));
	a.mode = S_IFDIR | 0700;
	a.links = 2;
	a.size = NOVA_BLOCK_SIZE;
	a.atime = a.mtime = a.ctime = a.btime = now;
	rw.mtime = rw.ctime = now;
	ret = nv_create(&fs, &rw, "lost+found", 10, &a, NULL, 0, &lw);
	if (ret) {
		not_fixed("cannot create /lost+found: %s",
			  ret == -ENOSPC ? "no space" : strerror(-ret));
		return 0;
	}
	fixed("created directory /lost+found (inode %llu)",
	      (unsigned long long)lw.ino);
	return lost_found = lw.ino;
}

static bool move_to_lost_found(uint64_t t)
{
	struct nv_inode_state ls;
	struct nv_wlog lw, tw;
	char name[64];
	uint64_t lf = get_lost_found(), old;
	unsigned int k = 0;
	bool dir = S_ISDIR(ni[t].mode), relinked = false;

	if (!lf || nv_iread(&fs, lf, &ls, NV_IREAD_NO_DATA, NULL, NULL))
		return false;
	snprintf(name, sizeof(name), "#%llu", (unsigned long long)t);
	while (nv_dir_lookup(&ls.dir, name, strlen(name)))
		snprintf(name, sizeof(name), "#%llu.%u", (unsigned long long)t, ++k);
	nv_wlog_from_state(&lw, &ls);
	nv_ifree(&ls);
	lw.mtime = lw.ctime = now;
	if (dir)
		lw.links++;
	if (nv_append_dentry(&fs, &lw, name, strlen(name), t, nv_dtype(ni[t].mode),
			     NULL))
		return false;
	nv_log_commit(&fs, &lw);
	if (wlog_of(t, &tw, NULL))
		return false;
	if (dir) {
		if (!nv_append_dentry(&fs, &tw, "..", 2, lf, nv_dtype(S_IFDIR), NULL))
			nv_log_commit(&fs, &tw);
	} else if (tw.links != 1) {
		old = tw.last_lc;
		tw.links = 1;
		tw.ctime = now;
		if (!nv_append_link_change(&fs, &tw, NULL)) {
			nv_log_commit(&fs, &tw);
			if (old)
				nv_invalidate_entry(&fs, old);
			relinked = true;
		}
	}
	fixed("inode %llu (%s) moved to /lost+found/%s%s", (unsigned long long)t,
	      type_str(ni[t].mode), name, relinked ? ", link count set to 1" : "");
	return true;
}

/* Valid inodes without a name */
static bool ns_orphans(void)
{
	uint64_t t;
	bool changed = false;

	for (t = NOVA_NORMAL_INODE_START; t < ni_max; t++) {
		if (!ni[t].valid || ni[t].names)
			continue;
		if (!ni[t].links) {
			/*
			 * Unlinked while open, or its unlink cut short, at a
			 * crash: normal after a power cut, and mount frees it
			 * (as ext4 processes its orphan list).  Not an error;
			 * a repairing run frees it.
			 */
			printf("inode %llu (%s) has no name and link count 0: left by a crash, mount frees it\n",
			       (unsigned long long)t, type_str(ni[t].mode));
			if (mode != M_NO) {
				nv_put8(&fs, nv_inode_off(&fs, t) +
					offsetof(struct nova_inode, i_valid),
					NOVA_INODE_FREE);
				fixed("inode %llu freed (as the kernel would at mount)",
				      (unsigned long long)t);
				changed = true;
			}
			continue;
		}
		if (problem(false, "inode %llu (%s, link count %u) has no name",
			    (unsigned long long)t, type_str(ni[t].mode),
			    ni[t].links)) {
			if (move_to_lost_found(t))
				changed = true;
			else
				not_fixed("inode %llu: could not move it to /lost+found",
					  (unsigned long long)t);
		}
	}
	return changed;
}

/* Directories that have a name but cannot be reached from the root */
static bool ns_connect(void)
{
	uint64_t *queue, qh = 0, qt = 0, t;
	size_t i;
	bool changed = false;

	queue = malloc(ni_max * sizeof(*queue));
	for (t = 0; t < ni_max; t++)
		ni[t].reachable = false;
	ni[NOVA_ROOT_INO].reachable = true;
	queue[qt++] = NOVA_ROOT_INO;
	while (qh < qt) {
		uint64_t d = queue[qh++];

		for (i = 0; i < ni[d].nents; i++) {
			uint64_t c = ni[d].ents[i].ino;

			if (c >= ni_max || !ni[c].valid || ni[c].reachable ||
			    ni[c].reserved)
				continue;
			if (S_ISDIR(ni[c].mode) && (ni[c].ndir != d ||
						    strcmp(ni[c].nname, ni[d].ents[i].name)))
				continue;	/* an extra name of a directory */
			ni[c].reachable = true;
			if (S_ISDIR(ni[c].mode))
				queue[qt++] = c;
		}
	}
	for (t = NOVA_NORMAL_INODE_START; t < ni_max && !changed; t++) {
		uint64_t p = t;
		unsigned int steps = 0;

		if (!ni[t].valid || ni[t].reachable || !S_ISDIR(ni[t].mode) ||
		    !ni[t].names)
			continue;
		/* up through first names: a cycle, or an orphan at the top? */
		while (p < ni_max && ni[p].names && !ni[p].reachable &&
		       steps++ < ni_max && (p = ni[p].ndir) != t)
			;
		if (p != t)
			continue;
		if (problem(false, "directory %llu ('%s' in directory %llu) is in a cycle of directories unreachable from the root",
			    (unsigned long long)t, pname(ni[t].nname),
			    (unsigned long long)ni[t].ndir)) {
			uint64_t off = 0;

			for (i = 0; i < ni[ni[t].ndir].nents; i++)
				if (ni[ni[t].ndir].ents[i].ino == t)
					off = ni[ni[t].ndir].ents[i].off;
			if (remove_name(ni[t].ndir, ni[t].nname, off) &&
			    move_to_lost_found(t)) {
				changed = true;
			} else {
				not_fixed("directory %llu: could not reconnect it",
					  (unsigned long long)t);
			}
		} else {
			/* not fixed: report the cycle once */
			for (p = ni[t].ndir, steps = 0; p != t && steps++ < ni_max;
			     p = ni[p].ndir)
				ni[p].reachable = true;
		}
	}
	free(queue);
	return changed;
}

static void pass_namespace(void)
{
	int i;

	lost_found = 0;
	for (i = 0; i < 16; i++) {
		ns_analyze();
		if (ns_entries())
			continue;
		if (ns_dir_links())
			continue;
		if (ns_orphans())
			continue;
		if (ns_connect())
			continue;
		break;
	}
}

/* Link counts and ".." */
static void pass_links(void)
{
	uint64_t t;

	ns_analyze();
	for (t = NOVA_ROOT_INO; t < ni_max; t++) {
		struct ninfo *n = &ni[t];
		uint32_t want;

		if (!n->valid || n->reserved)
			continue;
		if (S_ISDIR(n->mode)) {
			/* an rmdir cut short at a crash, reported already */
			if (t != NOVA_ROOT_INO && !n->names && !n->links)
				continue;
			want = 2 + n->subdirs;
		} else {
			if (!n->names)
				continue;	/* an orphan, reported already */
			want = n->names;
		}
		if (n->links == want)
			continue;
		if (problem(true, "inode %llu (%s %s): link count %u, should be %u",
			    (unsigned long long)t, type_str(n->mode), ipath(t),
			    n->links, want)) {
			if (set_links(t, want)) {
				fixed("inode %llu: link count set to %u",
				      (unsigned long long)t, want);
				n->links = want;
			} else {
				not_fixed("inode %llu: no space to log the link count",
					  (unsigned long long)t);
			}
		}
	}
	for (t = NOVA_ROOT_INO; t < ni_max; t++) {
		struct ninfo *n = &ni[t];
		uint64_t want;

		if (!n->valid || n->reserved || !S_ISDIR(n->mode))
			continue;
		if (t == NOVA_ROOT_INO) {
			if (!n->parent || n->parent == NOVA_ROOT_INO)
				continue;
			want = NOVA_ROOT_INO;
		} else {
			if (!n->names)
				continue;
			want = n->ndir;
		}
		if (n->parent == want)
			continue;
		if (problem(true, "directory %llu (%s): '..' is %s%llu, should be %llu",
			    (unsigned long long)t, ipath(t),
			    n->parent ? "inode " : "missing, ",
			    (unsigned long long)n->parent,
			    (unsigned long long)want)) {
			if (set_dotdot(t, want))
				fixed("directory %llu: '..' set to %llu",
				      (unsigned long long)t, (unsigned long long)want);
			else
				not_fixed("directory %llu: no space to log '..'",
					  (unsigned long long)t);
		}
	}
}

/* ------------------------------------------------------ data blocks */

struct conflict {
	uint64_t pg, blk, ent;
};

static void data_inode(uint64_t ino)
{
	struct nv_inode_state st;
	struct conflict *c = NULL;
	size_t nc = 0, cap = 0, it, i;
	uint64_t pg, blk, ent;
	struct nv_wlog w;

	if (!nv_inode_slot_valid(&fs, ino) ||
	    nv_iread(&fs, ino, &st, ino != NOVA_ROOT_INO &&
		     ino < NOVA_NORMAL_INODE_START ? NV_IREAD_RAW : 0, NULL, NULL))
		return;
	if (st.bad || (!st.links && ino != NOVA_ROOT_INO)) {
		nv_ifree(&st);	/* the kernel would not count its blocks */
		return;
	}
	for (it = 0; nv_pmap_next(&st.pages, &it, &pg, &blk, &ent);) {
		uint64_t b = blk >> NOVA_BLOCK_SHIFT;

		if (bkind[b] == K_FREE) {
			claim(b, K_DATA);
			continue;
		}
		if (!problem(false, "inode %llu (%s %s): data block %llu of file page %llu is also used by %s",
			     (unsigned long long)ino, type_str(st.mode),
			     ipath(ino), (unsigned long long)b,
			     (unsigned long long)pg, owner_desc_x(b, ino)))
			continue;
		if (nc == cap) {
			cap = cap ? cap * 2 : 8;
			c = realloc(c, cap * sizeof(*c));
		}
		c[nc++] = (struct conflict){ pg, blk, ent };
	}
	nv_wlog_from_state(&w, &st);
	for (i = 0; i < nc; i++) {
		uint64_t nb;

		if (!nv_alloc(&fs, 1, (int)(ino % fs.stripes), false, &nb)) {
			not_fixed("inode %llu: no free block to copy file page %llu",
				  (unsigned long long)ino, (unsigned long long)c[i].pg);
			continue;
		}
		nv_put(&fs, nb << NOVA_BLOCK_SHIFT, nv_ptr(&fs, c[i].blk),
		       NOVA_BLOCK_SIZE);
		if (nv_append_write(&fs, &w, c[i].pg, 1, nb << NOVA_BLOCK_SHIFT,
				    NULL)) {
			not_fixed("inode %llu: no log space to copy file page %llu",
				  (unsigned long long)ino, (unsigned long long)c[i].pg);
			continue;
		}
		nv_log_commit(&fs, &w);
		nv_invalidate_pages(&fs, c[i].ent, 1);
		claim(nb, K_DATA);
		fixed("inode %llu: file page %llu copied to block %llu, its own now",
		      (unsigned long long)ino, (unsigned long long)c[i].pg,
		      (unsigned long long)nb);
	}
	free(c);
	nv_ifree(&st);
}

static void pass_data(void)
{
	for_each_slot(data_inode, false);
}


/* ------------------------------------------ clean-unmount snapshot */

struct snap {
	uint64_t *pages;		/* the whole chain */
	size_t n, cap;
	uint64_t records;
	struct nova_range_node_lowhigh *r;
};

static void snap_free(struct snap *sn)
{
	free(sn->pages);
	free(sn->r);
	memset(sn, 0, sizeof(*sn));
}

/* nova_snap_load() without applying: NULL if the kernel would use it */
static const char *snap_load(unsigned int ino, struct snap *sn)
{
	const struct nova_inode *pi = nv_pi(&fs, nv_inode_off(&fs, ino));
	uint64_t page = le64_to_cpu(pi->log_head), i, idx = 0, slot = 1;
	struct nova_snapshot_header h;
	uint32_t crc = ~0U;

	memset(sn, 0, sizeof(*sn));
	if (pi->i_valid != NOVA_INODE_VALID)
		return "its inode is not valid";
	if (!nv_page_valid(&fs, page))
		return "its first page is not a valid page";
	while (page) {
		if (!nv_page_valid(&fs, page))
			return "a page pointer is invalid";
		for (i = 0; i < sn->n; i++)
			if (sn->pages[i] == page)
				return "its pages form a loop";
		if (sn->n == sn->cap) {
			sn->cap = sn->cap ? sn->cap * 2 : 8;
			sn->pages = realloc(sn->pages, sn->cap * sizeof(*sn->pages));
		}
		sn->pages[sn->n++] = page;
		page = nv_get64(&fs, pt_field(page, offsetof(struct nova_log_page_tail,
							       next_page)));
	}
	memcpy(&h, nv_ptr(&fs, sn->pages[0]), sizeof(h));
	sn->records = le64_to_cpu(h.records);
	if (le32_to_cpu(h.magic) != NOVA_SNAPSHOT_MAGIC)
		return "bad magic number";
	if (sn->records > fs.nblocks)
		return "too many records";
	sn->r = malloc((sn->records + 1) * sizeof(*sn->r));
	for (i = 0; i < sn->records; i++, slot++) {
		if (slot == NOVA_SNAPSHOT_PER_PAGE) {
			slot = 0;
			if (++idx >= sn->n)
				return "its records run past its pages";
		}
		memcpy(&sn->r[i], nv_ptr(&fs, sn->pages[idx] + slot * sizeof(*sn->r)),
		       sizeof(*sn->r));
		crc = nova_crc32c_update(crc, &sn->r[i], sizeof(*sn->r));
	}
	if (~crc != le32_to_cpu(h.csum))
		return "bad checksum";
	return NULL;
}

static void drop_snapshot_inodes(void)
{
	unsigned int ino;

	for (ino = NOVA_BLOCKNODE_INO; ino <= NOVA_INODELIST_INO; ino++)
		nv_zero(&fs, nv_inode_off(&fs, ino), sizeof(struct nova_inode));
}

static void drop_snapshot(void)
{
	fs.sb.s_state &= ~cpu_to_le32(NOVA_STATE_CLEAN);
	write_super_copies();
	drop_snapshot_inodes();
	fixed("clean-unmount snapshot discarded and clean flag cleared: the next mount scans");
}

static int stripe_of_block(uint64_t b)
{
	uint64_t per = (fs.data_end - fs.data_start + 1) / fs.stripes;
	uint64_t s = (b - fs.data_start) / per;

	return s >= fs.stripes ? fs.stripes - 1 : s;
}

/* Check the snapshot's free ranges and in-use inode ranges */
static const char *snap_compare(const struct snap *bl, const struct snap *in,
				char *buf, size_t len)
{
	uint8_t *freeb = calloc(fs.nblocks, 1), **slots;
	uint64_t i, b, lo, hi, st, end;
	uint64_t bad_used = 0, first_bad = 0, leaked = 0, ino_free = 0, ino_extra = 0;
	unsigned int s;
	const char *why = NULL;

	slots = calloc(fs.stripes, sizeof(*slots));
	for (s = 0; s < fs.stripes; s++)
		slots[s] = calloc(fs.itab[s].n * fs.per_block + 1, 1);
	/* what nova_snap_free_range() and nova_snap_inode_range() accept */
	for (i = 0; i < bl->records && !why; i++) {
		lo = le64_to_cpu(bl->r[i].range_low);
		hi = le64_to_cpu(bl->r[i].range_high);
		if (lo > hi || lo < fs.data_start || hi > fs.data_end) {
			why = "a free range outside the data area";
			break;
		}
		nv_stripe_region(&fs, stripe_of_block(lo), &st, &end);
		if (hi > end) {
			why = "a free range crossing a stripe";
			break;
		}
		for (b = lo; b <= hi && !why; b++) {
			if (freeb[b])
				why = "overlapping free ranges";
			freeb[b] = 1;
		}
	}
	for (i = 0; i < in->records && !why; i++) {
		lo = le64_to_cpu(in->r[i].range_low);
		hi = le64_to_cpu(in->r[i].range_high);
		s = lo >> 48;
		lo &= (1ULL << 48) - 1;
		hi &= (1ULL << 48) - 1;
		if (s >= fs.stripes || lo > hi ||
		    hi >= fs.itab[s].n * fs.per_block) {
			why = "an inode range outside the inode tables";
			break;
		}
		for (b = lo; b <= hi; b++)
			slots[s][b] = 1;
	}
	if (!why) {
		/* the snapshots' own pages are in use until the mount frees them */
		for (i = 0; i < bl->n + in->n; i++) {
			uint64_t pb = (i < bl->n ? bl->pages[i] : in->pages[i - bl->n]) >>
				      NOVA_BLOCK_SHIFT;

			if (bkind[pb] != K_FREE && !bad_used++)
				first_bad = pb;
			bkind[pb] = K_FIXED;
		}
		for (b = fs.data_start; b <= fs.data_end; b++) {
			bool used = bkind[b] != K_FREE;

			if (freeb[b] && used && !bad_used++)
				first_bad = b;
			else if (!freeb[b] && !used)
				leaked++;
		}
		for (s = 0; s < fs.stripes; s++) {
			for (i = 0; i < fs.itab[s].n * fs.per_block; i++) {
				uint64_t ino = i * fs.stripes + s;
				bool valid = ino < NOVA_NORMAL_INODE_START ||
					     nv_inode_slot_valid(&fs, ino);

				if (valid && !slots[s][i])
					ino_free++;
				else if (!valid && slots[s][i])
					ino_extra++;
			}
		}
		if (bad_used || leaked || ino_free || ino_extra) {
			snprintf(buf, len,
				 "%llu used block(s) listed as free (first: %llu), %llu free block(s) not listed, %llu inode(s) in use listed as free, %llu free inode slot(s) listed as in use",
				 (unsigned long long)bad_used,
				 (unsigned long long)first_bad,
				 (unsigned long long)leaked,
				 (unsigned long long)ino_free,
				 (unsigned long long)ino_extra);
			why = buf;
		}
	}
	for (s = 0; s < fs.stripes; s++)
		free(slots[s]);
	free(slots);
	free(freeb);
	return why;
}

static void pass_snapshot(void)
{
	struct snap bl, in;
	const char *why;
	char buf[512], cmp[384];
	unsigned int ino;

	if (!(fs.sb.s_state & cpu_to_le32(NOVA_STATE_CLEAN))) {
		/* left by an unclean unmount: the kernel drops it at mount */
		for (ino = NOVA_BLOCKNODE_INO; ino <= NOVA_INODELIST_INO; ino++) {
			const struct nova_inode *pi = nv_pi(&fs, nv_inode_off(&fs, ino));

			if (!pi->i_valid && !pi->log_head)
				continue;
			/*
			 * A crash after the snapshot was saved and before the
			 * clean flag, or after a read-write mount: normal,
			 * and mount discards it.  Not an error; a repairing
			 * run discards it.
			 */
			printf("reserved inode %u holds a stale clean-unmount snapshot (the kernel discards it at mount)\n",
			       ino);
			if (mode != M_NO) {
				nv_zero(&fs, nv_inode_off(&fs, ino), sizeof(*pi));
				fixed("stale snapshot in reserved inode %u discarded", ino);
			}
		}
		return;
	}
	if (n_fixed)
		return;		/* the repairs invalidate it: dropped at the end */
	memset(&in, 0, sizeof(in));
	why = snap_load(NOVA_BLOCKNODE_INO, &bl);
	if (why) {
		snprintf(buf, sizeof(buf), "free-block snapshot (reserved inode %u): %s",
			 NOVA_BLOCKNODE_INO, why);
	} else if ((why = snap_load(NOVA_INODELIST_INO, &in))) {
		snprintf(buf, sizeof(buf), "in-use inode snapshot (reserved inode %u): %s",
			 NOVA_INODELIST_INO, why);
	} else if ((why = snap_compare(&bl, &in, cmp, sizeof(cmp)))) {
		snprintf(buf, sizeof(buf), "it does not match the file system: %s",
			 why);
	}
	if (why) {
		if (problem(true, "clean-unmount snapshot unusable: %s", buf))
			drop_snapshot();
	} else {
		info("clean-unmount snapshot: %llu free ranges, %llu inode ranges, consistent",
		     (unsigned long long)bl.records, (unsigned long long)in.records);
	}
	snap_free(&bl);
	snap_free(&in);
}

/* ---------------------------------------------------------- running */

/*
 * A clean file system's journals are empty, with valid pointers.  Checked
 * before the clean state skips the check, as e2fsck checks the journal
 * first: the kernel refuses a mount with damaged journal pointers.
 */
static bool journals_quiet(void)
{
	unsigned int s;

	for (s = 0; s < fs.stripes; s++) {
		uint64_t jo = nv_journal_ptr_off(s);
		uint64_t head = nv_get64(&fs, jo), tail = nv_get64(&fs, jo + 8);

		if (head != tail || head % sizeof(struct nova_journal_entry) ||
		    !nv_page_valid(&fs, head & ~(uint64_t)(NOVA_BLOCK_SIZE - 1)))
			return false;
	}
	return true;
}

static void run_check(void)
{
	uint64_t b, used = 0;

	pass("Pass 2: journals");
	pass_journals();
	pass("Pass 3: reserved inodes and inode tables");
	pass_reserved();
	pass_itables();
	pass("Pass 4: inode logs");
	pass_inodes();
	pass("Pass 5: directories, connectivity and link counts");
	pass_namespace();
	pass_links();
	pass("Pass 6: block accounting");
	pass_data();
	pass_snapshot();
	for (b = 0; b < fs.nblocks; b++)
		if (bkind[b] != K_FREE)
			used++;
	if (first_run || verbose)
		info("%llu blocks in use", (unsigned long long)used);
	if (!run_fixed)
		printf("%s: %llu inodes, %llu/%llu blocks\n", dev,
		       (unsigned long long)n_inodes, (unsigned long long)used,
		       (unsigned long long)fs.nblocks);
}

/* ------------------------------------------------------- mounted? */

static bool same_file(const char *name, const struct stat *st)
{
	struct stat n;

	if (name[0] != '/' || stat(name, &n))
		return false;
	if (S_ISBLK(st->st_mode) && S_ISBLK(n.st_mode))
		return st->st_rdev == n.st_rdev;
	return S_ISREG(st->st_mode) && S_ISREG(n.st_mode) &&
	       st->st_dev == n.st_dev && st->st_ino == n.st_ino;
}

static bool rdev_mounted(dev_t rdev)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool found = false;

	while (f && !found && (m = getmntent(f))) {
		struct stat n;

		found = m->mnt_fsname[0] == '/' && !stat(m->mnt_fsname, &n) &&
			S_ISBLK(n.st_mode) && n.st_rdev == rdev;
	}
	if (f)
		endmntent(f);
	return found;
}

/* Mounted directly, or (an image) through a loop device? */
static bool is_mounted(const char *path)
{
	struct stat st;
	struct mntent *m;
	struct dirent *de;
	bool found = false;
	FILE *f;
	DIR *d;

	if (stat(path, &st))
		return false;
	f = setmntent("/proc/self/mounts", "r");
	while (f && !found && (m = getmntent(f)))
		found = same_file(m->mnt_fsname, &st);
	if (f)
		endmntent(f);
	if (found || !S_ISREG(st.st_mode) || !(d = opendir("/sys/block")))
		return found;
	while (!found && (de = readdir(d))) {
		char p[PATH_MAX], buf[PATH_MAX];
		unsigned int ma, mi;
		struct stat b;
		size_t l;
		FILE *g;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", de->d_name);
		if (!(g = fopen(p, "r")))
			continue;
		l = fread(buf, 1, sizeof(buf) - 1, g);
		fclose(g);
		buf[l] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (stat(buf, &b) || b.st_dev != st.st_dev || b.st_ino != st.st_ino)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", de->d_name);
		if (!(g = fopen(p, "r")))
			continue;
		if (fscanf(g, "%u:%u", &ma, &mi) == 2 && rdev_mounted(makedev(ma, mi)))
			found = true;
		fclose(g);
	}
	closedir(d);
	return found;
}

/* ------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-n | -y | -p | -a] [-f] [-v] [-V] device|image\n"
		"\n"
		"  -n    check only: open read-only, change nothing\n"
		"  -y    repair every problem found\n"
		"  -p    repair what is safe without asking (-a: the same)\n"
		"  -f    check even if the file system is marked clean\n"
		"  -v    verbose\n"
		"  -V    print the version and exit\n"
		"Without -n, -y or -p every repair is asked for on the terminal.\n"
		"\n"
		"Exit status: 0 no errors, 1 errors corrected, 4 errors left\n"
		"uncorrected, 8 operational error, 16 usage error.\n", prog);
}

/*
 * The state of one run, back to its start: fsck_main() can run again in
 * the same process (the fuzz harness, tests/fuzz/) without leaking.
 */
static void reset_state(void)
{
	free(bkind);
	free(jreset);
	free(itreset);
	ns_free();
	bkind = NULL;
	jreset = itreset = NULL;
	memset(&fs, 0, sizeof(fs));
	fs.fd = -1;
	mode = M_ASK;
	force = verbose = private_map = sb_problems = false;
	dev = NULL;
	first_run = true;
	n_fixed = n_unfixed = run_fixed = 0;
	now = 0;
	owner_searches = 0;
	n_inodes = n_xattr_entries = n_xattrs = 0;
	lost_found = 0;
}

static int fsck(int argc, char **argv);

/* fsck.nova's command line; returns the exit status */
int fsck_main(int argc, char **argv)
{
	int code;

	reset_state();
	optind = 0;		/* getopt from the start (glibc) */
	if (setjmp(finish_jmp))
		code = finish_code;
	else
		code = fsck(argc, argv);
	reset_state();
	return code;
}

#ifndef FSCK_NO_MAIN
int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return fsck_main(argc, argv);
}
#endif

static int fsck(int argc, char **argv)
{
	char msg[512];
	int c, modes = 0, run;
	uint32_t state;

	if (argv[0] && *argv[0]) {
		const char *b = strrchr(argv[0], '/');

		prog = b ? b + 1 : argv[0];
	}
	while ((c = getopt(argc, argv, "nyapfvVhC:")) != -1) {
		switch (c) {
		case 'n':
			mode = M_NO;
			modes |= 1;
			break;
		case 'y':
			mode = M_YES;
			modes |= 2;
			break;
		case 'a':
		case 'p':
			mode = M_PREEN;
			modes |= 4;
			break;
		case 'f':
			force = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'C':
			break;	/* progress: accepted for fsck(8), not shown */
		case 'V':
			printf("%s %s (NOVA format %d.%d)\n", prog, NOVA_VERSION,
			       NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);
			return FSCK_OK;
		case 'h':
			usage(stdout);
			return FSCK_OK;
		default:
			usage(stderr);
			return FSCK_USAGE;
		}
	}
	if (modes & (modes - 1)) {
		fprintf(stderr, "%s: only one of -n, -y and -p can be given\n", prog);
		usage(stderr);
		return FSCK_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", prog, optind == argc ?
			"no device or image given" : "too many arguments");
		usage(stderr);
		return FSCK_USAGE;
	}
	dev = argv[optind];
	if (mode == M_ASK && !isatty(STDIN_FILENO)) {
		fprintf(stderr, "%s: need a terminal for interactive repairs (use -n, -y or -p)\n",
			prog);
		return FSCK_ERROR;
	}
	if (mode != M_NO && is_mounted(dev)) {
		fprintf(stderr, "%s: %s is mounted; it cannot be checked or repaired now\n",
			prog, dev);
		return FSCK_ERROR;
	}
	if (mode == M_NO && is_mounted(dev))
		fprintf(stderr, "%s: warning: %s is mounted; the results may be wrong\n",
			prog, dev);
	private_map = mode == M_NO;
	if (nv_open(&fs, dev, private_map ? NV_OPEN_PRIVATE : NV_OPEN_RW, msg,
		    sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return FSCK_ERROR;
	}
	now = nv_now();
	fs.next_generation = (uint32_t)now ^ (uint32_t)getpid();
	if (mode != M_PREEN)
		printf("%s %s (NOVA format %d.%d)\n", prog, NOVA_VERSION,
		       NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);

	pass("Pass 1: super blocks");
	pass_super();
	state = le32_to_cpu(fs.sb.s_state);
	if (!force && !sb_problems && (state & NOVA_STATE_CLEAN) &&
	    !(state & NOVA_STATE_ERROR) && journals_quiet()) {
		printf("%s: clean, %llu blocks, %u stripes (use -f to force a check)\n",
		       dev, (unsigned long long)fs.nblocks, fs.stripes);
		finish(FSCK_OK);
	}
	if (state & NOVA_STATE_ERROR)
		printf("%s: the file system is marked as having errors\n", dev);

	/* repairs may uncover more: check again until a run changes nothing */
	for (run = 0; run < 6; run++) {
		run_fixed = 0;
		if (run)
			pass_super();
		run_check();
		first_run = false;
		if (!run_fixed || mode == M_NO)
			break;
		if (mode != M_PREEN)
			printf("Checking again after the repairs\n");
	}
	if (run_fixed && mode != M_NO) {
		printf("%s: the repairs are not complete; run %s again\n", dev, prog);
		n_unfixed++;
	}
	state = le32_to_cpu(fs.sb.s_state);
	if (mode != M_NO && (state & NOVA_STATE_ERROR) && !n_unfixed) {
		fs.sb.s_state = cpu_to_le32(state & ~NOVA_STATE_ERROR);
		write_super_copies();
		fixed("error state cleared in the super block");
	}
	state = le32_to_cpu(fs.sb.s_state);
	if (mode != M_NO && n_fixed && (state & NOVA_STATE_CLEAN)) {
		/* a clean-unmount snapshot no longer describes the blocks */
		fs.sb.s_state = cpu_to_le32(state & ~NOVA_STATE_CLEAN);
		write_super_copies();
		drop_snapshot_inodes();
		printf("%s: clean flag cleared: the file system was modified\n", dev);
	}
	if (n_fixed && mode != M_PREEN)
		printf("\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n", dev);
	if (n_unfixed && mode != M_PREEN)
		printf("\n%s: ********** WARNING: Filesystem still has errors **********\n",
		       dev);
	finish(FSCK_OK);
}
