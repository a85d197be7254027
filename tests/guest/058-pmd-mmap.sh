#!/bin/sh
# Large files get 2 MiB-aligned extents, so DAX mappings of them are
# served by 2 MiB (PMD) faults; small writes keep using 4 KiB pages.
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
nova_umount
