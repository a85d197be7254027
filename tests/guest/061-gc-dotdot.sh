#!/bin/sh
# A thorough GC of a directory log rewrites its ".." entry from the DRAM
# state: it must be the real parent for a directory made in this mount,
# one moved to another directory in this mount, and one read back from
# its log and then moved (fsck.nova checks every ".." after unmount).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

P=/proc/fs/NOVA/${PMEM##*/}
runs() { awk '$1 == "thorough_gc_runs" { print $2 }' "$P/gc"; }
gc() {	# gc PATH: one thorough GC of PATH's log, through the gc file
	_before=$(runs)
	expect_ok sh -c "echo $(stat -c %i "$1") > $P/gc"
	[ "$(runs)" -gt "$_before" ] || fail "no thorough GC of $1"
}
fsck_clean() {	# fsck_clean WHAT: fsck.nova -fn finds nothing
	_rc=0
	fsck.nova -fn "$PMEM" > /tmp/fsck.out 2>&1 || _rc=$?
	[ "$_rc" -eq 0 ] || { cat /tmp/fsck.out; fail "fsck.nova -fn $1: exit $_rc"; }
	grep -q "'\.\.'" /tmp/fsck.out && { cat /tmp/fsck.out; fail "fsck.nova: '..' $1"; }
	info "fsck.nova -fn $1: clean"
}

nova_format
expect_ok mkdir -p "$MNT/a/new/sub" "$MNT/b/moved"
expect_ok touch "$MNT/a/new/f" "$MNT/b/moved/g"
# made in this mount
gc "$MNT/a/new"
gc "$MNT/a/new/sub"
# moved to another directory in this mount
expect_ok mv "$MNT/b/moved" "$MNT/a/moved"
gc "$MNT/a/moved"
# the root (mkfs logs no ".." for it)
gc "$MNT"
nova_umount
fsck_clean "after GC of new and moved directories"

# read back from the log, then moved: the replayed ".." must follow
nova_mount
expect_ok mv "$MNT/a/moved" "$MNT/b/back"
expect_ok mv "$MNT/a/new/sub" "$MNT/sub-top"
gc "$MNT/b/back"
gc "$MNT/sub-top"
gc "$MNT/a/new"
expect_eq "$(ls "$MNT/b/back")" "g" "moved directory after GC"
expect_eq "$(cd "$MNT/sub-top/.." && pwd)" "$MNT" "'..' of sub-top"
nova_umount
fsck_clean "after GC of directories moved after a remount"
nova_mount
expect_eq "$(ls "$MNT/a/new")" "f" "a/new after remount"
expect_eq "$(ls "$MNT/b/back")" "g" "b/back after remount"
nova_umount
