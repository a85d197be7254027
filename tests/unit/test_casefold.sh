#!/bin/bash
# Host tests of case-insensitive directories in the tools: mkfs.nova's
# -O casefold and -E encoding=,encoding_flags= (mke2fs' spelling and
# errors), what nova-debug shows of them, and fsck.nova's checks of the
# encoding fields (PR_SB_ENCODING) and of the casefold flag
# (PR_INODE_CASEFOLD: only on a directory, with the feature, and not on
# an encrypted one).  The images are made by mkfs.nova -d, then
# nova_image inject (iflags, sb-encoding, encrypt) writes what the
# kernel would, or damage.
#
#   test_casefold.sh TOOLS_DIR NOVA_IMAGE WORKDIR
#
# Prints one PASS/FAIL line per case and "casefold: N passed, N failed";
# exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dbg=$tools/nova-debug
rm -rf "$work"
mkdir -p "$work/tree/d/sub" "$work/tree/enc"
echo data >"$work/tree/d/f"
m=$work/m.img
truncate -s 64M "$m"
CF=0x40000000
# super block fields: s_feature_incompat, s_encoding, s_encoding_flags
incompat() { le64 "$1" 128; }
enc() { od -An -tu2 --endian=little -j 192 -N2 "$1" | tr -d ' '; }
encflags() { od -An -tu2 --endian=little -j 194 -N2 "$1" | tr -d ' '; }

# --- mkfs.nova -O / -E ---
mkfs_ok() {	# mkfs_ok NAME INCOMPAT ENC FLAGS ARGS...: made, with these fields
	local name=$1 inc=$2 e=$3 f=$4
	shift 4
	run "$mkfs" -q -f "$@" "$m"
	expect "$name" 0
	is "$name: feature_incompat" "$(incompat "$m")" "$inc"
	is "$name: s_encoding" "$(enc "$m")" "$e"
	is "$name: s_encoding_flags" "$(encflags "$m")" "$f"
	run "$fsck" -fn "$m"
	expect "$name: fsck.nova finds it clean" 0
}
mkfs_ok "casefold: mkfs.nova without -O" 0 0 0
mkfs_ok "casefold: -O casefold" 4 1 0 -O casefold
mkfs_ok "casefold: -O casefold -E encoding_flags=strict" 4 1 1 -O casefold -E encoding_flags=strict
mkfs_ok "casefold: -E encoding=utf8 turns the feature on" 4 1 0 -E encoding=utf8
mkfs_ok "casefold: -E encoding=utf8-12.1,encoding_flags=strict" 4 1 1 -E encoding=utf8-12.1,encoding_flags=strict
mkfs_ok "casefold: -O ^casefold" 0 0 0 -O ^casefold
mkfs_ok "casefold: -O casefold with -d" 4 1 0 -O casefold -d "$work/tree"

mkfs_err() {	# mkfs_err NAME PATTERN ARGS...: exit 1, the message, nothing written
	local name=$1 pat=$2
	shift 2
	truncate -s 0 "$m"
	truncate -s 64M "$m"
	run "$mkfs" -q -f "$@" "$m"
	expect "$name (exit 1)" 1 "$pat"
	is "$name: nothing written" "$(incompat "$m")" 0
}
mkfs_err "casefold: an unknown feature" 'Invalid filesystem option set: foo' -O foo
mkfs_err "casefold: an unknown feature after casefold" 'Invalid filesystem option set: \^bar' -O casefold,^bar
mkfs_err "casefold: an unknown encoding" 'Invalid encoding: latin1' -E encoding=latin1
mkfs_err "casefold: encoding without a value" 'Invalid encoding: $' -E encoding
mkfs_err "casefold: an unknown encoding flag" 'Invalid encoding flag: nostrictest' -O casefold -E encoding_flags=nostrictest
mkfs_err "casefold: encoding flags without an encoding" 'An encoding must be explicitly specified when passing encoding-flags' -E encoding_flags=strict
mkfs_err "casefold: encoding flags with -O ^casefold" 'An encoding must be explicitly specified' -O ^casefold -E encoding_flags=strict
mkfs_err "casefold: -O ^casefold with an encoding" 'casefold feature is turned off' -O ^casefold -E encoding=utf8
run "$mkfs" -n -f -O casefold -E encoding_flags=strict "$m"
expect "casefold: mkfs.nova -n shows the feature" 0 '^Filesystem features: +casefold$'
t "casefold: mkfs.nova -n shows the encoding" grep -qxE 'Character encoding: +utf8-12.1 \(strict\)' <<<"$out"

