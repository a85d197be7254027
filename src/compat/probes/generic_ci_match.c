// SPDX-License-Identifier: GPL-2.0
/* 6.10: generic_ci_match() matches a stored name in a casefolded directory */
#include <linux/fs.h>

static __used int p(const struct inode *dir, const struct qstr *name,
		    const struct qstr *folded, const u8 *de, u32 len)
{
	return generic_ci_match(dir, name, folded, de, len);
}
