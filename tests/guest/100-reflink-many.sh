#!/bin/sh
# Clones let a file map more pages than the device has blocks (xfstests'
# generic/297 clones a file into itself, doubling it): such a file is
# valid.  The index and the mount's scan took that for a damaged log
# ("its log maps more pages than the device has blocks", EUCLEAN): each
# clone's commit failed to index, and the file system no longer mounted.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# a 16 MiB partition: about 4,000 blocks
nova_make_partition 16
expect_ok mount -t NOVA -o init "$DEV" "$MNT"
blocks=$(nova_statfs blocks)
expect_ok dd if=/dev/urandom of="$MNT/f" bs=4096 count=1 2>/dev/null
expect_ok dd if=/dev/urandom of="$MNT/g" bs=4096 count=1 2>/dev/null
sg=$(sum "$MNT/g")
dmesg_mark
# 1, 2, 4 ... 8192 pages: twice the device's blocks
n=1
while [ "$n" -le 4096 ]; do
	out=$(xfs_io -c "reflink $MNT/f 0 $((n * 4096)) $((n * 4096))" "$MNT/f" 2>&1) ||
		fail "clone of $n pages at page $n: $out"
	n=$((n * 2))
done
expect_no_dmesg "NOVA error|Oops|BUG|WARNING|general protection" "clones beyond the device's block count"
expect_eq "$(stat -c %s "$MNT/f")" $((8192 * 4096)) "the file's size"
[ "$((8192 * 4096 / 1024 / 1024))" -gt "$((blocks * 4096 / 1024 / 1024))" ] ||
	fail "the file ($((8192 * 4096)) bytes) is not larger than the device ($blocks blocks)"
# every page reads as the first
first=$(dd if="$MNT/f" bs=4096 count=1 2>/dev/null | md5sum | cut -d' ' -f1)
expect_eq "$(dd if="$MNT/f" bs=4096 skip=8191 count=1 2>/dev/null | md5sum | cut -d' ' -f1)" "$first" "the last page"
sf=$(sum "$MNT/f")
expect_ok umount "$MNT"
expect_ok fsck.nova -fn "$DEV"
dmesg_mark
expect_ok mount -t NOVA "$DEV" "$MNT"
expect_no_dmesg "NOVA error|Oops|BUG|WARNING|general protection" "the mount of a file larger than the device"
expect_eq "$(sum "$MNT/f")" "$sf" "the file after a remount"
expect_eq "$(sum "$MNT/g")" "$sg" "another file after a remount"
# a write into the large file copies one page
expect_ok dd if=/dev/zero of="$MNT/f" bs=4096 seek=5000 count=1 conv=notrunc 2>/dev/null
expect_eq "$(dd if="$MNT/f" bs=4096 skip=5001 count=1 2>/dev/null | md5sum | cut -d' ' -f1)" "$first" "a page after the written one"
expect_ok rm "$MNT/f"
expect_ok umount "$MNT"
expect_ok fsck.nova -fn "$DEV"
nova_remove_partition
