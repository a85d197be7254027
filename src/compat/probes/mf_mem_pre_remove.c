// SPDX-License-Identifier: GPL-2.0
/*
 * kill_dax() tells the DAX holder that the device is about to be
 * removed with MF_MEM_PRE_REMOVE (6.12 has it; 6.1 reports a failure of
 * the whole device)
 */
#include <linux/mm.h>

static __used int p(void)
{
	return MF_MEM_PRE_REMOVE;
}
