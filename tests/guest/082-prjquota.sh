#!/bin/sh
# Project quotas (prjquota), as ext4's: the project ID and PROJINHERIT
# through FS_IOC_FSSETXATTR (xfs_io chproj, chattr +P); a new inode in a
# PROJINHERIT directory takes its project; link and rename into one from
# another project give EXDEV; a project's usage is the sum of st_blocks of
# its inodes; a hard limit gives EDQUOT; chproj moves the usage; statfs
# of a project directory shows its limits; the hidden quota file is on
# with the mount option only (quotaon and quotaoff refuse it).  The usage
# survives an unmount, is counted again after a mount without prjquota
# and after a shutdown (a power cut); fsck.nova clean.  A remount
# read-write that cannot turn them on stays read-only.  A remount changes
# only the quota options it names; noquota while quotas are on is refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

q() { t_quota "$@"; }
as1000() { t_xattr asuser 1000 1000 "$@"; }
usage() { q get "$PMEM" project "$1"; }

nova_format "prjquota"
grep " $MNT " /proc/mounts | grep -q "prjquota" ||
	fail "prjquota not shown: $(grep " $MNT " /proc/mounts)"
expect_eq "$(q state "$PMEM" project)" "on" "project quota on with the mount"
expect_eq "$(nova-fsctl proj "$MNT")" "projid=0 inherit=0" "the root: project 0"

# a project directory: its new inodes take its project
mkdir "$MNT/p" "$MNT/other"
expect_ok nova-fsctl proj "$MNT/p" 42 +
expect_eq "$(nova-fsctl proj "$MNT/p")" "projid=42 inherit=1" "chproj and chattr +P"
expect_ok dd if=/dev/zero of="$MNT/p/f" bs=4096 count=10
mkdir "$MNT/p/sub"
expect_ok ln -s target "$MNT/p/sub/l"
expect_eq "$(nova-fsctl proj "$MNT/p/f")" "projid=42 inherit=0" "a new file takes the project"
expect_eq "$(nova-fsctl proj "$MNT/p/sub")" "projid=42 inherit=1" "a new directory inherits both"
# (no ioctl reaches a symlink: its project shows in the usage)
expect_eq "$(usage 42 | cut -d' ' -f2)" "inodes=4" "four inodes in project 42"
b42=$(usage 42 | sed 's/^blocks=\([0-9]*\).*/\1/')
expect_ok rm "$MNT/p/sub/l"
expect_eq "$(usage 42 | cut -d' ' -f1,2)" "blocks=$((b42 - 1)) inodes=3" "the symlink was project 42's"
prj_expect_usage 42 "project usage is the sum of st_blocks"
prj_expect_usage 0 "project 0 keeps the rest"
out=$(nova-fsctl proj "$MNT/p/f" 42 + 2>&1) && fail "PROJINHERIT on a file: $out"
echo "$out" | grep -q "errno 95" || fail "PROJINHERIT on a file: not EOPNOTSUPP: $out"

# link and rename into the project directory from outside: EXDEV
echo x >"$MNT/other/g"
out=$(ln "$MNT/other/g" "$MNT/p/g" 2>&1) && fail "link across projects: $out"
echo "$out" | grep -qi "cross-device" || fail "link across projects: not EXDEV: $out"
out=$(nova-fsctl exchange "$MNT/other/g" "$MNT/p/f" 2>&1) &&
	fail "exchange across projects: $out"
echo "$out" | grep -q "errno 18" || fail "exchange across projects: not EXDEV: $out"
# out of it is allowed (the other directory has no PROJINHERIT)
expect_ok ln "$MNT/p/f" "$MNT/other/f42"
expect_ok rm "$MNT/other/f42"

# a hard limit: writes fill up to it, then EDQUOT (root ignores limits)
chmod 777 "$MNT/p"
used=$(usage 42 | sed 's/^blocks=\([0-9]*\).*/\1/')
expect_ok q set "$PMEM" project 42 $((used + 5)) 0
out=$(as1000 dd if=/dev/zero of="$MNT/p/big" bs=4096 count=20 2>&1) &&
	fail "a write over the project's hard limit: $out"
