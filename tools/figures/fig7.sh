#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Figure 7 of the paper: PRISM-RS (ABD) vs ABD-LOCK, 3 replicas, 50%
# writes, PRISM_FIG_SKEW_CLIENTS clients: latency (and throughput) as the Zipf
# skew over 1024 blocks rises (rs.sh's points uniform-1024 and zipf-*;
# PRISM_FIG_RS_POINTS picks them).
# INSIDE the guest as root; environment in tools/figures/lib.sh.
#
#   PRISM_OUT=$PWD/build/figures tools/vm/run.sh -- tools/figures/fig7.sh
. "$(dirname "$0")/lib.sh"
fig_begin fig7
fig_rs "$FIG_SKEW_CLIENTS" "${PRISM_FIG_RS_POINTS:-uniform-1024 zipf-0.5 zipf-0.9 zipf-0.99 zipf-1.2}"
fig_end
