#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-KV against Pilaf with clients on several hosts: one server guest,
# N-1 client guests, each client guest running PROCS kv bench processes
# of DEPTH closed loops each (a thread and a PRISM socket per loop), all
# started at once; per point one merged result (throughput, latency from
# the merged histograms, throughput over time).  Run with tools/vm/multi.sh
# (make kv-mh):
#
#   make module && make -C apps/kv
#   PRISM_OUT=$PWD/build/kv-mh PRISM_KO=$PWD/kmod/prism.ko \
#       tools/vm/multi.sh -n 3 --mem0 2048 --timeout 3000 -- tools/bench/kv_mh.sh
#
# Guest 0 serves (kv-server --preload RECORDS records of VALUE bytes, first
# PRISM-KV, then Pilaf, on eth0) and coordinates through $PRISM_MH_DIR
# (mh_lib.sh: a point file, every client process's ready file, one start
# file, result and done files); it merges each point's results (kv
# merge).  Output
# (guest 0): TAP on stdout (TAP=1 style: every point served with no failed
# operation and no wrong read, every client ran, no interval of the
# timeline without an operation, the plot), and in $PRISM_OUT/kv-mh/:
# bench-kv-mh.json, .md and .png (throughput over time per point).
#
# Env: PRISM_KVMH_RECORDS (1000000), PRISM_KVMH_VALUE (512),
# PRISM_KVMH_PROCS (processes per client guest, 2), PRISM_KVMH_DEPTH (closed
# loops per process, 2), PRISM_KVMH_SECONDS (per point, 10),
# PRISM_KVMH_INTERVAL_MS (of the timeline, 250), PRISM_KVMH_POINTS
# (WORKLOAD:DIST[:THETA] ..., default "C:uniform C:zipf:0.99 B:zipf:0.99
# A:uniform A:zipf:0.5 A:zipf:0.99"), PRISM_KVMH_STORES ("prism pilaf"),
# PRISM_MH_WAIT_MS (how long anyone waits for the others, 1200000).
set -u

here=$(cd "$(dirname "$0")" && pwd)
RECORDS=${PRISM_KVMH_RECORDS:-1000000}
VALUE=${PRISM_KVMH_VALUE:-512}
PROCS=${PRISM_KVMH_PROCS:-2}
DEPTH=${PRISM_KVMH_DEPTH:-2}
SECS=${PRISM_KVMH_SECONDS:-10}
IV=${PRISM_KVMH_INTERVAL_MS:-250}
POINTS=${PRISM_KVMH_POINTS:-C:uniform C:zipf:0.99 B:zipf:0.99 A:uniform A:zipf:0.5 A:zipf:0.99}
STORES=${PRISM_KVMH_STORES:-prism pilaf}

# bench_begin, fail, load_module, bench_pids, wait_file, bench_finish
# shellcheck source=lib.sh
. "$here/lib.sh"
# mh_begin, mh_clients, mh_point, mh_end, mh_finish
# shellcheck source=mh_lib.sh
. "$here/mh_lib.sh"
mh_begin kv
B=$repo/apps/kv/build
need_binary "$B/kv" apps/kv
need_binary "$B/kv-server" apps/kv
load_module prism "$KO" || fail "insmod $KO"

# ---- client guests: run the points guest 0 announces
# run_client K P STORE ARGS...: one kv bench process
run_client() {
	local k=$1 p=$2 sys=$3
	shift 3
	exec "$B/kv" --if eth0 --info "$D/kv-$sys.info" bench "$@" \
		--seed $((k * 1000003 + g * 1009 + p)) \
		--ready "$mh_ready" --start "$mh_start" --out "$mh_res"
}
[ "$g" != 0 ] && mh_clients run_client

# ---- guest 0: the server and the coordinator
out=${PRISM_OUT:-$work}/kv-mh
mkdir -p "$out"
res=$work/results.jsonl
: > "$res"
nclients=$(((G - 1) * PROCS))
bench_log "$((G - 1)) client hosts x $PROCS processes x depth $DEPTH, $RECORDS records of $VALUE B, ${SECS} s per point, timeline of ${IV} ms"
server=
stop_server() {
	[ -n "$server" ] || return 0
	kill -TERM "$server" 2> /dev/null
	wait "$server" 2> /dev/null
	server=
}
k=0
for sys in $STORES; do
	stop_server
	rm -f "$D/kv-$sys.info"
	"$B/kv-server" --if eth0 --ep 200 --mode "$sys" --info "$work/$sys.info" \
		--preload "$RECORDS" --value "$VALUE" > "$work/$sys.log" 2>&1 &
	server=$!
	bench_pids+=("$server")
	wait_file -i 0.2 "$work/$sys.info" 1800000 "$server" ||
		{ cat "$work/$sys.log"; fail "$sys server did not start"; }
	grep preloaded "$work/$sys.log" | sed 's/^/# /'
	mh_mark "kv-$sys.info" "$(cat "$work/$sys.info")"
	for pt in $POINTS; do
		IFS=: read -r wl dist theta <<< "$pt"
		theta=${theta:-0.99}
		[ "$dist" = uniform ] && theta=0
		k=$((k + 1))
		t0=$(cpu_ticks "$server")
		mh_point $k "$sys --workload $wl --dist $dist --theta $theta --records $RECORDS --value $VALUE --seconds $SECS --depth $DEPTH --interval $IV" "$server"
		t1=$(cpu_ticks "$server")
		m=$("$B/kv" merge "${mh_res_files[@]}") || fail "$sys $pt: kv merge failed"
		cpu=$(awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }')
		line="{\"system\": \"$sys\", \"workload\": \"$wl\", \"dist\": \"$dist\", \"theta\": $theta, \"server_cpu_s\": $cpu, ${m#\{}"
		echo "$line" >> "$res"
		bench_log "$line"
	done
done
mh_end $((k + 1))
stop_server
mh_finish kv-mh "$res" "$RECORDS" \
	"PRISM-KV vs Pilaf, $nclients client processes on $((G - 1)) hosts (depth $DEPTH each), $RECORDS x $VALUE B: throughput over time (TCG)"
