// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA extended attributes.
 *
 * An attribute lives in its inode's own log as a group of NOVA_XATTR
 * entries (nova_format.h): part 0 with the name and the first value
 * bytes, then as many further parts as the value needs.  Setting,
 * replacing and removing one appends a new group and commits it with the
 * 8-byte tail store, so each change is atomic; the group it supersedes
 * dies after the commit (part 0 first).  A removal leaves a tombstone
 * group that lives until the next change of that name, so that the
 * removal and its ctime survive a replay.
 *
 * DRAM: an rb-tree per inode, keyed by (namespace, name), of the live
 * groups and tombstones (struct nova_xattr_node), rebuilt by the log
 * replay.  Readers (get, list) hold sih->xattr_sem shared and copy the
 * value out of the log; a change holds the log mutex and takes the
 * semaphore exclusively only to switch the tree over; a thorough GC
 * takes it exclusively while it moves the groups to the new log and
 * frees the old one.  Lock order: log_mutex, then xattr_sem.
 *
 * The namespaces: user., trusted., security. (labels set at create time
 * through security_inode_init_security()) and the POSIX ACLs (acl.c),
 * stored under their own indexes with an empty name.
 */
#include <linux/security.h>
#include <linux/fiemap.h>
#include <linux/quotaops.h>
#include "nova.h"

struct nova_xattr_node {
	struct rb_node node;
	u64 off;		/* part 0 of the live group or tombstone */
	u32 value_len;
	u32 log_bytes;		/* bytes of the group's entries */
	u8 index;
	u8 name_len;
	bool removed;		/* a tombstone: the name has no value */
	char name[];
};

static int nova_xattr_cmp(u8 index, const char *name, u8 len,
			  const struct nova_xattr_node *xn)
{
	if (index != xn->index)
		return index < xn->index ? -1 : 1;
	if (len != xn->name_len)
		return len < xn->name_len ? -1 : 1;
	return memcmp(name, xn->name, len);
}

