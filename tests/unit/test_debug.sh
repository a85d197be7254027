#!/bin/bash
# Host tests of nova-debug, the read-only inspection tool (xfstests reads
# encryption nonces and ciphertext names with it, as it uses debugfs for
# ext4): its commands, output forms, errors and exit statuses, and the
# forms the xfstests helpers (patch 0011) parse.
#
#   test_debug.sh TOOLS_DIR NOVA_IMAGE WORKDIR
#
# Prints one PASS/FAIL line per case and "debug: N passed, N failed";
# exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dbg=$tools/nova-debug
rm -rf "$work"
mkdir -p "$work/tree/enc" "$work/tree/v1" "$work/tree/plain"
echo data >"$work/tree/plain/a"
img=$work/debug.img
truncate -s 64M "$img"
run "$mkfs" -q -c 2 -L $'l b\\\x01' -d "$work/tree" "$img"
expect "debug: mkfs.nova -d of the tree" 0
# a v2 directory holding a file with a ciphertext name (NUL, '/', newline,
# blank, backslash, 0xff, ASCII) and a v1 directory
N1=002f0a205cff41424344454647484950
for i in "encrypt /enc 2" "create-raw /enc $N1 file enc" "encrypt /v1 1"; do
	# shellcheck disable=SC2086 # the arguments of one injection
	"$helper" inject "$img" $i >"$work/inject.out" 2>&1 ||
		{ fail "debug: injection $i"; indent <"$work/inject.out"; }
done
hex() { od -An -tx1 | tr -d ' \n'; }
# has TEXT LINE...: TEXT holds each LINE, as a whole line
has() {
	local text=$1 l
	shift
	for l; do
		grep -qxF -- "$l" <<<"$text" || return 1
	done
}
# one_word TEXT: every line is a number, a blank and one word
one_word() { ! grep -vqE '^[0-9]+ [^ ]+$' <<<"$1"; }
nonce=a0a1a2a3a4a5a6a7a8a9aaabacadaeaf

# --- ls ---
run "$dbg" "$img" ls /enc
expect "debug: ls of an encrypted directory" 0 '^[0-9]+ \\x00/\\x0a\\x20\\x5c\\xffABCDEFGHIP$'
ls_out=$out
t "debug: ls: '.' and '..' first" [ "$(sed -n '1s/^[0-9]* //p;2s/^[0-9]* //p' <<<"$ls_out" | paste -sd' ')" = ". .." ]
t "debug: ls: every line is a number, a blank, one word" one_word "$ls_out"
dir=$(sed -n '1s/ \.$//p' <<<"$ls_out")
ino=$(sed -n '3s/ .*//p' <<<"$ls_out")
run "$dbg" "$img" ls "<$dir>"
t "debug: ls <N> and ls PATH agree" [ "$out" = "$ls_out" ]
t "debug: ls N and ls PATH agree" [ "$("$dbg" "$img" ls "$dir")" = "$ls_out" ]
run "$dbg" "$img" ls /
expect "debug: ls of the root: its parent is itself" 0 "^1 \\.\\.\$"

# --- name: the raw bytes, and the \xHH form of ls decoded, as the
# xfstests helpers may read them ---
t "debug: name writes the name's bytes, nothing else" \
	[ "$("$dbg" "$img" name /enc "$ino" | hex)" = "$N1" ]
t "debug: name <DIR> <INO>" [ "$("$dbg" "$img" name "<$dir>" "<$ino>" | hex)" = "$N1" ]
if command -v perl >/dev/null; then
	t "debug: ls's \\xHH form decodes to the same bytes" \
		[ "$(awk -v i="$ino" '$1 == i { print $2 }' <<<"$ls_out" |
		     perl -ne 'chomp; s/\\x([[:xdigit:]]{2})/chr hex $1/eg; print' | hex)" = "$N1" ]
else
	skip "debug: ls's \\xHH form decoded: no perl"
fi

# --- context ---
run "$dbg" "$img" context /enc
expect "debug: context of a v2 directory" 0 "^nonce $nonce\$"
t "debug: context v2: the whole context, version, key identifier" \
	has "$out" "context 02010403000000001112131415161718191a1b1c1d1e1f20$nonce" \
	"version 2" "contents_mode 1" "filenames_mode 4" "flags 0x03" \
	"log2_data_unit_size 0" "master_key_identifier 1112131415161718191a1b1c1d1e1f20"
t "debug: context: the nonce as _get_encryption_nonce reads it" \
	[ "$("$dbg" "$img" context "$ino" | sed -n 's/^nonce //p')" = "$nonce" ]
