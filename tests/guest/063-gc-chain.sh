#!/bin/sh
# The GC follows the next-page pointers of a log, read from pmem: the
# chain was checked when the inode was read, but it can change since (a
# block shared with a file on a hostile image, or here a write to the
# device while it is mounted).  Every hop is checked again first, and a
# bad chain stops the GC with a log line, the log left as it was: the
# fast GC must not store into or free another inode's log page, the
# thorough GC must not free the pages hanging after a foreign pointer.
# Before, both freed b's log pages (a's log had come to point at them).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

P=/proc/fs/NOVA/pmem0
NEXT=4088	# next_page in a log page's tail (nova_log_page_tail)

val() { # KEY INFO
	printf '%s\n' "$2" | sed -n "s/^$1=//p"
}
info_of() { # INO: where its log pages are (the device is mounted)
	expect_ok blockdev --flushbufs "$PMEM"
	t_claim info "$PMEM" "$1" || fail "t_claim info $1"
}
overwrite() { # FILE N: N overwrites of page 0, one write entry each
	_i=0
	while [ $_i -lt "$2" ]; do
		dd if=/dev/urandom of="$1" bs=4096 count=1 conv=notrunc 2>/dev/null ||
			fail "write $_i to $1"
		_i=$((_i + 1))
	done
}
log_pages() {
	t_gc loginfo "$1" | sed -n 's/^log_pages=//p'
}
poke() { # OFFSET VALUE
	expect_ok t_claim poke "$PMEM" "$1" "$2"
}

nova_format
# b and a: two log pages each, the first holding dead entries only (63
# superseded write entries), the tail in the second
overwrite "$MNT/b" 70
overwrite "$MNT/a" 70
expect_eq "$(log_pages "$MNT/b")" 2 "b's log pages"
expect_eq "$(log_pages "$MNT/a")" 2 "a's log pages"
ia=$(stat -c %i "$MNT/a")
ib=$(stat -c %i "$MNT/b")
bsum=$(md5sum < "$MNT/b")
binfo=$(info_of "$ib")
b0=$(val page0 "$binfo")
ainfo=$(info_of "$ia")
a0=$(val page0 "$ainfo")
a1=$(val page1 "$ainfo")
[ -n "$a1" ] && [ -n "$b0" ] || fail "log pages not found: a $ainfo b $binfo"

# fast GC: a's first page links to b's first page, then a's log grows
dmesg_mark
poke $((a0 + NEXT)) "$b0"
overwrite "$MNT/a" 60
poke $((a0 + NEXT)) "$a1"
asum=$(md5sum < "$MNT/a")
expect_eq "$(md5sum < "$MNT/b")" "$bsum" "b after a's fast GC"

# thorough GC: c's only page (its tail page) links to b's first page,
# which the GC would take for pages hanging after the tail
expect_ok dd if=/dev/urandom of="$MNT/c" bs=4096 count=2 2>/dev/null
overwrite "$MNT/c" 3
ic=$(stat -c %i "$MNT/c")
csum=$(md5sum < "$MNT/c")
c0=$(val page0 "$(info_of "$ic")")
expect_eq "$(log_pages "$MNT/c")" 1 "c's log pages"
poke $((c0 + NEXT)) "$b0"
gcrc=0
sh -c "echo $ic > $P/gc" || gcrc=$?
poke $((c0 + NEXT)) 0
expect_eq "$(md5sum < "$MNT/c")" "$csum" "c after its GC"
expect_eq "$(md5sum < "$MNT/b")" "$bsum" "b after c's GC"

# nothing was freed that is in use: fsck and a fresh mount agree
nova_umount
expect_ok fsck.nova -n -f "$PMEM"
nova_mount
echo 2 >/proc/sys/vm/drop_caches
expect_eq "$(md5sum < "$MNT/b" 2>&1)" "$bsum" "b after a remount"
expect_eq "$(md5sum < "$MNT/a" 2>&1)" "$asum" "a after a remount"
expect_eq "$(md5sum < "$MNT/c" 2>&1)" "$csum" "c after a remount"
expect_dmesg "inode $ia: log chain (ends before its end|is longer than its page count|reaches a free block)" \
	"a's fast GC refused the foreign chain"
[ "$gcrc" -ne 0 ] || fail "c's thorough GC went ahead on a foreign chain"
expect_dmesg "inode $ic: log chain is longer than its page count" \
	"c's thorough GC refused the foreign pages"
# with the chains right again the GC works
expect_ok sh -c "echo $ic > $P/gc"
expect_ok sh -c "echo $ia > $P/gc"
expect_eq "$(md5sum < "$MNT/a")" "$asum" "a after a good GC"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
nova_umount
