// SPDX-License-Identifier: GPL-2.0
/*
 * The region commands of the generic netlink family "prism"
 * (PRISM_CMD_REGION_GET, _REKEY): show the regions of endpoints (rkeys
 * and addresses only to CAP_NET_ADMIN; the mode and key generation of
 * keyed regions to all, never a key), and install a region key of a keyed
 * region (CAP_NET_ADMIN), as the socket's ioctl does for its owner.
 * netlink.c registers the family and provides the helpers declared in
 * prism_nl.h.
 */
#include <linux/kernel.h>
#include <linux/capability.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "prism_net.h"
#include "prism_nl.h"
#include "keyed.h"
#include "../uapi/linux/prism_netlink.h"

static int prism_nl_fill_region(struct sk_buff *skb, struct prism_sock *psk,
				struct prism_region *r, u32 portid, u32 seq,
				bool admin)
{
	void *hdr;
	bool full;

	hdr = genlmsg_put(skb, portid, seq, &prism_genl_family, NLM_F_MULTI,
			  PRISM_CMD_REGION_GET);
	if (!hdr)
		return -EMSGSIZE;
	full = nla_put_u32(skb, PRISM_ATTR_EP, psk->ep) ||
	      (admin &&
	       nla_put_u64_64bit(skb, PRISM_ATTR_REGION_START, r->start,
				 PRISM_ATTR_PAD)) ||
	      nla_put_u64_64bit(skb, PRISM_ATTR_REGION_LEN, r->len,
				PRISM_ATTR_PAD) ||
	      nla_put_u32(skb, PRISM_ATTR_REGION_ACCESS, r->access) ||
	      nla_put_u64_64bit(skb, PRISM_ATTR_REGION_PAGES, r->npages,
				PRISM_ATTR_PAD) ||
	      nla_put_u8(skb, PRISM_ATTR_REGION_KEYED, r->keyed) ||
	      nla_put_u32(skb, PRISM_ATTR_REGION_KEY_GEN,
			  prism_region_key_gen(r)) ||
	      (admin &&
	       nla_put_u64_64bit(skb, PRISM_ATTR_RKEY, r->rkey,
				 PRISM_ATTR_PAD));
	return prism_nl_msg_end(skb, hdr, full);
}

static int prism_nl_region_dump_one(struct sk_buff *skb,
				    struct netlink_callback *cb,
				    struct prism_sock *psk,
				    struct prism_nl_dump_ctx *ctx)
{
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	struct prism_mem *mem = &psk->mem;
	struct prism_region *r;
	unsigned long idx;
	int err;

	for (; ctx->sub_bucket < HASH_SIZE(mem->regions);
	     ctx->sub_bucket++, ctx->sub_idx = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(r, &mem->regions[ctx->sub_bucket],
					 node) {
			if (idx++ < ctx->sub_idx)
				continue;
			err = prism_nl_fill_region(skb, psk, r,
						   NETLINK_CB(cb->skb).portid,
						   cb->nlh->nlmsg_seq, admin);
			if (err)
				return err;
			ctx->sub_idx = idx;
		}
	}
	return 0;
}

/**
 * prism_nl_region_dumpit() - dump the regions of the requester's netns
 * @skb: the reply being filled
 * @cb: the dump's state; optional PRISM_ATTR_EP filter
 *
 * Context: Process context; takes rcu_read_lock().
 * Return: as prism_nl_dump().
 */
int prism_nl_region_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return prism_nl_dump(skb, cb, prism_nl_region_dump_one);
}

/**
 * prism_nl_rekey_doit() - install a region key of a keyed region
 * @skb: the request (GENL_ADMIN_PERM: CAP_NET_ADMIN checked by genetlink)
 * @info: PRISM_ATTR_EP, PRISM_ATTR_RKEY, PRISM_ATTR_REGION_KEY and
 *        optionally PRISM_ATTR_REGION_OVERLAP_MS
 *
 * Context: Process context, may sleep.
 * Return: genlmsg_reply()'s result for the reply (EP, RKEY, the new
 * generation), or a negative errno of the checks or prism_region_rekey().
 */
int prism_nl_rekey_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *ov = info->attrs[PRISM_ATTR_REGION_OVERLAP_MS];
	struct prism_sock *psk;
	struct sk_buff *msg;
	u64 rkey;
	u32 gen;
	void *hdr;
	int err;

	if (prism_nl_missing(info, PRISM_ATTR_EP) ||
	    prism_nl_missing(info, PRISM_ATTR_RKEY) ||
	    prism_nl_missing(info, PRISM_ATTR_REGION_KEY))
		return -EINVAL;
	rkey = nla_get_u64(info->attrs[PRISM_ATTR_RKEY]);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	psk = prism_nl_get_sock(info);
	if (!psk) {
		nlmsg_free(msg);
		return -ENOENT;
	}
	/* Serialised with the owner's memory ioctls, as PRISM_IOC_REKEY is. */
	lock_sock(&psk->sk);
	err = prism_region_rekey(&psk->mem, rkey,
				 nla_data(info->attrs[PRISM_ATTR_REGION_KEY]),
				 ov ? nla_get_u32(ov) : 0, &gen);
	release_sock(&psk->sk);
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PRISM_ATTR_RKEY],
				    "no region with this rkey on the endpoint");
	else if (err == -EINVAL)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PRISM_ATTR_RKEY],
				    "the region is not keyed");
	if (!err) {
		hdr = genlmsg_put_reply(msg, info, &prism_genl_family, 0,
					PRISM_CMD_REGION_REKEY);
		if (!hdr || nla_put_u32(msg, PRISM_ATTR_EP, psk->ep) ||
		    nla_put_u64_64bit(msg, PRISM_ATTR_RKEY, rkey,
				      PRISM_ATTR_PAD) ||
		    nla_put_u32(msg, PRISM_ATTR_REGION_KEY_GEN, gen))
			err = -EMSGSIZE;
		else
			genlmsg_end(msg, hdr);
	}
	sock_put(&psk->sk);
	return prism_nl_reply(msg, info, err);
}
