// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA super block: mount (fs_context API), format (-o init), super block
 * validation with fall-back to the replica, statfs, umount, and the
 * module's entry points.
 */
#include <linux/module.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/blkdev.h>
#include <linux/badblocks.h>
#include <linux/statfs.h>
#include <linux/seq_file.h>
#include <linux/uuid.h>
#include <linux/cred.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/quotaops.h>
#include <linux/ratelimit.h>
#include "nova.h"

unsigned int nova_dbgmask;
module_param(nova_dbgmask, uint, 0644);
MODULE_PARM_DESC(nova_dbgmask, "Debug output mask of every mount (dbgmask= adds to it for one)");

int measure_timing;

static int nova_set_measure_timing(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_int(val, kp);

	if (ret)
		return ret;
	if (measure_timing)
		static_branch_enable(&nova_timing_key);
	else
		static_branch_disable(&nova_timing_key);
	return 0;
}

static const struct kernel_param_ops nova_measure_timing_ops = {
	.set = nova_set_measure_timing,
	.get = param_get_int,
};
module_param_cb(measure_timing, &nova_measure_timing_ops, &measure_timing, 0644);
MODULE_PARM_DESC(measure_timing, "Measure the timing of file system operations (default 0)");

int inplace_data_updates;
module_param(inplace_data_updates, int, 0444);
MODULE_PARM_DESC(inplace_data_updates, "Update file data in place instead of copy-on-write (default 0)");

/* as ext4's err_ratelimit_burst and err_ratelimit_interval_ms */
static unsigned int error_ratelimit_burst = 10;
module_param(error_ratelimit_burst, uint, 0644);
MODULE_PARM_DESC(error_ratelimit_burst, "Error messages a file system prints per interval (default 10)");

static unsigned int error_ratelimit_interval_ms = 5000;
module_param(error_ratelimit_interval_ms, uint, 0644);
MODULE_PARM_DESC(error_ratelimit_interval_ms, "Interval of the error message limit in ms, 0: no limit (default 5000)");

static const struct super_operations nova_sops;

#ifdef NOVA_DEBUG
int nova_crash_point;
module_param_named(crash_point, nova_crash_point, int, 0644);
MODULE_PARM_DESC(crash_point, "Debug: panic (power cut) at crash point N");

void __noreturn nova_crash(int point)
{
	/* panic() stops the other CPUs first: nothing is stored after this */
	panic("NOVA-CRASHPOINT %d\n", point);
}
#endif

/* Set NOVA_STATE_ERROR in the super block (s_lock held) */
static void __nova_set_error_state(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	/* (after a shutdown nothing is written: the next mount recovers) */
	if (!(sbi->s_super.s_state & cpu_to_le32(NOVA_STATE_ERROR)) &&
	    !nova_is_shutdown(sb)) {
		sbi->s_super.s_state |= cpu_to_le32(NOVA_STATE_ERROR);
		nova_sync_super(sb);
	}
}

/*
 * The super block records that errors were seen, now (process context,
 * after the mount's own super block writes)
 */
void nova_set_error_state(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	mutex_lock(&sbi->s_lock);
	__nova_set_error_state(sb);
	mutex_unlock(&sbi->s_lock);
}

/*
 * Nothing is written to a frozen file system, the error state neither
 * (ext4's journal waits for the thaw): it is left to the thaw
 * (nova_unfreeze_fs()), or to the unmount of a file system unmounted
 * frozen (nova_put_super())
 */
static void nova_error_work(struct work_struct *work)
{
	struct nova_sb_info *sbi = container_of(work, struct nova_sb_info,
						error_work);

	if (!sb_start_intwrite_trylock(sbi->sb)) {
		WRITE_ONCE(sbi->error_pending, true);
		return;
	}
	nova_set_error_state(sbi->sb);
	sb_end_intwrite(sbi->sb);
}

/* The error state the work item left to the thaw or the unmount */
static void nova_write_pending_error(struct super_block *sb)
{
	if (xchg(&NOVA_SB(sb)->error_pending, false))
		nova_set_error_state(sb);
}

/*
 * Damage was found: NOVA_STATE_ERROR in the super block, as ext4's error
 * state, makes the next fsck.nova (-p at boot too) check everything; only
 * fsck.nova clears it.  Any context: the write is left to a work item.
 * Errors of a mount are recorded once it has succeeded (its own super
 * block writes take no lock); none on a read-only device or with
 * norecovery.
 */
static void nova_record_error(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!sbi)
		return;
	WRITE_ONCE(sbi->errors_seen, true);
	if (READ_ONCE(sbi->record_errors) &&
	    !(READ_ONCE(sbi->s_super.s_state) & cpu_to_le32(NOVA_STATE_ERROR)))
		schedule_work(&sbi->error_work);
}

/*
 * A damaged log may report the same error on every access: the first
 * error_ratelimit_burst messages of each interval are printed, the rest
 * counted and their number printed before the next one and at the
 * unmount.  The error itself is always recorded and acted on.
 */
static void nova_error_limit_init(struct nova_sb_info *sbi)
{
	ratelimit_state_init(&sbi->err_rs,
			     msecs_to_jiffies(error_ratelimit_interval_ms),
			     error_ratelimit_burst);
	/* no "callbacks suppressed" line of its own: nova_error() counts */
	ratelimit_set_flags(&sbi->err_rs, RATELIMIT_MSG_ON_RELEASE);
}

static void nova_error_suppressed(struct super_block *sb)
{
	long n = atomic_long_xchg(&NOVA_SB(sb)->err_suppressed, 0);

	if (n)
		pr_err("NOVA (%s): %ld error messages suppressed (error_ratelimit_burst)\n",
		       sb->s_id, n);
}

static bool nova_error_print(struct super_block *sb)
{
	static DEFINE_RATELIMIT_STATE(mount_rs, 5 * HZ, 10);
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!sbi)
		return __ratelimit(&mount_rs);
	if (!__ratelimit(&sbi->err_rs)) {
		atomic_long_inc(&sbi->err_suppressed);
		return false;
	}
	nova_error_suppressed(sb);
	return true;
}

void nova_error(struct super_block *sb, const char *fmt, ...)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct va_format vaf;
	va_list args;

	if (nova_error_print(sb)) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_err("NOVA error (%s): %pV\n", sb->s_id, &vaf);
		va_end(args);
	}

	nova_record_error(sb);
	if (!sbi)
		return;
	if (nova_test_opt(sbi, ERRORS_PANIC)) {
		/*
		 * The work item would never run: write the state first, as
		 * ext4 commits its super block before the panic.  Only if
		 * s_lock is free: its holder (maybe this task) may be half
		 * way through a change of the DRAM copy.
		 */
		if (READ_ONCE(sbi->record_errors) && in_task() &&
		    mutex_trylock(&sbi->s_lock)) {
			__nova_set_error_state(sb);
			mutex_unlock(&sbi->s_lock);
		}
		panic("NOVA (%s): panic forced after error\n", sb->s_id);
	}
	/*
	 * As ext4: a state of its own, never SB_RDONLY behind the VFS's
	 * back (nova_emergency_state()); not after a shutdown
	 */
	if (nova_test_opt(sbi, ERRORS_RO) && !sb_rdonly(sb) &&
	    !cmpxchg(&sbi->stopped, 0, -EROFS))
		pr_crit("NOVA (%s): remounting file system read-only (emergency_ro): every change fails with EROFS until it is unmounted\n",
			sb->s_id);
}

