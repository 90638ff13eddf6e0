// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-core receive: target-side frames (requests, their segments, grants
 * for answers) are spread over the CPUs by a hash of the client session
 * (source link address, source endpoint, session nonce).  On raw Ethernet
 * NIC RSS and RPS cannot do it: the flow dissector does not know our
 * EtherType, so every PRISM frame of a receive queue hashes alike and
 * lands on one CPU.  (In UDP mode they can: udp.c hashes sessions into
 * source ports.)
 *
 * prism_link_rcv() validates a frame on the CPU that received it, then asks
 * prism_steer_frame() where it goes.  The hash picks one CPU of the map
 * (online CPUs of module parameter steer_cpus).  Its own CPU with an empty
 * queue: the frame is processed inline.  Otherwise it is appended to that
 * CPU's PRISM queue (bounded by netdev_max_backlog; drops count as
 * rx_dropped) and that CPU is kicked: an IPI (as RPS sends) schedules its
 * NAPI instance, whose poll runs the queued frames in softirq there.  One
 * session always maps to one CPU and its queue is FIFO, so the frames of
 * a session are served in arrival order, one at a time; the map changes
 * only when steer_cpus is written or a CPU comes or goes.
 *
 * Lifetimes: a queued skb has no reference on its device: an interface
 * being unregistered has its frames removed (prism_steer_flush_dev()), and
 * the poll runs them in softirq, inside the grace period that precedes the
 * device's freeing.  CPU hotplug: a CPU leaves the map before it goes
 * offline (after a grace period, nobody queues to it); frames already on
 * its queue are run by its NAPI, which the core moves to a live CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include "prism_net.h"
#include "compat.h"
#include "seg.h"
#include "steer.h"

/* Off by default: it cost 14% in the only setting measured (MCORE-BENCH). */
static bool steer;
module_param(steer, bool, 0644);
MODULE_PARM_DESC(steer,
		 "spread target-side frames over the CPUs by client session (default 0)");

/* The CPUs frames are steered to, in the order the hash indexes them. */
struct prism_steer_map {
	unsigned int	len;
	u16		cpus[];
};

/**
 * struct prism_steer_cpu - the PRISM receive queue of one CPU
 * @q: frames steered to this CPU, oldest first
 * @napi: runs @q in softirq on this CPU
 * @csd: the IPI that schedules @napi from another CPU
 * @ipi_pending: bit 0 set while @csd is sent and its handler did not run
 * @cpu: this CPU
 */
struct prism_steer_cpu {
	struct sk_buff_head	q;
	struct napi_struct	napi;
	call_single_data_t	csd;
	unsigned long		ipi_pending;
	unsigned int		cpu;
};

static struct prism_steer_cpu __percpu *prism_steer_cpus;
static struct prism_steer_map __rcu *prism_steer_map;
static struct net_device *prism_steer_dev;	/* owner of the NAPIs */
static u32 prism_steer_seed;
static int prism_steer_hp;			/* cpuhp state */

/* Under prism_steer_mutex (taken after cpus_read_lock()). */
static DEFINE_MUTEX(prism_steer_mutex);
static struct cpumask prism_steer_allowed;
static bool prism_steer_all = true;		/* steer_cpus empty: all */
static bool prism_steer_ready;			/* map maintained */

/**
 * prism_steer_hash() - hash of a client session
 * @src: link address of the frame's sender
 * @src_ep: its source endpoint id
 * @session: its session nonce
 * @seed: random per module load, so that clients cannot aim at a CPU
 *
 * Context: Any context.
 * Return: the hash.
 */
u32 prism_steer_hash(const struct prism_paddr *src, u32 src_ep, u32 session,
		     u32 seed)
{
	return jhash_2words(src_ep, session, prism_paddr_hash(src, seed));
}
EXPORT_SYMBOL_IF_KUNIT(prism_steer_hash);

/**
 * prism_steer_map_fill() - the CPUs frames may be steered to
 * @cpus: receives them, in increasing order (room for @nbits)
 * @allowed: bitmap of the CPUs the administrator allows (steer_cpus)
 * @online: bitmap of the CPUs online
 * @nbits: bits in @allowed and @online (nr_cpu_ids)
 * @exclude: a CPU going offline (still in @online), or -1
 *
 * Context: Any context.
 * Return: how many CPUs were written to @cpus (0: process inline).
 */
