#!/bin/bash
# Build (or reuse) the Debian cloud-init guest image of the full package test
# tier (tests/package/full-check.sh, tests/package/kernel-upgrade.sh) and of
# the xfstests runs (tests/xfstests/run.sh).
#
# Usage: packaging/mkimage.sh [--release bookworm|trixie] [--profile P] [--force]
#   --release R   the Debian release of the image (default bookworm):
#                 bookworm  Debian 12, kernel of bookworm's linux-image-amd64 (6.1)
#                 trixie    Debian 13, kernel of trixie's linux-image-amd64 (6.12)
#   --profile P   package (the default) or xfstests: the same image plus the
#                 runtime packages and users of xfstests (fsgqa, fsgqa2,
#                 123456-fsgqa, group fsgqa)
#   --force       build again even when a complete image is cached
# Prints the image directory, which holds:
#   base.qcow2   root file system (ext4 on the whole disk, /dev/vda; no partitions)
#   vmlinuz      the image's kernel, booted directly by QEMU (no boot loader)
#   initrd.img   its initramfs (initramfs-tools)
#   kver         the kernel ABI version inside (= qemu/kernel-version.sh deb12|deb13)
#   release      the Debian release (bookworm, trixie)
#   dpkg-status  the image's /var/lib/dpkg/status (what is installed: lets the host
#                work out which .debs a later offline apt install in the guest needs)
#   .complete    stamp: the image is complete
#
# The image is cached under $NOVA_CACHE/images/debianN[-xfstests]-<kver>-<hash>/
# (N = 12 for bookworm, 13 for trixie), where the hash covers this script (package
# list, configuration), the release, the profile and the kernel version, so editing any of them builds
# a new image; old ones can be deleted at any time.
# Contents: debootstrap minbase of the release plus its -updates and -security
# suites (the current kernel ABI, e.g. linux-image-6.1.0-57-amd64, is only there),
# linux-image-amd64 + linux-headers-amd64 (must resolve to the version that
# qemu/kernel-version.sh deb12|deb13 prints from that suite's meta package), dkms,
# gcc, make, xz-utils, zstd (initramfs-tools' default compressor), ndctl,
# cloud-init (NoCloud, no network), systemd, a pre-created DKMS MOK signing key, no
# getty on the serial console (the test's), and no apt lists (the guest is
# offline; the test adds its own file: repository). Bookworm's debootstrap
# bootstraps trixie with its sid script (scripts/trixie is a link to it).
# Environment: NOVA_DEBIAN_MIRROR (default http://deb.debian.org/debian),
#   NOVA_DEBIAN_SECURITY (default $NOVA_DEBIAN_SECURITY_MIRROR, else
#   http://deb.debian.org/debian-security), NOVA_CACHE (see qemu/common.sh).
#   NOVA_KVER does not apply: an image's kernel is always the one its release's
#   linux-image-amd64 depends on.
set -euo pipefail
NOVA_PROG=mkimage
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"

# debootstrap, chroot and mount need root: re-run as root, same cache.
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || die "building the image needs root (or sudo)"
	exec sudo NOVA_CACHE="$NOVA_CACHE" \
		NOVA_DEBIAN_MIRROR="${NOVA_DEBIAN_MIRROR:-}" NOVA_DEBIAN_SECURITY="${NOVA_DEBIAN_SECURITY:-}" \
		NOVA_DEBIAN_SECURITY_MIRROR="${NOVA_DEBIAN_SECURITY_MIRROR:-}" \
		"$0" "$@"
fi

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
force=0 release=bookworm profile=package
while [ $# -gt 0 ]; do
	case $1 in
	--force) force=1 ;;
	--release) [ $# -ge 2 ] || usage; release=$2; shift ;;
	--release=*) release=${1#--release=} ;;
	--profile) [ $# -ge 2 ] || usage; profile=$2; shift ;;
	--profile=*) profile=${1#--profile=} ;;
	*) usage ;;
	esac
	shift
done
# Per release: Debian version number (cache directory name) and the
# qemu/kernel-version.sh name of its linux-image-amd64.
case $release in
bookworm) debian=12 kname=deb12 ;;
trixie) debian=13 kname=deb13 ;;
*) die "unknown release '$release' (bookworm or trixie)" ;;
esac

