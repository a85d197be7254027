#!/bin/sh
# A file system smaller than its device, as "mkfs.nova DEVICE FS-SIZE"
# (xfstests' _scratch_mkfs_sized) makes it: it mounts on the bigger device
# and uses only its own blocks (statfs, df, a fill to ENOSPC, the rest of
# the device never written), fsck.nova finds it clean; with the primary
# super block destroyed, the kernel and fsck.nova find the replica at the
# file system's end (not at the device's); an fs-size larger than the
# device or below the minimum is refused; -o init fills the device again.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

dev_blocks=$(($(dev_bytes) / BLOCK))
fs_blocks=16384		# 64 MiB
last=$((fs_blocks - 1))
[ "$dev_blocks" -ge $((2 * fs_blocks)) ] ||
	fail "a device of $dev_blocks blocks is too small for this test"
info "device $dev_blocks blocks, file system $fs_blocks blocks"

# Random marks in the 16 blocks after the file system and in the device's
# last 16: nothing may ever write there.
head -c $((16 * BLOCK)) /dev/urandom >/tmp/mark
put_marks() {
	expect_ok dd if=/tmp/mark of="$PMEM" bs=$BLOCK seek=$fs_blocks conv=notrunc 2>/dev/null
	expect_ok dd if=/tmp/mark of="$PMEM" bs=$BLOCK seek=$((dev_blocks - 16)) conv=notrunc 2>/dev/null
}
check_marks() {
	dd if="$PMEM" of=/tmp/m1 bs=$BLOCK skip=$fs_blocks count=16 2>/dev/null
	dd if="$PMEM" of=/tmp/m2 bs=$BLOCK skip=$((dev_blocks - 16)) count=16 2>/dev/null
	cmp -s /tmp/m1 /tmp/mark && cmp -s /tmp/m2 /tmp/mark ||
		fail "$1: a block after the file system was written"
}
# run_rc CMD...: $out (stdout + stderr) and $rc of a command
run_rc() {
	echo "+ $*"
	rc=0
	out=$("$@" 2>&1) || rc=$?
	printf '%s\n' "$out" | sed 's/^/  /'
}
# expect_out RC REGEX MSG: the last run_rc's status and output
expect_out() {
	[ "$rc" -eq "$1" ] || fail "$3: exit status $rc, expected $1"
	printf '%s\n' "$out" | grep -qE -- "$2" || fail "$3: output lacks /$2/"
}
dd if=/dev/zero of=/tmp/zero bs=$BLOCK count=1 2>/dev/null
zero_block() {
	dd if="$PMEM" of=/tmp/blk bs=$BLOCK skip="$1" count=1 2>/dev/null
	cmp -s /tmp/blk /tmp/zero
}

# 1. fs-size errors (exit 1, nothing written)
put_marks
expect_ok dd if=/dev/zero of="$PMEM" bs=$BLOCK count=2 conv=notrunc 2>/dev/null
run_rc mkfs.nova -q -f "$PMEM" $((dev_blocks + 1))
expect_out 1 "file system size $((dev_blocks + 1)) \\($((dev_blocks + 1)) blocks\\) is larger than $PMEM" "one block more than the device"
run_rc mkfs.nova -q -f "$PMEM" 1t
expect_out 1 "file system size 1t .* is larger than" "1t on the device"
run_rc mkfs.nova -q -f "$PMEM" 321
expect_out 1 "file system size 321 .* is too small: a NOVA file system needs at least 322 blocks" "321 blocks"
run_rc mkfs.nova -q -f "$PMEM" 64MB
expect_out 1 "invalid file system size '64MB'" "64MB"
expect_eq "$(nova-probe "$PMEM" >/dev/null 2>&1; echo $?)" 2 "a refused mkfs wrote no file system"
check_marks "refused mkfs"

# 2. a 64 MiB file system on the bigger device
run_rc mkfs.nova -f -L sized "$PMEM" 64M
expect_out 0 "Size: +67108864 bytes \\(64\\.0 MiB\\), 16384 4k blocks" "mkfs.nova DEVICE 64M"
expect_eq "$(nova_probe_key ID_FS_LABEL)" "sized" "label"
check_marks "mkfs"
nova_mount
expect_eq "$(nova_statfs blocks)" "$fs_blocks" "f_blocks"
expect_eq "$(nova_statfs bsize)" "4096" "f_bsize"
expect_eq "$(df -k "$MNT" | awk 'NR == 2 { print $2 }')" "65536" "df: KiB"
echo sized >"$MNT/keep" || fail "write keep"
free=$(nova_statfs bfree)
# the reserve for deletions: 1/256 of the file system, at least 64 blocks
expect_eq "$(nova_statfs bavail)" "$((free - 64))" "f_bavail"
info "free blocks: $free"

# 3. full at its own size
dd if=/dev/zero of="$MNT/big" bs=1M count=128 2>/tmp/dd.err &&
	fail "128 MiB fit in a 64 MiB file system"
