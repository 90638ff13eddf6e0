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
#include "rcache.h"
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

static u32 prism_session_key(const u8 *mac, u32 ep, u32 nonce)
{
	return jhash_3words(ep, nonce, get_unaligned((const u32 *)mac) ^
			    get_unaligned((const u16 *)(mac + 4)), 0);
}

static u32 prism_cached_size(u32 frame_len)
{
	return struct_size((struct prism_cached *)NULL, frame, frame_len);
}

/* Memory of a cached answer; its accounting is the caller's. */
static void prism_cached_kfree(struct prism_cached *c)
{
	if (!c)
		return;
	if (c->tx) {
		kfree(c->tx->sent_seq);
		kfree(c->tx);
	}
	kfree(c);
}

static void prism_cached_free(struct prism_session *s,
			      struct prism_cached **slot)
{
	if (!*slot)
		return;
	atomic_sub(prism_cached_size((*slot)->cap), &s->psk->rcache_bytes);
	prism_cached_kfree(*slot);
	*slot = NULL;
}

/* Memory of a reassembly; its accounting is the caller's. */
static void prism_reasm_kfree(struct prism_reasm *r)
{
	if (!r)
		return;
	kfree(r->body);
	kfree(r);
}

static void prism_reasm_unaccount(struct prism_sock *psk,
				  const struct prism_reasm *r)
{
	struct net *net = sock_net(&psk->sk);

	atomic_sub(r->size, &psk->reasm_bytes);
	prism_stat_add(net, psk, PRISM_STAT_REASM_ACTIVE, -1ULL);
	prism_stat_add(net, psk, PRISM_STAT_REASM_BYTES, -(u64)r->size);
}

/**
 * prism_reasm_release() - free a reassembly taken out of its session
 * @psk: target socket it is accounted to
 * @r: the reassembly
 *
 * Context: Any context.
 */
void prism_reasm_release(struct prism_sock *psk, struct prism_reasm *r)
{
	prism_reasm_unaccount(psk, r);
	prism_reasm_kfree(r);
}

/**
 * prism_reasm_free() - drop a reassembly of a session
 * @s: the session, locked
 * @r: one of its reassemblies (in @s->reasm)
 *
 * Context: Softirq or process context with BH disabled; @s->lock held.
 */
void prism_reasm_free(struct prism_session *s, struct prism_reasm *r)
{
	unsigned int i;

	for (i = 0; i < PRISM_SESSION_REASM; i++)
		if (s->reasm[i] == r)
			s->reasm[i] = NULL;
	prism_reasm_release(s->psk, r);
}

/* Give the session's cached bytes back to its socket's budget. */
static void prism_session_unaccount(struct prism_session *s)
{
	unsigned int i;

	for (i = 0; i < PRISM_WINDOW; i++)
		if (s->slot[i])
			atomic_sub(prism_cached_size(s->slot[i]->cap),
				   &s->psk->rcache_bytes);
	for (i = 0; i < PRISM_SESSION_REASM; i++)
		if (s->reasm[i])
			prism_reasm_unaccount(s->psk, s->reasm[i]);
}

