// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM socket family: module init, per-netns endpoint table, socket ops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/etherdevice.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/if_arp.h>
#include <linux/capability.h>
#include <linux/memcontrol.h>
#include <net/sock.h>
#include <net/netns/generic.h>
#include <net/addrconf.h>
#include <net/route.h>
#include "prism_net.h"
#include "keyed.h"
#include "outbuf.h"
#include "../uapi/linux/prism_netlink.h"

static int family = PRISM_DEFAULT_FAMILY;
module_param(family, int, 0444);
MODULE_PARM_DESC(family, "address family number to register (default 25)");

static ushort ethertype = PRISM_DEFAULT_ETHERTYPE;
module_param(ethertype, ushort, 0444);
MODULE_PARM_DESC(ethertype, "EtherType of PRISM frames (default 0x88B5)");

u16 prism_ethertype;
static unsigned int prism_net_id __read_mostly;

/**
 * prism_pernet() - PRISM state of a network namespace
 * @net: the namespace
 *
 * Context: Any context; the caller keeps @net alive.
 * Return: the &struct prism_net of @net.
 */
struct prism_net *prism_pernet(struct net *net)
{
	return net_generic(net, prism_net_id);
}

/**
 * prism_frame_psk() - the socket a received frame is for
 * @net: network namespace the frame came in
 * @src: link address of its sender (prism_link_src()): the interface it
 *       came in on, or the local address it was sent to
 * @hdr: its PRISM header
 *
 * Context: Caller holds rcu_read_lock().
 * Return: the socket bound to @hdr's destination endpoint on the link the
 * frame came by (an Ethernet socket on its interface; a UDP socket bound
 * to the frame's destination address or to any), or NULL.
 */
struct prism_sock *prism_frame_psk(struct net *net,
				   const struct prism_paddr *src,
				   const struct prism_whdr *hdr)
{
	struct prism_sock *psk = prism_ep_lookup(net, ntohl(hdr->dst_ep));
	const struct prism_paddr *l;

	if (!psk)
		return NULL;
	if (src->kind == PRISM_LINK_ETH)
		return psk->kind == PRISM_ADDR_ETH &&
		       psk->ifindex == src->ifindex ? psk : NULL;
	if (psk->kind != PRISM_ADDR_UDP)
		return NULL;
	l = &psk->laddr;
	if (l->kind == PRISM_LINK_NONE)
		return psk;
	if (l->kind != src->kind)
		return NULL;
	if (l->kind == PRISM_LINK_UDP4)
		return l->local4 == src->local4 ? psk : NULL;
	return ipv6_addr_equal(&l->local6, &src->local6) ? psk : NULL;
}

/**
 * prism_queue_send() - queue a SEND op's data on the target socket
 * @psk: target socket
 * @src: link address of the sender, returned by recvmsg() as msg_name
 * @src_ep: its endpoint id
 * @data: the SEND op's inline data
 * @len: bytes at @data
 *
 * The message (&struct prism_msg of kind PRISM_MSG_SEND, then the data) is
 * charged to the receive buffer of @psk: a full socket refuses the SEND.
 *
 * Context: Softirq, from the engine (via the &struct prism_exec_ctx
 * deliver_send callback), under rcu_read_lock(); allocates with GFP_ATOMIC.
 * Return: PRISM_S_OK, or PRISM_S_RECV_FULL if out of memory or @psk refused
 * the message.
 */
