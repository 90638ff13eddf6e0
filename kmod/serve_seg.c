// SPDX-License-Identifier: GPL-2.0
/*
 * Target side of chains and answers larger than one frame.
 *
 * A multi-frame request starts with an SREQ: the chain's ops without their
 * inline data.  It passes the same stateless checks as a REQ (well formed,
 * a valid rkey of a bound endpoint) before the target keeps anything; then
 * its client's session gets a reassembly buffer, charged to the target
 * socket's memory cgroup and bounded per session (PRISM_SESSION_REASM) and
 * per socket (PRISM_REASM_BYTES).  SEG frames fill it; a SEG for no known
 * reassembly is dropped and counted.  The chain runs only when all of its
 * body arrived, through prism_serve_chain() like any chain: at most once,
 * whole.  The target grants the client a window (PRISM_SEG_WINDOW) as
 * segments arrive and reports the ones missing; a repeated SREQ (the
 * client's timer) is answered with a probe grant.
 *
 * A large answer is kept in the reply cache like any other; its segments
 * are sent as the client's grants ask (prism_cached_xmit()).  The target
 * keeps no timer: the client's timer drives recovery.
 */
#include <linux/etherdevice.h>
#include "rcache.h"
#include "trace.h"

/* The reassembly of request id in s, or NULL; s locked. */
static struct prism_reasm *prism_reasm_find(struct prism_session *s, u64 id)
{
	unsigned int i;

	for (i = 0; i < PRISM_SESSION_REASM; i++)
		if (s->reasm[i] && s->reasm[i]->id == id)
			return s->reasm[i];
	return NULL;
}

/* A grant of r's state to its client; s locked. */
static struct sk_buff *prism_reasm_grant(struct prism_sock *psk,
					 struct prism_reasm *r, u8 flags)
{
	struct prism_whdr tmpl;
	struct prism_grant g;

	prism_reply_hdr(&tmpl, &r->hdr);
	prism_seg_rx_grant(&r->rx, flags, &g);
	prism_stat_add(sock_net(&psk->sk), psk, PRISM_STAT_GRANTS_SENT, 1);
	return prism_grant_frame(&tmpl, PRISM_SEG_REQ, r->rx.msg_len, &g);
}

/* Whether the ops of an SREQ may use psk (prism_chain_authentic()). */
static bool prism_manifest_authentic(struct prism_sock *psk,
				     const struct prism_wop *w, u8 nops)
{
	bool only_send = true;
	struct prism_op op;
	unsigned int i;

	for (i = 0; i < nops; i++) {
		prism_wop_decode(&w[i], &op);
		if (prism_psk_authentic(psk, &op, &only_send))
			return true;
	}
	return only_send && READ_ONCE(psk->open_send);
}

/*
 * A new reassembly for the SREQ hdr in s (locked), or NULL with *why set.
 * Charged to psk's memory cgroup and within PRISM_REASM_BYTES.
 */
