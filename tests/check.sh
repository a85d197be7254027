#!/bin/bash
# The test command (README, .ci/run): host unit tests, then the fast guest
# tier, the power-cut tiers, then the package tiers (NOVA_FULL_CHECK=0
# skips the cloud-init one).
# Installs its own dependencies.  Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
start=$(date +%s)
total_pass=0 total_fail=0

# run_tier NAME CMD...: run a tier, add its "N passed, N failed" line
run_tier() {
	local name=$1 log line p f rc=0
	shift
	log=$root/build/check-$name.log
	mkdir -p "$root/build"
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	if [ -z "$line" ]; then
		p=0 f=1
		echo "=== $name: no result line (rc=$rc): counted as one failure"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "=== $name: exit status $rc with no failed test: counted as one failure"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
}

if ! make -s deps; then
	echo "dependency installation failed"
	echo "0 passed, 1 failed"
	exit 1
fi
run_tier unit make -s unit
run_tier lint tests/lint.sh
if make -s module guest-bin; then
	run_tier guest tests/run-guest-tests.sh --no-build --scratch
	# Power cuts (make crash-check): 2 random QEMU kills during a recorded
	# workload + every numbered crash point (a NOVA_DEBUG=1 build of a copy
	# of src/) with its best workload, each followed by a verification boot
	# (fsck, recovery, contents, leaks).
	run_tier powercut env NOVA_KO="$root/src/nova.ko" \
		tests/crash/run-powercut.sh --mode both --iterations 2 --workloads best
	# CPU-count moves (make crash-cpumove, about 3 min of QEMU): made on
	# 4 CPUs, cut, recovered on 1 and 2; made on 1, recovered on 4.
	run_tier cpumove tests/crash/run-cpumove.sh --no-build
else
	echo "=== guest: module or test binaries failed to build"
	total_fail=$((total_fail + 1))
fi
# Packages: the cheap tier always; the cloud-init guest tier (about 5 min, plus
# about 3 min once to build its cached image) unless NOVA_FULL_CHECK=0.
run_tier package tests/package/package-check.sh
if [ "${NOVA_FULL_CHECK:-1}" != 0 ]; then
	run_tier full tests/package/full-check.sh
fi
echo "=== check took $(($(date +%s) - start)) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$total_pass" -gt 0 ]
