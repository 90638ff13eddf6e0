#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Incast (issue 19), run INSIDE the guest as root, in one guest run: 8
# client network namespaces x READ 8 B at depth 16 -> 1 target namespace,
# all on one Linux bridge (tools/lib/hosts.sh: PRISM frames are raw
# Ethernet, the bridge forwards them), for a fixed time
# (doc/DEPTH-BENCH.md).  Every client is bench_large prism --seconds T; they
# start together: each writes a ready file after its warm-up and waits on
# a FIFO that this script opens once all are ready.  Runs, for the module
# parameter cc=1 and then cc=0 (congestion control on, off):
#
#   unloaded  client 1 alone, depth 1: the unloaded latency
#   one-d16   client 1 alone, depth 16
#   one-d128  client 1 alone, depth 128 (what the 8 clients keep in flight)
#   incast    clients 1..8, depth 16 each
#
# The one-client peak is the better of one-d16 and one-d128 of the same
# setting.  Reported: aggregate ops/s of the incast over that peak, Jain's
# fairness index of the 8 clients' ops/s, P99 of all incast samples over
# the unloaded P99, retransmissions and NACKs as a share of the chains
# sent, the target's duplicates (requests seen again), cc_* counters when
# the module has them.  A module without the parameter cc (before
# congestion control) runs both settings alike, labelled so: the two are
# then a measure of the run-to-run noise.
#
# Every process is pinned to CPU 0 (PRISM_INCAST_CPU): in one kernel the
# target's work runs in the softirq of the sending CPU, so the one-client
# runs and the incast get the same CPU budget.
#
#   make bench-incast                  # on the host: builds, runs the guest
#   PRISM_KO=kmod/prism.ko tools/bench/incast.sh         # in the guest
#
# Environment: PRISM_KO, PRISM_OUT (default <repo>/build/vm-out:
# incast-bench.{json,dat,md,png}, raw outputs in incast-bench-raw/),
# PRISM_INCAST_SECONDS (per run, default 8), PRISM_INCAST_CLIENTS (8),
# PRISM_INCAST_DEPTH (16), PRISM_INCAST_CC (settings, default "1 0"),
# PRISM_INCAST_CPU (0), PRISM_BENCH_COMMIT.  PRISM_INCAST_SMOKE=1: 1 s per
# run, no one-d128 run, cc=1 only (without congestion control the incast
# collapses into retransmissions and some clients' chains time out: that
# contrast is for the full run), TAP on stdout: every client exited 0 with a
# well-formed result, no chain failed, the report and plot were made
# (make check runs this as the guest suite "bench-incast").
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
B=$bench_dir/bench_large
SMOKE=${PRISM_INCAST_SMOKE:-0}
NC=${PRISM_INCAST_CLIENTS:-8}
DEPTH=${PRISM_INCAST_DEPTH:-16}
CCS=${PRISM_INCAST_CC:-1 0}
CPU=${PRISM_INCAST_CPU:-0}
if [ "$SMOKE" = 1 ]; then
	CCS=${PRISM_INCAST_CC:-1}
	SECS=${PRISM_INCAST_SECONDS:-1}
	RUNS="unloaded one-d$DEPTH incast"
else
	SECS=${PRISM_INCAST_SECONDS:-8}
	RUNS="unloaded one-d$DEPTH one-d$((NC * DEPTH)) incast"
fi
SIZE=8
CAP=2000000	# latency samples per client at most
P=pi		# hosts pi1..piNC: clients; pi$((NC + 1)): the target
T=$((NC + 1))

bench_begin incast-bench "$SMOKE"
incast_cleanup() {
	bench_cleanup
	hosts_down $P $T
}
trap incast_cleanup EXIT
need_binary "$B" tools/bench
bench_raw "${PRISM_OUT:-$repo/build/vm-out}"
load_module prism "$KO" || fail "insmod $KO failed"
hosts_down $P $T
hosts_up $P $T || fail "hosts_up: $T namespaces on a bridge"
CCP=/sys/module/prism/parameters/cc
[ -w $CCP ] || bench_log "the module has no parameter cc (before congestion control): both settings run the same module"

