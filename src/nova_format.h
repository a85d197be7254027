/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA on-pmem format.
 *
 * This header is shared verbatim by the kernel module and the user-space
 * tools (mkfs.nova, fsck.nova, nova-probe), as XFS shares its libxfs
 * format headers: structures, constants and compile-time size checks
 * only.  Every field is fixed-width and little-endian.  Nothing here may
 * depend on anything but the __leXX / __uX types of <linux/types.h>.
 * The code both sides run on this format (checksums, entry parsing,
 * super block checks, the replica search, the layout) is nova_lib.h;
 * the ioctl ABI is nova_ioctl.h.
 *
 * Layout of a NOVA file system (4 KiB blocks, n = s_num_blocks): it
 * starts at the start of its device and ends at s_size, which is the
 * device's size rounded down to a block unless mkfs.nova was given a
 * smaller fs-size; the bytes of the device after s_size are not used.
 *
 *   block 0         primary super block (struct nova_super_block)
 *   block 1         reserved inodes (struct nova_inode, ino 0..31)
 *   blocks 2-15     reserved
 *   blocks 16-31    inode table pointers (one struct nova_inode_table
 *                   per stripe, one cache line each)
 *   blocks 32-47    journal pointers (one struct nova_journal_ptr per
 *                   stripe, one cache line each)
 *   blocks 48-63    reserved
 *   blocks 64..n-3  log and data pages, managed by the per-stripe
 *                   allocators
 *   block n-2       replica of the reserved inodes
 *   block n-1       replica super block (see nova_replica_next())
 *
 * All pointers stored on pmem are byte offsets from the start of the
 * device; 0 means "none".
 */
#ifndef NOVA_FORMAT_H
#define NOVA_FORMAT_H

#include <linux/types.h>

#define NOVA_SUPER_MAGIC	0x4E4F5641	/* "NOVA" */
#define NOVA_FORMAT_MAJOR	1
#define NOVA_FORMAT_MINOR	0
#define NOVA_FORMAT_VERSION	((NOVA_FORMAT_MAJOR << 16) | NOVA_FORMAT_MINOR)

#define NOVA_BLOCK_SHIFT	12
#define NOVA_BLOCK_SIZE		(1U << NOVA_BLOCK_SHIFT)
#define NOVA_CACHELINE		64

/* Fixed regions, in blocks */
#define NOVA_SB_BLOCK			0
#define NOVA_RESERVED_INODE_BLOCK	1
#define NOVA_INODE_TABLE_BLOCK		16
#define NOVA_INODE_TABLE_BLOCKS		16
#define NOVA_JOURNAL_PTR_BLOCK		32
#define NOVA_JOURNAL_PTR_BLOCKS		16
#define NOVA_HEAD_RESERVED_BLOCKS	64
#define NOVA_TAIL_RESERVED_BLOCKS	2

/* One cache line per stripe in the pointer blocks */
#define NOVA_MAX_STRIPES \
	(NOVA_INODE_TABLE_BLOCKS * NOVA_BLOCK_SIZE / NOVA_CACHELINE)

/*
 * Smallest device we format: the fixed regions, one inode table block and
 * one journal page per stripe, a root log page and some room for data.
 */
#define NOVA_MIN_DATA_BLOCKS		256
#define NOVA_MIN_SIZE \
	((unsigned long long)(NOVA_HEAD_RESERVED_BLOCKS + \
	 NOVA_TAIL_RESERVED_BLOCKS + NOVA_MIN_DATA_BLOCKS) << NOVA_BLOCK_SHIFT)

/* Devices of at least this size use 2 MiB inode table blocks */
#define NOVA_LARGE_ITABLE_THRESHOLD	(512ULL << 20)
#define NOVA_LARGE_ITABLE_SIZE		(2U << 20)
#define NOVA_SMALL_ITABLE_SIZE		NOVA_BLOCK_SIZE

#define NOVA_LABEL_LEN		64
#define NOVA_NAME_LEN		255

