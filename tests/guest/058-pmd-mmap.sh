#!/bin/sh
# Large files get 2 MiB-aligned extents, so DAX mappings of them are
# served by 2 MiB (PMD) faults; small writes keep using 4 KiB pages.
# A store into a 2 MiB hole of a 2 MiB-aligned shared mapping gets a
# PMD fault first, which falls back to a 4 KiB one: only the page
# stored to gets a block (one fault allocation, st_blocks 8, SEEK_DATA
# and FIEMAP at it); a store into preallocated pages that cannot be
# mapped by one PMD logs only the page stored to as written (SEEK_DATA
# finds it: the other preallocated pages are holes).
. "$NOVA_TESTS/lib.sh"
. "$NOVA_TESTS/nova-lib.inc"

nova_format
P=/proc/fs/NOVA/pmem0
expect_ok mkdir "$MNT/d"
echo 1 > "$P/IO_stats"
expect_ok t_data "$MNT/d" mmap_4m_pmd
cat "$P/IO_stats"
n=$(awk '$1 == "pmd_faults" { print $2 }' "$P/IO_stats")
[ "$n" -gt 0 ] || fail "no PMD faults for a 2 MiB-aligned 4 MiB file"
# fallocate of an aligned range is aligned too
expect_ok fallocate -l 8388608 "$MNT/falloc"
expect_ok t_data "$MNT/d" mmap_read
fault_allocs() { awk '$1 == "fault_allocs" { print $2 }' "$P/IO_stats"; }
a0=$(fault_allocs)
out=$(nova-fsctl pmdstore "$MNT/hole") || fail "pmdstore: $out"
expect_eq "$out" "aligned=1 blocks=8 data=1048576" "a store at 1 MiB + 8 into a 4 MiB hole (mapping aligned, st_blocks, SEEK_DATA)"
expect_eq "$(($(fault_allocs) - a0))" 1 "fault allocations for one store"
expect_eq "$(t_fiemap "$MNT/hole" | awk '{ print $1, $3, $4 }')" "1048576 4096 1" "FIEMAP after one store"
# pages [0, 100) preallocated (one run, shorter than 2 MiB), a store into page 50
out=$(nova-fsctl pmdstore "$MNT/pre" 100) || fail "pmdstore: $out"
# (SEEK_DATA: preallocated pages are holes, the page stored to is data)
expect_eq "$out" "aligned=1 blocks=800 data=204800" "a store into page 50 of 100 preallocated pages"
expect_eq "$(t_fiemap "$MNT/pre" | awk '{ print $1, $3, $4 }' | tr '\n' ' ')" \
	"0 204800 800 204800 4096 0 208896 200704 801 " \
	"FIEMAP after one store into preallocated pages (page 50 written, the rest unwritten)"
expect_ok rm "$MNT/hole" "$MNT/pre"
nova_umount
