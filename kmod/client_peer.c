// SPDX-License-Identifier: GPL-2.0
/*
 * Client side, per target endpoint: the peer table (RTT estimate and
 * counters, under the socket's peer lock), and congestion control: the
 * windows of cc.c, the chains held for them and their release (under the
 * reqs lock).  See the top of client.c for how chains use them.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include "client.h"

/* ---------------------------------------------------------------------------
 * Peers: RTT estimation and counters per target endpoint.
 */
/**
 * prism_peer_find() - look up what a socket knows of a target endpoint
 * @psk: client socket
 * @addr: link address of the target
 * @ep: endpoint id of the target
 *
 * Context: Caller holds @psk->peer_lock.
 * Return: the peer, or NULL if @psk has not sent a chain to (@addr, @ep).
 */
struct prism_peer *prism_peer_find(struct prism_sock *psk,
				   const struct prism_paddr *addr, u32 ep)
{
	struct prism_peer *p;

	hash_for_each_possible(psk->peers, p, node,
			       prism_paddr_hash(addr, ep))
		if (p->ep == ep && prism_paddr_equal(&p->addr, addr))
			return p;
	return NULL;
}

/**
 * prism_peer_get() - what a socket knows of a chain's target
 * @psk: client socket
 * @dst: the target's link address
 * @dst_ep: the target's endpoint id
 *
 * Created on first use (charged to the socket's memory cgroup), with the
 * initial RTO and congestion window.
 *
 * Context: Process context (sendmsg()); takes @psk->peer_lock.
 * Return: the peer; ERR_PTR(-ENOBUFS) when @psk has PRISM_MAX_PEERS peers
 * already, ERR_PTR(-ENOMEM) when out of memory.
 */
struct prism_peer *prism_peer_get(struct prism_sock *psk,
				  const struct prism_paddr *dst, u32 dst_ep)
{
	u32 key = prism_paddr_hash(dst, dst_ep);
	struct prism_peer *p;

	spin_lock_bh(&psk->peer_lock);
	p = prism_peer_find(psk, dst, dst_ep);
	if (p)
		goto out;
	/* Like IP_ADD_MEMBERSHIP past its limit: no room for one more. */
	p = ERR_PTR(-ENOBUFS);
	if (psk->npeers >= PRISM_MAX_PEERS)
		goto out;
	p = kzalloc(sizeof(*p), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!p) {
		p = ERR_PTR(-ENOMEM);
		goto out;
	}
	p->addr = *dst;
	p->ep = dst_ep;
	INIT_LIST_HEAD(&p->reqs);
	p->rtt.rto_us = PRISM_RTO_INIT_US;
	prism_cc_init(&p->cc);
	INIT_LIST_HEAD(&p->held);
	INIT_LIST_HEAD(&p->ready_node);
	p->seg_reorder = PRISM_SEG_REORDER;
	hash_add(psk->peers, &p->node, key);
	psk->npeers++;
out:
	spin_unlock_bh(&psk->peer_lock);
	return p;
}

/**
 * prism_peer_answered() - a target answered a chain
 * @psk: client socket
 * @p: the target
 * @sent_once: the chain was sent once (Karn): @rtt_us is a sample
 * @rtt_us: from its transmission to its answer
 *
 * Context: BHs disabled or softirq; takes @psk->peer_lock.
 */
void prism_peer_answered(struct prism_sock *psk, struct prism_peer *p,
			 bool sent_once, u32 rtt_us)
{
	struct prism_rtt r;

	spin_lock(&psk->peer_lock);
	p->answered++;
	if (sent_once) {
		r = p->rtt;
		prism_rtt_sample(&r, rtt_us, prism_rto_min_us(),
				 PRISM_RTO_MAX_US);
		p->rtt.srtt_us = r.srtt_us;
		p->rtt.rttvar_us = r.rttvar_us;
		WRITE_ONCE(p->rtt.rto_us, r.rto_us);
	}
	spin_unlock(&psk->peer_lock);
}

/**
 * prism_peer_count() - count an event of a target
 * @psk: client socket
 * @counter: a counter of one of its peers under @psk->peer_lock
 *
 * Context: Any context but hard IRQ; takes @psk->peer_lock.
 */
void prism_peer_count(struct prism_sock *psk, u64 *counter)
{
	spin_lock_bh(&psk->peer_lock);
	(*counter)++;
	spin_unlock_bh(&psk->peer_lock);
}

/**
 * prism_peers_destroy() - free a socket's peers
 * @psk: client socket being released, with no chain left
 *
 * Context: Process context, once no response or timer can run anymore.
 */
void prism_peers_destroy(struct prism_sock *psk)
{
	struct hlist_node *tmp;
	struct prism_peer *p;
	int bkt;

	hash_for_each_safe(psk->peers, bkt, tmp, p, node) {
		hash_del(&p->node);
		kfree(p);
	}
	psk->npeers = 0;
}

/* ---------------------------------------------------------------------------
 * Congestion windows (cc.c) and held chains, under the reqs lock.
 */

