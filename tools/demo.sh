#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PRISM demo: boot the test VM and show the module at work.
#
#   tools/demo.sh            (on the host) build what is missing, boot the
#                            guest, run the demo there, print a summary
#   tools/demo.sh --guest    (inside the guest) the demo itself
#
# In the guest: four hosts (network namespaces) on one bridge.  demo-srv
# runs a server that registers memory and then sleeps in pause(); the
# clients demo-c1..c3 run READ / WRITE / CAS / ALLOC chains against it at
# the same time, while the server's CPU time and context switches are
# watched (they stay put: the kernel serves the chains).  Then the first
# benchmark (tools/bench/indirect.sh) runs between two other namespaces, and
# each application's apps/<name>/demo-guest.sh (PRISM-KV, PRISM-RS,
# PRISM-TX) runs on hosts of its own.  Part 2 (PRISM_DEMO_MULTI=0: skip)
# boots three guests on one virtual Ethernet segment and runs the three
# stores across them (tools/demo-multi.sh): PRISM-KV with one server and
# two clients, PRISM-TX with two shards and bank transfers from two guests
# (audit: total unchanged), PRISM-RS with three replicas while one guest
# crashes (the client goes on with 2 of 3; its history is checked).
#
# Environment: PRISM_KO (module to load; default: build kmod/prism.ko for
# the stock kernel), PRISM_OUT (guest-writable results directory, default
# build/vm-out), PRISM_BENCH_N (benchmark iterations, default 1000 here),
# PRISM_DEMO_TIMEOUT (each guest's timeout, default 1200 s; the first part
# takes 3-4 min here), PRISM_DEMO_CLIENT_S / PRISM_DEMO_STEP_S (how long a
# client / the benchmark or an application's demo may take, default 120 /
# 600 s: one that hangs is reported with what is stuck and stopped).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

# ===========================================================================
# Host side
# ===========================================================================
host_main() {
	set -e
	cd "$repo"
	echo "demo: building the library, examples, benchmark and applications"
	make -s -C liburing-prism >/dev/null
	make -s -C tools/bench >/dev/null
	make -s -C apps >/dev/null
	if [ -z "${PRISM_KO:-}" ]; then
		echo "demo: building the module for the stock kernel"
		PRISM_KO=$(tools/kernel/build-module.sh stock 2>/dev/null | grep '/prism\.ko$')
	fi
	[ -r "$PRISM_KO" ] || { echo "demo: no module ($PRISM_KO)" >&2; exit 1; }
	export PRISM_KO
	export PRISM_OUT=${PRISM_OUT:-$repo/build/vm-out}
	export PRISM_BENCH_N=${PRISM_BENCH_N:-1000}
	mkdir -p "$PRISM_OUT"
	set +e
	tools/vm/run.sh --timeout "${PRISM_DEMO_TIMEOUT:-1200}" -- tools/demo.sh --guest
	local rc=$? rc2=0
	if [ "${PRISM_DEMO_MULTI:-1}" != 0 ]; then
		echo
		echo "demo: part 2: three guests, each with its own kernel, on one virtual" \
			"Ethernet segment (tools/vm/multi.sh, tools/demo-multi.sh)"
		tools/vm/multi.sh -n 3 --timeout "${PRISM_DEMO_TIMEOUT:-1200}" -- tools/demo-multi.sh
		rc2=$?
	fi
	echo
	if [ "$rc" = 0 ] && [ "$rc2" = 0 ]; then
		echo "demo: finished; benchmark JSON in $PRISM_OUT/bench-indirect.json"
	else
		echo "demo: FAILED (status $rc, multi-guest part $rc2)"
		[ "$rc" = 0 ] && rc=$rc2
	fi
	exit "$rc"
}

# ===========================================================================
# Guest side
# ===========================================================================
EX=$repo/liburing-prism/build
work=
declare -a pids=()
declare -a summary=()
HOSTS="demo-srv demo-c1 demo-c2 demo-c3"

note() { summary+=("$*"); }
section() { printf '\n=== %s ===\n' "$*"; }

