#!/bin/bash
# Build xfstests (fstests) for the guests, outside the repository, cached.
#
# Usage: tests/xfstests/build.sh [--release bookworm|trixie] [--force]
# Prints the directory of the built tree (run ./check there).
#
# The source is the unmodified release tarball in ../shared/xfstests (or
# $NOVA_XFSTESTS_TARBALL); tests/xfstests/patches/*.patch (teaching xfstests
# the NOVA file system) are applied in order. The result is cached in
# $NOVA_CACHE/xfstests/<release>-<hash> where the hash covers the tarball,
# the patches and this script. bookworm's tree is built on the host (Debian
# 12); another release's in its debootstrap chroot (qemu/build-chroot.sh),
# since its libraries (libaio1t64, ...) differ.
set -euo pipefail
NOVA_PROG=xfstests-build
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
release=bookworm force=0
while [ $# -gt 0 ]; do
	case $1 in
	--release) [ $# -ge 2 ] || usage; release=$2; shift ;;
	--release=*) release=${1#--release=} ;;
	--force) force=1 ;;
	*) usage ;;
	esac
	shift
done
case $release in
bookworm | trixie) ;;
*) die "unknown release '$release' (bookworm or trixie)" ;;
esac

# The release tarball: NOVA_XFSTESTS_TARBALL, else ../shared/xfstests beside
# the repository, else the build machines' /work/shared/xfstests.
name=xfstests-v2026.01.27.tar.xz
tarball=${NOVA_XFSTESTS_TARBALL:-}
if [ -z "$tarball" ]; then
	for d in "$NOVA_ROOT/../shared/xfstests" /work/shared/xfstests; do
		[ -f "$d/$name" ] && tarball=$d/$name && break
	done
fi
[ -f "$tarball" ] ||
	die "no xfstests source ($name in ../shared/xfstests or /work/shared/xfstests; or set NOVA_XFSTESTS_TARBALL)"
patchdir=$NOVA_ROOT/tests/xfstests/patches
mapfile -t patches < <(find "$patchdir" -maxdepth 1 -name '*.patch' 2>/dev/null | sort)

# Build dependencies (README of xfstests), Debian names.
build_pkgs=(make gcc autoconf automake libtool libtool-bin pkgconf gawk
	uuid-dev xfslibs-dev libacl1-dev libattr1-dev libaio-dev liburing-dev
	libgdbm-dev libgdbm-compat-dev libcap-dev patch xz-utils)

hash=$({
	sha256sum "$tarball" | cut -d' ' -f1
	cat "${patches[@]}" "$0" </dev/null
	echo "$release"
} | sha256sum | cut -c1-12)
out=$NOVA_CACHE/xfstests/$release-$hash
mkdir -p "$NOVA_CACHE/xfstests"
exec 8>"$NOVA_CACHE/xfstests/.lock"
flock 8
if [ "$force" = 0 ] && [ -f "$out/.complete" ]; then
	echo "$out"
	exit 0
fi

log "building xfstests for $release in $out (a few minutes)"
t0=$SECONDS
rm -rf "$out"
tmp=$(mktemp -d "$NOVA_CACHE/xfstests/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tarball" -C "$tmp"
src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -x "$src/check" ] || die "$tarball: no check script at its top"
for p in "${patches[@]}"; do
	patch -d "$src" -p1 -s --no-backup-if-mismatch <"$p" >"$tmp/patch.log" 2>&1 ||
		{ cat "$tmp/patch.log" >&2; die "patch ${p##*/} does not apply"; }
done

jobs=$(nproc)
if [ "$release" = bookworm ]; then
	ensure_pkgs "${build_pkgs[@]}"
	make -C "$src" -j"$jobs" >"$tmp/build.log" 2>&1 ||
		{ tail -n 40 "$tmp/build.log" >&2; die "make failed (log above)"; }
else
	# The chroot of the release's kernel suite (one per suite).
	chroot=$("$NOVA_QEMU_DIR/build-chroot.sh" "$("$NOVA_QEMU_DIR/kernel-version.sh" deb13)") ||
		die "no $release chroot"
	in_chroot "$chroot" apt-get install -y --no-install-recommends "${build_pkgs[@]}" \
		>"$tmp/apt.log" 2>&1 || { tail -n 30 "$tmp/apt.log" >&2; die "apt-get install in the $release chroot failed"; }
	NOVA_CHROOT_BINDS="$tmp" in_chroot "$chroot" make -C "$src" -j"$jobs" \
		>"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log" >&2; die "make failed (log above)"; }
	as_root chown -R "$(id -u):$(id -g)" "$src"
fi
{ [ -x "$src/ltp/fsx" ] && [ -x "$src/src/godown" ]; } ||
	die "build finished without ltp/fsx (see $tmp/build.log)"
cp "$tmp/build.log" "$src/nova-build.log"
printf '%s\n' "${patches[@]##*/}" >"$src/nova-patches"
date -u +%Y-%m-%dT%H:%M:%SZ >"$src/.complete"
mv "$src" "$out"
log "xfstests built in $((SECONDS - t0)) s: $out"
echo "$out"
