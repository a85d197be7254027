// SPDX-License-Identifier: GPL-2.0
/* 6.13: sb_encoding(), NULL also without CONFIG_UNICODE */
#include <linux/fs.h>

static __used struct unicode_map *p(const struct super_block *sb)
{
	return sb_encoding(sb);
}
