// SPDX-License-Identifier: GPL-2.0
/* after 6.12: fscrypt_encrypt_block_inplace() takes no gfp flags */
#include <linux/fscrypt.h>

static __used int p(const struct inode *inode, struct page *page)
{
	return fscrypt_encrypt_block_inplace(inode, page, PAGE_SIZE, 0, 0);
}
