#!/bin/sh
# Hostile images: 100 corrupted images (super block copies,
# reserved inodes, inode tables and inodes, log page tails, log entries
# with and without their checksums fixed, journals, clean-unmount
# snapshots, symlink blocks, random bytes) mounted, walked, read, written
# and unmounted in one boot.  No Oops/BUG/WARNING/lockup/hang is allowed;
# errors must be clean (EINVAL mount, EUCLEAN/EIO).  Fixed seed: the same
# images every run.  make fuzz is the long version; make fuzz-replay
# SEED=... replays one image (seeds are printed per image).
FUZZ_ITERS=${FUZZ_ITERS:-100}
FUZZ_SEED=${FUZZ_SEED:-0x5eed0090}
FUZZ_ARGS=${FUZZ_ARGS:--t 60}
. "$NOVA_TESTS/_fuzz.sh"
