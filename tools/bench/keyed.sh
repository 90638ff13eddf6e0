#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Keyed regions (issue 17), run INSIDE the guest as root: latency and ops/s
# of READ 8, READ 512, CAS 8 (and READ 4096 at MTU 9000) on a plain region
# and on a keyed one, one at a time and 64 in flight, measured interleaved
# in one run (bench_keyed), at MTU 1500 and at MTU 9000 over a veth pair.
# Sealed chains run twice, interleaved with the rest: with the CPU's AES-NI
# and PCLMULQDQ ("keyed", the module's default) and with the module's
# crypt_simd=0 ("keyedc": lib/crypto's AES, GHASH in C).
#
#   make -C tools/bench                          # on the host
#   PRISM_KO=kmod/prism.ko tools/vm/run.sh --timeout 1800 -- tools/bench/keyed.sh
#
# Environment: PRISM_KO, PRISM_BENCH_N (chains per mode, default 4000),
# PRISM_BENCH_WARMUP (per segment, default 30), PRISM_BENCH_ROUNDS
# (default 5), PRISM_OUT (default <repo>/build/vm-out):
# $PRISM_OUT/bench-keyed-mtu{1500,9000}.json and bench-keyed.png.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
B=$here/bench_keyed
N=${PRISM_BENCH_N:-4000}
W=${PRISM_BENCH_WARMUP:-30}
R=${PRISM_BENCH_ROUNDS:-5}
out=${PRISM_OUT:-$repo/build/vm-out}
NA=pk-a NB=pk-b

bench_begin bench-keyed
need_binary "$B" tools/bench
load_module prism "$KO" || fail "insmod $KO failed"
mkdir -p "$out" || fail "cannot create $out"
veth_pair $NA ka 02:00:00:00:07:0a $NB kb 02:00:00:00:07:0b

for mtu in 1500 9000; do
	ip -n $NA link set ka mtu $mtu
	ip -n $NB link set kb mtu $mtu
	json=$out/bench-keyed-mtu$mtu.json
	bench_log "MTU $mtu"
	timeout 1800 ip netns exec $NB "$B" --srv-ns $NA --srv ka --cli kb \
		--n "$N" --warmup "$W" --rounds "$R" --json "$json" \
		--simd-param /sys/module/prism/parameters/crypt_simd |
		tee "$work/mtu$mtu.txt" || fail "bench_keyed failed at MTU $mtu"
	[ -s "$json" ] || fail "no results at MTU $mtu"
done

# One row per op and depth: plain, keyed and keyed in C, p50 and kops/s
# (MTU 9000 run).
python3 - "$out/bench-keyed-mtu9000.json" > "$work/plot.dat" <<'PY' || fail "plot data"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
for name, v in r.items():
    op, kind, d = name.split("_")
    if kind != "plain":
        continue
    ms = [v, r[f"{op}_keyed_{d}"], r[f"{op}_keyedc_{d}"]]
    cols = [m["p50"] for m in ms] + [m["ops_per_s_segment_median"] / 1000 for m in ms]
    print(f"{op}_{d} " + " ".join(f"{c:.3f}" for c in cols))
PY
bench_plot "$out/bench-keyed.png" \
	"PRISM plain vs keyed regions, MTU 9000 (veth, TCG guest)" <<EOF
set key outside right top
set grid ytics
set ylabel "p50 latency (us)"
set yrange [0:*]
plot "$work/plot.dat" using 2:xtic(1) title "plain", "" using 3 title "keyed (AES-NI)", "" using 4 title "keyed (C)"
set ylabel "kops/s (median of segments)"
plot "$work/plot.dat" using 5:xtic(1) title "plain", "" using 6 title "keyed (AES-NI)", "" using 7 title "keyed (C)"
EOF
echo "bench-keyed: results in $out/bench-keyed-mtu{1500,9000}.json and $out/bench-keyed.png"
