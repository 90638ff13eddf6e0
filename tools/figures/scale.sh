#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The paper's scale (issue 16, item 1): each store loads and serves
# PRISM_SCALE_OBJECTS (default 8,388,608, the paper's 8 M) objects of
# PRISM_FIG_VALUE (512) bytes with 8-byte keys in one target, against its
# baseline in the same guest run, and reports its memory per object:
#
#   KV: kv-server --preload (PRISM-KV, then Pilaf), then memcached loaded
#       by pipelined sets (-m sized for the objects), YCSB C and A,
#       uniform and Zipf 0.99; every GET checks the value it read (kv
#       bench).
#   TX: one tx_server shard holding every key (both protocols' state),
#       YCSB-T uniform and Zipf 0.99; first the bank workload on 32 of the
#       keys, whose total and serializability are checked (tx.sh
#       PRISM_TX_CHECK).
#   RS: 3 replicas of every block, one protocol's state at a time
#       (rs.sh RS_BENCH_SEPARATE=1), uniform over all blocks and Zipf 0.99,
#       50% writes; after every point each protocol's histories since its
#       replicas started are checked linearizable (RS_BENCH_CHECK).
#
# INSIDE the guest as root, with the memory it takes (three RS replicas of
# 8 M blocks are about 13 GiB): `make scale` runs it (tools/vm/run.sh
# --mem).  PRISM_BENCH_COMMIT names the run's commit.
# PRISM_SCALE_CLIENTS (4), PRISM_SCALE_MS (per point, 3000),
# PRISM_SCALE_STORES ("kv tx rs"), PRISM_SCALE_DISTS (the key popularity
# points, "uniform zipf"; zipf is Zipf 0.99), PRISM_SCALE_MEMCACHED (0:
# KV without memcached; default 1).  Results in $PRISM_OUT/scale/: one
# directory per store (the benchmark's JSON and log), then report.py scale
# writes scale.csv, scale.md, scale.png and scale.summary.json.
. "$(dirname "$0")/lib.sh"
N=${PRISM_SCALE_OBJECTS:-8388608}
C=${PRISM_SCALE_CLIENTS:-4}
MS=${PRISM_SCALE_MS:-3000}
DISTS=${PRISM_SCALE_DISTS:-uniform zipf}
# memcached: about 600 bytes of item per 512-byte record in a slab class
# of chunks up to 25% larger, and room (no record may be evicted)
mc= mc_mib=$(( N / 1024 * 800 / 1024 + 64 ))
[ "${PRISM_SCALE_MEMCACHED:-1}" = 1 ] && mc=" memcached"
thetas= rs_points=
for d in $DISTS; do
	case $d in
	uniform) thetas="$thetas 0" rs_points="$rs_points uniform-$N" ;;
	zipf) thetas="$thetas 0.99" rs_points="$rs_points zipf-0.99" ;;
	*) echo "scale.sh: PRISM_SCALE_DISTS: uniform or zipf, not '$d'" >&2; exit 2 ;;
	esac
done
fig_begin scale
root=$fdir
echo "{\"objects\": $N, \"value_bytes\": $FIG_VALUE, \"clients\": $C, \"ms_per_point\": $MS, \"mem_mib\": $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo), \"commit\": \"${PRISM_BENCH_COMMIT:-unknown}\", \"date\": \"$(date -u +%FT%TZ)\", \"kernel\": \"$(uname -r)\"}" \
	>"$root/config.json"
for store in ${PRISM_SCALE_STORES:-kv tx rs}; do
	t0=$(date +%s)
	fdir=$root/$store
	mkdir -p "$fdir"
	case $store in
	kv)
		fig_runs "$C" kv.sh '^(bench-kv: \{|kv-server: preloaded)' \
			KV_BENCH_CLIENTS=%n KV_BENCH_PRELOAD=1 KV_BENCH_RECORDS="$N" \
			KV_BENCH_VALUES="$FIG_VALUE" KV_BENCH_WORKLOADS="C A" \
			KV_BENCH_DISTS="$DISTS" KV_BENCH_SYSTEMS="prism pilaf$mc" KV_BENCH_MEM=$mc_mib \
			KV_BENCH_SECONDS=$(( (MS + 999) / 1000 ))
		;;
	tx)
		fig_runs "$C" tx.sh '^(tx_server: keys=|tx-check: |[0-9]+ +[0-9.]+ +(prism|farm) )' \
			PRISM_TX_THREADS=%n PRISM_TX_SHARDS=1 PRISM_TX_KEYS="$N" \
			PRISM_TX_INIT=1000 PRISM_TX_CHECK=1 \
			PRISM_TX_THETAS="${thetas# }" PRISM_TX_VALUES="$FIG_VALUE" PRISM_TX_MS="$MS"
		;;
	rs)
		fig_runs "$C" rs.sh '^(bench-rs: .*ops/s|bench-rs: check|rs_replica: blocks=)' \
			RS_BENCH_CLIENTS=%n RS_BENCH_BLOCKS="$N" RS_BENCH_SEPARATE=1 RS_BENCH_CHECK=1 \
			RS_BENCH_BSIZES="$FIG_VALUE" RS_BENCH_MS="$MS" \
			RS_BENCH_POINTS="${rs_points# }"
		;;
	*) fig_fail "unknown store $store" ;;
	esac
	echo "== scale $store took $(( $(date +%s) - t0 )) s"
done
fdir=$root
python3 "$fig_here/report.py" scale "$root" || fig_fail "report.py failed"
