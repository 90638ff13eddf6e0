// SPDX-License-Identifier: GPL-2.0
/*
 * Client side of chains: submission, retransmission, matching responses,
 * deadlines and completions.
 *
 * An outstanding chain (struct prism_req) lives in its socket's reqs
 * xarray, indexed by a 64-bit request id that never wraps.  Whoever erases
 * it from there (response, timer, interface event, socket release) owns
 * it: it stops the timer, completes the chain once and frees it.  Changes
 * to a chain still in the xarray (retransmission, NACK backoff) are made
 * under the xarray lock.  The completion skb is allocated at submission,
 * so an accepted chain always gets its completion.
 *
 * Retransmission follows RFC 6298 per peer: smoothed RTT from chains that
 * were sent once (Karn), RTO doubled on every retransmission, bounded by
 * the socket's PRISM_RETRIES and the chain's deadline.  A chain's timer is
 * a timer_list, so a timeout is rounded up to whole jiffies (4 ms at
 * HZ=250); with the module parameter rto_hrtimer it is a soft hrtimer, to
 * the microsecond, at the cost of programming the clock event device per
 * chain (in our TCG guests, a third to half of the ops/s).  A NACK does not
 * count as a try: the chain was not run, and is resent after a backoff.
 *
 * Congestion control (cc.c) gives each peer a window of chains in flight,
 * and the socket one across its peers.  A chain submitted while either is
 * full, or while older chains to its peer wait, is held (not sent; its
 * timer is its deadline) on its peer's held list; the peer is on the
 * socket's cc_ready list while it holds chains.  Whoever completes a chain
 * (prism_req_finish(), the timer) then sends what the windows have room
 * for, taking the ready peers in turn (prism_cc_kick()).  A chain leaves
 * the socket's window at its first retransmission: a silent target keeps
 * its own window full, but not the socket's.
 *
 * Request ids are per socket, but the ack floor and the window are per
 * peer (target endpoint), because each target keeps one reply cache per
 * client socket: every request carries the oldest id still outstanding to
 * its target (ack floor), and the target forgets cached replies below it.
 * sendmsg() refuses a chain whose id would be PRISM_WINDOW or more above
 * its peer's floor, so that target's reply cache covers every chain that
 * may still be resent to it.  A silent target thus blocks only chains to
 * itself, not to the others.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <linux/random.h>
#include "client.h"
#include "keyed.h"
#include "trace.h"

/**
 * prism_client_init() - initialise the client side of a new socket
 * @psk: the socket
 *
 * Empty set of outstanding chains and of peers, request ids from 1 with a
 * random wire offset, a random session value, and the default timeout,
 * retries and window (PRISM_DEFAULT_*).
 *
 * Context: Process context, from socket creation, before @psk is visible
 * to anybody else.
 */
void prism_client_init(struct prism_sock *psk)
{
	xa_init_flags(&psk->reqs, XA_FLAGS_LOCK_BH);
	psk->next_req_id = 1;
	/*
	 * Wire ids start at a random point (below 2^62: they never wrap) and
	 * the session value is random, so that an off-path attacker cannot
	 * guess what a response must carry.
	 */
	psk->id_base = get_random_u64() >> 2;
	psk->session = get_random_u32();
	atomic_set(&psk->outstanding, 0);
	psk->max_outstanding = PRISM_DEFAULT_MAX_OUTSTANDING;
	psk->timeout_ms = PRISM_DEFAULT_TIMEOUT_MS;
	psk->retries = PRISM_DEFAULT_RETRIES;
	spin_lock_init(&psk->peer_lock);
	hash_init(psk->peers);
	/* Only local delay closes it: dead targets must not (see below). */
	prism_cc_init(&psk->cc);
	psk->cc.cwnd = PRISM_CC_MAX;
	INIT_LIST_HEAD(&psk->cc_ready);
}

