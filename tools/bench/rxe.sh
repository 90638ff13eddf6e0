#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM vs SoftRoCE (rdma_rxe) latency, run INSIDE the guest as root, in
# one guest run, over one veth pair (see doc/RXE-COMPARISON.md):
#
#   1. probe: rxe between two network namespaces (the configuration the
#      issue asks for).  On Debian's 6.1 kernel this cannot work (rxe's
#      UDP socket and route lookups are in init_net only); the probe
#      records what happens, in rdma's "shared" and "exclusive" netns modes.
#   2. measure, nearest working configuration: both veth ends in the root
#      namespace, /32 addresses and policy routing so that traffic between
#      them really crosses the veth pair (not lo); rxe0 on va, rxe1 on vb;
#      PRISM server on vb, client on va (raw Ethernet over the same pair).
#      perftest ib_read_lat / ib_write_lat / ib_atomic_lat, then our verbs
#      client and PRISM interleaved op by op in one process (rxe_lat
#      pair-client, servers rxe_lat verbs-server / prism-server).  Every client
#      is pinned to CPU 0, every server to CPU 1 (perftest needs pinning:
#      the guest's vCPU TSCs are not synchronized, see the clock check).
#   3. busy polling (doc/BUSYPOLL-BENCH.md): PRISM READ 8 blocking, spinning
#      (prism_execute_spin), through a ring sleeping and spinning, timed
#      with the TSC as perftest is (rxe_lat busy-client); then the same with
#      NAPI on the veth pair (GRO on, TSO off) and SO_BUSY_POLL set.
#
#   PRISM_KO=kmod/prism.ko tools/bench/rxe.sh
#
# Environment: PRISM_KO, PRISM_BENCH_N (measured iterations per test,
# default 1000), PRISM_BENCH_WARMUP (iterations run first and discarded,
# default 100, for perftest too: it runs N+WARMUP+1 iterations with -C -U
# and the first WARMUP samples are dropped here), PRISM_OUT (bench-rxe.json,
# bench-rxe.csv, bench-rxe.png, bench-rxe-probe.txt, bench-rxe-*.txt go
# there), RXE_PROBE_NETNS=0 to skip step 1, RXE_CLOCK_CHECK=0 to skip the
# perftest clock check, RXE_UDP=0 to skip PRISM over UDP (after step 2),
# RXE_BUSY=0 to skip step 3, RXE_BUSY_ONLY=1 to run
# only perftest's READ 8 and step 3, RXE_SPIN_US (spin bound of step 3,
# default 1000), RXE_BUSY_POLL_US (SO_BUSY_POLL of its NAPI half, default
# 50).
# Build on the host first: make -C tools/bench (needs libibverbs-dev).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
B=$here/rxe_lat
KO=${PRISM_KO:-$repo/kmod/prism.ko}
N=${PRISM_BENCH_N:-1000}
W=${PRISM_BENCH_WARMUP:-100}
CPU_C=0
CPU_S=1
[ "$(nproc)" -ge 2 ] || CPU_S=0
work=$(mktemp -d /tmp/prism-rxe.XXXXXX)
out=${PRISM_OUT:-$work}
probe=$out/bench-rxe-probe.txt
res=$work/results.txt
loaded=0
pids=()
NA=rxe-a NB=rxe-b

log() { echo "rxe: $*"; }
fail() { echo "rxe: $*" >&2; exit 1; }

kill_pids() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}

