#!/bin/sh
# shellcheck shell=sh
# Guest side of `make bench` (busybox sh, started by qemu/guest/init as the
# one "test" of the boot). For each file system in $BENCH_FS: format the one
# pmem device (tmpfs: RAM), run every fio job of /nova/tests/jobs and metabench,
# unmount, and print the results as a base64 tar.gz between
#   BENCH-BLOB-BEGIN <fs> ... BENCH-BLOB-END <fs>
# on the console (the host unpacks them into bench/results/<date>/raw/<fs>/).
# Settings come from /nova/tests/bench.conf (written by bench/run-bench.sh);
# `make bench-scale` (run-bench.sh --scale) sets the run lists below to its rows.
# shellcheck disable=SC1091
. /nova/tests/bench.conf
# fio jobs run at each numjobs of $THREADS; "job:numjobs" runs run once
: "${FIO_SCALED=append-fsync randwrite seqwrite}"
: "${FIO_FIXED=seqread:1 randread:1 fileserver:2 varmail:2 webproxy:2 webserver:2}"
# metabench processes (-t) per layout of $META_DIRS
: "${META_THREADS=1}"
# "FS:RUN" patterns (shell globs) of runs to leave out
: "${SKIP=}"

JOBS=/nova/tests/jobs
RES=/tmp/bench-res
D=/mnt/bench
mkdir -p "$RES" "$D"
modprobe ext4 2>/dev/null
modprobe xfs 2>/dev/null
# perf annotate looks for a module's object under /lib/modules
if [ -n "$PROFILE" ] && [ -f /nova/nova.ko ]; then
	mkdir -p "/lib/modules/$(uname -r)/extra" &&
		cp /nova/nova.ko "/lib/modules/$(uname -r)/extra/nova.ko"
fi
uptime_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "BENCH: $*"; }
nova_proc=/proc/fs/NOVA/${PMEM#/dev/}

fs_setup() { # FS
	case $1 in
	nova) mount -t NOVA -o init "$PMEM" "$D" ;;
	nova-inplace) mount -t NOVA -o init,inplace_data_updates=1 "$PMEM" "$D" ;;
	ext4-dax) mkfs.ext4 -F -q -b 4096 "$PMEM" && mount -t ext4 -o dax "$PMEM" "$D" ;;
	xfs-dax) mkfs.xfs -f -q "$PMEM" && mount -t xfs -o dax=always "$PMEM" "$D" ;;
	tmpfs) mount -t tmpfs -o "size=$TMPFS_SIZE" tmpfs "$D" ;;
	*) echo "unknown file system $1"; return 1 ;;
	esac
}

# Which runs: "job:numjobs" pairs. The mixes set numjobs=2 in their job files.
runs=""
for j in $FIO_SCALED; do
	for n in $THREADS; do runs="$runs $j:$n"; done
done
[ -z "$FIO_FIXED" ] || runs="$runs $FIO_FIXED"

want_run() { # FS NAME: in $ONLY (or $ONLY empty) and not in $SKIP?
	set -f
	for _s in $SKIP; do
		# shellcheck disable=SC2254 # $_s is a pattern
		case "$1:$2" in $_s) set +f; return 1 ;; esac
	done
	set +f
	[ -z "$ONLY" ] && return 0
	case " $ONLY " in *" $2 "*) return 0 ;; esac
	return 1
}

profile_on() { # FS NAME
	[ -n "$PROFILE" ] || return 1
	case " $PROFILE " in *" $1:$2 "* | *" all "*) return 0 ;; esac
	return 1
}

# Start of one fs's results: what ran, where
fs_info() { # FS OUT
	{
		echo "fs=$1"
		echo "kernel=$(uname -r)"
		echo "cpus=$(nproc)"
		echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
		echo "cmdline=$(cat /proc/cmdline)"
		grep " $D " /proc/mounts
		df -k "$D" | tail -n 1
		echo "settings: RUNTIME=$RUNTIME APPEND_SIZE=$APPEND_SIZE FILE_SIZE=$FILE_SIZE SEQ_SIZE=$SEQ_SIZE THREADS='$THREADS' META_N=$META_N META_DIRS='$META_DIRS' META_THREADS='$META_THREADS'"
		echo "runs:$runs; SKIP='$SKIP'"
	} >"$2"
}

