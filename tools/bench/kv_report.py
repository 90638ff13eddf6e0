#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of tools/bench/kv.sh: merges its per-point JSON lines into
bench-kv.json and gnuplot data (arguments: see kv.sh; values is the list
of value sizes, space separated)."""
import json, sys
src, dst, dat, nclients, records, values, secs = sys.argv[1:8]
rows = [json.loads(l) for l in open(src) if l.strip()]
by = {(r["system"], r["value"], r["workload"], r["dist"]): r for r in rows}
# points in the order they ran: value size, workload, distribution
points = []
for r in rows:
    p = (r["value"], r["workload"], r["dist"])
    if p not in points:
        points.append(p)
ratios = []
for v, w, d in points:
    p = by.get(("prism", v, w, d))
    if not p:
        continue
    e = {"value": v, "workload": w, "dist": d}
    for other in ("pilaf", "memcached"):
        o = by.get((other, v, w, d))
        if o and o["throughput"] and p["p99_us"]:
            e["throughput_prism_over_" + other] = round(p["throughput"] / o["throughput"], 3)
            e["mean_latency_prism_over_" + other] = round(p["mean_us"] / o["mean_us"], 3)
            e["p99_latency_prism_over_" + other] = round(p["p99_us"] / o["p99_us"], 3)
    ratios.append(e)
doc = {
    "benchmark": "PRISM-KV YCSB-style (tools/bench/kv.sh)",
    "config": {"clients": int(nclients), "records": int(records),
               "value_bytes": [int(x) for x in values.split()],
               "seconds_per_point": float(secs),
               "zipf_theta": 0.99, "read_share": {"A": 0.5, "B": 0.95, "C": 1.0}},
    "results": rows,
    "ratios": ratios,
}
json.dump(doc, open(dst, "w"), indent=1)
systems = [s for s in ("prism", "pilaf", "memcached") if any(k[0] == s for k in by)]
with open(dat, "w") as f:
    f.write("point " + " ".join(f"{s}_kops {s}_p99" for s in systems) + "\n")
    for v, w, d in points:
        cols = []
        for s in systems:
            r = by.get((s, v, w, d))
            cols += [f"{r['throughput'] / 1000:.3f}", f"{r['p99_us']:.0f}"] if r else ["NaN", "NaN"]
        f.write(f"{v}B-{w}-{d} " + " ".join(cols) + "\n")
for e in ratios:
    print("bench-kv: ratio", json.dumps(e))
