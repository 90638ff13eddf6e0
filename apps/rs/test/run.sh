#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-RS tests, run INSIDE the guest as root.  Prints one TAP stream.
#
# Hosts are netns rs1..rs8 on bridge br-rs: replicas in rs1..rs5, clients
# in rs6..rs8.  Every run records the history of every client and checks
# it with rs_check (linearizability), with faults injected mid-run:
#  - no faults, 3 replicas: ABD and ABD-LOCK
#  - one of three replicas SIGKILLed mid-run (ABD, ABD-LOCK)
#  - one of three replicas' link cut mid-run (ip link set down)
#  - with every fault: one socket per client carries the chains to all
#    replicas, and the operations after the fault are not held up by
#    chains stuck at the dead replica (99% under half a chain timeout)
#  - 10% message loss on every link (ABD, ABD-LOCK)
#  - 5 replicas, two of them killed mid-run
#  - a killed replica restarts with --rejoin (state transfer from the
#    others): reads from it alone see the writes it missed (and without
#    --rejoin the checker catches that they do not); under load, it
#    rejoins, then another replica is killed and the clients go on with
#    it
#  - blocks of 4 KiB and 64 KiB (ABD, ABD-LOCK, 2% loss): one chain per
#    replica and phase, segmented by the module at MTU 1500
#  - ABD-LOCK lease recovery: a client dies holding the locks
#  - a deliberately broken client (waits for 1 reply instead of f+1) under
#    jittery delays: the checker must report a violation
#  - replaced buffers were recycled by the replicas
#
# Env: PRISM_KO (insmod if prism is not loaded), RS_OPS (ops per client,
# default 200), RS_BIG_SIZES, RS_BIG_MTU, RS_BIG_OPS (the large blocks,
# below), RS_KEEP=1 keeps the work directory, PRISM_LINK=udp (replicas and
# clients bound to UDP on the hosts' IPv4 addresses: hosts.sh host_link).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
B=$here/../build
OPS=${RS_OPS:-200}
P=rs
NHOSTS=8
tmp=$(mktemp -d /tmp/rs-test.XXXXXX)
replica_pids=()
client_pids=()

# shellcheck source=../../../tools/lib/prism_lib.sh
. "$repo/tools/lib/prism_lib.sh"

cleanup() {
	local p
	for p in "${client_pids[@]}" "${replica_pids[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	hosts_down $P $NHOSTS
	prism_unload
	[ "${RS_KEEP:-0}" = 1 ] || rm -rf "$tmp"
}
trap cleanup EXIT

prism_load "${PRISM_KO:-}" || bail "cannot load the module"
modprobe -q sch_netem 2>/dev/null
for b in rs_replica rs_client rs_check; do
	[ -x "$B/$b" ] || bail "$B/$b missing: make -C apps/rs"
done
hosts_down $P $NHOSTS
hosts_up $P $NHOSTS || bail "hosts_up failed"

# start_replicas RUN K: replicas in rs1..rsK, info files $tmp/RUN.infoI;
# blocks of $RS_BSIZE bytes if set (else the replica's default), with
# $RS_BUFS buffers (default 8192); keyed regions if $RS_KEYED is 1.
start_replicas() {
	local run=$1 k=$2 i bsize=()
	[ -n "${RS_BSIZE:-}" ] && bsize=(--bsize "$RS_BSIZE")
	[ "${RS_KEYED:-0}" = 1 ] && bsize+=(--keyed)
	[ -n "${RS_STORE:-}" ] && bsize+=(--store "$RS_STORE")
	replica_pids=()
	for i in $(seq "$k"); do
		# Not through host_exec (a function: $! would be a subshell
		# and signals would miss the replica); ip execs the command.
		ip netns exec "$P$i" "$B/rs_replica" "$(host_link $P "$i")" 0 "$tmp/$run.info$i" \
			--blocks 64 --bufs "${RS_BUFS:-8192}" "${bsize[@]}" \
			2>"$tmp/$run.rlog$i" &
		replica_pids+=($!)
	done
	for i in $(seq "$k"); do
		wait_file "$tmp/$run.info$i" 30000 || return 1
	done
}