static struct nova_xattr_node *nova_xattr_find(struct nova_inode_info_header *sih,
					       u8 index, const char *name,
					       size_t len)
{
	struct rb_node *n = sih->xattr_tree.rb_node;

	while (n) {
		struct nova_xattr_node *xn = rb_entry(n, struct nova_xattr_node, node);
		int c = nova_xattr_cmp(index, name, len, xn);

		if (!c)
			return xn;
		n = c < 0 ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/* Insert @new, replacing (and returning) a node of the same name */
static struct nova_xattr_node *nova_xattr_insert(struct nova_inode_info_header *sih,
						 struct nova_xattr_node *new)
{
	struct rb_node **p = &sih->xattr_tree.rb_node, *parent = NULL;

	while (*p) {
		struct nova_xattr_node *xn = rb_entry(*p, struct nova_xattr_node, node);
		int c = nova_xattr_cmp(new->index, new->name, new->name_len, xn);

		if (!c) {
			rb_replace_node(&xn->node, &new->node, &sih->xattr_tree);
			return xn;
		}
		parent = *p;
		p = c < 0 ? &(*p)->rb_left : &(*p)->rb_right;
	}
	rb_link_node(&new->node, parent, p);
	rb_insert_color(&new->node, &sih->xattr_tree);
	return NULL;
}

static struct nova_xattr_node *nova_xattr_node_new(u8 index, const char *name,
						   size_t len, gfp_t gfp)
{
	struct nova_xattr_node *xn = kzalloc(sizeof(*xn) + len, gfp);

	if (!xn)
		return NULL;
	xn->index = index;
	xn->name_len = len;
	memcpy(xn->name, name, len);
	return xn;
}

/* Account a node's live bytes in the inode (tombstones count nothing) */
static void nova_xattr_account(struct nova_inode_info_header *sih,
			       struct nova_xattr_node *xn, int sign)
{
	if (!xn || xn->removed)
		return;
	sih->xattr_count += sign;
	sih->xattr_bytes += sign * (s64)xn->log_bytes;
}

void nova_xattr_free(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_node *xn, *tmp;

	rbtree_postorder_for_each_entry_safe(xn, tmp, &sih->xattr_tree, node)
		kfree(xn);
	sih->xattr_tree = RB_ROOT;
	sih->xattr_count = 0;
	sih->xattr_bytes = 0;
}

/*
 * The entry after the one at @off (@size bytes) in a log whose entries
 * were appended one after the other: the same page, or the start of the
 * next one (nova_log_append() moved on when the entry did not fit).
 */
static u64 nova_xattr_next(struct super_block *sb, u64 off, size_t size)
{
	u64 next = off + size, in_page = next & (NOVA_BLOCK_SIZE - 1);

	if (in_page >= NOVA_LOG_LAST_ENTRY ||
	    *(u8 *)nova_get_block(sb, next) == NOVA_NEXT_PAGE)
		next = le64_to_cpu(nova_page_tail(sb, next - in_page)->next_page);
	return next;
}

/* Is the entry at @off part @part of a group of @index, @value_len? */
static struct nova_xattr_entry *nova_xattr_part(struct super_block *sb, u64 off,
						u16 part, u8 index, u32 value_len)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_xattr_entry *e;

	if (!off || !nova_range_valid(sbi, off, NOVA_XATTR_HEADER) ||
	    (off & (NOVA_BLOCK_SIZE - 1)) + NOVA_XATTR_HEADER > NOVA_LOG_LAST_ENTRY)
		return NULL;
	e = nova_get_block(sb, off);
	if (e->entry_type != NOVA_XATTR || le16_to_cpu(e->part) != part ||
	    e->name_index != index || le32_to_cpu(e->value_len) != value_len)
		return NULL;
	return e;
}

/*
 * The part after @e (at *@off, part *@part) of its group: moves *@off
 * and *@part on; NULL if the next entry is not that part (damage).
 */
static struct nova_xattr_entry *nova_xattr_next_part(struct super_block *sb,
						     u64 *off, u16 *part,
						     const struct nova_xattr_entry *e)
{
	*off = nova_xattr_next(sb, *off, le16_to_cpu(e->xe_len));
	return nova_xattr_part(sb, *off, ++*part, e->name_index,
			       le32_to_cpu(e->value_len));
}

/*
 * The same for the group of the live node @xn, whose parts a walk after
 * the replay finds damaged only if pmem changed under it: logged, NULL.
 */
static struct nova_xattr_entry *nova_xattr_group_next(struct super_block *sb,
						      struct inode *inode,
						      const struct nova_xattr_node *xn,
						      u64 *off, u16 *part,
						      const struct nova_xattr_entry *e)
{
	struct nova_xattr_entry *next = nova_xattr_next_part(sb, off, part, e);

	if (!next)
		nova_error(sb, "inode %llu: extended attribute at 0x%llx is damaged",
			   nova_ino(inode), xn->off);
	return next;
}

/*
 * Copy the value of the group at @off into @buf (value_len bytes).
 * Caller holds xattr_sem.  The group was validated by the replay or
 * written here, so a mismatch is damage found later: -EUCLEAN.
 */
static int nova_xattr_read_value(struct super_block *sb, struct inode *inode,
				 u64 off, void *buf)
{
	struct nova_xattr_entry *e = nova_get_block(sb, off);
	u32 value_len = le32_to_cpu(e->value_len), got = 0;
	u16 part = 0;
	const u8 *data = e->data + e->name_len;

	for (;;) {
		u16 n = le16_to_cpu(e->part_len);

		if (n > value_len - got)
			goto bad;
		if (nova_read_pmem(buf + got, data, n))
			return -EIO;
		got += n;
		if (got == value_len)
			return 0;
		e = nova_xattr_next_part(sb, &off, &part, e);
		if (!e)
			goto bad;
		data = e->data;
	}
bad:
	nova_error(sb, "inode %llu: extended attribute at 0x%llx is damaged",
		   nova_ino(inode), off);
	return -EUCLEAN;
}

/* Mark every entry of the group at @off dead, part 0 first */
static void nova_xattr_invalidate(struct super_block *sb, u64 off)
{
	struct nova_xattr_entry *e = nova_get_block(sb, off);
	u32 value_len = le32_to_cpu(e->value_len), got = le16_to_cpu(e->part_len);
	u16 part = 0;

	nova_invalidate_entry(sb, off);
	if (le32_to_cpu(e->flags) & NOVA_XATTR_REMOVE)
		return;
	if (got < value_len)
		NOVA_CRASH_POINT(CP_XATTR_HALF_DEAD);
	while (got < value_len) {
		e = nova_xattr_next_part(sb, &off, &part, e);
		if (!e)
			return;
		nova_invalidate_entry(sb, off);
		got += le16_to_cpu(e->part_len);
	}
}

/* One change: (index, name, value), @value NULL for a tombstone */
struct nova_xattr_desc {
	u8 index;
	const char *name;
	size_t name_len;
	const void *value;
	size_t size;
	u32 flags;
	umode_t mode;
	s64 ctime;
};

/*
 * Append the group of @d to @inode's log at the working tail *@tail.
 * Returns the offset of part 0 and the group's bytes.
 */
static int nova_xattr_write_group(struct inode *inode, const struct nova_xattr_desc *d,
				  u64 *tail, u64 *part0, u32 *bytes)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_entry *e;
	size_t done = 0;
	u32 total = 0;
	u16 part = 0;
	int ret = 0;

	e = kmalloc(NOVA_XATTR_ENTRY_MAX, GFP_NOFS);
	if (!e)
		return -ENOMEM;
	do {
		size_t nlen = part ? 0 : d->name_len;
		size_t room = NOVA_XATTR_PART_ROOM(nlen);
		size_t n = min(room, d->size - done);
		size_t len = NOVA_XATTR_LEN(nlen, n);
		u64 off;

		memset(e, 0, len);
		e->entry_type = NOVA_XATTR;
		e->name_index = d->index;
		e->name_len = nlen;
		e->xe_len = cpu_to_le16(len);
		e->part_len = cpu_to_le16(n);
		e->value_len = cpu_to_le32(d->size);
		e->ctime = cpu_to_le64(d->ctime);
		e->part = cpu_to_le16(part);
		if (!part) {
			e->flags = cpu_to_le32(d->flags);
			e->mode = cpu_to_le16(d->mode);
			e->value_csum = cpu_to_le32(nova_crc32c(d->value ?: "", d->size));
			memcpy(e->data, d->name, nlen);
		}
		if (n)
			memcpy(e->data + nlen, d->value + done, n);
		e->trans_id = cpu_to_le64(sih->trans_id++);
		nova_entry_csum(e, len);
		ret = nova_log_append(inode->i_sb, inode, e, len, tail, &off);
		if (ret)
			break;
		if (!part)
			*part0 = off;
		total += len;
		done += n;
		part++;
	} while (done < d->size);
	kfree(e);
	*bytes = total;
	return ret;
}

