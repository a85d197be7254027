/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shims for the headers the tools share with the module
 * (../nova_format.h, ../nova_lib.h): the kernel's byte-order helpers,
 * ARRAY_SIZE, CRC32C and 64-bit division, as nova_lib.h's header comment
 * asks.
 */
#ifndef NOVA_SHIM_H
#define NOVA_SHIM_H

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#define le16_to_cpu(x)	le16toh(x)
#define le32_to_cpu(x)	le32toh(x)
#define le64_to_cpu(x)	le64toh(x)
#define cpu_to_le16(x)	htole16(x)
#define cpu_to_le32(x)	htole32(x)
#define cpu_to_le64(x)	htole64(x)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/*
 * CRC32C (Castagnoli), reflected, as in iSCSI/ext4/btrfs: the check value
 * of "123456789" is 0xe3069283.  No pre- or post-inversion, exactly like
 * the kernel's crc32c(); callers use nova_crc32c() (nova_lib.h) for a
 * complete checksum.
 */
static inline __u32 nova_crc32c_update(__u32 crc, const void *p, unsigned long len)
{
	const unsigned char *b = p;
	int k;

	while (len--) {
		crc ^= *b++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78U & (0U - (crc & 1)));
	}
	return crc;
}

static inline __u64 nova_div_u64(__u64 a, __u64 b)
{
	return a / b;
}

#endif /* NOVA_SHIM_H */
