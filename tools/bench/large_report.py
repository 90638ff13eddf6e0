#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report of tools/bench/large.sh: from the raw results it collected,
bench-large.json, .csv, .dat (gnuplot), .md (the table and the goals of
issue 14) in OUT, and on stdout the table and one "CHECK 0|1 what" line
per assertion on the results (large.sh turns them into TAP).

  large_report.py RES OUT KERNEL MHZ COMMIT "SIZES" "DEPTHS" N_NOTE

RES lines (large.sh writes them):
  RESULT prism|prism-ob|tcp OP SIZE DEPTH N MIB_S OPS_S P50 P99 MEAN MIN MAX
  RESULT tcp stream SIZE 0 N MIB_S OPS_S - - - - -
  STATS prism|prism-ob OP SIZE DEPTH key=value...

prism-ob: READs with output buffers (bench_large --outbuf), READ cells only.
  PERFBW OP SIZE DEPTH N MIB_S FILE     (perftest ib_OP_bw, BW average)
  PERFLAT OP SIZE N W FILE              (perftest ib_OP_lat -C -U, raw cycles)
"""
import json, os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_report import stats, perftest_samples, check, checks, print_checks, num, ratio, fmt

res, out, kver, mhz, commit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
sizes = [int(x) for x in sys.argv[6].split()]
depths = [int(x) for x in sys.argv[7].split()]
note = sys.argv[8] if len(sys.argv) > 8 else ""
ops = ["read", "write"]
R, S, LAT = {}, {}, {}


for line in open(res):
    f = line.split()
    if len(f) == 13 and f[0] == "RESULT":
        k = (f[1], f[2], int(f[3]), int(f[4]))
        R[k] = {"n": int(f[5]), "mib_s": num(f[6]), "ops_s": num(f[7]), "p50": num(f[8]),
                "p99": num(f[9]), "mean": num(f[10]), "min": num(f[11]), "max": num(f[12])}
    elif len(f) >= 5 and f[0] == "STATS":
        S[(f[1], f[2], int(f[3]), int(f[4]))] = dict(x.split("=", 1) for x in f[5:] if "=" in x)
    elif len(f) == 7 and f[0] == "PERFBW":
        size, depth, mib = int(f[2]), int(f[3]), num(f[5])
        R[("rxe", f[1], size, depth)] = {
            "n": int(f[4]), "mib_s": mib, "ops_s": mib * 1048576 / size if mib else None,
            # Little's law: the mean time an op spends in flight
            "mean": depth * size / (mib * 1048576) * 1e6 if mib else None}
    elif len(f) == 6 and f[0] == "PERFLAT":
        n, w = int(f[3]), int(f[4])
        v = perftest_samples(f[5], mhz)[w:w + n]
        if v:
            LAT[(f[1], int(f[2]))] = stats(v)
        check(len(v) == n, "perftest ib_%s_lat %d: %d samples of %d" % (f[1], int(f[2]), len(v), n))


def g(*k):
    return R.get(k[:-1], {}).get(k[-1])


def rxe_lat(op, size, depth):
    """rxe's latency: perftest's _lat median at depth 1 (ib_write_lat: half
    of its ping-pong, as perftest reports it), else the mean from Little's law."""
    if depth == 1 and (op, size) in LAT:
        return LAT[(op, size)]["median"], "lat"
    return g("rxe", op, size, depth, "mean"), "little"