stop_replicas() {
	local p
	for p in "${replica_pids[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${replica_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	replica_pids=()
}

# start_clients RUN K NCLIENTS ARGS...: clients 1..N (host rs6..rs8, in
# turn) against replicas 1..K; they wait for $tmp/RUN.go, which is created
# once all are up.  Histories in $tmp/RUN.hist*, summaries in RUN.out*.
start_clients() {
	local run=$1 k=$2 n=$3 i infos=""
	shift 3
	for i in $(seq "$k"); do
		infos=${infos:+$infos,}$tmp/$run.info$i
	done
	client_pids=()
	for i in $(seq "$n"); do
		ip netns exec "$P$((6 + (i - 1) % 3))" "$B/rs_client" \
			--if "$(host_link $P $((6 + (i - 1) % 3)))" \
			--info "$infos" --id "$i" --seed "$RANDOM" \
			--hist "$tmp/$run.hist$i" --start "$tmp/$run.go" \
			--progress "$tmp/$run.prog$i" --progress-after 20 "$@" \
			>"$tmp/$run.out$i" 2>&1 &
		client_pids+=($!)
	done
	# Fault runs: one more client that never pauses and runs longer, so
	# that operations are in flight when the fault lands.
	if [ -n "${RS_FREE_RUNNER:-}" ]; then
		i=$((n + 1))
		ip netns exec "$P$((6 + (i - 1) % 3))" "$B/rs_client" \
			--if "$(host_link $P $((6 + (i - 1) % 3)))" \
			--info "$infos" --id "$i" --seed "$RANDOM" \
			--hist "$tmp/$run.hist$i" --start "$tmp/$run.go" "$@" \
			--ops $((5 * OPS)) >"$tmp/$run.out$i" 2>&1 &
		client_pids+=($!)
	fi
	touch "$tmp/$run.go"
}

# wait_clients: 0 if every client exited 0.
wait_clients() {
	local p rc=0
	for p in "${client_pids[@]}"; do
		wait "$p" || rc=1
	done
	client_pids=()
	return $rc
}

# Sum of key=value over the client summaries of RUN.
sum_kv() {
	cat "$tmp/$1".out* 2>/dev/null |
		sed -n "s/.*\\b$2=\\([0-9]*\\).*/\\1/p" | awk '{ s += $1 } END { print s + 0 }'
}

# lin RUN: checker verdict on the merged histories (output in RUN.check).
lin() {
	"$B/rs_check" hist "$tmp/$1".hist* >"$tmp/$1.check" 2>&1
}

# Reads that returned a value some client wrote (not the initial one).
nonzero_reads() {
	cat "$tmp/$1".hist* | awk '$1 == "R" && $3 != 0 { n++ } END { print n + 0 }'
}

# after_fault RUN N: "count p50 p99 max" (ms) of the operations clients
# 1..N started after the fault: each paused after its first 20 successes
# (--progress-after 20) until the fault was in place, and none failed
# (asserted), so its history lines past the 20th are those.
after_fault() {
	local i
	for i in $(seq "$2"); do
		awk 'NR > 20 && $5 != "inf" { printf "%.1f\n", ($5 - $4) / 1e6 }' \
			"$tmp/$1.hist$i"
	done | sort -n | awk '{ v[NR] = $1 }
		END { if (!NR) { print 0, 0, 0, 0; exit }
		      print NR, v[int((NR + 1) / 2)], v[int((NR * 99 + 99) / 100)], v[NR] }'
}