/*
 * Write the DRAM super block to both copies.  The primary is made durable
 * before the replica is touched, so a power cut tears at most one copy.
 * Caller holds sbi->s_lock (or is alone: mount, umount).
 */
int nova_sync_super(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block *s = &sbi->s_super;

	s->s_write_time = cpu_to_le64(nova_now_ns());
	s->s_sum = cpu_to_le32(nova_sb_csum(s));
	nova_memcpy_nt(nova_pmem_super(sb), s, sizeof(*s));
	nova_fence();
	nova_memcpy_nt(nova_pmem_replica_super(sb), s, sizeof(*s));
	nova_fence();
	return 0;
}

/*
 * The first use of a feature: set @bit in the super block's feature
 * field @f (a field of sbi->s_super) and write the super block.
 */
void nova_set_feature(struct super_block *sb, __le64 *f, u64 bit)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (READ_ONCE(*f) & cpu_to_le64(bit))
		return;
	mutex_lock(&sbi->s_lock);
	if (!(*f & cpu_to_le64(bit))) {
		*f |= cpu_to_le64(bit);
		nova_sync_super(sb);
	}
	mutex_unlock(&sbi->s_lock);
}

/* The project quota file's usage matches the file system (s_lock held) */
static bool nova_prj_current(struct nova_sb_info *sbi)
{
	u32 state = le32_to_cpu(sbi->s_super.s_state);

	return (state & NOVA_STATE_CLEAN) && (state & NOVA_STATE_PRJQUOTA);
}

/* Features a writer must know (RO_COMPAT) that this module does not */
static u64 nova_unknown_ro_compat(struct nova_sb_info *sbi)
{
	return le64_to_cpu(sbi->s_super.s_feature_ro_compat) &
	       ~NOVA_FEATURE_RO_COMPAT_SUPP;
}

/* Mount options */
enum {
	Opt_init, Opt_mode, Opt_uid, Opt_gid, Opt_errors, Opt_dbgmask,
	Opt_dax, Opt_dax_enum, Opt_inplace, Opt_acl, Opt_noacl, Opt_user_xattr,
	Opt_norecovery, Opt_usrquota, Opt_grpquota, Opt_prjquota, Opt_noquota,
	Opt_emergency_ro,
};

enum { Opt_dax_always, Opt_dax_never, Opt_dax_inode };

static const struct constant_table nova_param_errors[] = {
	{ "continue",	NOVA_MOUNT_ERRORS_CONT },
	{ "remount-ro",	NOVA_MOUNT_ERRORS_RO },
	{ "panic",	NOVA_MOUNT_ERRORS_PANIC },
	{}
};

static const struct constant_table nova_param_dax[] = {
	{ "always",	Opt_dax_always },
	{ "never",	Opt_dax_never },
	{ "inode",	Opt_dax_inode },
	{}
};

static const struct fs_parameter_spec nova_fs_parameters[] = {
	fsparam_flag("init",		Opt_init),
	fsparam_u32oct("mode",		Opt_mode),
	fsparam_u32("uid",		Opt_uid),
	fsparam_u32("gid",		Opt_gid),
	fsparam_enum("errors",		Opt_errors, nova_param_errors),
	fsparam_u32("dbgmask",		Opt_dbgmask),
	fsparam_flag("dax",		Opt_dax),
	fsparam_enum("dax",		Opt_dax_enum, nova_param_dax),
	fsparam_u32("inplace_data_updates", Opt_inplace),
	fsparam_flag("acl",		Opt_acl),
	fsparam_flag("noacl",		Opt_noacl),
	fsparam_flag("user_xattr",	Opt_user_xattr),
	fsparam_flag("norecovery",	Opt_norecovery),
	fsparam_flag("noload",		Opt_norecovery),	/* ext4's name */
	fsparam_flag("usrquota",	Opt_usrquota),
	fsparam_flag("quota",		Opt_usrquota),
	fsparam_flag("grpquota",	Opt_grpquota),
	fsparam_flag("prjquota",	Opt_prjquota),
	fsparam_flag("noquota",		Opt_noquota),
	fsparam_flag("emergency_ro",	Opt_emergency_ro),
	{}
};

struct nova_fs_context {
	unsigned long mount_opt;
	unsigned long quota_mask;	/* the quota options given (as ext4) */
	unsigned int set;		/* which of the below were given */
	umode_t mode;
	kuid_t uid;
	kgid_t gid;
	unsigned int dbgmask;
};

#define NOVA_SET_MODE		0x01
#define NOVA_SET_UID		0x02
#define NOVA_SET_GID		0x04
#define NOVA_SET_ERRORS		0x08
#define NOVA_SET_DBGMASK	0x10
#define NOVA_SET_INPLACE	0x20
#define NOVA_SET_ACL		0x40
#define NOVA_SET_QUOTA		0x80
#define NOVA_MOUNT_QUOTA	(NOVA_MOUNT_USRQUOTA | NOVA_MOUNT_GRPQUOTA | \
				 NOVA_MOUNT_PRJQUOTA)