/* Memory only: may run from an RCU callback, after the socket is gone. */
static void prism_session_free(struct prism_session *s)
{
	unsigned int i;

	for (i = 0; i < PRISM_WINDOW; i++)
		prism_cached_kfree(s->slot[i]);
	for (i = 0; i < PRISM_SESSION_REASM; i++)
		prism_reasm_kfree(s->reasm[i]);
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

/**
 * prism_client_alloc() - memory for a client of a target socket
 * @psk: the target socket
 * @size: bytes
 * @zero: zero them
 *
 * Charged to the memory cgroup of the process that created @psk.
 *
 * Context: Any context (GFP_ATOMIC).
 * Return: the memory, or NULL.
 */
void *prism_client_alloc(struct prism_sock *psk, size_t size, bool zero)
{
	struct mem_cgroup *old = set_active_memcg(psk->memcg);
	gfp_t gfp = GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN;
	void *p = kmalloc(size, zero ? gfp | __GFP_ZERO : gfp);

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

/**
 * prism_session_find() - the session of a client, if it has one
 * @psk: target socket
 * @mac: MAC address of the client
 * @ep: endpoint id of the client
 * @nonce: session value of the client socket
 *
 * Context: BH disabled, under rcu_read_lock().
 * Return: the session (check its dead flag under its lock), or NULL.
 */
struct prism_session *prism_session_find(struct prism_sock *psk,
					 const u8 *mac, u32 ep, u32 nonce)
{
	struct prism_session *s;

	hash_for_each_possible_rcu(psk->sessions, s, node,
				   prism_session_key(mac, ep, nonce))
		if (s->ep == ep && s->nonce == nonce &&
		    ether_addr_equal(s->mac, mac))
			return s;
	return NULL;
}

/**
 * prism_session_get() - find or create the session of a client
 * @psk: target socket
 * @mac: MAC address of the client
 * @ep: endpoint id of the client
 * @nonce: session value of the client socket
 * @floor: ack floor of the request, for a new session
 *
 * Within PRISM_MAX_SESSIONS per socket and PRISM_MAX_SESSIONS_PER_MAC per
 * source MAC, after evicting an idle session if that is what it takes.
 *
 * Context: BH disabled, under rcu_read_lock().
 * Return: the session (check its dead flag under its lock), or NULL.
 */
struct prism_session *prism_session_get(struct prism_sock *psk, const u8 *mac,
					u32 ep, u32 nonce, u64 floor)
{
	u32 key = prism_session_key(mac, ep, nonce);
	struct prism_session *s;

	s = prism_session_find(psk, mac, ep, nonce);
	if (s)
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
	s = prism_client_alloc(psk, sizeof(*s), true);
	if (!s)
		goto out;
	s->slot = prism_client_alloc(psk, PRISM_WINDOW * sizeof(*s->slot),
				     true);
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
	s->seg_reorder = PRISM_SEG_REORDER;
	s->last_used = jiffies;
	spin_lock_init(&s->lock);
	hash_add_rcu(psk->sessions, &s->node, key);
	psk->nsessions++;
out:
	spin_unlock(&psk->sess_lock);
	return s;
}

/**
 * prism_session_advance() - the client completed every id below a floor
 * @s: the session, locked
 * @floor: ack floor of a request of the client
 *
 * Forgets the answers and reassemblies of ids below @floor.
 *
 * Context: BH disabled; @s->lock held.
 */
void prism_session_advance(struct prism_session *s, u64 floor)
{
	unsigned int i;
	u64 id, end;

	if (floor <= s->floor)
		return;
	for (i = 0; i < PRISM_SESSION_REASM; i++)
		if (s->reasm[i] && s->reasm[i]->id < floor)
			prism_reasm_free(s, s->reasm[i]);
	end = min(floor, s->floor + PRISM_WINDOW);
	for (id = s->floor; id < end; id++) {
		struct prism_cached **e = &s->slot[id % PRISM_WINDOW];

		if (*e && (*e)->id < floor)
			prism_cached_free(s, e);
	}
	s->floor = floor;
}

/* Drop the reassemblies whose chain's deadline passed (a client gone). */
static void prism_reasm_expire(struct timer_list *t)
{
	struct prism_sock *psk = from_timer(psk, t, reasm_timer);
	struct prism_session *s;
	struct prism_reasm *r;
	unsigned int i;
	bool more = false;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(psk->sessions, bkt, s, node) {
		spin_lock(&s->lock);
		for (i = 0; i < PRISM_SESSION_REASM; i++) {
			r = s->reasm[i];
			if (!r)
				continue;
			if (time_after_eq(jiffies, r->expires))
				prism_reasm_free(s, r);
			else
				more = true;
		}
		spin_unlock(&s->lock);
	}
	rcu_read_unlock();
	if (more)
		mod_timer(t, jiffies + PRISM_REASM_TICK);
}

/**
 * prism_reasm_expire_arm() - make sure reassemblies will expire
 * @psk: target socket that has a reassembly
 *
 * Context: Any context.
 */
void prism_reasm_expire_arm(struct prism_sock *psk)
{
	if (!timer_pending(&psk->reasm_timer))
		mod_timer(&psk->reasm_timer, jiffies + PRISM_REASM_TICK);
}

/**
 * prism_sessions_init() - initialise the target side of a new socket
 * @psk: the socket
 *
 * Context: Process context, socket creation.
 */
void prism_sessions_init(struct prism_sock *psk)
{
	spin_lock_init(&psk->sess_lock);
	hash_init(psk->sessions);
	timer_setup(&psk->reasm_timer, prism_reasm_expire, 0);
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
	del_timer_sync(&psk->reasm_timer);
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

/**
 * prism_admit() - admission of a new chain
 * @psk: target socket
 *
 * Refuses work the target cannot keep up with, before running it.
 * Signals: the socket's configured rate, and this CPU's receive backlog
 * filling up (frames past netdev_max_backlog are dropped silently).
 *
 * Context: Softirq.
 * Return: true if the chain may run.
 */
bool prism_admit(struct prism_sock *psk)
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

/**
 * prism_reply_hdr() - the header of an answer
 * @rhdr: receives it: a RESP from @hdr's target to its sender, status 0
 * @hdr: header of the request
 *
 * Context: Any context.
 */
void prism_reply_hdr(struct prism_whdr *rhdr, const struct prism_whdr *hdr)
{
	memset(rhdr, 0, sizeof(*rhdr));
	rhdr->version = PRISM_WIRE_VERSION;
	rhdr->type = PRISM_T_RESP;
	rhdr->nops = hdr->nops;
	rhdr->dst_ep = hdr->src_ep;
	rhdr->src_ep = hdr->dst_ep;
	rhdr->session = hdr->session;
	rhdr->req_id = hdr->req_id;
}

/**
 * prism_reply_status() - answer with a chain status only
 * @dev: interface the request came in on
 * @hdr: header of the request
 * @src_mac: its source MAC address
 * @status: PRISM_S_* status of the chain, which did not run
 *
 * Such answers are small and go out first (TC_PRIO_CONTROL).
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_reply_status(struct net_device *dev, const struct prism_whdr *hdr,
			const u8 *src_mac, u8 status)
{
	struct prism_whdr *rhdr;
	struct sk_buff *rskb;

	rskb = prism_alloc_frame(dev, sizeof(*rhdr), GFP_ATOMIC);
	if (!rskb)
		return;
	rhdr = skb_put(rskb, sizeof(*rhdr));
	prism_reply_hdr(rhdr, hdr);
	rhdr->status = status;
	rskb->priority = TC_PRIO_CONTROL;
	prism_xmit_frame(rskb, dev, src_mac);
}

/**
 * prism_refuse() - answer a chain that did not prove it may use the endpoint
 * @net: network namespace of @dev
 * @dev: interface the request came in on
 * @hdr: header of the request
 * @src_mac: its source MAC address
 * @status: PRISM_S_INVALID or PRISM_S_NO_ENDPOINT
 *
 * At most PRISM_REFUSALS_BURST answers per PRISM_REFUSALS_INTERVAL per
 * netns, so that a flood of junk cannot make the target flood back.
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_refuse(struct net *net, struct net_device *dev,
		  const struct prism_whdr *hdr, const u8 *src_mac, u8 status)
{
	if (!__ratelimit(&prism_pernet(net)->refusals)) {
		prism_stat_add(net, NULL, PRISM_STAT_REPLIES_LIMITED, 1);
		return;
	}
	prism_reply_status(dev, hdr, src_mac, status);
}

/**
 * prism_psk_authentic() - whether an op proves its chain may use a socket
 * @psk: target socket
 * @op: an op of the chain (checked)
 * @only_send: cleared when @op is not a SEND
 *
 * A chain may use @psk when one of its ops names a region of @psk by a valid
 * rkey, or when it is SENDs only and @psk is open to SENDs (the caller
 * checks that after the last op).
 *
 * Context: Under rcu_read_lock().
 * Return: true if @op names a region of @psk.
 */
bool prism_psk_authentic(struct prism_sock *psk, const struct prism_op *op,
			 bool *only_send)
{
	if (op->opcode != PRISM_OP_SEND)
		*only_send = false;
	return op->rkey && prism_region_find(&psk->mem, op->rkey);
}

/**
 * prism_chain_authentic() - whether a chain may use a socket
 * @psk: target socket
 * @body: the chain's request body (checked)
 * @body_len: bytes at @body
 * @nops: ops in the chain
 *
 * Context: Under rcu_read_lock().
 * Return: true if one op names a region of @psk by a valid rkey, or all
 * are SENDs and @psk is open to SENDs.
 */
bool prism_chain_authentic(struct prism_sock *psk, const u8 *body,
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
		if (prism_psk_authentic(psk, &pop.op, &only_send))
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

/* Run the chain of in for psk into the frame of the cache entry c. */
static void prism_run_chain(struct prism_sock *psk, struct net_device *dev,
			    const struct prism_chain_in *in, const u8 *src_mac,
			    struct prism_cached *c)
{
	struct prism_whdr *rhdr = (struct prism_whdr *)c->frame;
	struct net *net = sock_net(&psk->sk);
	const struct prism_whdr *hdr = in->hdr;
	struct prism_send_target target;
	struct prism_exec_ctx ctx = {};
	u64 t0 = 0;
	int ret;

	prism_reply_hdr(rhdr, hdr);
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
	ret = prism_engine_execute(&ctx, in->body, in->body_len, hdr->nops,
				   (u8 *)(rhdr + 1), in->resp_len);
	prism_stat_add(net, psk, PRISM_STAT_CHAINS_SERVED, 1);
	if (ret < 0) {
		rhdr->status = -ret;
		ret = 0;
	} else {
		prism_stat_add(net, psk, PRISM_STAT_OPS_SERVED, hdr->nops);
		prism_stat_add(net, psk, PRISM_STAT_OPS_FAILED, ctx.ops_failed);
	}
	c->len = sizeof(*rhdr) + ret;
	trace_prism_chain_exec(hdr, rhdr->status, ctx.ops_failed, ret,
			       t0 ? ktime_get_ns() - t0 : 0);
}

/*
 * A cached answer larger than one frame gets the state of its segments;
 * false: out of memory (the answer cannot be sent).
 */
static bool prism_cached_segment(struct prism_session *s,
				 struct net_device *dev, struct prism_cached *c)
{
	struct prism_sock *psk = s->psk;
	u32 msg_len = c->len - sizeof(struct prism_whdr);
	u32 seg_size = prism_seg_size(dev);
	struct prism_seg_tx *tx;
	u32 n;

	n = prism_seg_count(msg_len, seg_size);
	tx = prism_client_alloc(psk, sizeof(*tx) +
				BITS_TO_LONGS(n) * sizeof(long), true);
	if (!tx)
		return false;
	tx->sent_seq = prism_client_alloc(psk, n * sizeof(u32), true);
	if (!tx->sent_seq) {
		kfree(tx);
		return false;
	}
	prism_seg_tx_init(tx, msg_len, seg_size, (unsigned long *)(tx + 1),
			  tx->sent_seq);
	tx->reorder = s->seg_reorder;
	((struct prism_whdr *)c->frame)->body_len = 0;
	c->tx = tx;
	return true;
}

/**
 * prism_cached_xmit() - frames that send a cached answer (again)
 * @s: session of the answer, locked
 * @c: the answer
 * @dev: interface to send them on
 * @g: a grant from the client for a segmented answer, or NULL: send it
 *     whole (one frame), or its first window, or (a repeat of the request)
 *     every segment not acknowledged
 * @out: receives the frames; the caller sends them after unlocking @s
 *
 * Context: Softirq, under rcu_read_lock(); @s->lock held.
 */
void prism_cached_xmit(struct prism_session *s, struct prism_cached *c,
		       struct net_device *dev, const struct prism_grant *g,
		       struct sk_buff_head *out)
{
	struct prism_sock *psk = s->psk;
	struct net *net = sock_net(&psk->sk);
	const struct prism_whdr *rhdr = (const struct prism_whdr *)c->frame;
	u32 todo[PRISM_SEG_BURST], n, i, hi = 0, resent = 0;
	struct sk_buff *skb;
	bool probe = true;

	if (!c->tx) {
		skb = prism_alloc_frame(dev, c->len, GFP_ATOMIC);
		if (skb) {
			skb_put_data(skb, c->frame, c->len);
			__skb_queue_tail(out, skb);
		}
		return;
	}
	if (g) {
		if (prism_seg_tx_ack(c->tx, g, &hi))
			return;
		s->seg_reorder = max(s->seg_reorder, c->tx->reorder);
		probe = g->flags & PRISM_GRANT_PROBE;
	}
	n = prism_seg_tx_pick(c->tx, probe, hi, todo, ARRAY_SIZE(todo),
			      &resent);
	for (i = 0; i < n; i++) {
		skb = prism_seg_frame(dev, rhdr, PRISM_SEG_RESP, c->tx,
				      c->frame + sizeof(*rhdr), todo[i]);
		if (skb)
			__skb_queue_tail(out, skb);
	}
	prism_stat_add(net, psk, PRISM_STAT_SEGS_SENT, n);
	prism_stat_add(net, psk, PRISM_STAT_SEGS_RESENT, resent);
}

/**
 * prism_xmit_list() - send a list of frames
 * @list: the frames (prism_cached_xmit()), emptied
 * @dev: interface to send them on
 * @mac: destination MAC address
 *
 * Context: Softirq, under rcu_read_lock(), no session lock held.
 */
void prism_xmit_list(struct sk_buff_head *list, struct net_device *dev,
		     const u8 *mac)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list)))
		prism_xmit_frame(skb, dev, mac);
}