rows = []
for op in ops:
    for size in sizes:
        for depth in depths:
            p, r, t = (g(s, op, size, depth, "mib_s") for s in ("prism", "rxe", "tcp"))
            rl, how = rxe_lat(op, size, depth)
            o = g("prism-ob", op, size, depth, "mib_s")
            rows.append({"op": op, "size": size, "depth": depth,
                         "prism": R.get(("prism", op, size, depth)), "rxe": R.get(("rxe", op, size, depth)),
                         "tcp": R.get(("tcp", op, size, depth)),
                         "prism_ob": R.get(("prism-ob", op, size, depth)),
                         "prism_stats": S.get(("prism", op, size, depth)),
                         "prism_ob_stats": S.get(("prism-ob", op, size, depth)),
                         "rxe_latency_us": rl, "rxe_latency_from": how,
                         "prism_over_rxe": ratio(p, r), "prism_over_tcp": ratio(p, t),
                         "prism_ob_over_prism": ratio(o, p), "prism_ob_over_rxe": ratio(o, r)})
            with_ob = ("prism-ob",) if op == "read" else ()
            for s in ("prism", "rxe", "tcp") + with_ob:
                v = g(s, op, size, depth, "mib_s")
                check(v and v > 0, "%s %s %d depth %d: throughput %s MiB/s" % (s, op, size, depth, v))
            for s in ("prism", "tcp") + with_ob:
                a, b = g(s, op, size, depth, "p50"), g(s, op, size, depth, "p99")
                check(a and b and 0 < a <= b, "%s %s %d depth %d: latency p50 %s <= p99 %s us" % (s, op, size, depth, a, b))
                check(g(s, op, size, depth, "n"), "%s %s %d depth %d: measured ops" % (s, op, size, depth))
        check(rxe_lat(op, size, 1)[1] == "lat" and rxe_lat(op, size, 1)[0] > 0,
              "perftest ib_%s_lat %d: a median" % (op, size))
streams = {size: R.get(("tcp", "stream", size, 0)) for size in sizes}
for size, v in streams.items():
    check(v and v["mib_s"] and v["mib_s"] > 0, "tcp stream %d: throughput" % size)

# The goals of issue 14, at 1 MiB (or the largest size measured)
big = 1048576 if 1048576 in sizes else max(sizes)
goals = []
miss = [(r["op"], r["size"], r["depth"], r["prism_over_rxe"]) for r in rows
        if not r["prism_over_rxe"] or r["prism_over_rxe"] < 1]
goals.append({"goal": "PRISM >= rxe throughput at every size and depth", "met": not miss,
              "detail": "lowest PRISM/rxe %s" % min((r["prism_over_rxe"] or 0) for r in rows),
              "missed": ["%s %d d%d: %s" % m for m in miss]})
dmax = max(depths)
stream = (streams.get(big) or {}).get("mib_s")
for op in ops:
    p = g("prism", op, big, dmax, "mib_s")
    goals.append({"goal": "PRISM %s %d (depth %d) >= 0.8x TCP stream of %d-byte writes" % (op.upper(), big, dmax, big),
                  "ratio": ratio(p, stream), "met": bool(p and stream and p >= 0.8 * stream)})
tl = g("tcp", "read", big, 1, "p50")
for s, name in (("prism", "PRISM"), ("prism-ob", "PRISM with output buffers")):
    pl = g(s, "read", big, 1, "p50")
    goals.append({"goal": "%s READ %d latency (p50, depth 1) <= 1.2x TCP ping-pong (16-byte request, %d-byte answer, p50)" % (name, big, big),
                  "ratio": ratio(pl, tl), "met": bool(pl and tl and pl <= 1.2 * tl)})
miss = [(r["size"], r["depth"], r["prism_ob_over_rxe"]) for r in rows
        if r["op"] == "read" and (not r["prism_ob_over_rxe"] or r["prism_ob_over_rxe"] < 1)]
goals.append({"goal": "PRISM READ with output buffers >= rxe throughput at every size and depth", "met": not miss,
              "missed": ["read %d d%d: %s" % m for m in miss]})
p = g("prism-ob", "read", big, dmax, "mib_s")
goals.append({"goal": "PRISM READ with output buffers %d (depth %d) >= 0.8x TCP stream of %d-byte writes" % (big, dmax, big),
              "ratio": ratio(p, stream), "met": bool(p and stream and p >= 0.8 * stream)})

date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
doc = {"benchmark": "large", "date": date, "kernel": kver, "commit": commit, "tsc_mhz": mhz,
       "sizes": sizes, "depths": depths, "iterations": note, "unit_throughput": "MiB/s",
       "unit_latency": "us", "rows": rows, "tcp_stream": streams, "goals": goals,
       "rxe_latency_depth1": {"%s %d" % k: v for k, v in LAT.items()},
       "checks": [{"ok": ok, "what": w} for ok, w in checks]}
with open(out + "/bench-large.json", "w") as fh:
    json.dump(doc, fh, indent=1)
    fh.write("\n")
