#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Figure 9 of the paper: PRISM-TX vs FaRM-style OCC, YCSB-T (4-key
# read-modify-writes) over 2 shards, uniform keys: throughput-latency curve
# as the client threads rise.  INSIDE the guest as root; environment in
# tools/figures/lib.sh.
#
#   PRISM_OUT=$PWD/build/figures tools/vm/run.sh -- tools/figures/fig9.sh
. "$(dirname "$0")/lib.sh"
fig_begin fig9
fig_tx "$FIG_CLIENTS" 0
fig_end