int prism_queue_send(struct prism_sock *psk, const struct prism_paddr *src,
		     u32 src_ep, const void *data, u32 len)
{
	struct prism_msg *msg;
	struct sk_buff *skb;

	skb = alloc_skb(sizeof(*msg) + len, GFP_ATOMIC);
	if (!skb)
		return PRISM_S_RECV_FULL;
	msg = skb_put_zero(skb, sizeof(*msg));
	msg->kind = PRISM_MSG_SEND;
	msg->len = sizeof(*msg) + len;
	skb_put_data(skb, data, len);
	/* recvmsg() tells the kind by sprism_kind. */
	BUILD_BUG_ON(sizeof(struct sockaddr_prism_udp) > sizeof(skb->cb));
	prism_paddr_sockaddr(src, src_ep, psk->sk.sk_family, skb->cb);
	/* Charged to the receive buffer: a full socket refuses the SEND. */
	if (sock_queue_rcv_skb(&psk->sk, skb) < 0) {
		kfree_skb(skb);
		return PRISM_S_RECV_FULL;
	}
	return PRISM_S_OK;
}

/**
 * prism_ep_lookup() - find the socket bound to an endpoint id
 * @net: network namespace of the endpoint
 * @ep: endpoint id
 *
 * No reference is taken: the socket (SOCK_RCU_FREE) stays valid until the
 * caller's rcu_read_unlock().
 *
 * Context: Caller holds rcu_read_lock().
 * Return: the socket bound to @ep in @net, or NULL if there is none.
 */
struct prism_sock *prism_ep_lookup(struct net *net, u32 ep)
{
	return xa_load(&prism_pernet(net)->eps, ep);
}

static struct proto prism_proto = {
	.name		= "PRISM",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct prism_sock),
};

static int prism_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct prism_sock *psk;
	struct prism_net *pn;

	if (!sk)
		return 0;
	psk = prism_sk(sk);
	pn = prism_pernet(sock_net(sk));

	lock_sock(sk);
	if (psk->bound) {
		mutex_lock(&pn->ep_mutex);
		xa_erase(&pn->eps, psk->ep);
		/* One event: its regions and free lists go with it. */
		prism_nl_notify_ep(sock_net(sk), PRISM_CMD_ENDPOINT_DEL,
				   psk->ep, psk->ifindex);
		mutex_unlock(&pn->ep_mutex);
	}
	psk->bound = false;
	release_sock(sk);

	prism_client_release(psk);
	atomic64_sub(psk->mem.pinned_pages, &pn->pinned_pages);
	/* Waits for softirq ops that may still use the regions, then unpins. */
	prism_mem_destroy(&psk->mem);
	/* After that grace period no receiver or timer uses these either. */
	prism_sessions_destroy(psk);
	prism_client_destroy(psk);
	prism_ckeys_destroy(psk);

	sock_orphan(sk);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/* Runs after the RCU grace period (SOCK_RCU_FREE): nothing queues anymore. */
static void prism_sock_destruct(struct sock *sk)
{
	skb_queue_purge(&sk->sk_receive_queue);
	WARN_ON_ONCE(!xa_empty(&prism_sk(sk)->reqs));
	xa_destroy(&prism_sk(sk)->reqs);
	put_pid(prism_sk(sk)->owner);
	mem_cgroup_put(prism_sk(sk)->memcg);
}

static int prism_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct prism_sock *psk = prism_sk(sk);
	struct net *net = sock_net(sk);
	struct prism_net *pn = prism_pernet(net);
	struct prism_bind_link b = {};
	u32 ep;
	int err;

	/* The link is checked into b, then copied under the socket lock. */
	err = prism_bind_addr(sk, uaddr, addr_len, &b);
	if (err)
		return err;
	ep = b.ep;

	lock_sock(sk);
	if (psk->bound) {
		err = -EINVAL;
		goto out;
	}
	/* Receivers look at the link once the socket is in eps. */
	psk->kind = b.kind;
	psk->ifindex = b.ifindex;
	psk->laddr = b.laddr;
	mutex_lock(&pn->ep_mutex);
	if (!ep) {
		/* Ephemeral ids: the upper half, handed out cyclically. */
		err = xa_alloc_cyclic(&pn->eps, &ep, psk,
				      XA_LIMIT(PRISM_EP_EPHEMERAL_MIN, U32_MAX),
				      &pn->next_ep, GFP_KERNEL_ACCOUNT);
		if (err == -EBUSY)
			err = -EADDRNOTAVAIL;
	} else {
		err = xa_insert(&pn->eps, ep, psk, GFP_KERNEL_ACCOUNT);
		if (err == -EBUSY)
			err = -EADDRINUSE;
	}
	if (err < 0)
		goto out_unlock;
	err = 0;
	psk->ep = ep;
	/* sendmsg() reads ep and ifindex without the socket lock. */
	smp_store_release(&psk->bound, true);
	prism_nl_notify_ep(net, PRISM_CMD_ENDPOINT_NEW, ep, psk->ifindex);
