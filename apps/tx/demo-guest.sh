#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PRISM-TX in the main demo (tools/demo.sh runs this in the guest with the
# module loaded; $1 = repo root): two shard servers that only sleep, three
# clients moving money between 16 accounts for two seconds, then the
# balance and the serializability of what committed.
set -u
# shellcheck source=../../tools/lib/demo_app.sh
. "$1/tools/lib/demo_app.sh"
bin=$1/apps/tx/build
ACCOUNTS=16
INIT=1000
pids=()
demo_cleanup() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }

demo_init txd 5
infos=
for s in 0 1; do
	# Not through host_exec (a function): $! must be the server itself,
	# for the kill at exit and its CPU ticks (ip netns exec execs it).
	ip netns exec "$P$((s + 1))" "$bin/tx_server" eth0 $s 2 $ACCOUNTS $INIT \
		"$tmp/shard$s" >"$tmp/server$s.log" 2>&1 &
	pids+=($!)
	wait_file "$tmp/shard$s" 10000 || { echo "shard $s did not start"; exit 1; }
	infos=${infos:+$infos,}$tmp/shard$s
done
cpids=()
for i in 3 4 5; do
	host_exec $P $i "$bin/tx_client" -s "$infos" -p prism -w bank \
		-c $((i * 10)) -t 2 -d 2000 -I $INIT -H "$tmp/hist" \
		>"$tmp/client$i" 2>&1 &
	cpids+=($!)
done
for p in "${cpids[@]}"; do wait "$p" || rc=1; done
host_exec $P 3 "$bin/tx_client" -s "$infos" -p prism -c 99 -D "$tmp/final" \
	>"$tmp/dump" 2>&1 || rc=1
"$bin/tx_check" -i $INIT -t $((ACCOUNTS * INIT)) "$tmp/hist".* "$tmp/final" \
	>"$tmp/check" 2>&1 || rc=1
echo "PRISM-TX bank transfers, 2 shards, 3 clients x 2 threads, 2 s:"
sed 's/^/  /' "$tmp"/client3 "$tmp/dump" "$tmp/check"
for s in 0 1; do
	echo "  shard $s server CPU (utime+stime ticks): $(cpu_ticks "${pids[$s]}")"
done
exit $rc
