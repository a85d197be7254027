// SPDX-License-Identifier: GPL-2.0
/*
 * nova-debug: look into an unmounted NOVA file system, read-only, for
 * tests and debugging (what debugfs is for ext4): the super block, an
 * inode's attributes, a directory's entries with their names as stored,
 * an inode's fscrypt context, the project quota file's entries.
 *
 *   nova-debug [-V] DEVICE super
 *   nova-debug [-V] DEVICE stat INODE
 *   nova-debug [-V] DEVICE ls DIR
 *   nova-debug [-V] DEVICE name DIR INODE
 *   nova-debug [-V] DEVICE context INODE
 *   nova-debug [-V] DEVICE quota
 *
 * DIR and INODE are inode numbers (N, or <N> as debugfs writes them) or
 * absolute paths; of the reserved inodes, only the root and the project
 * quota file (6, which has no name) can be read.  Names are shown as they
 * are stored: ciphertext in an encrypted directory (any bytes, '/' and
 * NUL too).  "ls" escapes every byte that is not printable ASCII, the
 * space and the backslash as \xHH, so that a line is the inode number,
 * one space and one word; "name" writes one name's bytes as they are,
 * nothing else.  The log is read as the kernel replays it (libnova); a
 * damaged log is read up to the damage, with a warning.
 *
 * Exit status: 0 done, 1 what was asked for is not there (no such inode,
 * not a directory, no name, no context), 8 operational error (no NOVA
 * file system, I/O), 16 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libnova.h"

#ifndef NOVA_VERSION
#define NOVA_VERSION "unknown"
#endif

#define DBG_OK		0
#define DBG_NOT_FOUND	1
#define DBG_ERROR	8
#define DBG_USAGE	16

static const char *prog = "nova-debug";
static const char *dev;

static void __printf(1, 2) warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	nova_vwarn(prog, dev, fmt, ap);
	va_end(ap);
}

/* @len bytes of @s, the unsafe ones (and ' ', '\') as \xHH */
static void put_escaped(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c <= ' ' || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void put_hex(const uint8_t *p, size_t len)
{
	while (len--)
		printf("%02x", *p++);
}

/* ------------------------------------------------------------- inodes */

/*
 * The inode @arg names (N, <N> or an absolute path) into *@ino: 0, or
 * the exit status
 */
static int parse_ino(struct nv_fs *fs, const char *arg, uint64_t *ino)
{
	const char *p = arg;
	char *end;
	size_t n = strlen(arg);

	if (*arg == '/') {
		*ino = nv_lookup_path(fs, arg);
		if (!*ino) {
			warn_msg("%s: no such file or directory", arg);
			return DBG_NOT_FOUND;
		}
		return 0;
	}
	if (n > 2 && arg[0] == '<' && arg[n - 1] == '>')
		p++;
	errno = 0;
	*ino = strtoull(p, &end, 10);
	if (errno || end == p || *p < '0' || *p > '9' ||
	    (p == arg ? *end : end != arg + n - 1 || *end != '>')) {
		warn_msg("'%s' is not an inode number (N or <N>) or an absolute path",
			 arg);
		return DBG_USAGE;
	}
	return 0;
}

/* Inode @ino read (its log replayed) into @st: 0, or the exit status */
static int read_inode(struct nv_fs *fs, uint64_t ino, struct nv_inode_state *st)
{
	if (nv_iread_raw(ino)) {
		warn_msg("inode %llu is a reserved inode", (unsigned long long)ino);
		return DBG_NOT_FOUND;
	}
	if (!nv_inode_slot_valid(fs, ino)) {
		warn_msg("inode %llu is not in use", (unsigned long long)ino);
		return DBG_NOT_FOUND;
	}
	if (nv_iread(fs, ino, st, NV_IREAD_NO_DATA, NULL, NULL)) {
		warn_msg("inode %llu: out of memory", (unsigned long long)ino);
		return DBG_ERROR;
	}
	if (st->log.err)
		warn_msg("warning: inode %llu: %s; read up to there",
			 (unsigned long long)ino, st->log.msg);
	if (st->bad)
		warn_msg("warning: inode %llu: %s", (unsigned long long)ino,
			 st->bad_msg);
	return 0;
}

/* The inode that @arg names, read: 0, or the exit status */
static int get_inode(struct nv_fs *fs, const char *arg,
		     struct nv_inode_state *st)
{
	uint64_t ino;
	int ret = parse_ino(fs, arg, &ino);

	return ret ? ret : read_inode(fs, ino, st);
}

/* The directory that @arg names, read: 0, or the exit status */
static int get_dir(struct nv_fs *fs, const char *arg, struct nv_inode_state *st)
{
	int ret = get_inode(fs, arg, st);

	if (ret || S_ISDIR(st->mode))
		return ret;
	warn_msg("inode %llu is not a directory", (unsigned long long)st->ino);
	nv_ifree(st);
	return DBG_NOT_FOUND;
}

/* ----------------------------------------------------------- commands */

static void put_feature(const char *key, uint64_t v, const char *const *names)
{
	unsigned int b;

	printf("%s 0x%llx", key, (unsigned long long)v);
	for (b = 0; names[b]; b++)
		if (v & (1ULL << b))
			printf(" %s", names[b]);
	putchar('\n');
}

/* super: the super block in use, one "key value" a line */
static int cmd_super(struct nv_fs *fs, char **argv)
{
	static const char *const ro_compat[] = { "unwritten", "project", NULL };
	static const char *const incompat[] = { "xattr", "encrypt", "casefold",
						"reflink", NULL };

	const struct nova_super_block *sb = &fs->sb;
	uint16_t enc = le16_to_cpu(sb->s_encoding);
	uint16_t encf = le16_to_cpu(sb->s_encoding_flags);
	uint32_t ver = le32_to_cpu(sb->s_version);
	uint32_t state = le32_to_cpu(sb->s_state);
	char uuid[37];

	(void)argv;
	nova_uuid_str(sb->s_uuid, uuid);
	printf("uuid %s\n", uuid);
	printf("label ");
	put_escaped(sb->s_label, strnlen(sb->s_label, NOVA_LABEL_LEN));
	printf("\nversion %u.%u\n", ver >> 16, ver & 0xffff);
	printf("size %llu\n", (unsigned long long)fs->size);
	printf("blocks %llu\n", (unsigned long long)fs->nblocks);
	printf("stripes %u\n", fs->stripes);
	printf("itable_block_size %u\n", fs->itbs);
	printf("journal_pages %u\n", fs->journal_pages);
	printf("state 0x%x%s%s%s\n", state,
	       state & NOVA_STATE_CLEAN ? " clean" : "",
	       state & NOVA_STATE_ERROR ? " error" : "",
	       state & NOVA_STATE_PRJQUOTA ? " prjquota" : "");
	printf("mount_count %u\n", le32_to_cpu(sb->s_mount_count));
	put_feature("feature_compat", le64_to_cpu(sb->s_feature_compat),
		    (const char *const[]){ NULL });
	put_feature("feature_ro_compat", le64_to_cpu(sb->s_feature_ro_compat),
		    ro_compat);
	put_feature("feature_incompat", le64_to_cpu(sb->s_feature_incompat),
		    incompat);
	if (enc == NOVA_ENC_UTF8_12_1)
		printf("encoding utf8-12.1\n");
	else
		printf("encoding %s%u\n", enc ? "unknown " : "none ", enc);
	printf("encoding_flags 0x%x%s\n", encf,
	       encf & NOVA_ENC_STRICT_MODE_FL ? " strict" : "");
	return DBG_OK;
}

/* One word for the file type of @mode */
static const char *type_word(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:	return "directory";
	case S_IFREG:	return "regular";
	case S_IFLNK:	return "symlink";
	case S_IFCHR:	return "chardev";
	case S_IFBLK:	return "blockdev";
	case S_IFIFO:	return "fifo";
	case S_IFSOCK:	return "socket";
	}
	return "unknown";
}

