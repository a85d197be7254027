// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA file encryption: the file system's side of fscrypt (fs/crypto/),
 * the kernel's per-directory encryption that ext4 and f2fs use.
 *
 * An inode is encrypted when it has an fscrypt context, the extended
 * attribute "c" of NOVA_XATTR_INDEX_ENCRYPTION.  A new inode in an
 * encrypted directory gets it in its own log before the entry that
 * makes it reachable (nova_init_new_xattrs()), so a crash leaves no
 * reachable inode without one; FS_IOC_SET_ENCRYPTION_POLICY sets it on
 * an empty directory with one commit.  The first one sets
 * NOVA_FEATURE_INCOMPAT_ENCRYPT.
 *
 * Names in an encrypted directory are stored as fscrypt's ciphertext
 * (binary, 16 to 255 bytes) and indexed like any name; a name looked up
 * without the key that carries only a digest is matched by a walk of
 * the directory (dir.c).  A symlink's target block holds fscrypt's
 * encrypted form (struct fscrypt_symlink_data).
 *
 * File data is encrypted a block at a time with the file page number as
 * the tweak (fscrypt_encrypt_block_inplace()): a write builds each new
 * block's plaintext in DRAM (old data, zeros past EOF, the user's
 * bytes), encrypts it and copies it to its new pmem block, so an
 * encrypted file is always written copy-on-write, whatever the data
 * mode; a read decrypts through a DRAM page.  Unwritten (preallocated)
 * pages and holes read as zeros.  The plaintext past EOF in the last
 * page may be stale after a shrinking truncate (zeroing ciphertext in
 * place would garble the block), so every operation that grows the file
 * first rewrites that page with zeros past EOF (nova_crypt_zero_tail()
 * in dax.c).  Encrypted files cannot be mapped (mmap gives EOPNOTSUPP):
 * DAX maps pmem itself, which holds ciphertext.
 */
#include <linux/fscrypt.h>
#include <linux/highmem.h>
#include <linux/uio.h>
#include "nova.h"

#ifdef CONFIG_FS_ENCRYPTION

static int nova_get_context(struct inode *inode, void *ctx, size_t len)
{
	return nova_xattr_get(inode, NOVA_XATTR_INDEX_ENCRYPTION,
			      NOVA_XATTR_ENCRYPTION_NAME, ctx, len);
}

/*
 * @fs_data not NULL: a new inode (fscrypt_set_context() from
 * nova_init_new_xattrs(), which holds its log mutex); NULL: an empty
 * directory (FS_IOC_SET_ENCRYPTION_POLICY, under its inode lock).
 */
static int nova_set_context(struct inode *inode, const void *ctx, size_t len,
			    void *fs_data)
{
	struct super_block *sb = inode->i_sb;
	int ret;

	if (sb_rdonly(sb))
		return -EROFS;
	/* (before the feature bit is set in the super block) */
	ret = nova_emergency_state(sb);
	if (ret)
		return ret;
	/*
	 * as ext4: never the root, where fsck.nova makes lost+found and the
	 * quota files live, both in plaintext
	 */
	if (inode->i_ino == NOVA_ROOT_INO)
		return -EPERM;
	/* no encrypted case-insensitive directories (casefold.c) */
	if (IS_CASEFOLDED(inode))
		return -EOPNOTSUPP;
	nova_set_feature(sb, &NOVA_SB(sb)->s_super.s_feature_incompat,
			 NOVA_FEATURE_INCOMPAT_ENCRYPT);
	if (fs_data)
		ret = nova_xattr_init_named(inode, NOVA_XATTR_INDEX_ENCRYPTION,
					    NOVA_XATTR_ENCRYPTION_NAME, ctx, len);
	else
		ret = nova_xattr_set(inode, NOVA_XATTR_INDEX_ENCRYPTION,
				     NOVA_XATTR_ENCRYPTION_NAME, ctx, len,
				     XATTR_CREATE);
	if (!ret)
		inode_set_flags(inode, S_ENCRYPTED, S_ENCRYPTED);
	return ret;
}

static bool nova_empty_dir(struct inode *inode)
{
	return !NOVA_I(inode)->header.dir_entries;
}

