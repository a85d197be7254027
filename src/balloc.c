// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA block allocator.
 *
 * The dynamic area (blocks 64 .. n-3) is split into one region per
 * stripe; each region has its own allocator: an rb-tree of free ranges
 * keyed by first block, protected by a spinlock.  Allocation takes from
 * the caller's stripe first (first fit) and falls back to the other
 * stripes; freeing returns a range to the stripe that owns it, merging
 * with its neighbours.  The last few single blocks freed wait outside
 * the tree (fl->recent) for the next single-block allocation: a
 * copy-on-write overwrite frees one block and takes one, and then does
 * no tree work at all.  They count as free everywhere: every lookup of
 * free blocks checks them too, and they join the tree before it is
 * saved or shown, or when an allocation finds no run.  All of this
 * state lives in DRAM: it is rebuilt at mount (bbuild.c).
 *
 * After a clean unmount the mount restores the free trees from the
 * snapshot and reads inodes only when they are first looked up, so no
 * scan has seen that no block is reached twice (bbuild.c).  Such a mount
 * keeps a bitmap of claimed blocks (sbi->claimed, one bit per block):
 * the fixed metadata (inode tables, journals, snapshot pages) and the
 * log pages, data blocks and symlink block of every inode in the inode
 * cache.  Reading an inode claims its blocks, and a block that is free
 * or claimed already makes the inode corrupt (nova_claim_blocks());
 * allocating claims, freeing releases, and evicting a linked inode from
 * the cache releases its blocks (inode.c).  So two live users of one
 * block (a data block that is also another inode's log page, an inode
 * table block or another file's data) are found when the second of them
 * is read, before it can be written through.  The bits of a block change
 * only under the lock of its stripe's free list, together with the free
 * tree: a claimed block is never free.
 *
 * Cost: one bit per 4 KiB block, 32 KiB of vmalloc memory per GiB of
 * device (32 MiB per TiB), only on a mount that restored a snapshot;
 * mount time is unchanged but for zeroing it and claiming the fixed
 * metadata; reading an inode does one range check per log page and per
 * run of contiguous data blocks, as the free-block check before did.
 * A mount that scanned needs none of it: the scan reaches every block
 * once and refuses a block reached twice (bbuild.c nova_mark_used()).
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/bitmap.h>
#include "nova.h"

static struct kmem_cache *nova_range_cachep;

int nova_stripe_of_block(struct nova_sb_info *sbi, unsigned long blocknr)
{
	return nova_stripe_of(&sbi->layout, blocknr);
}

static void nova_claim_bit(unsigned long *map, unsigned long i, bool set)
{
	if (set)
		set_bit(i, map);
	else
		clear_bit(i, map);
}

/*
 * Set or clear the claimed bits of blocks [lo, lo + n), all in one
 * stripe, under its free list's lock.  Words wholly inside the range
 * belong to that stripe: plain stores.  A word at either end may hold
 * bits of the neighbouring stripe, changed under another lock: atomic
 * bit operations there.
 */
static void nova_claim_bits(unsigned long *map, unsigned long lo,
			    unsigned long n, bool set)
{
	unsigned long end = lo + n;
	unsigned long a = min(ALIGN(lo, BITS_PER_LONG), end);
	unsigned long b = max(ALIGN_DOWN(end, BITS_PER_LONG), a);
	unsigned long i;

	for (i = lo; i < a; i++)
		nova_claim_bit(map, i, set);
	if (set)
		bitmap_set(map, a, b - a);
	else
		bitmap_clear(map, a, b - a);
	for (i = b; i < end; i++)
		nova_claim_bit(map, i, set);
}

/* Allocated or freed [blocknr, blocknr + num); caller holds the lock */
static void nova_claim_update(struct nova_sb_info *sbi, unsigned long blocknr,
			      unsigned long num, bool set)
{
	if (sbi->claimed)
		nova_claim_bits(sbi->claimed, blocknr, num, set);
}

int nova_claim_init(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	sbi->claimed = vzalloc(BITS_TO_LONGS(sbi->layout.num_blocks) * sizeof(long));
	return sbi->claimed ? 0 : -ENOMEM;
}

void nova_claim_destroy(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	vfree(sbi->claimed);
	sbi->claimed = NULL;
}

int nova_alloc_free_lists(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	sbi->free_lists = kcalloc(sbi->layout.stripes, sizeof(*sbi->free_lists),
				  GFP_KERNEL);
	if (!sbi->free_lists)
		return -ENOMEM;
	for (i = 0; i < sbi->layout.stripes; i++) {
		struct nova_free_list *fl = &sbi->free_lists[i];
		u64 start, end;

		spin_lock_init(&fl->lock);
		fl->tree = RB_ROOT;
		nova_stripe_region(&sbi->layout, i, &start, &end);
		fl->block_start = start;
		fl->block_end = end;
	}
	return 0;
}

static void nova_clear_free_list(struct nova_free_list *fl)
{
	struct rb_node *n;

	while ((n = rb_first(&fl->tree))) {
		rb_erase(n, &fl->tree);
		kmem_cache_free(nova_range_cachep,
				rb_entry(n, struct nova_range_node, node));
	}
	fl->num_free_blocks = 0;
	fl->num_nodes = 0;
	fl->nr_recent = 0;
}

/* Every stripe's tree empty: nothing free until the trees are built */
void nova_clear_free_lists(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	for (i = 0; i < sbi->layout.stripes; i++) {
		struct nova_free_list *fl = &sbi->free_lists[i];

		spin_lock(&fl->lock);
		nova_clear_free_list(fl);
		spin_unlock(&fl->lock);
	}
}

void nova_free_free_lists(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	nova_claim_destroy(sb);
	if (!sbi->free_lists)
		return;
	for (i = 0; i < sbi->layout.stripes; i++)
		nova_clear_free_list(&sbi->free_lists[i]);
	kfree(sbi->free_lists);
	sbi->free_lists = NULL;
}

/*
 * Insert a range that does not overlap or touch any node; no merging.
 * The caller counts its blocks in num_free_blocks: one change per
 * operation, so that statfs (which reads the counts without the lock)
 * never sees a passing dip.
 */
static int nova_insert_range(struct nova_free_list *fl, unsigned long low,
			     unsigned long high)
{
	struct rb_node **p = &fl->tree.rb_node, *parent = NULL;
	struct nova_range_node *rn;

	while (*p) {
		parent = *p;
		rn = rb_entry(parent, struct nova_range_node, node);
		if (high < rn->low)
			p = &parent->rb_left;
		else if (low > rn->high)
			p = &parent->rb_right;
		else
			return -EEXIST;
	}
	rn = kmem_cache_alloc(nova_range_cachep, GFP_ATOMIC);
	if (!rn)
		return -ENOMEM;
	rn->low = low;
	rn->high = high;
	rb_link_node(&rn->node, parent, p);
	rb_insert_color(&rn->node, &fl->tree);
	fl->num_nodes++;
	return 0;
}

/* Snapshot restore: add a free range (locked, validated by the caller) */
int nova_insert_free_range(struct super_block *sb, struct nova_free_list *fl,
			   unsigned long low, unsigned long high)
{
	int ret;

	spin_lock(&fl->lock);
	ret = nova_insert_range(fl, low, high);
	if (!ret)
		fl->num_free_blocks += high - low + 1;
	spin_unlock(&fl->lock);
	return ret == -EEXIST ? -EUCLEAN : ret;
}

/* The whole region of every stripe is free: the state right after mkfs */
void nova_init_free_lists(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	for (i = 0; i < sbi->layout.stripes; i++) {
		struct nova_free_list *fl = &sbi->free_lists[i];

		nova_clear_free_list(fl);
		/* cannot fail on an empty tree except for -ENOMEM */
		if (nova_insert_range(fl, fl->block_start, fl->block_end))
			nova_error(sb, "out of memory building allocator");
		else
			fl->num_free_blocks = fl->block_end - fl->block_start + 1;
	}
}

/*
 * Build every stripe's free tree from a bitmap of used blocks (bit set =
 * used), indexed by block number over the whole device.
 */
int nova_build_free_lists_from_bitmap(struct super_block *sb,
				      const unsigned long *used)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;
	int ret;

	for (i = 0; i < sbi->layout.stripes; i++) {
		struct nova_free_list *fl = &sbi->free_lists[i];
		unsigned long b = fl->block_start, end = fl->block_end + 1;

		nova_clear_free_list(fl);
		while (b < end) {
			unsigned long lo = find_next_zero_bit(used, end, b);
			unsigned long hi;

			if (lo >= end)
				break;
			hi = find_next_bit(used, end, lo);
			ret = nova_insert_range(fl, lo, hi - 1);
			if (ret)
				return ret;
			fl->num_free_blocks += hi - lo;
			b = hi;
		}
	}
	return 0;
}

