#!/bin/bash
# Make (or reuse) a chroot of a kernel's Debian suite that can build
# out-of-tree modules for that kernel, and print its directory.
#
# Usage: qemu/build-chroot.sh [KVER]        (default: qemu/kernel-version.sh)
#
# Needed for every kernel that is not built on the host (kver_on_host in
# common.sh): the kbuild binaries of trixie's and sid's headers need a newer
# glibc than the host's, sid's need gcc-16-for-host, and bookworm's 6.12
# headers depend on the 6.12 image, which must not be installed on the host.
#
# The chroot:  $NOVA_CACHE/chroot/SUITE  (SUITE from kver_suite: bookworm,
# trixie or sid), one per suite, shared by all its kernels.
#   - made once by `debootstrap --variant=minbase SUITE` from
#     NOVA_DEBIAN_MIRROR into a temp dir, which is renamed into place only
#     when it is complete (apt sources: SUITE, plus -updates and -security for
#     bookworm and trixie; make, libc6-dev, libelf-dev, kmod, pahole, sparse,
#     bc, xz-utils and zstd installed), stamp .nova/base-complete
#   - then, once per kernel (stamp .nova/kver-KVER): the headers
#     linux-headers-KVER are fetched with `apt-get download` and unpacked
#     into the chroot's / (so /usr/src/linux-headers-KVER
#     is there; the package itself is not installed, because some depend on
#     the kernel image), and its other dependencies are installed with
#     apt-get (linux-headers-KVER-common, linux-kbuild-*, the gcc it names).
#     The kernel image is never installed.
# Build in it with:  KDIR=/usr/src/linux-headers-KVER  (qemu/build-module.sh
# does that). Commands run in it through `unshare -m` (nothing stays mounted).
# Package lists in the chroot are refreshed when older than 24 hours, or when
# the headers cannot be downloaded.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

kver=${1:-$(guest_kver)}
[ $# -le 1 ] || die "usage: $NOVA_PROG [KVER]"
suite=$(kver_suite "$kver")
base=$NOVA_CACHE/chroot
root=$base/$suite

mkdir -p "$base"
# One run per suite at a time (a second one waits, then finds it done).
exec 9>"$base/.$suite.lock"
flock 9

# sparse_fixup: Debian's linux-kbuild of 7.x ships no scripts/checker-valid.sh,
# and without it kbuild skips sparse on C=1/C=2 (with only a warning). Add
# one that prints 1 (kbuild's "valid") when the checker handles a tiny file.
sparse_fixup() {
	local s
	s=$root$(readlink -f "$root/usr/src/linux-headers-$kver/scripts" | sed "s|^$root||")
	[ -d "$s" ] || s=$root/usr/src/linux-headers-$kver/scripts
	[ ! -e "$s/checker-valid.sh" ] || return 0
	log "adding scripts/checker-valid.sh to the kbuild of $kver (missing in Debian's)"
	cat >"$s/checker-valid.sh" <<'EOS'
#!/bin/sh
# Written by NOVA's qemu/build-chroot.sh: Debian's kbuild package lacks it.
# Prints 1 when the checker "$@" (sparse) runs on a small C file.
t=$(mktemp -d) || exit 0
trap 'rm -rf "$t"' EXIT
echo 'static inline int nova_probe(void) { return 0; }' >"$t/c.c"
"$@" "$t/c.c" >/dev/null 2>&1 && echo 1
EOS
	chmod 0755 "$s/checker-valid.sh"
}

if [ -f "$root/.nova/kver-$kver" ]; then
	sparse_fixup
	echo "$root"
	exit 0
fi

m=$NOVA_DEBIAN_MIRROR
sm=$NOVA_DEBIAN_SECURITY_MIRROR
case $suite in
bookworm | trixie)
	sources="deb $m $suite main
deb $m $suite-updates main
deb $sm $suite-security main"
	;;
sid) sources="deb $m sid main" ;;
esac

# apt-get (or any command) in the chroot, with the host's current resolver.
chroot_run() {
	local r=$1
	shift
	cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
	in_chroot "$r" "$@"
}
apt_in() {
	local r=$1
	shift
	chroot_run "$r" apt-get -q -y -o APT::Sandbox::User=root "$@"
}

tmp=
cleanup() {
	[ -z "$tmp" ] || as_root rm -rf --one-file-system "$tmp"
	return 0
}
trap cleanup EXIT

