#!/bin/bash
# Cheap package tier (host only, no guest; part of "make check"): the version
# agrees everywhere, dkms.conf is complete, the .deb packages build with no
# lintian error or warning and hold the right files and maintainer scripts, the
# .rpm packages build and hold the same files with the DKMS scriptlets, the
# packaged module source builds with DKMS against the guest kernel's headers,
# and the first-time formatter never reformats.
#
# Usage: tests/package/package-check.sh
# Output: PASS/FAIL lines, then "N passed, N failed" (last line).
# Logs: build/package-check/ (and build/deb/, build/rpm/ from the builds).
# shellcheck disable=SC2317 # check functions are called through check()
set -uo pipefail
NOVA_PROG=package-check
# shellcheck source=../../qemu/common.sh
. "$(dirname "$0")/../../qemu/common.sh"
# shellcheck source=../../packaging/lib.sh
. "$NOVA_ROOT/packaging/lib.sh"

out=$NOVA_BUILD/package-check
rm -rf "$out"
mkdir -p "$out"
passed=0 failed=0
t_start=$SECONDS

pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
# check NAME CMD...: PASS when CMD succeeds (its output goes to the log)
check() {
	local name=$1
	shift
	if "$@" >>"$out/checks.log" 2>&1; then pass "$name"; else fail "$name"; fi
}
finish() {
	echo "package-check took $((SECONDS - t_start)) s"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
	exit
}
# built WHAT SCRIPT: packaging/SCRIPT.sh builds nova-dkms and nova-tools
# (log in $out/SCRIPT.log); PASS with the time it took, or FAIL and the
# log's tail
built() {
	local t0=$SECONDS log=$out/$2.log
	if "$NOVA_ROOT/packaging/$2.sh" >"$log" 2>&1; then
		pass "$1 builds nova-dkms and nova-tools ($((SECONDS - t0)) s)"
	else
		fail "$1 (see $log)"
		tail -n 20 "$log"
	fi
}
# the files in a .deb, without the leading "."
deb_files() { dpkg-deb --fsys-tarfile "$1" | tar -t | sed 's|^\./|/|; s|/$||' | sort; }

ensure_pkgs dpkg-dev debhelper dh-dkms lintian rpm rpm2cpio cpio shellcheck \
	e2fsprogs util-linux kmod dkms systemd gcc make libblkid-dev uuid-dev

# --- version: src/VERSION is the single source ------------------------------------
version=$(nova_version) || { fail "version: src/VERSION unreadable"; finish; }
deb_version=$(dpkg-parsechangelog -l "$NOVA_ROOT/debian/changelog" -S Version)
spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$NOVA_ROOT/nova.spec")
spec_cl=$(sed -n '/^%changelog/,$ s/^\*.* - \([^ -]*\)-[^ ]*$/\1/p' "$NOVA_ROOT/nova.spec" | head -n1)
check "version: debian/changelog ($deb_version) = src/VERSION ($version)" \
	test "${deb_version%-*}" = "$version"
check "version: nova.spec Version ($spec_version) and newest %changelog ($spec_cl) = src/VERSION" \
	test "$spec_version" = "$version" -a "$spec_cl" = "$version"
news_version=$(sed -n 's/^Version \([^ ]*\).*/\1/p' "$NOVA_ROOT/NEWS" | head -n1)
check "version: newest NEWS entry ($news_version) = src/VERSION" \
	test "$news_version" = "$version"
check "version: dkms.conf takes it from the packages (#MODULE_VERSION#)" \
	grep -qx 'PACKAGE_VERSION="#MODULE_VERSION#"' "$NOVA_ROOT/dkms.conf"

