#!/bin/sh
# A clean-unmount snapshot the mount refuses falls back to the recovery
# scan, and the scan starts from nothing.  The free-block snapshot here
# lists, with a right checksum, stripe 0's journal page and the root's
# first log page as free: the mount's claim of the journal finds its
# page free and refuses the snapshot (bbuild.c), and the scan must then
# not keep the free ranges the refused snapshot loaded, or it takes the
# root's log page for a free block and the mount fails ("file system is
# corrupt").  A read-only mount writes nothing, so it would fail every
# time.  Both a read-only and a read-write mount scan and mount, with no
# error, the files intact; fsck.nova finds the lie before and nothing
# after the read-write mount.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# check_files WHAT: the tree and the free space as before the damage
check_files() {
	expect_eq "$(cat "$MNT/a")" "the first file" "a: $1"
	expect_eq "$(cat "$MNT/d/k")" "keep me" "d/k: $1"
	expect_eq "$(md5sum < "$MNT/d/big")" "$bigsum" "d/big: $1"
	expect_eq "$(find "$MNT/many" -type f | wc -l)" 50 "the 50 names of many: $1"
	expect_eq "$(nova_statfs bfree)" "$free" "free blocks: $1"
	expect_eq "$(nova_statfs files)" "$files" "inodes: $1"
}
# scanned WHAT: since the mark, the snapshot was refused for its journal
# page, the scan mounted the file system, and nothing else was logged
scanned() {
	expect_dmesg "NOVA \(.*\): journal block [0-9]+ is free in the snapshot" \
		"$1: the snapshot's free journal page"
	expect_dmesg "NOVA \(.*\): clean-unmount snapshot unusable, scanning" \
		"$1: the snapshot refused"
	expect_dmesg "NOVA \(.*\): recovery scan: " "$1: the scan ran"
	expect_no_dmesg "NOVA error|is a free block|file system is corrupt" "$1: no error"
	expect_no_dmesg "Oops|BUG|WARNING|general protection" "$1: no kernel errors"
}

nova_format
echo "the first file" > "$MNT/a"
mkdir "$MNT/d" "$MNT/many"
echo "keep me" > "$MNT/d/k"
expect_ok dd if=/dev/urandom of="$MNT/d/big" bs=4096 count=40 2>/dev/null
i=0
while [ $i -lt 50 ]; do
	: > "$MNT/many/name-$i"
	i=$((i + 1))
done
bigsum=$(md5sum < "$MNT/d/big")
free=$(nova_statfs bfree)
files=$(nova_statfs files)
nova_umount
expect_eq "$(sb_state)" "0x1 clean" "a clean unmount"
expect_eq "$(fsck_rc -fn)" 0 "fsck.nova -fn: the kernel's snapshot is consistent"

expect_ok nova_image inject "$PMEM" snapshot-free-used /
expect_eq "$(fsck_rc -fn)" 4 "fsck.nova -fn finds the free-block snapshot's lie"
grep -q "clean-unmount snapshot unusable: .*: 2 used block(s) listed as free" /tmp/fsck.out ||
	{ cat /tmp/fsck.out; fail "fsck.nova -fn: the two used blocks listed as free"; }

# read-only: the scan mounts it, and nothing is written
dmesg_mark
nova_mount ro
scanned "read-only mount"
check_files "read-only mount after the scan"
nova_umount
expect_eq "$(sb_state)" "0x1 clean" "the read-only mount left the super block alone"
expect_eq "$(fsck_rc -fn)" 4 "the read-only mount left the snapshot alone"

# read-write: the scan mounts it and drops the snapshot
dmesg_mark
nova_mount
scanned "read-write mount"
check_files "read-write mount after the scan"
expect_ok sh -c "echo new > $MNT/d/new"
expect_ok rm "$MNT/d/new"
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after a create and a delete"
nova_umount
expect_eq "$(sb_state)" "0x1 clean" "a clean unmount, no error state"
expect_eq "$(fsck_rc -fn)" 0 "fsck.nova -fn: clean"

# and the new snapshot is used
dmesg_mark
nova_mount
expect_no_dmesg "snapshot unusable|recovery scan" "the new snapshot is used"
check_files "mount from the new snapshot"
nova_umount
