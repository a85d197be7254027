#!/bin/sh
# Disk quotas (usrquota, grpquota; the quota files made and turned on
# through quotactl, as quotacheck and quotaon do; a quota file in use is
# immutable, as on ext4).  Block usage is in
# 4 KiB blocks and equals st_blocks (data pages, a symlink's block, a
# directory's log pages); inode usage counts inodes.  A hard limit gives
# EDQUOT with nothing of the refused part committed, and a write fills
# exactly up to it; an overwrite at the limit still works (copy-on-write
# needs no more quota); fallocate is refused; a store through a shared
# mapping into a hole one block below the limit works (a 2 MiB fault
# that falls back charges nothing); chown and chgrp move the
# usage, truncate and unlink give it back; the usage survives quotaoff,
# an unmount and quotaon; a name that needs a new directory page is
# refused at the limit, a removal never; remount read-only and back with
# quotas on; fsck.nova clean.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

q() { t_quota "$@"; }
as1000() { t_xattr asuser 1000 1000 "$@"; }
# usage TYPE ID: "blocks=N inodes=N bhard=N ihard=N"
usage() { q get "$PMEM" "$1" "$2"; }
quota_on() {
	expect_ok q on "$PMEM" "$MNT/aquota.user" user
	expect_ok q on "$PMEM" "$MNT/aquota.group" group
}

nova_format "usrquota,grpquota"
grep " $MNT " /proc/mounts | grep -q "usrquota,grpquota" ||
	fail "quota options not shown: $(grep " $MNT " /proc/mounts)"
expect_eq "$(q state "$PMEM" user)" "off" "no quota before quotaon"
expect_ok q init "$MNT/aquota.user" user
expect_ok q init "$MNT/aquota.group" group
quota_on
expect_eq "$(q state "$PMEM" user)" "on" "user quota on"
expect_eq "$(q state "$PMEM" group)" "on" "group quota on"
# a quota file in use is the quota code's alone, as on ext4: immutable
# (root cannot write, truncate or remove it), not another type's file
# (EBUSY), and no thorough GC through /proc (EBUSY); again its own after
# quota off
out=$(sh -c "echo x >>$MNT/aquota.user" 2>&1) && fail "root appended to the quota file in use"
echo "$out" | grep -q "Operation not permitted" || fail "append to the quota file in use: $out"
expect_fail truncate -s 0 "$MNT/aquota.user"
expect_fail rm -f "$MNT/aquota.user"
expect_eq "$(q on "$PMEM" "$MNT/aquota.user" group)" "EBUSY" "the user quota file as the group's"
qino=$(stat -c %i "$MNT/aquota.user")
expect_fail sh -c "echo $qino >/proc/fs/NOVA/pmem0/gc"
expect_ok q off "$PMEM" user
expect_ok touch "$MNT/aquota.user"
expect_ok sh -c "echo $qino >/proc/fs/NOVA/pmem0/gc"
expect_ok q on "$PMEM" "$MNT/aquota.user" user
expect_eq "$(q state "$PMEM" user)" "on" "user quota on again"
mkdir "$MNT/d"
chmod 777 "$MNT/d"

# the usage is st_blocks, charged per 4 KiB block and inode
expect_ok as1000 dd if=/dev/zero of="$MNT/d/f" bs=4096 count=10
expect_eq "$(usage user 1000)" "blocks=10 inodes=1 bhard=0 ihard=0" "10 blocks written"
expect_eq "$(usage group 1000)" "blocks=10 inodes=1 bhard=0 ihard=0" "group usage"
expect_eq "$(stat -c %b "$MNT/d/f")" "80" "st_blocks of 10 blocks"
expect_ok as1000 dd if=/dev/zero of="$MNT/d/f" bs=4096 count=1 seek=256 conv=notrunc
expect_eq "$(usage user 1000)" "blocks=11 inodes=1 bhard=0 ihard=0" "a sparse block"
expect_ok as1000 ln -s target "$MNT/d/l"
expect_eq "$(usage user 1000)" "blocks=12 inodes=2 bhard=0 ihard=0" "a symlink: one block, one inode"
expect_eq "$(stat -c %b "$MNT/d/l")" "8" "st_blocks of a symlink"

