#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Target CPU per op (issue 19, item 6; doc/CPU-BENCH.md): what a target's
# CPU spends per request served by PRISM (receive softirq) and by a UDP
# request/response server doing the same work in user space (recvfrom/
# sendto, and recvmmsg/sendmmsg), for READ 8, CAS 8, indirect READ 8 and
# a 4-op chain, at a fixed depth, in one run (tools/bench/bench_cpu.c).
#
# Two setups:
#   two guests   tools/vm/multi.sh -n 2 -- tools/bench/cpu.sh
#                (make bench-cpu): guest 1 is the target (1 vCPU: its
#                whole CPU is measured), guest 0 the client, joined by
#                virtio-net; they meet through files in $PRISM_MH_DIR.
#   one guest    tools/bench/cpu.sh in a guest with 2 vCPUs: client and
#                target in two netns joined by a veth pair; the target's
#                processes and its veth's receive processing (RPS) on CPU
#                1, the client's on CPU 0; CPU 1 is measured.  Caveats:
#                veth has no NIC interrupt or NAPI poll (each side's
#                transmit queues the frame to the other's backlog, an IPI
#                to CPU 1 per burst), CPU 1 also runs whatever kernel
#                threads land there, and the client competes with the
#                target for the host's cores.  Good for the smoke run;
#                the two-guest numbers are the ones to quote.
#
# The target runs the PRISM server (bench_cpu prism-server), two UDP
# servers and the agent (bench_cpu agent), which answers the client's
# snapshot requests around every measured segment and otherwise sleeps
# in recvfrom: nothing on the target polls while measured.
#
# Environment: PRISM_KO, PRISM_OUT (default <repo>/build/vm-out: results
# bench-cpu.{json,csv,dat,png}, the client's report bench-cpu.txt),
# PRISM_CPU_N (ops per mode, default 30000: /proc/stat counts idle in
# 10 ms units, so a segment must keep the target busy for seconds), PRISM_CPU_ROUNDS (3),
# PRISM_CPU_WARMUP (per segment, 100), PRISM_CPU_DEPTH (8),
# PRISM_CPU_IDLE_MS (the target without load, measured before and after
# the rounds: its background busy fraction, 2000),
# PRISM_BENCH_COMMIT (recorded), PRISM_MH_WAIT_MS (longest wait for the
# other guest, 600000).  PRISM_CPU_SMOKE=1 (one guest only): 3000 ops per
# mode in 1 round, TAP on stdout: every mode gave a result, the target's
# counters saw exactly the PRISM chains of each segment, the plot was made
# (make check runs this as the guest suite "cpu").
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=../lib/tap.sh
. "$repo/tools/lib/tap.sh"
B=$here/bench_cpu
KO=${PRISM_KO:-$repo/kmod/prism.ko}
SMOKE=${PRISM_CPU_SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
	N=${PRISM_CPU_N:-3000} ROUNDS=${PRISM_CPU_ROUNDS:-1} WARMUP=${PRISM_CPU_WARMUP:-20}
	IDLE_MS=${PRISM_CPU_IDLE_MS:-500}
else
	N=${PRISM_CPU_N:-30000} ROUNDS=${PRISM_CPU_ROUNDS:-3} WARMUP=${PRISM_CPU_WARMUP:-100}
	IDLE_MS=${PRISM_CPU_IDLE_MS:-2000}
fi
DEPTH=${PRISM_CPU_DEPTH:-8}
WAIT=${PRISM_MH_WAIT_MS:-600000}
out=${PRISM_OUT:-$repo/build/vm-out}
IP_C=10.78.0.1 IP_T=10.78.0.2
P_UDP=18801 P_MMSG=18802 P_AGENT=18803
g=${PRISM_GUEST:-}

log() { echo "# bench-cpu: $*"; }

bench_begin bench-cpu
if [ "$SMOKE" = 1 ]; then
	tap_header
	fail() { tap_bail "bench-cpu: $*"; }
fi
need_binary "$B" tools/bench
load_module prism "$KO" || fail "insmod $KO failed"
# congestion control (issue 19) is a module parameter once merged
log "module parameter cc: $(cat /sys/module/prism/parameters/cc 2>/dev/null ||
	echo 'absent (a module without congestion control)')"

