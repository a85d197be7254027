/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsck.nova: the context of one run and what the passes share (e2fsck's
 * e2fsck.h).
 *
 * One struct nova_fsck holds everything a run knows: the options, the
 * mapped file system, the counters and what one pass leaves for the next.
 * Every function takes it; there is no other state, so fsck_main() can
 * run again in the same process (the fuzz harness, tests/fuzz/).
 *
 * A run stops early only through fsck_fatal() (an operational error) or
 * when -p meets a problem it may not repair: both set ctx->stop, the exit
 * status to end with, and the passes return -1 up to unix.c, which ends
 * the run (as e2fsck's passes return on E2F_FLAG_ABORT).  The repairs
 * made before stay, and so does what they imply: the clean flag and the
 * clean-unmount snapshot go, as at the end of a run (fs_modified()).
 *
 * The files, in pass order:
 *   unix.c       options, main(), the passes in order, the end of a run
 *   problem.c    the problem table and problem(): report, ask, count
 *   util.c       messages (info, pass headings), names and paths
 *   super.c      pass 1: the super block and its replica
 *   journal.c    pass 2: the lite journals
 *   itable.c     pass 3: the reserved inodes, the inode tables, the
 *                journals' blocks; new tables and journals at the end of
 *                pass 4
 *   inode.c      pass 4: inode logs
 *   namespace.c  pass 5: names, connectivity, link counts, ".."
 *   blocks.c     pass 6: the block map (who uses each block) and the
 *                files' data blocks, shared ones (reflink) included;
 *                each project's usage
 *   snapshot.c   pass 6: the clean-unmount snapshot
 *   quota.c      pass 7: the project quota file's tree and usage
 *   powercut.c   the tests' model of a power cut during the repairs
 *
 * The repairs are ordered against a power cut (libnova's nv_commit()):
 * each is copy-on-write, as the kernel's updates, and what one store
 * (its commit) publishes is durable before it.
 */
#ifndef NOVA_FSCK_H
#define NOVA_FSCK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "libnova.h"
#include "problem.h"

/* Exit status, as e2fsck's; the bits combine */
#define FSCK_OK			0
#define FSCK_NONDESTRUCT	1	/* errors corrected */
#define FSCK_UNCORRECTED	4	/* errors left uncorrected */
#define FSCK_ERROR		8	/* operational error */
#define FSCK_USAGE		16	/* usage error */

/* What the run may do about a problem (-n, -y, -p or ask) */
enum fsck_mode { MODE_ASK, MODE_NO, MODE_YES, MODE_PREEN };

/* What each block is used for (ctx->bkind, blocks.c) */
enum fsck_block_kind { K_FREE, K_FIXED, K_TABLE, K_JOURNAL, K_LOG, K_DATA };

/*
 * A repair of a stripe's journal or inode table deferred to the end of
 * pass 4, when every used block is known (itable.c)
 */
enum fsck_reset { RESET_NONE, RESET_UNUSABLE, RESET_NEW };

struct fsck_reset_state {
	enum fsck_reset state;
	int code;			/* the problem that asked for it */
};

/*
 * An inode repair that logs a new entry, which may take a new log page:
 * deferred to the end of pass 4, when every used block is known
 * (inode.c).  @fix: the FIX_* bits asked for.
 */
enum { FIX_CASEFOLD = 1, FIX_PROJID = 2 };

struct fsck_deferred {
	uint64_t ino;
	unsigned int fix;
};

/*
 * A live name of a directory (namespace.c): @len bytes, NUL terminated
 * for messages, but in an encrypted directory any bytes, NUL included
 */
struct fsck_name {
	uint64_t ino, off, cookie;
	uint8_t ftype, len;
	char *name;
};

/* What pass 5 knows of one inode (namespace.c) */
struct fsck_inode_info {
	bool valid;			/* readable inode */
	bool reserved;			/* 2..31 */
	uint32_t mode, links;
	uint64_t parent;		/* ".." */
	uint32_t names, subdirs, dirnames;
	uint64_t ndir;			/* directory of the first name */
	char *nname;			/* the first name, nname_len bytes */
	uint8_t nname_len;
	bool reachable;
	struct fsck_name *ents;		/* directories: live names */
	size_t nents;
};

struct nova_fsck {
	/* options (unix.c) */
	const char *prog;		/* the name it was run by */
	const char *dev;		/* device or image */
	enum fsck_mode mode;
	bool force, verbose;

	/* the file system */
	struct nv_fs fs;
	bool private_map;		/* -n: changes stay in memory */
	int64_t now;

	/* the run */
	bool first_run;			/* the first round of passes */
	int stop;			/* non-zero: end now, with this status */
	unsigned long n_fixed, n_unfixed;
	unsigned long run_fixed;	/* repairs in this round */
	bool sb_problems;		/* pass 1 found something */
	/*
	 * the clean flag (and the snapshot with it) and the prjquota flag,
	 * cleared by fs_stale() (unix.c): before the first repair after
	 * pass 1, the first block allocation of a repair, or at the end of
	 * a run that repaired
	 */
	bool clean_cleared, prjquota_cleared;
	/* pass 1 done: a repair clears them first (problem()) */
	bool stale_on_repair;

	/* pass 2 and 3: per stripe, a journal or table to replace */
	struct fsck_reset_state *jreset, *itreset;

	/* the block map, from pass 3 on (blocks.c) */
	uint8_t *bkind;			/* enum fsck_block_kind per block */
	unsigned int owner_searches;
	/*
	 * every used block is known (the end of pass 4 on): before, a
	 * repair may not take a block (alloc_hook() refuses)
	 */
	bool blocks_known;

	/* pass 4 */
	uint64_t n_inodes, n_xattr_entries, n_xattrs;
	uint64_t n_encrypted;		/* inodes with an fscrypt context */
	uint64_t n_projid;		/* inodes with a project ID other than 0 */
	bool prjquota;			/* the project quota file is valid */
	struct fsck_deferred *deferred;	/* repairs for the end of pass 4 */
	size_t ndeferred, deferred_cap;

	/*
	 * pass 6: per block, the live file pages that map it (DC_* bits,
	 * blocks.c), during pass_data() only; the blocks that several pages
	 * map legitimately (reflink)
	 */
	uint8_t *dclaim;
	uint64_t n_shared;

	/*
	 * pass 6: each project's usage as the kernel counts it at mount
	 * (project ID -> bytes in .blk, inodes in .ent), and the inodes it
	 * could not count (it cannot read them)
	 */
	struct nv_pmap prj_usage;
	uint64_t prj_unread;

	/* pass 5 */
	struct fsck_inode_info *ni;
	uint64_t ni_max;
	uint64_t lost_found;

	/*
	 * buffers of the message helpers, a few of each in turn so that
	 * one message can show several (util.c, blocks.c)
	 */
	char name_buf[8][NOVA_SAFE_SIZE(NOVA_NAME_LEN)];
	unsigned int name_k;
	char path_buf[4][PATH_MAX];
	unsigned int path_k;
	char owner_buf[4][80];
	unsigned int owner_k;

	/* the tests' power cut (powercut.c), NULL if none */
	struct fsck_powercut *powercut;
};

/* ---- unix.c ---- */
int fsck_main(int argc, char **argv);
void fs_stale(struct nova_fsck *ctx);
bool io_failed(struct nova_fsck *ctx);

/* ---- powercut.c: NOVA_FSCK_TEST_POWERCUT ---- */
int powercut_arm(struct nova_fsck *ctx);
void powercut_free(struct nova_fsck *ctx);

/* ---- util.c: messages ---- */
void out(struct nova_fsck *ctx, const char *fmt, ...) __printf(2, 3);
/* out() with -v only */
#define info(ctx, ...)							\
	do {								\
		if ((ctx)->verbose)					\
			out(ctx, __VA_ARGS__);				\
	} while (0)
/* out() of "Pass N: ...": the first round only, and not with -p */
#define pass_heading(ctx, ...)						\
	do {								\
		if ((ctx)->mode != MODE_PREEN && (ctx)->first_run)	\
			out(ctx, __VA_ARGS__);				\
	} while (0)
int fsck_fatal(struct nova_fsck *ctx, const char *fmt, ...) __printf(2, 3);
void test_kill_point(const char *where);
const char *type_str(uint32_t mode);
const char *pname(struct nova_fsck *ctx, const char *name, size_t len);
const char *ipath(struct nova_fsck *ctx, uint64_t ino);

/* Fields of the image, by offset */
static inline uint64_t tail_field(const struct nv_fs *fs, uint64_t ino)
{
	return nv_inode_off(fs, ino) + offsetof(struct nova_inode, log_tail);
}

static inline uint64_t head_field(const struct nv_fs *fs, uint64_t ino)
{
	return nv_inode_off(fs, ino) + offsetof(struct nova_inode, log_head);
}

/*
 * Free the inode in slot @pi_off (its valid byte): a commit, after which
 * its blocks may be taken
 */
static inline void free_slot(struct nova_fsck *ctx, uint64_t pi_off)
{
	uint8_t v = NOVA_INODE_FREE;

	nv_commit(&ctx->fs, pi_off + offsetof(struct nova_inode, i_valid), &v, 1);
}

/* @field of the tail of log page @page */
static inline uint64_t pt_field(uint64_t page, size_t field)
{
	return page + NOVA_LOG_LAST_ENTRY + field;
}

/*
 * Reserved inodes other than the root and the project quota file are
 * only scanned, never read (nv_iread_raw())
 */
static inline unsigned int iread_raw(uint64_t ino)
{
	return nv_iread_raw(ino);
}

/* ---- the passes ---- */
int pass_super(struct nova_fsck *ctx);
void write_super_copies(struct nova_fsck *ctx);

int pass_journals(struct nova_fsck *ctx);
bool journals_quiet(struct nova_fsck *ctx);

int pass_reserved(struct nova_fsck *ctx);
int pass_itables(struct nova_fsck *ctx);
void replace_journals_itables(struct nova_fsck *ctx);

int pass_inodes(struct nova_fsck *ctx);
const char *prjquota_bad(struct nova_fsck *ctx, const struct nv_inode_state *st,
			 char *buf, size_t len);
typedef int (*inode_fn)(struct nova_fsck *ctx, uint64_t ino);
int scan_inodes(struct nova_fsck *ctx, inode_fn fn, bool check_numbers);

int pass_namespace(struct nova_fsck *ctx);
int pass_links(struct nova_fsck *ctx);
void ns_free(struct nova_fsck *ctx);

int blockmap_init(struct nova_fsck *ctx);
void claim(struct nova_fsck *ctx, uint64_t blk, enum fsck_block_kind kind);
bool page_free(void *ctx, uint64_t page);
const char *owner_desc(struct nova_fsck *ctx, uint64_t blk, uint64_t exclude);
int pass_data(struct nova_fsck *ctx);

int pass_snapshot(struct nova_fsck *ctx);
void drop_snapshot_inodes(struct nova_fsck *ctx);

int pass_prjquota(struct nova_fsck *ctx);

#endif
