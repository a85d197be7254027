// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libnova's extended attributes: the replay of
 * NOVA_XATTR groups (set, replace, remove, a 64 KiB value in parts over
 * several log pages, a dead part 0, orphan parts, every kind of
 * malformed group, fscrypt contexts), the mount-scan mode that ignores
 * them, the writer and the mapping of the VFS names.
 *
 *   test_xattr MKFS WORKDIR
 *
 * MKFS is the built mkfs.nova (it formats a scratch image in WORKDIR).
 * Prints "PASS name" / "FAIL name" per case and exits non-zero on
 * failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "libnova.h"
#include "xent.h"
#define CHECK_PREFIX "xattr: "
#include "check.h"

static struct nv_fs fs;
static struct nv_wlog root;
static unsigned int nfiles;

/* A new empty regular file in the root; its log in *w */
static void new_file(struct nv_wlog *w)
{
	struct nv_attr a;
	char name[32];
	int n;

	memset(&a, 0, sizeof(a));
	a.mode = S_IFREG | 0644;
	a.links = 1;
	a.atime = a.mtime = a.ctime = a.btime = 1000000000LL;
	n = snprintf(name, sizeof(name), "f%u", nfiles++);
	if (nv_create(&fs, &root, name, n, &a, NULL, -1, w)) {
		printf("FAIL xattr: cannot create %s\n", name);
		exit(1);
	}
}

static void iread(const struct nv_wlog *w, struct nv_inode_state *st,
		  unsigned int flags)
{
	if (nv_iread(&fs, w->ino, st, flags, NULL, NULL)) {
		printf("FAIL xattr: cannot read inode %llu\n",
		       (unsigned long long)w->ino);
		exit(1);
	}
}

/* Set @full (a VFS name) to @len bytes of @value, as the kernel does */
static uint64_t set(struct nv_wlog *w, const char *full, const void *value,
		    size_t len, uint32_t flags, uint16_t mode)
{
	struct nv_inode_state st;
	struct nv_xattr *old;
	const char *name;
	uint8_t index = nv_xattr_index_of(full, &name);
	uint64_t off = 0;

	iread(w, &st, NV_IREAD_NO_DATA);
	old = nv_xattr_lookup(&st, index, name, strlen(name));
	if (nv_append_xattr(&fs, w, index, name, strlen(name), value, len,
			    flags, mode, &off))
		printf("FAIL xattr: cannot append %s\n", full);
	nv_log_commit(&fs, w);
	if (old)
		nv_invalidate_xattr(&fs, old);
	nv_ifree(&st);
	return off;
}

/* append the hand-made entry @x (xent.h) to @w; its offset */
static uint64_t put(struct nv_wlog *w, const struct xent *x)
{
	uint64_t buf[NOVA_XATTR_ENTRY_MAX / 8], off = 0;
	size_t len = xent_build(buf, x, w->next_tid++);

	if (nv_log_append(&fs, w, buf, len, &off))
		printf("FAIL xattr: cannot append a crafted entry\n");
	return off;
}

/* CRC32C of @n bytes of @c */
static bool value_is(const struct nv_xattr *x, const void *v, size_t n)
{
	uint8_t *b = malloc(x->value_len + 1);
	bool ok;

	nv_xattr_read(&fs, x, b);
	ok = x->value_len == n && !memcmp(b, v, n);
	free(b);
	return ok;
}

