#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UDP mode (issue 20; prism(7), "UDP"), run as root inside the test VM.
# Prints TAP.  Hosts are network namespaces:
#
#   ud1 (target)  10.77.1.1  fd77:1::1  --+
#   ud2 (client)  10.77.1.2  fd77:1::2  --+-- bridge br-ud
#   udr (router)  10.77.1.254 fd77:1::fe -+
#       udr eth1  10.77.2.254 fd77:2::fe --- veth --- ud3 (client, another
#                                                      subnet) 10.77.2.3
#                                                      fd77:2::3
#
#  - isolation first: ud3 has no PRISM socket; a chain to it times out
#    (nothing answers, not even NO_ENDPOINT), ud3 counted nothing and has
#    no UDP socket open;
#  - targets in ud1 bound to 10.77.1.1 (ep 1), fd77:1::1 (ep 2) and to
#    any address (ep 3); the core client cases (every op, SEND, chains,
#    io_uring, errors) from ud2 over IPv4 and IPv6, and over the
#    link-local IPv6 address of ud1 (fe80::...%eth0, to the socket bound
#    to any); the UDP address errors (case udp_errno); prismctl shows the
#    endpoints' addresses and port, and the clients' UDP peers;
#  - routed: from ud3 through udr (forwarding on) to ud1, IPv4 and IPv6;
#    the frames crossed the router (its forwarding counters grew);
#  - reliability: 2 clients x UDP_N CAS increments of one counter (of the
#    target bound to any address) from ud2 (IPv4) and ud3 (IPv6, routed)
#    under netem loss, duplication and
#    reordering on ud1, ud2 and ud3: the counter is exact and chains were
#    sent again;
#  - path MTU: the router's link to ud3 gets MTU 1280; 8 KiB READs from
#    ud3 make the router send ICMP "fragmentation needed" / "packet too
#    big" to ud1, whose route to ud3 learns the path MTU; READs after it
#    all complete whole;
#  - the applications over UDP: PRISM-KV (and the Pilaf baseline, whose
#    RPC answers are SENDs to the sender's address): PUT/GET over IPv4
#    and routed IPv6, a 2-client history (one behind the router)
#    linearizable; PRISM-RS: 3 replicas on 3 hosts, 2 clients, history
#    linearizable; PRISM-TX and FaRM: 2 shards, a bank from behind the
#    router, total kept, history serializable;
#  - a namespace with a UDP endpoint deleted after its process exited,
#    the module unloaded with no socket left: no splat (the VM harness
#    checks the kernel log).
#
# Env: PRISM_KO (module to load if prism is not loaded), PRISMCTL
#      (default tools/prismctl/prismctl), UDP_N (CAS
#      increments per client, 150), UDP_NETEM (netem arguments),
#      PRISM_GUEST_APPS (0: skip PRISM-KV, -RS and -TX over UDP).
# Build first on the host: make -C selftests.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# shellcheck source=../../../tools/lib/prism_lib.sh
. "$repo/tools/lib/prism_lib.sh"
T=$repo/selftests/prism/prism_test
PRISMCTL=${PRISMCTL:-$repo/tools/prismctl/prismctl}
UDP_N=${UDP_N:-150}
UDP_NETEM=${UDP_NETEM:-loss 3% duplicate 3% delay 1ms reorder 10% 50%}
tmp=$(mktemp -d)
declare -A pids=()
CORE="read_direct read_indirect read_bounded write_inline write_indirect
write_data_indirect cas_modes cas_masks cas_wide cas_indirect alloc
alloc_empty kv_put rs_write redirect scratch conditional access_auth
access_bounds access_pointer send no_endpoint ring_16 udp_errno
keyed_errno keyed keyed_wire keyed_rekey keyed_rekey_op"

cleanup() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	hosts_down ud 2
	for p in ud3 udr ud5; do ip netns del "$p" 2>/dev/null; done
	prism_unload
	rm -rf "$tmp"
}
trap cleanup EXIT

# reap NAME...: wait for the background processes pids[NAME]; 1 if any failed
reap() {
	local n rc=0
	for n in "$@"; do
		wait "${pids[$n]}" || rc=1
		unset "pids[$n]"
	done
	return $rc
}

