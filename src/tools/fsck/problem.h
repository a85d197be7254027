/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsck.nova's problem codes (e2fsck's problem.h): one code for each kind
 * of inconsistency the passes find, in pass order.
 *
 * Every problem line ends with its code in brackets, and so do the lines
 * of its repair:
 *
 *   ERROR: stripe 0: journal pointers (head 0x0, tail 0x0) are invalid [PR_JOURNAL_BAD_PTRS]
 *   FIXED: stripe 0: new empty journal at block 1234 [PR_JOURNAL_BAD_PTRS]
 *
 * Scripts and tests key on the code, not on the wording.  Codes are
 * names, not numbers; a code keeps its meaning (a new kind of problem
 * gets a new code).
 *
 * Next to each code, PR_x_MSG is the printf format of its message: the
 * problem() macro checks the arguments of every call against it at
 * compile time.  problem.c's table says what the repair does and how a
 * run decides to make it (PR_PREEN_OK, PR_NOTICE).
 */
#ifndef NOVA_FSCK_PROBLEM_H
#define NOVA_FSCK_PROBLEM_H

#include <stdbool.h>
#include "nova_tools.h"

struct nova_fsck;

enum fsck_problem_code {
	/* ---- pass 1: super blocks (super.c) ---- */
	PR_SB_REPLICA_BAD,
#define PR_SB_REPLICA_BAD_MSG \
	"replica super block (block %llu) is invalid: %s"
	PR_SB_DIFFER,
#define PR_SB_DIFFER_MSG \
	"primary and replica super blocks differ"
	PR_SB_PRIMARY_BAD,
#define PR_SB_PRIMARY_BAD_MSG \
	"primary super block is invalid (%s); the replica in block %llu is valid"
	PR_SB_STATE_BITS,
#define PR_SB_STATE_BITS_MSG \
	"super block state 0x%x has unknown bits"
	PR_SB_ERROR_STATE,
#define PR_SB_ERROR_STATE_MSG \
	"%s: the file system is marked as having errors"
	PR_SB_ENCODING,
#define PR_SB_ENCODING_MSG \
	"super block: %s (encoding %u, flags 0x%x)"

	/* ---- pass 2: journals (journal.c) ---- */
	PR_JOURNAL_BAD_PTRS,
#define PR_JOURNAL_BAD_PTRS_MSG \
	"stripe %u: journal pointers (head 0x%llx, tail 0x%llx) are invalid"
	PR_JOURNAL_OPEN,
#define PR_JOURNAL_OPEN_MSG \
	"stripe %u: uncommitted journal transaction (%u entr%s) of an operation cut short by a crash"
	PR_JOURNAL_CORRUPT,
#define PR_JOURNAL_CORRUPT_MSG \
	"stripe %u: uncommitted journal transaction with a corrupt entry after %u good one%s (the kernel refuses to mount)"

	/* ---- pass 3: reserved inodes, inode tables (itable.c) ---- */
	PR_ROOT_BAD,
#define PR_ROOT_BAD_MSG \
	"root inode is invalid (%s)"
	PR_RESERVED_REPLICA,
#define PR_RESERVED_REPLICA_MSG \
	"the replica of the reserved inodes (block %llu) differs from block %u (inode %u)"
	PR_ITABLE_BAD_HEAD,
#define PR_ITABLE_BAD_HEAD_MSG \
	"stripe %u: inode table head pointer 0x%llx is invalid"
	PR_ITABLE_BAD_NEXT,
#define PR_ITABLE_BAD_NEXT_MSG \
	"stripe %u: inode table block 0x%llx: next pointer 0x%llx %s"
	PR_JOURNAL_PAGE_USED,
#define PR_JOURNAL_PAGE_USED_MSG \
	"stripe %u: journal page %llu is %s"