/*
 * The FS_*_FL inode flags an inode keeps (i_flags, link-change entries):
 * SYNC 0x8, IMMUTABLE 0x10, APPEND 0x20, NODUMP 0x40, NOATIME 0x80,
 * DIRSYNC 0x10000, NOCOW 0x800000 (chattr +C: the file's writes go in
 * place, as with inplace_data_updates=1), DAX 0x2000000, PROJINHERIT
 * 0x20000000 (directories only: new inodes in it get its project ID),
 * CASEFOLD 0x40000000 (directories only, with INCOMPAT_CASEFOLD: names
 * are looked up case-insensitively; inherited by new subdirectories)
 */
#define NOVA_FL_SUPPORTED	0x628100f8U

/* super block s_state */
#define NOVA_STATE_CLEAN	0x0001	/* unmounted cleanly, snapshot valid */
#define NOVA_STATE_ERROR	0x0002	/* errors were detected */
/*
 * With CLEAN: the project quota file's usage was written back at that
 * unmount with project quotas on, so it matches the file system; without
 * it the next mount with prjquota counts the usage again
 */
#define NOVA_STATE_PRJQUOTA	0x0004

/*
 * Feature bits.  INCOMPAT_XATTR: some log holds NOVA_XATTR entries
 * (set by the first extended attribute written), which a module or tool
 * that predates them would take for damage.  RO_COMPAT_UNWRITTEN: some
 * write entry may carry NOVA_WRITE_UNWRITTEN (set by the first
 * fallocate): a reader that ignores the flag reads the same zeros, but a
 * writer that ignores it could store data in a page still flagged
 * unwritten, which this module would then take for zeros.  A module
 * mounts a file system with RO_COMPAT features it lacks read-only only.
 * INCOMPAT_ENCRYPT: some inode has an fscrypt context (an extended
 * attribute of NOVA_XATTR_INDEX_ENCRYPTION, set by the first
 * FS_IOC_SET_ENCRYPTION_POLICY): its data blocks hold ciphertext, and a
 * directory's names are ciphertext (any bytes, '/' and NUL included).
 * RO_COMPAT_PROJECT: some inode has a project ID other than 0 (i_projid,
 * link-change entries), or the project quota file NOVA_PRJQUOTA_INO
 * exists: a writer that ignores them would log project ID 0 and reclaim
 * that unnamed inode.
 * INCOMPAT_CASEFOLD (mkfs.nova -O casefold): directories may carry
 * FS_CASEFOLD_FL, whose names are compared case-insensitively in the
 * encoding s_encoding says (s_encoding_flags: NOVA_ENC_*): a module
 * that ignores it would let two names that differ only in case into
 * such a directory.
 * INCOMPAT_REFLINK: some write entry may carry NOVA_WRITE_SHARED (set by
 * the first clone or dedupe): a data block may be mapped by several file
 * pages, of one file or of several, and is freed when the last of them
 * stops mapping it.  A module or tool that ignores it would free or
 * overwrite a block still mapped elsewhere, or take the second mapping
 * for damage.
 */
#define NOVA_FEATURE_INCOMPAT_XATTR	0x0001ULL
#define NOVA_FEATURE_INCOMPAT_ENCRYPT	0x0002ULL
#define NOVA_FEATURE_INCOMPAT_CASEFOLD	0x0004ULL
#define NOVA_FEATURE_INCOMPAT_REFLINK	0x0008ULL
#define NOVA_FEATURE_RO_COMPAT_UNWRITTEN	0x0001ULL
#define NOVA_FEATURE_RO_COMPAT_PROJECT	0x0002ULL
#define NOVA_FEATURE_COMPAT_SUPP	0ULL
#define NOVA_FEATURE_RO_COMPAT_SUPP	(NOVA_FEATURE_RO_COMPAT_UNWRITTEN | \
					 NOVA_FEATURE_RO_COMPAT_PROJECT)
#define NOVA_FEATURE_INCOMPAT_SUPP	(NOVA_FEATURE_INCOMPAT_XATTR | \
					 NOVA_FEATURE_INCOMPAT_ENCRYPT | \
					 NOVA_FEATURE_INCOMPAT_CASEFOLD | \
					 NOVA_FEATURE_INCOMPAT_REFLINK)

