#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark of indirection, run INSIDE the guest as root (see tools/demo.sh):
# two network namespaces joined by a veth pair, a 512-byte value behind a
# pointer; latency of one PRISM indirect READ vs two dependent PRISM
# READs vs a UDP request/response to a user-space server.
#
#   PRISM_KO=kmod/prism.ko tools/bench/indirect.sh
#
# Environment: PRISM_KO (loaded if the module is not loaded yet; default
# kmod/prism.ko), PRISM_BENCH_N (iterations, default 2000),
# PRISM_BENCH_WARMUP (default 200), PRISM_OUT (the JSON goes to
# $PRISM_OUT/bench-indirect.json).
# The binary is built on the host beforehand: make -C tools/bench.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
B=$here/bench_indirect
KO=${PRISM_KO:-$repo/kmod/prism.ko}
N=${PRISM_BENCH_N:-2000}
W=${PRISM_BENCH_WARMUP:-200}
out=${PRISM_OUT:-}
NA=pb-a NB=pb-b

bench_begin bench-indirect
need_binary "$B" tools/bench
load_module prism "$KO" || fail "insmod $KO failed"

veth_pair $NA ba 02:00:00:00:05:0a $NB bb 02:00:00:00:05:0b
ip -n $NA addr add 10.77.0.1/24 dev ba
ip -n $NB addr add 10.77.0.2/24 dev bb

ip netns exec $NA "$B" prism-server ba 1 "$work/prism.info" > "$work/prism.log" 2>&1 &
bench_pids+=($!)
wait_file "$work/prism.info" 30000 $! || { cat "$work/prism.log"; fail "PRISM server did not start"; }
ip netns exec $NA "$B" udp-server 10.77.0.1 7777 "$work/udp.ready" > "$work/udp.log" 2>&1 &
bench_pids+=($!)
wait_file "$work/udp.ready" 30000 $! || { cat "$work/udp.log"; fail "UDP server did not start"; }
# Neighbour resolution and link up happen during the warm-up iterations.

json=$work/bench-indirect.json
[ -n "$out" ] && json=$out/bench-indirect.json
timeout 600 ip netns exec $NB "$B" client --if bb --info "$work/prism.info" \
	--udp 10.77.0.1:7777 --n "$N" --warmup "$W" --json "$json" ||
	fail "benchmark client failed"
echo "bench-indirect: results in $json"
