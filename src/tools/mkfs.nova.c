// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs.nova: create a NOVA file system on a pmem block device or an image
 * file.
 *
 *   mkfs.nova [-L label] [-U uuid|random|clear|time] [-c stripes]
 *             [-O [^]casefold] [-E root_owner[=uid:gid],root_perms=mode,
 *             encoding=utf8|utf8-12.1,encoding_flags=strict] [-d dir]
 *             [-f] [-n] [-q] [-V] device|image [fs-size]
 *
 * -O casefold (as mke2fs) sets NOVA_FEATURE_INCOMPAT_CASEFOLD and the
 * encoding UTF-8 12.1, which case-insensitive directories (chattr +F)
 * use; -E encoding= also sets the feature, -E encoding_flags=strict
 * refuses names that are not valid UTF-8 in them.
 *
 * fs-size (as mke2fs has it) makes a file system smaller than the device:
 * a number of 4 KiB blocks, or of bytes with a k, m, g or t suffix.  The
 * file system then starts at the device's start and ends at fs-size, its
 * replica super block in its own last block; the rest of the device is
 * not used.
 *
 * It writes exactly what the kernel's "mount -o init" (nova_format() in
 * super.c) writes, block for block; only the UUID, the label, the root
 * inode's owner and mode (when asked) and the time stamps differ.  The
 * layout comes from nova_compute_layout() in nova_lib.h, which the
 * kernel uses too.  Ordering, as in the kernel: both super blocks are
 * invalidated first, then every other structure is written and made
 * durable, then the primary super block and finally the replica, so an
 * interrupted mkfs leaves no valid NOVA super block behind.
 *
 * -d DIR (as mke2fs -d) copies a host directory tree into the new file
 * system before the super block is written (nova_populate.c): the image
 * then holds what the kernel would have written for the same mkdir,
 * create, symlink, mknod, link, write and setxattr calls (and the super
 * block gets NOVA_FEATURE_INCOMPAT_XATTR if any xattr was copied).
 *
 * Exit status (as mke2fs): 0 success, 1 usage or operational error
 * (including refusing to overwrite an existing file system without -f).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <blkid/blkid.h>
#include <uuid/uuid.h>
#include "nova_tools.h"
#include "libnova.h"
#include "nova_populate.h"

#ifndef NOVA_VERSION
#define NOVA_VERSION "unknown"
#endif

#define EXIT_OK		0
#define EXIT_ERR	1

static const char *prog = "mkfs.nova";

struct opts {
	const char *device;
	const char *label;
	const char *uuid_arg;
	const char *populate;		/* -d: source directory */
	const char *fs_size_arg;	/* fs-size as given, NULL: the device's */
	__u64 fs_size;			/* its bytes, rounded down to a block */
	bool root_owner_set, root_perms_set;
	unsigned int stripes;		/* 0: one per online CPU */
	__u32 root_uid, root_gid;
	unsigned int root_mode;
	bool force, dry_run, quiet;
	bool casefold;			/* -O casefold, or -E encoding= */
	int casefold_opt;		/* -O: 1 casefold, 0 ^casefold, -1 none */
	bool encoding;			/* -E encoding= */
	const char *encoding_flags;	/* -E encoding_flags= as given */
	__u16 enc_flags;		/* NOVA_ENC_*_FL */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-L label] [-U uuid|random|clear|time] [-c stripes]\n"
		"       [-O features] [-E extended-options] [-d directory]\n"
		"       [-f] [-n] [-q] [-V] device|image [fs-size]\n"
		"\n"
		"  fs-size      make the file system smaller than the device:\n"
		"               4 KiB blocks, or bytes with a k, m, g or t suffix\n"
		"  -L label     file system label (at most %d bytes)\n"
		"  -U uuid      UUID, or random (default), clear, time\n"
		"  -c stripes   number of per-CPU stripes (1-%u; default: one\n"
		"               per online CPU, fewer on small devices)\n"
		"  -O features  casefold (case-insensitive directories, chattr +F)\n"
		"  -E opts      root_owner[=uid:gid], root_perms=mode,\n"
		"               encoding=utf8|utf8-12.1, encoding_flags=strict\n"
		"  -d dir       copy the files and directories under dir into\n"
		"               the new file system\n"
		"  -f           overwrite an existing file system or partition table\n"
		"  -n           show what would be done, write nothing\n"
		"  -q           quiet\n"
		"  -V           print the version and exit\n",
		prog, NOVA_LABEL_LEN, (unsigned int)NOVA_MAX_STRIPES);
}

