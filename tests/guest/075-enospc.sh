#!/bin/sh
# A full device: ENOSPC for new data, new files and directories; deleting
# still works when the device is full (also after a rename cut short by
# ENOSPC); a link cut short by ENOSPC leaves times and link counts as they
# were; afterwards the free space returns
# exactly to where it started; nothing is corrupted (remount compares).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# a small partition keeps the fill fast: 24 MiB at 1 MiB
nova_make_partition 24
expect_ok mount -t NOVA -o init "$DEV" "$MNT"
mkdir "$MNT/d" "$MNT/keep"
echo "precious" > "$MNT/keep/file"
start=$(nova_statfs bfree)
info "free blocks at start: $start"

# 1. small files until ENOSPC
i=0
err=""
while :; do
	if ! err=$(echo "data $i" 2>&1 > "$MNT/d/f$i"); then
		break
	fi
	i=$((i + 1))
	[ $i -lt 200000 ] || fail "no ENOSPC after $i files"
done
info "created $i files before: $err"
echo "$err" | grep -q "No space left on device" || fail "expected ENOSPC, got: $err"
[ $i -gt 1000 ] || fail "only $i files fit"
# directories need log pages: they run out within a few more
k=0
while mkdir "$MNT/d/newdir$k" 2>/tmp/mkdir.err; do
	k=$((k + 1))
	[ $k -lt 100 ] || fail "mkdir never hit ENOSPC"
done
grep -q "No space left on device" /tmp/mkdir.err || fail "mkdir: $(cat /tmp/mkdir.err)"
expect_fail sh -c "echo x > $MNT/keep/new"
# (the create itself may succeed: an empty file costs no block)
rm -f "$MNT/keep/new"
# deleting works on the full device
expect_ok rm "$MNT/d/f0" "$MNT/d/f1"
# 2. delete everything: free space returns exactly
expect_ok rm -r "$MNT/d"
expect_ok mkdir "$MNT/d"
expect_eq "$(nova_statfs bfree)" "$start" "free blocks after deleting all small files"

# 3. one big file until ENOSPC (short write, then ENOSPC)
dd if=/dev/zero of="$MNT/d/big" bs=1M count=64 2>/tmp/dd.err && fail "64 MiB fit in 24 MiB"
grep -q "No space left on device" /tmp/dd.err || { cat /tmp/dd.err; fail "big write: no ENOSPC"; }
size=$(stat -c %s "$MNT/d/big")
[ "$size" -gt $((16 * 1024 * 1024)) ] || fail "big file only $size bytes"
expect_ok rm "$MNT/d/big"
expect_eq "$(nova_statfs bfree)" "$start" "free blocks after deleting the big file"

# 4. a rename cut short by ENOSPC: the file whose empty log got its first
# page must reuse that page later, not leak it.  a and b have empty logs
# (nothing logged at create); two has two data pages in one entry.
expect_ok touch "$MNT/d/a" "$MNT/d/b"
expect_ok dd if=/dev/zero of="$MNT/d/two" bs=4096 count=2 2>/dev/null
dd if=/dev/zero of="$MNT/d/big" bs=1M count=64 2>/dev/null && fail "64 MiB fit in 24 MiB"
expect_eq "$(nova_statfs bavail)" "0" "available blocks on the full device"
# one block back: the cut frees a data page (its log page has room)
expect_ok truncate -s 4096 "$MNT/d/two"
expect_eq "$(nova_statfs bavail)" "1" "available blocks after a one-page cut"
# a's first log page takes it, b's link count change finds no space
expect_fail mv "$MNT/d/a" "$MNT/d/b"
[ -e "$MNT/d/a" ] && [ -e "$MNT/d/b" ] || fail "the failed rename changed names"
expect_ok rm "$MNT/d/a" "$MNT/d/b" "$MNT/d/two" "$MNT/d/big"
expect_eq "$(nova_statfs bfree)" "$start" "free blocks after a rename cut short by ENOSPC"
expect_eq "$(cat "$MNT/keep/file")" "precious" "other data intact"

# 5. a link cut short by ENOSPC changes no time and no link count
expect_ok touch "$MNT/d/t"
expect_ok mkdir "$MNT/d/l"
dd if=/dev/zero of="$MNT/d/big" bs=1M count=64 2>/dev/null && fail "64 MiB fit in 24 MiB"
out=$(nova-fsctl linkfull "$MNT/d/t" "$MNT/d/l") || fail "$out"
info "$out"
expect_ok rm -r "$MNT/d/l" "$MNT/d/t" "$MNT/d/big"
expect_eq "$(nova_statfs bfree)" "$start" "free blocks after links cut short by ENOSPC"
expect_ok umount "$MNT"
expect_ok mount -t NOVA "$DEV" "$MNT"
expect_eq "$(nova_statfs bfree)" "$start" "free blocks after remount"
expect_eq "$(cat "$MNT/keep/file")" "precious" "data after remount"
expect_ok umount "$MNT"
expect_ok dd if=/dev/zero of="$PMEM" bs=512 count=1 conv=notrunc 2>/dev/null
expect_ok blockdev --rereadpt "$PMEM"
