#!/bin/bash
# Host tests of mkfs.nova -d, fsck.nova and libnova on image files (no
# kernel).
#
#   test_fsck.sh TOOLS_DIR NOVA_IMAGE WORKDIR
#
# TOOLS_DIR holds the built mkfs.nova and fsck.nova, NOVA_IMAGE is the
# built tests/unit/nova_image helper (reader check and corruption
# injector).  Prints one PASS/FAIL line per case and "fsck: N passed, N
# failed"; exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

reader() {	# reader IMAGE TREE: the image holds exactly the tree
	"$helper" check-tree "$1" "$2" >"$work/reader.out" 2>&1
}
incompat() { le64 "$1" 128; }	# s_feature_incompat
# infof IMAGE PATH KEY: one fact of nova_image info
infof() { "$helper" info "$1" "$2" | sed -n "s/^$3=//p"; }
# sx FILE NAME VALUE: set an xattr on the host (nova_image setxattr)
sx() {
	"$helper" setxattr "$@" 2>>"$work/setxattr.log" ||
		fail "setxattr $1 $2 on the source tree"
}

rm -rf "$work"
mkdir -p "$work"
src=$work/tree
img=$work/base.img
M64=$((64 << 20))
"$here/mktree.sh" "$src"

# Extended attributes on the tree, which mkfs -d copies and the reader
# check compares: user.* where the host keeps them (ext4 keeps a block's
# worth per file), trusted.* and security.* as root, POSIX ACLs (the VFS
# xattr form: u::rw-,u:1234:r--,g::r--,m::r--,o::---) where the host
# has them.  64 KiB values need a tmpfs source (below).
acl=hex:0200000001000600ffffffff02000400d204000004000400ffffffff10000400ffffffff20000000ffffffff
xattrs=0 acls=0
if "$helper" setxattr "$src/sizes/s100" user.comment "a small one" 2>"$work/setxattr.log"; then
	xattrs=1
	sx "$src/sizes/s100" user.mime_type text/plain
	sx "$src/sizes/s8192" user.p3 fill:3990		# 3 parts
	sx "$src/many" user.dir-attr "of a directory with a multi-page log"
	sx "$src/deep/level1/level2" user.empty ""
	sx "$src" user.root "of the root"
	for i in $(seq 1 40); do
		sx "$src/many/file-1" "user.n$i" "value $i"
	done
	if [ "$(id -u)" -eq 0 ]; then
		sx "$src/links/one-byte" trusted.on-a-symlink t
		sx "$src/special-fifo" security.label "on a fifo"
	fi
	if "$helper" setxattr "$src/deep" system.posix_acl_access "$acl" 2>>"$work/setxattr.log"; then
		acls=1
		sx "$src/deep" system.posix_acl_default "$acl"
		sx "$src/sizes/s65536" system.posix_acl_access "$acl"
	else
		skip "POSIX ACLs: the host file system does not keep them ($(tail -n 1 "$work/setxattr.log"))"
	fi
else
	skip "xattrs: the host file system does not keep user.* xattrs ($(cat "$work/setxattr.log")): no xattr in the tree"
fi

# --- a fresh file system is clean ---
rm -f "$work/empty.img"
truncate -s $M64 "$work/empty.img"
"$mkfs" -q "$work/empty.img"
run "$fsck" -n "$work/empty.img"
expect "fsck: new file system is clean (-n, exit 0)" 0 'empty.img: 1 inodes, [0-9]+/16384 blocks'
before=$(sum "$work/empty.img")
run "$fsck" -fy "$work/empty.img"
expect "fsck: -y on a clean file system exits 0" 0
t "fsck: -y on a clean file system writes nothing" [ "$(sum "$work/empty.img")" = "$before" ]

# --- mkfs -d: a tree of a few hundred entries ---
rm -f "$img"
truncate -s $M64 "$img"
run "$mkfs" -c 3 -L tree -d "$src" "$img"
expect "mkfs -d: copies the tree" 0 'Copying files from .*: done'
nentries=$(find "$src" | wc -l)
t "mkfs -d: the tree has a few hundred entries ($nentries)" [ "$nentries" -ge 200 ]
run "$fsck" -fn "$img"
expect "mkfs -d: fsck -n finds the file system clean" 0 'base.img: [0-9]+ inodes'
if reader "$img" "$src"; then
	pass "mkfs -d: reader check: $(sed -n 's/^PASS reader: //p' "$work/reader.out")"
else
	fail "mkfs -d: reader check"
	indent <"$work/reader.out"
fi
info=$("$helper" info "$img" /many)
t "mkfs -d: the 200-name directory's log spans several pages" \
	[ "$(sed -n 's/^pages=//p' <<<"$info")" -ge 3 ]
info=$("$helper" info "$img" /sparse/fragmented)
t "mkfs -d: the fragmented sparse file has 300 write entries" \
	[ "$(sed -n 's/^entries=//p' <<<"$info")" -eq 300 ]
t "mkfs -d: the 4095-byte symlink" \
	[ "$("$helper" info "$img" /links/long-4095 | sed -n 's/^size=//p')" -eq 4095 ]

# --- mkfs -d: extended attributes (the reader check compares them all) ---
if [ "$xattrs" = 1 ]; then
	t "mkfs -d xattrs: NOVA_FEATURE_INCOMPAT_XATTR set" [ "$(incompat "$img")" = 1 ]
	t "mkfs -d xattrs: the root's" [ "$(infof "$img" / xattrs)" = 1 ]
	t "mkfs -d xattrs: 40 on one file" [ "$(infof "$img" /many/file-1 xattrs)" = 40 ]
	t "mkfs -d xattrs: a 3990-byte value in 3 entries" \
		[ "$(infof "$img" /sizes/s8192 xattr_entries)" = 3 ]
	t "mkfs -d xattrs: an empty value, on a directory" \
		[ "$(infof "$img" /deep/level1/level2 xattrs)" = 1 ]
	if [ "$(id -u)" -eq 0 ]; then
		t "mkfs -d xattrs: trusted.* of a symlink" \
			[ "$(infof "$img" /links/one-byte xattrs)" = 1 ]
		t "mkfs -d xattrs: security.* of a fifo" \
			[ "$(infof "$img" /special-fifo xattrs)" = 1 ]
	fi
	if [ "$acls" = 1 ]; then
		t "mkfs -d xattrs: access and default ACLs of a directory" \
			[ "$(infof "$img" /deep xattrs)" = 2 ]
	fi
	run "$fsck" -fnv "$img"
	expect "fsck -v lists an inode's xattrs" 0 'inode [0-9]+: xattr user\.comment, 11 bytes "a small one"'
	t "fsck -v: a value too long to show: its size" \
		grep -qE 'inode [0-9]+: xattr user\.p3, 3990 bytes$' <<<"$out"
	if [ "$acls" = 1 ]; then
		t "fsck -v: an ACL by its VFS name" \
			grep -qE 'xattr system\.posix_acl_default, 44 bytes$' <<<"$out"
	fi
	t "fsck -v: the count" grep -qE '^[0-9]+ extended attributes, [0-9]+ xattr log entries$' <<<"$out"
	rm -f "$work/noxattr.img"
	truncate -s $M64 "$work/noxattr.img"
	run "$mkfs" -d "$src/empty-dir" "$work/noxattr.img"
	if grep -q ' 0 extended attributes' <<<"$out"; then
		t "mkfs -d without xattrs: no feature bit" [ "$(incompat "$work/noxattr.img")" = 0 ]
	else
		skip "mkfs -d without xattrs: the host labels every file"
	fi
	rm -f "$work/noxattr.img"
fi