stat_in() { ip netns exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/prism; }
x() { ip netns exec "$@"; }

# server NAME NS WHERE EP: a prism_test server, waits for its info file.
server() {
	local name=$1 ns=$2 where=$3 ep=$4
	ip netns exec "$ns" "$T" server "$where" "$ep" "$tmp/$name.info" \
		> "$tmp/$name.out" 2>&1 &
	pids[$name]=$!
	if ! wait_file "$tmp/$name.info" 30000 "${pids[$name]}"; then
		diag "$tmp/$name.out"
		return 1
	fi
}

# cases LABEL NS WHERE INFO PEER_NS PEER_WHERE [--dst ADDR]: the client
# cases of $CORE, one TAP line each.
cases() {
	local label=$1 ns=$2 where=$3 info=$4 pns=$5 pwhere=$6 c rc
	shift 6
	rm -rf "$tmp/cases-$label"
	mkdir -p "$tmp/cases-$label"
	# shellcheck disable=SC2086
	timeout 900 ip netns exec "$ns" "$T" client-all --outdir "$tmp/cases-$label" \
		--if "$where" --info "$info" --peer-ns "$pns" --peer-if "$pwhere" \
		"$@" $CORE > "$tmp/cases-$label/all.out" 2>&1
	for c in $CORE; do
		rc=$(cut -d' ' -f1 "$tmp/cases-$label/$c.rc" 2>/dev/null)
		if [ "$rc" = 0 ]; then
			ok "$label: $c"
		else
			not_ok "$label: $c (status ${rc:-none})"
			diag "$tmp/cases-$label/$c.log"
			[ -n "$rc" ] || diag "$tmp/cases-$label/all.out"
		fi
	done
}

topology() {
	local ns
	hosts_up ud 2 || return 1
	ip netns add udr || return 1
	ip netns add ud3 || return 1
	for ns in ud1 ud2 ud3 udr; do
		x "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
		x "$ns" ip link set lo up
	done
	# The router: one leg on the bridge, one to ud3.
	ip link add name v-udr type veth peer name eth0 netns udr || return 1
	ip link set v-udr master br-ud up
	x udr ip link add name eth1 type veth peer name eth0 netns ud3 || return 1
	x udr sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || return 1
	{
		echo "addr add 10.77.1.254/24 dev eth0"
		echo "addr add fd77:1::fe/64 dev eth0 nodad"
		echo "addr add 10.77.2.254/24 dev eth1"
		echo "addr add fd77:2::fe/64 dev eth1 nodad"
		echo "link set eth0 up"
		echo "link set eth1 up"
	} | x udr ip -batch - || return 1
	{
		echo "addr add 10.77.1.1/24 dev eth0"
		echo "addr add fd77:1::1/64 dev eth0 nodad"
		echo "route add 10.77.2.0/24 via 10.77.1.254"
		echo "route add fd77:2::/64 via fd77:1::fe"
	} | x ud1 ip -batch - || return 1
	{
		echo "addr add 10.77.1.2/24 dev eth0"
		echo "addr add fd77:1::2/64 dev eth0 nodad"
		echo "route add 10.77.2.0/24 via 10.77.1.254"
		echo "route add fd77:2::/64 via fd77:1::fe"
	} | x ud2 ip -batch - || return 1
	{
		echo "link set eth0 up"
		echo "addr add 10.77.2.3/24 dev eth0"
		echo "addr add fd77:2::3/64 dev eth0 nodad"
		echo "route add 10.77.1.0/24 via 10.77.2.254"
		echo "route add fd77:1::/64 via fd77:2::fe"
	} | x ud3 ip -batch - || return 1
	# Link-local addresses come with the links (no DAD: at once).
	wait_until 10000 sh -c "ip -n ud1 -6 addr show dev eth0 scope link | grep -q fe80"
}

tap_header
prism_load "${PRISM_KO:-}" || bail "cannot load the module"
check "module loaded, udp_port $(cat /sys/module/prism/parameters/udp_port)" \
	"[ \"$(cat /sys/module/prism/parameters/udp_port)\" = 4795 ]"
topology
check "topology: ud1 ud2 on a bridge, ud3 behind router udr" "[ $? = 0 ]"