/* Delay before the next transmission: RTO doubled per try or per NACK. */
static u64 prism_req_backoff_ns(const struct prism_req *req)
{
	u32 shift = min(req->nacked ? req->nacks : req->tries - 1, 16U);
	u64 us = (u64)READ_ONCE(req->peer->rtt.rto_us) << shift;

	us = min_t(u64, us, PRISM_RTO_MAX_US);
	/* Spread the NACKed clients, so they do not all come back at once. */
	if (req->nacked)
		us += get_random_u32_below(us / 2 + 1);
	return us * NSEC_PER_USEC;
}

/**
 * prism_req_arm() - arm a chain's timer
 * @req: the chain
 * @now: ktime_get() of the caller (one clock read less per chain)
 *
 * For its next try (RTO doubled per try, or per NACK with jitter), or its
 * deadline if that comes first; a held chain only has its deadline.
 *
 * Context: The reqs lock held, or @req not yet published.
 */
void prism_req_arm(struct prism_req *req, ktime_t now)
{
	ktime_t when = req->deadline;

	if (!req->held)
		when = min_t(ktime_t, when,
			     ktime_add_ns(now, prism_req_backoff_ns(req)));
	if (req->fine) {
		hrtimer_start(&req->hrtimer, when, HRTIMER_MODE_ABS_SOFT);
	} else {
		/*
		 * Never early: whole jiffies rounded up, plus one, since the
		 * next jiffy may be a nanosecond away.
		 */
		when = ktime_sub(when, now);
		mod_timer(&req->timer, jiffies + 1 +
			  (when > 0 ? DIV_ROUND_UP_ULL(when, TICK_NSEC) : 0));
	}
}

/* Stop a chain's timer, waiting for it if it runs. */
static void prism_req_timer_cancel(struct prism_req *req)
{
	if (req->fine)
		hrtimer_cancel(&req->hrtimer);
	else
		del_timer_sync(&req->timer);
}

/* ---------------------------------------------------------------------------
 * Completions.
 */
/* The plaintext of a sealed chain (a REKEY's region key among it). */
static void prism_req_frame_free(struct prism_req *req)
{
	if (req->ckey)
		kfree_sensitive(req->frame);
	else
		kfree(req->frame);
}

static void prism_req_free(struct prism_req *req)
{
	kfree_skb(req->cskb);
	prism_req_frame_free(req);
	prism_req_large_free(req);
	prism_ckey_put(req->ckey);
	atomic_dec(&req->psk->outstanding);
	kfree(req);
}

/* ---------------------------------------------------------------------------
 * Transmission.
 */

/**
 * prism_ack_floor() - the ack floor of a target
 * @psk: client socket
 * @peer: the target
 *
 * Context: The reqs lock held.
 * Return: the oldest id outstanding to @peer, or the next id if none.
 */
u64 prism_ack_floor(struct prism_sock *psk, struct prism_peer *peer)
{
	struct prism_req *oldest;

	oldest = list_first_entry_or_null(&peer->reqs, struct prism_req,
					  peer_node);
	return oldest ? oldest->id : psk->next_req_id;
}

/**
 * prism_req_skb() - a frame carrying a chain's REQ, SREQ or AREQ
 * @req: the chain
 * @gfp: allocation flags
 *
 * The caller fills in what changes (prism_req_stamp()); an AREQ gets
 * tailroom for its tag.
 *
 * Context: Any context @gfp allows.
 * Return: the frame, or NULL if out of memory.
 */
struct sk_buff *prism_req_skb(const struct prism_req *req, gfp_t gfp)
{
	struct sk_buff *skb;

	skb = prism_alloc_frame(req->frame_len +
				(req->ckey ? PRISM_GCM_TAG_LEN : 0), gfp);
	if (skb)
		skb_put_data(skb, req->frame, req->frame_len);
	return skb;
}

/**
 * prism_req_stamp() - finish a transmission of a chain's request
 * @req: the chain (its saved frame gets the floor too, for resends)
 * @skb: a frame from prism_req_skb(), its request id set
 * @floor: from prism_ack_floor()
 *
 * Puts the ack floor in, then seals the frame of a keyed chain (each
 * transmission under its own nonce).
 *
 * Context: The reqs lock held.
 */
