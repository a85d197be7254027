// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova pass 2: the lite journals (e2fsck's journal.c).
 *
 * Each stripe's journal pointers and the entries of an open transaction,
 * exactly as nova_journal_recover() validates them; an open transaction
 * is rolled back as it does.  With -n the roll-back happens in the
 * private copy of the image, so the later passes see what the kernel
 * would after mounting.
 */
#include <stdlib.h>
#include "fsck.h"

#define J_SLOTS	(NOVA_BLOCK_SIZE / sizeof(struct nova_journal_entry))
#define J_ENTRY	sizeof(struct nova_journal_entry)
#define J_PAGE_MASK	(~(uint64_t)(NOVA_BLOCK_SIZE - 1))

static uint64_t j_prev(uint64_t base, uint64_t pos)
{
	return pos == base ? base + NOVA_BLOCK_SIZE - J_ENTRY : pos - J_ENTRY;
}

static bool j_entry_ok(const struct nv_fs *fs,
		       const struct nova_journal_entry *e)
{
	uint64_t addr = le64_to_cpu(e->data1);

	return le64_to_cpu(e->type) == NOVA_JOURNAL_ENTRY &&
	       le32_to_cpu(e->e_csum) ==
	       nova_crc32c(e, offsetof(struct nova_journal_entry, e_csum)) &&
	       !(addr & 7) && addr >= NOVA_BLOCK_SIZE &&
	       addr <= (fs->nblocks << NOVA_BLOCK_SHIFT) - 8;	/* no wrap */
}

/* Pointers the kernel refuses: empty the journal, or replace it later */
static void bad_pointers(struct nova_fsck *ctx, unsigned int s,
			 uint64_t head, uint64_t tail)
{
	struct nv_fs *fs = &ctx->fs;
	struct fsck_reset_state *r = &ctx->jreset[s];

	r->code = PR_JOURNAL_BAD_PTRS;
	if (!problem(ctx, PR_JOURNAL_BAD_PTRS, s, (unsigned long long)head,
		     (unsigned long long)tail)) {
		r->state = RESET_UNUSABLE;	/* not fixed */
		return;
	}
	if (nv_page_valid(fs, head & J_PAGE_MASK) && !(head % J_ENTRY)) {
		nv_commit64(fs, nv_journal_ptr_off(s) + 8, head);
		fixed(ctx, PR_JOURNAL_BAD_PTRS,
		      "stripe %u: journal emptied (tail set to head 0x%llx)",
		      s, (unsigned long long)head);
	} else {
		r->state = RESET_NEW;	/* after the block scan */
	}
}

/* nova_journal_recover(): the old values back, newest first */
static unsigned int roll_back(struct nova_fsck *ctx, uint64_t base,
			      uint64_t head, uint64_t tail)
{
	struct nv_fs *fs = &ctx->fs;
	unsigned int k;
	uint64_t pos;

	for (pos = tail, k = 0; pos != head && k < J_SLOTS; k++) {
		const struct nova_journal_entry *e;

		pos = j_prev(base, pos);
		e = nv_ptr(fs, pos);
		if (!j_entry_ok(fs, e))
			break;
		nv_put64(fs, le64_to_cpu(e->data1), le64_to_cpu(e->data2));
	}
	return k;
}

static void check_journal(struct nova_fsck *ctx, unsigned int s)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t jo = nv_journal_ptr_off(s);
	uint64_t head = nv_get64(fs, jo), tail = nv_get64(fs, jo + 8);
	uint64_t base = head & J_PAGE_MASK, pos;
	unsigned int n = 0, k;
	bool bad = false, fix;

	if (!nv_page_valid(fs, base) || (tail & J_PAGE_MASK) != base ||
	    head % J_ENTRY || tail % J_ENTRY) {
		bad_pointers(ctx, s, head, tail);
		return;
	}
	if (head == tail)
		return;
	for (pos = tail; pos != head && n <= J_SLOTS; n++) {
		pos = j_prev(base, pos);
		if (!j_entry_ok(fs, nv_ptr(fs, pos))) {
			bad = true;
			break;
		}
	}
	if (n > J_SLOTS)
		bad = true;
	/*
	 * Without a corrupt entry: an operation cut short by a crash, normal
	 * after a power cut, and mount rolls it back (like ext4's
	 * needs_recovery).  Not an error: -n checks the rolled-back state,
	 * a repairing run rolls it back.
	 */
	if (bad)
		fix = problem(ctx, PR_JOURNAL_CORRUPT, s, n, n == 1 ? "" : "s");
	else
		fix = problem(ctx, PR_JOURNAL_OPEN, s, n, n == 1 ? "y" : "ies");
	if (!fix && !ctx->private_map)
		return;
	k = roll_back(ctx, base, head, tail);
	/* the old values durable before the transaction is closed */
	nv_commit64(fs, jo, tail);
	if (fix)
		fixed(ctx, bad ? PR_JOURNAL_CORRUPT : PR_JOURNAL_OPEN,
		      "stripe %u: rolled back %u journal entr%s%s", s, k,
		      k == 1 ? "y" : "ies",
		      bad ? ", discarded the corrupt rest" : "");
	else
		out(ctx, "  (%s; checking the rolled-back state)",
		    bad ? "a repair rolls back the good entries" :
		    "the kernel rolls it back at mount");
}

int pass_journals(struct nova_fsck *ctx)
{
	unsigned int s;

	free(ctx->jreset);
	ctx->jreset = calloc(ctx->fs.stripes, sizeof(*ctx->jreset));
	if (!ctx->jreset)
		return fsck_fatal(ctx, "out of memory");
	for (s = 0; s < ctx->fs.stripes && !ctx->stop; s++)
		check_journal(ctx, s);
	return ctx->stop ? -1 : 0;
}

/*
 * A clean file system's journals are empty, with valid pointers.  Checked
 * before the clean state skips the check, as e2fsck checks the journal
 * first: the kernel refuses a mount with damaged journal pointers.
 */
bool journals_quiet(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	unsigned int s;

	for (s = 0; s < fs->stripes; s++) {
		uint64_t jo = nv_journal_ptr_off(s);
		uint64_t head = nv_get64(fs, jo), tail = nv_get64(fs, jo + 8);

		if (head != tail || head % J_ENTRY ||
		    !nv_page_valid(fs, head & J_PAGE_MASK))
			return false;
	}
	return true;
}
