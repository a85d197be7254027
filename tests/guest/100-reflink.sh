#!/bin/sh
# Clones and dedupe (xfs_io reflink and dedupe: FICLONERANGE and
# FIDEDUPERANGE): a clone takes no data blocks and both files read the
# same; a write, a store through a mapping, a truncate, a punch or a
# zero range on either copy leaves the other as it was; FIEMAP marks
# shared extents; after a remount (a scan: the counts are in DRAM only)
# the files and the free count are the same; deleting both gives every
# block back.  Dedupe shares equal ranges and refuses different ones
# (EBADE); funshare gives pages blocks of their own; clones follow the kernel's errors (unaligned: EINVAL, other
# file system: EXDEV, directory: EISDIR, append-only: EBADF,
# overlapping ranges of one file: EINVAL).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

P=/proc/fs/NOVA/pmem0
sum() { md5sum "$1" | cut -d' ' -f1; }
free_blocks() { sync; nova_statfs bfree; }
fiemap_shared() {
	# exit 0 if any extent of $1 has FIEMAP_EXTENT_SHARED
	t_fiemap "$1" | while read -r _l _p _n f; do
		[ $((0x${f#0x} & 0x2000)) -ne 0 ] && echo yes && break
	done
}

nova_format
f0=$(free_blocks)
# 1 MiB and 1000 bytes: the last page partial
expect_ok dd if=/dev/urandom of="$MNT/a" bs=4096 count=256 2>/dev/null
expect_ok sh -c "head -c 1000 /dev/urandom >> $MNT/a"
sa=$(sum "$MNT/a")
expect_ok chmod 600 "$MNT/a"
# a clean mount without clones: inodes are claimed as they are read
nova_umount
nova_mount
ca=$(stat -c %Z.%z "$MNT/a")
f1=$(free_blocks)

# a whole-file clone (FICLONE through FICLONERANGE from 0, length 0)
out=$(xfs_io -f -c "reflink $MNT/a" "$MNT/b" 2>&1) || fail "reflink: $out"
expect_eq "$(sum "$MNT/b")" "$sa" "the clone reads as its source"
# both read again from pmem on that mount: a shared block is no double claim
dmesg_mark
expect_ok sh -c "echo 3 > /proc/sys/vm/drop_caches"
expect_eq "$(sum "$MNT/a")" "$sa" "the source read again on the mount of the clone"
expect_eq "$(sum "$MNT/b")" "$sa" "the clone read again on the mount of the clone"
expect_no_dmesg "NOVA.*error|claimed twice" "no error reading both"
expect_eq "$(stat -c %Z.%z "$MNT/a")" "$ca" "a clone leaves its source's ctime"
expect_eq "$(t_fiemap -b "$MNT/b" 0)" 0 "FIBMAP of a shared block: 0 (as XFS)"
expect_eq "$(stat -c %s "$MNT/b")" "$(stat -c %s "$MNT/a")" "the clone's size"
f2=$(free_blocks)
[ $((f1 - f2)) -le 4 ] || fail "a clone of 257 pages took $((f1 - f2)) blocks"
expect_eq "$(fiemap_shared "$MNT/a")" yes "FIEMAP: the source's extents are shared"
expect_eq "$(fiemap_shared "$MNT/b")" yes "FIEMAP: the clone's extents are shared"
expect_eq "$(stat -c %b "$MNT/b")" "$(stat -c %b "$MNT/a")" "st_blocks: the clone is charged for its pages"
expect_eq "$(awk '$1 == "cloned_pages" { print $2 }' "$P/IO_stats")" 257 "cloned_pages in IO_stats"

# a write to the clone: a copy of its page, the source unchanged
expect_ok dd if=/dev/zero of="$MNT/b" bs=4096 count=1 seek=2 conv=notrunc 2>/dev/null
expect_eq "$(sum "$MNT/a")" "$sa" "the source after a write to the clone"
expect_eq "$(dd if="$MNT/b" bs=4096 skip=2 count=1 2>/dev/null | tr -d '\0' | wc -c)" 0 "the clone's written page"
sb=$(sum "$MNT/b")
# in place mode (chattr +C): still a copy for a shared page
expect_ok nova-fsctl nocow "$MNT/a" +
expect_ok dd if=/dev/zero of="$MNT/a" bs=100 count=1 seek=50 conv=notrunc 2>/dev/null
expect_eq "$(sum "$MNT/b")" "$sb" "the clone after an in-place write to the source"
sa=$(sum "$MNT/a")
# a store through a shared mapping of the source: the clone unchanged
expect_ok xfs_io -c "mmap -rw 0 65536" -c "mwrite -S 0x5a 16384 4096" -c "msync -s 0 65536" "$MNT/a"
expect_eq "$(sum "$MNT/b")" "$sb" "the clone after a store through a mapping of the source"
# a read through a mapping of the clone reads its data
expect_eq "$(xfs_io -r -c "mmap -r 0 65536" -c "mread -v 16384 16" "$MNT/b" | head -1 | awk '{ print $2 }')" \
	"$(od -An -tx1 -j16384 -N1 "$MNT/b" | tr -d ' ')" "a mapping of the clone"
sa=$(sum "$MNT/a")
expect_eq "$(stat -c %s "$MNT/a")" 1049576 "the source's size"

# truncate, punch and zero range on the clone
expect_ok truncate -s 1040000 "$MNT/b"
expect_ok xfs_io -c "fpunch 102400 8192" -c "fzero 204900 5000" "$MNT/b"
expect_eq "$(sum "$MNT/a")" "$sa" "the source after truncate, punch and zero range of the clone"
expect_ok truncate -s 1049576 "$MNT/b"
expect_eq "$(dd if="$MNT/b" bs=1 skip=1040000 count=9576 2>/dev/null | tr -d '\0' | wc -c)" 0 \
	"the clone grown again reads zeros past its cut"
sb=$(sum "$MNT/b")

# a partial clone into the middle of a third file, and within one file
expect_ok dd if=/dev/urandom of="$MNT/c" bs=4096 count=64 2>/dev/null
out=$(xfs_io -c "reflink $MNT/a 65536 8192 32768" "$MNT/c" 2>&1) || fail "reflink range: $out"
expect_eq "$(dd if="$MNT/c" bs=4096 skip=2 count=8 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if="$MNT/a" bs=4096 skip=16 count=8 2>/dev/null | md5sum | cut -d' ' -f1)" "a range cloned into c"
out=$(xfs_io -c "reflink $MNT/c 0 131072 16384" "$MNT/c" 2>&1) || fail "reflink within a file: $out"
expect_eq "$(dd if="$MNT/c" bs=4096 skip=32 count=4 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if="$MNT/c" bs=4096 skip=0 count=4 2>/dev/null | md5sum | cut -d' ' -f1)" "a range cloned within c"
sc=$(sum "$MNT/c")

# a clone of a sparse file (holes only) keeps its size across a remount
expect_ok truncate -s 1048576 "$MNT/sparse"
out=$(xfs_io -f -c "reflink $MNT/sparse" "$MNT/sparse2" 2>&1) || fail "reflink of holes: $out"
# a clone logs its source's pages again: not with a ctime older than its chmod
expect_ok sh -c "echo data > $MNT/g"
expect_ok chmod 600 "$MNT/g"
cg=$(stat -c %Z.%z "$MNT/g")
out=$(xfs_io -f -c "reflink $MNT/g" "$MNT/h" 2>&1) || fail "reflink: $out"

# errors, as the kernel's checks and ext4/XFS give them
out=$(xfs_io -c "reflink $MNT/a 100 0 4096" "$MNT/c" 2>&1)
echo "$out" | grep -q "Invalid argument" || fail "unaligned clone: $out"
out=$(xfs_io -c "reflink $MNT/c 0 4096 8192" "$MNT/c" 2>&1)
echo "$out" | grep -q "Invalid argument" || fail "overlapping clone within a file: $out"
expect_ok mkdir "$MNT/dir"
out=$(xfs_io -c "reflink $MNT/dir" "$MNT/c" 2>&1)
echo "$out" | grep -q "Is a directory" || fail "clone of a directory: $out"
expect_ok touch "$MNT/app"
expect_ok xfs_io -c "chattr +a" "$MNT/app"
out=$(xfs_io -a -c "reflink $MNT/a" "$MNT/app" 2>&1)
echo "$out" | grep -q "Bad file descriptor" || fail "clone into an append-only file: $out"
expect_ok xfs_io -r -c "chattr -a" "$MNT/app"
expect_ok mkdir -p /mnt/other
expect_ok mount -t tmpfs tmpfs /mnt/other
expect_ok sh -c "echo x > /mnt/other/t"
out=$(xfs_io -c "reflink $MNT/a" /mnt/other/t 2>&1)
echo "$out" | grep -q "cross-device" || fail "clone across file systems: $out"
expect_ok umount /mnt/other

# dedupe: equal ranges become shared, different ones are refused
expect_ok dd if="$MNT/a" of="$MNT/d" bs=4096 count=16 2>/dev/null
expect_ok dd if="$MNT/a" of="$MNT/e" bs=4096 count=16 2>/dev/null
te=$(stat -c %Y.%y.%Z.%z "$MNT/e")
out=$(xfs_io -c "dedupe $MNT/d 0 0 65536" "$MNT/e" 2>&1) || fail "dedupe: $out"
expect_eq "$(stat -c %Y.%y.%Z.%z "$MNT/e")" "$te" "dedupe leaves the times (as XFS)"
expect_eq "$(fiemap_shared "$MNT/e")" yes "FIEMAP: deduplicated extents are shared"
expect_ok dd if=/dev/zero of="$MNT/d" bs=1 count=1 seek=70000 conv=notrunc 2>/dev/null
expect_ok dd if=/dev/urandom of="$MNT/e" bs=4096 count=1 seek=1 conv=notrunc 2>/dev/null
se=$(sum "$MNT/e")
out=$(xfs_io -c "dedupe $MNT/a 0 0 65536" "$MNT/e" 2>&1)
echo "$out" | grep -qi "did not match" || fail "dedupe of different data: $out"
expect_eq "$(sum "$MNT/e")" "$se" "a refused dedupe changes nothing"
sd=$(sum "$MNT/d")
# fallocate FALLOC_FL_UNSHARE_RANGE: blocks of its own, the data the same
expect_ok xfs_io -c "funshare 0 65536" "$MNT/e"
expect_eq "$(fiemap_shared "$MNT/e")" "" "FIEMAP after funshare: nothing shared"
expect_eq "$(fiemap_shared "$MNT/d")" "" "FIEMAP of the other copy after funshare"
expect_eq "$(sum "$MNT/e")" "$se" "funshare keeps the data"

# read faults on both copies of a shared page: the old block is free again
expect_ok sh -c "head -c 10000 /dev/urandom > $MNT/p"
out=$(xfs_io -f -c "reflink $MNT/p" "$MNT/q" 2>&1) || fail "reflink: $out"
fp=$(free_blocks)
expect_ok xfs_io -r -c "mmap -r 8192 1808" -c "mread 8192 1808" "$MNT/p"
expect_ok xfs_io -r -c "mmap -r 8192 1808" -c "mread 8192 1808" "$MNT/q"
expect_eq "$(free_blocks)" "$((fp - 1))" "free blocks after both copies of a page were copied"

# a remount scans: same data, same free count, still shared
fr=$(free_blocks)
dmesg_mark
nova_umount
out=$(fsck.nova -fn "$PMEM" 2>&1) || fail "fsck.nova with shared blocks: $out"
nova_mount
expect_dmesg "recovery scan" "a file system with clones is scanned at mount"
expect_eq "$(free_blocks)" "$fr" "free blocks after a remount"
expect_eq "$(sum "$MNT/a")" "$sa" "the source after a remount"
expect_eq "$(sum "$MNT/b")" "$sb" "the clone after a remount"
expect_eq "$(sum "$MNT/c")" "$sc" "c after a remount"
expect_eq "$(sum "$MNT/d")" "$sd" "d after a remount"
expect_eq "$(sum "$MNT/e")" "$se" "e after a remount"
expect_eq "$(stat -c %s "$MNT/sparse2")" 1048576 "a clone of holes after a remount"
expect_eq "$(stat -c %Z.%z "$MNT/g")" "$cg" "the source's ctime after a remount"
expect_eq "$(fiemap_shared "$MNT/b")" yes "the clone's extents are still shared"

# a read fault on a shared page gives it a block of its own
u0=$(awk '$1 == "unshares" { print $2 }' "$P/IO_stats")
out=$(xfs_io -r -c "mmap -r 0 65536" -c "mread -v 8192 16" "$MNT/c" 2>&1)
expect_eq "$(echo "$out" | head -1 | awk '{ print $2 }')" \
	"$(od -An -tx1 -j8192 -N1 "$MNT/c" | tr -d ' ')" "a read through a mapping of a shared page ($out)"
expect_eq "$(($(awk '$1 == "unshares" { print $2 }' "$P/IO_stats") - u0))" 1 "unshares after one read fault"

# A clone that grows a file from below its EOF replaces the EOF page: it
# copies no page first (it did, and failed with ENOSPC on a full device).
# One past EOF zeroes the EOF page's tail in place: that page gets a block
# of its own first, and the other copies keep their bytes.
expect_ok sh -c "head -c 10000 /dev/urandom > $MNT/t"
out=$(xfs_io -f -c "reflink $MNT/t" "$MNT/t2" 2>&1) || fail "reflink: $out"
out=$(xfs_io -f -c "reflink $MNT/t" "$MNT/t3" 2>&1) || fail "reflink: $out"
st=$(sum "$MNT/t")
u0=$(awk '$1 == "unshares" { print $2 }' "$P/IO_stats")
out=$(xfs_io -c "reflink $MNT/c 0 8192 8192" "$MNT/t" 2>&1) || fail "reflink over the EOF page: $out"
expect_eq "$(($(awk '$1 == "unshares" { print $2 }' "$P/IO_stats") - u0))" 0 "unshares of a clone over the EOF page"
expect_eq "$(stat -c %s "$MNT/t")" 16384 "size after a clone over the EOF page"
expect_eq "$(tail -c 8192 "$MNT/t" | sum)" "$(head -c 8192 "$MNT/c" | sum)" "the cloned range over the EOF page"
u0=$(awk '$1 == "unshares" { print $2 }' "$P/IO_stats")
out=$(xfs_io -c "reflink $MNT/c 0 32768 4096" "$MNT/t2" 2>&1) || fail "reflink past EOF: $out"
expect_eq "$(($(awk '$1 == "unshares" { print $2 }' "$P/IO_stats") - u0))" 1 "unshares of a clone past EOF"
expect_eq "$(head -c 10000 "$MNT/t2" | sum)" "$(head -c 10000 "$MNT/t3" | sum)" "a clone past EOF keeps the bytes below it"
expect_eq "$(tail -c +10001 "$MNT/t2" | head -c 22768 | tr -d '\0' | wc -c)" 0 "the gap before a clone past EOF reads zeros"
expect_eq "$(sum "$MNT/t3")" "$st" "the other copy of the EOF page"
expect_ok rm "$MNT/t" "$MNT/t2" "$MNT/t3"

# the clone after its source is gone, then every block back
expect_ok rm "$MNT/a"
expect_eq "$(sum "$MNT/b")" "$sb" "the clone after its source was deleted"
expect_ok rm -r "$MNT/b" "$MNT/c" "$MNT/d" "$MNT/e" "$MNT/app" "$MNT/dir" \
	"$MNT/sparse" "$MNT/sparse2" "$MNT/g" "$MNT/h" "$MNT/p" "$MNT/q"
f3=$(free_blocks)
[ $((f0 - f3)) -le 8 ] || fail "blocks not given back: $f0 free before, $f3 after"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
