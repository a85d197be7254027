#!/bin/bash
# Host tests of fsck.nova and libnova on encrypted inodes (fscrypt): an
# inode whose log holds a live fscrypt context (the xattr "c" of
# NOVA_XATTR_INDEX_ENCRYPTION, 28 bytes of version 1 or 40 of version 2)
# may hold ciphertext names ('/' and NUL among their bytes) and a symlink
# target in fscrypt's form; one without may not.  The images are made by
# mkfs.nova -d, then nova_image inject (encrypt, create-raw, encrypt-bad)
# writes what the kernel would.
#
#   test_encrypt.sh TOOLS_DIR NOVA_IMAGE WORKDIR
#
# Prints one PASS/FAIL line per case and "encrypt: N passed, N failed";
# exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

rm -rf "$work"
mkdir -p "$work/tree/enc" "$work/tree/enc2" "$work/tree/plain"
echo data >"$work/tree/plain/a"
base_image encrypt

# Ciphertext names (hex): NUL, '/', newline, blank, backslash, 0xff and
# ASCII, 16 bytes; two directory names that are the same up to their NUL
N1=002f0a205cff41424344454647484950
D1=6162002f787878787878787878787878
D2=6162002f797979797979797979797979
L1=6c6e6b2f6c6e6b2f6c6e6b2f6c6e6b2f

# clean NAME INJECTION...: fsck -fn finds the image clean
clean() {
	local name=$1
	shift
	if ! injected "$@"; then
		fail "$name (injection failed)"
		return
	fi
	run "$fsck" -fn "$c"
	expect "$name: clean" 0
}

# --- what the kernel writes: clean ---
clean "encrypt: a v2 directory with ciphertext names (file, two directories equal up to a NUL, symlink)" \
	"encrypt /enc 2" "create-raw /enc $N1 file enc" "create-raw /enc $D1 dir enc" \
	"create-raw /enc $D2 dir enc" "create-raw /enc $L1 cipher-symlink enc"
run "$fsck" -fnv "$c"
expect "encrypt: fsck -v counts the encrypted inodes" 0 '^5 encrypted inodes$'
t "encrypt: the encrypt feature is set" [ "$(le64 "$c" 128)" = 3 ]
# a thorough GC writes the names first, then the context
clean "encrypt: a v1 directory's log rewritten by a thorough GC (names before the context)" \
	"encrypt /enc2 1" "create-raw /enc2 $N1 file enc" "create-raw /enc2 $D1 dir enc" \
	"gc-done /enc2"
clean "encrypt: ... and a crash before the head switch (old log, then the copy)" \
	"encrypt /enc2 1" "create-raw /enc2 $N1 file enc" "create-raw /enc2 $D1 dir enc" \
	"gc-window /enc2"
clean "encrypt: an encrypted symlink in a plain directory" \
	"create-raw /plain 6c6e6b cipher-symlink enc"
# a repair in an encrypted directory keeps its names as they are
if injected "encrypt /enc 2" "create-raw /enc $N1 file enc" "dir-links /enc 7"; then
	run "$fsck" -fy "$c"
	expect "encrypt: a link count repaired in an encrypted directory" 1 \
		'FIXED: inode [0-9]+: link count set to 2 \[PR_LINK_COUNT\]$'
	ino=$("$tools/nova-debug" "$c" ls /enc | awk 'NR == 3 { print $1 }')
	t "encrypt: ... its ciphertext name kept" \
		[ "$("$tools/nova-debug" "$c" name /enc "$ino" | od -An -tx1 | tr -d ' \n')" = "$N1" ]
	run "$fsck" -fn "$c"
	expect "encrypt: ... then clean" 0
else
	fail "encrypt: a link count repaired in an encrypted directory (injection failed)"
fi

# --- without a context, or with a bad one: reported ---
reported "encrypt: the same names in a directory without a context" \
	"PR_LOG_ENTRY_REJECTED PR_ORPHAN" \
	"has an invalid name \('/' or NUL, and no encryption context\) \[PR_LOG_ENTRY_REJECTED\]$" \
	"create-raw /plain $N1 file"
reported "encrypt: a symlink target in fscrypt's form without a context" \
	"PR_DENTRY_BAD_INO PR_INODE_REJECTED" 'symlink has no valid target \(length mismatch\)' \
	"create-raw /plain 6c6e6b cipher-symlink"
reported "encrypt: a 30-byte context" PR_LOG_ENTRY_REJECTED \
	'encryption context of 30 bytes \(28 or 40\)' "encrypt-bad /enc len"
reported "encrypt: a 40-byte context of version 1" PR_LOG_ENTRY_REJECTED \
	'version 1 in 40 bytes \(version 1 has 28, 2 has 40\)' "encrypt-bad /enc version"
reported "encrypt: another attribute than \"c\" in the namespace" PR_LOG_ENTRY_REJECTED \
	'index9\.d is not the encryption context' "encrypt-bad /enc name"
reported "encrypt: a removal of the context" PR_LOG_ENTRY_REJECTED \
	'removes the encryption context, which is never removed' "encrypt-bad /enc remove"
# the context's problem comes first; once it is gone, so are the names
reported "encrypt: a bad context after ciphertext names" PR_LOG_ENTRY_REJECTED \
	'encryption context of 30 bytes' "create-raw /enc $N1 file" "encrypt-bad /enc len"
reported "encrypt: the super block lacks the encrypt feature" PR_ENCRYPT_FEATURE \
	'1 inodes have an encryption context, but the super block lacks the encrypt feature' \
	"encrypt /enc 2" "clear-feature encrypt"
if injected "encrypt /enc 2" "clear-feature encrypt"; then
	run "$fsck" -p "$c"
	expect "encrypt: fsck -p sets the encrypt feature (exit 1)" 1 \
		'FIXED: encrypt feature.* \[PR_ENCRYPT_FEATURE\]$'
	t "encrypt: ... the bit set" [ "$(le64 "$c" 128)" = 3 ]
fi

unit_done encrypt
