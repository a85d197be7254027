# NOVA for Linux: top-level targets.
#
#   make demo     build everything, boot a guest, format and mount NOVA on
#                 emulated pmem, write and read a file, show it
#   make check    every test tier that CI runs (tests/check.sh, tests/README.md:
#                 unit, lint, fast guest, power cuts, xfstests smoke, packages);
#                 the last line is "N passed, N failed"
#
# Both install what they need with apt-get on a fresh Debian 12 machine.
# Other targets: module, tools, guest-bin, unit, lint, guest, clean.
# Packages: deb, rpm (into build/deb, build/rpm), package-check (cheap, in
# make check), full-check (install the .debs in a cloud-init Debian guest).
# Debug-kernel tier (not in make check): debug-kernel builds (cached, ~1 h
# the first time) Debian's 6.1 source with KASAN, lockdep, KFENCE, UBSAN
# (KERNEL=sid: the newest Debian kernel's source, built in its chroot);
# debug-check runs every guest test on it, any sanitizer report fails.
# Benchmarks (not in make check): bench (NOVA vs ext4-DAX, XFS-DAX, tmpfs in one
# guest boot; about 25 min), bench-scale (append+fsync, random overwrite, create
# and unlink at 1, 2, 4, ... threads up to the vCPUs, BENCH_SMP, default the
# host's cores), bench-mount (mount time after crash/clean unmount).

SHELL := /bin/bash
# The kernel of the module and guest targets: KERNEL=deb12 (default),
# deb12-cloud, deb12-6.12, deb13 or sid (qemu/kernel-version.sh), or an ABI
# version; KVER is what it resolves to.
KERNEL ?= $(NOVA_KERNEL)
export NOVA_KERNEL := $(KERNEL)
KVER = $(shell qemu/kernel-version.sh $(KERNEL))
GUEST_BIN := tests/guest/bin
CFLAGS_STATIC := -static -O2 -Wall -Wextra

all: module tools

deps:
	qemu/install-deps.sh

# Module, built against the guest's exact kernel (headers from apt; on the
# host for Debian 12's 6.1, else in a chroot of the kernel's release) into
# build/module/<KVER>/nova.ko
module: deps
	qemu/fetch-kernel.sh $(KVER) >/dev/null
	qemu/build-module.sh --kver $(KVER) -- W=1

tools:
	$(MAKE) -C src/tools

# Static binaries that the guest tests run (busybox has no libc)
guest-bin:
	mkdir -p $(GUEST_BIN)
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/nova-fsctl tests/guest/src/nova-fsctl.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_namespace tests/guest/src/t_namespace.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_tree tests/guest/src/t_tree.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_fiemap tests/guest/src/t_fiemap.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_xattr tests/guest/src/t_xattr.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_quota tests/guest/src/t_quota.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_tmpfile tests/guest/src/t_tmpfile.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_idmap tests/guest/src/t_idmap.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_data tests/guest/src/t_data.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/fsx_nova tests/guest/src/fsx_nova.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/crashwork tests/guest/src/crashwork.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/crashimg tests/crash/crashimg.c
	$(CC) $(CFLAGS_STATIC) -Isrc -o $(GUEST_BIN)/nova_fuzz tests/guest/src/nova_fuzz.c \
		src/tools/libnova.c src/tools/nova_tools.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/nova_stress tests/guest/src/nova_stress.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_dax_stale tests/guest/src/t_dax_stale.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_enospc_write tests/guest/src/t_enospc_write.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_dax_pin tests/guest/src/t_dax_pin.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_clone_pin tests/guest/src/t_clone_pin.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_eof_zero tests/guest/src/t_eof_zero.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_falloc tests/guest/src/t_falloc.c
	$(CC) $(CFLAGS_STATIC) -pthread -o $(GUEST_BIN)/t_mmap_race tests/guest/src/t_mmap_race.c
	$(CC) $(CFLAGS_STATIC) -pthread -o $(GUEST_BIN)/t_inplace_edge tests/guest/src/t_inplace_edge.c
	$(CC) $(CFLAGS_STATIC) -Isrc -o $(GUEST_BIN)/t_gc tests/guest/src/t_gc.c
	$(CC) $(CFLAGS_STATIC) -Isrc -o $(GUEST_BIN)/t_ioctl tests/guest/src/t_ioctl.c
	$(CC) $(CFLAGS_STATIC) -m32 -Isrc -o $(GUEST_BIN)/t_ioctl32 tests/guest/src/t_ioctl.c
	$(CC) $(CFLAGS_STATIC) -Isrc -Isrc/tools -o $(GUEST_BIN)/t_claim \
		tests/guest/src/t_claim.c src/tools/libnova.c src/tools/nova_tools.c
	$(CC) $(CFLAGS_STATIC) -Isrc/tools -o $(GUEST_BIN)/nova_image \
		tests/unit/nova_image.c src/tools/libnova.c src/tools/nova_tools.c
	$(MAKE) -s -C src/tools static STATIC_OUT=$(CURDIR)/$(GUEST_BIN)

unit: tools
	tests/run-unit-tests.sh

