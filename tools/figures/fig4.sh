#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Figure 4 of the paper: PRISM-KV vs Pilaf, YCSB-A (50% GET, 50% PUT), uniform keys,
# throughput-latency curve as the client count rises.
# INSIDE the guest as root; environment in tools/figures/lib.sh.
#
#   PRISM_OUT=$PWD/build/figures tools/vm/run.sh -- tools/figures/fig4.sh
. "$(dirname "$0")/lib.sh"
fig_begin fig4
fig_kv A
fig_end