	/* ---- pass 4: inode logs (inode.c) ---- */
	PR_RESERVED_SLOT_INO,
#define PR_RESERVED_SLOT_INO_MSG \
	"reserved inode slot %llu holds inode number %llu"
	PR_SLOT_INO,
#define PR_SLOT_INO_MSG \
	"inode slot %llu holds inode number %llu"
	PR_LOG_BAD_HEAD,
#define PR_LOG_BAD_HEAD_MSG \
	"inode %llu: log head 0x%llx is %s"
	PR_LOG_BAD_NEXT,
#define PR_LOG_BAD_NEXT_MSG \
	"inode %llu: log page 0x%llx: next pointer 0x%llx %s%s"
	/*
	 * What the log walk (libnova's nv_log_walk(), as the kernel's
	 * nova_log_walk() and replay) rejects, one code per enum nv_log_err;
	 * the message is the walk's own (struct nv_log.msg)
	 */
#define PR_LOG_MSG "inode %llu: %s"
	PR_LOG_CHAIN,			/* NV_LOG_CHAIN */
#define PR_LOG_CHAIN_MSG PR_LOG_MSG
	PR_LOG_TAIL_OUTSIDE,		/* NV_LOG_TAIL_OUTSIDE */
#define PR_LOG_TAIL_OUTSIDE_MSG PR_LOG_MSG
	PR_LOG_TAIL_NO_HEAD,		/* NV_LOG_HEAD_ZERO_TAIL */
#define PR_LOG_TAIL_NO_HEAD_MSG PR_LOG_MSG
	PR_LOG_ENTRY_BAD,		/* NV_LOG_BAD_ENTRY */
#define PR_LOG_ENTRY_BAD_MSG PR_LOG_MSG
	PR_LOG_ENTRY_CROSS_TAIL,	/* NV_LOG_CROSS_TAIL */
#define PR_LOG_ENTRY_CROSS_TAIL_MSG PR_LOG_MSG
	PR_LOG_ENTRY_CSUM,		/* NV_LOG_CSUM */
#define PR_LOG_ENTRY_CSUM_MSG PR_LOG_MSG
	PR_LOG_ENTRY_TID,		/* NV_LOG_TID */
#define PR_LOG_ENTRY_TID_MSG PR_LOG_MSG
	PR_LOG_ENTRY_REJECTED,		/* NV_LOG_SEMANTIC */
#define PR_LOG_ENTRY_REJECTED_MSG PR_LOG_MSG
	PR_LOG_PAST_CHAIN,		/* NV_LOG_PAST_CHAIN */
#define PR_LOG_PAST_CHAIN_MSG PR_LOG_MSG
	PR_LOG_XATTR_END,		/* NV_LOG_XATTR_END */
#define PR_LOG_XATTR_END_MSG PR_LOG_MSG
	PR_INODE_BAD_MODE,
#define PR_INODE_BAD_MODE_MSG \
	"inode %llu: %s"
	PR_INODE_REJECTED,
#define PR_INODE_REJECTED_MSG \
	"inode %llu (%s): %s"
	PR_LOG_PAGE_COUNTS,
#define PR_LOG_PAGE_COUNTS_MSG \
	"inode %llu: log page 0x%llx: its tail counts %u entries, %u dead, but it holds %u, %u dead"
	PR_DIR_RELOGGED,
#define PR_DIR_RELOGGED_MSG \
	"directory %llu: %zu live name(s) logged twice with the same readdir cookie: a log rewrite cut short by a crash, the later copies count"
	PR_LOG_DEAD_LIVE,
#define PR_LOG_DEAD_LIVE_MSG \
	"inode %llu: log entries marked dead are still live (%s)"
	PR_WRITE_SUPERSEDED,
#define PR_WRITE_SUPERSEDED_MSG \
	"inode %llu: %llu write entr%s count more superseded pages than there are (at 0x%llx: %llu, not %llu)"
	PR_XATTR_FEATURE,
#define PR_XATTR_FEATURE_MSG \
	"%llu log entries hold extended attributes, but the super block lacks the xattr feature"
	PR_ENCRYPT_FEATURE,
#define PR_ENCRYPT_FEATURE_MSG \
	"%llu inodes have an encryption context, but the super block lacks the encrypt feature"
	PR_PRJQUOTA_BAD,
#define PR_PRJQUOTA_BAD_MSG \
	"reserved inode %u, the project quota file, is unusable: %s"
	PR_PROJECT_FEATURE,
#define PR_PROJECT_FEATURE_MSG \
	"%llu inodes have a project ID other than 0%s, but the super block lacks the project feature"
	PR_INODE_CASEFOLD,
#define PR_INODE_CASEFOLD_MSG \
	"inode %llu: casefold flag on %s"
	PR_INODE_PROJID,
#define PR_INODE_PROJID_MSG \
	"inode %llu (%s): project ID 4294967295 is the kernel's invalid project ID, which it counts in no project"

