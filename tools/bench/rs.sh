#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-RS benchmark, run INSIDE the guest as root:
#   tools/vm/run.sh -- env PRISM_KO=$PWD/kmod/prism.ko tools/bench/rs.sh
#
# 3 replicas (netns rb1..rb3) and RS_BENCH_CLIENTS closed-loop clients
# (netns rb4, rb5) on one bridge (MTU 1500), 50% writes.  For each block
# size (the axis: 4, 16 and 64 KiB, each block one op of a chain that the
# module segments) and each contention point (uniform over all
# RS_BENCH_BLOCKS (1024) /64/8/1 blocks, Zipf 0.5/0.9/0.99/1.2 over all of
# them) PRISM-RS (ABD) and
# ABD-LOCK run back to back for RS_BENCH_MS each; throughput, mean and p99
# latency go to $PRISM_OUT/bench-rs.json and a plot to
# $PRISM_OUT/bench-rs.png.
#
# RS_BENCH_SMOKE=1 (the rs guest suite, so make check): one point
# (uniform-64), 300 ms per mode, block sizes 4096 and 65536; exits 1 unless
# every measurement completed operations, none failed, and its counters
# show at least 3 chains per operation.
#
# Env: PRISM_KO, PRISM_OUT (default /tmp), RS_BENCH_MS (2000),
#      RS_BENCH_CLIENTS (4), RS_BENCH_BSIZES ("4096 16384 65536"),
#      RS_BENCH_SMOKE, RS_BENCH_POINTS (names of the points to run, e.g.
#      "uniform-1024 zipf-0.99"; default all), RS_BENCH_BLOCKS (blocks per
#      replica, 1024), RS_BENCH_SEPARATE=1 (the replicas hold one
#      protocol's state at a time, rs_replica --store, and are restarted
#      between them: all points of PRISM-RS, then all of ABD-LOCK; what
#      the paper's 8 M blocks need to fit one guest), RS_BENCH_CHECK=1
#      (the clients record their histories and rs_check must find each
#      protocol's histories since the replicas started linearizable after
#      every point, or the run fails; "linearizable" in the JSON),
#      RS_BENCH_DELAY_US (0; else netem delays every frame leaving each
#      host by that much: a round trip takes twice as long plus the CPU,
#      so the clients wait on the network more than on the guest's CPUs).
# Binaries are built on the host first: make -C apps/rs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"	# hosts.sh, fail, bench_plot (no bench_begin: own cleanup)
# shellcheck disable=SC2034	# read by fail
bench_name=bench-rs
B=$repo/apps/rs/build
SMOKE=${RS_BENCH_SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
	MS=${RS_BENCH_MS:-300}
	BSIZES=${RS_BENCH_BSIZES:-4096 65536}
else
	MS=${RS_BENCH_MS:-2000}
	BSIZES=${RS_BENCH_BSIZES:-4096 16384 65536}
fi
NC=${RS_BENCH_CLIENTS:-4}
BLOCKS=${RS_BENCH_BLOCKS:-1024}
SEPARATE=${RS_BENCH_SEPARATE:-0}
CHECK=${RS_BENCH_CHECK:-0}
DELAY_US=${RS_BENCH_DELAY_US:-0}
out=${PRISM_OUT:-/tmp}
P=rb
NH=5
work=$(mktemp -d /tmp/rs-bench.XXXXXX)
pids=()

# Stop the replicas.
stop_pids() {
	local p
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}

cleanup() {
	stop_pids
	hosts_down $P $NH
	prism_unload
	rm -rf "$work"
}
trap cleanup EXIT

for b in rs_replica rs_client rs_check; do
	[ -x "$B/$b" ] || fail "$B/$b missing: run 'make -C apps/rs' on the host"
done
prism_load "${PRISM_KO:-}" || fail "cannot load the module"
mkdir -p "$out"
hosts_down $P $NH
hosts_up $P $NH || fail "hosts_up"
if [ "$DELAY_US" -gt 0 ]; then
	hosts_netem $P $NH add delay "${DELAY_US}us" limit 100000 ||
		fail "netem delay ${DELAY_US}us"
fi

# replicas BSIZE STORE: (re)start the 3 replicas with BLOCKS blocks of BSIZE
# bytes (the replica's default spare buffers: at most 64 MiB), holding
# STORE's state (rs_replica --store); $per_block: their bytes per block.
replicas() {
	local i
	stop_pids
	infos=""
	rm -f "$work"/info* "$work"/hist-*
	for i in 1 2 3; do
		# ip execs the replica: $! is its pid (host_exec would be a subshell).
		ip netns exec "$P$i" "$B/rs_replica" eth0 0 "$work/info$i" \
			--blocks "$BLOCKS" --bsize "$1" --store "$2" 2>"$work/rlog$i" &
		pids+=($!)
		infos=${infos:+$infos,}$work/info$i
	done
	for i in 1 2 3; do
		# millions of blocks take minutes to lay out in TCG
		wait_file -i 0.2 "$work/info$i" 1800000 "${pids[i - 1]}" ||
			{ cat "$work/rlog$i"; fail "replica $i"; }
	done
	per_block=$(sed -n 's/.*per_block_B=\([0-9.]*\).*/\1/p' "$work/rlog1")
	grep -h 'per_block_B=' "$work/rlog1"
}

# all_counters: the module's counters summed over the 5 hosts.
all_counters() {
	local i
	for i in $(seq $NH); do
		prism_counters "$P$i"
	done | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }'
}

