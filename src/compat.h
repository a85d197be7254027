/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: the one place where kernel versions differ.  Every difference is
 * decided by a feature probe (compat/probes/NAME.c -> HAVE_NAME in the
 * generated nova_config.h), never by a version number, so distribution
 * kernels that backport an API take the new path.  The rest of the file
 * system uses only the nova_* names below.  Supporting a new kernel: add
 * a probe and its branch here.  The oldest kernel is 6.1 (probe.sh
 * refuses older ones).  The typedefs are the point of this file: one
 * name for a type that differs between kernels.
 */
#ifndef NOVA_COMPAT_H
#define NOVA_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/dax.h>
#include <linux/memremap.h>
#include <linux/fileattr.h>
#include <linux/slab.h>

#include <linux/crc32.h>
#include <linux/xattr.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/fscrypt.h>
#include <linux/unicode.h>

#include "nova_config.h"

/* An inode number for printing with %llu (7.0: i_ino is u64) */
static inline u64 nova_ino(const struct inode *inode)
{
	return inode->i_ino;
}

/* Is @inode new from iget_locked()?  (7.0: i_state has accessors) */
static inline bool nova_inode_is_new(struct inode *inode)
{
#ifdef HAVE_INODE_STATE_READ
	return inode_state_read_once(inode) & I_NEW;
#else
	return inode->i_state & I_NEW;
#endif
}

/*
 * An inode's dquot pointer: __rcu-annotated since 6.8.  Taken from
 * get_dquots() itself, which needs no probe: the difference is only
 * sparse's.
 */
typedef typeof(*((const struct super_operations *)NULL)->get_dquots(NULL))
	nova_dquot_ptr_t;

/* Idmapped mounts: struct mnt_idmap (6.3) or the user namespace before */
#ifdef HAVE_MNT_IDMAP
typedef struct mnt_idmap nova_idmap_t;
#else
typedef struct user_namespace nova_idmap_t;
#endif

/* The identity mapping, where an idmap argument is needed */
#ifdef HAVE_MNT_IDMAP
#define nova_nop_idmap		(&nop_mnt_idmap)
#else
#define nova_nop_idmap		(&init_user_ns)
#endif

