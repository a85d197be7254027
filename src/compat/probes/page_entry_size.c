// SPDX-License-Identifier: GPL-2.0
/*
 * Before 6.6: ->huge_fault() and the DAX fault helpers take an enum
 * page_entry_size, later a page order.  (The two are compatible types
 * in C, so the probe looks for the enum's constants.)
 */
#include <linux/mm.h>

static __used enum page_entry_size p(void)
{
	return PE_SIZE_PMD;
}
