#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PRISM-TX and FaRM-style OCC end to end, run as root inside the guest.
# Prints one TAP stream; exits non-zero on failure.
#
# Hosts (netns on a bridge): tx1, tx2 = shard servers; tx3..tx5 = client
# processes (2 threads each).  For each protocol:
#   bank       transfers + audits; total balance, audits and history checked
#   bank+loss  the same with netem 10% loss on every link
#   skew       read 2 keys, write 1 (write-skew prone); history checked
#   broken     skew with read validation skipped: the history check must fail
#   bankN      bank with N-byte values (TX_TEST_SIZES), history checked
#   crash-STEP (PRISM-TX) a client kills itself at STEP of a transaction
#              writing both shards (prepared, deciding, decided); others
#              then recover its pending writes: they commit, the total
#              balance holds, the history with its dying transaction is
#              serializable and the transaction took effect whole or not
# and a smoke of tools/bench/tx.sh (one point per protocol and value size).
#
# Env: PRISM_KO (module to load if not loaded), DURATION_MS (1500),
#      PRISM_OUT (keep logs there; default a temp dir), TX_TEST_SIZES
#      (value sizes of the large-value scenarios, default "512 4096"; the
#      last one is also the bench smoke's), TX_TEST_CHAIN_BYTES (tx_client
#      -b; 1100 keeps every chain in one 1500-byte frame, for a module
#      without large operations), PRISM_LINK=udp (servers and clients bound
#      to UDP on the hosts' IPv4 addresses: hosts.sh host_link; the bench
#      smoke stays on eth0).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../build
# shellcheck source=../../../tools/lib/prism_lib.sh
. "$here/../../../tools/lib/prism_lib.sh"
DURATION_MS=${DURATION_MS:-1500}
P=tx
NHOSTS=5
ACCOUNTS=16
INIT=1000
SIZES=${TX_TEST_SIZES:-512 4096}
VMAX=${SIZES##* }
CB=${TX_TEST_CHAIN_BYTES:+-b $TX_TEST_CHAIN_BYTES}
tmp=$(mktemp -d /tmp/txtest.XXXXXX)
out=${PRISM_OUT:+$PRISM_OUT/tx-test}
out=${out:-$tmp/logs}
mkdir -p "$out"
srv_pids=()

# Value of key=value in a file (first match).
kv() { sed -n "s/.*\\b$2=\\([0-9.]*\\).*/\\1/p" "$1" | head -n 1; }
sum_kv() { cat "$@" 2>/dev/null | sed -n "s/.*\\bcommits=\\([0-9]*\\).*/\\1/p" | awk '{s += $1} END {print s + 0}'; }

stop_servers() {
	local p
	for p in "${srv_pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	srv_pids=()
}

cleanup() {
	stop_servers
	hosts_down $P $NHOSTS
	prism_unload
	rm -rf "$tmp"
}
trap cleanup EXIT

prism_load "${PRISM_KO:-}" || exit 1
modprobe -q sch_netem 2>/dev/null
hosts_down $P $NHOSTS
hosts_up $P $NHOSTS || bail "cannot create hosts"

# start_servers NAME KEYS: two shards (values of $vsize bytes when set,
# keyed regions when $keyed is 1); sets $infos.
start_servers() {
	local name=$1 keys=$2 s
	infos=
	for s in 0 1; do
		local info=$tmp/$name.shard$s
		# Not through host_exec (a function): $! must be the server.
		ip netns exec "$P$((s + 1))" "$bin/tx_server" ${vsize:+--value-size $vsize} \
			${keyed:+--keyed} \
			"$(host_link $P $((s + 1)))" $s 2 "$keys" $INIT "$info" \
			>"$out/$name.server$s.log" 2>&1 &
		srv_pids+=($!)
		wait_file "$info" 10000 || return 1
		infos=${infos:+$infos,}$info
	done
}

netem() {	# add|del
	local i
	for i in $(seq $NHOSTS); do
		if [ "$1" = add ]; then
			host_exec $P "$i" tc qdisc add dev eth0 root netem loss 10%
		else
			host_exec $P "$i" tc qdisc del dev eth0 root 2>/dev/null
		fi
	done
}

retransmits() {
	local i s=0 v
	for i in 3 4 5; do
		v=$(host_exec $P "$i" awk '$1 == "retransmits" { print $2 }' /proc/net/prism)
		s=$((s + ${v:-0}))
	done
	echo $s
}

# scenario NAME PROTO WORKLOAD KEYS EXTRA_ARGS...: 3 client processes,
# started together (-y/-g), each writing its result file $tmp/NAME.resI
# with a timeline of 250 ms (-o, -T), then a dump of the final state and
# the history check.  Leaves $name.check.
scenario() {
	local name=$1 proto=$2 wl=$3 keys=$4 i pids=() rc=0
	shift 4
	start_servers "$name" "$keys" || { echo "# $name: servers did not start"; return 1; }
	rm -f "$tmp/$name".res* "$tmp/$name".ready* "$tmp/$name.go"
	for i in 3 4 5; do
		host_exec $P $i "$bin/tx_client" -i "$(host_link $P $i)" -s "$infos" -p "$proto" -w "$wl" \
			-c $((i * 10)) -t 2 -d "$DURATION_MS" -I $INIT $CB \
			-o "$tmp/$name.res$i" -T 250 -y "$tmp/$name.ready$i" -g "$tmp/$name.go" \
			-H "$tmp/$name.hist" "$@" >"$out/$name.client$i" 2>&1 &
		pids+=($!)
	done
	for i in 3 4 5; do
		wait_file "$tmp/$name.ready$i" 30000 || rc=1
	done
	touch "$tmp/$name.go"
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	host_exec $P 3 "$bin/tx_client" -i "$(host_link $P 3)" -s "$infos" -p "$proto" -c 99 $CB \
		-D "$tmp/$name.final" >"$out/$name.dump" 2>&1 || rc=1
	"$bin/tx_check" -i $INIT ${total:+-t $total} "$tmp/$name.hist".* \
		"$tmp/$name.final" >"$out/$name.check" 2>&1
	echo $? >"$out/$name.check_rc"
	stop_servers
	return $rc
}

# bank_checks NAME LABEL: the total balance and the history of bank
# scenario NAME (two test points).
bank_checks() {
	check "$2: total balance is $total, every audit saw it" \
		"grep -q 'sum=$total pending=0' $out/$1.dump && ! grep -q 'audit_bad=[1-9]' $out/$1.client*"
	check "$2: history is serializable ($(head -n1 "$out/$1.check"))" \
		"[ \"\$(cat $out/$1.check_rc)\" = 0 ] && grep -q 'serializable=yes' $out/$1.check"
}

# crash_scenario STEP: the bank on fresh shards; client 200 (host 3) kills
# itself at STEP (tx_client -X) after 5 commits, then two processes (hosts
# 4 and 5, lease 100 ms) run the bank and must end its pending writes; a
# dump (which recovers what they left) and the history check follow.
crash_scenario() {
	local step=$1 name=crash-$1 i pids=() rc=0 crc
	start_servers "$name" $ACCOUNTS || { echo "# $name: servers did not start"; return 1; }
	host_exec $P 3 "$bin/tx_client" -i "$(host_link $P 3)" -s "$infos" -p prism -w bank \
		-c 200 -t 1 -n 1000 -I $INIT $CB -H "$tmp/$name.hist" -X "$step" \
		>"$out/$name.crasher" 2>&1
	crc=$?
	echo "$crc" >"$out/$name.crasher_rc"
	for i in 4 5; do
		host_exec $P $i "$bin/tx_client" -i "$(host_link $P $i)" -s "$infos" -p prism -w bank \
			-c $((200 + i * 10)) -t 2 -d 1000 -I $INIT $CB -L 100 \
			-H "$tmp/$name.hist" >"$out/$name.client$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	host_exec $P 3 "$bin/tx_client" -i "$(host_link $P 3)" -s "$infos" -p prism -c 99 $CB \
		-L 100 -D "$tmp/$name.final" >"$out/$name.dump" 2>&1 || rc=1
	"$bin/tx_check" -i $INIT -t $total "$tmp/$name.hist".* "$tmp/$name.final" \
		>"$out/$name.check" 2>&1
	echo $? >"$out/$name.check_rc"
	stop_servers
	return $rc
}

# Sum of key=N over the crash scenario's survivors and dump.
crash_sum() { cat "$out/crash-$1".client* "$out/crash-$1.dump" 2>/dev/null |
	sed -n "s/.*\b$2=\([0-9]*\).*/\1/p" | awk '{s += $1} END {print s + 0}'; }

nsizes=$(echo $SIZES | wc -w)
tap_header
tap_plan $((23 + 6 * nsizes + 2 + 8 + 12))
for proto in prism farm; do
	total=$((ACCOUNTS * INIT))
	scenario $proto-bank $proto bank $ACCOUNTS
	r=$?
	c=$(sum_kv "$out"/$proto-bank.client*)
	check "$proto bank: 3 processes x 2 threads on 2 shards ran and committed ($c txns)" \
		"[ $r = 0 ] && [ $c -gt 0 ]"
	bank_checks $proto-bank "$proto bank"
	# The three result files merged: as many commits as the clients
	# printed, their audits summed, a timeline of every 250 ms.
	res=$("$here/../../../tools/lib/c/build/result-merge" "$tmp/$proto-bank".res* 2>&1)
	a=$(sed -n 's/.*\baudits=\([0-9]*\).*/\1/p' "$out"/$proto-bank.client* | awk '{s += $1} END {print s + 0}')
	check "$proto bank: result-merge of the 3 clients' -o files: $c commits, $a audits, timeline of 250 ms" \
		"grep -q '\"clients\": 3, \"ops\": $c, \"errors\": 0' <<< '$res' && grep -q '\"audits\": $a,' <<< '$res' && grep -qE '\"interval_ms\": 250, \"timeline\": \"[1-9][0-9]* [1-9]' <<< '$res'" \
		'$res'

	netem add
	before=$(retransmits)
	scenario $proto-loss $proto bank $ACCOUNTS
	r=$?
	after=$(retransmits)
	netem del
	c=$(sum_kv "$out"/$proto-loss.client*)
	check "$proto bank under 10% loss: clients committed ($c txns), retransmissions happened ($((after - before)))" \
		"[ $r = 0 ] && [ $c -gt 0 ] && [ $after -gt $before ]"
	bank_checks $proto-loss "$proto bank under 10% loss"

	total=
	scenario $proto-skew $proto skew 4
	r=$?
	c=$(sum_kv "$out"/$proto-skew.client*)
	check "$proto skew (4 keys): committed ($c txns), history serializable ($(head -n1 "$out/$proto-skew.check"))" \
		"[ $r = 0 ] && [ $c -gt 0 ] && [ \"\$(cat $out/$proto-skew.check_rc)\" = 0 ]"

	scenario $proto-broken $proto skew 4 -B
	c=$(sum_kv "$out"/$proto-broken.client*)
	check "$proto broken client (read validation skipped): the checker finds a cycle ($(head -n1 "$out/$proto-broken.check"))" \
		"[ \"\$(cat $out/$proto-broken.check_rc)\" = 1 ] && ! grep -q 'cycle_txns=0 ' $out/$proto-broken.check"
done

# Large values: the bank with N-byte values, the filler of every value read
# checked by the clients (a torn one is read again), the history by tx_check.
total=$((ACCOUNTS * INIT))
for sz in $SIZES; do
	for proto in prism farm; do
		DURATION_MS=1000 vsize=$sz scenario $proto-bank$sz $proto bank $ACCOUNTS
		r=$?
		c=$(sum_kv "$out"/$proto-bank$sz.client*)
		check "$proto bank with $sz-byte values: committed ($c txns), values of $sz bytes" \
			"[ $r = 0 ] && [ $c -gt 0 ] && grep -q 'vsize=$sz ' $out/$proto-bank$sz.client3"
		bank_checks $proto-bank$sz "$proto bank with $sz-byte values"
	done
done

# Keyed regions (issue 17): both shards' regions take only chains sealed
# with keys derived for their senders, which clients ask each shard for on
# the key socket its info line names; chains are kept to one frame
# (TX_KEYED_CHAIN_BYTES).  The bank at 8 and 512 bytes (the paper's size).
auth0=0
for i in $(seq $NHOSTS); do
	auth0=$((auth0 + $(host_stat $P "$i" auth_failed)))
done
for sz in 8 512; do
	DURATION_MS=1000 keyed=1 vsize=$sz scenario prism-keyed$sz prism bank $ACCOUNTS
	r=$?
	c=$(sum_kv "$out"/prism-keyed$sz.client*)
	check "prism bank on keyed shards, $sz-byte values: committed ($c txns)" \
		"[ $r = 0 ] && [ $c -gt 0 ] && grep -q 'vsize=$sz ' $out/prism-keyed$sz.client3"
	bank_checks prism-keyed$sz "prism bank on keyed shards, $sz-byte values"
done
check "keyed: the shards' info lines named their key sockets" \
	"grep -q ' keys=$tmp/prism-keyed512.shard0.keys' $tmp/prism-keyed512.shard0 &&
	 grep -q ' keys=$tmp/prism-keyed512.shard1.keys' $tmp/prism-keyed512.shard1"
auth=0
for i in $(seq $NHOSTS); do
	auth=$((auth + $(host_stat $P "$i" auth_failed)))
done
check "keyed: no sealed chain was refused (auth_failed +$((auth - auth0)))" "[ $auth = $auth0 ]"

# Recovery from a client that dies between prepare and commit (tx.h,
# RECOVERY).  prepared: its writes are pending, undecided: recoverers
# decide ABORT.  decided: COMMIT is recorded and the home shard installed:
# recoverers install the rest.  deciding: the decision chain was submitted
# as the client died: either outcome, whole.
total=$((ACCOUNTS * INIT))
for step in prepared deciding decided; do
	crash_scenario "$step"
	r=$?
	check "crash at $step: the client died in a transaction writing both shards" \
		"[ \"\$(cat $out/crash-$step.crasher_rc)\" = 137 ] &&
		 grep -q 'dies in the commit' $out/crash-$step.crasher"
	c=$(sum_kv "$out"/crash-$step.client*)
	rc_=$(crash_sum $step recovered_commits)
	ra=$(crash_sum $step recovered_aborts)
	check "crash at $step: the others committed ($c txns) and ended its writes (recovered: $rc_ commits, $ra aborts)" \
		"[ $r = 0 ] && [ $c -gt 0 ] && [ $((rc_ + ra)) -gt 0 ] &&
		 ! grep -q 'gave_up=[1-9]\|errors=[1-9]' $out/crash-$step.client*"
	check "crash at $step: total balance is $total, no write left pending, every audit saw it" \
		"grep -q 'sum=$total pending=0' $out/crash-$step.dump && ! grep -q 'audit_bad=[1-9]' $out/crash-$step.client*"
	case $step in
	prepared) want="died_committed=0 died_aborted=1 died_torn=0" ;;
	decided) want="died_committed=1 died_aborted=0 died_torn=0" ;;
	*) want="died_torn=0" ;;
	esac
	check "crash at $step: history serializable, the dead client's transaction whole ($(head -n1 "$out/crash-$step.check" | grep -o 'died_[a-z]*=[0-9]*' | tr '\n' ' '))" \
		"[ \"\$(cat $out/crash-$step.check_rc)\" = 0 ] && grep -q '$want.*serializable=yes' $out/crash-$step.check &&
		 grep -q 'died_committed=1\|died_aborted=1' $out/crash-$step.check"
