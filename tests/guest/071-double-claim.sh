#!/bin/sh
# A block with two users after a clean unmount.  That mount restores the
# allocator from the snapshot and reads an inode only when it is looked
# up, so no scan checks that every block has one user: the mount claims
# each block for the inode that reads it (balloc.c).  A hostile image -
# a file's data block that is another file's log page, or an inode table
# block, a symlink's block that is another file's data - must be refused
# when the second user is read (EUCLEAN and a log line), and writing the
# first cannot change the second.  Before that, the file opened and a
# write to it freed (copy-on-write) the other file's log page.  The
# super block records the errors (NOVA_STATE_ERROR): fsck.nova looks,
# and the next mount says so in the log (as ext4).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

val() { # KEY INFO: the value of KEY= in t_claim's output
	printf '%s\n' "$2" | sed -n "s/^$1=//p"
}
info_of() { # PATH-INO
	expect_ok blockdev --flushbufs "$PMEM"
	t_claim info "$PMEM" "$1" || fail "t_claim info $1"
}

nova_format
expect_ok dd if=/dev/urandom of="$MNT/b" bs=4096 count=4 2>/dev/null
expect_ok dd if=/dev/urandom of="$MNT/a" bs=4096 count=1 2>/dev/null
expect_ok dd if=/dev/urandom of="$MNT/t" bs=4096 count=1 2>/dev/null
expect_ok dd if=/dev/urandom of="$MNT/c" bs=4096 count=1 2>/dev/null
expect_ok dd if=/dev/urandom of="$MNT/ok" bs=4096 count=3 2>/dev/null
target=$(printf 'target-%0200d' 7)
expect_ok ln -s "$target" "$MNT/s"
bsum=$(md5sum < "$MNT/b")
csum=$(md5sum < "$MNT/c")
oksum=$(md5sum < "$MNT/ok")
ia=$(stat -c %i "$MNT/a")
ib=$(stat -c %i "$MNT/b")
it=$(stat -c %i "$MNT/t")
ic=$(stat -c %i "$MNT/c")
is=$(stat -c %i "$MNT/s")
nova_umount

# a's data block := b's log page; t's := an inode table block; the
# symlink's block := c's data block
binfo=$(info_of "$ib")
bpage=$(val page0 "$binfo")
[ -n "$bpage" ] && [ "$bpage" -gt 0 ] || fail "no log page for b: $binfo"
itab=$(t_claim itable "$PMEM" 0) || fail "no inode table"
cdata=$(val data0 "$(info_of "$ic")")
[ -n "$cdata" ] && [ "$cdata" -gt 0 ] || fail "no data block for c"
expect_ok blockdev --flushbufs "$PMEM"
expect_ok t_claim setblock "$PMEM" "$ia" 0 "$bpage"
expect_ok t_claim setblock "$PMEM" "$it" 0 "$itab"
expect_ok t_claim setblock "$PMEM" "$is" 0 "$cdata"
expect_ok blockdev --flushbufs "$PMEM"

dmesg_mark
nova_mount
expect_no_dmesg "snapshot unusable" "the clean-unmount snapshot is used"
expect_no_dmesg "mounting a file system with errors" "no errors recorded yet"
# b is read first: its log page is b's
expect_eq "$(md5sum < "$MNT/b")" "$bsum" "b read"
# writing a must not reach b's log page; b read again from its log
arc=0
dd if=/dev/urandom of="$MNT/a" bs=4096 count=1 conv=notrunc 2>/dev/null || arc=$?
sync
echo 2 >/proc/sys/vm/drop_caches
expect_eq "$(md5sum < "$MNT/b" 2>&1)" "$bsum" "b after a write to a"
[ "$arc" -ne 0 ] || fail "a write to a, whose data block is b's log page, succeeded"
expect_ok t_claim open "$MNT/a" EUCLEAN
expect_dmesg "inode $ia: data blocks [0-9]+\+1 are claimed twice" "a's double claim logged"
expect_ok t_claim open "$MNT/t" EUCLEAN
expect_dmesg "inode $it: data blocks [0-9]+\+1 are claimed twice" "t's claim of a table block logged"
# c is read first (in the cache since: its block is c's)
expect_eq "$(md5sum < "$MNT/c")" "$csum" "c read"
expect_ok t_claim readlink "$MNT/s" EUCLEAN
expect_dmesg "inode $is: symlink block 0x[0-9a-f]+ is claimed twice" "the symlink's double claim logged"
expect_eq "$(md5sum < "$MNT/c")" "$csum" "c after the symlink"
# an inode that leaves the cache gives its claims back: read again, no conflict
expect_eq "$(md5sum < "$MNT/ok")" "$oksum" "ok read"
echo 2 >/proc/sys/vm/drop_caches
expect_eq "$(md5sum < "$MNT/ok")" "$oksum" "ok read again after eviction"
expect_ok sh -c "echo more >> $MNT/ok"
echo 2 >/proc/sys/vm/drop_caches
expect_eq "$(head -c $((3 * 4096)) "$MNT/ok" | md5sum)" "$oksum" "ok after an append and eviction"
expect_no_dmesg "inode $(stat -c %i "$MNT/ok"):" "no claim error for a good file"
nova_umount

# the other order: a is read first and keeps the block, b is refused
dmesg_mark
nova_mount
# the errors the last mount recorded are named, as ext4 does
expect_dmesg "mounting a file system with errors, running fsck.nova is recommended" \
	"a mount of a file system with errors says so"
expect_ok t_claim open "$MNT/a" ok
expect_ok t_claim open "$MNT/b" EUCLEAN
expect_dmesg "inode $ib: log page 0x[0-9a-f]+ is claimed twice" "b's double claim logged"
# read-only (the snapshot's pages stay claimed), then read-write
nova_umount
dmesg_mark
nova_mount ro
expect_ok t_claim open "$MNT/t" EUCLEAN
expect_eq "$(md5sum < "$MNT/c")" "$csum" "c on a read-only mount"
expect_ok mount -o remount,rw "$MNT"
expect_eq "$(md5sum < "$MNT/c")" "$csum" "c on a read-write mount"
expect_ok t_claim readlink "$MNT/s" EUCLEAN
expect_ok sh -c "echo x > $MNT/new"
expect_eq "$(cat "$MNT/new")" "x" "a new file after remount rw"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
nova_umount
# the errors are recorded in the super block (as ext4's error state):
# fsck.nova looks without -f and finds them
expect_eq "$(nova-debug "$PMEM" super | sed -n 's/^state //p')" "0x3 clean error" \
	"the super block records the errors"
rc=0
fsck.nova -n "$PMEM" >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 4 "fsck.nova -n without -f checks a file system with errors"
