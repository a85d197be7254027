#!/bin/sh
# Extended attributes: user., trusted. and security. names on every inode
# type; XATTR_CREATE/REPLACE, ENODATA, ERANGE, E2BIG and the VFS limits
# (names to 255 bytes, values to 64 KiB); many attributes and large ones
# on one inode; replacing one attribute thousands of times keeps the log
# within its GC bound; ctime; everything the same after a remount and
# fsck.nova clean; ENOSPC leaves the old value.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

x() { t_xattr "$@"; }

nova_format
f=$MNT/f
: >"$f"
expect_eq "$(x list "$f")" "" "a new file has no attributes"
expect_eq "$(x get "$f" user.a)" "ENODATA" "get of a missing attribute"
expect_ok x set "$f" user.a hello
expect_eq "$(x get "$f" user.a)" "hello" "get after set"
expect_eq "$(x size "$f" user.a)" "5" "size query"
expect_eq "$(x getbuf "$f" user.a 4)" "ERANGE" "a buffer too small"
expect_eq "$(x set "$f" user.a again create)" "EEXIST" "XATTR_CREATE on an existing name"
expect_eq "$(x set "$f" user.b v replace)" "ENODATA" "XATTR_REPLACE on a missing name"
expect_ok x set "$f" user.a world replace
expect_eq "$(x get "$f" user.a)" "world" "replaced"
expect_ok x set "$f" user.b "" create
expect_eq "$(x size "$f" user.b)" "0" "an empty value"
expect_eq "$(x list "$f" | sort | tr '\n' ' ')" "user.a user.b " "list"
expect_eq "$(x listbuf "$f" 8)" "ERANGE" "a list buffer too small"
expect_eq "$(x listbuf "$f" 0)" "14" "list size query"
expect_ok x rm "$f" user.b
expect_eq "$(x get "$f" user.b)" "ENODATA" "removed"
expect_eq "$(x rm "$f" user.b)" "ENODATA" "removing a missing name"
expect_eq "$(x set "$f" user.b v replace)" "ENODATA" "REPLACE after a removal"

# limits: XFS's, at least
n255=$(printf 'n%.0s' $(seq 250))
expect_ok x set "$f" "user.$n255" long
expect_eq "$(x get "$f" "user.$n255")" "long" "a 255-byte name"
expect_eq "$(x set "$f" "user.${n255}x" v)" "ERANGE" "a 256-byte name"
expect_ok x fill "$f" user.big 65536 7
expect_ok x check "$f" user.big 65536 7
expect_eq "$(x fill "$f" user.big2 65537 7)" "E2BIG" "a value over 64 KiB"
expect_ok x fill "$f" user.big 65536 8 replace
expect_ok x check "$f" user.big 65536 8

# ctime moves with every change, mtime does not
touch -d "2001-01-01 00:00:00" "$f"
m0=$(stat -c %Y "$f")
c0=$(stat -c %Z "$f")
sleep 1
expect_ok x set "$f" user.c c
[ "$(stat -c %Z "$f")" -gt "$c0" ] || fail "setxattr did not change ctime"
expect_eq "$(stat -c %Y "$f")" "$m0" "setxattr changed mtime"

# namespaces and inode types
d=$MNT/d
mkdir "$d"
ln -s f "$MNT/l"
mkfifo "$MNT/p"
mknod "$MNT/c" c 1 3
for p in "$f" "$d" "$MNT/l" "$MNT/p" "$MNT/c"; do
	expect_ok x set "$p" trusted.t "t-$p"
	expect_ok x set "$p" security.s "s-$p"
	expect_eq "$(x get "$p" trusted.t)" "t-$p" "trusted. on $p"
done
expect_ok x set "$d" user.dir dirvalue
expect_eq "$(x set "$MNT/l" user.x v)" "EPERM" "user. on a symlink (VFS rule)"
expect_eq "$(x set "$MNT/p" user.x v)" "EPERM" "user. on a fifo (VFS rule)"
expect_eq "$(x set "$f" bogus.x v)" "EOPNOTSUPP" "an unknown namespace"

