// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM generic netlink family "prism", the interface of prismctl.  The
 * commands and attributes are described in uapi/linux/prism_netlink.h.
 *
 * Every command works on the network namespace of the requesting socket.
 * Readers walk the endpoint table and each endpoint's regions and free
 * lists under RCU, as the receive path does: sockets (SOCK_RCU_FREE),
 * regions and free lists are all freed after a grace period.  Commands that
 * change a free list or a region key take a reference on the socket, leave
 * the RCU section and call into region.c or keyed.c from process context,
 * like the socket's ioctls.
 * A socket being closed meanwhile has its memory detached already, so the
 * call then fails with ENOENT.
 *
 * Privileges: an rkey is a capability (whoever knows it can access the
 * region from the network), and posting buffers decides where remote
 * ALLOCs write into some process' memory.  Both therefore need
 * CAP_NET_ADMIN in the initial user namespace, not only in the user
 * namespace owning the netns: the admin of a container must not reach the
 * memory of processes that entered its netns from outside.  The same
 * requesters alone see which process owns an endpoint and where its
 * regions lie in that process' address space (OWNER_PID, REGION_START):
 * for anybody else these attributes are left out of the replies, which
 * would otherwise hand out the layout an attack on the memory needs.
 */
#include <linux/kernel.h>
#include <linux/capability.h>
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "prism_net.h"
#include "keyed.h"
#include "prism_nl.h"
#include "compat.h"
#include "../uapi/linux/prism_netlink.h"

/* The stats nest carries the counters in the order of enum prism_stat. */
static_assert(__PRISM_STATS_ATTR_MAX - PRISM_STATS_ATTR_CHAINS_SENT ==
	      PRISM_STAT_NR);
static_assert(PRISM_STATS_ATTR_DUPLICATES - PRISM_STATS_ATTR_CHAINS_SENT ==
	      PRISM_STAT_DUPLICATES);

/* prism_nl_fill_peer() lists the peer counters in this order. */
static_assert(PRISM_PEER_STATS_ATTR_CC_CUTS -
	      PRISM_PEER_STATS_ATTR_CHAINS_SENT == 5);
static_assert(__PRISM_PEER_STATS_ATTR_MAX - 1 ==
	      PRISM_PEER_STATS_ATTR_CC_CUTS);

/* Multicast groups, in the order of prism_nl_mcgrps[]. */
enum prism_nl_mcgrp {
	PRISM_NL_MCGRP_EVENTS,
};

/* ---------------------------------------------------------------------------
 * Policies: one per command, over the whole attribute space, so that every
 * attribute a command does not take is rejected.
 */
/* Not const: the 6.1 policy points to them through a non-const pointer. */
static struct netlink_range_validation prism_nl_capacity_range = {
	.min	= 1,
	.max	= PRISM_FL_MAX_CAPACITY,	/* region.c checks the region */
};

/* 60000 does not fit NLA_POLICY_MAX's s16: a full range. */
static struct netlink_range_validation prism_nl_overlap_range = {
	.max	= PRISM_MAX_OVERLAP_MS,
};

static struct netlink_range_validation prism_nl_post_range = {
	.min	= 1,
	.max	= PRISM_GENL_POST_MAX,
};

static const struct nla_policy prism_nl_fl_addr_policy[PRISM_FL_ADDR_MAX + 1] = {
	[PRISM_FL_ADDR]			= { .type = NLA_U64 },
};

/* ENDPOINT_GET, REGION_GET: optional endpoint filter. */
static const struct nla_policy prism_nl_ep_policy[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= { .type = NLA_U32 },
};

static const struct nla_policy prism_nl_fl_get_policy[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= { .type = NLA_U32 },
	[PRISM_ATTR_FL_ID]		= { .type = NLA_U32 },
};