out_unlock:
	mutex_unlock(&pn->ep_mutex);
out:
	release_sock(sk);
	return err;
}

/*
 * The peer an address from userspace names (a sendmsg() destination, a
 * client of PRISM_IOC_DERIVE_KEY, a target of PRISM_KEY): -EINVAL if it is
 * too short or of another family, -ENOTCONN if psk is not bound, else
 * prism_dst_addr().
 */
static int prism_name_peer(struct prism_sock *psk, const void *name, int len,
			   struct prism_paddr *pa, u32 *ep)
{
	const struct sockaddr_prism *dst = name;

	if (len < (int)sizeof(*dst) || dst->sprism_family != family)
		return -EINVAL;
	/* Pairs with bind(): the link and ep are set before bound. */
	if (!smp_load_acquire(&psk->bound))
		return -ENOTCONN;
	return prism_dst_addr(psk, dst, len, pa, ep);
}

/*
 * The control messages of a submission: at most one PRISM_CMSG_OUTBUF,
 * copied to *ob (*has set).  Anything else is -EINVAL.
 */
static int prism_sendmsg_cmsgs(struct msghdr *msg, struct prism_outbuf *ob,
			       bool *has)
{
	struct cmsghdr *cmsg;

	*has = false;
	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg) || cmsg->cmsg_level != SOL_PRISM ||
		    cmsg->cmsg_type != PRISM_CMSG_OUTBUF ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(*ob)) || *has)
			return -EINVAL;
		memcpy(ob, CMSG_DATA(cmsg), sizeof(*ob));
		*has = true;
	}
	return 0;
}

static int prism_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	DECLARE_SOCKADDR(struct sockaddr_prism *, dst, msg->msg_name);
	struct prism_sock *psk = prism_sk(sock->sk);
	struct prism_outbuf ob;
	struct prism_paddr pa;
	bool has_ob;
	u32 ep;
	u8 *buf;
	int err;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR))
		return -EOPNOTSUPP;
	if (!dst)
		return -EDESTADDRREQ;
	if (msg->msg_namelen < (int)sizeof(*dst) ||
	    dst->sprism_family != family)
		return -EINVAL;
	if (len > PRISM_MAX_SUBMIT)
		return -EMSGSIZE;
	if (len < sizeof(struct prism_chain))
		return -EINVAL;
	err = prism_sendmsg_cmsgs(msg, &ob, &has_ob);
	if (err)
		return err;
	err = prism_name_peer(psk, dst, msg->msg_namelen, &pa, &ep);
	if (err)
		return err;

	/* A chain larger than a frame keeps it (prism_client_submit()). */
	buf = kvmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	if (!copy_from_iter_full(buf, len, &msg->msg_iter)) {
		err = -EFAULT;
		goto out;
	}
	err = prism_client_submit(psk, &pa, ep, &buf, len, has_ob ? &ob : NULL);
	if (!err)
		err = len;
out:
	/* A socket with keys may send sealed data and region keys (REKEY). */
	if (list_empty_careful(&psk->keys))
		kvfree(buf);
	else
		kvfree_sensitive(buf, len);
	return err;
}

