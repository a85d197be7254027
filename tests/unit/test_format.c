// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the on-pmem format header and the tools' super block
 * reader: CRC32C vectors, structure layout, super block validation, and
 * nova-probe on crafted image files.
 *
 * Prints "PASS name" / "FAIL name" per case and exits non-zero on failure.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../src/tools/nova_tools.h"
#include "check.h"

#define SIZE_64M (64ULL << 20)

static void make_super(struct nova_super_block *s, unsigned long long size)
{
	memset(s, 0, sizeof(*s));
	s->s_magic = cpu_to_le32(NOVA_SUPER_MAGIC);
	s->s_version = cpu_to_le32(NOVA_FORMAT_VERSION);
	s->s_blocksize = cpu_to_le32(NOVA_BLOCK_SIZE);
	s->s_size = cpu_to_le64(size);
	s->s_num_blocks = cpu_to_le64(size >> NOVA_BLOCK_SHIFT);
	s->s_stripes = cpu_to_le32(2);
	s->s_inode_size = cpu_to_le32(sizeof(struct nova_inode));
	s->s_itable_block_size = cpu_to_le32(NOVA_SMALL_ITABLE_SIZE);
	s->s_journal_pages = cpu_to_le32(1);
	memcpy(s->s_uuid, "\x01\x23\x45\x67\x89\xab\xcd\xef\x10\x32\x54\x76\x98\xba\xdc\xfe", 16);
	strcpy(s->s_label, "unit label");
	s->s_sum = cpu_to_le32(nova_sb_csum(s));
}

static void test_crc(void)
{
	CHECK("crc32c check value", nova_crc32c("123456789", 9) == 0xe3069283);
	CHECK("crc32c empty", nova_crc32c("", 0) == 0);
	CHECK("crc32c 32 zero bytes",
	      nova_crc32c((const char[32]){ 0 }, 32) == 0x8a9136aa);
}

static void test_layout(void)
{
	CHECK("super block is 512 bytes", sizeof(struct nova_super_block) == 512);
	CHECK("inode is 128 bytes", sizeof(struct nova_inode) == 128);
	CHECK("page tail at 4064", NOVA_LOG_LAST_ENTRY == 4064);
	CHECK("log_tail offset", offsetof(struct nova_inode, log_tail) == 80);
	CHECK("i_projid offset", offsetof(struct nova_inode, i_projid) == 104);
	CHECK("link-change projid offset",
	      offsetof(struct nova_link_change_entry, projid) == 28 &&
	      sizeof(struct nova_link_change_entry) == 48);
	CHECK("project feature is read-only compatible and known",
	      NOVA_FEATURE_RO_COMPAT_PROJECT == 2 &&
	      (NOVA_FEATURE_RO_COMPAT_SUPP & NOVA_FEATURE_RO_COMPAT_PROJECT));
	CHECK("project quota inode is reserved", NOVA_PRJQUOTA_INO == 6 &&
	      NOVA_PRJQUOTA_INO < NOVA_NORMAL_INODE_START);
	CHECK("FS_PROJINHERIT_FL kept",
	      (NOVA_FL_SUPPORTED & 0x20000000U) == 0x20000000U);
	CHECK("super s_uuid offset", offsetof(struct nova_super_block, s_uuid) == 32);
	CHECK("casefold feature is incompatible and known",
	      NOVA_FEATURE_INCOMPAT_CASEFOLD == 4 &&
	      (NOVA_FEATURE_INCOMPAT_SUPP & NOVA_FEATURE_INCOMPAT_CASEFOLD));
	CHECK("FS_CASEFOLD_FL kept",
	      (NOVA_FL_SUPPORTED & 0x40000000U) == 0x40000000U);
	CHECK("reflink feature is incompatible and known",
	      NOVA_FEATURE_INCOMPAT_REFLINK == 8 &&
	      (NOVA_FEATURE_INCOMPAT_SUPP & NOVA_FEATURE_INCOMPAT_REFLINK));
	CHECK("write entry flags: unwritten 1, shared 2",
	      NOVA_WRITE_UNWRITTEN == 1 && NOVA_WRITE_SHARED == 2);
	CHECK("write entry flags: shared (and unwritten) on a block accepted",
	      nova_write_flags_ok(&(struct nova_file_write_entry){
			.flags = NOVA_WRITE_SHARED, .block = cpu_to_le64(4096) }) &&
	      nova_write_flags_ok(&(struct nova_file_write_entry){
			.flags = NOVA_WRITE_SHARED | NOVA_WRITE_UNWRITTEN,
			.block = cpu_to_le64(4096) }));
	CHECK("write entry flags: shared on a hole, an unknown flag refused",
	      !nova_write_flags_ok(&(struct nova_file_write_entry){
			.flags = NOVA_WRITE_SHARED }) &&
	      !nova_write_flags_ok(&(struct nova_file_write_entry){
			.flags = 0x04, .block = cpu_to_le64(4096) }));
	CHECK("super s_encoding offset (test_casefold.sh reads it)",
	      offsetof(struct nova_super_block, s_encoding) == 192 &&
	      offsetof(struct nova_super_block, s_encoding_flags) == 194);
	CHECK("dentry name offset", offsetof(struct nova_dentry, name) == NOVA_DENTRY_HEADER);
	CHECK("dentry len of 1-byte name", NOVA_DENTRY_LEN(1) == 64);
	CHECK("dentry len of 255-byte name", NOVA_DENTRY_LEN(255) == 304);
	CHECK("max stripes", NOVA_MAX_STRIPES == 1024);
	CHECK("reserved inodes per block", NOVA_RESERVED_INODES == 32);
}