# --- isolation: nothing of PRISM in ud3 yet -------------------------------
server t4 ud1 udp:10.77.1.1 1 || bail "no IPv4 target"
x ud1 "$T" ping --if udp:10.77.1.1 --info "$tmp/t4.info" --dst 10.77.2.3/9 --n 1500 \
	> "$tmp/iso.out" 2>&1
r=$?
check "a chain to a namespace without PRISM sockets gets no answer (TIMEOUT)" \
	"[ $r != 0 ] && grep -q 'last: TIMEOUT' '$tmp/iso.out'" \
	'$(cat "$tmp/iso.out")'
check "that namespace counted nothing" \
	"[ \"$(stat_in ud3 rx_dropped)\" = 0 ] && [ \"$(stat_in ud3 chains_served)\" = 0 ]"
check "and has no UDP socket on port 4795" \
	"! x ud3 ss -Hulnp | grep -q ':4795 '" '$(x ud3 ss -Hulnp)'
check "the target's namespace has its socket on port 4795" \
	"x ud1 ss -Huln | grep -q ':4795 '" '$(x ud1 ss -Huln)'

# --- targets and the core cases ------------------------------------------
server t6 ud1 udp:fd77:1::1 2 || bail "no IPv6 target"
server tany ud1 udp 3 || bail "no target bound to any address"
x ud1 "$PRISMCTL" -j endpoint show > "$tmp/eps.json" 2>&1
check "prismctl: the UDP endpoints, their addresses and port" \
	"jq -e '[.[] | select(.link == \"udp\" and .port == 4795) | \"\\(.ep) \\(.ip)\"] | sort == [\"1 10.77.1.1\", \"2 fd77:1::1\", \"3 *\"]' '$tmp/eps.json' > /dev/null" \
	'$(cat "$tmp/eps.json")'
check "info of the IPv4 target: $(awk '$1 == "addr" { print $2 }' "$tmp/t4.info")" \
	"grep -qx 'addr 10.77.1.1:4795/1' '$tmp/t4.info'"
check "info of the IPv6 target: $(awk '$1 == "addr" { print $2 }' "$tmp/t6.info")" \
	"grep -qx 'addr \[fd77:1::1\]:4795/2' '$tmp/t6.info'"
check_cmd "ud2 reaches the IPv4 target" x ud2 "$T" ping --if udp:10.77.1.2 --info "$tmp/t4.info"
check_cmd "ud2 reaches the IPv6 target" x ud2 "$T" ping --if udp:fd77:1::2 --info "$tmp/t6.info"

cases v4 ud2 udp:10.77.1.2 "$tmp/t4.info" ud1 udp:10.77.1.1
cases v6 ud2 udp:fd77:1::2 "$tmp/t6.info" ud1 udp:fd77:1::1
ll=$(x ud1 ip -6 -o addr show dev eth0 scope link | awk '{ sub("/.*", "", $4); print $4 }')
check "ud1 has a link-local address ($ll)" "[ -n '$ll' ]"
# (no SEND case: its receiver, bound to any address, has none to name)
CORE="read_direct write_inline cas_modes alloc ring_16" \
	cases ll ud2 udp "$tmp/tany.info" ud1 udp --dst "[$ll%eth0]/3"

# --- routed ---------------------------------------------------------------
fwd0=$(x udr awk '$1 == "Ip:" && $2 ~ /^[0-9]/ { print $7 }' /proc/net/snmp)
CORE="read_direct write_inline cas_modes alloc kv_put send ring_16 udp_errno" \
	cases routed-v4 ud3 udp:10.77.2.3 "$tmp/t4.info" ud1 udp:10.77.1.1
CORE="read_direct write_inline cas_modes alloc send ring_16 udp_errno" \
	cases routed-v6 ud3 udp:fd77:2::3 "$tmp/t6.info" ud1 udp:fd77:1::1
fwd1=$(x udr awk '$1 == "Ip:" && $2 ~ /^[0-9]/ { print $7 }' /proc/net/snmp)
check "the router forwarded the IPv4 frames ($((fwd1 - fwd0)) datagrams)" \
	"[ $((fwd1 - fwd0)) -gt 100 ]"

