/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Persistence primitives.  Every store to pmem that must survive a power
 * cut goes through one of these; they wrap the kernel's own helpers:
 *
 *   nova_flush()          write back the cache lines of a range (clwb)
 *   nova_fence()          order earlier write-backs and non-temporal
 *                         stores before later stores (sfence)
 *   nova_persist()        flush + fence: the range is durable on return
 *   nova_memcpy_nt()      non-temporal copy into pmem; durable after the
 *                         next nova_fence()
 *   nova_store_le64()     the 8-byte atomic commit store, made durable
 *   nova_read_pmem()      copy out of pmem, tolerating media poison
 *
 * The rule for every update: make the data a commit depends on durable
 * (flush + fence), then do the commit store and make it durable.
 */
#ifndef NOVA_PMEM_H
#define NOVA_PMEM_H

#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/libnvdimm.h>
#include <asm/barrier.h>

static inline void nova_flush(const void *addr, size_t len)
{
	arch_wb_cache_pmem((void *)addr, len);
}

static inline void nova_fence(void)
{
	pmem_wmb();
}

static inline void nova_persist(const void *addr, size_t len)
{
	nova_flush(addr, len);
	nova_fence();
}

static inline void nova_memcpy_nt(void *dst, const void *src, size_t len)
{
	memcpy_flushcache(dst, src, len);
}

static inline void nova_memset_persist(void *dst, int c, size_t len)
{
	memset(dst, c, len);
	nova_persist(dst, len);
}

static inline void nova_store_le64(__le64 *addr, u64 val)
{
	WRITE_ONCE(*addr, cpu_to_le64(val));
	nova_persist(addr, sizeof(*addr));
}

/* Returns 0, or -EIO when the source range holds poisoned media. */
static inline int nova_read_pmem(void *dst, const void *src, size_t len)
{
	return copy_mc_to_kernel(dst, src, len) ? -EIO : 0;
}

#endif /* NOVA_PMEM_H */
