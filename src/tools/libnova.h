/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libnova: user-space access to a NOVA image or device, shared by
 * mkfs.nova (-d), fsck.nova and the host tests.
 *
 * The whole device is mapped (read-only, shared read-write, or private
 * copy-on-write for checks that must never write).  Every reader
 * validates what it follows, exactly as the kernel does (log.c
 * nova_log_walk(), inode.c nova_replay_entry(), bbuild.c); the writers
 * produce the kernel's formats: entry layouts and checksums, NEXT_PAGE
 * markers, page tails, log growth, per-inode trans_ids, dentry link
 * counts, cookies and times.
 *
 * Offsets are byte offsets from the start of the device, as on pmem.
 */
#ifndef LIBNOVA_H
#define LIBNOVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "nova_tools.h"

#ifndef S_IFMT
#include <sys/stat.h>
#endif

/* nv_open() modes */
#define NV_OPEN_RO	0	/* read-only shared mapping */
#define NV_OPEN_RW	1	/* read-write shared mapping: writes hit the device */
#define NV_OPEN_PRIVATE	2	/* read-only device, private writable mapping */

struct nv_itable {
	uint64_t *blocks;		/* offsets of the chain's blocks, in order */
	size_t n, cap;
	/* set by nv_load_itables() when the chain stops at a bad pointer */
	int err;			/* NV_CHAIN_* */
	uint64_t err_block;		/* block whose next pointer is bad, 0: head */
	uint64_t err_ptr;		/* the bad pointer */
	uint64_t hint;			/* allocation: next slot to try */
};

/* A range of the map, bytes [lo, hi) */
struct nv_range {
	uint64_t lo, hi;
};

/* Ranges stored and not yet made durable that nv_fs keeps apart */
#define NV_DIRTY_MAX	16

struct nv_fs {
	int fd;
	bool own_fd;
	bool in_memory;			/* nv_open_mem(): map is the caller's */
	int mode;
	const char *path;
	uint8_t *map;
	uint64_t dev_size;		/* bytes of the device or image */
	uint64_t map_size;

	struct nova_super_block sb;	/* the copy in use */
	uint64_t size;			/* s_size: the file system, <= dev_size */
	uint64_t nblocks;		/* its blocks (s_num_blocks) */
	uint32_t stripes;
	uint32_t itbs;			/* inode table block size, bytes */
	uint32_t itb_blocks;
	uint64_t per_block;		/* inode slots per table block */
	uint64_t data_start, data_end;	/* blocks, inclusive */
	uint32_t journal_pages;
	struct nova_layout layout;	/* the kernel's: nova_layout_of_super() */

	struct nv_itable *itab;		/* one per stripe */

	/* block allocator (nv_alloc_init) */
	uint8_t *used;			/* bitmap, bit set = used */
	uint64_t *alloc_hint;		/* per stripe: no free block below */
	int cur_stripe;			/* preferred stripe, -1: rotate */
	unsigned int rr;		/* round-robin counter */
	/*
	 * called by nv_alloc() before it looks for blocks (fsck.nova: what
	 * a block allocation makes stale goes first); false: no block may
	 * be taken now, nv_alloc() returns 0; NULL: nothing
	 */
	bool (*alloc_hook)(void *arg);
	void *alloc_arg;
	uint32_t next_generation;

	/*
	 * Ordering against a power cut (nv_set_ordered()): the ranges
	 * stored since they were last made durable (block aligned, merged
	 * when they touch, and the closest when there are too many)
	 */
	bool ordered;
	struct nv_range dirty[NV_DIRTY_MAX];
	size_t ndirty;
	int io_error;			/* errno of the first failed nv_persist() */
	/*
	 * For a test's model of a power cut (fsck.nova's
	 * NOVA_FSCK_TEST_POWERCUT), NULL if none: called by nv_persist()
	 * with the range made durable, by nv_barrier() before it makes
	 * anything durable (a negative errno returned: the barrier fails
	 * as a failed msync(), a test's I/O error), by each store
	 * (store_hook), and by nv_commit() right after its store
	 */
	void (*persist_hook)(void *arg, uint64_t off, uint64_t len);
	void (*store_hook)(void *arg, uint64_t off, size_t len);
	int (*barrier_hook)(void *arg);
	void (*commit_hook)(void *arg, uint64_t off, size_t len);
	void *order_arg;
};

/* ---- opening ---- */
int nv_open(struct nv_fs *fs, const char *path, int mode, char *err,
	    size_t errlen);
/* Map an already open device or image (the fd stays the caller's) */
int nv_open_fd(struct nv_fs *fs, int fd, int mode, char *err, size_t errlen);
/*
 * An image of @size bytes in memory at @buf, which stays the caller's:
 * nv_put() and the other stores write it, nv_close() leaves it alone
 */