cleanup() {
	kill_pids
	for l in rxea rxeb; do
		rdma link delete "$l" 2>/dev/null
	done
	ip netns del $NA 2>/dev/null
	ip netns del $NB 2>/dev/null
	rxe_pair_down
	[ "$loaded" = 1 ] && rmmod prism 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# wait_file: a wall-clock bound that also notices a dead process
# shellcheck source=../lib/wait.sh
. "$here/../lib/wait.sh"
# rxe_pair_up/down, gid_index, wait_listen, perftest_client, rxe_plot
# shellcheck source=rxe_net.sh
. "$here/rxe_net.sh"

[ -x "$B" ] || fail "$B is missing: run 'make -C tools/bench' on the host"
command -v ib_read_lat >/dev/null || fail "perftest is not installed"
modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
# (rxe_pair_up below does the same: the probe needs it first)
modprobe -q crc32_generic
modprobe -q veth
if [ ! -d /sys/module/prism ]; then
	insmod "$KO" || fail "insmod $KO failed"
	loaded=1
fi
mkdir -p "$out"
: > "$probe"
: > "$res"
rm -f "$out/bench-rxe-busy.dat" "$out/bench-rxe-busy.png"
{
	echo "kernel $(uname -r)"
	echo "rdma system: $(rdma system show 2>&1)"
} >> "$probe"

# ---------------------------------------------------------------- 1. probe
# probe_netns MODE: rxe on a veth pair between two netns, ib_read_lat.
probe_netns() {
	local mode=$1 ga gb rc
	echo "=== netns probe, rdma system netns $mode" >> "$probe"
	rdma system set netns "$mode" >> "$probe" 2>&1
	echo "rdma system: $(rdma system show 2>&1)" >> "$probe"
	ip netns add $NA && ip netns add $NB || return 1
	ip link add name ba netns $NA type veth peer name bb netns $NB
	ip -n $NA addr add 10.78.0.1/24 dev ba
	ip -n $NB addr add 10.78.0.2/24 dev bb
	for ns in $NA $NB; do ip -n $ns link set lo up; done
	ip -n $NA link set ba up
	ip -n $NB link set bb up
	ip netns exec $NA rdma link add rxea type rxe netdev ba >> "$probe" 2>&1
	echo "rdma link add rxea (netns $NA): rc=$?" >> "$probe"
	ip netns exec $NB rdma link add rxeb type rxe netdev bb >> "$probe" 2>&1
	echo "rdma link add rxeb (netns $NB): rc=$?" >> "$probe"
	{
		echo "rdma link in $NA:"; ip netns exec $NA rdma link show 2>&1
		echo "rdma dev in root netns:"; rdma dev show 2>&1
		echo "ibv_devices in $NB:"; ip netns exec $NB ibv_devices 2>&1
	} >> "$probe"
	ga=$(gid_index rxea 10.78.0.1 $NA) || ga=
	gb=$(gid_index rxeb 10.78.0.2 $NB) || gb=
	echo "RoCE v2 gid index: rxea=${ga:-none} rxeb=${gb:-none}" >> "$probe"
	if [ -n "$ga" ] && [ -n "$gb" ]; then
		ip netns exec $NA timeout 120 ib_read_lat -F -d rxea -x "$ga" -n 100 -p 18600 \
			> "$work/probe-s.txt" 2>&1 &
		pids+=($!)
		wait_listen 18600 $NA || echo "server not listening after 60 s" >> "$probe"
		perftest_client "$work/probe-c.txt" ip netns exec $NB timeout 30 ib_read_lat -F -d rxeb \
			-x "$gb" -n 100 -p 18600 10.78.0.1
		rc=$?
		echo "ib_read_lat client rc=$rc (124 = timed out; 17/18 = run_iter_lat() failed, i.e. a completion with an error status); its last lines (stderr comes first, stdout is flushed at exit; whole output in bench-rxe-probe-$mode-client.txt):" >> "$probe"
		cp "$work/probe-c.txt" "$out/bench-rxe-probe-$mode-client.txt"
		grep -iE 'error|fail|status' "$work/probe-c.txt" >> "$probe"
		tail -4 "$work/probe-c.txt" >> "$probe"
		echo "server's last lines:" >> "$probe"
		tail -4 "$work/probe-s.txt" >> "$probe"
		kill_pids
	fi
	{
		echo "veth counters in $NA:"; ip -n $NA -s link show ba
		echo "udp/4791 sockets in $NA:"; ip netns exec $NA ss -uan 'sport = :4791'
		echo "udp/4791 sockets in root netns:"; ss -uan 'sport = :4791'
		echo "Udp counters in $NB (NoPorts = datagrams to a port nobody listens on):"
		ip netns exec $NB cat /proc/net/snmp | grep '^Udp:'
	} >> "$probe" 2>&1
	echo "kernel log (rxe/rdma/crc lines):" >> "$probe"
	dmesg | grep -iE 'rxe|rdma|crc32|infiniband' | tail -12 >> "$probe"
	ip netns exec $NA rdma link delete rxea 2>/dev/null
	ip netns exec $NB rdma link delete rxeb 2>/dev/null
	rdma link delete rxea 2>/dev/null
	rdma link delete rxeb 2>/dev/null
	ip netns del $NA
	ip netns del $NB
	rdma system set netns shared >> "$probe" 2>&1
	echo >> "$probe"
}

if [ "${RXE_PROBE_NETNS:-1}" = 1 ]; then
	log "probing rxe between two network namespaces (results in $probe)"
	probe_netns shared
	probe_netns exclusive
	grep -E 'rc=|gid index|t_typical|^ *100 ' "$probe" | sed 's/^/rxe:   /'
fi

# rdma_stats TAG: rxe's counters (packets, retransmissions, duplicates,
# sequence errors...) into the probe file
rdma_stats() {
	echo "=== rdma statistic, $1" >> "$probe"
	rdma statistic show >> "$probe" 2>&1
	echo >> "$probe"
}

# ---------------------------------------------------------------- 2. setup
log "root-netns veth pair va/vb with policy routing"
rxe_pair_up || fail "root-netns pair: see above"
{
	echo "=== root-netns configuration"
	ip rule show; ip route get 10.79.0.2; ip route get 10.79.0.1
} >> "$probe" 2>&1
log "rxe0 (va) gid $G0, rxe1 (vb) gid $G1; $N iterations per test"
rdma link show | sed 's/^/rxe:   /'

# ---------------------------------------------------------------- clocks
# perftest measures with rdtsc and converts cycles to microseconds with
# get_cpu_mhz(): a linear fit of rdtsc against gettimeofday() (it returns 0
# when r^2 < 0.9) cross-checked with /proc/cpuinfo.  Record what the guest
# offers and what perftest does with it unpinned and pinned.
{
	echo "=== clocks"
	echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	grep 'cpu MHz' /proc/cpuinfo
	dmesg | grep -iE 'tsc|clocksource.*switch' | tail -8
} >> "$probe" 2>&1
MHZ=$(taskset -c $CPU_C "$B" tsc-mhz | awk '{print $1}')
MHZ1=$(taskset -c $CPU_S "$B" tsc-mhz | awk '{print $1}')
echo "rxe_lat tsc-mhz: CPU $CPU_C $MHZ, CPU $CPU_S $MHZ1 (TSC ticks per us of CLOCK_MONOTONIC)" >> "$probe"
case $MHZ in ''|*[!0-9.]*) fail "could not measure the TSC rate" ;; esac
log "TSC: $MHZ MHz on CPU $CPU_C (used to convert perftest's cycles)"