static void test_names(void)
{
	const char *n = NULL;
	char full[300], buf[64];

	CHECK("name: user.x", nv_xattr_index_of("user.x", &n) ==
	      NOVA_XATTR_INDEX_USER && !strcmp(n, "x"));
	CHECK("name: trusted.t", nv_xattr_index_of("trusted.t", &n) ==
	      NOVA_XATTR_INDEX_TRUSTED && !strcmp(n, "t"));
	CHECK("name: security.selinux",
	      nv_xattr_index_of("security.selinux", &n) ==
	      NOVA_XATTR_INDEX_SECURITY && !strcmp(n, "selinux"));
	CHECK("name: system.posix_acl_access, stored with an empty name",
	      nv_xattr_index_of("system.posix_acl_access", &n) ==
	      NOVA_XATTR_INDEX_ACL_ACCESS && !*n);
	CHECK("name: system.posix_acl_default",
	      nv_xattr_index_of("system.posix_acl_default", &n) ==
	      NOVA_XATTR_INDEX_ACL_DEFAULT && !*n);
	CHECK("name: system.posix_acl_accessX is not stored",
	      !nv_xattr_index_of("system.posix_acl_accessX", &n));
	CHECK("name: system.nfs4_acl is not stored",
	      !nv_xattr_index_of("system.nfs4_acl", &n));
	CHECK("name: os2.x is not stored", !nv_xattr_index_of("os2.x", &n));
	CHECK("name: user. (empty) is not stored", !nv_xattr_index_of("user.", &n));
	snprintf(full, sizeof(full), "user.%0255d", 7);
	CHECK("name: a 255-byte name is stored", nv_xattr_index_of(full, &n) ==
	      NOVA_XATTR_INDEX_USER && strlen(n) == 255);
	snprintf(full, sizeof(full), "user.%0256d", 7);
	CHECK("name: a 256-byte name is not", !nv_xattr_index_of(full, &n));
	nv_xattr_fullname(buf, sizeof(buf), NOVA_XATTR_INDEX_ACL_DEFAULT, "", 0);
	CHECK("name: the full name of an ACL",
	      !strcmp(buf, "system.posix_acl_default"));
	nv_xattr_fullname(buf, sizeof(buf), NOVA_XATTR_INDEX_SECURITY, "ima", 3);
	CHECK("name: the full name of security.ima", !strcmp(buf, "security.ima"));
}

