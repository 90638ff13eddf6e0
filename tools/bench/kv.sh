#!/bin/bash
# SPDX-License-Identifier: MIT
#
# PRISM-KV benchmark, run INSIDE the guest as root:
#
#   make -C apps/kv        (on the host)
#   tools/vm/run.sh --timeout 900 -- env PRISM_KO=$PWD/kmod/prism.ko tools/bench/kv.sh
#
# YCSB-style workloads A (50% GET / 50% PUT), B (95/5), C (100% GET), keys
# uniform or Zipf 0.99 (scrambled), values of 64 B to 64 KiB (an axis: every
# workload and distribution at every value size), N closed-loop clients,
# each in its own network namespace, the server in another (tools/lib/hosts.sh).
# Systems: PRISM-KV (one-sided), the Pilaf-style baseline (one-sided GET,
# PUT by RPC to the server CPU) and memcached over TCP between the same
# namespaces.  For each point: throughput, mean and p99 latency, and the CPU
# time (utime + stime) the server process used.
#
# Output: $PRISM_OUT/bench-kv.json, $PRISM_OUT/bench-kv.png (gnuplot).
# Environment: PRISM_KO, PRISM_OUT, KV_BENCH_SECONDS (per point, default 3),
# KV_BENCH_CLIENTS (default 2), KV_BENCH_RECORDS (default 1000),
# KV_BENCH_VALUES (value sizes, default "64 512 4096 65536"; over about 1 KiB
# they need the module's large operations), KV_BENCH_WORKLOADS (default
# "A B C"), KV_BENCH_DISTS (default "uniform zipf"), KV_BENCH_SYSTEMS
# (default "prism pilaf memcached"), KV_BENCH_PRELOAD=1 (the PRISM and Pilaf
# servers store the records themselves, kv-server --preload, restarted for
# each value size: the paper's 8 M records load in seconds; memcached is
# still loaded by PUTs, 64 in flight; each point then records the server's
# bytes per object, memcached's its item bytes per record), KV_BENCH_MEM
# (memcached -m, MiB, default 256).  The apps/kv guest
# suite runs a smoke of one point per value size.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
B=$repo/apps/kv/build
KO=${PRISM_KO:-$repo/kmod/prism.ko}
SECONDS_PER_POINT=${KV_BENCH_SECONDS:-3}
NCLIENTS=${KV_BENCH_CLIENTS:-2}
RECORDS=${KV_BENCH_RECORDS:-1000}
VALUES=${KV_BENCH_VALUES:-64 512 4096 65536}
WORKLOADS=${KV_BENCH_WORKLOADS:-A B C}
DISTS=${KV_BENCH_DISTS:-uniform zipf}
SYSTEMS=${KV_BENCH_SYSTEMS:-prism pilaf memcached}
PRELOAD=${KV_BENCH_PRELOAD:-0}
MC_MEM=${KV_BENCH_MEM:-256}
out=${PRISM_OUT:-$repo/build/vm-out}
P=kvb
NHOSTS=$((NCLIENTS + 1))
MC_PORT=11311
# shellcheck source=lib.sh
. "$here/lib.sh"

bench_begin bench-kv
server=

# SIGTERM, SIGKILL after 10 s.
stop_server() {
	[ -n "$server" ] || return 0
	kill -TERM "$server" 2>/dev/null
	wait_exit -i 0.05 "$server" 10000 2>/dev/null
	server=
}

cleanup() {
	stop_server
	hosts_down $P $NHOSTS
	bench_cleanup
}
trap cleanup EXIT

[ -x "$B/kv" ] && [ -x "$B/kv-server" ] || fail "run 'make -C apps/kv' on the host first"
command -v memcached >/dev/null || SYSTEMS=${SYSTEMS/memcached/}
load_module prism "$KO" || fail "insmod $KO failed"
mkdir -p "$out"
hosts_down $P $NHOSTS
hosts_up $P $NHOSTS || fail "cannot create network namespaces"
for i in $(seq $NHOSTS); do
	ip -n $P$i addr add 10.89.0.$i/24 dev eth0
done
hz=$(getconf CLK_TCK)

# mc_per_object: memcached's bytes of items per stored record (its stats
# "bytes" over "curr_items"), or null
mc_per_object() {
	ip netns exec ${P}2 bash -c "exec 3<>/dev/tcp/10.89.0.1/$MC_PORT && printf 'stats\r\nquit\r\n' >&3 && cat <&3" 2>/dev/null |
		awk '$2 == "bytes" { b = $3 + 0 } $2 == "curr_items" { n = $3 + 0 }
		     END { if (n > 0) printf "%.1f\n", b / n; else print "null" }'
}

# kvh HOST SYSTEM ARGS...: the kv driver in HOST talking to SYSTEM
kvh() {
	local h=$1 sys=$2
	shift 2
	if [ "$sys" = memcached ]; then
		host_exec $P "$h" "$B/kv" --memcached 10.89.0.1:$MC_PORT "$@"
	else
		host_exec $P "$h" "$B/kv" --if eth0 --info "$work/$sys.info" "$@"
	fi
}

