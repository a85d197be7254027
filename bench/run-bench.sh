#!/bin/bash
# `make bench`: NOVA (copy-on-write and in-place) against ext4-DAX, XFS-DAX and
# tmpfs (DRAM reference), side by side in ONE guest boot on ONE emulated pmem
# device, so that the ratios are measured under the same TCG conditions.
#
# `make bench-scale` (--scale): the same harness, fewer rows at more thread
# counts: append+fsync, random overwrite and metabench create/unlink at 1, 2,
# 4, ... threads up to the guest's vCPU count, NOVA against ext4-DAX and XFS-DAX.
#
# Usage: bench/run-bench.sh [options]
#   --scale            the scaling runs: threads 1 2 4 ... up to --smp (and --smp
#                      itself), fio append-fsync and randwrite at each (NOVA-ip:
#                      randwrite only), metabench -t (create/stat/rename/unlink,
#                      one directory per process); file systems nova nova-inplace
#                      ext4-dax xfs-dax; guest RAM and pmem grow with the threads;
#                      results in bench/results/<date>-<time>-scale (latest-scale)
#   --smp N            guest vCPUs (default 2; with --scale the host's cores)
#   --fs "LIST"        file systems (default: nova nova-inplace ext4-dax xfs-dax tmpfs)
#   --only "LIST"      only these runs, e.g. "append-fsync-j1 metabench-d1"
#                      (run names: JOB-jN for fio, metabench-d1, metabench-d100,
#                      metabench-d1-tT for T processes)
#   --runtime SEC      seconds per time-based fio run (default 8)
#   --threads "LIST"   numjobs for the write workloads (default "1 2 4"; --scale:
#                      also the metabench processes, default 1 2 4 ... --smp)
#   --meta-n N         files per metabench run, all processes together (default 100000)
#   --quick            tiny sizes, for checking the harness (runtime 2, meta-n 2000)
#   --profile "LIST"   perf record -a -g these runs, "FS:RUN" pairs or "all"
#                      (perf report text next to the fio JSON)
#   --timing           NOVA measure_timing=1 and /proc/fs/NOVA/*/timing_stats per run
#   --out DIR          results directory (default bench/results/<date>-<time>)
#   --pmem-size SIZE   emulated NVDIMM (default 2G; --scale: 2 x threads x the
#                      128M randwrite file, at least 2G); --mem SIZE guest RAM
#                      (default 3G; --scale: 3G + 128M per vCPU above 2)
#   --append ARGS      guest kernel command line (default "clocksource=tsc
#                      tsc=reliable": TCG's HPET reads are slow MMIO exits that
#                      took 20% of the guest's CPU time in fio's clock_gettime)
#   -v                 stream the guest console
#   --no-build         use the existing build/module/<kernel>/nova.ko
# Output: DIR/raw/<fs>/*.json (fio), metabench-d*.txt, info.txt; DIR/table.txt,
# DIR/results.json, DIR/chart.png; DIR/console.log. bench/results/latest -> DIR.
# A full run updates bench/RESULTS.md (not with --quick/--only/--fs/--profile/--timing);
# a full --scale run (also not with --threads, or --smp above the host's cores)
# updates bench/RESULTS-scale.md.
set -euo pipefail
NOVA_PROG=run-bench
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"
bdir="$NOVA_ROOT/bench"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

fs_list="" only="" runtime=8 threads="" scale=0 smp=""
meta_n=100000 quick=0 profile="" timing=0 out="" pmem_size="" mem="" stdio=0 build=1
append="clocksource=tsc tsc=reliable"
partial=0 threads_set=0
while [ $# -gt 0 ]; do
	case $1 in
	--scale) scale=1 ;;
	--smp) smp=$2; shift ;;
	--fs) fs_list=$2; partial=1; shift ;;
	--only) only=$2; partial=1; shift ;;
	--runtime) runtime=$2; shift ;;
	--threads) threads=$2; threads_set=1; shift ;;
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