/**
 * prism_cc_may_send() - whether a new chain may be sent now
 * @psk: client socket
 * @peer: the chain's target
 *
 * No: both windows must have room (when congestion control is on), and no
 * older chain to @peer may be held (chains to a peer go in order).
 *
 * Context: The reqs lock held.
 * Return: true to send it, false to hold it (prism_req_hold()).
 */
bool prism_cc_may_send(const struct prism_sock *psk,
		       const struct prism_peer *peer)
{
	if (!list_empty(&peer->held))
		return false;
	return !prism_cc_enabled() ||
	       (prism_cc_open(&peer->cc) && prism_cc_open(&psk->cc));
}

/**
 * prism_cc_sent() - a chain is sent from now on
 * @psk: its socket
 * @req: the chain: it counts in its target's window and the socket's
 *
 * Context: The reqs lock held.
 */
void prism_cc_sent(struct prism_sock *psk, struct prism_req *req)
{
	WRITE_ONCE(req->peer->cc.inflight, req->peer->cc.inflight + 1);
	psk->cc.inflight++;
	req->local = true;
}

/* req leaves the socket's window (completed, or presumed lost). */
static void prism_cc_unlocal(struct prism_sock *psk, struct prism_req *req)
{
	if (req->local) {
		req->local = false;
		psk->cc.inflight--;
	}
}

/**
 * prism_req_hold() - hold a new chain until the windows have room
 * @psk: its socket
 * @req: the chain, in the reqs xarray, not sent; its timer is its deadline
 *
 * Context: The reqs lock held.
 */
void prism_req_hold(struct prism_sock *psk, struct prism_req *req)
{
	struct prism_peer *peer = req->peer;

	req->held = true;
	if (list_empty(&peer->held))
		list_add_tail(&peer->ready_node, &psk->cc_ready);
	list_add_tail(&req->held_node, &peer->held);
	WRITE_ONCE(peer->nheld, peer->nheld + 1);
	WRITE_ONCE(psk->nheld, psk->nheld + 1);
}

/* Take a held chain off its peer's held list. */
static void prism_req_unhold(struct prism_sock *psk, struct prism_req *req)
{
	struct prism_peer *peer = req->peer;

	req->held = false;
	list_del(&req->held_node);
	if (list_empty(&peer->held))
		list_del_init(&peer->ready_node);
	WRITE_ONCE(peer->nheld, peer->nheld - 1);
	WRITE_ONCE(psk->nheld, psk->nheld - 1);
}

/**
 * prism_cc_drop() - a chain leaves the outstanding set
 * @psk: its socket
 * @req: the chain, unlinked: held, or counted in the windows it is in
 *
 * Context: The reqs lock held.
 */
void prism_cc_drop(struct prism_sock *psk, struct prism_req *req)
{
	if (req->held) {
		prism_req_unhold(psk, req);
	} else {
		WRITE_ONCE(req->peer->cc.inflight, req->peer->cc.inflight - 1);
		prism_cc_unlocal(psk, req);
	}
}

/*
 * Cut req's target window by half (once per RTT and per flight); count it
 * in stat.
 */
static void prism_cc_halve(struct prism_sock *psk, struct prism_req *req,
			   enum prism_stat stat)
{
	struct prism_peer *peer = req->peer;

	if (prism_cc_enabled() &&
	    prism_cc_loss(&peer->cc, READ_ONCE(peer->rtt.srtt_us),
			  ktime_to_ns(req->first_sent), ktime_get_ns())) {
		WRITE_ONCE(peer->cc_cuts, peer->cc_cuts + 1);
		prism_stat_add(sock_net(&psk->sk), psk, stat, 1);
	}
}

/**
 * prism_cc_lost() - a chain is sent again after its RTO
 * @psk: its socket
 * @req: the chain
 *
 * The chain leaves the socket's window (a silent target must not fill it)
 * and its target's window is halved (cc_cuts_rto).
 *
 * Context: The reqs lock held.
 * Return: true if the socket's window has room for one more now: the
 * caller then calls prism_cc_kick() once it dropped the lock.
 */
bool prism_cc_lost(struct prism_sock *psk, struct prism_req *req)
{
	bool was_local = req->local;

	prism_cc_unlocal(psk, req);
	prism_cc_halve(psk, req, PRISM_STAT_CC_CUTS_RTO);
	return was_local;
}

/**
 * prism_cc_nacked() - a chain's target answered NACK (it is overloaded)
 * @psk: its socket
 * @req: the chain
 *
 * Halves the target's window (cc_cuts_remote).
 *
 * Context: The reqs lock held.
 */
void prism_cc_nacked(struct prism_sock *psk, struct prism_req *req)
{
	prism_cc_halve(psk, req, PRISM_STAT_CC_CUTS_REMOTE);
}

/*
 * Send a held chain: its frame (and, for a multi-frame request, its first
 * window) go to out with the destination's link address in skb->cb.
 * Without memory for the frame, its first try is lost like any other and
 * the timer resends.
 */
static void prism_req_send_held(struct prism_sock *psk, struct prism_req *req,
				struct sk_buff_head *out)
{
	struct sk_buff_head segs;
	struct sk_buff *skb;

