// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs.nova -d DIR: copy a host directory tree into a new NOVA file
 * system, writing what the kernel would write for the same sequence of
 * mkdir/create/symlink/mknod/link/write calls:
 *
 *   - every inode is created as nova_new_inode() does (slot not valid,
 *     its own log - "." and ".." or the symlink target - committed, the
 *     dentry in the parent committed, then the valid byte);
 *   - a directory's dentries carry its link count after the operation
 *     and, as mtime, the source directory's mtime (so the replayed
 *     directory has it);
 *   - regular file data: one NOVA_FILE_WRITE entry per run of
 *     contiguous blocks, holes (and all-zero pages) left unmapped, each
 *     entry recording the final size and the source mtime;
 *   - a second name for a non-directory: the dentry plus a
 *     NOVA_LINK_CHANGE entry with the new link count, as link(2) does;
 *   - extended attributes (of every inode, the root's too): one
 *     NOVA_XATTR group each, right after the inode is created, with the
 *     inode's ctime (so they change no time): user., trusted.,
 *     security. and the POSIX ACLs (system.posix_acl_access/_default,
 *     empty names, the value as lgetxattr() gives it: the VFS xattr
 *     form).  Other names are skipped with a warning; a source file
 *     system without xattrs (ENOTSUP) gives none.
 *
 * Inodes are spread over the stripes round-robin (as several CPUs
 * would), and each inode's log and data pages come from its stripe.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "libnova.h"
#include "nova_populate.h"

struct hardlink {
	dev_t dev;
	ino_t ino;
	struct nv_wlog w;
};

struct pop {
	struct nv_fs *fs;
	const struct stat *skip;	/* the image itself, never copied */
	int64_t now;
	struct hardlink *hl;
	size_t nhl, caphl;
	struct nova_populate_stats *stats;
	char path[PATH_MAX];
	uint8_t *buf;
	uint8_t *xbuf;			/* an xattr value, 64 KiB */
};

#define CHUNK_PAGES	256

static void __printf(2, 3)
perr(struct pop *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	nova_vwarn("mkfs.nova", p->path, fmt, ap);
	va_end(ap);
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static const char *errstr(int ret)
{
	return ret == -ENOSPC ? "no space left in the file system" :
	       strerror(-ret);
}

static void attr_from_stat(struct pop *p, const struct stat *st,
			   struct nv_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->mode = st->st_mode & (S_IFMT | 07777);
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->atime = ts_ns(&st->st_atim);
	a->mtime = ts_ns(&st->st_mtim);
	a->ctime = ts_ns(&st->st_ctim);
	a->btime = p->now;
	a->links = S_ISDIR(st->st_mode) ? 2 : 1;
	if (S_ISDIR(st->st_mode))
		a->size = NOVA_BLOCK_SIZE;
	else if (S_ISREG(st->st_mode))
		a->size = st->st_size;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		a->rdev = nv_encode_dev(major(st->st_rdev), minor(st->st_rdev));
}

static bool all_zero(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* One run of non-zero pages [pg, pg + n) whose data is at @data */
static int write_run(struct pop *p, struct nv_wlog *w, uint64_t pg,
		     uint64_t n, const uint8_t *data)
{
	while (n) {
		uint64_t blk, got;
		int ret;

		got = nv_alloc(p->fs, n > UINT32_MAX ? UINT32_MAX : n,
			       (int)(w->ino % p->fs->stripes), true, &blk);
		if (!got)
			return -ENOSPC;
		memcpy(nv_ptr(p->fs, blk << NOVA_BLOCK_SHIFT), data,
		       got << NOVA_BLOCK_SHIFT);
		ret = nv_append_write(p->fs, w, pg, got, blk << NOVA_BLOCK_SHIFT,
				      NULL);
		if (ret)
			return ret;
		p->stats->data_blocks += got;
		pg += got;
		n -= got;
		data += got << NOVA_BLOCK_SHIFT;
	}
	return 0;
}

static int copy_data(struct pop *p, int fd, const struct stat *st,
		     struct nv_wlog *w)
{
	off_t size = st->st_size, pos = 0;
	int ret;

	while (pos < size) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0) {
			if (errno == ENXIO)
				break;
			data = pos;	/* no SEEK_DATA: all data */
			hole = size;
		} else {
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0 || hole > size)
				hole = size;
		}
		data &= ~(off_t)(NOVA_BLOCK_SIZE - 1);
		while (data < hole) {
			size_t want = CHUNK_PAGES << NOVA_BLOCK_SHIFT, got = 0, i;
			uint64_t pg0 = data >> NOVA_BLOCK_SHIFT, run = 0, npages;

			if ((off_t)want > hole - data)
				want = hole - data;
			while (got < want) {
				ssize_t r = pread(fd, p->buf + got, want - got,
						  data + got);

				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0) {
					perr(p, "read failed: %s", strerror(errno));
					return -1;
				}
				if (!r)
					break;
				got += r;
			}
			if (!got) {
				hole = data;	/* the file shrank */
				size = data;
				break;
			}
			/* zero the tail of the last page */
			npages = (got + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT;
			memset(p->buf + got, 0, (npages << NOVA_BLOCK_SHIFT) - got);
			for (i = 0; i <= npages; i++) {
				bool z = i == npages ||
					 all_zero(p->buf + (i << NOVA_BLOCK_SHIFT),
						  NOVA_BLOCK_SIZE);

				if (!z) {
					run++;
					continue;
				}
				if (run) {
					ret = write_run(p, w, pg0 + i - run, run,
							p->buf + ((i - run) << NOVA_BLOCK_SHIFT));
					if (ret) {
						perr(p, "%s", errstr(ret));
						return -1;
					}
				}
				run = 0;
			}
			data += got;
		}
		pos = hole;
	}
	if (w->tail)
		nv_log_commit(p->fs, w);
	p->stats->bytes += st->st_size;
	return 0;
}

