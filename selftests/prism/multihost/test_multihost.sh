#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PRISM across real (virtual) NICs: three guests, each with its own kernel,
# on one Ethernet segment.  Run by tools/vm/multi.sh in every guest:
#
#   PRISM_KO=/path/prism.ko tools/vm/multi.sh -n 3 -- \
#       selftests/prism/multihost/test_multihost.sh
#
# Roles (PRISM_GUEST):
#   1  servers: prism_test server (ep 7) and PRISM-KV kv-server (ep 100);
#      their info files go to $PRISM_MH_DIR
#   0  the TAP coordinator: the prism_test client cases that only use the
#      network against guest 1 (the others peek/poke the server's memory
#      with process_vm_readv/writev, which needs the same kernel: SKIP),
#      the netem CAS counter check and the KV check
#   2  second client: CAS increments under loss, KV get and overwrite
# Only guest 0 prints TAP.  The guests coordinate through files in
# $PRISM_MH_DIR (markers written atomically, waits bounded, no sleeps):
#   ready-1, ready-2      servers up / client 2 up ("ok" or a reason)
#   cas-phase             "go" (or "skip"): guest 2 starts its increments
#   cas-ready-{0,2}, cas-go   start line (prism_test cas-incr)
#   cas-result-2          guest 2's status, retransmits, output
#   kv-put-0, kv-get-2, kv-put-2   the KV steps
#   done-0                guest 0 is finished: the others exit
#
# Env: PRISM_KO (default kmod/prism.ko), PRISM_MH_CAS_N (increments per
# client, 200), PRISM_MH_WAIT_MS (longest wait for another guest, 1200000).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
T=$repo/selftests/prism/prism_test
KVB=$repo/apps/kv/build
KO=${PRISM_KO:-$repo/kmod/prism.ko}
D=${PRISM_MH_DIR:?run me with tools/vm/multi.sh}
g=${PRISM_GUEST:?run me with tools/vm/multi.sh}
N=${PRISM_MH_CAS_N:-200}
WAIT=${PRISM_MH_WAIT_MS:-1200000}
CAS_OFF=$((0x1d800))
KEY=mh-greeting
# shellcheck source=../../../tools/lib/prism_lib.sh
. "$repo/tools/lib/prism_lib.sh"

echo "PRISM-TESTS-BEGIN multihost guest $g" > /dev/kmsg
tmp=$(mktemp -d /tmp/prism-mh.XXXXXX)
loaded=0

# mark NAME TEXT...: write $D/NAME atomically (readers wait for non-empty).
mark() {
	local f=$D/$1
	shift
	printf '%s\n' "$@" > "$f.tmp.$g" && mv -f "$f.tmp.$g" "$f"
}
await() { wait_file "$D/$1" "${2:-$WAIT}"; }
first_line() { local l=; read -r l < "$D/$1" 2>/dev/null; echo "$l"; }
retransmits() { awk '$1 == "retransmits" { print $2 }' /proc/net/prism; }
info_get() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

