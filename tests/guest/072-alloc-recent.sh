#!/bin/sh
# Single blocks freed last wait outside the allocator's free tree for the
# next single-block allocation (balloc.c, fl->recent: a copy-on-write
# overwrite then does no tree work).  They are free everywhere: statfs
# counts them, the clean-unmount snapshot saves them (fsck.nova's pass 6
# compares it with the blocks in use), the next mount gives the same free
# space, and they are allocated again.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

fsck_clean() {	# fsck_clean WHAT: fsck.nova -fn finds nothing
	_rc=0
	fsck.nova -fn "$PMEM" > /tmp/fsck.out 2>&1 || _rc=$?
	[ "$_rc" -eq 0 ] || { cat /tmp/fsck.out; fail "fsck.nova -fn $1: exit $_rc"; }
}

nova_format
expect_ok dd if=/dev/urandom of="$MNT/f" bs=64k count=4 2>/dev/null
expect_ok sync
base=$(nova_statfs bfree)
sum=$(md5sum < "$MNT/f")

# 24 one-page holes: 24 single blocks freed, more than the 16 held aside
i=0
while [ $i -lt 24 ]; do
	expect_ok nova-fsctl punch "$MNT/f" $((i * 2 * 4096)) 4096
	i=$((i + 1))
done
holes=$(nova_statfs bfree)
expect_eq "$holes" "$((base + 24))" "free blocks after punching 24 pages"
alloc=$(cat /proc/fs/NOVA/*/allocator | sed -n 's/^total: [0-9]* blocks, \([0-9]*\) free.*/\1/p')
expect_eq "$alloc" "$holes" "/proc allocator free count"
nova_umount
fsck_clean "after the holes"

nova_mount
expect_eq "$(nova_statfs bfree)" "$holes" "free blocks from the snapshot"
# single-page overwrites (each takes a block and frees one), the holes
# filled again (the blocks held aside are allocated), and small files
# created and removed (single data blocks and log pages freed)
i=0
while [ $i -lt 40 ]; do
	expect_ok dd if=/dev/urandom of="$MNT/f" bs=4k count=1 \
		seek=$(((i * 2 + 1) % 64)) conv=notrunc 2>/dev/null
	i=$((i + 1))
done
i=0
while [ $i -lt 24 ]; do
	expect_ok dd if=/dev/zero of="$MNT/f" bs=4k count=1 seek=$((i * 2)) \
		conv=notrunc 2>/dev/null
	i=$((i + 1))
done
j=0
while [ $j -lt 30 ]; do
	echo "$j" > "$MNT/s$j"
	j=$((j + 1))
done
expect_ok rm "$MNT"/s*
free=$(nova_statfs bfree)
[ "$free" -le $((base + 2)) ] && [ "$free" -ge $((base - 4)) ] ||
	fail "free blocks after refilling: $free, expected about $base"
sum=$(md5sum < "$MNT/f")
nova_umount
fsck_clean "after reuse"

nova_mount
expect_eq "$(nova_statfs bfree)" "$free" "free blocks after the last remount"
expect_eq "$(md5sum < "$MNT/f")" "$sum" "data after the last remount"
nova_umount