# A whole scenario: RUN K NCLIENTS FAULT MODE [client args].
#  FAULT: none | kill:I[,J] | linkdown:I  (applied once every client has
#  done 20 operations: the fault hits mid-run, which is asserted: chains
#  to the dead replica failed)
scenario() {
	local run=$1 k=$2 n=$3 fault=$4 mode=$5 i r what killed_ok=1
	shift 5
	what="$run ($k replicas, $n clients x $OPS ops, $mode, fault: $fault)"
	if ! start_replicas "$run" "$k"; then
		not_ok "$what: replicas started"
		diag "$tmp/$run".rlog*
		return
	fi
	local barrier=() total=$((n * OPS))
	if [ "$fault" != none ]; then
		# Clients 1..n pause after 20 ops until the fault is in place
		# (so the rest of their ops run against it), plus a free runner.
		barrier=(--resume "$tmp/$run.resume")
		total=$((n * OPS + 5 * OPS))
	fi
	RS_FREE_RUNNER=${barrier[*]:+1} start_clients "$run" "$k" "$n" \
		--mode "$mode" --ops "$OPS" --keys 4 --writes 50 "${barrier[@]}" "$@"
	case $fault in
	kill:* | linkdown:*)
		for i in $(seq "$n"); do
			wait_file "$tmp/$run.prog$i" 60000 ||
				echo "# $run: client $i made no progress"
		done
		for r in $(echo "${fault#*:}" | tr , ' '); do
			if [ "${fault%%:*}" = kill ]; then
				kill -KILL "${replica_pids[$((r - 1))]}"
				wait "${replica_pids[$((r - 1))]}" 2>/dev/null
				# The replica process is really gone.
				if kill -0 "${replica_pids[$((r - 1))]}" 2>/dev/null; then
					echo "# $run: replica $r survived SIGKILL"
					killed_ok=0
				fi
			else
				ip -n "$P$r" link set eth0 down
			fi
		done
		touch "$tmp/$run.resume"
		if kill -0 "${client_pids[$n]}" 2>/dev/null; then
			echo "# $run: the free-running client was busy when the fault hit"
		fi
		;;
	esac
	wait_clients
	local rc=$?
	if [ "$fault" != none ]; then
		# Chains to the dead replica failed: the fault hit mid-run.
		check "$what: the fault hit while clients ran ($(sum_kv "$run" chain_errors) chains failed)" \
			"[ \$(sum_kv $run chain_errors) -gt 0 ]"
		# One socket carries the chains to every replica: those stuck
		# at the dead one (until their 1 s timeout) must not hold up
		# the others.  Operations after the fault still take a quorum
		# of live replicas' time: 99% under half a chain timeout.
		local cnt p50 p99 pmax
		read -r cnt p50 p99 pmax <<<"$(after_fault "$run" "$n")"
		check "$what: the dead replica stalls no operation on the shared socket ($cnt ops after the fault, ms p50 $p50 p99 $p99 max $pmax)" \
			"[ $cnt = $((n * (OPS - 20))) ] && awk 'BEGIN { exit !($p99 < 500) }'"
	fi
	check "$what: every client finished, no failed operation" \
		"[ $rc = 0 ] && [ $killed_ok = 1 ] && [ \$(sum_kv $run failed) = 0 ] && [ \$(sum_kv $run ops) = $total ]"
	[ "$rc" = 0 ] || diag "$tmp/$run".out*
	lin "$run"
	local v=$?
	check "$what: history is linearizable ($(tr '\n' ' ' <"$tmp/$run.check"))" "[ $v = 0 ]"
	check "$what: reads saw written values ($(nonzero_reads "$run") reads)" \
		"[ \$(nonzero_reads $run) -gt 0 ]"
	stop_replicas
	for r in $(seq "$k"); do
		ip -n "$P$r" link set eth0 up
	done
}

# stat_sum NAME: counter NAME of /proc/net/prism summed over the hosts.
stat_sum() {
	local i s=0
	for i in $(seq $NHOSTS); do
		s=$((s + $(host_stat $P "$i" "$1")))
	done
	echo $s
}

tap_header

scenario base3 3 3 none abd
scenario lock3 3 3 none lock
grep -h . "$tmp"/base3.out* | sed 's/^/# /'