/* First fit of @num blocks in one stripe; caller holds fl->lock */
static bool nova_first_fit(struct nova_free_list *fl, unsigned long num,
			   unsigned long *blocknr)
{
	struct rb_node *n;

	for (n = rb_first(&fl->tree); n; n = rb_next(n)) {
		struct nova_range_node *rn =
			rb_entry(n, struct nova_range_node, node);
		unsigned long len = rn->high - rn->low + 1;

		if (len < num)
			continue;
		*blocknr = rn->low;
		if (len == num) {
			rb_erase(n, &fl->tree);
			kmem_cache_free(nova_range_cachep, rn);
			fl->num_nodes--;
		} else {
			rn->low += num;
		}
		return true;
	}
	return false;
}

/*
 * @num blocks from one stripe: a single block is the one freed last if
 * any (a copy-on-write overwrite frees one block per write and takes one:
 * no tree work in the steady state), else the first fit in the tree,
 * which the recent blocks join when it has no such run.  Caller holds
 * fl->lock.
 */
static long nova_alloc_in_list(struct nova_sb_info *sbi,
			       struct nova_free_list *fl, unsigned long num,
			       unsigned long *blocknr)
{
	if (num == 1 && fl->nr_recent) {
		*blocknr = fl->recent[--fl->nr_recent];
	} else if (!nova_first_fit(fl, num, blocknr)) {
		if (!fl->nr_recent)
			return -ENOSPC;
		nova_settle_free_list(sbi, fl);
		if (!nova_first_fit(fl, num, blocknr))
			return -ENOSPC;
	}
	fl->num_free_blocks -= num;
	fl->alloc_count++;
	nova_claim_update(sbi, *blocknr, num, true);
	return num;
}

