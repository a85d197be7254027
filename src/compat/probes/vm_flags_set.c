// SPDX-License-Identifier: GPL-2.0
/* 6.3: vma->vm_flags is written through vm_flags_set() */
#include <linux/mm.h>

static __used void p(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_HUGEPAGE);
}