void nv_open_mem(struct nv_fs *fs, void *buf, uint64_t size);
void nv_close(struct nv_fs *fs);
/*
 * Every store written to the device and its cache flushed (with ordering
 * on, the stores tracked first, an nv_barrier()); -1 with errno set if
 * that failed, or (nothing written) after an I/O error of the ordering
 * (fs->io_error)
 */
int nv_sync(struct nv_fs *fs);

/* Geometry from a (valid) super block copy; map must be set */
void nv_set_geometry(struct nv_fs *fs, const struct nova_super_block *sb);
/*
 * Load the super block as the kernel does (nova_find_super(), with its
 * scan unless NOVA_SB_NO_SCAN), and the geometry from the copy found.
 * Returns 0 (primary), 1 (replica), -1 (none); @s (may be NULL) says
 * what was looked at: where the copy is, why the primary is not valid.
 */
int nv_load_super(struct nv_fs *fs, unsigned int flags,
		  struct nova_sb_search *s);
/* The replica's place: the last block of the file system */
uint64_t nv_replica_sb_off(const struct nv_fs *fs);

static inline void *nv_ptr(const struct nv_fs *fs, uint64_t off)
{
	return fs->map + off;
}

/* Is [off, off + len) inside the dynamic area?  (nova_range_valid) */
static inline bool nv_range_valid(const struct nv_fs *fs, uint64_t off,
				  uint64_t len)
{
	uint64_t lo = fs->data_start << NOVA_BLOCK_SHIFT;
	uint64_t hi = (fs->data_end + 1) << NOVA_BLOCK_SHIFT;

	return off >= lo && len <= hi - lo && off <= hi - len;
}

static inline bool nv_page_valid(const struct nv_fs *fs, uint64_t off)
{
	return !(off & (NOVA_BLOCK_SIZE - 1)) &&
	       nv_range_valid(fs, off, NOVA_BLOCK_SIZE);
}

/* Region of stripe @s, blocks inclusive (balloc.c) */
void nv_stripe_region(const struct nv_fs *fs, unsigned int s, uint64_t *start,
		      uint64_t *end);
/* The stripe whose region holds block @blk (nova_stripe_of()) */
unsigned int nv_stripe_of(const struct nv_fs *fs, uint64_t blk);

/*
 * ---- stores (all writes to the image go through these) ----
 * After an I/O error (fs->io_error, with ordering on) they store nothing.
 */
void nv_put(struct nv_fs *fs, uint64_t off, const void *src, size_t len);
void nv_put64(struct nv_fs *fs, uint64_t off, uint64_t val);
void nv_put32(struct nv_fs *fs, uint64_t off, uint32_t val);
void nv_put8(struct nv_fs *fs, uint64_t off, uint8_t val);
void nv_zero(struct nv_fs *fs, uint64_t off, size_t len);

/*
 * ---- ordering against a power cut ----
 *
 * The map's stores reach the device when the kernel writes the pages
 * back, in any order, or at nv_sync().  A repair is copy-on-write, as
 * the kernel's updates: new blocks and entries written where nothing
 * reads them, then one store that publishes them, the commit (a log
 * tail, a page-tail or table next pointer, a valid byte, a super block
 * copy).  With ordering on, nv_commit() makes every store made before
 * durable first, then stores, then makes the commit itself durable, so
 * that a power cut leaves the old state or the new one, and what comes
 * after a commit (dead marks on the entries it supersedes, the reuse of
 * blocks it frees) never reaches the device before it.  Off (mkfs.nova,
 * which writes the super block last, and the test helpers), nv_commit()
 * is nv_put() and nothing is tracked.
 */
/* Track the stores from now on: a shared read-write map of a device */
void nv_set_ordered(struct nv_fs *fs);
/*
 * Make [@off, @off + @len) durable (msync() of its pages, which writes
 * them and flushes the device's cache, for a block device as for a
 * file); nothing for a private or in-memory map.  Returns 0, or -1 with
 * fs->io_error set (the first error sticks).  After an I/O error every
 * store is refused (nv_put()), and nv_persist(), nv_barrier(),
 * nv_commit() and nv_sync() make nothing durable and return -1: what a
 * later store depends on may not be durable.
 */
int nv_persist(struct nv_fs *fs, uint64_t off, uint64_t len);
/*
 * Every store made so far durable, before any later one: the ranges
 * tracked, by one msync() over their span (the dirty pages in it are
 * theirs), which flushes the device's cache once
 */
int nv_barrier(struct nv_fs *fs);
/*
 * Commit: nv_barrier(), the store of @len bytes of @src at @off (one
 * that the device writes whole: 8 bytes, or within one sector), then
 * nv_barrier() again.  Returns 0, or -1 after an I/O error, which
 * leaves the commit unmade (what it would publish may not be durable).
 */
