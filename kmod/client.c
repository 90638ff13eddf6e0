// SPDX-License-Identifier: GPL-2.0
/*
 * Client side of chains: submission, matching responses, timeouts and
 * completions.
 *
 * An outstanding chain (struct prism_req) lives in its socket's reqs xarray.
 * Whoever erases it from there (response, timer, interface event, socket
 * release) owns it: it stops the timer, completes the chain at most once
 * and frees it.  The completion skb is allocated at submission, so a chain
 * that was accepted always gets its completion.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include "prism_net.h"

struct prism_req {
	struct prism_sock	*psk;
	u32			id;
	u8			nops;
	u32			resp_cap;	/* largest valid response body */
	u64			user_data;
	struct sockaddr_prism	dst;
	struct timer_list	timer;
	struct sk_buff		*cskb;		/* the completion, preallocated */
};

static u32 prism_completion_size(u8 nops, u32 resp_body_len)
{
	/* Outputs are no larger on the wire than in the completion. */
	return sizeof(struct prism_msg) +
	       nops * sizeof(struct prism_op_result) + resp_body_len;
}

static void prism_req_free(struct prism_req *req)
{
	kfree_skb(req->cskb);
	atomic_dec(&req->psk->outstanding);
	kfree(req);
}

/* Hand the completion built in req->cskb to the socket. */
static void prism_req_deliver(struct prism_req *req, u8 status)
{
	struct prism_sock *psk = req->psk;
	struct sock *sk = &psk->sk;
	struct sk_buff *skb = req->cskb;
	struct prism_msg *msg = (struct prism_msg *)skb->data;

	msg->status = status;
	memcpy(skb->cb, &req->dst, sizeof(req->dst));
	req->cskb = NULL;

	prism_stat_add(sock_net(sk), psk, PRISM_STAT_CHAINS_COMPLETED, 1);
	if (status == PRISM_S_TIMEOUT)
		prism_stat_add(sock_net(sk), psk, PRISM_STAT_CHAINS_TIMED_OUT, 1);
	skb_queue_tail(&sk->sk_receive_queue, skb);
	sk->sk_data_ready(sk);
}

/* Complete without per-op results: every op carries the chain's status. */
static void prism_req_fail(struct prism_req *req, u8 status)
{
	struct sk_buff *skb = req->cskb;
	struct prism_msg *msg;
	unsigned int i;

	msg = skb_put_zero(skb, sizeof(*msg) +
			   req->nops * sizeof(struct prism_op_result));
	msg->kind = PRISM_MSG_COMPLETION;
	msg->nops = req->nops;
	msg->len = skb->len;
	msg->user_data = req->user_data;
	for (i = 0; i < req->nops; i++)
		msg->res[i].status = status;
	prism_req_deliver(req, status);
}

static struct prism_req *prism_req_take(struct prism_sock *psk, u32 id)
{
	return xa_erase_bh(&psk->reqs, id);
}

static void prism_req_timeout(struct timer_list *t)
{
	struct prism_req *req = from_timer(req, t, timer);
	struct prism_sock *psk = req->psk;

	rcu_read_lock();
	/* Lost the race to a response or teardown: they own req. */
	if (prism_req_take(psk, req->id) == req) {
		prism_req_fail(req, PRISM_S_TIMEOUT);
		prism_req_free(req);
	}
	rcu_read_unlock();
}

int prism_client_submit(struct prism_sock *psk, const struct sockaddr_prism *dst,
			const u8 *ubuf, u32 len)
{
	const struct prism_chain *chain = (const struct prism_chain *)ubuf;
	struct net *net = sock_net(&psk->sk);
	struct prism_whdr *hdr;
	struct net_device *dev;
	struct prism_req *req;
	struct sk_buff *skb;
	u32 cap, resp_len, timeout;
	int body_len, err;
	u32 id;

	if (chain->flags || chain->reserved || !chain->nops ||
	    chain->nops > PRISM_MAX_CHAIN)
		return -EINVAL;
	if (dst->sprism_reserved || !dst->sprism_ep ||
	    !is_valid_ether_addr(dst->sprism_mac))
		return -EINVAL;
	timeout = chain->timeout_ms ?: READ_ONCE(psk->timeout_ms);
	if (timeout > PRISM_MAX_TIMEOUT_MS)
		return -EINVAL;
	/* Pairs with bind(): ep and ifindex are set before bound. */
	if (!smp_load_acquire(&psk->bound))
		return -ENOTCONN;

	dev = dev_get_by_index(net, psk->ifindex);
	if (!dev)
		return -ENETDOWN;
	err = -ENETDOWN;
	if (!netif_running(dev) || dev->mtu <= sizeof(*hdr))
		goto out_dev;

	err = -ENOMEM;
	cap = dev->mtu - sizeof(*hdr);
	skb = prism_alloc_frame(dev, cap);
	if (!skb)
		goto out_dev;
	hdr = skb_put(skb, sizeof(*hdr));
	body_len = prism_chain_encode(ubuf + sizeof(*chain), len - sizeof(*chain),
				      chain->nops, skb_tail_pointer(skb), cap,
				      &resp_len);
	if (body_len < 0) {
		err = body_len;
		goto out_skb;
	}
	err = -EMSGSIZE;
	if (resp_len > cap)
		goto out_skb;
	skb_put(skb, body_len);

	err = -ENOMEM;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		goto out_skb;
	req->cskb = alloc_skb(prism_completion_size(chain->nops, resp_len),
			      GFP_KERNEL);
	if (!req->cskb)
		goto out_req;
	req->psk = psk;
	req->nops = chain->nops;
	req->resp_cap = resp_len;
	req->user_data = chain->user_data;
	req->dst = *dst;
	req->dst.sprism_ifindex = psk->ifindex;
	timer_setup(&req->timer, prism_req_timeout, 0);

	err = -ENOBUFS;
	if (atomic_inc_return(&psk->outstanding) > psk->max_outstanding)
		goto out_count;

	/* Publish and arm under the lock, so no owner sees an unarmed req. */
	xa_lock_bh(&psk->reqs);
	err = __xa_alloc_cyclic(&psk->reqs, &id, req, xa_limit_32b,
				&psk->next_req_id, GFP_KERNEL);
	if (err >= 0) {
		req->id = id;
		mod_timer(&req->timer, jiffies + msecs_to_jiffies(timeout));
	}
	xa_unlock_bh(&psk->reqs);
	if (err < 0)
		goto out_count;

	hdr->version = PRISM_WIRE_VERSION;
	hdr->type = PRISM_T_REQ;
	hdr->nops = chain->nops;
	hdr->status = 0;
	hdr->dst_ep = htonl(dst->sprism_ep);
	hdr->src_ep = htonl(psk->ep);
	hdr->req_id = htonl(id);
	hdr->body_len = htons(body_len);
	hdr->reserved = 0;
	prism_stat_add(net, psk, PRISM_STAT_CHAINS_SENT, 1);
	prism_xmit_frame(skb, dev, dst->sprism_mac);
	dev_put(dev);
	return 0;

out_count:
	atomic_dec(&psk->outstanding);
	kfree_skb(req->cskb);
out_req:
	kfree(req);
out_skb:
	kfree_skb(skb);
out_dev:
	dev_put(dev);
	return err;
}

