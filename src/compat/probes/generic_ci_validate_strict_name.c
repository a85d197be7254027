// SPDX-License-Identifier: GPL-2.0
/* 6.13: generic_ci_validate_strict_name() (strict encoding: valid names only) */
#include <linux/fs.h>

static __used bool p(struct inode *dir, const struct qstr *name)
{
	return generic_ci_validate_strict_name(dir, name);
}
