#!/bin/sh
# Regressions found by the power-cut tests; fsck.nova -n -f must find the
# file system clean after a clean unmount, before and after a remount.
#
# 1. A thorough GC rewrites a directory's log from its DRAM state, ".."
#    included.  A directory made, or moved to another parent, since the
#    mount had no (or the old) parent in DRAM, so after a GC its ".." named
#    the directory itself (fsck: "directory N: '..' is inode N, should be
#    P").  Checked for a new directory, one moved by rename, the two of a
#    RENAME_EXCHANGE across parents, with GC by a log rewrite through /proc
#    and by the automatic GC of a churned directory.
# 2. fsck's log replay (libnova) cut a file's pages past EOF at every
#    setattr entry with a size, the kernel only at a shrink: blocks kept
#    past EOF by fallocate KEEP_SIZE, followed by a chmod or by a GC's
#    closing setattr entry, were free for fsck and in use for the kernel
#    (fsck: "clean-unmount snapshot unusable: ... free block(s) not
#    listed").
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

P=/proc/fs/NOVA/pmem0
gc_ino() { # PATH: thorough GC of the inode's log
	expect_ok sh -c "echo $(stat -c %i "$1") > $P/gc"
}

nova_format
expect_ok mkdir -p "$MNT/a/moved" "$MNT/b" "$MNT/x/ex1" "$MNT/y/ex2"
# after a remount the moved directories' parents come from log replay
nova_umount
nova_mount
expect_ok mkdir "$MNT/a/new"
expect_ok mv "$MNT/a/moved" "$MNT/b/moved"
# the names stay, the directories swap parents
expect_ok nova-fsctl exchange "$MNT/x/ex1" "$MNT/y/ex2"
# automatic GC: many creates and unlinks in a new directory
expect_ok mkdir "$MNT/a/churn"
runs0=$(nova_gc_runs)
nova_churn "$MNT/a/churn" 400
runs1=$(nova_gc_runs)
[ "$runs1" -gt "$runs0" ] || fail "no automatic thorough GC ($runs0 -> $runs1 runs)"
# blocks kept past EOF, then a chmod and a GC (both log a size)
expect_ok sh -c "echo hello > $MNT/keep"
expect_ok nova-fsctl keepsize "$MNT/keep" 0 65536
expect_ok chmod 600 "$MNT/keep"
gc_ino "$MNT/keep"
expect_eq "$(stat -c %s "$MNT/keep")" 6 "size after fallocate KEEP_SIZE"
for d in a/new b/moved x/ex1 y/ex2 a; do
	[ -d "$MNT/$d" ] || fail "$d missing"
	gc_ino "$MNT/$d"
done
free=$(nova_statfs bfree)
nova_umount
expect_ok fsck.nova -n -f "$PMEM"
nova_mount
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after a remount"
expect_eq "$(cat "$MNT/keep")" hello "keep after a remount"
for d in a/new b/moved x/ex1 y/ex2 a/churn; do
	expect_eq "$(stat -c %i "$MNT/$d/..")" "$(stat -c %i "$(dirname "$MNT/$d")")" "$d/.. after a remount"
	gc_ino "$MNT/$d"
done
nova_umount
expect_ok fsck.nova -n -f "$PMEM"