# Keyed regions (issue 17): every replica's region takes only chains
# sealed with keys derived for their senders, which clients ask each
# replica for on the key socket its info line names.  The same workload
# and checks, none of the sealed chains refused.
auth0=$(stat_sum auth_failed)
RS_KEYED=1 scenario keyed3 3 3 none abd
RS_KEYED=1 scenario keyedlock3 3 3 none lock
served=$(sed -n 's/.*keys_served=\([0-9]*\).*/\1/p' "$tmp"/keyed3.rlog* |
	awk '{ s += $1 } END { print s + 0 }')
check "keyed: the replicas' info lines name key sockets, which served keys ($served)" \
	"grep -q ' keys=' $tmp/keyed3.info1 && [ $served -ge 3 ]"
check "keyed: no sealed chain was refused (auth_failed +$(($(stat_sum auth_failed) - auth0)))" \
	"[ $(stat_sum auth_failed) = $auth0 ]"

# Recycling: the ABD run replaced buffers; the replicas got them back.
recycled=$(sed -n 's/.*recycled=\([0-9]*\).*/\1/p' "$tmp"/base3.rlog* |
	awk '{ s += $1 } END { print s + 0 }')
check "replaced buffers were recycled to the replicas' free lists ($recycled)" \
	"[ $recycled -gt 0 ]"
[ "$recycled" -gt 0 ] || diag "$tmp"/base3.rlog*

# The largest block (1024 B) at MTU 1500 with one slow replica (20 ms):
# its answers, each naming a buffer to recycle, come in bursts, so up to
# 32 addresses are piggybacked at once, and an ABD write chain with more
# than 18 of them does not fit one frame.  The client must send it without
# them rather than lose it: no chain fails although no fault is injected.
host_exec $P 3 tc qdisc add dev eth0 root netem delay 20ms
OPS=600 RS_BSIZE=1024 scenario big3 3 3 none abd
host_exec $P 3 tc qdisc del dev eth0 root
check "block size 1024: no chain failed while recycling was piggybacked ($(sum_kv big3 chain_errors) failed, $(sum_kv big3 recycled) recycled)" \
	"[ \$(sum_kv big3 chain_errors) = 0 ] && [ \$(sum_kv big3 recycled) -gt 0 ]"
[ "$(sum_kv big3 chain_errors)" = 0 ] || diag "$tmp"/big3.out*

