#!/bin/sh
# A fatal signal ends a fallocate: everything it had allocated and
# zeroed goes back (fallocate is all or nothing), so the file keeps its
# size, blocks and contents and free space is as before, also after a
# remount, and fsck.nova is clean.  The fallocate is killed while it
# waits for a frozen file system, so it starts with SIGKILL pending
# however fast the machine is (t_falloc frozen); its range (128 MiB)
# holds a page of data every 1 MiB, so holes are allocated and zeroed
# before the first check of the signal.  In the default mode, with
# KEEP_SIZE and ZERO_RANGE.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

M=1048576
nova_format
i=0
while [ $i -lt 64 ]; do
	expect_ok dd if=/dev/urandom of="$MNT/f" bs=4096 count=1 seek=$((i * 256)) conv=notrunc 2>/dev/null
	i=$((i + 1))
done
size=$(stat -c %s "$MNT/f")
sum=$(md5sum <"$MNT/f")
free0=$(nova_statfs bfree)
dmesg_mark
for mode in default keep zero; do
	out=$(t_falloc frozen "$MNT/f" $mode 0 $((128 * M)) "$MNT") ||
		fail "SIGKILL during a fallocate ($mode): $out"
	info "SIGKILL during a fallocate ($mode) of 128 MiB: $out"
	case $out in
	"ended "*" ms after the thaw") ;;
	*) fail "SIGKILL during a fallocate ($mode): $out" ;;
	esac
	expect_eq "$(stat -c '%s %b' "$MNT/f")" "$size 512" "size and st_blocks after the fallocate ($mode) was killed"
	expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after the fallocate ($mode) was killed"
	expect_eq "$(md5sum <"$MNT/f")" "$sum" "contents after the fallocate ($mode) was killed"
done
expect_no_dmesg 'soft lockup|rcu.*(stall|detected)|hung task|Oops|BUG|WARNING' "no lockup or kernel error"
nova_umount
nova_mount
expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after a remount"
expect_eq "$(md5sum <"$MNT/f")" "$sum" "contents after a remount"
nova_umount
fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the killed fallocates"; }