mirror=${NOVA_DEBIAN_MIRROR:-}
mirror=${mirror:-http://deb.debian.org/debian}
security=${NOVA_DEBIAN_SECURITY:-${NOVA_DEBIAN_SECURITY_MIRROR:-}}
security=${security:-http://deb.debian.org/debian-security}
# Packages installed after debootstrap (--no-install-recommends). Part of the hash.
guest_pkgs=(
	linux-image-amd64 linux-headers-amd64 initramfs-tools
	systemd systemd-sysv udev dbus kmod util-linux e2fsprogs
	dkms gcc make libc6-dev openssl xz-utils zstd
	ndctl cloud-init
)
# xfstests' runtime needs (its README), for the xfstests profile.
case $profile in
package) ;;
xfstests)
	guest_pkgs+=(xfsprogs bc gawk perl procps psmisc acl attr fio quota
		uuid-runtime dmsetup python3 libcap2-bin keyutils bsdextrautils
		liburing2 libcap2 file sed grep findutils diffutils dbench duperemove)
	# Library package names changed with the 64-bit time_t transition.
	if [ "$release" = bookworm ]; then
		guest_pkgs+=(libaio1 libgdbm6 libgdbm-compat4)
	else
		guest_pkgs+=(libaio1t64 libgdbm6t64 libgdbm-compat4t64)
	fi
	;;
*) die "unknown profile '$profile' (package or xfstests)" ;;
esac

ensure_pkgs debootstrap debian-archive-keyring qemu-utils e2fsprogs coreutils util-linux
# An explicit name: kernel-version.sh then ignores NOVA_KVER.
kver=$("$NOVA_QEMU_DIR/kernel-version.sh" "$kname") || die "cannot resolve the $release kernel"
hash=$({ cat "$0"; echo "$release $kver"; [ "$profile" = package ] || echo "$profile"; } |
	sha256sum | cut -c1-12)
images=$NOVA_CACHE/images
if [ "$profile" = package ]; then
	dir=$images/debian$debian-$kver-$hash
else
	dir=$images/debian$debian-$profile-$kver-$hash
fi
mkdir -p "$images"

# One builder at a time; a second caller waits and then reuses the result.
exec 8>"$images/.lock"
if ! flock -n 8; then
	log "another image build holds $images/.lock; waiting"
	flock 8
fi
if [ "$force" = 0 ] && [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

log "building the $release guest image for kernel $kver in $dir (takes a few minutes)"
t0=$SECONDS
rm -rf "$dir"
tmp=$(mktemp -d "$images/.build.XXXXXX")
root=$tmp/root
mounts=()
# shellcheck disable=SC2317 # called via trap
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[i]}" 2>/dev/null || true
	done
	# Never follow a still-mounted /dev or /proc out of the build tree.
	if grep -qF " $tmp/" /proc/mounts; then
		log "not removing $tmp: something is still mounted below it"
	else
		rm -rf --one-file-system "$tmp"
	fi
}
trap cleanup EXIT

as_root debootstrap --variant=minbase --include=ca-certificates,gnupg \
	"$release" "$root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
	{ tail -n 30 "$tmp/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
log "debootstrap done after $((SECONDS - t0)) s"

cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $release main
deb $mirror $release-updates main
deb $security $release-security main
EOF
# No daemons start inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
for m in proc sys dev; do
	case $m in
	proc) as_root mount -t proc proc "$root/proc" ;;
	sys) as_root mount -t sysfs sysfs "$root/sys" ;;
	dev) as_root mount --bind /dev "$root/dev" ;;
	esac
	mounts+=("$root/$m")
done
in_root() { as_root chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }

in_root apt-get update >"$tmp/apt.log" 2>&1 ||
	{ tail -n 30 "$tmp/apt.log" >&2; die "apt-get update in the image failed"; }
in_root apt-get install -y --no-install-recommends "${guest_pkgs[@]}" >>"$tmp/apt.log" 2>&1 ||
	{ tail -n 30 "$tmp/apt.log" >&2; die "apt-get install in the image failed"; }
log "packages installed after $((SECONDS - t0)) s"

# The meta packages must have brought exactly the kernel the harness uses.
[ -f "$root/boot/vmlinuz-$kver" ] ||
	die "image has no /boot/vmlinuz-$kver (linux-image-amd64 resolved to: $(ls "$root/boot"); stale apt lists on the host?)"
