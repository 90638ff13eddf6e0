#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run all PRISM tests and print one summary (this is what `make check` runs).
#
# Usage: tools/run-tests.sh [--only STAGE[,STAGE...]] [--list]
#
# Stages, in order:
#   build  `make all` pieces: module (stock kernel) and every userspace
#          subdirectory that has a Makefile, one test each; kernel style
#          (tools/kernel/lint.sh: checkpatch --strict, sparse, kernel-doc)
#   user   `make -C <dir> check` on the host for the userspace subdirectories
#          whose Makefile has a check target (TAP on stdout); a 60 s
#          coverage-guided fuzz pass of kmod/wire.c and kmod/engine.c
#          (tools/fuzz/run.sh; PRISM_FUZZ_SECONDS)
#   stock  selftests/run_guest.sh (core, reliability, hostile, trace,
#          large, prismctl, apps) on the stock kernel
#   multi  three stock guests (1 vCPU each) on one virtual Ethernet segment
#          (tools/vm/multi.sh): selftests/prism/multihost/test_multihost.sh,
#          then small runs of tools/bench/kv_mh.sh and tx_mh.sh (PRISM-KV
#          vs Pilaf, PRISM-TX vs FaRM, clients on two hosts); guest 0's
#          TAP counted, each guest's kernel log scanned
#   pkg    `make deb` packages installed, used and removed in a guest
#          (selftests/prism/pkg/test_deb.sh)
#   kunit  boot the debug kernel, insmod prism.ko + prism_kunit.ko, count
#          the KTAP test cases from the kernel log (the debug kernel, when
#          not built yet, is built in the background at idle priority from
#          the start of the run; this stage waits for it)
#   debug  the same on the debug kernel (KASAN, lockdep, ...) without the
#          prismctl and application suites
#   k612   the module built for Debian's 6.12 kernel (build-module.sh
#          k612), the core, hostile and large suites on that kernel
#   fresh  clone HEAD into /tmp/prism-fresh.XXXXXX and run the README's
#          first command there, `make demo` (without PRISM_OUT, PRISM_KO,
#          MAKEFLAGS), which must exit 0 and print the demo's summary;
#          prints its time, removes the clone (uncommitted work is not
#          in it)
#   (stock, multi, debug and k612: every kernel splat in the guest log
#   counts as one failed test)
#
# Counting: unindented TAP lines `ok ...` pass, `not ok ...` fail, either
# with `# SKIP` is skipped (indented lines are subtests and not counted).
# A missing stage input, a non-zero exit without a failing TAP line, fewer
# results than planned (1..N), a timeout or a dead guest each count as one
# failure.  The last line is `N passed, N failed, N skipped`; the exit
# status is 0 iff nothing failed.
#
# Environment: PRISM_TIMEOUT_KUNIT (default 600), PRISM_TIMEOUT_STOCK
# (default 3600), PRISM_TIMEOUT_DEBUG (default 2400), PRISM_TIMEOUT_K612
# (default 2400) guest timeouts in seconds; PRISM_OUT (guest-writable
# results dir, default build/vm-out).  Logs go to build/test-logs/.
# PRISM_TIMEOUT_MULTI (default 900): timeout
# of each guest of stage multi (its logs: build/test-logs/multi/).
# PRISM_TIMEOUT_FRESH (default 3600): the whole make demo of stage fresh.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
export PRISM_OUT=${PRISM_OUT:-$repo/build/vm-out}
logs=$repo/build/test-logs
mkdir -p "$PRISM_OUT" "$logs"

all_stages="build user stock multi pkg kunit debug k612 fresh"
stages=$all_stages
usage() { sed -n '3,/^set -euo/{/^set -euo/!p;}' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
	case $1 in
	--only) stages=${2:?}; stages=${stages//,/ }; shift 2 ;;
	--list) echo "$all_stages"; exit 0 ;;
	-h|--help) usage 0 ;;
	*) echo "run-tests: unknown argument '$1'" >&2; usage >&2 ;;
	esac
done
for s in $stages; do
	case " $all_stages " in *" $s "*) ;; *) echo "run-tests: unknown stage '$s'" >&2; exit 2 ;; esac
done
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }

# Userspace subdirectories, in dependency order (the library first).
user_dirs="liburing-prism selftests apps tools"

