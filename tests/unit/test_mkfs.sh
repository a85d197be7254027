#!/bin/bash
# Host tests of mkfs.nova on image files (no kernel, no root needed except
# for nothing: every image is a regular file in a scratch directory).
#
#   test_mkfs.sh TOOLS_DIR CHECKER WORKDIR
#
# TOOLS_DIR holds the built mkfs.nova and nova-probe, CHECKER is the built
# tests/unit/check_mkfs_image.  Prints PASS/FAIL lines (the checker adds
# its own, one per verified property) and "mkfs: N passed, N failed,
# N skipped"; exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
probe=$tools/nova-probe
export PATH=$PATH:/usr/sbin:/sbin

# run the checker (HELPER); its PASS/FAIL lines count like ours
check_image() {
	local line
	while IFS= read -r line; do
		case $line in
		PASS\ *) echo "$line"; passed=$((passed + 1)) ;;
		FAIL\ *) echo "$line"; failed=$((failed + 1)) ;;
		*) echo "$line" ;;
		esac
	done < <("$helper" "$@" 2>&1)
}

# mk ARGS...: run mkfs.nova; sets $out (stdout+stderr) and $rc
mk() { run "$mkfs" "$@"; }
probe_field() {	# probe_field IMAGE KEY
	"$probe" "$1" 2>/dev/null | sed -n "s/^$2=//p"
}
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
printed_uuid() { sed -n 's/^Filesystem UUID: *//p' <<<"$out"; }
fsize() { stat -c %s "$1"; }
new_image() { rm -f "$1"; truncate -s "$2" "$1"; }
# zero_block IMAGE OFFSET: the 4 KiB at OFFSET are all zero
zero_block() { [ -z "$(od -v -An -tx1 -j "$2" -N 4096 "$1" | tr -d ' \n0')" ]; }
# refused WHAT TYPE LABEL: $img holds a TYPE file system labelled LABEL;
# mkfs.nova refuses it without -f, with and without -n, and leaves it
# alone; sets $before to the image's checksum
refused() {
	before=$(sum "$img")
	mk "$img"
	expect "$1 refused without -f" 1 "contains a $2 file system labelled '$3'"
	t "$1 untouched" [ "$(sum "$img")" = "$before" ]
	mk -n "$img"
	expect "-n also refuses $1 without -f" 1 "contains a $2"
}
fill_image() {	# fill_image IMAGE BYTES OCTAL-BYTE
	rm -f "$1"
	head -c "$2" /dev/zero | tr '\0' "\\$3" >"$1"
}

rm -rf "$work"
mkdir -p "$work"
img=$work/nova.img
M64=$((64 << 20))
G1=$((1 << 30))
MIN=$(((64 + 2 + 256) * 4096))	# NOVA_MIN_SIZE

# --- 64 MiB sparse image, defaults plus a label ---
new_image "$img" $M64
mk -L "unit test" "$img"
expect "64M: mkfs succeeds" 0 'Writing super blocks: done'
uuid=$(printed_uuid)
t "64M: image size unchanged" [ "$(fsize "$img")" -eq $M64 ]
t "64M: probe finds NOVA" [ "$(probe_field "$img" ID_FS_TYPE)" = NOVA ]
t "64M: probe reports the printed UUID" same "$uuid" "$(probe_field "$img" ID_FS_UUID)"
t "64M: probe reports the label" [ "$(probe_field "$img" ID_FS_LABEL_ENC)" = 'unit\x20test' ]
t "64M: 4 KiB inode table blocks" grep -q 'Inode table block size: 4096 bytes' <<<"$out"
check_image -t 64M -u "$uuid" -l "unit test" "$img"

# --- refuse an existing NOVA file system without -f, accept with -f ---
refused "existing NOVA" NOVA "unit test"
mk -n -f "$img"
expect "-n -f reports the plan" 0 'Stripes: +[0-9]+'
t "-n -f: image untouched (checksum)" [ "$(sum "$img")" = "$before" ]
mk -q -f "$img"
expect "-f overwrites NOVA" 0
t "-q prints nothing" [ -z "$out" ]
t "-f: new UUID" [ "$(probe_field "$img" ID_FS_UUID)" != "$uuid" ]
t "-f: label gone" [ -z "$(probe_field "$img" ID_FS_LABEL)" ]

# --- -n on a fresh image writes nothing ---
new_image "$img" $M64
before=$(sum "$img")
mk -n -U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "$img"
expect "-n succeeds" 0 'dry run'
t "-n prints the size" grep -q 'Size: *67108864 bytes (64.0 MiB), 16384 4k blocks' <<<"$out"
t "-n prints the UUID" grep -q 'Filesystem UUID: *0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' <<<"$out"
t "-n prints stripes and inode table size" grep -q 'Inode table block size: 4096' <<<"$out"
t "-n writes nothing (checksum)" [ "$(sum "$img")" = "$before" ]
t "-n: still no NOVA" [ -z "$(probe_field "$img" ID_FS_TYPE)" ]

