#!/bin/bash
# mkcorpus.sh TOOLS_DIR NOVA_IMAGE NOVA_FUZZ_IMG OUTDIR
#
# The seed corpus of the fsck.nova fuzz target, made at build time (no
# image is kept in git): small images from mkfs.nova, empty and with a
# small tree (-d), with 1 and 2 stripes, a directory with a two-page
# log, and copies of the populated ones with one corruption each
# (tests/unit/nova_image inject), each encoded by nova-fuzz-img with -n,
# -y and -p flags.  The tree has extended attributes where the host keeps
# them, and some seeds malformed xattr groups; two hold a project quota
# file with a quota tree, two a block that two files share (reflink).  A
# few kilobytes per seed.
set -euo pipefail
tools=$1 helper=$2 fzimg=$3 out=$4
work=$out.work
rm -rf "$work" "$out"
mkdir -p "$work" "$out"
min=$((64 + 2 + 256))		# NOVA_MIN_SIZE in blocks

# a small tree: files in one and several pages, a hole, a directory with a
# few names, a nested one, a symlink, a hard link, a fifo
t=$work/tree
mkdir -p "$t/dir/sub" "$t/empty"
printf 'hello\n' >"$t/small"
printf x >"$t/dir/two-pages"; truncate -s 9000 "$t/dir/two-pages"
printf x >>"$t/dir/two-pages"
truncate -s 20000 "$t/sparse"
printf 'end' >>"$t/sparse"
for i in 1 2 3 4 5 6; do printf '%s' "$i" >"$t/dir/f$i"; done
printf 'deep' >"$t/dir/sub/deep"
ln -s dir/sub/deep "$t/link"
ln "$t/small" "$t/dir/hard"
mkfifo "$t/dir/fifo"
# extended attributes where the host keeps them: a one-part group, one of
# two parts, a directory's, a default ACL (u::rwx,g::r-x,o::r-x)
xattrs=0
if "$helper" setxattr "$t/small" user.comment hi 2>/dev/null; then
	xattrs=1
	"$helper" setxattr "$t/dir/two-pages" user.long fill:2500
	"$helper" setxattr "$t/dir" user.d "on a directory"
	"$helper" setxattr "$t/dir" system.posix_acl_default \
		hex:0200000001000700ffffffff04000500ffffffff20000500ffffffff \
		2>/dev/null || true
fi

mk() {	# mk NAME BLOCKS STRIPES [-d TREE]
	local name=$1 blocks=$2 stripes=$3
	shift 3
	truncate -s $((blocks * 4096)) "$work/$name.img"
	"$tools/mkfs.nova" -q -f -c "$stripes" "$@" "$work/$name.img"
}
mk empty1 $min 1
mk empty2 $((min + 150)) 2
mk tree1 $((min + 200)) 1 -d "$t"
mk tree2 $((min + 300)) 2 -d "$t"
# a directory log of two pages (80 empty files)
m=$work/many
mkdir -p "$m/many"
for i in $(seq 1 80); do : >"$m/many/name-$i"; done
mk many $((min + 100)) 1 -d "$m"

# one corruption each, on copies of tree1 (or of many: injm)
inj() {	# inj NAME KIND ARGS...
	cp "$work/tree1.img" "$work/$1.img"
	"$helper" inject "$work/$1.img" "${@:2}" >/dev/null
}
injm() {
	cp "$work/many.img" "$work/$1.img"
	"$helper" inject "$work/$1.img" "${@:2}" >/dev/null
}
inj journal journal /small
inj orphan orphan /dir/f1
inj dupblock dup-block /small /dir/two-pages
# shared blocks (reflink): a clone, and one whose destination is unflagged
inj reflink clone /dir/two-pages /small 1 0 2 2
inj reflinkbad clone /dir/two-pages /small 1 0 2 0
inj links file-links /dir/f2 5
inj dotdot dotdot /dir/sub /empty
inj cycle cycle /dir /dir/sub
inj ftype ftype /dir f3
inj dead dead-flag /dir f4
inj snapshot snapshot
inj midcsum mid-csum /dir 2
inj tid tid /dir
inj symlink bad-symlink /link
inj sbcsum sb-csum
inj replica reserved-replica
inj itloop itable-loop
inj lastcsum last-csum /dir
inj lasttype last-type /dir
inj loghead log-head /small
inj ghost dentry-free /dir ghost
inj orphan0 orphan0 /dir/f5
inj hardlink dir-hardlink /empty /dir/sub alias
inj cookie dup-cookie /dir f1 f2
injm tailcnt tail-counters /many
injm lognext log-next-range /many
injm logloop log-loop /many
injm midcsum2 mid-csum /many 30
inj inomis ino-mismatch /dir/f6
inj badmode bad-mode /dir/fifo
inj jcorrupt journal-corrupt /small
inj jwrap journal-wrap /small
inj error set-error
inj sbstate sb-state
inj sbdiffer sb-differ
inj jtail journal-tail
inj jhead journal-head
inj jtable journal-table
inj rootbad root-invalid
inj resslot reserved-slot
inj nohead tail-no-head /small
inj snapbad snapshot-bad /small
inj stale snapshot-stale
inj invpages invalid-pages /dir/two-pages
inj selfck gc-selfck /dir f3
injm gcwin gc-window /many
injm gcdone gc-done /many
# malformed xattr groups, and kernel states with xattrs
inj xindex xattr-bad /small index
inj xremove xattr-bad /small remove-value
inj xseq xattr-bad /dir part-seq
inj xsum xattr-bad /dir/f1 sum
inj xvcsum xattr-bad /small value-csum
inj xint xattr-bad /dir/f2 interrupted
inj xend xattr-bad /small end
inj xecsum xattr-bad /dir entry-csum
inj xorphans xattr-orphans /dir/f3
inj xset xattr-set /dir/f4 user.new fill:3000
if [ "$xattrs" = 1 ]; then
	inj xdead xattr-dead /small user.comment
	inj xcut xattr-cut /dir/two-pages user.long fill:2400
	inj xremoved xattr-remove /dir user.d
	inj xfeature clear-feature
	inj xgc gc-done /dir/two-pages
fi

# the project quota file: a tree of three projects, two with limits, and
# a copy whose tree has a block referenced twice
inj prjquota prjquota 12288 42:100:200:10:20 70000:1:2:3:4
cp "$work/prjquota.img" "$work/prjtwice.img"
"$helper" inject "$work/prjtwice.img" prjquota-tree ref 70000 1 =0:2 >/dev/null

for img in "$work"/*.img; do
	n=$(basename "$img" .img)
	# flags (fuzz_image.h): 0x0c -n, 0x0d -y, 0x0e -p, with the
	# checksum fix-ups; 0x00: -n on the image as it is
	for f in 0x00 0x0c 0x0d 0x0e; do
		"$fzimg" encode $f "$img" "$out/$n-$f"
	done
done
rm -rf "$work"
