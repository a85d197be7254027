#!/bin/sh
# norecovery (and ext4's name noload): journals are left as found.  On a
# file system whose journals need nothing it mounts read-only or
# read-write, shows in /proc/mounts and changes nothing; init excludes it.
# (An open journal transaction: read-write refused, read-only mounted
# without the roll-back and not remountable read-write, the roll-back
# still done by the next mount - every power-cut verification,
# tests/crash/verify-guest.sh.)
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
echo data >"$MNT/f"
nova_umount
for opt in norecovery noload; do
	nova_mount "ro,$opt"
	grep " $MNT " /proc/mounts | grep -q "norecovery" ||
		fail "$opt: not shown in /proc/mounts: $(grep " $MNT " /proc/mounts)"
	expect_eq "$(cat "$MNT/f")" "data" "$opt: read-only mount reads the file"
	expect_fail touch "$MNT/g"
	# nothing was left to recover: read-write is allowed
	expect_ok mount -o remount,rw "$MNT"
	echo "$opt" >"$MNT/$opt"
	nova_umount
done
# a read-write norecovery mount of journals that need nothing (as ext4)
dmesg_mark
nova_mount norecovery
expect_eq "$(cat "$MNT/noload")" "noload" "read-write norecovery mount"
expect_no_dmesg "not rolled back" "nothing to roll back: no warning"
nova_umount
nova_mount_refused "init,norecovery" "init and norecovery exclude each other"
expect_ok fsck.nova -n -f "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