# --- 1 GiB sparse image: 2 MiB inode table blocks ---
new_image "$img" $G1
mk -L big "$img"
expect "1G: mkfs succeeds" 0
uuid=$(printed_uuid)
t "1G: 2 MiB inode table blocks" grep -q 'Inode table block size: 2097152 bytes' <<<"$out"
t "1G: image size unchanged" [ "$(fsize "$img")" -eq $G1 ]
t "1G: probe reports the UUID" same "$uuid" "$(probe_field "$img" ID_FS_UUID)"
t "1G: probe reports the label" [ "$(probe_field "$img" ID_FS_LABEL)" = big ]
check_image -t 1G -u "$uuid" -l big "$img"

# --- -c 3 on 1 GiB: raw pointers, computed here by hand ---
mk -q -f -c 3 "$img"
expect "1G -c 3: mkfs succeeds" 0
check_image -t "1G -c 3" -s 3 "$img"
# data blocks 64..262141, 87359 per stripe; 512-block inode tables
ok=1
for i in 0 1 2; do
	start=$((64 + i * 87359))
	[ "$(le64 "$img" $((16 * 4096 + i * 64)))" -eq $((start * 4096)) ] || ok=0
	[ "$(le64 "$img" $((32 * 4096 + i * 64)))" -eq $(((start + 512) * 4096)) ] || ok=0
	[ "$(le64 "$img" $((32 * 4096 + i * 64 + 8)))" -eq $(((start + 512) * 4096)) ] || ok=0
done
[ "$(le64 "$img" $((16 * 4096 + 3 * 64)))" -eq 0 ] || ok=0
t "1G -c 3: raw inode table and journal pointers" [ $ok -eq 1 ]

# --- -c 3 on 64 MiB, and the raw super block fields ---
new_image "$img" $M64
mk -c 3 "$img"
expect "64M -c 3: mkfs succeeds" 0 'Stripes: +3 \(regions of 5439 blocks\)'
check_image -t "64M -c 3" -s 3 "$img"
t "64M -c 3: magic NOVA at offset 4" [ "$(od -An -c -j4 -N4 "$img" | tr -d ' ')" = AVON ]
t "64M -c 3: s_stripes 3 (offset 136)" [ "$(od -An -tu4 -j136 -N4 "$img" | tr -d ' ')" -eq 3 ]
t "64M -c 3: stripe 2 inode table at block 64+2*5439" \
	[ "$(le64 "$img" $((16 * 4096 + 128)))" -eq $(((64 + 2 * 5439) * 4096)) ]
mk -f -c 1024 "$img"
expect "-c 1024 on 64 MiB refused" 1 'too small for 1024 stripes \(at most 226\)'
mk -f -c 0 "$img"
expect "-c 0 refused" 1 'invalid stripe count'
mk -f -c 1025 "$img"
expect "-c 1025 refused" 1 'invalid stripe count'
mk -f -c 3x "$img"
expect "-c 3x refused" 1 'invalid stripe count'

# --- UUIDs ---
new_image "$img" $M64
mk -U 01234567-89AB-cdef-0123-456789abcdef "$img"
expect "-U UUID accepted" 0
t "-U UUID: probe reports it (lower case)" \
	[ "$(probe_field "$img" ID_FS_UUID)" = 01234567-89ab-cdef-0123-456789abcdef ]
check_image -t "-U" -u 01234567-89ab-cdef-0123-456789abcdef "$img"
mk -f -U clear "$img"
expect "-U clear accepted" 0
t "-U clear: all-zero UUID" [ "$(probe_field "$img" ID_FS_UUID)" = 00000000-0000-0000-0000-000000000000 ]
mk -f -U time "$img"
expect "-U time accepted" 0
t "-U time: version 1 UUID" [ "$(probe_field "$img" ID_FS_UUID | cut -c15)" = 1 ]
mk -f -U random "$img"
expect "-U random accepted" 0
t "-U random: version 4 UUID" [ "$(probe_field "$img" ID_FS_UUID | cut -c15)" = 4 ]
before=$(sum "$img")
mk -f -U 01234567-89ab-cdef-0123-456789abcdeg "$img"
expect "-U invalid refused" 1 'invalid UUID'
t "-U invalid: image untouched" [ "$(sum "$img")" = "$before" ]

# --- labels: up to NOVA_LABEL_LEN (64) bytes, no NUL needed ---
l64=$(printf 'L%.0s' $(seq 64))
mk -f -L "$l64" "$img"
expect "64-byte label accepted" 0
t "64-byte label: probe reports it" [ "$(probe_field "$img" ID_FS_LABEL)" = "$l64" ]
check_image -t "64-byte label" -l "$l64" "$img"
before=$(sum "$img")
mk -f -L "${l64}X" "$img"
expect "65-byte label refused" 1 'too long'
t "65-byte label: image untouched" [ "$(sum "$img")" = "$before" ]

