#!/bin/sh
# A block device without DAX support (a loop device) is refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
modprobe loop 2>/dev/null || true
expect_ok truncate -s 64M /tmp/nodax.img
loopdev=$(losetup -f)
expect_ok losetup "$loopdev" /tmp/nodax.img
nova_mount_refused "init" "does not support DAX" "$loopdev"
expect_ok losetup -d "$loopdev"
rm -f /tmp/nodax.img
