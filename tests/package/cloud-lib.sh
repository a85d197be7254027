# shellcheck shell=bash disable=SC2034 # cloud_* globals are the callers' results
# Host-side helpers of the cloud-image package tiers (tests/package/full-check.sh,
# tests/package/kernel-upgrade.sh). Source after qemu/common.sh; do not run it.
#
#   cloud_repo_disk DIR IMG      DIR (the .debs, the guest script, run.conf) as a
#                                "file:" apt repository on an ext4 disk labelled
#                                NOVAREPO
#   cloud_seed IMG ID TAG CMD    NoCloud seed (instance-id ID): cloud-init runs
#                                CMD (guest path, e.g. "/bin/bash
#                                /mnt/novarepo/guest-test.sh /mnt/novarepo")
#                                with the repository disk mounted and its output
#                                on the serial console; TAG is the console prefix
#                                (NOVA-FULL) of the failure lines should the disk
#                                not mount
#   cloud_lock, cloud_unlock     take (waiting for it) and release $NOVA_CACHE/qemu.lock,
#                                e.g. across several boots; sets cloud_wait (seconds
#                                waited)
#   cloud_boot LOG TIMEOUT KERNEL INITRD ARGS...
#                                one QEMU run of the guest under $NOVA_CACHE/qemu.lock
#                                (taken for this boot unless the caller holds it
#                                already, see cloud_lock): console into LOG,
#                                killed after TIMEOUT s; ARGS are the disks (see
#                                cloud_qemu_args). Sets cloud_qrc (QEMU's exit
#                                status), cloud_timed_out (0|1), cloud_secs (the
#                                boot) and cloud_wait (waiting for the lock, 0 when
#                                the caller holds it).
#                                NOVA_STDIO=1 streams the console.
#                                CLOUD_MEM: QEMU's -m (default 2G,slots=2,maxmem=4G;
#                                maxmem must cover the NVDIMMs). CLOUD_STALL=SEC:
#                                also kill the guest when the console has not
#                                grown for SEC s; sets cloud_stalled (0|1).
#   cloud_console LOG OUT        LOG without CRs and terminal escapes, into OUT
#   cloud_kernel_log CLEAN TAG OUT NAME
#                                judge the kernel log and journal that the guest
#                                dumped (TAG: DMESG-BEGIN ... JOURNAL-END) plus
#                                any kernel line on the console (into OUT):
#                                prints PASS or FAIL NAME, returns 1 on FAIL
# The patterns are those of tests/run-guest-tests.sh; NOVA_LOG_IGNORE adds an
# extended regex of lines to ignore.
#   cloud_option ARGS...         one option that every cloud tier takes (--no-build,
#                                --timeout SEC, -v/--stdio, --keep, -h/--help): sets
#                                build, timeout, keep or NOVA_STDIO, and
#                                cloud_shift to the words it used; calls the
#                                caller's usage on anything else
#   cloud_debs RES BUILD         the nova-dkms and nova-tools .debs of this version
#                                (built by packaging/build-deb.sh first when BUILD
#                                is 1, log in RES): sets version, debs, t_debs
#   cloud_image RES RELEASE      the cached guest image of RELEASE
#                                (packaging/mkimage.sh, log in RES): sets img,
#                                kver, t_image
# The last two call the caller's abort MSG when a step fails.

# Drive options of the usual disks: ROOT (qcow2 overlay, /dev/vda), SEED
# (/dev/vdb), REPO (/dev/vdc), PMEM (the NVDIMM's backing file, 512 MiB).
#   cloud_qemu_args ROOT SEED REPO PMEM   -> array cloud_disks
cloud_qemu_args() {
	local root=$1 seed=$2 repo=$3 pmem=$4
	# shellcheck disable=SC2054 # commas are QEMU option syntax
	cloud_disks=(
		-drive "file=$root,if=virtio,format=qcow2,cache=unsafe"
		-drive "file=$seed,if=virtio,format=raw,readonly=on"
		-drive "file=$repo,if=virtio,format=raw,readonly=on"
		-object "memory-backend-file,id=mem1,share=on,mem-path=$pmem,size=$(stat -c %s "$pmem")"
		-device nvdimm,id=nv1,memdev=mem1
	)
}

