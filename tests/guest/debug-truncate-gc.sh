#!/bin/sh
# (debug module: tests/run-guest-tests.sh --debug-module)
# A truncate kills write entries without holding the log mutex; another
# thread's log append (an fsync logging the times) may then run a fast GC
# that frees the log pages now all dead, and the freed page may be
# reused at once.  The truncate must not read an entry after it died: it
# read the dead entry's block (nova_entry_block()) after
# nova_invalidate_pages(), so it freed whatever the reused page said (a
# review finding: "bad block" errors, or another file's block freed).
# inject=1 (NOVA_INJECT_DEAD_ENTRY_GC) makes that GC and reuse happen
# each time an entry dies in the truncate.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

param=/sys/module/nova/parameters/inject
[ -w "$param" ] || fail "no $param: this test needs the debug module (--debug-module)"

nova_format
# 300 one-page write entries, each page written alone: about five log
# pages of nothing but them
nova_page_writes "$MNT/f" 300 /dev/urandom
echo kept >"$MNT/kept"
sync
with_f=$(nova_statfs bfree)
dmesg_mark
echo 1 >"$param"
: >"$MNT/f"
echo 0 >"$param"
expect_dmesg "inject: log page 0x[0-9a-f]+ freed by a fast GC and overwritten" "a log page of f was freed during the truncate"
expect_no_dmesg "NOVA error|Oops|BUG|WARNING|general protection" "the truncate reads no entry after it died"
expect_eq "$(stat -c %s "$MNT/f")" 0 "f's size after the truncate"
sync
freed=$(($(nova_statfs bfree) - with_f))
# its 300 data blocks and the freed log pages
[ "$freed" -ge 300 ] || fail "the truncate freed $freed blocks, not the 300 of f's data"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
dmesg_mark
nova_mount
expect_eq "$(cat "$MNT/kept")" kept "another file after the truncate"
[ "$(nova_statfs bfree)" -eq $((with_f + freed)) ] ||
	fail "free blocks after a remount: $(nova_statfs bfree), $((with_f + freed)) before it"
nova_umount
expect_no_dmesg "NOVA error|Oops|BUG|WARNING|general protection" "no kernel errors"