int nv_commit(struct nv_fs *fs, uint64_t off, const void *src, size_t len);
int nv_commit64(struct nv_fs *fs, uint64_t off, uint64_t val);
static inline uint64_t nv_get64(const struct nv_fs *fs, uint64_t off)
{
	uint64_t v;

	__builtin_memcpy(&v, fs->map + off, 8);
	return le64toh(v);
}

/* ---- inode tables ---- */
#define NV_CHAIN_OK	0
#define NV_CHAIN_HEAD	1	/* head pointer zero, misaligned or outside */
#define NV_CHAIN_RANGE	2	/* a next pointer misaligned or outside */
#define NV_CHAIN_LOOP	3	/* a next pointer to a block already in a chain */
#define NV_CHAIN_CONFLICT 4	/* a page used by something else */

/* Walk every stripe's table chain; stop each at the first bad pointer */
int nv_load_itables(struct nv_fs *fs);
uint64_t nv_itable_ptr_off(unsigned int stripe);
uint64_t nv_journal_ptr_off(unsigned int stripe);
/* Offset of inode @ino's slot, 0 if the number has no slot */
uint64_t nv_inode_off(const struct nv_fs *fs, uint64_t ino);
static inline struct nova_inode *nv_pi(const struct nv_fs *fs, uint64_t off)
{
	return (struct nova_inode *)(fs->map + off);
}
/* Highest inode number + 1 that has a slot */
uint64_t nv_max_ino(const struct nv_fs *fs);

/* ---- log entries ---- */
const char *nv_entry_name(uint8_t type);
/* Size of the well-formed entry at @p, or 0 (log.c nova_entry_size) */
size_t nv_entry_size(const uint8_t *p, size_t room);
uint32_t nv_entry_crc(const void *entry, size_t size);
void nv_entry_csum(void *entry, size_t size);
bool nv_entry_csum_ok(const void *entry, size_t size);
uint64_t nv_entry_tid(const void *entry);
bool nv_entry_dead(const void *entry);
int nv_entry_flag_offset(uint8_t type);

/* ---- log walk ---- */
enum nv_log_err {
	NV_LOG_OK = 0,
	NV_LOG_CHAIN,		/* page chain broken before the tail */
	NV_LOG_TAIL_OUTSIDE,	/* the tail is not in the page chain */
	NV_LOG_HEAD_ZERO_TAIL,	/* no log, but a tail */
	NV_LOG_BAD_ENTRY,	/* unknown type or bad length */
	NV_LOG_CROSS_TAIL,	/* an entry crosses the tail */
	NV_LOG_CSUM,		/* bad checksum */
	NV_LOG_TID,		/* trans_id not increasing */
	NV_LOG_SEMANTIC,	/* rejected by the replay (callback) */
	NV_LOG_PAST_CHAIN,	/* NEXT_PAGE past the last page */
	NV_LOG_XATTR_END,	/* the log ends inside an xattr group */
};

struct nv_log {
	uint64_t head, tail;
	uint64_t *pages;		/* the chain (valid prefix) */
	uint32_t *nent, *ndead;		/* entries, dead entries per page */
	size_t npages, cap;
	int chain_err;			/* NV_CHAIN_* */
	size_t chain_err_idx;		/* pages[idx]'s next is bad (or head) */
	uint64_t chain_err_ptr;
	long tail_idx;			/* page holding the tail, -1 */
	int err;			/* enum nv_log_err */
	uint64_t err_off;
	char msg[200];
	uint64_t good_end;		/* just past the last good entry */
	long good_idx;			/* page holding good_end */
	uint64_t nentries;
	uint64_t last_tid;
	/*
	 * Set by nv_iread(): part 0 of the live extended attribute group
	 * that the walk's end or error cut short, 0 if none.  good_end,
	 * good_idx and nentries are then those before that part 0: a
	 * group is applied whole or not at all.
	 */
	uint64_t xgroup_off;
};

/* A log entry, as the walk hands it to its callback */
struct nv_entry {
	struct nv_fs *fs;
	uint64_t off;			/* where it is */
	const void *p;			/* it, in the map */
	size_t size;
	char *msg;			/* for why the callback rejects it */
	size_t msglen;
};

/*
 * Entry callback: return 0 to accept, non-zero to reject (writing why
 * into e->msg): the walk stops there with NV_LOG_SEMANTIC.
 */
typedef int (*nv_entry_fn)(const struct nv_entry *e, void *arg);
/* Page filter for the chain walk: false stops it with NV_CHAIN_CONFLICT */
typedef bool (*nv_page_fn)(void *arg, uint64_t page);

