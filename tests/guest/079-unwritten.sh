#!/bin/sh
# Unwritten extents: fallocate's preallocated pages read as zeros and
# FIEMAP flags them UNWRITTEN (as ext4 and xfs do) until written: by
# write() (copy-on-write; in place, logged written and then written in
# its own block) or by a store through a shared mapping (the write fault
# logs them written, same blocks).  ZERO_RANGE makes whole pages
# unwritten; a partial zero range leaves an unwritten page as it is;
# collapse and insert range, punch hole, a thorough GC of the log,
# remount and fsck keep the flags.  The first fallocate sets the
# RO_COMPAT_UNWRITTEN feature; a module that lacks a RO_COMPAT feature
# mounts the file system read-only only.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# layout FILE: the file's blocks as runs of unwritten (u) and written
# (d) pages, whatever their physical blocks: "0-1u 2d 3-255u"
layout() {
	t_fiemap "$1" >/tmp/uw || fail "t_fiemap $1: $(cat /tmp/uw)"
	prev= start= end=
	while read -r lg ph ln fl; do
		if [ $((0x$fl & 0x800)) -ne 0 ]; then t=u; else t=d; fi
		b=$((lg / 4096))
		e=$(((lg + ln) / 4096 - 1))
		if [ "$t" = "$prev" ] && [ "$b" -eq $((end + 1)) ]; then
			end=$e
			continue
		fi
		[ -n "$prev" ] && printf '%s ' "$(run "$start" "$end" "$prev")"
		prev=$t start=$b end=$e
	done </tmp/uw
	[ -n "$prev" ] && printf '%s' "$(run "$start" "$end" "$prev")"
	echo
}
run() {
	if [ "$1" = "$2" ]; then echo "$1$3"; else echo "$1-$2$3"; fi
}
# phys FILE BLOCK: the device offset of file block BLOCK
phys() {
	t_fiemap "$1" $(($2 * 4096)) 4096 | cut -d' ' -f2
}
# zeros FILE BLOCK COUNT: do those blocks read as zeros?
zeros() {
	dd if="$1" bs=4096 skip="$2" count="$3" 2>/dev/null | cmp -s - /dev/zero -n $(($3 * 4096))
}

