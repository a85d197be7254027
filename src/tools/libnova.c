// SPDX-License-Identifier: GPL-2.0
/*
 * libnova: user-space reader and writer of NOVA images (see libnova.h).
 *
 * The semantics follow the kernel module:
 *   log walk        log.c nova_log_walk(), nova_entry_size()
 *   checksums       log.c nova_entry_crc(): CRC32C of the entry with
 *                   e_csum, the dead flag and (write entries)
 *                   invalid_pages taken as zero
 *   replay          one function per entry type, each named after the
 *                   kernel's: inode.c nova_replay_entry() (replay_entry()),
 *                   dir.c nova_rebuild_entry(), dax.c
 *                   nova_replay_write_entry() and nova_index_set(),
 *                   xattr.c nova_xattr_replay() (the xattr groups),
 *                   inode.c nova_read_inode() (ciphertext names only
 *                   with an fscrypt context, looked for after the replay)
 *   used blocks     bbuild.c, nova_scan_entry() (scan_entry())
 *   appends         log.c nova_log_make_room()/nova_log_append()
 *   new inodes      inode.c nova_new_inode(), namei.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "libnova.h"

/* MAX_LFS_FILESIZE >> NOVA_BLOCK_SHIFT, + 1 (64-bit) */
#define NV_MAX_PAGES	(((((uint64_t)1 << 63) - 1) >> NOVA_BLOCK_SHIFT) + 1)

int64_t nv_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void *nv_grow(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap * 2 : first;

	if (n < *cap)
		return arr;
	arr = realloc(arr, ncap * size);
	if (arr)
		*cap = ncap;
	return arr;
}

/* ---------------------------------------------------------------- open */

int nv_open(struct nv_fs *fs, const char *path, int mode, char *err,
	    size_t errlen)
{
	struct stat st;
	long long size;
	int flags = O_CLOEXEC, prot = PROT_READ, mflags = MAP_SHARED;

	memset(fs, 0, sizeof(*fs));
	fs->fd = -1;
	fs->mode = mode;
	fs->path = path;
	fs->cur_stripe = -1;
	if (mode == NV_OPEN_RW) {
		flags |= O_RDWR;
		prot |= PROT_WRITE;
	} else {
		flags |= O_RDONLY;
		if (mode == NV_OPEN_PRIVATE) {
			/*
			 * Changes stay in memory: only the pages written
			 * take memory, so do not account the whole device
			 * against the commit limit (a device bigger than
			 * RAM and swap would get ENOMEM).
			 */
			prot |= PROT_WRITE;
			mflags = MAP_PRIVATE | MAP_NORESERVE;
		}
	}
	if (stat(path, &st)) {
		snprintf(err, errlen, "cannot access %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s is not a block device or a regular file",
			 path);
		return -1;
	}
	if (S_ISBLK(st.st_mode) && mode == NV_OPEN_RW)
		flags |= O_EXCL;
	fs->fd = open(path, flags);
	if (fs->fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 errno == EBUSY ? "device is in use (mounted?)" :
			 strerror(errno));
		return -1;
	}
	size = nova_dev_size(fs->fd);
	if (size < 0) {
		snprintf(err, errlen, "cannot determine the size of %s", path);
		goto fail;
	}
	if ((unsigned long long)size < NOVA_MIN_SIZE) {
		snprintf(err, errlen, "%s is too small for NOVA (%lld bytes)",
			 path, size);
		goto fail;
	}
	fs->dev_size = size;
	fs->map_size = size & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	fs->map = mmap(NULL, fs->map_size, prot, mflags, fs->fd, 0);
	if (fs->map == MAP_FAILED) {
		fs->map = NULL;
		snprintf(err, errlen, "cannot map %s: %s", path, strerror(errno));
		goto fail;
	}
	fs->own_fd = true;
	return 0;
fail:
	close(fs->fd);
	fs->fd = -1;
	return -1;
}

