#!/bin/bash
# The main job: build NOVA against the guest kernel, boot a QEMU guest with
# emulated pmem, format and mount NOVA, write and read files, show them,
# remount and show that everything is still there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s deps
make -s module tools guest-bin
script=$(mktemp /tmp/nova-demo.XXXXXX.sh)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'DEMO'
#!/bin/sh
set -e
say() { printf '\n### %s\n' "$*"; }
say "module loaded: $(grep NOVA /proc/filesystems)"
say "mount -t NOVA -o init $PMEM $MNT"
mount -t NOVA -o init "$PMEM" "$MNT"
grep " $MNT " /proc/mounts
df -h "$MNT"
say "write and read a file"
echo "Hello from NOVA on emulated persistent memory" > "$MNT/hello.txt"
cat "$MNT/hello.txt"
mkdir -p "$MNT/dir/sub"
dd if=/dev/urandom of="$MNT/dir/random.bin" bs=64k count=16 2>/dev/null
ln -s ../hello.txt "$MNT/dir/link"
sum=$(md5sum < "$MNT/dir/random.bin")
ls -lR "$MNT"
say "umount and mount again (no init): the data is rebuilt from the logs"
umount "$MNT"
mount -t NOVA "$PMEM" "$MNT"
cat "$MNT/dir/link"
[ "$(md5sum < "$MNT/dir/random.bin")" = "$sum" ] && echo "random.bin: checksum matches ($sum)"
nova-probe "$PMEM"
umount "$MNT"
say "demo finished"
DEMO
tests/run-guest-tests.sh --no-build --script "$script" -v
