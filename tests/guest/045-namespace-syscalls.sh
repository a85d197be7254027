#!/bin/sh
# POSIX namespace and metadata cases (tests/guest/src/t_namespace.c), each
# asserting return values, errno and resulting state.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
expect_ok mkdir "$MNT/ns"
out=$(t_namespace "$MNT/ns" 2>&1)
rc=$?
echo "$out" | grep -v '^PASS '
echo "$out" | tail -n 1
[ "$rc" -eq 0 ] || fail "t_namespace failed (rc=$rc)"
n=$(echo "$out" | grep -c '^PASS ')
[ "$n" -ge 100 ] || fail "only $n cases passed"
nova_umount