# point_counters: what explains a point (JSON members): the clients'
# protocol counters (rs_client's line) and the nonzero changes of the
# module's counters from the start line to the last client's exit.
point_counters() {
	{
		sed -n 's/^client=.* \(writebacks=.*\) elapsed_ms=.*/\1/p' "$work"/cout* |
			tr ' ' '\n'
		counter_deltas "$work/c0" "$work/c1" | tr ' ' '\n'
	} | awk -F= 'NF == 2 { s[$1] += $2; if (!($1 in o)) o[$1] = n++ }
		END { for (k in o) if (s[k]) l[o[k]] = sprintf("\"%s\": %d", k, s[k])
		      for (i = 0; i < n; i++) if (i in l) { printf "%s%s", sep, l[i]; sep = ", " } }'
}

# point NAME MODE KEYS THETA: one measurement; prints its JSON object
# (counters: point_counters).
point() {
	local name=$1 mode=$2 keys=$3 theta=$4 i cp=() ready=() hist=() lin=null
	rm -f "$work/go" "$work"/lat* "$work"/ready*
	for i in $(seq "$NC"); do
		[ "$CHECK" = 1 ] && hist=(--hist "$work/hist-$mode-$name-$i")
		ip netns exec "$P$((4 + (i - 1) % 2))" "$B/rs_client" --if eth0 \
			--info "$infos" --id "$i" --mode "$mode" --keys "$keys" \
			--zipf "$theta" --writes 50 --duration "$MS" "${hist[@]}" \
			--lat "$work/lat$i" --ready "$work/ready$i" --start "$work/go" \
			>"$work/cout$i" 2>&1 &
		cp+=($!)
		ready+=("$work/ready$i" $!)
	done
	# every client set up (a Zipf table over millions of blocks takes
	# seconds), then all start at once
	wait_ready "${ready[@]}" || { cat "$work"/cout* >&2; fail "a client did not get ready"; }
	all_counters >"$work/c0"
	touch "$work/go"
	for i in "${cp[@]}"; do
		wait "$i" || { cat "$work"/cout* >&2; fail "client failed"; }
	done
	all_counters >"$work/c1"
	local failedops
	failedops=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' "$work"/cout* |
		awk '{ s += $1 } END { print s + 0 }')
	if [ "$CHECK" = 1 ]; then
		# every point since the replicas started: their state goes on
		"$B/rs_check" hist "$work"/hist-"$mode"-* >"$work/check" 2>&1 ||
			{ cat "$work/check" >&2; fail "$name $mode: history not linearizable"; }
		echo "bench-rs: check $name $mode: $(tr '\n' ' ' <"$work/check")" >&2
		lin=true
	fi
	printf '{"point": "%s", "mode": "%s", "bsize": %s, "keys": %s, "zipf": %s, "failed": %s, "bytes_per_block": %s, "linearizable": %s, "counters": {%s}, %s}' \
		"$name" "$mode" "$bsize" "$keys" "$theta" "$failedops" \
		"$per_block" "$lin" "$(point_counters)" \
		"$("$B/rs_check" lat "$work"/lat* | sed 's/^{//; s/}$//')"
}

