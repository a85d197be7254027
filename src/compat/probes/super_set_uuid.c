// SPDX-License-Identifier: GPL-2.0
/* 6.10: super_set_uuid(), which FS_IOC_GETFSUUID needs (s_uuid_len) */
#include <linux/fs.h>

static __used void p(struct super_block *sb, const u8 *u)
{
	super_set_uuid(sb, u, 16);
}