int nv_open_fd(struct nv_fs *fs, int fd, int mode, char *err, size_t errlen)
{
	long long size = nova_dev_size(fd);
	int prot = PROT_READ, mflags = MAP_SHARED;

	memset(fs, 0, sizeof(*fs));
	fs->fd = fd;
	fs->mode = mode;
	fs->cur_stripe = -1;
	if (mode == NV_OPEN_RW) {
		prot |= PROT_WRITE;
	} else if (mode == NV_OPEN_PRIVATE) {
		prot |= PROT_WRITE;
		mflags = MAP_PRIVATE | MAP_NORESERVE;	/* see nv_open() */
	}
	if (size < (long long)NOVA_MIN_SIZE) {
		snprintf(err, errlen, "device too small or size unknown");
		return -1;
	}
	fs->dev_size = size;
	fs->map_size = size & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	fs->map = mmap(NULL, fs->map_size, prot, mflags, fd, 0);
	if (fs->map == MAP_FAILED) {
		fs->map = NULL;
		snprintf(err, errlen, "cannot map the device: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void nv_open_mem(struct nv_fs *fs, void *buf, uint64_t size)
{
	memset(fs, 0, sizeof(*fs));
	fs->fd = -1;
	fs->mode = NV_OPEN_PRIVATE;
	fs->cur_stripe = -1;
	fs->in_memory = true;
	fs->map = buf;
	fs->dev_size = size;
	fs->map_size = size & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
}

int nv_sync(struct nv_fs *fs)
{
	/* the stores since the last barrier first, as a barrier's */
	nv_barrier(fs);
	if (fs->io_error) {
		errno = fs->io_error;
		return -1;
	}
	if (fs->mode != NV_OPEN_RW || !fs->map || fs->in_memory)
		return 0;
	if (msync(fs->map, fs->map_size, MS_SYNC) || fsync(fs->fd))
		return -1;
	return 0;
}

void nv_close(struct nv_fs *fs)
{
	unsigned int s;

	if (fs->itab) {
		for (s = 0; s < fs->stripes; s++)
			free(fs->itab[s].blocks);
		free(fs->itab);
	}
	free(fs->used);
	free(fs->alloc_hint);
	if (fs->map && !fs->in_memory)
		munmap(fs->map, fs->map_size);
	if (fs->fd >= 0 && fs->own_fd)
		close(fs->fd);
	fs->map = NULL;
	fs->fd = -1;
	fs->itab = NULL;
	fs->used = NULL;
	fs->alloc_hint = NULL;
}

void nv_set_geometry(struct nv_fs *fs, const struct nova_super_block *sb)
{
	fs->sb = *sb;
	fs->size = le64_to_cpu(sb->s_size);
	fs->nblocks = le64_to_cpu(sb->s_num_blocks);
	fs->stripes = le32_to_cpu(sb->s_stripes);
	fs->itbs = le32_to_cpu(sb->s_itable_block_size);
	fs->itb_blocks = fs->itbs >> NOVA_BLOCK_SHIFT;
	fs->per_block = fs->itbs / sizeof(struct nova_inode) - 1;
	fs->data_start = NOVA_HEAD_RESERVED_BLOCKS;
	fs->data_end = fs->nblocks - NOVA_TAIL_RESERVED_BLOCKS - 1;
	fs->journal_pages = le32_to_cpu(sb->s_journal_pages);
	nova_layout_of_super(sb, &fs->layout);
}

uint64_t nv_replica_sb_off(const struct nv_fs *fs)
{
	return (fs->nblocks - 1) << NOVA_BLOCK_SHIFT;
}

static int map_read(void *arg, __u64 off, void *buf, size_t len)
{
	const struct nv_fs *fs = arg;

	if (off > fs->map_size || len > fs->map_size - off)
		return -1;
	memcpy(buf, fs->map + off, len);
	return 0;
}

int nv_load_super(struct nv_fs *fs, unsigned int flags,
		  struct nova_sb_search *s)
{
	struct nova_super_block sb;
	struct nova_sb_search local;
	int which;

	which = nova_find_super(map_read, fs, fs->dev_size, flags, &sb,
				s ? s : &local);
	if (which >= 0)
		nv_set_geometry(fs, &sb);
	return which;
}

void nv_stripe_region(const struct nv_fs *fs, unsigned int s, uint64_t *start,
		      uint64_t *end)
{
	__u64 st, en;

	nova_stripe_region(&fs->layout, s, &st, &en);
	*start = st;
	*end = en;
}

unsigned int nv_stripe_of(const struct nv_fs *fs, uint64_t blk)
{
	return nova_stripe_of(&fs->layout, blk);
}

/* -------------------------------------------------------------- stores */

/* Blocks [@r->lo, @r->hi) and [@lo, @hi): how far apart (0: they touch) */
static uint64_t range_gap(const struct nv_range *r, uint64_t lo, uint64_t hi)
{
	return hi < r->lo ? r->lo - hi : lo > r->hi ? lo - r->hi : 0;
}

/* With ordering on: [@off, @off + @len) stored, not yet durable */
static void track(struct nv_fs *fs, uint64_t off, size_t len)
{
	uint64_t lo = off & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	uint64_t hi = (off + len + NOVA_BLOCK_SIZE - 1) &
		      ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	struct nv_range *r = NULL;
	uint64_t best = UINT64_MAX, gap;
	size_t i;

	if (!fs->ordered || !len)
		return;
	if (fs->store_hook)
		fs->store_hook(fs->order_arg, off, len);
	for (i = 0; i < fs->ndirty; i++) {
		gap = range_gap(&fs->dirty[i], lo, hi);
		if (gap < best) {
			best = gap;
			r = &fs->dirty[i];
		}
	}
	if (best && fs->ndirty < NV_DIRTY_MAX) {
		fs->dirty[fs->ndirty++] = (struct nv_range){ lo, hi };
		return;
	}
	/* touching one, or too many: the closest grows over it */
	if (lo < r->lo)
		r->lo = lo;
	if (hi > r->hi)
		r->hi = hi;
}

/*
 * After an I/O error (with ordering on) no store is made: what the
 * stores after it depend on may not be durable (a dead mark whose
 * superseding commit failed), and the map's pages reach the device even
 * without a sync
 */
void nv_put(struct nv_fs *fs, uint64_t off, const void *src, size_t len)
{
	if (fs->io_error)
		return;
	memmove(fs->map + off, src, len);
	track(fs, off, len);
}

void nv_put64(struct nv_fs *fs, uint64_t off, uint64_t val)
{
	uint64_t v = htole64(val);

	nv_put(fs, off, &v, 8);
}

void nv_put32(struct nv_fs *fs, uint64_t off, uint32_t val)
{
	uint32_t v = htole32(val);

	nv_put(fs, off, &v, 4);
}

void nv_put8(struct nv_fs *fs, uint64_t off, uint8_t val)
{
	nv_put(fs, off, &val, 1);
}

void nv_zero(struct nv_fs *fs, uint64_t off, size_t len)
{
	if (fs->io_error)
		return;
	memset(fs->map + off, 0, len);
	track(fs, off, len);
}

/* ------------------------------------------------------------ ordering */

void nv_set_ordered(struct nv_fs *fs)
{
	fs->ordered = true;
	fs->ndirty = 0;
}

/* The pages of [@off, @off + @len), within the map: false if none */
static bool page_span(const struct nv_fs *fs, uint64_t off, uint64_t len,
		      uint64_t *lo, uint64_t *hi)
{
	static uint64_t page;

	if (!page)
		page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (!len || !fs->map || off >= fs->map_size)
		return false;
	*lo = off & ~(page - 1);
	*hi = off + len > fs->map_size ? fs->map_size : off + len;
	return true;
}

/*
 * msync(MS_SYNC) of the pages [@lo, @hi): it writes the dirty pages there
 * and waits for them, then flushes the device's cache (vfs_fsync_range():
 * for a block device blkdev_fsync(), as fsync()).  Returns 0, or -1 with
 * fs->io_error set.
 */
static int sync_pages(struct nv_fs *fs, uint64_t lo, uint64_t hi)
{
	if (fs->mode == NV_OPEN_RW && !fs->in_memory &&
	    msync(fs->map + lo, hi - lo, MS_SYNC)) {
		if (!fs->io_error)
			fs->io_error = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

int nv_persist(struct nv_fs *fs, uint64_t off, uint64_t len)
{
	uint64_t lo, hi;

#ifdef NV_TEST_UNORDERED
	/* a test build without the ordering (tests/unit/test_powercut.sh) */
	(void)fs;
	(void)off;
	(void)len;
	return 0;
#endif
	if (fs->io_error)
		return -1;
	if (!page_span(fs, off, len, &lo, &hi))
		return 0;
	if (sync_pages(fs, lo, hi))
		return -1;
	if (fs->persist_hook)
		fs->persist_hook(fs->order_arg, lo, hi - lo);
	return 0;
}

int nv_barrier(struct nv_fs *fs)
{
	uint64_t lo, hi, slo = UINT64_MAX, shi = 0;
	int ret = 0, err;
	size_t i;

	if (fs->io_error) {
		fs->ndirty = 0;
		return -1;
	}
	if (fs->ndirty && fs->barrier_hook) {
		err = fs->barrier_hook(fs->order_arg);
		if (err) {
			if (!fs->io_error)
				fs->io_error = -err;
			fs->ndirty = 0;
			return -1;
		}
	}
	for (i = 0; i < fs->ndirty; i++) {
		if (!page_span(fs, fs->dirty[i].lo,
			       fs->dirty[i].hi - fs->dirty[i].lo, &lo, &hi))
			continue;
		slo = lo < slo ? lo : slo;
		shi = hi > shi ? hi : shi;
	}
#ifndef NV_TEST_UNORDERED
	/*
	 * One msync() over the span of the ranges, not one each: the dirty
	 * pages in it are the ranges' (every store is tracked), written in
	 * one call with one cache flush.  The test's model sees the ranges
	 * alone made durable.
	 */
	if (slo < shi && sync_pages(fs, slo, shi))
		ret = -1;
	for (i = 0; !ret && fs->persist_hook && i < fs->ndirty; i++)
		if (page_span(fs, fs->dirty[i].lo,
			      fs->dirty[i].hi - fs->dirty[i].lo, &lo, &hi))
			fs->persist_hook(fs->order_arg, lo, hi - lo);
#endif
	fs->ndirty = 0;
	return ret;
}

int nv_commit(struct nv_fs *fs, uint64_t off, const void *src, size_t len)
{
	if (!fs->ordered) {
		nv_put(fs, off, src, len);
		return 0;
	}
	/* what the commit publishes, durable before it */
	if (fs->io_error || nv_barrier(fs))
		return -1;
	nv_put(fs, off, src, len);
	if (fs->commit_hook)
		fs->commit_hook(fs->order_arg, off, len);
	/* and the commit, before what depends on it */
	return nv_barrier(fs);
}

int nv_commit64(struct nv_fs *fs, uint64_t off, uint64_t val)
{
	uint64_t v = htole64(val);

	return nv_commit(fs, off, &v, 8);
}

/* -------------------------------------------------------- inode tables */

uint64_t nv_itable_ptr_off(unsigned int stripe)
{
	return ((uint64_t)NOVA_INODE_TABLE_BLOCK << NOVA_BLOCK_SHIFT) +
	       (uint64_t)stripe * NOVA_CACHELINE;
}

uint64_t nv_journal_ptr_off(unsigned int stripe)
{
	return ((uint64_t)NOVA_JOURNAL_PTR_BLOCK << NOVA_BLOCK_SHIFT) +
	       (uint64_t)stripe * NOVA_CACHELINE;
}

static int itab_push(struct nv_itable *t, uint64_t blk)
{
	uint64_t *nb = nv_grow(t->blocks, &t->cap, t->n, sizeof(*nb), 8);

	if (!nb)
		return -1;
	t->blocks = nb;
	t->blocks[t->n++] = blk;
	return 0;
}

static bool bit_test(const uint8_t *bm, uint64_t b)
{
	return bm[b >> 3] & (1U << (b & 7));
}

static void bit_set(uint8_t *bm, uint64_t b)
{
	bm[b >> 3] |= 1U << (b & 7);
}

static void bit_clear(uint8_t *bm, uint64_t b)
{
	bm[b >> 3] &= ~(1U << (b & 7));
}

int nv_load_itables(struct nv_fs *fs)
{
	uint8_t *seen;
	unsigned int s;
	uint64_t i;

	if (fs->itab) {
		for (s = 0; s < fs->stripes; s++)
			free(fs->itab[s].blocks);
		free(fs->itab);
	}
	fs->itab = calloc(fs->stripes, sizeof(*fs->itab));
	seen = calloc(fs->nblocks / 8 + 1, 1);
	if (!fs->itab || !seen) {
		free(seen);
		return -1;
	}
	for (s = 0; s < fs->stripes; s++) {
		struct nv_itable *t = &fs->itab[s];
		uint64_t blk = nv_get64(fs, nv_itable_ptr_off(s)), prev = 0;

		while (blk) {
			bool loop = false;

			if (blk & (NOVA_BLOCK_SIZE - 1) ||
			    !nv_range_valid(fs, blk, fs->itbs)) {
				t->err = prev ? NV_CHAIN_RANGE : NV_CHAIN_HEAD;
				t->err_block = prev;
				t->err_ptr = blk;
				break;
			}
			for (i = 0; i < fs->itb_blocks; i++)
				if (bit_test(seen, (blk >> NOVA_BLOCK_SHIFT) + i))
					loop = true;
			if (loop) {
				t->err = prev ? NV_CHAIN_LOOP : NV_CHAIN_HEAD;
				t->err_block = prev;
				t->err_ptr = blk;
				break;
			}
			for (i = 0; i < fs->itb_blocks; i++)
				bit_set(seen, (blk >> NOVA_BLOCK_SHIFT) + i);
			if (itab_push(t, blk)) {
				free(seen);
				return -1;
			}
			prev = blk;
			blk = nv_get64(fs, blk + fs->itbs - 8);
		}
		if (!t->n && !t->err) {
			t->err = NV_CHAIN_HEAD;
			t->err_ptr = 0;
		}
	}
	free(seen);
	return 0;
}

uint64_t nv_inode_off(const struct nv_fs *fs, uint64_t ino)
{
	const struct nv_itable *t;
	uint64_t idx, b;

	if (!ino)
		return 0;
	if (ino < NOVA_NORMAL_INODE_START)
		return ((uint64_t)NOVA_RESERVED_INODE_BLOCK << NOVA_BLOCK_SHIFT) +
		       ino * sizeof(struct nova_inode);
	if (!fs->itab)
		return 0;
	t = &fs->itab[ino % fs->stripes];
	idx = ino / fs->stripes;
	b = idx / fs->per_block;
	if (b >= t->n)
		return 0;
	return t->blocks[b] + (idx % fs->per_block) * sizeof(struct nova_inode);
}

uint64_t nv_max_ino(const struct nv_fs *fs)
{
	uint64_t max = NOVA_NORMAL_INODE_START;
	unsigned int s;

	for (s = 0; s < fs->stripes; s++) {
		uint64_t slots = fs->itab[s].n * fs->per_block;

		if (slots && (slots - 1) * fs->stripes + s + 1 > max)
			max = (slots - 1) * fs->stripes + s + 1;
	}
	return max;
}

bool nv_inode_slot_valid(const struct nv_fs *fs, uint64_t ino)
{
	uint64_t off = nv_inode_off(fs, ino);
	const struct nova_inode *pi;

	if (!off)
		return false;
	pi = nv_pi(fs, off);
	return pi->i_valid == NOVA_INODE_VALID && le64_to_cpu(pi->i_ino) == ino;
}

/* ----------------------------------------------------------- entries */

const char *nv_entry_name(uint8_t type)
{
	switch (type) {
	case NOVA_FILE_WRITE:	return "file write";
	case NOVA_DIR_LOG:	return "directory";
	case NOVA_SET_ATTR:	return "set-attribute";
	case NOVA_LINK_CHANGE:	return "link-change";
	case NOVA_MMAP_WRITE:	return "mmap write";
	case NOVA_NEXT_PAGE:	return "next-page marker";
	case NOVA_XATTR:	return "xattr";
	default:		return "unknown";
	}
}

/* The entry helpers live in nova_lib.h, shared with the module */
size_t nv_entry_size(const uint8_t *p, size_t room)
{
	return nova_entry_size(p, room);
}

int nv_entry_flag_offset(uint8_t type)
{
	return nova_entry_layout_of(type).flag;
}

uint32_t nv_entry_crc(const void *entry, size_t size)
{
	return nova_entry_crc(entry, size);
}

void nv_entry_csum(void *entry, size_t size)
{
	nova_entry_csum(entry, size);
}

bool nv_entry_csum_ok(const void *entry, size_t size)
{
	return nova_entry_csum_ok(entry, size);
}

bool nv_entry_dead(const void *entry)
{
	return nova_entry_is_invalid(entry);
}

uint64_t nv_entry_tid(const void *entry)
{
	return nova_entry_trans_id(entry);
}

/* ------------------------------------------------------------ log walk */

const char *nv_log_strerror(int err)
{
	switch (err) {
	case NV_LOG_OK:			return "ok";
	case NV_LOG_CHAIN:		return "page chain broken before the tail";
	case NV_LOG_TAIL_OUTSIDE:	return "tail outside the page chain";
	case NV_LOG_HEAD_ZERO_TAIL:	return "tail set but no log";
	case NV_LOG_BAD_ENTRY:		return "malformed entry";
	case NV_LOG_CROSS_TAIL:		return "entry crosses the tail";
	case NV_LOG_CSUM:		return "bad checksum";
	case NV_LOG_TID:		return "trans_id not increasing";
	case NV_LOG_SEMANTIC:		return "unexpected entry";
	case NV_LOG_PAST_CHAIN:		return "log runs past its last page";
	case NV_LOG_XATTR_END:		return "log ends inside an xattr group";
	}
	return "?";
}

void nv_log_free(struct nv_log *lg)
{
	free(lg->pages);
	free(lg->nent);
	free(lg->ndead);
	lg->pages = NULL;
	lg->nent = lg->ndead = NULL;
	lg->npages = lg->cap = 0;
}

static int log_push(struct nv_log *lg, uint64_t page)
{
	if (lg->npages == lg->cap) {
		size_t ncap = lg->cap ? lg->cap * 2 : 4;
		uint64_t *p = realloc(lg->pages, ncap * sizeof(*p));
		uint32_t *a, *b;

		if (!p)
			return -1;
		lg->pages = p;
		a = realloc(lg->nent, ncap * sizeof(*a));
		if (!a)
			return -1;
		lg->nent = a;
		b = realloc(lg->ndead, ncap * sizeof(*b));
		if (!b)
			return -1;
		lg->ndead = b;
		lg->cap = ncap;
	}
	lg->nent[lg->npages] = 0;
	lg->ndead[lg->npages] = 0;
	lg->pages[lg->npages++] = page;
	return 0;
}

/* A small open-addressing set of block numbers, for loop detection */
struct u64set {
	uint64_t *k;
	size_t cap, n;
};

static int set_add(struct u64set *s, uint64_t v)	/* 1 if present */
{
	size_t i;

	v++;
	if ((s->n + 1) * 2 > s->cap) {
		struct u64set ns = { .cap = s->cap ? s->cap * 2 : 64 };

		ns.k = calloc(ns.cap, sizeof(*ns.k));
		if (!ns.k)
			return -1;
		for (i = 0; i < s->cap; i++)
			if (s->k[i])
				set_add(&ns, s->k[i] - 1);
		free(s->k);
		*s = ns;
	}
	for (i = (v * 0x9E3779B97F4A7C15ULL) & (s->cap - 1); s->k[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->k[i] == v)
			return 1;
	s->k[i] = v;
	s->n++;
	return 0;
}

int nv_log_chain(struct nv_fs *fs, uint64_t head, struct nv_log *lg,
		 nv_page_fn page_ok, void *page_arg)
{
	struct u64set seen = { 0 };
	uint64_t page = head;

	memset(lg, 0, sizeof(*lg));
	lg->head = head;
	lg->tail_idx = -1;
	lg->good_idx = -1;
	/* to its end (pre-allocated pages past a log's tail too) */
	while (page) {
		if (!nv_page_valid(fs, page)) {
			lg->chain_err = lg->npages ? NV_CHAIN_RANGE : NV_CHAIN_HEAD;
			break;
		}
		if (set_add(&seen, page)) {
			lg->chain_err = NV_CHAIN_LOOP;
			break;
		}
		if (page_ok && !page_ok(page_arg, page)) {
			lg->chain_err = lg->npages ? NV_CHAIN_CONFLICT : NV_CHAIN_HEAD;
			break;
		}
		if (log_push(lg, page)) {
			free(seen.k);
			return -1;
		}
		page = nv_get64(fs, page + NOVA_LOG_LAST_ENTRY +
				offsetof(struct nova_log_page_tail, next_page));
	}
	if (lg->chain_err) {
		lg->chain_err_idx = lg->npages ? lg->npages - 1 : 0;
		lg->chain_err_ptr = page;
	}
	free(seen.k);
	return 0;
}

/* At the end of page @*idx: on to the next page (0), or the problem */
static int next_page(struct nv_log *lg, size_t *idx, uint64_t *cur, char *why,
		     size_t len)
{
	uint64_t page = *cur & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);

	if ((long)*idx == lg->tail_idx) {
		snprintf(why, len, "next-page marker at 0x%llx before the tail",
			 (unsigned long long)*cur);
		return NV_LOG_BAD_ENTRY;
	}
	if (*idx + 1 >= lg->npages) {
		snprintf(why, len, "log continues past page 0x%llx, %s",
			 (unsigned long long)page,
			 lg->chain_err ? "whose next pointer is bad" : "the last one");
		return lg->chain_err ? NV_LOG_CHAIN : NV_LOG_PAST_CHAIN;
	}
	*cur = lg->pages[++*idx];
	return 0;
}

/* The entry at @cur, in page @idx: its size (*size) or its problem */
static int check_entry(const struct nv_log *lg, size_t idx, uint64_t cur,
		       const uint8_t *p, unsigned int flags, size_t *size,
		       char *why, size_t len)
{
	uint64_t in_page = cur & (NOVA_BLOCK_SIZE - 1);
	unsigned long long o = cur;
	uint64_t tid;

	*size = nv_entry_size(p, NOVA_LOG_LAST_ENTRY - in_page);
	if (!*size) {
		if (*p == NOVA_DIR_LOG || *p == NOVA_XATTR)
			snprintf(why, len, "%s entry at 0x%llx has a bad length",
				 *p == NOVA_DIR_LOG ? "directory" : "xattr", o);
		else
			snprintf(why, len, "entry at 0x%llx has unknown type %u",
				 o, *p);
		return NV_LOG_BAD_ENTRY;
	}
	if (in_page + *size > NOVA_LOG_LAST_ENTRY) {
		snprintf(why, len, "%s entry at 0x%llx crosses the page end",
			 nv_entry_name(*p), o);
		return NV_LOG_BAD_ENTRY;
	}
	if ((long)idx == lg->tail_idx && lg->tail < cur + *size) {
		snprintf(why, len, "%s entry at 0x%llx crosses the tail 0x%llx",
			 nv_entry_name(*p), o, (unsigned long long)lg->tail);
		return NV_LOG_CROSS_TAIL;
	}
	if (flags & NV_WALK_LENIENT)
		return 0;
	if (!nv_entry_csum_ok(p, *size)) {
		snprintf(why, len, "%s entry at 0x%llx has a bad checksum",
			 nv_entry_name(*p), o);
		return NV_LOG_CSUM;
	}
	tid = nv_entry_tid(p);
	if (lg->nentries && tid <= lg->last_tid) {
		snprintf(why, len, "%s entry at 0x%llx has trans_id %llu, not above %llu",
			 nv_entry_name(*p), o, (unsigned long long)tid,
			 (unsigned long long)lg->last_tid);
		return NV_LOG_TID;
	}
	return 0;
}

/* The entries from the head to the tail, each checked, then w->entry() */
static void walk_entries(struct nv_fs *fs, struct nv_log *lg,
			 const struct nv_walk *w)
{
	uint64_t cur = lg->head;
	size_t idx = 0, size;
	char why[160];
	int kind;

	for (;;) {
		const uint8_t *p = nv_ptr(fs, cur);

		if (lg->tail_idx >= 0 && cur == lg->tail)
			return;
		if ((cur & (NOVA_BLOCK_SIZE - 1)) >= NOVA_LOG_LAST_ENTRY ||
		    *p == NOVA_NEXT_PAGE) {
			kind = next_page(lg, &idx, &cur, why, sizeof(why));
			if (kind)
				break;
			continue;
		}
		kind = check_entry(lg, idx, cur, p, w->flags, &size, why,
				   sizeof(why));
		if (!kind && w->entry) {
			const struct nv_entry e = {
				fs, cur, p, size, why, sizeof(why)
			};

			why[0] = '\0';
			if (w->entry(&e, w->arg))
				kind = NV_LOG_SEMANTIC;
		}
		if (kind)
			break;
		lg->nentries++;
		lg->last_tid = nv_entry_tid(p);
		lg->nent[idx]++;
		if (nv_entry_dead(p))
			lg->ndead[idx]++;
		cur += size;
		lg->good_end = cur;
		lg->good_idx = idx;
	}
	/* a tail outside the chain: the end of what the walk can trust */
	if (lg->tail_idx < 0)
		return;
	lg->err = kind;
	lg->err_off = cur;
	snprintf(lg->msg, sizeof(lg->msg), "%s", why);
}

int nv_log_walk(struct nv_fs *fs, uint64_t head, uint64_t tail,
		struct nv_log *lg, const struct nv_walk *w)
{
	size_t i;

	if (nv_log_chain(fs, head, lg, w->page_ok, w->page_arg))
		return -1;
	lg->tail = tail;
	if (!head) {
		if (tail) {
			lg->err = NV_LOG_HEAD_ZERO_TAIL;
			snprintf(lg->msg, sizeof(lg->msg),
				 "log tail 0x%llx is set but the log has no pages",
				 (unsigned long long)tail);
		}
		return 0;
	}
	if (!lg->npages) {
		lg->err = NV_LOG_CHAIN;
		snprintf(lg->msg, sizeof(lg->msg),
			 "log head 0x%llx is not a valid page",
			 (unsigned long long)head);
		return 0;
	}
	for (i = 0; i < lg->npages && lg->tail_idx < 0; i++)
		if (tail >= lg->pages[i] &&
		    tail <= lg->pages[i] + NOVA_LOG_LAST_ENTRY)
			lg->tail_idx = i;
	lg->good_end = head;
	lg->good_idx = 0;
	if (!tail)
		return 0;	/* pages allocated, nothing committed */
	if (lg->tail_idx < 0) {
		lg->err = NV_LOG_TAIL_OUTSIDE;
		snprintf(lg->msg, sizeof(lg->msg),
			 "log tail 0x%llx is not in the log's %zu page(s)%s",
			 (unsigned long long)tail, lg->npages,
			 lg->chain_err ? " (chain broken)" : "");
	}
	walk_entries(fs, lg, w);
	return 0;
}

/* ------------------------------------------------------------ page map */

void nv_pmap_init(struct nv_pmap *m)
{
	memset(m, 0, sizeof(*m));
}

void nv_pmap_free(struct nv_pmap *m)
{
	free(m->key);
	free(m->blk);
	free(m->ent);
	nv_pmap_init(m);
}

static size_t pm_slot(uint64_t k, size_t cap)
{
	return (k * 0x9E3779B97F4A7C15ULL >> 17) & (cap - 1);
}

static int pm_grow(struct nv_pmap *m)
{
	struct nv_pmap n = { 0 };
	size_t i;

	n.cap = m->cap ? (m->n * 4 > m->cap ? m->cap * 2 : m->cap) : 64;
	n.key = calloc(n.cap, sizeof(*n.key));
	n.blk = malloc(n.cap * sizeof(*n.blk));
	n.ent = malloc(n.cap * sizeof(*n.ent));
	if (!n.key || !n.blk || !n.ent) {
		nv_pmap_free(&n);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->key[i] || m->key[i] == ~0ULL)
			continue;
		for (j = pm_slot(m->key[i], n.cap); n.key[j]; j = (j + 1) & (n.cap - 1))
			;
		n.key[j] = m->key[i];
		n.blk[j] = m->blk[i];
		n.ent[j] = m->ent[i];
		n.n++;
		n.used++;
	}
	nv_pmap_free(m);
	*m = n;
	return 0;
}

static long pm_find(const struct nv_pmap *m, uint64_t k)
{
	size_t i;

	if (!m->cap)
		return -1;
	for (i = pm_slot(k, m->cap); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == k)
			return i;
	return -1;
}

int nv_pmap_set(struct nv_pmap *m, uint64_t pg, uint64_t blk, uint64_t ent,
		uint64_t *old_ent)
{
	uint64_t k = pg + 1;
	long f = pm_find(m, k);
	size_t i;

	if (f >= 0) {
		if (old_ent)
			*old_ent = m->ent[f];
		m->blk[f] = blk;
		m->ent[f] = ent;
		return 1;
	}
	if (old_ent)
		*old_ent = 0;
	if ((m->used + 1) * 2 > m->cap && pm_grow(m))
		return -1;
	for (i = pm_slot(k, m->cap); m->key[i] && m->key[i] != ~0ULL;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!m->key[i])
		m->used++;
	m->key[i] = k;
	m->blk[i] = blk;
	m->ent[i] = ent;
	m->n++;
	return 0;
}

bool nv_pmap_get(const struct nv_pmap *m, uint64_t pg, uint64_t *blk,
		 uint64_t *ent)
{
	long f = pm_find(m, pg + 1);

	if (f < 0)
		return false;
	if (blk)
		*blk = m->blk[f];
	if (ent)
		*ent = m->ent[f];
	return true;
}

bool nv_pmap_del(struct nv_pmap *m, uint64_t pg, uint64_t *old_ent)
{
	long f = pm_find(m, pg + 1);

	if (f < 0)
		return false;
	if (old_ent)
		*old_ent = m->ent[f];
	m->key[f] = ~0ULL;
	m->n--;
	return true;
}

bool nv_pmap_next(const struct nv_pmap *m, size_t *it, uint64_t *pg,
		  uint64_t *blk, uint64_t *ent)
{
	while (*it < m->cap) {
		size_t i = (*it)++;

		if (!m->key[i] || m->key[i] == ~0ULL)
			continue;
		if (pg)
			*pg = m->key[i] - 1;
		if (blk)
			*blk = m->blk[i];
		if (ent)
			*ent = m->ent[i];
		return true;
	}
	return false;
}

/* One more superseded page of the write entry at @ent (if counting) */
static int count_superseded(struct nv_pmap *c, uint64_t ent)
{
	uint64_t n = 0;

	if (!c || !ent)
		return 0;
	nv_pmap_get(c, ent, &n, NULL);
	return nv_pmap_set(c, ent, n + 1, 0, NULL) < 0 ? -1 : 0;
}

/* Remove pages [first, last] (counting what they were mapped by) */
static int pm_del_range(struct nv_pmap *m, uint64_t first, uint64_t last,
			struct nv_pmap *count)
{
	uint64_t ent;
	size_t i;

	if (last - first < m->n) {
		uint64_t pg;

		for (pg = first; pg <= last; pg++) {
			if (nv_pmap_del(m, pg, &ent) && count_superseded(count, ent))
				return -1;
			if (pg == last)
				break;
		}
		return 0;
	}
	for (i = 0; i < m->cap; i++)
		if (m->key[i] && m->key[i] != ~0ULL &&
		    m->key[i] - 1 >= first && m->key[i] - 1 <= last) {
			m->key[i] = ~0ULL;
			m->n--;
			if (count_superseded(count, m->ent[i]))
				return -1;
		}
	return 0;
}

/* ------------------------------------------------------- directory map */

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= (uint8_t)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void dir_free(struct nv_dir *d)
{
	free(d->d);
	free(d->hash);
	free(d->selfck);
	memset(d, 0, sizeof(*d));
}

static int dir_rehash(struct nv_dir *d)
{
	size_t cap = 64, i;

	while (cap < d->alive * 4 + 8)
		cap *= 2;
	free(d->hash);
	d->hash = malloc(cap * sizeof(*d->hash));
	if (!d->hash)
		return -1;
	for (i = 0; i < cap; i++)
		d->hash[i] = -1;
	d->hcap = cap;
	d->hused = 0;
	for (i = 0; i < d->n; i++) {
		size_t j;

		if (!d->d[i].alive)
			continue;
		for (j = name_hash(d->d[i].name, d->d[i].len) & (cap - 1);
		     d->hash[j] != -1; j = (j + 1) & (cap - 1))
			;
		d->hash[j] = i;
		d->hused++;
	}
	return 0;
}

static long dir_find_slot(const struct nv_dir *d, const char *name, size_t len)
{
	size_t j;

	if (!d->hcap)
		return -1;
	for (j = name_hash(name, len) & (d->hcap - 1); d->hash[j] != -1;
	     j = (j + 1) & (d->hcap - 1)) {
		const struct nv_dent *e;

		if (d->hash[j] < 0)
			continue;
		e = &d->d[d->hash[j]];
		if (e->len == len && !memcmp(e->name, name, len))
			return j;
	}
	return -1;
}

struct nv_dent *nv_dir_lookup(struct nv_dir *d, const char *name, size_t len)
{
	long j = dir_find_slot(d, name, len);

	return j < 0 ? NULL : &d->d[d->hash[j]];
}

static int dir_add(struct nv_dir *d, const struct nova_dentry *de, uint64_t off)
{
	struct nv_dent *e = nv_dir_lookup(d, de->name, de->name_len);
	size_t j;

	if (!e) {
		struct nv_dent *nd = nv_grow(d->d, &d->cap, d->n, sizeof(*nd), 16);

		if (!nd)
			return -1;
		d->d = nd;
		if ((d->hused + 1) * 2 > d->hcap) {
			d->alive++;
			if (dir_rehash(d))
				return -1;
			d->alive--;
		}
		e = &d->d[d->n];
		memset(e, 0, sizeof(*e));
		memcpy(e->name, de->name, de->name_len);
		e->len = de->name_len;
		e->alive = true;
		for (j = name_hash(e->name, e->len) & (d->hcap - 1);
		     d->hash[j] >= 0; j = (j + 1) & (d->hcap - 1))
			;
		if (d->hash[j] == -1)
			d->hused++;
		d->hash[j] = d->n++;
		d->alive++;
	} else if (e->cookie == le64_to_cpu(de->cookie)) {
		uint64_t *n = realloc(d->selfck, (d->nselfck + 1) * sizeof(*n));

		if (!n)
			return -1;
		d->selfck = n;
		d->selfck[d->nselfck++] = e->off;
	}
	e->ino = le64_to_cpu(de->ino);
	e->ftype = de->file_type;
	e->cookie = le64_to_cpu(de->cookie);
	e->tid = le64_to_cpu(de->trans_id);
	e->off = off;
	return 0;
}

static void dir_remove(struct nv_dir *d, const char *name, size_t len)
{
	long j = dir_find_slot(d, name, len);

	if (j < 0)
		return;
	d->d[d->hash[j]].alive = false;
	d->hash[j] = -2;
	d->alive--;
}

/* ------------------------------------------------- extended attributes */

const char *nv_xattr_prefix(uint8_t index)
{
	switch (index) {
	case NOVA_XATTR_INDEX_USER:		return "user.";
	case NOVA_XATTR_INDEX_ACL_ACCESS:	return "system.posix_acl_access";
	case NOVA_XATTR_INDEX_ACL_DEFAULT:	return "system.posix_acl_default";
	case NOVA_XATTR_INDEX_TRUSTED:		return "trusted.";
	case NOVA_XATTR_INDEX_SECURITY:		return "security.";
	}
	return NULL;
}

static bool xattr_is_acl(uint8_t index)
{
	return index == NOVA_XATTR_INDEX_ACL_ACCESS ||
	       index == NOVA_XATTR_INDEX_ACL_DEFAULT;
}

uint8_t nv_xattr_index_of(const char *full, const char **name)
{
	unsigned int i;

	for (i = 1; i <= NOVA_XATTR_INDEX_MAX; i++) {
		const char *p = nv_xattr_prefix(i);
		size_t n;

		if (!p)
			continue;
		n = strlen(p);
		if (xattr_is_acl(i) ? strcmp(full, p) : strncmp(full, p, n))
			continue;
		if (!xattr_is_acl(i) &&
		    (!full[n] || strlen(full + n) > NOVA_XATTR_NAME_MAX))
			return 0;
		*name = full + n;
		return i;
	}
	return 0;
}

void nv_xattr_fullname(char *buf, size_t len, uint8_t index, const char *name,
		       size_t name_len)
{
	const char *p = nv_xattr_prefix(index);
	int n;

	if (p)
		n = snprintf(buf, len, "%s", p);
	else
		n = snprintf(buf, len, "index%u.", index);
	if (n >= 0 && (size_t)n < len)
		nova_safe_str(buf + n, len - n, name, name_len);
}

static long xattr_find(const struct nv_inode_state *st, uint8_t index,
		       const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < st->nxattrs; i++) {
		const struct nv_xattr *x = &st->xattrs[i];

		if (x->index == index && x->name_len == len &&
		    !memcmp(x->name, name, len))
			return i;
	}
	return -1;
}

struct nv_xattr *nv_xattr_lookup(struct nv_inode_state *st, uint8_t index,
				 const char *name, size_t name_len)
{
	long i = xattr_find(st, index, name, name_len);

	return i < 0 ? NULL : &st->xattrs[i];
}

void nv_xattr_read(const struct nv_fs *fs, const struct nv_xattr *x, void *buf)
{
	uint8_t *out = buf;
	uint32_t i;

	for (i = 0; i < x->nparts; i++) {
		const struct nova_xattr_entry *e = nv_ptr(fs, x->parts[i]);
		size_t n = le16_to_cpu(e->part_len);

		memcpy(out, e->data + e->name_len, n);
		out += n;
	}
}

struct nv_xattr *nv_encryption_context(struct nv_inode_state *st)
{
	return nv_xattr_lookup(st, NOVA_XATTR_INDEX_ENCRYPTION,
			       NOVA_XATTR_ENCRYPTION_NAME, 1);
}

static void xattrs_free(struct nv_inode_state *st)
{
	size_t i;

	for (i = 0; i < st->nxattrs; i++)
		free(st->xattrs[i].parts);
	free(st->xattrs);
	st->xattrs = NULL;
	st->nxattrs = st->xattrs_cap = 0;
}

/* -------------------------------------------------------------- replay */

/*
 * The live xattr group being read: its part 0 was applied-to-be, the
 * parts that follow it in the log must complete its value (x.off == 0:
 * none being read).
 */
struct xgroup {
	struct nv_xattr x;
	uint32_t flags;
	uint32_t got;			/* value bytes so far */
	uint32_t crc;			/* of them, not inverted */
	uint64_t nentries;		/* the log's entries before part 0 */
	bool err;			/* the walk stopped at a problem of it */
};

struct replay_ctx {
	struct nv_inode_state *st;
	unsigned int flags;
	struct nv_pmap *count;		/* NV_IREAD_COUNT: st->superseded */
	struct xgroup g;
	/*
	 * Take names with '/' or NUL (ciphertext), counted in cipher_names:
	 * whether they may be there is known at the end (nv_iread())
	 */
	bool any_names;
	uint64_t cipher_names;
};

const char *nv_type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:	return "directory";
	case S_IFREG:	return "regular file";
	case S_IFLNK:	return "symlink";
	case S_IFCHR:	return "character device";
	case S_IFBLK:	return "block device";
	case S_IFIFO:	return "fifo";
	case S_IFSOCK:	return "socket";
	}
	return NULL;
}

static int xg_add_part(struct xgroup *g, uint64_t off,
		       const struct nova_xattr_entry *e, size_t size)
{
	uint32_t n = le16_to_cpu(e->part_len);

	if (!g->x.nparts ||
	    (g->x.nparts >= 4 && !(g->x.nparts & (g->x.nparts - 1)))) {
		size_t cap = g->x.nparts ? 2 * (size_t)g->x.nparts : 4;
		uint64_t *p = realloc(g->x.parts, cap * sizeof(*p));

		if (!p)
			return -1;
		g->x.parts = p;
	}
	g->x.parts[g->x.nparts++] = off;
	g->crc = nova_crc32c_update(g->crc, e->data + e->name_len, n);
	g->got += n;
	g->x.bytes += size;
	return 0;
}

static const char *xg_name(const struct xgroup *g, char *buf, size_t len)
{
	nv_xattr_fullname(buf, len, g->x.index, g->x.name,
			  g->x.name_len > 40 ? 40 : g->x.name_len);
	return buf;
}

static int xg_fail(struct xgroup *g)
{
	g->err = true;
	return 1;
}

/*
 * The whole fscrypt context of @g, whose part 0 had one of the two
 * lengths (xattr_bad_context()): is its version (byte 0) not the one of
 * its length?  Why, into @msg.
 */
static bool bad_context_version(const struct nv_fs *fs, const struct xgroup *g,
				char *msg, size_t msglen)
{
	uint8_t v[NV_FSCRYPT_MAX_SIZE];

	nv_xattr_read(fs, &g->x, v);
	if (v[0] == (g->x.value_len == NV_FSCRYPT_V1_SIZE ? 1 : 2))
		return false;
	snprintf(msg, msglen,
		 "encryption context at 0x%llx: version %u in %u bytes (version 1 has %u, 2 has %u)",
		 (unsigned long long)g->x.off, v[0], g->x.value_len,
		 NV_FSCRYPT_V1_SIZE, NV_FSCRYPT_V2_SIZE);
	return true;
}

/* Every part is in: check the value, then set or remove the attribute */
static int xg_finish(const struct nv_fs *fs, struct nv_inode_state *st,
		     struct xgroup *g, char *msg, size_t msglen)
{
	char name[64];
	long i;

	if (~g->crc != g->x.value_csum) {
		snprintf(msg, msglen,
			 "xattr %s at 0x%llx: its value does not match its checksum",
			 xg_name(g, name, sizeof(name)),
			 (unsigned long long)g->x.off);
		return xg_fail(g);
	}
	if (g->x.index == NOVA_XATTR_INDEX_ENCRYPTION &&
	    bad_context_version(fs, g, msg, msglen))
		return xg_fail(g);
	i = xattr_find(st, g->x.index, g->x.name, g->x.name_len);
	if (i >= 0) {
		st->xattr_bytes -= st->xattrs[i].bytes;
		free(st->xattrs[i].parts);
	}
	if (g->flags & NOVA_XATTR_REMOVE) {
		if (i >= 0) {
			memmove(&st->xattrs[i], &st->xattrs[i + 1],
				(st->nxattrs - i - 1) * sizeof(*st->xattrs));
			st->nxattrs--;
		}
		free(g->x.parts);
	} else {
		if (i < 0) {
			struct nv_xattr *n = nv_grow(st->xattrs, &st->xattrs_cap,
						     st->nxattrs, sizeof(*n), 4);

			if (!n) {
				free(g->x.parts);
				memset(g, 0, sizeof(*g));
				return -1;
			}
			st->xattrs = n;
			i = st->nxattrs++;
		}
		st->xattrs[i] = g->x;
		st->xattr_bytes += g->x.bytes;
	}
	memset(g, 0, sizeof(*g));
	return 0;
}

/* The next part of the live group being read (nova_xattr_replay()) */
static int xattr_replay_part(struct replay_ctx *rc, const struct nv_entry *ent)
{
	const struct nova_xattr_entry *e = ent->p;
	struct xgroup *g = &rc->g;
	unsigned int part = le16_to_cpu(e->part), plen = le16_to_cpu(e->part_len);
	uint32_t vlen = le32_to_cpu(e->value_len);
	unsigned long long o = ent->off, g0 = g->x.off;
	char name[64];

	xg_name(g, name, sizeof(name));
	if (!part)
		snprintf(ent->msg, ent->msglen,
			 "xattr %s at 0x%llx: part %u missing, a part 0 at 0x%llx comes first",
			 name, g0, g->x.nparts, o);
	else if (part != g->x.nparts)
		snprintf(ent->msg, ent->msglen,
			 "xattr %s at 0x%llx: part %u expected, part %u found at 0x%llx",
			 name, g0, g->x.nparts, part, o);
	else if (e->name_index != g->x.index || vlen != g->x.value_len ||
		 e->name_len)
		snprintf(ent->msg, ent->msglen,
			 "xattr %s at 0x%llx: its part %u at 0x%llx has %s",
			 name, g0, part, o,
			 e->name_len ? "a name" :
			 e->name_index != g->x.index ?
			 "another name index" : "another value length");
	/* as xattr.c: the flags of the later parts are not looked at */
	else if (plen > vlen - g->got)
		snprintf(ent->msg, ent->msglen,
			 "xattr %s at 0x%llx: its parts carry more than its %u value bytes (part %u at 0x%llx)",
			 name, g0, vlen, part, o);
	else if (xg_add_part(g, ent->off, e, ent->size))
		return -1;
	else
		return g->got == vlen ?
		       xg_finish(ent->fs, rc->st, g, ent->msg, ent->msglen) : 0;
	return xg_fail(g);
}

/*
 * The header of a live part 0 of NOVA_XATTR_INDEX_ENCRYPTION, @name its
 * full name: the one attribute "c", an fscrypt context of 28 or 40 bytes,
 * never removed.  What is wrong, NULL if nothing; the version (byte 0)
 * is checked when the value is whole (bad_context_version()).
 */
static const char *xattr_bad_context(const struct nv_entry *ent,
				     const char *name)
{
	const struct nova_xattr_entry *e = ent->p;
	unsigned int plen = le16_to_cpu(e->part_len);
	uint32_t vlen = le32_to_cpu(e->value_len), flags = le32_to_cpu(e->flags);
	unsigned long long o = ent->off;

	if (e->name_len != 1 || e->data[0] != NOVA_XATTR_ENCRYPTION_NAME[0])
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx: %s is not the encryption context (\"c\"), the only attribute of its namespace",
			 o, name);
	else if (flags & ~NOVA_XATTR_FLAGS)
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx has unknown flags 0x%x",
			 o, flags & ~NOVA_XATTR_FLAGS);
	else if (flags & NOVA_XATTR_REMOVE)
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx removes the encryption context, which is never removed",
			 o);
	else if (vlen != NV_FSCRYPT_V1_SIZE && vlen != NV_FSCRYPT_V2_SIZE)
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx: encryption context of %u bytes (%u or %u)",
			 o, vlen, NV_FSCRYPT_V1_SIZE, NV_FSCRYPT_V2_SIZE);
	else if (plen > vlen)
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx: part 0 of %s carries %u bytes of a %u-byte value",
			 o, name, plen, vlen);
	return ent->msg[0] ? ent->msg : NULL;
}

