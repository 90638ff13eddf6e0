# SPDX-License-Identifier: MIT
"""What the report scripts of the benchmarks (rxe_report.py,
large_report.py, depth_report.py, mcore_report.py, rss_report.py) share: latency statistics, perftest's
raw samples, the assertions on the results ("CHECK 0|1 what" lines, which
the guest scripts turn into TAP), numbers and their formatting."""
import math, re

checks = []


def check(ok, what):
    """Record an assertion on the results (print_checks() prints them)."""
    checks.append((bool(ok), what))


def print_checks():
    for ok, w in checks:
        print("CHECK %d %s" % (0 if ok else 1, w))


def num(x):
    """float(x), or None unless a finite number."""
    try:
        v = float(x)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def ratio(a, b):
    return round(a / b, 3) if a and b else None


def fmt(x, p=1):
    return "%.*f" % (p, x) if x is not None else "-"


def stats(v):
    """n, median, p90, p99, mean, min, max of the samples v, with the same
    definitions as the C programs (prism_util's pu_lat_summarize): pXX is
    the smallest sample with at least XX % of them at or below it."""
    v = sorted(v)
    k = len(v)
    med = v[k // 2] if k % 2 else (v[k // 2 - 1] + v[k // 2]) / 2
    return {"n": k, "median": med, "p99": v[math.ceil(k * 0.99) - 1],
            "mean": sum(v) / k, "min": v[0], "max": v[-1], "p90": v[math.ceil(k * 0.90) - 1]}


def mode_runs(dat, cols):
    """The runs of a "mode round COLS..." table (mcore.sh, rss_mh.sh): a
    dict mode -> list of {"round": r, col: value} and the modes in the
    order they first appear; lines of another width are skipped."""
    runs, order = {}, []
    for line in open(dat):
        f = line.split()
        if not f or f[0].startswith("#") or len(f) != 3 + len(cols):
            continue
        if f[0] not in runs:
            runs[f[0]] = []
            order.append(f[0])
        runs[f[0]].append(dict(zip(["round"] + cols, [int(f[1])] + [float(x) for x in f[3:]])))
    return runs, order


def mode_medians(runs, cols, sums=()):
    """Per mode of mode_runs(): the median of each column over its runs,
    "runs", "ops_wall_all" (every run's ops_wall) and, for the columns in
    sums, their total over the runs instead of the median."""
    med = {}
    for m, rs in runs.items():
        med[m] = {c: stats([r[c] for r in rs])["median"] for c in cols}
        med[m]["runs"] = len(rs)
        med[m]["ops_wall_all"] = [r["ops_wall"] for r in rs]
        for c in sums:
            med[m][c] = sum(r[c] for r in rs)
    return med


def perftest_samples(path, mhz):
    """The samples of a perftest latency test run with -C -U (raw cycles,
    lines "i, cycles"), in microseconds at mhz TSC ticks per us."""
    return [float(m.group(1)) / mhz for m in
            (re.match(r"^\d+, ([0-9.e+]+)$", l.strip()) for l in open(path)) if m]
