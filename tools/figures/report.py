#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of one figure of tools/figures (report.py FIG DIR), the table of
every figure's headline ratios (report.py table OUT), smoke.sh's check
of a figure's headline metrics (report.py check DIR NOISE), or the table of
the runs at the paper's scale (report.py scale DIR: DIR/kv, tx, rs of
scale.sh; exits 1 when an operation failed or read a wrong value).

A figure's DIR holds one benchmark run per client count (cN/, the JSON of
tools/bench/kv.sh, rs.sh or tx.sh), or with rounds (PRISM_FIG_ROUNDS) one
per round (cN/rR/): each point is then the median of its rounds.  Written to DIR: FIG.csv (one row per
system and point), FIG.png (gnuplot) and FIG.summary.json (headline
ratios, the paper's values, the goals of issue 16 and whether they hold).
"""
import glob, json, os, re, subprocess, sys

FIGS = {
    "fig3": ("kv", "PRISM-KV vs Pilaf, YCSB-C (100% GET), uniform", "curve"),
    "fig4": ("kv", "PRISM-KV vs Pilaf, YCSB-A (50% GET, 50% PUT), uniform", "curve"),
    "fig6": ("rs", "PRISM-RS vs ABD-LOCK, 3 replicas, 50% writes, uniform", "curve"),
    "fig7": ("rs", "PRISM-RS vs ABD-LOCK, 3 replicas, 50% writes, by Zipf skew", "skew"),
    "fig7d": ("rs", "PRISM-RS vs ABD-LOCK by Zipf skew, every frame delayed (netem)", "skew"),
    "fig9": ("tx", "PRISM-TX vs FaRM-style OCC, YCSB-T, uniform", "curve"),
    "fig10": ("tx", "PRISM-TX vs FaRM-style OCC, YCSB-T, by Zipf skew", "skew"),
}
NAMES = {"prism": "PRISM-KV", "pilaf": "Pilaf", "memcached": "memcached",
         "abd": "PRISM-RS", "lock": "ABD-LOCK",
         "tx-prism": "PRISM-TX", "tx-farm": "FaRM-style"}


def runs(d):
    """(clients, path of a run's JSON) for every cN/ and cN/rR/ in d."""
    out = []
    for c in glob.glob(os.path.join(d, "c*")):
        m = re.match(r"c(\d+)$", os.path.basename(c))
        if not m:
            continue
        for js in (glob.glob(os.path.join(c, "bench-*.json")) +
                   glob.glob(os.path.join(c, "r*", "bench-*.json"))):
            out.append((int(m.group(1)), js))
    return sorted(out)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def medians(rows):
    """One row per system and point: the median of its rounds' throughput
    and latencies, their errors summed, the rounds' throughputs kept."""
    groups = {}
    for r in rows:
        groups.setdefault((r["system"], r["clients"], r["x"], r["point"]), []).append(r)
    out = []
    for rs in groups.values():
        m = dict(rs[0])
        for k in ("tput", "mean_us", "p50_us", "p99_us", "chains_per_op"):
            vals = [r[k] for r in rs if r.get(k) is not None]
            m[k] = median(vals) if vals else None
        m["errors"] = sum(r["errors"] for r in rs)
        m["rounds"] = len(rs)
        m["tput_rounds"] = [r["tput"] for r in rs]
        out.append(m)
    return out


def rows_of(kind, d):
    """Rows: system, clients, x (skew), throughput (ops/s), mean_us, p99_us;
    and point (its name), bytes (the server's per object, if recorded) and
    errors (failed operations and wrong reads)."""
    rows = []
    for n, path in runs(d):
        j = json.load(open(path))
        if kind == "kv":
            for r in j["results"]:
                rows.append({"system": r["system"], "clients": n, "x": 0.0,
                             "tput": r["throughput"], "mean_us": r["mean_us"],
                             "p50_us": r.get("p50_us"), "p99_us": r["p99_us"],
                             "point": "YCSB-%s %s" % (r["workload"], r["dist"]),
                             "bytes": r.get("bytes_per_object"),
                             "errors": r["errors"] + r.get("torn_reads", 0)})
        elif kind == "rs":
            for r in j["results"]:
                x = 0.0 if r["point"].startswith("uniform") else float(r["point"].split("-")[1])
                c, ops = r.get("counters"), r["ops"]
                rows.append({"system": r["mode"], "clients": n, "x": x,
                             "tput": r["ops_per_s"], "mean_us": r["mean_us"],
                             "p50_us": None, "p99_us": r["p99_us"],
                             "point": "uniform" if x == 0 else "zipf %g" % x,
                             "bytes": r.get("bytes_per_block"), "errors": r["failed"],
                             "chains_per_op": c.get("chains_sent", 0) / ops
                             if c is not None and ops else None})
        else:
            for r in j["points"]:
                rows.append({"system": "tx-" + r["proto"], "clients": n,
                             "x": float(r["theta"]), "tput": r["tput_tps"],
                             "mean_us": r["lat_mean_us"], "p50_us": None,
                             "p99_us": r["lat_p99_us"],
                             "point": "YCSB-T " + ("uniform" if float(r["theta"]) == 0
                                                   else "zipf %s" % r["theta"]),
                             "bytes": r.get("bytes_per_key"), "errors": r.get("torn") or 0})
    return medians(rows)


def pair(kind):
    return {"kv": ("prism", "pilaf"), "rs": ("abd", "lock"), "tx": ("tx-prism", "tx-farm")}[kind]


def metric(name, p, b, paper, goal=None, lower_better=False, headline=False):
    """One compared metric; the headline ones are smoke.sh's (PRISM must not
    lose to its baseline by more than the noise there)."""
    r = p / b if b else None
    m = {"metric": name, "prism": round(p, 1), "baseline": round(b, 1),
         "ratio": round(r, 3) if r is not None else None, "paper": paper,
         "lower_is_better": lower_better, "headline": headline}
    if goal is not None:
        m["goal"] = ("<= %g" if lower_better else ">= %g") % goal
        m["met"] = r is not None and (r <= goal if lower_better else r >= goal)
    return m


def summary(fig, kind, shape, rows):
    ps, bs = pair(kind)
    P = [r for r in rows if r["system"] == ps]
    B = [r for r in rows if r["system"] == bs]
    out = []
    if shape == "curve":
        lo = min(r["clients"] for r in rows)
        p1 = next(r for r in P if r["clients"] == lo)
        b1 = next(r for r in B if r["clients"] == lo)
        if fig == "fig3":
            out.append(metric("GET p50 latency, %d client%s (us)" % (lo, "" if lo == 1 else "s"),
                              p1["p50_us"], b1["p50_us"],
                              "6 vs 14 us = 0.43", 0.5, True, True))
        out.append(metric("mean latency, %d client%s (us)" % (lo, "" if lo == 1 else "s"),
                          p1["mean_us"], b1["mean_us"],
                          {"fig3": "0.43 (GET)", "fig4": "lower",
                           "fig6": "about 2 us lower", "fig9": "5.5 us lower"}[fig], None, True))
        pk, bk = max(r["tput"] for r in P), max(r["tput"] for r in B)
        goal = {"fig4": 1.5, "fig6": 1.1}.get(fig)
        out.append(metric("peak throughput (ops/s)", pk, bk,
                          {"fig3": "higher", "fig4": "higher",
                           "fig6": "+4 Mops/s", "fig9": "+1 M txn/s"}[fig], goal,
                          headline=fig != "fig3"))
    else:
        several = len({r["clients"] for r in P}) > 1
        for p in sorted(P, key=lambda r: (r["clients"], r["x"])):
            b = next((r for r in B if r["x"] == p["x"] and r["clients"] == p["clients"]),
                     None)
            if not b:
                continue
            at = "Zipf %g%s" % (p["x"], ", %d clients" % p["clients"] if several else "")
            if fig in ("fig7", "fig7d"):
                out.append(metric("mean latency at %s (us)" % at, p["mean_us"],
                                  b["mean_us"], "lower, more so with skew"))
                if p.get("chains_per_op") and b.get("chains_per_op"):
                    # what the CPUs of a TCG guest bound: chains per operation
                    out.append(metric("chains per operation at %s" % at,
                                      p["chains_per_op"], b["chains_per_op"], "",
                                      lower_better=True))
                goal = 1.5 if p["x"] == 0.99 else None
                out.append(metric("throughput at %s (ops/s)" % at, p["tput"], b["tput"],
                                  "higher", goal, headline=p["x"] == 0.99))
            else:
                out.append(metric("throughput at %s (txn/s)" % at, p["tput"], b["tput"],
                                  "higher at every skew", 1.2, headline=True))
    return out


def plot(fig, title, shape, rows, d, kind):
    ps, bs = pair(kind)
    dat = os.path.join(d, fig + ".dat")
    with open(dat, "w") as f:
        for s in (ps, bs):
            f.write("# %s\n" % NAMES[s])
            for r in sorted((r for r in rows if r["system"] == s),
                            key=lambda r: (r["clients"], r["x"])):
                f.write("%g %g %g %g %d\n" % (r["tput"], r["mean_us"], r["p99_us"], r["x"],
                                              r["clients"]))
            f.write("\n\n")
    if shape == "curve":
        body = ('set xlabel "throughput (ops/s)"\nset ylabel "mean latency (us)"\n'
                'plot "{0}" index 0 using 1:2 with linespoints pt 7 title "{1}", '
                '"" index 0 using 1:2:5 with labels offset 0,1 notitle, '
                '"" index 1 using 1:2 with linespoints pt 5 dt 2 title "{2}", '
                '"" index 1 using 1:2:5 with labels offset 0,-1 notitle\n')
        size = "800,500"
        pre = ""
    else:
        body = ('set xlabel "Zipf theta"\nset ylabel "throughput (ops/s)"\nset yrange [0:*]\n'
                'plot "{0}" index 0 using 4:1 with linespoints pt 7 title "{1}", '
                '"" index 1 using 4:1 with linespoints pt 5 dt 2 title "{2}"\n'
                'set ylabel "mean latency (us)"\n'
                'plot "{0}" index 0 using 4:2 with linespoints pt 7 title "{1}", '
                '"" index 1 using 4:2 with linespoints pt 5 dt 2 title "{2}"\n')
        size = "1200,450"
        pre = 'set multiplot layout 1,2 title "%s"\n'
    label = "%s (TCG guest%s)" % (title, "; point labels: clients" if shape == "curve" else "")
    gp = ('set terminal pngcairo size %s noenhanced\nset output "%s"\nset grid\nset key top left\n'
          'set offsets graph 0.03, graph 0.03, graph 0.08, graph 0.03\n'
          % (size, os.path.join(d, fig + ".png")))
    gp += (pre % label) if pre else 'set title "%s"\n' % label
    gp += body.format(dat, NAMES[ps], NAMES[bs])
    env = dict(os.environ, XDG_CACHE_HOME=d)
    try:
        subprocess.run(["gnuplot"], input=gp.encode(), check=True, env=env)
    except (OSError, subprocess.CalledProcessError) as e:
        print("%s: no plot (%s)" % (fig, e), file=sys.stderr)


def one(fig, d):
    kind, title, shape = FIGS[fig]
    rows = rows_of(kind, d)
    if not rows:
        sys.exit("%s: no results in %s" % (fig, d))
    with open(os.path.join(d, fig + ".csv"), "w") as f:
        f.write("system,clients,zipf,throughput_ops_s,mean_us,p50_us,p99_us,rounds,"
                "throughput_of_rounds,chains_per_op\n")
        for r in rows:
            f.write("%s,%d,%g,%.1f,%.1f,%s,%.1f,%d,%s,%s\n" % (
                NAMES[r["system"]], r["clients"], r["x"], r["tput"], r["mean_us"],
                "" if r["p50_us"] is None else "%.1f" % r["p50_us"], r["p99_us"],
                r["rounds"], " ".join("%.1f" % t for t in r["tput_rounds"]),
                "" if r.get("chains_per_op") is None else "%.2f" % r["chains_per_op"]))
    s = {"figure": fig, "title": title, "metrics": summary(fig, kind, shape, rows)}
    json.dump(s, open(os.path.join(d, fig + ".summary.json"), "w"), indent=1)
    plot(fig, title, shape, rows, d, kind)
    for m in s["metrics"]:
        print("%s: %s: PRISM %s, baseline %s, ratio %s%s" % (
            fig, m["metric"], m["prism"], m["baseline"], m["ratio"],
            " (goal %s: %s)" % (m["goal"], "met" if m["met"] else "MISSED") if "goal" in m else ""))


def table(out):
    lines = ["| figure | metric | PRISM | baseline | ratio | paper | goal |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    alls = []
    for fig in FIGS:
        p = os.path.join(out, fig, fig + ".summary.json")
        if not os.path.exists(p):
            continue
        s = json.load(open(p))
        alls.append(s)
        for m in s["metrics"]:
            goal = "%s: %s" % (m["goal"], "met" if m["met"] else "**missed**") if "goal" in m else ""
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                fig, m["metric"], m["prism"], m["baseline"], m["ratio"], m["paper"], goal))
    open(os.path.join(out, "figures.md"), "w").write("\n".join(lines) + "\n")
    json.dump(alls, open(os.path.join(out, "figures.json"), "w"), indent=1)
    print("\n".join(lines))


def scale_plot(d, cfg, points):
    """scale.png: PRISM's throughput over its baseline's at every point."""
    dat = os.path.join(d, "scale.dat")
    with open(dat, "w") as f:
        for p in points:
            f.write('"%s %s" %g\n' % (p["store"].upper(), p["point"], p["ratio"] or 0))
    gp = ('set terminal pngcairo size 900,450 noenhanced\nset output "%s"\nset grid ytics\n'
          'set title "PRISM over its baseline, %d objects of %d B, %d clients (TCG guest)"\n'
          'set ylabel "throughput ratio"\nset yrange [0:*]\nset style fill solid 0.5\n'
          'set boxwidth 0.6\nset xtics rotate by -25\n'
          'plot "%s" using 0:2:xtic(1) with boxes notitle, 1 with lines dt 2 title "1.0"\n'
          % (os.path.join(d, "scale.png"), cfg["objects"], cfg["value_bytes"],
             cfg["clients"], dat))
    try:
        subprocess.run(["gnuplot"], input=gp.encode(), check=True,
                       env=dict(os.environ, XDG_CACHE_HOME=d))
    except (OSError, subprocess.CalledProcessError) as e:
        print("scale: no plot (%s)" % e, file=sys.stderr)


def scale(d):
    """scale.csv, scale.md, scale.summary.json of scale.sh's DIR."""
    cfg = json.load(open(os.path.join(d, "config.json")))
    lines = ["| store | point | PRISM ops/s | baseline ops/s | ratio | PRISM mean us | baseline mean us | errors |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    mem = ["| store | PRISM bytes/object | baseline bytes/object | value bytes |",
           "| --- | --- | --- | --- |"]
    mc = ["| point | PRISM-KV ops/s | memcached ops/s | ratio | memcached bytes/object |",
          "| --- | --- | --- | --- | --- |"]
    out, bad = [], False
    csv = ["store,system,point,clients,throughput_ops_s,mean_us,p99_us,bytes_per_object,errors"]
    for kind in ("kv", "tx", "rs"):
        sub = os.path.join(d, kind)
        rows = rows_of(kind, sub) if os.path.isdir(sub) else []
        if not rows:
            continue
        ps, bs = pair(kind)
        for r in rows:
            csv.append("%s,%s,%s,%d,%.1f,%.1f,%.1f,%s,%d" % (
                kind, NAMES[r["system"]], r["point"], r["clients"], r["tput"],
                r["mean_us"], r["p99_us"], r["bytes"], r["errors"]))
            bad |= r["errors"] > 0 or r["tput"] <= 0 or r["bytes"] is None
        by = {(r["system"], r["point"]): r for r in rows}
        for point in dict.fromkeys(r["point"] for r in rows):
            p, b = by.get((ps, point)), by.get((bs, point))
            if not p or not b:
                bad = True
                continue
            ratio = p["tput"] / b["tput"] if b["tput"] else None
            out.append({"store": kind, "point": point, "prism_ops_s": p["tput"],
                        "baseline_ops_s": b["tput"], "ratio": ratio and round(ratio, 3),
                        "prism_mean_us": p["mean_us"], "baseline_mean_us": b["mean_us"],
                        "prism_bytes": p["bytes"], "baseline_bytes": b["bytes"],
                        "errors": p["errors"] + b["errors"]})
            lines.append("| %s | %s | %.0f | %.0f | %s | %.1f | %.1f | %d |" % (
                kind, point, p["tput"], b["tput"], ratio and "%.2f" % ratio,
                p["mean_us"], b["mean_us"], p["errors"] + b["errors"]))
            m = by.get(("memcached", point))
            if m:
                out[-1]["memcached_ops_s"] = m["tput"]
                out[-1]["ratio_memcached"] = round(p["tput"] / m["tput"], 3) if m["tput"] else None
                mc.append("| %s | %.0f | %.0f | %s | %s |" % (
                    point, p["tput"], m["tput"], out[-1]["ratio_memcached"], m["bytes"]))
        p = next(r for r in rows if r["system"] == ps)
        b = next((r for r in rows if r["system"] == bs), {"bytes": None})
        mem.append("| %s | %s | %s | %d |" % (kind, p["bytes"], b["bytes"], cfg["value_bytes"]))
    open(os.path.join(d, "scale.csv"), "w").write("\n".join(csv) + "\n")
    md = "%d objects of %d B, %d clients, %d ms per point, guest of %d MiB\n\n%s\n\n%s\n" % (
        cfg["objects"], cfg["value_bytes"], cfg["clients"], cfg["ms_per_point"],
        cfg["mem_mib"], "\n".join(lines), "\n".join(mem))
    if len(mc) > 2:
        md += "\nPRISM-KV against memcached (TCP, one worker thread):\n\n%s\n" % "\n".join(mc)
    open(os.path.join(d, "scale.md"), "w").write(md)
    scale_plot(d, cfg, out)
    json.dump({"config": cfg, "points": out}, open(os.path.join(d, "scale.summary.json"), "w"), indent=1)
    print(md)
    if bad or not out:
        print("scale: an operation failed, a read was wrong, or a point is missing")
    sys.exit(1 if bad or not out else 0)


def check(d, noise):
    """Print DIR's headline metrics; exit 1 when PRISM loses one to its
    baseline by more than noise (a fraction), or nothing was measured."""
    fig = os.path.basename(os.path.normpath(d))
    try:
        s = json.load(open(os.path.join(d, fig + ".summary.json")))
    except (OSError, ValueError) as e:
        print("no summary: %s" % e)
        sys.exit(1)
    bad = False
    for m in s["metrics"]:
        if not m.get("headline"):
            continue
        r = m["ratio"]
        ok = r is not None and (r <= 1 + noise if m["lower_is_better"] else r >= 1 - noise)
        print("%s: PRISM %s, baseline %s, ratio %s%s" % (
            m["metric"], m["prism"], m["baseline"], r,
            "" if ok else " (PRISM loses by more than the noise)"))
        bad |= not ok
    sys.exit(1 if bad or not s["metrics"] else 0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"] and len(sys.argv) == 4:
        check(sys.argv[2], float(sys.argv[3]))
    if sys.argv[1:2] == ["scale"] and len(sys.argv) == 3:
        scale(sys.argv[2])
    if len(sys.argv) != 3 or (sys.argv[1] != "table" and sys.argv[1] not in FIGS):
        sys.exit("usage: report.py fig3|fig4|fig6|fig7|fig7d|fig9|fig10 DIR | report.py table OUT"
                 " | report.py check DIR NOISE | report.py scale DIR")
    if sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        one(sys.argv[1], sys.argv[2])