# --- nova-debug ---
run "$mkfs" -q -f -O casefold -E encoding_flags=strict -d "$work/tree" "$m"
run "$dbg" "$m" super
expect "casefold: nova-debug super: the feature" 0 '^feature_incompat 0x4 casefold$'
t "casefold: nova-debug super: the encoding" grep -qx 'encoding utf8-12.1' <<<"$out"
t "casefold: nova-debug super: strict" grep -qx 'encoding_flags 0x1 strict' <<<"$out"
run "$mkfs" -q -f "$m"
run "$dbg" "$m" super
t "casefold: nova-debug super: no encoding" grep -qx 'encoding none 0' <<<"$out"

# --- fsck.nova ---
img=$work/base.img c=$work/case.img
truncate -s 64M "$img"
run "$mkfs" -q -c 2 -O casefold -d "$work/tree" "$img"
expect "casefold: mkfs.nova -O casefold -d of the tree" 0
injected "iflags /d $CF" "iflags /d/sub $CF" || fail "casefold: injection"
run "$fsck" -fn "$c"
expect "casefold: casefolded directories are clean" 0
run "$dbg" "$c" stat /d
t "casefold: nova-debug stat shows the flag" grep -qx "flags $CF" <<<"$out"
reported "casefold: an unknown encoding" PR_SB_ENCODING \
	'ERROR: super block: unknown encoding \(encoding 2, flags 0x0\)' "sb-encoding 2 0"
reported "casefold: unknown encoding flags" PR_SB_ENCODING \
	'unknown encoding flags \(encoding 1, flags 0x11\)' "sb-encoding 1 0x11"
t "casefold: the repair keeps the known flag" [ "$(encflags "$c")" = 1 ]
reported "casefold: the flag on a regular file" PR_INODE_CASEFOLD \
	'inode [0-9]+: casefold flag on a non-directory' "iflags /d/f $CF"
reported "casefold: the flag on an encrypted directory" PR_INODE_CASEFOLD \
	'casefold flag on an encrypted directory' "encrypt /enc 2" "iflags /enc $CF"
run "$dbg" "$c" stat /enc
t "casefold: the repair clears the flag" grep -qx "flags 0x0" <<<"$out"

img=$work/plain.img
truncate -s 64M "$img"
run "$mkfs" -q -c 2 -d "$work/tree" "$img"
expect "casefold: mkfs.nova -d of the tree, no casefold" 0
reported "casefold: an encoding without the feature" PR_SB_ENCODING \
	'an encoding without the casefold feature' "sb-encoding 1 1"
t "casefold: the repair clears the encoding" [ "$(enc "$c"):$(encflags "$c")" = 0:0 ]
reported "casefold: the flag without the feature" PR_INODE_CASEFOLD \
	'casefold flag on a file system without the casefold feature' "iflags /d $CF"

# a repair that needs a new log page: made at the end of pass 4, when
# every used block is known, never on a block still in use.  /full: "."
# and "..", 59 names of 64-byte dentries and one of 80, then the flag's
# link-change entry: 32 bytes left, no room for another (48 bytes)
full_log_dir "$work/tree2/full" 59 long
mkdir -p "$work/tree2/z"
echo data >"$work/tree2/z/f"
img=$work/full.img
truncate -s 64M "$img"
run "$mkfs" -q -c 2 -d "$work/tree2" "$img"
expect "casefold: mkfs.nova -d of a directory whose log page fills up" 0
if injected "iflags /full $CF"; then
	t "casefold: the flag logged in a full log page: no room" \
		[ "$(log_room /full)" -lt 48 ]
	run "$fsck" -fy "$c"
	is "casefold: ... fsck -y (exit)" "$rc" 1
	is "casefold: ... PR_INODE_CASEFOLD alone repaired" "$(codes <<<"$out")" PR_INODE_CASEFOLD
	tree_kept "casefold: ..." "$work/tree2"
	run "$dbg" "$c" stat /full
	t "casefold: ... the flag cleared" grep -qx "flags 0x0" <<<"$out"
	run "$fsck" -fn "$c"
	expect "casefold: ... then clean" 0
else
	fail "casefold: the flag logged in a full log page (injection failed)"
fi

unit_done casefold