bench_server "$work/ps.info" "$raw/prism-server.txt" ip netns exec $P$T \
	taskset -c "$CPU" "$B" prism-server eth0 1 "$work/ps.info" $SIZE $((NC * DEPTH))

res=$work/results.txt
: > "$res"
failed=0

# one_run CC RUN K DEPTH: clients 1..K at DEPTH for $SECS s, started
# together; their RESULT/STATS lines tagged "CC RUN CLIENT", the target
# netns' counter changes as ITARGET
one_run() {
	local cc=$1 run=$2 k=$3 d=$4 i pids=() f w=$((4 * $4))
	[ $w -lt 50 ] && w=50
	rm -f "$work"/ready* "$work/go"
	mkfifo "$work/go" || fail "mkfifo"
	prism_counters $P$T > "$work/c0"
	for i in $(seq "$k"); do
		f=$raw/$run-cc$cc-c$i.txt
		ip netns exec $P$i taskset -c "$CPU" "$B" prism --if eth0 --info "$work/ps.info" \
			--op read --size $SIZE --depth "$d" --n $CAP --warmup $w \
			--seconds "$SECS" --maxsize $SIZE --maxdepth $((NC * DEPTH)) \
			--ready "$work/ready$i" --go "$work/go" \
			--samples "$raw/$run-cc$cc-c$i.lat" > "$f" 2>&1 &
		pids+=($!)
		bench_pids+=($!)
	done
	for i in $(seq "$k"); do
		wait_file "$work/ready$i" 120000 "${pids[$((i - 1))]}" ||
			bench_log "$run cc=$cc: client $i not ready"
	done
	# opened for writing (read-write: never blocks): every client
	# blocked in open() starts; it stays open so that none can miss it
	exec {gofd}<> "$work/go"
	for i in $(seq "$k"); do
		f=$raw/$run-cc$cc-c$i.txt
		wait_exit "${pids[$((i - 1))]}" $(((SECS + 120) * 1000)) ||
			{ bench_note "$run cc=$cc client $i" "$f"; failed=$((failed + 1)); }
		sed -n "s/^\(RESULT\|STATS\) /I\1 $cc $run $i /p" "$f" >> "$res"
		echo "ISAMPLES $cc $run $i $raw/$run-cc$cc-c$i.lat" >> "$res"
	done
	exec {gofd}>&-
	prism_counters $P$T > "$work/c1"
	echo "ITARGET $cc $run $(counter_deltas "$work/c0" "$work/c1")" >> "$res"
}

t0=$(date +%s)
for cc in $CCS; do
	if [ -w $CCP ]; then
		echo "$cc" > $CCP || fail "cannot set cc=$cc"
		echo "ICC $cc $(cat $CCP)" >> "$res"
	else
		echo "ICC $cc absent" >> "$res"
	fi
	for run in $RUNS; do
		case $run in
		unloaded) n=1 d=1 ;;
		one-d*) n=1 d=${run#one-d} ;;
		incast) n=$NC d=$DEPTH ;;
		esac
		bench_log "cc=$cc $run: $n client(s) x depth $d, $SECS s"
		one_run "$cc" "$run" $n "$d"
	done
done
bench_log "measurements took $(($(date +%s) - t0)) s; $failed client runs failed"
cp "$res" "$raw/results.txt"

bench_report "$bench_dir/depth_report.py" incast "$res" "$out" "$(uname -r)" \
	"${PRISM_BENCH_COMMIT:-unknown}" "$NC" "$DEPTH" "$SECS"

bench_plot "$work/incast-bench.png" \
	"Incast: $NC clients x READ 8 B depth $DEPTH -> 1 target, $SECS s (bridge, TCG guest, $(uname -r))" <<EOF
set key outside right top
set grid ytics
set ylabel "ops/s per client"
set xlabel "client"
set yrange [0:*]
plot "$out/incast-bench.dat" using 2:xtic(1) title "cc=1", "" using 3 title "cc=0"
set ylabel "latency P99, us (log scale)"
set xlabel ""
set yrange [*:*]
set logscale y
plot "$out/incast-bench-p99.dat" using 2:xtic(1) title "cc=1", "" using 3 title "cc=0"
EOF
bench_finish '{json,dat,md,png}'
