#!/bin/sh
# shellcheck shell=sh
# `make bench-mount`, first boot: format both pmem devices, create N0 / N1
# empty files (spread over 100 directories) on them, sync, and leave them
# mounted; then print BENCH-POWERCUT, on which the host kills QEMU (power cut).
# shellcheck source=mount-lib.inc
. /nova/tests/mount-lib.inc
mkdir -p /mnt/b0 /mnt/b1
set -e
mkfs_dev /dev/pmem0 /mnt/b0
mkfs_dev /dev/pmem1 /mnt/b1
metabench -k -q -n "$N0" -d 100 /mnt/b0
metabench -k -q -n "$N1" -d 100 /mnt/b1
sync
grep /mnt/b /proc/mounts
echo "BENCH-POWERCUT"
while :; do sleep 10; done
