// SPDX-License-Identifier: GPL-2.0
/*
 * Persistence trace (debug builds only, make NOVA_DEBUG=1).
 *
 * Under QEMU's TCG every store reaches the NVDIMM's backing file in
 * program order, so a power cut there only ever leaves a prefix of the
 * stores: a missing flush or fence cannot show.  This records what the
 * hardware may keep instead.  /proc/fs/NOVA/<dev>/pmemtrace (one traced
 * mount at a time) takes the commands
 *
 *   start        snapshot the device, record from now on
 *   begin NAME   a system call of the workload starts (its name)
 *   end          it returned: compare the device with what was flushed
 *   stop         stop recording; the trace can then be read
 *
 * and reading it gives the trace: records of struct nova_pt_rec, each
 * followed by @len bytes padded to 8, in the order of the events:
 *
 *   START    off = device bytes, data "NOVAPT01"
 *   BASE     off = a 4 KiB block that is not all zero at the start
 *   BEGIN    off = call number (1...), data = its name
 *   FLUSH    off, len = whole cache lines; data = their bytes when flushed
 *   NT       off, len = a non-temporal copy; data = its bytes
 *   FENCE    (ip = where)
 *   MISSING  off, len = cache lines whose bytes on the device differ from
 *            everything flushed or copied: stored and never flushed
 *            before the call returned; data = the bytes on the device
 *   END      off = call number
 *   SYM      off = a call site (the ip of FLUSH, NT, FENCE); data = name
 *   STOP     off = 1 if the buffer overflowed (the trace is incomplete)
 *
 * ip is the site of the primitive (pmem.h's helpers are always inlined).
 * The host tool tests/crash/crashimg.c replays a trace onto the BASE
 * image and builds the crash images a power cut may leave at each fence.
 *
 * The module parameter mutate=N (enum nova_mutation) removes one flush or
 * fence, to show that the checker catches it; pmemtrace_mb sizes the
 * buffer.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/sched.h>
#include <linux/kallsyms.h>
#include "nova.h"

int nova_pt_on;
int nova_mutate;
module_param_named(mutate, nova_mutate, int, 0644);
MODULE_PARM_DESC(mutate, "Debug: remove one flush (1) or fence (2) to test the crash checker");
static unsigned int pmemtrace_mb = 64;
module_param(pmemtrace_mb, uint, 0644);
MODULE_PARM_DESC(pmemtrace_mb, "Debug: persistence trace buffer in MiB (default 64)");

#define PT_LINE		64
#define PT_MAX_SYMS	1024
#define PT_NAME_LEN	200

struct nova_pt_rec {
	__le32 type;
	__le32 len;
	__le64 off;
	__le64 ip;
};

static struct {
	struct super_block *sb;		/* the traced mount */
	u8 *dev;			/* its device mapping */
	u64 size;
	u8 *shadow;			/* the device as flushed so far */
	u8 *buf;			/* the trace */
	size_t cap, used;
	bool overflow;
	u64 call;
	char name[PT_NAME_LEN];		/* of the current call */
} pt;
static DEFINE_SPINLOCK(pt_lock);	/* pt.buf, pt.used, pt.shadow */
static DEFINE_MUTEX(pt_mutex);		/* the commands */

/* Append one record; pt_lock held */
static void pt_append(int type, u64 off, const void *data, u32 len,
		      unsigned long ip)
{
	size_t need = sizeof(struct nova_pt_rec) + ALIGN(len, 8);
	struct nova_pt_rec *r;

	if (pt.overflow || !pt.buf)
		return;
	if (pt.used + need > pt.cap) {
		pt.overflow = true;
		return;
	}
	r = (struct nova_pt_rec *)(pt.buf + pt.used);
	r->type = cpu_to_le32(type);
	r->len = cpu_to_le32(len);
	r->off = cpu_to_le64(off);
	r->ip = cpu_to_le64(ip);
	if (len)
		memcpy(r + 1, data, len);
	memset((u8 *)(r + 1) + len, 0, ALIGN(len, 8) - len);
	pt.used += need;
}

