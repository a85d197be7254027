#!/bin/bash
# Power-cut (crash-consistency) tests of NOVA in the QEMU guest.
#
# Usage: tests/crash/run-powercut.sh [options]
#   --mode MODE          random, crashpoints or both (default random)
#   --iterations N       random mode: power cuts (default 20)
#   --seed S             base seed (default: from the clock; printed)
#   --profiles LIST      random mode: comma list of crashwork profiles (mixed,
#                        write, ns, gc, xattr, crypt, clone, eof), used in turn
#                        (default mixed); eof runs on an inplace_data_updates=1
#                        mount; crypt in an encrypted directory (fscrypt);
#                        clone: the data operations with clones and dedupe
#                        (FICLONE, FICLONERANGE, FIDEDUPERANGE)
#   --ops N              random mode: operations per workload (default 6000,
#                        4.5 to 7.5 s under TCG)
#   --kill-max SEC       random mode: latest kill, seconds after the workload
#                        starts (default 5; lowered when a workload is shorter)
#   --points LIST        crashpoints mode: comma list of numbers or CP_ names
#                        (default: every point of enum nova_crash_point)
#   --workloads W        crashpoints mode: "best" (one workload per point,
#                        default), "all" (mixed,write,ns,gc,xattr,crypt,clone,
#                        and umount for CP_SNAPSHOT_SAVED, eof for
#                        CP_WRITE_DATA and CP_WRITE_ENTRIES), or a comma
#                        list of them and of the other profiles (eof:
#                        crashwork's profile eof on an inplace_data_updates=1
#                        mount: a write that stored preallocated pages past
#                        EOF in place is cut before its commit; the
#                        verification grows every file and checks that the
#                        growth shows zeros)
#   --results DIR        default build/crash/<stamp>
#   --keep               keep the pmem images of passing runs too
#   --kernel K           guest kernel: a name of qemu/kernel-version.sh (deb12,
#                        deb13, sid, ...) or an ABI version (default:
#                        NOVA_KVER, else NOVA_KERNEL, else deb12)
#   --recover-kernel K   the verification boots run kernel K (with the module
#                        built for it) instead of --kernel's: the on-pmem
#                        format must not depend on the kernel
#   --no-build           use the existing build/module/<kernel>/nova.ko and
#                        build/module/<kernel>-debug/nova.ko of
#                        qemu/build-module.sh and tests/guest/bin (default:
#                        build them)
#   --smp N              guest CPUs of the boot that formats, works and is cut
#                        (default 2; the format gives one stripe per CPU)
#   --recover-smp LIST   comma list of guest CPU counts for the verification
#                        boot (default: --smp's); with several, each one
#                        recovers its own copy of the same cut image, and
#                        each gets its own PASS/FAIL line
#   --expect-stripes N   the verification fails unless fsck.nova reports N
#                        stripes (one per CPU of the formatting boot)
#
# random mode, per iteration: a fresh 256 MiB pmem file.  Boot 1 formats NOVA,
# prints NOVA-WORKLOAD-START and runs "crashwork run" (seed = base + i); the
# host kills QEMU (a power cut: TCG has no caches, every executed store is in
# the backing file) a random 0.2..kill-max s after that line.  The records of
# the operations that completed go to a second pmem device with O_DIRECT
# writes (each before the next operation starts; the serial console would
# be so slow that most cuts would land between operations), and the host
# reads them from its backing file.  Boot 2 (same pmem file,
# tests/run-guest-tests.sh, so its kernel log scan applies) runs fsck.nova -n
# if there is a static one (exit 0 or 1 required), mounts (recovery),
# "crashwork verify" against the records, stresses the allocator, verifies
# again, unmounts, mounts again (the clean-unmount snapshot) and verifies a
# third time (the same state, the same free blocks and inodes), then removes
# everything and checks that no block leaked.  The kill window adapts per
# profile: when a workload ends before its kill, later kills of that profile
# land before the shortest length measured for it (guest uptime, 10 ms
# resolution), unless --kill-max was given.  The table counts the cuts that
# landed before the last operation.
#
# crashpoints mode: the debug module (NOVA_DEBUG=1, qemu/build-module.sh
# --debug) panics with "NOVA-CRASHPOINT N" when it reaches
# point N, which stops every CPU: the pmem file holds exactly the stores made
# before.  For each point and workload, boot 1 runs the workload with the
# point armed after a (seeded) random operation; the panic is expected.
# Boot 2 loads the normal module and checks as above.  A run that does not
# reach its point is reported as NOT-REACHED; with --workloads best the
# workload runs again with another seed, up to 3 runs.  A point that none of
# its runs reached counts as a failure (a gap in the tests: a new point in
# src/nova.h needs a workload that reaches it).
#
# Every boot 1 starts from a copy of a blank image whose namespace one boot
# at the start made fsdax (saves /init's conversion, about 3 s per boot).
#
# Output: one PASS/FAIL line per iteration or point x workload, a table, and
# finally "N passed, N failed".  Exit status 0 only when nothing failed.
# Everything (console logs, records, verify output, kept images) is in the
# results directory.
set -euo pipefail
NOVA_PROG=run-powercut
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

