#!/bin/sh
# A primary super block overwritten with garbage is recovered from the
# replica and repaired; with both copies destroyed the mount is refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
blocks=$(($(dev_bytes) / 4096))

nova_format "mode=0701"
expect_ok nova-fsctl setlabel "$MNT" "replica-test"
uuid=$(nova_probe_key ID_FS_UUID)
nova_umount

smash_block "$PMEM" 0
dmesg_mark
nova_mount
expect_dmesg "primary super block invalid .*using the replica" "replica used"
expect_dmesg "primary super block repaired" "primary repaired"
expect_eq "$(stat -c '%a' "$MNT")" "701" "root mode via replica"
expect_eq "$(nova-fsctl getlabel "$MNT")" "replica-test" "label via replica"
nova_umount
# the primary is good again: no fall-back on the next mount
dmesg_mark
nova_mount
expect_no_dmesg "replica" "second mount uses the repaired primary"
nova_umount
expect_eq "$(nova_probe_key ID_FS_UUID)" "$uuid" "uuid kept"

# a torn replica alone does not matter; both bad is refused
smash_block "$PMEM" $((blocks - 1))
nova_mount
nova_umount
smash_block "$PMEM" 0
smash_block "$PMEM" $((blocks - 1))
nova_mount_refused "" "invalid super block .* and invalid replica|no NOVA file system found"