static void test_groups(void)
{
	static uint8_t big[NOVA_XATTR_VALUE_MAX];
	struct nv_inode_state st, all;
	struct nv_xattr *x;
	struct nv_wlog w;
	uint64_t a1, a2, boff, pages[64], old[64];
	size_t i, j, npages = 0, nold;
	bool in_page = true, distinct = true;
	uint8_t acl[28] = { 2, 0, 0, 0 };

	new_file(&w);
	w.ctime = 1111;
	a1 = set(&w, "user.a", "hello", 5, 0, 0);
	iread(&w, &st, 0);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "a", 1);
	CHECK("set: one attribute, no error", !st.log.err && st.nxattrs == 1);
	CHECK("set: user.a = hello", x && x->off == a1 && value_is(x, "hello", 5));
	CHECK("set: its ctime applied", st.ctime == 1111);
	CHECK("set: one entry of 64 bytes", st.xattr_entries == 1 &&
	      st.xattr_bytes == 64 && NOVA_XATTR_LEN(1, 5) == 64);
	nv_ifree(&st);

	w.ctime = 2222;
	a2 = set(&w, "user.a", "world!", 6, 0, 0);
	iread(&w, &st, 0);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "a", 1);
	CHECK("replace: still one attribute", !st.log.err && st.nxattrs == 1);
	CHECK("replace: the new value, from the new group",
	      x && x->off == a2 && value_is(x, "world!", 6));
	CHECK("replace: the old group is dead", nv_entry_dead(nv_ptr(&fs, a1)) &&
	      !nv_entry_dead(nv_ptr(&fs, a2)));
	CHECK("replace: ctime of the new part 0", st.ctime == 2222);
	nv_ifree(&st);

	set(&w, "trusted.t", "", 0, 0, 0);
	set(&w, "security.selinux", "system_u:object_r:etc_t:s0", 27, 0, 0);
	/* an ACL that changed the mode with it */
	set(&w, "system.posix_acl_access", acl, sizeof(acl), NOVA_XATTR_MODE,
	    S_IFREG | 0640);
	iread(&w, &st, 0);
	CHECK("four namespaces: four attributes", !st.log.err && st.nxattrs == 4);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_TRUSTED, "t", 1);
	CHECK("an empty value", x && x->value_len == 0 && x->nparts == 1);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_ACL_ACCESS, "", 0);
	CHECK("an ACL: empty name, its value", x && value_is(x, acl, sizeof(acl)));
	CHECK("NOVA_XATTR_MODE: the permission bits set, the type kept",
	      st.mode == (S_IFREG | 0640));
	nv_ifree(&st);

	w.ctime = 3333;
	iread(&w, &st, NV_IREAD_NO_DATA);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "a", 1);
	nv_append_xattr(&fs, &w, NOVA_XATTR_INDEX_USER, "a", 1, NULL, 0,
			NOVA_XATTR_REMOVE, 0, NULL);
	nv_log_commit(&fs, &w);
	nv_invalidate_xattr(&fs, x);
	nv_ifree(&st);
	iread(&w, &st, 0);
	CHECK("remove: user.a gone, the others stay", !st.log.err &&
	      st.nxattrs == 3 && !nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "a", 1));
	CHECK("remove: its ctime applied", st.ctime == 3333);
	nv_ifree(&st);

	/* 64 KiB in parts: part 0 after a 3-byte name, then full parts */
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	boff = set(&w, "user.big", big, sizeof(big), 0, 0);
	iread(&w, &st, 0);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "big", 3);
	CHECK("64 KiB: read back", !st.log.err && x && value_is(x, big, sizeof(big)));
	CHECK("64 KiB: 34 parts (1981 bytes, then 1984 each)",
	      x && x->nparts == 1 + (sizeof(big) - NOVA_XATTR_PART_ROOM(3) +
				     NOVA_XATTR_PART_ROOM(0) - 1) /
	      NOVA_XATTR_PART_ROOM(0) && x->nparts == 34 &&
	      NOVA_XATTR_PART_ROOM(3) == 1981 && NOVA_XATTR_PART_ROOM(0) == 1984);
	for (i = 0; x && i < x->nparts; i++) {
		const struct nova_xattr_entry *e = nv_ptr(&fs, x->parts[i]);
		uint64_t in = x->parts[i] & (NOVA_BLOCK_SIZE - 1);
		uint64_t pg = x->parts[i] - in;

		if (in + le16_to_cpu(e->xe_len) > NOVA_LOG_LAST_ENTRY ||
		    le16_to_cpu(e->xe_len) > NOVA_XATTR_ENTRY_MAX ||
		    le16_to_cpu(e->part) != i)
			in_page = false;
		for (j = 0; j < npages && pages[j] != pg; j++)
			;
		if (j == npages && npages < 64)
			pages[npages++] = pg;
	}
	CHECK("64 KiB: every part in one page, at most NOVA_XATTR_ENTRY_MAX",
	      x && in_page);
	CHECK("64 KiB: over 17 or more log pages (two full parts a page)",
	      x && x->off == boff && npages >= 17);
	CHECK("64 KiB: the group's bytes counted",
	      x && x->bytes == NOVA_XATTR_LEN(3, 1981) +
	      33 * NOVA_XATTR_LEN(0, 1984) - (NOVA_XATTR_LEN(0, 1984) -
	      NOVA_XATTR_LEN(0, sizeof(big) - 1981 - 32 * 1984)));
	nold = x ? x->nparts : 0;
	for (i = 0; i < nold && i < 64; i++)
		old[i] = x->parts[i];
	nv_ifree(&st);

	/* the replaced 64 KiB value: its old parts all dead */
	big[0] ^= 1;
	set(&w, "user.big", big, sizeof(big), 0, 0);
	iread(&w, &st, 0);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "big", 3);
	CHECK("64 KiB replaced", !st.log.err && x && x->off != boff &&
	      value_is(x, big, sizeof(big)));
	for (i = 0; i < nold && i < 64; i++)
		if (!nv_entry_dead(nv_ptr(&fs, old[i])))
			distinct = false;
	CHECK("64 KiB replaced: every part of the old group is dead",
	      nold == 34 && distinct);
	/* replaying the dead entries too gives the same attributes */
	iread(&w, &all, NV_IREAD_IGNORE_DEAD);
	distinct = !all.log.err && all.nxattrs == st.nxattrs;
	for (i = 0; distinct && i < st.nxattrs; i++) {
		struct nv_xattr *y = nv_xattr_lookup(&all, st.xattrs[i].index,
						     st.xattrs[i].name,
						     st.xattrs[i].name_len);

		distinct = y && y->off == st.xattrs[i].off;
	}
	CHECK("dead entries replayed too: the same attributes", distinct);
	nv_ifree(&all);
	nv_ifree(&st);
}