/* The names of p->path's extended attributes (not following a symlink) */
static ssize_t list_xattrs(struct pop *p, char **list)
{
	ssize_t n;

	*list = NULL;
	for (;;) {
		char *l;

		n = llistxattr(p->path, NULL, 0);
		if (n <= 0)
			return n;
		l = realloc(*list, n + 1);
		if (!l)
			return -1;
		*list = l;
		n = llistxattr(p->path, *list, n);
		if (n >= 0) {
			(*list)[n] = '\0';
			return n;
		}
		if (errno != ERANGE)	/* else it grew meanwhile */
			return -1;
	}
}

/* Copy p->path's extended attributes into the inode of @w (committed) */
static int copy_xattrs(struct pop *p, struct nv_wlog *w)
{
	char *list, *full;
	ssize_t n = list_xattrs(p, &list), len;
	int ret = 0;

	if (n < 0) {
		free(list);
		if (errno == ENOTSUP)
			return 0;	/* the source keeps none */
		perr(p, "cannot list the extended attributes: %s",
		     strerror(errno));
		return -1;
	}
	for (full = list; !ret && full < list + n; full += strlen(full) + 1) {
		const char *name;
		uint8_t index = nv_xattr_index_of(full, &name);

		if (!index) {
			fprintf(stderr,
				"mkfs.nova: %s: extended attribute %s skipped (NOVA keeps user., trusted., security. and POSIX ACLs)\n",
				p->path, full);
			continue;
		}
		len = lgetxattr(p->path, full, p->xbuf, NOVA_XATTR_VALUE_MAX);
		if (len < 0) {
			if (errno == ENODATA)
				continue;	/* removed meanwhile */
			perr(p, "cannot read the extended attribute %s: %s",
			     full, strerror(errno));
			ret = -1;
			break;
		}
		ret = nv_append_xattr(p->fs, w, index, name, strlen(name),
				      p->xbuf, len, 0, 0, NULL);
		if (ret) {
			perr(p, "%s", errstr(ret));
			ret = -1;
			break;
		}
		p->stats->xattrs++;
	}
	if (!ret && w->tail)
		nv_log_commit(p->fs, w);
	free(list);
	return ret;
}

/*
 * The new inode of @name in @dir (@target: a symlink's), with the
 * extended attributes of p->path, into @child
 */
