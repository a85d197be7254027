#!/bin/sh
# Synchronous writes (O_SYNC, RWF_SYNC: file integrity) make durable what
# fsync would: an in-place overwrite that keeps the size leaves its mtime
# and ctime in DRAM (logged at fsync or writeback), so an O_SYNC or
# RWF_SYNC one runs fsync's work before it returns (IO_stats fsync_calls
# counts it), and its times survive a shutdown that loses DRAM-only
# times as a power cut would (FS_IOC_SHUTDOWN NOLOGFLUSH).  In-place
# mode: the module parameter's mount option and a chattr +C file.
# Writes that leave nothing to make durable pay nothing: copy-on-write
# ones, in-place ones that change the size (both logged before write()
# returns) and O_DSYNC / RWF_DSYNC ones (data integrity: no times).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

P=/proc/fs/NOVA/${PMEM#/dev/}
fsyncs() { sed -n 's/^fsync_calls *//p' "$P/IO_stats"; }
# sw FILE HOW OFF LEN FSYNCS: after a sync (nothing left in DRAM), a
# write that must call fsync FSYNCS times
sw() {
	sync
	_c0=$(fsyncs)
	out=$(nova-fsctl syncwrite "$1" "$2" "$3" "$4") || fail "syncwrite $*: $out"
	expect_eq "$(($(fsyncs) - _c0))" "$5" "fsyncs of a $2 write of $4 bytes at $3 to ${1##*/} ($what)"
}

for what in inplace_data_updates=1 nocow; do
	if [ $what = nocow ]; then
		nova_format
		expect_ok touch "$MNT/f"
		expect_ok nova-fsctl nocow "$MNT/f" +
	else
		nova_format inplace_data_updates=1
	fi
	expect_ok dd if=/dev/urandom of="$MNT/f" bs=4096 count=4 conv=notrunc 2>/dev/null
	sync
	# an in-place overwrite that keeps the size: times in DRAM
	for how in osync rwfsync; do
		sw "$MNT/f" $how 100 5000 1
	done
	for how in odsync rwfdsync plain; do
		sw "$MNT/f" $how 100 5000 0
	done
	# a new size is logged with the times: in place up to EOF, then a
	# new page; in place into a page preallocated past EOF
	sw "$MNT/f" osync 16000 1000 0
	expect_ok nova-fsctl keepsize "$MNT/f" 20480 4096
	sw "$MNT/f" rwfsync 20480 100 0
	expect_eq "$(stat -c %s "$MNT/f")" 20580 "size after the writes ($what)"

	# durable: a shutdown that loses DRAM-only times keeps an O_SYNC write's
	sleep 1
	sw "$MNT/f" osync 0 4096 1
	t1=$out
	expect_ok nova-fsctl shutdown "$MNT" 2
	nova_umount
	nova_mount
	expect_eq "$(nova-fsctl times "$MNT/f")" "$t1" "times of the O_SYNC write after a shutdown ($what)"
	nova_umount
done

# copy-on-write: every write is durable when it returns
nova_format
expect_ok dd if=/dev/urandom of="$MNT/f" bs=4096 count=4 2>/dev/null
sync
what=copy-on-write
for how in osync rwfsync odsync rwfdsync; do
	sw "$MNT/f" $how 100 5000 0
done
nova_umount