# --- reliability: CAS increments under netem ------------------------------
off=$((0x1d800))
# The target bound to any address: ud2 reaches it by IPv4, ud3 by IPv6.
"$T" cas-init --info "$tmp/tany.info" --off $off
check "counter zeroed" "[ $? = 0 ]"
modprobe -q sch_netem 2>/dev/null
for ns in ud1 ud2 ud3; do
	# shellcheck disable=SC2086
	x "$ns" tc qdisc add dev eth0 root netem $UDP_NETEM || not_ok "netem on $ns"
done
re0=$(($(stat_in ud2 retransmits) + $(stat_in ud3 retransmits)))
rm -f "$tmp/go"
x ud2 timeout 300 "$T" cas-incr --if udp:10.77.1.2 --info "$tmp/tany.info" \
	--dst 10.77.1.1/3 --off $off \
	--n "$UDP_N" --ready "$tmp/r2" --go "$tmp/go" > "$tmp/cas2.out" 2>&1 &
pids[cas2]=$!
x ud3 timeout 300 "$T" cas-incr --if udp:fd77:2::3 --info "$tmp/tany.info" \
	--dst "[fd77:1::1]/3" --off $off --n "$UDP_N" --ready "$tmp/r3" --go "$tmp/go" \
	> "$tmp/cas3.out" 2>&1 &
pids[cas3]=$!
wait_file "$tmp/r2" 30000 "${pids[cas2]}" && wait_file "$tmp/r3" 30000 "${pids[cas3]}"
check "both CAS clients ready" "[ $? = 0 ]"
# prismctl, while the clients wait (each has sent a chain): UDP peers.
x ud2 "$PRISMCTL" -j peer show > "$tmp/peers.json" 2>&1
check "prismctl: ud2's client has peer 10.77.1.1 port 4795 ep 3" \
	"jq -e '.[] | select(.peer_ip == \"10.77.1.1\" and .peer_port == 4795 and .peer_ep == 3)' '$tmp/peers.json' > /dev/null" \
	'$(cat "$tmp/peers.json")'
cep=$(jq -r '.[0].ep' "$tmp/peers.json" 2>/dev/null)
x ud3 "$PRISMCTL" peer show > "$tmp/peers3.txt" 2>&1
check "prismctl: ud3's client has peer fd77:1::1 port 4795 (text)" \
	"grep -q 'peer fd77:1::1 port 4795 peer_ep 3' '$tmp/peers3.txt'" '$(cat "$tmp/peers3.txt")'
x ud2 "$PRISMCTL" -j peer show ep "$cep" peer 10.77.1.1 peer_ep 3 > "$tmp/peer1.json" 2>&1
check "prismctl: one UDP peer by its IP address" \
	"jq -e '.[0].peer_ip == \"10.77.1.1\"' '$tmp/peer1.json' > /dev/null" '$(cat "$tmp/peer1.json")'
touch "$tmp/go"
reap cas2; r2=$?
reap cas3; r3=$?
check "CAS client in ud2 (IPv4) finished" "[ $r2 = 0 ]" '$(cat "$tmp/cas2.out")'
check "CAS client in ud3 (IPv6, routed) finished" "[ $r3 = 0 ]" '$(cat "$tmp/cas3.out")'
re1=$(($(stat_in ud2 retransmits) + $(stat_in ud3 retransmits)))
check "chains were sent again under netem ($((re1 - re0)))" "[ $((re1 - re0)) -gt 0 ]"
for ns in ud1 ud2 ud3; do x "$ns" tc qdisc del dev eth0 root 2>/dev/null; done
x ud2 "$T" cas-check --if udp:10.77.1.2 --info "$tmp/tany.info" --dst 10.77.1.1/3 --off $off \
	--expect $((2 * UDP_N)) > "$tmp/check.out" 2>&1
check "the counter is exactly $((2 * UDP_N))" "[ $? = 0 ]" '$(cat "$tmp/check.out")'

# --- path MTU ------------------------------------------------------------
x udr ip link set eth1 mtu 1280
x ud3 ip link set eth0 mtu 1280
x ud1 ip route flush cache 2>/dev/null
x ud3 "$T" pmtu --if udp:10.77.2.3 --info "$tmp/t4.info" --n 8192 > "$tmp/pmtu4.out" 2>&1
check "8 KiB READs over a 1280-byte hop (IPv4) complete after the first" "[ $? = 0 ]" \
	'$(cat "$tmp/pmtu4.out")'
