#!/bin/bash
# Host tests of fsck.nova, libnova and nova-debug on project quotas: an
# inode's project ID (i_projid, and the last live link-change entry of its
# log), FS_PROJINHERIT_FL, the project quota file (reserved inode 6, a
# regular file with no name), NOVA_FEATURE_RO_COMPAT_PROJECT and the super
# block state bit NOVA_STATE_PRJQUOTA.  The images are made by mkfs.nova
# -d, then nova_image inject (projid, prjquota, prjquota-bad, set-prjquota,
# clear-feature project) writes what the kernel would, or damage.
#
#   test_project.sh TOOLS_DIR NOVA_IMAGE WORKDIR
#
# Prints one PASS/FAIL line per case and "project: N passed, N failed";
# exits non-zero if anything failed.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

dbg=$tools/nova-debug
rm -rf "$work"
mkdir -p "$work/tree/d/sub" "$work/tree/p" "$work/tree/q"
echo data >"$work/tree/d/f"
echo more >"$work/tree/d/g"
echo linked >"$work/tree/p/a"
ln "$work/tree/p/a" "$work/tree/p/b"
echo lone >"$work/tree/q/x"
base_image project

# attrs PATH|INO KEY...: values of nova-debug stat, one blank apart
attrs() {
	local st k v=()
	st=$("$dbg" "$c" stat "$1" 2>/dev/null)
	shift
	for k; do
		v+=("$(sed -n "s/^$k //p" <<<"$st")")
	done
	echo "${v[*]}"
}
# state: the super block state, as nova-debug shows it
state() { "$dbg" "$c" super | sed -n 's/^state //p'; }
# used: the blocks in use, from fsck -fn's last line
used() { "$fsck" -fn "$c" 2>&1 | sed -n 's|.*: [0-9]* inodes, \([0-9]*\)/[0-9]* blocks$|\1|p'; }
# clean NAME INJECTION...: fsck -fn finds the image clean, reports nothing
clean() {
	local name=$1
	shift
	if ! injected "$@"; then
		fail "$name (injection failed)"
		return 1
	fi
	run "$fsck" -fn "$c"
	if [ "$rc" -eq 0 ] && [ -z "$(codes <<<"$out")" ]; then
		pass "$name: clean"
	else
		fail "$name: fsck -fn exit $rc, codes '$(codes <<<"$out")', expected 0 and none"
		printf '%s\n' "$out" | indent
	fi
}

# --- project IDs as the kernel writes them: clean ---
if clean "project: IDs in an inode and in link-change entries, PROJINHERIT on a directory" \
	"projid /d/f 42 pi" "projid /d 7 lc 0x20000000" "projid /p/a 9 lc"; then
	run "$fsck" -fnv "$c"
	expect "project: fsck -v counts the inodes with a project ID" 0 \
		'^3 inodes with a project ID other than 0$'
	t "project: nova-debug stat: the ID in the inode" [ "$(attrs /d/f projid)" = 42 ]
	t "project: nova-debug stat: the ID of a link-change entry, and its flag" \
		[ "$(attrs /d projid flags)" = "7 0x20000000" ]
	t "project: nova-debug stat: both names of a hard link" \
		[ "$(attrs /p/a projid) $(attrs /p/b projid)" = "9 9" ]
	t "project: nova-debug super: the project feature" \
		grep -qx 'feature_ro_compat 0x2 project' <<<"$("$dbg" "$c" super)"
fi
# the last link-change entry counts, even one of a module before project
# IDs (0): /p/a's hard link entry comes after the ID put in its inode
if injected "projid /p/a 5 pi"; then
	t "project: a link-change entry's 0 overrides the inode's ID" [ "$(attrs /p/a projid)" = 0 ]
	t "project: ... an inode without one keeps it" \
		[ "$("$helper" inject "$c" projid /q/x 5 pi >/dev/null 2>&1; attrs /q/x projid)" = 5 ]
else
	fail "project: a link-change entry's 0 overrides the inode's ID (injection failed)"
fi

# --- project ID 4294967295, the kernel's INVALID_PROJID: set to 0 ---
reported "project: project ID 4294967295 in a link-change entry" PR_INODE_PROJID \
	'^ERROR: inode [0-9]+ \(regular file\): project ID 4294967295 is the kernel.s invalid project ID, which it counts in no project \[PR_INODE_PROJID\]$' \
	"projid /d/f 4294967295 lc"
t "project: ... set to 0, by a link-change entry" [ "$(attrs /d/f projid)" = 0 ]
reported "project: project ID 4294967295 in the inode of a directory" PR_INODE_PROJID \
	'inode [0-9]+ \(directory\): project ID 4294967295' "projid /q 4294967295 pi"
t "project: ... set to 0" [ "$(attrs /q projid)" = 0 ]
if injected "projid / 4294967295 lc 0x20000000" "projid /p/a 4294967295 lc"; then
	run "$fsck" -fp "$c"
	expect "project: fsck -p sets project ID 4294967295 to 0 (exit 1)" 1 \
		'FIXED: inode 1: project ID set to 0 \[PR_INODE_PROJID\]$'
	t "project: ... the root keeps PROJINHERIT, both names of /p/a read 0" \
		[ "$(attrs / projid flags) $(attrs /p/a projid) $(attrs /p/b projid)" = "0 0x20000000 0 0" ]
	run "$fsck" -fn "$c"
	expect "project: ... then clean" 0
else
	fail "project: fsck -p sets project ID 4294967295 to 0 (injection failed)"
fi
# a dead mark on the only link-change entry that holds a project ID: the
# replay would lose the ID (the entry before it says 0), nothing else
reported "project: the link-change entry with the ID marked dead" PR_LOG_DEAD_LIVE \
	'log entries marked dead are still live \(project IDs differ\)' "projid /q/x 12 lc" "dead-lc /q/x"
t "project: ... live again: the ID 12" [ "$(attrs /q/x projid)" = 12 ]
# a reserved inode's ID is not the kernel's concern (it counts none)
clean "project: project ID 4294967295 of the project quota file" \
	"prjquota 9000" "projid 6 4294967295 pi"

# --- repairs that log a link-change entry keep the project ID ---
if injected "projid /d/f 42 pi" "projid /d 7 lc 0x20000000" "file-links /d/f 5" \
	"dir-links /d 9"; then
	run "$fsck" -fy "$c"
	expect "project: link counts repaired" 1 'FIXED: inode [0-9]+: link count set to 1 \[PR_LINK_COUNT\]$'
	t "project: ... the file keeps its ID (42) with its new count" \
		[ "$(attrs /d/f projid links)" = "42 1" ]
	t "project: ... the directory keeps its ID (7) and PROJINHERIT" \
		[ "$(attrs /d projid flags links)" = "7 0x20000000 3" ]
	run "$fsck" -fn "$c"
	expect "project: ... then clean" 0
else
	fail "project: link counts repaired (injection failed)"
fi
# an orphan with two links: moved to /lost+found, its count logged as 1;
# /lost+found made in a root with PROJINHERIT gets the root's ID
if injected "projid /p/a 11 lc" "projid / 3 lc 0x20000000" "orphan /p/a" "orphan /p/b"; then
	run "$fsck" -fy "$c"
	expect "project: an orphan moved to /lost+found" 1 \
		'moved to /lost\+found/#[0-9]+, link count set to 1 \[PR_ORPHAN\]$'
	ino=$("$dbg" "$c" ls /lost+found | awk 'NR == 3 { print $1 }')
	t "project: ... it keeps its ID (11)" \
		[ "${ino:-none} $(attrs "${ino:-none}" projid links)" = "$ino 11 1" ]
	t "project: ... /lost+found inherits the root's ID and PROJINHERIT" \
		[ "$(attrs /lost+found projid flags)" = "3 0x20000000" ]
	run "$fsck" -fn "$c"
	expect "project: ... then clean" 0
else
	fail "project: an orphan moved to /lost+found (injection failed)"
fi

# --- the project quota file ---
base_used=$(cp --sparse=always "$img" "$c"; used)
if clean "project: the project quota file (3 pages) with the feature" "prjquota 9000"; then
	run "$fsck" -fnv "$c"
	expect "project: fsck -v names it" 0 '^project quota file: reserved inode 6$'
	t "project: ... its 3 data and 1 log pages are in use" [ "$(used)" = $((base_used + 4)) ]
	run "$fsck" -fy "$c"
	t "project: ... fsck -y: nothing to repair, no /lost+found" \
		[ "$rc $("$dbg" "$c" ls / | grep -c ' lost+found$')" = "0 0" ]
	t "project: nova-debug stat 6: a regular file with one link" \
		[ "$(attrs 6 type links size)" = "regular 1 9000" ]
fi
clean "project: the project quota file empty (a crash after it was made)" "prjquota 0"
# a clean unmount: the snapshot lists its blocks as used; fsck must agree
clean "project: the project quota file in a clean-unmount snapshot" \
	"prjquota 9000" "snapshot" "set-prjquota"
reported "project: the project quota file with no file type" PR_PRJQUOTA_BAD \
	'reserved inode 6, the project quota file, is unusable: mode 0600, not a known file type' \
	"prjquota 9000" "prjquota-bad mode"
t "project: ... cleared, its blocks free" \
	[ "$(attrs 6 type)/$(used)" = "/$base_used" ]
reported "project: the project quota file a directory" PR_PRJQUOTA_BAD \
	'mode 040700, not a regular file' "prjquota 9000" "prjquota-bad dir"
reported "project: the project quota file with 2 links" PR_PRJQUOTA_BAD \
	'link count 2, not 1' "prjquota 9000" "prjquota-bad links 2"
reported "project: the project quota file with a bad header" PR_PRJQUOTA_BAD \
	'its header \(magic 0xd9c03e14, version 1\) is not that of a project quota file' \
	"prjquota 9000" "prjquota-bad magic"
reported "project: the project quota file's slot with another number" PR_RESERVED_SLOT_INO \
	'reserved inode slot 6 holds inode number 7' "prjquota 9000" "prjquota-bad ino"
# a damaged log: repaired as any file's, the file kept
reported "project: the project quota file's last entry with a bad checksum" \
	PR_LOG_ENTRY_CSUM 'inode 6: .* bad checksum' "prjquota 9000" "last-csum 6"
t "project: ... the file kept, its log truncated" \
	[ "$(attrs 6 type size)" = "regular 8192" ]
if injected "prjquota 9000" "prjquota-bad mode"; then
	run "$fsck" -fp "$c"
	expect "project: fsck -p stops at an unusable project quota file (exit 4)" 4 \
		'UNEXPECTED INCONSISTENCY'
fi

# --- the feature ---
reported "project: IDs without the project feature" PR_PROJECT_FEATURE \
	'^ERROR: 2 inodes have a project ID other than 0, but the super block lacks the project feature' \
	"projid /d/f 42 pi" "projid /q/x 1 lc" "clear-feature project"
t "project: ... the bit set" [ "$(($(le64 "$c" 120) & 2))" = 2 ]
reported "project: the project quota file without the project feature" PR_PROJECT_FEATURE \
	'0 inodes have a project ID other than 0 and the project quota file \(reserved inode 6\) exists' \
	"prjquota 9000" "clear-feature project"
if injected "projid /d/f 42 pi" "clear-feature project"; then
	run "$fsck" -p "$c"
	expect "project: fsck -p sets the project feature (exit 1)" 1 \
		'FIXED: project feature.* \[PR_PROJECT_FEATURE\]$'
fi
clean "project: the feature without any ID or quota file" "projid /d/f 0 lc"

# --- NOVA_STATE_PRJQUOTA: kept by a check, cleared by any repair ---
if clean "project: the prjquota state bit alone is known" "prjquota 9000" "set-prjquota"; then
	sum0=$(sum "$c")
	run "$fsck" -fy "$c"
	t "project: a repairing run with nothing to repair keeps the state and the image" \
		[ "$rc $(sum "$c") $(state)" = "0 $sum0 0x4 prjquota" ]
fi
if injected "prjquota 9000" "snapshot" "set-prjquota"; then
	t "project: a clean unmount with project quotas" [ "$(state)" = "0x5 clean prjquota" ]
	run "$fsck" -n "$c"
	t "project: ... fsck -n without -f: clean, nothing changed" \
		[ "$rc $(state)" = "0 0x5 clean prjquota" ]
	run "$fsck" -fp "$c"
	t "project: ... fsck -fp: nothing to repair, the state kept" \
		[ "$rc $(state)" = "0 0x5 clean prjquota" ]
	"$helper" inject "$c" file-links /d/f 3 >/dev/null 2>&1
	run "$fsck" -fp "$c"
	expect "project: ... a repair (-p)" 1 'project quota usage to be counted again'
	t "project: ... clears the prjquota and clean bits" [ "$(state)" = 0x0 ]
else
	fail "project: a clean unmount with project quotas (injection failed)"
fi
# a repair of -y, and a run that stops after a repair (-p, then a problem
# it may not repair) clear it too
if injected "set-prjquota" "sb-differ" "last-csum /d/f"; then
	run "$fsck" -fp "$c"
	expect "project: -p stopped after a repair (exit 4, as e2fsck)" 4 \
		'FIXED: replica super block rewritten from the primary \[PR_SB_DIFFER\]$'
	t "project: ... the prjquota bit cleared" [ "$(state)" = 0x0 ]
else
	fail "project: -p stopped after a repair (injection failed)"
fi
if injected "set-prjquota" "prjquota 9000" "prjquota-bad magic"; then
	run "$fsck" -fy "$c"
	expect "project: -y clears the project quota file" 1 \
		'^FIXED: reserved inode 6 cleared: .* \[PR_PRJQUOTA_BAD\]$'
	t "project: ... and the prjquota bit" [ "$(state)" = 0x0 ]
fi
if injected "set-prjquota" "file-links /d/f 4"; then
	run "$fsck" -fn "$c"
	t "project: -n leaves the prjquota bit" [ "$rc $(state)" = "4 0x4 prjquota" ]
fi

# --- the project quota file's tree (pass 7) ---
# the file a clean unmount with project quotas leaves (nova_image's
# prjquota: every project's usage, as the kernel writes it): projects 42
# (a file), 7 (a directory), 9 (a file with two names), 5 (a symlink),
# 0 (the rest), and 70000 and 5000000, which no inode has, with limits
qinj=("projid /d/f 42 pi" "projid /d 7 lc" "projid /p/a 9 lc"
	"create-raw /q 6c6e6b symlink" "projid /q/lnk 5 lc"
	"prjquota 16384 42:100:200:10:20 9:8:16:1:2 70000:1:2:3:4 5000000:10:0:0:0")
# the usage and limits of these, as nova-debug quota reads them
q42="space 4096 inodes 1 bsoft 100 bhard 200 isoft 10 ihard 20 btime 0 itime 0"
q9="space 4096 inodes 1 bsoft 8 bhard 16 isoft 1 ihard 2 btime 0 itime 0"
q70000="space 0 inodes 0 bsoft 1 bhard 2 isoft 3 ihard 4 btime 0 itime 0"
q5000000="space 0 inodes 0 bsoft 10 bhard 0 isoft 0 ihard 0 btime 0 itime 0"
# quota ID: ID's line of nova-debug quota, without "id ID "
quota() { "$dbg" "$c" quota 2>/dev/null | sed -n "s/^id $1 //p"; }
# limits_kept NAME: the IDs that still have an entry of their own have it
limits_kept() {
	t "$1: ... ID 9's limits kept" [ "$(quota 9)" = "$q9" ]
	t "$1: ... ID 5000000's limits kept" [ "$(quota 5000000)" = "$q5000000" ]
}
# e2fs_agrees NAME: e2fsprogs' own quota_v2 reader (debugfs lq, on an
# ext4 image whose project quota inode is a copy of the file) reads the
# IDs, usage and limits nova-debug quota reads
e2fs_agrees() {
	local e=$work/ext4.img ino got want
	if ! command -v debugfs >/dev/null || ! command -v mke2fs >/dev/null; then
		skip "$1 (no e2fsprogs)"
		return
	fi
	rm -f "$e"
	truncate -s 32M "$e"
	if ! "$helper" cat "$c" 6 >"$work/quota.bin" ||
		! mke2fs -q -F -t ext4 -O quota,project -E quotatype=prjquota "$e" >/dev/null 2>&1 ||
		! debugfs -w -R "write $work/quota.bin qf" "$e" >/dev/null 2>&1; then
		skip "$1 (no ext4 image with project quotas)"
		return
	fi
	ino=$(debugfs -R "stat qf" "$e" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	debugfs -w -R "ssv prj_quota_inum $ino" "$e" >/dev/null 2>&1
	got=$(debugfs -R "lq project" "$e" 2>/dev/null |
		awk 'NR > 1 { print $1, $2, $3, $4, $5, $6, $7 }' | sort -n)
	want=$("$dbg" "$c" quota 2>/dev/null |
		awk '$1 == "id" { print $2, $4, $8, $10, $6, $12, $14 }' | sort -n)
	if [ -z "$want" ]; then
		fail "$1 (nova-debug quota lists no ID)"
		return
	fi
	is "$1" "$got" "$want"
}
if clean "project: a quota tree of 7 IDs as a clean unmount leaves it" "${qinj[@]}"; then
	e2fs_agrees "project: ... e2fsprogs reads the same (debugfs lq)"
	run "$dbg" "$c" quota
	expect "project: nova-debug quota reads it, with no warning" 0 '^blocks 10$'
	t "project: ... nothing on stderr" [ -z "$("$dbg" "$c" quota 2>&1 >/dev/null)" ]
	t "project: ... ID 42: a one-page file, its limits" [ "$(quota 42)" = "$q42" ]
	t "project: ... ID 7: a directory's log page" \
		[ "$(quota 7)" = "space 4096 inodes 1 bsoft 0 bhard 0 isoft 0 ihard 0 btime 0 itime 0" ]
	t "project: ... ID 9: a file with two names, one inode" [ "$(quota 9)" = "$q9" ]
	t "project: ... ID 5: a symlink's block" \
		[ "$(quota 5)" = "space 4096 inodes 1 bsoft 0 bhard 0 isoft 0 ihard 0 btime 0 itime 0" ]
	t "project: ... IDs 70000 and 5000000: limits, no usage" \
		[ "$(quota 70000)/$(quota 5000000)" = "$q70000/$q5000000" ]
	run "$fsck" -fnv "$c"
	expect "project: fsck -v: its IDs" 0 '^project quota file: 7 IDs, 10 blocks of 1 KiB$'
	t "project: ... the usage not compared without the prjquota bit" \
		grep -q '^project quota usage not compared: not current' <<<"$out"
fi
if clean "project: ... with the prjquota bit of a clean unmount: its usage is fsck's count" \
	"${qinj[@]}" snapshot set-prjquota; then
	run "$fsck" -fnv "$c"
	t "project: ... the usage compared" \
		[ "$(grep -c '^project quota file: 7 IDs' <<<"$out")/$(grep -c 'usage not compared' <<<"$out")" = 1/0 ]
fi
clean "project: ... blocks freed by the kernel on its free-block list" \
	"${qinj[@]}" "prjquota-tree free 3"
clean "project: an empty tree, as quota.c formats it (a crash before the count)" \
	"prjquota 2048 -0"

# damage: reported (fsck -n exit 4), repaired (a new file), then clean
reported "project: quota tree: a reference to a data block without the ID's entry" \
	PR_PRJQUOTA_REF 'project quota file: tree block [0-9]+, reference 43 \(ID 43\) to data block [0-9]+: no entry for ID 43 there' \
	"${qinj[@]}" "prjquota-tree ref 43 3 =42:4"
t "project: ... the file written anew: ID 42's limits kept" [ "$(quota 42)" = "$q42" ]
limits_kept "project: quota tree: dangling reference"
t "project: ... ID 70000's limits kept, the usage as counted" [ "$(quota 70000)" = "$q70000" ]
t "project: ... no entry for ID 43" [ "$(quota 43)/$(quota 42)" = "/$q42" ]
reported "project: quota tree: references past the blocks of the info block (not written)" \
	PR_PRJQUOTA_REF 'to block [0-9]+: past the 8 blocks the info block counts' \
	"${qinj[@]}" "prjquota-tree info blocks 8"
t "project: ... ID 5000000, reached through them, keeps its limits" \
	[ "$(quota 5000000)" = "$q5000000" ]
reported "project: quota tree: a reference out of the file" \
	"PR_PRJQUOTA_ENTRY PR_PRJQUOTA_REF" \
	'reference [0-9]+ \(ID 70000\) to block 999: past the end of the file \(16 blocks\)' \
	"${qinj[@]}" "prjquota-tree ref 70000 3 999"
limits_kept "project: quota tree: reference out of range"
t "project: ... ID 70000's entry, out of the tree, dropped" \
	[ "$(quota 70000)/$(quota 42)" = "/$q42" ]
reported "project: quota tree: a tree block referenced twice" \
	"PR_PRJQUOTA_ENTRY PR_PRJQUOTA_REF" \
	'reference 1 \(IDs 65536-131071\) to block [0-9]+: referenced twice \(a tree block of level 2 already\)' \
	"${qinj[@]}" "prjquota-tree ref 70000 1 =0:2"
t "project: ... ID 42's limits kept" [ "$(quota 42)" = "$q42" ]
limits_kept "project: quota tree: block referenced twice"
e2fs_agrees "project: ... e2fsprogs reads the new file as nova-debug (debugfs lq)"
reported "project: quota tree: a cycle" "PR_PRJQUOTA_ENTRY PR_PRJQUOTA_REF" \
	'reference 1 \(IDs 65536-131071\) to block [0-9]+: the tree root: a cycle' \
	"${qinj[@]}" "prjquota-tree ref 70000 1 1"
reported "project: quota tree: a last-level reference to a tree block" \
	"PR_PRJQUOTA_ENTRY PR_PRJQUOTA_REF" 'to block [0-9]+: a tree block, not a data block' \
	"${qinj[@]}" "prjquota-tree ref 42 3 =42:3"
reported "project: quota tree: an entry with the wrong ID" \
	"PR_PRJQUOTA_ENTRY PR_PRJQUOTA_REF" \
	'data block [0-9]+, entry [0-9]+: ID 44, which the tree does not lead to this block' \
	"${qinj[@]}" "prjquota-tree entry 42 id 44"
t "project: ... ID 42: the usage counted, its limits lost with its entry" \
	[ "$(quota 42)" = "space 4096 inodes 1 bsoft 0 bhard 0 isoft 0 ihard 0 btime 0 itime 0" ]
limits_kept "project: quota tree: entry with the wrong ID"
reported "project: quota tree: a data block's header counts an entry not written" \
	PR_PRJQUOTA_DATA 'data block [0-9]+: its header counts 8 entries, it holds 7' \
	"${qinj[@]}" "prjquota-tree dqdh =42:4 entries 8"
# a full data block (14 entries of 1 KiB, off the free-entry list): its
# links checked all the same, as the kernel's check_dquot_block_header()
# does when it frees an entry in it (-EUCLEAN)
qfull="prjquota 16384"
for i in $(seq 100 113); do
	qfull="$qfull $i:1:2:3:4"
done
reported "project: quota tree: a full data block linking back past the blocks" \
	PR_PRJQUOTA_DATA "data block [0-9]+: its header's previous free-entry block 999 is out of range \\(from 7 on\\)" \
	"$qfull" "prjquota-tree dqdh =100:4 prev 999"
t "project: ... ID 100's limits kept" \
	[ "$(quota 100)" = "space 0 inodes 0 bsoft 1 bhard 2 isoft 3 ihard 4 btime 0 itime 0" ]
reported "project: quota tree: a full data block linking on past the blocks" \
	PR_PRJQUOTA_DATA "data block [0-9]+: its header's next free-entry block 5000 is out of range \\(from 7 on\\)" \
	"$qfull" "prjquota-tree dqdh =100:4 next 5000"
reported "project: quota tree: the free-block list in a cycle" PR_PRJQUOTA_FREE_BLK \
	'the free-block list runs in a cycle at block 11' \
	"${qinj[@]}" "prjquota-tree free 2 cycle"
reported "project: quota tree: a block in use on the free-block list" PR_PRJQUOTA_FREE_BLK \
	'the free-block list holds block [0-9]+, a tree block in use' \
	"${qinj[@]}" "prjquota-tree info free_blk =42:3"
reported "project: quota tree: a tree block on the free-entry list" PR_PRJQUOTA_FREE_ENTRY \
	'the free-entry list holds block [0-9]+, a tree block' \
	"${qinj[@]}" "prjquota-tree info free_entry =42:3"
reported "project: quota tree: a wrong back link on the free-entry list" PR_PRJQUOTA_FREE_ENTRY \
	'data block [0-9]+ of the free-entry list links back to block 3, not 0' \
	"${qinj[@]}" "prjquota-tree dqdh =42:4 prev 3"
reported "project: quota tree: the info block counts more blocks than the file has" \
	PR_PRJQUOTA_INFO 'the info block counts 40 blocks, more than the file.s 16384 bytes hold' \
	"${qinj[@]}" "prjquota-tree info blocks 40"
limits_kept "project: quota tree: info block"
if injected "${qinj[@]}" "prjquota-tree ref 70000 1 =0:2"; then
	run "$fsck" -fp "$c"
	expect "project: fsck -p writes a damaged project quota file anew (exit 1)" 1 \
		'FIXED: project quota file written anew: 6 project IDs, the limits of 3 kept, the usage counted; 1 entries the tree did not lead to dropped \[PR_PRJQUOTA_REF\]$'
fi
# fsck killed right after the rewrite's commit (NOVA_FSCK_TEST_KILL): the
# clean flag, the snapshot (whose pages the allocator may hand out) and
# the prjquota flag went before its first block allocation
if injected "${qinj[@]}" "prjquota-tree ref 70000 1 =0:2" snapshot set-prjquota; then
	run env NOVA_FSCK_TEST_KILL=prjquota-commit "$fsck" -fy "$c"
	expect "project: fsck killed after the rewrite's commit (exit 8)" 8
	t "project: ... the clean and prjquota bits already cleared" [ "$(state)" = 0x0 ]
	run "$fsck" -fn "$c"
	expect "project: ... then clean: no stale snapshot, no used block listed as free" 0
	t "project: ... nothing about the snapshot or free blocks" \
		[ -z "$(grep -E 'listed as free|PR_SNAPSHOT' <<<"$out")" ]
fi

# the usage, compared when the prjquota bit says the kernel will not count it
reported "project: quota usage: an entry's usage not the count (prjquota bit)" PR_PRJQUOTA_USAGE \
	'^ERROR: project quota: usage inconsistent for ID 42: actual \(4096 bytes, 1 inodes\) != expected \(8192 bytes, 1 inodes\)' \
	"${qinj[@]}" "prjquota-tree entry 42 space 8192" snapshot set-prjquota
t "project: ... the usage counted, the limits kept" [ "$(quota 42)" = "$q42" ]
t "project: ... the prjquota and clean bits cleared" [ "$(state)" = 0x0 ]
clean "project: ... without the prjquota bit (the next mount counts it)" \
	"${qinj[@]}" "prjquota-tree entry 42 space 8192" "prjquota-tree entry 42 inodes 3" snapshot
reported "project: quota usage: a project with usage and no entry (prjquota bit)" \
	PR_PRJQUOTA_MISSING 'project quota: missing quota entry for ID 9 \(actual 4096 bytes, 1 inodes\)' \
	"${qinj[@]}" "prjquota 16384 -9 42:100:200:10:20" snapshot set-prjquota
t "project: ... ID 9 has one now" \
	[ "$(quota 9)" = "space 4096 inodes 1 bsoft 0 bhard 0 isoft 0 ihard 0 btime 0 itime 0" ]
reported "project: quota usage: an entry of an ID no inode has (prjquota bit)" PR_PRJQUOTA_USAGE \
	'usage inconsistent for ID 70000: actual \(0 bytes, 0 inodes\) != expected \(4096 bytes, 2 inodes\)' \
	"${qinj[@]}" "prjquota-tree entry 70000 space 4096" "prjquota-tree entry 70000 inodes 2" \
	snapshot set-prjquota
t "project: ... its limits kept, no usage" [ "$(quota 70000)" = "$q70000" ]

# no room for a new file: the file is cleared (-y), -p stops
if injected "${qinj[@]}" "prjquota-tree entry 42 id 44" "fill /q/x"; then
	run "$fsck" -fy "$c"
	expect "project: no room for a new project quota file: cleared (-y)" 1 \
		'^FIXED: reserved inode 6 cleared, the limits of 3 project IDs lost: .* \[PR_PRJQUOTA_BAD\]$'
	t "project: ... no project quota file" [ -z "$(attrs 6 type)" ]
	run "$fsck" -fn "$c"
	expect "project: ... then clean" 0
fi
if injected "${qinj[@]}" "prjquota-tree entry 42 id 44" "fill /q/x"; then
	run "$fsck" -fp "$c"
	expect "project: ... fsck -p stops there (exit 4)" 4 'there is no room to write it anew '
	t "project: ... with UNEXPECTED INCONSISTENCY" grep -q 'UNEXPECTED INCONSISTENCY' <<<"$out"
	t "project: ... the file kept" [ "$(attrs 6 type)" = regular ]
fi

# --- nova-debug ---
if injected "prjquota 0"; then
	run "$dbg" "$c" stat 6
	expect "project: nova-debug stat 6: the project quota file" 0 '^size 0$'
	run "$dbg" "$c" stat 5
	expect "project: nova-debug stat 5: a reserved inode (exit 1)" 1 'inode 5 is a reserved inode'
	run "$dbg" "$c" stat 99999
	expect "project: nova-debug stat of a free inode (exit 1)" 1 'inode 99999 is not in use'
	run "$dbg" "$c" stat
	expect "project: nova-debug stat without an inode (exit 16)" 16 'stat takes 1 argument$'
	run "$dbg" "$c" quota
	expect "project: nova-debug quota of an empty project quota file (exit 1)" 1 \
		'the project quota file is empty'
fi
cp --sparse=always "$img" "$c"
run "$dbg" "$c" quota
expect "project: nova-debug quota without a project quota file (exit 1)" 1 \
	'no project quota file'
if injected "${qinj[@]}" "prjquota-tree entry 42 id 44"; then
	run "$dbg" "$c" quota
	expect "project: nova-debug quota of a damaged tree: what it leads to" 0 '^id 9 '
	t "project: ... a warning for each problem" \
		[ "$(grep -c 'warning: project quota file: ' <<<"$out")" = 2 ]
fi

# --- a repair that needs a new log page: made at the end of pass 4, when
# every used block is known, never on a block still in use ---
# /full: "." and "..", then 61 names of 64-byte dentries: its log page has
# 32 bytes left, no room for a link-change entry (48 bytes); /full2: 59
# names of 64 bytes and one of 80, then the link-change entry injected:
# 32 bytes left too
rm -rf "$work/tree2"
full_log_dir "$work/tree2/full" 61
full_log_dir "$work/tree2/full2" 59 long
mkdir -p "$work/tree2/z"
echo data >"$work/tree2/z/f"
img=$work/full.img
truncate -s 64M "$img"
run "$mkfs" -q -c 2 -d "$work/tree2" "$img"
expect "project: mkfs.nova -d of directories whose log page is full" 0
# full_repaired NAME PATH HOW OPT: project ID 4294967295 put in PATH's
# inode or link-change entry (HOW: pi, lc) when its log page is full;
# fsck OPT repairs PR_INODE_PROJID alone, nothing lost, the ID 0, in a
# new log page, then clean
full_repaired() {
	local name=$1 path=$2
	if ! injected "projid $path 4294967295 $3"; then
		fail "$name (injection failed)"
		return
	fi
	t "$name: no room" [ "$(log_room "$path")" -lt 48 ]
	run "$fsck" "$4" "$c"
	is "$name: fsck $4 (exit)" "$rc" 1
	is "$name: PR_INODE_PROJID alone repaired" "$(codes <<<"$out")" PR_INODE_PROJID
	tree_kept "$name" "$work/tree2"
	is "$name: the project ID 0" "$(attrs "$path" projid)" 0
	t "$name: a new log page" [ "$(log_room "$path")" -gt 3000 ]
	run "$fsck" -fn "$c"
	expect "$name: then clean" 0
}
full_repaired "project: ID 4294967295 on a directory whose log page is full" /full pi -fy
# -p, at boot, repairs it too; a link-change entry of ID 4294967295
full_repaired "project: ID 4294967295 logged in a full log page" /full2 lc -fp

unit_done project
