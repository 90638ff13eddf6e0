#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the prism kernel module out of tree.
#
# Usage: tools/kernel/build-module.sh [stock|k612|debug|clean] [MAKE ARGS...]
#   stock (default)  against the installed headers of the stock 6.1 kernel,
#                    in place (objects land in kmod/); when $PRISM_KVER
#                    names a kernel of another series (`make module
#                    KVER=6.12...`), out of tree as for k612
#   k612             against the headers of the newest installed 6.12
#                    kernel (linux-image-6.12-amd64; tools/kernel/kver.sh
#                    6.12); the sources are copied to
#                    ~/.cache/prism/mod-<release>/<name>-<hash of source path>/
#   debug            against the debug kernel tree (tools/kernel/build-debug.sh,
#                    built first if needed); the sources are copied to
#                    ~/.cache/prism/debug-mod/<name>-<hash of source path>/
#                    so stock and debug objects never mix (and two
#                    checkouts never share one copy)
#   clean            remove the stock, k612 and debug build products
#
# Prints the path of each built .ko on stdout (prism.ko, plus prism_kunit.ko
# for debug); make's output goes to stderr.
#
# Environment: PRISM_MOD_SRC (directory with the top-level Kbuild, default
# the repository), PRISM_KVER (stock kernel release; also the 6.12 one
# for k612 when it names a 6.12 kernel), PRISM_CACHE, PRISM_JOBS
# (default 2).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=$(cd "${PRISM_MOD_SRC:-$repo}" && pwd)
cache=${PRISM_CACHE:-$HOME/.cache/prism}
jobs=${PRISM_JOBS:-2}
srcid=$(basename "$src")-$(printf '%s' "$src" | sha256sum | cut -c1-8)
dbgdir=$cache/debug-mod/$srcid

flavor=${1:-stock}
[ $# -gt 0 ] && shift

say() { echo "build-module: $*" >&2; }

# Print the modules built under $1; prism.ko is required.
report() {
	local dir=$1 ko found=0
	for ko in prism.ko prism_kunit.ko; do
		if [ -f "$dir/kmod/$ko" ]; then
			echo "$dir/kmod/$ko"
			found=1
		fi
	done
	if [ ! -f "$dir/kmod/prism.ko" ]; then
		say "build finished but $dir/kmod/prism.ko is missing"
		exit 1
	fi
	[ "$found" = 1 ]
}

# Copy the module sources to $1 for an out-of-tree build; --delete drops
# stale files but keeps the objects of the previous build there (make is
# incremental).
mirror() {
	local dst=$1
	mkdir -p "$dst"
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
		--exclude='.*.cmd' --exclude='*.a' --exclude='modules.order' \
		--exclude='Module.symvers' \
		"$src/kmod/" "$dst/kmod/"
	[ -d "$src/uapi" ] && rsync -a --delete "$src/uapi/" "$dst/uapi/"
	cp "$src/Kbuild" "$dst/Kbuild"
}

# Against the installed headers of release $1, in a copy of the sources.
build_copy() {
	local kver=$1 dir=$cache/mod-$1/$srcid
	shift
	[ -d "/lib/modules/$kver/build" ] || { say "no headers for $kver"; exit 1; }
	mirror "$dir"
	say "building against /lib/modules/$kver/build in $dir"
	make -C "/lib/modules/$kver/build" M="$dir" -j"$jobs" "$@" modules >&2
	report "$dir"
}

# Builds of the same tree wait for each other instead of mixing objects.
mkdir -p "$cache/locks"
exec 9>"$cache/locks/module-$(printf '%s' "$src" | sha256sum | cut -c1-8).lock"
flock 9

case $flavor in
stock)
	kver=$("$here/kver.sh")
	case $kver in
	6.1.*) ;;
	*) build_copy "$kver" "$@"; exit ;;
	esac
	kdir=/lib/modules/$kver/build
	say "building against $kdir"
	make -C "$kdir" M="$src" -j"$jobs" "$@" modules >&2
	report "$src"
	;;
k612)
	kver=$("$here/kver.sh" 6.12)
	build_copy "$kver" "$@"
	;;
debug)
	kenv=$("$here/build-debug.sh" --env)
	eval "$kenv"
	mirror "$dbgdir"
	say "building against $KOUT"
	make -C "$KSRC" O="$KOUT" M="$dbgdir" -j"$jobs" "$@" modules >&2
	if [ ! -f "$dbgdir/kmod/prism_kunit.ko" ]; then
		say "warning: prism_kunit.ko was not built"
	fi
	report "$dbgdir"
	;;
clean)
	if kver=$("$here/kver.sh" 2>/dev/null); then
		make -C "/lib/modules/$kver/build" M="$src" clean >&2
	fi
	rm -rf "$dbgdir" "$cache"/mod-*/"$srcid"
	;;
*)
	sed -n '3,/^set -euo/{/^set -euo/!p;}' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
