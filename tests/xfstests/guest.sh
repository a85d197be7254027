#!/bin/bash
# One boot of an xfstests run, inside the Debian guest (tests/xfstests/run.sh
# starts it through cloud-init with the repository disk mounted read-only).
#
# Usage: guest.sh REPO
#   REPO holds run.conf (fstyp, boot, deadline, first, test_timeout), tests.list (the tests
#   still to run, in order), xfstests/ (the built tree), and for FSTYP=NOVA
#   nova.ko and tools/ (mkfs.nova, fsck.nova, nova-probe, nova-stat, nova-debug).
# Devices: two NVDIMMs (fsdax namespaces made on the first boot): /dev/pmem0
# is TEST_DEV, /dev/pmem1 SCRATCH_DEV. Results go to the ext4 disk labelled
# NOVARES: results/boot-N/ (xfstests' RESULT_BASE), dmesg-boot-N.txt.
#
# Console protocol (one line each; the host reads it while the guest runs):
#   NOVA-XFS: START <kernel>            NOVA-XFS: FAIL <setup step>
#   NOVA-XFS: T <epoch> <line of ./check's output>
#   NOVA-XFS: CHECK-EXIT <status>       NOVA-XFS: DONE
#   NOVA-XFS: TIMEOUT <test> <seconds>  (the test was killed: run.conf's
#                                        test_timeout, 0 for none)
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
tag=NOVA-XFS
repo=$1
say() { echo "$tag: $*"; }
finish() {
	say "CHECK-EXIT $1"
	if mountpoint -q /mnt/novares; then
		dmesg >"/mnt/novares/dmesg-boot-$boot.txt" 2>&1
		sync
		umount /mnt/novares || sync
	fi
	say DONE
	poweroff -f
}
setup_fail() { say "FAIL $*"; finish setup; }

fstyp='' boot=0 deadline=0 first=0 test_timeout=0
# shellcheck source=/dev/null
. "$repo/run.conf"
# Errors and worse on the console (a panic or an oops shows there even when
# the guest dies); the whole kernel log goes to the results disk.
dmesg -n 4
say "START $(uname -r) boot $boot fstyp $fstyp (up $(cut -d' ' -f1 /proc/uptime) s)"

mkdir -p /mnt/novares /mnt/test /mnt/scratch
mount LABEL=NOVARES /mnt/novares || setup_fail "mount the results disk (LABEL=NOVARES)"

# xfstests into the root file system (its tree is written to while it runs).
if [ ! -x /var/lib/xfstests/check ]; then
	cp -a "$repo/xfstests" /var/lib/xfstests || setup_fail "copy xfstests"
fi

if [ "$fstyp" = NOVA ]; then
	install -m 0755 "$repo"/tools/* /usr/local/sbin/ || setup_fail "install the NOVA tools"
	ln -sf mkfs.nova /usr/local/sbin/mkfs.NOVA
	ln -sf fsck.nova /usr/local/sbin/fsck.NOVA
	insmod "$repo/nova.ko" || setup_fail "insmod nova.ko"
	grep -qw NOVA /proc/filesystems || setup_fail "NOVA not in /proc/filesystems"
fi

# Both NVDIMMs in fsdax mode (raw on a new backing file; the mode is stored
# in the NVDIMM, so later boots find fsdax).
for ns in namespace0.0 namespace1.0; do
	if ! ndctl list -n "$ns" 2>/dev/null | grep -q '"mode":"fsdax"'; then
		ndctl create-namespace -f -e "$ns" --mode=fsdax >/dev/null ||
			setup_fail "ndctl create-namespace -e $ns --mode=fsdax"
	fi
done
udevadm settle
for d in /dev/pmem0 /dev/pmem1; do
	[ -b "$d" ] || setup_fail "no $d"
	[ "$(cat "/sys/block/${d#/dev/}/queue/dax")" = 1 ] || setup_fail "$d is not DAX-capable"
done

# The test device holds a file system from the first boot on.
if [ "$first" = 1 ]; then
	case $fstyp in
	NOVA) mkfs.nova -f -q /dev/pmem0 ;;
	ext4) mkfs.ext4 -F -q -b 4096 /dev/pmem0 ;;
	xfs) mkfs.xfs -f -q /dev/pmem0 >/dev/null ;;
	esac || setup_fail "mkfs of TEST_DEV (/dev/pmem0, $fstyp)"
fi

mkdir -p "/mnt/novares/results/boot-$boot"
{
	echo "export FSTYP=$fstyp"
	echo "export TEST_DEV=/dev/pmem0 TEST_DIR=/mnt/test"
	echo "export SCRATCH_DEV=/dev/pmem1 SCRATCH_MNT=/mnt/scratch"
	echo "export RESULT_BASE=/mnt/novares/results/boot-$boot"
	case $fstyp in
	NOVA) ;; # common/config of the patched xfstests: mkfs.nova -f, fsck.nova -nf
	ext4)
		echo 'export MKFS_OPTIONS="-b 4096"'
		echo 'export MOUNT_OPTIONS="-o dax" TEST_FS_MOUNT_OPTS="-o dax"'
		;;
	xfs) echo 'export MOUNT_OPTIONS="-o dax=always" TEST_FS_MOUNT_OPTS="-o dax=always"' ;;
	esac
} >/var/lib/xfstests/local.config

# kill_tree PID: PID and every process below it, children first
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do
		kill_tree "$c"
	done
	kill -KILL "$1" 2>/dev/null
}

# A test running longer than $test_timeout s: its processes are killed (./check
# runs each test as "exec ./tests/DIR/NNN", in a systemd scope or not; the
# process shows as "/bin/bash /var/lib/xfstests/tests/DIR/NNN") and ./check
# records a failure and goes on. Every 10 s. (An elapsed time over a day is
# not believed: ps gave 4123168608 s for generic/589's test process, which
# had started 50 s before.)
watchdog() {
	local pid secs name
	while sleep 10; do
		ps -eo pid=,etimes=,args= |
			awk -v lim="$test_timeout" '$2 > lim && $2 < 86400 && $3 ~ /bash$/ &&
				$4 ~ /(^|\/)tests\/[a-z0-9]+\/[0-9]+$/ { print $1, $2, $4 }' |
			while read -r pid secs name; do
				say "TIMEOUT ${name##*/tests/} $secs"
				kill_tree "$pid"
			done
	done
}

# The tests; at the deadline, TERM (xfstests stops after cleaning up), then KILL.
mapfile -t tests <"$repo/tests.list"
cd /var/lib/xfstests || setup_fail "cd /var/lib/xfstests"
[ "$test_timeout" -gt 0 ] 2>/dev/null && watchdog &
timeout -k 120 "$deadline" ./check -R xunit "${tests[@]}" </dev/null 2>&1 |
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s: T %(%s)T %s\n' "$tag" -1 "$line"
	done
finish "${PIPESTATUS[0]}"
