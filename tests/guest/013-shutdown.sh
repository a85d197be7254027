#!/bin/sh
# FS_IOC_SHUTDOWN with each flag (0 default, 1 logflush, 2 nologflush):
# root only; afterwards reads, writes, creates, listings, attribute
# calls, fsync and remount fail with EIO, statfs and unmount work; the
# next mount recovers as after a power cut (recovery scan, the file
# unlinked while open is reclaimed), everything that was written before
# is there and fsck.nova finds the file system clean.  A read-only mount
# after a shutdown reclaims the orphan too (as ext4, when the device is
# writable): fsck.nova is clean after it (xfstests generic/417).  So is a
# directory removed while open and changed through its descriptor.  On a
# read-only device the orphan stays, and a remount read-write is refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

for flags in 0 1 2; do
	nova_format
	mkdir "$MNT/d"
	echo kept >"$MNT/d/f"
	dd if=/dev/urandom of="$MNT/big" bs=64k count=16 2>/dev/null
	sum=$(md5sum <"$MNT/big")
	expect_ok t_xattr set "$MNT/d/f" user.k v
	sync
	free0=$(nova_statfs bfree)
	big_ino=$(stat -c %i "$MNT/big")
	# a file unlinked while open: an orphan at the shutdown
	dd if=/dev/zero of="$MNT/orphan" bs=64k count=32 2>/dev/null
	exec 3<"$MNT/orphan"
	rm "$MNT/orphan"
	expect_eq "$(t_xattr asuser 1000 1000 nova-fsctl shutdown "$MNT" "$flags")" \
		"error FS_IOC_SHUTDOWN: Operation not permitted (errno 1)" "only root may shut down"
	dmesg_mark
	expect_ok nova-fsctl shutdown "$MNT" "$flags"
	expect_dmesg "NOVA \(pmem0\): shut down \(flags $flags\)" "the shutdown is logged"
	expect_eq "$(cat "$MNT/d/f" 2>&1)" "cat: can't open '$MNT/d/f': Input/output error" "flags $flags: open fails"
	expect_fail sh -c "echo x >$MNT/new"
	expect_fail mkdir "$MNT/newdir"
	expect_fail ls "$MNT/d"
	expect_fail touch "$MNT/d/f"
	expect_eq "$(t_xattr get "$MNT/d/f" user.k)" "EIO" "flags $flags: getxattr fails"
	expect_fail mount -o remount,ro "$MNT"
	# nor does a GC request write
	expect_fail sh -c "echo $big_ino > /proc/fs/NOVA/pmem0/gc"
	nova_statfs bfree >/dev/null || fail "statfs after a shutdown"
	exec 3<&-
	nova_umount
	expect_ok fsck.nova -fn "$PMEM"
	dmesg_mark
	nova_mount
	expect_dmesg "recovery scan" "flags $flags: the next mount recovers"
	expect_dmesg "reclaimed 1 unlinked inodes" "flags $flags: the orphan is reclaimed"
	expect_eq "$(cat "$MNT/d/f")" "kept" "flags $flags: a file after the shutdown"
	expect_eq "$(md5sum <"$MNT/big")" "$sum" "flags $flags: data after the shutdown"
	expect_eq "$(t_xattr get "$MNT/d/f" user.k)" "v" "flags $flags: an attribute after the shutdown"
	sync
	expect_eq "$(nova_statfs bfree)" "$free0" "flags $flags: the orphan's blocks are free again"
	nova_umount
done

# a file unlinked while open, a shutdown (nologflush), then the unmount:
# the next mount finds one orphan
orphan_then_shutdown() {
	dd if=/dev/zero of="$MNT/orphan" bs=64k count=8 2>/dev/null
	exec 3<"$MNT/orphan"
	rm "$MNT/orphan"
	expect_ok nova-fsctl shutdown "$MNT" 2
	exec 3<&-
	nova_umount
}

# A read-only mount after a shutdown recovers as ext4 does (journals and
# orphans, when the device is writable): an orphan left by the shutdown is
# reclaimed, so fsck.nova is clean after that mount, and after a remount
# read-write and more changes.
for how in ro ro-rw; do
	nova_format
	echo kept >"$MNT/f"
	orphan_then_shutdown
	dmesg_mark
	nova_mount ro
	expect_dmesg "reclaimed 1 unlinked inodes" "$how: a read-only mount reclaims the orphan"
	expect_eq "$(cat "$MNT/f")" "kept" "$how: a file after the shutdown"
	if [ "$how" = ro-rw ]; then
		expect_ok mount -o remount,rw "$MNT"
		dd if=/dev/urandom of="$MNT/new" bs=64k count=16 2>/dev/null
	fi
	nova_umount
	fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "$how: fsck.nova -fn after a read-only mount of a shut down file system"; }
	# the orphan is gone from pmem, not only from the read-only mount's view
	if grep "link count 0" /tmp/fsck.out; then
		fail "$how: the orphan is still in pmem after the read-only mount"
	fi
	if [ "$how" = ro ]; then
		dmesg_mark
		nova_mount
		expect_dmesg "recovery scan" "$how: the mount after a read-only one scans"
		expect_no_dmesg "reclaimed" "$how: nothing left to reclaim at the next mount"
		nova_umount
	fi
	expect_no_dmesg 'Oops|BUG|WARNING|general protection' "$how: no kernel errors"
done

# A directory removed while open and changed through its descriptor
# (fchmod, fsetxattr, fchown) when the file system goes down: the mount
# that recovers reclaims it like any orphan, its log pages too.
used_inodes() { echo $(($(nova_statfs files) - $(nova_statfs ffree))); }
# free blocks, plus the root directory's log pages (mkdir gives it its first)
free_blocks() { echo $(($(nova_statfs bfree) + $(t_gc loginfo "$MNT" | sed -n 's/^log_pages=//p'))); }
nova_format
used0=$(used_inodes)
free0=$(free_blocks)
expect_ok mkdir "$MNT/d"
expect_ok nova-fsctl deaddir "$MNT/d" "$MNT"
nova_umount
dmesg_mark
nova_mount
expect_dmesg "reclaimed 1 unlinked inodes" "the removed directory is reclaimed"
expect_eq "$(used_inodes)" "$used0" "inodes in use after recovering a removed directory"
expect_eq "$(free_blocks)" "$free0" "free blocks after recovering a removed directory"
nova_umount
fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after recovering a removed directory"; }
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"

# On a read-only device the mount cannot reclaim an orphan: it says so,
# and a remount read-write after the device became writable is refused
# (its blocks are free in DRAM but the inode still owns them in pmem);
# a fresh read-write mount reclaims it.
nova_format
orphan_then_shutdown
expect_ok blockdev --setro "$PMEM"
dmesg_mark
nova_mount ro
expect_dmesg "1 unlinked inodes left for a writable device" "a read-only device keeps the orphan"
expect_ok blockdev --setrw "$PMEM"
dmesg_mark
expect_fail mount -o remount,rw "$MNT"
expect_dmesg "NOVA.*unlinked inodes" "the refused remount says why"
nova_umount
dmesg_mark
nova_mount
expect_dmesg "reclaimed 1 unlinked inodes" "a read-write mount reclaims it"
nova_umount
fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the read-only device"; }
expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
