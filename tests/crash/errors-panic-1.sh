#!/bin/sh
# Boot 1 of run-errors-panic.sh: a file whose data block is another file's
# log page (as 071-double-claim); mounted with errors=panic, opening it is
# an error (EUCLEAN, nova_error()) and panics the guest.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

state() {
	nova-debug "$PMEM" super | sed -n 's/^state 0x\([0-9a-f]*\).*/\1/p'
}

nova_format
expect_ok dd if=/dev/urandom of="$MNT/b" bs=4096 count=4 2>/dev/null
expect_ok dd if=/dev/urandom of="$MNT/a" bs=4096 count=1 2>/dev/null
ia=$(stat -c %i "$MNT/a")
ib=$(stat -c %i "$MNT/b")
nova_umount
give_log_page "$ia" "$ib"

nova_mount errors=panic
expect_ok cat "$MNT/b" >/dev/null
expect_ok blockdev --flushbufs "$PMEM"
s=$(state)
[ -n "$s" ] || fail "nova-debug shows no state"
expect_eq "$((0x$s & 2))" 0 "no error state before the error"
echo "NOVA-PANIC-ARMED"
# nova_error() -> panic: nothing after this line runs
cat "$MNT/a" >/dev/null 2>&1
fail "opening a file with a doubly claimed block did not panic (errors=panic)"
