// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA inodes: the VFS inode cache, per-stripe inode tables and inode
 * number allocation, reading an inode and rebuilding its DRAM state from
 * its log, attribute changes (set-attribute and link-change log entries),
 * inode flags, and reclaiming deleted inodes.
 *
 * Inode numbers are striped across the per-stripe tables: slot i of
 * stripe s holds inode i * stripes + s; numbers below
 * NOVA_NORMAL_INODE_START are the reserved inodes of block 1.  A table is
 * a chain of blocks whose last 8 bytes point to the next block.
 */
#include <linux/slab.h>
#include <linux/pagemap.h>
#include <linux/cred.h>
#include <linux/random.h>
#include <linux/quotaops.h>
#include "nova.h"
#include <linux/fileattr.h>

static struct kmem_cache *nova_inode_cachep;

static void nova_inode_init_once(void *p)
{
	struct nova_inode_info *vi = p;

	inode_init_once(&vi->vfs_inode);
}

int __init nova_init_inode_cache(void)
{
	nova_inode_cachep = kmem_cache_create("nova_inode_cache",
					      sizeof(struct nova_inode_info), 0,
					      SLAB_RECLAIM_ACCOUNT | NOVA_SLAB_MEM_SPREAD |
					      SLAB_ACCOUNT,
					      nova_inode_init_once);
	return nova_inode_cachep ? 0 : -ENOMEM;
}

void nova_destroy_inode_cache(void)
{
	/* free_inode callbacks may still be pending */
	rcu_barrier();
	kmem_cache_destroy(nova_inode_cachep);
}

struct inode *nova_alloc_inode(struct super_block *sb)
{
	struct nova_inode_info *vi;

	vi = alloc_inode_sb(sb, nova_inode_cachep, GFP_NOFS);
	if (!vi)
		return NULL;
	memset(&vi->header, 0, sizeof(vi->header));
	memset(&vi->i_dquot, 0, sizeof(vi->i_dquot));
#ifdef HAVE_FSCRYPT_INODE_INFO_OFFS
	vi->i_crypt_info = NULL;
#endif
	vi->header.dir_tree = RB_ROOT;
	xa_init(&vi->header.dir_cookies);
	xa_init(&vi->header.pages);
	xa_init(&vi->header.share_drops);
	mutex_init(&vi->header.log_mutex);
	vi->header.xattr_tree = RB_ROOT;
	init_rwsem(&vi->header.xattr_sem);
	vi->header.trans_id = 1;
	return &vi->vfs_inode;
}

void nova_free_inode(struct inode *inode)
{
	/* an encrypted symlink's i_link is fscrypt's decrypted target */
	fscrypt_free_inode(inode);
	if (S_ISLNK(inode->i_mode))
		kfree(inode->i_link);
	kmem_cache_free(nova_inode_cachep, NOVA_I(inode));
}

/* ---- inode tables and inode numbers ---- */

static unsigned long nova_slots_per_block(struct nova_sb_info *sbi)
{
	return sbi->layout.itable_block_size / sizeof(struct nova_inode) - 1;
}

/*
 * Where the pmem inode of @ino lives, or 0 if @ino is out of range, or
 * with @in_use, not in use: free, or an orphan that a read-only device
 * kept (bbuild.c), whose slot the scan left free in the map
 */
static u64 nova_inode_off(struct super_block *sb, unsigned long ino,
			  bool in_use)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long per = nova_slots_per_block(sbi), index;
	struct nova_inode_map *map;
	u64 off = 0;

	if (ino < NOVA_NORMAL_INODE_START)
		return nova_block_off(NOVA_RESERVED_INODE_BLOCK) +
		       ino * sizeof(struct nova_inode);
	map = &sbi->inode_maps[ino % sbi->layout.stripes];
	index = ino / sbi->layout.stripes;
	mutex_lock(&map->lock);
	if (index / per < map->nblocks &&
	    (!in_use || test_bit(index, map->inuse)))
		off = map->blocks[index / per] +
		      (index % per) * sizeof(struct nova_inode);
	mutex_unlock(&map->lock);
	return off;
}

/*
 * Grow stripe @s's bitmap and block list to hold one more table block.
 * The slots of reserved numbers in it are in use from the start: with one
 * stripe and 31 slots a block, reserved number 31 is a slot of the second
 * block, which a map built from one block would otherwise hand out.  The
 * arrays double when full: a mount adds a large table block by block.
 * Bits past the capacity are clear (or a reserved slot's, kept set), as
 * nova_shrink_inode_table() leaves them.
 */
static int nova_inode_map_grow(struct nova_sb_info *sbi, unsigned int s,
			       struct nova_inode_map *map, u64 blk)
{
	unsigned long per = nova_slots_per_block(sbi);
	unsigned long cap = (map->nblocks + 1) * per, slot;

	if (map->nblocks == map->blocks_room) {
		unsigned long room = max(8UL, 2 * map->blocks_room);
		u64 *blocks = krealloc_array(map->blocks, room, sizeof(u64),
					     GFP_KERNEL);

		if (!blocks)
			return -ENOMEM;
		map->blocks = blocks;
		map->blocks_room = room;
	}
	if (cap > map->inuse_bits) {
		unsigned long nbits = round_up(max(cap, 2 * map->inuse_bits),
					       BITS_PER_LONG);
		unsigned long *bits = kvcalloc(BITS_TO_LONGS(nbits),
					       sizeof(long), GFP_KERNEL);

		if (!bits)
			return -ENOMEM;
		if (map->inuse) {
			bitmap_copy(bits, map->inuse, map->inuse_bits);
			kvfree(map->inuse);
		}
		map->inuse = bits;
		map->inuse_bits = nbits;
	}
	for (slot = map->capacity; slot < cap; slot++)
		if (slot * sbi->layout.stripes + s < NOVA_NORMAL_INODE_START &&
		    !__test_and_set_bit(slot, map->inuse))
			map->used++;
	map->blocks[map->nblocks++] = blk;
	map->capacity = cap;
	return 0;
}

/* Mount-time: register table block @blk of @stripe (in chain order) */
int nova_inode_map_add_block(struct super_block *sb, unsigned int stripe,
			     u64 blk)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	return nova_inode_map_grow(sbi, stripe, &sbi->inode_maps[stripe], blk);
}

/* Mount-time: mark inode @ino in use */
void nova_inode_map_set(struct super_block *sb, unsigned long ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_map *map = &sbi->inode_maps[ino % sbi->layout.stripes];

	if (!__test_and_set_bit(ino / sbi->layout.stripes, map->inuse))
		map->used++;
}

int nova_alloc_inode_maps(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	sbi->inode_maps = kcalloc(sbi->layout.stripes, sizeof(*sbi->inode_maps),
				  GFP_KERNEL);
	if (!sbi->inode_maps)
		return -ENOMEM;
	for (i = 0; i < sbi->layout.stripes; i++)
		mutex_init(&sbi->inode_maps[i].lock);
	return 0;
}

void nova_free_inode_maps(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	if (!sbi->inode_maps)
		return;
	for (i = 0; i < sbi->layout.stripes; i++) {
		kvfree(sbi->inode_maps[i].inuse);
		kfree(sbi->inode_maps[i].blocks);
	}
	kfree(sbi->inode_maps);
	sbi->inode_maps = NULL;
}

/*
 * Extend a stripe's inode table by one zeroed block.  Ordering: the new
 * block is zeroed and durable before the 8-byte link to it is stored.
 */
static int nova_extend_inode_table(struct super_block *sb, unsigned int stripe,
				   struct nova_inode_map *map)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long blk;
	u64 last = map->blocks[map->nblocks - 1];
	int ret;

	if (nova_in_reserve(sb, sbi->layout.itable_block_size >> NOVA_BLOCK_SHIFT))
		return -ENOSPC;
	ret = nova_new_blocks(sb, &blk, sbi->layout.itable_block_size >> NOVA_BLOCK_SHIFT,
			      stripe, true);
	if (ret < 0)
		return ret;
	ret = nova_inode_map_grow(sbi, stripe, map, nova_block_off(blk));
	if (ret) {
		nova_free_blocks(sb, blk, sbi->layout.itable_block_size >> NOVA_BLOCK_SHIFT);
		return ret;
	}
	NOVA_CRASH_POINT(CP_ITABLE_EXTEND);
	nova_store_le64(nova_get_block(sb, last + sbi->layout.itable_block_size -
				       sizeof(__le64)), nova_block_off(blk));
	return 0;
}

