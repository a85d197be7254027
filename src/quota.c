// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA disk quotas: user and group quotas of the VFS quota subsystem in
 * its quota_v2 format, kept in quota files that are ordinary NOVA files
 * (aquota.user and aquota.group, made by quotacheck and turned on by
 * quotaon), as ext2 and ext4 without the quota feature do.
 *
 * Space is counted in whole 4 KiB blocks, exactly as st_blocks: a file's
 * mapped data pages, a symlink's block, a directory's log pages (its
 * entries: ext4 counts a directory's blocks) and a non-directory's
 * extended attributes (nova_xattr_quota_blocks()).  The rest of the logs
 * of other inodes is metadata and counts as nothing, as in st_blocks (an
 * extent tree, which ext4 counts, is NOVA's write entries).  The dquot calls
 * keep i_blocks: whatever maps new pages charges them before its commit
 * (EDQUOT then stops it with nothing committed), and nova_index_set(),
 * where the mapped page count changes, settles the charge with the pages
 * it really mapped and releases the pages that stopped being mapped.
 * Only a log replay sets i_blocks directly, from the replayed index.
 *
 * As with ext2, the usage in the quota files is only as current as the
 * last dquot write-back (sync, quotaoff, unmount): after a power cut,
 * quotacheck recounts it.
 *
 * The quota files are read and written like any NOVA file, through the
 * read and the copy-on-write paths (nova_kernel_read() and
 * nova_kernel_write()).  The quota code writes different dquots of one
 * file at once and holds its own locks (dq_lock, dqio_sem) while it
 * does, and a dquot is written back while the inode lock of the file
 * whose owner changes is held: the quota file's inode lock would invert
 * that order, so the writes are serialized by sbi->quota_write_lock
 * instead (as ext2 and ext4 do not take it either; nobody else may
 * write a quota file in use).
 *
 * Project quotas are ext4's: an inode's project ID (i_projid, logged in
 * its link-change entries) is set with FS_IOC_FSSETXATTR, and a new
 * inode in a directory with FS_PROJINHERIT_FL takes the directory's.
 * quotacheck and quotaon know no project quota files outside ext4, f2fs
 * and XFS, so their file is a hidden reserved inode (NOVA_PRJQUOTA_INO)
 * that the prjquota mount option turns on.  Its usage is current after
 * a clean unmount with project quotas on (NOVA_STATE_PRJQUOTA); any other
 * mount with prjquota counts it again from every inode, before the file
 * system is in use (there is no quotacheck for it).
 */
#include <linux/quotaops.h>
#include <linux/namei.h>
#include <linux/statfs.h>
#include "nova.h"

nova_dquot_ptr_t *nova_get_dquots(struct inode *inode)
{
	return NOVA_I(inode)->i_dquot;
}

/*
 * The quota code reads one quota file while it writes dquots back to it
 * (dqio_sem is shared for both): a copy-on-write of a quota page frees
 * the old page and may free log pages, so a read that had looked them
 * up could copy another file's bytes.  Reads and writes of the quota
 * files take quota_write_lock.
 */
ssize_t nova_quota_read(struct super_block *sb, int type, char *data,
			size_t len, loff_t off)
{
	ssize_t ret;

	mutex_lock(&NOVA_SB(sb)->quota_write_lock);
	ret = nova_kernel_read(sb_dqopt(sb)->files[type], data, len, off);
	mutex_unlock(&NOVA_SB(sb)->quota_write_lock);
	return ret;
}

ssize_t nova_quota_write(struct super_block *sb, int type,
			 const char *data, size_t len, loff_t off)
{
	struct inode *inode = sb_dqopt(sb)->files[type];
	ssize_t ret;

	mutex_lock(&NOVA_SB(sb)->quota_write_lock);
	ret = nova_kernel_write(inode, data, len, off);
	mutex_unlock(&NOVA_SB(sb)->quota_write_lock);
	if (ret >= 0 && ret < len)
		ret = -ENOSPC;
	/* the quota code does not retry: the file no longer matches */
	if (ret < 0 && type == PRJQUOTA)
		WRITE_ONCE(NOVA_SB(sb)->prj_stale, true);
	/*
	 * (after a shutdown or an error with errors=remount-ro every write
	 * fails: the next mount counts)
	 */
	if (ret < 0 && !nova_emergency_state(sb))
		pr_warn("NOVA (%s): cannot write the quota file of type %d (%zd)\n",
			sb->s_id, type, ret);
	return ret;
}

/*
 * A quota file in use is the quota code's alone, as on ext4: another
 * quota type's file already (EBUSY), and while it is on, immutable and
 * without atime for everybody else (the quota code writes it through
 * nova_quota_write(), which no inode flag stops).  The flags live in
 * the inode in memory only; quota off or the unmount drops them.
 */
static void nova_quota_file_flags(struct inode *inode, bool on)
{
	u32 own = NOVA_I(inode)->header.flags;
	unsigned int f = S_NOATIME | S_IMMUTABLE;

	/* off: the file's own flags (chattr +i, +A) again */
	if (!on)
		f = (own & FS_IMMUTABLE_FL ? S_IMMUTABLE : 0) |
		    (own & FS_NOATIME_FL ? S_NOATIME : 0);
	inode_lock(inode);
	inode_set_flags(inode, f, S_NOATIME | S_IMMUTABLE);
	inode_unlock(inode);
}

static int nova_quota_on(struct super_block *sb, int type, int format_id,
			 const struct path *path)
{
	struct inode *inode = d_inode(path->dentry);
	int ret;

	/* project quotas: the hidden file, by the mount option only */
	if (type == PRJQUOTA)
		return -EINVAL;
	/* the quota file must be on this file system */
	if (path->dentry->d_sb != sb)
		return -EXDEV;
	if (IS_NOQUOTA(inode))
		return -EBUSY;
	ret = dquot_quota_on(sb, type, format_id, path);
	if (!ret)
		nova_quota_file_flags(inode, true);
	return ret;
}

static int nova_quota_off(struct super_block *sb, int type)
{
	struct inode *inode;
	int ret;

	if (type == PRJQUOTA)
		return -EINVAL;
	/* (quotactl holds s_umount: no quota on or off meanwhile) */
	inode = sb_dqopt(sb)->files[type];
	if (inode)
		inode = igrab(inode);
	ret = dquot_quota_off(sb, type);
	if (inode) {
		if (!ret)
			nova_quota_file_flags(inode, false);
		iput(inode);
	}
	return ret;
}

static const struct quotactl_ops nova_quotactl_ops = {
	.quota_on	= nova_quota_on,
	.quota_off	= nova_quota_off,
	.quota_sync	= dquot_quota_sync,
	.get_state	= dquot_get_state,
	.set_info	= dquot_set_dqinfo,
	.get_dqblk	= dquot_get_dqblk,
	.set_dqblk	= dquot_set_dqblk,
	.get_nextdqblk	= dquot_get_next_dqblk,
};

/*
 * A change of owner was transferred in the quota (dquot_transfer()) but
 * not committed: the usage goes back to @uid and @gid.
 */
void nova_quota_transfer_back(struct inode *inode, kuid_t uid, kgid_t gid)
{
	struct iattr ia = {
		.ia_valid = ATTR_UID | ATTR_GID,
		.ia_vfsuid = VFSUIDT_INIT(uid),
		.ia_vfsgid = VFSGIDT_INIT(gid),
	};

	if (dquot_transfer(nova_nop_idmap, inode, &ia))
		pr_warn("NOVA (%s): inode %llu: quota usage not given back to its owner\n",
			inode->i_sb->s_id, nova_ino(inode));
}

static int nova_get_projid(struct inode *inode, kprojid_t *projid)
{
	*projid = make_kprojid(&init_user_ns, NOVA_I(inode)->header.projid);
	return 0;
}

static const struct dquot_operations nova_dquot_ops = {
	.write_dquot	= dquot_commit,
	.acquire_dquot	= dquot_acquire,
	.release_dquot	= dquot_release,
	.mark_dirty	= dquot_mark_dquot_dirty,
	.write_info	= dquot_commit_info,
	.alloc_dquot	= dquot_alloc,
	.destroy_dquot	= dquot_destroy,
	.get_next_id	= dquot_get_next_id,
	.get_projid	= nova_get_projid,
};

/* Quotas of a new super block (nova_fill_super()) */
void nova_quota_setup(struct super_block *sb)
{
	mutex_init(&NOVA_SB(sb)->quota_write_lock);
	sb->dq_op = &nova_dquot_ops;
	sb->s_qcop = &nova_quotactl_ops;
	sb->s_quota_types = QTYPE_MASK_USR | QTYPE_MASK_GRP | QTYPE_MASK_PRJ;
}

/*
 * Unmount: write back and close the quota files before the last state.
 * The project quota file is current if it was on and written back.
 */
void nova_quota_off_umount(struct super_block *sb)
{
	bool prj = sb_has_quota_loaded(sb, PRJQUOTA);
	int type;

	for (type = 0; type < MAXQUOTAS; type++) {
		int ret = dquot_quota_off(sb, type);

		if (type == PRJQUOTA)
			NOVA_SB(sb)->prj_written = prj && !ret &&
				!NOVA_SB(sb)->prj_stale;
	}
}

/*
 * Charge @n (> 0) new blocks of @inode before they are committed:
 * -EDQUOT when over a hard limit.  Settled by nova_index_set() and
 * nova_quota_release().  (nova_quota_charge() in nova.h)
 */
int __nova_quota_charge(struct inode *inode, unsigned long n)
{
	return dquot_alloc_block_nodirty(inode, n);
}

/* Give back @n (> 0) charged blocks (nova_quota_release() in nova.h) */
void __nova_quota_release(struct inode *inode, unsigned long n)
{
	dquot_free_block_nodirty(inode, n);
}

/*
 * A directory's log grew (@delta > 0) or shrank by @delta pages (log.c,
 * gc.c); other inodes' logs are not counted.  A growth that may fail
 * (@may_fail: not a removal, which must go through on a full quota as on
 * a full device) gives -EDQUOT over a hard limit.
 */
int nova_quota_log_pages(struct inode *inode, long delta, bool may_fail)
{
	if (!S_ISDIR(inode->i_mode) || !delta)
		return 0;
	if (delta < 0) {
		dquot_free_block_nodirty(inode, -delta);
		return 0;
	}
	if (may_fail)
		return dquot_alloc_block_nodirty(inode, delta);
	return __dquot_alloc_space(inode, (qsize_t)delta << NOVA_BLOCK_SHIFT,
				   DQUOT_SPACE_NOFAIL);
}

/*
 * The blocks a non-directory's extended attributes are charged to its
 * owners and count in its st_blocks: @bytes, their live entry bytes in
 * the log (sih->xattr_bytes), in whole blocks rounded down, so that small
 * attributes (an ACL, a security label) cost nothing, as attributes
 * inside the inode on ext4 and XFS.  A directory's are in the log pages
 * it is charged already.  nova_xattr_commit() charges the change before
 * its commit (EDQUOT stops it), the log replay adds them to i_blocks,
 * eviction gives them back.
 */
unsigned long nova_xattr_quota_blocks(struct inode *inode, s64 bytes)
{
	if (S_ISDIR(inode->i_mode) || bytes <= 0)
		return 0;
	return (u64)bytes >> NOVA_BLOCK_SHIFT;
}

/*
 * @mapped pages of @inode became mapped and @unmapped stopped being
 * mapped; *@charged (NULL: none) blocks were charged for the change
 * ahead and are used first.  What is left of them stays in *@charged
 * for the caller to release.  Pages mapped without a charge ahead (a
 * shift moving pages) cannot be refused any more: charged regardless of
 * limits.  (nova_quota_settle() in nova.h: not called when nothing
 * changed)
 */
void __nova_quota_settle(struct inode *inode, unsigned long mapped,
			 unsigned long unmapped, unsigned long *charged)
{
	unsigned long pre = charged ? min(*charged, mapped) : 0;

	if (charged)
		*charged -= pre;
	if (mapped > pre)
		__dquot_alloc_space(inode, (qsize_t)(mapped - pre) << NOVA_BLOCK_SHIFT,
				    DQUOT_SPACE_NOFAIL);
	nova_quota_release(inode, unmapped);
}

/* ---- project quotas ---- */

/* quota_v2's file header and info block (fs/quota/quotaio_v2.h) */
struct nova_v2_header {
	__le32 magic;
	__le32 version;
	__le32 bgrace;
	__le32 igrace;
	__le32 flags;
	__le32 blocks;		/* 1 KiB blocks: the header and the tree root */
	__le32 free_blk;
	__le32 free_entry;
};

#define NOVA_V2_PRJ_MAGIC	0xd9c03f14	/* V2_INITQMAGICS[PRJQUOTA] */
#define NOVA_V2_VERSION		1		/* QFMT_VFS_V1 */
#define NOVA_V2_BLOCK		1024
#define NOVA_V2_GRACE		(7 * 24 * 3600)	/* quotacheck's default */

/* An empty project quota file: the header, then an empty tree root */
static int nova_prjquota_format(struct inode *inode)
{
	struct nova_v2_header *h;
	ssize_t ret;

	h = kzalloc(2 * NOVA_V2_BLOCK, GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->magic = cpu_to_le32(NOVA_V2_PRJ_MAGIC);
	h->version = cpu_to_le32(NOVA_V2_VERSION);
	h->bgrace = cpu_to_le32(NOVA_V2_GRACE);
	h->igrace = cpu_to_le32(NOVA_V2_GRACE);
	h->blocks = cpu_to_le32(2);
	inode_lock(inode);
	/*
	 * a quota file from its first write: charged to nobody, and it may
	 * take the reserve (the first mount with prjquota on a full device)
	 */
	inode->i_flags |= S_NOQUOTA;
	ret = nova_kernel_write(inode, h, 2 * NOVA_V2_BLOCK, 0);
	inode_unlock(inode);
	kfree(h);
	if (ret >= 0 && ret < 2 * NOVA_V2_BLOCK)
		ret = -ENOSPC;
	return ret < 0 ? ret : 0;
}

/*
 * The project quota file, made on first use: the feature first (a module
 * without it would take the unnamed inode for an orphan), then the
 * inode, then its content.  *@fresh: it holds no usage yet.
 */
static struct inode *nova_prjquota_inode(struct super_block *sb, bool *fresh)
{
	struct nova_inode *pi = nova_reserved_inode(sb, NOVA_PRJQUOTA_INO);
	struct inode *inode;
	int ret;

	if (pi->i_valid != NOVA_INODE_VALID) {
		nova_set_feature(sb, &NOVA_SB(sb)->s_super.s_feature_ro_compat,
				 NOVA_FEATURE_RO_COMPAT_PROJECT);
		nova_init_prjquota_inode(sb);
	}
	inode = nova_iget(sb, NOVA_PRJQUOTA_INO);
	if (IS_ERR(inode))
		return inode;
	ret = -EUCLEAN;
	if (!S_ISREG(inode->i_mode))
		goto fail;
	*fresh = !inode->i_size;
	if (!inode->i_size) {
		ret = nova_prjquota_format(inode);
		if (ret)
			goto fail;
	}
	return inode;
fail:
	iput(inode);
	return ERR_PTR(ret);
}

struct nova_prj_usage {
	qsize_t space;
	qsize_t inodes;
};

/* The dquot of project @id (dqget()) */
static struct dquot *nova_prj_dqget(struct super_block *sb, u32 id)
{
	return dqget(sb, make_kqid_projid(make_kprojid(&init_user_ns, id)));
}

struct nova_prj_count {
	struct xarray usage;		/* project ID -> nova_prj_usage */
	unsigned long skipped;		/* inodes not counted */
};

static int nova_prj_count_inode(struct inode *inode, void *arg)
{
	struct nova_prj_count *c = arg;
	u32 id = NOVA_I(inode)->header.projid;
	struct nova_prj_usage *u;

	/* (-1 is no project ID: dqget() refuses it) */
	if (!projid_valid(make_kprojid(&init_user_ns, id))) {
		pr_warn("NOVA (%s): inode %llu: invalid project ID %u: not counted\n",
			inode->i_sb->s_id, nova_ino(inode), id);
		c->skipped++;
		return 0;
	}
	u = xa_load(&c->usage, id);
	if (!u) {
		int ret;

		u = kzalloc(sizeof(*u), GFP_KERNEL);
		if (!u)
			return -ENOMEM;
		ret = xa_err(xa_store(&c->usage, id, u, GFP_KERNEL));
		if (ret) {
			kfree(u);
			return ret;
		}
	}
	u->space += inode_get_bytes(inode);
	u->inodes++;
	return 0;
}

/* Set project @id's usage, as quotacheck does (limits and grace kept) */
static int nova_prj_set_usage(struct super_block *sb, u32 id,
			      const struct nova_prj_usage *u)
{
	struct mem_dqinfo *info = &sb_dqopt(sb)->info[PRJQUOTA];
	time64_t now = ktime_get_real_seconds();
	struct mem_dqblk *d;
	struct dquot *dq;
	int ret;

	dq = nova_prj_dqget(sb, id);
	if (IS_ERR(dq))
		return PTR_ERR(dq);
	spin_lock(&dq->dq_dqb_lock);
	d = &dq->dq_dqb;
	d->dqb_curspace = u ? u->space : 0;
	d->dqb_curinodes = u ? u->inodes : 0;
	if (!d->dqb_bsoftlimit || d->dqb_curspace <= d->dqb_bsoftlimit)
		d->dqb_btime = 0;
	else if (!d->dqb_btime)
		d->dqb_btime = now + info->dqi_bgrace;
	if (!d->dqb_isoftlimit || d->dqb_curinodes <= d->dqb_isoftlimit)
		d->dqb_itime = 0;
	else if (!d->dqb_itime)
		d->dqb_itime = now + info->dqi_igrace;
	spin_unlock(&dq->dq_dqb_lock);
	ret = sb->dq_op->mark_dirty(dq);
	dqput(dq);
	return ret < 0 ? ret : 0;
}

/*
 * Count every project's usage from the inodes and set it in the quota
 * file, the projects it names and no inode uses to none.  At mount,
 * before the file system is in use.
 */
static int nova_prjquota_count(struct super_block *sb)
{
	struct kqid qid = make_kqid_projid(make_kprojid(&init_user_ns, 0));
	struct nova_prj_count c = { .skipped = 0 };
	struct nova_prj_usage *u;
	unsigned long id, unread;
	u64 t0 = ktime_get_ns();
	int ret;

	xa_init(&c.usage);
	ret = nova_walk_inodes(sb, nova_prj_count_inode, &c, &unread);
	/* an inode's error may have made it read-only (errors=remount-ro) */
	if (!ret)
		ret = nova_emergency_state(sb);
	xa_for_each(&c.usage, id, u) {
		if (!ret)
			ret = nova_prj_set_usage(sb, id, u);
	}
	/* the projects the file names that no inode has now */
	while (!ret) {
		ret = sb->dq_op->get_next_id(sb, &qid);
		if (ret == -ENOENT) {
			ret = 0;
			break;
		}
		if (ret)
			break;
		id = from_kprojid(&init_user_ns, qid.projid);
		if (!xa_load(&c.usage, id))
			ret = nova_prj_set_usage(sb, id, NULL);
		if (id >= U32_MAX - 1)
			break;
		qid.projid = make_kprojid(&init_user_ns, id + 1);
	}
	xa_for_each(&c.usage, id, u)
		kfree(u);
	xa_destroy(&c.usage);
	/* not all counted: the next mount counts again */
	if (unread || c.skipped)
		NOVA_SB(sb)->prj_stale = true;
	if (!ret)
		pr_info("NOVA (%s): project quota usage counted in %llu ms%s\n",
			sb->s_id, (ktime_get_ns() - t0) / NSEC_PER_MSEC,
			unread || c.skipped ? " (some inodes not counted)" : "");
	return ret;
}

/*
 * Turn project quotas on (a read-write mount or remount with prjquota):
 * @current_usage says the file's usage matches the file system.
 */
int nova_prjquota_enable(struct super_block *sb, bool current_usage)
{
	bool fresh = false, damaged = false;
	struct inode *inode;
	int ret;

	if (sb_has_quota_loaded(sb, PRJQUOTA))
		return 0;
	inode = nova_prjquota_inode(sb, &fresh);
	if (IS_ERR(inode)) {
		ret = PTR_ERR(inode);
		goto fail;
	}
	NOVA_SB(sb)->prj_stale = false;
	ret = dquot_load_quota_inode(inode, PRJQUOTA, QFMT_VFS_V1,
				     DQUOT_USAGE_ENABLED | DQUOT_LIMITS_ENABLED);
	iput(inode);
	/* (-EINVAL: its header is not that of a project quota file) */
	damaged = ret == -EINVAL;
	if (ret)
		goto fail;
	if (fresh || !current_usage) {
		ret = nova_prjquota_count(sb);
		if (ret) {
			dquot_quota_off(sb, PRJQUOTA);
			goto fail;
		}
	}
	return 0;
fail:
	/*
	 * -EUCLEAN and -EIO come from the file's content: its inode, its
	 * info block or its quota tree (quota_tree.c: a reference out of
	 * range, a cycle, a reference to a data block without the ID's
	 * entry), as a power cut in the middle of a tree update leaves it.
	 * fsck.nova repairs it: the error state makes it look (also -p at
	 * boot), else it checks a clean file system only with -f.
	 */
	damaged |= ret == -EUCLEAN || ret == -EIO;
	pr_err("NOVA (%s): cannot turn project quotas on (%d)%s\n", sb->s_id,
	       ret, damaged ? ": the project quota file is damaged, run fsck.nova -f" : "");
	if (damaged)
		nova_set_error_state(sb);
	return ret;
}

/* A remount without prjquota: written back and closed */
void nova_prjquota_disable(struct super_block *sb)
{
	if (sb_has_quota_loaded(sb, PRJQUOTA))
		dquot_quota_off(sb, PRJQUOTA);
}

/*
 * Before @inode's project ID becomes @projid: *@dq gets the new
 * project's dquot (NULL when project quotas are off), for
 * nova_prjquota_move() once the new ID is appended to the log, and
 * nova_prjquota_put() after.
 */
int nova_prjquota_get(struct inode *inode, u32 projid, struct dquot **dq)
{
	struct super_block *sb = inode->i_sb;
	struct dquot *d;
	int ret;

	*dq = NULL;
	/* before the ID is logged: a module without it would reset it */
	if (projid)
		nova_set_feature(sb, &NOVA_SB(sb)->s_super.s_feature_ro_compat,
				 NOVA_FEATURE_RO_COMPAT_PROJECT);
	ret = dquot_initialize(inode);
	if (ret)
		return ret;
	d = nova_prj_dqget(sb, projid);
	if (IS_ERR(d)) {
		ret = PTR_ERR(d);
		/* project quotas off: nothing to move */
		return ret == -ESRCH ? 0 : ret;
	}
	*dq = d;
	return 0;
}

/*
 * Move @inode's usage to the project of *@dq (EDQUOT over its hard
 * limits), between the append of the entry with the new ID and its
 * commit, which cannot fail: the usage moves if and only if the ID
 * does.  It only marks the dquots dirty (no quota file write): this may
 * run under the inode's log mutex.  On success *@dq is the old project's
 * dquot, whose reference the inode held (nova_prjquota_put() drops it).
 */
int nova_prjquota_move(struct inode *inode, struct dquot **dq)
{
	struct dquot *to[MAXQUOTAS] = { };
	int ret;

	if (!*dq)
		return 0;
	to[PRJQUOTA] = *dq;
	ret = __dquot_transfer(inode, to);
	*dq = to[PRJQUOTA];
	return ret;
}

void nova_prjquota_put(struct dquot *dq)
{
	if (dq)
		dqput(dq);
}

/* link and rename: a project directory takes only its project's inodes */
bool nova_projid_differs(struct inode *dir, struct inode *inode)
{
	return inode && (READ_ONCE(NOVA_I(dir)->header.flags) & FS_PROJINHERIT_FL) &&
	       NOVA_I(dir)->header.projid != NOVA_I(inode)->header.projid;
}

/*
 * statfs of a project directory with project limits on: the limits and
 * the usage of its project, as ext4 (df shows the project's quota)
 */
void nova_statfs_project(struct inode *inode, struct kstatfs *buf)
{
	struct super_block *sb = inode->i_sb;
	struct dquot *dq;
	u64 limit, used;

	if (!(NOVA_I(inode)->header.flags & FS_PROJINHERIT_FL) ||
	    !sb_has_quota_limits_enabled(sb, PRJQUOTA))
		return;
	dq = nova_prj_dqget(sb, NOVA_I(inode)->header.projid);
	if (IS_ERR(dq))
		return;
	spin_lock(&dq->dq_dqb_lock);
	limit = min_not_zero(dq->dq_dqb.dqb_bsoftlimit,
			     dq->dq_dqb.dqb_bhardlimit) >> NOVA_BLOCK_SHIFT;
	if (limit) {
		used = (dq->dq_dqb.dqb_curspace + dq->dq_dqb.dqb_rsvspace) >>
		       NOVA_BLOCK_SHIFT;
		buf->f_blocks = min(buf->f_blocks, limit);
		buf->f_bfree = min(buf->f_bfree, limit > used ? limit - used : 0);
		buf->f_bavail = min(buf->f_bavail, limit > used ? limit - used : 0);
	}
	limit = min_not_zero(dq->dq_dqb.dqb_isoftlimit,
			     dq->dq_dqb.dqb_ihardlimit);
	if (limit) {
		used = dq->dq_dqb.dqb_curinodes;
		buf->f_files = min(buf->f_files, limit);
		buf->f_ffree = min(buf->f_ffree, limit > used ? limit - used : 0);
	}
	spin_unlock(&dq->dq_dqb_lock);
	dqput(dq);
}
