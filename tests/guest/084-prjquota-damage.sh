#!/bin/sh
# A damaged project quota tree, as a power cut in the middle of a tree
# update leaves it, with the real kernel and fsck.nova's pass 7.  The
# kernel writes the usage and limits of a few projects (a clean unmount),
# nova_image damages the tree of the hidden quota file in place on the
# unmounted $PMEM, and a mount without prjquota and its unmount clear
# the prjquota state bit, so that the next mount with prjquota counts
# the usage and dqget()s every project.  That mount fails, the kernel
# log says to run fsck.nova -f and the super block records the error
# state, so that fsck.nova -p (at boot) looks without -f; fsck.nova -n -f
# names each problem (exit 4) and changes nothing; -fy or -p writes
# the file anew (exit 1) and clears the error state; then it is clean,
# and the mount with prjquota
# works: the limits of the IDs the tree still led to kept, those of the
# entries it no longer led to lost, each project's usage the sum of
# st_blocks of its inodes.  Three ways: a reference out of the file and
# a tree block in use on the free-block list (-EUCLEAN); a reference to
# a data block without the ID's entry, as a cut between the two writes
# leaves it (-EIO); a header that is not a project quota file's
# (-EINVAL: the file cleared, the next mount makes a new one).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

q() { t_quota "$@"; }
usage() { q get "$PMEM" project "$1"; }
limits() { usage "$1" | cut -d' ' -f3,4; }

# Projects 10, 20 and 30, a directory each (PROJINHERIT) with a file of
# N pages and a subdirectory with a small file; hard limits on them and
# on 40, which no inode has; a clean unmount with project quotas on
populate() {
	nova_format "prjquota"
	for p in 10 20 30; do
		mkdir "$MNT/p$p"
		expect_ok nova-fsctl proj "$MNT/p$p" $p +
		expect_ok dd if=/dev/zero of="$MNT/p$p/f" bs=4096 count=$p
		mkdir "$MNT/p$p/d"
		echo x >"$MNT/p$p/d/g"
	done
	for p in 10 20 30 40; do
		expect_ok q set "$PMEM" project $p $((p * 10)) $p
	done
	prj_expect_usage 20 "project 20 before the damage"
	nova_umount
	expect_eq "$(sb_state)" "0x5 clean prjquota" "a clean unmount with project quotas"
}

# damage INJECTION...: each one nova_image inject (its words split) on
# the unmounted device, then a mount without prjquota and its unmount:
# the usage is no longer current, the next mount with prjquota counts it
damage() {
	for _d; do
		# shellcheck disable=SC2086 # one word per argument of nova_image
		expect_ok nova_image inject "$PMEM" $_d
	done
	nova_mount
	expect_eq "$(q state "$PMEM" project)" "off" "no project quotas without the option"
	nova_umount
	expect_eq "$(sb_state)" "0x1 clean" "the prjquota bit cleared"
}

# refused ERRNO: the mount with prjquota fails, the log says what to do;
# the file system is left clean, with the error state (fsck.nova looks
# without -f)
refused() {
	nova_mount_refused "prjquota" \
		"NOVA \\(pmem0\\): cannot turn project quotas on \\($1\\): the project quota file is damaged, run fsck\\.nova -f"
	expect_eq "$(sb_state)" "0x3 clean error" "the refused mount recorded the error"
}

# reported PATTERN CODE...: fsck.nova -n -f finds each problem CODE (a
# line ending in [CODE]) and a line matching PATTERN (grep -E), exits 4
# and changes nothing (the quota file read the same after it)
reported() {
	_re=$1
	shift
	_before=$(nova-debug "$PMEM" quota 2>&1)
	_rc=0
	_out=$(fsck.nova -n -f "$PMEM" 2>&1) || _rc=$?
	printf '%s\n' "$_out"
	expect_eq "$_rc" 4 "fsck.nova -n -f on the damaged tree: exit"
	for _c; do
		printf '%s\n' "$_out" | grep -q "\\[$_c\\]\$" ||
			fail "fsck.nova -n -f does not report $_c"
	done
	printf '%s\n' "$_out" | grep -qE -- "$_re" ||
		fail "fsck.nova -n -f does not say /$_re/"
	expect_eq "$(nova-debug "$PMEM" quota 2>&1)" "$_before" "fsck.nova -n changed the file"
}

# repaired OPTION PATTERN: fsck.nova OPTION repairs (exit 1, a line
# matching PATTERN), then fsck.nova -n -f is clean
repaired() {
	_rc=0
	_out=$(fsck.nova "$1" "$PMEM" 2>&1) || _rc=$?
	printf '%s\n' "$_out"
	expect_eq "$_rc" 1 "fsck.nova $1: exit"
	printf '%s\n' "$_out" | grep -qE -- "$2" || fail "fsck.nova $1 does not say /$2/"
	case $(sb_state) in *error*) fail "the error state kept after fsck.nova $1: $(sb_state)" ;; esac
	expect_ok fsck.nova -n -f "$PMEM"
}