for mode in 0 1; do
	m="mode $mode"
	nova_format "inplace_data_updates=$mode"
	f=$MNT/f
	expect_ok xfs_io -f -c "falloc 0 1m" "$f"
	expect_eq "$(layout "$f")" "0-255u" "$m: a preallocated file is unwritten"
	zeros "$f" 0 256 || fail "$m: preallocated blocks do not read as zeros"
	expect_eq "$(stat -c %s "$f")" 1048576 "$m: falloc sets the size"
	echo 1 >/proc/sys/vm/drop_caches
	expect_eq "$(($(od -An -tu8 -j 120 -N 8 "$PMEM") & 1))" 1 "$m: RO_COMPAT_UNWRITTEN set"

	# write(): the written page becomes data, its neighbours stay; in
	# place it keeps its preallocated block
	p2=$(phys "$f" 2)
	expect_ok xfs_io -c "pwrite -S 0xab 8192 4096" "$f"
	expect_eq "$(layout "$f")" "0-1u 2d 3-255u" "$m: a write makes its page written"
	if [ "$mode" = 1 ]; then
		expect_eq "$(phys "$f" 2)" "$p2" "$m: in place into the preallocated block"
	else
		[ "$(phys "$f" 2)" != "$p2" ] || fail "$m: copy-on-write kept block $p2"
	fi
	# a partial write: the rest of the page reads as zeros
	expect_ok xfs_io -c "pwrite -S 0xcd 12388 100" "$f"
	expect_eq "$(layout "$f")" "0-1u 2-3d 4-255u" "$m: a partial write makes its page written"
	expect_eq "$(od -v -An -tx1 -j 12288 -N 100 "$f" | tr -d ' \n' | tr -d 0)" "" "$m: the head of the partial page is zeros"
	expect_eq "$(od -v -An -tx1 -j 12388 -N 1 "$f" | tr -d ' ')" "cd" "$m: the partial write's byte"

	# a store through a shared mapping: written, the block stays
	p5=$(phys "$f" 5)
	expect_ok xfs_io -c "mmap -w 20480 4096" -c "mwrite -S 0xee 20480 4096" -c "msync -s 20480 4096" "$f"
	expect_eq "$(layout "$f")" "0-1u 2-3d 4u 5d 6-255u" "$m: a write fault makes its page written"
	expect_eq "$(phys "$f" 5)" "$p5" "$m: the write fault keeps the preallocated block"
	# a read fault first (mapped read-only), then a store (pfn_mkwrite)
	expect_ok xfs_io -c "mmap -rw 28672 4096" -c "mread 28672 4096" -c "mwrite -S 0x77 28672 16" "$f"
	expect_eq "$(layout "$f")" "0-1u 2-3d 4u 5d 6u 7d 8-255u" "$m: read fault, then a store"
	expect_eq "$(od -v -An -tx1 -j 28672 -N 1 "$f" | tr -d ' ')" "77" "$m: the stored byte"
	zeros "$f" 8 248 || fail "$m: pages after the stores do not read as zeros"
	# a read fault alone changes nothing
	expect_ok xfs_io -c "mmap -r 40960 4096" -c "mread 40960 4096" "$f"
	expect_eq "$(layout "$f")" "0-1u 2-3d 4u 5d 6u 7d 8-255u" "$m: a read fault keeps the page unwritten"

	# ZERO_RANGE: whole pages unwritten, partial edges of written pages
	# zeroed as data, a partial range in an unwritten page changes nothing
	expect_ok xfs_io -c "fzero 8192 8192" "$f"
	expect_eq "$(layout "$f")" "0-4u 5d 6u 7d 8-255u" "$m: zero range over written pages"
	zeros "$f" 2 2 || fail "$m: zeroed pages do not read as zeros"
	expect_ok xfs_io -c "fzero 16484 100" -c "fzero 20580 100" -c "fzero 36964 100" "$f"
	expect_eq "$(layout "$f")" "0-4u 5d 6u 7d 8-255u" "$m: partial zero ranges"
	expect_eq "$(od -v -An -tx1 -j 20579 -N 2 "$f" | tr -d ' ')" "ee00" "$m: a partial zero range of a written page"

	# PUNCH_HOLE in an unwritten range; a KEEP_SIZE preallocation past
	# EOF, kept by a truncate up (generic/092)
	expect_ok xfs_io -c "fpunch 65536 8192" "$f"
	expect_eq "$(layout "$f")" "0-4u 5d 6u 7d 8-15u 18-255u" "$m: punched hole"
	expect_ok xfs_io -c "falloc -k 1m 64k" -c "truncate 1064960" "$f"
	expect_eq "$(layout "$f")" "0-4u 5d 6u 7d 8-15u 18-271u" "$m: KEEP_SIZE past EOF, truncate up"
	# a truncate to the size it has drops the blocks past EOF (ext4, xfs)
	expect_ok xfs_io -c "truncate 1064960" "$f"
	expect_eq "$(layout "$f")" "0-4u 5d 6u 7d 8-15u 18-259u" "$m: truncate to the same size"
	expect_eq "$(stat -c %s "$f")" 1064960 "$m: the size stays"
	expect_ok xfs_io -c "truncate 1m" "$f"
	expect_eq "$(layout "$f")" "0-4u 5d 6u 7d 8-15u 18-255u" "$m: truncate down frees past EOF"

	# collapse and insert range move the flags with the pages
	expect_ok xfs_io -c "fcollapse 0 8192" "$f"
	expect_eq "$(layout "$f")" "0-2u 3d 4u 5d 6-13u 16-253u" "$m: collapse range"
	expect_ok xfs_io -c "finsert 4096 8192" "$f"
	expect_eq "$(layout "$f")" "0u 3-4u 5d 6u 7d 8-15u 18-255u" "$m: insert range"
	zeros "$f" 0 5 || fail "$m: shifted unwritten pages do not read as zeros"
	expect_eq "$(od -v -An -tx1 -j 20480 -N 1 "$f" | tr -d ' ')" "ee" "$m: the mapped store moved with its page"

	# the flags survive a thorough GC, a remount and fsck
	before=$(layout "$f")
	runs=$(nova_gc_runs)
	echo "$(stat -c %i "$f")" >"/proc/fs/NOVA/${PMEM##*/}/gc"
	[ "$(nova_gc_runs)" -gt "$runs" ] || fail "$m: no thorough GC ran"
	expect_eq "$(layout "$f")" "$before" "$m: after a thorough GC"
	nova_umount
	expect_ok fsck.nova -fn "$PMEM"
	nova_mount "inplace_data_updates=$mode"
	expect_eq "$(layout "$f")" "$before" "$m: after a remount"
	# a write into a preallocated page of a file that stays mapped
	expect_ok xfs_io -c "mmap -r 0 1m" -c "pwrite -S 0x11 36864 4096" -c "mread 36864 4096" "$f"
	expect_eq "$(layout "$f")" "0u 3-4u 5d 6u 7d 8u 9d 10-15u 18-255u" "$m: write() to a mapped file"
	expect_eq "$(od -v -An -tx1 -j 36864 -N 1 "$f" | tr -d ' ')" "11" "$m: the written byte"
	nova_umount
	expect_ok fsck.nova -fn "$PMEM"
done

# A RO_COMPAT feature this module lacks: read-only mounts only
nova_format
nova_umount
expect_ok nova_fuzz feature "$PMEM" ro_compat 0x8000
# EROFS for read-write: mount(8) retries read-only, as for a
# write-protected device
dmesg_mark
nova_mount
expect_dmesg "unsupported read-only compatible features 0x8000: mount it read-only" "read-write refused"
expect_eq "$(awk -v m="$MNT" '$2 == m { print substr($4, 1, 3) }' /proc/mounts)" "ro," "mounted read-only"
expect_fail touch "$MNT/x"
dmesg_mark
expect_fail mount -o remount,rw "$MNT"
expect_dmesg "unsupported read-only compatible features 0x8000: it stays read-only" "remount rw refused"
nova_umount