/*
 * stat INODE: the inode's attributes after the replay of its log, one
 * "key value" a line
 */
static int cmd_stat(struct nv_fs *fs, char **argv)
{
	struct nv_inode_state st;
	int ret = get_inode(fs, argv[0], &st);

	if (ret)
		return ret;
	printf("ino %llu\n", (unsigned long long)st.ino);
	printf("type %s\n", type_word(st.mode));
	printf("mode 0%o\n", st.mode);
	printf("uid %u\ngid %u\n", st.uid, st.gid);
	printf("links %u\n", st.links);
	printf("size %llu\n", (unsigned long long)st.size);
	printf("flags 0x%x\n", st.flags);
	printf("projid %u\n", st.projid);
	printf("generation %u\n", st.generation);
	printf("atime %lld\nmtime %lld\nctime %lld\n", (long long)st.atime,
	       (long long)st.mtime, (long long)st.ctime);
	printf("xattrs %zu\n", st.nxattrs);
	nv_ifree(&st);
	return DBG_OK;
}

static int cmp_cookie(const void *a, const void *b)
{
	const struct nv_dent *x = *(struct nv_dent *const *)a;
	const struct nv_dent *y = *(struct nv_dent *const *)b;

	return x->cookie < y->cookie ? -1 : x->cookie > y->cookie;
}

