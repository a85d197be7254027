#!/bin/bash
# The store-level crash checker must be able to fail: run it on the debug
# module's two deliberate ordering bugs (src/pmem.h, enum nova_mutation):
#   mutate=1  nova_log_commit() stores the log tail without flushing it
#   mutate=2  nova_journal_start() stores the journal tail without a fence
#             after the journal entries
# each on a few workloads that reach the path.  Each mutant passes here
# only when tests/crash/run-crash-stores.sh fails on it, and its report
# names the call, the store and the crash image.
#
# Usage: tests/crash/run-crash-mutants.sh [--no-build] [--kernel K] [--results DIR]
# Output: one PASS/FAIL line per mutant, then "N passed, N failed".
set -euo pipefail
NOVA_PROG=run-crash-mutants
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"

args=() results=""
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) args+=(--no-build) ;;
	--kernel) args+=(--kernel "$2"); shift ;;
	--results) results=$2; shift ;;
	*) die "unknown option: $1" ;;
	esac
	shift
done
[ -n "$results" ] || results=$NOVA_BUILD/crash-stores/mutants-$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"
# create;fsync, rename;fsync, pwrite;fsync (log commits; the fsync is
# the call after) and unlink, rename across directories, link (journal)
declare -A wl=([1]=50,59,75 [2]=5,10,4)
passed=0 failed=0
for m in 1 2; do
	rc=0
	"$NOVA_ROOT/tests/crash/run-crash-stores.sh" "${args[@]}" --mutate "$m" \
		--workloads "${wl[$m]}" --results "$results/mutate$m" >"$results/mutate$m.out" 2>&1 || rc=$?
	args=(--no-build)
	why=""
	[ "$rc" != 0 ] || why="the checker passed"
	grep -q '^plan: ' "$results/mutate$m/plan.txt" 2>/dev/null || why="${why:+$why; }no plan"
	# a report: the call and store (MISSING-FLUSH, or a failed image's
	# description with its kept and dropped stores)
	report=$( { grep -m1 '^MISSING-FLUSH' "$results/mutate$m/plan.txt" || true
		grep -m1 -A12 '^--- crash image' "$results/mutate$m/check.log" || true; } 2>/dev/null)
	[ -n "$report" ] || why="${why:+$why; }no report naming the call, store and image"
	if [ -z "$why" ]; then
		echo "PASS mutate=$m: the checker fails ($(tail -n 2 "$results/mutate$m.out" | head -n 1))"
		echo "$report" | sed 's/^/    /'
		passed=$((passed + 1))
	else
		echo "FAIL mutate=$m: $why (see $results/mutate$m.out)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
