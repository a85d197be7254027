#!/bin/sh
# write() and a store through a shared mapping into the same hole page,
# on disjoint bytes, at the same time (t_mmap_race): the write's
# copy-on-write commit must not drop the block that the write fault gave
# the page, with the stores made through it, nor free a block that is
# still mapped.  Races need two CPUs (the harness's default); 3000 pages
# lost a few percent of them before the fix.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] || info "one CPU: the race is unlikely"
for inplace in 0 1; do
	nova_format "inplace_data_updates=$inplace"
	dmesg_mark
	expect_ok t_mmap_race "$MNT" 3000
	nova_umount
	expect_no_dmesg "WARNING|BUG|Oops|Call Trace|NOVA error" "kernel log of the race"
done