static const struct nla_policy prism_nl_fl_create_policy[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= { .type = NLA_U32 },
	[PRISM_ATTR_RKEY]		= { .type = NLA_U64 },
	[PRISM_ATTR_FL_BUF_SIZE]	= NLA_POLICY_MIN(NLA_U32, 1),
	[PRISM_ATTR_FL_CAPACITY]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &prism_nl_capacity_range),
};

static const struct nla_policy prism_nl_rekey_policy[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= { .type = NLA_U32 },
	[PRISM_ATTR_RKEY]		= { .type = NLA_U64 },
	[PRISM_ATTR_REGION_KEY]		= NLA_POLICY_EXACT_LEN(PRISM_KEY_SIZE),
	[PRISM_ATTR_REGION_OVERLAP_MS]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &prism_nl_overlap_range),
};

static const struct nla_policy prism_nl_fl_post_policy[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= { .type = NLA_U32 },
	[PRISM_ATTR_FL_ID]		= { .type = NLA_U32 },
	[PRISM_ATTR_FL_ADDRS]		=
		NLA_POLICY_NESTED(prism_nl_fl_addr_policy),
	[PRISM_ATTR_FL_CARVE_START]	= { .type = NLA_U64 },
	[PRISM_ATTR_FL_CARVE_COUNT]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &prism_nl_post_range),
};

static const struct nla_policy prism_nl_peer_policy[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= { .type = NLA_U32 },
	[PRISM_ATTR_PEER_MAC]		= NLA_POLICY_ETH_ADDR,
	[PRISM_ATTR_PEER_EP]		= { .type = NLA_U32 },
	[PRISM_ATTR_PEER_IP]		= NLA_POLICY_MIN_LEN(4),
	[PRISM_ATTR_PEER_PORT]		= { .type = NLA_U16 },
};

/* The address of a UDP peer or endpoint: 4 or 16 bytes. */
static int prism_nl_put_ip(struct sk_buff *skb, int attr,
			   const struct prism_paddr *pa, bool local)
{
	if (pa->kind == PRISM_LINK_UDP4)
		return nla_put_in_addr(skb, attr, local ? pa->local4 : pa->ip4);
	return nla_put_in6_addr(skb, attr, local ? &pa->local6 : &pa->ip6);
}

/* ---------------------------------------------------------------------------
 * Message fill helpers.  Callers hold rcu_read_lock().
 */
/*
 * A nest of n u64 counters: c[i] as attribute first + i, padded with pad
 * (the layout of both enum prism_stats_attr and prism_peer_stats_attr).
 */
