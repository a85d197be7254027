#!/bin/bash
# `make bench`: NOVA (copy-on-write and in-place) against ext4-DAX, XFS-DAX and
# tmpfs (DRAM reference), side by side in ONE guest boot on ONE emulated pmem
# device, so that the ratios are measured under the same TCG conditions.
#
# Usage: bench/run-bench.sh [options]
#   --fs "LIST"        file systems (default: nova nova-inplace ext4-dax xfs-dax tmpfs)
#   --only "LIST"      only these runs, e.g. "append-fsync-j1 metabench-d1"
#                      (run names: JOB-jN for fio, metabench-d1, metabench-d100)
#   --runtime SEC      seconds per time-based fio run (default 8)
#   --threads "LIST"   numjobs for the write workloads (default "1 2 4")
#   --meta-n N         files per metabench run (default 100000)
#   --quick            tiny sizes, for checking the harness (runtime 2, meta-n 2000)
#   --profile "LIST"   perf record -a -g these runs, "FS:RUN" pairs or "all"
#                      (perf report text next to the fio JSON)
#   --timing           NOVA measure_timing=1 and /proc/fs/NOVA/*/timing_stats per run
#   --out DIR          results directory (default bench/results/<date>-<time>)
#   --pmem-size SIZE   emulated NVDIMM (default 2G); --mem SIZE guest RAM (default 3G)
#   --append ARGS      guest kernel command line (default "clocksource=tsc
#                      tsc=reliable": TCG's HPET reads are slow MMIO exits that
#                      took 20% of the guest's CPU time in fio's clock_gettime)
#   -v                 stream the guest console
#   --no-build         use the existing build/module/<kernel>/nova.ko
# Output: DIR/raw/<fs>/*.json (fio), metabench-d*.txt, info.txt; DIR/table.txt,
# DIR/results.json, DIR/chart.png; DIR/console.log. bench/results/latest -> DIR.
# A full run updates bench/RESULTS.md (not with --quick/--only/--fs/--profile/--timing).
set -euo pipefail
NOVA_PROG=run-bench
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"
bdir="$NOVA_ROOT/bench"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

fs_list="nova nova-inplace ext4-dax xfs-dax tmpfs" only="" runtime=8 threads="1 2 4"
meta_n=100000 quick=0 profile="" timing=0 out="" pmem_size=2G mem=3G stdio=0 build=1
append="clocksource=tsc tsc=reliable"
partial=0
while [ $# -gt 0 ]; do
	case $1 in
	--fs) fs_list=$2; partial=1; shift ;;
	--only) only=$2; partial=1; shift ;;
	--runtime) runtime=$2; shift ;;
	--threads) threads=$2; shift ;;
	--meta-n) meta_n=$2; shift ;;
	--quick) quick=1; partial=1 ;;
	--profile) profile=$2; partial=1; shift ;;
	--timing) timing=1; partial=1 ;;
	--out) out=$2; shift ;;
	--pmem-size) pmem_size=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	-v) stdio=1 ;;
	--no-build) build=0 ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
# Per-job data sizes (see bench/README.md, "Method", for why they are this small).
append_size=32M file_size=128M seq_size=256M tmpfs_size=1536M
if [ "$quick" = 1 ]; then
	runtime=2 meta_n=2000 append_size=4M file_size=16M seq_size=32M
fi

ensure_pkgs fio linux-perf python3-matplotlib gcc libc6-dev
start=$(date +%s)

# --- module, static helpers, initramfs layers ----------------------------------------
kver=$(guest_kver)
"$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver" >/dev/null
ko=$NOVA_BUILD/module/$kver/nova.ko
if [ "$build" = 1 ]; then
	log "building the module"
	ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver") || die "module build failed"
fi
[ -f "$ko" ] || die "$ko missing"
base=$("$NOVA_QEMU_DIR/mkinitramfs.sh" "$kver")
layer=$("$bdir/mkinitrd-bench.sh")

[ -n "$out" ] || out="$bdir/results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
ln -sfn "$(basename "$out")" "$bdir/results/latest" 2>/dev/null || true

stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/jobs"
for p in metabench timeit; do
	gcc -static -O2 -Wall -Wextra -o "$stage/bin/$p" "$bdir/src/$p.c"