/* @st's live names in readdir order (by cookie), *@n of them; NULL: ENOMEM */
static struct nv_dent **sorted_names(struct nv_inode_state *st, size_t *n)
{
	struct nv_dent **v = malloc((st->dir.alive + 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < st->dir.n; i++)
		if (st->dir.d[i].alive)
			v[(*n)++] = &st->dir.d[i];
	qsort(v, *n, sizeof(*v), cmp_cookie);
	return v;
}

/* ls DIR: "." and "..", then the live names, as "INO NAME" lines */
static int cmd_ls(struct nv_fs *fs, char **argv)
{
	struct nv_inode_state st;
	struct nv_dent **v;
	size_t n, i;
	int ret = get_dir(fs, argv[0], &st);

	if (ret)
		return ret;
	v = sorted_names(&st, &n);
	if (!v) {
		nv_ifree(&st);
		warn_msg("out of memory");
		return DBG_ERROR;
	}
	/* as readdir: the root's parent is itself (its log has no "..") */
	printf("%llu .\n", (unsigned long long)st.ino);
	if (st.parent || st.ino == NOVA_ROOT_INO)
		printf("%llu ..\n",
		       (unsigned long long)(st.parent ? st.parent : st.ino));
	for (i = 0; i < n; i++) {
		printf("%llu ", (unsigned long long)v[i]->ino);
		put_escaped(v[i]->name, v[i]->len);
		putchar('\n');
	}
	free(v);
	nv_ifree(&st);
	return DBG_OK;
}

/* name DIR INODE: the bytes of INODE's one name in DIR, as they are */
static int cmd_name(struct nv_fs *fs, char **argv)
{
	struct nv_inode_state st;
	struct nv_dent *found = NULL;
	uint64_t ino;
	size_t i, names = 0;
	int ret = parse_ino(fs, argv[1], &ino);

	if (!ret)
		ret = get_dir(fs, argv[0], &st);
	if (ret)
		return ret;
	for (i = 0; i < st.dir.n; i++) {
		if (!st.dir.d[i].alive || st.dir.d[i].ino != ino)
			continue;
		found = &st.dir.d[i];
		names++;
	}
	if (names == 1) {
		fwrite(found->name, 1, found->len, stdout);
	} else if (names) {
		warn_msg("inode %llu has %zu names in directory %llu (see ls)",
			 (unsigned long long)ino, names,
			 (unsigned long long)st.ino);
		ret = DBG_NOT_FOUND;
	} else {
		warn_msg("inode %llu has no name in directory %llu",
			 (unsigned long long)ino, (unsigned long long)st.ino);
		ret = DBG_NOT_FOUND;
	}
	nv_ifree(&st);
	return ret;
}

/* context INODE: the fscrypt context, one "key value" a line */
static int cmd_context(struct nv_fs *fs, char **argv)
{
	struct nv_inode_state st;
	struct nv_xattr *x;
	uint8_t c[NV_FSCRYPT_MAX_SIZE];
	int ret = get_inode(fs, argv[0], &st);

	if (ret)
		return ret;
	x = nv_encryption_context(&st);
	if (!x) {
		warn_msg("inode %llu has no encryption context",
			 (unsigned long long)st.ino);
		nv_ifree(&st);
		return DBG_NOT_FOUND;
	}
	/* the replay takes only the two sizes, each with its version */
	nv_xattr_read(fs, x, c);
	printf("context ");
	put_hex(c, x->value_len);
	printf("\nversion %u\ncontents_mode %u\nfilenames_mode %u\nflags 0x%02x\n",
	       c[0], c[1], c[2], c[3]);
	if (x->value_len == NV_FSCRYPT_V1_SIZE) {
		printf("master_key_descriptor ");
		put_hex(c + 4, 8);
	} else {
		printf("log2_data_unit_size %u\nmaster_key_identifier ", c[4]);
		put_hex(c + 8, 16);
	}
	printf("\nnonce ");
	put_hex(c + x->value_len - NV_FSCRYPT_NONCE_SIZE, NV_FSCRYPT_NONCE_SIZE);
	putchar('\n');
	nv_ifree(&st);
	return DBG_OK;
}

static void quota_warn(void *arg, int err, const char *msg)
{
	(void)arg;
	(void)err;
	warn_msg("warning: project quota file: %s", msg);
}

/*
 * quota: the project quota file (reserved inode 6) as the kernel reads
 * it: its info block, "key value" lines, then one line for each ID the
 * tree leads to, in ID order: "id N space BYTES inodes N bsoft KIB
 * bhard KIB isoft N ihard N btime T itime T".  What is wrong in the
 * tree is said on stderr, and its entries are listed as far as it leads.
 */
static int cmd_quota(struct nv_fs *fs, char **argv)
{
	struct nv_inode_state st;
	struct nv_quota q;
	size_t i;
	int ret;

	(void)argv;
	if (!nv_inode_slot_valid(fs, NOVA_PRJQUOTA_INO)) {
		warn_msg("no project quota file (inode %u is not in use)",
			 NOVA_PRJQUOTA_INO);
		return DBG_NOT_FOUND;
	}
	ret = read_inode(fs, NOVA_PRJQUOTA_INO, &st);
	if (ret)
		return ret;
	nv_ifree(&st);
	/* with its data this time (read_inode() skips it) */
	if (nv_iread(fs, NOVA_PRJQUOTA_INO, &st, 0, NULL, NULL)) {
		warn_msg("out of memory");
		return DBG_ERROR;
	}
	if (!S_ISREG(st.mode) || !st.size) {
		warn_msg(S_ISREG(st.mode) ? "the project quota file is empty" :
			 "the project quota file is not a regular file");
		nv_ifree(&st);
		return DBG_NOT_FOUND;
	}
	if (nv_quota_read(fs, &st, &q, quota_warn, NULL)) {
		nv_ifree(&st);
		warn_msg("out of memory");
		return DBG_ERROR;
	}
	printf("size %llu\n", (unsigned long long)st.size);
	if (q.info_ok)
		printf("blocks %u\nfree_blk %u\nfree_entry %u\nbgrace %u\nigrace %u\n",
		       q.info.blocks, q.info.free_blk, q.info.free_entry,
		       q.info.bgrace, q.info.igrace);
	for (i = 0; i < q.ndq; i++) {
		const struct nv_dquot *d = &q.dq[i];

		printf("id %u space %llu inodes %llu bsoft %llu bhard %llu isoft %llu ihard %llu btime %llu itime %llu\n",
		       d->id, (unsigned long long)d->curspace,
		       (unsigned long long)d->curinodes,
		       (unsigned long long)d->bsoftlimit,
		       (unsigned long long)d->bhardlimit,
		       (unsigned long long)d->isoftlimit,
		       (unsigned long long)d->ihardlimit,
		       (unsigned long long)d->btime,
		       (unsigned long long)d->itime);
	}
	nv_quota_free(&q);
	nv_ifree(&st);
	return DBG_OK;
}

static const struct dbg_cmd {
	const char *name;
	int args;
	int (*run)(struct nv_fs *fs, char **argv);
} cmds[] = {
	{ "super", 0, cmd_super },
	{ "stat", 1, cmd_stat },
	{ "ls", 1, cmd_ls },
	{ "name", 2, cmd_name },
	{ "context", 1, cmd_context },
	{ "quota", 0, cmd_quota },
};

/* ------------------------------------------------------------- main */

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-V] DEVICE COMMAND [ARG...]\n"
		"\n"
		"Commands (DIR, INODE: N, <N> or an absolute path):\n"
		"  super              the super block, \"key value\" lines\n"
		"  stat INODE         INODE's attributes, \"key value\" lines\n"
		"  ls DIR             DIR's entries, \"INO NAME\" lines; a name's\n"
		"                     unprintable bytes, blanks and backslashes as \\xHH\n"
		"  name DIR INODE     the bytes of INODE's name in DIR, as stored\n"
		"  context INODE      INODE's fscrypt context, \"key value\" lines\n"
		"  quota              the project quota file: its info block, then\n"
		"                     \"id N space BYTES inodes N bsoft KIB ...\" lines\n"
		"\n"
		"Read-only.  Exit status: 0 done, 1 not found, 8 operational\n"
		"error, 16 usage error.\n", prog);
}