/*
 * s_encoding (ext4's numbers): the character encoding of the names in
 * case-insensitive directories, 0 without INCOMPAT_CASEFOLD.
 * s_encoding_flags: STRICT refuses to create a name that is not valid in
 * the encoding (EINVAL); without it such a name is an opaque byte string,
 * matched exactly.
 */
#define NOVA_ENC_UTF8_12_1		1	/* UTF-8, Unicode 12.1.0 */
#define NOVA_ENC_STRICT_MODE_FL		0x0001
#define NOVA_ENC_FLAGS_KNOWN		NOVA_ENC_STRICT_MODE_FL

/*
 * The super block.  It is written as a whole (primary first, then the
 * replica, each made durable before the next), so a torn write leaves at
 * most one copy with a bad checksum.  s_sum is the CRC32C of the bytes
 * from s_magic up to the end of the structure.
 */
struct nova_super_block {
	__le32	s_sum;
	__le32	s_magic;
	__le32	s_version;		/* NOVA_FORMAT_VERSION */
	__le32	s_blocksize;		/* NOVA_BLOCK_SIZE */
	__le64	s_size;			/* bytes of the file system, <= device */
	__le64	s_num_blocks;		/* s_size >> NOVA_BLOCK_SHIFT */
	__u8	s_uuid[16];
	char	s_label[NOVA_LABEL_LEN];	/* NUL-padded */
	__le64	s_feature_compat;
	__le64	s_feature_ro_compat;
	__le64	s_feature_incompat;
	__le32	s_stripes;		/* per-CPU regions, fixed at mkfs */
	__le32	s_inode_size;		/* sizeof(struct nova_inode) */
	__le32	s_itable_block_size;	/* bytes per inode table block */
	__le32	s_state;		/* NOVA_STATE_* */
	__le64	s_mkfs_time;		/* ns since the epoch */
	__le64	s_mount_time;
	__le64	s_write_time;
	__le64	s_epoch_id;
	__le32	s_mount_count;
	__le32	s_journal_pages;	/* pages per stripe journal */
	__le16	s_encoding;		/* NOVA_ENC_*, with INCOMPAT_CASEFOLD */
	__le16	s_encoding_flags;	/* NOVA_ENC_*_FL */
	__le32	s_pad0;
	__le64	s_reserved[39];
};

/* Reserved inode numbers (slots of the reserved inode block) */
#define NOVA_ROOT_INO		1
#define NOVA_INODETABLE_INO	2	/* placeholder, tables are in block 16 */
#define NOVA_BLOCKNODE_INO	3	/* clean-unmount allocator snapshot */
#define NOVA_INODELIST_INO	4	/* clean-unmount in-use inode lists */
#define NOVA_LITEJOURNAL_INO	5	/* placeholder, journals in block 32 */
/*
 * The project quota file (quota_v2 format, as ext4's hidden quota
 * inodes): a regular file with no name and one link, made by the first
 * mount with prjquota
 */
#define NOVA_PRJQUOTA_INO	6
#define NOVA_NORMAL_INODE_START	32

#define NOVA_RESERVED_INODES	(NOVA_BLOCK_SIZE / sizeof(struct nova_inode))

/* nova_inode.i_valid */
#define NOVA_INODE_FREE		0
#define NOVA_INODE_VALID	1

/*
 * An inode, 128 bytes.  The log (log_head .. log_tail) is the
 * authority for everything but the static fields; the attribute fields
 * here are kept in step with the log and are what a rebuild starts from.
 * A log append commits with one 8-byte store of log_tail.
 */