void prism_req_stamp(struct prism_req *req, struct sk_buff *skb, u64 floor)
{
	__be64 v = cpu_to_be64(floor + req->psk->id_base);

	((struct prism_whdr *)req->frame)->ack_floor = v;
	((struct prism_whdr *)skb->data)->ack_floor = v;
	if (req->ckey)
		prism_req_seal(req, skb);
}

/**
 * prism_req_of_frame() - the chain an answer, segment or grant is for
 * @psk: client socket the frame came to
 * @hdr: the frame's PRISM header
 * @src: its sender's link address
 * @forged: set when the frame is forged; may be NULL
 *
 * Only the chain's target may answer it, and only with the socket's
 * session value (not known off-path): anything else is forged and counted
 * (resp_forged).
 *
 * Context: The reqs lock (xa_lock_bh(&@psk->reqs)) held.
 * Return: the outstanding chain, or NULL (none, typically the answer to a
 * resent chain that completed, or forged).
 */
struct prism_req *prism_req_of_frame(struct prism_sock *psk,
				     const struct prism_whdr *hdr,
				     const struct prism_paddr *src,
				     bool *forged)
{
	struct prism_req *req = NULL;

	if (ntohl(hdr->session) == psk->session) {
		req = xa_load(&psk->reqs,
			      be64_to_cpu(hdr->req_id) - psk->id_base);
		/* A held chain was not sent: nothing can answer it yet. */
		if (req && req->held)
			req = NULL;
		if (!req || (req->nops == hdr->nops &&
			     req->dst_ep == ntohl(hdr->src_ep) &&
			     prism_paddr_equal(&req->dst, src))) {
			if (forged)
				*forged = false;
			return req;
		}
	}
	if (forged)
		*forged = true;
	prism_stat_add(sock_net(&psk->sk), psk, PRISM_STAT_RESP_FORGED, 1);
	return NULL;
}

/**
 * prism_req_unlink() - take a chain out of the outstanding set
 * @psk: its socket
 * @req: the chain; whoever unlinks it owns it (prism_req_finish())
 *
 * Context: The reqs lock (xa_lock_bh(&@psk->reqs)) held.
 */
void prism_req_unlink(struct prism_sock *psk, struct prism_req *req)
{
	__xa_erase(&psk->reqs, req->id);
	list_del(&req->peer_node);
	prism_cc_drop(psk, req);
}