/*
 * Inode numbers fit in 32 bits, as ext4's (fscrypt's IV_INO_LBLK policies
 * put them in the IV, crypto.c): stripe @s hands out slots up to this one.
 * 2^32 inodes are 512 GiB of inode tables.
 */
static unsigned long nova_max_slot(struct nova_sb_info *sbi, unsigned int s)
{
	return (U32_MAX - s) / sbi->layout.stripes;
}

/* Does slot @slot of @map (locked) hold a valid inode on pmem? */
static bool nova_slot_valid(struct super_block *sb, struct nova_inode_map *map,
			    unsigned long slot)
{
	unsigned long per = nova_slots_per_block(NOVA_SB(sb));
	struct nova_inode *pi = nova_get_block(sb, map->blocks[slot / per] +
					       (slot % per) * sizeof(*pi));

	return READ_ONCE(pi->i_valid) == NOVA_INODE_VALID;
}

/*
 * A slot is free in the map only when its pmem inode is free: evict
 * marks the inode free before it releases the slot.  After a clean
 * unmount the map is the snapshot's, which the mount does not check
 * against the tables (bbuild.c), and a damaged or hostile one can call
 * a live inode's slot free.  Such a slot is never reused (the old name
 * would lead to the new inode) and its table block never given back:
 * when the allocator finds one (free in the map, its inode valid), it
 * reports it once and keeps it in use, as ext4 skips an inode that its
 * bitmap calls free but that is in use.  @map is locked.
 */
static void nova_keep_valid_slot(struct super_block *sb, unsigned int s,
				 struct nova_inode_map *map, unsigned long slot)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	__set_bit(slot, map->inuse);
	map->used++;
	/* counted, as the scan would have */
	atomic64_inc(&sbi->inodes_used);
	nova_error(sb, "inode %lu is in use but free in the inode allocator: not reused",
		   slot * sbi->layout.stripes + s);
}

/*
 * A free slot of stripe @s (@map locked, grown if need be), now in use;
 * its inode number in *@ino.  -ENOSPC if the stripe has none.  A slot
 * whose inode is valid is kept (nova_keep_valid_slot()): with
 * errors=continue the next free one is taken; with errors=remount-ro its
 * report has just set the emergency read-only state, and the create fails.
 */
static int nova_alloc_slot(struct super_block *sb, unsigned int s,
			   struct nova_inode_map *map, unsigned long *ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long last = nova_max_slot(sbi, s), limit, slot;

	for (;;) {
		limit = min(map->capacity, last + 1);
		slot = find_next_zero_bit(map->inuse, limit, map->hint);
		if (slot >= limit)
			slot = find_first_zero_bit(map->inuse, limit);
		if (slot >= limit && map->capacity <= last &&
		    !nova_extend_inode_table(sb, s, map))
			slot = find_next_zero_bit(map->inuse, map->capacity,
						  map->capacity -
						  nova_slots_per_block(sbi));
		if (slot >= map->capacity || slot > last)
			return -ENOSPC;
		map->hint = slot + 1;
		if (!nova_slot_valid(sb, map, slot))
			break;
		nova_keep_valid_slot(sb, s, map, slot);
		/* the error left the file system read-only: no more changes */
		if (nova_emergency_state(sb))
			return -EUCLEAN;
		cond_resched();
	}
	__set_bit(slot, map->inuse);
	map->used++;
	*ino = slot * sbi->layout.stripes + s;
	return 0;
}

static int nova_alloc_ino(struct super_block *sb, unsigned long *ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int stripe = raw_smp_processor_id() % sbi->layout.stripes, i;
	int ret = -ENOSPC;

	for (i = 0; i < sbi->layout.stripes && ret == -ENOSPC; i++) {
		unsigned int s = (stripe + i) % sbi->layout.stripes;
		struct nova_inode_map *map = &sbi->inode_maps[s];

		mutex_lock(&map->lock);
		ret = nova_alloc_slot(sb, s, map, ino);
		mutex_unlock(&map->lock);
	}
	if (!ret)
		atomic64_inc(&sbi->inodes_used);
	return ret;
}

/*
 * Slots @from to the end of @map (locked, the last table block) are free
 * in the map: keep those whose inode is valid (nova_keep_valid_slot()).
 * True if there was one.
 */
static bool nova_table_block_valid(struct super_block *sb, unsigned int s,
				   struct nova_inode_map *map,
				   unsigned long from)
{
	unsigned long slot;
	bool found = false;

	for (slot = from; slot < map->capacity; slot++) {
		if (nova_slot_valid(sb, map, slot)) {
			nova_keep_valid_slot(sb, s, map, slot);
			found = true;
		}
	}
	return found;
}

/*
 * Give back trailing inode table blocks whose slots are all free (never
 * the first block): in the map and, as a snapshot's map may be wrong,
 * on pmem.  Each unlink is one durable 8-byte store of the previous
 * block's next pointer; the block held only free inodes, so a crash
 * anywhere leaves a consistent table.  Caller holds map->lock.
 */
static void nova_shrink_inode_table(struct super_block *sb, unsigned int stripe,
				    struct nova_inode_map *map)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long per = nova_slots_per_block(sbi);
	/*
	 * The slots of the reserved numbers are marked in use but hold
	 * nothing (those inodes live in the reserved block): with one
	 * stripe the last of them falls into the table's second block,
	 * which must still go back when its normal slots are free.
	 */
	unsigned long rsv = stripe < NOVA_NORMAL_INODE_START ?
		DIV_ROUND_UP(NOVA_NORMAL_INODE_START - stripe, sbi->layout.stripes) : 0;

	while (map->nblocks > 1) {
		unsigned long first = (map->nblocks - 1) * per;
		u64 blk = map->blocks[map->nblocks - 1];
		u64 prev = map->blocks[map->nblocks - 2];

		if (find_next_bit(map->inuse, map->capacity, max(first, rsv)) <
		    map->capacity)
			break;
		if (nova_table_block_valid(sb, stripe, map, max(first, rsv)))
			break;
		nova_store_le64(nova_get_block(sb, prev + sbi->layout.itable_block_size -
					       sizeof(__le64)), 0);
		nova_free_blocks(sb, blk >> NOVA_BLOCK_SHIFT,
				 sbi->layout.itable_block_size >> NOVA_BLOCK_SHIFT);
		map->nblocks--;
		map->capacity = map->nblocks * per;
		if (map->hint > map->capacity)
			map->hint = map->capacity;
	}
}

static void nova_release_ino(struct super_block *sb, unsigned long ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_map *map = &sbi->inode_maps[ino % sbi->layout.stripes];
	unsigned long slot = ino / sbi->layout.stripes;

	mutex_lock(&map->lock);
	if (__test_and_clear_bit(slot, map->inuse)) {
		map->used--;
		if (slot < map->hint)
			map->hint = slot;
	}
	nova_shrink_inode_table(sb, ino % sbi->layout.stripes, map);
	mutex_unlock(&map->lock);
	atomic64_dec(&sbi->inodes_used);
}

/* ---- inode flags ---- */

/*
 * FS_DAX_FL (FS_XFLAG_DAX, chattr +x) is kept and inherited as on ext4
 * and XFS, on regular files and directories only; it changes nothing
 * here: every NOVA file is DAX (statx reports STATX_ATTR_DAX on all).
 */
#define NOVA_FL_KERNEL (FS_APPEND_FL | FS_IMMUTABLE_FL | FS_NOATIME_FL | \
			FS_SYNC_FL | FS_NODUMP_FL | FS_DIRSYNC_FL | \
			FS_NOCOW_FL | FS_DAX_FL | FS_PROJINHERIT_FL | \
			FS_CASEFOLD_FL)