# 64 KiB values: a tmpfs source keeps them (ext4 at most a block)
shm=$(mktemp -d /dev/shm/nova-unit.XXXXXX 2>/dev/null) || shm=
if [ -n "$shm" ] && "$helper" setxattr "$shm" user.probe x 2>/dev/null &&
   "$helper" setxattr "$shm" user.probe fill:65536 2>/dev/null; then
	mkdir "$shm/d"
	: >"$shm/d/f"
	sx "$shm/d/f" user.big fill:65536
	sx "$shm/d/f" "user.$(head -c 250 /dev/zero | tr '\0' L)" fill:65536
	rm -f "$work/big64.img"
	truncate -s $M64 "$work/big64.img"
	run "$mkfs" -q -d "$shm" "$work/big64.img"
	expect "mkfs -d: 64 KiB values (from tmpfs)" 0
	run "$fsck" -fn "$work/big64.img"
	expect "mkfs -d, 64 KiB values: fsck clean" 0
	t "mkfs -d, 64 KiB values: reader check" reader "$work/big64.img" "$shm"
	# 34 parts each (1981 or 1734 bytes in part 0), two 2032-byte parts a page
	is "mkfs -d, 64 KiB values: 68 entries" \
		"$(infof "$work/big64.img" /d/f xattr_entries)" 68
	pages=$(infof "$work/big64.img" /d/f xattr_pages)
	t "mkfs -d, 64 KiB values: ... over 34 or more log pages ($pages)" \
		[ "${pages:-0}" -ge 34 ]
	t "mkfs -d, 64 KiB values: 64 KiB on the root" [ "$(infof "$work/big64.img" / xattrs)" = 1 ]
	rm -f "$work/big64.img"
else
	skip "mkfs -d of 64 KiB xattr values: no tmpfs in /dev/shm that keeps them"
fi
[ -n "$shm" ] && rm -rf "$shm"

# names NOVA does not keep, and a source without xattr support (an
# LD_PRELOAD shim answers llistxattr() for the source file system)
if cc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$work/xattr_shim.so" \
	"$here/xattr_shim.c" -ldl 2>"$work/shim.log"; then
	rm -f "$work/shim.img"
	truncate -s $M64 "$work/shim.img"
	run env LD_PRELOAD="$work/xattr_shim.so" NOVA_TEST_XATTR=extra \
		"$mkfs" -q -d "$src/sizes" "$work/shim.img"
	expect "mkfs -d: a name NOVA does not keep is skipped with a warning" 0 \
		'sizes/s100: extended attribute system\.nfs4_acl skipped'
	t "mkfs -d: ... and the others copied (reader check)" reader "$work/shim.img" "$src/sizes"
	run env LD_PRELOAD="$work/xattr_shim.so" NOVA_TEST_XATTR=enotsup \
		"$mkfs" -q -f -d "$src/sizes" "$work/shim.img"
	expect "mkfs -d: a source without xattr support" 0
	is "mkfs -d: ... silently" "$out" ""
	is "mkfs -d: ... copies none" "$(infof "$work/shim.img" /s100 xattrs)" 0
	is "mkfs -d: ... and sets no feature bit" "$(incompat "$work/shim.img")" 0
	rm -f "$work/shim.img"
else
	fail "the llistxattr shim does not build"
	indent <"$work/shim.log"
fi

# other geometries: one stripe; 1 GiB (2 MiB inode table blocks)
rm -f "$work/one.img"
truncate -s 48M "$work/one.img"
run "$mkfs" -q -c 1 -d "$src" "$work/one.img"
expect "mkfs -d: one stripe" 0
run "$fsck" -fn "$work/one.img"
expect "mkfs -d, one stripe: fsck clean" 0
t "mkfs -d, one stripe: reader check" reader "$work/one.img" "$src"
rm -f "$work/big.img"
truncate -s 1G "$work/big.img"
run "$mkfs" -q -c 4 -d "$src" "$work/big.img"
expect "mkfs -d: 1 GiB, 2 MiB inode table blocks" 0
run "$fsck" -fn "$work/big.img"
expect "mkfs -d, 1 GiB: fsck clean" 0
t "mkfs -d, 1 GiB: reader check" reader "$work/big.img" "$src"
rm -f "$work/big.img" "$work/one.img"

# mkfs -d errors
rm -f "$work/small.img"
truncate -s 2M "$work/small.img"
run "$mkfs" -q -d "$src" "$work/small.img"
expect "mkfs -d: a tree that does not fit fails" 1 'no space left'
run "$mkfs" -q -f -d "$work/missing-dir" "$work/small.img"
expect "mkfs -d: missing source directory" 1 'No such file'
run "$mkfs" -q -f -d "$src/.hidden" "$work/small.img"
expect "mkfs -d: source is not a directory" 1 'not a directory'

# --- injected corruptions ---
# Each problem line of fsck.nova ends with its code, "[PR_...]"
# (src/tools/fsck/problem.h): the cases are keyed by code (codes, lib.sh).
# sorted WORDS: the space-separated WORDS, sorted, one space apart
sorted() { tr -s ' ' '\n' <<<"$1" | sort -u | paste -sd' ' -; }

# case NAME CODES PROBLEM-PATTERN FIX-PATTERN LOSSLESS INJECT-ARGS...
#   fsck -n must exit 4, report exactly the problem codes CODES (a
#   space-separated set) and print the problem (and leave the image as it
#   was), fsck -y must exit 1 and print what it did, on a line of one of
#   CODES, and fsck -n must then exit 0.  LOSSLESS=1: the repaired image
#   must still hold exactly the source tree.
case_() {
	local name=$1 want ppat=$3 fpat=$4 lossless=$5 why="" got
	want=$(sorted "$2")
	shift 5
	local c=$work/case.img
	cp --sparse=always "$img" "$c"
	if ! "$helper" inject "$c" "$@" >"$work/inject.out" 2>&1; then
		fail "corruption: $name (injection failed)"
		indent <"$work/inject.out"
		return
	fi
	local sum0 n1 rc1 y out2 rc2
	sum0=$(sum "$c")
	n1=$("$fsck" -fn "$c" 2>&1)
	rc1=$?
	got=$(codes <<<"$n1")
	[ "$rc1" -eq 4 ] || why="fsck -n exit $rc1, expected 4"
	[ -z "$why" ] && [ "$got" != "$want" ] && why="fsck -n reports $got, expected $want"
	[ -z "$why" ] && ! grep -qE -- "$ppat" <<<"$n1" && why="fsck -n lacks /$ppat/"
	[ -z "$why" ] && [ "$(sum "$c")" != "$sum0" ] && why="fsck -n changed the image"
	if [ -z "$why" ]; then
		y=$("$fsck" -fy "$c" 2>&1)
		rc2=$?
		[ "$rc2" -eq 1 ] || why="fsck -y exit $rc2, expected 1"
		[ -z "$why" ] && ! grep -qE -- "FIXED: .*$fpat.* \[(${want// /|})\]$" <<<"$y" &&
			why="fsck -y lacks /FIXED: .*$fpat/ of ${want// / or }"
	fi
	if [ -z "$why" ]; then
		out2=$("$fsck" -fn "$c" 2>&1) ||
			why="fsck -n after the repair is not clean"
	fi
	if [ -z "$why" ] && [ "$lossless" = 1 ] && ! reader "$c" "$src"; then
		why="the repaired image no longer matches the source tree"
		out2=$(cat "$work/reader.out")
	fi
	if [ -z "$why" ]; then
		pass "corruption: $name ($want)"
	else
		fail "corruption: $name: $why"
		{ echo "--- fsck -n:"; printf '%s\n' "$n1"
		  [ -n "${y:-}" ] && { echo "--- fsck -y:"; printf '%s\n' "$y"; }
		  [ -n "${out2:-}" ] && { echo "--- after:"; printf '%s\n' "$out2"; }
		} | indent
	fi
}