static void prism_req_expired(struct prism_req *req)
{
	struct prism_sock *psk = req->psk;
	struct net *net = sock_net(&psk->sk);
	struct sk_buff *skb = NULL;
	struct sk_buff_head segs;
	struct prism_paddr to;
	bool restart = false, kick = false;
	u8 status = 0;
	ktime_t now;

	__skb_queue_head_init(&segs);
	rcu_read_lock();
	xa_lock_bh(&psk->reqs);
	/* Lost the race to a response or teardown: they own req. */
	if (xa_load(&psk->reqs, req->id) != req)
		goto unlock;
	/*
	 * Re-armed (NACK, sent after being held) while this run waited for
	 * the lock: that later run decides.  Otherwise nobody can arm the
	 * timer again once req leaves the xarray below, so freeing it here is
	 * safe.
	 */
	if (req->fine ? hrtimer_is_queued(&req->hrtimer) :
			timer_pending(&req->timer))
		goto unlock;
	now = ktime_get();
	if (ktime_compare(now, req->deadline) >= 0 ||
	    (!req->held && !req->nacked && !req->progress &&
	     req->tries >= READ_ONCE(psk->retries))) {
		prism_req_unlink(psk, req);
		status = req->nacked ? PRISM_S_NACK : PRISM_S_TIMEOUT;
		goto unlock;
	}
	if (req->held) {
		/* Still waiting for a window: only the deadline counts. */
		prism_req_arm(req, now);
		goto unlock;
	}
	if (req->progress ||
	    ((req->tx || req->rx) &&
	     !prism_req_stalled(req, usecs_to_jiffies(READ_ONCE(req->peer->rtt.rto_us))))) {
		/* A large chain or answer is moving: not a loss. */
		req->progress = false;
		req->tries = 1;
		prism_req_arm(req, now);
		goto unlock;
	}
	trace_prism_chain_retransmit(psk->ep, req->dst_ep,
				     req->id + psk->id_base,
				     req->nacked ? req->tries : req->tries + 1,
				     READ_ONCE(req->peer->rtt.rto_us), req->nacked);
	if (req->nacked) {
		req->nacked = false;
		/* Not run, and the target kept none of its data. */
		restart = !!req->tx;
	} else {
		req->tries++;
		kick = prism_cc_lost(psk, req);
		WRITE_ONCE(req->peer->retransmits, req->peer->retransmits + 1);
		prism_stat_add(net, psk, PRISM_STAT_RETRANSMITS, 1);
	}
	/* Part of the answer came: ask for the rest. */
	if (req->rx_started)
		skb = prism_req_probe(req);
	else
		skb = prism_req_skb(req, GFP_ATOMIC);
	if (skb) {
		if (!req->rx_started)
			prism_req_stamp(req, skb,
					prism_ack_floor(psk, req->peer));
		/* req may be gone once the lock is dropped. */
		to = req->dst;
		if (restart)
			prism_req_tx_restart(req, &segs);
	}
	/* Without a frame this try is lost like any other. */
	req->sent_at = now;
	prism_req_arm(req, now);
unlock:
	xa_unlock_bh(&psk->reqs);

	if (status) {
		prism_req_fail(req, status);
		prism_req_free(req);
		prism_cc_kick(psk);
	} else if (skb) {
		/* The SREQ, then the first window (BHs are off: in order). */
		prism_stat_add(net, psk, PRISM_STAT_SEGS_SENT,
			       skb_queue_len(&segs));
		prism_link_xmit(net, skb, &to);
		while ((skb = __skb_dequeue(&segs)))
			prism_link_xmit(net, skb, &to);
	}
	if (kick)
		prism_cc_kick(psk);
	rcu_read_unlock();
}

static enum hrtimer_restart prism_req_hrtimer(struct hrtimer *t)
{
	prism_req_expired(container_of(t, struct prism_req, hrtimer));
	return HRTIMER_NORESTART;
}

static void prism_req_timer(struct timer_list *t)
{
	struct prism_req *req = from_timer(req, t, timer);

	prism_req_expired(req);
}

/**
 * prism_client_submit() - submit a chain given to sendmsg()
 * @psk: client socket
 * @dst: link address of the target (checked by the caller, in the kind
 *       of @psk's link)
 * @dst_ep: endpoint id of the target, not 0
 * @ubufp: kernel copy of what userspace wrote: &struct prism_chain, then
 *         its ops (&struct prism_op and inline data), a kvmalloc() block.
 *         A chain larger than one frame is encoded there, in place, and
 *         keeps it: *@ubufp is then NULL, and the chain frees it.
 * @len: bytes at *@ubufp, at least sizeof(struct prism_chain)
 * @uob: the chain's output buffer (PRISM_CMSG_OUTBUF), or NULL
 *
 * Encodes the chain into a request frame, preallocates its completion
 * (charged to the receive buffer of @psk), gives it the next request id,
 * arms its retransmission timer and sends it.  Once accepted, the chain
 * gets exactly one completion on the socket, unless the socket is closed
 * first.
 *
 * Context: Process context, may sleep; socket lock not held.
 * Return:
 * * 0: the chain was accepted;
 * * -EINVAL: bad chain header, timeout above PRISM_MAX_TIMEOUT_MS or
 *   malformed ops (prism_chain_encode());
 * * -ENOTCONN: @psk is not bound;
 * * -ENETDOWN: the interface of @psk is gone, down, or its MTU (or the
 *   path MTU to @dst) cannot hold a PRISM header;
 * * -ENETUNREACH: UDP: no route to @dst;
 * * -EMSGSIZE: the chain or its answer is larger than one frame and the
 *   MTU cannot carry its segments or its ops (SREQ);
 * * -EINVAL, -ENOMEM, -EFAULT: @uob too short, past RLIMIT_MEMLOCK or not
 *   writable (prism_obuf_pin());
 * * -ENOBUFS: the completion would exceed the receive buffer (SO_RCVBUF),
 *   PRISM_MAX_PEERS peers already, max_outstanding chains outstanding, or
 *   the request id would be PRISM_WINDOW or more above the peer's ack floor;
 * * -ENOMEM: out of memory.
 */