# hard limit 20 blocks: 64 KiB writes fill exactly up to it, then EDQUOT
expect_ok q set "$PMEM" user 1000 20 0
out=$(as1000 dd if=/dev/zero of="$MNT/d/g" bs=65536 count=10 2>&1) &&
	fail "a write over the hard limit succeeded: $out"
echo "$out" | grep -qi "quota" || fail "not EDQUOT: $out"
expect_eq "$(usage user 1000)" "blocks=20 inodes=3 bhard=20 ihard=0" "filled up to the hard limit"
expect_eq "$(stat -c %s "$MNT/d/g")" "32768" "the write stopped at the limit"
# at the limit an overwrite works; a new block does not
expect_ok as1000 dd if=/dev/urandom of="$MNT/d/g" bs=4096 count=8 conv=notrunc
expect_eq "$(usage user 1000)" "blocks=20 inodes=3 bhard=20 ihard=0" "overwrites at the limit"
expect_fail as1000 dd if=/dev/zero of="$MNT/d/g" bs=4096 count=1 seek=100 conv=notrunc
expect_eq "$(stat -c %s "$MNT/d/g")" "32768" "a refused write leaves the size"
expect_fail as1000 fallocate -l 1048576 "$MNT/d/h"
expect_eq "$(stat -c %b "$MNT/d/h")" "0" "a refused fallocate maps nothing"
expect_eq "$(usage user 1000)" "blocks=20 inodes=4 bhard=20 ihard=0" "refused writes charge nothing"
expect_ok as1000 truncate -s 0 "$MNT/d/g"
expect_eq "$(usage user 1000)" "blocks=12 inodes=4 bhard=20 ihard=0" "truncate gives blocks back"

# inode hard limit 5: one more inode, then EDQUOT
expect_ok q set "$PMEM" user 1000 0 5
expect_ok as1000 touch "$MNT/d/i5"
expect_fail as1000 touch "$MNT/d/i6"
expect_fail as1000 mkdir "$MNT/d/dir6"
expect_eq "$(usage user 1000)" "blocks=12 inodes=5 bhard=0 ihard=5" "inode limit"
expect_ok q set "$PMEM" user 1000 0 0

# chown and chgrp move the usage; unlink gives it back
expect_ok chown 1001 "$MNT/d/f"
expect_eq "$(usage user 1000)" "blocks=1 inodes=4 bhard=0 ihard=0" "chown: the old owner"
expect_eq "$(usage user 1001)" "blocks=11 inodes=1 bhard=0 ihard=0" "chown: the new owner"
expect_ok chgrp 1001 "$MNT/d/f"
expect_eq "$(usage group 1001)" "blocks=11 inodes=1 bhard=0 ihard=0" "chgrp: the new group"
# a new group over its limit: EDQUOT, nothing moves (root ignores
# hard limits: the owner, a member of group 1002, changes it)
expect_ok q set "$PMEM" group 1002 5 0
expect_fail t_xattr asuser 1001 1002 chgrp 1002 "$MNT/d/f"
expect_eq "$(stat -c %g "$MNT/d/f")" "1001" "a refused chgrp keeps the group"
expect_eq "$(usage group 1002)" "blocks=0 inodes=0 bhard=5 ihard=0" "a refused chgrp charges nothing"
expect_eq "$(usage group 1001)" "blocks=11 inodes=1 bhard=0 ihard=0" "a refused chgrp leaves the usage"
expect_ok rm "$MNT/d/f"
expect_eq "$(usage user 1001)" "blocks=0 inodes=0 bhard=0 ihard=0" "unlink gives usage back"

# a quota file in use keeps its flags and project ID (EPERM, as ext4)
out=$(nova-fsctl nocow "$MNT/aquota.user" + 2>&1) &&
	fail "chattr +C of a quota file in use succeeded"
