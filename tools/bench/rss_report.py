#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of tools/bench/rss_mh.sh: from its runs (bench-rss.dat) the
medians per mode, the share of packets each receive queue of the target
got, bench-rss.json, bench-rss.md (table, ratio to udp-q1, the goal of
issue 20) and bench-rss-plot.dat (gnuplot) in OUT; the table and the
checks ("CHECK 0|1 what") on stdout.

  rss_report.py DAT OUT KERNEL COMMIT CLIENTS N DEPTH

DAT lines: mode round clients wall_ms ops_wall ops_sum p50_us p99_us
retransmits rxq0 rxq1 cpu0_busy cpu0_softirq cpu1_busy cpu1_softirq
"""
import json, os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_report import check, mode_medians, mode_runs, print_checks

dat, out, kver, commit = sys.argv[1:5]
clients, n, depth = (int(x) for x in sys.argv[5:8])
cols = ["wall_ms", "ops_wall", "ops_sum", "p50_us", "p99_us", "retransmits",
        "rxq0", "rxq1", "cpu0_busy", "cpu0_softirq", "cpu1_busy", "cpu1_softirq"]
runs, order = mode_runs(dat, cols)


def shares(r):
    tot = r["rxq0"] + r["rxq1"]
    return [100.0 * r["rxq0"] / tot, 100.0 * r["rxq1"] / tot] if tot else [0.0, 0.0]


med = mode_medians(runs, cols, ("retransmits",))
for m, rs in runs.items():
    sh = [shares(r) for r in rs]
    med[m]["rxq_share_min"] = [min(s[0] for s in sh), min(s[1] for s in sh)]
    med[m]["rxq_share"] = shares({"rxq0": sum(r["rxq0"] for r in rs),
                                  "rxq1": sum(r["rxq1"] for r in rs)})
base = med.get("udp-q1", {}).get("ops_wall")
for m in med:
    med[m]["x_q1"] = round(med[m]["ops_wall"] / base, 3) if base else None
goal = med.get("udp-q2", {}).get("x_q1")

for m, rs in runs.items():
    for r in rs:
        s = shares(r)
        if m == "udp-q2":
            check(min(s) >= 10, "%s round %d: both receive queues got >= 10%% of the packets "
                  "(%.0f%% / %.0f%%)" % (m, r["round"], s[0], s[1]))
        elif m != "raw-steer":
            check(max(s) >= 99, "%s round %d: one receive queue got the packets "
                  "(%.0f%% / %.0f%%)" % (m, r["round"], s[0], s[1]))

what = {"udp-q1": "UDP/IPv4, 1 queue pair", "udp-q2": "UDP/IPv4, 2 queue pairs",
        "raw-q2": "raw Ethernet, 2 queue pairs", "raw-steer": "raw Ethernet, 2 queue pairs, steer=1"}
rows = ["| mode | setting | runs | ops/s (total / wall) | x udp-q1 | ops/s (sum of clients) "
        "| p50 us | p99 us | rx queue 0 / 1 (% of packets) | CPU0 busy / softirq % "
        "| CPU1 busy / softirq % | retx |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for m in order:
    v = med[m]
    rows.append("| %s | %s | %d | %.0f | %s | %.0f | %.0f | %.0f | %.0f / %.0f | %.0f / %.0f "
                "| %.0f / %.0f | %d |" % (
                    m, what.get(m, m), v["runs"], v["ops_wall"],
                    "%.2fx" % v["x_q1"] if v["x_q1"] else "-", v["ops_sum"], v["p50_us"],
                    v["p99_us"], v["rxq_share"][0], v["rxq_share"][1], v["cpu0_busy"],
                    v["cpu0_softirq"], v["cpu1_busy"], v["cpu1_softirq"], v["retransmits"]))
verdict = ("udp-q2 / udp-q1 = %.2fx: goal of issue 20 (>= 1.6x) %s" %
           (goal, "MET" if goal >= 1.6 else "NOT met") if goal else "udp-q1 or udp-q2 missing: no verdict")
st, raw = med.get("raw-steer", {}).get("ops_wall"), med.get("raw-q2", {}).get("ops_wall")
if st and raw:
    verdict += "\nraw-steer / raw-q2 = %.2fx: goal of issue 19 (steered >= 1.6x pinned) %s" % (
        st / raw, "MET" if st / raw >= 1.6 else "NOT met")
head = ("READ 8 B, %d clients x depth %d, %d measured READs per client and run; "
        "medians of the runs; kernel %s, commit %s, %s" %
        (clients, depth, n, kver, commit, time.strftime("%Y-%m-%d")))
with open(os.path.join(out, "bench-rss.md"), "w") as f:
    f.write(head + "\n\n" + "\n".join(rows) + "\n\n" + verdict + "\n")
with open(os.path.join(out, "bench-rss-plot.dat"), "w") as f:
    f.write("# mode ops_wall ops_sum rxq0_share rxq1_share\n")
    for m in order:
        v = med[m]
        f.write("%s %.0f %.0f %.1f %.1f\n" % (m, v["ops_wall"], v["ops_sum"],
                                             v["rxq_share"][0], v["rxq_share"][1]))
with open(os.path.join(out, "bench-rss.json"), "w") as f:
    json.dump({"benchmark": "rss", "kernel": kver, "commit": commit,
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "clients": clients, "n": n, "depth": depth, "modes": med,
               "runs": runs, "udp_q2_x_q1": goal}, f, indent=1)
print(head)
print("\n".join(rows))
print(verdict)
print_checks()
