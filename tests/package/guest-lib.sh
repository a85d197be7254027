# shellcheck shell=bash disable=SC2034,SC2154 # globals shared with the sourcing script
# Helpers of the guest-side scripts of the cloud-image package tiers
# (tests/package/guest-test.sh, tests/package/kernel-upgrade-guest.sh). They
# run as root in the Debian cloud image, started by cloud-init from the
# repository disk, which holds this file too. Set tag (the console prefix,
# e.g. NOVA-FULL) and repo (the repository directory) first, then source it.
#
# Console protocol, one line each:
#   TAG: START <kernel>
#   TAG: PASS <check>  |  TAG: FAIL <check>  |  TAG: INFO <text>
#   TAG: TIME <step> <seconds>
#   TAG: SUMMARY <n> passed, <n> failed
#   TAG: DMESG-BEGIN ... TAG: DMESG-END       (kernel log)
#   TAG: JOURNAL-BEGIN ... TAG: JOURNAL-END   (warnings and errors)
#   TAG: DONE                                  then the guest powers off
export DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin
kver=$(uname -r)
pmem=/dev/pmem0
mnt=/mnt/nova
mkfs_unit=nova-mkfs@dev-pmem0.service
passed=0 failed=0

say() { echo "$tag: $*"; }
pass() { say "PASS $*"; passed=$((passed + 1)); }
fail() { say "FAIL $*"; failed=$((failed + 1)); }
# check NAME CMD...: run CMD (output shown, indented), PASS when it succeeds
check() {
	local name=$1 rc=0
	shift
	"$@" 2>&1 | sed 's/^/    /' || true
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name (rc=$rc)"; fi
	return "$rc"
}
t_step=$SECONDS
timing() { say "TIME $1 $((SECONDS - t_step))"; t_step=$SECONDS; }
apt_local() { # apt-get with the file: repository as the only source
	apt-get -o Dir::Etc::SourceList=/etc/apt/sources.list.d/nova.list \
		-o Dir::Etc::SourceParts=- -o APT::Get::List-Cleanup=0 \
		-o Acquire::Languages=none "$@"
}
export -f apt_local
# Make the file: repository apt's only source.
use_local_repo() {
	echo "deb [trusted=yes] file:$repo ./" >/etc/apt/sources.list.d/nova.list
	mkdir -p /var/lib/apt/lists/partial
}
start() {
	# Only emergencies on the console while the test prints; the kernel log
	# is dumped at the end.
	dmesg -n 1
	say "START $kver (up $(cut -d' ' -f1 /proc/uptime) s)"
	say "INFO $(. /etc/os-release && echo "$PRETTY_NAME"), $(dpkg-query -W -f='dkms ${Version}' dkms)"
}
finish() {
	say "SUMMARY $passed passed, $failed failed"
	say "DMESG-BEGIN"
	dmesg
	say "DMESG-END"
	say "JOURNAL-BEGIN"
	journalctl -b --no-pager -q -p warning -o short-monotonic
	say "JOURNAL-END"
	say "DONE"
	sync
	poweroff -f
}

# The cloud-init run that started this script has no error so far.
cloud_init_ok() {
	cloud-init status --long
	! cloud-init status | grep -q error
}

# namespace0.0 in fsdax mode (converted if it is not), $pmem DAX-capable.
fsdax() {
	local mode
	mode=$(ndctl list -n namespace0.0 | sed -n 's/.*"mode":"\([a-z]*\)".*/\1/p')
	echo "namespace0.0 mode: ${mode:-none}"
	if [ "$mode" != fsdax ]; then
		ndctl create-namespace -f -e namespace0.0 --mode=fsdax >/dev/null || return 1
	fi
	udevadm settle
	[ -b "$pmem" ] && [ "$(cat /sys/block/pmem0/queue/dax)" = 1 ]
}

# dkms_installed VERSION KVER: dkms says nova/VERSION is installed for KVER;
# else the end of DKMS's build log.
dkms_installed() {
	local v=$1 k=$2 f
	dkms status nova | tee /dev/stderr | grep -q "^nova/$v, $k, [^:]*: installed" && return 0
	for f in "/var/lib/dkms/nova/$v/$k/x86_64/log/make.log" "/var/lib/dkms/nova/$v/build/make.log"; do
		[ -f "$f" ] || continue
		echo "$f:"
		tail -n 60 "$f"
		break
	done
	return 1
}
