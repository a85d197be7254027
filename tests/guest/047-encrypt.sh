#!/bin/sh
# fscrypt encryption (v2 policies, xfs_io's set_encpolicy/add_enckey):
# names, file data and symlink targets of an encrypted directory are
# ciphertext on pmem; with the key everything reads back (also after a
# remount); without it the directory lists no-key names, files cannot
# be opened or created, and names can still be removed.  Truncate,
# holes, a write past EOF and punch/zero range keep zeros where they
# belong (the plaintext past EOF is never trusted); collapse range and
# mmap are refused; the root cannot be encrypted; the first policy sets
# INCOMPAT_ENCRYPT; IV_INO_LBLK_64 and _32 policies work (the largest
# file is 2^32 - 1 blocks, as on ext4); fsck.nova finds it clean.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

# A 64-byte key as \ooo (octal) escapes, for printf
KEY=$(head -c 64 /dev/urandom | od -An -v -to1 | tr -s ' \n' '\n' | grep . | sed 's/^/\\/' | tr -d '\n')
add_key() {
	# shellcheck disable=SC2059
	printf "$KEY" | xfs_io -c add_enckey "$MNT" | sed -n 's/.*identifier //p'
}
rm_key() {
	expect_ok xfs_io -c "rm_enckey $1" "$MNT"
}
key_status() {
	xfs_io -c "enckey_status $1" "$MNT"
}
# the device holds the string $1 (plaintext leaked)?
on_pmem() {
	strings -n 8 "$PMEM" | grep -q -F "$1"
}
# the names given, sorted, on one line
names() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
# the sha256 of a file
sum() { sha256sum "$1" | cut -d' ' -f1; }

