// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA lite journals: per-stripe undo journals for operations that update
 * several inodes (create, link, unlink, mkdir, rmdir, rename).
 *
 * Each stripe has one journal page used as a ring of 32-byte entries and
 * a durable (head, tail) pointer pair.  Ordering rule of a transaction:
 *
 *   1. nova_journal_add(): record the current value of every 8-byte word
 *      the operation will change in place (log tails, inode valid words),
 *      entries written with non-temporal stores;
 *   2. nova_journal_start(): fence, then store journal_tail durably: from
 *      here a crash rolls the transaction back;
 *   3. the caller does its in-place updates, each made durable;
 *   4. nova_journal_commit(): store journal_head = journal_tail durably.
 *
 * Recovery at mount: nova_journal_check() validates every journal, even
 * when the device is read-only; then nova_journal_recover() writes the
 * recorded old values back, newest first, for every stripe whose
 * head != tail.  A mount that must roll back but cannot write is refused.
 */
#include "nova.h"

#define NOVA_JOURNAL_SLOTS	(NOVA_BLOCK_SIZE / sizeof(struct nova_journal_entry))

int nova_journal_init(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	sbi->journal_locks = kcalloc(sbi->layout.stripes, sizeof(struct mutex),
				     GFP_KERNEL);
	if (!sbi->journal_locks)
		return -ENOMEM;
	for (i = 0; i < sbi->layout.stripes; i++)
		mutex_init(&sbi->journal_locks[i]);
	return 0;
}

void nova_journal_free(struct super_block *sb)
{
	kfree(NOVA_SB(sb)->journal_locks);
	NOVA_SB(sb)->journal_locks = NULL;
}

static u64 nova_journal_next(u64 base, u64 pos)
{
	pos += sizeof(struct nova_journal_entry);
	return pos >= base + NOVA_BLOCK_SIZE ? base : pos;
}

static u64 nova_journal_prev(u64 base, u64 pos)
{
	return pos == base ? base + NOVA_BLOCK_SIZE -
			     sizeof(struct nova_journal_entry) :
			     pos - sizeof(struct nova_journal_entry);
}

void nova_journal_begin(struct super_block *sb, struct nova_tx *tx)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_journal_ptr *jp;

	tx->stripe = raw_smp_processor_id() % sbi->layout.stripes;
	mutex_lock(&sbi->journal_locks[tx->stripe]);
	jp = nova_journal_ptr(sb, tx->stripe);
	tx->tail = le64_to_cpu(jp->journal_tail);
	tx->base = tx->tail & ~(u64)(NOVA_BLOCK_SIZE - 1);
	tx->count = 0;
}

/* Record the current value of the 8-byte word at @addr */
void nova_journal_add(struct super_block *sb, struct nova_tx *tx,
		      const __le64 *addr)
{
	struct nova_journal_entry e = {
		.type = cpu_to_le64(NOVA_JOURNAL_ENTRY),
		.data1 = cpu_to_le64(nova_get_addr_off(NOVA_SB(sb), addr)),
		.data2 = READ_ONCE(*addr),
	};

	if (WARN_ON_ONCE(tx->count >= NOVA_MAX_TX_ENTRIES))
		return;
	e.e_csum = cpu_to_le32(nova_crc32c(&e, offsetof(typeof(e), e_csum)));
	nova_memcpy_nt(nova_get_block(sb, tx->tail), &e, sizeof(e));
	tx->tail = nova_journal_next(tx->base, tx->tail);
	tx->count++;
}

void nova_journal_start(struct super_block *sb, struct nova_tx *tx)
{
	if (!nova_mutant(NOVA_MUT_JOURNAL_FENCE))
		nova_fence();
	nova_store_le64(&nova_journal_ptr(sb, tx->stripe)->journal_tail,
			tx->tail);
	NOVA_CRASH_POINT(CP_JOURNAL_STARTED);
}

