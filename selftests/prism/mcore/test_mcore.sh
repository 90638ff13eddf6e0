#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multi-core receive (kmod/steer.c), run as root in a guest with at least
# 2 CPUs; prints TAP, exits non-zero if anything failed:
#
#   PRISM_KO=/path/prism.ko selftests/prism/mcore/test_mcore.sh
#
# Hosts (tools/lib/hosts.sh): mcs1 runs rel_server (reliability suite), 4
# clients in mcs2..mcs5.  RPS on mcs1's eth0 sends every frame the target
# receives to CPU 0, as a single-queue NIC would (our EtherType defeats
# RSS/RPS hashing anyway); the CPU that served a chain is the CPU column
# of its prism_chain_rx event (tracefs).  Checks:
#   steer=1, all CPUs   16 client sessions (4 rounds of 4 concurrent CAS
#                       loops): both CPUs serve (all 16 on one CPU: chance
#                       2^-15); each session is served on one CPU only;
#                       the counter is exactly 16 * N (at-most-once kept)
#   steer_cpus=1        every chain is served on CPU 1 (frames arrive on 0)
#   steer=0             every chain is served on CPU 0 (the pinned baseline)
#   rmmod               while hz_flood (hostile suite) sends requests of
#                       random sessions that are steered over both CPUs:
#                       rmmod succeeds, no kernel splat, insmod again works
#
# Env: PRISM_KO, MCORE_CAS_N (CAS increments per client, default 50).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
KO=${PRISM_KO:-$repo/kmod/prism.ko}
REL=$repo/selftests/prism/reliability
HZF=$repo/selftests/prism/hostile/hz_flood
TR=/sys/kernel/tracing
PAR=/sys/module/prism/parameters
N=${MCORE_CAS_N:-50}
TIMEOUT_MS=30000
EP=21

# shellcheck source=../../../tools/lib/prism_lib.sh
. "$repo/tools/lib/prism_lib.sh"

tmp=$(mktemp -d /tmp/prism-mcore.XXXXXX)
mounted_here=0
pids=()
srv_pid=

