#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every source file carries an SPDX-License-Identifier line (TAP; run by
# `make -C tools check`).  Source files: *.c, *.h, *.sh, *.py, Makefile,
# *.mk, Kbuild, man pages, tracked or untracked but not ignored.  Which
# licence goes where: the "Licences" section of doc/DESIGN.md.
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1

echo "1..1"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "ok 1 - SPDX lines # SKIP not a git work tree"
	exit 0
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
total=0
for f in $(git ls-files --cached --others --exclude-standard -- \
	'*.c' '*.h' '*.sh' '*.py' '*Makefile' '*.mk' '*Kbuild' \
	'*.[1-8]'); do
	[ -f "$f" ] || continue
	total=$((total + 1))
	head -n 5 "$f" | grep -q 'SPDX-License-Identifier: ' || echo "$f" >> "$tmp"
done
if [ -s "$tmp" ]; then
	echo "not ok 1 - every source file has an SPDX-License-Identifier line in its first 5 lines (missing below)"
	sed 's/^/#   /' "$tmp"
	exit 1
fi
echo "ok 1 - every source file has an SPDX-License-Identifier line ($total files)"
