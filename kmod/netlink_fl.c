// SPDX-License-Identifier: GPL-2.0
/*
 * The free-list commands of the generic netlink family "prism"
 * (PRISM_CMD_FREELIST_GET, _CREATE, _POST): show free lists, create one on
 * a region of an endpoint, and post buffers to it, as the socket's ioctls
 * do for its owner.  Creating and posting need CAP_NET_ADMIN in the
 * initial user namespace (netlink.c explains why).  netlink.c registers
 * the family and provides the helpers declared in prism_nl.h.
 */
#include <linux/kernel.h>
#include <linux/capability.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "prism_net.h"
#include "prism_nl.h"
#include "compat.h"
#include "../uapi/linux/prism_netlink.h"

static int prism_nl_fill_fl(struct sk_buff *skb, struct prism_sock *psk,
			    struct prism_freelist *fl, u32 portid, u32 seq,
			    int flags, u8 cmd, bool admin)
{
	struct prism_region *r;
	void *hdr;
	bool full;

	hdr = genlmsg_put(skb, portid, seq, &prism_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	r = admin ? prism_region_find(&psk->mem, fl->rkey) : NULL;
	full = nla_put_u32(skb, PRISM_ATTR_EP, psk->ep) ||
	       nla_put_u32(skb, PRISM_ATTR_FL_ID, fl->id) ||
	       nla_put_u32(skb, PRISM_ATTR_FL_BUF_SIZE, fl->buf_size) ||
	       nla_put_u32(skb, PRISM_ATTR_FL_CAPACITY, fl->capacity) ||
	       nla_put_u32(skb, PRISM_ATTR_FL_COUNT, READ_ONCE(fl->count)) ||
	       (r && nla_put_u64_64bit(skb, PRISM_ATTR_REGION_START, r->start,
				       PRISM_ATTR_PAD)) ||
	       (admin && nla_put_u64_64bit(skb, PRISM_ATTR_RKEY, fl->rkey,
					   PRISM_ATTR_PAD));
	return prism_nl_msg_end(skb, hdr, full);
}

static int prism_nl_fl_dump_one(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct prism_sock *psk,
				struct prism_nl_dump_ctx *ctx)
{
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	const struct nlattr *want = prism_dumpit_attrs(cb)[PRISM_ATTR_FL_ID];
	struct prism_freelist *fl;
	unsigned long id;
	int err;

	xa_for_each_start(&psk->mem.freelists, id, fl, ctx->sub_idx) {
		if (want && fl->id != nla_get_u32(want))
			continue;
		err = prism_nl_fill_fl(skb, psk, fl, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       PRISM_CMD_FREELIST_GET, admin);
		if (err) {
			ctx->sub_idx = id;
			return err;
		}
	}
	return 0;
}

/**
 * prism_nl_fl_dumpit() - dump the free lists of one or every endpoint
 * @skb: the reply being filled
 * @cb: the dump's state (position in cb->ctx, optional PRISM_ATTR_EP filter)
 *
 * Context: Process context; takes rcu_read_lock().
 * Return: the length of @skb while there is more to dump, 0 when done, or
 * a negative errno (-ENOENT for an unknown endpoint filter).
 */
int prism_nl_fl_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return prism_nl_dump(skb, cb, prism_nl_fl_dump_one);
}

static int prism_nl_fl_fill_one(struct sk_buff *msg, struct prism_sock *psk,
				const struct sk_buff *req,
				struct genl_info *info)
{
	struct prism_freelist *fl;

	fl = xa_load(&psk->mem.freelists,
		     nla_get_u32(info->attrs[PRISM_ATTR_FL_ID]));
	if (!fl) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PRISM_ATTR_FL_ID],
				    "no free list with this id on the endpoint");
		return -ENOENT;
	}
	return prism_nl_fill_fl(msg, psk, fl, info->snd_portid, info->snd_seq,
				0, PRISM_CMD_FREELIST_GET,
				netlink_capable(req, CAP_NET_ADMIN));
}

/**
 * prism_nl_fl_doit() - answer PRISM_CMD_FREELIST_GET for one free list
 * @skb: the request
 * @info: the request's attributes (PRISM_ATTR_EP and PRISM_ATTR_FL_ID)
 *
 * Context: Process context, may sleep.
 * Return: genlmsg_reply()'s result, or a negative errno (-EINVAL for a
 * missing attribute, -ENOENT for an unknown endpoint or free list).
 */
