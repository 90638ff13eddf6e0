#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every test suite that runs inside the guest, one after the other; each
# prints its own TAP stream.  Exits non-zero if any suite failed.
#
#   PRISM_KO=/path/prism.ko selftests/run_guest.sh
#
# Env: PRISM_NETEM_ROUNDS (netem rounds of the reliability suite, 5),
#      PRISM_RELIABILITY_N (chains per client and round, 150),
#      PRISM_FUZZ_FRAMES (random hostile frames, 20000),
#      PRISM_FLOOD_FRAMES (attacker frames of the hostile suite, 100000),
#      PRISM_HZ_K (CAS increments per phase of the hostile suite, 300),
#      PRISM_LARGE_MAX (largest op of the large suite, 1048576),
#      PRISM_LARGE_NETEM_MAX (largest op of its sweep under netem, 262144),
#      PRISM_UDP_N (CAS increments per client of the udp suite, 150),
#      PRISM_GUEST_APPS (0: skip the slower prismctl and application
#      suites; default 1),
#      PRISM_GUEST_SUITES (names of the suites to run, space separated,
#      e.g. "core hostile"; default every suite).
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tools/lib/wait.sh
. "$repo/tools/lib/wait.sh"
status=0
# "name seconds" of each suite run, printed at the end.
times=()

suite() {
	case " ${PRISM_GUEST_SUITES:-$1} " in *" $1 "*) ;; *) return 0 ;; esac
	local name=$1 t0=$SECONDS secs
	echo "# ---- suite: $name"
	shift
	"$@" || status=1
	secs=$((SECONDS - t0))
	times+=("$name $secs")
	echo "# suite $name took $secs s"
	# A suite that failed half-way may leave the module loaded; one that
	# left processes with PRISM sockets behind keeps it in use, and the
	# next suites would run against it and its leftovers.
	# That is a failure of the suite; its leftovers (programs of this
	# tree) are killed so that the next suites start clean.
	if [ -d /sys/module/prism ] && ! rmmod prism 2>/dev/null; then
		echo "not ok - suite $name left prism in use (refcnt $(cat /sys/module/prism/refcnt)); processes:"
		ps -eo pid,args | sed -n '2,$p' | grep -v '\[' | sed 's/^/#   /'
		status=1
		pkill -KILL -f "^$repo/" 2>/dev/null
		wait_until -i 0.2 10000 rmmod prism 2>/dev/null ||
			echo "# prism still in use after killing them"
	fi
	return 0
}

suite core "$repo/selftests/prism/run_all.sh"
suite reliability env REPEAT="${PRISM_NETEM_ROUNDS:-5}" \
	N="${PRISM_RELIABILITY_N:-150}" FUZZ_FRAMES="${PRISM_FUZZ_FRAMES:-20000}" \
	"$repo/selftests/prism/reliability/test_reliability.sh"
suite hostile env FLOOD_FRAMES="${PRISM_FLOOD_FRAMES:-100000}" \
	HZ_K="${PRISM_HZ_K:-300}" PRISMCTL="$repo/tools/prismctl/prismctl" \
	"$repo/selftests/prism/hostile/test_hostile.sh"
suite trace "$repo/selftests/prism/trace/test_trace.sh"
suite mcore "$repo/selftests/prism/mcore/test_mcore.sh"
suite large env LARGE_MAX="${PRISM_LARGE_MAX:-1048576}" \
	LARGE_NETEM_MAX="${PRISM_LARGE_NETEM_MAX:-262144}" \
	"$repo/selftests/prism/large/test_large.sh"
suite udp env UDP_N="${PRISM_UDP_N:-150}" "$repo/selftests/prism/udp/test_udp.sh"
# Ends the run: each suite's time on one line, then the status.
finish() {
	echo "# suite times (s): ${times[*]}"
	exit $status
}
[ "${PRISM_GUEST_APPS:-1}" = 0 ] && finish
suite prismctl env \
	PRISM_SERVER="$repo/liburing-prism/build/prism-example-server" \
	PRISM_CLIENT="$repo/liburing-prism/build/prism-example-client" \
	"$repo/selftests/prism/prismctl/test_prismctl.sh"
# Smoke run of the large-operation benchmark (tiny sizes, few ops): every
# stack (PRISM, rxe's perftest, TCP) gives well-formed nonzero results.
suite bench env PRISM_LARGE_SMOKE=1 PRISM_OUT=/tmp/bench-large-smoke \
	"$repo/tools/bench/large.sh"
# Smoke run of the target-CPU benchmark (one guest, netns, 3000 ops per
# mode): every mode measured, the target's counters match the ops.
suite cpu env PRISM_CPU_SMOKE=1 PRISM_OUT=/tmp/bench-cpu-smoke \
	"$repo/tools/bench/cpu.sh"
# Smoke runs of the depth and incast benchmarks (depths 1 and 16, 300 ops;
# 8 clients for 1 s): every run completes every chain, reports are made.
suite bench-depth env PRISM_DEPTH_SMOKE=1 PRISM_OUT=/tmp/bench-depth-smoke \
	"$repo/tools/bench/depth.sh"
suite bench-incast env PRISM_INCAST_SMOKE=1 PRISM_OUT=/tmp/bench-incast-smoke \
	"$repo/tools/bench/incast.sh"
suite bench-udp env PRISM_UDP_SMOKE=1 PRISM_OUT=/tmp/bench-udp-smoke \
	"$repo/tools/bench/udp.sh"
# Applications listed in apps/guest-suites (their suites passed in the VM).
for app in $(grep -v '^#' "$repo/apps/guest-suites"); do
	t=$repo/apps/$app/test/run.sh
	if [ -x "$t" ]; then
		suite "$app" "$t"
	else
		echo "not ok - apps/$app/test/run.sh is listed but missing"
		status=1
	fi
done
# Smoke run of the paper's figures (tools/figures, small scale): each store
# against its baseline; PRISM must not lose on a headline metric by more
# than the noise.
suite figures env PRISM_OUT=/tmp "$repo/tools/figures/smoke.sh"
finish
