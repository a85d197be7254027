#!/bin/sh
# Regression test for the stale DAX entry fixed in 523d3b7 (nova_fuzz hit
# the same WARNING on the module before that commit):
# a copy-on-write write to a file that was mmapped earlier leaves the old
# block's DAX entry in the file's mapping; when the freed block is reused
# by another file that is then mmapped, the kernel warns in
# dax_associate_entry() (fs/dax.c).  See tests/guest/src/t_dax_stale.c.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
dmesg_mark
expect_ok t_dax_stale "$MNT"
nova_umount
expect_no_dmesg "WARNING|BUG|Oops|Call Trace" "kernel log of the reproducer"