static_assert(NOVA_FL_KERNEL == NOVA_FL_SUPPORTED);
/*
 * FS_NOCOW_FL (chattr +C, as btrfs): inherited by new files and
 * directories; FS_PROJINHERIT_FL (chattr +P, as ext4) and FS_CASEFOLD_FL
 * (chattr +F, as ext4) by directories
 */
#define NOVA_FL_INHERITED (FS_NOATIME_FL | FS_SYNC_FL | FS_NODUMP_FL | \
			   FS_DIRSYNC_FL | FS_NOCOW_FL | FS_DAX_FL | \
			   FS_PROJINHERIT_FL | FS_CASEFOLD_FL)
/* The flags only a directory keeps */
#define NOVA_FL_DIR_ONLY (FS_DIRSYNC_FL | FS_PROJINHERIT_FL | FS_CASEFOLD_FL)

/* The flags an inode of @mode may carry (as ext4_mask_flags()) */
static u32 nova_flags_for_mode(umode_t mode)
{
	if (S_ISDIR(mode))
		return NOVA_FL_SUPPORTED;
	if (S_ISREG(mode))
		return NOVA_FL_SUPPORTED & ~NOVA_FL_DIR_ONLY;
	return FS_NODUMP_FL | FS_NOATIME_FL;
}

/* The inherited flags a new inode of @mode gets from @dir_flags */
static u32 nova_inherit_flags(u32 dir_flags, umode_t mode)
{
	return dir_flags & NOVA_FL_INHERITED & nova_flags_for_mode(mode);
}

void nova_set_inode_flags(struct inode *inode, u32 flags)
{
	unsigned int f = 0;

	NOVA_I(inode)->header.flags = flags & NOVA_FL_SUPPORTED;
	if (flags & FS_SYNC_FL)
		f |= S_SYNC;
	if (flags & FS_APPEND_FL)
		f |= S_APPEND;
	if (flags & FS_IMMUTABLE_FL)
		f |= S_IMMUTABLE;
	if (flags & FS_NOATIME_FL)
		f |= S_NOATIME;
	if (flags & FS_DIRSYNC_FL)
		f |= S_DIRSYNC;
	if ((flags & FS_CASEFOLD_FL) && S_ISDIR(inode->i_mode))
		f |= S_CASEFOLD;
	inode_set_flags(inode, f, S_SYNC | S_APPEND | S_IMMUTABLE | S_NOATIME |
			S_DIRSYNC | S_CASEFOLD);
	/*
	 * a replay may meet the flag after the names (a thorough GC logs
	 * the attributes last): the index is keyed again then
	 */
	if (S_ISDIR(inode->i_mode))
		nova_dir_set_ci(inode);
}

/* ---- reading an inode and replaying its log ---- */

static void nova_apply_setattr(struct inode *inode,
			       const struct nova_setattr_entry *e)
{
	if (e->attr & NOVA_ATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) |
				(le16_to_cpu(e->mode) & ~S_IFMT);
	if (e->attr & NOVA_ATTR_UID)
		i_uid_write(inode, le32_to_cpu(e->uid));
	if (e->attr & NOVA_ATTR_GID)
		i_gid_write(inode, le32_to_cpu(e->gid));
	if (e->attr & NOVA_ATTR_SIZE)
		inode->i_size = le64_to_cpu(e->size);
	if (e->attr & NOVA_ATTR_ATIME)
		nova_set_atime(inode, nova_ns_to_ts(le64_to_cpu(e->atime)));
	if (e->attr & NOVA_ATTR_MTIME)
		nova_set_mtime(inode, nova_ns_to_ts(le64_to_cpu(e->mtime)));
	if (e->attr & NOVA_ATTR_CTIME)
		nova_set_ctime(inode, nova_ns_to_ts(le64_to_cpu(e->ctime)));
}

static int nova_replay_entry(struct super_block *sb, u64 off,
			     const void *entry, size_t size, void *arg)
{
	struct inode *inode = arg;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	u64 tid = nova_entry_trans_id(entry);
	bool dead = nova_entry_is_invalid(entry);
	long ret = 0;

	if (tid >= sih->trans_id)
		sih->trans_id = tid + 1;
	/* the parts of an extended attribute come one after the other */
	if (*(const u8 *)entry != NOVA_XATTR && sih->xr.live) {
		ret = nova_xattr_replay_end(inode);
		return ret;
	}

	switch (*(const u8 *)entry) {
	case NOVA_XATTR:
		ret = nova_xattr_replay(sb, inode, off, entry);
		break;
	case NOVA_DIR_LOG:
		if (!S_ISDIR(inode->i_mode))
			goto bad;
		/* a dead dentry still carries the directory's attributes */
		ret = nova_rebuild_entry(sb, off, entry, size, inode);
		break;
	case NOVA_SET_ATTR: {
		const struct nova_setattr_entry *e = entry;
		loff_t before = inode->i_size;

		if (dead)
			break;
		if ((e->attr & NOVA_ATTR_SIZE) &&
		    le64_to_cpu(e->size) > MAX_LFS_FILESIZE)
			goto bad;
		nova_apply_setattr(inode, e);
		sih->last_sa = off;
		sih->last_sa_cut = (e->attr & NOVA_ATTR_SIZE) &&
				   inode->i_size < before;
		/* only a shrink cut pages (not blocks kept past EOF) */
		if (S_ISREG(inode->i_mode) && sih->last_sa_cut)
			ret = nova_index_truncate(sb, inode, inode->i_size, false);
		break;
	}
	case NOVA_LINK_CHANGE: {
		const struct nova_link_change_entry *e = entry;

		if (dead)
			break;
		set_nlink(inode, le32_to_cpu(e->links));
		nova_set_ctime(inode, nova_ns_to_ts(le64_to_cpu(e->ctime)));
		inode->i_generation = le32_to_cpu(e->generation);
		nova_set_inode_flags(inode, le32_to_cpu(e->flags));
		sih->projid = le32_to_cpu(e->projid);
		sih->last_lc = off;
		break;
	}
	case NOVA_FILE_WRITE: {
		struct nova_file_write_entry *e = (void *)entry;

		/* a dead write entry's pages are all superseded */
		if (dead)
			break;
		if (S_ISREG(inode->i_mode)) {
			ret = nova_replay_write_entry(sb, inode, e);
			break;
		}
		if (!S_ISLNK(inode->i_mode) || le64_to_cpu(e->pgoff) ||
		    le32_to_cpu(e->num_pages) != 1 ||
		    !nova_range_valid(NOVA_SB(sb), le64_to_cpu(e->block),
				      NOVA_BLOCK_SIZE))
			goto bad;
		sih->symlink_block = le64_to_cpu(e->block);
		inode->i_size = le64_to_cpu(e->size);
		inode->i_blocks = NOVA_BLOCK_SIZE >> 9;
		break;
	}
	default:
		goto bad;
	}
	return ret < 0 ? ret : 0;
bad:
	nova_error(sb, "inode %llu: unexpected log entry type %u at 0x%llx",
		   nova_ino(inode), *(const u8 *)entry, off);
	return -EUCLEAN;
}

/*
 * Release what nova_claim_inode() claimed: an inode that leaves the
 * cache still linked (balloc.c), so that reading it again does not
 * find its own blocks claimed.
 */
static void nova_unclaim_inode(struct super_block *sb, struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;

	if (!sih->claimed)
		return;
	sih->claimed = false;
	nova_log_unclaim(sb, sih->log_head, ULONG_MAX);
	if (S_ISREG(inode->i_mode))
		nova_index_unclaim(sb, inode, ULONG_MAX);
	if (sih->symlink_block)
		nova_unclaim_blocks(sb, sih->symlink_block >> NOVA_BLOCK_SHIFT, 1);
}