# crash_state NAME CODE NOTICE FIXED INJECTION...: a state that a power
# cut leaves and mount repairs (not an error, a PR_NOTICE problem): fsck
# -n reports only CODE, with NOTICE, and exits 0, fsck -y repairs it
# (FIXED, on a line of CODE; exit 1), and the image is then clean.
crash_state() {
	local name=$1 code=$2 notice=$3 fixed=$4 c=$work/crash-state.img out y rc yrc
	shift 4
	cp --sparse=always "$img" "$c"
	if ! "$helper" inject "$c" "$@" >"$work/inject.out" 2>&1; then
		fail "$name (injection failed)"
		return
	fi
	out=$("$fsck" -fn "$c" 2>&1)
	rc=$?
	y=$("$fsck" -fy "$c" 2>&1)
	yrc=$?
	if [ "$rc" -eq 0 ] && [ "$(codes <<<"$out")" = "$code" ] &&
	   grep -qE -- "$notice.* \[$code\]$" <<<"$out" &&
	   [ "$yrc" -eq 1 ] && grep -qE -- "FIXED: .*$fixed.* \[$code\]$" <<<"$y" &&
	   "$fsck" -fn "$c" >/dev/null 2>&1; then
		pass "$name ($code): -n exit 0, -y repairs it (exit 1), then clean"
	else
		fail "$name: -n exit $rc ($(codes <<<"$out"), expected $code), -y exit $yrc"
		{ printf '%s\n' "$out" "--- -y:" "$y"; } | indent
	fi
}


case_ "primary super block garbage" "PR_SB_PRIMARY_BAD" 'primary super block is invalid \(bad magic' \
	'primary super block rewritten from the replica' 1 sb-garbage
case_ "replica super block garbage" "PR_SB_REPLICA_BAD" 'replica super block \(block [0-9]+\) is invalid' \
	'replica super block rewritten' 1 replica-garbage
case_ "super block checksum" "PR_SB_PRIMARY_BAD" 'primary super block is invalid \(bad checksum' \
	'rewritten from the replica' 1 sb-csum
case_ "reserved inodes' replica differs" "PR_RESERVED_REPLICA" 'replica of the reserved inodes .* differs' \
	'replica of the reserved inodes rewritten' 1 reserved-replica
case_ "unknown super block state bit" "PR_SB_STATE_BITS" 'super block state 0x100 has unknown bits' \
	'unknown super block state bits cleared' 1 sb-state
case_ "super block copies that differ" "PR_SB_DIFFER" 'primary and replica super blocks differ' \
	'replica super block rewritten from the primary' 1 sb-differ
case_ "root inode not valid" "PR_ROOT_BAD PR_RESERVED_REPLICA PR_ORPHAN" 'root inode is invalid \(not valid\)' \
	'root inode restored from the replica block' 1 root-invalid
case_ "reserved inode slot with a wrong inode number" "PR_RESERVED_REPLICA PR_RESERVED_SLOT_INO" \
	'reserved inode slot 10 holds inode number 77' 'reserved inode slot 10 cleared' 1 reserved-slot
case_ "inode table next pointer out of range" "PR_ITABLE_BAD_NEXT" 'inode table block 0x[0-9a-f]+: next pointer .* outside the data area' \
	'inode table ends at block' 1 itable-next-range
case_ "inode table loop" "PR_ITABLE_BAD_NEXT" 'next pointer 0x[0-9a-f]+ points to an inode table block \(loop\)' \
	'inode table ends at block' 1 itable-loop
case_ "log page next pointer out of range" "PR_LOG_BAD_NEXT" 'log page 0x[0-9a-f]+: next pointer .* outside the data area' \
	'log ends at page' 1 log-next-range /many
case_ "log loop" "PR_LOG_BAD_NEXT" 'next pointer 0x[0-9a-f]+ points back into the log \(loop\)' \
	'log ends at page' 1 log-loop /sparse/fragmented
case_ "log tail outside the chain" "PR_LOG_TAIL_OUTSIDE" 'log tail 0x[0-9a-f]+ is not in the log' \
	'log tail set to 0x[0-9a-f]+, after its last valid entry' 1 log-tail-outside /sizes/s65537
case_ "bad checksum of the last entry (truncate)" "PR_LOG_ENTRY_CSUM" 'file write entry at 0x[0-9a-f]+ has a bad checksum' \
	'log truncated to 0x[0-9a-f]+' 0 last-csum /sizes/s200000
case_ "bad checksum inside a directory log (neutralized, later names kept)" "PR_LINK_COUNT PR_LOG_ENTRY_CSUM PR_ORPHAN" 'directory entry at 0x[0-9a-f]+ has a bad checksum' \
	'replaced by a dead entry that changes nothing, keeping the entries after it' 0 mid-csum /many 60
case_ "bad checksum inside a file log (neutralized)" "PR_LOG_ENTRY_CSUM" 'file write entry at 0x[0-9a-f]+ has a bad checksum' \
	'replaced by a dead entry that changes nothing' 0 mid-csum /sparse/fragmented 100
case_ "entry of unknown type" "PR_LINK_COUNT PR_LOG_ENTRY_BAD" 'entry at 0x[0-9a-f]+ has unknown type 127' \
	'log truncated to' 0 last-type /many
case_ "trans_id not increasing" "PR_LOG_ENTRY_TID" 'has trans_id 1, not above 299' \
	'log truncated to' 0 tid /sparse/fragmented
case_ "log head out of range" "PR_LOG_BAD_HEAD" 'log head 0x[0-9a-f]+ is outside the data area' \
	'log cleared' 0 log-head /sizes/s8193
case_ "log tail without a log" "PR_LOG_TAIL_NO_HEAD" 'log tail 0x[0-9a-f]+ is set but the log has no pages' \
	'log tail cleared' 0 tail-no-head /sizes/s100
case_ "dentry pointing to a free inode" "PR_DENTRY_BAD_INO" "entry 'ghost' points to a free inode" \
	"entry 'ghost' removed" 1 dentry-free /deep ghost
case_ "wrong file link count" "PR_LINK_COUNT" 'link count 7, should be 3' \
	'link count set to 3' 1 file-links /links/hard-a 7
case_ "wrong directory link count" "PR_LINK_COUNT" 'directory /many\): link count 9, should be 2' \
	'link count set to 2' 1 dir-links /many 9
case_ "orphan inode (valid, no name, links > 0)" "PR_ORPHAN" 'inode [0-9]+ \(regular file, link count 1\) has no name' \
	'moved to /lost\+found/#[0-9]+' 0 orphan /sizes/s4097
case_ "orphan directory with contents" "PR_LINK_COUNT PR_ORPHAN" 'inode [0-9]+ \(directory, link count 3\) has no name' \
	'inode [0-9]+ \(directory\) moved to /lost\+found' 0 orphan /deep/level1
crash_state "orphan with link count 0" "PR_ORPHAN_UNLINKED" 'has no name and link count 0' \
	'freed \(as the kernel would at mount\)' orphan0 /many/file-33
crash_state "rmdir cut short (directory, link count 0)" "PR_ORPHAN_UNLINKED" \
	'inode [0-9]+ \(directory\) has no name and link count 0' \
	'freed \(as the kernel would at mount\)' orphan0 /empty-dir
case_ "a block used by two files" "PR_DATA_BLOCK_SHARED" 'data block [0-9]+ of file page 0 is also used by' \
	'file page 0 copied to block' 0 dup-block /sizes/s8192 /sizes/s12288
crash_state "uncommitted journal transaction" "PR_JOURNAL_OPEN" \
	'stripe 0: uncommitted journal transaction \(1 entry\)' \
	'stripe 0: rolled back 1 journal entry' journal /many/file-5
case_ "journal transaction with a corrupt entry" "PR_JOURNAL_CORRUPT" 'journal transaction with a corrupt entry' \
	'discarded the corrupt rest' 1 journal-corrupt /sizes/s1
case_ "journal entry whose address wraps past 2^64 (was a crash)" "PR_JOURNAL_CORRUPT" 'journal transaction with a corrupt entry' \
	'discarded the corrupt rest' 1 journal-wrap /sizes/s1
case_ "journal tail misaligned" "PR_JOURNAL_BAD_PTRS" 'stripe 0: journal pointers \(head 0x[0-9a-f]+, tail 0x[0-9a-f]+\) are invalid' \
	'stripe 0: journal emptied \(tail set to head' 1 journal-tail
case_ "journal head outside the data area" "PR_JOURNAL_BAD_PTRS" 'stripe 0: journal pointers .* are invalid' \
	'stripe 0: new empty journal at block [0-9]+' 1 journal-head
