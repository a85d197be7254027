#!/bin/sh
# A DAX partition too small for NOVA is refused; a big enough one works.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# MBR partition entry: type 0x83, start LBA, sector count
part() {
	printf "\\000\\000\\000\\000\\203\\000\\000\\000$(le32 "$1")$(le32 "$2")"
}
expect_ok dd if=/dev/zero of="$PMEM" bs=512 count=1 conv=notrunc 2>/dev/null
{
	part 2048 512		# 256 KiB at 1 MiB: too small
	part 4096 131072	# 64 MiB at 2 MiB
} | dd of="$PMEM" bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of="$PMEM" bs=1 seek=510 conv=notrunc 2>/dev/null
expect_ok blockdev --rereadpt "$PMEM"
sleep 1
[ -b "${PMEM}p1" ] || fail "partition ${PMEM}p1 did not appear"
nova_mount_refused "init" "device too small" "${PMEM}p1"
expect_ok mount -t NOVA -o init "${PMEM}p2" "$MNT"
expect_eq "$(nova_statfs blocks)" "16384" "blocks of the 64 MiB partition"
nova_umount
expect_ok mount -t NOVA "${PMEM}p2" "$MNT"
nova_umount
expect_eq "$(nova-probe "${PMEM}p2" | sed -n 's/^ID_FS_TYPE=//p')" "NOVA" "probe on partition"
expect_ok dd if=/dev/zero of="$PMEM" bs=512 count=1 conv=notrunc 2>/dev/null
expect_ok blockdev --rereadpt "$PMEM"
