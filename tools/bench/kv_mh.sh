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
# PRISM-KV, then Pilaf, on eth0) and coordinates through $PRISM_MH_DIR: for
# point K it writes pt-K (the store and the bench arguments), every client
# process writes ready-K-G-P once set up, guest 0 then writes start-K, the
# clients write res-K-G-P and, when all of a guest's are done, done-K-G;
# guest 0 merges them (kv merge) and writes pt-(K+1), or "end".  Output
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
D=${PRISM_MH_DIR:?run me with tools/vm/multi.sh}
g=${PRISM_GUEST:?run me with tools/vm/multi.sh}
G=${PRISM_GUESTS:?run me with tools/vm/multi.sh}
RECORDS=${PRISM_KVMH_RECORDS:-1000000}
VALUE=${PRISM_KVMH_VALUE:-512}
PROCS=${PRISM_KVMH_PROCS:-2}
DEPTH=${PRISM_KVMH_DEPTH:-2}
SECS=${PRISM_KVMH_SECONDS:-10}
IV=${PRISM_KVMH_INTERVAL_MS:-250}
POINTS=${PRISM_KVMH_POINTS:-C:uniform C:zipf:0.99 B:zipf:0.99 A:uniform A:zipf:0.5 A:zipf:0.99}
STORES=${PRISM_KVMH_STORES:-prism pilaf}
WAIT=${PRISM_MH_WAIT_MS:-1200000}

# bench_begin, fail, load_module, bench_pids, wait_file, bench_plot
# shellcheck source=lib.sh
. "$here/lib.sh"
B=$repo/apps/kv/build
tap=0
[ "$g" = 0 ] && tap=1
bench_begin "kv-mh[$g]" "$tap"
# mark NAME TEXT: $D/NAME written atomically
mark() { printf '%s\n' "$2" > "$D/$1.tmp.$g" && mv -f "$D/$1.tmp.$g" "$D/$1"; }
[ "$G" -ge 2 ] || fail "needs 2 guests at least (multi.sh -n 3: a server, two client hosts)"
need_binary "$B/kv" apps/kv
need_binary "$B/kv-server" apps/kv
load_module prism "$KO" || fail "insmod $KO"

# ---- client guests: run the points guest 0 announces
if [ "$g" != 0 ]; then
	k=1
	while wait_file "$D/pt-$k" "$WAIT"; do
		read -r sys args < "$D/pt-$k"
		[ "$sys" = end ] && exit 0
		pids=()
		for p in $(seq "$PROCS"); do
			# shellcheck disable=SC2086
			"$B/kv" --if eth0 --info "$D/kv-$sys.info" bench $args \
				--seed $((k * 1000003 + g * 1009 + p)) \
				--ready "$D/ready-$k-$g-$p" --start "$D/start-$k" \
				--out "$D/res-$k-$g-$p" 2> "$work/err-$p" &
			pids+=($!)
		done
		st=
		for p in "${!pids[@]}"; do
			wait "${pids[p]}" || st="$st $((p + 1)):$(tail -n 1 "$work/err-$((p + 1))")"
		done
		mark "done-$k-$g" "${st:-ok}"
		k=$((k + 1))
	done
	fail "guest 0 announced no point $k in ${WAIT} ms"
fi

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
	cp "$work/$sys.info" "$D/kv-$sys.info.tmp" && mv -f "$D/kv-$sys.info.tmp" "$D/kv-$sys.info"
	for pt in $POINTS; do
		IFS=: read -r wl dist theta <<< "$pt"
		theta=${theta:-0.99}
		[ "$dist" = uniform ] && theta=0
		k=$((k + 1))
		rm -f "$D/start-$k"
		mark "pt-$k" "$sys --workload $wl --dist $dist --theta $theta --records $RECORDS --value $VALUE --seconds $SECS --depth $DEPTH --interval $IV"
		for c in $(seq 1 $((G - 1))); do
			for p in $(seq "$PROCS"); do
				wait_file -i 0.05 "$D/ready-$k-$c-$p" 120000 "$server" ||
					fail "$sys $pt: client $p of guest $c not ready ($(cat "$D/done-$k-$c" 2> /dev/null))"
			done
		done
		t0=$(cpu_ticks "$server")
		mark "start-$k" go
		for c in $(seq 1 $((G - 1))); do
			wait_file "$D/done-$k-$c" $((SECS * 1000 + 120000)) ||
				fail "$sys $pt: guest $c did not finish"
			read -r st < "$D/done-$k-$c"
			[ "$st" = ok ] || bench_log "$sys $pt: guest $c: client failed:$st"
		done
		t1=$(cpu_ticks "$server")
		m=$("$B/kv" merge "$D"/res-$k-*) || fail "$sys $pt: kv merge failed"
		cpu=$(awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }')
		line="{\"system\": \"$sys\", \"workload\": \"$wl\", \"dist\": \"$dist\", \"theta\": $theta, \"server_cpu_s\": $cpu, ${m#\{}"
		echo "$line" >> "$res"
		bench_log "$line"
	done
done
mark "pt-$((k + 1))" end
stop_server
cp "$res" "$out/bench-kv-mh.jsonl"
failed=0
bench_report "$here/kv_mh_report.py" "$res" "$out" "$work/timeline.dat" \
	"$((G - 1))" "$PROCS" "$DEPTH" "$RECORDS" "$VALUE" "$SECS" "$IV"
ncol=$(head -n 1 "$work/timeline.dat" | wc -w)
{
	cat << EOF
set terminal pngcairo size 1100,800 font ",10" noenhanced
set output "$work/bench-kv-mh.png"
set title "PRISM-KV vs Pilaf, $nclients client processes on $((G - 1)) hosts (depth $DEPTH each), $RECORDS x $VALUE B: throughput over time (TCG)"
set key outside right
set grid
set xlabel "seconds since the start"
set ylabel "ops/s (all clients)"
plot for [i=2:$ncol] "$work/timeline.dat" using 1:i with lines lw 2 title columnhead(i)
EOF
} | gnuplot || bench_log "gnuplot failed (results are in the JSON)"
# bench_finish: $out/$bench_name.png, one test per CHECK line
bench_name=bench-kv-mh
bench_finish json
