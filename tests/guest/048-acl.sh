#!/bin/sh
# POSIX ACLs: on by default (acl), off with noacl; an access ACL grants
# and denies, and its mask is the group bits of the mode; a directory's
# default ACL is inherited by new files and directories (the umask does
# not apply then, and does without one); chmod rewrites the mask; a
# default ACL on a file is refused; everything holds after a remount,
# also the mode an ACL set after a later ACL or the ACL's removal
# superseded the entry that logged it.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

x() { t_xattr "$@"; }
as1000() { t_xattr asuser 1000 1000 "$@"; }
as1001() { t_xattr asuser 1001 1001 "$@"; }

nova_format
grep " $MNT " /proc/mounts | grep -q noacl && fail "acl is not the default"
umask 022
chmod 755 "$MNT"
f=$MNT/f
echo secret >"$f"
chmod 600 "$f"
expect_eq "$(as1000 cat "$f" 2>&1)" "cat: can't open '$f': Permission denied" "no ACL: uid 1000 denied"
expect_ok x setacl "$f" "u::rw-,u:1000:r--,g::---,m::r--,o::---"
expect_eq "$(x getacl "$f")" "u::rw-,u:1000:r--,g::---,m::r--,o::---" "the ACL reads back"
expect_eq "$(stat -c %a "$f")" "640" "mode's group bits are the mask"
expect_eq "$(as1000 cat "$f")" "secret" "uid 1000 may read"
expect_fail as1000 sh -c "echo x >>$f"
expect_eq "$(as1001 cat "$f" 2>&1)" "cat: can't open '$f': Permission denied" "uid 1001 denied"
expect_ok chmod 600 "$f"
expect_eq "$(x getacl "$f")" "u::rw-,u:1000:r--,g::---,m::---,o::---" "chmod rewrote the mask"
expect_eq "$(as1000 cat "$f" 2>&1)" "cat: can't open '$f': Permission denied" "the mask denies uid 1000"
expect_ok chmod 640 "$f"
expect_eq "$(as1000 cat "$f")" "secret" "the mask allows uid 1000 again"
expect_eq "$(x setacl "$f" "u::rwx,g::r-x,o::---" default)" "EACCES" "a default ACL on a file"

# default ACL inheritance
d=$MNT/d
mkdir "$d"
expect_ok x setacl "$d" "u::rwx,u:1000:rwx,g::r-x,m::rwx,o::---" default
umask 077
echo new >"$d/file"
mkdir "$d/sub"
umask 022
expect_eq "$(x getacl "$d/file")" "u::rw-,u:1000:rwx,g::r-x,m::rw-,o::---" "a new file's access ACL"
expect_eq "$(stat -c %a "$d/file")" "660" "the new file's mode (no umask)"
expect_eq "$(x getacl "$d/file" default)" "ENODATA" "a file has no default ACL"
expect_eq "$(x getacl "$d/sub" default)" "u::rwx,u:1000:rwx,g::r-x,m::rwx,o::---" "a new directory inherits the default ACL"
expect_eq "$(stat -c %a "$d/sub")" "770" "the new directory's mode"
expect_ok as1000 sh -c "echo byuser >$d/sub/x"
expect_eq "$(x getacl "$d/sub/x")" "u::rw-,u:1000:rwx,g::r-x,m::rw-,o::---" "a grandchild inherits"
echo plain >"$MNT/plain"
expect_eq "$(stat -c %a "$MNT/plain")" "644" "no default ACL: the umask applies"
expect_eq "$(x getacl "$MNT/plain")" "ENODATA" "no default ACL: no access ACL"
# an ACL equal to the mode is not stored
expect_ok x setacl "$MNT/plain" "u::rw-,g::r--,o::r--"
expect_eq "$(x getacl "$MNT/plain")" "ENODATA" "a minimal ACL becomes the mode"
expect_ok x setacl "$MNT/plain" "u::rwx,g::---,o::---"
expect_eq "$(stat -c %a "$MNT/plain")" "700" "a minimal ACL sets the mode"
# the mode an ACL set survives a later ACL that keeps it (the first
# entry dies when the second supersedes it)
echo m >"$MNT/moded"
chmod 644 "$MNT/moded"
expect_ok x setacl "$MNT/moded" "u::rw-,u:1000:r--,g::r--,m::rwx,o::---"
expect_eq "$(stat -c %a "$MNT/moded")" "670" "an ACL changed the mode"
expect_ok x setacl "$MNT/moded" "u::rw-,u:1000:rw-,g::r--,m::rwx,o::---"
expect_eq "$(stat -c %a "$MNT/moded")" "670" "a second ACL kept it"
# removing ACLs
expect_ok x rm "$d" system.posix_acl_default
expect_eq "$(x getacl "$d" default)" "ENODATA" "default ACL removed"

# the mode an access ACL set outlives the ACL's entry: a later ACL that
# keeps the mode, or the ACL's removal, supersedes the entry that logged it
k1=$MNT/keep1
k2=$MNT/keep2
: >"$k1"
: >"$k2"
chmod 600 "$k1" "$k2"
expect_ok x setacl "$k1" "u::rw-,u:1000:r--,g::---,m::r--,o::---"
expect_ok x setacl "$k1" "u::rw-,u:1000:r--,u:1001:r--,g::---,m::r--,o::---"
expect_ok x setacl "$k2" "u::rw-,u:1000:r--,g::---,m::r--,o::---"
expect_ok x rm "$k2" system.posix_acl_access
expect_eq "$(stat -c %a "$k1") $(stat -c %a "$k2")" "640 640" "modes set by ACLs"
nova_umount
nova_mount
expect_eq "$(stat -c %a "$k1")" "640" "after remount: the mode of an ACL whose entry a later ACL superseded"
expect_eq "$(stat -c %a "$k2")" "640" "after remount: the mode of an ACL since removed"
expect_eq "$(x getacl "$k1")" "u::rw-,u:1000:r--,u:1001:r--,g::---,m::r--,o::---" "the later ACL after remount"
expect_eq "$(x getacl "$k2")" "ENODATA" "the removed ACL after remount"

nova_umount
expect_ok fsck.nova -fn "$PMEM"
nova_mount
expect_eq "$(x getacl "$f")" "u::rw-,u:1000:r--,g::---,m::r--,o::---" "ACL after remount"
expect_eq "$(as1000 cat "$f")" "secret" "uid 1000 may read after remount"
expect_eq "$(as1001 cat "$f" 2>&1)" "cat: can't open '$f': Permission denied" "uid 1001 denied after remount"
expect_eq "$(x getacl "$d/sub" default)" "u::rwx,u:1000:rwx,g::r-x,m::rwx,o::---" "inherited default ACL after remount"
expect_eq "$(stat -c %a "$MNT/plain")" "700" "mode from an ACL after remount"
expect_eq "$(stat -c %a "$MNT/moded")" "670" "mode of a superseded ACL after remount"
nova_umount

# noacl: no ACLs, the umask applies
nova_mount noacl
grep " $MNT " /proc/mounts | grep -q noacl || fail "noacl not shown in /proc/mounts"
expect_eq "$(x setacl "$MNT/plain" "u::rw-,u:1000:r--,g::---,m::r--,o::---")" "EOPNOTSUPP" "noacl refuses ACLs"
umask 022
echo y >"$d/sub/noacl-file"
expect_eq "$(stat -c %a "$d/sub/noacl-file")" "644" "noacl: the umask applies"
expect_ok mount -o remount,acl "$MNT"
expect_eq "$(x getacl "$f")" "u::rw-,u:1000:r--,g::---,m::r--,o::---" "remount,acl brings them back"
nova_umount