static int nova_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, nova_fs_parameters, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case Opt_init:
		ctx->mount_opt |= NOVA_MOUNT_FORMAT;
		break;
	case Opt_mode:
		if (result.uint_32 & ~07777)
			return invalfc(fc, "invalid mode 0%o", result.uint_32);
		ctx->mode = result.uint_32;
		ctx->set |= NOVA_SET_MODE;
		break;
	case Opt_uid:
		ctx->uid = make_kuid(current_user_ns(), result.uint_32);
		if (!uid_valid(ctx->uid))
			return invalfc(fc, "invalid uid %u", result.uint_32);
		ctx->set |= NOVA_SET_UID;
		break;
	case Opt_gid:
		ctx->gid = make_kgid(current_user_ns(), result.uint_32);
		if (!gid_valid(ctx->gid))
			return invalfc(fc, "invalid gid %u", result.uint_32);
		ctx->set |= NOVA_SET_GID;
		break;
	case Opt_errors:
		ctx->mount_opt &= ~NOVA_MOUNT_ERRORS_MASK;
		ctx->mount_opt |= result.uint_32;
		ctx->set |= NOVA_SET_ERRORS;
		break;
	case Opt_dbgmask:
		ctx->dbgmask = result.uint_32;
		ctx->set |= NOVA_SET_DBGMASK;
		break;
	case Opt_dax:
		ctx->mount_opt |= NOVA_MOUNT_DAX;
		break;
	case Opt_inplace:
		if (result.uint_32 > 1)
			return invalfc(fc, "inplace_data_updates must be 0 or 1");
		ctx->mount_opt &= ~NOVA_MOUNT_INPLACE;
		if (result.uint_32)
			ctx->mount_opt |= NOVA_MOUNT_INPLACE;
		ctx->set |= NOVA_SET_INPLACE;
		break;
	case Opt_acl:
	case Opt_noacl:
		ctx->mount_opt &= ~NOVA_MOUNT_NOACL;
		if (opt == Opt_noacl)
			ctx->mount_opt |= NOVA_MOUNT_NOACL;
		ctx->set |= NOVA_SET_ACL;
		break;
	case Opt_user_xattr:
		/* user. attributes are always on, as in ext4 */
		break;
	case Opt_norecovery:
		ctx->mount_opt |= NOVA_MOUNT_NORECOVERY;
		break;
	case Opt_usrquota:
	case Opt_grpquota:
	case Opt_prjquota:
	case Opt_noquota:
		/*
		 * quotaon turns the user and group quota files on, the
		 * mount turns the project quota file on (quota.c)
		 */
		if (opt == Opt_noquota) {
			ctx->mount_opt &= ~NOVA_MOUNT_QUOTA;
			ctx->quota_mask |= NOVA_MOUNT_QUOTA;
		} else {
			unsigned long bit = opt == Opt_usrquota ? NOVA_MOUNT_USRQUOTA :
					    opt == Opt_grpquota ? NOVA_MOUNT_GRPQUOTA :
					    NOVA_MOUNT_PRJQUOTA;

			ctx->mount_opt |= bit;
			ctx->quota_mask |= bit;
		}
		ctx->set |= NOVA_SET_QUOTA;
		break;
	case Opt_emergency_ro:
		/*
		 * The state nova_show_options() shows after an error, which
		 * mount(8) passes back at a remount: that remount is refused
		 * with EROFS (nova_reconfigure()), not for the option
		 */
		if (fc->purpose != FS_CONTEXT_FOR_RECONFIGURE)
			return invalfc(fc, "emergency_ro is the state of a mounted file system after an error, not a mount option");
		break;
	case Opt_dax_enum:
		if (result.uint_32 != Opt_dax_always)
			return invalfc(fc, "NOVA is always DAX: dax=%s is not supported",
				       param->string);
		ctx->mount_opt |= NOVA_MOUNT_DAX;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/*
 * Device removal: the pmem namespace unbound, destroyed or its region
 * disabled while it is mounted.  NOVA reaches the device only through
 * the kernel mapping it took at mount, which the driver tears down once
 * the device's page map is idle: a mount holds a reference to it (the
 * page maps of its first and last page), so the removal waits for the
 * unmount, and every access stays valid until then (ext4 and XFS ask
 * for the mapping each time, and get an error).  The removal is told to
 * the DAX device's holder (kill_dax()) and, since 6.6, the block
 * device's (->shutdown): the file system shuts down as FS_IOC_SHUTDOWN
 * with NOLOGFLUSH does (ext4's ->shutdown), every operation fails with
 * EIO, and the kernel log says that the unmount lets the removal end.
 * nova_holder_lock orders a notification with the holder's release.
 */
static DEFINE_MUTEX(nova_holder_lock);

/* (also ->shutdown, since 6.5: the block device went away) */
static void nova_device_gone(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (xchg(&sbi->dev_removed, true))
		return;
	nova_shut_down(sb);
	pr_err("NOVA (%s): the device is being removed: shut down, every operation fails with EIO; unmount it to let the removal finish\n",
	       sb->s_id);
}

/*
 * DAX holder: the device's removal shuts the file system down; a media
 * error in a range of it gets the kernel's generic handling (-EOPNOTSUPP:
 * the processes that map the page are signalled), as without a holder.
 */
static int nova_dax_notify_failure(struct dax_device *dax_dev, u64 off,
				   u64 len, int mf_flags)
{
	struct super_block *sb;

	if (!nova_dax_removal(off, len, mf_flags))
		return -EOPNOTSUPP;
	mutex_lock(&nova_holder_lock);
	sb = dax_holder(dax_dev);
	if (sb)
		nova_device_gone(sb);
	mutex_unlock(&nova_holder_lock);
	return 0;
}

static const struct dax_holder_operations nova_dax_holder_ops = {
	.notify_failure = nova_dax_notify_failure,
};

/* Hold the page maps of the device's first and last page (see above) */
static void nova_pin_device(struct super_block *sb, unsigned long pages)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (sbi->base_pfn) {
		sbi->pgmap[0] = nova_get_dev_pagemap(sbi->base_pfn);
		sbi->pgmap[1] = nova_get_dev_pagemap(sbi->base_pfn + pages - 1);
	}
	if (!sbi->pgmap[0] || !sbi->pgmap[1])
		pr_warn("NOVA (%s): the device has no page map to hold: removing it while it is mounted is not safe\n",
			sb->s_id);
}

/* After the last access to the device (nova_kill_sb()) */
static void nova_unpin_device(struct nova_sb_info *sbi)
{
	put_dev_pagemap(sbi->pgmap[1]);
	put_dev_pagemap(sbi->pgmap[0]);
	sbi->pgmap[0] = sbi->pgmap[1] = NULL;
}

/* Map the whole device through DAX; no block I/O is ever issued. */
static int nova_map_device(struct super_block *sb, struct fs_context *fc)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 size = bdev_nr_bytes(sb->s_bdev);
	long pages, want;
	void *kaddr;
	nova_pfn_t pfn;
	int id;

	sbi->s_dax_dev = fs_dax_get_by_bdev(sb->s_bdev, &sbi->s_dax_part_off,
					    NULL, NULL);
	if (!sbi->s_dax_dev)
		return invalfc(fc, "%s does not support DAX", sb->s_id);
	/*
	 * The holder, unless another partition's file system is already
	 * (asked only then: a refused request keeps its reference)
	 */
	if (!dax_holder(sbi->s_dax_dev)) {
		struct dax_device *d;

		d = fs_dax_get_by_bdev(sb->s_bdev, &sbi->s_dax_part_off, sb,
				       &nova_dax_holder_ops);
		if (d) {
			fs_put_dax(sbi->s_dax_dev, NULL);
			sbi->s_dax_dev = d;
			sbi->dax_holder = true;
		}
	}

	want = size >> PAGE_SHIFT;
	id = dax_read_lock();
	pages = dax_direct_access(sbi->s_dax_dev,
				  sbi->s_dax_part_off >> PAGE_SHIFT, want,
				  DAX_ACCESS, &kaddr, &pfn);
	dax_read_unlock(id);
	if (pages < want) {
		struct badblocks *bb = sb->s_bdev->bd_disk->bb;

		/*
		 * The pmem driver maps no range with a known bad block in
		 * it; NOVA needs the whole device (as ext4 and XFS do not)
		 */
		if (bb && READ_ONCE(bb->count) > 0) {
			errorfc(fc, "%s: the device has known bad blocks (%d ranges, /sys/block/%s/badblocks): NOVA maps the whole device and cannot mount it until they are cleared",
				sb->s_id, READ_ONCE(bb->count),
				sb->s_bdev->bd_disk->disk_name);
			return -EIO;
		}
	}
	if (pages < 0)
		return invalfc(fc, "%s: DAX direct access failed (%ld)",
			       sb->s_id, pages);
	if (pages < want)
		return invalfc(fc, "%s: only %ld of %ld pages are directly mappable",
			       sb->s_id, pages, want);

	sbi->virt_addr = kaddr;
	sbi->base_pfn = nova_pfn_value(pfn);
	sbi->phys_size = size;
	nova_pin_device(sb, want);
	return 0;
}

