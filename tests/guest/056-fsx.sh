#!/bin/sh
# Randomized data-path exerciser (tests/guest/src/fsx_nova.c): a random mix
# of write/pwrite/pwritev, reads through two descriptors, O_APPEND writes
# through a third, truncate up and down, mmap reads and writes, fallocate
# (default, KEEP_SIZE, PUNCH_HOLE, ZERO_RANGE +/- KEEP_SIZE, COLLAPSE_RANGE,
# INSERT_RANGE) and fsync,
# every result compared with an in-memory model of the file.  Runs seed 1
# and a random seed in the default (copy-on-write) mode, then again after
# a remount with inplace_data_updates=1.  After each run the file is
# removed and every block must come back.
#
# Scaled for TCG and make check's 45 minutes: one run of "-N 30000 -l 4m
# -o 32k" takes ~0.7 s on the host (tmpfs), the four runs about 60 s in
# the guest (100000 operations each took 221 s of make check's time on
# each kernel).  The fsx_nova defaults (-l 8m -o 256k) take ~5 s a run
# on the host.  On a loaded 2-core host the four runs of 100000 have
# taken up to 5.5 minutes:
# nova-timeout: 720
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

OPS=30000
FSX_ARGS="-l 4m -o 32k -p 25000 -R"

# a random seed in 1..2^31-1, printed so a failure can be reproduced
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
seed=$((seed % 2147483647 + 1))
info "seeds: 1 and $seed"

run_fsx() { # LABEL SEED
	_f=$MNT/fsx-$1
	_t0=$(date +%s)
	echo "+ fsx_nova -N $OPS -S $2 $FSX_ARGS $_f"
	_rc=0
	# shellcheck disable=SC2086
	fsx_nova -N "$OPS" -S "$2" $FSX_ARGS "$_f" || _rc=$?
	info "fsx_nova $1 (seed $2): rc=$_rc, $(($(date +%s) - _t0)) s"
	[ "$_rc" -eq 0 ] || fail "fsx_nova $1 failed (seed $2, rc=$_rc)"
	expect_ok rm "$_f"
	expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after removing the fsx file ($1)"
}

nova_format
# the first create gives the root directory its log page
expect_ok touch "$MNT/first"
free0=$(nova_statfs bfree)
dmesg_mark
run_fsx cow-seed1 1
run_fsx cow-random "$seed"
nova_umount

nova_mount "inplace_data_updates=1"
grep " $MNT " /proc/mounts | grep -q "inplace_data_updates=1" ||
	fail "inplace_data_updates=1 not in the mount options: $(grep " $MNT " /proc/mounts)"
expect_eq "$(nova_statfs bfree)" "$free0" "free blocks after the remount"
run_fsx inplace-seed1 1
run_fsx inplace-random "$seed"
expect_no_dmesg 'Oops|BUG|WARNING|general protection|NOVA.*(error|corrupt)' \
	"no kernel errors during fsx"
nova_umount