/*
 * Append and commit one change.  Caller holds the log mutex (and the
 * inode lock, or owns a new inode).  On success the tree points at the
 * new group and the one it supersedes is dead.
 */
static int nova_xattr_commit(struct inode *inode, const struct nova_xattr_desc *d)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_node *xn, *old, *cur;
	u64 tail = sih->log_tail, part0 = 0;
	unsigned long qold = 0, qnew = 0;
	s64 live;
	u32 bytes;
	int ret;

	xn = nova_xattr_node_new(d->index, d->name, d->name_len, GFP_NOFS);
	if (!xn)
		return -ENOMEM;
	/* the first extended attribute of a file system sets the feature */
	nova_set_feature(sb, &NOVA_SB(sb)->s_super.s_feature_incompat,
			 NOVA_FEATURE_INCOMPAT_XATTR);
	ret = nova_xattr_write_group(inode, d, &tail, &part0, &bytes);
	if (!ret)
		ret = nova_append_dead_dir_mark(inode, &tail);
	if (!ret) {
		/* the live bytes after the change, and their quota (quota.c) */
		cur = nova_xattr_find(sih, d->index, d->name, d->name_len);
		live = sih->xattr_bytes -
		       (cur && !cur->removed ? cur->log_bytes : 0) +
		       (d->flags & NOVA_XATTR_REMOVE ? 0 : bytes);
		qold = nova_xattr_quota_blocks(inode, sih->xattr_bytes);
		qnew = nova_xattr_quota_blocks(inode, live);
		if (qnew > qold)
			ret = nova_quota_charge(inode, qnew - qold);
	}
	if (ret) {
		nova_drop_dead_dir_mark(inode);
		kfree(xn);
		return ret;
	}
	nova_log_commit(sb, inode, tail);
	nova_link_change_committed(inode);

	xn->off = part0;
	xn->value_len = d->size;
	xn->log_bytes = bytes;
	xn->removed = d->flags & NOVA_XATTR_REMOVE;
	down_write(&sih->xattr_sem);
	old = nova_xattr_insert(sih, xn);
	nova_xattr_account(sih, old, -1);
	nova_xattr_account(sih, xn, 1);
	up_write(&sih->xattr_sem);
	if (old) {
		NOVA_CRASH_POINT(CP_XATTR_COMMITTED);
		nova_xattr_invalidate(sb, old->off);
		kfree(old);
	}
	if (qnew < qold)
		nova_quota_release(inode, qold - qnew);
	nova_set_ctime(inode, nova_ns_to_ts(d->ctime));
	if (d->flags & NOVA_XATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) | (d->mode & ~S_IFMT);
	return 0;
}

