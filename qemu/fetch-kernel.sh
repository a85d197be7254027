#!/bin/bash
# Fetch and extract the guest kernel into the cache (never installed on the host),
# and install the matching headers on the host so modules can be built against
# /lib/modules/<KVER>/build.
#
# Usage: qemu/fetch-kernel.sh [KVER]        (default: qemu/kernel-version.sh)
# Prints the cache directory, which holds:
#   vmlinuz                 the guest kernel
#   config                  its .config
#   root/lib/modules/KVER/  the modules tree (with modules.dep from depmod)
#   .complete               stamp: cache is complete
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

kver=${1:-$(guest_kver)}
dir=$(kernel_cache_dir "$kver")

ensure_pkgs dpkg kmod make gcc
# Headers on the host are fine (and needed for `make -C /lib/modules/KVER/build`).
if ! pkg_installed "linux-headers-$kver"; then
	ensure_pkgs "linux-headers-$kver"
fi
[ -e "/lib/modules/$kver/build/Makefile" ] ||
	die "/lib/modules/$kver/build is missing even though linux-headers-$kver is installed"

if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

log "fetching linux-image-$kver into $dir"
rm -rf "$dir"
mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.tmp.XXXXXX")
dl=$(mktemp -d)
trap 'rm -rf "$tmp" "$dl"' EXIT

# apt-get download writes into the current directory; the sandboxed _apt user
# must be able to write there, so use a world-writable temp dir under /tmp.
chmod 0777 "$dl"
download() { (cd "$dl" && apt-get download "linux-image-$kver" >&2); }
if ! download; then
	log "apt-get download failed; running apt-get update and retrying"
	as_root apt-get update >&2 || die "apt-get update failed"
	download || die "cannot download linux-image-$kver (stale ABI? re-run qemu/kernel-version.sh after apt-get update)"
fi
deb=$(find "$dl" -maxdepth 1 -name "linux-image-${kver}_*.deb" | head -n1)
[ -n "$deb" ] || die "apt-get download produced no .deb"

dpkg-deb -x "$deb" "$tmp/x"
[ -f "$tmp/x/boot/vmlinuz-$kver" ] || die "no boot/vmlinuz-$kver in $deb"
[ -d "$tmp/x/lib/modules/$kver" ] || die "no lib/modules/$kver in $deb"

mv "$tmp/x/boot/vmlinuz-$kver" "$dir/vmlinuz"
[ -f "$tmp/x/boot/config-$kver" ] && mv "$tmp/x/boot/config-$kver" "$dir/config"
[ -f "$tmp/x/boot/System.map-$kver" ] && mv "$tmp/x/boot/System.map-$kver" "$dir/System.map"
mkdir -p "$dir/root/lib/modules"
mv "$tmp/x/lib/modules/$kver" "$dir/root/lib/modules/$kver"

# The .deb ships no modules.dep (its postinst runs depmod): generate it.
# (Debian's System.map is a stub, so no -F symbol check.)
depmod -b "$dir/root" "$kver"
[ -s "$dir/root/lib/modules/$kver/modules.dep" ] || die "depmod produced no modules.dep"

basename "$deb" >"$dir/.complete"
log "kernel $kver cached in $dir"
echo "$dir"
