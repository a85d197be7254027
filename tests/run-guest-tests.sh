#!/bin/bash
# Host side of the guest tests: build the module, build the initramfs payload, boot
# the guest once with all tests on a fresh pmem file, and judge the console log.
#
# Usage: tests/run-guest-tests.sh [options] [TEST...]
#   TEST...              tests from tests/guest, e.g. 000-smoke (default: all *.sh
#                        there except lib.sh and _*.sh, in sort order)
#   --script FILE        run only this host file in the guest (ad-hoc/demo), as one test
#   --skip LIST          comma list of tests to leave out of the default "all"
#                        (each must exist; printed as skipped)
#   --pmem FILE          use (and keep) this pmem backing file instead of a fresh one
#   --pmem-size SIZE     size of a fresh pmem file (default 512M)
#   --scratch            attach a second, fresh nvdimm (guest: $PMEM2, $MNT2)
#   --smp N              guest CPUs (default: run-guest.sh's, 2)
#   --mem SIZE           guest RAM (default: run-guest.sh's, 2G)
#   --fio                add Debian's fio to the guest (bench/mkinitrd-bench.sh's
#                        initramfs layer); automatic when a test name has "fio"
#   --nova-args "ARGS"   module parameters for insmod nova.ko
#   --no-load            do not insmod nova.ko before the tests (tests load it)
#   --test-timeout SEC   per test (default 300)
#   --timeout SEC        wall clock for the whole boot (default: from the test count)
#   --results DIR        where the console log etc. go (default build/results/<stamp>)
#   --keep-pmem          keep the fresh pmem files in the results dir
#   --loglevel N         guest console loglevel (default: quiet, i.e. errors only)
#   -v, --stdio          stream the guest console while it runs
#   --shell              interactive guest shell after the tests (terminal console)
#   --kernel K           guest kernel: a name of qemu/kernel-version.sh (deb12,
#                        deb12-cloud, deb12-6.12, deb13, sid) or an ABI version
#                        (default: NOVA_KVER, else NOVA_KERNEL, else deb12); with
#                        --debug-kernel the kernel whose source it is built from
#   --no-build           do not build the module (use the existing
#                        build/module/<kernel>/nova.ko of qemu/build-module.sh)
#   --debug-kernel       boot the debug kernel (KASAN, lockdep, KFENCE, UBSAN; built
#                        and cached by qemu/build-debug-kernel.sh --kernel K, which
#                        can take an hour the first time: Debian 12's 6.1 on the
#                        host, others such as sid's newest in their suite's chroot)
#                        with a module built against it (with -g, in
#                        $NOVA_BUILD/debug-kernel/module for 6.1, else in the chroot
#                        into .../module-RELEASE) and the busybox initramfs without
#                        modules; test timeout default 900, kasan_multi_shot
#   --debug-module       the debug build of the module (NOVA_DEBUG=1: crash points,
#                        fault injection; qemu/build-module.sh --debug), and by
#                        default the tests that need it: tests/guest/debug-*.sh
#                        (the default list leaves them out otherwise)
#   --append ARGS        extra guest kernel command line arguments
# Environment:
#   NOVA_KO=FILE         test this module instead of building src/ (harness checks)
#   NOVA_KERNEL=K        the default of --kernel
#   NOVA_DEBUG_KERNEL=1  same as --debug-kernel
#   NOVA_TESTS_DIR=DIR   guest tests directory (default tests/guest)
#   NOVA_KVER, NOVA_CACHE, NOVA_BUILD: see qemu/common.sh
#   NOVA_LOG_IGNORE=ERE  extra kernel log lines to ignore in the scan
# Output: one line per test, the console log path, and finally "N passed, N failed".
# Exit status: 0 only when nothing failed and at least one test passed.
set -euo pipefail
NOVA_PROG=run-guest-tests
# shellcheck source=../qemu/common.sh
. "$(dirname "$0")/../qemu/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

