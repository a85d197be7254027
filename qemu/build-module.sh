#!/bin/bash
# Build the module for one kernel, outside src/, and print the path of the .ko.
#
# Usage: qemu/build-module.sh [--kver KVER | --kernel-tree DIR] [--debug] [--out DIR]
#                              [-- EXTRA_MAKE_ARGS...]
#   --kver KVER   kernel ABI string (default: qemu/kernel-version.sh, so
#                 NOVA_KERNEL=deb13 etc. work; a NAME such as deb13 is
#                 accepted here too)
#   --kernel-tree DIR  build against a self-built kernel instead: DIR as
#                 printed by qemu/build-debug-kernel.sh (KDIR=DIR/build, KVER
#                 = DIR/kernelrelease; default output dir
#                 $NOVA_BUILD/debug-kernel/module-KVER). A tree built in a
#                 chroot (DIR/chroot names its suite) is built against in that
#                 chroot, with DIR's parent bind-mounted at its own path and
#                 DIR/make-vars (CC=...) on the make command line; one built
#                 on the host, on the host
#   --debug       debug build: adds NOVA_DEBUG=1 (crash points); default
#                 output dir .../KVER-debug
#   --out DIR     output dir (default: $NOVA_BUILD/module/KVER[-debug])
#   -- ARGS       more make arguments, e.g. W=1, C=2, KCFLAGS=-g
# Environment:
#   NOVA_MODULE_SRC   module source dir (default: src/ of this repo)
#   NOVA_MODULE_NAME  module name (default: nova), the .ko printed
#
# The sources (SRC/*.c, *.h, Kbuild, Makefile, VERSION, and every
# subdirectory of SRC but tools/; no build products, nothing that git
# ignores) are copied to DIR, only files whose contents changed, so make
# rebuilds only what changed; files that left SRC are removed from DIR. Then:
#   - a bookworm 6.1 kernel (kver_on_host in common.sh) is built on the host:
#       make -C DIR KVER=KVER [NOVA_DEBUG=1] ARGS...
#   - any other kernel in the chroot of its suite (qemu/build-chroot.sh makes
#     it): the sources are copied to CHROOT/build/nova-KVER[-debug], the same
#     make runs there (KDIR=/usr/src/linux-headers-KVER) through unshare -m
#     and chroot, and MODULE.ko and build.log are copied back to DIR.
#   - --kernel-tree DIR: as above, with KDIR=DIR/build, on the host or in
#     the chroot that built DIR.
# The compiler output goes to stderr and to DIR/build.log; stdout is only
# the path of the .ko. Exits non-zero when the build fails.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

kver='' debug=0 out='' ktree=''
while [ $# -gt 0 ]; do
	case $1 in
	--kver) [ $# -ge 2 ] || die "--kver needs a value"; kver=$2; shift 2 ;;
	--kver=*) kver=${1#--kver=}; shift ;;
	--kernel-tree) [ $# -ge 2 ] || die "--kernel-tree needs a value"; ktree=$2; shift 2 ;;
	--kernel-tree=*) ktree=${1#--kernel-tree=}; shift ;;
	--debug) debug=1; shift ;;
	--out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift 2 ;;
	--out=*) out=${1#--out=}; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
extra=("$@")

# A self-built kernel (the debug kernel): its release, build tree, make
# variables, and the suite of the chroot that built it ("" = the host).
kdir='' kmvars=() tree_suite=''
if [ -n "$ktree" ]; then
	[ -z "$kver" ] || die "--kver and --kernel-tree exclude each other"
	ktree=$(cd "$ktree" && pwd) || die "no such directory: $ktree"
	[ -f "$ktree/.complete" ] || die "$ktree is not a complete kernel build (qemu/build-debug-kernel.sh)"
	kver=$(cat "$ktree/kernelrelease")
	kdir=$ktree/build
	[ ! -f "$ktree/make-vars" ] || mapfile -t kmvars <"$ktree/make-vars"
	[ ! -f "$ktree/chroot" ] || tree_suite=$(cat "$ktree/chroot")
fi
case $kver in
"") kver=$(guest_kver) ;;
[0-9]*) ;;
*) kver=$(NOVA_KVER='' "$NOVA_QEMU_DIR/kernel-version.sh" "$kver") ;; # a NAME
esac
if [ -n "$ktree" ]; then
	suite=${tree_suite:-host}
else
	suite=$(kver_suite "$kver")
fi
src=${NOVA_MODULE_SRC:-$NOVA_ROOT/src}
name=${NOVA_MODULE_NAME:-nova}
[ -f "$src/Makefile" ] || die "no Makefile in the module source $src"
src=$(cd "$src" && pwd)
variant=$kver
[ "$debug" = 0 ] || variant=$kver-debug
if [ -n "$ktree" ]; then
	out=${out:-$NOVA_BUILD/debug-kernel/module-$variant}