void nova_journal_commit(struct super_block *sb, struct nova_tx *tx)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	NOVA_CRASH_POINT(CP_JOURNAL_BEFORE_COMMIT);
	nova_fence();
	nova_store_le64(&nova_journal_ptr(sb, tx->stripe)->journal_head,
			tx->tail);
	mutex_unlock(&sbi->journal_locks[tx->stripe]);
}

/*
 * A journal entry may only name a word of an inode: the log_tail or the
 * valid word of a reserved inode (block 1) or of an inode in an inode
 * table (dynamic area).  Anything else is a damaged journal.
 */
static bool nova_journal_target_ok(struct nova_sb_info *sbi, u64 addr)
{
	if (addr & 7)
		return false;
	if (addr >> NOVA_BLOCK_SHIFT == NOVA_RESERVED_INODE_BLOCK)
		return true;
	return nova_range_valid(sbi, addr, 8);
}

/*
 * Check stripe @s's journal pointers and its uncommitted entries, without
 * writing anything.  Returns the number of entries to roll back, or
 * -EUCLEAN (logged) for a damaged journal.
 */
static int nova_journal_check_stripe(struct super_block *sb, unsigned int s)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_journal_ptr *jp = nova_journal_ptr(sb, s);
	u64 head = le64_to_cpu(jp->journal_head);
	u64 tail = le64_to_cpu(jp->journal_tail);
	u64 base = head & ~(u64)(NOVA_BLOCK_SIZE - 1);
	int n = 0;

	if (!nova_range_valid(sbi, base, NOVA_BLOCK_SIZE) ||
	    (tail & ~(u64)(NOVA_BLOCK_SIZE - 1)) != base ||
	    head % sizeof(struct nova_journal_entry) ||
	    tail % sizeof(struct nova_journal_entry)) {
		nova_error(sb, "stripe %u: bad journal pointers 0x%llx/0x%llx",
			   s, head, tail);
		return -EUCLEAN;
	}
	while (tail != head) {
		struct nova_journal_entry *e;

		tail = nova_journal_prev(base, tail);
		e = nova_get_block(sb, tail);
		if (le64_to_cpu(e->type) != NOVA_JOURNAL_ENTRY ||
		    le32_to_cpu(e->e_csum) !=
		    nova_crc32c(e, offsetof(typeof(*e), e_csum)) ||
		    !nova_journal_target_ok(sbi, le64_to_cpu(e->data1)) ||
		    ++n > NOVA_JOURNAL_SLOTS) {
			nova_error(sb, "stripe %u: corrupt journal entry at 0x%llx",
				   s, tail);
			return -EUCLEAN;
		}
	}
	return n;
}

/*
 * Check every journal (always, even when nothing can be written).
 * Returns the number of uncommitted entries in all stripes, or -EUCLEAN.
 */
int nova_journal_check(struct super_block *sb)
{
	unsigned int s;
	int pending = 0;

	for (s = 0; s < NOVA_SB(sb)->layout.stripes; s++) {
		int n = nova_journal_check_stripe(sb, s);

		if (n < 0)
			return n;
		pending += n;
	}
	return pending;
}

/*
 * Roll back every uncommitted transaction; called before any rebuild,
 * after nova_journal_check() accepted the journals.
 */
void nova_journal_recover(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int s;

	for (s = 0; s < sbi->layout.stripes; s++) {
		struct nova_journal_ptr *jp = nova_journal_ptr(sb, s);
		u64 head = le64_to_cpu(jp->journal_head);
		u64 tail = le64_to_cpu(jp->journal_tail);
		u64 base = head & ~(u64)(NOVA_BLOCK_SIZE - 1);
		unsigned int n = 0;

		while (tail != head) {
			struct nova_journal_entry *e;

			tail = nova_journal_prev(base, tail);
			e = nova_get_block(sb, tail);
			nova_store_le64(nova_get_block(sb, le64_to_cpu(e->data1)),
					le64_to_cpu(e->data2));
			n++;
		}
		if (n) {
			pr_info("NOVA (%s): rolled back %u journal entries of stripe %u\n",
				sb->s_id, n, s);
			nova_store_le64(&jp->journal_head, le64_to_cpu(jp->journal_tail));
		}
	}
}