/* Get: the value's size with @size 0, else copy it; -ENODATA, -ERANGE */
int nova_xattr_get(struct inode *inode, u8 index, const char *name,
		   void *buffer, size_t size)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_node *xn;
	size_t len = strlen(name);
	int ret;

	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	if (len > NOVA_XATTR_NAME_MAX)
		return -ERANGE;
	down_read(&sih->xattr_sem);
	xn = nova_xattr_find(sih, index, name, len);
	if (!xn || xn->removed)
		ret = -ENODATA;
	else if (!size)
		ret = xn->value_len;
	else if (size < xn->value_len)
		ret = -ERANGE;
	else
		ret = nova_xattr_read_value(inode->i_sb, inode, xn->off, buffer) ?:
		      xn->value_len;
	up_read(&sih->xattr_sem);
	return ret;
}

/*
 * Set (@value not NULL) or remove one attribute, with XATTR_CREATE and
 * XATTR_REPLACE.  @mode (not NULL): the inode's mode after the change,
 * logged in the same entry (acl.c); @force: log a removal even when the
 * name has no value (the mode changed).  Caller holds the inode lock.
 */
int nova_xattr_set_mode(struct inode *inode, u8 index, const char *name,
			const void *value, size_t size, int flags,
			const umode_t *mode, bool force)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_desc d = {
		.index = index,
		.name = name,
		.name_len = strlen(name),
		.value = value,
		.size = value ? size : 0,
		.flags = value ? 0 : NOVA_XATTR_REMOVE,
	};
	struct nova_xattr_node *xn;
	bool exists;
	int ret;

	ret = nova_emergency_state(inode->i_sb);
	if (ret)
		return ret;
	if (d.name_len > NOVA_XATTR_NAME_MAX)
		return -ERANGE;
	if (d.size > NOVA_XATTR_VALUE_MAX)
		return -E2BIG;
	if (mode) {
		d.flags |= NOVA_XATTR_MODE;
		d.mode = *mode;
	}
	/* its owner is charged: a directory's log pages, or the attributes */
	ret = dquot_initialize(inode);
	if (ret)
		return ret;
	mutex_lock(&sih->log_mutex);
	xn = nova_xattr_find(sih, index, name, d.name_len);
	exists = xn && !xn->removed;
	if ((flags & XATTR_CREATE) && exists)
		ret = -EEXIST;
	else if (((flags & XATTR_REPLACE) || !value) && !exists && !force)
		ret = -ENODATA;
	else {
		d.ctime = nova_ts_to_ns(current_time(inode));
		ret = nova_xattr_commit(inode, &d);
	}
	mutex_unlock(&sih->log_mutex);
	if (!ret)
		nova_gc_maybe(inode);
	return ret;
}

