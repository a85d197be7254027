#!/bin/sh
# Boot 2 of run-errors-panic.sh: the image boot 1 panicked on records the
# error state (NOVA_STATE_ERROR) in its super block, which only fsck.nova
# clears; fsck finds the damage and repairs it.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

s=$(nova-debug "$PMEM" super | sed -n 's/^state 0x\([0-9a-f]*\).*/\1/p')
[ -n "$s" ] || fail "nova-debug shows no state"
expect_eq "$((0x$s & 2))" 2 "the error state was written before the panic"
rc=0
fsck.nova -n "$PMEM" >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 4 "fsck.nova -n finds the damage"
rc=0
fsck.nova -p "$PMEM" || rc=$?
[ "$rc" -eq 1 ] || [ "$rc" -eq 4 ] || fail "fsck.nova -p: exit $rc"
rc=0
fsck.nova -fy "$PMEM" >/dev/null 2>&1 || rc=$?
[ "$rc" -le 1 ] || fail "fsck.nova -fy: exit $rc"
expect_ok fsck.nova -fn "$PMEM"
nova_mount
expect_ok cat "$MNT/b" >/dev/null
nova_umount