/*
 * Check a response body against what the chain may return; on success
 * build the completion into req->cskb.  The body comes from the network:
 * nothing in it is trusted.
 */
static bool prism_fill_completion(struct prism_req *req, const u8 *body,
				  u32 body_len)
{
	const struct prism_wres *wres = (const struct prism_wres *)body;
	u32 res_bytes = req->nops * sizeof(*wres);
	struct sk_buff *skb = req->cskb;
	u32 in_off, out_off, i, olen;
	struct prism_msg *msg;

	if (body_len > req->resp_cap || body_len < res_bytes)
		return false;
	/* First pass: validate without touching the completion. */
	in_off = res_bytes;
	for (i = 0; i < req->nops; i++) {
		olen = ntohl(wres[i].len);
		if (wres[i].status > PRISM_S_MAX ||
		    olen > body_len - in_off ||
		    PRISM_PAD8(olen) > body_len - in_off)
			return false;
		in_off += PRISM_PAD8(olen);
	}

	msg = skb_put_zero(skb, sizeof(*msg) + req->nops * sizeof(msg->res[0]));
	msg->kind = PRISM_MSG_COMPLETION;
	msg->nops = req->nops;
	msg->user_data = req->user_data;
	in_off = res_bytes;
	out_off = skb->len;
	for (i = 0; i < req->nops; i++) {
		olen = ntohl(wres[i].len);
		msg->res[i].status = wres[i].status;
		msg->res[i].len = olen;
		msg->res[i].offset = olen ? out_off : 0;
		skb_put_data(skb, body + in_off, PRISM_PAD8(olen));
		in_off += PRISM_PAD8(olen);
		out_off += PRISM_PAD8(olen);
	}
	msg->len = skb->len;
	return true;
}

void prism_client_response(struct prism_sock *psk, struct sk_buff *skb,
			   const struct prism_whdr *hdr, const u8 *src_mac)
{
	struct net *net = sock_net(&psk->sk);
	u32 body_len = ntohs(hdr->body_len);
	struct prism_req *req;

	if (hdr->status > PRISM_S_MAX)
		goto drop;

	/* Only the chain's target may complete it. */
	xa_lock_bh(&psk->reqs);
	req = xa_load(&psk->reqs, ntohl(hdr->req_id));
	if (!req || req->nops != hdr->nops ||
	    req->dst.sprism_ep != ntohl(hdr->src_ep) ||
	    !ether_addr_equal(req->dst.sprism_mac, src_mac)) {
		xa_unlock_bh(&psk->reqs);
		goto drop;
	}
	if (hdr->status == PRISM_S_OK &&
	    !prism_fill_completion(req, (const u8 *)(hdr + 1), body_len)) {
		xa_unlock_bh(&psk->reqs);
		goto drop;
	}
	__xa_erase(&psk->reqs, req->id);
	xa_unlock_bh(&psk->reqs);

	del_timer_sync(&req->timer);
	if (hdr->status == PRISM_S_OK)
		prism_req_deliver(req, PRISM_S_OK);
	else
		prism_req_fail(req, hdr->status);
	prism_req_free(req);
	return;
drop:
	prism_stat_add(net, psk, PRISM_STAT_RX_DROPPED, 1);
}

static void prism_client_drain(struct prism_sock *psk, bool complete,
			       u8 status)
{
	struct prism_req *req;
	unsigned long id;

	xa_for_each(&psk->reqs, id, req) {
		if (prism_req_take(psk, id) != req)
			continue;
		del_timer_sync(&req->timer);
		if (complete)
			prism_req_fail(req, status);
		prism_req_free(req);
	}
}

void prism_client_fail_all(struct prism_sock *psk, u8 status)
{
	prism_client_drain(psk, true, status);
}

void prism_client_release(struct prism_sock *psk)
{
	prism_client_drain(psk, false, 0);
}