void nova_pt_event(int type, const void *addr, size_t len, unsigned long ip)
{
	const u8 *p = addr;
	unsigned long flags;
	u64 off, end;

	spin_lock_irqsave(&pt_lock, flags);
	if (!READ_ONCE(nova_pt_on) || !pt.dev)
		goto out;
	if (type == NOVA_PT_FENCE) {
		pt_append(type, 0, NULL, 0, ip);
		goto out;
	}
	if (!len || p < pt.dev || p >= pt.dev + pt.size)
		goto out;
	off = p - pt.dev;
	end = min_t(u64, off + len, pt.size);
	if (type == NOVA_PT_FLUSH) {
		/* clwb writes back whole lines, as they are now */
		off = round_down(off, PT_LINE);
		end = min_t(u64, round_up(end, PT_LINE), pt.size);
	}
	pt_append(type, off, pt.dev + off, end - off, ip);
	memcpy(pt.shadow + off, pt.dev + off, end - off);
out:
	spin_unlock_irqrestore(&pt_lock, flags);
}

static void pt_free(void)
{
	WRITE_ONCE(nova_pt_on, 0);
	spin_lock_irq(&pt_lock);
	pt.dev = NULL;
	spin_unlock_irq(&pt_lock);
	vfree(pt.buf);
	vfree(pt.shadow);
	pt.buf = NULL;
	pt.shadow = NULL;
	pt.sb = NULL;
	pt.used = 0;
}

static int pt_start(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 off;

	if (READ_ONCE(nova_pt_on))
		return -EBUSY;
	pt_free();
	pt.size = sbi->phys_size & ~(u64)(NOVA_BLOCK_SIZE - 1);
	pt.cap = (size_t)pmemtrace_mb << 20;
	pt.buf = vmalloc(pt.cap);
	pt.shadow = vmalloc(pt.size);
	if (!pt.buf || !pt.shadow) {
		pt_free();
		return -ENOMEM;
	}
	pt.sb = sb;
	pt.overflow = false;
	pt.call = 0;
	pt.name[0] = 0;
	memcpy(pt.shadow, sbi->virt_addr, pt.size);
	spin_lock_irq(&pt_lock);
	pt_append(NOVA_PT_START, pt.size, "NOVAPT01", 8, 0);
	for (off = 0; off < pt.size; off += NOVA_BLOCK_SIZE)
		if (memchr_inv(pt.shadow + off, 0, NOVA_BLOCK_SIZE))
			pt_append(NOVA_PT_BASE, off, pt.shadow + off,
				  NOVA_BLOCK_SIZE, 0);
	pt.dev = sbi->virt_addr;
	WRITE_ONCE(nova_pt_on, 1);
	spin_unlock_irq(&pt_lock);
	return pt.overflow ? -ENOSPC : 0;
}

/* The first line at or after @off whose bytes differ, or pt.size */
static u64 pt_next_diff(u64 off, bool differ)
{
	for (; off < pt.size; off += PT_LINE) {
		const u64 *a = (const u64 *)(pt.dev + off);
		const u64 *b = (const u64 *)(pt.shadow + off);
		bool d = false;
		int i;

		for (i = 0; i < PT_LINE / 8; i++)
			d |= a[i] != b[i];
		if (d == differ)
			return off;
		if (!(off & (SZ_1M - 1)))
			cond_resched();
	}
	return pt.size;
}

/*
 * End of a call: every line of the device that differs from the flushed
 * image was stored and not flushed.  Recorded once (the shadow takes the
 * device's bytes); the persisted image of the host tool does not.
 */
static void pt_end(void)
{
	u64 off = 0, end, lines = 0, first = 0;

	while ((off = pt_next_diff(off, true)) < pt.size) {
		end = pt_next_diff(off, false);
		if (!lines)
			first = off;
		lines += (end - off) / PT_LINE;
		spin_lock_irq(&pt_lock);
		pt_append(NOVA_PT_MISSING, off, pt.dev + off, end - off, 0);
		memcpy(pt.shadow + off, pt.dev + off, end - off);
		spin_unlock_irq(&pt_lock);
		off = end;
	}
	if (lines)
		pr_info("NOVA-PT: call %llu (%s): %llu cache lines stored but never flushed, the first at %#llx\n",
			pt.call, pt.name, lines, first);
	spin_lock_irq(&pt_lock);
	pt_append(NOVA_PT_END, pt.call, NULL, 0, 0);
	spin_unlock_irq(&pt_lock);
}

