# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# What the applications' demo-guest.sh scripts share (tools/demo.sh runs
# each in the guest, module loaded, with the repo root as $1).  Source it
# as "$1/tools/lib/demo_app.sh", then call demo_init:
#
#   demo_init PREFIX N        sets P=PREFIX, NHOSTS=N, rc=0 (the script's
#                             exit status) and tmp (a scratch directory),
#                             brings up hosts PREFIX1..PREFIXN (exits 1 if
#                             it cannot); at
#                             exit calls demo_cleanup if the script defines
#                             it (stop its processes), takes the hosts down
#                             and removes $tmp; SIGINT/SIGTERM exit 1
#   fail MSG...               prints "  FAILED: MSG", sets rc=1
#
# It sources hosts.sh (host_exec, wait_file, proc_exited, cpu_ticks, ...).

# shellcheck source=hosts.sh
. "$(dirname "${BASH_SOURCE[0]}")/hosts.sh"

_demo_exit() {
	if declare -F demo_cleanup >/dev/null; then demo_cleanup; fi
	hosts_down "$P" "$NHOSTS"
	rm -rf "$tmp"
}

demo_init() {
	P=$1 NHOSTS=$2
	# shellcheck disable=SC2034 # the script's exit status
	rc=0
	tmp=$(mktemp -d "/tmp/$P-demo.XXXXXX")
	trap _demo_exit EXIT
	trap 'exit 1' INT TERM
	hosts_up "$P" "$NHOSTS" || { echo "$P: cannot create hosts"; exit 1; }
}

# shellcheck disable=SC2034 # rc: the script's exit status
fail() { echo "  FAILED: $*"; rc=1; }