guest: module guest-bin
	tests/run-guest-tests.sh --no-build --scratch --kernel $(KVER)

# the tests that need the debug module (fault injection): tests/guest/debug-*.sh
guest-debug: guest-bin
	tests/run-guest-tests.sh --debug-module --kernel $(KVER)

lint: module
	tests/lint.sh

check:
	tests/check.sh

# Every tier on every supported kernel (deb12, deb12-cloud, deb12-6.12,
# deb13, sid), the 6.1 <-> newest power-cut image test both ways, and the
# package guests of Debian 12 and 13 (hours of TCG time)
check-kernels:
	tests/check-kernels.sh $(CHECK_KERNELS)

# The format does not depend on the kernel: made and power-cut on Debian 12's
# 6.1, verified on the newest kernel, and the other way round
crash-crosskernel:
	tests/crash/run-powercut.sh --kernel deb12 --recover-kernel sid --iterations 2 --profiles mixed,ns
	tests/crash/run-powercut.sh --kernel sid --recover-kernel deb12 --iterations 2 --profiles mixed,ns

demo:
	qemu/demo.sh

# xfstests in a Debian guest with two 8 GiB fsdax NVDIMMs (tests/xfstests/run.sh,
# results in build/xfstests/<stamp>-<fstyp>/). XFSTESTS: the selection (xfstests'
# -g/-x groups and test names); FSTYP=ext4 or xfs: the DAX baselines on the same
# guest; XFSTESTS_ARGS: e.g. --shard 1/4, --budget 60 (minutes), --resume latest.
# generic/quick takes about 2 hours per file system under TCG on 2 cores.
XFSTESTS ?= -g generic/quick
FSTYP ?= NOVA
xfstests: tools
	tests/xfstests/run.sh --fstyp $(FSTYP) $(XFSTESTS_ARGS) -- $(XFSTESTS)

# The same tests on ext4-DAX and XFS-DAX, one after the other
xfstests-baselines:
	tests/xfstests/run.sh --fstyp ext4 $(XFSTESTS_ARGS) -- $(XFSTESTS)
	tests/xfstests/run.sh --fstyp xfs $(XFSTESTS_ARGS) -- $(XFSTESTS)

# The smoke subset that make check runs (tests/xfstests/smoke.list, a few minutes)
xfstests-smoke:
	tests/xfstests/run.sh --fstyp NOVA -- $$(grep -v '^#' tests/xfstests/smoke.list)

# Packages and their tests (docs/packaging.md; tests/README.md, "Packages")
deb:
	packaging/build-deb.sh

rpm:
	packaging/build-rpm.sh

package-check:
	tests/package/package-check.sh

full-check:
	tests/package/full-check.sh

# The cloud-init package guests of Debian 12 and 13 (make check leaves them
# out unless NOVA_FULL_CHECK=1: about 6 min each)
check-packages:
	tests/package/full-check.sh --release bookworm
	tests/package/full-check.sh --release trixie --no-build

# Benchmarks (bench/README.md); results in bench/results/<date>/
bench: module
	bench/run-bench.sh --no-build

# Throughput against threads, 1 2 4 ... BENCH_SMP guest vCPUs (default: the
# host's cores); results in bench/results/<date>-scale/, bench/RESULTS-scale.md
BENCH_SMP ?=
bench-scale: module
	bench/run-bench.sh --no-build --scale $(if $(BENCH_SMP),--smp $(BENCH_SMP))

bench-mount: module
	bench/run-mount.sh --no-build

# Robustness (tests/README.md, "Robustness"): hostile images and concurrency stress
#   make fuzz [FUZZ_ITERS=2000] [FUZZ_SEED=N]   image fuzzer, one boot per chunk
#   make fuzz-replay SEED=0x...                 one image again, verbosely
#   make fuzz-fsck [FUZZ_FSCK_SECS=600]         fsck.nova fuzzing on the host
#   make stress [STRESS_PROCS=8] [STRESS_SECS=600] [STRESS_SMP=4]
FUZZ_ITERS ?= 2000
FUZZ_SEED ?=
STRESS_PROCS ?= 8
STRESS_SECS ?= 600
STRESS_SMP ?= 4
fuzz: module guest-bin
	FUZZ_ITERS=$(FUZZ_ITERS) FUZZ_SEED=$(FUZZ_SEED) tests/robustness.sh fuzz

# fsck.nova on random images: libFuzzer with ASan + UBSan, one process
# (make unit runs it for 60 s); FUZZ_FSCK_SECS=600 by default
FUZZ_FSCK_SECS ?= 600
fuzz-fsck: deps
	tests/fuzz/run-fuzz-fsck.sh $(FUZZ_FSCK_SECS)

fuzz-replay: module guest-bin
	tests/robustness.sh replay $(SEED)

stress: module guest-bin
	STRESS_PROCS=$(STRESS_PROCS) STRESS_SECS=$(STRESS_SECS) \
		STRESS_SMP=$(STRESS_SMP) tests/robustness.sh stress

