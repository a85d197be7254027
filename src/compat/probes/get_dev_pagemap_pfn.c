// SPDX-License-Identifier: GPL-2.0
/* 7.x: get_dev_pagemap() takes the pfn alone (no pgmap to reuse) */
#include <linux/memremap.h>

static __used struct dev_pagemap *p(unsigned long pfn)
{
	return get_dev_pagemap(pfn);
}
