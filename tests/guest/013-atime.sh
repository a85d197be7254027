#!/bin/sh
# Access times, as xfstests generic/003 checks them and more: an atime
# that a read updated (strictatime; relatime when its rules say so;
# lazytime) survives umount + mount, for files, directories and symlinks;
# fsync makes it durable without an unmount (an image copied while
# mounted, as a power cut leaves it, has it); noatime, nodiratime,
# O_NOATIME and read-only mounts (mount -o ro, remount,ro) leave it
# alone, and what a remount read-only shows is what was persisted;
# utimensat persists; the log of a file read and fsynced 300 times stays
# within its GC bound, a thorough GC keeps the atime; fsck.nova -fn is
# clean.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

[ -n "${PMEM2:-}" ] || fail "this test needs the scratch device (--scratch)"

P=/proc/fs/NOVA/pmem0
# atime|mtime|ctime, nanoseconds
stamps() { stat -c '%x|%y|%z' "$1"; }
mnt_opts() { awk -v m="$MNT" '$2 == m { print $4 }' /proc/mounts; }
cycle() { # cycle OPTIONS: umount and mount again with OPTIONS
	nova_umount
	nova_mount "$1"
}

# expect_times WHAT BEFORE AFTER XYZ: X, Y, Z (Y or N) say whether atime,
# mtime and ctime may differ between the two stamps() strings
expect_times() {
	_i=1
	for _t in access modify change; do
		_b=$(echo "$2" | cut -d'|' -f$_i)
		_a=$(echo "$3" | cut -d'|' -f$_i)
		case $(echo "$4" | cut -c$_i) in
		Y) [ "$_b" != "$_a" ] || fail "$1: $_t time not updated ($_b)" ;;
		N) [ "$_b" = "$_a" ] || fail "$1: $_t time changed: $_b -> $_a" ;;
		esac
		_i=$((_i + 1))
	done
	info "$1: ok ($4)"
}

# expect_persisted WHAT PATH TIMES OPTIONS: after umount + mount with
# OPTIONS, PATH shows TIMES again
expect_persisted() {
	cycle "$4"
	expect_times "$1 after umount + mount ($4)" "$3" "$(stamps "$2")" NNN
}

# accessed WHAT OPTIONS PATH CMD...: a second on, CMD reads PATH; that
# updates its atime alone, which is there again after umount + mount with
# OPTIONS.  Sets LAST to PATH's stamps after the read.
accessed() {
	_w=$1 _o=$2 _p=$3
	shift 3
	_t0=$(stamps "$_p")
	sleep 1
	"$@" > /dev/null
	LAST=$(stamps "$_p")
	expect_times "$_w" "$_t0" "$LAST" YNN
	expect_persisted "$_w" "$_p" "$LAST" "$_o"
}

# read_both WHEN XYZ F D: a second on, read $MNT/f and list $MNT/d; their
# stamps against F and D as expect_times XYZ says
read_both() {
	sleep 1
	cat "$MNT/f" > /dev/null
	ls "$MNT/d" > /dev/null
	expect_times "file read $1" "$3" "$(stamps "$MNT/f")" "$2"
	expect_times "directory listed $1" "$4" "$(stamps "$MNT/d")" "$2"
}

fsck_clean() { # fsck_clean DEV WHAT
	_rc=0
	fsck.nova -fn "$1" > /tmp/fsck.out 2>&1 || _rc=$?
	[ "$_rc" -eq 0 ] || { cat /tmp/fsck.out; fail "fsck.nova -fn $2: exit $_rc"; }
}

nova_format
nova_umount

