#!/bin/sh
# The recovery scan tells a directory removed while open (an orphan, to
# reclaim) by the last entry of its log: a link-change entry with link
# count 0.  Bytes that look like one but are not an entry of their own
# must not count.  An unprivileged owner sets a user.* attribute on a
# live directory whose 48-byte value is a well-formed link-change entry
# with links 0 and a valid checksum (t_xattr lcforge); its name makes the
# value end exactly at the log tail.  After a shutdown the next mount
# keeps the directory, its file and its attribute, reclaims nothing for
# it, and fsck.nova finds the file system clean.  The real orphans of the
# same shutdown are still reclaimed: a directory removed while open
# through a descriptor after a churn of names filled its log (its last
# entry ends a page of entries of many sizes), and one removed while it
# is the shell's working directory that had the forged value too.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

used_inodes() { echo $(($(nova_statfs files) - $(nova_statfs ffree))); }

nova_format noatime
used0=$(used_inodes)

# the victim: a live directory of user 1000, with a file
expect_ok mkdir "$MNT/victim"
echo x >"$MNT/victim/f" || fail "cannot write victim/f"
expect_ok chown 1000:1000 "$MNT/victim"
ino=$(stat -c %i "$MNT/victim")
expect_ok t_xattr asuser 1000 1000 t_xattr lcforge "$MNT/victim"
expect_eq "$(t_xattr size "$MNT/victim" user.abcdefghijklmnop)" "48" "the forged value is set"

# an orphan whose log was filled by names of many lengths first
expect_ok mkdir "$MNT/gone"
i=0
while [ $i -lt 80 ]; do
	n=$(printf "%0$((i % 37 + 1))d" "$i")
	touch "$MNT/gone/$n" || fail "cannot create gone/$n"
	[ $((i % 3)) = 0 ] || rm "$MNT/gone/$n" || fail "cannot remove gone/$n"
	i=$((i + 1))
done
expect_ok sh -c "rm $MNT/gone/*"
exec 4<"$MNT/gone" || fail "cannot open gone"
expect_ok rmdir "$MNT/gone"

# an orphan with the forged value before its removal: the working directory
expect_ok mkdir "$MNT/cwd"
expect_ok chown 1000:1000 "$MNT/cwd"
expect_ok t_xattr asuser 1000 1000 t_xattr lcforge "$MNT/cwd"
cd "$MNT/cwd" || fail "cannot cd to cwd"
expect_ok rmdir "$MNT/cwd"

expect_eq "$(used_inodes)" "$((used0 + 4))" "victim, victim/f and the two removed directories"
expect_ok nova-fsctl shutdown "$MNT" 2
cd / || fail "cannot cd /"
exec 4<&-
nova_umount
expect_ok fsck.nova -fn "$PMEM"

dmesg_mark
nova_mount noatime
expect_dmesg "recovery scan" "the mount after the shutdown scans"
expect_dmesg "reclaimed 2 unlinked inodes" "the two removed directories are reclaimed, not the victim"
expect_no_dmesg "free inode|corrupt|bad checksum" "no damage found"
expect_eq "$(used_inodes)" "$((used0 + 2))" "victim and victim/f in use after the recovery"
expect_eq "$(stat -c '%i %F %h %u' "$MNT/victim")" "$ino directory 2 1000" "the victim directory is kept"
expect_eq "$(ls "$MNT/victim")" "f" "the victim's names are kept"
expect_eq "$(cat "$MNT/victim/f")" "x" "the victim's file is kept"
expect_eq "$(t_xattr size "$MNT/victim" user.abcdefghijklmnop)" "48" "the forged value is kept"
expect_fail ls "$MNT/gone"
expect_fail ls "$MNT/cwd"
# new inodes, some in freed slots: the victim's name still is its own
i=0
while [ $i -lt 8 ]; do
	expect_ok mkdir "$MNT/new$i"
	i=$((i + 1))
done
expect_eq "$(stat -c '%i %F' "$MNT/victim")" "$ino directory" "the victim after new inodes"
expect_eq "$(cat "$MNT/victim/f")" "x" "the victim's file after new inodes"
nova_umount
fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the recovery"; }
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
