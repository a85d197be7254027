#!/bin/sh
# Bytes stored through a shared mapping past EOF (the last page is mapped
# whole) are not file data: every way of growing the file afterwards
# (truncate up, a write past EOF in the same page or beyond, fallocate,
# fallocate KEEP_SIZE then truncate) must show zeros between the old EOF
# and the new one, with the mapping still there and after munmap; in
# copy-on-write and in-place mode.  See tests/guest/src/t_eof_zero.c.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

for inplace in 0 1; do
	nova_format "inplace_data_updates=$inplace"
	out=$(t_eof_zero mmap "$MNT" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 0 ] || fail "inplace_data_updates=$inplace: stale bytes past the old EOF became file data"
	nova_umount
done
