#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-RS benchmark, run INSIDE the guest as root:
#   tools/vm/run.sh -- env PRISM_KO=$PWD/kmod/prism.ko tools/bench/rs.sh
#
# 3 replicas (netns rb1..rb3) and RS_BENCH_CLIENTS closed-loop clients
# (netns rb4, rb5) on one bridge, 512-byte blocks, 50% writes.  For each
# contention point (uniform over 1024/64/8/1 blocks, Zipf 0.5/0.9/0.99/1.2
# over 1024 blocks) PRISM-RS (ABD) and ABD-LOCK run back to back for
# RS_BENCH_MS each; throughput, mean and p99 latency go to
# $PRISM_OUT/bench-rs.json and a plot to $PRISM_OUT/bench-rs.png.
#
# Env: PRISM_KO, PRISM_OUT (default /tmp), RS_BENCH_MS (2000),
#      RS_BENCH_CLIENTS (4), RS_BENCH_BSIZE (512).
# Binaries are built on the host first: make -C apps/rs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
B=$repo/apps/rs/build
MS=${RS_BENCH_MS:-2000}
NC=${RS_BENCH_CLIENTS:-4}
BSIZE=${RS_BENCH_BSIZE:-512}
out=${PRISM_OUT:-/tmp}
P=rb
NH=5
work=$(mktemp -d /tmp/rs-bench.XXXXXX)
pids=()

# shellcheck source=../lib/hosts.sh
. "$repo/tools/lib/hosts.sh"

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	hosts_down $P $NH
	prism_unload
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "bench-rs: $*" >&2; exit 1; }

for b in rs_replica rs_client rs_check; do
	[ -x "$B/$b" ] || fail "$B/$b missing: run 'make -C apps/rs' on the host"
done
prism_load "${PRISM_KO:-}" || fail "cannot load the module"
mkdir -p "$out"
hosts_down $P $NH
hosts_up $P $NH || fail "hosts_up"

infos=""
for i in 1 2 3; do
	# ip execs the replica: $! is its pid (host_exec would be a subshell).
	ip netns exec "$P$i" "$B/rs_replica" eth0 0 "$work/info$i" --blocks 1024 \
		--bsize "$BSIZE" --bufs 16384 2>"$work/rlog$i" &
	pids+=($!)
	infos=${infos:+$infos,}$work/info$i
done
for i in 1 2 3; do
	wait_file "$work/info$i" 30000 || { cat "$work/rlog$i"; fail "replica $i"; }
done

# point NAME MODE KEYS THETA: one measurement; prints its JSON object.
point() {
	local name=$1 mode=$2 keys=$3 theta=$4 i cp=()
	rm -f "$work/go" "$work"/lat*
	for i in $(seq "$NC"); do
		ip netns exec "$P$((4 + (i - 1) % 2))" "$B/rs_client" --if eth0 \
			--info "$infos" --id "$i" --mode "$mode" --keys "$keys" \
			--zipf "$theta" --writes 50 --duration "$MS" \
			--lat "$work/lat$i" --start "$work/go" >"$work/cout$i" 2>&1 &
		cp+=($!)
	done
	touch "$work/go"
	for i in "${cp[@]}"; do
		wait "$i" || { cat "$work"/cout* >&2; fail "client failed"; }
	done
	local failedops
	failedops=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' "$work"/cout* |
		awk '{ s += $1 } END { print s + 0 }')
	printf '{"point": "%s", "mode": "%s", "keys": %s, "zipf": %s, "failed": %s, %s}' \
		"$name" "$mode" "$keys" "$theta" "$failedops" \
		"$("$B/rs_check" lat "$work"/lat* | sed 's/^{//; s/}$//')"
}

points=(
	"uniform-1024 1024 0"
	"uniform-64 64 0"
	"uniform-8 8 0"
	"uniform-1 1 0"
	"zipf-0.5 1024 0.5"
	"zipf-0.9 1024 0.9"
	"zipf-0.99 1024 0.99"
	"zipf-1.2 1024 1.2"
)
json=$out/bench-rs.json
dat=$work/plot.dat
{
	printf '{"bench": "rs", "kernel": "%s", "replicas": 3, "clients": %s, ' \
		"$(uname -r)" "$NC"
	printf '"bsize": %s, "writes_pct": 50, "ms_per_point": %s, "results": [\n' \
		"$BSIZE" "$MS"
} >"$json.tmp"
first=1
echo "# point abd_ops_s lock_ops_s abd_mean lock_mean abd_p99 lock_p99" >"$dat"
for p in "${points[@]}"; do
	set -- $p
	a=$(point "$1" abd "$2" "$3")
	l=$(point "$1" lock "$2" "$3")
	[ $first = 1 ] || echo "," >>"$json.tmp"
	first=0
	printf '  %s,\n  %s' "$a" "$l" >>"$json.tmp"
	get() { echo "$1" | sed -n "s/.*\"$2\": \\([0-9.]*\\).*/\\1/p"; }
	printf '%s %s %s %s %s %s %s\n' "$1" \
		"$(get "$a" ops_per_s)" "$(get "$l" ops_per_s)" \
		"$(get "$a" mean_us)" "$(get "$l" mean_us)" \
		"$(get "$a" p99_us)" "$(get "$l" p99_us)" >>"$dat"
	printf 'bench-rs: %-13s PRISM-RS %8s ops/s mean %8s us p99 %8s us | ABD-LOCK %8s ops/s mean %8s us p99 %8s us\n' \
		"$1" "$(get "$a" ops_per_s)" "$(get "$a" mean_us)" "$(get "$a" p99_us)" \
		"$(get "$l" ops_per_s)" "$(get "$l" mean_us)" "$(get "$l" p99_us)"
done
printf '\n]}\n' >>"$json.tmp"
mv "$json.tmp" "$json"
echo "bench-rs: results in $json"

if command -v gnuplot >/dev/null; then
	gnuplot <<EOF || echo "bench-rs: gnuplot failed" >&2
set terminal pngcairo size 1100,800 noenhanced
set output "$out/bench-rs.png"
set multiplot layout 2,1 title "PRISM-RS vs ABD-LOCK: 3 replicas, $NC clients, ${BSIZE} B blocks, 50% writes"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right
set grid ytics
set xtics rotate by -20
set ylabel "throughput (ops/s)"
set yrange [0:*]
plot "$dat" using 2:xtic(1) title "PRISM-RS", "" using 3 title "ABD-LOCK"
set ylabel "latency (us)"
set autoscale y
set logscale y
plot "$dat" using 4:xtic(1) title "PRISM-RS mean", "" using 5 title "ABD-LOCK mean", \
     "" using 6 title "PRISM-RS p99", "" using 7 title "ABD-LOCK p99"
unset multiplot
EOF
	[ -s "$out/bench-rs.png" ] && echo "bench-rs: plot in $out/bench-rs.png"
fi
