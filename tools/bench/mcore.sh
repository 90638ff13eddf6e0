#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Multi-core receive (issue 19, kmod/steer.c), run INSIDE a guest with 2
# CPUs as root, in one guest run: aggregate ops/s of READ 8 B from C
# clients (separate netns and processes, bench_large prism, depth 16 each)
# against one target (bench_large prism-server), hosts on one bridge
# (tools/lib/hosts.sh: mcb1 = target, mcb2.. = clients).  Modes, measured
# in rounds whose order rotates (drift of a loaded TCG host hits them
# alike):
#
#   pinned   RPS on the target's eth0 sends every frame to CPU 0 (a
#            single-queue NIC; our EtherType defeats RSS/RPS hashing
#            anyway), steer=0: all receive processing on CPU 0
#   steered  the same frames on CPU 0, steer=1: spread by session hash
#   steer1   steer=1 with steer_cpus=0: the steering path with one CPU
#            (its cost next to pinned)
#   native   no RPS, steer=0: veth hands a frame to the CPU of its sender
#            (what a single guest gives without a NIC; for context)
#
# Per run: total measured ops / wall time of the run (clients start
# together; warm-up and start-up count in the wall time, so this is a
# lower bound), the sum of the clients' own ops/s, latency (median of the
# clients' p50, worst p99), per-CPU busy and softirq share (/proc/stat),
# the clients' retransmissions and NACKs, the target's rx_dropped.
#
#   make bench-mcore                                    # on the host
#   PRISM_KO=kmod/prism.ko tools/bench/mcore.sh         # in the guest
#
# Environment: PRISM_KO (loaded unless prism is loaded), PRISM_OUT
# (default <repo>/build/vm-out: bench-mcore.{dat,json,md,png}),
# PRISM_MCORE_CLIENTS (default 4), PRISM_MCORE_N (measured READs per
# client and run, default 20000), PRISM_MCORE_WARMUP (default 100),
# PRISM_MCORE_ROUNDS (default 3), PRISM_MCORE_MODES (default "pinned
# steered steer1 native"), PRISM_BENCH_COMMIT (recorded).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
B=$here/bench_large
KO=${PRISM_KO:-$repo/kmod/prism.ko}
C=${PRISM_MCORE_CLIENTS:-4}
N=${PRISM_MCORE_N:-20000}
W=${PRISM_MCORE_WARMUP:-100}
R=${PRISM_MCORE_ROUNDS:-3}
read -ra MODES <<< "${PRISM_MCORE_MODES:-pinned steered steer1 native}"
D=16
out=${PRISM_OUT:-$repo/build/vm-out}
PAR=/sys/module/prism/parameters
RPS=/sys/class/net/eth0/queues/rx-0/rps_cpus
H=mcb

bench_begin bench-mcore
need_binary "$B" tools/bench
[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs (have $(nproc))"
load_module prism "$KO" || fail "insmod $KO failed"
[ -w $PAR/steer ] || fail "this prism module has no steer parameter"
mkdir -p "$out" || fail "cannot create $out"
bench_hosts $H $((C + 1)) || fail "hosts"

ip netns exec "${H}1" "$B" prism-server eth0 1 "$work/info" 8 $D > "$work/srv.log" 2>&1 &
bench_pids+=($!)
wait_file "$work/info" 30000 $! || { cat "$work/srv.log"; fail "server did not start"; }

set_mode() {
	local rps steer cpus
	case $1 in
	pinned)  rps=1 steer=0 cpus=all ;;
	steered) rps=1 steer=1 cpus=all ;;
	steer1)  rps=1 steer=1 cpus=0 ;;
	native)  rps=0 steer=0 cpus=all ;;
	*) fail "unknown mode $1" ;;
	esac
	host_exec $H 1 sh -c "echo $rps > $RPS" || fail "rps_cpus"
	echo $steer > $PAR/steer && echo $cpus > $PAR/steer_cpus || fail "steer"
}

# cpu_snap FILE: "cpuN idle softirq total" per CPU (USER_HZ ticks).
cpu_snap() {
	awk '/^cpu[0-9]/ { t = 0; for (i = 2; i <= NF; i++) t += $i
			   print $1, $5 + $6, $8, t }' /proc/stat > "$1"
}

