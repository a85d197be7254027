#!/bin/sh
# chattr +C (FS_NOCOW_FL, as btrfs): a file with the flag is written in
# place (an overwrite keeps its block), one without it copy-on-write (an
# overwrite moves to a new block); the flag survives a remount, clears
# again, and is inherited by new files and directories of a directory
# that has it; fsck.nova keeps it.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# the device offset of the file's first block
phys() {
	t_fiemap "$1" 0 4096 | cut -d' ' -f2
}
flag() {
	nova-fsctl nocow "$1"
}
overwrite() {
	expect_ok xfs_io -f -c "pwrite -S $2 0 4096" "$1"
}

nova_format
f=$MNT/f
overwrite "$f" 0x11
expect_eq "$(flag "$f")" "nocow=0" "a new file has no NOCOW flag"
b0=$(phys "$f")
overwrite "$f" 0x22
b1=$(phys "$f")
[ "$b0" != "$b1" ] || fail "copy-on-write: an overwrite kept block $b0"

expect_ok nova-fsctl nocow "$f" +
expect_eq "$(flag "$f")" "nocow=1" "chattr +C"
overwrite "$f" 0x33
expect_eq "$(phys "$f")" "$b1" "NOCOW: an overwrite stays in its block"
expect_eq "$(od -An -tx1 -N 1 "$f" | tr -d ' ')" "33" "the new data"

# inherited from a directory
d=$MNT/d
mkdir "$d"
expect_ok nova-fsctl nocow "$d" +
overwrite "$d/g" 0x44
mkdir "$d/sub"
expect_eq "$(flag "$d/g")" "nocow=1" "a new file inherits NOCOW"
expect_eq "$(flag "$d/sub")" "nocow=1" "a new directory inherits NOCOW"
g0=$(phys "$d/g")
overwrite "$d/g" 0x55
expect_eq "$(phys "$d/g")" "$g0" "the inherited flag writes in place"

nova_umount
nova_mount
expect_eq "$(flag "$f")" "nocow=1" "NOCOW after a remount"
expect_eq "$(flag "$d/g")" "nocow=1" "inherited NOCOW after a remount"
overwrite "$f" 0x66
expect_eq "$(phys "$f")" "$b1" "NOCOW after a remount: in place"

# cleared: copy-on-write again
expect_ok nova-fsctl nocow "$f" -
expect_eq "$(flag "$f")" "nocow=0" "chattr -C"
overwrite "$f" 0x77
[ "$(phys "$f")" != "$b1" ] || fail "after chattr -C an overwrite stayed in place"

nova_umount
expect_ok fsck.nova -n "$PMEM"
nova_mount
expect_eq "$(flag "$d/g")" "nocow=1" "NOCOW after fsck"
nova_umount
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
