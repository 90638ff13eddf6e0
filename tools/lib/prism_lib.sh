# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The shell library of the PRISM tests run inside the guest (the kernel's
# kselftest ktap_helpers.sh and mptcp_lib.sh are the models).  Source this
# one file:
#
#   . "$repo/tools/lib/prism_lib.sh"
#
# tap.sh     TAP output and counting: tap_plan, ok, not_ok, skip, check,
#            check_cmd, diag, bail, tap_finish (the summary; exit status)
# wait.sh    wall-clock waits that notice a dead process: wait_file,
#            wait_line, wait_until, wait_exit; now_ms, proc_exited, snooze
# hosts.sh   hosts (network namespaces on one bridge): hosts_up,
#            hosts_down, host_exec, host_mac, host_link (PRISM_LINK=udp)
# module.sh  prism_load, prism_unload
# memcg.sh   memory cgroups: memcg_new, memcg_enter, memcg_kernel,
#            memcg_del, memcg_cleanup
#
# Not sourced here: demo_app.sh, the setup of the applications'
# demo-guest.sh scripts (make demo), and c/, the C helper library.
#
# Each file's header documents its functions.  A script whose helper has
# semantics of its own wraps the tap_ form (tap_ok, tap_check, ...) under
# the short name after sourcing this.

_prism_lib=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tap.sh
. "$_prism_lib/tap.sh"
# shellcheck source=wait.sh
. "$_prism_lib/wait.sh"
# shellcheck source=module.sh
. "$_prism_lib/module.sh"
# shellcheck source=hosts.sh
. "$_prism_lib/hosts.sh"
# shellcheck source=memcg.sh
. "$_prism_lib/memcg.sh"
unset _prism_lib