# mounted: the mount with prjquota works and counts; each project's
# usage is its count
mounted() {
	dmesg_mark
	nova_mount "prjquota"
	expect_dmesg "project quota usage counted" "the mount after the repair counts"
	expect_no_dmesg "cannot turn project quotas on|Quota error" "no quota error after the repair"
	expect_eq "$(q state "$PMEM" project)" "on" "project quotas on after the repair"
	for p in 0 10 20 30; do
		prj_expect_usage $p "project $p after the repair"
	done
}

dmesg_mark
NOVA_MARK0=$NOVA_MARK

# 1. a reference out of the file (project 20's, to its data block: its
# entry is no longer reached) and a tree block in use on the free-block
# list: dqget(20) fails, -EUCLEAN
populate
damage "prjquota-tree ref 20 3 999" "prjquota-tree info free_blk =10:3"
refused -117
reported "reference [0-9]+ \\(ID 20\\) to block 999: past the end of the file" \
	PR_PRJQUOTA_REF PR_PRJQUOTA_ENTRY PR_PRJQUOTA_FREE_BLK
repaired -fy "written anew: 5 project IDs, the limits of 3 kept, the usage counted; 1 entries the tree did not lead to dropped"
mounted
expect_eq "$(limits 10)" "bhard=100 ihard=10" "project 10's limits kept"
expect_eq "$(limits 20)" "bhard=0 ihard=0" "project 20's limits: its entry was out of the tree"
expect_eq "$(limits 30)" "bhard=300 ihard=30" "project 30's limits kept"
expect_eq "$(usage 40)" "blocks=0 inodes=0 bhard=400 ihard=40" "project 40: no inode, its limits kept"
# the limits work again: a write over project 10's
expect_ok q set "$PMEM" project 10 $(($(usage 10 | sed 's/^blocks=\([0-9]*\).*/\1/') + 2)) 0
chmod 777 "$MNT/p10"
out=$(t_xattr asuser 1000 1000 dd if=/dev/zero of="$MNT/p10/big" bs=4096 count=5 2>&1) &&
	fail "a write over the project's hard limit after the repair: $out"
echo "$out" | grep -qi "quota" || fail "not EDQUOT after the repair: $out"
nova_umount
expect_ok fsck.nova -n -f "$PMEM"

# 2. a reference to a data block without the ID's entry: the reference
# of project 43 (no inode, no entry) written, its entry not; the count
# finds the ID in the tree, its dqget() fails, -EIO
populate
damage "prjquota-tree ref 43 3 =10:4"
refused -5
reported "reference 43 \\(ID 43\\) to data block [0-9]+: no entry for ID 43 there" PR_PRJQUOTA_REF
repaired -p "project quota file written anew: 5 project IDs, the limits of 4 kept"
mounted
for p in 10 20 30; do
	expect_eq "$(limits $p)" "bhard=$((p * 10)) ihard=$p" "project $p's limits kept"
done
expect_eq "$(usage 40)" "blocks=0 inodes=0 bhard=400 ihard=40" "project 40's limits kept"
nova_umount
# an ID without an entry reads as zeros: the file itself has no entry for 43
# (nova-debug quota: a line "id N space ..." per entry)
_q=$(nova-debug "$PMEM" quota 2>&1) || fail "nova-debug quota after the repair: $_q"
echo "$_q" | grep -q '^id 43 ' && fail "an entry for project 43 after the repair: $(echo "$_q" | grep '^id 43 ')"
expect_ok fsck.nova -n -f "$PMEM"

# 3. a header that is not a project quota file's: the quota code does
# not load it, -EINVAL; -y clears the file (-p may not), its limits lost
populate
damage "prjquota-bad magic"
refused -22
reported "its header \\(magic 0xd9c03e14, version 1\\) is not that of a project quota file" \
	PR_PRJQUOTA_BAD
_rc=0
fsck.nova -fp "$PMEM" || _rc=$?
expect_eq "$_rc" 4 "fsck.nova -fp stops at an unusable project quota file"
repaired -fy "reserved inode 6 cleared"
mounted
for p in 10 20 30 40; do
	expect_eq "$(limits $p)" "bhard=0 ihard=0" "project $p's limits lost with the file"
done
nova_umount
expect_ok fsck.nova -n -f "$PMEM"

NOVA_MARK=$NOVA_MARK0
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