run_fio() { # FS JOB NUMJOBS
	_fs=$1 _job=$2 _nj=$3
	_name=$_job-j$_nj
	want_run "$_fs" "$_name" || return 0
	_out=$RES/$_fs/$_name.json
	rm -rf "${D:?}"/* 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
	_t0=$(uptime_s)
	case $_fs in nova*)
		if [ "$TIMING" = 1 ]; then
			echo 1 >/sys/module/nova/parameters/measure_timing
			echo 1 >"$nova_proc/timing_stats"
		fi
		echo 1 >"$nova_proc/IO_stats"
		cat "$nova_proc/allocator" >"$RES/$_fs/$_name.nova-alloc.txt" 2>/dev/null
		cat "$nova_proc/gc" >"$RES/$_fs/$_name.nova-gc.txt" 2>/dev/null
		;;
	esac
	_pre=""
	if profile_on "$_fs" "$_name"; then
		_pre="perf record -a -g -F 499 -o /tmp/perf.data --"
	fi
	# shellcheck disable=SC2086 # $_pre is a command prefix
	DIR=$D RUNTIME=$RUNTIME NUMJOBS=$_nj APPEND_SIZE=$APPEND_SIZE FILE_SIZE=$FILE_SIZE \
		SEQ_SIZE=$SEQ_SIZE $_pre fio --output-format=json --output="$_out" \
		"$JOBS/$_job.fio" >"$RES/$_fs/$_name.log" 2>&1
	_rc=$?
	_t1=$(uptime_s)
	case $_fs in nova*)
		cat "$nova_proc/IO_stats" >"$RES/$_fs/$_name.nova-io.txt" 2>/dev/null
		# the GC counters add up over the boot: before and after
		{ echo "----- after the run"; cat "$nova_proc/gc"; } \
			>>"$RES/$_fs/$_name.nova-gc.txt" 2>/dev/null
		{ echo "----- after the run"; cat "$nova_proc/allocator"; } \
			>>"$RES/$_fs/$_name.nova-alloc.txt" 2>/dev/null
		if [ "$TIMING" = 1 ]; then
			cat "$nova_proc/timing_stats" >"$RES/$_fs/$_name.nova-timing.txt"
			echo 0 >/sys/module/nova/parameters/measure_timing
		fi
		;;
	esac
	if [ -n "$_pre" ] && [ -f /tmp/perf.data ]; then
		perf report -i /tmp/perf.data --stdio --no-children --sort sym \
			--percent-limit 0.5 >"$RES/$_fs/$_name.perf.txt" 2>/dev/null
		perf report -i /tmp/perf.data --stdio --no-children --sort sym -g caller,0.5,callee \
			--percent-limit 2 >"$RES/$_fs/$_name.perf-graph.txt" 2>/dev/null
		# every function's own share, down to 0.05%: to compare two runs
		perf report -i /tmp/perf.data --stdio --no-children --sort sym -g none \
			--percent-limit 0.05 >"$RES/$_fs/$_name.perf-flat.txt" 2>/dev/null
		# inclusive time: what each function and its callees took
		perf report -i /tmp/perf.data --stdio --children --sort sym -g none \
			--percent-limit 0.5 >"$RES/$_fs/$_name.perf-children.txt" 2>/dev/null
		# where inside the busiest module functions (nova.ko, see above)
		for _sym in $(awk '$2 == "[k]" && $3 ~ /^(nova|xfs|ext4|dax|iomap)_/ { print $3 }' \
				"$RES/$_fs/$_name.perf.txt" | head -n 8); do
			perf annotate -i /tmp/perf.data --stdio "$_sym" 2>&1
		done >"$RES/$_fs/$_name.perf-annotate.txt"
		rm -f /tmp/perf.data
	fi
	say "$_fs $_name rc=$_rc $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.1f", b - a }')s"
	[ "$_rc" = 0 ] || tail -n 5 "$RES/$_fs/$_name.log"
}

run_meta() { # FS
	for nd in $META_DIRS; do
		for nt in $META_THREADS; do
			_name=metabench-d$nd
			[ "$nt" = 1 ] || _name=$_name-t$nt
			meta_one "$1" "$nd" "$nt" "$_name"
		done
	done
}

meta_one() { # FS NDIRS NTHREADS NAME
	want_run "$1" "$4" || return 0
	rm -rf "${D:?}"/* 2>/dev/null
	mkdir -p "$D/meta"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	case $1 in nova*)
		if [ "$TIMING" = 1 ]; then
			echo 1 >/sys/module/nova/parameters/measure_timing
			echo 1 >"$nova_proc/timing_stats"
		fi
		;;
	esac
	_t0=$(uptime_s)
	if profile_on "$1" "$4"; then
		perf record -a -g -F 499 -o /tmp/perf.data -- \
			metabench -q -n "$META_N" -d "$2" -t "$3" "$D/meta" >"$RES/$1/$4.txt" 2>&1
		_rc=$?
		perf report -i /tmp/perf.data --stdio --no-children --sort sym \
			--percent-limit 0.5 >"$RES/$1/$4.perf.txt" 2>/dev/null
		rm -f /tmp/perf.data
	else
		metabench -q -n "$META_N" -d "$2" -t "$3" "$D/meta" >"$RES/$1/$4.txt" 2>&1
		_rc=$?
	fi
	_t1=$(uptime_s)
	case $1 in nova*)
		if [ "$TIMING" = 1 ]; then
			cat "$nova_proc/timing_stats" >"$RES/$1/$4.nova-timing.txt"
			echo 0 >/sys/module/nova/parameters/measure_timing
		fi
		;;
	esac
	say "$1 $4 rc=$_rc $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.1f", b - a }')s"
	cat "$RES/$1/$4.txt"
}

emit_blob() { # FS
	# No kernel messages in the middle of the base64 text.
	dmesg -n 1
	echo "BENCH-BLOB-BEGIN $1"
	tar czf - -C "$RES" "$1" | base64
	echo "BENCH-BLOB-END $1"
	dmesg -n 4
}

say "start $(uptime_s) fs='$BENCH_FS' runtime=${RUNTIME}s threads='$THREADS' meta_n=$META_N"
# Touch every page of the device once, so that no file system pays QEMU's and
# the host's first-touch cost of the backing file during its runs.
t0=$(uptime_s)
dd if=/dev/zero of="$PMEM" bs=1M 2>/dev/null
sync
blockdev --flushbufs "$PMEM"
echo 3 >/proc/sys/vm/drop_caches
say "pmem prefill $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')s"
rc=0
for fs in $BENCH_FS; do
	mkdir -p "$RES/$fs"
	t0=$(uptime_s)
	if ! fs_setup "$fs" >"$RES/$fs/setup.log" 2>&1; then
		say "$fs: setup failed"
		cat "$RES/$fs/setup.log"
		rc=1
		emit_blob "$fs"
		continue
	fi
	fs_info "$fs" "$RES/$fs/info.txt"
	cat "$RES/$fs/info.txt"
	for r in $runs; do
		run_fio "$fs" "${r%%:*}" "${r#*:}"
	done
	run_meta "$fs"
	rm -rf "${D:?}"/* 2>/dev/null
	umount "$D" || { say "$fs: umount failed"; rc=1; }
	t1=$(uptime_s)
	say "fs-done $fs $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')s"
	emit_blob "$fs"
	rm -rf "${RES:?}/$fs"
done
say "end $(uptime_s)"
exit $rc
