// SPDX-License-Identifier: GPL-2.0
/*
 * nova_image: test helper built on libnova, for the host unit tests and,
 * statically linked, in the guest payload (make guest-bin), where IMAGE
 * may be an unmounted block device such as /dev/pmem0 (libnova maps a
 * block device as it maps an image file).
 *
 *   nova_image check-tree IMAGE SRCDIR
 *       Walk the image from its root and compare every name, type, mode,
 *       owner, size, mtime, link count, file content (holes included),
 *       symlink target, device number, hard link and extended attribute
 *       (those NOVA keeps) with SRCDIR.  Prints "PASS reader: ..." or
 *       "FAIL reader: ..." lines.
 *   nova_image info IMAGE PATH
 *       Shell-friendly facts about PATH's inode: ino, pi (slot offset),
 *       head, tail, pages, entries, last (offset of the last entry),
 *       links, size, parent, page0 (block of file page 0), page0_flags
 *       (the flags of the write entry mapping it), dev, xattrs,
 *       xattr_entries, xattr_pages (log pages holding its xattrs).
 *   nova_image cat IMAGE PATH
 *       The bytes of the regular file PATH (or an inode number: 6, the
 *       project quota file), on standard output.
 *   nova_image setxattr FILE NAME VALUE
 *       lsetxattr() on the host: VALUE is "hex:HEX", "fill:N" (N bytes
 *       of a fixed pattern) or the bytes themselves.  Exit 3 if FILE's
 *       file system does not support it.
 *   nova_image dump IMAGE
 *       What a user sees of the image, one line per name reached from
 *       the root (a name's blanks and unprintable bytes escaped; sort
 *       the lines to compare), then the project quota file: inode
 *       number, the name's file type, mode, owner, link count, size,
 *       flags, project ID, a hash of the content (file data, symlink
 *       target) and of the extended attributes; no times.  For
 *       comparing two images (test_powercut.sh).
 *   nova_image metablocks IMAGE
 *       The blocks that hold metadata (for fuzzing).
 *   nova_image inject IMAGE KIND [ARGS]
 *       Corrupt the image in one of the ways fsck must find (see
 *       inject() below for the kinds).
 *
 * Exit status: 0 success (check-tree: no mismatch), 1 mismatch or
 * failed injection, 2 usage or I/O error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "libnova.h"
#include "xent.h"

static int mismatches, compared;

static void __attribute__((format(printf, 2, 3)))
mismatch(const char *path, const char *fmt, ...)
{
	va_list ap;

	if (++mismatches <= 30) {
		printf("FAIL reader: %s: ", path);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
}

struct seen {
	dev_t dev;
	ino_t ino;
	uint64_t nino;
};
static struct seen *seen;
static size_t nseen, capseen;

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void compare(struct nv_fs *fs, const char *path, uint64_t ino, bool root);

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void compare_dir(struct nv_fs *fs, const char *path,
			struct nv_inode_state *st, const struct stat *sst)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i, subdirs = 0;

	if (!d) {
		mismatch(path, "cannot open: %s", strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmpstr);
	if (st->dir.alive != n)
		mismatch(path, "%zu names in the image, %zu in the source",
			 st->dir.alive, n);
	for (i = 0; i < n; i++) {
		struct nv_dent *e = nv_dir_lookup(&st->dir, names[i],
						  strlen(names[i]));
		char *child;
		struct stat cs;

		if (asprintf(&child, "%s/%s", path, names[i]) < 0)
			exit(2);
		if (!e) {
			mismatch(child, "missing in the image");
		} else {
			if (!lstat(child, &cs)) {
				if (S_ISDIR(cs.st_mode))
					subdirs++;
				if (e->ftype != nv_dtype(cs.st_mode))
					mismatch(child, "dentry file type %u, want %u",
						 e->ftype, nv_dtype(cs.st_mode));
			}
			compare(fs, child, e->ino, false);
		}
		free(child);
		free(names[i]);
	}
	free(names);
	if (st->links != 2 + subdirs)
		mismatch(path, "directory link count %u, want %zu", st->links,
			 2 + subdirs);
	(void)sst;
}

/* The extended attributes NOVA keeps: the same names and values */
static void compare_xattrs(struct nv_fs *fs, const char *path,
			   struct nv_inode_state *st)
{
	static uint8_t v[NOVA_XATTR_VALUE_MAX], w[NOVA_XATTR_VALUE_MAX];
	char list[65536], *full;
	ssize_t n = llistxattr(path, list, sizeof(list) - 1), len;
	size_t kept = 0;

	if (n < 0 && errno == ENOTSUP)
		n = 0;
	if (n < 0) {
		mismatch(path, "llistxattr: %s", strerror(errno));
		return;
	}
	list[n] = '\0';
	for (full = list; full < list + n; full += strlen(full) + 1) {
		const char *name;
		uint8_t index = nv_xattr_index_of(full, &name);
		struct nv_xattr *x;

		if (!index)
			continue;
		kept++;
		x = nv_xattr_lookup(st, index, name, strlen(name));
		len = lgetxattr(path, full, v, sizeof(v));
		if (!x) {
			mismatch(path, "xattr %s missing in the image", full);
			continue;
		}
		nv_xattr_read(fs, x, w);
		if (len < 0 || (size_t)len != x->value_len || memcmp(v, w, len))
			mismatch(path, "xattr %s: %u bytes in the image differ from the source's %zd",
				 full, x->value_len, len);
	}
	if (st->nxattrs != kept)
		mismatch(path, "%zu xattrs in the image, %zu in the source",
			 st->nxattrs, kept);
}

static void compare(struct nv_fs *fs, const char *path, uint64_t ino, bool root)
{
	struct nv_inode_state st;
	struct stat s;
	size_t i;

	compared++;
	if (lstat(path, &s)) {
		mismatch(path, "lstat: %s", strerror(errno));
		return;
	}
	if (!nv_inode_slot_valid(fs, ino)) {
		mismatch(path, "inode %llu is not valid", (unsigned long long)ino);
		return;
	}
	if (nv_iread(fs, ino, &st, 0, NULL, NULL)) {
		mismatch(path, "cannot read inode %llu", (unsigned long long)ino);
		return;
	}
	if (st.log.err || st.bad) {
		mismatch(path, "inode %llu: %s %s", (unsigned long long)ino,
			 st.log.msg, st.bad_msg);
		goto out;
	}
	if ((st.mode & S_IFMT) != (s.st_mode & S_IFMT)) {
		mismatch(path, "type 0%o, want 0%o", st.mode & S_IFMT,
			 s.st_mode & S_IFMT);
		goto out;
	}
	if ((st.mode & 07777) != (s.st_mode & 07777))
		mismatch(path, "mode 0%o, want 0%o", st.mode & 07777,
			 s.st_mode & 07777);
	if (st.uid != s.st_uid || st.gid != s.st_gid)
		mismatch(path, "owner %u:%u, want %u:%u", st.uid, st.gid,
			 s.st_uid, s.st_gid);
	if (!S_ISLNK(s.st_mode) && st.mtime != ts_ns(&s.st_mtim))
		mismatch(path, "mtime %lld, want %lld", (long long)st.mtime,
			 (long long)ts_ns(&s.st_mtim));
	compare_xattrs(fs, path, &st);
	if (!S_ISDIR(s.st_mode)) {
		if (st.links != s.st_nlink)
			mismatch(path, "link count %u, want %lu", st.links,
				 (unsigned long)s.st_nlink);
		if (s.st_nlink > 1) {
			for (i = 0; i < nseen; i++)
				if (seen[i].dev == s.st_dev && seen[i].ino == s.st_ino)
					break;
			if (i < nseen) {
				if (seen[i].nino != ino)
					mismatch(path, "hard link to inode %llu, want %llu",
						 (unsigned long long)ino,
						 (unsigned long long)seen[i].nino);
				goto out;	/* content compared once */
			}
			if (nseen == capseen) {
				capseen = capseen ? capseen * 2 : 64;
				seen = realloc(seen, capseen * sizeof(*seen));
			}
			seen[nseen++] = (struct seen){ s.st_dev, s.st_ino, ino };
		}
	}
	switch (s.st_mode & S_IFMT) {
	case S_IFDIR:
		if (st.size != NOVA_BLOCK_SIZE)
			mismatch(path, "directory size %llu",
				 (unsigned long long)st.size);
		if (!root && !st.parent)
			mismatch(path, "no '..' entry");
		compare_dir(fs, path, &st, &s);
		break;
	case S_IFREG: {
		uint8_t *a, *b;
		size_t off = 0;
		int fd;

		if (st.size != (uint64_t)s.st_size) {
			mismatch(path, "size %llu, want %lld",
				 (unsigned long long)st.size, (long long)s.st_size);
			break;
		}
		fd = open(path, O_RDONLY);
		a = malloc(1 << 20);
		b = malloc(1 << 20);
		while (fd >= 0 && off < st.size) {
			size_t n = st.size - off > (1 << 20) ? (1 << 20) : st.size - off;

			if (pread(fd, a, n, off) != (ssize_t)n) {
				mismatch(path, "source read failed");
				break;
			}
			nv_file_read(fs, &st, off, n, b);
			if (memcmp(a, b, n)) {
				mismatch(path, "content differs in [%zu, %zu)", off,
					 off + n);
				break;
			}
			off += n;
		}
		if (fd < 0)
			mismatch(path, "cannot open the source");
		else
			close(fd);
		free(a);
		free(b);
		break;
	}
	case S_IFLNK: {
		char t[NOVA_BLOCK_SIZE + 1];
		ssize_t n = readlink(path, t, sizeof(t) - 1);

		if (n < 0 || (uint64_t)n != st.size ||
		    memcmp(t, nv_ptr(fs, st.symlink_block), n))
			mismatch(path, "symlink target differs (%zd / %llu bytes)",
				 n, (unsigned long long)st.size);
		break;
	}
	case S_IFCHR:
	case S_IFBLK: {
		unsigned int ma, mi;

		nv_decode_dev(st.rdev, &ma, &mi);
		if (ma != major(s.st_rdev) || mi != minor(s.st_rdev))
			mismatch(path, "device %u:%u, want %u:%u", ma, mi,
				 major(s.st_rdev), minor(s.st_rdev));
		break;
	}
	}
out:
	nv_ifree(&st);
}

static int open_fs(struct nv_fs *fs, const char *img, int mode)
{
	char msg[256];
	struct nova_sb_search s;

	if (nv_open(fs, img, mode, msg, sizeof(msg))) {
		fprintf(stderr, "%s\n", msg);
		return -1;
	}
	if (nv_load_super(fs, 0, &s) < 0) {
		fprintf(stderr, "%s: no valid super block (%s)\n", img, s.why);
		return -1;
	}
	if (nv_load_itables(fs)) {
		fprintf(stderr, "%s: cannot load the inode tables\n", img);
		return -1;
	}
	return 0;
}

static int check_tree(const char *img, const char *src)
{
	struct nv_fs fs;

	if (open_fs(&fs, img, NV_OPEN_RO))
		return 2;
	compare(&fs, src, NOVA_ROOT_INO, true);
	nv_close(&fs);
	if (mismatches)
		printf("FAIL reader: %d mismatches in %d entries\n", mismatches,
		       compared);
	else
		printf("PASS reader: %d entries match the source tree (names, types, modes, owners, sizes, mtimes, links, contents, targets, devices, xattrs)\n",
		       compared);
	return mismatches ? 1 : 0;
}

#define LAST_ENTRY	UINT64_MAX

struct find_entry {
	uint64_t n, k;			/* the entry wanted, entries so far */
	uint64_t nth, last;
};

static int find_entry_fn(const struct nv_entry *e, void *arg)
{
	struct find_entry *f = arg;

	if (f->k++ == f->n)
		f->nth = e->off;
	f->last = e->off;
	return 0;
}

/*
 * The offset of the @n-th entry (from 0) of a log, or of its last
 * (LAST_ENTRY, if the whole log walks); 0 if none.  Checksums and
 * trans_ids are not looked at: the entry may be one injected before.
 */
static uint64_t nth_entry(struct nv_fs *fs, const struct nv_inode_state *st,
			  uint64_t n)
{
	struct find_entry f = { .n = n };
	const struct nv_walk w = {
		.entry = find_entry_fn, .arg = &f, .flags = NV_WALK_LENIENT,
	};
	struct nv_log lg;
	bool ok;

	ok = !nv_log_walk(fs, le64_to_cpu(st->pi.log_head),
			  le64_to_cpu(st->pi.log_tail), &lg, &w) && !lg.err;
	nv_log_free(&lg);
	if (n == LAST_ENTRY)
		return ok ? f.last : 0;
	return f.nth;
}

static uint64_t last_entry(struct nv_fs *fs, const struct nv_inode_state *st)
{
	return nth_entry(fs, st, LAST_ENTRY);
}

static int info(const char *img, const char *path)
{
	struct nv_inode_state st;
	struct nv_fs fs;
	uint64_t ino, blk = 0, ent = 0, xpages = 0, last_pg = 0;
	unsigned int flags = 0;
	size_t i, j;

	if (open_fs(&fs, img, NV_OPEN_RO))
		return 2;
	ino = nv_lookup_path(&fs, path);
	if (!ino || nv_iread(&fs, ino, &st, 0, NULL, NULL)) {
		fprintf(stderr, "%s: not found\n", path);
		return 1;
	}
	if (nv_pmap_get(&st.pages, 0, &blk, &ent))
		flags = ((struct nova_file_write_entry *)nv_ptr(&fs, ent))->flags;
	for (i = 0; i < st.nxattrs; i++)
		for (j = 0; j < st.xattrs[i].nparts; j++) {
			uint64_t pg = st.xattrs[i].parts[j] &
				      ~(uint64_t)(NOVA_BLOCK_SIZE - 1);

			if (pg != last_pg)
				xpages++;
			last_pg = pg;
		}
	printf("xattrs=%zu\nxattr_entries=%llu\nxattr_pages=%llu\n", st.nxattrs,
	       (unsigned long long)st.xattr_entries, (unsigned long long)xpages);
	printf("ino=%llu\npi=%llu\nhead=%llu\ntail=%llu\npages=%zu\nentries=%llu\n"
	       "last=%llu\nlinks=%u\nsize=%llu\nparent=%llu\npage0=%llu\n"
	       "page0_flags=%u\nstripes=%u\nnblocks=%llu\nerr=%d\n",
	       (unsigned long long)ino, (unsigned long long)st.pi_off,
	       (unsigned long long)le64_to_cpu(st.pi.log_head),
	       (unsigned long long)le64_to_cpu(st.pi.log_tail), st.log.npages,
	       (unsigned long long)st.log.nentries,
	       (unsigned long long)last_entry(&fs, &st), st.links,
	       (unsigned long long)st.size, (unsigned long long)st.parent,
	       (unsigned long long)blk, flags, fs.stripes,
	       (unsigned long long)fs.nblocks, st.log.err);
	nv_ifree(&st);
	nv_close(&fs);
	return 0;
}

/* FNV-1a, 64 bits: the hashes of dump() */
static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

#define FNV_START	0xcbf29ce484222325ULL

