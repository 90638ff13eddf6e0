#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A/B benchmark of two builds of the module on keyed chains, run INSIDE
# the guest as root: tools/bench/keyed.sh (plain and sealed chains
# interleaved in one run, MTU 1500 and 9000) with PRISM_KO = A and B, in
# the order A B B A A B ... (PRISM_AB_ROUNDS rounds, default 2).  Each
# run's own keyed/plain ratios are the metric (plain chains are the same
# code in A and B, so they absorb the drift of a loaded TCG host): per
# build the median over its runs of p50 keyed / plain at depth 1 and of
# ops/s keyed / plain at depth 64, for sealed chains with AES-NI
# ("keyed") and in C ("keyedc"), and B/A.
#
#   make -C tools/bench                                   # on the host
#   PRISM_OUT=/tmp/out tools/vm/run.sh --timeout 3000 -- \
#       tools/bench/keyed_ab.sh A.ko B.ko
#
# Environment: PRISM_AB_ROUNDS, PRISM_AB_LABEL_A, PRISM_AB_LABEL_B
# (default: the .ko basenames), and keyed.sh's (PRISM_BENCH_N, _WARMUP,
# _ROUNDS); PRISM_OUT (default <repo>/build/vm-out): keyed-ab.json,
# keyed-ab.txt (the table) and keyed-ab-runs/NN-LABEL/ (each run's).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"	# ab_alternate
[ $# -eq 2 ] || { echo "usage: keyed_ab.sh A.ko B.ko" >&2; exit 2; }
A=$1 B=$2
LA=${PRISM_AB_LABEL_A:-$(basename "$A" .ko)}
LB=${PRISM_AB_LABEL_B:-$(basename "$B" .ko)}
R=${PRISM_AB_ROUNDS:-2}
out=${PRISM_OUT:-$repo/build/vm-out}
runs=$out/keyed-ab-runs
rm -rf "$runs" && mkdir -p "$runs" || { echo "keyed_ab: cannot create $runs" >&2; exit 1; }
[ -d /sys/module/prism ] && { echo "keyed_ab: unload prism first" >&2; exit 1; }

# one_run K W: run K, of module W (A or B).
one_run() {
	local ko l d
	if [ "$2" = A ]; then ko=$A l=$LA; else ko=$B l=$LB; fi
	d=$(printf '%s/%02d-%s' "$runs" "$1" "$2")
	mkdir -p "$d"
	echo "# keyed_ab: run $1: $2 ($l)"
	PRISM_KO=$ko PRISM_OUT=$d "$here/keyed.sh" > "$d/keyed.txt" 2>&1 ||
		{ tail -5 "$d/keyed.txt"; echo "keyed_ab: run $1 ($2) failed" >&2; return 1; }
}
ab_alternate "$R" one_run || exit 1

python3 - "$runs" "$out" "$LA" "$LB" <<'PY'
import glob, json, os, statistics, sys
runs, out, la, lb = sys.argv[1:5]
vals = {}
for d in sorted(glob.glob(os.path.join(runs, "*-[AB]"))):
    w = d[-1]
    for mtu in (1500, 9000):
        f = os.path.join(d, "bench-keyed-mtu%d.json" % mtu)
        for name, v in json.load(open(f))["results"].items():
            op, kind, depth = name.split("_")
            if kind == "plain":
                continue
            key = "mtu%d %s %s %s" % (mtu, op, kind, depth)
            m = v["p50_over_plain"] if depth == "d1" else v["ops_over_plain"]
            vals.setdefault(key, {}).setdefault(w, []).append(m)
rows, res = [], {}
for key in sorted(vals):
    a, b = (statistics.median(vals[key].get(w, [0])) for w in "AB")
    res[key] = {"A": vals[key].get("A"), "B": vals[key].get("B"), "A_median": a,
                "B_median": b, "B_over_A": round(b / a, 3) if a else None}
    what = "p50 keyed/plain" if key.endswith("d1") else "ops/s keyed/plain"
    rows.append("| %s | %s | %.2f | %.2f | %.2f |" % (key, what, a, b, b / a if a else 0))
table = ("| mtu op kind depth | metric | A (%s) | B (%s) | B/A |\n| --- | --- | ---: | ---: | ---: |\n"
         % (la, lb)) + "\n".join(rows)
open(os.path.join(out, "keyed-ab.txt"), "w").write(table + "\n")
json.dump({"benchmark": "keyed-ab", "A": la, "B": lb, "metrics": res},
          open(os.path.join(out, "keyed-ab.json"), "w"), indent=1)
print(table)
PY
