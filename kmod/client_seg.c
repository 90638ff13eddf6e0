// SPDX-License-Identifier: GPL-2.0
/*
 * Client side of chains and answers larger than one frame.
 *
 * A chain whose request body does not fit in a frame is sent as an SREQ
 * (its ops, kmod/prism.h) followed by the body in segments: the first
 * PRISM_SEG_INIT_WINDOW bytes at once, the rest as the target's grants
 * allow; the segments a grant reports missing are resent alone.  The SREQ
 * is what the chain's timer resends: the target answers it with a probe
 * grant (or the answer, if the chain ran).
 *
 * A chain whose answer may not fit in a frame gets, at submission, a
 * completion whose outputs live in page fragments (prism_cskb_alloc_frags()
 * in completion.c, charged to the receive buffer like any completion) and
 * a bitmap of segments.  Each segment of the answer is copied once, to its
 * place in the completion; the per-op results go to req->wres until the
 * answer is whole.
 * The client grants the target a window as segments arrive; when the
 * chain's timer fires after part of the answer came, it sends a probe grant
 * instead of the request.  A timer that finds progress since its last run
 * re-arms without counting a try.
 *
 * Everything here runs under the reqs lock of the socket, like the rest of
 * the state of an outstanding chain.
 */
#include <linux/slab.h>
#include "client.h"

/* The SREQ of a multi-frame request: a wseg, then the ops without data. */
static int prism_req_sreq(struct prism_req *req, u32 body_len, u32 seg_size,
			  u32 cap, u32 timeout_ms)
{
	struct prism_wseg *ws = (struct prism_wseg *)(req->frame +
						      sizeof(struct prism_whdr));
	struct prism_wop *w = (struct prism_wop *)(ws + 1);
	u32 pos = 0;
	unsigned int i;

	if (sizeof(*ws) + req->nops * sizeof(*w) > cap)
		return -EMSGSIZE;
	memset(ws, 0, sizeof(*ws));
	ws->dir = PRISM_SEG_REQ;
	ws->seg_size = htons(seg_size);
	ws->msg_len = htonl(body_len);
	ws->timeout_ms = htonl(timeout_ms);
	/* The body was checked by prism_chain_encode(): walk its ops. */
	for (i = 0; i < req->nops; i++) {
		memcpy(&w[i], req->body + pos, sizeof(*w));
		pos += sizeof(*w) + PRISM_PAD8(be32_to_cpu(w[i].data_len));
	}
	req->frame_len = sizeof(struct prism_whdr) + sizeof(*ws) +
			 req->nops * sizeof(*w);
	return 0;
}

/* Count req's answer in (sign 1) or out of (-1) the reasm_* gauges. */
static void prism_req_reasm_count(struct prism_req *req, int sign)
{
	struct prism_sock *psk = req->psk;
	struct net *net = sock_net(&psk->sk);

	prism_stat_add(net, psk, PRISM_STAT_REASM_ACTIVE, (u64)(s64)sign);
	prism_stat_add(net, psk, PRISM_STAT_REASM_BYTES,
		       (u64)((s64)sign * req->resp_cap));
}

/**
 * prism_req_large_init() - set up a chain or answer larger than one frame
 * @req: chain being submitted: nops and frame_len set; @req->body holds
 *       its body if it does not fit in @req->frame
 * @mtu: bytes of PRISM header and body a frame to its target carries
 * @body_len: bytes of its request body
 * @resp_len: bytes of its largest answer body
 * @timeout_ms: the chain's timeout
 *
 * A multi-frame request gets its segmentation state and its SREQ in
 * @req->frame; an answer that may not fit in a frame gets its completion
 * (with fragments) and its bitmap, counted in the reasm_* gauges of
 * @req->psk.
 *
 * Context: Process context, may sleep.
 * Return: 0, -EMSGSIZE if @mtu cannot carry segments or the SREQ, or
 * -ENOMEM.
 */
