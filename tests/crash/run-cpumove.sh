#!/bin/bash
# CPU-count moves across a power cut (make crash-cpumove).
#
# Usage: tests/crash/run-cpumove.sh [--iterations N] [--seed S] [--results DIR]
#                                   [--no-build] [--crashpoint POINT]
#
# NOVA gives a new file system one stripe (free list, inode table, journal)
# per online CPU, and keeps that number; allocation picks a stripe by the
# current CPU modulo the stripe count and the recovery scan runs one
# worker per stripe.  So a file system must survive moving between guests
# with different CPU counts, also right after a power cut:
#
#   made on 4 CPUs (4 stripes), cut, recovered on 1 CPU and on 2 CPUs
#   made on 1 CPU (1 stripe), cut, recovered on 4 CPUs
#
# Each case is tests/crash/run-powercut.sh --mode random (N cuts, default 1)
# with --smp / --recover-smp: every recovery works on its own copy of the
# cut image and runs the full verification (fsck.nova, crashwork verify
# against the records, allocator stress, clean remount, leak check, fsck
# clean; the stripe count must be the formatting guest's).  With
# --crashpoint POINT, each case also crashes at that numbered point (debug
# module) and recovers the same way.
# Output: the PASS/FAIL lines of the runs, then "N passed, N failed".
set -euo pipefail
NOVA_PROG=run-cpumove
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

iterations=1 seed="" results="" build=() cp=""
while [ $# -gt 0 ]; do
	case $1 in
	--iterations) iterations=$2; shift ;;
	--seed) seed=$2; shift ;;
	--results) results=$2; shift ;;
	--no-build) build=(--no-build) ;;
	--crashpoint) cp=$2; shift ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
[ -n "$seed" ] || seed=$(($(date +%s) % 1000000))
[ -n "$results" ] || results=$NOVA_BUILD/crash/$(date +%Y%m%d-%H%M%S)-cpumove-$$
mkdir -p "$results"
t0=$(date +%s)
mode=random
[ -z "$cp" ] || mode=both
pass=0 fail=0
# case SMP RECOVER_SMP STRIPES
run_case() {
	local out=$results/smp$1-to-${2//,/-} line p f rc=0
	log "made on $1 CPU(s), cut, recovered on $2 CPU(s)"
	"$NOVA_ROOT/tests/crash/run-powercut.sh" --mode "$mode" --iterations "$iterations" \
		--seed "$seed" --smp "$1" --recover-smp "$2" --expect-stripes "$3" \
		${cp:+--points "$cp" --workloads best} --results "$out" "${build[@]}" \
		>"$out.log" 2>&1 || rc=$?
	grep -E '^(PASS|FAIL|NOT-REACHED) ' "$out.log" || true
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out.log" | tail -n 1 || true)
	if [ -z "$line" ]; then
		echo "FAIL cpumove $1 -> $2: no result line (rc=$rc; see $out.log)"
		tail -n 20 "$out.log"
		fail=$((fail + 1))
		return
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL cpumove $1 -> $2: exit status $rc (see $out.log)"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f))
	# the next case reuses this one's builds
	build=(--no-build)
	seed=$((seed + 100))
}

# a 256 MiB device is large enough for 4 stripes (nova_format_stripes())
run_case 4 1,2 4
run_case 1 4 1
log "results in $results; took $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
