#!/bin/sh
# An unknown mount option is refused with EINVAL and a log line.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
nova_mount_refused "init,bogus_option" "NOVA: Unknown parameter 'bogus_option'"