static void __printf(1, 2) err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	nova_vwarn(prog, NULL, fmt, ap);
	va_end(ap);
}

static bool parse_u32(const char *s, int base, __u32 *out)
{
	unsigned long v;
	char *end;

	if (!*s || !(isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || *end || v > UINT_MAX)
		return false;
	*out = (__u32)v;
	return true;
}

/*
 * fs-size as mke2fs reads it: a decimal number of 4 KiB blocks, or of
 * bytes with a k, m, g or t suffix (either case), rounded down to a
 * block.  False if @s is not such a number or the size overflows.
 */
static bool parse_fs_size(const char *s, __u64 *out)
{
	static const char units[] = "kmgt";	/* 2^10, 2^20, ... bytes */
	unsigned long long v;
	unsigned int shift;
	const char *u;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || (*end && end[1]))
		return false;
	u = strchr(units, tolower((unsigned char)*end));
	if (!*end)
		shift = NOVA_BLOCK_SHIFT;
	else if (u)
		shift = 10 * (unsigned int)(u - units + 1);
	else
		return false;
	if (v > ~0ULL >> shift)
		return false;
	*out = ((__u64)v << shift) & ~(__u64)(NOVA_BLOCK_SIZE - 1);
	return true;
}

/* -E root_owner[=uid:gid],root_perms=mode */
static int parse_extended(char *arg, struct opts *o)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		if (val)
			*val++ = '\0';
		if (!strcmp(tok, "root_owner")) {
			char *colon;

			o->root_owner_set = true;
			if (!val) {
				o->root_uid = getuid();
				o->root_gid = getgid();
				continue;
			}
			colon = strchr(val, ':');
			if (!colon) {
				err("root_owner: expected uid:gid, got '%s'", val);
				return -1;
			}
			*colon = '\0';
			if (!parse_u32(val, 10, &o->root_uid) ||
			    !parse_u32(colon + 1, 10, &o->root_gid) ||
			    o->root_uid == (__u32)-1 || o->root_gid == (__u32)-1) {
				err("root_owner: invalid uid:gid '%s:%s'", val,
				    colon + 1);
				return -1;
			}
		} else if (!strcmp(tok, "root_perms")) {
			__u32 mode;

			if (!val || !parse_u32(val, 8, &mode) || mode & ~07777) {
				err("root_perms: invalid mode '%s'", val ? val : "");
				return -1;
			}
			o->root_mode = mode;
			o->root_perms_set = true;
		} else if (!strcmp(tok, "encoding")) {
			/* as mke2fs: an encoding turns casefold on */
			if (!val || (strcmp(val, "utf8") &&
				     strcmp(val, "utf8-12.1"))) {
				err("Invalid encoding: %s", val ? val : "");
				return -1;
			}
			o->encoding = true;
		} else if (!strcmp(tok, "encoding_flags")) {
			if (!val || strcmp(val, "strict")) {
				err("Invalid encoding flag: %s", val ? val : "");
				return -1;
			}
			o->encoding_flags = val;
			o->enc_flags = NOVA_ENC_STRICT_MODE_FL;
		} else {
			err("unknown extended option '%s'\n\n"
			    "Extended options are separated by commas:\n"
			    "\troot_owner[=uid:gid]\n"
			    "\troot_perms=mode (octal)\n"
			    "\tencoding=utf8|utf8-12.1\n"
			    "\tencoding_flags=strict", tok);
			return -1;
		}
	}
	return 0;
}

/* -O feature[,...]: casefold, or ^casefold to leave it off (as mke2fs) */
static int parse_features(char *arg, struct opts *o)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(arg, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		bool off = *tok == '^';

		if (strcmp(tok + off, "casefold")) {
			err("Invalid filesystem option set: %s", tok);
			return -1;
		}
		o->casefold_opt = !off;
	}
	return 0;
}

