#!/bin/bash
# Build the Debian packages nova-dkms and nova-tools (dpkg-buildpackage -us -uc -b)
# in a copy of the tree, and run lintian on the result.
#
# Usage: packaging/build-deb.sh
# Output: build/deb/ holds the .deb files, the .changes and .buildinfo files,
#   build.log and lintian.txt; the last line names the directory.
# Exit status: non-zero when the build fails or lintian reports an error.
set -euo pipefail
NOVA_PROG=build-deb
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"
# shellcheck source=lib.sh
. "$NOVA_QEMU_DIR/../packaging/lib.sh"

ensure_pkgs dpkg-dev debhelper dh-dkms fakeroot gcc make libc6-dev libblkid-dev \
	uuid-dev lintian
version=$(nova_version)
work=$NOVA_BUILD/pkg
out=$NOVA_BUILD/deb
rm -rf "$work" "$out"
mkdir -p "$work" "$out"
copy_tree "$work/nova-$version"

t0=$SECONDS
log "dpkg-buildpackage -us -uc -b in $work/nova-$version"
if ! (cd "$work/nova-$version" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (full log: $out/build.log)"
fi
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out/"
log "built in $((SECONDS - t0)) s: $(cd "$out" && echo ./*.deb)"

# Errors fail the build; warnings and info tags are listed (overrides in
# debian/*.lintian-overrides, each with its reason).
t0=$SECONDS
rc=0
lintian --info --display-info --pedantic --show-overrides --fail-on error \
	"$out"/nova_"${version}"_*.changes >"$out/lintian.txt" 2>&1 || rc=$?
log "lintian ($((SECONDS - t0)) s): $(lintian_summary "$out/lintian.txt")"
grep -E '^[EWIPO]: ' "$out/lintian.txt" | sed 's/^/  /' >&2 || true
[ "$rc" -eq 0 ] || die "lintian reported errors (see $out/lintian.txt)"
echo "$out"