int nova_xattr_set(struct inode *inode, u8 index, const char *name,
		   const void *value, size_t size, int flags)
{
	return nova_xattr_set_mode(inode, index, name, value, size, flags,
				   NULL, false);
}

/* ---- log replay, thorough GC ---- */

/*
 * Replay one NOVA_XATTR entry (inode.c: nova_replay_entry()).  The state
 * of a group being read is in sih->xr between calls; nova_xattr_replay_end()
 * checks that the last one is complete.
 */
int nova_xattr_replay(struct super_block *sb, struct inode *inode, u64 off,
		      const struct nova_xattr_entry *e)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_replay *xr = &sih->xr;
	u32 value_len = le32_to_cpu(e->value_len), flags = le32_to_cpu(e->flags);
	u16 part = le16_to_cpu(e->part), n = le16_to_cpu(e->part_len);
	const char *why;

	if (part) {
		/* a part of a dead group, or one without a part 0: skipped */
		if (!xr->live)
			return 0;
		why = "broken part sequence";
		if (part != xr->next_part || e->name_index != xr->index ||
		    value_len != xr->value_len || e->name_len ||
		    n > value_len - xr->got)
			goto bad;
		xr->crc = nova_crc32c_update(xr->crc, e->data, n);
		xr->got += n;
		xr->next_part++;
	} else {
		why = "incomplete value";
		if (xr->live)
			goto bad;
		/* a dead part 0 still carries the inode's ctime */
		nova_set_ctime(inode, nova_ns_to_ts(le64_to_cpu(e->ctime)));
		if (nova_entry_is_invalid(e)) {
			xr->live = false;
			return 0;
		}
		why = "bad header";
		if (!NOVA_XATTR_INDEX_VALID(e->name_index) ||
		    (flags & ~NOVA_XATTR_FLAGS) || value_len > NOVA_XATTR_VALUE_MAX ||
		    n > value_len || ((flags & NOVA_XATTR_REMOVE) && value_len) ||
		    (!e->name_len) != (e->name_index == NOVA_XATTR_INDEX_ACL_ACCESS ||
				       e->name_index == NOVA_XATTR_INDEX_ACL_DEFAULT))
			goto bad;
		if (flags & NOVA_XATTR_MODE)
			inode->i_mode = (inode->i_mode & S_IFMT) |
					(le16_to_cpu(e->mode) & ~S_IFMT);
		xr->live = true;
		xr->off = off;
		xr->index = e->name_index;
		xr->value_len = value_len;
		xr->got = n;
		xr->next_part = 1;
		xr->bytes = 0;
		xr->crc = nova_crc32c_update(~0U, e->data + e->name_len, n);
	}
	xr->bytes += le16_to_cpu(e->xe_len);
	if (xr->got == xr->value_len) {
		const struct nova_xattr_entry *p0 = nova_get_block(sb, xr->off);
		struct nova_xattr_node *xn, *old;

		xr->live = false;
		why = "bad value checksum";
		if (~xr->crc != le32_to_cpu(p0->value_csum))
			goto bad;
		xn = nova_xattr_node_new(p0->name_index, p0->data, p0->name_len,
					 GFP_KERNEL);
		if (!xn)
			return -ENOMEM;
		xn->off = xr->off;
		xn->value_len = xr->value_len;
		xn->log_bytes = xr->bytes;
		xn->removed = le32_to_cpu(p0->flags) & NOVA_XATTR_REMOVE;
		old = nova_xattr_insert(sih, xn);
		nova_xattr_account(sih, old, -1);
		nova_xattr_account(sih, xn, 1);
		kfree(old);
	}
	return 0;
bad:
	nova_error(sb, "inode %llu: extended attribute entry at 0x%llx: %s",
		   nova_ino(inode), off, why);
	return -EUCLEAN;
}

