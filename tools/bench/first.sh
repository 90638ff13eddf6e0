#!/bin/bash
# SPDX-License-Identifier: MIT
#
# First PRISM benchmark, run INSIDE the guest as root (see tools/demo.sh):
# two network namespaces joined by a veth pair, a 512-byte value behind a
# pointer; latency of one PRISM indirect READ vs two dependent PRISM
# READs vs a UDP request/response to a user-space server.
#
#   PRISM_KO=kmod/prism.ko tools/bench/first.sh
#
# Environment: PRISM_KO (loaded if the module is not loaded yet; default
# kmod/prism.ko), PRISM_BENCH_N (iterations, default 2000),
# PRISM_BENCH_WARMUP (default 200), PRISM_OUT (the JSON goes to
# $PRISM_OUT/bench-first.json).
# The binary is built on the host beforehand: make -C tools/bench.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
B=$here/bench_first
KO=${PRISM_KO:-$repo/kmod/prism.ko}
N=${PRISM_BENCH_N:-2000}
W=${PRISM_BENCH_WARMUP:-200}
out=${PRISM_OUT:-}
work=$(mktemp -d /tmp/prism-bench.XXXXXX)
NA=pb-a NB=pb-b
loaded=0
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	ip netns del $NA 2>/dev/null
	ip netns del $NB 2>/dev/null
	[ "$loaded" = 1 ] && rmmod prism 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "bench-first: $*" >&2; exit 1; }

# Poll for a file, at most $2 ms.
wait_file() {
	local i=0
	until [ -s "$1" ]; do
		[ "$i" -ge "$2" ] && return 1
		sleep 0.02
		i=$((i + 20))
	done
}

[ -x "$B" ] || fail "$B is missing: run 'make -C tools/bench' on the host"
if [ ! -d /sys/module/prism ]; then
	insmod "$KO" || fail "insmod $KO failed"
	loaded=1
fi

# Run on its own, nothing else has loaded veth yet.
modprobe veth 2>/dev/null
ip netns del $NA 2>/dev/null
ip netns del $NB 2>/dev/null
ip netns add $NA && ip netns add $NB || fail "ip netns add"
ip link add name ba address 02:00:00:00:05:0a netns $NA type veth \
	peer name bb address 02:00:00:00:05:0b netns $NB || fail "veth"
ip -n $NA addr add 10.77.0.1/24 dev ba
ip -n $NB addr add 10.77.0.2/24 dev bb
for ns in $NA $NB; do
	ip -n $ns link set lo up
done
ip -n $NA link set ba up
ip -n $NB link set bb up

ip netns exec $NA "$B" prism-server ba 1 "$work/prism.info" > "$work/prism.log" 2>&1 &
pids+=($!)
ip netns exec $NA "$B" udp-server 10.77.0.1 7777 "$work/udp.ready" > "$work/udp.log" 2>&1 &
pids+=($!)
wait_file "$work/prism.info" 30000 || { cat "$work/prism.log"; fail "PRISM server did not start"; }
wait_file "$work/udp.ready" 30000 || { cat "$work/udp.log"; fail "UDP server did not start"; }
# Neighbour resolution and link up happen during the warm-up iterations.

json=$work/bench-first.json
[ -n "$out" ] && json=$out/bench-first.json
timeout 600 ip netns exec $NB "$B" client --if bb --info "$work/prism.info" \
	--udp 10.77.0.1:7777 --n "$N" --warmup "$W" --json "$json" ||
	fail "benchmark client failed"
echo "bench-first: results in $json"
