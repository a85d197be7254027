#!/bin/sh
# Image fuzzer runner (sourced by 090-fuzz-short.sh and by the scripts that
# make fuzz / make fuzz-replay generate; not a test by itself).
#   FUZZ_ITERS   images to try (default 40)
#   FUZZ_SEED    run seed (default: fixed, so make check is reproducible)
#   FUZZ_REPLAY  one iteration seed to replay verbosely instead
#   FUZZ_TIME    stop starting new images after this many seconds (0: none)
#   FUZZ_MIB     size of the fuzzed partition in MiB (default 16)
#   FUZZ_ARGS    more nova_fuzz options (e.g. --strict, -t 60)
# The partition is made on $PMEM (an MBR partition at 1 MiB, as in
# 075-enospc.sh) and removed again at the end.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

FUZZ_ITERS=${FUZZ_ITERS:-40}
FUZZ_SEED=${FUZZ_SEED:-0x5eed0090}
FUZZ_TIME=${FUZZ_TIME:-0}
FUZZ_MIB=${FUZZ_MIB:-16}

le32() {
	printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $((($1 >> 8) & 255)) \
		$((($1 >> 16) & 255)) $((($1 >> 24) & 255))
}
fuzz_part_remove() {
	grep -q " $MNT " /proc/mounts && umount "$MNT"
	dd if=/dev/zero of="$PMEM" bs=512 count=1 conv=notrunc 2>/dev/null
	blockdev --rereadpt "$PMEM"
}
expect_ok dd if=/dev/zero of="$PMEM" bs=512 count=1 conv=notrunc 2>/dev/null
printf "\\000\\000\\000\\000\\203\\000\\000\\000$(le32 2048)$(le32 $((FUZZ_MIB * 2048)))" |
	dd of="$PMEM" bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of="$PMEM" bs=1 seek=510 conv=notrunc 2>/dev/null
expect_ok blockdev --rereadpt "$PMEM"
sleep 1
DEV=${PMEM}p1
[ -b "$DEV" ] || fail "no $DEV"
info "fuzzing $DEV ($FUZZ_MIB MiB), $(nproc) CPUs"

rc=0
if [ -n "${FUZZ_REPLAY:-}" ]; then
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
	nova_fuzz replay "$FUZZ_REPLAY" -d "$DEV" -m "$MNT" $FUZZ_ARGS || rc=$?
else
	# shellcheck disable=SC2086
	nova_fuzz run -d "$DEV" -m "$MNT" -n "$FUZZ_ITERS" -s "$FUZZ_SEED" \
		-T "$FUZZ_TIME" $FUZZ_ARGS || rc=$?
fi
echo "nova_fuzz exit status $rc"
if [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ]; then
	# The kernel is in doubt: leave the device alone.  A mount stuck after
	# an Oops holds s_umount, and the sync before /init's poweroff would
	# hang on it until the host's timeout: power off 90 s from now.
	setsid sh -c 'sleep 90; echo "nova_fuzz: forced power-off"; echo o > /proc/sysrq-trigger' \
		</dev/null >/dev/console 2>&1 &
	exit "$rc"
fi
fuzz_part_remove
exit "$rc"
