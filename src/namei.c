// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA namespace operations: lookup, create, mknod, symlink, mkdir,
 * link, unlink, rmdir, rename (plain, RENAME_NOREPLACE, RENAME_EXCHANGE,
 * RENAME_WHITEOUT),
 * O_TMPFILE.
 *
 * Every operation has the same shape, and the same crash ordering:
 *
 *   1. compute the state it leaves: the link counts and times of the
 *      inodes involved (struct nova_op), nothing changed in the VFS
 *      inodes yet;
 *   2. append the new log entries of every inode involved at working
 *      tails, recording that state (nothing visible yet; may fail with
 *      ENOSPC);
 *   3. prepare the DRAM directory index changes: what can fail there
 *      (ENOMEM) fails here.  A failure up to this point drops what was
 *      appended and prepared: nothing happened;
 *   4. one lite-journal transaction (nova_op_commit()): journal the old
 *      log tails (and a new inode's valid word), then store each new tail
 *      (and the valid byte) durably, then commit the journal.  A crash in
 *      between rolls every tail back at the next mount: all or nothing;
 *   5. apply the new state to the VFS inodes and the DRAM index, which
 *      cannot fail.
 *
 * Callers hold the VFS locks of every directory and inode involved.
 */
#include <linux/quotaops.h>
#include "nova.h"

/* An inode whose link count or times the operation changes */
struct nova_op_inode {
	struct inode *inode;
	struct nova_link_state st;	/* as the operation leaves it */
	bool nlink, ctime, mtime;	/* which of them change */
};

/* One namespace operation: what it changes, and its working log tails */
struct nova_op {
	/* the logs it appends to, in the order their mutexes were taken */
	struct inode *inode[4];
	u64 tail[4];
	int n;
	u64 valid_word;		/* new inode's word 0, 0 if none */
	struct timespec64 now;	/* its time, taken at its first change */
	bool timed;
	struct nova_op_inode in[4];
	int nin;
	struct nova_dir_change names[2];	/* names added or re-pointed */
	int nnames;
	u64 dead[2];		/* committed entries it supersedes */
	int ndead;
	u8 reserve;		/* NOVA_RESERVE_*: nova_op_set_reserve() */
	struct inode *gone_dir;	/* a name it removes */
	struct nova_dir_node *gone;
};

static struct nova_op_inode *nova_op_in(struct nova_op *op,
					struct inode *inode)
{
	int i;

	for (i = 0; i < op->nin; i++)
		if (op->in[i].inode == inode)
			return &op->in[i];
	if (WARN_ON_ONCE(op->nin == ARRAY_SIZE(op->in)))
		i = 0;
	else
		op->nin++;
	op->in[i] = (struct nova_op_inode){
		.inode = inode,
		.st = nova_link_state_of(inode),
	};
	return &op->in[i];
}

/*
 * The link count and times @inode has after the operation, for its log
 * entries: what the operation does not change is read now, under the
 * log mutex (a moved directory is not locked against a mkdir in it).
 */
static const struct nova_link_state *nova_op_state(struct nova_op *op,
						   struct inode *inode)
{
	struct nova_op_inode *in = nova_op_in(op, inode);

	if (!in->nlink)
		in->st.nlink = inode->i_nlink;
	if (!in->ctime)
		in->st.ctime = nova_get_ctime(inode);
	if (!in->mtime)
		in->st.mtime = nova_get_mtime(inode);
	return &in->st;
}

/* An inode that gains, loses or moves a name: new ctime */
static struct nova_op_inode *nova_op_touch(struct nova_op *op,
					   struct inode *inode)
{
	struct nova_op_inode *in = nova_op_in(op, inode);

	if (!op->timed) {
		op->now = current_time(inode);
		op->timed = true;
	}
	in->st.ctime = op->now;
	in->ctime = true;
	return in;
}

/* A directory whose names change: new mtime and ctime */
static void nova_op_touch_dir(struct nova_op *op, struct inode *dir)
{
	struct nova_op_inode *in = nova_op_touch(op, dir);

	in->st.mtime = op->now;
	in->mtime = true;
}

/* @inode gains a link (@delta 1), loses one (-1) or all (0) */
static void nova_op_links(struct nova_op *op, struct inode *inode, int delta)
{
	struct nova_op_inode *in = nova_op_in(op, inode);

	in->nlink = true;
	if (!delta)
		in->st.nlink = 0;
	else if (delta > 0)
		in->st.nlink++;
	else if (!WARN_ON(!in->st.nlink))
		in->st.nlink--;
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
	NOVA_I(inode)->header.use_reserve = op->reserve;
	op->inode[op->n] = inode;
	op->tail[op->n] = NOVA_I(inode)->header.log_tail;
	return &op->tail[op->n++];
}

/*
 * Whose pages the operation's appends may take from now on (the logs it
 * holds, and those it locks later): only under their log mutexes, so
 * that no other append to them sees it
 */
static void nova_op_set_reserve(struct nova_op *op, u8 reserve)
{
	int i;

	op->reserve = reserve;
	for (i = 0; i < op->n; i++)
		NOVA_I(op->inode[i])->header.use_reserve = reserve;
}

/*
 * Log @name in @dir -> @inode (NULL: its removal) and prepare the index
 * to take it
 */
static int nova_op_dentry(struct nova_op *op, struct inode *dir,
			  const struct qstr *name, struct inode *inode)
{
	u64 *tail = nova_op_tail(op, dir);
	u64 de_off, cookie;
	int ret;

	ret = nova_append_dentry(dir, nova_op_state(op, dir), name,
				 inode ? inode->i_ino : 0,
				 inode ? inode->i_mode : 0, tail, &de_off,
				 &cookie);
	if (ret || !inode)
		return ret;
	if (WARN_ON_ONCE(op->nnames == ARRAY_SIZE(op->names)))
		return -EINVAL;
	ret = nova_dir_index_prepare(dir, name->name, name->len, inode->i_ino,
				     fs_umode_to_dtype(inode->i_mode), cookie,
				     de_off, &op->names[op->nnames]);
	if (!ret)
		op->nnames++;
	return ret;
}

/* A moved directory's ".." entry */
static int nova_op_dotdot(struct nova_op *op, struct inode *inode,
			  struct inode *parent)
{
	u64 *tail = nova_op_tail(op, inode);

	return nova_append_dentry(inode, nova_op_state(op, inode),
				  &(struct qstr)QSTR_INIT("..", 2),
				  parent->i_ino, S_IFDIR, tail, NULL, NULL);
}

static int nova_op_link_change(struct nova_op *op, struct inode *inode)
{
	u64 *tail = nova_op_tail(op, inode);

	return nova_append_link_change(inode, nova_op_state(op, inode), tail);
}

/* A committed entry the operation supersedes: it dies with the commit */
static void nova_op_supersede(struct nova_op *op, u64 de_off)
{
	if (!WARN_ON_ONCE(op->ndead == ARRAY_SIZE(op->dead)))
		op->dead[op->ndead++] = de_off;
}

/* The name of @dn in @dir goes with the commit */
static void nova_op_remove_name(struct nova_op *op, struct inode *dir,
				struct nova_dir_node *dn)
{
	nova_op_supersede(op, dn->de_off);
	op->gone_dir = dir;
	op->gone = dn;
}

/* Drop the log mutexes (and anything appended but not committed) */
static void nova_op_unlock(struct nova_op *op)
{
	while (op->n--) {
		struct nova_inode_info_header *sih = &NOVA_I(op->inode[op->n])->header;

		sih->pending_lc = 0;
		sih->use_reserve = NOVA_RESERVE_NONE;
		mutex_unlock(&sih->log_mutex);
	}
}

/* A failure before the commit: nothing changed */
static void nova_op_abort(struct nova_op *op)
{
	while (op->nnames--)
		nova_dir_index_cancel(&op->names[op->nnames]);
	nova_op_unlock(op);
}

/* The DRAM side of a committed operation: it cannot fail */
static void nova_op_apply(struct super_block *sb, struct nova_op *op)
{
	int i;

	for (i = 0; i < op->nin; i++) {
		struct nova_op_inode *in = &op->in[i];

		if (in->nlink)
			set_nlink(in->inode, in->st.nlink);
		if (in->ctime)
			nova_set_ctime(in->inode, in->st.ctime);
		if (in->mtime)
			nova_set_mtime(in->inode, in->st.mtime);
	}
	for (i = 0; i < op->nnames; i++)
		nova_dir_index_apply(&op->names[i]);
	for (i = 0; i < op->ndead; i++)
		nova_invalidate_entry(sb, op->dead[i]);
	/* nodes never move in memory: it is still the removed name's */
	if (op->gone)
		nova_dir_index_remove(op->gone_dir, op->gone);
}

/* Commit the operation, then make it in DRAM */
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
	nova_op_apply(sb, op);
}