# Large blocks (issue 14), 4 KiB and 64 KiB: a phase is still one chain
# per replica, whose ALLOC (PUT) or indirect READ (GET; ABD-LOCK: READ and
# WRITE) carries the whole block.  At MTU $BIG_MTU the module splits what
# does not fit one frame into segments (segs_sent grows in the hosts'
# netns) and still gives one completion per chain.  Without a fault no
# chain may fail; under loss, lost segments are sent again (segs_resent).
# 1088 buffers per replica (68 MiB at 64 KiB).  Env: RS_BIG_SIZES (default
# "4096 65536"; ABD-LOCK and loss run at the last), RS_BIG_MTU (1500),
# RS_BIG_OPS (ops per client, 100).
BIG_MTU=${RS_BIG_MTU:-1500}
BIG_SIZES=${RS_BIG_SIZES:-4096 65536}
BIG_MAX=${BIG_SIZES##* }

# big RUN BSIZE MODE [COUNTER]: scenario with blocks of BSIZE bytes.
# Segments are expected iff a block does not fit one frame; COUNTER (e.g.
# segs_resent) must grow too, and then failed chains are allowed.
big() {
	local run=$1 bs=$2 mode=$3 counter=${4:-} s0 c0=0 segs grew=0 t0=$SECONDS
	local want="one frame each"
	[ "$bs" -ge "$BIG_MTU" ] && want="segmented"
	s0=$(stat_sum segs_sent)
	[ -n "$counter" ] && c0=$(stat_sum "$counter")
	OPS=${RS_BIG_OPS:-100} RS_BSIZE=$bs RS_BUFS=1088 scenario "$run" 3 3 none "$mode"
	segs=$(($(stat_sum segs_sent) - s0))
	[ -n "$counter" ] && grew=$(($(stat_sum "$counter") - c0))
	local ok=1
	if [ "$want" = segmented ]; then
		[ "$segs" -gt 0 ] || ok=0
	else
		[ "$segs" = 0 ] || ok=0
	fi
	if [ -n "$counter" ]; then
		[ "$grew" -gt 0 ] || ok=0
	else
		[ "$(sum_kv "$run" chain_errors)" = 0 ] || ok=0
	fi
	grep -h . "$tmp/$run".out* | sed 's/^/# /'
	check "$run: $bs-byte blocks at MTU $BIG_MTU $want ($segs segments${counter:+, $counter +$grew}), $(sum_kv "$run" chain_errors) chains failed, $(sum_kv "$run" recycled) buffers recycled" \
		"[ $ok = 1 ]"
	echo "# $run: $((SECONDS - t0)) s"
}

[ "$BIG_MTU" = 1500 ] || hosts_mtu $P $NHOSTS "$BIG_MTU" || bail "MTU $BIG_MTU"
for bs in $BIG_SIZES; do
	big "big$((bs / 1024))k" "$bs" abd
done
big "biglock$((BIG_MAX / 1024))k" "$BIG_MAX" lock
hosts_netem $P $NHOSTS add loss 2%
big "bigloss$((BIG_MAX / 1024))k" "$BIG_MAX" abd segs_resent
hosts_netem $P $NHOSTS del
[ "$BIG_MTU" = 1500 ] || hosts_mtu $P $NHOSTS 1500

scenario kill3 3 3 kill:3 abd
scenario killock3 3 3 kill:2 lock
scenario cut3 3 3 linkdown:1 abd
hosts_netem $P $NHOSTS add loss 10%
scenario loss3 3 3 none abd
scenario losslock3 3 3 none lock
hosts_netem $P $NHOSTS del
scenario kill5 5 3 kill:2,5 abd

# ---- a killed replica restarts and rejoins (rs_replica --rejoin) ----------
# restart_replica3 RUN [ARGS]: replica 3 of RUN started again (after its
# SIGKILL), ARGS passed on; returns once it has published a new info line.
info_changed() { [ "$(cat "$1" 2>/dev/null)" != "$2" ]; }
restart_replica3() {
	local run=$1 old
	shift
	old=$(cat "$tmp/$run.info3")
	ip netns exec ${P}3 "$B/rs_replica" "$(host_link $P 3)" 0 "$tmp/$run.info3" \
		--blocks 64 --bufs "${RS_BUFS:-8192}" "$@" 2>"$tmp/$run.rlog3b" &
	replica_pids[2]=$!
	wait_until -p "${replica_pids[2]}" 60000 info_changed "$tmp/$run.info3" "$old"
}
kill_replica() {	# I: replica I of the running set, SIGKILLed
	kill -KILL "${replica_pids[$(($1 - 1))]}"
	wait "${replica_pids[$(($1 - 1))]}" 2>/dev/null
}

# The state transfer, step by step: writes with the three replicas up,
# replica 3 killed, more writes (held by replicas 1 and 2 only), replica 3
# restarted, then reads from replica 3 ALONE (one client with a quorum of
# one): with --rejoin they must see the last writes (the merged history is
# linearizable); restarted without it, the replica answers with its
# initial blocks and the checker refuses the history, which shows the
# check sees a replica that did not rejoin.
rejoin_state() {	# RUN yes|no
	local run=$1 how=$2 all r
	start_replicas "$run" 3 || { not_ok "$run: replicas started"; return; }
	all=$tmp/$run.info1,$tmp/$run.info2,$tmp/$run.info3
	host_exec $P 6 "$B/rs_client" --if "$(host_link $P 6)" --info "$all" --id 1 --ops 40 \
		--keys 4 --writes 100 --hist "$tmp/$run.hist1" >"$tmp/$run.out1" 2>&1
	kill_replica 3
	host_exec $P 7 "$B/rs_client" --if "$(host_link $P 7)" --info "$all" --id 2 --ops 40 \
		--keys 4 --writes 100 --hist "$tmp/$run.hist2" >"$tmp/$run.out2" 2>&1
	if [ "$how" = yes ]; then
		restart_replica3 "$run" --rejoin "$tmp/$run.info1,$tmp/$run.info2"
	else
		restart_replica3 "$run"
	fi
	r=$?
	check "$run: replica 3 restarted (--rejoin: $how) and published a new info line ($(grep -h rejoined "$tmp/$run.rlog3b"))" \
		"[ $r = 0 ]"
	host_exec $P 8 "$B/rs_client" --if "$(host_link $P 8)" --info "$tmp/$run.info3" --id 3 \
		--ops 40 --keys 4 --writes 0 --hist "$tmp/$run.hist3" >"$tmp/$run.out3" 2>&1
	check "$run: 40 writes with 3 replicas, 40 with replica 3 dead, 40 reads from replica 3 alone: none failed" \
		"[ \$(sum_kv $run failed) = 0 ] && [ \$(sum_kv $run ops) = 120 ]"
	lin "$run"
	rejoin_verdict=$?
	stop_replicas
}
rejoin_state rejoin yes
check "rejoin: reads from the rejoined replica alone see the writes made while it was dead ($(tr '\n' ' ' <"$tmp/rejoin.check"))" \
	"[ $rejoin_verdict = 0 ]"
rejoin_state norejoin no
check "no rejoin: reads from a replica restarted empty miss them, and the checker says so ($(tr '\n' ' ' <"$tmp/norejoin.check"))" \
	"[ $rejoin_verdict = 1 ]"

# Under load: clients 1..3 pause after 20 operations while a free runner
# goes on; replica 3 is killed and rejoins (its state transfer runs while
# the free runner writes), then replica 1 is killed and the clients go on
# with replicas 2 and 3: every operation must succeed, which needs the
# rejoined replica, each client must have switched to its new address
# (reloads), and the history stays linearizable.
run=rejoinload
if start_replicas $run 3; then
	RS_FREE_RUNNER=1 start_clients $run 3 3 --mode abd --ops "$OPS" --keys 4 \
		--writes 50 --resume "$tmp/$run.resume"
	for i in 1 2 3; do
		wait_file "$tmp/$run.prog$i" 60000 || echo "# $run: client $i made no progress"
	done
	kill_replica 3
	restart_replica3 $run --rejoin "$tmp/$run.info1,$tmp/$run.info2"
	r=$?
	grep -h rejoined "$tmp/$run.rlog3b" | sed 's/^/# /'
	kill_replica 1
	touch "$tmp/$run.resume"
	wait_clients
	rc=$?
	check "$run: replica 3 killed and rejoined while clients ran, then replica 1 killed: every client finished, no failed operation ($(sum_kv $run ops) ops)" \
		"[ $r = 0 ] && [ $rc = 0 ] && [ \$(sum_kv $run failed) = 0 ] && [ \$(sum_kv $run ops) = $((3 * OPS + 5 * OPS)) ]"
	[ "$rc" = 0 ] || diag "$tmp/$run".out* "$tmp/$run".rlog*
	check "$run: clients 1..3 switched to the rejoined replica (reloads: $(sum_kv $run reloads))" \
		"[ \$(sum_kv $run reloads) -ge 3 ]"
	lin $run
	v=$?
	check "$run: history is linearizable ($(tr '\n' ' ' <"$tmp/$run.check"))" "[ $v = 0 ]"
	stop_replicas
else
	not_ok "$run: replicas started"
fi

# Lease recovery: a lock-mode client dies holding a majority of the locks
# of block 0; the others must break its lease (1 s) and carry on.
if start_replicas lease 3; then
	host_exec $P 6 "$B/rs_client" --if "$(host_link $P 6)" --id 99 --mode lock --keys 1 \
		--ops 1 --writes 100 --lease 1000 --broken die-locked \
		--info "$tmp/lease.info1,$tmp/lease.info2,$tmp/lease.info3" \
		>"$tmp/lease.dead" 2>&1
	dead_rc=$?
	start_clients lease 3 2 --mode lock --ops 50 --keys 1 --writes 50
	wait_clients
	rc=$?
	lin lease
	v=$?
	check "lease recovery: a client died holding the locks (exit $dead_rc); the others broke the lease ($(sum_kv lease lock_breaks)) and finished" \
		"[ $dead_rc = 3 ] && [ $rc = 0 ] && [ \$(sum_kv lease failed) = 0 ] && [ \$(sum_kv lease lock_breaks) -gt 0 ]"
	check "lease recovery: history is linearizable" "[ $v = 0 ]"
	stop_replicas
else
	not_ok "lease recovery: replicas started"
fi

# Teeth: a client that takes 1 reply instead of f+1 is not linearizable
# under jittery delays.  Violations depend on timing: up to 3 runs.
hosts_netem $P $NHOSTS add delay 3ms 3ms
caught=0
for attempt in 1 2 3; do
	run=broken$attempt
	start_replicas "$run" 3 || break
	start_clients "$run" 3 3 --mode abd --ops "$OPS" --keys 2 --writes 50 \
		--broken one
	wait_clients
	lin "$run"
	v=$?
	stop_replicas
	echo "# $run: $(tr '\n' ' ' <"$tmp/$run.check") (exit $v)"
	if [ "$v" = 1 ]; then
		caught=1
		break
	fi
done
check "checker catches the broken 1-reply client (attempt $attempt)" "[ $caught = 1 ]"
# The same delays with the real client stay linearizable.
scenario jitter3 3 3 none abd --keys 2
hosts_netem $P $NHOSTS del

# ---- rs_replica --store: one protocol's state; the other's ops fail -------
# (make scale keeps three replicas of 8 M blocks in one guest so.)
for st in abd lock; do
	other=abd
	[ $st = abd ] && other=lock
	RS_STORE=$st start_replicas "store$st" 3 || bail "replicas (--store $st) did not start"
	start_clients "store$st" 3 1 --mode "$st" --ops 20 --keys 8
	wait_clients
	own=$? own_failed=$(sum_kv "store$st" failed)
	lin "store$st"
	v=$?
	start_clients "store$st" 3 1 --mode "$other" --ops 5 --keys 8
	wait_clients
	oth=$? oth_failed=$(sum_kv "store$st" failed)
	stop_replicas
	check "--store $st: one $st client did 20 ops, none failed, history linearizable; one $other client's ops all failed ($oth_failed of 5), none hung" \
		"[ $own = 0 ] && [ '$own_failed' = 0 ] && [ $v = 0 ] && [ $oth = 0 ] && [ '$oth_failed' = 5 ]"
done

# The benchmark's smoke (make check runs this suite): tools/bench/rs.sh
# with its block-size axis, one point, 300 ms per mode; it exits 1 on a
# failed operation or a measurement without any.
smoke_sizes=${RS_BENCH_BSIZES:-4096 65536}
t0=$SECONDS
RS_BENCH_SMOKE=1 RS_BENCH_BSIZES=$smoke_sizes PRISM_OUT=$tmp/bench \
	"$repo/tools/bench/rs.sh" >"$tmp/bench.log" 2>&1
rc=$?
sed -n 's/^bench-rs: \(.*B .*\)/# \1/p' "$tmp/bench.log"
# Every (block size, mode) measured: operations done, none failed.
want=$(for b in $smoke_sizes; do echo "$b abd"; echo "$b lock"; done | sort)
got=$(jq -r '.results[] | select(.failed == 0 and .ops > 0) | "\(.bsize) \(.mode)"' \
	"$tmp/bench/bench-rs.json" 2>/dev/null | sort)
check "bench smoke: block sizes $smoke_sizes, PRISM-RS and ABD-LOCK each did operations, none failed ($((SECONDS - t0)) s)" \
	"[ $rc = 0 ] && [ '$got' = '$want' ]"
[ "$rc" = 0 ] || diag "$tmp/bench.log"

tap_finish
