# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Coordination of the benchmarks whose clients run on several hosts
# (kv_mh.sh, tx_mh.sh), run by tools/vm/multi.sh: guest 0 serves and
# coordinates, guests 1..N-1 run PROCS client processes each.  Everything
# goes through files of $D, the script's directory in the guests' shared
# one (multi.sh's $PRISM_MH_DIR): for
# point K guest 0 writes pt-K (one line: what the clients run, or "end"),
# each client process writes ready-K-G-P once set up, guest 0 then writes
# start-K, each process writes its result file res-K-G-P and, when all of
# a guest's are done, done-K-G ("ok" or what failed).  Source after
# lib.sh; needs $PROCS.
#
#   mh_begin NAME          first: $g (this guest), $G (guests), $WAIT (ms,
#                          PRISM_MH_WAIT_MS, default 1200000), $D =
#                          $PRISM_MH_DIR/NAME (a directory per script: two
#                          may run one after the other in the same
#                          guests), bench_begin NAME-mh[g] (TAP on guest 0)
#   mh_mark NAME TEXT      $D/NAME written atomically
#   mh_clients RUN         client guests: for each point K until "end",
#                          RUN K P LINE... for P in 1..PROCS, each to start
#                          one client process in the background that
#                          writes $mh_ready, waits for $mh_start and writes
#                          its result to $mh_res; then done-K-G.  Exits.
#   mh_point K LINE PID    guest 0: announces point K, waits (while PID,
#                          the server, lives) for every process to be
#                          ready, starts them, waits for every guest to be
#                          done; $mh_res_files: the result files
#   mh_end K               guest 0: no point K: the clients exit
#   mh_finish NAME RESULTS OBJECTS TITLE
#                          guest 0, last: mh_report.py on the merged JSON
#                          lines RESULTS (copied to $out/bench-NAME.jsonl),
#                          the timelines plotted (TITLE), then TAP: one
#                          test per CHECK line and the plot (bench_finish);
#                          needs $out, $DEPTH, $VALUE, $SECS, $IV

mh_mark() { printf '%s\n' "$2" > "$D/$1.tmp.$g" && mv -f "$D/$1.tmp.$g" "$D/$1"; }

mh_clients() {
	local run=$1 k=1 p st line pids
	while wait_file -i 0.2 "$D/pt-$k" "$WAIT"; do
		read -r line < "$D/pt-$k"
		[ "$line" = end ] && exit 0
		pids=()
		for p in $(seq "$PROCS"); do
			mh_ready=$D/ready-$k-$g-$p mh_start=$D/start-$k mh_res=$D/res-$k-$g-$p
			# shellcheck disable=SC2086
			"$run" "$k" "$p" $line 2> "$work/err-$p" &
			pids+=($!)
		done
		st=
		for p in "${!pids[@]}"; do
			wait "${pids[p]}" || st="$st $((p + 1)):$(tail -n 1 "$work/err-$((p + 1))")"
		done
		mh_mark "done-$k-$g" "${st:-ok}"
		k=$((k + 1))
	done
	fail "guest 0 announced no point $k in $WAIT ms"
}

# Guest 0 gone before mh_end (a failure): the next point is "end", so
# that the clients exit now instead of waiting for it.
mh_next=1
mh_abort() {
	[ "$g" = 0 ] && [ -n "$mh_next" ] && mh_mark "pt-$mh_next" end
	bench_cleanup
}

mh_begin() {
	g=${PRISM_GUEST:?run me with tools/vm/multi.sh}
	G=${PRISM_GUESTS:?run me with tools/vm/multi.sh}
	WAIT=${PRISM_MH_WAIT_MS:-1200000}
	D=${PRISM_MH_DIR:?run me with tools/vm/multi.sh}/$1
	mkdir -p "$D"
	bench_begin "$1-mh[$g]" "$([ "$g" = 0 ] && echo 1 || echo 0)"
	trap mh_abort EXIT
	# The waits below poll without starting a process (a sleep every
	# 20 ms costs a TCG guest more than half its vCPU, taken from the
	# server or the clients being measured).
	snooze_init "$work" || fail "snooze_init"
	[ "$G" -ge 2 ] || fail "needs 2 guests at least (multi.sh -n 3: a server, two client hosts)"
}

mh_point() {
	local k=$1 line=$2 pid=$3 c p st
	rm -f "$D/start-$k"
	mh_next=$((k + 1))
	mh_mark "pt-$k" "$line"
	for c in $(seq 1 $((G - 1))); do
		for p in $(seq "$PROCS"); do
			wait_file -i 0.05 "$D/ready-$k-$c-$p" 120000 "$pid" ||
				fail "point $k ($line): client $p of guest $c not ready ($(cat "$D/done-$k-$c" 2> /dev/null))"
		done
	done
	mh_mark "start-$k" go
	for c in $(seq 1 $((G - 1))); do
		wait_file -i 0.5 "$D/done-$k-$c" "$WAIT" || fail "point $k: guest $c did not finish"
		read -r st < "$D/done-$k-$c"
		[ "$st" = ok ] || bench_log "point $k: guest $c: client failed:$st"
	done
	mh_res_files=("$D"/res-"$k"-*)
}

mh_end() { mh_mark "pt-$1" end; mh_next=; }

mh_finish() {
	local name=$1 res=$2 objects=$3 title=$4 ncol npts
	cp "$res" "$out/bench-$name.jsonl"
	failed=0
	bench_report "$bench_dir/mh_report.py" "$name" "$res" "$out" "$work/timeline.dat" \
		"$((G - 1))" "$PROCS" "$DEPTH" "$objects" "$VALUE" "$SECS" "$IV"
	ncol=$(head -n 1 "$work/timeline.dat" | wc -w)
	# one colour per point, PRISM solid, the baseline dashed
	npts=$(head -n 1 "$work/timeline.dat" | tr ' ' '\n' | grep -c '^prism:')
	gnuplot << EOF || bench_log "gnuplot failed (results are in the JSON)"
set terminal pngcairo size 1100,800 font ",10" noenhanced
set output "$work/bench-$name.png"
set title "$title"
set key outside right
set grid
set xlabel "seconds since the start"
set ylabel "ops/s (all clients)"
plot for [i=2:$ncol] "$work/timeline.dat" using 1:i with lines lw 2 lc ((i - 2) % $npts + 1) dt 1 + (i - 2 >= $npts) title columnhead(i)
EOF
	# bench_finish: $out/$bench_name.png, one test per CHECK line
	bench_name=bench-$name
	bench_finish json
}
