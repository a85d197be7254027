#!/bin/sh
# FIEMAP (FS_IOC_FIEMAP, filefrag, xfs_io fiemap): the file's blocks as
# extents, holes left out, the last one flagged; every extent's physical
# range on the device holds the file's bytes; range queries, the count
# mode, copy-on-write moves, preallocation, remount; FIBMAP agrees.
# FIEMAP_FLAG_XATTR (xfs_io fiemap -a): the extended attributes' log
# entries.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# check_extents FILE: each extent's bytes on $PMEM equal the file's, only
# the last extent has a flag (LAST, 1); prints the logical blocks covered.
check_extents() {
	t_fiemap "$1" >/tmp/fm || fail "t_fiemap $1: $(cat /tmp/fm)"
	# DAX stores bypass the block device's page cache, which read-ahead of
	# an earlier check may have filled: read the device afresh
	echo 1 >/proc/sys/vm/drop_caches
	n=$(wc -l </tmp/fm)
	i=0
	while read -r lg ph ln fl; do
		i=$((i + 1))
		if [ "$i" -eq "$n" ]; then want=1; else want=0; fi
		# preallocated blocks are also UNWRITTEN (0x800: 079-unwritten)
		[ $((0x$fl & ~0x800)) = "$want" ] || fail "$1: extent $i of $n has flags $fl"
		dd if="$PMEM" bs=4096 skip=$((ph / 4096)) count=$((ln / 4096)) 2>/dev/null >/tmp/fm-dev
		dd if="$1" bs=4096 skip=$((lg / 4096)) count=$((ln / 4096)) 2>/dev/null >/tmp/fm-file
		cmp -s /tmp/fm-dev /tmp/fm-file || fail "$1: extent $i ($lg $ph $ln): device bytes differ from the file's"
		b=$((lg / 4096))
		while [ "$b" -lt $(((lg + ln) / 4096)) ]; do
			echo "$b"
			b=$((b + 1))
		done
	done </tmp/fm
}

for mode in 0 1; do
	nova_format "inplace_data_updates=$mode"
	f=$MNT/f
	: >"$f"
	expect_eq "$(t_fiemap "$f")" "" "mode $mode: an empty file has no extent"
	dd if=/dev/urandom of="$f" bs=4096 count=2 2>/dev/null
	dd if=/dev/urandom of="$f" bs=4096 seek=10 count=1 conv=notrunc 2>/dev/null
	expect_eq "$(check_extents "$f" | tr '\n' ' ')" "0 1 10 " "mode $mode: blocks 0, 1 and 10 mapped, the hole not"
	# FIBMAP (filefrag -B, generic/519) agrees with FIEMAP; a hole is 0
	for b in 0 1 10; do
		set -- $(t_fiemap "$f" $((b * 4096)) 4096)
		expect_eq "$(t_fiemap -b "$f" "$b")" "$((($2 + b * 4096 - $1) / 4096))" \
			"mode $mode: FIBMAP of block $b"
	done
	expect_eq "$(t_fiemap -b "$f" 5)" "0" "mode $mode: FIBMAP of a hole"
	# a range that holds only block 10; one that ends in the hole
	set -- $(t_fiemap "$f" 40960 4096)
	expect_eq "$1 $3 $4" "40960 4096 1" "mode $mode: range query of block 10"
	expect_eq "$(t_fiemap "$f" 0 4096 | cut -d' ' -f1)" "0" "mode $mode: range query of block 0"
	expect_eq "$(t_fiemap "$f" 12288 8192)" "" "mode $mode: a range inside the hole"
	expect_eq "$(t_fiemap "$f" 0 1099511627776 0)" "count $(t_fiemap "$f" | wc -l)" "mode $mode: count mode"
	# one extent per call: the caller walks them all
	expect_eq "$(t_fiemap "$f" 0 1099511627776 1)" "$(t_fiemap "$f")" "mode $mode: one extent per call"
	# an overwrite (copy-on-write in mode 0 moves the block)
	old=$(t_fiemap "$f" 0 4096 | cut -d' ' -f2)
	dd if=/dev/urandom of="$f" bs=4096 count=1 conv=notrunc 2>/dev/null
	new=$(t_fiemap "$f" 0 4096 | cut -d' ' -f2)
	if [ "$mode" = 0 ]; then
		[ "$old" != "$new" ] || fail "copy-on-write: block 0 did not move ($old)"
	else
		expect_eq "$new" "$old" "in place: block 0 stays"
	fi
	expect_eq "$(check_extents "$f" | tr '\n' ' ')" "0 1 10 " "mode $mode: after the overwrite"
	# 1 MiB in one write: few extents
	dd if=/dev/urandom of="$MNT/big" bs=1M count=1 2>/dev/null
	n=$(check_extents "$MNT/big" | wc -l)
	expect_eq "$n" 256 "mode $mode: 1 MiB file: 256 blocks mapped"
	[ "$(t_fiemap "$MNT/big" | wc -l)" -le 4 ] || fail "mode $mode: 1 MiB in one write spread over $(t_fiemap "$MNT/big" | wc -l) extents"
	# preallocated (zeroed) blocks are mapped too; the hole before them not
	expect_ok fallocate -o 65536 -l 8192 "$f"
	expect_eq "$(check_extents "$f" | tr '\n' ' ')" "0 1 10 16 17 " "mode $mode: preallocated blocks"
	# after a remount: the same extents
	t_fiemap "$f" >/tmp/fm-before
	nova_umount
	nova_mount "inplace_data_updates=$mode"
	expect_eq "$(t_fiemap "$f")" "$(cat /tmp/fm-before)" "mode $mode: the same extents after a remount"
	# directories have no FIEMAP (no data blocks)
	expect_eq "$(t_fiemap "$MNT")" "t_fiemap: FS_IOC_FIEMAP: EOPNOTSUPP" "mode $mode: directory"
	nova_umount
