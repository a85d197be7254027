#!/bin/bash
# Kernel upgrade tier: in the Debian 12 cloud-init guest (kernel 6.1) with
# nova-dkms and nova-tools installed and files on the NOVA mount, installing
# bookworm's 6.12 kernel ("apt-get install linux-image-6.12-amd64
# linux-headers-6.12-amd64", offline from the file: repository) must make DKMS
# build nova for 6.12 by itself; after a reboot into 6.12, mnt-nova.mount must
# mount the same file system with the same files.
#
# Usage: tests/package/kernel-upgrade.sh [options]
#   --no-build          use the .debs already in build/deb (default: packaging/build-deb.sh)
#   --timeout SEC       wall clock of each of the two boots (default 2400)
#   -v, --stdio         stream the guest console while it runs
#   --keep              keep the run's overlay, pmem and disk images
# How:
#   1. host: the .debs of linux-image-6.12-amd64, linux-headers-6.12-amd64 and of
#      what they need that the image lacks (apt-get --download-only against the
#      image's dpkg status, see packaging/mkimage.sh; bookworm-security), next to
#      nova-dkms and nova-tools in the file: repository; the downloads are kept in
#      $NOVA_CACHE/upgrade-debs/. The new kernel is qemu/kernel-version.sh deb12-6.12.
#   2. boot 1, the image's 6.1 kernel (tests/package/kernel-upgrade-guest.sh 1):
#      install nova, format and mount through mnt-nova.mount (enabled), write files,
#      install the 6.12 kernel, check DKMS's build, unmount; then write the new
#      /boot/vmlinuz-KVER and /boot/initrd.img-KVER (made in the guest) as a tar
#      archive onto a raw transfer disk (virtio serial novaxfer) and power off.
#   3. host: QEMU boots that vmlinuz and initrd (it boots kernels directly, there
#      is no boot loader), same root overlay, same pmem, a new cloud-init instance
#      (kernel-upgrade-guest.sh 2): 6.12 runs, mnt-nova.mount mounted NOVA at boot
#      with DKMS's 6.12 module, the same files, writes and a remount work.
# Output: PASS/FAIL lines of both boots and of the host, timings, and
# "N passed, N failed" (last line).
# Results: build/kernel-upgrade/<stamp>/ (console-1.log, console-2.log,
# summary.txt); build/kernel-upgrade/latest. One QEMU at a time
# ($NOVA_CACHE/qemu.lock, held from the first boot to the end of the second).
set -uo pipefail
NOVA_PROG="kernel-upgrade"
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"
# shellcheck source=../../packaging/lib.sh
. "$NOVA_ROOT/packaging/lib.sh"
# shellcheck source=cloud-lib.sh
. "$NOVA_ROOT/tests/package/cloud-lib.sh"

