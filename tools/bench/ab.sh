#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A/B benchmark of two builds of the module, run INSIDE the guest as root:
# each run is one tools/bench/uring.sh (insmod, two netns joined by a veth
# pair, PRISM server, bench_uring client, teardown, rmmod) with PRISM_KO
# set to A or B.  R rounds, each runs A and B, in alternating order
# (A B, B A, A B, ...: for R=4 the runs are A B B A A B B A) so that drift
# of a loaded TCG guest hits both alike.  Metrics per run, medians over
# the rounds per build, and B/A:
#
#   read512 / cas8 sync_d1   mean, p50, p99 latency of prism_execute()
#                            (the blocking path, depth 1)
#   read512 / cas8 sync_d64  ops/s with 64 chains in flight (blocking path)
#   read512 / cas8 ring_d64  ops/s with 64 chains in flight (io_uring)
#
# bench_uring has one READ size (512 bytes) and an 8-byte CAS.  ops/s is
# the median of bench_uring's segments' ops/s (ops_per_s_segment_median,
# robust against host stalls); the JSON also has ops_per_s.
#
#   make -C tools/bench                                    # on the host
#   PRISM_OUT=/tmp/out tools/vm/run.sh --timeout 1800 -- tools/bench/ab.sh A.ko B.ko
#
# Environment: PRISM_AB_ROUNDS (default 4), PRISM_AB_RETRY (failed runs
# repeated, in all, default 2), PRISM_AB_LABEL_A and
# PRISM_AB_LABEL_B (default: the .ko basenames), PRISM_BENCH_N,
# PRISM_BENCH_WARMUP, PRISM_BENCH_ROUNDS, PRISM_URING_LINK (passed to
# uring.sh: chains per mode and op, warm-up, bench_uring's own rounds, the
# link: eth, udp4 or udp6), PRISM_OUT (default
# <repo>/build/vm-out): $PRISM_OUT/ab.json (per-run values, medians,
# ratios), ab.txt (the table), ab.png (gnuplot: B/A per metric), and
# ab-runs/NN-LABEL/ (each run's uring.sh output and JSON).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -eq 2 ] || { echo "usage: ab.sh A.ko B.ko" >&2; exit 2; }
KO_A=$(readlink -f "$1") KO_B=$(readlink -f "$2")
LA=${PRISM_AB_LABEL_A:-$(basename "$KO_A" .ko)}
LB=${PRISM_AB_LABEL_B:-$(basename "$KO_B" .ko)}
R=${PRISM_AB_ROUNDS:-4}
RETRY=${PRISM_AB_RETRY:-2}
failed=0
out=${PRISM_OUT:-$repo/build/vm-out}