case_ "journal in an inode table block" "PR_JOURNAL_PAGE_USED" "stripe 0: journal page [0-9]+ is stripe 0's inode table" \
	'stripe 0: new empty journal at block [0-9]+' 1 journal-table
case_ "bad '..'" "PR_DOTDOT" "'\\.\\.' is inode [0-9]+, should be [0-9]+" \
	"'\\.\\.' set to" 1 dotdot /deep/level1/level2 /many
case_ "dentry file type differs from the inode" "PR_DENTRY_FTYPE" "entry 'data1' has file type 12, but inode [0-9]+ is a regular file" \
	"entry 'data1' rewritten with file type 8" 1 ftype /deep/level1 data1
case_ "directory hard link" "PR_DIR_HARDLINK" "has 2 names: 'alias' in directory" \
	"entry 'alias' removed" 1 dir-hardlink /empty-dir /deep/level1/level2 alias
case_ "directory cycle unreachable from the root" "PR_DIR_CYCLE PR_DOTDOT PR_LINK_COUNT" 'is in a cycle of directories unreachable from the root' \
	'moved to /lost\+found' 0 cycle /deep/level1/level2 /deep/level1/level2/level3
case_ "duplicate readdir cookie" "PR_DENTRY_COOKIE" "entries 'file-1' and 'file-2' have the same readdir cookie" \
	"entry 'file-2' rewritten with a new cookie" 1 dup-cookie /many file-1 file-2
case_ "live dentry marked dead" "PR_LOG_DEAD_LIVE PR_ORPHAN" 'log entries marked dead are still live' \
	'dead marks cleared from 1 log entries' 1 dead-flag /many file-100
case_ "page-tail counters that would let GC free live entries" "PR_LOG_PAGE_COUNTS" 'its tail counts [0-9]+ entries, [0-9]+ dead, but it holds' \
	'tail counts corrected' 1 tail-counters /many
case_ "inode slot with a wrong inode number" "PR_DENTRY_BAD_INO PR_SLOT_INO" 'inode slot [0-9]+ holds inode number' \
	'inode slot [0-9]+ cleared' 0 ino-mismatch /sizes/s100
case_ "symlink without a valid target" "PR_DENTRY_BAD_INO PR_INODE_REJECTED" 'symlink has no valid target' \
	'inode [0-9]+ cleared' 0 bad-symlink /links/long-4095
case_ "inode with a bad mode" "PR_DENTRY_BAD_INO PR_INODE_BAD_MODE" 'bad mode 0644' 'inode [0-9]+ cleared' 0 bad-mode /special-fifo
case_ "write entry counting too many superseded pages" "PR_WRITE_SUPERSEDED" 'count more superseded pages than there are' \
	'superseded page counts corrected in 1 write entry' 1 invalid-pages /sizes/three-mib
case_ "write entry with an unknown flag" "PR_LOG_ENTRY_REJECTED" 'file write entry at 0x[0-9a-f]+ is invalid \(.*flags 0x80\)' \
	'log truncated to 0x[0-9a-f]+, dropping the entry' 0 write-flags /sizes/three-mib 0x80
crash_state "name re-logged with its own cookie (interrupted log rewrite)" "PR_DIR_RELOGGED" 'logged twice with the same readdir cookie' \
	'superseded entries marked dead' gc-selfck /many file-9
crash_state "stale clean-unmount snapshot" "PR_SNAPSHOT_STALE" \
	'reserved inode 3 holds a stale clean-unmount snapshot' \
	'stale snapshot in reserved inode 3 discarded' snapshot-stale
case_ "clean-unmount snapshot listing a used block as free" "PR_SNAPSHOT_BAD" 'clean-unmount snapshot unusable: .*1 used block\(s\) listed as free' \
	'clean-unmount snapshot discarded and clean flag cleared' 1 snapshot-bad /sizes/s8192
# a consistent snapshot changed in place, as the guest tests change the
# kernel's (tests/guest/073-snapshot-inode-free.sh, 074-snapshot-fallback.sh)
c=$work/case.img
reported "clean-unmount snapshot listing an inode in use as free" "PR_SNAPSHOT_BAD" \
	'clean-unmount snapshot unusable: .* 1 inode\(s\) in use listed as free' \
	snapshot "snapshot-drop-ino /sizes/s100"
reported "clean-unmount snapshot listing a journal page and a log page as free" "PR_SNAPSHOT_BAD" \
	'clean-unmount snapshot unusable: .*: 2 used block\(s\) listed as free' \
	snapshot "snapshot-free-used /many"
# a chain with a page its first page does not count, or (as a module
# that counted the pages by the records left it) no count and a page
# more than the records fill: the next mount would not free that page
reported "clean-unmount snapshot with a page more than it says" "PR_SNAPSHOT_BAD" \
	'clean-unmount snapshot unusable: free-block snapshot .*: it has more pages than it says' \
	snapshot snapshot-extra-page
reported "clean-unmount snapshot without a page count, a page more than its records fill" "PR_SNAPSHOT_BAD" \
	'clean-unmount snapshot unusable: free-block snapshot .*: it has more pages than it says' \
	snapshot "snapshot-extra-page old"

crash_state "directory log in a thorough GC's crash window" "PR_DIR_RELOGGED" 'directory [0-9]+: 201 live name\(s\) logged twice with the same readdir cookie' \
	'the 201 superseded entries marked dead' gc-window /many

# extended attributes: malformed groups (xattr-bad: one appended, then a
# link-change entry that changes nothing, which the repair keeps)
if [ "$xattrs" = 1 ]; then
	# rejected NAME PATTERN PATH KIND: fsck -n reports the xattr-bad KIND
	# entry in PATH's log (PATTERN); the repair replaces it by a dead entry
	# and loses nothing
	rejected() {
		case_ "xattr: $1" PR_LOG_ENTRY_REJECTED "$2" \
			'replaced by a dead entry that changes nothing, keeping the entries after it' \
			1 xattr-bad "$3" "$4"
	}
	rejected "unknown name index" 'xattr entry at 0x[0-9a-f]+ has an unknown name index 7' /sizes/s100 index
	rejected "a POSIX ACL with a name" 'the POSIX ACL system\.posix_acl_access has a 3-byte name' /sizes/s100 acl-name
	rejected "an empty user name" 'has an empty name in the user\. namespace' /sizes/s100 empty-name
	rejected "a value over 64 KiB" 'user\.bad has a value of 65540 bytes \(at most 65536\)' /sizes/s100 value-len
	rejected "unknown flag bits" 'xattr entry at 0x[0-9a-f]+ has unknown flags 0x40' /sizes/s100 flags
	rejected "a removal carrying a value" 'removes user\.bad but carries a 4-byte value' /sizes/s100 remove-value
	rejected "part 2 missing, in a directory's log" 'xattr user\.bad at 0x[0-9a-f]+: part 2 expected, part 3 found' /many part-seq
	rejected "a later part with a name" 'its part 2 at 0x[0-9a-f]+ has a name' /sizes/s100 part-name
	rejected "a later part of another namespace" 'its part 2 at 0x[0-9a-f]+ has another name index' /sizes/s100 part-index
	rejected "parts that carry more than the value" 'its parts carry more than its 300 value bytes' /sizes/s100 sum
	rejected "a value that does not match its checksum" 'xattr user\.bad at 0x[0-9a-f]+: its value does not match its checksum' /sizes/s100 value-csum
	rejected "a group interrupted by another entry" 'part 2 missing, a link-change entry at 0x[0-9a-f]+ comes first' /sizes/s100 interrupted
	case_ "xattr: the log ends inside a group (truncated before it)" "PR_LOG_XATTR_END" \
		'the log ends after its part 1, with 200 of its 300 value bytes' \
		'log truncated to 0x[0-9a-f]+' 1 xattr-bad /sizes/s100 end
	case_ "xattr: a bad entry checksum inside a group" "PR_LOG_ENTRY_CSUM" 'xattr entry at 0x[0-9a-f]+ has a bad checksum' \
		'and part 0 of its xattr group at 0x[0-9a-f]+ replaced by dead entries that change nothing' \
		1 xattr-bad /sizes/s100 entry-csum
	case_ "xattr: a live group marked dead" "PR_LOG_DEAD_LIVE" \
		'log entries marked dead are still live \(1 extended attributes instead of 2\)' \
		'dead marks cleared from 1 log entries' 1 xattr-dead /sizes/s100 user.comment
	case_ "xattr: the super block lacks the xattr feature" "PR_XATTR_FEATURE" \
		'[0-9]+ log entries hold extended attributes, but the super block lacks the xattr feature' \
		'xattr feature \(NOVA_FEATURE_INCOMPAT_XATTR\) set in the super block' 1 clear-feature
	c=$work/case.img
	cp --sparse=always "$img" "$c"
	"$helper" inject "$c" clear-feature
	run "$fsck" -p "$c"
	expect "fsck -p sets the missing xattr feature (exit 1)" 1 'FIXED: xattr feature.* \[PR_XATTR_FEATURE\]$'
	t "fsck -p: the feature bit set" [ "$(incompat "$c")" = 1 ]
