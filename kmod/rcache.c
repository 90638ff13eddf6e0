// SPDX-License-Identifier: GPL-2.0
/*
 * Target side of chains: admission (NACK under overload), the per-client
 * reply cache that makes execution at-most-once, and serving requests.
 *
 * A client session is one client socket incarnation: (MAC, endpoint id,
 * session nonce).  Its cache holds the reply of every chain it ran with an
 * id in [floor, floor + PRISM_WINDOW); the client moves the floor up with
 * every request (its oldest outstanding id) and never sends an id at or
 * above floor + PRISM_WINDOW.  So a repeated chain is either answered from
 * the cache or, when below the floor, known to be completed at the client
 * and dropped: it never runs twice.  A session runs its chains under its
 * lock, so copies arriving on several CPUs at once see one execution.
 *
 * The cache entry for a chain is allocated before the chain runs: a chain
 * that could not be remembered is NACKed, not run.
 *
 * Trust: nothing is committed for a frame before its chain proved it may
 * use the endpoint.  A request is checked in this order, each step cheap
 * and stateless: well formed and within PRISM_MAX_CHAIN_WORK (else
 * INVALID, whatever the endpoint); bound endpoint on this interface and a
 * chain carrying at least one valid rkey of it, or only SEND ops to an
 * endpoint with PRISM_OPEN_SEND (else NO_ENDPOINT: strangers cannot tell a
 * missing endpoint from a wrong rkey).  Answers to chains that failed
 * these checks are rate limited per network namespace.  Only then is a
 * session found or created (at most PRISM_MAX_SESSIONS per socket and
 * PRISM_MAX_SESSIONS_PER_MAC per source MAC), admission applied and the
 * reply cache charged; session and cache memory is charged to the memory
 * cgroup of the process that created the target socket.  Each CPU runs at
 * most PRISM_CPU_WORK_PER_TICK bytes of chain work per jiffy; past it,
 * chains are NACKed (over_budget).
 */
#include <linux/etherdevice.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/pkt_sched.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include "prism_net.h"
#include "compat.h"
/* The tracepoints of the module are instantiated here (trace.h). */
#define CREATE_TRACE_POINTS
#include "trace.h"

/* Sessions one source MAC may hold on one target socket. */
#define PRISM_MAX_SESSIONS_PER_MAC	64
/* Bytes of chain work one CPU runs per jiffy before NACKing. */
#define PRISM_CPU_WORK_PER_TICK		(8U << 20)

struct prism_cpu_work {
	unsigned long	stamp;		/* jiffies of the current tick */
	u32		bytes;		/* work done in it */
};

static DEFINE_PER_CPU(struct prism_cpu_work, prism_cpu_work);

struct prism_cached {
	u64	id;
	u32	len;		/* of frame: header + body */
	u32	cap;		/* bytes reserved for frame (accounting) */
	u8	frame[];
};

struct prism_session {
	struct hlist_node	node;		/* prism_sock.sessions, RCU */
	struct prism_sock	*psk;
	u8			mac[ETH_ALEN];
	u32			ep;
	u32			nonce;
	spinlock_t		lock;		/* all below; held while serving */
	bool			dead;		/* unhashed: look up again */
	u64			floor;
	unsigned long		last_used;	/* jiffies */
	struct prism_cached	**slot;		/* PRISM_WINDOW, by id */
	struct rcu_head		rcu;
};

static u32 prism_session_key(const u8 *mac, u32 ep, u32 nonce)
{
	return jhash_3words(ep, nonce, get_unaligned((const u32 *)mac) ^
			    get_unaligned((const u16 *)(mac + 4)), 0);
}

static u32 prism_cached_size(u32 frame_len)
{
	return struct_size((struct prism_cached *)NULL, frame, frame_len);
}

static void prism_cached_free(struct prism_session *s,
			      struct prism_cached **slot)
{
	if (!*slot)
		return;
	atomic_sub(prism_cached_size((*slot)->cap), &s->psk->rcache_bytes);
	kfree(*slot);
	*slot = NULL;
}