/*
 * The last step of reading an inode: claim its log pages, data blocks
 * and symlink block (balloc.c).  A block another inode or the metadata
 * holds makes it corrupt; nothing stays claimed then.
 */
static int nova_claim_inode(struct super_block *sb, struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	u64 sym = sih->symlink_block;
	int ret;

	ret = nova_log_claim(sb, inode->i_ino, sih->log_head, sih->log_pages);
	if (ret)
		return ret;
	if (S_ISREG(inode->i_mode)) {
		ret = nova_index_claim(sb, inode);
		if (ret)
			goto undo_log;
	}
	if (sym) {
		ret = (sym & (NOVA_BLOCK_SIZE - 1)) ? -EINVAL :
		      nova_claim_blocks(sb, sym >> NOVA_BLOCK_SHIFT, 1);
		if (ret) {
			nova_error(sb, "inode %llu: symlink block 0x%llx is %s",
				   nova_ino(inode), sym,
				   ret == -EINVAL ? "not block aligned" :
				   ret == -ENOENT ? "a free block" :
				   "claimed twice (another inode's or metadata)");
			ret = -EUCLEAN;
			goto undo_data;
		}
	}
	sih->claimed = true;
	return 0;
undo_data:
	if (S_ISREG(inode->i_mode))
		nova_index_unclaim(sb, inode, ULONG_MAX);
undo_log:
	nova_log_unclaim(sb, sih->log_head, sih->log_pages);
	return ret;
}

/*
 * The operations of an inode of a valid file type (i_mode), on read and
 * on create; @rdev: the device number of a device node
 */
static void nova_set_inode_ops(struct inode *inode, dev_t rdev)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &nova_dir_inode_operations;
		inode->i_fop = &nova_dir_operations;
		break;
	case S_IFREG:
		inode->i_op = &nova_file_inode_operations;
		inode->i_fop = &nova_file_operations;
		inode->i_mapping->a_ops = &nova_dax_aops;
		inode->i_flags |= S_DAX;
		break;
	case S_IFLNK:
		inode->i_op = &nova_symlink_inode_operations;
		break;
	default:
		inode->i_op = &nova_special_inode_operations;
		init_special_inode(inode, inode->i_mode, rdev);
		break;
	}
}

/* @flags: NOVA_IGET_HANDLE, the inode number comes from a file handle */
static int nova_read_inode(struct super_block *sb, struct inode *inode,
			   u64 pi_off, unsigned int flags)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_inode pi;
	int ret;

	ret = nova_read_pmem(&pi, nova_get_block(sb, pi_off), sizeof(pi));
	if (ret) {
		nova_error(sb, "inode %llu: media error reading the inode",
			   nova_ino(inode));
		return ret;
	}
	if (pi.i_valid != NOVA_INODE_VALID || le64_to_cpu(pi.i_ino) != inode->i_ino)
		return -ESTALE;

	inode->i_mode = le16_to_cpu(pi.i_mode);
	i_uid_write(inode, le32_to_cpu(pi.i_uid));
	i_gid_write(inode, le32_to_cpu(pi.i_gid));
	set_nlink(inode, le32_to_cpu(pi.i_links_count));
	inode->i_size = le64_to_cpu(pi.i_size);
	nova_set_atime(inode, nova_ns_to_ts(le64_to_cpu(pi.i_atime)));
	nova_set_mtime(inode, nova_ns_to_ts(le64_to_cpu(pi.i_mtime)));
	nova_set_ctime(inode, nova_ns_to_ts(le64_to_cpu(pi.i_ctime)));
	inode->i_generation = le32_to_cpu(pi.i_generation);
	inode->i_blocks = 0;
	nova_set_inode_flags(inode, le32_to_cpu(pi.i_flags));
	sih->projid = le32_to_cpu(pi.i_projid);

	sih->pi_addr = pi_off;
	sih->log_head = le64_to_cpu(pi.log_head);
	sih->log_tail = le64_to_cpu(pi.log_tail);
	ret = nova_log_check_chain(sb, inode->i_ino, sih->log_head,
				   sih->log_tail);
	if (ret < 0)
		return ret;
	sih->log_pages = ret;
	sih->ino = inode->i_ino;
	if (le64_to_cpu(pi.i_size) > MAX_LFS_FILESIZE) {
		nova_error(sb, "inode %llu: bad size %llu", nova_ino(inode),
			   le64_to_cpu(pi.i_size));
		return -EUCLEAN;
	}

	if (fs_umode_to_dtype(inode->i_mode) == DT_UNKNOWN) {
		nova_error(sb, "inode %llu: bad mode 0%o", nova_ino(inode),
			   inode->i_mode);
		return -EUCLEAN;
	}
	nova_set_inode_ops(inode, new_decode_dev(le32_to_cpu(pi.i_rdev)));

	ret = nova_log_walk(sb, inode->i_ino, sih->log_head, sih->log_tail,
			    nova_replay_entry, inode);
	if (!ret)
		ret = nova_xattr_replay_end(inode);
	if (ret)
		return ret;
	nova_crypt_load(inode);
	/* as ext4: the flag needs the feature; never with encryption */
	if ((sih->flags & FS_CASEFOLD_FL) &&
	    (!S_ISDIR(inode->i_mode) || !nova_sb_encoding(sb) ||
	     IS_ENCRYPTED(inode))) {
		nova_error(sb, "inode %llu: casefold flag on %s", nova_ino(inode),
			   !S_ISDIR(inode->i_mode) ? "a non-directory" :
			   IS_ENCRYPTED(inode) ? "an encrypted directory" :
			   "a file system without the casefold feature");
		return -EUCLEAN;
	}
	if (sih->binary_names && !IS_ENCRYPTED(inode)) {
		nova_error(sb, "directory %llu: a name with '/' or NUL, not encrypted",
			   nova_ino(inode));
		return -EUCLEAN;
	}
	/* the permission checks need not look for ACLs that are not there */
	if (!nova_xattr_has_acl(inode))
		cache_no_acl(inode);
	/*
	 * A linked name leads here, so a zero link count is damage (orphans
	 * of a crash were reclaimed by the mount scan); evicting it would
	 * free an inode that a directory still names.  A file handle may
	 * name a deleted file: stale, as ext4's EXT4_IGET_HANDLE (an orphan
	 * a read-only device kept is already refused by nova_inode_off(),
	 * its slot being free in the map; this covers any other).
	 */
	if (!inode->i_nlink && (flags & NOVA_IGET_HANDLE))
		return -ESTALE;
	if (!inode->i_nlink) {
		nova_error(sb, "inode %llu: link count 0 in a reachable inode",
			   nova_ino(inode));
		return -EUCLEAN;
	}
	if (S_ISREG(inode->i_mode))
		nova_count_live_writes(inode);
	/*
	 * a directory's st_blocks (and quota usage) is its log, another
	 * inode's has its extended attributes' too (quota.c)
	 */
	if (S_ISDIR(inode->i_mode))
		inode->i_blocks = sih->log_pages << (NOVA_BLOCK_SHIFT - 9);
	else
		inode->i_blocks += (blkcnt_t)nova_xattr_quota_blocks(inode,
				sih->xattr_bytes) << (NOVA_BLOCK_SHIFT - 9);
	ret = nova_claim_inode(sb, inode);
	if (ret)
		return ret;
	if (S_ISLNK(inode->i_mode)) {
		ret = nova_symlink_read(inode);
		if (ret)
			nova_unclaim_inode(sb, inode);
		return ret;
	}
	/*
	 * only now that the blocks are its own may the file write them (an
	 * encrypted file's tail is zeroed when it grows: crypto.c)
	 */
	if (S_ISREG(inode->i_mode) && !IS_ENCRYPTED(inode))
		nova_zero_past_eof(inode);
	return 0;
}

struct inode *nova_iget_flags(struct super_block *sb, unsigned long ino,
			      unsigned int flags)
{
	struct inode *inode;
	u64 pi_off;
	int ret;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!nova_inode_is_new(inode))
		return inode;

	pi_off = nova_inode_off(sb, ino, flags & NOVA_IGET_HANDLE);
	if (!pi_off) {
		ret = -ESTALE;
		goto fail;
	}
	ret = nova_read_inode(sb, inode, pi_off, flags);
	if (ret)
		goto fail;
	unlock_new_inode(inode);
	return inode;
