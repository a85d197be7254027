/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the NOVA user-space tools. */
#ifndef NOVA_TOOLS_H
#define NOVA_TOOLS_H

#include <stddef.h>
#include "nova_shim.h"
#include "../nova_format.h"
#include "../nova_lib.h"
#include "../nova_ioctl.h"

/* The kernel's names, which user space lacks */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/* Size in bytes of a block device or regular file, or -1 */
long long nova_dev_size(int fd);

/*
 * Read the super block of the device open on @fd into @sb.  Returns 0 for
 * the primary, 1 for the replica (primary invalid: *why says why), -1 if
 * neither is valid (*why says why the primary is not).  The replica is
 * looked for where the primary's size says and in the device's last
 * block, never by a scan of the device (nova_replica_next() in
 * nova_lib.h): nova-probe runs on every device udev sees.
 */
int nova_read_super(int fd, struct nova_super_block *sb, const char **why);

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
