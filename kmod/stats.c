// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM counters: per socket (getsockopt PRISM_STATS) and per network
 * namespace (/proc/net/prism).
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/stringify.h>
#include <net/net_namespace.h>
#include "prism_net.h"

/*
 * The names of /proc/net/prism: those of PRISM_STATS_LIST, in its order,
 * which is that of enum prism_stat.
 */
#define PRISM_STAT_NAME(ID, name)	__stringify(name),
static const char * const prism_stat_names[PRISM_STAT_NR] = {
	PRISM_STATS_LIST(PRISM_STAT_NAME)
};

#undef PRISM_STAT_NAME

/* The uapi struct is the same counters in the same order. */
static_assert(sizeof(struct prism_stats) == PRISM_STAT_NR * sizeof(u64));

/**
 * prism_stat_add() - add to a counter
 * @net: network namespace whose counter (/proc/net/prism) grows
 * @psk: socket whose counter (PRISM_STATS) grows too, or NULL
 * @idx: the counter
 * @n: amount to add (0: nothing happens)
 *
 * Context: Any context.
 */
void prism_stat_add(struct net *net, struct prism_sock *psk,
		    enum prism_stat idx, u64 n)
{
	struct prism_net *pn = prism_pernet(net);

	if (!n)
		return;
	this_cpu_add(pn->stats->c[idx], n);
	if (psk)
		atomic64_add(n, &psk->stats[idx]);
}

/**
 * prism_stats_fill() - copy the counters of a socket
 * @psk: the socket
 * @out: receives the counters (same order as &enum prism_stat)
 *
 * Each counter is read atomically, not the set as a whole.
 *
 * Context: Any context.
 */
void prism_stats_fill(struct prism_sock *psk, struct prism_stats *out)
{
	u64 *c = (u64 *)out;
	int i;

	for (i = 0; i < PRISM_STAT_NR; i++)
		c[i] = atomic64_read(&psk->stats[i]);
}

static int prism_proc_show(struct seq_file *seq, void *v)
{
	struct prism_net *pn = prism_pernet(seq_file_single_net(seq));
	u64 sum[PRISM_STAT_NR] = {}, sessions = 0, rcache = 0;
	struct prism_sock *psk;
	unsigned long ep;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct prism_netns_stats *s = per_cpu_ptr(pn->stats, cpu);

		for (i = 0; i < PRISM_STAT_NR; i++)
			sum[i] += READ_ONCE(s->c[i]);
	}
	for (i = 0; i < PRISM_STAT_NR; i++)
		seq_printf(seq, "%s %llu\n", prism_stat_names[i], sum[i]);
	/* Gauges, not counters: pages pinned by regions right now, */
	seq_printf(seq, "pinned_pages %lld\n",
		   (long long)atomic64_read(&pn->pinned_pages));
	/* client sessions and bytes of cached replies of all sockets. */
	rcu_read_lock();
	xa_for_each(&pn->eps, ep, psk) {
		sessions += READ_ONCE(psk->nsessions);
		rcache += atomic_read(&psk->rcache_bytes);
	}
	rcu_read_unlock();
	seq_printf(seq, "sessions %llu\nrcache_bytes %llu\n", sessions, rcache);
	return 0;
}

/**
 * prism_proc_init() - create /proc/net/prism in a network namespace
 * @net: the namespace
 *
 * Context: Process context, from the namespace's init.
 * Return: 0, or -ENOMEM if the file could not be created.
 */
int prism_proc_init(struct net *net)
{
	if (!proc_create_net_single("prism", 0444, net->proc_net,
				    prism_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

/**
 * prism_proc_exit() - remove /proc/net/prism from a network namespace
 * @net: the namespace
 *
 * Context: Process context, from the namespace's exit.
 */
void prism_proc_exit(struct net *net)
{
	remove_proc_entry("prism", net->proc_net);
}