static int prism_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
			 int flags)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	size_t copied;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_PEEK | MSG_CMSG_COMPAT |
		      MSG_WAITALL | MSG_NOSIGNAL))
		return -EOPNOTSUPP;

	skb = skb_recv_datagram(sk, flags, &err);
	if (!skb)
		return err;

	copied = skb->len;
	if (copied > size) {
		copied = size;
		msg->msg_flags |= MSG_TRUNC;
	}
	err = skb_copy_datagram_msg(skb, 0, msg, copied);
	if (err)
		goto out;
	if (msg->msg_name) {
		/* The peer's address travels in skb->cb; its kind says its size. */
		msg->msg_namelen =
			((struct sockaddr_prism *)skb->cb)->sprism_kind ==
			PRISM_ADDR_UDP ? sizeof(struct sockaddr_prism_udp) :
					 sizeof(struct sockaddr_prism);
		memcpy(msg->msg_name, skb->cb, msg->msg_namelen);
	}
	err = (flags & MSG_TRUNC) ? skb->len : copied;
out:
	skb_free_datagram(sk, skb);
	return err;
}

/**
 * prism_region_snap() - describe a region for a netlink event
 * @psk: socket the region belongs to
 * @rkey: rkey of the region
 * @ev: filled in with the region as it is now (only when true is returned)
 *
 * Events of the memory of a socket (see netlink.c) are only sent for bound
 * sockets, under the socket lock, so they come in the order of the changes.
 * For a REGION_DEL, snap before the removal and send the event with
 * prism_nl_notify_region() once the removal succeeded.
 *
 * Context: Process context, socket lock of @psk held; takes rcu_read_lock().
 * Return: true if @psk is bound and has a region @rkey (@ev is filled in),
 * false otherwise (no event is due).
 */
bool prism_region_snap(struct prism_sock *psk, u64 rkey,
		       struct prism_nl_region_ev *ev)
{
	struct prism_region *r;

	if (!psk->bound)
		return false;
	rcu_read_lock();
	r = prism_region_find(&psk->mem, rkey);
	if (r) {
		ev->len = r->len;
		ev->pages = r->npages;
		ev->access = r->access;
	}
	rcu_read_unlock();
	return !!r;
}

/**
 * prism_fl_snap() - describe a free list for a netlink event
 * @psk: socket the free list belongs to
 * @id: id of the free list
 * @ev: filled in with the free list as it is now (only when true is returned)
 *
 * Same rules as prism_region_snap(): bound sockets only, socket lock held; for
 * a FREELIST_DEL, snap before the removal and send the event with
 * prism_nl_notify_fl() once the removal succeeded.
 *
 * Context: Process context, socket lock of @psk held; takes rcu_read_lock().
 * Return: true if @psk is bound and has a free list @id (@ev is filled in),
 * false otherwise (no event is due).
 */
bool prism_fl_snap(struct prism_sock *psk, u32 id, struct prism_nl_fl_ev *ev)
{
	struct prism_freelist *fl;

	if (!psk->bound)
		return false;
	rcu_read_lock();
	fl = xa_load(&psk->mem.freelists, id);
	if (fl) {
		ev->id = fl->id;
		ev->buf_size = fl->buf_size;
		ev->capacity = fl->capacity;
	}
	rcu_read_unlock();
	return !!fl;
}

static void prism_notify_region(struct prism_sock *psk, u8 cmd, u64 rkey)
{
	struct prism_nl_region_ev ev;

	if (prism_region_snap(psk, rkey, &ev))
		prism_nl_notify_region(sock_net(&psk->sk), cmd, psk->ep, &ev);
}

/**
 * prism_notify_fl() - multicast the event of a free list as it is now
 * @psk: socket the free list belongs to
 * @cmd: event command, PRISM_CMD_FREELIST_NEW (the FL_CREATE ioctl and the
 *       netlink FREELIST_CREATE command)
 * @id: id of the free list
 *
 * Nothing is sent when @psk is not bound, has no free list @id, or nobody
 * listens to the events group.
 *
 * Context: Process context, may sleep; socket lock of @psk held.
 */
