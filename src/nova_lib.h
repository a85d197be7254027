/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code shared verbatim by the NOVA module and its user-space tools, as
 * XFS's kernel and xfsprogs share libxfs: super block checksum and checks,
 * log entry parsing and checksums, the replica super block search, and
 * the layout of the dynamic area (stripes and their regions), which the
 * kernel's format and allocator and mkfs.nova and fsck.nova all take from
 * nova_compute_layout() / nova_layout_of_super().
 *
 * The includer provides, before this header: le16/32/64_to_cpu and
 * cpu_to_le16/32/64, memcpy/memset, ARRAY_SIZE, the EINVAL errno, and
 *   __u32 nova_crc32c_update(__u32 crc, const void *p, unsigned long len)
 *	CRC32C (Castagnoli, reflected) with no pre- or post-inversion, as
 *	the kernel's crc32c() (kernel: compat.h; tools: tools/nova_shim.h);
 *   __u64 nova_div_u64(__u64 a, __u64 b)
 *	64-bit division (div64_u64() in the kernel).
 */
#ifndef NOVA_LIB_H
#define NOVA_LIB_H

#include "nova_format.h"

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

/*
 * Offsets of an entry type's checksum, mutable fields and trans_id, -1
 * if none
 */
struct nova_entry_layout {
	int csum;
	int flag;	/* invalid (reassigned for write entries) */
	int pages;	/* invalid_pages of a write entry */
	int trans_id;
};

/* Every type but the write entry: e_csum, invalid and trans_id */
#define NOVA_ENTRY_LAYOUT(type)						\
	{ offsetof(type, e_csum), offsetof(type, invalid), -1,		\
	  offsetof(type, trans_id) }

static inline struct nova_entry_layout nova_entry_layout_of(__u8 type)
{
	static const struct nova_entry_layout none = { -1, -1, -1, -1 }, l[] = {
		[NOVA_FILE_WRITE] = {
			offsetof(struct nova_file_write_entry, e_csum),
			offsetof(struct nova_file_write_entry, reassigned),
			offsetof(struct nova_file_write_entry, invalid_pages),
			offsetof(struct nova_file_write_entry, trans_id),
		},
		[NOVA_DIR_LOG] = NOVA_ENTRY_LAYOUT(struct nova_dentry),
		[NOVA_SET_ATTR] = NOVA_ENTRY_LAYOUT(struct nova_setattr_entry),
		[NOVA_LINK_CHANGE] = NOVA_ENTRY_LAYOUT(struct nova_link_change_entry),
		[NOVA_MMAP_WRITE] = NOVA_ENTRY_LAYOUT(struct nova_mmap_entry),
		[NOVA_XATTR] = NOVA_ENTRY_LAYOUT(struct nova_xattr_entry),
	};

	/* a type without an entry has csum 0: never a checksum's place */
	return type < ARRAY_SIZE(l) && l[type].csum ? l[type] : none;
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

/*
 * The same for a new entry whose checksum and mutable fields are still
 * zero, as nova_entry_crc() takes them: one pass over its bytes, no copy
 * (the write path, once per write)
 */
static inline void nova_new_entry_csum(void *entry, size_t size)
{
	struct nova_entry_layout l = nova_entry_layout_of(*(__u8 *)entry);
	__le32 c;

	if (l.csum < 0 || size < (size_t)l.csum + 4)
		return;
	c = cpu_to_le32(~nova_crc32c_update(~0U, entry, size));
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

/*
 * Are a write entry's flags ones this version knows, and on a run of
 * blocks (a hole is never unwritten)?
 */
static inline int nova_write_flags_ok(const struct nova_file_write_entry *e)
{
	return !(e->flags & ~(NOVA_WRITE_UNWRITTEN | NOVA_WRITE_SHARED)) &&
	       (!e->flags || e->block);
}

static inline __u64 nova_entry_trans_id(const void *entry)
{
	int off = nova_entry_layout_of(*(const __u8 *)entry).trans_id;
	__le64 t;

	if (off < 0)
		return 0;
	memcpy(&t, (const __u8 *)entry + off, sizeof(t));
	return le64_to_cpu(t);
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
 * The casefold fields of a valid super block: NULL if they are
 * consistent, else what is wrong.  With INCOMPAT_CASEFOLD the encoding
 * must be one we know (UTF-8 12.1) and its flags known; without it both
 * are 0.  The module refuses to mount on any of these; fsck.nova
 * reports them (PR_SB_ENCODING).
 */
static inline const char *nova_check_encoding(const struct nova_super_block *s)
{
	__u16 enc = le16_to_cpu(s->s_encoding);
	__u16 flags = le16_to_cpu(s->s_encoding_flags);

	if (!(le64_to_cpu(s->s_feature_incompat) &
	      NOVA_FEATURE_INCOMPAT_CASEFOLD))
		return enc || flags ? "an encoding without the casefold feature" :
				      NULL;
	if (enc != NOVA_ENC_UTF8_12_1)
		return "unknown encoding";
	if (flags & ~NOVA_ENC_FLAGS_KNOWN)
		return "unknown encoding flags";
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

/*
 * The layout of an existing file system, from its super block (checked
 * by nova_check_super() first: the stripe count is at least 1).
 */
static inline void nova_layout_of_super(const struct nova_super_block *s,
					struct nova_layout *l)
{
	l->size = le64_to_cpu(s->s_size);
	l->num_blocks = le64_to_cpu(s->s_num_blocks);
	l->itable_block_size = le32_to_cpu(s->s_itable_block_size);
	l->itable_blocks = l->itable_block_size >> NOVA_BLOCK_SHIFT;
	l->journal_pages = le32_to_cpu(s->s_journal_pages);
	l->data_start = NOVA_HEAD_RESERVED_BLOCKS;
	l->data_end = l->num_blocks - NOVA_TAIL_RESERVED_BLOCKS - 1;
	l->data_blocks = l->data_end - l->data_start + 1;
	l->stripes = le32_to_cpu(s->s_stripes);
	l->stripe_blocks = nova_div_u64(l->data_blocks, l->stripes);
}

/* The stripe whose region holds block @blk of the dynamic area */
static inline unsigned int nova_stripe_of(const struct nova_layout *l,
					  __u64 blk)
{
	__u64 s = nova_div_u64(blk - l->data_start, l->stripe_blocks);

	return s >= l->stripes ? l->stripes - 1 : (unsigned int)s;
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

#endif /* NOVA_LIB_H */
