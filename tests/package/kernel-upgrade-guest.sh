#!/bin/bash
# The guest side of the kernel upgrade tier (tests/package/kernel-upgrade.sh):
# runs as root in the Debian 12 cloud image, started by cloud-init (runcmd)
# from the repository disk, once per boot, with its output on the serial
# console.
#
# Usage (guest): kernel-upgrade-guest.sh REPO_DIR 1|2
#   REPO_DIR holds the .debs with Packages.gz (a "file:" apt repository: nova-dkms,
#   nova-tools, the new kernel's packages), guest-lib.sh and run.conf
#   (new_kver=KVER, metas="linux-image-... linux-headers-...").
#   1  (the image's kernel) install nova, format and mount /dev/pmem0 through
#      mnt-nova.mount (enabled at boot), write files and record them, install
#      the new kernel: DKMS must build nova for it by itself; unmount, fsck;
#      write /boot/vmlinuz-KVER and /boot/initrd.img-KVER as a tar archive onto
#      the transfer disk (/dev/disk/by-id/virtio-novaxfer) for the host.
#   2  (the new kernel) mnt-nova.mount mounted NOVA at boot with DKMS's module
#      for this kernel, same UUID, same files; write, remount, fsck.
# What boot 1 records for boot 2 lives in /var/lib/nova-upgrade-test/ on the
# root disk. Console protocol: guest-lib.sh, with the prefix NOVA-UPG.
set -u
repo=${1:-/mnt/novarepo}
phase=${2:-1}
tag=NOVA-UPG
new_kver="" metas=""
# shellcheck source=/dev/null
[ -f "$repo/run.conf" ] && . "$repo/run.conf"
# shellcheck source=guest-lib.sh
. "$repo/guest-lib.sh"
state=/var/lib/nova-upgrade-test
xfer=/dev/disk/by-id/virtio-novaxfer

start
say "INFO boot $phase: kernel $kver, upgrade to ${new_kver:-?}"
[ -n "$new_kver" ] || { fail "run.conf names no new kernel (new_kver)"; finish; }
check "cloud-init: started this test, no module failed before it" cloud_init_ok
timing boot

# record: the tree below $mnt (type, mode, links, size, mtime, link target) and
# the SHA-256 of every file, into $state/tree and $state/sums (or to compare).
record() {
	(cd "$mnt" && find . -printf '%p %y %m %n %s %T@ %l\n' | LC_ALL=C sort) >"$1/tree" &&
		(cd "$mnt" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$1/sums"
}
# same [DIR]: the tree and the file contents are those recorded in DIR
# (default: $state, what boot 1 recorded).
same() {
	local d=${1:-$state} t
	t=$(mktemp -d)
	record "$t" || return 1
	diff -u "$d/tree" "$t/tree" && diff -u "$d/sums" "$t/sums" &&
		echo "$(wc -l <"$t/tree") entries, $(wc -l <"$t/sums") files identical"
	local rc=$?
	rm -rf "$t"
	return "$rc"
}
# module_for KVER: modinfo finds DKMS's nova for KVER, built for KVER.
module_for() {
	local k=$1 f
	f=$(modinfo -k "$k" -n nova) || return 1
	echo "$f: $(modinfo -k "$k" -F vermagic nova)"
	case $f in
	*/lib/modules/"$k"/updates/dkms/nova.ko*) ;;
	*) return 1 ;;
	esac
	[ "$(modinfo -k "$k" -F version nova)" = "$version" ] &&
		modinfo -k "$k" -F vermagic nova | grep -q "^$k "
}
version=$(dpkg-query -W -f='${Version}' nova-dkms 2>/dev/null)
version=${version%-*}

