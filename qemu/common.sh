# shellcheck shell=bash
# Shared helpers for the host-side harness scripts. Source it; do not run it.
#   . "$(dirname "$0")/common.sh"

NOVA_PROG=${NOVA_PROG:-$(basename "$0")}
NOVA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NOVA_QEMU_DIR="$NOVA_ROOT/qemu"
NOVA_CACHE=${NOVA_CACHE:-$HOME/.cache/nova}
NOVA_BUILD=${NOVA_BUILD:-$NOVA_ROOT/build}
export DEBIAN_FRONTEND=noninteractive

die() { echo "$NOVA_PROG: error: $*" >&2; exit 1; }
log() { echo "$NOVA_PROG: $*" >&2; }

# Kernel log lines that fail a guest run (grep -E / awk pattern): oopses,
# BUG, WARN, lockups and stalls, sanitizers and the debug kernel's reports:
# "BUG: KASAN: ...", "BUG: KFENCE: ...", "UBSAN: ..." (header "UBSAN:
# shift-out-of-bounds in ..."), lockdep's "WARNING: possible circular locking
# dependency detected" / "possible recursive locking" / "inconsistent lock
# state" / "Invalid wait context", DEBUG_ATOMIC_SLEEP's "BUG: sleeping
# function called from invalid context", DEBUG_LIST's "list_add corruption"
# (named explicitly too, in case a prefix changes).  Runs that never make
# NOVA report damage on purpose add '|NOVA error'.
NOVA_KLOG_BAD='Oops|BUG:|^BUG |kernel BUG|WARNING:|general protection|soft lockup|hard LOCKUP|hung_task|blocked for more than|KASAN|UBSAN|KFENCE:|Call Trace|Kernel panic|detected stalls'
NOVA_KLOG_BAD="$NOVA_KLOG_BAD|possible (circular|recursive) locking|inconsistent lock state|lock inversion|Invalid wait context|sleeping function called|DEBUG_LOCKS_WARN_ON|list_(add|del) corruption|lockdep is turned off"

# pvh_kernel BZIMAGE: the kernel file to give QEMU's -kernel.  The ELF
# inside BZIMAGE, unpacked once into vmlinux.pvh beside it (or into
# $NOVA_CACHE/pvh when that directory is not writable), when it has a PVH
# entry (qemu/extract-vmlinux.sh): it boots 4-5 s faster under TCG, no
# self-decompression.  BZIMAGE itself when it has none, or with
# NOVA_PVH=0.  The PVH entry runs the kernel with 4-level page tables
# (a bzImage on -cpu max turns on 5-level paging); nothing NOVA does
# depends on the paging depth.
pvh_kernel() {
	local bz=$1 out
	if [ "${NOVA_PVH:-1}" != 1 ] || [ ! -s "$bz" ] ||
		[ "$(head -c 4 "$bz" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
		echo "$bz"
		return 0
	fi
	out=$(dirname "$bz")/vmlinux.pvh
	if ! [ -w "$(dirname "$bz")" ]; then
		out=$NOVA_CACHE/pvh/$(sha256sum "$bz" | cut -c1-16).vmlinux
		mkdir -p "$NOVA_CACHE/pvh"
	fi
	if [ -s "$out" ] && [ "$out" -nt "$bz" ]; then
		echo "$out"
	elif "$NOVA_QEMU_DIR/extract-vmlinux.sh" "$bz" "$out" >&2; then
		echo "$out"
	else
		log "booting $bz as it is (slower under TCG)"
		echo "$bz"
	fi
}

# Run a command as root (sudo when we are not root and sudo exists).
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root for: $*"
	fi
}

# Is the Debian package installed?
pkg_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

# Install any of the given Debian packages that are missing. Idempotent and
# quick when everything is already there (no apt call at all).
ensure_pkgs() {
	local p missing=()
	for p in "$@"; do
		pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing host packages: ${missing[*]}"
	if ! as_root apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
		log "apt-get install failed; running apt-get update and retrying"
		as_root apt-get update >&2 || die "apt-get update failed"
		as_root apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
			die "cannot install: ${missing[*]}"
	fi
}

