#!/bin/bash
# Build the RPM packages nova-dkms (noarch) and nova-tools from nova.spec with
# rpmbuild -ba, from a tarball of the tree.
#
# Usage: packaging/build-rpm.sh
# Output: build/rpm/ (rpmbuild's _topdir): RPMS/noarch/nova-dkms-*.rpm,
#   RPMS/<arch>/nova-tools-*.rpm, SRPMS/nova-*.src.rpm, build.log; the last
#   line names the directory.
# On a Debian host the BuildRequires (Fedora package names) cannot be checked
# against the empty rpm database, so rpmbuild runs with --nodeps there; the
# Debian equivalents (libblkid-dev, uuid-dev, gcc, make) are installed instead.
set -euo pipefail
NOVA_PROG=build-rpm
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"
# shellcheck source=lib.sh
. "$NOVA_QEMU_DIR/../packaging/lib.sh"

nodeps=()
if command -v dpkg >/dev/null 2>&1; then
	ensure_pkgs rpm gcc make libc6-dev libblkid-dev uuid-dev cpio
	nodeps=(--nodeps)
fi
version=$(nova_version)
spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$NOVA_ROOT/nova.spec")
[ "$spec_version" = "$version" ] ||
	die "nova.spec has Version: $spec_version but src/VERSION is $version"

top=$NOVA_BUILD/rpm
rm -rf "$top"
mkdir -p "$top"/{SOURCES,SPECS,BUILD,RPMS,SRPMS}
copy_tree "$top/tmp/nova-$version"
tar -C "$top/tmp" -czf "$top/SOURCES/nova-$version.tar.gz" "nova-$version"
rm -rf "$top/tmp"
cp "$NOVA_ROOT/nova.spec" "$top/SPECS/"

t0=$SECONDS
log "rpmbuild -ba ${nodeps[*]} in $top"
if ! rpmbuild -ba "${nodeps[@]}" --define "_topdir $top" "$top/SPECS/nova.spec" \
	>"$top/build.log" 2>&1; then
	tail -n 40 "$top/build.log" >&2
	die "rpmbuild failed (full log: $top/build.log)"
fi
log "built in $((SECONDS - t0)) s: $(cd "$top" && echo RPMS/*/*.rpm SRPMS/*.rpm)"
echo "$top"