fi

# --- a file system smaller than its image (mkfs.nova fs-size) ---
sized=$work/sized.img
rm -f "$sized"
truncate -s $((2 * M64)) "$sized"
run "$mkfs" -q -c 2 -d "$src" "$sized" 64M
expect "fs-size: mkfs -d of a 64 MiB file system on a 128 MiB image" 0
run "$fsck" -fn "$sized"
expect "fs-size: fsck -n finds it clean, 16384 blocks" 0 'sized.img: [0-9]+ inodes, [0-9]+/16384 blocks'
run "$fsck" -fnv "$sized"
expect "fs-size: fsck -v says where it ends" 0 'the file system ends 16384 blocks before the device.s end'
t "fs-size: reader check" reader "$sized" "$src"
full=$img
img=$sized
case_ "fs-size: primary super block garbage: the replica found by a search" "PR_SB_PRIMARY_BAD" \
	'primary super block is invalid \(bad magic number\); the replica in block 16383 is valid' \
	'primary super block rewritten from the replica' 1 sb-garbage
case_ "fs-size: primary checksum: the replica its size names" "PR_SB_PRIMARY_BAD" \
	'primary super block is invalid \(bad checksum\); the replica in block 16383' \
	'rewritten from the replica' 1 sb-csum
case_ "fs-size: replica super block garbage" "PR_SB_REPLICA_BAD" 'replica super block \(block 16383\) is invalid' \
	'replica super block rewritten' 1 replica-garbage
case_ "fs-size: reserved inodes' replica differs" "PR_RESERVED_REPLICA" 'replica of the reserved inodes \(block 16382\) differs' \
	'replica of the reserved inodes rewritten' 1 reserved-replica
img=$full
c=$work/case.img
cp --sparse=always "$sized" "$c"
"$helper" inject "$c" sb-garbage
run "$fsck" -fn "$c"
expect "fs-size: the search is reported" 4 'replica super block found in block 16383 by a search of 16384 blocks'
run "$fsck" -p "$c"
expect "fs-size: fsck -p repairs the primary from the replica (exit 1)" 1 'FIXED: primary super block.* \[PR_SB_PRIMARY_BAD\]$'
run "$fsck" -fn "$c"
expect "fs-size: clean after -p" 0 'case.img: [0-9]+ inodes, [0-9]+/16384 blocks'
cp --sparse=always "$sized" "$c"
dd if=/dev/zero of="$c" bs=4096 count=2 conv=notrunc status=none
run "$fsck" -fn "$c"
expect "fs-size: blocks 0 and 1 zeroed: nothing left to say NOVA, no search (exit 8)" 8 \
	'no valid NOVA super block \(primary: bad magic number; replica: bad magic number\)'
cp --sparse=always "$sized" "$c"
"$helper" inject "$c" sb-garbage
"$helper" inject "$c" replica-garbage 2>/dev/null
dd if=/dev/zero of="$c" bs=4096 count=1 seek=16383 conv=notrunc status=none
run "$fsck" -fn "$c"
expect "fs-size: both copies gone: the search finds none (exit 8)" 8 \
	'no valid NOVA super block .*; no other found on the device\)'
# a replica that is not at the end of the file system it describes
cp --sparse=always "$sized" "$c"
dd if="$sized" of="$c" bs=4096 count=1 skip=16383 seek=32767 conv=notrunc status=none
"$helper" inject "$c" sb-garbage
dd if=/dev/zero of="$c" bs=4096 count=1 seek=16383 conv=notrunc status=none
run "$fsck" -fn "$c"
expect "fs-size: a copy of the replica elsewhere is not taken for it (exit 8)" 8 \
	'replica: not in the last block of its file system'
# the full-size image (made before fs-size existed): the same as ever
run "$fsck" -fnv "$img"
expect "full-size image: clean (fsck -fnv exit 0)" 0
t "full-size image: no word of a smaller file system" \
	not grep -q 'ends .* before' <<<"$out"

# --- states the kernel itself leaves: fsck must find them clean ---
# accept NAME LOSSLESS INJECT-ARGS...
accept() {
	local name=$1 lossless=$2 c=$work/case.img
	shift 2
	cp --sparse=always "$img" "$c"
	if ! "$helper" inject "$c" "$@" >"$work/inject.out" 2>&1; then
		fail "kernel state: $name (injection failed)"
		indent <"$work/inject.out"
		return
	fi
	run "$fsck" -fn "$c"
	if [ "$rc" -ne 0 ]; then
		fail "kernel state: $name (fsck -n exit $rc)"
		printf '%s\n' "$out" | indent
	elif [ "$lossless" = 1 ] && ! reader "$c" "$src"; then
		fail "kernel state: $name (the tree changed)"
		indent <"$work/reader.out"
	else
		pass "kernel state: $name: clean"
	fi
}
accept "file log rewritten by thorough GC, crash before the head switch" 1 gc-window /sparse/fragmented
accept "file log rewritten by thorough GC" 1 gc-done /sparse/fragmented
accept "symlink log rewritten by thorough GC, crash before the head switch" 1 gc-window /links/long-4095
accept "directory log rewritten by thorough GC" 1 gc-done /many
accept "copy-on-write overwrite of a one-page entry (marked dead)" 1 overwrite /sizes/s4096
accept "copy-on-write overwrite of one page of a long entry" 1 overwrite /sizes/three-mib
accept "unlink of one of three hard links (dentry marked dead)" 0 unlink /links/hard-b
accept "unlink of a last name (inode evicted)" 0 unlink /sizes/s65535
# fallocate's unwritten flag (the reader does not look at it)
accept "write entry flagged unwritten" 1 write-flags /sizes/three-mib 1
# fallocate KEEP_SIZE: only a shrink cuts pages, as in the kernel's replay
accept "blocks kept past EOF across a chmod, clean-unmount snapshot" 1 prealloc /sizes/s8192
accept "blocks kept past EOF, chmod superseded by a truncate up, data in them" 0 prealloc-extend /sizes/s8192

if [ "$xattrs" = 1 ]; then
	accept "xattr set again to its value (the older group dead, part 0 first)" 1 \
		xattr-set /sizes/s100 user.comment "a small one"
	accept "a 3-part xattr set again, crash after its older part 0 died" 1 \
		xattr-cut /sizes/s8192 user.p3 fill:3990
	accept "xattr parts without a part 0" 1 xattr-orphans /sizes/s100
	accept "xattr removed" 0 xattr-remove /sizes/s100 user.mime_type
	accept "file log with a 3-part xattr rewritten by thorough GC" 1 gc-done /sizes/s8192
	accept "file log with xattrs rewritten by thorough GC, crash before the head switch" 1 \
		gc-window /sizes/s100
fi

# a consistent clean-unmount snapshot passes
c=$work/case.img
cp --sparse=always "$img" "$c"
"$helper" inject "$c" snapshot
run "$fsck" -fnv "$c"
expect "clean-unmount snapshot: a consistent one passes -f" 0 'clean-unmount snapshot: [0-9]+ free ranges, [0-9]+ inode ranges, consistent'
run "$fsck" -n "$c"
expect "clean-unmount snapshot: clean without -f" 0 'case.img: clean'

