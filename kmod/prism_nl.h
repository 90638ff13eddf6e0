/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the generic netlink family: netlink.c registers it and serves
 * the endpoint, stats and peer commands and the events; netlink_fl.c
 * serves the free-list commands, netlink_region.c the region commands.
 * This header is what they share: the family, the dump walker and the
 * single-object request helpers of netlink.c, and the handlers of the
 * other two.
 */
#ifndef _PRISM_NL_H
#define _PRISM_NL_H

#include <net/genetlink.h>
#include "prism_net.h"

extern struct genl_family prism_genl_family;

/* Position of a dump between calls, kept in netlink_callback.ctx. */
struct prism_nl_dump_ctx {
	u64		ep_next;	/* endpoint id to dump next */
	unsigned int	sub_bucket;	/* REGION_GET: region hash bucket */
	unsigned long	sub_idx;	/* REGION_GET: next region in the
					 * bucket; FREELIST_GET: next id
					 */
	bool		started;	/* something was dumped already */
	bool		done;
};

static_assert(sizeof(struct prism_nl_dump_ctx) <=
	      sizeof_field(struct netlink_callback, ctx));

/*
 * Dump what belongs to one endpoint, resuming at the position in ctx.
 * Returns 0 when the endpoint is done or -EMSGSIZE when skb is full.
 */
typedef int (*prism_nl_dump_ep_t)(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  struct prism_sock *psk,
				  struct prism_nl_dump_ctx *ctx);

int prism_nl_dump(struct sk_buff *skb, struct netlink_callback *cb,
		  prism_nl_dump_ep_t dump_ep);

/**
 * prism_nl_msg_end() - end a message being filled, or cancel it
 * @skb: the message
 * @hdr: its header, from genlmsg_put()
 * @full: an attribute did not fit
 *
 * Context: Any.
 * Return: 0 when the message was ended, -EMSGSIZE when it was cancelled.
 */
static inline int prism_nl_msg_end(struct sk_buff *skb, void *hdr, bool full)
{
	if (full) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * prism_nl_reply() - answer a request, or drop the reply
 * @msg: the reply
 * @info: the request
 * @err: 0 to send @msg, or the errno to return instead (@msg is freed)
 *
 * Context: Process context.
 * Return: genlmsg_reply()'s result, or @err.
 */
static inline int prism_nl_reply(struct sk_buff *msg, struct genl_info *info,
				 int err)
{
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

bool prism_nl_missing(struct genl_info *info, int type);
struct prism_sock *prism_nl_get_sock(struct genl_info *info);

/*
 * Fills msg with one object of psk for the request req, or sets an extack
 * message and fails.
 */
typedef int (*prism_nl_fill_one_t)(struct sk_buff *msg, struct prism_sock *psk,
				   const struct sk_buff *req,
				   struct genl_info *info);

int prism_nl_reply_one(const struct sk_buff *req, struct genl_info *info,
		       prism_nl_fill_one_t fill);

/* netlink_region.c: PRISM_CMD_REGION_GET and _REKEY. */
int prism_nl_region_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int prism_nl_rekey_doit(struct sk_buff *skb, struct genl_info *info);

/* netlink_fl.c: PRISM_CMD_FREELIST_GET, _CREATE and _POST. */
int prism_nl_fl_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int prism_nl_fl_doit(struct sk_buff *skb, struct genl_info *info);
int prism_nl_fl_create_doit(struct sk_buff *skb, struct genl_info *info);
int prism_nl_fl_post_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _PRISM_NL_H */
