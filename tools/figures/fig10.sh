#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Figure 10 of the paper: PRISM-TX vs FaRM-style OCC, YCSB-T over 2
# shards, PRISM_FIG_SKEW_CLIENTS client threads: throughput as the Zipf skew
# rises.  INSIDE the guest as root; environment in tools/figures/lib.sh.
#
#   PRISM_OUT=$PWD/build/figures tools/vm/run.sh -- tools/figures/fig10.sh
. "$(dirname "$0")/lib.sh"
fig_begin fig10
fig_tx "$FIG_SKEW_CLIENTS" "$FIG_THETAS"
fig_end
