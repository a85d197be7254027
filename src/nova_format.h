/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA on-pmem format.
 *
 * This header is shared by the kernel module and the user-space tools
 * (mkfs.nova, fsck.nova, nova-probe).  Every field is fixed-width and
 * little-endian; every structure has its size checked at compile time.
 * Nothing here may depend on kernel-only or libc-only definitions other
 * than the __leXX / __uX types of <linux/types.h>.
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
#include <linux/ioctl.h>

#ifdef __KERNEL__
#include <linux/stddef.h>
#include <linux/string.h>
#else
#include <endian.h>
#include <stddef.h>
#include <string.h>
#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)
#define cpu_to_le16(x)	htole16(x)
#define cpu_to_le32(x)	htole32(x)
#define cpu_to_le64(x)	htole64(x)
#endif

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

/* super block s_state */
#define NOVA_STATE_CLEAN	0x0001	/* unmounted cleanly, snapshot valid */
#define NOVA_STATE_ERROR	0x0002	/* errors were detected */

/*
 * Feature bits.  INCOMPAT_XATTR: some log holds NOVA_XATTR entries
 * (set by the first extended attribute written), which a module or tool
 * that predates them would take for damage.
 */
#define NOVA_FEATURE_INCOMPAT_XATTR	0x0001ULL
#define NOVA_FEATURE_COMPAT_SUPP	0ULL
#define NOVA_FEATURE_RO_COMPAT_SUPP	0ULL
#define NOVA_FEATURE_INCOMPAT_SUPP	NOVA_FEATURE_INCOMPAT_XATTR

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
	__le64	s_reserved[40];
};

/* Reserved inode numbers (slots of the reserved inode block) */
#define NOVA_ROOT_INO		1
#define NOVA_INODETABLE_INO	2	/* placeholder, tables are in block 16 */
#define NOVA_BLOCKNODE_INO	3	/* clean-unmount allocator snapshot */
#define NOVA_INODELIST_INO	4	/* clean-unmount in-use inode lists */
#define NOVA_LITEJOURNAL_INO	5	/* placeholder, journals in block 32 */
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
	__le64	i_reserved[3];
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
	__u8	pad;
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
	__le32	pad2;
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
#define NOVA_XATTR_INDEX_MAX		6

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
 * in the page): first a header, then the ranges, sorted.  The inode's
 * log_tail is unused (0).
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

/*
 * NOVA_IOC_LOG_INFO (ioctl on any open NOVA file or directory): the
 * inode's log and what its garbage collection aims at.
 */
struct nova_log_info {
	__u64	log_pages;	/* pages in the log chain */
	__u64	live_bytes;	/* bytes a rewritten log would take */
	__u64	need_pages;	/* pages those need */
	__u64	limit_pages;	/* GC keeps log_pages within this */
	__u64	data_pages;	/* file pages with a block */
	__u64	live_writes;	/* live write entries (regular files) */
};

#define NOVA_IOC_LOG_INFO	_IOR('N', 0x40, struct nova_log_info)

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

/*
 * CRC32C (Castagnoli), reflected, as in iSCSI/ext4/btrfs: the check value
 * of "123456789" is 0xe3069283.  nova_crc32c_update() does no pre- or
 * post-inversion, exactly like the kernel's crc32c(); callers use
 * nova_crc32c() for a complete checksum.  In the kernel it is the
 * kernel's own (compat.h).
 */
#ifndef __KERNEL__
static inline __u32 nova_crc32c_update(__u32 crc, const void *p, unsigned long len)
{
	const unsigned char *b = p;
	int k;

	while (len--) {
		crc ^= *b++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78U & (0U - (crc & 1)));
	}
	return crc;
}
#endif

static inline __u32 nova_crc32c(const void *p, unsigned long len)
{
	return ~nova_crc32c_update(~0U, p, len);
}

/* Checksum of a super block: everything after s_sum */
static inline __u32 nova_sb_csum(const struct nova_super_block *sb)
{
	return nova_crc32c(&sb->s_magic,
			   sizeof(*sb) - sizeof(sb->s_sum));
}

/*
 * Log entries, shared by the module and the tools: size of the entry at
 * @p with @room bytes left in its page (0 if it is not a well-formed
 * entry), where its checksum and mutable fields are, its checksum, and
 * its trans_id.
 */