# What runs: make bench's rows, or (--scale) the scaling rows at 1, 2, 4, ... vCPUs
host_cpus=$(nproc)
fio_scaled="append-fsync randwrite seqwrite"
fio_fixed="seqread:1 randread:1 fileserver:2 varmail:2 webproxy:2 webserver:2"
meta_dirs="1 100" meta_threads=1 skip=""
if [ "$scale" = 1 ]; then
	[ -n "$smp" ] || smp=$host_cpus
	[ "$smp" -le "$host_cpus" ] || partial=1 # oversubscribed: no scaling to see
	if [ "$threads_set" = 0 ]; then
		threads="" t=1
		while [ "$t" -lt "$smp" ]; do
			threads="$threads $t" t=$((t * 2))
		done
		threads="${threads# } $smp"
		threads=${threads# }
	else
		partial=1
	fi
	[ -n "$fs_list" ] || fs_list="nova nova-inplace ext4-dax xfs-dax"
	fio_scaled="append-fsync randwrite" fio_fixed=""
	meta_dirs=1 meta_threads=$threads
	# in-place updates change only the overwrite path
	skip="nova-inplace:append-fsync-* nova-inplace:metabench-*"
	# Sizes grow with the largest thread count: the randwrite files (one of
	# file_size per job) fill at most half the device; RAM for the guest's
	# per-CPU structures and one fio or metabench process per vCPU.
	tmax=0
	for t in $threads; do [ "$t" -le "$tmax" ] || tmax=$t; done
	if [ -z "$pmem_size" ]; then
		g=$(((2 * tmax * $(size_to_bytes "$file_size") + (1 << 30) - 1) >> 30))
		[ "$g" -ge 2 ] || g=2
		pmem_size=${g}G
	fi
	[ -n "$mem" ] || mem=$((3072 + 128 * (smp > 2 ? smp - 2 : 0)))M
	qemu_timeout=$((1800 + 1200 * $(echo "$threads" | wc -w)))
else
	[ -n "$threads" ] || threads="1 2 4"
	[ -n "$smp" ] || smp=2
	[ -n "$fs_list" ] || fs_list="nova nova-inplace ext4-dax xfs-dax tmpfs"
	qemu_timeout=5400
fi
[ -n "$pmem_size" ] || pmem_size=2G
[ -n "$mem" ] || mem=3G

ensure_pkgs fio linux-perf python3-matplotlib gcc libc6-dev
start=$(date +%s)

# --- module, static helpers, initramfs layers ----------------------------------------
kver=$(guest_kver)
"$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver" >/dev/null
# NOVA_KO: another module (an A/B comparison with --no-build)
ko=${NOVA_KO:-$NOVA_BUILD/module/$kver/nova.ko}
if [ "$build" = 1 ]; then
	log "building the module"
	ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver") || die "module build failed"
fi
[ -f "$ko" ] || die "$ko missing"
base=$("$NOVA_QEMU_DIR/mkinitramfs.sh" "$kver")
layer=$("$bdir/mkinitrd-bench.sh")

suffix="" latest=latest results_md=RESULTS.md
if [ "$scale" = 1 ]; then
	suffix=-scale latest=latest-scale results_md=RESULTS-scale.md
fi
[ -n "$out" ] || out="$bdir/results/$(date +%Y%m%d-%H%M%S)$suffix"
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
ln -sfn "$(basename "$out")" "$bdir/results/$latest" 2>/dev/null || true

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
META_DIRS='$meta_dirs'
META_THREADS='$meta_threads'
FIO_SCALED='$fio_scaled'
FIO_FIXED='$fio_fixed'
SKIP='$skip'
PROFILE='$profile'
TIMING=$timing
SCALE=$scale
SMP=$smp
MEM=$mem
PMEM_SIZE=$pmem_size
HOST_CPUS=$host_cpus
EOF
cp "$stage/bench.conf" "$out/"
cat >"$out/run.conf" <<EOF
script=/nova/tests/bench.sh
test_timeout=$((qemu_timeout + 600))
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
	--pmem "$pmem" --pmem-size "$pmem_size" --mem "$mem" --smp "$smp" --log "$out/console.log"
	--timeout "$qemu_timeout" --idle-timeout 1200 --append "$append")
[ "$stdio" = 0 ] || run_args+=(--stdio)
log "booting the guest ($smp vCPUs, $mem RAM, $pmem_size pmem; fs: $fs_list; threads: $threads)"
log "console: $out/console.log"
# The host's load while the guest runs (TCG numbers follow it): the load
# averages every 30 s once run-guest.sh holds the QEMU lock and has made the
# console log, for the report; it ends with this script.
(
	while kill -0 $$ 2>/dev/null; do
		[ ! -e "$out/console.log" ] || echo "$(date +%s) $(cut -d' ' -f1-3 /proc/loadavg)"
		sleep 30
	done
) >"$out/hostload.txt" &
loadpid=$!
t0=$(date +%s)
qrc=0
"$NOVA_QEMU_DIR/run-guest.sh" "${run_args[@]}" || qrc=$?
t1=$(date +%s)
kill "$loadpid" 2>/dev/null || true
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
bad=$(grep -aE -- "$NOVA_KLOG_BAD" \
	"$out/console.clean.log" | grep -v 'module verification failed' | head -n 20 || true)
[ -z "$bad" ] || { log "suspicious guest kernel log lines:"; echo "$bad" >&2; }

/usr/bin/python3 "$bdir/report.py" "$out"
echo "guest boot: $((t1 - t0)) s (QEMU exit $qrc); total: $(($(date +%s) - start)) s" |
	tee -a "$out/table.txt"
if [ "$partial" = 0 ] && [ "$qrc" = 0 ] && [ -z "$bad" ]; then
	/usr/bin/python3 "$bdir/report.py" --markdown "$out" >"$bdir/$results_md"
	log "updated bench/$results_md"
fi
log "results: $out"
[ "$qrc" = 0 ]
