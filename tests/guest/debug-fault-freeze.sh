#!/bin/sh
# (debug module: tests/run-guest-tests.sh --debug-module)
# A read fault on a shared page copies it (a change of the file system),
# so it runs under freeze protection (sb_start_pagefault) when the file
# system has shared blocks.  A read fault that started before the first
# clone found none and took no protection; if a clone then shared its
# file's blocks and a freeze completed before it took its invalidate
# lock, it copied the page while the file system was frozen (a review
# finding).  inject=3 (NOVA_INJECT_FAULT_FREEZE) holds such a fault until
# the freeze is complete; the fault must wait for the thaw.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

param=/sys/module/nova/parameters/inject
[ -w "$param" ] || fail "no $param: this test needs the debug module (--debug-module)"
P=/proc/fs/NOVA/pmem0
unshares() { awk '$1 == "unshares" { print $2 }' "$P/IO_stats"; }

nova_format
expect_ok dd if=/dev/urandom of="$MNT/a" bs=4096 count=4 2>/dev/null
want=$(od -An -tx1 -j4096 -N1 "$MNT/a" | tr -d ' ')
sync
u0=$(unshares)
rm -f /tmp/fault.out
dmesg_mark
echo 3 >"$param"
# the read fault: held before its invalidate lock until the freeze
xfs_io -r -c "mmap -r 0 16384" -c "mread -v 4096 16" "$MNT/a" >/tmp/fault.out 2>&1 &
reader=$!
sleep 1
out=$(xfs_io -f -c "reflink $MNT/a" "$MNT/b" 2>&1) || fail "reflink: $out"
expect_ok nova-fsctl freeze "$MNT"
i=0
until dmesg_since_mark | grep -q "inject: a read fault of inode [0-9]* waited for a freeze: frozen"; do
	i=$((i + 1))
	[ "$i" -le 100 ] || fail "the read fault did not reach its injection point"
	sleep 0.2
done
echo 1 >/proc/sys/vm/drop_caches
before=$(md5sum <"$PMEM")
sleep 3
kill -0 "$reader" 2>/dev/null || fail "the read fault of a shared page went on while frozen: $(cat /tmp/fault.out)"
expect_eq "$(unshares)" "$u0" "no copy of a shared page while frozen"
echo 1 >/proc/sys/vm/drop_caches
expect_eq "$(md5sum <"$PMEM")" "$before" "the device did not change while frozen"
expect_ok nova-fsctl thaw "$MNT"
wait "$reader" || fail "the read fault after the thaw: $(cat /tmp/fault.out)"
echo 0 >"$param"
expect_eq "$(head -1 /tmp/fault.out | awk '{ print $2 }')" "$want" "the read through the mapping after the thaw"
expect_eq "$(($(unshares) - u0))" 1 "the fault's copy after the thaw"
expect_eq "$(sum "$MNT/b")" "$(sum "$MNT/a")" "the clone reads as its source"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
expect_no_dmesg "NOVA error|Oops|BUG|WARNING|general protection" "no kernel errors"