int prism_client_submit(struct prism_sock *psk, const struct prism_paddr *dst,
			u32 dst_ep, u8 **ubufp, u32 len,
			const struct prism_outbuf *uob)
{
	u8 *ubuf = *ubufp;
	const struct prism_chain *chain = (const struct prism_chain *)ubuf;
	struct net *net = sock_net(&psk->sk);
	struct sk_buff_head segs;
	struct prism_whdr *hdr;
	struct prism_req *req;
	struct sk_buff *skb;
	u32 cap, resp_len, timeout;
	bool req_held = false;
	u64 floor;
	int body_len, err, mtu;

	if (chain->flags || chain->reserved || !chain->nops ||
	    chain->nops > PRISM_MAX_CHAIN)
		return -EINVAL;
	timeout = chain->timeout_ms ?: READ_ONCE(psk->timeout_ms);
	if (timeout > PRISM_MAX_TIMEOUT_MS)
		return -EINVAL;
	/* Pairs with bind(): ep and the link are set before bound. */
	if (!smp_load_acquire(&psk->bound))
		return -ENOTCONN;

	__skb_queue_head_init(&segs);
	mtu = prism_link_mtu(net, dst);
	if (mtu < 0)
		return mtu;
	if ((u32)mtu <= sizeof(*hdr))
		return -ENETDOWN;
	cap = mtu - sizeof(*hdr);

	req = kzalloc(sizeof(*req), GFP_KERNEL_ACCOUNT);
	if (!req)
		return -ENOMEM;
	req->psk = psk;
	err = -ENOMEM;
	req->frame = kmalloc(sizeof(*hdr) + cap, GFP_KERNEL_ACCOUNT);
	if (!req->frame)
		goto out_req;
	req->nops = chain->nops;
	body_len = prism_chain_encode(ubuf + sizeof(*chain), len - sizeof(*chain),
				      chain->nops, req->frame + sizeof(*hdr),
				      cap, &resp_len);
	if (body_len == -EMSGSIZE) {
		/*
		 * Larger than a frame: encoded in place (the header stays as
		 * it is) and sent in segments from there.
		 */
		body_len = prism_chain_encode(ubuf + sizeof(*chain),
					      len - sizeof(*chain),
					      chain->nops, ubuf + sizeof(*chain),
					      len - sizeof(*chain), &resp_len);
		req->body = ubuf + sizeof(*chain);
		req->body_buf = ubuf;
		*ubufp = NULL;
	}
	if (body_len < 0) {
		err = body_len;
		goto out_req;
	}
	req->frame_len = sizeof(*hdr) + body_len;
	req->resp_cap = resp_len;
	/* A chain on a keyed region is sealed, in one frame each way. */
	err = prism_req_key(req, dst, dst_ep,
			    req->body ?: req->frame + sizeof(*hdr), body_len);
	if (!err && req->ckey)
		err = prism_req_keyed_frame(req, mtu);
	if (err)
		goto out_req;
	if (uob) {
		req->ob = prism_obuf_pin(uob->addr, uob->len, resp_len -
					 chain->nops * sizeof(struct prism_wres));
		if (IS_ERR(req->ob)) {
			err = PTR_ERR(req->ob);
			req->ob = NULL;
			prism_stat_add(net, psk, PRISM_STAT_OUTBUF_REFUSED, 1);
			goto out_req;
		}
		prism_stat_add(net, psk, PRISM_STAT_OUTBUF_PAGES,
			       prism_obuf_pages(req->ob));
	}
	err = prism_req_large_init(req, mtu, body_len, resp_len, timeout);
	if (err)
		goto out_req;
	err = -ENOMEM;
	/* With an output buffer the completion is its head alone. */
	if (!req->cskb)
		req->cskb = alloc_skb(req->ob ? prism_completion_head(req->nops) :
				      prism_completion_size(chain->nops,
							    resp_len),
				      GFP_KERNEL_ACCOUNT);
	if (!req->cskb)
		goto out_req;
	/*
	 * The completion is charged to the receive buffer from now on, so
	 * chains in flight plus completions not yet read stay within
	 * SO_RCVBUF: a process that never reads cannot make the kernel hold
	 * more.
	 */
	if (atomic_read(&psk->sk.sk_rmem_alloc) + req->cskb->truesize >
	    READ_ONCE(psk->sk.sk_rcvbuf)) {
		prism_stat_add(net, psk, PRISM_STAT_RCVBUF_FULL, 1);
		err = -ENOBUFS;
		goto out_req;
	}
	skb_set_owner_r(req->cskb, &psk->sk);
	req->peer = prism_peer_get(psk, dst, dst_ep);
	if (IS_ERR(req->peer)) {
		err = PTR_ERR(req->peer);
		goto out_req;
	}
	/* What earlier chains learnt of reordering on the path. */
	if (req->tx)
		req->tx->reorder = READ_ONCE(req->peer->seg_reorder);

	hdr = (struct prism_whdr *)req->frame;
	hdr->version = PRISM_WIRE_VERSION;
	hdr->type = req->ckey ? PRISM_T_AREQ :
		    req->tx ? PRISM_T_SREQ : PRISM_T_REQ;
	hdr->nops = chain->nops;
	hdr->status = 0;
	hdr->dst_ep = htonl(dst_ep);
	hdr->src_ep = htonl(psk->ep);
	hdr->session = htonl(psk->session);
	hdr->body_len = htons(req->frame_len - sizeof(*hdr) +
			      (req->ckey ? PRISM_GCM_TAG_LEN : 0));
	hdr->delay = 0;
	skb = prism_req_skb(req, GFP_KERNEL);
	if (!skb)
		goto out_req;

	req->user_data = chain->user_data;
	req->dst = *dst;
	req->dst_ep = dst_ep;
	req->tries = 1;
	req->fine = prism_rto_hrtimer();
	if (req->fine) {
		hrtimer_init(&req->hrtimer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_SOFT);
		req->hrtimer.function = prism_req_hrtimer;
	} else {
		timer_setup(&req->timer, prism_req_timer, 0);
	}

	err = -ENOBUFS;
	if (atomic_inc_return(&psk->outstanding) > READ_ONCE(psk->max_outstanding))
		goto out_count;

	/* Publish and arm under the lock, so no owner sees an unarmed req. */
	xa_lock_bh(&psk->reqs);
	floor = prism_ack_floor(psk, req->peer);
	if (psk->next_req_id - floor >= PRISM_WINDOW) {
		err = -ENOBUFS;
	} else {
		req->id = psk->next_req_id;
		err = __xa_insert(&psk->reqs, req->id, req, GFP_ATOMIC);
	}
	if (!err) {
		list_add_tail(&req->peer_node, &req->peer->reqs);
		WRITE_ONCE(req->peer->chains, req->peer->chains + 1);
		psk->next_req_id++;
		hdr->req_id = cpu_to_be64(req->id + psk->id_base);
		((struct prism_whdr *)skb->data)->req_id = hdr->req_id;
		prism_req_stamp(req, skb, floor);
		req->sent_at = ktime_get();
		req->deadline = ktime_add_ms(req->sent_at, timeout);
		req->first_sent = req->sent_at;
		req_held = !prism_cc_may_send(psk, req->peer);
		if (req_held) {
			/* Its frame is built again when it is sent. */
			prism_req_hold(psk, req);
		} else {
			prism_cc_sent(psk, req);
			if (req->tx)
				prism_req_tx_first(req, &segs);
		}
		prism_req_arm(req, req->sent_at);
	}
	xa_unlock_bh(&psk->reqs);
	if (err)
		goto out_count;

	prism_stat_add(net, psk, PRISM_STAT_CHAINS_SENT, 1);
	if (req_held) {
		/* req may be gone already: only its fate is known here. */
		prism_stat_add(net, psk, PRISM_STAT_CC_HELD, 1);
		kfree_skb(skb);
		if (!prism_cc_enabled())
			prism_cc_kick(psk);
		return 0;
	}
	prism_stat_add(net, psk, PRISM_STAT_SEGS_SENT, skb_queue_len(&segs));
	/*
	 * The first window is marked sent already: let no grant (a device
	 * that loops frames back, as veth, runs the receive path when BHs
	 * are enabled again) send more before it is queued.
	 */
	local_bh_disable();
	prism_link_xmit(net, skb, dst);
	while ((skb = __skb_dequeue(&segs)))
		prism_link_xmit(net, skb, dst);
	local_bh_enable();
	return 0;

out_count:
	atomic_dec(&psk->outstanding);
	kfree_skb(skb);
out_req:
	kfree_skb(req->cskb);
	prism_req_frame_free(req);
	prism_req_large_free(req);
	prism_ckey_put(req->ckey);
	kfree(req);
	return err;
}