/* Inode numbers are never reused for another file while it lives */
static bool nova_has_stable_inodes(struct super_block *sb)
{
	return true;
}

#ifndef HAVE_FSCRYPT_HAS_32BIT_INODES
/*
 * IV_INO_LBLK_64 and _32 policies put the inode number and the file block
 * number in 32 bits each: both fit (NOVA_MAX_FILE_SIZE, nova_alloc_ino()).
 * After 6.6 fscrypt takes the block number's size from s_maxbytes.
 */
static void nova_get_ino_and_lblk_bits(struct super_block *sb,
				       int *ino_bits_ret, int *lblk_bits_ret)
{
	*ino_bits_ret = 32;
	*lblk_bits_ret = 32;
}
#endif

static const struct fscrypt_operations nova_cryptops = {
#ifdef HAVE_FSCRYPT_INODE_INFO_OFFS
	.inode_info_offs	= (int)offsetof(struct nova_inode_info, i_crypt_info) -
				  (int)offsetof(struct nova_inode_info, vfs_inode),
#endif
	.get_context		= nova_get_context,
	.set_context		= nova_set_context,
	.empty_dir		= nova_empty_dir,
	.has_stable_inodes	= nova_has_stable_inodes,
#ifdef HAVE_FSCRYPT_HAS_32BIT_INODES
	.has_32bit_inodes	= 1,
#else
	.get_ino_and_lblk_bits	= nova_get_ino_and_lblk_bits,
#endif
};

void nova_crypt_init_sb(struct super_block *sb)
{
	fscrypt_set_ops(sb, &nova_cryptops);
	nova_set_sb_d_ops(sb);
}

/*
 * After an inode's log replay: encrypted if it has a context.  An
 * encrypted symlink gets the operations that decrypt its target.
 */
void nova_crypt_load(struct inode *inode)
{
	if (nova_get_context(inode, NULL, 0) <= 0)
		return;
	inode_set_flags(inode, S_ENCRYPTED, S_ENCRYPTED);
	if (S_ISLNK(inode->i_mode))
		inode->i_op = &nova_encrypted_symlink_inode_operations;
}

/*
 * The plaintext of file page @pg in @page: decrypted data, zeros for a
 * hole, an unwritten page and the bytes at and past @size.
 */
static int nova_crypt_read_page(struct inode *inode, pgoff_t pg,
				struct page *page, loff_t size)
{
	struct super_block *sb = inode->i_sb;
	loff_t start = (loff_t)pg << NOVA_BLOCK_SHIFT;
	char *buf = page_address(page);
	bool unwritten;
	u64 blk;
	int ret;

	blk = nova_find_page_state(inode, pg, &unwritten);
	if (!blk || unwritten || size <= start) {
		memset(buf, 0, NOVA_BLOCK_SIZE);
		return 0;
	}
	if (!nova_range_valid(NOVA_SB(sb), blk, NOVA_BLOCK_SIZE))
		return -EIO;
	ret = nova_read_pmem(buf, nova_get_block(sb, blk), NOVA_BLOCK_SIZE);
	if (ret)
		return ret;
	ret = fscrypt_decrypt_block_inplace(inode, page, NOVA_BLOCK_SIZE, 0, pg);
	if (ret)
		return ret;
	if (size - start < NOVA_BLOCK_SIZE)
		memset(buf + (size - start), 0, NOVA_BLOCK_SIZE - (size - start));
	return 0;
}

/* Encrypt @page as file page @pg and store it durably-after-fence at @dst */
static int nova_crypt_store(struct inode *inode, pgoff_t pg, struct page *page,
			    void *dst)
{
	int ret = nova_fscrypt_encrypt_block(inode, page, NOVA_BLOCK_SIZE, 0, pg);

	if (!ret)
		nova_memcpy_nt(dst, page_address(page), NOVA_BLOCK_SIZE);
	return ret;
}

/* After a short copy of @got bytes into a whole page: the old bytes after them */
static int nova_crypt_keep_rest(struct inode *inode, pgoff_t pg,
				struct page *page, size_t got, loff_t size)
{
	struct page *old = alloc_page(GFP_KERNEL);
	int ret;

