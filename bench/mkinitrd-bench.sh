#!/bin/bash
# Build (or reuse from the cache) the benchmark layer of the guest initramfs:
# Debian's fio and perf with all their shared libraries (ldd), stacked on top of
# the base image of qemu/mkinitramfs.sh as a second cpio archive. Kept out of
# the base image so that `make check` boots stay small (this layer is ~110 MB
# uncompressed, mostly fio's ceph/gluster/rdma engines and perf's perl/python).
#
# Usage: bench/mkinitrd-bench.sh       prints the path of the .cpio.gz
set -euo pipefail
NOVA_PROG=mkinitrd-bench
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"

# objdump: perf annotate (--profile)
BINARIES=(/usr/bin/fio /usr/bin/perf /usr/bin/objdump)
ensure_pkgs fio linux-perf binutils cpio gzip libc-bin

declare -A files=()
for b in "${BINARIES[@]}"; do
	[ -x "$b" ] || die "missing $b"
	files[${b#/}]=$b
	while read -r lib; do
		files[${lib#/}]=$lib
	done < <(ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
done

key=$(
	{
		sha256sum <"$0"
		for dst in "${!files[@]}"; do
			printf '%s ' "$dst"
			sha256sum <"${files[$dst]}"
		done | sort
	} | sha256sum | cut -c1-16
)
outdir="$NOVA_CACHE/initramfs"
out="$outdir/bench-$key.cpio.gz"
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
log "building the benchmark initramfs layer $out"
mkdir -p "$outdir"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for dst in "${!files[@]}"; do
	mkdir -p "$stage/$(dirname "$dst")"
	cp -L "${files[$dst]}" "$stage/$dst"
done
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$out.tmp.$$"
mv "$out.tmp.$$" "$out"
find "$outdir" -maxdepth 1 -name "bench-*.cpio.gz" -printf '%T@ %p\n' | sort -rn |
	tail -n +3 | cut -d' ' -f2- | xargs -r rm -f
log "benchmark layer: $(du -h "$out" | cut -f1)"
echo "$out"
