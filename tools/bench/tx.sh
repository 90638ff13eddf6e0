#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# YCSB-T benchmark of PRISM-TX vs FaRM-style OCC, run INSIDE the guest as
# root: two shard servers and one client host (netns on a bridge); the C
# driver is apps/tx/build/tx_client (threads, one socket each; Zipf keys;
# read-modify-write of PRISM_TX_PER_TX keys per transaction).  For every
# value size (the servers are restarted with it) and skew point both
# protocols run back to back against the same servers.
#
#   PRISM_KO=kmod/prism.ko tools/bench/tx.sh
#
# Environment: PRISM_KO (loaded if the module is not loaded), PRISM_OUT
# (results: $PRISM_OUT/bench-tx.json and bench-tx.png, default
# build/bench), PRISM_TX_THETAS ("0 0.5 0.8 0.9 0.99"), PRISM_TX_MS (per
# point, 2000), PRISM_TX_THREADS (4), PRISM_TX_KEYS (1000),
# PRISM_TX_PER_TX (4), PRISM_TX_VALUES (value sizes, "8 512 4096"; over
# about 1 KiB they need the module's large operations),
# PRISM_TX_CHAIN_BYTES (tx_client -b, default the library's),
# PRISM_TX_BIN (the tx_server and tx_client to run, default apps/tx/build;
# tools/bench/tx_ab.sh compares two builds), PRISM_TX_SHARDS (2; 1 puts
# every key in one target, as the scale runs do), PRISM_TX_INIT (every
# key's initial value, 0), PRISM_TX_CHECK=1 (before the points of each
# value size, each protocol runs the bank workload on keys
# 0..TX_MAX_KEYS_TX-1 of the fresh shards; the total balance and the
# serializability of its history are checked, and a failure fails the
# run: the checker on a sample of the keys).  The
# apps/tx guest suite runs a smoke of one point per protocol and value size.
# Build first: make -C liburing-prism && make -C apps/tx.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/tools/lib/hosts.sh"
bin=${PRISM_TX_BIN:-$repo/apps/tx/build}
KO=${PRISM_KO:-$repo/kmod/prism.ko}
out=${PRISM_OUT:-$repo/build/bench}
THETAS=${PRISM_TX_THETAS:-0 0.5 0.8 0.9 0.99}
MS=${PRISM_TX_MS:-2000}
THREADS=${PRISM_TX_THREADS:-4}
KEYS=${PRISM_TX_KEYS:-1000}
PER_TX=${PRISM_TX_PER_TX:-4}
VALUES=${PRISM_TX_VALUES:-8 512 4096}
CB=${PRISM_TX_CHAIN_BYTES:+-b $PRISM_TX_CHAIN_BYTES}
NSH=${PRISM_TX_SHARDS:-2}
INIT=${PRISM_TX_INIT:-0}
CHECK=${PRISM_TX_CHECK:-0}
CHECK_KEYS=32	# TX_MAX_KEYS_TX: a bank audit reads every account
CLIENT=$((NSH + 1))	# the client's host; shard s is on host s + 1
P=txb
work=$(mktemp -d /tmp/txbench.XXXXXX)
loaded=0
pids=()

stop_servers() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}

