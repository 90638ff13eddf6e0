# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The network of the benchmarks that run SoftRoCE (rxe.sh, large.sh, depth.sh),
# INSIDE the guest as root.  On Debian's 6.1 kernel rxe works only in the
# initial network namespace (doc/RXE-COMPARISON.md), so both ends of one
# veth pair stay there, with /32 addresses and policy routing so that
# traffic between them crosses the pair instead of lo.  Source this file;
# the callers keep their temporary directory in $work.
#
#   rxe_pair_up               va 10.79.0.1 (02:00:00:00:07:0a) <-> vb
#                             10.79.0.2 (02:00:00:00:07:0b), rxe0 on va and
#                             rxe1 on vb, their RoCE v2 GID indexes in $G0
#                             and $G1; returns 1 (with a message) on failure
#   rxe_pair_down             undo all of it (also what was half done)
#   gid_index DEV IPV4 [NETNS]
#                             index of the RoCE v2 GID ::ffff:IPV4 of DEV
#   wait_listen PORT [NETNS]  until something listens on TCP PORT (60 s)
#   perftest_client OUT CMD...
#                             run a perftest client, output to OUT; retried
#                             (5 times, 3 s apart) while it cannot reach its
#                             server's port, each retry noted in
#                             $work/retries.txt
#   perftest_pair NAME BIN ARGS...
#                             perftest BIN: a server on rxe1 (vb, CPU
#                             $CPU_S), a client on rxe0 (va, CPU $CPU_C),
#                             each under `timeout $TMO`, on TCP port
#                             $port + 1 ($port grows); outputs in
#                             $raw/NAME{,-server}.txt; 0 if the client
#                             exited 0 (lib.sh's bench_pids, bench_log)
#   perftest_retry NAME PARSE BIN ARGS...
#                             perftest_pair NAME BIN ARGS... up to 3 times,
#                             until `PARSE FILE` (PARSE split into words)
#                             prints a result from its output FILE: that
#                             result in $perftest_value; 1 (and it empty)
#                             if all 3 failed; each failure noted, its
#                             output kept as $raw/NAME-tryN.txt
#   rxe_diag WHAT             rxe's counters and the kernel's last words
#                             appended to $raw/rxe-diag.txt
#   rxe_plot NAME TITLE PLOT  bar chart (log scale, microseconds) $out/NAME.png
#                             drawn by the gnuplot command(s) PLOT into
#                             $work, then copied (one retry: a run once
#                             left an empty PNG behind without a message);
#                             the caller defines log()

RXE_MAC_A=02:00:00:00:07:0a
RXE_MAC_B=02:00:00:00:07:0b
RXE_IP_A=10.79.0.1
RXE_IP_B=10.79.0.2

# wait_listen PORT [NETNS]: at most 60 s; a loaded TCG guest can take far
# longer than the customary "sleep 1" to get there.  Reads /proc/net/tcp*
# (state 0A = LISTEN) rather than relying on ss and its sock_diag modules.
wait_listen() {
	local i hex ns=()
	hex=$(printf '%04X' "$1")
	[ -n "${2:-}" ] && ns=(ip netns exec "$2")
	for i in $(seq 300); do
		"${ns[@]}" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' &&
			return 0
		sleep 0.2
	done
	return 1
}

perftest_client() {
	local out=$1 try rc
	shift
	for try in 1 2 3 4 5; do
		"$@" > "$out" 2>&1
		rc=$?
		grep -q "Couldn't connect" "$out" || break
		echo "$1 ... attempt $try could not connect to its server" >> "$work/retries.txt"
		[ $try = 5 ] || sleep 3
	done
	return $rc
}

perftest_pair() {
	local name=$1 bin=$2 rc
	shift 2
	port=$((port + 1))
	taskset -c "$CPU_S" timeout "$TMO" "$bin" -F -d rxe1 -x "$G1" -p $port "$@" \
		> "$raw/$name-server.txt" 2>&1 &
	bench_pids+=($!)
	wait_listen $port || bench_log "perftest $name: server not listening after 60 s"
	perftest_client "$raw/$name.txt" taskset -c "$CPU_C" timeout "$TMO" "$bin" -F -d rxe0 \
		-x "$G0" -p $port "$@" $RXE_IP_B
	rc=$?
	# the server exits after its test; not after a failed client
	[ $rc = 0 ] || kill -KILL "${bench_pids[-1]}" 2>/dev/null
	wait "${bench_pids[-1]}" 2>/dev/null
	unset 'bench_pids[-1]'
	return $rc
}