/**
 * prism_client_response() - match a response frame to its outstanding chain
 * @psk: socket bound to the frame's destination endpoint on the receiving
 *       interface
 * @skb: the received frame (the caller keeps and frees it)
 * @hdr: PRISM header of the frame, in @skb; version, nops and body_len
 *       checked by the receiver
 * @src: link address of its sender
 *
 * A response with the socket's session value, the id of an outstanding
 * chain, and the chain's target as its source completes the chain: with the
 * per-op results and outputs for PRISM_S_OK (after checking them against
 * what the chain may return), otherwise with the chain status for every op;
 * a chain sent only once gives an RTT sample.  A NACK instead re-arms the
 * chain's timer to resend it after a backoff.  Anything else is dropped and
 * counted (rx_dropped, resp_forged).
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_client_response(struct prism_sock *psk, struct sk_buff *skb,
			   const struct prism_whdr *hdr,
			   const struct prism_paddr *src)
{
	const u8 *body = (const u8 *)(hdr + 1);
	struct net *net = sock_net(&psk->sk);
	u32 body_len = ntohs(hdr->body_len);
	struct prism_req *req;
	bool sample, forged;
	u32 rtt_us = 0;
	ktime_t now;
	int err;

	if (hdr->status > PRISM_S_MAX ||
	    (hdr->type == PRISM_T_ARESP && hdr->status != PRISM_S_OK))
		goto drop;
	xa_lock_bh(&psk->reqs);
	req = prism_req_of_frame(psk, hdr, src, &forged);
	if (!req) {
		xa_unlock_bh(&psk->reqs);
		/* Typically the answer to a resent chain that completed. */
		if (!forged)
			goto drop;
		return;
	}
	if (hdr->status == PRISM_S_NACK) {
		/* Not run: resend after a backoff, until the deadline. */
		req->nacked = true;
		req->nacks++;
		prism_req_arm(req, ktime_get());
		prism_cc_nacked(psk, req);
		trace_prism_chain_nack(PRISM_NACK_RECEIVED, psk->ep, src,
				       req->dst_ep,
				       req->id + psk->id_base,
				       PRISM_NACK_UNKNOWN);
		xa_unlock_bh(&psk->reqs);
		prism_stat_add(net, psk, PRISM_STAT_NACKS_RECEIVED, 1);
		prism_peer_count(psk, &req->peer->nacks);
		return;
	}
	/* The answer of a keyed chain is sealed for it, and only that. */
	if (hdr->status == PRISM_S_OK &&
	    (req->ckey || hdr->type == PRISM_T_ARESP)) {
		err = req->ckey ? prism_resp_open(req, skb, &hdr, &body,
						  &body_len) : -EINVAL;
		if (err) {
			xa_unlock_bh(&psk->reqs);
			if (err != -EBADMSG)
				goto drop;
			prism_stat_add(net, psk, PRISM_STAT_RESP_AUTH_FAILED, 1);
			return;
		}
	}
	if (hdr->status == PRISM_S_OK &&
	    !(req->rx ? prism_req_rx_whole(req, skb, body_len) :
			prism_fill_completion(req, body, body_len))) {
		xa_unlock_bh(&psk->reqs);
		goto drop;
	}
	prism_req_unlink(psk, req);
	/*
	 * Karn: only a chain sent once gives an unambiguous sample, and only
	 * one that is not a transfer of many frames.
	 */
	sample = req->tries == 1 && !req->tx && !req->rx_started;
	if (sample) {
		now = ktime_get();
		rtt_us = ktime_us_delta(now, req->sent_at);
		prism_cc_answer(psk, req->peer, skb, hdr, rtt_us, now);
	}
	xa_unlock_bh(&psk->reqs);
	prism_req_finish(req, hdr->status, sample, rtt_us);
	return;