/* nv_walk.flags */
#define NV_WALK_LENIENT	0x01	/* no checksum and trans_id checks */

/* How nv_log_walk() walks a log */
struct nv_walk {
	nv_page_fn page_ok;		/* may be NULL */
	void *page_arg;
	nv_entry_fn entry;		/* may be NULL */
	void *arg;
	unsigned int flags;		/* NV_WALK_* */
};

/*
 * The page chain from @head into @lg (log.c nova_log_check_chain()), to
 * its end: every page aligned and inside the dynamic area, none twice,
 * each taken by @page_ok (may be NULL).  The chain stops at the first
 * page that is not (lg->chain_err, chain_err_idx, chain_err_ptr).
 * Returns 0, or -1 when out of memory.
 */
int nv_log_chain(struct nv_fs *fs, uint64_t head, struct nv_log *lg,
		 nv_page_fn page_ok, void *page_arg);
/*
 * The one log walker (log.c nova_log_walk()): nv_log_chain(), then the
 * entries from @head to @tail through NEXT_PAGE markers and page ends,
 * each well formed (nova_entry_size()), inside its page, not across the
 * tail, with a good checksum and a trans_id above the one before (but
 * with NV_WALK_LENIENT), then taken by w->entry.  It stops at the first
 * problem, recorded in @lg (err, err_off, msg; good_end and nentries:
 * what was taken).  With the tail outside the chain, NV_LOG_TAIL_OUTSIDE
 * and the entries as far as they go, stopping quietly at damage.
 * Returns 0, or -1 when out of memory; nv_log_free() frees @lg.
 */
int nv_log_walk(struct nv_fs *fs, uint64_t head, uint64_t tail,
		struct nv_log *lg, const struct nv_walk *w);
void nv_log_free(struct nv_log *lg);
const char *nv_log_strerror(int err);

/* ---- page map: file page -> block (and the write entry mapping it) ---- */
struct nv_pmap {
	uint64_t *key;			/* page + 1, 0 empty, ~0 deleted */
	uint64_t *blk;			/* block offset */
	uint64_t *ent;			/* offset of the write entry */
	size_t cap, n, used;
};
void nv_pmap_init(struct nv_pmap *m);
void nv_pmap_free(struct nv_pmap *m);
int nv_pmap_set(struct nv_pmap *m, uint64_t pg, uint64_t blk, uint64_t ent,
		uint64_t *old_ent);
bool nv_pmap_get(const struct nv_pmap *m, uint64_t pg, uint64_t *blk,
		 uint64_t *ent);
bool nv_pmap_del(struct nv_pmap *m, uint64_t pg, uint64_t *old_ent);
/* Iterate: *it starts at 0; returns false at the end */
bool nv_pmap_next(const struct nv_pmap *m, size_t *it, uint64_t *pg,
		  uint64_t *blk, uint64_t *ent);

/* ---- replay ---- */
struct nv_dent {
	char name[NOVA_NAME_LEN + 1];	/* @len bytes (any, if encrypted) */
	uint8_t len;
	uint8_t ftype;
	bool alive;
	uint64_t ino;
	uint64_t cookie;
	uint64_t off;			/* the live dentry */
	uint64_t tid;
};

struct nv_dir {
	struct nv_dent *d;
	size_t n, cap;
	int32_t *hash;			/* index into d, -1 empty, -2 deleted */
	size_t hcap, hused;
	size_t alive;
	/*
	 * Live names added again with their own cookie (left by a thorough
	 * GC interrupted between its commit and its head switch): the
	 * kernel's index re-points the name to the later one.  The offsets of
	 * the earlier entries.
	 */
	uint64_t *selfck;
	size_t nselfck;
};

/*
 * An extended attribute of an inode (the live group of its name): its
 * namespace, the name NOVA stores (without the prefix; empty for the
 * POSIX ACLs) and where the parts of its value are in the log.
 */
struct nv_xattr {
	uint8_t index;			/* NOVA_XATTR_INDEX_* */
	uint8_t name_len;
	char name[NOVA_XATTR_NAME_MAX + 1];	/* NUL terminated */
	uint32_t value_len;
	uint32_t value_csum;
	uint64_t off;			/* part 0 */
	uint64_t bytes;			/* log bytes of the group's entries */
	uint32_t nparts;
	uint64_t *parts;		/* offsets of the parts, part 0 first */
};

/* nv_iread() flags */
#define NV_IREAD_IGNORE_DEAD	0x01	/* replay dead entries too */
#define NV_IREAD_NO_DATA	0x02	/* skip the page map */
#define NV_IREAD_COUNT		0x04	/* count superseded pages per entry */
/*
 * NV_IREAD_RAW: no replay checks, only what the mount-time scan checks
 * (for the reserved inodes, never read as files)
 */
