#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-KV in the main demo (tools/demo.sh runs this in the guest with the
# module loaded; $1 = repo root): a PRISM-KV server on kvd1 and a Pilaf
# server on kvd2, clients on kvd3 and kvd4.  A few CLI operations across
# clients (put, get, overwrite, delete, missing key), the server's CPU time
# while it serves them, then a short 95% GET benchmark on both stores side
# by side.  Exits non-zero if any step did not give the expected result.
set -u
# shellcheck source=../../tools/lib/demo_app.sh
. "$1/tools/lib/demo_app.sh"
B=$1/apps/kv/build
RECORDS=200
SECS=${KV_DEMO_SECONDS:-2}
declare -A srv=()

# SIGTERM (the server prints its counters), SIGKILL after 10 s.
stop_server() {
	local pid=${srv[$1]:-} end=$((SECONDS + 10))
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	until proc_exited "$pid" || [ $SECONDS -ge $end ]; do sleep 0.05; done
	proc_exited "$pid" || kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	unset "srv[$1]"
}

demo_cleanup() {
	local s
	for s in "${!srv[@]}"; do stop_server "$s"; done
}

# start_server NAME HOST EP ARGS...: kv-server on host HOST, address file
# $tmp/NAME.info.  Not through host_exec (a function): $! must be the
# server itself (ip netns exec execs it).
start_server() {
	local name=$1 h=$2 ep=$3
	shift 3
	ip netns exec "$P$h" "$B/kv-server" --if eth0 --ep "$ep" \
		--info "$tmp/$name.info" "$@" >"$tmp/$name.log" 2>&1 &
	srv[$name]=$!
	wait_file "$tmp/$name.info" 60000 "${srv[$name]}" ||
		{ sed 's/^/    /' "$tmp/$name.log"; return 1; }
}

# kvc HOST NAME ARGS...: the kv CLI on client host HOST against server NAME
kvc() {
	local h=$1 name=$2
	shift 2
	host_exec $P "$h" timeout 60 "$B/kv" --if eth0 --info "$tmp/$name.info" "$@"
}

# op HOST WANT_RC WANT_OUT ARGS...: one CLI call against the PRISM-KV
# server, shown as a shell line with its result; WANT_OUT "" = don't care.
op() {
	local h=$1 want_rc=$2 want_out=$3 out r shown a
	shift 3
	out=$(kvc "$h" prism "$@" 2>&1)
	r=$?
	shown=
	for a in "$@"; do
		case $a in *' '*) a="'$a'" ;; esac
		shown="$shown $a"
	done
	shown=${shown# }
	case $r in
	0) printf '  %s$ kv %-34s -> %s\n' "$P$h" "$shown" "${out:-ok}" ;;
	1) printf '  %s$ kv %-34s -> exit 1: not found\n' "$P$h" "$shown" ;;
	*) printf '  %s$ kv %-34s -> exit %s: %s\n' "$P$h" "$shown" "$r" "$out" ;;
	esac
	[ "$r" = "$want_rc" ] || { fail "expected exit $want_rc"; return; }
	[ -z "$want_out" ] || [ "$out" = "$want_out" ] ||
		fail "expected '$want_out'"
}

# jget VAR FIELD: VAR = the number FIELD of the kv merge JSON in $res
# (bash only: every process costs seconds in a loaded TCG guest)
jget() {
	local re="\"$2\": ([0-9.]+)"
	[[ $res =~ $re ]] && printf -v "$1" %s "${BASH_REMATCH[1]}"
}

for b in kv-server kv; do
	[ -x "$B/$b" ] || { echo "PRISM-KV: $B/$b missing (make -C apps/kv)"; exit 1; }
done
demo_init kvd 4

echo "PRISM-KV: hash table served by one-sided chains; Pilaf baseline beside it"
start_server prism 1 100 --slots 1024 --bufs 512 ||
	{ echo "  PRISM-KV server did not start"; exit 1; }