/*
 * Allocate @num contiguous blocks, preferably from @stripe (any stripe if
 * negative).  Returns the number of blocks (@num) or -ENOSPC.  With
 * @zero, the blocks are zeroed and made durable.
 */
int nova_new_blocks(struct super_block *sb, unsigned long *blocknr,
		    unsigned long num, int stripe, bool zero)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i, s;
	long ret = -ENOSPC;

	if (!num)
		return -EINVAL;
	if (stripe < 0 || stripe >= sbi->layout.stripes)
		stripe = raw_smp_processor_id() % sbi->layout.stripes;

	for (i = 0; i < sbi->layout.stripes && ret < 0; i++) {
		struct nova_free_list *fl;

		s = (stripe + i) % sbi->layout.stripes;
		fl = &sbi->free_lists[s];
		spin_lock(&fl->lock);
		if (fl->num_free_blocks >= num)
			ret = nova_alloc_in_list(sbi, fl, num, blocknr);
		spin_unlock(&fl->lock);
	}
	if (ret < 0)
		return ret;
	if (zero)
		nova_memset_persist(nova_get_block(sb, nova_block_off(*blocknr)),
				    0, num << NOVA_BLOCK_SHIFT);
	return ret;
}

/*
 * @num blocks starting at a multiple of @align (a power of two), carved
 * out of the middle of a free range if need be.  Caller holds fl->lock.
 */
