#!/bin/sh
# fallocate and the file size limit (RLIMIT_FSIZE, ulimit -f), as ext4
# and XFS: only a mode that grows the file checks it (SIGXFSZ, then
# EFBIG); KEEP_SIZE, PUNCH_HOLE and ZERO_RANGE | KEEP_SIZE past the limit
# succeed, and so does a growing mode whose new end stays within the
# size the file has.  Each case runs on NOVA and on ext4 (on the
# scratch device), and both must give the expected result.  See
# t_falloc.c (rlimit).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

[ -n "${PMEM2:-}" ] || fail "this test needs the scratch device (--scratch)"
M=1048576
LIMIT=$M
nova_format
modprobe ext4 2>/dev/null
expect_ok mkfs.ext4 -q -F -b 4096 "$PMEM2"
expect_ok mount -t ext4 "$PMEM2" "$MNT2"

# check NAME MODE OFF LEN EXPECTED [SIZE]: on a new file (of SIZE bytes,
# written without the limit), fallocate under the 1 MiB limit
check() {
	for fs in "$MNT" "$MNT2"; do
		f=$fs/$1
		if [ -n "${6:-}" ]; then
			expect_ok dd if=/dev/zero of="$f" bs=$M count=$(($6 / M)) 2>/dev/null
		fi
		out=$(t_falloc rlimit "$f" "$2" "$3" "$4" $LIMIT) || fail "$1 on $fs: $out"
		expect_eq "$out" "$5" "$1: fallocate $2 $3+$4 under a $LIMIT-byte limit on $fs"
	done
	info "PASS $1: $out"
}
check keep keep 0 $((2 * M)) "ret=0 sigxfsz=0 size=0"
check keep-far keep $((8 * M)) $M "ret=0 sigxfsz=0 size=0"
check punch punch $M $M "ret=0 sigxfsz=0 size=0"
check punch-data punch $M $((2 * M)) "ret=0 sigxfsz=0 size=$((4 * M))" $((4 * M))
check zerokeep zerokeep 0 $((2 * M)) "ret=0 sigxfsz=0 size=0"
check zerokeep-data zerokeep $((2 * M)) $((4 * M)) "ret=0 sigxfsz=0 size=$((4 * M))" $((4 * M))
# growing past the limit
check default default 0 $((2 * M)) "ret=EFBIG sigxfsz=1 size=0"
check zero zero 0 $((2 * M)) "ret=EFBIG sigxfsz=1 size=0"
check default-data default $((3 * M)) $((2 * M)) "ret=EFBIG sigxfsz=1 size=$((4 * M))" $((4 * M))
# growing within the limit, or not growing
check default-small default 0 $((M / 2)) "ret=0 sigxfsz=0 size=$((M / 2))"
check default-inside default $M $((2 * M)) "ret=0 sigxfsz=0 size=$((4 * M))" $((4 * M))
check zero-inside zero 0 $((3 * M)) "ret=0 sigxfsz=0 size=$((4 * M))" $((4 * M))
expect_ok umount "$MNT2"
nova_umount
fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 ||
	{ head -40 /tmp/fsck.out; fail "fsck.nova -fn after the fallocates"; }