struct nova_inode {
	__u8	i_valid;		/* NOVA_INODE_* */
	__u8	i_deleted;		/* unlinked, log being reclaimed */
	__u8	i_blk_type;		/* data block size class, 0 = 4 KiB */
	__u8	i_pad0;
	__le32	i_flags;		/* FS_*_FL inode flags */
	__le64	i_size;
	__le64	i_ctime;		/* ns since the epoch, signed */
	__le64	i_mtime;
	__le64	i_atime;
	__le16	i_mode;
	__le16	i_pad1;
	__le32	i_links_count;
	__le32	i_uid;
	__le32	i_gid;
	__le32	i_generation;
	__le32	i_rdev;			/* new_encode_dev() */
	__le64	i_ino;
	__le64	log_head;		/* first log page, 0 if none */
	__le64	log_tail;		/* offset just past the last entry */
	__le64	i_btime;		/* creation time */
	__le64	i_create_epoch;
	__le32	i_projid;		/* project ID (quota), 0 by default */
	__le32	i_pad2;
	__le64	i_reserved[2];
};

/* Pointer to one stripe's inode table: its first block */
struct nova_inode_table {
	__le64	log_head;
	__le64	pad[7];
};

/* Pointer pair of one stripe's lite journal (circular, in one page run) */
struct nova_journal_ptr {
	__le64	journal_head;
	__le64	journal_tail;
	__le64	pad[6];
};

/*
 * Log pages: 4 KiB; the last 32 bytes are the page tail.  Entries never
 * cross a page; when the next entry does not fit, the log continues at
 * the start of next_page.
 */
#define NOVA_LOG_TAIL_SIZE	32
#define NOVA_LOG_LAST_ENTRY	(NOVA_BLOCK_SIZE - NOVA_LOG_TAIL_SIZE)

struct nova_log_page_tail {
	__le32	invalid_entries;
	__le32	num_entries;
	__le64	epoch_id;
	__le64	pad;
	__le64	next_page;		/* offset of next log page, 0 at end */
};

/* Log growth policy (from the seeds' documentation) */
#define NOVA_LOG_EXTEND_THRESHOLD	256	/* pages: double up to 1 MiB */
#define NOVA_LOG_EXTEND_STEP		256	/* then add 1 MiB at a time */

/* Log entry types */
enum nova_entry_type {
	NOVA_FILE_WRITE = 1,
	NOVA_DIR_LOG,
	NOVA_SET_ATTR,
	NOVA_LINK_CHANGE,
	NOVA_MMAP_WRITE,
	NOVA_NEXT_PAGE,
	NOVA_XATTR,
	NOVA_MAX_ENTRY_TYPE,
};

/*
 * Every entry starts with its type byte and carries a CRC32C (e_csum) and
 * the per-inode trans_id, strictly increasing along a log.  The checksum
 * covers the entry with e_csum and the mutable fields taken as zero: the
 * invalid flag (reassigned for write entries) and, for write entries,
 * invalid_pages.  Those are updated in place when an entry dies: an
 * entry with its flag set no longer has any effect (a dentry's directory
 * link count and time still apply), and log pages whose entries are all
 * invalid may be unlinked from the log by garbage collection.
 */
struct nova_file_write_entry {
	__u8	entry_type;		/* NOVA_FILE_WRITE */
	__u8	reassigned;		/* 1: every page superseded (dead) */
	__u8	updating;
	__u8	flags;			/* NOVA_WRITE_* */
	__le32	num_pages;
	__le64	block;			/* offset of the first data block */
	__le64	pgoff;			/* first file page */
	__le32	invalid_pages;		/* pages superseded so far */
	__le32	e_csum;
	__le64	mtime;
	__le64	size;			/* file size after this write */
	__le64	epoch_id;
	__le64	trans_id;
};

/*
 * Write entry flags.  UNWRITTEN: the pages were preallocated (fallocate)
 * and not written since; FIEMAP reports them unwritten.  Their blocks
 * are zeroed when allocated, so a reader that ignores the flag sees the
 * same bytes (NOVA_FEATURE_RO_COMPAT_UNWRITTEN).  A write or a write
 * fault to such a page logs it again without the flag first.
 */
#define NOVA_WRITE_UNWRITTEN	0x01
/*
 * SHARED (INCOMPAT_REFLINK): the entry's blocks may be mapped by other
 * write entries too (a clone).  A block that the live entries map more
 * than once is legitimate only when every entry that maps it carries the
 * flag; its reference count is the number of pages that map it, counted
 * at mount (the count is kept in DRAM only).  A clone logs the source's
 * pages again with the flag before it commits the destination's, so a
 * crash between the two leaves a flag on blocks mapped once, which
 * allows nothing more.  A stale flag (the other mappings gone since) is
 * harmless the same way.
 */