/* Deterministic entry bytes of @type */
static void fill_entry(unsigned char *b, size_t n, unsigned char type)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 37 + 11);
	b[0] = type;
}

/*
 * The checksum as the format defines it, computed the obvious way: a
 * copy of the whole entry with e_csum, the dead flag and invalid_pages
 * zeroed (what nova_entry_crc() did before it took entries of any size)
 */
static __u32 ref_entry_crc(const unsigned char *e, size_t n)
{
	struct nova_entry_layout l = nova_entry_layout_of(e[0]);
	static unsigned char b[NOVA_BLOCK_SIZE];

	if (l.csum < 0 || l.flag < 0 || n > sizeof(b))
		return 0;
	memcpy(b, e, n);
	memset(b + l.csum, 0, 4);
	b[l.flag] = 0;
	if (l.pages >= 0)
		memset(b + l.pages, 0, 4);
	return nova_crc32c(b, n);
}

static void test_entries(void)
{
	/* computed with the nova_format.h before NOVA_XATTR (77691e3~1) */
	static const struct { unsigned char type; size_t size; __u32 crc; } known[] = {
		{ NOVA_FILE_WRITE, 64, 0xac0d9ec9 },
		{ NOVA_DIR_LOG, 64, 0xc7cdbd8a },
		{ NOVA_DIR_LOG, 304, 0x54a85a43 },
		{ NOVA_SET_ATTR, 64, 0x737029b4 },
		{ NOVA_LINK_CHANGE, 48, 0x30a2c174 },
		{ NOVA_MMAP_WRITE, 64, 0x4a1717d3 },
	};
	unsigned char b[NOVA_BLOCK_SIZE];
	struct nova_xattr_entry *xe = (void *)b;
	char name[128];
	unsigned int i;
	bool ok;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		fill_entry(b, known[i].size, known[i].type);
		snprintf(name, sizeof(name),
			 "entry crc of type %u, %zu bytes: unchanged (0x%08x)",
			 known[i].type, known[i].size, known[i].crc);
		CHECK(name, nova_entry_crc(b, known[i].size) == known[i].crc &&
		      ref_entry_crc(b, known[i].size) == known[i].crc);
		/* a new entry: checksum and mutable fields still zero */
		{
			struct nova_entry_layout l = nova_entry_layout_of(b[0]);
			__le32 c;

			if (l.csum < 0 || l.flag < 0)
				continue;
			memset(b + l.csum, 0, 4);
			b[l.flag] = 0;
			if (l.pages >= 0)
				memset(b + l.pages, 0, 4);
			nova_new_entry_csum(b, known[i].size);
			memcpy(&c, b + l.csum, 4);
			snprintf(name, sizeof(name),
				 "new entry of type %u, %zu bytes: one-pass checksum as nova_entry_crc()",
				 known[i].type, known[i].size);
			CHECK(name, le32_to_cpu(c) == nova_entry_crc(b, known[i].size) &&
			      nova_entry_csum_ok(b, known[i].size));
		}
	}

	CHECK("xattr: header 48 bytes, data after it",
	      sizeof(struct nova_xattr_entry) == 48 &&
	      offsetof(struct nova_xattr_entry, data) == NOVA_XATTR_HEADER);
	CHECK("xattr: e_csum at 12, invalid at 3, trans_id at 40",
	      offsetof(struct nova_xattr_entry, e_csum) == 12 &&
	      offsetof(struct nova_xattr_entry, invalid) == 3 &&
	      offsetof(struct nova_xattr_entry, trans_id) == 40);
	CHECK("xattr: entries up to 2032 bytes, two fill a page",
	      NOVA_XATTR_ENTRY_MAX == 2032 &&
	      2 * NOVA_XATTR_ENTRY_MAX == NOVA_LOG_LAST_ENTRY);
	CHECK("xattr: part room 1984 without a name, 1729 after 255 bytes",
	      NOVA_XATTR_PART_ROOM(0) == 1984 && NOVA_XATTR_PART_ROOM(255) == 1729 &&
	      NOVA_XATTR_LEN(0, 1984) == 2032 && NOVA_XATTR_LEN(255, 1729) == 2032);
	CHECK("xattr: lengths rounded up to 16",
	      NOVA_XATTR_LEN(1, 0) == 64 && NOVA_XATTR_LEN(0, 0) == 48 &&
	      NOVA_XATTR_LEN(3, 14) == 80);

	memset(b, 0, sizeof(b));
	xe->entry_type = NOVA_XATTR;
	xe->name_len = 3;
	xe->part_len = cpu_to_le16(14);
	xe->xe_len = cpu_to_le16(NOVA_XATTR_LEN(3, 14));
	CHECK("xattr: nova_entry_size of a good entry",
	      nova_entry_size(b, 4000) == 80);
	CHECK("xattr: nova_entry_size with less than a header of room",
	      nova_entry_size(b, 47) == 0);
	xe->xe_len = cpu_to_le16(96);
	CHECK("xattr: nova_entry_size refuses an xe_len that does not match",
	      nova_entry_size(b, 4000) == 0);
	xe->name_len = 0;
	xe->part_len = cpu_to_le16(1985);
	xe->xe_len = cpu_to_le16(NOVA_XATTR_LEN(0, 1985));
	CHECK("xattr: nova_entry_size refuses more than NOVA_XATTR_ENTRY_MAX",
	      nova_entry_size(b, 4000) == 0);

	/* a whole 2032-byte entry: the data past the head is covered */
	fill_entry(b, NOVA_XATTR_ENTRY_MAX, NOVA_XATTR);
	CHECK("xattr: crc of 2032 bytes as the format defines it (0x40390d86)",
	      nova_entry_crc(b, NOVA_XATTR_ENTRY_MAX) ==
	      ref_entry_crc(b, NOVA_XATTR_ENTRY_MAX) &&
	      nova_entry_crc(b, NOVA_XATTR_ENTRY_MAX) == 0x40390d86);
	nova_entry_csum(b, NOVA_XATTR_ENTRY_MAX);
	ok = nova_entry_csum_ok(b, NOVA_XATTR_ENTRY_MAX);
	b[3] ^= 1;		/* the dead flag is outside the checksum */
	ok = ok && nova_entry_csum_ok(b, NOVA_XATTR_ENTRY_MAX) &&
	     nova_entry_is_invalid(b);
	CHECK("xattr: csum ok, the dead flag outside it", ok);
	b[NOVA_XATTR_ENTRY_MAX - 1] ^= 1;
	CHECK("xattr: the last value byte is inside it",
	      !nova_entry_csum_ok(b, NOVA_XATTR_ENTRY_MAX));
	b[NOVA_XATTR_ENTRY_MAX - 1] ^= 1;
	b[20] ^= 1;		/* ctime, in the head */
	CHECK("xattr: a head byte is inside it",
	      !nova_entry_csum_ok(b, NOVA_XATTR_ENTRY_MAX));
	b[20] ^= 1;
	xe->trans_id = cpu_to_le64(0x1122334455667788ULL);
	CHECK("xattr: its trans_id", nova_entry_trans_id(b) == 0x1122334455667788ULL);
}

