#!/bin/bash
# Print the guest kernel ABI version, e.g. "6.1.0-57-amd64".
#
# Usage: qemu/kernel-version.sh [NAME|KVER]
#   NAME          meta package (suite)                         today
#   deb12         linux-image-amd64 (bookworm)  [the default]  6.1.0-N-amd64
#   deb12-cloud   linux-image-cloud-amd64 (bookworm)           6.1.0-N-cloud-amd64
#   deb12-6.12    linux-image-6.12-amd64 (bookworm-security)   6.12.X+deb12-amd64
#   deb13         linux-image-amd64 (trixie, trixie-security)  6.12.X+deb13-amd64
#   sid, newest   linux-image-amd64 (sid)                      newest, +deb14
#   KVER          an argument that starts with a digit is an ABI string
#                 already and is printed as it is
# Environment:
#   NOVA_KVER=<version>   overrides the default (not an explicit argument)
#   NOVA_KERNEL=<NAME>    the NAME used when there is no argument (default deb12)
#
# This is the ONE place that decides which kernel the guest runs and the module
# is built against. It is what the Debian meta package currently depends on
# (Debian security replaces old ABI packages, so never hard-code it).
#
# deb12*: the host's apt lists (apt-get update only when apt-cache knows
# nothing about the meta package). deb13, sid: private lists of that suite
# (qemu/apt-suite.sh; updated when older than 24 hours).
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

if [ $# -eq 0 ] && [ -n "${NOVA_KVER:-}" ]; then
	echo "$NOVA_KVER"
	exit 0
fi

names="deb12 deb12-cloud deb12-6.12 deb13 sid newest"
name=${1:-${NOVA_KERNEL:-deb12}}
case $name in
[0-9]*)
	echo "$name"
	exit 0
	;;
deb12) suite=bookworm meta=linux-image-amd64 ;;
deb12-cloud) suite=bookworm meta=linux-image-cloud-amd64 ;;
deb12-6.12) suite=bookworm meta=linux-image-6.12-amd64 ;;
deb13) suite=trixie meta=linux-image-amd64 ;;
sid | newest) suite=sid meta=linux-image-amd64 ;;
*) die "unknown kernel name '$name' (known: ${names// /, }; or an ABI string such as 6.1.0-57-amd64)" ;;
esac

resolve() {
	apt_suite "$suite" apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: linux-image-\([0-9][^ ]*\)$/\1/p' | head -n1
}

kver=$(resolve)
if [ -z "$kver" ]; then
	log "apt-cache ($suite) does not know $meta; running apt-get update"
	apt_suite "$suite" apt-get update >&2 || die "apt-get update ($suite) failed"
	kver=$(resolve)
fi
[ -n "$kver" ] || die "cannot resolve the kernel version from 'apt-cache depends $meta' ($suite)"
# A signed meta package names the image; strip -unsigned should one name that.
echo "${kver%-unsigned}"
