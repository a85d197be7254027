#!/bin/sh
# A hostile image whose file log maps far more pages than the device has
# blocks (every write entry maps the whole device, each at its own file
# offset; nova_fuzz bigmap): the lookup that replays the log (after a
# clean unmount) and the recovery scan (after a crash) refuse it at once
# with EUCLEAN and a log line, instead of exhausting memory or time.  The
# rest of the file system stays usable.
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
expect_eq "$(cat "$MNT/g")" "good" "another file is still readable"
expect_ok sh -c "echo new >$MNT/h"
nova_umount

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