/* What is wrong with the header of a live part 0, NULL if nothing */
static const char *xattr_bad_part0(const struct nv_entry *ent)
{
	const struct nova_xattr_entry *e = ent->p;
	unsigned int plen = le16_to_cpu(e->part_len);
	uint32_t vlen = le32_to_cpu(e->value_len), flags = le32_to_cpu(e->flags);
	unsigned long long o = ent->off;
	const char *prefix = nv_xattr_prefix(e->name_index);
	char name[64], ns[16];

	/*
	 * xattr.c takes the indexes of NOVA_XATTR_INDEX_VALID() (5 has no
	 * namespace: such an attribute is kept but never listed)
	 */
	if (!NOVA_XATTR_INDEX_VALID(e->name_index)) {
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx has an unknown name index %u",
			 o, e->name_index);
		return ent->msg;
	}
	if (!prefix) {
		snprintf(ns, sizeof(ns), "index %u", e->name_index);
		prefix = ns;
	}
	if (xattr_is_acl(e->name_index) && e->name_len) {
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx: the POSIX ACL %s has a %u-byte name",
			 o, prefix, e->name_len);
		return ent->msg;
	}
	if (!xattr_is_acl(e->name_index) && !e->name_len) {
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx has an empty name in the %s namespace",
			 o, prefix);
		return ent->msg;
	}
	ent->msg[0] = '\0';
	nv_xattr_fullname(name, sizeof(name), e->name_index,
			  (const char *)e->data, e->name_len > 40 ? 40 : e->name_len);
	if (e->name_index == NOVA_XATTR_INDEX_ENCRYPTION)
		return xattr_bad_context(ent, name);
	if (vlen > NOVA_XATTR_VALUE_MAX)
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx: %s has a value of %u bytes (at most %u)",
			 o, name, vlen, NOVA_XATTR_VALUE_MAX);
	else if (flags & ~NOVA_XATTR_FLAGS)
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx has unknown flags 0x%x",
			 o, flags & ~NOVA_XATTR_FLAGS);
	else if ((flags & NOVA_XATTR_REMOVE) && (vlen || plen))
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx removes %s but carries a %u-byte value",
			 o, name, vlen ? vlen : plen);
	else if (plen > vlen)
		snprintf(ent->msg, ent->msglen,
			 "xattr entry at 0x%llx: part 0 of %s carries %u bytes of a %u-byte value",
			 o, name, plen, vlen);
	return ent->msg[0] ? ent->msg : NULL;
}