grep -q "No space left on device" /tmp/dd.err || { cat /tmp/dd.err; fail "no ENOSPC"; }
size=$(stat -c %s "$MNT/big")
info "the big file got $size bytes; statfs: $(nova_statfs bfree) free, $(nova_statfs bavail) available"
[ "$size" -gt $((56 << 20)) ] || fail "only $size bytes fit"
[ "$size" -lt $((64 << 20)) ] || fail "$size bytes: more than the file system holds"
[ "$(nova_statfs bfree)" -le 64 ] || fail "$(nova_statfs bfree) blocks free after ENOSPC"
expect_eq "$(nova_statfs bavail)" "0" "f_bavail when full"
expect_fail dd if=/dev/zero of="$MNT/more" bs=$BLOCK count=1 2>/dev/null
expect_ok rm -f "$MNT/big" "$MNT/more"
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after the delete"
nova_umount
check_marks "full file system"
run_rc fsck.nova -fn "$PMEM"
expect_out 0 "$PMEM: [0-9]+ inodes, [0-9]+/$fs_blocks blocks" "fsck.nova -fn after the fill"

# 4. the kernel: primary destroyed, found by the search
smash_block "$PMEM" 0
dmesg_mark
nova_mount
expect_dmesg "searching the device for the replica super block" "a search"
expect_dmesg "primary super block invalid .*using the replica in block $last\$" "replica used"
expect_dmesg "primary super block repaired" "primary repaired"
expect_eq "$(cat "$MNT/keep")" "sized" "contents via the replica"
expect_eq "$(nova-fsctl getlabel "$MNT")" "sized" "label via the replica"
expect_eq "$(nova_statfs blocks)" "$fs_blocks" "f_blocks via the replica"
nova_umount
check_marks "mount with the replica"
expect_ok fsck.nova -fn "$PMEM"
# a torn primary (bad checksum, size intact): the replica its size names
printf 'X' | dd of="$PMEM" bs=1 seek=60 conv=notrunc 2>/dev/null
dmesg_mark
nova_mount
expect_dmesg "primary super block invalid \\(bad checksum\\), using the replica in block $last\$" "torn primary"
expect_no_dmesg "searching" "no search for a torn primary"
nova_umount

# 5. fsck.nova: the same search
smash_block "$PMEM" 0
run_rc fsck.nova -fn "$PMEM"
expect_out 4 "replica super block found in block $last by a search" "fsck.nova -n: search"
expect_out 4 "primary super block is invalid .*the replica in block $last is valid" "fsck.nova -n"
run_rc fsck.nova -fy "$PMEM"
expect_out 1 "FIXED: primary super block rewritten from the replica" "fsck.nova -y"
run_rc fsck.nova -fn "$PMEM"
expect_out 0 "$PMEM: [0-9]+ inodes, [0-9]+/$fs_blocks blocks" "fsck.nova -fn after the repair"
expect_eq "$(nova_probe_key ID_FS_LABEL)" "sized" "label after fsck's repair"
dmesg_mark
nova_mount
expect_no_dmesg "replica" "the repaired primary is used"
expect_eq "$(cat "$MNT/keep")" "sized" "contents after fsck's repair"
nova_umount
check_marks "fsck.nova"

# 6. -o init fills the device again; the old replica is invalidated
expect_ok mount -t NOVA -o init "$PMEM" "$MNT"
expect_eq "$(nova_statfs blocks)" "$dev_blocks" "f_blocks after -o init"
nova_umount
zero_block $last || fail "-o init left the old replica in block $last"
smash_block "$PMEM" 0
dmesg_mark
nova_mount
expect_dmesg "using the replica in block $((dev_blocks - 1))\$" "full device: replica at its end"
nova_umount

# 7. a smaller one again: the full one's replica at the device's end is
# invalidated, so the search finds the new one
expect_ok mkfs.nova -q -f "$PMEM" $fs_blocks
zero_block $((dev_blocks - 1)) || fail "mkfs left the old replica at the device's end"
smash_block "$PMEM" 0
dmesg_mark
nova_mount
expect_dmesg "using the replica in block $last\$" "the new replica, not the old one"
expect_eq "$(nova_statfs blocks)" "$fs_blocks" "f_blocks"
nova_umount

# 8. both copies destroyed: refused, and fsck.nova gives up
smash_block "$PMEM" 0
smash_block "$PMEM" $last
nova_mount_refused "" "no NOVA file system found \\(a search of [0-9]+ blocks found no replica super block"
# a primary that is still NOVA's but damaged: the other message
smash_block "$PMEM" 0
printf 'AVON' | dd of="$PMEM" bs=1 seek=4 conv=notrunc 2>/dev/null
nova_mount_refused "" "invalid super block \\(bad checksum\\) and invalid replica \\(bad magic number; no other found in [0-9]+ blocks\\)"
run_rc fsck.nova -fn "$PMEM"
expect_out 8 "no valid NOVA super block .*no other found on the device" "fsck.nova without a super block"
