#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every figure (tools/figures/fig*.sh) in one guest run, then the table of
# headline ratios ($PRISM_OUT/figures.md and .json).  `make figures` runs it
# and copies the results to doc/results/figures/.  PRISM_FIG_LIST
# (default "3 4 6 7 7d 9 10"; 7d: figure 7 with network delay) picks
# figures.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
rc=0
mkdir -p "$FIG_OUT" || exit 1
cat >"$FIG_OUT/meta.json" <<EOF
{"commit": "${PRISM_BENCH_COMMIT:-unknown}", "date": "$(date -u +%FT%TZ)", "kernel": "$(uname -r)",
 "cpus": $(nproc), "clients": "$FIG_CLIENTS", "skew_clients": $FIG_SKEW_CLIENTS,
 "thetas": "$FIG_THETAS", "ms_per_point": $FIG_MS, "rounds": $FIG_ROUNDS, "keys": $FIG_KEYS, "value_bytes": $FIG_VALUE}
EOF
for f in ${PRISM_FIG_LIST:-3 4 6 7 7d 9 10}; do
	t0=$(date +%s)
	"$here/fig$f.sh" || rc=1
	echo "== fig$f took $(( $(date +%s) - t0 )) s"
done
python3 "$here/report.py" table "$FIG_OUT" || rc=1
exit $rc
