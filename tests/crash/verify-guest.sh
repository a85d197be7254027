# shellcheck shell=sh
# Guest side of a power-cut test's verification boot (busybox sh).
# tests/crash/run-powercut.sh prepends "SEED=... PROFILE=... OPS=..." (and
# STRIPES=N: the stripe count the format must have given) and
# ships the records of the cut boot as $NOVA_TESTS/rec.txt.
#
#   fsck.nova -n (if present)   exit 0 or 1 required ("FSCK-RC n")
#   mount -o ro, device ro      refused (EROFS) if a journal transaction is
#                               open (then -o ro,norecovery mounts, not
#                               remountable rw), else crashwork verify
#                               accepts it
#   mount (crash recovery)      "RECOVERY: ..." lines: what the kernel logged
#   crashwork verify            against the records: the state after the
#                               completed ops, the in-flight op all or nothing
#   crashwork stress + verify   new allocations do not hit live data
#   umount, fsck.nova -n -f     exit 0 required (the recovered tree is clean)
#   mount, verify               the clean-unmount snapshot gives the same
#                               tree, free blocks and inode count
#   rm -rf, GC of the root      no leaked blocks: free blocks = REC 0's - 1
#                               (the root directory's log page)
#   umount, fsck.nova -n -f     exit 0 required
#   no "NOVA error" in the kernel log
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

REC=$NOVA_TESTS/rec.txt
status=0
bad() {
	echo "FAIL: $*"
	status=1
}

info "seed $SEED, profile $PROFILE, $OPS ops; $(grep -c 'REC ' "$REC") record lines; $(grep -c ^processor /proc/cpuinfo) CPUs"

# fsck_clean WHAT: fsck.nova -n -f of the unmounted device must find nothing
fsck_clean() {
	command -v fsck.nova >/dev/null 2>&1 || return 0
	_frc=0
	fsck.nova -n -f -v "$PMEM" >/tmp/fsck2.out 2>&1 || _frc=$?
	if [ "$_frc" != 0 ]; then
		sed 's/^/fsck: /' /tmp/fsck2.out | head -n 40
		bad "fsck.nova -n -f $1: exit status $_frc (0 expected)"
	else
		_st=$(sed -n 's/.* \([0-9]*\) stripes.*/\1/p' /tmp/fsck2.out | head -n 1)
		echo "FSCK-CLEAN $1: ${_st:-?} stripes"
		# a CPU-count move: the format's stripe count stays
		if [ -n "${STRIPES:-}" ] && [ "$_st" != "$STRIPES" ]; then
			bad "the file system has ${_st:-?} stripes, $STRIPES expected"
		fi
	fi
}
# verify_as NAME: crashwork verify; prints the matched state in $matched
verify_as() {
	_rc=0
	crashwork verify "$MNT" "$SEED" "$REC" --profile "$PROFILE" --ops "$OPS" \
		>/tmp/verify.out 2>&1 || _rc=$?
	if [ "$1" = first ]; then
		cat /tmp/verify.out
	else
		grep -vE '^(INFO|WARNING)' /tmp/verify.out
	fi
	[ "$_rc" -eq 0 ] || bad "crashwork verify ($1) exit status $_rc"
	matched=$(sed -n 's/^verify: matched //p' /tmp/verify.out)
}

# norecovery_check: with an open journal transaction, a read-write
# norecovery mount is refused; -o ro,norecovery mounts without the
# roll-back and says so, the tree can be walked and read (a half-done
# operation may show, and the errors it logs are only reported: no
# verify) and a remount read-write is refused.
# The journal stays: the next mount still rolls it back.
norecovery_check() {
	dmesg_mark
	mount -t NOVA -o norecovery "$PMEM" "$MNT" 2>/dev/null &&
		{ bad "norecovery read-write with an open journal: mounted"; umount "$MNT"; }
	dmesg_since_mark | grep -q 'norecovery needs a read-only mount' ||
		bad "the refused read-write norecovery mount does not say why"
	dmesg_mark
	if ! mount -t NOVA -o ro,norecovery "$PMEM" "$MNT" >/tmp/nrmount.out 2>&1; then
		cat /tmp/nrmount.out
		bad "ro,norecovery with an open journal transaction: mount failed"
		return
	fi
	dmesg_since_mark | grep -q 'norecovery: .* not rolled back' ||
		bad "ro,norecovery: no log line about the journal left open"
	find "$MNT" -type f -exec cat {} + >/dev/null 2>&1
	# what the half-done operation shows is reported, not a failure
	# (the final check of the kernel log leaves these lines out)
	dmesg_since_mark | grep -E 'NOVA error|NOVA.*(corrupt|bad )' >/tmp/nr-errs || :
	sed 's/^/NORECOVERY-SHOWS: /' /tmp/nr-errs
	dmesg_mark
	mount -o remount,rw "$MNT" 2>/dev/null &&
		bad "ro,norecovery with an open journal: remount read-write succeeded"
	dmesg_since_mark | grep -q 'journals not recovered (norecovery)' ||
		bad "the refused remount read-write does not say why"
	expect_ok umount "$MNT"
	echo "NORECOVERY: mounted read-only without the roll-back"
}

