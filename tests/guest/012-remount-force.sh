#!/bin/sh
# A forced read-only remount (sysrq-u, emergency remount) with a file
# unlinked while still open: nothing is written to the read-only file
# system when the file is closed afterwards, the state is not marked
# clean, and the next mount's scan reclaims the orphan: every block is
# free again (a review finding: the clean snapshot kept the orphan's
# blocks in use for good, and the close wrote to the read-only device).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
echo kept >"$MNT/kept"
dd if=/dev/zero of="$MNT/orphan" bs=64k count=16 2>/dev/null
exec 3<"$MNT/orphan"
rm "$MNT/orphan"
sync
# the orphan's 256 data blocks are still in use
free1=$(nova_statfs bfree)
dmesg_mark
echo 1 >/proc/sys/kernel/sysrq
echo u >/proc/sysrq-trigger
i=0
until dmesg_since_mark | grep -q "Emergency Remount complete"; do
	[ $i -lt 100 ] || fail "no emergency remount after 20 s"
	sleep 0.2
	i=$((i + 1))
done
grep " $MNT " /proc/mounts | grep -q " ro[ ,]" ||
	fail "not read-only after sysrq-u: $(grep " $MNT " /proc/mounts)"
expect_dmesg "unlinked inodes still open: not marked clean" "the forced remount says why it is not clean"
# the close evicts the orphan: nothing may reach the read-only device
exec 3<&-
expect_eq "$(cat "$MNT/kept")" "kept" "a file after the forced remount"
nova_umount
expect_ok fsck.nova -n "$PMEM"
dmesg_mark
nova_mount
expect_dmesg "recovery scan" "the next mount scans"
expect_dmesg "reclaimed 1 unlinked inodes" "the orphan is reclaimed"
sync
free2=$(nova_statfs bfree)
[ "$free2" -ge $((free1 + 256)) ] ||
	fail "the orphan's blocks are not free again: $free2 free, $free1 with the orphan"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
