#!/bin/sh
# fallocate of a range far larger than the device (up to the largest
# file, 16 TiB - 4 KiB, on 64 MiB): the default mode, KEEP_SIZE and
# ZERO_RANGE fail with ENOSPC at once, before anything is allocated or
# zeroed (fallocate is all or nothing: the blocks could never all be
# had), also over a file that has blocks already; free space, size,
# st_blocks and contents stay as they were, and no soft lockup or RCU
# stall is logged.  A range that fits still succeeds, and so does a
# 16 TiB PUNCH_HOLE (it allocates nothing).  See t_falloc.c.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# the largest file: 2^32 - 1 pages
HUGE=$(((4294967295) * 4096))
# seconds a call may take under TCG (the old code ran for hours)
BOUND=20

nova_make_partition 64
expect_ok mount -t NOVA -o init "$DEV" "$MNT"
expect_ok dd if=/dev/urandom of="$MNT/data" bs=4096 count=256 2>/dev/null
sum=$(md5sum <"$MNT/data")
# (made first: a new name may take a directory log page)
for mode in keep default zero zerokeep; do
	expect_ok touch "$MNT/new-$mode"
done
free0=$(nova_statfs bfree)
dmesg_mark
# falloc FILE MODE OFF LEN: must fail with ENOSPC within BOUND seconds
falloc_enospc() {
	out=$(t_falloc bounded "$1" "$2" "$3" "$4" $BOUND) ||
		fail "fallocate $2 $3+$4 of $1 did not return within $BOUND s: $out"
	info "fallocate $2 $3+$4 of $1: $out"
	case $out in
	"ret=ENOSPC "*) ;;
	*) fail "fallocate $2 $3+$4 of $1: $out, expected ENOSPC" ;;
	esac
	expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after fallocate $2 $3+$4 of $1"
}
for mode in keep default zero zerokeep; do
	falloc_enospc "$MNT/new-$mode" $mode 0 $HUGE
	expect_eq "$(stat -c '%s %b' "$MNT/new-$mode")" "0 0" "size and st_blocks after fallocate $mode"
done
# at an offset, and over a file with 256 pages of data
falloc_enospc "$MNT/new-keep" keep $((8 << 40)) $((HUGE - (8 << 40)))
for mode in keep default zero; do
	falloc_enospc "$MNT/data" $mode 0 $HUGE
	expect_eq "$(stat -c '%s %b' "$MNT/data")" "1048576 2048" "size and st_blocks of the file with data after fallocate $mode"
	expect_eq "$(md5sum <"$MNT/data")" "$sum" "contents after fallocate $mode"
done
# one that fits: 16 MiB
out=$(t_falloc bounded "$MNT/fits" default 0 16777216 $BOUND) || fail "fallocate of 16 MiB: $out"
expect_eq "${out%% *}" "ret=0" "fallocate of 16 MiB"
expect_eq "$(stat -c '%s %b' "$MNT/fits")" "16777216 32768" "size and st_blocks after fallocate of 16 MiB"
# PUNCH_HOLE allocates nothing: 16 TiB is fine
out=$(t_falloc bounded "$MNT/data" punch 0 $HUGE $BOUND) || fail "punch of 16 TiB: $out"
expect_eq "${out%% *}" "ret=0" "punch of 16 TiB"
expect_eq "$(stat -c '%s %b' "$MNT/data")" "1048576 0" "size and st_blocks after the punch of 16 TiB"
expect_no_dmesg 'soft lockup|rcu.*(stall|detected)|hung task|Oops|BUG|WARNING' "no lockup or kernel error"
expect_ok rm "$MNT/data" "$MNT/fits"
free1=$(nova_statfs bfree)
[ "$free1" -ge $((free0 + 256)) ] || fail "free blocks after removing the files: $free1, fewer than $free0 + 256"
expect_ok umount "$MNT"
fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the huge fallocates"; }
nova_remove_partition