guest_cleanup() {
	local p ns
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for ns in $HOSTS demo-sw; do
		ip netns del "$ns" 2>/dev/null
	done
	[ -d /sys/module/prism ] && rmmod prism 2>/dev/null
	[ -n "$work" ] && rm -rf "$work"
}

# wait_file: a wall-clock bound that also notices a dead process
# shellcheck source=lib/wait.sh
. "$repo/tools/lib/wait.sh"
# prism_stuck_report
# shellcheck source=lib/module.sh
. "$repo/tools/lib/module.sh"

# bounded SECS LABEL PID: wait for PID (a child); if it has not exited
# within SECS, say so with what is stuck (prism_stuck_report), stop it
# (SIGTERM: the app scripts clean up; SIGKILL 10 s later) and return 124.
# Otherwise its exit status.
bounded() {
	if ! wait_until -i 0.2 $(($1 * 1000)) proc_exited "$3"; then
		echo "demo: $2 did not finish within $1 s; what is stuck:"
		prism_stuck_report
		kill -TERM "$3" 2>/dev/null
		wait_exit "$3" 10000
		return 124
	fi
	wait "$3"
}
# How long a client may take (they finish in seconds), and the benchmark
# or an application's demo (a minute or two on a loaded 2-core host).
CLIENT_S=${PRISM_DEMO_CLIENT_S:-120}
STEP_S=${PRISM_DEMO_STEP_S:-600}

ctxt() { awk '/ctxt_switches/ { n += $2 } END { print n }' "/proc/$1/status"; }