cleanup() {
	stop_servers
	hosts_down $P $CLIENT
	[ "$loaded" = 1 ] && rmmod prism 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$out" || exit 1
if [ ! -d /sys/module/prism ]; then
	insmod "$KO" || exit 1
	loaded=1
fi
hosts_down $P $CLIENT
hosts_up $P $CLIENT || exit 1

# start_servers VSIZE: NSH shards with values of VSIZE bytes; sets $infos
# and $per_key (each protocol's bytes per key, from shard 0).
start_servers() {
	local s
	infos=
	for s in $(seq 0 $((NSH - 1))); do
		rm -f "$work/shard$s"
		# Not through host_exec (a function): $! must be the server.
		ip netns exec "$P$((s + 1))" "$bin/tx_server" --value-size "$1" eth0 "$s" "$NSH" \
			"$KEYS" "$INIT" "$work/shard$s" >"$work/server$s.log" 2>&1 &
		pids+=($!)
		# millions of keys take minutes to lay out in TCG
		wait_file -i 0.2 "$work/shard$s" 1800000 "${pids[-1]}" ||
			{ cat "$work/server$s.log" >&2; echo "shard $s did not start" >&2; exit 1; }
		infos=${infos:+$infos,}$work/shard$s
	done
	grep -h '^tx_server: keys=' "$work/server0.log"
	per_key[prism]=$(kv "$work/server0.log" prism_per_key_B)
	per_key[farm]=$(kv "$work/server0.log" farm_per_key_B)
}
declare -A per_key

kv() { sed -n "s/.*\\b$2=\\([0-9.]*\\).*/\\1/p" "$1" | head -n 1; }

# check_sample VSIZE: the bank on keys 0..CHECK_KEYS-1 of the fresh shards,
# each protocol (their state is apart); exits 1 unless the total balance
# held, no audit saw another, and the history is serializable.
check_sample() {
	local proto n rc total=$((CHECK_KEYS * INIT))
	for proto in prism farm; do
		n=$work/check-$proto-$1
		host_exec $P "$CLIENT" "$bin/tx_client" -s "$infos" -p $proto -w bank \
			-k $CHECK_KEYS -I "$INIT" -t "$THREADS" -d "$MS" -c 500 $CB \
			-H "$n.hist" >"$n.client" 2>&1 &&
		host_exec $P "$CLIENT" "$bin/tx_client" -s "$infos" -p $proto -c 499 $CB \
			-k $CHECK_KEYS -D "$n.final" >"$n.dump" 2>&1 &&
		"$bin/tx_check" -i "$INIT" -t "$total" "$n.hist".* "$n.final" >"$n.check" 2>&1
		rc=$?
		echo "tx-check: $proto value=$1 keys=$CHECK_KEYS of $KEYS: $(kv "$n.client" commits) commits, audit_bad=$(kv "$n.client" audit_bad), $(head -n 1 "$n.check" 2>/dev/null)"
		if [ $rc != 0 ] || grep -q 'audit_bad=[1-9]' "$n.client" ||
			! grep -q 'pending=0 ' "$n.dump"; then
			cat "$n.client" "$n.dump" "$n.check" >&2
			echo "tx-check: $proto FAILED" >&2
			exit 1
		fi
	done
}
json=$out/bench-tx.json
printf '{\n  "bench": "ycsb-t",\n  "keys": %s, "keys_per_tx": %s, "threads": %s, "ms_per_point": %s, "shards": %s,\n  "points": [' \
	"$KEYS" "$PER_TX" "$THREADS" "$MS" "$NSH" >"$json"
sep=
printf '%-6s %-6s %-6s %10s %8s %10s %10s\n' value theta proto tput abort mean_us p99_us
for value in $VALUES; do
	start_servers "$value"
	[ "$CHECK" = 1 ] && check_sample "$value"
	dat=$work/points-$value.dat
	printf '# theta prism_tput farm_tput prism_abort farm_abort prism_mean farm_mean prism_p99 farm_p99\n' >"$dat"
	for theta in $THETAS; do
		for proto in prism farm; do
			r=$work/$proto-$value-$theta
			host_exec $P "$CLIENT" "$bin/tx_client" -s "$infos" -p $proto -w ycsb $CB \
				-r "$PER_TX" -z "$theta" -t "$THREADS" -d "$MS" -c 1 >"$r" 2>&1 ||
				{ echo "tx_client failed:" >&2; cat "$r" >&2; exit 1; }
			printf '%-6s %-6s %-6s %10s %8s %10s %10s\n' "$value" "$theta" $proto \
				"$(kv "$r" tput)" "$(kv "$r" abort_rate)" "$(kv "$r" lat_mean_us)" \
				"$(kv "$r" lat_p99_us)"
			printf '%s\n    {"proto": "%s", "value": %s, "theta": %s, "commits": %s, "tput_tps": %s, "abort_rate": %s, "lat_mean_us": %s, "lat_p99_us": %s, "timeouts": %s, "torn": %s, "bytes_per_key": %s}' \
				"$sep" $proto "$value" "$theta" "$(kv "$r" commits)" "$(kv "$r" tput)" \
				"$(kv "$r" abort_rate)" "$(kv "$r" lat_mean_us)" \
				"$(kv "$r" lat_p99_us)" "$(kv "$r" timeouts)" "$(kv "$r" torn)" \
				"${per_key[$proto]}" >>"$json"
			sep=,
		done
		p=$work/prism-$value-$theta f=$work/farm-$value-$theta
		echo "$theta $(kv "$p" tput) $(kv "$f" tput) $(kv "$p" abort_rate) $(kv "$f" abort_rate) $(kv "$p" lat_mean_us) $(kv "$f" lat_mean_us) $(kv "$p" lat_p99_us) $(kv "$f" lat_p99_us)" >>"$dat"
	done
	stop_servers
done
printf '\n  ]\n}\n' >>"$json"
echo "results: $json"

if command -v gnuplot >/dev/null; then
	# fontconfig wants a writable cache; the guest root is read-only.
	XDG_CACHE_HOME=$work gnuplot <<GP
set terminal pngcairo size 1500,450 noenhanced
set output "$out/bench-tx.png"
set multiplot layout 1,3 title "YCSB-T ($PER_TX-key RMW, $KEYS keys, values of $VALUES bytes, $NSH shards, $THREADS client threads, TCG guest)"
set xlabel "Zipf theta"
set key top left
set grid
VALUES = "$VALUES"
dat(v) = "$work/points-".v.".dat"
set title "throughput (committed txn/s)"
plot for [v in VALUES] dat(v) using 1:2 with linespoints title "PRISM-TX ".v." B", \
     for [v in VALUES] dat(v) using 1:3 with linespoints dt 2 title "FaRM-style ".v." B"
set title "abort rate (aborted attempts / attempts)"
plot for [v in VALUES] dat(v) using 1:4 with linespoints title "PRISM-TX ".v." B", \
     for [v in VALUES] dat(v) using 1:5 with linespoints dt 2 title "FaRM-style ".v." B"
set title "p99 latency (us, committed txn incl. retries)"
set logscale y
plot for [v in VALUES] dat(v) using 1:8 with linespoints title "PRISM-TX ".v." B", \
     for [v in VALUES] dat(v) using 1:9 with linespoints dt 2 title "FaRM ".v." B"
unset multiplot
GP
	echo "plot: $out/bench-tx.png"
fi
