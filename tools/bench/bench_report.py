# SPDX-License-Identifier: MIT
"""What the report scripts of the benchmarks (rxe_report.py,
large_report.py) share: latency statistics and perftest's raw samples."""
import math, re


def stats(v):
    """n, median, p90, p99, mean, min, max of the samples v, with the same
    definitions as the C programs (prism_util's pu_lat_summarize): pXX is
    the smallest sample with at least XX % of them at or below it."""
    v = sorted(v)
    k = len(v)
    med = v[k // 2] if k % 2 else (v[k // 2 - 1] + v[k // 2]) / 2
    return {"n": k, "median": med, "p99": v[math.ceil(k * 0.99) - 1],
            "mean": sum(v) / k, "min": v[0], "max": v[-1], "p90": v[math.ceil(k * 0.90) - 1]}


def perftest_samples(path, mhz):
    """The samples of a perftest latency test run with -C -U (raw cycles,
    lines "i, cycles"), in microseconds at mhz TSC ticks per us."""
    return [float(m.group(1)) / mhz for m in
            (re.match(r"^\d+, ([0-9.e+]+)$", l.strip()) for l in open(path)) if m]