int nova_xattr_replay_end(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;

	if (!sih->xr.live)
		return 0;
	nova_error(inode->i_sb, "inode %llu: extended attribute at 0x%llx ends early",
		   nova_ino(inode), sih->xr.off);
	return -EUCLEAN;
}

/*
 * Thorough GC: copy every live group into the new log with @append, part
 * by part (new trans_ids, the inode's ctime, no mode: the set-attribute
 * entry the GC writes after them has it).
 */
int nova_xattr_gc_write(struct inode *inode, int (*append)(void *, const void *,
							    size_t, u64 *),
			void *ctx)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	__le64 ctime = cpu_to_le64(nova_ts_to_ns(nova_get_ctime(inode)));
	struct nova_xattr_entry *buf;
	struct rb_node *n;
	int ret = 0;

	if (!sih->xattr_count)
		return 0;
	buf = kmalloc(NOVA_XATTR_ENTRY_MAX, GFP_NOFS);
	if (!buf)
		return -ENOMEM;
	for (n = rb_first(&sih->xattr_tree); n && !ret; n = rb_next(n)) {
		struct nova_xattr_node *xn = rb_entry(n, struct nova_xattr_node, node);
		struct nova_xattr_entry *e;
		u64 off = xn->off;
		u32 got = 0;
		u16 part = 0;

		if (xn->removed)
			continue;
		e = nova_get_block(sb, off);
		for (;;) {
			size_t len = le16_to_cpu(e->xe_len);

			if (len > NOVA_XATTR_ENTRY_MAX ||
			    nova_read_pmem(buf, e, len)) {
				ret = -EIO;
				break;
			}
			buf->invalid = 0;
			buf->ctime = ctime;
			if (!part) {
				buf->flags = 0;
				buf->mode = 0;
			}
			buf->trans_id = cpu_to_le64(sih->trans_id++);
			nova_entry_csum(buf, len);
			ret = append(ctx, buf, len, NULL);
			got += le16_to_cpu(buf->part_len);
			if (ret || got >= xn->value_len)
				break;
			e = nova_xattr_group_next(sb, inode, xn, &off, &part, e);
			if (!e) {
				ret = -EUCLEAN;
				break;
			}
		}
	}
	kfree(buf);
	return ret;
}

/*
 * Thorough GC, after the switch: point the tree at the groups of the new
 * log (part 0 at @off) and drop the tombstones.  Caller holds xattr_sem
 * exclusively.
 */
void nova_xattr_gc_repoint(struct inode *inode, u64 off,
			   const struct nova_xattr_entry *e)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_node *xn;

	if (le16_to_cpu(e->part))
		return;
	xn = nova_xattr_find(sih, e->name_index, e->data, e->name_len);
	if (xn)
		xn->off = off;
}

void nova_xattr_gc_drop_removed(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct rb_node *n = rb_first(&sih->xattr_tree);

	while (n) {
		struct nova_xattr_node *xn = rb_entry(n, struct nova_xattr_node, node);

		n = rb_next(n);
		if (xn->removed) {
			rb_erase(&xn->node, &sih->xattr_tree);
			kfree(xn);
		}
	}
}

bool nova_xattr_has_acl(struct inode *inode)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct nova_xattr_node *xn;
	bool ret;

	down_read(&sih->xattr_sem);
	xn = nova_xattr_find(sih, NOVA_XATTR_INDEX_ACL_ACCESS, "", 0);
	ret = xn && !xn->removed;
	xn = nova_xattr_find(sih, NOVA_XATTR_INDEX_ACL_DEFAULT, "", 0);
	ret |= xn && !xn->removed;
	up_read(&sih->xattr_sem);
	return ret;
}

/* ---- VFS: handlers, listxattr, labels of new inodes ---- */

/*
 * FIEMAP_FLAG_XATTR: where the live attributes are on pmem.  A group's
 * entries sit in the inode's log among its other entries, so each run of
 * entries that follow each other on the device is one extent flagged
 * FIEMAP_EXTENT_DATA_INLINE (data mixed with metadata; the kernel adds
 * NOT_ALIGNED).  Logical offsets count the attributes' log bytes in
 * (namespace, name) order; the requested range does not apply (as ext4).
 */
