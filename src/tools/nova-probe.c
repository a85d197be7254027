// SPDX-License-Identifier: GPL-2.0
/*
 * nova-probe: identify a NOVA file system for udev and blkid-style users.
 *
 *   nova-probe DEVICE|IMAGE
 *
 * Prints ID_FS_TYPE, ID_FS_USAGE, ID_FS_UUID(_ENC), ID_FS_LABEL(_ENC) and
 * ID_FS_VERSION lines for udev's IMPORT{program}.  Exit status: 0 found,
 * 2 no NOVA file system, 8 operational error (as blkid/e2fsprogs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nova_tools.h"

static void print_enc(const char *key, const char *s)
{
	printf("%s=", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\' || c == '/' || c == ' ' ||
		    c == '"' || c == '\'')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
}

static void print_safe(const char *key, const char *s)
{
	printf("%s=", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		putchar(c < 0x20 || c >= 0x7f || c == '/' || c == '\\' ||
			c == ' ' || c == '"' || c == '\'' ? '_' : c);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	struct nova_super_block sb;
	char uuid[37], label[NOVA_LABEL_LEN + 1];
	const char *why;
	int fd, which;
	__u32 ver;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s DEVICE|IMAGE\n", argv[0]);
		return 8;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s\n", argv[0], argv[1],
			strerror(errno));
		return 8;
	}
	which = nova_read_super(fd, NOVA_SB_NO_SCAN, &sb, &why);
	close(fd);
	if (which < 0) {
		fprintf(stderr, "%s: %s: no NOVA file system (%s)\n", argv[0],
			argv[1], why);
		return 2;
	}
	nova_uuid_str(sb.s_uuid, uuid);
	memcpy(label, sb.s_label, NOVA_LABEL_LEN);
	label[NOVA_LABEL_LEN] = '\0';
	ver = le32_to_cpu(sb.s_version);

	printf("ID_FS_TYPE=NOVA\n");
	printf("ID_FS_USAGE=filesystem\n");
	printf("ID_FS_UUID=%s\n", uuid);
	printf("ID_FS_UUID_ENC=%s\n", uuid);
	if (label[0]) {
		print_safe("ID_FS_LABEL", label);
		print_enc("ID_FS_LABEL_ENC", label);
	}
	printf("ID_FS_VERSION=%u.%u\n", ver >> 16, ver & 0xffff);
	if (which == 1)
		fprintf(stderr, "%s: %s: primary super block invalid (%s); replica used\n",
			argv[0], argv[1], why);
	return 0;
}