static long nova_alloc_aligned_in_list(struct nova_sb_info *sbi,
				       struct nova_free_list *fl,
				       unsigned long num, unsigned long align,
				       unsigned long *blocknr)
{
	struct rb_node *n;

	for (n = rb_first(&fl->tree); n; n = rb_next(n)) {
		struct nova_range_node *rn =
			rb_entry(n, struct nova_range_node, node);
		unsigned long s = ALIGN(rn->low, align), e = s + num - 1;
		unsigned long high = rn->high;

		if (s < rn->low || e > rn->high)
			continue;
		if (s == rn->low && e == high) {
			rb_erase(n, &fl->tree);
			kmem_cache_free(nova_range_cachep, rn);
			fl->num_nodes--;
		} else if (s == rn->low) {
			rn->low = e + 1;
		} else if (e == high) {
			rn->high = s - 1;
		} else {
			/* split: the part after the extent becomes a new node */
			rn->high = s - 1;
			if (nova_insert_range(fl, e + 1, high)) {
				/* no memory: undo, try the next range */
				rn->high = high;
				continue;
			}
		}
		fl->num_free_blocks -= num;
		fl->alloc_count++;
		*blocknr = s;
		nova_claim_update(sbi, s, num, true);
		return num;
	}
	return -ENOSPC;
}

/*
 * Huge-page friendly data extent: @num blocks aligned to 2 MiB, from any
 * stripe, or -ENOSPC (the caller then takes what it can get).
 */
int nova_new_aligned_blocks(struct super_block *sb, unsigned long *blocknr,
			    unsigned long num)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int stripe = raw_smp_processor_id() % sbi->layout.stripes, i;
	long ret = -ENOSPC;

	if (nova_in_reserve(sb, num))
		return -ENOSPC;
	for (i = 0; i < sbi->layout.stripes && ret < 0; i++) {
		struct nova_free_list *fl =
			&sbi->free_lists[(stripe + i) % sbi->layout.stripes];

		spin_lock(&fl->lock);
		if (fl->num_free_blocks >= num)
			ret = nova_alloc_aligned_in_list(sbi, fl, num,
							 NOVA_HUGE_BLOCKS, blocknr);
		spin_unlock(&fl->lock);
	}
	return ret;
}

/*
 * Data blocks: up to @want contiguous blocks, fewer if no free range is
 * that long (the longest one then).  Prefers the current CPU's stripe.
 * The deletion reserve only if @reserve (a quota file's writes).
 * Returns the count (>= 1) or -ENOSPC.  Not zeroed.
 */