/* Give the session's cached bytes back to its socket's budget. */
static void prism_session_unaccount(struct prism_session *s)
{
	unsigned int i;

	for (i = 0; i < PRISM_WINDOW; i++)
		if (s->slot[i])
			atomic_sub(prism_cached_size(s->slot[i]->cap),
				   &s->psk->rcache_bytes);
}

/* Memory only: may run from an RCU callback, after the socket is gone. */
static void prism_session_free(struct prism_session *s)
{
	unsigned int i;

	for (i = 0; i < PRISM_WINDOW; i++)
		kfree(s->slot[i]);
	kfree(s->slot);
	kfree(s);
}

static void prism_session_free_rcu(struct rcu_head *head)
{
	prism_session_free(container_of(head, struct prism_session, rcu));
}

/* Make room by dropping one idle session; psk->sess_lock held. */
static bool prism_session_evict_idle(struct prism_sock *psk)
{
	unsigned long idle = msecs_to_jiffies(PRISM_SESSION_IDLE_MS);
	struct prism_session *s;
	int bkt;

	hash_for_each(psk->sessions, bkt, s, node) {
		spin_lock(&s->lock);
		if (time_after(jiffies, s->last_used + idle)) {
			s->dead = true;
			prism_session_unaccount(s);
			spin_unlock(&s->lock);
			hash_del_rcu(&s->node);
			psk->nsessions--;
			call_rcu(&s->rcu, prism_session_free_rcu);
			return true;
		}
		spin_unlock(&s->lock);
	}
	return false;
}

/* Memory for a client of psk, charged to psk's creator's memory cgroup. */
static void *prism_client_alloc(struct prism_sock *psk, size_t size)
{
	struct mem_cgroup *old = set_active_memcg(psk->memcg);
	void *p = kzalloc(size, GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN);

	set_active_memcg(old);
	return p;
}

/* Sessions of source MAC mac; psk->sess_lock held. */
static unsigned int prism_sessions_of_mac(struct prism_sock *psk,
					  const u8 *mac)
{
	struct prism_session *s;
	unsigned int n = 0;
	int bkt;

	hash_for_each(psk->sessions, bkt, s, node)
		n += ether_addr_equal(s->mac, mac);
	return n;
}

/* Find or create the session of a client; BH disabled, under RCU. */
static struct prism_session *prism_session_get(struct prism_sock *psk,
					       const u8 *mac, u32 ep, u32 nonce,
					       u64 floor)
{
	u32 key = prism_session_key(mac, ep, nonce);
	struct prism_session *s;

	hash_for_each_possible_rcu(psk->sessions, s, node, key)
		if (s->ep == ep && s->nonce == nonce &&
		    ether_addr_equal(s->mac, mac))
			return s;

	spin_lock(&psk->sess_lock);
	hash_for_each_possible(psk->sessions, s, node, key)
		if (s->ep == ep && s->nonce == nonce &&
		    ether_addr_equal(s->mac, mac))
			goto out;
	s = NULL;
	if (psk->nsessions >= PRISM_MAX_SESSIONS &&
	    !prism_session_evict_idle(psk))
		goto out;
	if (prism_sessions_of_mac(psk, mac) >= PRISM_MAX_SESSIONS_PER_MAC &&
	    (!prism_session_evict_idle(psk) ||
	     prism_sessions_of_mac(psk, mac) >= PRISM_MAX_SESSIONS_PER_MAC))
		goto out;
	s = prism_client_alloc(psk, sizeof(*s));
	if (!s)
		goto out;
	s->slot = prism_client_alloc(psk, PRISM_WINDOW * sizeof(*s->slot));
	if (!s->slot) {
		kfree(s);
		s = NULL;
		goto out;
	}
	s->psk = psk;
	ether_addr_copy(s->mac, mac);
	s->ep = ep;
	s->nonce = nonce;
	s->floor = floor;
	s->last_used = jiffies;
	spin_lock_init(&s->lock);
	hash_add_rcu(psk->sessions, &s->node, key);
	psk->nsessions++;
out:
	spin_unlock(&psk->sess_lock);
	return s;
}

