#!/bin/bash
# Full package tier: install the built .deb packages in a Debian 12 cloud-init
# guest and use them the way an administrator would (tests/package/guest-test.sh):
# ndctl fsdax, offline apt install from a file: repository, DKMS build for the
# running kernel, module options from /etc/modprobe.d, first-time format and
# mount through nova-mkfs@dev-pmem0.service and mnt-nova.mount, files, udev
# by-uuid/by-label links, restart without reformat, apt remove/purge.
#
# Usage: tests/package/full-check.sh [options]
#   --no-build          use the .debs already in build/deb (default: packaging/build-deb.sh)
#   --timeout SEC       wall clock for the guest (default 1500)
#   --write-optional    a failing "echo hello > f && cat" is reported, not counted
#   -v, --stdio         stream the guest console while it runs
#   --keep              keep the run's overlay, pmem and disk images
# Output: the guest's PASS/FAIL lines, timings, "N passed, N failed" (last line).
# Results: build/full-check/<stamp>/ (console.log, summary.txt); build/full-check/latest.
# The guest image is built once and cached (packaging/mkimage.sh); only one QEMU
# runs at a time ($NOVA_CACHE/qemu.lock, shared with qemu/run-guest.sh).
set -uo pipefail
NOVA_PROG=full-check
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"
# shellcheck source=../../packaging/lib.sh
. "$NOVA_ROOT/packaging/lib.sh"

usage() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
build=1 timeout=1500 write_required=1 stdio=0 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0 ;;
	--timeout) timeout=$2; shift ;;
	--write-optional) write_required=0 ;;
	-v | --stdio) stdio=1 ;;
	--keep) keep=1 ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done

t_start=$SECONDS
stamp=$(date +%Y%m%d-%H%M%S)-$$
res=$NOVA_BUILD/full-check/$stamp
mkdir -p "$res"
ln -sfn "$stamp" "$NOVA_BUILD/full-check/latest"
failed_host=0
# abort MSG: a host-side step failed; no guest result
abort() {
	echo "FAIL $*"
	echo "full-check took $((SECONDS - t_start)) s"
	echo "0 passed, 1 failed"
	exit 1
}

ensure_pkgs qemu-system-x86 qemu-utils cloud-image-utils e2fsprogs dpkg-dev util-linux

# --- packages ---------------------------------------------------------------------
t0=$SECONDS
if [ "$build" = 1 ]; then
	"$NOVA_ROOT/packaging/build-deb.sh" >"$res/build-deb.log" 2>&1 ||
		{ tail -n 20 "$res/build-deb.log"; abort "packaging/build-deb.sh (see $res/build-deb.log)"; }
