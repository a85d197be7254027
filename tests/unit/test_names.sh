#!/bin/bash
# Host tests: the tools print names read from an image (directory entries,
# paths, xattr names, labels) with their control characters escaped, as
# e2fsck does (^X for a control character, ^? for DEL, M- before a byte
# of 0x80 or more), so that a hostile or damaged image cannot send escape
# sequences or line breaks to the terminal.
#
#   test_names.sh TOOLS_DIR NOVA_IMAGE WORKDIR
#
# Prints one PASS/FAIL line per case and "names: N passed, N failed";
# exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# show TEXT: the text with its unprintable bytes made visible (cat -A)
show() { printf '%s\n' "$1" | cat -A | sed 's/^/    /'; }
# raw TEXT: TEXT holds a byte other than printable ASCII and the newline
raw() { [ -n "$(printf '%s' "$1" | LC_ALL=C tr -d '\n -~')" ]; }
# safe NAME TEXT STRING...: TEXT has no raw control (or 8-bit) byte and
# holds each STRING (fixed strings) on one line
safe() {
	local name=$1 text=$2 s
	shift 2
	if raw "$text"; then
		fail "$name: raw control bytes in the output"
		show "$text"
		return
	fi
	for s in "$@"; do
		if ! grep -qF -- "$s" <<<"$text"; then
			fail "$name: the output lacks: $s"
			show "$text"
			return
		fi
	done
	pass "$name"
}

rm -rf "$work"
mkdir -p "$work"
src=$work/tree
img=$work/names.img
# hostile names (any byte but '/' and NUL): an SGR escape and a newline;
# DEL, UTF-8 "é" and 0x9b (the 8-bit CSI); an OSC title sequence
D=$'d\e[31m\nx'
F=$'f\x7f\xc3\xa9\x9b'
G=$'g\e]0;pwned\a'
S=$'s\t\r'
eD='d^[[31m^Jx'
eF='f^?M-CM-)M-^['
eG='g^[]0;pwned^G'
eS='s^I^M'
mkdir -p "$src/$D/$S" "$src/plain"
echo one >"$src/$D/$F"
echo two >"$src/$D/$G"
rm -f "$img"
truncate -s 64M "$img"
L=$'lab\e[2Jel\n'
if ! out=$("$mkfs" -q -c 2 -L "$L" -d "$src" "$img" 2>&1); then
	fail "names: mkfs.nova -d of a tree with hostile names"
	show "$out"
	echo "names: $passed passed, $failed failed, $skipped skipped"
	exit 1
fi
if out=$("$fsck" -fn "$img" 2>&1); then
	pass "names: the image with hostile names is clean"
else
	fail "names: the image with hostile names is not clean"
	show "$out"
fi

# case NAME INJECTION... -- STRING...: fsck -fn and -fy of the injected
# image print STRINGs escaped and no raw control byte
case_() {
	local name=$1 c=$work/case.img args=() n y
	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	cp --sparse=always "$img" "$c"
	if ! "$helper" inject "$c" "${args[@]}" >"$work/inject.out" 2>&1; then
		fail "$name (injection failed)"
		indent <"$work/inject.out"
		return
	fi
	n=$("$fsck" -fn "$c" 2>&1)
	y=$("$fsck" -fy "$c" 2>&1)
	safe "$name" "$n"$'\n--- -y:\n'"$y" "$@"
}

case_ "names: a path in a message (fsck, wrong link count)" \
	file-links "/$D/$F" 7 -- \
	"(regular file /$eD/$eF): link count 7, should be 1"
case_ "names: a directory's path and an entry (fsck, dentry to a free inode)" \
	dentry-free "/$D" "$G.ghost" -- \
	"directory " " (/$eD): entry '$eG.ghost' points to a free inode" \
	"FIXED: directory " ": entry '$eG.ghost' removed"
case_ "names: an entry of the wrong file type (fsck)" \
	ftype "/$D" "$F" -- \
	" (/$eD): entry '$eF' has file type 12, but inode" \
	": entry '$eF' rewritten with file type 8"
case_ "names: two entries in one message (fsck, duplicate readdir cookie)" \
	dup-cookie "/$D" "$F" "$G" -- \
	"entries '$eF' and '$eG' have the same readdir cookie" \
	": entry '$eG' rewritten with a new cookie"
case_ "names: a directory's extra name (fsck, directory hard link)" \
	dir-hardlink /plain "/$D/$S" "$D" -- \
	"has 2 names: '$eD' in directory " "(/plain) is an extra one" \
	": entry '$eD' removed"
case_ "names: a directory in a cycle (fsck)" \
	cycle "/$D" "/$D/$S" -- "is in a cycle of directories unreachable from the root" \
	"(directory /lost+found/#" "/$eS): link count 3, should be 2"
case_ "names: '..' of a directory (fsck)" \
	dotdot "/$D/$S" /plain -- "(/$eD/$eS): '..' is inode "
case_ "names: an xattr name in a message (libnova, value too long)" \
	xattr-bad "/$D/$F" value-len "$G" -- \
	": user.$eG has a value of 65540 bytes (at most 65536)"
case_ "names: an xattr name in a message (libnova, value checksum)" \
	xattr-bad "/$D/$F" value-csum "$G" -- \
	"xattr user.$eG at 0x" ": its value does not match its checksum"

# fsck -v lists xattrs by name
c=$work/case.img
cp --sparse=always "$img" "$c"
if "$helper" inject "$c" xattr-set "/$D/$F" "user.$D" "v" >"$work/inject.out" 2>&1; then
	out=$("$fsck" -fnv "$c" 2>&1)
	safe "names: fsck -v lists an xattr name escaped" "$out" \
		": xattr user.$eD, 1 bytes \"v\""
else
	fail "names: fsck -v (xattr injection failed)"
	indent <"$work/inject.out"
fi

# mkfs.nova refuses an existing file system by its label
out=$("$mkfs" -q "$img" 2>&1)
safe "names: mkfs.nova names an existing NOVA file system's label escaped" "$out" \
	"contains a NOVA file system labelled 'lab^[[2Jel^J' (UUID "
e2=$work/ext2.img
truncate -s 8M "$e2"
if mkfs.ext2 -q -F -L $'e\e[1m\t2' "$e2" >/dev/null 2>&1; then
	out=$("$mkfs" -q "$e2" 2>&1)
	safe "names: mkfs.nova names another file system's label (libblkid's) escaped" "$out" \
		"contains a ext2 file system labelled 'e^[[1m^I2'"
else
	skip "names: another file system's label: no mkfs.ext2"
fi
rm -f "$e2"

# nova-probe: udev's forms (no raw byte either)
out=$("$tools/nova-probe" "$img" 2>&1)
safe "names: nova-probe prints the label in udev's escaped forms" "$out" \
	'ID_FS_LABEL=lab_[2Jel_' 'ID_FS_LABEL_ENC=lab\x1b[2Jel\x0a'

unit_done names
