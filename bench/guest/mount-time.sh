#!/bin/sh
# shellcheck shell=sh
# `make bench-mount`, second boot (same pmem files, after the power cut): time
# the mount that recovers from the crash (NOVA: log scan; ext4/XFS: journal
# replay), count the files, unmount cleanly, then time three mounts after a
# clean unmount. Prints "timeit label=<fs>-<n>-crash|clean ms=..." lines and
# "files <fs>-<n> <count>".
# shellcheck source=mount-lib.inc
. /nova/tests/mount-lib.inc
mkdir -p /mnt/b0 /mnt/b1
rc=0
if [ "$FS" = nova-serial ]; then
	# the recovery scan walks the stripes one after the other
	echo 1 >/sys/module/nova/parameters/serial_scan || exit 1
	echo "serial_scan=$(cat /sys/module/nova/parameters/serial_scan)"
fi
for i in 0 1; do
	dev=/dev/pmem$i mnt=/mnt/b$i
	if [ "$i" = 0 ]; then n=$N0; else n=$N1; fi
	# shellcheck disable=SC2046 # mount_args is a word list
	timeit "$FS-$n-crash" mount $(mount_args) "$dev" "$mnt" || { rc=1; continue; }
	echo "files $FS-$n $(find "$mnt" -type f | wc -l)"
	umount "$mnt" || rc=1
	for _ in 1 2 3; do
		# shellcheck disable=SC2046
		timeit "$FS-$n-clean" mount $(mount_args) "$dev" "$mnt" || rc=1
		umount "$mnt" || rc=1
	done
done
dmesg | grep -iE 'nova|ext4|xfs' | tail -n 20
exit $rc
