#!/bin/bash
# Run the power cuts of tests/crash/regressions.list, each at its crash
# point with its workload and seed (tests/crash/run-powercut.sh
# --mode crashpoints); extra arguments go to run-powercut.sh (e.g.
# --kernel sid).  Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$root/tests/crash/regressions.list
passed=0 failed=0 build=()
while read -r point workload seed why; do
	case $point in '' | '#'*) continue ;; esac
	echo "=== $point $workload seed $seed: $why"
	if "$root/tests/crash/run-powercut.sh" --mode crashpoints --points "$point" \
		--workloads "$workload" --seed "$seed" "${build[@]}" "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	# one build is enough
	build=(--no-build)
done <"$list"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
