#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the PRISM debug kernel: Debian's linux-source-6.1 with
# x86_64 defconfig + kvm_guest.config + tools/kernel/debug.config
# (KUnit, KASAN, lockdep, 9p/virtio built in).
#
# Usage: tools/kernel/build-debug.sh [--env | --print-out | --built | --force]
#   (no option)  build if needed, print the path of bzImage
#   --env        build if needed, print shell assignments
#                KSRC= KOUT= BZIMAGE= KREL= (for `eval`)
#   --print-out  print the build directory without building
#   --built      exit 0 if a finished build exists, 1 if not (no build)
#   --force      rebuild even if a finished build exists
#
# The build directory is keyed by a hash of the config fragment and the
# kernel source version, so a config change gives a fresh build and an
# unchanged one is reused.  The finished tree supports out-of-tree module
# builds: make -C "$KSRC" O="$KOUT" M=<dir> modules
#
# While make runs, a progress line every 60 s (files compiled of an
# estimate: the count of the last finished build, else one from the
# number of enabled config options) goes to stderr.
#
# Environment: PRISM_CACHE (default ~/.cache/prism), PRISM_JOBS (default 2).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${PRISM_CACHE:-$HOME/.cache/prism}
jobs=${PRISM_JOBS:-2}
tarball=/usr/src/linux-source-6.1.tar.xz
fragment=$here/debug.config

mode=bzimage
case ${1:-} in
'') ;;
--env) mode=env ;;
--print-out) mode=out ;;
--built) mode=built ;;
--force) mode=force ;;
*) echo "usage: $0 [--env | --print-out | --built | --force]" >&2; exit 2 ;;
esac

log() { echo "build-debug: $*" >&2; }

[ -r "$tarball" ] || { log "missing $tarball (apt-get install linux-source-6.1)"; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %s-%Y "$tarball")
key=$( { echo "$srcver"; cat "$fragment"; } | sha256sum | cut -c1-12)
src=$cache/linux-source-6.1
out=$cache/kernel-debug-$key
stamp=$out/.prism-build-ok

if [ "$mode" = out ]; then
	echo "$out"
	exit 0
fi
if [ "$mode" = built ]; then
	[ -f "$stamp" ]
	exit
fi

report() {
	local krel
	krel=$(cat "$out/include/config/kernel.release")
	if [ "$mode" = env ]; then
		printf 'KSRC=%q\nKOUT=%q\nBZIMAGE=%q\nKREL=%q\n' \
			"$src" "$out" "$out/arch/x86/boot/bzImage" "$krel"
	else
		echo "$out/arch/x86/boot/bzImage"
	fi
}

# Fast path: finished build, nothing to do (no lock needed).
if [ "$mode" != force ] && [ -f "$stamp" ]; then
	report
	exit 0
fi

mkdir -p "$cache"
# One kernel build at a time on this 2-core machine: later callers wait
# here and then find the stamp written by the first one.
exec 9>"$cache/build-debug.lock"
if ! flock -n 9; then
	log "another debug kernel build is running; waiting for it"
	flock 9
fi
if [ "$mode" != force ] && [ -f "$stamp" ]; then
	report
	exit 0
fi

# Unpack the source once; a stamp marks a complete extraction.
if [ ! -f "$src/.prism-unpacked" ] || [ "$(cat "$src/.prism-unpacked")" != "$srcver" ]; then
	log "unpacking $tarball into $cache"
	rm -rf "$src" "$cache/.unpack"
	mkdir -p "$cache/.unpack"
	tar -xJf "$tarball" -C "$cache/.unpack"
	mv "$cache/.unpack/linux-source-6.1" "$src"
	rmdir "$cache/.unpack"
	echo "$srcver" > "$src/.prism-unpacked"
fi