/*
 * xattr.c nova_xattr_replay(): a live part 0 starts a group, whose other
 * parts must follow it at once; parts after a dead part 0 or without a
 * part 0 before them are skipped; every part 0 sets the ctime, a live
 * one with NOVA_XATTR_MODE the permission bits.
 */
static int xattr_replay(struct replay_ctx *rc, const struct nv_entry *ent,
			bool dead)
{
	const struct nova_xattr_entry *e = ent->p;
	struct nv_inode_state *st = rc->st;
	struct xgroup *g = &rc->g;
	uint32_t vlen = le32_to_cpu(e->value_len), flags = le32_to_cpu(e->flags);

	if (g->x.off)
		return xattr_replay_part(rc, ent);
	if (e->part)
		return 0;	/* after a dead part 0, or without one: skipped */
	/* a part 0, live or dead, carries the inode's ctime */
	st->ctime = (int64_t)le64_to_cpu(e->ctime);
	if (dead)
		return 0;
	if (xattr_bad_part0(ent))
		return 1;
	if (flags & NOVA_XATTR_MODE)
		st->mode = (st->mode & S_IFMT) | (le16_to_cpu(e->mode) & ~S_IFMT);
	memset(g, 0, sizeof(*g));
	g->x.index = e->name_index;
	g->x.name_len = e->name_len;
	memcpy(g->x.name, e->data, e->name_len);
	g->x.value_len = vlen;
	g->x.value_csum = le32_to_cpu(e->value_csum);
	g->x.off = ent->off;
	g->flags = flags;
	g->crc = ~0U;
	g->nentries = st->log.nentries;
	if (xg_add_part(g, ent->off, e, ent->size))
		return -1;
	return g->got == vlen ?
	       xg_finish(ent->fs, st, g, ent->msg, ent->msglen) : 0;
}

/*
 * The walk ended or stopped inside a live xattr group: the log is cut
 * before its part 0 (nv_log.xgroup_off).
 */
static void xg_cut(struct xgroup *g, struct nv_log *lg)
{
	char name[64];
	size_t i;

	if (!lg->err) {
		lg->err = NV_LOG_XATTR_END;
		lg->err_off = g->x.off;
		snprintf(lg->msg, sizeof(lg->msg),
			 "xattr %s at 0x%llx: the log ends after its part %u, with %u of its %u value bytes",
			 xg_name(g, name, sizeof(name)),
			 (unsigned long long)g->x.off, g->x.nparts - 1, g->got,
			 g->x.value_len);
	} else if (g->err && lg->err == NV_LOG_SEMANTIC) {
		lg->err_off = g->x.off;
	}
	lg->xgroup_off = g->x.off;
	lg->good_end = g->x.off;
	lg->nentries = g->nentries;
	for (i = 0; i < lg->npages; i++)
		if (lg->pages[i] == (g->x.off & ~(uint64_t)(NOVA_BLOCK_SIZE - 1)))
			lg->good_idx = i;
	free(g->x.parts);
	memset(g, 0, sizeof(*g));
}

/*
 * xattr.c nova_xattr_replay_end(): an entry of another type while a live
 * group still misses parts
 */
static int xattr_replay_end(struct replay_ctx *rc, const struct nv_entry *ent)
{
	char name[64];

	snprintf(ent->msg, ent->msglen,
		 "xattr %s at 0x%llx: part %u missing, a %s entry at 0x%llx comes first",
		 xg_name(&rc->g, name, sizeof(name)),
		 (unsigned long long)rc->g.x.off, rc->g.x.nparts,
		 nv_entry_name(*(const uint8_t *)ent->p),
		 (unsigned long long)ent->off);
	return xg_fail(&rc->g);
}

/*
 * dax.c nova_index_set(): file pages @pg .. @pg + @n - 1 of @pages to the
 * blocks from @blk on (0: a hole), mapped by the write entry at @off;
 * the pages superseded counted in @count (may be NULL)
 */
static int index_set(struct nv_pmap *pages, struct nv_pmap *count,
		     uint64_t off, uint64_t pg, uint32_t n, uint64_t blk)
{
	uint64_t i, old;

	if (!blk)
		return pm_del_range(pages, pg, pg + n - 1, count);
	for (i = 0; i < n; i++) {
		old = 0;
		if (nv_pmap_set(pages, pg + i, blk + (i << NOVA_BLOCK_SHIFT),
				off, &old) < 0 ||
		    count_superseded(count, old))
			return -1;
	}
	return 0;
}

/* bbuild.c nova_scan_entry()'s NOVA_FILE_WRITE case: a live write entry */
static int scan_write_entry(struct nv_inode_state *st,
			    const struct nv_entry *ent)
{
	const struct nova_file_write_entry *e = ent->p;
	uint64_t pg = le64_to_cpu(e->pgoff), blk = le64_to_cpu(e->block);
	uint32_t n = le32_to_cpu(e->num_pages);

	st->size = le64_to_cpu(e->size);
	if (!n || pg + n < pg || pg + n > UINT64_MAX / 2 ||
	    !nova_write_flags_ok(e) ||
	    (blk && (blk & (NOVA_BLOCK_SIZE - 1) ||
		     !nv_range_valid(ent->fs, blk, (uint64_t)n << NOVA_BLOCK_SHIFT)))) {
		snprintf(ent->msg, ent->msglen, "bad write entry at 0x%llx",
			 (unsigned long long)ent->off);
		return 1;
	}
	return index_set(&st->pages, NULL, ent->off, pg, n, blk);
}

/*
 * bbuild.c nova_scan_entry(), for NV_IREAD_RAW: link counts and data
 * pages (xattr entries own no blocks: ignored)
 */
