#!/bin/sh
# Extended attributes of a file count in its owner's quota and st_blocks
# (a review finding: a regular file's attributes were charged to nobody,
# so a user with a quota of a few blocks could fill the device with
# them).  A non-directory's attribute entries are charged in whole 4 KiB
# blocks, rounded down: small attributes cost nothing, as attributes
# inside the inode on ext4 and XFS (a directory's are in the log pages it
# is charged already).  At a hard limit a new attribute gets EDQUOT and
# is not set; a removal always works and gives the blocks back; chown
# moves them; st_blocks and the usage survive a remount (log replay); the
# file's deletion gives everything back; fsck.nova is clean.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

q() { t_quota "$@"; }
as1000() { t_xattr asuser 1000 1000 "$@"; }
usage() { q get "$PMEM" user "$1"; }
blocks() { usage "$1" | sed 's/^blocks=\([0-9]*\) .*/\1/'; }

nova_format "usrquota"
expect_ok q init "$MNT/aquota.user" user
expect_ok q on "$PMEM" "$MNT/aquota.user" user
mkdir "$MNT/d"
chmod 777 "$MNT/d"
f=$MNT/d/f
expect_ok as1000 touch "$f"
expect_eq "$(usage 1000)" "blocks=0 inodes=1 bhard=0 ihard=0" "an empty file"

# small attributes (an ACL, a few names) cost nothing
expect_ok as1000 t_xattr set "$f" user.small "a small value"
expect_ok as1000 t_xattr fill "$f" user.small2 1000 1
expect_eq "$(stat -c %b "$f")" "0" "st_blocks with 1 KiB of attributes"
expect_eq "$(blocks 1000)" "0" "usage with 1 KiB of attributes"

# a hard limit of 40 blocks: two 64 KiB values (about 32 blocks) fit,
# the third is refused with EDQUOT and not set
expect_ok q set "$PMEM" user 1000 40 0
expect_ok as1000 t_xattr fill "$f" user.big0 65536 10
expect_ok as1000 t_xattr fill "$f" user.big1 65536 11
b=$(blocks 1000)
[ "$b" -ge 32 ] && [ "$b" -le 34 ] || fail "two 64 KiB attributes charge $b blocks, expected 32-34"
expect_eq "$(stat -c %b "$f")" "$((b * 8))" "st_blocks is the charged usage"
out=$(as1000 t_xattr fill "$f" user.big2 65536 12 2>&1) &&
	fail "a third 64 KiB attribute over the hard limit was set"
echo "$out" | grep -q EDQUOT || fail "over the hard limit: not EDQUOT: $out"
expect_eq "$(as1000 t_xattr size "$f" user.big2 2>&1)" "ENODATA" "the refused attribute is not set"
expect_eq "$(blocks 1000)" "$b" "a refused attribute charges nothing"
# replacing a value with one of the same size needs nothing more
expect_ok as1000 t_xattr fill "$f" user.big1 65536 21 replace
expect_eq "$(blocks 1000)" "$b" "a replaced value of the same size"
expect_ok as1000 t_xattr check "$f" user.big1 65536 21

# the usage survives a remount (st_blocks comes from the log replay)
expect_ok q off "$PMEM" user
nova_umount
nova_mount "usrquota"
expect_ok q on "$PMEM" "$MNT/aquota.user" user
expect_eq "$(stat -c %b "$f")" "$((b * 8))" "st_blocks after a remount"
expect_eq "$(blocks 1000)" "$b" "usage after a remount"

# a removal at the limit works and gives the blocks back
expect_ok q set "$PMEM" user 1000 "$b" 0
expect_ok as1000 t_xattr rm "$f" user.big0
b1=$(blocks 1000)
[ "$b1" -ge 16 ] && [ "$b1" -le 17 ] || fail "one 64 KiB attribute left: $b1 blocks, expected 16-17"
expect_eq "$(stat -c %b "$f")" "$((b1 * 8))" "st_blocks after a removal"

# chown moves the attributes' blocks with the inode
expect_ok q set "$PMEM" user 1000 0 0
expect_ok chown 1001 "$f"
expect_eq "$(usage 1000)" "blocks=0 inodes=0 bhard=0 ihard=0" "chown: the old owner"
expect_eq "$(usage 1001)" "blocks=$b1 inodes=1 bhard=0 ihard=0" "chown: the new owner"

# a file full of attributes deleted after a remount: all of it back
expect_ok t_xattr many "$f" user.m 40 3000
b2=$(blocks 1001)
[ "$b2" -gt "$b1" ] || fail "40 attributes of 3000 bytes charged nothing ($b2 blocks)"
expect_ok q off "$PMEM" user
nova_umount
nova_mount "usrquota"
expect_ok q on "$PMEM" "$MNT/aquota.user" user
expect_eq "$(blocks 1001)" "$b2" "usage after the second remount"
dmesg_mark
rm "$f"
expect_eq "$(usage 1001)" "blocks=0 inodes=0 bhard=0 ihard=0" "everything back after the deletion"
expect_no_dmesg "WARNING|BUG|Oops|Call Trace|quota" "kernel log of the deletion"
expect_ok q off "$PMEM" user
nova_umount
expect_ok fsck.nova -fn "$PMEM"