/* One line of dump(): inode @ino, reached as @path */
static void dump_inode(struct nv_fs *fs, const char *path, uint64_t ino,
		       int ftype, struct nv_inode_state *st)
{
	static uint8_t v[NOVA_XATTR_VALUE_MAX];
	uint8_t buf[NOVA_BLOCK_SIZE];
	uint64_t data = FNV_START, xh = FNV_START, pos, n;
	size_t i;

	if (S_ISREG(st->mode)) {
		for (pos = 0; pos < st->size; pos += n) {
			n = st->size - pos < sizeof(buf) ? st->size - pos : sizeof(buf);
			nv_file_read(fs, st, pos, n, buf);
			data = fnv(data, buf, n);
		}
	} else if (S_ISLNK(st->mode) && st->symlink_block &&
		   st->size <= NOVA_BLOCK_SIZE) {
		data = fnv(data, nv_ptr(fs, st->symlink_block), st->size);
	} else if (S_ISCHR(st->mode) || S_ISBLK(st->mode)) {
		data = fnv(data, &st->rdev, sizeof(st->rdev));
	}
	for (i = 0; i < st->nxattrs; i++) {
		const struct nv_xattr *x = &st->xattrs[i];

		xh = fnv(xh, &x->index, 1);
		xh = fnv(xh, x->name, x->name_len + 1);
		nv_xattr_read(fs, x, v);
		xh = fnv(xh, v, x->value_len);
	}
	printf("%s ino=%llu ftype=%d mode=0%o owner=%u:%u links=%u size=%llu flags=0x%x projid=%u names=%zu data=%016llx xattrs=%zu:%016llx%s\n",
	       path, (unsigned long long)ino, ftype, st->mode, st->uid, st->gid,
	       st->links, (unsigned long long)st->size, st->flags, st->projid,
	       S_ISDIR(st->mode) ? st->dir.alive : 0, (unsigned long long)data,
	       st->nxattrs, (unsigned long long)xh,
	       st->log.err || st->bad ? " unreadable" : "");
}

static void dump_tree(struct nv_fs *fs, const char *path, uint64_t ino,
		      int ftype, int depth)
{
	struct nv_inode_state st;
	char esc[NOVA_SAFE_SIZE(NOVA_NAME_LEN)];
	size_t i;

	if (!nv_inode_slot_valid(fs, ino) || nv_iread(fs, ino, &st, 0, NULL, NULL)) {
		printf("%s ino=%llu missing\n", path, (unsigned long long)ino);
		return;
	}
	dump_inode(fs, path, ino, ftype, &st);
	for (i = 0; S_ISDIR(st.mode) && depth < 64 && i < st.dir.n; i++) {
		struct nv_dent *e = &st.dir.d[i];
		char *child;

		if (!e->alive || e->ino == ino)
			continue;
		nova_safe_str(esc, sizeof(esc), e->name, e->len);
		if (asprintf(&child, "%s/%s", ino == NOVA_ROOT_INO ? "" : path,
			     esc) < 0)
			exit(2);
		dump_tree(fs, child, e->ino, e->ftype, depth + 1);
		free(child);
	}
	nv_ifree(&st);
}

/* What a user sees of the image (see the top); sort the output */
static int dump(const char *img)
{
	struct nv_inode_state st;
	struct nv_fs fs;

	if (open_fs(&fs, img, NV_OPEN_RO))
		return 2;
	dump_tree(&fs, "/", NOVA_ROOT_INO, -1, 0);
	if (nv_inode_slot_valid(&fs, NOVA_PRJQUOTA_INO) &&
	    !nv_iread(&fs, NOVA_PRJQUOTA_INO, &st, 0, NULL, NULL)) {
		dump_inode(&fs, "<project quota file>", NOVA_PRJQUOTA_INO, -1, &st);
		nv_ifree(&st);
	}
	nv_close(&fs);
	return 0;
}

/* Blocks holding metadata: fixed area, tables, journals, log pages */
static int metablocks(const char *img)
{
	struct nv_fs fs;
	uint64_t ino, max, i;
	unsigned int s;

	if (open_fs(&fs, img, NV_OPEN_RO))
		return 2;
	printf("0\n1\n16\n32\n%llu\n%llu\n", (unsigned long long)fs.nblocks - 2,
	       (unsigned long long)fs.nblocks - 1);
	for (s = 0; s < fs.stripes; s++) {
		for (i = 0; i < fs.itab[s].n; i++)
			printf("%llu\n", (unsigned long long)(fs.itab[s].blocks[i] >>
							     NOVA_BLOCK_SHIFT));
		printf("%llu\n", (unsigned long long)(nv_get64(&fs, nv_journal_ptr_off(s)) >>
						     NOVA_BLOCK_SHIFT));
	}
	max = nv_max_ino(&fs);
	for (ino = 1; ino < max; ino++) {
		struct nv_inode_state st;

		if (!nv_inode_slot_valid(&fs, ino) ||
		    nv_iread(&fs, ino, &st, NV_IREAD_NO_DATA, NULL, NULL))
			continue;
		for (i = 0; i < st.log.npages; i++)
			printf("%llu\n", (unsigned long long)(st.log.pages[i] >>
							     NOVA_BLOCK_SHIFT));
		nv_ifree(&st);
	}
	nv_close(&fs);
	return 0;
}

/* An xattr value from the command line (see the top); its length */
static size_t parse_value(const char *arg, uint8_t *v, size_t max)
{
	size_t n = 0, i;

	if (!strncmp(arg, "hex:", 4)) {
		for (arg += 4; arg[0] && arg[1] && n < max; arg += 2) {
			unsigned int b;

			if (sscanf(arg, "%2x", &b) != 1)
				break;
			v[n++] = b;
		}
	} else if (!strncmp(arg, "fill:", 5)) {
		n = strtoul(arg + 5, NULL, 0);
		if (n > max)
			n = max;
		for (i = 0; i < n; i++)
			v[i] = (uint8_t)(i * 31 + i / 241 + 7);
	} else {
		n = strlen(arg) < max ? strlen(arg) : max;
		memcpy(v, arg, n);
	}
	return n;
}

static int host_setxattr(const char *file, const char *name, const char *arg)
{
	static uint8_t v[NOVA_XATTR_VALUE_MAX];
	size_t n = parse_value(arg, v, sizeof(v));

	if (!lsetxattr(file, name, v, n, 0))
		return 0;
	fprintf(stderr, "setxattr %s %s: %s\n", file, name, strerror(errno));
	return errno == ENOTSUP ? 3 : 2;
}

/* The bytes of the regular file PATH (or inode number), on stdout */
static int cat(const char *img, const char *path)
{
	struct nv_inode_state st;
	uint8_t buf[NOVA_BLOCK_SIZE];
	struct nv_fs fs;
	uint64_t ino, pos, n;

	if (open_fs(&fs, img, NV_OPEN_RO))
		return 2;
	ino = path[0] >= '0' && path[0] <= '9' ? strtoull(path, NULL, 10) :
	      nv_lookup_path(&fs, path);
	if (!ino || !nv_inode_slot_valid(&fs, ino) ||
	    nv_iread(&fs, ino, &st, 0, NULL, NULL) || !S_ISREG(st.mode)) {
		fprintf(stderr, "%s: not found, or not a regular file\n", path);
		return 1;
	}
	for (pos = 0; pos < st.size; pos += n) {
		n = st.size - pos < sizeof(buf) ? st.size - pos : sizeof(buf);
		nv_file_read(&fs, &st, pos, n, buf);
		if (fwrite(buf, 1, n, stdout) != n)
			return 2;
	}
	nv_ifree(&st);
	nv_close(&fs);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: nova_image check-tree IMAGE SRCDIR\n"
		"       nova_image info IMAGE PATH\n"
		"       nova_image cat IMAGE PATH\n"
		"       nova_image dump IMAGE\n"
		"       nova_image metablocks IMAGE\n"
		"       nova_image setxattr FILE NAME VALUE\n"
		"       nova_image inject IMAGE KIND [ARGS]\n");
	return 2;
}

int inject(int argc, char **argv);

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "check-tree"))
		return check_tree(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "metablocks"))
		return metablocks(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "info"))
		return info(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "cat"))
		return cat(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "setxattr"))
		return host_setxattr(argv[2], argv[3], argv[4]);
	if (argc >= 4 && !strcmp(argv[1], "inject"))
		return inject(argc - 2, argv + 2);
	return usage();
}

/* ------------------------------------------------------------ inject */

static int inj_open(struct nv_fs *fs, const char *img)
{
	if (open_fs(fs, img, NV_OPEN_RW))
		return -1;
	if (nv_alloc_scan(fs)) {
		fprintf(stderr, "cannot scan the used blocks\n");
		return -1;
	}
	fs->next_generation = 12345;
	return 0;
}

/*
 * An open transaction in stripe 0's journal: one entry saying that the 8
 * bytes at @addr held @old (little-endian), its checksum right or, with
 * @bad_csum, wrong
 */
static void journal_open(struct nv_fs *fs, uint64_t addr, uint64_t old,
			 bool bad_csum)
{
	uint64_t jh = nv_get64(fs, nv_journal_ptr_off(0));
	struct nova_journal_entry je;

	memset(&je, 0, sizeof(je));
	je.type = cpu_to_le64(NOVA_JOURNAL_ENTRY);
	je.data1 = cpu_to_le64(addr);
	je.data2 = old;
	je.e_csum = cpu_to_le32(bad_csum ? 0xbadc0de :
				nova_crc32c(&je, offsetof(struct nova_journal_entry,
							  e_csum)));
	nv_put(fs, jh, &je, sizeof(je));
	nv_put64(fs, nv_journal_ptr_off(0) + 8, jh + sizeof(je));
}

/* PATH's inode, read; PATH may be an inode number (6: no name) */
static int inj_state(struct nv_fs *fs, const char *path, struct nv_inode_state *st)
{
	uint64_t ino = path[0] >= '0' && path[0] <= '9' ?
		       strtoull(path, NULL, 10) : nv_lookup_path(fs, path);

	if (!ino || nv_iread(fs, ino, st, 0, NULL, NULL)) {
		fprintf(stderr, "inject: %s not found\n", path);
		return -1;
	}
	return 0;
}

/*
 * A dentry @name for directory @ino appended to directory @path's log;
 * -1 when either is not found
 */
static int inj_dir_dentry(struct nv_fs *fs, const char *path,
			  const char *name, uint64_t ino)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	int ret;

	if (!ino || inj_state(fs, path, &st))
		return -1;
	nv_wlog_from_state(&w, &st);
	ret = nv_append_dentry(fs, &w, name, strlen(name), ino,
			       nv_dtype(S_IFDIR), NULL);
	nv_log_commit(fs, &w);
	return ret;
}

static void recsum(struct nv_fs *fs, uint64_t off)
{
	uint8_t *p = nv_ptr(fs, off);

	nv_entry_csum(p, nv_entry_size(p, NOVA_LOG_LAST_ENTRY -
				       (off & (NOVA_BLOCK_SIZE - 1))));
}


/* ---- a clean-unmount snapshot, written as nova_save_snapshot() does ---- */

struct range {
	uint64_t lo, hi;
};

static size_t free_ranges(struct nv_fs *fs, struct range **out)
{
	size_t n = 0, cap = 64;
	unsigned int s;
	uint64_t b, st, end;

	*out = malloc(cap * sizeof(**out));
	for (s = 0; s < fs->stripes; s++) {
		nv_stripe_region(fs, s, &st, &end);
		for (b = st; b <= end; b++) {
			uint64_t e = b;

			if (nv_block_used(fs, b))
				continue;
			while (e + 1 <= end && !nv_block_used(fs, e + 1))
				e++;
			if (n == cap)
				*out = realloc(*out, (cap *= 2) * sizeof(**out));
			(*out)[n++] = (struct range){ b, e };
			b = e;
		}
	}
	return n;
}

static size_t inode_ranges(struct nv_fs *fs, struct range **out)
{
	size_t n = 0, cap = 64;
	unsigned int s;
	uint64_t i, slots;

	*out = malloc(cap * sizeof(**out));
	for (s = 0; s < fs->stripes; s++) {
		slots = fs->itab[s].n * fs->per_block;
		for (i = 0; i < slots; i++) {
			uint64_t e = i, ino = i * fs->stripes + s;

			if (ino >= NOVA_NORMAL_INODE_START && !nv_inode_slot_valid(fs, ino))
				continue;
			while (e + 1 < slots &&
			       ((e + 1) * fs->stripes + s < NOVA_NORMAL_INODE_START ||
				nv_inode_slot_valid(fs, (e + 1) * fs->stripes + s)))
				e++;
			if (n == cap)
				*out = realloc(*out, (cap *= 2) * sizeof(**out));
			(*out)[n++] = (struct range){ (uint64_t)s << 48 | i,
						      (uint64_t)s << 48 | e };
			i = e;
		}
	}
	return n;
}

static uint64_t snap_pages(struct nv_fs *fs, uint64_t records)
{
	uint64_t pages = NOVA_SNAPSHOT_PAGES(records);
	uint64_t head = 0, prev = 0, blk;

	while (pages--) {
		if (!nv_alloc(fs, 1, 0, false, &blk))
			return 0;
		nv_zero(fs, blk << NOVA_BLOCK_SHIFT, NOVA_BLOCK_SIZE);
		if (prev)
			nv_put64(fs, prev + NOVA_LOG_LAST_ENTRY +
				 offsetof(struct nova_log_page_tail, next_page),
				 blk << NOVA_BLOCK_SHIFT);
		else
			head = blk << NOVA_BLOCK_SHIFT;
		prev = blk << NOVA_BLOCK_SHIFT;
	}
	return head;
}

static void snap_write(struct nv_fs *fs, unsigned int ino, uint64_t head,
		       const struct range *r, size_t n)
{
	struct nova_snapshot_header h = { .magic = cpu_to_le32(NOVA_SNAPSHOT_MAGIC) };
	uint64_t page = head, slot = 1, i;
	uint32_t crc = ~0U;
	struct nova_inode pi;

	for (i = 0; i < n; i++) {
		struct nova_range_node_lowhigh x = {
			cpu_to_le64(r[i].lo), cpu_to_le64(r[i].hi) };

		if (slot == NOVA_SNAPSHOT_PER_PAGE) {
			nv_put32(fs, page + NOVA_LOG_LAST_ENTRY +
				 offsetof(struct nova_log_page_tail, num_entries), slot);
			page = nv_get64(fs, page + NOVA_LOG_LAST_ENTRY +
					offsetof(struct nova_log_page_tail, next_page));
			slot = 0;
		}
		nv_put(fs, page + slot * sizeof(x), &x, sizeof(x));
		crc = nova_crc32c_update(crc, &x, sizeof(x));
		slot++;
	}
	nv_put32(fs, page + NOVA_LOG_LAST_ENTRY +
		 offsetof(struct nova_log_page_tail, num_entries), slot);
	h.csum = cpu_to_le32(~crc);
	h.records = cpu_to_le64(n);
	nv_put(fs, head, &h, sizeof(h));
	/* the chain's page count in its first page (nova_format.h) */
	for (i = 0, page = head; page; i++)
		page = nv_get64(fs, page + NOVA_LOG_LAST_ENTRY +
				offsetof(struct nova_log_page_tail, next_page));
	nv_put64(fs, head + NOVA_LOG_LAST_ENTRY +
		 offsetof(struct nova_log_page_tail, pad), i);
	memset(&pi, 0, sizeof(pi));
	pi.i_ino = cpu_to_le64(ino);
	pi.log_head = cpu_to_le64(head);
	pi.i_valid = NOVA_INODE_VALID;
	nv_put(fs, nv_inode_off(fs, ino), &pi, sizeof(pi));
}

