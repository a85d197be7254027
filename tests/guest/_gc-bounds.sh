#!/bin/sh
# Log GC bounds under long overwrite and append/truncate runs (sourced by
# 061-gc-bounds.sh and by the script that make gc-test generates; not a
# test by itself).
#   GC_WRITES  4 KiB writes at random offsets in a 64 KiB file (default 100000)
#   GC_OPS     appends / truncates of a second file (default 20000)
# In copy-on-write and in in-place mode (mount option): t_gc samples the
# file's log (NOVA_IOC_LOG_INFO) and statfs while it runs - log pages
# within the kernel's GC limit and within the test's own bound (2 x the
# pages the live entries need + 1), used space = data + that log -
# and compares the file with its in-memory model; the files must equal
# the models again after a remount.  Meanwhile every /proc/fs/NOVA file
# is read in a loop.  In place, a write's new mtime must survive a remount
# (it is logged at writeback, not per write).  The kernel log must have no
# warning and no NOVA error.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

GC_WRITES=${GC_WRITES:-100000}
GC_OPS=${GC_OPS:-20000}
P=/proc/fs/NOVA/pmem0
BAD='Oops|BUG|WARNING|general protection|Call Trace|NOVA error|NOVA.*corrupt'

for mode in cow inplace; do
	opts=
	[ $mode = inplace ] && opts=inplace_data_updates=1
	dmesg_mark
	nova_format "$opts"
	echo 1 > "$P/IO_stats"
	# /proc readers while the workload runs
	rm -f /tmp/gc-stop /tmp/gc-reads
	(
		n=0
		while [ ! -e /tmp/gc-stop ]; do
			cat "$P/timing_stats" "$P/IO_stats" "$P/allocator" "$P/gc" \
				>/dev/null || exit 1
			n=$((n + 1))
		done
		echo $n > /tmp/gc-reads
	) &
	reader=$!
	start=$(cut -d. -f1 /proc/uptime)
	expect_ok t_gc overwrite "$MNT/hot" "$GC_WRITES" 65536 100 /tmp/hot.model
	mid=$(cut -d. -f1 /proc/uptime)
	expect_ok t_gc appendtrunc "$MNT/at" "$GC_OPS" 1048576 10 /tmp/at.model
	end=$(cut -d. -f1 /proc/uptime)
	touch /tmp/gc-stop
	wait "$reader" || fail "a /proc read failed"
	reads=$(cat /tmp/gc-reads)
	[ "${reads:-0}" -gt 0 ] || fail "the /proc reader did not run"
	info "$mode: $GC_WRITES overwrites $((mid - start)) s, $GC_OPS append/truncate $((end - mid)) s (guest clock), $reads rounds of /proc reads"
	cat "$P/gc" "$P/IO_stats"
	if [ $mode = inplace ]; then
		[ "$(awk '$1 == "inplace_bytes" { print $2 }' "$P/IO_stats")" -gt 0 ] ||
			fail "in-place mode wrote nothing in place"
	else
		expect_eq "$(awk '$1 == "inplace_bytes" { print $2 }' "$P/IO_stats")" 0 \
			"copy-on-write mode wrote in place"
	fi
	if [ $mode = inplace ]; then
		# times of an in-place write: in DRAM at once, logged by unmount
		expect_ok dd if=/dev/urandom of="$MNT/mt" bs=4096 count=2 2>/dev/null
		expect_ok touch -d "2001-02-03 04:05:06" "$MNT/mt"
		old=$(stat -c %Y "$MNT/mt")
		expect_ok dd if=/dev/zero of="$MNT/mt" bs=4096 count=1 conv=notrunc 2>/dev/null
		mtime=$(stat -c %Y "$MNT/mt")
		[ "$mtime" -gt "$old" ] || fail "in-place write left mtime at $mtime"
	fi
	runs=$(awk '$1 == "thorough_gc_runs" || $1 == "fast_gc_runs" { n += $2 } END { print n }' "$P/gc")
	[ $mode = inplace ] || [ "$runs" -gt 0 ] || fail "copy-on-write overwrites ran no GC"
	nova_umount
	nova_mount "$opts"
	expect_ok cmp /tmp/hot.model "$MNT/hot"
	expect_ok cmp /tmp/at.model "$MNT/at"
	[ $mode = inplace ] && expect_eq "$(stat -c %Y "$MNT/mt")" "$mtime" \
		"mtime of an in-place write after remount"
	for f in hot at; do
		t_gc loginfo "$MNT/$f" > /tmp/li || fail "loginfo $f"
		lp=$(sed -n 's/^log_pages=//p' /tmp/li)
		lim=$(sed -n 's/^limit_pages=//p' /tmp/li)
		info "$mode: $f after remount: $(tr '\n' ' ' < /tmp/li)"
		[ "$lp" -le "$lim" ] || fail "$f: log of $lp pages over its limit $lim after remount"
	done
	nova_umount
	expect_no_dmesg "$BAD" "kernel log of the $mode run"
done