void prism_notify_fl(struct prism_sock *psk, u8 cmd, u32 id)
{
	struct prism_nl_fl_ev ev;

	if (prism_fl_snap(psk, id, &ev))
		prism_nl_notify_fl(sock_net(&psk->sk), cmd, psk->ep, &ev);
}

static int prism_ioctl_reg_mr(struct prism_sock *psk, void __user *arg)
{
	struct prism_reg_mr req;
	int err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.flags & ~PRISM_MR_KEYED)
		return -EINVAL;
	err = prism_region_register_user(&psk->mem, req.addr, req.len,
					 req.access, req.flags & PRISM_MR_KEYED,
					 &req.rkey);
	if (err)
		return err;
	if (copy_to_user(arg, &req, sizeof(req))) {
		prism_region_deregister(&psk->mem, req.rkey);
		return -EFAULT;
	}
	prism_notify_region(psk, PRISM_CMD_REGION_NEW, req.rkey);
	return 0;
}

static int prism_ioctl_fl_create(struct prism_sock *psk, void __user *arg)
{
	struct prism_fl_create req;
	int err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.reserved)
		return -EINVAL;
	err = prism_freelist_create(&psk->mem, req.rkey, req.buf_size,
				    req.capacity, &req.id);
	if (err)
		return err;
	if (copy_to_user(arg, &req, sizeof(req))) {
		prism_freelist_destroy(&psk->mem, req.id);
		return -EFAULT;
	}
	prism_notify_fl(psk, PRISM_CMD_FREELIST_NEW, req.id);
	return 0;
}

/* Bounds one FL_POST call; larger batches take several calls. */
#define PRISM_FL_POST_MAX	65536

static int prism_ioctl_fl_post(struct prism_sock *psk, void __user *arg)
{
	struct prism_fl_post req;
	u64 *addrs;
	int err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (!req.count || req.count > PRISM_FL_POST_MAX)
		return -EINVAL;
	addrs = memdup_user(u64_to_user_ptr(req.addrs),
			    array_size(req.count, sizeof(u64)));
	if (IS_ERR(addrs))
		return PTR_ERR(addrs);
	err = prism_freelist_post(&psk->mem, req.id, addrs, req.count);
	kfree(addrs);
	return err;
}

static int prism_ioctl_rekey(struct prism_sock *psk, void __user *arg)
{
	struct prism_rekey req;
	int err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	err = prism_region_rekey(&psk->mem, req.rkey, req.key, req.overlap_ms,
				 &req.gen);
	memzero_explicit(req.key, sizeof(req.key));
	if (err)
		return err;
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}

static int prism_ioctl_derive(struct prism_sock *psk, void __user *arg)
{
	struct prism_derive_key req;
	struct prism_paddr pa;
	u32 ep;
	int err;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.reserved || req.addr_len > sizeof(req.addr))
		return -EINVAL;
	err = prism_name_peer(psk, req.addr, req.addr_len, &pa, &ep);
	if (!err)
		err = prism_region_derive(&psk->mem, req.rkey, &pa, ep,
					  req.rights, req.kd, &req.gen);
	if (!err && copy_to_user(arg, &req, sizeof(req)))
		err = -EFAULT;
	memzero_explicit(req.kd, sizeof(req.kd));
	return err;
}

