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
 *   nova_copy_from_iter_nt()  the same from an iov_iter (file data)
 *   nova_store_le64()     the 8-byte atomic commit store, made durable
 *   nova_read_pmem()      copy out of pmem, tolerating media poison
 *
 * The rule for every update: make the data a commit depends on durable
 * (flush + fence), then do the commit store and make it durable.
 *
 * Debug builds (NOVA_DEBUG) record every flush (with the bytes of its
 * cache lines at that moment), non-temporal copy and fence into the
 * persistence trace of pmemtrace.c when one is running; without
 * NOVA_DEBUG the hooks compile to nothing.
 */
#ifndef NOVA_PMEM_H
#define NOVA_PMEM_H

#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/libnvdimm.h>
#include <asm/barrier.h>
#ifdef CONFIG_X86
#include <asm/processor.h>
#include <asm/special_insns.h>
#endif

#ifdef NOVA_DEBUG
/* Event types of the persistence trace (the file format: pmemtrace.c) */
enum nova_pt_type {
	NOVA_PT_FLUSH = 1,	/* off, len: whole cache lines; their bytes */
	NOVA_PT_NT,		/* off, len: a non-temporal copy; its bytes */
	NOVA_PT_FENCE,
	NOVA_PT_START,		/* off: device size; "NOVAPT01" */
	NOVA_PT_BASE,		/* off: a non-zero 4 KiB block at the start */
	NOVA_PT_BEGIN,		/* off: call number; the call's name */
	NOVA_PT_END,		/* off: call number */
	NOVA_PT_MISSING,	/* off, len: stored, never flushed; live bytes */
	NOVA_PT_SYM,		/* off: a call site (ip); its symbol */
	NOVA_PT_STOP,		/* off: 1 if the buffer overflowed */
};

struct super_block;
extern int nova_pt_on;
void nova_pt_event(int type, const void *addr, size_t len, unsigned long ip);
void nova_pt_sysfs_init(struct super_block *sb);
void nova_pt_sysfs_exit(struct super_block *sb);
/* _THIS_IP_: the call site, as these helpers are always inlined */
#define nova_pt_hook(type, addr, len)					\
	do {								\
		if (unlikely(READ_ONCE(nova_pt_on)))			\
			nova_pt_event(type, addr, len, _THIS_IP_);	\
	} while (0)

/*
 * Mutation switches (module parameter mutate=N): each removes one
 * ordering step, so that the store-level crash checker can be shown to
 * catch the bug it makes.  Never in a non-debug build.
 */
enum nova_mutation {
	NOVA_MUT_NONE,
	NOVA_MUT_LOG_TAIL_FLUSH,	/* nova_log_commit: tail not flushed */
	NOVA_MUT_JOURNAL_FENCE,		/* nova_journal_start: no fence */
};

extern int nova_mutate;
#define nova_mutant(m)	unlikely(READ_ONCE(nova_mutate) == (m))
#else
#define nova_pt_hook(type, addr, len)	do { } while (0)
#define nova_mutant(m)			false
static inline void nova_pt_sysfs_init(struct super_block *sb) { }
static inline void nova_pt_sysfs_exit(struct super_block *sb) { }
#endif

static __always_inline void nova_flush(const void *addr, size_t len)
{
#ifdef CONFIG_X86
	/*
	 * Most flushes are of one cache line (a commit store, a count, an
	 * entry's head): the write-back instruction itself, no call
	 * (arch_wb_cache_pmem() issues the same clwb per line)
	 */
	unsigned int line = boot_cpu_data.x86_clflush_size;

	if (len && ((unsigned long)addr & (line - 1)) + len <= line)
		clwb((void *)addr);
	else
		arch_wb_cache_pmem((void *)addr, len);
#else
	arch_wb_cache_pmem((void *)addr, len);
#endif
	nova_pt_hook(NOVA_PT_FLUSH, addr, len);
}

static __always_inline void nova_fence(void)
{
	pmem_wmb();
	nova_pt_hook(NOVA_PT_FENCE, NULL, 0);
}

static __always_inline void nova_persist(const void *addr, size_t len)
{
	nova_flush(addr, len);
	nova_fence();
}

static __always_inline void nova_memcpy_nt(void *dst, const void *src, size_t len)
{
	memcpy_flushcache(dst, src, len);
	nova_pt_hook(NOVA_PT_NT, dst, len);
}

static __always_inline size_t nova_copy_from_iter_nt(void *dst, size_t len,
						     struct iov_iter *from)
{
	size_t got = _copy_from_iter_flushcache(dst, len, from);

	nova_pt_hook(NOVA_PT_NT, dst, got);
	return got;
}

static __always_inline void nova_memset_persist(void *dst, int c, size_t len)
{
	memset(dst, c, len);
	nova_persist(dst, len);
}

static __always_inline void nova_store_le64(__le64 *addr, u64 val)
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