static void test_check_super(void)
{
	struct nova_super_block s;

	make_super(&s, SIZE_64M);
	CHECK("valid super block accepted", nova_check_super(&s, SIZE_64M) == NULL);
	CHECK("larger device accepted", nova_check_super(&s, SIZE_64M * 2) == NULL);
	CHECK("smaller device refused", nova_check_super(&s, SIZE_64M - 4096) != NULL);

	make_super(&s, SIZE_64M);
	s.s_magic = cpu_to_le32(0x12345678);
	CHECK("bad magic refused",
	      !strcmp(nova_check_super(&s, SIZE_64M) ?: "", "bad magic number"));

	make_super(&s, SIZE_64M);
	s.s_label[3] ^= 1;
	CHECK("bad checksum refused",
	      !strcmp(nova_check_super(&s, SIZE_64M) ?: "", "bad checksum"));

	make_super(&s, SIZE_64M);
	s.s_version = cpu_to_le32(2 << 16);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("future major version refused", nova_check_super(&s, SIZE_64M) != NULL);

	make_super(&s, SIZE_64M);
	s.s_version = cpu_to_le32(NOVA_FORMAT_VERSION + 1);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("newer minor version accepted", nova_check_super(&s, SIZE_64M) == NULL);

	make_super(&s, SIZE_64M);
	s.s_stripes = 0;
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("zero stripes refused", nova_check_super(&s, SIZE_64M) != NULL);

	make_super(&s, SIZE_64M);
	s.s_num_blocks = cpu_to_le64(1);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("inconsistent block count refused", nova_check_super(&s, SIZE_64M) != NULL);

	make_super(&s, SIZE_64M);
	s.s_itable_block_size = cpu_to_le32(8192);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("bad inode table block size refused", nova_check_super(&s, SIZE_64M) != NULL);

	make_super(&s, SIZE_64M);
	s.s_feature_incompat = cpu_to_le64(NOVA_FEATURE_INCOMPAT_SUPP << 1);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("unknown incompat feature refused", nova_check_super(&s, SIZE_64M) != NULL);

	make_super(&s, SIZE_64M);
	s.s_feature_incompat = cpu_to_le64(NOVA_FEATURE_INCOMPAT_XATTR);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("xattr incompat feature accepted", nova_check_super(&s, SIZE_64M) == NULL);

	make_super(&s, SIZE_64M);
	s.s_feature_incompat = cpu_to_le64(NOVA_FEATURE_INCOMPAT_XATTR |
					   NOVA_FEATURE_INCOMPAT_ENCRYPT);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("encrypt incompat feature accepted", nova_check_super(&s, SIZE_64M) == NULL);
	s.s_feature_incompat = cpu_to_le64(NOVA_FEATURE_INCOMPAT_CASEFOLD);
	s.s_encoding = cpu_to_le16(NOVA_ENC_UTF8_12_1);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("casefold incompat feature accepted", nova_check_super(&s, SIZE_64M) == NULL);
	CHECK("casefold: its encoding accepted", nova_check_encoding(&s) == NULL);
	s.s_encoding = cpu_to_le16(2);
	CHECK("casefold: an unknown encoding refused", nova_check_encoding(&s) != NULL);
	s.s_encoding = cpu_to_le16(NOVA_ENC_UTF8_12_1);
	s.s_encoding_flags = cpu_to_le16(NOVA_ENC_STRICT_MODE_FL);
	CHECK("casefold: strict accepted", nova_check_encoding(&s) == NULL);
	s.s_encoding_flags = cpu_to_le16(0x2);
	CHECK("casefold: an unknown encoding flag refused", nova_check_encoding(&s) != NULL);
	s.s_feature_incompat = 0;
	CHECK("an encoding without casefold refused", nova_check_encoding(&s) != NULL);
	s.s_encoding = 0;
	s.s_encoding_flags = 0;
	CHECK("no casefold, no encoding: accepted", nova_check_encoding(&s) == NULL);
	s.s_feature_incompat = cpu_to_le64(NOVA_FEATURE_INCOMPAT_REFLINK);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("reflink incompat feature (0x8) accepted",
	      nova_check_super(&s, SIZE_64M) == NULL);
	s.s_feature_incompat = cpu_to_le64(0x10);
	s.s_sum = cpu_to_le32(nova_sb_csum(&s));
	CHECK("incompat feature 0x10 refused", nova_check_super(&s, SIZE_64M) != NULL);

	make_super(&s, NOVA_MIN_SIZE - 4096);
	CHECK("too small file system refused", nova_check_super(&s, SIZE_64M) != NULL);
}

