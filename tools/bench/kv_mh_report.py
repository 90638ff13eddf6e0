#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of tools/bench/kv_mh.sh: its merged JSON lines (one per store
and point) into OUT/bench-kv-mh.json and .md, the timelines as gnuplot
data (a column per store and point), and CHECK lines (0 pass, 1 fail).

Arguments: RESULTS OUT TIMELINE_DAT HOSTS PROCS DEPTH RECORDS VALUE SECONDS
INTERVAL_MS."""
import json
import sys

src, out, dat = sys.argv[1:4]
hosts, procs, depth, records, value = (int(x) for x in sys.argv[4:9])
secs, iv = float(sys.argv[9]), int(sys.argv[10])
rows = [json.loads(l) for l in open(src) if l.strip()]
clients = hosts * procs


def point(r):
    d = r["dist"] if r["dist"] == "uniform" else "zipf-%g" % r["theta"]
    return "%s-%s" % (r["workload"], d)


checks, table = [], []
series = []
for r in rows:
    name = "%s:%s" % (r["system"], point(r))
    tl = [float(x) for x in r.get("timeline", "").split()]
    r["timeline_ops_per_s"] = tl
    r.pop("timeline", None)
    want = int(secs * 1000 / iv) - 1
    checks.append((r["errors"] == 0 and r["ops"] > 0,
                   "%s: %d ops, %d failed or wrong" % (name, r["ops"], r["errors"])))
    checks.append((r["clients"] == clients,
                   "%s: results of all %d client processes merged (%d)" % (name, clients, r["clients"])))
    stalls = sum(1 for x in tl if x == 0)
    checks.append((len(tl) >= want and stalls == 0,
                   "%s: throughput over time, %d intervals of %d ms (%d wanted), %d without an op"
                   % (name, len(tl), iv, want, stalls)))
    if tl:
        mean = sum(tl) / len(tl)
        r["timeline_min_over_mean"] = round(min(tl) / mean, 3) if mean else 0
    series.append((name, tl))

by = {(r["system"], point(r)): r for r in rows}
ratios = []
for (s, p), r in by.items():
    if s != "prism" or ("pilaf", p) not in by:
        continue
    o = by[("pilaf", p)]
    ratios.append({"point": p,
                   "throughput_prism_over_pilaf": round(r["throughput"] / o["throughput"], 3) if o["throughput"] else None,
                   "p50_prism_over_pilaf": round(r["p50_us"] / o["p50_us"], 3) if o["p50_us"] else None,
                   "p99_prism_over_pilaf": round(r["p99_us"] / o["p99_us"], 3) if o["p99_us"] else None})
doc = {"benchmark": "PRISM-KV vs Pilaf, clients on several hosts (tools/bench/kv_mh.sh)",
       "config": {"client_hosts": hosts, "processes_per_host": procs,
                  "depth_per_process": depth, "records": records,
                  "value_bytes": value, "seconds_per_point": secs,
                  "interval_ms": iv},
       "results": rows, "ratios": ratios}
json.dump(doc, open(out + "/bench-kv-mh.json", "w"), indent=1)

with open(out + "/bench-kv-mh.md", "w") as f:
    f.write("| store | point | ops/s | p50 us | p99 us | server CPU s | min/mean of the timeline |\n")
    f.write("| --- | --- | --- | --- | --- | --- | --- |\n")
    for r in rows:
        f.write("| %s | %s | %.0f | %.1f | %.1f | %.2f | %s |\n"
                % (r["system"], point(r), r["throughput"], r["p50_us"], r["p99_us"],
                   r["server_cpu_s"], r.get("timeline_min_over_mean", "-")))
    if ratios:
        f.write("\n| point | throughput PRISM/Pilaf | p50 PRISM/Pilaf | p99 PRISM/Pilaf |\n")
        f.write("| --- | --- | --- | --- |\n")
        for e in ratios:
            f.write("| %s | %s | %s | %s |\n" % (e["point"], e["throughput_prism_over_pilaf"],
                                                 e["p50_prism_over_pilaf"], e["p99_prism_over_pilaf"]))

n = max((len(tl) for _, tl in series), default=0)
with open(dat, "w") as f:
    f.write("t " + " ".join(name for name, _ in series) + "\n")
    for i in range(n):
        f.write("%.3f %s\n" % ((i + 0.5) * iv / 1000.0,
                               " ".join("%.0f" % tl[i] if i < len(tl) else "NaN" for _, tl in series)))

for r in rows:
    print("%-6s %-14s %8.0f ops/s  p50 %7.1f us  p99 %8.1f us" %
          (r["system"], point(r), r["throughput"], r["p50_us"], r["p99_us"]))
for e in ratios:
    print("%-14s PRISM/Pilaf: throughput %s, p50 %s" %
          (e["point"], e["throughput_prism_over_pilaf"], e["p50_prism_over_pilaf"]))
for ok, what in checks:
    print("CHECK %d %s" % (0 if ok else 1, what))
