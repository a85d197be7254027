#!/bin/sh
# The user-space tools against the kernel: a file system made by
# mkfs.nova mounts without init; one populated by mkfs.nova -d shows the
# source tree exactly; after kernel changes fsck.nova finds it clean;
# mkfs.nova refuses to overwrite it without -f.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

expect_ok mkfs.nova -q -f -L tools-test "$PMEM"
expect_eq "$(nova_probe_key ID_FS_LABEL)" "tools-test" "label from mkfs"
nova_mount
expect_eq "$(nova-fsctl getlabel "$MNT")" "tools-test" "label seen by the kernel"
expect_ok mkdir "$MNT/x"
expect_ok sh -c "echo hello > $MNT/x/y"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
# refuses an existing file system without -f
expect_fail mkfs.nova -q "$PMEM"
expect_fail mkfs.NOVA -q "$PMEM"

# a tree populated offline
rm -rf /tmp/src && mkdir -p /tmp/src/a/b
expect_ok t_tree create /tmp/src/a 5 20
dd if=/dev/urandom of=/tmp/src/big bs=64k count=40 2>/dev/null
ln -s a/b /tmp/src/link
expect_ok mkfs.nova -q -f -d /tmp/src "$PMEM"
nova_mount
t_tree list /tmp/src > /tmp/src.list || fail "list source"
t_tree list "$MNT" > /tmp/nova.list || fail "list NOVA"
# inode numbers differ, and directory sizes are file system specific
norm() {
	awk '{ if ($2 ~ /^40/) print $1, $2, $3, $4, $5; else print $1, $2, $3, $4, $5, $6, $7, $9 }' "$1"
}
norm /tmp/src.list > /tmp/a
norm /tmp/nova.list > /tmp/b
expect_ok cmp /tmp/a /tmp/b
expect_ok cmp /tmp/src/big "$MNT/big"
# change it through the kernel, then check it offline
expect_ok rm -r "$MNT/a/dir1"
expect_ok mv "$MNT/big" "$MNT/a/big"
expect_ok sh -c "echo more >> $MNT/a/big"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
expect_ok fsck.NOVA -n "$PMEM"
