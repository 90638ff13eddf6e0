#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release of a target kernel (e.g. 6.1.0-56-amd64): the newest
# installed kernel of series SERIES (default 6.1, the stock target; 6.12
# for linux-image-6.12-amd64) that has both an image and headers.  Never
# `uname -r`: the host runs another kernel.
#
# Usage: tools/kernel/kver.sh [SERIES]
#
# $PRISM_KVER overrides: always without SERIES, and with SERIES when it
# is a release of that series.
set -euo pipefail

series=${1:-}
if [ -n "${PRISM_KVER:-}" ]; then
	case $PRISM_KVER in
	"$series".*|"$series"-*|"$series"+*)
		echo "$PRISM_KVER"
		exit 0
		;;
	esac
	if [ -z "$series" ]; then
		echo "$PRISM_KVER"
		exit 0
	fi
fi
series=${series:-6.1}
best=
for b in /lib/modules/"$series".*/build; do
	[ -d "$b" ] || continue
	r=${b#/lib/modules/}
	r=${r%/build}
	[ -r "/boot/vmlinuz-$r" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$r" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$best" ]; then
	echo "kver.sh: no $series kernel with headers installed (run tools/install-deps.sh)" >&2
	exit 1
fi
echo "$best"
