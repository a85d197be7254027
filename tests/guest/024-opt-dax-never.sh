#!/bin/sh
# NOVA is always DAX: dax=never and dax=inode are refused, dax/dax=always work.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"
nova_mount_refused "init,dax=never" "NOVA: NOVA is always DAX"
nova_mount_refused "init,dax=inode" "NOVA: NOVA is always DAX"
nova_format "dax"
nova_umount
nova_mount "dax=always"
nova_umount