/* Read and validate a super block copy into @out */
static const char *nova_read_super_copy(struct super_block *sb, u64 off,
					struct nova_super_block *out)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (nova_read_pmem(out, sbi->virt_addr + off, sizeof(*out)))
		return "media error";
	return nova_check_super(out, sbi->phys_size);
}

/* Read a candidate of the replica search into @out: NULL if it is one */
static const char *nova_read_replica(struct super_block *sb, u64 off,
				     struct nova_super_block *out)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	__le32 magic;

	/* most blocks a search looks at hold data: the magic number first */
	if (nova_read_pmem(&magic, sbi->virt_addr + off +
			   offsetof(struct nova_super_block, s_magic),
			   sizeof(magic)))
		return "media error";
	if (le32_to_cpu(magic) != NOVA_SUPER_MAGIC)
		return "bad magic number";
	if (nova_read_pmem(out, sbi->virt_addr + off, sizeof(*out)))
		return "media error";
	return nova_check_replica(out, off, sbi->phys_size);
}

/* Start a replica search (nova_lib.h) for the device's primary */
static void nova_replica_search(struct super_block *sb,
				struct nova_replica_iter *it, bool scan)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block p;
	struct nova_inode root;
	bool have_root;

	if (nova_read_pmem(&p, sbi->virt_addr, sizeof(p)))
		memset(&p, 0, sizeof(p));
	have_root = !nova_read_pmem(&root, nova_reserved_inode(sb, NOVA_ROOT_INO),
				    sizeof(root));
	nova_replica_iter_init(it, &p, sbi->phys_size,
			       scan && nova_shows_nova(&p, have_root ? &root : NULL));
}

/*
 * Find the replica of a file system whose primary super block is not
 * valid, into @out.  Returns its offset, or 0 if there is none; then
 * *why says why the first candidate is not the replica, and *scanned how
 * many other blocks were searched.
 */
static u64 nova_find_replica(struct super_block *sb,
			     struct nova_super_block *out, const char **why,
			     u64 *scanned)
{
	struct nova_replica_iter it;
	const char *w;
	u64 off;

	*why = NULL;
	nova_replica_search(sb, &it, true);
	while ((off = nova_replica_next(&it))) {
		if (it.scanned == 1)
			pr_warn("NOVA (%s): searching the device for the replica super block\n",
				sb->s_id);
		w = nova_read_replica(sb, off, out);
		*scanned = it.scanned;
		if (!w)
			return off;
		if (!*why)
			*why = w;
		if (!(it.scanned & 4095)) {
			cond_resched();
			if (fatal_signal_pending(current))
				break;
		}
	}
	if (!*why)
		*why = "none found";
	return 0;
}

/*
 * Load the super block: the primary if valid, otherwise the replica at
 * the end of the file system (nova_find_replica()), which then repairs
 * the primary.
 */
static int nova_load_super(struct super_block *sb, struct fs_context *fc)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	const char *why, *rwhy;
	u64 off, scanned = 0;

	if (sbi->phys_size < NOVA_MIN_SIZE)
		return invalfc(fc, "%s: device too small (%llu bytes, need at least %llu)",
			       sb->s_id, sbi->phys_size, NOVA_MIN_SIZE);
	why = nova_read_super_copy(sb, 0, &sbi->s_super);
	if (!why)
		return 0;
	off = nova_find_replica(sb, &sbi->s_super, &rwhy, &scanned);
	if (!off && le32_to_cpu(nova_pmem_super(sb)->s_magic) != NOVA_SUPER_MAGIC &&
	    strcmp(rwhy, "bad magic number") == 0) {
		if (scanned)
			return invalfc(fc, "%s: no NOVA file system found (a search of %llu blocks found no replica super block; use -o init or mkfs.nova to create one)",
				       sb->s_id, scanned);
		return invalfc(fc, "%s: no NOVA file system found (use -o init or mkfs.nova to create one)",
			       sb->s_id);
	}
	if (!off && scanned)
		return invalfc(fc, "%s: invalid super block (%s) and invalid replica (%s; no other found in %llu blocks)",
			       sb->s_id, why, rwhy, scanned);
	if (!off)
		return invalfc(fc, "%s: invalid super block (%s) and invalid replica (%s)",
			       sb->s_id, why, rwhy);
	pr_warn("NOVA (%s): primary super block invalid (%s), using the replica in block %llu\n",
		sb->s_id, why, off >> NOVA_BLOCK_SHIFT);
	if (sb_rdonly(sb)) {
		pr_warn("NOVA (%s): read-only mount, primary super block not repaired\n",
			sb->s_id);
		return 0;
	}
	nova_memcpy_nt(nova_pmem_super(sb), &sbi->s_super, sizeof(sbi->s_super));
	nova_fence();
	pr_warn("NOVA (%s): primary super block repaired from the replica\n",
		sb->s_id);
	return 0;
}

/*
 * Before a format: invalidate the old file system's replicas that a later
 * search would find without a scan (nova_lib.h), so that a damaged
 * primary of the new file system can never lead to a stale one.
 */
static void nova_invalidate_replicas(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block r;
	struct nova_replica_iter it;
	u64 off;

	nova_replica_search(sb, &it, false);
	while ((off = nova_replica_next(&it)))
		if (!nova_read_replica(sb, off, &r))
			nova_memset_persist(sbi->virt_addr + off, 0, NOVA_BLOCK_SIZE);
}

/*
 * Create a new file system of the whole device.  Ordering: everything
 * except the super block is written and made durable first; the super
 * block (primary, then the replica) is written last, so a crash during
 * format leaves a device without a valid NOVA super block.  mkfs.nova
 * writes the same layout (and can make a smaller file system).
 */