# --- shared blocks (reflink): NOVA_WRITE_SHARED, INCOMPAT_REFLINK ---
# A data block mapped by several live file pages is legitimate when every
# write entry that maps it has NOVA_WRITE_SHARED and the super block the
# reflink feature: it is in use once.  nova_image inject clone SRC DST N
# DPG SFLAGS DFLAGS maps SRC's pages 0..N-1 at DST's from DPG too, SRC's
# entries flagged SFLAGS, DST's DFLAGS (2 shared, 1 unwritten), and sets
# the feature.  s8191 and s8192: two pages each.
# used OUTPUT: the blocks in use of fsck's summary line
used() { sed -n 's/^.*: [0-9]* inodes, \([0-9]*\)\/[0-9]* blocks$/\1/p' <<<"$1"; }
# pflags PATH: the flags of the write entry mapping PATH's page 0 in $c
pflags() { infof "$c" "$1" page0_flags; }
# same_data PATH FILE: PATH in $c reads as FILE
same_data() { cmp -s <("$helper" cat "$c" "$1") "$2"; }
c=$work/case.img
run "$fsck" -fn "$img"
used0=$(used "$out")
t "reflink: the base image's blocks in use (${used0:-none})" [ -n "$used0" ]
s8192=$src/sizes/s8192

name="reflink: two files share 2 blocks, both flagged, the feature set"
if injected "clone /sizes/s8192 /sizes/s8191 2 0 2 2"; then
	run "$fsck" -fnv "$c"
	expect "$name: fsck -fn clean (exit 0)" 0 \
		'^2 data blocks shared by several file pages \(reflink\)$'
	is "$name: ... no problem reported" "$(codes <<<"$out")" ""
	# s8191's own 2 blocks freed, the 2 shared ones in use once
	is "$name: ... blocks in use" "$(used "$out")" $((used0 - 2))
	is "$name: ... one block for both page 0s" "$(infof "$c" /sizes/s8191 page0)" \
		"$(infof "$c" /sizes/s8192 page0)"
	t "$name: ... both read as s8192" same_data /sizes/s8191 "$s8192"
	t "$name: ... s8192 unchanged" same_data /sizes/s8192 "$s8192"
	sum0=$(sum "$c")
	run "$fsck" -fy "$c"
	expect "$name: fsck -fy repairs nothing (exit 0)" 0
	t "$name: ... and writes nothing" [ "$(sum "$c")" = "$sum0" ]
	"$helper" inject "$c" snapshot >"$work/inject.out" 2>&1 || indent <"$work/inject.out"
	run "$fsck" -fnv "$c"
	expect "$name: ... a clean-unmount snapshot lists the shared blocks as used, once" 0 \
		'^clean-unmount snapshot: [0-9]+ free ranges, [0-9]+ inode ranges, consistent$'
else
	fail "$name (injection failed)"
fi

# an unflagged page on a block that flagged pages share: the copy is its
# own, the flagged page keeps the block; both ways round, so that in one
# the unflagged page is the first the scan finds
for k in "2 0 /sizes/s8191 /sizes/s8192" "0 2 /sizes/s8192 /sizes/s8191"; do
	read -r sf df unfl fl <<<"$k"
	name="reflink: a shared block, $unfl's entry unflagged"
	if ! injected "clone /sizes/s8192 /sizes/s8191 2 0 $sf $df"; then
		fail "$name (injection failed)"
		continue
	fi
	keep=$(infof "$c" "$fl" page0)
	sum0=$(sum "$c")
	run "$fsck" -fn "$c"
	is "$name: fsck -fn exit 4, PR_DATA_SHARED_UNFLAGGED" \
		"$rc $(codes <<<"$out")" "4 PR_DATA_SHARED_UNFLAGGED"
	pat="^ERROR: inode [0-9]+ \\(regular file $unfl\\): data block [0-9]+ of file page [01]"
	pat+=" is shared with inode [0-9]+'s data, but its write entry at 0x[0-9a-f]+"
	pat+=" lacks the shared flag \\[PR_DATA_SHARED_UNFLAGGED\\]$"
	is "$name: ... $unfl's 2 pages" "$(grep -cE "$pat" <<<"$out")" 2
	t "$name: ... fsck -n changes nothing" [ "$(sum "$c")" = "$sum0" ]
	run "$fsck" -fy "$c"
	expect "$name: fsck -fy copies them (exit 1)" 1 \
		'^FIXED: inode [0-9]+: file page 1 copied to block [0-9]+, its own now \[PR_DATA_SHARED_UNFLAGGED\]$'
	run "$fsck" -fn "$c"
	expect "$name: ... then clean (fsck -fn exit 0)" 0
	is "$name: ... no problem reported" "$(codes <<<"$out")" ""
	is "$name: ... blocks in use: the 2 copies more" "$(used "$out")" "$used0"
	is "$name: ... $fl keeps the block, flagged" "$(infof "$c" "$fl" page0) $(pflags "$fl")" "$keep 2"
	is "$name: ... $unfl's copy logged without the flag" "$(pflags "$unfl")" 0
	t "$name: ... $unfl keeps its data" same_data "$unfl" "$s8192"
	t "$name: ... $fl keeps its data" same_data "$fl" "$s8192"
done

# flagged, shared, but no reflink feature: damage as any block used twice
# (the first page keeps it); the copy drops NOVA_WRITE_SHARED and keeps
# NOVA_WRITE_UNWRITTEN, with zeros, what an unwritten page reads as
for f in 2 3; do
	name="reflink: a block shared by pages flagged $f without the reflink feature"
	if ! injected "clone /sizes/s8192 /sizes/s8191 2 0 $f $f" "clear-feature reflink"; then
		fail "$name (injection failed)"
		continue
	fi
	run "$fsck" -fn "$c"
	is "$name: fsck -fn exit 4, PR_DATA_BLOCK_SHARED" "$rc $(codes <<<"$out")" \
		"4 PR_DATA_BLOCK_SHARED"
	pat="^ERROR: .*: data block [0-9]+ of file page [01] is also used by inode [0-9]+'s data"
	pat+=" \\(flagged shared, but the super block lacks the reflink feature\\)"
	pat+=" \\[PR_DATA_BLOCK_SHARED\\]$"
	is "$name: ... 2 pages, flagged but without the feature" "$(grep -cE "$pat" <<<"$out")" 2
	run "$fsck" -fy "$c"
	expect "$name: fsck -fy copies them (exit 1)" 1 \
		'^FIXED: inode [0-9]+: file page 0 copied to block [0-9]+, its own now \[PR_DATA_BLOCK_SHARED\]$'
	run "$fsck" -fn "$c"
	expect "$name: ... then clean (fsck -fn exit 0)" 0
	t "$name: ... two blocks now" \
		[ "$(infof "$c" /sizes/s8191 page0)" != "$(infof "$c" /sizes/s8192 page0)" ]
	is "$name: ... one keeps the flags, the copy drops the shared flag" \
		"$(printf '%s\n' "$(pflags /sizes/s8191)" "$(pflags /sizes/s8192)" | sort | paste -sd' ' -)" \
		"$((f & 1)) $f"
	for p in /sizes/s8191 /sizes/s8192; do
		if [ "$f" = 2 ]; then
			t "$name: ... $p keeps its data" same_data "$p" "$s8192"
		elif [ "$(pflags "$p")" = 1 ]; then
			t "$name: ... the unwritten copy ($p) is zeros" \
				same_data "$p" <(head -c 8192 /dev/zero)
		fi
	done
done

# one file mapping the same blocks at two places (pages 0, 1 at 4, 5)
name="reflink: one file maps 2 blocks twice each, flagged"
if injected "clone /sizes/s65536 /sizes/s65536 2 4 2 2"; then
	run "$fsck" -fnv "$c"
	expect "$name: fsck -fn clean (exit 0)" 0 \
		'^2 data blocks shared by several file pages \(reflink\)$'
	is "$name: ... no problem reported" "$(codes <<<"$out")" ""
	is "$name: ... blocks in use" "$(used "$out")" $((used0 - 2))
	t "$name: ... pages 4 and 5 read as pages 0 and 1" cmp -s \
		<("$helper" cat "$c" /sizes/s65536 | head -c 8192) \
		<("$helper" cat "$c" /sizes/s65536 | tail -c +16385 | head -c 8192)
