// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA directories.
 *
 * A directory's entries are NOVA_DIR_LOG entries in its log: an entry
 * with a non-zero inode number adds (or replaces) a name, one with inode
 * number 0 removes it.  "." and ".." are logged at mkdir (".." again when
 * the directory moves) but are not indexed.  In DRAM each directory has
 * an rb-tree keyed by (hash, length, name) for lookup - full names are
 * compared, so hash collisions are harmless - and an xarray keyed by the
 * entry's cookie (the trans_id of the entry that added it) for readdir:
 * a position is cookie + 2, so positions are stable while entries come
 * and go, and entries added during a readdir come after the ones before
 * (and after the end of that directory stream: nova_readdir()).
 *
 * A case-insensitive directory (casefold.c) keys its tree by the hash of
 * the casefolded name (sih->dir_ci): a lookup by any case walks the
 * names of that hash and compares them with nova_ci_match().  The log
 * and the nodes keep the names as created; every entry that re-points
 * or removes a name logs the name as stored, so the log replay, GC and
 * the re-pointing after GC find their node by its exact bytes
 * (nova_dir_find_exact()).  The flag can only change on an empty
 * directory, but a replay may apply it after the names (a thorough GC
 * logs the attributes last): nova_dir_set_ci() then keys the tree again.
 */
#include <linux/slab.h>
#include <linux/stringhash.h>
#include <linux/quotaops.h>
#include "nova.h"

static u32 nova_name_hash(struct inode *dir, const char *name, int len)
{
	if (NOVA_I(dir)->header.dir_ci)
		return nova_ci_hash(dir->i_sb, name, len);
	return full_name_hash(NULL, name, len);
}

static int nova_dir_cmp(u32 hash, const char *name, int len,
			const struct nova_dir_node *dn)
{
	if (hash != dn->hash)
		return hash < dn->hash ? -1 : 1;
	if (len != dn->name_len)
		return len < dn->name_len ? -1 : 1;
	return memcmp(name, dn->name, len);
}

