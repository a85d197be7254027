#!/bin/sh
# The device removed while it is mounted (its namespace's driver
# unbound, as `ndctl disable-namespace` does): the file system shuts
# down (EIO) and says so, the removal waits for the unmount, nothing
# oopses, and every file is whole when the device comes back (a review
# finding: the first read after the removal was a kernel page fault in
# nova_read_pages(), the kernel mapping of the device being gone).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

dev=$(readlink -f "/sys/block/${PMEM##*/}/device")
drv=$(readlink -f "$dev/driver")
name=${dev##*/}
[ -w "$drv/unbind" ] || fail "no driver to unbind for $dev ($drv)"

# wait_for SECONDS CMD...: until CMD succeeds
wait_for() {
	_t=$(($1 * 5))
	shift
	until "$@"; do
		[ $_t -gt 0 ] || return 1
		sleep 0.2
		_t=$((_t - 1))
	done
}
unbound() { [ -e /tmp/unbind.rc ]; }
# the unbind in the background: it waits for the unmount; its status
# goes to /tmp/unbind.rc
start_unbind() {
	rm -f /tmp/unbind.rc
	(
		exec 3<&-	# (not holding the mount busy)
		rc=0
		echo "$name" >"$drv/unbind" || rc=$?
		echo $rc >/tmp/unbind.rc
	) &
}
removal_logged() { dmesg_since_mark | grep -q "the device is being removed"; }

nova_format
echo kept >"$MNT/kept"
dd if=/dev/urandom of="$MNT/data" bs=64k count=16 2>/dev/null
sync
sum=$(md5sum <"$MNT/data")
exec 3<"$MNT/kept"
dmesg_mark
info "unbinding $name from ${drv##*/}"
start_unbind
wait_for 20 removal_logged || fail "no removal in the kernel log after 20 s"
expect_dmesg "NOVA \\(${PMEM##*/}\\): the device is being removed: shut down" "the file system says it shuts down"
sleep 1
unbound && fail "the removal finished while the file system is mounted"
expect_fail cat "$MNT/kept"
expect_fail touch "$MNT/new"
expect_fail cat <&3
exec 3<&-
nova_umount
wait_for 20 unbound || fail "the removal did not finish within 20 s of the unmount"
expect_eq "$(cat /tmp/unbind.rc)" 0 "the unbind's status"
[ -b "$PMEM" ] && fail "$PMEM is still there after the removal"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|Unable to handle' "no kernel errors during the removal"

echo "$name" >"$drv/bind" || fail "cannot bind $name again"
wait_for 20 [ -b "$PMEM" ] || fail "$PMEM did not come back"
nova_mount
expect_eq "$(cat "$MNT/kept")" kept "a small file after the removal"
expect_eq "$(md5sum <"$MNT/data")" "$sum" "a 1 MiB file after the removal"
[ -e "$MNT/new" ] && fail "a file created after the shutdown exists"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|Unable to handle' "no kernel errors"

# Two file systems on partitions of the device: the second cannot be
# the DAX device's holder (the first is), and is held in place all the same
info "two partitions"
expect_ok dd if=/dev/zero of="$PMEM" bs=512 count=1 conv=notrunc 2>/dev/null
# 128 MiB at 1 MiB and 128 MiB at 129 MiB
printf "\\000\\000\\000\\000\\203\\000\\000\\000$(le32 2048)$(le32 262144)\\000\\000\\000\\000\\203\\000\\000\\000$(le32 264192)$(le32 262144)" |
	dd of="$PMEM" bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of="$PMEM" bs=1 seek=510 conv=notrunc 2>/dev/null
expect_ok blockdev --rereadpt "$PMEM"
wait_for 10 [ -b "${PMEM}p2" ] || fail "no ${PMEM}p2"
M2=${MNT2:-/mnt/nova2}
mkdir -p "$M2"
expect_ok mount -t NOVA -o init "${PMEM}p1" "$MNT"
expect_ok mount -t NOVA -o init "${PMEM}p2" "$M2"
echo one >"$MNT/one"
echo two >"$M2/two"
sync
dmesg_mark
start_unbind
wait_for 20 removal_logged || fail "no removal in the kernel log after 20 s (partitions)"
expect_dmesg "NOVA \\(${PMEM##*/}p1\\): the device is being removed" "the holder shuts down"
sleep 1
unbound && fail "the removal finished while two file systems are mounted"
expect_ok umount "$MNT"
sleep 1
unbound && fail "the removal finished while the second file system is mounted"
expect_ok umount "$M2"
wait_for 20 unbound || fail "the removal did not finish within 20 s of the unmounts"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|Unable to handle' "no kernel errors during the removal (partitions)"
echo "$name" >"$drv/bind" || fail "cannot bind $name again"
wait_for 20 [ -b "${PMEM}p2" ] || fail "${PMEM}p2 did not come back"
expect_ok mount -t NOVA "${PMEM}p1" "$MNT"
expect_ok mount -t NOVA "${PMEM}p2" "$M2"
expect_eq "$(cat "$MNT/one" "$M2/two")" "one
two" "the files of both partitions"
expect_ok umount "$MNT"
expect_ok umount "$M2"
expect_ok fsck.nova -fn "${PMEM}p1"
expect_ok fsck.nova -fn "${PMEM}p2"
expect_ok dd if=/dev/zero of="$PMEM" bs=512 count=1 conv=notrunc 2>/dev/null
expect_ok blockdev --rereadpt "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|Unable to handle' "no kernel errors"