static int prism_nl_put_counters(struct sk_buff *skb, int nest_type,
				 int first, int pad, const u64 *c, int n)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, nest_type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (nla_put_u64_64bit(skb, first + i, c[i], pad)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int prism_nl_put_stats(struct sk_buff *skb, const u64 *c)
{
	return prism_nl_put_counters(skb, PRISM_ATTR_STATS,
				     PRISM_STATS_ATTR_CHAINS_SENT,
				     PRISM_STATS_ATTR_PAD, c, PRISM_STAT_NR);
}

/*
 * admin: the requester has CAP_NET_ADMIN in the initial user namespace
 * (netlink_capable() on the request), and so may see the owner's pid,
 * region addresses and rkeys.
 */
static int prism_nl_fill_ep(struct sk_buff *skb, struct prism_sock *psk,
			    u32 portid, u32 seq, int flags, bool admin)
{
	struct prism_mem *mem = &psk->mem;
	struct prism_freelist *fl;
	struct prism_region *r;
	struct net_device *dev;
	struct prism_stats st;
	u32 nr_regions = 0, nr_fls = 0;
	unsigned long id;
	unsigned int b;
	u64 pinned;
	void *hdr;
	bool full;

	spin_lock_bh(&mem->lock);
	hash_for_each(mem->regions, b, r, node)
		nr_regions++;
	xa_for_each(&mem->freelists, id, fl)
		nr_fls++;
	pinned = mem->pinned_pages;
	spin_unlock_bh(&mem->lock);
	prism_stats_fill(psk, &st);

	hdr = genlmsg_put(skb, portid, seq, &prism_genl_family, flags,
			  PRISM_CMD_ENDPOINT_GET);
	if (!hdr)
		return -EMSGSIZE;
	dev = dev_get_by_index_rcu(sock_net(&psk->sk), psk->ifindex);
	/* pid_vnr(): 0 when the owner is not visible in our pid namespace. */
	full = nla_put_u32(skb, PRISM_ATTR_EP, psk->ep) ||
	      nla_put_u8(skb, PRISM_ATTR_LINK, psk->kind) ||
	      (psk->kind == PRISM_ADDR_UDP &&
	       (nla_put_u16(skb, PRISM_ATTR_UDP_PORT, prism_udp_port) ||
		(psk->laddr.kind != PRISM_LINK_NONE &&
		 prism_nl_put_ip(skb, PRISM_ATTR_IP, &psk->laddr, true)))) ||
	      nla_put_u32(skb, PRISM_ATTR_IFINDEX, psk->ifindex) ||
	      (dev && nla_put_string(skb, PRISM_ATTR_IFNAME, dev->name)) ||
	      (dev && dev->addr_len == ETH_ALEN &&
	       nla_put(skb, PRISM_ATTR_MAC, ETH_ALEN, dev->dev_addr)) ||
	      (admin &&
	       nla_put_u32(skb, PRISM_ATTR_OWNER_PID, pid_vnr(psk->owner))) ||
	      nla_put_u32(skb, PRISM_ATTR_NR_REGIONS, nr_regions) ||
	      nla_put_u32(skb, PRISM_ATTR_NR_FREELISTS, nr_fls) ||
	      nla_put_u64_64bit(skb, PRISM_ATTR_PINNED_PAGES, pinned,
				PRISM_ATTR_PAD) ||
	      nla_put_u32(skb, PRISM_ATTR_OUTSTANDING,
			  atomic_read(&psk->outstanding)) ||
	      nla_put_u32(skb, PRISM_ATTR_MAX_OUTSTANDING,
			  READ_ONCE(psk->max_outstanding)) ||
	      nla_put_u32(skb, PRISM_ATTR_TIMEOUT_MS,
			  READ_ONCE(psk->timeout_ms)) ||
	      prism_nl_put_stats(skb, (const u64 *)&st);
	return prism_nl_msg_end(skb, hdr, full);
}

/*
 * Caller holds psk->peer_lock; what the reqs lock protects (chains,
 * retransmits, the window) is read without it.
 */
static int prism_nl_fill_peer(struct sk_buff *skb, struct prism_sock *psk,
			      const struct prism_peer *p, u32 portid, u32 seq,
			      int flags)
{
	/* In enum prism_peer_stats_attr order, from CHAINS_SENT on. */
	const u64 stats[] = {
		READ_ONCE(p->chains), p->answered, p->timeouts, p->nacks,
		READ_ONCE(p->retransmits), READ_ONCE(p->cc_cuts),
	};
	void *hdr;
	bool full;

	hdr = genlmsg_put(skb, portid, seq, &prism_genl_family, flags,
			  PRISM_CMD_PEER_GET);
	if (!hdr)
		return -EMSGSIZE;
	full = nla_put_u32(skb, PRISM_ATTR_EP, psk->ep) ||
	      nla_put_u32(skb, PRISM_ATTR_IFINDEX, psk->ifindex) ||
	      (p->addr.kind == PRISM_LINK_ETH ?
	       nla_put(skb, PRISM_ATTR_PEER_MAC, ETH_ALEN, p->addr.mac) :
	       prism_nl_put_ip(skb, PRISM_ATTR_PEER_IP, &p->addr, false) ||
	       nla_put_u16(skb, PRISM_ATTR_PEER_PORT, ntohs(p->addr.port))) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_EP, p->ep) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_SRTT_US, p->rtt.srtt_us) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_RTTVAR_US, p->rtt.rttvar_us) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_RTO_US,
			  READ_ONCE(p->rtt.rto_us)) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_CWND,
			  max(READ_ONCE(p->cc.cwnd) / PRISM_CC_ONE, 1U)) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_INFLIGHT,
			  READ_ONCE(p->cc.inflight)) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_HELD, READ_ONCE(p->nheld)) ||
	      nla_put_u32(skb, PRISM_ATTR_PEER_QDELAY_US,
			  READ_ONCE(p->cc.delay_us)) ||
	      prism_nl_put_counters(skb, PRISM_ATTR_PEER_STATS,
				    PRISM_PEER_STATS_ATTR_CHAINS_SENT,
				    PRISM_PEER_STATS_ATTR_PAD, stats,
				    ARRAY_SIZE(stats));
	return prism_nl_msg_end(skb, hdr, full);
}