static void test_dead_and_orphans(void)
{
	struct nv_inode_state st;
	struct nv_xattr *x;
	struct nv_wlog w;
	struct xent e;
	uint64_t off;
	static uint8_t v[5000];

	new_file(&w);
	set(&w, "user.keep", "k", 1, 0, 0);
	/* a group whose part 0 died (a crash before its other parts did) */
	memset(v, 'd', sizeof(v));
	w.ctime = 4444;
	off = set(&w, "user.dead", v, sizeof(v), 0, 0);
	nv_invalidate_entry(&fs, off);
	iread(&w, &st, 0);
	CHECK("dead part 0: its group not applied, its parts skipped",
	      !st.log.err && st.nxattrs == 1 &&
	      !nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "dead", 4));
	CHECK("dead part 0: its ctime still applies", st.ctime == 4444);
	nv_ifree(&st);

	/* parts without a part 0 before them */
	e = xent_user("orph", 10);
	e.name_len = 0;
	e.part = 1;
	e.value_len = 3000;
	put(&w, &e);
	e.part = 2;
	e.flags = 0x80;		/* not checked: skipped */
	put(&w, &e);
	nv_log_commit(&fs, &w);
	iread(&w, &st, 0);
	CHECK("orphan parts: skipped, no error", !st.log.err && st.nxattrs == 1);
	nv_ifree(&st);
	/* a group after them is read as usual */
	set(&w, "user.after", "a", 1, 0, 0);
	iread(&w, &st, 0);
	x = nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "after", 5);
	CHECK("a group after orphan parts", !st.log.err && x &&
	      value_is(x, "a", 1));
	nv_ifree(&st);
}

/* A malformed log: entries from @e[0..n), then with @tail_lc a link change */
static void bad(const char *name, const struct xent *e, int n, bool tail_lc,
		int want_err, const char *want_msg, int err_entry)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	uint64_t offs[8], before;
	char what[512];
	int i;

	new_file(&w);
	set(&w, "user.ok", "fine", 4, 0, 0);
	iread(&w, &st, 0);
	before = st.log.nentries;
	nv_ifree(&st);
	for (i = 0; i < n; i++)
		offs[i] = put(&w, &e[i]);
	if (tail_lc)
		nv_append_link_change(&fs, &w, NULL);
	nv_log_commit(&fs, &w);
	iread(&w, &st, 0);
	snprintf(what, sizeof(what), "%s: reported (%s)", name, st.log.msg);
	CHECK(what, st.log.err == want_err && strstr(st.log.msg, want_msg));
	snprintf(what, sizeof(what), "%s: at 0x%llx, the log cut before it", name,
		 (unsigned long long)st.log.err_off);
	CHECK(what, st.log.err_off == offs[err_entry] &&
	      st.log.good_end == offs[0] && st.log.nentries == before);
	nv_ifree(&st);
	/* the mount-time scan ignores xattr entries */
	iread(&w, &st, NV_IREAD_RAW);
	snprintf(what, sizeof(what), "%s: ignored by the mount-time scan", name);
	CHECK(what, !st.log.err && !st.nxattrs && st.xattr_entries == (unsigned int)n + 1);
	nv_ifree(&st);
}