static inline size_t nova_entry_size(const __u8 *p, size_t room)
{
	const struct nova_dentry *de = (const void *)p;
	const struct nova_xattr_entry *xe = (const void *)p;
	size_t len;

	switch (p[0]) {
	case NOVA_FILE_WRITE:
		return sizeof(struct nova_file_write_entry);
	case NOVA_SET_ATTR:
		return sizeof(struct nova_setattr_entry);
	case NOVA_LINK_CHANGE:
		return sizeof(struct nova_link_change_entry);
	case NOVA_MMAP_WRITE:
		return sizeof(struct nova_mmap_entry);
	case NOVA_DIR_LOG:
		if (room < NOVA_DENTRY_HEADER)
			return 0;
		len = le16_to_cpu(de->de_len);
		if (!de->name_len || len != NOVA_DENTRY_LEN(de->name_len))
			return 0;
		return len;
	case NOVA_XATTR:
		if (room < NOVA_XATTR_HEADER)
			return 0;
		len = le16_to_cpu(xe->xe_len);
		if (len != NOVA_XATTR_LEN(xe->name_len, le16_to_cpu(xe->part_len)) ||
		    len > NOVA_XATTR_ENTRY_MAX)
			return 0;
		return len;
	default:
		return 0;
	}
}

/* Offsets of an entry type's checksum and mutable fields, -1 if none */
struct nova_entry_layout {
	int csum;
	int flag;	/* invalid (reassigned for write entries) */
	int pages;	/* invalid_pages of a write entry */
};

static inline struct nova_entry_layout nova_entry_layout_of(__u8 type)
{
	struct nova_entry_layout l = { -1, -1, -1 };

	switch (type) {
	case NOVA_FILE_WRITE:
		l.csum = offsetof(struct nova_file_write_entry, e_csum);
		l.flag = offsetof(struct nova_file_write_entry, reassigned);
		l.pages = offsetof(struct nova_file_write_entry, invalid_pages);
		break;
	case NOVA_DIR_LOG:
		l.csum = offsetof(struct nova_dentry, e_csum);
		l.flag = offsetof(struct nova_dentry, invalid);
		break;
	case NOVA_SET_ATTR:
		l.csum = offsetof(struct nova_setattr_entry, e_csum);
		l.flag = offsetof(struct nova_setattr_entry, invalid);
		break;
	case NOVA_LINK_CHANGE:
		l.csum = offsetof(struct nova_link_change_entry, e_csum);
		l.flag = offsetof(struct nova_link_change_entry, invalid);
		break;
	case NOVA_MMAP_WRITE:
		l.csum = offsetof(struct nova_mmap_entry, e_csum);
		l.flag = offsetof(struct nova_mmap_entry, invalid);
		break;
	case NOVA_XATTR:
		l.csum = offsetof(struct nova_xattr_entry, e_csum);
		l.flag = offsetof(struct nova_xattr_entry, invalid);
		break;
	}
	return l;
}

/*
 * CRC32C of an entry with its checksum and mutable fields taken as zero.
 * Those fields are in the first NOVA_ENTRY_CRC_HEAD bytes of every type:
 * a copy of the head with them zeroed, then the rest of the entry in
 * place.
 */
#define NOVA_ENTRY_CRC_HEAD	48

static inline __u32 nova_entry_crc(const void *entry, size_t size)
{
	struct nova_entry_layout l = nova_entry_layout_of(*(const __u8 *)entry);
	__u8 buf[NOVA_ENTRY_CRC_HEAD];
	size_t head = size < sizeof(buf) ? size : sizeof(buf);
	__u32 crc;

	if (l.csum < 0 || size < (size_t)l.csum + 4 || l.csum + 4 > (int)sizeof(buf) ||
	    l.flag >= (int)sizeof(buf) || l.pages + 4 > (int)sizeof(buf))
		return 0;
	memcpy(buf, entry, head);
	memset(buf + l.csum, 0, 4);
	buf[l.flag] = 0;
	if (l.pages >= 0)
		memset(buf + l.pages, 0, 4);
	crc = nova_crc32c_update(~0U, buf, head);
	crc = nova_crc32c_update(crc, (const __u8 *)entry + head, size - head);
	return ~crc;
}

static inline void nova_entry_csum(void *entry, size_t size)
{
	struct nova_entry_layout l = nova_entry_layout_of(*(__u8 *)entry);
	__le32 c = cpu_to_le32(nova_entry_crc(entry, size));

	memcpy((__u8 *)entry + l.csum, &c, sizeof(c));
}

