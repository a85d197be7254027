// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA namespace operations: lookup, create, mknod, symlink, mkdir,
 * link, unlink, rmdir, rename (plain, RENAME_NOREPLACE, RENAME_EXCHANGE,
 * RENAME_WHITEOUT),
 * O_TMPFILE.
 *
 * Every operation has the same shape, and the same crash ordering:
 *
 *   1. append the new log entries of every inode involved at working
 *      tails (nothing visible yet; may fail with ENOSPC: then nothing
 *      happened);
 *   2. update the DRAM directory index where that can fail (ENOMEM);
 *   3. one lite-journal transaction (nova_op_commit()): journal the old
 *      log tails (and a new inode's valid word), then store each new tail
 *      (and the valid byte) durably, then commit the journal.  A crash in
 *      between rolls every tail back at the next mount: all or nothing;
 *   4. the DRAM changes that cannot fail.
 *
 * Callers hold the VFS locks of every directory and inode involved.
 */
#include "nova.h"

/* Times an operation changes, put back if it fails before its commit */
struct nova_op_times {
	struct inode *inode;
	struct timespec64 mtime, ctime;
};

/* The inodes one operation touches and their working log tails */
struct nova_op {
	struct inode *inode[4];
	u64 tail[4];
	int n;
	u64 valid_word;		/* new inode's word 0, 0 if none */
	struct inode *new_inode;
	struct nova_op_times saved[4];
	int nsaved;
};

/* Remember @inode's times before the operation changes them */
static void nova_op_save_times(struct nova_op *op, struct inode *inode)
{
	int i;

	for (i = 0; i < op->nsaved; i++)
		if (op->saved[i].inode == inode)
			return;
	if (WARN_ON_ONCE(op->nsaved == ARRAY_SIZE(op->saved)))
		return;
	op->saved[op->nsaved++] = (struct nova_op_times){
		.inode = inode,
		.mtime = nova_get_mtime(inode),
		.ctime = nova_get_ctime(inode),
	};
}

/* A failed operation: the times it changed in DRAM go back */
static void nova_op_restore_times(struct nova_op *op)
{
	while (op->nsaved--) {
		struct nova_op_times *t = &op->saved[op->nsaved];

		nova_set_mtime(t->inode, t->mtime);
		nova_set_ctime(t->inode, t->ctime);
	}
	op->nsaved = 0;
}

static u64 *nova_op_tail(struct nova_op *op, struct inode *inode)
{
	int i;

	for (i = 0; i < op->n; i++)
		if (op->inode[i] == inode)
			return &op->tail[i];
	if (WARN_ON_ONCE(op->n == ARRAY_SIZE(op->inode)))
		return &op->tail[0];
	/* log appends of one inode are serialised against page faults */
	mutex_lock_nested(&NOVA_I(inode)->header.log_mutex, op->n);
	op->inode[op->n] = inode;
	op->tail[op->n] = NOVA_I(inode)->header.log_tail;
	return &op->tail[op->n++];
}

/* Drop the log mutexes (and anything appended but not committed) */
static void nova_op_abort(struct nova_op *op)
{
	while (op->n--) {
		struct nova_inode_info_header *sih = &NOVA_I(op->inode[op->n])->header;

		sih->pending_lc = 0;
		mutex_unlock(&sih->log_mutex);
	}
}

static void nova_op_commit(struct super_block *sb, struct nova_op *op)
{
	struct nova_tx tx;
	int i;

	nova_journal_begin(sb, &tx);
	for (i = 0; i < op->n; i++) {
		struct nova_inode *pi =
			nova_get_block(sb, NOVA_I(op->inode[i])->header.pi_addr);

		nova_journal_add(sb, &tx, &pi->log_tail);
	}
	if (op->valid_word)
		nova_journal_add(sb, &tx, nova_get_block(sb, op->valid_word));
	nova_journal_start(sb, &tx);
	for (i = 0; i < op->n; i++) {
		nova_log_commit(sb, op->inode[i], op->tail[i]);
		if (i == 0)
			NOVA_CRASH_POINT(CP_JOURNAL_MID);
	}
	if (op->valid_word) {
		struct nova_inode *pi = nova_get_block(sb, op->valid_word);

		pi->i_valid = NOVA_INODE_VALID;
		nova_persist(pi, sizeof(pi->i_valid));
	}
	nova_journal_commit(sb, &tx);
	for (i = 0; i < op->n; i++)
		nova_link_change_committed(op->inode[i]);
}

/* End of a committed operation: garbage-collect logs that asked for it */
static void nova_op_done(struct nova_op *op)
{
	int i;

	for (i = 0; i < op->n; i++)
		if (S_ISDIR(op->inode[i]->i_mode))
			nova_gc_if_pending(op->inode[i]);
	nova_op_abort(op);
}

static struct dentry *nova_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct nova_dir_node *dn;
	struct inode *inode = NULL;

	if (nova_is_shutdown(dir->i_sb))
		return ERR_PTR(-EIO);
	if (dentry->d_name.len > NOVA_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	dn = nova_dir_find(dir, dentry->d_name.name, dentry->d_name.len);
	if (dn) {
		inode = nova_iget(dir->i_sb, dn->ino);
		if (inode == ERR_PTR(-ESTALE)) {
			nova_error(dir->i_sb, "directory %llu: entry '%pd' points to free inode %llu",
				   nova_ino(dir), dentry, dn->ino);
			return ERR_PTR(-EUCLEAN);
		}
	}
	return d_splice_alias(inode, dentry);
}

/* New mtime and ctime of a directory the operation changes */
static void nova_touch_dir(struct nova_op *op, struct inode *dir)
{
	nova_op_save_times(op, dir);
	nova_touch_mctime(dir);
}

/* A new ctime of @inode, @ts */
static void nova_op_set_ctime(struct nova_op *op, struct inode *inode,
			      struct timespec64 ts)
{
	nova_op_save_times(op, inode);
	nova_set_ctime(inode, ts);
}

/* The new object's own initial log: "." and ".." or a symlink target */
static int nova_init_object_log(struct inode *dir, struct inode *inode,
				const char *symname)
{
	u64 tail = 0;
	int ret = 0;

	if (S_ISDIR(inode->i_mode)) {
		ret = nova_append_dentry(inode, &(struct qstr)QSTR_INIT(".", 1),
					 inode->i_ino, S_IFDIR, &tail, NULL, NULL);
		if (!ret)
			ret = nova_append_dentry(inode,
						 &(struct qstr)QSTR_INIT("..", 2),
						 dir->i_ino, S_IFDIR, &tail, NULL,
						 NULL);
		/* what a thorough GC of this directory logs as ".." */
		NOVA_I(inode)->header.parent_ino = dir->i_ino;
	} else if (symname) {
		ret = nova_symlink_write(inode, symname, strlen(symname), &tail);
	}
	/* the inode is not valid yet: its own tail needs no journal */
	if (!ret && tail)
		nova_log_commit(inode->i_sb, inode, tail);
	/* what a thorough GC of this directory writes as ".." (gc.c) */
	if (!ret && S_ISDIR(inode->i_mode))
		NOVA_I(inode)->header.parent_ino = dir->i_ino;
	return ret;
}

static int nova_create_object(nova_idmap_t *idmap, struct inode *dir,
			      struct dentry *dentry, umode_t mode, dev_t rdev,
			      const char *symname)
{
	struct super_block *sb = dir->i_sb;
	struct posix_acl *default_acl = NULL, *acl = NULL;
	struct nova_op op = { };
	struct inode *inode;
	u64 de_off, cookie;
	int ret;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	if (symname && strlen(symname) >= NOVA_BLOCK_SIZE)
		return -ENAMETOOLONG;

	/* the directory's default ACL (or the umask) shapes the mode */
	ret = posix_acl_create(dir, &mode, &default_acl, &acl);
	if (ret)
		return ret;
	inode = nova_new_inode(idmap, dir, mode, rdev, &op.valid_word);
	if (IS_ERR(inode)) {
		ret = PTR_ERR(inode);
		goto out_acl;
	}
	NOVA_CRASH_POINT(CP_CREATE_INODE);
	ret = nova_init_object_log(dir, inode, symname);
	if (!ret)
		ret = nova_init_new_xattrs(dir, inode, &dentry->d_name,
					   default_acl, acl);
	if (ret)
		goto fail;

	if (S_ISDIR(mode))
		inc_nlink(dir);
	nova_touch_dir(&op, dir);
	ret = nova_append_dentry(dir, &dentry->d_name, inode->i_ino, mode,
				 nova_op_tail(&op, dir), &de_off, &cookie);
	if (!ret)
		ret = nova_dir_index_add(dir, dentry->d_name.name,
					 dentry->d_name.len, inode->i_ino,
					 fs_umode_to_dtype(mode), cookie, de_off);
	if (ret) {
		nova_op_abort(&op);
		nova_op_restore_times(&op);
		if (S_ISDIR(mode))
			drop_nlink(dir);
		goto fail;
	}
	nova_op_commit(sb, &op);
	nova_op_done(&op);
	d_instantiate_new(dentry, inode);
	goto out_acl;
fail:
	clear_nlink(inode);
	discard_new_inode(inode);
out_acl:
	posix_acl_release(default_acl);
	posix_acl_release(acl);
	return ret;
}

/* Run a namespace operation under its timer */
#define NOVA_TIMED(dir, cat, call)					\
	({								\
		int __ret;						\
		u64 __t = nova_timer_start();					\
		__ret = (call);						\
		NOVA_TIMER_END(NOVA_SB((dir)->i_sb), cat, __t);		\
		__ret;							\
	})

/*
 * O_TMPFILE: a regular file in no directory.  Its pmem inode is made
 * valid with link count 0 (one durable store, after its own log with
 * any inherited ACLs and labels is committed): a crash while it is open
 * leaves an orphan that the mount scan reclaims, as for an unlinked open
 * file.  linkat() gives it a name like any link (nova_link()).
 */
static int __nova_tmpfile(nova_idmap_t *idmap, struct inode *dir,
			  struct file *file, umode_t mode)
{
	struct posix_acl *default_acl = NULL, *acl = NULL;
	struct nova_inode *pi;
	struct inode *inode;
	u64 valid_word;
	int ret;

	ret = posix_acl_create(dir, &mode, &default_acl, &acl);
	if (ret)
		return ret;
	inode = nova_new_inode(idmap, dir, mode, 0, &valid_word);
	if (IS_ERR(inode)) {
		ret = PTR_ERR(inode);
		goto out_acl;
	}
	ret = nova_init_new_xattrs(dir, inode, &file->f_path.dentry->d_name,
				   default_acl, acl);
	if (ret) {
		clear_nlink(inode);
		discard_new_inode(inode);
		goto out_acl;
	}
	pi = nova_get_block(dir->i_sb, valid_word);
	pi->i_links_count = 0;
	nova_persist(&pi->i_links_count, sizeof(pi->i_links_count));
	pi->i_valid = NOVA_INODE_VALID;
	nova_persist(&pi->i_valid, sizeof(pi->i_valid));
	/* drops the link count to 0 and makes the inode linkable */
	d_tmpfile(file, inode);
	unlock_new_inode(inode);
	ret = finish_open_simple(file, 0);
out_acl:
	posix_acl_release(default_acl);
	posix_acl_release(acl);
	return ret;
}

static int nova_tmpfile(nova_idmap_t *idmap, struct inode *dir,
			struct file *file, umode_t mode)
{
	return NOVA_TIMED(dir, T_CREATE, __nova_tmpfile(idmap, dir, file, mode));
}

static int nova_create(nova_idmap_t *idmap, struct inode *dir,
		       struct dentry *dentry, umode_t mode, bool excl)
{
	return NOVA_TIMED(dir, T_CREATE,
			  nova_create_object(idmap, dir, dentry, mode, 0, NULL));
}

static int nova_mknod(nova_idmap_t *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode, dev_t rdev)
{
	return NOVA_TIMED(dir, T_MKNOD,
			  nova_create_object(idmap, dir, dentry, mode, rdev, NULL));
}

static int nova_symlink(nova_idmap_t *idmap, struct inode *dir,
			struct dentry *dentry, const char *symname)
{
	return NOVA_TIMED(dir, T_SYMLINK,
			  nova_create_object(idmap, dir, dentry, S_IFLNK | 0777, 0,
					     symname));
}

static nova_mkdir_ret_t nova_mkdir(nova_idmap_t *idmap, struct inode *dir,
				   struct dentry *dentry, umode_t mode)
{
	return nova_mkdir_ret(NOVA_TIMED(dir, T_MKDIR,
					 nova_create_object(idmap, dir, dentry,
							    S_IFDIR | mode, 0,
							    NULL)));
}

static int __nova_link(struct dentry *old_dentry, struct inode *dir,
		       struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	struct nova_op op = { };
	u64 de_off, cookie;
	int ret;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	nova_touch_dir(&op, dir);
	nova_op_set_ctime(&op, inode, nova_get_ctime(dir));
	inc_nlink(inode);
	ret = nova_append_dentry(dir, &dentry->d_name, inode->i_ino,
				 inode->i_mode, nova_op_tail(&op, dir), &de_off,
				 &cookie);
	if (!ret)
		ret = nova_append_link_change(inode, nova_op_tail(&op, inode));
	if (!ret)
		ret = nova_dir_index_add(dir, dentry->d_name.name,
					 dentry->d_name.len, inode->i_ino,
					 fs_umode_to_dtype(inode->i_mode),
					 cookie, de_off);
	if (ret) {
		nova_op_abort(&op);
		nova_op_restore_times(&op);
		drop_nlink(inode);
		return ret;
	}
	nova_op_commit(dir->i_sb, &op);
	nova_op_done(&op);
	ihold(inode);
	d_instantiate(dentry, inode);
	return 0;
}

/* Remove @dentry's name from @dir; @inode loses a link (all for a dir) */
static int nova_remove(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	bool isdir = S_ISDIR(inode->i_mode);
	struct nova_dir_node *dn;
	struct nova_op op = { };
	unsigned int old_nlink = inode->i_nlink;
	int ret;

	dn = nova_dir_find(dir, dentry->d_name.name, dentry->d_name.len);
	if (!dn || dn->ino != inode->i_ino) {
		nova_error(dir->i_sb, "directory %llu: '%pd' is not indexed",
			   nova_ino(dir), dentry);
		return -EUCLEAN;
	}
	if (isdir && NOVA_I(inode)->header.dir_entries)
		return -ENOTEMPTY;

	nova_touch_dir(&op, dir);
	nova_op_set_ctime(&op, inode, nova_get_ctime(dir));
	if (isdir) {
		drop_nlink(dir);
		clear_nlink(inode);
	} else {
		drop_nlink(inode);
	}
	/* deleting must work on a full device: its log pages may use the reserve */
	NOVA_I(dir)->header.use_reserve = true;
	NOVA_I(inode)->header.use_reserve = true;
	ret = nova_append_dentry(dir, &dentry->d_name, 0, 0,
				 nova_op_tail(&op, dir), NULL, NULL);
	if (!ret)
		ret = nova_append_link_change(inode, nova_op_tail(&op, inode));
	NOVA_I(dir)->header.use_reserve = false;
	NOVA_I(inode)->header.use_reserve = false;
	if (ret) {
		nova_op_abort(&op);
		nova_op_restore_times(&op);
		set_nlink(inode, old_nlink);
		if (isdir)
			inc_nlink(dir);
		return ret;
	}
	nova_op_commit(dir->i_sb, &op);
	nova_invalidate_entry(dir->i_sb, dn->de_off);
	nova_dir_index_remove(dir, dn);
	/* an emptied directory gets its log rewritten to one page */
	if (!NOVA_I(dir)->header.dir_entries && NOVA_I(dir)->header.log_pages > 1)
		NOVA_I(dir)->header.gc_pending = true;
	nova_op_done(&op);
	return 0;
}

static int nova_unlink(struct inode *dir, struct dentry *dentry)
{
	return NOVA_TIMED(dir, T_UNLINK, nova_remove(dir, dentry));
}

static int nova_rmdir(struct inode *dir, struct dentry *dentry)
{
	return NOVA_TIMED(dir, T_RMDIR, nova_remove(dir, dentry));
}

/* A moved directory's ".." entry */
static int nova_append_dotdot(struct inode *inode, struct inode *parent,
			      struct nova_op *op)
{
	return nova_append_dentry(inode, &(struct qstr)QSTR_INIT("..", 2),
				  parent->i_ino, S_IFDIR, nova_op_tail(op, inode),
				  NULL, NULL);
}

static int __nova_rename(nova_idmap_t *idmap,
		       struct inode *old_dir, struct dentry *old_dentry,
		       struct inode *new_dir, struct dentry *new_dentry,
		       unsigned int flags)
{
	struct inode *old = d_inode(old_dentry), *new = d_inode(new_dentry);
	bool old_isdir = S_ISDIR(old->i_mode);
	bool new_isdir = new && S_ISDIR(new->i_mode);
	bool exchange = flags & RENAME_EXCHANGE;
	struct inode *wh = NULL;	/* RENAME_WHITEOUT: the old name's new inode */
	unsigned int nl_old_dir = old_dir->i_nlink, nl_new_dir = new_dir->i_nlink;
	unsigned int nl_new = new ? new->i_nlink : 0;
	struct nova_dir_node *old_dn;
	struct nova_op op = { };
	u64 off1, ck1, off2 = 0, ck2 = 0, dead_new = 0, dead_old;
	u64 saved_ck = 0, saved_off = 0;
	bool added = false;
	int ret;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if (new_dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	old_dn = nova_dir_find(old_dir, old_dentry->d_name.name,
			       old_dentry->d_name.len);
	if (!old_dn || old_dn->ino != old->i_ino)
		return -EUCLEAN;
	dead_old = old_dn->de_off;	/* removed, or superseded in an exchange */
	if (!exchange && new_isdir && NOVA_I(new)->header.dir_entries)
		return -ENOTEMPTY;
	if (new) {
		struct nova_dir_node *dn = nova_dir_find(new_dir,
							 new_dentry->d_name.name,
							 new_dentry->d_name.len);

		if (dn)
			dead_new = dn->de_off;
	}

	/*
	 * RENAME_WHITEOUT (overlayfs): the old name goes to a new whiteout
	 * (a 0:0 character device), made valid by the commit (valid_word).
	 */
	if (flags & RENAME_WHITEOUT) {
		wh = nova_new_inode(idmap, old_dir, S_IFCHR | WHITEOUT_MODE, WHITEOUT_DEV,
				    &op.valid_word);
		if (IS_ERR(wh))
			return PTR_ERR(wh);
		ret = nova_init_new_xattrs(old_dir, wh, &old_dentry->d_name,
					   NULL, NULL);
		if (ret) {
			clear_nlink(wh);
			discard_new_inode(wh);
			return ret;
		}
	}

	/* link counts and times as they are after the rename */
	nova_touch_dir(&op, old_dir);
	nova_touch_dir(&op, new_dir);
	nova_op_set_ctime(&op, old, nova_get_ctime(old_dir));
	if (new)
		nova_op_set_ctime(&op, new, nova_get_ctime(old_dir));
	if (old_dir != new_dir) {
		if (old_isdir) {
			drop_nlink(old_dir);
			inc_nlink(new_dir);
		}
		if (exchange && new_isdir) {
			drop_nlink(new_dir);
			inc_nlink(old_dir);
		}
	}
	if (new && !exchange) {
		if (new_isdir) {
			drop_nlink(new_dir);
			clear_nlink(new);
		} else {
			drop_nlink(new);
		}
	}

	/* new name -> old inode (replacing any target) */
	ret = nova_append_dentry(new_dir, &new_dentry->d_name, old->i_ino,
				 old->i_mode, nova_op_tail(&op, new_dir), &off1,
				 &ck1);
	/* old name: removed, or -> new inode for an exchange, or whiteout */
	if (!ret)
		ret = nova_append_dentry(old_dir, &old_dentry->d_name,
					 exchange ? new->i_ino : wh ? wh->i_ino : 0,
					 exchange ? new->i_mode : wh ? wh->i_mode : 0,
					 nova_op_tail(&op, old_dir), &off2, &ck2);
	if (!ret && old_isdir && old_dir != new_dir)
		ret = nova_append_dotdot(old, new_dir, &op);
	if (!ret)
		ret = nova_append_link_change(old, nova_op_tail(&op, old));
	if (!ret && exchange && new_isdir && old_dir != new_dir)
		ret = nova_append_dotdot(new, old_dir, &op);
	if (!ret && new)
		ret = nova_append_link_change(new, nova_op_tail(&op, new));
	if (!ret) {
		/* an existing target's node is re-pointed: keep its position */
		struct nova_dir_node *dn = new ?
			nova_dir_find(new_dir, new_dentry->d_name.name,
				      new_dentry->d_name.len) : NULL;

		if (dn) {
			saved_ck = dn->cookie;
			saved_off = dn->de_off;
		}
		ret = nova_dir_index_add(new_dir, new_dentry->d_name.name,
					 new_dentry->d_name.len, old->i_ino,
					 fs_umode_to_dtype(old->i_mode), ck1, off1);
		added = !ret;
	}
	if (!ret && exchange)
		ret = nova_dir_index_add(old_dir, old_dentry->d_name.name,
					 old_dentry->d_name.len, new->i_ino,
					 fs_umode_to_dtype(new->i_mode), ck2, off2);
	if (!ret && wh)
		ret = nova_dir_index_add(old_dir, old_dentry->d_name.name,
					 old_dentry->d_name.len, wh->i_ino,
					 DT_CHR, ck2, off2);
	if (ret) {
		/* nothing committed: put the DRAM state back */
		nova_op_abort(&op);
		nova_op_restore_times(&op);
		set_nlink(old_dir, nl_old_dir);
		set_nlink(new_dir, nl_new_dir);
		if (new)
			set_nlink(new, nl_new);
		if (added) {
			struct nova_dir_node *dn;

			dn = nova_dir_find(new_dir, new_dentry->d_name.name,
					   new_dentry->d_name.len);
			if (dn && new) {
				struct xarray *ck = &NOVA_I(new_dir)->header.dir_cookies;

				dn->ino = new->i_ino;
				dn->file_type = fs_umode_to_dtype(new->i_mode);
				/* its readdir position and its (committed) entry */
				if (dn->cookie != saved_ck) {
					xa_erase(ck, dn->cookie);
					xa_store(ck, saved_ck, dn,
						 GFP_KERNEL | __GFP_NOFAIL);
					dn->cookie = saved_ck;
				}
				dn->de_off = saved_off;
			} else if (dn) {
				nova_dir_index_remove(new_dir, dn);
			}
		}
		if (wh) {
			clear_nlink(wh);
			discard_new_inode(wh);
		}
		return ret;
	}
	nova_op_commit(old_dir->i_sb, &op);
	/*
	 * The moved directories' ".." as a thorough GC must log it; set
	 * under their log mutexes (still held), before nova_op_done() can
	 * run a pending GC of them.
	 */
	if (old_isdir && old_dir != new_dir)
		NOVA_I(old)->header.parent_ino = new_dir->i_ino;
	if (exchange && new_isdir && old_dir != new_dir)
		NOVA_I(new)->header.parent_ino = old_dir->i_ino;
	/* the replaced and removed names' entries are dead now */
	if (dead_new)
		nova_invalidate_entry(old_dir->i_sb, dead_new);
	if (dead_old)
		nova_invalidate_entry(old_dir->i_sb, dead_old);
	/* nodes never move in memory, so old_dn is still the old name */
	if (!exchange && !wh)
		nova_dir_index_remove(old_dir, old_dn);
	nova_op_done(&op);
	if (wh) {
		unlock_new_inode(wh);
		iput(wh);
	}
	return 0;
}

static int nova_link(struct dentry *old_dentry, struct inode *dir,
		     struct dentry *dentry)
{
	return NOVA_TIMED(dir, T_LINK, __nova_link(old_dentry, dir, dentry));
}

static int nova_rename(nova_idmap_t *idmap,
		       struct inode *old_dir, struct dentry *old_dentry,
		       struct inode *new_dir, struct dentry *new_dentry,
		       unsigned int flags)
{
	return NOVA_TIMED(old_dir, T_RENAME,
			  __nova_rename(idmap, old_dir, old_dentry,
					new_dir, new_dentry, flags));
}

const struct inode_operations nova_dir_inode_operations = {
	.lookup		= nova_lookup,
	.create		= nova_create,
	.mknod		= nova_mknod,
	.symlink	= nova_symlink,
	.mkdir		= nova_mkdir,
	.link		= nova_link,
	.unlink		= nova_unlink,
	.rmdir		= nova_rmdir,
	.rename		= nova_rename,
	.tmpfile	= nova_tmpfile,
	.getattr	= nova_getattr,
	.setattr	= nova_setattr,
	.fileattr_get	= nova_fileattr_get,
	.fileattr_set	= nova_fileattr_set,
	.listxattr	= nova_listxattr,
	.NOVA_GET_ACL_OP = nova_get_inode_acl,
	.set_acl	= nova_set_acl,
};
