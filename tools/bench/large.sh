#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Large operations (issue 14), run INSIDE the guest as root, in one guest
# run: throughput and latency of READ and WRITE of every SIZE at every
# DEPTH (ops in flight) over three stacks on the same veth pair, side by
# side (doc/LARGE-BENCH.md):
#
#   PRISM  bench_large prism: client on va, server on vb (raw Ethernet);
#          READs also with output buffers (--outbuf, stack prism-ob:
#          the answer copied once, from the frames to the user's pages)
#   rxe    perftest ib_read_bw / ib_write_bw (-t DEPTH, -o DEPTH for
#          READ) rxe0 (va) -> rxe1 (vb); latency at depth 1 from
#          ib_read_lat / ib_write_lat (-C -U, raw cycles)
#   TCP    bench_large tcp: 10.79.0.1 (va) -> 10.79.0.2 (vb), the same
#          READ/WRITE as requests on one connection, DEPTH pipelined, and
#          a stream of SIZE-byte writes per size
#
# rxe works only in the initial netns on Debian's 6.1 kernel, so both
# veth ends stay there, with policy routing (rxe_net.sh, as rxe.sh).  The
# cells run one after the other (size, op, depth), and inside a cell the
# three stacks in an order that rotates from cell to cell, so that drift
# of a loaded TCG guest hits them alike.  Clients are pinned to CPU 0,
# the PRISM and perftest servers (idle after setup) to CPU 1, the TCP
# server to CPU 0 (see CPU_T below).
#
#   make bench-large                   # on the host: builds, runs the guest
#   PRISM_KO=kmod/prism.ko tools/bench/large.sh          # in the guest
#
# Environment: PRISM_KO (loaded unless prism is loaded), PRISM_OUT (default
# <repo>/build/vm-out: bench-large.{json,csv,dat,md,png} and the raw
# outputs in bench-large-raw/), PRISM_LARGE_SIZES (default "4096 65536
# 1048576"), PRISM_LARGE_DEPTHS (default "1 16"), PRISM_LARGE_BYTES
# (bytes moved per cell and stack, default 32 MiB: ops = BYTES / SIZE,
# clamped to [PRISM_LARGE_NMIN, PRISM_LARGE_NMAX], default [32, 2000]; a
# tenth of that, at least 2 and at least DEPTH, runs first as warm-up),
# PRISM_BENCH_COMMIT (recorded in the JSON), PRISM_LARGE_TIMEOUT (seconds
# per client run, default 300), PRISM_LARGE_TCP_CPU (the TCP server's CPU),
# PRISM_LARGE_MTU (of the veth pair, default 1500; rxe uses up to 4096).
# PRISM_LARGE_SMOKE=1: tiny sizes and counts (PRISM_LARGE_SIZES default
# 4096, three frames at MTU 1500; depths 1 and 4, 8 ops), TAP on stdout:
# every cell of every stack gave a well-formed, nonzero result and the
# report and plot were made (make check runs this as the guest suite
# "bench").
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=rxe_net.sh
. "$bench_dir/rxe_net.sh"
B=$bench_dir/bench_large
SMOKE=${PRISM_LARGE_SMOKE:-0}
MTU=${PRISM_LARGE_MTU:-1500}
if [ "$SMOKE" = 1 ]; then
	SIZES=${PRISM_LARGE_SIZES:-4096}
	DEPTHS=${PRISM_LARGE_DEPTHS:-1 4}
	BYTES=${PRISM_LARGE_BYTES:-8192} NMIN=${PRISM_LARGE_NMIN:-8} NMAX=${PRISM_LARGE_NMAX:-8}
	TMO=${PRISM_LARGE_TIMEOUT:-90}
else
	SIZES=${PRISM_LARGE_SIZES:-4096 65536 1048576}
	DEPTHS=${PRISM_LARGE_DEPTHS:-1 16}
	BYTES=${PRISM_LARGE_BYTES:-33554432}
	NMIN=${PRISM_LARGE_NMIN:-32} NMAX=${PRISM_LARGE_NMAX:-2000}
	TMO=${PRISM_LARGE_TIMEOUT:-300}
fi
CPU_C=0
CPU_S=1
[ "$(nproc)" -ge 2 ] || CPU_S=0
# The TCP server shares the client's vCPU: PRISM's target and rxe's
# responder run in softirq/tasklets on the CPU that sent the packet
# (veth_xmit), i.e. also on the client's; a user-space server on another
# vCPU would add a cross-vCPU wake-up per op, which costs milliseconds
# under TCG on a busy host (seen: 6.6 ms for a 1 KiB request).
CPU_T=${PRISM_LARGE_TCP_CPU:-$CPU_C}
TCP_PORT=18800
port=18900