int prism_nl_fl_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (prism_nl_missing(info, PRISM_ATTR_EP) ||
	    prism_nl_missing(info, PRISM_ATTR_FL_ID))
		return -EINVAL;
	return prism_nl_reply_one(skb, info, prism_nl_fl_fill_one);
}

/*
 * Start a command that changes a free list: its reply, allocated before the
 * change (a list nobody hears about would be leaked), and the socket of
 * the endpoint it names.  Returns the socket, with a reference, or an
 * ERR_PTR (-ENOMEM, or -ENOENT with an extack message).
 */
static struct prism_sock *prism_nl_fl_begin(struct genl_info *info,
					    struct sk_buff **msg)
{
	struct prism_sock *psk;

	*msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!*msg)
		return ERR_PTR(-ENOMEM);
	psk = prism_nl_get_sock(info);
	if (!psk) {
		nlmsg_free(*msg);
		return ERR_PTR(-ENOENT);
	}
	return psk;
}

/* Drop the socket, then send the reply (err 0) or free it and return err. */
static int prism_nl_fl_end(struct prism_sock *psk, struct sk_buff *msg,
			   struct genl_info *info, int err)
{
	sock_put(&psk->sk);
	return prism_nl_reply(msg, info, err);
}

/**
 * prism_nl_fl_create_doit() - create a free list on an endpoint's region
 * @skb: the request (GENL_ADMIN_PERM: CAP_NET_ADMIN checked by genetlink)
 * @info: PRISM_ATTR_EP, PRISM_ATTR_RKEY, PRISM_ATTR_FL_BUF_SIZE and
 *        PRISM_ATTR_FL_CAPACITY
 *
 * Context: Process context, may sleep.
 * Return: genlmsg_reply()'s result for the reply describing the new list,
 * or a negative errno from the attribute checks or prism_freelist_create()
 * (-ENOENT also when the endpoint closed meanwhile).
 */
int prism_nl_fl_create_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct prism_freelist *fl;
	struct prism_sock *psk;
	struct nlattr *cap_attr = info->attrs[PRISM_ATTR_FL_CAPACITY];
	struct sk_buff *msg;
	bool big;
	u32 id;
	int err;

	if (prism_nl_missing(info, PRISM_ATTR_EP) ||
	    prism_nl_missing(info, PRISM_ATTR_RKEY) ||
	    prism_nl_missing(info, PRISM_ATTR_FL_BUF_SIZE) ||
	    prism_nl_missing(info, PRISM_ATTR_FL_CAPACITY))
		return -EINVAL;
	/* Above the small capacity a list is checked against its region. */
	big = nla_get_u32(cap_attr) > PRISM_FL_SMALL_CAPACITY;
	psk = prism_nl_fl_begin(info, &msg);
	if (IS_ERR(psk))
		return PTR_ERR(psk);

	/* Serialised with the owner's memory ioctls, as they are among them. */
	lock_sock(&psk->sk);
	err = prism_freelist_create(&psk->mem,
				    nla_get_u64(info->attrs[PRISM_ATTR_RKEY]),
				    nla_get_u32(info->attrs[PRISM_ATTR_FL_BUF_SIZE]),
				    nla_get_u32(cap_attr), &id);
	if (!err)
		prism_notify_fl(psk, PRISM_CMD_FREELIST_NEW, id);
	release_sock(&psk->sk);
	switch (err) {
	case 0:
		break;
	case -ENOENT:
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[PRISM_ATTR_RKEY],
				    "no region with this rkey on the endpoint");
		goto out;
	case -EINVAL:
		if (big)
			NL_SET_ERR_MSG_ATTR(info->extack, cap_attr,
					    "more buffers than the region holds");
		else
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[PRISM_ATTR_FL_BUF_SIZE],
					    "buffer size larger than the region");
		goto out;
	case -ENOSPC:
		GENL_SET_ERR_MSG(info, "no free list id left on the endpoint");
		goto out;
	case -ENOMEM:
		if (big)
			NL_SET_ERR_MSG_ATTR(info->extack, cap_attr,
					    "lists above 65536 buffers would take more kernel memory than the endpoint pinned, or out of memory");
		goto out;
	default:
		goto out;
	}

	rcu_read_lock();
	fl = xa_load(&psk->mem.freelists, id);
	if (fl) {
		err = prism_nl_fill_fl(msg, psk, fl, info->snd_portid,
				       info->snd_seq, 0,
				       PRISM_CMD_FREELIST_CREATE, true);
	} else {
		/* Socket closed right after: the list is gone with it. */
		GENL_SET_ERR_MSG(info, "endpoint closed while creating the free list");
		err = -ENOENT;
	}
	rcu_read_unlock();
