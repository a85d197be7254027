#!/bin/sh
# Timestamps at and beyond the limits of the format (signed 64-bit
# nanoseconds) read back after umount and mount exactly as stat showed them
# before: the VFS clamps to the super block's range, and every value in that
# range must survive the conversion to nanoseconds (xfstests generic/402).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
# name: atime sec nsec, mtime sec nsec
set -- \
	"min-max-ns  -9223372035 999999999  9223372035 999999999" \
	"beyond      -9223372037 5  9223372037 5" \
	"s64-limit   -9223372036 1  9223372036 999999999" \
	"ordinary    1000000000 123456789  -1 999999999"
for c in "$@"; do
	# shellcheck disable=SC2086 # word splitting intended
	set -- $c
	: >"$MNT/$1"
	expect_ok t_tree utime "$MNT/$1" "$2" "$3" "$4" "$5"
	t_tree times "$MNT/$1" >"/tmp/time-$1" || fail "times $1"
	info "$1: $(cat "/tmp/time-$1")"
done
expect_eq "$(cat /tmp/time-ordinary)" "1000000000.123456789 -1.999999999" "ordinary times kept"
# beyond the range: clamped to it, nanoseconds 0 (as on ext4 and xfs)
expect_eq "$(cat /tmp/time-beyond)" "$(cat /tmp/time-s64-limit | sed 's/\.[0-9]*/.000000000/g')" \
	"beyond the range: clamped like the 64-bit limit"
nova_umount
nova_mount
for f in min-max-ns beyond s64-limit ordinary; do
	expect_eq "$(t_tree times "$MNT/$f")" "$(cat "/tmp/time-$f")" "$f: the same after remount"
done
nova_umount