# --- dkms.conf ---------------------------------------------------------------------
dkms_conf_ok() {
	# shellcheck disable=SC2034 # variables that dkms.conf expands
	(
		kernelver=6.1.0-99-test kernel_source_dir=/lib/modules/6.1.0-99-test/build
		# shellcheck source=../../dkms.conf
		. "$NOVA_ROOT/dkms.conf"
		set -x
		[ "$PACKAGE_NAME" = nova ] &&
			[ "${BUILT_MODULE_NAME[0]}" = nova ] &&
			[ "${BUILT_MODULE_LOCATION[0]}" = src/ ] &&
			[[ ${DEST_MODULE_LOCATION[0]} == /updates* ]] &&
			[[ ${MAKE[0]} == *"-C src KVER=6.1.0-99-test KDIR=/lib/modules/6.1.0-99-test/build"* ]] &&
			[[ $CLEAN == *"-C src"*clean* ]] &&
			[ "$AUTOINSTALL" = yes ]
	)
}
check "dkms.conf: name, module, locations, MAKE with KVER/KDIR, CLEAN, AUTOINSTALL" dkms_conf_ok

# The supported range: 6.1 and newer (DKMS matches BUILD_EXCLUSIVE_KERNEL as
# an extended regular expression against the kernel release)
dkms_range_ok() {
	(
		# shellcheck disable=SC2034 # variables that dkms.conf expands
		kernelver=x kernel_source_dir=x
		# shellcheck source=../../dkms.conf
		. "$NOVA_ROOT/dkms.conf"
		set -x
		for k in 6.1.0-57-amd64 6.1.0-57-cloud-amd64 6.12.118+deb12-amd64 \
			6.12.118+deb13-amd64 7.2.13+deb14-amd64 6.19.3-1-amd64 10.0.0; do
			[[ $k =~ $BUILD_EXCLUSIVE_KERNEL ]] || return 1
		done
		for k in 5.10.0-30-amd64 6.0.0-1-amd64 4.19.0-27-amd64 3.16.0-11-amd64; do
			[[ $k =~ $BUILD_EXCLUSIVE_KERNEL ]] && return 1
		done
		return 0
	)
}
check "dkms.conf: BUILD_EXCLUSIVE_KERNEL takes 6.1 to 10.x, refuses 3.16 to 6.0" dkms_range_ok
check "nova.spec: needs kernel headers >= 6.1" \
	grep -q '^Requires: *(kernel-devel >= 6.1 or kernel-default-devel >= 6.1)' "$NOVA_ROOT/nova.spec"

# --- modprobe.d ----------------------------------------------------------------------
conf=$NOVA_ROOT/modprobe.d/nova.conf
check "modprobe.d/nova.conf: commented default options line" \
	grep -qx '# options nova measure_timing=0 inplace_data_updates=0' "$conf"