# --- size limits; a size that is not a multiple of 4 KiB ---
new_image "$img" $((MIN - 4096))
mk "$img"
expect "image below NOVA_MIN_SIZE refused" 1 'too small'
new_image "$img" $((MIN + 4095))
mk -c 8 "$img"
expect "-c 8 on the smallest image refused (at most 3)" 1 'at most 3'
mk "$img"
expect "smallest image (NOVA_MIN_SIZE + 4095 bytes) accepted" 0
t "smallest image: size unchanged" [ "$(fsize "$img")" -eq $((MIN + 4095)) ]
t "smallest image: probe finds NOVA" [ "$(probe_field "$img" ID_FS_TYPE)" = NOVA ]
check_image -t smallest "$img"

# --- fs-size: a file system smaller than its device (as mke2fs) ---
M128=$((128 << 20))
new_image "$img" $M128
mk -L sized "$img" 16384
expect "fs-size 16384 (blocks): mkfs succeeds" 0 'Size: +67108864 bytes \(64\.0 MiB\), 16384 4k blocks'
t "fs-size: the rest of the device is reported unused" grep -q '(67108864 trailing bytes unused)' <<<"$out"
t "fs-size: image size unchanged" [ "$(fsize "$img")" -eq $M128 ]
t "fs-size: probe finds NOVA" [ "$(probe_field "$img" ID_FS_LABEL)" = sized ]
check_image -t "fs-size 16384" -l sized -z $M64 "$img"
for arg in 64M 64m 65536k 65536K 65537k; do
	mk -q -f "$img" $arg
	expect "fs-size $arg: mkfs succeeds" 0
	is "fs-size $arg: 64 MiB (rounded down to 4 KiB)" "$(le64 "$img" 16)" $M64
	is "fs-size $arg: 16384 blocks" "$(le64 "$img" 24)" 16384
done
mk -q -f "$img" 1g
expect "fs-size 1g on 128 MiB refused" 1 'file system size 1g \(262144 blocks\) is larger than .*nova\.img \(134217728 bytes, 32768 blocks\)'
mk -q -f "$img" 32769
expect "fs-size of one block more than the device refused" 1 'is larger than'
mk -q -f "$img" 128M
expect "fs-size equal to the device accepted" 0
check_image -t "fs-size = device" "$img"
mk -q -f "$img" 321
expect "fs-size below NOVA_MIN_SIZE refused" 1 'file system size 321 \(321 blocks\) is too small: a NOVA file system needs at least 322 blocks'
mk -q -f "$img" 1k
expect "fs-size 1k (0 blocks) refused" 1 'too small'
mk -q -f "$img" 322
expect "fs-size NOVA_MIN_SIZE accepted" 0
check_image -t "fs-size 322" -z $MIN "$img"
for arg in 64MB 64x -5 0x100 '' 1.5g 99999999999999999999 20000000t; do
	before=$(sum "$img")
	mk -q -f -- "$img" "$arg"
	expect "fs-size '$arg' refused" 1 "invalid file system size '$arg'"
	t "fs-size '$arg': image untouched" [ "$(sum "$img")" = "$before" ]
done
mk -q -f -c 4 "$img" 322
expect "fs-size too small for the stripes" 1 'a file system of 322 blocks is too small for 4 stripes \(at most 3\)'
mk -n -f "$img" 32M
expect "-n with fs-size reports it" 0 'Size: +33554432 bytes \(32\.0 MiB\), 8192 4k blocks'
# an existing smaller file system is found (refused without -f)
mk -q -f "$img" 32M
mk "$img"
expect "an existing smaller file system is refused without -f" 1 'contains a NOVA file system'
# the old file system's replicas are invalidated: a full one's at the
# device's end when a smaller one is made, and the other way round
mk -q -f "$img"
t "full-device file system: replica in the device's last block" \
	[ "$(le64 "$img" $((M128 - 4096 + 16)))" -eq $M128 ]
mk -q -f "$img" 64M
t "smaller file system over it: the old replica at the device's end is gone" \
	zero_block "$img" $((M128 - 4096))
t "smaller file system: its replica in its last block" \
	[ "$(le64 "$img" $((M64 - 4096 + 16)))" -eq $M64 ]
mk -q -f "$img" 96M
t "another size: the old replica where the old primary said is gone" \
	zero_block "$img" $((M64 - 4096))
