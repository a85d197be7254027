#!/bin/sh
# Quota files on a full device: every write of a quota file is
# copy-on-write and needs a block, and a refused one leaves the quota
# tree half-updated ("Illegal reference" from repquota, as generic/270
# found).  A quota file in use may take the deletion reserve: on a full
# device new limits (new quota structures, new tree blocks) are still
# written, for user quotas and the hidden project quota file, and they
# survive quotaoff, an unmount and quotaon; no quota error in the log.
# Growing a quota file takes the reserve only with CAP_SYS_RESOURCE (as
# ext4's root reserve): a user's chproj to a new project ID that needs a
# new block gives ENOSPC and leaves the file sound.  A chproj whose log
# entry does not fit moves no usage.  The first mount with prjquota on a
# full device makes the project quota file.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

q() { t_quota "$@"; }
as3000() { t_xattr asuser 3000 3000 "$@"; }

nova_format "usrquota,prjquota"
expect_ok q init "$MNT/aquota.user" user
expect_ok q on "$PMEM" "$MNT/aquota.user" user
mkdir "$MNT/p" "$MNT/u"
expect_ok nova-fsctl proj "$MNT/p" 5 +
chown 3000:3000 "$MNT/u"
expect_ok as3000 touch "$MNT/u/f"

# fill the device (root cannot take the deletion reserve either)
dd if=/dev/zero of="$MNT/fill" bs=1M 2>/dev/null
dd if=/dev/zero of="$MNT/fill2" bs=4096 2>/dev/null
expect_fail dd if=/dev/zero of="$MNT/more" bs=4096 count=1
dmesg_mark
# 300 new ids: new quota structures and tree blocks in both files
i=1000
while [ $i -lt 1300 ]; do
	out=$(q set "$PMEM" user $i $((i + 1)) 7) ||
		fail "user limits of id $i on a full device: $out"
	out=$(q set "$PMEM" project $i $((i + 2)) 9) ||
		fail "project limits of id $i on a full device: $out"
	i=$((i + 1))
done
expect_ok q sync "$PMEM"
expect_eq "$(q get "$PMEM" user 1299)" "blocks=0 inodes=0 bhard=1300 ihard=7" "user limits set"
expect_eq "$(q get "$PMEM" project 1299)" "blocks=0 inodes=0 bhard=1301 ihard=9" "project limits set"
expect_no_dmesg "Quota error|cannot write the quota file" "no quota write failed"

# a user's new project ID on the full device: no new block for the file
bfree=$(nova_statfs bfree)
out=$(as3000 nova-fsctl proj "$MNT/u/f" 70000 2>&1) &&
	fail "a user grew the project quota file on a full device: $out"
echo "$out" | grep -q "errno 28" || fail "a user's chproj on a full device: not ENOSPC: $out"
expect_eq "$(nova-fsctl proj "$MNT/u/f")" "projid=0 inherit=0" "the refused chproj kept the project"
expect_eq "$(nova_statfs bfree)" "$bfree" "the reserve is left as it was"
expect_eq "$(q get "$PMEM" project 1299)" "blocks=0 inodes=0 bhard=1301 ihard=9" "the project file is sound"

# a project change whose log entry does not fit moves no usage: the usage
# moves after the entry is appended (it used to move first, and moving it
# back failed over the old project's limits: a user is held to them)
expect_ok q set "$PMEM" project 0 0 1
i=0
while [ $i -lt 300 ] && as3000 nova-fsctl nocow "$MNT/u/f" + >/dev/null &&
	as3000 nova-fsctl nocow "$MNT/u/f" - >/dev/null; do
	i=$((i + 1))
done
[ $i -lt 300 ] || fail "300 flag changes on a full device: the log never filled"
out=$(as3000 nova-fsctl proj "$MNT/u/f" 1299 2>&1) &&
	fail "a chproj with a full log succeeded: $out"
echo "$out" | grep -q "errno 28" || fail "a chproj with a full log: not ENOSPC: $out"
expect_eq "$(nova-fsctl proj "$MNT/u/f")" "projid=0 inherit=0" "the chproj with a full log kept the project"
expect_eq "$(q get "$PMEM" project 1299)" "blocks=0 inodes=0 bhard=1301 ihard=9" "the chproj with a full log moved no usage"
expect_no_dmesg "usage not given back" "no usage left behind"
expect_ok q set "$PMEM" project 0 0 0

# they were written: off and on, an unmount
expect_ok q off "$PMEM" user
expect_ok q on "$PMEM" "$MNT/aquota.user" user
expect_eq "$(q get "$PMEM" user 1000)" "blocks=0 inodes=0 bhard=1001 ihard=7" "after quotaoff"
expect_ok rm "$MNT/fill"
nova_umount
nova_mount "usrquota,prjquota"
expect_ok q on "$PMEM" "$MNT/aquota.user" user
i=1000
while [ $i -lt 1300 ]; do
	expect_eq "$(q get "$PMEM" user $i)" "blocks=0 inodes=0 bhard=$((i + 1)) ihard=7" "user $i after an unmount"
	expect_eq "$(q get "$PMEM" project $i)" "blocks=0 inodes=0 bhard=$((i + 2)) ihard=9" "project $i after an unmount"
	i=$((i + 37))
done
nova_umount
expect_ok fsck.nova -n -f "$PMEM"

# the first mount with prjquota on a full device makes the project quota
# file from the reserve, and counts the usage
nova_format ""
expect_ok dd if=/dev/zero of="$MNT/f" bs=4096 count=5
dd if=/dev/zero of="$MNT/fill" bs=1M 2>/dev/null
dd if=/dev/zero of="$MNT/fill2" bs=4096 2>/dev/null
expect_fail dd if=/dev/zero of="$MNT/more" bs=4096 count=1
nova_umount
dmesg_mark
nova_mount "prjquota"
expect_no_dmesg "cannot turn project quotas on" "the project quota file was made"
prj_expect_usage 0 "project 0 counted"
nova_umount
expect_ok fsck.nova -n -f "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