	/* ---- pass 5: names, connectivity, link counts (namespace.c) ---- */
	PR_DENTRY_BAD_INO,
#define PR_DENTRY_BAD_INO_MSG \
	"directory %llu (%s): entry '%s' points to %s (%llu)"
	PR_DENTRY_FTYPE,
#define PR_DENTRY_FTYPE_MSG \
	"directory %llu (%s): entry '%s' has file type %u, but inode %llu is a %s"
	PR_DENTRY_COOKIE,
#define PR_DENTRY_COOKIE_MSG \
	"directory %llu (%s): entries '%s' and '%s' have the same readdir cookie %llu"
	PR_DIR_HARDLINK,
#define PR_DIR_HARDLINK_MSG \
	"directory %llu has %u names: '%s' in directory %llu (%s) is an extra one"
	PR_ORPHAN_UNLINKED,
#define PR_ORPHAN_UNLINKED_MSG \
	"inode %llu (%s) has no name and link count 0: left by a crash, mount frees it"
	PR_ORPHAN,
#define PR_ORPHAN_MSG \
	"inode %llu (%s, link count %u) has no name"
	PR_DIR_CYCLE,
#define PR_DIR_CYCLE_MSG \
	"directory %llu ('%s' in directory %llu) is in a cycle of directories unreachable from the root"
	PR_LINK_COUNT,
#define PR_LINK_COUNT_MSG \
	"inode %llu (%s %s): link count %u, should be %u"
	PR_DOTDOT,
#define PR_DOTDOT_MSG \
	"directory %llu (%s): '..' is %s%llu, should be %llu"

	/* ---- pass 6: blocks (blocks.c), snapshot (snapshot.c) ---- */
	PR_DATA_BLOCK_SHARED,
#define PR_DATA_BLOCK_SHARED_MSG \
	"inode %llu (%s %s): data block %llu of file page %llu is also used by %s%s"
	/*
	 * With the reflink feature, a block that pages of write entries
	 * flagged NOVA_WRITE_SHARED map, mapped by this page too, whose
	 * entry lacks the flag
	 */
	PR_DATA_SHARED_UNFLAGGED,
#define PR_DATA_SHARED_UNFLAGGED_MSG \
	"inode %llu (%s %s): data block %llu of file page %llu is shared with %s, but its write entry at 0x%llx lacks the shared flag"
	PR_SNAPSHOT_STALE,
#define PR_SNAPSHOT_STALE_MSG \
	"reserved inode %u holds a stale clean-unmount snapshot (the kernel discards it at mount)"
	PR_SNAPSHOT_BAD,
#define PR_SNAPSHOT_BAD_MSG \
	"clean-unmount snapshot unusable: %s"