static int prism_ioctl_locked(struct prism_sock *psk, unsigned int cmd,
			      unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct prism_nl_region_ev rev;
	struct prism_nl_fl_ev fev;
	bool notify;
	int err;
	u64 rkey;
	u32 id;

	switch (cmd) {
	case PRISM_IOC_REG_MR:
		return prism_ioctl_reg_mr(psk, uarg);
	case PRISM_IOC_DEREG_MR:
		if (get_user(rkey, (u64 __user *)uarg))
			return -EFAULT;
		notify = prism_region_snap(psk, rkey, &rev);
		err = prism_region_deregister(&psk->mem, rkey);
		if (!err && notify)
			prism_nl_notify_region(sock_net(&psk->sk),
					       PRISM_CMD_REGION_DEL, psk->ep,
					       &rev);
		return err;
	case PRISM_IOC_REKEY:
		return prism_ioctl_rekey(psk, uarg);
	case PRISM_IOC_DERIVE_KEY:
		return prism_ioctl_derive(psk, uarg);
	case PRISM_IOC_FL_CREATE:
		return prism_ioctl_fl_create(psk, uarg);
	case PRISM_IOC_FL_POST:
		return prism_ioctl_fl_post(psk, uarg);
	case PRISM_IOC_FL_DESTROY:
		if (get_user(id, (u32 __user *)uarg))
			return -EFAULT;
		notify = prism_fl_snap(psk, id, &fev);
		err = prism_freelist_destroy(&psk->mem, id);
		if (!err && notify)
			prism_nl_notify_fl(sock_net(&psk->sk),
					   PRISM_CMD_FREELIST_DEL, psk->ep,
					   &fev);
		return err;
	}
	return -ENOIOCTLCMD;
}

static int prism_ioctl(struct socket *sock, unsigned int cmd,
		       unsigned long arg)
{
	struct prism_net *pn = prism_pernet(sock_net(sock->sk));
	struct prism_sock *psk = prism_sk(sock->sk);
	u64 pinned;
	int err;

	/* One memory change at a time per socket: pins are counted per netns. */
	lock_sock(sock->sk);
	pinned = READ_ONCE(psk->mem.pinned_pages);
	err = prism_ioctl_locked(psk, cmd, arg);
	atomic64_add(READ_ONCE(psk->mem.pinned_pages) - pinned,
		     &pn->pinned_pages);
	release_sock(sock->sk);
	return err;
}

/* PRISM_KEY: attach, replace or detach a derived key (keyed.c). */
static int prism_setsockopt_key(struct prism_sock *psk, sockptr_t optval,
				unsigned int optlen)
{
	struct prism_paddr pa;
	struct prism_key uk;
	u32 ep;
	int err;

	if (optlen != sizeof(uk))
		return -EINVAL;
	if (copy_from_sockptr(&uk, optval, sizeof(uk)))
		return -EFAULT;
	err = uk.addr_len > sizeof(uk.addr) ? -EINVAL :
	      prism_name_peer(psk, uk.addr, uk.addr_len, &pa, &ep);
	if (!err)
		err = prism_ckey_set(psk, &pa, ep, &uk);
	memzero_explicit(&uk, sizeof(uk));
	return err;
}

static int prism_setsockopt(struct socket *sock, int level, int optname,
			    sockptr_t optval, unsigned int optlen)
{
	struct prism_sock *psk = prism_sk(sock->sk);
	int val;

	if (level != SOL_PRISM)
		return -ENOPROTOOPT;
	if (optname == PRISM_KEY)
		return prism_setsockopt_key(psk, optval, optlen);
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;

	switch (optname) {
	case PRISM_TIMEOUT_MS:
		if (val <= 0 || val > PRISM_MAX_TIMEOUT_MS)
			return -EINVAL;
		WRITE_ONCE(psk->timeout_ms, val);
		return 0;
	case PRISM_RETRIES:
		if (val <= 0 || val > PRISM_MAX_RETRIES)
			return -EINVAL;
		WRITE_ONCE(psk->retries, val);
		return 0;
	case PRISM_MAX_OUTSTANDING:
		if (val <= 0 || val > PRISM_WINDOW)
			return -EINVAL;
		WRITE_ONCE(psk->max_outstanding, val);
		return 0;
	case PRISM_SERVE_RATE:
		if (val < 0)
			return -EINVAL;
		WRITE_ONCE(psk->serve_rate, val);
		return 0;
	case PRISM_OPEN_SEND:
		if (val != 0 && val != 1)
			return -EINVAL;
		WRITE_ONCE(psk->open_send, val);
		return 0;
	}
	return -ENOPROTOOPT;
}

