// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA case-insensitive directories (casefold), as ext4 has them.
 *
 * A file system made with mkfs.nova -O casefold carries
 * NOVA_FEATURE_INCOMPAT_CASEFOLD and an encoding (UTF-8 12.1) with its
 * flags in the super block; the mount loads the kernel's tables for it
 * (sb->s_encoding) or refuses.  A directory with FS_CASEFOLD_FL
 * (chattr +F, only while it is empty) compares names case-insensitively
 * and keeps them as created:
 *
 *   - the VFS's dentry cache hashes and compares names with the generic
 *     casefold dentry operations (compat.h installs them);
 *   - the DRAM index of such a directory (dir.c) is keyed by the hash of
 *     the casefolded name, nova_ci_hash(), and a lookup compares the
 *     names of that hash with nova_ci_match(), so any case finds the
 *     entry; the log holds names as created;
 *   - with the strict flag, a name that is not valid UTF-8 cannot be
 *     created (EINVAL); without it such a name is an opaque byte string.
 *
 * Encryption and casefold together (ext4 stores hashes on disk for that)
 * are refused: the flag on an encrypted directory, and a policy on a
 * casefolded one, give EOPNOTSUPP.
 */
#include <linux/stringhash.h>
#include <linux/unicode.h>
#include "nova.h"

bool nova_has_casefold(struct super_block *sb)
{
	return NOVA_SB(sb)->s_super.s_feature_incompat &
	       cpu_to_le64(NOVA_FEATURE_INCOMPAT_CASEFOLD);
}

/*
 * Mount: load the encoding of a file system with the casefold feature.
 * -EINVAL, with a kernel log line, for an encoding this module or kernel
 * does not have.
 */
int nova_casefold_mount(struct super_block *sb)
{
	struct nova_super_block *s = &NOVA_SB(sb)->s_super;
	u16 flags = le16_to_cpu(s->s_encoding_flags);
	const char *why = nova_check_encoding(s);
#if IS_ENABLED(CONFIG_UNICODE)
	struct unicode_map *um;
#endif

	if (!nova_has_casefold(sb))
		return 0;
	if (why) {
		pr_err("NOVA (%s): case-insensitive directories: %s (encoding %u, flags 0x%x): cannot mount\n",
		       sb->s_id, why, le16_to_cpu(s->s_encoding), flags);
		return -EINVAL;
	}
#if IS_ENABLED(CONFIG_UNICODE)
	um = utf8_load(UNICODE_AGE(12, 1, 0));
	if (IS_ERR(um)) {
		pr_err("NOVA (%s): can't mount with superblock charset: utf8-12.1.0 not supported by the kernel. flags: 0x%x.\n",
		       sb->s_id, flags);
		return -EINVAL;
	}
	pr_info("NOVA (%s): Using encoding defined by superblock: utf8-12.1.0 with flags 0x%x\n",
		sb->s_id, flags);
	sb->s_encoding = um;
	sb->s_encoding_flags = flags & NOVA_ENC_STRICT_MODE_FL ?
			       SB_ENC_STRICT_MODE_FL : 0;
	return 0;
#else
	pr_err("NOVA (%s): case-insensitive directories (casefold feature), and this kernel has no CONFIG_UNICODE: cannot mount\n",
	       sb->s_id);
	return -EINVAL;
#endif
}

void nova_casefold_unmount(struct super_block *sb)
{
#if IS_ENABLED(CONFIG_UNICODE)
	utf8_unload(sb->s_encoding);
	sb->s_encoding = NULL;
#endif
}

/*
 * The index key of @name in a casefolded directory: the hash of its
 * casefolded form, or, for a name that is not valid UTF-8 (an opaque
 * byte string, matched exactly), of its bytes.
 */
u32 nova_ci_hash(struct super_block *sb, const char *name, int len)
{
#if IS_ENABLED(CONFIG_UNICODE)
	struct qstr q = QSTR_INIT(name, len);

	if (sb->s_encoding && !utf8_casefold_hash(sb->s_encoding, NULL, &q))
		return q.hash;
#endif
	return full_name_hash(NULL, name, len);
}

/*
 * FS_IOC_SETFLAGS: may @inode's casefold flag go from @old to @new?  As
 * ext4_ioctl_setflags(): only with the feature, on a directory, and an
 * empty one; never with encryption (see above).
 */
int nova_casefold_check_flags(struct inode *inode, u32 old, u32 new)
{
	if (!((old ^ new) & FS_CASEFOLD_FL))
		return 0;
	/* (loaded at mount exactly when the feature is on) */
	if (!nova_sb_encoding(inode->i_sb))
		return -EOPNOTSUPP;
	if (!S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	if (NOVA_I(inode)->header.dir_entries)
		return -ENOTEMPTY;
	if (IS_ENCRYPTED(inode))
		return -EOPNOTSUPP;
	return 0;
}