unsigned int prism_steer_map_fill(u16 *cpus, const unsigned long *allowed,
				  const unsigned long *online, unsigned int nbits,
				  int exclude)
{
	unsigned int cpu, n = 0;

	for_each_set_bit(cpu, allowed, nbits)
		if (test_bit(cpu, online) && cpu != exclude)
			cpus[n++] = cpu;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(prism_steer_map_fill);

/**
 * prism_steer_pick() - the CPU of a hash
 * @hash: prism_steer_hash() of the frame's session
 * @cpus: the map (prism_steer_map_fill())
 * @n: CPUs in it, at least 1
 *
 * Context: Any context.
 * Return: one CPU of @cpus; hashes spread evenly over them.
 */
unsigned int prism_steer_pick(u32 hash, const u16 *cpus, unsigned int n)
{
	return cpus[reciprocal_scale(hash, n)];
}
EXPORT_SYMBOL_IF_KUNIT(prism_steer_pick);

/* Replace the map; @exclude: a CPU going offline, or -1. */
static void prism_steer_rebuild(int exclude)
{
	struct prism_steer_map *map, *old;
	const struct cpumask *allowed;

	lockdep_assert_held(&prism_steer_mutex);
	allowed = prism_steer_all ? cpu_possible_mask : &prism_steer_allowed;
	map = kzalloc(struct_size(map, cpus, nr_cpu_ids), GFP_KERNEL);
	/* Out of memory: no steering rather than a stale map. */
	if (map) {
		map->len = prism_steer_map_fill(map->cpus,
						cpumask_bits(allowed),
						cpumask_bits(cpu_online_mask),
						nr_cpu_ids, exclude);
		if (!map->len) {
			kfree(map);
			map = NULL;
		}
	}
	old = rcu_replace_pointer(prism_steer_map, map,
				  lockdep_is_held(&prism_steer_mutex));
	/* Nobody steers by the old map (to an excluded CPU) past this. */
	synchronize_net();
	kfree(old);
}

static int prism_steer_cpus_set(const char *val, const struct kernel_param *kp)
{
	cpumask_var_t mask;
	char *buf;
	int err;

	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL)) {
		kfree(buf);
		return -ENOMEM;
	}
	val = strim(buf);
	err = (!*val || !strcmp(val, "all")) ? 0 : cpulist_parse(val, mask);
	if (!err) {
		cpus_read_lock();
		mutex_lock(&prism_steer_mutex);
		prism_steer_all = !*val || !strcmp(val, "all");
		cpumask_copy(&prism_steer_allowed, mask);
		if (prism_steer_ready)
			prism_steer_rebuild(-1);
		mutex_unlock(&prism_steer_mutex);
		cpus_read_unlock();
	}
	free_cpumask_var(mask);
	kfree(buf);
	return err;
}

static int prism_steer_cpus_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&prism_steer_mutex);
	if (prism_steer_all)
		n = sysfs_emit(buf, "all\n");
	else
		n = sysfs_emit(buf, "%*pbl\n",
			       cpumask_pr_args(&prism_steer_allowed));
	mutex_unlock(&prism_steer_mutex);
	return n;
}

static const struct kernel_param_ops prism_steer_cpus_ops = {
	.set	= prism_steer_cpus_set,
	.get	= prism_steer_cpus_get,
};

module_param_cb(steer_cpus, &prism_steer_cpus_ops, NULL, 0644);
MODULE_PARM_DESC(steer_cpus,
		 "CPUs that serve steered frames, a list like 0-3,6 (default all; offline ones are skipped)");

/* The frames served by the target side: requests, their segments, grants. */
static bool prism_steer_wanted(const struct prism_whdr *hdr)
{
	u32 body_len = ntohs(hdr->body_len);

	switch (hdr->type) {
	case PRISM_T_REQ:
	case PRISM_T_SREQ:
	case PRISM_T_AREQ:
		return true;
	case PRISM_T_SEG:
		return body_len >= sizeof(struct prism_wseg) &&
		       ((const struct prism_wseg *)(hdr + 1))->dir ==
		       PRISM_SEG_REQ;
	case PRISM_T_GRANT:
		return body_len == sizeof(struct prism_wgrant) &&
		       ((const struct prism_wgrant *)(hdr + 1))->dir ==
		       PRISM_SEG_RESP;
	}
	return false;
}

