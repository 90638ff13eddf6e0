#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Throughput at depth (issue 19), run INSIDE the guest as root, in one
# guest run: READ 8 B and CAS 8 B with DEPTH ops in flight (1, 4, 16, 64,
# 256), one client, PRISM and rxe side by side (doc/DEPTH-BENCH.md):
#
#   PRISM  bench_large prism --op read|cas --size 8 --depth D: client on
#          va, server on vb (raw Ethernet); per depth its ops/s, P50/P99
#          latency (submit to completion), the client socket's counters
#          (retransmits, NACKs, cc_* once the module has them) and the
#          netns counters' change (the target's duplicates: requests it
#          saw again, i.e. spurious retransmissions when nothing is lost)
#   rxe    perftest ib_read_bw -s 8 / ib_atomic_bw -A CMP_AND_SWAP with
#          -t D and -o min(D, the device's max_qp_rd_atom), rxe0 (va) ->
#          rxe1 (vb): its message rate (MsgRate column); its latency only
#          by Little's law (D / rate)
#
# rxe works only in the initial netns on Debian's 6.1 kernel, so both
# veth ends stay there, with policy routing (rxe_net.sh, as large.sh).
# The cells run one after the other (op, depth), and inside a cell the two
# stacks in an order that alternates from cell to cell.  Clients are
# pinned to CPU 0, the servers (idle after setup) to CPU 1.
#
#   make bench-depth                   # on the host: builds, runs the guest
#   PRISM_KO=kmod/prism.ko tools/bench/depth.sh          # in the guest
#
# Environment: PRISM_KO (loaded unless prism is loaded), PRISM_OUT (default
# <repo>/build/vm-out: depth-bench.{json,csv,dat,md,png} and the raw
# outputs in depth-bench-raw/), PRISM_DEPTH_DEPTHS (default "1 4 16 64
# 256"), PRISM_DEPTH_RXE_DEPTHS (those of them where rxe runs too, default
# all; a perftest run costs 10 to 20 s of setup in TCG), PRISM_DEPTH_N (measured ops per cell and stack, default 10000;
# a tenth, at least 2 x DEPTH, runs first as PRISM's warm-up),
# PRISM_BENCH_COMMIT (recorded), PRISM_DEPTH_TIMEOUT (seconds per client
# run, default 300).  PRISM_DEPTH_SMOKE=1: depths 1 and 16, 300 ops, TAP
# on stdout: every client run exited 0 with a well-formed nonzero result,
# no PRISM chain failed or timed out, the report and plot were made (make
# check runs this as the guest suite "bench-depth"; rxe only at depth 16,
# about 45 s).
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=rxe_net.sh
. "$bench_dir/rxe_net.sh"
B=$bench_dir/bench_large
SMOKE=${PRISM_DEPTH_SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
	DEPTHS=${PRISM_DEPTH_DEPTHS:-1 16}
	RXE_DEPTHS=${PRISM_DEPTH_RXE_DEPTHS:-16}
	N=${PRISM_DEPTH_N:-300}
	TMO=${PRISM_DEPTH_TIMEOUT:-90}
else
	DEPTHS=${PRISM_DEPTH_DEPTHS:-1 4 16 64 256}
	RXE_DEPTHS=${PRISM_DEPTH_RXE_DEPTHS:-$DEPTHS}
	N=${PRISM_DEPTH_N:-10000}
	TMO=${PRISM_DEPTH_TIMEOUT:-300}
fi
SIZE=8
OPS="read cas"
CPU_C=0
CPU_S=1
[ "$(nproc)" -ge 2 ] || CPU_S=0
port=18950

bench_begin depth-bench "$SMOKE"
depth_cleanup() {
	bench_cleanup
	rxe_pair_down
}
trap depth_cleanup EXIT
need_binary "$B" tools/bench
command -v ib_read_bw > /dev/null || fail "perftest is not installed"
bench_raw "${PRISM_OUT:-$repo/build/vm-out}"
load_module prism "$KO" || fail "insmod $KO failed"
rxe_pair_up || fail "the root-netns veth pair and rxe: see above"
maxdepth=0
for d in $DEPTHS; do [ "$d" -gt $maxdepth ] && maxdepth=$d; done
# perftest refuses -o beyond the device's limit (rxe: 128)
MAXRD=$(ibv_devinfo -v -d rxe0 | awk '$1 == "max_qp_rd_atom:" { print $2; exit }')
case $MAXRD in ''|*[!0-9]*) fail "no max_qp_rd_atom in ibv_devinfo -v -d rxe0" ;; esac
cc=absent
[ -r /sys/module/prism/parameters/cc ] && cc=$(cat /sys/module/prism/parameters/cc)
bench_log "rxe0 (va) gid $G0, rxe1 (vb) gid $G1, max_qp_rd_atom $MAXRD; depths $DEPTHS, $N ops per cell; module parameter cc: $cc"