int nova_new_data_blocks(struct super_block *sb, unsigned long *blocknr,
			 unsigned long want, bool reserve)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int stripe = raw_smp_processor_id() % sbi->layout.stripes, i;
	unsigned long free, keep = reserve ? 0 : sbi->reserved_blocks;
	long best_len = 0;
	int best_stripe = -1;

	if (!want)
		return -EINVAL;
	free = nova_free_blocks_at_least(sb, keep + want);
	if (free < keep + 1)
		return -ENOSPC;		/* nova_in_reserve() */
	want = min(want, free - keep);
	for (i = 0; i < sbi->layout.stripes; i++) {
		struct nova_free_list *fl = &sbi->free_lists[(stripe + i) % sbi->layout.stripes];
		struct rb_node *n;
		long ret = -ENOSPC;

		spin_lock(&fl->lock);
		if (fl->num_free_blocks >= want)
			ret = nova_alloc_in_list(sbi, fl, want, blocknr);
		if (ret < 0) {
			for (n = rb_first(&fl->tree); n; n = rb_next(n)) {
				struct nova_range_node *rn =
					rb_entry(n, struct nova_range_node, node);
				long len = rn->high - rn->low + 1;

				if (len > best_len) {
					best_len = len;
					best_stripe = (stripe + i) % sbi->layout.stripes;
				}
			}
		}
		spin_unlock(&fl->lock);
		if (ret > 0)
			return ret;
	}
	/* no run of @want anywhere: the longest run (retry if it went away) */
	while (best_stripe >= 0 && best_len > 0) {
		struct nova_free_list *fl = &sbi->free_lists[best_stripe];
		long ret;

		spin_lock(&fl->lock);
		ret = nova_alloc_in_list(sbi, fl, best_len, blocknr);
		spin_unlock(&fl->lock);
		if (ret > 0)
			return ret;
		best_len /= 2;
	}
	return nova_new_blocks(sb, blocknr, 1, -1, false);
}

/*
 * The free range of @fl (locked) that overlaps [low, high], or NULL; on
 * the way down, *@prev and *@next (if given) get the last node below and
 * the first node above the range.
 */
static struct rb_node *nova_range_find(struct nova_free_list *fl,
				       unsigned long low, unsigned long high,
				       struct rb_node **prev,
				       struct rb_node **next)
{
	struct rb_node *n = fl->tree.rb_node;

	while (n) {
		struct nova_range_node *rn =
			rb_entry(n, struct nova_range_node, node);

		if (high < rn->low) {
			if (next)
				*next = n;
			n = n->rb_left;
		} else if (low > rn->high) {
			if (prev)
				*prev = n;
			n = n->rb_right;
		} else {
			return n;
		}
	}
	return NULL;
}

/* Is a recent free block of @fl (locked) in [low, high]? */
static bool nova_recent_has(struct nova_free_list *fl, unsigned long low,
			    unsigned long high)
{
	unsigned int i;

	for (i = 0; i < fl->nr_recent; i++)
		if (fl->recent[i] >= low && fl->recent[i] <= high)
			return true;
	return false;
}

/*
 * Add the free range [low, high] to the tree of @fl (locked), merging it
 * with @prev and @next (nova_range_find()'s neighbours) where it touches
 * them.  Returns 0 or -ENOMEM.  The caller counts the blocks.
 */
static int nova_merge_range(struct nova_free_list *fl, unsigned long low,
			    unsigned long high, struct rb_node *prev,
			    struct rb_node *next)
{
	struct nova_range_node *pn = NULL, *nn = NULL;

	if (prev) {
		pn = rb_entry(prev, struct nova_range_node, node);
		if (pn->high + 1 != low)
			pn = NULL;
	}
	if (next) {
		nn = rb_entry(next, struct nova_range_node, node);
		if (high + 1 != nn->low)
			nn = NULL;
	}
	if (!pn && !nn)
		return nova_insert_range(fl, low, high);
	if (pn && nn) {
		pn->high = nn->high;
		rb_erase(&nn->node, &fl->tree);
		kmem_cache_free(nova_range_cachep, nn);
		fl->num_nodes--;
	} else if (pn) {
		pn->high = high;
	} else {
		nn->low = low;
	}
	return 0;
}