static int scan_entry(struct nv_inode_state *st, const struct nv_entry *ent)
{
	const struct nova_setattr_entry *sa = ent->p;
	bool dead = nv_entry_dead(ent->p);
	uint64_t before;

	switch (sa->entry_type) {
	case NOVA_DIR_LOG:
		st->links = le32_to_cpu(((const struct nova_dentry *)ent->p)->links_count);
		return 0;
	case NOVA_LINK_CHANGE:
		if (!dead)
			st->links = le32_to_cpu(((const struct nova_link_change_entry *)ent->p)->links);
		return 0;
	case NOVA_SET_ATTR:
		if (!(sa->attr & NOVA_ATTR_SIZE) || dead)
			return 0;
		/*
		 * As bbuild.c: only a shrink cuts pages; blocks kept past
		 * EOF (fallocate KEEP_SIZE) survive any other size record.
		 */
		before = st->size;
		st->size = le64_to_cpu(sa->size);
		if (st->size >= before)
			return 0;
		return pm_del_range(&st->pages,
				    (st->size + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT,
				    ~0ULL - 1, NULL);
	case NOVA_FILE_WRITE:
		return dead ? 0 : scan_write_entry(st, ent);
	}
	return 0;
}

/*
 * dir.c nova_rebuild_entry(): a dentry of a directory's log.  A name with
 * '/' or NUL is ciphertext, which only an encrypted directory may hold.
 */
static int rebuild_entry(struct replay_ctx *rc, const struct nv_entry *ent,
			 bool dead)
{
	const struct nova_dentry *de = ent->p;
	struct nv_inode_state *st = rc->st;
	uint64_t ino = le64_to_cpu(de->ino);
	int len = de->name_len;

	if (memchr(de->name, '/', len) || memchr(de->name, '\0', len)) {
		if (rc->any_names) {
			rc->cipher_names++;
		} else {
			snprintf(ent->msg, ent->msglen,
				 "directory entry at 0x%llx has an invalid name ('/' or NUL, and no encryption context)",
				 (unsigned long long)ent->off);
			return 1;
		}
	}
	/* a dead dentry still carries the directory's attributes */
	st->links = le32_to_cpu(de->links_count);
	st->mtime = st->ctime = (int64_t)le64_to_cpu(de->mtime);
	if (len == 1 && de->name[0] == '.') {
		st->dot = ino;
		return 0;
	}
	if (len == 2 && de->name[0] == '.' && de->name[1] == '.') {
		st->parent = ino;
		return 0;
	}
	if (dead)
		return 0;
	if (!ino)
		dir_remove(&st->dir, de->name, len);
	else if (dir_add(&st->dir, de, ent->off))
		return -1;
	return 0;
}

/*
 * inode.c nova_replay_entry()'s NOVA_SET_ATTR case: nova_apply_setattr(),
 * then, as the kernel's replay, pages cut only by a shrink (blocks kept
 * past EOF by fallocate KEEP_SIZE stay)
 */
static int apply_setattr(struct replay_ctx *rc, const struct nv_entry *ent)
{
	const struct nova_setattr_entry *e = ent->p;
	struct nv_inode_state *st = rc->st;
	uint64_t before = st->size;

	if (e->attr & NOVA_ATTR_MODE)
		st->mode = (st->mode & S_IFMT) | (le16_to_cpu(e->mode) & ~S_IFMT);
	if (e->attr & NOVA_ATTR_UID)
		st->uid = le32_to_cpu(e->uid);
	if (e->attr & NOVA_ATTR_GID)
		st->gid = le32_to_cpu(e->gid);
	if (e->attr & NOVA_ATTR_SIZE)
		st->size = le64_to_cpu(e->size);
	if (e->attr & NOVA_ATTR_ATIME)
		st->atime = (int64_t)le64_to_cpu(e->atime);
	if (e->attr & NOVA_ATTR_MTIME)
		st->mtime = (int64_t)le64_to_cpu(e->mtime);
	if (e->attr & NOVA_ATTR_CTIME)
		st->ctime = (int64_t)le64_to_cpu(e->ctime);
	st->last_sa = ent->off;
	st->last_sa_cut = (e->attr & NOVA_ATTR_SIZE) && st->size < before;
	if (S_ISREG(st->mode) && st->last_sa_cut &&
	    !(rc->flags & NV_IREAD_NO_DATA) &&
	    pm_del_range(&st->pages, (st->size + NOVA_BLOCK_SIZE - 1) >>
			 NOVA_BLOCK_SHIFT, ~0ULL - 1, rc->count))
		return -1;
	return 0;
}

/*
 * inode.c nova_replay_entry()'s NOVA_LINK_CHANGE case: the link count,
 * ctime, generation, flags and project ID after the operation (an entry
 * of a module that predates project IDs has 0 there: project 0)
 */
static int apply_link_change(struct nv_inode_state *st,
			     const struct nv_entry *ent)
{
	const struct nova_link_change_entry *e = ent->p;

	st->links = le32_to_cpu(e->links);
	st->ctime = (int64_t)le64_to_cpu(e->ctime);
	st->generation = le32_to_cpu(e->generation);
	st->flags = le32_to_cpu(e->flags) & NOVA_FL_SUPPORTED;
	st->projid = le32_to_cpu(e->projid);
	st->last_lc = ent->off;
	return 0;
}

/*
 * inode.c nova_replay_entry()'s NOVA_FILE_WRITE case for a symlink: its
 * target block.  The replay takes it even from a dead entry; the
 * mount-time scan (bbuild.c) then does not count the block: only live
 * entries go in the map.
 */
static int replay_symlink_entry(struct replay_ctx *rc,
				const struct nv_entry *ent, bool dead)
{
	const struct nova_file_write_entry *e = ent->p;
	struct nv_inode_state *st = rc->st;
	uint64_t pg = le64_to_cpu(e->pgoff), blk = le64_to_cpu(e->block);
	uint32_t n = le32_to_cpu(e->num_pages);

	if (pg || n != 1 || !nv_page_valid(ent->fs, blk)) {
		snprintf(ent->msg, ent->msglen,
			 "symlink write entry at 0x%llx is invalid (page %llu, %u pages, block 0x%llx)",
			 (unsigned long long)ent->off, (unsigned long long)pg,
			 n, (unsigned long long)blk);
		return 1;
	}
	st->symlink_block = blk;
	st->size = le64_to_cpu(e->size);
	if (!(rc->flags & NV_IREAD_NO_DATA) && !dead &&
	    nv_pmap_set(&st->pages, 0, blk, ent->off, NULL) < 0)
		return -1;
	return 0;
}

/* dax.c nova_replay_write_entry(): a live write entry of a regular file */
static int replay_write_entry(struct replay_ctx *rc, const struct nv_entry *ent)
{
	const struct nova_file_write_entry *e = ent->p;
	struct nv_inode_state *st = rc->st;
	uint64_t pg = le64_to_cpu(e->pgoff), blk = le64_to_cpu(e->block);
	uint32_t n = le32_to_cpu(e->num_pages);

	if (!n || pg + n < pg || pg + n > NV_MAX_PAGES || !nova_write_flags_ok(e) ||
	    (blk && (blk & (NOVA_BLOCK_SIZE - 1) ||
		     !nv_range_valid(ent->fs, blk, (uint64_t)n << NOVA_BLOCK_SHIFT)))) {
		snprintf(ent->msg, ent->msglen,
			 "file write entry at 0x%llx is invalid (page %llu, %u pages, block 0x%llx, flags 0x%x)",
			 (unsigned long long)ent->off, (unsigned long long)pg,
			 n, (unsigned long long)blk, e->flags);
		return 1;
	}
	if (!(rc->flags & NV_IREAD_NO_DATA) &&
	    index_set(&st->pages, rc->count, ent->off, pg, n, blk))
		return -1;
	st->size = le64_to_cpu(e->size);
	st->mtime = st->ctime = (int64_t)le64_to_cpu(e->mtime);
	return 0;
}

/* An entry of a type the inode cannot have */
static int wrong_type(const struct nv_inode_state *st,
		      const struct nv_entry *ent)
{
	snprintf(ent->msg, ent->msglen, "%s entry at 0x%llx in a %s",
		 nv_entry_name(*(const uint8_t *)ent->p),
		 (unsigned long long)ent->off,
		 nv_type_name(st->mode) ?: "inode of unknown type");
	return 1;
}

/* inode.c nova_replay_entry(): one entry of the log, by its type */
static int replay_entry(const struct nv_entry *ent, void *arg)
{
	struct replay_ctx *rc = arg;
	struct nv_inode_state *st = rc->st;
	uint64_t tid = nv_entry_tid(ent->p);
	bool dead = !(rc->flags & NV_IREAD_IGNORE_DEAD) && nv_entry_dead(ent->p);
	uint8_t type = *(const uint8_t *)ent->p;

	if (tid >= st->next_tid)
		st->next_tid = tid + 1;
	if (type == NOVA_XATTR)
		st->xattr_entries++;
	if (rc->flags & NV_IREAD_RAW)
		return scan_entry(st, ent);
	/* the parts of an extended attribute come one after the other */
	if (rc->g.x.off && type != NOVA_XATTR)
		return xattr_replay_end(rc, ent);

	switch (type) {
	case NOVA_XATTR:
		return xattr_replay(rc, ent, dead);
	case NOVA_DIR_LOG:
		if (!S_ISDIR(st->mode))
			return wrong_type(st, ent);
		return rebuild_entry(rc, ent, dead);
	case NOVA_SET_ATTR:
		return dead ? 0 : apply_setattr(rc, ent);
	case NOVA_LINK_CHANGE:
		return dead ? 0 : apply_link_change(st, ent);
	case NOVA_FILE_WRITE:
		if (S_ISLNK(st->mode))
			return replay_symlink_entry(rc, ent, dead);
		if (!S_ISREG(st->mode))
			return wrong_type(st, ent);
		/* a dead write entry's pages are all superseded */
		return dead ? 0 : replay_write_entry(rc, ent);
	default:
		snprintf(ent->msg, ent->msglen,
			 "unexpected %s entry (type %u) at 0x%llx",
			 nv_entry_name(type), type, (unsigned long long)ent->off);
		return 1;
	}
}

void nv_ifree(struct nv_inode_state *st)
{
	nv_log_free(&st->log);
	dir_free(&st->dir);
	nv_pmap_free(&st->pages);
	nv_pmap_free(&st->superseded);
	xattrs_free(st);
}

static bool mode_ok(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: case S_IFREG: case S_IFLNK: case S_IFCHR:
	case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		return true;
	}
	return false;
}

/*
 * A symlink's target, in the kernel's form: a plain one is @size bytes
 * without a NUL; an encrypted one (fscrypt's struct fscrypt_symlink_data)
 * is a __le16 length and that many bytes of ciphertext (any bytes), @size
 * being 2 + the length (the NUL after it is not needed: symlink.c reads
 * @size bytes).  What is wrong, NULL if nothing.
 */
static const char *bad_symlink(const uint8_t *t, uint64_t size, bool encrypted)
{
	if (!t)
		return "no target block";
	if (!size || size >= NOVA_BLOCK_SIZE)
		return "bad length";
	if (!encrypted)
		return strnlen((const char *)t, size) != size ?
		       "length mismatch" : NULL;
	if (size < 3 || t[0] + ((uint64_t)t[1] << 8) != size - 2)
		return "encrypted target length mismatch";
	return NULL;
}

/* One replay of inode @ino's log into @st; @any_names: see replay_ctx */
static int iread_once(struct nv_fs *fs, uint64_t ino, struct nv_inode_state *st,
		      unsigned int flags, nv_page_fn page_ok, void *page_arg,
		      bool any_names, uint64_t *cipher_names)
{
	struct replay_ctx rc = {
		.st = st, .flags = flags,
		.count = flags & NV_IREAD_COUNT ? &st->superseded : NULL,
		.any_names = any_names,
	};
	const struct nv_walk walk = {
		.page_ok = page_ok, .page_arg = page_arg,
		.entry = replay_entry, .arg = &rc,
	};
	const struct nova_inode *pi;

	memset(st, 0, sizeof(*st));
	st->ino = ino;
	st->pi_off = nv_inode_off(fs, ino);
	if (!st->pi_off)
		return -1;
	pi = nv_pi(fs, st->pi_off);
	st->pi = *pi;
	st->mode = le16_to_cpu(pi->i_mode);
	st->uid = le32_to_cpu(pi->i_uid);
	st->gid = le32_to_cpu(pi->i_gid);
	st->links = le32_to_cpu(pi->i_links_count);
	st->size = le64_to_cpu(pi->i_size);
	st->atime = (int64_t)le64_to_cpu(pi->i_atime);
	st->mtime = (int64_t)le64_to_cpu(pi->i_mtime);
	st->ctime = (int64_t)le64_to_cpu(pi->i_ctime);
	st->generation = le32_to_cpu(pi->i_generation);
	st->flags = le32_to_cpu(pi->i_flags) & NOVA_FL_SUPPORTED;
	st->projid = le32_to_cpu(pi->i_projid);
	st->rdev = le32_to_cpu(pi->i_rdev);
	st->next_tid = 1;

	if (!mode_ok(st->mode) && !(flags & NV_IREAD_RAW)) {
		st->bad = NV_IBAD_MODE;
		snprintf(st->bad_msg, sizeof(st->bad_msg), "bad mode 0%o",
			 st->mode);
	}
	if (nv_log_walk(fs, le64_to_cpu(pi->log_head), le64_to_cpu(pi->log_tail),
			&st->log, &walk)) {
		free(rc.g.x.parts);
		return -1;
	}
	if (rc.g.x.off)
		xg_cut(&rc.g, &st->log);
	*cipher_names = rc.cipher_names;
	if (!st->bad && S_ISLNK(st->mode) && !(flags & NV_IREAD_RAW)) {
		const char *why = bad_symlink(st->symlink_block ?
					      nv_ptr(fs, st->symlink_block) : NULL,
					      st->size, nv_encryption_context(st));

		if (why) {
			st->bad = NV_IBAD_SYMLINK;
			snprintf(st->bad_msg, sizeof(st->bad_msg),
				 "symlink has no valid target (%s)", why);
		}
	}
	return 0;
}

int nv_iread(struct nv_fs *fs, uint64_t ino, struct nv_inode_state *st,
	     unsigned int flags, nv_page_fn page_ok, void *page_arg)
{
	uint64_t cipher_names = 0;
	int ret;

	ret = iread_once(fs, ino, st, flags, page_ok, page_arg, true,
			 &cipher_names);
	if (ret || !cipher_names || st->log.err || nv_encryption_context(st))
		return ret;
	/* ciphertext names in a directory that is not encrypted */
	nv_ifree(st);
	return iread_once(fs, ino, st, flags, page_ok, page_arg, false,
			  &cipher_names);
}

void nv_file_read(const struct nv_fs *fs, const struct nv_inode_state *st,
		  uint64_t pos, size_t len, void *buf)
{
	uint8_t *out = buf;

	while (len) {
		uint64_t pg = pos >> NOVA_BLOCK_SHIFT, blk;
		size_t off = pos & (NOVA_BLOCK_SIZE - 1);
		size_t n = NOVA_BLOCK_SIZE - off;

		if (n > len)
			n = len;
		if (nv_pmap_get(&st->pages, pg, &blk, NULL))
			memcpy(out, fs->map + blk + off, n);
		else
			memset(out, 0, n);
		out += n;
		pos += n;
		len -= n;
	}
}

uint64_t nv_lookup_path(struct nv_fs *fs, const char *path)
{
	uint64_t ino = NOVA_ROOT_INO;

	while (*path) {
		struct nv_inode_state st;
		struct nv_dent *de;
		size_t len;

		while (*path == '/')
			path++;
		if (!*path)
			break;
		len = strcspn(path, "/");
		if (!nv_inode_slot_valid(fs, ino) ||
		    nv_iread(fs, ino, &st, NV_IREAD_NO_DATA, NULL, NULL))
			return 0;
		if (!S_ISDIR(st.mode)) {
			nv_ifree(&st);
			return 0;
		}
		if (len == 1 && path[0] == '.') {
			/* stays */
		} else if (len == 2 && path[0] == '.' && path[1] == '.') {
			if (st.parent)
				ino = st.parent;
		} else {
			de = nv_dir_lookup(&st.dir, path, len);
			if (!de) {
				nv_ifree(&st);
				return 0;
			}
			ino = de->ino;
		}
		nv_ifree(&st);
		path += len;
	}
	return ino;
}

/* ----------------------------------------------------------- allocator */

int nv_alloc_init(struct nv_fs *fs)
{
	unsigned int s;

	free(fs->used);
	free(fs->alloc_hint);
	fs->used = calloc(fs->nblocks / 8 + 1, 1);
	fs->alloc_hint = calloc(fs->stripes, sizeof(*fs->alloc_hint));
	if (!fs->used || !fs->alloc_hint)
		return -1;
	nv_mark_used(fs, 0, fs->data_start);
	nv_mark_used(fs, fs->data_end + 1, fs->nblocks - fs->data_end - 1);
	for (s = 0; s < fs->stripes; s++) {
		uint64_t end;

		nv_stripe_region(fs, s, &fs->alloc_hint[s], &end);
	}
	return 0;
}

void nv_mark_used(struct nv_fs *fs, uint64_t blk, uint64_t n)
{
	while (n--) {
		if (blk < fs->nblocks)
			bit_set(fs->used, blk);
		blk++;
	}
}

void nv_mark_free(struct nv_fs *fs, uint64_t blk, uint64_t n)
{
	unsigned int s;

	for (s = 0; fs->alloc_hint && s < fs->stripes; s++)
		if (blk < fs->alloc_hint[s]) {
			uint64_t st, end;

			nv_stripe_region(fs, s, &st, &end);
			if (blk + n > st && blk <= end)
				fs->alloc_hint[s] = blk < st ? st : blk;
		}
	while (n--) {
		if (blk >= fs->data_start && blk <= fs->data_end)
			bit_clear(fs->used, blk);
		blk++;
	}
}