/* ---------------------------------------------------------------------------
 * Dumps.  The position survives between calls in cb->ctx; endpoints are
 * walked in id order, each endpoint's objects after it.
 */
/**
 * prism_nl_dump() - walk the endpoints of the requester's netns for a dump
 * @skb: the reply being filled
 * @cb: the dump's state: position in cb->ctx (struct prism_nl_dump_ctx),
 *      optional PRISM_ATTR_EP filter
 * @dump_ep: puts what belongs to one endpoint, resuming at the position
 *
 * Endpoints are walked in id order under rcu_read_lock(); a full @skb ends
 * this call and the next one resumes where it stopped.
 *
 * Context: Process context; takes rcu_read_lock().
 * Return: the length of @skb while there is more to dump, 0 once done, or
 * a negative errno (-ENOENT when the filter names no endpoint).
 */
int prism_nl_dump(struct sk_buff *skb, struct netlink_callback *cb,
		  prism_nl_dump_ep_t dump_ep)
{
	struct nlattr **attrs = prism_dumpit_attrs(cb);
	struct prism_nl_dump_ctx *ctx = (void *)cb->ctx;
	struct net *net = sock_net(cb->skb->sk);
	struct prism_net *pn = prism_pernet(net);
	struct prism_sock *psk;
	unsigned long index;
	int err = 0;

	if (ctx->done)
		return 0;

	rcu_read_lock();
	if (attrs && attrs[PRISM_ATTR_EP]) {
		psk = prism_ep_lookup(net, nla_get_u32(attrs[PRISM_ATTR_EP]));
		if (!psk) {
			/* Closed in the middle of the dump: just stop. */
			if (!ctx->started) {
				NL_SET_ERR_MSG(cb->extack,
					       "no endpoint with this id in this network namespace");
				err = -ENOENT;
			}
		} else {
			err = dump_ep(skb, cb, psk, ctx);
		}
		if (!err)
			ctx->done = true;
		goto out;
	}

	/* Ids are at most U32_MAX: ep_next past the last one ends the dump. */
	xa_for_each_start(&pn->eps, index, psk, ctx->ep_next) {
		err = dump_ep(skb, cb, psk, ctx);
		if (err)
			goto out;	/* resumes inside this endpoint */
		ctx->ep_next = (u64)index + 1;
		ctx->sub_bucket = 0;
		ctx->sub_idx = 0;
	}
	ctx->done = true;
out:
	rcu_read_unlock();
	ctx->started = true;
	/* A full skb is not an error once it holds something. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static int prism_nl_ep_dump_one(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct prism_sock *psk,
				struct prism_nl_dump_ctx *ctx)
{
	return prism_nl_fill_ep(skb, psk, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, NLM_F_MULTI,
				netlink_capable(cb->skb, CAP_NET_ADMIN));
}

static int prism_nl_ep_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return prism_nl_dump(skb, cb, prism_nl_ep_dump_one);
}

static int prism_nl_peer_dump_one(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  struct prism_sock *psk,
				  struct prism_nl_dump_ctx *ctx)
{
	struct prism_peer *p;
	unsigned long idx;
	int err = 0;

	spin_lock_bh(&psk->peer_lock);
	for (; ctx->sub_bucket < HASH_SIZE(psk->peers);
	     ctx->sub_bucket++, ctx->sub_idx = 0) {
		idx = 0;
		hlist_for_each_entry(p, &psk->peers[ctx->sub_bucket], node) {
			if (idx++ < ctx->sub_idx)
				continue;
			err = prism_nl_fill_peer(skb, psk, p,
						 NETLINK_CB(cb->skb).portid,
						 cb->nlh->nlmsg_seq,
						 NLM_F_MULTI);
			if (err)
				goto out;
			ctx->sub_idx = idx;
		}
	}
out:
	spin_unlock_bh(&psk->peer_lock);
	return err;
}

static int prism_nl_peer_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return prism_nl_dump(skb, cb, prism_nl_peer_dump_one);
}

/* ---------------------------------------------------------------------------
 * Single-object requests.
 */
/**
 * prism_nl_missing() - check that a request carries a required attribute
 * @info: the request
 * @type: the attribute (PRISM_ATTR_*)
 *
 * Context: Any.
 * Return: true (with an extack message naming it) when @type is missing.
 */
bool prism_nl_missing(struct genl_info *info, int type)
{
	if (!GENL_REQ_ATTR_CHECK(info, type))
		return false;
	GENL_SET_ERR_MSG(info, "required attribute missing");
	return true;
}

static void prism_nl_no_ep(struct genl_info *info)
{
	NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PRISM_ATTR_EP],
			    "no endpoint with this id in this network namespace");
}

