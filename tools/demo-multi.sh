#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multi-guest part of the demo (tools/demo.sh runs it in three guests
# with tools/vm/multi.sh; every guest runs this script, PRISM_GUEST says
# which one it is).  Three machines, each with its own kernel, on one
# virtual Ethernet segment:
#
#   guest 1  PRISM-KV server, PRISM-RS replica 2   (only sleep: the kernel serves)
#   guest 2  PRISM-RS replica 3, client            (KV get/overwrite, RS client)
#   guest 0  PRISM-RS replica 1, client, narrator  (KV put/get, RS client)
#
# Guest 0 prints the story; guests 1 and 2 write their results to files in
# $PRISM_MH_DIR, where the guests also wait for each other.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/tools/lib/hosts.sh"
D=${PRISM_MH_DIR:?run by tools/vm/multi.sh}
g=${PRISM_GUEST:?run by tools/vm/multi.sh}
KVB=$repo/apps/kv/build
RSB=$repo/apps/rs/build
OPS=${RS_DEMO_OPS:-60}
WAIT=600000
tmp=$(mktemp -d /tmp/demo-multi.XXXXXX)
pids=()

mark() {
	local f=$D/$1
	shift
	printf '%s\n' "$@" > "$f.tmp.$g" && mv -f "$f.tmp.$g" "$f"
}
await() { wait_file "$D/$1" "${2:-$WAIT}"; }
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
cpu_ticks() { local f; read -ra f < "/proc/$1/stat" && echo $((f[13] + f[14])); }
kvc() { timeout 60 "$KVB/kv" --if eth0 --info "$D/kv.info" "$@" 2>&1; }
rs_infos="$D/rs0.info,$D/rs1.info,$D/rs2.info"

echo "PRISM-TESTS-BEGIN demo guest $g" > /dev/kmsg
insmod "${PRISM_KO:?}" || { mark "ready-$g" "failed: insmod"; exit 1; }
me=$(cat /sys/class/net/eth0/address)

# Every guest holds one PRISM-RS replica (endpoint chosen by the module).
"$RSB/rs_replica" eth0 0 "$D/rs$g.info" --blocks 16 --bufs 4096 2> "$tmp/rs.log" &
rs_pid=$!
pids+=("$rs_pid")
wait_file "$D/rs$g.info" 60000 "$rs_pid" || { mark "ready-$g" "failed: rs_replica: $(cat "$tmp/rs.log")"; exit 1; }

# rs_run ID: one RS client, 50% PUTs on blocks 0..3, after $D/rs.go.
rs_run() {
	timeout 300 "$RSB/rs_client" --if eth0 --info "$rs_infos" --id "$1" --seed "$RANDOM" \
		--mode abd --keys 4 --writes 50 --ops "$OPS" --hist "$tmp/rs.hist" \
		--start "$D/rs.go" > "$tmp/rs.out" 2>&1
}
rs_summary() { sed -n 's/^\(client=.*\) cas_lost.*\(chain_errors=[0-9]*\).*/\1 \2/p' "$tmp/rs.out"; }

case $g in
1)
	"$KVB/kv-server" --if eth0 --ep 100 --info "$D/kv.info" --slots 1024 --bufs 512 \
		> "$tmp/kv.log" 2>&1 &
	kv_pid=$!
	pids+=("$kv_pid")
	wait_file "$D/kv.info" 60000 "$kv_pid" || { mark ready-1 "failed: kv-server: $(cat "$tmp/kv.log")"; exit 1; }
	k0=$(cpu_ticks "$kv_pid") r0=$(cpu_ticks "$rs_pid")
	mark ready-1 ok "$me"
	await done-0
	mark cpu-1 "$(($(cpu_ticks "$kv_pid") - k0)) $(($(cpu_ticks "$rs_pid") - r0))"
	;;
2)
	mark ready-2 ok "$me"
	await kv-put-0 && {
		out=$(kvc get greeting); mark kv-get-2 "$?" "$out"
		out=$(kvc put greeting "overwritten by guest 2 ($me)"); mark kv-put-2 "$?" "$out"
	}
	await rs.go && { rs_run 2; mark rs-2 "$?" "$(rs_summary)"; }
	await done-0
	;;
0)
	trap 'mark done-0 finished; cleanup' EXIT
	rc=0
	line() { local l=; read -r l < "$D/$1"; echo "$l"; }
	second() { sed -n 2p "$D/$1"; }
	await ready-1 300000 && await ready-2 300000 &&
		[ "$(line ready-1)" = ok ] && [ "$(line ready-2)" = ok ] ||
		{ echo "  the other guests did not come up: $(line ready-1) / $(line ready-2)"; exit 1; }
	echo "three machines on one Ethernet segment, each with its own kernel and prism.ko:"
	printf '  guest 0  %s  %s\n' "$me" "PRISM-RS replica 1, clients" \
		"$(second ready-1)" "PRISM-KV server, PRISM-RS replica 2 (they only sleep)" \
		"$(second ready-2)" "PRISM-RS replica 3, clients" | sed '2s/guest 0/guest 1/; 3s/guest 0/guest 2/' 
	echo
	echo "PRISM-KV (hash table on guest 1, read and written with one-sided chains):"
	out=$(kvc put greeting "hello from guest 0 ($me)"); r=$?
	echo "  guest 0$ kv put greeting 'hello from guest 0'   -> exit $r ${out}"
	[ $r = 0 ] || rc=1
	mark kv-put-0 "$r"
	if await kv-put-2 120000; then
		echo "  guest 2$ kv get greeting                       -> exit $(line kv-get-2): $(second kv-get-2)"
		echo "  guest 2$ kv put greeting 'overwritten by guest 2' -> exit $(line kv-put-2) $(second kv-put-2)"
		[ "$(line kv-get-2)" = 0 ] && [ "$(line kv-put-2)" = 0 ] || rc=1
	else
		echo "  guest 2 did not answer"
		rc=1
	fi
	out=$(kvc get greeting); r=$?
	echo "  guest 0$ kv get greeting                       -> exit $r: $out"
	case $out in "overwritten by guest 2"*) ;; *) rc=1 ;; esac
	echo
	echo "PRISM-RS (ABD block store, a replica on every guest, f = 1):"
	echo "  clients on guest 0 and guest 2, $OPS operations each (50% PUT) on blocks 0..3, at once"
	mark rs.go go
	rs_run 1; r=$?
	echo "  guest 0: exit $r, $(rs_summary)"
	[ $r = 0 ] || rc=1
	if await rs-2 300000; then
		echo "  guest 2: exit $(line rs-2), $(second rs-2)"
		[ "$(line rs-2)" = 0 ] || rc=1
	else
		echo "  guest 2 did not finish"
		rc=1
	fi
	mark done-0 finished
	if await cpu-1 60000; then
		read -r kcpu rcpu < "$D/cpu-1"
		echo
		echo "guest 1 meanwhile: kv-server used $kcpu ticks of CPU (start-up and the buffer"
		echo "  reports PUTs send it; GETs never wake it), its RS replica $rcpu: the kernel served the chains"
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
