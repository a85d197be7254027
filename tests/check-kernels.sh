#!/bin/bash
# Every test tier on every supported Debian kernel (make check-kernels):
#   lint          W=1 and sparse for each kernel, checkpatch once
#   per kernel    the fast guest tier, the power-cut tier (2 random cuts and
#                 every crash point with its best workload), the CPU-count
#                 moves
#   cross-kernel  images made and power-cut under Debian 12's 6.1 recover and
#                 verify under the newest kernel, and the other way round
#   packages      full-check on Debian 12 and Debian 13, the Debian 12 guest
#                 that installs the 6.12 kernel and reboots into it
#
# Usage: tests/check-kernels.sh [KERNEL...]
#   KERNEL: names of qemu/kernel-version.sh (default: deb12 deb12-cloud
#   deb12-6.12 deb13 sid)
# Environment: NOVA_FULL_CHECK=0 skips the package guests.
# Takes hours under TCG on 2 cores.  Prints a table of the tiers (kernel,
# passed, failed, seconds), then "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
# shellcheck source=../qemu/common.sh
. "$root/qemu/common.sh"
# shellcheck source=check-lib.sh
. "$root/tests/check-lib.sh"
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(deb12 deb12-cloud deb12-6.12 deb13 sid)
start=$SECONDS
summary=()
stamp=$(date +%Y%m%d-%H%M%S)
logs=$root/build/check-kernels/$stamp
mkdir -p "$logs"

# run_tier NAME KVER CMD...: run a tier, add its "N passed, N failed" line
run_tier() {
	local name=$1 kv=$2 log rc t0=$SECONDS
	shift 2
	log=$logs/$name.log
	echo "=== $name: $*"
	"$@" >"$log" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|NOT-REACHED) ' "$log" | grep -v '^PASS' || true
	tier_count "$name" "$log" "$rc" "$t0" || tail -n 15 "$log"
	summary+=("$(printf '| %s | %s | %d | %d | %d |' "$name" "$kv" "$p" "$f" $((SECONDS - t0)))")
}

make -s deps guest-bin >"$logs/build.log" 2>&1 || {
	echo "dependency installation or test binaries failed (see $logs/build.log)"
	echo "0 passed, 1 failed"
	exit 1
}

run_tier lint all tests/lint.sh "${kernels[@]}"
for k in "${kernels[@]}"; do
	kv=$(qemu/kernel-version.sh "$k") || {
		summary+=("| $k | unknown kernel | 0 | 1 | 0 |")
		total_fail=$((total_fail + 1))
		continue
	}
	run_tier "guest-$k" "$kv" tests/run-guest-tests.sh --kernel "$k" --scratch
	run_tier "powercut-$k" "$kv" tests/crash/run-powercut.sh --kernel "$k" \
		--mode both --iterations 2 --workloads best
	run_tier "cpumove-$k" "$kv" env NOVA_KERNEL="$k" \
		tests/crash/run-cpumove.sh --no-build
done

# The format does not depend on the kernel: made and cut on one, verified
# (fsck.nova, recovery, contents, clean remount, leaks) on the other.
old=deb12 new=sid
run_tier "cross-$old-to-$new" "$old -> $new" tests/crash/run-powercut.sh \
	--kernel "$old" --recover-kernel "$new" --iterations 2 --profiles mixed,ns
run_tier "cross-$new-to-$old" "$new -> $old" tests/crash/run-powercut.sh \
	--kernel "$new" --recover-kernel "$old" --iterations 2 --profiles mixed,ns

if [ "${NOVA_FULL_CHECK:-1}" != 0 ]; then
	run_tier full-deb12 "Debian 12" tests/package/full-check.sh --release bookworm
	run_tier full-deb13 "Debian 13" tests/package/full-check.sh --release trixie --no-build
	if [ -x tests/package/kernel-upgrade.sh ]; then
		run_tier kernel-upgrade "6.1 -> 6.12" tests/package/kernel-upgrade.sh --no-build
	fi
fi

echo "=== tiers (logs in $logs):"
echo "| tier | kernel | passed | failed | s |"
echo "| --- | --- | ---: | ---: | ---: |"
printf '%s\n' "${summary[@]}"
echo "=== check-kernels took $((SECONDS - start)) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$total_pass" -gt 0 ]
