#!/bin/bash
# Static checks of the module: a W=1 build with zero warnings, sparse,
# and checkpatch.pl from Debian's linux-source-6.1 (cached outside git).
# Prints PASS/FAIL per check and "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../qemu/common.sh
. "$root/qemu/common.sh"
kver=$(guest_kver)
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

kdir=/lib/modules/$kver/build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root"/src/*.c "$root"/src/*.h "$root"/src/Kbuild "$root"/src/Makefile \
	"$root"/src/VERSION "$tmp/"
make -C "$kdir" M="$tmp" W=1 modules >"$out/w1.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -E "warning:|error:" "$out/w1.log" >/dev/null; then
	rc=1
fi
result "build-W=1-no-warnings" $rc "$out/w1.log"

make -C "$kdir" M="$tmp" C=2 CHECK=sparse modules >"$out/sparse.log" 2>&1
rc=$?
if grep -E "warning:|error:" "$out/sparse.log" >/dev/null; then
	rc=1
fi
result "sparse" $rc "$out/sparse.log"

# the module's tracked sources (not generated files such as nova.mod.c)
(cd "$root" && git ls-files 'src/*.c' 'src/*.h' | grep -v '^src/tools/' |
	xargs perl "$cp_dir/scripts/checkpatch.pl" --no-tree --terse -f) |
	grep -v '^total:' >"$out/checkpatch.log"
if grep -E "ERROR|WARNING" "$out/checkpatch.log" >/dev/null; then rc=1; else rc=0; fi
result "checkpatch" $rc "$out/checkpatch.log"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
