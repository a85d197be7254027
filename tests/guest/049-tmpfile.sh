#!/bin/sh
# O_TMPFILE: an unnamed file takes space while open and gives it all back
# at close; linkat() names it (data and attributes kept, across a
# remount); the directory's default ACL and the umask shape its mode; a
# read-only mount refuses it.  (A tmpfile open at a power cut is reclaimed
# at recovery: tests/crash/run-tmpfile.sh.)
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
sync
free0=$(nova_statfs bfree)
# open, 8 MiB written, closed without a name: all of it comes back
expect_eq "$(t_tmpfile -s 8388608 "$MNT")" "nlink 0 mode 600" "an unnamed file"
sync
expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after closing a tmpfile"
expect_eq "$(ls -A "$MNT")" "" "no name left behind"
# held open: the space is in use meanwhile (ls above may have logged
# the root's atime: measure afresh)
sync
free0=$(nova_statfs bfree)
t_tmpfile -s 8388608 -w 3 "$MNT" >/tmp/held &
sleep 2
used=$((free0 - $(nova_statfs bfree)))
[ "$used" -ge 2048 ] || fail "an open 8 MiB tmpfile uses $used blocks"
wait
sync
expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after the held tmpfile closed"

# linked: a normal file
mkdir "$MNT/d"
expect_eq "$(t_tmpfile -s 100000 -x user.k=v -l "$MNT/d/named" "$MNT/d" | tr '\n' ' ')" \
	"nlink 0 mode 600 nlink 1 " "linkat gives it a name"
expect_eq "$(stat -c '%s %h %a' "$MNT/d/named")" "100000 1 600" "the linked file"
expect_eq "$(t_xattr get "$MNT/d/named" user.k)" "v" "its attribute"
head -c 26 "$MNT/d/named" >/tmp/h
expect_eq "$(cat /tmp/h)" "abcdefghijklmnopqrstuvwxyz" "its data"
# umask and default ACL
umask 027
expect_eq "$(t_tmpfile -m 0666 "$MNT")" "nlink 0 mode 640" "the umask applies"
umask 022
expect_ok t_xattr setacl "$MNT/d" "u::rwx,u:1000:rwx,g::r-x,m::rwx,o::---" default
expect_ok t_tmpfile -m 0666 -l "$MNT/d/acl" "$MNT/d"
expect_eq "$(t_xattr getacl "$MNT/d/acl")" "u::rw-,u:1000:rwx,g::r-x,m::rw-,o::---" "a tmpfile inherits the default ACL"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
nova_mount
expect_eq "$(stat -c '%s %h' "$MNT/d/named")" "100000 1" "the linked tmpfile after a remount"
expect_eq "$(t_xattr get "$MNT/d/named" user.k)" "v" "its attribute after a remount"
expect_eq "$(t_xattr getacl "$MNT/d/acl")" "u::rw-,u:1000:rwx,g::r-x,m::rw-,o::---" "the inherited ACL after a remount"
expect_ok mount -o remount,ro "$MNT"
expect_eq "$(t_tmpfile "$MNT")" "open O_TMPFILE: Read-only file system" "a read-only mount refuses O_TMPFILE"
nova_umount