static int nova_format(struct super_block *sb, struct fs_context *fc,
		       struct nova_fs_context *ctx)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block *s = &sbi->s_super;
	u64 size = sbi->phys_size & ~(u64)(NOVA_BLOCK_SIZE - 1);
	unsigned long itable_blocks;
	unsigned int i;
	int ret;

	/* one stripe per online CPU, as mkfs.nova computes it */
	if (nova_compute_layout(size, num_online_cpus(), &sbi->layout))
		return invalfc(fc, "%s: device too small (%llu bytes, need at least %llu)",
			       sb->s_id, size, NOVA_MIN_SIZE);
	itable_blocks = sbi->layout.itable_blocks;

	/* invalidate the old super blocks first, then clear the fixed areas */
	nova_invalidate_replicas(sb);
	nova_memset_persist(nova_pmem_super(sb), 0, NOVA_BLOCK_SIZE);
	nova_memset_persist(nova_pmem_replica_super(sb), 0, NOVA_BLOCK_SIZE);
	nova_memset_persist(sbi->virt_addr,
			    0, nova_block_off(NOVA_HEAD_RESERVED_BLOCKS));
	nova_memset_persist(nova_get_block(sb, nova_block_off(sbi->layout.num_blocks -
							       NOVA_TAIL_RESERVED_BLOCKS)),
			    0, nova_block_off(NOVA_TAIL_RESERVED_BLOCKS));

	memset(s, 0, sizeof(*s));
	s->s_journal_pages = cpu_to_le32(sbi->layout.journal_pages);
	ret = nova_alloc_free_lists(sb);
	if (!ret)
		ret = nova_alloc_inode_maps(sb);
	if (ret)
		return ret;
	nova_init_free_lists(sb);

	/*
	 * Each stripe's inode table and journal page are the first blocks of
	 * its own region (deterministic: mkfs.nova computes the same).
	 */
	for (i = 0; i < sbi->layout.stripes; i++) {
		unsigned long blk;
		u64 joff;

		ret = nova_new_blocks(sb, &blk, itable_blocks, i, true);
		if (ret < 0)
			return ret;
		nova_store_le64(&nova_inode_table(sb, i)->log_head,
				nova_block_off(blk));
		ret = nova_inode_map_add_block(sb, i, nova_block_off(blk));
		if (ret)
			return ret;
		ret = nova_new_blocks(sb, &blk, 1, i, true);
		if (ret < 0)
			return ret;
		joff = nova_block_off(blk);
		nova_journal_ptr(sb, i)->journal_head = cpu_to_le64(joff);
		nova_journal_ptr(sb, i)->journal_tail = cpu_to_le64(joff);
		nova_persist(nova_journal_ptr(sb, i), sizeof(struct nova_journal_ptr));
	}

	/* the reserved inode numbers are never allocated from the tables */
	for (i = 0; i < NOVA_NORMAL_INODE_START; i++)
		nova_inode_map_set(sb, i);
	atomic64_set(&sbi->inodes_used, 1);

	nova_init_root_inode(sb, ctx->set & NOVA_SET_MODE ? ctx->mode : 0755,
			     ctx->set & NOVA_SET_UID ? ctx->uid : current_fsuid(),
			     ctx->set & NOVA_SET_GID ? ctx->gid : current_fsgid());
	/* replica of the reserved inodes */
	nova_memcpy_nt(nova_get_block(sb, nova_block_off(sbi->layout.num_blocks - 2)),
		       nova_get_block(sb, nova_block_off(NOVA_RESERVED_INODE_BLOCK)),
		       NOVA_BLOCK_SIZE);
	nova_fence();

	s->s_magic = cpu_to_le32(NOVA_SUPER_MAGIC);
	s->s_version = cpu_to_le32(NOVA_FORMAT_VERSION);
	s->s_blocksize = cpu_to_le32(NOVA_BLOCK_SIZE);
	s->s_size = cpu_to_le64(size);
	s->s_num_blocks = cpu_to_le64(sbi->layout.num_blocks);
	generate_random_uuid(s->s_uuid);
	s->s_stripes = cpu_to_le32(sbi->layout.stripes);
	s->s_inode_size = cpu_to_le32(sizeof(struct nova_inode));
	s->s_itable_block_size = cpu_to_le32(sbi->layout.itable_block_size);
	s->s_mkfs_time = cpu_to_le64(nova_now_ns());
	nova_sync_super(sb);

	pr_info("NOVA (%s): created file system of %llu bytes, %u stripes, uuid %pU\n",
		sb->s_id, size, sbi->layout.stripes, s->s_uuid);
	return 0;
}

