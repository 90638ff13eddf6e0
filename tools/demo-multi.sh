#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multi-guest part of the demo (tools/demo.sh runs it in three guests
# with tools/vm/multi.sh; every guest runs this script, PRISM_GUEST says
# which one it is).  Three machines, each with its own kernel, on one
# virtual Ethernet segment:
#
#   guest 0  narrator; PRISM-RS replica 1; KV, TX and RS clients
#   guest 1  PRISM-KV server, PRISM-TX shard 0, PRISM-RS replica 2
#            (servers only: they sleep, the kernel serves the chains)
#   guest 2  PRISM-TX shard 1, PRISM-RS replica 3; KV and TX clients
#
# The story, told by guest 0:
#   PRISM-KV  guest 0 puts a key, guest 2 reads and overwrites it, guest 0
#             reads guest 2's value;
#   PRISM-TX  clients on guests 0 and 2 transfer money between 16 accounts
#             spread over the two shards (guests 1 and 2); an audit (a dump
#             of both shards and the serializability check of every
#             committed transaction) shows the total unchanged;
#   PRISM-RS  a client on guest 0 writes and reads 4 blocks; after some
#             operations guest 1 (replica 2) crashes: it announces it in
#             $PRISM_MH_DIR/.poweroff-1 (so tools/vm/multi.sh counts its
#             end as expected) and resets itself at once (sysrq b, no
#             shutdown).  Once multi.sh has seen that guest end
#             ($PRISM_MH_DIR/.ended-1), the client goes on with 2 of the 3
#             replicas, and its whole history is checked: every read
#             returned the value last written.
#
# Guest 0 prints the story; guests 1 and 2 write their results to files in
# $PRISM_MH_DIR, where the guests also wait for each other.  Exits non-zero
# if a check fails.  RS_DEMO_OPS (default 60): RS operations; TX_DEMO_MS
# (default 3000): length of the TX run.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/tools/lib/hosts.sh"
# shellcheck source=lib/wait.sh
. "$repo/tools/lib/wait.sh"
D=${PRISM_MH_DIR:?run by tools/vm/multi.sh}
g=${PRISM_GUEST:?run by tools/vm/multi.sh}
KVB=$repo/apps/kv/build
RSB=$repo/apps/rs/build
TXB=$repo/apps/tx/build
OPS=${RS_DEMO_OPS:-60}
KILL_AFTER=$((OPS / 2))
TXMS=${TX_DEMO_MS:-3000}
ACCOUNTS=16 INIT=1000
WAIT=600000
tmp=$(mktemp -d /tmp/demo-multi.XXXXXX)
pids=()

mark() {
	local f=$D/$1
	shift
	printf '%s\n' "$@" > "$f.tmp.$g" && mv -f "$f.tmp.$g" "$f"
}
await() { wait_file "$D/$1" "${2:-$WAIT}"; }
# await_any MS FILE...: wait until one of the files (in $D) is non-empty.
await_any() {
	local end=$(($(date +%s%3N) + $1)) f
	shift
	while :; do
		for f in "$@"; do [ -s "$D/$f" ] && return 0; done
		[ "$(date +%s%3N)" -ge "$end" ] && return 1
		sleep 0.05
	done
}
cleanup() {
	local p
	for p in ${pids[@]+"${pids[@]}"}; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -d /sys/module/prism ] && rmmod prism 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
kvc() { timeout 60 "$KVB/kv" --if eth0 --info "$D/kv.info" "$@" 2>&1; }
kv_of() { sed -n "s/.*\\b$2=\\([0-9]*\\).*/\\1/p" "$1"; }
rs_infos="$D/rs0.info,$D/rs1.info,$D/rs2.info"
tx_infos="$D/tx0.info,$D/tx1.info"

# tx_shard S: PRISM-TX shard S of 2 ($ACCOUNTS accounts of $INIT in all).
tx_shard() {
	"$TXB/tx_server" eth0 "$1" 2 $ACCOUNTS $INIT "$D/tx$1.info" > "$tmp/tx.log" 2>&1 &
	tx_pid=$!
	pids+=("$tx_pid")
	wait_file "$D/tx$1.info" 60000 "$tx_pid" || { mark "ready-$g" "failed: tx_server: $(cat "$tmp/tx.log")"; exit 1; }
}
# tx_run CID: bank transfers (2 threads, $TXMS ms) after $D/tx.go.
tx_run() {
	await tx.go 60000 || return 1
	timeout 300 "$TXB/tx_client" -i eth0 -s "$tx_infos" -p prism -w bank -c "$1" \
		-t 2 -d "$TXMS" -I $INIT -H "$D/txhist" > "$tmp/tx.out" 2>&1
}
tx_summary() { sed -n 's/.*\(commits=[0-9]*\) \(aborts=[0-9]*\).*\(audits=[0-9]*\) \(audit_bad=[0-9]*\).* \(errors=[-0-9]*\)/\1 \2 \3 \4 \5/p' "$tmp/tx.out"; }

echo "PRISM-TESTS-BEGIN demo guest $g" > /dev/kmsg
insmod "${PRISM_KO:?}" || { mark "ready-$g" "failed: insmod"; exit 1; }
me=$(cat /sys/class/net/eth0/address)