start_server pilaf 2 101 --mode pilaf --slots 1024 --bufs 512 ||
	{ echo "  Pilaf server did not start"; exit 1; }
echo "  PRISM-KV server on ${P}1 (pid ${srv[prism]}), Pilaf server on ${P}2 (pid ${srv[pilaf]})"
echo "  clients on ${P}3 and ${P}4"

echo "CLI operations (PRISM-KV):"
t0=$(cpu_ticks "${srv[prism]}")
op 3 0 "" put greeting "hello from ${P}3"
op 4 0 "hello from ${P}3" get greeting
op 4 0 "" put greeting "overwritten by ${P}4"
op 3 0 "overwritten by ${P}4" get greeting
op 3 0 "" delete greeting
op 4 1 "" get greeting
op 4 1 "" get no-such-key
op 3 0 "" put greeting "back again"
op 4 0 "back again" get greeting
t1=$(cpu_ticks "${srv[prism]}")
echo "  PRISM-KV server CPU during these operations: $((t1 - t0)) ticks" \
	"(PUTs only send it batched buffer reports; GETs never wake it)"

echo "benchmark: YCSB-B (95% GET / 5% PUT), Zipf, $RECORDS records of 512 B," \
	"2 clients x ${SECS} s per store:"
printf '  %-9s %10s %10s %10s %12s\n' store "ops/s" "mean us" "p99 us" "server CPU"
for s in prism pilaf; do
	if ! kvc 3 $s bench --load --records $RECORDS >"$tmp/load-$s" 2>&1; then
		sed 's/^/    /' "$tmp/load-$s"
		fail "$s: loading $RECORDS records"
		continue
	fi
	t0=$(cpu_ticks "${srv[$s]}")
	pids=()
	for h in 3 4; do
		kvc $h $s bench --workload B --dist zipf --records $RECORDS \
			--seconds "$SECS" --out "$tmp/bench-$s-$h" >"$tmp/bench-$s-$h.err" 2>&1 &
		pids+=($!)
	done
	brc=0
	for p in "${pids[@]}"; do wait "$p" || brc=1; done
	t1=$(cpu_ticks "${srv[$s]}")
	if [ "$brc" != 0 ] || ! res=$("$B/kv" merge "$tmp"/bench-$s-3 "$tmp"/bench-$s-4); then
		cat "$tmp"/bench-$s-*.err | sed 's/^/    /'
		fail "$s: benchmark"
		continue
	fi
	tput=0 ops=0 errs=1 mean='?' p99='?'
	jget tput throughput
	jget ops ops
	jget errs errors
	jget mean mean_us
	jget p99 p99_us
	printf -v "tput_$s" %s "$tput"
	printf -v "ops_$s" %s "$ops"
	printf -v "err_$s" %s "$errs"
	name=PRISM-KV
	[ $s = prism ] || name=Pilaf
	printf '  %-9s %10s %10s %10s %8s ticks\n' $name "$tput" "$mean" "$p99" $((t1 - t0))
done
if [ -n "${tput_prism:-}" ] && [ -n "${tput_pilaf:-}" ]; then
	awk -v a="$tput_prism" -v b="$tput_pilaf" 'BEGIN {
		if (b > 0) printf "  PRISM-KV / Pilaf throughput: %.2fx (one round trip per GET instead of two; TCG guest, compare ratios only)\n", a / b }'
	[ "${ops_prism:-0}" -gt 0 ] && [ "${ops_pilaf:-0}" -gt 0 ] ||
		fail "a benchmark made no progress"
	[ "${err_prism:-1}" = 0 ] && [ "${err_pilaf:-1}" = 0 ] ||
		fail "benchmark operations failed (prism ${err_prism:-?}, pilaf ${err_pilaf:-?})"
fi
stop_server prism
echo "  PRISM-KV server at exit: $(sed -n 's/^kv-server: exiting: //p' "$tmp/prism.log")"
exit $rc
