#!/bin/bash
# `make bench-mount`: mount time of NOVA, ext4-DAX and XFS-DAX with 10,000 and
# 100,000 empty files (in 100 directories), after a crash and after a clean
# unmount. Two boots per file system, each with two emulated NVDIMMs (1 GiB;
# pmem0 holds the small tree, pmem1 the large one):
#   boot 1  format, create the files (metabench -k), sync, print a marker;
#           the host kills QEMU 1 s later (power cut)
#   boot 2  same pmem files: time the crash-recovery mount (NOVA: inode/log
#           scan; ext4, XFS: journal replay), count the files, unmount, then
#           time three mounts after a clean unmount
# Only ratios within one run mean anything (TCG).
# --fs nova-serial: NOVA with the crash-recovery scan forced serial (module
# parameter serial_scan=1 before the crash mount); e.g. --fs "nova nova-serial"
# compares it with the per-stripe (per-CPU) parallel scan.
#
# Usage: bench/run-mount.sh [--fs "nova ext4-dax xfs-dax"] [--n0 10000] [--n1 100000]
#                           [--out DIR] [--no-build] [-v]
# Output: DIR/mount-<fs>-boot{1,2}.log, DIR/mount.txt (table), DIR/mount.json;
# DIR defaults to bench/results/<date>-mount. NOVA_KO=FILE (with --no-build):
# another module build, for an A/B comparison.
set -euo pipefail
NOVA_PROG=run-mount
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"
bdir="$NOVA_ROOT/bench"
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

fs_list="nova ext4-dax xfs-dax" n0=10000 n1=100000 out="" build=1 stdio=()
while [ $# -gt 0 ]; do
	case $1 in
	--fs) fs_list=$2; shift ;;
	--n0) n0=$2; shift ;;
	--n1) n1=$2; shift ;;
	--out) out=$2; shift ;;
	--no-build) build=0 ;;
	-v) stdio=(--stdio) ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
ensure_pkgs gcc libc6-dev
start=$(date +%s)
kver=$(guest_kver)
"$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver" >/dev/null
# NOVA_KO: another module (an A/B comparison with --no-build)
ko=${NOVA_KO:-$NOVA_BUILD/module/$kver/nova.ko}
if [ "$build" = 1 ]; then
	ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver") || die "module build failed"
fi
base=$("$NOVA_QEMU_DIR/mkinitramfs.sh" "$kver")
[ -n "$out" ] || out="$bdir/results/$(date +%Y%m%d-%H%M%S)-mount"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work="$NOVA_BUILD/bench/mount"
mkdir -p "$work"

stage="$work/stage"
rm -rf "$stage"
mkdir -p "$stage/bin"
for p in metabench timeit; do
	gcc -static -O2 -Wall -Wextra -o "$stage/bin/$p" "$bdir/src/$p.c"
done
cp "$bdir/guest/mount-lib.inc" "$bdir/guest/mount-create.sh" "$bdir/guest/mount-time.sh" "$stage/"

boot() { # FS STEP(1|2) SCRIPT [run-guest args...]
	local fs=$1 step=$2 script=$3
	shift 3
	printf 'FS=%s\nN0=%s\nN1=%s\n' "$fs" "$n0" "$n1" >"$stage/mount.conf"
	printf 'script=/nova/tests/%s\ntest_timeout=3000\nload_nova=1\n' "$script" >"$work/run.conf"
	"$NOVA_QEMU_DIR/mkpayload.sh" -o "$work/payload.cpio.gz" --ko "$ko" --tests-dir "$stage" \
		--conf "$work/run.conf"
	local rc=0
	"$NOVA_QEMU_DIR/run-guest.sh" --initrd "$base" --initrd "$work/payload.cpio.gz" \
		--pmem "$work/pmem0.img" --pmem-size 1G --pmem2 "$work/pmem1.img" --pmem2-size 1G \
		--mem 2G --log "$out/mount-$fs-boot$step.log" --timeout 3000 --idle-timeout 900 \
		"${stdio[@]}" "$@" || rc=$?
	rm -f "$out/mount-$fs-boot$step.log.initrd"
	tr -d '\r' <"$out/mount-$fs-boot$step.log" >"$out/mount-$fs-boot$step.clean.log"
	return "$rc"
}

