#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Where UDP's cost goes (issue 20; doc/UDP-BENCH.md), run INSIDE the guest
# as root: two network namespaces joined by a veth pair with IPv4
# addresses, a bench_uring server bound to the interface and one bound to
# udp:IPv4; for each (raw Ethernet, then UDP/IPv4) `perf record -a -g`
# over one bench_uring client run.  Writes per link the flat profile
# (self time) and the cumulative one (children) of the kernel's symbols,
# the module's included.
#
#   make -C tools/bench                              # on the host
#   PRISM_KO=kmod/prism.ko tools/vm/run.sh --timeout 1400 -- tools/bench/udp_profile.sh
#
# Environment: PRISM_KO, PRISM_BENCH_N (chains per mode and op, 6000),
# PRISM_OUT (default build/vm-out): udp-profile-raw/{self,children}-LINK.txt
# and the clients' outputs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
KO=${PRISM_KO:-$repo/kmod/prism.ko}
N=${PRISM_BENCH_N:-6000}
NA=pp-a NB=pp-b U=$here/bench_uring

bench_begin udp-profile
need_binary "$U" tools/bench
command -v perf > /dev/null || fail "perf is not installed (apt-get install linux-perf)"
load_module prism "$KO" || fail "insmod $KO failed"
bench_raw "${PRISM_OUT:-$repo/build/vm-out}"

veth_pair $NA pa 02:00:00:00:08:0a $NB pb 02:00:00:00:08:0b
ip -n $NA addr add 10.89.0.1/24 dev pa
ip -n $NB addr add 10.89.0.2/24 dev pb
declare -A CLI=([eth]=pb [udp4]=udp:10.89.0.2)
declare -A SRV=([eth]=pa [udp4]=udp:10.89.0.1)
ep=100
for t in eth udp4; do
	ep=$((ep + 1))
	bench_server "$work/$t.info" "$raw/server-$t.log" \
		ip netns exec $NA "$U" prism-server "${SRV[$t]}" $ep "$work/$t.info"
	perf record -q -a -g -o "$work/perf-$t.data" -- \
		ip netns exec $NB "$U" client --if "${CLI[$t]}" --info "$work/$t.info" \
		--n "$N" --rounds 1 > "$raw/client-$t.log" 2>&1 ||
		fail "client over $t failed: $(tail -n 3 "$raw/client-$t.log")"
	perf report -i "$work/perf-$t.data" --stdio --no-children --sort sym -g none \
		2>/dev/null | grep '%' | head -n 60 > "$raw/self-$t.txt"
	perf report -i "$work/perf-$t.data" --stdio --children --sort sym -g none \
		2>/dev/null | grep '%' | head -n 120 > "$raw/children-$t.txt"
	kill -KILL "${bench_pids[-1]}" 2>/dev/null
	wait "${bench_pids[-1]}" 2>/dev/null
done
echo "udp-profile: profiles in $raw"