int prism_req_large_init(struct prism_req *req, u32 mtu, u32 body_len,
			 u32 resp_len, u32 timeout_ms)
{
	u32 cap = mtu - sizeof(struct prism_whdr);
	u32 seg_size = prism_seg_size(mtu), n;
	int err;

	if ((req->body || resp_len > cap) && seg_size < PRISM_SEG_MIN)
		return -EMSGSIZE;
	if (req->body) {
		req->tx = prism_seg_tx_new(body_len, seg_size,
					   GFP_KERNEL_ACCOUNT);
		if (!req->tx)
			return -ENOMEM;
		err = prism_req_sreq(req, body_len, seg_size, cap, timeout_ms);
		if (err)
			return err;
	}
	if (resp_len <= cap)
		return 0;
	/* The target may cut its answer in segments as small as this. */
	n = prism_seg_count(resp_len, PRISM_SEG_MIN);
	req->rx = kzalloc(sizeof(*req->rx) + BITS_TO_LONGS(n) * sizeof(long),
			  GFP_KERNEL_ACCOUNT);
	if (!req->rx)
		return -ENOMEM;
	prism_req_reasm_count(req, 1);
	if (req->ob) {
		/* The outputs go to the output buffer: a head alone. */
		req->cskb = alloc_skb(prism_completion_head(req->nops),
				      GFP_KERNEL_ACCOUNT);
		if (req->cskb)
			skb_put_zero(req->cskb,
				     prism_completion_head(req->nops));
	} else {
		req->cskb = prism_cskb_alloc_frags(req->nops, resp_len -
						   req->nops *
						   sizeof(struct prism_wres));
	}
	return req->cskb ? 0 : -ENOMEM;
}

/**
 * prism_req_large_free() - free what prism_req_large_init() set up
 * @req: the chain (its completion is freed with it, as any)
 *
 * Its output buffer, if any, is given back too.
 *
 * Context: Any context.
 */
void prism_req_large_free(struct prism_req *req)
{
	prism_seg_tx_delete(req->tx);
	req->tx = NULL;
	kvfree(req->body_buf);
	req->body_buf = NULL;
	req->body = NULL;
	if (req->rx)
		prism_req_reasm_count(req, -1);
	kfree(req->rx);
	req->rx = NULL;
	if (req->ob) {
		prism_stat_add(sock_net(&req->psk->sk), req->psk,
			       PRISM_STAT_OUTBUF_PAGES,
			       -(u64)prism_obuf_pages(req->ob));
		prism_obuf_release(req->ob);
		req->ob = NULL;
	}
}

/*
 * A grant or segment moved req on: its timer will not probe, nor will
 * those of the other chains to the same target that moved before (see
 * prism_req_stalled()).
 */
static void prism_req_progress(struct prism_req *req)
{
	req->progress = true;
	req->seg_moved = true;
	WRITE_ONCE(req->peer->seg_stamp, jiffies);
}

/**
 * prism_req_stalled() - whether a chain's timer should probe
 * @req: a chain with segments, whose timer fired
 * @rto: the current retransmission timeout, in jiffies
 *
 * A chain that moved before is not probed while its target keeps sending
 * segments or grants for other chains within @rto: its own frames are
 * queued behind theirs (many large chains in flight to one target), and a
 * probe would only make the target send them twice.  The chain's deadline
 * still applies.
 *
 * Context: Reqs lock held (the chain's timer).
 * Return: true if the chain should probe.
 */
bool prism_req_stalled(const struct prism_req *req, unsigned long rto)
{
	return !req->seg_moved ||
	       time_after_eq(jiffies, READ_ONCE(req->peer->seg_stamp) + rto);
}

/* Segments todo[0..n) of req's request into out. */
static void prism_req_tx_frames(struct prism_req *req, const u32 *todo,
				u32 n, struct sk_buff_head *out)
{
	const struct prism_whdr *tmpl = (const struct prism_whdr *)req->frame;
	struct sk_buff *skb;
	u32 i;

	for (i = 0; i < n; i++) {
		skb = prism_seg_frame(tmpl, PRISM_SEG_REQ, req->tx,
				      req->body, todo[i]);
		if (skb)
			__skb_queue_tail(out, skb);
	}
}

/**
 * prism_req_tx_first() - the first window of a multi-frame request
 * @req: the chain, just published with its request id
 * @out: receives the frames, to send after the SREQ
 *
 * Context: Reqs lock held.
 */
void prism_req_tx_first(struct prism_req *req, struct sk_buff_head *out)
{
	u32 todo[PRISM_SEG_BURST], n, resent = 0;

	n = prism_seg_tx_pick(req->tx, false, 0, todo, ARRAY_SIZE(todo),
			      &resent);
	prism_req_tx_frames(req, todo, n, out);
}

/**
 * prism_req_tx_restart() - send a NACKed multi-frame request from the start
 * @req: the chain: the target NACKed its SREQ (no reassembly) or the chain
 *       once reassembled (its reassembly was freed)
 * @out: receives the frames of the first window, to send after the SREQ
 *
 * Nothing the target had acknowledged is kept; the reorder threshold
 * learnt is.
 *
 * Context: Reqs lock held (the chain's timer).
 */
void prism_req_tx_restart(struct prism_req *req, struct sk_buff_head *out)
{
	prism_seg_tx_restart(req->tx);
	prism_req_tx_first(req, out);
}

/* A grant of what req has of its answer. */
static struct sk_buff *prism_req_grant(struct prism_req *req, u8 flags)
{
	struct prism_whdr tmpl = *(const struct prism_whdr *)req->frame;
	struct prism_grant g;

