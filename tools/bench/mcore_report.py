#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of tools/bench/mcore.sh: from its runs (bench-mcore.dat) the
medians per mode, bench-mcore.json, bench-mcore.md (table, ratios to the
pinned mode, the goal of issue 19) and bench-mcore-plot.dat (gnuplot) in
OUT; the table on stdout.

  mcore_report.py DAT OUT KERNEL COMMIT CLIENTS N DEPTH

DAT lines: mode round clients wall_ms ops_wall ops_sum p50_us p99_us
retransmits nacks cpu0_busy cpu0_softirq cpu1_busy cpu1_softirq rx_dropped
"""
import json, os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_report import mode_medians, mode_runs

dat, out, kver, commit = sys.argv[1:5]
clients, n, depth = (int(x) for x in sys.argv[5:8])
cols = ["wall_ms", "ops_wall", "ops_sum", "p50_us", "p99_us", "retransmits",
        "nacks", "cpu0_busy", "cpu0_softirq", "cpu1_busy", "cpu1_softirq", "rx_dropped"]
runs, order = mode_runs(dat, cols)

med = mode_medians(runs, cols, ("retransmits", "nacks", "rx_dropped"))
base = med.get("pinned", {}).get("ops_wall")
for m in med:
    med[m]["x_pinned"] = round(med[m]["ops_wall"] / base, 3) if base else None
goal = med.get("steered", {}).get("x_pinned")

what = {"pinned": "RPS to CPU 0, steer=0", "steered": "RPS to CPU 0, steer=1 (all CPUs)",
        "steer1": "RPS to CPU 0, steer=1, steer_cpus=0", "native": "no RPS, steer=0 (veth: sender's CPU)"}
rows = ["| mode | setting | runs | ops/s (total / wall) | x pinned | ops/s (sum of clients) "
        "| p50 us | p99 us | CPU0 busy / softirq % | CPU1 busy / softirq % | retx | NACKs | rx drops |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for m in order:
    v = med[m]
    rows.append("| %s | %s | %d | %.0f | %s | %.0f | %.0f | %.0f | %.0f / %.0f | %.0f / %.0f | %d | %d | %d |" % (
        m, what.get(m, m), v["runs"], v["ops_wall"],
        "%.2fx" % v["x_pinned"] if v["x_pinned"] else "-", v["ops_sum"], v["p50_us"],
        v["p99_us"], v["cpu0_busy"], v["cpu0_softirq"], v["cpu1_busy"],
        v["cpu1_softirq"], v["retransmits"], v["nacks"], v["rx_dropped"]))
verdict = ("steered / pinned = %.2fx: goal (>= 1.6x) %s" % (goal, "MET" if goal >= 1.6 else "NOT met")
           if goal else "steered or pinned missing: no verdict")
head = ("READ 8 B, %d clients x depth %d, %d measured READs per client and run; "
        "medians of the runs; kernel %s, commit %s, %s" %
        (clients, depth, n, kver, commit, time.strftime("%Y-%m-%d")))
with open(os.path.join(out, "bench-mcore.md"), "w") as f:
    f.write(head + "\n\n" + "\n".join(rows) + "\n\n" + verdict + "\n")
with open(os.path.join(out, "bench-mcore-plot.dat"), "w") as f:
    f.write("# mode ops_wall ops_sum cpu0_busy cpu0_softirq cpu1_busy cpu1_softirq\n")
    for m in order:
        v = med[m]
        f.write("%s %.0f %.0f %.0f %.0f %.0f %.0f\n" % (
            m, v["ops_wall"], v["ops_sum"], v["cpu0_busy"], v["cpu0_softirq"],
            v["cpu1_busy"], v["cpu1_softirq"]))
with open(os.path.join(out, "bench-mcore.json"), "w") as f:
    json.dump({"benchmark": "mcore", "kernel": kver, "commit": commit,
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "clients": clients, "n": n, "depth": depth, "modes": med,
               "runs": runs, "steered_x_pinned": goal}, f, indent=1)
print(head)
print("\n".join(rows))
print(verdict)