for fs in $fs_list; do
	rm -f "$work/pmem0.img" "$work/pmem1.img"
	log "$fs: boot 1 (create $n0 + $n1 files, power cut)"
	rc=0
	boot "$fs" 1 mount-create.sh --kill-on 'BENCH-POWERCUT' --kill-delay 1 || rc=$?
	[ "$rc" = 125 ] || die "$fs: boot 1 did not reach the power cut (exit $rc): $out/mount-$fs-boot1.log"
	log "$fs: boot 2 (timed mounts)"
	boot "$fs" 2 mount-time.sh || log "$fs: boot 2 failed (see $out/mount-$fs-boot2.log)"
	grep -E '^(timeit|files) ' "$out/mount-$fs-boot2.clean.log" || true
done
rm -f "$work/pmem0.img" "$work/pmem1.img" "$work/payload.cpio.gz"
rm -rf "$stage"

/usr/bin/python3 - "$out" "$fs_list" "$n0" "$n1" <<'PY' | tee "$out/mount.txt"
import json, os, re, statistics, sys
out, fs_list, n0, n1 = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4]
res = {}
for fs in fs_list:
    try:
        text = open(os.path.join(out, "mount-%s-boot2.clean.log" % fs)).read()
    except OSError:
        continue
    for m in re.finditer(r"timeit label=(\S+)-(\d+)-(crash|clean) ms=([\d.]+) rc=(\d+)", text):
        if m.group(5) == "0":
            res.setdefault(fs, {}).setdefault(m.group(2), {}).setdefault(m.group(3), []).append(float(m.group(4)))
    for m in re.finditer(r"files (\S+)-(\d+) (\d+)", text):
        res.setdefault(fs, {}).setdefault(m.group(2), {})["files"] = int(m.group(3))
json.dump(res, open(os.path.join(out, "mount.json"), "w"), indent=1)
def val(fs, n, kind):
    v = res.get(fs, {}).get(n, {}).get(kind)
    return statistics.median(v) if v else None
print("Mount time in ms (crash: the first mount after a power cut; clean: median of 3"
      " mounts after a clean unmount). Ratio other/NOVA: > 1 means NOVA mounts faster.")
hdr = "%-16s" % "case" + "".join("%12s" % f for f in fs_list) + "%12s%12s" % ("ext4/NOVA", "XFS/NOVA")
print(hdr)
for n in (n0, n1):
    for kind in ("crash", "clean"):
        vals = {f: val(f, n, kind) for f in fs_list}
        row = "%-16s" % ("%s files %s" % (n, kind))
        row += "".join("%12s" % ("%.1f" % vals[f] if vals[f] is not None else "-") for f in fs_list)
        for o in ("ext4-dax", "xfs-dax"):
            a, b = vals.get("nova"), vals.get(o)
            row += "%12s" % ("%.2f" % (b / a) if a and b else "-")
        print(row)
if "nova" in fs_list and "nova-serial" in fs_list:
    for n in (n0, n1):
        a, b = val("nova", n, "crash"), val("nova-serial", n, "crash")
        if a and b:
            print("%s files crash: serial scan %.1f ms, parallel %.1f ms, serial/parallel %.2f"
                  % (n, b, a, b / a))
for f in fs_list:
    for n in (n0, n1):
        c = res.get(f, {}).get(n, {}).get("files")
        if c is not None and c != int(n):
            print("WARNING: %s with %s files: %d files found after the crash" % (f, n, c))
PY
echo "bench-mount took $(($(date +%s) - start)) s" | tee -a "$out/mount.txt"
ln -sfn "$(basename "$out")" "$bdir/results/latest-mount" 2>/dev/null || true
# The default run (all three file systems, 10,000 and 100,000 files) becomes
# bench/RESULTS-mount.md
if [ "$fs_list" = "nova ext4-dax xfs-dax" ] && [ "$n0" = 10000 ] && [ "$n1" = 100000 ]; then
	{
		echo "# Mount-time results (latest full \`make bench-mount\` run)"
		echo
		echo "Run $(basename "$out"): QEMU (TCG, 2 vCPUs, 2 GiB RAM), two 1 GiB emulated"
		echo "NVDIMMs; empty files in 100 directories. Crash = the first mount after QEMU"
		echo "was killed right after the files were created and synced (NOVA scans the"
		echo "inodes and logs; ext4 and XFS replay their journals); clean = median of three"
		echo "mounts after a clean unmount. Only the ratios mean anything under TCG."
		echo
		echo '```'
		cat "$out/mount.txt"
		echo '```'
	} >"$bdir/RESULTS-mount.md"
	log "updated bench/RESULTS-mount.md"
fi
