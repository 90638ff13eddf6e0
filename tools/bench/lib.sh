# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shell helpers for the benchmarks run INSIDE the guest as root (indirect.sh,
# uring.sh, kv.sh).  Source this file, then call bench_begin.
#
#   bench_begin NAME          messages as "NAME: ...", a temporary $work,
#                             everything below undone on exit
#   fail MSG...               print NAME: MSG to stderr and exit 1
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
#   bench_plot PNG TITLE      gnuplot: two stacked histogram plots (PNG,
#                             1100x800) under TITLE; the rest of the
#                             gnuplot script (ylabels, plots) on stdin; a
#                             failure is reported, not fatal
#
# shellcheck source=../lib/hosts.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/hosts.sh"

bench_name=bench
bench_pids=()
bench_netns=()
bench_hosts=()
bench_modules=()
work=

fail() { echo "$bench_name: $*" >&2; exit 1; }

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
	work=$(mktemp -d "/tmp/$1.XXXXXX") || fail "mktemp"
	trap bench_cleanup EXIT
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