/* Return [blocknr, blocknr + num) to its stripe, merging neighbours */
void nova_free_blocks(struct super_block *sb, unsigned long blocknr,
		      unsigned long num)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long low = blocknr, high = blocknr + num - 1;
	struct nova_free_list *fl;
	struct rb_node *prev = NULL, *next = NULL;

	if (!num || low < nova_data_start() || high > nova_data_end(sbi) ||
	    high < low) {
		nova_error(sb, "freeing invalid block range %lu+%lu",
			   blocknr, num);
		return;
	}
	fl = &sbi->free_lists[nova_stripe_of_block(sbi, low)];
	if (high > fl->block_end) {
		nova_error(sb, "freed range %lu+%lu crosses a stripe",
			   blocknr, num);
		return;
	}

	spin_lock(&fl->lock);
	/* find the neighbours: last node below low, first node above high */
	if (nova_range_find(fl, low, high, &prev, &next) ||
	    nova_recent_has(fl, low, high)) {
		spin_unlock(&fl->lock);
		nova_error(sb, "double free of blocks %lu+%lu", blocknr, num);
		return;
	}
	if (num == 1 && fl->nr_recent < NOVA_RECENT_FREE) {
		fl->recent[fl->nr_recent++] = low;
	} else if (nova_merge_range(fl, low, high, prev, next)) {
		spin_unlock(&fl->lock);
		nova_error(sb, "out of memory freeing blocks %lu+%lu",
			   blocknr, num);
		return;
	}
	fl->num_free_blocks += num;
	fl->free_count++;
	nova_claim_update(sbi, low, num, false);
	spin_unlock(&fl->lock);
}

/*
 * Move the recent single blocks of @fl (locked) into its tree: before
 * the tree is saved or counted, or when an allocation found no run.
 */
void nova_settle_free_list(struct nova_sb_info *sbi, struct nova_free_list *fl)
{
	while (fl->nr_recent) {
		unsigned long b = fl->recent[--fl->nr_recent];
		struct rb_node *prev = NULL, *next = NULL;

		/* counted free already */
		nova_range_find(fl, b, b, &prev, &next);
		if (nova_merge_range(fl, b, b, prev, next)) {
			fl->num_free_blocks--;
			nova_error(sbi->sb, "out of memory freeing block %lu", b);
		}
	}
}

/* The same for every stripe (unmount: before the free trees are saved) */
void nova_settle_free_lists(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	for (i = 0; i < sbi->layout.stripes; i++) {
		struct nova_free_list *fl = &sbi->free_lists[i];

		spin_lock(&fl->lock);
		nova_settle_free_list(sbi, fl);
		spin_unlock(&fl->lock);
	}
}

/* Does the free tree of @fl hold any block of [low, high]? */
static bool nova_list_overlaps(struct nova_free_list *fl, unsigned long low,
			       unsigned long high)
{
	bool found;

	spin_lock(&fl->lock);
	found = nova_range_find(fl, low, high, NULL, NULL) ||
		nova_recent_has(fl, low, high);
	spin_unlock(&fl->lock);
	return found;
}

/*
 * Ranges that may cross stripes are handled one stripe's part at a time:
 * the free list of block @low's stripe, and in *@end the last block of
 * [@low, @high] in that stripe.
 */
static struct nova_free_list *nova_stripe_part(struct nova_sb_info *sbi,
					       unsigned long low,
					       unsigned long high,
					       unsigned long *end)
{
	struct nova_free_list *fl =
		&sbi->free_lists[nova_stripe_of_block(sbi, low)];

	*end = min(high, fl->block_end);
	return fl;
}

/*
 * Is any of the @num blocks from @blocknr free?  Validates block numbers
 * read from pmem against the allocator (a damaged image may point into
 * free space).  Blocks outside the dynamic area count as not free.
 */
bool nova_blocks_any_free(struct super_block *sb, unsigned long blocknr,
			  unsigned long num)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long low = blocknr, high = blocknr + num - 1;

	if (!sbi->free_lists || !num || high < low)
		return false;
	low = max(low, nova_data_start());
	high = min(high, nova_data_end(sbi));
	while (low <= high) {
		unsigned long end;
		struct nova_free_list *fl = nova_stripe_part(sbi, low, high, &end);

		if (nova_list_overlaps(fl, low, end))
			return true;
		low = end + 1;
	}
	return false;
}

bool nova_block_is_free(struct super_block *sb, unsigned long blocknr)
{
	return nova_blocks_any_free(sb, blocknr, 1);
}