echo "$out" | grep -qi "quota" || fail "not EDQUOT: $out"
expect_eq "$(usage 42)" "blocks=$((used + 5)) inodes=4 bhard=$((used + 5)) ihard=0" \
	"filled up to the project's limit"
# a chproj the limit refuses changes nothing, not even the ctime
chmod 777 "$MNT/other"
expect_ok as1000 sh -c "echo y > $MNT/other/mine"
c0=$(stat -c %Z "$MNT/other/mine")
sleep 1
out=$(as1000 nova-fsctl proj "$MNT/other/mine" 42 2>&1) &&
	fail "a chproj into a full project: $out"
echo "$out" | grep -q "errno 122" || fail "a chproj into a full project: not EDQUOT: $out"
expect_eq "$(nova-fsctl proj "$MNT/other/mine")" "projid=0 inherit=0" "the refused chproj kept the project"
expect_eq "$(stat -c %Z "$MNT/other/mine")" "$c0" "the refused chproj kept the ctime"
expect_ok rm "$MNT/other/mine"
# statfs of the project directory: its limit and what is left
expect_eq "$(nova_statfs blocks "$MNT/p")" "$((used + 5))" "statfs: the project's limit"
expect_eq "$(nova_statfs bfree "$MNT/p")" "0" "statfs: nothing left in the project"
[ "$(nova_statfs blocks "$MNT")" -gt $((used + 5)) ] || fail "statfs of the root limited"

# chproj moves the usage: root ignores limits, the new project takes it
expect_ok nova-fsctl proj "$MNT/p/big" 7
expect_eq "$(usage 7 | cut -d' ' -f1,2)" "blocks=5 inodes=1" "chproj: the new project"
prj_expect_usage 42 "chproj: the old project"
expect_ok rm "$MNT/p/big"
expect_eq "$(usage 7 | cut -d' ' -f1,2)" "blocks=0 inodes=0" "unlink gives it back"
expect_ok q set "$PMEM" project 42 0 0

# the hidden file is turned on and off by the mount option only
expect_eq "$(q on "$PMEM" "$MNT/other/g" project)" "EINVAL" "quotaon of a project file"
expect_eq "$(q off "$PMEM" project)" "EINVAL" "quotaoff of project quotas"

# read-only and back: still on, still counting
expect_ok mount -o remount,ro "$MNT"
expect_ok mount -o remount,rw "$MNT"
expect_eq "$(q state "$PMEM" project)" "on" "on again after remount,rw"
expect_ok dd if=/dev/zero of="$MNT/p/rw" bs=4096 count=3
prj_expect_usage 42 "charged after remount,rw"

# a remount changes only the quota options it names (as ext4): usrquota
# keeps project quotas on and counting; noquota while quotas are on is
# refused with a reason ("Cannot change quota options when quota turned on")
expect_ok nova-fsctl remount "$MNT" usrquota
grep " $MNT " /proc/mounts | grep -q prjquota || fail "remount,usrquota dropped prjquota: $(grep " $MNT " /proc/mounts)"
grep " $MNT " /proc/mounts | grep -q usrquota || fail "remount,usrquota not shown: $(grep " $MNT " /proc/mounts)"
expect_eq "$(q state "$PMEM" project)" "on" "still on after remount,usrquota"
expect_ok dd if=/dev/zero of="$MNT/p/usr" bs=4096 count=2
prj_expect_usage 42 "still charged after remount,usrquota"
expect_ok rm "$MNT/p/usr"
dmesg_mark
expect_fail nova-fsctl remount "$MNT" noquota
expect_dmesg "cannot change quota options while quotas are on" "remount,noquota refused with a reason"
expect_eq "$(q state "$PMEM" project)" "on" "still on after the refused remount,noquota"
grep " $MNT " /proc/mounts | grep -q prjquota || fail "the refused remount,noquota dropped prjquota"

