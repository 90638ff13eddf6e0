#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Receive-side scaling of PRISM over UDP (issue 20): a target guest whose
# virtio-net NIC has 2 queue pairs, clients in another guest, joined by a
# host bridge of multi-queue taps (tools/vm/multi.sh --queues 2).  Nothing
# PRISM-specific is configured: the host's tap picks a receive queue by a
# hash of each flow's addresses and UDP ports, the guest's virtio-net
# serves each queue on its own CPU, and PRISM gives each client session
# its own UDP source port.  Raw Ethernet frames (EtherType 0x88B5) have
# nothing to hash, so they all land on one queue: the contrast.
#
#   make bench-rss          # = the command below, results in build/vm-out
#   PRISM_KO=$PWD/kmod/prism.ko tools/vm/multi.sh -n 2 --queues 2 \
#       --smp 2 --timeout 1500 -- tools/bench/rss_mh.sh
#
# Guest 1 is the target: two bench_large servers (UDP on 10.82.0.2, ep 1;
# raw Ethernet on eth0, ep 2).  Guest 0 runs, in rounds whose order
# rotates, every mode with C clients (bench_large prism, separate
# processes, READ 8 B, depth D each) started together:
#
#   udp-q1     UDP, the target's NIC set to 1 queue pair (ethtool -L)
#   udp-q2     UDP, 2 queue pairs
#   raw-q2     raw Ethernet, 2 queue pairs (all on one: nothing to hash)
#   raw-steer  raw Ethernet, 2 queue pairs, the module's own spreading of
#              sessions over CPUs (steer=1, kmod/steer.c; issue 19)
#
# The modes other than raw-steer run with steer=0 (the default).
# Per run: total ops / wall time, the sum of the clients' rates, latency,
# the packets each receive queue of the target got (ethtool -S), each
# target CPU's busy and softirq share (/proc/stat).  Checks: in udp-q2
# every queue got at least 10% of the packets (sessions spread); in
# udp-q1 and raw-q2 one queue got them all.  (With raw-steer the tap
# follows the queues the target answers from, which steering spreads:
# its queue shares say nothing about the frames' hash.)
#
# Env: PRISM_RSS_CLIENTS (8), PRISM_RSS_DEPTH (8), PRISM_RSS_N (measured
# READs per client and run, 5000), PRISM_RSS_ROUNDS (3), PRISM_RSS_MODES
# ("udp-q1 udp-q2 raw-q2 raw-steer"), PRISM_BENCH_COMMIT (recorded),
# PRISM_MH_WAIT_MS (1200000).
set -u

here=$(cd "$(dirname "$0")" && pwd)
# bench_begin, fail, load_module, bench_pids, wait_file, now_ms
# shellcheck source=lib.sh
. "$here/lib.sh"
B=$here/bench_large
D=${PRISM_MH_DIR:?run me with tools/vm/multi.sh}
g=${PRISM_GUEST:?run me with tools/vm/multi.sh}
C=${PRISM_RSS_CLIENTS:-8}
DEPTH=${PRISM_RSS_DEPTH:-8}
N=${PRISM_RSS_N:-5000}
R=${PRISM_RSS_ROUNDS:-3}
read -ra MODES <<< "${PRISM_RSS_MODES:-udp-q1 udp-q2 raw-q2 raw-steer}"
WAIT=${PRISM_MH_WAIT_MS:-1200000}
ip4=10.82.0.$((g + 1))

bench_begin "rss-mh[$g]"
out=${PRISM_OUT:-$repo/build/vm-out}
# mh_mark NAME TEXT: $D/NAME written atomically
# shellcheck source=mh_lib.sh
. "$here/mh_lib.sh"
# give_up MSG: tell the other guest, then fail
give_up() { mh_mark "ready-$g" "fail $*"; mh_mark finish "fail"; fail "$@"; }