static int prism_getsockopt(struct socket *sock, int level, int optname,
			    char __user *optval, int __user *optlen)
{
	struct prism_sock *psk = prism_sk(sock->sk);
	struct prism_stats stats;
	int len, val;

	if (level != SOL_PRISM)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	switch (optname) {
	case PRISM_TIMEOUT_MS:
	case PRISM_RETRIES:
	case PRISM_MAX_OUTSTANDING:
	case PRISM_SERVE_RATE:
	case PRISM_OPEN_SEND:
		if (len < sizeof(int))
			return -EINVAL;
		val = optname == PRISM_TIMEOUT_MS ? READ_ONCE(psk->timeout_ms) :
		      optname == PRISM_RETRIES ? READ_ONCE(psk->retries) :
		      optname == PRISM_MAX_OUTSTANDING ?
				READ_ONCE(psk->max_outstanding) :
		      optname == PRISM_OPEN_SEND ? READ_ONCE(psk->open_send) :
				READ_ONCE(psk->serve_rate);
		len = sizeof(int);
		if (copy_to_user(optval, &val, len))
			return -EFAULT;
		break;
	case PRISM_STATS:
		prism_stats_fill(psk, &stats);
		len = min_t(int, len, sizeof(stats));
		if (copy_to_user(optval, &stats, len))
			return -EFAULT;
		break;
	default:
		return -ENOPROTOOPT;
	}
	return put_user(len, optlen);
}

/*
 * The core never reads proto_ops.family for sockets; sockets carry the
 * registered number (module parameter) in sk_family.
 */
static const struct proto_ops prism_ops = {
	.family		= PRISM_DEFAULT_FAMILY,
	.owner		= THIS_MODULE,
	.release	= prism_release,
	.bind		= prism_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= prism_getname,
	.poll		= datagram_poll,
	.ioctl		= prism_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= prism_setsockopt,
	.getsockopt	= prism_getsockopt,
	.sendmsg	= prism_sendmsg,
	.recvmsg	= prism_recvmsg,
	.mmap		= sock_no_mmap,
};