/* The client completed every id below floor: forget their replies. */
static void prism_session_advance(struct prism_session *s, u64 floor)
{
	u64 id, end;

	if (floor <= s->floor)
		return;
	end = min(floor, s->floor + PRISM_WINDOW);
	for (id = s->floor; id < end; id++) {
		struct prism_cached **e = &s->slot[id % PRISM_WINDOW];

		if (*e && (*e)->id < floor)
			prism_cached_free(s, e);
	}
	s->floor = floor;
}

/**
 * prism_sessions_destroy() - free the client sessions of a target socket
 * @psk: socket being released
 *
 * Frees every session and its cached replies.
 *
 * Context: Process context, socket release, after @psk left the endpoint
 * table and an RCU grace period: no receiver can reach @psk anymore.
 */
void prism_sessions_destroy(struct prism_sock *psk)
{
	struct prism_session *s;
	struct hlist_node *tmp;
	int bkt;

	/* No receiver can reach the socket anymore (after a grace period). */
	hash_for_each_safe(psk->sessions, bkt, tmp, s, node) {
		hash_del(&s->node);
		prism_session_unaccount(s);
		prism_session_free(s);
	}
	psk->nsessions = 0;
	WARN_ON_ONCE(atomic_read(&psk->rcache_bytes));
}

/*
 * Room for a cached reply of frame_len bytes: within the socket's budget,
 * after dropping an idle session if that is what it takes.  No session
 * lock may be held: eviction takes them.
 */
static bool prism_rcache_reserve(struct prism_sock *psk, u32 frame_len)
{
	u32 size = prism_cached_size(frame_len);

	if (atomic_add_return(size, &psk->rcache_bytes) <= PRISM_RCACHE_BYTES)
		return true;
	spin_lock(&psk->sess_lock);
	prism_session_evict_idle(psk);
	spin_unlock(&psk->sess_lock);
	if (atomic_read(&psk->rcache_bytes) <= PRISM_RCACHE_BYTES)
		return true;
	atomic_sub(size, &psk->rcache_bytes);
	return false;
}

static void prism_rcache_unreserve(struct prism_sock *psk, bool reserved,
				   u32 frame_len)
{
	if (reserved)
		atomic_sub(prism_cached_size(frame_len), &psk->rcache_bytes);
}

/*
 * Admission: refuse work the target cannot keep up with, before running
 * it.  Signals: the socket's configured rate, and this CPU's receive
 * backlog filling up (frames past netdev_max_backlog are dropped silently).
 */
static bool prism_admit(struct prism_sock *psk)
{
	struct softnet_data *sd = this_cpu_ptr(&softnet_data);
	u32 rate = READ_ONCE(psk->serve_rate);
	u32 backlog;
	bool ok = true;

	backlog = skb_queue_len_lockless(&sd->input_pkt_queue) +
		  skb_queue_len_lockless(&sd->process_queue);
	if (backlog > prism_netdev_max_backlog() / 2)
		return false;
	if (!rate)
		return true;

	/* Token bucket holding a tenth of a second of chains, in 1/HZ units. */
	spin_lock(&psk->sess_lock);
	if (time_after(jiffies, psk->serve_stamp)) {
		u64 burst = max_t(u64, rate / 10, 1) * HZ;

		psk->serve_tokens += (u64)(jiffies - psk->serve_stamp) * rate;
		psk->serve_tokens = min(psk->serve_tokens, burst);
		psk->serve_stamp = jiffies;
	}
	if (psk->serve_tokens >= HZ)
		psk->serve_tokens -= HZ;
	else
		ok = false;
	spin_unlock(&psk->sess_lock);
	return ok;
}

struct prism_send_target {
	struct prism_sock	*psk;
	struct sockaddr_prism	src;
};

static int prism_deliver_send(void *priv, const void *data, u32 len)
{
	struct prism_send_target *t = priv;
	int status;

	status = prism_queue_send(t->psk, &t->src, data, len);
	if (status == PRISM_S_OK)
		prism_stat_add(sock_net(&t->psk->sk), t->psk,
			       PRISM_STAT_SENDS_RECEIVED, 1);
	return status;
}

