#!/bin/sh
# Case-insensitive directories, as ext4's: mkfs.nova -O casefold loads
# UTF-8 12.1 at mount; chattr +F (FS_CASEFOLD_FL) only on an empty
# directory of such a file system (EOPNOTSUPP on a file, ENOTEMPTY, as
# ext4), inherited by new subdirectories.  In a casefolded directory
# lookup, create, link, rename and unlink match names in any case
# (Unicode folding and normalization: NFC finds NFD), keep names as
# created, leave no negative dentry a create would reuse, and treat
# names that are not UTF-8 as opaque bytes; with -E encoding_flags=strict
# such names cannot be created (EINVAL).  Everything holds after a
# remount, a thorough GC of the directory logs (which logs the flag after
# the names) and a crash (shutdown, recovery); fsck.nova finds it clean.
# Encryption and casefold exclude each other (EOPNOTSUPP); a mount with
# an unknown encoding is refused.
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

flag() { nova-fsctl casefold "$1"; }
setflag() { nova-fsctl casefold "$1" "$2"; }
# setflag PATH +|- must fail with errno number $3
flag_err() {
	_out=$(setflag "$1" "$2")
	case $_out in
	*"(errno $3)"*) echo "casefold $2 $1: $_out" ;;
	*) fail "casefold $2 $1: expected errno $3, got '$_out'" ;;
	esac
}
ino() { stat -c %i "$1"; }
# the names in directory $1 as bytes (busybox ls shows '?' for non-ASCII)
lsraw() {
	for _f in "$1"/*; do
		[ -e "$_f" ] || [ -L "$_f" ] || continue
		printf '%s\n' "${_f##*/}"
	done
}
# the names in directory $1, sorted, on one line
names() { lsraw "$1" | sort | tr '\n' ' '; }
list() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
# $1/$2 exists and is the inode $1/$3 is
same() {
	[ -e "$1/$2" ] || fail "lookup of '$3' as '$2' in $1"
	expect_eq "$(ino "$1/$2")" "$(ino "$1/$3")" "'$2' is '$3'"
}
absent() {
	[ -e "$1" ] && fail "$1 exists"
	[ -L "$1" ] && fail "$1 exists (symlink)"
	return 0
}
kernel_ok() {
	expect_no_dmesg "Oops|BUG|WARNING|general protection|NOVA.*(error|corrupt)" "no kernel errors"
}
P=/proc/fs/NOVA/${PMEM##*/}
gc_dir() { echo "$(ino "$1")" >"$P/gc" || fail "GC of $1"; }

# the names of xfstests generic/556: NFC and NFD forms, other cases
pt1=$(printf 'cora\303\247\303\243o')
pt2=$(printf 'CORAC\314\247\303\243O')
fr1=$(printf 'french_cafe\314\201.txt')
fr2=$(printf 'FRENCH_CAF\303\211.TXT')
jp1=$(printf 'japanese_\343\202\262.txt')
jp2=$(printf 'japanese_\343\202\261\343\202\231.txt')
# not UTF-8: opaque byte strings (these two must not match)
blob1=$(printf 'corac\314\247\303')
blob2=$(printf 'cora\303\247\303')
bad=$(printf 'Bad\377Name')
badlow=$(printf 'bad\377name')

dmesg_mark
expect_ok mkfs.nova -q -f -O casefold "$PMEM"
nova_mount
expect_dmesg "NOVA \(${PMEM##*/}\): Using encoding defined by superblock: utf8-12.1.0 with flags 0x0" \
	"the mount loads the encoding"

# ---- chattr +F: where and when (as ext4_ioctl_setflags) ----
d=$MNT/ci
mkdir "$d"
expect_eq "$(flag "$d")" "casefold=0" "a new directory is not casefolded"
touch "$MNT/file"
flag_err "$MNT/file" + 95			# EOPNOTSUPP (ext4_mask_flags)
touch "$d/x"
flag_err "$d" + 39				# ENOTEMPTY
rm "$d/x"
expect_ok setflag "$d" +
expect_eq "$(flag "$d")" "casefold=1" "chattr +F on an empty directory"
expect_ok setflag "$d" -
expect_eq "$(flag "$d")" "casefold=0" "chattr -F on an empty directory"
expect_ok setflag "$d" +
expect_eq "$(flag "$MNT")" "casefold=0" "the root is not casefolded"

# ---- lookups in any case; the name as created ----
touch "$d/Hello.TXT"
for n in hello.txt HELLO.TXT hElLo.TxT Hello.TXT; do
	same "$d" "$n" Hello.TXT
done
touch "$d/HELLO.txt"				# opens the existing file
expect_eq "$(names "$d")" "Hello.TXT " "one name, as created"
expect_fail mkdir "$d/hello.TXT"
expect_fail ln -s x "$d/HELLO.TXT"
flag_err "$d" - 39				# not while it has names
expect_eq "$(flag "$d")" "casefold=1" "the flag stays"
expect_eq "$(flag "$d/Hello.TXT")" "casefold=0" "files do not carry the flag"
touch "$d/$pt1" "$d/$fr1" "$d/$jp1"
same "$d" "$pt2" "$pt1"
same "$d" "$fr2" "$fr1"
same "$d" "$jp2" "$jp1"
expect_eq "$(names "$d")" "$(list Hello.TXT "$pt1" "$fr1" "$jp1")" "names as created"

# ---- names that are not UTF-8: exact bytes only ----
touch "$d/$blob1" "$d/$bad"
[ -e "$d/$blob1" ] || fail "an invalid name is not found by its bytes"
absent "$d/$blob2"
[ -e "$d/$bad" ] || fail "'Bad\\377Name' not found"
absent "$d/$badlow"
touch "$d/$badlow"
expect_eq "$(lsraw "$d" | grep -c 'ame$')" 2 "two invalid names that differ in case are two names"

# ---- no negative dentry a create would take its case from ----
absent "$d/NewName"
touch "$d/newname"
lsraw "$d" | grep -qx newname || fail "created as 'newname'"
lsraw "$d" | grep -qx NewName && fail "created with the case of a failed lookup"
touch "$d/fileX"
rm "$d/FILEX"					# unlink by another case
absent "$d/fileX"
touch "$d/FILEX"
lsraw "$d" | grep -qx FILEX || fail "re-created as FILEX"
lsraw "$d" | grep -qx fileX && fail "re-created with the old name"
mkdir "$d/Dir1"
rmdir "$d/DIR1"
mkdir "$d/dIR1"
lsraw "$d" | grep -qx dIR1 || fail "directory re-created as dIR1"
lsraw "$d" | grep -qx Dir1 && fail "directory re-created with the old name"

# ---- rename ----
touch "$d/rename"
mv "$d/rename" "$d/RENAME" 2>/dev/null		# the same file: nothing changes
lsraw "$d" | grep -qx rename || fail "a rename that changes only the case renamed"
lsraw "$d" | grep -qx RENAME && fail "a rename that changes only the case renamed"
echo a >"$d/src"
echo b >"$d/Target"
i=$(ino "$d/src")
# uncached, the target's dentry is named as the rename gives it: the
# name logged must still be the stored one (the remount below checks)
echo 2 >/proc/sys/vm/drop_caches
expect_ok mv "$d/src" "$d/TARGET"		# replaces Target, whose name stays
absent "$d/src"
lsraw "$d" | grep -qx Target || fail "the replaced name changed"
lsraw "$d" | grep -qx TARGET && fail "the replaced name changed"
expect_eq "$(ino "$d/target")" "$i" "the renamed file"
expect_eq "$(cat "$d/tArGeT")" a "its data"
touch "$MNT/plain"
expect_ok mv "$MNT/plain" "$d/Moved"
same "$d" MOVED Moved
expect_ok mv "$d/mOVED" "$MNT/back"
absent "$d/Moved"
[ -e "$MNT/back" ] || fail "moved out"

# ---- hard links ----
expect_ok ln "$d/TARGET" "$d/Link"
expect_eq "$(stat -c %h "$d/target")" 2 "link count"
expect_fail ln "$d/target" "$d/LINK"
expect_ok ln "$d/LINK" "$MNT/outside"
expect_eq "$(stat -c %h "$d/target")" 3 "link count"
expect_ok ln "$MNT/back" "$d/BACK"
same "$d" back BACK
expect_ok rm "$d/link"
absent "$d/Link"
expect_eq "$(stat -c %h "$d/target")" 2 "link count after unlink by another case"

# ---- subdirectories inherit the flag ----
mkdir "$d/Sub"
expect_eq "$(flag "$d/SUB")" "casefold=1" "a new subdirectory inherits the flag"
mkdir "$d/sub/Deeper"
expect_eq "$(flag "$d/SUB/deeper")" "casefold=1" "and its subdirectory"
touch "$d/SUB/DEEPER/Leaf"
same "$d/sub/deeper" LEAF Leaf
mkdir "$d/cs"
expect_ok setflag "$d/CS" -
touch "$d/cs/abc"
absent "$d/CS/ABC"				# case-sensitive again
expect_eq "$(flag "$MNT/outside")" "casefold=0" "a file made outside keeps no flag"

# ---- many names (hash chains; a directory log of several pages) ----
m=$d/many
mkdir "$m"
i=0
while [ $i -lt 300 ]; do
	: >"$m/File$i"
	i=$((i + 1))
done
i=0
while [ $i -lt 300 ]; do
	[ -e "$m/FILE$i" ] || fail "FILE$i not found"
	i=$((i + 2))
done
i=1
while [ $i -lt 300 ]; do
	rm "$m/fILE$i" || fail "rm fILE$i"
	i=$((i + 2))
done
expect_eq "$(ls "$m" | wc -l)" 150 "names left"
kernel_ok

# ---- encryption and casefold exclude each other ----
KEY=$(head -c 64 /dev/urandom | od -An -v -to1 | tr -s ' \n' '\n' | grep . | sed 's/^/\\/' | tr -d '\n')
# shellcheck disable=SC2059
id=$(printf "$KEY" | xfs_io -c add_enckey "$MNT" | sed -n 's/.*identifier //p')
[ ${#id} -eq 32 ] || fail "add_enckey gave no key identifier: '$id'"
mkdir "$MNT/enc" "$MNT/cf"
expect_ok xfs_io -c "set_encpolicy $id" "$MNT/enc"
flag_err "$MNT/enc" + 95			# EOPNOTSUPP
expect_ok setflag "$MNT/cf" +
xfs_io -c "set_encpolicy $id" "$MNT/cf" 2>&1 | grep -q "Operation not supported" ||
	fail "a casefolded directory can be encrypted"
rmdir "$MNT/cf"

# ---- persistence: remount, thorough GC (flag logged after the names), crash ----
state() {
	find "$MNT" | sort | while IFS= read -r f; do
		echo "$(stat -c '%i %h' "$f") $f"
	done
}
check_lookups() {
	same "$d" HELLO.TXT Hello.TXT
	same "$d" "$pt2" "$pt1"
	same "$d" "$fr2" "$fr1"
	same "$d" "$jp2" "$jp1"
	absent "$d/$blob2"
	same "$d" target Target
	same "$d/SUB/deeper" leaf Leaf
	absent "$d/CS/ABC"
	i=0
	while [ $i -lt 300 ]; do
		[ -e "$m/fIlE$i" ] || fail "fIlE$i not found after $1"
		i=$((i + 2))
	done
	expect_eq "$(flag "$d")" "casefold=1" "flag after $1"
	expect_eq "$(flag "$d/sub")" "casefold=1" "flag after $1"
	expect_eq "$(flag "$d/cs")" "casefold=0" "flag after $1"
	expect_eq "$(state)" "$before" "the tree after $1"
	touch "$d/HELLO.TXT"
	expect_eq "$(state)" "$before" "the tree after $1"
}
before=$(state)
nova_umount
expect_ok fsck.nova -fn "$PMEM"
nova_mount
check_lookups remount
gc_dir "$d"
gc_dir "$m"
gc_dir "$d/sub"
check_lookups "GC"
nova_umount
nova_mount
check_lookups "GC and remount"
touch "$d/after-crash"
rm "$d/AFTER-CRASH"
sync
expect_ok nova-fsctl shutdown "$MNT" 2
nova_umount
nova_mount
check_lookups "crash"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
kernel_ok

# ---- strict encoding: names that are not UTF-8 are refused ----
dmesg_mark
expect_ok mkfs.nova -q -f -O casefold -E encoding_flags=strict "$PMEM"
nova_mount
expect_dmesg "Using encoding defined by superblock: utf8-12.1.0 with flags 0x1" "strict flag"
s=$MNT/s
mkdir "$s"
expect_ok setflag "$s" +
touch "$s/ok"
touch "$s/$bad" 2>&1 | grep -q "Invalid argument" || fail "strict: an invalid name was created"
absent "$s/$bad"
expect_fail mkdir "$s/$blob1"
expect_fail ln "$s/ok" "$s/$blob2"
expect_fail mv "$s/ok" "$s/$bad"
expect_fail ln -s ok "$s/$bad"
[ -e "$s/ok" ] || fail "the file is gone"
expect_eq "$(names "$s")" "ok " "only the valid name"
touch "$s/$pt1"
same "$s" "$pt2" "$pt1"
touch "$MNT/$bad"				# not casefolded: any bytes
[ -e "$MNT/$bad" ] || fail "an invalid name outside a casefolded directory"
nova_umount
expect_ok fsck.nova -fn "$PMEM"
kernel_ok

# ---- without the feature: no casefolded directories ----
nova_format
mkdir "$MNT/d"
flag_err "$MNT/d" + 95				# EOPNOTSUPP
nova_umount
kernel_ok

# ---- an encoding the module does not know: the mount is refused ----
expect_ok mkfs.nova -q -f -O casefold "$PMEM"
expect_ok nova_image inject "$PMEM" sb-encoding 2 0
nova_mount_refused "" "NOVA.*unknown encoding"
expect_ok nova_image inject "$PMEM" sb-encoding 1 0x8000
nova_mount_refused "" "NOVA.*unknown encoding flags"
expect_ok nova_image inject "$PMEM" sb-encoding 1 0
nova_mount
nova_umount
exit 0