/* @bad: also list one used data block (of @path) as free */
static int make_snapshot(struct nv_fs *fs, bool clean, const char *bad)
{
	struct range *ir, *fr;
	size_t ni, nf;
	uint64_t ih, bh;

	ni = inode_ranges(fs, &ir);
	ih = snap_pages(fs, ni);
	nf = free_ranges(fs, &fr);
	free(fr);
	/*
	 * room for the record @bad adds; as in the kernel, the pages may
	 * take whole single-block ranges (fewer records then)
	 */
	bh = snap_pages(fs, nf + 1);
	nf = free_ranges(fs, &fr);
	if (!ih || !bh)
		return -1;
	if (bad) {
		struct nv_inode_state st;
		uint64_t blk, i, j;

		if (inj_state(fs, bad, &st) || !nv_pmap_get(&st.pages, 0, &blk, NULL))
			return -1;
		blk >>= NOVA_BLOCK_SHIFT;
		for (i = 0; i < nf && fr[i].lo < blk; i++)
			;
		fr = realloc(fr, (nf + 1) * sizeof(*fr));
		for (j = nf; j > i; j--)
			fr[j] = fr[j - 1];
		fr[i] = (struct range){ blk, blk };
		nf++;
	}
	snap_write(fs, NOVA_INODELIST_INO, ih, ir, ni);
	snap_write(fs, NOVA_BLOCKNODE_INO, bh, fr, nf);
	free(ir);
	free(fr);
	if (clean) {
		struct nova_super_block sb = *(struct nova_super_block *)nv_ptr(fs, 0);

		sb.s_state |= cpu_to_le32(NOVA_STATE_CLEAN);
		sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
		nv_put(fs, 0, &sb, sizeof(sb));
		nv_put(fs, nv_replica_sb_off(fs), &sb, sizeof(sb));
	}
	return 0;
}


/* ---- a clean-unmount snapshot changed in place: a lie it tells ---- */

/*
 * The ranges of snapshot @ino (reserved inode 3 or 4) into *@out (room
 * for two more), their count into *@n and into *@room how many records
 * its page chain holds; -1 if it is not a snapshot the kernel would load
 */
static int snap_read(struct nv_fs *fs, unsigned int ino, struct range **out,
		     size_t *n, size_t *room)
{
	const struct nova_inode *pi = nv_pi(fs, nv_inode_off(fs, ino));
	uint64_t page = le64_to_cpu(pi->log_head), records, i, slot = 1, pages = 1;
	struct nova_snapshot_header h;

	if (pi->i_valid != NOVA_INODE_VALID || !nv_page_valid(fs, page)) {
		fprintf(stderr, "inject: no snapshot in reserved inode %u\n", ino);
		return -1;
	}
	memcpy(&h, nv_ptr(fs, page), sizeof(h));
	records = le64_to_cpu(h.records);
	if (le32_to_cpu(h.magic) != NOVA_SNAPSHOT_MAGIC || records > fs->nblocks) {
		fprintf(stderr, "inject: reserved inode %u: a bad snapshot header\n", ino);
		return -1;
	}
	*out = malloc((records + 2) * sizeof(**out));
	if (!*out)
		return -1;
	for (i = 0; i < records; i++, slot++) {
		struct nova_range_node_lowhigh x;

		if (slot == NOVA_SNAPSHOT_PER_PAGE) {
			page = nv_get64(fs, page + NOVA_LOG_LAST_ENTRY +
					offsetof(struct nova_log_page_tail, next_page));
			if (!nv_page_valid(fs, page))
				goto bad;
			slot = 0;
			pages++;
		}
		memcpy(&x, nv_ptr(fs, page + slot * sizeof(x)), sizeof(x));
		(*out)[i] = (struct range){ le64_to_cpu(x.range_low),
					    le64_to_cpu(x.range_high) };
	}
	/* the pages after the last record's */
	for (;;) {
		page = nv_get64(fs, page + NOVA_LOG_LAST_ENTRY +
				offsetof(struct nova_log_page_tail, next_page));
		if (!page)
			break;
		if (!nv_page_valid(fs, page) || pages >= fs->nblocks)
			goto bad;
		pages++;
	}
	*n = records;
	*room = pages * NOVA_SNAPSHOT_PER_PAGE - 1;
	return 0;
bad:
	fprintf(stderr, "inject: reserved inode %u: a bad snapshot page chain\n", ino);
	free(*out);
	return -1;
}

/* Write @n ranges into the pages of snapshot @ino, checksum and header */
static int snap_rewrite(struct nv_fs *fs, unsigned int ino,
			const struct range *r, size_t n, size_t room)
{
	if (n > room) {
		fprintf(stderr, "inject: %zu records do not fit the %zu of the snapshot's pages\n",
			n, room);
		return -1;
	}
	snap_write(fs, ino, le64_to_cpu(nv_pi(fs, nv_inode_off(fs, ino))->log_head),
		   r, n);
	return 0;
}

/*
 * The in-use inode snapshot no longer lists PATH's inode: its slot is
 * free for the next mount, which restores the snapshot, while the inode
 * is valid and named
 */
static int snap_drop_ino(struct nv_fs *fs, const char *path)
{
	struct nv_inode_state st;
	struct range *r;
	size_t n, room, i;
	uint64_t key;
	int ret;

	if (inj_state(fs, path, &st) || st.ino < NOVA_NORMAL_INODE_START ||
	    snap_read(fs, NOVA_INODELIST_INO, &r, &n, &room))
		return -1;
	key = (uint64_t)(st.ino % fs->stripes) << 48 | st.ino / fs->stripes;
	for (i = 0; i < n && !(r[i].lo <= key && key <= r[i].hi); i++)
		;
	if (i == n) {
		fprintf(stderr, "inject: inode %llu is not in use in the snapshot\n",
			(unsigned long long)st.ino);
		free(r);
		return -1;
	}
	if (r[i].lo == key && r[i].hi == key) {
		memmove(&r[i], &r[i + 1], (n - i - 1) * sizeof(*r));
		n--;
	} else if (r[i].lo == key) {
		r[i].lo++;
	} else if (r[i].hi == key) {
		r[i].hi--;
	} else {
		memmove(&r[i + 2], &r[i + 1], (n - i - 1) * sizeof(*r));
		r[i + 1] = (struct range){ key + 1, r[i].hi };
		r[i].hi = key - 1;
		n++;
	}
	ret = snap_rewrite(fs, NOVA_INODELIST_INO, r, n, room);
	free(r);
	return ret;
}

/*
 * The free-block snapshot also lists stripe 0's first journal page and
 * the first log page of PATH as free, in order, with a right checksum:
 * the journal page makes the mount refuse the snapshot (its claim of the
 * metadata), the log page is what the recovery scan then walks
 */
static int snap_free_used(struct nv_fs *fs, const char *path)
{
	struct nv_inode_state st;
	uint64_t b[2];
	struct range *r;
	size_t n, room, i, k;
	int ret;

	if (inj_state(fs, path, &st) || !st.pi.log_head ||
	    snap_read(fs, NOVA_BLOCKNODE_INO, &r, &n, &room))
		return -1;
	b[0] = nv_get64(fs, nv_journal_ptr_off(0)) >> NOVA_BLOCK_SHIFT;
	b[1] = le64_to_cpu(st.pi.log_head) >> NOVA_BLOCK_SHIFT;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < n && r[i].hi < b[k]; i++)
			;
		if (i < n && r[i].lo <= b[k]) {
			fprintf(stderr, "inject: block %llu is free already\n",
				(unsigned long long)b[k]);
			free(r);
			return -1;
		}
		memmove(&r[i + 1], &r[i], (n - i) * sizeof(*r));
		r[i] = (struct range){ b[k], b[k] };
		n++;
	}
	ret = snap_rewrite(fs, NOVA_BLOCKNODE_INO, r, n, room);
	free(r);
	return ret;
}

/*
 * The free-block snapshot gets one page more at the end of its chain (the
 * last block it listed as free, no longer listed), its first page's count
 * unchanged, or 0 with @old: the shape a module that counted its pages
 * by its records left, whose next mount did not free that page
 */
static int snap_extra_page(struct nv_fs *fs, bool old)
{
	uint64_t head = le64_to_cpu(nv_pi(fs, nv_inode_off(fs, NOVA_BLOCKNODE_INO))->log_head);
	uint64_t pad = head + NOVA_LOG_LAST_ENTRY +
		       offsetof(struct nova_log_page_tail, pad);
	uint64_t count, page, next, blk;
	struct range *r;
	size_t n, room;
	int ret;

	if (snap_read(fs, NOVA_BLOCKNODE_INO, &r, &n, &room))
		return -1;
	if (!n) {
		fprintf(stderr, "inject: the snapshot lists no free block\n");
		free(r);
		return -1;
	}
	count = nv_get64(fs, pad);
	blk = r[n - 1].hi;
	if (r[n - 1].lo == blk)
		n--;
	else
		r[n - 1].hi--;
	ret = snap_rewrite(fs, NOVA_BLOCKNODE_INO, r, n, room);
	free(r);
	if (ret)
		return ret;
	nv_zero(fs, blk << NOVA_BLOCK_SHIFT, NOVA_BLOCK_SIZE);
	for (page = head; (next = nv_get64(fs, page + NOVA_LOG_LAST_ENTRY +
					 offsetof(struct nova_log_page_tail, next_page)));
	     page = next)
		;
	nv_put64(fs, page + NOVA_LOG_LAST_ENTRY +
		 offsetof(struct nova_log_page_tail, next_page),
		 blk << NOVA_BLOCK_SHIFT);
	nv_put64(fs, pad, old ? 0 : count);
	return 0;
}


/* ---- kernel-like updates, for states fsck must accept ---- */

/* A log being written into fresh pages (gc.c nova_new_log_append()) */
struct newlog {
	uint64_t head, tail;
};

static int nl_append(struct nv_fs *fs, struct newlog *nl, void *entry,
		     size_t size)
{
	uint64_t blk, page, pt;

	nv_entry_csum(entry, size);
	if (!nl->tail || (nl->tail & (NOVA_BLOCK_SIZE - 1)) + size > NOVA_LOG_LAST_ENTRY) {
		if (!nv_alloc(fs, 1, 0, false, &blk))
			return -1;
		page = blk << NOVA_BLOCK_SHIFT;
		nv_zero(fs, page, NOVA_BLOCK_SIZE);
		if (nl->tail) {
			uint64_t cur = nl->tail & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);

			if ((nl->tail & (NOVA_BLOCK_SIZE - 1)) < NOVA_LOG_LAST_ENTRY)
				nv_put8(fs, nl->tail, NOVA_NEXT_PAGE);
			nv_put64(fs, cur + NOVA_LOG_LAST_ENTRY +
				 offsetof(struct nova_log_page_tail, next_page), page);
		} else {
			nl->head = page;
		}
		nl->tail = page;
	}
	nv_put(fs, nl->tail, entry, size);
	pt = (nl->tail & ~(uint64_t)(NOVA_BLOCK_SIZE - 1)) + NOVA_LOG_LAST_ENTRY +
	     offsetof(struct nova_log_page_tail, num_entries);
	nv_put32(fs, pt, le32toh(*(uint32_t *)nv_ptr(fs, pt)) + 1);
	nl->tail += size;
	return 0;
}

