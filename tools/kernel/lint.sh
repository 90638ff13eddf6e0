#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel-style checks of the module sources: checkpatch.pl --strict on
# every file under kmod/ (generated files excepted) and sparse on the
# stock build (make C=2).  Prints one line per finding; exits non-zero if
# there is any.
#
# checkpatch.pl comes from the kernel source the debug kernel is built
# from (unpacked from /usr/src/linux-source-6.1.tar.xz on first use).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PRISM_CACHE:-$HOME/.cache/prism}
src=$cache/linux-source-6.1
cp=$src/scripts/checkpatch.pl

if [ ! -x "$cp" ]; then
	tarball=$(ls /usr/src/linux-source-6.1*.tar.xz | head -n 1)
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi

cd "$repo"
findings=0
for f in kmod/*.c kmod/*.h kmod/kunit/*.c; do
	case $f in *.mod.c) continue ;; esac
	# compat.h is the one place that tests the kernel version.
	ign=
	[ "$f" = kmod/compat.h ] && ign=--ignore=LINUX_VERSION_CODE
	out=$("$cp" --strict --no-tree --quiet --show-types $ign -f "$f" 2>&1 || true)
	if [ -n "$out" ]; then
		echo "$out"
		findings=$((findings + 1))
	fi
done
echo "lint: checkpatch --strict: $findings file(s) with findings"

sparse_out=$("$here/build-module.sh" stock C=2 CHECK=sparse 2>&1 >/dev/null |
	grep -E '^[^ ]*kmod/[^ ]*:[0-9]+:[0-9]+: (warning|error)' || true)
n=0
[ -n "$sparse_out" ] && n=$(wc -l <<< "$sparse_out") && echo "$sparse_out"
echo "lint: sparse: $n finding(s)"
[ "$findings" = 0 ] && [ "$n" = 0 ]
