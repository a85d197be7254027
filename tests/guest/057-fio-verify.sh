#!/bin/sh
# fio data-integrity jobs (tests/guest/fio/verify.fio): sequential,
# random unaligned, overwrite, mixed, vectored, O_DIRECT, mmap and
# parallel writers, each written with crc32c verify headers and read back
# in full; once in copy-on-write mode and once with
# inplace_data_updates=1.  fio comes from Debian's package through the
# initramfs layer that run-guest-tests.sh --fio adds (make check does);
# without it this test fails rather than skip.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

command -v fio >/dev/null 2>&1 ||
	fail "fio is not in this guest (run-guest-tests.sh --fio adds it)"
JOBS=$NOVA_TESTS/fio/verify.fio
export SIZE=${FIO_SIZE:-8m}

run_jobs() { # MODE
	export DIR=$MNT/fio-$1
	free0=$(nova_statfs bfree)
	expect_ok mkdir "$DIR"
	_t0=$(date +%s)
	_rc=0
	fio --output-format=terse --terse-version=3 "$JOBS" >/tmp/fio.out 2>&1 || _rc=$?
	info "fio $1: exit $_rc, $(($(date +%s) - _t0)) s"
	# terse v3: field 3 job name, field 5 error
	awk -F';' 'NF > 5 { print $3, "error=" $5 }' /tmp/fio.out
	[ "$_rc" -eq 0 ] || { cat /tmp/fio.out; fail "fio $1 exited with $_rc"; }
	_jobs=$(awk -F';' 'NF > 5' /tmp/fio.out | wc -l)
	expect_eq "$_jobs" 10 "fio $1: job reports (group_reporting: one per job)"
	_bad=$(awk -F';' 'NF > 5 && $5 != 0' /tmp/fio.out | wc -l)
	expect_eq "$_bad" 0 "fio $1: jobs with an error"
	grep -qi "verify.*fail\|bad magic\|crc32c.*wanted" /tmp/fio.out &&
		fail "fio $1 reported a verify failure"
	expect_ok rmdir "$DIR"
	expect_eq "$(nova_statfs bfree)" "$free0" "fio $1: free blocks after the jobs deleted their files"
}

nova_format
# the first create gives the root directory its log page
expect_ok touch "$MNT/first"
dmesg_mark
run_jobs cow
nova_umount
nova_mount "inplace_data_updates=1"
run_jobs inplace
nova_umount
expect_no_dmesg 'Oops|BUG|WARNING|general protection|NOVA.*(error|corrupt)' \
	"no kernel errors during the fio jobs"
