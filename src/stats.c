// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA statistics in /proc/fs/NOVA/<device>/:
 *
 *   timing_stats  per-operation counts and times (with measure_timing=1);
 *                 writing 1 clears them
 *   IO_stats      read/write calls and bytes, copy-on-write pages, in-place
 *                 bytes, fsyncs, allocating faults; writing 1 clears them
 *   allocator     per-stripe free blocks, free ranges, allocations, frees
 *   gc            GC counts; writing an inode number runs a thorough GC of
 *                 that inode's log
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "nova.h"

DEFINE_STATIC_KEY_FALSE(nova_timing_key);

static struct proc_dir_entry *nova_proc_root;

static const char * const nova_timing_names[T_NUM] = {
	[T_CREATE] = "create", [T_MKDIR] = "mkdir", [T_LINK] = "link",
	[T_UNLINK] = "unlink", [T_RMDIR] = "rmdir", [T_RENAME] = "rename",
	[T_SYMLINK] = "symlink", [T_MKNOD] = "mknod", [T_LOOKUP] = "lookup",
	[T_READDIR] = "readdir", [T_SETATTR] = "setattr", [T_READ] = "read",
	[T_WRITE] = "write", [T_FSYNC] = "fsync", [T_FAULT] = "dax_fault",
	[T_FALLOCATE] = "fallocate", [T_FAST_GC] = "fast_gc",
	[T_THOROUGH_GC] = "thorough_gc", [T_REBUILD] = "mount_rebuild",
	[T_COW_ALLOC] = "cow_alloc", [T_COW_COPY] = "cow_copy",
	[T_COW_LOCK] = "cow_lock", [T_COW_LOG] = "cow_log",
	[T_COW_INDEX] = "cow_index",
};

static int nova_timing_show(struct seq_file *m, void *v)
{
	struct nova_sb_info *sbi = m->private;
	int i;

	seq_printf(m, "measure_timing: %d\n", measure_timing);
	seq_printf(m, "%-16s %12s %16s %12s\n", "operation", "count",
		   "total_ns", "avg_ns");
	for (i = 0; i < T_NUM; i++) {
		u64 n = atomic64_read(&sbi->stats.timing_count[i]);
		u64 ns = atomic64_read(&sbi->stats.timing_ns[i]);

		seq_printf(m, "%-16s %12llu %16llu %12llu\n", nova_timing_names[i],
			   n, ns, n ? div64_u64(ns, n) : 0);
	}
	return 0;
}

/* The I/O and GC counters of struct nova_stats, by the names shown */
struct nova_counter {
	const char *name;
	size_t off;
};

#define NOVA_COUNTER(f)	{ #f, offsetof(struct nova_counters, f) }

static const struct nova_counter nova_io_counters[] = {
	NOVA_COUNTER(read_calls), NOVA_COUNTER(read_bytes),
	NOVA_COUNTER(write_calls), NOVA_COUNTER(write_bytes),
	NOVA_COUNTER(cow_pages), NOVA_COUNTER(inplace_bytes),
	NOVA_COUNTER(prealloc_inplace_pages),
	NOVA_COUNTER(fsync_calls), NOVA_COUNTER(fault_allocs),
	NOVA_COUNTER(pmd_faults), NOVA_COUNTER(cloned_pages),
	NOVA_COUNTER(unshares),
};

static const struct nova_counter nova_gc_counters[] = {
	NOVA_COUNTER(fast_gc_runs), NOVA_COUNTER(fast_gc_pages),
	NOVA_COUNTER(thorough_gc_runs), NOVA_COUNTER(thorough_gc_pages_written),
	NOVA_COUNTER(thorough_gc_pages_freed),
};

static u64 *nova_counter(struct nova_counters *pc, const struct nova_counter *c)
{
	return (void *)pc + c->off;
}

/* The sum of counter @c over the CPUs */
static u64 nova_counter_sum(struct nova_stats *s, const struct nova_counter *c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *nova_counter(per_cpu_ptr(s->c, cpu), c);
	return sum;
}

/* Zero counter @c on every CPU (racing updates may survive: statistics) */
static void nova_counter_clear(struct nova_stats *s, const struct nova_counter *c)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(*nova_counter(per_cpu_ptr(s->c, cpu), c), 0);
}

