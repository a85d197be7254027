#!/bin/bash
# Boot the guest kernel under QEMU (TCG) with one or two emulated NVDIMMs.
# The console is captured to a log file; a wall-clock timeout kills a hung guest.
#
# Usage: qemu/run-guest.sh --initrd FILE [--initrd FILE2 ...] --pmem FILE [options]
#   --kernel FILE        kernel image (default: cached vmlinuz of qemu/kernel-version.sh)
#   --initrd FILE        initramfs; repeat to concatenate several (cpio archives stack)
#   --pmem FILE          backing file of nvdimm 1 (created sparse if missing)
#   --pmem-size SIZE     its size when created (default 512M; an existing file keeps its size)
#   --pmem2 FILE         attach a second nvdimm (scratch device) backed by FILE
#   --pmem2-size SIZE    its size when created (default 512M)
#   --log FILE           console log (default: $NOVA_BUILD/console.log)
#   --timeout SEC        wall-clock limit, then QEMU is killed (default 1800)
#   --idle-timeout SEC   kill QEMU when the console has been silent this long (default: off)
#   --boot-timeout SEC   kill QEMU when the console is still empty after SEC seconds:
#                        the kernel hung before /init (whose first line is NOVA-INIT),
#                        and boot again (--boot-retries); default 120, 0 = off
#   --boot-retries N     boots after an early-boot hang before exit status 126
#                        (default 2); the pmem files are untouched before /init
#   --kill-at SEC        power cut: SIGKILL QEMU SEC seconds after start (fractions ok)
#   --kill-on REGEX      power cut: SIGKILL QEMU once the console matches REGEX (grep -E)
#   --kill-delay SEC     with --kill-on: wait SEC more before the kill (default 0)
#   --append ARGS        extra kernel command line arguments
#   --mem SIZE           guest RAM (default 2G)
#   --smp N              guest CPUs (default 2)
#   --stdio              also stream the console to stdout while it runs
#   --interactive        console on this terminal (stdin too; Ctrl-A x quits), still logged;
#                        no timeouts or kill options
# Exit status: 0 QEMU exited by itself (guest powered off / rebooted / panicked with -no-reboot),
#   124 killed after --timeout/--idle-timeout (hang), 125 killed by --kill-at/--kill-on,
#   126 every boot hung (no console output after --boot-timeout) or its kernel
#   died (Oops, panic) before /init started,
#   2 usage error, anything else: QEMU's own failure.
# Only one QEMU runs at a time: a lock in $NOVA_CACHE serializes concurrent calls.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

kernel="" initrds=() pmem="" pmem_size=512M pmem_size_set=0 pmem2="" pmem2_size=512M
log="" timeout=1800 idle_timeout=0 boot_timeout=120 boot_retries=2 kill_at="" kill_on="" kill_delay=0 append=""
mem=2G smp=2 stdio=0 interactive=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--initrd) initrds+=("$2"); shift ;;
	--pmem) pmem=$2; shift ;;
	--pmem-size) pmem_size=$2; pmem_size_set=1; shift ;;
	--pmem2) pmem2=$2; shift ;;
	--pmem2-size) pmem2_size=$2; shift ;;
	--log) log=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--idle-timeout) idle_timeout=$2; shift ;;
	--boot-timeout) boot_timeout=$2; shift ;;
	--boot-retries) boot_retries=$2; shift ;;
	--kill-at) kill_at=$2; shift ;;
	--kill-on) kill_on=$2; shift ;;
	--kill-delay) kill_delay=$2; shift ;;
	--append) append=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--stdio) stdio=1 ;;
	--interactive) interactive=1 ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
	shift