points=(
	"uniform-$BLOCKS $BLOCKS 0"
	"uniform-64 64 0"
	"uniform-8 8 0"
	"uniform-1 1 0"
	"zipf-0.5 $BLOCKS 0.5"
	"zipf-0.9 $BLOCKS 0.9"
	"zipf-0.99 $BLOCKS 0.99"
	"zipf-1.2 $BLOCKS 1.2"
)
[ "$SMOKE" = 1 ] && points=("uniform-64 64 0")
# RS_BENCH_POINTS: only the points of these names (tools/figures).
if [ -n "${RS_BENCH_POINTS:-}" ]; then
	keep=()
	for p in "${points[@]}"; do
		case " $RS_BENCH_POINTS " in *" ${p%% *} "*) keep+=("$p") ;; esac
	done
	points=("${keep[@]}")
	[ ${#points[@]} -gt 0 ] || fail "RS_BENCH_POINTS names no point"
fi
json=$out/bench-rs.json
dat=$work/plot.dat
{
	printf '{"bench": "rs", "kernel": "%s", "replicas": 3, "clients": %s, "delay_us": %s, ' \
		"$(uname -r)" "$NC" "$DELAY_US"
	printf '"bsizes": [%s], "writes_pct": 50, "ms_per_point": %s, "results": [\n' \
		"$(echo "$BSIZES" | tr ' ' ,)" "$MS"
} >"$json.tmp"
first=1 bad=0
# One row per point, then per block size: abd and lock ops/s, mean, p99.
get() { echo "$1" | sed -n "s/.*\"$2\": \([0-9.]*\).*/\\1/p"; }
for bsize in $BSIZES; do
	unset res
	declare -A res
	if [ "$SEPARATE" = 1 ]; then
		for mode in abd lock; do
			replicas "$bsize" "$mode"
			for p in "${points[@]}"; do
				set -- $p
				res[$mode.$1]=$(point "$1" "$mode" "$2" "$3") || exit 1
			done
		done
	else
		replicas "$bsize" both
		for p in "${points[@]}"; do
			set -- $p
			for mode in abd lock; do
				res[$mode.$1]=$(point "$1" "$mode" "$2" "$3") || exit 1
			done
		done
	fi
	for p in "${points[@]}"; do
		set -- $p
		a=${res[abd.$1]} l=${res[lock.$1]}
		[ $first = 1 ] || echo "," >>"$json.tmp"
		first=0
		printf '  %s,\n  %s' "$a" "$l" >>"$json.tmp"
		printf ' %s %s %s %s %s %s' \
			"$(get "$a" ops_per_s)" "$(get "$l" ops_per_s)" \
			"$(get "$a" mean_us)" "$(get "$l" mean_us)" \
			"$(get "$a" p99_us)" "$(get "$l" p99_us)" >>"$work/row.$1"
		printf 'bench-rs: %5s B %-13s PRISM-RS %8s ops/s mean %8s us p99 %8s us | ABD-LOCK %8s ops/s mean %8s us p99 %8s us\n' \
			"$bsize" "$1" "$(get "$a" ops_per_s)" "$(get "$a" mean_us)" "$(get "$a" p99_us)" \
			"$(get "$l" ops_per_s)" "$(get "$l" mean_us)" "$(get "$l" p99_us)"
		for r in "$a" "$l"; do
			[ "$(get "$r" failed)" = 0 ] && [ "$(get "$r" ops)" -gt 0 ] || bad=1
			# every operation sends a chain to each of the 3 replicas
			[ "$(get "$r" chains_sent)" -ge $((3 * $(get "$r" ops))) ] 2>/dev/null ||
				bad=1
		done
	done
done
printf '\n]}\n' >>"$json.tmp"
mv "$json.tmp" "$json"
echo "bench-rs: results in $json"
echo "# point, then per block size ($BSIZES): abd_ops_s lock_ops_s abd_mean lock_mean abd_p99 lock_p99" >"$dat"
for p in "${points[@]}"; do
	set -- $p
	echo "$1 $(cat "$work/row.$1")" >>"$dat"
done
if [ "$SMOKE" = 1 ]; then
	[ $bad = 0 ] || fail "a measurement failed operations or completed none"
	exit 0
fi

# Throughput, then mean latency: PRISM-RS and ABD-LOCK per block size.
tput="" lat=""
k=0
for bsize in $BSIZES; do
	c=$((2 + 6 * k))
	tput="$tput${tput:+, }\"$dat\" using $c:xtic(1) title \"PRISM-RS $bsize B\", \"\" using $((c + 1)) title \"ABD-LOCK $bsize B\""
	lat="$lat${lat:+, }\"$dat\" using $((c + 2)):xtic(1) title \"PRISM-RS $bsize B\", \"\" using $((c + 3)) title \"ABD-LOCK $bsize B\""
	k=$((k + 1))
done
bench_plot "$out/bench-rs.png" \
	"PRISM-RS vs ABD-LOCK: 3 replicas, $NC clients, blocks of ${BSIZES// /, } B, 50% writes" <<EOF
set key top right
set grid ytics
set xtics rotate by -20
set ylabel "throughput (ops/s)"
set yrange [0:*]
plot $tput
set ylabel "mean latency (us)"
set autoscale y
set logscale y
plot $lat
EOF
[ -s "$out/bench-rs.png" ] && echo "bench-rs: plot in $out/bench-rs.png"