[ -e "$root/usr/src/linux-headers-$kver/Makefile" ] || die "image has no linux-headers-$kver"
[ -f "$root/boot/initrd.img-$kver" ] || in_root update-initramfs -c -k "$kver" >>"$tmp/apt.log" 2>&1

# DKMS signs modules with this key; generating it in the guest costs 4-7 s per run.
mkdir -p "$root/var/lib/dkms"
in_root openssl req -new -x509 -nodes -days 36500 -subj "/CN=DKMS module signing key" \
	-newkey rsa:2048 -keyout /var/lib/dkms/mok.key -outform DER \
	-out /var/lib/dkms/mok.pub >>"$tmp/apt.log" 2>&1 || die "cannot create the DKMS MOK key"
chmod 0600 "$root/var/lib/dkms/mok.key"

# --- configuration -------------------------------------------------------------
echo nova-guest >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tnova-guest\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 rw,relatime 0 0' >"$root/etc/fstab"
cat >"$root/etc/cloud/cloud.cfg.d/90-nova.cfg" <<'EOF'
# NOVA test image: the seed disk (label cidata) is the only data source; no network,
# no ssh server, only the C.UTF-8 locale.
datasource_list: [NoCloud, None]
network: {config: disabled}
locale: C.UTF-8
ssh_genkeytypes: []
EOF
# QEMU's pc machine has a floppy controller but no disk: silence its I/O errors.
echo 'blacklist floppy' >"$root/etc/modprobe.d/nova-test-blacklist-floppy.conf"
# Nothing periodic that could compete for the 2 emulated CPUs during the test.
for u in apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer \
	e2scrub_reap.service fstrim.timer systemd-networkd-wait-online.service \
	ndctl-monitor.service; do
	in_root systemctl mask "$u" >/dev/null 2>&1 || true
done
# The serial console (ttyS0) belongs to the test, which cloud-init starts with
# its output there: a login prompt on it would hang up the test's open
# terminal (agetty's vhangup), and every line after that would be lost (seen
# with trixie's cloud-init, whose final stage no longer runs before the gettys).
in_root systemctl mask serial-getty@ttyS0.service >/dev/null 2>&1 ||
	die "cannot mask serial-getty@ttyS0.service"
if [ "$profile" = xfstests ]; then
	# xfstests' users (its README); Debian's useradd wants --badname for a
	# name that starts with a digit.
	in_root useradd -m fsgqa
	in_root useradd -m fsgqa2
	in_root useradd 123456-fsgqa 2>/dev/null || in_root useradd --badname 123456-fsgqa
	in_root getent group fsgqa >/dev/null || in_root groupadd fsgqa
fi
# Root has no password (offline throw-away test VM; e.g. for a second console).
in_root passwd -d root >/dev/null

rm -f "$root/usr/sbin/policy-rc.d"
in_root apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/log/*.log "$root"/var/cache/debconf/*-old
mkdir -p "$root/var/lib/apt/lists/partial"
for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
	as_root umount "${mounts[i]}"
done
mounts=()

# --- disk image ------------------------------------------------------------------
mkdir -p "$tmp/out"
cp "$root/boot/vmlinuz-$kver" "$tmp/out/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$tmp/out/initrd.img"
chmod 0644 "$tmp/out/vmlinuz" "$tmp/out/initrd.img"
# mke2fs -d copies the tree (owners, modes, links, devices) without a loop mount.
as_root mkfs.ext4 -q -F -L novaroot -d "$root" "$tmp/root.raw" 4G >&2 ||
	die "mkfs.ext4 -d failed"
qemu-img convert -f raw -O qcow2 "$tmp/root.raw" "$tmp/out/base.qcow2"
rm -f "$tmp/root.raw"
echo "$kver" >"$tmp/out/kver"
echo "$release" >"$tmp/out/release"
cp "$root/var/lib/dpkg/status" "$tmp/out/dpkg-status"
date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/out/.complete"
mv "$tmp/out" "$dir"
log "image ready in $((SECONDS - t0)) s: $dir ($(du -sh "$dir/base.qcow2" | cut -f1))"
echo "$dir"