# many attributes on one inode, some large; a directory's too
expect_ok x many "$f" user.m 500 300
expect_ok x many "$d" user.m 200 3000
expect_ok x checkmany "$f" user.m 500 300
expect_eq "$(x list "$f" | grep -c '^user\.m')" "500" "500 names listed"
# one attribute replaced thousands of times: GC keeps the log bounded
ch=$MNT/churn
: >"$ch"
expect_ok x fill "$ch" user.multi 65536 3
expect_ok x fill "$ch" user.mid 5000 4
expect_ok x set "$ch" user.gone x
expect_ok x rm "$ch" user.gone
expect_ok x churn "$ch" trusted.churn 3000 1500
expect_ok x check "$ch" trusted.churn 1500 2999
info "churned file: $(t_gc loginfo "$ch" | tr '\n' ' ')"
pages=$(t_gc loginfo "$ch" | sed -n 's/^log_pages=//p')
limit=$(t_gc loginfo "$ch" | sed -n 's/^limit_pages=//p')
[ -n "$pages" ] && [ -n "$limit" ] || fail "no log info for the churned file"
[ "$pages" -le "$limit" ] || fail "log has $pages pages, over its bound $limit"
expect_ok x check "$ch" user.multi 65536 3
expect_ok x check "$ch" user.mid 5000 4
expect_eq "$(x get "$ch" user.gone)" "ENODATA" "a removal survives the GCs"
# a thorough GC on request rewrites the groups, part by part
gcs=$(sed -n 's/^thorough_gc_runs[: ]*//p' /proc/fs/NOVA/pmem0/gc)
echo "$(stat -c %i "$ch")" >/proc/fs/NOVA/pmem0/gc
[ "$(sed -n 's/^thorough_gc_runs[: ]*//p' /proc/fs/NOVA/pmem0/gc)" -gt "$gcs" ] ||
	fail "no thorough GC ran"
expect_ok x check "$ch" user.multi 65536 3
expect_ok x check "$ch" user.mid 5000 4
expect_ok x check "$ch" trusted.churn 1500 2999
expect_eq "$(x list "$ch" | sort | tr '\n' ' ')" "trusted.churn user.mid user.multi " "names after a thorough GC"

# after a remount: all the same
nova_umount
expect_ok fsck.nova -fn "$PMEM"
nova_mount
expect_eq "$(x get "$f" user.a)" "world" "user.a after remount"
expect_eq "$(x get "$f" user.b)" "ENODATA" "the removal after remount"
expect_eq "$(x get "$f" "user.$n255")" "long" "long name after remount"
expect_ok x check "$f" user.big 65536 8
expect_ok x checkmany "$f" user.m 500 300
expect_ok x checkmany "$d" user.m 200 3000
expect_ok x check "$ch" trusted.churn 1500 2999
expect_ok x check "$ch" user.multi 65536 3
expect_ok x check "$ch" user.mid 5000 4
expect_eq "$(x get "$ch" user.gone)" "ENODATA" "a removal after a remount"
for p in "$f" "$d" "$MNT/l" "$MNT/p" "$MNT/c"; do
	expect_eq "$(x get "$p" security.s)" "s-$p" "security. on $p after remount"
done
expect_eq "$(x get "$d" user.dir)" "dirvalue" "directory attribute after remount"
# unlinking a file with attributes frees everything (fsck counts leaks)
rm "$f"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
nova_mount

# ENOSPC: a full device refuses a new value and keeps the old one
g=$MNT/g
: >"$g"
expect_ok x fill "$g" user.keep 4000 1
dd if=/dev/zero of="$MNT/fill" bs=1M 2>/dev/null
i=0
r=
while [ $i -lt 200 ]; do
	r=$(x fill "$g" "user.n$i" 60000 $i)
	[ -z "$r" ] || break
	i=$((i + 1))
done
expect_eq "$r" "ENOSPC" "a full device refuses new attributes"
expect_eq "$(x fill "$g" user.keep 60000 2)" "ENOSPC" "a full device refuses a larger value"
expect_ok x check "$g" user.keep 4000 1
rm "$MNT/fill"
expect_ok x fill "$g" user.keep 60000 2
expect_ok x check "$g" user.keep 60000 2
nova_umount
expect_ok fsck.nova -fn "$PMEM"
nova_mount
expect_ok x check "$g" user.keep 60000 2
nova_umount
