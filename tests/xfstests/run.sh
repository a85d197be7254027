#!/bin/bash
# Run xfstests (fstests) against NOVA, or ext4-DAX / XFS-DAX as baselines, in
# a Debian guest with two fsdax NVDIMMs (make xfstests).
#
# Usage: tests/xfstests/run.sh [options] [-- SELECTION...]
#   --fstyp T        NOVA (default), ext4 (-o dax) or xfs (-o dax=always)
#   SELECTION        xfstests' -g GROUP[,GROUP], -x GROUP[,GROUP] and test
#                    names (generic/001); default -g generic/quick. A bare
#                    group (quick) means generic plus FSTYP's own directory.
#   --release R      the guest's Debian release: bookworm (default, 6.1) or
#                    trixie (6.12)
#   --shard I/N      run only the I-th of N equal slices (1-based; every N-th
#                    test from the I-th on, so slices take similar time)
#   --budget MIN     wall-clock budget of this invocation: no guest starts
#                    after it, the running one stops at it (TERM to ./check;
#                    the interrupted test runs again on resume)
#   --resume DIR     continue an interrupted run (DIR, or "latest"): the same
#                    tests, file system and release; only tests without a
#                    result run
#   --per-boot N     at most N tests per guest boot (default: all that are
#                    left); between boots other QEMU users get their turn
#   --stop-file F    no guest starts while file F exists: the run ends after
#                    the boot in progress, to be resumed (a way to give the
#                    machine back without losing that boot's results)
#   --test-timeout SEC
#                    a test that runs longer than SEC s is killed in the guest
#                    (its processes; ./check goes on with the next test) and
#                    counted as failed, "timed out" (default 0: no limit; some
#                    auto tests fork hundreds of thousands of processes, hours
#                    under TCG)
#   --stall SEC      a guest whose console has not grown for SEC s is killed
#                    and its running test counted as hung (default 1800)
#   --size SIZE      each NVDIMM (sparse file; default 8G: generic/620 wants a
#                    scratch device of 4 GiB, and an fsdax namespace is a little
#                    smaller than its NVDIMM)
#   --expected FILE  compare with FILE (default tests/xfstests/expected/FSTYP
#                    when it exists; "none": no comparison)
#   -v, --stdio      stream the guest console
# Output: build/xfstests/<stamp>-<fstyp>/ (build/xfstests/latest):
#   run.conf, tests.list, status.tsv (test, status, seconds, boot, reason),
#   summary.md, boot-N/ (console.log, results/ = xfstests' RESULT_BASE with
#   each failure's .out.bad, .full and .dmesg, dmesg.txt, kernel-log.txt).
# Last lines: the summary, then "N passed, N failed" where failed counts the
# results that differ from the expected file plus every guest failure
# (setup, kernel oops/WARN/lockup in the log); exit status 0 only when that
# is 0 and every test has a result.
# A guest boots as often as needed: after a hung or crashed test the next
# boot goes on with the test after it. One QEMU at a time
# ($NOVA_CACHE/qemu.lock, held for each boot).
set -uo pipefail
NOVA_PROG=xfstests
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"
# shellcheck source=../package/cloud-lib.sh
. "$NOVA_ROOT/tests/package/cloud-lib.sh"
here=$NOVA_ROOT/tests/xfstests

usage() { sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
fstyp=${FSTYP:-NOVA} release=bookworm shard="" budget="" resume="" stall=1800
size=8G expected="" selection=() per_boot=0 stop_file="" test_timeout=0
while [ $# -gt 0 ]; do
	case $1 in
	--fstyp) fstyp=$2; shift ;;
	--release) release=$2; shift ;;
	--shard) shard=$2; shift ;;
	--budget) budget=$2; shift ;;
	--resume) resume=$2; shift ;;
	--stall) stall=$2; shift ;;
	--test-timeout) test_timeout=$2; shift ;;
	--per-boot) per_boot=$2; shift ;;
	--stop-file) stop_file=$2; shift ;;
	--size) size=$2; shift ;;
	--expected) expected=$2; shift ;;
	-v | --stdio) export NOVA_STDIO=1 ;;
	-h | --help) usage ;;
	--) shift; selection=("$@"); break ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