static void nova_show_counters(struct seq_file *m,
			       const struct nova_counter *c, unsigned int n)
{
	struct nova_sb_info *sbi = m->private;

	for (; n; n--, c++)
		seq_printf(m, "%-16s %llu\n", c->name,
			   nova_counter_sum(&sbi->stats, c));
}

static int nova_io_show(struct seq_file *m, void *v)
{
	nova_show_counters(m, nova_io_counters, ARRAY_SIZE(nova_io_counters));
	return 0;
}

static int nova_allocator_show(struct seq_file *m, void *v)
{
	struct nova_sb_info *sbi = m->private;
	unsigned long free = 0, nodes = 0;
	unsigned int i;

	seq_printf(m, "%-6s %12s %12s %10s %12s %12s\n", "stripe", "blocks",
		   "free", "ranges", "allocs", "frees");
	for (i = 0; i < sbi->layout.stripes; i++) {
		struct nova_free_list *fl = &sbi->free_lists[i];

		spin_lock(&fl->lock);
		nova_settle_free_list(sbi, fl);
		seq_printf(m, "%-6u %12lu %12lu %10lu %12lu %12lu\n", i,
			   fl->block_end - fl->block_start + 1,
			   fl->num_free_blocks, fl->num_nodes, fl->alloc_count,
			   fl->free_count);
		free += fl->num_free_blocks;
		nodes += fl->num_nodes;
		spin_unlock(&fl->lock);
	}
	seq_printf(m, "total: %llu blocks, %lu free in %lu ranges, %lld inodes in use\n",
		   sbi->layout.num_blocks, free, nodes,
		   (long long)atomic64_read(&sbi->inodes_used));
	return 0;
}

static int nova_gc_show(struct seq_file *m, void *v)
{
	nova_show_counters(m, nova_gc_counters, ARRAY_SIZE(nova_gc_counters));
	return 0;
}

/* Parse a decimal number written to a proc file */
static int nova_proc_number(const char __user *buf, size_t len, u64 *val)
{
	char kbuf[24];

	if (!len || len >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, buf, len))
		return -EFAULT;
	kbuf[len] = '\0';
	/* garbage, a sign or a number past u64 (-ERANGE): all invalid */
	return kstrtou64(strim(kbuf), 10, val) ? -EINVAL : 0;
}

/* Writing 1 clears the stats of a file, through @clear */
static ssize_t nova_proc_clear(struct file *file, const char __user *buf,
			       size_t len, void (*clear)(struct nova_stats *s))
{
	struct nova_sb_info *sbi = pde_data(file_inode(file));
	u64 v;
	int ret = nova_proc_number(buf, len, &v);

	if (ret)
		return ret;
	if (v != 1)
		return -EINVAL;
	clear(&sbi->stats);
	return len;
}

static void nova_timing_clear(struct nova_stats *s)
{
	int i;

	for (i = 0; i < T_NUM; i++) {
		atomic64_set(&s->timing_count[i], 0);
		atomic64_set(&s->timing_ns[i], 0);
	}
}

static ssize_t nova_timing_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *ppos)
{
	return nova_proc_clear(file, buf, len, nova_timing_clear);
}

static void nova_io_clear(struct nova_stats *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nova_io_counters); i++)
		nova_counter_clear(s, &nova_io_counters[i]);
}

static ssize_t nova_io_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *ppos)
{
	return nova_proc_clear(file, buf, len, nova_io_clear);
}

/*
 * Writing an inode number runs a thorough GC of its log.  It writes like
 * any other change: never on a read-only or frozen file system.  A
 * remount, freeze or unmount in progress (s_umount held for writing:
 * an unmount waits for this write to end) or a frozen file system gives
 * EBUSY rather than a wait.
 */
