#!/bin/sh
# Concurrency stress runner (sourced by 095-stress-short.sh and by the
# script that make stress generates; not a test by itself).
#   STRESS_PROCS  processes (default 4)
#   STRESS_SECS   seconds (default 60)
#   STRESS_SEED   seed (default: fixed)
# Format $PMEM, run nova_stress on it, unmount, fsck.nova -fn must find
# nothing, mount again, walk and read the whole tree, unmount, fsck again
# (after the clean unmount), and the kernel log must have no report and
# no NOVA error.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

STRESS_PROCS=${STRESS_PROCS:-4}
STRESS_SECS=${STRESS_SECS:-60}
STRESS_SEED=${STRESS_SEED:-0x5eed0095}
BAD='Oops|BUG|WARNING|general protection|soft lockup|hard LOCKUP|blocked for more than|Call Trace|NOVA error'

info "$(nproc) CPUs, $STRESS_PROCS processes, ${STRESS_SECS}s, seed $STRESS_SEED"
dmesg_mark
nova_format
rc=0
nova_stress -d "$MNT" -p "$STRESS_PROCS" -t "$STRESS_SECS" -s "$STRESS_SEED" || rc=$?
if [ "$rc" -eq 3 ]; then
	# stuck tasks would hang /init's sync before poweroff: force it later
	setsid sh -c 'sleep 90; echo o > /proc/sysrq-trigger' </dev/null >/dev/null 2>&1 &
	fail "nova_stress: hang"
fi
info "tree after the run: $(find "$MNT" | wc -l) names, $(df -k "$MNT" | awk 'NR == 2 { print $3 }') KiB used"
nova_umount
t0=$(date +%s)
fsck.nova -fn "$PMEM" > /tmp/fsck1.out 2>&1
frc=$?
tail -n 12 /tmp/fsck1.out
info "fsck.nova -fn: exit $frc, $(($(date +%s) - t0))s"
[ "$frc" -eq 0 ] || { cat /tmp/fsck1.out | head -100; fail "fsck.nova -fn after the stress run: exit $frc"; }
nova_mount
n=$(find "$MNT" -type f | wc -l)
find "$MNT" -type f -exec cat {} + > /dev/null || fail "reading the files back"
find "$MNT" -print0 | xargs -0 stat > /dev/null || fail "stat of the tree"
ls -lR "$MNT" > /dev/null || fail "ls -lR"
info "remount: read $n files"
nova_umount
fsck.nova -fn "$PMEM" > /tmp/fsck2.out 2>&1 ||
	{ head -100 /tmp/fsck2.out; fail "fsck.nova -fn after a clean unmount"; }
expect_no_dmesg "$BAD" "kernel log after the stress run"
[ "$rc" -eq 0 ] || fail "nova_stress: exit $rc (unexpected errors or data mismatches above)"
