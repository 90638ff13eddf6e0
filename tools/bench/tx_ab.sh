#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A/B benchmark of two builds of apps/tx (tx_server and tx_client), run
# INSIDE the guest as root: each run is one tools/bench/tx.sh (YCSB-T,
# PRISM-TX and FaRM-style back to back, fresh shard servers) with
# PRISM_TX_BIN set to A or B.  R rounds, each runs A and B in alternating
# order (A B, B A, ...) so that drift of a loaded TCG guest hits both
# alike.  The FaRM-style points are the control: their code is the same in
# both builds unless B changed it, so their B/A shows the noise.
#
#   PRISM_OUT=/tmp/out tools/vm/run.sh --timeout 1800 -- tools/bench/tx_ab.sh A_DIR B_DIR
#
# Environment: PRISM_TX_AB_ROUNDS (3), PRISM_TX_AB_LABEL_A/B (default the
# directories' names, or A and B when they are the same), and tx.sh's (PRISM_TX_THETAS, PRISM_TX_MS,
# PRISM_TX_THREADS, PRISM_TX_KEYS, PRISM_TX_VALUES ...).  Results in
# $PRISM_OUT (default <repo>/build/vm-out): tx-ab.json (every run's points,
# medians over the rounds, B/A), tx-ab.txt (the table), tx-ab.png, and
# tx-ab-runs/NN-LABEL/ (each run's tx.sh output).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"	# ab_alternate
[ $# -eq 2 ] || { echo "usage: tx_ab.sh A_DIR B_DIR" >&2; exit 2; }
a=$(cd "$1" && pwd) && b=$(cd "$2" && pwd) || exit 2
la=${PRISM_TX_AB_LABEL_A:-$(basename "$a")}
lb=${PRISM_TX_AB_LABEL_B:-$(basename "$b")}
# Two builds are usually both .../apps/tx/build: then just A and B.
[ "$la" = "$lb" ] && la=A lb=B
rounds=${PRISM_TX_AB_ROUNDS:-3}
out=${PRISM_OUT:-$repo/build/vm-out}
runs=$out/tx-ab-runs
rm -rf "$runs"
mkdir -p "$runs" || exit 1
# one_run K W: run K, of build W (A or B).
one_run() {
	local dir label d
	if [ "$2" = A ]; then dir=$a label=$la; else dir=$b label=$lb; fi
	d=$(printf '%s/%02d-%s' "$runs" "$1" "$label")
	mkdir -p "$d"
	echo "== run $1: $label"
	PRISM_TX_BIN=$dir PRISM_OUT=$d "$here/tx.sh" >"$d/tx.log" 2>&1 ||
		{ echo "tx.sh failed (run $1, $label):" >&2; tail -n 20 "$d/tx.log" >&2; return 1; }
	grep -v '^results\|^plot' "$d/tx.log"
}
ab_alternate "$rounds" one_run || exit 1
python3 - "$runs" "$la" "$lb" "$out" <<'EOF'
import json, os, statistics, sys
runs, la, lb, out = sys.argv[1:5]
pts = {}
allruns = []
for d in sorted(os.listdir(runs)):
    label = d.split("-", 1)[1]
    j = json.load(open(os.path.join(runs, d, "bench-tx.json")))
    allruns.append({"run": d, "label": label, "points": j["points"]})
    for p in j["points"]:
        key = (p["proto"], p["value"], p["theta"])
        for m in ("tput_tps", "lat_mean_us", "lat_p99_us", "abort_rate"):
            pts.setdefault((label,) + key, {}).setdefault(m, []).append(float(p[m]))
rows = []
for (label, proto, value, theta), ms in sorted(pts.items()):
    if label != la:
        continue
    other = pts.get((lb, proto, value, theta))
    if not other:
        continue
    row = {"proto": proto, "value": value, "theta": theta}
    for m in ms:
        ma, mb = statistics.median(ms[m]), statistics.median(other[m])
        row[m] = {"a": ma, "b": mb, "b_over_a": mb / ma if ma else None}
    rows.append(row)
txt = ["%-6s %-6s %-6s %12s %12s %7s %10s %10s %7s" % ("proto", "value", "theta",
       "tput " + la[:6], "tput " + lb[:6], "B/A", "mean A", "mean B", "B/A")]
for r in rows:
    t, l = r["tput_tps"], r["lat_mean_us"]
    txt.append("%-6s %-6s %-6s %12.1f %12.1f %7.3f %10.0f %10.0f %7.3f" % (
        r["proto"], r["value"], r["theta"], t["a"], t["b"], t["b_over_a"] or 0,
        l["a"], l["b"], l["b_over_a"] or 0))
open(os.path.join(out, "tx-ab.txt"), "w").write("\n".join(txt) + "\n")
json.dump({"a": la, "b": lb, "rows": rows, "runs": allruns},
          open(os.path.join(out, "tx-ab.json"), "w"), indent=1)
with open(os.path.join(out, "tx-ab.dat"), "w") as f:
    for i, r in enumerate(rows):
        f.write("%d \"%s %sB θ%s\" %.4f %.4f\n" % (i, r["proto"], r["value"], r["theta"],
                r["tput_tps"]["b_over_a"] or 0, r["lat_mean_us"]["b_over_a"] or 0))
print("\n".join(txt))
EOF
if command -v gnuplot >/dev/null; then
	XDG_CACHE_HOME=$(mktemp -d) gnuplot <<GP
set terminal pngcairo size 1000,450 noenhanced
set output "$out/tx-ab.png"
set title "YCSB-T, $lb over $la (median of $rounds rounds each, TCG guest)"
set style data histograms
set style fill solid 0.6 border -1
set yrange [0:*]
set grid y
set xtics rotate by -30
set ylabel "B / A"
set key outside top center horizontal
plot "$out/tx-ab.dat" using 3:xtic(2) title "throughput", "" using 4 title "mean latency", 1 with lines dt 2 lc rgb "black" notitle
GP
fi
echo "results: $out/tx-ab.json $out/tx-ab.txt $out/tx-ab.png"
