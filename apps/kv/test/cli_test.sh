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
tap_finish
