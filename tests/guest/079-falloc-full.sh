#!/bin/sh
# Writes into preallocated space do not fail for space (fallocate's
# promise; xfstests generic/274): a 64 KiB file with 8 MiB preallocated
# past EOF (KEEP_SIZE), the device then filled until ENOSPC (1 MiB, 4 KiB
# and O_SYNC writes), and the preallocated space written 64 KiB at a time,
# odd chunks first, then the holes between them: every write succeeds, in
# copy-on-write mode (which finds no block for a copy and writes those
# pages in place) and in place.  A write past the preallocated space
# still gets ENOSPC, one that straddles its end writes the preallocated
# part only.  Contents and size survive a remount, fsck.nova is clean.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

CH=65536
# the preallocated chunks: 1..128 (64 KiB to 8 MiB + 64 KiB)
LAST=128
expect_ok dd if=/dev/urandom of=/tmp/chunk bs=$CH count=1 2>/dev/null
# write_chunks FIRST: chunks FIRST, FIRST + 2, ... below LAST of $f
write_chunks() {
	i=$1
	while [ $i -lt $LAST ]; do
		dd if=/tmp/chunk of="$f" seek=$i bs=$CH count=1 conv=notrunc \
			2>/tmp/dd.err || fail "$m: write of chunk $i: $(cat /tmp/dd.err)"
		i=$((i + 2))
	done
}
for mode in 0 1; do
	m="inplace_data_updates=$mode"
	nova_make_partition 64
	expect_ok mount -t NOVA -o "init,$m" "$DEV" "$MNT"
	stats=/proc/fs/NOVA/${DEV##*/}/IO_stats
	[ -r "$stats" ] || fail "no $stats"
	f=$MNT/test
	expect_ok xfs_io -f -c "pwrite -S 0x11 0 64k" -c "falloc -k 64k 8m" "$f"
	expect_eq "$(stat -c %s "$f")" $CH "$m: size after falloc -k"
	dd if=/dev/zero of="$MNT/tmp1" bs=1M 2>/tmp/dd.err &&
		fail "$m: filling with 1 MiB writes did not end in ENOSPC"
	grep -q "No space left" /tmp/dd.err || fail "$m: fill: $(cat /tmp/dd.err)"
	dd if=/dev/zero of="$MNT/tmp2" bs=4K 2>/dev/null
	sync
	dd if=/dev/zero of="$MNT/tmp3" bs=4K oflag=sync 2>/dev/null
	expect_eq "$(nova_statfs bavail)" 0 "$m: free blocks after the fill"
	echo 1 >"$stats"
	write_chunks 1
	sync
	write_chunks 2
	# not preallocated: ENOSPC as before
	dd if=/tmp/chunk of="$f" seek=$((LAST + 8)) bs=$CH count=1 conv=notrunc \
		2>/tmp/dd.err && fail "$m: a write past the preallocated space succeeded"
	grep -q "No space left" /tmp/dd.err || fail "$m: write past: $(cat /tmp/dd.err)"
	# the last chunk and one past it: the preallocated half is written
	cat /tmp/chunk /tmp/chunk >/tmp/chunk2
	xfs_io -c "pwrite -i /tmp/chunk2 -b 131072 $((LAST * CH)) 131072" "$f" \
		>/tmp/xfs_io.out 2>&1
	info "$m: straddling write: $(tr '\n' ' ' </tmp/xfs_io.out)"
	size=$(((LAST + 1) * CH))
	expect_eq "$(stat -c %s "$f")" $size "$m: size after the straddling write"
	if [ $mode = 0 ]; then
		n=$(awk '$1 == "prealloc_inplace_pages" { print $2 }' "$stats")
		[ "${n:-0}" -gt 0 ] ||
			fail "$m: no page counted as written in place for lack of space"
		info "$m: $n pages written in place for lack of space"
	fi
	{
		dd if=/dev/zero bs=$CH count=1 2>/dev/null | tr '\0' '\021'
		i=1
		while [ $i -le $LAST ]; do
			cat /tmp/chunk
			i=$((i + 1))
		done
	} >/tmp/want
	expect_eq "$(md5sum <"$f")" "$(md5sum </tmp/want)" "$m: contents"
	expect_ok umount "$MNT"
	fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "$m: fsck.nova -fn"; }
	expect_ok mount -t NOVA "$DEV" "$MNT"
	expect_eq "$(stat -c %s "$f")" $size "$m: size after remount"
	expect_eq "$(md5sum <"$f")" "$(md5sum </tmp/want)" "$m: contents after remount"
	expect_ok rm -f "$MNT/tmp1" "$MNT/tmp2" "$MNT/tmp3"
	expect_ok umount "$MNT"
	nova_remove_partition
done
rm -f /tmp/chunk /tmp/chunk2 /tmp/want