cleanup() {
	local p
	[ -w "$TR/events/prism/prism_chain_rx/enable" ] &&
		echo 0 > "$TR/events/prism/prism_chain_rx/enable"
	[ -w "$TR/trace" ] && : > "$TR/trace"
	for p in "${pids[@]}" $srv_pid; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	hosts_down mcs 5
	prism_unload
	[ "$mounted_here" = 1 ] && umount "$TR" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

kv() { sed -n "s/.*\\b$2=\\([0-9]*\\).*/\\1/p" "$1" | head -n 1; }

# served: "CPU SRC SRC_EP" of every prism_chain_rx event since the last
# clear, into $tmp/served.
served() {
	sed -n 's/.*\[\([0-9]*\)\].* prism_chain_rx: src=\([^ ]*\) src_ep=\([0-9]*\).*/\1 \2 \3/p' \
		"$TR/trace" > "$tmp/served"
}
# cpus_used: the CPUs in $tmp/served, as "0 1".
cpus_used() { awk '{ print $1 + 0 }' "$tmp/served" | sort -nu | xargs; }
# sessions_on_one_cpu: every (src, src_ep) of $tmp/served on a single CPU.
sessions_on_one_cpu() {
	awk '{ k = $2 " " $3; if (k in c && c[k] != $1) bad++; c[k] = $1 }
	     END { exit !(NR > 0 && bad == 0) }' "$tmp/served"
}

# round R: clients in mcs2..mcs5 (ids R1..R4) each run N CAS increments at
# once; 0 iff all succeeded.
round() {
	local i st=0 cp=()
	for i in 2 3 4 5; do
		host_exec mcs $i "$REL/rel_client" eth0 "$1$i" $TIMEOUT_MS $addr \
			cas "$N" > "$tmp/cas$1.$i" 2>&1 &
		cp+=($!)
	done
	for i in "${cp[@]}"; do
		wait "$i" || st=1
	done
	return $st
}

counter() {
	host_exec mcs 2 "$REL/rel_client" eth0 99 $TIMEOUT_MS $addr verify 0 0 |
		sed -n 's/.*counter=\([0-9]*\).*/\1/p'
}

tap_header
if [ "$(nproc)" -lt 2 ]; then
	echo "1..0 # SKIP needs 2 CPUs (have $(nproc))"
	exit 0
fi
tap_plan 16

for b in "$REL/rel_server" "$REL/rel_client" "$HZF"; do
	[ -x "$b" ] || bail "$b missing: make -C selftests on the host"
done
dmesg_lines=$(dmesg | wc -l)
prism_load "$KO" || bail "insmod $KO"
check "module parameters: steer=N, steer_cpus=all by default" \
	"[ \"\$(cat $PAR/steer)\" = N ] && [ \"\$(cat $PAR/steer_cpus)\" = all ]"
echo 1 > "$PAR/steer"
echo 1 > "$PAR/steer_cpus"
check "steer_cpus refuses a CPU list it cannot parse, keeps its value" \
	"! echo 0-x > $PAR/steer_cpus 2>/dev/null && [ \"\$(cat $PAR/steer_cpus)\" = 1 ]"
echo all > "$PAR/steer_cpus"

if [ ! -d "$TR/events" ]; then
	mount -t tracefs nodev "$TR" && mounted_here=1
fi
hosts_up mcs 5 || bail "hosts"
# Every frame to the target is received on CPU 0.
host_exec mcs 1 sh -c 'echo 1 > /sys/class/net/eth0/queues/rx-0/rps_cpus' ||
	bail "rps_cpus"
# Not through a function: $! must be the server itself, to kill it.
ip netns exec mcs1 "$REL/rel_server" eth0 $EP 16 0 > "$tmp/srv" 2>&1 &
srv_pid=$!
wait_file "$tmp/srv" 30000 $srv_pid || bail "rel_server: $(cat "$tmp/srv")"
addr=$(cat "$tmp/srv")

echo 0 > "$TR/tracing_on"
echo 4096 > "$TR/buffer_size_kb"
: > "$TR/trace"
echo 1 > "$TR/events/prism/prism_chain_rx/enable"
echo 1 > "$TR/tracing_on"

# ---------------------------------------------------------- steered
st=0 one=0 used=
for r in 1 2 3 4; do
	: > "$TR/trace"
	round $r || st=1
	served
	sessions_on_one_cpu || one=1
	used="$used $(cpus_used)"
done
used=$(echo $used | tr ' ' '\n' | sort -nu | xargs)
check "steered: 16 client sessions x $N CAS increments all succeed" "[ $st = 0 ]" \
	"$(cat "$tmp"/cas*)"
check "steered: requests were served on CPU 0 and on CPU 1 (served on: $used)" \
	"[ \"$used\" = '0 1' ]"
check "steered: each client session was served on a single CPU" "[ $one = 0 ]"
c=$(counter)
check "steered: the counter is exactly $((16 * N)) ($c)" "[ \"$c\" = $((16 * N)) ]"

# ---------------------------------------------------------- steer_cpus=1
echo 1 > "$PAR/steer_cpus"
: > "$TR/trace"
round 5
st=$?
served
check "steer_cpus=1: 4 sessions x $N CAS increments succeed" "[ $st = 0 ]"
check "steer_cpus=1: every request was served on CPU 1 ($(wc -l < "$tmp/served") events, CPUs: $(cpus_used))" \
	"[ -s $tmp/served ] && [ \"\$(cpus_used)\" = 1 ]"

# ---------------------------------------------------------- steer=0
echo all > "$PAR/steer_cpus"
echo 0 > "$PAR/steer"
: > "$TR/trace"
round 6
st=$?
served
check "steer=0: 4 sessions x $N CAS increments succeed" "[ $st = 0 ]"
check "steer=0: every request was served on CPU 0, where RPS put it (CPUs: $(cpus_used))" \
	"[ -s $tmp/served ] && [ \"\$(cpus_used)\" = 0 ]"
c=$(counter)
check "the counter is exactly $((24 * N)) after all rounds ($c)" "[ \"$c\" = $((24 * N)) ]"
echo 1 > "$PAR/steer"

# ---------------------------------------------------------- rmmod
echo 0 > "$TR/events/prism/prism_chain_rx/enable"
kill -9 $srv_pid
wait $srv_pid 2>/dev/null
srv_pid=
# Requests of random sessions, steered over both CPUs, until killed.
ip netns exec mcs2 "$HZF" eth0 100000000 7 $addr > "$tmp/flood" 2>&1 &
fpid=$!
pids+=($fpid)
wait_line "$tmp/flood" '^started=1' 30000 $fpid
check "rmmod under load: the flood is running" "! proc_exited $fpid" "$(cat "$tmp/flood")"
# The last sockets drop their module reference after a grace period
# (slow under the flood on a TCG guest: once 10 s were not enough).
wait_until 30000 grep -qx 0 /sys/module/prism/refcnt
refcnt=$(cat /sys/module/prism/refcnt)
rmmod prism
st=$?
check "rmmod under load: rmmod prism succeeds while frames are steered" \
	"[ $st = 0 ] && [ ! -d /sys/module/prism ]" "refcnt before rmmod: $refcnt"
check "rmmod under load: the flood was still running" "! proc_exited $fpid"
kill -9 $fpid
wait $fpid 2>/dev/null
PRISM_LOADED_HERE=0
dmesg | tail -n +$((dmesg_lines + 1)) > "$tmp/dmesg"
check "no kernel splat in the log of this test" \
	"! grep -E 'WARNING:|BUG:|KASAN|Oops|general protection|list_del corruption|refcount_t:|possible circular|inconsistent lock|UBSAN' $tmp/dmesg >&2"
prism_load "$KO"
st=$?
check "insmod again after the unload, steer=N (the default)" \
	"[ $st = 0 ] && [ \"\$(cat $PAR/steer 2>/dev/null)\" = N ]"
tap_finish
