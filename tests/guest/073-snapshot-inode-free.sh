#!/bin/sh
# A clean-unmount snapshot that calls a live inode's table slot free, as
# a damaged or hostile image can: the mount restores the in-use inode map
# from it without reading the tables (bbuild.c), so the next create is
# offered that slot.  Its pmem inode is valid: the allocator must not
# write a new inode over it (the old name would then lead to the new
# file).  It reports the slot once (nova_error(), which records the error
# state), keeps it in use and, with errors=continue, takes the next one;
# with errors=remount-ro the create fails with EUCLEAN and the file
# system turns read-only.  Nor does a delete give back the inode table
# block of such a slot when the map calls all of its slots free.  The old
# file keeps its inode and content.  fsck.nova finds the lie in the
# snapshot before the mount, and after it only the error state.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# drop PATH: the snapshot of the unmounted $PMEM no longer lists PATH's
# inode in use, which fsck.nova -fn reports
drop() {
	expect_eq "$(fsck_rc -fn)" 0 "fsck.nova -fn before the damage"
	expect_ok nova_image inject "$PMEM" snapshot-drop-ino "$1"
	expect_eq "$(fsck_rc -fn)" 4 "fsck.nova -fn finds the snapshot's lie"
	fsck_says "clean-unmount snapshot unusable: .* 1 inode\\(s\\) in use listed as free" \
		"$1's inode in use listed as free"
}
# check_files WHAT: a, d/k and d/big as written, with their inode numbers
check_files() {
	expect_eq "$(cat "$MNT/a")" "the first file" "a: $1"
	expect_eq "$(stat -c %i:%h "$MNT/a")" "$ia:1" "a's inode and link count: $1"
	expect_eq "$(cat "$MNT/d/k")" "keep me" "d/k: $1"
	expect_eq "$(stat -c %i:%h "$MNT/d/k")" "$ik:1" "d/k's inode and link count: $1"
	expect_eq "$(md5sum < "$MNT/d/big")" "$bigsum" "d/big: $1"
}

# fresh: a new file system, mounted, of one stripe (inode numbers handed
# out in order, the first free slot first) and 4 KiB inode table blocks
# (31 slots).  With a clean unmount first: the mount right after
# mkfs.nova scans, and that scan of a one-block table leaves reserved
# number 31 (a slot of the second block) free in the map, to be handed
# out (another problem); a snapshot's restore marks every reserved one
fresh() {
	expect_ok mkfs.nova -q -f -c 1 "$PMEM" 64M
	nova_mount
	nova_umount
	nova_mount
}

fresh
echo "the first file" > "$MNT/a"
mkdir "$MNT/d"
echo "keep me" > "$MNT/d/k"
expect_ok dd if=/dev/urandom of="$MNT/d/big" bs=4096 count=8 2>/dev/null
ia=$(stat -c %i "$MNT/a")
ik=$(stat -c %i "$MNT/d/k")
bigsum=$(md5sum < "$MNT/d/big")
expect_eq "$ia" 32 "a has the first normal inode number"
nova_umount
drop /a

# errors=continue (the default): the create takes the next slot
dmesg_mark
nova_mount
expect_no_dmesg "snapshot unusable" "the snapshot is restored"
# a is not in the inode cache: only the pmem inode says it is in use
expect_ok sh -c "echo new > $MNT/d/b"
ib=$(stat -c %i "$MNT/d/b")
[ "$ib" != "$ia" ] || fail "the new file d/b took inode $ia, a's"
expect_eq "$(cat "$MNT/d/b")" "new" "the new file"
check_files "after the create"
expect_dmesg "NOVA error \(.*\): inode $ia is in use but free in the inode allocator" \
	"the live inode's free slot reported"