port=18700
if [ "${RXE_CLOCK_CHECK:-1}" = 1 ]; then
	for how in unpinned pinned; do
		port=$((port + 1))
		if [ $how = pinned ]; then ps="taskset -c $CPU_S" pc="taskset -c $CPU_C"; else ps= pc=; fi
		$ps timeout 120 ib_read_lat -F -d rxe1 -x "$G1" -s 512 -n 200 -p $port \
			> "$work/cc-s.txt" 2>&1 &
		pids+=($!)
		wait_listen $port
		perftest_client "$work/cc-c.txt" $pc timeout 60 ib_read_lat -F -d rxe0 -x "$G0" -s 512 \
			-n 200 -p $port 10.79.0.2
		echo "rc=$?" >> "$work/cc-c.txt"
		kill_pids
		{
			echo "=== perftest clock check, $how: ib_read_lat -F -s 512 -n 200 (microseconds), client output:"
			grep -vE '^ *$|^-+$' "$work/cc-c.txt" | tail -6
		} >> "$probe"
		log "perftest clock check ($how): $(grep -E 'r\^2|^ *512 ' "$work/cc-c.txt" | tr -s ' ' | paste -sd' ')"
	done
fi

rdma_stats "before the measurements"
tx0=$(cat /sys/class/net/va/statistics/tx_packets)

