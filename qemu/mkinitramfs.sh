#!/bin/bash
# Build (or reuse from the cache) the base initramfs for the guest:
#   busybox-static with applet links, /init (qemu/guest/init), the kernel modules
#   for emulated pmem (nfit, libnvdimm, nd_pmem, nd_btt, dax_pmem) plus ext4 and
#   xfs with their dependencies (modules.dep etc. so the guest's modprobe works),
#   quota_v2 (disk quotas), the algorithms fscrypt uses (sha512, xts, cts, aesni),
#   ndctl, mkfs.ext4, mkfs.xfs and xfs_io (fallocate, FIEMAP and mmap
#   commands of the tests) with their shared libraries and loader.
# The per-run payload (nova.ko, tests, run.conf) is a second cpio archive made by
# qemu/mkpayload.sh and appended at boot.
#
# Usage: qemu/mkinitramfs.sh [KVER]     (default: qemu/kernel-version.sh)
#        qemu/mkinitramfs.sh --kernel-tree DIR
#   --kernel-tree DIR   for a self-built kernel with every driver built in (the
#                       debug kernel: DIR as printed by qemu/build-debug-kernel.sh):
#                       no modules, only DIR/build's modules.builtin{,.modinfo} so
#                       /init and modprobe see them as built in; the version is
#                       DIR/kernelrelease. Fails if a needed driver is not built in.
# Prints the path of the gzip-compressed cpio archive, cached in
# $NOVA_CACHE/initramfs/ under a hash of all inputs.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

# What goes in. Extend these lists to add tools (hash-keyed, so the cache follows).
# fscrypt's algorithms (default policy: AES-256-XTS, AES-256-CTS; v2 keys: HMAC-SHA512)
MODULES=(libnvdimm nfit nd_pmem nd_btt dax_pmem ext4 xfs crc32c_generic crc32c-intel loop overlay quota_v2
	sha512_generic ecb xts cts aesni-intel)
BINARIES=(/usr/bin/ndctl /usr/sbin/mkfs.ext4 /usr/sbin/mkfs.xfs /usr/sbin/xfs_io)
EXTRA_FILES=(/etc/mke2fs.conf)

ktree=""
if [ "${1:-}" = --kernel-tree ]; then
	[ -n "${2:-}" ] || die "--kernel-tree needs a directory"
	ktree=$(cd "$2" && pwd) || die "no such directory: $2"
	[ -f "$ktree/.complete" ] || die "$ktree is not a complete kernel build"
	kver=$(cat "$ktree/kernelrelease")
	MODULES=()
else
	kver=${1:-$(guest_kver)}
fi
ensure_pkgs busybox-static cpio gzip xz-utils zstd kmod ndctl e2fsprogs xfsprogs libc-bin
if [ -z "$ktree" ]; then
	kdir=$("$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver")
	kroot="$kdir/root"
fi
mdir="lib/modules/$kver"
busybox=/bin/busybox
"$busybox" --list-full >/dev/null 2>&1 || die "$busybox is not busybox-static"

