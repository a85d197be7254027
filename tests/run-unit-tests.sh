#!/bin/bash
# Host unit tests (no guest): the on-pmem format header and the tools
# (test_names.sh: the names they print from an image are escaped;
# test_encrypt.sh: fsck.nova on encrypted inodes; test_debug.sh:
# nova-debug; test_project.sh: project IDs, the project quota file;
# test_casefold.sh: case-insensitive directories; test_powercut.sh:
# fsck.nova's repairs cut by a power cut at each commit and barrier, or
# an I/O error; test_xfstests.sh: the xfstests runner's console parsing),
# and a short fuzz run of fsck.nova (tests/fuzz/run-fuzz-fsck.sh).
# Prints PASS/FAIL lines and "N passed, N failed"; exits non-zero on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/unit
mkdir -p "$out"
make -s -C "$root/src/tools"
cc -Wall -Wextra -Werror -O2 -I"$root/src/tools" -o "$out/test_format" \
	"$root/tests/unit/test_format.c" "$root/src/tools/nova_tools.c"
cc -Wall -Wextra -Werror -O2 -I"$root/src/tools" -o "$out/check_mkfs_image" \
	"$root/tests/unit/check_mkfs_image.c" "$root/src/tools/nova_tools.c"
cc -Wall -Wextra -Werror -O2 -I"$root/src/tools" -o "$out/nova_image" \
	"$root/tests/unit/nova_image.c" "$root/src/tools/libnova.c" \
	"$root/src/tools/nova_tools.c"
cc -Wall -Wextra -Werror -O2 -I"$root/src/tools" -o "$out/test_xattr" \
	"$root/tests/unit/test_xattr.c" "$root/src/tools/libnova.c" \
	"$root/src/tools/nova_tools.c"
rc=0
"$out/test_format" "$root/src/tools/nova-probe" | tee "$out/test_format.log" || rc=$?
"$out/test_xattr" "$root/src/tools/mkfs.nova" "$out/xattr" |
	tee "$out/test_xattr.log" || rc=$?
"$root/tests/unit/test_mkfs.sh" "$root/src/tools" "$out/check_mkfs_image" \
	"$out/mkfs" | tee "$out/test_mkfs.log" || rc=$?
"$root/tests/unit/test_fsck.sh" "$root/src/tools" "$out/nova_image" \
	"$out/fsck" | tee "$out/test_fsck.log" || rc=$?
"$root/tests/unit/test_names.sh" "$root/src/tools" "$out/nova_image" \
	"$out/names" | tee "$out/test_names.log" || rc=$?
"$root/tests/unit/test_encrypt.sh" "$root/src/tools" "$out/nova_image" \
	"$out/encrypt" | tee "$out/test_encrypt.log" || rc=$?
"$root/tests/unit/test_debug.sh" "$root/src/tools" "$out/nova_image" \
	"$out/debug" | tee "$out/test_debug.log" || rc=$?
"$root/tests/unit/test_project.sh" "$root/src/tools" "$out/nova_image" \
	"$out/project" | tee "$out/test_project.log" || rc=$?
"$root/tests/unit/test_casefold.sh" "$root/src/tools" "$out/nova_image" \
	"$out/casefold" | tee "$out/test_casefold.log" || rc=$?
"$root/tests/unit/test_powercut.sh" "$root/src/tools" "$out/nova_image" \
	"$out/powercut" | tee "$out/test_powercut.log" || rc=$?
"$root/tests/unit/test_xfstests.sh" "$root/src/tools" - "$out/xfstests" |
	tee "$out/test_xfstests.log" || rc=$?
# fsck.nova fuzzing, short (make fuzz-fsck: the long run)
"$root/tests/fuzz/run-fuzz-fsck.sh" "${NOVA_FUZZ_UNIT_SECS:-30}" |
	tee "$out/fuzz_fsck.log" || rc=$?
logs=("$out/test_format.log" "$out/test_xattr.log" "$out/test_mkfs.log"
      "$out/test_fsck.log" "$out/test_names.log" "$out/test_encrypt.log"
      "$out/test_debug.log" "$out/test_project.log" "$out/test_casefold.log"
      "$out/test_powercut.log" "$out/test_xfstests.log" "$out/fuzz_fsck.log")
passed=$(cat "${logs[@]}" | grep -c '^PASS ' || true)
failed=$(cat "${logs[@]}" | grep -c '^FAIL ' || true)
skipped=$(cat "${logs[@]}" | grep -c '^SKIP ' || true)
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
# a SKIP line (a host without what a case needs) is counted, not passed
line="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
