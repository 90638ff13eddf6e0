#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reports of tools/bench/depth.sh and incast.sh (issue 19): from the raw
results they collected, the files below in OUT, and on stdout the tables
and one "CHECK 0|1 what" line per assertion on the results (the scripts
turn them into TAP in their smoke runs).

  depth_report.py depth RES OUT KERNEL COMMIT "DEPTHS" "RXE_DEPTHS" CC NOTE
      -> depth-bench.{json,csv,dat,md}
  depth_report.py incast RES OUT KERNEL COMMIT CLIENTS DEPTH SECONDS
      -> incast-bench.{json,dat,md}, incast-bench-p99.dat

RES lines of depth.sh:
  RESULT prism OP SIZE DEPTH N MIB_S OPS_S P50 P99 MEAN MIN MAX
  STATS prism OP SIZE DEPTH key=value...    (the client socket's counters)
  NETNS prism OP SIZE DEPTH key=delta...    (/proc/net/prism over the run)
  PERFRATE OP SIZE DEPTH N OPS_S OUTS       (perftest MsgRate, -o OUTS)
RES lines of incast.sh (CC: the setting asked for; RUN: unloaded, one-dD,
incast; CLIENT: 1..):
  ICC CC VALUE|absent
  IRESULT CC RUN CLIENT prism read SIZE DEPTH N MIB_S OPS_S P50 P99 MEAN MIN MAX
  ISTATS CC RUN CLIENT prism read SIZE DEPTH key=value...
  ISAMPLES CC RUN CLIENT FILE               (latencies, us, one per line)
  ITARGET CC RUN key=delta...               (the target netns' counters)
"""
import json, os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_report import stats, check, checks, print_checks, num, ratio, fmt

CC_KEYS = ("cc_held", "cc_cuts_remote", "cc_cuts_local", "cc_cuts_rto")


def kv(fields):
    return {k: int(v) for k, v in (x.split("=", 1) for x in fields if "=" in x)}


def result(f):
    """The fields of a RESULT line after "RESULT stack op size depth"."""
    return {"n": int(f[0]), "mib_s": num(f[1]), "ops_s": num(f[2]), "p50": num(f[3]),
            "p99": num(f[4]), "mean": num(f[5]), "min": num(f[6]), "max": num(f[7])}


def pct(a, b):
    return round(100.0 * a / b, 4) if b else None


def chains_ok(st, what):
    """The socket's chains all completed, none timed out."""
    check(st and st.get("chains_sent", 0) > 0 and st.get("chains_completed") == st.get("chains_sent"),
          "%s: every chain sent completed (%s of %s)" % (what, st and st.get("chains_completed"),
                                                        st and st.get("chains_sent")))
    check(st and st.get("chains_timed_out", 1) == 0,
          "%s: no chain timed out (%s)" % (what, st and st.get("chains_timed_out")))


def cc_note(have):
    return ("cc_* counters: %s" % ", ".join(CC_KEYS)) if have else \
        "cc_* counters absent: module before congestion control"


def write_json(path, doc):
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    check(json.load(open(path)) == json.loads(json.dumps(doc)), "%s reads back" % os.path.basename(path))


def goal_lines(goals):
    return ["- %s: **%s**%s" % (g["goal"], "met" if g["met"] else "MISSED",
                                "; " + g["detail"] if g.get("detail") else "") for g in goals]


def finish(out, base, lines):
    with open(os.path.join(out, base + ".md"), "w") as m:
        m.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print_checks()


def depth_report(res, out, kver, commit, depths, rxe_depths, cc, note):
    depths = [int(x) for x in depths.split()]
    rxe_depths = [int(x) for x in rxe_depths.split()]
    ops = ["read", "cas"]
    R, S, T, X = {}, {}, {}, {}
    for line in open(res):
        f = line.split()
        if len(f) == 13 and f[0] == "RESULT":
            R[(f[2], int(f[4]))] = result(f[5:])
        elif len(f) >= 5 and f[0] == "STATS":
            S[(f[2], int(f[4]))] = kv(f[5:])
        elif len(f) >= 5 and f[0] == "NETNS":
            T[(f[2], int(f[4]))] = kv(f[5:])
        elif len(f) == 7 and f[0] == "PERFRATE":
            X[(f[1], int(f[3]))] = {"n": int(f[4]), "ops_s": num(f[5]), "outs": int(f[6])}
    have_cc = any(k in s for s in S.values() for k in CC_KEYS)
    rows = []
    for op in ops:
        for d in depths:
            p, st, x, t = R.get((op, d), {}), S.get((op, d), {}), X.get((op, d), {}), T.get((op, d), {})
            sent = st.get("chains_sent", 0)
            row = {"op": op, "depth": d, "prism": p, "prism_stats": st, "netns_delta": t, "rxe": x,
                   "rxe_latency_us": d / x["ops_s"] * 1e6 if x.get("ops_s") else None,
                   "prism_over_rxe": ratio(p.get("ops_s"), x.get("ops_s")),
                   "retransmits_pct": pct(st.get("retransmits", 0), sent),
                   "nacks_pct": pct(st.get("nacks_received", 0), sent),
                   "target_duplicates": t.get("duplicates"),
                   "cc": {k: st[k] for k in CC_KEYS if k in st}}
            rows.append(row)
            what = "PRISM %s depth %d" % (op, d)
            check(p.get("ops_s") and p["ops_s"] > 0, "%s: throughput %s ops/s" % (what, p.get("ops_s")))
            check(p.get("n") and p.get("p50") and p.get("p99") and 0 < p["p50"] <= p["p99"],
                  "%s: %s ops measured, latency p50 %s <= p99 %s us" % (what, p.get("n"), p.get("p50"), p.get("p99")))
            chains_ok(st, what)
            if d in rxe_depths:
                check(x.get("ops_s") and x["ops_s"] > 0, "rxe %s depth %d: message rate %s ops/s" % (op, d, x.get("ops_s")))
    by = {(r["op"], r["depth"]): r for r in rows}
    for r in rows:
        base = by.get((r["op"], depths[0]))
        r["prism_over_depth1"] = ratio(r["prism"].get("ops_s"), base["prism"].get("ops_s"))
        r["rxe_over_depth1"] = ratio(r["rxe"].get("ops_s"), base["rxe"].get("ops_s"))

    goals = []
    both = [r for r in rows if r["depth"] in rxe_depths]
    miss = ["%s d%d: %s" % (r["op"], r["depth"], r["prism_over_rxe"]) for r in both
            if not r["prism_over_rxe"] or r["prism_over_rxe"] < 1]
    goals.append({"goal": "PRISM >= rxe at every depth (%s)" % " ".join(map(str, rxe_depths)),
                  "met": not miss, "detail": "missed at " + ", ".join(miss) if miss else
                  "lowest PRISM/rxe %s" % min(r["prism_over_rxe"] for r in both)})
    hi = 64 if 64 in depths else max(depths)
    for op in ops:
        r = by[(op, hi)]
        goals.append({"goal": "PRISM %s depth %d >= 4x depth %d" % (op.upper(), hi, depths[0]),
                      "met": bool(r["prism_over_depth1"] and r["prism_over_depth1"] >= 4),
                      "detail": "%sx" % r["prism_over_depth1"]})
        goals.append({"goal": "PRISM %s depth %d: spurious retransmissions < 0.1%% of chains" % (op.upper(), hi),
                      "met": r["retransmits_pct"] is not None and r["retransmits_pct"] < 0.1,
                      "detail": "%s%% (%s of %s chains; the target saw %s duplicates)" % (
                          r["retransmits_pct"], r["prism_stats"].get("retransmits"),
                          r["prism_stats"].get("chains_sent"), r["target_duplicates"])})

    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    write_json(os.path.join(out, "depth-bench.json"), {
        "benchmark": "depth", "date": date, "kernel": kver, "commit": commit, "module_param_cc": cc,
        "cc_counters": have_cc, "depths": depths, "rxe_depths": rxe_depths, "size": 8, "iterations": note, "unit_latency": "us",
        "rows": rows, "goals": goals, "checks": [{"ok": ok, "what": w} for ok, w in checks]})

    with open(os.path.join(out, "depth-bench.csv"), "w") as c:
        c.write("op,depth,prism_ops_s,prism_p50_us,prism_p99_us,rxe_ops_s,rxe_little_us,prism_over_rxe,"
                "retransmits_pct,nacks_pct,target_duplicates\n")
        for r in rows:
            c.write("%s,%d,%s\n" % (r["op"], r["depth"], ",".join("" if v is None else str(v) for v in (
                r["prism"].get("ops_s"), r["prism"].get("p50"), r["prism"].get("p99"), r["rxe"].get("ops_s"),
                r["rxe_latency_us"], r["prism_over_rxe"], r["retransmits_pct"], r["nacks_pct"],
                r["target_duplicates"]))))
    with open(os.path.join(out, "depth-bench.dat"), "w") as dat:
        dat.write("# depth prism_read rxe_read prism_cas rxe_cas (ops/s) prism_read_p50 prism_read_p99 "
                  "prism_cas_p50 prism_cas_p99 rxe_read_us rxe_cas_us (Little)\n")
        for d in depths:
            rd, ca = by[("read", d)], by[("cas", d)]
            v = [rd["prism"].get("ops_s"), rd["rxe"].get("ops_s"), ca["prism"].get("ops_s"),
                 ca["rxe"].get("ops_s"), rd["prism"].get("p50"), rd["prism"].get("p99"),
                 ca["prism"].get("p50"), ca["prism"].get("p99"), rd["rxe_latency_us"], ca["rxe_latency_us"]]
            dat.write("%d %s\n" % (d, " ".join("%.3f" % x if x else "NaN" for x in v)))

    lines = ["| op | depth | PRISM ops/s | rxe ops/s | PRISM/rxe | PRISM vs d%d | rxe vs d%d | PRISM P50 us | "
             "PRISM P99 us | rxe us (Little) | retrans %% | NACKs %% | target dups | cc_held | cc cuts r/l/rto |"
             % (depths[0], depths[0]),
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        p, c = r["prism"], r["cc"]
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["op"].upper(), r["depth"], fmt(p.get("ops_s"), 0), fmt(r["rxe"].get("ops_s"), 0),
            fmt(r["prism_over_rxe"], 2), fmt(r["prism_over_depth1"], 2), fmt(r["rxe_over_depth1"], 2),
            fmt(p.get("p50")), fmt(p.get("p99")), fmt(r["rxe_latency_us"]), fmt(r["retransmits_pct"], 3),
            fmt(r["nacks_pct"], 3), r["target_duplicates"] if r["target_duplicates"] is not None else "-",
            c.get("cc_held", "-"), "/".join(str(c.get(k, "-")) for k in CC_KEYS[1:])))
    lines += ["", "Module parameter cc: %s; %s." % (cc, cc_note(have_cc)), "", "Goals of issue 19:", ""]
    lines += goal_lines(goals)
    finish(out, "depth-bench", lines)


def jain(x):
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and any(x) else None


def incast_report(res, out, kver, commit, nclients, depth, secs):
    nclients, depth = int(nclients), int(depth)
    CC, R, S, L, T = {}, {}, {}, {}, {}
    for line in open(res):
        f = line.split()
        if len(f) == 3 and f[0] == "ICC":
            CC[f[1]] = f[2]
        elif len(f) == 16 and f[0] == "IRESULT":
            R[(f[1], f[2], int(f[3]))] = result(f[8:])
        elif len(f) >= 8 and f[0] == "ISTATS":
            S[(f[1], f[2], int(f[3]))] = kv(f[8:])
        elif len(f) == 5 and f[0] == "ISAMPLES":
            L[(f[1], f[2], int(f[3]))] = f[4]
        elif len(f) >= 3 and f[0] == "ITARGET":
            T[(f[1], f[2])] = kv(f[3:])
    ccs = list(CC)
    runs = []
    for k in R:
        if k[1] not in runs:
            runs.append(k[1])
    have_cc = any(k in s for s in S.values() for k in CC_KEYS)
    summary = {}
    for cc in ccs:
        per = {}
        for run in runs:
            cl = sorted(c for (a, b, c) in R if a == cc and b == run)
            lat = []
            for c in cl:
                v = [float(x) for x in open(L[(cc, run, c)]) if x.strip()] if (cc, run, c) in L else []
                check(len(v) == R[(cc, run, c)]["n"] and v,
                      "cc=%s %s client %d: %d latency samples, %d ops" % (cc, run, c, len(v), R[(cc, run, c)]["n"]))
                chains_ok(S.get((cc, run, c)), "cc=%s %s client %d" % (cc, run, c))
                lat += v
            tot = {k: sum(S.get((cc, run, c), {}).get(k, 0) for c in cl)
                   for k in ("chains_sent", "retransmits", "nacks_received") + CC_KEYS}
            ops = [R[(cc, run, c)]["ops_s"] for c in cl]
            per[run] = {"clients": len(cl), "ops_s": ops, "aggregate_ops_s": sum(ops),
                        "jain": jain(ops), "latency": stats(lat) if lat else None,
                        "retransmits_pct": pct(tot["retransmits"], tot["chains_sent"]),
                        "nacks_pct": pct(tot["nacks_received"], tot["chains_sent"]),
                        "client_totals": tot, "target_delta": T.get((cc, run), {})}
            check(per[run]["aggregate_ops_s"] > 0, "cc=%s %s: %d client(s), %.0f ops/s" % (
                cc, run, len(cl), per[run]["aggregate_ops_s"]))
        inc = per.get("incast", {})
        one = [per[r]["aggregate_ops_s"] for r in per if r.startswith("one-d")]
        peak = max(one) if one else None
        un = (per.get("unloaded") or {}).get("latency") or {}
        il = inc.get("latency") or {}
        check(inc.get("clients") == nclients, "cc=%s incast: %s clients of %d" % (cc, inc.get("clients"), nclients))
        summary[cc] = {"param": CC.get(cc), "runs": per, "one_client_peak_ops_s": peak,
                       "incast_over_peak": ratio(inc.get("aggregate_ops_s"), peak),
                       "jain": inc.get("jain"), "p99_unloaded": un.get("p99"), "p99_incast": il.get("p99"),
                       "p99_over_unloaded": ratio(il.get("p99"), un.get("p99")),
                       "retransmits_pct": inc.get("retransmits_pct")}
    goals = []
    for cc in ccs:
        s = summary[cc]
        lab = "cc=%s%s" % (cc, "" if s["param"] not in ("absent", None) else " (no such parameter)")
        goals += [{"goal": "%s: aggregate >= 0.9x one-client peak" % lab,
                   "met": bool(s["incast_over_peak"] and s["incast_over_peak"] >= 0.9),
                   "detail": "%sx" % s["incast_over_peak"]},
                  {"goal": "%s: Jain fairness >= 0.95" % lab, "met": bool(s["jain"] and s["jain"] >= 0.95),
                   "detail": fmt(s["jain"], 3)},
                  {"goal": "%s: P99 <= 5x unloaded P99" % lab,
                   "met": bool(s["p99_over_unloaded"] and s["p99_over_unloaded"] <= 5),
                   "detail": "%sx" % s["p99_over_unloaded"]},
                  {"goal": "%s: retransmissions <= 0.1%% of chains" % lab,
                   "met": s["retransmits_pct"] is not None and s["retransmits_pct"] <= 0.1,
                   "detail": "%s%%" % s["retransmits_pct"]}]

    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    write_json(os.path.join(out, "incast-bench.json"), {
        "benchmark": "incast", "date": date, "kernel": kver, "commit": commit, "clients": nclients,
        "depth": depth, "seconds": float(secs), "size": 8, "cc_counters": have_cc, "unit_latency": "us",
        "settings": summary, "goals": goals, "checks": [{"ok": ok, "what": w} for ok, w in checks]})

    def col(cc, run, i):
        r = summary.get(cc, {}).get("runs", {}).get(run, {})
        return r["ops_s"][i] if i < len(r.get("ops_s", [])) else None

    order = [c for c in ("1", "0") if c in summary] + [c for c in ccs if c not in ("1", "0")]
    pair = (order + [None, None])[:2]
    with open(os.path.join(out, "incast-bench.dat"), "w") as d:
        d.write("# client ops_s(cc=%s) ops_s(cc=%s)\n" % tuple(pair))
        for i in range(nclients):
            d.write("c%d %s\n" % (i + 1, " ".join("%.1f" % col(c, "incast", i) if c and col(c, "incast", i)
                                                  else "NaN" for c in pair)))
    with open(os.path.join(out, "incast-bench-p99.dat"), "w") as d:
        d.write("# run p99_us(cc=%s) p99_us(cc=%s)\n" % tuple(pair))
        for run in runs:
            v = [((summary.get(c, {}).get("runs", {}).get(run) or {}).get("latency") or {}).get("p99")
                 if c else None for c in pair]
            d.write("%s %s\n" % (run, " ".join("%.1f" % x if x else "NaN" for x in v)))

    lines = ["| setting | run | clients x depth | ops/s (sum) | min..max per client | Jain | P50 us | P99 us | "
             "retrans % | NACKs % | target dups | cc_held | cc cuts r/l/rto |",
             "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for cc in order:
        for run in runs:
            r = summary[cc]["runs"].get(run)
            if not r:
                continue
            la, t = r["latency"] or {}, r["client_totals"]
            d = 1 if run == "unloaded" else int(run[5:]) if run.startswith("one-d") else depth
            lines.append("| cc=%s%s | %s | %d x %d | %s | %s..%s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                cc, "" if summary[cc]["param"] != "absent" else " (absent)", run, r["clients"], d,
                fmt(r["aggregate_ops_s"], 0), fmt(min(r["ops_s"]), 0), fmt(max(r["ops_s"]), 0),
                fmt(r["jain"], 3), fmt(la.get("median")), fmt(la.get("p99")), fmt(r["retransmits_pct"], 3),
                fmt(r["nacks_pct"], 3), r["target_delta"].get("duplicates", "-"),
                t["cc_held"] if have_cc else "-",
                "/".join(str(t[k]) for k in CC_KEYS[1:]) if have_cc else "-"))
    lines += ["", "| setting | incast / one-client peak | Jain | P99 incast / unloaded | retrans % |",
              "|---|---:|---:|---:|---:|"]
    for cc in order:
        s = summary[cc]
        lines.append("| cc=%s | %s (peak %s ops/s) | %s | %s (%s / %s us) | %s |" % (
            cc, fmt(s["incast_over_peak"], 2), fmt(s["one_client_peak_ops_s"], 0), fmt(s["jain"], 3),
            fmt(s["p99_over_unloaded"], 2), fmt(s["p99_incast"]), fmt(s["p99_unloaded"]),
            fmt(s["retransmits_pct"], 3)))
    lines += ["", "Module parameter cc: %s; %s." % (
        ", ".join("asked %s: %s" % (c, CC[c]) for c in ccs), cc_note(have_cc)), "", "Goals of issue 19:", ""]
    lines += goal_lines(goals)
    finish(out, "incast-bench", lines)


if __name__ == "__main__":
    if len(sys.argv) == 10 and sys.argv[1] == "depth":
        depth_report(*sys.argv[2:])
    elif len(sys.argv) == 9 and sys.argv[1] == "incast":
        incast_report(*sys.argv[2:])
    else:
        sys.exit(__doc__)