/* Release blocks [blocknr, blocknr + num) claimed by nova_claim_blocks() */
void nova_unclaim_blocks(struct super_block *sb, unsigned long blocknr,
			 unsigned long num)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long low = blocknr, high = blocknr + num - 1;

	if (!sbi->claimed || !num || high < low || low < nova_data_start() ||
	    high > nova_data_end(sbi))
		return;
	while (low <= high) {
		unsigned long end;
		struct nova_free_list *fl = nova_stripe_part(sbi, low, high, &end);

		spin_lock(&fl->lock);
		nova_claim_bits(sbi->claimed, low, end - low + 1, false);
		spin_unlock(&fl->lock);
		low = end + 1;
	}
}

/*
 * A block number read from pmem: claim blocks [blocknr, blocknr + num)
 * for the inode or structure being read (see the head of this file).
 * Returns 0, -ENOENT if a block is free, -EEXIST if one is claimed
 * already (nothing is claimed then); blocks outside the dynamic area
 * are the caller's to refuse.  Without a claim bitmap (the mount
 * scanned) only the first check applies.
 */
int nova_claim_blocks(struct super_block *sb, unsigned long blocknr,
		      unsigned long num)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long low = blocknr, high = blocknr + num - 1;
	int ret = 0;

	if (!sbi->free_lists || !num || high < low)
		return 0;
	low = max(low, nova_data_start());
	high = min(high, nova_data_end(sbi));
	while (low <= high) {
		unsigned long end;
		struct nova_free_list *fl = nova_stripe_part(sbi, low, high, &end);

		spin_lock(&fl->lock);
		if (nova_range_find(fl, low, end, NULL, NULL) ||
		    nova_recent_has(fl, low, end))
			ret = -ENOENT;
		else if (sbi->claimed &&
			 find_next_bit(sbi->claimed, end + 1, low) <= end)
			ret = -EEXIST;
		else if (sbi->claimed)
			nova_claim_bits(sbi->claimed, low, end - low + 1, true);
		spin_unlock(&fl->lock);
		if (ret) {
			/* give back the stripes' parts claimed before */
			if (low > max(blocknr, nova_data_start()))
				nova_unclaim_blocks(sb, max(blocknr, nova_data_start()),
						    low - max(blocknr, nova_data_start()));
			return ret;
		}
		low = end + 1;
	}
	return 0;
}

/*
 * The last reserved_blocks blocks are kept for the log pages that
 * deleting needs: may a normal allocation of @n blocks go ahead?
 */
bool nova_in_reserve(struct super_block *sb, unsigned long n)
{
	unsigned long need = NOVA_SB(sb)->reserved_blocks + n;

	return nova_free_blocks_at_least(sb, need) < need;
}

/*
 * The free blocks, or a lower bound of them that is at least @need: the
 * local stripe's count when it has @need alone (unless the device is
 * nearly full), so that an allocation reads no other stripe's count (a
 * cache line other CPUs write); the sum of all stripes otherwise
 */
unsigned long nova_free_blocks_at_least(struct super_block *sb,
					unsigned long need)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int stripe = raw_smp_processor_id() % sbi->layout.stripes;
	unsigned long local = READ_ONCE(sbi->free_lists[stripe].num_free_blocks);

	return local >= need ? local : nova_count_free_blocks(sb);
}

unsigned long nova_count_free_blocks(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < sbi->layout.stripes; i++)
		sum += READ_ONCE(sbi->free_lists[i].num_free_blocks);
	return sum;
}

int __init nova_init_range_cache(void)
{
	nova_range_cachep = kmem_cache_create("nova_range_node",
					      sizeof(struct nova_range_node),
					      0, SLAB_RECLAIM_ACCOUNT, NULL);
	return nova_range_cachep ? 0 : -ENOMEM;
}

void nova_destroy_range_cache(void)
{
	kmem_cache_destroy(nova_range_cachep);
}