else
	fail "$name (injection failed)"
fi
reported "reflink: one file maps 2 blocks twice each, the second entries unflagged" \
	"PR_DATA_SHARED_UNFLAGGED" \
	"data block [0-9]+ of file page [45] is shared with another of its own pages, but its write entry at 0x[0-9a-f]+ lacks the shared flag" \
	"clone /sizes/s65536 /sizes/s65536 2 4 2 0"
t "reflink: ... pages 4 and 5 keep their data" cmp -s \
	<("$helper" cat "$c" /sizes/s65536 | head -c 8192) \
	<("$helper" cat "$c" /sizes/s65536 | tail -c +16385 | head -c 8192)
t "reflink: ... pages 0 and 1 too" cmp -s \
	<("$helper" cat "$c" /sizes/s65536 | head -c 8192) <(head -c 8192 "$src/sizes/s65536")

# the flag on blocks mapped once allows nothing more: harmless, with or
# without the feature (a clone cut short, the other pages gone since)
accept "write entry flagged shared, its blocks mapped once, no reflink feature" 1 \
	write-flags /sizes/three-mib 2
accept "write entry flagged shared and unwritten, mapped once, no reflink feature" 1 \
	write-flags /sizes/three-mib 3
name="reflink: a clone's page 0 overwritten since (a stale flag)"
if injected "clone /sizes/s8192 /sizes/s8191 2 0 2 2" "overwrite /sizes/s8191"; then
	run "$fsck" -fnv "$c"
	expect "$name: fsck -fn clean (exit 0)" 0 \
		'^1 data blocks shared by several file pages \(reflink\)$'
	is "$name: ... s8192's page 0 still flagged" "$(pflags /sizes/s8192)" 2
else
	fail "$name (injection failed)"
fi
# metadata is never shared
case_ "reflink: a page flagged shared on a log page" "PR_DATA_BLOCK_SHARED" \
	"data block [0-9]+ of file page 0 is also used by inode [0-9]+'s log \\[PR" \
	'file page 0 copied to block' 0 log-block /many /sizes/s4096 2

# --- -p: safe repairs only ---
c=$work/case.img
cp --sparse=always "$img" "$c"
"$helper" inject "$c" sb-garbage
run "$fsck" -p "$c"
expect "fsck -p repairs a super block from the replica (exit 1)" 1 'FIXED: primary super block.* \[PR_SB_PRIMARY_BAD\]$'
cp --sparse=always "$img" "$c"
"$helper" inject "$c" dentry-free /many ghost
sum0=$(sum "$c")
run "$fsck" -p "$c"
expect "fsck -p stops at an unsafe repair (exit 4)" 4 'UNEXPECTED INCONSISTENCY; RUN fsck.nova MANUALLY'
t "fsck -p: the problem it stopped at is PR_DENTRY_BAD_INO" [ "$(codes <<<"$out")" = PR_DENTRY_BAD_INO ]
# as e2fsck: the run ends there, nothing more is said
t "fsck -p: nothing after the stop" [ "$(tail -n 1 <<<"$out")" = $'\t(i.e., without -a or -p options)' ]
t "fsck -p: nothing written for an unsafe problem" [ "$(sum "$c")" = "$sum0" ]

# --- the clean and error flags ---
cp --sparse=always "$img" "$c"
"$helper" inject "$c" set-clean
"$helper" inject "$c" dentry-free /many ghost
run "$fsck" -n "$c"
expect "clean flag: skipped without -f" 0 'case.img: clean'
run "$fsck" -fn "$c"
expect "clean flag: -f checks anyway" 4 "entry 'ghost' points to a free inode.* \\[PR_DENTRY_BAD_INO\\]$"
run "$fsck" -fy "$c"
expect "clean flag: cleared by a repair" 1 'clean flag cleared'
run "$fsck" -n "$c"
expect "clean flag: the repaired file system gets a full check" 0 'case.img: [0-9]+ inodes'
cp --sparse=always "$img" "$c"
"$helper" inject "$c" set-error
run "$fsck" -n "$c"
expect "error flag: reported" 0 'marked as having errors \[PR_SB_ERROR_STATE\]$'
run "$fsck" -y "$c"
expect "error flag: cleared by fsck -y (exit 1)" 1 'FIXED: error state cleared.* \[PR_SB_ERROR_STATE\]$'
run "$fsck" -n "$c"
expect "error flag: ... then clean (fsck -n exit 0)" 0
t "error flag: gone" not grep -q 'marked as having errors' <<<"$out"

# --- a run that stops after repairs: the clean flag and snapshot go ---
# A cleanly unmounted file system keeps the clean flag and a clean-unmount
# snapshot (reserved inodes 3 and 4), which the next mount restores
# instead of scanning (src/super.c).  A run that repairs something and
# then stops (-p at a problem it may not repair, an operational error)
# must clear the flag and drop the snapshot as a run that ends does: the
# snapshot would hand out blocks the repairs allocated, or leak those
# they freed.
# sb_states IMAGE: s_state of the primary super block and of its replica
# (the file system's last block)
sb_states() {
	local nb
	nb=$(le64 "$1" 24)
	printf '%#x %#x' "$(le32 "$1" 148)" "$(le32 "$1" $(((nb - 1) * 4096 + 148)))"
}
# snap_bytes IMAGE: the bytes of reserved inodes 3 and 4 (128 each, in
# block 1) that are not 0; 0 once the snapshot is dropped
snap_bytes() {
	od -An -tx1 -v -j $((4096 + 3 * 128)) -N 256 "$1" | tr -s ' ' '\n' |
		grep -vc '^\(00\)\{0,1\}$'
}
name="stop after repairs"
if injected "file-links /sizes/s100 3" "dup-block /sizes/s4096 /sizes/s4097" snapshot; then
	run "$fsck" -fnv "$c"
	is "$name: the image: clean, a wrong link count, a shared block" \
		"$rc/$(sb_states "$c")/$(codes <<<"$out")" \
		"4/0x1 0x1/PR_DATA_BLOCK_SHARED PR_LINK_COUNT"
	t "$name: the image: a snapshot (non-zero bytes of reserved inodes 3 and 4)" \
		[ "$(snap_bytes "$c")" -gt 0 ]
	t "$name: the image: fsck -v finds the snapshot consistent" \
		grep -q '^clean-unmount snapshot: .*, consistent$' <<<"$out"
	# and a file without name or link, which -p frees (16 data blocks)
	"$helper" inject "$c" orphan0 /sizes/s65536 >/dev/null 2>&1
	run "$fsck" -fp "$c"
	expect "$name: fsck -fp stops at the shared block (exit 4 after repairs, as e2fsck)" 4 \
		'UNEXPECTED INCONSISTENCY; RUN fsck.nova MANUALLY'
	t "$name: ... after freeing the orphan" \
		grep -qE 'FIXED: .* \[PR_ORPHAN_UNLINKED\]$' <<<"$out"
	t "$name: ... and logging the link count" \
		grep -qE 'FIXED: .* \[PR_LINK_COUNT\]$' <<<"$out"
	t "$name: ... nothing said after the stop" \
		[ "$(tail -n 1 <<<"$out")" = $'\t(i.e., without -a or -p options)' ]
	is "$name: ... the clean flag cleared in both super block copies" \
		"$(sb_states "$c")" "0 0"
	is "$name: ... the snapshot dropped (non-zero bytes of reserved inodes 3 and 4)" \
		"$(snap_bytes "$c")" 0
	run "$fsck" -fn "$c"
	is "$name: ... fsck -fn: the shared block is all that is left" \
		"$rc $(codes <<<"$out")" "4 PR_DATA_BLOCK_SHARED"
	[ "$rc $(codes <<<"$out")" = "4 PR_DATA_BLOCK_SHARED" ] || printf '%s\n' "$out" | indent
	run "$fsck" -fy "$c"
	expect "$name: ... fsck -fy copies the shared block (exit 1)" 1 \
		'FIXED: .* \[PR_DATA_BLOCK_SHARED\]$'
	run "$fsck" -fn "$c"
	expect "$name: ... then clean (fsck -fn exit 0)" 0
	is "$name: ... no problem reported" "$(codes <<<"$out")" ""