diag "$tmp/pmtu4.out"
check "ud1 learnt the path MTU to ud3: $(x ud1 ip route get 10.77.2.3 | grep -o 'mtu [0-9]*')" \
	"x ud1 ip route get 10.77.2.3 | grep -q 'mtu 1280'"
x ud3 "$T" pmtu --if udp:fd77:2::3 --info "$tmp/t6.info" --n 8192 > "$tmp/pmtu6.out" 2>&1
check "8 KiB READs over a 1280-byte hop (IPv6) complete after the first" "[ $? = 0 ]" \
	'$(cat "$tmp/pmtu6.out")'
diag "$tmp/pmtu6.out"
check "ud1 learnt the IPv6 path MTU to ud3: $(x ud1 ip -6 route get fd77:2::3 | grep -o 'mtu [0-9]*')" \
	"x ud1 ip -6 route get fd77:2::3 | grep -q 'mtu 1280'"

# --- an application: PRISM-KV and Pilaf over UDP -------------------------
KVB=$repo/apps/kv/build
# kvs NAME WHERE EP ARGS...: a kv-server in ud1, waits for its info file
kvs() {
	local name=$1 where=$2 ep=$3
	shift 3
	ip netns exec ud1 "$KVB/kv-server" --if "$where" --ep "$ep" \
		--info "$tmp/$name.info" --slots 256 --bufs 256 "$@" > "$tmp/$name.log" 2>&1 &
	pids[$name]=$!
	wait_file "$tmp/$name.info" 30000 "${pids[$name]}" || { diag "$tmp/$name.log"; return 1; }
}
# PRISM_GUEST_APPS=0 (the debug and 6.12 stages): the applications run
# over UDP on the stock kernel; the kernel paths they take are the ones
# the tests above exercise.
apps_off=
[ "${PRISM_GUEST_APPS:-1}" = 0 ] && apps_off="PRISM_GUEST_APPS=0: the applications run on the stock kernel"
if [ -n "$apps_off" ]; then
	skip "PRISM-KV over UDP" "$apps_off"
elif [ -x "$KVB/kv-server" ] && [ -x "$KVB/kv-check" ]; then
	check_cmd "PRISM-KV server on 10.77.1.1" kvs kvp udp:10.77.1.1 40
	check_cmd "Pilaf server on fd77:1::1" kvs kvl udp:fd77:1::1 41 --mode pilaf
	x ud2 "$KVB/kv" --if udp:10.77.1.2 --info "$tmp/kvp.info" put hello world > /dev/null 2>&1
	check "PRISM-KV over UDP/IPv4: PUT, then GET gives the value" \
		"[ \"\$(x ud2 '$KVB/kv' --if udp:10.77.1.2 --info '$tmp/kvp.info' get hello)\" = world ]"
	x ud3 "$KVB/kv" --if udp:fd77:2::3 --info "$tmp/kvl.info" put hello routed > /dev/null 2>&1
	check "Pilaf over UDP/IPv6, routed: PUT (an RPC answered by SEND), then GET" \
		"[ \"\$(x ud3 '$KVB/kv' --if udp:fd77:2::3 --info '$tmp/kvl.info' get hello)\" = routed ]"
	# Linearizability from two hosts, one of them behind the router.
	for h in 2 3; do
		where=udp:10.77.1.2
		[ $h = 3 ] && where=udp:10.77.2.3
		# (its history goes to OUT.ID: $tmp/kvlin.$h)
		x "ud$h" timeout 150 "$KVB/kv-check" "$where" "$tmp/kvp.info" hist $h 4 100 512 \
			"$tmp/kvlin" > "$tmp/kvlin-$h.out" 2>&1 &
		pids[kvlin$h]=$!
	done
	reap kvlin2 kvlin3
	rc=$?
	check "PRISM-KV over UDP: 2 clients x 100 GET/PUT/DELETE on 4 keys finish" "[ $rc = 0 ]" \
		'$(cat "$tmp/kvlin-2.out" "$tmp/kvlin-3.out")'
	"$KVB/kv-check" lincheck "$tmp/kvlin.2" "$tmp/kvlin.3" > "$tmp/kvlin.verdict" 2>&1
	check "their history is linearizable" "[ $? = 0 ]" '$(cat "$tmp/kvlin.verdict")'
	diag "$tmp/kvlin.verdict"
