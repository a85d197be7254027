#!/bin/bash
# Store-level crash-consistency tests: the crash states a power cut under
# QEMU cannot make (a missing flush or fence).
#
# Usage: tests/crash/run-crash-stores.sh [options]
#   --seq N            1 (default): every call alone, with and without
#                      fsync; 2: every valid pair of calls (crashwork ace
#                      list --seq N shows them)
#   --workloads LIST   comma list of workload numbers or ranges (3,5-9;
#                      default all)
#   --mutate N         record with the debug module's mutate=N: 1 = the log
#                      commit's tail store not flushed, 2 = no fence before
#                      the journal's tail store (the checker must fail)
#   --all-max N        all subsets of the pending units at a fence up to N
#                      units (default 6); above, single omissions + samples
#   --sample N         random subsets per fence above --all-max (default 24)
#   --per-boot N       workloads per recording boot (default 60)
#   --kernel K         guest kernel (qemu/kernel-version.sh; default deb12)
#   --no-build         use the built modules and tests/guest/bin
#   --results DIR      default build/crash-stores/<stamp>
#
# How: the debug module (NOVA_DEBUG=1) records every flush (with the bytes
# of its cache lines), non-temporal copy and fence of a mount
# (/proc/fs/NOVA/<dev>/pmemtrace, src/pmemtrace.c).  Recording boot(s):
# for each workload (crashwork ace run: the prepared tree, then the traced
# calls), format a 64 MiB device, record, and append the trace to an
# archive on a second device.  Host: crashimg plan (tests/crash/crashimg.c)
# replays each trace on its starting image and, at each fence, keeps the
# crash images (everything fenced + subsets of the flushed-but-unfenced
# lines), without duplicates; a store never flushed before its call
# returned is reported (MISSING-FLUSH) and fails the run.  Checking
# boot(s): both pmem devices in parallel, each image written with O_DIRECT,
# then a recovery mount, crashwork ace verify (the state before or after
# the call in flight), unmount, fsck.nova -n -f clean, no NOVA error.  A
# failing image is reported with its call, its fence (the call site) and
# each pending store kept or dropped (with its call site).
#
# Output: FAIL lines, a summary (workloads, calls, fences, crash images,
# time), "N passed, N failed" (images; a missing flush counts as a failure).
# Exit status 0 only when nothing failed.
set -euo pipefail
NOVA_PROG=run-crash-stores
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

seq=1 wlist="" mutate=0 all_max=6 sample=24 per_boot=60 kernel="" build=1 results=""
while [ $# -gt 0 ]; do
	case $1 in
	--seq) seq=$2; shift ;;
	--workloads) wlist=$2; shift ;;
	--mutate) mutate=$2; shift ;;
	--all-max) all_max=$2; shift ;;
	--sample) sample=$2; shift ;;
	--per-boot) per_boot=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--no-build) build=0 ;;
	--results) results=$2; shift ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
case $seq in 1 | 2) ;; *) die "bad --seq $seq" ;; esac
[[ $mutate =~ ^[0-9]+$ ]] || die "bad --mutate $mutate"
t_start=$(date +%s)

kver=$("$NOVA_QEMU_DIR/kernel-version.sh" ${kernel:+"$kernel"}) || die "unknown kernel '$kernel'"
export NOVA_KVER=$kver
"$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver" >/dev/null
debug_ko=$NOVA_BUILD/module/$kver-debug/nova.ko
if [ "$build" = 1 ]; then
	log "building the debug module (NOVA_DEBUG=1) for $kver"
	debug_ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver" --debug) || die "debug module build failed"
	make -C "$NOVA_ROOT" -s guest-bin >&2 || die "guest-bin build failed"
fi
[ -f "$debug_ko" ] || die "$debug_ko missing (drop --no-build)"
modinfo -F parm "$debug_ko" | grep -q '^mutate:' || die "$debug_ko has no mutate parameter (not a NOVA_DEBUG=1 build?)"
for b in crashwork crashimg fsck.nova; do
	[ -x "$NOVA_ROOT/tests/guest/bin/$b" ] || die "tests/guest/bin/$b missing: make guest-bin"
done
[ -z "$results" ] && results=$NOVA_BUILD/crash-stores/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$results"
results=$(cd "$results" && pwd)
hostbin=$results/.host
mkdir -p "$hostbin"
${CC:-cc} -O2 -Wall -o "$hostbin/crashimg" "$NOVA_ROOT/tests/crash/crashimg.c"
${CC:-cc} -O2 -Wall -o "$hostbin/crashwork" "$NOVA_ROOT/tests/guest/src/crashwork.c"
"$hostbin/crashimg" selftest >"$results/selftest.txt" || { cat "$results/selftest.txt"; die "crashimg selftest failed"; }
base_initrd=$("$NOVA_QEMU_DIR/mkinitramfs.sh" "$kver")
log "results in $results"

