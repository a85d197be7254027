#!/bin/bash
# Host tests of fsck.nova's repairs against a power cut: libnova orders
# them (nv_commit(): what a commit publishes durable before it, the commit
# durable before what depends on it), and fsck.nova's test model of a
# power cut (src/tools/fsck/powercut.c, NOVA_FSCK_TEST_POWERCUT) leaves
# the image as the worst a power cut may leave it: at the N-th commit
# (N), only what was made durable and that commit; at the N-th barrier,
# everything but the commits not yet durable (N:late), or only what the
# barriers before made durable (N:early), or that and one of the stores
# made since alone (N:torn:I, each in turn: the device writes pages back
# in any order, and a page in sectors).
#
# Each case damages an image (nova_image inject) in ways whose repairs
# write new log entries and pages, blocks, a journal, an inode, super
# block copies, on an image whose free blocks hold stale data (so that
# a block not written shows), then cuts fsck -y at each of those points
# and requires of each image left: fsck -fn finds no error that the
# damaged image did not have or the first run was not repairing (the two
# super block copies may differ: they are written one after the other),
# fsck -fy then completes the repair (fsck -fn clean after it), and the
# files then are what the uncut run left (nova_image dump: names, types,
# modes, owners, link counts, sizes, flags, project IDs, contents,
# xattrs).  The same after an I/O error at each barrier (N:eio: the
# msync() fails), where fsck must also exit 8 (9 if it reported repairs
# before the error) and report no repair after it.  The uncut run must
# report the case's problems alone (a repair that damages more shows
# there).  Last, the same on a fsck.nova built without the ordering
# (NV_TEST_UNORDERED: nv_persist() does nothing) must fail: the model
# sees what the ordering prevents.
#
#   test_powercut.sh TOOLS_DIR NOVA_IMAGE WORKDIR
#
# Prints one PASS/FAIL line per case and "powercut: N passed, N failed";
# exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

rm -rf "$work"
mkdir -p "$work/tree/d/sub" "$work/tree/p" "$work/tree/q" "$work/tree/full" \
	"$work/tree/many"
echo data >"$work/tree/d/f"
head -c 20000 /dev/urandom >"$work/tree/d/g"
echo linked >"$work/tree/p/a"
ln "$work/tree/p/a" "$work/tree/p/b"
echo lone >"$work/tree/q/x"
echo more >"$work/tree/d/sub/y"
# /full: "." and "..", then 61 names of 64-byte dentries: its log page has
# 32 bytes left, so a name logged again takes a new page
for i in $(seq 100 160); do
	: >"$work/tree/full/name-of-15-$i"
done
# /many: two log pages
for i in $(seq 1 80); do
	echo "$i" >"$work/tree/many/file-$i"
done
base_image powercut

# errors: the sorted codes of fsck's ERROR lines (not the notices)
errors() { grep '^ERROR: ' | codes; }
# subset A B: every word of A is in B
subset() {
	local w
	for w in $1; do
		grep -qw -- "$w" <<<"$2" || return 1
	done
}

# dump IMAGE: what a user sees of it, sorted (nova_image dump).  A cut
# between the valid byte of a new /lost+found and its name leaves an
# empty directory without a name, which the next run moves into another
# new /lost+found: which inode /lost+found is, and such an empty
# directory in it, are not compared
dump() {
	"$helper" dump "$1" | sort |
		sed -E -e '\|^/lost\+found/#[0-9.]+ ino=[0-9]+ ftype=4 mode=040700 owner=0:0 links=2 .* names=0 |d' \
			-e 's|^(/lost\+found) ino=[0-9]+ (.*) links=[0-9]+ (.*) names=[0-9]+ |\1 \2 \3 |'
}

