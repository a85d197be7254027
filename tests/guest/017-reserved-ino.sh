#!/bin/sh
# The reserved inode numbers (below 32, in the reserved block) are never
# handed out to files.  With one stripe and 4 KiB inode table blocks (a
# file system under 512 MiB) the table's first block has 31 slots, so
# reserved number 31 is a slot of the second block: a mount whose scan
# saw one table block (the first after mkfs.nova, or after a power cut)
# left it free in the map, and the table's next block gave it to a new
# file, whose inode then lived in the reserved block's slot 31.  After a
# scan, after a clean unmount (the snapshot) and after a table that grew
# and shrank again, every new file gets a number of 32 or more.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# create directory $1 and N files in it; every inode number must be 32
# or more
create_check() {
	mkdir -p "$MNT/$1"
	ino=$(stat -c %i "$MNT/$1")
	[ "$ino" -ge 32 ] || fail "$3: directory $1 got reserved inode number $ino"
	i=0
	while [ $i -lt "$2" ]; do
		echo "$i" > "$MNT/$1/f$i" || fail "create $1/f$i"
		ino=$(stat -c %i "$MNT/$1/f$i")
		[ "$ino" -ge 32 ] || fail "$3: $1/f$i got reserved inode number $ino"
		i=$((i + 1))
	done
}

dmesg_mark
expect_ok mkfs.nova -q -f -c 1 "$PMEM" 64M
# the first mount after mkfs.nova scans (no snapshot yet)
nova_mount
create_check scan 40 "after a scan"
expect_eq "$(cat "$MNT/scan/f0")" "0" "scan/f0 reads back"
nova_umount
expect_ok fsck.nova -fn "$PMEM"

# after a clean unmount: the snapshot
nova_mount
create_check snap 40 "after a snapshot"
# the table shrinks back to one block, then grows again
rm -rf "$MNT/scan" "$MNT/snap"
create_check again 40 "after the table shrank"
nova_umount
expect_ok fsck.nova -fn "$PMEM"

# after a shutdown (a power cut): the scan of a one-block table again
rm_all() { rm -rf "$MNT/again"; }
nova_mount
rm_all
sync
expect_ok nova-fsctl shutdown "$MNT" 2
nova_umount
nova_mount
create_check cut 40 "after a power cut"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