# Resolved guest kernel version (see kernel-version.sh).
guest_kver() {
	"$NOVA_QEMU_DIR/kernel-version.sh"
}

# Cache directory of an extracted guest kernel.
kernel_cache_dir() {
	echo "$NOVA_CACHE/kernel/$1"
}

# Convert a size like 512M / 1G / 4096 (bytes) to bytes.
size_to_bytes() {
	local s=$1 n u
	[[ $s =~ ^([0-9]+)([KkMmGgTt]?)$ ]] || die "bad size: $s (use e.g. 512M, 1G)"
	n=${BASH_REMATCH[1]}
	u=${BASH_REMATCH[2]}
	case $u in
	K | k) n=$((n << 10)) ;;
	M | m) n=$((n << 20)) ;;
	G | g) n=$((n << 30)) ;;
	T | t) n=$((n << 40)) ;;
	esac
	echo "$n"
}

# --- Several Debian kernels -------------------------------------------------
# Mirrors of every suite (the same for bookworm, trixie and sid).
NOVA_DEBIAN_MIRROR=${NOVA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
NOVA_DEBIAN_SECURITY_MIRROR=${NOVA_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
NOVA_DEBIAN_KEYRING=${NOVA_DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

# The Debian suite a kernel ABI string belongs to: bookworm, trixie or sid.
#   6.1.0-N-FLAVOUR -> bookworm   X+deb12-FLAVOUR -> bookworm
#   X+deb13-FLAVOUR -> trixie     X+deb14-FLAVOUR -> sid
# (When forky is released, +deb14 becomes forky and sid moves to +deb15:
# update this table then.)
kver_suite() {
	case $1 in
	6.1.0-[0-9]*-*) echo bookworm ;;
	*+deb12-*) echo bookworm ;;
	*+deb13-*) echo trixie ;;
	*+deb14-*) echo sid ;;
	*) die "kernel '$1': unknown Debian suite (know 6.1.0-N-*, *+deb12-*, *+deb13-*, *+deb14-*)" ;;
	esac
}

# Is the kernel built on the host (headers installed on the host, make -C
# /lib/modules/KVER/build)? Only bookworm's own 6.1 kernels are; every other
# kernel's modules are built in a chroot of its suite (qemu/build-chroot.sh).
kver_on_host() {
	case $1 in
	6.1.0-[0-9]*-*) return 0 ;;
	*) return 1 ;;
	esac
}

# Run apt-get or apt-cache against a suite's package lists (qemu/apt-suite.sh).
apt_suite() {
	"$NOVA_QEMU_DIR/apt-suite.sh" "$@"
}

# Run a command inside a chroot, in a private mount namespace (so nothing
# stays mounted when it ends, even when it is killed), with /proc mounted and
# a clean environment:  in_chroot DIR CMD ARGS...
# NOVA_CHROOT_BINDS="HOSTDIR..." (absolute paths without spaces) bind-mounts
# each HOSTDIR at the same path inside the chroot (the debug kernel's build
# tree, whose files name their own absolute paths, is built and used there).
in_chroot() {
	local root=$1
	shift
	# shellcheck disable=SC2016 # the inner script expands its own arguments
	as_root unshare -m --propagation private -- /bin/sh -euc '
		root=$1
		binds=$2
		shift 2
		mount -t proc proc "$root/proc"
		for d in $binds; do
			case $d in /?*) ;; *) echo "in_chroot: bind $d: not an absolute path" >&2; exit 1 ;; esac
			mkdir -p "$root$d"
			mount --bind "$d" "$root$d"
		done
		# debootstrap makes device nodes only where it may; else take the host'"'"'s.
		[ -c "$root/dev/null" ] || mount --rbind /dev "$root/dev"
		# A private devpts instance, for apt and dpkg.
		if [ -d "$root/dev/pts" ]; then
			mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts"
		fi
		exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			chroot "$root" "$@"
	' in_chroot "$root" "${NOVA_CHROOT_BINDS:-}" "$@"
}
