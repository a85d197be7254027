#!/bin/sh
# A store through a shared mapping updates mtime and ctime (as write(2)
# does, and ext4's page_mkwrite), and the new times survive umount and
# mount; on a written block and on a hole, in both data modes (xfstests
# generic/080).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

for mode in 0 1; do
	nova_format "inplace_data_updates=$mode"
	dd if=/dev/zero of="$MNT/written" bs=4096 count=1 2>/dev/null || fail "dd"
	truncate -s 4096 "$MNT/hole" || fail "truncate"
	for f in written hole; do
		expect_ok t_tree utime "$MNT/$f" 1000000000 0 1000000000 0
	done
	sync
	c0=$(stat -c %Z "$MNT/written")
	sleep 1
	for f in written hole; do
		expect_ok t_tree mwrite "$MNT/$f"
		set -- $(t_tree times "$MNT/$f")
		m=${2%.*}
		[ "$m" -gt 1000000000 ] || fail "mode $mode, $f: mtime not updated by a store through mmap ($2)"
		c=$(stat -c %Z "$MNT/$f")
		[ "$c" -gt "$c0" ] || fail "mode $mode, $f: ctime not updated by a store through mmap ($c, before $c0)"
		t_tree times "$MNT/$f" >"/tmp/mt-$f"
		echo "$c" >>"/tmp/mt-$f"
	done
	nova_umount
	nova_mount "inplace_data_updates=$mode"
	for f in written hole; do
		expect_eq "$(t_tree times "$MNT/$f"; stat -c %Z "$MNT/$f")" "$(cat "/tmp/mt-$f")" \
			"mode $mode, $f: times after remount"
	done
	nova_umount
done
