#!/bin/sh
# PUNCH_HOLE and ZERO_RANGE with partial edge pages.  In copy-on-write mode
# each edge page that has a block gets a new block (IO_stats cow_pages
# grows by one per edge page), committed with the rest of the operation:
# a crash shows all of it or none (the power-cut model, crashwork, holds
# the module to that).  In in-place mode the edges are zeroed in place (no
# new block).  Both: the contents match a reference built with dd, before
# and after a remount, st_blocks drops by the punched whole pages only.
# On a full device the copy-on-write edges have no free block: punch still
# succeeds (edges zeroed in place, the deletion reserve for the log) and
# frees its whole pages.  fsck.nova -fn is clean at the end.  A
# set-user-ID file punched again and again while its log grows.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_make_partition 16
P=/proc/fs/NOVA/${DEV#/dev/}
cow_pages() { sed -n 's/^cow_pages *//p' "$P/IO_stats"; }
blocks() { stat -c %b "$1"; }
# the reference: dd zeroes [OFF, OFF + LEN) of a copy on tmpfs
ref_zero() { # FILE OFF LEN
	expect_ok dd if=/dev/zero of="$1" bs=1 seek="$2" count="$3" conv=notrunc 2>/dev/null
}
same() { # NOVA-FILE REF WHAT
	cmp "$1" "$2" >/tmp/cmp.out 2>&1 || fail "$3: contents differ from the reference: $(head -n 2 /tmp/cmp.out)"
}

expect_ok dd if=/dev/urandom of=/tmp/pat bs=4096 count=6 2>/dev/null
for inplace in 0 1; do
	expect_ok mount -t NOVA -o init,inplace_data_updates="$inplace" "$DEV" "$MNT"
	# punch [1000, 9000) of 3 pages: head edge page 0, whole page 1,
	# tail edge page 2
	expect_ok dd if=/tmp/pat of="$MNT/p" bs=4096 count=3 2>/dev/null
	expect_ok dd if=/tmp/pat of=/tmp/p.ref bs=4096 count=3 2>/dev/null
	b0=$(blocks "$MNT/p") c0=$(cow_pages)
	expect_ok nova-fsctl punch "$MNT/p" 1000 8000
	ref_zero /tmp/p.ref 1000 8000
	c1=$(cow_pages) b1=$(blocks "$MNT/p")
	want=2
	[ "$inplace" = 0 ] || want=0
	expect_eq "$((c1 - c0))" "$want" "inplace_data_updates=$inplace: new blocks for the punch's 2 edge pages"
	expect_eq "$((b0 - b1))" 8 "inplace_data_updates=$inplace: st_blocks freed by the punch (one page)"
	expect_eq "$(stat -c %s "$MNT/p")" 12288 "size after the punch"
	same "$MNT/p" /tmp/p.ref "inplace_data_updates=$inplace: punch [1000, 9000)"
	# punch inside one page: one edge page
	c0=$(cow_pages)
	expect_ok nova-fsctl punch "$MNT/p" 100 200
	ref_zero /tmp/p.ref 100 200
	want=1
	[ "$inplace" = 0 ] || want=0
	expect_eq "$(($(cow_pages) - c0))" "$want" "inplace_data_updates=$inplace: new block for a punch within a page"
	same "$MNT/p" /tmp/p.ref "inplace_data_updates=$inplace: punch [100, 300)"

	# zero range [5000, 17000) of 6 pages: edges 1 and 4; whole pages
	# 2 and 3 get new zeroed blocks in both modes (not counted in
	# cow_pages), so the range stays allocated; past EOF it extends the
	# file
	expect_ok dd if=/tmp/pat of="$MNT/z" bs=4096 count=6 2>/dev/null
	expect_ok dd if=/tmp/pat of=/tmp/z.ref bs=4096 count=6 2>/dev/null
	b0=$(blocks "$MNT/z") c0=$(cow_pages)
	expect_ok nova-fsctl zero "$MNT/z" 5000 12000
	ref_zero /tmp/z.ref 5000 12000
	want=2
	[ "$inplace" = 0 ] || want=0
	expect_eq "$(($(cow_pages) - c0))" "$want" "inplace_data_updates=$inplace: new blocks for zero range's 2 edge pages"
	expect_eq "$(blocks "$MNT/z")" "$b0" "inplace_data_updates=$inplace: st_blocks after zero range"
	same "$MNT/z" /tmp/z.ref "inplace_data_updates=$inplace: zero range [5000, 17000)"
	expect_ok nova-fsctl zero "$MNT/z" 24000 1000
	expect_eq "$(stat -c %s "$MNT/z")" 25000 "size after a zero range past EOF"
	ref_zero /tmp/z.ref 24000 1000
	same "$MNT/z" /tmp/z.ref "inplace_data_updates=$inplace: zero range [24000, 25000)"

	expect_ok umount "$MNT"
	expect_ok mount -t NOVA -o inplace_data_updates="$inplace" "$DEV" "$MNT"
	same "$MNT/p" /tmp/p.ref "inplace_data_updates=$inplace: punched file after a remount"
	same "$MNT/z" /tmp/z.ref "inplace_data_updates=$inplace: zeroed file after a remount"
	info "PASS inplace_data_updates=$inplace: punch and zero range edges"

	# full device: the punch of a partial range still works
	expect_ok dd if=/tmp/pat of="$MNT/f" bs=4096 count=3 2>/dev/null
	expect_ok dd if=/tmp/pat of=/tmp/f.ref bs=4096 count=3 2>/dev/null
	dd if=/dev/zero of="$MNT/fill" bs=4096 2>/dev/null
	free1=$(nova_statfs bfree)
	dmesg_mark
	expect_ok nova-fsctl punch "$MNT/f" 1000 8000
	ref_zero /tmp/f.ref 1000 8000
	same "$MNT/f" /tmp/f.ref "inplace_data_updates=$inplace: punch on a full device"
	free2=$(nova_statfs bfree)
	[ "$free2" -gt "$free1" ] || fail "inplace_data_updates=$inplace: punch on a full device freed nothing ($free1 -> $free2 free blocks)"
	info "punch on the full device: $free1 -> $free2 free blocks"
	expect_no_dmesg 'Oops|BUG|WARNING|general protection' "no kernel errors"
	expect_ok umount "$MNT"
	expect_ok mount -t NOVA "$DEV" "$MNT"
	same "$MNT/f" /tmp/f.ref "inplace_data_updates=$inplace: punched full-device file after a remount"
	expect_ok umount "$MNT"
	fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
		{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after punch and zero range"; }
done

# fallocate drops set-user-ID (as ext4) before it takes the lock a GC of
# the log needs (dropping it is a setattr, which may run that GC): 3000
# punches of a set-user-ID file whose log a fault keeps growing finish
expect_ok mount -t NOVA -o init "$DEV" "$MNT"
expect_ok mkdir "$MNT/u"
expect_ok chown 1000:1000 "$MNT/u"
out=$(t_xattr asuser 1000 1000 nova-fsctl suidgc "$MNT/u/f" 3000) || fail "suidgc: $out"
info "$out"
expect_ok umount "$MNT"
fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after punching a set-user-ID file"; }
nova_remove_partition
