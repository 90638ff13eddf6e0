// SPDX-License-Identifier: GPL-2.0
/*
 * Completions: what a chain's sender reads from its socket.
 *
 * Each outstanding chain owns its completion from sendmsg() on
 * (req->cskb), so that completing it never allocates: a linear skb for an
 * answer that fits one frame, page fragments for a larger one (filled
 * segment by segment by client_seg.c).  An answer from the network is
 * checked before anything of it is copied (prism_results_check(): known
 * statuses, outputs that fit what the answer carries).  A chain with an
 * output buffer (outbuf.c) has a completion of its head alone: its outputs
 * are copied into that buffer instead.  A chain that fails
 * (timeout, NACKs, interface gone) gets the chain status in every op.
 * Layout of a completion: struct prism_msg, its per-op results, then the
 * outputs in op order, each padded to 8 bytes (uapi prism.h).
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include "client.h"
#include "trace.h"

/**
 * prism_completion_head() - bytes of a completion before its outputs
 * @nops: ops of the chain
 *
 * Context: Any context.
 * Return: sizeof(struct prism_msg) and @nops results.
 */
u32 prism_completion_head(u8 nops)
{
	return sizeof(struct prism_msg) + nops * sizeof(struct prism_op_result);
}
EXPORT_SYMBOL_IF_KUNIT(prism_completion_head);

/* Largest page block of a completion's fragments (order 3: 32 KiB). */
#define PRISM_CSKB_ORDER	PAGE_ALLOC_COSTLY_ORDER

/* Give skb page fragments for up to *left bytes; false: out of memory. */
static bool prism_skb_add_pages(struct sk_buff *skb, u32 *left)
{
	unsigned int order;
	struct page *page;
	u32 chunk;

	while (*left && skb_shinfo(skb)->nr_frags < MAX_SKB_FRAGS) {
		order = min_t(unsigned int, get_order(*left), PRISM_CSKB_ORDER);
		for (;;) {
			/*
			 * Compound: the skb frees a fragment with put_page(),
			 * which frees (and uncharges) all of a compound page
			 * but only the first page of a plain high-order one.
			 */
			page = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
					   (order ? __GFP_NORETRY | __GFP_COMP : 0),
					   order);
			if (page || !order)
				break;
			order--;
		}
		if (!page)
			return false;
		chunk = min_t(u32, *left, PAGE_SIZE << order);
		skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page, 0,
				   chunk);
		skb->len += chunk;
		skb->data_len += chunk;
		skb->truesize += PAGE_SIZE << order;
		*left -= chunk;
	}
	return true;
}

/**
 * prism_cskb_alloc_frags() - a completion for an answer larger than a frame
 * @nops: ops of the chain
 * @out_len: bytes of its outputs
 *
 * The outputs are page fragments, of the head and, past MAX_SKB_FRAGS, of
 * skbs on its frag_list; its truesize counts them all.  Charged to the
 * caller's memory cgroup.
 *
 * Context: Process context (sendmsg()).
 * Return: the completion, its head zeroed, or NULL.
 */
struct sk_buff *prism_cskb_alloc_frags(u8 nops, u32 out_len)
{
	struct sk_buff *skb, *frag, **tail;
	u32 left = out_len;

	skb = alloc_skb(prism_completion_head(nops), GFP_KERNEL_ACCOUNT);
	if (!skb)
		return NULL;
	skb_put_zero(skb, prism_completion_head(nops));
	if (!prism_skb_add_pages(skb, &left))
		goto fail;
	tail = &skb_shinfo(skb)->frag_list;
	while (left) {
		frag = alloc_skb(0, GFP_KERNEL_ACCOUNT);
		if (!frag)
			goto fail;
		*tail = frag;
		tail = &frag->next;
		if (!prism_skb_add_pages(frag, &left))
			goto fail;
		skb->len += frag->len;
		skb->data_len += frag->len;
		skb->truesize += frag->truesize;
	}
	return skb;
fail:
	kfree_skb(skb);
	return NULL;
}

/**
 * prism_cskb_reset() - empty a preallocated completion
 * @skb: the completion, maybe with fragments and a frag_list
 *       (prism_req_large_init())
 *
 * Afterwards it is linear and empty, with room for a completion head.
 *
 * Context: Any context.
 */
void prism_cskb_reset(struct sk_buff *skb)
{
	if (!skb_is_nonlinear(skb)) {
		/* The head of an answer that came in part, if any. */
		skb_trim(skb, 0);
		return;
	}
	/* Not cloned: trimming frees the fragments and allocates nothing. */
	WARN_ON_ONCE(pskb_trim(skb, 0));
}

/**
 * prism_completion_size() - bytes of a linear completion
 * @nops: ops of the chain
 * @resp_body_len: most bytes of results and outputs its answer may carry
 *
 * Context: Any context.
 * Return: what a completion of such an answer takes at most.
 */
u32 prism_completion_size(u8 nops, u32 resp_body_len)
{
	/* Outputs are no larger on the wire than in the completion. */
	return prism_completion_head(nops) + resp_body_len;
}
EXPORT_SYMBOL_IF_KUNIT(prism_completion_size);

/**
 * prism_results_check() - check the per-op results of an answer
 * @wres: the answer's @nops results, from the network
 * @nops: ops of the chain
 * @room: bytes of outputs the answer carries after its results
 *
 * Every status must be known and every op's output, padded to 8 bytes,
 * must fit in what is left of @room.
 *
 * Context: Any context.
 * Return: the bytes the outputs take, or -EINVAL.
 */