cloud_option() {
	cloud_shift=1
	case $1 in
	--no-build) build=0 ;;
	--timeout) [ $# -ge 2 ] || usage; timeout=$2; cloud_shift=2 ;;
	-v | --stdio) export NOVA_STDIO=1 ;;
	--keep) keep=1 ;;
	-h | --help) usage ;;
	*) echo "$NOVA_PROG: unknown option: $1" >&2; usage ;;
	esac
}

cloud_debs() {
	local res=$1 t0=$SECONDS
	if [ "$2" = 1 ]; then
		"$NOVA_ROOT/packaging/build-deb.sh" >"$res/build-deb.log" 2>&1 ||
			{ tail -n 20 "$res/build-deb.log"; abort "packaging/build-deb.sh (see $res/build-deb.log)"; }
	fi
	version=$(nova_version)
	mapfile -t debs < <(find "$NOVA_BUILD/deb" -maxdepth 1 -name "nova-*_${version}_*.deb" ! -name '*-dbgsym_*')
	[ ${#debs[@]} -eq 2 ] || abort "expected nova-dkms and nova-tools $version in $NOVA_BUILD/deb, found: ${debs[*]:-none}"
	t_debs=$((SECONDS - t0))
}

cloud_image() {
	local res=$1 t0=$SECONDS
	img=$("$NOVA_ROOT/packaging/mkimage.sh" --release "$2" 2>"$res/mkimage.log") ||
		{ tail -n 20 "$res/mkimage.log"; abort "packaging/mkimage.sh (see $res/mkimage.log)"; }
	t_image=$((SECONDS - t0))
	kver=$(cat "$img/kver")
}

cloud_repo_disk() {
	local dir=$1 img=$2 mb
	(cd "$dir" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null | gzip -9n >Packages.gz) ||
		{ log "dpkg-scanpackages in $dir failed"; return 1; }
	# Room for the files plus ext4's own metadata.
	mb=$(($(du -sm "$dir" | cut -f1) * 11 / 10 + 64))
	mkfs.ext4 -q -F -L NOVAREPO -d "$dir" "$img" "${mb}M" >/dev/null 2>&1 ||
		{ log "mkfs.ext4 -d $dir failed"; return 1; }
}

cloud_seed() {
	local img=$1 id=$2 tag=$3 cmd=$4 d
	d=$(mktemp -d)
	cat >"$d/meta-data" <<EOF
instance-id: $id
local-hostname: nova-guest
EOF
	cat >"$d/user-data" <<EOF
#cloud-config
# NOVA package tier: run the test from the repository disk, console on ttyS0.
runcmd:
  - - /bin/sh
    - -c
    - |
      exec </dev/null >/dev/ttyS0 2>&1
      mkdir -p /mnt/novarepo
      if mount -o ro LABEL=NOVAREPO /mnt/novarepo; then
        exec $cmd
      fi
      echo "$tag: FAIL mount the repository disk (LABEL=NOVAREPO)"
      echo "$tag: SUMMARY 0 passed, 1 failed"
      echo "$tag: DONE"
      poweroff -f
EOF
	cloud-localds "$img" "$d/user-data" "$d/meta-data"
	local rc=$?
	rm -rf "$d"
	return "$rc"
}

# Only one QEMU at a time on the machine: qemu/run-guest.sh and every other
# guest runner take the same lock.
cloud_locked=0
cloud_lock() {
	local t0=$SECONDS
	mkdir -p "$NOVA_CACHE"
	exec 9>"$NOVA_CACHE/qemu.lock"
	if ! flock -n 9; then
		log "another QEMU run holds $NOVA_CACHE/qemu.lock; waiting"
		flock 9
		log "waited $((SECONDS - t0)) s for the QEMU lock"
	fi
	cloud_wait=$((SECONDS - t0))
	cloud_locked=1
}
cloud_unlock() {
	exec 9>&-
	cloud_locked=0
}

cloud_boot() {
	local log=$1 timeout=$2 kernel=$3 initrd=$4 qpid tailpid="" t0 own_lock=0
	shift 4
	kernel=$(pvh_kernel "$kernel")
	# shellcheck disable=SC2054 # commas are QEMU option syntax
	local qargs=(
		-accel tcg,thread=multi -cpu max -smp 2
		-machine pc,nvdimm=on -m "${CLOUD_MEM:-2G,slots=2,maxmem=4G}"
		-nodefaults -display none -nic none -no-reboot
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0,115200 root=/dev/vda rw panic=-1 net.ifnames=0 systemd.show_status=auto"
		"$@"
		-chardev "file,id=con,path=$log" -serial chardev:con -monitor none
	)
	cloud_wait=0
	if [ "$cloud_locked" = 0 ]; then
		cloud_lock
		own_lock=1
	fi
	t0=$SECONDS
	: >"$log"
	qemu-system-x86_64 "${qargs[@]}" </dev/null >"${log%.*}.qemu.log" 2>&1 &
	qpid=$!
	# The EXIT trap kills QEMU should the script end (or be interrupted) meanwhile.
	cloud_qpid=$qpid
	if [ "${NOVA_STDIO:-0}" = 1 ]; then
		tail -n +1 -f --pid="$qpid" "$log" &
		tailpid=$!
	fi
	cloud_timed_out=0 cloud_stalled=0
	local size=0 grown=$SECONDS now
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $((SECONDS - t0)) -ge "$timeout" ]; then
			cloud_timed_out=1
			kill -KILL "$qpid" 2>/dev/null
			break
		fi
		if [ -n "${CLOUD_STALL:-}" ]; then
			now=$(stat -c %s "$log" 2>/dev/null || echo 0)
			if [ "$now" != "$size" ]; then
				size=$now grown=$SECONDS
			elif [ $((SECONDS - grown)) -ge "$CLOUD_STALL" ]; then
				cloud_stalled=1
				kill -KILL "$qpid" 2>/dev/null
				break
			fi
		fi
		sleep 1
	done
	wait "$qpid" 2>/dev/null
	cloud_qrc=$?
	cloud_qpid=""
	[ -z "$tailpid" ] || wait "$tailpid" 2>/dev/null
	[ "$own_lock" = 0 ] || cloud_unlock
	cloud_secs=$((SECONDS - t0))
}

# The EXIT trap of a script that calls cloud_boot.
cloud_qpid=""
# shellcheck disable=SC2317 # called via trap
cloud_cleanup() {
	[ -z "$cloud_qpid" ] || kill -KILL "$cloud_qpid" 2>/dev/null || true
}

cloud_console() {
	tr -d '\r' <"$1" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$2"
}

cloud_kernel_log() {
	local clean=$1 tag=$2 out=$3 name=$4 hits
	# Kernel log (dumped by the guest) and the journal's warnings: qemu/common.sh's
	# NOVA_KLOG_BAD; the unsigned/out-of-tree module taint is expected.
	local bad_re=$NOVA_KLOG_BAD
	local ignore_re='module verification failed|loading out-of-tree module taints kernel|I/O error, dev fd0'
	[ -z "${NOVA_LOG_IGNORE:-}" ] || ignore_re="$ignore_re|$NOVA_LOG_IGNORE"
	{
		sed -n "/$tag: DMESG-BEGIN/,/$tag: DMESG-END/p" "$clean"
		sed -n "/$tag: JOURNAL-BEGIN/,/$tag: JOURNAL-END/p" "$clean"
		grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$clean"
	} >"$out"
	mapfile -t hits < <(grep -E -- "$bad_re" "$out" | grep -Ev -- "$ignore_re" | sort -u)
	if [ ${#hits[@]} -gt 0 ]; then
		echo "FAIL $name: ${#hits[@]} suspicious kernel/journal lines:"
		printf '    %s\n' "${hits[@]:0:20}"
		return 1
	fi
	echo "PASS $name: no Oops/BUG/WARNING/lockup in the kernel log or journal"
}
