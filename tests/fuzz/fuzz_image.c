// SPDX-License-Identifier: GPL-2.0
/* Sparse fuzz inputs of fsck.nova and their checksum fix-ups: fuzz_image.h */
#include <string.h>
#include "fuzz_image.h"
#include "libnova.h"

static uint32_t get16(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8;
}

static uint64_t get32(const uint8_t *p)
{
	return get16(p) | (uint64_t)get16(p + 2) << 16;
}

size_t fz_image_size(const uint8_t *in, size_t len)
{
	if (len < FZ_HDR)
		return 0;
	return NOVA_MIN_SIZE + ((size_t)(get16(in + 1) % FZ_MAX_EXTRA) << NOVA_BLOCK_SHIFT);
}

void fz_decode(const uint8_t *in, size_t len, uint8_t *img, size_t size)
{
	size_t pos = FZ_HDR;

	while (pos + FZ_REC <= len) {
		size_t off = get32(in + pos) % size, n = get16(in + pos + 4);

		pos += FZ_REC;
		if (n > len - pos)
			n = len - pos;
		memcpy(img + off, in + pos, n < size - off ? n : size - off);
		pos += n;
	}
}

static void fix_super(uint8_t *img, size_t off)
{
	struct nova_super_block sb;

	memcpy(&sb, img + off, sizeof(sb));
	if (le32_to_cpu(sb.s_magic) != NOVA_SUPER_MAGIC)
		return;
	sb.s_sum = cpu_to_le32(nova_sb_csum(&sb));
	memcpy(img + off, &sb, sizeof(sb));
}

/* Every entry of a log, page by page, as far as the entries parse (a
 * log head is a page: nv_page_valid() refuses anything else) */
static void fix_log(struct nv_fs *fs, uint64_t head)
{
	uint64_t page = head;
	size_t in = 0, n = 0;

	while (page && nv_page_valid(fs, page) && n++ < 256) {
		while (in < NOVA_LOG_LAST_ENTRY) {
			uint8_t *p = nv_ptr(fs, page + in);
			size_t sz = nv_entry_size(p, NOVA_LOG_LAST_ENTRY - in);

			if (!sz)
				break;
			nv_entry_csum(p, sz);
			in += sz;
		}
		in = 0;
		page = nv_get64(fs, page + NOVA_LOG_LAST_ENTRY +
				offsetof(struct nova_log_page_tail, next_page));
	}
}

static void fix_entries(uint8_t *img, size_t size)
{
	struct nv_fs fs;
	uint64_t ino, max, off;
	unsigned int s, i;

	nv_open_mem(&fs, img, size);
	if (nv_load_super(&fs, 0, NULL) < 0 || nv_load_itables(&fs))
		goto out;
	for (s = 0; s < fs.stripes; s++) {
		uint64_t base = nv_get64(&fs, nv_journal_ptr_off(s)) &
				~(uint64_t)(NOVA_BLOCK_SIZE - 1);

		if (!nv_page_valid(&fs, base))
			continue;
		for (i = 0; i < NOVA_BLOCK_SIZE / sizeof(struct nova_journal_entry); i++) {
			struct nova_journal_entry *e =
				nv_ptr(&fs, base + i * sizeof(*e));

			if (le64_to_cpu(e->type) == NOVA_JOURNAL_ENTRY)
				e->e_csum = cpu_to_le32(nova_crc32c(e,
					offsetof(struct nova_journal_entry, e_csum)));
		}
	}
	max = nv_max_ino(&fs);
	for (ino = 1; ino < max && ino < 65536; ino++) {
		off = nv_inode_off(&fs, ino);
		if (off && nv_pi(&fs, off)->log_head)
			fix_log(&fs, le64_to_cpu(nv_pi(&fs, off)->log_head));
	}
out:
	nv_close(&fs);
}

void fz_fixup(uint8_t flags, uint8_t *img, size_t size)
{
	struct nova_super_block sb;
	uint64_t n;

	if (flags & FZ_FIX_SUPER) {
		fix_super(img, 0);
		fix_super(img, size - NOVA_BLOCK_SIZE);
		memcpy(&sb, img, sizeof(sb));
		n = le64_to_cpu(sb.s_num_blocks);
		if (n && n <= size >> NOVA_BLOCK_SHIFT)
			fix_super(img, (n - 1) << NOVA_BLOCK_SHIFT);
	}
	if (flags & FZ_FIX_ENTRIES)
		fix_entries(img, size);
}