static void test_malformed(void)
{
	struct xent e[4];

	e[0] = xent_user("x", 4);
	e[0].index = 7;
	bad("unknown name index", e, 1, true, NV_LOG_SEMANTIC,
	    "has an unknown name index 7", 0);
	e[0].index = 8;
	bad("name index 8 (below the encryption one)", e, 1, true,
	    NV_LOG_SEMANTIC, "has an unknown name index 8", 0);
	e[0].index = NOVA_XATTR_INDEX_MAX + 1;
	bad("name index past the last", e, 1, true, NV_LOG_SEMANTIC,
	    "has an unknown name index 10", 0);
	e[0].index = 0;
	bad("name index 0", e, 1, true, NV_LOG_SEMANTIC,
	    "has an unknown name index 0", 0);
	e[0] = xent_user("x", 4);
	e[0].index = NOVA_XATTR_INDEX_ACL_DEFAULT;
	bad("an ACL with a name", e, 1, true, NV_LOG_SEMANTIC,
	    "the POSIX ACL system.posix_acl_default has a 1-byte name", 0);
	e[0] = xent_user("", 4);
	e[0].index = NOVA_XATTR_INDEX_SECURITY;
	bad("an empty security name", e, 1, true, NV_LOG_SEMANTIC,
	    "has an empty name in the security. namespace", 0);
	e[0] = xent_user("x", 4);
	e[0].value_len = NOVA_XATTR_VALUE_MAX + 1;
	bad("a value over 64 KiB", e, 1, true, NV_LOG_SEMANTIC,
	    "user.x has a value of 65537 bytes (at most 65536)", 0);
	e[0] = xent_user("x", 4);
	e[0].flags = 0x10;
	bad("unknown flags", e, 1, true, NV_LOG_SEMANTIC,
	    "has unknown flags 0x10", 0);
	e[0] = xent_user("x", 4);
	e[0].flags = NOVA_XATTR_REMOVE;
	bad("a removal with a value", e, 1, true, NV_LOG_SEMANTIC,
	    "removes user.x but carries a 4-byte value", 0);
	e[0] = xent_user("x", 40);
	e[0].value_len = 10;
	bad("part 0 longer than the value", e, 1, true, NV_LOG_SEMANTIC,
	    "part 0 of user.x carries 40 bytes of a 10-byte value", 0);

	/* groups of three parts, 100 bytes each */
	xent_parts(e, "m", 3);
	e[3] = e[2];
	e[2].part = 3;
	bad("part 2 missing (part 3 follows part 1)", e, 3, true, NV_LOG_SEMANTIC,
	    "part 2 expected, part 3 found at", 0);
	e[2].part = 2;
	e[2].name_len = 1;
	e[2].name = "m";
	bad("a later part with a name", e, 3, true, NV_LOG_SEMANTIC,
	    "its part 2 at 0x", 0);
	e[2] = e[3];
	e[2].index = NOVA_XATTR_INDEX_TRUSTED;
	bad("a later part of another namespace", e, 3, true, NV_LOG_SEMANTIC,
	    "has another name index", 0);
	e[2] = e[3];
	e[2].value_len = 301;
	bad("a later part of another value length", e, 3, true, NV_LOG_SEMANTIC,
	    "has another value length", 0);
	e[2] = e[3];
	e[2].part_len = 101;
	bad("parts carrying more than the value", e, 3, true, NV_LOG_SEMANTIC,
	    "its parts carry more than its 300 value bytes (part 2", 0);
	e[2] = e[3];
	e[2].fill = 'w';
	bad("a value that does not match its checksum", e, 3, true,
	    NV_LOG_SEMANTIC, "its value does not match its checksum", 0);
	e[2] = xent_user("n", 3);
	bad("a part 0 before the group is complete", e, 3, true, NV_LOG_SEMANTIC,
	    "part 2 missing, a part 0 at", 0);
	bad("a link-change entry before the group is complete", e, 2, true,
	    NV_LOG_SEMANTIC, "part 2 missing, a link-change entry at", 0);
	bad("the log ends inside a group", e, 2, false, NV_LOG_XATTR_END,
	    "the log ends after its part 1, with 200 of its 300 value bytes", 0);
}

