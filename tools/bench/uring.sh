#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Batch benchmark, run INSIDE the guest as root: two network namespaces
# joined by a veth pair, a PRISM server with a registered region in one,
# the client (bench_uring) in the other.  ops/s and latency (mean, p50,
# p99) of a 512-byte READ and of an 8-byte CAS through the blocking
# syscall path (prism_execute one at a time; prism_submit/prism_wait_from
# with 64 outstanding) and through io_uring (prism_ring with 1 and with 64
# in flight), measured interleaved in one run.  See
# doc/IO_URING-MECHANISM.md.
#
#   make -C tools/bench                          # on the host
#   PRISM_KO=build/mod/prism.ko tools/vm/run.sh --timeout 900 -- tools/bench/uring.sh
#
# Environment: PRISM_KO (loaded if the module is not loaded yet; default
# <repo>/build/mod/prism.ko), PRISM_BENCH_N (chains per mode and op,
# default 4000), PRISM_BENCH_WARMUP (per segment, default 50),
# PRISM_BENCH_ROUNDS (default 5), PRISM_OUT (default <repo>/build/vm-out):
# $PRISM_OUT/bench-uring.json and $PRISM_OUT/bench-uring.png (gnuplot).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
B=$here/bench_uring
KO=${PRISM_KO:-$repo/build/mod/prism.ko}
N=${PRISM_BENCH_N:-4000}
W=${PRISM_BENCH_WARMUP:-50}
R=${PRISM_BENCH_ROUNDS:-5}
out=${PRISM_OUT:-$repo/build/vm-out}
work=$(mktemp -d /tmp/prism-uring.XXXXXX)
NA=pu-a NB=pu-b
loaded=0
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	ip netns del $NA 2>/dev/null
	ip netns del $NB 2>/dev/null
	[ "$loaded" = 1 ] && rmmod prism 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "bench-uring: $*" >&2; exit 1; }

# Poll for a file, at most $2 ms.
wait_file() {
	local i=0
	until [ -s "$1" ]; do
		[ "$i" -ge "$2" ] && return 1
		sleep 0.02
		i=$((i + 20))
	done
}

[ -x "$B" ] || fail "$B is missing: run 'make -C tools/bench' on the host"
if [ ! -d /sys/module/prism ]; then
	insmod "$KO" || fail "insmod $KO failed"
	loaded=1
fi
mkdir -p "$out" || fail "cannot create $out"

modprobe -q veth 2>/dev/null
ip netns del $NA 2>/dev/null
ip netns del $NB 2>/dev/null
ip netns add $NA && ip netns add $NB || fail "ip netns add"
ip link add name ua address 02:00:00:00:06:0a netns $NA type veth \
	peer name ub address 02:00:00:00:06:0b netns $NB || fail "veth"
for ns in $NA $NB; do
	ip -n $ns link set lo up
done
ip -n $NA link set ua up
ip -n $NB link set ub up

ip netns exec $NA "$B" prism-server ua 1 "$work/prism.info" > "$work/prism.log" 2>&1 &
pids+=($!)
wait_file "$work/prism.info" 30000 || { cat "$work/prism.log"; fail "PRISM server did not start"; }

json=$out/bench-uring.json
timeout 600 ip netns exec $NB "$B" client --if ub --info "$work/prism.info" \
	--n "$N" --warmup "$W" --rounds "$R" --json "$json" --plot "$work/plot.dat" ||
	fail "benchmark client failed"

gnuplot <<EOF || echo "bench-uring: gnuplot failed (results are in the JSON)" >&2
set terminal pngcairo size 1100,800 font ",10" noenhanced
set output "$out/bench-uring.png"
set multiplot layout 2,1 title "PRISM blocking syscalls vs io_uring, 1 and 64 chains in flight (veth, TCG guest)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set yrange [0:*]
set ylabel "kops/s (median of segments)"
plot "$work/plot.dat" using 2:xtic(1) title "READ 512 B", "" using 3 title "CAS 8 B"
set ylabel "latency (us, log scale)"
set logscale y
set yrange [*:*]
plot "$work/plot.dat" using 4:xtic(1) title "READ p50", "" using 5 title "CAS p50", \
     "" using 6 title "READ p99", "" using 7 title "CAS p99"
unset multiplot
EOF
echo "bench-uring: results in $json and $out/bench-uring.png"