static int get_uuid(const char *arg, __u8 uuid[16])
{
	uuid_t u;

	if (!arg || !strcasecmp(arg, "random")) {
		uuid_generate_random(u);
	} else if (!strcasecmp(arg, "time")) {
		uuid_generate_time(u);
	} else if (!strcasecmp(arg, "clear") || !strcasecmp(arg, "null")) {
		uuid_clear(u);
	} else if (uuid_parse(arg, u)) {
		err("invalid UUID '%s'", arg);
		return -1;
	}
	memcpy(uuid, u, 16);
	return 0;
}

/* Does the mount-table or swap entry @name refer to our device? */
static bool same_dev(const char *name, const struct stat *st,
		     const char *real)
{
	struct stat nst;
	char *r;
	bool same;

	if (name[0] != '/')
		return false;
	if (stat(name, &nst) == 0) {
		if (S_ISBLK(st->st_mode) && S_ISBLK(nst.st_mode))
			return st->st_rdev == nst.st_rdev;
		if (S_ISREG(st->st_mode) && S_ISREG(nst.st_mode))
			return st->st_dev == nst.st_dev &&
			       st->st_ino == nst.st_ino;
	}
	r = realpath(name, NULL);
	same = r && real && !strcmp(r, real);
	free(r);
	return same;
}

/* Is block device number @rdev a mounted file system's source? */
static bool rdev_mounted(dev_t rdev)
{
	struct mntent *m;
	bool found = false;
	FILE *f = setmntent("/proc/self/mounts", "r");

	if (!f)
		return false;
	while (!found && (m = getmntent(f))) {
		struct stat nst;

		found = m->mnt_fsname[0] == '/' && stat(m->mnt_fsname, &nst) == 0 &&
			S_ISBLK(nst.st_mode) && nst.st_rdev == rdev;
	}
	endmntent(f);
	return found;
}

