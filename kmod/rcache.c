// SPDX-License-Identifier: GPL-2.0
/*
 * Target side of chains: client sessions, the per-client reply cache that
 * makes execution at-most-once, and the reassembly buffers of multi-frame
 * requests.  Serving chains is in serve.c and serve_seg.c.
 *
 * A client session is one client socket incarnation: (link address, endpoint id,
 * session nonce).  Its cache holds the reply of every chain it ran with an
 * id in [floor, floor + PRISM_WINDOW); the client moves the floor up with
 * every request (its oldest outstanding id) and never sends an id at or
 * above floor + PRISM_WINDOW.  So a repeated chain is either answered from
 * the cache or, when below the floor, known to be completed at the client
 * and dropped: it never runs twice.  A session runs its chains under its
 * lock, so copies arriving on several CPUs at once see one execution.
 *
 * Sessions (at most PRISM_MAX_SESSIONS per socket and
 * PRISM_MAX_SESSIONS_PER_ADDR per source address), cached replies and
 * reassemblies are charged to the memory cgroup of the process that
 * created the target socket.
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

/* Sessions one source address (MAC or IP) may hold on one target socket. */
#define PRISM_MAX_SESSIONS_PER_ADDR	64
static u32 prism_session_key(const struct prism_paddr *addr, u32 ep,
			     u32 nonce)
{
	return jhash_2words(ep, nonce, prism_paddr_hash(addr, 0));
}

/**
 * prism_cached_size() - bytes a cached answer is accounted for
 * @frame_len: bytes of its frame (header and body)
 *
 * Context: Any context.
 * Return: the size of the entry.
 */
u32 prism_cached_size(u32 frame_len)
{
	return struct_size((struct prism_cached *)NULL, frame, frame_len);
}

/* Memory of a cached answer; its accounting is the caller's. */
static void prism_cached_kfree(struct prism_cached *c)
{
	if (!c)
		return;
	prism_seg_tx_delete(c->tx);
	kfree(c);
}

/**
 * prism_cached_free() - drop the cached answer of a slot, if any
 * @s: the session, locked
 * @slot: one of @s->slot
 *
 * Context: BH disabled; @s->lock held.
 */
void prism_cached_free(struct prism_session *s, struct prism_cached **slot)
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
 * prism_reasm_detach() - take a reassembly out of its session
 * @s: the session, locked
 * @r: one of its reassemblies (in @s->reasm); nothing else can reach it
 *     afterwards (free it with prism_reasm_release())
 *
 * Context: Softirq or process context with BH disabled; @s->lock held.
 */
void prism_reasm_detach(struct prism_session *s, struct prism_reasm *r)
{
	unsigned int i;

	for (i = 0; i < PRISM_SESSION_REASM; i++)
		if (s->reasm[i] == r)
			s->reasm[i] = NULL;
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
	prism_reasm_detach(s, r);
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
	void *p = kmalloc(size, zero ? PRISM_CLIENT_GFP | __GFP_ZERO :
				       PRISM_CLIENT_GFP);

	set_active_memcg(old);
	return p;
}

/* Sessions of source address addr; psk->sess_lock held. */
static unsigned int prism_sessions_of_addr(struct prism_sock *psk,
					   const struct prism_paddr *addr)
{
	struct prism_session *s;
	unsigned int n = 0;
	int bkt;

	hash_for_each(psk->sessions, bkt, s, node)
		n += prism_paddr_equal(&s->addr, addr);
	return n;
}

/**
 * prism_session_find() - the session of a client, if it has one
 * @psk: target socket
 * @addr: link address of the client
 * @ep: endpoint id of the client
 * @nonce: session value of the client socket
 *
 * Context: BH disabled, under rcu_read_lock().
 * Return: the session (check its dead flag under its lock), or NULL.
 */
struct prism_session *prism_session_find(struct prism_sock *psk,
					 const struct prism_paddr *addr,
					 u32 ep, u32 nonce)
{
	struct prism_session *s;

	hash_for_each_possible_rcu(psk->sessions, s, node,
				   prism_session_key(addr, ep, nonce))
		if (s->ep == ep && s->nonce == nonce &&
		    prism_paddr_equal(&s->addr, addr))
			return s;
	return NULL;
}

/**
 * prism_session_get() - find or create the session of a client
 * @psk: target socket
 * @addr: link address of the client (its local address picks where the
 *        session's answers are sent from)
 * @ep: endpoint id of the client
 * @nonce: session value of the client socket
 * @floor: ack floor of the request, for a new session
 *
 * Within PRISM_MAX_SESSIONS per socket and PRISM_MAX_SESSIONS_PER_ADDR per
 * source address, after evicting an idle session if that is what it takes.
 *
 * Context: BH disabled, under rcu_read_lock().
 * Return: the session (check its dead flag under its lock), or NULL.
 */