# --- boot 1: the image's kernel ------------------------------------------------------------
phase1() {
	check "ndctl: namespace0.0 in fsdax mode, $pmem is DAX-capable" fsdax
	use_local_repo
	check "apt install nova-dkms nova-tools from the file: repository (offline)" \
		bash -c "apt_local update && apt_local install -y --no-install-recommends nova-dkms nova-tools"
	version=$(dpkg-query -W -f='${Version}' nova-dkms 2>/dev/null)
	version=${version%-*}
	say "INFO installed nova-dkms $version"
	check "dkms status: nova/$version installed for $kver" dkms_installed "$version" "$kver"
	timing install

	echo 'NOVA_MKFS_OPTIONS="-L nova"' >/etc/default/nova-mkfs
	check "systemctl enable --now mnt-nova.mount: $pmem formatted and mounted on $mnt" \
		bash -c "systemctl enable --now mnt-nova.mount && findmnt -t NOVA $mnt"
	mkdir -p "$state"
	nova-probe "$pmem" | sed -n 's/^ID_FS_UUID=//p' >"$state/uuid"
	say "INFO $pmem: UUID $(cat "$state/uuid")"
	files() {
		findmnt -t NOVA $mnt >/dev/null || { echo "$mnt is not a NOVA mount"; return 1; }
		mkdir -p $mnt/dir/sub $mnt/empty-dir &&
			echo hello >$mnt/f &&
			head -c 4M /dev/urandom >$mnt/dir/random-4M &&
			head -c 5000 /dev/urandom >$mnt/dir/sub/random-5000 &&
			seq 1 200000 >$mnt/dir/sub/seq &&
			dd if=/dev/urandom of=$mnt/dir/sparse bs=4k count=3 seek=1000 status=none &&
			ln -s ../f $mnt/dir/link && ln $mnt/dir/sub/seq $mnt/dir/hardlink &&
			touch $mnt/empty && chmod 0600 $mnt/dir/sub/random-5000 &&
			touch -d '2001-02-03 04:05:06.123456789' $mnt/dir/old && sync &&
			record "$state" && wc -l "$state/tree" "$state/sums"
	}
	check "files on $mnt: data, sparse, hard link, symlink, modes, times (recorded)" files
	timing files

	# initramfs-tools' default, MODULES=most, puts some 2,000 modules into the
	# new kernel's initramfs, several processes for each: 10 minutes under TCG
	# (measured). This machine's root (ext4 on virtio) needs a handful:
	# MODULES=dep, initramfs-tools' setting for "this machine only".
	echo MODULES=dep >/etc/initramfs-tools/conf.d/nova-test.conf
	# The upgrade itself, with the file system mounted and the 6.1 module in use.
	# Its output with the time of each line: the slow steps under TCG.
	kernel_install() {
		# shellcheck disable=SC2086 # metas is a list of package names
		apt_local install -y --no-install-recommends $metas 2>&1 |
			while IFS= read -r l; do printf '%(%T)T %s\n' -1 "$l"; done
		return "${PIPESTATUS[0]}"
	}
	check "apt install ${metas// /, } (offline, NOVA mounted)" kernel_install
	timing kernel-install
	check "dpkg: linux-image-$new_kver installed, /boot has its vmlinuz and initrd" \
		bash -c "dpkg-query -W linux-image-$new_kver linux-headers-$new_kver &&
			ls -l /boot/vmlinuz-$new_kver /boot/initrd.img-$new_kver"
	check "dkms: nova/$version installed for $new_kver by itself (no dkms command run)" \
		dkms_installed "$version" "$new_kver"
	check "modinfo -k $new_kver: DKMS's nova, version $version, vermagic $new_kver" module_for "$new_kver"
	check "modinfo -k $kver: the module of the running kernel is still there" module_for "$kver"
	check "files on $mnt unchanged by the upgrade" same

	check "systemctl stop mnt-nova.mount: unmounted" \
		bash -c "systemctl stop mnt-nova.mount && ! findmnt $mnt"
	check "fsck.nova -fn $pmem: clean" fsck.nova -fn "$pmem"
	check "systemctl is-enabled mnt-nova.mount: enabled (mounts at the next boot)" \
		systemctl is-enabled mnt-nova.mount
	transfer() {
		udevadm settle
		ls -l "$xfer" && tar -C /boot -cvf "$xfer" "vmlinuz-$new_kver" "initrd.img-$new_kver" && sync
	}
	check "tar vmlinuz-$new_kver initrd.img-$new_kver to the transfer disk (for the host)" transfer
	timing unmount-transfer
}

# --- boot 2: the new kernel ---------------------------------------------------------------
phase2() {
	check "running the new kernel $new_kver" [ "$kver" = "$new_kver" ]
	mounted() {
		local i
		for ((i = 0; i < 120; i++)); do
			systemctl is-active -q mnt-nova.mount && break
			sleep 1
		done
		systemctl status --no-pager mnt-nova.mount "$mkfs_unit" | head -n 20
		findmnt -t NOVA $mnt
	}
	if ! check "mnt-nova.mount mounted NOVA on $mnt at boot" mounted; then
		check "systemctl start mnt-nova.mount (after the failed boot mount)" \
			bash -c "systemctl start mnt-nova.mount && findmnt -t NOVA $mnt"
	fi
	check "module: the loaded nova is DKMS's build for $kver (version $version)" \
		bash -c "grep '^nova ' /proc/modules && modinfo -n nova | grep -q '/lib/modules/$kver/updates/dkms/nova.ko' &&
			[ \"\$(cat /sys/module/nova/version)\" = '$version' ] &&
			[ \"\$(cat /sys/module/nova/srcversion)\" = \"\$(modinfo -F srcversion nova)\" ]"
	check "same file system: UUID $(cat "$state/uuid"), the formatter did not format" \
		bash -c "[ \"\$(nova-probe $pmem | sed -n 's/^ID_FS_UUID=//p')\" = '$(cat "$state/uuid")' ] &&
			journalctl -b -u $mkfs_unit --no-pager -q | tee /dev/stderr | grep -q 'already holds a NOVA file system' &&
			! journalctl -b -u $mkfs_unit --no-pager -q | grep -q 'running mkfs.nova'"
	check "same files as written on the old kernel (tree, modes, times, SHA-256)" same
	timing mount
	write_remount() {
		findmnt -t NOVA $mnt >/dev/null || return 1
		head -c 3M /dev/urandom >$mnt/dir/new-on-"$kver" && echo appended >>$mnt/f &&
			rm $mnt/dir/hardlink && mv $mnt/dir/sub/seq $mnt/seq-moved &&
			mkdir -p "$state.new" && record "$state.new" || return 1
		systemctl stop mnt-nova.mount && ! findmnt $mnt >/dev/null &&
			systemctl start mnt-nova.mount && findmnt -t NOVA $mnt >/dev/null &&
			same "$state.new"
	}
	check "write, append, unlink, rename on $kver; remount: all there" write_remount
	check "systemctl stop mnt-nova.mount, modprobe -r nova; fsck.nova -fn $pmem: clean" \
		bash -c "systemctl stop mnt-nova.mount && ! findmnt $mnt && modprobe -r nova && fsck.nova -fn $pmem"
	check "dkms status: nova/$version installed for both kernels" \
		bash -c "dkms status nova | tee /dev/stderr | grep -c ': installed' | grep -qx 2"
	timing remount
}

if [ "$phase" = 1 ]; then phase1; else phase2; fi
check "journal: no errors from udev or the NOVA units" \
	bash -c "! journalctl -b --no-pager -q -p err -u systemd-udevd -u '$mkfs_unit' -u mnt-nova.mount | grep ."
finish
