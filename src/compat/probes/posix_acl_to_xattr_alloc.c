// SPDX-License-Identifier: GPL-2.0
/* 7.0: posix_acl_to_xattr() allocates the buffer and returns it */
#include <linux/fs.h>
#include <linux/posix_acl_xattr.h>

static __used void *p(const struct posix_acl *acl, size_t *size)
{
	return posix_acl_to_xattr(&init_user_ns, acl, size, GFP_KERNEL);
}