else
	out=${out:-$NOVA_BUILD/module/$variant}
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $out/ in
"$src"/*) die "the output dir $out must not be inside the source $src" ;;
esac

margs=("KVER=$kver")
[ "$debug" = 0 ] || margs+=(NOVA_DEBUG=1)
# CC=... of a self-built tree: on make's command line, so it reaches the
# kernel's make and compat/probe.sh's (through MAKEFLAGS) too.
[ ${#kmvars[@]} -eq 0 ] || margs+=("${kmvars[@]}")

# The source files, relative to SRC, one a line.
source_files() {
	(
		cd "$src"
		{
			for f in *.c *.h Kbuild Makefile VERSION; do
				if [ -f "$f" ]; then echo "$f"; fi
			done
			find . -mindepth 2 -type f ! -path './tools/*' ! -path '*/.*' | sed 's|^\./||'
		} | { grep -v -E '(\.o|\.ko|\.a|\.mod|\.mod\.c|\.dwo|\.symvers|/modules\.order)$|^(modules\.order|Module\.symvers)$' || true; } |
			if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
				# Drop what git ignores: build products such as nova_config.h
				# that an in-place build (make -C src) left behind.
				{ git check-ignore -v -n --stdin || true; } | sed -n 's/^::\t//p'
			else
				cat
			fi
	) | sort -u
}

# Copy the sources to DIR (changed files only); remove files that a former
# copy made and that are gone from SRC (the manifest .nova-sources).
sync_sources() {
	local dst=$1 f
	local -a files
	mapfile -t files < <(source_files)
	[ ${#files[@]} -gt 0 ] || die "no module sources in $src"
	mkdir -p "$dst"
	if [ -f "$dst/.nova-sources" ]; then
		while IFS= read -r f; do
			[ -n "$f" ] || continue
			printf '%s\n' "${files[@]}" | grep -qxF -- "$f" || rm -f "$dst/$f"
		done <"$dst/.nova-sources"
	fi
	for f in "${files[@]}"; do
		if ! cmp -s "$src/$f" "$dst/$f"; then
			mkdir -p "$dst/$(dirname "$f")"
			cp "$src/$f" "$dst/$f"
		fi
	done
	printf '%s\n' "${files[@]}" >"$dst/.nova-sources"
}

# One build per output dir at a time (a second one waits).
exec 8>"$out/.nova-build.lock"
flock 8
sync_sources "$out"
rm -f "$out/$name.ko"

# make, its output to stderr and to a log; the status is make's.
run_logged() {
	local logf=$1
	shift
	local rc=0
	"$@" 2>&1 | tee "$logf" >&2 || rc=$?
	# pipefail: a failing make gives the pipe its status.
	return "$rc"
}

if [ -n "$ktree" ] && [ -z "$tree_suite" ]; then
	margs+=("KDIR=$kdir")
	log "building $name.ko for $kver ($ktree) on the host: make -C $out ${margs[*]} ${extra[*]:-}"
	run_logged "$out/build.log" make -C "$out" "${margs[@]}" "${extra[@]}" ||
		die "build of $name.ko for $kver failed (log: $out/build.log)"
elif [ -z "$ktree" ] && kver_on_host "$kver"; then
	[ -f "/lib/modules/$kver/build/Makefile" ] ||
		die "no headers for $kver on the host: run qemu/fetch-kernel.sh $kver"
	log "building $name.ko for $kver on the host: make -C $out ${margs[*]} ${extra[*]:-}"
	run_logged "$out/build.log" make -C "$out" "${margs[@]}" "${extra[@]}" ||
		die "build of $name.ko for $kver failed (log: $out/build.log)"
else
	binds=''
	if [ -n "$ktree" ]; then
		# The chroot that built the tree (qemu/build-debug-kernel.sh made
		# it); the cache dir with the tree and its source, at its own path.
		root=$NOVA_CACHE/chroot/$tree_suite
		[ -f "$root/.nova/base-complete" ] || die "no $tree_suite chroot at $root (it built $ktree)"
		binds=$(dirname "$ktree")
		kd=$kdir
	else
		root=$("$NOVA_QEMU_DIR/build-chroot.sh" "$kver")
		kd=/usr/src/linux-headers-$kver
	fi
	bdir=/build/$name-$variant
	[ -z "${NOVA_CHROOT_BUILD_DIR:-}" ] || bdir=$NOVA_CHROOT_BUILD_DIR
	# ... and per build dir in the chroot, which other output dirs share.
	mkdir -p "$root$bdir"
	exec 7>"$root$bdir/.nova-build.lock"
	flock 7
	sync_sources "$root$bdir"
	rm -f "$root$bdir/$name.ko"
	margs+=("KDIR=$kd")
	log "building $name.ko for $kver in the $suite chroot: make -C $bdir ${margs[*]} ${extra[*]:-}"
	rc=0
	NOVA_CHROOT_BINDS=$binds run_logged "$out/build.log" in_chroot "$root" make -C "$bdir" "${margs[@]}" "${extra[@]}" || rc=$?
	[ "$rc" = 0 ] || die "build of $name.ko for $kver failed in $root$bdir (log: $out/build.log)"
	[ -f "$root$bdir/$name.ko" ] || die "the build made no $name.ko in $root$bdir"
	cp "$root$bdir/$name.ko" "$out/$name.ko"
fi

ko=$out/$name.ko
[ -f "$ko" ] || die "the build made no $ko"
vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null || true)
case $vermagic in
"$kver "*) ;;
*) die "$ko is built for '${vermagic%% *}', not $kver" ;;
esac
log "built $ko"
echo "$ko"
