#!/bin/bash
# Build the small per-run payload: a gzip cpio archive appended to the cached base
# initramfs (the kernel unpacks concatenated archives). It contains
#   /nova/nova.ko         the module under test
#   /nova/tests/...       everything in the tests dir (incl. lib.sh, bin/ if present)
#   /nova/run.conf        run parameters read by /init
#   /nova/extra/...       optional extra files (ad-hoc scripts)
#
# Usage: qemu/mkpayload.sh -o OUT.cpio.gz [--ko FILE] [--tests-dir DIR]
#                          [--conf FILE] [--extra FILE]...
#   --ko FILE         module (default: src/nova.ko; may be omitted if it does not exist
#                     and --no-ko is given)
#   --no-ko           do not include a module
#   --tests-dir DIR   default: tests/guest
#   --conf FILE       run.conf to include (default: empty run.conf = run all tests)
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

out="" ko="$NOVA_ROOT/src/nova.ko" no_ko=0 tdir="$NOVA_ROOT/tests/guest" conf="" extras=()
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	--ko) ko=$2; shift ;;
	--no-ko) no_ko=1 ;;
	--tests-dir) tdir=$2; shift ;;
	--conf) conf=$2; shift ;;
	--extra) extras+=("$2"); shift ;;
	*) die "unknown option: $1 (see the header of $0)" ;;
	esac
	shift
done
[ -n "$out" ] || die "-o OUT is required"
ensure_pkgs cpio gzip

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/nova/tests"
if [ "$no_ko" = 0 ]; then
	[ -f "$ko" ] || die "module not found: $ko"
	cp "$ko" "$stage/nova/nova.ko"
fi
if [ -d "$tdir" ]; then
	cp -a "$tdir/." "$stage/nova/tests/"
else
	log "warning: no tests directory $tdir"
fi
[ ! -d "$stage/nova/tests/bin" ] || chmod -R a+rX "$stage/nova/tests/bin"
if [ -n "$conf" ]; then
	cp "$conf" "$stage/nova/run.conf"
else
	: >"$stage/nova/run.conf"
fi
if [ ${#extras[@]} -gt 0 ]; then
	mkdir -p "$stage/nova/extra"
	cp "${extras[@]}" "$stage/nova/extra/"
fi

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$out"