fail:
	nova_dir_index_free(inode);
	nova_xattr_free(inode);
	iget_failed(inode);
	return ERR_PTR(ret);
}

struct inode *nova_iget(struct super_block *sb, unsigned long ino)
{
	return nova_iget_flags(sb, ino, 0);
}

static int nova_walk_one(struct super_block *sb, unsigned long ino,
			 nova_inode_fn fn, void *arg, unsigned long *skipped)
{
	struct inode *inode = nova_iget(sb, ino);
	int ret;

	if (IS_ERR(inode)) {
		/* (killed: a replay stopped, nothing to count it by) */
		if (PTR_ERR(inode) == -ENOMEM || PTR_ERR(inode) == -EINTR)
			return PTR_ERR(inode);
		pr_warn("NOVA (%s): inode %lu cannot be read (%ld): not counted\n",
			sb->s_id, ino, PTR_ERR(inode));
		(*skipped)++;
		return 0;
	}
	ret = fn(inode, arg);
	iput(inode);
	return ret;
}

/*
 * @fn on the root and every inode in use, until it returns non-zero: a
 * mount-time walk with nothing else running (the project quota count,
 * quota.c).  An inode that cannot be read is reported, skipped and
 * counted in *@skipped.
 */
int nova_walk_inodes(struct super_block *sb, nova_inode_fn fn, void *arg,
		     unsigned long *skipped)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int s;
	int ret;

	*skipped = 0;
	ret = nova_walk_one(sb, NOVA_ROOT_INO, fn, arg, skipped);
	for (s = 0; !ret && s < sbi->layout.stripes; s++) {
		struct nova_inode_map *map = &sbi->inode_maps[s];
		unsigned long i = 0, ino;

		while (!ret) {
			mutex_lock(&map->lock);
			i = find_next_bit(map->inuse, map->capacity, i);
			if (i >= map->capacity)
				i = ULONG_MAX;
			mutex_unlock(&map->lock);
			if (i == ULONG_MAX)
				break;
			ino = i++ * sbi->layout.stripes + s;
			if (ino >= NOVA_NORMAL_INODE_START)
				ret = nova_walk_one(sb, ino, fn, arg, skipped);
			cond_resched();
		}
	}
	return ret;
}

/* ---- creating inodes ---- */

/*
 * Write reserved inode @ino with no log: @mode, @links links, @size bytes,
 * owned by @uid and @gid; durable, then valid with a second durable store
 */
static void nova_init_reserved_inode(struct super_block *sb, unsigned long ino,
				     umode_t mode, u32 links, u64 size,
				     kuid_t uid, kgid_t gid)
{
	struct nova_inode *pi = nova_reserved_inode(sb, ino);
	s64 now = nova_now_ns();

	memset(pi, 0, sizeof(*pi));
	pi->i_mode = cpu_to_le16(mode);
	pi->i_uid = cpu_to_le32(from_kuid(&init_user_ns, uid));
	pi->i_gid = cpu_to_le32(from_kgid(&init_user_ns, gid));
	pi->i_links_count = cpu_to_le32(links);
	pi->i_size = cpu_to_le64(size);
	pi->i_atime = cpu_to_le64(now);
	pi->i_mtime = cpu_to_le64(now);
	pi->i_ctime = cpu_to_le64(now);
	pi->i_btime = cpu_to_le64(now);
	pi->i_ino = cpu_to_le64(ino);
	nova_persist(pi, sizeof(*pi));
	pi->i_valid = NOVA_INODE_VALID;
	nova_persist(&pi->i_valid, sizeof(pi->i_valid));
}

/* Write the root inode of a new file system (format time, durable) */
void nova_init_root_inode(struct super_block *sb, umode_t mode, kuid_t uid,
			  kgid_t gid)
{
	nova_init_reserved_inode(sb, NOVA_ROOT_INO, S_IFDIR | (mode & 07777), 2,
				 NOVA_BLOCK_SIZE, uid, gid);
}

/* Write the project quota file's inode: a regular file, one link, empty */
void nova_init_prjquota_inode(struct super_block *sb)
{
	nova_init_reserved_inode(sb, NOVA_PRJQUOTA_INO, S_IFREG | 0600, 1, 0,
				 GLOBAL_ROOT_UID, GLOBAL_ROOT_GID);
}

/*
 * Allocate and write a new inode in @dir's file system.  The pmem inode
 * is durable but not yet valid: the caller journals the word at
 * *@valid_word, commits its directory entry, and only then marks it valid
 * (nova_inode_mark_valid()).  Returns a locked new VFS inode.
 */
struct inode *nova_new_inode(nova_idmap_t *idmap, struct inode *dir,
			     umode_t mode, dev_t rdev, u64 *valid_word)
{
	struct super_block *sb = dir->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_info_header *sih;
	struct nova_inode *pi;
	struct inode *inode;
	unsigned long ino;
	u64 pi_off;
	s64 now;
	int ret;

	ret = nova_emergency_state(sb);
	if (ret)
		return ERR_PTR(ret);
	inode = new_inode(sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ret = nova_alloc_ino(sb, &ino);
	if (ret) {
		iput(inode);
		return ERR_PTR(ret);
	}
	inode->i_ino = ino;
	inode_init_owner(idmap, inode, dir, mode);
	inode->i_blocks = 0;
	nova_set_mtime(inode, nova_set_ctime_current(inode));
	nova_set_atime(inode, nova_get_mtime(inode));
	inode->i_generation = atomic_inc_return(&sbi->next_generation);
	inode->i_size = S_ISDIR(mode) ? NOVA_BLOCK_SIZE : 0;
	set_nlink(inode, S_ISDIR(mode) ? 2 : 1);
	nova_set_inode_flags(inode, nova_inherit_flags(NOVA_I(dir)->header.flags,
						       mode));

	pi_off = nova_inode_off(sb, ino, false);
	sih = &NOVA_I(inode)->header;
	/* as ext4: in a project directory, the directory's project */
	if (NOVA_I(dir)->header.flags & FS_PROJINHERIT_FL)
		sih->projid = NOVA_I(dir)->header.projid;
	sih->pi_addr = pi_off;
	sih->ino = ino;
	/* what it allocates is claimed as it goes (balloc.c) */
	sih->claimed = true;
	pi = nova_get_block(sb, pi_off);
	now = nova_ts_to_ns(nova_get_mtime(inode));

	memset(pi, 0, sizeof(*pi));
	pi->i_mode = cpu_to_le16(inode->i_mode);
	pi->i_uid = cpu_to_le32(i_uid_read(inode));
	pi->i_gid = cpu_to_le32(i_gid_read(inode));
	pi->i_links_count = cpu_to_le32(inode->i_nlink);
	pi->i_size = cpu_to_le64(inode->i_size);
	pi->i_flags = cpu_to_le32(sih->flags);
	pi->i_projid = cpu_to_le32(sih->projid);
	pi->i_atime = cpu_to_le64(now);
	pi->i_mtime = cpu_to_le64(now);
	pi->i_ctime = cpu_to_le64(now);
	pi->i_btime = cpu_to_le64(now);
	pi->i_generation = cpu_to_le32(inode->i_generation);
	pi->i_rdev = cpu_to_le32(new_encode_dev(rdev));
	pi->i_ino = cpu_to_le64(ino);
	pi->i_valid = NOVA_INODE_FREE;
	nova_persist(pi, sizeof(*pi));
	*valid_word = pi_off;

	nova_set_inode_ops(inode, rdev);

	ret = insert_inode_locked(inode);
	if (ret) {
		nova_error(sb, "inode %lu allocated twice", ino);
		make_bad_inode(inode);
		iput(inode);
		return ERR_PTR(-EUCLEAN);
	}
	/* the owner's inode quota (EDQUOT); evict gives it back */
	ret = dquot_initialize(inode);
	if (!ret)
		ret = dquot_alloc_inode(inode);
	if (ret) {
		dquot_drop(inode);
		inode->i_flags |= S_NOQUOTA;
		clear_nlink(inode);
		discard_new_inode(inode);
		return ERR_PTR(ret);
	}
	return inode;
}

/* ---- attribute log entries ---- */

/*
 * A link-change entry: the link count and ctime @inode has after the
 * operation, @st (NULL: as it is), and its flags and generation
 */
int nova_append_link_change(struct inode *inode,
			    const struct nova_link_state *st, u64 *tail)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_link_state now = nova_link_state_of(inode);
	struct nova_link_change_entry e = { .entry_type = NOVA_LINK_CHANGE };

	if (!st)
		st = &now;
	e.links = cpu_to_le32(st->nlink);
	e.ctime = cpu_to_le64(nova_ts_to_ns(st->ctime));
	e.flags = cpu_to_le32(sih->flags);
	e.generation = cpu_to_le32(inode->i_generation);
	e.projid = cpu_to_le32(sih->projid);
	e.trans_id = cpu_to_le64(sih->trans_id++);
	nova_entry_csum(&e, sizeof(e));
	return nova_log_append(inode->i_sb, inode, &e, sizeof(e), tail,
			       &sih->pending_lc);
}

