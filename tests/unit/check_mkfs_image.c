// SPDX-License-Identifier: GPL-2.0
/*
 * check_mkfs_image: verify, block by block, that an image holds exactly
 * what a fresh NOVA format (kernel nova_format() or mkfs.nova) writes.
 *
 *   check_mkfs_image [-t tag] [-s stripes] [-u uuid] [-l label]
 *                    [-o uid:gid] [-m mode] [-p byte] [-z bytes] image
 *
 * -p byte: the image was filled with this byte before mkfs; every block
 * that format must not write (and the bytes past the last whole block)
 * must still hold it.  -z bytes: the file system was made with that
 * fs-size (default: the whole image); nothing after it may be written.  Prints "PASS tag: check" / "FAIL tag: check" per
 * check; exits 1 if any failed, 2 on usage or I/O errors.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../src/tools/nova_tools.h"

static const char *tag = "image";
static int failed;

static void check(const char *what, int ok)
{
	printf("%s %s: %s\n", ok ? "PASS" : "FAIL", tag, what);
	if (!ok)
		failed = 1;
}

static int all_bytes(const void *p, size_t len, unsigned char c)
{
	const unsigned char *b = p;

	while (len--)
		if (*b++ != c)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	const char *want_uuid = NULL, *want_label = NULL;
	unsigned int want_stripes = 0, want_mode = 0755, want_uid = 0, want_gid = 0;
	int pattern = -1, opt, fd, ok;
	struct nova_super_block *sb;
	struct nova_layout l;
	struct nova_inode *ri, *root;
	unsigned char *img;
	unsigned char *marks;	/* blocks format writes */
	struct stat st;
	__u64 size, fs_size = 0, n, b, i;
	char uuid[37], label[NOVA_LABEL_LEN + 1];
	const char *why;

	while ((opt = getopt(argc, argv, "t:s:u:l:o:m:p:z:")) != -1) {
		switch (opt) {
		case 't': tag = optarg; break;
		case 's': want_stripes = strtoul(optarg, NULL, 0); break;
		case 'u': want_uuid = optarg; break;
		case 'l': want_label = optarg; break;
		case 'o':
			if (sscanf(optarg, "%u:%u", &want_uid, &want_gid) != 2)
				return 2;
			break;
		case 'm': want_mode = strtoul(optarg, NULL, 8); break;
		case 'p': pattern = strtol(optarg, NULL, 0) & 0xff; break;
		case 'z': fs_size = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-t tag] [-s stripes] [-u uuid] [-l label] [-o uid:gid] [-m mode] [-p byte] [-z bytes] image\n",
				argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1)
		return 2;
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[optind]);
		return 2;
	}
	size = st.st_size;
	if (size < NOVA_MIN_SIZE) {
		check("image at least NOVA_MIN_SIZE", 0);
		return 1;
	}
	/* mapped, not read: holes of a sparse image cost nothing */
	img = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (img == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	close(fd);
	if (!fs_size)
		fs_size = size & ~(__u64)(NOVA_BLOCK_SIZE - 1);

	/* super blocks */
	sb = (struct nova_super_block *)img;
	why = nova_check_super(sb, size);
	check(why ? why : "primary super block valid (nova_check_super)", !why);
	if (why)
		return 1;
	n = le64_to_cpu(sb->s_num_blocks);
	check("s_size is the fs-size, or the image size rounded down to 4 KiB",
	      le64_to_cpu(sb->s_size) == fs_size);
	check("rest of block 0 is zero",
	      all_bytes(img + sizeof(*sb), NOVA_BLOCK_SIZE - sizeof(*sb), 0));
	check("replica super block (block n-1) identical to block 0",
	      !memcmp(img, img + (n - 1) * NOVA_BLOCK_SIZE, NOVA_BLOCK_SIZE));
	check("s_version", le32_to_cpu(sb->s_version) == NOVA_FORMAT_VERSION);
	check("s_state is 0", sb->s_state == 0);
	check("s_journal_pages is 1", le32_to_cpu(sb->s_journal_pages) == 1);
	check("no features", !sb->s_feature_compat && !sb->s_feature_ro_compat &&
	      !sb->s_feature_incompat);
	check("mount time, count, epoch are 0", !sb->s_mount_time &&
	      !sb->s_mount_count && !sb->s_epoch_id);
	check("mkfs time set, write time not before it", sb->s_mkfs_time &&
	      le64_to_cpu(sb->s_write_time) >= le64_to_cpu(sb->s_mkfs_time));
	check("s_reserved is zero",
	      all_bytes(sb->s_reserved, sizeof(sb->s_reserved), 0));

	nova_uuid_str(sb->s_uuid, uuid);
	if (want_uuid)
		check("uuid as requested", !strcasecmp(uuid, want_uuid));
	memcpy(label, sb->s_label, NOVA_LABEL_LEN);
	label[NOVA_LABEL_LEN] = '\0';
	check("label NUL-padded", all_bytes(sb->s_label + strlen(label),
					    NOVA_LABEL_LEN - strlen(label), 0));
	check("label as requested", !strcmp(label, want_label ? want_label : ""));

	/* the layout: what nova_compute_layout() gives for this stripe count */
	ok = nova_compute_layout(fs_size, le32_to_cpu(sb->s_stripes), &l) == 0;
	check("layout computable", ok);
	if (!ok)
		return 1;
	check("stripe count is one the kernel would choose (not reduced)",
	      l.stripes == le32_to_cpu(sb->s_stripes));
	if (want_stripes)
		check("stripe count as requested", l.stripes == want_stripes);
	check("inode table block size follows the 512 MiB threshold",
	      l.itable_block_size == le32_to_cpu(sb->s_itable_block_size) &&
	      l.itable_block_size == (fs_size >= (512ULL << 20) ? 2U << 20 : 4096U));
	check("num_blocks", l.num_blocks == n);

	/* reserved inodes and their replica */
	ri = (struct nova_inode *)(img + NOVA_RESERVED_INODE_BLOCK * NOVA_BLOCK_SIZE);
	root = &ri[NOVA_ROOT_INO];
	check("reserved inode block replica (block n-2) identical to block 1",
	      !memcmp(ri, img + (n - 2) * NOVA_BLOCK_SIZE, NOVA_BLOCK_SIZE));
	ok = all_bytes(&ri[0], sizeof(*ri), 0);
	for (i = 2; i < NOVA_RESERVED_INODES; i++)
		ok &= all_bytes(&ri[i], sizeof(*ri), 0);
	check("reserved inodes other than the root are zero", ok);
	check("root i_valid", root->i_valid == NOVA_INODE_VALID);
	check("root i_ino", le64_to_cpu(root->i_ino) == NOVA_ROOT_INO);
	check("root i_mode", le16_to_cpu(root->i_mode) == (S_IFDIR | want_mode));
	check("root owner", le32_to_cpu(root->i_uid) == want_uid &&
	      le32_to_cpu(root->i_gid) == want_gid);
	check("root i_links_count 2", le32_to_cpu(root->i_links_count) == 2);
	check("root i_size 4096", le64_to_cpu(root->i_size) == NOVA_BLOCK_SIZE);
	check("root times equal and set", root->i_ctime &&
	      root->i_ctime == root->i_mtime && root->i_ctime == root->i_atime &&
	      root->i_ctime == root->i_btime);
	check("root has no log", !root->log_head && !root->log_tail);
	check("root other fields zero", !root->i_deleted && !root->i_blk_type &&
	      !root->i_pad0 && !root->i_flags && !root->i_pad1 &&
	      !root->i_generation && !root->i_rdev && !root->i_create_epoch &&
	      !root->i_pad2 &&
	      all_bytes(root->i_reserved, sizeof(root->i_reserved), 0));
	check("root project ID 0", !root->i_projid);

	/* fixed reserved blocks */
	check("blocks 2-15 zero", all_bytes(img + 2 * NOVA_BLOCK_SIZE,
					    14 * NOVA_BLOCK_SIZE, 0));
	check("blocks 48-63 zero", all_bytes(img + 48 * NOVA_BLOCK_SIZE,
					     16 * NOVA_BLOCK_SIZE, 0));

	/* per-stripe inode tables and journals */
	marks = calloc(n, 1);
	if (!marks)
		return 2;
	for (b = 0; b < NOVA_HEAD_RESERVED_BLOCKS; b++)
		marks[b] = 1;
	marks[n - 2] = marks[n - 1] = 1;
	{
		int ptr_ok = 1, in_region = 1, first = 1, zeroed = 1, unused = 1;

		for (i = 0; i < NOVA_MAX_STRIPES; i++) {
			struct nova_inode_table *it = (void *)(img +
				NOVA_INODE_TABLE_BLOCK * NOVA_BLOCK_SIZE +
				i * NOVA_CACHELINE);
			struct nova_journal_ptr *jp = (void *)(img +
				NOVA_JOURNAL_PTR_BLOCK * NOVA_BLOCK_SIZE +
				i * NOVA_CACHELINE);
			__u64 start, end, itab, jblk;

			if (i >= l.stripes) {
				unused &= all_bytes(it, sizeof(*it), 0) &&
					  all_bytes(jp, sizeof(*jp), 0);
				continue;
			}
			nova_stripe_region(&l, i, &start, &end);
			itab = le64_to_cpu(it->log_head) >> NOVA_BLOCK_SHIFT;
			jblk = le64_to_cpu(jp->journal_head) >> NOVA_BLOCK_SHIFT;
			ptr_ok &= all_bytes(it->pad, sizeof(it->pad), 0) &&
				  all_bytes(jp->pad, sizeof(jp->pad), 0) &&
				  jp->journal_head == jp->journal_tail &&
				  !(le64_to_cpu(it->log_head) & (NOVA_BLOCK_SIZE - 1)) &&
				  !(le64_to_cpu(jp->journal_head) & (NOVA_BLOCK_SIZE - 1));
			in_region &= itab >= start &&
				     itab + l.itable_blocks - 1 <= end &&
				     jblk >= start && jblk + l.journal_pages - 1 <= end;
			first &= itab == start && jblk == start + l.itable_blocks &&
				 itab == nova_stripe_itable_block(&l, i) &&
				 jblk == nova_stripe_journal_block(&l, i);
			if (itab + l.itable_blocks + 1 > n || jblk + 1 > n) {
				in_region = 0;
				continue;
			}
			zeroed &= all_bytes(img + itab * NOVA_BLOCK_SIZE,
					    (size_t)l.itable_blocks * NOVA_BLOCK_SIZE, 0) &&
				  all_bytes(img + jblk * NOVA_BLOCK_SIZE,
					    (size_t)l.journal_pages * NOVA_BLOCK_SIZE, 0);
			for (b = 0; b < l.itable_blocks; b++)
				marks[itab + b] = 1;
			for (b = 0; b < l.journal_pages; b++)
				marks[jblk + b] = 1;
		}
		check("inode table and journal pointers well formed (head == tail)",
		      ptr_ok);
		check("inode table and journal page inside the stripe's region",
		      in_region);
		check("inode table at the region start, journal page right after",
		      first);
		check("inode table blocks and journal pages zeroed", zeroed);
		check("pointer lines of unused stripes zero", unused);
	}
	/* regions cover the dynamic area exactly, in order */
	{
		__u64 prev = l.data_start - 1, start, end;
		int cover = 1;

		for (i = 0; i < l.stripes; i++) {
			nova_stripe_region(&l, i, &start, &end);
			cover &= start == prev + 1 && end >= start;
			prev = end;
		}
		check("stripe regions tile blocks 64..n-3", cover &&
		      prev == n - NOVA_TAIL_RESERVED_BLOCKS - 1);
	}
	if (pattern >= 0) {
		int untouched = 1;

		for (b = 0; b < n && untouched; b++)
			if (!marks[b])
				untouched = all_bytes(img + b * NOVA_BLOCK_SIZE,
						      NOVA_BLOCK_SIZE, pattern);
		check("no other block written", untouched);
		check("bytes past the file system's last block untouched",
		      all_bytes(img + n * NOVA_BLOCK_SIZE,
				size - n * NOVA_BLOCK_SIZE, pattern));
	}
	free(marks);
	munmap(img, size);
	return failed;
}