bench_begin bench-ab
[ -r "$KO_A" ] || fail "cannot read $1"
[ -r "$KO_B" ] || fail "cannot read $2"
[ "$LA" != "$LB" ] || fail "labels are equal ($LA): set PRISM_AB_LABEL_A/B"
need_binary "$here/bench_uring" tools/bench
command -v jq >/dev/null || fail "jq is missing"
mkdir -p "$out/ab-runs" || fail "cannot create $out/ab-runs"
rm -rf "${out:?}"/ab-runs/*

# Every run must insmod its own build: nothing may be loaded before it,
# and whatever it loaded must be gone after it.
prism_gone() {
	local i
	for i in $(seq 50); do
		[ -d /sys/module/prism ] || return 0
		rmmod prism 2>/dev/null || sleep 0.2
	done
	[ ! -d /sys/module/prism ]
}

# run_one NN LABEL KO
run_one() {
	local d=$out/ab-runs/$1-$2 t0=$SECONDS
	mkdir -p "$d"
	prism_gone || fail "prism is loaded and cannot be removed before run $1"
	# A loaded host can stall the guest past a chain's deadline (bench_uring
	# then dies of a TIMEOUT): such a run is repeated, at most RETRY times
	# in all, and the failures are counted in the JSON.
	until PRISM_KO=$3 PRISM_OUT=$d bash "$here/uring.sh" > "$d/uring.log" 2>&1; do
		tail -3 "$d/uring.log" >&2
		prism_gone || fail "prism still loaded after failed run $1 ($2)"
		failed=$((failed + 1))
		mv "$d/uring.log" "$d/uring-failed-$failed.log"
		[ "$failed" -le "$RETRY" ] ||
			fail "run $1 ($2) failed: see $d/uring-failed-$failed.log"
		echo "bench-ab: run $1 ($2) failed, repeating it (see $d/uring-failed-$failed.log)" >&2
	done
	prism_gone || fail "prism still loaded after run $1 ($2)"
	jq -c --arg build "$2" --argjson run "$((10#$1))" '
		{run: $run, build: $build, retransmits: .client_retransmits,
		 nacks: .client_nacks, rx_dropped: .client_rx_dropped} +
		([.results | to_entries[] | .key as $op | .value | to_entries[] |
		  .key as $mode | .value |
		  {("\($op)_\($mode)_mean"): .mean,
		   ("\($op)_\($mode)_p50"): .p50,
		   ("\($op)_\($mode)_p99"): .p99,
		   ("\($op)_\($mode)_ops"): .ops_per_s_segment_median,
		   ("\($op)_\($mode)_ops_all"): .ops_per_s}] | add)' \
		"$d/bench-uring.json" >> "$work/runs.jsonl" ||
		fail "run $1: cannot read $d/bench-uring.json"
	echo "bench-ab: run $1 $2: $((SECONDS - t0)) s, read512 sync_d1 p50 $(jq '.results.read512.sync_d1.p50' "$d/bench-uring.json") us"
}

echo "bench-ab: A=$LA ($KO_A), B=$LB ($KO_B), $R rounds, N=${PRISM_BENCH_N:-4000} per mode and op, link ${PRISM_URING_LINK:-eth}"
n=0
for r in $(seq "$R"); do
	if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
	for x in $order; do
		n=$((n + 1))
		if [ "$x" = A ]; then
			run_one "$(printf %02d $n)" "$LA" "$KO_A"
		else
			run_one "$(printf %02d $n)" "$LB" "$KO_B"
		fi
	done
done

# Metrics of the table: key, what, unit, better (lower/higher).
metrics='[
 ["read512_sync_d1_p50",  "READ 512 B p50, depth 1 (blocking)",  "us",    "lower"],
 ["read512_sync_d1_p99",  "READ 512 B p99, depth 1 (blocking)",  "us",    "lower"],
 ["read512_sync_d1_mean", "READ 512 B mean, depth 1 (blocking)", "us",    "lower"],
 ["cas8_sync_d1_p50",     "CAS 8 B p50, depth 1 (blocking)",     "us",    "lower"],
 ["read512_sync_d64_ops", "READ 512 B, depth 64 (blocking)",     "ops/s", "higher"],
 ["read512_ring_d64_ops", "READ 512 B, depth 64 (io_uring)",     "ops/s", "higher"],
 ["cas8_sync_d64_ops",    "CAS 8 B, depth 64 (blocking)",        "ops/s", "higher"],
 ["cas8_ring_d64_ops",    "CAS 8 B, depth 64 (io_uring)",        "ops/s", "higher"]
]'

json=$out/ab.json
jq -s --arg a "$LA" --arg b "$LB" --arg ka "$KO_A" --arg kb "$KO_B" \
	--argjson rounds "$R" --argjson m "$metrics" --argjson failed "$failed" \
	--arg n "${PRISM_BENCH_N:-4000}" --arg w "${PRISM_BENCH_WARMUP:-50}" \
	--arg ir "${PRISM_BENCH_ROUNDS:-5}" --arg kernel "$(uname -r)" \
	--arg link "${PRISM_URING_LINK:-eth}" '
	def median: sort | length as $l |
		if $l == 0 then null
		elif $l % 2 == 1 then .[($l - 1) / 2]
		else (.[$l / 2 - 1] + .[$l / 2]) / 2 end;
	. as $runs |
	{benchmark: "ab", kernel: $kernel, link: $link,
	 a: {name: $a, module: $ka}, b: {name: $b, module: $kb},
	 rounds: $rounds, order: [$runs[].build], failed_runs_repeated: $failed,
	 chains_per_mode_and_op: ($n | tonumber),
	 warmup_per_segment: ($w | tonumber),
	 bench_uring_rounds: ($ir | tonumber),
	 latency_unit: "us", throughput: "ops_per_s_segment_median",
	 metrics: [$m[] | .[0] as $k |
		([$runs[] | select(.build == $a) | .[$k]] | median) as $ma |
		([$runs[] | select(.build == $b) | .[$k]] | median) as $mb |
		{key: $k, what: .[1], unit: .[2], better: .[3],
		 a_median: $ma, b_median: $mb, b_over_a: ($mb / $ma),
		 a_runs: [$runs[] | select(.build == $a) | .[$k]],
		 b_runs: [$runs[] | select(.build == $b) | .[$k]]}],
	 runs: $runs}' "$work/runs.jsonl" > "$json" || fail "cannot write $json"

{
	printf 'A = %s, B = %s: medians of %s runs each (order %s)\n' "$LA" "$LB" "$R" \
		"$(jq -r '[.order[] | if . == "'"$LA"'" then "A" else "B" end] | join(" ")' "$json")"
	jq -r --arg a "$LA" --arg b "$LB" '
		(["metric", "unit", $a, $b, "B/A"] | @tsv),
		(.metrics[] | [.key, .unit,
			(.a_median * 10 | round / 10 | tostring),
			(.b_median * 10 | round / 10 | tostring),
			(.b_over_a * 1000 | round / 1000 | tostring)] | @tsv)' "$json" |
		column -t -s "$(printf '\t')"
	echo "failed runs repeated: $failed"
	jq -r '"client retransmits per run: \([.runs[].retransmits] | map(tostring) | join(" ")); NACKs: \([.runs[].nacks] | map(tostring) | join(" "))"' "$json"
} | tee "$out/ab.txt"

jq -r '.metrics[] | "\(.key) \(.b_over_a)"' "$json" > "$work/ratio.dat"
gnuplot <<EOF || echo "bench-ab: gnuplot failed (results are in the JSON)" >&2
set terminal pngcairo size 1000,560 font ",10" noenhanced
set output "$out/ab.png"
set title "B/A per metric: A = $LA, B = $LB (medians of $R runs each, TCG guest)"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set grid ytics
set key off
set yrange [*<0.8:1.2<*]
set ylabel "B / A  (latency: >1 slower; ops/s: <1 slower)"
set xtics rotate by -30
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "black"
set arrow from graph 0, first 1.1 to graph 1, first 1.1 nohead dt 2 lc rgb "red"
set arrow from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 2 lc rgb "red"
plot "$work/ratio.dat" using 2:xtic(1) lc rgb "#4477aa", \
     "" using 0:2:(sprintf("%.3f", \$2)) with labels offset 0,0.8
EOF
echo "bench-ab: results in $json, $out/ab.txt and $out/ab.png"