	if (!old)
		return -ENOMEM;
	ret = nova_crypt_read_page(inode, pg, old, size);
	if (!ret)
		memcpy(page_address(page) + got, page_address(old) + got,
		       NOVA_BLOCK_SIZE - got);
	__free_page(old);
	return ret;
}

/* The file's key, which a read or write needs (set up at open) */
static int nova_crypt_ready(struct inode *inode)
{
	return fscrypt_has_encryption_key(inode) ? 0 : -ENOKEY;
}

/* read(2) of an encrypted file: the inode lock is held shared */
ssize_t nova_crypt_read(struct inode *inode, struct iov_iter *to, loff_t *pos)
{
	loff_t size = i_size_read(inode);
	struct page *page;
	ssize_t done = 0;
	int ret;

	if (*pos >= size)
		return 0;
	ret = nova_crypt_ready(inode);
	if (ret)
		return ret;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	while (*pos < size && iov_iter_count(to)) {
		pgoff_t pg = *pos >> NOVA_BLOCK_SHIFT;
		size_t off = *pos & (NOVA_BLOCK_SIZE - 1);
		size_t n = min_t(u64, min_t(size_t, iov_iter_count(to),
					    NOVA_BLOCK_SIZE - off), size - *pos);
		size_t got;

		ret = nova_crypt_read_page(inode, pg, page, size);
		if (ret)
			break;
		got = copy_to_iter(page_address(page) + off, n, to);
		done += got;
		*pos += got;
		if (got < n) {
			ret = -EFAULT;
			break;
		}
		cond_resched();
	}
	__free_page(page);
	return done ? done : ret;
}

/*
 * A copy-on-write chunk of an encrypted file: fill the new blocks at
 * @dst for pages @pg, @pg + 1, ... with @len bytes of @from at offset
 * @off of the first page, the old plaintext around them (zeros past
 * EOF), each page encrypted.  Returns the bytes taken from @from (a
 * short count when the user buffer faulted) or an error.
 */
ssize_t nova_crypt_fill(struct inode *inode, pgoff_t pg, void *dst,
			size_t off, size_t len, struct iov_iter *from)
{
	loff_t size = inode->i_size;
	struct page *page;
	size_t done = 0;
	int ret;

	ret = nova_crypt_ready(inode);
	if (ret)
		return ret;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	while (done < len) {
		size_t n = min(len - done, NOVA_BLOCK_SIZE - off), got;
		bool whole = n == NOVA_BLOCK_SIZE;

		/* a whole page needs the old bytes only after a short copy */
		ret = whole ? 0 : nova_crypt_read_page(inode, pg, page, size);
		if (ret)
			break;
		got = copy_from_iter(page_address(page) + off, n, from);
		if (!got) {
			ret = -EFAULT;
			break;
		}
		if (whole && got < n)
			ret = nova_crypt_keep_rest(inode, pg, page, got, size);
		if (!ret)
			ret = nova_crypt_store(inode, pg, page, dst);
		if (ret)
			break;
		done += got;
		if (got < n)
			break;
		dst += NOVA_BLOCK_SIZE;
		pg++;
		off = 0;
	}
	__free_page(page);
	return done ? done : ret;
}

/*
 * A new block at @dst for file page @pg of an encrypted file: its
 * plaintext with [from, to) zeroed (and zeros past @size), encrypted.
 */
int nova_crypt_zero_fill(struct inode *inode, pgoff_t pg, void *dst,
			 size_t from, size_t to, loff_t size)
{
	struct page *page;
	int ret;

	ret = nova_crypt_ready(inode);
	if (ret)
		return ret;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	ret = nova_crypt_read_page(inode, pg, page, size);
	if (!ret) {
		memset(page_address(page) + from, 0, to - from);
		ret = nova_crypt_store(inode, pg, page, dst);
	}
	__free_page(page);
	return ret;
}

/* ---- names ---- */

/*
 * The on-pmem name for @name in @dir (ciphertext in an encrypted
 * directory; -ENOKEY without its key) for a new entry
 */