/*
 * A directory removed while open ends its log with the link-change entry
 * of the rmdir (links 0): the crash scan reads only the last entry of a
 * directory's log (bbuild.c).  A change logged later through a
 * descriptor (fchmod, fsetxattr, a new atime) appends another one behind
 * it, committed with it; the caller calls nova_link_change_committed().
 */
int nova_append_dead_dir_mark(struct inode *inode, u64 *tail)
{
	if (!S_ISDIR(inode->i_mode) || inode->i_nlink)
		return 0;
	return nova_append_link_change(inode, NULL, tail);
}

/* Nothing committed: forget a dead directory's mark appended above */
void nova_drop_dead_dir_mark(struct inode *inode)
{
	if (S_ISDIR(inode->i_mode) && !inode->i_nlink)
		NOVA_I(inode)->header.pending_lc = 0;
}

/* After the commit: the new link-change entry supersedes the previous */
void nova_link_change_committed(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;

	if (!sih->pending_lc)
		return;
	if (sih->last_lc)
		nova_invalidate_entry(inode->i_sb, sih->last_lc);
	sih->last_lc = sih->pending_lc;
	sih->pending_lc = 0;
}

int nova_getattr(nova_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_inode *pi = nova_get_block(inode->i_sb, sih->pi_addr);

	nova_fillattr(idmap, request_mask, inode, stat);
	stat->blksize = NOVA_BLOCK_SIZE;
	if (request_mask & STATX_BTIME) {
		stat->btime = nova_ns_to_ts(le64_to_cpu(READ_ONCE(pi->i_btime)));
		stat->result_mask |= STATX_BTIME;
	}
	if (sih->flags & FS_APPEND_FL)
		stat->attributes |= STATX_ATTR_APPEND;
	if (sih->flags & FS_IMMUTABLE_FL)
		stat->attributes |= STATX_ATTR_IMMUTABLE;
	if (sih->flags & FS_NODUMP_FL)
		stat->attributes |= STATX_ATTR_NODUMP;
	if (IS_ENCRYPTED(inode))
		stat->attributes |= STATX_ATTR_ENCRYPTED;
	/*
	 * every file is accessed directly (DAX), whatever FS_DAX_FL says;
	 * not an encrypted one, which cannot be mapped (as ext4)
	 */
	if (!IS_ENCRYPTED(inode))
		stat->attributes |= STATX_ATTR_DAX;
	stat->attributes_mask |= STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE |
				 STATX_ATTR_NODUMP | STATX_ATTR_DAX |
				 STATX_ATTR_ENCRYPTED;
	return 0;
}

/*
 * Log the inode's current attributes (mode, owner, times, size) as one
 * NOVA_SET_ATTR entry and commit it.  A shrink (@cut, from @old_size)
 * appends hole entries for the pages past the new size before it and, if
 * @tail_blk, a write entry that maps the page the size now ends in to
 * @tail_blk (nova_truncate_prepare()), all committed by one tail store.
 * Caller holds the log mutex; @tail_blk is the caller's to free on an
 * error.
 */
int nova_log_setattr(struct inode *inode, bool cut, unsigned long tail_blk,
		     loff_t old_size)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_setattr_entry e = { .entry_type = NOVA_SET_ATTR };
	u64 tail = sih->log_tail, off, tail_entry = 0;
	bool dirty;
	int ret;

	/*
	 * The flag is cleared before the times are read, and
	 * nova_dirty_inode() sets it after storing new ones (a full barrier
	 * on each side, xchg() here): a time this entry misses leaves the
	 * flag set for the next one.
	 */
	dirty = xchg(&sih->attr_dirty, false);
	e.attr = NOVA_ATTR_MODE | NOVA_ATTR_UID | NOVA_ATTR_GID |
		 NOVA_ATTR_ATIME | NOVA_ATTR_MTIME | NOVA_ATTR_CTIME |
		 NOVA_ATTR_SIZE;
	e.mode = cpu_to_le16(inode->i_mode);
	e.uid = cpu_to_le32(i_uid_read(inode));
	e.gid = cpu_to_le32(i_gid_read(inode));
	e.atime = cpu_to_le64(nova_ts_to_ns(nova_get_atime(inode)));
	e.mtime = cpu_to_le64(nova_ts_to_ns(nova_get_mtime(inode)));
	e.ctime = cpu_to_le64(nova_ts_to_ns(nova_get_ctime(inode)));
	e.size = cpu_to_le64(inode->i_size);
	/* a cut: hole entries first, committed with the entry (dax.c) */
	if (cut && S_ISREG(inode->i_mode)) {
		ret = nova_append_cut_holes(inode, inode->i_size, &tail);
		/*
		 * then the new last page, with the size before the cut (so
		 * that a replay sees the cut, and takes the times from the
		 * set-attribute entry after it)
		 */
		if (!ret && tail_blk)
			ret = nova_append_write_entry(inode,
					inode->i_size >> NOVA_BLOCK_SHIFT, 1,
					nova_block_off(tail_blk), 0, old_size,
					&tail, &tail_entry);
		if (ret)
			goto fail;
	}
	e.trans_id = cpu_to_le64(sih->trans_id++);
	nova_entry_csum(&e, sizeof(e));

	ret = nova_log_append(inode->i_sb, inode, &e, sizeof(e), &tail, &off);
	if (!ret)
		ret = nova_append_dead_dir_mark(inode, &tail);
	if (ret)
		goto fail;
	/*
	 * one tail store commits the hole entries, the new attributes and
	 * the new last page
	 */
	nova_log_commit(inode->i_sb, inode, tail);
	/* (its old block is freed) */
	if (tail_entry)
		nova_apply_entry(inode, tail_entry, 0);
	nova_link_change_committed(inode);
	/* a superseded entry dies, unless it cut the file (see gc.c) */
	if (sih->last_sa && !sih->last_sa_cut)
		nova_invalidate_entry(inode->i_sb, sih->last_sa);
	sih->last_sa = off;
	sih->last_sa_cut = cut;
	return 0;
fail:
	/* nothing logged: times still waiting stay marked */
	nova_drop_dead_dir_mark(inode);
	if (dirty)
		WRITE_ONCE(sih->attr_dirty, true);
	return ret;
}

int nova_log_attr(struct inode *inode, bool cut)
{
	return nova_log_setattr(inode, cut, 0, 0);
}