#define NV_IREAD_RAW		0x08

/*
 * The nv_iread() flag for inode @ino: NV_IREAD_RAW for the reserved
 * inodes that are only scanned (the snapshots, the journal placeholder,
 * unused slots), 0 for the root and the project quota file, which are
 * read as the kernel reads them (a directory, a regular file)
 */
static inline unsigned int nv_iread_raw(uint64_t ino)
{
	return ino != NOVA_ROOT_INO && ino != NOVA_PRJQUOTA_INO &&
	       ino < NOVA_NORMAL_INODE_START ? NV_IREAD_RAW : 0;
}

/*
 * The kernel's INVALID_PROJID: no project ID, which it never charges
 * (no inode gets it through the VFS)
 */
#define NV_INVALID_PROJID	0xffffffffU
/* FS_PROJINHERIT_FL: a directory whose new inodes get its project ID */
#define NV_PROJINHERIT_FL	0x20000000U
/* FS_CASEFOLD_FL: a case-insensitive directory (INCOMPAT_CASEFOLD) */
#define NV_CASEFOLD_FL		0x40000000U

/*
 * The first bytes of the project quota file (NOVA_PRJQUOTA_INO), the
 * kernel's quota_v2 format: struct v2_disk_dqheader, le32 magic (that of
 * project quotas, V2_INITQMAGICS) and le32 version
 */
#define NV_PRJQUOTA_MAGIC	0xd9c03f14U
#define NV_PRJQUOTA_VERSION	1

struct nv_inode_state {
	uint64_t ino;
	uint64_t pi_off;
	struct nova_inode pi;		/* copy */
	uint32_t mode, uid, gid, links, flags, generation, rdev;
	/*
	 * i_projid, or that of the last live link-change entry (0 in the
	 * entries of modules that predate project IDs)
	 */
	uint32_t projid;
	uint64_t size;
	int64_t atime, mtime, ctime;
	struct nv_log log;
	uint64_t next_tid;
	uint64_t last_lc, last_sa;	/* live link-change / set-attribute */
	bool last_sa_cut;
	/* directories */
	struct nv_dir dir;
	uint64_t parent;		/* last "..", 0 if none */
	uint64_t dot;			/* last ".", 0 if none */
	/* regular files (and the symlink block, as page 0) */
	struct nv_pmap pages;
	/* NV_IREAD_COUNT: write entry offset -> pages superseded (in blk) */
	struct nv_pmap superseded;
	uint64_t symlink_block;
	/* extended attributes: the live ones, in the order first set */
	struct nv_xattr *xattrs;
	size_t nxattrs, xattrs_cap;
	uint64_t xattr_entries;		/* NOVA_XATTR entries walked */
	uint64_t xattr_bytes;		/* log bytes of the live groups */
	/* problems found after the walk */
	int bad;			/* NV_IBAD_* */
	char bad_msg[160];
};

#define NV_IBAD_NONE		0
#define NV_IBAD_MODE		1	/* not a known file type */
#define NV_IBAD_SYMLINK		2	/* symlink without a valid target */

/*
 * Read inode @ino (its slot must be valid) and replay its log.  Names
 * holding '/' or NUL (a directory) and a target in fscrypt's form (a
 * symlink) are taken only from an inode whose replay ends with a live
 * fscrypt context (nv_encryption_context()): a thorough GC writes the
 * context after the names.  Without one, a log the walk read to its end
 * is read again, and the first such name stops the walk (NV_LOG_SEMANTIC)
 * as it always did; a walk that stopped at another problem first keeps
 * its result (that problem, which may hide the context, comes first).
 */
int nv_iread(struct nv_fs *fs, uint64_t ino, struct nv_inode_state *st,
	     unsigned int flags, nv_page_fn page_ok, void *page_arg);
void nv_ifree(struct nv_inode_state *st);
bool nv_inode_slot_valid(const struct nv_fs *fs, uint64_t ino);

struct nv_dent *nv_dir_lookup(struct nv_dir *d, const char *name, size_t len);
/* "directory", "regular file", ... for the file type of @mode; NULL if none */
const char *nv_type_name(uint32_t mode);

/* ---- extended attributes ---- */
/*
 * The prefix of namespace @index as the VFS names it ("user.", ...; the
 * whole name "system.posix_acl_access" for an ACL), NULL if unknown
 */
const char *nv_xattr_prefix(uint8_t index);
/*
 * The namespace of the full name @full and (*name) the name NOVA stores;
 * 0 if NOVA does not store it (other prefixes, names of 0 or more than
 * NOVA_XATTR_NAME_MAX bytes after the prefix)
 */