mode=random iterations=20 seed="" ops=6000 kill_max=5 kill_max_set=0 points=""
workloads=best results="" keep=0 build=1 smp=2 recover_smp="" stripes="" profiles=mixed
kernel="" recover_kernel=""
while [ $# -gt 0 ]; do
	case $1 in
	--mode) mode=$2; shift ;;
	--iterations) iterations=$2; shift ;;
	--seed) seed=$2; shift ;;
	--ops) ops=$2; shift ;;
	--profiles) profiles=$2; shift ;;
	--kill-max) kill_max=$2; kill_max_set=1; shift ;;
	--points) points=$2; shift ;;
	--workloads) workloads=$2; shift ;;
	--results) results=$2; shift ;;
	--keep) keep=1 ;;
	--no-build) build=0 ;;
	--kernel) kernel=$2; shift ;;
	--recover-kernel) recover_kernel=$2; shift ;;
	--smp) smp=$2; shift ;;
	--recover-smp) recover_smp=$2; shift ;;
	--expect-stripes) stripes=$2; shift ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
case $mode in random | crashpoints | both) ;; *) die "bad --mode $mode" ;; esac
[ -n "$seed" ] || seed=$(($(date +%s) % 1000000))
[[ $seed =~ ^[0-9]+$ ]] || die "bad --seed $seed"
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "bad --smp $smp"
for p in ${profiles//,/ }; do
	case $p in mixed | write | ns | gc | xattr | crypt | clone | eof) ;; *) die "bad profile $p in --profiles" ;; esac
done
case $workloads in
best | all) ;;
*)	for w in ${workloads//,/ }; do
		case $w in mixed | write | ns | gc | xattr | crypt | clone | eof | umount) ;;
		*) die "bad workload $w in --workloads" ;;
		esac
	done ;;
