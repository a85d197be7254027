#!/bin/sh
# A device with known bad blocks (the pmem driver's badblocks list, as an
# address range scrub or a failed write leaves it): the pmem driver maps
# no range with a bad block in it, and NOVA maps the whole device, so the
# mount is refused with EIO and a kernel log line that names the list
# (before: EINVAL and "DAX direct access failed (-5)").  The file system
# itself is intact: once the list is gone (here: the namespace's driver
# bound again, which reads the list from the bus) it mounts as before.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

disk=${PMEM##*/}
dev=$(readlink -f "/sys/block/$disk/device")
drv=$(readlink -f "$dev/driver")
name=${dev##*/}
[ -w "$drv/unbind" ] || fail "no driver to unbind for $dev ($drv)"

nova_format
echo kept >"$MNT/kept"
nova_umount
# 4 KiB at 1 MiB: a free block of the data area
echo "2048 8" >"/sys/block/$disk/badblocks" || fail "cannot add a bad block"
expect_eq "$(cat "/sys/block/$disk/badblocks")" "2048 8" "the device's bad blocks"
dmesg_mark
rc=0
mount -t NOVA "$PMEM" "$MNT" 2>/tmp/mount.err || rc=$?
cat /tmp/mount.err
[ "$rc" != 0 ] || fail "a device with a bad block was mounted"
grep -q "Input/output error" /tmp/mount.err || fail "the refused mount is not EIO: $(cat /tmp/mount.err)"
expect_dmesg "NOVA: $disk: the device has known bad blocks \\(1 ranges, /sys/block/$disk/badblocks\\)" \
	"the refused mount names the bad blocks"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"

# the driver bound again reads the list from the bus: empty
echo "$name" >"$drv/unbind" || fail "cannot unbind $name"
echo "$name" >"$drv/bind" || fail "cannot bind $name again"
i=0
until [ -b "$PMEM" ]; do
	[ $i -lt 100 ] || fail "$PMEM did not come back"
	sleep 0.2
	i=$((i + 1))
done
expect_eq "$(cat "/sys/block/$disk/badblocks")" "" "the bad blocks after the driver was bound again"
nova_mount
expect_eq "$(cat "$MNT/kept")" kept "a file after the bad blocks are gone"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
