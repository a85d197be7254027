#!/bin/bash
# Build (or reuse from the cache) the debug guest kernel: Debian's kernel
# source (package linux-source-X.Y) with x86_64 defconfig +
# qemu/debug-kernel.config (KASAN, lockdep, KFENCE, UBSAN, DEBUG_LIST,
# DEBUG_ATOMIC_SLEEP; pmem, DAX, NVDIMM, ext4, xfs built in, so the guest
# needs no module but nova.ko).
#
# Usage: qemu/build-debug-kernel.sh [--kernel NAME|KVER] [--config-only]
#   --kernel K      whose source: a name of qemu/kernel-version.sh or an ABI
#                   version (default deb12). deb12 and deb12-cloud (and any
#                   6.1.0-N-* ABI): bookworm's linux-source-6.1, installed and
#                   built on the host with the host's gcc. Any other kernel
#                   (sid: the newest, deb13, deb12-6.12): linux-source-X.Y of
#                   the kernel's own version, installed and built in the
#                   chroot of its suite (qemu/build-chroot.sh) with the
#                   compiler Debian built that kernel with (e.g. gcc-16 in
#                   sid); the host's apt is not touched.
#   --config-only   stop after generating and checking .config (no compile)
# Environment: NOVA_KJOBS (make -j, default 2; the build runs under nice -n 19).
#
# Config: qemu/debug-kernel.config, then for a kernel X.Y every
# qemu/debug-kernel-A.B.config with A.B <= X.Y, in version order (options
# renamed or removed in A.B): a line "-CONFIG_FOO" drops CONFIG_FOO from the
# fragment, any other CONFIG_FOO setting replaces the one before it. The
# result is $DIR/config.fragment; every setting in it must hold in the final
# .config, else the build stops.
#
# Prints the cache directory $NOVA_CACHE/debug-kernel/<key>/, key = hash of the
# config fragment, the source package version and the compiler version (and,
# for chroot builds, the suite and the make variables). It holds:
#   bzImage          the kernel
#   build/           the O= build tree (KDIR for external modules: .config,
#                    Module.symvers, modules.builtin, modules_prepare output;
#                    needs the source tree in
#                    $NOVA_CACHE/debug-kernel/src-<version>/, kept too)
#   kernelrelease    `uname -r` of the kernel (e.g. 6.1.192-nova-debug)
#   build.log        full build output; build-time: seconds the compile took
#   config.fragment  the fragment applied; merge.log: merge_config.sh's output
#   chroot           only for chroot builds: the suite (e.g. sid). External
#                    modules must be built in $NOVA_CACHE/chroot/SUITE with
#                    $NOVA_CACHE/debug-kernel bind-mounted at its own path
#                    (qemu/build-module.sh --kernel-tree DIR does that); the
#                    build tree's tools only run there
#   make-vars        only for chroot builds: make variables of every make
#                    against this tree, one a line (CC=..., HOSTCC=...)
#   .complete        stamp: everything above is there
# Idempotent: a complete cache entry is reused without running make at all.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

config_only=0 kernel=deb12
while [ $# -gt 0 ]; do
	case $1 in
	--config-only) config_only=1 ;;
	--kernel) [ $# -ge 2 ] || usage; kernel=$2; shift ;;
	--kernel=*) kernel=${1#--kernel=} ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done

base_fragment="$NOVA_QEMU_DIR/debug-kernel.config"
jobs=${NOVA_KJOBS:-2}
base="$NOVA_CACHE/debug-kernel"

# --- which kernel: host (bookworm's 6.1) or a chroot --------------------------------
suite="" root=""
case $kernel in
deb12 | deb12-cloud) ;; # today's kernel: no apt lookup at all
*)
	kver=$("$NOVA_QEMU_DIR/kernel-version.sh" "$kernel") || die "unknown kernel '$kernel'"
	kver_on_host "$kver" || suite=$(kver_suite "$kver")
	;;
esac

if [ -z "$suite" ]; then
	# Bookworm's 6.1 on the host: the cache key is the same as before
	# --kernel existed, so an existing cache entry stays valid.
	pkg=linux-source-6.1
	mm=6.1
	tarball=/usr/src/$pkg.tar.xz
	ensure_pkgs $pkg make gcc flex bison bc libelf-dev libssl-dev xz-utils cpio kmod
	[ -f "$tarball" ] || die "$tarball missing although $pkg is installed"
	srcver=$(dpkg-query -W -f='${Version}' $pkg)
	ccver=$(gcc --version | head -n1)
	mvars=()
	extra_key=""
