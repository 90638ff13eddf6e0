#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of tools/bench/rxe.sh: latency and throughput tables, JSON and
plot data from the raw results it collected (arguments: see rxe.sh)."""
import json, os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_report import stats, perftest_samples
res, out, n, w, kver, mhz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
R = {}
CSW = {}
NAPI = []
for line in open(res):
    f = line.split()
    if len(f) == 4 and f[0] == "PERFTEST":
        # "#, cycles" then "i, sample": sample = cycles / rtt_factor
        # (ib_write_lat: half the ping-pong round trip)
        samples = perftest_samples(f[3], mhz)
        R[("perftest", f[1].rstrip("0123456789"), int(f[2]))] = stats(samples[w:w + n])
    elif len(f) == 3 and f[0] == "CSW":
        CSW[f[1]] = float(f[2])
    elif len(f) >= 3 and f[0].startswith("NAPI") and f[1] == "id":
        NAPI.append(line.strip())
    elif len(f) >= 10 and f[0] == "RESULT":
        R[(f[1], f[2], int(f[3]))] = dict(zip(["n", "median", "p99", "mean", "min", "max", "p90"],
                                        [int(f[4])] + [float(x) for x in f[5:11]]))
# perftest ib_write_lat is a ping-pong and reports half the round trip;
# every other number here is a full round trip (operation to completion).
for k, v in list(R.items()):
    if k[0] == "perftest" and k[1] == "write":
        R[("perftest_rtt", "write", k[2])] = {x: (y * 2 if x != "n" else y) for x, y in v.items()}
    elif k[0] == "perftest":
        R[("perftest_rtt",) + k[1:]] = v
rows = [("READ", "read", 8, "read", 8), ("READ", "read", 512, "read", 512),
        ("WRITE", "write", 8, "write", 8), ("WRITE", "write", 512, "write", 512),
        ("CAS", "cas", 8, "cas", 8),
        ("ptr+READ", "indread", 512, "dep2read", 512),
        ("2 READs", "dep2read", 512, "dep2read", 512)]
def g(k, f):
    return R.get(k, {}).get(f)
def ratio(a, b):
    return round(a / b, 3) if a and b else None
table = []
for label, pop, psz, rop, rsz in rows:
    p, v, t = ("prism", pop, psz), ("verbs", rop, rsz), ("perftest_rtt", rop, rsz)
    table.append({
        "label": label, "bytes": psz, "prism_op": pop, "rxe_op": rop,
        "prism": R.get(p), "rxe_verbs": R.get(v),
        "rxe_perftest": R.get(("perftest", rop, rsz)),
        "ratio_median_vs_verbs": ratio(g(p, "median"), g(v, "median")),
        "ratio_p99_vs_verbs": ratio(g(p, "p99"), g(v, "p99")),
        "ratio_p90_vs_verbs": ratio(g(p, "p90"), g(v, "p90")),
        "ratio_median_vs_perftest": ratio(g(p, "median"), g(t, "median")),
        "ratio_p99_vs_perftest": ratio(g(p, "p99"), g(t, "p99")),
        # PRISM alone, raw Ethernet and UDP/IPv4 (rxe.sh "PRISM over UDP")
        "prism_solo": R.get(("prism_solo", pop, psz)),
        "prism_udp4": R.get(("prism_udp4", pop, psz)),
        "ratio_udp4_median_vs_solo": ratio(g(("prism_udp4", pop, psz), "median"),
                                           g(("prism_solo", pop, psz), "median")),
        "ratio_udp4_median_vs_verbs": ratio(g(("prism_udp4", pop, psz), "median"), g(v, "median")),
        "ratio_udp4_median_vs_perftest": ratio(g(("prism_udp4", pop, psz), "median"),
                                               g(t, "median")),
    })
doc = {"benchmark": "rxe", "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "kernel": kver,
       "iterations": n, "warmup": w, "unit": "us", "tsc_mhz": mhz,
       "configuration": "root netns, veth pair va/vb with policy routing; rxe0 on va, rxe1 on vb; PRISM client on va, server on vb; clients pinned to CPU 0, servers to CPU 1",
       "notes": ["perftest: -C -U raw cycles, first `warmup` samples dropped, converted with tsc_mhz (rxe_lat tsc-mhz on the client CPU)",
                 "perftest write numbers are as reported (half of a write ping-pong); ratios use twice that",
                 "ptr+READ: one PRISM READ|INDIRECT vs two dependent rxe READs (8-byte pointer, then 512 bytes)",
                 "rxe_verbs and prism: one rxe_lat pair-client process, the two stacks interleaved op by op",
                 "rxe_verbs: RC QP, one signaled WR at a time, busy-polled CQ; prism: blocking prism_execute"],
       "rows": table}
# Busy polling (rxe.sh step 3): PRISM READ 8 series timed with the TSC,
# against perftest's READ 8 of the same run.
busy_names = {"block": "prism_execute, sleeps in recvmsg",
              "spin": "prism_execute_spin",
              "ring": "prism_ring, sleeps in io_uring_enter",
              "ringspin": "prism_ring_busy_poll"}
busy = []
ref = g(("perftest", "read", 8), "median")
# rxe_lat busy-client's series, in the order they were printed (CSW lines):
# prism-NAME[SUFFIX], SUFFIX naming the phase (+napi: veth NAPI and
# SO_BUSY_POLL; +busypoll: SO_BUSY_POLL)
for series in CSW:
    name, _, sfx = series[len("prism-"):].partition("+")
    k = (series, "read", 8)
    if k in R:
        busy.append({"series": k[0], "what": busy_names.get(name, name) + (", " + sfx if sfx else ""),
                     "stats": R[k], "sleeps_per_op": CSW.get(k[0]),
                     "ratio_median_vs_perftest": ratio(R[k]["median"], ref),
                     "ratio_p99_vs_perftest": ratio(R[k]["p99"], g(("perftest", "read", 8), "p99"))})
if busy:
    doc["busy_poll"] = {"perftest_read8": R.get(("perftest", "read", 8)), "series": busy, "napi": NAPI,
                        "notes": ["every series timed with rdtsc around one op (converted with tsc_mhz), like perftest",
                                  "series interleaved op by op in one rxe_lat busy-client process, order rotating",
                                  "sleeps_per_op: voluntary context switches of the client thread per op"]}
json.dump(doc, open(out + "/bench-rxe.json", "w"), indent=1)
with open(out + "/bench-rxe.csv", "w") as c:
    c.write("stack,op,bytes,n,median_us,p90_us,p99_us,mean_us,min_us,max_us\n")
    for (stack, op, size), v in sorted(R.items()):
        c.write("%s,%s,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n" % (stack, op, size, v["n"], v["median"], v.get("p90", float("nan")), v["p99"], v["mean"], v["min"], v["max"]))
with open(out + "/bench-rxe.dat", "w") as d:
    d.write("# label prism_med rxe_verbs_med rxe_perftest_med prism_p99 rxe_verbs_p99 rxe_perftest_p99\n")
    for r, (label, pop, psz, rop, rsz) in zip(table, rows):
        vals = [g(("prism", pop, psz), "median"), g(("verbs", rop, rsz), "median"),
                g(("perftest_rtt", rop, rsz), "median"),
                g(("prism", pop, psz), "p99"), g(("verbs", rop, rsz), "p99"),
                g(("perftest_rtt", rop, rsz), "p99")]
        d.write('"%s %d" %s\n' % (label, psz, " ".join("%.2f" % x if x else "NaN" for x in vals)))
f = lambda x: "%8.1f" % x if x else "       -"
r = lambda x: "%7.3f" % x if x else "      -"
print("PRISM vs rxe, %d iterations after %d warm-up, microseconds (TCG guest), full round trips" % (n, w))
print("%-14s | %8s %8s | %8s %8s | %8s %8s | %7s %7s %7s | %7s %7s" % (
    "op bytes", "PRISM", "p99", "verbs", "p99", "perftest", "p99",
    "P/verbs", "p90", "p99", "P/perf", "p99"))
for t, (label, pop, psz, rop, rsz) in zip(table, rows):
    print("%-14s | %s %s | %s %s | %s %s | %s %s %s | %s %s" % (
        "%s %d" % (label, psz),
        f(g(("prism", pop, psz), "median")), f(g(("prism", pop, psz), "p99")),
        f(g(("verbs", rop, rsz), "median")), f(g(("verbs", rop, rsz), "p99")),
        f(g(("perftest_rtt", rop, rsz), "median")), f(g(("perftest_rtt", rop, rsz), "p99")),
        r(t["ratio_median_vs_verbs"]), r(t["ratio_p90_vs_verbs"]), r(t["ratio_p99_vs_verbs"]),
        r(t["ratio_median_vs_perftest"]), r(t["ratio_p99_vs_perftest"])))
print("medians and p99 in us; ratios = PRISM / rxe (< 1: PRISM faster).  ptr+READ = PRISM READ|INDIRECT vs two dependent rxe READs.")
print("perftest WRITE = 2 x ib_write_lat's reported half round trip.")
if any(t["prism_udp4"] for t in table):
    print()
    print("PRISM alone, raw Ethernet vs UDP/IPv4 on the same pair (rxe is RoCEv2: UDP too)")
    print("%-14s | %8s %8s | %8s %8s | %7s %7s %7s" % (
        "op bytes", "raw", "p99", "UDP/IPv4", "p99", "U/raw", "U/verbs", "U/perf"))
    for t, (label, pop, psz, rop, rsz) in zip(table, rows):
        print("%-14s | %s %s | %s %s | %s %s %s" % (
            "%s %d" % (label, psz),
            f(g(("prism_solo", pop, psz), "median")), f(g(("prism_solo", pop, psz), "p99")),
            f(g(("prism_udp4", pop, psz), "median")), f(g(("prism_udp4", pop, psz), "p99")),
            r(t["ratio_udp4_median_vs_solo"]), r(t["ratio_udp4_median_vs_verbs"]),
            r(t["ratio_udp4_median_vs_perftest"])))
if busy:
    with open(out + "/bench-rxe-busy.dat", "w") as d:
        d.write("# label median p99\n")
        pt = R.get(("perftest", "read", 8))
        if pt:
            d.write('"perftest ib_read_lat" %.2f %.2f\n' % (pt["median"], pt["p99"]))
        for b in busy:
            d.write('"%s" %.2f %.2f\n' % (b["series"], b["stats"]["median"], b["stats"]["p99"]))
    print()
    print("Busy polling, READ 8, TSC-timed like perftest (microseconds); perftest ib_read_lat READ 8 median %s p99 %s" % (
        f(ref).strip(), f(g(("perftest", "read", 8), "p99")).strip()))
    print("%-20s | %8s %8s %8s | %7s %7s | %s" % ("series", "median", "p90", "p99", "P/perf", "p99", "sleeps/op"))
    for b in busy:
        st = b["stats"]
        print("%-20s | %s %s %s | %s %s | %s" % (b["series"], f(st["median"]), f(st["p90"]), f(st["p99"]),
              r(b["ratio_median_vs_perftest"]), r(b["ratio_p99_vs_perftest"]),
              "%.3f" % b["sleeps_per_op"] if b["sleeps_per_op"] is not None else "-"))
    for line in NAPI:
        print(line)