# an unmount keeps the usage and limits; the next mount does not count
expect_ok q set "$PMEM" project 42 1000 100
before=$(usage 42)
nova_umount
dmesg_mark
nova_mount "prjquota"
expect_eq "$(usage 42)" "$before" "after an unmount"
expect_no_dmesg "project quota usage counted" "a clean unmount needs no count"

# a mount without prjquota does not count: the next one with it counts
nova_umount
nova_mount
expect_eq "$(q state "$PMEM" project)" "off" "off without the option"
# a remount cannot count (the file system is in use): refused
dmesg_mark
expect_fail mount -o remount,prjquota "$MNT"
expect_dmesg "project quotas need their usage counted" "the refusal says why"
expect_eq "$(q state "$PMEM" project)" "off" "still off after the refused remount"
grep " $MNT " /proc/mounts | grep -q prjquota && fail "a refused remount shows prjquota"
expect_ok dd if=/dev/zero of="$MNT/p/untracked" bs=4096 count=7
expect_ok rm "$MNT/p/f"
nova_umount
dmesg_mark
nova_mount "prjquota"
expect_dmesg "project quota usage counted" "counted after a mount without it"
prj_expect_usage 42 "the uncounted changes are counted"
expect_eq "$(usage 42 | cut -d' ' -f3,4)" "bhard=1000 ihard=100" "limits kept by the count"

# a shutdown (as a power cut) loses the usage since the last write-back:
# the next mount counts it
expect_ok dd if=/dev/zero of="$MNT/p/cut" bs=4096 count=9
expect_ok nova-fsctl proj "$MNT/p/rw" 9
expect_ok nova-fsctl shutdown "$MNT" 2
nova_umount
dmesg_mark
nova_mount "prjquota"
expect_dmesg "project quota usage counted" "counted after a shutdown"
prj_expect_usage 42 "project 42 after the shutdown"
prj_expect_usage 9 "project 9 after the shutdown"
expect_eq "$(nova-fsctl proj "$MNT/p/rw")" "projid=9 inherit=0" "a logged project ID survives"
# statfs counts the same inodes after the recovery scan and after a
# clean unmount (the hidden inode is not one of them)
files=$(nova_statfs files)
ffree=$(nova_statfs ffree)
nova_umount
nova_mount "prjquota"
expect_eq "$(($(nova_statfs files) - $(nova_statfs ffree)))" "$((files - ffree))" \
	"inodes in use: the same after the scan and after a clean unmount"
nova_umount
expect_ok fsck.nova -n -f "$PMEM"

# PROJINHERIT alone (project 0) sets RO_COMPAT_PROJECT: a module without
# it would drop the flag it does not know
nova_format
mkdir "$MNT/q"
expect_ok nova-fsctl proj "$MNT/q" 0 +
nova_umount
nova-debug "$PMEM" super | grep "^feature_ro_compat" | grep -q project ||
	fail "PROJINHERIT without the project feature: $(nova-debug "$PMEM" super | grep feature_ro)"

# a remount read-write whose project quotas cannot be turned on (here:
# the quota format module is gone and cannot be loaded) stays read-only
# with its options, as ext4; it goes read-write once they can
nova_format "prjquota"
touch "$MNT/a"
nova_umount
nova_mount "ro,prjquota"
rmmod quota_v2 || fail "quota_v2 cannot be unloaded (built in, or in use)"
modprobe_path=$(cat /proc/sys/kernel/modprobe)
echo /bin/false >/proc/sys/kernel/modprobe
dmesg_mark
expect_fail mount -o remount,rw "$MNT"
echo "$modprobe_path" >/proc/sys/kernel/modprobe
expect_dmesg "cannot turn project quotas on" "the failed remount logs why"
grep " $MNT " /proc/mounts | grep -q " ro," ||
	fail "read-write after a failed remount: $(grep " $MNT " /proc/mounts)"
expect_fail touch "$MNT/b"
expect_ok modprobe quota_v2
expect_ok mount -o remount,rw "$MNT"
expect_eq "$(q state "$PMEM" project)" "on" "on after the remount that could"
expect_ok touch "$MNT/b"
nova_umount
expect_ok fsck.nova -n -f "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
