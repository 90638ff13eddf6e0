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
# PRISM_BENCH_ROUNDS (default 5), PRISM_URING_LINK (eth, the default: raw
# Ethernet; udp4 or udp6: UDP over IPv4 or IPv6 between addresses of the
# veth pair), PRISM_OUT (default <repo>/build/vm-out):
# $PRISM_OUT/bench-uring.json and $PRISM_OUT/bench-uring.png (gnuplot).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
B=$here/bench_uring
KO=${PRISM_KO:-$repo/build/mod/prism.ko}
N=${PRISM_BENCH_N:-4000}
W=${PRISM_BENCH_WARMUP:-50}
R=${PRISM_BENCH_ROUNDS:-5}
out=${PRISM_OUT:-$repo/build/vm-out}
NA=pu-a NB=pu-b

bench_begin bench-uring
need_binary "$B" tools/bench
load_module prism "$KO" || fail "insmod $KO failed"
mkdir -p "$out" || fail "cannot create $out"

veth_pair $NA ua 02:00:00:00:06:0a $NB ub 02:00:00:00:06:0b
srv=ua cli=ub
case ${PRISM_URING_LINK:-eth} in
eth) ;;
udp4)
	ip -n $NA addr add 10.86.0.1/24 dev ua
	ip -n $NB addr add 10.86.0.2/24 dev ub
	srv=udp:10.86.0.1 cli=udp:10.86.0.2 ;;
udp6)
	ip -n $NA addr add fd86::1/64 dev ua nodad
	ip -n $NB addr add fd86::2/64 dev ub nodad
	srv=udp:fd86::1 cli=udp:fd86::2 ;;
*) fail "PRISM_URING_LINK=$PRISM_URING_LINK: eth, udp4 or udp6" ;;
esac

ip netns exec $NA "$B" prism-server $srv 1 "$work/prism.info" > "$work/prism.log" 2>&1 &
bench_pids+=($!)
wait_file "$work/prism.info" 30000 $! || { cat "$work/prism.log"; fail "PRISM server did not start"; }

json=$out/bench-uring.json
timeout 600 ip netns exec $NB "$B" client --if $cli --info "$work/prism.info" \
	--n "$N" --warmup "$W" --rounds "$R" --json "$json" --plot "$work/plot.dat" ||
	fail "benchmark client failed"

bench_plot "$out/bench-uring.png" \
	"PRISM blocking syscalls vs io_uring, 1 and 64 chains in flight (veth, TCG guest)" <<EOF
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
EOF
echo "bench-uring: results in $json and $out/bench-uring.png"
