// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova's problem table and problem() (e2fsck's problem.c): for each
 * code (problem.h) its message, what the repair does, and how a run
 * decides to make it; the one place that prints a problem, asks about it
 * and counts what is fixed and what is not.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "fsck.h"

/* The entry of @code: its name, its message, what its repair does */
#define P(code, flags, fix) \
	[code] = { #code, code##_MSG, fix, flags }

static const struct fsck_problem problems[PR_COUNT] = {
	/* pass 1: super blocks */
	P(PR_SB_REPLICA_BAD, PR_PREEN_OK,
	  "rewrite the replica from the primary"),
	P(PR_SB_DIFFER, PR_PREEN_OK,
	  "rewrite the replica from the primary"),
	P(PR_SB_PRIMARY_BAD, PR_PREEN_OK,
	  "rewrite the primary from the replica"),
	P(PR_SB_STATE_BITS, PR_PREEN_OK,
	  "clear the unknown state bits in both copies"),
	P(PR_SB_ERROR_STATE, PR_NOTICE,
	  "clear the error state at the end, if nothing is left uncorrected"),
	P(PR_SB_ENCODING, 0,
	  "with the casefold feature: set the encoding to UTF-8 12.1 (the only one) and clear the unknown flags; without it: clear the encoding and its flags"),

	/* pass 2: journals */
	P(PR_JOURNAL_BAD_PTRS, 0,
	  "empty the journal (tail set to head), or give the stripe a new empty journal"),
	P(PR_JOURNAL_OPEN, PR_NOTICE,
	  "roll the transaction back, as nova_journal_recover() at mount"),
	P(PR_JOURNAL_CORRUPT, PR_PREEN_OK,
	  "roll the good entries back and discard the corrupt rest"),

	/* pass 3: reserved inodes, inode tables */
	P(PR_ROOT_BAD, 0,
	  "restore the root inode from the replica block, or re-create it as an empty directory"),
	P(PR_RESERVED_REPLICA, PR_PREEN_OK,
	  "rewrite the replica block from the reserved inodes' block"),
	P(PR_ITABLE_BAD_HEAD, 0,
	  "give the stripe a new empty inode table (its inodes are lost)"),
	P(PR_ITABLE_BAD_NEXT, 0,
	  "end the table at that block (next pointer cleared)"),
	P(PR_JOURNAL_PAGE_USED, 0,
	  "give the stripe a new empty journal"),

	/* pass 4: inode logs */
	P(PR_RESERVED_SLOT_INO, 0,
	  "clear the slot"),
	P(PR_SLOT_INO, 0,
	  "clear the slot"),
	P(PR_LOG_BAD_HEAD, 0,
	  "clear the log (head and tail set to 0)"),
	P(PR_LOG_BAD_NEXT, 0,
	  "end the log at that page (next pointer cleared)"),
	P(PR_LOG_CHAIN, 0,
	  "truncate the log after its last good entry"),
	P(PR_LOG_TAIL_OUTSIDE, 0,
	  "set the tail after the last good entry"),
	P(PR_LOG_TAIL_NO_HEAD, 0,
	  "clear the tail"),
	P(PR_LOG_ENTRY_BAD, 0,
	  "truncate the log before the entry"),
	P(PR_LOG_ENTRY_CROSS_TAIL, 0,
	  "truncate the log before the entry"),
	P(PR_LOG_ENTRY_CSUM, 0,
	  "replace the entry by a dead one that changes nothing if good entries follow, else truncate the log before it"),
	P(PR_LOG_ENTRY_TID, 0,
	  "replace the entry by a dead one that changes nothing if good entries follow, else truncate the log before it"),
	P(PR_LOG_ENTRY_REJECTED, 0,
	  "replace the entry (and its xattr group's part 0) by dead ones that change nothing if good entries follow, else truncate the log before it"),
	P(PR_LOG_PAST_CHAIN, 0,
	  "truncate the log after its last good entry"),
	P(PR_LOG_XATTR_END, 0,
	  "truncate the log before the unfinished xattr group"),
	P(PR_INODE_BAD_MODE, 0,
	  "clear the inode"),
	P(PR_INODE_REJECTED, 0,
	  "clear the inode"),
	P(PR_LOG_PAGE_COUNTS, PR_PREEN_OK,
	  "set the page tail's counters to what the page holds"),
	P(PR_DIR_RELOGGED, PR_NOTICE,
	  "mark the superseded copies dead"),
	P(PR_LOG_DEAD_LIVE, 0,
	  "clear every dead mark of the log"),
	P(PR_WRITE_SUPERSEDED, PR_PREEN_OK,
	  "set the write entries' superseded page counts to the real ones"),
	P(PR_XATTR_FEATURE, PR_PREEN_OK,
	  "set NOVA_FEATURE_INCOMPAT_XATTR in both super block copies"),
	P(PR_ENCRYPT_FEATURE, PR_PREEN_OK,
	  "set NOVA_FEATURE_INCOMPAT_ENCRYPT in both super block copies"),
	P(PR_PRJQUOTA_BAD, 0,
	  "clear the inode (its blocks become free): the next mount with prjquota makes a new one and counts the usage, the limits set are lost"),
	P(PR_PROJECT_FEATURE, PR_PREEN_OK,
	  "set NOVA_FEATURE_RO_COMPAT_PROJECT in both super block copies"),
	P(PR_INODE_CASEFOLD, 0,
	  "clear the flag (a new link-change entry, and in the inode)"),
	P(PR_INODE_PROJID, PR_PREEN_OK,
	  "set the project ID to 0, that of an inode without a project (a new link-change entry, and in the inode)"),

	/* pass 5: names, connectivity, link counts */
	P(PR_DENTRY_BAD_INO, 0,
	  "remove the entry (a removal dentry)"),
	P(PR_DENTRY_FTYPE, PR_PREEN_OK,
	  "log the name again with the inode's file type"),
	P(PR_DENTRY_COOKIE, 0,
	  "log the later name again, with a new cookie"),
	P(PR_DIR_HARDLINK, 0,
	  "remove the extra name"),
	P(PR_ORPHAN_UNLINKED, PR_NOTICE,
	  "free the inode, as mount would"),
	P(PR_ORPHAN, 0,
	  "move the inode to /lost+found (created if needed)"),
	P(PR_DIR_CYCLE, 0,
	  "remove the directory's name and move it to /lost+found"),
	P(PR_LINK_COUNT, PR_PREEN_OK,
	  "log a link-change entry with the right count"),
	P(PR_DOTDOT, PR_PREEN_OK,
	  "log a '..' entry naming the parent"),

	/* pass 6: blocks, clean-unmount snapshot */
	P(PR_DATA_BLOCK_SHARED, 0,
	  "copy the file page to a new block of its own"),
	P(PR_DATA_SHARED_UNFLAGGED, 0,
	  "copy the file page to a new block of its own"),
	P(PR_SNAPSHOT_STALE, PR_NOTICE,
	  "discard the snapshot, as mount would"),
	P(PR_SNAPSHOT_BAD, PR_PREEN_OK,
	  "discard the snapshot and clear the clean flag: the next mount scans"),

	/* pass 7: project quotas */
#define PRJQUOTA_REBUILD \
	"rebuild the project quota file: a new tree with the limits of every entry the old one leads to and the usage counted (without room for it: PR_PRJQUOTA_BAD)"
	P(PR_PRJQUOTA_INFO, PR_PREEN_OK, PRJQUOTA_REBUILD),
	P(PR_PRJQUOTA_REF, PR_PREEN_OK, PRJQUOTA_REBUILD),
	P(PR_PRJQUOTA_DATA, PR_PREEN_OK, PRJQUOTA_REBUILD),
	P(PR_PRJQUOTA_ENTRY, PR_PREEN_OK, PRJQUOTA_REBUILD),
	P(PR_PRJQUOTA_FREE_BLK, PR_PREEN_OK, PRJQUOTA_REBUILD),
	P(PR_PRJQUOTA_FREE_ENTRY, PR_PREEN_OK, PRJQUOTA_REBUILD),
	P(PR_PRJQUOTA_USAGE, PR_PREEN_OK, PRJQUOTA_REBUILD),
	P(PR_PRJQUOTA_MISSING, PR_PREEN_OK, PRJQUOTA_REBUILD),
};

const struct fsck_problem *problem_get(int code)
{
	if (code < 0 || code >= PR_COUNT || !problems[code].name)
		abort();	/* a code without an entry: a bug */
	return &problems[code];
}

/* A line of a problem or a repair: "dev: " with -p, the tag, the code */
static void report(struct nova_fsck *ctx, const char *tag, int code,
		   const char *fmt, va_list ap)
{
	if (ctx->mode == MODE_PREEN)
		printf("%s: ", ctx->dev);
	printf("%s", tag);
	vprintf(fmt, ap);
	printf(" [%s]\n", problem_get(code)->name);
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

/* A state a crash leaves: reported as it is, repaired unless -n */
static bool notice(struct nova_fsck *ctx, const struct fsck_problem *p,
		   va_list ap)
{
	vprintf(p->msg, ap);
	printf(" [%s]\n", p->name);
	return ctx->mode != MODE_NO;
}

/*
 * A repair is to be made: after pass 1, the clean flag and the rest
 * (fs_stale()) go first, durable before it
 */
static bool repair(struct nova_fsck *ctx)
{
	if (ctx->stale_on_repair)
		fs_stale(ctx);
	return true;
}

bool fsck_problem(struct nova_fsck *ctx, int code, ...)
{
	const struct fsck_problem *p = problem_get(code);
	va_list ap;

	/* nothing more after an I/O error (io_failed() ends the run) */
	if (ctx->stop || io_failed(ctx))
		return false;
	va_start(ap, code);
	if (p->flags & PR_NOTICE) {
		bool fix = notice(ctx, p, ap);

		va_end(ap);
		return fix && repair(ctx);
	}
	report(ctx, "ERROR: ", code, p->msg, ap);
	va_end(ap);
	switch (ctx->mode) {
	case MODE_YES:
		return repair(ctx);
	case MODE_PREEN:
		if (p->flags & PR_PREEN_OK)
			return repair(ctx);
		printf("\n%s: UNEXPECTED INCONSISTENCY; RUN fsck.nova MANUALLY.\n"
		       "\t(i.e., without -a or -p options)\n", ctx->dev);
		ctx->n_unfixed++;
		ctx->stop = FSCK_UNCORRECTED;
		return false;
	case MODE_NO:
		ctx->n_unfixed++;
		return false;
	default:
		if (ask())
			return repair(ctx);
		ctx->n_unfixed++;
		return false;
	}
}

/*
 * After an I/O error a repair is not said to be made, nor counted: what
 * it stored may not be durable, and what came after was not stored
 */
void fixed(struct nova_fsck *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	if (ctx->fs.io_error)
		return;
	ctx->n_fixed++;
	ctx->run_fixed++;
	if (ctx->stop)
		return;		/* the run is over: nothing more is said */
	va_start(ap, fmt);
	report(ctx, "FIXED: ", code, fmt, ap);
	va_end(ap);
}

void not_fixed(struct nova_fsck *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	if (ctx->fs.io_error)
		return;		/* the run ends with the I/O error */
	ctx->n_unfixed++;
	if (ctx->stop)
		return;
	va_start(ap, fmt);
	report(ctx, "NOT FIXED: ", code, fmt, ap);
	va_end(ap);
}