/* nova_compute_layout(): hand-computed vectors of the kernel's arithmetic */
static void test_compute_layout(void)
{
	struct nova_layout l;
	__u64 s, e;

	CHECK("layout: below NOVA_MIN_SIZE refused",
	      nova_compute_layout(NOVA_MIN_SIZE - 1, 1, &l) == -EINVAL);
	CHECK("layout: zero CPUs refused",
	      nova_compute_layout(SIZE_64M, 0, &l) == -EINVAL);

	CHECK("layout: minimum size, 8 CPUs -> 3 stripes",
	      nova_compute_layout(NOVA_MIN_SIZE, 8, &l) == 0 &&
	      l.num_blocks == 322 && l.data_start == 64 && l.data_end == 319 &&
	      l.data_blocks == 256 && l.stripes == 3 && l.stripe_blocks == 85 &&
	      l.itable_block_size == 4096 && l.itable_blocks == 1 &&
	      l.journal_pages == 1);

	CHECK("layout: size rounded down to 4 KiB",
	      nova_compute_layout(SIZE_64M + 1000, 2, &l) == 0 &&
	      l.size == SIZE_64M && l.num_blocks == 16384);

	nova_compute_layout(SIZE_64M, 2, &l);
	CHECK("layout: 64 MiB, 2 stripes", l.stripes == 2 &&
	      l.stripe_blocks == 8159 && l.data_end == 16381);
	nova_stripe_region(&l, 0, &s, &e);
	CHECK("layout: 64 MiB region 0 is 64..8222", s == 64 && e == 8222);
	nova_stripe_region(&l, 1, &s, &e);
	CHECK("layout: 64 MiB region 1 is 8223..16381", s == 8223 && e == 16381);
	CHECK("layout: 64 MiB stripe 1 inode table 8223, journal 8224",
	      nova_stripe_itable_block(&l, 1) == 8223 &&
	      nova_stripe_journal_block(&l, 1) == 8224);

	CHECK("layout: 64 MiB, 1024 CPUs reduced to 226 stripes",
	      nova_compute_layout(SIZE_64M, 1024, &l) == 0 && l.stripes == 226);
	nova_stripe_region(&l, 225, &s, &e);
	CHECK("layout: last region takes the remainder",
	      s == 64 + 225 * 72 && e == 16381 && e - s + 1 == 118);

	CHECK("layout: 512 MiB - 4 KiB uses 4 KiB inode table blocks",
	      nova_compute_layout((512ULL << 20) - 4096, 1, &l) == 0 &&
	      l.itable_block_size == NOVA_SMALL_ITABLE_SIZE && l.stripes == 1);
	CHECK("layout: 512 MiB uses 2 MiB inode table blocks",
	      nova_compute_layout(512ULL << 20, 1, &l) == 0 &&
	      l.itable_block_size == NOVA_LARGE_ITABLE_SIZE &&
	      l.itable_blocks == 512);
	CHECK("layout: 512 MiB, 1024 CPUs reduced to 61 stripes",
	      nova_compute_layout(512ULL << 20, 1024, &l) == 0 && l.stripes == 61);

	nova_compute_layout(1ULL << 30, 3, &l);
	CHECK("layout: 1 GiB, 3 stripes of 87359 blocks",
	      l.stripes == 3 && l.stripe_blocks == 87359 && l.data_end == 262141);
	CHECK("layout: 1 GiB stripe 2 inode table 174782, journal 175294",
	      nova_stripe_itable_block(&l, 2) == 174782 &&
	      nova_stripe_journal_block(&l, 2) == 175294);
	CHECK("layout: 1 GiB, 1024 CPUs reduced to 123 stripes",
	      nova_compute_layout(1ULL << 30, 1024, &l) == 0 && l.stripes == 123);
	CHECK("layout: 1 TiB, 5000 CPUs capped at NOVA_MAX_STRIPES",
	      nova_compute_layout(1ULL << 40, 5000, &l) == 0 &&
	      l.stripes == NOVA_MAX_STRIPES && l.stripe_blocks == 262143);
}