# --- strictatime: every read updates atime; it persists ---------------------
nova_mount strictatime
case ,$(mnt_opts), in
*,relatime,* | *,noatime,*) fail "strictatime not in effect: $(mnt_opts)" ;;
esac
echo aaa > "$MNT/f"
mkdir "$MNT/d"
echo bbb > "$MNT/d/g"
ln -s f "$MNT/l"
accessed "file read (strictatime)" strictatime "$MNT/f" cat "$MNT/f"
accessed "file read again, after a remount" strictatime "$MNT/f" cat "$MNT/f"
accessed "directory listed (strictatime)" strictatime "$MNT/d" ls "$MNT/d"
accessed "symlink followed (strictatime)" strictatime "$MNT/l" cat "$MNT/l"

# --- fsync: durable without an unmount --------------------------------------
# The device is copied while mounted: the copy is what a power cut right
# after the fsync leaves.  Nothing else is dirty (sync first), so no
# writeback changes the device while it is copied.  O_DIRECT on both
# sides: the block device's page cache of the mounted device is not kept
# in step with the DAX stores (a second buffered copy reads stale pages).
durable_check() { # durable_check WHAT PATH CMD...: CMD updates PATH's atime
	_w=$1 _p=$2
	shift 2
	sync
	_t0=$(stamps "$_p")
	sleep 1
	"$@" > /dev/null
	expect_ok sync "$_p"
	LAST=$(stamps "$_p")
	expect_times "$_w, before fsync" "$_t0" "$LAST" YNN
	expect_ok dd if="$PMEM" of="$PMEM2" bs=4M iflag=direct oflag=direct \
		2>/dev/null
	expect_ok mount -t NOVA "$PMEM2" "$MNT2"
	expect_times "$_w, fsync, in an image copied while mounted" "$LAST" \
		"$(stamps "$MNT2/${_p#"$MNT"/}")" NNN
	expect_ok umount "$MNT2"
	fsck_clean "$PMEM2" "of the copy ($_w)"
}
durable_check "file read" "$MNT/f" cat "$MNT/f"
durable_check "directory listed" "$MNT/d" ls "$MNT/d"
d2=$LAST

# --- lazytime: in memory until fsync, writeback or unmount ------------------
cycle strictatime,lazytime
info "mount options: $(mnt_opts)"
durable_check "file read (lazytime)" "$MNT/f" cat "$MNT/f"
accessed "file read again (lazytime)" strictatime "$MNT/f" cat "$MNT/f"
t5=$LAST

# --- O_NOATIME -------------------------------------------------------------
sleep 1
expect_ok nova-fsctl readnoatime "$MNT/f"
expect_ok nova-fsctl readnoatime "$MNT/d"
expect_times "file read with O_NOATIME" "$t5" "$(stamps "$MNT/f")" NNN
expect_times "directory listed with O_NOATIME" "$d2" "$(stamps "$MNT/d")" NNN

# --- relatime ----------------------------------------------------------------
cycle relatime
echo x > "$MNT/r"
r0=$(stamps "$MNT/r")
sleep 1
cat "$MNT/r" > /dev/null
r1=$(stamps "$MNT/r")
expect_times "first read (relatime: atime not newer than mtime)" "$r0" "$r1" YNN
sleep 1
cat "$MNT/r" > /dev/null
expect_times "second read (relatime: atime newer, not a day old)" "$r1" \
	"$(stamps "$MNT/r")" NNN
expect_persisted "relatime read" "$MNT/r" "$r1" relatime
sleep 1
echo y >> "$MNT/r"
r2=$(stamps "$MNT/r")
expect_times "append" "$r1" "$r2" NYY
accessed "read after a modification (relatime)" relatime "$MNT/r" cat "$MNT/r"
r3=$LAST
# an atime a day old is updated: move the clock two days on, and back
now=$(date +%s)
expect_ok date -s "@$((now + 2 * 86400))" > /dev/null
cat "$MNT/r" > /dev/null
r4=$(stamps "$MNT/r")
expect_ok date -s "@$(($(date +%s) - 2 * 86400))" > /dev/null
expect_times "read of an atime two days old (relatime)" "$r3" "$r4" YNN
expect_persisted "relatime read of an old atime" "$MNT/r" "$r4" relatime

# --- noatime -------------------------------------------------------------------
cycle noatime
t6=$(stamps "$MNT/f")
d3=$(stamps "$MNT/d")
read_both "(noatime)" NNN "$t6" "$d3"
expect_persisted "file (noatime)" "$MNT/f" "$t6" noatime
expect_times "file (noatime) equals its last access" "$t5" "$t6" NNN

# --- nodiratime ------------------------------------------------------------------
cycle strictatime,nodiratime
d4=$(stamps "$MNT/d")
g0=$(stamps "$MNT/d/g")
sleep 1
ls "$MNT/d" > /dev/null
cat "$MNT/d/g" > /dev/null
expect_times "directory listed (nodiratime)" "$d4" "$(stamps "$MNT/d")" NNN
g1=$(stamps "$MNT/d/g")
expect_times "file read (strictatime,nodiratime)" "$g0" "$g1" YNN
expect_persisted "file read (nodiratime)" "$MNT/d/g" "$g1" strictatime
expect_times "directory after nodiratime" "$d4" "$(stamps "$MNT/d")" NNN

# --- read-only: remount,ro shows the last access, and keeps it ----------------
read_both "before remount,ro" YNN "$t6" "$d4"
t7=$(stamps "$MNT/f")
d5=$(stamps "$MNT/d")
expect_ok mount -o remount,ro "$MNT"
case ,$(mnt_opts), in *,ro,*) ;; *) fail "not read-only: $(mnt_opts)" ;; esac
expect_times "file after remount,ro" "$t7" "$(stamps "$MNT/f")" NNN
expect_times "directory after remount,ro" "$d5" "$(stamps "$MNT/d")" NNN
read_both "on a read-only remount" NNN "$t7" "$d5"
expect_persisted "file after a read-only remount" "$MNT/f" "$t7" ro,strictatime
expect_times "directory on a read-only mount" "$d5" "$(stamps "$MNT/d")" NNN
read_both "on a read-only mount" NNN "$t7" "$d5"
expect_ok mount -o remount,rw "$MNT"
expect_times "file after remount,rw" "$t7" "$(stamps "$MNT/f")" NNN
expect_persisted "file after ro and rw" "$MNT/f" "$t7" strictatime