uint8_t nv_xattr_index_of(const char *full, const char **name);
/*
 * @index's prefix and @name (@name_len bytes), at most @len bytes with the
 * NUL, for messages: the name's control characters escaped by
 * nova_safe_str() (up to NOVA_SAFE_SIZE(name_len) bytes after the prefix)
 */
void nv_xattr_fullname(char *buf, size_t len, uint8_t index, const char *name,
		       size_t name_len);
struct nv_xattr *nv_xattr_lookup(struct nv_inode_state *st, uint8_t index,
				 const char *name, size_t name_len);
/* Copy the value of @x (x->value_len bytes) into @buf */
void nv_xattr_read(const struct nv_fs *fs, const struct nv_xattr *x, void *buf);

/*
 * fscrypt contexts (NOVA_XATTR_INDEX_ENCRYPTION "c"): struct
 * fscrypt_context_v1 (28 bytes) or _v2 (40 bytes), byte 0 the version,
 * the nonce always the last 16 bytes.  The replay takes no other value.
 */
#define NV_FSCRYPT_V1_SIZE	28
#define NV_FSCRYPT_V2_SIZE	40
#define NV_FSCRYPT_NONCE_SIZE	16
#define NV_FSCRYPT_MAX_SIZE	NV_FSCRYPT_V2_SIZE
/*
 * The live fscrypt context of @st, NULL if it is not encrypted: then its
 * names (a directory) and its target (a symlink) are plain; else they are
 * ciphertext, which may hold any byte
 */
struct nv_xattr *nv_encryption_context(struct nv_inode_state *st);

/* Read bytes of a regular file through its page map (holes read as 0) */
void nv_file_read(const struct nv_fs *fs, const struct nv_inode_state *st,
		  uint64_t pos, size_t len, void *buf);
/* Look a path up from the root; returns the inode number or 0 */
uint64_t nv_lookup_path(struct nv_fs *fs, const char *path);

/* ---- allocator ---- */
int nv_alloc_init(struct nv_fs *fs);
void nv_mark_used(struct nv_fs *fs, uint64_t blk, uint64_t n);
void nv_mark_free(struct nv_fs *fs, uint64_t blk, uint64_t n);
bool nv_block_used(const struct nv_fs *fs, uint64_t blk);
/*
 * Allocate @want contiguous blocks, preferring @stripe (-1: the current
 * one).  With @partial, the longest free run if no run of @want exists.
 * Returns the number allocated (first block in *blk) or 0 (no space).
 */
uint64_t nv_alloc(struct nv_fs *fs, uint64_t want, int stripe, bool partial,
		  uint64_t *blk);
uint64_t nv_free_blocks(const struct nv_fs *fs);
/*
 * Mark everything the kernel's rebuild would (tables, journals, all valid
 * inodes' logs and data); used before allocating in an existing image
 */
int nv_alloc_scan(struct nv_fs *fs);

/* ---- writing ---- */
struct nv_wlog {
	uint64_t ino, pi_off;
	uint64_t head, tail;		/* tail: the working tail */
	uint64_t pages;
	uint64_t next_tid;
	/*
	 * attributes as they are after the entries appended so far (a
	 * link-change entry carries links, flags, generation and projid)
	 */
	uint32_t links, flags, generation, projid;
	uint64_t size;
	int64_t mtime, ctime;
	uint64_t last_lc;
};

void nv_wlog_from_state(struct nv_wlog *w, const struct nv_inode_state *st);
/*
 * Append an entry past the working tail (log.c nova_log_append()): not
 * yet read by anyone; the log pages it takes are zeroed, then linked
 * (a commit: the chain is walked to its end)
 */
int nv_log_append(struct nv_fs *fs, struct nv_wlog *w, const void *entry,
		  size_t size, uint64_t *entry_off);
/* The tail in the inode: the commit of the entries appended (nv_commit()) */
int nv_log_commit(struct nv_fs *fs, struct nv_wlog *w);
/*
 * Mark an entry dead (log.c nova_invalidate_entry()): its dead flag,
 * then its page's dead count, ordered (a count above the dead entries
 * would let the garbage collector free live ones).  The entries after
 * the commit of what supersedes them.
 */
void nv_invalidate_entry(struct nv_fs *fs, uint64_t off);
/* The same for @n entries, with one barrier between flags and counts */
void nv_invalidate_entries(struct nv_fs *fs, const uint64_t *off, size_t n);
void nv_invalidate_pages(struct nv_fs *fs, uint64_t ent_off, uint32_t n);

int nv_append_dentry(struct nv_fs *fs, struct nv_wlog *dir, const char *name,
		     size_t len, uint64_t ino, uint8_t ftype, uint64_t *off);
int nv_append_link_change(struct nv_fs *fs, struct nv_wlog *w, uint64_t *off);
int nv_append_write(struct nv_fs *fs, struct nv_wlog *w, uint64_t pgoff,
		    uint32_t npages, uint64_t block, uint64_t *off);