/**
 * prism_nl_get_sock() - the socket of the endpoint a request names
 * @info: the request; PRISM_ATTR_EP checked present by the caller
 *
 * Context: Any; takes rcu_read_lock().
 * Return: the socket bound to that endpoint in the requester's netns, with
 * a reference (sock_put() when done), or NULL with an extack message.
 */
struct prism_sock *prism_nl_get_sock(struct genl_info *info)
{
	struct prism_sock *psk;

	rcu_read_lock();
	psk = prism_ep_lookup(genl_info_net(info),
			      nla_get_u32(info->attrs[PRISM_ATTR_EP]));
	/* Refcount zero: released, only waiting for the grace period. */
	if (psk && !refcount_inc_not_zero(&psk->sk.sk_refcnt))
		psk = NULL;
	rcu_read_unlock();
	if (!psk)
		prism_nl_no_ep(info);
	return psk;
}

/**
 * prism_nl_reply_one() - answer a request for one object of an endpoint
 * @req: the request
 * @info: its attributes; PRISM_ATTR_EP checked present by the caller
 * @fill: puts the object into the reply, or sets an extack message and
 *        fails; runs under rcu_read_lock() with the endpoint found
 *
 * Context: Process context, may sleep.
 * Return: genlmsg_reply()'s result, or a negative errno (-ENOMEM, -ENOENT
 * for an unknown endpoint, or @fill's).
 */
int prism_nl_reply_one(const struct sk_buff *req, struct genl_info *info,
		       prism_nl_fill_one_t fill)
{
	struct prism_sock *psk;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	rcu_read_lock();
	psk = prism_ep_lookup(genl_info_net(info),
			      nla_get_u32(info->attrs[PRISM_ATTR_EP]));
	if (psk) {
		err = fill(msg, psk, req, info);
	} else {
		prism_nl_no_ep(info);
		err = -ENOENT;
	}
	rcu_read_unlock();
	return prism_nl_reply(msg, info, err);
}

static int prism_nl_ep_fill_one(struct sk_buff *msg, struct prism_sock *psk,
				const struct sk_buff *req,
				struct genl_info *info)
{
	return prism_nl_fill_ep(msg, psk, info->snd_portid, info->snd_seq, 0,
				netlink_capable(req, CAP_NET_ADMIN));
}