int nova_xattr_fiemap(struct inode *inode, struct fiemap_extent_info *fi)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	u64 pos = 0, lg = 0, ph = 0, ln = 0;	/* the extent not reported yet */
	struct rb_node *n;
	int ret = 0;

	down_read(&sih->xattr_sem);
	for (n = rb_first(&sih->xattr_tree); n && !ret; n = rb_next(n)) {
		struct nova_xattr_node *xn = rb_entry(n, struct nova_xattr_node, node);
		struct nova_xattr_entry *e = nova_get_block(sb, xn->off);
		u64 off = xn->off;
		u32 got = 0;
		u16 part = 0;

		if (xn->removed)
			continue;
		for (;;) {
			u16 size = le16_to_cpu(e->xe_len);

			if (ln && off == ph + ln) {
				ln += size;
			} else {
				if (ln) {
					ret = fiemap_fill_next_extent(fi, lg, ph, ln,
							FIEMAP_EXTENT_DATA_INLINE);
					ln = 0;
					if (ret)
						break;
				}
				lg = pos;
				ph = off;
				ln = size;
			}
			pos += size;
			got += le16_to_cpu(e->part_len);
			if (got >= xn->value_len)
				break;
			e = nova_xattr_group_next(sb, inode, xn, &off, &part, e);
			if (!e) {
				ret = -EUCLEAN;
				break;
			}
		}
	}
	if (ln && !ret)
		ret = fiemap_fill_next_extent(fi, lg, ph, ln,
					      FIEMAP_EXTENT_DATA_INLINE |
					      FIEMAP_EXTENT_LAST);
	up_read(&sih->xattr_sem);
	/* 1: the caller's array is full, or the last extent is in it */
	return ret < 0 ? ret : 0;
}

static const char *nova_xattr_prefix(struct inode *inode, u8 index)
{
	switch (index) {
	case NOVA_XATTR_INDEX_USER:
		return XATTR_USER_PREFIX;
	case NOVA_XATTR_INDEX_TRUSTED:
		return capable(CAP_SYS_ADMIN) ? XATTR_TRUSTED_PREFIX : NULL;
	case NOVA_XATTR_INDEX_SECURITY:
		return XATTR_SECURITY_PREFIX;
	case NOVA_XATTR_INDEX_ACL_ACCESS:
		return IS_POSIXACL(inode) ? XATTR_NAME_POSIX_ACL_ACCESS : NULL;
	case NOVA_XATTR_INDEX_ACL_DEFAULT:
		return IS_POSIXACL(inode) ? XATTR_NAME_POSIX_ACL_DEFAULT : NULL;
	}
	return NULL;
}

ssize_t nova_listxattr(struct dentry *dentry, char *buffer, size_t size)
{
	struct inode *inode = d_inode(dentry);
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	struct rb_node *n;
	size_t total = 0;
	ssize_t ret;

	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	down_read(&sih->xattr_sem);
	for (n = rb_first(&sih->xattr_tree); n; n = rb_next(n)) {
		struct nova_xattr_node *xn = rb_entry(n, struct nova_xattr_node, node);
		const char *prefix = nova_xattr_prefix(inode, xn->index);
		size_t plen, len;

		if (xn->removed || !prefix)
			continue;
		plen = strlen(prefix);
		len = plen + xn->name_len + 1;
		if (buffer) {
			if (total + len > size) {
				ret = -ERANGE;
				goto out;
			}
			memcpy(buffer + total, prefix, plen);
			memcpy(buffer + total + plen, xn->name, xn->name_len);
			buffer[total + len - 1] = '\0';
		}
		total += len;
	}
	ret = total;
out:
	up_read(&sih->xattr_sem);
	return ret;
}

static int nova_xattr_handler_get(const struct xattr_handler *handler,
				  struct dentry *unused, struct inode *inode,
				  const char *name, void *buffer, size_t size)
{
	return nova_xattr_get(inode, handler->flags, name, buffer, size);
}