bench_begin bench-large "$SMOKE"
large_cleanup() {
	bench_cleanup
	rxe_pair_down
}
trap large_cleanup EXIT
need_binary "$B" tools/bench
need_binary "$bench_dir/rxe_lat" tools/bench
command -v ib_read_bw > /dev/null || fail "perftest is not installed"
bench_raw "${PRISM_OUT:-$repo/build/vm-out}"
load_module prism "$KO" || fail "insmod $KO failed"
rxe_pair_up || fail "the root-netns veth pair and rxe: see above"
ip link set va mtu "$MTU" && ip link set vb mtu "$MTU" || fail "MTU $MTU on va/vb"
bench_log "rxe0 (va) gid $G0, rxe1 (vb) gid $G1; sizes $SIZES, depths $DEPTHS, MTU $MTU"

maxsize=0 maxdepth=0
for s in $SIZES; do [ "$s" -gt $maxsize ] && maxsize=$s; done
for d in $DEPTHS; do [ "$d" -gt $maxdepth ] && maxdepth=$d; done
# perftest's latency samples are TSC cycles: converted with the rate on
# the client's CPU (rxe.sh explains why not with perftest's own)
MHZ=$(taskset -c $CPU_C "$bench_dir/rxe_lat" tsc-mhz | awk '{print $1}')
case $MHZ in ''|*[!0-9.]*) fail "could not measure the TSC rate" ;; esac

# A PRISM server of its own for every client run: a client that exits
# leaves the answers its last requests did not acknowledge in the
# target's reply cache until its session idles out (PRISM_SESSION_IDLE_MS,
# 120 s); after a READ cell of 16 x 1 MiB, the next such cell's client
# would find the socket's PRISM_RCACHE_BYTES (32 MiB) full and be NACKed
# (doc/LARGE-OPS.md, "Known limits").
prism_srv=''
prism_server() {
	if [ -n "$prism_srv" ]; then
		kill -KILL "$prism_srv" 2>/dev/null
		wait "$prism_srv" 2>/dev/null
	fi
	rm -f "$work/ps.info"
	bench_server "$work/ps.info" "$raw/prism-server.txt" \
		taskset -c $CPU_S "$B" prism-server vb 1 "$work/ps.info" $maxsize $maxdepth
	prism_srv=${bench_pids[-1]}
}
bench_server "$work/tcp.ready" "$raw/tcp-server.txt" \
	taskset -c "$CPU_T" "$B" tcp-server $RXE_IP_B $TCP_PORT "$work/tcp.ready" $maxsize

res=$work/results.txt
: > "$res"
failed=0

# ops SIZE DEPTH: measured ops and warm-up of a cell ("N W")
ops() {
	local n=$((BYTES / $1)) w
	[ $n -lt "$NMIN" ] && n=$NMIN
	[ $n -gt "$NMAX" ] && n=$NMAX
	[ $n -lt $((2 * $2)) ] && n=$((2 * $2))
	w=$((n / 10))
	[ $w -lt 2 ] && w=2
	[ $w -lt "$2" ] && w=$2
	echo "$n $w"
}

run_prism() {	# OP SIZE DEPTH N W [--outbuf]
	local f=$raw/prism${6:+-ob}-$1-$2-d$3.txt
	prism_server
	taskset -c $CPU_C timeout "$TMO" "$B" prism --if va --info "$work/ps.info" --op "$1" \
		--size "$2" --depth "$3" --n "$4" --warmup "$5" --maxsize $maxsize \
		--maxdepth $maxdepth ${6:+"$6"} > "$f" 2>&1 ||
		{ bench_note "PRISM${6:+ $6} $1 $2 depth $3" "$f"; failed=$((failed + 1)); }
	grep -E '^(RESULT|STATS) ' "$f" >> "$res"
}

run_prismob() {	# OP SIZE DEPTH N W: READs into output buffers
	run_prism "$@" --outbuf
}

run_tcp() {	# OP SIZE DEPTH N W
	local f=$raw/tcp-$1-$2-d$3.txt
	taskset -c $CPU_C timeout "$TMO" "$B" tcp --addr $RXE_IP_B --port $TCP_PORT --op "$1" \
		--size "$2" --depth "$3" --n "$4" --warmup "$5" > "$f" 2>&1 ||
		{ bench_note "TCP $1 $2 depth $3" "$f"; failed=$((failed + 1)); }
	grep '^RESULT ' "$f" >> "$res"
}

