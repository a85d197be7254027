#!/bin/bash
# Host unit tests (no guest): the on-pmem format header and the tools.
# Prints PASS/FAIL lines and "N passed, N failed"; exits non-zero on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/unit
mkdir -p "$out"
make -s -C "$root/src/tools"
cc -Wall -Wextra -Werror -O2 -I"$root/src/tools" -o "$out/test_format" \
	"$root/tests/unit/test_format.c" "$root/src/tools/nova_tools.c"
rc=0
"$out/test_format" "$root/src/tools/nova-probe" | tee "$out/test_format.log" || rc=$?
passed=$(grep -c '^PASS ' "$out/test_format.log" || true)
failed=$(grep -c '^FAIL ' "$out/test_format.log" || true)
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