else
	skip "PRISM-KV over UDP" "apps/kv is not built (make -C apps/kv)"
fi

# PRISM-RS: 3 replicas on 3 hosts (one behind the router), 2 clients.
RSB=$repo/apps/rs/build
declare -A RSIP=([1]=10.77.1.1 [2]=10.77.1.2 [3]=10.77.2.3)
if [ -n "$apps_off" ]; then
	skip "PRISM-RS over UDP" "$apps_off"
elif [ -x "$RSB/rs_replica" ] && [ -x "$RSB/rs_check" ]; then
	rinfos=
	for r in 1 2 3; do
		ip netns exec "ud$r" "$RSB/rs_replica" "udp:${RSIP[$r]}" $((60 + r)) \
			"$tmp/rs$r.info" > "$tmp/rs$r.log" 2>&1 &
		pids[rs$r]=$!
		wait_file "$tmp/rs$r.info" 30000 "${pids[rs$r]}" || diag "$tmp/rs$r.log"
		rinfos=${rinfos:+$rinfos,}$tmp/rs$r.info
	done
	check "PRISM-RS: 3 replicas on UDP, their info names their address" \
		"grep -q 'addr=10.77.2.3:4795/63' '$tmp/rs3.info'" '$(cat "$tmp/rs3.info")'
	for h in 2 3; do
		x "ud$h" timeout 150 "$RSB/rs_client" --if "udp:${RSIP[$h]}" --info "$rinfos" \
			--id "$h" --ops 80 --hist "$tmp/rs.hist$h" > "$tmp/rsc$h.out" 2>&1 &
		pids[rsc$h]=$!
	done
	reap rsc2 rsc3
	rc=$?
	check "PRISM-RS over UDP: 2 clients x 80 GET/PUT finish" "[ $rc = 0 ]" \
		'$(cat "$tmp/rsc2.out" "$tmp/rsc3.out")'
	"$RSB/rs_check" hist "$tmp"/rs.hist* > "$tmp/rs.check" 2>&1
	check "their history is linearizable" "[ $? = 0 ]" '$(cat "$tmp/rs.check")'
	diag "$tmp/rs.check"
	for r in 1 2 3; do kill "${pids[rs$r]}" 2>/dev/null; wait "${pids[rs$r]}" 2>/dev/null; unset "pids[rs$r]"; done
else
	skip "PRISM-RS over UDP" "apps/rs is not built (make -C apps/rs)"
fi

# PRISM-TX and FaRM: 2 shards (ud1, ud2), a bank from ud3 behind the router.
TXB=$repo/apps/tx/build
if [ -n "$apps_off" ]; then
	skip "PRISM-TX over UDP" "$apps_off"
elif [ -x "$TXB/tx_server" ] && [ -x "$TXB/tx_check" ]; then
	for proto in prism farm; do
		tinfos=
		for sh in 0 1; do
			ip netns exec "ud$((sh + 1))" "$TXB/tx_server" "udp:${RSIP[$((sh + 1))]}" \
				$sh 2 16 1000 "$tmp/tx-$proto$sh.info" > "$tmp/tx-$proto$sh.log" 2>&1 &
			pids[tx$sh]=$!
			wait_file "$tmp/tx-$proto$sh.info" 30000 "${pids[tx$sh]}" ||
				diag "$tmp/tx-$proto$sh.log"
			tinfos=${tinfos:+$tinfos,}$tmp/tx-$proto$sh.info
		done
		x ud3 timeout 120 "$TXB/tx_client" -i udp:10.77.2.3 -s "$tinfos" -p $proto \
			-w bank -c 30 -t 2 -d 1000 -I 1000 -H "$tmp/tx-$proto.hist" \
			> "$tmp/tx-$proto.client" 2>&1
		r=$?
		x ud3 timeout 60 "$TXB/tx_client" -i udp:10.77.2.3 -s "$tinfos" -p $proto -c 99 \
			-D "$tmp/tx-$proto.final" > "$tmp/tx-$proto.dump" 2>&1 || r=1
		"$TXB/tx_check" -i 1000 -t 16000 "$tmp/tx-$proto.hist".* "$tmp/tx-$proto.final" \
			> "$tmp/tx-$proto.check" 2>&1
		rc=$?
		check "$proto bank over UDP (routed client, 2 threads): committed, total 16000, serializable" \
			"[ $r = 0 ] && [ $rc = 0 ] && grep -q 'sum=16000 pending=0' '$tmp/tx-$proto.dump' && grep -q 'serializable=yes' '$tmp/tx-$proto.check'" \
			'$(cat "$tmp/tx-$proto.client" "$tmp/tx-$proto.dump" "$tmp/tx-$proto.check")'
		diag "$tmp/tx-$proto.check"
		for sh in 0 1; do kill "${pids[tx$sh]}" 2>/dev/null; wait "${pids[tx$sh]}" 2>/dev/null; unset "pids[tx$sh]"; done
	done
