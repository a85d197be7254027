#!/bin/sh
# fallocate COLLAPSE_RANGE and INSERT_RANGE (shift.c), and FS_XFLAG_DAX.
# Contents are compared with a reference built with dd on tmpfs, before
# and after a remount: a collapse frees exactly the collapsed range's
# blocks (st_blocks), an insert allocates nothing, blocks kept past EOF
# (KEEP_SIZE) move with the rest; a fragmented file (every other page a
# hole) and a file in 2 MiB blocks shift the same way.  ext4's refusals:
# EINVAL for an unaligned range, a collapse reaching EOF, an insert at
# EOF; EFBIG past the largest file.  A collapse works on a full device.
# FS_XFLAG_DAX (xfs_io chattr +x) is kept and inherited by new files and
# directories as on ext4 and XFS; statx reports STATX_ATTR_DAX on every
# file.  fsck.nova -fn is clean, every block comes back when the files
# are removed, and the kernel logs no error.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_make_partition 32
blocks() { stat -c %b "$1"; }
same() { # NOVA-FILE REF WHAT
	cmp "$1" "$2" >/tmp/cmp.out 2>&1 || fail "$3: contents differ from the reference: $(head -n 2 /tmp/cmp.out)"
	expect_eq "$(stat -c %s "$1")" "$(stat -c %s "$2")" "$3: size"
}
# the references: REF OFF LEN, whole pages
ref_collapse() {
	expect_ok dd if="$1" of=/tmp/new bs=4096 count=$(($2 / 4096)) 2>/dev/null
	dd if="$1" bs=4096 skip=$((($2 + $3) / 4096)) 2>/dev/null >>/tmp/new
	expect_ok mv /tmp/new "$1"
}
ref_insert() {
	expect_ok dd if="$1" of=/tmp/new bs=4096 count=$(($2 / 4096)) 2>/dev/null
	dd if=/dev/zero bs=4096 count=$(($3 / 4096)) 2>/dev/null >>/tmp/new
	dd if="$1" bs=4096 skip=$(($2 / 4096)) 2>/dev/null >>/tmp/new
	expect_ok mv /tmp/new "$1"
}
shift_both() { # collapse|insert FILE REF OFF LEN
	expect_ok nova-fsctl "$1" "$2" "$4" "$5"
	"ref_$1" "$3" "$4" "$5"
	same "$2" "$3" "$1 [$4, +$5) of $(basename "$2")"
}
must_fail() { # ERRNO collapse|insert FILE OFF LEN
	nova-fsctl "$2" "$3" "$4" "$5" >/tmp/out 2>&1 && fail "$2 $4 $5 succeeded, errno $1 expected"
	grep -q "(errno $1)" /tmp/out || fail "$2 $4 $5: $(cat /tmp/out), errno $1 expected"
}

root_log() { t_gc loginfo "$MNT" | sed -n 's/^log_pages=//p'; }
expect_ok mount -t NOVA -o init "$DEV" "$MNT"
free0=$(nova_statfs bfree) root0=$(root_log)
dmesg_mark

# 8 pages and 100 bytes, 4 pages kept past EOF
head -c $((8 * 4096 + 100)) /dev/urandom >/tmp/a.ref
expect_ok cp /tmp/a.ref "$MNT/a"
expect_ok nova-fsctl keepsize "$MNT/a" 40960 16384
b0=$(blocks "$MNT/a")
expect_eq "$b0" $(((9 + 4) * 8)) "st_blocks of 9 pages and 4 kept past EOF"
shift_both collapse "$MNT/a" /tmp/a.ref 8192 8192
expect_eq "$(blocks "$MNT/a")" $((b0 - 16)) "st_blocks after collapsing 2 pages"
shift_both insert "$MNT/a" /tmp/a.ref 4096 12288
expect_eq "$(blocks "$MNT/a")" $((b0 - 16)) "st_blocks after inserting 3 pages (holes)"
shift_both collapse "$MNT/a" /tmp/a.ref 0 4096
shift_both insert "$MNT/a" /tmp/a.ref 0 8192
b1=$(blocks "$MNT/a")

# every other page a hole: 32 extents
i=0
while [ $i -lt 64 ]; do
	expect_ok dd if=/dev/urandom of=/tmp/h.ref bs=4096 seek=$i count=1 conv=notrunc 2>/dev/null
	dd if=/tmp/h.ref of="$MNT/h" bs=4096 skip=$i seek=$i count=1 conv=notrunc 2>/dev/null
	i=$((i + 2))
