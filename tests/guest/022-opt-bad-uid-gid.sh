#!/bin/sh
# Malformed or invalid uid=/gid= values are refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
nova_mount_refused "init,uid=abc" "NOVA: Bad value for 'uid'"
nova_mount_refused "init,uid=4294967295" "NOVA: invalid uid"
nova_mount_refused "init,gid=-3" "NOVA: Bad value for 'gid'"
