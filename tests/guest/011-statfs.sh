#!/bin/sh
# statfs reports the real device geometry and free space.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
bytes=$(dev_bytes)
expect_eq "$(nova_statfs type)" "0x4e4f5641" "f_type"
expect_eq "$(nova_statfs bsize)" "4096" "f_bsize"
expect_eq "$(nova_statfs namelen)" "255" "f_namelen"
expect_eq "$(nova_statfs blocks)" "$((bytes / 4096))" "f_blocks"
free=$(nova_statfs bfree)
blocks=$(nova_statfs blocks)
# only the fixed areas, inode tables and journals are in use
used=$((blocks - free))
info "blocks=$blocks free=$free used=$used"
[ "$used" -gt 66 ] || fail "used blocks $used below the fixed areas"
[ "$used" -lt 2048 ] || fail "used blocks $used: more than expected for an empty file system"
# a reserve for deletions on a full device: 1/256 of it, 64..1024 blocks
res=$((blocks / 256)); [ $res -lt 64 ] && res=64; [ $res -gt 1024 ] && res=1024
expect_eq "$(nova_statfs bavail)" "$((free - res))" "f_bavail"
# free space is the same after a remount (allocator rebuilt exactly)
nova_umount
nova_mount
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after remount"
df "$MNT" | grep -q "$MNT" || fail "df does not show the mount"
nova_umount
