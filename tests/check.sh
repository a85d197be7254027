#!/bin/bash
# The test command (README.md, tests/README.md, .ci/run): host unit tests, lint, the fast guest
# tier on Debian 12's kernel and on the newest Debian kernel (there without
# the randomized long runs, SID_SKIP), the power-cut tiers and the power
# cuts that once failed, xfstests' smoke subset, then the cheap package
# tier; NOVA_FULL_CHECK=1 adds the cloud-init package guests of Debian 12
# and 13 (make check-packages, about 6 min each).  It must stay under 45
# minutes on 2 cores.  make check-kernels runs every tier on every
# supported kernel (tests/check-kernels.sh).
# Installs its own dependencies.  Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
start=$(date +%s)
# shellcheck source=check-lib.sh
. "$root/tests/check-lib.sh"

# run_tier NAME CMD...: run a tier, add its "N passed, N failed" line
summary=()
run_tier() {
	local name=$1 log rc t0=$SECONDS
	shift
	log=$root/build/check-$name.log
	mkdir -p "$root/build"
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	tier_count "$name" "$log" "$rc" "$t0"
	summary+=("$(printf '%-12s %4d passed, %d failed, %4d s' "$name" "$p" "$f" $((SECONDS - t0)))")
}

if ! make -s deps; then
	echo "dependency installation failed"
	echo "0 passed, 1 failed"
	exit 1
fi
run_tier unit make -s unit
# W=1 and sparse on Debian 12's 6.1 and on the newest kernel (sid), checkpatch
run_tier lint tests/lint.sh deb12 sid
if make -s guest-bin; then
	# The fast guest tier on Debian 12's kernel and on the newest one;
	# there without the randomized long runs (kernel-independent logic,
	# about 5 min of TCG; make check-kernels runs them on every kernel)
	run_tier guest-deb12 tests/run-guest-tests.sh --kernel deb12 --scratch
	run_tier guest-sid tests/run-guest-tests.sh --kernel sid --scratch \
		--skip "${SID_SKIP:-056-fsx,095-stress-short,076-enospc-stress,090-fuzz-short}"
	# Power cuts (make crash-check): 3 random QEMU kills during a recorded
	# workload (one in an encrypted directory, one with clones and dedupe)
	# + every numbered crash point (a NOVA_DEBUG=1 build) with its best
	# workload, each followed by a verification boot (fsck, recovery,
	# contents, leaks).
	run_tier powercut tests/crash/run-powercut.sh --kernel deb12 --mode both \
		--iterations 3 --profiles mixed,crypt,clone --workloads best
	# CPU-count moves (make crash-cpumove, about 3 min of QEMU): made on
	# 4 CPUs, cut, recovered on 1 and 2; made on 1, recovered on 4.
	run_tier cpumove env NOVA_KERNEL=deb12 tests/crash/run-cpumove.sh --no-build
	# The power cuts that once failed (tests/crash/regressions.list)
	run_tier crash-regress tests/crash/run-regressions.sh --kernel deb12 --no-build
	# Races made certain by fault injection (tests/guest/debug-*.sh, the
	# NOVA_DEBUG=1 module the power-cut tier built): make guest-debug
	run_tier guest-debug tests/run-guest-tests.sh --debug-module --kernel deb12
else
	echo "=== guest: test binaries failed to build"
	total_fail=$((total_fail + 1))
fi
# xfstests' smoke subset on NOVA (make xfstests-smoke: 20 generic tests
# in a Debian 12 guest, compared with tests/xfstests/expected/NOVA)
run_tier xfstests make -s xfstests-smoke
# Packages: the cheap tier always; the cloud-init guest tier on Debian 12
# and Debian 13 (about 6 min each, plus a few minutes once to build each
# cached image: make check-packages) with NOVA_FULL_CHECK=1.
run_tier package tests/package/package-check.sh
if [ "${NOVA_FULL_CHECK:-0}" = 1 ]; then
	run_tier full-deb12 tests/package/full-check.sh --release bookworm
	run_tier full-deb13 tests/package/full-check.sh --release trixie
fi
echo "=== tiers:"
printf '    %s\n' "${summary[@]}"
echo "=== check took $(($(date +%s) - start)) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$total_pass" -gt 0 ]