static int create_inode(struct pop *p, struct nv_wlog *dir, const char *name,
			const struct nv_attr *a, const char *target,
			struct nv_wlog *child)
{
	int ret = nv_create(p->fs, dir, name, strlen(name), a, target, -1,
			    child);

	if (ret) {
		perr(p, "%s", errstr(ret));
		return -1;
	}
	return copy_xattrs(p, child);
}

static struct hardlink *find_link(struct pop *p, const struct stat *st)
{
	size_t i;

	for (i = 0; i < p->nhl; i++)
		if (p->hl[i].dev == st->st_dev && p->hl[i].ino == st->st_ino)
			return &p->hl[i];
	return NULL;
}

static int add_link(struct pop *p, const struct stat *st,
		    const struct nv_wlog *w)
{
	struct hardlink *n = nv_grow(p->hl, &p->caphl, p->nhl, sizeof(*n), 64);

	if (!n)
		return -1;
	p->hl = n;
	p->hl[p->nhl].dev = st->st_dev;
	p->hl[p->nhl].ino = st->st_ino;
	p->hl[p->nhl].w = *w;
	p->nhl++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int populate_dir(struct pop *p, int dfd, struct nv_wlog *dir,
			const struct stat *dst);

static int populate_one(struct pop *p, int dfd, const char *name,
			struct nv_wlog *dir, const struct stat *dst)
{
	struct stat st;
	struct nv_attr a;
	struct nv_wlog child;
	struct hardlink *hl;
	size_t len = strlen(name);
	char target[NOVA_BLOCK_SIZE + 1];
	int ret, fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		perr(p, "cannot stat: %s", strerror(errno));
		return -1;
	}
	if (p->skip && st.st_dev == p->skip->st_dev &&
	    st.st_ino == p->skip->st_ino && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "mkfs.nova: %s: skipping the target image itself\n",
			p->path);
		return 0;
	}
	if (len > NOVA_NAME_LEN) {
		perr(p, "name too long");
		return -1;
	}
	dir->mtime = dir->ctime = ts_ns(&dst->st_mtim);

	hl = !S_ISDIR(st.st_mode) && st.st_nlink > 1 ? find_link(p, &st) : NULL;
	if (hl) {
		ret = nv_append_dentry(p->fs, dir, name, len, hl->w.ino,
				       nv_dtype(st.st_mode), NULL);
		if (ret)
			goto fail;
		nv_log_commit(p->fs, dir);
		hl->w.links++;
		hl->w.ctime = ts_ns(&st.st_ctim);
		ret = nv_append_link_change(p->fs, &hl->w, NULL);
		if (ret)
			goto fail;
		nv_log_commit(p->fs, &hl->w);
		p->stats->hardlinks++;
		return 0;
	}

	attr_from_stat(p, &st, &a);
	switch (st.st_mode & S_IFMT) {
	case S_IFDIR:
		if (create_inode(p, dir, name, &a, NULL, &child))
			return -1;
		p->stats->dirs++;
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd < 0) {
			perr(p, "cannot open directory: %s", strerror(errno));
			return -1;
		}
		ret = populate_dir(p, fd, &child, &st);
		close(fd);
		return ret;
	case S_IFREG:
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			perr(p, "cannot open: %s", strerror(errno));
			return -1;
		}
		if (create_inode(p, dir, name, &a, NULL, &child)) {
			close(fd);
			return -1;
		}
		child.size = st.st_size;
		child.mtime = child.ctime = ts_ns(&st.st_mtim);
		ret = copy_data(p, fd, &st, &child);
		close(fd);
		if (ret)
			return ret;
		p->stats->files++;
		break;
	case S_IFLNK: {
		ssize_t n = readlinkat(dfd, name, target, sizeof(target));

		if (n < 0) {
			perr(p, "cannot read the link: %s", strerror(errno));
			return -1;
		}
		if (!n || n >= NOVA_BLOCK_SIZE) {
			perr(p, "symlink target of %zd bytes (NOVA allows 1-%d)",
			     n, NOVA_BLOCK_SIZE - 1);
			return -1;
		}
		target[n] = '\0';
		a.mode = S_IFLNK | 0777;
		a.size = n;
		if (create_inode(p, dir, name, &a, target, &child))
			return -1;
		p->stats->symlinks++;
		break;
	}
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (create_inode(p, dir, name, &a, NULL, &child))
			return -1;
		p->stats->special++;
		break;
	default:
		perr(p, "unsupported file type 0%o", st.st_mode & S_IFMT);
		return -1;
	}
	if (st.st_nlink > 1 && add_link(p, &st, &child))
		return -1;
	return 0;
