// SPDX-License-Identifier: GPL-2.0
/* before 6.14: the raw CRC32C update is __crc32c_le(), later crc32c() */
#include <linux/crc32.h>

static __used u32 p(const void *b)
{
	return __crc32c_le(0, b, 1);
}
