#!/bin/sh
# NOVA's ioctls from a 32-bit process on the 64-bit kernel (compat_ioctl,
# a review finding: ENOTTY for FS_IOC_GETFSLABEL, NOVA_IOC_LOG_INFO and
# the fscrypt calls, as ext4 answers them): t_ioctl32 (gcc -m32) prints
# what t_ioctl prints (label, generation, flags, log info, encryption
# policy), on a file and on directories.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
expect_ok nova-fsctl setlabel "$MNT" compat-test
mkdir "$MNT/d"
dd if=/dev/urandom of="$MNT/f" bs=4096 count=4 2>/dev/null
for p in "$MNT/f" "$MNT/d" "$MNT"; do
	out64=$(t_ioctl "$p")
	out32=$(t_ioctl32 "$p")
	info "$p: $(echo "$out64" | tr '\n' ' ')"
	echo "$out64" | grep -q "^label=compat-test$" || fail "64-bit label of $p: $out64"
	echo "$out64" | grep -q "^log_pages=[1-9]" || fail "64-bit NOVA_IOC_LOG_INFO of $p: $out64"
	echo "$out64" | grep -q "^policy=ENODATA$" || fail "64-bit encryption policy of $p: $out64"
	expect_eq "$out32" "$out64" "32-bit ioctls on $p"
done
