#!/bin/sh
# Namespace operations with busybox tools, checked again after a remount.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
cd "$MNT" || fail "cd"
expect_ok mkdir -p a/b/c
expect_ok touch a/f1 a/b/f2
expect_ok ln a/f1 a/f1-link
expect_ok ln -s ../f1 a/b/sym
expect_ok ln -s "$(printf 'x%.0s' $(seq 1 300))" longsym
expect_ok mknod fifo p
expect_ok mknod chr c 1 3
expect_ok mv a/b/f2 a/f2-moved
expect_ok mv a/b/c c-moved
expect_ok mkdir gone
expect_ok rmdir gone
expect_ok touch gone-file
expect_ok rm gone-file
expect_ok chmod 640 a/f1
cd /
listing() {
	(cd "$MNT" && find . | sort | while read -r p; do
		stat -c '%n %F %a %h %u %g' "$p"
	done)
	readlink "$MNT/a/b/sym"
	readlink "$MNT/longsym" | wc -c
}
before=$(listing)
echo "$before"
echo "$before" | grep -q '^./a/f1 regular empty file 640 2 ' || fail "a/f1 attributes"
echo "$before" | grep -q '^./a directory 755 3 ' || fail "a link count"
echo "$before" | grep -q '^. directory 755 4 ' || fail "root link count"
echo "$before" | grep -q '^./fifo fifo' || fail "fifo type"
echo "$before" | grep -q '^./chr character special file' || fail "chr type"
[ "$(readlink "$MNT/a/b/sym")" = "../f1" ] || fail "symlink target"
[ -e "$MNT/gone" ] && fail "rmdir'ed dir still there"
nova_umount
nova_mount
after=$(listing)
[ "$before" = "$after" ] || { echo "$after"; fail "listing differs after remount"; }
[ "$(stat -c '%t,%T' "$MNT/chr")" = "1,3" ] || fail "device numbers after remount"
expect_fail rmdir "$MNT/a"
expect_fail mkdir "$MNT/a"
nova_umount