run "$dbg" "$img" context /v1
expect "debug: context of a v1 directory" 0 '^master_key_descriptor 1112131415161718$'
t "debug: context v1: 28 bytes, version 1, nonce last" \
	has "$out" "context 010104031112131415161718$nonce" "version 1" "nonce $nonce"

# --- super ---
run "$dbg" "$img" super
expect "debug: super: the encrypt feature" 0 '^feature_incompat 0x3 xattr encrypt$'
t "debug: super: the UUID nova-probe reports" \
	[ "$(sed -n 's/^uuid //p' <<<"$out")" = "$("$tools/nova-probe" "$img" | sed -n 's/^ID_FS_UUID=//p')" ]
t "debug: super: the label escaped" grep -qx 'label l\\x20b\\x5c\\x01' <<<"$out"
# a clone (nova_image inject clone: page 0 of /plain/a at its page 1 too,
# both entries flagged shared) sets the reflink feature
cp --sparse=always "$img" "$work/reflink.img"
if "$helper" inject "$work/reflink.img" clone /plain/a /plain/a 1 1 2 2 \
	>"$work/inject.out" 2>&1; then
	run "$dbg" "$work/reflink.img" super
	expect "debug: super: the reflink feature" 0 \
		'^feature_incompat 0xb xattr encrypt reflink$'
else
	fail "debug: injection clone"
	indent <"$work/inject.out"
fi
rm -f "$work/reflink.img"

# --- what is not there: exit 1, nothing on standard output ---
notfound() {	# notfound NAME PATTERN ARGS...
	local name=$1 pat=$2 so
	shift 2
	so=$("$dbg" "$img" "$@" 2>/dev/null)
	run "$dbg" "$img" "$@"
	expect "debug: $name (exit 1)" 1 "$pat"
	[ -z "$so" ] || fail "debug: $name: printed on standard output"
}
notfound "context of an inode without one" 'inode [0-9]+ has no encryption context' context /plain
notfound "ls of a file" 'inode [0-9]+ is not a directory' ls /plain/a
notfound "ls of a free inode" 'inode 99999 is not in use' ls 99999
notfound "ls of a reserved inode" 'inode 5 is a reserved inode' ls 5
notfound "a path that is not there" '/nope: no such file or directory' ls /nope
notfound "name of an inode not in the directory" 'has no name in directory' name /enc 1

# --- usage and operational errors ---
run "$dbg"
expect "debug: no arguments (exit 16)" 16 'no device or image given'
run "$dbg" "$img"
expect "debug: no command (exit 16)" 16 'no command given'
run "$dbg" "$img" frob
expect "debug: unknown command (exit 16)" 16 "unknown command 'frob'"
run "$dbg" "$img" ls
expect "debug: a missing argument (exit 16)" 16 'ls takes 1 argument$'
run "$dbg" "$img" ls 12ab
expect "debug: a bad inode argument (exit 16)" 16 "'12ab' is not an inode number"
run "$dbg" "$work/missing.img" super
expect "debug: missing image (exit 8)" 8 'cannot access'
truncate -s 64M "$work/zero.img"
run "$dbg" "$work/zero.img" super
expect "debug: no NOVA file system (exit 8)" 8 'no valid NOVA super block'
run "$dbg" -V
expect "debug: -V prints the version" 0 '^nova-debug [0-9]+\.[0-9]+\.[0-9]+ \(NOVA format 1\.0\)$'
run "$dbg" -h
expect "debug: -h prints the usage" 0 '^Usage: nova-debug '

# --- it never writes ---
sum0=$(sum "$img")
for cmd in super "ls /enc" "name /enc $ino" "context /enc"; do
	# shellcheck disable=SC2086
	"$dbg" "$img" $cmd >/dev/null 2>&1
done
t "debug: the image is unchanged" [ "$(sum "$img")" = "$sum0" ]

# --- installed with its man page ---
dest=$work/install
if make -s -C "$tools" install DESTDIR="$dest" >/dev/null 2>&1; then
	t "debug: install: nova-debug" [ -x "$dest/sbin/nova-debug" ]
	t "debug: install: its man page" [ -f "$dest/usr/share/man/man8/nova-debug.8" ]
else
	fail "debug: install: make install failed"
fi
if command -v groff >/dev/null; then
	warn=$(groff -man -ww -z -Tutf8 "$tools/man/nova-debug.8" 2>&1)
	t "debug: man page nova-debug.8: groff reports no warnings" [ -z "$warn" ]
	[ -z "$warn" ] || printf '%s\n' "$warn" | indent
fi

unit_done debug
