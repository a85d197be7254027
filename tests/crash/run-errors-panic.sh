#!/bin/bash
# errors=panic writes the error state before the panic (make crash-errors).
#
# Usage: tests/crash/run-errors-panic.sh [--kernel K] [--no-build] [--results DIR]
#
# nova_error() records NOVA_STATE_ERROR through a work item; with
# errors=panic that item never runs, so the super block is written first
# (as ext4 commits its super block before it panics).  Boot 1
# (errors-panic-1.sh) damages an image, mounts it with errors=panic and
# opens the damaged file: the guest must panic with NOVA's message, and
# no other kernel warning may come before it.  Boot 2 (errors-panic-2.sh,
# the same pmem file, the usual kernel log scan) checks the error state
# and that fsck.nova finds and repairs the damage.
# Output: PASS/FAIL lines, then "N passed, N failed".
set -uo pipefail
NOVA_PROG=run-errors-panic
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"

usage() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

kernel=${NOVA_KERNEL:-deb12} build=() results=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--no-build) build=(--no-build) ;;
	--results) results=$2; shift ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
here=$NOVA_ROOT/tests/crash
results=${results:-$NOVA_BUILD/crash/errors-panic-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
img=$results/pmem.img
rm -f "$img"
pass=0 fail=0

# Boot 1: its verdict is ours, from the console (the test cannot pass)
"$NOVA_ROOT/tests/run-guest-tests.sh" "${build[@]}" --kernel "$kernel" --pmem "$img" \
	--test-timeout 240 --results "$results/boot1" --script "$here/errors-panic-1.sh" \
	>"$results/boot1.out" 2>&1
con=$results/boot1/console.log
bad="$NOVA_KLOG_BAD|NOVA error"
# kernel lines that match $bad, in order, up to the panic message
hits=$(tr -d '\r' <"$con" 2>/dev/null | sed -nE 's/.*\[ *[0-9]+\.[0-9]+\] //p' |
	awk '/panic forced after error/ { print; exit } { print }' | grep -E "$bad" || true)
if ! grep -aq NOVA-PANIC-ARMED "$con" 2>/dev/null; then
	echo "FAIL errors-panic boot 1: the test did not reach the error (see $results/boot1.out, $con)"
	fail=$((fail + 1))
elif ! grep -aqE 'Kernel panic - not syncing: NOVA \(pmem0\): panic forced after error' "$con"; then
	echo "FAIL errors-panic boot 1: no panic after the error (see $con)"
	fail=$((fail + 1))
elif [ "$(printf '%s\n' "$hits" | grep -cvE 'NOVA error \(pmem0\): inode [0-9]+: data blocks|panic forced after error')" != 0 ]; then
	echo "FAIL errors-panic boot 1: kernel warnings before the panic:"
	printf '%s\n' "$hits" | sed 's/^/    /'
	fail=$((fail + 1))
else
	echo "PASS errors-panic boot 1: the damage panicked the guest (errors=panic)"
	pass=$((pass + 1))
fi

# Boot 2: an ordinary guest test on the same image
if [ -f "$img" ]; then
	out=$results/boot2.out
	"$NOVA_ROOT/tests/run-guest-tests.sh" --no-build --kernel "$kernel" --pmem "$img" \
		--results "$results/boot2" --script "$here/errors-panic-2.sh" >"$out" 2>&1
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	if [ "$line" = "1 passed, 0 failed" ]; then
		echo "PASS errors-panic boot 2: the error state survived the panic"
		pass=$((pass + 1))
	else
		echo "FAIL errors-panic boot 2: ${line:-no result} (see $out)"
		grep -E '^(FAIL|  *FAIL|.*expected)' "$out" | head -n 5 | sed 's/^/    /'
		fail=$((fail + 1))
	fi
else
	echo "FAIL errors-panic boot 2: boot 1 left no pmem image"
	fail=$((fail + 1))
fi
rm -f "$img"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
