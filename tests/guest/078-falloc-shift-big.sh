#!/bin/sh
# COLLAPSE_RANGE and INSERT_RANGE of a file with 33000 extents (every
# other page a hole): the new mapping of every page is one of about
# 66000 log entries, more than kmalloc can hold in one piece; both must
# work (no ENOMEM, no allocation warning), the contents must be right
# after each and after a remount, fsck.nova clean, every block back.
# nova-timeout: 900
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

N=33000
# free blocks, plus the root directory's log pages (its first comes with a name)
free_blocks() { echo $(($(nova_statfs bfree) + $(t_gc loginfo "$MNT" | sed -n 's/^log_pages=//p'))); }
nova_format
free0=$(free_blocks)
dmesg_mark
expect_ok nova-fsctl sparsefill "$MNT/s" $N
size=$(stat -c %s "$MNT/s")
expect_eq "$size" $(((2 * N - 1) * 4096)) "size of the sparse file"
expect_eq "$(stat -c %b "$MNT/s")" $((N * 8)) "st_blocks of the sparse file"
sum0=$(md5sum <"$MNT/s")
# collapse page 1 (a hole): page 2k moves to 2k - 1
expect_ok nova-fsctl collapse "$MNT/s" 4096 4096
expect_eq "$(stat -c %s "$MNT/s")" $((size - 4096)) "size after the collapse"
expect_eq "$(stat -c %b "$MNT/s")" $((N * 8)) "st_blocks after collapsing a hole"
# insert it again: the file is as it was
expect_ok nova-fsctl insert "$MNT/s" 4096 4096
expect_eq "$(md5sum <"$MNT/s")" "$sum0" "contents after collapse and insert"
nova_umount
nova_mount
expect_eq "$(md5sum <"$MNT/s")" "$sum0" "contents after a remount"
expect_ok rm "$MNT/s"
nova_umount
fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after shifting a fragmented file"; }
nova_mount
expect_eq "$(free_blocks)" "$free0" "free blocks after removing the file"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|NOVA error|page allocation failure' "no kernel errors"
nova_umount
