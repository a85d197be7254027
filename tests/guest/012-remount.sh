#!/bin/sh
# Remount read-only and back, change errors=, and refuse what cannot change.
# dbgmask= belongs to one mount, not to every mount of the module.  The
# snapshot a remount read-only saves is given back at the remount
# read-write: fsck.nova finds the unmounted file system clean.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

[ -n "${PMEM2:-}" ] || fail "this test needs the scratch device (--scratch)"
nova_format
expect_ok mount -t NOVA -o init,dbgmask=16 "$PMEM2" "$MNT2"
grep " $MNT2 " /proc/mounts | grep -q "dbgmask=16" || fail "dbgmask=16 not shown"
grep " $MNT " /proc/mounts | grep -q "dbgmask" && fail "dbgmask= of one mount shows on another: $(grep " $MNT " /proc/mounts)"
expect_ok mount -o remount,dbgmask=0 "$MNT2"
grep " $MNT2 " /proc/mounts | grep -q "dbgmask" && fail "dbgmask=0 after a remount still shown"
expect_ok umount "$MNT2"
nova_umount

nova_format "errors=continue"
grep " $MNT " /proc/mounts | grep -q "errors=continue" || fail "errors=continue not shown"
expect_ok mount -o remount,ro "$MNT"
grep " $MNT " /proc/mounts | grep -q " ro," || fail "not read-only after remount,ro"
expect_fail nova-fsctl setlabel "$MNT" "x"
expect_ok mount -o remount,rw,errors=remount-ro "$MNT"
grep " $MNT " /proc/mounts | grep -q " rw," || fail "not read-write after remount,rw"
grep " $MNT " /proc/mounts | grep -q "errors=remount-ro" || fail "errors= not changed"
dmesg_mark
expect_fail mount -o remount,init "$MNT"
expect_dmesg "init is not allowed on remount" "remount,init refused with a reason"
dmesg_mark
expect_fail mount -o remount,uid=5 "$MNT"
expect_dmesg "cannot be changed on remount" "remount,uid refused with a reason"
# twice more read-only and back, with writes in between
for i in 1 2; do
	expect_ok mount -o remount,ro "$MNT"
	expect_ok mount -o remount,rw "$MNT"
	dd if=/dev/zero of="$MNT/f$i" bs=4096 count=2 2>/dev/null
done
nova_umount
rc=0
fsck.nova -n -f "$PMEM" >/tmp/fsck.out 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat /tmp/fsck.out; fail "fsck.nova after remounts read-only and back: exit $rc"; }
# a read-only mount of a formatted device works
nova_mount ro
expect_eq "$(stat -c '%a' "$MNT")" "755" "root mode on ro mount"
nova_umount
