// SPDX-License-Identifier: GPL-2.0
/*
 * Serving chains on the target: admission (NACK under overload), the
 * stateless checks, running a chain once into its reply-cache entry, and
 * the answers.
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
 * session found or created (rcache.c), admission applied and the reply
 * cache charged.  Each CPU runs at most PRISM_CPU_WORK_PER_TICK bytes of
 * chain work per jiffy; past it, chains are NACKed (over_budget).
 */
#include <linux/etherdevice.h>
#include <linux/pkt_sched.h>
#include "rcache.h"
#include "keyed.h"
#include "compat.h"
#include "trace.h"
#include "steer.h"

/* Bytes of chain work one CPU runs per jiffy before NACKing. */
#define PRISM_CPU_WORK_PER_TICK		(8U << 20)

struct prism_cpu_work {
	unsigned long	stamp;		/* jiffies of the current tick */
	u32		bytes;		/* work done in it */
};

static DEFINE_PER_CPU(struct prism_cpu_work, prism_cpu_work);

/**
 * prism_admit() - admission of a new chain
 * @psk: target socket
 *
 * Refuses work the target cannot keep up with, before running it.
 * Signals: the socket's configured rate, and this CPU's receive backlog
 * (the core's and the PRISM queue of steer.c) filling up (frames past
 * netdev_max_backlog are dropped silently).
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
		  skb_queue_len_lockless(&sd->process_queue) +
		  prism_steer_backlog();
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
	struct prism_sock		*psk;
	const struct prism_paddr	*src;
	u32				src_ep;
};

static int prism_deliver_send(void *priv, const void *data, u32 len)
{
	struct prism_send_target *t = priv;
	int status;

	status = prism_queue_send(t->psk, t->src, t->src_ep, data, len);
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
 * @net: network namespace the request came in
 * @hdr: header of the request
 * @src: link address of its sender
 * @status: PRISM_S_* status of the chain, which did not run
 *
 * Such answers are small and go out first (TC_PRIO_CONTROL).
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_reply_status(struct net *net, const struct prism_whdr *hdr,
			const struct prism_paddr *src, u8 status)
{
	struct prism_whdr *rhdr;
	struct sk_buff *rskb;

	rskb = prism_alloc_frame(sizeof(*rhdr), GFP_ATOMIC);
	if (!rskb)
		return;
	rhdr = skb_put(rskb, sizeof(*rhdr));
	prism_reply_hdr(rhdr, hdr);
	rhdr->status = status;
	rskb->priority = TC_PRIO_CONTROL;
	prism_link_xmit(net, rskb, src);
}

/**
 * prism_refuse() - answer a chain that did not prove it may use the endpoint
 * @net: network namespace the request came in
 * @hdr: header of the request
 * @src: link address of its sender
 * @status: PRISM_S_INVALID or PRISM_S_NO_ENDPOINT
 *
 * At most PRISM_REFUSALS_BURST answers per PRISM_REFUSALS_INTERVAL per
 * netns, so that a flood of junk cannot make the target flood back.
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_refuse(struct net *net, const struct prism_whdr *hdr,
		  const struct prism_paddr *src, u8 status)
{
	if (!__ratelimit(&prism_pernet(net)->refusals)) {
		prism_stat_add(net, NULL, PRISM_STAT_REPLIES_LIMITED, 1);
		return;
	}
	prism_reply_status(net, hdr, src, status);
}

/**
 * prism_psk_authentic() - whether an op proves its chain may use a socket
 * @psk: target socket
 * @op: an op of the chain (checked)
 * @only_send: cleared when @op is not a SEND
 *
 * A chain may use @psk when one of its ops names a plain region of @psk by
 * a valid rkey, or when it is SENDs only and @psk is open to SENDs (the caller
 * checks that after the last op).
 *
 * Context: Under rcu_read_lock().
 * Return: true if @op names a plain region of @psk.
 */