/*
 * ->dirty_inode: times changed in DRAM only, and the inode is marked
 * dirty (I_DIRTY_SYNC): an atime updated by a read (touch_atime():
 * noatime, relatime, nodiratime, O_NOATIME and read-only mounts were
 * decided there), mtime and ctime of an in-place write or of a
 * fallocate that committed nothing (dax.c).  With lazytime a time
 * update only sets I_DIRTY_TIME, and this is called when those times
 * are due: fsync, sync, unmount, the writeback of other changes, or
 * after dirtytime_expire_seconds.  Only a flag is set here, so a read
 * stays cheap: ->write_inode (writeback: the flusher, sync, unmount),
 * fsync and eviction log the times, one set-attribute entry for any
 * number of updates in between (nova_write_attr()).
 */
void nova_dirty_inode(struct inode *inode, int flags)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;

	/* the new times are stored before the flag (nova_log_attr()) */
	smp_mb();
	WRITE_ONCE(sih->attr_dirty, true);
}

/*
 * Log the times left in DRAM only, if any: those of in-place writes
 * (dax.c) and those the VFS updated (nova_dirty_inode(): atime).  fsync,
 * writeback (->write_inode: sync, the flusher, unmount, remount
 * read-only) and eviction call this.  One set-attribute entry, committed
 * by the tail store like any other; it supersedes the previous one, so
 * a log of many such entries keeps one live (the fast GC frees pages of
 * dead ones when the log must grow).  A power cut loses only the times
 * not logged yet, as other file systems lose timestamps before fsync.
 */
int nova_write_attr(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	int ret = 0;

	if (!READ_ONCE(sih->attr_dirty) || nova_emergency_state(inode->i_sb))
		return 0;
	mutex_lock(&sih->log_mutex);
	if (READ_ONCE(sih->attr_dirty) && inode->i_nlink && !is_bad_inode(inode) &&
	    !sb_rdonly(inode->i_sb))
		ret = nova_log_attr(inode, false);
	mutex_unlock(&sih->log_mutex);
	return ret;
}

/*
 * The entry nova_write_attr() appends may take the log past its GC bound,
 * with no commit after it to run the GC: run it here, as nova_gc_maybe()
 * does, if the locks of the write path (inode, invalidate, log mutex) can
 * be had without waiting; else the next commit runs it.
 */
static void nova_gc_after_attr(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	bool reg = S_ISREG(inode->i_mode);

	if (!nova_gc_needed(inode) || sb_rdonly(inode->i_sb) ||
	    nova_emergency_state(inode->i_sb) || !inode->i_nlink ||
	    is_bad_inode(inode) || !inode_trylock(inode))
		return;
	if (!reg || down_write_trylock(&inode->i_mapping->invalidate_lock)) {
		mutex_lock(&sih->log_mutex);
		nova_gc_if_pending(inode);
		mutex_unlock(&sih->log_mutex);
		if (reg)
			filemap_invalidate_unlock(inode->i_mapping);
	}
	inode_unlock(inode);
}

int nova_write_inode(struct inode *inode, struct writeback_control *wbc)
{
	int ret = nova_write_attr(inode);

	if (!ret)
		nova_gc_after_attr(inode);
	return ret;
}

/*
 * Attribute changes: one NOVA_SET_ATTR entry committed by the tail store.
 * A size change of a regular file zeroes what growing would expose
 * before the commit and frees what shrinking cuts off after it.  A
 * shrink first waits until none of the blocks it frees is pinned; a
 * signal ends the wait and fails it (as ext4 and XFS do), nothing changed.
 */
int nova_setattr(nova_idmap_t *idmap, struct dentry *dentry,
		 struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct iattr saved;
	bool resize, trim, cut, transferred = false;
	unsigned long tail_blk = 0;
	loff_t old;
	int ret;

	ret = nova_emergency_state(inode->i_sb);
	if (ret)
		return ret;
	/*
	 * As ext4: the VFS checks these flags for path calls and some
	 * attributes, not for a size change through a descriptor opened
	 * before chattr
	 */
	if (IS_IMMUTABLE(inode))
		return -EPERM;
	if (IS_APPEND(inode) &&
	    (attr->ia_valid & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_TIMES_SET)))
		return -EPERM;
	ret = setattr_prepare(idmap, dentry, attr);
	if (!ret)
		ret = fscrypt_prepare_setattr(dentry, attr);
	if (ret)
		return ret;
	resize = (attr->ia_valid & ATTR_SIZE) && attr->ia_size != inode->i_size;
	if ((attr->ia_valid & ATTR_SIZE) && !S_ISREG(inode->i_mode))
		return -EINVAL;
	/*
	 * A truncate to the size the file has drops the blocks kept past
	 * EOF (fallocate KEEP_SIZE), as ext4 and xfs do; a larger one
	 * keeps them
	 */
	trim = (attr->ia_valid & ATTR_SIZE) && !resize &&
	       nova_pages_past(inode, attr->ia_size);
	/* a new owner: the usage moves to its quota first (EDQUOT) */
	if (is_quota_modification(idmap, inode, attr) || S_ISDIR(inode->i_mode)) {
		ret = dquot_initialize(inode);
		if (ret)
			return ret;
	}
	if (i_uid_needs_update(idmap, attr, inode) ||
	    i_gid_needs_update(idmap, attr, inode)) {
		ret = dquot_transfer(idmap, inode, attr);
		if (ret)
			return ret;
		transferred = true;
	}
	/* a size change always changes mtime and ctime */
	if (resize && !(attr->ia_valid & (ATTR_MTIME | ATTR_CTIME))) {
		attr->ia_mtime = attr->ia_ctime = current_time(inode);
		attr->ia_valid |= ATTR_MTIME | ATTR_CTIME;
	}
	if (resize || trim) {
		filemap_invalidate_lock(inode->i_mapping);
		ret = nova_truncate_break_layouts(inode, attr->ia_size);
		/*
		 * a shrink zeroes its new last page past EOF, a growth the
		 * old one: in place, if no block is free
		 */
		if (!ret && resize)
			nova_share_drops(inode);
		if (!ret && resize)
			ret = attr->ia_size < inode->i_size ?
			      nova_unshare_edges(inode, attr->ia_size, 0, false) :
			      nova_unshare_edges(inode, 0, 0, true);
		if (!ret && resize)
			ret = nova_crypt_grow(inode, attr->ia_size);
		if (ret) {
			filemap_invalidate_unlock(inode->i_mapping);
			if (transferred)
				nova_quota_transfer_back(inode, inode->i_uid,
							 inode->i_gid);
			return ret;
		}
	}
	mutex_lock(&sih->log_mutex);
	old = inode->i_size;
	saved.ia_mode = inode->i_mode;
	saved.ia_uid = inode->i_uid;
	saved.ia_gid = inode->i_gid;
	saved.ia_atime = nova_get_atime(inode);
	saved.ia_mtime = nova_get_mtime(inode);
	saved.ia_ctime = nova_get_ctime(inode);
	if (resize)
		tail_blk = nova_truncate_prepare(inode, attr->ia_size);
	setattr_copy(idmap, inode, attr);
	if (attr->ia_valid & ATTR_SIZE)
		inode->i_size = attr->ia_size;
	/* a shrink frees space: on a full device it may use the reserve */
	cut = (resize && attr->ia_size < old) || trim;
	sih->use_reserve = cut;
	ret = nova_log_setattr(inode, cut, tail_blk, old);
	if (ret == -ENOSPC && tail_blk) {
		/* the new last page took the block the log needed */
		nova_free_blocks(inode->i_sb, tail_blk, 1);
		tail_blk = 0;
		ret = nova_log_setattr(inode, cut, 0, old);
	}
	sih->use_reserve = false;
	if (ret) {
		if (tail_blk)
			nova_free_blocks(inode->i_sb, tail_blk, 1);
		/*
		 * Nothing committed: every field setattr_copy() changed goes
		 * back, or a later entry (or GC) would log the failed change.
		 */
		inode->i_size = old;
		inode->i_mode = saved.ia_mode;
		inode->i_uid = saved.ia_uid;
		inode->i_gid = saved.ia_gid;
		nova_set_atime(inode, saved.ia_atime);
		nova_set_mtime(inode, saved.ia_mtime);
		nova_set_ctime(inode, saved.ia_ctime);
	}
	mutex_unlock(&sih->log_mutex);
	if (resize || trim) {
		if (!ret) {
			NOVA_CRASH_POINT(CP_TRUNCATE_COMMITTED);
			i_size_write(inode, attr->ia_size);
			nova_truncate_blocks(inode, old, attr->ia_size,
					     tail_blk);
		}
		filemap_invalidate_unlock(inode->i_mapping);
	}
	/* (it may write a quota file: not under this inode's locks) */
	if (ret && transferred)
		nova_quota_transfer_back(inode, saved.ia_uid, saved.ia_gid);
	/* a shrink can leave most of the log dead: keep it within its bound */
	if (!ret)
		nova_gc_maybe(inode);
	/* a new mode: the access ACL follows it (as ext4, a second commit) */
	if (!ret && (attr->ia_valid & ATTR_MODE) && !S_ISLNK(inode->i_mode))
		ret = nova_posix_acl_chmod(idmap, dentry, inode->i_mode);
	return ret;
}

