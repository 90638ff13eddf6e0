# SPDX-License-Identifier: MIT
# Shell helpers for tests and benchmarks run inside the guest (as root):
# hosts are network namespaces on one bridge.  Source this file.
#
#   hosts_up PREFIX N         netns PREFIX1..PREFIXN, each with eth0 on bridge
#                             br-PREFIX (in the guest's root netns); MTU 1500
#   hosts_down PREFIX N       remove them
#   host_exec PREFIX I CMD... run CMD in host I
#   host_mac PREFIX I         MAC of host I's eth0
#   wait_file FILE MS [PID]   wait until FILE is non-empty: at most MS
#                             milliseconds, and only while PID lives
#   proc_exited PID           PID is gone or a zombie
#   prism_load KO             insmod KO unless prism is loaded (0 on success)

hosts_up() {
	local p=$1 n=$2 i
	modprobe -q veth 2>/dev/null
	modprobe -q bridge 2>/dev/null
	ip link add name "br-$p" type bridge || return 1
	ip link set "br-$p" up
	for i in $(seq "$n"); do
		ip netns add "$p$i" || return 1
		ip link add name "v-$p$i" type veth peer name eth0 netns "$p$i" ||
			return 1
		ip link set "v-$p$i" master "br-$p" up
		ip -n "$p$i" link set eth0 up
		ip -n "$p$i" link set lo up
	done
}

hosts_down() {
	local p=$1 n=$2 i
	for i in $(seq "$n"); do
		ip netns del "$p$i" 2>/dev/null
	done
	ip link del "br-$p" 2>/dev/null
	return 0
}

host_exec() {
	local p=$1 i=$2
	shift 2
	ip netns exec "$p$i" "$@"
}

host_mac() {
	ip netns exec "$1$2" cat /sys/class/net/eth0/address
}

# proc_exited PID: the process is gone or a zombie (kill -0 still succeeds
# on a zombie its parent has not reaped yet).
proc_exited() {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 0
	st=${st##*) }	# after "pid (comm) ": comm may hold spaces
	[ "${st%% *}" = Z ]
}

wait_file() {
	# Wall-clock bound: under TCG a loop of N short sleeps takes far
	# longer than N x the sleep.  With PID, give up as soon as it exits.
	local f=$1 ms=$2 pid=${3:-} end
	end=$(($(date +%s%3N) + ms))
	until [ -s "$f" ]; do
		[ "$(date +%s%3N)" -ge "$end" ] && return 1
		[ -n "$pid" ] && proc_exited "$pid" && ! [ -s "$f" ] && return 1
		sleep 0.02
	done
}

prism_load() {
	[ -d /sys/module/prism ] && return 0
	insmod "$1"
}