static int nova_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct nova_sb_info *sbi;
	struct inode *root;
	int ret;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	sbi->sb = sb;
	mutex_init(&sbi->s_lock);
	nova_share_init(sb);
	nova_error_limit_init(sbi);
	INIT_WORK(&sbi->error_work, nova_error_work);
	sbi->stats.c = alloc_percpu(struct nova_counters);
	if (!sbi->stats.c)
		return -ENOMEM;
	sbi->s_mount_opt = ctx->mount_opt;
	if (!(sbi->s_mount_opt & NOVA_MOUNT_ERRORS_MASK))
		sbi->s_mount_opt |= NOVA_MOUNT_ERRORS_CONT;
	if (ctx->set & NOVA_SET_DBGMASK)
		sbi->dbgmask = ctx->dbgmask;

	if (nova_test_opt(sbi, NORECOVERY) && nova_test_opt(sbi, FORMAT))
		return invalfc(fc, "init and norecovery exclude each other");
	if (!sb_set_blocksize(sb, NOVA_BLOCK_SIZE))
		return invalfc(fc, "%s: cannot use a 4096-byte block size",
			       sb->s_id);
	ret = nova_map_device(sb, fc);
	if (ret)
		return ret;

	if (nova_test_opt(sbi, FORMAT)) {
		if (sb_rdonly(sb))
			return invalfc(fc, "init needs a read-write mount");
		ret = nova_format(sb, fc, ctx);
		if (!ret)
			ret = nova_journal_init(sb);
		if (ret)
			return ret;
	} else {
		if (ctx->set & (NOVA_SET_MODE | NOVA_SET_UID | NOVA_SET_GID))
			pr_info("NOVA (%s): mode=, uid= and gid= apply only with init\n",
				sb->s_id);
		ret = nova_load_super(sb, fc);
		if (ret)
			return ret;
		if (!sb_rdonly(sb) && nova_unknown_ro_compat(sbi)) {
			errorfc(fc, "%s: unsupported read-only compatible features 0x%llx: mount it read-only",
				sb->s_id, nova_unknown_ro_compat(sbi));
			return -EROFS;
		}
		/* it would read ciphertext as data and write plaintext */
		if (!IS_ENABLED(CONFIG_FS_ENCRYPTION) &&
		    (sbi->s_super.s_feature_incompat &
		     cpu_to_le64(NOVA_FEATURE_INCOMPAT_ENCRYPT)))
			return invalfc(fc, "%s: encrypted files, and this kernel has no CONFIG_FS_ENCRYPTION",
				       sb->s_id);
		if (le32_to_cpu(sbi->s_super.s_state) & NOVA_STATE_ERROR)
			pr_warn("NOVA (%s): mounting a file system with errors, running fsck.nova is recommended\n",
				sb->s_id);
		nova_layout_of_super(&sbi->s_super, &sbi->layout);
		ret = nova_alloc_free_lists(sb);
		if (!ret)
			ret = nova_alloc_inode_maps(sb);
		if (!ret)
			ret = nova_journal_init(sb);
		if (ret)
			return ret;
		ret = nova_journal_check(sb);
		if (ret < 0)
			return invalfc(fc, "%s: cannot recover the journals, run fsck.nova",
				       sb->s_id);
		/*
		 * Like ext4, a read-only mount still rolls journals back; on
		 * a read-only device it cannot, and a half-done operation
		 * must not show: refuse, as ext4 does.  Unless norecovery
		 * (read-only) asks to see the file system as it is.
		 */
		if (ret && nova_test_opt(sbi, NORECOVERY)) {
			/* as ext4: nothing may be written over such journals */
			if (!sb_rdonly(sb))
				return invalfc(fc, "%s: %d journal entries need recovery: norecovery needs a read-only mount",
					       sb->s_id, ret);
			pr_warn("NOVA (%s): norecovery: %d journal entries not rolled back, half-done operations may show\n",
				sb->s_id, ret);
			sbi->recovery_skipped = true;
			ret = 0;
		}
		if (ret && bdev_read_only(sb->s_bdev)) {
			errorfc(fc, "%s: %d journal entries need recovery but the device is read-only",
				sb->s_id, ret);
			return -EROFS;
		}
		if (ret)
			nova_journal_recover(sb);
		ret = -EUCLEAN;
		/*
		 * Shared blocks' reference counts are not saved: a file
		 * system with clones is scanned at every mount (share.c)
		 */
		if ((le32_to_cpu(sbi->s_super.s_state) & NOVA_STATE_CLEAN) &&
		    !nova_reflink_enabled(sb)) {
			ret = nova_restore_snapshot(sb);
			if (ret == -ENOMEM)
				return ret;
			/* (it left nothing behind: the scan starts afresh) */
			if (ret)
				pr_warn("NOVA (%s): clean-unmount snapshot unusable, scanning\n",
					sb->s_id);
		}
		if (ret)
			ret = nova_rebuild_allocator(sb);
		if (ret == -ENOMEM)
			return ret;
		if (ret == -EINTR) {
			pr_warn("NOVA (%s): mount killed during the recovery scan\n",
				sb->s_id);
			return ret;
		}
		if (ret)
			return invalfc(fc, "%s: file system is corrupt, run fsck.nova",
				       sb->s_id);
	}

	sb->s_magic = NOVA_SUPER_MAGIC;
	sb->s_op = &nova_sops;
	sb->s_maxbytes = NOVA_MAX_FILE_SIZE;
	sb->s_time_gran = 1;
	/*
	 * Times are signed 64-bit nanoseconds on pmem.  One second inside
	 * the limits, so that every second of the range converts with any
	 * tv_nsec, without timespec64_to_ns() saturating.
	 */
	sb->s_time_min = S64_MIN / NSEC_PER_SEC + 1;
	sb->s_time_max = S64_MAX / NSEC_PER_SEC - 1;
	sb->s_max_links = NOVA_LINK_MAX;
	/* 1/256 of the device, 64 to 1024 blocks, for deletions on a full one */
	sbi->reserved_blocks = clamp_t(unsigned long, sbi->layout.num_blocks / 256, 64, 1024);
	sb->s_flags |= SB_NOSEC;
	sb->s_xattr = nova_xattr_handlers;
	/* before the dentry operations are chosen (compat.h) */
	ret = nova_casefold_mount(sb);
	if (ret)
		return ret;
	nova_crypt_init_sb(sb);
	sb->s_export_op = &nova_export_ops;
	nova_quota_setup(sb);
	if (!nova_test_opt(sbi, NOACL))
		sb->s_flags |= SB_POSIXACL;
	atomic_set(&sbi->next_generation, get_random_u32());
	nova_set_uuid(sb, sbi->s_super.s_uuid);

	root = nova_iget(sb, NOVA_ROOT_INO);
	if (IS_ERR(root))
		return invalfc(fc, "%s: cannot read the root inode (%ld)",
			       sb->s_id, PTR_ERR(root));
	if (!S_ISDIR(root->i_mode)) {
		iput(root);
		return invalfc(fc, "%s: root inode is not a directory", sb->s_id);
	}
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	nova_set_root_d_ops(sb);

	if (!sb_rdonly(sb)) {
		struct nova_super_block *s = &sbi->s_super;
		bool prj_current;

		mutex_lock(&sbi->s_lock);
		prj_current = nova_prj_current(sbi);
		s->s_state = cpu_to_le32(le32_to_cpu(s->s_state) &
					 ~(NOVA_STATE_CLEAN | NOVA_STATE_PRJQUOTA));
		s->s_mount_time = cpu_to_le64(nova_now_ns());
		le32_add_cpu(&s->s_mount_count, 1);
		nova_sync_super(sb);
		mutex_unlock(&sbi->s_lock);
		/* (put_super unmounts cleanly after a failure here) */
		if (nova_test_opt(sbi, PRJQUOTA)) {
			ret = nova_prjquota_enable(sb, prj_current);
			if (ret)
				return ret;
		}
	}
	/* mounted: errors are recorded from now on, those seen so far too */
	WRITE_ONCE(sbi->record_errors, !bdev_read_only(sb->s_bdev) &&
					 !sbi->recovery_skipped);
	if (READ_ONCE(sbi->errors_seen))
		nova_record_error(sb);
	nova_proc_register(sb);
	pr_info("NOVA (%s): mounted, %llu blocks, %lu free, %u stripes\n",
		sb->s_id, sbi->layout.num_blocks, nova_count_free_blocks(sb),
		sbi->layout.stripes);
	return 0;
}

/*
 * Clean unmount (or remount read-only): save the allocator snapshot, then
 * set the clean flag with the super block write, the commit point.  If
 * the snapshot cannot be written, the next mount scans.
 */
static void nova_mark_clean(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	int ret;

	/*
	 * Not clean, the next mount scans, with inodes unlinked while still
	 * open, which a forced read-only remount (sysrq-u) leaves: only the
	 * scan reclaims them.  (Damage this mount found stays mountable, as
	 * on ext4: NOVA_STATE_ERROR makes the next fsck.nova check it all.)
	 */
	if (atomic_long_read(&sb->s_remove_count)) {
		pr_warn("NOVA (%s): unlinked inodes still open: not marked clean, the next mount reclaims them\n",
			sb->s_id);
		return;
	}
	ret = nova_save_snapshot(sb);

	NOVA_CRASH_POINT(CP_SNAPSHOT_SAVED);
	mutex_lock(&sbi->s_lock);
	if (!ret)
		sbi->s_super.s_state |= cpu_to_le32(NOVA_STATE_CLEAN);
	/* the project quota file was written back: no count at its next use */
	if (!ret && sbi->prj_written)
		sbi->s_super.s_state |= cpu_to_le32(NOVA_STATE_PRJQUOTA);
	else
		sbi->s_super.s_state &= ~cpu_to_le32(NOVA_STATE_PRJQUOTA);
	nova_sync_super(sb);
	mutex_unlock(&sbi->s_lock);
}

static void nova_put_super(struct super_block *sb)
{
	/* the error state is in the super block before its last write */
	flush_work(&NOVA_SB(sb)->error_work);
	nova_write_pending_error(sb);
	/* the quota files' last writes come before the clean state */
	nova_quota_off_umount(sb);
	nova_proc_unregister(sb);
	/*
	 * after a shutdown the next mount recovers, as after a power cut;
	 * after an error (errors=remount-ro) it scans too
	 */
	if (!sb_rdonly(sb) && !nova_emergency_state(sb))
		nova_mark_clean(sb);
}