/* ---- FS_IOC_GETFLAGS / SETFLAGS ---- */

int nova_fileattr_get(struct dentry *dentry, nova_fileattr_t *fa)
{
	struct inode *inode = d_inode(dentry);

	fileattr_fill_flags(fa, NOVA_I(inode)->header.flags |
			    (IS_ENCRYPTED(inode) ? FS_ENCRYPT_FL : 0));
	fa->fsx_projid = NOVA_I(inode)->header.projid;
	return 0;
}

int nova_fileattr_set(nova_idmap_t *idmap,
		      struct dentry *dentry, nova_fileattr_t *fa)
{
	struct inode *inode = d_inode(dentry);
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	u32 old = sih->flags, old_projid = sih->projid;
	bool new_projid = fa->fsx_projid != old_projid;
	struct dquot *to = NULL;
	struct timespec64 old_ctime;
	u64 tail;
	int ret;

	/* (before a feature bit is set in the super block) */
	ret = nova_emergency_state(inode->i_sb);
	if (ret)
		return ret;
	/*
	 * FS_IOC_FSSETXATTR: flags and the project ID; XFS's other fields
	 * and flags are not supported
	 */
	if (fa->fsx_valid &&
	    ((fa->fsx_xflags & ~FS_XFLAG_COMMON) || fa->fsx_extsize ||
	     fa->fsx_cowextsize))
		return -EOPNOTSUPP;
	/* as ext4: encryption is set by a policy, never by the flag */
	fa->flags &= ~FS_ENCRYPT_FL;
	if (fa->flags & ~NOVA_FL_SUPPORTED)
		return -EOPNOTSUPP;
	/* a flag that does not fit the type: as ext4_mask_flags() */
	if (fa->flags & ~nova_flags_for_mode(inode->i_mode))
		return -EOPNOTSUPP;
	/* a quota file in use keeps its flags and project (as ext4) */
	if (IS_NOQUOTA(inode))
		return -EPERM;
	/* chattr +F / -F: as ext4 (casefold.c) */
	ret = nova_casefold_check_flags(inode, old, fa->flags);
	if (ret)
		return ret;
	/* a module without project IDs would drop the flag it does not know */
	if (fa->flags & FS_PROJINHERIT_FL)
		nova_set_feature(inode->i_sb,
				 &NOVA_SB(inode->i_sb)->s_super.s_feature_ro_compat,
				 NOVA_FEATURE_RO_COMPAT_PROJECT);
	if (new_projid) {
		/* as ext4: an immutable inode keeps its project */
		if (old & fa->flags & FS_IMMUTABLE_FL)
			return -EPERM;
		ret = nova_prjquota_get(inode, fa->fsx_projid, &to);
		if (ret)
			return ret;
	}
	/*
	 * Becoming immutable (as ext4): the writeback write-protects the
	 * pages mapped writable, so a later store faults and is refused
	 */
	if (S_ISREG(inode->i_mode) && (fa->flags & FS_IMMUTABLE_FL) &&
	    !(old & FS_IMMUTABLE_FL)) {
		ret = filemap_write_and_wait(inode->i_mapping);
		if (ret)
			goto out;
	}

	mutex_lock(&sih->log_mutex);
	tail = sih->log_tail;
	old_ctime = nova_get_ctime(inode);
	sih->flags = fa->flags;
	sih->projid = fa->fsx_projid;
	nova_set_ctime_current(inode);
	ret = nova_append_link_change(inode, NULL, &tail);
	/* the usage moves with the ID: after the append, before the commit */
	if (!ret)
		ret = nova_prjquota_move(inode, &to);
	if (ret) {
		/* nothing changed: the next entry must not log the new ctime */
		sih->flags = old;
		sih->projid = old_projid;
		nova_set_ctime(inode, old_ctime);
	} else {
		nova_log_commit(inode->i_sb, inode, tail);
		nova_link_change_committed(inode);
		nova_set_inode_flags(inode, fa->flags);
	}
	mutex_unlock(&sih->log_mutex);
out:
	nova_prjquota_put(to);
	return ret;
}

/* ---- deleting inodes ---- */

/*
 * An inode whose last link is gone and that nobody holds: its log pages
 * and data go back to the allocator and the slot is marked free with one
 * durable store.  A crash before that store leaves a zero-link inode,
 * which the next mount reclaims.
 */
void nova_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	/*
	 * after a shutdown, an error (errors=remount-ro) or a forced
	 * read-only remount (sysrq-u) an unlinked inode is left to the
	 * next mount's scan (or fsck.nova)
	 */
	bool destroy = !inode->i_nlink && !is_bad_inode(inode) && sih->pi_addr &&
		       !nova_emergency_state(sb) && !sb_rdonly(sb);

	if (IS_DAX(inode))
		nova_dax_break_layout_final(inode);
	truncate_inode_pages_final(&inode->i_data);
	if (destroy) {
		/* its blocks and itself leave its owner's quota */
		dquot_initialize(inode);
		/* a frozen file system stays as it is: wait for the thaw */
		sb_start_intwrite(sb);
		/* (an error may have come while frozen) */
		destroy = !nova_emergency_state(sb);
		if (!destroy)
			sb_end_intwrite(sb);
	}
	if (!destroy && !nova_write_attr(inode))
		nova_gc_after_attr(inode);
	if (destroy) {
		struct nova_inode *pi = nova_get_block(sb, sih->pi_addr);

		pi->i_valid = NOVA_INODE_FREE;
		nova_persist(pi, sizeof(*pi));
		NOVA_CRASH_POINT(CP_EVICT);
		if (S_ISREG(inode->i_mode))
			nova_free_file_data(sb, inode);
		nova_free_log(sb, sih->log_head, sih->log_pages);
		nova_quota_log_pages(inode, -(long)sih->log_pages, false);
		nova_quota_release(inode, nova_xattr_quota_blocks(inode,
							sih->xattr_bytes));
		if (sih->symlink_block) {
			nova_free_blocks(sb, sih->symlink_block >> NOVA_BLOCK_SHIFT, 1);
			nova_quota_release(inode, 1);
		}
		nova_release_ino(sb, inode->i_ino);
		dquot_free_inode(inode);
		sb_end_intwrite(sb);
	} else {
		/* still linked: its blocks are free to be read again */
		nova_unclaim_inode(sb, inode);
	}
	nova_dir_index_free(inode);
	nova_share_drops(inode);
	nova_index_free(inode);
	nova_xattr_free(inode);
	fscrypt_put_encryption_info(inode);
	clear_inode(inode);
	dquot_drop(inode);
}

/* Keep an inode in the cache unless fscrypt wants its key gone */
int nova_drop_inode(struct inode *inode)
{
	return fscrypt_drop_inode(inode) ?: nova_generic_drop_inode(inode);
}

const struct inode_operations nova_special_inode_operations = {
	.getattr	= nova_getattr,
	.setattr	= nova_setattr,
	.listxattr	= nova_listxattr,
	.NOVA_GET_ACL_OP = nova_get_inode_acl,
	.set_acl	= nova_set_acl,
};
