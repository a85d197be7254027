#!/bin/sh
# A clone or dedupe that waits for a pinned page of its destination range
# drops the invalidate lock; a fault may map a page of the source range
# meanwhile.  The clone must unmap both ranges again before it shares
# their blocks (a writable mapping of a shared block changes the other
# file), and a dedupe must compare after that (else it shares data it
# never compared).  t_clone_pin (tests/guest/src/t_clone_pin.c): one file
# and two, copy-on-write and in-place mode; then fsck.nova -fn must find
# the file system clean, and the kernel log no warning.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

for inplace in 0 1; do
	nova_format "inplace_data_updates=$inplace"
	dmesg_mark
	expect_ok t_clone_pin "$MNT"
	nova_umount
	expect_no_dmesg "WARNING|BUG|Oops|Call Trace|lockdep" "kernel log of t_clone_pin"
	fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after t_clone_pin"; }
done
