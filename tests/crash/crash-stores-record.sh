#!/bin/sh
# shellcheck shell=sh
# Guest side of tests/crash/run-crash-stores.sh, the recording boot (busybox
# sh).  The host prepends SEQ=, WORKLOADS= (a list of W:INPLACE:GC) and
# NOVA_ARGS= (module parameters, e.g. mutate=N).  The module is the
# NOVA_DEBUG one: for each workload, format the small device, run
# "crashwork ace run" with the persistence trace of the mount, and append
# the trace to the archive on the larger device; unmount.  The module is
# reloaded with inplace_data_updates=1 for the workloads that write in place.
# nova-timeout: 3000
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

[ -b "${PMEM2:-}" ] || fail "no second pmem device for the trace archive"
# the guest does not number the nvdimms in QEMU's order: the archive is
# the larger one
if [ "$(dev_bytes "$PMEM")" -gt "$(dev_bytes "$PMEM2")" ]; then
	t=$PMEM PMEM=$PMEM2 PMEM2=$t
fi
dev=${PMEM#/dev/}
info "file system on $PMEM ($(dev_bytes "$PMEM") bytes), trace archive on $PMEM2"
expect_ok dd if=/dev/zero of="$PMEM2" bs=4096 count=64 conv=notrunc 2>/dev/null

status=0
loaded=0
load() { # INPLACE
	[ "$loaded" = "x$1" ] && return 0
	rmmod nova 2>/dev/null
	# shellcheck disable=SC2086 # a list of parameters
	insmod "$NOVA_KO" $NOVA_ARGS inplace_data_updates="$1" || fail "insmod nova.ko $NOVA_ARGS inplace_data_updates=$1"
	loaded=x$1
}
# a fresh file system each time: the same starting point
fresh() {
	expect_ok dd if=/dev/zero of="$PMEM" bs=1M count=$(($(dev_bytes "$PMEM") >> 20)) conv=notrunc 2>/dev/null
	expect_ok mount -t NOVA -o init "$PMEM" "$MNT"
}
for wi in $WORKLOADS; do
	w=${wi%%:*}
	gc=${wi##*:}
	ip=${wi#*:}
	load "${ip%:*}"
	gcat=""
	if [ "$gc" != 0 ]; then
		# which write runs the GC: a calibration run, then the same
		# writes on a fresh file system with that one traced
		fresh
		crashwork ace run "$MNT" "$w" --seq "$SEQ" --proc "/proc/fs/NOVA/$dev" >/tmp/cal.out 2>&1
		n=$(sed -n 's/^ACE-GC-AT //p' /tmp/cal.out)
		[ -n "$n" ] || { cat /tmp/cal.out; fail "workload $w: GC calibration"; }
		echo "INFO: GC workload $w: write $n runs the first GC"
		gcat="--gc-at $n"
		umount "$MNT" || fail "umount"
	fi
	fresh
	# shellcheck disable=SC2086 # gcat is empty or two words
	if ! crashwork ace run "$MNT" "$w" --seq "$SEQ" --trace "/proc/fs/NOVA/$dev/pmemtrace" \
		--out "$PMEM2" --proc "/proc/fs/NOVA/$dev" $gcat >/tmp/run.out 2>&1; then
		cat /tmp/run.out
		echo "FAIL: workload $w"
		status=1
	else
		grep -E '^(PASS|ACE-GC|INFO: GC)' /tmp/run.out || true
	fi
	umount "$MNT" || { echo "FAIL: umount after workload $w"; status=1; }
done
dmesg | grep 'NOVA-PT' | sed 's/^\[[ 0-9.]*\] //' | sed 's/^/KERNEL: /'
echo "RECORD-DONE status=$status"
exit $status
