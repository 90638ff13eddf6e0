# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Memory cgroups (cgroup v2) for tests run inside the guest as root: the
# module charges what it allocates for a socket (__GFP_ACCOUNT) to the
# memory cgroup of the process that created it, so a process in a cgroup
# of its own shows the module's memory for its sockets.  Sourced by
# prism_lib.sh.
#
#   memcg_new VAR NAME        cgroup NAME (empty) under /sys/fs/cgroup,
#                             which is mounted (MEMCG_MOUNTED=1) and
#                             given the memory controller if need be; its
#                             directory in VAR; 1 without a memory
#                             controller (e.g. a kernel without MEMCG)
#   memcg_enter DIR           move this shell (BASHPID) into DIR: call it
#                             in a subshell that then execs the program,
#                             so everything it allocates is charged there
#   memcg_kernel DIR          bytes of kernel memory charged to DIR (the
#                             "kernel" line of memory.stat: slab, kmalloc
#                             and page allocations with __GFP_ACCOUNT,
#                             stacks, page tables)
#   memcg_del DIR             kill what is left in DIR, remove it
#   memcg_cleanup             unmount /sys/fs/cgroup if memcg_new mounted it

MEMCG_ROOT=/sys/fs/cgroup
MEMCG_MOUNTED=${MEMCG_MOUNTED:-0}

memcg_new() {
	local mnt type
	while read -r _ mnt type _; do
		[ "$mnt" = "$MEMCG_ROOT" ] && [ "$type" = cgroup2 ] && break
	done < /proc/mounts
	if [ "$mnt" != "$MEMCG_ROOT" ] || [ "$type" != cgroup2 ]; then
		mount -t cgroup2 none "$MEMCG_ROOT" || return 1
		MEMCG_MOUNTED=1
	fi
	grep -qw memory "$MEMCG_ROOT/cgroup.subtree_control" ||
		echo +memory > "$MEMCG_ROOT/cgroup.subtree_control" || return 1
	mkdir -p "$MEMCG_ROOT/$2" || return 1
	printf -v "$1" %s "$MEMCG_ROOT/$2"
}

memcg_enter() { echo "$BASHPID" > "$1/cgroup.procs"; }

memcg_kernel() { awk '$1 == "kernel" { print $2 }' "$1/memory.stat"; }

memcg_del() {
	local p
	[ -d "$1" ] || return 0
	for p in $(cat "$1/cgroup.procs" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
	wait_until -i 0.1 5000 rmdir "$1" 2>/dev/null
}

memcg_cleanup() {
	[ "$MEMCG_MOUNTED" = 1 ] || return 0
	umount "$MEMCG_ROOT" 2>/dev/null && MEMCG_MOUNTED=0
}