# --- utimensat ---------------------------------------------------------------------
expect_ok touch -a -d '2001-02-03 04:05:06' "$MNT/f"
t8=$(stamps "$MNT/f")
expect_times "touch -a" "$t7" "$t8" YNY
expect_persisted "touch -a" "$MNT/f" "$t8" strictatime

# --- many atime updates: the log stays within its GC bound ---------------------------
key() { sed -n "s/^$1=//p" /tmp/li; }
expect_ok nova-fsctl readfsync "$MNT/f" 300
expect_ok nova-fsctl readfsync "$MNT/d" 300
for p in "$MNT/f" "$MNT/d"; do
	t_gc loginfo "$p" > /tmp/li || fail "loginfo $p"
	info "$p: $(tr '\n' ' ' < /tmp/li)"
	[ "$(key log_pages)" -le "$(key limit_pages)" ] ||
		fail "$p: log of $(key log_pages) pages, its bound is $(key limit_pages)"
done
t9=$(stamps "$MNT/f")
d6=$(stamps "$MNT/d")
expect_times "file read 300 times" "$t8" "$t9" YNN
expect_times "directory listed 300 times" "$d5" "$d6" YNN
# a thorough GC rewrites the logs from DRAM: the atimes stay
for p in "$MNT/f" "$MNT/d"; do
	expect_ok sh -c "echo $(stat -c %i "$p") > $P/gc"
done
expect_persisted "file after a thorough GC" "$MNT/f" "$t9" strictatime
expect_times "directory after a thorough GC" "$d6" "$(stamps "$MNT/d")" NNN
nova_umount
fsck_clean "$PMEM" "after the atime updates"
