#!/bin/sh
# A hostile image whose file log maps far more pages than the device has
# blocks (every write entry maps the whole device, each at its own file
# offset; nova_fuzz bigmap): the lookup that replays the log (after a
# clean unmount) and the recovery scan (after a crash) refuse it at once
# with EUCLEAN and a log line, instead of exhausting memory or time.  The
# rest of the file system stays usable.  Entries that all map the device
# at file offset 0 are not refused, but the replay and the scan they make
# long end within seconds of a SIGKILL.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# make_victim: $MNT/f with 600 write entries, $MNT/g a good file
make_victim() {
	nova_format
	i=0
	while [ $i -lt 600 ]; do
		dd if=/dev/urandom of="$MNT/f" bs=4096 count=1 seek=$((i * 2)) \
			conv=notrunc 2>/dev/null
		i=$((i + 1))
	done
	echo good >"$MNT/g"
	ino=$(stat -c %i "$MNT/f")
}

# clean unmount: the lazy load of the inode replays its log
make_victim
nova_umount
expect_ok nova_fuzz bigmap "$PMEM" "$ino"
nova_mount
dmesg_mark
t0=$(date +%s)
out=$(stat -c %s "$MNT/f" 2>&1) && fail "stat of the hostile file succeeded: $out"
t1=$(date +%s)
info "stat: $out ($((t1 - t0)) s)"
case $out in
*"Structure needs cleaning"*) ;;
*) fail "stat of the hostile file: '$out', EUCLEAN expected" ;;
esac
[ $((t1 - t0)) -lt 5 ] || fail "refusing the hostile file took $((t1 - t0)) s"
expect_dmesg "inode $ino: its log maps more pages than the device has blocks" "the replay says why"
# Every access reports the damage again: the messages are limited (module
# options error_ratelimit_burst, 10 per error_ratelimit_interval_ms, 5 s),
# the rest counted, their number printed at the unmount
dmesg_mark
i=0
while [ $i -lt 100 ]; do
	stat "$MNT/f" >/dev/null 2>&1 && fail "stat $i of the hostile file succeeded"
	i=$((i + 1))
done
n=$(dmesg_since_mark | grep -c "inode $ino: its log maps more pages") || :
info "100 stats of the hostile file: $n error lines"
[ "$n" -ge 1 ] || fail "100 failed stats printed no error line"
[ "$n" -le 40 ] || fail "100 failed stats printed $n error lines: not rate-limited"
expect_eq "$(cat "$MNT/g")" "good" "another file is still readable"
expect_ok sh -c "echo new >$MNT/h"
nova_umount
expect_dmesg "NOVA \(pmem0\): [0-9]+ error messages suppressed" "the unmount counts the messages left out"

# after a crash (a shutdown): the recovery scan refuses the mount
make_victim
expect_ok nova-fsctl shutdown "$MNT" 2
nova_umount
expect_ok nova_fuzz bigmap "$PMEM" "$ino"
t0=$(date +%s)
nova_mount_refused "" "inode $ino: its log maps more pages than the device has blocks"
t1=$(date +%s)
[ $((t1 - t0)) -lt 10 ] || fail "refusing the hostile image took $((t1 - t0)) s"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|soft lockup|Out of memory' "no kernel errors"

# The same entries all at file offset 0 (nova_fuzz bigmap same): never more
# pages than the device has blocks, but each entry replaces every page of
# the one before, 600 x 127,000 page updates (hours on a big device).
# Not refused, but the waiting task can be killed: the stat (replay) and
# the mount (recovery scan) end within seconds of SIGKILL, with no kernel
# warning, and the file system stays usable or unmounted.
# gone PID SECS: the process PID ended within SECS seconds
gone() {
	_i=0
	while kill -0 "$1" 2>/dev/null; do
		[ $_i -lt $(($2 * 5)) ] || return 1
		sleep 0.2
		_i=$((_i + 1))
	done
	return 0
}
make_victim
nova_umount
expect_ok nova_fuzz bigmap "$PMEM" "$ino" same
nova_mount
dmesg_mark
stat -c %s "$MNT/f" >/tmp/stat.out 2>&1 &
pid=$!
sleep 3
kill -0 $pid 2>/dev/null || fail "the replay of 600 whole-device entries ended within 3 s: $(cat /tmp/stat.out)"
kill -9 $pid
gone $pid 10 || fail "stat still running 10 s after SIGKILL (replay not killable)"
expect_eq "$(cat "$MNT/g")" "good" "another file after the killed replay"
expect_ok sh -c "echo new >$MNT/h"
nova_umount
expect_no_dmesg 'Oops|BUG|WARNING|general protection|soft lockup|blocked for more' "kernel log of the killed replay"

make_victim
expect_ok nova-fsctl shutdown "$MNT" 2
nova_umount
expect_ok nova_fuzz bigmap "$PMEM" "$ino" same
dmesg_mark
mount -t NOVA "$PMEM" "$MNT" >/tmp/mount.out 2>&1 &
pid=$!
sleep 3
kill -0 $pid 2>/dev/null || fail "the recovery scan of 600 whole-device entries ended within 3 s: $(cat /tmp/mount.out)"
kill -9 $pid
gone $pid 10 || fail "mount still running 10 s after SIGKILL (recovery scan not killable)"
grep -q " $MNT " /proc/mounts && fail "the killed mount mounted the file system"
expect_dmesg "mount killed during the recovery scan" "the killed mount is logged"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|soft lockup|blocked for more' "kernel log of the killed mount"
