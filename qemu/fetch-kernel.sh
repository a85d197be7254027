#!/bin/bash
# Fetch and extract a guest kernel into the cache (never installed on the host).
# For bookworm's 6.1 kernels (the ones built on the host, see kver_on_host in
# common.sh) also install the matching headers on the host, so modules can be
# built against /lib/modules/<KVER>/build. Other kernels touch no host package:
# their modules are built in a chroot (qemu/build-chroot.sh).
#
# Usage: qemu/fetch-kernel.sh [KVER]        (default: qemu/kernel-version.sh)
# The packages come from the kernel's own suite (kver_suite in common.sh:
# bookworm, trixie or sid) through qemu/apt-suite.sh: linux-image-KVER, else
# linux-image-KVER-unsigned, plus every package named after KVER that it
# depends on (sid splits the kernel into linux-image-KVER, a nearly empty
# package, linux-binary-KVER, linux-modules-KVER and linux-base-KVER).
# Prints the cache directory, which holds:
#   vmlinuz                 the guest kernel
#   config                  its .config
#   System.map              Debian's stub System.map (when shipped)
#   root/lib/modules/KVER/  the modules tree (with modules.dep from depmod;
#                           modules may be compressed, *.ko.xz, as in sid)
#   .complete               stamp: cache is complete (lists the .debs used)
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

kver=${1:-$(guest_kver)}
suite=$(kver_suite "$kver")
dir=$(kernel_cache_dir "$kver")

ensure_pkgs dpkg kmod xz-utils
if kver_on_host "$kver"; then
	ensure_pkgs make gcc
	# Headers on the host are fine (and needed for `make -C /lib/modules/KVER/build`).
	if ! pkg_installed "linux-headers-$kver"; then
		ensure_pkgs "linux-headers-$kver"
	fi
	[ -e "/lib/modules/$kver/build/Makefile" ] ||
		die "/lib/modules/$kver/build is missing even though linux-headers-$kver is installed"
fi

mkdir -p "$(dirname "$dir")"
# One fetch per kernel at a time (a second one waits, then finds it cached).
exec 9>"$(dirname "$dir")/.$kver.lock"
flock 9
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

known() { apt_suite "$suite" apt-cache show "$1" >/dev/null 2>&1; }
image=
for attempt in 1 2; do
	for p in "linux-image-$kver" "linux-image-$kver-unsigned"; do
		if known "$p"; then
			image=$p
			break 2
		fi
	done
	[ "$attempt" = 1 ] || break
	log "$suite does not know linux-image-$kver; running apt-get update and retrying"
	apt_suite "$suite" apt-get update >&2 || die "apt-get update ($suite) failed"
done
[ -n "$image" ] ||
	die "$suite has no linux-image-$kver (stale ABI? re-run qemu/kernel-version.sh, which updates the lists)"

log "fetching the $suite kernel $kver ($image) into $dir"
rm -rf "$dir"
mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.tmp.XXXXXX")
dl=$(mktemp -d)
# An incomplete cache dir is never left behind.
trap 'rm -rf "$tmp" "$dl"; [ -f "$dir/.complete" ] || rm -rf "$dir"' EXIT

# apt-get download writes into the current directory; the sandboxed _apt user
# must be able to write there, so use a world-writable temp dir under /tmp.
chmod 0777 "$dl"
download() { (cd "$dl" && apt_suite "$suite" apt-get download -q "$@" >&2); }

# The packages named after KVER that a .deb depends on (first such alternative
# of each dependency), one a line.
kver_deps() {
	dpkg-deb -f "$1" Depends | tr ',' '\n' | while IFS= read -r group; do
		tr '|' '\n' <<<"$group" | sed 's/^ *//; s/[ (].*//' |
			grep -F -x -e "linux-base-$kver" -e "linux-binary-$kver" -e "linux-binary-unsigned-$kver" \
				-e "linux-modules-$kver" -e "linux-image-$kver-unsigned" | head -n1 || true
	done
}

mkdir "$tmp/x"
debs=()
want=("$image")
seen=" "
while [ ${#want[@]} -gt 0 ]; do
	download "${want[@]}" || die "cannot download ${want[*]} from $suite"
	new=()
	for p in "${want[@]}"; do
		seen+="$p "
		deb=$(find "$dl" -maxdepth 1 -name "${p}_*.deb" | head -n1)
		[ -n "$deb" ] || die "apt-get download produced no .deb for $p"
		debs+=("$(basename "$deb")")
		dpkg-deb -x "$deb" "$tmp/x"
		while IFS= read -r d; do
			[ -n "$d" ] || continue
			case "$seen ${new[*]:-} " in *" $d "*) continue ;; esac
			new+=("$d")
		done < <(kver_deps "$deb")
	done
	want=("${new[@]}")
done
rm -rf "$dl"/*.deb

# Where things are: bookworm and trixie ship /boot/vmlinuz-KVER and
# /lib/modules/KVER; sid ships everything in /usr/lib/modules/KVER.
mod=
for m in "$tmp/x/lib/modules/$kver" "$tmp/x/usr/lib/modules/$kver"; do
	[ -d "$m" ] && mod=$m && break
done
[ -n "$mod" ] || die "no lib/modules/$kver or usr/lib/modules/$kver in ${debs[*]}"
first() {
	local f
	for f in "$@"; do
		[ -f "$f" ] && echo "$f" && return 0
	done
	return 0
}
vmlinuz=$(first "$tmp/x/boot/vmlinuz-$kver" "$mod/vmlinuz")
config=$(first "$tmp/x/boot/config-$kver" "$mod/config")
sysmap=$(first "$tmp/x/boot/System.map-$kver" "$mod/System.map")
[ -n "$vmlinuz" ] || die "no boot/vmlinuz-$kver nor ${mod#"$tmp/x/"}/vmlinuz in ${debs[*]}"

mv "$vmlinuz" "$dir/vmlinuz"
[ -z "$config" ] || cp "$config" "$dir/config"
[ -z "$sysmap" ] || cp "$sysmap" "$dir/System.map"
mkdir -p "$dir/root/lib/modules"
mv "$mod" "$dir/root/lib/modules/$kver"

# The .debs ship no modules.dep (their postinst runs depmod): generate it.
# (Debian's System.map is a stub, so no -F symbol check.) The host's kmod
# reads compressed modules (.ko.xz, .ko.zst) too.
depmod -b "$dir/root" "$kver"
[ -s "$dir/root/lib/modules/$kver/modules.dep" ] || die "depmod produced no modules.dep"
# Every module must be in modules.dep; a kmod that cannot read the
# compression would leave them out.
nko=$(find "$dir/root/lib/modules/$kver" -name '*.ko*' | wc -l)
ndep=$(wc -l <"$dir/root/lib/modules/$kver/modules.dep")
[ "$ndep" -eq "$nko" ] || die "depmod listed $ndep of $nko modules in modules.dep"

printf '%s\n' "${debs[@]}" >"$dir/.complete"
log "kernel $kver cached in $dir"
echo "$dir"
