#!/bin/sh
# Format with mode/uid/gid, remount, and check that everything set survives.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format "mode=0710,uid=1234,gid=4321"
grep -q "^$PMEM $MNT NOVA " /proc/mounts || fail "not in /proc/mounts as NOVA"
expect_eq "$(stat -c '%a %u %g' "$MNT")" "710 1234 4321" "root attributes after format"
expect_eq "$(stat -c '%h' "$MNT")" "2" "root link count"
expect_eq "$(ls -a "$MNT" | tr '\n' ' ')" ". .. " "empty root directory"
expect_ok nova-fsctl setlabel "$MNT" "nova-test-label"
expect_eq "$(nova-fsctl getlabel "$MNT")" "nova-test-label" "label"
uuid=$(nova_probe_key ID_FS_UUID)
[ ${#uuid} -eq 36 ] || fail "nova-probe UUID '$uuid'"
nova_umount

nova_mount
expect_eq "$(stat -c '%a %u %g' "$MNT")" "710 1234 4321" "root attributes after remount"
expect_eq "$(nova-fsctl getlabel "$MNT")" "nova-test-label" "label after remount"
expect_eq "$(nova_probe_key ID_FS_UUID)" "$uuid" "uuid after remount"
# FS_IOC_GETFSUUID (Linux 6.10) gives the same UUID, as on ext4 and XFS;
# older kernels have no such ioctl (ENOTTY, for every file system)
kv=$(uname -r)
if [ "${kv%%.*}" -gt 6 ] || { [ "${kv%%.*}" -eq 6 ] && [ "$(echo "$kv" | cut -d. -f2)" -ge 10 ]; }; then
	expect_eq "$(nova-fsctl uuid "$MNT")" "$uuid" "FS_IOC_GETFSUUID"
else
	expect_eq "$(nova-fsctl uuid "$MNT")" \
		"error FS_IOC_GETFSUUID: Inappropriate ioctl for device (errno 25)" \
		"FS_IOC_GETFSUUID before Linux 6.10"
fi
expect_eq "$(nova_probe_key ID_FS_TYPE)" "NOVA" "probe type"
expect_eq "$(nova_probe_key ID_FS_LABEL)" "nova-test-label" "probe label"
expect_eq "$(nova_probe_key ID_FS_VERSION)" "1.0" "probe version"
nova_umount

# a second format gives a new UUID and the defaults
nova_format
expect_eq "$(stat -c '%a %u %g' "$MNT")" "755 0 0" "root defaults after re-format"
[ "$(nova_probe_key ID_FS_UUID)" != "$uuid" ] || fail "re-format kept the old UUID"
expect_eq "$(nova-fsctl getlabel "$MNT")" "" "label cleared by re-format"
nova_umount