static inline int nova_entry_csum_ok(const void *entry, size_t size)
{
	struct nova_entry_layout l = nova_entry_layout_of(*(const __u8 *)entry);
	__le32 c;

	if (l.csum < 0)
		return 0;
	memcpy(&c, (const __u8 *)entry + l.csum, sizeof(c));
	return le32_to_cpu(c) == nova_entry_crc(entry, size);
}

static inline int nova_entry_is_invalid(const void *entry)
{
	struct nova_entry_layout l = nova_entry_layout_of(*(const __u8 *)entry);

	return l.flag >= 0 && ((const __u8 *)entry)[l.flag];
}

static inline __u64 nova_entry_trans_id(const void *entry)
{
	switch (*(const __u8 *)entry) {
	case NOVA_FILE_WRITE:
		return le64_to_cpu(((const struct nova_file_write_entry *)entry)->trans_id);
	case NOVA_DIR_LOG:
		return le64_to_cpu(((const struct nova_dentry *)entry)->trans_id);
	case NOVA_SET_ATTR:
		return le64_to_cpu(((const struct nova_setattr_entry *)entry)->trans_id);
	case NOVA_LINK_CHANGE:
		return le64_to_cpu(((const struct nova_link_change_entry *)entry)->trans_id);
	case NOVA_MMAP_WRITE:
		return le64_to_cpu(((const struct nova_mmap_entry *)entry)->trans_id);
	case NOVA_XATTR:
		return le64_to_cpu(((const struct nova_xattr_entry *)entry)->trans_id);
	}
	return 0;
}

/*
 * Validate a super block copy for a device of @dev_size bytes: NULL if it
 * is good, else what is wrong.  Shared by the module and the tools.
 */
static inline const char *nova_check_super(const struct nova_super_block *s,
						   __u64 dev_size)
{
	__u64 size = le64_to_cpu(s->s_size);
	__u32 stripes = le32_to_cpu(s->s_stripes);
	__u32 itbs = le32_to_cpu(s->s_itable_block_size);
	__u32 jpages = le32_to_cpu(s->s_journal_pages);

	if (le32_to_cpu(s->s_magic) != NOVA_SUPER_MAGIC)
		return "bad magic number";
	if (le32_to_cpu(s->s_sum) != nova_sb_csum(s))
		return "bad checksum";
	if (le32_to_cpu(s->s_version) >> 16 != NOVA_FORMAT_MAJOR)
		return "unsupported format version";
	if (le32_to_cpu(s->s_blocksize) != NOVA_BLOCK_SIZE)
		return "unsupported block size";
	if (size < NOVA_MIN_SIZE || size > dev_size ||
	    size & (NOVA_BLOCK_SIZE - 1) ||
	    le64_to_cpu(s->s_num_blocks) != size >> NOVA_BLOCK_SHIFT)
		return "bad file system size";
	if (!stripes || stripes > NOVA_MAX_STRIPES)
		return "bad stripe count";
	if (le32_to_cpu(s->s_inode_size) != sizeof(struct nova_inode))
		return "bad inode size";
	if (itbs != NOVA_SMALL_ITABLE_SIZE && itbs != NOVA_LARGE_ITABLE_SIZE)
		return "bad inode table block size";
	if (!jpages || jpages > 16)
		return "bad journal size";
	if ((size >> NOVA_BLOCK_SHIFT) - NOVA_HEAD_RESERVED_BLOCKS -
	    NOVA_TAIL_RESERVED_BLOCKS < (__u64)stripes *
	    ((itbs >> NOVA_BLOCK_SHIFT) + jpages + 1))
		return "stripes do not fit";
	if (le64_to_cpu(s->s_feature_incompat) & ~NOVA_FEATURE_INCOMPAT_SUPP)
		return "unsupported incompatible features";
	return NULL;
}