usage() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
build=1 timeout=2400 keep=0
while [ $# -gt 0 ]; do
	cloud_option "$@"
	shift "$cloud_shift"
done
# The meta packages that the guest installs; they must bring kernel $new.
metas=(linux-image-6.12-amd64 linux-headers-6.12-amd64)
tag=NOVA-UPG

t_start=$SECONDS
stamp=$(date +%Y%m%d-%H%M%S)-$$
res=$NOVA_BUILD/kernel-upgrade/$stamp
mkdir -p "$res"
ln -sfn "$stamp" "$NOVA_BUILD/kernel-upgrade/latest"
passed=0 failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
# abort MSG: a host-side step failed; no (further) guest result
abort() {
	fail "$*"
	echo "kernel-upgrade took $((SECONDS - t_start)) s"
	echo "$passed passed, $failed failed"
	exit 1
}

ensure_pkgs qemu-system-x86 qemu-utils cloud-image-utils e2fsprogs dpkg-dev util-linux tar

# --- packages ---------------------------------------------------------------------
cloud_debs "$res" "$build"

# --- image (cached) --------------------------------------------------------------------
cloud_image "$res" bookworm
[ -f "$img/dpkg-status" ] || abort "$img has no dpkg-status (an image of an older packaging/mkimage.sh?)"

# --- the new kernel's .debs -------------------------------------------------------------
t0=$SECONDS
new=$(NOVA_KVER='' "$NOVA_QEMU_DIR/kernel-version.sh" deb12-6.12) || abort "qemu/kernel-version.sh deb12-6.12"
[ "$new" != "$kver" ] || abort "the new kernel $new is the image's kernel"
archives=$NOVA_CACHE/upgrade-debs
mkdir -p "$archives/partial"
# image_apt ARCHIVES ARGS...: apt-get as if in the image (its dpkg status, the
# host's bookworm lists), .debs in ARCHIVES.
image_apt() {
	local a=$1
	shift
	apt_suite bookworm apt-get -q -o "Dir::State::status=$img/dpkg-status" \
		-o "Dir::Cache::archives=$a" -o APT::Sandbox::User=root \
		-y --no-install-recommends "$@"
}
# The file names from --print-uris (which lists only the .debs that ARCHIVES
# lacks: so an empty one), then the download into the cache (which skips what
# it holds).
fetch_kernel_debs() {
	local empty rc
	empty=$(mktemp -d)
	mkdir "$empty/partial"
	image_apt "$empty" --print-uris install "${metas[@]}" >"$res/upgrade-uris.txt"
	rc=$?
	rm -rf "$empty"
	[ "$rc" -eq 0 ] && image_apt "$archives" --download-only install "${metas[@]}"
}
if ! fetch_kernel_debs >"$res/upgrade-debs.log" 2>&1; then
	log "apt-get --download-only failed; updating the bookworm lists and retrying"
	apt_suite bookworm apt-get update >>"$res/upgrade-debs.log" 2>&1 || abort "apt-get update (see $res/upgrade-debs.log)"
	fetch_kernel_debs >>"$res/upgrade-debs.log" 2>&1 ||
		{ tail -n 20 "$res/upgrade-debs.log"; abort "download ${metas[*]} and dependencies (see $res/upgrade-debs.log)"; }
fi
mapfile -t kdebs < <(sed -n "s/^'[^']*' \([^ ]*\.deb\) .*/\1/p" "$res/upgrade-uris.txt")
printf '%s\n' "${kdebs[@]}" | grep -q "^linux-image-${new}_" ||
	abort "${metas[0]} does not bring linux-image-$new (.debs: ${kdebs[*]:-none})"
pass "host: ${metas[*]} and ${#kdebs[@]} .debs in all for kernel $new ($(cd "$archives" && du -chm "${kdebs[@]}" | tail -n1 | cut -f1) MB)"
# The cache keeps only these (an older kernel's .debs go).
for f in "$archives"/*.deb; do
	case " ${kdebs[*]} " in *" ${f##*/} "*) ;; *) rm -f "$f" ;; esac
done

# --- per-run disks: overlay, apt repository + test scripts, seeds, pmem, transfer --------------
run=$res/run
mkdir -p "$run/repo" "$run/boot2"
qemu-img create -q -f qcow2 -b "$img/base.qcow2" -F qcow2 "$run/root.qcow2" ||
	abort "qemu-img create overlay"
cp "${debs[@]}" "$NOVA_ROOT/tests/package/kernel-upgrade-guest.sh" \
	"$NOVA_ROOT/tests/package/guest-lib.sh" "$run/repo/"
(cd "$archives" && cp "${kdebs[@]}" "$run/repo/") || abort "copy the kernel .debs"
printf 'new_kver=%s\nmetas="%s"\n' "$new" "${metas[*]}" >"$run/repo/run.conf"
cloud_repo_disk "$run/repo" "$run/repo.img" || abort "the repository disk (dpkg-scanpackages, mkfs.ext4 -d)"
for b in 1 2; do
	cloud_seed "$run/seed$b.img" "nova-kernel-upgrade-$stamp-boot$b" "$tag" \
		"/bin/bash /mnt/novarepo/kernel-upgrade-guest.sh /mnt/novarepo $b" || abort "cloud-localds"
done
pmem=$run/pmem.img
truncate -s 512M "$pmem"
xfer=$run/xfer.img
truncate -s 256M "$xfer"
t_disks=$((SECONDS - t0))

