#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Busy polling where it applies: PRISM READ 8 across virtio-net between two
# guests (each its own kernel, 1 vCPU; the response arrives by interrupt
# and NAPI), side by side with perftest ib_read_lat over rxe on the same
# NICs, in one run of tools/vm/multi.sh (doc/BUSYPOLL-BENCH.md):
#
#   make module && make -C liburing-prism && make -C tools/bench rxe_lat
#   PRISM_OUT=$PWD/build/bp-mh PRISM_KO=$PWD/kmod/prism.ko \
#       tools/vm/multi.sh -n 2 --timeout 1500 -- tools/bench/busypoll_mh.sh
#
# Guest 1: PRISM server (rxe_lat prism-server eth0, ep 1) and the
# ib_read_lat server on rxe0 over eth0.  Guest 0: ib_read_lat -s 8 client
# (-C -U raw cycles, PRISM_BENCH_WARMUP samples dropped), then rxe_lat
# busy-client (blocking / spinning / ring / spinning ring, TSC-timed)
# without and with SO_BUSY_POLL (suffix +busypoll), the report of
# rxe_report.py and rxe_plot into $PRISM_OUT/busypoll-mh/.
# Env: PRISM_BENCH_N (1000), PRISM_BENCH_WARMUP (100), RXE_SPIN_US
# (1000), RXE_BUSY_POLL_US (50), PRISM_MH_WAIT_MS (1200000).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
B=$here/rxe_lat
KO=${PRISM_KO:-$repo/kmod/prism.ko}
D=${PRISM_MH_DIR:?run me with tools/vm/multi.sh}
g=${PRISM_GUEST:?run me with tools/vm/multi.sh}
N=${PRISM_BENCH_N:-1000}
W=${PRISM_BENCH_WARMUP:-100}
WAIT=${PRISM_MH_WAIT_MS:-1200000}
PORT=18800
ip4=10.81.0.$((g + 1))

# bench_begin, fail, load_module, bench_pids, wait_file
# shellcheck source=lib.sh
. "$here/lib.sh"
# gid_index, wait_listen, perftest_client, rxe_plot
# shellcheck source=rxe_net.sh
. "$here/rxe_net.sh"
bench_begin "busypoll-mh[$g]"
out=${PRISM_OUT:-$work}/busypoll-mh
log() { echo "$bench_name: $*"; }
# give_up MSG: tell the other guest (ready-G), then fail
give_up() { echo "fail $*" > "$D/ready-$g"; fail "$@"; }
# mh_mark NAME TEXT: $D/NAME written atomically
# shellcheck source=mh_lib.sh
. "$here/mh_lib.sh"

need_binary "$B" tools/bench
load_module prism "$KO" || give_up "insmod $KO"
modprobe rdma_rxe || give_up "modprobe rdma_rxe"
modprobe -q crc32_generic
ip addr add "$ip4/24" dev eth0 || give_up "address on eth0"
rdma link add rxe0 type rxe netdev eth0 || give_up "rdma link add rxe0"
G=$(gid_index rxe0 "$ip4") || give_up "no RoCE v2 GID for $ip4"

if [ "$g" != 0 ]; then
	"$B" prism-server eth0 1 "$work/ps.info" > "$work/ps.log" 2>&1 &
	bench_pids+=($!)
	wait_file "$work/ps.info" 30000 $! || give_up "PRISM server did not start"
	cp "$work/ps.info" "$D/ps.info.tmp" && mv -f "$D/ps.info.tmp" "$D/ps.info"
	timeout 900 ib_read_lat -F -C -U -d rxe0 -x "$G" -s 8 -n $((N + W + 1)) \
		-p $PORT > "$work/pt-s.txt" 2>&1 &
	bench_pids+=($!)
	wait_listen $PORT || give_up "ib_read_lat server not listening"
	mh_mark ready-1 ok
	wait_file "$D/done-0" "$WAIT"
	exit 0
fi

mkdir -p "$out"
res=$work/results.txt
: > "$res"
wait_file "$D/ready-1" "$WAIT" || fail "guest 1 never got ready"
read -r r < "$D/ready-1"
[ "$r" = ok ] || fail "guest 1: $r"
MHZ=$("$B" tsc-mhz | awk '{print $1}')
case $MHZ in ''|*[!0-9.]*) fail "could not measure the TSC rate" ;; esac
log "TSC $MHZ MHz; NAPI of eth0: virtio-net; perftest ib_read_lat -s 8, $N + $W"
perftest_client "$work/pt.txt" timeout 300 ib_read_lat -F -C -U -d rxe0 -x "$G" \
	-s 8 -n $((N + W + 1)) -p $PORT 10.81.0.2
cp "$work/pt.txt" "$out/bench-rxe-perftest-read8.txt"
echo "PERFTEST read8 8 $out/bench-rxe-perftest-read8.txt" >> "$res"
: > "$out/bench-rxe-busy.txt"
for bp in 0 "${RXE_BUSY_POLL_US:-50}"; do
	sfx=
	[ "$bp" = 0 ] || sfx=+busypoll
	log "busy-client, SO_BUSY_POLL $bp us"
	timeout 1200 "$B" busy-client eth0 "$D/ps.info" "$N" "$W" "$MHZ" \
		"${RXE_SPIN_US:-1000}" "$bp" "$sfx" > "$work/busy.log" 2>&1 ||
		{ log "busy-client failed:"; tail -5 "$work/busy.log"; }
	grep -E '^(RESULT|CSW|NAPI)' "$work/busy.log" >> "$res"
	cat "$work/busy.log" >> "$out/bench-rxe-busy.txt"
done
mh_mark done-0 ok
python3 "$here/rxe_report.py" "$res" "$out" "$N" "$W" "$(uname -r)" "$MHZ" |
	sed -n '/^Busy polling/,$p'
[ -s "$out/bench-rxe-busy.dat" ] &&
	rxe_plot bench-rxe-busy "READ 8 B across virtio-net (two guests), busy polling vs perftest ib_read_lat, median with p99 bar, $N iterations, TSC-timed, TCG" \
		"set xtics rotate by -30; plot \"$out/bench-rxe-busy.dat\" using 2:2:3:xtic(1) title \"READ 8\" lc rgb \"#1f77b4\""
log "results in $out"