static int prism_create(struct net *net, struct socket *sock, int protocol,
			int kern)
{
	struct prism_sock *psk;
	struct sock *sk;

	if (protocol)
		return -EPROTONOSUPPORT;
	if (sock->type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;

	sk = sk_alloc(net, family, GFP_KERNEL, &prism_proto, kern);
	if (!sk)
		return -ENOMEM;
	sock->ops = &prism_ops;
	sock_init_data(sock, sk);
	/*
	 * Chains in flight and unread completions are charged to the receive
	 * buffer: start with room for the default window of typical chains.
	 */
	sk->sk_rcvbuf = max_t(int, sk->sk_rcvbuf, PRISM_DEFAULT_RCVBUF);
	sock_set_flag(sk, SOCK_RCU_FREE);
	sk->sk_destruct = prism_sock_destruct;

	psk = prism_sk(sk);
	prism_mem_init(&psk->mem);
	prism_client_init(psk);
	prism_ckeys_init(psk);
	prism_sessions_init(psk);
	psk->serve_stamp = jiffies;
	psk->owner = get_pid(task_tgid(current));
	psk->memcg = get_mem_cgroup_from_mm(current->mm);
	return 0;
}

static struct net_proto_family prism_family_ops = {
	.create	= prism_create,
	.owner	= THIS_MODULE,
};

static int __net_init prism_net_init(struct net *net)
{
	struct prism_net *pn = prism_pernet(net);
	int err;

	xa_init_flags(&pn->eps, XA_FLAGS_ALLOC);
	mutex_init(&pn->ep_mutex);
	pn->next_ep = PRISM_EP_EPHEMERAL_MIN | get_random_u32();
	ratelimit_state_init(&pn->refusals, PRISM_REFUSALS_INTERVAL,
			     PRISM_REFUSALS_BURST);
	/* Counted in replies_limited; no "callbacks suppressed" messages. */
	ratelimit_set_flags(&pn->refusals, RATELIMIT_MSG_ON_RELEASE);
	atomic64_set(&pn->pinned_pages, 0);
	pn->stats = alloc_percpu(struct prism_netns_stats);
	if (!pn->stats)
		return -ENOMEM;
	err = prism_proc_init(net);
	if (err)
		free_percpu(pn->stats);
	return err;
}

static void __net_exit prism_net_exit(struct net *net)
{
	struct prism_net *pn = prism_pernet(net);

	/* Sockets hold the netns, so none is left here. */
	WARN_ON_ONCE(!xa_empty(&pn->eps));
	xa_destroy(&pn->eps);
	prism_udp_close(net);
	prism_proc_exit(net);
	free_percpu(pn->stats);
}

static struct pernet_operations prism_net_ops = {
	.init	= prism_net_init,
	.exit	= prism_net_exit,
	.id	= &prism_net_id,
	.size	= sizeof(struct prism_net),
};

static int __init prism_init(void)
{
	int err;

	if (family <= 0 || family >= NPROTO) {
		pr_err("family=%d is out of range (1..%d)\n", family,
		       NPROTO - 1);
		return -EINVAL;
	}
	if (ethertype < ETH_P_802_3_MIN) {
		pr_err("ethertype=0x%04x is a length, not an EtherType (need >= 0x%04x)\n",
		       ethertype, ETH_P_802_3_MIN);
		return -EINVAL;
	}
	/* The link layer tells frames of UDP mode by these (link.c). */
	if (ethertype == ETH_P_IP || ethertype == ETH_P_IPV6) {
		pr_err("ethertype=0x%04x is IP's\n", ethertype);
		return -EINVAL;
	}
	prism_engine_init();
	err = prism_obuf_init();
	if (err)
		return err;
	err = prism_udp_init();
	if (err)
		goto err_obuf;
	prism_ethertype = ethertype;
	prism_family_ops.family = family;

	err = proto_register(&prism_proto, 0);
	if (err)
		goto err_udp;
	err = register_pernet_subsys(&prism_net_ops);
	if (err)
		goto err_proto;
	err = sock_register(&prism_family_ops);
	if (err) {
		if (err == -EEXIST)
			pr_err("address family %d is already registered by another protocol; load with family=<free number>\n",
			       family);
		goto err_pernet;
	}
	err = prism_netlink_init();
	if (err)
		goto err_sock;
	err = prism_dev_init();
	if (err)
		goto err_netlink;
	pr_info("loaded: family %d, ethertype 0x%04x, udp_port %u\n", family,
		ethertype, prism_udp_port);
	return 0;

err_netlink:
	prism_netlink_exit();
err_sock:
	sock_unregister(family);
err_pernet:
	unregister_pernet_subsys(&prism_net_ops);
err_proto:
	proto_unregister(&prism_proto);
err_udp:
	prism_udp_exit();
err_obuf:
	prism_obuf_exit();
	return err;
}

static void __exit prism_exit(void)
{
	prism_udp_exit();
	prism_dev_exit();
	prism_netlink_exit();
	sock_unregister(family);
	unregister_pernet_subsys(&prism_net_ops);
	/* Socket destructors run from RCU callbacks: let them finish. */
	rcu_barrier();
	/* The chains those freed gave their output buffers back. */
	prism_obuf_exit();
	proto_unregister(&prism_proto);
}

module_init(prism_init);
module_exit(prism_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PRISM: rich one-sided remote memory operations over Ethernet and UDP");
MODULE_AUTHOR("PRISM for Linux developers");
