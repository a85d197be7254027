#!/bin/sh
# A device without a NOVA super block (or its replica) is refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
blocks=$(($(dev_bytes) / 4096))
expect_ok dd if=/dev/zero of="$PMEM" bs=4096 count=1 conv=notrunc 2>/dev/null
expect_ok dd if=/dev/zero of="$PMEM" bs=4096 count=1 seek=$((blocks - 1)) conv=notrunc 2>/dev/null
nova_mount_refused "" "no NOVA file system found"
expect_fail nova-probe "$PMEM"