	/* ---- pass 7: project quotas (quota.c) ---- */
	/*
	 * What is wrong in the project quota file's quota tree, one code
	 * per enum nv_qerr (libnova's nv_quota_read(), as quota_tree.c
	 * reads it); the message says where and what
	 */
#define PR_PRJQUOTA_TREE_MSG "project quota file: %s"
	PR_PRJQUOTA_INFO,		/* NV_QERR_INFO */
#define PR_PRJQUOTA_INFO_MSG PR_PRJQUOTA_TREE_MSG
	PR_PRJQUOTA_REF,		/* NV_QERR_REF */
#define PR_PRJQUOTA_REF_MSG PR_PRJQUOTA_TREE_MSG
	PR_PRJQUOTA_DATA,		/* NV_QERR_DATA */
#define PR_PRJQUOTA_DATA_MSG PR_PRJQUOTA_TREE_MSG
	PR_PRJQUOTA_ENTRY,		/* NV_QERR_ENTRY */
#define PR_PRJQUOTA_ENTRY_MSG PR_PRJQUOTA_TREE_MSG
	PR_PRJQUOTA_FREE_BLK,		/* NV_QERR_FREE_BLK */
#define PR_PRJQUOTA_FREE_BLK_MSG PR_PRJQUOTA_TREE_MSG
	PR_PRJQUOTA_FREE_ENTRY,		/* NV_QERR_FREE_ENTRY */
#define PR_PRJQUOTA_FREE_ENTRY_MSG PR_PRJQUOTA_TREE_MSG
	/*
	 * A project's usage in the file differs from the count (e2fsck's
	 * "[QUOTA WARNING] Usage inconsistent for ID": actual is the
	 * count, expected the file's), or the file has no entry for it
	 */
	PR_PRJQUOTA_USAGE,
#define PR_PRJQUOTA_USAGE_MSG \
	"project quota: usage inconsistent for ID %u: actual (%llu bytes, %llu inodes) != expected (%llu bytes, %llu inodes)"
	PR_PRJQUOTA_MISSING,
#define PR_PRJQUOTA_MISSING_MSG \
	"project quota: missing quota entry for ID %u (actual %llu bytes, %llu inodes)"

	PR_COUNT
};

/*
 * struct fsck_problem.flags.  PR_PREEN_OK: -p repairs it (the kernel
 * would do the same, or nothing is lost); without it, -p stops at the
 * problem ("UNEXPECTED INCONSISTENCY").  PR_NOTICE: not an error, a
 * state a power cut leaves and mount repairs: printed without "ERROR:",
 * repaired by every run but -n without asking, not counted as left
 * uncorrected.
 */
#define PR_PREEN_OK	0x01
#define PR_NOTICE	0x02

struct fsck_problem {
	const char *name;		/* "PR_..." */
	const char *msg;		/* printf format of the message */
	const char *fix;		/* what the repair does */
	unsigned int flags;
};

const struct fsck_problem *problem_get(int code);

/*
 * Report problem @code (its message with the arguments) and decide
 * whether to repair it: true to repair.  -n: no; -y: yes; -p: yes if
 * PR_PREEN_OK, else the run stops (ctx->stop); no option: ask.  A
 * PR_NOTICE problem is repaired by every run but -n.  Counts what is
 * left uncorrected.
 */
bool fsck_problem(struct nova_fsck *ctx, int code, ...);

/*
 * Never called: problem() names it in a branch that is never taken (so
 * the arguments are evaluated once), for the compiler to check the
 * arguments against the code's message
 */
static inline __printf(1, 2) bool problem_args(const char *fmt, ...)
{
	(void)fmt;
	return false;
}

#define problem(ctx, code, ...)						\
	(0 ? problem_args(code##_MSG, ##__VA_ARGS__) :			\
	 fsck_problem(ctx, code, ##__VA_ARGS__))

/* A repair of problem @code made ("FIXED: ..."), or not possible */
void fixed(struct nova_fsck *ctx, int code, const char *fmt, ...) __printf(3, 4);
void not_fixed(struct nova_fsck *ctx, int code, const char *fmt, ...) __printf(3, 4);

#endif
