// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA POSIX ACLs: stored as extended attributes with an empty name in
 * the two ACL namespaces (xattr.c), in the VFS's xattr form with the ids
 * of the initial user namespace.  Every access ACL entry logs the mode
 * after it, so an ACL and the mode it implies change together.
 * Mount options acl (the default, as ext4) and noacl set SB_POSIXACL.
 */
#include "nova.h"

#ifndef CONFIG_FS_POSIX_ACL
#error "NOVA needs a kernel built with CONFIG_FS_POSIX_ACL"
#endif

static int nova_acl_index(int type)
{
	switch (type) {
	case ACL_TYPE_ACCESS:
		return NOVA_XATTR_INDEX_ACL_ACCESS;
	case ACL_TYPE_DEFAULT:
		return NOVA_XATTR_INDEX_ACL_DEFAULT;
	}
	return -EINVAL;
}

struct posix_acl *nova_get_inode_acl(struct inode *inode, int type, bool rcu)
{
	int index = nova_acl_index(type);
	struct posix_acl *acl;
	void *buf;
	int size, ret;

	if (rcu)
		return ERR_PTR(-ECHILD);
	if (index < 0)
		return ERR_PTR(index);
	for (;;) {
		size = nova_xattr_get(inode, index, "", NULL, 0);
		if (size == -ENODATA || !size)
			return NULL;
		if (size < 0)
			return ERR_PTR(size);
		buf = kmalloc(size, GFP_NOFS);
		if (!buf)
			return ERR_PTR(-ENOMEM);
		ret = nova_xattr_get(inode, index, "", buf, size);
		/* changed in between: ask again */
		if (ret != -ERANGE)
			break;
		kfree(buf);
	}
	if (ret == -ENODATA || !ret)
		acl = NULL;
	else if (ret < 0)
		acl = ERR_PTR(ret);
	else
		acl = posix_acl_from_xattr(&init_user_ns, buf, ret);
	kfree(buf);
	return acl;
}

int nova_set_acl(nova_idmap_t *idmap, nova_acl_target_t *target,
		 struct posix_acl *acl, int type)
{
	struct inode *inode = nova_acl_target_inode(target);
	int index = nova_acl_index(type);
	umode_t mode = inode->i_mode;
	bool mode_changed = false;
	void *value = NULL;
	size_t size = 0;
	int ret;

	if (index < 0)
		return index;
	if (type == ACL_TYPE_ACCESS && acl) {
		ret = posix_acl_update_mode(idmap, inode, &mode, &acl);
		if (ret)
			return ret;
		mode_changed = mode != inode->i_mode;
	}
	if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->i_mode))
		return acl ? -EACCES : 0;
	if (acl) {
		value = nova_posix_acl_to_xattr(acl, &size);
		if (!value)
			return -ENOMEM;
	}
	/*
	 * Every access ACL entry carries the mode after it: the newest one
	 * is live, so a replay ends with the right mode even when the entry
	 * that changed it died (superseded) and its page was freed.
	 */
	ret = nova_xattr_set_mode(inode, index, "", value, size, 0,
				  type == ACL_TYPE_ACCESS ? &mode : NULL,
				  mode_changed);
	/* removing an ACL the inode does not have */
	if (ret == -ENODATA && !value)
		ret = 0;
	kfree(value);
	if (!ret)
		set_cached_acl(inode, type, acl);
	return ret;
}

/* An ACL a new inode inherits; caller holds its log mutex */
int nova_acl_init(struct inode *inode, struct posix_acl *acl, int type)
{
	void *value;
	size_t size;
	int ret;

	value = nova_posix_acl_to_xattr(acl, &size);
	if (!value)
		return -ENOMEM;
	ret = nova_xattr_init_named(inode, nova_acl_index(type), "", value,
				    size);
	kfree(value);
	if (!ret)
		set_cached_acl(inode, type, acl);
	return ret;
}
