#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-RS in the main demo (tools/demo.sh runs this in the guest with the
# module loaded; $1 = repo root): three replicas (rsd1..rsd3) that only
# sleep, two clients (rsd4, rsd5) reading and writing 4 shared blocks with
# ABD over PRISM chains; then the same with replica 3 SIGKILLed mid-run
# (f = 1: the store keeps serving), and the linearizability check of the
# recorded history of all four client runs.  Exits non-zero on failure.
set -u
# shellcheck source=../../tools/lib/demo_app.sh
. "$1/tools/lib/demo_app.sh"
B=$1/apps/rs/build
OPS=${RS_DEMO_OPS:-100}
rpids=()
cpids=()

demo_cleanup() {
	local p
	for p in "${cpids[@]}" "${rpids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
kv_of() { sed -n "s/.*\\b$2=\\([0-9]*\\).*/\\1/p" "$1"; }

# run_clients RUN ID1 ID2 [rs_client args]: client ID1 on rsd4, ID2 on rsd5,
# started together; histories $tmp/RUN.hist*, summaries $tmp/RUN.out*;
# each writes $tmp/RUN.progID after 20 operations.
run_clients() {
	local run=$1 i h=4
	shift
	cpids=()
	for i in "$1" "$2"; do
		ip netns exec "$P$h" "$B/rs_client" --if eth0 --info "$infos" \
			--id "$i" --seed "$RANDOM" --mode abd --keys 4 --writes 50 \
			--ops "$OPS" --hist "$tmp/$run.hist$i" --start "$tmp/$run.go" \
			--progress "$tmp/$run.prog$i" --progress-after 20 "${@:3}" \
			>"$tmp/$run.out$i" 2>&1 &
		cpids+=($!)
		h=$((h + 1))
	done
	touch "$tmp/$run.go"
}

# wait_clients RUN: 0 if both clients exited 0 with no failed operation.
wait_clients() {
	local run=$1 p r=0 f
	for p in "${cpids[@]}"; do wait "$p" || r=1; done
	cpids=()
	for f in "$tmp/$run".out*; do
		printf '  %s\n' "$(sed -n 's/^\(client=.*\) cas_lost.*\(chain_errors=[0-9]*\).*/\1 \2/p' "$f")"
		[ "$(kv_of "$f" failed)" = 0 ] || r=1
	done
	[ $r = 0 ] || sed 's/^/    /' "$tmp/$run".out*
	return $r
}

# show_hist RUN N SKIP: N operations of RUN, by start time, from the
# stretch where both clients were running, leaving out the first SKIP
# operations of each client (human-readable).
show_hist() {
	sort -n -k4 "$tmp/$1".hist* | awk -v n="$2" -v skip="$3" '
	function v(id) { return id == 0 ? "initial value" : \
		sprintf("value #%d of client %d", id % 2^40, int(id / 2^40)) }
	{ c = $6
	  if (++seen[c] <= skip)
		next
	  line[++nl] = $0
	  if (!(c in first)) first[c] = $4
	  last[c] = $4 }
	END {
		from = 0; to = 1e30
		for (c in first) {
			if (first[c] > from) from = first[c]
			if (last[c] < to) to = last[c]
		}
		if (from > to) from = 0	# no overlap: from the start
		for (i = 1; i <= nl && n > 0; i++) {
			split(line[i], f)
			if (f[4] < from)
				continue
			n--
			lat = f[5] == "inf" ? "unknown outcome" : sprintf("%.2f ms", (f[5] - f[4]) / 1e6)
			if (f[1] == "W")
				printf "    client %d  PUT block %d := %s  (%s)\n", f[6], f[2], v(f[3]), lat
			else
				printf "    client %d  GET block %d -> %s  (%s)\n", f[6], f[2], v(f[3]), lat
		}
	}'
}

for b in rs_replica rs_client rs_check; do
	[ -x "$B/$b" ] || { echo "PRISM-RS: $B/$b missing (make -C apps/rs)"; exit 1; }
done
demo_init rsd 5

echo "PRISM-RS: ABD replicated block store, 3 replicas (f = 1), 2 clients"
infos=
for i in 1 2 3; do
	# Not through host_exec (a function): $! must be the replica itself.
	ip netns exec "$P$i" "$B/rs_replica" eth0 0 "$tmp/info$i" \
		--blocks 16 --bufs 4096 2>"$tmp/rlog$i" &
	rpids+=($!)
	infos=${infos:+$infos,}$tmp/info$i
done
for i in 1 2 3; do
	wait_file "$tmp/info$i" 60000 "${rpids[$((i - 1))]}" ||
		{ sed 's/^/    /' "$tmp/rlog$i"; echo "  replica $i did not start"; exit 1; }
done
echo "  replicas on ${P}1..${P}3 (pids ${rpids[*]}), clients on ${P}4 and ${P}5"
cpu0=()
for i in 0 1 2; do cpu0+=("$(cpu_ticks "${rpids[$i]}")"); done

echo "all replicas up: 2 clients x $OPS operations (50% PUT) on blocks 0..3"
run_clients healthy 1 2
wait_clients healthy || fail "healthy run: an operation failed"
echo "  some operations while both clients ran, by start time:"
show_hist healthy 8 0

echo "replica 3 SIGKILLed while both clients run"
run_clients kill 3 4 --resume "$tmp/resume"
for i in 3 4; do
	# the client pauses after 20 operations until $tmp/resume exists
	wait_file "$tmp/kill.prog$i" 120000 "${cpids[$((i - 3))]}" ||
		{ fail "client $i made no progress"; break; }
done
kill -KILL "${rpids[2]}"
wait "${rpids[2]}" 2>/dev/null
proc_exited "${rpids[2]}" && echo "  replica 3 (pid ${rpids[2]}) killed after the clients' first 20 operations"
touch "$tmp/resume"
wait_clients kill || fail "run with a dead replica: an operation failed"
errs=$(cat "$tmp"/kill.out* | sed -n 's/.*chain_errors=\([0-9]*\).*/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
echo "  every operation completed on the 2 live replicas (majority);" \
	"$errs chains to the dead replica timed out and were ignored"
echo "  operations after the kill, by start time:"
show_hist kill 6 20
echo "  CPU time of the live replicas (utime+stime ticks):" \
	"replica 1 ${cpu0[0]} -> $(cpu_ticks "${rpids[0]}")," \
	"replica 2 ${cpu0[1]} -> $(cpu_ticks "${rpids[1]}") (only buffer recycling wakes them)"

echo "linearizability check of the whole history (4 clients, both runs):"
if "$B/rs_check" hist "$tmp"/healthy.hist* "$tmp"/kill.hist* >"$tmp/check" 2>&1; then
	sed 's/^/  /' "$tmp/check"
else
	sed 's/^/  /' "$tmp/check"
	fail "rs_check"
fi
exit $rc
