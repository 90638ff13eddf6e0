#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command in N qemu guests at once, joined by one virtual Ethernet
# segment: real hosts, each with its own kernel, for PRISM across NICs.
#
# Usage: tools/vm/multi.sh [-n N] [--timeout SEC] [--mem MB] [--mem0 MB] [--mtu MTU]
#                          [--kernel K] [--smp N] [--queues Q] [--logs DIR]
#                          -- CMD [ARGS...]
#
# Each guest is a tools/vm/run.sh guest (--kernel K, default stock; --smp
# N vCPUs, default 1; --mem MB, default 1024; --mem0 MB for guest 0
# alone, a server holding much data, default --mem) with a virtio-net NIC named
# eth0 (MAC 52:54:00:50:<run>:<i>, MTU --mtu, default 1500) on one qemu
# multicast hub (a random group and port per run, on 127.0.0.1): every
# frame one guest sends reaches all the others.  With --queues Q the NICs
# have Q queue pairs each and are joined instead by a bridge on the host
# (pmq<run>) of multi-queue taps (pmq<run>t<i>), created for the run and
# removed after it: this needs root and /dev/net/tun on the host.  The
# host's tap picks the queue of each frame it hands a guest by a hash of
# the frame's flow (addresses and ports), as a NIC's RSS does.
# Every guest runs the same CMD (argv or, as one argument, a shell line)
# with PRISM_GUEST=i (0..N-1), PRISM_GUESTS=N and PRISM_MH_DIR = a fresh
# directory under $PRISM_OUT that all guests can write: exchange info
# files and ready/done markers there.  When guest i ends, multi.sh writes
# its exit status to $PRISM_MH_DIR/.ended-<i>, so the others can wait for
# that.  A guest that means to die (to show a crash: e.g. echo b >
# /proc/sysrq-trigger) first writes $PRISM_MH_DIR/.poweroff-<i>: its end
# without an exit status (run.sh's 125) then counts as 0.
#
# Guest 0's output goes to stdout (and DIR/guest0.log); guest i's to
# DIR/guest<i>.log; kernel logs to DIR/dmesg-guest<i>.txt.  DIR defaults
# to the run's directory $PRISM_OUT/multi-<time>-<pid> (which also holds
# the shared directory, shared/).  Progress (booting, ready, done, times)
# is printed on stderr.  Guests still running a grace period (default
# 60 s, PRISM_MULTI_GRACE) after guest 0 ended are stopped.
#
# Exit status: guest 0's if non-zero, else the first non-zero status of
# the others (run.sh's: 124 timeout, 125 guest died), else 0; 2 for
# usage errors.
#
# Environment: as tools/vm/run.sh (PRISM_OUT, PRISM_KO...: every PRISM_*
# variable reaches the guests).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
n=3 tmo=600 mem=1024 mem0= mtu=1500 kernel=stock smp=1 queues=0 logs=
grace=${PRISM_MULTI_GRACE:-60}

usage() {
	sed -n '3,/^set -euo/{/^set -euo/!p;}' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	-n) n=${2:?}; shift 2 ;;
	--timeout) tmo=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--mem0) mem0=${2:?}; shift 2 ;;
	--mtu) mtu=${2:?}; shift 2 ;;
	--kernel) kernel=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--queues) queues=${2:?}; shift 2 ;;
	--logs) logs=${2:?}; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage 0 ;;
	*) echo "multi.sh: unknown option '$1'" >&2; usage ;;
	esac
done
[ $# -ge 1 ] || usage
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 250 ] ||
	{ echo "multi.sh: -n 1..250" >&2; exit 2; }
[[ $smp =~ ^[1-8]$ ]] || { echo "multi.sh: --smp 1..8" >&2; exit 2; }
[[ $queues =~ ^[0-8]$ ]] || { echo "multi.sh: --queues 0..8 (0: the hub)" >&2; exit 2; }

say() { echo "multi: $*" >&2; }
now() { date +%s; }

export PRISM_OUT=${PRISM_OUT:-$(cd "$here/../.." && pwd)/build/vm-out}
mkdir -p "$PRISM_OUT"
PRISM_OUT=$(cd "$PRISM_OUT" && pwd -P)
base=$PRISM_OUT/multi-$(date +%Y%m%d-%H%M%S)-$$
export PRISM_MH_DIR=$base/shared
[ -n "$logs" ] || logs=$base
mkdir -p "$PRISM_MH_DIR" "$logs"
logs=$(cd "$logs" && pwd -P)

# One hub per run: a random multicast group and port, MACs with the run
# byte, so concurrent runs do not hear each other.
run=$((RANDOM % 256))
group=239.255.$((RANDOM % 256)).$((RANDOM % 254 + 1))
port=$((20000 + RANDOM % 40000))
hub="socket,mcast=$group:$port,localaddr=127.0.0.1"
mac_of() { printf '52:54:00:50:%02x:%02x' "$run" "$1"; }
net_of() { echo "$hub"; }