# Every guest holds one PRISM-RS replica (endpoint chosen by the module).
"$RSB/rs_replica" eth0 0 "$D/rs$g.info" --blocks 16 --bufs 4096 2> "$tmp/rs.log" &
rs_pid=$!
pids+=("$rs_pid")
wait_file "$D/rs$g.info" 60000 "$rs_pid" || { mark "ready-$g" "failed: rs_replica: $(cat "$tmp/rs.log")"; exit 1; }

case $g in
1)
	"$KVB/kv-server" --if eth0 --ep 100 --info "$D/kv.info" --slots 1024 --bufs 512 \
		> "$tmp/kv.log" 2>&1 &
	kv_pid=$!
	pids+=("$kv_pid")
	wait_file "$D/kv.info" 60000 "$kv_pid" || { mark ready-1 "failed: kv-server: $(cat "$tmp/kv.log")"; exit 1; }
	tx_shard 0
	k0=$(cpu_ticks "$kv_pid") t0=$(cpu_ticks "$tx_pid") r0=$(cpu_ticks "$rs_pid")
	mark ready-1 ok "$me"
	# Guest 0 asks for the crash (rs.kill), or is done without it.
	await_any $WAIT rs.kill done-0
	mark cpu-1 "$(($(cpu_ticks "$kv_pid") - k0)) $(($(cpu_ticks "$tx_pid") - t0)) $(($(cpu_ticks "$rs_pid") - r0))"
	if [ -s "$D/rs.kill" ] && ! [ -s "$D/done-0" ]; then
		# Crash: no shutdown, no clean-up; the replica vanishes mid-run.
		mark .poweroff-1 "guest 1 resets itself for the PRISM-RS demo"
		sync
		echo b > /proc/sysrq-trigger
		sleep 60	# not reached: the guest is gone
		exit 1
	fi
	;;
2)
	tx_shard 1
	mark ready-2 ok "$me"
	await kv-put-0 && {
		out=$(kvc get greeting); mark kv-get-2 "$?" "$out"
		out=$(kvc put greeting "overwritten by guest 2 ($me)"); mark kv-put-2 "$?" "$out"
	}
	tx_run 20; mark tx-2 "$?" "$(tx_summary)"
	await done-0
	;;