bool nv_block_used(const struct nv_fs *fs, uint64_t blk)
{
	return blk >= fs->nblocks || bit_test(fs->used, blk);
}

uint64_t nv_free_blocks(const struct nv_fs *fs)
{
	uint64_t b, n = 0;

	for (b = fs->data_start; b <= fs->data_end; b++)
		if (!bit_test(fs->used, b))
			n++;
	return n;
}

/* First free block in [b, end], or end + 1 */
static uint64_t next_free(const struct nv_fs *fs, uint64_t b, uint64_t end)
{
	while (b <= end) {
		if (!(b & 7) && fs->used[b >> 3] == 0xff) {
			b += 8;
			continue;
		}
		if (!bit_test(fs->used, b))
			return b;
		b++;
	}
	return end + 1;
}

static uint64_t next_used(const struct nv_fs *fs, uint64_t b, uint64_t end)
{
	while (b <= end) {
		if (!(b & 7) && fs->used[b >> 3] == 0) {
			b += 8;
			continue;
		}
		if (bit_test(fs->used, b))
			return b;
		b++;
	}
	return end + 1;
}

uint64_t nv_alloc(struct nv_fs *fs, uint64_t want, int stripe, bool partial,
		  uint64_t *blk)
{
	uint64_t best = 0, best_len = 0;
	unsigned int i;

	if (!want || !fs->used)
		return 0;
	if (fs->alloc_hook && !fs->alloc_hook(fs->alloc_arg))
		return 0;
	if (stripe < 0)
		stripe = fs->cur_stripe >= 0 ? fs->cur_stripe : 0;
	stripe %= fs->stripes;
	for (i = 0; i < fs->stripes; i++) {
		unsigned int s = (stripe + i) % fs->stripes;
		uint64_t start, end, b, e;
		bool first = true;

		nv_stripe_region(fs, s, &start, &end);
		b = fs->alloc_hint[s] > start ? fs->alloc_hint[s] : start;
		while (b <= end) {
			b = next_free(fs, b, end);
			if (b > end)
				break;
			if (first) {
				fs->alloc_hint[s] = b;
				first = false;
			}
			e = next_used(fs, b, end);
			if (e - b >= want) {
				nv_mark_used(fs, b, want);
				if (fs->alloc_hint[s] == b)
					fs->alloc_hint[s] = b + want;
				*blk = b;
				return want;
			}
			if (e - b > best_len) {
				best_len = e - b;
				best = b;
			}
			b = e;
		}
		if (first)
			fs->alloc_hint[s] = end + 1;
	}
	if (!partial || !best_len)
		return 0;
	nv_mark_used(fs, best, best_len);
	*blk = best;
	return best_len;
}

static void mark_range_off(struct nv_fs *fs, uint64_t off, uint64_t len)
{
	if (off & (NOVA_BLOCK_SIZE - 1) || !nv_range_valid(fs, off, len))
		return;
	nv_mark_used(fs, off >> NOVA_BLOCK_SHIFT,
		     (len + NOVA_BLOCK_SIZE - 1) >> NOVA_BLOCK_SHIFT);
}

static void scan_inode_blocks(struct nv_fs *fs, uint64_t ino)
{
	struct nv_inode_state st;
	size_t it = 0, i;
	uint64_t blk;

	if (!nv_inode_slot_valid(fs, ino) ||
	    nv_iread(fs, ino, &st, nv_iread_raw(ino), NULL, NULL))
		return;
	for (i = 0; i < st.log.npages; i++)
		mark_range_off(fs, st.log.pages[i], NOVA_BLOCK_SIZE);
	while (nv_pmap_next(&st.pages, &it, NULL, &blk, NULL))
		mark_range_off(fs, blk, NOVA_BLOCK_SIZE);
	nv_ifree(&st);
}

int nv_alloc_scan(struct nv_fs *fs)
{
	unsigned int s;
	uint64_t ino, max, i;

	if (!fs->itab && nv_load_itables(fs))
		return -1;
	if (nv_alloc_init(fs))
		return -1;
	for (s = 0; s < fs->stripes; s++) {
		uint64_t jh = nv_get64(fs, nv_journal_ptr_off(s));

		mark_range_off(fs, jh & ~(uint64_t)(NOVA_BLOCK_SIZE - 1),
			       (uint64_t)fs->journal_pages << NOVA_BLOCK_SHIFT);
		for (i = 0; i < fs->itab[s].n; i++)
			mark_range_off(fs, fs->itab[s].blocks[i], fs->itbs);
	}
	for (ino = NOVA_ROOT_INO; ino < NOVA_NORMAL_INODE_START; ino++)
		scan_inode_blocks(fs, ino);
	max = nv_max_ino(fs);
	for (ino = NOVA_NORMAL_INODE_START; ino < max; ino++)
		scan_inode_blocks(fs, ino);
	return 0;
}

/* ------------------------------------------------------------- writing */

void nv_wlog_from_state(struct nv_wlog *w, const struct nv_inode_state *st)
{
	memset(w, 0, sizeof(*w));
	w->ino = st->ino;
	w->pi_off = st->pi_off;
	w->head = le64_to_cpu(st->pi.log_head);
	w->tail = le64_to_cpu(st->pi.log_tail);
	w->pages = st->log.npages;
	w->next_tid = st->next_tid;
	w->links = st->links;
	w->flags = st->flags;
	w->generation = st->generation;
	w->projid = st->projid;
	w->size = st->size;
	w->mtime = st->mtime;
	w->ctime = st->ctime;
	w->last_lc = st->last_lc;
}

static uint64_t page_tail_off(uint64_t page)
{
	return page + NOVA_LOG_LAST_ENTRY;
}

#define PT_NEXT(p)	(page_tail_off(p) + offsetof(struct nova_log_page_tail, next_page))
#define PT_NUM(p)	(page_tail_off(p) + offsetof(struct nova_log_page_tail, num_entries))
#define PT_INVAL(p)	(page_tail_off(p) + offsetof(struct nova_log_page_tail, invalid_entries))

/* nova_alloc_log_pages(): @want pages in runs, linked, zeroed */
static uint64_t alloc_log_pages(struct nv_fs *fs, uint64_t want, int stripe,
				uint64_t *first, uint64_t *last)
{
	uint64_t got = 0, n = want, prev = 0, blk, i;

	while (got < want) {
		if (!nv_alloc(fs, n, stripe, false, &blk)) {
			if (n > 1) {
				n /= 2;
				continue;
			}
			break;
		}
		for (i = 0; i < n; i++) {
			uint64_t pg = (blk + i) << NOVA_BLOCK_SHIFT;

			nv_zero(fs, pg, NOVA_BLOCK_SIZE);
			if (i + 1 < n)
				nv_put64(fs, PT_NEXT(pg), pg + NOVA_BLOCK_SIZE);
		}
		if (prev)
			nv_put64(fs, PT_NEXT(prev), blk << NOVA_BLOCK_SHIFT);
		else
			*first = blk << NOVA_BLOCK_SHIFT;
		prev = (blk + n - 1) << NOVA_BLOCK_SHIFT;
		got += n;
		if (n > want - got)
			n = want - got;
	}
	*last = prev;
	return got;
}

static int stripe_of(const struct nv_fs *fs, uint64_t ino)
{
	return fs->cur_stripe >= 0 ? fs->cur_stripe : (int)(ino % fs->stripes);
}

int nv_log_append(struct nv_fs *fs, struct nv_wlog *w, const void *entry,
		  size_t size, uint64_t *entry_off)
{
	uint64_t cur = w->tail, first, last, page, next;

	if (!cur) {
		if (!alloc_log_pages(fs, 1, stripe_of(fs, w->ino), &first, &last))
			return -ENOSPC;
		/* a head with tail 0: pages allocated, nothing committed */
		if (nv_commit64(fs, w->pi_off + offsetof(struct nova_inode, log_head),
				first))
			return -EIO;
		w->head = first;
		w->pages = 1;
		cur = first;
	} else if ((cur & (NOVA_BLOCK_SIZE - 1)) + size > NOVA_LOG_LAST_ENTRY) {
		page = cur & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
		next = nv_get64(fs, PT_NEXT(page));
		if (!next) {
			uint64_t want = w->pages < NOVA_LOG_EXTEND_THRESHOLD ?
					(w->pages ? w->pages : 1) :
					NOVA_LOG_EXTEND_STEP;
			uint64_t got = alloc_log_pages(fs, want,
						       stripe_of(fs, w->ino),
						       &first, &last);

			if (!got)
				return -ENOSPC;
			/* the chain is walked to its end: zeroed pages first */
			if (nv_commit64(fs, PT_NEXT(page), first))
				return -EIO;
			w->pages += got;
			next = first;
		}
		if ((cur & (NOVA_BLOCK_SIZE - 1)) < NOVA_LOG_LAST_ENTRY)
			nv_put8(fs, cur, NOVA_NEXT_PAGE);
		cur = next;
	}
	nv_put(fs, cur, entry, size);
	page = cur & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	nv_put32(fs, PT_NUM(page), le32toh(*(uint32_t *)nv_ptr(fs, PT_NUM(page))) + 1);
	if (entry_off)
		*entry_off = cur;
	w->tail = cur + size;
	return 0;
}

int nv_log_commit(struct nv_fs *fs, struct nv_wlog *w)
{
	return nv_commit64(fs, w->pi_off + offsetof(struct nova_inode, log_tail),
			   w->tail);
}

/* One more dead entry in the page of the entry at @off */
static void count_dead(struct nv_fs *fs, uint64_t off)
{
	uint64_t pt = PT_INVAL(off & ~(uint64_t)(NOVA_BLOCK_SIZE - 1));

	nv_put32(fs, pt, le32toh(*(uint32_t *)nv_ptr(fs, pt)) + 1);
}

void nv_invalidate_entries(struct nv_fs *fs, const uint64_t *off, size_t n)
{
	uint64_t marked[64];
	size_t i, k;

	while (n) {
		for (i = 0, k = 0; i < n && k < ARRAY_SIZE(marked); i++) {
			uint8_t *p = nv_ptr(fs, off[i]);
			int flag = nv_entry_flag_offset(p[0]);

			if (flag < 0 || p[flag])
				continue;
			nv_put8(fs, off[i] + flag, 1);
			marked[k++] = off[i];
		}
		off += i;
		n -= i;
		if (!k)
			continue;
		/* the flags durable before the counts (none after an I/O error) */
		if (nv_barrier(fs))
			return;
		for (i = 0; i < k; i++)
			count_dead(fs, marked[i]);
	}
}

void nv_invalidate_entry(struct nv_fs *fs, uint64_t off)
{
	nv_invalidate_entries(fs, &off, 1);
}

void nv_invalidate_pages(struct nv_fs *fs, uint64_t ent_off, uint32_t n)
{
	struct nova_file_write_entry *e = nv_ptr(fs, ent_off);
	uint32_t dead = le32_to_cpu(e->invalid_pages) + n;

	if (e->entry_type != NOVA_FILE_WRITE)
		return;
	nv_put32(fs, ent_off + offsetof(struct nova_file_write_entry, invalid_pages),
		 dead);
	if (dead >= le32_to_cpu(e->num_pages) && le64_to_cpu(e->block))
		nv_invalidate_entry(fs, ent_off);
}