/**
 * prism_nack() - refuse a chain for overload, before it ran
 * @psk: target socket
 * @dev: interface the request came in on
 * @hdr: header of the request
 * @src_mac: its source MAC address
 * @why: &enum prism_nack_why, for the tracepoint
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_nack(struct prism_sock *psk, struct net_device *dev,
		const struct prism_whdr *hdr, const u8 *src_mac, u8 why)
{
	prism_stat_add(sock_net(&psk->sk), psk, PRISM_STAT_NACKS_SENT, 1);
	trace_prism_chain_nack(PRISM_NACK_SENT, psk->ep, src_mac,
			       ntohl(hdr->src_ep), be64_to_cpu(hdr->req_id), why);
	prism_reply_status(dev, hdr, src_mac, PRISM_S_NACK);
}

/**
 * prism_serve_chain() - run a chain at most once and answer it
 * @psk: target socket the chain proved it may use
 * @dev: interface it came in on
 * @in: the chain (checked)
 * @src_mac: source MAC address of the client
 *
 * Finds or creates the client's session; a repeat is answered from its
 * reply cache, a new chain runs after its cache entry was allocated; a
 * chain that cannot be remembered or admitted is NACKed, not run.  An
 * answer larger than one frame is sent in segments.
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_serve_chain(struct prism_sock *psk, struct net_device *dev,
		       const struct prism_chain_in *in, const u8 *src_mac)
{
	const struct prism_whdr *hdr = in->hdr;
	struct net *net = sock_net(&psk->sk);
	u64 id = be64_to_cpu(hdr->req_id);
	u64 floor = be64_to_cpu(hdr->ack_floor);
	u32 frame_len = sizeof(*hdr) + in->resp_len;
	struct prism_cached *entry, **slot;
	struct prism_session *s;
	struct sk_buff_head out;
	u8 why = PRISM_NACK_NOMEM;
	bool admitted, reserved;

	__skb_queue_head_init(&out);
	/*
	 * An overloaded target still answers repeats from its cache: a NACK
	 * must mean "not run", and a repeat may be of a chain that ran.
	 */
	admitted = in->admitted || prism_admit(psk);

