#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Transport reliability tests, run as root inside the test VM.  Prints TAP.
#
#  - exactly-once under loss, duplication and reordering (netem on every
#    link): concurrent CAS increments sum exactly, and every ALLOC chain
#    runs once (each stamp is found in exactly one buffer);
#  - the mechanisms really worked: retransmissions and repeats answered
#    from the reply cache were counted;
#  - overload: a rate-limited target NACKs, clients back off and every
#    chain still completes once; a repeat of a chain that ran is answered
#    from the reply cache even over the rate (frames sent raw), only new
#    work is NACKed;
#  - a killed server: clients get NO_ENDPOINT completions, pins drop to 0;
#  - hostile frames sent raw: crafted cases with exact outcomes, then
#    FUZZ_FRAMES random mutated frames, after which the target still serves.
#
# Env: PRISM_KO (module to load if not loaded), REPEAT (netem rounds, 1),
#      N (chains per client, 150), FUZZ_FRAMES (20000), FUZZ_SEED (random).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../../tools/lib/prism_lib.sh
. "$here/../../../tools/lib/prism_lib.sh"
REPEAT=${REPEAT:-1}
N=${N:-150}
FUZZ_FRAMES=${FUZZ_FRAMES:-20000}
FUZZ_SEED=${FUZZ_SEED:-$RANDOM}
TIMEOUT_MS=20000
tmp=$(mktemp -d)

# Value of key=value in a file.
kv() { sed -n "s/.*\\b$2=\\([0-9]*\\).*/\\1/p" "$1" | head -n 1; }
stat_of() { ip netns exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/prism; }

cleanup() {
	jobs -p | xargs -r kill -9 2>/dev/null
	wait 2>/dev/null
	for ns in srv c1 c2; do ip netns del "$ns" 2>/dev/null; done
	ip link del br-rel 2>/dev/null
	prism_unload
	rm -rf "$tmp"
}
trap cleanup EXIT

prism_load "${PRISM_KO:-}" || exit 1
modprobe -q veth 2>/dev/null
modprobe -q bridge 2>/dev/null
modprobe -q sch_netem 2>/dev/null

# Three hosts on a bridge.
ip link add name br-rel type bridge
ip link set br-rel up
for ns in srv c1 c2; do
	ip netns add "$ns"
	ip link add name "v-$ns" type veth peer name eth0 netns "$ns"
	ip link set "v-$ns" master br-rel up
	ip -n "$ns" link set eth0 up
	ip -n "$ns" link set lo up
done

# start_server EP NBUFS RATE NAME: rel_server in srv, its output in
# $tmp/NAME; sets $srv_pid and $addr (its address line).
start_server() {
	ip netns exec srv "$here/rel_server" eth0 "$1" "$2" "$3" >"$tmp/$4" 2>&1 &
	srv_pid=$!
	# Its address line: a wall-clock bound (200 polls of 0.05 s before),
	# and no longer once the server is gone.
	wait_file -i 0.05 "$tmp/$4" 20000 $srv_pid
	local st=$?
	addr=$(cat "$tmp/$4")
	return $st
}

stop_server() {
	kill -9 "$srv_pid"
	wait "$srv_pid" 2>/dev/null
}

client() {	# ns id args...
	local ns=$1 id=$2
	shift 2
	ip netns exec "$ns" "$here/rel_client" eth0 "$id" "$TIMEOUT_MS" "$@"
}

netem_all() {	# add|del
	local ns
	for ns in srv c1 c2; do
		if [ "$1" = add ]; then
			ip netns exec "$ns" tc qdisc add dev eth0 root netem \
				loss 10% duplicate 10% delay 1ms reorder 10% 50%
		else
			ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null
		fi
	done
}

tap_header
tap_plan $((REPEAT * 6 + 10))

for round in $(seq "$REPEAT"); do
	nb=$((2 * N + 64))
	start_server $((100 + round)) "$nb" 0 "srv$round" ||
		{ not_ok "round $round: server started"; continue; }
	netem_all add
	client c1 1 $addr cas "$N" >"$tmp/cas1" 2>&1 & p1=$!
	client c2 2 $addr cas "$N" >"$tmp/cas2" 2>&1 & p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	client c1 1 $addr alloc "$N" 16 >"$tmp/al1" 2>&1 & p1=$!
	client c2 2 $addr alloc "$N" 16 >"$tmp/al2" 2>&1 & p2=$!
	wait $p1; a1=$?
	wait $p2; a2=$?
	netem_all del
	client c1 1 $addr verify 2 "$N" >"$tmp/ver" 2>&1
	v=$?
	check "round $round: $N CAS increments from each of 2 clients under loss/dup/reorder all succeed" \
		"[ $r1 = 0 ] && [ $r2 = 0 ]"
	check "round $round: the counter is exactly $((2 * N)) (no CAS ran twice)" \
		"[ \"\$(kv $tmp/ver counter)\" = $((2 * N)) ]"
	check "round $round: every ALLOC chain completed exactly once, all OK" \
		"[ $a1 = 0 ] && [ $a2 = 0 ]"
	check "round $round: each (client, seq) stamp is in exactly one buffer" \
		"[ $v = 0 ] && [ \"\$(kv $tmp/ver stamped)\" = $((2 * N)) ]"
	check "round $round: clients retransmitted (loss was real)" \
		"[ \"\$(stat_of c1 retransmits)\" -gt 0 ] && [ \"\$(stat_of c2 retransmits)\" -gt 0 ]"
	check "round $round: the target answered repeats from its reply cache" \
		"[ \"\$(stat_of srv duplicates)\" -gt 0 ]"
	[ "$TAP_FAILED" = 0 ] || cat "$tmp"/cas* "$tmp"/al* "$tmp/ver" >&2
	stop_server