/*
 * Where the replica super block is.  It is always the last block of the
 * file system (s_size - 4096), so a valid primary says where it is.
 * When the primary is not valid, its s_size cannot be trusted, and the
 * replica is searched for.  The candidates, in this order:
 *
 *   1. the block the primary's s_size names, if that is a possible size
 *      on this device: s_size never changes after mkfs, so a torn
 *      primary or one with a stale checksum still names the right block;
 *   2. the device's last block: every file system that fills its device
 *      (all those made before fs-size existed among them);
 *   3. only while the device still shows NOVA at its start (the
 *      primary's magic number, or the root inode in block 1), every
 *      other block, from the device's end down to the last block of the
 *      smallest possible file system.
 *
 * A candidate is the replica only if it is a valid super block of a file
 * system that ends exactly there (nova_check_replica()); the first such
 * candidate wins.  The kernel (super.c), fsck.nova and libnova search in
 * this order; nova-probe and mkfs.nova's test for an existing file
 * system, which udev and mkfs run on any device, leave out step 3.
 * Before they write a new file system, mkfs.nova and the kernel's
 * -o init invalidate the replicas that steps 1 and 2 find of the old
 * one, so that a later search does not find a stale replica first.
 */
#define NOVA_REPLICA_LOWEST	(NOVA_MIN_SIZE - NOVA_BLOCK_SIZE)

struct nova_replica_iter {
	__u64	hint;		/* step 1's candidate, 0: none */
	__u64	last;		/* the device's last block */
	__u64	next;		/* step 3's last candidate */
	__u64	scanned;	/* candidates of step 3 so far */
	int	step;		/* the next candidate's step, 4: none left */
	int	scan;		/* step 3 allowed */
};

/* Does the start of the device show NOVA?  (@root may be NULL) */
static inline int nova_shows_nova(const struct nova_super_block *p,
				  const struct nova_inode *root)
{
	if (le32_to_cpu(p->s_magic) == NOVA_SUPER_MAGIC)
		return 1;
	/* S_IFMT and S_IFDIR, which the kernel and libc define differently */
	return root && root->i_valid == NOVA_INODE_VALID &&
	       le64_to_cpu(root->i_ino) == NOVA_ROOT_INO &&
	       (le16_to_cpu(root->i_mode) & 0170000) == 0040000;
}

/*
 * Start a search on a device of @dev_size bytes whose primary super block
 * @p is not valid; @scan allows step 3.  A device smaller than
 * NOVA_MIN_SIZE has no candidates.
 */
static inline void nova_replica_iter_init(struct nova_replica_iter *it,
					  const struct nova_super_block *p,
					  __u64 dev_size, int scan)
{
	__u64 size = le64_to_cpu(p->s_size);

	it->last = (dev_size & ~(__u64)(NOVA_BLOCK_SIZE - 1)) - NOVA_BLOCK_SIZE;
	it->hint = 0;
	if (size >= NOVA_MIN_SIZE && size <= dev_size &&
	    !(size & (NOVA_BLOCK_SIZE - 1)) && size - NOVA_BLOCK_SIZE != it->last)
		it->hint = size - NOVA_BLOCK_SIZE;
	it->next = it->last;
	it->scanned = 0;
	it->step = it->hint ? 1 : 2;
	it->scan = scan;
	if (dev_size < NOVA_MIN_SIZE)
		it->step = 4;
}

/* The offset of the next candidate, 0 when there is none left */
static inline __u64 nova_replica_next(struct nova_replica_iter *it)
{
	if (it->step == 1) {
		it->step = 2;
		return it->hint;
	}
	if (it->step == 2) {
		it->step = it->scan ? 3 : 4;
		return it->last;
	}
	while (it->step == 3 && it->next > NOVA_REPLICA_LOWEST) {
		it->next -= NOVA_BLOCK_SIZE;
		if (it->next != it->hint) {
			it->scanned++;
			return it->next;
		}
	}
	it->step = 4;
	return 0;
}

/* Is @s, read at offset @off, the replica of its file system? */
static inline const char *nova_check_replica(const struct nova_super_block *s,
					     __u64 off, __u64 dev_size)
{
	const char *why = nova_check_super(s, dev_size);

	if (!why && le64_to_cpu(s->s_size) != off + NOVA_BLOCK_SIZE)
		why = "not in the last block of its file system";
	return why;
}

