// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.nova pass 1: the super block (e2fsck's super.c).
 *
 * nova_check_super() on both copies, and their agreement; the replica is
 * in the file system's last block, or, when the primary is bad, found as
 * the kernel finds it (nv_load_super(): nova_find_super()).  The state
 * may hold only the clean, error and project quota bits; the encoding
 * fields must be what the casefold feature says (nova_check_encoding()).
 */
#include <string.h>
#include "fsck.h"

/* The s_state bits: clean, errors, project quota usage current */
#define FSCK_STATE_KNOWN \
	(NOVA_STATE_CLEAN | NOVA_STATE_ERROR | NOVA_STATE_PRJQUOTA)

void write_super_copies(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;

	fs->sb.s_sum = cpu_to_le32(nova_sb_csum(&fs->sb));
	/* one copy after the other: a torn one leaves the other good */
	nv_commit(fs, 0, &fs->sb, sizeof(fs->sb));
	nv_commit(fs, nv_replica_sb_off(fs), &fs->sb, sizeof(fs->sb));
}

/* The primary is valid: the replica must be the same */
static void check_replica(struct nova_fsck *ctx,
			  const struct nova_super_block *p)
{
	struct nv_fs *fs = &ctx->fs;
	uint64_t roff = nv_replica_sb_off(fs);
	const struct nova_super_block *r = nv_ptr(fs, roff);
	const char *rwhy = nova_check_super(r, fs->dev_size);

	if (rwhy) {
		ctx->sb_problems = true;
		if (problem(ctx, PR_SB_REPLICA_BAD,
			    (unsigned long long)(roff >> NOVA_BLOCK_SHIFT), rwhy)) {
			nv_commit(fs, roff, p, NOVA_BLOCK_SIZE);
			fixed(ctx, PR_SB_REPLICA_BAD,
			      "replica super block rewritten from the primary");
		}
	} else if (memcmp(p, r, sizeof(*p))) {
		ctx->sb_problems = true;
		if (problem(ctx, PR_SB_DIFFER)) {
			nv_commit(fs, roff, p, NOVA_BLOCK_SIZE);
			fixed(ctx, PR_SB_DIFFER,
			      "replica super block rewritten from the primary");
		}
	}
}

/* The primary is bad: the replica nv_load_super() found (@found) */
static int use_replica(struct nova_fsck *ctx, const struct nova_sb_search *s,
		       bool found)
{
	struct nv_fs *fs = &ctx->fs;
	const struct nova_super_block *r = nv_ptr(fs, s->off);

	if (!found)
		return fsck_fatal(ctx, "%s: no valid NOVA super block (primary: %s; replica: %s%s)",
				  ctx->dev, s->why, s->rwhy,
				  s->scanned ? "; no other found on the device" : "");
	ctx->sb_problems = true;
	if (ctx->first_run && s->scanned && ctx->mode != MODE_PREEN)
		out(ctx, "replica super block found in block %llu by a search of %llu blocks",
		    (unsigned long long)(s->off >> NOVA_BLOCK_SHIFT),
		    (unsigned long long)s->scanned);
	if (problem(ctx, PR_SB_PRIMARY_BAD, s->why,
		    (unsigned long long)(s->off >> NOVA_BLOCK_SHIFT))) {
		nv_commit(fs, 0, r, NOVA_BLOCK_SIZE);
		fixed(ctx, PR_SB_PRIMARY_BAD,
		      "primary super block rewritten from the replica");
	}
	return 0;
}

int pass_super(struct nova_fsck *ctx)
{
	struct nv_fs *fs = &ctx->fs;
	struct nova_sb_search s;
	const char *why;
	uint32_t state;
	int which;

	ctx->sb_problems = false;
	which = nv_load_super(fs, 0, &s);
	if (!which)
		check_replica(ctx, nv_ptr(fs, 0));
	else if (use_replica(ctx, &s, which > 0))
		return -1;
	state = le32_to_cpu(fs->sb.s_state);
	if (state & ~FSCK_STATE_KNOWN) {
		ctx->sb_problems = true;
		if (problem(ctx, PR_SB_STATE_BITS, state)) {
			state = le32_to_cpu(fs->sb.s_state);	/* fs_stale() */
			fs->sb.s_state = cpu_to_le32(state & FSCK_STATE_KNOWN);
			write_super_copies(ctx);
			fixed(ctx, PR_SB_STATE_BITS, "unknown super block state bits cleared");
		}
	}
	why = nova_check_encoding(&fs->sb);
	if (why) {
		ctx->sb_problems = true;
		if (problem(ctx, PR_SB_ENCODING, why,
			    le16_to_cpu(fs->sb.s_encoding),
			    le16_to_cpu(fs->sb.s_encoding_flags))) {
			bool cf = fs->sb.s_feature_incompat &
				  cpu_to_le64(NOVA_FEATURE_INCOMPAT_CASEFOLD);
			uint16_t fl = le16_to_cpu(fs->sb.s_encoding_flags);

			fs->sb.s_encoding = cpu_to_le16(cf ? NOVA_ENC_UTF8_12_1 : 0);
			fs->sb.s_encoding_flags =
				cpu_to_le16(cf ? fl & NOVA_ENC_FLAGS_KNOWN : 0);
			write_super_copies(ctx);
			fixed(ctx, PR_SB_ENCODING, cf ?
			      "encoding set to utf8-12.1, flags 0x%x" :
			      "encoding and flags cleared (0x%x)",
			      le16_to_cpu(fs->sb.s_encoding_flags));
		}
	}
	if (ctx->first_run &&
	    (fs->sb.s_feature_compat & ~cpu_to_le64(NOVA_FEATURE_COMPAT_SUPP) ||
	     fs->sb.s_feature_ro_compat & ~cpu_to_le64(NOVA_FEATURE_RO_COMPAT_SUPP)))
		out(ctx, "WARNING: the file system has features this fsck.nova does not know");
	info(ctx, "super block: %llu blocks, %u stripes, %u-byte inode table blocks, state 0x%x",
	     (unsigned long long)fs->nblocks, fs->stripes, fs->itbs,
	     le32_to_cpu(fs->sb.s_state));
	if (fs->size < fs->map_size)
		info(ctx, "the file system ends %llu blocks before the device's end",
		     (unsigned long long)((fs->map_size - fs->size) >> NOVA_BLOCK_SHIFT));
	return ctx->stop ? -1 : 0;
}