static struct prism_reasm *prism_reasm_new(struct prism_sock *psk,
					   struct prism_session *s,
					   const struct prism_whdr *hdr,
					   const struct prism_wseg *ws, u8 *why)
{
	u32 msg_len = ntohl(ws->msg_len), seg_size = ntohs(ws->seg_size);
	u32 timeout = ntohl(ws->timeout_ms);
	u32 nsegs = prism_seg_count(msg_len, seg_size);
	struct net *net = sock_net(&psk->sk);
	struct prism_reasm *r, **free_slot = NULL;
	unsigned int i;
	u32 size;

	for (i = 0; i < PRISM_SESSION_REASM; i++)
		if (!s->reasm[i])
			free_slot = &s->reasm[i];
	*why = PRISM_NACK_RCACHE;
	size = struct_size(r, have, BITS_TO_LONGS(nsegs)) + msg_len;
	if (!free_slot)
		return NULL;
	if (atomic_add_return(size, &psk->reasm_bytes) > PRISM_REASM_BYTES)
		goto unaccount;
	*why = PRISM_NACK_NOMEM;
	r = prism_client_alloc(psk, struct_size(r, have, BITS_TO_LONGS(nsegs)),
			       true);
	if (!r)
		goto unaccount;
	r->body = prism_client_alloc(psk, msg_len, false);
	if (!r->body) {
		kfree(r);
		goto unaccount;
	}
	r->id = be64_to_cpu(hdr->req_id);
	r->hdr = *hdr;
	r->size = size;
	/* The client gives up then: drop what came (a client that died). */
	if (!timeout || timeout > PRISM_MAX_TIMEOUT_MS)
		timeout = PRISM_MAX_TIMEOUT_MS;
	r->expires = jiffies + msecs_to_jiffies(timeout);
	/* Checked by the caller: cannot fail. */
	WARN_ON_ONCE(prism_seg_rx_init(&r->rx, msg_len, seg_size, r->have));
	*free_slot = r;
	prism_reasm_expire_arm(psk);
	prism_stat_add(net, psk, PRISM_STAT_REASM_ACTIVE, 1);
	prism_stat_add(net, psk, PRISM_STAT_REASM_BYTES, size);
	return r;

unaccount:
	atomic_sub(size, &psk->reasm_bytes);
	return NULL;
}

/**
 * prism_serve_sreq() - serve the first frame of a multi-frame request
 * @net: network namespace the frame came in
 * @skb: the received frame, linear
 * @hdr: its PRISM header, checked by the receiver (version, body_len within
 *       the frame, nops, status and delay 0)
 * @src: link address of its sender
 *
 * The same stateless checks as prism_serve_request(), on the ops; then a
 * repeat of a chain that ran is answered from the reply cache, a repeat of
 * one in reassembly with a probe grant, and a new one gets a reassembly
 * and a grant, or a NACK.
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_sreq(struct net *net, struct sk_buff *skb,
		      const struct prism_whdr *hdr,
		      const struct prism_paddr *src)
{
	const struct prism_wseg *ws = (const struct prism_wseg *)(hdr + 1);
	u32 body_len = ntohs(hdr->body_len), msg_len, seg_size, blen;
	u64 id = be64_to_cpu(hdr->req_id), floor = be64_to_cpu(hdr->ack_floor);
	struct prism_chain_in in = { .hdr = hdr };
	struct prism_cached *c;
	struct prism_session *s;
	struct prism_sock *psk;
	struct sk_buff *gskb = NULL;
	struct prism_reasm *r;
	struct sk_buff_head out;
	u8 why = PRISM_NACK_SESSIONS;
	bool admitted;
	int err;

	trace_prism_chain_rx(hdr, src);
	if (!id || floor > id || body_len < sizeof(*ws) ||
	    ws->dir != PRISM_SEG_REQ || ws->reserved || ws->offset) {
		prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
		return;
	}
	msg_len = ntohl(ws->msg_len);
	seg_size = ntohs(ws->seg_size);
	err = prism_wire_check_manifest((const u8 *)(ws + 1),
					body_len - sizeof(*ws), hdr->nops,
					&blen, &in.resp_len, &in.work);
	if (!err && (blen != msg_len || seg_size < PRISM_SEG_MIN))
		err = -EINVAL;
	psk = prism_frame_psk(net, src, hdr);
	if (prism_refuse_unchecked(net, hdr, src, prism_link_mtu(net, src),
				   err, psk,
				   !err && psk &&
				   prism_manifest_authentic(psk,
							    (const struct prism_wop *)(ws + 1),
							    hdr->nops),
				   in.resp_len))
		return;
	admitted = prism_admit(psk);
	__skb_queue_head_init(&out);
again:
	s = prism_session_get(psk, src, ntohl(hdr->src_ep),
			      ntohl(hdr->session), floor);
	if (!s)
		goto nack;
	spin_lock(&s->lock);
	if (s->dead) {
		spin_unlock(&s->lock);
		goto again;
	}
	s->last_used = jiffies;
	prism_session_advance(s, floor);
	if (id < s->floor) {
		spin_unlock(&s->lock);
		prism_stat_add(net, psk, PRISM_STAT_DUPLICATES, 1);
		return;
	}
	if (id - s->floor >= PRISM_WINDOW) {
		spin_unlock(&s->lock);
		prism_reply_status(net, hdr, src, PRISM_S_INVALID);
		return;
	}
	c = s->slot[id % PRISM_WINDOW];
	if (c && c->id == id) {
		/* Ran already: its answer again. */
		prism_cached_xmit(s, c, NULL, &out);
		spin_unlock(&s->lock);
		prism_stat_add(net, psk, PRISM_STAT_DUPLICATES, 1);
		prism_xmit_list(net, &out, src);
		return;
	}
	r = prism_reasm_find(s, id);
	if (!r) {
		why = PRISM_NACK_RATE;
		if (admitted)
			r = prism_reasm_new(psk, s, hdr, ws, &why);
		if (!r) {
			spin_unlock(&s->lock);
			goto nack;
		}
		/* Past its first window the client waits for a grant. */
		if (r->rx.nsegs > r->rx.granted)
			gskb = prism_reasm_grant(psk, r, 0);
	} else if (r->rx.msg_len == msg_len && r->rx.seg_size == seg_size) {
		/* The client's timer: tell it what is missing. */
		gskb = prism_reasm_grant(psk, r, PRISM_GRANT_PROBE);
	}
	spin_unlock(&s->lock);
	if (gskb)
		prism_link_xmit(net, gskb, src);
	return;

