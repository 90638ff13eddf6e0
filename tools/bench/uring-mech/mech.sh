#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# io_uring mechanism prototype, run INSIDE the guest as root: loads
# uring_mech.ko, measures socket (sync, io_uring SENDMSG + multishot RECV)
# against uring_cmd on /dev/prism_mech with mech_bench, unloads the module
# (and fails if that or anything it logged went wrong).
# See doc/IO_URING-MECHANISM.md.
#
#   make -C tools/bench/uring-mech      # on the host, once
#   tools/vm/run.sh --timeout 900 -- tools/bench/uring-mech/mech.sh
#
# Environment: PRISM_MECH_KO (default <repo>/build/mod/uring_mech.ko),
# PRISM_MECH_FAMILY (default 25; the prism module must not hold it),
# PRISM_BENCH_N (ops per mode and reply size, default 20000),
# PRISM_BENCH_WARMUP (per segment, default 100), PRISM_BENCH_ROUNDS
# (default 5),
# PRISM_MECH_LENS (reply sizes, default 8,512), PRISM_OUT (JSON:
# $PRISM_OUT/uring-mech.json).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"
B=$here/mech_bench
KO=${PRISM_MECH_KO:-$repo/build/mod/uring_mech.ko}
FAMILY=${PRISM_MECH_FAMILY:-25}
N=${PRISM_BENCH_N:-20000}
W=${PRISM_BENCH_WARMUP:-100}
ROUNDS=${PRISM_BENCH_ROUNDS:-5}
LENS=${PRISM_MECH_LENS:-8,512}
out=${PRISM_OUT:-$repo/build/vm-out}

bench_begin uring-mech
need_binary "$B" tools/bench/uring-mech
[ -r "$KO" ] || fail "$KO is missing: run 'make -C tools/bench/uring-mech' on the host"
[ -d /sys/module/uring_mech ] && fail "uring_mech is already loaded"
load_module uring_mech "$KO" family="$FAMILY" ||
	fail "insmod $KO failed (family $FAMILY taken? see dmesg)"
[ -c /dev/prism_mech ] || fail "/dev/prism_mech did not appear"

mkdir -p "$out"
timeout 600 "$B" --family "$FAMILY" --n "$N" --warmup "$W" --rounds "$ROUNDS" \
	--lens "$LENS" --json "$out/uring-mech.json" || fail "mech_bench failed"

unload_module uring_mech || fail "rmmod uring_mech failed"
if dmesg | grep -E -q 'WARNING:|BUG:|refcount_t|Oops'; then
	dmesg | grep -E -A5 'WARNING:|BUG:|refcount_t|Oops' >&2
	fail "the kernel logged a warning"
fi
dmesg | grep 'uring_mech: unloaded' | tail -n 1
echo "uring-mech: results in $out/uring-mech.json"