perftest_retry() {
	local name=$1 parse=$2 try
	shift 2
	perftest_value=
	for try in 1 2 3; do
		if ! perftest_pair "$name" "$@"; then
			bench_note "$1 $name (try $try)" "$raw/$name.txt"
			rxe_diag "$name try $try"
			cp "$raw/$name.txt" "$raw/$name-try$try.txt"
			continue
		fi
		perftest_value=$($parse "$raw/$name.txt")
		[ -n "$perftest_value" ] && return 0
		bench_note "$1 $name: no result in its output (try $try)" "$raw/$name.txt"
	done
	return 1
}

rxe_diag() {
	{
		echo "=== $1"
		rdma statistic show
		dmesg | tail -n 20
	} >> "$raw/rxe-diag.txt" 2>&1
}

gid_index() {
	local dev=$1 ip=$2 ns=${3:-} hex i g t k
	local nsx=()
	hex=$(printf '%02x%02x:%02x%02x' ${ip//./ })
	[ -n "$ns" ] && nsx=(ip netns exec "$ns")
	"${nsx[@]}" test -d "/sys/class/infiniband/$dev" || return 1
	for k in $(seq 20); do
		for i in $(seq 0 15); do
			g=$("${nsx[@]}" cat "/sys/class/infiniband/$dev/ports/1/gids/$i" 2>/dev/null)
			t=$("${nsx[@]}" cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null)
			if [ "$g" = "0000:0000:0000:0000:0000:ffff:$hex" ] && [ "$t" = "RoCE v2" ]; then
				echo "$i"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}

rxe_pair_up() {
	local d
	modprobe rdma_rxe || { echo "modprobe rdma_rxe failed" >&2; return 1; }
	# rxe computes the ICRC with the "crc32" shash; load it up front so
	# that a failing on-demand crypto module load cannot make 'rdma link
	# add' fail.
	modprobe -q crc32_generic
	modprobe -q veth
	ip link add name va address $RXE_MAC_A type veth \
		peer name vb address $RXE_MAC_B || { echo "veth" >&2; return 1; }
	for d in all default va vb; do
		sysctl -qw net.ipv4.conf.$d.rp_filter=0
		sysctl -qw net.ipv4.conf.$d.accept_local=1
	done
	ip addr add $RXE_IP_A/32 dev va
	ip addr add $RXE_IP_B/32 dev vb
	ip link set va up
	ip link set vb up
	ip route add $RXE_IP_B/32 dev va src $RXE_IP_A table 101
	ip route add $RXE_IP_A/32 dev vb src $RXE_IP_B table 102
	ip rule add pref 10 iif va lookup local
	ip rule add pref 11 iif vb lookup local
	ip rule add pref 20 to $RXE_IP_B lookup 101
	ip rule add pref 21 to $RXE_IP_A lookup 102
	ip rule add pref 100 lookup local
	ip rule del pref 0 lookup local
	ip neigh replace $RXE_IP_B lladdr $RXE_MAC_B dev va nud permanent
	ip neigh replace $RXE_IP_A lladdr $RXE_MAC_A dev vb nud permanent
	rdma link add rxe0 type rxe netdev va ||
		{ dmesg | grep -iE 'rxe|rdma|crc32' | tail >&2; echo "rdma link add rxe0" >&2; return 1; }
	rdma link add rxe1 type rxe netdev vb ||
		{ echo "rdma link add rxe1" >&2; return 1; }
	G0=$(gid_index rxe0 $RXE_IP_A) ||
		{ echo "no RoCE v2 GID for $RXE_IP_A on rxe0" >&2; return 1; }
	G1=$(gid_index rxe1 $RXE_IP_B) ||
		{ echo "no RoCE v2 GID for $RXE_IP_B on rxe1" >&2; return 1; }
}

rxe_pair_down() {
	local l
	for l in rxe0 rxe1; do
		rdma link delete "$l" 2>/dev/null
	done
	ip link del va 2>/dev/null
	ip rule del pref 10 2>/dev/null; ip rule del pref 11 2>/dev/null
	ip rule del pref 20 2>/dev/null; ip rule del pref 21 2>/dev/null
	ip rule show | grep -q '^0:.*lookup local' || ip rule add pref 0 lookup local
	ip rule del pref 100 2>/dev/null
	return 0
}

rxe_plot() {
	local try
	for try in 1 2; do
		rm -f "$work/$1.png"
		gnuplot <<EOF 2>&1 | sed 's/^/rxe: gnuplot: /'
set terminal pngcairo size 1200,600 noenhanced
set output "$work/$1.png"
set title "$2"
set ylabel "microseconds, round trip (log scale)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set key top left
set xtics nomirror
set logscale y
set yrange [10:*]
$3
unset output
EOF
		[ -s "$work/$1.png" ] && break
		log "gnuplot left no image for $1 (attempt $try)"
	done
	cp "$work/$1.png" "$out/$1.png" 2>/dev/null
}