	prism_seg_rx_grant(req->rx, flags, &g);
	prism_stat_add(sock_net(&req->psk->sk), req->psk,
		       PRISM_STAT_GRANTS_SENT, 1);
	return prism_grant_frame(&tmpl, PRISM_SEG_RESP,
				 req->rx->msg_len, &g);
}

/**
 * prism_req_probe() - ask the target for the missing part of an answer
 * @req: the chain, whose answer started to arrive
 *
 * Context: Reqs lock held (the chain's timer).
 * Return: a probe grant frame, or NULL if out of memory.
 */
struct sk_buff *prism_req_probe(struct prism_req *req)
{
	return prism_req_grant(req, PRISM_GRANT_PROBE);
}

/*
 * Store bytes [off, off + len) of the answer body, which are at skb_off in
 * the frame skb (linear or not): the results aside, the outputs in place
 * in the output buffer or else in the completion, one copy.
 */
static void prism_req_rx_store(struct prism_req *req, u32 off,
			       const struct sk_buff *skb, u32 skb_off, u32 len)
{
	u32 res_bytes = req->nops * sizeof(struct prism_wres), n, done = 0;
	struct skb_seq_state st;
	const u8 *p;

	if (off < res_bytes) {
		n = min(len, res_bytes - off);
		WARN_ON_ONCE(skb_copy_bits(skb, skb_off, (u8 *)req->wres + off,
					   n));
		off += n;
		skb_off += n;
		len -= n;
	}
	if (!len)
		return;
	if (req->ob) {
		prism_obuf_write_skb(req->ob, off - res_bytes, skb, skb_off,
				     len);
		return;
	}
	off += prism_completion_head(req->nops) - res_bytes;
	skb_prepare_seq_read((struct sk_buff *)skb, skb_off, skb_off + len,
			     &st);
	while ((n = skb_seq_read(done, &p, &st))) {
		WARN_ON_ONCE(skb_store_bits(req->cskb, off + done, p, n));
		done += n;
	}
}

/*
 * The whole answer body, msg_len bytes, arrived: check its results against
 * what came and finish the completion.  false: the answer is invalid.
 */
static bool prism_req_rx_finish(struct prism_req *req, u32 msg_len)
{
	u32 res_bytes = req->nops * sizeof(struct prism_wres);
	struct sk_buff *skb = req->cskb;
	int used;

	if (msg_len < res_bytes)
		return false;
	used = prism_results_check(req->wres, req->nops, msg_len - res_bytes);
	if (used < 0 || used != msg_len - res_bytes ||
	    (!req->ob && pskb_trim(skb, prism_completion_head(req->nops) + used)))
		return false;
	prism_completion_head_put((struct prism_msg *)skb->data, req,
				  req->wres);
	((struct prism_msg *)skb->data)->len = skb->len;
	return true;
}

/**
 * prism_req_rx_whole() - an answer that came in one RESP frame
 * @req: chain whose answer could have come in segments
 * @skb: the RESP frame
 * @len: bytes of its body
 *
 * Context: Reqs lock held.
 * Return: true if the completion is built; false if the answer is invalid
 * (or segments of it arrived already).
 */
bool prism_req_rx_whole(struct prism_req *req, const struct sk_buff *skb,
			u32 len)
{
	if (req->rx_started || len > req->resp_cap ||
	    len < req->nops * sizeof(struct prism_wres))
		return false;
	prism_req_rx_store(req, 0, skb, sizeof(struct prism_whdr), len);
	return prism_req_rx_finish(req, len);
}

/* Set up req's receiver from the first segment of its answer. */
static bool prism_req_rx_start(struct prism_req *req,
			       const struct prism_whdr *hdr,
			       const struct prism_wseg *ws)
{
	u32 msg_len = ntohl(ws->msg_len);

	if (hdr->status != PRISM_S_OK || msg_len > req->resp_cap ||
	    msg_len < req->nops * sizeof(struct prism_wres))
		return false;
	/* The bitmap has room for segments of PRISM_SEG_MIN and up. */
	if (prism_seg_rx_init(req->rx, msg_len, ntohs(ws->seg_size),
			      (unsigned long *)(req->rx + 1)))
		return false;
	req->rx_started = true;
	return true;
}

