#!/bin/sh
# errors=remount-ro, also on a frozen file system.  An error makes the
# file system read-only in NOVA's own state (emergency_ro, as ext4 since
# it stopped setting SB_RDONLY behind the VFS's back): a read found the
# error while frozen, and a thaw that saw SB_RDONLY kept the freeze locks,
# so every later write, and the deletion of a file unlinked while open,
# hung in D state until a reboot.  Nothing reaches pmem while it is
# frozen: the error state is written at the thaw (it was written while
# frozen before).  After the error (and the thaw) every change fails
# with EROFS at once, reads go on, nothing more is stored on pmem (the
# error state in the super block aside), and a remount is
# refused with EROFS (as ext4 refuses the switch between read-only and
# read-write after an error; remount,rw before let the file system write
# again on the state it had just called inconsistent).  Unmount,
# fsck.nova -y and a mount make it writable again.  The error: a file
# whose data block is another file's log page (as 071-double-claim).
# A change that hangs fails the test after 20 s, showing the D-state tasks.
# nova-timeout: 600
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

state() { # the super block's state word, as nova-debug prints it
	expect_ok blockdev --flushbufs "$PMEM" >/dev/null
	nova-debug "$PMEM" super | sed -n 's/^state //p'
}
dev_sum() { # md5 of the whole device, not of a cached copy
	echo 1 >/proc/sys/vm/drop_caches
	md5sum <"$PMEM"
}

# A fresh file system with b (4 pages) and a, whose data block is b's
# first log page; unmounted
damaged_image() {
	nova_format
	expect_ok dd if=/dev/urandom of="$MNT/b" bs=4096 count=4 2>/dev/null
	expect_ok dd if=/dev/urandom of="$MNT/a" bs=4096 count=1 2>/dev/null
	bsum=$(md5sum <"$MNT/b")
	ia=$(stat -c %i "$MNT/a")
	ib=$(stat -c %i "$MNT/b")
	nova_umount
	give_log_page "$ia" "$ib"
}

# run_bg NAME CMD...: run CMD in the background; its exit status goes to
# /tmp/NAME.rc, its output to /tmp/NAME.out
run_bg() {
	_n=$1
	shift
	rm -f "/tmp/$_n.rc" "/tmp/$_n.out"
	(
		_rc=0
		"$@" >"/tmp/$_n.out" 2>&1 || _rc=$?
		echo "$_rc" >"/tmp/$_n.rc"
	) &
}

# done_within NAME SECS: NAME ends within SECS seconds, else the test
# fails (a task stuck in the kernel stays: it cannot be killed)
done_within() {
	_i=0
	while [ ! -s "/tmp/$1.rc" ]; do
		if [ $_i -ge $(($2 * 5)) ]; then
			echo "tasks in D state:"
			ps -o pid,stat,args | awk 'NR == 1 || $2 ~ /^D/'
			for _p in $(ps -o pid,stat | awk '$2 ~ /^D/ { print $1 }'); do
				echo "--- $_p: $(tr '\0' ' ' <"/proc/$_p/cmdline")"
				cat "/proc/$_p/stack" 2>/dev/null
			done
			fail "$1 did not finish within $2 s (hung)"
		fi
		sleep 0.2
		_i=$((_i + 1))
	done
}

# erofs NAME CMD...: CMD fails with EROFS within 20 s
erofs() {
	_n=$1
	shift
	echo "+ (must fail with EROFS) $*"
	run_bg "$_n" "$@"
	done_within "$_n" 20
	[ "$(cat "/tmp/$_n.rc")" != 0 ] || fail "$_n succeeded after the error: $*"
	grep -qE "Read-only file system|EROFS" "/tmp/$_n.out" ||
		fail "$_n did not fail with EROFS: $(cat "/tmp/$_n.out")"
}

# Every kind of change fails with EROFS, promptly; reads of b go on
changes_refused() { # WHEN
	erofs create touch "$MNT/new"
	erofs mkdir mkdir "$MNT/newdir"
	erofs write dd if=/dev/zero of="$MNT/b" bs=4096 count=1 conv=notrunc
	erofs truncate sh -c ": >$MNT/b"
	erofs chmod chmod 600 "$MNT/b"
	erofs link ln "$MNT/b" "$MNT/b2"
	erofs rename mv "$MNT/b" "$MNT/b3"
	erofs unlink rm "$MNT/b"
	erofs xattr t_xattr set "$MNT/b" user.k v
	erofs fallocate nova-fsctl keepsize "$MNT/b" 0 65536
	erofs chattr nova-fsctl nocow "$MNT/b" +
	erofs setlabel nova-fsctl setlabel "$MNT" x
	erofs fsync nova-fsctl readfsync "$MNT/b" 1
	erofs dirfsync nova-fsctl readfsync "$MNT" 1
	expect_eq "$(md5sum <"$MNT/b")" "$bsum" "$1: b is read after the error"
	# (names only: a stat of a is the error again)
	for _f in new newdir b2 b3; do
		[ ! -e "$MNT/$_f" ] || fail "$1: $_f exists after the refused changes"
	done
	[ -f "$MNT/b" ] || fail "$1: b is gone after the refused changes"
}

