#!/bin/sh
# shellcheck shell=sh
# One crash image (run by crashimg check, which has written it to $DEV):
# the recovery mount, crashwork ace verify (the state before or after the
# call in flight), unmount, fsck.nova -n -f clean, no NOVA error or kernel
# warning logged meanwhile.  Env: DEV MNT CI_IMAGE CI_W CI_SEQ CI_CALL.
d=${DEV#/dev/}
tag="NOVA-MARK $d image $CI_IMAGE"
echo "$tag" >/dev/kmsg
bad() {
	echo "FAIL: $*"
	st=1
}
st=0
if ! mount -t NOVA "$DEV" "$MNT" 2>/tmp/m.$d; then
	bad "the recovery mount failed: $(cat /tmp/m.$d)"
else
	if ! crashwork ace verify "$MNT" "$CI_W" "$CI_CALL" --seq "$CI_SEQ" >/tmp/v.$d 2>&1; then
		grep -vE '^(INFO|PASS)' /tmp/v.$d | sed 's/^/    /' | head -n 40
		bad "crashwork ace verify (call $CI_CALL in flight)"
	fi
	umount "$MNT" || bad "umount"
fi
if ! grep -q " $MNT " /proc/mounts; then
	fsck.nova -n -f "$DEV" >/tmp/f.$d 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		sed 's/^/    fsck: /' /tmp/f.$d | head -n 20
		bad "fsck.nova -n -f after the recovery: exit status $rc"
	fi
fi
dmesg | sed -n "/$tag\$/,\$p" | grep -E "NOVA error \($d\)|NOVA.*\($d\).*(corrupt|bad )|WARNING:|BUG:|Oops" |
	sed 's/^/    kernel: /' >/tmp/k.$d
if [ -s /tmp/k.$d ]; then
	head -n 10 /tmp/k.$d
	bad "the kernel log has errors"
fi
exit $st
