#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-TX against the FaRM-style baseline with clients on several hosts:
# one shard server guest, N-1 client guests, each running PROCS tx_client
# processes of DEPTH threads (a PRISM socket and a client id each), all
# started at once (mh_lib.sh).  Run with tools/vm/multi.sh (make tx-mh):
#
#   make module && make -C apps/tx && make -C tools
#   PRISM_OUT=$PWD/build/tx-mh PRISM_KO=$PWD/kmod/prism.ko \
#       tools/vm/multi.sh -n 3 --mem0 2048 --timeout 3000 -- tools/bench/tx_mh.sh
#
# Guest 0 serves one shard of KEYS keys of VALUE bytes (tx_server holds
# both protocols' state) and coordinates.  First, per protocol, the bank
# on keys 0..31 from every client process at once, each thread's
# committed transactions written to the shared directory: guest 0 dumps
# the final state and tx_check must find the total kept and the history
# serializable.  Then YCSB-T (read-modify-write of 4 keys) at each Zipf
# parameter, each protocol: per point one merged result (result-merge:
# commits/s, latency from the merged histograms, aborts and the other
# counters, commits over time).  Output (guest 0): TAP on stdout and
# bench-tx-mh.json, .md and .png in $PRISM_OUT/tx-mh/.
#
# Env: PRISM_TXMH_KEYS (1000000), PRISM_TXMH_VALUE (512), PRISM_TXMH_PROCS
# (processes per client guest, 2), PRISM_TXMH_DEPTH (threads per process,
# 2), PRISM_TXMH_SECONDS (per point, 10), PRISM_TXMH_INTERVAL_MS (250),
# PRISM_TXMH_THETAS ("0 0.5 0.99"), PRISM_MH_WAIT_MS (1200000).
set -u

here=$(cd "$(dirname "$0")" && pwd)
KEYS=${PRISM_TXMH_KEYS:-1000000}
VALUE=${PRISM_TXMH_VALUE:-512}
PROCS=${PRISM_TXMH_PROCS:-2}
DEPTH=${PRISM_TXMH_DEPTH:-2}
SECS=${PRISM_TXMH_SECONDS:-10}
IV=${PRISM_TXMH_INTERVAL_MS:-250}
THETAS=${PRISM_TXMH_THETAS:-0 0.5 0.99}
INIT=1000
BANK_KEYS=32

# bench_begin, fail, load_module, bench_pids, wait_file
# shellcheck source=lib.sh
. "$here/lib.sh"
# mh_begin, mh_clients, mh_point, mh_end, mh_finish
# shellcheck source=mh_lib.sh
. "$here/mh_lib.sh"
mh_begin tx
B=$repo/apps/tx/build
MERGE=$repo/tools/lib/c/build/result-merge
need_binary "$B/tx_client" apps/tx
need_binary "$B/tx_server" apps/tx
need_binary "$MERGE" tools
load_module prism "$KO" || fail "insmod $KO"

# ---- client guests: run the points guest 0 announces
# run_client K P PROTO bank|ycsb ARGS...: one tx_client process; its
# threads' client ids are unique over every guest and process.
run_client() {
	local k=$1 p=$2 proto=$3 wl=$4 hist=()
	shift 4
	[ "$wl" = bank ] && hist=(-H "$D/hist-$k-$g-$p")
	exec "$B/tx_client" -i eth0 -s "$D/tx.info" -p "$proto" -w "$wl" "$@" \
		-t "$DEPTH" -c $((1 + ((g - 1) * PROCS + p - 1) * DEPTH)) \
		-o "$mh_res" -T "$IV" -y "$mh_ready" -g "$mh_start" "${hist[@]}"
}
[ "$g" != 0 ] && mh_clients run_client

# ---- guest 0: the shard server and the coordinator
out=${PRISM_OUT:-$work}/tx-mh
mkdir -p "$out"
res=$work/results.jsonl
: > "$res"
nclients=$(((G - 1) * PROCS))
bench_log "$((G - 1)) client hosts x $PROCS processes x $DEPTH threads, one shard of $KEYS keys of $VALUE B, ${SECS} s per point, timeline of ${IV} ms"
"$B/tx_server" --value-size "$VALUE" eth0 0 1 "$KEYS" "$INIT" "$work/tx.info" \
	> "$work/server.log" 2>&1 &
server=$!
bench_pids+=("$server")
wait_file -i 0.2 "$work/tx.info" 1800000 "$server" ||
	{ cat "$work/server.log"; fail "tx_server did not start"; }
grep -h '^tx_server: keys=' "$work/server.log" | sed 's/^/# /'
mh_mark tx.info "$(cat "$work/tx.info")"

# The bank on keys 0..31 from every client at once, then its checks.
k=0
bank_ok=()
for proto in prism farm; do
	k=$((k + 1))
	mh_point $k "$proto bank -k $BANK_KEYS -I $INIT -d $((SECS * 1000))" "$server"
	m=$("$MERGE" "${mh_res_files[@]}") || fail "$proto bank: result-merge failed"
	bench_log "$proto bank: $m"
	"$B/tx_client" -i eth0 -s "$work/tx.info" -p "$proto" -c 60000 -k $BANK_KEYS \
		-D "$work/final-$proto" > "$work/dump-$proto" 2>&1
	"$B/tx_check" -i $INIT -t $((BANK_KEYS * INIT)) "$D/hist-$k-"* "$work/final-$proto" \
		> "$work/check-$proto" 2>&1
	rc=$?
	bench_log "$proto bank: $(cat "$work/dump-$proto") $(head -n 1 "$work/check-$proto")"
	grep -q '"errors": 0,' <<< "$m" && grep -q '"audit_bad": 0,' <<< "$m" &&
		grep -q "sum=$((BANK_KEYS * INIT)) pending=0" "$work/dump-$proto" && [ $rc = 0 ]
	bank_ok+=("$? $proto bank from $nclients processes on $((G - 1)) hosts: total $((BANK_KEYS * INIT)) kept, no audit saw another, no write pending, serializable ($(grep -o '"ops": [0-9]*' <<< "$m" | cut -d' ' -f2) commits)")
done

for theta in $THETAS; do
	dist=zipf
	[ "$theta" = 0 ] && dist=uniform
	for proto in prism farm; do
		k=$((k + 1))
		t0=$(cpu_ticks "$server")
		mh_point $k "$proto ycsb -r 4 -z $theta -d $((SECS * 1000))" "$server"
		t1=$(cpu_ticks "$server")
		m=$("$MERGE" "${mh_res_files[@]}") || fail "$proto $theta: result-merge failed"
		cpu=$(awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }')
		line="{\"system\": \"$proto\", \"workload\": \"T\", \"dist\": \"$dist\", \"theta\": $theta, \"server_cpu_s\": $cpu, ${m#\{}"
		echo "$line" >> "$res"
		bench_log "$line"
	done
done
mh_end $((k + 1))
for b in "${bank_ok[@]}"; do
	tap_result "${b%% *}" "${b#* }"
done
mh_finish tx-mh "$res" "$KEYS" \
	"PRISM-TX vs FaRM, YCSB-T, $nclients client processes on $((G - 1)) hosts ($DEPTH threads each), $KEYS keys of $VALUE B: commits over time (TCG)"