script="" pmem="" pmem_size=512M scratch=0 nova_args="" load_nova=1 test_timeout=300
timeout="" results="" keep_pmem=0 loglevel="" stdio=0 shell=0 build=1 names=()
smp="" mem="" fio=0 debug_kernel=${NOVA_DEBUG_KERNEL:-0} append="" test_timeout_set=0
debug_module=0
kernel="" skip=""
while [ $# -gt 0 ]; do
	case $1 in
	--script) script=$2; shift ;;
	--skip) skip=$2; shift ;;
	--pmem) pmem=$2; shift ;;
	--pmem-size) pmem_size=$2; shift ;;
	--scratch) scratch=1 ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--fio) fio=1 ;;
	--nova-args) nova_args=$2; shift ;;
	--no-load) load_nova=0 ;;
	--test-timeout) test_timeout=$2; test_timeout_set=1; shift ;;
	--timeout) timeout=$2; shift ;;
	--results) results=$2; shift ;;
	--keep-pmem) keep_pmem=1 ;;
	--loglevel) loglevel=$2; shift ;;
	-v | --stdio) stdio=1 ;;
	--shell) shell=1 ;;
	--no-build) build=0 ;;
	--kernel) kernel=$2; shift ;;
	--debug-kernel) debug_kernel=1 ;;
	--debug-module) debug_module=1 ;;
	--append) append=$2; shift ;;
	-h | --help) usage ;;
	-*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	*) names+=("${1%.sh}") ;;
	esac
	shift
done
tdir=${NOVA_TESTS_DIR:-$NOVA_ROOT/tests/guest}

# --- kernel, module, initramfs ---------------------------------------------------
kernel_args=()
if [ "$debug_kernel" = 1 ]; then
	# Build (or reuse) the debug kernel. Its sanitizers make the guest several
	# times slower: more time per test unless given; every KASAN report, not
	# just the first; a big log buffer so the final dmesg dump holds them all.
	# Its source: the kernel that --kernel (or its default) names.
	dkernel=${kernel:-${NOVA_KVER:-${NOVA_KERNEL:-}}}
	log "debug kernel: qemu/build-debug-kernel.sh${dkernel:+ --kernel $dkernel} (cached after the first build)"
	dk=$("$NOVA_QEMU_DIR/build-debug-kernel.sh" ${dkernel:+--kernel "$dkernel"}) ||
		die "debug kernel build failed"
	kver=$(cat "$dk/kernelrelease")
	kernel_args=(--kernel "$dk/bzImage")
	append="kasan_multi_shot log_buf_len=16M${append:+ $append}"
	[ "$test_timeout_set" = 1 ] || test_timeout=900
	# Warnings (lockdep, WARN) on the console as they happen, not only in the
	# final dmesg dump: a guest that dies early still shows them.
	[ -n "$loglevel" ] || loglevel=5
else
	kver=$("$NOVA_QEMU_DIR/kernel-version.sh" ${kernel:+"$kernel"}) ||
		die "unknown kernel '$kernel'"
	export NOVA_KVER=$kver # for qemu/run-guest.sh and friends
	"$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver" >/dev/null
fi
if [ -n "${NOVA_KO:-}" ]; then
	ko=$NOVA_KO
	[ -f "$ko" ] || die "NOVA_KO=$ko does not exist"
	log "using NOVA_KO=$ko (not building src/)"
elif [ "$debug_kernel" = 1 ] && [ -f "$dk/chroot" ]; then
	# A debug kernel built in a chroot (not Debian 12's 6.1): its compiler
	# (e.g. gcc-16) and kbuild tools exist only there; build-module.sh
	# builds in that chroot. -g: the host copy keeps line information.
	mdir="$NOVA_BUILD/debug-kernel/module-$kver"
	ko="$mdir/nova.ko"
	if [ "$build" = 1 ]; then
		log "building the module for the debug kernel: qemu/build-module.sh --kernel-tree $dk"
		ko=$(nice -n 19 "$NOVA_QEMU_DIR/build-module.sh" --kernel-tree "$dk" --out "$mdir" -- KCFLAGS=-g) ||
			die "module build against the debug kernel failed"
	fi
	[ -f "$ko" ] || die "$ko not found (build it: drop --no-build)"