mkdir -p "$out"
rm -f "$stamp"
cp "$fragment" "$out/prism-debug.config"
buildlog=$out/build.log
: > "$buildlog"
log "configuring in $out (log: $buildlog)"
start=$(date +%s)
{
	make -C "$src" O="$out" x86_64_defconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$src/kernel/configs/kvm_guest.config" "$out/prism-debug.config"
	make -C "$src" O="$out" olddefconfig
} >>"$buildlog" 2>&1 || { tail -n 40 "$buildlog" >&2; log "configure failed"; exit 1; }

# merge_config silently drops options whose dependencies are unmet:
# check the ones the project relies on really made it.
missing=
for opt in KUNIT KASAN KASAN_INLINE PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_LIST \
	   NET_9P NET_9P_VIRTIO 9P_FS VIRTIO_PCI VETH BRIDGE NET_SCHED NET_SCH_NETEM \
	   NET_NS MODULES MODULE_UNLOAD DEVTMPFS TMPFS DEBUG_FS; do
	grep -qx "CONFIG_$opt=y" "$out/.config" || missing="$missing $opt"
done
if [ -n "$missing" ]; then
	log "config lacks required options:$missing"
	exit 1
fi

# Files compiled so far: the CC/AS lines of the build log.
compiled() {
	grep -cE '^  (CC|AS)( \[M\])? ' "$buildlog" || true
}

# Expected total: what the last finished build compiled, else about 2.4
# objects per enabled option (defconfig + the debug fragment: ~2700).
countfile=$cache/build-debug.files
total=$(cat "$countfile" 2>/dev/null || true)
case $total in
''|*[!0-9]*)
	total=$(grep -cE '^CONFIG_[A-Z0-9_]+=[ym]$' "$out/.config" || true)
	total=$((total * 12 / 5))
	;;
esac

# Every 60 s: "N of ~M files compiled, about K min left" at the rate so far.
progress() {
	local t0 n rate left
	t0=$(date +%s)
	while sleep 60; do
		n=$(compiled)
		rate=$(( n * 60 / ($(date +%s) - t0) ))	# files per minute
		if [ "$n" -ge "$total" ]; then
			log "$n files compiled (estimate was ~$total), finishing"
		elif [ "$rate" -gt 0 ]; then
			left=$(( (total - n + rate - 1) / rate ))
			log "$n of ~$total files compiled, about $left min left"
		else
			log "$n of ~$total files compiled"
		fi
	done
}

log "building with -j$jobs (cold build takes a while; tail -f $buildlog)"
progress 9>&- &
progress_pid=$!
trap 'kill "$progress_pid" 2>/dev/null || true' EXIT
# `make` (all) builds bzImage, modules and Module.symvers, which
# out-of-tree module builds need.
if ! make -C "$src" O="$out" -j"$jobs" >>"$buildlog" 2>&1; then
	grep -E 'error|Error' "$buildlog" | tail -n 20 >&2 || true
	tail -n 20 "$buildlog" >&2
	log "kernel build failed"
	exit 1
fi
kill "$progress_pid" 2>/dev/null || true
trap - EXIT
compiled > "$countfile.tmp" && mv "$countfile.tmp" "$countfile"
# Install the few =m modules plus modules.builtin/modules.dep into a
# staging root: the guest points /lib/modules/$KREL there so modprobe of
# a built-in driver (veth, bridge, ...) succeeds like on the stock kernel.
rm -rf "$out/modroot"
make -C "$src" O="$out" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod modules_install >>"$buildlog" 2>&1 \
	|| { tail -n 20 "$buildlog" >&2; log "modules_install failed"; exit 1; }
# The module dir's build/source links would point into the cache; drop them.
rm -f "$out"/modroot/lib/modules/*/build "$out"/modroot/lib/modules/*/source

end=$(date +%s)
log "done in $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s"
echo "built $(date -u +%FT%TZ) in $((end - start)) s" > "$stamp"
# Stable name for people poking around by hand.
ln -sfn "kernel-debug-$key" "$cache/kernel-debug"
report
