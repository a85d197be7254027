#!/bin/sh
# A file handle (open_by_handle_at(), NFS) of a file deleted while open
# and left as an orphan by a crash is stale (ESTALE), as on ext4
# (EXT4_IGET_HANDLE), not damage: on a read-only device the recovery
# scan cannot reclaim the orphan, so its inode is still valid on pmem
# with no links (a review finding: NOVA reported it as corruption, with
# errors=panic a panic).  Then on a writable device the orphan is
# reclaimed and the handle is still stale; a live file's handle opens.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
echo live >"$MNT/live"
dd if=/dev/zero of="$MNT/orphan" bs=64k count=4 2>/dev/null
expect_ok nova-fsctl handle save "$MNT/live" /tmp/h-live
expect_ok nova-fsctl handle save "$MNT/orphan" /tmp/h-orphan
expect_ok nova-fsctl handle open "$MNT" /tmp/h-live
# unlinked while open, then a shutdown (no log flush): a crash image
exec 3<"$MNT/orphan"
rm "$MNT/orphan"
expect_ok nova-fsctl shutdown "$MNT" 2
exec 3<&-
nova_umount

for errors in continue panic; do
	expect_ok blockdev --setro "$PMEM"
	dmesg_mark
	expect_ok mount -t NOVA -o "ro,errors=$errors" "$PMEM" "$MNT"
	expect_dmesg "1 unlinked inodes left for a writable device" \
		"errors=$errors: the orphan stays on the read-only device"
	expect_eq "$(nova-fsctl handle open "$MNT" /tmp/h-orphan)" "ESTALE" \
		"errors=$errors: the orphan's handle on a read-only device"
	expect_ok nova-fsctl handle open "$MNT" /tmp/h-live
	expect_no_dmesg "NOVA error|NOVA \(pmem0\): error|WARNING|Oops|BUG" \
		"errors=$errors: no error for a stale handle"
	nova_umount
	expect_ok blockdev --setrw "$PMEM"
done

dmesg_mark
nova_mount
expect_dmesg "reclaimed 1 unlinked inodes" "the writable mount reclaims the orphan"
expect_no_dmesg "with errors" "the file system was not marked with errors"
expect_eq "$(nova-fsctl handle open "$MNT" /tmp/h-orphan)" "ESTALE" \
	"the orphan's handle after its reclaim"
expect_ok nova-fsctl handle open "$MNT" /tmp/h-live
expect_eq "$(cat "$MNT/live")" "live" "the live file"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
