# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shell helpers for tests and benchmarks run inside the guest (as root):
# hosts are network namespaces on one bridge.  Source this file, or
# prism_lib.sh (which has it, the waits and TAP output).
#
#   hosts_up PREFIX N         netns PREFIX1..PREFIXN, each with eth0 on bridge
#                             br-PREFIX (in the guest's root netns); MTU 1500
#   hosts_down PREFIX N       remove them
#   host_exec PREFIX I CMD... run CMD in host I.  In the background ("&")
#                             $! is the function's subshell, not CMD: a
#                             process that must be signalled or watched is
#                             started with ip netns exec PREFIXI CMD... &
#   host_mac PREFIX I         MAC of host I's eth0
#   hosts_mtu PREFIX N MTU    MTU of every host's eth0, its bridge port and
#                             the bridge (e.g. 9000 for jumbo frames)
#   hosts_netem PREFIX N add ARGS... | del
#                             a netem qdisc (e.g. loss 2%) on every host's
#                             eth0, or none
#   host_stat PREFIX I NAME   counter NAME of /proc/net/prism in host I
#   host_link PREFIX I        what PRISM programs of host I bind to: eth0,
#                             or with PRISM_LINK=udp "udp:10.250.0.I"
#                             (hosts_up then gives each eth0 that address:
#                             the suite runs over UDP, prism(7))
#
# Also sourced from here, for the scripts that source only this file:
# wait.sh (wait_file FILE MS [PID], proc_exited PID, ...) and module.sh
# (prism_load KO).

# shellcheck source=wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/wait.sh"
# shellcheck source=module.sh
. "$(dirname "${BASH_SOURCE[0]}")/module.sh"

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
		if [ "${PRISM_LINK:-eth}" = udp ]; then
			ip -n "$p$i" addr add "10.250.0.$i/24" dev eth0 || return 1
		fi
	done
}

host_link() {
	if [ "${PRISM_LINK:-eth}" = udp ]; then
		echo "udp:10.250.0.$2"
	else
		echo eth0
	fi
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

hosts_mtu() {
	local p=$1 n=$2 mtu=$3 i
	for i in $(seq "$n"); do
		ip link set "v-$p$i" mtu "$mtu" || return 1
		ip -n "$p$i" link set eth0 mtu "$mtu" || return 1
	done
	ip link set "br-$p" mtu "$mtu"
}

hosts_netem() {
	local p=$1 n=$2 i r=0
	shift 2
	modprobe -q sch_netem 2>/dev/null
	for i in $(seq "$n"); do
		if [ "$1" = del ]; then
			ip netns exec "$p$i" tc qdisc del dev eth0 root 2>/dev/null
		else
			ip netns exec "$p$i" tc qdisc add dev eth0 root netem "${@:2}" || r=1
		fi
	done
	return $r
}

host_stat() {
	ip netns exec "$1$2" awk -v k="$3" '$1 == k { print $2 }' /proc/net/prism
}

host_mac() {
	ip netns exec "$1$2" cat /sys/class/net/eth0/address
}