need_binary "$B" tools/bench
command -v ethtool > /dev/null || give_up "ethtool is missing (tools/install-deps.sh)"
load_module prism "$KO" || give_up "insmod $KO"
ip addr add "$ip4/24" dev eth0 || give_up "address on eth0"

# snap FILE: rx packets per queue (one line), then "cpuN busy softirq total".
snap() {
	{
		ethtool -S eth0 | awk '/rx_queue_[0-9]+_packets/ { printf "%s ", $2 } END { print "" }'
		awk '/^cpu[0-9]/ { t = 0; for (i = 2; i <= NF; i++) t += $i
				   print $1, t - $5 - $6, $8, t }' /proc/stat
	} > "$1"
}

if [ "$g" = 1 ]; then
	max=$(ethtool -l eth0 | awk '/^Pre-set/ { p = 1 } p && /^Combined/ { print $2; exit }')
	[ "${max:-1}" -ge 2 ] || give_up "eth0 has ${max:-1} queue pair(s): run with multi.sh --queues 2"
	"$B" prism-server udp:$ip4 1 "$work/udp.info" 8 "$DEPTH" > "$work/udp.log" 2>&1 &
	bench_pids+=($!)
	"$B" prism-server eth0 2 "$work/raw.info" 8 "$DEPTH" > "$work/raw.log" 2>&1 &
	bench_pids+=($!)
	wait_file "$work/udp.info" 30000 || give_up "UDP server did not start: $(tail -2 "$work/udp.log")"
	wait_file "$work/raw.info" 30000 || give_up "raw server did not start: $(tail -2 "$work/raw.log")"
	cp "$work/udp.info" "$D/udp.info" && cp "$work/raw.info" "$D/raw.info" ||
		give_up "cannot copy the info files"
	mh_mark ready-1 "ok $(nproc) CPUs, $max queue pairs"
	# Serve the client's requests: mode-K = "QUEUE_PAIRS STEER";
	# snapshots around each run.
	k=1
	while :; do
		wait_file "$D/mode-$k" "$WAIT" || give_up "no request $k"
		read -r q steer < "$D/mode-$k"
		[ "$q" = finish ] && exit 0
		ethtool -L eth0 combined "$q" || give_up "ethtool -L eth0 combined $q"
		echo "$steer" > /sys/module/prism/parameters/steer ||
			give_up "steer=$steer"
		snap "$D/snap-$k-a"
		mh_mark "ack-$k" ok
		wait_file "$D/done-$k" "$WAIT" || give_up "run $k never ended"
		snap "$D/snap-$k-b"
		mh_mark "snapped-$k" ok
		k=$((k + 1))
	done
fi

wait_file "$D/ready-1" "$WAIT" || fail "the target guest never got ready"
read -r st rest < "$D/ready-1"
[ "$st" = ok ] || fail "target: $st $rest"
bench_log "target: $rest; client guest: $(nproc) CPUs; $C clients x depth $DEPTH, READ 8 B, $N each"
mkdir -p "$out" || fail "cannot create $out"
dat=$out/bench-rss.dat
echo "# mode round clients wall_ms ops_wall ops_sum p50_us p99_us retransmits rxq0 rxq1 cpu0_busy cpu0_softirq cpu1_busy cpu1_softirq" > "$dat"