# --- collect the inputs -------------------------------------------------------
declare -A files=() # destination path in the initramfs -> host source path
files[bin/busybox]=$busybox
files[init]="$NOVA_QEMU_DIR/guest/init"
for f in "${EXTRA_FILES[@]}"; do files[${f#/}]=$f; done

for b in "${BINARIES[@]}"; do
	[ -x "$b" ] || die "missing $b"
	files[${b#/}]=$b
	# ldd prints "name => /path (addr)" and "/lib64/ld-linux-x86-64.so.2 (addr)".
	while read -r lib; do
		files[${lib#/}]=$lib
	done < <(ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
done

# Modules in dependency order (insmod lines), from the extracted tree's modules.dep.
# --ignore-install: the host's /etc/modprobe.d must not leak in.
load_order=()
declare -A seen=()
for m in "${MODULES[@]}"; do
	out=$(modprobe -d "$kroot" -S "$kver" --ignore-install --show-depends "$m" 2>&1) || {
		case $m in
		# crc32c_generic: gone in 6.14 (CRC32C is a library function since)
		# sha512_generic, ecb: built in on 7.x
		dax_pmem | crc32c-intel | crc32c_generic | sha512_generic | ecb | aesni-intel)
			log "note: module $m not available, skipped"; continue ;;
		*) die "module $m: $out" ;;
		esac
	}
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		rel=${path#"$kroot"/}
		[ -n "${seen[$rel]:-}" ] && continue
		seen[$rel]=1
		load_order+=("$rel")
		files[$rel]=$path
	done <<<"$out"
done
if [ -z "$ktree" ]; then
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$kroot/$mdir/$f" ] && files[$mdir/$f]="$kroot/$mdir/$f"
	done
else
	# Everything the guest needs must be built in: a missing driver would
	# otherwise only show up as a vague setup failure in the guest.
	for f in modules.builtin modules.builtin.modinfo; do
		[ -f "$ktree/build/$f" ] || die "$ktree/build/$f missing"
		files[$mdir/$f]="$ktree/build/$f"
	done
	for m in libnvdimm nfit nd_pmem nd_btt dax_pmem ext4 xfs loop overlay; do
		grep -q "/$m\.ko\$" "$ktree/build/modules.builtin" ||
			die "$m is not built into the kernel in $ktree (see qemu/debug-kernel.config)"
	done
fi

# --- cache key: kernel version, this script and its helpers, all file contents --
key=$(
	{
		echo "kver=$kver"
		echo "ktree=$ktree"
		echo "modules=${MODULES[*]:-}"
		cat "$0" "$NOVA_QEMU_DIR/common.sh" | sha256sum
		for dst in "${!files[@]}"; do
			printf '%s ' "$dst"
			sha256sum <"${files[$dst]}"
		done | sort
	} | sha256sum | cut -c1-16
)
outdir="$NOVA_CACHE/initramfs"
out="$outdir/base-$kver-$key.cpio.gz"
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

# --- build -----------------------------------------------------------------------
log "building base initramfs $out"
mkdir -p "$outdir"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,mnt,etc}

# busybox applet links first, so the real tools copied below replace them.
while read -r applet; do
	[ "$applet" = bin/busybox ] && continue
	mkdir -p "$stage/$(dirname "$applet")"
	ln -sf /bin/busybox "$stage/$applet"
done < <("$busybox" --list-full)

for dst in "${!files[@]}"; do
	mkdir -p "$stage/$(dirname "$dst")"
	rm -f "$stage/$dst"
	cp -L "${files[$dst]}" "$stage/$dst"
done
chmod 0755 "$stage/init"
# A real tool wins over a busybox applet of the same name anywhere in PATH.
for b in "${BINARIES[@]}"; do
	n=$(basename "$b")
	for d in bin sbin usr/bin usr/sbin; do
		[ -L "$stage/$d/$n" ] && rm -f "$stage/$d/$n"
	done
done

# Compressed modules (not used by Debian 6.1, but cheap to support): unpack them.
while IFS= read -r -d '' ko; do
	case $ko in
	*.xz) xz -d "$ko" ;;
	*.zst) zstd -q -d --rm "$ko" ;;
	*.gz) gzip -d "$ko" ;;
	esac
done < <(find "$stage/lib/modules" \( -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz' \) -print0)
# A kernel without modules (--kernel-tree) has no modules.order: an empty one
# keeps depmod quiet.
[ -f "$stage/$mdir/modules.order" ] || : >"$stage/$mdir/modules.order"
depmod -b "$stage" "$kver"
printf "%s\n" "${load_order[@]}" | sed -E "s/\.ko\.(xz|zst|gz)$/.ko/" >"$stage/$mdir/nova-load-order"

ln -s /proc/self/mounts "$stage/etc/mtab"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"
# Device nodes for the early console (the kernel opens /dev/console before /init).
as_root mknod -m 600 "$stage/dev/console" c 5 1
as_root mknod -m 666 "$stage/dev/null" c 1 3

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 >"$out.tmp.$$"
mv "$out.tmp.$$" "$out" # atomic: a concurrent build of the same key is harmless
# Keep the cache small: drop older base images of this kernel (keep the 3 newest).
find "$outdir" -maxdepth 1 -name "base-$kver-*.cpio.gz" -printf '%T@ %p\n' | sort -rn |
	tail -n +4 | cut -d' ' -f2- | xargs -r rm -f
log "base initramfs: $(du -h "$out" | cut -f1) ($out)"
echo "$out"