done

# tools/bench/tx.sh: one 500 ms point per protocol at 8 bytes and $VMAX.
PRISM_OUT=$tmp/bench PRISM_TX_VALUES="8 $VMAX" PRISM_TX_THETAS=0.5 PRISM_TX_MS=500 \
	PRISM_TX_THREADS=1 PRISM_TX_KEYS=100 PRISM_TX_CHAIN_BYTES=${TX_TEST_CHAIN_BYTES:-} \
	"$here/../../../tools/bench/tx.sh" >"$out/bench.log" 2>&1
r=$?
sed 's/^/# /' "$out/bench.log"
check "bench smoke: tx.sh ran" "[ $r = 0 ]"
python3 - "$tmp/bench/bench-tx.json" "$VMAX" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["points"]
want = sorted((x, v) for x in ("farm", "prism") for v in (8, int(sys.argv[2])))
sys.exit(sorted((x["proto"], x["value"]) for x in p) != want or
         any(x["commits"] <= 0 for x in p))
EOF
r=$?
check "bench smoke: prism and farm at 8 and $VMAX bytes each committed" "[ $r = 0 ]"

# Recycling really returns PRISM-TX buffers (one commit allocates one per key).
check "prism: replaced version buffers were recycled to the shards" \
	"[ \"\$(kv $out/prism-bank.client3 recycled)\" -gt 0 ]"
# Multiple shards: both servers served chains.
check "prism: both shard servers executed chains" \
	"[ \"\$(host_exec $P 1 awk '\$1 == \"chains_served\" { print \$2 }' /proc/net/prism)\" -gt 0 ] &&
	 [ \"\$(host_exec $P 2 awk '\$1 == \"chains_served\" { print \$2 }' /proc/net/prism)\" -gt 0 ]"
check "no client hit a fatal error" "! grep -q 'errors=[1-9]' $out/*.client*"
check "no client gave up on a transaction" "! grep -q 'gave_up=[1-9]' $out/*.client*"
check "the checker rejects a hand-made non-serializable history" \
	"printf 'T 1 1 1 r 0 0 $INIT w 0 1 5\nT 2 1 1 r 0 0 $INIT w 0 2 6\n' >$tmp/lost && ! $bin/tx_check -i $INIT $tmp/lost >/dev/null"
for f in "$out"/*.client* "$out"/*.crasher "$out"/*.check; do
	echo "# $(basename "$f"): $(head -n 2 "$f" | tr '\n' ' ')"
done
tap_finish