drop:
	prism_stat_add(net, psk, PRISM_STAT_RX_DROPPED, 1);
}

/**
 * prism_req_finish() - complete a chain its owner took out of the set
 * @req: the chain, unlinked (prism_req_unlink())
 * @status: PRISM_S_OK: its completion is built; else the chain's status
 * @sample: @rtt_us is an RTT sample of its target (Karn)
 * @rtt_us: from its last transmission to its answer
 *
 * Context: Softirq or process context, no reqs lock held.
 */
void prism_req_finish(struct prism_req *req, u8 status, bool sample,
		      u32 rtt_us)
{
	struct prism_sock *psk = req->psk;

	prism_req_timer_cancel(req);
	prism_peer_answered(psk, req->peer, sample, rtt_us);
	if (status == PRISM_S_OK)
		prism_req_deliver(req, PRISM_S_OK);
	else
		prism_req_fail(req, status);
	prism_req_free(req);
	prism_cc_kick(psk);
}

static void prism_client_drain(struct prism_sock *psk, bool complete,
			       u8 status)
{
	struct prism_req *req;
	unsigned long id;

	xa_for_each(&psk->reqs, id, req) {
		xa_lock_bh(&psk->reqs);
		if (xa_load(&psk->reqs, id) != req) {
			xa_unlock_bh(&psk->reqs);
			continue;
		}
		prism_req_unlink(psk, req);
		xa_unlock_bh(&psk->reqs);
		prism_req_timer_cancel(req);
		if (complete)
			prism_req_fail(req, status);
		prism_req_free(req);
	}
}

