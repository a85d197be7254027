#!/bin/sh
# Blocks that a get_user_pages reference still pins are never freed
# (issue 20, finding 1).  t_dax_pin (tests/guest/src/t_dax_pin.c) pins a
# page of a mapped file by vmsplicing it into a pipe that nobody reads,
# then truncates the file to 0, punches the page or zeroes it: each must
# wait for the pin with nothing changed, fail with nothing changed when a
# signal ends the wait (no new size, no freed block: the pinned block
# never goes to another file), and complete once the pipe is read.  A
# truncate that frees no pinned page does not wait.  Then fsck.nova -fn
# must find the file system clean, and the kernel log no warning.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

for inplace in 0 1; do
	nova_format "inplace_data_updates=$inplace"
	dmesg_mark
	mode=cow
	[ "$inplace" = 0 ] || mode=inplace
	expect_ok t_dax_pin "$MNT" "$mode"
	nova_umount
	expect_no_dmesg "WARNING|BUG|Oops|Call Trace" "kernel log of t_dax_pin"
	fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after t_dax_pin"; }
done