case $test_timeout in
'' | *[!0-9]*) echo "$NOVA_PROG: --test-timeout takes a number of seconds" >&2; exit 2 ;;
esac
t_start=$SECONDS
# abort MSG: no (further) results; the run can be resumed
abort() {
	echo "FAIL $*"
	echo "0 passed, 1 failed"
	exit 1
}

# --- the run directory: new, or the one to resume --------------------------------
if [ -n "$resume" ]; then
	[ "$resume" != latest ] || resume=$NOVA_BUILD/xfstests/latest
	res=$(cd "$resume" 2>/dev/null && pwd -P) || abort "no run directory $resume"
	[ -f "$res/run.conf" ] || abort "$res is not an xfstests run (no run.conf)"
	# shellcheck source=/dev/null
	. "$res/run.conf"
	log "resuming $res ($fstyp, $release, $(wc -l <"$res/status.tsv") of $(wc -l <"$res/tests.list") tests done)"
else
	case $fstyp in
	NOVA | ext4 | xfs) ;;
	*) abort "unknown --fstyp $fstyp (NOVA, ext4 or xfs)" ;;
	esac
	case $release in
	bookworm | trixie) ;;
	*) abort "unknown --release $release (bookworm or trixie)" ;;
	esac
	[ ${#selection[@]} -gt 0 ] || selection=(-g generic/quick)
	stamp=$(date +%Y%m%d-%H%M%S)
	res=$NOVA_BUILD/xfstests/$stamp-$fstyp
	mkdir -p "$res"
	ln -sfn "$stamp-$fstyp" "$NOVA_BUILD/xfstests/latest"
	: >"$res/status.tsv"
fi
case $fstyp in
NOVA) kname=$([ "$release" = bookworm ] && echo deb12 || echo deb13) ;;
*) kname="" ;;
esac
[ -n "$expected" ] || expected=$here/expected/$fstyp
[ "$expected" != none ] && [ -f "$expected" ] || expected=""

ensure_pkgs qemu-system-x86 qemu-utils cloud-image-utils e2fsprogs dpkg-dev python3

# --- what the guest needs: xfstests, image, module and tools ---------------------------
t0=$SECONDS
tree=$("$here/build.sh" --release "$release" 2>"$res/build-xfstests.log") ||
	{ tail -n 20 "$res/build-xfstests.log"; abort "tests/xfstests/build.sh (see $res/build-xfstests.log)"; }
img=$("$NOVA_ROOT/packaging/mkimage.sh" --release "$release" --profile xfstests 2>"$res/mkimage.log") ||
	{ tail -n 20 "$res/mkimage.log"; abort "packaging/mkimage.sh (see $res/mkimage.log)"; }
kver=$(cat "$img/kver")
if [ "$fstyp" = NOVA ]; then
	# The guest kernel's headers (installed on the host for 6.1, else a
	# chroot): a fresh machine has none.
	{ mkver=$("$NOVA_QEMU_DIR/kernel-version.sh" "$kname") &&
		"$NOVA_QEMU_DIR/fetch-kernel.sh" "$mkver" >/dev/null; } 2>"$res/fetch-kernel.log" ||
		{ tail -n 20 "$res/fetch-kernel.log"; abort "qemu/fetch-kernel.sh (see $res/fetch-kernel.log)"; }
	ko=$("$NOVA_QEMU_DIR/build-module.sh" --kver "$kname" 2>"$res/build-module.log") ||
		{ tail -n 20 "$res/build-module.log"; abort "qemu/build-module.sh (see $res/build-module.log)"; }
	# The run's own copy: later module builds must not change a resumed run.
	[ -f "$res/nova.ko" ] || cp "$ko" "$res/nova.ko"
	ko=$res/nova.ko
	make -s -C "$NOVA_ROOT/src/tools" static STATIC_OUT="$res/tools" >"$res/build-tools.log" 2>&1 ||
		{ tail -n 20 "$res/build-tools.log"; abort "static tools (see $res/build-tools.log)"; }
	rm -f "$res/tools/mkfs.NOVA" "$res/tools/fsck.NOVA"
