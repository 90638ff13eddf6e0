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
