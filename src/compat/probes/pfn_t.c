// SPDX-License-Identifier: GPL-2.0
/* before 6.17: DAX hands out pfn_t, not a plain pfn */
#include <linux/dax.h>
#include <linux/pfn_t.h>

static __used long p(struct dax_device *d)
{
	void *kaddr;
	pfn_t pfn;

	return dax_direct_access(d, 0, 1, DAX_ACCESS, &kaddr, &pfn);
}
