#!/bin/sh
# The lite journals are checked at every mount, also on a read-only device
# where nothing can be rolled back: damaged journal pointers refuse the
# mount with a log line, never an oops.  (That a read-only device with an
# open transaction refuses the mount with EROFS is checked by every
# power-cut verification, tests/crash/verify-guest.sh.)
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# le64 VALUE: the 8 bytes of VALUE, little-endian, as printf escapes
le64() {
	_v=$1
	_i=0
	while [ $_i -lt 8 ]; do
		printf '\\%03o' $((_v & 255))
		_v=$((_v >> 8))
		_i=$((_i + 1))
	done
}

# journal pointers of stripe 0: block 32, head at +0, tail at +8
JPTR=$((32 * BLOCK))

for field in head tail; do
	for ro in rodev rw; do
		nova_format
		echo data >"$MNT/f"
		nova_umount
		off=$JPTR
		[ $field = tail ] && off=$((JPTR + 8))
		# far outside the device, and not on an entry boundary
		printf "$(le64 0x7fff00000000123)" |
			dd of="$PMEM" bs=1 seek=$off conv=notrunc 2>/dev/null
		if [ $ro = rodev ]; then
			expect_ok blockdev --setro "$PMEM"
			nova_mount_refused ro "stripe 0: bad journal pointers"
			expect_ok blockdev --setrw "$PMEM"
		else
			nova_mount_refused "" "stripe 0: bad journal pointers"
		fi
		# fsck.nova sees it too
		expect_fail fsck.nova -n "$PMEM"
	done
done

# a journal page that is not inside the device's dynamic area
nova_format
nova_umount
printf "$(le64 4096)$(le64 4096)" | dd of="$PMEM" bs=1 seek=$JPTR conv=notrunc 2>/dev/null
expect_ok blockdev --setro "$PMEM"
nova_mount_refused ro "stripe 0: bad journal pointers"
expect_ok blockdev --setrw "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