out:
	return prism_nl_fl_end(psk, msg, info, err);
}

/* Geometry of a free list and its region, copied out under RCU. */
struct prism_nl_fl_geom {
	u32	buf_size;
	u32	room;		/* capacity - count at the time of the look */
	u64	start;		/* region */
	u64	len;
};

static int prism_nl_fl_geom(struct prism_sock *psk, u32 id,
			    struct prism_nl_fl_geom *g)
{
	struct prism_freelist *fl;
	struct prism_region *r;
	int err = -ENOENT;

	rcu_read_lock();
	fl = xa_load(&psk->mem.freelists, id);
	r = fl ? prism_region_find(&psk->mem, fl->rkey) : NULL;
	if (r) {
		g->buf_size = fl->buf_size;
		g->room = fl->capacity - READ_ONCE(fl->count);
		g->start = r->start;
		g->len = r->len;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/* The same test as prism_freelist_post(): buffer a fits in the region. */
static bool prism_nl_buf_ok(const struct prism_nl_fl_geom *g, u64 a)
{
	return a >= g->start && a - g->start <= g->len &&
	       g->buf_size <= g->len - (a - g->start);
}

/*
 * The addresses of a FREELIST_POST request.  PRISM_ATTR_FL_ADDRS may be
 * repeated, one attribute holding at most 64 KiB: the entries of all of
 * them count, in order.  Without out, returns how many there are (or
 * -EINVAL when too many); with out, stores them and checks each against
 * the list g.
 */
static int prism_nl_addrs(struct genl_info *info,
			  const struct prism_nl_fl_geom *g, u64 *out)
{
	const struct nlattr *nest, *a;
	int rem, rem2;
	u32 n = 0;

	nlmsg_for_each_attr(nest, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nest) != PRISM_ATTR_FL_ADDRS)
			continue;
		nla_for_each_nested(a, nest, rem2) {
			if (n == PRISM_GENL_POST_MAX) {
				NL_SET_ERR_MSG_ATTR(info->extack, a,
						    "too many buffers in one post");
				return -EINVAL;
			}
			if (out) {
				out[n] = nla_get_u64(a);
				if (!prism_nl_buf_ok(g, out[n])) {
					NL_SET_ERR_MSG_ATTR(info->extack, a,
							    "buffer not inside the free list's region");
					return -EINVAL;
				}
			}
			n++;
		}
	}
	return n;
}

/*
 * Build the address array of a FREELIST_POST request (kvfree() it) and
 * check every buffer against the list.  Returns the array or an ERR_PTR.
 */
static u64 *prism_nl_post_addrs(struct genl_info *info,
				const struct prism_nl_fl_geom *g, u32 *count)
{
	struct nlattr **tb = info->attrs;
	u64 *addrs, start, span;
	u32 n, i;
	int err;

	if (tb[PRISM_ATTR_FL_ADDRS]) {
		err = prism_nl_addrs(info, g, NULL);
		if (err < 0)
			return ERR_PTR(err);
		n = err;
		if (!n) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[PRISM_ATTR_FL_ADDRS],
					    "empty address list");
			return ERR_PTR(-EINVAL);
		}
	} else {
		n = nla_get_u32(tb[PRISM_ATTR_FL_CARVE_COUNT]);
		start = nla_get_u64(tb[PRISM_ATTR_FL_CARVE_START]);
		if (check_mul_overflow((u64)(n - 1), (u64)g->buf_size, &span) ||
		    check_add_overflow(start, span, &span)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[PRISM_ATTR_FL_CARVE_COUNT],
					    "carve runs past the end of the address space");
			return ERR_PTR(-EINVAL);
		}
	}
	if (n > g->room) {
		NL_SET_ERR_MSG(info->extack,
			       "not enough room in the free list for that many buffers");
		return ERR_PTR(-ENOSPC);
	}

	addrs = kvmalloc_array(n, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return ERR_PTR(-ENOMEM);
	if (tb[PRISM_ATTR_FL_ADDRS]) {
		err = prism_nl_addrs(info, g, addrs);
		if (err < 0) {
			kvfree(addrs);
			return ERR_PTR(err);
		}
	} else {
		for (i = 0; i < n; i++)
			addrs[i] = start + (u64)i * g->buf_size;
		if (!prism_nl_buf_ok(g, addrs[0]) ||
		    !prism_nl_buf_ok(g, addrs[n - 1])) {
			NL_SET_ERR_MSG(info->extack,
				       "carved buffers not inside the free list's region");
			kvfree(addrs);
			return ERR_PTR(-EINVAL);
		}
	}
	*count = n;
	return addrs;
}