nova_format
expect_eq "$(($(od -An -tu8 -j 128 -N 8 "$PMEM") & 2))" 0 "no INCOMPAT_ENCRYPT on a new file system"
id=$(add_key)
[ ${#id} -eq 32 ] || fail "add_enckey gave no key identifier: '$id'"
# as ext4: never the root (lost+found and the quota files are plaintext)
xfs_io -c "set_encpolicy $id" "$MNT" 2>&1 | grep -q "Operation not permitted" ||
	fail "the root directory can be encrypted"
d=$MNT/d
mkdir "$d"
expect_ok xfs_io -c "set_encpolicy $id" "$d"
xfs_io -c get_encpolicy "$d" | grep -q "$id" || fail "get_encpolicy does not show the key"
echo 1 >/proc/sys/vm/drop_caches
expect_eq "$(($(od -An -tu8 -j 128 -N 8 "$PMEM") & 2))" 2 "the first policy sets INCOMPAT_ENCRYPT"
expect_fail xfs_io -c "set_encpolicy $id" "$MNT"	# not empty

# contents: a text that must not appear on pmem, several pages, a
# partial page, a hole
secret="NOVA-SECRET-PLAINTEXT-0123456789"
i=0
while [ $i -lt 400 ]; do echo "$secret $i"; i=$((i + 1)); done >/tmp/plain
expect_ok cp /tmp/plain "$d/file"
long=$(printf 'n%.0s' $(seq 1 255))
expect_ok cp /tmp/plain "$d/$long"
mkdir "$d/sub"
echo "$secret sub" >"$d/sub/inner"
ln -s "target-$secret" "$d/link"
ln "$d/file" "$d/hard"
mv "$d/hard" "$d/renamed"
expect_ok xfs_io -f -c "pwrite -S 0x41 0 5000" -c "pwrite -S 0x42 20000 100" "$d/holes"
expect_eq "$(sum "$d/file")" "$(sum /tmp/plain)" "contents read back"
expect_eq "$(sum "$d/$long")" "$(sum /tmp/plain)" "a 255-byte name"
expect_eq "$(readlink "$d/link")" "target-$secret" "symlink target"
expect_eq "$(stat -c %s "$d/link")" $((${#secret} + 7)) "symlink size: the target's"
expect_eq "$(cat "$d/sub/inner")" "$secret sub" "subdirectory"
expect_eq "$(ls "$d" | sort | tr '\n' ' ')" "$(names "$long" file holes link renamed sub)" "names"
expect_eq "$(od -An -tx1 -j 4096 -N 4 "$d/holes" | tr -d ' ')" "41414141" "data of page 1"
expect_eq "$(od -An -tx1 -j 12000 -N 4 "$d/holes" | tr -d ' ')" "00000000" "a hole reads zeros"
expect_eq "$(stat -c %s "$d/holes")" 20100 "size"
sync
echo 1 >/proc/sys/vm/drop_caches
on_pmem "$secret" && fail "the plaintext is on pmem"
on_pmem "$long" && fail "a plaintext name is on pmem"
on_pmem "target-$secret" && fail "a plaintext symlink target is on pmem"

# truncate: shrink into a page, grow again: zeros, never old bytes
expect_ok xfs_io -f -c "pwrite -S 0x61 0 10000" "$d/t"
expect_ok truncate -s 5000 "$d/t"
expect_ok truncate -s 12000 "$d/t"
expect_eq "$(od -An -tx1 -j 4999 -N 2 "$d/t" | tr -d ' ')" "6100" "grown past a shrink: zeros after the old EOF"
expect_eq "$(od -An -v -tx1 -j 5000 -N 7000 "$d/t" | tr -d ' \n' | tr -d 0)" "" "all zeros to the new EOF"
expect_ok truncate -s 3000 "$d/t"
expect_ok xfs_io -c "pwrite -S 0x62 9000 10" "$d/t"
expect_eq "$(od -An -v -tx1 -j 3000 -N 6000 "$d/t" | tr -d ' \n' | tr -d 0)" "" "a write past EOF: zeros in the gap"
expect_eq "$(od -An -tx1 -j 2999 -N 1 "$d/t" | tr -d ' ')" "61" "data before EOF kept"
# punch hole and zero range inside pages
expect_ok xfs_io -f -c "pwrite -S 0x63 0 16384" -c "fpunch 100 200" -c "fzero 5000 100" "$d/p"
expect_eq "$(od -An -tx1 -j 99 -N 2 "$d/p" | tr -d ' ')" "6300" "punched bytes are zero"
expect_eq "$(od -An -tx1 -j 299 -N 2 "$d/p" | tr -d ' ')" "0063" "after the hole: data"
expect_eq "$(od -An -tx1 -j 4999 -N 2 "$d/p" | tr -d ' ')" "6300" "zeroed range"
expect_eq "$(od -An -tx1 -j 5100 -N 1 "$d/p" | tr -d ' ')" "63" "after the zero range: data"
expect_ok xfs_io -c "falloc 16384 8192" "$d/p"
expect_eq "$(od -An -v -tx1 -j 16384 -N 8192 "$d/p" | tr -d ' \n' | tr -d 0)" "" "preallocated pages read zeros"
expect_fail xfs_io -c "fcollapse 0 4096" "$d/p"
expect_fail xfs_io -c "mmap -r 0 4096" "$d/p"

# IV_INO_LBLK_64 and IV_INO_LBLK_32 policies (AES-256-XTS contents, as
# fscrypt wants): inode and file block numbers fit in 32 bits
for f in 8 16; do
	v=$MNT/iv$f
	mkdir "$v"
	expect_ok xfs_io -c "set_encpolicy -c 1 -n 4 -v 2 -f $f $id" "$v"
	xfs_io -c get_encpolicy "$v" | grep -q "Flags: 0x$(printf %02x $f)" ||
		fail "get_encpolicy of $v does not show flags $f"
	expect_ok cp /tmp/plain "$v/file"
	expect_ok xfs_io -f -c "pwrite -S 0x64 40960 8192" "$v/sparse"
done
echo 1 >/proc/sys/vm/drop_caches
for f in 8 16; do
	expect_eq "$(sum "$MNT/iv$f/file")" "$(sum /tmp/plain)" "contents with policy flags $f"
	expect_eq "$(od -An -tx1 -j 45000 -N 1 "$MNT/iv$f/sparse" | tr -d ' ')" "64" \
		"data past a hole with policy flags $f"
done
on_pmem "$secret" && fail "the plaintext is on pmem (IV_INO_LBLK policies)"
# the largest file: 2^32 - 1 blocks, as ext4's
expect_ok truncate -s $((4294967295 * 4096)) "$MNT/big"
expect_fail truncate -s $((4294967296 * 4096)) "$MNT/big"
expect_ok xfs_io -c "pwrite -S 0x65 $((4294967294 * 4096)) 4096" "$MNT/big"
xfs_io -c "pwrite 17592186044416 1" "$MNT/big" 2>&1 | grep -q "File too large" ||
	fail "a write past the largest file does not give EFBIG"
expect_eq "$(od -An -tx1 -j $((4294967294 * 4096)) -N 1 "$MNT/big" | tr -d ' ')" "65" \
	"the last block of the largest file"
expect_ok truncate -s $((4294967296 * 4096 - 4096)) "$MNT/big"
expect_ok rm "$MNT/big"

# remount: the key is gone
nova_umount
nova_mount
expect_eq "$(key_status "$id")" "Absent" "no key after the remount"
ls "$d" >/tmp/nokey || fail "cannot list without the key"
grep -q -x file /tmp/nokey && fail "a name is shown in plaintext without the key"
expect_eq "$(wc -l </tmp/nokey)" 8 "eight no-key names"
expect_fail cat "$d/$(head -n 1 /tmp/nokey)"
expect_fail touch "$d/new"
expect_fail mkdir "$d/newdir"
# a no-key name can be removed (long names are digests)
victim=$(ls -l "$d" | awk '$1 ~ /^-/ && $5 == 20100 { print $NF }')
[ -n "$victim" ] || fail "the no-key name of 'holes' not found"
expect_ok rm "$d/$victim"

# the key again: everything as before
id2=$(add_key)
expect_eq "$id2" "$id" "the same key identifier"
expect_eq "$(sum "$d/file")" "$(sum /tmp/plain)" "contents after the remount"
expect_eq "$(sum "$d/$long")" "$(sum /tmp/plain)" "long name after the remount"
expect_eq "$(readlink "$d/link")" "target-$secret" "symlink after the remount"
expect_eq "$(cat "$d/sub/inner")" "$secret sub" "subdirectory after the remount"
expect_eq "$(ls "$d" | sort | tr '\n' ' ')" "$(names "$long" file link p renamed sub t)" "names after the remount"
echo more >>"$d/file"
expect_eq "$(tail -n 1 "$d/file")" "more" "append after the remount"
rm_key "$id"
nova_umount
expect_ok fsck.nova -n "$PMEM"
expect_no_dmesg "Oops|BUG|WARNING|general protection" "no kernel errors"