/*
 * The same with write entry flags @flags (NOVA_WRITE_*; none on a hole,
 * block 0: nova_write_flags_ok())
 */
int nv_append_write_flags(struct nv_fs *fs, struct nv_wlog *w, uint64_t pgoff,
			  uint32_t npages, uint64_t block, uint8_t flags,
			  uint64_t *off);
/*
 * Set (or with NOVA_XATTR_REMOVE remove) an extended attribute as the
 * kernel logs it: a group of NOVA_XATTR entries, part 0 with the name
 * and the first NOVA_XATTR_PART_ROOM(name_len) value bytes, then parts
 * of NOVA_XATTR_PART_ROOM(0) bytes, each in one log page, with ctime
 * w->ctime (and @mode with NOVA_XATTR_MODE).  *off: part 0.  Not
 * committed; the caller then marks the older group of the name dead
 * (nv_invalidate_xattr()).
 */
int nv_append_xattr(struct nv_fs *fs, struct nv_wlog *w, uint8_t index,
		    const char *name, size_t name_len, const void *value,
		    size_t value_len, uint32_t flags, uint16_t mode,
		    uint64_t *off);
/* Mark a group dead as the kernel does: part 0 first, then the others */
void nv_invalidate_xattr(struct nv_fs *fs, const struct nv_xattr *x);

struct nv_attr {
	uint32_t mode, uid, gid, rdev, flags, links, projid;
	uint64_t size;
	int64_t atime, mtime, ctime, btime;
};

/* Allocate an inode slot (extending the stripe's table when full) */
int nv_alloc_ino(struct nv_fs *fs, int stripe, uint64_t *ino);
/* Write a new, not yet valid inode; *w is its (empty) log */
int nv_new_inode(struct nv_fs *fs, int stripe, const struct nv_attr *a,
		 struct nv_wlog *w);
/* The valid byte: the commit of a new inode and its log */
int nv_set_valid(struct nv_fs *fs, uint64_t ino);

/*
 * Create @name in directory @dir as the kernel's create/mkdir/symlink/
 * mknod do: the inode, its own log ("." and "..", or the symlink
 * target), its valid byte, then the dentry in @dir (committed).  The
 * kernel makes the last two one journal transaction; in this order, a
 * power cut between them leaves an inode without a name (as a crash of
 * ext2), never a name of a free inode.  @child (may be NULL) receives
 * the new inode's log.
 */
int nv_create(struct nv_fs *fs, struct nv_wlog *dir, const char *name,
	      size_t len, const struct nv_attr *a, const char *symlink,
	      int stripe, struct nv_wlog *child);

static inline uint8_t nv_dtype(uint32_t mode)
{
	return (mode & S_IFMT) >> 12;
}

static inline uint32_t nv_encode_dev(unsigned int major, unsigned int minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffU) << 12);
}

static inline void nv_decode_dev(uint32_t dev, unsigned int *major,
				 unsigned int *minor)
{
	*major = (dev & 0xfff00) >> 8;
	*minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
}

int64_t nv_now(void);

/* ---- the project quota file (quota_v2) ---- */
/*
 * The kernel's quota_v2 format (fs/quota/quota_v2.c, quota_tree.c,
 * quotaio_v2.h; QFMT_VFS_V1), in 1 KiB blocks.  Block 0: struct
 * v2_disk_dqheader (magic NV_PRJQUOTA_MAGIC, version NV_PRJQUOTA_VERSION)
 * and at byte 8 struct v2_disk_dqinfo (struct nv_qinfo).  Block 1
 * (QT_TREEOFF) is the root of a radix tree of NV_QT_DEPTH levels of
 * tree blocks, each 256 le32 block numbers (0: none), indexed by the
 * bytes of the ID from the highest; a reference of the last level leads
 * to the data block that holds the ID's entry.  A data block: struct
 * qt_disk_dqdbheader (le32 next and previous block of the free-entry
 * list, le16 entries in use), then NV_QT_PER_BLOCK entries, struct
 * v2r1_disk_dqblk (struct nv_dquot), free when all zero.  Blocks freed
 * form the free-block list (from dqi_free_blk, through the next links);
 * the data blocks that have a free entry, the doubly linked free-entry
 * list (from dqi_free_entry).  Block numbers below dqi_blocks only;
 * dqi_blocks KiB must fit in the file's size.
 */