0)
	trap 'mark done-0 finished; cleanup' EXIT
	rc=0
	line() { local l=; read -r l < "$D/$1"; echo "$l"; }
	second() { sed -n 2p "$D/$1"; }
	ok() { echo "  ok: $*"; }
	bad() { echo "  FAILED: $*"; rc=1; }
	await ready-1 300000 && await ready-2 300000 &&
		[ "$(line ready-1)" = ok ] && [ "$(line ready-2)" = ok ] ||
		{ echo "  the other guests did not come up: $(line ready-1) / $(line ready-2)"; exit 1; }
	echo "three machines on one Ethernet segment, each with its own kernel and prism.ko:"
	echo "  guest 0  $me  PRISM-RS replica 1; KV, TX and RS clients"
	echo "  guest 1  $(second ready-1)  PRISM-KV server, PRISM-TX shard 0, PRISM-RS replica 2 (they only sleep)"
	echo "  guest 2  $(second ready-2)  PRISM-TX shard 1, PRISM-RS replica 3; KV and TX clients"

	echo
	echo "PRISM-KV (hash table on guest 1, read and written with one-sided chains):"
	out=$(kvc put greeting "hello from guest 0 ($me)"); r=$?
	echo "  guest 0$ kv put greeting 'hello from guest 0'      -> exit $r ${out}"
	[ $r = 0 ] || rc=1
	mark kv-put-0 "$r"
	if await kv-put-2 120000; then
		echo "  guest 2$ kv get greeting                          -> exit $(line kv-get-2): $(second kv-get-2)"
		echo "  guest 2$ kv put greeting 'overwritten by guest 2' -> exit $(line kv-put-2) $(second kv-put-2)"
		[ "$(line kv-get-2)" = 0 ] && [ "$(line kv-put-2)" = 0 ] || rc=1
		case $(second kv-get-2) in "hello from guest 0"*) ;; *) rc=1 ;; esac
	else
		echo "  guest 2 did not answer"
		rc=1
	fi
	out=$(kvc get greeting); r=$?
	echo "  guest 0$ kv get greeting                          -> exit $r: $out"
	case $out in
	"overwritten by guest 2"*) ok "guest 2 read guest 0's value, guest 0 read guest 2's: one store, two clients" ;;
	*) bad "guest 0 did not read guest 2's value" ;;
	esac

	echo
	echo "PRISM-TX (bank: $ACCOUNTS accounts of $INIT; even ones on shard 0 (guest 1), odd ones on shard 1 (guest 2)):"
	echo "  clients on guest 0 and guest 2 (2 threads each) move money between random accounts"
	echo "  for $((TXMS / 1000)) s, across both shards; every transfer is one OCC transaction"
	mark tx.go go
	tx_run 10; r=$?
	echo "  guest 0: exit $r, $(tx_summary)"
	[ $r = 0 ] && [ "$(kv_of "$tmp/tx.out" audit_bad)" = 0 ] || rc=1
	c0=$(kv_of "$tmp/tx.out" commits) a0=$(kv_of "$tmp/tx.out" aborts)
	if await tx-2 300000; then
		echo "  guest 2: exit $(line tx-2), $(second tx-2)"
		[ "$(line tx-2)" = 0 ] || rc=1
		c2=$(second tx-2 | sed -n 's/.*commits=\([0-9]*\).*/\1/p')
		a2=$(second tx-2 | sed -n 's/.*aborts=\([0-9]*\).*/\1/p')
	else
		echo "  guest 2 did not finish"
		rc=1 c2=0 a2=0
	fi
	if timeout 120 "$TXB/tx_client" -i eth0 -s "$tx_infos" -p prism -c 99 -D "$tmp/txfinal" \
		> "$tmp/txdump" 2>&1 &&
		"$TXB/tx_check" -i $INIT -t $((ACCOUNTS * INIT)) "$D"/txhist.* "$tmp/txfinal" \
			> "$tmp/txcheck" 2>&1; then
		sum=$(kv_of "$tmp/txdump" sum)
		ok "audit: the $ACCOUNTS balances add up to $sum, as before ($ACCOUNTS x $INIT);" \
			"$((${c0:-0} + ${c2:-0})) transfers committed, $((${a0:-0} + ${a2:-0})) aborted and retried"
		ok "the $(kv_of "$tmp/txcheck" txns) committed transactions of both guests are serializable (tx_check)"
	else
		sed 's/^/    /' "$tmp/txdump" "$tmp/txcheck" 2>/dev/null
		bad "TX audit: balances or history wrong"
	fi

	echo
	echo "PRISM-RS (ABD block store, a replica on every guest, f = 1):"
	echo "  a client on guest 0: $OPS operations (50% PUT) on blocks 0..3; guest 1 crashes after $KILL_AFTER"
	"$RSB/rs_client" --if eth0 --info "$rs_infos" --id 1 --seed "$RANDOM" \
		--mode abd --keys 4 --writes 50 --ops "$OPS" --hist "$tmp/rs.hist" \
		--progress "$tmp/rs.prog" --progress-after "$KILL_AFTER" --resume "$tmp/rs.resume" \
		> "$tmp/rs.out" 2>&1 &
	rsc=$!
	pids+=("$rsc")
	if wait_file "$tmp/rs.prog" 300000 "$rsc"; then
		ok "$KILL_AFTER operations with 3 of 3 replicas; now guest 1 (replica 2) crashes"
		mark rs.kill now
		if await .ended-1 50000; then
			ok "replica on guest 1 is gone (the guest reset itself; $(line .ended-1));" \
				"writes and reads continue with 2 of 3"
		else
			bad "guest 1 did not go away"
		fi
	else
		bad "RS client made no progress"
	fi
	touch "$tmp/rs.resume"
	wait "$rsc"; r=$?
	echo "  guest 0: exit $r, $(sed -n 's/^\(client=.*\) cas_lost.*\(chain_errors=[0-9]*\).*/\1 \2/p' "$tmp/rs.out")"
	if [ $r = 0 ] && [ "$(kv_of "$tmp/rs.out" failed)" = 0 ]; then
		ok "all $OPS operations succeeded, $((OPS - KILL_AFTER)) of them with guest 1 dead (a majority is enough;" \
			"$(kv_of "$tmp/rs.out" chain_errors) chains to the dead replica timed out and were ignored)"
	else
		sed 's/^/    /' "$tmp/rs.out"
		bad "an RS operation failed"
	fi
	n_after=$(awk -v k="$KILL_AFTER" 'NR > k' "$tmp/rs.hist" | wc -l)
	w_after=$(awk -v k="$KILL_AFTER" 'NR > k && $1 == "W"' "$tmp/rs.hist" | wc -l)
	if "$RSB/rs_check" hist "$tmp/rs.hist" > "$tmp/rs.check" 2>&1; then
		ok "every GET returned the value last PUT to its block, before and after the crash" \
			"($n_after operations after it: $w_after PUTs, $((n_after - w_after)) GETs; rs_check: $(grep -o "verdict=[a-zA-Z-]*" "$tmp/rs.check"))"
	else
		sed 's/^/    /' "$tmp/rs.check"
		bad "a GET returned a value that was not the last written (rs_check)"
	fi

	mark done-0 finished
	if [ -s "$D/cpu-1" ]; then
		read -r kcpu tcpu rcpu < "$D/cpu-1"
		echo
		echo "guest 1 meanwhile (before its crash): CPU ticks of kv-server $kcpu, tx_server $tcpu," \
			"rs_replica $rcpu:"
		echo "  they only slept (start-up and buffer recycling aside); the kernel served the chains"
	fi
	echo
	[ $rc = 0 ] && echo "multi-guest demo: every operation gave the expected result" ||
		echo "multi-guest demo: FAILED (see above)"
	exit $rc
	;;
*)
	await done-0
	;;
esac
