#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Helpers for the liburing-prism man pages (run from any directory).
#
#   mantool.sh check          TAP: lint every page with groff (and man and
#                             lexgrog, if installed), warnings are errors;
#                             every public function of the headers is
#                             documented; every cross reference to our pages
#                             (also from prismctl.8) resolves; link pages
#                             resolve.  man7/prism.7 is the socket family's
#                             page: tools/pkg/mkdeb.sh ships it in prism-dkms
#   mantool.sh names          "page alias" for every alias in a NAME section
#   mantool.sh links DIR      write one ".so man3/PAGE.3" page per alias
#                             into DIR (an installed man3 directory)
set -u

here=$(cd "$(dirname "$0")" && pwd)
# the public header and the one it includes
headers="$here/../include/liburing-prism.h $here/../include/liburing-prism/chain.h"
prismctl_page=$here/../../tools/prismctl/prismctl.8

pages() {
	ls "$here"/man3/*.3 "$here"/man7/*.7
}

# Names listed in the NAME section of page $1 (before "\-"), one a line.
page_names() {
	awk '
		/^\.SH/ { if (in_name) exit; if ($2 == "NAME") in_name = 1; next }
		in_name { text = text " " $0 }
		END {
			sub(/\\-.*/, "", text)
			gsub(/,/, " ", text)
			n = split(text, w, /[ \t]+/)
			for (i = 1; i <= n; i++)
				if (w[i] != "")
					print w[i]
		}' "$1"
}

# "page alias" pairs for section 3 pages.
names() {
	for p in "$here"/man3/*.3; do
		page=$(basename "$p" .3)
		page_names "$p" | while read -r n; do
			[ "$n" = "$page" ] || echo "$page $n"
		done
	done
}

links() {
	dir=$1
	[ -d "$dir" ] || { echo "mantool.sh: $dir is not a directory" >&2; exit 1; }
	names | while read -r page n; do
		printf '.so man3/%s.3\n' "$page" > "$dir/$n.3" || exit 1
	done
}

# Functions declared in the header (static inline or extern).
header_functions() {
	# shellcheck disable=SC2086 # two paths without spaces
	grep -h -E '^[a-z_].*[ *]prism_[a-z0-9_]+\(' $headers |
		grep -vE '^(typedef|#)' |
		sed -E 's/^.*[ *](prism_[a-z0-9_]+)\(.*$/\1/' | sort -u
}

check() {
	ntests=0
	failed=0
	tap() {	# ok|fail|skip description [diagnostics file | skip reason]
		ntests=$((ntests + 1))
		case $1 in
		ok)	echo "ok $ntests - $2" ;;
		skip)	echo "ok $ntests - $2 # SKIP $3" ;;
		*)	failed=$((failed + 1))
			echo "not ok $ntests - $2"
			[ -n "${3:-}" ] && sed 's/^/#   /' "$3" ;;
		esac
	}
	# tap_empty FILE DESCRIPTION [DETAIL]: ok "DESCRIPTION DETAIL" if FILE
	# is empty, else not ok "DESCRIPTION" with FILE as the diagnostics.
	tap_empty() {
		if [ -s "$1" ]; then
			tap fail "$2" "$1"
		else
			tap ok "$2${3:+ $3}"
		fi
	}
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT

	npages=$(pages | wc -l)
	echo "1..$((npages + 4))"

	have_groff=0
	command -v groff >/dev/null 2>&1 && have_groff=1
	have_man=0
	command -v man >/dev/null 2>&1 && have_man=1
	have_lexgrog=0
	command -v lexgrog >/dev/null 2>&1 && have_lexgrog=1

	for p in $(pages); do
		name=man${p##*/man}
		if [ $have_groff -eq 0 ]; then
			tap skip "lint $name" "groff is not installed"
			continue
		fi
		: > "$tmp/err"
		groff -ww -man -z "$p" >> "$tmp/err" 2>&1
		if [ $have_man -eq 1 ]; then
			MANWIDTH=80 MAN_KEEP_FORMATTING=0 \
				man --warnings -l "$p" 2>> "$tmp/err" >/dev/null
		fi
		# mandb/whatis must parse the NAME section.
		if [ $have_lexgrog -eq 1 ] && ! lexgrog "$p" >/dev/null 2>&1; then
			echo "lexgrog cannot parse the NAME section" >> "$tmp/err"
		fi
		tap_empty "$tmp/err" "lint $name"
	done

	# Every public function has a page or an alias in a NAME section.
	for p in $(pages); do page_names "$p"; done | sort -u > "$tmp/documented"
	header_functions > "$tmp/declared"
	comm -23 "$tmp/declared" "$tmp/documented" > "$tmp/missing"
	if [ ! -s "$tmp/declared" ]; then
		echo "no functions found in $headers" > "$tmp/missing"
		tap fail "every public function is documented" "$tmp/missing"
	elif [ -s "$tmp/missing" ]; then
		tap fail "every public function is documented (missing below)" "$tmp/missing"
	else
		tap ok "every public function is documented ($(wc -l < "$tmp/declared") functions)"
	fi

	# Every alias is unique (one page per name).
	names | awk '{ print $2 }' | sort | uniq -d > "$tmp/dups"
	tap_empty "$tmp/dups" "no name is documented twice"

	# Cross references to our own pages resolve, also those of
	# prismctl(8) (tools/prismctl, shipped by another package).
	for p in $(pages) $prismctl_page; do
		[ -f "$p" ] || continue
		sed -nE 's/^\.BR +(prism_[a-z0-9_]+|liburing-prism|prism|prismctl) +\(([378])\).*/\1 \2/p' "$p"
	done | sort -u > "$tmp/refs"
	: > "$tmp/bad"
	while read -r n s; do
		[ -f "$here/man$s/$n.$s" ] && continue
		[ "$n($s)" = "prismctl(8)" ] && [ -f "$prismctl_page" ] && continue
		grep -qx "$n" "$tmp/documented" && [ "$s" = 3 ] && continue
		echo "$n($s)" >> "$tmp/bad"
	done < "$tmp/refs"
	tap_empty "$tmp/bad" "cross references resolve" \
		"($(wc -l < "$tmp/refs") names)"

	# The link pages written by "links" render as their target.
	mkdir -p "$tmp/m/man3" && cp "$here"/man3/*.3 "$tmp/m/man3/" &&
		links "$tmp/m/man3"
	: > "$tmp/err"
	if [ $have_groff -eq 0 ]; then
		tap skip "link pages resolve" "groff is not installed"
	else
		names > "$tmp/names"
		while read -r page n; do
			# Rendered from the man root, as man(1) does: the title
			# must be the target's, with no warning.
			title=$(echo "$page" | tr '[:lower:]' '[:upper:]')"(3)"
			(cd "$tmp/m" && groff -ww -man -Tutf8 -P-cbou \
				"man3/$n.3" > "$tmp/out" 2> "$tmp/warn")
			if [ "$(head -n 1 "$tmp/out" | cut -c1-${#title})" != "$title" ]; then
				echo "man3/$n.3 does not render man3/$page.3" >> "$tmp/err"
			fi
			cat "$tmp/warn" >> "$tmp/err"
		done < "$tmp/names"
		tap_empty "$tmp/err" "link pages resolve" \
			"($(wc -l < "$tmp/names") links)"
	fi

	[ $failed -eq 0 ]
}

case "${1:-}" in
check)	check ;;
names)	names ;;
links)	[ $# -eq 2 ] || { echo "usage: $0 links DIR" >&2; exit 2; }
	links "$2" ;;
*)	echo "usage: $0 check | names | links DIR" >&2; exit 2 ;;
esac