/* End of a committed operation: garbage-collect logs that asked for it */
static void nova_op_done(struct nova_op *op)
{
	int i;

	for (i = 0; i < op->n; i++)
		if (S_ISDIR(op->inode[i]->i_mode))
			nova_gc_if_pending(op->inode[i]);
	nova_op_unlock(op);
}

static struct dentry *nova_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct fscrypt_name fname;
	struct nova_dir_node *dn;
	struct inode *inode = NULL;
	int ret;

	if (nova_is_shutdown(dir->i_sb))
		return ERR_PTR(-EIO);
	if (dentry->d_name.len > NOVA_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	/* in an encrypted directory: the ciphertext name, or a no-key name */
	ret = fscrypt_prepare_lookup(dir, dentry, &fname);
	nova_set_lookup_d_ops(dentry);
	if (ret == -ENOENT)
		return d_splice_alias(NULL, dentry);
	if (ret)
		return ERR_PTR(ret);
	dn = nova_dir_find_fname(dir, &fname);
	fscrypt_free_filename(&fname);
	if (dn) {
		inode = nova_iget(dir->i_sb, dn->ino);
		if (inode == ERR_PTR(-ESTALE)) {
			nova_error(dir->i_sb, "directory %llu: entry '%pd' points to free inode %llu",
				   nova_ino(dir), dentry, dn->ino);
			return ERR_PTR(-EUCLEAN);
		}
		/* as ext4: a directory tree has one policy (files: at open) */
		if (!IS_ERR(inode) && IS_ENCRYPTED(dir) &&
		    (S_ISDIR(inode->i_mode) || S_ISLNK(inode->i_mode)) &&
		    !fscrypt_has_permitted_context(dir, inode)) {
			pr_warn_ratelimited("NOVA (%s): inode %llu: encryption policy differs from its directory %llu\n",
					    dir->i_sb->s_id, nova_ino(inode),
					    nova_ino(dir));
			iput(inode);
			return ERR_PTR(-EPERM);
		}
	}
	/*
	 * As ext4: no negative dentry in a case-insensitive directory (a
	 * create through it would take the case of the lookup's name)
	 */
	if (!inode && IS_CASEFOLDED(dir))
		return NULL;
	return d_splice_alias(inode, dentry);
}