# cut1 FSCK N[:late|:eio]: $cut from $c, cut at N (or an I/O error at
# barrier N); false with $why if the run does not end with exit 8 there,
# if after an I/O error it says a repair was made, if the image left has
# an error the first run was not repairing ($want), if a next run does
# not complete the repair, or if the files then differ from what the
# uncut run left ($ref)
cut1() {
	local bin=$1 at=$2 got
	cp --sparse=always "$c" "$cut"
	run env NOVA_FSCK_TEST_POWERCUT="$at" "$bin" -fy "$cut"
	if [ "${at%:eio}" != "$at" ]; then
		# exit 8, 9 if repairs were made (said) before the error
		got=$(sed '/I\/O error at barrier /q' <<<"$out" | grep -c '^FIXED: ')
		if [ "$rc" -ne $((got ? 9 : 8)) ] ||
			! grep -q "I/O error at barrier " <<<"$out" ||
			! grep -q "writing the repairs failed" <<<"$out"; then
			why="I/O error at barrier ${at%:eio}: exit $rc, the error not reported"
			return 1
		fi
		got=$(sed -n '/I\/O error at barrier /,$p' <<<"$out" | grep -E '^(NOT )?FIXED: ')
		if [ -n "$got" ]; then
			why="I/O error at barrier ${at%:eio}: then says: $(head -n 1 <<<"$got")"
			return 1
		fi
	elif [ "$rc" -ne 8 ] || ! grep -q "power cut at " <<<"$out"; then
		why="cut at $at: exit $rc, no power cut"
		return 1
	fi
	got=$("$fsck" -fn "$cut" 2>&1 | errors)
	if ! subset "$got" "$want $init PR_SB_DIFFER"; then
		why="cut at $at ($ncommits commits, $nbarriers barriers): fsck -fn finds $got, the damage was $want (fsck -fn: $init)"
		return 1
	fi
	run "$fsck" -fy "$cut"
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		why="cut at $at: the next fsck -fy exits $rc"
		return 1
	fi
	run "$fsck" -fn "$cut"
	if [ "$rc" -ne 0 ]; then
		why="cut at $at: not clean after the next fsck -fy ($(errors <<<"$out"))"
		return 1
	fi
	got=$(diff <(dump "$cut") - <<<"$ref" | grep '^[<>]' | head -n 4)
	if [ -n "$got" ]; then
		why="cut at $at: then the files differ from the uncut run's: $(paste -sd' ' - <<<"$got")"
		return 1
	fi
}

# cut_all FSCK: $c injected; FSCK -fy on a copy says how many commits
# and barriers it makes and what it repairs ($want: the errors it
# reports, some of which only show once others are repaired; CODES, if
# given, the errors it must report), and what it leaves ($ref); then a
# cut at each commit (N), at each barrier (N:late, N:early) and after
# each store alone (N:torn:I), and an I/O error at each barrier (N:eio),
# each image checked.  Sets $ncommits, $nbarriers, $ntorn, $want, and
# $why to what went wrong (empty if nothing).
cut_all() {
	local bin=$1 codes=${2:-} n
	cut=$work/cut.img why="" ncommits=0 nbarriers=0 ntorn=0
	init=$("$fsck" -fn "$c" 2>&1 | errors)
	cp --sparse=always "$c" "$cut"
	log=$(NOVA_FSCK_TEST_POWERCUT=1000000 "$bin" -fy "$cut" 2>&1)
	want=$(errors <<<"$log")
	ncommits=$(sed -n 's/.*: \([0-9]*\) commits, [0-9]* barriers, no power cut.*/\1/p' <<<"$log")
	nbarriers=$(sed -n 's/.*: [0-9]* commits, \([0-9]*\) barriers, no power cut.*/\1/p' <<<"$log")
	sizes=$(sed -n 's/.*: stores before each barrier://p' <<<"$log")
	if [ -z "$ncommits" ] || [ $((ncommits + nbarriers)) -lt 1 ]; then
		why="no commit or barrier counted ($log)"
		return
	fi
	if [ -n "$codes" ] && [ "$want" != "$codes" ]; then
		why="the uncut run reports $want, not $codes"
		out=$log
		return
	fi
	ref=$(dump "$cut")
	for n in $(seq 1 "$ncommits"); do
		cut1 "$bin" "$n" || return
	done
	for n in $(seq 1 "$nbarriers"); do
		cut1 "$bin" "$n:late" || return
		cut1 "$bin" "$n:early" || return
		cut1 "$bin" "$n:eio" || return
	done
	n=0 ntorn=0
	for k in $sizes; do
		n=$((n + 1))
		for i in $(seq 1 "$k"); do
			cut1 "$bin" "$n:torn:$i" || return
			ntorn=$((ntorn + 1))
		done
	done
}

# powercut NAME CODES INJECTION...: the damage, then every cut checked;
# the uncut run must report the problems CODES (sorted), no other: a
# repair that damages more shows there
powercut() {
	local name=$1 codes=$2
	shift 2
	if ! injected "$@"; then
		fail "powercut: $name (injection failed)"
		return
	fi
	if [ -z "$("$fsck" -fn "$c" 2>&1 | errors)" ]; then
		fail "powercut: $name: fsck -fn finds no damage"
		return
	fi
	cut_all "$fsck" "$codes"
	if [ -z "$why" ]; then
		pass "powercut: $name ($want): cut at each of $ncommits commits, at each of $nbarriers barriers 3 ways and after each of $ntorn stores alone, an I/O error at each barrier: no new damage, the next run repairs, the files as the uncut run's"
	else
		fail "powercut: $name: $why"
		printf '%s\n' "$out" | tail -n 20 | indent
	fi
}

# the stale data of free blocks, on every image: a clean file system
if injected stale-free; then
	run "$fsck" -fn "$c"
	expect "powercut: free blocks with stale data: clean" 0
fi
run env NOVA_FSCK_TEST_POWERCUT=1 "$fsck" -fn "$c"
t "powercut: fsck -n: no commit, no cut" [ "$rc" = 0 ]
run env NOVA_FSCK_TEST_POWERCUT=x "$fsck" -fy "$c"
expect "powercut: a bad NOVA_FSCK_TEST_POWERCUT (exit 8)" 8 'not N, N:late, N:early, N:torn:I or N:eio'

