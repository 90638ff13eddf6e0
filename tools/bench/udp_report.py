#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of tools/bench/udp.sh: from the raw outputs of its rounds,
udp-bench.json, .csv, .md (the table and the goals of issue 20) and
udp-bench.dat / udp-bench-tput.dat (gnuplot) in OUT; on stdout the table
and one "CHECK 0|1 what" line per assertion.

  udp_report.py RAW OUT ROUNDS N COMMIT

RAW holds uring-T-R.json (bench_uring) and indirect-T-R.json
(bench_indirect) for T in eth, udp4, udp6 and R in 1..ROUNDS.
"""
import json, os, statistics, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_report import check, print_checks, ratio, fmt

raw, out, rounds, n, commit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
T = ["eth", "udp4", "udp6"]
NAMES = {"eth": "raw Ethernet", "udp4": "UDP/IPv4", "udp6": "UDP/IPv6"}
# metric -> (file kind, path in the JSON)
METRICS = {
    "read512_p50": ("uring", ("results", "read512", "sync_d1", "p50")),
    "read512_p99": ("uring", ("results", "read512", "sync_d1", "p99")),
    "cas8_p50": ("uring", ("results", "cas8", "sync_d1", "p50")),
    "cas8_p99": ("uring", ("results", "cas8", "sync_d1", "p99")),
    "indirect_p50": ("indirect", ("results", "prism_indirect_read", "median")),
    "indirect_p99": ("indirect", ("results", "prism_indirect_read", "p99")),
    "read512_d64_kops": ("uring", ("results", "read512", "ring_d64", "ops_per_s_segment_median")),
    "cas8_d64_kops": ("uring", ("results", "cas8", "ring_d64", "ops_per_s_segment_median")),
}


def get(d, path):
    for p in path:
        d = d.get(p) if isinstance(d, dict) else None
    return d


vals = {t: {m: [] for m in METRICS} for t in T}
for t in T:
    for r in range(1, rounds + 1):
        for m, (kind, path) in METRICS.items():
            try:
                v = get(json.load(open(os.path.join(raw, "%s-%s-%d.json" % (kind, t, r)))), path)
            except (OSError, ValueError):
                v = None
            if v is not None:
                vals[t][m].append(v / 1000 if m.endswith("kops") else v)
med = {t: {m: statistics.median(v) if v else None for m, v in vals[t].items()} for t in T}
for t in T:
    for m in METRICS:
        check(len(vals[t][m]) == rounds, "%s %s: %d of %d rounds" % (NAMES[t], m, len(vals[t][m]), rounds))

try:
    kernel = open(os.path.join(raw, "kernel")).read().strip()
except OSError:
    kernel = "unknown"
res = {"bench": "udp", "date": time.strftime("%Y-%m-%d"), "commit": commit, "kernel": kernel,
       "rounds": rounds, "chains_per_mode_and_round": n, "unit_latency": "us",
       "unit_throughput": "kops/s", "median_of_rounds": med,
       "ratios_to_eth": {t: {m: ratio(med[t][m], med["eth"][m]) for m in METRICS} for t in T[1:]},
       "rounds_raw": vals}
json.dump(res, open(os.path.join(out, "udp-bench.json"), "w"), indent=1)

with open(os.path.join(out, "udp-bench.csv"), "w") as f:
    f.write("metric," + ",".join(T) + ",udp4_over_eth,udp6_over_eth\n")
    for m in METRICS:
        f.write("%s,%s,%s,%s\n" % (m, ",".join(fmt(med[t][m], 2) for t in T),
                                   fmt(ratio(med["udp4"][m], med["eth"][m]), 3),
                                   fmt(ratio(med["udp6"][m], med["eth"][m]), 3)))
with open(os.path.join(out, "udp-bench.dat"), "w") as f:
    f.write("# op eth udp4 udp6 (p50 latency, us)\n")
    for m, label in (("read512_p50", "READ-512"), ("cas8_p50", "CAS-8"), ("indirect_p50", "indirect-READ-512")):
        f.write("%s %s\n" % (label, " ".join(fmt(med[t][m], 2) for t in T)))
with open(os.path.join(out, "udp-bench-tput.dat"), "w") as f:
    f.write("# op eth udp4 udp6 (kops/s, io_uring depth 64)\n")
    for m, label in (("read512_d64_kops", "READ-512"), ("cas8_d64_kops", "CAS-8")):
        f.write("%s %s\n" % (label, " ".join(fmt(med[t][m], 2) for t in T)))

lines = ["| metric | raw Ethernet | UDP/IPv4 | UDP/IPv6 | IPv4 / raw | IPv6 / raw |",
         "| --- | --- | --- | --- | --- | --- |"]
for m in METRICS:
    lines.append("| %s | %s | %s | %s | %s | %s |" % (
        m, fmt(med["eth"][m]), fmt(med["udp4"][m]), fmt(med["udp6"][m]),
        fmt(ratio(med["udp4"][m], med["eth"][m]), 2), fmt(ratio(med["udp6"][m], med["eth"][m]), 2)))
open(os.path.join(out, "udp-bench.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
for t in T[1:]:
    for m in ("read512_p50", "cas8_p50", "indirect_p50"):
        r = ratio(med[t][m], med["eth"][m])
        print("goal %s %s <= 1.1 x raw: %s (%s)" % (NAMES[t], m, fmt(r, 2),
                                                    "met" if r is not None and r <= 1.1 else "missed"))
print_checks()
