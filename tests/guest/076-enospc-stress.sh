#!/bin/sh
# Full device under concurrency: nova_stress (4 processes, 45 s) on a
# 16 MiB partition, so that data, log pages, inodes and directory entries
# all run out while other processes delete.  ENOSPC is an expected
# result for allocating operations only (never for unlink/rmdir, which
# use the deletion reserve); the private files stay byte-exact.  Then the
# tree is removed, the free block count must return exactly to its
# value after format (+ the root's log page), fsck.nova -fn must be clean
# before and after, and the kernel log must have no report.
#
# It found a write cut short by a full log whose file size ran one run
# past the bytes the write returned (077-enospc-partial-write reproduces
# that deterministically); nova_stress prints each private file's recent
# history with a mismatch.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

BAD='Oops|BUG|WARNING|general protection|soft lockup|hard LOCKUP|blocked for more than|Call Trace|NOVA error'
nova_make_partition 16

dmesg_mark
expect_ok mount -t NOVA -o init "$DEV" "$MNT"
expect_ok touch "$MNT/first"
free0=$(nova_statfs bfree)
rc=0
nova_stress -d "$MNT" -p 4 -t 45 -s 0x5eed0076 >/tmp/stress.out 2>&1 || rc=$?
grep -A 20 -E '^(CORRUPTION|UNEXPECTED)' /tmp/stress.out | head -n 120
tail -n 40 /tmp/stress.out
[ "$rc" -ne 3 ] || {
	setsid sh -c 'sleep 90; echo o > /proc/sysrq-trigger' </dev/null >/dev/null 2>&1 &
	fail "nova_stress: hang"
}
enospc=$(grep -o 'ENOSPC:[0-9]*' /tmp/stress.out | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
info "ENOSPC results: $enospc"
[ "$enospc" -gt 0 ] || fail "the device never filled up: the test did not test a full device"
[ "$rc" -eq 0 ] || fail "nova_stress: exit $rc (unexpected errors or data mismatches above)"
expect_ok umount "$MNT"
fsck.nova -fn "$DEV" >/tmp/fsck1.out 2>&1 ||
	{ head -60 /tmp/fsck1.out; fail "fsck.nova -fn after the full-device stress"; }
expect_ok mount -t NOVA "$DEV" "$MNT"
expect_ok rm -rf "$MNT"/d0 "$MNT"/d1 "$MNT"/d2 "$MNT"/d3 "$MNT"/d4 "$MNT"/d5 "$MNT"/d6 "$MNT"/d7
for d in "$MNT"/*; do
	[ "$d" = "$MNT/first" ] || expect_ok rm -rf "$d"
done
expect_eq "$(ls -A "$MNT")" "first" "only the first file is left"
# the root's own log may have grown by some pages: GC it, then compare
echo 1 > "/proc/fs/NOVA/$(basename "$DEV")/gc" || fail "thorough GC of the root directory"
expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after deleting everything"
expect_ok umount "$MNT"
fsck.nova -fn "$DEV" >/tmp/fsck2.out 2>&1 ||
	{ head -60 /tmp/fsck2.out; fail "fsck.nova -fn after the cleanup"; }
expect_no_dmesg "$BAD" "kernel log of the full-device stress"
nova_remove_partition
