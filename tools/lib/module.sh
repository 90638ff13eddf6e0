# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Loading the module in the guest.  Sourced by prism_lib.sh and hosts.sh.
#
#   prism_load KO [PARAM=V...]
#                             insmod KO unless prism is loaded (0 on
#                             success); PRISM_LOADED_HERE=1 if this
#                             loaded it.  KO may be empty when prism is
#                             loaded; a failure says why on stderr
#   prism_unload              rmmod prism if prism_load loaded it
#   prism_stuck_report        what a step that hangs leaves to look at:
#                             every user process (state, wchan, kernel
#                             stack), the nonzero counters of each netns,
#                             the module's refcount, the kernel log's tail

PRISM_LOADED_HERE=${PRISM_LOADED_HERE:-0}

prism_load() {
	[ -d /sys/module/prism ] && return 0
	if [ -z "${1:-}" ]; then
		echo "prism_load: prism is not loaded and no prism.ko was named (PRISM_KO)" >&2
		return 1
	fi
	insmod "$@" || return 1	# insmod says why
	PRISM_LOADED_HERE=1
}

prism_unload() {
	[ "$PRISM_LOADED_HERE" = 1 ] || return 0
	rmmod prism 2>/dev/null || return 1
	PRISM_LOADED_HERE=0
}

prism_stuck_report() {
	local d pid st cmd ns
	echo "stuck: processes (pid state wchan: command; kernel stack)"
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null | cut -c1-160)
		[ -n "$cmd" ] || continue	# kernel threads (size 0 in /proc)
		read -r st 2>/dev/null <"$d/stat" || continue
		st=${st##*) }
		echo "  $pid ${st%% *} $(cat "$d/wchan" 2>/dev/null): $cmd"
		case $cmd in
		bash*|/bin/bash*|sh\ *|/bin/sh*|sleep*|dmesg*|*busybox*) ;;
		*) sed 's/^/      /' "$d/stack" 2>/dev/null | head -n 8 ;;
		esac
	done
	echo "stuck: prism refcount $(cat /sys/module/prism/refcnt 2>/dev/null || echo -)"
	for ns in "" $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		echo "stuck: counters of ${ns:-the root netns} (nonzero):" \
			"$(${ns:+ip netns exec "$ns"} awk '$2 != 0 { printf "%s=%s ", $1, $2 }' \
				/proc/net/prism 2>/dev/null)"
	done
	echo "stuck: kernel log, last 25 lines"
	dmesg 2>/dev/null | tail -n 25 | sed 's/^/  /'
}