static int nova_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long free = nova_count_free_blocks(sb);
	u64 id = huge_encode_dev(sb->s_bdev->bd_dev);

	buf->f_type = NOVA_SUPER_MAGIC;
	buf->f_bsize = NOVA_BLOCK_SIZE;
	buf->f_frsize = NOVA_BLOCK_SIZE;
	buf->f_blocks = sbi->layout.num_blocks;
	buf->f_bfree = free;
	buf->f_bavail = free > sbi->reserved_blocks ? free - sbi->reserved_blocks : 0;
	/* an inode table block of 4 KiB holds 31 inodes */
	buf->f_ffree = free * (NOVA_BLOCK_SIZE / sizeof(struct nova_inode) - 1);
	buf->f_files = buf->f_ffree + atomic64_read(&sbi->inodes_used);
	buf->f_namelen = NOVA_NAME_LEN;
	buf->f_fsid = u64_to_fsid(id);
	nova_statfs_project(d_inode(dentry), buf);
	return 0;
}

static int nova_sync_fs(struct super_block *sb, int wait)
{
	/* EIO after a shutdown, EROFS after an error (as ext4) */
	int ret = nova_emergency_state(sb);

	if (ret)
		return ret;
	/* the quota usage lives in DRAM until written back */
	dquot_writeback_dquots(sb, -1);
	/* every update is durable when its system call returns */
	nova_fence();
	return 0;
}

/*
 * FIFREEZE: freeze_super() has stopped writes, page faults and internal
 * writes (eviction of deleted inodes) and synced: the times that in-place
 * writes kept in DRAM are logged.  Everything else was durable when its
 * call returned; the fence orders the last of it.  Nothing to undo at the
 * thaw.
 */
static int nova_freeze_fs(struct super_block *sb)
{
	nova_fence();
	return 0;
}

static int nova_unfreeze_fs(struct super_block *sb)
{
	/* (the thaw still holds the freeze: this write is the fs's own) */
	nova_write_pending_error(sb);
	return 0;
}

static int nova_show_options(struct seq_file *seq, struct dentry *root)
{
	struct nova_sb_info *sbi = NOVA_SB(root->d_sb);

	if (nova_test_opt(sbi, ERRORS_RO))
		seq_puts(seq, ",errors=remount-ro");
	else if (nova_test_opt(sbi, ERRORS_PANIC))
		seq_puts(seq, ",errors=panic");
	else
		seq_puts(seq, ",errors=continue");
	if (sbi->dbgmask)
		seq_printf(seq, ",dbgmask=%u", sbi->dbgmask);
	if (nova_test_opt(sbi, INPLACE))
		seq_puts(seq, ",inplace_data_updates=1");
	if (nova_test_opt(sbi, NOACL))
		seq_puts(seq, ",noacl");
	if (nova_test_opt(sbi, NORECOVERY))
		seq_puts(seq, ",norecovery");
	if (nova_test_opt(sbi, USRQUOTA))
		seq_puts(seq, ",usrquota");
	if (nova_test_opt(sbi, GRPQUOTA))
		seq_puts(seq, ",grpquota");
	if (nova_test_opt(sbi, PRJQUOTA))
		seq_puts(seq, ",prjquota");
	seq_puts(seq, ",dax");
	/* read-only after an error, as ext4 shows it (the VFS shows rw) */
	if (nova_emergency_state(root->d_sb) == -EROFS)
		seq_puts(seq, ",emergency_ro");
	return 0;
}

static const struct super_operations nova_sops = {
	.alloc_inode	= nova_alloc_inode,
	.free_inode	= nova_free_inode,
	.evict_inode	= nova_evict_inode,
	.drop_inode	= nova_drop_inode,
	.dirty_inode	= nova_dirty_inode,
	.write_inode	= nova_write_inode,
	.put_super	= nova_put_super,
	.statfs		= nova_statfs,
	.sync_fs	= nova_sync_fs,
	.freeze_fs	= nova_freeze_fs,
	.unfreeze_fs	= nova_unfreeze_fs,
	.show_options	= nova_show_options,
	.quota_read	= nova_quota_read,
	.quota_write	= nova_quota_write,
	.get_dquots	= nova_get_dquots,
#ifdef HAVE_SOP_SHUTDOWN
	.shutdown	= nova_device_gone,
#endif
};

static int nova_get_tree(struct fs_context *fc)
{
	return get_tree_bdev(fc, nova_fill_super);
}

/* Would remount @fc (read-write) turn on project quotas that need a count? */
static bool nova_remount_needs_prj_count(struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct super_block *sb = fc->root->d_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	bool want, current_usage;

	want = ctx->quota_mask & NOVA_MOUNT_PRJQUOTA ?
	       ctx->mount_opt & NOVA_MOUNT_PRJQUOTA : nova_test_opt(sbi, PRJQUOTA);
	if (!want || sb_has_quota_loaded(sb, PRJQUOTA))
		return false;
	/* read-only since a clean unmount that wrote the file back */
	mutex_lock(&sbi->s_lock);
	current_usage = sb_rdonly(sb) && nova_prj_current(sbi);
	mutex_unlock(&sbi->s_lock);
	return !current_usage;
}

