#!/bin/sh
# /proc/fs/NOVA statistics, measure_timing, and log garbage collection
# (fast GC of dead pages, thorough GC by log rewrite, manual GC through the
# gc file; refused on a frozen or read-only file system), with the file
# system unchanged across a remount.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

[ -n "${PMEM2:-}" ] || fail "this test needs the scratch device (--scratch)"
nova_format
P=/proc/fs/NOVA/pmem0
for f in timing_stats IO_stats allocator gc; do
	[ -f "$P/$f" ] || fail "$P/$f missing"
done
[ -f /sys/module/nova/parameters/measure_timing ] || fail "measure_timing parameter missing"
[ -f /sys/module/nova/parameters/inplace_data_updates ] || fail "inplace_data_updates parameter missing"

# timing: off by default, counts with measure_timing=1, cleared by writing 1
expect_eq "$(cat /sys/module/nova/parameters/measure_timing)" "0" "measure_timing default"
echo 1 > /sys/module/nova/parameters/measure_timing
mkdir "$MNT/t"
for i in 1 2 3 4 5; do echo x > "$MNT/t/f$i"; done
cat "$P/timing_stats"
n=$(awk '$1 == "create" { print $2 }' "$P/timing_stats")
[ "$n" -ge 5 ] || fail "create count $n with measure_timing=1"
n=$(awk '$1 == "write" { print $2 }' "$P/timing_stats")
[ "$n" -ge 5 ] || fail "write count $n with measure_timing=1"
echo 1 > "$P/timing_stats"
expect_eq "$(awk '$1 == "create" { print $2 }' "$P/timing_stats")" "0" "timing cleared"
echo 0 > /sys/module/nova/parameters/measure_timing
echo y > "$MNT/t/f6"
expect_eq "$(awk '$1 == "create" { print $2 }' "$P/timing_stats")" "0" "no timing when off"

# I/O statistics
echo 1 > "$P/IO_stats"
expect_ok dd if=/dev/zero of="$MNT/io" bs=4096 count=10 2>/dev/null
cat "$MNT/io" > /dev/null
cat "$P/IO_stats"
expect_eq "$(awk '$1 == "write_bytes" { print $2 }' "$P/IO_stats")" "40960" "write bytes"
[ "$(awk '$1 == "read_bytes" { print $2 }' "$P/IO_stats")" -ge 40960 ] || fail "read bytes"
echo 1 > "$P/IO_stats"
expect_eq "$(awk '$1 == "write_bytes" { print $2 }' "$P/IO_stats")" "0" "IO stats cleared"
grep -q "^total: " "$P/allocator" || fail "allocator summary"

# fast GC: overwriting one page many times kills whole log pages
echo hello > "$MNT/hot"
i=0
while [ $i -lt 600 ]; do
	dd if=/dev/urandom of="$MNT/hot" bs=4096 count=1 conv=notrunc 2>/dev/null
	i=$((i + 1))
done
cp "$MNT/hot" /tmp/hot.ref
cat "$P/gc"
[ "$(awk '$1 == "fast_gc_pages" { print $2 }' "$P/gc")" -gt 0 ] || fail "fast GC freed nothing"

# thorough GC: a directory with many creates and deletes rewrites its log
mkdir "$MNT/churn"
touch "$MNT/churn/keep1" "$MNT/churn/keep2"
nova_churn "$MNT/churn" 400
cat "$P/gc"
[ "$(nova_gc_runs)" -gt 0 ] || fail "no thorough GC"
expect_eq "$(ls "$MNT/churn" | tr '\n' ' ')" "keep1 keep2 " "directory after GC"

# manual GC through the gc file; bad input is refused
before=$(nova_gc_runs)
expect_ok sh -c "echo $(stat -c %i "$MNT/hot") > $P/gc"
expect_ok sh -c "echo $(stat -c %i "$MNT/churn") > $P/gc"
expect_ok sh -c "echo 1 > $P/gc"
after=$(nova_gc_runs)
[ "$after" -ge $((before + 3)) ] || fail "manual GC did not run ($before -> $after)"
expect_fail sh -c "echo abc > $P/gc"
expect_fail sh -c "echo 99999999 > $P/gc"
expect_fail sh -c "echo 5 > $P/gc"
expect_ok cmp /tmp/hot.ref "$MNT/hot"
# a frozen file system is not written: the GC request is refused (EBUSY)
# and runs nothing; after the thaw it works again
before=$(nova_gc_runs)
expect_ok nova-fsctl freeze "$MNT"
sh -c "echo $(stat -c %i "$MNT/hot") > $P/gc" 2>/tmp/gc.err &&
	{ nova-fsctl thaw "$MNT"; fail "a GC request on a frozen file system succeeded"; }
expect_ok nova-fsctl thaw "$MNT"
grep -qi "busy" /tmp/gc.err || fail "GC on a frozen file system: $(cat /tmp/gc.err), EBUSY expected"
expect_eq "$(nova_gc_runs)" "$before" "GC runs while frozen"
expect_ok sh -c "echo $(stat -c %i "$MNT/hot") > $P/gc"
# nor a read-only one
expect_ok mount -o remount,ro "$MNT"
expect_fail sh -c "echo $(stat -c %i "$MNT/hot") > $P/gc"
expect_ok mount -o remount,rw "$MNT"
touch "$MNT/churn/after-gc"
expect_ok mv "$MNT/churn/keep1" "$MNT/churn/keep1-renamed"

# two devices: separate directories that go away on umount
expect_ok mount -t NOVA -o init "$PMEM2" "$MNT2"
[ -f /proc/fs/NOVA/pmem1/gc ] || fail "no /proc/fs/NOVA/pmem1"
expect_ok umount "$MNT2"
[ -e /proc/fs/NOVA/pmem1 ] && fail "/proc/fs/NOVA/pmem1 left after umount"

# everything survives a remount
free=$(nova_statfs bfree)
nova_umount
[ -e "$P" ] && fail "$P left after umount"
nova_mount
expect_ok cmp /tmp/hot.ref "$MNT/hot"
expect_eq "$(ls "$MNT/churn" | tr '\n' ' ')" "after-gc keep1-renamed keep2 " "directory after remount"
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after remount"
nova_umount
