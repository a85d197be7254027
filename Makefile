# NOVA for Linux: top-level targets.
#
#   make demo     build everything, boot a guest, format and mount NOVA on
#                 emulated pmem, write and read a file, show it
#   make check    every test tier that CI runs (host unit tests and the fast
#                 guest tier); the last line is "N passed, N failed"
#
# Both install what they need with apt-get on a fresh Debian 12 machine.
# Other targets: module, tools, guest-bin, unit, lint, guest, clean.
# Packages: deb, rpm (into build/deb, build/rpm), package-check (cheap, in
# make check), full-check (install the .debs in a cloud-init Debian guest).

SHELL := /bin/bash
KVER = $(shell qemu/kernel-version.sh)
GUEST_BIN := tests/guest/bin
CFLAGS_STATIC := -static -O2 -Wall -Wextra

all: module tools

deps:
	qemu/install-deps.sh

# Module, built against the guest's exact kernel (headers from apt)
module: deps
	qemu/fetch-kernel.sh
	$(MAKE) -C src KVER=$(KVER) W=1

tools:
	$(MAKE) -C src/tools

# Static binaries that the guest tests run (busybox has no libc)
guest-bin:
	mkdir -p $(GUEST_BIN)
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/nova-fsctl tests/guest/src/nova-fsctl.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_namespace tests/guest/src/t_namespace.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_tree tests/guest/src/t_tree.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/t_data tests/guest/src/t_data.c
	$(CC) $(CFLAGS_STATIC) -o $(GUEST_BIN)/fsx_nova tests/guest/src/fsx_nova.c
	$(MAKE) -s -C src/tools static STATIC_OUT=$(CURDIR)/$(GUEST_BIN)

unit: tools
	tests/run-unit-tests.sh

guest: module guest-bin
	tests/run-guest-tests.sh --no-build --scratch

lint: module
	tests/lint.sh

check:
	tests/check.sh

demo:
	qemu/demo.sh

# Packages and their tests (README: "Packages and installation")
deb:
	packaging/build-deb.sh

rpm:
	packaging/build-rpm.sh

package-check:
	tests/package/package-check.sh

full-check:
	tests/package/full-check.sh

# Benchmarks (bench/README-section.md); results in bench/results/<date>/
bench: module
	bench/run-bench.sh --no-build

bench-mount: module
	bench/run-mount.sh --no-build

clean:
	-$(MAKE) -C src/tools clean
	-[ -d /lib/modules/$(KVER)/build ] && $(MAKE) -C src KVER=$(KVER) clean
	rm -rf build $(GUEST_BIN)

.PHONY: all deps module tools guest-bin unit lint guest check demo clean \
	deb rpm package-check full-check bench bench-mount