fi
version=$(nova_version)
mapfile -t debs < <(find "$NOVA_BUILD/deb" -maxdepth 1 -name "nova-*_${version}_*.deb" ! -name '*-dbgsym_*')
[ ${#debs[@]} -eq 2 ] || abort "expected nova-dkms and nova-tools $version in $NOVA_BUILD/deb, found: ${debs[*]:-none}"
t_debs=$((SECONDS - t0))

# --- image (cached) --------------------------------------------------------------------
t0=$SECONDS
img=$("$NOVA_ROOT/packaging/mkimage.sh" 2>"$res/mkimage.log") ||
	{ tail -n 20 "$res/mkimage.log"; abort "packaging/mkimage.sh (see $res/mkimage.log)"; }
t_image=$((SECONDS - t0))
kver=$(cat "$img/kver")

# --- per-run disks: overlay, apt repository + test script, cloud-init seed, pmem ------------
t0=$SECONDS
run=$res/run
mkdir -p "$run/repo"
qemu-img create -q -f qcow2 -b "$img/base.qcow2" -F qcow2 "$run/root.qcow2" ||
	abort "qemu-img create overlay"
cp "${debs[@]}" "$run/repo/"
(cd "$run/repo" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null | gzip -9n >Packages.gz) ||
	abort "dpkg-scanpackages"
cp "$NOVA_ROOT/tests/package/guest-test.sh" "$run/repo/"
echo "write_required=$write_required" >"$run/repo/run.conf"
mkfs.ext4 -q -F -L NOVAREPO -d "$run/repo" "$run/repo.img" 64M >/dev/null 2>&1 ||
	abort "mkfs.ext4 -d for the repository disk"

cat >"$run/meta-data" <<EOF
instance-id: nova-full-check-$stamp
local-hostname: nova-guest
EOF
cat >"$run/user-data" <<'EOF'
#cloud-config
# NOVA full package tier: run the test from the repository disk, console on ttyS0.
runcmd:
  - - /bin/sh
    - -c
    - |
      exec </dev/null >/dev/ttyS0 2>&1
      mkdir -p /mnt/novarepo
      if mount -o ro LABEL=NOVAREPO /mnt/novarepo; then
        exec /bin/bash /mnt/novarepo/guest-test.sh /mnt/novarepo
      fi
      echo "NOVA-FULL: FAIL mount the repository disk (LABEL=NOVAREPO)"
      echo "NOVA-FULL: SUMMARY 0 passed, 1 failed"
      echo "NOVA-FULL: DONE"
      poweroff -f
EOF
cloud-localds "$run/seed.img" "$run/user-data" "$run/meta-data" || abort "cloud-localds"
pmem=$run/pmem.img
truncate -s 512M "$pmem"
t_disks=$((SECONDS - t0))

# --- boot ----------------------------------------------------------------------------
log=$res/console.log
# shellcheck disable=SC2054 # commas are QEMU option syntax
qargs=(
	-accel tcg,thread=multi -cpu max -smp 2
	-machine pc,nvdimm=on -m 2G,slots=2,maxmem=4G
	-nodefaults -display none -nic none -no-reboot
	-kernel "$img/vmlinuz" -initrd "$img/initrd.img"
	-append "console=ttyS0,115200 root=/dev/vda rw panic=-1 net.ifnames=0 systemd.show_status=auto"
	-drive "file=$run/root.qcow2,if=virtio,format=qcow2,cache=unsafe"
	-drive "file=$run/seed.img,if=virtio,format=raw,readonly=on"
	-drive "file=$run/repo.img,if=virtio,format=raw,readonly=on"
	-object "memory-backend-file,id=mem1,share=on,mem-path=$pmem,size=512M"
	-device nvdimm,id=nv1,memdev=mem1
	-chardev "file,id=con,path=$log" -serial chardev:con -monitor none
)
mkdir -p "$NOVA_CACHE"
exec 9>"$NOVA_CACHE/qemu.lock"
if ! flock -n 9; then
	log "another QEMU run holds $NOVA_CACHE/qemu.lock; waiting"
	t0=$SECONDS
	flock 9
	log "waited $((SECONDS - t0)) s for the QEMU lock"
fi
log "booting the guest ($kver, image $img); console: $log"
t0=$SECONDS
: >"$log"
qemu-system-x86_64 "${qargs[@]}" </dev/null >"$res/qemu.log" 2>&1 &
qpid=$!
tailpid=""
# shellcheck disable=SC2317 # called via trap
cleanup() {
	kill -KILL "$qpid" 2>/dev/null || true
	[ -z "$tailpid" ] || kill "$tailpid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$stdio" = 1 ]; then
	tail -n +1 -f --pid="$qpid" "$log" &
	tailpid=$!
fi
timed_out=0
while kill -0 "$qpid" 2>/dev/null; do
	if [ $((SECONDS - t0)) -ge "$timeout" ]; then
		timed_out=1
		kill -KILL "$qpid" 2>/dev/null
		break
	fi
	sleep 1
done
wait "$qpid" 2>/dev/null
qrc=$?
[ -z "$tailpid" ] || wait "$tailpid" 2>/dev/null
tailpid=""
exec 9>&-
t_guest=$((SECONDS - t0))
[ "$timed_out" = 0 ] || { echo "FAIL guest: killed after ${timeout}s (hang?)"; failed_host=$((failed_host + 1)); }
[ "$timed_out" = 1 ] || [ "$qrc" -eq 0 ] ||
	{ echo "FAIL guest: QEMU exit status $qrc (see $res/qemu.log)"; failed_host=$((failed_host + 1)); }

# --- judge -----------------------------------------------------------------------------
clean=$res/console.txt
tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$clean"
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

# Kernel log (dumped by the guest) and the journal's warnings: the same patterns as
# tests/run-guest-tests.sh; the unsigned/out-of-tree module taint is expected.
bad_re='Oops|BUG:|^BUG |kernel BUG|WARNING:|general protection|soft lockup|hard LOCKUP|hung_task|blocked for more than|KASAN|UBSAN|Call Trace|Kernel panic|detected stalls'
ignore_re='module verification failed|loading out-of-tree module taints kernel|I/O error, dev fd0'
[ -z "${NOVA_LOG_IGNORE:-}" ] || ignore_re="$ignore_re|$NOVA_LOG_IGNORE"
{
	sed -n '/NOVA-FULL: DMESG-BEGIN/,/NOVA-FULL: DMESG-END/p' "$clean"
	sed -n '/NOVA-FULL: JOURNAL-BEGIN/,/NOVA-FULL: JOURNAL-END/p' "$clean"
	grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$clean"
} >"$res/kernel-journal.txt"
mapfile -t hits < <(grep -E -- "$bad_re" "$res/kernel-journal.txt" | grep -Ev -- "$ignore_re" | sort -u)
if [ ${#hits[@]} -gt 0 ]; then
	echo "FAIL guest-kernel-log: ${#hits[@]} suspicious kernel/journal lines:"
	printf '    %s\n' "${hits[@]:0:20}"
	failed=$((failed + 1))
else
	echo "PASS guest-kernel-log: no Oops/BUG/WARNING/lockup in the kernel log or journal"
	passed=$((passed + 1))
fi
failed=$((failed + failed_host))

[ "$keep" = 1 ] || rm -f "$run/root.qcow2" "$pmem" "$run/repo.img" "$run/seed.img"
cat <<EOF
timings: debs ${t_debs}s, image ${t_image}s ($([ "$t_image" -gt 30 ] && echo built || echo cached)), disks ${t_disks}s, guest ${t_guest}s; total $((SECONDS - t_start))s
results: $res
full-check took $((SECONDS - t_start)) s
$passed passed, $failed failed
EOF
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