else
	[[ $kver =~ ^([0-9]+)\.([0-9]+)\. ]] || die "cannot tell the version of kernel $kver"
	mm=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
	pkg=linux-source-$mm
	# The chroot with the kernel's headers (they name its compiler).
	root=$("$NOVA_QEMU_DIR/build-chroot.sh" "$kver") || die "no $suite chroot for $kver"
	hdr=/usr/src/linux-headers-$kver
	# The compiler Debian built the kernel with, e.g. x86_64-linux-gnu-gcc-16
	# (the first word of CONFIG_CC_VERSION_TEXT); the chroot has no plain gcc.
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$root$hdr/.config")
	[ -n "$cc" ] || die "no CONFIG_CC_VERSION_TEXT in $root$hdr/.config"
	mvars=("CC=$cc" "HOSTCC=$cc")
	# linux-source-X.Y of the same version as the kernel's headers (one
	# source package), and what building a kernel needs; in the chroot.
	exec 9>"$NOVA_CACHE/chroot/.$suite.lock" # as qemu/build-chroot.sh
	flock 9
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	ver=$(in_chroot "$root" apt-cache show --no-all-versions "linux-headers-$kver" |
		sed -n 's/^Version: //p' | head -n1)
	[ -n "$ver" ] || die "apt-cache in $root knows no linux-headers-$kver"
	tools=(make flex bison bc libssl-dev openssl libelf-dev pahole cpio kmod rsync python3 perl
		xz-utils zstd binutils libc6-dev)
	apt_args=(-q -y -o APT::Sandbox::User=root)
	# shellcheck disable=SC2016 # a dpkg-query format
	srcver=$(in_chroot "$root" dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
	if [ "$srcver" != "$ver" ] || ! in_chroot "$root" dpkg -s "${tools[@]}" >/dev/null 2>&1; then
		log "installing $pkg=$ver and the kernel build tools in $root"
		in_chroot "$root" apt-get "${apt_args[@]}" install "$pkg=$ver" "${tools[@]}" >&2 ||
			die "installing $pkg=$ver in $root failed (stale kernel ABI? re-run qemu/kernel-version.sh)"
		in_chroot "$root" apt-get "${apt_args[@]}" clean >&2
	fi
	exec 9>&-
	# shellcheck disable=SC2016 # a dpkg-query format
	srcver=$(in_chroot "$root" dpkg-query -W -f='${Version}' "$pkg")
	[ "$srcver" = "$ver" ] || die "$pkg $srcver installed in $root, not $ver"
	# 7.2.13-1 is the source of 7.2.13+deb14-amd64.
	[ "${srcver%%-*}" = "${kver%%+*}" ] ||
		log "note: $pkg $srcver is not the source of $kver exactly (${kver%%+*})"
	tarball=$root/usr/src/$pkg.tar.xz
	[ -f "$tarball" ] || die "$tarball missing although $pkg is installed"
	ccver=$(in_chroot "$root" "$cc" --version | head -n1)
	extra_key="chroot=$suite
make-vars=${mvars[*]}"
fi

# The fragment: the base one, then the changes for newer kernels.
deltas=()
while IFS= read -r f; do
	[ -f "$f" ] || continue # no match: the glob itself
	v=${f##*/debug-kernel-}
	v=${v%.config}
	# v <= mm (sort -V) applies.
	if [ "$(printf '%s\n%s\n' "$v" "$mm" | sort -V | head -n1)" = "$v" ]; then
		deltas+=("$f")
	fi
done < <(printf '%s\n' "$NOVA_QEMU_DIR"/debug-kernel-[0-9]*.[0-9]*.config | sort -V)
effective_fragment() {
	local f line opt
	cat "$base_fragment"
	[ ${#deltas[@]} -gt 0 ] || return 0
	for f in "${deltas[@]}"; do
		echo
		echo "# --- $(basename "$f") (kernels $(basename "$f" .config | sed 's/^debug-kernel-//') and newer)"
		while IFS= read -r line; do
			case $line in
			-CONFIG_*) echo "# dropped: ${line#-}" ;;
			*) echo "$line" ;;
			esac
		done <"$f"
	done
}
# Drops and replacements: the last setting of an option wins, "-CONFIG_FOO"
# removes every setting of FOO before it.
resolve_fragment() {
	awk '
	function optname(l,   o) {
		if (l ~ /^CONFIG_[A-Za-z0-9_]+=/) { o = l; sub(/=.*/, "", o); return o }
		if (l ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) { o = l; sub(/^# /, "", o); sub(/ .*/, "", o); return o }
		if (l ~ /^# dropped: CONFIG_[A-Za-z0-9_]+$/) { o = l; sub(/^# dropped: /, "", o); return o }
		return ""
	}
	{ lines[NR] = $0; o = optname($0); if (o != "") last[o] = NR }
	END {
		for (i = 1; i <= NR; i++) {
			o = optname(lines[i])
			if (o != "" && last[o] != i) continue
			print lines[i]
		}
	}'
}
# (Without deltas, e.g. for 6.1, exactly the base file: the key is the one
# of the script before --kernel existed.)
fragment_out() {
	if [ ${#deltas[@]} -eq 0 ]; then
		cat "$base_fragment"
	else
		effective_fragment | resolve_fragment
	fi
}

key=$({
	echo "source=$pkg $srcver"
	echo "cc=$ccver"
	[ -z "$extra_key" ] || echo "$extra_key"
	fragment_out
} | sha256sum | cut -c1-16)
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
src="$srcdir/$pkg"
if [ ! -f "$srcdir/.complete" ]; then
	log "unpacking $tarball into $srcdir (about 1 min)"
	rm -rf "$srcdir"
	mkdir -p "$srcdir"
	nice -n 19 tar -xf "$tarball" -C "$srcdir"
	[ -f "$src/Makefile" ] || die "no $pkg/Makefile in $tarball"
	echo "$srcver" >"$srcdir/.complete"
fi

# --- configuration -----------------------------------------------------------------
obj="$dir/build"
mkdir -p "$obj"
if [ -z "$suite" ]; then
	kmake() { nice -n 19 make -C "$src" O="$obj" "$@"; }
	# shellcheck disable=SC2317 # called below
	krun() { nice -n 19 "$@"; }
else
	# In the chroot, with the cache bind-mounted at its own path (so the
	# absolute paths in the build tree hold inside and outside).
	kmake() { NOVA_CHROOT_BINDS=$base in_chroot "$root" nice -n 19 make -C "$src" O="$obj" "${mvars[@]}" "$@"; }
	# shellcheck disable=SC2317 # called below
	krun() { NOVA_CHROOT_BINDS=$base in_chroot "$root" nice -n 19 "$@"; }
fi
fragment="$dir/config.fragment"
if [ ! -f "$dir/.config-ok" ]; then
	fragment_out >"$fragment"
	log "configuring $obj ($pkg $srcver: defconfig + $(basename "$base_fragment")${deltas[*]:+ + $(for f in "${deltas[@]}"; do basename "$f"; done | tr '\n' ' ' | sed 's/ $//')})"
	kmake -s defconfig >&2
	krun env -C "$obj" "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$fragment" >"$dir/merge.log" 2>&1 ||
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
	[ "$bad" = 0 ] || die "the config fragment did not apply cleanly (see above; merge_config.sh's output: $dir/merge.log)"
	touch "$dir/.config-ok"
fi
[ "$config_only" = 0 ] || { echo "$dir"; exit 0; }

# --- compile -----------------------------------------------------------------------
# `all` = vmlinux, bzImage and the (few) defconfig modules, which produces
# Module.symvers; modules_prepare makes the tree usable for external modules.
log "compiling the debug kernel ($pkg${suite:+ in the $suite chroot}) with -j$jobs under nice -n 19 (30-90 min); log: $dir/build.log"
start=$(date +%s)
if ! kmake -j"$jobs" all modules_prepare >"$dir/build.log" 2>&1; then
	tail -n 30 "$dir/build.log" >&2
	die "kernel build failed; full log: $dir/build.log"
fi
secs=$(($(date +%s) - start))
for f in arch/x86/boot/bzImage Module.symvers include/generated/utsrelease.h scripts/mod/modpost \
	modules.builtin modules.builtin.modinfo; do
	[ -e "$obj/$f" ] || die "build finished but $obj/$f is missing"
done
cp "$obj/arch/x86/boot/bzImage" "$dir/bzImage"
kmake -s kernelrelease >"$dir/kernelrelease"
echo "$secs" >"$dir/build-time"
if [ -n "$suite" ]; then
	printf '%s\n' "${mvars[@]}" >"$dir/make-vars"
	echo "$suite" >"$dir/chroot"
fi
date -u +%FT%TZ >"$dir/.complete"
log "debug kernel $(cat "$dir/kernelrelease") built in $((secs / 60)) min $((secs % 60)) s: $dir"
echo "$dir"