bool prism_psk_authentic(struct prism_sock *psk, const struct prism_op *op,
			 bool *only_send)
{
	struct prism_region *r;

	if (op->opcode != PRISM_OP_SEND)
		*only_send = false;
	/* A keyed region admits sealed chains only (keyed.c). */
	r = op->rkey ? prism_region_find(&psk->mem, op->rkey) : NULL;
	return r && !r->keyed;
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
static void prism_run_chain(struct prism_sock *psk,
			    const struct prism_chain_in *in,
			    const struct prism_paddr *src,
			    struct prism_cached *c)
{
	struct prism_whdr *rhdr = (struct prism_whdr *)c->frame;
	struct net *net = sock_net(&psk->sk);
	const struct prism_whdr *hdr = in->hdr;
	struct prism_send_target target;
	struct prism_exec_ctx ctx = {};
	u8 *resp = (u8 *)(rhdr + 1);
	u64 t0 = 0;
	int ret;

	prism_reply_hdr(rhdr, hdr);
	target.psk = psk;
	target.src = src;
	target.src_ep = ntohl(hdr->src_ep);
	ctx.mem = &psk->mem;
	if (in->wauth) {
		ctx.auth_rkey = be64_to_cpu(in->wauth->rkey);
		ctx.auth_rights = in->wauth->rights;
		ctx.memcg = psk->memcg;
		resp += sizeof(*in->wauth);
	}
	ctx.deliver_send = prism_deliver_send;
	ctx.priv = &target;

	if (trace_prism_chain_exec_enabled())
		t0 = ktime_get_ns();
	ret = prism_engine_execute(&ctx, in->body, in->body_len, hdr->nops,
				   resp, in->resp_len);
	prism_stat_add(net, psk, PRISM_STAT_CHAINS_SERVED, 1);
	if (ret < 0) {
		rhdr->status = -ret;
		ret = 0;
	} else {
		prism_stat_add(net, psk, PRISM_STAT_OPS_SERVED, hdr->nops);
		prism_stat_add(net, psk, PRISM_STAT_OPS_FAILED, ctx.ops_failed);
		if (ctx.rekeys | ctx.rekeys_refused) {
			prism_stat_add(net, psk, PRISM_STAT_REKEYS,
				       ctx.rekeys);
			prism_stat_add(net, psk, PRISM_STAT_REKEYS_REFUSED,
				       ctx.rekeys_refused);
		}
	}
	c->len = sizeof(*rhdr) + ret;
	trace_prism_chain_exec(hdr, rhdr->status, ctx.ops_failed, ret,
			       t0 ? ktime_get_ns() - t0 : 0);
}

/**
 * prism_nack() - refuse a chain for overload, before it ran
 * @psk: target socket
 * @hdr: header of the request
 * @src: link address of its sender
 * @why: &enum prism_nack_why, for the tracepoint
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_nack(struct prism_sock *psk, const struct prism_whdr *hdr,
		const struct prism_paddr *src, u8 why)
{
	prism_stat_add(sock_net(&psk->sk), psk, PRISM_STAT_NACKS_SENT, 1);
	trace_prism_chain_nack(PRISM_NACK_SENT, psk->ep, src,
			       ntohl(hdr->src_ep), be64_to_cpu(hdr->req_id), why);
	prism_reply_status(sock_net(&psk->sk), hdr, src, PRISM_S_NACK);
}

/**
 * prism_serve_chain() - run a chain at most once and answer it
 * @psk: target socket the chain proved it may use
 * @in: the chain (checked)
 * @src: link address of the client
 *
 * Finds or creates the client's session; a repeat is answered from its
 * reply cache, a new chain runs after its cache entry was allocated; a
 * chain that cannot be remembered or admitted is NACKed, not run.  An
 * answer larger than one frame is sent in segments.
 *
 * Context: Softirq, under rcu_read_lock().
 */
void prism_serve_chain(struct prism_sock *psk, const struct prism_chain_in *in,
		       const struct prism_paddr *src)
{
	const struct prism_whdr *hdr = in->hdr;
	struct net *net = sock_net(&psk->sk);
	u64 id = be64_to_cpu(hdr->req_id);
	u64 floor = be64_to_cpu(hdr->ack_floor);
	u32 frame_len = sizeof(*hdr) + in->resp_len +
			(in->auth_key ? PRISM_SEAL_OVERHEAD : 0);
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
	s = prism_session_get(psk, src, ntohl(hdr->src_ep),
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
		prism_reply_status(net, hdr, src, PRISM_S_INVALID);
		return;
	}
	if (*slot && (*slot)->id == id) {
		/* Ran already: answer again from the cache. */
		prism_cached_xmit(s, *slot, NULL, &out);
		spin_unlock(&s->lock);
		prism_rcache_unreserve(psk, reserved, frame_len);
		prism_stat_add(net, psk, PRISM_STAT_DUPLICATES, 1);
		prism_xmit_list(net, &out, src);
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
	prism_run_chain(psk, in, src, entry);
	if (entry->len > in->mtu) {
		if (!prism_cached_segment(s, in->mtu, entry)) {
			/* Ran, but cannot be answered: resends will fail. */
			entry->len = sizeof(*hdr);
			((struct prism_whdr *)entry->frame)->status =
				PRISM_S_TOO_BIG;
		}
	} else {
		((struct prism_whdr *)entry->frame)->body_len =
			htons(entry->len - sizeof(*hdr));
		/* What the chain waited and ran here, for the client's CC. */
		((struct prism_whdr *)entry->frame)->delay =
			htons(prism_stamp_age_us(in->rx_stamp));
		/* Sealed once: repeats send these bytes (one nonce). */
		if (in->auth_key &&
		    ((struct prism_whdr *)entry->frame)->status == PRISM_S_OK)
			entry->len = prism_resp_seal(in, entry->frame,
						     entry->len - sizeof(*hdr));
	}
	/* Whatever held the slot is below the floor (window arithmetic). */
	prism_cached_free(s, slot);
	*slot = entry;
	prism_cached_xmit(s, entry, NULL, &out);
	spin_unlock(&s->lock);
	prism_xmit_list(net, &out, src);
	return;

nack:
	prism_nack(psk, hdr, src, why);
}

/**
 * prism_refuse_unchecked() - answer a chain that failed a stateless check
 * @net: network namespace the request came in
 * @hdr: its header (REQ or SREQ)
 * @src: link address of its sender
 * @mtu: prism_link_mtu() of @src
 * @err: result of the wire check of its ops (0, -EINVAL or -E2BIG)
 * @psk: socket of its destination (prism_frame_psk()), or NULL
 * @authentic: it proved it may use @psk (a valid rkey; only when @err is 0)
 * @resp_len: its largest answer body
 *
 * The checks of "Trust" above, in order: malformed or over budget is
 * INVALID whatever the endpoint; then NO_ENDPOINT; both answers rate
 * limited.  An answer the link cannot carry, even in segments, is
 * TOO_BIG.
 *
 * Context: Softirq, under rcu_read_lock().
 * Return: true if the chain was refused (and answered), false if it may
 * be served.
 */
bool prism_refuse_unchecked(struct net *net, const struct prism_whdr *hdr,
			    const struct prism_paddr *src, int mtu, int err,
			    struct prism_sock *psk, bool authentic,
			    u32 resp_len)
{
	if (err) {
		prism_stat_add(net, NULL, err == -E2BIG ?
			       PRISM_STAT_OVER_BUDGET : PRISM_STAT_RX_DROPPED, 1);
		prism_refuse(net, hdr, src, PRISM_S_INVALID);
		return true;
	}
	if (!authentic) {
		prism_stat_add(net, psk, PRISM_STAT_UNAUTH_REFUSED, 1);
		prism_refuse(net, hdr, src, PRISM_S_NO_ENDPOINT);
		return true;
	}
	if (mtu <= (int)sizeof(*hdr)) {
		/* No way back to the sender (no route): as if lost. */
		prism_stat_add(net, NULL, PRISM_STAT_TX_DROPPED, 1);
		return true;
	}
	if (sizeof(*hdr) + resp_len > (u32)mtu &&
	    prism_seg_size(mtu) < PRISM_SEG_MIN) {
		prism_reply_status(net, hdr, src, PRISM_S_TOO_BIG);
		return true;
	}
	return false;
}

/**
 * prism_serve_request() - serve one request frame
 * @net: network namespace of the receiving interface
 * @skb: the received frame, linear (the caller keeps and frees it)
 * @hdr: PRISM header of the frame, in @skb, checked by the receiver (version,
 *       body_len within the frame, nops, type PRISM_T_REQ, status and
 *       delay 0)
 * @src: link address of its sender
 *
 * Stateless checks first (well formed and within PRISM_MAX_CHAIN_WORK, then
 * a bound endpoint the chain may use), answered with a rate-limited
 * PRISM_S_INVALID or PRISM_S_NO_ENDPOINT.  Then prism_serve_chain().
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_request(struct net *net, struct sk_buff *skb,
			 const struct prism_whdr *hdr,
			 const struct prism_paddr *src)
{
	struct prism_chain_in in = {
		.hdr = hdr,
		.body = (const u8 *)(hdr + 1),
		.body_len = ntohs(hdr->body_len),
		.rx_stamp = skb->tstamp,
	};

	in.mtu = prism_req_frame_mtu(net, hdr, src);
	if (in.mtu)
		prism_serve_checked(net, prism_frame_psk(net, src, hdr), &in,
				    src);
}

/**
 * prism_req_frame_mtu() - the first check of a REQ or AREQ frame
 * @net: network namespace of the receiving interface
 * @hdr: the frame's header
 * @src: link address of its sender
 *
 * A request needs a way back to its sender, an id and an ack floor not
 * above it; else it is dropped (rx_dropped).
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 * Return: prism_link_mtu() towards @src, or 0 if the frame was dropped.
 */
int prism_req_frame_mtu(struct net *net, const struct prism_whdr *hdr,
			const struct prism_paddr *src)
{
	u64 id = be64_to_cpu(hdr->req_id);
	int mtu;

	trace_prism_chain_rx(hdr, src);
	mtu = prism_link_mtu(net, src);
	if (mtu <= (int)sizeof(*hdr) || !id ||
	    be64_to_cpu(hdr->ack_floor) > id) {
		prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
		return 0;
	}
	return mtu;
}

/**
 * prism_serve_checked() - the stateless checks of a chain's body, then
 *                         serve it
 * @net: network namespace of the receiving interface
 * @psk: socket of the chain's destination (prism_frame_psk()), or NULL
 * @in: the chain: header, body (decrypted for an AREQ), rx_stamp, mtu, and
 *      for an AREQ wauth and auth_key; resp_len and work are set here
 * @src: link address of its sender
 *
 * Well formed and within PRISM_MAX_CHAIN_WORK, then a bound endpoint the
 * chain may use (see "Trust" above: a sealed chain proved it already), an
 * answer the link can carry (a sealed one in one frame); refusals as
 * prism_refuse_unchecked() answers them.  Then prism_serve_chain().
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_checked(struct net *net, struct prism_sock *psk,
			 struct prism_chain_in *in,
			 const struct prism_paddr *src)
{
	const struct prism_whdr *hdr = in->hdr;
	int err;

	err = prism_wire_check_work(in->body, in->body_len, hdr->nops,
				    &in->resp_len, &in->work);
	if (prism_refuse_unchecked(net, hdr, src, in->mtu, err, psk,
				   !err && psk &&
				   (in->wauth ||
				    prism_chain_authentic(psk, in->body,
							  in->body_len,
							  hdr->nops)),
				   in->resp_len))
		return;
	if (in->auth_key &&
	    sizeof(*hdr) + PRISM_SEAL_OVERHEAD + in->resp_len > (u32)in->mtu) {
		prism_reply_status(net, hdr, src, PRISM_S_TOO_BIG);
		return;
	}
	prism_serve_chain(psk, in, src);
}
