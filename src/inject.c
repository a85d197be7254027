// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (debug builds only, make NOVA_DEBUG=1): the module
 * parameter inject=N makes the event N of enum nova_inject (nova.h)
 * happen at its point, so that a race a test could otherwise hit only
 * by luck happens every time.  The injected events are ones the running
 * system may produce at that point; they only choose the worst timing.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include "nova.h"

int nova_inject;
module_param_named(inject, nova_inject, int, 0644);
MODULE_PARM_DESC(inject, "Debug: inject event N at its point (enum nova_inject)");

/*
 * NOVA_INJECT_DEAD_ENTRY_GC: @entry, a write entry of @inode, just died
 * and its killer does not hold the log mutex.  Do what a concurrent
 * log append of another thread (an fsync logging the times) may do now:
 * its fast GC frees the log pages that are all dead, the page of @entry
 * among them once its last entry died, and another allocation reuses
 * and overwrites the freed page.  Skipped when the log mutex is taken
 * (the killer holds it: nobody could append then).
 */
void nova_inject_dead_entry_gc(struct inode *inode, const void *entry)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	u64 page = nova_get_addr_off(NOVA_SB(sb), entry) &
		   ~(u64)(NOVA_BLOCK_SIZE - 1);

	if (!mutex_trylock(&sih->log_mutex))
		return;
	nova_fast_gc(sb, inode, sih->log_tail);
	if (nova_block_is_free(sb, page >> NOVA_BLOCK_SHIFT)) {
		nova_memset_persist(nova_get_block(sb, page), 0xa5,
				    NOVA_BLOCK_SIZE);
		pr_info("NOVA (%s): inject: log page 0x%llx freed by a fast GC and overwritten\n",
			sb->s_id, page);
	}
	mutex_unlock(&sih->log_mutex);
}

/*
 * NOVA_INJECT_REMOVE_ATTR: @inode is being removed (nova_remove()), its
 * log mutex not taken yet.  Another thread's fsync logs its times now;
 * the kernel log says what that append returned (it may use the
 * deletion reserve only if it is a deletion's).
 */
void nova_inject_remove_attr(struct inode *inode)
{
	pr_info("NOVA (%s): inject: logging the times of inode %llu during its removal: %d\n",
		inode->i_sb->s_id, nova_ino(inode), nova_write_attr(inode));
}

/*
 * NOVA_INJECT_FAULT_FREEZE: a read fault on @inode found no shared
 * block on the file system, so it took no freeze protection.  Wait (up
 * to 20 s) for what other threads may do before its invalidate lock: a
 * clone shares the file's blocks, then a freeze completes.
 */
void nova_inject_fault_freeze(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	int i;

	for (i = 0; i < 400; i++) {
		if (READ_ONCE(sb->s_writers.frozen) == SB_FREEZE_COMPLETE)
			break;
		msleep(50);
	}
	pr_info("NOVA (%s): inject: a read fault of inode %llu waited for a freeze: %s\n",
		sb->s_id, nova_ino(inode), i < 400 ? "frozen" : "none came");
}
