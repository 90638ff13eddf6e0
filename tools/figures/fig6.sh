#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Figure 6 of the paper: PRISM-RS (ABD) vs ABD-LOCK, 3 replicas, 50%
# writes, uniform over 1024 blocks: throughput-latency curve as the client
# count rises.  INSIDE the guest as root; environment in tools/figures/lib.sh.
#
#   PRISM_OUT=$PWD/build/figures tools/vm/run.sh -- tools/figures/fig6.sh
. "$(dirname "$0")/lib.sh"
fig_begin fig6
fig_rs "$FIG_CLIENTS" uniform-1024
fig_end