/* What xattr.c's replay accepts too */
static void test_kernel_accepts(void)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	struct xent e[3];
	struct nv_xattr *x;
	char name[32];

	/* index 5: no namespace, kept but never listed by the kernel */
	new_file(&w);
	e[0] = xent_user("five", 3);
	e[0].index = 5;
	put(&w, &e[0]);
	/* flags of a later part are not looked at */
	xent_parts(e, "fl", 2);
	e[1].flags = 0x100;
	put(&w, &e[0]);
	put(&w, &e[1]);
	nv_log_commit(&fs, &w);
	iread(&w, &st, 0);
	x = nv_xattr_lookup(&st, 5, "five", 4);
	if (x)
		nv_xattr_fullname(name, sizeof(name), x->index, x->name, x->name_len);
	CHECK("name index 5 is kept, as by the kernel", !st.log.err && x &&
	      !strcmp(name, "index5.five"));
	CHECK("a later part's flags are not checked, as by the kernel",
	      !st.log.err && nv_xattr_lookup(&st, NOVA_XATTR_INDEX_USER, "fl", 2));
	nv_ifree(&st);
}

/* An fscrypt context "c" of @n bytes, each @version (byte 0: the version) */
static struct xent xent_context(uint8_t version, uint32_t n)
{
	struct xent x = xent_user(NOVA_XATTR_ENCRYPTION_NAME, n);

	x.index = NOVA_XATTR_INDEX_ENCRYPTION;
	x.fill = version;
	x.value_csum = fill_csum(version, n);
	return x;
}

/*
 * NOVA_XATTR_INDEX_ENCRYPTION: one attribute, "c", an fscrypt context of
 * 28 bytes (version 1) or 40 (version 2), never removed
 */
static void test_encryption(void)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	struct nv_xattr *x;
	struct xent e[2];

	new_file(&w);
	iread(&w, &st, 0);
	CHECK("encryption: a new file has no context", !nv_encryption_context(&st));
	nv_ifree(&st);
	e[0] = xent_context(1, 28);
	put(&w, &e[0]);
	nv_log_commit(&fs, &w);
	iread(&w, &st, 0);
	x = nv_encryption_context(&st);
	CHECK("encryption: a v1 context (28 bytes) is taken",
	      !st.log.err && x && x->value_len == 28);
	nv_ifree(&st);

	/* the version is checked on the whole value */
	new_file(&w);
	e[0] = xent_context(2, 20);
	e[0].value_len = 40;
	e[0].value_csum = fill_csum(2, 40);
	e[1] = e[0];
	e[1].name_len = 0;
	e[1].part = 1;
	e[1].value_csum = 0;
	put(&w, &e[0]);
	put(&w, &e[1]);
	nv_log_commit(&fs, &w);
	iread(&w, &st, 0);
	x = nv_encryption_context(&st);
	CHECK("encryption: a v2 context (40 bytes) in two parts is taken",
	      !st.log.err && x && x->value_len == 40 && x->nparts == 2);
	nv_ifree(&st);

	e[0] = xent_context(2, 28);
	bad("encryption: version 2 in 28 bytes", e, 1, true, NV_LOG_SEMANTIC,
	    "version 2 in 28 bytes (version 1 has 28, 2 has 40)", 0);
	e[0] = xent_context(1, 40);
	bad("encryption: version 1 in 40 bytes", e, 1, true, NV_LOG_SEMANTIC,
	    "version 1 in 40 bytes", 0);
	e[0] = xent_context(0, 28);
	bad("encryption: version 0", e, 1, true, NV_LOG_SEMANTIC,
	    "version 0 in 28 bytes", 0);
	e[0] = xent_context(2, 30);
	bad("encryption: a 30-byte context", e, 1, true, NV_LOG_SEMANTIC,
	    "encryption context of 30 bytes (28 or 40)", 0);
	e[0] = xent_context(2, 40);
	e[0].name = "d";
	bad("encryption: an attribute other than \"c\"", e, 1, true,
	    NV_LOG_SEMANTIC, "index9.d is not the encryption context", 0);
	e[0] = xent_context(2, 0);
	e[0].flags = NOVA_XATTR_REMOVE;
	bad("encryption: a removal of the context", e, 1, true, NV_LOG_SEMANTIC,
	    "removes the encryption context, which is never removed", 0);
}