/* A response frame to hdr's sender, with the header filled in. */
static struct sk_buff *prism_reply_skb(struct net_device *dev,
				       const struct prism_whdr *hdr, u32 cap)
{
	struct prism_whdr *rhdr;
	struct sk_buff *rskb;

	rskb = prism_alloc_frame(dev, sizeof(*rhdr) + cap, GFP_ATOMIC);
	if (!rskb)
		return NULL;
	rhdr = skb_put_zero(rskb, sizeof(*rhdr));
	rhdr->version = PRISM_WIRE_VERSION;
	rhdr->type = PRISM_T_RESP;
	rhdr->nops = hdr->nops;
	rhdr->dst_ep = hdr->src_ep;
	rhdr->src_ep = hdr->dst_ep;
	rhdr->session = hdr->session;
	rhdr->req_id = hdr->req_id;
	return rskb;
}

/*
 * Answer with a chain status only: the chain did not run.  Such answers
 * are small and go out first (TC_PRIO_CONTROL).
 */
static void prism_reply_status(struct net_device *dev,
			       const struct prism_whdr *hdr, const u8 *src_mac,
			       u8 status)
{
	struct sk_buff *rskb = prism_reply_skb(dev, hdr, 0);

	if (!rskb)
		return;
	((struct prism_whdr *)rskb->data)->status = status;
	rskb->priority = TC_PRIO_CONTROL;
	prism_xmit_frame(rskb, dev, src_mac);
}

/*
 * The same for a chain that did not prove it may use the endpoint: at most
 * PRISM_REFUSALS_BURST answers per PRISM_REFUSALS_INTERVAL per netns, so
 * that a flood of junk cannot make the target flood back.
 */
static void prism_refuse(struct net *net, struct net_device *dev,
			 const struct prism_whdr *hdr, const u8 *src_mac,
			 u8 status)
{
	if (!__ratelimit(&prism_pernet(net)->refusals)) {
		prism_stat_add(net, NULL, PRISM_STAT_REPLIES_LIMITED, 1);
		return;
	}
	prism_reply_status(dev, hdr, src_mac, status);
}

/*
 * Whether the chain (checked already) may use psk: one of its ops names a
 * region of psk by a valid rkey, or it is SENDs only and psk is open to
 * SENDs.  Under RCU.
 */
static bool prism_chain_authentic(struct prism_sock *psk, const u8 *body,
				  u32 body_len, u8 nops)
{
	bool only_send = true;
	struct prism_decoded_op pop;
	unsigned int i;
	u32 pos = 0;

	for (i = 0; i < nops; i++) {
		if (WARN_ON_ONCE(prism_wire_parse_op(body, body_len, &pos, i,
						     &pop)))
			return false;
		if (pop.op.opcode != PRISM_OP_SEND)
			only_send = false;
		if (pop.op.rkey && prism_region_find(&psk->mem, pop.op.rkey))
			return true;
	}
	return only_send && READ_ONCE(psk->open_send);
}

/* Charge work bytes to this CPU's budget of the current jiffy. */
static bool prism_cpu_work_take(u32 work)
{
	struct prism_cpu_work *w = this_cpu_ptr(&prism_cpu_work);
	unsigned long now = jiffies;

	if (time_after(now, w->stamp) || time_before(now, w->stamp)) {
		w->stamp = now;
		w->bytes = 0;
	}
	if (work > PRISM_CPU_WORK_PER_TICK - w->bytes)
		return false;
	w->bytes += work;
	return true;
}

