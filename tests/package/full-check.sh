#!/bin/bash
# Full package tier: install the built .deb packages in a Debian cloud-init
# guest (Debian 12 or 13) and use them the way an administrator would (tests/package/guest-test.sh):
# ndctl fsdax, offline apt install from a file: repository, DKMS build for the
# running kernel, module options from /etc/modprobe.d, first-time format and
# mount through nova-mkfs@dev-pmem0.service and mnt-nova.mount, files, udev
# by-uuid/by-label links, restart without reformat, apt remove/purge.
#
# Usage: tests/package/full-check.sh [options]
#   --release R         the guest's Debian release: bookworm (Debian 12, kernel 6.1;
#                       the default) or trixie (Debian 13, kernel 6.12)
#   --no-build          use the .debs already in build/deb (default: packaging/build-deb.sh)
#   --timeout SEC       wall clock for the guest (default 1500)
#   --write-optional    a failing "echo hello > f && cat" is reported, not counted
#   -v, --stdio         stream the guest console while it runs
#   --keep              keep the run's overlay, pmem and disk images
# Output: the guest's PASS/FAIL lines, timings, "N passed, N failed" (last line).
# Results: build/full-check/<stamp>-<release>/ (console.log, summary.txt);
# build/full-check/latest and latest-<release> point to the last run.
# The guest image is built once per release and cached (packaging/mkimage.sh
# --release R); the same .debs and the same guest checks run on every release. Only one QEMU
# runs at a time ($NOVA_CACHE/qemu.lock, shared with qemu/run-guest.sh).
set -uo pipefail
NOVA_PROG=full-check
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"
# shellcheck source=../../packaging/lib.sh
. "$NOVA_ROOT/packaging/lib.sh"
# shellcheck source=cloud-lib.sh
. "$NOVA_ROOT/tests/package/cloud-lib.sh"

usage() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
build=1 timeout=1500 write_required=1 keep=0 release=bookworm
while [ $# -gt 0 ]; do
	case $1 in
	--release) [ $# -ge 2 ] || usage; release=$2; shift ;;
	--release=*) release=${1#--release=} ;;
	--write-optional) write_required=0 ;;
	*) cloud_option "$@"; shift $((cloud_shift - 1)) ;;
	esac
	shift
done

case $release in
bookworm | trixie) ;;
*) echo "$NOVA_PROG: unknown release '$release' (bookworm or trixie)" >&2; usage ;;
esac

t_start=$SECONDS
stamp=$(date +%Y%m%d-%H%M%S)-$$-$release
res=$NOVA_BUILD/full-check/$stamp
mkdir -p "$res"
ln -sfn "$stamp" "$NOVA_BUILD/full-check/latest"
ln -sfn "$stamp" "$NOVA_BUILD/full-check/latest-$release"
failed_host=0
# abort MSG: a host-side step failed; no guest result
abort() {
	echo "FAIL $*"
	echo "full-check ($release) took $((SECONDS - t_start)) s"
	echo "0 passed, 1 failed"
	exit 1
}

ensure_pkgs qemu-system-x86 qemu-utils cloud-image-utils e2fsprogs dpkg-dev util-linux

# --- packages ---------------------------------------------------------------------
cloud_debs "$res" "$build"

# --- image (cached) --------------------------------------------------------------------
cloud_image "$res" "$release"

# --- per-run disks: overlay, apt repository + test script, cloud-init seed, pmem ------------
t0=$SECONDS
run=$res/run
mkdir -p "$run/repo"
qemu-img create -q -f qcow2 -b "$img/base.qcow2" -F qcow2 "$run/root.qcow2" ||
	abort "qemu-img create overlay"
cp "${debs[@]}" "$NOVA_ROOT/tests/package/guest-test.sh" "$NOVA_ROOT/tests/package/guest-lib.sh" "$run/repo/"
echo "write_required=$write_required" >"$run/repo/run.conf"
cloud_repo_disk "$run/repo" "$run/repo.img" || abort "the repository disk (dpkg-scanpackages, mkfs.ext4 -d)"
cloud_seed "$run/seed.img" "nova-full-check-$stamp" NOVA-FULL \
	"/bin/bash /mnt/novarepo/guest-test.sh /mnt/novarepo" || abort "cloud-localds"
pmem=$run/pmem.img
truncate -s 512M "$pmem"
t_disks=$((SECONDS - t0))

# --- boot ----------------------------------------------------------------------------
log=$res/console.log
trap cloud_cleanup EXIT
trap 'exit 130' INT TERM
cloud_qemu_args "$run/root.qcow2" "$run/seed.img" "$run/repo.img" "$pmem"
log "booting the $release guest ($kver, image $img); console: $log"
cloud_boot "$log" "$timeout" "$img/vmlinuz" "$img/initrd.img" "${cloud_disks[@]}"
t_guest=$cloud_secs
[ "$cloud_timed_out" = 0 ] || { echo "FAIL guest: killed after ${timeout}s (hang?)"; failed_host=$((failed_host + 1)); }
[ "$cloud_timed_out" = 1 ] || [ "$cloud_qrc" -eq 0 ] ||
	{ echo "FAIL guest: QEMU exit status $cloud_qrc (see $res/console.qemu.log)"; failed_host=$((failed_host + 1)); }

# --- judge -----------------------------------------------------------------------------
clean=$res/console.txt
cloud_console "$log" "$clean"
grep -o 'NOVA-FULL: .*' "$clean" >"$res/summary.txt"
grep -E '^NOVA-FULL: (PASS|FAIL|INFO|TIME)' "$res/summary.txt" | sed 's/^NOVA-FULL: //'
passed=$(grep -c '^NOVA-FULL: PASS ' "$res/summary.txt")
failed=$(grep -c '^NOVA-FULL: FAIL ' "$res/summary.txt")
if ! grep -q '^NOVA-FULL: START' "$res/summary.txt"; then
	echo "FAIL guest-start: the test never started (cloud-init? see $log)"
	failed=$((failed + 1))
fi
if ! grep -q '^NOVA-FULL: DONE' "$res/summary.txt"; then
	echo "FAIL guest-finish: no NOVA-FULL: DONE (guest died or hung)"
	failed=$((failed + 1))
fi
if cloud_kernel_log "$clean" NOVA-FULL "$res/kernel-journal.txt" guest-kernel-log; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
failed=$((failed + failed_host))

[ "$keep" = 1 ] || rm -f "$run/root.qcow2" "$pmem" "$run/repo.img" "$run/seed.img"
cat <<EOF
release: $release, kernel $kver
timings: debs ${t_debs}s, image ${t_image}s ($([ "$t_image" -gt 30 ] && echo built || echo cached)), disks ${t_disks}s, QEMU lock wait ${cloud_wait}s, guest ${t_guest}s; total $((SECONDS - t_start))s
results: $res
full-check ($release) took $((SECONDS - t_start)) s
$passed passed, $failed failed
EOF
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