nack:
	prism_nack(psk, hdr, src, why);
}

/* Run a reassembled request r, taken out of its session, and free it. */
static void prism_reasm_serve(struct net *net, struct prism_sock *psk,
			      struct prism_reasm *r,
			      const struct prism_paddr *src)
{
	struct prism_chain_in in = {
		.hdr = &r->hdr,
		.body = r->body,
		.body_len = r->rx.msg_len,
		.admitted = true,
		.mtu = prism_link_mtu(net, src),
	};
	int err;

	/* The ops came twice (SREQ and segments): what runs is checked. */
	err = prism_wire_check_work(in.body, in.body_len, r->hdr.nops,
				    &in.resp_len, &in.work);
	if (err) {
		prism_stat_add(net, psk, PRISM_STAT_RX_DROPPED, 1);
		prism_reply_status(net, &r->hdr, src, PRISM_S_INVALID);
	} else if (!prism_chain_authentic(psk, in.body, in.body_len,
					  r->hdr.nops)) {
		prism_stat_add(net, psk, PRISM_STAT_UNAUTH_REFUSED, 1);
		prism_reply_status(net, &r->hdr, src, PRISM_S_NO_ENDPOINT);
	} else if (in.mtu <= (int)sizeof(struct prism_whdr)) {
		/* No way back to the client now: as if lost. */
		prism_stat_add(net, psk, PRISM_STAT_TX_DROPPED, 1);
	} else {
		prism_serve_chain(psk, &in, src);
	}
	prism_reasm_release(psk, r);
}

/* The session of a segment or grant frame to psk, or NULL. */
static struct prism_session *prism_frame_session(struct prism_sock *psk,
						 const struct prism_whdr *hdr,
						 const struct prism_paddr *src)
{
	return prism_session_find(psk, src, ntohl(hdr->src_ep),
				  ntohl(hdr->session));
}