/*
 * The new object's own initial log: "." and ".." or a symlink target
 * (@link: its form on pmem, ciphertext in an encrypted directory)
 */
static int nova_init_object_log(struct inode *dir, struct inode *inode,
				const struct fscrypt_str *link)
{
	/* after its attributes (nova_init_new_xattrs()), if any */
	u64 start = NOVA_I(inode)->header.log_tail, tail = start;
	int ret = 0;

	if (S_ISDIR(inode->i_mode)) {
		ret = nova_append_dentry(inode, NULL,
					 &(struct qstr)QSTR_INIT(".", 1),
					 inode->i_ino, S_IFDIR, &tail, NULL, NULL);
		if (!ret)
			ret = nova_append_dentry(inode, NULL,
						 &(struct qstr)QSTR_INIT("..", 2),
						 dir->i_ino, S_IFDIR, &tail, NULL,
						 NULL);
	} else if (link) {
		/* its length counts the NUL */
		ret = nova_symlink_write(inode, link->name, link->len - 1, &tail);
	}
	/* the inode is not valid yet: its own tail needs no journal */
	if (!ret && tail != start)
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
	size_t symlen = symname ? strlen(symname) : 0;
	struct fscrypt_str link = FSTR_INIT((u8 *)symname, symlen + 1);
	struct fscrypt_name fname;
	struct nova_op op = { };
	struct inode *inode;
	bool encrypt = false;
	int ret;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	/* a strict case-insensitive directory: valid UTF-8 names only */
	if (!nova_ci_name_ok(dir, &dentry->d_name))
		return -EINVAL;
	/* the target's size on pmem, NUL included, fits one block */
	if (symname) {
		ret = fscrypt_prepare_symlink(dir, symname, symlen,
					      NOVA_BLOCK_SIZE, &link);
		if (ret)
			return ret;
	}
	ret = nova_fname_new(dir, dentry, &fname);
	if (ret)
		return ret;
	/* the directory's new log pages are charged to its owner */
	ret = dquot_initialize(dir);
	if (ret)
		goto out_fname;

	/* the directory's default ACL (or the umask) shapes the mode */
	ret = posix_acl_create(dir, &mode, &default_acl, &acl);
	if (ret)
		goto out_fname;
	inode = nova_new_inode(idmap, dir, mode, rdev, &op.valid_word);
	if (IS_ERR(inode)) {
		ret = PTR_ERR(inode);
		goto out_acl;
	}
	NOVA_CRASH_POINT(CP_CREATE_INODE);
	/* its encryption context first: the symlink target needs it */
	ret = fscrypt_prepare_new_inode(dir, inode, &encrypt);
	if (!ret)
		ret = nova_init_new_xattrs(dir, inode, &dentry->d_name,
					   default_acl, acl, encrypt);
	if (!ret && symname && IS_ENCRYPTED(inode)) {
		ret = fscrypt_encrypt_symlink(inode, symname, symlen, &link);
		inode->i_op = &nova_encrypted_symlink_inode_operations;
	}
	if (!ret)
		ret = nova_init_object_log(dir, inode, symname ? &link : NULL);
	if (ret)
		goto fail;

	nova_op_touch_dir(&op, dir);
	if (S_ISDIR(mode))
		nova_op_links(&op, dir, 1);
	ret = nova_op_dentry(&op, dir, &NOVA_FNAME_QSTR(&fname), inode);
	if (ret) {
		nova_op_abort(&op);
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
out_fname:
	if (link.name != (u8 *)symname)
		kfree(link.name);
	fscrypt_free_filename(&fname);
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
	bool encrypt = false;
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
	ret = fscrypt_prepare_new_inode(dir, inode, &encrypt);
	if (!ret)
		ret = nova_init_new_xattrs(dir, inode,
					   &file->f_path.dentry->d_name,
					   default_acl, acl, encrypt);
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
	struct fscrypt_name fname;
	struct nova_op op = { };
	int ret;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	if (!nova_ci_name_ok(dir, &dentry->d_name))
		return -EINVAL;
	ret = fscrypt_prepare_link(old_dentry, dir, dentry);
	if (ret)
		return ret;
	/* as ext4: a project directory takes only its project's inodes */
	if (nova_projid_differs(dir, inode))
		return -EXDEV;
	ret = nova_fname_new(dir, dentry, &fname);
	if (ret)
		return ret;
	ret = dquot_initialize(dir);
	if (ret)
		goto out;
	nova_op_touch_dir(&op, dir);
	nova_op_touch(&op, inode);
	nova_op_links(&op, inode, 1);
	ret = nova_op_dentry(&op, dir, &NOVA_FNAME_QSTR(&fname), inode);
	if (!ret)
		ret = nova_op_link_change(&op, inode);
	if (ret) {
		nova_op_abort(&op);
		goto out;
	}
	nova_op_commit(dir->i_sb, &op);
	nova_op_done(&op);
	ihold(inode);
	d_instantiate(dentry, inode);
out:
	fscrypt_free_filename(&fname);
	return ret;
}

/* The entry of @dentry's name in @dir (its ciphertext in an encrypted one) */
static int nova_find_dentry(struct inode *dir, struct dentry *dentry,
			    struct nova_dir_node **dn)
{
	struct fscrypt_name fname;
	int ret;

	ret = fscrypt_setup_filename(dir, &dentry->d_name, 1, &fname);
	if (ret)
		return ret;
	*dn = nova_dir_find_fname(dir, &fname);
	fscrypt_free_filename(&fname);
	return 0;
}

/* Remove @dentry's name from @dir; @inode loses a link (all for a dir) */
static int nova_remove(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	bool isdir = S_ISDIR(inode->i_mode);
	struct nova_op op = { };
	struct nova_dir_node *dn;
	int ret;

	ret = nova_find_dentry(dir, dentry, &dn);
	if (ret)
		return ret;
	/*
	 * a no-key name whose key came after its lookup: it reads as a
	 * plaintext name now, which is not there (as ext4: ENOENT)
	 */
	if (!dn && IS_ENCRYPTED(dir))
		return -ENOENT;
	if (!dn || dn->ino != inode->i_ino) {
		nova_error(dir->i_sb, "directory %llu: '%pd' is not indexed",
			   nova_ino(dir), dentry);
		return -EUCLEAN;
	}
	if (isdir && NOVA_I(inode)->header.dir_entries)
		return -ENOTEMPTY;
	/* the removal may take log pages: charged, never refused */
	ret = dquot_initialize(dir);
	if (!ret)
		ret = dquot_initialize(inode);
	if (ret)
		return ret;

	nova_op_touch_dir(&op, dir);
	nova_op_touch(&op, inode);
	if (isdir)
		nova_op_links(&op, dir, -1);
	nova_op_links(&op, inode, isdir ? 0 : -1);
	/* deleting must work on a full device: its log pages may use the reserve */
	nova_op_set_reserve(&op, NOVA_RESERVE_ALL);
	NOVA_INJECT_REMOVE(inode);
	ret = nova_op_dentry(&op, dir, &NOVA_DN_QSTR(dn), NULL);
	if (!ret)
		ret = nova_op_link_change(&op, inode);
	nova_op_set_reserve(&op, NOVA_RESERVE_NONE);
	if (ret) {
		nova_op_abort(&op);
		return ret;
	}
	nova_op_remove_name(&op, dir, dn);
	nova_op_commit(dir->i_sb, &op);
	/* a removed directory reads as empty, as ext4_rmdir() (DRAM only) */
	if (isdir)
		i_size_write(inode, 0);
	/* an emptied directory gets its log rewritten to one page */
	if (!NOVA_I(dir)->header.dir_entries && NOVA_I(dir)->header.log_pages > 1)
		NOVA_I(dir)->header.gc_pending = true;
	nova_op_done(&op);
	/* as ext4: the name leaves no negative dentry (nova_lookup()) */
	if (IS_CASEFOLDED(dir))
		d_invalidate(dentry);
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

static int __nova_rename(nova_idmap_t *idmap,
		       struct inode *old_dir, struct dentry *old_dentry,
		       struct inode *new_dir, struct dentry *new_dentry,
		       unsigned int flags)
{
	struct inode *old = d_inode(old_dentry), *new = d_inode(new_dentry);
	bool old_isdir = S_ISDIR(old->i_mode);
	bool new_isdir = new && S_ISDIR(new->i_mode);
	bool exchange = flags & RENAME_EXCHANGE;
	bool moved = old_dir != new_dir;
	struct inode *wh = NULL;	/* RENAME_WHITEOUT: the old name's new inode */
	struct nova_dir_node *old_dn, *new_dn = NULL;
	struct fscrypt_name new_fname;
	struct nova_op op = { };
	int ret;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if (new_dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	/* a new name in a strict case-insensitive directory (as ext4) */
	if (!new && !nova_ci_name_ok(new_dir, &new_dentry->d_name))
		return -EINVAL;
	/* encrypted directories: keys present, and the same policy */
	ret = fscrypt_prepare_rename(old_dir, old_dentry, new_dir, new_dentry,
				     flags);
	if (ret)
		return ret;
	/* as ext4: a project directory takes only its project's inodes */
	if (nova_projid_differs(new_dir, old) ||
	    (exchange && nova_projid_differs(old_dir, new)))
		return -EXDEV;
	/* every log this appends to may take a charged page */
	ret = dquot_initialize(old_dir);
	if (!ret)
		ret = dquot_initialize(new_dir);
	if (!ret)
		ret = dquot_initialize(old);
	if (!ret && new)
		ret = dquot_initialize(new);
	if (!ret)
		ret = nova_find_dentry(old_dir, old_dentry, &old_dn);
	if (ret)
		return ret;
	if (!old_dn || old_dn->ino != old->i_ino)
		return -EUCLEAN;
	if (!exchange && new_isdir && NOVA_I(new)->header.dir_entries)
		return -ENOTEMPTY;
	ret = nova_fname_new(new_dir, new_dentry, &new_fname);
	if (ret)
		return ret;
	if (new)
		new_dn = nova_dir_find_fname(new_dir, &new_fname);

	/*
	 * RENAME_WHITEOUT (overlayfs): the old name goes to a new whiteout
	 * (a 0:0 character device), made valid by the commit (valid_word).
	 */
	if (flags & RENAME_WHITEOUT) {
		wh = nova_new_inode(idmap, old_dir, S_IFCHR | WHITEOUT_MODE, WHITEOUT_DEV,
				    &op.valid_word);
		if (IS_ERR(wh)) {
			ret = PTR_ERR(wh);
			wh = NULL;
			goto out_wh;
		}
		ret = nova_init_new_xattrs(old_dir, wh, &old_dentry->d_name,
					   NULL, NULL, false);
		if (ret)
			goto out_wh;
	}

	/* link counts and times as they are after the rename */
	nova_op_touch_dir(&op, old_dir);
	nova_op_touch_dir(&op, new_dir);
	nova_op_touch(&op, old);
	if (new)
		nova_op_touch(&op, new);
	if (moved && old_isdir) {
		nova_op_links(&op, old_dir, -1);
		nova_op_links(&op, new_dir, 1);
	}
	if (moved && exchange && new_isdir) {
		nova_op_links(&op, new_dir, -1);
		nova_op_links(&op, old_dir, 1);
	}
	if (new && !exchange) {
		if (new_isdir)
			nova_op_links(&op, new_dir, -1);
		nova_op_links(&op, new, new_isdir ? 0 : -1);
	}

	/*
	 * new name -> old inode (replacing any target, whose name stays as
	 * stored: in a case-insensitive directory it may differ in case
	 * from @new_dentry's, and ext4 keeps it too)
	 */
	ret = nova_op_dentry(&op, new_dir, new_dn ? &NOVA_DN_QSTR(new_dn) :
			     &NOVA_FNAME_QSTR(&new_fname), old);
	/* old name: removed, or -> new inode for an exchange, or whiteout */
	if (!ret)
		ret = nova_op_dentry(&op, old_dir, &NOVA_DN_QSTR(old_dn),
				     exchange ? new : wh);
	if (!ret && old_isdir && moved)
		ret = nova_op_dotdot(&op, old, new_dir);
	if (!ret)
		ret = nova_op_link_change(&op, old);
	if (!ret && exchange && new_isdir && moved)
		ret = nova_op_dotdot(&op, new, old_dir);
	if (!ret && new)
		ret = nova_op_link_change(&op, new);
	if (ret) {
		nova_op_abort(&op);
		goto out_wh;
	}
	/* the replaced and removed names' entries die with the commit */
	if (new_dn)
		nova_op_supersede(&op, new_dn->de_off);
	if (exchange || wh)
		nova_op_supersede(&op, old_dn->de_off);
	else
		nova_op_remove_name(&op, old_dir, old_dn);
	nova_op_commit(old_dir->i_sb, &op);
	/*
	 * The moved directories' ".." as a thorough GC must log it; set
	 * under their log mutexes (still held), before nova_op_done() can
	 * run a pending GC of them.
	 */
	if (old_isdir && moved)
		NOVA_I(old)->header.parent_ino = new_dir->i_ino;
	if (exchange && new_isdir && moved)
		NOVA_I(new)->header.parent_ino = old_dir->i_ino;
	nova_op_done(&op);
	if (wh) {
		unlock_new_inode(wh);
		iput(wh);
	}
	fscrypt_free_filename(&new_fname);
	return 0;
out_wh:
	if (wh) {
		clear_nlink(wh);
		discard_new_inode(wh);
	}
	fscrypt_free_filename(&new_fname);
	return ret;
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