# --queues: a host bridge of multi-queue taps instead of the hub.
br=
taps_down() {
	local i
	[ -n "$br" ] || return 0
	for i in $(seq 0 $((n - 1))); do
		ip link del "${br}t$i" 2> /dev/null || true
	done
	ip link del "$br" 2> /dev/null || true
	return 0
}
if [ "$queues" -gt 0 ]; then
	[ -c /dev/net/tun ] && [ "$(id -u)" = 0 ] ||
		{ echo "multi.sh: --queues needs root and /dev/net/tun" >&2; exit 2; }
	br=pmq$run
	trap taps_down EXIT
	ip link add "$br" type bridge ||
		{ echo "multi.sh: cannot create bridge $br" >&2; br=; exit 2; }
	for i in $(seq 0 $((n - 1))); do
		ip tuntap add dev "${br}t$i" mode tap multi_queue &&
			ip link set "${br}t$i" mtu "$mtu" master "$br" up ||
			{ echo "multi.sh: cannot create tap ${br}t$i" >&2; exit 2; }
	done
	ip link set "$br" up || { echo "multi.sh: cannot bring $br up" >&2; exit 2; }
	net_of() { echo "tap,ifname=${br}t$1,script=no,downscript=no,queues=$queues,vhost=off"; }
fi

# The guests mark themselves ready (booted, eth0 up) before the command.
# shellcheck disable=SC2016
wrap='echo up > "$PRISM_MH_DIR/.booted-$PRISM_GUEST"
if [ $# -eq 1 ]; then exec sh -c "$1"; else exec "$@"; fi'

declare -a pid=() status=() up_t=() done_t=()
t0=$(now)
say "run $base: $n guests ($kernel kernel, $smp vCPU, $mem MB${mem0:+ (guest 0: $mem0 MB)}, timeout ${tmo}s each)"
if [ -n "$br" ]; then
	say "link: host bridge $br of taps with $queues queue pairs each, MTU $mtu; shared dir $PRISM_MH_DIR"
else
	say "hub: qemu multicast $group:$port on 127.0.0.1, MTU $mtu; shared dir $PRISM_MH_DIR"
fi
for i in $(seq 0 $((n - 1))); do
	say "guest $i: booting, MAC $(mac_of "$i")$([ "$i" = 0 ] && echo ", output below" || echo ", output in $logs/guest$i.log")"
	m=$mem
	[ "$i" = 0 ] && m=${mem0:-$mem}
	args=(--kernel "$kernel" --smp "$smp" --mem "$m" --timeout "$tmo"
		--dmesg "$logs/dmesg-guest$i.txt"
		--net "$(net_of "$i")" --net-queues "$((queues > 0 ? queues : 1))"
		--mac "$(mac_of "$i")" --mtu "$mtu"
		-- sh -c "$wrap" multi-guest "$@")
	if [ "$i" = 0 ]; then
		PRISM_GUEST=$i PRISM_GUESTS=$n "$here/run.sh" "${args[@]}" \
			> >(tee "$logs/guest0.log") 2>&1 < /dev/null &
	else
		PRISM_GUEST=$i PRISM_GUESTS=$n "$here/run.sh" "${args[@]}" \
			> "$logs/guest$i.log" 2>&1 < /dev/null &
	fi
	pid[i]=$!
done

stop_all() {
	local i
	for i in "${!pid[@]}"; do
		[ -z "${status[i]:-}" ] && kill -TERM "${pid[i]}" 2>/dev/null
	done
	for i in "${!pid[@]}"; do
		[ -z "${status[i]:-}" ] && wait "${pid[i]}" 2>/dev/null
	done
}
trap 'trap - INT TERM HUP; say "interrupted: stopping the guests"; stop_all; exit 130' INT TERM HUP

# Watch: report each guest as it comes up and as it ends.
left=$n g0_end=
while [ "$left" -gt 0 ]; do
	for i in $(seq 0 $((n - 1))); do
		if [ -z "${up_t[i]:-}" ] && [ -s "$PRISM_MH_DIR/.booted-$i" ]; then
			up_t[i]=$(($(now) - t0))
			say "guest $i: ready after ${up_t[i]}s (booted, eth0 up, starting the command)"
		fi
		if [ -z "${status[i]:-}" ] && ! kill -0 "${pid[i]}" 2>/dev/null; then
			st=0
			wait "${pid[i]}" || st=$?
			done_t[i]=$(($(now) - t0))
			left=$((left - 1))
			if [ "$st" = 125 ] && [ -s "$PRISM_MH_DIR/.poweroff-$i" ]; then
				say "guest $i: gone after ${done_t[i]}s, as it announced ($(head -n 1 "$PRISM_MH_DIR/.poweroff-$i")): counted as exit status 0"
				st=0
				echo "died as announced" > "$PRISM_MH_DIR/.ended-$i"
			else
				say "guest $i: done after ${done_t[i]}s, exit status $st"
				echo "exit status $st" > "$PRISM_MH_DIR/.ended-$i"
			fi
			status[i]=$st
			[ "$i" = 0 ] && g0_end=$(now)
		fi
	done
	if [ -n "$g0_end" ] && [ "$left" -gt 0 ] && [ $(($(now) - g0_end)) -ge "$grace" ]; then
		say "guest 0 ended ${grace}s ago: stopping the $left others"
		for i in $(seq 1 $((n - 1))); do
			[ -z "${status[i]:-}" ] && kill -TERM "${pid[i]}" 2>/dev/null
		done
		g0_end=
	fi
	[ "$left" -gt 0 ] && sleep 0.5
done
trap - INT TERM HUP

rc=${status[0]}
if [ "$rc" = 0 ]; then
	for i in $(seq 1 $((n - 1))); do
		[ "${status[i]}" = 0 ] || { rc=${status[i]}; break; }
	done
fi
say "all $n guests done in $(($(now) - t0))s; statuses: ${status[*]}; logs in $logs"
exit "$rc"
