#!/bin/bash
# Install the host packages every build and test target needs (idempotent;
# no apt call when all are present).  Kernel headers for the guest kernel
# are installed by fetch-kernel.sh, which knows the version.
set -euo pipefail
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
ensure_pkgs gcc make libc6-dev bc flex bison libelf-dev \
	qemu-system-x86 qemu-utils busybox-static cpio gzip zstd xz-utils kmod \
	ndctl e2fsprogs xfsprogs util-linux libblkid-dev uuid-dev \
	clang libclang-rt-14-dev llvm gcc-multilib