/* IPI handler on the CPU of @data: run its queue. */
static void prism_steer_ipi(void *data)
{
	struct prism_steer_cpu *sc = data;

	clear_bit(0, &sc->ipi_pending);
	/* A sender that sees the bit clear sends another IPI: SCHED after. */
	smp_mb__after_atomic();
	napi_schedule_irqoff(&sc->napi);
}

/* Queue @skb on @sc and make sure its NAPI runs; consumes @skb. */
static void prism_steer_enqueue(struct prism_steer_cpu *sc, struct sk_buff *skb,
				bool local)
{
	spin_lock(&sc->q.lock);
	if (skb_queue_len(&sc->q) >= prism_netdev_max_backlog()) {
		spin_unlock(&sc->q.lock);
		prism_stat_add(dev_net(skb->dev), NULL, PRISM_STAT_RX_DROPPED, 1);
		kfree_skb(skb);
		return;
	}
	__skb_queue_tail(&sc->q, skb);
	spin_unlock(&sc->q.lock);
	if (local) {
		napi_schedule(&sc->napi);
		return;
	}
	/*
	 * A poll in progress sees the frame: it checks the queue again
	 * after clearing SCHED (napi_complete_done() is a full barrier);
	 * this one orders our enqueue before reading SCHED.
	 */
	smp_mb();
	if (test_bit(NAPI_STATE_SCHED, &sc->napi.state))
		return;
	if (!test_and_set_bit(0, &sc->ipi_pending) &&
	    smp_call_function_single_async(sc->cpu, &sc->csd))
		clear_bit(0, &sc->ipi_pending);
}

/**
 * prism_steer_frame() - steer a target-side frame to the CPU of its session
 * @skb: frame validated by prism_link_rcv() (header in the linear part)
 * @hdr: its PRISM header
 * @src: link address of its sender
 *
 * Context: Softirq (the receive path).
 * Return: true if @skb was queued for another run (consumed); false if the
 * caller processes it now, on this CPU.
 */
bool prism_steer_frame(struct sk_buff *skb, const struct prism_whdr *hdr,
		       const struct prism_paddr *src)
{
	struct prism_steer_map *map;
	struct prism_steer_cpu *sc;
	bool queued = false;
	unsigned int cpu;
	u32 hash;

	if (!READ_ONCE(steer) || !prism_steer_wanted(hdr))
		return false;
	rcu_read_lock();
	map = rcu_dereference(prism_steer_map);
	if (!map)
		goto out;
	hash = prism_steer_hash(src, ntohl(hdr->src_ep),
				ntohl(hdr->session), prism_steer_seed);
	cpu = prism_steer_pick(hash, map->cpus, map->len);
	sc = per_cpu_ptr(prism_steer_cpus, cpu);
	/* Frames queued here earlier (from other CPUs) go first. */
	if (cpu == smp_processor_id() && skb_queue_empty_lockless(&sc->q))
		goto out;
	prism_steer_enqueue(sc, skb, cpu == smp_processor_id());
	queued = true;
out:
	rcu_read_unlock();
	return queued;
}

static int prism_steer_poll(struct napi_struct *napi, int budget)
{
	struct prism_steer_cpu *sc = container_of(napi, struct prism_steer_cpu,
						  napi);
	struct sk_buff *skb;
	int done = 0;

	while (done < budget) {
		spin_lock(&sc->q.lock);
		skb = __skb_dequeue(&sc->q);
		spin_unlock(&sc->q.lock);
		if (!skb)
			break;
		prism_rcv_finish(skb);
		done++;
	}
	/* A frame queued after the loop: its sender saw SCHED set. */
	if (done < budget && napi_complete_done(napi, done) &&
	    !skb_queue_empty_lockless(&sc->q))
		napi_schedule(napi);
	return done;
}

/**
 * prism_steer_flush_dev() - drop the queued frames of an interface
 * @dev: interface being unregistered
 *
 * Context: Process context (netdevice notifier), under RTNL.
 */
void prism_steer_flush_dev(struct net_device *dev)
{
	struct sk_buff *skb, *tmp;
	unsigned int cpu;

	ASSERT_RTNL();
	if (!prism_steer_cpus)		/* module unload */
		return;
	for_each_possible_cpu(cpu) {
		struct prism_steer_cpu *sc = per_cpu_ptr(prism_steer_cpus, cpu);

		spin_lock_bh(&sc->q.lock);
		skb_queue_walk_safe(&sc->q, skb, tmp) {
			if (skb->dev == dev) {
				__skb_unlink(skb, &sc->q);
				kfree_skb(skb);
			}
		}
		spin_unlock_bh(&sc->q.lock);
	}
}

