# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shell helpers for the benchmarks run INSIDE the guest as root (indirect.sh,
# uring.sh, kv.sh, large.sh, depth.sh, incast.sh).  Source this file, then
# call bench_begin.  It sets $bench_dir (tools/bench), $repo (the
# checkout) and $KO (PRISM_KO, default $repo/kmod/prism.ko).
#
#   bench_begin NAME [TAP]    messages as "NAME: ...", a temporary $work,
#                             everything below undone on exit; TAP=1 (a
#                             smoke run): tools/lib/tap.sh sourced,
#                             "TAP version 13" now, and fail is a
#                             "Bail out!"
#   fail MSG...               print NAME: MSG to stderr and exit 1
#   bench_raw DIR             $out = DIR, $raw = DIR/NAME-raw, created
#                             and emptied: the raw outputs of the run
#   bench_server READY LOG CMD...
#                             CMD in the background (killed on exit),
#                             its output in LOG; fails unless it writes
#                             the file READY within 60 s
#   bench_report SCRIPT ARGS...
#                             python3 SCRIPT ARGS into $work/report.txt
#                             (fails if it does), its lines but the
#                             "CHECK 0|1 what" ones printed as comments
#   bench_finish EXTS         the last call: copies the plot
#                             $work/NAME.png to $out; with TAP, one test
#                             for $failed (client runs that failed), one
#                             per CHECK line of the report, one for the
#                             PNG, then tap_finish's status; else the
#                             failed CHECKs as comments, where the
#                             results are ($out/NAME.EXTS, $raw), and
#                             status 0 iff $failed is 0
#   bench_log MSG...          "# NAME: MSG" on stdout
#   bench_note WHAT FILE      "# NAME: WHAT failed:" and the last lines of
#                             FILE (a client's output), as comments
#   prism_counters [NETNS] > FILE
#                             the counters of /proc/net/prism ("name value")
#   counter_deltas BEFORE AFTER
#                             "name=delta" of every counter of two such
#                             files, on one line
#   need_binary B MAKEDIR     fail unless B is built (make -C MAKEDIR)
#   load_module NAME KO [PARAM=V...]
#                             insmod KO unless NAME is loaded; if this
#                             loaded it, it is unloaded on exit
#   unload_module NAME        rmmod NAME now (and not again on exit)
#   veth_pair NSA IFA MACA NSB IFB MACB
#                             netns NSA and NSB (recreated) joined by a
#                             veth pair, lo and the pair up
#   bench_hosts PREFIX N      hosts_up PREFIX N (tools/lib/hosts.sh: netns
#                             PREFIX1..N on bridge br-PREFIX), removed on exit
#   bench_pids+=($!)          background job killed on exit
#   wait_file FILE MS [PID]   from tools/lib/wait.sh (sourced by hosts.sh)
#   wait_ready FILE PID [FILE PID...]
#                             clients that write FILE once set up (kv
#                             bench, rs_client --ready): wait for each (2
#                             min at most, while its PID lives); status 1
#                             at the first that never appears.  Then the
#                             caller creates their --start file: they all
#                             start at once
#   bench_plot PNG TITLE      gnuplot: two stacked histogram plots (PNG,
#                             1100x800) under TITLE; the rest of the
#                             gnuplot script (ylabels, plots) on stdin; a
#                             failure is reported, not fatal
#   ab_alternate R FN         A/B scripts: R rounds of runs of builds A
#                             and B in alternating order (A B, B A, ...,
#                             so that drift of a loaded TCG guest hits
#                             both alike): FN K W for run K (1..2R) of W
#                             (A or B); status 1 at the first that fails
#
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$bench_dir/../.." && pwd)
KO=${PRISM_KO:-$repo/kmod/prism.ko}
# shellcheck source=../lib/hosts.sh
. "$bench_dir/../lib/hosts.sh"

bench_name=bench
bench_pids=()
bench_netns=()
bench_hosts=()
bench_modules=()
work=

bench_tap=0

fail() {
	[ "$bench_tap" = 1 ] && tap_bail "$bench_name: $*"
	echo "$bench_name: $*" >&2
	exit 1
}
bench_log() { echo "# $bench_name: $*"; }

bench_note() {
	bench_log "$1 failed:"
	tail -5 "$2" | sed 's/^/#   /'
}

prism_counters() {
	if [ -n "${1:-}" ]; then
		ip netns exec "$1" cat /proc/net/prism
	else
		cat /proc/net/prism
	fi
}

