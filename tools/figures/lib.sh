# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by tools/figures/fig*.sh: the paper's figures (Burke et al.,
# SOSP'21, Figures 3, 4, 6, 7, 9, 10) as sweeps of the stores' benchmark
# scripts (tools/bench/kv.sh, rs.sh, tx.sh), each PRISM store against its
# baseline in the same run, INSIDE the guest as root.
#
# Environment (PRISM_* variables pass into the guest): PRISM_KO (module),
# PRISM_OUT (results, figure N in $PRISM_OUT/figN/; default
# <repo>/build/figures), PRISM_FIG_CLIENTS (the client counts of the
# throughput-latency curves, default "1 2 4 8"), PRISM_FIG_MS (per point,
# default 2000), PRISM_FIG_THETAS (the skew axis, default
# "0 0.5 0.8 0.9 0.99"), PRISM_FIG_SKEW_CLIENTS (clients of the skew
# figures, 4), PRISM_FIG_KEYS (KV records, TX keys: 1000), PRISM_FIG_VALUE
# (value and block bytes, the paper's 512), PRISM_FIG_ROUNDS (runs of every
# point, default 1; report.py takes each point's median).  Each figN.sh then runs report.py, which writes
# figN.csv, figN.png and figN.summary.json (headline ratios, the paper's,
# the issue's goals).
set -u
fig_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$fig_here/../.." && pwd)
FIG_OUT=${PRISM_OUT:-$repo/build/figures}
FIG_CLIENTS=${PRISM_FIG_CLIENTS:-1 2 4 8}
FIG_MS=${PRISM_FIG_MS:-2000}
FIG_THETAS=${PRISM_FIG_THETAS:-0 0.5 0.8 0.9 0.99}
FIG_SKEW_CLIENTS=${PRISM_FIG_SKEW_CLIENTS:-4}
FIG_KEYS=${PRISM_FIG_KEYS:-1000}
FIG_VALUE=${PRISM_FIG_VALUE:-512}
FIG_ROUNDS=${PRISM_FIG_ROUNDS:-1}
export PRISM_KO=${PRISM_KO:-$repo/kmod/prism.ko}

fig_fail() { echo "$fig: $*" >&2; exit 1; }

# fig_begin NAME: $fig and its directory $fdir, emptied.
fig_begin() {
	fig=$1
	fdir=$FIG_OUT/$fig
	rm -rf "$fdir"
	mkdir -p "$fdir" || exit 1
	echo "== $fig: $(date -u +%FT%TZ), kernel $(uname -r)"
}

# fig_runs COUNTS SCRIPT PATTERN VAR=VALUE...: tools/bench/SCRIPT once per
# client count n of COUNTS (FIG_ROUNDS times: rounds of every count, one
# after the other), with the variables (%n in a value becomes n) and
# PRISM_OUT=$fdir/cn (with rounds $fdir/cn/rR); prints the lines of its
# output matching PATTERN.
fig_runs() {
	local counts=$1 script=$2 pattern=$3 n v e r o
	shift 3
	for r in $(seq "$FIG_ROUNDS"); do
		for n in $counts; do
			e=()
			for v in "$@"; do
				e+=("${v//%n/$n}")
			done
			o=c$n
			[ "$FIG_ROUNDS" = 1 ] || o=c$n/r$r
			mkdir -p "$fdir/$o"
			env "${e[@]}" PRISM_OUT="$fdir/$o" "$repo/tools/bench/$script" >"$fdir/$o.log" 2>&1 ||
				{ tail -n 20 "$fdir/$o.log" >&2; fig_fail "$script with $n clients failed"; }
			grep -E "$pattern" "$fdir/$o.log"
		done
	done
}

# fig_kv WORKLOAD: PRISM-KV and Pilaf, YCSB WORKLOAD uniform (one
# closed-loop client per namespace).
fig_kv() {
	fig_runs "$FIG_CLIENTS" kv.sh '^bench-kv: \{' KV_BENCH_CLIENTS=%n \
		KV_BENCH_WORKLOADS="$1" KV_BENCH_DISTS=uniform KV_BENCH_VALUES="$FIG_VALUE" \
		KV_BENCH_SYSTEMS="prism pilaf" KV_BENCH_SECONDS=$(( (FIG_MS + 999) / 1000 )) \
		KV_BENCH_RECORDS="$FIG_KEYS"
}

# fig_rs CLIENTS POINTS [VAR=VALUE...]: PRISM-RS (ABD) and ABD-LOCK, 3
# replicas, 50% writes, blocks of FIG_VALUE bytes, at rs.sh's points
# POINTS; the variables go to rs.sh too.
fig_rs() {
	local counts=$1 points=$2
	shift 2
	fig_runs "$counts" rs.sh '^bench-rs: .*ops/s' RS_BENCH_CLIENTS=%n \
		RS_BENCH_POINTS="$points" RS_BENCH_BSIZES="$FIG_VALUE" RS_BENCH_MS="$FIG_MS" "$@"
}

# fig_tx THREADS THETAS: PRISM-TX and FaRM-style, YCSB-T (4-key RMW) over
# 2 shards, values of FIG_VALUE bytes.
fig_tx() {
	fig_runs "$1" tx.sh '^[0-9]+ +[0-9.]+ +(prism|farm) ' PRISM_TX_THREADS=%n \
		PRISM_TX_THETAS="$2" PRISM_TX_VALUES="$FIG_VALUE" PRISM_TX_MS="$FIG_MS" \
		PRISM_TX_KEYS="$FIG_KEYS"
}

# fig_end: the report of this figure.
fig_end() {
	python3 "$fig_here/report.py" "$fig" "$fdir" || fig_fail "report.py failed"
}
