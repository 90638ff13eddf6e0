#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of the benchmarks with clients on several hosts (kv_mh.sh,
tx_mh.sh): their merged JSON lines (one per system and point: result-merge
or kv merge fields plus system, workload, dist, theta, server_cpu_s) into
OUT/bench-NAME.json and .md, the timelines as gnuplot data (a column per
system and point), and CHECK lines (0 pass, 1 fail).  PRISM is compared
with the other system of each point (Pilaf, FaRM).

Arguments: NAME RESULTS OUT TIMELINE_DAT HOSTS PROCS DEPTH OBJECTS VALUE
SECONDS INTERVAL_MS."""
import json
import os
import platform
import sys
import time

name, src, out, dat = sys.argv[1:5]
hosts, procs, depth, records, value = (int(x) for x in sys.argv[5:10])
secs, iv = float(sys.argv[10]), int(sys.argv[11])
rows = [json.loads(l) for l in open(src) if l.strip()]
clients = hosts * procs


def point(r):
    d = r["dist"] if r["dist"] == "uniform" else "zipf-%g" % r["theta"]
    return "%s-%s" % (r["workload"], d)


def label(s):
    return {"prism": "PRISM", "pilaf": "Pilaf", "farm": "FaRM"}.get(s, s)


checks, table = [], []
series = []
for r in rows:
    col = "%s:%s" % (r["system"], point(r))
    tl = [float(x) for x in r.get("timeline", "").split()]
    r["timeline_ops_per_s"] = tl
    r.pop("timeline", None)
    want = int(secs * 1000 / iv) - 1
    checks.append((r["errors"] == 0 and r["ops"] > 0,
                   "%s: %d ops, %d failed or wrong" % (col, r["ops"], r["errors"])))
    checks.append((r["clients"] == clients,
                   "%s: results of all %d client processes merged (%d)" % (col, clients, r["clients"])))
    stalls = sum(1 for x in tl if x == 0)
    checks.append((len(tl) >= want and stalls == 0,
                   "%s: throughput over time, %d intervals of %d ms (%d wanted), %d without an op"
                   % (col, len(tl), iv, want, stalls)))
    if tl:
        mean = sum(tl) / len(tl)
        r["timeline_min_over_mean"] = round(min(tl) / mean, 3) if mean else 0
    series.append((col, tl))

by = {(r["system"], point(r)): r for r in rows}
ratios = []
for (s, p), r in by.items():
    others = [o for (os_, op), o in by.items() if op == p and os_ != "prism"]
    if s != "prism" or not others:
        continue
    o = others[0]
    ratios.append({"point": p, "baseline": o["system"],
                   "throughput_ratio": round(r["throughput"] / o["throughput"], 3) if o["throughput"] else None,
                   "p50_ratio": round(r["p50_us"] / o["p50_us"], 3) if o["p50_us"] else None,
                   "p99_ratio": round(r["p99_us"] / o["p99_us"], 3) if o["p99_us"] else None})
doc = {"benchmark": "%s: PRISM vs its baseline, clients on several hosts (tools/bench/%s.sh)"
       % (name, name.replace("-", "_")),
       "config": {"client_hosts": hosts, "processes_per_host": procs,
                  "depth_per_process": depth, "objects": records,
                  "value_bytes": value, "seconds_per_point": secs,
                  "interval_ms": iv,
                  "commit": os.environ.get("PRISM_BENCH_COMMIT", "unknown"),
                  "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  "kernel": platform.release()},
       "results": rows, "ratios": ratios}
json.dump(doc, open("%s/bench-%s.json" % (out, name), "w"), indent=1)

with open("%s/bench-%s.md" % (out, name), "w") as f:
    f.write("| system | point | ops/s | p50 us | p99 us | server CPU s | min/mean of the timeline |\n")
    f.write("| --- | --- | --- | --- | --- | --- | --- |\n")
    for r in rows:
        f.write("| %s | %s | %.0f | %.1f | %.1f | %.2f | %s |\n"
                % (label(r["system"]), point(r), r["throughput"], r["p50_us"], r["p99_us"],
                   r["server_cpu_s"], r.get("timeline_min_over_mean", "-")))
    if ratios:
        f.write("\n| point | PRISM over | throughput ratio | p50 ratio | p99 ratio |\n")
        f.write("| --- | --- | --- | --- | --- |\n")
        for e in ratios:
            f.write("| %s | %s | %s | %s | %s |\n" % (e["point"], label(e["baseline"]), e["throughput_ratio"],
                                                      e["p50_ratio"], e["p99_ratio"]))

# PRISM's columns first, then the baseline's, each in the order of the
# points (mh_finish colours point i of each the same, the baseline dashed)
series.sort(key=lambda st: not st[0].startswith("prism:"))
n = max((len(tl) for _, tl in series), default=0)
with open(dat, "w") as f:
    f.write("t " + " ".join(col for col, _ in series) + "\n")
    for i in range(n):
        f.write("%.3f %s\n" % ((i + 0.5) * iv / 1000.0,
                               " ".join("%.0f" % tl[i] if i < len(tl) else "NaN" for _, tl in series)))

for r in rows:
    print("%-6s %-14s %8.0f ops/s  p50 %7.1f us  p99 %8.1f us" %
          (r["system"], point(r), r["throughput"], r["p50_us"], r["p99_us"]))
for e in ratios:
    print("%-14s PRISM/%s: throughput %s, p50 %s" %
          (e["point"], label(e["baseline"]), e["throughput_ratio"], e["p50_ratio"]))
for ok, what in checks:
    print("CHECK %d %s" % (0 if ok else 1, what))