static ssize_t nova_gc_write(struct file *file, const char __user *buf,
			     size_t len, loff_t *ppos)
{
	struct nova_sb_info *sbi = pde_data(file_inode(file));
	struct super_block *sb = sbi->sb;
	struct inode *inode;
	u64 ino;
	int ret = nova_proc_number(buf, len, &ino);

	if (ret)
		return ret;
	if (ino != NOVA_ROOT_INO && ino < NOVA_NORMAL_INODE_START)
		return -ENOENT;
	ret = nova_emergency_state(sb);
	if (ret)
		return ret;
	if (!down_read_trylock(&sb->s_umount))
		return -EBUSY;
	ret = -EROFS;
	if (sb_rdonly(sb))
		goto out_umount;
	ret = -EBUSY;
	if (!sb_start_write_trylock(sb))
		goto out_umount;
	inode = nova_iget(sb, ino);
	if (IS_ERR(inode)) {
		ret = PTR_ERR(inode) == -ESTALE ? -ENOENT : PTR_ERR(inode);
		goto out_write;
	}
	inode_lock(inode);
	if (S_ISREG(inode->i_mode))
		filemap_invalidate_lock(inode->i_mapping);
	mutex_lock(&NOVA_I(inode)->header.log_mutex);
	/* a quota file in use is the quota code's (quota.c) */
	ret = IS_NOQUOTA(inode) ? -EBUSY :
	      inode->i_nlink ? nova_thorough_gc(sb, inode) : -ENOENT;
	mutex_unlock(&NOVA_I(inode)->header.log_mutex);
	if (S_ISREG(inode->i_mode))
		filemap_invalidate_unlock(inode->i_mapping);
	inode_unlock(inode);
	iput(inode);
out_write:
	sb_end_write(sb);
out_umount:
	up_read(&sb->s_umount);
	return ret ? ret : len;
}

/*
 * The proc_ops of a file of __name ## _show() (single_open()) and
 * __name ## _write(): DEFINE_PROC_SHOW_ATTRIBUTE() with a write.
 */
#define NOVA_PROC_SHOW_STORE_ATTRIBUTE(__name)				\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, pde_data(inode));	\
}									\
									\
static const struct proc_ops __name ## _proc_ops = {			\
	.proc_open	= __name ## _open,				\
	.proc_read	= seq_read,					\
	.proc_lseek	= seq_lseek,					\
	.proc_release	= single_release,				\
	.proc_write	= __name ## _write,				\
}

NOVA_PROC_SHOW_STORE_ATTRIBUTE(nova_timing);
NOVA_PROC_SHOW_STORE_ATTRIBUTE(nova_io);
DEFINE_PROC_SHOW_ATTRIBUTE(nova_allocator);
NOVA_PROC_SHOW_STORE_ATTRIBUTE(nova_gc);

/* /proc/fs/NOVA/features/casefold: as ext4's /sys/fs/ext4/features/ */
static int nova_feature_show(struct seq_file *seq, void *v)
{
	seq_puts(seq, "supported\n");
	return 0;
}

int nova_stats_init(void)
{
	struct proc_dir_entry *features;

	nova_proc_root = proc_mkdir("fs/NOVA", NULL);
	if (!nova_proc_root)
		return -ENOMEM;
	/* the module's optional features: this kernel has what they need */
	features = proc_mkdir("features", nova_proc_root);
	if (features && IS_ENABLED(CONFIG_UNICODE))
		proc_create_single("casefold", 0444, features, nova_feature_show);
	if (measure_timing)
		static_branch_enable(&nova_timing_key);
	return 0;
}

void nova_stats_exit(void)
{
	proc_remove(nova_proc_root);
}

/* A mount's files: /proc/fs/NOVA/<device>/ */
void nova_proc_register(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!nova_proc_root)
		return;
	sbi->s_proc = proc_mkdir(sb->s_id, nova_proc_root);
	if (!sbi->s_proc) {
		pr_warn("NOVA (%s): cannot create /proc/fs/NOVA/%s\n", sb->s_id,
			sb->s_id);
		return;
	}
	proc_create_data("timing_stats", 0644, sbi->s_proc, &nova_timing_proc_ops, sbi);
	proc_create_data("IO_stats", 0644, sbi->s_proc, &nova_io_proc_ops, sbi);
	proc_create_data("allocator", 0444, sbi->s_proc, &nova_allocator_proc_ops, sbi);
	proc_create_data("gc", 0644, sbi->s_proc, &nova_gc_proc_ops, sbi);
	nova_pt_sysfs_init(sb);
}

void nova_proc_unregister(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	proc_remove(sbi->s_proc);
	sbi->s_proc = NULL;
	nova_pt_sysfs_exit(sb);
}
