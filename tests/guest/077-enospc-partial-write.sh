#!/bin/sh
# A write whose log entries do not all fit on a full device (t_enospc_write):
# the write returns the bytes of the runs it committed, and the file size
# and contents match that result, before and after a remount, in
# copy-on-write and in-place mode; fsck.nova -fn is clean afterwards.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_make_partition 16
for inplace in 0 1; do
	expect_ok mount -t NOVA -o init,inplace_data_updates=$inplace "$DEV" "$MNT"
	out=$(t_enospc_write write "$MNT" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 0 ] || fail "inplace_data_updates=$inplace: t_enospc_write write: exit $rc"
	n=$(printf '%s\n' "$out" | sed -n 's/^written //p')
	expect_ok umount "$MNT"
	expect_ok mount -t NOVA -o inplace_data_updates=$inplace "$DEV" "$MNT"
	out=$(t_enospc_write verify "$MNT" "$n" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 0 ] || fail "inplace_data_updates=$inplace: after a remount: $out"
	info "PASS inplace_data_updates=$inplace: a write cut short by a full log returned $n bytes, and the file holds exactly those after a remount"
	expect_ok umount "$MNT"
	fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the partial write"; }
done
nova_remove_partition