# start SYSTEM VALUE: the server; with PRELOAD, holding the records at VALUE
# bytes (and as many slots as that takes), and $per_object its bytes per
# record, else "null".
start() {
	local sys=$1 value=$2 i pre=(--slots 65536)
	rm -f "$work/$sys.info"
	per_object=null
	[ "$PRELOAD" = 1 ] && pre=(--preload "$RECORDS" --value "$value")
	case $sys in
	prism|pilaf)
		# ip netns exec execs: $! is the server, for /proc/PID/stat
		ip netns exec ${P}1 "$B/kv-server" --if eth0 --ep 200 --mode "$sys" \
			--info "$work/$sys.info" "${pre[@]}" --bufs 4096 \
			>"$work/$sys.log" 2>&1 &
		server=$!
		# a preload of 8 M records takes minutes in TCG
		wait_file -i 0.2 "$work/$sys.info" 1800000 "$server" ||
			{ cat "$work/$sys.log"; fail "$sys server did not start"; }
		if [ "$PRELOAD" = 1 ]; then
			per_object=$(sed -n 's/.* per_object_B=\([0-9.]*\) .*/\1/p' "$work/$sys.log")
			[ -n "$per_object" ] || fail "$sys: no preload report"
			grep preloaded "$work/$sys.log"
		fi
		;;
	memcached)
		# one worker thread, like the single-threaded kv-server
		ip netns exec ${P}1 memcached -u root -l 10.89.0.1 -p $MC_PORT -U 0 \
			-t 1 -m "$MC_MEM" >"$work/mc.log" 2>&1 &
		server=$!
		wait_until -i 0.05 -p "$server" 30000 \
			kvh 2 memcached bench --load --records 1 >/dev/null 2>&1 ||
			{ cat "$work/mc.log"; fail "memcached did not start"; }
		;;
	esac
}

results=$work/results.jsonl
: >"$results"
for sys in $SYSTEMS; do
	for value in $VALUES; do
		if [ "$PRELOAD" = 1 ] && [ "$sys" != memcached ]; then
			stop_server
			start "$sys" "$value"
		else
			[ -n "$server" ] || start "$sys" "$value"
			# every record rewritten at this value size
			kvh 2 "$sys" bench --load --records "$RECORDS" --value "$value" >/dev/null ||
				fail "$sys: load of $value-byte values failed"
			[ "$sys" = memcached ] && per_object=$(mc_per_object)
		fi
		for wl in $WORKLOADS; do
			for dist in $DISTS; do
				pids=() ready=()
				rm -f "$work"/ready-* "$work/go"
				for c in $(seq 2 $NHOSTS); do
					kvh "$c" "$sys" bench --workload $wl --dist $dist \
						--records "$RECORDS" --value "$value" \
						--seconds "$SECONDS_PER_POINT" --seed $((c * 1000 + RANDOM)) \
						--ready "$work/ready-$c" --start "$work/go" \
						--out "$work/r-$c" 2>"$work/err-$c" &
					pids+=($!)
					ready+=("$work/ready-$c" $!)
				done
				# all set up (a Zipf table of millions of keys takes
				# seconds), then all start at once
				wait_ready "${ready[@]}" ||
					{ cat "$work"/err-*; fail "$sys: a client did not get ready"; }
				t0=$(cpu_ticks "$server")
				touch "$work/go"
				for p in "${pids[@]}"; do wait "$p"; done
				t1=$(cpu_ticks "$server")
				res=$("$B/kv" merge "$work"/r-*) || fail "$sys $value $wl $dist: no results"
				cpu=$(awk -v t=$((t1 - t0)) -v hz="$hz" 'BEGIN { printf "%.3f", t / hz }')
				line="{\"system\": \"$sys\", \"value\": $value, \"workload\": \"$wl\", \"dist\": \"$dist\", \"records\": $RECORDS, \"bytes_per_object\": $per_object, \"server_cpu_s\": $cpu, ${res#\{}"
				echo "$line" >>"$results"
				echo "bench-kv: $line"
				rm -f "$work"/r-*
			done
		done
	done
	stop_server
done

python3 "$here/kv_report.py" "$results" "$out/bench-kv.json" "$work/plot.dat" \
	"$NCLIENTS" "$RECORDS" "$VALUES" "$SECONDS_PER_POINT"
[ $? = 0 ] || fail "could not assemble $out/bench-kv.json"

nsys=$(head -1 "$work/plot.dat" | awk '{ print (NF - 1) / 2 }')
bench_plot "$out/bench-kv.png" \
	"PRISM-KV vs Pilaf vs memcached: $NCLIENTS clients, values of $VALUES bytes, TCG guest" <<EOF
set key top left
set grid ytics
set ylabel "throughput (kops/s)"
plot for [i=1:$nsys] "$work/plot.dat" using 2*i:xtic(1) title columnhead(2*i)
set ylabel "p99 latency (us)"
plot for [i=1:$nsys] "$work/plot.dat" using 2*i+1:xtic(1) title columnhead(2*i+1)
EOF
echo "bench-kv: results in $out/bench-kv.json and $out/bench-kv.png"
