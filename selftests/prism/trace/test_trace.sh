#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tracepoints of the prism module (events/prism/ in tracefs).  Run as root
# in the guest; prints TAP, exits non-zero if anything failed:
#
#   PRISM_KO=/path/prism.ko selftests/prism/trace/test_trace.sh
#
# Uses the loaded module or loads PRISM_KO (and unloads it at the end).
# Two hosts (netns trc1, trc2 on bridge br-trc, tools/lib/hosts.sh); the
# traffic comes from the reliability suite's rel_server/rel_client and
# prism_test (built on the host first: make -C selftests).  Enables the
# five prism events, then checks the VALUES they recorded for:
#   CAS increments to a target      rx, exec and complete agree with the
#                                   client's chains_sent, statuses OK
#   chains to a MAC nobody has      retransmit (try >= 2), complete TIMEOUT
#   a target at PRISM_SERVE_RATE 2  nack sent (reason rate) and received
# and that nothing is recorded once the events are disabled.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
KO=${PRISM_KO:-$repo/kmod/prism.ko}
REL=$repo/selftests/prism/reliability
T=$repo/selftests/prism/prism_test
TR=/sys/kernel/tracing
EVENTS="prism_chain_rx prism_chain_exec prism_chain_complete prism_chain_retransmit prism_chain_nack"
N=${TRACE_CAS_N:-20}		# CAS increments
EP_SRV=11 EP_SLOW=12 EP_DEAD=77

# shellcheck source=../../../tools/lib/prism_lib.sh
. "$repo/tools/lib/prism_lib.sh"

tmp=$(mktemp -d /tmp/prism-trace.XXXXXX)
mounted_here=0
record_cmd=
pids=()

# check DESC CMD...: one test, passing iff CMD (its words joined, evaluated)
# succeeds.
check() {
	local desc=$1
	shift
	tap_check "$desc" "$*"
}
log() { echo "# $*"; }