static inline void nova_fillattr(nova_idmap_t *idmap, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
#ifdef HAVE_GENERIC_FILLATTR_REQUEST_MASK
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/* ->mkdir() returns a dentry (6.15): NULL means @dentry was used */
#ifdef HAVE_MKDIR_DENTRY
typedef struct dentry *nova_mkdir_ret_t;
#define nova_mkdir_ret(err)	((err) ? ERR_PTR(err) : NULL)
#else
typedef int nova_mkdir_ret_t;
#define nova_mkdir_ret(err)	(err)
#endif

/* FS_IOC_[GS]ETFLAGS / FSGETXATTR: struct file_kattr (6.17) */
#ifdef HAVE_FILE_KATTR
typedef struct file_kattr nova_fileattr_t;
#else
typedef struct fileattr nova_fileattr_t;
#endif

/* Inode timestamps: accessors (ctime 6.6, atime and mtime 6.7) */
static inline struct timespec64 nova_get_ctime(const struct inode *inode)
{
#ifdef HAVE_INODE_GET_CTIME
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

static inline void nova_set_ctime(struct inode *inode, struct timespec64 ts)
{
#ifdef HAVE_INODE_GET_CTIME
	inode_set_ctime_to_ts(inode, ts);
#else
	inode->i_ctime = ts;
#endif
}

/* Set ctime to now and return it */
static inline struct timespec64 nova_set_ctime_current(struct inode *inode)
{
#ifdef HAVE_INODE_GET_CTIME
	return inode_set_ctime_current(inode);
#else
	inode->i_ctime = current_time(inode);
	return inode->i_ctime;
#endif
}

static inline struct timespec64 nova_get_mtime(const struct inode *inode)
{
#ifdef HAVE_INODE_GET_MTIME
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

static inline void nova_set_mtime(struct inode *inode, struct timespec64 ts)
{
#ifdef HAVE_INODE_GET_MTIME
	inode_set_mtime_to_ts(inode, ts);
#else
	inode->i_mtime = ts;
#endif
}

static inline struct timespec64 nova_get_atime(const struct inode *inode)
{
#ifdef HAVE_INODE_GET_MTIME
	return inode_get_atime(inode);
#else
	return inode->i_atime;
#endif
}

static inline void nova_set_atime(struct inode *inode, struct timespec64 ts)
{
#ifdef HAVE_INODE_GET_MTIME
	inode_set_atime_to_ts(inode, ts);
#else
	inode->i_atime = ts;
#endif
}

/* mtime = ctime = now */
static inline void nova_touch_mctime(struct inode *inode)
{
	nova_set_mtime(inode, nova_set_ctime_current(inode));
}

/* Slab flags: SLAB_MEM_SPREAD is gone (6.8) */
#ifdef SLAB_MEM_SPREAD
#define NOVA_SLAB_MEM_SPREAD	SLAB_MEM_SPREAD
#else
#define NOVA_SLAB_MEM_SPREAD	0
#endif

/* VMA flags are set through vm_flags_set() (6.3) */
static inline void nova_vm_flags_set(struct vm_area_struct *vma,
				     vm_flags_t flags)
{
#ifdef HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * MAP_SYNC mmaps allowed: an initializer of struct file_operations
 * (6.11: fop_flags)
 */
#ifdef HAVE_FOP_FLAGS
#define NOVA_FOP_MMAP_SYNC	.fop_flags = FOP_MMAP_SYNC
#else
#define NOVA_FOP_MMAP_SYNC	.mmap_supported_flags = MAP_SYNC
#endif

/* splice_read of a DAX file (6.5: generic_file_splice_read is gone) */
#ifdef HAVE_FILEMAP_SPLICE_READ
#define nova_splice_read	filemap_splice_read
#else
#define nova_splice_read	generic_file_splice_read
#endif

/* DAX faults: enum page_entry_size before 6.6, a page order since */
#ifdef HAVE_PAGE_ENTRY_SIZE
typedef enum page_entry_size nova_fault_size_t;
#define NOVA_FAULT_PTE	PE_SIZE_PTE
#define NOVA_FAULT_PMD	PE_SIZE_PMD
#else
typedef unsigned int nova_fault_size_t;
#define NOVA_FAULT_PTE	0
#define NOVA_FAULT_PMD	PMD_ORDER
#endif

/* DAX pfns: pfn_t before 6.17, a plain pfn since */
#ifdef HAVE_PFN_T
#include <linux/pfn_t.h>
typedef pfn_t nova_pfn_t;

/* The pfn of a DAX mapping, or 0 when it has no struct page */
static inline unsigned long nova_pfn_value(nova_pfn_t pfn)
{
	return pfn_t_has_page(pfn) ? pfn_t_to_pfn(pfn) : 0;
}
#else
typedef unsigned long nova_pfn_t;

static inline unsigned long nova_pfn_value(nova_pfn_t pfn)
{
	return pfn;
}
#endif

/*
 * Wait until no DAX page of [start, end] of @inode is pinned
 * (get_user_pages), calling @wait (which drops the invalidate lock and
 * schedules) while one is.  Since 6.15 fs DAX pages are refcounted
 * folios, idle at reference count 0 (it was 1), and the kernel has the
 * loop itself.  Returns 0, or -ERESTARTSYS on a signal.
 */
static inline int nova_dax_break_layout(struct inode *inode, loff_t start,
					loff_t end,
					void (*wait)(struct inode *inode))
{
#ifdef HAVE_DAX_PAGE_IS_IDLE
	return dax_break_layout(inode, start, end, wait);
#else
	struct page *page;
	int ret = 0;

	do {
		page = dax_layout_busy_page_range(inode->i_mapping, start, end);
		if (!page)
			break;
		ret = ___wait_var_event(&page->_refcount,
					atomic_read(&page->_refcount) == 1,
					TASK_INTERRUPTIBLE, 0, 0, wait(inode));
	} while (!ret);
	return ret;
#endif
}

/*
 * Before 6.15 dax_layout_busy_page_range() skips a file that nobody maps,
 * although a page pinned through a mapping that is gone since (vmsplice,
 * then munmap) still is: the caller then checks the pages of its blocks
 * itself, with nova_dax_wait_page_idle().
 */
#ifdef HAVE_DAX_PAGE_IS_IDLE
#define NOVA_DAX_BUSY_SEES_UNMAPPED	true
#else
#define NOVA_DAX_BUSY_SEES_UNMAPPED	false
#endif

/*
 * Before 6.15: if @page (the pmem page of a block of @inode) is pinned,
 * wait until it is idle, calling @wait as above.  Returns 0 when it was
 * idle, 1 after a wait, or -ERESTARTSYS on a signal.
 */
static inline int nova_dax_wait_page_idle(struct inode *inode,
					  struct page *page,
					  void (*wait)(struct inode *inode))
{
#ifdef HAVE_DAX_PAGE_IS_IDLE
	return 0;
#else
	if (atomic_read(&page->_refcount) == 1)
		return 0;
	return ___wait_var_event(&page->_refcount,
				 atomic_read(&page->_refcount) == 1,
				 TASK_INTERRUPTIBLE, 0, 0, wait(inode)) ?: 1;
#endif
}

/* Evict: since 6.15, wait for every DAX page of the inode to be idle */
static inline void nova_dax_break_layout_final(struct inode *inode)
{
#ifdef HAVE_DAX_PAGE_IS_IDLE
	dax_break_layout_final(inode);
#endif
}

/* CRC32C update, no pre- or post-inversion (6.14: crc32c()) */
static inline u32 nova_crc32c_update(u32 crc, const void *p, unsigned long len)
{
#ifdef HAVE_CRC32C_LE
	return __crc32c_le(crc, p, len);
#else
	return crc32c(crc, p, len);
#endif
}

/*
 * Extended attributes and POSIX ACLs.  sb->s_xattr is an array of const
 * pointers since 6.7.  Before 6.2 the ACL names go through the VFS's
 * xattr handlers to ->get_acl() and ->set_acl(inode); since, the VFS
 * calls ->get_inode_acl() and ->set_acl(dentry) itself.
 */
#ifdef HAVE_S_XATTR_CONST
#define NOVA_XATTR_HANDLERS_QUAL	const struct xattr_handler * const
#else
#define NOVA_XATTR_HANDLERS_QUAL	const struct xattr_handler *
#endif

#ifdef HAVE_GET_INODE_ACL
typedef struct dentry nova_acl_target_t;
#define nova_acl_target_inode(t)	d_inode(t)
#define NOVA_ACL_XATTR_HANDLERS
#define NOVA_GET_ACL_OP			get_inode_acl
#else
typedef struct inode nova_acl_target_t;
#define nova_acl_target_inode(t)	(t)
#define NOVA_ACL_XATTR_HANDLERS \
	&posix_acl_access_xattr_handler, &posix_acl_default_xattr_handler,
#define NOVA_GET_ACL_OP			get_acl
#endif

static inline int nova_posix_acl_chmod(nova_idmap_t *idmap,
				       struct dentry *dentry, umode_t mode)
{
#ifdef HAVE_POSIX_ACL_CHMOD_DENTRY
	return posix_acl_chmod(idmap, dentry, mode);
#else
	return posix_acl_chmod(idmap, d_inode(dentry), mode);
#endif
}

/* File handles: the ino32 encoder is explicit since 6.7 (NULL before) */
#ifdef HAVE_GENERIC_ENCODE_INO32_FH
#define NOVA_ENCODE_FH		generic_encode_ino32_fh
#else
#define NOVA_ENCODE_FH		NULL
#endif

/* An ACL in the VFS's xattr form, in a kmalloc()ed buffer (7.0) */
static inline void *nova_posix_acl_to_xattr(const struct posix_acl *acl,
					    size_t *size)
{
#ifdef HAVE_POSIX_ACL_TO_XATTR_ALLOC
	return posix_acl_to_xattr(&init_user_ns, acl, size, GFP_NOFS);
#else
	size_t n = posix_acl_xattr_size(acl->a_count);
	void *buf = kmalloc(n, GFP_NOFS);

	if (buf && posix_acl_to_xattr(&init_user_ns, acl, buf, n) < 0) {
		kfree(buf);
		return NULL;
	}
	*size = n;
	return buf;
#endif
}

/* fscrypt: encrypt a block in place (gfp flags before 7.x) */
static inline int nova_fscrypt_encrypt_block(const struct inode *inode,
					     struct page *page,
					     unsigned int len,
					     unsigned int offs, u64 lblk)
{
#ifdef HAVE_FSCRYPT_ENCRYPT_BLOCK_NOGFP
	return fscrypt_encrypt_block_inplace(inode, page, len, offs, lblk);
#else
	return fscrypt_encrypt_block_inplace(inode, page, len, offs, lblk,
					     GFP_NOFS);
#endif
}

/*
 * fscrypt's d_revalidate for names looked up without the key: from the
 * super block's default dentry operations (after 6.1; set after
 * fscrypt_set_ops()), or set on each such dentry at lookup (6.1)
 */
static inline void nova_set_sb_d_ops(struct super_block *sb)
{
#ifdef HAVE_GENERIC_SET_SB_D_OPS
	generic_set_sb_d_ops(sb);
#endif
}

static inline void nova_set_lookup_d_ops(struct dentry *dentry)
{
#ifndef HAVE_GENERIC_SET_SB_D_OPS
	generic_set_encrypted_ci_d_ops(dentry);
#endif
}

/*
 * Case-insensitive directories (casefold.c).  Their d_hash and d_compare
 * come with the same helpers: generic_set_sb_d_ops() picks the casefold
 * operations (with fscrypt's d_revalidate) when sb->s_encoding is set,
 * so the encoding is loaded before nova_crypt_init_sb(); on 6.1 they are
 * set per dentry at lookup, and on the root here, after d_make_root().
 */
static inline void nova_set_root_d_ops(struct super_block *sb)
{
#ifndef HAVE_GENERIC_SET_SB_D_OPS
	generic_set_encrypted_ci_d_ops(sb->s_root);
#endif
}

/* The super block's encoding: NULL without one, or without CONFIG_UNICODE */
static inline struct unicode_map *nova_sb_encoding(const struct super_block *sb)
{
#ifdef HAVE_SB_ENCODING
	return sb_encoding(sb);
#elif IS_ENABLED(CONFIG_UNICODE)
	return sb->s_encoding;
#else
	return NULL;
#endif
}

/*
 * May @name be created in @dir?  Not when @dir is casefolded, the
 * encoding strict and @name not valid in it (as ext4: EINVAL).
 */
static inline bool nova_ci_name_ok(struct inode *dir, const struct qstr *name)
{
#ifdef HAVE_GENERIC_CI_VALIDATE_STRICT_NAME
	return generic_ci_validate_strict_name(dir, name);
#elif IS_ENABLED(CONFIG_UNICODE)
	if (!IS_CASEFOLDED(dir) || !sb_has_strict_encoding(dir->i_sb) ||
	    !dir->i_sb->s_encoding)
		return true;
	return !utf8_validate(dir->i_sb->s_encoding, name);
#else
	return true;
#endif
}

/*
 * Does the stored name @de (@len bytes) match @name in the casefolded
 * directory @dir?  The exact bytes first, then the folded forms; a name
 * that is not valid in the encoding matches only exactly (with a strict
 * encoding such a stored name is damage: it matches nothing but itself).
 */
static inline bool nova_ci_match(const struct inode *dir,
				 const struct qstr *name, const u8 *de, u32 len)
{
#ifdef HAVE_GENERIC_CI_MATCH
	const struct qstr nofold = QSTR_INIT(NULL, 0);

	return generic_ci_match(dir, name, &nofold, de, len) > 0;
#else
	if (name->len == len && !memcmp(name->name, de, len))
		return true;
#if IS_ENABLED(CONFIG_UNICODE)
	{
		const struct qstr entry = QSTR_INIT((const char *)de, len);

		return dir->i_sb->s_encoding &&
		       !utf8_strncasecmp(dir->i_sb->s_encoding, name, &entry);
	}
#else
	return false;
#endif
#endif
}

/* The VFS's own drop_inode test (renamed after 6.12) */
static inline int nova_generic_drop_inode(struct inode *inode)
{
#ifdef HAVE_INODE_GENERIC_DROP
	return inode_generic_drop(inode);
#else
	return generic_drop_inode(inode);
#endif
}

/*
 * The device's removal (dax.c of the kernel: kill_dax()) and the page
 * map behind a DAX device's kernel mapping (see super.c, "Device
 * removal").  get_dev_pagemap() took a pgmap to reuse before 7.x; the
 * holder learns of the removal from MF_MEM_PRE_REMOVE since it exists,
 * before from a failure reported of the whole device.
 */
static inline struct dev_pagemap *nova_get_dev_pagemap(unsigned long pfn)
{
#ifdef HAVE_GET_DEV_PAGEMAP_PFN
	return get_dev_pagemap(pfn);
#else
	return get_dev_pagemap(pfn, NULL);
#endif
}

static inline bool nova_dax_removal(u64 off, u64 len, int mf_flags)
{
#ifdef HAVE_MF_MEM_PRE_REMOVE
	return mf_flags & MF_MEM_PRE_REMOVE;
#else
	return off == 0 && len == U64_MAX;
#endif
}

/*
 * The file system's UUID in the super block: with its length since 6.10,
 * which FS_IOC_GETFSUUID answers with (as ext4's and XFS's)
 */
static inline void nova_set_uuid(struct super_block *sb, const u8 *uuid)
{
#ifdef HAVE_SUPER_SET_UUID
	super_set_uuid(sb, uuid, sizeof(sb->s_uuid));
#else
	memcpy(&sb->s_uuid, uuid, sizeof(sb->s_uuid));
#endif
}

#endif /* NOVA_COMPAT_H */