# bw_avg SIZE FILE: BW average (MiB/s) of a perftest bandwidth report: the
# line that starts with the size; empty unless a finite positive number
# (perftest prints inf when its clock calibration failed)
bw_avg() {
	awk -v s="$1" '$1 == s && NF >= 5 && $4 ~ /^[0-9.]+$/ && $4 + 0 > 0 { print $4; exit }' "$2"
}

run_rxe() {	# OP SIZE DEPTH N W
	local name=rxe-$1-$2-d$3 extra=()
	# no --perform_warm_up: with it, 1 KiB at -t 4 hung in the guest
	[ "$1" = read ] && extra=(-o "$3")
	if perftest_retry "$name" "bw_avg $2" "ib_$1_bw" -s "$2" -n "$4" -t "$3" "${extra[@]}"; then
		echo "PERFBW $1 $2 $3 $4 $perftest_value $raw/$name.txt" >> "$res"
	else
		failed=$((failed + 1))
	fi
}

run_rxe_lat() {	# OP SIZE N W
	local name=rxe-lat-$1-$2
	perftest_pair "$name" "ib_$1_lat" -C -U -s "$2" -n $(($3 + $4 + 1)) ||
		{ bench_note "ib_$1_lat $2" "$raw/$name.txt"; rxe_diag "$name"; failed=$((failed + 1)); }
	echo "PERFLAT $1 $2 $3 $4 $raw/$name.txt" >> "$res"
}

cell=0
t0=$(date +%s)
for size in $SIZES; do
	for op in read write; do
		for depth in $DEPTHS; do
			read -r n w <<< "$(ops "$size" "$depth")"
			bench_log "$op $size depth $depth: $n ops (+$w warm-up) per stack"
			if [ $op = read ]; then
				stacks=(prism prismob tcp rxe)
			else
				stacks=(prism tcp rxe)
			fi
			for j in "${!stacks[@]}"; do
				"run_${stacks[$(((cell + j) % ${#stacks[@]}))]}" $op "$size" \
					"$depth" "$n" "$w"
			done
			cell=$((cell + 1))
		done
		read -r n w <<< "$(ops "$size" 1)"
		run_rxe_lat $op "$size" "$n" "$w"
	done
	read -r n w <<< "$(ops "$size" 1)"
	taskset -c $CPU_C timeout "$TMO" "$B" tcp --addr $RXE_IP_B --port $TCP_PORT --op stream \
		--size "$size" --n "$n" --warmup "$w" > "$raw/tcp-stream-$size.txt" 2>&1 ||
		{ bench_note "TCP stream $size" "$raw/tcp-stream-$size.txt"; failed=$((failed + 1)); }
	grep '^RESULT ' "$raw/tcp-stream-$size.txt" >> "$res"
done
bench_log "measurements took $(($(date +%s) - t0)) s; $failed client runs failed"
cp "$res" "$raw/results.txt"

bench_report "$bench_dir/large_report.py" "$res" "$out" "$(uname -r)" "$MHZ" \
	"${PRISM_BENCH_COMMIT:-unknown}" "$SIZES" "$DEPTHS" \
	"ops per cell: $BYTES bytes / size, clamped to [$NMIN, $NMAX], at least 2 x depth; warm-up a tenth, at least 2 and depth"

# plot into the guest's tmpfs, then copy (rxe.sh once got an empty PNG)
bench_plot "$work/bench-large.png" \
	"PRISM vs rxe (perftest) vs TCP, READ and WRITE, depth d (veth, TCG guest, $(uname -r))" <<EOF
set key outside right top
set grid ytics
set logscale y
set xtics rotate by -45
set ylabel "MiB/s (log scale)"
plot "$out/bench-large.dat" using 2:xtic(1) title "PRISM", "" using 8 title "PRISM, output buffers", \
     "" using 3 title "rxe (ib_*_bw)", "" using 4 title "TCP"
set ylabel "latency, us (log scale)"
plot "$out/bench-large.dat" using 5:xtic(1) title "PRISM p50", "" using 9 title "PRISM, output buffers, p50", \
     "" using 6 title "rxe (ib_*_lat median at d1, Little's law at d>1)", "" using 7 title "TCP p50"
EOF
bench_finish '{json,csv,dat,md,png}'
