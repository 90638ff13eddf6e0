# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Wall-clock waits for tests and benchmarks run inside the guest.  Sourced
# by prism_lib.sh and hosts.sh.
#
# Every bound is wall-clock milliseconds: under TCG a loop of N short
# sleeps takes far longer than N x the sleep.  With a PID, a wait gives up
# as soon as that process is gone (or a zombie), after one last look.
# -i SECS sets the poll interval (default 0.02 s).
#
#   now_ms [VAR]              milliseconds since the epoch, printed or put
#                             in VAR (no subprocess)
#   proc_exited PID           PID is gone or a zombie
#   cpu_ticks PID             CPU time PID has used (utime + stime, ticks)
#   snooze_init DIR           let snooze sleep without a process (a FIFO
#                             DIR/snooze held open read-write)
#   snooze SECS               sleep SECS (`sleep` until snooze_init)
#   wait_file [-i S] FILE MS [PID]
#                             until FILE is non-empty
#   wait_line [-i S] FILE REGEX MS [PID]
#                             until a line of FILE matches REGEX (bash =~)
#   wait_until [-i S] [-p PID] MS CMD...
#                             until CMD... succeeds
#   wait_exit [-i S] PID MS   until PID (a child) exits: its status; after
#                             MS it is killed (SIGKILL, reaped), status 124
#   has_line FILE REGEX       a line of FILE matches REGEX

now_ms() {
	local u=${EPOCHREALTIME//[!0-9]/}
	if [ $# -gt 0 ]; then
		printf -v "$1" %s $((u / 1000))
	else
		echo $((u / 1000))
	fi
}

# proc_exited PID: the process is gone or a zombie (kill -0 still succeeds
# on a zombie its parent has not reaped yet).
proc_exited() {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 0
	st=${st##*) }	# after "pid (comm) ": comm may hold spaces
	[ "${st%% *}" = Z ]
}

cpu_ticks() {
	local st f
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	read -ra f <<<"${st##*) }"	# f[0] is field 3 (state)
	echo $((f[11] + f[12]))
}

_snooze_fd=
snooze_init() {
	mkfifo "$1/snooze" && exec {_snooze_fd}<>"$1/snooze"
}
snooze() {
	if [ -n "$_snooze_fd" ]; then
		read -r -t "$1" -u "$_snooze_fd" _ 2>/dev/null
		return 0
	fi
	sleep "$1"
}

has_line() {
	local line
	while IFS= read -r line; do
		[[ $line =~ $2 ]] && return 0
	done < "$1"
	return 1
} 2>/dev/null

# _wait_poll ITV MS PID CMD...: the loop behind the waits.
_wait_poll() {
	local itv=$1 pid=$3 now end
	now_ms now
	end=$((now + $2))
	shift 3
	until "$@"; do
		now_ms now
		[ "$now" -ge "$end" ] && return 1
		if [ -n "$pid" ] && proc_exited "$pid"; then
			"$@"
			return
		fi
		snooze "$itv"
	done
}

_wait_nonempty() { [ -s "$1" ]; }

wait_file() {
	local itv=0.02
	[ "$1" = -i ] && { itv=$2; shift 2; }
	_wait_poll "$itv" "$2" "${3:-}" _wait_nonempty "$1"
}

wait_line() {
	local itv=0.02
	[ "$1" = -i ] && { itv=$2; shift 2; }
	_wait_poll "$itv" "$3" "${4:-}" has_line "$1" "$2"
}

wait_until() {
	local itv=0.02 pid=
	while :; do
		case $1 in
		-i) itv=$2; shift 2 ;;
		-p) pid=$2; shift 2 ;;
		*) break ;;
		esac
	done
	local ms=$1
	shift
	_wait_poll "$itv" "$ms" "$pid" "$@"
}

wait_exit() {
	local itv=0.02
	[ "$1" = -i ] && { itv=$2; shift 2; }
	if ! _wait_poll "$itv" "$2" "" proc_exited "$1"; then
		kill -9 "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}
