#!/bin/bash
# The host side of the xfstests runs (tests/xfstests/results.py): one boot's
# console parsed into per-test results, a test the guest killed for running
# too long (--test-timeout), a guest that died during a test.
#
# Usage: test_xfstests.sh TOOLS_DIR HELPER WORKDIR (as the other unit scripts)
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
results=$(cd "$(dirname "$0")/../xfstests" && pwd)/results.py
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

printf 'generic/001\ngeneric/002\ngeneric/003\ngeneric/004\ngeneric/005\n' >tests.list
cat >console.log <<'CON'
NOVA-XFS: START 6.1.0 boot 1 fstyp NOVA (up 3 s)
NOVA-XFS: T 1000 FSTYP         -- NOVA
NOVA-XFS: T 1010 generic/001 5s ...  4s
NOVA-XFS: T 1020 generic/002       [not run] this test requires a foo
NOVA-XFS: T 1030 generic/003       - output mismatch (see /x/generic/003.out.bad)
NOVA-XFS: T 1030     --- tests/generic/003.out
NOVA-XFS: TIMEOUT generic/004 1805
NOVA-XFS: T 2840 generic/004       [failed, exit status 137]- output mismatch (see /x/generic/004.out.bad)
CON
out=$("$results" parse console.log tests.list 1 0)
field() { awk -F'\t' -v t="$1" -v f="$2" '$1 == t { print $f }' <<<"$out"; }
is parse-pass "$(field generic/001 2)" pass
is parse-notrun "$(field generic/002 2)" notrun
is parse-notrun-reason "$(field generic/002 5)" "this test requires a foo"
is parse-fail "$(field generic/003 2)" fail
t parse-fail-diff grep -q 'output mismatch.*--- tests/generic/003.out' <<<"$(field generic/003 5)"
is parse-timeout-status "$(field generic/004 2)" fail
t parse-timeout-reason grep -q '^timed out after 1805 s' <<<"$(field generic/004 5)"
# the guest died while generic/005 ran (no DONE line): crashed, or hung
# when the host killed it for a silent console
is parse-crashed "$(field generic/005 2)" crashed
out=$("$results" parse console.log tests.list 1 1)
is parse-hung "$(field generic/005 2)" hung
# a boot that ended at its deadline: the interrupted test is left out
printf 'NOVA-XFS: START x\nNOVA-XFS: T 1 generic/001 3s ...  Interrupted!\nNOVA-XFS: DONE\n' >console.log
out=$("$results" parse console.log tests.list 1 0)
is parse-interrupted "$out" ""
unit_done test_xfstests
