#!/bin/bash
# Build (or reuse from the cache) the debug guest kernel: Debian's 6.1 source
# (package linux-source-6.1) with x86_64 defconfig + qemu/debug-kernel.config
# (KASAN, lockdep, KFENCE, UBSAN, DEBUG_LIST, DEBUG_ATOMIC_SLEEP; pmem, DAX,
# NVDIMM, ext4, xfs built in, so the guest needs no module but nova.ko).
#
# Usage: qemu/build-debug-kernel.sh [--config-only]
#   --config-only   stop after generating and checking .config (no compile)
# Environment: NOVA_KJOBS (make -j, default 2; the build runs under nice -n 19).
# Prints the cache directory $NOVA_CACHE/debug-kernel/<key>/, key = hash of the
# config fragment, the source package version and the compiler version. It holds:
#   bzImage          the kernel
#   build/           the O= build tree (KDIR for external modules: .config,
#                    Module.symvers, modules_prepare output; needs the source
#                    tree in $NOVA_CACHE/debug-kernel/src-<version>/, kept too)
#   kernelrelease    `uname -r` of the kernel (e.g. 6.1.192-nova-debug)
#   build.log        full build output; build-time: seconds the compile took
#   .complete        stamp: everything above is there
# Idempotent: a complete cache entry is reused without running make at all.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

config_only=0
case ${1:-} in
--config-only) config_only=1 ;;
"") ;;
*) die "usage: $0 [--config-only]" ;;
esac

fragment="$NOVA_QEMU_DIR/debug-kernel.config"
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${NOVA_KJOBS:-2}
ensure_pkgs linux-source-6.1 make gcc flex bison bc libelf-dev libssl-dev xz-utils cpio kmod
[ -f "$tarball" ] || die "$tarball missing although linux-source-6.1 is installed"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
ccver=$(gcc --version | head -n1)
key=$({
	echo "source=linux-source-6.1 $srcver"
	echo "cc=$ccver"
	cat "$fragment"
} | sha256sum | cut -c1-16)
base="$NOVA_CACHE/debug-kernel"
dir="$base/$key"
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$base"

# One build at a time per machine (2 shared cores).
exec 8>"$base/.lock"
if ! flock -n 8; then
	log "another debug-kernel build holds $base/.lock; waiting"
	flock 8
fi
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

# --- source tree (unpacked once per source package version, never modified) ----
srcdir="$base/src-$srcver"
src="$srcdir/linux-source-6.1"
if [ ! -f "$srcdir/.complete" ]; then
	log "unpacking $tarball into $srcdir (about 1 min)"
	rm -rf "$srcdir"
	mkdir -p "$srcdir"
	nice -n 19 tar -xf "$tarball" -C "$srcdir"
	[ -f "$src/Makefile" ] || die "no linux-source-6.1/Makefile in $tarball"
	echo "$srcver" >"$srcdir/.complete"
fi

# --- configuration -----------------------------------------------------------------
obj="$dir/build"
mkdir -p "$obj"
kmake() { nice -n 19 make -C "$src" O="$obj" "$@"; }
if [ ! -f "$dir/.config-ok" ]; then
	log "configuring $obj (defconfig + $(basename "$fragment"))"
	kmake -s defconfig >&2
	(cd "$obj" && nice -n 19 "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$fragment" >"$dir/merge.log" 2>&1) ||
		{ cat "$dir/merge.log" >&2; die "merge_config.sh failed"; }
	kmake -s olddefconfig >&2
	# Every setting of the fragment must have survived (a missing dependency
	# silently drops an option: then this is not the kernel we asked for).
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			opt=${line%%=*}
			got=$(grep -E "^$opt=|^# $opt is not set" "$obj/.config" || true)
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			got=$(grep -E "^$opt=" "$obj/.config" || true)
			[ -n "$got" ] || got=$line
			;;
		*) continue ;;
		esac
		if [ "$got" != "$line" ]; then
			log "config: wanted '$line', got '${got:-<absent>}'"
			bad=1
		fi
	done <"$fragment"
	[ "$bad" = 0 ] || die "the config fragment did not apply cleanly (see above)"
	cp "$fragment" "$dir/config.fragment"
	touch "$dir/.config-ok"
fi
[ "$config_only" = 0 ] || { echo "$dir"; exit 0; }

# --- compile -----------------------------------------------------------------------
# `all` = vmlinux, bzImage and the (few) defconfig modules, which produces
# Module.symvers; modules_prepare makes the tree usable for external modules.
log "compiling the debug kernel with -j$jobs under nice -n 19 (30-90 min); log: $dir/build.log"
start=$(date +%s)
if ! kmake -j"$jobs" all modules_prepare >"$dir/build.log" 2>&1; then
	tail -n 30 "$dir/build.log" >&2
	die "kernel build failed; full log: $dir/build.log"
fi
secs=$(($(date +%s) - start))
for f in arch/x86/boot/bzImage Module.symvers include/generated/utsrelease.h scripts/mod/modpost; do
	[ -e "$obj/$f" ] || die "build finished but $obj/$f is missing"
done
cp "$obj/arch/x86/boot/bzImage" "$dir/bzImage"
kmake -s kernelrelease >"$dir/kernelrelease"
echo "$secs" >"$dir/build-time"
date -u +%FT%TZ >"$dir/.complete"
log "debug kernel $(cat "$dir/kernelrelease") built in $((secs / 60)) min $((secs % 60)) s: $dir"
echo "$dir"