static int open_fs(struct nv_fs *fs)
{
	struct nova_sb_search s;
	char msg[512];

	if (nv_open(fs, dev, NV_OPEN_RO, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return DBG_ERROR;
	}
	if (nv_load_super(fs, 0, &s) < 0) {
		warn_msg("no valid NOVA super block (%s; replica: %s)",
			 s.why, s.rwhy);
		return DBG_ERROR;
	}
	if (s.why)
		warn_msg("warning: primary super block invalid (%s); the replica in block %llu is used",
			 s.why, (unsigned long long)(s.off >> NOVA_BLOCK_SHIFT));
	if (nv_load_itables(fs)) {
		warn_msg("out of memory");
		return DBG_ERROR;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct dbg_cmd *cmd = NULL;
	struct nv_fs fs;
	size_t i;
	int c, ret;

	prog = nova_prog_name(argv[0], prog);
	while ((c = getopt(argc, argv, "+Vh")) != -1) {
		switch (c) {
		case 'V':
			printf("%s %s (NOVA format %d.%d)\n", prog, NOVA_VERSION,
			       NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);
			return DBG_OK;
		case 'h':
			print_usage(stdout);
			return DBG_OK;
		default:
			print_usage(stderr);
			return DBG_USAGE;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "%s: %s\n", prog, argc == optind ?
			"no device or image given" : "no command given");
		print_usage(stderr);
		return DBG_USAGE;
	}
	dev = argv[optind];
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[optind + 1], cmds[i].name))
			cmd = &cmds[i];
	if (!cmd)
		fprintf(stderr, "%s: unknown command '%s'\n", prog,
			argv[optind + 1]);
	else if (argc - optind - 2 != cmd->args)
		fprintf(stderr, "%s: %s takes %d argument%s\n", prog, cmd->name,
			cmd->args, cmd->args == 1 ? "" : "s");
	if (!cmd || argc - optind - 2 != cmd->args) {
		print_usage(stderr);
		return DBG_USAGE;
	}
	ret = open_fs(&fs);
	if (!ret)
		ret = cmd->run(&fs, argv + optind + 2);
	nv_close(&fs);
	if (fflush(stdout) || ferror(stdout)) {
		warn_msg("cannot write the output: %s", strerror(errno));
		ret = DBG_ERROR;
	}
	return ret;
}
