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
	expect "project: -p stopped after a repair (exit 5)" 5 \
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
fi

unit_done project
