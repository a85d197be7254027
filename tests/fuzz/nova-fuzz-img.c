// SPDX-License-Identifier: GPL-2.0
/*
 * nova-fuzz-img: convert between NOVA images and fsck.nova fuzz inputs
 * (fuzz_image.h).
 *
 *   nova-fuzz-img encode FLAGS IMAGE INPUT   an image as an input
 *   nova-fuzz-img decode INPUT IMAGE         the image an input describes,
 *                                            with its checksum fix-ups:
 *                                            what fsck.nova was given
 *   nova-fuzz-img flags INPUT                the fsck options it ran with
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_image.h"
#include "libnova.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	do {
		if (*len == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				exit(1);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

static void spill(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "%s: cannot write\n", path);
		exit(1);
	}
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

/* Runs of non-zero bytes (gaps under 16 zero bytes joined) as records */
static int encode(const char *flags, const char *ipath, const char *opath)
{
	size_t len, pos, start, end, gap, olen = FZ_HDR;
	uint8_t *img = slurp(ipath, &len), *out;
	uint64_t blocks = len >> NOVA_BLOCK_SHIFT;
	const uint64_t min = NOVA_MIN_SIZE >> NOVA_BLOCK_SHIFT;

	if (len & (NOVA_BLOCK_SIZE - 1) || blocks < min ||
	    blocks >= min + FZ_MAX_EXTRA) {
		fprintf(stderr, "%s: size must be %llu to %llu whole blocks\n", ipath,
			(unsigned long long)min,
			(unsigned long long)(min + FZ_MAX_EXTRA - 1));
		return 1;
	}
	out = malloc(len + len / 8 + 64);
	out[0] = strtoul(flags, NULL, 0);
	put16(out + 1, blocks - min);
	for (pos = 0; pos < len;) {
		if (!img[pos]) {
			pos++;
			continue;
		}
		start = pos;
		end = pos;
		for (gap = 0; pos < len && gap < 16 && pos - start < 65535; pos++) {
			if (img[pos]) {
				gap = 0;
				end = pos + 1;
			} else {
				gap++;
			}
		}
		pos = end;
		out[olen] = start;
		out[olen + 1] = start >> 8;
		out[olen + 2] = start >> 16;
		out[olen + 3] = start >> 24;
		put16(out + olen + 4, end - start);
		memcpy(out + olen + FZ_REC, img + start, end - start);
		olen += FZ_REC + end - start;
	}
	spill(opath, out, olen);
	free(out);
	free(img);
	return 0;
}

static int decode(const char *ipath, const char *opath)
{
	size_t len, size;
	uint8_t *in = slurp(ipath, &len), *img;

	size = fz_image_size(in, len);
	if (!size) {
		fprintf(stderr, "%s: too short\n", ipath);
		return 1;
	}
	img = calloc(1, size);
	fz_decode(in, len, img, size);
	fz_fixup(in[0], img, size);
	spill(opath, img, size);
	free(img);
	free(in);
	return 0;
}

static int flags(const char *ipath)
{
	size_t len;
	uint8_t *in = slurp(ipath, &len);
	printf("%s%s%s\n", len && in[0] & FZ_REPAIR ? "-y, then -n" :
	       len && in[0] & FZ_PREEN ? "-p, then -n" : "-n",
	       len && in[0] & FZ_VERBOSE ? " -v" : "",
	       len && in[0] & (FZ_FIX_SUPER | FZ_FIX_ENTRIES) ?
	       " (checksums fixed up by decode)" : "");
	free(in);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "encode"))
		return encode(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "decode"))
		return decode(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "flags"))
		return flags(argv[2]);
	fprintf(stderr, "usage: %s encode FLAGS IMAGE INPUT | decode INPUT IMAGE | flags INPUT\n",
		argv[0]);
	return 2;
}