#define NOVA_WRITE_SHARED	0x02

#define NOVA_DENTRY_HEADER	48
struct nova_dentry {
	__u8	entry_type;		/* NOVA_DIR_LOG */
	__u8	name_len;
	__u8	reassigned;		/* unused, 0 */
	__u8	invalid;		/* 1: name removed or superseded */
	__le16	de_len;			/* bytes of this entry */
	__u8	file_type;		/* DT_* of the target */
	__u8	pad;
	__le32	links_count;		/* directory's link count after op */
	__le32	e_csum;
	__le64	mtime;			/* directory mtime/ctime after op */
	__le64	ino;			/* target inode, 0 for a removal */
	__le64	cookie;			/* readdir position - 2; kept by GC */
	__le64	trans_id;
	char	name[NOVA_NAME_LEN + 1];	/* NUL terminated */
};

#define NOVA_DENTRY_LEN(name_len) \
	((NOVA_DENTRY_HEADER + (name_len) + 1 + 15) & ~15U)

/* nova_setattr_entry.attr: which fields the entry sets */
#define NOVA_ATTR_MODE	0x01
#define NOVA_ATTR_UID	0x02
#define NOVA_ATTR_GID	0x04
#define NOVA_ATTR_SIZE	0x08
#define NOVA_ATTR_ATIME	0x10
#define NOVA_ATTR_MTIME	0x20
#define NOVA_ATTR_CTIME	0x40

struct nova_setattr_entry {
	__u8	entry_type;		/* NOVA_SET_ATTR */
	__u8	attr;			/* NOVA_ATTR_* */
	__u8	invalid;
	__u8	pad;
	__le16	mode;
	__le16	pad2;
	__le32	uid;
	__le32	gid;
	__le32	e_csum;
	__le32	pad3;
	__le64	atime;
	__le64	mtime;
	__le64	ctime;
	__le64	size;
	__le64	trans_id;
};

struct nova_link_change_entry {
	__u8	entry_type;		/* NOVA_LINK_CHANGE */
	__u8	invalid;
	__le16	pad;
	__le32	links;
	__le64	ctime;
	__le32	flags;			/* inode flags after op */
	__le32	generation;
	__le32	e_csum;
	__le32	projid;			/* project ID after op */
	__le64	trans_id;
	__le64	reserved;
};

struct nova_mmap_entry {
	__u8	entry_type;		/* NOVA_MMAP_WRITE */
	__u8	invalid;
	__le16	pad;
	__le32	e_csum;
	__le64	pgoff;
	__le64	num_pages;
	__le64	epoch_id;
	__le64	trans_id;
	__le64	reserved[3];
};

/*
 * Extended attributes.  Setting, replacing or removing one is a group of
 * NOVA_XATTR entries appended to the inode's own log and committed by
 * the tail store with everything else.  Part 0 carries the name and the
 * first bytes of the value; parts 1, 2, ... follow it directly in the log
 * (a NEXT_PAGE jump may come between two parts) and carry the rest, so
 * that no entry is larger than NOVA_XATTR_ENTRY_MAX (two fill a log
 * page).  A removal is a part 0 with NOVA_XATTR_REMOVE and no value.
 * name_index says the namespace (the numbers are ext4's); the POSIX ACLs
 * have an empty name, every other namespace a name of 1..255 bytes
 * without its prefix.  The value of an ACL is the VFS's xattr form
 * (struct posix_acl_xattr_header, ids of the initial user namespace).
 * NOVA_XATTR_INDEX_ENCRYPTION (ext4's too) holds one attribute, "c": the
 * inode's fscrypt context (struct fscrypt_context_v1, 28 bytes, or v2,
 * 40 bytes; byte 0 is the version, 1 or 2), never listed or set through
 * the xattr calls.  An inode with it is encrypted; it is written in the
 * inode's own log before the entry that makes the inode reachable, or
 * (FS_IOC_SET_ENCRYPTION_POLICY) into an empty directory or file.
 *
 * A group is live while its part 0 is.  When a later group for the same
 * (name_index, name) commits, part 0 of the older one dies first (made
 * durable), then its other parts; a removal lives until a later group
 * for its name commits.  Replay applies the groups whose part 0 is live
 * and skips parts that follow a dead part 0 or that have none before
 * them.  Every part 0, live or dead, sets the inode's ctime in log
 * order; a live one with NOVA_XATTR_MODE also sets the permission bits
 * (every access ACL entry carries the mode after it, so the newest,
 * always live, has the right one).  value_csum, in part 0, is the
 * CRC32C of the whole value.
 */