if [ ! -f "$root/.nova/base-complete" ]; then
	ensure_pkgs debootstrap
	as_root rm -rf --one-file-system "$root"
	rm -rf --one-file-system "$base"/.tmp-"$suite".* 2>/dev/null || true
	tmp=$(mktemp -d "$base/.tmp-$suite.XXXXXX")
	chmod 0755 "$tmp"
	log "debootstrap --variant=minbase $suite into $tmp (a few minutes)"
	t0=$SECONDS
	# In its own mount namespace: the /proc and /sys that debootstrap mounts
	# in the target vanish with it, even when it is interrupted.
	as_root unshare -m --propagation private -- \
		debootstrap --variant=minbase --components=main \
		--keyring="$NOVA_DEBIAN_KEYRING" "$suite" "$tmp" "$m" >&2 || {
		cp "$tmp/debootstrap/debootstrap.log" "$base/debootstrap-$suite.log" 2>/dev/null || true
		die "debootstrap of $suite failed (log: $base/debootstrap-$suite.log)"
	}
	log "debootstrap of $suite took $((SECONDS - t0)) s"

	printf '%s\n' "$sources" >"$tmp/etc/apt/sources.list"
	cat >"$tmp/etc/apt/apt.conf.d/99nova" <<-'EOF'
		// qemu/build-chroot.sh: a build chroot, nothing more
		APT::Install-Recommends "false";
		APT::Install-Suggests "false";
		Acquire::Languages "none";
	EOF
	# The host's answer to expired Release files (a mirror or proxy that
	# serves a snapshot: sid's Valid-Until is only a week away) holds here too.
	for o in Acquire::Check-Valid-Until Acquire::Check-Date; do
		v=$(apt-config dump --no-empty --format '%v%n' "$o" 2>/dev/null | head -n1)
		[ "$v" != false ] || echo "$o \"false\";" >>"$tmp/etc/apt/apt.conf.d/99nova"
	done
	# No service ever starts in here.
	printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
	chmod 0755 "$tmp/usr/sbin/policy-rc.d"
	mkdir -p "$tmp/.nova" "$tmp/build"

	t0=$SECONDS
	apt_in "$tmp" update >&2 || die "apt-get update in the $suite chroot failed"
	apt_in "$tmp" dist-upgrade >&2 || die "apt-get dist-upgrade in the $suite chroot failed"
	apt_in "$tmp" install make libc6-dev libelf-dev kmod pahole sparse bc xz-utils zstd >&2 ||
		die "installing the build tools in the $suite chroot failed"
	apt_in "$tmp" clean >&2
	touch "$tmp/.nova/apt-updated"
	log "build tools in the $suite chroot took $((SECONDS - t0)) s"

	date -u +%FT%TZ >"$tmp/.nova/base-complete"
	mv "$tmp" "$root"
	tmp=
	log "chroot $root is ready ($(du -sh --one-file-system "$root" | cut -f1))"
fi

# --- the headers of KVER ------------------------------------------------------
t0=$SECONDS
log "installing the headers of $kver in $root"
# An earlier run may have been cut short inside dpkg.
chroot_run "$root" dpkg --configure -a >&2 || die "dpkg --configure -a in $root failed"
if [ -n "$(find "$root/.nova/apt-updated" -mmin +1440 2>/dev/null)" ]; then
	apt_in "$root" update >&2 || die "apt-get update in $root failed"
	touch "$root/.nova/apt-updated"
fi

dl=/tmp/nova-headers-$kver
download() {
	rm -rf "$root$dl"
	mkdir -p "$root$dl"
	# shellcheck disable=SC2016 # sh -c expands its own arguments
	chroot_run "$root" sh -c 'cd "$1" && apt-get -q -o APT::Sandbox::User=root download "$2"' \
		download "$dl" "linux-headers-$kver" >&2
}
if ! download; then
	log "cannot download linux-headers-$kver; apt-get update in the chroot and retrying"
	apt_in "$root" update >&2 || die "apt-get update in $root failed"
	touch "$root/.nova/apt-updated"
	download || die "cannot download linux-headers-$kver in the $suite chroot (stale ABI? re-run qemu/kernel-version.sh)"
fi
deb=$(find "$root$dl" -maxdepth 1 -name "linux-headers-${kver}_*.deb" | head -n1)
[ -n "$deb" ] || die "apt-get download produced no linux-headers-$kver .deb"

# Its dependencies, less the kernel image: of each group of alternatives the
# first, as name=version when the version is pinned with '='. A group that
# names linux-image-* is dropped.
deps=()
while IFS= read -r group; do
	case $group in *linux-image-*) continue ;; esac
	alt=$(sed 's/|.*//; s/^ *//; s/ *$//' <<<"$group")
	name=${alt%% *}
	if [[ $alt =~ \(=\ *([^\)\ ]+)\ *\) ]]; then
		deps+=("$name=${BASH_REMATCH[1]}")
	else
		deps+=("$name")
	fi
done < <(dpkg-deb -f "$deb" Depends | tr ',' '\n')
log "dependencies of linux-headers-$kver: ${deps[*]}"
[ ${#deps[@]} -eq 0 ] || apt_in "$root" install "${deps[@]}" >&2 ||
	die "installing the dependencies of linux-headers-$kver in $root failed"
# Not `dpkg-deb -x DEB /`: its tar replaces the merged-/usr symlinks (/lib ->
# usr/lib) with real directories when the package ships lib/, which breaks
# the chroot. tar --keep-directory-symlink writes through them.
# shellcheck disable=SC2016 # sh -c expands its own arguments
chroot_run "$root" sh -c 'dpkg-deb --fsys-tarfile "$1" | tar -x --keep-directory-symlink -C /' \
	unpack "$dl/$(basename "$deb")" || die "unpacking linux-headers-$kver in $root failed"
for l in bin sbin lib lib64; do
	[ ! -e "$root/usr/$l" ] || [ -L "$root/$l" ] || die "$root/$l is no longer a symlink to usr/$l"
done
rm -rf "$root$dl"
apt_in "$root" clean >&2

# The headers must be usable: their Makefile, and kbuild's modpost (the
# binary that needs the suite's glibc) must run.
kd=/usr/src/linux-headers-$kver
[ -f "$root$kd/Makefile" ] || die "no $kd/Makefile in $root"
# shellcheck disable=SC2016 # sh -c expands its own arguments
chroot_run "$root" sh -c 'test -x "$1/scripts/mod/modpost" && "$1/scripts/basic/fixdep" 2>&1 | grep -q Usage' \
	check "$kd" || die "the kbuild tools of $kd do not run in $root"

sparse_fixup
touch "$root/.nova/kver-$kver"
log "headers of $kver ready in $root ($((SECONDS - t0)) s)"
echo "$root"
