#!/bin/sh
# File data: write and read back, unaligned overwrites, appends, holes,
# truncate down and up, and the same content after a remount.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
f=$MNT/data
expect_ok dd if=/dev/urandom of=/tmp/ref bs=1k count=1000 2>/dev/null
expect_ok cp /tmp/ref "$f"
expect_ok cmp /tmp/ref "$f"
expect_eq "$(stat -c %s "$f")" "1024000" "size after copy"
# unaligned overwrite across block boundaries, in both files
expect_ok dd if=/dev/urandom of=/tmp/patch bs=1 count=10000 2>/dev/null
expect_ok dd if=/tmp/patch of=/tmp/ref bs=1 seek=4000 conv=notrunc 2>/dev/null
expect_ok dd if=/tmp/patch of="$f" bs=1 seek=4000 conv=notrunc 2>/dev/null
expect_ok cmp /tmp/ref "$f"
# append
echo "appended line" >> /tmp/ref
echo "appended line" >> "$f"
expect_ok cmp /tmp/ref "$f"
# a hole in the middle of a sparse file reads as zeros
expect_ok dd if=/dev/zero of="$MNT/sparse" bs=1 count=1 seek=10000000 2>/dev/null
expect_eq "$(stat -c %s "$MNT/sparse")" "10000001" "sparse size"
expect_eq "$(dd if="$MNT/sparse" bs=4096 skip=100 count=1 2>/dev/null | tr -d '\0' | wc -c)" "0" "hole reads zeros"
blocks=$(stat -c %b "$MNT/sparse")
[ "$blocks" -le 16 ] || fail "sparse file has $blocks blocks"
# truncate down then up: the cut part reads as zeros
expect_ok truncate -s 5000 "$f"
expect_ok truncate -s 5000 /tmp/ref
expect_ok truncate -s 20000 "$f"
expect_ok truncate -s 20000 /tmp/ref
expect_ok cmp /tmp/ref "$f"
sum=$(md5sum < "$f")
free1=$(nova_statfs bfree)
nova_umount
nova_mount
expect_eq "$(md5sum < "$f")" "$sum" "content after remount"
expect_eq "$(nova_statfs bfree)" "$free1" "free blocks after remount"
expect_ok cmp /tmp/ref "$f"
# deleting everything gives all data blocks back
rm -f "$f" "$MNT/sparse"
nova_umount
nova_format
# the first create gives the root directory its log page
expect_ok touch "$MNT/first"
empty=$(nova_statfs bfree)
expect_ok cp /tmp/ref "$MNT/x"
expect_ok rm "$MNT/x"
expect_eq "$(nova_statfs bfree)" "$empty" "free space after delete"
nova_umount