/**
 * prism_client_seg() - a segment of the answer to a chain
 * @psk: socket bound to the frame's destination endpoint
 * @skb: the received frame, linear up to its segment header (the caller
 *       keeps and frees it)
 * @hdr: its PRISM header (type PRISM_T_SEG, a &struct prism_wseg of
 *       direction PRISM_SEG_RESP in its body: checked by the receiver)
 * @src: link address of its sender
 *
 * Stores the segment in place in the chain's completion; the last one
 * completes the chain.  A segment for no chain, a duplicate or one that
 * does not fit the answer is dropped and counted (segs_dropped).
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_client_seg(struct prism_sock *psk, struct sk_buff *skb,
		      const struct prism_whdr *hdr,
		      const struct prism_paddr *src)
{
	const struct prism_wseg *ws = (const struct prism_wseg *)(hdr + 1);
	u32 len = ntohs(hdr->body_len) - sizeof(*ws), off = ntohl(ws->offset);
	struct net *net = sock_net(&psk->sk);
	struct sk_buff *gskb = NULL;
	struct prism_req *req;
	bool done = false;
	u32 idx;
	int ret;

	xa_lock_bh(&psk->reqs);
	req = prism_req_of_frame(psk, hdr, src, NULL);
	ret = -EINVAL;
	if (req && req->rx && !ws->reserved && !ws->timeout_ms &&
	    (req->rx_started || prism_req_rx_start(req, hdr, ws)) &&
	    ntohl(ws->msg_len) == req->rx->msg_len &&
	    ntohs(ws->seg_size) == req->rx->seg_size &&
	    hdr->status == PRISM_S_OK)
		ret = prism_seg_rx_check(req->rx, off, len, &idx);
	if (ret <= 0) {
		xa_unlock_bh(&psk->reqs);
		prism_stat_add(net, psk, PRISM_STAT_SEGS_DROPPED, 1);
		return;
	}
	prism_req_rx_store(req, off, skb, sizeof(*hdr) + sizeof(*ws), len);
	prism_req_progress(req);
	if (prism_seg_rx_mark(req->rx, idx))
		gskb = prism_req_grant(req, 0);
	if (req->rx->count == req->rx->nsegs) {
		done = prism_req_rx_finish(req, req->rx->msg_len);
		if (done) {
			prism_req_unlink(psk, req);
		} else {
			/* Invalid as a whole: start again, by the timer. */
			bitmap_zero(req->rx->have, req->rx->nsegs);
			req->rx_started = false;
		}
	}
	xa_unlock_bh(&psk->reqs);
	prism_stat_add(net, psk, PRISM_STAT_SEGS_RECEIVED, 1);
	if (gskb)
		prism_link_xmit(net, gskb, src);
	if (done)
		prism_req_finish(req, PRISM_S_OK, false, 0);
}

/**
 * prism_client_grant() - the target's grant for a multi-frame request
 * @psk: socket bound to the frame's destination endpoint
 * @skb: the received frame (the caller keeps and frees it)
 * @hdr: its PRISM header (type PRISM_T_GRANT, a &struct prism_wgrant of
 *       direction PRISM_SEG_REQ as its body: checked by the receiver)
 * @src: link address of its sender
 *
 * Sends the segments the grant asks for: those reported missing and new
 * ones up to its limit.
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_client_grant(struct prism_sock *psk, struct sk_buff *skb,
			const struct prism_whdr *hdr,
			const struct prism_paddr *src)
{
	const struct prism_wgrant *wg = (const struct prism_wgrant *)(hdr + 1);
	u32 todo[PRISM_SEG_BURST], n = 0, hi, resent = 0;
	struct net *net = sock_net(&psk->sk);
	struct sk_buff_head out;
	struct prism_req *req;
	struct prism_grant g;
	struct sk_buff *seg;

	__skb_queue_head_init(&out);
	if (prism_grant_decode(wg, &g))
		goto drop;
	xa_lock_bh(&psk->reqs);
	req = prism_req_of_frame(psk, hdr, src, NULL);
	if (!req || !req->tx || ntohl(wg->msg_len) != req->tx->msg_len ||
	    prism_seg_tx_ack(req->tx, &g, &hi)) {
		xa_unlock_bh(&psk->reqs);
		goto drop;
	}
	prism_req_progress(req);
	if (req->tx->reorder > READ_ONCE(req->peer->seg_reorder))
		WRITE_ONCE(req->peer->seg_reorder, req->tx->reorder);
	n = prism_seg_tx_pick(req->tx, g.flags & PRISM_GRANT_PROBE, hi, todo,
			      ARRAY_SIZE(todo), &resent);
	prism_req_tx_frames(req, todo, n, &out);
	xa_unlock_bh(&psk->reqs);
	prism_stat_add(net, psk, PRISM_STAT_SEGS_SENT, n);
	prism_stat_add(net, psk, PRISM_STAT_SEGS_RESENT, resent);
	while ((seg = __skb_dequeue(&out)))
		prism_link_xmit(net, seg, src);
	return;
drop:
	prism_stat_add(net, psk, PRISM_STAT_RX_DROPPED, 1);
}