fail:
	perr(p, "%s", errstr(ret));
	return -1;
}

static int populate_dir(struct pop *p, int dfd, struct nv_wlog *dir,
			const struct stat *dst)
{
	size_t plen = strlen(p->path), n = 0, cap = 0, i;
	char **names = NULL, **nn;
	struct dirent *de;
	int ret = 0, fd2;
	DIR *d;

	fd2 = dup(dfd);
	d = fd2 < 0 ? NULL : fdopendir(fd2);
	if (!d) {
		perr(p, "cannot read directory: %s", strerror(errno));
		if (fd2 >= 0)
			close(fd2);
		return -1;
	}
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		nn = nv_grow(names, &cap, n, sizeof(*nn), 32);
		if (!nn) {
			ret = -1;
			break;
		}
		names = nn;
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			ret = -1;
			break;
		}
		n++;
	}
	if (!ret && errno) {
		perr(p, "cannot read directory: %s", strerror(errno));
		ret = -1;
	}
	closedir(d);
	if (!ret)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; !ret && i < n; i++) {
		snprintf(p->path + plen, sizeof(p->path) - plen, "/%s", names[i]);
		ret = populate_one(p, dfd, names[i], dir, dst);
		p->path[plen] = '\0';
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int nova_populate(struct nv_fs *fs, const char *src, const struct stat *skip,
		  struct nova_populate_stats *stats)
{
	struct pop p = { .fs = fs, .skip = skip, .stats = stats };
	struct nv_inode_state root;
	struct nv_wlog rw;
	struct stat st;
	struct nova_inode *pi;
	int fd, ret;

	memset(stats, 0, sizeof(*stats));
	p.now = nv_now();
	snprintf(p.path, sizeof(p.path), "%s", src);
	while (strlen(p.path) > 1 && p.path[strlen(p.path) - 1] == '/')
		p.path[strlen(p.path) - 1] = '\0';
	p.buf = malloc((CHUNK_PAGES + 1) << NOVA_BLOCK_SHIFT);
	p.xbuf = malloc(NOVA_XATTR_VALUE_MAX);
	if (!p.buf || !p.xbuf) {
		free(p.buf);
		free(p.xbuf);
		return -1;
	}
	fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		perr(&p, "cannot open directory: %s", strerror(errno));
		free(p.buf);
		free(p.xbuf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fs->next_generation = (uint32_t)p.now ^ (uint32_t)getpid();
	ret = nv_load_itables(fs);
	if (!ret)
		ret = nv_alloc_scan(fs);
	if (!ret)
		ret = nv_iread(fs, NOVA_ROOT_INO, &root, NV_IREAD_NO_DATA, NULL, NULL);
	if (ret) {
		fprintf(stderr, "mkfs.nova: cannot prepare the new file system\n");
		close(fd);
		free(p.buf);
		free(p.xbuf);
		return -1;
	}
	nv_wlog_from_state(&rw, &root);
	nv_ifree(&root);
	/* the root's own extended attributes, with the source's ctime */
	rw.ctime = ts_ns(&st.st_ctim);
	ret = copy_xattrs(&p, &rw);
	if (!ret)
		ret = populate_dir(&p, fd, &rw, &st);
	close(fd);
	if (!ret) {
		/* times of the root, also when its log stays empty */
		pi = nv_pi(fs, rw.pi_off);
		pi->i_atime = cpu_to_le64((uint64_t)ts_ns(&st.st_atim));
		pi->i_mtime = cpu_to_le64((uint64_t)ts_ns(&st.st_mtim));
		pi->i_ctime = cpu_to_le64((uint64_t)ts_ns(&st.st_ctim));
		stats->used_blocks = fs->nblocks - nv_free_blocks(fs);
	}
	free(p.hl);
	free(p.buf);
	free(p.xbuf);
	return ret;
}