static int prism_nl_ep_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (prism_nl_missing(info, PRISM_ATTR_EP))
		return -EINVAL;
	return prism_nl_reply_one(skb, info, prism_nl_ep_fill_one);
}

static int prism_nl_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct prism_net *pn = prism_pernet(genl_info_net(info));
	u64 sum[PRISM_STAT_NR] = {};
	struct sk_buff *msg;
	void *hdr;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct prism_netns_stats *s = per_cpu_ptr(pn->stats, cpu);

		for (i = 0; i < PRISM_STAT_NR; i++)
			sum[i] += READ_ONCE(s->c[i]);
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &prism_genl_family, 0,
				PRISM_CMD_STATS_GET);
	if (!hdr || prism_nl_put_stats(msg, sum) ||
	    nla_put_u64_64bit(msg, PRISM_ATTR_PINNED_PAGES,
			      atomic64_read(&pn->pinned_pages), PRISM_ATTR_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int prism_nl_peer_fill_one(struct sk_buff *msg, struct prism_sock *psk,
				  const struct sk_buff *req,
				  struct genl_info *info)
{
	struct nlattr *mac = info->attrs[PRISM_ATTR_PEER_MAC];
	struct nlattr *ip = info->attrs[PRISM_ATTR_PEER_IP];
	struct nlattr *port = info->attrs[PRISM_ATTR_PEER_PORT];
	struct prism_paddr pa;
	struct prism_peer *p;
	int err;

	/* The peer's address, in the kind of the endpoint's link. */
	prism_paddr_zero(&pa);
	if (psk->kind == PRISM_ADDR_ETH && mac) {
		pa.kind = PRISM_LINK_ETH;
		pa.ifindex = psk->ifindex;
		memcpy(pa.mac, nla_data(mac), ETH_ALEN);
	} else if (psk->kind == PRISM_ADDR_UDP && ip &&
		   (nla_len(ip) == 4 || nla_len(ip) == 16)) {
		pa.port = htons(port ? nla_get_u16(port) : prism_udp_port);
		if (nla_len(ip) == 4) {
			pa.kind = PRISM_LINK_UDP4;
			pa.ip4 = nla_get_in_addr(ip);
		} else {
			pa.kind = PRISM_LINK_UDP6;
			pa.ip6 = nla_get_in6_addr(ip);
		}
	} else {
		NL_SET_ERR_MSG(info->extack,
			       "the peer needs a MAC address (Ethernet endpoint) or an IPv4/IPv6 address (UDP endpoint)");
		return -EINVAL;
	}
	spin_lock_bh(&psk->peer_lock);
	p = prism_peer_find(psk, &pa,
			    nla_get_u32(info->attrs[PRISM_ATTR_PEER_EP]));
	if (p) {
		err = prism_nl_fill_peer(msg, psk, p, info->snd_portid,
					 info->snd_seq, 0);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, mac ?: ip,
				    "the endpoint has sent nothing to this peer");
		err = -ENOENT;
	}
	spin_unlock_bh(&psk->peer_lock);
	return err;
}

static int prism_nl_peer_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (prism_nl_missing(info, PRISM_ATTR_EP) ||
	    prism_nl_missing(info, PRISM_ATTR_PEER_EP))
		return -EINVAL;
	return prism_nl_reply_one(skb, info, prism_nl_peer_fill_one);
}

/* ---------------------------------------------------------------------------
 * Events: the multicast group "events" of the netns where the change
 * happened.  Anybody may subscribe (6.1 has no GENL_MCAST_CAP_NET_ADMIN),
 * so events carry nothing the dumps show to CAP_NET_ADMIN only: no rkeys,
 * no addresses, no pids.  Sent from process context after the change,
 * nothing is built when nobody listens.
 */
static const struct genl_multicast_group prism_nl_mcgrps[] = {
	[PRISM_NL_MCGRP_EVENTS]	= { .name = PRISM_GENL_MCGRP_EVENTS },
};