# The unmounted file system: the error state is recorded, fsck.nova
# repairs it, and a mount writes again
repaired() { # WHEN
	expect_eq "$(state)" "0x2 error" "$1: the super block records the error (and no clean unmount)"
	rc=0
	fsck.nova -y "$PMEM" >/tmp/fsck.out 2>&1 || rc=$?
	[ "$rc" -le 1 ] || { cat /tmp/fsck.out; fail "$1: fsck.nova -y: exit $rc"; }
	rc=0
	fsck.nova -fn "$PMEM" >/tmp/fsck.out 2>&1 || rc=$?
	[ "$rc" = 0 ] || { cat /tmp/fsck.out; fail "$1: fsck.nova -fn after the repair: exit $rc"; }
	nova_mount_refused emergency_ro "emergency_ro is the state of a mounted file system"
	dmesg_mark
	nova_mount errors=remount-ro
	grep " $MNT " /proc/mounts | grep -q emergency_ro &&
		fail "$1: emergency_ro after a new mount: $(grep " $MNT " /proc/mounts)"
	expect_eq "$(md5sum <"$MNT/b")" "$bsum" "$1: b after the repair"
	expect_ok sh -c "echo new >$MNT/new"
	expect_ok mkdir "$MNT/newdir"
	expect_eq "$(cat "$MNT/new")" "new" "$1: a new file after the repair"
	nova_umount
	expect_ok fsck.nova -fn "$PMEM"
	expect_no_dmesg "NOVA error|Oops|BUG|WARNING|general protection" "$1: no error after the repair"
}

# --- the error while frozen ------------------------------------------------
damaged_image
nova_mount errors=remount-ro
# b is read first: the page is b's log page, a's claim of it is the error
expect_eq "$(md5sum <"$MNT/b")" "$bsum" "b read"
rm -f /tmp/go
# a file unlinked while open, closed while frozen: its deletion waits
run_bg closer sh -c 'exec 3>"$1/orphan"; echo x >&3; rm "$1/orphan"
	while [ ! -f /tmp/go ]; do sleep 0.2; done
	exec 3>&-' sh "$MNT"
sleep 1
expect_ok nova-fsctl freeze "$MNT"
before_sum=$(dev_sum)
# a write and the deletion that wait for the thaw
run_bg waiting sh -c "echo more >>$MNT/b"
: >/tmp/go
sleep 2
[ ! -f /tmp/waiting.rc ] || fail "a write went through while frozen: $(cat /tmp/waiting.out)"
dmesg_mark
expect_ok t_claim open "$MNT/a" EUCLEAN
expect_dmesg "inode $ia: data blocks [0-9]+\+1 are claimed twice" "a's double claim logged"
expect_dmesg "NOVA \(pmem0\): remounting file system read-only" "errors=remount-ro: read-only"
# nothing is stored while frozen, not even the error state (as ext4,
# whose journal waits for the thaw): the thaw writes it (the work item
# that tried had 2 s)
sleep 2
expect_eq "$(dev_sum)" "$before_sum" "the device while frozen, after the error"
expect_ok nova-fsctl thaw "$MNT"
expect_eq "$(state)" "0x2 error" "the error state after the thaw"
frozen_sum=$(dev_sum)
# what waited for the thaw ends at once: the write with EROFS, the
# close without deleting (the next mount or fsck.nova reclaims it)
done_within waiting 20
[ "$(cat /tmp/waiting.rc)" != 0 ] || fail "the write that waited for the thaw succeeded"
grep -q "Read-only file system" /tmp/waiting.out ||
	fail "the write that waited for the thaw: not EROFS: $(cat /tmp/waiting.out)"
done_within closer 20
expect_eq "$(cat /tmp/closer.rc)" 0 "the close of the unlinked file after the thaw"
changes_refused frozen
# (mount(8) passes back the options /proc/mounts shows: emergency_ro too)
dmesg_mark
erofs remount mount -o remount,rw "$MNT"
expect_dmesg "NOVA.*read-only after an error" "the refused remount says why"
erofs after-remount touch "$MNT/new"
expect_eq "$(dev_sum)" "$frozen_sum" "nothing stored on pmem after the error"
nova_umount
expect_eq "$(dev_sum)" "$frozen_sum" "the unmount stores nothing after the error"
repaired frozen

# --- the error without a freeze --------------------------------------------
damaged_image
nova_mount errors=remount-ro
expect_eq "$(md5sum <"$MNT/b")" "$bsum" "b read"
dmesg_mark
expect_ok t_claim open "$MNT/a" EUCLEAN
expect_dmesg "NOVA \(pmem0\): remounting file system read-only" "errors=remount-ro: read-only"
# as ext4: the mount stays rw for the VFS, the option shows the state
grep " $MNT " /proc/mounts | grep -q " rw,.*errors=remount-ro.*,emergency_ro" ||
	fail "emergency_ro not shown: $(grep " $MNT " /proc/mounts)"
changes_refused unfrozen
# remount: neither read-write nor (as ext4) read-only after an error
dmesg_mark
erofs remount-rw mount -o remount,rw "$MNT"
expect_dmesg "NOVA.*read-only after an error" "the refused remount,rw says why"
erofs remount-ro mount -o remount,ro "$MNT"
erofs after-remount touch "$MNT/new"
# freeze and thaw still work (syncfs fails: FIFREEZE with EROFS, as ext4)
expect_eq "$(nova-fsctl freeze "$MNT")" "error FIFREEZE: Read-only file system (errno 30)" \
	"a freeze after the error"
erofs after-freeze touch "$MNT/new"
nova_umount
repaired unfrozen
