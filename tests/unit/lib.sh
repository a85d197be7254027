# shellcheck shell=bash
# What the host test scripts of the tools share (test_mkfs.sh, test_fsck.sh,
# test_names.sh); each is run as
#
#   test_X.sh TOOLS_DIR HELPER WORKDIR
#
# and sources this file first, which sets $tools (absolute), $helper, $work,
# $mkfs and $fsck from those arguments.  Every case prints one PASS, FAIL or
# SKIP line; unit_done NAME prints "NAME: N passed, N failed, N skipped".
set -uo pipefail
tools=$(cd "$1" && pwd)
work=$3
# shellcheck disable=SC2034 # for the scripts that source this file
helper=$2 mkfs=$tools/mkfs.nova fsck=$tools/fsck.nova

passed=0 failed=0 skipped=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "SKIP $*"; skipped=$((skipped + 1)); }
# t NAME CMD...: one case from a command's exit status
t() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
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

# unit_done NAME: remove the work directory, print the counts; the status
# says whether every case passed
unit_done() {
	rm -rf "$work"
	echo "$1: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}
