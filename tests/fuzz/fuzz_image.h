/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzz inputs of fsck.nova: a sparse encoding of a NOVA image, so
 * that the fuzzer mutates the few kilobytes that matter, not megabytes
 * of zeros.
 *
 *   byte 0      flags (FZ_*)
 *   bytes 1-2   image size: NOVA_MIN_SIZE + (le16 % FZ_MAX_EXTRA) blocks
 *   then        records: le32 offset (modulo the image size), le16
 *               length, that many bytes (cut at the end of the image
 *               or of the input); everything else is zero
 *
 * nova-fuzz-img converts images to inputs and back (for the seed corpus
 * and to replay a crash with the real fsck.nova).
 */
#ifndef FUZZ_IMAGE_H
#define FUZZ_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define FZ_REPAIR	0x01	/* -y, then -n on the result; else -n */
#define FZ_PREEN	0x02	/* without FZ_REPAIR: -p, then -n */
#define FZ_FIX_SUPER	0x04	/* recompute the super blocks' checksums */
#define FZ_FIX_ENTRIES	0x08	/* recompute log and journal entry checksums */
#define FZ_VERBOSE	0x10	/* -v */

#define FZ_HDR		3
#define FZ_REC		6
#define FZ_MAX_EXTRA	1024	/* blocks above NOVA_MIN_SIZE */

/* Size in bytes of the image an input describes (0: input too short) */
size_t fz_image_size(const uint8_t *in, size_t len);
/* Write the image into @img (fz_image_size() bytes, zeroed by the caller) */
void fz_decode(const uint8_t *in, size_t len, uint8_t *img, size_t size);
/* Apply the checksum fix-ups the flags ask for */
void fz_fixup(uint8_t flags, uint8_t *img, size_t size);

#endif
