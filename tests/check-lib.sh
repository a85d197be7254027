# shellcheck shell=bash
# What tests/check.sh and tests/check-kernels.sh share: the count of a tier
# from its log.

total_pass=0 total_fail=0

# tier_count NAME LOG RC T0: set p and f from the last "N passed, N failed"
# line of LOG (RC: the tier's exit status, T0: $SECONDS at its start), add
# them to total_pass and total_fail and print them.  No such line, or a
# failing RC with no failed test, counts as one failure; with no line the
# status is 1.
tier_count() {
	local name=$1 log=$2 rc=$3 line ret=0
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	if [ -z "$line" ]; then
		p=0 f=1 ret=1
		echo "=== $name: no result line (rc=$rc; see $log): counted as one failure"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "=== $name: exit status $rc with no failed test: counted as one failure"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	echo "=== $name: $p passed, $f failed, $((SECONDS - $4)) s"
	return $ret
}
