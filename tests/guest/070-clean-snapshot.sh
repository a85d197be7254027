#!/bin/sh
# Clean unmount saves the allocator and in-use inode state; the next mount
# restores it instead of scanning and gives the same free space and inode
# counts as a full scan; a damaged snapshot falls back to the scan.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
mkdir -p "$MNT/d1/d2"
i=0
while [ $i -lt 200 ]; do
	echo "file $i" > "$MNT/d1/f$i"
	i=$((i + 1))
done
dd if=/dev/urandom of="$MNT/d1/d2/big" bs=64k count=20 2>/dev/null
rm "$MNT/d1/f1"*
sum=$(md5sum < "$MNT/d1/d2/big")
free=$(nova_statfs bfree)
files=$(nova_statfs files)
nova_umount

# the clean flag is in the super block (s_state at offset 148)
state=$(dd if="$PMEM" bs=1 skip=148 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
expect_eq "$state" "1" "NOVA_STATE_CLEAN after umount"
dmesg_mark
nova_mount
expect_no_dmesg "snapshot unusable" "snapshot used"
expect_eq "$(nova_statfs bfree)" "$free" "free blocks from the snapshot"
expect_eq "$(nova_statfs files)" "$files" "inode count from the snapshot"
expect_eq "$(md5sum < "$MNT/d1/d2/big")" "$sum" "data after clean remount"
# the snapshot's state keeps working: create, delete, allocate
expect_ok cp "$MNT/d1/d2/big" "$MNT/big2"
expect_ok rm "$MNT/big2"
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after create+delete"
nova_umount

# damage the block snapshot: the mount notices and scans instead
head=$(dd if="$PMEM" bs=1 skip=$((4096 + 3 * 128 + 72)) count=8 2>/dev/null | od -An -tu8 | tr -d ' ')
[ "$head" -gt 0 ] || fail "no block snapshot after a clean umount"
expect_ok dd if=/dev/urandom of="$PMEM" bs=1 seek=$((head + 40)) count=16 conv=notrunc 2>/dev/null
dmesg_mark
nova_mount
expect_dmesg "snapshot unusable, scanning" "bad snapshot detected"
expect_eq "$(nova_statfs bfree)" "$free" "free blocks from the scan"
expect_eq "$(nova_statfs files)" "$files" "inode count from the scan"
expect_eq "$(md5sum < "$MNT/d1/d2/big")" "$sum" "data after scan"
# after a rw mount the snapshot is gone: a crash now must scan
state=$(dd if="$PMEM" bs=1 skip=148 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
expect_eq "$state" "0" "clean flag cleared while mounted"
nova_umount

# read-only mount of a clean file system, then remount rw
nova_mount ro
# read-only: the snapshot's own pages stay allocated (and valid)
rofree=$(nova_statfs bfree)
[ "$rofree" -le "$free" ] && [ "$rofree" -ge $((free - 4)) ] ||
	fail "free blocks on ro mount: $rofree, expected about $free"
expect_ok mount -o remount,rw "$MNT"
expect_ok touch "$MNT/after-rw"
expect_ok rm "$MNT/after-rw"
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after remount rw"
nova_umount
nova_mount
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after all that"
nova_umount