again:
	s = prism_session_get(psk, src_mac, ntohl(hdr->src_ep),
			      ntohl(hdr->session), floor);
	if (!s) {
		why = PRISM_NACK_SESSIONS;
		goto nack;
	}
	/* Before the session lock: making room may evict sessions. */
	reserved = admitted && prism_rcache_reserve(psk, frame_len);
	spin_lock(&s->lock);
	if (s->dead) {
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, frame_len);
		goto again;
	}
	s->last_used = jiffies;
	prism_session_advance(s, floor);
	slot = &s->slot[id % PRISM_WINDOW];
	if (id < s->floor) {
		/* The client has completed this chain: an old copy. */
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, frame_len);
		prism_stat_add(net, psk, PRISM_STAT_DUPLICATES, 1);
		return;
	}
	if (id - s->floor >= PRISM_WINDOW) {
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, frame_len);
		prism_reply_status(dev, hdr, src_mac, PRISM_S_INVALID);
		return;
	}
	if (*slot && (*slot)->id == id) {
		/* Ran already: answer again from the cache. */
		prism_cached_xmit(s, *slot, dev, NULL, &out);
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, frame_len);
		prism_stat_add(net, psk, PRISM_STAT_DUPLICATES, 1);
		prism_xmit_list(&out, dev, src_mac);
		return;
	}

	/* Remember the reply before running, or do not run at all. */
	entry = NULL;
	if (!admitted) {
		why = PRISM_NACK_RATE;
	} else if (!reserved) {
		why = PRISM_NACK_RCACHE;
	} else if (!prism_cpu_work_take(in->work)) {
		why = PRISM_NACK_CPU;
		prism_stat_add(net, psk, PRISM_STAT_OVER_BUDGET, 1);
		prism_rcache_unreserve(psk, reserved, frame_len);
		reserved = false;
	}
	if (reserved)		/* never when not admitted */
		entry = prism_client_alloc(psk, prism_cached_size(frame_len),
					   false);
	if (!entry) {
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, frame_len);
		goto nack;
	}
	entry->id = id;
	entry->cap = frame_len;
	entry->tx = NULL;
	prism_run_chain(psk, dev, in, src_mac, entry);
	if (entry->len > dev->mtu) {
		if (!prism_cached_segment(s, dev, entry)) {
			/* Ran, but cannot be answered: resends will fail. */
			entry->len = sizeof(*hdr);
			((struct prism_whdr *)entry->frame)->status =
				PRISM_S_TOO_BIG;
		}
	} else {
		((struct prism_whdr *)entry->frame)->body_len =
			htons(entry->len - sizeof(*hdr));
	}
	/* Whatever held the slot is below the floor (window arithmetic). */
	prism_cached_free(s, slot);
	*slot = entry;
	prism_cached_xmit(s, entry, dev, NULL, &out);
	spin_unlock(&s->lock);
	prism_xmit_list(&out, dev, src_mac);
	return;

