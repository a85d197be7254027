// SPDX-License-Identifier: GPL-2.0
/*
 * 6.15: an fs DAX page is idle at reference count 0 (it was 1), and
 * evict must wait for every page of the inode (dax_break_layout_final)
 */
#include <linux/dax.h>

static __used bool p(struct inode *inode, struct page *page)
{
	dax_break_layout_final(inode);
	return dax_page_is_idle(page);
}