/* For an image file: is it the backing file of a mounted loop device? */
static bool loop_mounted(const struct stat *st, char *loopdev, size_t len)
{
	char path[PATH_MAX], buf[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/sys/block");

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		unsigned int maj, min;
		struct stat bst;
		size_t l;
		FILE *f;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* not attached */
		l = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[l] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (stat(buf, &bst) || bst.st_dev != st->st_dev ||
		    bst.st_ino != st->st_ino)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &maj, &min) == 2 &&
		    rdev_mounted(makedev(maj, min))) {
			snprintf(loopdev, len, "/dev/%s", de->d_name);
			found = true;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

/*
 * Refuse a device that is mounted (directly or through a loop device) or
 * in use as swap.  Never overridden by -f.
 */
static int check_mounted(const char *dev, const struct stat *st)
{
	char *real = realpath(dev, NULL);
	char line[PATH_MAX + 128], name[PATH_MAX + 1], loopdev[NAME_MAX + 8];
	struct mntent *m;
	const char *why = NULL;
	FILE *f;

	f = setmntent("/proc/self/mounts", "r");
	if (f) {
		while (!why && (m = getmntent(f)))
			if (same_dev(m->mnt_fsname, st, real))
				why = "is mounted";
		endmntent(f);
	}
	f = fopen("/proc/swaps", "r");
	if (f && !why) {
		while (!why && fgets(line, sizeof(line), f))
			if (sscanf(line, "%4096s", name) == 1 &&
			    same_dev(name, st, real))
				why = "is in use as swap";
	}
	if (f)
		fclose(f);
	if (!why && S_ISREG(st->st_mode) &&
	    loop_mounted(st, loopdev, sizeof(loopdev))) {
		err("%s is mounted through %s; will not make a file system here!",
		    dev, loopdev);
		free(real);
		return -1;
	}
	free(real);
	if (why) {
		err("%s %s; will not make a file system here!", dev, why);
		return -1;
	}
	return 0;
}

/*
 * Refuse to overwrite an existing NOVA file system or anything libblkid
 * recognises (file systems, RAID members, partition tables, ...).
 */
static int check_existing(int fd, const char *dev)
{
	struct nova_super_block sb;
	const char *why, *type = NULL, *label = NULL, *pttype = NULL;
	blkid_probe pr;
	char uuid[37];
	int which, ret;

	which = nova_read_super(fd, NOVA_SB_NO_SCAN, &sb, &why);
	if (which >= 0) {
		char lbl[NOVA_SAFE_SIZE(NOVA_LABEL_LEN)];

		/* NUL-padded, not always NUL-terminated; escaped */
		nova_safe_str(lbl, sizeof(lbl), sb.s_label,
			      strnlen(sb.s_label, NOVA_LABEL_LEN));
		nova_uuid_str(sb.s_uuid, uuid);
		if (lbl[0])
			err("%s contains a NOVA file system labelled '%s' (UUID %s)",
			    dev, lbl, uuid);
		else
			err("%s contains a NOVA file system (UUID %s)", dev, uuid);
		goto refuse;
	}

	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		err("%s: cannot probe for existing signatures", dev);
		if (pr)
			blkid_free_probe(pr);
		goto refuse;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	ret = blkid_do_safeprobe(pr);
	if (ret == 1) {
		blkid_free_probe(pr);
		return 0;
	}
	if (ret == -2) {
		err("%s contains several conflicting signatures", dev);
	} else if (ret < 0) {
		err("%s: probing for existing signatures failed", dev);
	} else {
		blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
		blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
		blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
		if (type && label && *label) {
			/* as libblkid read it from the device: escaped */
			char lbl[NOVA_SAFE_SIZE(256)];

			nova_safe_str(lbl, sizeof(lbl), label, strnlen(label, 256));
			err("%s contains a %s file system labelled '%s'", dev,
			    type, lbl);
		} else if (type)
			err("%s contains a %s file system", dev, type);
		else if (pttype)
			err("%s contains a partition table (%s)", dev, pttype);
		else
			err("%s contains an unknown signature", dev);
	}
	blkid_free_probe(pr);
refuse:
	fprintf(stderr, "%s: use -f to overwrite it\n", prog);
	return -1;
}

/* All of @len bytes at @off read or written (@wr), through EINTR and short counts */
static int pio_all(int fd, bool wr, void *buf, size_t len, __u64 off)
{
	char *p = buf;

	while (len) {
		ssize_t n = wr ? pwrite(fd, p, len, (off_t)off) :
				 pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			err("%s of %zu bytes at offset %llu failed: %s",
			    wr ? "write" : "read", len,
			    (unsigned long long)off, strerror(errno));
			return -1;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, __u64 off)
{
	return pio_all(fd, true, (void *)buf, len, off);
}

static int pread_all(int fd, void *buf, size_t len, __u64 off)
{
	return pio_all(fd, false, buf, len, off);
}

static char zeros[1 << 20];

/* Zero @nblocks blocks from block @blk */
static int zero_blocks(int fd, __u64 blk, __u64 nblocks)
{
	__u64 off = blk << NOVA_BLOCK_SHIFT, len = nblocks << NOVA_BLOCK_SHIFT;

	while (len) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);

		if (pwrite_all(fd, zeros, n, off))
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * Invalidate the old file system's replica super blocks that a later
 * search finds without a scan (nova_replica_next() in nova_lib.h):
 * where the old primary's size says, and in the device's last block.
 * Left there, one could be taken for the new file system's replica when
 * its primary is damaged.  Only blocks that hold a valid replica are
 * written.
 */
static int invalidate_replicas(int fd, __u64 dev_size)
{
	struct nova_super_block p, r;
	struct nova_replica_iter it;
	__u64 off;

	if (pread_all(fd, &p, sizeof(p), 0))
		return -1;
	nova_replica_iter_init(&it, &p, dev_size, 0);
	while ((off = nova_replica_next(&it))) {
		if (pread_all(fd, &r, sizeof(r), off))
			return -1;
		if (!nova_check_replica(&r, off, dev_size) &&
		    zero_blocks(fd, off >> NOVA_BLOCK_SHIFT, 1))
			return -1;
	}
	return 0;
}

static int sync_dev(int fd)
{
	if (fsync(fd)) {
		err("fsync failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static __s64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__s64)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * -d: fill the new file system (everything but the super block is on the
 * device) from o->populate, then refresh the reserved inodes' replica,
 * which now has the root directory's log.
 */
static int populate(int fd, const struct nova_layout *l, const struct opts *o,
		    struct nova_super_block *sb, const struct stat *img)
{
	struct nova_populate_stats ps;
	struct nv_fs fs;
	char msg[256];
	int ret;

	if (!o->quiet) {
		printf("Copying files from %s: ", o->populate);
		fflush(stdout);
	}
	if (nv_open_fd(&fs, fd, NV_OPEN_RW, msg, sizeof(msg))) {
		err("%s", msg);
		return -1;
	}
	nv_set_geometry(&fs, sb);
	ret = nova_populate(&fs, o->populate, img, &ps);
	if (!ret) {
		memcpy(nv_ptr(&fs, (l->num_blocks - 2) << NOVA_BLOCK_SHIFT),
		       nv_ptr(&fs, (__u64)NOVA_RESERVED_INODE_BLOCK << NOVA_BLOCK_SHIFT),
		       NOVA_BLOCK_SIZE);
		if (nv_sync(&fs)) {
			err("writing the copied files failed: %s", strerror(errno));
			ret = -1;
		}
	}
	nv_close(&fs);
	if (ret)
		return -1;
	/* an older module must not mount logs holding xattr entries */
	if (ps.xattrs)
		sb->s_feature_incompat |= cpu_to_le64(NOVA_FEATURE_INCOMPAT_XATTR);
	if (!o->quiet)
		printf("done\n"
		       "                        %llu files, %llu directories, %llu symlinks,\n"
		       "                        %llu special files, %llu hard links, %llu bytes,\n"
		       "                        %llu extended attributes;\n"
		       "                        %llu of %llu blocks in use\n",
		       (unsigned long long)ps.files, (unsigned long long)ps.dirs,
		       (unsigned long long)ps.symlinks,
		       (unsigned long long)ps.special,
		       (unsigned long long)ps.hardlinks,
		       (unsigned long long)ps.bytes,
		       (unsigned long long)ps.xattrs,
		       (unsigned long long)ps.used_blocks,
		       (unsigned long long)l->num_blocks);
	return 0;
}

/*
 * Write the file system (of l->size bytes, on a device of @dev_size); the
 * same steps, in the same order, as nova_format()
 */
static int write_fs(int fd, __u64 dev_size, const struct nova_layout *l,
		    const struct opts *o, const __u8 uuid[16],
		    const struct stat *img)
{
	struct nova_super_block sb;
	struct nova_inode root;
	static char blk1[NOVA_BLOCK_SIZE];
	__u64 last = l->num_blocks - 1;
	unsigned int i;
	__s64 now;

	/* invalidate the old super blocks first, then clear the fixed areas */
	if (invalidate_replicas(fd, dev_size) ||
	    zero_blocks(fd, NOVA_SB_BLOCK, 1) || zero_blocks(fd, last, 1) ||
	    sync_dev(fd))
		return -1;
	if (zero_blocks(fd, 0, NOVA_HEAD_RESERVED_BLOCKS) ||
	    zero_blocks(fd, l->num_blocks - NOVA_TAIL_RESERVED_BLOCKS,
			NOVA_TAIL_RESERVED_BLOCKS))
		return -1;

	if (!o->quiet) {
		printf("Writing inode tables and journals: ");
		fflush(stdout);
	}
	/* each stripe's first inode table block and journal page */
	for (i = 0; i < l->stripes; i++) {
		__u64 itab = nova_stripe_itable_block(l, i);
		__u64 jblk = nova_stripe_journal_block(l, i);
		struct nova_inode_table it = { 0 };
		struct nova_journal_ptr jp = { 0 };

		if (zero_blocks(fd, itab, l->itable_blocks))
			return -1;
		it.log_head = cpu_to_le64(itab << NOVA_BLOCK_SHIFT);
		if (pwrite_all(fd, &it, sizeof(it),
			       ((__u64)NOVA_INODE_TABLE_BLOCK << NOVA_BLOCK_SHIFT) +
			       (__u64)i * NOVA_CACHELINE))
			return -1;
		if (zero_blocks(fd, jblk, l->journal_pages))
			return -1;
		jp.journal_head = cpu_to_le64(jblk << NOVA_BLOCK_SHIFT);
		jp.journal_tail = jp.journal_head;
		if (pwrite_all(fd, &jp, sizeof(jp),
			       ((__u64)NOVA_JOURNAL_PTR_BLOCK << NOVA_BLOCK_SHIFT) +
			       (__u64)i * NOVA_CACHELINE))
			return -1;
	}
	if (!o->quiet)
		printf("done\n");

	/* the root inode (nova_init_root_inode) */
	now = now_ns();
	memset(&root, 0, sizeof(root));
	root.i_mode = cpu_to_le16(S_IFDIR | (o->root_mode & 07777));
	root.i_uid = cpu_to_le32(o->root_uid);
	root.i_gid = cpu_to_le32(o->root_gid);
	root.i_links_count = cpu_to_le32(2);
	root.i_size = cpu_to_le64(NOVA_BLOCK_SIZE);
	root.i_atime = cpu_to_le64(now);
	root.i_mtime = cpu_to_le64(now);
	root.i_ctime = cpu_to_le64(now);
	root.i_btime = cpu_to_le64(now);
	root.i_ino = cpu_to_le64(NOVA_ROOT_INO);
	root.i_valid = NOVA_INODE_VALID;
	if (pwrite_all(fd, &root, sizeof(root),
		       ((__u64)NOVA_RESERVED_INODE_BLOCK << NOVA_BLOCK_SHIFT) +
		       NOVA_ROOT_INO * sizeof(struct nova_inode)))
		return -1;

	/* replica of the reserved inodes */
	if (pread_all(fd, blk1, sizeof(blk1),
		      (__u64)NOVA_RESERVED_INODE_BLOCK << NOVA_BLOCK_SHIFT) ||
	    pwrite_all(fd, blk1, sizeof(blk1),
		       (l->num_blocks - 2) << NOVA_BLOCK_SHIFT) ||
	    sync_dev(fd))
		return -1;

	memset(&sb, 0, sizeof(sb));
	sb.s_journal_pages = cpu_to_le32(l->journal_pages);
	sb.s_magic = cpu_to_le32(NOVA_SUPER_MAGIC);
	sb.s_version = cpu_to_le32(NOVA_FORMAT_VERSION);
	sb.s_blocksize = cpu_to_le32(NOVA_BLOCK_SIZE);
	sb.s_size = cpu_to_le64(l->size);
	sb.s_num_blocks = cpu_to_le64(l->num_blocks);
	memcpy(sb.s_uuid, uuid, sizeof(sb.s_uuid));
	if (o->label)
		memcpy(sb.s_label, o->label, strlen(o->label));
	sb.s_stripes = cpu_to_le32(l->stripes);
	sb.s_inode_size = cpu_to_le32(sizeof(struct nova_inode));
	sb.s_itable_block_size = cpu_to_le32(l->itable_block_size);
	if (o->casefold) {
		sb.s_feature_incompat |= cpu_to_le64(NOVA_FEATURE_INCOMPAT_CASEFOLD);
		sb.s_encoding = cpu_to_le16(NOVA_ENC_UTF8_12_1);
		sb.s_encoding_flags = cpu_to_le16(o->enc_flags);
	}
	if (o->populate && populate(fd, l, o, &sb, img))
		return -1;

	/* the super block: primary, durable, then the replica */
	if (!o->quiet) {
		printf("Writing super blocks: ");
		fflush(stdout);
	}
	now = now_ns();
	sb.s_mkfs_time = cpu_to_le64(now);
	sb.s_write_time = cpu_to_le64(now);	/* nova_sync_super() sets it */
	sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
	if (pwrite_all(fd, &sb, sizeof(sb), NOVA_SB_BLOCK) || sync_dev(fd) ||
	    pwrite_all(fd, &sb, sizeof(sb), last << NOVA_BLOCK_SHIFT) ||
	    sync_dev(fd))
		return -1;
	if (!o->quiet)
		printf("done\n");
	return 0;
}

static void human_size(__u64 bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes / 1024;
	unsigned int u = 0;

	while (v >= 1024 && u < ARRAY_SIZE(units) - 1) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
}

int main(int argc, char **argv)
{
	struct opts o = { .root_mode = 0755, .casefold_opt = -1 };
	struct nova_layout l;
	struct stat st;
	unsigned int ncpus;
	char uuid_str[37], hs[32];
	__u8 uuid[16];
	long long size;
	__u64 fs_size;
	int c, fd, flags;

	prog = nova_prog_name(argv[0], prog);
	while ((c = getopt(argc, argv, "L:U:c:O:E:d:fFnqVh")) != -1) {
		switch (c) {
		case 'L':
			if (strlen(optarg) > NOVA_LABEL_LEN) {
				err("label '%s' is too long (at most %d bytes)",
				    optarg, NOVA_LABEL_LEN);
				return EXIT_ERR;
			}
			o.label = optarg;
			break;
		case 'U':
			o.uuid_arg = optarg;
			break;
		case 'c': {
			__u32 v;

			if (!parse_u32(optarg, 10, &v) || v < 1 ||
			    v > NOVA_MAX_STRIPES) {
				err("invalid stripe count '%s' (1-%u)", optarg,
				    (unsigned int)NOVA_MAX_STRIPES);
				return EXIT_ERR;
			}
			o.stripes = v;
			break;
		}
		case 'O':
			if (parse_features(optarg, &o))
				return EXIT_ERR;
			break;
		case 'E':
			if (parse_extended(optarg, &o))
				return EXIT_ERR;
			break;
		case 'd':
			o.populate = optarg;
			break;
		case 'f':
		case 'F':
			o.force = true;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'V':
			printf("%s %s (NOVA format %d.%d)\n", prog, NOVA_VERSION,
			       NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);
			return EXIT_OK;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_ERR;
		}
	}
	if (optind == argc || argc - optind > 2) {
		if (optind == argc)
			err("no device or image given");
		else
			err("unexpected argument '%s'", argv[optind + 2]);
		usage(stderr);
		return EXIT_ERR;
	}
	o.device = argv[optind];
	if (argc - optind == 2) {
		o.fs_size_arg = argv[optind + 1];
		if (!parse_fs_size(o.fs_size_arg, &o.fs_size)) {
			err("invalid file system size '%s' (a number of 4 KiB blocks, or of bytes with a k, m, g or t suffix)",
			    o.fs_size_arg);
			return EXIT_ERR;
		}
	}
	if (get_uuid(o.uuid_arg, uuid))
		return EXIT_ERR;
	/* as mke2fs: flags need an encoding, which -O ^casefold forbids */
	if (!o.casefold_opt && o.encoding) {
		err("the casefold feature is turned off (-O ^casefold), but -E encoding= turns it on");
		return EXIT_ERR;
	}
	o.casefold = o.casefold_opt == 1 || o.encoding;
	if (o.encoding_flags && !o.casefold) {
		err("error: An encoding must be explicitly specified when passing encoding-flags");
		return EXIT_ERR;
	}

	if (o.populate) {
		struct stat ds;

		if (stat(o.populate, &ds)) {
			err("-d %s: %s", o.populate, strerror(errno));
			return EXIT_ERR;
		}
		if (!S_ISDIR(ds.st_mode)) {
			err("-d %s: not a directory", o.populate);
			return EXIT_ERR;
		}
		/* as mke2fs -d: the root directory takes the source's owner and mode */
		if (!o.root_owner_set) {
			o.root_uid = ds.st_uid;
			o.root_gid = ds.st_gid;
		}
		if (!o.root_perms_set)
			o.root_mode = ds.st_mode & 07777;
	}
	if (stat(o.device, &st)) {
		err("cannot access %s: %s", o.device, strerror(errno));
		return EXIT_ERR;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		err("%s is not a block device or a regular file", o.device);
		return EXIT_ERR;
	}
	if (check_mounted(o.device, &st))
		return EXIT_ERR;

	/* -n opens read-only: nothing can be written */
	flags = (o.dry_run ? O_RDONLY : O_RDWR) | O_CLOEXEC;
	if (S_ISBLK(st.st_mode))
		flags |= O_EXCL;
	fd = open(o.device, flags);
	if (fd < 0) {
		if (errno == EBUSY)
			err("%s is apparently in use by the system; will not make a file system here!",
			    o.device);
		else
			err("cannot open %s: %s", o.device, strerror(errno));
		return EXIT_ERR;
	}
	if (fstat(fd, &st) || (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))) {
		err("%s is not a block device or a regular file", o.device);
		goto fail;
	}
	size = nova_dev_size(fd);
	if (size < 0) {
		err("cannot determine the size of %s", o.device);
		goto fail;
	}

	if (o.stripes) {
		ncpus = o.stripes;
	} else {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		ncpus = n < 1 ? 1 : n > (long)NOVA_MAX_STRIPES ?
			NOVA_MAX_STRIPES : (unsigned int)n;
	}
	fs_size = (__u64)size;
	if (o.fs_size_arg) {
		if (o.fs_size > (__u64)size) {
			err("file system size %s (%llu blocks) is larger than %s (%lld bytes, %llu blocks)",
			    o.fs_size_arg,
			    (unsigned long long)(o.fs_size >> NOVA_BLOCK_SHIFT),
			    o.device, size,
			    (unsigned long long)size >> NOVA_BLOCK_SHIFT);
			goto fail;
		}
		if (o.fs_size < NOVA_MIN_SIZE) {
			err("file system size %s (%llu blocks) is too small: a NOVA file system needs at least %llu blocks (%llu bytes)",
			    o.fs_size_arg,
			    (unsigned long long)(o.fs_size >> NOVA_BLOCK_SHIFT),
			    NOVA_MIN_SIZE >> NOVA_BLOCK_SHIFT, NOVA_MIN_SIZE);
			goto fail;
		}
		fs_size = o.fs_size;
	}
	if (nova_compute_layout(fs_size, ncpus, &l)) {
		err("%s is too small: %lld bytes, a NOVA file system needs at least %llu",
		    o.device, size, NOVA_MIN_SIZE);
		goto fail;
	}
	if (o.stripes && l.stripes != o.stripes) {
		if (o.fs_size_arg)
			err("a file system of %llu blocks is too small for %u stripes (at most %u)",
			    (unsigned long long)l.num_blocks, o.stripes,
			    l.stripes);
		else
			err("%s is too small for %u stripes (at most %u)",
			    o.device, o.stripes, l.stripes);
		goto fail;
	}
	if (!o.force && check_existing(fd, o.device))
		goto fail;

	nova_uuid_str(uuid, uuid_str);
	human_size(l.size, hs, sizeof(hs));
	if (!o.quiet) {
		if (o.dry_run)
			printf("%s %s: dry run (-n), nothing is written\n", prog,
			       NOVA_VERSION);
		else
			printf("%s %s (NOVA format %d.%d)\n", prog, NOVA_VERSION,
			       NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);
		printf("Creating NOVA file system on %s\n", o.device);
		printf("Size:                   %llu bytes (%s), %llu 4k blocks\n",
		       (unsigned long long)l.size, hs,
		       (unsigned long long)l.num_blocks);
		if ((__u64)size != l.size)
			printf("                        (%llu trailing bytes unused)\n",
			       (unsigned long long)((__u64)size - l.size));
		printf("Filesystem UUID:        %s\n", uuid_str);
		if (o.label)
			printf("Filesystem label:       %s\n", o.label);
		printf("Stripes:                %u (regions of %llu blocks)\n",
		       l.stripes, (unsigned long long)l.stripe_blocks);
		printf("Inode table block size: %u bytes\n", l.itable_block_size);
		printf("Root directory:         mode 0%o, owner %u:%u\n",
		       o.root_mode, o.root_uid, o.root_gid);
		if (o.casefold) {
			bool strict = o.enc_flags & NOVA_ENC_STRICT_MODE_FL;

			printf("Filesystem features:    casefold\n");
			printf("Character encoding:     utf8-12.1%s\n",
			       strict ? " (strict)" : "");
		}
	}
	if (o.dry_run) {
		close(fd);
		return EXIT_OK;
	}

	if (write_fs(fd, (__u64)size, &l, &o, uuid, &st))
		goto fail;
	{
		struct nova_super_block check;
		const char *why;

		if (nova_read_super(fd, NOVA_SB_NO_SCAN, &check, &why) != 0) {
			err("the new super block does not read back: %s", why);
			goto fail;
		}
	}
	if (close(fd)) {
		err("closing %s failed: %s", o.device, strerror(errno));
		return EXIT_ERR;
	}
	return EXIT_OK;
fail:
	close(fd);
	return EXIT_ERR;
}