/* Puts the attributes of an event after PRISM_ATTR_EP; true if full. */
typedef bool (*prism_nl_event_fill_t)(struct sk_buff *skb, struct net *net,
				      const void *arg);

/*
 * Multicast event cmd of endpoint ep with fill's attributes, if anybody
 * listens (and there is memory).
 */
static void prism_nl_event(struct net *net, u8 cmd, u32 ep,
			   prism_nl_event_fill_t fill, const void *arg)
{
	struct sk_buff *skb;
	void *hdr;

	might_sleep();
	if (!genl_has_listeners(&prism_genl_family, net, PRISM_NL_MCGRP_EVENTS))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &prism_genl_family, 0, cmd);
	if (!hdr || nla_put_u32(skb, PRISM_ATTR_EP, ep) ||
	    fill(skb, net, arg)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&prism_genl_family, net, skb, 0,
				PRISM_NL_MCGRP_EVENTS, GFP_KERNEL);
}

static bool prism_nl_ep_event_fill(struct sk_buff *skb, struct net *net,
				   const void *arg)
{
	int ifindex = *(const int *)arg;
	struct net_device *dev;
	bool full;

	full = nla_put_u32(skb, PRISM_ATTR_IFINDEX, ifindex);
	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, ifindex);
	if (dev && !full)
		full = nla_put_string(skb, PRISM_ATTR_IFNAME, dev->name);
	rcu_read_unlock();
	return full;
}

/**
 * prism_nl_notify_ep() - multicast an endpoint event
 * @net: network namespace of the endpoint
 * @cmd: PRISM_CMD_ENDPOINT_NEW or PRISM_CMD_ENDPOINT_DEL
 * @ep: endpoint id
 * @ifindex: interface the endpoint is bound to (its name is added if it
 *           still exists)
 *
 * Sent to the "events" group of @net; nothing is built when nobody listens
 * (or memory is short).
 *
 * Context: Process context, may sleep (GFP_KERNEL).  Bind and release call
 * it under the socket lock and the netns' ep_mutex, so that the events of a
 * reused id come in order.
 */
void prism_nl_notify_ep(struct net *net, u8 cmd, u32 ep, int ifindex)
{
	prism_nl_event(net, cmd, ep, prism_nl_ep_event_fill, &ifindex);
}

static bool prism_nl_region_event_fill(struct sk_buff *skb, struct net *net,
				       const void *arg)
{
	const struct prism_nl_region_ev *ev = arg;

	return nla_put_u64_64bit(skb, PRISM_ATTR_REGION_LEN, ev->len,
				 PRISM_ATTR_PAD) ||
	       nla_put_u32(skb, PRISM_ATTR_REGION_ACCESS, ev->access) ||
	       nla_put_u64_64bit(skb, PRISM_ATTR_REGION_PAGES, ev->pages,
				 PRISM_ATTR_PAD);
}

/**
 * prism_nl_notify_region() - multicast a region event
 * @net: network namespace of the endpoint
 * @cmd: PRISM_CMD_REGION_NEW or PRISM_CMD_REGION_DEL
 * @ep: endpoint the region belongs to
 * @ev: the region, from prism_region_snap()
 *
 * Sent to the "events" group of @net; nothing is built when nobody listens
 * (or memory is short).
 *
 * Context: Process context, may sleep (GFP_KERNEL); callers hold the socket
 * lock.
 */
void prism_nl_notify_region(struct net *net, u8 cmd, u32 ep,
			    const struct prism_nl_region_ev *ev)
{
	prism_nl_event(net, cmd, ep, prism_nl_region_event_fill, ev);
}

static bool prism_nl_fl_event_fill(struct sk_buff *skb, struct net *net,
				   const void *arg)
{
	const struct prism_nl_fl_ev *ev = arg;

	return nla_put_u32(skb, PRISM_ATTR_FL_ID, ev->id) ||
	       nla_put_u32(skb, PRISM_ATTR_FL_BUF_SIZE, ev->buf_size) ||
	       nla_put_u32(skb, PRISM_ATTR_FL_CAPACITY, ev->capacity);
}

