/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the NOVA user-space tools. */
#ifndef NOVA_TOOLS_H
#define NOVA_TOOLS_H

#include <stdarg.h>
#include <stddef.h>
#include "nova_shim.h"
#include "../nova_format.h"
#include "../nova_lib.h"
#include "../nova_ioctl.h"

/* The kernel's names, which user space lacks */
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/* Size in bytes of a block device or regular file, or -1 */
long long nova_dev_size(int fd);

/* Read @len bytes at byte @off of a device into @buf: 0, or -1 */
typedef int (*nova_read_fn)(void *arg, __u64 off, void *buf, size_t len);

/* nova_find_super() flags */
#define NOVA_SB_NO_SCAN	0x01	/* no step 3 of the replica search */

/* What nova_find_super() looked at */
struct nova_sb_search {
	__u64 off;		/* offset of the copy found (0: the primary) */
	__u64 scanned;		/* blocks step 3 looked at */
	const char *why;	/* why the primary is not valid, NULL if it is */
	const char *rwhy;	/* no replica: why the first candidate is not */
};

/*
 * The one super block reader of the tools: the super block of a device of
 * @dev_size bytes read through @rd, as the kernel reads it (super.c): the
 * primary if nova_check_super() takes it, else the first replica
 * candidate of nova_replica_next() (nova_lib.h) that nova_check_replica()
 * takes.  Step 3, the scan of the device, only without NOVA_SB_NO_SCAN
 * and while the device shows NOVA (nova_shows_nova()): nova-probe and
 * mkfs.nova's test for an existing file system run on any device and
 * never scan one.  The copy goes into @sb; returns 0 (primary), 1
 * (replica) or -1 (none); @s says what was looked at.
 */
int nova_find_super(nova_read_fn rd, void *arg, __u64 dev_size,
		    unsigned int flags, struct nova_super_block *sb,
		    struct nova_sb_search *s);
/*
 * nova_find_super() on the device open on @fd; *why: why the primary is
 * not valid (NULL if it is)
 */
int nova_read_super(int fd, unsigned int flags, struct nova_super_block *sb,
		    const char **why);

/* The program's name for messages: argv[0] without its directory, else @dflt */
const char *nova_prog_name(const char *argv0, const char *dflt);

/*
 * An error message on stderr, as warnx(3) but with the tool's name
 * @prog given: "@prog: @what: message" (no "@what: " if it is NULL)
 */
void nova_vwarn(const char *prog, const char *what, const char *fmt,
		va_list ap);

/* Format a UUID as 36 characters plus NUL */
void nova_uuid_str(const __u8 uuid[16], char out[37]);

/*
 * @len bytes of @s, a string read from an image (a name, a path, an xattr
 * name, a label), in a form safe to print on a terminal, as e2fsck prints
 * names (safe_print() in e2fsprogs' e2fsck/message.c): a byte of 0x80 or
 * more as "M-" and the form of its low 7 bits, a control character as
 * ^@ .. ^_, DEL as ^?; every byte, a NUL too, up to @len.  Into @buf of
 * @size bytes, NUL terminated; what does not fit is cut, never in the
 * middle of a byte's form.  Returns @buf.
 */
char *nova_safe_str(char *buf, size_t size, const char *s, size_t len);
/* A buffer that holds any @len bytes in nova_safe_str()'s form */
#define NOVA_SAFE_SIZE(len)	(4 * (len) + 1)

#endif
