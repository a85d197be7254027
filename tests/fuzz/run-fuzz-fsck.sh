#!/bin/bash
# run-fuzz-fsck.sh SECONDS
#
# Build the fsck.nova libFuzzer target with AddressSanitizer and UBSan
# (clang, from Debian's clang and libclang-rt packages: make deps), make
# the seed corpus, replay the regression inputs in tests/fuzz/regress/,
# then fuzz for SECONDS (one process).  A crash, a sanitizer report, a
# leak, a hang (-timeout) or running out of memory (-rss_limit_mb) is a
# failure; its input is saved in build/fuzz/artifacts/ (replay it with
# `build/fuzz/fuzz_fsck FILE`, or turn it into an image with
# `build/fuzz/nova-fuzz-img decode FILE IMG` for the real fsck.nova).
# The corpus grows in build/fuzz/corpus/ across runs.
#
# Prints PASS/FAIL lines (no summary line: the caller counts them);
# exits non-zero on a failure.
set -uo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/fuzz
out=$root/build/fuzz
tools=$root/src/tools
CLANG=${CLANG:-clang}
mkdir -p "$out/corpus" "$out/artifacts"

fail() { echo "FAIL fuzz-fsck: $*"; exit 1; }

make -s -C "$tools" || fail "tools do not build"
warn=(-Wall -Wextra -Werror -std=gnu11 -I"$tools" -I"$root/src")
cc -O2 "${warn[@]}" -o "$out/nova-fuzz-img" "$here/nova-fuzz-img.c" \
	"$here/fuzz_image.c" "$tools/libnova.c" "$tools/nova_tools.c" ||
	fail "nova-fuzz-img does not build"
cc -O2 "${warn[@]}" -o "$out/nova_image" "$root/tests/unit/nova_image.c" \
	"$tools/libnova.c" "$tools/nova_tools.c" || fail "nova_image does not build"
"$CLANG" -g -O1 -fno-omit-frame-pointer "${warn[@]}" \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-DFSCK_NO_MAIN -DNOVA_VERSION='"fuzz"' -o "$out/fuzz_fsck" \
	"$here/fuzz_fsck.c" "$here/fuzz_image.c" "$tools"/fsck/*.c \
	"$tools/libnova.c" "$tools/nova_tools.c" ||
	fail "the fuzz target does not build (clang and libclang-rt-14-dev: make deps)"
"$here/mkcorpus.sh" "$tools" "$out/nova_image" "$out/nova-fuzz-img" \
	"$out/seeds" || fail "the seed corpus cannot be made"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# the inputs of the bugs found so far, one run each
rc=0
for f in "$here"/regress/*; do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	if "$out/fuzz_fsck" "$f" >"$out/regress-$n.log" 2>&1; then
		echo "PASS fuzz-fsck regression $n"
	else
		echo "FAIL fuzz-fsck regression $n (log: build/fuzz/regress-$n.log)"
		tail -n 30 "$out/regress-$n.log" | sed 's/^/    /'
		rc=1
	fi
done

log=$out/fuzz-fsck.log
start=$(date +%s)
"$out/fuzz_fsck" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
	-max_len=65536 -dict="$here/nova.dict" -print_final_stats=1 \
	-artifact_prefix="$out/artifacts/" "$out/corpus" "$out/seeds" \
	>"$log" 2>&1
frc=$?
took=$(($(date +%s) - start))
stats=$(grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" |
	sed 's/^stat:://' | tr '\n' ' ')
cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 |
	grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*')
if [ "$frc" -eq 0 ]; then
	echo "PASS fuzz-fsck: ${took}s, ${stats}${cov} (log: build/fuzz/fuzz-fsck.log)"
else
	echo "FAIL fuzz-fsck: exit $frc after ${took}s (log: build/fuzz/fuzz-fsck.log)"
	grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written|ALARM|out-of-memory' \
		"$log" | head -n 20 | sed 's/^/    /'
	rc=1
fi
exit $rc