dmesg_mark
if command -v fsck.nova >/dev/null 2>&1; then
	frc=0
	fsck.nova -n "$PMEM" >/tmp/fsck.out 2>&1 || frc=$?
	sed 's/^/fsck: /' /tmp/fsck.out | head -n 60
	echo "FSCK-RC $frc"
	case $frc in
	0 | 1) ;;
	*) bad "fsck.nova -n after the power cut: exit status $frc (0 or 1 expected)" ;;
	esac
fi

# A read-only device first (as ext4): a journal that must be rolled back
# refuses the mount with EROFS - a half-done operation must not show -
# and without one the read-only mount shows a state the records accept.
# fsck.nova -n says whether a transaction is open.
pending=$(grep -c 'uncommitted journal transaction' /tmp/fsck.out 2>/dev/null || :)
expect_ok blockdev --setro "$PMEM"
rorc=0
mount -t NOVA -o ro "$PMEM" "$MNT" >/tmp/romount.out 2>&1 || rorc=$?
if [ "${pending:-0}" -gt 0 ]; then
	if [ "$rorc" = 0 ]; then
		bad "read-only device with an open journal transaction: the mount succeeded"
		verify_as "read-only device"
		umount "$MNT"
	else
		dmesg_since_mark | grep -q 'need recovery but the device is read-only' ||
			bad "the refused read-only device mount does not say why"
		echo "RO-DEVICE: refused, $pending open journal transaction(s)"
	fi
elif [ "$rorc" != 0 ]; then
	cat /tmp/romount.out
	bad "read-only device without an open journal transaction: mount failed"
else
	verify_as "read-only device"
	echo "RO-DEVICE: mounted, matched $matched"
	expect_ok umount "$MNT"
fi
expect_ok blockdev --setrw "$PMEM"
[ "${pending:-0}" -gt 0 ] && [ "$rorc" != 0 ] && norecovery_check
dmesg_mark

expect_ok mount -t NOVA "$PMEM" "$MNT"
dmesg_since_mark | grep -E 'NOVA' | grep -vE 'NOVA-MARK' | sed 's/^\[[ 0-9.]*\] //' |
	sed 's/^/RECOVERY: /'

verify_as first
first=$matched

crashwork stress "$MNT" "$SEED" || bad "crashwork stress"
verify_as "after stress"
[ "$matched" = "$first" ] || bad "after stress the tree matches '$matched', before '$first'"
# the reads updated atimes in memory: log them now (they may grow logs),
# so that the unmount saves the allocator state measured here
sync
free1=$(nova_statfs bfree)
files1=$(nova_statfs files)
ffree1=$(nova_statfs ffree)

expect_ok umount "$MNT"
# the recovered (and stressed) file system, cleanly unmounted: fsck clean
fsck_clean "after recovery and a clean unmount"
dmesg_mark
expect_ok mount -t NOVA "$PMEM" "$MNT"
expect_no_dmesg "snapshot unusable" "a clean unmount's snapshot is used"
verify_as "after a clean remount"
[ "$matched" = "$first" ] || bad "after the remount the tree matches '$matched', before '$first'"
free2=$(nova_statfs bfree)
files2=$(nova_statfs files)
ffree2=$(nova_statfs ffree)
[ "$free2" = "$free1" ] || bad "free blocks $free1 before the clean remount, $free2 after"
[ $((files2 - ffree2)) = $((files1 - ffree1)) ] ||
	bad "used inodes $((files1 - ffree1)) before the clean remount, $((files2 - ffree2)) after"

# leaks: remove everything; the root's log shrinks back to one page
bfree0=$(sed -n 's/.*REC 0 start .* bfree=\([0-9]*\) .*/\1/p' "$REC" | head -n1)
rm -rf "$MNT"/* "$MNT"/.[!.]* 2>/dev/null
[ -z "$(ls -A "$MNT")" ] || bad "cannot empty the file system: $(ls -A "$MNT" | head -n 5)"
echo 1 >/proc/fs/NOVA/pmem0/gc || bad "thorough GC of the root directory"
free3=$(nova_statfs bfree)
info "free blocks: after recovery+stress $free1, after the remount $free2, empty $free3, at the start ${bfree0:-?}"
if [ -n "$bfree0" ] && [ "$free3" != $((bfree0 - 1)) ]; then
	bad "leak check: $free3 free blocks with an empty file system, expected $((bfree0 - 1)) (the start's $bfree0 minus the root's log page)"
fi
expect_ok umount "$MNT"
dmesg_mark
expect_ok mount -t NOVA "$PMEM" "$MNT"
free4=$(nova_statfs bfree)
[ "$free4" = "$free3" ] || bad "empty file system: $free3 free blocks before a remount, $free4 after"
expect_ok umount "$MNT"
fsck_clean "emptied"
touch /tmp/nr-errs
if dmesg | grep -E 'NOVA error|NOVA.*(corrupt|bad )' | grep -vxF -f /tmp/nr-errs >/tmp/errs; then
	cat /tmp/errs
	bad "the kernel log has NOVA errors"
fi
exit $status
