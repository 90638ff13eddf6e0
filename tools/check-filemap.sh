#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Check the "Where things are" table of doc/DESIGN.md against the tree
# (TAP; run by `make -C tools check`, so by the user stage of `make check`).
#
#   tools/check-filemap.sh [DESIGN.md]
#
# Rows are "| `PATH` | what |"; a PATH ending in "/" is a directory.  The
# table must have a row for every top-level directory and for every file
# directly in kmod/ whose name ends in .c or .h; each subdirectory of kmod/
# (kmod/kunit/) is one row, whatever files it holds.  Every row must name a
# file or a non-empty directory.  Files are the tracked ones plus untracked,
# non-ignored ones (a new file fails the check before it is committed).
set -u

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
design=${1:-doc/DESIGN.md}
section="## Where things are"

echo "1..3"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	for i in 1 2 3; do
		echo "ok $i - file map # SKIP not a git work tree"
	done
	exit 0
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0
tap() {	# ok|fail description [diagnostics file]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		failed=1
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && sed 's/^/#   /' "$3"
	fi
}

# Files of the tree, as they are now.
git ls-files --cached --others --exclude-standard |
	while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done |
	sort -u > "$tmp/files"

# The table's first column.
awk -v sec="$section" '
	$0 == sec { in_sec = 1; next }
	in_sec && /^## / { exit }
	in_sec && /^\| *`/ {
		p = $0
		sub(/^\| *`/, "", p)
		sub(/`.*$/, "", p)
		print p
	}' "$design" 2>/dev/null | sort > "$tmp/rows"

if [ -s "$tmp/rows" ]; then
	tap ok "$design has a \"${section#\#\# }\" table ($(wc -l < "$tmp/rows") rows)"
else
	echo "no \"$section\" section with rows in $design" > "$tmp/why"
	tap fail "$design has a \"${section#\#\# }\" table" "$tmp/why"
fi

# Every row names something that exists.
: > "$tmp/stale"
while IFS= read -r p; do
	case $p in
	*/)	awk -v p="$p" 'index($0, p) == 1 { f = 1; exit } END { exit !f }' \
			"$tmp/files" || echo "$p (no such directory)" ;;
	*)	grep -qxF "$p" "$tmp/files" || echo "$p (no such file)" ;;
	esac
done < "$tmp/rows" > "$tmp/stale"
uniq -d "$tmp/rows" | sed 's/$/ (two rows)/' >> "$tmp/stale"
if [ -s "$tmp/stale" ]; then
	tap fail "every row of the table exists (stale rows below)" "$tmp/stale"
else
	tap ok "every row of the table exists"
fi

# Everything that needs a row has one.
{
	# Top-level directories.
	sed -n 's,^\([^/]*/\).*,\1,p' "$tmp/files"
	# kmod/*.c, kmod/*.h; each subdirectory of kmod/ as a whole.
	grep -E '^kmod/[^/]+\.[ch]$' "$tmp/files"
	sed -n 's,^\(kmod/[^/]*/\).*,\1,p' "$tmp/files"
} | sort -u > "$tmp/want"
comm -23 "$tmp/want" "$tmp/rows" > "$tmp/missing"
if [ -s "$tmp/missing" ]; then
	tap fail "every top-level directory and kmod file has a row (missing below)" "$tmp/missing"
else
	tap ok "every top-level directory and kmod file has a row ($(wc -l < "$tmp/want") paths)"
fi

exit $failed
