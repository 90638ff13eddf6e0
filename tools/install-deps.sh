#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages PRISM needs to build and test.  Idempotent
# and quick when everything is there already (one dpkg-query, no apt).
set -euo pipefail

pkgs=(
	# target kernel, its headers and its source (for the debug kernel)
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	# second target kernel (tools/run-tests.sh stage k612); from
	# bookworm-security, linux-image-amd64 stays the 6.1 kernel
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	# guest
	qemu-system-x86 busybox-static iproute2 kmod cpio xz-utils
	# kernel and userspace builds
	make gcc libc6-dev bc bison flex libelf-dev libssl-dev dwarves rsync
	# kernel style checks (tools/kernel/lint.sh)
	sparse
	liburing-dev libmnl-dev
	# sanitizer/fuzz builds, scripts, plots
	clang libfuzzer-14-dev llvm-14 python3 gnuplot-nox jq
	# man page lint (liburing-prism man-check)
	groff-base man-db
	# real-world peer for the KV benchmark (apps/kv, tools/bench/kv.sh)
	memcached
	# Debian packages (tools/pkg/mkdeb.sh) and their guest test
	dpkg-dev dkms pkg-config
	# SoftRoCE comparison (tools/bench/rxe.sh)
	rdma-core ibverbs-utils ibverbs-providers perftest libibverbs-dev
	# kernel profiles in the guest (tools/bench/udp_profile.sh)
	linux-perf
	# NIC queue counts in the guest (tools/bench/rss_mh.sh)
	ethtool
)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[ "${st:0:2}" = ii ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages present"
	exit 0
fi

echo "install-deps: installing ${#missing[@]} of ${#pkgs[@]} packages: ${missing[*]}"
echo "install-deps: with their dependencies several hundred MB on a fresh machine, a few minutes"
sudo=
if [ "$(id -u)" -ne 0 ]; then
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