done

# FIEMAP_FLAG_XATTR: each extent holds attribute entries (their names are
# on the device there), flagged DATA_INLINE and NOT_ALIGNED (0x300), the
# last one also LAST; none without attributes; the same after a remount.
nova_format
f=$MNT/x
: >"$f"
expect_eq "$(t_fiemap -a "$f")" "" "xattr: none without attributes"
expect_ok t_xattr set "$f" user.fiemapname1 small
expect_ok t_xattr fill "$f" user.fiemapname2 9000 7
t_fiemap -a "$f" >/tmp/fa || fail "t_fiemap -a: $(cat /tmp/fa)"
echo 1 >/proc/sys/vm/drop_caches
n=$(wc -l </tmp/fa)
[ "$n" -ge 1 ] || fail "xattr: no extent for two attributes"
i=0
total=0
: >/tmp/fa-dev
while read -r lg ph ln fl; do
	i=$((i + 1))
	if [ "$i" -eq "$n" ]; then want=301; else want=300; fi
	expect_eq "$fl" "$want" "xattr: flags of extent $i of $n"
	expect_eq "$lg" "$total" "xattr: extent $i follows the one before"
	dd if="$PMEM" bs=1 skip="$ph" count="$ln" 2>/dev/null >>/tmp/fa-dev
	total=$((total + ln))
done </tmp/fa
[ "$total" -ge 9000 ] || fail "xattr: $total bytes mapped for a 9000-byte value"
for a in fiemapname1 fiemapname2; do
	grep -q "$a" /tmp/fa-dev || fail "xattr: the name $a is not in the mapped bytes"
done
expect_eq "$(t_fiemap "$f")" "" "xattr: the data mapping stays empty"
nova_umount
nova_mount
expect_eq "$(t_fiemap -a "$f")" "$(cat /tmp/fa)" "xattr: the same extents after a remount"
expect_ok t_xattr rm "$f" user.fiemapname1
expect_ok t_xattr rm "$f" user.fiemapname2
expect_eq "$(t_fiemap -a "$f")" "" "xattr: none once removed"
nova_umount