elif [ "$debug_kernel" = 1 ]; then
	# Built in a copy of src/ so src/nova.ko (for the Debian kernel) stays;
	# cp -p keeps mtimes, so make only rebuilds what changed. -g: the host copy
	# keeps line information for scripts/faddr2line on reports.
	mdir="$NOVA_BUILD/debug-kernel/module"
	ko="$mdir/nova.ko"
	if [ "$build" = 1 ]; then
		mkdir -p "$mdir"
		cp -p "$NOVA_ROOT"/src/{Kbuild,Makefile,VERSION} "$NOVA_ROOT"/src/*.[ch] "$mdir/"
		rm -f "$mdir/nova_config.h" # generated for this kernel by src/Makefile
		cp -pr "$NOVA_ROOT/src/compat" "$mdir/"
		log "building the module for the debug kernel: make -C $mdir KDIR=$dk/build"
		nice -n 19 make -C "$mdir" KVER="$kver" KDIR="$dk/build" KCFLAGS=-g >&2 ||
			die "module build against the debug kernel failed"
	fi
	[ -f "$ko" ] || die "$ko not found (build it: drop --no-build)"
elif [ "$debug_module" = 1 ]; then
	ko="$NOVA_BUILD/module/$kver-debug/nova.ko"
	if [ "$build" = 1 ]; then
		log "building the debug module: qemu/build-module.sh --kver $kver --debug"
		ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver" --debug) ||
			die "debug module build failed"
	fi
	[ -f "$ko" ] || die "$ko not found (build it: drop --no-build)"
	modinfo -F parm "$ko" | grep -q '^inject:' ||
		die "$ko has no inject parameter (not a NOVA_DEBUG=1 build?)"
else
	ko="$NOVA_BUILD/module/$kver/nova.ko"
	if [ "$build" = 1 ]; then
		log "building the module: qemu/build-module.sh --kver $kver"
		ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver") || die "module build failed"
	fi
	[ -f "$ko" ] || die "$ko not found after the build"
fi
vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null || true)
case $vermagic in
"$kver "*) ;;
*) die "$ko is built for '${vermagic%% *}', not the guest kernel $kver" ;;
esac
if [ "$debug_kernel" = 1 ]; then
	base=$("$NOVA_QEMU_DIR/mkinitramfs.sh" --kernel-tree "$dk")
else
	base=$("$NOVA_QEMU_DIR/mkinitramfs.sh" "$kver")
fi

# --- which tests -------------------------------------------------------------------
if [ -n "$script" ]; then
	[ -f "$script" ] || die "--script $script: no such file"
	n=$(basename "$script")
	names=("${n%.sh}")
elif [ ${#names[@]} -eq 0 ]; then
	for f in "$tdir"/*.sh; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .sh)
		case $n in lib | _*) continue ;; esac
		# debug-*: only with the debug module, and then only they
		case $n in debug-*) d=1 ;; *) d=0 ;; esac
		[ "$d" = "$debug_module" ] || continue
		names+=("$n")
	done
	# Globs sort by the locale; the guest sorts by bytes.
	mapfile -t names < <(printf '%s\n' "${names[@]}" | LC_ALL=C sort)
	if [ -n "$skip" ]; then
		for n in ${skip//,/ }; do
			[ -f "$tdir/${n%.sh}.sh" ] || die "--skip: no such test: $tdir/${n%.sh}.sh"
		done
		mapfile -t names < <(printf '%s\n' "${names[@]}" |
			grep -vxF -f <(printf '%s\n' ${skip//,/ } | sed 's/\.sh$//'))
		log "skipped (--skip): ${skip//,/ }"
	fi
	[ ${#names[@]} -gt 0 ] || [ "$shell" = 1 ] || die "no tests in $tdir"
else
	[ -z "$skip" ] || die "--skip applies to the default list only"
	for n in "${names[@]}"; do
		[ -f "$tdir/$n.sh" ] || die "no such test: $tdir/$n.sh"
	done
fi

# --- results dir, run.conf, payload -------------------------------------------------
stamp=$(date +%Y%m%d-%H%M%S)
if [ -z "$results" ]; then
	results="$NOVA_BUILD/results/$stamp-$$"
	mkdir -p "$results"
	ln -sfn "$(basename "$results")" "$NOVA_BUILD/results/latest"
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)
console="$results/console.log"

shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; } # quote for the guest's sh
{
	echo "# generated by tests/run-guest-tests.sh"
	echo "tests=$(shq "${names[*]}")"
	echo "test_timeout=$(shq "$test_timeout")"
	echo "load_nova=$load_nova"
	echo "nova_args=$(shq "$nova_args")"
	echo "shell=$shell"
	[ -z "$loglevel" ] || echo "console_loglevel=$(shq "$loglevel")"
	[ -z "$script" ] || echo "script=$(shq "/nova/extra/$(basename "$script")")"
} >"$results/run.conf"
payload_ko=$ko
if [ "$debug_kernel" = 1 ]; then
	# The guest symbolizes with kallsyms; debug info would only bloat the initramfs.
	payload_ko="$results/nova.ko"
	strip --strip-debug -o "$payload_ko" "$ko"
fi
payload_args=(-o "$results/payload.cpio.gz" --ko "$payload_ko" --tests-dir "$tdir" --conf "$results/run.conf")
[ -z "$script" ] || payload_args+=(--extra "$script")
"$NOVA_QEMU_DIR/mkpayload.sh" "${payload_args[@]}"

fresh=()
if [ -z "$pmem" ]; then
	pmem="$results/pmem0.img"
	rm -f "$pmem"
	fresh+=("$pmem")
fi
case " ${names[*]} " in *fio*) fio=1 ;; esac
layers=()
[ "$fio" = 0 ] || layers=(--initrd "$("$NOVA_ROOT/bench/mkinitrd-bench.sh")")
run_args=("${kernel_args[@]}" --initrd "$base" "${layers[@]}" --initrd "$results/payload.cpio.gz" --pmem "$pmem"
	--pmem-size "$pmem_size" --log "$console")
[ -z "$append" ] || run_args+=(--append "$append")
if [ "$scratch" = 1 ]; then
	rm -f "$results/pmem1.img"
	fresh+=("$results/pmem1.img")
	run_args+=(--pmem2 "$results/pmem1.img" --pmem2-size "$pmem_size")
fi
# Hang detection: the guest itself gives up on a test after test_timeout + 70 s.
[ -n "$timeout" ] || timeout=$((180 + ${#names[@]} * (test_timeout + 90)))
[ "$timeout" -le 4800 ] || timeout=4800
run_args+=(--timeout "$timeout" --idle-timeout $((test_timeout + 150)))
[ "$stdio" = 0 ] || run_args+=(--stdio)
[ -z "$smp" ] || run_args+=(--smp "$smp")
[ -z "$mem" ] || run_args+=(--mem "$mem")
[ "$shell" = 0 ] || run_args+=(--interactive)

# --- boot ------------------------------------------------------------------------
log "kernel $kver, module $ko, ${#names[@]} test(s), results in $results"
t0=${EPOCHREALTIME/./}
qrc=0
if [ "$debug_kernel" = 1 ]; then
	# Under TCG the debug kernel hangs in about half of its boots in its
	# RCU-tasks self test ("Running RCU-tasks wait API self tests", before
	# /init, so the console stays empty with `quiet`): run-guest.sh boots
	# again, here up to 4 times, after 240 s (its boot is slow).  A hang
	# after /init started is a test failure as always.
	"$NOVA_QEMU_DIR/run-guest.sh" "${run_args[@]}" --boot-timeout 240 --boot-retries 3 || qrc=$?
else
	"$NOVA_QEMU_DIR/run-guest.sh" "${run_args[@]}" || qrc=$?
fi
t1=${EPOCHREALTIME/./}
boot_ms=$(((t1 - t0) / 1000))
[ "$keep_pmem" = 1 ] || [ ${#fresh[@]} -eq 0 ] || rm -f "${fresh[@]}"
rm -f "$results/payload.cpio.gz" "$console.initrd" "$results/nova.ko"

# --- judge the console log ----------------------------------------------------------
[ -f "$console" ] || die "no console log $console"
clean="$results/console.clean.log"
tr -d '\r' <"$console" >"$clean"

declare -A result=() rcs=()
started=()
while read -r kind name rc; do
	case $kind in
	START) started+=("$name") ;;
	PASS) [ "${result[$name]:-}" = FAIL ] || result[$name]=PASS ;;
	FAIL) result[$name]=FAIL; rcs[$name]=$rc ;;
	esac
done < <(sed -nE 's/.*NOVA-TEST: (START|PASS|FAIL) ([^ ]+)( \(rc=([^)]*)\))?.*/\1 \2 \4/p' "$clean")
done_ok=0
grep -q 'NOVA-DONE' "$clean" && done_ok=1
abort=$(sed -n 's/.*NOVA-ABORT //p' "$clean" | head -n1)
last_started=""
[ ${#started[@]} -eq 0 ] || last_started=${started[-1]}

# Per-test logs (between START and its result line).
mkdir -p "$results/tests"
awk -v dir="$results/tests" '
	match($0, /NOVA-TEST: START [^ ]+/) { f = dir "/" substr($0, RSTART + 17, RLENGTH - 17) ".log" }
	f { print > f }
	/NOVA-TEST: (PASS|FAIL) / { if (f) close(f); f = "" }' "$clean"

passed=0 failed=0 lines=()
report() { lines+=("$1"); }
for n in "${names[@]}"; do
	case ${result[$n]:-} in
	PASS) report "PASS $n"; passed=$((passed + 1)) ;;
	FAIL) report "FAIL $n (rc=${rcs[$n]})"; failed=$((failed + 1)) ;;
	*)
		if [ "$n" = "$last_started" ]; then
			report "FAIL $n (no result: the guest crashed or hung during it)"
		else
			report "FAIL $n (not run: the guest died before it)"
		fi
		failed=$((failed + 1))
		;;
	esac