#define NOVA_XATTR_INDEX_USER		1
#define NOVA_XATTR_INDEX_ACL_ACCESS	2
#define NOVA_XATTR_INDEX_ACL_DEFAULT	3
#define NOVA_XATTR_INDEX_TRUSTED	4
#define NOVA_XATTR_INDEX_SECURITY	6
#define NOVA_XATTR_INDEX_ENCRYPTION	9
#define NOVA_XATTR_INDEX_MAX		9
#define NOVA_XATTR_ENCRYPTION_NAME	"c"
/* Is @i an index a log may hold?  (5 has no namespace: kept, never listed) */
#define NOVA_XATTR_INDEX_VALID(i) \
	(((i) >= NOVA_XATTR_INDEX_USER && (i) <= NOVA_XATTR_INDEX_SECURITY) || \
	 (i) == NOVA_XATTR_INDEX_ENCRYPTION)

/* nova_xattr_entry.flags */
#define NOVA_XATTR_REMOVE	0x0001
#define NOVA_XATTR_MODE		0x0002
#define NOVA_XATTR_FLAGS	(NOVA_XATTR_REMOVE | NOVA_XATTR_MODE)

#define NOVA_XATTR_HEADER	48
#define NOVA_XATTR_ENTRY_MAX	(NOVA_LOG_LAST_ENTRY / 2)
#define NOVA_XATTR_NAME_MAX	255
#define NOVA_XATTR_VALUE_MAX	65536
#define NOVA_XATTR_LEN(name_len, part_len) \
	((NOVA_XATTR_HEADER + (name_len) + (part_len) + 15) & ~15U)
/* value bytes that fit in a part after @name_len bytes of name */
#define NOVA_XATTR_PART_ROOM(name_len) \
	(NOVA_XATTR_ENTRY_MAX - NOVA_XATTR_HEADER - (name_len))

struct nova_xattr_entry {
	__u8	entry_type;		/* NOVA_XATTR */
	__u8	name_index;		/* NOVA_XATTR_INDEX_* */
	__u8	name_len;		/* part 0: bytes of name; others: 0 */
	__u8	invalid;		/* 1: superseded */
	__le16	xe_len;			/* bytes of this entry */
	__le16	part_len;		/* value bytes in this entry */
	__le32	value_len;		/* bytes of the whole value */
	__le32	e_csum;
	__le64	ctime;			/* inode ctime after the change */
	__le32	flags;			/* NOVA_XATTR_* */
	__le16	mode;			/* i_mode after it, with NOVA_XATTR_MODE */
	__le16	part;			/* 0: first part, with the name */
	__le32	value_csum;		/* part 0: CRC32C of the whole value */
	__le32	pad;
	__le64	trans_id;
	__u8	data[];			/* name, then part_len value bytes */
};

/*
 * Lite journal: a circular buffer of 32-byte undo entries in the stripe's
 * journal page.  Entries in [journal_head, journal_tail) belong to an
 * uncommitted transaction; commit sets journal_head = journal_tail.
 * Recovery writes each entry's old value back to its address, newest
 * first.
 */
#define NOVA_JOURNAL_ENTRY	1	/* 8-byte word: data1 = addr, data2 = old */
#define NOVA_JOURNAL_INODE	2	/* whole inode copy follows (4 entries) */

struct nova_journal_entry {
	__le64	type;
	__le64	data1;
	__le64	data2;
	__le32	pad;
	__le32	e_csum;
};

