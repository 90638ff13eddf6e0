#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Raw Ethernet vs UDP/IPv4 vs UDP/IPv6 (issue 20; doc/UDP-BENCH.md), run
# INSIDE the guest as root: two network namespaces joined by a veth pair
# (MTU 1500) with IPv4 and IPv6 addresses; in one, the servers of
# bench_uring and bench_indirect bound three times (interface; udp:IPv4;
# udp:IPv6), the clients in the other.  ROUNDS rounds, each running every
# transport once in an order that rotates: bench_uring (READ 512 and CAS 8:
# latency one chain at a time, throughput through io_uring with 64 in
# flight) and bench_indirect (a 512-byte value behind a pointer, one chain).
# The report takes the median over the rounds and the ratios to raw
# Ethernet.
#
#   make -C tools/bench                         # on the host
#   PRISM_KO=kmod/prism.ko tools/vm/run.sh --timeout 2400 -- tools/bench/udp.sh
#
# Environment: PRISM_KO, PRISM_OUT (default build/vm-out: udp-bench.json,
# .csv, .md, .png and the raw outputs in udp-bench-raw/), PRISM_BENCH_N
# (measured chains per mode and op and transport per round, 2000),
# PRISM_BENCH_ROUNDS (3), PRISM_UDP_SMOKE=1 (a short run printing TAP:
# every client run succeeds, the results exist).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
KO=${PRISM_KO:-$repo/kmod/prism.ko}
SMOKE=${PRISM_UDP_SMOKE:-0}
N=${PRISM_BENCH_N:-2000}
ROUNDS=${PRISM_BENCH_ROUNDS:-3}
[ "$SMOKE" = 1 ] && { N=${PRISM_BENCH_N:-200}; ROUNDS=${PRISM_BENCH_ROUNDS:-1}; }
NA=pw-a NB=pw-b
U=$here/bench_uring I=$here/bench_indirect
failed=0

bench_begin udp-bench "$SMOKE"
need_binary "$U" tools/bench
need_binary "$I" tools/bench
load_module prism "$KO" || fail "insmod $KO failed"
bench_raw "${PRISM_OUT:-$repo/build/vm-out}"

veth_pair $NA wa 02:00:00:00:07:0a $NB wb 02:00:00:00:07:0b
for ns in $NA $NB; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0
done
ip -n $NA addr add 10.88.0.1/24 dev wa
ip -n $NA addr add fd88::1/64 dev wa nodad
ip -n $NB addr add 10.88.0.2/24 dev wb
ip -n $NB addr add fd88::2/64 dev wb nodad

# transport -> client socket (--if) and the servers' bind
declare -A CLI=([eth]=wb [udp4]=udp:10.88.0.2 [udp6]=udp:fd88::2)
declare -A SRV=([eth]=wa [udp4]=udp:10.88.0.1 [udp6]=udp:fd88::1)
T=(eth udp4 udp6)
ep=1
for t in "${T[@]}"; do
	bench_server "$work/i-$t.info" "$raw/server-indirect-$t.log" \
		ip netns exec $NA "$I" prism-server "${SRV[$t]}" $((ep + 10)) "$work/i-$t.info"
	ep=$((ep + 1))
done
# bench_uring's CAS counters must start at 0: a server of its own per run.
uring_ep=100
uring_server() {	# TRANSPORT ROUND
	uring_ep=$((uring_ep + 1))
	rm -f "$work/u-$1.info"
	bench_server "$work/u-$1.info" "$raw/server-uring-$1-$2.log" \
		ip netns exec $NA "$U" prism-server "${SRV[$1]}" $uring_ep "$work/u-$1.info"
}
# bench_indirect's UDP request/response baseline (not PRISM)
bench_server "$work/udp.ready" "$raw/udp-server.log" \
	ip netns exec $NA "$I" udp-server 10.88.0.1 7777 "$work/udp.ready"

uname -r > "$raw/kernel"
for r in $(seq "$ROUNDS"); do
	for k in 0 1 2; do
		t=${T[$(((r + k) % 3))]}
		bench_log "round $r: $t"
		uring_server "$t" "$r"
		timeout 900 ip netns exec $NB "$U" client --if "${CLI[$t]}" \
			--info "$work/u-$t.info" --n "$N" --rounds 1 \
			--json "$raw/uring-$t-$r.json" > "$raw/uring-$t-$r.log" 2>&1 ||
			{ failed=$((failed + 1)); bench_note "bench_uring $t" "$raw/uring-$t-$r.log"; }
		kill -KILL "${bench_pids[-1]}" 2>/dev/null
		wait "${bench_pids[-1]}" 2>/dev/null
		timeout 900 ip netns exec $NB "$I" client --if "${CLI[$t]}" \
			--info "$work/i-$t.info" --udp 10.88.0.1:7777 --n "$N" \
			--json "$raw/indirect-$t-$r.json" > "$raw/indirect-$t-$r.log" 2>&1 ||
			{ failed=$((failed + 1)); bench_note "bench_indirect $t" "$raw/indirect-$t-$r.log"; }
	done
done
prism_counters $NB > "$raw/counters-client.txt"

bench_report "$here/udp_report.py" "$raw" "$out" "$ROUNDS" "$N" \
	"$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
bench_plot "$work/udp-bench.png" \
	"PRISM over raw Ethernet, UDP/IPv4, UDP/IPv6 (veth, TCG guest, median of $ROUNDS rounds)" <<EOF
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel "latency p50 (us)"
plot "$out/udp-bench.dat" using 2:xtic(1) title "raw Ethernet", "" using 3 title "UDP/IPv4", "" using 4 title "UDP/IPv6"
set ylabel "kops/s, io_uring, 64 in flight"
plot "$out/udp-bench-tput.dat" using 2:xtic(1) title "raw Ethernet", "" using 3 title "UDP/IPv4", "" using 4 title "UDP/IPv6"
EOF
bench_finish json
