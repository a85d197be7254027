#!/bin/sh
# Smoke test: the fsdax pmem device is there and the NOVA module registered itself.
. "$NOVA_TESTS/lib.sh"

[ -b "$PMEM" ] || fail "$PMEM is not a block device"
dev=${PMEM#/dev/}
expect_eq "$(cat "/sys/block/$dev/queue/dax")" 1 "$PMEM DAX support (queue/dax)"
info "$PMEM: $(($(cat "/sys/block/$dev/size") / 2048)) MiB, DAX-capable"

grep -q NOVA /proc/filesystems || fail "NOVA is not in /proc/filesystems after insmod"
info "NOVA is registered"