# start_target DIR RUN...: the four target processes, their ready files
# in DIR, each started with RUN... (netns and CPU pinning) prefixed;
# their pids in bench_pids, the agent's in $agent.
start_target() {
	local d=$1 ifn=$2 cpu=$3
	shift 3
	"$@" "$B" prism-server "$ifn" 1 "$d/ps.info" > "$work/ps.log" 2>&1 &
	bench_pids+=($!)
	wait_file "$d/ps.info" 60000 $! || { cat "$work/ps.log"; return 1; }
	"$@" "$B" udp-server $IP_T $P_UDP 1 "$work/udp.ready" > "$work/udp.log" 2>&1 &
	bench_pids+=($!)
	wait_file "$work/udp.ready" 60000 $! || { cat "$work/udp.log"; return 1; }
	"$@" "$B" udp-server $IP_T $P_MMSG 16 "$work/mmsg.ready" > "$work/mmsg.log" 2>&1 &
	bench_pids+=($!)
	wait_file "$work/mmsg.ready" 60000 $! || { cat "$work/mmsg.log"; return 1; }
	"$@" "$B" agent $IP_T $P_AGENT "$cpu" "$work/agent.ready" > "$work/agent.log" 2>&1 &
	agent=$!
	bench_pids+=("$agent")
	wait_file "$work/agent.ready" 60000 $agent || { cat "$work/agent.log"; return 1; }
}

# run_client INFO SETUP RUN...: the measurement; 0 if the client succeeded
run_client() {
	local info=$1 setup=$2 rc
	shift 2
	"$@" timeout 3000 "$B" client --if "$ifc" --info "$info" \
		--udp $IP_T:$P_UDP --udp-mmsg $IP_T:$P_MMSG --agent $IP_T:$P_AGENT \
		--depth "$DEPTH" --n "$N" --rounds "$ROUNDS" --warmup "$WARMUP" --idle-ms "$IDLE_MS" \
		--commit "${PRISM_BENCH_COMMIT:-unknown}" --setup "$setup" \
		--json "$out/bench-cpu.json" --csv "$out/bench-cpu.csv" \
		--plot "$out/bench-cpu.dat" > "$work/client.txt" 2>&1
	rc=$?
	cp "$work/client.txt" "$out/bench-cpu.txt"
	sed 's/^/# /' "$work/client.txt"
	return $rc
}

plot() {
	bench_plot "$work/bench-cpu.png" \
		"Target CPU per request at depth $DEPTH: PRISM (softirq) vs UDP servers ($1, TCG, $(uname -r))" <<EOF
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel "target CPU us per request"
plot "$out/bench-cpu.dat" using 2:xtic(1) title "PRISM", "" using 3 title "UDP recvfrom/sendto", \
     "" using 4 title "UDP recvmmsg/sendmmsg"
set ylabel "requests/s (thousands)"
plot "$out/bench-cpu.dat" using 5:xtic(1) title "PRISM", "" using 6 title "UDP recvfrom/sendto", \
     "" using 7 title "UDP recvmmsg/sendmmsg"
EOF
	cp "$work/bench-cpu.png" "$out/bench-cpu.png" 2>/dev/null
}

# ---- two guests: PRISM_GUEST 1 = target, 0 = client ----
mark() {	# NAME TEXT: $PRISM_MH_DIR/NAME, written atomically
	printf '%s\n' "$2" > "$PRISM_MH_DIR/$1.tmp" && mv -f "$PRISM_MH_DIR/$1.tmp" "$PRISM_MH_DIR/$1"
}

guest_target() {
	ip addr add $IP_T/24 dev eth0 || fail "address on eth0"
	if ! start_target "$PRISM_MH_DIR" eth0 cpu; then
		mark ready-1 "failed"
		fail "the target's servers did not start"
	fi
	log "target: $(nproc) CPU, PRISM server $(awk '$1 == "mac" { print $2 }' "$PRISM_MH_DIR/ps.info"), UDP on $IP_T"
	mark ready-1 ok
	# Block (no polling) until the client tells the agent to quit.
	wait "$agent"
	log "target: the agent exited ($?); counters:"
	sed 's/^/#   /' /proc/net/prism
}