struct prism_session *prism_session_get(struct prism_sock *psk,
					const struct prism_paddr *addr,
					u32 ep, u32 nonce, u64 floor)
{
	u32 key = prism_session_key(addr, ep, nonce);
	struct prism_session *s;

	s = prism_session_find(psk, addr, ep, nonce);
	if (s)
		return s;

	spin_lock(&psk->sess_lock);
	hash_for_each_possible(psk->sessions, s, node, key)
		if (s->ep == ep && s->nonce == nonce &&
		    prism_paddr_equal(&s->addr, addr))
			goto out;
	s = NULL;
	if (psk->nsessions >= PRISM_MAX_SESSIONS &&
	    !prism_session_evict_idle(psk))
		goto out;
	if (prism_sessions_of_addr(psk, addr) >= PRISM_MAX_SESSIONS_PER_ADDR &&
	    (!prism_session_evict_idle(psk) ||
	     prism_sessions_of_addr(psk, addr) >= PRISM_MAX_SESSIONS_PER_ADDR))
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
	s->addr = *addr;
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

/**
 * prism_rcache_reserve() - room for a cached reply
 * @psk: target socket
 * @frame_len: bytes of the reply's frame
 *
 * Within the socket's PRISM_RCACHE_BYTES, after dropping an idle session
 * if that is what it takes.
 *
 * Context: Softirq; no session lock held (eviction takes them).
 * Return: true if the room is reserved.
 */
bool prism_rcache_reserve(struct prism_sock *psk, u32 frame_len)
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

/**
 * prism_rcache_unreserve() - give back what prism_rcache_reserve() took
 * @psk: target socket
 * @reserved: its result (false: nothing to give back)
 * @frame_len: the same frame length
 *
 * Context: Any context.
 */
void prism_rcache_unreserve(struct prism_sock *psk, bool reserved,
			    u32 frame_len)
{
	if (reserved)
		atomic_sub(prism_cached_size(frame_len), &psk->rcache_bytes);
}

/**
 * prism_cached_segment() - make a cached answer go out in segments
 * @s: its session, locked
 * @mtu: bytes of PRISM header and body a frame to the client carries
 * @c: the answer, larger than one frame
 *
 * Context: Softirq; @s->lock held.
 * Return: true, or false if out of memory (the answer cannot be sent).
 */
bool prism_cached_segment(struct prism_session *s, u32 mtu,
			  struct prism_cached *c)
{
	struct mem_cgroup *old = set_active_memcg(s->psk->memcg);
	struct prism_seg_tx *tx;

	/* Charged like the entry (prism_client_alloc()). */
	tx = prism_seg_tx_new(c->len - sizeof(struct prism_whdr),
			      prism_seg_size(mtu), PRISM_CLIENT_GFP);
	set_active_memcg(old);
	if (!tx)
		return false;
	tx->reorder = s->seg_reorder;
	((struct prism_whdr *)c->frame)->body_len = 0;
	c->tx = tx;
	return true;
}

/**
 * prism_cached_xmit() - frames that send a cached answer (again)
 * @s: session of the answer, locked
 * @c: the answer
 * @g: a grant from the client for a segmented answer, or NULL: send it
 *     whole (one frame), or its first window, or (a repeat of the request)
 *     every segment not acknowledged
 * @out: receives the frames; the caller sends them after unlocking @s
 *
 * Context: Softirq, under rcu_read_lock(); @s->lock held.
 */
void prism_cached_xmit(struct prism_session *s, struct prism_cached *c,
		       const struct prism_grant *g, struct sk_buff_head *out)
{
	struct prism_sock *psk = s->psk;
	struct net *net = sock_net(&psk->sk);
	const struct prism_whdr *rhdr = (const struct prism_whdr *)c->frame;
	u32 todo[PRISM_SEG_BURST], n, i, hi = 0, resent = 0;
	struct sk_buff *skb;
	bool probe = true;

	if (!c->tx) {
		skb = prism_alloc_frame(c->len, GFP_ATOMIC);
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
		skb = prism_seg_frame(rhdr, PRISM_SEG_RESP, c->tx,
				      c->frame + sizeof(*rhdr), todo[i]);
		if (skb)
			__skb_queue_tail(out, skb);
	}
	prism_stat_add(net, psk, PRISM_STAT_SEGS_SENT, n);
	prism_stat_add(net, psk, PRISM_STAT_SEGS_RESENT, resent);
}

/**
 * prism_xmit_list() - send a list of frames
 * @net: network namespace they leave from
 * @list: the frames (prism_cached_xmit()), emptied
 * @to: the client
 *
 * Context: Softirq, under rcu_read_lock(), no session lock held.
 */
void prism_xmit_list(struct net *net, struct sk_buff_head *list,
		     const struct prism_paddr *to)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list)))
		prism_link_xmit(net, skb, to);
}