/* The call sites in the trace, each once, with their symbols */
static void pt_syms(void)
{
	unsigned long *ips = kcalloc(PT_MAX_SYMS, sizeof(*ips), GFP_KERNEL);
	char sym[KSYM_SYMBOL_LEN];
	size_t pos = 0, end = pt.used;
	int n = 0, i;

	if (!ips)
		return;
	while (pos < end) {
		struct nova_pt_rec *r = (struct nova_pt_rec *)(pt.buf + pos);
		unsigned long ip = le64_to_cpu(r->ip);

		pos += sizeof(*r) + ALIGN(le32_to_cpu(r->len), 8);
		if (!ip)
			continue;
		for (i = 0; i < n && ips[i] != ip; i++)
			;
		if (i == n && n < PT_MAX_SYMS)
			ips[n++] = ip;
	}
	for (i = 0; i < n; i++) {
		sprint_symbol(sym, ips[i]);
		spin_lock_irq(&pt_lock);
		pt_append(NOVA_PT_SYM, ips[i], sym, strlen(sym) + 1, 0);
		spin_unlock_irq(&pt_lock);
	}
	kfree(ips);
}

static ssize_t nova_pt_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct super_block *sb = pde_data(file_inode(file));
	char cmd[PT_NAME_LEN + 8];
	size_t n = min(len, sizeof(cmd) - 1);
	int ret = 0;

	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	strim(cmd);
	mutex_lock(&pt_mutex);
	if (!strcmp(cmd, "start")) {
		ret = pt_start(sb);
	} else if (pt.sb != sb || !READ_ONCE(nova_pt_on)) {
		ret = -EINVAL;
	} else if (!strncmp(cmd, "begin ", 6)) {
		strscpy(pt.name, cmd + 6, sizeof(pt.name));
		spin_lock_irq(&pt_lock);
		pt_append(NOVA_PT_BEGIN, ++pt.call, pt.name, strlen(pt.name) + 1, 0);
		spin_unlock_irq(&pt_lock);
	} else if (!strcmp(cmd, "end")) {
		pt_end();
	} else if (!strcmp(cmd, "stop")) {
		WRITE_ONCE(nova_pt_on, 0);
		/* no event is being appended after this */
		spin_lock_irq(&pt_lock);
		spin_unlock_irq(&pt_lock);
		pt_syms();
		spin_lock_irq(&pt_lock);
		pt_append(NOVA_PT_STOP, pt.overflow, NULL, 0, 0);
		spin_unlock_irq(&pt_lock);
		/* a full buffer: the stop record itself may be missing */
		if (pt.overflow)
			pr_info("NOVA-PT: the trace buffer (%u MiB) overflowed\n",
				pmemtrace_mb);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&pt_mutex);
	return ret ? ret : len;
}

static ssize_t nova_pt_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct super_block *sb = pde_data(file_inode(file));
	ssize_t ret;

	mutex_lock(&pt_mutex);
	if (pt.sb != sb || !pt.buf)
		ret = 0;
	else if (READ_ONCE(nova_pt_on))
		ret = -EBUSY;
	else
		ret = simple_read_from_buffer(ubuf, len, ppos, pt.buf, pt.used);
	mutex_unlock(&pt_mutex);
	return ret;
}

static const struct proc_ops nova_pt_fops = {
	.proc_read	= nova_pt_read,
	.proc_write	= nova_pt_write,
	.proc_lseek	= default_llseek,
};

void nova_pt_sysfs_init(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (sbi->s_proc)
		proc_create_data("pmemtrace", 0600, sbi->s_proc, &nova_pt_fops, sb);
}

/* Before the proc directory goes: an unmount ends its trace */
void nova_pt_sysfs_exit(struct super_block *sb)
{
	mutex_lock(&pt_mutex);
	if (pt.sb == sb)
		pt_free();
	mutex_unlock(&pt_mutex);
}
