#!/bin/sh
# Malformed or out-of-range mode= values are refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
nova_mount_refused "init,mode=abc" "NOVA: Bad value for 'mode'"
nova_mount_refused "init,mode=177777" "NOVA: invalid mode"