static int cmp_cookie(const void *a, const void *b)
{
	const struct nv_dent *x = a, *y = b;

	return (x->alive != y->alive) ? (x->alive ? -1 : 1) :
	       x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

/*
 * nova_thorough_gc(): the inode's live state as a new log linked after
 * the old tail and committed; @done: also switch the head (the old pages
 * are then unused).
 */
static int sim_gc(struct nv_fs *fs, const char *path, bool done)
{
	struct nv_inode_state st;
	struct newlog nl = { 0 };
	uint64_t tid, old_tail, tail_page, i;

	if (inj_state(fs, path, &st))
		return -1;
	tid = st.next_tid;
	if (S_ISDIR(st.mode)) {
		struct nova_dentry de;
		uint64_t inos[2] = { st.ino, st.parent ? st.parent : st.ino };

		for (i = 0; i < 2; i++) {
			memset(&de, 0, sizeof(de));
			de.entry_type = NOVA_DIR_LOG;
			de.name_len = i + 1;
			de.de_len = cpu_to_le16(NOVA_DENTRY_LEN(i + 1));
			de.file_type = nv_dtype(S_IFDIR);
			de.links_count = cpu_to_le32(st.links);
			de.mtime = cpu_to_le64(st.mtime);
			de.ino = cpu_to_le64(inos[i]);
			de.trans_id = cpu_to_le64(tid++);
			memcpy(de.name, "..", i + 1);
			if (nl_append(fs, &nl, &de, NOVA_DENTRY_LEN(i + 1)))
				return -1;
		}
		qsort(st.dir.d, st.dir.n, sizeof(*st.dir.d), cmp_cookie);
		for (i = 0; i < st.dir.n && st.dir.d[i].alive; i++) {
			struct nv_dent *e = &st.dir.d[i];

			memset(&de, 0, sizeof(de));
			de.entry_type = NOVA_DIR_LOG;
			de.name_len = e->len;
			de.de_len = cpu_to_le16(NOVA_DENTRY_LEN(e->len));
			de.file_type = e->ftype;
			de.links_count = cpu_to_le32(st.links);
			de.mtime = cpu_to_le64(st.mtime);
			de.ino = cpu_to_le64(e->ino);
			de.cookie = cpu_to_le64(e->cookie);
			de.trans_id = cpu_to_le64(tid++);
			memcpy(de.name, e->name, e->len);
			if (nl_append(fs, &nl, &de, NOVA_DENTRY_LEN(e->len)))
				return -1;
		}
	} else if (S_ISREG(st.mode) || S_ISLNK(st.mode)) {
		struct nova_file_write_entry we;
		uint64_t maxpg = 0, pg, blk, start = 0, first = 0, n = 0;
		size_t it;

		for (it = 0; nv_pmap_next(&st.pages, &it, &pg, NULL, NULL);)
			if (pg + 1 > maxpg)
				maxpg = pg + 1;
		for (pg = 0; pg <= maxpg; pg++) {
			bool have = pg < maxpg && nv_pmap_get(&st.pages, pg, &blk, NULL);

			if (have && n && pg == start + n &&
			    blk == first + (n << NOVA_BLOCK_SHIFT)) {
				n++;
				continue;
			}
			if (n) {
				memset(&we, 0, sizeof(we));
				we.entry_type = NOVA_FILE_WRITE;
				we.num_pages = cpu_to_le32(n);
				we.block = cpu_to_le64(first);
				we.pgoff = cpu_to_le64(start);
				we.mtime = cpu_to_le64(st.mtime);
				we.size = cpu_to_le64(st.size);
				we.trans_id = cpu_to_le64(tid++);
				if (nl_append(fs, &nl, &we, sizeof(we)))
					return -1;
			}
			n = 0;
			if (have) {
				start = pg;
				first = blk;
				n = 1;
			}
		}
	}
	/*
	 * the live xattr groups, written again as xattr.c
	 * nova_xattr_gc_write() does: no flags, the inode's ctime
	 */
	for (i = 0; i < st.nxattrs; i++) {
		static uint8_t v[NOVA_XATTR_VALUE_MAX];
		const struct nv_xattr *x = &st.xattrs[i];
		uint64_t buf[NOVA_XATTR_ENTRY_MAX / 8];
		struct nova_xattr_entry *e = (void *)buf;
		size_t done = 0, part = 0;

		nv_xattr_read(fs, x, v);
		do {
			size_t nlen = part ? 0 : x->name_len;
			size_t n = x->value_len - done, len;

			if (n > NOVA_XATTR_PART_ROOM(nlen))
				n = NOVA_XATTR_PART_ROOM(nlen);
			len = NOVA_XATTR_LEN(nlen, n);
			memset(buf, 0, len);
			e->entry_type = NOVA_XATTR;
			e->name_index = x->index;
			e->name_len = nlen;
			e->xe_len = cpu_to_le16(len);
			e->part_len = cpu_to_le16(n);
			e->value_len = cpu_to_le32(x->value_len);
			e->ctime = cpu_to_le64((uint64_t)st.ctime);
			e->part = cpu_to_le16(part);
			if (!part) {
				e->value_csum = cpu_to_le32(x->value_csum);
				memcpy(e->data, x->name, nlen);
			}
			memcpy(e->data + nlen, v + done, n);
			e->trans_id = cpu_to_le64(tid++);
			if (nl_append(fs, &nl, e, len))
				return -1;
			done += n;
			part++;
		} while (done < x->value_len);
	}
	{
		struct nova_setattr_entry sa = { .entry_type = NOVA_SET_ATTR };
		struct nova_link_change_entry lc = { .entry_type = NOVA_LINK_CHANGE };

		sa.attr = NOVA_ATTR_MODE | NOVA_ATTR_UID | NOVA_ATTR_GID |
			  NOVA_ATTR_ATIME | NOVA_ATTR_MTIME | NOVA_ATTR_CTIME |
			  NOVA_ATTR_SIZE;
		sa.mode = cpu_to_le16(st.mode);
		sa.uid = cpu_to_le32(st.uid);
		sa.gid = cpu_to_le32(st.gid);
		sa.atime = cpu_to_le64(st.atime);
		sa.mtime = cpu_to_le64(st.mtime);
		sa.ctime = cpu_to_le64(st.ctime);
		sa.size = cpu_to_le64(st.size);
		sa.trans_id = cpu_to_le64(tid++);
		lc.links = cpu_to_le32(st.links);
		lc.ctime = cpu_to_le64(st.ctime);
		lc.flags = cpu_to_le32(st.flags);
		lc.generation = cpu_to_le32(st.generation);
		lc.trans_id = cpu_to_le64(tid++);
		if (nl_append(fs, &nl, &sa, sizeof(sa)) ||
		    nl_append(fs, &nl, &lc, sizeof(lc)))
			return -1;
	}
	old_tail = le64_to_cpu(st.pi.log_tail);
	tail_page = old_tail & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	if ((old_tail & (NOVA_BLOCK_SIZE - 1)) < NOVA_LOG_LAST_ENTRY)
		nv_put8(fs, old_tail, NOVA_NEXT_PAGE);
	nv_put64(fs, tail_page + NOVA_LOG_LAST_ENTRY +
		 offsetof(struct nova_log_page_tail, next_page), nl.head);
	nv_put64(fs, st.pi_off + offsetof(struct nova_inode, log_tail), nl.tail);
	if (done)
		nv_put64(fs, st.pi_off + offsetof(struct nova_inode, log_head), nl.head);
	nv_ifree(&st);
	return 0;
}

/* A copy-on-write overwrite of file page 0 with the same bytes, then
 * the old entry's page marked superseded (dax.c nova_index_set()) */
static int sim_overwrite(struct nv_fs *fs, const char *path)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	uint64_t blk, ent, nb;

	if (inj_state(fs, path, &st) || !nv_pmap_get(&st.pages, 0, &blk, &ent) ||
	    !nv_alloc(fs, 1, 0, false, &nb))
		return -1;
	nv_put(fs, nb << NOVA_BLOCK_SHIFT, nv_ptr(fs, blk), NOVA_BLOCK_SIZE);
	nv_wlog_from_state(&w, &st);
	if (nv_append_write(fs, &w, 0, 1, nb << NOVA_BLOCK_SHIFT, NULL))
		return -1;
	nv_log_commit(fs, &w);
	nv_invalidate_pages(fs, ent, 1);
	nv_ifree(&st);
	return 0;
}

/* unlink(2) of a name whose inode has other names (namei.c nova_remove()) */
static int sim_unlink(struct nv_fs *fs, const char *path)
{
	char *dir = strdup(path), *base = strrchr(dir, '/');
	struct nv_inode_state ds, fst;
	struct nv_dent *de;
	struct nv_wlog w;
	uint64_t old;

	*base++ = '\0';
	if (inj_state(fs, *dir ? dir : "/", &ds) ||
	    !(de = nv_dir_lookup(&ds.dir, base, strlen(base))) ||
	    nv_iread(fs, de->ino, &fst, 0, NULL, NULL))
		return -1;
	nv_wlog_from_state(&w, &ds);
	w.mtime = w.ctime = nv_now();
	if (nv_append_dentry(fs, &w, base, strlen(base), 0, 0, NULL))
		return -1;
	nv_log_commit(fs, &w);
	nv_wlog_from_state(&w, &fst);
	old = w.last_lc;
	w.links--;
	w.ctime = nv_now();
	if (nv_append_link_change(fs, &w, NULL))
		return -1;
	nv_log_commit(fs, &w);
	nv_invalidate_entry(fs, de->off);
	if (old)
		nv_invalidate_entry(fs, old);
	if (!w.links)	/* evicted */
		nv_put8(fs, fst.pi_off + offsetof(struct nova_inode, i_valid),
			NOVA_INODE_FREE);
	return 0;
}

/* A set-attribute entry as inode.c nova_log_attr() writes it */
static int append_setattr(struct nv_fs *fs, struct nv_wlog *w,
			  const struct nv_inode_state *st, uint64_t *off)
{
	struct nova_setattr_entry e;

	memset(&e, 0, sizeof(e));
	e.entry_type = NOVA_SET_ATTR;
	e.attr = NOVA_ATTR_MODE | NOVA_ATTR_UID | NOVA_ATTR_GID |
		 NOVA_ATTR_ATIME | NOVA_ATTR_MTIME | NOVA_ATTR_CTIME |
		 NOVA_ATTR_SIZE;
	e.mode = cpu_to_le16(st->mode);
	e.uid = cpu_to_le32(st->uid);
	e.gid = cpu_to_le32(st->gid);
	e.atime = cpu_to_le64((uint64_t)st->atime);
	e.mtime = cpu_to_le64((uint64_t)w->mtime);
	e.ctime = cpu_to_le64((uint64_t)w->ctime);
	e.size = cpu_to_le64(w->size);
	e.trans_id = cpu_to_le64(w->next_tid++);
	nv_entry_csum(&e, sizeof(e));
	return nv_log_append(fs, w, &e, sizeof(e), off);
}

/*
 * fallocate(FALLOC_FL_KEEP_SIZE) of two pages past EOF (dax.c: zeroed
 * blocks, a write entry that keeps the size), then a chmod-like
 * set-attribute entry (the size unchanged: no cut, the blocks past EOF
 * stay), then with @extend a truncate up over the preallocated pages,
 * which supersedes (marks dead) the chmod entry, and data stored into
 * the first preallocated page in place (as through mmap: no entry).
 * Last, a clean unmount: the snapshot lists the preallocated blocks as
 * used, as the kernel's allocator has them.
 */
static int sim_prealloc(struct nv_fs *fs, const char *path, bool extend)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	uint64_t pg, nb, sa = 0, i;
	int ret;

	if (inj_state(fs, path, &st) || !S_ISREG(st.mode) ||
	    !nv_alloc(fs, 2, 0, false, &nb))
		return -1;
	pg = (st.size + NOVA_BLOCK_SIZE - 1) / NOVA_BLOCK_SIZE + 4;
	nv_zero(fs, nb << NOVA_BLOCK_SHIFT, 2 * NOVA_BLOCK_SIZE);
	nv_wlog_from_state(&w, &st);
	w.ctime = nv_now();	/* the mtime as it was: the tree stays comparable */
	ret = nv_append_write(fs, &w, pg, 2, nb << NOVA_BLOCK_SHIFT, NULL);
	if (!ret) {
		nv_log_commit(fs, &w);
		ret = append_setattr(fs, &w, &st, &sa);
	}
	if (!ret) {
		nv_log_commit(fs, &w);
		if (st.last_sa && !st.last_sa_cut)
			nv_invalidate_entry(fs, st.last_sa);
	}
	if (!ret && extend) {
		w.size = (pg + 8) * NOVA_BLOCK_SIZE;
		ret = append_setattr(fs, &w, &st, NULL);
		if (!ret) {
			nv_log_commit(fs, &w);
			nv_invalidate_entry(fs, sa);
			for (i = 0; i < NOVA_BLOCK_SIZE; i += 8)
				nv_put64(fs, (nb << NOVA_BLOCK_SHIFT) + i,
					 0x6e6f76612d707265ULL + i);
		}
	}
	nv_ifree(&st);
	return ret ? -1 : make_snapshot(fs, true, NULL);
}

/* ---- extended attributes ---- */

/* append the hand-made xattr entry @x (xent.h) to @w, with @w's ctime */
static int xput(struct nv_fs *fs, struct nv_wlog *w, const struct xent *x,
		uint64_t *off)
{
	uint64_t buf[NOVA_XATTR_ENTRY_MAX / 8];
	struct xent xc = *x;
	size_t len;

	xc.ctime = w->ctime;
	len = xent_build(buf, &xc, w->next_tid++);
	return nv_log_append(fs, w, buf, len, off);
}

/*
 * setxattr/removexattr of @full on PATH as the kernel logs it: the new
 * group committed, then the older one marked dead, part 0 first (@cut:
 * only its part 0, a crash before the others)
 */
static int xset(struct nv_fs *fs, const char *path, const char *full,
		const char *arg, bool remove, bool cut)
{
	static uint8_t v[NOVA_XATTR_VALUE_MAX];
	struct nv_inode_state st;
	struct nv_xattr *old;
	struct nv_wlog w;
	const char *name;
	uint8_t index = nv_xattr_index_of(full, &name);
	size_t n = remove ? 0 : parse_value(arg, v, sizeof(v));
	int ret;

	if (!index || inj_state(fs, path, &st))
		return -1;
	old = nv_xattr_lookup(&st, index, name, strlen(name));
	if ((remove || cut) && !old) {
		fprintf(stderr, "inject: %s has no %s\n", path, full);
		return -1;
	}
	nv_wlog_from_state(&w, &st);
	w.ctime = nv_now();
	ret = nv_append_xattr(fs, &w, index, name, strlen(name), v, n,
			      remove ? NOVA_XATTR_REMOVE : 0, 0, NULL);
	if (!ret) {
		nv_log_commit(fs, &w);
		if (old && cut)
			nv_invalidate_entry(fs, old->off);
		else if (old)
			nv_invalidate_xattr(fs, old);
	}
	nv_ifree(&st);
	return ret;
}

/*
 * A malformed xattr group of KIND appended to PATH's log, then (but for
 * "end") a link-change entry that changes nothing
 */
static int xbad(struct nv_fs *fs, const char *path, const char *kind,
		const char *name)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	struct xent e[3];
	uint64_t off[3];
	int i, n = 1, ret = 0;
	bool lc = strcmp(kind, "end") != 0;

	memset(e, 0, sizeof(e));
	/* the user.* name @name, else "bad" */
	e[0] = xent_user(name ? name : "bad", 4);
	if (!strcmp(kind, "index")) {
		e[0].index = 7;		/* 7 and 8: no namespace of NOVA's */
	} else if (!strcmp(kind, "acl-name")) {
		e[0].index = NOVA_XATTR_INDEX_ACL_ACCESS;
	} else if (!strcmp(kind, "empty-name")) {
		e[0].name_len = 0;
	} else if (!strcmp(kind, "value-len")) {
		e[0].value_len = NOVA_XATTR_VALUE_MAX + 4;
	} else if (!strcmp(kind, "flags")) {
		e[0].flags = 0x40;
	} else if (!strcmp(kind, "remove-value")) {
		e[0].flags = NOVA_XATTR_REMOVE;
	} else {
		n = 3;
		xent_parts(e, e[0].name, 3);
		if (!strcmp(kind, "part-seq"))
			e[2].part = 3;
		else if (!strcmp(kind, "part-name"))
			e[2].name_len = 3;
		else if (!strcmp(kind, "part-index"))
			e[2].index = NOVA_XATTR_INDEX_TRUSTED;
		else if (!strcmp(kind, "sum"))
			e[2].part_len = 120;
		else if (!strcmp(kind, "value-csum"))
			e[2].fill = 'w';
		else if (!strcmp(kind, "interrupted") || !strcmp(kind, "end"))
			n = 2;
		else if (strcmp(kind, "entry-csum"))
			return -1;
	}
	if (inj_state(fs, path, &st))
		return -1;
	nv_wlog_from_state(&w, &st);
	for (i = 0; !ret && i < n; i++)
		ret = xput(fs, &w, &e[i], &off[i]);
	if (!ret && lc)
		ret = nv_append_link_change(fs, &w, NULL);
	if (!ret) {
		nv_log_commit(fs, &w);
		if (!strcmp(kind, "entry-csum"))	/* part 1's checksum */
			((uint8_t *)nv_ptr(fs, off[1]))[offsetof(struct nova_xattr_entry,
							      e_csum)] ^= 0x20;
	}
	nv_ifree(&st);
	return ret;
}

/* Parts 1 and 2 of a group, without a part 0 before them */
static int xorphans(struct nv_fs *fs, const char *path)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	struct xent e = { .index = NOVA_XATTR_INDEX_USER, .fill = 'o',
			  .part = 1, .part_len = 1000, .value_len = 5000 };
	int ret;

	if (inj_state(fs, path, &st))
		return -1;
	nv_wlog_from_state(&w, &st);
	ret = xput(fs, &w, &e, NULL);
	e.part = 2;
	if (!ret)
		ret = xput(fs, &w, &e, NULL);
	if (!ret)
		nv_log_commit(fs, &w);
	nv_ifree(&st);
	return ret;
}

/* Mark the live group of @full on PATH dead (its part 0) */
static int xdead(struct nv_fs *fs, const char *path, const char *full)
{
	struct nv_inode_state st;
	struct nv_xattr *x;
	const char *name;
	uint8_t index = nv_xattr_index_of(full, &name);

	if (!index || inj_state(fs, path, &st))
		return -1;
	x = nv_xattr_lookup(&st, index, name, strlen(name));
	if (!x)
		return -1;
	nv_invalidate_entry(fs, x->off);
	nv_ifree(&st);
	return 0;
}

