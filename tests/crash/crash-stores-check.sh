#!/bin/sh
# shellcheck shell=sh
# Guest side of tests/crash/run-crash-stores.sh, the checking boot (busybox
# sh): the crash-image pack is $NOVA_TESTS/pack; the two pmem devices are
# checked in parallel, each with half of the images (crashimg check writes
# an image to its device, then runs crash-stores-one.sh).
# nova-timeout: 6000
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

PACK=$NOVA_TESTS/pack
[ -f "$PACK" ] || fail "no pack"
n=$(crashimg count "$PACK") || fail "cannot read the pack"
devs="$PMEM"
[ -b "${PMEM2:-}" ] && devs="$PMEM $PMEM2"
ndev=$(echo "$devs" | wc -w)
per=$(((n + ndev - 1) / ndev))
info "$n crash images on $ndev devices"
i=0
for d in $devs; do
	m=/mnt/ci$i
	mkdir -p "$m"
	DEV=$d MNT=$m crashimg check "$PACK" "$d" "$NOVA_TESTS/crash-stores-one.sh" \
		--first $((i * per)) --count "$per" >/tmp/check$i.out 2>&1 &
	eval "pid$i=\$!"
	i=$((i + 1))
done
status=0
i=0
for d in $devs; do
	eval "wait \$pid$i" || status=1
	cat /tmp/check$i.out
	i=$((i + 1))
done
echo "CHECK-DONE status=$status"
exit $status
