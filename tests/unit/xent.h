/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xent.h: hand-made NOVA_XATTR log entries, for the tests that feed
 * libnova and fsck.nova malformed extended attributes (test_xattr.c and
 * nova_image.c's corruption injector).
 */
#ifndef XENT_H
#define XENT_H

#include <stdint.h>
#include <string.h>
#include "libnova.h"

/* One entry: the fields as they go to pmem, its data @fill bytes */
struct xent {
	uint8_t index, name_len, fill;
	const char *name;
	uint16_t part, part_len;
	uint32_t value_len, flags, value_csum;
	int64_t ctime;
};

/* the checksum of a value of @n bytes @c */
static inline uint32_t fill_csum(uint8_t c, size_t n)
{
	static uint8_t b[NOVA_XATTR_VALUE_MAX + 16];

	memset(b, c, n);
	return nova_crc32c(b, n);
}

/* a good one-part user.@name group of @n bytes 'v' */
static inline struct xent xent_user(const char *name, uint32_t n)
{
	struct xent x = {
		.index = NOVA_XATTR_INDEX_USER, .name = name,
		.name_len = strlen(name), .fill = 'v', .part_len = n,
		.value_len = n, .value_csum = fill_csum('v', n),
	};

	return x;
}

/* @e[0..@n): a good user.@name group of @n parts of 100 bytes 'v' */
static inline void xent_parts(struct xent *e, const char *name, int n)
{
	int i;

	e[0] = xent_user(name, 100);
	e[0].value_len = 100 * n;
	e[0].value_csum = fill_csum('v', 100 * n);
	for (i = 1; i < n; i++) {
		e[i] = e[0];
		e[i].name_len = 0;
		e[i].part = i;
		e[i].value_csum = 0;
	}
}

/*
 * @x as an entry in @buf (NOVA_XATTR_ENTRY_MAX bytes, 8-byte aligned),
 * transaction @tid, its entry checksum right; returns its length.
 */
static inline size_t xent_build(void *buf, const struct xent *x, uint64_t tid)
{
	struct nova_xattr_entry *e = buf;
	size_t len = NOVA_XATTR_LEN(x->name_len, x->part_len);

	memset(buf, 0, NOVA_XATTR_ENTRY_MAX);
	e->entry_type = NOVA_XATTR;
	e->name_index = x->index;
	e->name_len = x->name_len;
	e->xe_len = cpu_to_le16(len);
	e->part_len = cpu_to_le16(x->part_len);
	e->value_len = cpu_to_le32(x->value_len);
	e->ctime = cpu_to_le64((uint64_t)x->ctime);
	e->flags = cpu_to_le32(x->flags);
	e->part = cpu_to_le16(x->part);
	e->value_csum = cpu_to_le32(x->value_csum);
	e->trans_id = cpu_to_le64(tid);
	if (x->name_len)
		memcpy(e->data, x->name, x->name_len);
	memset(e->data + x->name_len, x->fill, x->part_len);
	nv_entry_csum(e, len);
	return len;
}

#endif /* XENT_H */