setup() {
	if [ ! -d /sys/module/prism ]; then
		insmod "$KO" || return 1
		loaded=1
	fi
	modprobe -q sch_netem 2>/dev/null
	[ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" = 1 ]
}

cleanup() {
	local p
	for p in $(jobs -p); do
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	tc qdisc del dev eth0 root 2>/dev/null
	[ "$loaded" = 1 ] && rmmod prism 2>/dev/null
	rm -rf "$tmp"
}

# ---------------------------------------------------------------------------
# Guest 1: the servers
# ---------------------------------------------------------------------------
guest_servers() {
	local srv kvs why='' rc=0
	if ! setup; then
		mark ready-1 "failed: module or eth0 not ready"
		await done-0
		return 1
	fi
	"$T" server eth0 7 "$D/srv.info" > "$tmp/srv.out" 2>&1 &
	srv=$!
	"$KVB/kv-server" --if eth0 --ep 100 --info "$D/kv.info" --slots 1024 \
		--bufs 512 > "$tmp/kv.log" 2>&1 &
	kvs=$!
	wait_file "$D/srv.info" 60000 "$srv" || why="prism_test server did not start: $(cat "$tmp/srv.out")"
	wait_file "$D/kv.info" 60000 "$kvs" || why="$why kv-server did not start: $(cat "$tmp/kv.log")"
	if [ -n "$why" ]; then
		echo "guest 1: $why"
		mark ready-1 "failed: $why"
		await done-0
		return 1
	fi
	echo "guest 1: prism_test server pid $srv (ep 7), kv-server pid $kvs (ep 100) on $(cat /sys/class/net/eth0/address)"
	mark ready-1 ok
	await done-0 || echo "guest 1: guest 0 did not finish in ${WAIT} ms"
	proc_exited "$srv" && { echo "guest 1: the prism_test server died"; rc=1; }
	proc_exited "$kvs" && { echo "guest 1: kv-server died"; rc=1; }
	echo "guest 1: counters:"
	sed 's/^/  /' /proc/net/prism
	kill -TERM "$kvs" 2>/dev/null
	wait_file "$tmp/never" 10000 "$kvs"
	kill -KILL "$srv" "$kvs" 2>/dev/null
	wait "$srv" "$kvs" 2>/dev/null
	sed 's/^/guest 1: kv-server: /' "$tmp/kv.log"
	return $rc
}

# ---------------------------------------------------------------------------
# Guest 2: the second client
# ---------------------------------------------------------------------------
guest_client2() {
	local phase rc r0 r1 out
	if ! setup; then
		mark ready-2 "failed: module or eth0 not ready"
		await done-0
		return 1
	fi
	await ready-1 || { mark ready-2 "failed: no servers"; return 1; }
	mark ready-2 ok

	await cas-phase || return 1
	phase=$(first_line cas-phase)
	if [ "$phase" = go ]; then
		tc qdisc add dev eth0 root netem loss 10%
		r0=$(retransmits)
		timeout 600 "$T" cas-incr --if eth0 --info "$D/srv.info" --off $CAS_OFF \
			--n "$N" --ready "$D/cas-ready-2" --go "$D/cas-go" > "$tmp/cas.out" 2>&1
		rc=$?
		r1=$(retransmits)
		tc qdisc del dev eth0 root
		mark cas-result-2 "$rc $((r1 - r0))" "$(tr '\n' ' ' < "$tmp/cas.out")"
		echo "guest 2: cas-incr status $rc, $((r1 - r0)) retransmits: $(cat "$tmp/cas.out")"
	fi

	await kv-put-0 || return 1
	if [ "$(first_line kv-put-0)" = ok ]; then
		out=$(timeout 60 "$KVB/kv" --if eth0 --info "$D/kv.info" get "$KEY" 2>&1)
		mark kv-get-2 "$?" "$out"
		out=$(timeout 60 "$KVB/kv" --if eth0 --info "$D/kv.info" put "$KEY" "overwritten by guest 2" 2>&1)
		mark kv-put-2 "$?" "$out"
	fi
	await done-0
	return 0
}

# ---------------------------------------------------------------------------
# Guest 0: the coordinator (TAP)
# ---------------------------------------------------------------------------
# Client cases that only use the network.  The others set up or check
# the server's memory with process_vm_readv/writev (selftests/prism/cases/:
# setup(), check_mem(), ring_setup()...), read its /proc entries or open sockets
# in its network namespace: same kernel only.
net_cases=" read_direct scratch no_endpoint timeout window_per_peer peer_limit "
net_cases+=" errno_socket errno_chain errno_ioctl stats "

result() {	# RC NAME: one TAP line, with the time since $t_start
	local ms=$(($(now_ms) - t_start))
	tap_result "$1" "$2 ($ms ms)"
	t_start=$(now_ms)
}
skip() { tap_skip "$@"; t_start=$(now_ms); }
diag() { sed -e 's/^# //' -e 's/^/# /'; }

guest_coord() {
	local cases c ok=0 v0 v1 r0 r1 rc line st2 re2 out2 out srv_ok=0 cas_ok=1
	trap 'mark done-0 finished; cleanup' EXIT
	cases=$("$T" list 2>/dev/null | awk '{ print $1 }')
	tap_header
	if [ -z "$cases" ]; then
		tap_plan 1
		not_ok "$T list (build selftests on the host)"
		return 1
	fi
	tap_plan $((3 + $(echo "$cases" | wc -w) + 3 + 4))
	t_start=$(now_ms)

	setup && ok=1
	echo "# guest 0: eth0 $(cat /sys/class/net/eth0/address 2>/dev/null) mtu $(cat /sys/class/net/eth0/mtu 2>/dev/null), module $KO"
	result $((1 - ok)) "guest 0: module loaded, eth0 up with carrier"

	if await ready-1 300000 && [ "$(first_line ready-1)" = ok ] &&
		await ready-2 300000 && [ "$(first_line ready-2)" = ok ]; then
		echo "# guest 1: PRISM server $(info_get "$D/srv.info" mac) ep $(info_get "$D/srv.info" ep); kv-server info $D/kv.info"
		srv_ok=1
	else
		echo "# guest 1: $(first_line ready-1); guest 2: $(first_line ready-2)"
	fi
	result $((1 - srv_ok)) "guests 1 and 2 ready (servers up on guest 1)"

	if [ "$srv_ok" = 1 ] && [ "$ok" = 1 ]; then
		timeout 60 "$T" ping --if eth0 --info "$D/srv.info" --n 30000 2>&1 | diag
		[ "${PIPESTATUS[0]}" = 0 ] || srv_ok=0
	else
		srv_ok=0
	fi
	result $((1 - srv_ok)) "guest 0 -> guest 1: the PRISM server answers over the NIC"

	for c in $cases; do
		if [ "$srv_ok" != 1 ]; then
			skip "client_$c" "the server is not reachable"
		elif [[ $net_cases != *" $c "* ]]; then
			skip "client_$c" "sets up or checks the server's memory with process_vm_readv/writev (or its /proc, its netns): same kernel only"
		else
			timeout 180 "$T" client "$c" --if eth0 --info "$D/srv.info" > "$tmp/case.out" 2>&1
			rc=$?
			diag < "$tmp/case.out"
			result $rc "client_$c"
		fi
	done

	# CAS counter on guest 1, incremented by guests 0 and 2 with 10% loss
	# on their links.
	if [ "$srv_ok" = 1 ] && v0=$("$T" cas-read --if eth0 --info "$D/srv.info" --off $CAS_OFF | tail -n 1) &&
		[[ $v0 =~ ^[0-9]+$ ]]; then
		rm -f "$D/cas-go"
		tc qdisc add dev eth0 root netem loss 10% || cas_ok=0
		r0=$(retransmits)
		mark cas-phase go
		timeout 600 "$T" cas-incr --if eth0 --info "$D/srv.info" --off $CAS_OFF \
			--n "$N" --ready "$D/cas-ready-0" --go "$D/cas-go" > "$tmp/cas.out" 2>&1 &
		local cpid=$!
		if await cas-ready-0 120000 && await cas-ready-2 120000; then
			mark cas-go go
		else
			echo "# the CAS clients did not get ready"
			cas_ok=0
		fi
		wait "$cpid" || cas_ok=0
		r1=$(retransmits)
		tc qdisc del dev eth0 root
		echo "# guest 0: $(tr '\n' ' ' < "$tmp/cas.out")($((r1 - r0)) retransmits)"
		st2=1 re2=0 out2=
		if await cas-result-2 600000; then
			{ read -r st2 re2; read -r out2; } < "$D/cas-result-2"
		fi
		echo "# guest 2: status $st2, ${out2:-no output} ($re2 retransmits)"
		[ "$st2" = 0 ] || cas_ok=0
		result $((1 - cas_ok)) "CAS: $N increments each from guests 0 and 2 under 10% loss all succeeded"
		v1=$("$T" cas-read --if eth0 --info "$D/srv.info" --off $CAS_OFF | tail -n 1)
		echo "# counter on guest 1: $v0 before, $v1 after (expected $((v0 + 2 * N)))"
		[ "$cas_ok" = 1 ] && [ "$v1" = $((v0 + 2 * N)) ]
		result $? "CAS: the counter is exactly the number of successful increments (no lost or repeated CAS)"
		[ $((r1 - r0 + re2)) -gt 0 ]
		result $? "CAS: the clients retransmitted ($((r1 - r0)) + $re2): the loss was real"
	else
		mark cas-phase skip
		skip "CAS: increments under loss" "the server is not reachable"
		skip "CAS: exact counter" "the server is not reachable"
		skip "CAS: retransmits" "the server is not reachable"
	fi

	# KV: put on 0, get on 2, overwrite on 2, get on 0.
	if [ "$srv_ok" = 1 ]; then
		out=$(timeout 60 "$KVB/kv" --if eth0 --info "$D/kv.info" put "$KEY" "hello from guest 0" 2>&1)
		rc=$?
		[ -n "$out" ] && echo "# $out"
		result $rc "KV: put $KEY from guest 0"
		mark kv-put-0 "$([ $rc = 0 ] && echo ok || echo failed)"
		if [ "$rc" = 0 ] && await kv-get-2 120000; then
			{ read -r rc; read -r line; } < "$D/kv-get-2"
			echo "# guest 2: kv get $KEY -> status $rc: $line"
			[ "$rc" = 0 ] && [ "$line" = "hello from guest 0" ]
			result $? "KV: get on guest 2 returns guest 0's value"
			await kv-put-2 120000 && { read -r rc; read -r line; } < "$D/kv-put-2" || rc=timeout
			echo "# guest 2: kv put $KEY 'overwritten by guest 2' -> status $rc $line"
			result "$rc" "KV: overwrite from guest 2"
			out=$(timeout 60 "$KVB/kv" --if eth0 --info "$D/kv.info" get "$KEY" 2>&1)
			rc=$?
			echo "# guest 0: kv get $KEY -> status $rc: $out"
			[ "$rc" = 0 ] && [ "$out" = "overwritten by guest 2" ]
			result $? "KV: get on guest 0 returns guest 2's value"
		else
			result 1 "KV: get on guest 2 returns guest 0's value"
			skip "KV: overwrite from guest 2" "the get failed"
			skip "KV: get on guest 0 after the overwrite" "the get failed"
		fi
	else
		mark kv-put-0 skip
		for c in "put from guest 0" "get on guest 2" "overwrite from guest 2" "get on guest 0"; do
			skip "KV: $c" "the server is not reachable"
		done
	fi
	tap_finish
}

case $g in
0) guest_coord ;;
1) trap cleanup EXIT; guest_servers ;;
2) trap cleanup EXIT; guest_client2 ;;
*) echo "guest $g: nothing to do (the suite uses guests 0..2)"; await done-0 ;;
esac
