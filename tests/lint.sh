#!/bin/bash
# Static checks of the module: a W=1 build with zero warnings and sparse
# for each kernel, and checkpatch.pl from Debian's linux-source-6.1 (cached
# outside git).  Of the user-space tools (src/tools): every source built
# with -Wall -Wextra -Werror, and the same checkpatch.
#
# Usage: tests/lint.sh [KERNEL...]   (names or ABI versions of
#        qemu/kernel-version.sh; default: deb12 and sid)
# Prints PASS/FAIL per check and "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../qemu/common.sh
. "$root/qemu/common.sh"
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(deb12 sid)
ensure_pkgs sparse linux-source-6.1 xz-utils perl
out=$root/build/lint
mkdir -p "$out"
pass=0 fail=0
result() { # NAME RC LOG
	if [ "$2" -eq 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1 (see $3)"
		sed 's/^/  /' "$3" | head -n 40
		fail=$((fail + 1))
	fi
}

# checkpatch and its data files, unpacked once per linux-source version
src_tar=$(ls /usr/src/linux-source-6.1.tar.xz)
cp_dir=$NOVA_CACHE/checkpatch/$(stat -c %Y "$src_tar")
if [ ! -f "$cp_dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cp_dir"
	tar -xJf "$src_tar" -C "$cp_dir" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi

# W=1 and sparse, each in its own copy of src/ (qemu/build-module.sh: on
# the host for Debian 12's 6.1, in a chroot of the kernel's release else)
for k in "${kernels[@]}"; do
	kver=$("$root/qemu/kernel-version.sh" "$k") || {
		result "kernel-$k" 1 /dev/null
		continue
	}
	"$root/qemu/fetch-kernel.sh" "$kver" >/dev/null 2>&1 || true
	"$root/qemu/build-module.sh" --kver "$kver" --out "$out/$kver/w1" -- W=1 \
		>/dev/null 2>"$out/$kver-w1.log"
	rc=$?
	if [ $rc -eq 0 ] && grep -E "warning:|error:" "$out/$kver-w1.log" >/dev/null; then
		rc=1
	fi
	result "build-W=1-no-warnings ($kver)" $rc "$out/$kver-w1.log"

	# (not silent, whatever make ran this: the CHECK lines show sparse ran)
	MAKEFLAGS= "$root/qemu/build-module.sh" --kver "$kver" --out "$out/$kver/sparse" -- \
		C=2 CHECK=sparse >/dev/null 2>"$out/$kver-sparse.log"
	rc=$?
	if grep -E "warning:|error:" "$out/$kver-sparse.log" >/dev/null; then
		rc=1
	fi
	# kbuild only warns when it cannot run sparse: then nothing was checked
	if grep -q "not available" "$out/$kver-sparse.log" ||
		! grep -q "^ *CHECK " "$out/$kver-sparse.log"; then
		echo "sparse did not run" >>"$out/$kver-sparse.log"
		rc=1
	fi
	result "sparse ($kver)" $rc "$out/$kver-sparse.log"
done

# the module's tracked sources (not generated files such as nova.mod.c)
# compat.h exists to give one name to types that differ between kernels:
# its typedefs are the point, so checkpatch's NEW_TYPEDEFS is off for it.
(cd "$root" && git ls-files 'src/*.c' 'src/*.h' | grep -v '^src/tools/' |
	grep -vx 'src/compat.h' |
	xargs perl "$cp_dir/scripts/checkpatch.pl" --no-tree --terse -f &&
	perl "$cp_dir/scripts/checkpatch.pl" --no-tree --terse --ignore NEW_TYPEDEFS \
		-f src/compat.h) |
	grep -v '^total:' >"$out/checkpatch.log"
if grep -E "ERROR|WARNING" "$out/checkpatch.log" >/dev/null; then rc=1; else rc=0; fi
result "checkpatch" $rc "$out/checkpatch.log"

# the tools: no warning from the host compiler (as src/tools/Makefile
# builds them, with -Werror), and checkpatch as for the module.  User
# space has no compiler_attributes.h: nova_tools.h defines __printf with
# the attribute checkpatch's PREFER_DEFINED_ATTRIBUTE_MACRO asks to avoid.
rc=0
tools_c=$(cd "$root" && git ls-files 'src/tools/*.c')
for f in $tools_c; do
	echo "CC $f"
	${CC:-cc} -O2 -Wall -Wextra -Werror -std=gnu11 -DNOVA_VERSION='"lint"' \
		-I"$root/src/tools" -c -o /dev/null "$root/$f" 2>&1 || rc=1
done >"$out/tools-build.log"
result "tools-build-Werror" $rc "$out/tools-build.log"
(cd "$root" && git ls-files 'src/tools/*.c' 'src/tools/*.h' |
	xargs perl "$cp_dir/scripts/checkpatch.pl" --no-tree --terse \
		--ignore PREFER_DEFINED_ATTRIBUTE_MACRO -f) |
	grep -v '^total:' >"$out/tools-checkpatch.log"
if grep -E "ERROR|WARNING" "$out/tools-checkpatch.log" >/dev/null; then rc=1; else rc=0; fi
result "tools-checkpatch" $rc "$out/tools-checkpatch.log"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