#define NV_QT_BLOCK_BITS	10
#define NV_QT_BLOCK		(1U << NV_QT_BLOCK_BITS)
#define NV_QT_TREEOFF		1
#define NV_QT_DEPTH		4		/* qtree_depth() of 1 KiB blocks */
#define NV_QT_REFS		(NV_QT_BLOCK / 4)
#define NV_QT_DQDH		16		/* struct qt_disk_dqdbheader */
#define NV_QT_ENTRY		72		/* struct v2r1_disk_dqblk */
#define NV_QT_PER_BLOCK		((NV_QT_BLOCK - NV_QT_DQDH) / NV_QT_ENTRY)
#define NV_QT_INFO_OFF		8		/* V2_DQINFOOFF */
#define NV_QT_HEADER		32		/* header and info block */
#define NV_QT_GRACE		(7 * 24 * 3600)	/* quota.c's, quotacheck's */

/* struct v2_disk_dqinfo */
struct nv_qinfo {
	uint32_t bgrace, igrace;	/* seconds */
	uint32_t flags;
	uint32_t blocks;		/* blocks of the file in use */
	uint32_t free_blk;		/* head of the free-block list */
	uint32_t free_entry;		/* head of the free-entry list */
};

/* struct v2r1_disk_dqblk: one ID's limits and usage */
struct nv_dquot {
	uint32_t id;
	uint64_t ihardlimit, isoftlimit, curinodes;
	uint64_t bhardlimit, bsoftlimit;	/* 1 KiB blocks */
	uint64_t curspace;			/* bytes */
	uint64_t btime, itime;			/* grace ends, seconds */
};

/* Does @d set a limit?  (Else the kernel drops it when unused.) */
static inline bool nv_dquot_limited(const struct nv_dquot *d)
{
	return d->ihardlimit || d->isoftlimit || d->bhardlimit ||
	       d->bsoftlimit;
}

/* What is wrong in a quota file (nv_quota_read()) */
enum nv_qerr {
	NV_QERR_INFO,		/* the header or the info block */
	NV_QERR_REF,		/* a reference of a tree block */
	NV_QERR_DATA,		/* a data block's header */
	NV_QERR_ENTRY,		/* an entry the tree does not lead to */
	NV_QERR_FREE_BLK,	/* the free-block list */
	NV_QERR_FREE_ENTRY,	/* the free-entry list */
};

/* A problem of the quota file: @err, and @msg saying where and what */
typedef void (*nv_qerr_fn)(void *arg, int err, const char *msg);

struct nv_quota {
	struct nv_qinfo info;
	bool info_ok;			/* the header is one of project quotas */
	uint64_t fblocks;		/* whole blocks in the file's size */
	/* the entries the tree leads to (each in its ID's place), by ID */
	struct nv_dquot *dq;
	size_t ndq, dq_cap;
	unsigned long errors;		/* problems reported */
	unsigned long lost;		/* entries the tree does not lead to */
};

/*
 * Read the quota file @st (a regular file, its data read as the kernel
 * reads it: holes and what lies past its size as zeros) into @q, and
 * check all of it as quota_tree.c would find it: the info block
 * (v2_read_file_info()), every reference (in range, not the root, each
 * tree block and data block reached once and on one level), the data
 * blocks (an entry for each ID the tree leads there, in their place,
 * once; the header's count), the free-block list and the free-entry list
 * (in range, no cycle, only blocks out of the tree, resp. data blocks of
 * the tree with a free entry, linked both ways, and all of those).  Each
 * problem goes to @fn (may be NULL).  Returns 0, or -1 when out of
 * memory; nv_quota_free() frees @q.
 */
int nv_quota_read(const struct nv_fs *fs, const struct nv_inode_state *st,
		  struct nv_quota *q, nv_qerr_fn fn, void *arg);
void nv_quota_free(struct nv_quota *q);
/* The entry of @id in @q, NULL if the tree leads to none */
struct nv_dquot *nv_quota_find(const struct nv_quota *q, uint32_t id);
/*
 * A quota file as the kernel writes it: the empty file of quota.c
 * (header, info block with @info's grace times, an empty root), then
 * the @n entries of @dq inserted in that order as quota_tree.c inserts
 * them (dq_insert_tree(), find_free_dqentry(), v2r1_mem2diskdqb()).
 * *@buf (malloc()ed) holds its *@len bytes, dqi_blocks KiB.  Returns 0,
 * -ENOMEM, or -EEXIST if an ID comes twice.
 */
int nv_quota_build(const struct nv_qinfo *info, const struct nv_dquot *dq,
		   size_t n, uint8_t **buf, size_t *len);

/*
 * Room for one more element after the @n of an array of *@cap elements
 * of @size bytes: @arr itself while there is room, else @arr reallocated
 * to twice *@cap elements (@first the first time), *@cap updated; NULL
 * when out of memory (@arr and *@cap as they were)
 */
void *nv_grow(void *arr, size_t *cap, size_t n, size_t size, size_t first);

#endif
