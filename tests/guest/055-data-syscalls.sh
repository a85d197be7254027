#!/bin/sh
# File data-path cases (tests/guest/src/t_data.c), each checking contents
# byte for byte against a reference buffer: read/write of 1 byte to 64 MiB,
# unaligned and overwriting writes, pread/pwrite, readv/writev, O_APPEND,
# O_DIRECT, holes, sparse files out to 8 TiB (and past 16 TiB), truncate,
# fallocate (default, KEEP_SIZE, PUNCH_HOLE, ZERO_RANGE), SEEK_DATA and
# SEEK_HOLE, fsync, st_blocks, mtime/ctime, and mmap (coherence with
# read/write, holes, MAP_PRIVATE, SIGBUS past EOF, MAP_SYNC, 4 MiB maps).
# Then RWF_NOWAIT (io_uring's inline path) as on ext4-DAX: reads work,
# writes need O_DIRECT (the VFS refuses others, EINVAL) and get EAGAIN
# only when they must first clear set-user-ID.
# Host runtime on tmpfs is about 1 s (~30-40 s under TCG).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
expect_ok mkdir "$MNT/d"
dmesg_mark
# streamed (not captured), so a hanging case still shows what ran before
{
	t_data "$MNT/d" 2>&1
	echo "t_data exit status $?"
} | tee /tmp/t_data.out
rc=$(sed -n 's/^t_data exit status //p' /tmp/t_data.out)
[ "$rc" = 0 ] || fail "t_data failed (rc=${rc:-?}): $(grep -c '^FAIL ' /tmp/t_data.out) failed cases"
n=$(grep -c '^PASS ' /tmp/t_data.out)
[ "$n" -ge 50 ] || fail "only $n cases passed"
# every passing case removes its files
left=$(ls -A "$MNT/d")
[ -z "$left" ] || fail "files left behind in $MNT/d: $left"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|NOVA.*(error|corrupt)' \
	"no kernel errors during t_data"
expect_ok rmdir "$MNT/d"

# RWF_NOWAIT (a review finding: EOPNOTSUPP, no FMODE_NOWAIT)
expect_ok dd if=/dev/zero of="$MNT/nw" bs=4096 count=2 2>/dev/null
expect_eq "$(nova-fsctl nowait "$MNT/nw")" "write=EINVAL read=4096" "RWF_NOWAIT read; write without O_DIRECT"
expect_eq "$(nova-fsctl nowait "$MNT/nw" direct)" "write=4096 read=4096 same=1" "RWF_NOWAIT write and read, O_DIRECT"
chmod 4777 "$MNT/nw"
expect_eq "$(t_xattr asuser 1000 1000 nova-fsctl nowait "$MNT/nw" direct)" "write=EAGAIN read=4096" \
	"RWF_NOWAIT write that must clear set-user-ID"
expect_eq "$(stat -c %a "$MNT/nw")" "4777" "set-user-ID kept by the refused write"
expect_ok t_xattr asuser 1000 1000 dd if=/dev/zero of="$MNT/nw" bs=4096 count=1 conv=notrunc
expect_eq "$(stat -c %a "$MNT/nw")" "777" "a write clears set-user-ID"
expect_eq "$(t_xattr asuser 1000 1000 nova-fsctl nowait "$MNT/nw" direct)" "write=4096 read=4096 same=1" \
	"RWF_NOWAIT once set-user-ID is gone"
rm "$MNT/nw"
nova_umount
# the file system mounts again after all that
nova_mount
nova_umount