/* A part whose xe_len does not match its name and value: the walk stops */
static void test_bad_length(void)
{
	struct nv_inode_state st;
	struct nv_wlog w;
	struct xent e[2];
	uint64_t off[2];
	struct nova_xattr_entry *x;
	int k;

	for (k = 0; k < 2; k++) {
		new_file(&w);
		e[0] = xent_user("len", 100);
		e[0].value_len = 200;
		e[0].value_csum = fill_csum('v', 200);
		e[1] = e[0];
		e[1].name_len = 0;
		e[1].part = 1;
		off[0] = put(&w, &e[0]);
		off[1] = put(&w, &e[1]);
		nv_append_link_change(&fs, &w, NULL);
		nv_log_commit(&fs, &w);
		x = nv_ptr(&fs, off[k]);
		x->xe_len = cpu_to_le16(le16_to_cpu(x->xe_len) + 16);
		nv_entry_csum(x, le16_to_cpu(x->xe_len));
		iread(&w, &st, 0);
		if (!k) {
			CHECK("bad xe_len of a part 0: a malformed entry, the log cut before it",
			      st.log.err == NV_LOG_BAD_ENTRY && st.log.err_off == off[0] &&
			      st.log.good_end == off[0] && !st.log.xgroup_off &&
			      strstr(st.log.msg, "xattr entry at 0x") &&
			      strstr(st.log.msg, "has a bad length"));
		} else {
			CHECK("bad xe_len inside a group: reported there, the log cut before part 0",
			      st.log.err == NV_LOG_BAD_ENTRY && st.log.err_off == off[1] &&
			      st.log.good_end == off[0] && st.log.xgroup_off == off[0] &&
			      st.nxattrs == 0);
		}
		nv_ifree(&st);
	}
}

static void test_writer(void)
{
	struct nv_wlog w;
	static uint8_t v[NOVA_XATTR_VALUE_MAX + 1];

	new_file(&w);
	CHECK("writer: a removal with a value refused",
	      nv_append_xattr(&fs, &w, NOVA_XATTR_INDEX_USER, "x", 1, "v", 1,
			      NOVA_XATTR_REMOVE, 0, NULL) == -EINVAL);
	CHECK("writer: a value over 64 KiB refused",
	      nv_append_xattr(&fs, &w, NOVA_XATTR_INDEX_USER, "x", 1, v,
			      sizeof(v), 0, 0, NULL) == -EINVAL);
	CHECK("writer: nothing appended", !w.tail);
}

int main(int argc, char **argv)
{
	struct nv_inode_state rs;
	char img[2048], cmd[16384], msg[256];

	if (argc != 3) {
		fprintf(stderr, "usage: test_xattr MKFS WORKDIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(img, sizeof(img), "%s/xattr.img", argv[2]);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s' && rm -f '%s' && truncate -s 64M '%s' && '%s' -q -c 1 '%s'",
		 argv[2], img, img, argv[1], img);
	if (system(cmd)) {
		printf("FAIL xattr: cannot make %s\n", img);
		return 1;
	}
	if (nv_open(&fs, img, NV_OPEN_RW, msg, sizeof(msg)) ||
	    nv_load_super(&fs, 0, NULL) < 0 || nv_load_itables(&fs) ||
	    nv_alloc_scan(&fs) ||
	    nv_iread(&fs, NOVA_ROOT_INO, &rs, NV_IREAD_NO_DATA, NULL, NULL)) {
		printf("FAIL xattr: cannot open %s\n", img);
		return 1;
	}
	nv_wlog_from_state(&root, &rs);
	nv_ifree(&rs);

	test_names();
	test_groups();
	test_dead_and_orphans();
	test_malformed();
	test_bad_length();
	test_kernel_accepts();
	test_encryption();
	test_writer();

	nv_close(&fs);
	remove(img);
	return check_done("xattr");
}