# run MODE ROUND: one run of every client at once, a line in $dat.
run() {
	local mode=$1 i st=0 t0 t1 drop0 drops cp=()
	set_mode "$mode"
	cpu_snap "$work/cpu0"
	drop0=$(host_stat $H 1 rx_dropped)
	now_ms t0
	for i in $(seq 2 $((C + 1))); do
		host_exec $H "$i" "$B" prism --if eth0 --info "$work/info" \
			--op read --size 8 --depth $D --n "$N" --warmup "$W" \
			> "$work/c$i" 2>&1 &
		cp+=($!)
	done
	for i in "${cp[@]}"; do
		wait "$i" || st=1
	done
	now_ms t1
	cpu_snap "$work/cpu1"
	drops=$(($(host_stat $H 1 rx_dropped) - drop0))
	[ $st = 0 ] || { cat "$work"/c*; fail "$mode: a client failed"; }
	# mode round clients wall_ms ops_wall ops_sum p50 p99 retx nacks
	#   cpu0_busy cpu0_si cpu1_busy cpu1_si (percent of the run)
	#   rx_dropped (the target netns': malformed frames, full PRISM queues)
	cat "$work"/c* | awk -v m="$mode" -v r="$2" -v c="$C" -v n="$N" \
		-v ms=$((t1 - t0)) '
		$1 == "RESULT" { sum += $8; p50[k++] = $9; if ($10 > p99) p99 = $10 }
		$1 == "STATS" { for (i = 6; i <= NF; i++) { split($i, a, "=")
				if (a[1] == "retransmits") rx += a[2]
				if (a[1] == "nacks") nk += a[2] } }
		END { for (i = 1; i < k; i++)	# mawk: no asort
			for (j = i; j > 0 && p50[j - 1] > p50[j]; j--) {
				t = p50[j]; p50[j] = p50[j - 1]; p50[j - 1] = t }
		      med = k % 2 ? p50[(k - 1) / 2] : (p50[k / 2 - 1] + p50[k / 2]) / 2
		      printf "%s %d %d %d %.0f %.0f %.1f %.1f %d %d", m, r, c, ms,
			     c * n / (ms / 1000), sum, med, p99, rx, nk }' > "$work/row"
	paste "$work/cpu0" "$work/cpu1" | awk '$1 == "cpu0" || $1 == "cpu1" {
		t = $8 - $4; if (t <= 0) t = 1
		printf " %.0f %.0f", 100 * (t - ($6 - $2)) / t, 100 * ($7 - $3) / t }' >> "$work/row"
	echo " $drops" >> "$work/row"
	cat "$work/row" >> "$dat"
	echo "bench-mcore: $(cat "$work/row")"
}

dat=$out/bench-mcore.dat
echo "# mode round clients wall_ms ops_wall ops_sum p50_us p99_us retransmits nacks cpu0_busy cpu0_softirq cpu1_busy cpu1_softirq rx_dropped" > "$dat"
nm=${#MODES[@]}
for r in $(seq "$R"); do
	for j in $(seq 0 $((nm - 1))); do
		run "${MODES[$(((j + r - 1) % nm))]}" "$r"
	done
done

python3 "$here/mcore_report.py" "$dat" "$out" "$(uname -r)" \
	"${PRISM_BENCH_COMMIT:-unknown}" "$C" "$N" "$D" || fail "report failed"
bench_plot "$out/bench-mcore.png" \
	"PRISM READ 8 B, $C clients x depth $D, one target with 2 vCPUs (TCG guest, veth + bridge)" <<EOF
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel "ops/s (median of $R runs)"
plot "$out/bench-mcore-plot.dat" using 2:xtic(1) title "total ops / wall time", "" using 3 title "sum of the clients' ops/s"
set ylabel "CPU busy during the run (%)"
set yrange [0:100]
plot "$out/bench-mcore-plot.dat" using 4:xtic(1) title "CPU 0 busy", "" using 5 title "CPU 0 softirq", \
     "" using 6 title "CPU 1 busy", "" using 7 title "CPU 1 softirq"
EOF
echo "bench-mcore: results in $out/bench-mcore.{dat,json,md,png}"
