#!/bin/sh
# errors= accepts only continue, remount-ro and panic.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
nova_mount_refused "init,errors=ignore" "NOVA: Bad value for 'errors'"
nova_mount_refused "init,dbgmask=x" "NOVA: Bad value for 'dbgmask'"
