#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM vs SoftRoCE (rdma_rxe) latency, run INSIDE the guest as root, in
# one guest run, over one veth pair (see doc/RXE-COMPARISON.md):
#
#   1. probe: rxe between two network namespaces (the configuration the
#      issue asks for).  On Debian's 6.1 kernel this cannot work (rxe's
#      UDP socket and route lookups are in init_net only); the probe
#      records what happens, in rdma's "shared" and "exclusive" netns modes.
#   2. measure, nearest working configuration: both veth ends in the root
#      namespace, /32 addresses and policy routing so that traffic between
#      them really crosses the veth pair (not lo); rxe0 on va, rxe1 on vb;
#      PRISM server on vb, client on va (raw Ethernet over the same pair).
#      perftest ib_read_lat / ib_write_lat / ib_atomic_lat, our verbs
#      program (rxe_lat verbs-*) and PRISM (rxe_lat prism-*).
#
#   PRISM_KO=kmod/prism.ko tools/bench/rxe.sh
#
# Environment: PRISM_KO, PRISM_BENCH_N (iterations, default 2000),
# PRISM_BENCH_WARMUP (our programs' warm-up, default 200; perftest warms up
# by itself), PRISM_OUT (bench-rxe.json, bench-rxe.csv, bench-rxe.png,
# bench-rxe-probe.txt go there), RXE_PROBE_NETNS=0 to skip step 1.
# Build on the host first: make -C tools/bench (needs libibverbs-dev).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
B=$here/rxe_lat
KO=${PRISM_KO:-$repo/kmod/prism.ko}
N=${PRISM_BENCH_N:-2000}
W=${PRISM_BENCH_WARMUP:-200}
work=$(mktemp -d /tmp/prism-rxe.XXXXXX)
out=${PRISM_OUT:-$work}
probe=$out/bench-rxe-probe.txt
res=$work/results.txt
loaded=0
pids=()
NA=rxe-a NB=rxe-b

log() { echo "rxe: $*"; }
fail() { echo "rxe: $*" >&2; exit 1; }

kill_pids() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}