# ---------------------------------------------------------------- perftest
# perftest NAME BIN SIZE EXTRA...: server on rxe1 (vb), client on rxe0 (va),
# N+W+1 iterations (N+W samples: perftest reports the differences of
# consecutive post times), raw unsorted samples in cycles (-C -U); the
# report step drops the first W and converts with $MHZ.
perftest() {
	local name=$1 bin=$2 size=$3 got
	shift 3
	port=$((port + 1))
	taskset -c $CPU_S timeout 300 "$bin" -F -C -U -d rxe1 -x "$G1" -s "$size" \
		-n $((N + W + 1)) -p $port "$@" > "$work/$name-s.txt" 2>&1 &
	pids+=($!)
	wait_listen $port || log "perftest $name: server not listening after 60 s"
	perftest_client "$work/$name-c.txt" taskset -c $CPU_C timeout 300 "$bin" -F -C -U -d rxe0 \
		-x "$G0" -s "$size" -n $((N + W + 1)) -p $port "$@" 10.79.0.2
	echo "rc=$?" >> "$work/$name-c.txt"
	kill_pids
	cp "$work/$name-c.txt" "$out/bench-rxe-perftest-$name.txt"
	got=$(grep -cE '^[0-9]+, [0-9.e+]+$' "$work/$name-c.txt")
	if [ "$got" -lt $((N + W)) ]; then
		log "perftest $name failed ($got samples):"
		tail -5 "$work/$name-c.txt" | sed 's/^/rxe:   /'
		return 1
	fi
	echo "PERFTEST $name $size $out/bench-rxe-perftest-$name.txt" >> "$res"
	log "perftest $name: $got samples"
}
log "perftest, $N measured + $W warm-up iterations per test"
perftest read8 ib_read_lat 8
busy_only=${RXE_BUSY_ONLY:-0}
if [ "$busy_only" != 1 ]; then
perftest read512 ib_read_lat 512
perftest write8 ib_write_lat 8
perftest write512 ib_write_lat 512
perftest cas8 ib_atomic_lat 8 -A CMP_AND_SWAP
fi
rdma_stats "after perftest"

# ---------------------------------------------------------------- verbs + PRISM
# One client process with both stacks, interleaved op by op (rxe_lat
# pair-client): rxe through an RC QP rxe0 -> rxe1 with a busy-polled CQ,
# PRISM through a socket on va to the server's endpoint on vb (blocking
# prism_execute).  Both servers only register memory and sleep.
if [ "$busy_only" != 1 ]; then
log "verbs program and PRISM, interleaved op by op, $N measured + $W warm-up"
taskset -c $CPU_S "$B" verbs-server rxe1 "$G1" "$work/vs.info" "$work/vc.info" \
	"$work/vs.ready" > "$work/vs.log" 2>&1 &
pids+=($!)
taskset -c $CPU_S "$B" prism-server vb 1 "$work/ps.info" > "$work/ps.log" 2>&1 &
pids+=($!)
wait_file "$work/ps.info" 30000 "${pids[-1]}" || { cat "$work/ps.log"; fail "PRISM server did not start"; }
taskset -c $CPU_C timeout 1200 "$B" pair-client va "$work/ps.info" rxe0 "$G0" \
	"$work/vc.info" "$work/vs.info" "$work/vs.ready" "$N" "$W" > "$work/pair.log" 2>&1 ||
	{ log "pair client failed:"; tail -5 "$work/pair.log" "$work/vs.log" "$work/ps.log"; }
kill_pids
grep '^RESULT' "$work/pair.log" >> "$res"
cp "$work/pair.log" "$out/bench-rxe-pair.txt"
rdma_stats "after the verbs program"
fi

# ---------------------------------------------------------------- PRISM over UDP
# PRISM alone over raw Ethernet and over UDP/IPv4 between the same
# addresses rxe uses (issue 20), one after the other: RESULT lines of
# stacks prism_solo and prism_udp4.
if [ "$busy_only" != 1 ] && [ "${RXE_UDP:-1}" = 1 ]; then
	log "PRISM alone, raw Ethernet then UDP/IPv4 10.79.0.1 -> 10.79.0.2, $N measured + $W warm-up"
	taskset -c $CPU_S "$B" prism-server vb 3 "$work/pe.info" > "$work/pe.log" 2>&1 &
	pids+=($!)
	taskset -c $CPU_S "$B" prism-server udp:10.79.0.2 4 "$work/pu.info" > "$work/pu.log" 2>&1 &
	pids+=($!)
	wait_file "$work/pe.info" 30000 && wait_file "$work/pu.info" 30000 ||
		{ cat "$work/pe.log" "$work/pu.log"; fail "PRISM servers did not start"; }
	for how in "va pe prism_solo" "udp:10.79.0.1 pu prism_udp4"; do
		read -r ifc inf stack <<< "$how"
		taskset -c $CPU_C timeout 1200 "$B" prism-client "$ifc" "$work/$inf.info" "$N" "$W" \
			"$stack" > "$work/$stack.log" 2>&1 ||
			{ log "prism-client $stack failed:"; tail -5 "$work/$stack.log"; }
		grep '^RESULT' "$work/$stack.log" >> "$res"
	done
	kill_pids