t_wait=0
trap cloud_cleanup EXIT
trap 'exit 130' INT TERM
# boot N KERNEL INITRD: one boot; its PASS/FAIL lines into $res/summary-N.txt
boot() {
	local b=$1 kernel=$2 initrd=$3 log=$res/console-$1.log clean=$res/console-$1.txt
	cloud_qemu_args "$run/root.qcow2" "$run/seed$b.img" "$run/repo.img" "$pmem"
	# A PCI slot after those of the other disks, so that it comes last (vdd)
	# and the root file system stays /dev/vda.
	# shellcheck disable=SC2054 # commas are QEMU option syntax
	cloud_disks+=(-drive "file=$xfer,if=none,id=xfer,format=raw"
		-device virtio-blk-pci,drive=xfer,serial=novaxfer,addr=0x10)
	cloud_boot "$log" "$timeout" "$kernel" "$initrd" "${cloud_disks[@]}"
	[ "$cloud_timed_out" = 0 ] || fail "boot $b: killed after ${timeout}s (hang?)"
	[ "$cloud_timed_out" = 1 ] || [ "$cloud_qrc" -eq 0 ] ||
		fail "boot $b: QEMU exit status $cloud_qrc (see ${log%.*}.qemu.log)"
	cloud_console "$log" "$clean"
	grep -o "$tag: .*" "$clean" >"$res/summary-$b.txt"
	grep -E "^$tag: (PASS|FAIL|INFO|TIME)" "$res/summary-$b.txt" | sed "s/^$tag: /boot $b: /"
	passed=$((passed + $(grep -c "^$tag: PASS " "$res/summary-$b.txt")))
	failed=$((failed + $(grep -c "^$tag: FAIL " "$res/summary-$b.txt")))
	grep -q "^$tag: START" "$res/summary-$b.txt" ||
		fail "boot $b: the test never started (cloud-init? see $log)"
	grep -q "^$tag: DONE" "$res/summary-$b.txt" ||
		fail "boot $b: no $tag: DONE (guest died or hung)"
	if cloud_kernel_log "$clean" "$tag" "$res/kernel-journal-$b.txt" "boot $b: kernel log"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}

# --- boot 1: 6.1, install nova, files, install 6.12 ---------------------------------------
# One lock for both boots: no other guest in between.
cloud_lock
t_wait=$cloud_wait
log "boot 1: $kver (image $img); console: $res/console-1.log"
boot 1 "$img/vmlinuz" "$img/initrd.img"
t_boot1=$cloud_secs

# --- the guest's new kernel and initramfs, from the transfer disk ----------------------------
if tar -xf "$xfer" -C "$run/boot2" >"$res/xfer.log" 2>&1 &&
	[ -s "$run/boot2/vmlinuz-$new" ] && [ -s "$run/boot2/initrd.img-$new" ]; then
	pass "host: vmlinuz-$new and initrd.img-$new ($(du -m "$run/boot2/initrd.img-$new" | cut -f1) MB) from the guest's /boot"
else
	abort "host: no vmlinuz-$new and initrd.img-$new on the transfer disk ($(tar -tf "$xfer" 2>&1 | head -n 5 | tr '\n' ' '))"
fi

# --- boot 2: 6.12 -------------------------------------------------------------------------
log "boot 2: $new (the guest's /boot); console: $res/console-2.log"
boot 2 "$run/boot2/vmlinuz-$new" "$run/boot2/initrd.img-$new"
t_boot2=$cloud_secs
cloud_unlock

[ "$keep" = 1 ] || rm -rf "$run/root.qcow2" "$pmem" "$xfer" "$run/repo.img" "$run"/seed?.img "$run/repo" "$run/boot2"
cat <<EOF
kernels: $kver -> $new
timings: debs ${t_debs}s, image ${t_image}s ($([ "$t_image" -gt 30 ] && echo built || echo cached)), kernel debs and disks ${t_disks}s, QEMU lock wait ${t_wait}s, boot 1 ${t_boot1}s, boot 2 ${t_boot2}s; total $((SECONDS - t_start))s
results: $res
kernel-upgrade took $((SECONDS - t_start)) s
$passed passed, $failed failed
EOF
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