bench_server "$work/ps.info" "$raw/prism-server.txt" \
	taskset -c $CPU_S "$B" prism-server vb 1 "$work/ps.info" $SIZE "$maxdepth"

res=$work/results.txt
: > "$res"
failed=0

run_prism() {	# OP DEPTH
	local f=$raw/prism-$1-d$2.txt w=$((N / 10))
	[ $w -lt $((2 * $2)) ] && w=$((2 * $2))
	prism_counters > "$work/c0"
	taskset -c $CPU_C timeout "$TMO" "$B" prism --if va --info "$work/ps.info" --op "$1" \
		--size $SIZE --depth "$2" --n "$N" --warmup $w --maxsize $SIZE \
		--maxdepth "$maxdepth" > "$f" 2>&1 ||
		{ bench_note "PRISM $1 depth $2" "$f"; failed=$((failed + 1)); }
	prism_counters > "$work/c1"
	grep -E '^(RESULT|STATS) ' "$f" >> "$res"
	echo "NETNS prism $1 $SIZE $2 $(counter_deltas "$work/c0" "$work/c1")" >> "$res"
}

# msg_rate FILE: the MsgRate column (Mpps) of a perftest bandwidth report,
# in ops/s: empty unless a finite positive number
msg_rate() {
	awk -v s=$SIZE '$1 == s && NF >= 5 && $5 ~ /^[0-9.]+$/ && $5 + 0 > 0 { printf "%.1f\n", $5 * 1e6; exit }' "$1"
}

run_rxe() {	# OP DEPTH
	local name=rxe-$1-d$2 o=$2 args
	case " $RXE_DEPTHS " in *" $2 "*) ;; *) return 0 ;; esac
	[ "$o" -gt "$MAXRD" ] && o=$MAXRD
	if [ "$1" = read ]; then
		args=(ib_read_bw -s "$SIZE")
	else
		args=(ib_atomic_bw -A CMP_AND_SWAP)
	fi
	if perftest_retry "$name" msg_rate "${args[@]}" -n "$N" -t "$2" -o "$o"; then
		echo "PERFRATE $1 $SIZE $2 $N $perftest_value $o" >> "$res"
	else
		failed=$((failed + 1))
	fi
}

stacks=(prism rxe)
cell=0
t0=$(date +%s)
for op in $OPS; do
	for depth in $DEPTHS; do
		bench_log "$op $SIZE depth $depth: $N ops per stack"
		for j in 0 1; do
			"run_${stacks[$(((cell + j) % 2))]}" $op "$depth"
		done
		cell=$((cell + 1))
	done
done
bench_log "measurements took $(($(date +%s) - t0)) s; $failed client runs failed"
cp "$res" "$raw/results.txt"

bench_report "$bench_dir/depth_report.py" depth "$res" "$out" "$(uname -r)" \
	"${PRISM_BENCH_COMMIT:-unknown}" "$DEPTHS" "$RXE_DEPTHS" "$cc" \
	"$N ops per cell and stack; PRISM warm-up a tenth, at least 2 x depth; rxe -o min(depth, $MAXRD)"

# plot into the guest's tmpfs, then copy (rxe.sh once got an empty PNG)
bench_plot "$work/depth-bench.png" \
	"READ 8 B and CAS 8 B at depth: PRISM vs rxe (perftest), one client (veth, TCG guest, $(uname -r))" <<EOF
set key outside right top
set grid
set logscale x 2
set xlabel "ops in flight (depth)"
set ylabel "ops/s"
set yrange [0:*]
plot "$out/depth-bench.dat" using 1:2 with linespoints title "PRISM READ 8", \
     "" using 1:3 with linespoints title "rxe ib_read_bw -s 8", \
     "" using 1:4 with linespoints title "PRISM CAS", \
     "" using 1:5 with linespoints title "rxe ib_atomic_bw CAS"
set yrange [*:*]
set logscale y
set ylabel "latency, us (log scale)"
plot "$out/depth-bench.dat" using 1:6 with linespoints title "PRISM READ 8 P50", \
     "" using 1:7 with linespoints title "PRISM READ 8 P99", \
     "" using 1:8 with linespoints title "PRISM CAS P50", \
     "" using 1:9 with linespoints title "PRISM CAS P99", \
     "" using 1:10 with linespoints title "rxe READ 8 (mean, Little's law)", \
     "" using 1:11 with linespoints title "rxe CAS (mean, Little's law)"
EOF
bench_finish '{json,csv,dat,md,png}'
