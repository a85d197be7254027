#!/bin/sh
# Thorough GC of a directory through /proc/fs/NOVA/<dev>/gc (10,000
# entries, 9,000 removed: exactly the survivors listed before and after
# GC and remount, the log shrank); writes to the /proc files (clearing,
# bad input refused with EINVAL or ENOENT); measure_timing on and off.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

P=/proc/fs/NOVA/pmem0
N=10000
STEP=10
key() { sed -n "s/^$1=//p" /tmp/li; }
loginfo() {
	t_gc loginfo "$1" > /tmp/li || fail "loginfo $1"
	info "$1: $(tr '\n' ' ' < /tmp/li)"
}
gcval() { awk -v k="$1" '$1 == k { print $2 }' "$P/gc"; }

dmesg_mark
nova_format

# --- a directory with 10,000 entries, 9,000 of them removed ----------------
mkdir "$MNT/d"
expect_ok t_gc mkdirents "$MNT/d" $N
loginfo "$MNT/d"
created=$(key log_pages)
expect_ok t_gc rmdirents "$MNT/d" $N $STEP
expect_ok t_gc checkdir "$MNT/d" $N $STEP
loginfo "$MNT/d"
before=$(key log_pages)
runs=$(gcval thorough_gc_runs)
expect_ok t_gc procwrite "$P/gc" "$(stat -c %i "$MNT/d")" ok
[ "$(gcval thorough_gc_runs)" -gt "$runs" ] || fail "writing the inode number ran no GC"
loginfo "$MNT/d"
after=$(key log_pages)
need=$(key need_pages)
info "directory log: $created pages with $N entries, $before after removing $((N - N / STEP)), $after after the manual GC"
[ "$after" -lt "$created" ] || fail "log did not shrink: $created -> $after pages"
[ "$after" -le "$before" ] || fail "manual GC grew the log: $before -> $after pages"
[ "$after" -le "$need" ] || fail "GC'd log of $after pages, live entries need $need"
# the test's own figure: 1,000 dentries of 80 bytes (names of 28
# characters), 50 to a 4 KiB page, plus ., .. and two attribute entries
[ "$after" -le 22 ] || fail "GC'd log of $after pages for $((N / STEP)) entries"
expect_ok t_gc checkdir "$MNT/d" $N $STEP
touch "$MNT/d/new-after-gc"
expect_ok rm "$MNT/d/new-after-gc"
nova_umount
nova_mount
expect_ok t_gc checkdir "$MNT/d" $N $STEP
loginfo "$MNT/d"
expect_eq "$(key log_pages)" "$after" "log pages after remount"

# --- measure_timing ----------------------------------------------------------
T=/sys/module/nova/parameters/measure_timing
wstat() { awk -v k="$1" '$1 == "write" { print $k }' "$P/timing_stats"; }
echo 1 > $T
expect_ok t_gc procwrite "$P/timing_stats" 1 ok
expect_ok dd if=/dev/zero of="$MNT/tf" bs=4096 count=50 2>/dev/null
[ "$(wstat 2)" -ge 50 ] || fail "write count $(wstat 2) with measure_timing=1"
[ "$(wstat 3)" -gt 0 ] || fail "write time $(wstat 3) with measure_timing=1"
info "measure_timing=1: $(grep '^write ' "$P/timing_stats")"
echo 0 > $T
expect_ok t_gc procwrite "$P/timing_stats" 1 ok
expect_eq "$(wstat 2) $(wstat 3)" "0 0" "write count and time cleared"
expect_ok dd if=/dev/zero of="$MNT/tf" bs=4096 count=50 conv=notrunc 2>/dev/null
expect_eq "$(wstat 2) $(wstat 3)" "0 0" "write count and time with measure_timing=0"

# --- IO_stats cleared by 1 ---------------------------------------------------
[ "$(awk '$1 == "write_calls" { print $2 }' "$P/IO_stats")" -gt 0 ] || fail "no write calls counted"
expect_ok t_gc procwrite "$P/IO_stats" 1 ok
for k in write_calls write_bytes read_calls cow_pages; do
	expect_eq "$(awk -v k=$k '$1 == k { print $2 }' "$P/IO_stats")" 0 "IO_stats $k cleared"
done

# --- bad writes are refused --------------------------------------------------
for f in timing_stats IO_stats gc; do
	for bad in abc -1 0x10 "1 2" 99999999999999999999 \
		123456789012345678901234567890; do
		expect_ok t_gc procwrite "$P/$f" "$bad" EINVAL
	done
done
for bad in 0 2 99; do
	expect_ok t_gc procwrite "$P/timing_stats" "$bad" EINVAL
	expect_ok t_gc procwrite "$P/IO_stats" "$bad" EINVAL
done
touch "$MNT/gone"
gone=$(stat -c %i "$MNT/gone")
rm "$MNT/gone"
for bad in 0 5 99999999 4294967296 "$gone"; do
	expect_ok t_gc procwrite "$P/gc" "$bad" ENOENT
done
expect_ok t_gc procwrite "$P/gc" "$(stat -c %i "$MNT/tf")" ok
nova_umount
expect_no_dmesg 'Oops|BUG|WARNING|general protection|Call Trace|NOVA error' "kernel log"
