#!/bin/sh
# (debug module: tests/run-guest-tests.sh --debug-module)
# A removal may use the deletion reserve for its log pages (a full
# device must still let files be deleted), and only the removal: it set
# the victim's use_reserve before taking its log mutex, so another
# thread's append to that log in between (an fsync logging the times)
# took a reserve page too (a review finding).  inject=2 makes that
# fsync happen there: on a full device, with the victim's log page full,
# its append must fail with ENOSPC, and the removal must succeed.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

param=/sys/module/nova/parameters/inject
[ -w "$param" ] || fail "no $param: this test needs the debug module (--debug-module)"

nova_make_partition 32
expect_ok mount -t NOVA -o init,strictatime "$DEV" "$MNT"
# v: 63 one-page write entries, 64 bytes each: its first log page is full
nova_page_writes "$MNT/v" 63
ino=$(stat -c %i "$MNT/v")
expect_eq "$(t_gc loginfo "$MNT/v" | sed -n 's/^log_pages=//p')" 1 "v's log pages"
# the device full: only the deletion reserve is left
dd if=/dev/zero of="$MNT/fill" bs=1M 2>/dev/null && fail "filling the device did not end with ENOSPC"
# v's times to log: its atime (strictatime), kept in DRAM
cat "$MNT/v" >/dev/null
dmesg_mark
echo 2 >"$param"
expect_ok rm "$MNT/v"
echo 0 >"$param"
expect_dmesg "inject: logging the times of inode $ino during its removal: " "the fsync ran during the removal"
expect_dmesg "inject: logging the times of inode $ino during its removal: -28$" \
	"the fsync's append took no page of the deletion reserve (ENOSPC)"
[ ! -e "$MNT/v" ] || fail "v is still there"
expect_ok rm "$MNT/fill"
expect_ok umount "$MNT"
expect_ok fsck.nova -fn "$DEV"
nova_remove_partition
expect_no_dmesg "NOVA error|Oops|BUG|WARNING|general protection" "no kernel errors"
