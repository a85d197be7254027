#!/bin/sh
# A truncate that shrinks a file into the middle of a page: the bytes
# past the new EOF in that page must be zeros in the state the truncate
# commits, not zeroed after it (a power cut in between left them on a
# device that is then mounted read-only, where a mapping shows them: the
# power-cut point CP_TRUNCATE_COMMITTED).  So the page moves to a new
# block, with zeros from EOF on, in the same commit as the size: its
# block changes, the bytes before EOF stay, a mapping and the device show
# zeros past EOF, nothing leaks (fsck.nova), in copy-on-write and in-place
# mode, after a remount too; on a full device the truncate still works.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# past_eof_zero FILE SIZE: does a mapping of FILE show zeros from SIZE to
# the end of its page?
past_eof_zero() {
	n=$((4096 - $2 % 4096))
	xfs_io -r -c "mmap -r 0 $(($2 - $2 % 4096 + 4096))" -c "mread -v $2 $n" "$1" \
		>/tmp/mread.out 2>&1 || fail "mread: $(cat /tmp/mread.out)"
	[ "$(grep -c . /tmp/mread.out)" -gt 0 ] || fail "mread printed nothing"
	! awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/ && $i != "00") bad = 1 }
		END { exit !bad }' /tmp/mread.out
}

for mode in 0 1; do
	m="inplace_data_updates=$mode"
	nova_format "$m"
	f=$MNT/f
	expect_ok xfs_io -f -c "pwrite -S 0x5a 0 12288" -c fsync "$f"
	old=$(t_fiemap -b "$f" 1)
	[ "${old:-0}" -gt 0 ] || fail "$m: no block for page 1: $old"
	expect_ok xfs_io -c "truncate 4196" "$f"
	new=$(t_fiemap -b "$f" 1)
	[ "${new:-0}" -gt 0 ] || fail "$m: no block for page 1 after the truncate: $new"
	[ "$new" != "$old" ] ||
		fail "$m: the page the new EOF falls in kept its block ($old): its zeros were not committed with the size"
	expect_eq "$(stat -c %s "$f")" 4196 "$m: size"
	dd if=/dev/zero bs=4196 count=1 2>/dev/null | tr '\0' 'Z' >/tmp/want
	cmp -s "$f" /tmp/want || fail "$m: bytes before EOF changed"
	past_eof_zero "$f" 4196 || fail "$m: a mapping shows non-zero bytes past EOF"
	dd if="$PMEM" bs=4096 skip="$new" count=1 2>/dev/null | tail -c 3996 |
		cmp -s - /dev/zero -n 3996 || fail "$m: the new block holds non-zero bytes past EOF"
	# a shrink to a page boundary or into a hole needs no block
	expect_ok xfs_io -c "truncate 4096" "$f"
	expect_eq "$(t_fiemap -b "$f" 1)" 0 "$m: page 1 after a truncate to 4096"
	expect_ok xfs_io -f -c "truncate 40000" -c "pwrite -S 0x5a 0 4096" \
		-c "truncate 20000" "$MNT/sparse"
	expect_eq "$(t_fiemap -b "$MNT/sparse" 4)" 0 "$m: a hole page after a truncate into it"
	expect_eq "$(stat -c '%s %b' "$MNT/sparse")" "20000 8" "$m: size and st_blocks after a truncate into a hole"
	nova_umount
	fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "$m: fsck.nova -fn"; }
	nova_mount
	cmp -s "$f" /tmp/want -n 4096 || fail "$m: contents after remount"
	expect_eq "$(stat -c %s "$f")" 4096 "$m: size after remount"
	nova_umount
done

# a full device: the shrink goes on (the new block may come from the
# deletion reserve, the old one is freed in the same step)
nova_make_partition 24
expect_ok mount -t NOVA -o init "$DEV" "$MNT"
expect_ok xfs_io -f -c "pwrite -S 0x5a 0 8192" -c fsync "$MNT/f"
dd if=/dev/zero of="$MNT/fill" bs=64K 2>/dev/null
dd if=/dev/zero of="$MNT/fill2" bs=4K 2>/dev/null
expect_eq "$(nova_statfs bavail)" 0 "free blocks after the fill"
old=$(t_fiemap -b "$MNT/f" 1)
expect_ok xfs_io -c "truncate 5000" "$MNT/f"
new=$(t_fiemap -b "$MNT/f" 1)
[ "${new:-0}" -gt 0 ] && [ "$new" != "$old" ] ||
	fail "full device: page 1 kept its block $old (now ${new:-none}): none from the reserve"
expect_eq "$(stat -c %s "$MNT/f")" 5000 "size after the truncate on a full device"
past_eof_zero "$MNT/f" 5000 || fail "full device: a mapping shows non-zero bytes past EOF"
expect_ok umount "$MNT"
fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "full device: fsck.nova -fn"; }
nova_remove_partition
rm -f /tmp/want /tmp/mread.out
