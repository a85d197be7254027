#!/bin/bash
# mktree.sh DIR: a source tree for mkfs.nova -d tests, a few hundred
# entries: files of varied sizes (empty, one byte, around page sizes,
# a few MiB), sparse files (holes inside and at the end, all-zero data),
# a heavily fragmented sparse file (hundreds of write entries, a
# multi-page log), a directory of 200 names (a multi-page directory
# log), nested directories, symlinks up to 4095 bytes, hard links,
# fifos, devices and a socket (when run as root), odd names, modes,
# owners and nanosecond mtimes.  Deterministic but for file contents.
set -euo pipefail
d=$1
rm -rf "$d"
mkdir -p "$d"
cd "$d"
RANDOM=4242

rnd() { head -c "$1" /dev/urandom; }

# sizes around the page boundaries
mkdir sizes
for n in 0 1 100 4095 4096 4097 8191 8192 8193 12288 65535 65536 65537 \
	 200000 1048576; do
	rnd "$n" >"sizes/s$n"
done
rnd $((3 << 20)) >sizes/three-mib

# a directory with many names: its log spans several pages
mkdir many
for i in $(seq 1 200); do
	rnd $((RANDOM % 9000)) >"many/file-$i"
done

# nested directories
p=deep
for i in 1 2 3 4 5 6 7 8; do
	p=$p/level$i
	mkdir -p "$p"
	rnd $((RANDOM % 20000)) >"$p/data$i"
done
mkdir -p empty-dir/also-empty

# sparse files
truncate -s 100M sparse/hole-only 2>/dev/null || { mkdir sparse; truncate -s 100M sparse/hole-only; }
truncate -s 20M sparse/islands
for off in 0 5 1000 2047 4096; do
	printf 'island at page %d' "$off" |
		dd of=sparse/islands bs=4096 seek="$off" conv=notrunc status=none
done
rnd 10000 >sparse/tail-hole
truncate -s 1M sparse/tail-hole
head -c 100000 /dev/zero >sparse/all-zero
# 300 one-page islands: 300 write entries, a log of several pages
truncate -s 40M sparse/fragmented
for i in $(seq 0 299); do
	printf 'fragment %d' "$i" |
		dd of=sparse/fragmented bs=4096 seek=$((i * 2)) conv=notrunc status=none
done

# symlinks
mkdir links
long=$(head -c 4095 /dev/zero | tr '\0' 'x')
ln -s "$long" links/long-4095
ln -s "a/$(head -c 4093 /dev/zero | tr '\0' 'y')" links/long-path
ln -s x links/one-byte
ln -s ../sizes/s100 links/to-file
ln -s ../many links/to-dir
ln -s /nonexistent/target links/dangling

# hard links, across directories
rnd 5000 >links/hard-a
ln links/hard-a links/hard-b
ln links/hard-a many/hard-c
rnd 1 >links/hard-two
ln links/hard-two deep/hard-two

# special files
mkfifo special-fifo
if [ "$(id -u)" -eq 0 ]; then
	mknod special-char c 1 3
	mknod special-block b 8 17
	mknod special-bigdev c 300 70000
	chown 1000:1000 sizes/s1
	chown 12345:54321 sizes/s100
	chown 65534:65534 many
fi
if command -v python3 >/dev/null; then
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' special-socket
fi

# names and modes
: >"name with spaces"
: >"ünïcödé-名前"
: >"$(head -c 255 /dev/zero | tr '\0' 'n')"
: >.hidden
chmod 0000 sizes/s0
chmod 4755 sizes/s1
chmod 2711 sizes/s4096
chmod 1777 empty-dir
chmod 0600 many/file-7
touch -h -d '2001-02-03 04:05:06.123456789' links/one-byte
touch -d '1999-12-31 23:59:59.999999999' sizes/s8192
touch -d '2038-01-19 03:14:08.5' sizes/s8193
touch -d '1970-01-01 00:00:01' .hidden
# directory mtimes last (creating names above changed them)
touch -d '2010-10-10 10:10:10.101010101' deep/level1
touch -d '2020-02-20 20:20:20.2' empty-dir