/* Offsets nova_replica_next() gives, into @out (at most @max) */
static unsigned int candidates(unsigned long long psize, unsigned long long dev,
			       int scan, __u64 *out, unsigned int max,
			       __u64 *scanned)
{
	struct nova_super_block p;
	struct nova_replica_iter it;
	unsigned int n = 0;
	__u64 off;

	make_super(&p, psize);
	nova_replica_iter_init(&it, &p, dev, scan);
	while ((off = nova_replica_next(&it)))
		if (n < max)
			out[n++] = off;
		else
			n++;
	*scanned = it.scanned;
	return n;
}

/* nova_lib.h: the order of the replica search, and what it accepts */
static void test_replica_search(void)
{
	const __u64 lowest = NOVA_MIN_SIZE - 4096;
	struct nova_super_block s;
	struct nova_inode root;
	__u64 c[8], scanned, dev = 2 * SIZE_64M + 1000, last = 2 * SIZE_64M - 4096;
	unsigned int n;
	int ok;

	n = candidates(SIZE_64M, dev, 0, c, 8, &scanned);
	CHECK("replica search: the primary's size first, then the device's end",
	      n == 2 && c[0] == SIZE_64M - 4096 && c[1] == last && !scanned);
	n = candidates(2 * SIZE_64M, dev, 0, c, 8, &scanned);
	CHECK("replica search: a full-device file system: the device's end only",
	      n == 1 && c[0] == last);
	n = candidates(SIZE_64M + 100, dev, 0, c, 8, &scanned);
	CHECK("replica search: an unaligned size is no hint",
	      n == 1 && c[0] == last);
	n = candidates(4 * SIZE_64M, dev, 0, c, 8, &scanned);
	CHECK("replica search: a size beyond the device is no hint",
	      n == 1 && c[0] == last);
	n = candidates(NOVA_MIN_SIZE - 4096, dev, 0, c, 8, &scanned);
	CHECK("replica search: a size below the minimum is no hint",
	      n == 1 && c[0] == last);
	n = candidates(SIZE_64M, dev, 1, c, 8, &scanned);
	CHECK("replica search: the scan covers every other block down to the smallest file system's end",
	      n == (last - lowest) / 4096 + 1 && scanned == n - 2 &&
	      c[0] == SIZE_64M - 4096 && c[1] == last && c[2] == last - 4096 &&
	      c[3] == last - 8192);
	{
		struct nova_super_block p;
		struct nova_replica_iter it;
		__u64 off, prev = last + 4096, low = ~0ULL;

		make_super(&p, SIZE_64M);
		nova_replica_iter_init(&it, &p, dev, 1);
		nova_replica_next(&it);
		nova_replica_next(&it);
		ok = 1;
		while ((off = nova_replica_next(&it))) {
			ok &= off < prev && off != SIZE_64M - 4096 &&
			      !(off & 4095);
			prev = off;
			low = off;
		}
		CHECK("replica search: the scan goes down, skips the hint, ends at NOVA_MIN_SIZE - 4096",
		      ok && low == lowest);
	}
	n = candidates(SIZE_64M, NOVA_MIN_SIZE, 1, c, 8, &scanned);
	CHECK("replica search: the smallest device: one candidate",
	      n == 1 && c[0] == lowest);
	n = candidates(SIZE_64M, NOVA_MIN_SIZE - 1, 1, c, 8, &scanned);
	CHECK("replica search: a device below the minimum: no candidate", n == 0);
	n = candidates(SIZE_64M, 100, 1, c, 8, &scanned);
	CHECK("replica search: a device below one block: no candidate", n == 0);

	make_super(&s, SIZE_64M);
	CHECK("replica accepted in its file system's last block",
	      nova_check_replica(&s, SIZE_64M - 4096, dev) == NULL);
	CHECK("replica refused anywhere else",
	      nova_check_replica(&s, last, dev) != NULL &&
	      nova_check_replica(&s, SIZE_64M - 8192, dev) != NULL);
	s.s_label[0] ^= 1;
	CHECK("replica with a bad checksum refused",
	      nova_check_replica(&s, SIZE_64M - 4096, dev) != NULL);

	memset(&s, 0, sizeof(s));
	memset(&root, 0, sizeof(root));
	CHECK("nothing shows NOVA on a zeroed device", !nova_shows_nova(&s, &root) &&
	      !nova_shows_nova(&s, NULL));
	s.s_magic = cpu_to_le32(NOVA_SUPER_MAGIC);
	CHECK("the magic number shows NOVA", nova_shows_nova(&s, NULL));
	s.s_magic = 0;
	root.i_valid = NOVA_INODE_VALID;
	root.i_ino = cpu_to_le64(NOVA_ROOT_INO);
	root.i_mode = cpu_to_le16(040755);
	CHECK("the root inode shows NOVA", nova_shows_nova(&s, &root));
	root.i_mode = cpu_to_le16(0100644);
	CHECK("a root inode that is no directory does not",
	      !nova_shows_nova(&s, &root));
}