params_exist() {
	local p
	for p in $(sed -n 's/^# options nova //p' "$conf" | tr ' ' '\n' | cut -d= -f1); do
		grep -qE "module_param(_cb|_named)?\($p," "$NOVA_ROOT"/src/*.c ||
			{ echo "no module_param $p"; return 1; }
	done
}
check "modprobe.d/nova.conf: every documented option is a module parameter" params_exist
mkdir -p "$out/modprobe.d"
cp "$conf" "$out/modprobe.d/"
# nd_pmem as an active soft dependency would make "modprobe -r nova" unload it,
# taking /dev/pmem* away (seen in the full tier): documented, commented out.
check "modprobe.d/nova.conf: softdep on nd_pmem documented but not active" \
	bash -c "grep -qx '# softdep nova pre: nd_pmem' '$conf' &&
		! modprobe -c -C '$out/modprobe.d' | grep -q '^softdep nova'"
sed 's/^# options nova /options nova /' "$conf" >"$out/modprobe.d/nova.conf"
check "modprobe.d/nova.conf: the options line parses when uncommented" \
	bash -c "modprobe -c -C '$out/modprobe.d' | grep -qx 'options nova measure_timing=0 inplace_data_updates=0'"

# --- shell scripts --------------------------------------------------------------------
scripts=("$NOVA_ROOT"/packaging/*.sh "$NOVA_ROOT"/tests/package/*.sh
	"$NOVA_ROOT/systemd/nova-mkfs-once" "$NOVA_ROOT/debian/nova-tools.postinst")
check "shellcheck: packaging scripts, tests, nova-mkfs-once, postinst" \
	shellcheck -x "${scripts[@]}"

# --- .deb ---------------------------------------------------------------------------
built "deb: dpkg-buildpackage -us -uc -b" build-deb
debdir=$NOVA_BUILD/deb
ddeb=$debdir/nova-dkms_${version}_all.deb
tdeb=$(find "$debdir" -maxdepth 1 -name "nova-tools_${version}_*.deb" 2>/dev/null | head -n1)
if [ -f "$debdir/lintian.txt" ]; then
	summary=$(lintian_summary "$debdir/lintian.txt")
	echo "lintian: $summary"
	check "lintian: no errors, no warnings ($summary)" \
		bash -c "! grep -qE '^[EW]: ' '$debdir/lintian.txt'"
else
	fail "lintian: no lintian output"
fi

if [ -f "$ddeb" ] && [ -n "$tdeb" ]; then
	deb_files "$ddeb" >"$out/nova-dkms.deb.files"
	deb_files "$tdeb" >"$out/nova-tools.deb.files"
	src=/usr/src/nova-$version
	dkms_files_ok() {
		local f o bad=0
		for f in "$src/dkms.conf" "$src/src/Kbuild" "$src/src/Makefile" "$src/src/VERSION" \
			/etc/modprobe.d/nova.conf; do
			grep -qx "$f" "$out/nova-dkms.deb.files" || { echo "missing $f"; bad=1; }
		done
		# every object in Kbuild has its source in the package
		while read -r o; do
			grep -qx "$src/src/${o%.o}.c" "$out/nova-dkms.deb.files" ||
				{ echo "missing ${o%.o}.c"; bad=1; }
		done < <(dpkg-deb --fsys-tarfile "$ddeb" | tar -xO ".$src/src/Kbuild" |
			sed -n '/^nova-y/,/^$/p' | grep -o '[A-Za-z0-9_-]*\.o')
		! grep -E '\.(o|ko|mod|cmd)$|\.mod\.c$|/tools/' "$out/nova-dkms.deb.files" || bad=1
		return "$bad"
	}
	check "deb nova-dkms: dkms.conf, Kbuild, Makefile, VERSION, a .c for every Kbuild object, no build products" dkms_files_ok
	dpkg-deb --fsys-tarfile "$ddeb" | tar -xO ".$src/dkms.conf" >"$out/deb-dkms.conf" 2>/dev/null
	check "deb nova-dkms: dkms.conf has PACKAGE_VERSION=\"$version\"" \
		grep -qx "PACKAGE_VERSION=\"$version\"" "$out/deb-dkms.conf"
	dpkg-deb -f "$ddeb" Depends Architecture >"$out/deb-dkms.control"
	check "deb nova-dkms: Architecture all, Depends dkms and kernel headers" \
		bash -c "grep -q '^Architecture: all' '$out/deb-dkms.control' &&
			grep -q 'dkms (>=' '$out/deb-dkms.control' && grep -q 'linux-headers-amd64 |' '$out/deb-dkms.control'"
	dpkg-deb --ctrl-tarfile "$ddeb" | tar -x -C "$out" --transform 's|^\./|dkms-ctrl.|' 2>/dev/null
	check "deb nova-dkms: /etc/modprobe.d/nova.conf is a conffile" \
		grep -qx /etc/modprobe.d/nova.conf "$out/dkms-ctrl.conffiles"
	check "deb nova-dkms: postinst runs DKMS (common.postinst nova $version), prerm dkms remove" \
		bash -c "grep -q 'DKMS_VERSION=$version' '$out/dkms-ctrl.postinst' &&
			grep -q common.postinst '$out/dkms-ctrl.postinst' &&
			grep -q 'dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all' '$out/dkms-ctrl.prerm'"

	tools_files_ok() {
		local f p bad=0
		for f in /usr/sbin/mkfs.nova /usr/sbin/mkfs.NOVA /usr/sbin/nova-probe \
			/usr/lib/udev/rules.d/60-nova.rules /usr/lib/systemd/system/mnt-nova.mount \
			/usr/lib/systemd/system/nova-mkfs@.service /usr/libexec/nova/nova-mkfs-once \
			/etc/default/nova-mkfs /usr/share/man/man8/nova-mkfs@.service.8.gz; do
			grep -qx "$f" "$out/nova-tools.deb.files" || { echo "missing $f"; bad=1; }
		done
		# every program has a manual page
		while read -r p; do
			grep -qx "/usr/share/man/man8/$p.8.gz" "$out/nova-tools.deb.files" ||
				{ echo "no man page for $p"; bad=1; }
		done < <(sed -n 's|^/usr/sbin/||p' "$out/nova-tools.deb.files")
		! grep -q '^/lib/' "$out/nova-tools.deb.files" || { echo "files in /lib"; bad=1; }
		return "$bad"
	}
	check "deb nova-tools: programs (each with a man page), udev rule, units in /usr/lib, formatter" tools_files_ok
	dpkg-deb --ctrl-tarfile "$tdeb" | tar -x -C "$out" --transform 's|^\./|tools-ctrl.|' 2>/dev/null
	# --no-enable snippet: enable only where the admin had enabled it (debian-installed)
	check "deb nova-tools: /etc/default/nova-mkfs is a conffile; postinst neither enables nor starts units" \
		bash -c "grep -qx /etc/default/nova-mkfs '$out/tools-ctrl.conffiles' &&
			grep -q \"deb-systemd-helper debian-installed 'mnt-nova.mount'\" '$out/tools-ctrl.postinst' &&
			! grep -q deb-systemd-invoke '$out/tools-ctrl.postinst'"
	dpkg-deb -x "$tdeb" "$out/tools-root"
	rules_ok() {
		local r=$out/tools-root/usr/lib/udev/rules.d/60-nova.rules prog
		# every non-comment line is KEY op "value" pairs or a LABEL
		! grep -vE '^(#.*|)$|^([A-Z_]+(\{[^}]*\})?(==|!=|=|\+=|:=)"[^"]*"(, *)?)+$' "$r" || return 1
		prog=$(sed -n 's/.*IMPORT{program}="\([^ "]*\).*/\1/p' "$r")
		[ -x "$out/tools-root$prog" ] || { echo "$prog is not in nova-tools"; return 1; }
		grep -q 'KERNEL!="pmem\*"' "$r" || return 1
		# sorts before the rules that make the by-uuid/by-label links
		[ "$(printf '%s\n' 60-persistent-storage.rules "${r##*/}" | LC_ALL=C sort | head -n1)" = "${r##*/}" ]
	}
	check "udev: 60-nova.rules syntax, runs /usr/sbin/nova-probe from nova-tools, before 60-persistent-storage" rules_ok
	# systemd-analyze verify needs the programs that the units run: check them
	# in the unpacked package (the host's own units are not involved).
	verify_units() {
		local d=$out/units
		mkdir -p "$d"
		cp "$out/tools-root"/usr/lib/systemd/system/* "$d/"
		sed -i "s|/usr/libexec/nova/|$out/tools-root/usr/libexec/nova/|" "$d/nova-mkfs@.service"
		SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
			"$d/mnt-nova.mount" "$d/nova-mkfs@dev-pmem0.service" 2>&1 |
			grep -v -e 'dev-pmem0.device' -e 'Failed to .* bus' -e '^$' -e 'not found' | tee "$out/verify.log"
		[ ! -s "$out/verify.log" ]
	}
	cp "$out/tools-root/usr/lib/systemd/system/nova-mkfs@.service" "$out/nova-mkfs@dev-pmem0.service" 2>/dev/null
	check "systemd: systemd-analyze verify mnt-nova.mount, nova-mkfs@dev-pmem0.service" verify_units
	check "systemd: mnt-nova.mount Requires/After nova-mkfs@dev-pmem0.service, Type=NOVA, not autoloading via a modules-load.d" \
		bash -c "grep -qx 'Requires=nova-mkfs@dev-pmem0.service' '$NOVA_ROOT/systemd/mnt-nova.mount' &&
			grep -qx 'After=nova-mkfs@dev-pmem0.service' '$NOVA_ROOT/systemd/mnt-nova.mount' &&
			grep -qx 'Type=NOVA' '$NOVA_ROOT/systemd/mnt-nova.mount' &&
			grep -qx 'Where=/mnt/nova' '$NOVA_ROOT/systemd/mnt-nova.mount'"
else
	fail "deb: packages missing in $debdir"
fi

# --- the first-time formatter on image files (the programs from the .deb) ------------
if [ -x "$out/tools-root/usr/sbin/mkfs.nova" ]; then
	export NOVA_PROBE=$out/tools-root/usr/sbin/nova-probe
	export NOVA_MKFS=$out/tools-root/usr/sbin/mkfs.nova
	once=$out/tools-root/usr/libexec/nova/nova-mkfs-once
	img=$out/blank.img
	truncate -s 64M "$img"
	uuid_of() { "$NOVA_PROBE" "$1" | sed -n 's/^ID_FS_UUID=//p'; }
	check "nova-mkfs-once: formats a blank image, with NOVA_MKFS_OPTIONS=-L nova" \
		bash -c "NOVA_MKFS_OPTIONS='-q -L nova' '$once' '$img' &&
			'$NOVA_PROBE' '$img' | grep -qx ID_FS_LABEL=nova"
	u1=$(uuid_of "$img")
	sum1=$(sha256sum <"$img")
	check "nova-mkfs-once: second run says already NOVA, exit 0, image unchanged (UUID $u1)" \
		bash -c "'$once' '$img' | grep -q 'already holds a NOVA' &&
			[ \"\$(sha256sum <'$img')\" = '$sum1' ]"
	check "nova-mkfs-once: NOVA_MKFS_OPTIONS with -f is refused" \
		bash -c "! NOVA_MKFS_OPTIONS='-f' '$once' '$img'"
	ext=$out/ext4.img
	truncate -s 64M "$ext"
	mkfs.ext4 -q -F "$ext" >>"$out/checks.log" 2>&1
	check "nova-mkfs-once: refuses (exit 1) an image holding ext4 and leaves it ext4" \
		bash -c "'$once' '$ext'; rc=\$?; [ \$rc -eq 1 ] && [ \"\$(blkid -p -o value -s TYPE '$ext')\" = ext4 ]"
	check "nova-probe: exit 2 on a non-NOVA image" \
		bash -c "'$NOVA_PROBE' '$ext'; [ \$? -eq 2 ]"
	unset NOVA_PROBE NOVA_MKFS
else
	fail "nova-mkfs-once: no unpacked nova-tools to test"
fi

# --- DKMS builds the packaged source (private dkms tree; nothing is installed) -------
kver=$(guest_kver 2>/dev/null)
if [ -f "$ddeb" ] && [ -n "$kver" ] && "$NOVA_QEMU_DIR/fetch-kernel.sh" "$kver" >/dev/null 2>"$out/fetch-kernel.log"; then
	dr=$out/dkms-root
	dpkg-deb -x "$ddeb" "$dr"
	mkdir -p "$dr/var/lib/dkms"
	t0=$SECONDS
	if dkms build -m nova -v "$version" -k "$kver" --sourcetree "$dr/usr/src" \
		--dkmstree "$dr/var/lib/dkms" --no-prepare-kernel --no-clean-kernel \
		>"$out/dkms-build.log" 2>&1 &&
		[ -f "$dr/var/lib/dkms/nova/$version/$kver/x86_64/module/nova.ko" ]; then
		pass "dkms build of the packaged source for $kver ($((SECONDS - t0)) s)"
		check "dkms build: nova.ko has version $version and alias fs-NOVA" \
			bash -c "modinfo '$dr/var/lib/dkms/nova/$version/$kver/x86_64/module/nova.ko' |
				grep -qx 'version: *$version' &&
				modinfo -F alias '$dr/var/lib/dkms/nova/$version/$kver/x86_64/module/nova.ko' | grep -qx fs-NOVA"
	else
		fail "dkms build of the packaged source for $kver (see $out/dkms-build.log)"
		tail -n 15 "$out/dkms-build.log"
	fi
else
	fail "dkms build: no nova-dkms package or no headers for the guest kernel (see $out/fetch-kernel.log)"
fi

# --- .rpm ---------------------------------------------------------------------------
built "rpm: rpmbuild -ba" build-rpm
rpmdir=$NOVA_BUILD/rpm
drpm=$rpmdir/RPMS/noarch/nova-dkms-$version-1.noarch.rpm
trpm=$(find "$rpmdir/RPMS" -name "nova-tools-$version-1.*.rpm" 2>/dev/null | head -n1)
if [ -f "$drpm" ] && [ -n "$trpm" ]; then
	rpm -qlp "$drpm" 2>/dev/null | sort >"$out/nova-dkms.rpm.files"
	rpm -qlp "$trpm" 2>/dev/null | sort >"$out/nova-tools.rpm.files"
	# same payload as the .deb, apart from Debian's docs and lintian overrides,
	# compressed man pages and
	# rpm's build-id links and directory entries
	same_files() { # PKG
		comm -3 <(grep -v -e '^/usr/share/doc' -e '^/usr/lib/\.build-id' "$out/$1.rpm.files" | sed 's/\.gz$//') \
			<(grep -v -e '^/usr/share/doc' -e '^/usr/share/lintian' "$out/$1.deb.files" | sed 's/\.gz$//') |
			while read -r f; do [ -d "$out/tools-root$f" ] || [ -d "$out/dkms-root$f" ] || echo "$f"; done |
			grep -v -e '^/usr$' -e '^/usr/share$' -e '^/etc$' -e '^/usr/share/man$' \
				-e '^/usr/share/man/man8$' -e '^/usr/lib$' -e '^/usr/src$' -e '^/usr/sbin$' |
			tee "$out/$1.diff"
		[ ! -s "$out/$1.diff" ]
	}
	check "rpm -qlp nova-dkms: same files as the .deb" same_files nova-dkms
	check "rpm -qlp nova-tools: same files as the .deb" same_files nova-tools
	check "rpm nova-dkms: noarch" bash -c "[ \"\$(rpm -qp --qf '%{ARCH}' '$drpm' 2>/dev/null)\" = noarch ]"
	rpm -qp --scripts "$drpm" >"$out/nova-dkms.rpm.scripts" 2>/dev/null
	check "rpm -qp --scripts nova-dkms: %post dkms add/build/install, %preun dkms remove" \
		bash -c "sed -n '/^postinstall/,/^preuninstall/p' '$out/nova-dkms.rpm.scripts' |
			grep -q 'dkms add -m nova -v $version' &&
			grep -q 'dkms build -m nova -v $version' '$out/nova-dkms.rpm.scripts' &&
			grep -q 'dkms install -m nova -v $version' '$out/nova-dkms.rpm.scripts' &&
			sed -n '/^preuninstall/,\$p' '$out/nova-dkms.rpm.scripts' |
			grep -q 'dkms remove -m nova -v $version .*--all'"
	check "rpm nova-dkms: config files /etc/modprobe.d/nova.conf; dkms.conf version $version" \
		bash -c "rpm -qp --configfiles '$drpm' 2>/dev/null | grep -qx /etc/modprobe.d/nova.conf &&
			rpm2cpio '$drpm' | cpio -i --to-stdout --quiet './usr/src/nova-$version/dkms.conf' |
			grep -qx 'PACKAGE_VERSION=\"$version\"'"
	check "rpm nova-tools: config file /etc/default/nova-mkfs; requires libblkid, libuuid" \
		bash -c "rpm -qp --configfiles '$trpm' 2>/dev/null | grep -qx /etc/default/nova-mkfs &&
			rpm -qp --requires '$trpm' 2>/dev/null | grep -q libblkid.so.1 &&
			rpm -qp --requires '$trpm' 2>/dev/null | grep -q libuuid.so.1"
else
	fail "rpm: packages missing in $rpmdir/RPMS"
fi

finish