esac
[ -n "$recover_smp" ] || recover_smp=$smp
[[ $recover_smp =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "bad --recover-smp $recover_smp"

PMEM_SIZE=256M		# < 512 MiB: 4 KiB inode table blocks, so tables grow
CP_OPS=1500		# crashpoints mode: operations per workload
UMOUNT_OPS=400		# the clean-unmount workload
t_start=$(date +%s)

# --- build ---------------------------------------------------------------------------
kver=$("$NOVA_QEMU_DIR/kernel-version.sh" ${kernel:+"$kernel"}) ||
	die "unknown kernel '$kernel'"
export NOVA_KVER=$kver # every guest of this run boots it
"$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver" >/dev/null
normal_ko=${NOVA_KO:-$NOVA_BUILD/module/$kver/nova.ko}
debug_ko=$NOVA_BUILD/module/$kver-debug/nova.ko
if [ "$build" = 1 ]; then
	if [ -z "${NOVA_KO:-}" ]; then
		log "building the module for $kver"
		normal_ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver") ||
			die "module build failed"
	fi
	make -C "$NOVA_ROOT" guest-bin >&2 || die "guest-bin build failed"
	if [ "$mode" != random ]; then
		log "building the debug module (NOVA_DEBUG=1) for $kver"
		debug_ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kver" --debug) ||
			die "debug module build failed"
	fi
fi
[ -f "$normal_ko" ] || die "$normal_ko missing (build it, or drop --no-build)"
# The kernel and module of the verification boots
rkver=$kver recover_ko=$normal_ko
if [ -n "$recover_kernel" ]; then
	rkver=$("$NOVA_QEMU_DIR/kernel-version.sh" "$recover_kernel") ||
		die "unknown kernel '$recover_kernel'"
	"$NOVA_QEMU_DIR/fetch-kernel.sh" "$rkver" >/dev/null
	recover_ko=$NOVA_BUILD/module/$rkver/nova.ko
	if [ "$build" = 1 ]; then
		recover_ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$rkver") ||
			die "module build for $rkver failed"
	fi
	[ -f "$recover_ko" ] || die "$recover_ko missing (drop --no-build)"
	log "made and cut on $kver, verified on $rkver"
fi
[ -x "$NOVA_ROOT/tests/guest/bin/crashwork" ] || die "tests/guest/bin/crashwork missing: make guest-bin"
if [ "$mode" != random ]; then
	[ -f "$debug_ko" ] || die "$debug_ko missing (drop --no-build)"
	modinfo -F parm "$debug_ko" | grep -q '^crash_point:' ||
		die "$debug_ko has no crash_point parameter (not a NOVA_DEBUG=1 build?)"
fi
base_initrd=$("$NOVA_QEMU_DIR/mkinitramfs.sh" "$kver")

# --- results, the guest tests directory -------------------------------------------------
if [ -z "$results" ]; then
	results=$NOVA_BUILD/crash/$(date +%Y%m%d-%H%M%S)-$$
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)
stage=$results/.stage
mkdir -p "$stage/bin"
cp "$NOVA_ROOT/tests/guest/lib.sh" "$NOVA_ROOT/tests/guest/nova-lib.inc" "$stage/"
cp -p "$NOVA_ROOT"/tests/guest/bin/* "$stage/bin/"
fsck_note=""
if [ -x "$NOVA_ROOT/tests/guest/bin/fsck.nova" ]; then
	fsck_note="fsck.nova from tests/guest/bin"
elif [ -f "$NOVA_ROOT/src/tools/fsck/unix.c" ] &&
	${CC:-cc} -static -O2 -std=gnu11 -DNOVA_VERSION="\"$(cat "$NOVA_ROOT/src/VERSION" 2>/dev/null || echo unknown)\"" \
		-I"$NOVA_ROOT/src/tools" -o "$stage/bin/fsck.nova" "$NOVA_ROOT"/src/tools/fsck/*.c \
		"$NOVA_ROOT/src/tools/libnova.c" "$NOVA_ROOT/src/tools/nova_tools.c" 2>"$results/fsck-build.log"; then
	fsck_note="fsck.nova built statically from src/tools"
else
	rm -f "$stage/bin/fsck.nova"
	fsck_note="no fsck.nova (not run)"
fi
log "results in $results; base seed $seed; $fsck_note"

# --- helpers -----------------------------------------------------------------------------
# Same patterns as tests/run-guest-tests.sh's kernel log scan.
bad_re="$NOVA_KLOG_BAD|NOVA error"
ignore_re='module verification failed|I/O error, dev fd0|NOVA-MARK '

# kernel_log_hits LOG [STOP_ERE]: suspicious kernel lines (up to STOP_ERE)
kernel_log_hits() {
	tr -d '\r' <"$1" | awk -v stop="${2:-}" 'stop != "" && $0 ~ stop { exit } { print }' |
		sed -nE 's/.*(\[ *[0-9]+\.[0-9]+\] )/\1/p' |
		awk -v bad="$bad_re" -v ign="$ignore_re" '{
			msg = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", msg)
			if (msg ~ bad && msg !~ ign && !seen[msg]++) print
		}' || true
}

shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# new_testdir DIR: the staged lib, includes and binaries
new_testdir() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -al "$stage/." "$1/"
}

# A blank image whose namespace is already fsdax: the guest's /init
# converts a raw one first (about 3 s of TCG time per boot), so that is
# done once, and every boot 1 starts from a copy
template=$results/.fsdax.img
make_template() {
	local d=$results/.template
	[ -f "$template" ] && return 0
	mkdir -p "$d/tests"
	printf "tests=''\nload_nova=0\n" >"$d/run.conf"
	"$NOVA_QEMU_DIR/mkpayload.sh" -o "$d/payload.cpio.gz" --no-ko \
		--tests-dir "$d/tests" --conf "$d/run.conf"
	rm -f "$d/pmem.img"
	if "$NOVA_QEMU_DIR/run-guest.sh" --initrd "$base_initrd" --initrd "$d/payload.cpio.gz" \
		--pmem "$d/pmem.img" --pmem-size "$PMEM_SIZE" --log "$d/console.log" \
		--timeout 300 >"$d/host.log" 2>&1 && grep -aq 'converting to fsdax' "$d/console.log" &&
		grep -aq NOVA-DONE "$d/console.log"; then
		mv "$d/pmem.img" "$template"
	else
		log "no fsdax template image (see $d/host.log): every boot 1 converts its own"
		: >"$template.none"
	fi
}

# boot1 DIR KO SCRIPT [run-guest.sh kill options...]: run SCRIPT as the one test
boot1() {
	local dir=$1 ko=$2 script=$3 rc=0
	shift 3
	[ -f "$template" ] || [ -f "$template.none" ] || make_template
	[ -f "$dir/pmem.img" ] || [ ! -f "$template" ] ||
		cp --sparse=always "$template" "$dir/pmem.img"
	new_testdir "$dir/tests1"
	cp "$script" "$dir/tests1/010-workload.sh"
	{
		echo "tests='010-workload'"
		echo "test_timeout=600"
		echo "load_nova=1"
		echo "console_loglevel=5"	# kernel warnings reach the console (no dmesg dump after a cut)
	} >"$dir/run1.conf"
	"$NOVA_QEMU_DIR/mkpayload.sh" -o "$dir/payload1.cpio.gz" --ko "$ko" \
		--tests-dir "$dir/tests1" --conf "$dir/run1.conf"
	"$NOVA_QEMU_DIR/run-guest.sh" --initrd "$base_initrd" --initrd "$dir/payload1.cpio.gz" \
		--pmem "$dir/pmem.img" --pmem-size "$PMEM_SIZE" --log "$dir/console1.log" \
		--smp "$smp" --timeout 400 --idle-timeout 200 "$@" >>"$dir/host.log" 2>&1 || rc=$?
	rm -rf "$dir/payload1.cpio.gz" "$dir/console1.log.initrd" "$dir/tests1"
	tr -d '\r' <"$dir/console1.log" >"$dir/console1.clean.log"
	if [ -f "$dir/rec.img" ]; then
		# records written to the second pmem device (crashwork --records)
		tr '\0' '\n' <"$dir/rec.img" | grep -a 'REC ' >"$dir/rec.txt" || true
		rm -f "$dir/rec.img"
	else
		grep -a 'REC ' "$dir/console1.clean.log" >"$dir/rec.txt" || true
	fi
	return $rc
}

# boot2 DIR SEED PROFILE OPS [CPUS]: verification boot (with CPUS CPUs) on a
# copy of the cut image DIR/pmem.img, which stays as it was for a failure's
# post-mortem (fsck.nova -n runs on the host too); output in DIR/$b2.out
boot2() {
	local dir=$1 s=$2 prof=$3 n=$4 cpus=${5:-} rc=0 img=$1/$b2.img
	local smp_args=()
	cp --sparse=always "$dir/pmem.img" "$img"
	[ -z "$cpus" ] || smp_args=(--smp "$cpus")
	new_testdir "$dir/tests2"
	cp "$dir/rec.txt" "$dir/tests2/rec.txt"
	{
		echo "#!/bin/sh"
		echo "SEED=$s PROFILE=$prof OPS=$n${stripes:+ STRIPES=$stripes}"
		cat "$NOVA_ROOT/tests/crash/verify-guest.sh"
	} >"$dir/tests2/020-verify.sh"
	NOVA_TESTS_DIR=$dir/tests2 NOVA_KO=$recover_ko NOVA_KVER=$rkver NOVA_LOG_IGNORE='' \
		"$NOVA_ROOT/tests/run-guest-tests.sh" --no-build --pmem "$img" --pmem-size "$PMEM_SIZE" \
		"${smp_args[@]}" --test-timeout 500 --results "$dir/$b2" 020-verify >"$dir/$b2.out" 2>&1 || rc=$?
	rm -f "$img"
	rm -rf "$dir/tests2"
	return $rc
}

# Facts from a verification: the matched state, the in-flight op, fsck result
boot2_facts() {
	local f=$1/$b2/tests/020-verify.log
	[ -f "$f" ] || { echo "no verify log"; return; }
	local matched inflight fsck recov
	matched=$(sed -n 's/^verify: matched //p' "$f" | sed -n 1p)
	inflight=$(sed -n 's/^INFO: in flight: //p' "$f" | sed -n 1p)
	fsck=$(sed -n 's/^FSCK-RC //p' "$f" | sed -n 1p)
	recov=$(sed -n 's/^RECOVERY: //p' "$f" | sed 's/NOVA (pmem0): //' | grep -v '^mounted, ' |
		tr '\n' ';' | sed 's/;$//' || true)
	echo "matched: ${matched:-none}; in flight: ${inflight:-nothing}; fsck: ${fsck:-not run}${recov:+; $recov}"
}

passed=0 failed=0 rtable=() ctable=() rmid=0
# the verification boot's name (its results subdirectory): boot2, or
# boot2-smpN when its CPU count is not the first boot's
b2=boot2 rcpus="" cpuinfo=""
# set_recovery CPUS: b2, rcpus (boot2's CPUS argument) and cpuinfo (text)
set_recovery() {
	if [ "$recover_smp" = "$smp" ]; then
		b2=boot2 rcpus=""
		[ "$smp" = 2 ] && cpuinfo="" || cpuinfo=" ($smp CPUs)"
	else
		b2=boot2-smp$1 rcpus=$1
		cpuinfo=" (cut on $smp CPUs, recovered on $1)"
	fi
}
result() { # VERDICT TEXT
	if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	echo "$1 $2" | tee -a "$results/summary.txt"
}

# the first failure lines of a verification boot
boot2_why() { # DIR
	local f=$1/$b2/tests/020-verify.log why
	why=$(grep -aE '^(FAIL: |FAIL verify: )' "$f" 2>/dev/null | sed 's/^FAIL: //; s/^FAIL verify: /verify: /' |
		head -n 3 | tr '\n' ';' | sed 's/;$//' || true)
	[ -n "$why" ] || why=$(grep -E '^FAIL ' "$1/$b2/summary.txt" 2>/dev/null | tr '\n' ' ' || echo "no summary")
	echo "$b2: $why"
}

# show the interesting part of a failed run
show_failure() { # DIR
	local d=$1
	echo "----- $d"
	if [ -f "$d/$b2.out" ]; then
		sed -n '/^----- output of/,$p' "$d/$b2.out" | head -n 80
	fi
}

# --- random mode ---------------------------------------------------------------------
run_random() {
	local i s dir delay d ms rc n verdict why hits facts dur t0 cutinfo why1 kept rs prof
	local top
	local -a profs
	# per profile: the shortest measured workload length in ms
	local -A prof_ms=()
	IFS=, read -r -a profs <<<"$profiles"
	RANDOM=$seed
	for ((i = 1; i <= iterations; i++)); do
		s=$((seed + i))
		prof=${profs[$(((i - 1) % ${#profs[@]}))]}
		dir=$(printf '%s/random-%03d-%s-seed%d' "$results" "$i" "$prof" "$s")
		mkdir -p "$dir"
		rm -f "$dir/pmem.img"
		# kill delay: uniform in [0.2 s, top] (ms resolution); top is
		# kill_max, or the profile's shortest measured length
		top=$((${kill_max%.*} * 1000))
		if [ "$kill_max_set" = 0 ] && [ -n "${prof_ms[$prof]:-}" ] &&
			[ "${prof_ms[$prof]}" -lt "$top" ]; then
			top=$((prof_ms[$prof] > 300 ? prof_ms[$prof] : 300))
		fi
		ms=$((200 + (RANDOM * 32768 + RANDOM) % (top - 200 + 1)))
		fmt_opts=""
		[ "$prof" != eof ] || fmt_opts=inplace_data_updates=1
		delay=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
		cat >"$dir/workload.sh" <<-EOF
			#!/bin/sh
			. "\$NOVA_TESTS/lib.sh"
			. "\$NOVA_TESTS/nova-lib.inc"
			[ -b "\${PMEM2:-}" ] || fail "no second pmem device for the records"
			# the guest does not number the nvdimms in QEMU's order: the
			# file system goes on the larger one ($PMEM_SIZE), the records
			# on the smaller one
			if [ "\$(dev_bytes "\$PMEM")" -lt "\$(dev_bytes "\$PMEM2")" ]; then
				t=\$PMEM PMEM=\$PMEM2 PMEM2=\$t
			fi
			info "file system on \$PMEM, records on \$PMEM2"
			nova_format ${fmt_opts}
			echo "NOVA-WORKLOAD-START \$(cut -d' ' -f1 /proc/uptime)"
			crashwork run "\$MNT" $s $ops --profile $prof --records "\$PMEM2"
			echo "NOVA-WORKLOAD-END rc=\$? \$(cut -d' ' -f1 /proc/uptime)"
			sleep 300
		EOF
		t0=$(date +%s)
		rc=0
		rm -f "$dir/rec.img"
		boot1 "$dir" "$normal_ko" "$dir/workload.sh" --kill-on 'NOVA-WORKLOAD-START' \
			--kill-delay "$delay" --pmem2 "$dir/rec.img" --pmem2-size 64M || rc=$?
		n=$(sed -nE 's/.*REC ([0-9]+) .*/\1/p' "$dir/rec.txt" | tail -n1 || true)
		why=""
		if [ "$rc" != 125 ]; then
			why="boot 1: QEMU exit status $rc, not the power cut (125)"
		fi
		if grep -aq 'NOVA-WORKLOAD-END' "$dir/console1.clean.log"; then
			# the workload ended before the kill: measure it, kill earlier from now on
			dur=$(awk '/NOVA-WORKLOAD-START/ { s = $2 } /NOVA-WORKLOAD-END/ { e = $3 }
				END { if (s != "" && e != "") printf "%d", (e - s) * 1000 }' "$dir/console1.clean.log")
			if [ "$kill_max_set" = 0 ] && [ -n "$dur" ] &&
				[ "$dur" -lt "${prof_ms[$prof]:-$((${kill_max%.*} * 1000))}" ]; then
				prof_ms[$prof]=$dur
				log "the $prof workload took ${dur} ms: its kills from now on land before that"
			fi
			grep -aq 'NOVA-WORKLOAD-END rc=0 ' "$dir/console1.clean.log" ||
				why="${why:+$why; }the workload failed before the cut (crashwork run)"
		fi
		if grep -aqE '^(ERROR: op|FAIL run)' "$dir/console1.clean.log"; then
			why="${why:+$why; }crashwork run reported an error: $(grep -aE '^(ERROR: op|FAIL run)' "$dir/console1.clean.log" | head -n1 || true)"
		fi
		hits=$(kernel_log_hits "$dir/console1.log")
		[ -z "$hits" ] || why="${why:+$why; }boot 1 kernel log: $(echo "$hits" | head -n1)"
		cutinfo="kill ${delay}s after start, $((${n:-0})) of $ops ops done"
		why1=$why kept=0
		for rs in ${recover_smp//,/ }; do
			set_recovery "$rs"
			why=$why1 rc=0
			boot2 "$dir" "$s" "$prof" "$ops" "$rcpus" || rc=$?
			facts=$(boot2_facts "$dir")
			[ "$rc" = 0 ] || why="${why:+$why; }$(boot2_why "$dir")"
			d=$(($(date +%s) - t0))
			if [ -z "$why" ]; then
				verdict=PASS
			else
				verdict=FAIL kept=1
			fi
			result "$verdict" "random $i $prof seed $s$cpuinfo: $cutinfo; $facts (${d}s)${why:+ -- $why}"
			rtable+=("$i|$prof|$s$cpuinfo|${delay}s|${n:-0}/$ops|$verdict|$facts")
			[ "${n:-0}" -ge "$ops" ] || rmid=$((rmid + 1))
			if [ "$verdict" = FAIL ]; then
				[ -z "$hits" ] || { echo "----- boot 1 kernel log"; echo "$hits" | head -n 20; }
				show_failure "$dir"
			fi
		done
		[ "$kept" = 1 ] || [ "$keep" = 1 ] || rm -f "$dir/pmem.img"
	done
}

# --- crashpoints mode --------------------------------------------------------------
# enum nova_crash_point from src/nova.h: lines "N NAME"
crash_points() {
	awk '/^enum nova_crash_point \{/ { on = 1; n = 0; next }
		on && /^\};/ { exit }
		on { line = $0; sub(/\/\*.*/, "", line); gsub(/[ \t,]/, "", line)
			if (line == "") next
			sub(/=.*/, "", line)
			print n++, line }' "$NOVA_ROOT/src/nova.h" | awk '$2 != "CP_NONE" && $2 != "CP_MAX"'
}

# The workload that is meant to reach each point (crashpoints --workloads best)
declare -A best_workload=(
	[CP_LOG_BEFORE_TAIL]=mixed [CP_LOG_AFTER_TAIL]=write
	[CP_JOURNAL_STARTED]=ns [CP_JOURNAL_MID]=ns [CP_JOURNAL_BEFORE_COMMIT]=ns
	[CP_CREATE_INODE]=ns [CP_WRITE_DATA]=write [CP_WRITE_ENTRIES]=write
	[CP_TRUNCATE_COMMITTED]=write [CP_LOG_EXTEND]=mixed [CP_FAST_GC]=gc
	[CP_GC_LINKED]=gc [CP_GC_TAIL]=gc [CP_GC_HEAD]=gc [CP_ITABLE_EXTEND]=ns
	[CP_EVICT]=ns [CP_SNAPSHOT_SAVED]=umount
	[CP_XATTR_COMMITTED]=xattr [CP_XATTR_HALF_DEAD]=xattr
)

run_crashpoints() {
	local all sel=() num name w wl s dir arm rc verdict why hits facts n t0 d reached op attempt
	local why1 kept rs
	local -A reached_any=()
	mapfile -t all < <(crash_points)
	[ ${#all[@]} -gt 0 ] || die "no crash points found in src/nova.h"
	if [ -n "$points" ]; then
		local p
		for p in ${points//,/ }; do
			local hit=""
			for num in "${all[@]}"; do
				case $p in "${num%% *}" | "${num#* }") hit=$num ;; esac
			done
			[ -n "$hit" ] || die "no crash point $p (have: ${all[*]})"
			sel+=("$hit")
		done
	else
		sel=("${all[@]}")
	fi
	local k=0
	for num in "${sel[@]}"; do
		name=${num#* }
		num=${num%% *}
		case $workloads in
		best) wl=${best_workload[$name]:-mixed} ;;
		all) wl="mixed write ns gc xattr crypt clone"
			[ "$name" != CP_SNAPSHOT_SAVED ] || wl="$wl umount"
			case $name in CP_WRITE_DATA | CP_WRITE_ENTRIES) wl="$wl eof" ;; esac ;;
		*) wl=${workloads//,/ } ;;
		esac
		for w in $wl; do
			k=$((k + 1))
			# best: a workload that passed the point by runs again with
			# another seed (up to 3 in all); the workloads are random, and
			# the point must be reached and recovered by one of them
			for attempt in 0 1 2; do
				s=$((seed + 1000 + k + 100000 * attempt))
				dir=$results/cp-$(printf '%02d' "$num")-$name-$w
				[ "$attempt" = 0 ] || dir=$dir-try$((attempt + 1))
				mkdir -p "$dir"
				rm -f "$dir/pmem.img"
				local prof=$w n_ops=$CP_OPS fmt_opts=""
				[ "$w" != eof ] || fmt_opts=inplace_data_updates=1
				if [ "$w" = umount ]; then
					prof=mixed n_ops=$UMOUNT_OPS arm=$UMOUNT_OPS
				else
					# armed after a seeded random op in the first third (the setup
					# ops are 7), so crashes land at different operations
					arm=$((8 + (s * 7919) % (CP_OPS / 3)))
				fi
				cat >"$dir/workload.sh" <<-EOF
					#!/bin/sh
					. "\$NOVA_TESTS/lib.sh"
					. "\$NOVA_TESTS/nova-lib.inc"
					nova_format ${fmt_opts}
					echo "NOVA-WORKLOAD-START \$(cut -d' ' -f1 /proc/uptime)"
					crashwork run "\$MNT" $s $n_ops --profile $prof --arm $num@$arm
					echo "NOVA-WORKLOAD-END rc=\$? \$(cut -d' ' -f1 /proc/uptime)"
					# not reached yet: the clean unmount may reach it
					umount "\$MNT"
					echo "NOVA-CP-NOT-REACHED $num"
				EOF
				t0=$(date +%s)
				rc=0
				boot1 "$dir" "$debug_ko" "$dir/workload.sh" || rc=$?
				n=$(sed -nE 's/.*REC ([0-9]+) .*/\1/p' "$dir/rec.txt" | tail -n1 || true)
				why="" reached=0
				if grep -aq "Kernel panic - not syncing: NOVA-CRASHPOINT $num\b" "$dir/console1.clean.log"; then
					reached=1
					reached_any[$name]=1
				elif [ "$rc" != 0 ]; then
					why="boot 1: QEMU exit status $rc"
				fi
				if grep -aqE '^(ERROR: op|FAIL run)' "$dir/console1.clean.log"; then
					why="${why:+$why; }crashwork run: $(grep -aE '^(ERROR: op|FAIL run)' "$dir/console1.clean.log" | head -n1 || true)"
				fi
				hits=$(kernel_log_hits "$dir/console1.log" 'Kernel panic - not syncing: NOVA-CRASHPOINT')
				[ -z "$hits" ] || why="${why:+$why; }boot 1 kernel log: $(echo "$hits" | head -n1)"
				why1=$why kept=0
				for rs in ${recover_smp//,/ }; do
					set_recovery "$rs"
					why=$why1
					if [ "$reached" = 1 ]; then
						rc=0
						boot2 "$dir" "$s" "$prof" "$n_ops" "$rcpus" || rc=$?
						facts=$(boot2_facts "$dir")
						[ "$rc" = 0 ] || why="${why:+$why; }$(boot2_why "$dir")"
						op="crash after ${n:-0} of $n_ops ops (armed after op $arm)"
					else
						facts="NOT REACHED (armed after op $arm; the workload and the unmount passed it by)"
						op="workload finished: ${n:-0} of $n_ops ops"
					fi
					d=$(($(date +%s) - t0))
					if [ -n "$why" ]; then
						verdict=FAIL kept=1
					elif [ "$reached" = 1 ]; then
						verdict=PASS
					else
						verdict=NOTREACHED
					fi
					ctable+=("$num $name|$w$cpuinfo|$op|$verdict|$facts")
					if [ "$verdict" = NOTREACHED ]; then
						echo "NOT-REACHED $name ($num) x $w$cpuinfo: $op; $facts (${d}s)" |
							tee -a "$results/summary.txt"
					else
						result "$verdict" "$name ($num) x $w seed $s$cpuinfo: $op; $facts (${d}s)${why:+ -- $why}"
					fi
					if [ "$verdict" = FAIL ]; then
						[ -z "$hits" ] || { echo "----- boot 1 kernel log"; echo "$hits" | head -n 20; }
						show_failure "$dir"
					fi
					# boot 1 is judged once
					[ "$reached" = 1 ] || break
				done
				[ "$kept" = 1 ] || [ "$keep" = 1 ] || rm -f "$dir/pmem.img"
				if [ "$workloads" != best ] || [ "$reached" = 1 ] || [ -n "$why1" ]; then
					break
				fi
			done
		done
	done
	unreached=()
	for num in "${sel[@]}"; do
		name=${num#* }
		[ -n "${reached_any[$name]:-}" ] || unreached+=("$name")
	done
	for name in "${unreached[@]}"; do
		result FAIL "$name: reached by none of its workloads (a test gap)"
	done
}

unreached=()
[ "$mode" = crashpoints ] || run_random
[ "$mode" = random ] || run_crashpoints

# --- report ----------------------------------------------------------------------------
{
	if [ ${#rtable[@]} -gt 0 ]; then
		echo "----- random power cuts"
		printf '%s\n' "iter|profile|seed|kill after|ops done|verdict|state found; in-flight op; fsck.nova -n; recovery" \
			"${rtable[@]}" | column -t -s '|'
		echo "cuts before the workload's last operation: $rmid of ${#rtable[@]}"
	fi
	if [ ${#ctable[@]} -gt 0 ]; then
		echo "----- crash points"
		printf '%s\n' "point|workload|crash|verdict|state found; in-flight op; fsck.nova -n; recovery" \
			"${ctable[@]}" | column -t -s '|'
		if [ ${#unreached[@]} -gt 0 ]; then
			echo "crash points never reached by any workload (test gaps): ${unreached[*]}"
		else
			echo "every selected crash point was reached"
		fi
	fi
	qemu_s=$(cat "$results"/*/host.log "$results"/*/boot2*.out 2>/dev/null |
		sed -n 's/.*QEMU ran \([0-9.]*\)s.*/\1/p' | awk '{ t += $1 } END { printf "%d", t }')
	echo "results: $results ($fsck_note)"
	echo "took $(($(date +%s) - t_start)) s; QEMU ran ${qemu_s} s of that (the rest: builds, waiting for the QEMU lock)"
} | tee -a "$results/summary.txt"
echo "$passed passed, $failed failed" | tee -a "$results/summary.txt"
rm -rf "$stage" "$results/.template" "$template" "$template.none"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
