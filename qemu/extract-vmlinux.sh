#!/bin/bash
# Unpack a compressed x86 kernel (bzImage) into the ELF it carries, for
# QEMU to boot through the kernel's PVH entry point.
#
# Usage: qemu/extract-vmlinux.sh BZIMAGE OUT
#
# Why: under TCG a bzImage spends 4-5 s of an 8-12 s guest boot
# decompressing itself (Debian's kernels are xz or zstd compressed) before
# the kernel's first line.  QEMU loads an ELF kernel that has a PVH entry
# note (CONFIG_PVH, set in every Debian kernel) directly, initrd and
# command line included.  The bzImage's payload is that ELF, compressed:
# find the compressed stream (xz, zstd or gzip magic), unpack it and keep
# the result only if it is an x86-64 ELF with the PVH note (Xen ELF note
# type 18, XEN_ELFNOTE_PHYS32_ENTRY).  Exit status 1 when none is found:
# the caller boots the bzImage as before.
set -euo pipefail
NOVA_PROG=extract-vmlinux
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

[ $# -eq 2 ] || die "usage: $0 BZIMAGE OUT"
bz=$1 out=$2
[ -s "$bz" ] || die "no kernel image: $bz"

ensure_pkgs binutils xz-utils zstd gzip

# is_pvh_elf FILE: an x86-64 ELF executable with a PVH entry note
is_pvh_elf() {
	readelf -h "$1" 2>/dev/null | grep -q 'Machine:.*X86-64' || return 1
	readelf -n "$1" 2>/dev/null | grep -qE 'Xen[[:space:]]+0x[0-9a-f]+[[:space:]]+(NT_XEN_PHYS32_ENTRY|Unknown note type: \(0x00000012\))'
}

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
# magic (as printf escapes) and the decompressor of each format
for fmt in 'xz:\3757zXZ\000' 'zstd:(\265/\375' 'gzip:\037\213\010'; do
	tool=${fmt%%:*}
	magic=$(printf '%b' "${fmt#*:}" | od -An -tx1 | tr -d ' \n')
	pat=$(for ((i = 0; i < ${#magic}; i += 2)); do printf '\\x%s' "${magic:i:2}"; done)
	# byte offsets of the magic (LC_ALL=C grep -obUaP finds binary patterns)
	for off in $(LC_ALL=C grep -obUaP "$pat" "$bz" |
		cut -d: -f1 | head -n 8); do
		# the decompressor complains about what follows the stream (the
		# bzImage's tail); the ELF check below decides
		tail -c +$((off + 1)) "$bz" | "$tool" -dc >"$tmp" 2>/dev/null || true
		if is_pvh_elf "$tmp"; then
			mv -f "$tmp" "$out"
			exit 0
		fi
	done
done
log "$bz: no compressed ELF kernel with a PVH entry note found"
exit 1