static int nova_xattr_handler_set(const struct xattr_handler *handler,
				  nova_idmap_t *idmap, struct dentry *unused,
				  struct inode *inode, const char *name,
				  const void *value, size_t size, int flags)
{
	return nova_xattr_set(inode, handler->flags, name, value, size, flags);
}

static bool nova_xattr_trusted_list(struct dentry *dentry)
{
	return capable(CAP_SYS_ADMIN);
}

static const struct xattr_handler nova_xattr_user_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.flags	= NOVA_XATTR_INDEX_USER,
	.get	= nova_xattr_handler_get,
	.set	= nova_xattr_handler_set,
};

static const struct xattr_handler nova_xattr_trusted_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.flags	= NOVA_XATTR_INDEX_TRUSTED,
	.list	= nova_xattr_trusted_list,
	.get	= nova_xattr_handler_get,
	.set	= nova_xattr_handler_set,
};

static const struct xattr_handler nova_xattr_security_handler = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.flags	= NOVA_XATTR_INDEX_SECURITY,
	.get	= nova_xattr_handler_get,
	.set	= nova_xattr_handler_set,
};

NOVA_XATTR_HANDLERS_QUAL nova_xattr_handlers[] = {
	&nova_xattr_user_handler,
	&nova_xattr_trusted_handler,
	&nova_xattr_security_handler,
	NOVA_ACL_XATTR_HANDLERS
	NULL
};

/* The security module's labels of a new inode, in its own log */
static int nova_initxattrs(struct inode *inode, const struct xattr *xattrs,
			   void *fs_info)
{
	const struct xattr *x;
	int ret = 0;

	for (x = xattrs; x->name && !ret; x++) {
		size_t len = strlen(x->name);

		if (!len || len > NOVA_XATTR_NAME_MAX ||
		    x->value_len > NOVA_XATTR_VALUE_MAX)
			return -EINVAL;
		ret = nova_xattr_init_named(inode, NOVA_XATTR_INDEX_SECURITY,
					    x->name, x->value, x->value_len);
	}
	return ret;
}

/*
 * A new inode's attributes: its encryption context, the ACLs it inherits
 * (from posix_acl_create()) and its security labels, committed in its own
 * log before the directory
 * entry that makes it reachable.  The inode is not valid yet, so a crash
 * before that loses it whole.
 */
int nova_init_new_xattrs(struct inode *dir, struct inode *inode,
			 const struct qstr *qstr, struct posix_acl *default_acl,
			 struct posix_acl *acl, bool encrypt)
{
	struct nova_inode_info_header *sih = &NOVA_I(inode)->header;
	int ret = 0;

	mutex_lock(&sih->log_mutex);
	/* its fscrypt context (fscrypt_prepare_new_inode() said so): crypto.c */
	if (encrypt)
		ret = fscrypt_set_context(inode, inode);
	if (!ret && default_acl)
		ret = nova_acl_init(inode, default_acl, ACL_TYPE_DEFAULT);
	if (!ret && acl)
		ret = nova_acl_init(inode, acl, ACL_TYPE_ACCESS);
	if (!ret)
		ret = security_inode_init_security(inode, dir, qstr,
						   nova_initxattrs, NULL);
	mutex_unlock(&sih->log_mutex);
	return ret;
}

/*
 * An attribute of a new inode: an ACL (acl.c, empty @name), its security
 * labels or its fscrypt context (crypto.c); caller holds the log mutex
 */
int nova_xattr_init_named(struct inode *inode, u8 index, const char *name,
			  const void *value, size_t size)
{
	struct nova_xattr_desc d = {
		.index = index,
		.name = name,
		.name_len = strlen(name),
		.value = value,
		.size = size,
		.ctime = nova_ts_to_ns(nova_get_ctime(inode)),
	};

	if (size > NOVA_XATTR_VALUE_MAX)
		return -E2BIG;
	return nova_xattr_commit(inode, &d);
}

