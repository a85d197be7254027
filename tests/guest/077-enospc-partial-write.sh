#!/bin/sh
# A write whose log entries do not all fit on a full device (t_enospc_write):
# the write returns the bytes of the runs it committed, and the file size
# and contents match that result, before and after a remount, in
# copy-on-write and in-place mode (there also with preallocated pages past
# EOF between the new ones); fsck.nova -fn is clean afterwards.  The
# in-place write also stores preallocated pages past the bytes it returns:
# growing the file afterwards (a write past EOF, fallocate, truncate) must
# show zeros there (t_eof_zero extend; its own round, 1ie).
# Then, with the device full again, chown until the log cannot grow: the
# refused chown leaves the owner (and times) as they were, also after a
# remount, and a shrinking truncate still succeeds (the deletion reserve).
# Not after the interleaved writes: logging the preallocated pages
# written (unwritten extents) kills their fallocate entries, and the fast
# GC then recycles those log pages for the chowns for ever.
# noatime: the reads of t_enospc_write update the atime, whose
# set-attribute entry, logged at the unmount, would find the log full and
# grow it: the chowns would then have room (and the fast GC recycles
# pages of superseded entries for ever).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_make_partition 16
for mode in 0 1 1i 1ie; do
	inplace=${mode%%i*} inter='' ext=''
	[ "$mode" = "$inplace" ] || inter=interleave
	[ "$mode" = "${mode%e}" ] || ext=1
	expect_ok mount -t NOVA -o init,noatime,inplace_data_updates="$inplace" "$DEV" "$MNT"
	out=$(t_enospc_write write "$MNT" $inter 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 0 ] || fail "inplace_data_updates=$inplace${inter:+ ($inter)}: t_enospc_write write: exit $rc"
	n=$(printf '%s\n' "$out" | sed -n 's/^written //p')
	expect_ok umount "$MNT"
	expect_ok mount -t NOVA -o noatime,inplace_data_updates="$inplace" "$DEV" "$MNT"
	out=$(t_enospc_write verify "$MNT" "$n" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 0 ] || fail "inplace_data_updates=$inplace${inter:+ ($inter)}: after a remount: $out"
	info "PASS inplace_data_updates=$inplace${inter:+ ($inter)}: a write cut short by a full log returned $n bytes, and the file holds exactly those after a remount"
	if [ -n "$ext" ]; then
		# the write stored preallocated pages past the bytes it
		# returned in place: no way of growing the file may show them
		expect_ok rm -rf "$MNT/fill"
		out=$(t_eof_zero extend "$MNT/target" "$n" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		[ "$rc" -eq 0 ] || fail "in place, interleaved: growing the file after the partial write showed what the write stored past its end"
		info "PASS in place, interleaved: growing the file after the partial write shows zeros"
		expect_ok umount "$MNT"
		fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
			{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after growing the file"; }
		continue
	fi
	if [ -n "$inter" ]; then
		expect_ok umount "$MNT"
		fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
			{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the partial write"; }
		continue
	fi
	dd if=/dev/zero of="$MNT/fill2" bs=4096 2>/dev/null
	mtime=$(stat -c %Y "$MNT/target")
	i=1 last=0
	while [ $i -le 2000 ]; do
		err=$(chown $i:$i "$MNT/target" 2>&1) || break
		last=$i
		i=$((i + 1))
	done
	[ $i -le 2000 ] || fail "2000 chowns on a full device all succeeded: the log never filled"
	case $err in *"No space left"*) ;; *) fail "chown $i: expected ENOSPC, got: $err" ;; esac
	info "chown $i refused with ENOSPC after $last"
	expect_eq "$(stat -c %u:%g "$MNT/target")" "$last:$last" "owner after the refused chown"
	expect_ok umount "$MNT"
	expect_ok mount -t NOVA -o noatime,inplace_data_updates="$inplace" "$DEV" "$MNT"
	expect_eq "$(stat -c %u:%g "$MNT/target")" "$last:$last" "owner after the refused chown and a remount"
	expect_eq "$(stat -c %Y "$MNT/target")" "$mtime" "mtime after the chowns"
	# still full: a shrinking truncate frees space, so it may use the reserve
	free1=$(nova_statfs bfree)
	expect_ok truncate -s 0 "$MNT/target"
	expect_eq "$(stat -c %s "$MNT/target")" 0 "size after truncate -s 0 on a full device"
	free2=$(nova_statfs bfree)
	[ "$free2" -gt "$free1" ] || fail "truncate -s 0 on a full device freed nothing ($free1 -> $free2 free blocks)"
	info "truncate -s 0 on the full device: $free1 -> $free2 free blocks"
	expect_ok umount "$MNT"
	fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the partial write"; }
done
nova_remove_partition