guest_client() {
	local setup rc
	ip addr add $IP_C/24 dev eth0 || fail "address on eth0"
	wait_file "$PRISM_MH_DIR/ready-1" "$WAIT" || fail "the target did not get ready"
	[ "$(cat "$PRISM_MH_DIR/ready-1")" = ok ] || fail "the target failed to start"
	setup="two qemu guests joined by virtio-net, target 1 vCPU, client 1 vCPU"
	ifc=eth0
	run_client "$PRISM_MH_DIR/ps.info" "$setup"
	rc=$?
	# the target waits for this (the client sends it too when it succeeds)
	echo quit > /dev/udp/$IP_T/$P_AGENT
	[ $rc = 0 ] || fail "the client failed ($rc)"
	plot "two guests, virtio-net"
	log "results: $out/bench-cpu.{json,csv,dat,png,txt}"
}

# ---- one guest: netns cpu-c (CPU 0) and cpu-t (CPU 1) ----
one_guest() {
	local setup rc n nd ok field
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs (the target's is measured alone)"
	veth_pair cpu-c vc 02:00:00:00:78:01 cpu-t vt 02:00:00:00:78:02
	ip -n cpu-c addr add $IP_C/24 dev vc && ip -n cpu-t addr add $IP_T/24 dev vt ||
		fail "addresses on the veth pair"
	# Receive processing of each side on its own CPU (RPS: the target's
	# frames are steered to CPU 1 whatever their EtherType hashes to).
	ip netns exec cpu-t sh -c 'echo 2 > /sys/class/net/vt/queues/rx-0/rps_cpus' &&
		ip netns exec cpu-c sh -c 'echo 1 > /sys/class/net/vc/queues/rx-0/rps_cpus' ||
		fail "RPS masks"
	start_target "$work" vt cpu1 ip netns exec cpu-t taskset -c 1 ||
		fail "the target's servers did not start"
	[ "$SMOKE" = 1 ] && tap_ok "target up in netns cpu-t on CPU 1: PRISM server, two UDP servers, agent"
	setup="one guest, 2 vCPUs: netns joined by veth, target and its receive processing (RPS) on CPU 1, client on CPU 0"
	ifc=vc
	run_client "$work/ps.info" "$setup" ip netns exec cpu-c taskset -c 0
	rc=$?
	[ "$SMOKE" = 1 ] || { [ $rc = 0 ] || fail "the client failed ($rc)"; plot "one guest, veth, RPS"; return; }
	tap_result $rc "client: 12 modes (3 stacks x 4 ops) at depth $DEPTH, $N ops each"
	[ $rc = 0 ] || { tap_finish; exit 1; }
	plot "one guest, veth, RPS (smoke)"
	# CSV: stack,op,depth,ops,ops_per_s,p50,p99,busy_frac,cpu_us,...,served,dups
	n=$(awk -F, -v n="$N" 'NR > 1 && $4 == n && $5 > 0 && $8 > 0 && $8 <= 1.05 && $9 > 0' \
		"$out/bench-cpu.csv" | wc -l)
	check "every mode: $N ops, ops/s > 0, target busy fraction in (0, 1], CPU us/op > 0 ($n of 12)" \
		'[ "$n" = 12 ]' '$(cat "$out/bench-cpu.csv")'
	nd=$(awk -F, -v n="$N" '$1 == "prism" && $14 == n' "$out/bench-cpu.csv" | wc -l)
	check "PRISM modes: the target's chains_served grew by exactly the ops of the segments ($nd of 4)" \
		'[ "$nd" = 4 ]'
	nd=$(awk -F, '$1 ~ /^udp/ && $14 == 0' "$out/bench-cpu.csv" | wc -l)
	check "UDP modes: no PRISM chain served during their segments ($nd of 8)" '[ "$nd" = 8 ]'
	ok=1
	for field in '"prism_over_udp"' '"cpu_over_best_udp"' '"goal_0.5x_met"'; do
		grep -q "$field" "$out/bench-cpu.json" || ok=0
	done
	tap_result $((1 - ok)) "bench-cpu.json has the PRISM/UDP ratios and the goal"
	check "bench-cpu.png is a PNG" '[ "$(head -c 4 "$out/bench-cpu.png" | tail -c 3)" = PNG ]'
	tap_finish
}

mkdir -p "$out" || fail "cannot create $out"
case $g in
'') one_guest ;;
0) guest_client ;;
1) guest_target ;;
*) log "guest $g: nothing to do (the benchmark uses guests 0 and 1)" ;;
esac
