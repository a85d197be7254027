#!/bin/bash
# Run apt-get or apt-cache against the package lists of one Debian suite,
# without touching the host's apt configuration.
#
# Usage: qemu/apt-suite.sh SUITE apt-get|apt-cache ARGS...
#   SUITE bookworm  the host's own apt configuration, unchanged (the host is
#                   Debian 12); `apt-get update` only when the host has no
#                   bookworm lists at all
#   SUITE trixie    trixie, trixie-updates and trixie-security
#   SUITE sid       sid
# The private configuration of trixie and sid lives in $NOVA_CACHE/apt/SUITE/
# (sources.list, lists/, archives/, an empty dpkg status); its lists are
# updated first when they are missing or older than 24 hours (or always with
# ARGS = update). Mirrors: NOVA_DEBIAN_MIRROR, NOVA_DEBIAN_SECURITY_MIRROR.
#
# Examples:
#   qemu/apt-suite.sh sid apt-cache depends linux-image-amd64
#   (cd /tmp/x && qemu/apt-suite.sh trixie apt-get download linux-image-6.12.118+deb13-amd64)
# `apt-get download` writes into the current directory, which must be
# writable by the _apt user (e.g. a chmod 0777 temp dir).
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

[ $# -ge 2 ] || die "usage: $NOVA_PROG SUITE apt-get|apt-cache ARGS..."
suite=$1
tool=$2
shift 2
case $tool in
apt-get | apt-cache) ;;
*) die "second argument must be apt-get or apt-cache, not '$tool'" ;;
esac

if [ "$suite" = bookworm ]; then
	# The host is bookworm: its own sources, lists and caches.
	if [ "$tool $*" != "apt-get update" ] &&
		! compgen -G "/var/lib/apt/lists/*_dists_bookworm_*Packages*" >/dev/null; then
		log "the host has no bookworm package lists; running apt-get update"
		as_root apt-get update >&2 || die "apt-get update failed"
	fi
	if [ "$tool" = apt-get ] && [ "${1:-}" = update ]; then
		as_root apt-get "$@"
	else
		exec "$tool" "$@"
	fi
	exit
fi

m=$NOVA_DEBIAN_MIRROR
sm=$NOVA_DEBIAN_SECURITY_MIRROR
opt="[signed-by=$NOVA_DEBIAN_KEYRING]"
case $suite in
trixie)
	sources="deb $opt $m trixie main
deb $opt $m trixie-updates main
deb $opt $sm trixie-security main"
	;;
sid) sources="deb $opt $m sid main" ;;
*) die "unknown suite '$suite' (bookworm, trixie or sid)" ;;
esac

d=$NOVA_CACHE/apt/$suite
mkdir -p "$d/lists/partial" "$d/archives/partial" "$d/preferences.d"
[ -e "$d/status" ] || : >"$d/status"
if [ "$(cat "$d/sources.list" 2>/dev/null || true)" != "$sources" ]; then
	printf '%s\n' "$sources" >"$d/sources.list"
	rm -f "$d/.updated" # new sources: the lists must be fetched again
fi

aptopts=(
	-o "Dir::Etc::sourcelist=$d/sources.list"
	-o "Dir::Etc::sourceparts=-"
	-o "Dir::Etc::preferences=$d/preferences"
	-o "Dir::Etc::preferencesparts=$d/preferences.d"
	-o "Dir::State::Lists=$d/lists"
	-o "Dir::State::status=$d/status"
	-o "Dir::Cache::archives=$d/archives"
	-o "Dir::Cache::pkgcache="
	-o "Dir::Cache::srcpkgcache="
	-o "APT::Default-Release="
	-o "Acquire::Languages=none"
)
# $NOVA_CACHE is usually under root's home (mode 0700), which apt's sandbox
# user _apt cannot reach: it would fall back to root with a warning anyway.
[ "$(id -u)" -ne 0 ] || aptopts+=(-o "APT::Sandbox::User=root")

update() {
	log "apt-get update of $suite ($d)"
	# The lock keeps two concurrent callers from updating the same lists.
	flock "$d/.lock" apt-get "${aptopts[@]}" -q update >&2 ||
		die "apt-get update of $suite failed"
	touch "$d/.updated"
}

if [ "$tool" = apt-get ] && [ "${1:-}" = update ]; then
	update
	exit 0
fi
if [ ! -e "$d/.updated" ] || [ -n "$(find "$d/.updated" -mmin +1440)" ]; then
	update
fi
exec "$tool" "${aptopts[@]}" "$@"
