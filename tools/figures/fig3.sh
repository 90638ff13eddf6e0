#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Figure 3 of the paper: PRISM-KV vs Pilaf, YCSB-C (100% GET), uniform keys,
# throughput-latency curve as the client count rises.
# INSIDE the guest as root; environment in tools/figures/lib.sh.
#
#   PRISM_OUT=$PWD/build/figures tools/vm/run.sh -- tools/figures/fig3.sh
. "$(dirname "$0")/lib.sh"
fig_begin fig3
fig_kv C
fig_end