# Full device under concurrency (tests/guest/076-enospc-stress.sh, also in
# make check), alone
enospc-stress: module guest-bin
	tests/run-guest-tests.sh --no-build 076-enospc-stress

# Power-cut tests (tests/crash/run-powercut.sh; results in build/crash/):
#   crash-test     CRASH_ITERS (200) random power cuts, the crashwork profiles
#                  mixed, write, ns, gc, xattr, crypt and clone in turn, + every crash point x every
#                  workload (hours of TCG time; about 40 s per cut);
#                  CRASH_WORKLOADS=best: each point with its best workload only
#   crash-quick    3 random power cuts + every crash point with its best workload
#   crash-check    the power-cut tier of make check (tests/check.sh): 3 random
#                  cuts (mixed, crypt, clone) + every crash point with its best workload
#   crash-cpumove  made on 4 CPUs, cut, recovered on 1 and on 2; made on 1,
#                  cut, recovered on 4 (tests/crash/run-cpumove.sh)
#   crash-errors   errors=panic writes the error state before the panic
#                  (tests/crash/run-errors-panic.sh, two boots)
#   crash-regress  the power cuts that once failed, each at its point with
#                  its workload and seed (tests/crash/regressions.list)
#   bench-mount-scan  crash-recovery mount time with the per-stripe parallel
#                  scan and with it forced serial (serial_scan=1)
CRASH_ITERS ?= 200
CRASH_WORKLOADS ?= all
CRASH_SEED ?=
CRASH_SEED_ARG = $(if $(CRASH_SEED),--seed $(CRASH_SEED))
crash-test:
	tests/crash/run-powercut.sh --mode both --iterations $(CRASH_ITERS) \
		--profiles mixed,write,ns,gc,xattr,crypt,clone --workloads $(CRASH_WORKLOADS) $(CRASH_SEED_ARG)

crash-quick:
	tests/crash/run-powercut.sh --mode both --iterations 3 --workloads best $(CRASH_SEED_ARG)

crash-check:
	tests/crash/run-powercut.sh --mode both --iterations 3 --profiles mixed,crypt,clone \
		--workloads best $(CRASH_SEED_ARG)

crash-regress:
	tests/crash/run-regressions.sh

crash-cpumove:
	tests/crash/run-cpumove.sh $(CRASH_SEED_ARG)

crash-errors: guest-bin
	tests/crash/run-errors-panic.sh

# Store-level crash tests (tests/crash/run-crash-stores.sh; results in
# build/crash-stores/): the crash states of a missing flush or fence, from
# persistence traces of the debug module.
#   crash-stores       seq 1: every call alone, with and without fsync
#   crash-stores-full  seq 2: every valid pair of calls (hours)
#   crash-stores-mutants  the checker must fail on mutate=1 and mutate=2
crash-stores:
	tests/crash/run-crash-stores.sh --seq 1

crash-stores-full:
	tests/crash/run-crash-stores.sh --seq 2 --all-max 4 --sample 8

crash-stores-mutants:
	tests/crash/run-crash-mutants.sh

bench-mount-scan: module
	bench/run-mount.sh --no-build --fs "nova nova-serial"

# Log GC bounds, full length (the guest tier runs 100,000 writes and 20,000
# append/truncate operations in 061-gc-bounds):
#   make gc-test [GC_WRITES=1000000] [GC_OPS=100000]
GC_WRITES ?= 1000000
GC_OPS ?= 100000
gc-test: module guest-bin
	mkdir -p build
	printf '#!/bin/sh\n# generated by make gc-test\nGC_WRITES=%s\nGC_OPS=%s\n. /nova/tests/_gc-bounds.sh\n' \
		$(GC_WRITES) $(GC_OPS) > build/gc-test.sh
	tests/run-guest-tests.sh --no-build --script build/gc-test.sh --test-timeout 5400

# Debug kernel (qemu/build-debug-kernel.sh; cache in ~/.cache/nova/debug-kernel/)
# of KERNEL's source: deb12 (default; 6.1, on the host) or e.g. sid (the
# newest, built in the sid chroot with its gcc)
debug-kernel:
	qemu/build-debug-kernel.sh $(if $(KERNEL),--kernel $(KERNEL))

debug-check: guest-bin
	tests/run-guest-tests.sh --debug-kernel --scratch $(if $(KERNEL),--kernel $(KERNEL))

clean:
	-$(MAKE) -C src/tools clean
	-[ -d /lib/modules/$(KVER)/build ] && $(MAKE) -C src KVER=$(KVER) clean
	rm -f src/nova_config.h src/nova_config.log
	rm -rf build $(GUEST_BIN)

.PHONY: crash-test crash-quick crash-check crash-cpumove crash-regress crash-errors bench-mount-scan gc-test \
	crash-stores crash-stores-full crash-stores-mutants \
	debug-kernel debug-check enospc-stress
.PHONY: check-kernels check-packages crash-crosskernel xfstests xfstests-baselines xfstests-smoke
.PHONY: all deps module tools guest-bin unit lint guest guest-debug check demo clean \
	fuzz fuzz-fsck fuzz-replay stress \
	deb rpm package-check full-check bench bench-scale bench-mount
