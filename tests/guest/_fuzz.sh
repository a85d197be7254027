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

nova_make_partition "$FUZZ_MIB"
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
nova_remove_partition
exit "$rc"