counter_deltas() {
	awk 'NR == FNR { b[$1] = $2; next }
	     ($1 in b) && $2 ~ /^[0-9]+$/ { printf "%s%s=%d", sep, $1, $2 - b[$1]; sep = " " }
	     END { print "" }' "$1" "$2"
}

bench_cleanup() {
	local p ns m
	for p in "${bench_pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for ns in "${bench_netns[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	for ns in "${bench_hosts[@]}"; do
		hosts_down ${ns% *} ${ns#* }
	done
	for m in "${bench_modules[@]}"; do
		rmmod "$m" 2>/dev/null
	done
	[ -n "$work" ] && rm -rf "$work"
	return 0
}

bench_begin() {
	bench_name=$1
	bench_tap=${2:-0}
	if [ "$bench_tap" = 1 ]; then
		# shellcheck source=../lib/tap.sh
		. "$repo/tools/lib/tap.sh"
		tap_header
	fi
	work=$(mktemp -d "/tmp/$1.XXXXXX") || fail "mktemp"
	trap bench_cleanup EXIT
}

bench_raw() {
	out=$1
	raw=$out/$bench_name-raw
	mkdir -p "$raw" || fail "cannot create $raw"
	rm -f "$raw"/*
}

bench_server() {
	local ready=$1 log=$2
	shift 2
	"$@" > "$log" 2>&1 &
	bench_pids+=($!)
	wait_file "$ready" 60000 $! || { cat "$log"; fail "server did not start (its output: $log)"; }
}

bench_report() {
	python3 "$@" > "$work/report.txt" 2>&1 ||
		{ cat "$work/report.txt"; fail "$(basename "$1") failed"; }
	grep -v '^CHECK ' "$work/report.txt" | sed 's/^/# /'
}

bench_finish() {
	local png=$out/$bench_name.png rc what
	cp "$work/$bench_name.png" "$png" 2>/dev/null
	if [ "$bench_tap" = 1 ]; then
		tap_result "$failed" "every client run exited 0 ($failed failed)"
		while read -r _ rc what; do
			tap_result "$rc" "$what"
		done < <(grep '^CHECK ' "$work/report.txt")
		tap_check "$bench_name.png is a PNG" '[ "$(head -c 4 "$png" | tail -c 3)" = PNG ]'
		tap_finish
		return
	fi
	grep '^CHECK 1' "$work/report.txt" | sed "s/^CHECK 1/# $bench_name: check failed:/"
	bench_log "results: $out/$bench_name.$1, raw outputs in $raw"
	[ "$failed" = 0 ]
}

need_binary() {
	[ -x "$1" ] || fail "$1 is missing: run 'make -C $2' on the host"
}

load_module() {
	local name=$1 ko=$2
	shift 2
	[ -d "/sys/module/$name" ] && return 0
	insmod "$ko" "$@" || return 1
	bench_modules+=("$name")
}

unload_module() {
	local m keep=()
	rmmod "$1" || return 1
	for m in "${bench_modules[@]}"; do
		[ "$m" != "$1" ] && keep+=("$m")
	done
	bench_modules=("${keep[@]}")
}

bench_plot() {
	{
		cat <<EOF
set terminal pngcairo size 1100,800 font ",10" noenhanced
set output "$1"
set multiplot layout 2,1 title "$2"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
EOF
		cat
		echo "unset multiplot"
	} | gnuplot ||
		echo "$bench_name: gnuplot failed (results are in the JSON)" >&2
}

bench_hosts() {
	bench_hosts+=("$1 $2")
	hosts_up "$1" "$2"
}

veth_pair() {
	local nsa=$1 ifa=$2 maca=$3 nsb=$4 ifb=$5 macb=$6 ns
	modprobe -q veth 2>/dev/null
	# Left over from an interrupted run?
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
	bench_netns+=("$nsa" "$nsb")
	ip netns add "$nsa" || fail "ip netns add $nsa"
	ip netns add "$nsb" || fail "ip netns add $nsb"
	ip link add name "$ifa" address "$maca" netns "$nsa" type veth \
		peer name "$ifb" address "$macb" netns "$nsb" || fail "veth"
	for ns in "$nsa" "$nsb"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$nsa" link set "$ifa" up
	ip -n "$nsb" link set "$ifb" up
}

wait_ready() {
	while [ $# -ge 2 ]; do
		wait_file -i 0.05 "$1" 120000 "$2" ||
			{ echo "$bench_name: $1 never appeared" >&2; return 1; }
		shift 2
	done
}

ab_alternate() {
	local r k=0 w order
	for r in $(seq "$1"); do
		if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
		for w in $order; do
			k=$((k + 1))
			"$2" "$k" "$w" || return 1
		done
	done
}
