#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Host tests of the kv CLI that need no server (make check): kv bench's
# argument bounds and kv merge, which combines the result files of
# clients on several hosts (counts, throughput, histograms, the timeline
# summed interval by interval).
#
#   apps/kv/test/cli_test.sh build/kv
set -u
KV=$(realpath "${1:?usage: cli_test.sh KV_BINARY}")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../../tools/lib/tap.sh
. "$here/../../../tools/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_header
echo "# $KV"
# status_of CMD...: its exit status
status_of() { "$@" > "$tmp/out" 2> "$tmp/err"; echo $?; }

# Refused before any server is contacted (exit 2, usage on stderr).
for args in "--depth 0" "--depth 257" "--theta -0.5" "--theta 11" \
	"--seconds 0" "--seconds 1000 --interval 1" "--records 0" "--value 70000"; do
	# shellcheck disable=SC2086
	st=$(status_of env KV_INFO=/nonexistent "$KV" bench $args)
	check "bench $args: refused with status 2 (got $st)" '[ "$st" = 2 ] && grep -q usage "$tmp/err"' \
		'cat "$tmp/err"'
done

# result FILE OPS ERRORS SECS [TIMELINE...]: a kv bench result file whose
# histogram holds OPS samples of 100 ns each.
result() {
	local f=$1 ops=$2 errs=$3 secs=$4
	shift 4
	{
		echo "run $ops $errs $secs"
		echo "hist $ops $((ops * 100)) 100"
		echo "100 $ops"
		echo "end"
		echo "counters probes=$ops torn_reads=1 cas_failures=2 no_buffer=0 recycled=0"
		[ $# -gt 0 ] && echo "timeline $*"
	} > "$f"
}
# field NAME: of the JSON in $tmp/out
field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(v)' "$tmp/out" "$1"; }

result "$tmp/a" 100 0 1.0 250 10 20 30 40 5
result "$tmp/b" 300 2 2.0 250 1 2 3 4 0
st=$(status_of "$KV" merge "$tmp/a" "$tmp/b")
check "merge of two hosts' results: status 0" '[ "$st" = 0 ]' 'cat "$tmp/err"'
check "merged: clients 2, ops 400, errors 2" \
	'[ "$(field clients) $(field ops) $(field errors)" = "2 400 2" ]' 'cat "$tmp/out"'
check "merged throughput is the sum of each file's (100/1 + 300/2 = 250)" \
	'[ "$(field throughput)" = 250.0 ]' 'cat "$tmp/out"'
check "merged histogram: p50 and p99 of 100 ns samples are 0.1 us" \
	'[ "$(field p50_us) $(field p99_us)" = "0.1 0.1" ]' 'cat "$tmp/out"'
check "merged counters: torn reads 2, CAS failures 4" \
	'[ "$(field torn_reads) $(field cas_failures)" = "2 4" ]' 'cat "$tmp/out"'
check "timeline summed per interval in ops/s, the last (partial) interval left out" \
	'[ "$(field interval_ms)" = 250 ] && [ "$(field timeline)" = "44 88 132 176" ]' 'cat "$tmp/out"'

result "$tmp/c" 100 0 1.0
st=$(status_of "$KV" merge "$tmp/a" "$tmp/c")
check "a file without a timeline: merged (status $st) without one" \
	'[ "$st" = 0 ] && ! grep -q timeline "$tmp/out"' 'cat "$tmp/out" "$tmp/err"'

result "$tmp/d" 100 0 1.0 100 1 2 3
st=$(status_of "$KV" merge "$tmp/a" "$tmp/d")
check "timelines of different intervals: refused with status 3 (got $st)" \
	'[ "$st" = 3 ] && grep -q "timeline of 100 ms" "$tmp/err"' 'cat "$tmp/err"'

echo "run 1 0" > "$tmp/e"
st=$(status_of "$KV" merge "$tmp/a" "$tmp/e")
check "a malformed file: refused with status 3 (got $st)" \
	'[ "$st" = 3 ] && grep -q malformed "$tmp/err"' 'cat "$tmp/err"'
check "merged counters: probes 400, no_buffer 0 (summed by name)" \
	'"$KV" merge "$tmp/a" "$tmp/b" > "$tmp/out" && [ "$(field probes) $(field no_buffer)" = "400 0" ]' 'cat "$tmp/out"'
st=$(status_of "$KV" merge "$tmp/a" "$tmp/missing")
check "a missing file: refused with status 3 (got $st)" '[ "$st" = 3 ]' 'cat "$tmp/err"'
# The load of memcached pipelines its sets (64 in flight): every record
# must be there, whole, afterwards (a local memcached on a free port).
if command -v memcached > /dev/null; then
	port=$((20000 + RANDOM % 20000))
	memcached -u "$(id -un)" -l 127.0.0.1 -p $port -U 0 -t 1 -m 64 -P "$tmp/mc.pid" -d 2> "$tmp/mc.err"
	for _ in $(seq 50); do
		"$KV" --memcached 127.0.0.1:$port bench --load --records 1 > /dev/null 2>&1 && break
		sleep 0.1
	done
	st=$(status_of "$KV" --memcached 127.0.0.1:$port bench --load --records 3000 --value 700)
	check "memcached: 3000 records of 700 bytes loaded, pipelined (status $st)" \
		'[ "$st" = 0 ] && grep -q "loaded 3000 records" "$tmp/out"' 'cat "$tmp/out" "$tmp/err"'
	"$KV" --memcached 127.0.0.1:$port bench --workload C --dist uniform --records 3000 \
		--value 700 --seconds 0.5 --out "$tmp/mc.res" > /dev/null 2>&1
	check "memcached: then every GET read a whole 700-byte value of its record" \
		'read -r _ ops errs _ < "$tmp/mc.res" && [ "$ops" -gt 0 ] && [ "$errs" = 0 ]' 'cat "$tmp/mc.res"'
	kill "$(cat "$tmp/mc.pid" 2> /dev/null)" 2> /dev/null
else
	skip "memcached: pipelined load" "memcached is not installed"
	skip "memcached: GETs after the load" "memcached is not installed"
fi
tap_finish
