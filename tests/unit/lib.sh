# shellcheck shell=bash
# What the host test scripts of the tools share (test_mkfs.sh, test_fsck.sh,
# test_names.sh, test_encrypt.sh, test_debug.sh, test_project.sh,
# test_powercut.sh); each is
# run as
#
#   test_X.sh TOOLS_DIR HELPER WORKDIR
#
# and sources this file first, which sets $tools (absolute), $helper, $work,
# $mkfs and $fsck from those arguments.  Every case prints one PASS, FAIL or
# SKIP line; unit_done NAME prints "NAME: N passed, N failed, N skipped".
#
# The cases on injected images (HELPER is then nova_image) work on $c, a
# copy of the base image $img; the script sets both, or base_image does:
#   base_image SUITE   $img made by mkfs.nova -d of $work/tree, and $c
#   codes              the sorted set of the codes on the problem lines of
#                      fsck's output (stdin)
#   injected INJ...    $c from $img, then each injection in order
#   reported NAME ...  fsck -n reports, fsck -y repairs, then clean
set -uo pipefail
tools=$(cd "$1" && pwd)
work=$3
# shellcheck disable=SC2034 # for the scripts that source this file
helper=$2 mkfs=$tools/mkfs.nova fsck=$tools/fsck.nova

passed=0 failed=0 skipped=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "SKIP $*"; skipped=$((skipped + 1)); }
# t NAME CMD...: one case from a command's exit status.  One command: in
#   t NAME [ A ] && [ B ]
# the shell runs (t NAME [ A ]) && [ B ], and B decides nothing; give each
# condition its own t (or is)
t() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
# not CMD...: true if CMD fails (t NAME not grep -q PAT <<<"$out")
not() { ! "$@"; }
# is NAME GOT WANT: one case, GOT must be WANT
is() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (got '$2', expected '$3')"; fi
}
indent() { sed 's/^/    /'; }
# run CMD...: sets $out (stdout + stderr) and $rc
run() {
	out=$("$@" 2>&1)
	rc=$?
}
expect() {	# expect NAME RC [PATTERN]: the last run's exit status and output
	local name=$1 want=$2 pat=${3:-}
	if [ "$rc" -ne "$want" ]; then
		fail "$name (exit $rc, expected $want)"
		printf '%s\n' "$out" | indent
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$out"; then
		fail "$name (output lacks /$pat/)"
		printf '%s\n' "$out" | indent
	else
		pass "$name"
	fi
}
sum() { sha256sum "$1" | cut -d' ' -f1; }
# le64 IMAGE OFFSET: the little-endian 64-bit word at OFFSET
le64() { od -An -tu8 --endian=little -j "$2" -N8 "$1" | tr -d ' '; }
# le32 IMAGE OFFSET: the little-endian 32-bit word at OFFSET
le32() { od -An -tu4 --endian=little -j "$2" -N4 "$1" | tr -d ' '; }

# base_image SUITE: $img, $work/base.img, a 64 MiB image that mkfs.nova
# -d makes of $work/tree (the case "SUITE: mkfs.nova -d of the tree"), and
# $c, $work/case.img, the image of the cases
base_image() {
	img=$work/base.img c=$work/case.img
	truncate -s 64M "$img"
	run "$mkfs" -q -c 2 -d "$work/tree" "$img"
	expect "$1: mkfs.nova -d of the tree" 0
}
# codes: the sorted set of the codes on the problem lines of fsck's output
# (each ends with its code, "[PR_...]": src/tools/fsck/problem.h)
codes() {
	sed -n 's/.* \[\(PR_[A-Z0-9_]*\)\]$/\1/p' | sort -u | paste -sd' ' -
}
# injected INJECTION...: $c from the base image $img, then each injection
# of $helper (nova_image inject; its arguments one word, split on blanks)
# in order; false if one fails
injected() {
	local i
	cp --sparse=always "$img" "$c"
	for i in "$@"; do
		# shellcheck disable=SC2086 # the arguments of one injection
		if ! "$helper" inject "$c" $i >"$work/inject.out" 2>&1; then
			indent <"$work/inject.out"
			return 1
		fi
	done
}
# reported NAME CODES PATTERN INJECTION...: on the injected image $c, fsck
# -n exits 4, reports exactly CODES, prints PATTERN and changes nothing;
# fsck -y repairs (exit 1); the image is then clean
reported() {
	local name=$1 want=$2 pat=$3 n sum0 why=""
	shift 3
	if ! injected "$@"; then
		fail "$name (injection failed)"
		return
	fi
	sum0=$(sum "$c")
	n=$("$fsck" -fn "$c" 2>&1)
	rc=$?
	[ "$rc" -eq 4 ] || why="fsck -n exit $rc, expected 4"
	[ -z "$why" ] && [ "$(codes <<<"$n")" != "$want" ] &&
		why="fsck -n reports $(codes <<<"$n"), expected $want"
	[ -z "$why" ] && ! grep -qE -- "$pat" <<<"$n" && why="fsck -n lacks /$pat/"
	[ -z "$why" ] && [ "$(sum "$c")" != "$sum0" ] && why="fsck -n changed the image"
	if [ -z "$why" ]; then
		run "$fsck" -fy "$c"
		[ "$rc" -eq 1 ] || why="fsck -y exit $rc, expected 1"
	fi
	if [ -z "$why" ]; then
		run "$fsck" -fn "$c"
		[ "$rc" -eq 0 ] || why="not clean after the repair"
	fi
	if [ -z "$why" ]; then
		pass "$name: reported ($want), repaired"
	else
		fail "$name: $why"
		printf '%s\n' "$n" "--- last run:" "$out" | indent
	fi
}

# full_log_dir DIR N [LONG]: DIR with N empty files of 15-byte names
# (64-byte dentries; with LONG one more of 24 bytes, an 80-byte dentry):
# after "." and "..", 61 names leave 32 bytes of the log page, as do 59
# and LONG with one link-change entry logged after them (48 bytes)
full_log_dir() {
	local i
	mkdir -p "$1"
	for i in $(seq 100 $((99 + $2))); do
		: >"$1/name-of-15-$i"
	done
	[ -z "${3:-}" ] || : >"$1/a-name-of-twenty-four-b"
}

# log_room PATH: the bytes left in the last log page of PATH in $c
log_room() {
	echo $((4064 - $("$helper" info "$c" "$1" | sed -n 's/^tail=//p') % 4096))
}

# tree_kept NAME TREE: $c holds every name, link count, size and content
# of the directory TREE (nova_image check-tree)
tree_kept() {
	if "$helper" check-tree "$c" "$2" >"$work/reader.out" 2>&1; then
		pass "$1: every name, link count, size and content kept"
	else
		fail "$1: not every name, link count, size and content kept"
		grep -v '^PASS' "$work/reader.out" | tail -n 3 | indent
	fi
}

# unit_done NAME: remove the work directory, print the counts; the status
# says whether every case passed
unit_done() {
	rm -rf "$work"
	echo "$1: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}