done
[ ${#initrds[@]} -gt 0 ] || { echo "$NOVA_PROG: --initrd is required" >&2; usage; }
[ -n "$pmem" ] || { echo "$NOVA_PROG: --pmem is required" >&2; usage; }

ensure_pkgs qemu-system-x86 coreutils util-linux
if [ -z "$kernel" ]; then
	kernel="$(kernel_cache_dir "$(guest_kver)")/vmlinuz"
	[ -f "$kernel" ] || die "no cached kernel at $kernel: run qemu/fetch-kernel.sh first"
fi
[ -f "$kernel" ] || die "kernel not found: $kernel"
kernel=$(pvh_kernel "$kernel")
for f in "${initrds[@]}"; do [ -f "$f" ] || die "initrd not found: $f"; done
[ -n "$log" ] || log="$NOVA_BUILD/console.log"
mkdir -p "$(dirname "$log")" "$NOVA_CACHE"

# Backing file: create sparse if missing; an existing file keeps its size (it holds data).
prepare_pmem() { # FILE SIZE EXPLICIT -> prints size in bytes
	local file=$1 want have
	want=$(size_to_bytes "$2")
	if [ -e "$file" ]; then
		have=$(stat -c %s "$file")
		if [ "$3" = 1 ] && [ "$have" != "$want" ]; then
			die "$file exists with size $have, not $2 ($want bytes)"
		fi
		echo "$have"
	else
		mkdir -p "$(dirname "$file")"
		truncate -s "$want" "$file"
		echo "$want"
	fi
}
p1_bytes=$(prepare_pmem "$pmem" "$pmem_size" "$pmem_size_set")
p2_bytes=0
[ -z "$pmem2" ] || p2_bytes=$(prepare_pmem "$pmem2" "$pmem2_size" 0)

# maxmem must cover RAM plus all nvdimms: at least 4G, rounded up to 1G.
mem_bytes=$(size_to_bytes "$mem")
need=$((mem_bytes + p1_bytes + p2_bytes))
maxmem_g=$(((need + (1 << 30) - 1) >> 30))
[ "$maxmem_g" -ge 4 ] || maxmem_g=4

# Several initrds: the kernel accepts concatenated cpio archives.  They go
# to the guest uncompressed: gunzip of the 20-25 MB archive takes about a
# second of a 5 s TCG boot, the host's about 0.2 s.  A compressed archive
# in the cache is unpacked there once (beside it, .cpio).
raw_initrd() { # FILE -> prints the uncompressed archive
	local f=$1 raw
	case $(head -c 2 "$f" | od -An -tx1 | tr -d ' ') in
	1f8b) ;;
	*) echo "$f"; return 0 ;;
	esac
	raw=${f%.gz}
	[ "$raw" != "$f" ] || raw=$f.cpio
	case $f in
	"$NOVA_CACHE"/*)
		if ! [ -s "$raw" ] || ! [ "$raw" -nt "$f" ]; then
			if ! gzip -dc "$f" >"$raw.tmp.$$"; then
				rm -f "$raw.tmp.$$"
				echo "$f"
				return 0
			fi
			mv -f "$raw.tmp.$$" "$raw"
			# unpacked archives whose compressed one the cache dropped
			for o in "$(dirname "$f")"/*.cpio; do
				[ ! -e "$o.gz" ] && [ -f "$o" ] && rm -f "$o"
			done
		fi
		echo "$raw" ;;
	*) echo "$f" ;;
	esac
}
initrd="$log.initrd"
for f in "${initrds[@]}"; do
	f=$(raw_initrd "$f")
	case $(head -c 2 "$f" | od -An -tx1 | tr -d ' ') in
	1f8b) gzip -dc "$f" ;;
	*) cat "$f" ;;
	esac
done >"$initrd" || die "cannot write $initrd"

cmdline="console=ttyS0,115200 panic=-1 quiet printk.devkmsg=on${append:+ $append}"
# shellcheck disable=SC2054 # commas are QEMU option syntax
args=(
	-accel tcg,thread=multi -cpu max -smp "$smp"
	-machine pc,nvdimm=on -m "$mem,slots=2,maxmem=${maxmem_g}G"
	-nodefaults -display none -nic none -no-reboot
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-object "memory-backend-file,id=mem1,share=on,mem-path=$pmem,size=$p1_bytes"
	-device nvdimm,id=nv1,memdev=mem1
)
if [ -n "$pmem2" ]; then
	# shellcheck disable=SC2054
	args+=(-object "memory-backend-file,id=mem2,share=on,mem-path=$pmem2,size=$p2_bytes"
		-device nvdimm,id=nv2,memdev=mem2)
fi

# One QEMU at a time (TCG timing is very sensitive to host load).
exec 9>"$NOVA_CACHE/qemu.lock"
if ! flock -n 9; then
	log "another QEMU run holds $NOVA_CACHE/qemu.lock; waiting"
	flock 9
fi

rm -f "$log"
if [ "$interactive" = 1 ]; then
	log "interactive console (Ctrl-A x quits QEMU); log: $log"
	rc=0
	qemu-system-x86_64 "${args[@]}" \
		-chardev "stdio,id=con,mux=on,signal=off,logfile=$log" \
		-serial chardev:con -mon chardev=con,mode=readline || rc=$?
	rm -f "$initrd"
	exit "$rc"
fi

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
sec_to_ms() { awk -v s="$1" 'BEGIN { printf "%d\n", s * 1000 }'; }

# cleanup() kills the QEMU of the current boot
qpid="" tailpid=""
# shellcheck disable=SC2317 # called via trap
cleanup() {
	[ -z "$qpid" ] || kill -KILL "$qpid" 2>/dev/null || true
	[ -z "$tailpid" ] || kill "$tailpid" 2>/dev/null || true
	rm -f "$initrd"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# boot_once: one QEMU run, watched; sets rc, reason and el
boot_once() {
	: >"$log"
	qemu-system-x86_64 "${args[@]}" -chardev "file,id=con,path=$log" -serial chardev:con \
		-monitor none </dev/null &
	qpid=$!
	if [ "$stdio" = 1 ]; then
		tail -n +1 -f --pid="$qpid" "$log" &
		tailpid=$!
	fi

	start=$(now_ms)
	timeout_ms=$(sec_to_ms "$timeout")
	idle_ms=$(sec_to_ms "$idle_timeout")
	boot_ms=$(sec_to_ms "$boot_timeout")
	kill_at_ms=""
	[ -z "$kill_at" ] || kill_at_ms=$(sec_to_ms "$kill_at")
	kill_delay_ms=$(sec_to_ms "$kill_delay")
	matched_ms="" last_size=0 last_change=$start reason="" rc=0

	while kill -0 "$qpid" 2>/dev/null; do
		sleep 0.1
		t=$(now_ms)
		el=$((t - start))
		size=$(stat -c %s "$log" 2>/dev/null || echo 0)
		if [ "$size" != "$last_size" ]; then
			last_size=$size last_change=$t
		fi
		if [ "$boot_ms" -gt 0 ] && [ "$size" = 0 ] && [ "$el" -ge "$boot_ms" ]; then
			reason="boot timeout: no console output after ${boot_timeout}s (early-boot hang)"; rc=126
		elif [ "$el" -ge "$timeout_ms" ]; then
			reason="timeout: guest still running after ${timeout}s (hang?)"; rc=124
		elif [ "$idle_ms" -gt 0 ] && [ $((t - last_change)) -ge "$idle_ms" ]; then
			reason="idle timeout: no console output for ${idle_timeout}s (hang?)"; rc=124
		elif [ -n "$kill_at_ms" ] && [ "$el" -ge "$kill_at_ms" ]; then
			reason="power cut (--kill-at $kill_at) at $((el / 1000)).$((el % 1000 / 100))s"; rc=125
		elif [ -n "$kill_on" ]; then
			if [ -z "$matched_ms" ] && grep -qE -- "$kill_on" "$log"; then
				matched_ms=$t
			fi
			if [ -n "$matched_ms" ] && [ $((t - matched_ms)) -ge "$kill_delay_ms" ]; then
				reason="power cut (--kill-on '$kill_on') at $((el / 1000)).$((el % 1000 / 100))s"; rc=125
			fi
		fi
		if [ -n "$reason" ]; then
			kill -KILL "$qpid" 2>/dev/null || true
			break
		fi
	done
	qrc=0
	{ wait "$qpid"; } 2>/dev/null || qrc=$? # no "Killed" job notice
	qpid=""
	[ -z "$tailpid" ] || wait "$tailpid" 2>/dev/null || true
	tailpid=""
	el=$(($(now_ms) - start))
	if [ -n "$reason" ]; then
		log "killed QEMU: $reason"
	else
		rc=$qrc
		[ "$rc" = 0 ] || log "QEMU failed with exit status $rc (see $log)"
	fi
	log "QEMU ran $((el / 1000)).$((el % 1000 / 100))s; console log: $log"
	# The kernel died before /init printed NOVA-INIT (seen under TCG with
	# 7.2: an int3 Oops while the kernel patches its own code during boot):
	# no NOVA code has run, the pmem files are untouched. Same as a hang.
	if [ "$rc" != 126 ] && [ "$rc" != 125 ] && ! grep -q NOVA-INIT "$log" &&
		grep -qE 'Kernel panic|Oops|BUG:' "$log"; then
		log "the kernel died before /init: $(grep -m1 -E 'Kernel panic|Oops|BUG:' "$log")"
		rc=126
	fi
}

# Under TCG a boot hangs or dies now and then before /init (no NOVA code has
# run then, and the pmem files are untouched): boot again
for try in $(seq 0 "$boot_retries"); do
	boot_once
	[ "$rc" = 126 ] || break
	if [ "$try" -lt "$boot_retries" ]; then
		log "early-boot hang or crash (boot $((try + 1))): booting again"
	fi
done
exit "$rc"
