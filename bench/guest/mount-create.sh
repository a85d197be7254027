#!/bin/sh
# shellcheck shell=sh
# `make bench-mount`, first boot: format both pmem devices, create N0 / N1
# empty files (spread over 100 directories) on them, sync, and leave them
# mounted; then print BENCH-POWERCUT, on which the host kills QEMU (power cut).
# One metabench per CPU, each pinned to its CPU and in its own directory
# (cpuK/), with N/ncpu files: NOVA puts a new inode in the inode table of
# the creating CPU's stripe, so the files spread over every stripe, which
# the parallel recovery scan needs to have anything to do in parallel.
# shellcheck source=mount-lib.inc
. /nova/tests/mount-lib.inc
mkdir -p /mnt/b0 /mnt/b1
set -e
mkfs_dev /dev/pmem0 /mnt/b0
mkfs_dev /dev/pmem1 /mnt/b1
ncpu=$(nproc)
create() { # N DIR
	_k=0 _pids=""
	while [ "$_k" -lt "$ncpu" ]; do
		mkdir -p "$2/cpu$_k"
		_n=$(($1 / ncpu))
		[ "$_k" != 0 ] || _n=$((_n + $1 % ncpu))
		taskset -c "$_k" metabench -k -q -n "$_n" -d $((100 / ncpu)) "$2/cpu$_k" &
		_pids="$_pids $!"
		_k=$((_k + 1))
	done
	for _p in $_pids; do wait "$_p"; done
}
create "$N0" /mnt/b0
create "$N1" /mnt/b1
sync
grep /mnt/b /proc/mounts
echo "BENCH-POWERCUT"
while :; do sleep 10; done
