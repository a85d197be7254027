#!/bin/sh
# Concurrency stress (tests/guest/src/nova_stress.c): 4 processes for 60 s
# race on one directory tree (create, write, mmap, rename across
# directories, link, unlink, truncate, fallocate, readdir, setattr,
# symlink, mkdir/rmdir, fsync) and check private files byte by byte; then
# fsck.nova -fn must pass, the tree must mount and read back, and the
# kernel log must be clean.  make stress is the long version (8
# processes, 10 minutes, 4 vCPUs).
STRESS_PROCS=${STRESS_PROCS:-4}
STRESS_SECS=${STRESS_SECS:-60}
. "$NOVA_TESTS/_stress.sh"