done
# Results for names that are not tests: setup steps (guest-setup, insmod-nova).
for n in "${!result[@]}"; do
	printf '%s\n' "${names[@]}" | grep -qxF -- "$n" && continue
	if [ "${result[$n]}" = FAIL ]; then
		report "FAIL $n (rc=${rcs[$n]})"; failed=$((failed + 1))
	fi
done
if [ "$done_ok" = 0 ]; then
	why="no NOVA-DONE"
	[ -z "$abort" ] || why="guest aborted: $abort"
	case $qrc in
	124) why="$why; QEMU killed after a timeout (hang)" ;;
	0) ;;
	*) why="$why; run-guest.sh exit status $qrc" ;;
	esac
	report "FAIL guest-finish ($why)"
	failed=$((failed + 1))
fi

# Kernel log scan: every kernel line on the console (timestamped), which includes
# the dmesg dump. Known harmless noise is ignored.
# (qemu/common.sh: NOVA_KLOG_BAD)
bad_re=$NOVA_KLOG_BAD
ignore_re='module verification failed|I/O error, dev fd0|NOVA-MARK '
[ -z "${NOVA_LOG_IGNORE:-}" ] || ignore_re="$ignore_re|$NOVA_LOG_IGNORE"
mapfile -t hits < <(
	sed -nE 's/.*(\[ *[0-9]+\.[0-9]+\] )/\1/p' "$clean" |
		awk -v bad="$bad_re" -v ign="$ignore_re" '{
			msg = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", msg)
			if (msg ~ bad && msg !~ ign && !seen[$0]++) print
		}'
)
if [ ${#hits[@]} -gt 0 ]; then
	report "FAIL guest-kernel-log (${#hits[@]} suspicious kernel log lines)"
	failed=$((failed + 1))
	# Whole reports (up to 80 lines from each header) from the final dmesg dump
	# (or the live console when there is none), and the NOVA functions in them.
	src_log=$clean
	grep -q NOVA-DMESG-BEGIN "$clean" &&
		src_log=$(mktemp) && sed -n '/NOVA-DMESG-BEGIN/,/NOVA-DMESG-END/p' "$clean" >"$src_log"
	awk -v bad="$bad_re" -v ign="$ignore_re" '
		{ msg = $0; sub(/^.*\[ *[0-9]+\.[0-9]+\] /, "", msg) }
		n > 0 { print; n--; if (msg ~ /end trace|^=+$/ && n < 78) { n = 0; print "" } ; next }
		msg ~ bad && msg !~ ign { print; n = 80 }' "$src_log" >"$results/kernel-reports.txt"
	[ "$src_log" = "$clean" ] || rm -f "$src_log"
	nova_funcs=$(grep -oE '\b_?_?nova_[A-Za-z0-9_]+\+0x[0-9a-f]+/0x[0-9a-f]+' "$results/kernel-reports.txt" |
		sed 's/+.*//' | sort | uniq -c | sort -rn | head -n 15 | awk '{ printf "%s(%s) ", $2, $1 }')
fi

# --- report -------------------------------------------------------------------------
for n in "${names[@]}"; do
	[ "${result[$n]:-}" = PASS ] && continue
	f="$results/tests/$n.log"
	[ -s "$f" ] || continue
	echo "----- output of $n (last 40 lines; full: $f) -----"
	tail -n 40 "$f"
done
if [ ${#hits[@]} -gt 0 ]; then
	echo "----- suspicious kernel log lines (first 60) -----"
	printf '%s\n' "${hits[@]}" | head -n 60
	echo "full reports: $results/kernel-reports.txt"
	echo "NOVA functions in them (count): ${nova_funcs:-none}"
fi
if [ "$done_ok" = 0 ]; then
	echo "----- last 30 console lines -----"
	tail -n 30 "$clean"
fi
ready=$(sed -n 's/.*NOVA-READY \([0-9.]*\).*/\1/p' "$clean" | head -n1)
fin=$(sed -n 's/.*NOVA-FINISHED \([0-9.]*\).*/\1/p' "$clean" | head -n1)
echo "----- results -----"
printf '%s\n' "${lines[@]}" | tee "$results/summary.txt"
echo "QEMU wall time $((boot_ms / 1000)).$((boot_ms % 1000 / 100))s (guest uptime: ready ${ready:-?}s, tests finished ${fin:-?}s)"
echo "console log: $console"
echo "$passed passed, $failed failed" | tee -a "$results/summary.txt"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