# once: the slot stays in use
dmesg_mark
expect_ok sh -c "echo c > $MNT/d/c"
[ "$(stat -c %i "$MNT/d/c")" != "$ia" ] || fail "d/c took inode $ia, a's"
expect_no_dmesg "NOVA error" "nothing more reported"
# read again from pmem
echo 2 > /proc/sys/vm/drop_caches
check_files "read again"
expect_eq "$(cat "$MNT/d/b")" "new" "the new file read again"
expect_ok rm "$MNT/d/c"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
nova_umount
# the snapshot of this unmount is true again; the error state is kept
expect_eq "$(sb_state)" "0x3 clean error" "the super block records the error"
expect_eq "$(fsck_rc -n)" 0 "fsck.nova -n checks (the error state), finds nothing"
fsck_says "marked as having errors" "the error state"
fsck_says ": [0-9]+ inodes, " "a full check"
expect_eq "$(fsck_rc -y)" 1 "fsck.nova -y clears the error state"
expect_eq "$(fsck_rc -fn)" 0 "fsck.nova -fn: then clean"
dmesg_mark
nova_mount
check_files "the next mount"
expect_eq "$(cat "$MNT/d/b")" "new" "the new file at the next mount"
expect_no_dmesg "NOVA error" "nothing reported at the next mount"
nova_umount

# errors=remount-ro: the create fails, the file system turns read-only
drop /d/k
dmesg_mark
nova_mount errors=remount-ro
out=$(sh -c "echo x > $MNT/d/x" 2>&1) && fail "a create with inode $ik's slot free succeeded"
case $out in
*"Structure needs cleaning"*) ;;
*) fail "the create failed with '$out', expected EUCLEAN" ;;
esac
expect_dmesg "NOVA error \(.*\): inode $ik is in use but free in the inode allocator" \
	"the live inode's free slot reported"
expect_dmesg "remounting file system read-only" "errors=remount-ro applies"
[ ! -e "$MNT/d/x" ] || fail "d/x exists after its create failed"
expect_fail touch "$MNT/d/y"
check_files "after the failed create"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
nova_umount
# no clean unmount (read-only behind the VFS): the next mount scans
expect_eq "$(sb_state)" "0x2 error" "no clean unmount, the error recorded"
expect_eq "$(fsck_rc -y)" 1 "fsck.nova -y: the error state cleared"
expect_eq "$(fsck_rc -fn)" 0 "fsck.nova -fn: then clean"
dmesg_mark
nova_mount
check_files "the mount after remount-ro"
expect_ok sh -c "echo x > $MNT/d/x"
expect_eq "$(cat "$MNT/d/x")" "x" "a create after the repair"
expect_no_dmesg "NOVA error" "nothing reported after the repair"
nova_umount

# a table block the map calls empty is given back at a delete
# (nova_shrink_inode_table()), not while it holds a live inode: a, d and
# d/k are alone in the second 31-slot block, a's slot free in the map
fresh
echo "the first file" > "$MNT/a"
mkdir "$MNT/d"
echo "keep me" > "$MNT/d/k"
expect_eq "$(stat -c %i "$MNT/a")" "$ia" "a has the first normal inode number again"
nova_umount
drop /a
dmesg_mark
nova_mount
expect_ok rm -r "$MNT/d"
expect_dmesg "NOVA error \(.*\): inode $ia is in use but free in the inode allocator" \
	"the live inode in the emptied table block reported"
expect_eq "$(cat "$MNT/a")" "the first file" "a after the rest of its table block went"
expect_eq "$(stat -c %i:%h "$MNT/a")" "$ia:1" "a's inode and link count after the delete"
# its table block is still the table's: new inodes and data leave a alone
i=0
while [ $i -lt 40 ]; do
	echo "file $i" > "$MNT/f$i"
	[ "$(stat -c %i "$MNT/f$i")" != "$ia" ] || fail "f$i took inode $ia, a's"
	i=$((i + 1))
done
expect_ok dd if=/dev/urandom of="$MNT/big" bs=4096 count=64 2>/dev/null
echo 2 > /proc/sys/vm/drop_caches
expect_eq "$(cat "$MNT/a")" "the first file" "a read again after new files"
expect_eq "$(cat "$MNT/f39")" "file 39" "the last new file"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
nova_umount
expect_eq "$(sb_state)" "0x3 clean error" "the super block records the error"
expect_eq "$(fsck_rc -n)" 0 "fsck.nova -n: only the error state"
expect_eq "$(fsck_rc -y)" 1 "fsck.nova -y clears the error state"
expect_eq "$(fsck_rc -fn)" 0 "fsck.nova -fn: then clean"
