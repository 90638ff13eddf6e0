#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Figure 7 again, where the clients wait on the network rather than on the
# guest's CPUs: every frame leaving a host is delayed by
# PRISM_FIG_RS_DELAY_US (default 2000: a round trip of 4 ms plus the
# CPU), PRISM_FIG_RS_DELAY_CLIENTS clients (default 8), points of
# PRISM_FIG_MS * 3 / 2.  In fig7 (4 clients, no delay) the 2 vCPUs are
# saturated, so ABD-LOCK's back-offs hand the CPU to other clients and
# throughput follows the chains per operation alone; here a lock that is
# lost costs its client round trips, as on the paper's testbed, where the
# clients do not share CPUs with the replicas.
# INSIDE the guest as root; environment in tools/figures/lib.sh.
#
#   PRISM_OUT=$PWD/build/figures tools/vm/run.sh -- tools/figures/fig7d.sh
. "$(dirname "$0")/lib.sh"
fig_begin fig7d
FIG_MS=$((FIG_MS * 3 / 2))
fig_rs "${PRISM_FIG_RS_DELAY_CLIENTS:-8}" \
	"${PRISM_FIG_RS_POINTS:-uniform-1024 zipf-0.5 zipf-0.9 zipf-0.99 zipf-1.2}" \
	RS_BENCH_DELAY_US="${PRISM_FIG_RS_DELAY_US:-2000}"
fig_end