/* Run the chain of hdr for psk into a new response frame. */
static struct sk_buff *prism_run_chain(struct prism_sock *psk,
				       struct net_device *dev,
				       const struct prism_whdr *hdr,
				       const u8 *src_mac, u32 resp_len)
{
	struct net *net = sock_net(&psk->sk);
	struct prism_send_target target;
	struct prism_exec_ctx ctx = {};
	struct prism_whdr *rhdr;
	struct sk_buff *rskb;
	u64 t0 = 0;
	int ret;

	rskb = prism_reply_skb(dev, hdr, resp_len);
	if (!rskb)
		return NULL;
	rhdr = (struct prism_whdr *)rskb->data;

	target.psk = psk;
	memset(&target.src, 0, sizeof(target.src));
	target.src.sprism_family = psk->sk.sk_family;
	target.src.sprism_ifindex = dev->ifindex;
	target.src.sprism_ep = ntohl(hdr->src_ep);
	ether_addr_copy(target.src.sprism_mac, src_mac);
	ctx.mem = &psk->mem;
	ctx.deliver_send = prism_deliver_send;
	ctx.priv = &target;

	if (trace_prism_chain_exec_enabled())
		t0 = ktime_get_ns();
	ret = prism_engine_execute(&ctx, (const u8 *)(hdr + 1),
				   ntohs(hdr->body_len), hdr->nops,
				   (u8 *)(rhdr + 1), resp_len);
	prism_stat_add(net, psk, PRISM_STAT_CHAINS_SERVED, 1);
	if (ret < 0) {
		rhdr->status = -ret;
		ret = 0;
	} else {
		prism_stat_add(net, psk, PRISM_STAT_OPS_SERVED, hdr->nops);
		prism_stat_add(net, psk, PRISM_STAT_OPS_FAILED, ctx.ops_failed);
	}
	rhdr->body_len = htons(ret);
	skb_put(rskb, ret);
	trace_prism_chain_exec(hdr, rhdr->status, ctx.ops_failed, ret,
			       t0 ? ktime_get_ns() - t0 : 0);
	return rskb;
}

/**
 * prism_serve_request() - serve one request frame
 * @net: network namespace of the receiving interface
 * @skb: the received frame, linear; skb->dev is the receiving interface (the
 *       caller keeps and frees @skb)
 * @hdr: PRISM header of the frame, in @skb, checked by the receiver (version,
 *       body_len within the frame, nops, type PRISM_T_REQ, status and
 *       reserved 0)
 * @src_mac: source MAC address of the frame
 *
 * Stateless checks first (well formed and within PRISM_MAX_CHAIN_WORK, then
 * a bound endpoint the chain may use), answered with a rate-limited
 * PRISM_S_INVALID or PRISM_S_NO_ENDPOINT.  Then the client session is found
 * or created, a repeat is answered from its reply cache, and a new chain
 * runs at most once, after its cache entry was allocated; a chain that
 * cannot be remembered or admitted is NACKed, not run.
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_request(struct net *net, struct sk_buff *skb,
			 const struct prism_whdr *hdr, const u8 *src_mac)
{
	struct net_device *dev = skb->dev;
	u32 body_len = ntohs(hdr->body_len);
	u64 id = be64_to_cpu(hdr->req_id);
	u64 floor = be64_to_cpu(hdr->ack_floor);
	struct prism_cached *entry, **slot;
	struct prism_session *s;
	struct prism_sock *psk;
	const u8 *body = (const u8 *)(hdr + 1);
	struct sk_buff *rskb;
	u8 why = PRISM_NACK_NOMEM;
	u32 cap, resp_len, work;
	bool admitted, reserved;
	int err;

	trace_prism_chain_rx(hdr, src_mac);
	if (dev->mtu <= sizeof(*hdr) || !id || floor > id)
		goto drop;
	cap = dev->mtu - sizeof(*hdr);

	/* Stateless checks first; see "Trust" above. */
	err = prism_wire_check_work(body, body_len, hdr->nops, &resp_len,
				    &work);
	if (err) {
		if (err == -E2BIG)
			prism_stat_add(net, NULL, PRISM_STAT_OVER_BUDGET, 1);
		else
			prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
		prism_refuse(net, dev, hdr, src_mac, PRISM_S_INVALID);
		return;
	}
	psk = prism_ep_lookup(net, ntohl(hdr->dst_ep));
	if (!psk || psk->ifindex != dev->ifindex ||
	    !prism_chain_authentic(psk, body, body_len, hdr->nops)) {
		prism_stat_add(net, psk && psk->ifindex == dev->ifindex ?
			       psk : NULL, PRISM_STAT_UNAUTH_REFUSED, 1);
		prism_refuse(net, dev, hdr, src_mac, PRISM_S_NO_ENDPOINT);
		return;
	}
	if (resp_len > cap) {
		prism_reply_status(dev, hdr, src_mac, PRISM_S_TOO_BIG);
		return;
	}
	/*
	 * An overloaded target still answers repeats from its cache: a NACK
	 * must mean "not run", and a repeat may be of a chain that ran.
	 */
	admitted = prism_admit(psk);