echo "$out" | grep -q "errno 1)" || fail "chattr +C of a quota file in use: not EPERM: $out"
out=$(nova-fsctl proj "$MNT/aquota.group" 7 2>&1) &&
	fail "chproj of a quota file in use succeeded"
echo "$out" | grep -q "errno 1)" || fail "chproj of a quota file in use: not EPERM: $out"
expect_eq "$(nova-fsctl nocow "$MNT/aquota.user")" "nocow=0" "the quota file keeps its flags"

# the usage and limits survive quotaoff, an unmount and quotaon
expect_ok q set "$PMEM" user 1000 100 50
before=$(usage user 1000)
expect_ok q off "$PMEM" user
expect_eq "$(q state "$PMEM" user)" "off" "quotaoff"
expect_ok q on "$PMEM" "$MNT/aquota.user" user
expect_eq "$(usage user 1000)" "$before" "after quotaoff and quotaon"
nova_umount
nova_mount "usrquota,grpquota"
quota_on
expect_eq "$(usage user 1000)" "$before" "after an unmount"

# a directory's log pages are its owner's, as ext4's directory blocks:
# names that need a new page are refused at the limit (EDQUOT), removals
# are not; usage is the sum of st_blocks
expect_ok as1000 mkdir "$MNT/d/dd"
expect_eq "$(stat -c %b "$MNT/d/dd")" "8" "a new directory: one log page"
expect_eq "$(usage user 1000)" "blocks=2 inodes=5 bhard=100 ihard=50" "a directory's page is charged"
expect_ok q set "$PMEM" user 1000 2 0
i=0
while [ $i -lt 200 ]; do
	out=$(as1000 touch "$MNT/d/dd/$(printf 'n%0200d' $i)" 2>&1) || break
	i=$((i + 1))
done
[ $i -gt 0 ] && [ $i -lt 200 ] || fail "names into a directory at its owner's limit: $i made"
echo "$out" | grep -qi "quota" || fail "not EDQUOT: $out"
expect_eq "$(stat -c %b "$MNT/d/dd")" "8" "the refused name took no page"
expect_ok as1000 rm "$MNT/d/dd/$(printf 'n%0200d' 0)"
expect_ok q set "$PMEM" user 1000 100 50
sum=0
for b in $(find "$MNT" -user 1000 -exec stat -c %b {} +); do
	sum=$((sum + b))
done
expect_eq "$(usage user 1000 | cut -d' ' -f1)" "blocks=$((sum / 8))" "usage is the sum of st_blocks"

# read-only and back with quotas on
expect_ok mount -o remount,ro "$MNT"
expect_fail touch "$MNT/d/ro"
expect_ok mount -o remount,rw "$MNT"
expect_eq "$(q state "$PMEM" user)" "on" "quotas on again after remount,rw"
expect_ok as1000 dd if=/dev/zero of="$MNT/d/rw" bs=4096 count=2
expect_eq "$(usage user 1000 | cut -d' ' -f1)" "blocks=$((sum / 8 + 2))" "charged after remount,rw"

# one block below the limit, a store through a 2 MiB-aligned shared
# mapping into a hole: the PMD fault, which falls back, charges nothing,
# the page fault one block (no SIGBUS)
expect_ok as1000 touch "$MNT/d/pmd"
b=$(usage user 1000 | sed 's/^blocks=\([0-9]*\) .*/\1/')
expect_ok q set "$PMEM" user 1000 $((b + 1)) 50
out=$(as1000 nova-fsctl pmdstore "$MNT/d/pmd" 2>&1) ||
	fail "a store through a mapping at one block below the limit: $out"
expect_eq "$out" "aligned=1 blocks=8 data=1048576" "a store through a mapping at one block below the limit"
expect_eq "$(usage user 1000 | cut -d' ' -f1)" "blocks=$((b + 1))" "one block charged for the store"
expect_ok rm "$MNT/d/pmd"
expect_ok q set "$PMEM" user 1000 100 50
nova_umount
expect_ok fsck.nova -n -f "$PMEM"
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