done
cp "$bdir/guest/bench.sh" "$stage/"
cp "$bdir"/jobs/*.fio "$stage/jobs/"
cat >"$stage/bench.conf" <<EOF
BENCH_FS='$fs_list'
ONLY='$only'
RUNTIME=$runtime
THREADS='$threads'
APPEND_SIZE=$append_size
FILE_SIZE=$file_size
SEQ_SIZE=$seq_size
TMPFS_SIZE=$tmpfs_size
META_N=$meta_n
META_DIRS='1 100'
PROFILE='$profile'
TIMING=$timing
EOF
cp "$stage/bench.conf" "$out/"
cat >"$out/run.conf" <<EOF
script=/nova/tests/bench.sh
test_timeout=6000
load_nova=1
EOF
"$NOVA_QEMU_DIR/mkpayload.sh" -o "$out/payload.cpio.gz" --ko "$ko" --tests-dir "$stage" \
	--conf "$out/run.conf"

# --- boot ----------------------------------------------------------------------------------
# The NVDIMM's backing file lives in host RAM (/dev/shm) when there is room:
# on disk, the host's page faults and dirty-page writeback for never-touched
# pmem pages would be charged to whichever file system touches them first.
# The guest also writes the whole device once before the first file system.
pmem_bytes=$(size_to_bytes "$pmem_size")
shm_free=$(df -B1 --output=avail /dev/shm 2>/dev/null | tail -n 1 || echo 0)
if [ "${shm_free:-0}" -gt $((pmem_bytes + (4 << 30))) ]; then
	pmem="/dev/shm/nova-bench-$$.img"
else
	pmem="$NOVA_BUILD/bench/pmem0.img"
	log "note: not enough room in /dev/shm; pmem backing file on disk ($pmem)"
fi
rm -f "$pmem"
mkdir -p "$(dirname "$pmem")"
trap 'rm -f "$pmem"' EXIT
run_args=(--initrd "$base" --initrd "$layer" --initrd "$out/payload.cpio.gz"
	--pmem "$pmem" --pmem-size "$pmem_size" --mem "$mem" --log "$out/console.log"
	--timeout 5400 --idle-timeout 1200 --append "$append")
[ "$stdio" = 0 ] || run_args+=(--stdio)
log "booting the guest (fs: $fs_list); console: $out/console.log"
t0=$(date +%s)
qrc=0
"$NOVA_QEMU_DIR/run-guest.sh" "${run_args[@]}" || qrc=$?
t1=$(date +%s)
rm -f "$pmem" "$out/payload.cpio.gz" "$out/console.log.initrd"
rm -rf "$stage"

# --- unpack the results ------------------------------------------------------------------
tr -d '\r' <"$out/console.log" >"$out/console.clean.log"
/usr/bin/python3 - "$out/console.clean.log" "$out/raw" <<'PY'
import base64, io, re, sys, tarfile
log, dest = sys.argv[1], sys.argv[2]
cur, buf = None, []
for line in open(log, errors="replace"):
    line = line.rstrip("\n")
    m = re.match(r"BENCH-BLOB-(BEGIN|END) (\S+)", line)
    if m and m.group(1) == "BEGIN":
        cur, buf = m.group(2), []
    elif m and cur:
        try:
            data = base64.b64decode("".join(buf))
            tarfile.open(fileobj=io.BytesIO(data), mode="r:gz").extractall(dest)
        except Exception as e:  # a damaged blob loses one fs, not the run
            print(f"run-bench: results of {cur} unreadable: {e}", file=sys.stderr)
        cur = None
    elif cur and re.fullmatch(r"[A-Za-z0-9+/=]+", line):
        buf.append(line)
PY
grep -E '^BENCH: ' "$out/console.clean.log" >"$out/progress.txt" || true
bad=$(grep -aE 'Oops|BUG:|WARNING:|general protection|soft lockup|hung_task|Call Trace|Kernel panic' \
	"$out/console.clean.log" | grep -v 'module verification failed' | head -n 20 || true)
[ -z "$bad" ] || { log "suspicious guest kernel log lines:"; echo "$bad" >&2; }

/usr/bin/python3 "$bdir/report.py" "$out"
echo "guest boot: $((t1 - t0)) s (QEMU exit $qrc); total: $(($(date +%s) - start)) s" |
	tee -a "$out/table.txt"
if [ "$partial" = 0 ] && [ "$qrc" = 0 ] && [ -z "$bad" ]; then
	/usr/bin/python3 "$bdir/report.py" --markdown "$out" >"$bdir/RESULTS.md"
	log "updated bench/RESULTS.md"
fi
log "results: $out"
[ "$qrc" = 0 ]