done
expect_eq "$(blocks "$MNT/h")" $((32 * 8)) "st_blocks of 32 pages with holes between"
same "$MNT/h" /tmp/h.ref "file with holes"
shift_both collapse "$MNT/h" /tmp/h.ref 20480 12288
shift_both insert "$MNT/h" /tmp/h.ref 8192 28672
shift_both collapse "$MNT/h" /tmp/h.ref 4096 4096

# 2 MiB blocks
expect_ok dd if=/dev/urandom of=/tmp/g.ref bs=1M count=6 2>/dev/null
expect_ok cp /tmp/g.ref "$MNT/g"
shift_both collapse "$MNT/g" /tmp/g.ref 2097152 2097152
shift_both insert "$MNT/g" /tmp/g.ref 1048576 2097152
shift_both collapse "$MNT/g" /tmp/g.ref 4096 3145728

# refusals leave the file as it was
must_fail 22 collapse "$MNT/a" 100 4096
must_fail 22 collapse "$MNT/a" 4096 100
must_fail 22 insert "$MNT/a" 4096 6000
sz=$(stat -c %s "$MNT/a")
must_fail 22 collapse "$MNT/a" 0 $(((sz + 4095) / 4096 * 4096))
must_fail 22 insert "$MNT/a" $(((sz + 4095) / 4096 * 4096)) 4096
# 2^63 - 4096: the largest file would be exceeded
must_fail 27 insert "$MNT/a" 0 9223372036854771712
same "$MNT/a" /tmp/a.ref "file after refused shifts"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|NOVA.*error' "no kernel errors"
info "PASS collapse and insert"

expect_ok umount "$MNT"
expect_ok mount -t NOVA "$DEV" "$MNT"
same "$MNT/a" /tmp/a.ref "shifted file after a remount"
expect_eq "$(blocks "$MNT/a")" "$b1" "st_blocks after a remount (blocks kept past EOF moved)"
same "$MNT/h" /tmp/h.ref "shifted file with holes after a remount"
same "$MNT/g" /tmp/g.ref "shifted 2 MiB-block file after a remount"

# a full device: the collapse still works and frees its blocks
expect_ok cp /tmp/g.ref "$MNT/f"
expect_ok cp /tmp/g.ref /tmp/f.ref
dd if=/dev/zero of="$MNT/fill" bs=4096 2>/dev/null
free1=$(nova_statfs bfree)
shift_both collapse "$MNT/f" /tmp/f.ref 0 1048576
free2=$(nova_statfs bfree)
[ "$free2" -ge $((free1 + 255)) ] || fail "collapse of 256 pages on a full device: $free1 -> $free2 free blocks"
expect_ok rm "$MNT/fill"

# FS_XFLAG_DAX: kept, inherited; STATX_ATTR_DAX on every file
expect_ok mkdir "$MNT/d" "$MNT/d/old"
expect_eq "$(nova-fsctl dax "$MNT/d")" "xflag=0 statx=1" "a new directory"
expect_ok nova-fsctl dax "$MNT/d" +
expect_ok mkdir "$MNT/d/e"
expect_ok touch "$MNT/d/f"
expect_eq "$(nova-fsctl dax "$MNT/d")" "xflag=1 statx=1" "after chattr +x"
expect_eq "$(nova-fsctl dax "$MNT/d/e")" "xflag=1 statx=1" "a directory made in it"
expect_eq "$(nova-fsctl dax "$MNT/d/f")" "xflag=1 statx=1" "a file made in it"
expect_eq "$(nova-fsctl dax "$MNT/d/old")" "xflag=0 statx=1" "a directory made before"
expect_ok nova-fsctl dax "$MNT/d/e" -
expect_ok touch "$MNT/d/e/g"
expect_eq "$(nova-fsctl dax "$MNT/d/e/g")" "xflag=0 statx=1" "a file in a directory after chattr -x"
expect_ok umount "$MNT"
expect_ok mount -t NOVA "$DEV" "$MNT"
expect_eq "$(nova-fsctl dax "$MNT/d/f")" "xflag=1 statx=1" "the flag after a remount"
expect_eq "$(nova-fsctl dax "$MNT/d/e")" "xflag=0 statx=1" "the cleared flag after a remount"
info "PASS FS_XFLAG_DAX"

expect_ok rm -r "$MNT/a" "$MNT/h" "$MNT/g" "$MNT/f" "$MNT/d"
expect_ok umount "$MNT"
fsck.nova -fn "$DEV" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after collapse and insert"; }
expect_ok mount -t NOVA "$DEV" "$MNT"
# (the root directory's log may have grown)
expect_eq "$(($(nova_statfs bfree) + $(root_log) - root0))" "$free0" "free blocks after removing every file"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|NOVA.*error' "no kernel errors"
expect_ok umount "$MNT"
nova_remove_partition