fi

# ---------------------------------------------------------------- busy polling
# busy_phase SUFFIX BUSY_POLL_US: rxe_lat busy-client against a PRISM server
# on vb; its RESULT lines go to the report, CSW and NAPI lines too.
busy_phase() {
	local sfx=$1 bp=$2
	taskset -c $CPU_S "$B" prism-server vb 2 "$work/pb.info" > "$work/pb.log" 2>&1 &
	pids+=($!)
	wait_file "$work/pb.info" 30000 "${pids[-1]}" || { cat "$work/pb.log"; fail "PRISM server did not start"; }
	taskset -c $CPU_C timeout 1200 "$B" busy-client va "$work/pb.info" "$N" "$W" \
		"$MHZ" "${RXE_SPIN_US:-1000}" "$bp" "$sfx" > "$work/busy$sfx.log" 2>&1 ||
		{ log "busy client$sfx failed:"; tail -5 "$work/busy$sfx.log" "$work/pb.log"; }
	kill_pids
	rm -f "$work/pb.info"
	grep -E '^(RESULT|CSW|NAPI)' "$work/busy$sfx.log" >> "$res"
	cat "$work/busy$sfx.log" >> "$out/bench-rxe-busy.txt"
	grep '^NAPI' "$work/busy$sfx.log" | sed 's/^/rxe:   /'
}
if [ "${RXE_BUSY:-1}" = 1 ]; then
	: > "$out/bench-rxe-busy.txt"
	log "busy polling: PRISM READ 8 blocking / spinning / ring / ring spinning, TSC-timed"
	busy_phase "" 0
	log "busy polling with NAPI on the veth pair (GRO on, TSO off) and SO_BUSY_POLL ${RXE_BUSY_POLL_US:-50} us"
	if "$B" veth-napi va on && "$B" veth-napi vb on; then
		busy_phase "+napi" "${RXE_BUSY_POLL_US:-50}"
		"$B" veth-napi va off; "$B" veth-napi vb off
	else
		log "could not turn NAPI on for va/vb"
	fi
fi

[ -s "$work/retries.txt" ] && { cat "$work/retries.txt"; cat "$work/retries.txt" >> "$probe"; }
tx1=$(cat /sys/class/net/va/statistics/tx_packets)
echo "va tx_packets during the measurements: $((tx1 - tx0))" >> "$probe"
log "va sent $((tx1 - tx0)) packets during the measurements (traffic crossed the veth pair)"

# ---------------------------------------------------------------- report
python3 "$here/rxe_report.py" "$res" "$out" "$N" "$W" "$(uname -r)" "$MHZ"

[ "$busy_only" = 1 ] ||
	rxe_plot bench-rxe "PRISM vs SoftRoCE (rxe) latency, median with p99 bar, $N iterations, TCG guest" \
	"plot \"$out/bench-rxe.dat\" using 2:2:5:xtic(1) title \"PRISM\" lc rgb \"#1f77b4\", \
     \"\" using 3:3:6 title \"rxe (verbs program)\" lc rgb \"#d62728\", \
     \"\" using 4:4:7 title \"rxe (perftest)\" lc rgb \"#ff7f0e\""
[ -s "$out/bench-rxe-busy.dat" ] &&
	rxe_plot bench-rxe-busy "READ 8 B, busy polling vs perftest ib_read_lat, median with p99 bar, $N iterations, TSC-timed, TCG guest" \
		"set xtics rotate by -30; plot \"$out/bench-rxe-busy.dat\" using 2:2:3:xtic(1) title \"READ 8\" lc rgb \"#1f77b4\""
log "results: $out/bench-rxe.json $out/bench-rxe.csv $out/bench-rxe.png $probe"