# /full's log gets a new page for a name logged again (its file type)
info=$("$helper" info "$img" /full)
t "powercut: /full's log page has no room for another name" \
	[ $(($(sed -n 's/^tail=//p' <<<"$info") % 4096)) -gt $((4064 - 64)) ]

# the project quota file written anew (new blocks, write entries, one
# tail), after the clean flag of a clean unmount with project quotas
qinj=("projid /d/f 42 pi" "projid /d 7 lc" "projid /p/a 9 lc"
	"prjquota 16384 42:100:200:10:20 9:8:16:1:2 70000:1:2:3:4")
powercut "project quota tree rewritten, after a clean unmount" \
	"PR_PRJQUOTA_ENTRY PR_PRJQUOTA_REF" \
	"${qinj[@]}" "prjquota-tree ref 70000 1 =0:2" stale-free snapshot set-prjquota
# one name logged again (its file type): an I/O error in its repair
# must not leave the old entry dead without the new one committed
powercut "a name logged again (its file type)" PR_DENTRY_FTYPE \
	"ftype /full name-of-15-130" stale-free
# names: logged again (a new log page), removed, link counts, "..",
# orphans moved to a new /lost+found; an open journal transaction rolled
# back
powercut "names, link counts, '..', orphans into a new /lost+found" \
	"PR_DENTRY_BAD_INO PR_DENTRY_FTYPE PR_LINK_COUNT PR_ORPHAN" \
	"ftype /full name-of-15-130" "dentry-free /d ghost" "file-links /d/g 4" \
	"dir-links /many 7" "dotdot /d/sub /q" "orphan /q/x" "orphan /d/sub" \
	"journal /p/a" stale-free
# a data block of two files copied; log entries replaced by dead ones,
# truncated; dead marks cleared and set
powercut "a shared data block copied, bad entries, dead marks" \
	"PR_DATA_BLOCK_SHARED PR_LOG_DEAD_LIVE PR_LOG_ENTRY_CSUM PR_LOG_PAGE_COUNTS PR_ORPHAN" \
	"dup-block /d/g /p/a" "dead-flag /many file-20" "gc-selfck /many file-9" \
	"tail-counters /many" "last-csum /full" "mid-csum /many 10" stale-free
# a block flagged pages share (reflink), mapped by an unflagged page too:
# that page copied, logged without the flag
powercut "a shared block's unflagged page copied (reflink)" PR_DATA_SHARED_UNFLAGGED \
	"clone /d/g /q/x 1 0 2 0" stale-free
# a live entry marked dead, alone in its log: the dead counts cleared
# before the marks
powercut "a live entry marked dead" PR_LOG_DEAD_LIVE "dead-flag /many file-20" stale-free
# a new journal, a table next pointer, the super block and reserved
# inodes' copies
powercut "a new journal, an inode table, super block copies" \
	"PR_ITABLE_BAD_NEXT PR_JOURNAL_BAD_PTRS PR_RESERVED_REPLICA PR_SB_DIFFER" \
	"journal-head" "itable-next-range" "sb-differ" "reserved-replica" stale-free
# the invalid project ID, set to 0 by a link-change entry (the root's
# keeps PROJINHERIT; /full's takes a new log page, at the end of pass 4)
powercut "project ID 4294967295" PR_INODE_PROJID \
	"projid /d/f 4294967295 lc" "projid /q/x 4294967295 pi" \
	"projid / 4294967295 lc 0x20000000" "projid /full 4294967295 pi" stale-free

# the same without the ordering: the model must see the damage
if ! command -v "${CC:-cc}" >/dev/null; then
	skip "powercut: a fsck.nova without the ordering (no C compiler)"
elif ! "${CC:-cc}" -O2 -std=gnu11 -DNV_TEST_UNORDERED -DNOVA_VERSION='"unordered"' \
	-I"$tools" -o "$work/fsck.unordered" "$tools"/fsck/*.c "$tools/libnova.c" \
	"$tools/nova_tools.c" 2>"$work/cc.log"; then
	fail "powercut: a fsck.nova without the ordering does not build"
	indent <"$work/cc.log"
else
	for k in quota names; do
		if [ $k = quota ]; then
			injected "${qinj[@]}" "prjquota-tree ref 70000 1 =0:2" stale-free \
				snapshot set-prjquota
		else
			injected "ftype /full name-of-15-130" "orphan /q/x" stale-free
		fi
		cut_all "$work/fsck.unordered"
		if [ -n "$why" ]; then
			pass "powercut: without the ordering ($k) the model sees damage: $why"
		else
			fail "powercut: without the ordering ($k), no cut of $ncommits commits and $nbarriers barriers left new damage"
		fi
	done
fi

unit_done powercut