nack:
	prism_nack(psk, dev, hdr, src_mac, why);
}

/**
 * prism_refuse_unchecked() - answer a chain that failed a stateless check
 * @net: network namespace of @dev
 * @dev: interface the request came in on
 * @hdr: its header (REQ or SREQ)
 * @src_mac: its source MAC address
 * @err: result of the wire check of its ops (0, -EINVAL or -E2BIG)
 * @psk: socket of its destination (prism_frame_psk()), or NULL
 * @authentic: it proved it may use @psk (a valid rkey; only when @err is 0)
 * @resp_len: its largest answer body
 *
 * The checks of "Trust" above, in order: malformed or over budget is
 * INVALID whatever the endpoint; then NO_ENDPOINT; both answers rate
 * limited.  An answer the interface cannot carry, even in segments, is
 * TOO_BIG.
 *
 * Context: Softirq, under rcu_read_lock().
 * Return: true if the chain was refused (and answered), false if it may
 * be served.
 */
bool prism_refuse_unchecked(struct net *net, struct net_device *dev,
			    const struct prism_whdr *hdr, const u8 *src_mac,
			    int err, struct prism_sock *psk, bool authentic,
			    u32 resp_len)
{
	if (err) {
		prism_stat_add(net, NULL, err == -E2BIG ?
			       PRISM_STAT_OVER_BUDGET : PRISM_STAT_RX_DROPPED, 1);
		prism_refuse(net, dev, hdr, src_mac, PRISM_S_INVALID);
		return true;
	}
	if (!authentic) {
		prism_stat_add(net, psk, PRISM_STAT_UNAUTH_REFUSED, 1);
		prism_refuse(net, dev, hdr, src_mac, PRISM_S_NO_ENDPOINT);
		return true;
	}
	if (sizeof(*hdr) + resp_len > dev->mtu &&
	    prism_seg_size(dev) < PRISM_SEG_MIN) {
		prism_reply_status(dev, hdr, src_mac, PRISM_S_TOO_BIG);
		return true;
	}
	return false;
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
 * PRISM_S_INVALID or PRISM_S_NO_ENDPOINT.  Then prism_serve_chain().
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_request(struct net *net, struct sk_buff *skb,
			 const struct prism_whdr *hdr, const u8 *src_mac)
{
	struct prism_chain_in in = {
		.hdr = hdr,
		.body = (const u8 *)(hdr + 1),
		.body_len = ntohs(hdr->body_len),
	};
	struct net_device *dev = skb->dev;
	u64 id = be64_to_cpu(hdr->req_id);
	struct prism_sock *psk;
	int err;

	trace_prism_chain_rx(hdr, src_mac);
	if (dev->mtu <= sizeof(*hdr) || !id ||
	    be64_to_cpu(hdr->ack_floor) > id) {
		prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
		return;
	}

	/* Stateless checks first; see "Trust" above. */
	err = prism_wire_check_work(in.body, in.body_len, hdr->nops,
				    &in.resp_len, &in.work);
	psk = prism_frame_psk(net, dev, hdr);
	if (prism_refuse_unchecked(net, dev, hdr, src_mac, err, psk,
				   !err && psk &&
				   prism_chain_authentic(psk, in.body,
							 in.body_len,
							 hdr->nops),
				   in.resp_len))
		return;
	prism_serve_chain(psk, dev, &in, src_mac);
}