k=0
# run MODE ROUND: one run of all clients at once, a line in $dat.
run() {
	local mode=$1 link=${1%%-*} q=2 steer=0 i st=0 t0 t1 cp=() info ifs
	case $mode in
	*-q1) q=1 ;;
	*-steer) steer=1 ;;
	esac
	k=$((k + 1))
	mh_mark "mode-$k" "$q $steer"
	wait_file "$D/ack-$k" "$WAIT" || fail "target did not set $q queue pairs"
	if [ "$link" = udp ]; then info=$D/udp.info ifs=udp:$ip4; else info=$D/raw.info ifs=eth0; fi
	now_ms t0
	for i in $(seq "$C"); do
		"$B" prism --if "$ifs" --info "$info" --op read --size 8 \
			--depth "$DEPTH" --n "$N" --warmup 50 > "$work/c$i" 2>&1 &
		cp+=($!)
	done
	for i in "${cp[@]}"; do
		wait "$i" || st=1
	done
	now_ms t1
	mh_mark "done-$k" ok
	wait_file "$D/snapped-$k" "$WAIT" || fail "target did not take its snapshot"
	[ $st = 0 ] || { cat "$work"/c*; fail "$mode: a client failed"; }
	cat "$work"/c* | awk -v m="$mode" -v r="$2" -v c="$C" -v n="$N" \
		-v ms=$((t1 - t0)) '
		$1 == "RESULT" { sum += $8; p50[k++] = $9; if ($10 > p99) p99 = $10 }
		$1 == "STATS" { for (i = 6; i <= NF; i++) { split($i, a, "=")
				if (a[1] == "retransmits") rx += a[2] } }
		END { for (i = 1; i < k; i++)
			for (j = i; j > 0 && p50[j - 1] > p50[j]; j--) {
				t = p50[j]; p50[j] = p50[j - 1]; p50[j - 1] = t }
		      med = k % 2 ? p50[(k - 1) / 2] : (p50[k / 2 - 1] + p50[k / 2]) / 2
		      printf "%s %d %d %d %.0f %.0f %.1f %.1f %d", m, r, c, ms,
			     c * n / (ms / 1000), sum, med, p99, rx }' > "$work/row"
	# Packets per receive queue, then CPU shares, from the two snapshots.
	awk 'FNR == 1 { for (i = 1; i <= NF; i++) q[FILENAME, i] = $i; nq = NF; next }
	     { b[FILENAME, $1] = $2; s[FILENAME, $1] = $3; t[FILENAME, $1] = $4; cpus[$1] = 1 }
	     END { a = ARGV[1]; z = ARGV[2]
		   for (i = 1; i <= 2; i++) printf " %d", i <= nq ? q[z, i] - q[a, i] : 0
		   for (c = 0; ("cpu" c) in cpus && c < 2; c++) {
			n = "cpu" c; tt = t[z, n] - t[a, n]; if (tt <= 0) tt = 1
			printf " %.0f %.0f", 100 * (b[z, n] - b[a, n]) / tt, 100 * (s[z, n] - s[a, n]) / tt }
		   print "" }' "$D/snap-$k-a" "$D/snap-$k-b" >> "$work/row"
	tr -d '\n' < "$work/row" | sed 's/  */ /g' >> "$dat"
	echo >> "$dat"
	bench_log "$(tail -n 1 "$dat")"
}

nm=${#MODES[@]}
for r in $(seq "$R"); do
	for j in $(seq 0 $((nm - 1))); do
		run "${MODES[$(((j + r - 1) % nm))]}" "$r"
	done
done
mh_mark "mode-$((k + 1))" finish

python3 "$here/rss_report.py" "$dat" "$out" "$(uname -r)" \
	"${PRISM_BENCH_COMMIT:-unknown}" "$C" "$N" "$DEPTH" > "$work/report.txt" ||
	{ cat "$work/report.txt"; fail "rss_report.py failed"; }
cat "$work/report.txt"
bench_plot "$out/bench-rss.png" \
	"PRISM READ 8 B, $C clients x depth $DEPTH in one guest, target guest with 2 vCPUs, virtio-net multi-queue (TCG)" <<EOF
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel "ops/s (median of $R runs)"
plot "$out/bench-rss-plot.dat" using 2:xtic(1) title "total ops / wall time", "" using 3 title "sum of the clients' ops/s"
set ylabel "share of the target's received packets (%)"
set yrange [0:100]
plot "$out/bench-rss-plot.dat" using 4:xtic(1) title "rx queue 0", "" using 5 title "rx queue 1"
EOF
! grep -q '^CHECK 1' "$work/report.txt"