/*
 * Format-time layout, computed the same way by the kernel's -o init
 * (super.c) and by mkfs.nova, so both write the same blocks.
 *
 *   size        the device's size, or the smaller fs-size asked of
 *               mkfs.nova, rounded down to a whole block
 *   itable      NOVA_LARGE_ITABLE_SIZE from NOVA_LARGE_ITABLE_THRESHOLD on
 *   stripes     min(ncpus, NOVA_MAX_STRIPES), reduced while a stripe's
 *               share of the dynamic area is smaller than
 *               4 * (inode table blocks + 1) + 64 blocks
 *   regions     the dynamic area (blocks 64 .. n-3) split into @stripes
 *               equal regions of data_blocks / stripes blocks; the last
 *               region also takes the remainder
 *
 * The allocator is first fit from the start of a region, so a new file
 * system has stripe i's first inode table block at the first block of
 * region i and its journal page right after it.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/math64.h>
static inline __u64 nova_div_u64(__u64 a, __u32 b)
{
	return div_u64(a, b);
}
#else
#include <linux/errno.h>
static inline __u64 nova_div_u64(__u64 a, __u32 b)
{
	return a / b;
}
#endif

/* Journal pages per stripe of a new file system (s_journal_pages) */
#define NOVA_FORMAT_JOURNAL_PAGES	1

struct nova_layout {
	__u64	size;			/* bytes in use (s_size) */
	__u64	num_blocks;		/* size >> NOVA_BLOCK_SHIFT */
	__u64	data_start;		/* first block of the dynamic area */
	__u64	data_end;		/* last block of the dynamic area */
	__u64	data_blocks;		/* data_end - data_start + 1 */
	__u64	stripe_blocks;		/* blocks per region but the last */
	__u32	stripes;
	__u32	itable_block_size;	/* bytes per inode table block */
	__u32	itable_blocks;		/* blocks per inode table block */
	__u32	journal_pages;		/* pages per stripe journal */
};

/* Does every one of @n stripes get a useful region? */
static inline int nova_stripes_fit(__u64 data_blocks, __u32 itable_blocks,
				   __u32 n)
{
	return nova_div_u64(data_blocks, n) >=
	       4 * ((__u64)itable_blocks + 1) + 64;
}

/*
 * Compute the layout of a new file system of @fs_size bytes (rounded down
 * to a block) for @ncpus CPUs (the stripe count before the reduction).
 * Returns 0, or -EINVAL if the size is below NOVA_MIN_SIZE or @ncpus is 0.
 */
static inline int nova_compute_layout(__u64 fs_size, unsigned int ncpus,
				      struct nova_layout *l)
{
	__u64 size = fs_size & ~(__u64)(NOVA_BLOCK_SIZE - 1);
	__u32 n;

	if (size < NOVA_MIN_SIZE || !ncpus)
		return -EINVAL;
	l->size = size;
	l->num_blocks = size >> NOVA_BLOCK_SHIFT;
	l->itable_block_size = size >= NOVA_LARGE_ITABLE_THRESHOLD ?
			       NOVA_LARGE_ITABLE_SIZE : NOVA_SMALL_ITABLE_SIZE;
	l->itable_blocks = l->itable_block_size >> NOVA_BLOCK_SHIFT;
	l->journal_pages = NOVA_FORMAT_JOURNAL_PAGES;
	l->data_start = NOVA_HEAD_RESERVED_BLOCKS;
	l->data_end = l->num_blocks - NOVA_TAIL_RESERVED_BLOCKS - 1;
	l->data_blocks = l->data_end - l->data_start + 1;

	n = ncpus < NOVA_MAX_STRIPES ? ncpus : NOVA_MAX_STRIPES;
	while (n > 1 && !nova_stripes_fit(l->data_blocks, l->itable_blocks, n))
		n--;
	l->stripes = n;
	l->stripe_blocks = nova_div_u64(l->data_blocks, n);
	return 0;
}

/* First and last block (inclusive) of stripe @i's region */
static inline void nova_stripe_region(const struct nova_layout *l,
				      unsigned int i, __u64 *start, __u64 *end)
{
	*start = l->data_start + (__u64)i * l->stripe_blocks;
	*end = i == l->stripes - 1 ? l->data_end :
	       *start + l->stripe_blocks - 1;
}

/* Where format puts stripe @i's first inode table block and journal page */
static inline __u64 nova_stripe_itable_block(const struct nova_layout *l,
					     unsigned int i)
{
	__u64 start, end;

	nova_stripe_region(l, i, &start, &end);
	return start;
}

static inline __u64 nova_stripe_journal_block(const struct nova_layout *l,
					      unsigned int i)
{
	return nova_stripe_itable_block(l, i) + l->itable_blocks;
}

#endif /* NOVA_FORMAT_H */
