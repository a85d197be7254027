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