/* An image of @size bytes with the replica @r in block @rblock (0: last) */
static int write_image_at(const char *path, const struct nova_super_block *p,
			  const struct nova_super_block *r,
			  unsigned long long size, unsigned long long rblock)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	off_t roff = rblock ? rblock * 4096 : size - 4096;

	if (fd < 0 || ftruncate(fd, size))
		return -1;
	if (p && pwrite(fd, p, sizeof(*p), 0) != sizeof(*p))
		return -1;
	if (r && pwrite(fd, r, sizeof(*r), roff) != sizeof(*r))
		return -1;
	return close(fd);
}

static int write_image(const char *path, const struct nova_super_block *p,
		       const struct nova_super_block *r, unsigned long long size)
{
	return write_image_at(path, p, r, size, 0);
}

static int run_probe(const char *probe, const char *img, char *out, size_t len)
{
	char cmd[4096];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", probe, img);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_probe(const char *probe)
{
	char img[] = "/tmp/nova-unit-XXXXXX", out[4096];
	struct nova_super_block s, bad;
	int fd = mkstemp(img);

	close(fd);
	make_super(&s, SIZE_64M);
	memset(&bad, 0x5a, sizeof(bad));

	CHECK("image written", write_image(img, &s, &s, SIZE_64M) == 0);
	CHECK("probe finds NOVA", run_probe(probe, img, out, sizeof(out)) == 0);
	CHECK("probe prints type", strstr(out, "ID_FS_TYPE=NOVA\n") != NULL);
	CHECK("probe prints uuid",
	      strstr(out, "ID_FS_UUID=01234567-89ab-cdef-1032-547698badcfe\n") != NULL);
	CHECK("probe escapes label", strstr(out, "ID_FS_LABEL=unit_label\n") &&
	      strstr(out, "ID_FS_LABEL_ENC=unit\\x20label\n"));
	CHECK("probe prints version", strstr(out, "ID_FS_VERSION=1.0\n") != NULL);

	write_image(img, &bad, &s, SIZE_64M);
	CHECK("probe falls back to replica",
	      run_probe(probe, img, out, sizeof(out)) == 0 &&
	      strstr(out, "ID_FS_TYPE=NOVA\n"));

	write_image(img, &bad, &bad, SIZE_64M);
	CHECK("probe: garbage is not NOVA (exit 2)",
	      run_probe(probe, img, out, sizeof(out)) == 2 && out[0] == '\0');

	write_image(img, NULL, NULL, SIZE_64M);
	CHECK("probe: zeroed image is not NOVA (exit 2)",
	      run_probe(probe, img, out, sizeof(out)) == 2);

	/* a 64 MiB file system on a 128 MiB image */
	write_image_at(img, &s, &s, 2 * SIZE_64M, SIZE_64M / 4096 - 1);
	CHECK("probe: a file system smaller than its device",
	      run_probe(probe, img, out, sizeof(out)) == 0 &&
	      strstr(out, "ID_FS_TYPE=NOVA\n"));
	{
		struct nova_super_block torn = s;

		torn.s_label[0] ^= 1;	/* checksum bad, size intact */
		write_image_at(img, &torn, &s, 2 * SIZE_64M, SIZE_64M / 4096 - 1);
		CHECK("probe: smaller file system, bad primary checksum: the replica its size names",
		      run_probe(probe, img, out, sizeof(out)) == 0 &&
		      strstr(out, "ID_FS_TYPE=NOVA\n"));
	}
	write_image_at(img, &bad, &s, 2 * SIZE_64M, SIZE_64M / 4096 - 1);
	CHECK("probe: smaller file system, garbage primary: no scan (exit 2)",
	      run_probe(probe, img, out, sizeof(out)) == 2);
	/* a stale 128 MiB replica at the end is not the 64 MiB one */
	write_image_at(img, &bad, &s, 2 * SIZE_64M, 2 * SIZE_64M / 4096 - 1);
	CHECK("probe: a replica not at its file system's end is refused (exit 2)",
	      run_probe(probe, img, out, sizeof(out)) == 2);

	CHECK("probe: missing file is an operational error (exit 8)",
	      run_probe(probe, "/nonexistent/nova.img", out, sizeof(out)) == 8);
	unlink(img);
}

/* nova_safe_str(): names from an image printed as e2fsck prints them */
static void test_safe_str(void)
{
	char b[64];

	CHECK("safe_str: printable ASCII unchanged",
	      !strcmp(nova_safe_str(b, sizeof(b), "a-Z ~'\"\\^", 9), "a-Z ~'\"\\^"));
	CHECK("safe_str: ESC, newline, tab, BEL as ^X",
	      !strcmp(nova_safe_str(b, sizeof(b), "\033[31m\n\t\a", 8), "^[[31m^J^I^G"));
	CHECK("safe_str: DEL as ^?, NUL as ^@ (the length counts, not the NUL)",
	      !strcmp(nova_safe_str(b, sizeof(b), "\x7f\0x", 3), "^?^@x"));
	CHECK("safe_str: 8-bit bytes as M- (0x80, 0x9b, 0xc3 0xa9, 0xff)",
	      !strcmp(nova_safe_str(b, sizeof(b), "\x80\x9b\xc3\xa9\xff", 5),
		      "M-^@M-^[M-CM-)M-^?"));
	CHECK("safe_str: only @len bytes", !strcmp(nova_safe_str(b, sizeof(b), "abc", 2), "ab"));
	CHECK("safe_str: empty", !strcmp(nova_safe_str(b, sizeof(b), "abc", 0), ""));
	/* cut where it does not fit, never inside a byte's form */
	CHECK("safe_str: cut before a form that does not fit",
	      !strcmp(nova_safe_str(b, 6, "ab\x9b", 3), "ab"));
	CHECK("safe_str: a form that just fits",
	      !strcmp(nova_safe_str(b, 7, "ab\x9b", 3), "abM-^["));
	CHECK("safe_str: a 1-byte buffer holds the NUL",
	      !strcmp(nova_safe_str(b, 1, "\033", 1), ""));
	memset(b, 'z', sizeof(b));
	nova_safe_str(b, 0, "x", 1);
	CHECK("safe_str: a 0-byte buffer is not written", b[0] == 'z');
	{
		char all[256], out[NOVA_SAFE_SIZE(256)];
		size_t i, bad = 0;

		for (i = 0; i < 256; i++)
			all[i] = (char)i;
		nova_safe_str(out, sizeof(out), all, 256);
		for (i = 0; out[i]; i++)
			bad += (unsigned char)out[i] < 0x20 || (unsigned char)out[i] >= 0x7f;
		CHECK("safe_str: every byte value: printable ASCII out, NOVA_SAFE_SIZE holds it",
		      !bad && strlen(out) == 32 * 2 + 95 + 2 + 32 * 4 + 95 * 3 + 4);
	}
}

int main(int argc, char **argv)
{
	test_crc();
	test_layout();
	test_entries();
	test_check_super();
	test_compute_layout();
	test_replica_search();
	test_safe_str();
	test_probe(argc > 1 ? argv[1] : "../../src/tools/nova-probe");
	return check_done("format");
}
