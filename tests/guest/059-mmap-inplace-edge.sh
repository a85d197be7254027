#!/bin/sh
# A write to a mapped file goes in place where a page has a block and
# copies a hole page on write; when in-place bytes follow the copied page
# and end inside a page, a write fault that gives the hole page a block
# before the write commits must not make the commit refill the copied
# page from that block (t_inplace_edge: userfaultfd holds the write
# inside its in-place copy while the fault happens).  Before the fix the
# write returned success and page 1 kept only its first 100 bytes.
# Default mount (in place because the file is mapped) and
# inplace_data_updates=1; the bytes also after a remount.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

P=/proc/fs/NOVA/${PMEM##*/}
for inplace in 0 1; do
	nova_format "inplace_data_updates=$inplace"
	echo 1 > "$P/IO_stats"
	dmesg_mark
	expect_ok t_inplace_edge run "$MNT"
	n=$(awk '$1 == "fault_allocs" { print $2 }' "$P/IO_stats")
	expect_eq "$n" 1 "inplace_data_updates=$inplace: the store gave the hole page a block during the write"
	nova_umount
	nova_mount
	expect_ok t_inplace_edge check "$MNT"
	nova_umount
	expect_ok fsck.nova -fn "$PMEM"
	expect_no_dmesg "WARNING|BUG|Oops|Call Trace|NOVA error" "kernel log (inplace_data_updates=$inplace)"
done