# a patterned image: nothing after fs-size is written
fill_image "$img" $((M128 + 1000)) 245
mk -q -f -c 2 "$img" 48M
expect "patterned image, fs-size 48M: mkfs succeeds" 0
check_image -t "patterned, fs-size 48M" -s 2 -p 0xa5 -z $((48 << 20)) "$img"
# a 1 GiB device with a file system below 512 MiB: 4 KiB inode table blocks
new_image "$img" $G1
mk -q "$img" 511M
expect "fs-size 511M on 1 GiB: mkfs succeeds" 0
check_image -t "fs-size 511M on 1 GiB" -z $((511 << 20)) "$img"

# --- a non-zero image: format writes exactly its blocks and nothing else ---
fill_image "$img" $((M64 + 1000)) 245
mk -f -c 2 -E root_owner=1000:1001,root_perms=0700 "$img"
expect "patterned image, -E root_owner/root_perms: mkfs succeeds" 0 'owner 1000:1001'
t "patterned image: size unchanged" [ "$(fsize "$img")" -eq $((M64 + 1000)) ]
check_image -t patterned -s 2 -o 1000:1001 -m 700 -p 0xa5 "$img"

# --- other signatures through libblkid ---
if command -v mkfs.ext4 >/dev/null; then
	new_image "$img" $M64
	mkfs.ext4 -F -q -L extlabel "$img" >/dev/null 2>&1
	refused "ext4 image" ext4 extlabel
	mk -f "$img"
	expect "ext4 image overwritten with -f" 0
	check_image -t "over ext4" "$img"
	t "over ext4: blkid finds no ext4 left" \
		[ "$(blkid -p -o value -s TYPE "$img" 2>/dev/null)" != ext4 ]
	mk "$img"
	expect "over ext4: now refused as NOVA" 1 'contains a NOVA'
else
	fail "mkfs.ext4 not installed (e2fsprogs)"
fi
# an MBR with one Linux partition (LBA 2048, 129024 sectors)
new_image "$img" $M64
printf '\x00\x20\x21\x00\x83\x3f\x20\x08\x00\x08\x00\x00\x00\xf8\x01\x00' |
	dd of="$img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
mk "$img"
expect "partition table refused without -f" 1 'contains a partition table \(dos\)'
mk -q -f "$img"
expect "partition table overwritten with -f" 0

# --- usage and operational errors (exit 1, as mke2fs) ---
mk
expect "no argument: usage error" 1 'Usage:'
mk "$img" 100 "$img"
expect "a third argument: usage error" 1 'unexpected argument'
mk "$img" "$img"
expect "two devices: the second is no fs-size" 1 'invalid file system size'
mk -Z "$img"
expect "unknown option: usage error" 1 'Usage:'
mk "$work/missing.img"
expect "missing image: error" 1 'cannot access'
mk "$work"
expect "directory: error" 1 'not a block device or a regular file'
mk -f -E bogus "$img"
expect "unknown -E option refused" 1 'unknown extended option'
mk -f -E root_perms=99999 "$img"
expect "bad root_perms refused" 1 'root_perms'
mk -f -E root_owner=1:x "$img"
expect "bad root_owner refused" 1 'root_owner'
mk -V
expect "-V prints the version" 0 '^mkfs\.nova [0-9]+\.[0-9]+\.[0-9]+ \(NOVA format 1\.0\)$'
chmod 0444 "$img"
if ! [ -w "$img" ]; then	# root can write anyway
	mk -f "$img"
	expect "read-only image: error" 1 'cannot open'
fi
chmod 0644 "$img"

# --- install: mkfs.NOVA for util-linux "mkfs -t NOVA", man page ---
dest=$work/install
if make -s -C "$tools" install DESTDIR="$dest" >/dev/null 2>&1; then
	t "install: mkfs.nova installed" [ -x "$dest/sbin/mkfs.nova" ]
	t "install: mkfs.NOVA -> mkfs.nova" [ "$(readlink "$dest/sbin/mkfs.NOVA")" = mkfs.nova ]
	t "install: man page" [ -f "$dest/usr/share/man/man8/mkfs.nova.8" ]
	if command -v mkfs >/dev/null && ! [ -e /sbin/mkfs.NOVA ] &&
	   ! [ -e /usr/sbin/mkfs.NOVA ]; then
		new_image "$img" $M64
		PATH=$dest/sbin:$PATH mkfs -t NOVA -q "$img" >/dev/null 2>&1
		t "install: mkfs -t NOVA runs mkfs.NOVA" [ "$(probe_field "$img" ID_FS_TYPE)" = NOVA ]
	fi
else
	fail "install: make install failed"
fi
if command -v groff >/dev/null; then
	warn=$(groff -man -ww -z -Tutf8 "$tools/man/mkfs.nova.8" 2>&1)
	t "man page: groff reports no warnings" [ -z "$warn" ]
	[ -z "$warn" ] || printf '%s\n' "$warn" | indent
fi

unit_done mkfs
