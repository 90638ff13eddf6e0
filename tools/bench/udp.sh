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
# Run by tools/vm/multi.sh -n 2 (make bench-udp-mh), the same between two
# guests joined by virtio-net: guest 1 serves on its eth0, guest 0 runs
# the clients on its own; the info files go through $PRISM_MH_DIR and the
# results to $PRISM_OUT/udp-mh.  Every server is started before the first
# client runs (bench_uring's CAS counters must start at 0: one server per
# transport and round).
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

MH=0
[ -n "${PRISM_MH_DIR:-}" ] && MH=1
g=${PRISM_GUEST:-0}
bench_begin udp-bench "$SMOKE"
need_binary "$U" tools/bench
need_binary "$I" tools/bench
load_module prism "$KO" || fail "insmod $KO failed"

# SX, CX: how servers and clients run; ifs: the server's, the client's
# interface; $info: where the servers' info files go.
if [ $MH = 1 ]; then
	SX=() CX=() ifs=eth0 ifc=eth0 info=$PRISM_MH_DIR
	out=${PRISM_OUT:-$repo/build/vm-out}/udp-mh
	[ "$g" = 1 ] && out=$out/guest1	# its servers' logs
	sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.eth0.accept_dad=0
	ip addr add "10.88.0.$((2 - g))/24" dev eth0 || fail "address on eth0"
	ip addr add "fd88::$((2 - g))/64" dev eth0 nodad || fail "IPv6 address on eth0"
else
	SX=(ip netns exec "$NA") CX=(ip netns exec "$NB") ifs=wa ifc=wb info=$work
	out=${PRISM_OUT:-$repo/build/vm-out}
	veth_pair $NA wa 02:00:00:00:07:0a $NB wb 02:00:00:00:07:0b
	for ns in $NA $NB; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0
	done
	ip -n $NA addr add 10.88.0.1/24 dev wa
	ip -n $NA addr add fd88::1/64 dev wa nodad
	ip -n $NB addr add 10.88.0.2/24 dev wb
	ip -n $NB addr add fd88::2/64 dev wb nodad
fi
bench_raw "$out"

# transport -> client socket (--if) and the servers' bind
declare -A CLI=([eth]=$ifc [udp4]=udp:10.88.0.2 [udp6]=udp:fd88::2)
declare -A SRV=([eth]=$ifs [udp4]=udp:10.88.0.1 [udp6]=udp:fd88::1)
T=(eth udp4 udp6)

# The servers (guest 1 of two): bench_indirect's, one bench_uring per
# transport and round, and bench_indirect's UDP request/response baseline
# (not PRISM).
if [ $MH = 0 ] || [ "$g" = 1 ]; then
	ep=1
	for t in "${T[@]}"; do
		bench_server "$info/i-$t.info" "$raw/server-indirect-$t.log" \
			"${SX[@]}" "$I" prism-server "${SRV[$t]}" $((ep + 10)) "$info/i-$t.info"
		ep=$((ep + 1))
		for r in $(seq "$ROUNDS"); do
			bench_server "$info/u-$t-$r.info" "$raw/server-uring-$t-$r.log" \
				"${SX[@]}" "$U" prism-server "${SRV[$t]}" $((100 + ep * 10 + r)) \
				"$info/u-$t-$r.info"
		done
	done
	bench_server "$info/udp.ready" "$raw/udp-server.log" \
		"${SX[@]}" "$I" udp-server 10.88.0.1 7777 "$info/udp.ready"
fi
if [ $MH = 1 ]; then
	D=$PRISM_MH_DIR
	# shellcheck source=mh_lib.sh
	. "$here/mh_lib.sh"
	if [ "$g" = 1 ]; then
		mh_mark ready-1 ok
		wait_file "$D/done-0" 2400000
		exit 0
	fi
	wait_file "$D/ready-1" 600000 || fail "guest 1 never got ready"
fi

uname -r > "$raw/kernel"
for r in $(seq "$ROUNDS"); do
	for k in 0 1 2; do
		t=${T[$(((r + k) % 3))]}
		bench_log "round $r: $t"
		timeout 900 "${CX[@]}" "$U" client --if "${CLI[$t]}" \
			--info "$info/u-$t-$r.info" --n "$N" --rounds 1 \
			--json "$raw/uring-$t-$r.json" > "$raw/uring-$t-$r.log" 2>&1 ||
			{ failed=$((failed + 1)); bench_note "bench_uring $t" "$raw/uring-$t-$r.log"; }
		timeout 900 "${CX[@]}" "$I" client --if "${CLI[$t]}" \
			--info "$info/i-$t.info" --udp 10.88.0.1:7777 --n "$N" \
			--json "$raw/indirect-$t-$r.json" > "$raw/indirect-$t-$r.log" 2>&1 ||
			{ failed=$((failed + 1)); bench_note "bench_indirect $t" "$raw/indirect-$t-$r.log"; }
	done
done
if [ $MH = 1 ]; then
	mh_mark done-0 ok
	prism_counters > "$raw/counters-client.txt"
else
	prism_counters $NB > "$raw/counters-client.txt"
fi

bench_report "$here/udp_report.py" "$raw" "$out" "$ROUNDS" "$N" \
	"$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
link="veth, TCG guest"
[ $MH = 1 ] && link="virtio-net between two TCG guests"
bench_plot "$work/udp-bench.png" \
	"PRISM over raw Ethernet, UDP/IPv4, UDP/IPv6 ($link, median of $ROUNDS rounds)" <<EOF
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel "latency p50 (us)"
plot "$out/udp-bench.dat" using 2:xtic(1) title "raw Ethernet", "" using 3 title "UDP/IPv4", "" using 4 title "UDP/IPv6"
set ylabel "kops/s, io_uring, 64 in flight"
plot "$out/udp-bench-tput.dat" using 2:xtic(1) title "raw Ethernet", "" using 3 title "UDP/IPv4", "" using 4 title "UDP/IPv6"
EOF
bench_finish json