	__skb_queue_head_init(&segs);
	prism_req_unhold(psk, req);
	prism_cc_sent(psk, req);
	req->sent_at = ktime_get();
	req->first_sent = req->sent_at;
	prism_req_arm(req, req->sent_at);
	skb = prism_req_skb(req, GFP_ATOMIC);
	if (!skb)
		return;
	prism_req_stamp(req, skb, prism_ack_floor(psk, req->peer));
	if (req->tx) {
		prism_req_tx_first(req, &segs);
		prism_stat_add(sock_net(&psk->sk), psk, PRISM_STAT_SEGS_SENT,
			       skb_queue_len(&segs));
	}
	__skb_queue_head(&segs, skb);
	BUILD_BUG_ON(sizeof(req->dst) > sizeof(skb->cb));
	skb_queue_walk(&segs, skb)
		memcpy(skb->cb, &req->dst, sizeof(req->dst));
	skb_queue_splice_tail_init(&segs, out);
}

/*
 * Send what the windows have room for, one chain per ready peer in turn,
 * visiting at most PRISM_CC_VISITS peers.
 */
#define PRISM_CC_VISITS	256
static void prism_cc_release(struct prism_sock *psk, struct sk_buff_head *out)
{
	bool on = prism_cc_enabled();
	unsigned int visits, closed = 0;
	struct prism_peer *peer;

	for (visits = 0; visits < PRISM_CC_VISITS; visits++) {
		if (list_empty(&psk->cc_ready) ||
		    (on && !prism_cc_open(&psk->cc)))
			return;
		peer = list_first_entry(&psk->cc_ready, struct prism_peer,
					ready_node);
		if (on && !prism_cc_open(&peer->cc)) {
			/* Every ready peer's window is full. */
			if (++closed > READ_ONCE(psk->npeers))
				return;
		} else {
			closed = 0;
			prism_req_send_held(psk,
					    list_first_entry(&peer->held,
							     struct prism_req,
							     held_node),
					    out);
		}
		/* Its turn is over (it may have left the list). */
		if (!list_empty(&peer->ready_node))
			list_move_tail(&peer->ready_node, &psk->cc_ready);
	}
}

/**
 * prism_cc_kick() - send the held chains the windows have room for
 * @psk: client socket
 *
 * After a chain completed or left the socket's window, or when congestion
 * control was turned off.
 *
 * Context: Softirq or process context, no reqs lock held; @psk stays
 * alive until an RCU grace period after prism_client_release().
 */
void prism_cc_kick(struct prism_sock *psk)
{
	struct sk_buff_head out;
	struct prism_paddr to;
	struct sk_buff *skb;

	if (!READ_ONCE(psk->nheld))
		return;
	__skb_queue_head_init(&out);
	/* As in prism_client_submit(): no grant before a window is queued. */
	local_bh_disable();
	xa_lock(&psk->reqs);
	prism_cc_release(psk, &out);
	xa_unlock(&psk->reqs);
	while ((skb = __skb_dequeue(&out))) {
		memcpy(&to, skb->cb, sizeof(to));
		prism_link_xmit(sock_net(&psk->sk), skb, &to);
	}
	local_bh_enable();
}

/**
 * prism_cc_answer() - the delays of an answer to a chain sent once
 * @psk: client socket
 * @peer: the chain's target
 * @skb: the answer, stamped on arrival
 * @hdr: its header (with the target's delay)
 * @rtt_us: the chain's RTT
 * @now: the time of the answer (ktime_get())
 *
 * The target's window reacts to the remote delay (against a target that
 * grows with the path, prism_cc_path_target()), the socket's to the local
 * one (see cc.c).
 *
 * Context: The reqs lock held.
 */
void prism_cc_answer(struct prism_sock *psk, struct prism_peer *peer,
		     const struct sk_buff *skb, const struct prism_whdr *hdr,
		     u32 rtt_us, ktime_t now)
{
	struct net *net = sock_net(&psk->sk);
	u32 local, target, fabric, remote;

	/* Off (the default): not even the clock of a stamped frame is read. */
	if (!prism_cc_enabled())
		return;
	local = prism_stamp_age_us(skb->tstamp);
	target = ntohs(hdr->delay);
	fabric = rtt_us > local + target ? rtt_us - local - target : 0;
	remote = target + prism_cc_fabric_excess(&peer->cc, fabric);
	if (prism_cc_delay(&peer->cc, remote,
			   prism_cc_path_target(prism_cc_target_us(),
						peer->cc.base_us),
			   rtt_us, ktime_to_ns(now))) {
		WRITE_ONCE(peer->cc_cuts, peer->cc_cuts + 1);
		prism_stat_add(net, psk, PRISM_STAT_CC_CUTS_REMOTE, 1);
	}
	if (prism_cc_delay(&psk->cc, local, prism_cc_local_us(), rtt_us,
			   ktime_to_ns(now)))
		prism_stat_add(net, psk, PRISM_STAT_CC_CUTS_LOCAL, 1);
}
