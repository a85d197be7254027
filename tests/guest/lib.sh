# shellcheck shell=sh
# Helper library for guest tests (busybox sh). Use it from a test with
#   . "$NOVA_TESTS/lib.sh"
#
# Environment set by /init for every test:
#   PMEM=/dev/pmem0  MNT=/mnt/nova       the fsdax pmem device and a mount point
#   PMEM2=/dev/pmem1 MNT2=/mnt/nova2     only when a second nvdimm is attached
#   NOVA_TESTS=/nova/tests  NOVA_KO=/nova/nova.ko  TEST_NAME=<this test>
# A test passes when it exits 0. /init prints "NOVA-TEST: PASS|FAIL <name>" for it
# and unmounts $MNT/$MNT2 if the test left them mounted.

# Print "FAIL: msg" and end the test with status 1.
fail() {
	echo "FAIL: $*"
	exit 1
}

# Print an informational line.
info() {
	echo "INFO: $*"
}

# Run a command that must succeed; fail the test otherwise.
expect_ok() {
	echo "+ $*"
	_nova_rc=0
	"$@" || _nova_rc=$?
	[ "$_nova_rc" -eq 0 ] || fail "expected success, got rc=$_nova_rc: $*"
}

# Run a command that must fail (non-zero exit); fail the test if it succeeds.
expect_fail() {
	echo "+ (must fail) $*"
	_nova_rc=0
	"$@" || _nova_rc=$?
	[ "$_nova_rc" -ne 0 ] || fail "expected failure, but it succeeded: $*"
	echo "  failed as expected (rc=$_nova_rc)"
}

# expect_eq ACTUAL EXPECTED [MSG]: string equality.
expect_eq() {
	[ "$1" = "$2" ] || fail "${3:-values differ}: got '$1', expected '$2'"
}

# Put a unique marker into the kernel log; dmesg_since_mark prints what the
# kernel logged after it. Typical use:
#   dmesg_mark
#   expect_fail mount -t NOVA "$PMEM" "$MNT"
#   expect_dmesg 'NOVA.*(bad|invalid)' "a refused mount says why"
dmesg_mark() {
	_nova_mark_n=$((${_nova_mark_n:-0} + 1))
	NOVA_MARK="NOVA-MARK ${TEST_NAME:-test} $$ $_nova_mark_n $(cut -d' ' -f1 /proc/uptime)"
	# Level 7 (debug): in the log, never on the console.
	echo "<7>$NOVA_MARK" >/dev/kmsg || fail "cannot write to /dev/kmsg"
}

# Kernel log lines after the last dmesg_mark (the marker line itself excluded).
dmesg_since_mark() {
	[ -n "${NOVA_MARK:-}" ] || fail "dmesg_since_mark called without dmesg_mark"
	dmesg | awk -v m="$NOVA_MARK" 'f { print } index($0, m) { f = 1 }'
}

# expect_dmesg REGEX [MSG]: the kernel logged a line matching REGEX (grep -E)
# since the last dmesg_mark.
expect_dmesg() {
	_nova_log=$(dmesg_since_mark)
	if ! printf '%s\n' "$_nova_log" | grep -qE -- "$1"; then
		echo "kernel log since mark:"
		printf '%s\n' "$_nova_log"
		fail "${2:-kernel log has no line matching}: /$1/"
	fi
}

# expect_no_dmesg REGEX [MSG]: no kernel log line since the last dmesg_mark matches.
expect_no_dmesg() {
	_nova_log=$(dmesg_since_mark | grep -E -- "$1") || true
	if [ -n "$_nova_log" ]; then
		printf '%s\n' "$_nova_log"
		fail "${2:-unexpected kernel log lines}: /$1/"
	fi
}
