#!/bin/sh
# overlayfs with NOVA as its upper and work directory, with every feature
# that needs the upper file system's help: trusted. attributes (opaque
# directories, redirect_dir, metacopy), the index (file handles), O_TMPFILE
# and RENAME_WHITEOUT - overlayfs must not fall back to a reduced mode.
# Copy-up, a metadata-only copy-up, whiteouts and a directory rename, then
# the same merged view after the overlay and NOVA are mounted again.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

grep -qw overlay /proc/filesystems || modprobe overlay ||
	fail "the guest kernel has no overlayfs"
nova_format
L=$MNT/lower U=$MNT/upper W=$MNT/work M=$MNT/merged
mkdir -p "$L/dir" "$L/old" "$U" "$W" "$M"
echo lower >"$L/file"
echo keep >"$L/dir/a"
echo gone >"$L/del"
echo moved >"$L/old/x"
dd if=/dev/urandom of="$L/big" bs=64k count=16 2>/dev/null
ovl_mount() {
	expect_ok mount -t overlay overlay \
		-o "lowerdir=$L,upperdir=$U,workdir=$W,index=on,redirect_dir=on,metacopy=on" "$M"
}
dmesg_mark
ovl_mount
expect_no_dmesg "does not support|falling back|failed to set xattr|missing required" \
	"overlayfs takes NOVA as a full upper layer"

expect_eq "$(cat "$M/file")" "lower" "a lower file through the overlay"
echo upper >>"$M/file"
expect_eq "$(cat "$U/file")" "$(printf 'lower\nupper')" "copied up"
expect_eq "$(cat "$L/file")" "lower" "the lower file is untouched"
# metadata-only copy-up: the upper file has no data, only a metacopy mark
chmod 600 "$M/big"
expect_eq "$(stat -c %a "$M/big")" "600" "chmod through the overlay"
t_xattr list "$U/big" | grep -q '^trusted.overlay.metacopy$' ||
	fail "no metacopy copy-up: $(t_xattr list "$U/big" | tr '\n' ' ')"
expect_eq "$(stat -c %b "$U/big")" "0" "a metacopy upper file has no blocks"
cmp "$L/big" "$M/big" || fail "the metacopy file reads the lower data"
# whiteout
rm "$M/del"
[ -e "$M/del" ] && fail "a removed lower file is still visible"
expect_eq "$(stat -c '%F %t:%T' "$U/del")" "character special file 0:0" "a whiteout in the upper layer"
# directory rename: a redirect
mv "$M/old" "$M/new"
expect_eq "$(cat "$M/new/x")" "moved" "a renamed lower directory"
t_xattr list "$U/new" | grep -q '^trusted.overlay.redirect$' ||
	fail "no redirect on the renamed directory: $(t_xattr list "$U/new" | tr '\n' ' ')"
# new files and directories in the merged view
mkdir "$M/made"
echo fresh >"$M/made/f"
expect_eq "$(ls "$M" | tr '\n' ' ')" "big dir file made new " "the merged directory"
[ -n "$(ls -A "$W/index")" ] || fail "the index is empty after copy-ups"
expect_ok umount "$M"
nova_umount
expect_ok fsck.nova -fn "$PMEM"

nova_mount
dmesg_mark
ovl_mount
expect_no_dmesg "does not support|falling back|failed to set xattr|missing required" \
	"overlayfs mounts again with every feature"
expect_eq "$(cat "$M/file")" "$(printf 'lower\nupper')" "copy-up after a remount"
expect_eq "$(stat -c %a "$M/big")" "600" "metacopy mode after a remount"
cmp "$L/big" "$M/big" || fail "metacopy data after a remount"
[ -e "$M/del" ] && fail "the whiteout is lost after a remount"
expect_eq "$(cat "$M/new/x")" "moved" "the renamed directory after a remount"
[ -e "$M/old" ] && fail "the old directory name is back after a remount"
expect_eq "$(cat "$M/made/f")" "fresh" "a new file after a remount"
expect_eq "$(ls "$M" | tr '\n' ' ')" "big dir file made new " "the merged directory after a remount"
expect_ok umount "$M"
nova_umount
