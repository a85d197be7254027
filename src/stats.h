/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA statistics: per-operation timing (measure_timing=1), I/O counts,
 * GC counts; shown in /proc/fs/NOVA/<device>/.
 */
#ifndef NOVA_STATS_H
#define NOVA_STATS_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/percpu.h>

enum nova_timing {
	T_CREATE, T_MKDIR, T_LINK, T_UNLINK, T_RMDIR, T_RENAME, T_SYMLINK,
	T_MKNOD, T_LOOKUP, T_READDIR, T_SETATTR, T_READ, T_WRITE, T_FSYNC,
	T_FAULT, T_FALLOCATE, T_FAST_GC, T_THOROUGH_GC, T_REBUILD,
	/*
	 * The phases of a copy-on-write commit (a write's, and the
	 * fallocate and encrypted-grow commits that share nova_commit_runs()):
	 * cow_alloc and cow_copy are a write's alone; cow_lock includes the
	 * layout break and the refill of partial pages before the log mutex
	 */
	T_COW_ALLOC, T_COW_COPY, T_COW_LOCK, T_COW_LOG, T_COW_INDEX,
	T_NUM
};

/*
 * The I/O and GC counters: per CPU, as the write and fsync paths bump
 * them on every call (one shared cache line would be written by every
 * CPU); /proc sums them
 */
struct nova_counters {
	/* I/O */
	u64 read_calls, read_bytes;
	u64 write_calls, write_bytes;
	u64 cow_pages, inplace_bytes, prealloc_inplace_pages;
	u64 fsync_calls, fault_allocs, pmd_faults;
	u64 cloned_pages, unshares;	/* reflink.c */
	/* GC */
	u64 fast_gc_runs, fast_gc_pages;
	u64 thorough_gc_runs, thorough_gc_pages_written;
	u64 thorough_gc_pages_freed;
};

struct nova_stats {
	atomic64_t timing_count[T_NUM];
	atomic64_t timing_ns[T_NUM];
	struct nova_counters __percpu *c;
};

/* Add @n to counter @f of @sbi (any context) */
#define nova_stat_add(sbi, f, n)	this_cpu_add((sbi)->stats.c->f, (n))
#define nova_stat_inc(sbi, f)		nova_stat_add(sbi, f, 1)

DECLARE_STATIC_KEY_FALSE(nova_timing_key);

/* Zero cost when measure_timing=0: a patched-out branch */
static inline u64 nova_timer_start(void)
{
	return static_branch_unlikely(&nova_timing_key) ? ktime_get_ns() : 0;
}

#define NOVA_TIMER_END(sbi, cat, t)					\
	do {								\
		if (static_branch_unlikely(&nova_timing_key) && (t)) {	\
			atomic64_inc(&(sbi)->stats.timing_count[cat]);	\
			atomic64_add(ktime_get_ns() - (t),		\
				     &(sbi)->stats.timing_ns[cat]);	\
		}							\
	} while (0)

#endif /* NOVA_STATS_H */