/* ---- fscrypt (encrypted inodes) ---- */

/*
 * The super block's incompatible feature @bit set (@on) or cleared, in
 * both copies
 */
static void set_incompat(struct nv_fs *fs, uint64_t bit, bool on)
{
	struct nova_super_block sb = *(struct nova_super_block *)nv_ptr(fs, 0);

	if (on)
		sb.s_feature_incompat |= cpu_to_le64(bit);
	else
		sb.s_feature_incompat &= ~cpu_to_le64(bit);
	sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
	nv_put(fs, 0, &sb, sizeof(sb));
	nv_put(fs, nv_replica_sb_off(fs), &sb, sizeof(sb));
}

/*
 * FICLONERANGE of @src's pages 0 .. @n-1 to @dst's pages from @dpg (@dst
 * may be @src), as docs/reflink.md has the kernel log it: the source's
 * pages logged again with @sflags, committed, then the destination's
 * with @dflags (NOVA_WRITE_SHARED both, for a clone; other flags make
 * the damage fsck must find), one one-page entry each, the destination
 * grown to cover them; the pages they replace counted superseded (their
 * entries dead when all are); the reflink feature set
 */
static int clone_pages(struct nv_fs *fs, const char *src, const char *dst,
		       uint64_t n, uint64_t dpg, uint8_t sflags, uint8_t dflags)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	uint64_t blk[64], ent[64], pg;
	int ret = 0;

	if (!n || n > ARRAY_SIZE(blk) || inj_state(fs, src, &st))
		return -1;
	for (pg = 0; pg < n; pg++)
		if (!nv_pmap_get(&st.pages, pg, &blk[pg], &ent[pg]))
			return -1;	/* a hole: nothing to share */
	nv_wlog_from_state(&w, &st);
	for (pg = 0; !ret && pg < n; pg++)
		ret = nv_append_write_flags(fs, &w, pg, 1, blk[pg], sflags, NULL);
	if (ret || nv_log_commit(fs, &w))
		return -1;
	for (pg = 0; pg < n; pg++)
		nv_invalidate_pages(fs, ent[pg], 1);
	nv_ifree(&st);
	/* read again: @dst may be @src */
	if (inj_state(fs, dst, &st))
		return -1;
	nv_wlog_from_state(&w, &st);
	if (w.size < (dpg + n) << NOVA_BLOCK_SHIFT)
		w.size = (dpg + n) << NOVA_BLOCK_SHIFT;
	for (pg = 0; !ret && pg < n; pg++)
		ret = nv_append_write_flags(fs, &w, dpg + pg, 1, blk[pg], dflags,
					    NULL);
	if (ret || nv_log_commit(fs, &w))
		return -1;
	for (pg = 0; pg < n; pg++)
		if (nv_pmap_get(&st.pages, dpg + pg, NULL, &ent[0]))
			nv_invalidate_pages(fs, ent[0], 1);
	nv_ifree(&st);
	set_incompat(fs, NOVA_FEATURE_INCOMPAT_REFLINK, true);
	return 0;
}

/*
 * An fscrypt context of @version (1: struct fscrypt_context_v1, 2: _v2)
 * in @c: AES-256-XTS and AES-256-CTS, padding 32, key bytes 0x11 .. and
 * the nonce a0 a1 .. af; its length
 */
static size_t make_context(uint8_t *c, int version)
{
	size_t len = version == 1 ? 28 : 40, key = version == 1 ? 8 : 16, i;

	memset(c, 0, len);
	c[0] = version;
	c[1] = 1;
	c[2] = 4;
	c[3] = 3;
	for (i = 0; i < key; i++)
		c[len - 16 - key + i] = 0x11 + i;
	for (i = 0; i < 16; i++)
		c[len - 16 + i] = 0xa0 + i;
	return len;
}

/*
 * FS_IOC_SET_ENCRYPTION_POLICY on @w's inode: a version @version context,
 * committed, and the features; with @kind a malformed one instead (len:
 * 30 bytes, version: v2's 40 bytes with version 1, name: v2 as "d",
 * remove: a removal of "c"), then a link-change entry that changes nothing
 */
static int put_context(struct nv_fs *fs, struct nv_wlog *w, int version,
		       const char *kind)
{
	uint8_t c[64];
	size_t len = make_context(c, version);
	const char *name = NOVA_XATTR_ENCRYPTION_NAME;
	uint32_t flags = 0;
	int ret;

	if (kind && !strcmp(kind, "len")) {
		len = 30;
	} else if (kind && !strcmp(kind, "version")) {
		c[0] = 1;
	} else if (kind && !strcmp(kind, "name")) {
		name = "d";
	} else if (kind && !strcmp(kind, "remove")) {
		len = 0;
		flags = NOVA_XATTR_REMOVE;
	} else if (kind) {
		return -1;
	}
	ret = nv_append_xattr(fs, w, NOVA_XATTR_INDEX_ENCRYPTION, name, 1, c,
			      len, flags, 0, NULL);
	if (!ret && kind)
		ret = nv_append_link_change(fs, w, NULL);
	if (ret)
		return ret;
	nv_log_commit(fs, w);
	set_incompat(fs, NOVA_FEATURE_INCOMPAT_XATTR, true);
	set_incompat(fs, NOVA_FEATURE_INCOMPAT_ENCRYPT, true);
	return 0;
}

/* put_context() on PATH */
static int encrypt(struct nv_fs *fs, const char *path, int version,
		   const char *kind)
{
	struct nv_inode_state st;
	struct nv_wlog w;

	if ((version != 1 && version != 2) || inj_state(fs, path, &st))
		return -1;
	nv_wlog_from_state(&w, &st);
	nv_ifree(&st);
	return put_context(fs, &w, version, kind);
}

/* @hex (pairs of hex digits) into @out (@max bytes); its length, 0 if bad */
static size_t parse_hex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (hex[0] && hex[1] && n < max && sscanf(hex, "%2x", &b) == 1) {
		out[n++] = b;
		hex += 2;
	}
	return *hex ? 0 : n;
}

/*
 * A new inode of @type named by the bytes @hexname in directory @dir, as
 * namei.c creates it: its own log first (with @enc, its fscrypt context
 * before everything, "." and ".." or the target), the dentry in @dir
 * (committed), then the valid byte.  @type: file, dir, symlink (target
 * "target") or cipher-symlink (a target in fscrypt's form: __le16 length,
 * ciphertext with '/' and NUL, a NUL).
 */
static int create_raw(struct nv_fs *fs, const char *dir, const char *hexname,
		      const char *type, bool enc)
{
	static const uint8_t cipher[] = "\x9c/\0\x01\xfe\n/zzzzzzzzzzz";
	uint8_t name[NOVA_NAME_LEN], t[NOVA_BLOCK_SIZE];
	size_t len = parse_hex(hexname, name, sizeof(name)), tlen = 0;
	struct nv_inode_state st;
	struct nv_wlog dw, w;
	struct nv_attr a;
	uint64_t blk;
	int ret = 0;

	memset(&a, 0, sizeof(a));
	a.atime = a.mtime = a.ctime = a.btime = nv_now();
	a.links = 1;
	if (!strcmp(type, "file")) {
		a.mode = S_IFREG | 0600;
	} else if (!strcmp(type, "dir")) {
		a.mode = S_IFDIR | 0700;
		a.links = 2;
		a.size = NOVA_BLOCK_SIZE;
	} else if (!strcmp(type, "symlink")) {
		a.mode = S_IFLNK | 0777;
		tlen = 6;
		memcpy(t, "target", tlen);
	} else if (!strcmp(type, "cipher-symlink")) {
		a.mode = S_IFLNK | 0777;
		t[0] = sizeof(cipher) - 1;
		t[1] = 0;
		memcpy(t + 2, cipher, sizeof(cipher));	/* and its NUL */
		tlen = 2 + sizeof(cipher) - 1;
	} else {
		return -1;
	}
	a.size = tlen ? tlen : a.size;
	if (!len || inj_state(fs, dir, &st))
		return -1;
	nv_wlog_from_state(&dw, &st);
	nv_ifree(&st);
	ret = nv_new_inode(fs, -1, &a, &w);
	if (!ret && enc)
		ret = put_context(fs, &w, 2, NULL);
	if (!ret && S_ISDIR(a.mode)) {
		ret = nv_append_dentry(fs, &w, ".", 1, w.ino, nv_dtype(S_IFDIR),
				       NULL);
		if (!ret)
			ret = nv_append_dentry(fs, &w, "..", 2, dw.ino,
					       nv_dtype(S_IFDIR), NULL);
		dw.links++;
	} else if (!ret && tlen) {
		if (!nv_alloc(fs, 1, -1, false, &blk))
			return -ENOSPC;
		nv_zero(fs, blk << NOVA_BLOCK_SHIFT, NOVA_BLOCK_SIZE);
		nv_put(fs, blk << NOVA_BLOCK_SHIFT, t, tlen);
		ret = nv_append_write(fs, &w, 0, 1, blk << NOVA_BLOCK_SHIFT, NULL);
	}
	if (ret)
		return ret;
	if (w.tail)
		nv_log_commit(fs, &w);
	ret = nv_append_dentry(fs, &dw, (const char *)name, len, w.ino,
			       nv_dtype(a.mode), NULL);
	if (ret)
		return ret;
	nv_log_commit(fs, &dw);
	nv_set_valid(fs, w.ino);
	return 0;
}

/* ---- project quotas ---- */

/* The super block's read-only compatible feature @bit set or cleared */
static void set_ro_compat(struct nv_fs *fs, uint64_t bit, bool on)
{
	struct nova_super_block sb = *(struct nova_super_block *)nv_ptr(fs, 0);

	if (on)
		sb.s_feature_ro_compat |= cpu_to_le64(bit);
	else
		sb.s_feature_ro_compat &= ~cpu_to_le64(bit);
	sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
	nv_put(fs, 0, &sb, sizeof(sb));
	nv_put(fs, nv_replica_sb_off(fs), &sb, sizeof(sb));
}

/* Append @w's link-change entry, commit it, retire the one it replaces */
static int append_lc(struct nv_fs *fs, struct nv_wlog *w)
{
	uint64_t old = w->last_lc;
	int ret = nv_append_link_change(fs, w, NULL);

	if (!ret) {
		nv_log_commit(fs, w);
		if (old)
			nv_invalidate_entry(fs, old);
	}
	return ret;
}

/*
 * Project ID @projid for PATH, and the project feature: @how "pi" in the
 * inode (as the kernel gives a new inode its directory's, with
 * FS_PROJINHERIT_FL), "lc" in a new link-change entry (as
 * FS_IOC_FSSETXATTR logs it, the older one marked dead), whose flags get
 * @flags too
 */
static int set_projid(struct nv_fs *fs, const char *path, uint32_t projid,
		      const char *how, uint32_t flags)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	int ret = -1;

	if (inj_state(fs, path, &st))
		return -1;
	if (!strcmp(how, "pi")) {
		nv_put32(fs, st.pi_off + offsetof(struct nova_inode, i_projid),
			 projid);
		ret = 0;
	} else if (!strcmp(how, "lc")) {
		nv_wlog_from_state(&w, &st);
		w.projid = projid;
		w.flags |= flags;
		ret = append_lc(fs, &w);
	}
	nv_ifree(&st);
	if (!ret)
		set_ro_compat(fs, NOVA_FEATURE_RO_COMPAT_PROJECT, true);
	return ret;
}

/* FS_IOC_SETFLAGS: @flags added to PATH's, in a new link-change entry */
static int set_iflags(struct nv_fs *fs, const char *path, uint32_t flags)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	int ret;

	if (inj_state(fs, path, &st))
		return -1;
	nv_wlog_from_state(&w, &st);
	w.flags |= flags;
	ret = append_lc(fs, &w);
	nv_ifree(&st);
	return ret;
}

/*
 * Each project's usage as the kernel counts it when it turns project
 * quotas on (quota.c nova_prjquota_count(), over nova_walk_inodes()):
 * the root and every inode in use from NOVA_NORMAL_INODE_START (those
 * without a link the mount frees), not those it cannot read nor those
 * of project ID -1; the space in whole blocks, as i_blocks: a file's
 * mapped pages, a symlink's block, a directory's log pages.  Into *@dq,
 * one entry per project, *@n of them, with no limits.
 */
static int count_projects(struct nv_fs *fs, struct nv_dquot **dq, size_t *n)
{
	uint64_t ino, max = nv_max_ino(fs), pages;
	struct nv_inode_state st;
	size_t cap = 0, i;

	*dq = NULL;
	*n = 0;
	for (ino = NOVA_ROOT_INO; ino < max; ino++) {
		if ((ino > NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START) ||
		    !nv_inode_slot_valid(fs, ino))
			continue;
		if (nv_iread(fs, ino, &st, 0, NULL, NULL))
			return -1;
		pages = S_ISDIR(st.mode) ? st.log.npages :
			S_ISREG(st.mode) || S_ISLNK(st.mode) ? st.pages.n : 0;
		if (st.bad || st.log.err || st.projid == UINT32_MAX ||
		    (!st.links && ino != NOVA_ROOT_INO)) {
			nv_ifree(&st);
			continue;
		}
		for (i = 0; i < *n && (*dq)[i].id != st.projid; i++)
			;
		if (i == *n) {
			*dq = nv_grow(*dq, &cap, *n, sizeof(**dq), 16);
			if (!*dq)
				return -1;
			memset(&(*dq)[i], 0, sizeof(**dq));
			(*dq)[i].id = st.projid;
			(*n)++;
		}
		(*dq)[i].curinodes++;
		(*dq)[i].curspace += pages << NOVA_BLOCK_SHIFT;
		nv_ifree(&st);
	}
	return 0;
}

