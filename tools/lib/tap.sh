# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# TAP output and counting for the guest test suites (the kernel's
# kselftest ktap_helpers.sh is the model).  Sourced by prism_lib.sh.
#
# The format is the one tools/run-tests.sh counts: unindented
# "ok N - DESC", "not ok N - DESC", "ok N - DESC # SKIP REASON", a plan
# "1..N" (first or last), "Bail out! ..."; comments start with "# ".
#
#   tap_header                "TAP version 13"
#   tap_plan N                "1..N" now; tap_finish checks the count
#   ok DESC...                one passing test
#   not_ok DESC...            one failing test
#   skip DESC REASON          one skipped test
#   tap_result RC DESC...     ok if RC is 0, else not ok
#   check DESC EXPR [DIAG]    ok if `eval EXPR` succeeds; else not ok, and
#                             DIAG (a shell string, expanded then) printed
#                             as "#   " comments; returns 0
#   check_cmd DESC CMD...     ok if CMD... succeeds (run as is, no eval)
#   diag [FILE...]            FILEs (or stdin) as "# " comments
#   bail MSG...               "Bail out! MSG" and exit 1
#   tap_finish                the plan if none was printed (or a comment
#                             and one failure if the count differs from
#                             it), a summary comment; status 0 iff no
#                             test failed.  Call it last.
#
# Counters: TAP_N (tests so far), TAP_FAILED, TAP_SKIPPED, TAP_PLAN.
# Every short name has a tap_ twin (tap_ok, tap_not_ok, tap_skip,
# tap_check, tap_check_cmd, tap_diag, tap_bail) for scripts that wrap the
# short name with semantics of their own.

TAP_N=0
TAP_FAILED=0
TAP_SKIPPED=0
TAP_PLAN=

tap_header() { echo "TAP version 13"; }
tap_plan() { TAP_PLAN=$1; echo "1..$1"; }

tap_ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; }
tap_not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $*"
}
tap_skip() {	# DESC REASON
	TAP_N=$((TAP_N + 1))
	TAP_SKIPPED=$((TAP_SKIPPED + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}
tap_result() {	# RC DESC...
	local rc=$1
	shift
	if [ "$rc" = 0 ]; then tap_ok "$@"; else tap_not_ok "$@"; fi
}

tap_check() {	# DESC EXPR [DIAG]
	if eval "$2"; then
		tap_ok "$1"
	else
		tap_not_ok "$1"
		[ -n "${3:-}" ] && eval "echo \"$3\"" | sed 's/^/#   /'
	fi
	return 0
}
tap_check_cmd() {	# DESC CMD...
	local desc=$1
	shift
	if "$@"; then tap_ok "$desc"; else tap_not_ok "$desc"; fi
}

tap_diag() { sed 's/^/# /' "$@" 2>/dev/null; }
tap_bail() { echo "Bail out! $*"; exit 1; }

tap_finish() {
	if [ -z "$TAP_PLAN" ]; then
		echo "1..$TAP_N"
	elif [ "$TAP_N" != "$TAP_PLAN" ]; then
		echo "# planned $TAP_PLAN tests, ran $TAP_N"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
	echo "# $((TAP_N - TAP_FAILED - TAP_SKIPPED)) passed, $TAP_FAILED failed, $TAP_SKIPPED skipped"
	[ "$TAP_FAILED" = 0 ]
}

ok() { tap_ok "$@"; }
not_ok() { tap_not_ok "$@"; }
skip() { tap_skip "$@"; }
check() { tap_check "$@"; }
check_cmd() { tap_check_cmd "$@"; }
diag() { tap_diag "$@"; }
bail() { tap_bail "$@"; }
