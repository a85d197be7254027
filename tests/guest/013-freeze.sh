#!/bin/sh
# fsfreeze: FIFREEZE makes the device image stable (nothing is stored on
# pmem while frozen: writes, an orphan's deletion at its last close wait),
# FITHAW lets them go on; a second freeze is EBUSY, a thaw of a file system
# that is not frozen EINVAL, as on ext4.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
echo data >"$MNT/a"
rm -f /tmp/go /tmp/closed /tmp/written
# an unlinked file held open by a process that closes it on /tmp/go
sh -c 'exec 3>"$1/orphan"; echo x >&3; rm "$1/orphan"
	while [ ! -f /tmp/go ]; do sleep 0.2; done
	exec 3>&-; : >/tmp/closed' sh "$MNT" &
closer=$!
sleep 1
expect_ok nova-fsctl freeze "$MNT"
expect_eq "$(nova-fsctl freeze "$MNT")" "error FIFREEZE: Device or resource busy (errno 16)" "second freeze: EBUSY"
echo 1 >/proc/sys/vm/drop_caches
before=$(md5sum <"$PMEM")
(echo more >>"$MNT/a"; : >/tmp/written) &
writer=$!
: >/tmp/go
sleep 3
[ ! -f /tmp/written ] || fail "a write went through while frozen"
[ ! -f /tmp/closed ] || fail "the orphan's last close (its deletion) went through while frozen"
echo 1 >/proc/sys/vm/drop_caches
expect_eq "$(md5sum <"$PMEM")" "$before" "the device did not change while frozen"
expect_ok nova-fsctl thaw "$MNT"
wait "$writer" || fail "the write after the thaw"
wait "$closer" || fail "the close after the thaw"
[ -f /tmp/written ] && [ -f /tmp/closed ] || fail "the write or the close did not finish after the thaw"
expect_eq "$(cat "$MNT/a")" "$(printf 'data\nmore')" "the write after the thaw"
expect_eq "$(nova-fsctl thaw "$MNT")" "error FITHAW: Invalid argument (errno 22)" "thaw when not frozen: EINVAL"
nova_umount
nova_mount
expect_eq "$(cat "$MNT/a")" "$(printf 'data\nmore')" "after a remount"
expect_eq "$(ls "$MNT")" "a" "the orphan is gone"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
