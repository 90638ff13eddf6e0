#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel-style checks of the module sources: checkpatch.pl --strict on
# every file under kmod/ (generated files excepted), sparse on the stock
# build (make C=2) and kernel-doc: the comments of kmod/ parse without
# warnings, and every function declared in a kmod/prism*.h header (and
# every EXPORT_SYMBOL*() of kmod/) has a kernel-doc comment at its
# definition in kmod/*.c.  Prints one line per finding;
# exits non-zero if there is any.
#
# checkpatch.pl and kernel-doc come from the kernel source the debug
# kernel is built from (unpacked from /usr/src/linux-source-6.1.tar.xz on
# first use).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PRISM_CACHE:-$HOME/.cache/prism}
src=$cache/linux-source-6.1
cp=$src/scripts/checkpatch.pl
kd=$src/scripts/kernel-doc

if [ ! -x "$cp" ] || [ ! -x "$kd" ]; then
	tarball=$(ls /usr/src/linux-source-6.1*.tar.xz | head -n 1)
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' '*/scripts/kernel-doc'
fi

cd "$repo"
findings=0
for f in kmod/*.c kmod/*.h kmod/kunit/*.c kmod/kunit/*.h; do
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

# Static keys of the module's own (DO_ONCE, net_get_random_once,
# DEFINE_STATIC_KEY_*): flipping one patches the module's text while other
# CPUs may run it, and qemu's TCG (the test guests) can go on running a
# stale translation of the int3 the patch put there: the guest hangs in
# an int3 loop (tools/vm/hang-dump.py names it).  Tracepoints (patched
# only when a user enables an event) and the kernel's keys are fine.
ko=$repo/kmod/prism.ko
own_keys=$(python3 - "$ko" <<'EOF'
import subprocess, sys
ko = sys.argv[1]
syms = {}	# section -> [(offset, name)]; defined names
defined = set()
for l in subprocess.run(["objdump", "-t", ko], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    # ADDRESS FLAGS... SECTION SIZE NAME
    if len(f) >= 4 and len(f[0]) == 16 and f[-3] != "*UND*":
        syms.setdefault(f[-3], []).append((int(f[0], 16), f[-1]))
        defined.add(f[-1])
keys = set()
for l in subprocess.run(["objdump", "-r", "-j", "__jump_table", ko],
                        capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) != 3 or f[1] != "R_X86_64_PC64" or f[2].startswith("__tracepoint_"):
        continue
    sym, _, off = f[2].partition("+")
    off = int(off, 16) if off else 0
    if sym in syms:	# a section: the module's symbol at that offset
        below = [s for s in syms[sym] if s[0] <= off]
        keys.add(max(below)[1] if below else "%s+%#x" % (sym, off))
    elif sym in defined:
        keys.add(sym)
print("\n".join(sorted(keys)))
EOF
)
j=0
for key in $own_keys; do
	echo "kmod/prism.ko: static key $key is the module's own: flipping it patches running text (use an init function, not DO_ONCE/static branches)"
	j=$((j + 1))
done
echo "lint: module static keys: $j finding(s)"

# kernel-doc: warnings of the comments that are there (missing or unknown
# parameters, a comment naming another function than the one after it),
# then the functions that must have one and have none.
kfiles=()
for f in kmod/*.c kmod/*.h kmod/kunit/*.c kmod/kunit/*.h; do
	case $f in *.mod.c) continue ;; esac
	kfiles+=("$f")
done
kd_out=$(perl "$kd" -none "${kfiles[@]}" 2>&1 |
	grep -E ': (warning|error):' || true)
# Functions with a kernel-doc comment at their definition in kmod/*.c, as
# kernel-doc itself parses them (only kmod/*.c: not in a header).
csrc=()
for f in kmod/*.c; do
	case $f in *.mod.c) continue ;; esac
	csrc+=("$f")
done
documented=$( (perl "$kd" -rst "${csrc[@]}" 2>/dev/null || true) |
	sed -nE 's/^\.\. c:function:: ([^(]*[ *])?([A-Za-z_][A-Za-z0-9_]*) ?\(.*/\2/p' |
	sort -u)
# Functions declared in the headers (not static inline), and exported ones.
wanted=$(sed -nE '/^static/d
	s/^[a-z][a-z0-9_ ]*[ *]([a-z_][a-z0-9_]*)\(.*/\1/p' \
	kmod/prism*.h
	{ grep -hoE '^EXPORT_SYMBOL[A-Z_]*\([A-Za-z0-9_]+\)' "${csrc[@]}" ||
	  true; } | sed -E 's/.*\((.*)\)/\1/')
wanted=$(sort -u <<< "$wanted")
for fn in $(comm -23 <(echo "$wanted") <(echo "$documented")); do
	kd_out+=${kd_out:+$'\n'}"kmod: warning: no kernel-doc comment at the definition of $fn()"
done
k=0
[ -n "$kd_out" ] && k=$(wc -l <<< "$kd_out") && echo "$kd_out"
echo "lint: kernel-doc: $k finding(s)"
[ "$findings" = 0 ] && [ "$n" = 0 ] && [ "$j" = 0 ] && [ "$k" = 0 ]