/* The node of exactly @name (its bytes as stored) */
struct nova_dir_node *nova_dir_find_exact(struct inode *dir, const char *name,
					  int len)
{
	struct rb_node *n = NOVA_I(dir)->header.dir_tree.rb_node;
	u32 hash = nova_name_hash(dir, name, len);

	while (n) {
		struct nova_dir_node *dn = rb_entry(n, struct nova_dir_node, node);
		int c = nova_dir_cmp(hash, name, len, dn);

		if (!c)
			return dn;
		n = c < 0 ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/*
 * The node that @name names: its exact bytes, or in a case-insensitive
 * directory, the first name of the same casefolded hash that matches
 */
struct nova_dir_node *nova_dir_find(struct inode *dir, const char *name,
				    int len)
{
	struct rb_node *n = NOVA_I(dir)->header.dir_tree.rb_node;
	struct nova_dir_node *first = NULL;
	const struct qstr q = QSTR_INIT(name, len);
	u32 hash;

	if (!NOVA_I(dir)->header.dir_ci)
		return nova_dir_find_exact(dir, name, len);
	hash = nova_name_hash(dir, name, len);
	/* the leftmost node of @hash */
	while (n) {
		struct nova_dir_node *dn = rb_entry(n, struct nova_dir_node, node);

		if (dn->hash >= hash) {
			if (dn->hash == hash)
				first = dn;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	for (n = first ? &first->node : NULL; n; n = rb_next(n)) {
		struct nova_dir_node *dn = rb_entry(n, struct nova_dir_node, node);

		if (dn->hash != hash)
			break;
		if (nova_ci_match(dir, &q, (const u8 *)dn->name, dn->name_len))
			return dn;
	}
	return NULL;
}

/*
 * The entry for @fname (fscrypt_setup_filename()): its on-pmem name, or
 * in an encrypted directory without the key, a no-key name that may
 * carry only a digest of a long name: then every name is tried.
 */
struct nova_dir_node *nova_dir_find_fname(struct inode *dir,
					  const struct fscrypt_name *fname)
{
	struct rb_node *n;

	if (fname->disk_name.name)
		return nova_dir_find(dir, fname->disk_name.name,
				     fname->disk_name.len);
	for (n = rb_first(&NOVA_I(dir)->header.dir_tree); n; n = rb_next(n)) {
		struct nova_dir_node *dn = rb_entry(n, struct nova_dir_node, node);

		if (fscrypt_match_name(fname, dn->name, dn->name_len))
			return dn;
	}
	return NULL;
}

void nova_dir_index_remove(struct inode *dir, struct nova_dir_node *dn)
{
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;

	rb_erase(&dn->node, &sih->dir_tree);
	xa_erase(&sih->dir_cookies, dn->cookie);
	sih->dir_entries--;
	sih->dir_name_bytes -= NOVA_DENTRY_LEN(dn->name_len);
	kfree(dn);
}

static void nova_dir_insert(struct rb_root *root, struct nova_dir_node *dn)
{
	struct rb_node **p = &root->rb_node, *parent = NULL;

	while (*p) {
		parent = *p;
		p = nova_dir_cmp(dn->hash, dn->name, dn->name_len,
				 rb_entry(parent, struct nova_dir_node, node)) < 0 ?
		    &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&dn->node, parent, p);
	rb_insert_color(&dn->node, root);
}

/* Put a new node into the name tree */
static void nova_dir_link(struct nova_inode_info_header *sih,
			  struct nova_dir_node *dn)
{
	nova_dir_insert(&sih->dir_tree, dn);
	sih->dir_entries++;
	sih->dir_name_bytes += NOVA_DENTRY_LEN(dn->name_len);
}

/*
 * Key @dir's index as its casefold flag says (nova_set_inode_flags()):
 * on a change, every node gets its new hash and goes into a new tree.
 * Nothing is allocated; the cookies do not change.
 */
void nova_dir_set_ci(struct inode *dir)
{
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;
	bool ci = IS_CASEFOLDED(dir) && nova_sb_encoding(dir->i_sb);
	struct rb_root old = sih->dir_tree;
	struct nova_dir_node *dn, *next;

	if (sih->dir_ci == ci)
		return;
	sih->dir_ci = ci;
	sih->dir_tree = RB_ROOT;
	rbtree_postorder_for_each_entry_safe(dn, next, &old, node) {
		dn->hash = nova_name_hash(dir, dn->name, dn->name_len);
		nova_dir_insert(&sih->dir_tree, dn);
	}
}

/*
 * Prepare @name -> @ino (a new name, or an existing one re-pointed): the
 * node and the cookie's slot are allocated here, so that
 * nova_dir_index_apply() cannot fail.  -ENOMEM, or -EBUSY for a cookie
 * another name has.  Caller holds the directory.
 */
int nova_dir_index_prepare(struct inode *dir, const char *name, int len,
			   u64 ino, u8 ftype, u64 cookie, u64 de_off,
			   struct nova_dir_change *c)
{
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;
	int ret;

	*c = (struct nova_dir_change){
		.dir = dir, .ino = ino, .ftype = ftype, .cookie = cookie,
		.de_off = de_off,
		.dn = nova_dir_find_exact(dir, name, len),
	};
	/* same name again with its cookie: a GC'd log repeats cookies */
	if (c->dn && c->dn->cookie == cookie)
		return 0;
	if (xa_load(&sih->dir_cookies, cookie))
		return -EBUSY;
	if (!c->dn) {
		c->dn = kmalloc(struct_size(c->dn, name, len + 1), GFP_KERNEL);
		if (!c->dn)
			return -ENOMEM;
		c->fresh = true;
		c->dn->hash = nova_name_hash(dir, name, len);
		c->dn->name_len = len;
		memcpy(c->dn->name, name, len);
		c->dn->name[len] = '\0';
	}
	ret = xa_reserve(&sih->dir_cookies, cookie, GFP_KERNEL);
	if (ret) {
		nova_dir_index_cancel(c);
		return ret;
	}
	c->reserved = true;
	return 0;
}

/* A prepared change that will not be applied */
void nova_dir_index_cancel(struct nova_dir_change *c)
{
	if (c->reserved)
		xa_release(&NOVA_I(c->dir)->header.dir_cookies, c->cookie);
	if (c->fresh)
		kfree(c->dn);
	c->reserved = false;
	c->fresh = false;
}

/* Make a prepared change: nothing to allocate, it cannot fail */
void nova_dir_index_apply(struct nova_dir_change *c)
{
	struct nova_inode_info_header *sih = &NOVA_I(c->dir)->header;
	struct nova_dir_node *dn = c->dn;

	if (c->reserved) {
		/* a reserved slot: the store allocates nothing */
		WARN_ON_ONCE(xa_is_err(xa_store(&sih->dir_cookies, c->cookie,
						dn, GFP_NOWAIT)));
		if (!c->fresh)
			xa_erase(&sih->dir_cookies, dn->cookie);
	}
	dn->ino = c->ino;
	dn->file_type = c->ftype;
	dn->cookie = c->cookie;
	dn->de_off = c->de_off;
	if (c->fresh)
		nova_dir_link(sih, dn);
}

/* Add @name -> @ino, or re-point an existing @name */
int nova_dir_index_add(struct inode *dir, const char *name, int len,
		       u64 ino, u8 ftype, u64 cookie, u64 de_off)
{
	struct nova_dir_change c;
	int ret;

	ret = nova_dir_index_prepare(dir, name, len, ino, ftype, cookie, de_off,
				     &c);
	if (!ret)
		nova_dir_index_apply(&c);
	return ret;
}

void nova_dir_index_free(struct inode *dir)
{
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;
	struct rb_node *n;

	while ((n = rb_first(&sih->dir_tree))) {
		rb_erase(n, &sih->dir_tree);
		kfree(rb_entry(n, struct nova_dir_node, node));
	}
	xa_destroy(&sih->dir_cookies);
	sih->dir_entries = 0;
	sih->dir_name_bytes = 0;
}

/*
 * Append a directory entry for @name -> @ino (0: removal) to @dir's log
 * at the working tail; it records the link count and mtime the
 * directory has after the operation, @st (NULL: as it is).  Its readdir
 * cookie (@cookie) is its trans_id.  Not visible before the caller
 * commits.
 */
int nova_append_dentry(struct inode *dir, const struct nova_link_state *st,
		       const struct qstr *name, u64 ino, umode_t mode,
		       u64 *tail, u64 *de_off, u64 *cookie)
{
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;
	struct nova_link_state now;
	struct nova_dentry buf;
	struct nova_dentry *de = &buf;
	int len = name->len;
	u16 de_len = NOVA_DENTRY_LEN(len);

	if (len > NOVA_NAME_LEN || !len)
		return -ENAMETOOLONG;
	if (!st) {
		now = nova_link_state_of(dir);
		st = &now;
	}
	memset(de, 0, de_len);
	de->entry_type = NOVA_DIR_LOG;
	de->name_len = len;
	de->de_len = cpu_to_le16(de_len);
	de->file_type = ino ? fs_umode_to_dtype(mode) : DT_UNKNOWN;
	de->links_count = cpu_to_le32(st->nlink);
	de->mtime = cpu_to_le64(nova_ts_to_ns(st->mtime));
	de->ino = cpu_to_le64(ino);
	if (cookie)
		*cookie = sih->trans_id;
	de->cookie = cpu_to_le64(sih->trans_id);
	de->trans_id = cpu_to_le64(sih->trans_id++);
	memcpy(de->name, name->name, len);
	nova_entry_csum(de, de_len);
	return nova_log_append(dir->i_sb, dir, de, de_len, tail, de_off);
}

/* Log replay: one directory entry (called from the inode's log walk) */
int nova_rebuild_entry(struct super_block *sb, u64 off, const void *entry,
		       size_t size, void *arg)
{
	const struct nova_dentry *de = entry;
	struct inode *dir = arg;
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;
	u64 ino = le64_to_cpu(de->ino);
	int len = de->name_len;
	struct nova_dir_node *dn;

	bool dot = (len == 1 && de->name[0] == '.') ||
		   (len == 2 && de->name[0] == '.' && de->name[1] == '.');

	/*
	 * names point to normal inodes; "." and ".." may point to the root.
	 * Only an encrypted directory may hold names with '/' or NUL, and
	 * its context may come later in the log: checked after the replay.
	 */
	if (memchr(de->name, '/', len) || memchr(de->name, '\0', len))
		sih->binary_names = true;
	if ((ino && ino < (dot ? NOVA_ROOT_INO : NOVA_NORMAL_INODE_START)) ||
	    le64_to_cpu(de->cookie) > (u64)LLONG_MAX - 3) {
		nova_error(sb, "directory %llu: bad entry at 0x%llx", nova_ino(dir), off);
		return -EUCLEAN;
	}
	set_nlink(dir, le32_to_cpu(de->links_count));
	nova_set_mtime(dir, nova_ns_to_ts(le64_to_cpu(de->mtime)));
	nova_set_ctime(dir, nova_get_mtime(dir));

	if (dot) {
		if (len == 2)
			sih->parent_ino = ino;
		return 0;
	}
	if (de->invalid)
		return 0;
	if (!ino) {
		dn = nova_dir_find_exact(dir, de->name, len);
		if (dn)
			nova_dir_index_remove(dir, dn);
		return 0;
	}
	return nova_dir_index_add(dir, de->name, len, ino, de->file_type,
				  le64_to_cpu(de->cookie), off);
}

/*
 * A directory stream ends at the cookies its first read (or a read from
 * position 0, after rewinddir()) saw: a name added again since (a rename
 * away and back) gets a cookie past that end, and a stream that followed
 * such names could go on for ever (xfstests generic/736).  POSIX leaves
 * it open whether names added during a read are returned.
 */
struct nova_dir_stream {
	u64 end;		/* cookies below it are listed */
};

static int nova_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct nova_inode_info_header *sih = &NOVA_I(dir)->header;
	struct nova_dir_stream *ds = file->private_data;
	struct fscrypt_str fstr = FSTR_INIT(NULL, 0);
	struct nova_dir_node *dn;
	unsigned long index;
	int ret = 0;

	if (nova_is_shutdown(dir->i_sb))
		return -EIO;
	/* an encrypted directory's names: plaintext with the key, else no-key names */
	if (IS_ENCRYPTED(dir)) {
		ret = fscrypt_prepare_readdir(dir);
		if (!ret)
			ret = fscrypt_fname_alloc_buffer(NOVA_NAME_LEN, &fstr);
		if (ret)
			return ret;
	}
	/* writers hold the directory's lock exclusively: trans_id is stable */
	if (ctx->pos == 0 || !ds->end)
		ds->end = sih->trans_id;
	if (!dir_emit_dots(file, ctx))
		goto out;
	xa_for_each_start(&sih->dir_cookies, index, dn, ctx->pos - 2) {
		const char *name = dn->name;
		int len = dn->name_len;

		if (dn->cookie >= ds->end)
			break;
		ctx->pos = dn->cookie + 2;
		if (fstr.name) {
			struct fscrypt_str disk = FSTR_INIT((u8 *)dn->name,
							    dn->name_len);
			u32 room = fstr.len;

			ret = fscrypt_fname_disk_to_usr(dir, 0, 0, &disk, &fstr);
			if (ret)
				break;
			name = fstr.name;
			len = fstr.len;
			fstr.len = room;
		}
		if (!dir_emit(ctx, name, len, dn->ino, dn->file_type))
			break;
		ctx->pos = dn->cookie + 3;
	}
out:
	fscrypt_fname_free_buffer(&fstr);
	return ret;
}

/*
 * Directory changes are durable when their system call returns; fsync
 * logs what the VFS left in DRAM only (an atime updated by readdir).
 */
static int nova_dir_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	int ret = nova_emergency_state(file_inode(file)->i_sb);

	if (ret)
		return ret;
	ret = nova_write_attr(file_inode(file));
	nova_fence();
	return ret;
}

static int nova_dir_open(struct inode *inode, struct file *file)
{
	int ret;

	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	/* an atime a read leaves is logged, maybe in a new (charged) page */
	ret = dquot_initialize(inode);
	if (ret)
		return ret;
	file->private_data = kzalloc(sizeof(struct nova_dir_stream), GFP_KERNEL);
	return file->private_data ? 0 : -ENOMEM;
}

static int nova_dir_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

const struct file_operations nova_dir_operations = {
	.open		= nova_dir_open,
	.release	= nova_dir_release,
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= nova_readdir,
	.fsync		= nova_dir_fsync,
	.unlocked_ioctl	= nova_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= nova_compat_ioctl,
#endif
};