# --- the workloads -------------------------------------------------------------------
"$hostbin/crashwork" ace list --seq "$seq" >"$results/workloads.txt"
declare -A want=()
if [ -n "$wlist" ]; then
	for r in ${wlist//,/ }; do
		if [[ $r =~ ^([0-9]+)-([0-9]+)$ ]]; then
			for ((i = BASH_REMATCH[1]; i <= BASH_REMATCH[2]; i++)); do want[$i]=1; done
		elif [[ $r =~ ^[0-9]+$ ]]; then
			want[$r]=1
		else
			die "bad --workloads $wlist"
		fi
	done
fi
# W:INPLACE:GC, the copy-on-write ones first (one module reload)
mapfile -t sel < <(awk '{ w = $2; ip = $3; gc = $4; sub(/inplace=/, "", ip); sub(/gc=/, "", gc)
		print ip, w, gc }' "$results/workloads.txt" |
	while read -r ip w gc; do
		if [ -z "$wlist" ] || [ -n "${want[$w]:-}" ]; then echo "$ip $w $gc"; fi
	done | sort -k1,1n -k2,2n | awk '{ print $2 ":" $1 ":" $3 }')
[ ${#sel[@]} -gt 0 ] || die "no workloads selected"
mutnote=""
[ "$mutate" = 0 ] || mutnote=" (mutate=$mutate)"
log "seq $seq: ${#sel[@]} workloads$mutnote"

shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
bad_re=$NOVA_KLOG_BAD
kernel_log_hits() { # LOG
	tr -d '\r' <"$1" | sed -nE 's/.*(\[ *[0-9]+\.[0-9]+\] )/\1/p' |
		awk -v bad="$bad_re" '{ msg = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", msg)
			if (msg ~ bad && !seen[msg]++) print }' || true
}

# boot NAME SCRIPT TESTDIR CONF_EXTRA RUN-GUEST-ARGS...: one guest boot
boot() {
	local name=$1 script=$2 tdir=$3 conf=$4 rc=0
	shift 4
	mkdir -p "$tdir/bin"
	cp "$NOVA_ROOT/tests/guest/lib.sh" "$NOVA_ROOT/tests/guest/nova-lib.inc" "$tdir/"
	cp -p "$NOVA_ROOT"/tests/guest/bin/* "$tdir/bin/"
	cp "$script" "$tdir/010-$name.sh"
	{
		echo "tests='010-$name'"
		echo "test_timeout=6000"
		echo "$conf"
	} >"$results/$name.conf"
	"$NOVA_QEMU_DIR/mkpayload.sh" -o "$results/$name.cpio.gz" --ko "$debug_ko" \
		--tests-dir "$tdir" --conf "$results/$name.conf"
	"$NOVA_QEMU_DIR/run-guest.sh" --initrd "$base_initrd" --initrd "$results/$name.cpio.gz" \
		--log "$results/$name.console.log" --timeout 7000 --idle-timeout 1500 "$@" \
		>"$results/$name.host.log" 2>&1 || rc=$?
	rm -rf "$tdir" "$results/$name.cpio.gz" "$results/$name.console.log.initrd"
	tr -d '\r' <"$results/$name.console.log" >"$results/$name.log"
	return $rc
}

fails=0
fail_note() { echo "FAIL $*" | tee -a "$results/summary.txt"; fails=$((fails + 1)); }

# --- recording boots ---------------------------------------------------------------------
mkdir -p "$results/traces"
nb=$(((${#sel[@]} + per_boot - 1) / per_boot))
for ((b = 0; b < nb; b++)); do
	chunk=("${sel[@]:$((b * per_boot)):$per_boot}")
	t0=$(date +%s)
	{
		echo "#!/bin/sh"
		echo "SEQ=$seq WORKLOADS=$(shq "${chunk[*]}") NOVA_ARGS=$(shq "mutate=$mutate")"
		cat "$NOVA_ROOT/tests/crash/crash-stores-record.sh"
	} >"$results/record.sh"
	rm -f "$results/archive.img" "$results/recfs.img"
	rc=0
	boot "record$b" "$results/record.sh" "$results/.rec" "load_nova=0" \
		--pmem "$results/recfs.img" --pmem-size 64M \
		--pmem2 "$results/archive.img" --pmem2-size 512M || rc=$?
	grep -a -E '^(FAIL|KERNEL: |ACE-GC|INFO: GC)' "$results/record$b.log" | sed "s/^/record$b: /" || true
	grep -aq 'RECORD-DONE status=0' "$results/record$b.log" ||
		fail_note "recording boot $b (QEMU status $rc): see $results/record$b.log"
	hits=$(kernel_log_hits "$results/record$b.console.log")
	[ -z "$hits" ] || fail_note "recording boot $b kernel log: $(echo "$hits" | head -n 3)"
	"$hostbin/crashimg" extract "$results/archive.img" "$results/traces" >"$results/extract$b.txt" ||
		fail_note "no traces from recording boot $b"
	rm -f "$results/archive.img" "$results/recfs.img"
	log "recording boot $b: ${#chunk[@]} workloads, $(($(date +%s) - t0)) s"
done

# --- plan --------------------------------------------------------------------------------
traces=("$results"/traces/s"$seq"-w*.pt)
[ -f "${traces[0]}" ] || die "no traces recorded"
for t in "${traces[@]}"; do "$hostbin/crashimg" info "$t" | tail -n 1; done >"$results/trace-info.txt"
prc=0
"$hostbin/crashimg" plan "$results/pack" "${traces[@]}" --all-max "$all_max" --sample "$sample" \
	>"$results/plan.txt" || prc=$?
[ "$prc" -le 1 ] || die "crashimg plan failed (see $results/plan.txt)"
nmiss=$(grep -c '^MISSING-FLUSH' "$results/plan.txt" || true)
if [ "$nmiss" -gt 0 ]; then
	grep '^MISSING-FLUSH' "$results/plan.txt" | head -n 20
	fail_note "$nmiss stores never flushed before their call returned (MISSING-FLUSH lines in $results/plan.txt)"
fi
tail -n 1 "$results/plan.txt"
nimg=$(sed -n 's/^plan: .*, \([0-9]*\) crash images.*/\1/p' "$results/plan.txt")

# --- checking boot -----------------------------------------------------------------------
t0=$(date +%s)
mkdir -p "$results/.chk"
cp "$results/pack" "$results/.chk/pack"
cp "$NOVA_ROOT/tests/crash/crash-stores-one.sh" "$results/.chk/"
rm -f "$results/chk0.img" "$results/chk1.img"
rc=0
boot check "$NOVA_ROOT/tests/crash/crash-stores-check.sh" "$results/.chk" "load_nova=1" \
	--pmem "$results/chk0.img" --pmem-size 64M --pmem2 "$results/chk1.img" --pmem2-size 64M || rc=$?
rm -f "$results/chk0.img" "$results/chk1.img"
chk=$results/check.log
npass=$(grep -ac '^IMG [0-9]* PASS' "$chk" || true)
nfail=$(grep -ac '^IMG [0-9]* FAIL' "$chk" || true)
grep -aq 'CHECK-DONE' "$chk" || fail_note "the checking boot did not finish (QEMU status $rc): see $chk"
hits=$(kernel_log_hits "$results/check.console.log")
[ -z "$hits" ] || fail_note "checking boot kernel log: $(echo "$hits" | head -n 3)"
if [ "$nfail" -gt 0 ]; then
	# each failure: its description and why
	awk '/^--- crash image [0-9]+ failed/ { on = 1; n++ } /^IMG [0-9]+ PASS/ || /^check: / { on = 0 }
		on { print }' "$chk" >"$results/failures.txt"
	awk '/^--- crash image/ { n++ } n <= 5 { print }' "$results/failures.txt" | head -n 150
	[ "$nfail" -le 5 ] || echo "... $nfail failed images in all: $results/failures.txt"
fi
log "checking boot: $((npass + nfail)) of ${nimg:-?} images checked, $(($(date +%s) - t0)) s"

# --- summary -----------------------------------------------------------------------------
ncalls=$(awk '{ for (i = 1; i <= NF; i++) if ($(i+1) == "calls,") s += $i } END { print s + 0 }' "$results/trace-info.txt")
nfences=$(sed -n 's/^plan: [0-9]* traces, \([0-9]*\) fences.*/\1/p' "$results/plan.txt")
{
	echo "seq $seq$mutnote: ${#sel[@]} workloads, ${#traces[@]} traces, $ncalls calls, ${nfences:-?} fences, ${nimg:-?} crash images (deduplicated), $nmiss missing flushes"
	echo "images checked: $npass passed, $nfail failed; time $(($(date +%s) - t_start)) s"
} | tee -a "$results/summary.txt"
[ "$nfail" = 0 ] || fails=$((fails + nfail))
echo "$((npass)) passed, $((fails)) failed"
[ "$fails" = 0 ]