static int cmp_dq(const void *a, const void *b)
{
	const struct nv_dquot *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The entries of the project quota file after a clean unmount with
 * project quotas on: each project's usage counted, then SPEC...: "ID:
 * BSOFT:BHARD:ISOFT:IHARD" the limits of ID (block limits in KiB, as
 * setquota's), "-ID" no entry for ID.  Sorted by ID into *@dq.
 */
static int prj_entries(struct nv_fs *fs, char **spec, int nspec,
		       struct nv_dquot **dq, size_t *n)
{
	size_t cap, i;
	int k;

	if (count_projects(fs, dq, n))
		return -1;
	cap = *n;
	for (k = 0; k < nspec; k++) {
		unsigned long long id, v[4] = { 0 };
		char *p = spec[k];

		id = strtoull(p + (*p == '-'), &p, 0);
		for (i = 0; i < *n && (*dq)[i].id != id; i++)
			;
		if (spec[k][0] == '-') {
			if (i < *n)
				(*dq)[i] = (*dq)[--*n];
			continue;
		}
		if (sscanf(p, ":%llu:%llu:%llu:%llu", &v[0], &v[1], &v[2],
			   &v[3]) != 4) {
			fprintf(stderr, "inject: '%s' is not ID:BSOFT:BHARD:ISOFT:IHARD\n",
				spec[k]);
			return -1;
		}
		if (i == *n) {
			*dq = nv_grow(*dq, &cap, *n, sizeof(**dq), 16);
			if (!*dq)
				return -1;
			memset(&(*dq)[i], 0, sizeof(**dq));
			(*dq)[i].id = id;
			(*n)++;
		}
		(*dq)[i].bsoftlimit = v[0];
		(*dq)[i].bhardlimit = v[1];
		(*dq)[i].isoftlimit = v[2];
		(*dq)[i].ihardlimit = v[3];
	}
	qsort(*dq, *n, sizeof(**dq), cmp_dq);
	return 0;
}

/*
 * The project quota file as quota.c makes it: the project feature, then
 * reserved inode NOVA_PRJQUOTA_INO, a regular file with one link and no
 * name, valid, then (SIZE 0: a crash before the first write) its data,
 * SIZE bytes, one write entry per page: the file the kernel leaves at a
 * clean unmount with project quotas on (prj_entries(): the usage of
 * every project, the limits SPEC... set; libnova's nv_quota_build(), as
 * quota_tree.c inserts them), zeros after it
 */
static int make_prjquota(struct nv_fs *fs, uint64_t size, char **spec,
			 int nspec)
{
	uint64_t off = nv_inode_off(fs, NOVA_PRJQUOTA_INO), pg, blk, b;
	const struct nv_qinfo qi = { .bgrace = NV_QT_GRACE, .igrace = NV_QT_GRACE };
	int64_t now = nv_now();
	struct nv_dquot *dq = NULL;
	struct nova_inode pi;
	uint8_t *qf = NULL;
	struct nv_wlog w;
	size_t n = 0, len = 0, k;
	int ret = 0;

	if (size && (prj_entries(fs, spec, nspec, &dq, &n) ||
		     nv_quota_build(&qi, dq, n, &qf, &len))) {
		free(dq);
		return -1;
	}
	free(dq);
	if (len > size) {
		fprintf(stderr, "inject: the project quota file needs %zu bytes\n",
			len);
		free(qf);
		return -1;
	}
	set_ro_compat(fs, NOVA_FEATURE_RO_COMPAT_PROJECT, true);
	memset(&pi, 0, sizeof(pi));
	pi.i_mode = cpu_to_le16(S_IFREG | 0600);
	pi.i_links_count = cpu_to_le32(1);
	pi.i_atime = pi.i_mtime = pi.i_ctime = pi.i_btime = cpu_to_le64(now);
	pi.i_ino = cpu_to_le64(NOVA_PRJQUOTA_INO);
	nv_put(fs, off, &pi, sizeof(pi));
	nv_set_valid(fs, NOVA_PRJQUOTA_INO);
	memset(&w, 0, sizeof(w));
	w.ino = NOVA_PRJQUOTA_INO;
	w.pi_off = off;
	w.next_tid = 1;
	w.links = 1;
	w.mtime = w.ctime = now;
	for (pg = 0; !ret && pg << NOVA_BLOCK_SHIFT < size; pg++) {
		if (!nv_alloc(fs, 1, -1, false, &blk)) {
			ret = -1;
			break;
		}
		b = blk << NOVA_BLOCK_SHIFT;
		nv_zero(fs, b, NOVA_BLOCK_SIZE);
		k = pg << NOVA_BLOCK_SHIFT;
		if (k < len)
			nv_put(fs, b, qf + k, len - k < NOVA_BLOCK_SIZE ?
			       len - k : NOVA_BLOCK_SIZE);
		w.size = (pg + 1) << NOVA_BLOCK_SHIFT;
		if (w.size > size)
			w.size = size;
		ret = nv_append_write(fs, &w, pg, 1, b, NULL);
		if (!ret)
			nv_log_commit(fs, &w);
	}
	free(qf);
	return ret;
}

/*
 * A full device: PATH's file grows, page after page past its end, over
 * every free block (write entries committed one by one, with its size),
 * until no block is left for its data or its log
 */
static int fill(struct nv_fs *fs, const char *path)
{
	struct nv_inode_state st;
	uint64_t pg, blk, got, last = 0, it = 0, p;
	struct nv_wlog w;

	if (inj_state(fs, path, &st) || !S_ISREG(st.mode))
		return -1;
	while (nv_pmap_next(&st.pages, &it, &p, NULL, NULL))
		last = p + 1 > last ? p + 1 : last;
	pg = last > (st.size + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT ? last :
	     (st.size + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT;
	nv_wlog_from_state(&w, &st);
	nv_ifree(&st);
	while ((got = nv_alloc(fs, 1 << 16, -1, true, &blk))) {
		nv_zero(fs, blk << NOVA_BLOCK_SHIFT, got << NOVA_BLOCK_SHIFT);
		w.size = (pg + got) << NOVA_BLOCK_SHIFT;
		if (nv_append_write(fs, &w, pg, got, blk << NOVA_BLOCK_SHIFT, NULL))
			break;
		nv_log_commit(fs, &w);
		pg += got;
	}
	return 0;
}

/* ---- damage in the project quota file's tree, in place ---- */

/* The image offset of byte @pos of the quota file @st, 0 if not mapped */
static uint64_t qf_off(const struct nv_inode_state *st, uint64_t pos)
{
	uint64_t blk;

	if (pos >= st->size ||
	    !nv_pmap_get(&st->pages, pos >> NOVA_BLOCK_SHIFT, &blk, NULL))
		return 0;
	return blk + (pos & (NOVA_BLOCK_SIZE - 1));
}

/* Byte @at of 1 KiB block @b of the quota file, 0 if not there */
static uint64_t qf_at(const struct nv_inode_state *st, uint64_t b,
		      unsigned int at)
{
	return qf_off(st, (b << NV_QT_BLOCK_BITS) + at);
}

static uint32_t qf_get32(struct nv_fs *fs, const struct nv_inode_state *st,
			 uint64_t b, unsigned int at)
{
	uint64_t o = qf_at(st, b, at);

	return o ? le32toh(*(uint32_t *)nv_ptr(fs, o)) : 0;
}

/*
 * The block of level @level (0: the root, NV_QT_DEPTH: the data block)
 * on @id's path, 0 if the path stops before
 */
static uint32_t qf_path(struct nv_fs *fs, const struct nv_inode_state *st,
			uint32_t id, int level)
{
	uint32_t b = NV_QT_TREEOFF;
	int d;

	for (d = 0; d < level && b; d++)
		b = qf_get32(fs, st, b, 4 * ((id >> (8 * (NV_QT_DEPTH - 1 - d))) & 0xff));
	return b;
}

/* A block number: N, or =ID:LEVEL (qf_path()); 0 if none */
static uint32_t qf_block(struct nv_fs *fs, const struct nv_inode_state *st,
			 const char *arg)
{
	unsigned int id;
	int level;

	if (sscanf(arg, "=%u:%d", &id, &level) == 2)
		return level >= 0 && level <= NV_QT_DEPTH ?
		       qf_path(fs, st, id, level) : 0;
	return strtoul(arg, NULL, 0);
}

/* Store the @width-byte value @v at byte @at of block @b: -1 if not there */
static int qf_put(struct nv_fs *fs, const struct nv_inode_state *st,
		  uint64_t b, unsigned int at, int width, uint64_t v)
{
	uint64_t o = qf_at(st, b, at);

	if (!o)
		return -1;
	if (width == 8)
		nv_put64(fs, o, v);
	else if (width == 4)
		nv_put32(fs, o, v);
	else
		nv_put(fs, o, &(uint16_t){ htole16(v) }, 2);
	return 0;
}

/* Byte offset and width of field @name in @names (NULL-terminated) */
struct qf_field {
	const char *name;
	unsigned int at;
	int width;
};

static const struct qf_field *qf_field(const struct qf_field *f,
				       const char *name)
{
	for (; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	fprintf(stderr, "inject: unknown field '%s'\n", name);
	return NULL;
}

/*
 * Damage, or a state a crash leaves, in the project quota file's tree,
 * written in place (KIND ARGS):
 *   ref ID LEVEL BLOCK        the reference on ID's path in its tree
 *                             block of LEVEL (0: the root) set to BLOCK
 *   entry ID FIELD VALUE      a field of ID's entry (id, ihard, isoft,
 *                             inodes, bhard, bsoft, space, btime, itime)
 *   info FIELD VALUE          a field of the info block (bgrace, igrace,
 *                             flags, blocks, free_blk, free_entry)
 *   dqdh BLOCK FIELD VALUE    a field of a data block's header (next,
 *                             prev, entries)
 *   free N [cycle]            N more blocks, after the info block's
 *                             count, on the free-block list as
 *                             put_free_dqblk() puts them (cycle: the last
 *                             one linked back to the first)
 * A BLOCK or VALUE of the form =ID:LEVEL is the block of LEVEL on ID's
 * path (NV_QT_DEPTH: its data block).
 */
static int prjquota_tree(struct nv_fs *fs, char **argv, int argc)
{
	static const struct qf_field entry[] = {
		{ "id", 0, 4 }, { "ihard", 8, 8 }, { "isoft", 16, 8 },
		{ "inodes", 24, 8 }, { "bhard", 32, 8 }, { "bsoft", 40, 8 },
		{ "space", 48, 8 }, { "btime", 56, 8 }, { "itime", 64, 8 },
		{ NULL, 0, 0 } };
	static const struct qf_field info[] = {
		{ "bgrace", 8, 4 }, { "igrace", 12, 4 }, { "flags", 16, 4 },
		{ "blocks", 20, 4 }, { "free_blk", 24, 4 },
		{ "free_entry", 28, 4 }, { NULL, 0, 0 } };
	static const struct qf_field dqdh[] = {
		{ "next", 0, 4 }, { "prev", 4, 4 }, { "entries", 8, 2 },
		{ NULL, 0, 0 } };
	const struct qf_field *f;
	struct nv_inode_state st;
	const char *kind = argv[0];
	uint32_t id, b, blocks, head, k, n;
	int ret = -1, level;

	if (nv_iread(fs, NOVA_PRJQUOTA_INO, &st, 0, NULL, NULL))
		return -1;
	id = argc >= 2 ? strtoul(argv[1], NULL, 0) : 0;
	if (argc >= 4 && !strcmp(kind, "ref")) {
		level = atoi(argv[2]);
		b = level >= 0 && level < NV_QT_DEPTH ? qf_path(fs, &st, id, level) : 0;
		if (b)
			ret = qf_put(fs, &st, b,
				     4 * ((id >> (8 * (NV_QT_DEPTH - 1 - level))) & 0xff),
				     4, qf_block(fs, &st, argv[3]));
	} else if (argc >= 4 && !strcmp(kind, "entry") &&
		   (f = qf_field(entry, argv[2]))) {
		b = qf_path(fs, &st, id, NV_QT_DEPTH);
		for (k = 0; b && k < NV_QT_PER_BLOCK; k++) {
			uint64_t o = qf_at(&st, b, NV_QT_DQDH + k * NV_QT_ENTRY);
			const uint8_t *e = o ? nv_ptr(fs, o) : NULL;
			unsigned int i;

			for (i = 0; e && i < NV_QT_ENTRY && !e[i]; i++)
				;
			if (e && i < NV_QT_ENTRY && qf_get32(fs, &st, b, NV_QT_DQDH +
							    k * NV_QT_ENTRY) == id)
				break;
		}
		if (b && k < NV_QT_PER_BLOCK)
			ret = qf_put(fs, &st, b, NV_QT_DQDH + k * NV_QT_ENTRY + f->at,
				     f->width, strtoull(argv[3], NULL, 0));
	} else if (argc >= 3 && !strcmp(kind, "info") &&
		   (f = qf_field(info, argv[1]))) {
		ret = qf_put(fs, &st, 0, f->at, f->width, qf_block(fs, &st, argv[2]));
	} else if (argc >= 4 && !strcmp(kind, "dqdh") &&
		   (f = qf_field(dqdh, argv[2]))) {
		b = qf_block(fs, &st, argv[1]);
		if (b)
			ret = qf_put(fs, &st, b, f->at, f->width,
				     qf_block(fs, &st, argv[3]));
	} else if (argc >= 2 && !strcmp(kind, "free")) {
		n = id;
		blocks = qf_get32(fs, &st, 0, 20);
		head = qf_get32(fs, &st, 0, 24);
		ret = 0;
		for (k = 0; k < n && !ret; k++) {
			b = blocks + k;
			ret = qf_put(fs, &st, b, 0, 4, head) ||
			      qf_put(fs, &st, b, 4, 4, 0) ||
			      qf_put(fs, &st, b, 8, 2, 0);
			head = b;
		}
		if (!ret && n && argc >= 3 && !strcmp(argv[2], "cycle"))
			ret = qf_put(fs, &st, blocks, 0, 4, head);
		if (!ret)
			ret = qf_put(fs, &st, 0, 20, 4, blocks + n) ||
			      qf_put(fs, &st, 0, 24, 4, head);
	}
	nv_ifree(&st);
	return ret;
}

/*
 * The project quota file made unusable: KIND mode (no file type), dir
 * (a directory's mode), links N (link count N), magic (its header's
 * magic number), ino (its slot holds inode number 7)
 */
static int bad_prjquota(struct nv_fs *fs, const char *kind, const char *arg)
{
	uint64_t off = nv_inode_off(fs, NOVA_PRJQUOTA_INO), blk;
	struct nv_inode_state st;
	uint16_t mode;

	if (!nv_inode_slot_valid(fs, NOVA_PRJQUOTA_INO)) {
		fprintf(stderr, "inject: no project quota file\n");
		return -1;
	}
	if (!strcmp(kind, "mode") || !strcmp(kind, "dir")) {
		mode = htole16(kind[0] == 'm' ? 0600 : S_IFDIR | 0700);
		nv_put(fs, off + offsetof(struct nova_inode, i_mode), &mode, 2);
	} else if (!strcmp(kind, "links") && arg) {
		nv_put32(fs, off + offsetof(struct nova_inode, i_links_count),
			 atoi(arg));
	} else if (!strcmp(kind, "magic")) {
		if (nv_iread(fs, NOVA_PRJQUOTA_INO, &st, 0, NULL, NULL) ||
		    !nv_pmap_get(&st.pages, 0, &blk, NULL))
			return -1;
		nv_put32(fs, blk, NV_PRJQUOTA_MAGIC ^ 0x100);
		nv_ifree(&st);
	} else if (!strcmp(kind, "ino")) {
		nv_put64(fs, off + offsetof(struct nova_inode, i_ino), 7);
	} else {
		return -1;
	}
	return 0;
}

/*
 * Kinds (PATH arguments name files in the image, or are inode numbers):
 *   sb-garbage | replica-garbage | sb-csum
 *   reserved-replica            change the replica of the root inode
 *   itable-next-range | itable-loop           stripe 0's table chain
 *   log-next-range PATH | log-loop PATH       (PATH's log has >= 2 pages)
 *   log-tail-outside PATH
 *   last-csum PATH | last-type PATH           PATH's last log entry
 *   mid-csum PATH N                           PATH's N-th log entry
 *   dentry-free DIR NAME                      a name -> a free inode
 *   file-links PATH N | dir-links PATH N      log a wrong link count
 *   orphan PATH                               remove PATH's name only
 *   orphan0 PATH                              ... and log 0 links
 *   dup-block PATH1 PATH2                     PATH2's page 0 -> PATH1's
 *   journal PATH                              uncommitted transaction
 *   dotdot PATH DIR                           PATH's ".." -> DIR
 *   ftype DIR NAME                            wrong file_type in a name
 *   dead-flag DIR NAME                        mark a live dentry dead
 *   dead-lc PATH                              mark PATH's live link-change
 *                                             entry dead
 *   tail-counters PATH                        page-tail invalid count
 *   cycle PARENT/A A/B                        A unreachable, in a cycle
 *   dir-hardlink DIR TARGETDIR NAME           a second directory name
 *   dup-cookie DIR NAME1 NAME2                NAME2 takes NAME1's cookie
 *   tid PATH                                  last entry's trans_id = 1
 *   log-head PATH                             log head out of range
 *   ino-mismatch PATH                         wrong i_ino in the slot
 *   bad-symlink PATH | bad-mode PATH
 *   journal-corrupt PATH                      open transaction, bad entry
 *   journal-wrap PATH                         ... entry at address 2^64-8
 *   set-clean | set-error                     super block state bits
 *   sb-state                                  an unknown state bit
 *   sb-differ                                 replica's mount count
 *   journal-tail                              stripe 0's journal tail
 *                                             misaligned
 *   journal-head | journal-table              ... its head outside the
 *                                             data area / in an inode
 *                                             table block
 *   root-invalid                              root's valid byte cleared
 *   reserved-slot                             a reserved slot with a
 *                                             wrong inode number
 *   tail-no-head PATH                         log head 0, tail kept
 *   snapshot | snapshot-stale                 a clean-unmount snapshot
 *                                             with / without the flag
 *   snapshot-bad PATH                         ... listing PATH's data
 *                                             block 0 as free
 *   snapshot-drop-ino PATH                    the clean-unmount snapshot
 *                                             (the kernel's, or one made
 *                                             above) no longer lists
 *                                             PATH's inode as in use
 *   snapshot-free-used PATH                   ... lists stripe 0's journal
 *                                             page and PATH's first log
 *                                             page as free
 *   snapshot-extra-page [old]                 ... has a page more than
 *                                             its first page says (with
 *                                             old: says nothing, as
 *                                             before the count)
 *   invalid-pages PATH                        last write entry claims
 *                                             all its pages superseded
 *   write-flags PATH FLAGS                    last write entry gets
 *                                             FLAGS (checksum redone)
 *   gc-selfck DIR NAME                        NAME re-logged with its
 *                                             own cookie
 *   xattr-bad PATH KIND [NAME]                a malformed xattr group
 *                                             (xbad() above; user.NAME,
 *                                             user.bad by default), then
 *                                             a link-change entry
 *   xattr-dead PATH NAME                      NAME's live group dead
 *   clear-feature [encrypt|project|reflink]   super block without
 *                                             NOVA_FEATURE_INCOMPAT_XATTR
 *                                             (_ENCRYPT, _RO_COMPAT_PROJECT,
 *                                             _REFLINK)
 *   clone SRC DST N DPG SFLAGS DFLAGS         SRC's pages 0..N-1 mapped at
 *                                             DST's from DPG too, the
 *                                             write entries' flags SFLAGS,
 *                                             DFLAGS (clone_pages(); 2 2:
 *                                             a clone, consistent), the
 *                                             reflink feature
 *   log-block PATH1 PATH2 FLAGS               PATH2's page 0 -> PATH1's
 *                                             first log page, FLAGS, the
 *                                             reflink feature
 *   prjquota-bad KIND [N]                     the project quota file
 *                                             unusable (bad_prjquota())
 *   encrypt-bad PATH KIND                     a malformed fscrypt context
 *                                             (put_context()), then a
 *                                             link-change entry
 *   sb-encoding ENC FLAGS                     s_encoding, s_encoding_flags
 * and kernel-like updates that leave a consistent file system:
 *   gc-window PATH | gc-done PATH             thorough GC of PATH's log,
 *                                             before / after the head switch
 *   prealloc PATH | prealloc-extend PATH      blocks kept past EOF, a
 *                                             chmod, (a truncate up and
 *                                             data in them), a snapshot
 *   overwrite PATH                            COW rewrite of page 0
 *   unlink PATH                               remove one of PATH's names
 *   xattr-set PATH NAME VALUE                 setxattr (VALUE: as for
 *                                             the setxattr command)
 *   xattr-remove PATH NAME                    removexattr
 *   xattr-cut PATH NAME VALUE                 setxattr, crash after the
 *                                             older group's part 0 died
 *   xattr-orphans PATH                        xattr parts without part 0
 *   encrypt PATH 1|2                          FS_IOC_SET_ENCRYPTION_POLICY
 *                                             (a v1 or v2 context)
 *   create-raw DIR HEXNAME TYPE [enc]         a new inode named by the
 *                                             bytes HEXNAME (create_raw();
 *                                             enc: with a v2 context)
 *   projid PATH N pi|lc [FLAGS]               project ID N in the inode
 *                                             or a link-change entry
 *                                             (with FLAGS), the feature
 *   iflags PATH FLAGS                         inode flags FLAGS added by a
 *                                             link-change entry (chattr)
 *   prjquota SIZE [SPEC...]                   the project quota file, of
 *                                             SIZE bytes, the feature: the
 *                                             usage counted, the limits
 *                                             SPEC... (make_prjquota())
 *   prjquota-tree KIND ARGS                   damage in its tree
 *                                             (prjquota_tree())
 *   set-prjquota                              NOVA_STATE_PRJQUOTA set
 *   fill PATH                                 PATH grows over every free
 *                                             block: a full device
 *   stale-free                                every free block filled
 *                                             with 0xa5 bytes, as the
 *                                             data a block keeps when it
 *                                             is freed: a new block that
 *                                             was not written shows
 */
int inject(int argc, char **argv)
{
	const char *img = argv[0], *kind = argv[1];
	struct nv_inode_state st, st2;
	struct nv_wlog w;
	struct nv_fs fs;
	uint64_t off;
	int ret = 0;

	if (inj_open(&fs, img))
		return 2;
	if (!strcmp(kind, "sb-garbage")) {
		memset(nv_ptr(&fs, 0), 0x5a, 512);
	} else if (!strcmp(kind, "replica-garbage")) {
		memset(nv_ptr(&fs, nv_replica_sb_off(&fs)), 0xa5, 512);
	} else if (!strcmp(kind, "sb-csum")) {
		/* a field changed without updating the checksum */
		struct nova_super_block *s = nv_ptr(&fs, 0);

		s->s_mount_count = cpu_to_le32(le32_to_cpu(s->s_mount_count) + 7);
	} else if (!strcmp(kind, "reserved-replica")) {
		struct nova_inode *r = nv_ptr(&fs, ((fs.nblocks - 2) << NOVA_BLOCK_SHIFT) +
					      NOVA_ROOT_INO * sizeof(struct nova_inode));

		r->i_mode = cpu_to_le16(S_IFREG | 0644);
		r->i_uid = cpu_to_le32(4242);
	} else if (!strcmp(kind, "itable-next-range")) {
		struct nv_itable *t = &fs.itab[0];

		nv_put64(&fs, t->blocks[t->n - 1] + fs.itbs - 8, 0xdead000ULL << 24);
	} else if (!strcmp(kind, "itable-loop")) {
		struct nv_itable *t = &fs.itab[0];

		nv_put64(&fs, t->blocks[t->n - 1] + fs.itbs - 8, t->blocks[0]);
	} else if (argc >= 3 && (!strcmp(kind, "log-next-range") ||
				 !strcmp(kind, "log-loop"))) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		if (st.log.npages < 2) {
			fprintf(stderr, "inject: %s has %zu log pages\n", argv[2],
				st.log.npages);
			return 1;
		}
		/* the last page of the chain points out of range / back */
		off = st.log.pages[st.log.npages - 1] + NOVA_LOG_LAST_ENTRY +
		      offsetof(struct nova_log_page_tail, next_page);
		nv_put64(&fs, off, kind[4] == 'n' ? (fs.nblocks + 5) << NOVA_BLOCK_SHIFT :
			 st.log.pages[0]);
	} else if (argc >= 3 && !strcmp(kind, "log-tail-outside")) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		/* a tail in a block that is not part of the log */
		if (!nv_alloc(&fs, 1, 0, false, &off))
			return 1;
		nv_put64(&fs, st.pi_off + offsetof(struct nova_inode, log_tail),
			 (off << NOVA_BLOCK_SHIFT) + 64);
	} else if (argc >= 3 && (!strcmp(kind, "last-csum") ||
				 !strcmp(kind, "last-type"))) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		off = last_entry(&fs, &st);
		if (!off)
			return 1;
		if (kind[5] == 'c')
			((uint8_t *)nv_ptr(&fs, off))[8] ^= 0x40;
		else
			nv_put8(&fs, off, 0x7f);
	} else if (argc >= 4 && !strcmp(kind, "dentry-free")) {
		/* a new name pointing to an inode number whose slot is free */
		uint64_t ino, free_ino = 0;

		if (inj_state(&fs, argv[2], &st))
			return 1;
		for (ino = NOVA_NORMAL_INODE_START; ino < nv_max_ino(&fs); ino++)
			if (nv_inode_off(&fs, ino) && !nv_inode_slot_valid(&fs, ino)) {
				free_ino = ino;
				break;
			}
		nv_wlog_from_state(&w, &st);
		ret = nv_append_dentry(&fs, &w, argv[3], strlen(argv[3]),
				       free_ino, nv_dtype(S_IFREG), NULL);
		nv_log_commit(&fs, &w);
	} else if (argc >= 4 && (!strcmp(kind, "file-links") ||
				 !strcmp(kind, "dir-links"))) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		nv_wlog_from_state(&w, &st);
		w.links = atoi(argv[3]);
		ret = nv_append_link_change(&fs, &w, NULL);
		nv_log_commit(&fs, &w);
	} else if (argc >= 3 && (!strcmp(kind, "orphan") ||
				 !strcmp(kind, "orphan0"))) {
		/* remove the name (as unlink would) but not the inode */
		char *dir = strdup(argv[2]), *base = strrchr(dir, '/');
		struct nv_dent *de;

		*base++ = '\0';
		if (inj_state(&fs, *dir ? dir : "/", &st) ||
		    !(de = nv_dir_lookup(&st.dir, base, strlen(base))))
			return 1;
		off = de->ino;
		if (nv_iread(&fs, off, &st2, 0, NULL, NULL))
			return 1;
		nv_wlog_from_state(&w, &st);
		/* orphan0 of a directory: the parent loses its link, as in rmdir */
		if (kind[6] == '0' && S_ISDIR(st2.mode))
			w.links--;
		ret = nv_append_dentry(&fs, &w, base, strlen(base), 0, 0, NULL);
		nv_log_commit(&fs, &w);
		if (!ret && kind[6] == '0') {
			nv_wlog_from_state(&w, &st2);
			w.links = 0;
			ret = nv_append_link_change(&fs, &w, NULL);
			nv_log_commit(&fs, &w);
		}
	} else if (argc >= 4 && !strcmp(kind, "dup-block")) {
		uint64_t blk;

		if (inj_state(&fs, argv[2], &st) || inj_state(&fs, argv[3], &st2) ||
		    !nv_pmap_get(&st.pages, 0, &blk, NULL))
			return 1;
		nv_wlog_from_state(&w, &st2);
		ret = nv_append_write(&fs, &w, 0, 1, blk, NULL);
		nv_log_commit(&fs, &w);
	} else if (argc >= 3 && !strcmp(kind, "journal")) {
		/*
		 * An uncommitted transaction: a link-change entry appended to
		 * PATH and committed (its tail stored) after the old tail was
		 * journaled in stripe 0, with no journal commit.
		 */
		if (inj_state(&fs, argv[2], &st))
			return 1;
		journal_open(&fs, st.pi_off + offsetof(struct nova_inode, log_tail),
			     st.pi.log_tail, false);
		nv_wlog_from_state(&w, &st);
		w.links += 5;
		ret = nv_append_link_change(&fs, &w, NULL);
		nv_log_commit(&fs, &w);
	} else if (argc >= 4 && !strcmp(kind, "dotdot")) {
		ret = inj_dir_dentry(&fs, argv[2], "..", nv_lookup_path(&fs, argv[3]));
	} else if (argc >= 4 && !strcmp(kind, "ftype")) {
		struct nv_dent *de;

		if (inj_state(&fs, argv[2], &st) ||
		    !(de = nv_dir_lookup(&st.dir, argv[3], strlen(argv[3]))))
			return 1;
		nv_put8(&fs, de->off + offsetof(struct nova_dentry, file_type),
			nv_dtype(S_IFSOCK));
		recsum(&fs, de->off);
	} else if (argc >= 4 && !strcmp(kind, "dead-flag")) {
		struct nv_dent *de;

		if (inj_state(&fs, argv[2], &st) ||
		    !(de = nv_dir_lookup(&st.dir, argv[3], strlen(argv[3]))))
			return 1;
		nv_invalidate_entry(&fs, de->off);
	} else if (argc >= 3 && !strcmp(kind, "dead-lc")) {
		if (inj_state(&fs, argv[2], &st) || !st.last_lc)
			return 1;
		nv_invalidate_entry(&fs, st.last_lc);
	} else if (argc >= 3 && !strcmp(kind, "tail-counters")) {
		if (inj_state(&fs, argv[2], &st) || st.log.npages < 2)
			return 1;
		/* claim every entry of the first page is dead */
		nv_put32(&fs, st.log.pages[0] + NOVA_LOG_LAST_ENTRY +
			 offsetof(struct nova_log_page_tail, invalid_entries),
			 st.log.nent[0]);
		nv_put32(&fs, st.log.pages[0] + NOVA_LOG_LAST_ENTRY +
			 offsetof(struct nova_log_page_tail, num_entries),
			 st.log.nent[0]);
	} else if (argc >= 4 && !strcmp(kind, "cycle")) {
		/* PARENT/A loses its name; A/B gets a name "loop" -> A */
		char *dir = strdup(argv[2]), *base = strrchr(dir, '/');
		uint64_t a_ino, b_ino = nv_lookup_path(&fs, argv[3]);

		*base++ = '\0';
		a_ino = nv_lookup_path(&fs, argv[2]);
		if (!a_ino || !b_ino || inj_state(&fs, *dir ? dir : "/", &st))
			return 1;
		nv_wlog_from_state(&w, &st);
		ret = nv_append_dentry(&fs, &w, base, strlen(base), 0, 0, NULL);
		nv_log_commit(&fs, &w);
		if (!ret && !nv_iread(&fs, b_ino, &st2, 0, NULL, NULL)) {
			nv_wlog_from_state(&w, &st2);
			w.links++;
			ret = nv_append_dentry(&fs, &w, "loop", 4, a_ino,
					       nv_dtype(S_IFDIR), NULL);
			nv_log_commit(&fs, &w);
		}
	} else if (argc >= 5 && !strcmp(kind, "dir-hardlink")) {
		/* DIR gets a second name for directory TARGET */
		ret = inj_dir_dentry(&fs, argv[2], argv[4],
				     nv_lookup_path(&fs, argv[3]));
	} else if (argc >= 5 && !strcmp(kind, "dup-cookie")) {
		struct nv_dent *x, *y;

		if (inj_state(&fs, argv[2], &st) ||
		    !(x = nv_dir_lookup(&st.dir, argv[3], strlen(argv[3]))) ||
		    !(y = nv_dir_lookup(&st.dir, argv[4], strlen(argv[4]))))
			return 1;
		nv_put64(&fs, y->off + offsetof(struct nova_dentry, cookie), x->cookie);
		recsum(&fs, y->off);
	} else if (argc >= 3 && !strcmp(kind, "tid")) {
		if (inj_state(&fs, argv[2], &st) || st.log.nentries < 2)
			return 1;
		off = last_entry(&fs, &st);
		switch (*(uint8_t *)nv_ptr(&fs, off)) {
		case NOVA_FILE_WRITE:
			nv_put64(&fs, off + offsetof(struct nova_file_write_entry, trans_id), 1);
			break;
		case NOVA_DIR_LOG:
			nv_put64(&fs, off + offsetof(struct nova_dentry, trans_id), 1);
			break;
		case NOVA_LINK_CHANGE:
			nv_put64(&fs, off + offsetof(struct nova_link_change_entry, trans_id), 1);
			break;
		default:
			return 1;
		}
		recsum(&fs, off);
	} else if (argc >= 3 && !strcmp(kind, "log-head")) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		nv_put64(&fs, st.pi_off + offsetof(struct nova_inode, log_head),
			 (fs.nblocks + 100) << NOVA_BLOCK_SHIFT);
	} else if (argc >= 3 && !strcmp(kind, "ino-mismatch")) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		nv_put64(&fs, st.pi_off + offsetof(struct nova_inode, i_ino),
			 st.ino + 1000);
	} else if (argc >= 3 && !strcmp(kind, "bad-symlink")) {
		if (inj_state(&fs, argv[2], &st) || !st.symlink_block)
			return 1;
		nv_zero(&fs, st.symlink_block, NOVA_BLOCK_SIZE);
	} else if (argc >= 3 && !strcmp(kind, "bad-mode")) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		nv_put(&fs, st.pi_off + offsetof(struct nova_inode, i_mode),
		       &(uint16_t){ htole16(0644) }, 2);
	} else if (argc >= 3 && (!strcmp(kind, "journal-corrupt") ||
				 !strcmp(kind, "journal-wrap"))) {
		/*
		 * An open transaction whose only entry has a bad checksum,
		 * or (wrap) a good one but an address whose 8 bytes wrap
		 * past 2^64 (a range check "addr + 8 <= size" passes it)
		 */
		bool wrap = !strcmp(kind, "journal-wrap");

		if (inj_state(&fs, argv[2], &st))
			return 1;
		journal_open(&fs, wrap ? ~(uint64_t)7 :
			     st.pi_off + offsetof(struct nova_inode, log_tail),
			     st.pi.log_tail, !wrap);
	} else if (!strcmp(kind, "sb-state") || !strcmp(kind, "sb-differ")) {
		/* a valid copy, in both places or only in the replica */
		struct nova_super_block sb = *(struct nova_super_block *)nv_ptr(&fs, 0);

		if (kind[3] == 's')
			sb.s_state |= cpu_to_le32(0x100);
		else
			sb.s_mount_count = cpu_to_le32(le32_to_cpu(sb.s_mount_count) + 3);
		sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
		if (kind[3] == 's')
			nv_put(&fs, 0, &sb, sizeof(sb));
		nv_put(&fs, nv_replica_sb_off(&fs), &sb, sizeof(sb));
	} else if (!strcmp(kind, "journal-tail")) {
		nv_put64(&fs, nv_journal_ptr_off(0) + 8,
			 nv_get64(&fs, nv_journal_ptr_off(0)) + 3);
	} else if (!strcmp(kind, "journal-head") || !strcmp(kind, "journal-table")) {
		off = kind[8] == 'h' ? (fs.nblocks + 5) << NOVA_BLOCK_SHIFT :
		      fs.itab[0].blocks[0];
		nv_put64(&fs, nv_journal_ptr_off(0), off);
		nv_put64(&fs, nv_journal_ptr_off(0) + 8, off);
	} else if (!strcmp(kind, "root-invalid")) {
		nv_put8(&fs, nv_inode_off(&fs, NOVA_ROOT_INO) +
			offsetof(struct nova_inode, i_valid), 0);
	} else if (!strcmp(kind, "reserved-slot")) {
		/* inode 10: reserved (below NOVA_NORMAL_INODE_START), unused */
		off = nv_inode_off(&fs, 10);
		nv_put64(&fs, off + offsetof(struct nova_inode, i_ino), 77);
		nv_put8(&fs, off + offsetof(struct nova_inode, i_valid),
			NOVA_INODE_VALID);
	} else if (argc >= 3 && !strcmp(kind, "tail-no-head")) {
		if (inj_state(&fs, argv[2], &st))
			return 1;
		nv_put64(&fs, st.pi_off + offsetof(struct nova_inode, log_head), 0);
	} else if (!strcmp(kind, "set-clean") || !strcmp(kind, "set-error")) {
		struct nova_super_block sb = *(struct nova_super_block *)nv_ptr(&fs, 0);

		sb.s_state |= cpu_to_le32(kind[4] == 'c' ? NOVA_STATE_CLEAN :
					  NOVA_STATE_ERROR);
		sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
		nv_put(&fs, 0, &sb, sizeof(sb));
		nv_put(&fs, nv_replica_sb_off(&fs), &sb, sizeof(sb));
	} else if (argc >= 4 && !strcmp(kind, "mid-csum")) {
		/* the checksum of PATH's N-th log entry */
		if (inj_state(&fs, argv[2], &st) ||
		    !(off = nth_entry(&fs, &st, strtoull(argv[3], NULL, 0))))
			return 1;
		((uint8_t *)nv_ptr(&fs, off))[8] ^= 0x10;
	} else if (argc >= 3 && !strcmp(kind, "invalid-pages")) {
		/* PATH's last write entry claims superseded pages it has not */
		if (inj_state(&fs, argv[2], &st))
			return 1;
		off = last_entry(&fs, &st);
		if (!off || *(uint8_t *)nv_ptr(&fs, off) != NOVA_FILE_WRITE)
			return 1;
		nv_put32(&fs, off + offsetof(struct nova_file_write_entry, invalid_pages),
			 le32_to_cpu(((struct nova_file_write_entry *)nv_ptr(&fs, off))->num_pages));
	} else if (argc >= 4 && !strcmp(kind, "write-flags")) {
		/* PATH's last write entry with other flags, checksum valid */
		struct nova_file_write_entry *e;

		if (inj_state(&fs, argv[2], &st))
			return 1;
		off = last_entry(&fs, &st);
		if (!off || *(uint8_t *)nv_ptr(&fs, off) != NOVA_FILE_WRITE)
			return 1;
		e = nv_ptr(&fs, off);
		e->flags = strtoul(argv[3], NULL, 0);
		nova_entry_csum(e, sizeof(*e));
	} else if (argc >= 4 && !strcmp(kind, "gc-selfck")) {
		/* DIR's NAME logged again with its own cookie, as a thorough
		 * GC's new log does before its head switch */
		struct nv_dent *de;
		uint64_t cookie, ino;
		uint8_t ft;

		if (inj_state(&fs, argv[2], &st) ||
		    !(de = nv_dir_lookup(&st.dir, argv[3], strlen(argv[3]))))
			return 1;
		cookie = de->cookie;
		ino = de->ino;
		ft = de->ftype;
		nv_wlog_from_state(&w, &st);
		ret = nv_append_dentry(&fs, &w, argv[3], strlen(argv[3]), ino, ft, &off);
		if (!ret) {
			nv_put64(&fs, off + offsetof(struct nova_dentry, cookie), cookie);
			recsum(&fs, off);
			nv_log_commit(&fs, &w);
		}
	} else if (argc >= 3 && (!strcmp(kind, "gc-window") || !strcmp(kind, "gc-done"))) {
		ret = sim_gc(&fs, argv[2], kind[3] == 'd');
	} else if (argc >= 3 && (!strcmp(kind, "prealloc") ||
				 !strcmp(kind, "prealloc-extend"))) {
		ret = sim_prealloc(&fs, argv[2], kind[8] == '-');
	} else if (argc >= 3 && !strcmp(kind, "overwrite")) {
		ret = sim_overwrite(&fs, argv[2]);
	} else if (argc >= 3 && !strcmp(kind, "unlink")) {
		ret = sim_unlink(&fs, argv[2]);
	} else if (argc >= 5 && !strcmp(kind, "xattr-set")) {
		ret = xset(&fs, argv[2], argv[3], argv[4], false, false);
	} else if (argc >= 5 && !strcmp(kind, "xattr-cut")) {
		ret = xset(&fs, argv[2], argv[3], argv[4], false, true);
	} else if (argc >= 4 && !strcmp(kind, "xattr-remove")) {
		ret = xset(&fs, argv[2], argv[3], NULL, true, false);
	} else if (argc >= 4 && !strcmp(kind, "xattr-bad")) {
		ret = xbad(&fs, argv[2], argv[3], argc >= 5 ? argv[4] : NULL);
	} else if (argc >= 4 && !strcmp(kind, "xattr-dead")) {
		ret = xdead(&fs, argv[2], argv[3]);
	} else if (argc >= 3 && !strcmp(kind, "xattr-orphans")) {
		ret = xorphans(&fs, argv[2]);
	} else if (argc >= 3 && !strcmp(kind, "clear-feature") &&
		   !strcmp(argv[2], "project")) {
		set_ro_compat(&fs, NOVA_FEATURE_RO_COMPAT_PROJECT, false);
	} else if (argc >= 3 && !strcmp(kind, "clear-feature") &&
		   !strcmp(argv[2], "reflink")) {
		set_incompat(&fs, NOVA_FEATURE_INCOMPAT_REFLINK, false);
	} else if (argc >= 8 && !strcmp(kind, "clone")) {
		ret = clone_pages(&fs, argv[2], argv[3], strtoull(argv[4], NULL, 0),
				  strtoull(argv[5], NULL, 0),
				  strtoul(argv[6], NULL, 0),
				  strtoul(argv[7], NULL, 0));
	} else if (argc >= 5 && !strcmp(kind, "log-block")) {
		if (inj_state(&fs, argv[2], &st) || !st.log.npages ||
		    inj_state(&fs, argv[3], &st2))
			return 1;
		nv_wlog_from_state(&w, &st2);
		ret = nv_append_write_flags(&fs, &w, 0, 1, st.log.pages[0],
					    strtoul(argv[4], NULL, 0), NULL);
		nv_log_commit(&fs, &w);
		set_incompat(&fs, NOVA_FEATURE_INCOMPAT_REFLINK, true);
	} else if (!strcmp(kind, "clear-feature")) {
		set_incompat(&fs, argc >= 3 && !strcmp(argv[2], "encrypt") ?
			     NOVA_FEATURE_INCOMPAT_ENCRYPT :
			     NOVA_FEATURE_INCOMPAT_XATTR, false);
	} else if (argc >= 4 && !strcmp(kind, "iflags")) {
		ret = set_iflags(&fs, argv[2], strtoul(argv[3], NULL, 0));
	} else if (argc >= 4 && !strcmp(kind, "sb-encoding")) {
		struct nova_super_block sb = *(struct nova_super_block *)nv_ptr(&fs, 0);

		sb.s_encoding = cpu_to_le16(strtoul(argv[2], NULL, 0));
		sb.s_encoding_flags = cpu_to_le16(strtoul(argv[3], NULL, 0));
		sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
		nv_put(&fs, 0, &sb, sizeof(sb));
		nv_put(&fs, nv_replica_sb_off(&fs), &sb, sizeof(sb));
	} else if (argc >= 5 && !strcmp(kind, "projid")) {
		ret = set_projid(&fs, argv[2], strtoul(argv[3], NULL, 0), argv[4],
				 argc >= 6 ? strtoul(argv[5], NULL, 0) : 0);
	} else if (argc >= 3 && !strcmp(kind, "prjquota")) {
		ret = make_prjquota(&fs, strtoull(argv[2], NULL, 0), argv + 3,
				    argc - 3);
	} else if (argc >= 3 && !strcmp(kind, "fill")) {
		ret = fill(&fs, argv[2]);
	} else if (!strcmp(kind, "stale-free")) {
		uint64_t b;

		for (b = fs.data_start; b <= fs.data_end; b++)
			if (!nv_block_used(&fs, b))
				memset(nv_ptr(&fs, b << NOVA_BLOCK_SHIFT), 0xa5,
				       NOVA_BLOCK_SIZE);
	} else if (argc >= 3 && !strcmp(kind, "prjquota-tree")) {
		ret = prjquota_tree(&fs, argv + 2, argc - 2);
	} else if (argc >= 3 && !strcmp(kind, "prjquota-bad")) {
		ret = bad_prjquota(&fs, argv[2], argc >= 4 ? argv[3] : NULL);
	} else if (!strcmp(kind, "set-prjquota")) {
		struct nova_super_block sb = *(struct nova_super_block *)nv_ptr(&fs, 0);

		sb.s_state |= cpu_to_le32(NOVA_STATE_PRJQUOTA);
		sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
		nv_put(&fs, 0, &sb, sizeof(sb));
		nv_put(&fs, nv_replica_sb_off(&fs), &sb, sizeof(sb));
	} else if (argc >= 4 && !strcmp(kind, "encrypt")) {
		ret = encrypt(&fs, argv[2], atoi(argv[3]), NULL);
	} else if (argc >= 4 && !strcmp(kind, "encrypt-bad")) {
		ret = encrypt(&fs, argv[2], 2, argv[3]);
	} else if (argc >= 5 && !strcmp(kind, "create-raw")) {
		ret = create_raw(&fs, argv[2], argv[3], argv[4],
				 argc >= 6 && !strcmp(argv[5], "enc"));
	} else if (!strcmp(kind, "snapshot") || !strcmp(kind, "snapshot-stale")) {
		ret = make_snapshot(&fs, kind[8] != '-', NULL);
	} else if (argc >= 3 && !strcmp(kind, "snapshot-bad")) {
		ret = make_snapshot(&fs, true, argv[2]);
	} else if (argc >= 3 && !strcmp(kind, "snapshot-drop-ino")) {
		ret = snap_drop_ino(&fs, argv[2]);
	} else if (argc >= 3 && !strcmp(kind, "snapshot-free-used")) {
		ret = snap_free_used(&fs, argv[2]);
	} else if (!strcmp(kind, "snapshot-extra-page")) {
		ret = snap_extra_page(&fs, argc >= 3 && !strcmp(argv[2], "old"));
	} else {
		fprintf(stderr, "inject: unknown kind '%s' or missing arguments\n",
			kind);
		return 2;
	}
	if (ret) {
		fprintf(stderr, "inject %s failed (%d)\n", kind, ret);
		return 1;
	}
	if (nv_sync(&fs))
		return 2;
	nv_close(&fs);
	return 0;
}