static int nova_reconfigure(struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct super_block *sb = fc->root->d_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	/* what a failed switch to read-write restores (as ext4) */
	unsigned long old_opt = sbi->s_mount_opt, old_acl = sb->s_flags & SB_POSIXACL;
	int ret;

	if (nova_is_shutdown(sb)) {
		errorfc(fc, "%s is shut down: unmount it and mount it again", sb->s_id);
		return -EIO;
	}
	/*
	 * As ext4, which refuses the switch between ro and rw after an
	 * error: SB_RDONLY was never set, so remount,rw is refused too
	 */
	if (nova_emergency_state(sb)) {
		errorfc(fc, "%s is read-only after an error (errors=remount-ro): unmount it, run fsck.nova and mount it again",
			sb->s_id);
		return -EROFS;
	}
	if (ctx->mount_opt & NOVA_MOUNT_FORMAT)
		return invalfc(fc, "init is not allowed on remount");
	if (!(fc->sb_flags & SB_RDONLY) && nova_unknown_ro_compat(sbi)) {
		errorfc(fc, "%s: unsupported read-only compatible features 0x%llx: it stays read-only",
			sb->s_id, nova_unknown_ro_compat(sbi));
		return -EROFS;
	}
	/* the journals were not rolled back: unmount and mount to recover */
	if (!(fc->sb_flags & SB_RDONLY) && sbi->recovery_skipped)
		return invalfc(fc, "%s: journals not recovered (norecovery): unmount and mount it to remount read-write",
			       sb->s_id);
	/*
	 * Orphans a mount of a read-only device could not reclaim: their
	 * blocks are free in DRAM while their inodes still hold them
	 */
	if (!(fc->sb_flags & SB_RDONLY) && sb_rdonly(sb) && sbi->orphans_left) {
		errorfc(fc, "%s: %lu unlinked inodes were left when the device was read-only: unmount and mount it read-write",
			sb->s_id, sbi->orphans_left);
		return -EROFS;
	}
	if (ctx->set & (NOVA_SET_MODE | NOVA_SET_UID | NOVA_SET_GID))
		return invalfc(fc, "mode=, uid= and gid= cannot be changed on remount");
	/* as ext4: noquota cannot turn loaded quotas off under their users */
	if ((ctx->set & NOVA_SET_QUOTA) && sb_any_quota_loaded(sb) &&
	    !(ctx->mount_opt & ctx->quota_mask & NOVA_MOUNT_QUOTA))
		return invalfc(fc, "%s: cannot change quota options while quotas are on",
			       sb->s_id);
	/*
	 * Project usage is counted only at a mount, before anything writes:
	 * a remount may turn project quotas on only if the file is current
	 */
	if (!(fc->sb_flags & SB_RDONLY) && nova_remount_needs_prj_count(fc))
		return invalfc(fc, "%s: project quotas need their usage counted: unmount and mount with prjquota",
			       sb->s_id);

	sync_filesystem(sb);
	if (ctx->set & NOVA_SET_ERRORS) {
		sbi->s_mount_opt &= ~NOVA_MOUNT_ERRORS_MASK;
		sbi->s_mount_opt |= ctx->mount_opt & NOVA_MOUNT_ERRORS_MASK;
	}
	if (ctx->set & NOVA_SET_DBGMASK)
		sbi->dbgmask = ctx->dbgmask;
	if (ctx->set & NOVA_SET_INPLACE) {
		sbi->s_mount_opt &= ~NOVA_MOUNT_INPLACE;
		sbi->s_mount_opt |= ctx->mount_opt & NOVA_MOUNT_INPLACE;
	}
	if (ctx->set & NOVA_SET_QUOTA) {
		/* only the quota options given change, as in ext4 */
		sbi->s_mount_opt &= ~ctx->quota_mask;
		sbi->s_mount_opt |= ctx->mount_opt & ctx->quota_mask;
	}
	if (ctx->set & NOVA_SET_ACL) {
		sbi->s_mount_opt &= ~NOVA_MOUNT_NOACL;
		sbi->s_mount_opt |= ctx->mount_opt & NOVA_MOUNT_NOACL;
		sb->s_flags = (sb->s_flags & ~SB_POSIXACL) |
			      (nova_test_opt(sbi, NOACL) ? 0 : SB_POSIXACL);
	}

	if ((fc->sb_flags & SB_RDONLY) && !sb_rdonly(sb)) {
		/* the quota files are written back and closed until rw */
		ret = dquot_suspend(sb, -1);
		if (ret)
			return ret;
		sbi->prj_written = sb_has_quota_suspended(sb, PRJQUOTA) &&
				   !sbi->prj_stale;
		nova_mark_clean(sb);
	} else if (!(fc->sb_flags & SB_RDONLY) && sb_rdonly(sb)) {
		bool was_clean, was_prj;

		mutex_lock(&sbi->s_lock);
		was_clean = sbi->s_super.s_state & cpu_to_le32(NOVA_STATE_CLEAN);
		was_prj = nova_prj_current(sbi);
		if (was_clean) {
			sbi->s_super.s_state &= ~cpu_to_le32(NOVA_STATE_CLEAN |
							     NOVA_STATE_PRJQUOTA);
			nova_sync_super(sb);
			nova_discard_snapshot(sb);
		}
		mutex_unlock(&sbi->s_lock);
		sbi->prj_written = false;
		/* read-write before the quota files are opened again */
		sb->s_flags &= ~SB_RDONLY;
		dquot_resume(sb, -1);
		/* (a count was needed: refused above) */
		if (!nova_test_opt(sbi, PRJQUOTA)) {
			nova_prjquota_disable(sb);
			return 0;
		}
		ret = nova_prjquota_enable(sb, true);
		if (ret) {
			/*
			 * it stays read-only with its old options and state,
			 * as ext4 (the enable wrote nothing: it needed no count)
			 */
			dquot_suspend(sb, -1);
			sb->s_flags |= SB_RDONLY;
			sb->s_flags = (sb->s_flags & ~SB_POSIXACL) | old_acl;
			sbi->s_mount_opt = old_opt;
			sbi->prj_written = was_prj;
			if (was_clean)
				nova_mark_clean(sb);
			errorfc(fc, "%s: project quotas cannot be turned on: it stays read-only",
				sb->s_id);
			return ret;
		}
	} else if (!sb_rdonly(sb) && !nova_test_opt(sbi, PRJQUOTA)) {
		/* prjquota turned off (turning it on needs a count: refused) */
		nova_prjquota_disable(sb);
	}
	return 0;
}

static void nova_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations nova_context_ops = {
	.parse_param	= nova_parse_param,
	.get_tree	= nova_get_tree,
	.reconfigure	= nova_reconfigure,
	.free		= nova_free_fc,
};

static int nova_init_fs_context(struct fs_context *fc)
{
	struct nova_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE) {
		ctx->mount_opt = NOVA_SB(fc->root->d_sb)->s_mount_opt &
				 (NOVA_MOUNT_ERRORS_MASK | NOVA_MOUNT_INPLACE |
				  NOVA_MOUNT_NOACL);
	}
	fc->fs_private = ctx;
	fc->ops = &nova_context_ops;
	return 0;
}

static void nova_kill_sb(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	kill_block_super(sb);
	nova_casefold_unmount(sb);
	if (sbi) {
		/* (a failed mount calls no put_super) */
		WRITE_ONCE(sbi->record_errors, false);
		flush_work(&sbi->error_work);
		nova_error_suppressed(sb);
		nova_free_free_lists(sb);
		nova_free_inode_maps(sb);
		nova_journal_free(sb);
		nova_share_destroy(sb);
		mutex_lock(&nova_holder_lock);
		fs_put_dax(sbi->s_dax_dev, sbi->dax_holder ? sb : NULL);
		mutex_unlock(&nova_holder_lock);
		nova_unpin_device(sbi);
		free_percpu(sbi->stats.c);
		kfree(sbi);
	}
}

static struct file_system_type nova_fs_type = {
	.owner		= THIS_MODULE,
	.name		= NOVA_FS_NAME,
	.init_fs_context = nova_init_fs_context,
	.parameters	= nova_fs_parameters,
	.kill_sb	= nova_kill_sb,
	.fs_flags	= FS_REQUIRES_DEV | FS_ALLOW_IDMAP,
};
MODULE_ALIAS_FS("NOVA");

static int __init init_nova_fs(void)
{
	int ret;

	ret = nova_stats_init();
	if (ret)
		return ret;
	ret = nova_init_range_cache();
	if (ret)
		goto out_stats;
	ret = nova_init_inode_cache();
	if (ret)
		goto out_range;
	ret = register_filesystem(&nova_fs_type);
	if (ret)
		goto out_inode;
	return 0;
out_inode:
	nova_destroy_inode_cache();
out_range:
	nova_destroy_range_cache();
out_stats:
	nova_stats_exit();
	return ret;
}

static void __exit exit_nova_fs(void)
{
	unregister_filesystem(&nova_fs_type);
	nova_destroy_inode_cache();
	nova_destroy_range_cache();
	nova_stats_exit();
}

module_init(init_nova_fs);
module_exit(exit_nova_fs);

MODULE_AUTHOR("NOVA for Linux developers");
MODULE_DESCRIPTION("NOVA: log-structured file system for persistent memory");
MODULE_LICENSE("GPL");
MODULE_VERSION(NOVA_VERSION);
