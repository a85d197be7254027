/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: in-DRAM structures and the interfaces between the module's files.
 * The on-pmem format lives in nova_format.h, the code the tools share on
 * it in nova_lib.h, the ioctl ABI in nova_ioctl.h, the persistence
 * primitives in pmem.h.
 */
#ifndef NOVA_H
#define NOVA_H

#include <linux/fs.h>
#include <linux/quota.h>
#include <linux/dax.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/uidgid.h>
#include <linux/time64.h>
#include <linux/ratelimit_types.h>

#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "compat.h"

/* nova_lib.h's one helper beyond compat.h's CRC */
static inline __u64 nova_div_u64(__u64 a, __u64 b)
{
	return div64_u64(a, b);
}

#include "nova_format.h"
#include "nova_lib.h"
#include "nova_ioctl.h"
#include "pmem.h"
#include "stats.h"

#define NOVA_FS_NAME	"NOVA"
#define NOVA_LINK_MAX	65000
/* blocks in a 2 MiB huge page */
#define NOVA_HUGE_BLOCKS	(1UL << (21 - NOVA_BLOCK_SHIFT))

/* Mount options (nova_sb_info.s_mount_opt) */
#define NOVA_MOUNT_FORMAT		0x0001	/* -o init */
#define NOVA_MOUNT_ERRORS_CONT		0x0002
#define NOVA_MOUNT_ERRORS_RO		0x0004
#define NOVA_MOUNT_ERRORS_PANIC		0x0008
#define NOVA_MOUNT_DAX			0x0010
#define NOVA_MOUNT_INPLACE		0x0020
#define NOVA_MOUNT_NOACL		0x0040	/* POSIX ACLs off */
#define NOVA_MOUNT_NORECOVERY		0x0080	/* journals left as found (ro) */
#define NOVA_MOUNT_USRQUOTA		0x0100	/* quota.c */
#define NOVA_MOUNT_GRPQUOTA		0x0200
#define NOVA_MOUNT_PRJQUOTA		0x0400	/* project quotas on (quota.c) */
#define NOVA_MOUNT_ERRORS_MASK \
	(NOVA_MOUNT_ERRORS_CONT | NOVA_MOUNT_ERRORS_RO | NOVA_MOUNT_ERRORS_PANIC)

#define nova_test_opt(sbi, opt)	((sbi)->s_mount_opt & NOVA_MOUNT_##opt)

/* Debug output classes (dbgmask= option and nova_dbgmask parameter) */
#define NOVA_DBGMASK_VERBOSE		0x0010
#define NOVA_DBGMASK_TRANSACTION	0x0020

extern unsigned int nova_dbgmask;
extern int measure_timing;
extern int inplace_data_updates;