/**
 * prism_serve_seg() - store a segment of a multi-frame request
 * @net: network namespace the frame came in
 * @skb: the received frame, linear up to its segment header (the payload
 *       may be in fragments)
 * @hdr: its PRISM header (type PRISM_T_SEG, a &struct prism_wseg of
 *       direction PRISM_SEG_REQ in its body: checked by the receiver)
 * @src: link address of its sender
 *
 * A segment of no reassembly of its session (unknown, finished or
 * abandoned), a duplicate, or one that does not fit the message is dropped
 * and counted (segs_dropped).  The last segment runs the chain.
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_seg(struct net *net, struct sk_buff *skb,
		     const struct prism_whdr *hdr,
		     const struct prism_paddr *src)
{
	const struct prism_wseg *ws = (const struct prism_wseg *)(hdr + 1);
	u32 len = ntohs(hdr->body_len) - sizeof(*ws);
	u32 offset = ntohl(ws->offset), idx;
	struct sk_buff *gskb = NULL;
	struct prism_session *s;
	struct prism_sock *psk;
	struct prism_reasm *r;
	bool done = false;
	int ret;

	psk = prism_frame_psk(net, src, hdr);
	if (!psk)
		goto dropped;
	s = prism_frame_session(psk, hdr, src);
	if (!s)
		goto dropped;
	spin_lock(&s->lock);
	r = s->dead ? NULL : prism_reasm_find(s, be64_to_cpu(hdr->req_id));
	ret = -EINVAL;
	if (r && hdr->nops == r->hdr.nops && !hdr->status &&
	    !ws->reserved && !ws->timeout_ms &&
	    ntohl(ws->msg_len) == r->rx.msg_len &&
	    ntohs(ws->seg_size) == r->rx.seg_size)
		ret = prism_seg_rx_check(&r->rx, offset, len, &idx);
	if (ret <= 0) {
		spin_unlock(&s->lock);
		goto dropped;
	}
	/* Checked: the frame holds len bytes after the segment header. */
	WARN_ON_ONCE(skb_copy_bits(skb, sizeof(*hdr) + sizeof(*ws),
				   r->body + offset, len));
	s->last_used = jiffies;
	if (prism_seg_rx_mark(&r->rx, idx))
		gskb = prism_reasm_grant(psk, r, 0);
	if (r->rx.count == r->rx.nsegs) {
		/* Out of the session: nothing else can reach it now. */
		done = true;
		prism_reasm_detach(s, r);
	}
	spin_unlock(&s->lock);
	prism_stat_add(net, psk, PRISM_STAT_SEGS_RECEIVED, 1);
	if (gskb)
		prism_link_xmit(net, gskb, src);
	if (done)
		prism_reasm_serve(net, psk, r, src);
	return;

dropped:
	prism_stat_add(net, psk, PRISM_STAT_SEGS_DROPPED, 1);
}

/**
 * prism_serve_grant() - the client's grant for a large answer
 * @net: network namespace the frame came in
 * @skb: the received frame, linear
 * @hdr: its PRISM header (type PRISM_T_GRANT, a &struct prism_wgrant of
 *       direction PRISM_SEG_RESP as its body: checked by the receiver)
 * @src: link address of its sender
 *
 * Sends the segments of the cached answer that the grant asks for.  A
 * grant for no segmented answer of its session is dropped (rx_dropped).
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_grant(struct net *net, struct sk_buff *skb,
		       const struct prism_whdr *hdr,
		       const struct prism_paddr *src)
{
	const struct prism_wgrant *wg = (const struct prism_wgrant *)(hdr + 1);
	u64 id = be64_to_cpu(hdr->req_id);
	struct prism_session *s;
	struct prism_sock *psk;
	struct sk_buff_head out;
	struct prism_cached *c;
	struct prism_grant g;

	psk = prism_frame_psk(net, src, hdr);
	if (!psk || prism_grant_decode(wg, &g))
		goto drop;
	s = prism_frame_session(psk, hdr, src);
	if (!s)
		goto drop;
	spin_lock(&s->lock);
	c = s->dead ? NULL : s->slot[id % PRISM_WINDOW];
	if (!c || c->id != id || !c->tx || ntohl(wg->msg_len) != c->tx->msg_len) {
		spin_unlock(&s->lock);
		goto drop;
	}
	__skb_queue_head_init(&out);
	s->last_used = jiffies;
	prism_cached_xmit(s, c, &g, &out);
	spin_unlock(&s->lock);
	prism_xmit_list(net, &out, src);
	return;
drop:
	prism_stat_add(net, psk, PRISM_STAT_RX_DROPPED, 1);
}
