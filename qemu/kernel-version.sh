#!/bin/bash
# Print the guest kernel ABI version, e.g. "6.1.0-57-amd64".
#
# This is the ONE place that decides which kernel the guest runs and the module
# is built against. It is what Debian's linux-image-amd64 meta package currently
# depends on (Debian security replaces old ABI packages, so never hard-code it).
# Override with NOVA_KVER=<version>.
#
# apt-get update is run only when apt-cache knows nothing about the meta package.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

if [ -n "${NOVA_KVER:-}" ]; then
	echo "$NOVA_KVER"
	exit 0
fi

resolve() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: linux-image-\([0-9][^ ]*\)$/\1/p' | head -n1
}

kver=$(resolve)
if [ -z "$kver" ]; then
	log "apt-cache does not know linux-image-amd64; running apt-get update"
	as_root apt-get update >&2 || die "apt-get update failed"
	kver=$(resolve)
fi
[ -n "$kver" ] || die "cannot resolve the kernel version from 'apt-cache depends linux-image-amd64'"
echo "$kver"