/* Verbose output for @sb's mount: its dbgmask= option or the parameter */
#define nova_dbgv(sb, fmt, ...)						\
	do {								\
		if ((NOVA_SB(sb)->dbgmask | READ_ONCE(nova_dbgmask)) &	\
		    NOVA_DBGMASK_VERBOSE)					\
			pr_info("NOVA (%s): " fmt, (sb)->s_id,		\
				##__VA_ARGS__);				\
	} while (0)

/* A free range of blocks, [low, high] inclusive */
struct nova_range_node {
	struct rb_node node;
	unsigned long low;
	unsigned long high;
};

/* Single blocks freed last, kept out of the tree for the next allocation */
#define NOVA_RECENT_FREE	16

/* One per-stripe allocator */
struct nova_free_list {
	spinlock_t lock;
	struct rb_root tree;
	unsigned long recent[NOVA_RECENT_FREE];	/* free, not in the tree */
	unsigned int nr_recent;
	unsigned long block_start;	/* first block of the region */
	unsigned long block_end;	/* last block of the region */
	unsigned long num_free_blocks;
	unsigned long num_nodes;
	unsigned long alloc_count;
	unsigned long free_count;
};

struct nova_sb_info {
	struct super_block *sb;
	unsigned int dbgmask;		/* dbgmask= of this mount */
	struct dax_device *s_dax_dev;
	u64 s_dax_part_off;
	void *virt_addr;		/* kernel mapping of the device */
	unsigned long base_pfn;		/* its first pfn, 0: no struct pages */
	/* the page maps of its first and last page, held (super.c) */
	struct dev_pagemap *pgmap[2];
	bool dax_holder;		/* this mount is the DAX device's holder */
	bool dev_removed;		/* the device is being removed */
	unsigned long snap_pages[2];	/* validated pages of snapshots 3, 4 */
	u64 snap_prev;			/* last inode range of a snapshot load */
	u64 phys_size;			/* bytes mapped: the whole device */
	struct nova_layout layout;	/* the geometry: blocks, stripes, regions (nova_lib.h) */

	/* DRAM copy of the super block; s_lock serialises its updates */
	struct nova_super_block s_super;
	struct mutex s_lock;

	unsigned long s_mount_opt;
	umode_t mode;			/* root mode, applies with init */
	kuid_t uid;
	kgid_t gid;

	unsigned long reserved_blocks;	/* only for deletions' log pages */

	struct nova_free_list *free_lists;	/* one per stripe */
	unsigned long *claimed;		/* claimed blocks, snapshot mounts (balloc.c) */
	struct nova_inode_map *inode_maps;	/* one per stripe */
	struct mutex *journal_locks;		/* one per stripe */
	struct task_struct *scan_task;	/* the mounting task, during its recovery scan */
	atomic64_t inodes_used;
	atomic_t next_generation;

	struct nova_stats stats;
	struct proc_dir_entry *s_proc;
	/*
	 * 0, or what every change fails with until the unmount (set once,
	 * never cleared): -EIO after FS_IOC_SHUTDOWN (ioctl.c), -EROFS
	 * after an error with errors=remount-ro (nova_error())
	 */
	int stopped;
	unsigned long orphans_left;	/* not reclaimed: the device was read-only */
	bool recovery_skipped;		/* norecovery left journals open */
	/* the super block may record NOVA_STATE_ERROR (nova_record_error()) */
	bool record_errors;
	bool errors_seen;		/* before it could: during the mount */
	struct ratelimit_state err_rs;	/* nova_error()'s messages */
	atomic_long_t err_suppressed;	/* not printed since the last one */
	struct work_struct error_work;
	bool error_pending;		/* its write left to the thaw (super.c) */
	struct mutex quota_write_lock;	/* quota.c */
	/* the project quota file was written back and closed (or suspended) */
	bool prj_written;
	/* since its load: a write of it failed, or its count skipped inodes */
	bool prj_stale;
	/* shared data block -> reference count (share.c) */
	struct xarray shared;
	struct mutex share_lock;
};

/*
 * Per-stripe in-use map of inode table slots (slot i of stripe s is inode
 * number i * stripes + s) and the DRAM list of the stripe's table blocks.
 */
struct nova_inode_map {
	struct mutex lock;
	unsigned long *inuse;
	unsigned long capacity;		/* slots in the table blocks */
	unsigned long used;
	unsigned long hint;
	u64 *blocks;			/* offsets of the table blocks */
	unsigned long nblocks;
	/* room allocated (doubled when full: a mount adds block by block) */
	unsigned long inuse_bits;
	unsigned long blocks_room;
};

/* A lite journal transaction */
#define NOVA_MAX_TX_ENTRIES	8
struct nova_tx {
	int stripe;
	u64 base;
	u64 tail;
	unsigned int count;
};

static inline struct nova_sb_info *NOVA_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/* A directory entry in the DRAM index of a directory */
struct nova_dir_node {
	struct rb_node node;		/* by (hash, name) */
	u32 hash;
	u8 name_len;
	u8 file_type;			/* DT_* */
	u64 ino;
	u64 cookie;			/* readdir position - 2 */
	u64 de_off;			/* the live dentry in the log */
	char name[];
};

/*
 * A change of a directory's DRAM index, prepared before the operation
 * commits (memory allocated) and applied after it (dir.c)
 */
struct nova_dir_change {
	struct inode *dir;
	struct nova_dir_node *dn;	/* the name's node, or a new one */
	bool fresh;			/* a new node, not in the index yet */
	bool reserved;			/* the cookie's slot is reserved */
	u8 ftype;
	u64 ino;
	u64 cookie;
	u64 de_off;
};

/* The extended attribute group a log replay is reading (xattr.c) */
struct nova_xattr_replay {
	u64 off;			/* its part 0 */
	u32 value_len;
	u32 got;			/* value bytes so far */
	u32 bytes;			/* entry bytes so far */
	u32 crc;
	u16 next_part;
	u8 index;
	bool live;			/* inside a live group */
};

/* DRAM part of an inode, rebuilt from its log */
struct nova_inode_info_header {
	u64 pi_addr;			/* offset of struct nova_inode */
	u64 log_head;
	u64 log_tail;			/* committed tail */
	unsigned long log_pages;
	unsigned long ino;
	u64 trans_id;			/* next entry's trans_id */
	u32 flags;			/* FS_*_FL */
	u32 projid;			/* project ID (quota.c) */
	/* latest attribute entries: invalidated when superseded */
	u64 last_sa;			/* set-attribute entry */
	bool last_sa_cut;		/* it cut the file: keep it */
	u64 last_lc;			/* link-change entry */
	u64 pending_lc;			/* appended, not yet committed */
	bool gc_pending;		/* thorough GC wanted */
	/*
	 * Write entries died under shared locks (nova_convert_unwritten()):
	 * a reader may still hold one, so fast GC frees no log page until
	 * a commit under the exclusive locks (nova_gc_if_pending()) clears it
	 */
	bool gc_hold;
	u8 use_reserve;			/* NOVA_RESERVE_*: whose appends */
	bool claimed;			/* its blocks are claimed (balloc.c) */
	/* directories */
	struct rb_root dir_tree;
	struct xarray dir_cookies;	/* cookie -> nova_dir_node */
	unsigned long dir_entries;
	u64 dir_name_bytes;		/* dentry bytes of the indexed names */
	u64 parent_ino;			/* ".." (mkdir, rename, replay) */
	bool binary_names;		/* replay saw names with '/' or NUL */
	bool dir_ci;			/* index keyed by casefolded names */
	/* symlinks */
	u64 symlink_block;
	/* regular files */
	struct mutex log_mutex;		/* log appends vs. page faults */
	struct xarray pages;		/* page -> live write entry */
	/*
	 * Shared blocks this file stopped mapping under shared locks (a
	 * fault's copy): their references go at the next change under the
	 * inode lock, when no read() of this file can still copy from them
	 * (nova_share_drops())
	 */
	struct xarray share_drops;
	/*
	 * Under the invalidate lock: a clone holds the other file's too
	 * (nova_wait_dax_page() drops and takes both), and counts the
	 * waits that dropped them (reflink.c)
	 */
	struct inode *layout_other;
	unsigned int layout_waits;
	unsigned long data_pages;
	unsigned long live_writes;	/* write entries the index uses */
	atomic_t write_faults;		/* shared write faults (dax.c) */
	bool attr_dirty;		/* times newer than the log's */
	/* extended attributes (xattr.c), any inode type */
	struct rb_root xattr_tree;	/* nova_xattr_node by (index, name) */
	struct rw_semaphore xattr_sem;	/* readers vs. tree switch and GC */
	unsigned long xattr_count;	/* live attributes */
	u64 xattr_bytes;		/* their entry bytes in the log */
	struct nova_xattr_replay xr;
};

/*
 * The largest file: 2^32 - 1 blocks (16 TiB - 4 KiB), ext4's limit.  File
 * block numbers fit in 32 bits, as fscrypt's IV_INO_LBLK_64 and _32
 * policies need (crypto.c), and so do inode numbers (nova_alloc_ino()).
 */
#define NOVA_MAX_FILE_SIZE	((loff_t)U32_MAX << NOVA_BLOCK_SHIFT)

struct nova_inode_info {
	struct nova_inode_info_header header;
	nova_dquot_ptr_t i_dquot[MAXQUOTAS];	/* quota.c */
#ifdef HAVE_FSCRYPT_INODE_INFO_OFFS
	struct fscrypt_inode_info *i_crypt_info;	/* crypto.c */
#endif
	struct inode vfs_inode;
};

static inline struct nova_inode_info *NOVA_I(struct inode *inode)
{
	return container_of(inode, struct nova_inode_info, vfs_inode);
}

/*
 * The link count and times of an inode as a namespace operation leaves
 * them: its log entries record them before the VFS inode takes them
 */
struct nova_link_state {
	unsigned int nlink;
	struct timespec64 mtime;
	struct timespec64 ctime;
};

static inline struct nova_link_state nova_link_state_of(const struct inode *inode)
{
	return (struct nova_link_state){
		.nlink = inode->i_nlink,
		.mtime = nova_get_mtime(inode),
		.ctime = nova_get_ctime(inode),
	};
}

/*
 * A log replay (nova_read_inode()) or the recovery scan stops with -EINTR
 * once the task that waits for it is killed: a hostile log can make them
 * take hours (write entries that map the whole device at the same file
 * offset, again and again, never map more pages than the device has
 * blocks).  The scan's workers look at the mounting task.
 */
static inline bool nova_walk_killed(struct super_block *sb)
{
	struct task_struct *t = READ_ONCE(NOVA_SB(sb)->scan_task);

	return fatal_signal_pending(current) || (t && fatal_signal_pending(t));
}

/*
 * After FS_IOC_SHUTDOWN nothing is written to pmem any more: every
 * operation fails with EIO, and the next mount recovers the file system
 * as after a power cut (ioctl.c).
 */
static inline bool nova_is_shutdown(struct super_block *sb)
{
	return READ_ONCE(NOVA_SB(sb)->stopped) == -EIO;
}

/* Shut down (FS_IOC_SHUTDOWN, device removal); also after an error */
static inline void nova_shut_down(struct super_block *sb)
{
	nova_fence();
	WRITE_ONCE(NOVA_SB(sb)->stopped, -EIO);
}

/*
 * 0 if the file system may change, else the error every change fails
 * with: EIO after a shutdown, EROFS in the emergency read-only state an
 * error leaves with errors=remount-ro (as ext4's ext4_emergency_state()).
 * That state is NOVA's own, as ext4's: SB_RDONLY is the VFS's, changed
 * under s_umount by a remount (a file system frozen when it is set
 * behind the VFS's back keeps its freeze locks at the thaw, and every
 * write after waits for good).  Reads go on; a remount is refused (as
 * ext4 refuses the switch between ro and rw), and unmount writes
 * nothing but the error state: fsck.nova and a new mount write again.
 * Checked where each change starts (after the VFS's freeze protection)
 * and where pmem is written: nova_log_append(), nova_new_inode().
 */
static inline int nova_emergency_state(struct super_block *sb)
{
	return READ_ONCE(NOVA_SB(sb)->stopped);
}

/* Offset <-> address translation; callers validate offsets first */
static inline void *nova_get_block(struct super_block *sb, u64 off)
{
	return off ? NOVA_SB(sb)->virt_addr + off : NULL;
}

static inline u64 nova_get_addr_off(struct nova_sb_info *sbi, const void *addr)
{
	return (u64)(addr - sbi->virt_addr);
}

static inline u64 nova_block_off(unsigned long blocknr)
{
	return (u64)blocknr << NOVA_BLOCK_SHIFT;
}

static inline struct nova_super_block *nova_pmem_super(struct super_block *sb)
{
	return NOVA_SB(sb)->virt_addr;
}

/*
 * The replica is in the file system's last block, block n-1; that is the
 * device's last block unless the file system was made smaller.
 */
static inline struct nova_super_block *nova_pmem_replica_super(struct super_block *sb)
{
	return nova_get_block(sb, nova_block_off(NOVA_SB(sb)->layout.num_blocks - 1));
}

static inline struct nova_inode *nova_reserved_inode(struct super_block *sb,
						     unsigned long ino)
{
	return nova_get_block(sb, nova_block_off(NOVA_RESERVED_INODE_BLOCK) +
			      ino * sizeof(struct nova_inode));
}

static inline struct nova_inode_table *nova_inode_table(struct super_block *sb,
							int stripe)
{
	return nova_get_block(sb, nova_block_off(NOVA_INODE_TABLE_BLOCK) +
			      stripe * NOVA_CACHELINE);
}

static inline struct nova_journal_ptr *nova_journal_ptr(struct super_block *sb,
							int stripe)
{
	return nova_get_block(sb, nova_block_off(NOVA_JOURNAL_PTR_BLOCK) +
			      stripe * NOVA_CACHELINE);
}

/* First and last block the allocators manage */
static inline unsigned long nova_data_start(void)
{
	return NOVA_HEAD_RESERVED_BLOCKS;
}

static inline unsigned long nova_data_end(struct nova_sb_info *sbi)
{
	return sbi->layout.data_end;
}

/* Is [off, off + len) a valid range inside the dynamic area? */
static inline bool nova_range_valid(struct nova_sb_info *sbi, u64 off, u64 len)
{
	u64 lo = nova_block_off(nova_data_start());
	u64 hi = nova_block_off(nova_data_end(sbi) + 1);

	return off >= lo && len <= hi - lo && off <= hi - len;
}

static inline s64 nova_ts_to_ns(struct timespec64 ts)
{
	return timespec64_to_ns(&ts);
}

static inline struct timespec64 nova_ns_to_ts(s64 ns)
{
	return ns_to_timespec64(ns);
}

static inline s64 nova_now_ns(void)
{
	struct timespec64 ts;

	ktime_get_real_ts64(&ts);
	return nova_ts_to_ns(ts);
}

/*
 * Crash points (debug builds only, make NOVA_DEBUG=1): with the module
 * parameter crash_point=N the kernel panics when it reaches point N,
 * which stops every CPU at once - a power cut at a chosen ordering
 * point.  The QEMU pmem backing file keeps every store made before.
 */
enum nova_crash_point {
	CP_NONE,
	CP_LOG_BEFORE_TAIL,	/* entries written, tail not stored */
	CP_LOG_AFTER_TAIL,	/* tail stored, DRAM not updated */
	CP_JOURNAL_STARTED,	/* journal tail stored, no in-place update */
	CP_JOURNAL_MID,		/* first inode's tail committed */
	CP_JOURNAL_BEFORE_COMMIT, /* all updates done, journal head not */
	CP_CREATE_INODE,	/* new inode written (invalid), no dentry */
	CP_WRITE_DATA,		/* CoW data copied, no entry */
	CP_WRITE_ENTRIES,	/* write entries appended, not committed */
	CP_TRUNCATE_COMMITTED,	/* size committed, blocks not freed */
	CP_LOG_EXTEND,		/* new log pages linked, entry not written */
	CP_FAST_GC,		/* a dead page unlinked, not freed */
	CP_GC_LINKED,		/* thorough GC: new log linked, tail not */
	CP_GC_TAIL,		/* thorough GC: tail in the new log, head not */
	CP_GC_HEAD,		/* thorough GC: head switched, old not freed */
	CP_ITABLE_EXTEND,	/* new inode table block zeroed, not linked */
	CP_EVICT,		/* deleted inode marked free, blocks not */
	CP_SNAPSHOT_SAVED,	/* clean-unmount snapshot written, flag not */
	CP_XATTR_COMMITTED,	/* new xattr group committed, old one live */
	CP_XATTR_HALF_DEAD,	/* old xattr group: part 0 dead, later parts not */
	CP_MAX
};

#ifdef NOVA_DEBUG
extern int nova_crash_point;
void __noreturn nova_crash(int point);
#define NOVA_CRASH_POINT(n)						\
	do {								\
		if (unlikely(READ_ONCE(nova_crash_point) == (n)))	\
			nova_crash(n);					\
	} while (0)
#else
#define NOVA_CRASH_POINT(n)	do { } while (0)
#endif

/*
 * Fault injection (debug builds only, inject.c): with the module
 * parameter inject=N the event N is made to happen at its point, to
 * test a race deterministically.
 */
enum nova_inject {
	NOVA_INJECT_NONE,
	/*
	 * a write entry died while its killer does not hold the log mutex
	 * (a truncate): another thread's fast GC frees the log pages that
	 * are all dead now, and their blocks are reused (overwritten)
	 */
	NOVA_INJECT_DEAD_ENTRY_GC,
	/*
	 * an inode is being removed and its log mutex is not taken yet:
	 * another thread logs its times (an fsync, nova_write_attr())
	 */
	NOVA_INJECT_REMOVE_ATTR,
	/*
	 * a read fault that found no shared block on the file system (it
	 * takes no freeze protection): before its invalidate lock, a clone
	 * shares the file's blocks and the file system is frozen
	 */
	NOVA_INJECT_FAULT_FREEZE,
};

#ifdef NOVA_DEBUG
extern int nova_inject;
void nova_inject_dead_entry_gc(struct inode *inode, const void *entry);
/* run @call if event @ev is the one to inject */
#define NOVA_INJECT_AT(ev, call)					\
	do {								\
		if (unlikely(READ_ONCE(nova_inject) == (ev)))		\
			call;						\
	} while (0)
#define NOVA_INJECT_DEAD_ENTRY(inode, e)				\
	NOVA_INJECT_AT(NOVA_INJECT_DEAD_ENTRY_GC, nova_inject_dead_entry_gc(inode, e))
void nova_inject_remove_attr(struct inode *inode);
#define NOVA_INJECT_REMOVE(inode)					\
	NOVA_INJECT_AT(NOVA_INJECT_REMOVE_ATTR, nova_inject_remove_attr(inode))
void nova_inject_fault_freeze(struct inode *inode);
#define NOVA_INJECT_FAULT(inode)					\
	NOVA_INJECT_AT(NOVA_INJECT_FAULT_FREEZE, nova_inject_fault_freeze(inode))
#else
#define NOVA_INJECT_DEAD_ENTRY(inode, e)	do { } while (0)
#define NOVA_INJECT_REMOVE(inode)		do { } while (0)
#define NOVA_INJECT_FAULT(inode)		do { } while (0)
#endif

/*
 * The functions and objects the files share: one block per file that
 * defines them, in the order of Kbuild
 */
/* super.c */
__printf(2, 3) void nova_error(struct super_block *sb, const char *fmt, ...);
void nova_set_error_state(struct super_block *sb);
int nova_sync_super(struct super_block *sb);
void nova_set_feature(struct super_block *sb, __le64 *f, u64 bit);

/* balloc.c */
int nova_init_range_cache(void);
void nova_destroy_range_cache(void);
int nova_alloc_free_lists(struct super_block *sb);
void nova_free_free_lists(struct super_block *sb);
void nova_clear_free_lists(struct super_block *sb);
void nova_init_free_lists(struct super_block *sb);
int nova_build_free_lists_from_bitmap(struct super_block *sb,
				      const unsigned long *used);
int nova_new_blocks(struct super_block *sb, unsigned long *blocknr,
		    unsigned long num, int stripe, bool zero);
int nova_new_data_blocks(struct super_block *sb, unsigned long *blocknr,
			 unsigned long want, bool reserve);

/*
 * A quota file in use (S_NOQUOTA) may take the deletion reserve: its
 * writes are copy-on-write, and one refused on a full device would leave
 * its tree half-updated.  Its growth (a new block in its tree: its
 * failure is clean) only for CAP_SYS_RESOURCE, as ext4's root reserve:
 * users who add quota structures (a new project ID) cannot drain it.
 */
static inline bool nova_may_take_reserve(struct inode *inode, loff_t end)
{
	return IS_NOQUOTA(inode) &&
	       (end <= i_size_read(inode) ||
		has_capability_noaudit(current, CAP_SYS_RESOURCE));
}
int nova_new_aligned_blocks(struct super_block *sb, unsigned long *blocknr,
			    unsigned long num);
void nova_free_blocks(struct super_block *sb, unsigned long blocknr,
		      unsigned long num);

/* share.c */
void nova_share_init(struct super_block *sb);
void nova_share_destroy(struct super_block *sb);

/* Does the file system have clones (INCOMPAT_REFLINK)? */
static inline bool nova_reflink_enabled(struct super_block *sb)
{
	return READ_ONCE(NOVA_SB(sb)->s_super.s_feature_incompat) &
	       cpu_to_le64(NOVA_FEATURE_INCOMPAT_REFLINK);
}

/*
 * The most pages one file's log may map: each page has a block of its
 * own, so no more than the device has blocks, unless clones share blocks
 * (a file cloned into itself maps its blocks many times): then the
 * largest file.  More is a damaged log, which would exhaust memory.
 * (Inline: every index change asks.)
 */
static inline unsigned long nova_max_mapped_pages(struct super_block *sb)
{
	if (nova_reflink_enabled(sb))
		return NOVA_MAX_FILE_SIZE >> NOVA_BLOCK_SHIFT;
	return NOVA_SB(sb)->layout.num_blocks;
}
void nova_error_mapped_pages(struct super_block *sb, u64 ino);
unsigned long nova_share_count(struct super_block *sb, unsigned long blk);
bool nova_entry_page_shared(struct super_block *sb,
			    const struct nova_file_write_entry *e, pgoff_t pg);
bool nova_page_shared(struct inode *inode, pgoff_t pg);
bool nova_page_flagged(struct inode *inode, pgoff_t pg);
bool nova_any_flagged(struct inode *inode, pgoff_t pg, unsigned long n);
int nova_share_get(struct super_block *sb, unsigned long blk, unsigned long n);
void nova_share_drop(struct super_block *sb, unsigned long blk,
		     unsigned long n);
unsigned long __nova_free_data_blocks(struct super_block *sb,
				      unsigned long blk, unsigned long n);

/*
 * A file stops mapping data blocks [blk, blk + n): the ones no other
 * page maps go back to the allocator, the shared ones lose a reference
 * (share.c).  Returns the number of blocks freed.  Inline for a file
 * system without shared blocks: every copy-on-write overwrite frees one.
 */
static inline unsigned long nova_free_data_blocks(struct super_block *sb,
						  unsigned long blk,
						  unsigned long n)
{
	if (!n)
		return 0;
	if (xa_empty(&NOVA_SB(sb)->shared)) {
		nova_free_blocks(sb, blk, n);
		return n;
	}
	return __nova_free_data_blocks(sb, blk, n);
}
int nova_share_scan_add(struct super_block *sb, unsigned long blk);
int nova_share_scan_finish(struct super_block *sb, unsigned long *used);
void nova_share_drops(struct inode *inode);
void nova_share_drop_undo(struct inode *inode, unsigned long blk);
void nova_settle_free_list(struct nova_sb_info *sbi, struct nova_free_list *fl);
void nova_settle_free_lists(struct super_block *sb);
unsigned long nova_count_free_blocks(struct super_block *sb);
unsigned long nova_free_blocks_at_least(struct super_block *sb,
					unsigned long need);
bool nova_block_is_free(struct super_block *sb, unsigned long blocknr);
bool nova_blocks_any_free(struct super_block *sb, unsigned long blocknr,
			  unsigned long num);
bool nova_in_reserve(struct super_block *sb, unsigned long n);
int nova_claim_init(struct super_block *sb);
void nova_claim_destroy(struct super_block *sb);
int nova_claim_blocks(struct super_block *sb, unsigned long blocknr,
		      unsigned long num);
void nova_unclaim_blocks(struct super_block *sb, unsigned long blocknr,
			 unsigned long num);
int nova_insert_free_range(struct super_block *sb, struct nova_free_list *fl,
			   unsigned long low, unsigned long high);
int nova_stripe_of_block(struct nova_sb_info *sbi, unsigned long blocknr);

/* bbuild.c */
int nova_rebuild_allocator(struct super_block *sb);
int nova_save_snapshot(struct super_block *sb);
int nova_restore_snapshot(struct super_block *sb);
void nova_discard_snapshot(struct super_block *sb);

/* inode.c */
int nova_init_inode_cache(void);
void nova_destroy_inode_cache(void);
struct inode *nova_alloc_inode(struct super_block *sb);
void nova_free_inode(struct inode *inode);
struct inode *nova_iget(struct super_block *sb, unsigned long ino);
#define NOVA_IGET_HANDLE	1	/* the number is a file handle's */
struct inode *nova_iget_flags(struct super_block *sb, unsigned long ino,
			      unsigned int flags);
typedef int (*nova_inode_fn)(struct inode *inode, void *arg);
int nova_walk_inodes(struct super_block *sb, nova_inode_fn fn, void *arg,
		     unsigned long *skipped);
int nova_alloc_inode_maps(struct super_block *sb);
void nova_free_inode_maps(struct super_block *sb);
int nova_inode_map_add_block(struct super_block *sb, unsigned int stripe,
			     u64 blk);
void nova_inode_map_set(struct super_block *sb, unsigned long ino);
int nova_getattr(nova_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
int nova_drop_inode(struct inode *inode);
int nova_setattr(nova_idmap_t *idmap, struct dentry *dentry,
		 struct iattr *attr);
void nova_init_root_inode(struct super_block *sb, umode_t mode, kuid_t uid,
			  kgid_t gid);
void nova_init_prjquota_inode(struct super_block *sb);
struct inode *nova_new_inode(nova_idmap_t *idmap, struct inode *dir,
			     umode_t mode, dev_t rdev, u64 *valid_word);
void nova_evict_inode(struct inode *inode);
int nova_append_link_change(struct inode *inode,
			    const struct nova_link_state *st, u64 *tail);
void nova_link_change_committed(struct inode *inode);
int nova_append_dead_dir_mark(struct inode *inode, u64 *tail);
void nova_drop_dead_dir_mark(struct inode *inode);
int nova_log_attr(struct inode *inode, bool cut);
int nova_log_setattr(struct inode *inode, bool cut, unsigned long tail_blk,
		     loff_t old_size);
int nova_write_attr(struct inode *inode);
int nova_write_inode(struct inode *inode, struct writeback_control *wbc);
void nova_dirty_inode(struct inode *inode, int flags);
void nova_set_inode_flags(struct inode *inode, u32 flags);
int nova_fileattr_get(struct dentry *dentry, nova_fileattr_t *fa);
int nova_fileattr_set(nova_idmap_t *idmap,
		      struct dentry *dentry, nova_fileattr_t *fa);
extern const struct inode_operations nova_special_inode_operations;

/* log.c */
int nova_log_append(struct super_block *sb, struct inode *inode,
		    const void *entry, size_t size, u64 *tail, u64 *entry_off);
void nova_log_commit(struct super_block *sb, struct inode *inode, u64 tail);
typedef int (*nova_entry_fn)(struct super_block *sb, u64 off,
			     const void *entry, size_t size, void *arg);
int nova_log_walk(struct super_block *sb, unsigned long ino, u64 head,
		  u64 tail, nova_entry_fn fn, void *arg);
int nova_log_walk_own(struct super_block *sb, unsigned long ino, u64 head,
		      u64 tail, nova_entry_fn fn, void *arg);
void nova_free_log(struct super_block *sb, u64 head, unsigned long max);
long nova_log_walk_chain(struct super_block *sb, struct inode *inode,
			 u64 page, u64 stop1, u64 stop2, unsigned long max);
int nova_log_claim(struct super_block *sb, unsigned long ino, u64 head,
		   unsigned long pages);
void nova_log_unclaim(struct super_block *sb, u64 head, unsigned long max);
long nova_log_check_chain(struct super_block *sb, unsigned long ino,
			  u64 head, u64 tail);
void nova_invalidate_entry(struct super_block *sb, u64 off);
bool nova_invalidate_pages(struct super_block *sb,
			   struct nova_file_write_entry *e, unsigned int n);
struct nova_log_page_tail *nova_page_tail(struct super_block *sb, u64 page);

/* journal.c */
int nova_journal_init(struct super_block *sb);
void nova_journal_free(struct super_block *sb);
void nova_journal_begin(struct super_block *sb, struct nova_tx *tx);
void nova_journal_add(struct super_block *sb, struct nova_tx *tx,
		      const __le64 *addr);
void nova_journal_start(struct super_block *sb, struct nova_tx *tx);
void nova_journal_commit(struct super_block *sb, struct nova_tx *tx);
int nova_journal_check(struct super_block *sb);
void nova_journal_recover(struct super_block *sb);

/* dir.c */
extern const struct file_operations nova_dir_operations;
struct nova_dir_node *nova_dir_find(struct inode *dir, const char *name,
				    int len);
struct nova_dir_node *nova_dir_find_fname(struct inode *dir,
					  const struct fscrypt_name *fname);
/* The on-pmem name of @fname, of directory node @dn, as a qstr */
#define NOVA_FNAME_QSTR(f) \
	((struct qstr)QSTR_INIT((f)->disk_name.name, (f)->disk_name.len))
#define NOVA_DN_QSTR(dn) \
	((struct qstr)QSTR_INIT((const u8 *)(dn)->name, (dn)->name_len))
int nova_dir_index_prepare(struct inode *dir, const char *name, int len,
			   u64 ino, u8 ftype, u64 cookie, u64 de_off,
			   struct nova_dir_change *c);
void nova_dir_index_cancel(struct nova_dir_change *c);
void nova_dir_index_apply(struct nova_dir_change *c);
int nova_dir_index_add(struct inode *dir, const char *name, int len,
		       u64 ino, u8 ftype, u64 cookie, u64 de_off);
void nova_dir_index_remove(struct inode *dir, struct nova_dir_node *dn);
void nova_dir_index_free(struct inode *dir);
struct nova_dir_node *nova_dir_find_exact(struct inode *dir, const char *name,
					  int len);
void nova_dir_set_ci(struct inode *dir);
int nova_append_dentry(struct inode *dir, const struct nova_link_state *st,
		       const struct qstr *name, u64 ino, umode_t mode,
		       u64 *tail, u64 *de_off, u64 *cookie);
int nova_rebuild_entry(struct super_block *sb, u64 off, const void *entry,
		       size_t size, void *arg);

/* namei.c */
extern const struct inode_operations nova_dir_inode_operations;

/* symlink.c */
extern const struct inode_operations nova_symlink_inode_operations;
int nova_symlink_write(struct inode *inode, const char *target, size_t len,
		       u64 *tail);
int nova_symlink_read(struct inode *inode);

/* file.c */
extern const struct file_operations nova_file_operations;
extern const struct inode_operations nova_file_inode_operations;
extern const struct address_space_operations nova_dax_aops;
extern const struct iomap_ops nova_iomap_ops;

/*
 * How much of the deletion reserve (sbi->reserved_blocks) log appends
 * may take: none, all of it (deletions: true), or its upper half (the
 * entries that log preallocated pages written, dax.c)
 */
enum {
	NOVA_RESERVE_NONE,
	NOVA_RESERVE_ALL,
	NOVA_RESERVE_HALF,
};

/* dax.c */
enum nova_index_how {
	NOVA_INDEX_REPLAY,	/* a log replay: old pages just leave */
	NOVA_INDEX_FREE,	/* old pages die, their blocks are freed */
	NOVA_INDEX_MOVE,	/* old pages die, their blocks stay (moved) */
};

long nova_index_set(struct super_block *sb, struct inode *inode, pgoff_t pg,
		    unsigned long n, struct nova_file_write_entry *e,
		    enum nova_index_how how, unsigned long *charged);
long nova_reserve_pages(struct inode *inode, pgoff_t pg, unsigned long n);
void nova_release_pages(struct inode *inode, pgoff_t pg, unsigned long n);
int nova_append_write_entry(struct inode *inode, pgoff_t pg, unsigned long n,
			    u64 block, u8 flags, loff_t new_size, u64 *tail,
			    u64 *entry_off);
int __nova_break_layouts(struct inode *inode, loff_t start, loff_t end,
			 bool flush);

/*
 * Wait until no page of [start, end] is pinned and zap its mappings
 * (dax.c); inline for the file that has no DAX entry: the common write
 */
static inline int nova_break_layouts(struct inode *inode, loff_t start,
				     loff_t end)
{
	if (!inode->i_mapping->nrpages)
		return 0;
	return __nova_break_layouts(inode, start, end, false);
}

int nova_break_layouts_flush(struct inode *inode, loff_t start, loff_t end);
u64 nova_entry_block_bad(struct super_block *sb,
			 const struct nova_file_write_entry *e, pgoff_t pg,
			 u64 blk);

/*
 * Block offset of page @pg of entry @e, 0 for a hole.  The entry was
 * checked when it was replayed or written; it is read again from pmem
 * here, so a block outside the device (the entry overwritten since, on
 * a damaged image) is reported and treated as a hole.  Inline: every
 * read, write and fault of a page asks.
 */
static inline u64 nova_entry_block(struct super_block *sb,
				   const struct nova_file_write_entry *e,
				   pgoff_t pg)
{
	u64 blk = le64_to_cpu(e->block);

	if (!blk)
		return 0;
	blk += (u64)(pg - le64_to_cpu(e->pgoff)) << NOVA_BLOCK_SHIFT;
	if (unlikely(blk & (NOVA_BLOCK_SIZE - 1) ||
		     !nova_range_valid(NOVA_SB(sb), blk, NOVA_BLOCK_SIZE)))
		return nova_entry_block_bad(sb, e, pg, blk);
	return blk;
}
u64 nova_find_page(struct inode *inode, pgoff_t pg);
u64 nova_find_page_state(struct inode *inode, pgoff_t pg, bool *unwritten);
int nova_crypt_grow(struct inode *inode, loff_t size);
int nova_convert_unwritten(struct inode *inode, pgoff_t pg, unsigned long n);
int nova_index_claim(struct super_block *sb, struct inode *inode);
void nova_index_unclaim(struct super_block *sb, struct inode *inode,
			unsigned long end);
void nova_zero_past_eof(struct inode *inode);
int nova_replay_write_entry(struct super_block *sb, struct inode *inode,
			    struct nova_file_write_entry *e);
long nova_index_truncate(struct super_block *sb, struct inode *inode,
			 loff_t size, bool free_old);
void nova_index_free(struct inode *inode);
void nova_free_file_data(struct super_block *sb, struct inode *inode);
int nova_truncate_break_layouts(struct inode *inode, loff_t size);
unsigned long nova_truncate_prepare(struct inode *inode, loff_t size);
void nova_apply_entry(struct inode *inode, u64 off, unsigned long charged);
int nova_append_cut_holes(struct inode *inode, loff_t size, u64 *tail);
void nova_truncate_blocks(struct inode *inode, loff_t old, loff_t size,
			  bool tail_new);
bool nova_pages_past(struct inode *inode, loff_t size);
long nova_fallocate(struct file *file, int mode, loff_t offset, loff_t len);
ssize_t nova_dax_read_iter(struct kiocb *iocb, struct iov_iter *to);
ssize_t nova_dax_write_iter(struct kiocb *iocb, struct iov_iter *from);
ssize_t nova_kernel_read(struct inode *inode, void *buf, size_t len,
			 loff_t pos);
ssize_t nova_kernel_write(struct inode *inode, const void *buf, size_t len,
			  loff_t pos);
int nova_fault_alloc(struct inode *inode, pgoff_t pg, u64 *blk);
int nova_unshare_page(struct inode *inode, pgoff_t pg, u64 *blk, bool fault);
void nova_zero_grow(struct inode *inode, loff_t old, loff_t new);
loff_t nova_remap_file_range(struct file *file_in, loff_t pos_in,
			     struct file *file_out, loff_t pos_out,
			     loff_t len, unsigned int remap_flags);
int nova_unshare_pages(struct inode *inode, pgoff_t pg, unsigned long n);
int nova_unshare_edges(struct inode *inode, loff_t start, loff_t end, bool eof);

/* shift.c */
int nova_shift_check(struct inode *inode, int mode, loff_t offset,
		     loff_t len);
long nova_shift_collapse(struct inode *inode, loff_t offset, loff_t len);
long nova_shift_insert(struct inode *inode, loff_t offset, loff_t len);

/* gc.c */
void nova_fast_gc(struct super_block *sb, struct inode *inode, u64 keep);
u64 nova_live_log_bytes(struct inode *inode);
unsigned long nova_log_need_pages(struct inode *inode);
unsigned long nova_log_limit(struct inode *inode);
void nova_count_live_writes(struct inode *inode);
bool nova_gc_needed(struct inode *inode);
int nova_thorough_gc(struct super_block *sb, struct inode *inode);
void nova_gc_if_pending(struct inode *inode);
void nova_gc_maybe(struct inode *inode);

/* quota.c */
nova_dquot_ptr_t *nova_get_dquots(struct inode *inode);
ssize_t nova_quota_read(struct super_block *sb, int type, char *data,
			size_t len, loff_t off);
ssize_t nova_quota_write(struct super_block *sb, int type,
			 const char *data, size_t len, loff_t off);
void nova_quota_setup(struct super_block *sb);
void nova_quota_transfer_back(struct inode *inode, kuid_t uid, kgid_t gid);
void nova_quota_off_umount(struct super_block *sb);
int __nova_quota_charge(struct inode *inode, unsigned long n);
void __nova_quota_release(struct inode *inode, unsigned long n);
int nova_quota_log_pages(struct inode *inode, long delta, bool may_fail);
unsigned long nova_xattr_quota_blocks(struct inode *inode, s64 bytes);
void __nova_quota_settle(struct inode *inode, unsigned long mapped,
			 unsigned long unmapped, unsigned long *charged);

/*
 * Charge @n blocks to the inode's quotas (and i_blocks); -EDQUOT over a
 * hard limit.  Inline for the cases without blocks: every copy-on-write
 * overwrite passes 0 (one call less per write).
 */
static inline int nova_quota_charge(struct inode *inode, unsigned long n)
{
	return n ? __nova_quota_charge(inode, n) : 0;
}

/* Give back @n charged blocks (not mapped after all, or freed) */
static inline void nova_quota_release(struct inode *inode, unsigned long n)
{
	if (n)
		__nova_quota_release(inode, n);
}

/*
 * After an index change: @mapped pages became mapped, @unmapped stopped
 * being (quota.c); an overwrite changes neither
 */
static inline void nova_quota_settle(struct inode *inode, unsigned long mapped,
				     unsigned long unmapped,
				     unsigned long *charged)
{
	if (mapped || unmapped)
		__nova_quota_settle(inode, mapped, unmapped, charged);
}
int nova_prjquota_enable(struct super_block *sb, bool current_usage);
void nova_prjquota_disable(struct super_block *sb);
int nova_prjquota_get(struct inode *inode, u32 projid, struct dquot **dq);
int nova_prjquota_move(struct inode *inode, struct dquot **dq);
void nova_prjquota_put(struct dquot *dq);
bool nova_projid_differs(struct inode *dir, struct inode *inode);
struct kstatfs;
void nova_statfs_project(struct inode *inode, struct kstatfs *buf);

/* stats.c */
int nova_stats_init(void);
void nova_stats_exit(void);
void nova_proc_register(struct super_block *sb);
void nova_proc_unregister(struct super_block *sb);

/* ioctl.c */
long nova_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
long nova_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

/* crypto.c */
extern const struct inode_operations nova_encrypted_symlink_inode_operations;
void nova_crypt_init_sb(struct super_block *sb);

/* casefold.c */
bool nova_has_casefold(struct super_block *sb);
int nova_casefold_mount(struct super_block *sb);
void nova_casefold_unmount(struct super_block *sb);
u32 nova_ci_hash(struct super_block *sb, const char *name, int len);
int nova_casefold_check_flags(struct inode *inode, u32 old, u32 new);
void nova_crypt_load(struct inode *inode);
ssize_t nova_crypt_read(struct inode *inode, struct iov_iter *to, loff_t *pos);
ssize_t nova_crypt_fill(struct inode *inode, pgoff_t pg, void *dst,
			size_t off, size_t len, struct iov_iter *from);
int nova_crypt_zero_fill(struct inode *inode, pgoff_t pg, void *dst,
			 size_t from, size_t to, loff_t size);
int nova_fname_new(struct inode *dir, struct dentry *dentry,
		   struct fscrypt_name *fname);
long nova_crypt_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

/* xattr.c */
extern NOVA_XATTR_HANDLERS_QUAL nova_xattr_handlers[];
ssize_t nova_listxattr(struct dentry *dentry, char *buffer, size_t size);
int nova_xattr_fiemap(struct inode *inode, struct fiemap_extent_info *fi);
int nova_xattr_get(struct inode *inode, u8 index, const char *name,
		   void *buffer, size_t size);
int nova_xattr_set(struct inode *inode, u8 index, const char *name,
		   const void *value, size_t size, int flags);
int nova_xattr_set_mode(struct inode *inode, u8 index, const char *name,
			const void *value, size_t size, int flags,
			const umode_t *mode, bool force);
int nova_xattr_init_named(struct inode *inode, u8 index, const char *name,
			  const void *value, size_t size);
int nova_init_new_xattrs(struct inode *dir, struct inode *inode,
			 const struct qstr *qstr, struct posix_acl *default_acl,
			 struct posix_acl *acl, bool encrypt);
int nova_xattr_replay(struct super_block *sb, struct inode *inode, u64 off,
		      const struct nova_xattr_entry *e);
int nova_xattr_replay_end(struct inode *inode);
int nova_xattr_gc_write(struct inode *inode,
			int (*append)(void *, const void *, size_t, u64 *),
			void *ctx);
void nova_xattr_gc_repoint(struct inode *inode, u64 off,
			   const struct nova_xattr_entry *e);
void nova_xattr_gc_drop_removed(struct inode *inode);
bool nova_xattr_has_acl(struct inode *inode);
void nova_xattr_free(struct inode *inode);

/* acl.c */
struct posix_acl *nova_get_inode_acl(struct inode *inode, int type, bool rcu);
int nova_set_acl(nova_idmap_t *idmap, nova_acl_target_t *target,
		 struct posix_acl *acl, int type);
int nova_acl_init(struct inode *inode, struct posix_acl *acl, int type);

/* export.c */
extern const struct export_operations nova_export_ops;

#endif /* NOVA_H */