int nv_append_dentry(struct nv_fs *fs, struct nv_wlog *dir, const char *name,
		     size_t len, uint64_t ino, uint8_t ftype, uint64_t *off)
{
	struct nova_dentry de;
	uint16_t de_len = NOVA_DENTRY_LEN(len);

	if (!len || len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	memset(&de, 0, sizeof(de));
	de.entry_type = NOVA_DIR_LOG;
	de.name_len = len;
	de.de_len = cpu_to_le16(de_len);
	de.file_type = ino ? ftype : 0;
	de.links_count = cpu_to_le32(dir->links);
	de.mtime = cpu_to_le64((uint64_t)dir->mtime);
	de.ino = cpu_to_le64(ino);
	de.cookie = cpu_to_le64(dir->next_tid);
	de.trans_id = cpu_to_le64(dir->next_tid);
	memcpy(de.name, name, len);
	nv_entry_csum(&de, de_len);
	dir->next_tid++;
	return nv_log_append(fs, dir, &de, de_len, off);
}

int nv_append_link_change(struct nv_fs *fs, struct nv_wlog *w, uint64_t *off)
{
	struct nova_link_change_entry e;

	memset(&e, 0, sizeof(e));
	e.entry_type = NOVA_LINK_CHANGE;
	e.links = cpu_to_le32(w->links);
	e.ctime = cpu_to_le64((uint64_t)w->ctime);
	e.flags = cpu_to_le32(w->flags);
	e.generation = cpu_to_le32(w->generation);
	e.projid = cpu_to_le32(w->projid);
	e.trans_id = cpu_to_le64(w->next_tid++);
	nv_entry_csum(&e, sizeof(e));
	return nv_log_append(fs, w, &e, sizeof(e), off);
}

int nv_append_write(struct nv_fs *fs, struct nv_wlog *w, uint64_t pgoff,
		    uint32_t npages, uint64_t block, uint64_t *off)
{
	return nv_append_write_flags(fs, w, pgoff, npages, block, 0, off);
}

int nv_append_write_flags(struct nv_fs *fs, struct nv_wlog *w, uint64_t pgoff,
			  uint32_t npages, uint64_t block, uint8_t flags,
			  uint64_t *off)
{
	struct nova_file_write_entry e;

	memset(&e, 0, sizeof(e));
	e.entry_type = NOVA_FILE_WRITE;
	e.flags = block ? flags : 0;
	e.num_pages = cpu_to_le32(npages);
	e.block = cpu_to_le64(block);
	e.pgoff = cpu_to_le64(pgoff);
	e.mtime = cpu_to_le64((uint64_t)w->mtime);
	e.size = cpu_to_le64(w->size);
	e.trans_id = cpu_to_le64(w->next_tid++);
	nv_entry_csum(&e, sizeof(e));
	return nv_log_append(fs, w, &e, sizeof(e), off);
}

int nv_append_xattr(struct nv_fs *fs, struct nv_wlog *w, uint8_t index,
		    const char *name, size_t name_len, const void *value,
		    size_t value_len, uint32_t flags, uint16_t mode,
		    uint64_t *off)
{
	uint64_t buf[NOVA_XATTR_ENTRY_MAX / 8];
	struct nova_xattr_entry *e = (void *)buf;
	const uint8_t *v = value;
	uint32_t csum = value_len ? nova_crc32c(value, value_len) : 0;
	size_t done = 0;
	unsigned int part = 0;
	int ret;

	if (name_len > NOVA_XATTR_NAME_MAX || value_len > NOVA_XATTR_VALUE_MAX ||
	    ((flags & NOVA_XATTR_REMOVE) && value_len))
		return -EINVAL;
	do {
		size_t nl = part ? 0 : name_len;
		size_t plen = value_len - done, len;

		if (plen > NOVA_XATTR_PART_ROOM(nl))
			plen = NOVA_XATTR_PART_ROOM(nl);
		len = NOVA_XATTR_LEN(nl, plen);
		memset(buf, 0, len);
		e->entry_type = NOVA_XATTR;
		e->name_index = index;
		e->name_len = nl;
		e->xe_len = cpu_to_le16(len);
		e->part_len = cpu_to_le16(plen);
		e->value_len = cpu_to_le32(value_len);
		e->part = cpu_to_le16(part);
		e->ctime = cpu_to_le64((uint64_t)w->ctime);	/* as xattr.c */
		if (!part) {
			e->flags = cpu_to_le32(flags);
			e->mode = cpu_to_le16(mode);
			e->value_csum = cpu_to_le32(csum);
			memcpy(e->data, name, nl);
		}
		e->trans_id = cpu_to_le64(w->next_tid++);
		if (plen)
			memcpy(e->data + nl, v + done, plen);
		nv_entry_csum(e, len);
		ret = nv_log_append(fs, w, e, len, part ? NULL : off);
		if (ret)
			return ret;
		done += plen;
		part++;
	} while (done < value_len);
	return 0;
}

void nv_invalidate_xattr(struct nv_fs *fs, const struct nv_xattr *x)
{
	uint32_t i;

	for (i = 0; i < x->nparts; i++)
		nv_invalidate_entry(fs, x->parts[i]);
}

/* nova_extend_inode_table(): one zeroed block, linked from the last */
static int extend_itable(struct nv_fs *fs, unsigned int s)
{
	struct nv_itable *t = &fs->itab[s];
	uint64_t blk;

	if (!t->n)
		return -EUCLEAN;
	if (!nv_alloc(fs, fs->itb_blocks, s, false, &blk))
		return -ENOSPC;
	nv_zero(fs, blk << NOVA_BLOCK_SHIFT, fs->itbs);
	if (itab_push(t, blk << NOVA_BLOCK_SHIFT))
		return -ENOMEM;
	/* the block zeroed first: the mount scans every slot */
	return nv_commit64(fs, t->blocks[t->n - 2] + fs->itbs - 8,
			   blk << NOVA_BLOCK_SHIFT) ? -EIO : 0;
}

int nv_alloc_ino(struct nv_fs *fs, int stripe, uint64_t *ino)
{
	unsigned int i;

	if (stripe < 0)
		stripe = fs->rr++ % fs->stripes;
	for (i = 0; i < fs->stripes; i++) {
		unsigned int s = (stripe + i) % fs->stripes;
		struct nv_itable *t = &fs->itab[s];
		bool extended = false;

		for (;;) {
			uint64_t cap = t->n * fs->per_block, slot;

			for (slot = t->hint; slot < cap; slot++) {
				uint64_t n = slot * fs->stripes + s;
				const struct nova_inode *pi;

				if (n < NOVA_NORMAL_INODE_START)
					continue;
				pi = nv_pi(fs, nv_inode_off(fs, n));
				if (pi->i_valid == NOVA_INODE_VALID)
					continue;
				t->hint = slot + 1;
				*ino = n;
				return 0;
			}
			t->hint = cap;
			if (extended || extend_itable(fs, s))
				break;
			extended = true;
		}
	}
	return -ENOSPC;
}

int nv_new_inode(struct nv_fs *fs, int stripe, const struct nv_attr *a,
		 struct nv_wlog *w)
{
	struct nova_inode pi;
	uint64_t ino, off;
	int ret;

	ret = nv_alloc_ino(fs, stripe, &ino);
	if (ret)
		return ret;
	off = nv_inode_off(fs, ino);
	memset(&pi, 0, sizeof(pi));
	pi.i_mode = cpu_to_le16(a->mode);
	pi.i_uid = cpu_to_le32(a->uid);
	pi.i_gid = cpu_to_le32(a->gid);
	pi.i_links_count = cpu_to_le32(a->links);
	pi.i_size = cpu_to_le64(a->size);
	pi.i_flags = cpu_to_le32(a->flags);
	pi.i_atime = cpu_to_le64((uint64_t)a->atime);
	pi.i_mtime = cpu_to_le64((uint64_t)a->mtime);
	pi.i_ctime = cpu_to_le64((uint64_t)a->ctime);
	pi.i_btime = cpu_to_le64((uint64_t)a->btime);
	pi.i_generation = cpu_to_le32(fs->next_generation++);
	pi.i_rdev = cpu_to_le32(a->rdev);
	pi.i_projid = cpu_to_le32(a->projid);
	pi.i_ino = cpu_to_le64(ino);
	pi.i_valid = NOVA_INODE_FREE;
	nv_put(fs, off, &pi, sizeof(pi));

	memset(w, 0, sizeof(*w));
	w->ino = ino;
	w->pi_off = off;
	w->next_tid = 1;
	w->links = a->links;
	w->flags = a->flags;
	w->generation = le32_to_cpu(pi.i_generation);
	w->projid = a->projid;
	w->size = a->size;
	w->mtime = a->mtime;
	w->ctime = a->ctime;
	return 0;
}

int nv_set_valid(struct nv_fs *fs, uint64_t ino)
{
	uint8_t v = NOVA_INODE_VALID;

	return nv_commit(fs, nv_inode_off(fs, ino) +
			 offsetof(struct nova_inode, i_valid), &v, 1);
}

int nv_create(struct nv_fs *fs, struct nv_wlog *dir, const char *name,
	      size_t len, const struct nv_attr *a, const char *symlink,
	      int stripe, struct nv_wlog *child)
{
	struct nv_wlog w;
	uint64_t blk;
	int ret;

	if (!len || len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	ret = nv_new_inode(fs, stripe, a, &w);
	if (ret)
		return ret;
	if (S_ISDIR(a->mode)) {
		ret = nv_append_dentry(fs, &w, ".", 1, w.ino, nv_dtype(S_IFDIR),
				       NULL);
		if (!ret)
			ret = nv_append_dentry(fs, &w, "..", 2, dir->ino,
					       nv_dtype(S_IFDIR), NULL);
	} else if (S_ISLNK(a->mode)) {
		size_t tlen = strlen(symlink);

		if (!tlen || tlen >= NOVA_BLOCK_SIZE)
			return -ENAMETOOLONG;
		if (!nv_alloc(fs, 1, stripe_of(fs, w.ino), false, &blk))
			return -ENOSPC;
		nv_zero(fs, blk << NOVA_BLOCK_SHIFT, NOVA_BLOCK_SIZE);
		nv_put(fs, blk << NOVA_BLOCK_SHIFT, symlink, tlen);
		w.size = tlen;
		ret = nv_append_write(fs, &w, 0, 1, blk << NOVA_BLOCK_SHIFT, NULL);
	}
	if (ret)
		return ret;
	if (w.tail && nv_log_commit(fs, &w))
		return -EIO;
	if (nv_set_valid(fs, w.ino))
		return -EIO;
	if (S_ISDIR(a->mode))
		dir->links++;
	ret = nv_append_dentry(fs, dir, name, len, w.ino, nv_dtype(a->mode), NULL);
	if (!ret && nv_log_commit(fs, dir))
		ret = -EIO;
	if (ret) {
		uint8_t v = NOVA_INODE_FREE;

		if (S_ISDIR(a->mode))
			dir->links--;
		/* no name: free again */
		nv_commit(fs, w.pi_off + offsetof(struct nova_inode, i_valid),
			  &v, 1);
		return ret;
	}
	if (child)
		*child = w;
	return 0;
}

/* --------------------------------------------- the project quota file */

static uint16_t qget16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static uint32_t qget32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t qget64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static void qput16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void qput32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void qput64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/* qtree_entry_unused() */
static bool qt_unused(const uint8_t *e)
{
	size_t i;

	for (i = 0; i < NV_QT_ENTRY; i++)
		if (e[i])
			return false;
	return true;
}

/* The index of @id in a tree block of level @depth (get_index()) */
static unsigned int qt_index(uint32_t id, int depth)
{
	return (id >> (8 * (NV_QT_DEPTH - 1 - depth))) & (NV_QT_REFS - 1);
}

/* v2r1_disk2memdqb() */
static void qt_get_entry(const uint8_t *e, struct nv_dquot *d)
{
	d->id = qget32(e);
	d->ihardlimit = qget64(e + 8);
	d->isoftlimit = qget64(e + 16);
	d->curinodes = qget64(e + 24);
	d->bhardlimit = qget64(e + 32);
	d->bsoftlimit = qget64(e + 40);
	d->curspace = qget64(e + 48);
	d->btime = qget64(e + 56);
	d->itime = qget64(e + 64);
	/* the escape of an all-zero entry (ID 0 with nothing set) */
	if (d->itime == 1 && !d->id && !qget32(e + 4) && !d->ihardlimit &&
	    !d->isoftlimit && !d->curinodes && !d->bhardlimit &&
	    !d->bsoftlimit && !d->curspace && !d->btime)
		d->itime = 0;
}

/* v2r1_mem2diskdqb() */
static void qt_put_entry(uint8_t *e, const struct nv_dquot *d)
{
	memset(e, 0, NV_QT_ENTRY);
	qput64(e + 8, d->ihardlimit);
	qput64(e + 16, d->isoftlimit);
	qput64(e + 24, d->curinodes);
	qput64(e + 32, d->bhardlimit);
	qput64(e + 40, d->bsoftlimit);
	qput64(e + 48, d->curspace);
	qput64(e + 56, d->btime);
	qput64(e + 64, d->itime);
	qput32(e, d->id);
	if (qt_unused(e))
		qput64(e + 64, 1);
}

/* What the check knows of a block of the file (qwalk.seen) */
#define QB_TREE		1	/* a tree block of level QB_LEVEL() */
#define QB_DATA		2
#define QB_FREE		3	/* on the free-block list */
#define QB_KIND(s)	((s) & 0xff)
#define QB_LEVEL(s)	((int)((s) >> 8))

/* A reference of the last level: @id's data block, from @parent[@idx] */
struct qleaf {
	uint32_t id, blk, parent, idx;
	bool found;
};

/* A data block of the tree */
struct qdata {
	uint32_t blk, next, prev;
	uint16_t entries;
	bool listed;			/* on the free-entry list */
};

struct qwalk {
	const struct nv_fs *fs;
	const struct nv_inode_state *st;
	struct nv_quota *q;
	nv_qerr_fn fn;
	void *arg;
	uint32_t lim;			/* references must be below it */
	struct nv_pmap seen;		/* block -> QB_* | level << 8 */
	struct qleaf *leaf;
	size_t nleaf, leaf_cap;
	struct qdata *data;
	size_t ndata, data_cap;
	bool oom;
	uint8_t buf[NV_QT_DEPTH + 1][NV_QT_BLOCK];
};

static void __printf(3, 4) qerr(struct qwalk *w, int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	w->q->errors++;
	if (!w->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->fn(w->arg, err, msg);
}

/* Block @b of the file, as read_blk() reads it: zeros past the size */
static void qt_read(const struct qwalk *w, uint32_t b, uint8_t *buf)
{
	uint64_t pos = (uint64_t)b << NV_QT_BLOCK_BITS, n = 0;

	if (pos < w->st->size)
		n = w->st->size - pos < NV_QT_BLOCK ? w->st->size - pos :
		    NV_QT_BLOCK;
	nv_file_read(w->fs, w->st, pos, n, buf);
	memset(buf + n, 0, NV_QT_BLOCK - n);
}

static uint64_t qt_state(const struct qwalk *w, uint32_t b)
{
	uint64_t s;

	return nv_pmap_get(&w->seen, b, &s, NULL) ? s : 0;
}

static void qt_set_state(struct qwalk *w, uint32_t b, uint64_t s)
{
	if (nv_pmap_set(&w->seen, b, s, 0, NULL) < 0)
		w->oom = true;
}

/* The header and the info block, as v2_read_file_info() checks them */
static void qt_info(struct qwalk *w)
{
	struct nv_quota *q = w->q;
	struct nv_qinfo *i = &q->info;
	uint8_t *b = w->buf[0];
	uint64_t size = w->st->size;

	q->fblocks = size >> NV_QT_BLOCK_BITS;
	if (q->fblocks > UINT32_MAX)
		q->fblocks = UINT32_MAX;
	w->lim = q->fblocks;
	if (size < NV_QT_HEADER) {
		qerr(w, NV_QERR_INFO, "%llu bytes, too short for the header and the info block",
		     (unsigned long long)size);
		return;
	}
	qt_read(w, 0, b);
	if (qget32(b) != NV_PRJQUOTA_MAGIC || qget32(b + 4) != NV_PRJQUOTA_VERSION) {
		qerr(w, NV_QERR_INFO, "its header (magic 0x%08x, version %u) is not that of a project quota file",
		     qget32(b), qget32(b + 4));
		return;
	}
	b += NV_QT_INFO_OFF;
	i->bgrace = qget32(b);
	i->igrace = qget32(b + 4);
	i->flags = qget32(b + 8);
	i->blocks = qget32(b + 12);
	i->free_blk = qget32(b + 16);
	i->free_entry = qget32(b + 20);
	q->info_ok = true;
	if ((uint64_t)i->blocks << NV_QT_BLOCK_BITS > size)
		qerr(w, NV_QERR_INFO, "the info block counts %u blocks, more than the file's %llu bytes hold",
		     i->blocks, (unsigned long long)size);
	else
		w->lim = i->blocks;
	if (i->blocks <= NV_QT_TREEOFF)
		qerr(w, NV_QERR_INFO, "the info block counts %u blocks: none for the tree root",
		     i->blocks);
	if (i->free_blk && (i->free_blk <= NV_QT_TREEOFF || i->free_blk >= w->lim))
		qerr(w, NV_QERR_INFO, "the free-block list starts at block %u, out of range (below %u, or from %u on)",
		     i->free_blk, NV_QT_TREEOFF + 1, w->lim);
	if (i->free_entry &&
	    (i->free_entry <= NV_QT_TREEOFF || i->free_entry >= w->lim))
		qerr(w, NV_QERR_INFO, "the free-entry list starts at block %u, out of range (below %u, or from %u on)",
		     i->free_entry, NV_QT_TREEOFF + 1, w->lim);
}

/* "ID 42", "IDs 256-511": those reference @idx of a level @depth block covers */
static void qt_ids(char *s, size_t len, int depth, uint32_t first)
{
	uint64_t n = 1ULL << (8 * (NV_QT_DEPTH - 1 - depth));

	if (n == 1)
		snprintf(s, len, "ID %u", first);
	else
		snprintf(s, len, "IDs %u-%llu", first,
			 (unsigned long long)(first + n - 1));
}

/*
 * A reference to block @ref from a tree block of level @depth: what is
 * wrong with it (in @why, @len bytes, or a constant), NULL if nothing;
 * *@follow: the walk follows it (wrong or not)
 */
static const char *qt_bad_ref(struct qwalk *w, uint32_t ref, int depth,
			      char *why, size_t len, bool *follow)
{
	uint64_t s;

	*follow = false;
	if (ref >= w->q->fblocks) {
		snprintf(why, len, "past the end of the file (%llu blocks)",
			 (unsigned long long)w->q->fblocks);
		return why;
	}
	if (ref == NV_QT_TREEOFF)
		return "the tree root: a cycle";
	s = qt_state(w, ref);
	if (depth == NV_QT_DEPTH - 1 && QB_KIND(s) == QB_TREE)
		return "a tree block, not a data block";
	if (depth < NV_QT_DEPTH - 1 && QB_KIND(s) == QB_TREE) {
		snprintf(why, len, "referenced twice (a tree block of level %d already)",
			 QB_LEVEL(s));
		return why;
	}
	if (depth < NV_QT_DEPTH - 1 && QB_KIND(s) == QB_DATA)
		return "referenced twice (a data block already)";
	*follow = true;
	if (ref >= w->lim) {
		snprintf(why, len, "past the %u blocks the info block counts",
			 w->lim);
		return why;
	}
	return NULL;
}

/* Tree block @blk of level @depth, which leads to the IDs from @first */
static void qt_tree(struct qwalk *w, uint32_t blk, int depth, uint32_t first)
{
	unsigned int shift = 8 * (NV_QT_DEPTH - 1 - depth), i;
	uint8_t *buf = w->buf[depth];

	qt_read(w, blk, buf);
	for (i = 0; i < NV_QT_REFS && !w->oom; i++) {
		uint32_t ref = qget32(buf + 4 * i), id = first | i << shift;
		const char *bad;
		struct qleaf *l;
		char ids[40], why[80];
		bool follow;

		if (!ref)
			continue;
		bad = qt_bad_ref(w, ref, depth, why, sizeof(why), &follow);
		if (bad) {
			qt_ids(ids, sizeof(ids), depth, id);
			qerr(w, NV_QERR_REF, "tree block %u, reference %u (%s) to block %u: %s",
			     blk, i, ids, ref, bad);
		}
		if (!follow)
			continue;
		if (depth < NV_QT_DEPTH - 1) {
			qt_set_state(w, ref, QB_TREE | (uint64_t)(depth + 1) << 8);
			qt_tree(w, ref, depth + 1, id);
			continue;
		}
		qt_set_state(w, ref, QB_DATA);
		l = nv_grow(w->leaf, &w->leaf_cap, w->nleaf, sizeof(*l), 64);
		if (!l) {
			w->oom = true;
			return;
		}
		w->leaf = l;
		w->leaf[w->nleaf++] = (struct qleaf){ id, ref, blk, i, false };
	}
}

static int cmp_leaf(const void *a, const void *b)
{
	const struct qleaf *x = a, *y = b;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_dquot(const void *a, const void *b)
{
	const struct nv_dquot *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct qleaf *qt_leaf_of(struct qleaf *l, size_t n, uint32_t id)
{
	struct qleaf key = { .id = id, .blk = l->blk };

	return bsearch(&key, l, n, sizeof(*l), cmp_leaf);
}

/*
 * Data block @l->blk, which the @n references of @l lead to: an entry
 * for each of their IDs, no other (find_block_dqentry()), and a header
 * that counts them (check_dquot_block_header())
 */
static void qt_data_block(struct qwalk *w, struct qleaf *l, size_t n)
{
	uint8_t *buf = w->buf[NV_QT_DEPTH];
	struct nv_quota *q = w->q;
	unsigned int s, used = 0;
	struct qdata *d;
	size_t k;

	d = nv_grow(w->data, &w->data_cap, w->ndata, sizeof(*d), 16);
	if (!d) {
		w->oom = true;
		return;
	}
	w->data = d;
	d = &w->data[w->ndata++];
	qt_read(w, l->blk, buf);
	*d = (struct qdata){ l->blk, qget32(buf), qget32(buf + 4),
			     qget16(buf + 8), false };
	for (s = 0; s < NV_QT_PER_BLOCK; s++) {
		const uint8_t *e = buf + NV_QT_DQDH + s * NV_QT_ENTRY;
		struct qleaf *k;
		struct nv_dquot *dq;
		uint32_t id;

		if (qt_unused(e))
			continue;
		used++;
		id = qget32(e);
		k = qt_leaf_of(l, n, id);
		if (!k || k->found) {
			qerr(w, NV_QERR_ENTRY, k ?
			     "data block %u, entry %u: a second entry for ID %u" :
			     "data block %u, entry %u: ID %u, which the tree does not lead to this block",
			     l->blk, s, id);
			q->lost += !k;
			continue;
		}
		k->found = true;
		dq = nv_grow(q->dq, &q->dq_cap, q->ndq, sizeof(*dq), 64);
		if (!dq) {
			w->oom = true;
			return;
		}
		q->dq = dq;
		qt_get_entry(e, &q->dq[q->ndq++]);
	}
	for (k = 0; k < n; k++)
		if (!l[k].found)
			qerr(w, NV_QERR_REF, "tree block %u, reference %u (ID %u) to data block %u: no entry for ID %u there",
			     l[k].parent, l[k].idx, l[k].id, l[k].blk, l[k].id);
	if (d->entries > NV_QT_PER_BLOCK)
		qerr(w, NV_QERR_DATA, "data block %u: its header counts %u entries, more than the %u a block holds",
		     d->blk, d->entries, NV_QT_PER_BLOCK);
	else if (d->entries != used)
		qerr(w, NV_QERR_DATA, "data block %u: its header counts %u entries, it holds %u",
		     d->blk, d->entries, used);
	/*
	 * check_dquot_block_header() checks the links of every block the
	 * kernel frees an entry from, full or not, on the list or not
	 */
	if (d->next >= w->lim)
		qerr(w, NV_QERR_DATA, "data block %u: its header's next free-entry block %u is out of range (from %u on)",
		     d->blk, d->next, w->lim);
	if (d->prev >= w->lim)
		qerr(w, NV_QERR_DATA, "data block %u: its header's previous free-entry block %u is out of range (from %u on)",
		     d->blk, d->prev, w->lim);
}

/* A block on a free list: out of range?  (After @prev, 0: the head.) */
static bool qt_list_range(struct qwalk *w, int err, const char *list,
			  uint32_t b, uint32_t prev)
{
	if (b > NV_QT_TREEOFF && b < w->lim)
		return true;
	qerr(w, err, "the %s list: block %u after block %u is out of range (below %u, or from %u on)",
	     list, b, prev, NV_QT_TREEOFF + 1, w->lim);
	return false;
}

/* The free-block list (get_free_dqblk()): blocks out of the tree */
static void qt_free_blocks(struct qwalk *w)
{
	uint32_t b = w->q->info.free_blk, prev = 0;
	uint8_t *buf = w->buf[0];
	uint64_t s;

	/* (a head out of range is the info block's problem) */
	if (b && (b <= NV_QT_TREEOFF || b >= w->lim))
		return;
	while (b && !w->oom) {
		if (prev && !qt_list_range(w, NV_QERR_FREE_BLK, "free-block", b, prev))
			return;
		s = qt_state(w, b);
		if (s) {
			qerr(w, NV_QERR_FREE_BLK, QB_KIND(s) == QB_FREE ?
			     "the free-block list runs in a cycle at block %u" :
			     QB_KIND(s) == QB_TREE ?
			     "the free-block list holds block %u, a tree block in use" :
			     "the free-block list holds block %u, a data block in use",
			     b);
			return;
		}
		qt_set_state(w, b, QB_FREE);
		qt_read(w, b, buf);
		if (qget16(buf + 8) > NV_QT_PER_BLOCK || qget32(buf + 4) >= w->lim)
			qerr(w, NV_QERR_FREE_BLK, "block %u of the free-block list has a bad header (%u entries, previous block %u)",
			     b, qget16(buf + 8), qget32(buf + 4));
		prev = b;
		b = qget32(buf);
	}
}

static struct qdata *qt_data_of(struct qwalk *w, uint32_t b)
{
	size_t lo = 0, hi = w->ndata;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->data[mid].blk == b)
			return &w->data[mid];
		if (w->data[mid].blk < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The free-entry list (find_free_dqentry(), remove_free_dqentry()): the
 * data blocks of the tree that have a free entry, each linked back to
 * the one before it, and all of those
 */
static void qt_free_entries(struct qwalk *w)
{
	uint32_t b = w->q->info.free_entry, prev = 0;
	struct qdata *d;
	size_t i;
	uint64_t s;

	if (b && (b <= NV_QT_TREEOFF || b >= w->lim))
		return;
	while (b) {
		if (prev && !qt_list_range(w, NV_QERR_FREE_ENTRY, "free-entry", b, prev))
			return;
		d = qt_data_of(w, b);
		if (!d) {
			s = qt_state(w, b);
			qerr(w, NV_QERR_FREE_ENTRY, QB_KIND(s) == QB_FREE ?
			     "the free-entry list holds block %u, which is on the free-block list" :
			     QB_KIND(s) == QB_TREE ?
			     "the free-entry list holds block %u, a tree block" :
			     "the free-entry list holds block %u, which is not a data block of the tree",
			     b);
			return;
		}
		if (d->listed) {
			qerr(w, NV_QERR_FREE_ENTRY, "the free-entry list runs in a cycle at block %u",
			     b);
			return;
		}
		d->listed = true;
		if (d->entries >= NV_QT_PER_BLOCK)
			qerr(w, NV_QERR_FREE_ENTRY, "the free-entry list holds data block %u, which is full",
			     b);
		if (d->prev != prev)
			qerr(w, NV_QERR_FREE_ENTRY, "data block %u of the free-entry list links back to block %u, not %u",
			     b, d->prev, prev);
		prev = b;
		b = d->next;
	}
	for (i = 0; i < w->ndata; i++) {
		d = &w->data[i];
		if (!d->listed && d->entries < NV_QT_PER_BLOCK)
			qerr(w, NV_QERR_FREE_ENTRY, "data block %u has a free entry but is not on the free-entry list",
			     d->blk);
	}
}

int nv_quota_read(const struct nv_fs *fs, const struct nv_inode_state *st,
		  struct nv_quota *q, nv_qerr_fn fn, void *arg)
{
	struct qwalk *w = calloc(1, sizeof(*w));
	size_t i, j;
	int ret;

	memset(q, 0, sizeof(*q));
	if (!w)
		return -1;
	w->fs = fs;
	w->st = st;
	w->q = q;
	w->fn = fn;
	w->arg = arg;
	nv_pmap_init(&w->seen);
	qt_info(w);
	qt_set_state(w, NV_QT_TREEOFF, QB_TREE);
	if (q->fblocks > NV_QT_TREEOFF)
		qt_tree(w, NV_QT_TREEOFF, 0, 0);
	if (!w->oom && w->nleaf)
		qsort(w->leaf, w->nleaf, sizeof(*w->leaf), cmp_leaf);
	for (i = 0; i < w->nleaf && !w->oom; i = j) {
		for (j = i + 1; j < w->nleaf && w->leaf[j].blk == w->leaf[i].blk; j++)
			;
		qt_data_block(w, &w->leaf[i], j - i);
	}
	if (q->info_ok && !w->oom) {
		qt_free_blocks(w);
		qt_free_entries(w);
	}
	if (!w->oom && q->ndq)
		qsort(q->dq, q->ndq, sizeof(*q->dq), cmp_dquot);
	ret = w->oom ? -1 : 0;
	nv_pmap_free(&w->seen);
	free(w->leaf);
	free(w->data);
	free(w);
	if (ret)
		nv_quota_free(q);
	return ret;
}

void nv_quota_free(struct nv_quota *q)
{
	free(q->dq);
	q->dq = NULL;
	q->ndq = q->dq_cap = 0;
}

struct nv_dquot *nv_quota_find(const struct nv_quota *q, uint32_t id)
{
	struct nv_dquot key = { .id = id };

	return q->ndq ? bsearch(&key, q->dq, q->ndq, sizeof(key), cmp_dquot) :
	       NULL;
}

/* A quota file being built: @blocks of @cap in @buf */
struct qbuild {
	uint8_t *buf;
	uint32_t blocks, cap, free_entry;
};

static uint8_t *qb_blk(const struct qbuild *b, uint32_t n)
{
	return b->buf + ((size_t)n << NV_QT_BLOCK_BITS);
}

/* get_free_dqblk() with no free block: a new zeroed block at the end */
static long qb_new(struct qbuild *b)
{
	if (b->blocks == b->cap) {
		uint8_t *p;

		if (b->cap >= UINT32_MAX / 2)
			return -ENOMEM;
		p = realloc(b->buf, (size_t)b->cap * 2 << NV_QT_BLOCK_BITS);
		if (!p)
			return -ENOMEM;
		memset(p + ((size_t)b->cap << NV_QT_BLOCK_BITS), 0,
		       (size_t)b->cap << NV_QT_BLOCK_BITS);
		b->buf = p;
		b->cap *= 2;
	}
	return b->blocks++;
}

/* find_free_dqentry(): @d in the first free entry of the free-entry list */
static long qb_entry(struct qbuild *b, const struct nv_dquot *d)
{
	uint32_t next, prev;
	unsigned int i;
	uint8_t *h;
	long blk;

	if (b->free_entry) {
		blk = b->free_entry;
	} else {
		blk = qb_new(b);
		if (blk < 0)
			return blk;
		b->free_entry = blk;
	}
	h = qb_blk(b, blk);
	if (qget16(h + 8) + 1U >= NV_QT_PER_BLOCK) {
		/* remove_free_dqentry(): the block will be full */
		next = qget32(h);
		prev = qget32(h + 4);
		if (next)
			qput32(qb_blk(b, next) + 4, prev);
		if (prev)
			qput32(qb_blk(b, prev), next);
		else
			b->free_entry = next;
		qput32(h, 0);
		qput32(h + 4, 0);
	}
	qput16(h + 8, qget16(h + 8) + 1);
	for (i = 0; i < NV_QT_PER_BLOCK; i++)
		if (qt_unused(h + NV_QT_DQDH + i * NV_QT_ENTRY))
			break;
	if (i == NV_QT_PER_BLOCK)
		return -EIO;
	qt_put_entry(h + NV_QT_DQDH + i * NV_QT_ENTRY, d);
	return blk;
}

/* do_insert_tree(): @d's path from level @depth, blocks in @blks */
static long qb_insert(struct qbuild *b, const struct nv_dquot *d,
		      uint32_t *blks, int depth)
{
	unsigned int idx = qt_index(d->id, depth);
	uint32_t ref;
	long ret;

	if (!blks[depth]) {
		ret = qb_new(b);
		if (ret < 0)
			return ret;
		blks[depth] = ret;
	}
	ref = qget32(qb_blk(b, blks[depth]) + 4 * idx);
	if (depth == NV_QT_DEPTH - 1) {
		if (ref)
			return -EEXIST;
		ret = qb_entry(b, d);
		if (ret < 0)
			return ret;
		blks[depth + 1] = ret;
	} else {
		blks[depth + 1] = ref;
		ret = qb_insert(b, d, blks, depth + 1);
		if (ret < 0)
			return ret;
	}
	if (!ref)
		qput32(qb_blk(b, blks[depth]) + 4 * idx, blks[depth + 1]);
	return 0;
}

int nv_quota_build(const struct nv_qinfo *info, const struct nv_dquot *dq,
		   size_t n, uint8_t **buf, size_t *len)
{
	struct qbuild b = { .blocks = NV_QT_TREEOFF + 1, .cap = 8 };
	uint8_t *h;
	size_t i;
	long ret = 0;

	b.buf = calloc(b.cap, NV_QT_BLOCK);
	if (!b.buf)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		uint32_t blks[NV_QT_DEPTH + 1] = { NV_QT_TREEOFF };

		ret = qb_insert(&b, &dq[i], blks, 0);
	}
	if (ret) {
		free(b.buf);
		return ret == -EEXIST ? -EEXIST : -ENOMEM;
	}
	h = b.buf;
	qput32(h, NV_PRJQUOTA_MAGIC);
	qput32(h + 4, NV_PRJQUOTA_VERSION);
	h += NV_QT_INFO_OFF;
	qput32(h, info->bgrace);
	qput32(h + 4, info->igrace);
	qput32(h + 8, 0);		/* no flags (v2_write_file_info()) */
	qput32(h + 12, b.blocks);
	qput32(h + 16, 0);
	qput32(h + 20, b.free_entry);
	*buf = b.buf;
	*len = (size_t)b.blocks << NV_QT_BLOCK_BITS;
	return 0;
}