/**
 * prism_steer_backlog() - frames waiting on this CPU's PRISM queue
 *
 * For admission (prism_admit()), next to the core's receive backlog.
 *
 * Context: Softirq.
 * Return: their number.
 */
u32 prism_steer_backlog(void)
{
	return skb_queue_len_lockless(&this_cpu_ptr(prism_steer_cpus)->q);
}

static int prism_steer_cpu_online(unsigned int cpu)
{
	mutex_lock(&prism_steer_mutex);
	prism_steer_rebuild(-1);
	mutex_unlock(&prism_steer_mutex);
	return 0;
}

static int prism_steer_cpu_offline(unsigned int cpu)
{
	mutex_lock(&prism_steer_mutex);
	prism_steer_rebuild(cpu);
	mutex_unlock(&prism_steer_mutex);
	return 0;
}

/* Stop the NAPIs of every CPU and free what is left on the queues. */
static void prism_steer_stop(void)
{
	struct prism_steer_cpu __percpu *pcpu;
	unsigned int cpu;

	/* No IPI handler still running: it would touch a stopped NAPI. */
	for_each_possible_cpu(cpu)
		smp_cond_load_acquire(&per_cpu_ptr(prism_steer_cpus,
						   cpu)->ipi_pending, !VAL);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct prism_steer_cpu *sc = per_cpu_ptr(prism_steer_cpus, cpu);

		napi_disable(&sc->napi);
		netif_napi_del(&sc->napi);
		skb_queue_purge(&sc->q);
	}
	synchronize_net();
	kfree(prism_steer_dev);
	prism_steer_dev = NULL;
	/* The netdevice notifier may still run (under RTNL) until dev.c
	 * unregisters it: it finds no queues.
	 */
	rtnl_lock();
	pcpu = prism_steer_cpus;
	prism_steer_cpus = NULL;
	rtnl_unlock();
	free_percpu(pcpu);
}

/**
 * prism_steer_init() - set up the per-CPU queues and the map
 *
 * Context: Process context, module init, before the packet type is added.
 * Return: 0 or a negative errno.
 */
int prism_steer_init(void)
{
	unsigned int cpu;
	int ret;

	prism_steer_seed = get_random_u32();
	prism_steer_cpus = alloc_percpu(struct prism_steer_cpu);
	prism_steer_dev = kzalloc(sizeof(*prism_steer_dev), GFP_KERNEL);
	if (!prism_steer_cpus || !prism_steer_dev) {
		free_percpu(prism_steer_cpus);
		kfree(prism_steer_dev);
		return -ENOMEM;
	}
	init_dummy_netdev(prism_steer_dev);
	for_each_possible_cpu(cpu) {
		struct prism_steer_cpu *sc = per_cpu_ptr(prism_steer_cpus, cpu);

		skb_queue_head_init(&sc->q);
		INIT_CSD(&sc->csd, prism_steer_ipi, sc);
		sc->cpu = cpu;
		netif_napi_add(prism_steer_dev, &sc->napi, prism_steer_poll);
		napi_enable(&sc->napi);
	}
	cpus_read_lock();
	mutex_lock(&prism_steer_mutex);
	prism_steer_ready = true;
	prism_steer_rebuild(-1);
	mutex_unlock(&prism_steer_mutex);
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						   "net/prism:steer",
						   prism_steer_cpu_online,
						   prism_steer_cpu_offline);
	cpus_read_unlock();
	if (ret < 0) {
		prism_steer_exit();
		return ret;
	}
	prism_steer_hp = ret;
	return 0;
}

/**
 * prism_steer_exit() - stop steering, drop the queued frames
 *
 * Context: Process context, may sleep; after the packet type was removed
 * (nothing queues any more).
 */
void prism_steer_exit(void)
{
	if (prism_steer_hp > 0)
		cpuhp_remove_state_nocalls(prism_steer_hp);
	prism_steer_hp = 0;
	mutex_lock(&prism_steer_mutex);
	prism_steer_ready = false;
	kfree(rcu_replace_pointer(prism_steer_map, NULL,
				  lockdep_is_held(&prism_steer_mutex)));
	mutex_unlock(&prism_steer_mutex);
	prism_steer_stop();
}