check(json.load(open(out + "/bench-large.json"))["rows"] == json.loads(json.dumps(rows)),
      "bench-large.json reads back")

with open(out + "/bench-large.csv", "w") as c:
    c.write("stack,op,bytes,depth,n,mib_s,ops_s,p50_us,p99_us,mean_us,min_us,max_us\n")
    for (stack, op, size, depth), v in sorted(R.items()):
        c.write("%s,%s,%d,%d,%d,%s\n" % (stack, op, size, depth, v["n"], ",".join(
            "" if v.get(x) is None else "%.3f" % v[x]
            for x in ("mib_s", "ops_s", "p50", "p99", "mean", "min", "max"))))


def human(size):
    return "%d MiB" % (size >> 20) if size >= 1 << 20 and not size % (1 << 20) else \
        "%d KiB" % (size >> 10) if size >= 1024 and not size % 1024 else "%d B" % size


ndat = 0
with open(out + "/bench-large.dat", "w") as d:
    d.write("# label prism_mib_s rxe_mib_s tcp_mib_s prism_p50_us rxe_lat_us tcp_p50_us"
            " prism_ob_mib_s prism_ob_p50_us\n")
    for r in rows:
        k = (r["op"], r["size"], r["depth"])
        vals = [g("prism", *k, "mib_s"), g("rxe", *k, "mib_s"), g("tcp", *k, "mib_s"),
                g("prism", *k, "p50"), r["rxe_latency_us"], g("tcp", *k, "p50"),
                g("prism-ob", *k, "mib_s"), g("prism-ob", *k, "p50")]
        d.write('"%s %s d%d" %s\n' % (r["op"].upper(), human(r["size"]).replace(" ", ""), r["depth"],
                                      " ".join("%.3f" % x if x else "NaN" for x in vals)))
        ndat += 1
check(ndat == len(ops) * len(sizes) * len(depths), "bench-large.dat: %d rows" % ndat)

lines = ["| op | size | depth | PRISM MiB/s | PRISM-ob MiB/s | rxe MiB/s | TCP MiB/s | PRISM/rxe | PRISM-ob/PRISM | PRISM/TCP | PRISM p50 us | PRISM-ob p50 us | PRISM p99 us | rxe us | TCP p50 us | TCP p99 us |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for r in rows:
    k = (r["op"], r["size"], r["depth"])
    rl = fmt(r["rxe_latency_us"]) + ("" if r["rxe_latency_from"] == "lat" else " ~")
    lines.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        r["op"].upper(), human(r["size"]), r["depth"], fmt(g("prism", *k, "mib_s")),
        fmt(g("prism-ob", *k, "mib_s")), fmt(g("rxe", *k, "mib_s")), fmt(g("tcp", *k, "mib_s")),
        fmt(r["prism_over_rxe"], 2), fmt(r["prism_ob_over_prism"], 2),
        fmt(r["prism_over_tcp"], 2), fmt(g("prism", *k, "p50")), fmt(g("prism-ob", *k, "p50")),
        fmt(g("prism", *k, "p99")), rl, fmt(g("tcp", *k, "p50")), fmt(g("tcp", *k, "p99"))))
lines += ["", "PRISM-ob: READs with output buffers (PRISM_CMSG_OUTBUF; one copy at the client)."]
lines += ["", "TCP stream (one connection, writes of SIZE bytes back to back, until the receiver has them all):", "",
          "| size | MiB/s |", "|---:|---:|"]
for size in sizes:
    lines.append("| %s | %s |" % (human(size), fmt((streams.get(size) or {}).get("mib_s"))))
lines += ["", "Goals of issue 14:", ""]
for gl in goals:
    lines.append("- %s: **%s**%s%s" % (gl["goal"], "met" if gl["met"] else "MISSED",
                                       " (ratio %s)" % gl["ratio"] if "ratio" in gl else "",
                                       "; missed at " + ", ".join(gl["missed"]) if gl.get("missed") else
                                       ("; " + gl["detail"] if gl.get("detail") else "")))
with open(out + "/bench-large.md", "w") as m:
    m.write("\n".join(lines) + "\n")
print("\n".join(lines))
print_checks()