fi
t_build=$((SECONDS - t0))

if [ -z "$resume" ]; then
	"$here/results.py" list "$tree" "$fstyp" "${selection[@]}" >"$res/tests.all" ||
		abort "test selection ${selection[*]}"
	if [ -n "$shard" ]; then
		if ! [[ $shard =~ ^([0-9]+)/([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 1 ] ||
			[ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
			abort "bad --shard $shard (I/N)"
		fi
		awk -v i="${BASH_REMATCH[1]}" -v n="${BASH_REMATCH[2]}" 'NR % n == i % n' \
			"$res/tests.all" >"$res/tests.list"
	else
		cp "$res/tests.all" "$res/tests.list"
	fi
	[ -s "$res/tests.list" ] || abort "the selection names no test"
	cat >"$res/run.conf" <<EOF
fstyp=$fstyp
release=$release
kver=$kver
selection='${selection[*]}${shard:+ (shard $shard)}'
commit=$(git -C "$NOVA_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
stamp=$stamp
EOF
fi

# --- disks kept for the whole run: root overlay and the two NVDIMMs ----------------
run=$res/run
mkdir -p "$run"
[ -f "$run/root.qcow2" ] || qemu-img create -q -f qcow2 -b "$img/base.qcow2" -F qcow2 "$run/root.qcow2" ||
	abort "qemu-img create overlay"
bytes=$(size_to_bytes "$size")
for p in pmem0 pmem1; do
	[ -f "$run/$p.img" ] || truncate -s "$bytes" "$run/$p.img"
done
# QEMU: 2 GiB of RAM plus room for both NVDIMMs.
export CLOUD_MEM="2G,slots=4,maxmem=$((2 + 2 * ((bytes + (1 << 30) - 1) >> 30)))G"
export CLOUD_STALL=$stall
trap cloud_cleanup EXIT
trap 'exit 130' INT TERM

# --- boots -----------------------------------------------------------------------------
failed_guest=0
boots=$(find "$res" -maxdepth 1 -name 'boot-*' | wc -l)
while :; do
	grep -vxF -f <(cut -f1 "$res/status.tsv") "$res/tests.list" >"$run/remaining" || true
	left=$(wc -l <"$run/remaining")
	[ "$left" -gt 0 ] || break
	deadline=86400
	if [ -n "$budget" ]; then
		deadline=$((budget * 60 - (SECONDS - t_start)))
		if [ "$deadline" -lt 300 ]; then
			log "budget of $budget min used up; $left tests left (resume with --resume $res)"
			break
		fi
	fi
	if [ -n "$stop_file" ] && [ -e "$stop_file" ]; then
		log "$stop_file exists; $left tests left (resume with --resume $res)"
		break
	fi
	boots=$((boots + 1))
	b=$res/boot-$boots
	mkdir -p "$b"
	repo=$run/repo
	rm -rf "$repo"
	mkdir -p "$repo"
	cp -al "$tree" "$repo/xfstests"
	cp "$here/guest.sh" "$repo/"
	if [ "$per_boot" -gt 0 ]; then
		head -n "$per_boot" "$run/remaining" >"$repo/tests.list"
	else
		cp "$run/remaining" "$repo/tests.list"
	fi
	if [ "$fstyp" = NOVA ]; then
		cp "$ko" "$repo/nova.ko"
		cp -r "$res/tools" "$repo/tools"
	fi
	first=$([ "$boots" = 1 ] && echo 1 || echo 0)
	printf 'fstyp=%s\nboot=%s\ndeadline=%s\nfirst=%s\ntest_timeout=%s\n' "$fstyp" "$boots" \
		"$deadline" "$first" "$test_timeout" >"$repo/run.conf"
	cloud_repo_disk "$repo" "$run/repo.img" || abort "the repository disk"
	rm -f "$run/results.img"
	mkfs.ext4 -q -F -L NOVARES "$run/results.img" 2G >/dev/null 2>&1 || abort "the results disk"
	cloud_seed "$run/seed.img" "nova-xfstests-$boots-$$" NOVA-XFS \
		"/bin/bash /mnt/novarepo/guest.sh /mnt/novarepo" || abort "cloud-localds"
	cloud_qemu_args "$run/root.qcow2" "$run/seed.img" "$run/repo.img" "$run/pmem0.img"
	# shellcheck disable=SC2054 # commas are QEMU option syntax
	cloud_disks+=(
		-object "memory-backend-file,id=mem2,share=on,mem-path=$run/pmem1.img,size=$bytes"
		-device nvdimm,id=nv2,memdev=mem2
		-drive "file=$run/results.img,if=virtio,format=raw"
	)
	log "boot $boots: $(wc -l <"$repo/tests.list") of $left tests ($fstyp, $kver); console: $b/console.log"
	cloud_boot "$b/console.log" $((deadline + 900)) "$img/vmlinuz" "$img/initrd.img" "${cloud_disks[@]}"
	cloud_console "$b/console.log" "$b/console.txt"
	# The results disk: xfstests' files and the kernel log.
	debugfs -R "rdump /results/boot-$boots $b" "$run/results.img" >/dev/null 2>&1 &&
		mv "$b/boot-$boots" "$b/results"
	debugfs -R "dump /dmesg-boot-$boots.txt $b/dmesg.txt" "$run/results.img" >/dev/null 2>&1
	before=$(wc -l <"$res/status.tsv")
	"$here/results.py" parse "$b/console.txt" "$repo/tests.list" "$boots" "$cloud_stalled" >>"$res/status.tsv"
	got=$(($(wc -l <"$res/status.tsv") - before))
	setup=$(grep -o 'NOVA-XFS: FAIL .*' "$b/console.txt" | head -n 1)
	if [ -n "$setup" ]; then
		echo "FAIL boot $boots: guest set-up: ${setup#NOVA-XFS: FAIL }"
		failed_guest=$((failed_guest + 1))
		break
	fi
	# The kernel log: the file on the results disk, else the console.
	[ -s "$b/dmesg.txt" ] || grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$b/console.txt" >"$b/dmesg.txt"
	{
		echo "NOVA-XFS: DMESG-BEGIN"
		cat "$b/dmesg.txt"
		echo "NOVA-XFS: DMESG-END"
		grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$b/console.txt"
	} >"$b/kernel-in.txt"
	if ! cloud_kernel_log "$b/kernel-in.txt" NOVA-XFS "$b/kernel-log.txt" "boot-$boots-kernel-log"; then
		failed_guest=$((failed_guest + 1))
	fi
	rm -f "$b/kernel-in.txt"
	log "boot $boots: $got results in ${cloud_secs} s (stalled=$cloud_stalled, timed out=$cloud_timed_out, QEMU status $cloud_qrc)"
	if [ "$got" -eq 0 ]; then
		echo "FAIL boot $boots: no test result (see $b/console.txt)"
		failed_guest=$((failed_guest + 1))
		break
	fi
done
rm -rf "$run/repo" "$run/repo.img" "$run/seed.img"

# --- summary -------------------------------------------------------------------------------
"$here/results.py" summary "$res" ${expected:+"$expected"}
left=$(grep -cvxF -f <(cut -f1 "$res/status.tsv") "$res/tests.list")
total=$(wc -l <"$res/status.tsv")
[ "$left" -eq 0 ] && rm -rf "$run"
echo "results: $res (summary.md); build ${t_build}s, total $((SECONDS - t_start))s"
[ "$left" -eq 0 ] || echo "INCOMPLETE: $left tests without a result; resume: tests/xfstests/run.sh --resume $res"
# With an expected-results file a test counts as passed when its result is the
# expected one; without one (the baselines) when xfstests passed it.
if [ -n "$expected" ]; then
	differ=$(grep -c '^- .*: expected [a-z]*, got ' "$res/summary.md")
	passed=$((total - differ))
else
	differ=0
	passed=$(awk -F'\t' '$2 == "pass"' "$res/status.tsv" | wc -l)
	echo "no expected-results file for $fstyp: failures and skips are not judged"
fi
failed=$((differ + failed_guest))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$left" -eq 0 ]