/**
 * prism_nl_notify_fl() - multicast a free list event
 * @net: network namespace of the endpoint
 * @cmd: PRISM_CMD_FREELIST_NEW or PRISM_CMD_FREELIST_DEL
 * @ep: endpoint the free list belongs to
 * @ev: the free list, from prism_fl_snap()
 *
 * Sent to the "events" group of @net; nothing is built when nobody listens
 * (or memory is short).
 *
 * Context: Process context, may sleep (GFP_KERNEL); callers hold the socket
 * lock.
 */
void prism_nl_notify_fl(struct net *net, u8 cmd, u32 ep,
			const struct prism_nl_fl_ev *ev)
{
	prism_nl_event(net, cmd, ep, prism_nl_fl_event_fill, ev);
}

static const struct genl_ops prism_genl_ops[] = {
	{
		.cmd	= PRISM_CMD_ENDPOINT_GET,
		.doit	= prism_nl_ep_doit,
		.dumpit	= prism_nl_ep_dumpit,
		.policy	= prism_nl_ep_policy,
		.maxattr = PRISM_ATTR_MAX,
	},
	{
		.cmd	= PRISM_CMD_REGION_GET,
		.dumpit	= prism_nl_region_dumpit,
		.policy	= prism_nl_ep_policy,
		.maxattr = PRISM_ATTR_MAX,
	},
	{
		.cmd	= PRISM_CMD_FREELIST_GET,
		.doit	= prism_nl_fl_doit,
		.dumpit	= prism_nl_fl_dumpit,
		.policy	= prism_nl_fl_get_policy,
		.maxattr = PRISM_ATTR_MAX,
	},
	{
		.cmd	= PRISM_CMD_FREELIST_CREATE,
		.flags	= GENL_ADMIN_PERM,
		.doit	= prism_nl_fl_create_doit,
		.policy	= prism_nl_fl_create_policy,
		.maxattr = PRISM_ATTR_MAX,
	},
	{
		.cmd	= PRISM_CMD_FREELIST_POST,
		.flags	= GENL_ADMIN_PERM,
		.doit	= prism_nl_fl_post_doit,
		.policy	= prism_nl_fl_post_policy,
		.maxattr = PRISM_ATTR_MAX,
	},
	{
		.cmd	= PRISM_CMD_REGION_REKEY,
		.flags	= GENL_ADMIN_PERM,
		.doit	= prism_nl_rekey_doit,
		.policy	= prism_nl_rekey_policy,
		.maxattr = PRISM_ATTR_MAX,
	},
	{
		.cmd	= PRISM_CMD_STATS_GET,
		.doit	= prism_nl_stats_doit,
	},
	{
		.cmd	= PRISM_CMD_PEER_GET,
		.doit	= prism_nl_peer_doit,
		.dumpit	= prism_nl_peer_dumpit,
		.policy	= prism_nl_peer_policy,
		.maxattr = PRISM_ATTR_MAX,
	},
};

/* resv_start_op 0: strict validation of header and attributes everywhere. */
struct genl_family prism_genl_family __ro_after_init = {
	.name		= PRISM_GENL_NAME,
	.version	= PRISM_GENL_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= prism_genl_ops,
	.n_ops		= ARRAY_SIZE(prism_genl_ops),
	.mcgrps		= prism_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(prism_nl_mcgrps),
};

/**
 * prism_netlink_init() - register the generic netlink family "prism"
 *
 * Context: Process context, module init.
 * Return: 0, or the errno of genl_register_family().
 */
int prism_netlink_init(void)
{
	return genl_register_family(&prism_genl_family);
}

/**
 * prism_netlink_exit() - unregister the generic netlink family "prism"
 *
 * Context: Process context, may sleep; module exit.
 */
void prism_netlink_exit(void)
{
	genl_unregister_family(&prism_genl_family);
}
