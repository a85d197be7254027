#!/bin/sh
# COLLAPSE_RANGE and INSERT_RANGE move the last page whole, EOF at the
# same offset in it: bytes that a store through a mapping left past EOF
# in the last page must not reappear past the new EOF (a mapping shows
# zeros there, POSIX; xfstests generic/363, fsx -e), in copy-on-write
# and in-place mode; the file data moves intact, fsck.nova is clean.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# past_eof_zero FILE: does a mapping of FILE show zeros from EOF to the
# end of its page?
past_eof_zero() {
	sz=$(stat -c %s "$1")
	n=$((4096 - sz % 4096))
	xfs_io -r -c "mmap -r $((sz - sz % 4096)) 4096" -c "mread -v $sz $n" "$1" \
		>/tmp/mread.out 2>&1 || fail "mread: $(cat /tmp/mread.out)"
	[ "$(grep -c . /tmp/mread.out)" -gt 0 ] || fail "mread printed nothing"
	! awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/ && $i != "00") bad = 1 }
		END { exit !bad }' /tmp/mread.out
}

# pollute FILE: store 0xee through a mapping from EOF (10000) to the end
# of the last page
pollute() {
	expect_ok xfs_io -c "mmap -w 8192 4096" -c "mwrite -S 0xee 10000 2288" \
		-c munmap "$1"
	past_eof_zero "$1" && fail "the store past EOF did not show through a mapping"
}

for mode in 0 1; do
	m="inplace_data_updates=$mode"
	nova_format "$m"
	for op in fcollapse finsert; do
		f=$MNT/$op
		expect_ok xfs_io -f -c "pwrite -S 0x5a 0 10000" "$f"
		pollute "$f"
		expect_ok xfs_io -c "$op 0 4096" "$f"
		case $op in
		fcollapse) size=5904 ;;
		finsert) size=14096 ;;
		esac
		expect_eq "$(stat -c %s "$f")" $size "$m: size after $op"
		past_eof_zero "$f" || fail "$m: bytes stored past EOF show past the new EOF after $op"
		# the data: 0x5a (after the inserted hole)
		skip=0
		[ $op = finsert ] && skip=4096
		dd if="$f" bs=1 skip=$skip 2>/dev/null | tr -d 'Z' | wc -c >/tmp/n
		expect_eq "$(cat /tmp/n)" 0 "$m: the data after $op"
	done
	nova_umount
	fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "$m: fsck.nova -fn"; }
done
rm -f /tmp/mread.out /tmp/n