else
	skip "PRISM-TX over UDP" "apps/tx is not built (make -C apps/tx)"
fi

# --- cached routes (udp.c keeps, per CPU, the routes frames last took) ----
# reach3 FAMILY [TIMEOUT_MS]: one chain from ud3 (behind the router) to
# the IPv4 or IPv6 target in ud1
reach3() {
	if [ "$1" = 4 ]; then
		x ud3 "$T" ping --if udp:10.77.2.3 --info "$tmp/t4.info" --n "${2:-3000}"
	else
		x ud3 "$T" ping --if udp:fd77:2::3 --info "$tmp/t6.info" --n "${2:-3000}"
	fi > /dev/null 2>&1
}
for f in 4 6; do
	if [ $f = 4 ]; then ip=ip net=10.77.1.0/24 gw=10.77.2.254
	else ip="ip -6" net=fd77:1::/64 gw=fd77:2::fe; fi
	reach3 $f
	check "IPv$f: ud3 reaches its target through the router (the route is cached)" "[ $? = 0 ]"
	fwd0=$(x udr awk '$1 == "Ip:" && $2 ~ /^[0-9]/ { print $7 }' /proc/net/snmp)
	x ud3 $ip route replace unreachable $net
	reach3 $f 300
	r=$?
	fwd1=$(x udr awk '$1 == "Ip:" && $2 ~ /^[0-9]/ { print $7 }' /proc/net/snmp)
	# IPv4 forwarding counted only: for IPv6 the chain's failure tells.
	check "IPv$f: route replaced by an unreachable one: no chain gets through (status $r)" \
		"[ $r != 0 ] && { [ $f = 6 ] || [ $((fwd1 - fwd0)) = 0 ]; }"
	x ud3 $ip route replace $net via $gw
	reach3 $f
	check "IPv$f: route restored: the target is reached again" "[ $? = 0 ]"
done
reach3 4 && reach3 6
check "ud3 reached both targets again (their routes cached)" "[ $? = 0 ]"
# A cached route must not keep its interface: deleting it would wait
# forever ("waiting for eth0 to become free").
timeout 60 ip netns exec ud3 ip link del eth0
check "an interface with cached routes is deleted at once" "[ $? = 0 ]"

# --- a namespace going away with its UDP socket; unload -------------------
ip netns add ud5 && x ud5 ip link set lo up && x ud5 ip addr add 127.0.0.5/8 dev lo
x ud5 "$T" ping --if udp:127.0.0.5 --info "$tmp/t4.info" --dst 127.0.0.5/4 --n 300 \
	> /dev/null 2>&1
check "ud5 opened its UDP port" "x ud5 ss -Huln | grep -q ':4795 '"
ip netns del ud5
check "namespace with a UDP port deleted" "[ $? = 0 ]"
for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
pids=()
if [ "$PRISM_LOADED_HERE" = 1 ]; then
	wait_until 10000 rmmod prism
	r=$?
	PRISM_LOADED_HERE=0
	check "module unloaded with the UDP ports of live namespaces open" "[ $r = 0 ]"
else
	skip "module unloaded" "loaded by someone else"
fi
tap_finish