cleanup() {
	kill_pids
	for l in rxea rxeb rxe0 rxe1; do
		rdma link delete "$l" 2>/dev/null
	done
	ip netns del $NA 2>/dev/null
	ip netns del $NB 2>/dev/null
	ip link del va 2>/dev/null
	ip rule del pref 10 2>/dev/null; ip rule del pref 11 2>/dev/null
	ip rule del pref 20 2>/dev/null; ip rule del pref 21 2>/dev/null
	ip rule show | grep -q '^0:.*lookup local' || ip rule add pref 0 lookup local
	ip rule del pref 100 2>/dev/null
	[ "$loaded" = 1 ] && rmmod prism 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

wait_file() {
	local i=0
	until [ -s "$1" ]; do
		[ "$i" -ge "$2" ] && return 1
		sleep 0.02
		i=$((i + 20))
	done
}

# gid_index DEV IPV4 [NETNS]: index of the RoCE v2 GID ::ffff:IPV4 of DEV
gid_index() {
	local dev=$1 ip=$2 ns=${3:-} hex i g t k
	hex=$(printf '%02x%02x:%02x%02x' ${ip//./ })
	if [ -n "$ns" ]; then
		ip netns exec "$ns" test -d /sys/class/infiniband/$dev || return 1
	else
		test -d /sys/class/infiniband/$dev || return 1
	fi
	for k in $(seq 20); do
		for i in $(seq 0 15); do
			if [ -n "$ns" ]; then
				g=$(ip netns exec "$ns" cat /sys/class/infiniband/$dev/ports/1/gids/$i 2>/dev/null)
				t=$(ip netns exec "$ns" cat /sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i 2>/dev/null)
			else
				g=$(cat /sys/class/infiniband/$dev/ports/1/gids/$i 2>/dev/null)
				t=$(cat /sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i 2>/dev/null)
			fi
			if [ "$g" = "0000:0000:0000:0000:0000:ffff:$hex" ] && [ "$t" = "RoCE v2" ]; then
				echo "$i"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}

[ -x "$B" ] || fail "$B is missing: run 'make -C tools/bench' on the host"
command -v ib_read_lat >/dev/null || fail "perftest is not installed"
modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
# rxe computes the ICRC with the "crc32" shash; load it up front so that a
# failing on-demand crypto module load cannot make 'rdma link add' fail.
modprobe -q crc32_generic
modprobe -q veth
if [ ! -d /sys/module/prism ]; then
	insmod "$KO" || fail "insmod $KO failed"
	loaded=1
fi
mkdir -p "$out"
: > "$probe"
: > "$res"
{
	echo "kernel $(uname -r)"
	echo "rdma system: $(rdma system show 2>&1)"
} >> "$probe"

# ---------------------------------------------------------------- 1. probe
# probe_netns MODE: rxe on a veth pair between two netns, ib_read_lat.
probe_netns() {
	local mode=$1 ga gb rc
	echo "=== netns probe, rdma system netns $mode" >> "$probe"
	rdma system set netns "$mode" >> "$probe" 2>&1
	echo "rdma system: $(rdma system show 2>&1)" >> "$probe"
	ip netns add $NA && ip netns add $NB || return 1
	ip link add name ba netns $NA type veth peer name bb netns $NB
	ip -n $NA addr add 10.78.0.1/24 dev ba
	ip -n $NB addr add 10.78.0.2/24 dev bb
	for ns in $NA $NB; do ip -n $ns link set lo up; done
	ip -n $NA link set ba up
	ip -n $NB link set bb up
	ip netns exec $NA rdma link add rxea type rxe netdev ba >> "$probe" 2>&1
	echo "rdma link add rxea (netns $NA): rc=$?" >> "$probe"
	ip netns exec $NB rdma link add rxeb type rxe netdev bb >> "$probe" 2>&1
	echo "rdma link add rxeb (netns $NB): rc=$?" >> "$probe"
	{
		echo "rdma link in $NA:"; ip netns exec $NA rdma link show 2>&1
		echo "rdma dev in root netns:"; rdma dev show 2>&1
		echo "ibv_devices in $NB:"; ip netns exec $NB ibv_devices 2>&1
	} >> "$probe"
	ga=$(gid_index rxea 10.78.0.1 $NA) || ga=
	gb=$(gid_index rxeb 10.78.0.2 $NB) || gb=
	echo "RoCE v2 gid index: rxea=${ga:-none} rxeb=${gb:-none}" >> "$probe"
	if [ -n "$ga" ] && [ -n "$gb" ]; then
		ip netns exec $NA timeout 40 ib_read_lat -F -d rxea -x "$ga" -n 100 -p 18600 \
			> "$work/probe-s.txt" 2>&1 &
		pids+=($!)
		sleep 2
		ip netns exec $NB timeout 30 ib_read_lat -F -d rxeb -x "$gb" -n 100 -p 18600 \
			10.78.0.1 > "$work/probe-c.txt" 2>&1
		rc=$?
		echo "ib_read_lat client rc=$rc (124 = timed out); its last lines:" >> "$probe"
		tail -8 "$work/probe-c.txt" >> "$probe"
		echo "server's last lines:" >> "$probe"
		tail -4 "$work/probe-s.txt" >> "$probe"
		kill_pids
	fi
	{
		echo "veth counters in $NA:"; ip -n $NA -s link show ba
		echo "udp/4791 sockets in $NA:"; ip netns exec $NA ss -uan 'sport = :4791'
		echo "udp/4791 sockets in root netns:"; ss -uan 'sport = :4791'
		echo "Udp counters in $NB (NoPorts = datagrams to a port nobody listens on):"
		ip netns exec $NB cat /proc/net/snmp | grep '^Udp:'
	} >> "$probe" 2>&1
	echo "kernel log (rxe/rdma/crc lines):" >> "$probe"
	dmesg | grep -iE 'rxe|rdma|crc32|infiniband' | tail -12 >> "$probe"
	ip netns exec $NA rdma link delete rxea 2>/dev/null
	ip netns exec $NB rdma link delete rxeb 2>/dev/null
	rdma link delete rxea 2>/dev/null
	rdma link delete rxeb 2>/dev/null
	ip netns del $NA
	ip netns del $NB
	rdma system set netns shared >> "$probe" 2>&1
	echo >> "$probe"
}

if [ "${RXE_PROBE_NETNS:-1}" = 1 ]; then
	log "probing rxe between two network namespaces (results in $probe)"
	probe_netns shared
	probe_netns exclusive
	grep -E 'rc=|gid index|t_typical|^ *100 ' "$probe" | sed 's/^/rxe:   /'
fi

# ---------------------------------------------------------------- 2. setup
log "root-netns veth pair va/vb with policy routing"
ip link add name va address 02:00:00:00:07:0a type veth \
	peer name vb address 02:00:00:00:07:0b || fail "veth"
for d in all default va vb; do
	sysctl -qw net.ipv4.conf.$d.rp_filter=0
	sysctl -qw net.ipv4.conf.$d.accept_local=1
done
ip addr add 10.79.0.1/32 dev va
ip addr add 10.79.0.2/32 dev vb
ip link set va up
ip link set vb up
ip route add 10.79.0.2/32 dev va src 10.79.0.1 table 101
ip route add 10.79.0.1/32 dev vb src 10.79.0.2 table 102
ip rule add pref 10 iif va lookup local
ip rule add pref 11 iif vb lookup local
ip rule add pref 20 to 10.79.0.2 lookup 101
ip rule add pref 21 to 10.79.0.1 lookup 102
ip rule add pref 100 lookup local
ip rule del pref 0 lookup local
ip neigh replace 10.79.0.2 lladdr 02:00:00:00:07:0b dev va nud permanent
ip neigh replace 10.79.0.1 lladdr 02:00:00:00:07:0a dev vb nud permanent
{
	echo "=== root-netns configuration"
	ip rule show; ip route get 10.79.0.2; ip route get 10.79.0.1
} >> "$probe" 2>&1
rdma link add rxe0 type rxe netdev va ||
	{ dmesg | grep -iE 'rxe|rdma|crc32' | tail; fail "rdma link add rxe0"; }
rdma link add rxe1 type rxe netdev vb || fail "rdma link add rxe1"
G0=$(gid_index rxe0 10.79.0.1) || fail "no RoCE v2 GID for 10.79.0.1 on rxe0"
G1=$(gid_index rxe1 10.79.0.2) || fail "no RoCE v2 GID for 10.79.0.2 on rxe1"
log "rxe0 (va) gid $G0, rxe1 (vb) gid $G1; $N iterations per test"
rdma link show | sed 's/^/rxe:   /'
tx0=$(cat /sys/class/net/va/statistics/tx_packets)

# ---------------------------------------------------------------- perftest
port=18700
# perftest NAME BIN SIZE EXTRA...: server on rxe1 (vb), client on rxe0 (va)
perftest() {
	local name=$1 bin=$2 size=$3 line
	shift 3
	port=$((port + 1))
	timeout 300 "$bin" -F -d rxe1 -x "$G1" -s "$size" -n "$N" -p $port "$@" \
		> "$work/$name-s.txt" 2>&1 &
	pids+=($!)
	sleep 1
	timeout 300 "$bin" -F -d rxe0 -x "$G0" -s "$size" -n "$N" -p $port "$@" \
		10.79.0.2 > "$work/$name-c.txt" 2>&1
	echo "rc=$?" >> "$work/$name-c.txt"
	kill_pids
	cp "$work/$name-c.txt" "$out/bench-rxe-$name.txt" 2>/dev/null
	# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	line=$(awk -v s="$size" '$1 == s && NF >= 9 && $3 ~ /^[0-9.]+$/' "$work/$name-c.txt" | tail -1)
	if [ -z "$line" ]; then
		log "perftest $name failed:"
		tail -5 "$work/$name-c.txt" | sed 's/^/rxe:   /'
		return 1
	fi
	set -- $line
	echo "RESULT perftest $name $1 $2 $5 $8 $6 $3 $4" >> "$res"
	log "perftest $name: median $5 us, p99 $8 us"
}
perftest read8 ib_read_lat 8
perftest read512 ib_read_lat 512
perftest write8 ib_write_lat 8
perftest write512 ib_write_lat 512
perftest cas8 ib_atomic_lat 8 -A CMP_AND_SWAP

# ---------------------------------------------------------------- verbs
log "verbs program (RC QP, busy-polled CQ)"
"$B" verbs-server rxe1 "$G1" "$work/vs.info" "$work/vc.info" "$work/vs.ready" \
	> "$work/vs.log" 2>&1 &
pids+=($!)
timeout 600 "$B" verbs-client rxe0 "$G0" "$work/vc.info" "$work/vs.info" \
	"$work/vs.ready" "$N" "$W" > "$work/vc.log" 2>&1 ||
	{ log "verbs client failed:"; tail -5 "$work/vc.log" "$work/vs.log"; }
kill_pids
grep '^RESULT' "$work/vc.log" >> "$res"

# ---------------------------------------------------------------- PRISM
log "PRISM (blocking prism_execute) over the same veth pair"
"$B" prism-server vb 1 "$work/ps.info" > "$work/ps.log" 2>&1 &
pids+=($!)
wait_file "$work/ps.info" 30000 || { cat "$work/ps.log"; fail "PRISM server did not start"; }
timeout 600 "$B" prism-client va "$work/ps.info" "$N" "$W" > "$work/pc.log" 2>&1 ||
	{ log "PRISM client failed:"; tail -5 "$work/pc.log"; }
kill_pids
grep '^RESULT' "$work/pc.log" >> "$res"

tx1=$(cat /sys/class/net/va/statistics/tx_packets)
echo "va tx_packets during the measurements: $((tx1 - tx0))" >> "$probe"
log "va sent $((tx1 - tx0)) packets during the measurements (traffic crossed the veth pair)"

# ---------------------------------------------------------------- report
python3 - "$res" "$out" "$N" "$W" "$(uname -r)" <<'EOF'
import json, sys
res, out, n, w, kver = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
R = {}
for line in open(res):
    f = line.split()
    if len(f) < 10 or f[0] != "RESULT":
        continue
    stack, op, size = f[1], f[2], int(f[3])
    if stack == "perftest":
        op = op.rstrip("0123456789")
    R[(stack, op, size)] = dict(zip(["n", "median", "p99", "mean", "min", "max"],
                                    [int(f[4])] + [float(x) for x in f[5:10]]))
# perftest ib_write_lat is a ping-pong and reports half the round trip;
# every other number here is a full round trip (operation to completion).
for k, v in list(R.items()):
    if k[0] == "perftest" and k[1] == "write":
        R[("perftest_rtt", "write", k[2])] = {x: (y * 2 if x != "n" else y) for x, y in v.items()}
    elif k[0] == "perftest":
        R[("perftest_rtt",) + k[1:]] = v
rows = [("READ", "read", 8, "read", 8), ("READ", "read", 512, "read", 512),
        ("WRITE", "write", 8, "write", 8), ("WRITE", "write", 512, "write", 512),
        ("CAS", "cas", 8, "cas", 8),
        ("ptr+READ", "indread", 512, "dep2read", 512),
        ("2 READs", "dep2read", 512, "dep2read", 512)]
def g(k, f):
    return R.get(k, {}).get(f)
def ratio(a, b):
    return round(a / b, 3) if a and b else None
table = []
for label, pop, psz, rop, rsz in rows:
    p, v, t = ("prism", pop, psz), ("verbs", rop, rsz), ("perftest_rtt", rop, rsz)
    table.append({
        "label": label, "bytes": psz, "prism_op": pop, "rxe_op": rop,
        "prism": R.get(p), "rxe_verbs": R.get(v),
        "rxe_perftest": R.get(("perftest", rop, rsz)),
        "ratio_median_vs_verbs": ratio(g(p, "median"), g(v, "median")),
        "ratio_p99_vs_verbs": ratio(g(p, "p99"), g(v, "p99")),
        "ratio_median_vs_perftest": ratio(g(p, "median"), g(t, "median")),
        "ratio_p99_vs_perftest": ratio(g(p, "p99"), g(t, "p99")),
    })
doc = {"benchmark": "rxe", "kernel": kver, "iterations": n, "warmup": w, "unit": "us",
       "configuration": "root netns, veth pair va/vb with policy routing; rxe0 on va, rxe1 on vb; PRISM client on va, server on vb",
       "notes": ["perftest write numbers are as reported (half of a write ping-pong); ratios use twice that",
                 "ptr+READ: one PRISM READ|INDIRECT vs two dependent rxe READs (8-byte pointer, then 512 bytes)",
                 "rxe_verbs: rxe_lat verbs-client, one signaled WR at a time, busy-polled CQ"],
       "rows": table}
json.dump(doc, open(out + "/bench-rxe.json", "w"), indent=1)
with open(out + "/bench-rxe.csv", "w") as c:
    c.write("label,bytes,stack,op,median_us,p99_us,mean_us,min_us,max_us\n")
    for (stack, op, size), v in sorted(R.items()):
        c.write("%s,%d,%s,%s,%.2f,%.2f,%.2f,%.2f,%.2f\n" % (op, size, stack, op, v["median"], v["p99"], v["mean"], v["min"], v["max"]))
with open(out + "/bench-rxe.dat", "w") as d:
    d.write("label prism_med rxe_verbs_med rxe_perftest_med prism_p99 rxe_verbs_p99 rxe_perftest_p99\n")
    for r, (label, pop, psz, rop, rsz) in zip(table, rows):
        vals = [g(("prism", pop, psz), "median"), g(("verbs", rop, rsz), "median"),
                g(("perftest_rtt", rop, rsz), "median"),
                g(("prism", pop, psz), "p99"), g(("verbs", rop, rsz), "p99"),
                g(("perftest_rtt", rop, rsz), "p99")]
        d.write('"%s %d" %s\n' % (label, psz, " ".join("%.2f" % x if x else "NaN" for x in vals)))
f = lambda x: "%8.1f" % x if x else "       -"
r = lambda x: "%7.3f" % x if x else "      -"
print("PRISM vs rxe, %d iterations, microseconds (TCG guest: ~10x native), full round trips" % n)
print("%-14s | %8s %8s | %8s %8s | %8s %8s | %7s %7s | %7s %7s" % (
    "op bytes", "PRISM", "p99", "verbs", "p99", "perftest", "p99",
    "P/verbs", "p99", "P/perf", "p99"))
for t, (label, pop, psz, rop, rsz) in zip(table, rows):
    print("%-14s | %s %s | %s %s | %s %s | %s %s | %s %s" % (
        "%s %d" % (label, psz),
        f(g(("prism", pop, psz), "median")), f(g(("prism", pop, psz), "p99")),
        f(g(("verbs", rop, rsz), "median")), f(g(("verbs", rop, rsz), "p99")),
        f(g(("perftest_rtt", rop, rsz), "median")), f(g(("perftest_rtt", rop, rsz), "p99")),
        r(t["ratio_median_vs_verbs"]), r(t["ratio_p99_vs_verbs"]),
        r(t["ratio_median_vs_perftest"]), r(t["ratio_p99_vs_perftest"])))
print("ratios = PRISM / rxe (< 1: PRISM faster).  ptr+READ = PRISM READ|INDIRECT vs two dependent rxe READs.")
print("perftest WRITE = 2 x ib_write_lat's reported half round trip.")
EOF

gnuplot <<EOF 2>&1 | sed 's/^/rxe: gnuplot: /'
set terminal pngcairo size 1000,560 noenhanced
set output "$out/bench-rxe.png"
set title "PRISM vs SoftRoCE (rxe) latency, median with p99 bar, $N iterations, TCG guest"
set ylabel "microseconds (round trip)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set key top left
set xtics rotate by -20
set yrange [0:*]
plot "$out/bench-rxe.dat" using 2:2:5:xtic(1) title "PRISM" lc rgb "#1f77b4", \
     "" using 3:3:6 title "rxe (verbs program)" lc rgb "#d62728", \
     "" using 4:4:7 title "rxe (perftest)" lc rgb "#ff7f0e"
EOF
log "results: $out/bench-rxe.json $out/bench-rxe.csv $out/bench-rxe.png $probe"