int nova_fname_new(struct inode *dir, struct dentry *dentry,
		   struct fscrypt_name *fname)
{
	int ret;

	if (fscrypt_is_nokey_name(dentry))
		return -ENOKEY;
	ret = fscrypt_setup_filename(dir, &dentry->d_name, 0, fname);
	if (ret)
		return ret;
	if (fname->disk_name.len > NOVA_NAME_LEN) {
		fscrypt_free_filename(fname);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* ---- symlinks ---- */

static const char *nova_encrypted_get_link(struct dentry *dentry,
					   struct inode *inode,
					   struct delayed_call *done)
{
	struct super_block *sb = inode->i_sb;
	u64 blk = NOVA_I(inode)->header.symlink_block;
	size_t len = inode->i_size;
	const char *target;
	char *buf;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	buf = kmalloc(len + 1, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (nova_read_pmem(buf, nova_get_block(sb, blk), len)) {
		kfree(buf);
		return ERR_PTR(-EIO);
	}
	buf[len] = '\0';
	target = fscrypt_get_symlink(inode, buf, len + 1, done);
	kfree(buf);
	return target;
}

static int nova_encrypted_symlink_getattr(nova_idmap_t *idmap,
					  const struct path *path,
					  struct kstat *stat, u32 request_mask,
					  unsigned int flags)
{
	nova_getattr(idmap, path, stat, request_mask, flags);
	return fscrypt_symlink_getattr(path, stat);
}

const struct inode_operations nova_encrypted_symlink_inode_operations = {
	.get_link	= nova_encrypted_get_link,
	.getattr	= nova_encrypted_symlink_getattr,
	.setattr	= nova_setattr,
	.listxattr	= nova_listxattr,
};

/* ---- ioctls ---- */

long nova_crypt_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	void __user *p = (void __user *)arg;

	switch (cmd) {
	case FS_IOC_SET_ENCRYPTION_POLICY:
		return fscrypt_ioctl_set_policy(filp, p);
	case FS_IOC_GET_ENCRYPTION_POLICY:
		return fscrypt_ioctl_get_policy(filp, p);
	case FS_IOC_GET_ENCRYPTION_POLICY_EX:
		return fscrypt_ioctl_get_policy_ex(filp, p);
	case FS_IOC_ADD_ENCRYPTION_KEY:
		return fscrypt_ioctl_add_key(filp, p);
	case FS_IOC_REMOVE_ENCRYPTION_KEY:
		return fscrypt_ioctl_remove_key(filp, p);
	case FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS:
		return fscrypt_ioctl_remove_key_all_users(filp, p);
	case FS_IOC_GET_ENCRYPTION_KEY_STATUS:
		return fscrypt_ioctl_get_key_status(filp, p);
	case FS_IOC_GET_ENCRYPTION_NONCE:
		return fscrypt_ioctl_get_nonce(filp, p);
	default:
		return -ENOTTY;
	}
}

#else /* !CONFIG_FS_ENCRYPTION */

/* the dentry operations of case-insensitive directories (casefold.c) */
void nova_crypt_init_sb(struct super_block *sb)
{
	nova_set_sb_d_ops(sb);
}

void nova_crypt_load(struct inode *inode)
{
}

ssize_t nova_crypt_read(struct inode *inode, struct iov_iter *to, loff_t *pos)
{
	return -EOPNOTSUPP;
}

ssize_t nova_crypt_fill(struct inode *inode, pgoff_t pg, void *dst,
			size_t off, size_t len, struct iov_iter *from)
{
	return -EOPNOTSUPP;
}

int nova_crypt_zero_fill(struct inode *inode, pgoff_t pg, void *dst,
			 size_t from, size_t to, loff_t size)
{
	return -EOPNOTSUPP;
}

int nova_fname_new(struct inode *dir, struct dentry *dentry,
		   struct fscrypt_name *fname)
{
	return fscrypt_setup_filename(dir, &dentry->d_name, 0, fname);
}

const struct inode_operations nova_encrypted_symlink_inode_operations = {
};

long nova_crypt_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return -ENOTTY;
}

#endif /* CONFIG_FS_ENCRYPTION */