guest_main() {
	local ko=${PRISM_KO:-$repo/kmod/prism.ko} i srv line cpu0 cpu1 cs0 cs1 rc=0
	work=$(mktemp -d /tmp/prism-demo.XXXXXX)
	trap guest_cleanup EXIT

	section "loading the module"
	insmod "$ko" || { echo "insmod $ko failed"; return 1; }
	echo "prism.ko loaded: family $(cat /sys/module/prism/parameters/family)," \
		"ethertype $(printf '0x%04x' "$(cat /sys/module/prism/parameters/ethertype)")"
	modprobe veth
	modprobe bridge

	section "hosts"
	{
		for ns in demo-sw $HOSTS; do
			echo "netns add $ns"
		done
	} | ip -batch - || return 1
	{
		echo "link add name br0 up type bridge forward_delay 0"
		i=0
		for ns in $HOSTS; do
			i=$((i + 1))
			echo "link add name port$i master br0 type veth" \
				"peer name eth0 address 02:00:00:00:de:0$i netns $ns"
			echo "link set port$i up"
		done
	} | ip -n demo-sw -batch - || return 1
	for ns in $HOSTS; do
		ip -n "$ns" link set eth0 up || return 1
	done
	for ns in $HOSTS; do
		echo "  $ns: eth0 $(ip -n "$ns" -o link show eth0 | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2)"
	done
	echo "  all on bridge br0 (namespace demo-sw)"

	section "server on demo-srv"
	ip netns exec demo-srv "$EX/prism-example-server" eth0 7 > "$work/srv.out" 2>&1 &
	srv=$!
	pids+=("$srv")
	wait_file "$work/srv.out" 30000 "$srv" || { cat "$work/srv.out"; return 1; }
	line=$(head -n 1 "$work/srv.out")
	echo "  pid $srv, published: $line"
	echo "  it now sleeps in pause(): state $(awk '{ print $3 }' "/proc/$srv/stat")," \
		"wchan $(cat "/proc/$srv/wchan" 2>/dev/null || echo '?')"
	cpu0=$(cpu_ticks "$srv")
	cs0=$(ctxt "$srv")

	section "three clients at once (READ, CAS x10, WRITE+READ, ALLOC+CAS PUT, GET)"
	for i in 1 2 3; do
		# shellcheck disable=SC2086
		ip netns exec "demo-c$i" "$EX/prism-example-client" eth0 $line \
			> "$work/c$i.out" 2>&1 &
		pids+=($!)
		eval "cpid$i=\$!"
	done
	for i in 1 2 3; do
		local p
		eval "p=\$cpid$i"
		if bounded "$CLIENT_S" "client demo-c$i" "$p"; then
			note "client demo-c$i: all chains completed"
		else
			note "client demo-c$i: FAILED"
			rc=1
		fi
		echo "--- demo-c$i"
		sed 's/^/  /' "$work/c$i.out"
	done
	# A fourth run after them: the shared counter must read 3 x 10 + 10.
	echo "--- demo-c1 again (the counter must reach 40: 3 x 10 concurrent + 10)"
	# shellcheck disable=SC2086
	ip netns exec demo-c1 "$EX/prism-example-client" eth0 $line > "$work/c4.out" 2>&1 &
	bounded "$CLIENT_S" "client demo-c1 (again)" $!
	sed 's/^/  /' "$work/c4.out"
	if grep -q 'counter after 10 CAS increments: 40$' "$work/c4.out"; then
		note "shared counter: 40 after 3 concurrent clients x 10 CAS + 10 (no lost update)"
	else
		note "shared counter: WRONG ($(grep -o 'increments: [0-9]*' "$work/c4.out"), expected 40)"
		rc=1
	fi

	cpu1=$(cpu_ticks "$srv")
	cs1=$(ctxt "$srv")
	section "the server while it was serving"
	echo "  CPU time (utime+stime): $cpu0 -> $cpu1 ticks"
	echo "  context switches:       $cs0 -> $cs1"
	echo "  counters of demo-srv's namespace (/proc/net/prism):"
	ip netns exec demo-srv cat /proc/net/prism | sed 's/^/    /'
	if [ "$cpu1" = "$cpu0" ] && [ "$cs1" = "$cs0" ]; then
		note "server: served every chain without running (CPU $cpu0 -> $cpu1 ticks, context switches $cs0 -> $cs1)"
	else
		note "server: CPU $cpu0 -> $cpu1 ticks, context switches $cs0 -> $cs1 (expected no change)"
	fi
	note "$(ip netns exec demo-srv awk '$1 == "chains_served" || $1 == "ops_served" { printf "%s %s  ", $1, $2 }' /proc/net/prism)"

	section "benchmark: indirect READ vs two READs vs UDP (tools/bench/indirect.sh)"
	"$repo/tools/bench/indirect.sh" > "$work/bench.out" 2>&1 &
	if bounded "$STEP_S" "the benchmark" $!; then
		sed 's/^/  /' "$work/bench.out"
		note "benchmark: $(grep -m1 -E 'ratio indirect / two reads' "$work/bench.out" | sed 's/^ *//')"
		note "benchmark: $(grep -m1 -E 'ratio indirect / UDP' "$work/bench.out" | sed 's/^ *//')"
	else
		sed 's/^/  /' "$work/bench.out"
		note "benchmark: FAILED"
		rc=1
	fi

	section "applications"
	# Hook: apps/<name>/demo-guest.sh (PRISM-KV, PRISM-RS, PRISM-TX) run
	# here, with the module loaded, once they exist.  Each gets the repo
	# root as $1 and prints its own report; its status counts.
	local found=0 app
	for app in "$repo"/apps/*/demo-guest.sh; do
		[ -x "$app" ] || continue
		found=1
		echo "--- $app"
		"$app" "$repo" &
		if bounded "$STEP_S" "$app" $!; then
			note "app $(basename "$(dirname "$app")"): ok"
		else
			note "app $(basename "$(dirname "$app")"): FAILED"
			rc=1
		fi
	done
	[ "$found" = 1 ] || echo "  (no apps/*/demo-guest.sh yet: KV, RS and TX come later)"

	section "unloading the module"
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
	if wait_until -i 0.2 10000 rmmod prism 2>/dev/null; then
		echo "  rmmod prism: done"
		note "module: unloaded, no process of the demo left behind"
	else
		echo "  rmmod prism failed: something still holds the module"
		prism_stuck_report
		note "module: still in use after the demo (processes left behind, see above)"
		rc=1
	fi

	section "summary"
	printf '  %s\n' "${summary[@]}"
	return $rc
}

case ${1:-} in
--guest) guest_main ;;
"") host_main ;;
*) sed -n '3,/^set -u/{/^set -u/!p;}' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