/**
 * prism_client_fail_all() - complete every outstanding chain with a status
 * @psk: client socket
 * @status: PRISM_S_* status of the chains and of each of their ops
 *          (PRISM_S_NETDOWN when the interface went down or away)
 *
 * Chains submitted while this runs may be left outstanding.
 *
 * Context: Process context (the netdevice notifier, RTNL held, calls it
 * under rcu_read_lock()); takes the reqs lock and waits for running chain
 * timers, so never from a chain timer.
 */
void prism_client_fail_all(struct prism_sock *psk, u8 status)
{
	prism_client_drain(psk, true, status);
}

/**
 * prism_client_release() - drop every outstanding chain without completing it
 * @psk: client socket being released
 *
 * After this and an RCU grace period, nothing of the client side is in use.
 *
 * Context: Process context, socket release, after @psk was unbound; waits
 * for running chain timers.
 */
void prism_client_release(struct prism_sock *psk)
{
	prism_client_drain(psk, false, 0);
}

/**
 * prism_client_destroy() - free what is left of the client side
 * @psk: client socket being released
 *
 * Frees the peers.
 *
 * Context: Process context, socket release, after prism_client_release() and
 * an RCU grace period, once no response or timer can run anymore.
 */
void prism_client_destroy(struct prism_sock *psk)
{
	prism_peers_destroy(psk);
}