/**
 * prism_nl_fl_post_doit() - post buffers to an endpoint's free list
 * @skb: the request (GENL_ADMIN_PERM: CAP_NET_ADMIN checked by genetlink)
 * @info: PRISM_ATTR_EP, PRISM_ATTR_FL_ID and either PRISM_ATTR_FL_ADDRS or
 *        PRISM_ATTR_FL_CARVE_START with PRISM_ATTR_FL_CARVE_COUNT
 *
 * Context: Process context, may sleep.
 * Return: genlmsg_reply()'s result for the reply describing the list's new
 * state, or a negative errno: from the attribute checks, -ENOMEM, or from
 * prism_freelist_post().
 */
int prism_nl_fl_post_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct prism_nl_fl_geom g;
	struct prism_freelist *fl;
	struct prism_sock *psk;
	struct sk_buff *msg;
	u32 id, count = 0;
	void *hdr;
	u64 *addrs;
	int err;

	if (prism_nl_missing(info, PRISM_ATTR_EP) ||
	    prism_nl_missing(info, PRISM_ATTR_FL_ID))
		return -EINVAL;
	if (tb[PRISM_ATTR_FL_ADDRS] &&
	    (tb[PRISM_ATTR_FL_CARVE_START] || tb[PRISM_ATTR_FL_CARVE_COUNT])) {
		GENL_SET_ERR_MSG(info, "give either addresses or a carve, not both");
		return -EINVAL;
	}
	if (!tb[PRISM_ATTR_FL_ADDRS]) {
		if (!tb[PRISM_ATTR_FL_CARVE_START] &&
		    !tb[PRISM_ATTR_FL_CARVE_COUNT]) {
			GENL_SET_ERR_MSG(info, "no buffers: give addresses or a carve");
			return -EINVAL;
		}
		if (prism_nl_missing(info, PRISM_ATTR_FL_CARVE_START) ||
		    prism_nl_missing(info, PRISM_ATTR_FL_CARVE_COUNT)) {
			GENL_SET_ERR_MSG(info, "a carve needs both start and count");
			return -EINVAL;
		}
	}
	id = nla_get_u32(tb[PRISM_ATTR_FL_ID]);

	psk = prism_nl_fl_begin(info, &msg);
	if (IS_ERR(psk))
		return PTR_ERR(psk);
	err = prism_nl_fl_geom(psk, id, &g);
	if (err) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[PRISM_ATTR_FL_ID],
				    "no free list with this id on the endpoint");
		goto out;
	}
	addrs = prism_nl_post_addrs(info, &g, &count);
	if (IS_ERR(addrs)) {
		err = PTR_ERR(addrs);
		goto out;
	}
	/* Checks everything again under the list's locks. */
	lock_sock(&psk->sk);
	err = prism_freelist_post(&psk->mem, id, addrs, count);
	release_sock(&psk->sk);
	kvfree(addrs);
	switch (err) {
	case 0:
		break;
	case -ENOENT:
		GENL_SET_ERR_MSG(info, "free list destroyed while posting");
		goto out;
	case -ENOSPC:
		GENL_SET_ERR_MSG(info, "not enough room in the free list for that many buffers");
		goto out;
	case -EINVAL:
		GENL_SET_ERR_MSG(info, "buffer not inside the free list's region");
		goto out;
	default:
		goto out;
	}

	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &prism_genl_family, 0,
				PRISM_CMD_FREELIST_POST);
	if (!hdr)
		goto out;
	if (nla_put_u32(msg, PRISM_ATTR_EP, psk->ep) ||
	    nla_put_u32(msg, PRISM_ATTR_FL_ID, id) ||
	    nla_put_u32(msg, PRISM_ATTR_FL_POSTED, count))
		goto out;
	rcu_read_lock();
	fl = xa_load(&psk->mem.freelists, id);
	err = fl ? nla_put_u32(msg, PRISM_ATTR_FL_COUNT, READ_ONCE(fl->count))
		 : 0;
	rcu_read_unlock();
	if (!err)
		genlmsg_end(msg, hdr);
out:
	return prism_nl_fl_end(psk, msg, info, err);
}