else
	fail "$name (injection failed)"
fi
# an operational error (out of memory, from an LD_PRELOAD shim) in the
# second round of -y, after the first repaired a link count: the clean
# flag cleared and the snapshot dropped, the error flag kept (the check
# did not end)
name="operational error after repairs"
if ! cc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$work/alloc_shim.so" \
	"$here/alloc_shim.c" 2>"$work/shim.log"; then
	fail "$name: the calloc shim does not build"
	indent <"$work/shim.log"
elif injected set-error "file-links /sizes/s100 3" snapshot; then
	# calloc(blocks, 1): blockmap_init()'s and pass_data()'s, each once
	# a round; the third is the second round's blockmap_init()
	run env LD_PRELOAD="$work/alloc_shim.so" \
		NOVA_TEST_CALLOC_FAIL="$(le64 "$c" 24) 1 3" "$fsck" -fy "$c"
	expect "$name: fsck -fy runs out of memory in its second round (exit 8, and 1)" 9 \
		'^fsck\.nova: out of memory$'
	t "$name: ... after the repair of the link count" \
		grep -qE '^FIXED: .* \[PR_LINK_COUNT\]$' <<<"$out"
	is "$name: ... the clean flag cleared in both copies, the error flag kept" \
		"$(sb_states "$c")" "0x2 0x2"
	is "$name: ... the snapshot dropped" "$(snap_bytes "$c")" 0
	run "$fsck" -fy "$c"
	expect "$name: ... fsck -fy clears the error flag (exit 1)" 1 \
		'^FIXED: error state cleared.* \[PR_SB_ERROR_STATE\]$'
	run "$fsck" -fn "$c"
	expect "$name: ... then clean (fsck -fn exit 0)" 0
	is "$name: ... no problem reported" "$(codes <<<"$out")" ""
else
	fail "$name (injection failed)"
fi

# --- a device bigger than memory: -n keeps its changes in a private map ---
# (xfstests found it: fsck.nova -n of a 4 GiB pmem in a 2 GiB guest failed
# with ENOMEM.) Bigger than RAM plus swap, so that the kernel's heuristic
# overcommit (vm.overcommit_memory=0) refuses an accounted private mapping.
big_gib=$(awk '/^(MemTotal|SwapTotal):/ { k += $2 } END { print int(k / 1048576) + 2 }' /proc/meminfo)
rm -f "$work/big.img"
truncate -s "${big_gib}G" "$work/big.img"
run "$mkfs" -q -c 1 "$work/big.img"
expect "big: mkfs.nova of a ${big_gib} GiB image (more than RAM and swap)" 0
run "$fsck" -fn "$work/big.img"
expect "big: fsck.nova -fn of the ${big_gib} GiB image (private map, no ENOMEM)" 0
rm -f "$work/big.img"

# --- operational and usage errors ---
run "$fsck" -n "$work/missing.img"
expect "operational error: missing image (exit 8)" 8 'cannot access'
run "$fsck" -n "$work"
expect "operational error: a directory (exit 8)" 8 'not a block device or a regular file'
rm -f "$work/zero.img"
truncate -s $M64 "$work/zero.img"
run "$fsck" -n "$work/zero.img"
expect "operational error: no NOVA file system (exit 8)" 8 'no valid NOVA super block'
rm -f "$work/tiny.img"
truncate -s 1M "$work/tiny.img"
run "$fsck" -n "$work/tiny.img"
expect "operational error: too small (exit 8)" 8 'too small'
run "$fsck" "$img" </dev/null
expect "operational error: interactive without a terminal (exit 8)" 8 'need a terminal'
run "$fsck"
expect "usage error: no device (exit 16)" 16 'no device or image given'
run "$fsck" -n -y "$img"
expect "usage error: -n with -y (exit 16)" 16 'only one of -n, -y and -p'
run "$fsck" -Z "$img"
expect "usage error: unknown option (exit 16)" 16 'Usage:'
run "$fsck" -n "$img" "$img"
expect "usage error: two devices (exit 16)" 16 'too many arguments'
run "$fsck" -V
expect "-V prints the version" 0 '^fsck\.nova [0-9]+\.[0-9]+\.[0-9]+ \(NOVA format 1\.0\)$'

# --- install: fsck.nova, fsck.NOVA for util-linux "fsck -t NOVA", man page ---
dest=$work/install
if make -s -C "$tools" install DESTDIR="$dest" >/dev/null 2>&1; then
	t "install: fsck.nova installed" [ -x "$dest/sbin/fsck.nova" ]
	t "install: fsck.NOVA -> fsck.nova" [ "$(readlink "$dest/sbin/fsck.NOVA")" = fsck.nova ]
	t "install: fsck.nova man page" [ -f "$dest/usr/share/man/man8/fsck.nova.8" ]
	run "$dest/sbin/fsck.NOVA" -n "$img"
	expect "install: fsck.NOVA checks the image" 0
	if command -v fsck >/dev/null; then
		run env PATH="$dest/sbin:$PATH" fsck -t NOVA -n "$img"
		expect "install: fsck -t NOVA runs fsck.NOVA" 0 'base.img: [0-9]+ inodes'
	fi
else
	fail "install: make install failed"
fi
# the man page's PROBLEM CODES: every code of problem.h, and no other
if [ -f "$tools/fsck/problem.h" ]; then
	hcodes=$(sed -n 's/^\t\(PR_[A-Z0-9_]*\),.*/\1/p' "$tools/fsck/problem.h" | sort)
	mcodes=$(sed -n 's/^\.BR\{0,1\} \(PR_[A-Z0-9_]*\).*/\1/p' "$tools/man/fsck.nova.8" | sort)
	t "man page fsck.nova.8: problem.h has problem codes" [ -n "$hcodes" ]
	t "man page fsck.nova.8 lists the $(wc -w <<<"$hcodes") problem codes of problem.h" \
		[ "$hcodes" = "$mcodes" ]
	[ "$hcodes" = "$mcodes" ] || diff <(echo "$hcodes") <(echo "$mcodes") | indent
fi
if command -v groff >/dev/null; then
	for m in fsck.nova.8 mkfs.nova.8; do
		warn=$(groff -man -ww -z -Tutf8 "$tools/man/$m" 2>&1)
		t "man page $m: groff reports no warnings" [ -z "$warn" ]
		[ -z "$warn" ] || printf '%s\n' "$warn" | indent
	done
fi

# --- static binaries (for the busybox guest) ---
sdir=$work/static
if make -s -C "$tools" static STATIC_OUT="$sdir" >"$work/static.log" 2>&1; then
	ok=1
	for b in mkfs.nova fsck.nova nova-probe nova-debug; do
		# static: no program interpreter, no dynamic section
		[ -x "$sdir/$b" ] && ! readelf -l "$sdir/$b" | grep -q INTERP &&
			! readelf -d "$sdir/$b" | grep -q NEEDED || ok=0
	done
	t "static: mkfs.nova, fsck.nova, nova-probe and nova-debug are statically linked" [ $ok -eq 1 ]
	t "static: fsck.NOVA link" [ "$(readlink "$sdir/fsck.NOVA")" = fsck.nova ]
	rm -f "$c"
	truncate -s $M64 "$c"
	run "$sdir/mkfs.nova" -q -d "$src/sizes" "$c"
	expect "static: mkfs.nova -d" 0
	run "$sdir/fsck.nova" -fn "$c"
	expect "static: fsck.nova checks it clean" 0
	t "static: reader check" reader "$c" "$src/sizes"
else
	fail "static: make static failed"
	indent <"$work/static.log"
fi

unit_done fsck