done

# Overload: a target serving 100 chains/s NACKs a burst; clients back off.
start_server 200 200 100 slow
client c1 1 $addr alloc 100 32 >"$tmp/ov1" 2>&1 & p1=$!
client c2 2 $addr alloc 100 32 >"$tmp/ov2" 2>&1 & p2=$!
wait $p1; o1=$?
wait $p2; o2=$?
client c1 1 $addr verify 2 100 >"$tmp/over" 2>&1
v=$?
check "overload: every chain sent to a rate-limited target completes OK" \
	"[ $o1 = 0 ] && [ $o2 = 0 ]"
check "overload: the target sent NACKs and the clients received them" \
	"[ \"\$(stat_of srv nacks_sent)\" -gt 0 ] && [ \"\$(stat_of c1 nacks_received)\" -gt 0 ]"
check "overload: NACKed chains ran exactly once" "[ $v = 0 ]"
stop_server

# Overload vs. repeats: at 1 chain/s a repeat of the chain that ran must
# come from the reply cache (a NACK means "not run"); new work is NACKed.
start_server 250 1 1 once
dups=$(stat_of srv duplicates)
served=$(stat_of srv chains_served)
nacks=$(stat_of srv nacks_sent)
ip netns exec c1 "$here/frame_fuzz" eth0 replay $addr >"$tmp/replay" 2>&1
c=$?
sed 's/^/# /' "$tmp/replay"
check "overload: a repeat of a chain that ran is answered from the reply cache, not NACKed; new work is NACKed" \
	"[ $c = 0 ]"
check "overload: the repeat counted as 1 duplicate, 2 chains ran (CAS once, READ), the new chain NACKed" \
	"[ \"\$(stat_of srv duplicates)\" = \$((dups + 1)) ] &&
	 [ \"\$(stat_of srv chains_served)\" = \$((served + 2)) ] &&
	 [ \"\$(stat_of srv nacks_sent)\" -gt $nacks ]"
stop_server

# A server killed while clients are busy: precise errors, pins released.
start_server 300 4096 0 victim
pinned=$(stat_of srv pinned_pages)
mkfifo "$tmp/hold"
REL_HOLD=$tmp/hold client c1 1 $addr alloc 4000 8 >"$tmp/kill1" 2>&1 & p1=$!
exec 9>"$tmp/hold"	# blocks until the client holds at 100 completions
stop_server
echo go >&9
exec 9>&-
wait $p1
failures=$(grep -c '^alloc [0-9]*:' "$tmp/kill1")
check "killed server: all 4000 chains complete once; those after the kill with NO_ENDPOINT" \
	"grep -q progress $tmp/kill1 && [ \"\$(kv $tmp/kill1 alloc_completed)\" = 4000 ] &&
	 [ $failures -ge 3892 ] && [ \"\$(kv $tmp/kill1 alloc_failed)\" = $failures ] &&
	 ! grep '^alloc [0-9]*:' $tmp/kill1 | grep -vq 'NO_ENDPOINT/NO_ENDPOINT'"
check "killed server: its pinned pages ($pinned) are released" \
	"[ \"$pinned\" -gt 0 ] && [ \"\$(stat_of srv pinned_pages)\" = 0 ]"

# Hostile frames.  The fuzzer prints its own TAP; fold it into ours.
start_server 400 64 0 fuzz
drops=$(stat_of srv rx_dropped)
ip netns exec c1 "$here/frame_fuzz" eth0 cases $addr >"$tmp/cases" 2>&1
c=$?
sed 's/^/# /' "$tmp/cases"
check "hostile frames: every crafted case has its exact outcome" "[ $c = 0 ]"
check "hostile frames: dropped frames are counted" \
	"[ \"\$(stat_of srv rx_dropped)\" -ge \$((drops + 8)) ]"
ip netns exec c1 "$here/frame_fuzz" eth0 random $addr "$FUZZ_FRAMES" "$FUZZ_SEED" \
	>"$tmp/random" 2>&1
check "hostile frames: $FUZZ_FRAMES random frames (seed $FUZZ_SEED), then the target still serves" \
	"[ $? = 0 ]"

tap_finish