/*
 * Clean-unmount snapshots.  At a clean unmount the free block ranges of
 * every allocator are saved in the log pages of NOVA_BLOCKNODE_INO, and
 * the in-use inode number ranges in those of NOVA_INODELIST_INO; the
 * super block's NOVA_STATE_CLEAN flag, written last, says they are
 * valid.  The next mount restores them instead of scanning, then frees
 * the pages and clears the flag.  A snapshot is a chain of log pages
 * holding 16-byte records from offset 0 (page tail num_entries = records
 * in the page): first a header, then the ranges, sorted.  The first
 * page's tail pad holds the number of pages in the chain: they are
 * counted for the ranges there are before they are allocated, and each
 * one allocated may take a whole single-block range away, so the chain
 * may have more pages than its records fill (NOVA_SNAPSHOT_PAGES_OK());
 * 0 in snapshots written before this field, whose chain is the pages
 * its records fill.  The inode's log_tail is unused (0).
 */
#define NOVA_SNAPSHOT_MAGIC	0x50414e53	/* "SNAP" */

struct nova_snapshot_header {
	__le32	magic;
	__le32	csum;			/* CRC32C of all the range records */
	__le64	records;		/* range records after the header */
};

struct nova_range_node_lowhigh {
	__le64	range_low;		/* first block (or inode number) */
	__le64	range_high;		/* last one, inclusive */
};

#define NOVA_SNAPSHOT_PER_PAGE \
	(NOVA_LOG_LAST_ENTRY / sizeof(struct nova_range_node_lowhigh))

/* Pages a snapshot of @records records fills, with its header */
#define NOVA_SNAPSHOT_PAGES(records) \
	(((records) + NOVA_SNAPSHOT_PER_PAGE) / NOVA_SNAPSHOT_PER_PAGE)

/*
 * Can a chain of @pages pages hold a snapshot of @records records?  At
 * least the pages they fill; at most the pages counted for @records plus
 * one range for each page allocated (@records + @pages) and the one
 * more that the save counts
 */
#define NOVA_SNAPSHOT_PAGES_OK(records, pages) \
	((pages) >= NOVA_SNAPSHOT_PAGES(records) && \
	 (pages) <= NOVA_SNAPSHOT_PAGES((records) + (pages) + 1))

/*
 * Compile-time layout checks (these sizes are part of the format and
 * must never change without a new NOVA_FORMAT_MAJOR).
 */
#define NOVA_FORMAT_ASSERT(cond, name) \
	_Static_assert(cond, "NOVA format: " #name)

NOVA_FORMAT_ASSERT(sizeof(struct nova_super_block) == 512, sb);
NOVA_FORMAT_ASSERT(sizeof(struct nova_inode) == 128, inode);
NOVA_FORMAT_ASSERT(sizeof(struct nova_inode_table) == NOVA_CACHELINE, itab);
NOVA_FORMAT_ASSERT(sizeof(struct nova_journal_ptr) == NOVA_CACHELINE, jptr);
NOVA_FORMAT_ASSERT(sizeof(struct nova_log_page_tail) == NOVA_LOG_TAIL_SIZE,
		   tail);
NOVA_FORMAT_ASSERT(sizeof(struct nova_file_write_entry) == 64, fwe);
NOVA_FORMAT_ASSERT(sizeof(struct nova_dentry) == NOVA_DENTRY_HEADER + 256,
		   dentry);
NOVA_FORMAT_ASSERT(sizeof(struct nova_setattr_entry) == 64, setattr);
NOVA_FORMAT_ASSERT(sizeof(struct nova_link_change_entry) == 48, link);
NOVA_FORMAT_ASSERT(sizeof(struct nova_mmap_entry) == 64, mmap);
NOVA_FORMAT_ASSERT(sizeof(struct nova_journal_entry) == 32, jentry);
NOVA_FORMAT_ASSERT(sizeof(struct nova_xattr_entry) == NOVA_XATTR_HEADER, xattr);
NOVA_FORMAT_ASSERT(sizeof(struct nova_snapshot_header) == 16, snaphdr);

#endif /* NOVA_FORMAT_H */