# ---------------------------------------------------------------------------
# Counters: totals and per stage.
# ---------------------------------------------------------------------------
total_pass=0 total_fail=0 total_skip=0
stage_pass=0 stage_fail=0 stage_skip=0
declare -a summary=()

pass() { echo "ok - $*"; stage_pass=$((stage_pass + 1)); }
fail() { echo "not ok - $*"; stage_fail=$((stage_fail + 1)); }

stage_begin() {
	stage_pass=0 stage_fail=0 stage_skip=0
	stage_t0=$(date +%s)
	echo
	echo "======== stage $1: $2 ========"
}
stage_end() {
	local line
	line=$(printf '%-6s %d passed, %d failed, %d skipped (%d s)' "$1" \
		"$stage_pass" "$stage_fail" "$stage_skip" \
		$(($(date +%s) - stage_t0)))
	echo "-------- $line"
	summary+=("$line")
	total_pass=$((total_pass + stage_pass))
	total_fail=$((total_fail + stage_fail))
	total_skip=$((total_skip + stage_skip))
}

# Count the TAP results in log $1 (output of a command that exited with
# status $2) for the test named $3.  Failing lines are echoed.
count_tap() {
	local log=$1 status=$2 what=$3 out p f s plan results
	out=$(sed 's/\r$//' "$log" | awk '
		/^not ok( |$)/ {
			r++
			if ($0 ~ /#[ \t]*(SKIP|skip|TODO|todo)/) s++
			else { f++; print "FAILED " $0 }
			next
		}
		/^ok( |$)/ { r++; if ($0 ~ /#[ \t]*(SKIP|skip)/) s++; else p++; next }
		/^1\.\.[0-9]+/ { n = $0; sub(/^1\.\./, "", n); plan += n + 0 }
		END { printf "COUNTS %d %d %d %d %d\n", p, f, s, plan, r }')
	grep '^FAILED ' <<< "$out" | sed 's/^FAILED /  failed: /' || true
	read -r _ p f s plan results <<< "$(grep '^COUNTS ' <<< "$out")"
	stage_pass=$((stage_pass + p))
	stage_fail=$((stage_fail + f))
	stage_skip=$((stage_skip + s))
	echo "$what: $p passed, $f failed, $s skipped (TAP, log: $log)"
	if [ "$results" -eq 0 ]; then
		fail "$what: no TAP results (exit status $status)"
	elif [ "$results" -lt "$plan" ]; then
		fail "$what: only $results of $plan planned results"
	elif [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "$what: exited with status $status but reported no failing test"
	fi
}

# Report guest-level problems given run.sh's exit status.
vm_status_ok() {
	local status=$1 what=$2
	case $status in
	124) fail "$what: guest timed out"; return 1 ;;
	125) fail "$what: guest died (panic or boot failure)"; return 1 ;;
	esac
	return 0
}

# Kernel splats in a saved guest log, after the line containing marker $2
# (earlier lines are boot and not ours).  Each cluster of matching lines
# is one failure, printed with some context.
splat_re='BUG:|WARNING:|KASAN:|UBSAN:|possible circular locking|inconsistent lock state|sleeping function called from invalid context|Call Trace:|general protection|Oops|detected stall|blocked for more than'
scan_splats() {
	local dmesg=$1 marker=$2 what=$3 start n=0 first last prev
	if [ ! -s "$dmesg" ]; then
		fail "$what: no kernel log saved ($dmesg)"
		return
	fi
	start=$(grep -n -F -- "$marker" "$dmesg" | head -n 1 | cut -d: -f1)
	if [ -z "$start" ]; then
		echo "  (marker not found in $dmesg: scanning the whole log)"
		start=1
	fi
	if [ "$start" -gt 1 ] && head -n "$start" "$dmesg" | grep -qE "$splat_re"; then
		echo "  note: the kernel log has splats before the tests started (not counted):"
		head -n "$start" "$dmesg" | grep -E "$splat_re" | head -n 5 | sed 's/^/    /'
	fi
	# Line numbers of matches, grouped: a match within 80 lines of the
	# previous one belongs to the same splat.
	first= last= prev=
	while read -r ln; do
		if [ -n "$prev" ] && [ $((ln - prev)) -le 80 ]; then
			prev=$ln last=$ln
			continue
		fi
		[ -n "$first" ] && { splat_report "$dmesg" "$first" "$last" "$what"; n=$((n + 1)); }
		first=$ln last=$ln prev=$ln
	done < <(tail -n +"$start" "$dmesg" | grep -nE "$splat_re" | cut -d: -f1 |
		awk -v off="$((start - 1))" '{ print $1 + off }')
	[ -n "$first" ] && { splat_report "$dmesg" "$first" "$last" "$what"; n=$((n + 1)); }
	if [ "$n" -eq 0 ]; then
		pass "$what: no kernel splats"
	fi
}
splat_report() {
	local dmesg=$1 first=$2 last=$3 what=$4 from to
	fail "$what: kernel splat at $dmesg:$first: $(sed -n "${first}p" "$dmesg" | cut -c1-160)"
	from=$((first > 3 ? first - 3 : 1))
	to=$((last + 40 < first + 120 ? last + 40 : first + 120))
	sed -n "${from},${to}p" "$dmesg" | sed 's/^/    | /'
}

# Run a command, its output to log $1 and the terminal; sets $status.
run_logged() {
	local log=$1
	shift
	set +e
	"$@" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	set -e
}

# ---------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------
stage_build() {
	stage_begin build "build everything"
	run_logged "$logs/build-module.log" make module
	[ "$status" -eq 0 ] && pass "build module (stock kernel)" || fail "build module (stock kernel), see $logs/build-module.log"
	run_logged "$logs/lint.log" tools/kernel/lint.sh
	[ "$status" -eq 0 ] && pass "kernel style: checkpatch --strict, sparse and kernel-doc clean" ||
		fail "kernel style: checkpatch/sparse/kernel-doc findings, see $logs/lint.log"
	local d
	for d in $user_dirs; do
		if [ ! -f "$d/Makefile" ]; then
			echo "  ($d/Makefile does not exist yet: nothing to build)"
			continue
		fi
		run_logged "$logs/build-$d.log" make -C "$d"
		[ "$status" -eq 0 ] && pass "build $d" || fail "build $d, see $logs/build-$d.log"
	done
	stage_end build
}

stage_user() {
	stage_begin user "userspace tests on the host"
	local d n=0
	# selftests/ runs in the guest (stages stock and debug), not here.
	for d in liburing-prism apps tools; do
		[ -f "$d/Makefile" ] || continue
		grep -qE '^check[[:space:]]*:' "$d/Makefile" || continue
		n=$((n + 1))
		run_logged "$logs/user-$d.log" make -s -C "$d" check
		count_tap "$logs/user-$d.log" "$status" "make -C $d check"
	done
	# Coverage-guided fuzzing of the wire parser and the engine: a short
	# pass here, `make fuzz` for a long one.
	run_logged "$logs/user-fuzz.log" tools/fuzz/run.sh --seconds "${PRISM_FUZZ_SECONDS:-60}"
	if [ "$status" -eq 0 ]; then
		pass "fuzz: $(tail -n 1 "$logs/user-fuzz.log")"
	else
		fail "fuzz: $(tail -n 1 "$logs/user-fuzz.log"), see $logs/user-fuzz.log"
	fi
	if [ ! -f liburing-prism/Makefile ]; then
		fail "liburing-prism/Makefile is missing: no userspace library tests"
	elif [ "$n" -eq 0 ]; then
		fail "no userspace Makefile has a check target"
	fi
	stage_end user
}

# Userspace pieces the guest stages need (selftest binaries...).
prereq_built=
prereq_build() {
	want build && return 0
	[ -n "$prereq_built" ] && return 0
	prereq_built=1
	echo "(building prerequisites: make all)"
	run_logged "$logs/prereq-build.log" make all
	[ "$status" -eq 0 ] || fail "prerequisite 'make all' failed, see $logs/prereq-build.log"
}

# Build the debug module (once per run); sets debug_ko and debug_kunit_ko.
debug_ko= debug_kunit_ko=
debug_module() {
	local out
	[ -n "$debug_ko" ] && return 0
	set +e
	out=$(tools/kernel/build-module.sh debug 2> >(tee "$logs/build-module-debug.log" >&2))
	status=$?
	set -e
	if [ "$status" -ne 0 ]; then
		fail "build module (debug kernel), see $logs/build-module-debug.log"
		return 1
	fi
	debug_ko=$(grep '/prism\.ko$' <<< "$out" || true)
	debug_kunit_ko=$(grep '/prism_kunit\.ko$' <<< "$out" || true)
	pass "build module (debug kernel)"
}

stage_kunit() {
	stage_begin kunit "KUnit in the debug kernel"
	debug_bg_wait
	if ! debug_module; then
		stage_end kunit
		return
	fi
	if [ -z "$debug_kunit_ko" ]; then
		fail "prism_kunit.ko was not built (kmod/Kbuild)"
		stage_end kunit
		return
	fi
	local marker="PRISM-TESTS-BEGIN kunit $$" dmesg=$logs/dmesg-kunit.txt
	# Load order: the module under test, then its KUnit suites (they run
	# inside insmod); unloading both exercises the exit paths too.
	local guest
	guest=$(cat <<EOF
echo '$marker' > /dev/kmsg
insmod '$debug_ko'; echo "prism-kunit: insmod prism.ko status \$?"
insmod '$debug_kunit_ko'; echo "prism-kunit: insmod prism_kunit.ko status \$?"
rmmod prism_kunit; echo "prism-kunit: rmmod prism_kunit status \$?"
rmmod prism; echo "prism-kunit: rmmod prism status \$?"
EOF
)
	run_logged "$logs/kunit-console.log" tools/vm/run.sh --kernel debug \
		--timeout "${PRISM_TIMEOUT_KUNIT:-600}" --dmesg "$dmesg" -- "$guest"
	vm_status_ok "$status" "kunit" || true
	local step st
	for step in "insmod prism.ko" "insmod prism_kunit.ko" "rmmod prism_kunit" "rmmod prism"; do
		st=$(sed -n "s/^prism-kunit: $step status \([0-9]*\).*/\1/p" "$logs/kunit-console.log" | tail -n 1)
		if [ "$st" = 0 ]; then
			pass "kunit: $step"
		else
			fail "kunit: $step (status ${st:-unknown})"
		fi
	done
	if [ -s "$dmesg" ]; then
		kunit_count "$dmesg" "$marker"
		scan_splats "$dmesg" "$marker" "kunit"
	else
		fail "kunit: no kernel log saved"
	fi
	stage_end kunit
}

# Count KUnit case results (KTAP) in a kernel log after the marker.  Case
# lines are indented one level (4 spaces) under "    # Subtest: <suite>";
# deeper lines are parameters; the unindented "ok N <suite>" closes the
# suite.  A suite that ran no case, or failed with no failing case (e.g.
# its init failed), counts as one failure.
kunit_count() {
	local dmesg=$1 marker=$2 out p f s
	out=$(sed -n "/$marker/,\$p" "$dmesg" | sed -e 's/\r$//' -e 's/^\[ *[0-9.]*\] //' | awk '
		function close_suite(failed) {
			if (suite == "") return
			if (cases == 0) { print "FAIL suite " suite " ran no test case"; f++ }
			else if (failed && sfail == 0) { print "FAIL suite " suite " failed"; f++ }
			suite = ""
		}
		/^    # Subtest: / {
			close_suite(0)
			suite = $0; sub(/^ *# Subtest: /, "", suite)
			cases = 0; sfail = 0; nsuites++
			next
		}
		suite != "" && /^    (not )?ok [0-9]+ / {
			cases++
			if ($0 ~ /# SKIP/) s++
			else if ($0 ~ /^    not ok/) { f++; sfail++; print "FAIL " suite ": " substr($0, 5) }
			else p++
			next
		}
		/^(not )?ok [0-9]+ / { close_suite($0 ~ /^not ok/ && $0 !~ /# SKIP/); next }
		END {
			close_suite(0)
			if (nsuites == 0) { print "FAIL no KUnit suite ran"; f++ }
			printf "COUNTS %d %d %d\n", p, f, s
		}')
	grep '^FAIL ' <<< "$out" | sed 's/^FAIL /not ok - kunit: /' || true
	read -r _ p f s <<< "$(grep '^COUNTS ' <<< "$out")"
	echo "kunit cases: $p passed, $f failed, $s skipped (log: $dmesg)"
	stage_pass=$((stage_pass + p))
	stage_fail=$((stage_fail + f))
	stage_skip=$((stage_skip + s))
}

# Selftests in a guest: $1 = stock|debug|k612 (run.sh --kernel).
stage_selftests() {
	local kernel=$1 ko tmo marker dmesg extra=
	stage_begin "$kernel" "selftests on the $kernel kernel"
	prereq_build
	if [ ! -x selftests/run_guest.sh ]; then
		fail "selftests/run_guest.sh is missing or not executable"
		stage_end "$kernel"
		return
	fi
	if [ "$kernel" != debug ]; then
		local out
		set +e
		out=$(tools/kernel/build-module.sh "$kernel" 2> >(tee "$logs/build-module-$kernel.log" >&2))
		status=$?
		set -e
		ko=$(grep '/prism\.ko$' <<< "$out" || true)
		if [ "$status" -ne 0 ] || [ -z "$ko" ]; then
			fail "build module ($kernel kernel), see $logs/build-module-$kernel.log"
			stage_end "$kernel"
			return
		fi
		tmo=${PRISM_TIMEOUT_STOCK:-3600}
		if [ "$kernel" = k612 ]; then
			# The second supported kernel: the suites that exercise
			# the kernel's APIs (the rest runs the same code paths).
			tmo=${PRISM_TIMEOUT_K612:-2400}
			extra="PRISM_GUEST_SUITES='core hostile large udp' PRISM_GUEST_APPS=0 PRISM_FLOOD_FRAMES=25000 PRISM_LARGE_NETEM_MAX=65536"
		fi
	else
		debug_bg_wait
		if ! debug_module; then
			stage_end "$kernel"
			return
		fi
		ko=$debug_ko
		tmo=${PRISM_TIMEOUT_DEBUG:-2400}
		# KASAN and lockdep make everything slower: fewer rounds, and
		# the applications (plain users of the same paths) run on stock.
		extra="PRISM_NETEM_ROUNDS=1 PRISM_RELIABILITY_N=60 PRISM_FUZZ_FRAMES=5000 PRISM_FLOOD_FRAMES=25000 PRISM_GUEST_APPS=0 PRISM_LARGE_NETEM_MAX=65536"
	fi
	marker="PRISM-TESTS-BEGIN selftests $kernel $$"
	dmesg=$logs/dmesg-selftests-$kernel.txt
	run_logged "$logs/selftests-$kernel.log" env PRISM_KO="$ko" \
		tools/vm/run.sh --kernel "$kernel" --timeout "$tmo" --dmesg "$dmesg" -- \
		sh -c "echo '$marker' > /dev/kmsg; exec env $extra selftests/run_guest.sh"
	vm_status_ok "$status" "selftests ($kernel)" || true
	count_tap "$logs/selftests-$kernel.log" "$status" "selftests ($kernel kernel)"
	scan_splats "$dmesg" "$marker" "selftests ($kernel kernel)"
	stage_end "$kernel"
}

# Three guests on one segment: PRISM across real (virtual) NICs.
stage_multi() {
	local out ko t0 i dir=$logs/multi
	stage_begin multi "three guests on one virtual Ethernet segment"
	prereq_build
	set +e
	out=$(tools/kernel/build-module.sh stock 2> >(tee "$logs/build-module-stock.log" >&2))
	status=$?
	set -e
	ko=$(grep '/prism\.ko$' <<< "$out" || true)
	if [ "$status" -ne 0 ] || [ -z "$ko" ]; then
		fail "build module (stock kernel), see $logs/build-module-stock.log"
		stage_end multi
		return
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(date +%s)
	run_logged "$logs/multi.log" env PRISM_KO="$ko" tools/vm/multi.sh -n 3 \
		--timeout "${PRISM_TIMEOUT_MULTI:-900}" --logs "$dir" -- \
		selftests/prism/multihost/test_multihost.sh
	vm_status_ok "$status" "multihost" || true
	count_tap "$logs/multi.log" "$status" "multihost (guest 0)"
	for i in 0 1 2; do
		scan_splats "$dir/dmesg-guest$i.txt" "PRISM-TESTS-BEGIN multihost guest $i" \
			"multihost guest $i"
	done
	# The stores against their baselines with clients on two hosts, small
	# (tools/bench/kv_mh.sh, tx_mh.sh: make kv-mh, make tx-mh), one after
	# the other in one boot: 70,000 objects (more than a free list once
	# held), one point per system of 2 s (YCSB-A Zipf 0.99, YCSB-T Zipf
	# 0.99) after the bank, 2 processes x depth 2 per client host.
	rm -rf "$dir/mh"
	mkdir -p "$dir/mh"
	run_logged "$logs/multi-mh.log" env PRISM_KO="$ko" \
		PRISM_OUT="$PRISM_OUT/mh-smoke" PRISM_KVMH_RECORDS=70000 \
		PRISM_KVMH_SECONDS=2 PRISM_KVMH_POINTS=A:zipf:0.99 \
		PRISM_TXMH_KEYS=70000 PRISM_TXMH_SECONDS=2 PRISM_TXMH_THETAS=0.99 \
		tools/vm/multi.sh -n 3 --timeout "${PRISM_TIMEOUT_MULTI:-900}" \
		--logs "$dir/mh" -- \
		'echo "PRISM-TESTS-BEGIN mh guest $PRISM_GUEST" > /dev/kmsg; tools/bench/kv_mh.sh; r=$?; tools/bench/tx_mh.sh || r=1; exit $r'
	vm_status_ok "$status" "kv-mh, tx-mh" || true
	count_tap "$logs/multi-mh.log" "$status" "kv-mh, tx-mh (guest 0)"
	for i in 0 1 2; do
		scan_splats "$dir/mh/dmesg-guest$i.txt" "PRISM-TESTS-BEGIN mh guest $i" \
			"kv-mh, tx-mh guest $i"
	done
	echo "stage multi: $(($(date +%s) - t0)) s (guest logs in $dir)"
	stage_end multi
}

# ---------------------------------------------------------------------------
start=$(date +%s)
# Debian packages: build them (tools/pkg/mkdeb.sh), install them on the
# host in an overlay of its root (DKMS builds the module for the stock
# kernel at native speed: in the TCG guest that took 400 s), then use and
# remove them in a guest on the stock kernel, which stacks the installed
# layer over its root (selftests/prism/pkg/test_deb.sh, in two parts).
stage_pkg() {
	local t0 marker dmesg mode debdir=$repo/build/deb layer=$repo/build/pkg-layer
	stage_begin pkg "Debian packages in a guest"
	t0=$(date +%s)
	run_logged "$logs/pkg-mkdeb.log" tools/pkg/mkdeb.sh "$debdir"
	if [ "$status" -ne 0 ]; then
		fail "tools/pkg/mkdeb.sh, see $logs/pkg-mkdeb.log"
		stage_end pkg
		return
	fi
	pass "tools/pkg/mkdeb.sh: 4 packages in $debdir"
	modprobe -q overlay 2> /dev/null || true
	if grep -qw overlay /proc/filesystems; then
		run_logged "$logs/pkg-install.log" selftests/prism/pkg/test_deb.sh --install-only \
			"$debdir" "$layer"
		count_tap "$logs/pkg-install.log" "$status" "pkg (test_deb.sh --install-only, host)"
		echo "pkg: installed on the host in $(( $(date +%s) - t0 )) s"
		mode="--installed '$debdir' '$layer'"
	else
		echo "pkg: no overlayfs on this host: the guest installs the packages itself"
		mode="'$debdir'"
	fi
	marker="PRISM-TESTS-BEGIN pkg $$"
	dmesg=$logs/dmesg-pkg.txt
	run_logged "$logs/pkg.log" tools/vm/run.sh --timeout "${PRISM_TIMEOUT_PKG:-1200}" \
		--dmesg "$dmesg" -- \
		sh -c "echo '$marker' > /dev/kmsg; exec selftests/prism/pkg/test_deb.sh $mode"
	vm_status_ok "$status" "pkg" || true
	count_tap "$logs/pkg.log" "$status" "pkg (test_deb.sh in the guest)"
	scan_splats "$dmesg" "$marker" "pkg"
	rm -rf "$layer"
	echo "pkg: $(( $(date +%s) - t0 )) s"
	stage_end pkg
}

# A fresh clone of HEAD must run the README's first command, make demo.
stage_fresh() {
	stage_begin fresh "fresh clone of HEAD: make demo"
	local dir head t0 secs
	head=$(git -C "$repo" rev-parse --short HEAD)
	dir=$(mktemp -d /tmp/prism-fresh.XXXXXX)
	if ! git clone -q "$repo" "$dir" > "$logs/fresh-clone.log" 2>&1; then
		fail "git clone of HEAD $head, see $logs/fresh-clone.log"
		rm -rf "$dir"
		stage_end fresh
		return
	fi
	echo "(HEAD $head cloned into $dir; uncommitted changes are not in it)"
	t0=$(date +%s)
	run_logged "$logs/fresh-demo.log" \
		timeout -k 30 "${PRISM_TIMEOUT_FRESH:-3600}" \
		env -u PRISM_OUT -u PRISM_KO -u MAKEFLAGS -u MAKELEVEL \
		make -C "$dir" demo
	secs=$(( $(date +%s) - t0 ))
	echo "fresh: make demo took $((secs / 60)) min $((secs % 60)) s"
	if [ "$status" -eq 0 ]; then
		pass "make demo in a fresh clone ($secs s)"
	elif [ "$status" -eq 124 ]; then
		fail "make demo in a fresh clone: timeout after ${PRISM_TIMEOUT_FRESH:-3600} s, see $logs/fresh-demo.log"
	else
		fail "make demo in a fresh clone: exit status $status, see $logs/fresh-demo.log"
	fi
	# tools/demo.sh ends with its summary section and "demo: finished".
	if grep -q '^=== summary ===' "$logs/fresh-demo.log" &&
	   grep -q '^demo: finished' "$logs/fresh-demo.log"; then
		pass "make demo printed its summary"
	else
		fail "make demo printed no summary (=== summary === ... demo: finished)"
	fi
	rm -rf "$dir"
	stage_end fresh
}

# The debug kernel's cold build (about 25 min of both cores) starts now,
# in the background at idle priority (SCHED_IDLE, nice 19): it gets only
# the CPU time the guests of stages stock, multi and pkg leave idle (they
# wait on timers and the network much of the time).  They still run slower
# beside it (shared cores and caches: on 2026-11-27 the core suite took 90
# s instead of 55, prismctl 190 instead of 128: the stage lost some 8
# minutes), but the run is shorter by the rest of the build's 25 or more
# minutes.  Stage kunit, which needs the kernel, comes after them
# (build-debug.sh's lock makes it wait if the build is not done).
debug_bg_pid=
debug_bg_stop() {
	[ -n "$debug_bg_pid" ] || return 0
	kill -- -"$debug_bg_pid" 2>/dev/null || true
	wait "$debug_bg_pid" 2>/dev/null || true
	debug_bg_pid=
}
if { want kunit || want debug; } &&
   ! tools/kernel/build-debug.sh --built; then
	echo "(debug kernel: building in the background at idle priority; log: $logs/build-debug.log)"
	# setsid: its own process group, which an early exit kills whole.
	setsid chrt -i 0 nice -n 19 tools/kernel/build-debug.sh \
		> "$logs/build-debug.log" 2>&1 < /dev/null &
	debug_bg_pid=$!
	debug_bg_t0=$(date +%s)
	trap debug_bg_stop EXIT
fi
# Stages kunit and debug: wait for the background build, say how long.
debug_bg_wait() {
	local t0
	[ -n "$debug_bg_pid" ] || return 0
	t0=$(date +%s)
	wait "$debug_bg_pid" 2>/dev/null || true
	debug_bg_pid=
	echo "(debug kernel: waited $(( $(date +%s) - t0 )) s here for the background build started $(( $(date +%s) - debug_bg_t0 )) s ago; log: $logs/build-debug.log)"
	grep -E '^build-debug: (done in|.*failed)' "$logs/build-debug.log" || true
}

want build && stage_build
want user && stage_user
want stock && stage_selftests stock
want multi && stage_multi
want pkg && stage_pkg
want kunit && stage_kunit
want debug && stage_selftests debug
want k612 && stage_selftests k612
want fresh && stage_fresh

echo
echo "======== summary ($(( $(date +%s) - start )) s, logs in $logs) ========"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