again:
	s = prism_session_get(psk, src_mac, ntohl(hdr->src_ep),
			      ntohl(hdr->session), floor);
	if (!s) {
		why = PRISM_NACK_SESSIONS;
		goto nack;
	}
	/* Before the session lock: making room may evict sessions. */
	reserved = admitted &&
		   prism_rcache_reserve(psk, sizeof(*hdr) + resp_len);
	spin_lock(&s->lock);
	if (s->dead) {
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, sizeof(*hdr) + resp_len);
		goto again;
	}
	s->last_used = jiffies;
	prism_session_advance(s, floor);
	slot = &s->slot[id % PRISM_WINDOW];
	if (id < s->floor) {
		/* The client has completed this chain: an old copy. */
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, sizeof(*hdr) + resp_len);
		prism_stat_add(net, psk, PRISM_STAT_DUPLICATES, 1);
		return;
	}
	if (id - s->floor >= PRISM_WINDOW) {
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, sizeof(*hdr) + resp_len);
		prism_reply_status(dev, hdr, src_mac, PRISM_S_INVALID);
		return;
	}
	if (*slot && (*slot)->id == id) {
		/* Ran already: answer again from the cache. */
		rskb = prism_alloc_frame(dev, (*slot)->len, GFP_ATOMIC);
		if (rskb)
			skb_put_data(rskb, (*slot)->frame, (*slot)->len);
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, sizeof(*hdr) + resp_len);
		prism_stat_add(net, psk, PRISM_STAT_DUPLICATES, 1);
		if (rskb)
			prism_xmit_frame(rskb, dev, src_mac);
		return;
	}

	/* Remember the reply before running, or do not run at all. */
	entry = NULL;
	rskb = NULL;
	if (!admitted) {
		why = PRISM_NACK_RATE;
	} else if (!reserved) {
		why = PRISM_NACK_RCACHE;
	} else if (!prism_cpu_work_take(work)) {
		why = PRISM_NACK_CPU;
		prism_stat_add(net, psk, PRISM_STAT_OVER_BUDGET, 1);
		prism_rcache_unreserve(psk, reserved, sizeof(*hdr) + resp_len);
		reserved = false;
	}
	if (reserved)		/* never when not admitted */
		entry = prism_client_alloc(psk,
					   prism_cached_size(sizeof(*hdr) +
							     resp_len));
	if (entry)
		rskb = prism_run_chain(psk, dev, hdr, src_mac, resp_len);
	if (!rskb) {
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, sizeof(*hdr) + resp_len);
		kfree(entry);
		goto nack;
	}
	entry->id = id;
	entry->len = rskb->len;
	entry->cap = sizeof(*hdr) + resp_len;
	memcpy(entry->frame, rskb->data, rskb->len);
	/* Whatever held the slot is below the floor (window arithmetic). */
	prism_cached_free(s, slot);
	*slot = entry;
	spin_unlock(&s->lock);
	prism_xmit_frame(rskb, dev, src_mac);
	return;

nack:
	prism_stat_add(net, psk, PRISM_STAT_NACKS_SENT, 1);
	trace_prism_chain_nack(PRISM_NACK_SENT, psk->ep, src_mac,
			       ntohl(hdr->src_ep), id, why);
	prism_reply_status(dev, hdr, src_mac, PRISM_S_NACK);
	return;
drop:
	prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
}
