#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release of the stock target kernel (e.g. 6.1.0-56-amd64): the
# newest installed 6.1 kernel that has both an image and headers.  Never
# `uname -r`: the host runs another kernel.  $PRISM_KVER overrides.
set -euo pipefail

if [ -n "${PRISM_KVER:-}" ]; then
	echo "$PRISM_KVER"
	exit 0
fi
best=
for b in /lib/modules/6.1.*/build; do
	[ -d "$b" ] || continue
	r=${b#/lib/modules/}
	r=${r%/build}
	[ -r "/boot/vmlinuz-$r" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$r" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$best" ]; then
	echo "kver.sh: no 6.1 kernel with headers installed (run tools/install-deps.sh)" >&2
	exit 1
fi
echo "$best"