cleanup() {
	local p
	[ -w "$TR/events/prism/enable" ] && echo 0 > "$TR/events/prism/enable"
	[ -w "$TR/trace" ] && : > "$TR/trace"
	[ -n "$record_cmd" ] && echo "$record_cmd" > "$TR/options/record-cmd"
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	hosts_down trc 2
	prism_unload
	[ "$mounted_here" = 1 ] && umount "$TR" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# stat_of NS NAME: a counter of /proc/net/prism in netns NS.
stat_of() { ip netns exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/prism; }

# ev NAME: the "key=value ..." part of every NAME event in the saved trace.
ev() { grep " $1: " "$tmp/trace" | sed "s/.* $1: //"; }
# col KEY: the values of KEY in the lines of stdin.
col() { awk -v k="$1" '{ for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'; }
# with KEY=VALUE: lines of stdin that have that field.
with() { grep -E "(^| )$1( |$)"; }
count() { wc -l | tr -d ' '; }
# all_num OP N: every number on stdin compares OP N (at least one line).
all_num() { awk -v n="$2" -v op="$1" 'BEGIN { c = 0; bad = 0 }
	{ c++; v = $1 + 0
	  if (op == "gt" && !(v > n)) bad++
	  if (op == "ge" && !(v >= n)) bad++
	  if (op == "eq" && !(v == n)) bad++ }
	END { exit !(c > 0 && bad == 0) }'; }

snapshot() { cat "$TR/trace" > "$tmp/trace"; }

tap_header
tap_plan 20

# ---------------------------------------------------------------- setup
for b in "$T" "$REL/rel_server" "$REL/rel_client"; do
	[ -x "$b" ] || bail "$b missing: make -C selftests on the host"
done
prism_load "$KO" || bail "insmod $KO"
ok "module loaded"

if [ ! -d "$TR/events" ]; then
	mount -t tracefs nodev "$TR" && mounted_here=1
fi
check "tracefs at $TR" "[ -d $TR/events ]"

for e in $EVENTS; do
	check "event prism:$e exists (id $(cat "$TR/events/prism/$e/id" 2>/dev/null))" \
		"[ -r $TR/events/prism/$e/format ]"
done
# Fixed-size fields only: no pointer and no dynamic array in any format.
check "no event has a pointer or variable-length field" \
	"! cat $TR/events/prism/*/format | grep -E 'field:[^;]*(\\*|__data_loc)' >&2"

hosts_up trc 2 || bail "hosts"
mac1=$(host_mac trc 1)
mac2=$(host_mac trc 2)

# ---------------------------------------------------------------- enable
# Enabling an event also records command names, through a probe on the
# scheduler's sched_switch tracepoint: that patches the jump in __schedule()
# while both CPUs run through it.  Under qemu 7.2's TCG a vCPU can go on
# executing the int3 of such a patch after the patch is done (the kernel
# backs up over a vanished int3 and retries): CI's debug guest looped there
# for 30 minutes, the other vCPU spinning on the runqueue lock.  The checks
# use no command names, so none are recorded: only the module's own
# tracepoints are patched.
record_cmd=$(cat "$TR/options/record-cmd")
echo 0 > "$TR/options/record-cmd"
echo 0 > "$TR/tracing_on"
echo 2048 > "$TR/buffer_size_kb"
: > "$TR/trace"
echo 1 > "$TR/events/prism/enable"
echo 1 > "$TR/tracing_on"
check "events enabled" "[ \"\$(cat $TR/events/prism/enable)\" = 1 ]"

# ---------------------------------------------------------------- CAS
# Not through host_exec (a function: $! would be its subshell, and the
# server would outlive the kill of cleanup()).
ip netns exec trc1 "$REL/rel_server" eth0 $EP_SRV 16 0 > "$tmp/srv" 2>&1 &
pids+=($!)
wait_file "$tmp/srv" 30000 $! || bail "rel_server: $(cat "$tmp/srv")"
addr=$(head -n 1 "$tmp/srv")
sent0=$(stat_of trc2 chains_sent)
# shellcheck disable=SC2086
host_exec trc 2 "$REL/rel_client" eth0 1 5000 $addr cas "$N" > "$tmp/cas" 2>&1
rc=$?
# READ chains too (the CAS loops start from an expected value of 0):
# verify reads the buffers and the counter back.
# shellcheck disable=SC2086
host_exec trc 2 "$REL/rel_client" eth0 1 5000 $addr verify 0 0 >> "$tmp/cas" 2>&1
sed 's/^/# cas: /' "$tmp/cas"
sent=$(($(stat_of trc2 chains_sent) - sent0))
snapshot
log "client sent $sent chains for $N CAS increments and the READs of verify"
ev prism_chain_exec | with dst_ep=$EP_SRV > "$tmp/exec"
ev prism_chain_complete | with dst_ep=$EP_SRV > "$tmp/comp"
ev prism_chain_rx | with dst_ep=$EP_SRV > "$tmp/rx"
log "events: rx $(count < "$tmp/rx"), exec $(count < "$tmp/exec"), complete $(count < "$tmp/comp")"
head -n 2 "$tmp/exec" "$tmp/comp" "$tmp/rx" | sed 's/^/#   /'
check "$N CAS increments succeeded, the counter reads $N" \
	"[ $rc = 0 ] && [ $sent -gt $N ] && grep -q 'counter=$N\$' $tmp/cas"
check "prism_chain_exec: one per chain sent ($sent), chain status OK, exec_ns > 0" \
	"[ \"\$(count < $tmp/exec)\" = $sent ] && col status < $tmp/exec | all_num eq 0 &&
	 col exec_ns < $tmp/exec | all_num gt 0 && col nops < $tmp/exec | all_num ge 1"
check "prism_chain_complete: one per chain sent, status OK, latency_us > 0, tries >= 1, dst MAC/ep of the target" \
	"[ \"\$(count < $tmp/comp)\" = $sent ] && col status < $tmp/comp | all_num eq 0 &&
	 col latency_us < $tmp/comp | all_num gt 0 && col tries < $tmp/comp | all_num ge 1 &&
	 [ \"\$(col dst < $tmp/comp | sort -u)\" = $mac1 ]"
col req_id < "$tmp/comp" | sort > "$tmp/ids.comp"
col req_id < "$tmp/exec" | sort > "$tmp/ids.exec"
col req_id < "$tmp/rx" | sort -u > "$tmp/ids.rx"
check "the same request ids in rx, exec and complete (wire ids agree)" \
	"cmp -s $tmp/ids.comp $tmp/ids.exec && cmp -s $tmp/ids.exec $tmp/ids.rx"
col opcode < "$tmp/rx" | sort -un | tr '\n' ' ' > "$tmp/ops"
log "rx opcodes: $(cat "$tmp/ops")"
check "prism_chain_rx: src MAC of the client, opcodes READ (1) and CAS (3), rx >= exec" \
	"[ \"\$(col src < $tmp/rx | sort -u)\" = $mac2 ] && grep -q '1 3' $tmp/ops &&
	 [ \"\$(count < $tmp/rx)\" -ge $sent ]"

# ---------------------------------------------------------------- retransmit
printf 'pid 1\nmac 02:00:00:00:99:99\nep %s\nrw_addr 0x1000\nrw_rkey 0x1\n' $EP_DEAD > "$tmp/dead.info"
: > "$TR/trace"
# 200 ms chains (prism_test ping), RTO 50 ms: resent at 50 and 150 ms.
host_exec trc 2 "$T" ping --if eth0 --info "$tmp/dead.info" --n 300 > "$tmp/dead" 2>&1
rc=$?
sed 's/^/# ping: /' "$tmp/dead"
snapshot
ev prism_chain_retransmit | with dst_ep=$EP_DEAD > "$tmp/rtx"
ev prism_chain_complete | with dst_ep=$EP_DEAD > "$tmp/comp"
head -n 3 "$tmp/rtx" "$tmp/comp" | sed 's/^/#   /'
check "chains to a dead target were retransmitted: try >= 2, rto_us > 0, after_nack 0" \
	"[ $rc != 0 ] && col try < $tmp/rtx | all_num ge 2 &&
	 col rto_us < $tmp/rtx | all_num gt 0 && col after_nack < $tmp/rtx | all_num eq 0"
check "... and completed with TIMEOUT (4) after >= 2 tries, latency >= 100 ms" \
	"col status < $tmp/comp | all_num eq 4 && col tries < $tmp/comp | all_num ge 2 &&
	 col latency_us < $tmp/comp | all_num ge 100000"

# ---------------------------------------------------------------- NACK
: > "$TR/trace"
ip netns exec trc1 "$REL/rel_server" eth0 $EP_SLOW 64 2 > "$tmp/slow" 2>&1 &
pids+=($!)
wait_file "$tmp/slow" 30000 $! || bail "rel_server (slow): $(cat "$tmp/slow")"
addr=$(head -n 1 "$tmp/slow")
# 8 chains at once to a target serving 2/s: all but the first are NACKed.
# shellcheck disable=SC2086
host_exec trc 2 "$REL/rel_client" eth0 2 3000 $addr alloc 8 8 > "$tmp/nack" 2>&1
log "rel_client alloc (status $?): $(grep -c . "$tmp/nack") lines of output"
snapshot
ev prism_chain_nack | with dir=sent > "$tmp/nsent"
ev prism_chain_nack | with dir=received > "$tmp/nrecv"
head -n 2 "$tmp/nsent" "$tmp/nrecv" | sed 's/^/#   /'
log "NACKs: $(count < "$tmp/nsent") sent, $(count < "$tmp/nrecv") received; nacks_sent $(stat_of trc1 nacks_sent)"
check "prism_chain_nack dir=sent: by ep $EP_SLOW to the client's MAC, reason rate" \
	"[ \"\$(count < $tmp/nsent)\" -ge 1 ] && col ep < $tmp/nsent | all_num eq $EP_SLOW &&
	 [ \"\$(col peer < $tmp/nsent | sort -u)\" = $mac2 ] &&
	 [ \"\$(col reason < $tmp/nsent | sort -u)\" = rate ]"
col req_id < "$tmp/nsent" | sort -u > "$tmp/ids.nsent"
col req_id < "$tmp/nrecv" | sort -u > "$tmp/ids.nrecv"
# A NACK that arrives after its chain's deadline finds no chain: subset.
check "prism_chain_nack dir=received: from ep $EP_SLOW, request ids among those NACKed by the target" \
	"[ \"\$(count < $tmp/nrecv)\" -ge 1 ] && col peer_ep < $tmp/nrecv | all_num eq $EP_SLOW &&
	 [ -z \"\$(comm -13 $tmp/ids.nsent $tmp/ids.nrecv)\" ]"
check "prism_chain_retransmit after_nack=1: NACKed chains were resent" \
	"ev prism_chain_retransmit | with dst_ep=$EP_SLOW | with after_nack=1 | grep -q ."

# ---------------------------------------------------------------- disable
echo 0 > "$TR/events/prism/enable"
: > "$TR/trace"
host_exec trc 2 "$T" ping --if eth0 --info "$tmp/dead.info" --n 100 > /dev/null 2>&1
snapshot
check "events disabled: enable reads 0 and nothing is recorded" \
	"[ \"\$(cat $TR/events/prism/enable)\" = 0 ] && ! grep -q ' prism_chain_' $tmp/trace"

tap_finish