int prism_results_check(const struct prism_wres *wres, u8 nops, u32 room)
{
	u32 i, olen, used = 0;

	for (i = 0; i < nops; i++) {
		olen = ntohl(wres[i].len);
		/* Both: PRISM_PAD8() of a huge olen wraps around. */
		if (wres[i].status > PRISM_S_MAX || olen > room - used ||
		    PRISM_PAD8(olen) > room - used)
			return -EINVAL;
		used += PRISM_PAD8(olen);
	}
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(prism_results_check);

/* What every completion head says of its chain. */
static void prism_completion_start(struct prism_msg *msg,
				   const struct prism_req *req)
{
	msg->kind = PRISM_MSG_COMPLETION;
	msg->nops = req->nops;
	msg->user_data = req->user_data;
}

/**
 * prism_completion_head_put() - the head of a completion
 * @msg: the completion's first bytes, prism_completion_head() of them,
 *       zeroed; its outputs follow, in op order, each padded to 8 bytes
 *       (or, with an output buffer, start at its offset 0)
 * @req: the chain
 * @wres: its results, checked (prism_results_check())
 *
 * Everything but msg->len, which the caller sets once the completion is
 * whole.
 *
 * Context: Any context.
 */
void prism_completion_head_put(struct prism_msg *msg,
			       const struct prism_req *req,
			       const struct prism_wres *wres)
{
	u32 i, olen, out = req->ob ? 0 : prism_completion_head(req->nops);

	prism_completion_start(msg, req);
	for (i = 0; i < req->nops; i++) {
		olen = ntohl(wres[i].len);
		msg->res[i].status = wres[i].status;
		msg->res[i].len = olen;
		msg->res[i].offset = olen ? out : 0;
		out += PRISM_PAD8(olen);
	}
}
EXPORT_SYMBOL_IF_KUNIT(prism_completion_head_put);

/**
 * prism_fill_completion() - build a chain's completion from a one-frame answer
 * @req: the chain
 * @body: the answer's body (results, then outputs), from the network:
 *        nothing in it is trusted
 * @body_len: its bytes
 *
 * Checks the body against what the chain may return (at most
 * req->resp_cap bytes, prism_results_check()); on success the completion
 * is built into req->cskb, which is empty and linear.
 *
 * Context: Any context.
 * Return: true, or false if the body is malformed (req->cskb unchanged).
 */
bool prism_fill_completion(struct prism_req *req, const u8 *body,
			   u32 body_len)
{
	const struct prism_wres *wres = (const struct prism_wres *)body;
	u32 res_bytes = req->nops * sizeof(*wres);
	struct sk_buff *skb = req->cskb;
	struct prism_msg *msg;
	int used;

	if (body_len > req->resp_cap || body_len < res_bytes)
		return false;
	used = prism_results_check(wres, req->nops, body_len - res_bytes);
	if (used < 0)
		return false;
	msg = skb_put_zero(skb, prism_completion_head(req->nops));
	prism_completion_head_put(msg, req, wres);
	/* The outputs have the same layout on the wire and in a completion. */
	if (req->ob)
		prism_obuf_write(req->ob, 0, body + res_bytes, used);
	else
		skb_put_data(skb, body + res_bytes, used);
	msg->len = skb->len;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(prism_fill_completion);

/**
 * prism_req_deliver() - hand the completion built in req->cskb to the socket
 * @req: the chain, no longer outstanding
 * @status: its chain status
 *
 * Counts it (chains_completed, chains_timed_out) and traces it; req->cskb
 * is the socket's afterwards.
 *
 * Context: Any context.
 */
void prism_req_deliver(struct prism_req *req, u8 status)
{
	struct prism_sock *psk = req->psk;
	struct sock *sk = &psk->sk;
	struct sk_buff *skb = req->cskb;
	struct prism_msg *msg = (struct prism_msg *)skb->data;

	msg->status = status;
	/* recvmsg() names the target; its kind says the size. */
	prism_paddr_sockaddr(&req->dst, req->dst_ep, sk->sk_family, skb->cb);
	req->cskb = NULL;

	trace_prism_chain_complete(psk->ep, &req->dst,
				   req->dst_ep, req->id + psk->id_base,
				   status, req->first_sent, req->tries,
				   req->nacks);
	prism_stat_add(sock_net(sk), psk, PRISM_STAT_CHAINS_COMPLETED, 1);
	if (status == PRISM_S_TIMEOUT) {
		prism_stat_add(sock_net(sk), psk, PRISM_STAT_CHAINS_TIMED_OUT, 1);
		prism_peer_count(psk, &req->peer->timeouts);
	}
	skb_queue_tail(&sk->sk_receive_queue, skb);
	sk->sk_data_ready(sk);
}

/**
 * prism_req_fail() - complete a chain without per-op results
 * @req: the chain, no longer outstanding
 * @status: its chain status, which every op carries
 *
 * Context: Any context.
 */
void prism_req_fail(struct prism_req *req, u8 status)
{
	struct sk_buff *skb = req->cskb;
	struct prism_msg *msg;
	unsigned int i;

	prism_cskb_reset(skb);
	msg = skb_put_zero(skb, prism_completion_head(req->nops));
	prism_completion_start(msg, req);
	msg->len = skb->len;
	for (i = 0; i < req->nops; i++)
		msg->res[i].status = status;
	prism_req_deliver(req, status);
}
