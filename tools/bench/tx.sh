#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# YCSB-T benchmark of PRISM-TX vs FaRM-style OCC, run INSIDE the guest as
# root: two shard servers and one client host (netns on a bridge); the C
# driver is apps/tx/build/tx_client (threads, one socket each; Zipf keys;
# read-modify-write of PRISM_TX_PER_TX keys per transaction).  For every
# skew point both protocols run back to back against the same servers.
#
#   PRISM_KO=kmod/prism.ko tools/bench/tx.sh
#
# Environment: PRISM_KO (loaded if the module is not loaded), PRISM_OUT
# (results: $PRISM_OUT/bench-tx.json and bench-tx.png, default
# build/bench), PRISM_TX_THETAS ("0 0.5 0.8 0.9 0.99"), PRISM_TX_MS (per
# point, 2000), PRISM_TX_THREADS (4), PRISM_TX_KEYS (1000),
# PRISM_TX_PER_TX (4).  Build first: make -C liburing-prism && make -C apps/tx.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/tools/lib/hosts.sh"
bin=$repo/apps/tx/build
KO=${PRISM_KO:-$repo/kmod/prism.ko}
out=${PRISM_OUT:-$repo/build/bench}
THETAS=${PRISM_TX_THETAS:-0 0.5 0.8 0.9 0.99}
MS=${PRISM_TX_MS:-2000}
THREADS=${PRISM_TX_THREADS:-4}
KEYS=${PRISM_TX_KEYS:-1000}
PER_TX=${PRISM_TX_PER_TX:-4}
P=txb
work=$(mktemp -d /tmp/txbench.XXXXXX)
loaded=0
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	hosts_down $P 3
	[ "$loaded" = 1 ] && rmmod prism 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$out" || exit 1
if [ ! -d /sys/module/prism ]; then
	insmod "$KO" || exit 1
	loaded=1
fi
hosts_down $P 3
hosts_up $P 3 || exit 1
infos=
for s in 0 1; do
	host_exec $P $((s + 1)) "$bin/tx_server" eth0 $s 2 "$KEYS" 0 "$work/shard$s" \
		>"$work/server$s.log" 2>&1 &
	pids+=($!)
	wait_file "$work/shard$s" 10000 || { echo "shard $s did not start" >&2; exit 1; }
	infos=${infos:+$infos,}$work/shard$s
done

kv() { sed -n "s/.*\\b$2=\\([0-9.]*\\).*/\\1/p" "$1" | head -n 1; }
json=$out/bench-tx.json
dat=$work/points.dat
printf '{\n  "bench": "ycsb-t",\n  "keys": %s, "keys_per_tx": %s, "threads": %s, "ms_per_point": %s, "shards": 2,\n  "points": [' \
	"$KEYS" "$PER_TX" "$THREADS" "$MS" >"$json"
sep=
printf '# theta prism_tput farm_tput prism_abort farm_abort prism_mean farm_mean prism_p99 farm_p99\n' >"$dat"
printf '%-6s %-6s %10s %8s %10s %10s\n' theta proto tput abort mean_us p99_us
for theta in $THETAS; do
	line="$theta"
	for proto in prism farm; do
		r=$work/$proto-$theta
		host_exec $P 3 "$bin/tx_client" -s "$infos" -p $proto -w ycsb \
			-r "$PER_TX" -z "$theta" -t "$THREADS" -d "$MS" -c 1 >"$r" 2>&1 ||
			{ echo "tx_client failed:" >&2; cat "$r" >&2; exit 1; }
		printf '%-6s %-6s %10s %8s %10s %10s\n' "$theta" $proto "$(kv "$r" tput)" \
			"$(kv "$r" abort_rate)" "$(kv "$r" lat_mean_us)" "$(kv "$r" lat_p99_us)"
		printf '%s\n    {"proto": "%s", "theta": %s, "commits": %s, "tput_tps": %s, "abort_rate": %s, "lat_mean_us": %s, "lat_p99_us": %s, "timeouts": %s}' \
			"$sep" $proto "$theta" "$(kv "$r" commits)" "$(kv "$r" tput)" \
			"$(kv "$r" abort_rate)" "$(kv "$r" lat_mean_us)" \
			"$(kv "$r" lat_p99_us)" "$(kv "$r" timeouts)" >>"$json"
		sep=,
	done
	p=$work/prism-$theta f=$work/farm-$theta
	echo "$theta $(kv "$p" tput) $(kv "$f" tput) $(kv "$p" abort_rate) $(kv "$f" abort_rate) $(kv "$p" lat_mean_us) $(kv "$f" lat_mean_us) $(kv "$p" lat_p99_us) $(kv "$f" lat_p99_us)" >>"$dat"
done
printf '\n  ]\n}\n' >>"$json"
echo "results: $json"

if command -v gnuplot >/dev/null; then
	# fontconfig wants a writable cache; the guest root is read-only.
	XDG_CACHE_HOME=$work gnuplot <<GP
set terminal pngcairo size 1500,450 noenhanced
set output "$out/bench-tx.png"
set multiplot layout 1,3 title "YCSB-T ($PER_TX-key RMW, $KEYS keys, 2 shards, $THREADS client threads, TCG guest)"
set xlabel "Zipf theta"
set key top left
set grid
set title "throughput (committed txn/s)"
plot "$dat" using 1:2 with linespoints title "PRISM-TX", "" using 1:3 with linespoints title "FaRM-style"
set title "abort rate (aborted attempts / attempts)"
plot "$dat" using 1:4 with linespoints title "PRISM-TX", "" using 1:5 with linespoints title "FaRM-style"
set title "latency (us, committed txn incl. retries)"
set logscale y
plot "$dat" using 1:6 with linespoints title "PRISM-TX mean", "" using 1:7 with linespoints title "FaRM mean", \
     "" using 1:8 with linespoints dt 2 title "PRISM-TX p99", "" using 1:9 with linespoints dt 2 title "FaRM p99"
unset multiplot
GP
	echo "plot: $out/bench-tx.png"
fi
