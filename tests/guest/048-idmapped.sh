#!/bin/sh
# Idmapped mounts (FS_ALLOW_IDMAP): through a mount idmapped with the
# user namespace "0 100000 65536", a file stored with owner n shows
# owner 100000 + n; what a caller with id 100000 + n creates or chowns
# to there is stored as n, and so are the ids of its ACL entries;
# permission checks use the mapped ids; an id without a mapping cannot
# create (EOVERFLOW).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

as() { _u=$1; shift; t_xattr asuser "$_u" "$_u" "$@"; }

[ -e /proc/self/ns/user ] ||
	fail "this kernel has no user namespaces (CONFIG_USER_NS): idmapped mounts cannot be tested"
nova_format
I=/mnt/idmapped
mkdir -p "$I"
echo data >"$MNT/f"
chown 1000:1000 "$MNT/f"
chmod 600 "$MNT/f"
mkdir "$MNT/dir"
chmod 777 "$MNT/dir"
expect_ok t_idmap "$MNT" "$I" 100000
expect_eq "$(stat -c '%u:%g' "$I")" "100000:100000" "the root shows mapped ids"
expect_eq "$(stat -c '%u:%g' "$I/f")" "101000:101000" "a file shows mapped ids"
expect_eq "$(as 101000 cat "$I/f")" "data" "the mapped owner may read"
expect_eq "$(as 1000 cat "$I/f" 2>&1)" "cat: can't open '$I/f': Permission denied" "the stored id is not the owner there"
expect_ok as 101000 sh -c "echo u >$I/dir/by101000"
expect_eq "$(stat -c '%u:%g' "$MNT/dir/by101000")" "1000:1000" "created as 101000: stored as 1000"
expect_ok as 101000 mkdir "$I/dir/sub"
expect_eq "$(stat -c '%u:%g' "$MNT/dir/sub")" "1000:1000" "mkdir as 101000: stored as 1000"
expect_fail as 1000 sh -c "echo u >$I/dir/unmapped"
[ -e "$MNT/dir/unmapped" ] && fail "an unmapped id created a file"
chown 102000:102000 "$I/dir/by101000"
expect_eq "$(stat -c '%u:%g' "$MNT/dir/by101000")" "2000:2000" "chown to 102000: stored as 2000"
expect_ok t_xattr setacl "$I/dir/by101000" "u::rw-,u:103000:r--,g::---,m::r--,o::---"
expect_eq "$(t_xattr getacl "$MNT/dir/by101000")" "u::rw-,u:3000:r--,g::---,m::r--,o::---" "an ACL entry for 103000: stored as 3000"
expect_eq "$(t_xattr getacl "$I/dir/by101000")" "u::rw-,u:103000:r--,g::---,m::r--,o::---" "and read back mapped"
expect_eq "$(as 103000 cat "$I/dir/by101000")" "u" "the ACL entry grants the mapped id"
expect_ok umount "$I"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
nova_mount
expect_eq "$(stat -c '%u:%g' "$MNT/dir/by101000")" "2000:2000" "stored ids after a remount"
expect_eq "$(t_xattr getacl "$MNT/dir/by101000")" "u::rw-,u:3000:r--,g::---,m::r--,o::---" "stored ACL after a remount"
nova_umount
