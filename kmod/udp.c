// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM frames in UDP over IPv4 and IPv6 (link.h): one kernel UDP socket
 * per family and network namespace, on the port of module parameter
 * udp_port, opened by the first bind() of a UDP endpoint in the namespace
 * and closed with it.  Received datagrams come in through the socket's
 * encapsulation hook (softirq, checksum verified by UDP); frames leave
 * through the namespace's routes with a source port hashed from the
 * sender's endpoint and session, so that NIC receive-side scaling and ECMP
 * spread sessions and keep each in order.
 *
 * The kernel's udp_tunnel helpers live in a module of their own
 * (udp_tunnel.ko, CONFIG_NET_UDP_TUNNEL) that not every kernel has; what
 * is needed of them here is a few calls into the built-in IPv4 and IPv6
 * code, made directly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <kunit/visibility.h>
#include "prism_net.h"
#include "link.h"

static ushort udp_port = PRISM_DEFAULT_UDP_PORT;
module_param(udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP port of PRISM endpoints bound to IP addresses (default 4795)");

u16 prism_udp_port;

/* Serializes the opening of the sockets of a namespace. */
static DEFINE_MUTEX(prism_udp_mutex);
/* Received datagrams are handed up only while the module is running. */
static bool prism_udp_live;
static u32 prism_udp_seed __read_mostly;

/* Bytes of IP and UDP headers before a frame. */
#define PRISM_UDP4_OVERHEAD	(sizeof(struct iphdr) + sizeof(struct udphdr))
#define PRISM_UDP6_OVERHEAD	(sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/*
 * Route cache.  A route lookup (and for a given source address, the check
 * that it is ours) is some 40% of the cost of sending a datagram, and a
 * chain looks up its route twice (its size, prism_udp_mtu(); its frame),
 * its answer twice more.  So each CPU keeps the routes its frames last
 * took, in a few slots chosen by a hash of the flow (addresses, ports,
 * interface: the ports choose among multipath routes), checked before each
 * use like any cached route (dst_check(): a route change, a path MTU
 * update or the interface going down makes it stale).  Per CPU and not per
 * peer: a target keeps no state per client; with BHs off, no lock.
 */
#define PRISM_UDP_RT_SLOTS	4

struct prism_udp_rt {
	struct prism_paddr	key;	/* the flow; port = source port */
	__be16			dport;
	struct dst_entry	*dst;	/* a reference, or NULL */
	u32			cookie;	/* for dst_check() (IPv6) */
	union {				/* the route's source address */
		__be32		saddr4;
		struct in6_addr	saddr6;
	};
};

struct prism_udp_rts {
	struct prism_udp_rt	slot[PRISM_UDP_RT_SLOTS];
};

/* A slot's key: the flow to @to, with its source port in place of @to's. */
static void prism_udp_rt_key(struct prism_paddr *key,
			     const struct prism_paddr *to, __be16 sport)
{
	*key = *to;
	key->port = sport;
}

static struct prism_udp_rt *prism_udp_rt_slot(struct prism_udp_rts *rts,
					      const struct prism_paddr *key)
{
	return &rts->slot[jhash(key, sizeof(*key), 0) % PRISM_UDP_RT_SLOTS];
}

/*
 * Whether slot @c holds a route towards @to (its address, port, interface
 * and local address) from source port @sport; from any source port if
 * @sport is 0 (source ports are never 0: prism_udp_sport()).
 */
static bool prism_udp_rt_match(const struct prism_udp_rt *c,
			       const struct prism_paddr *to, __be16 sport)
{
	return c->dst && c->dport == to->port && c->key.kind == to->kind &&
	       c->key.ifindex == to->ifindex &&
	       (!sport || c->key.port == sport) &&
	       !memcmp(&c->key.ip6, &to->ip6, sizeof(to->ip6)) &&
	       !memcmp(&c->key.local6, &to->local6, sizeof(to->local6));
}

/* A still valid route of @c, with a reference; else NULL (slot emptied). */
static struct dst_entry *prism_udp_rt_valid(struct prism_udp_rt *c)
{
	struct dst_entry *dst = c->dst;

	if (!dst)
		return NULL;
	if (!dst_check(dst, c->cookie) || !(dst->dev->flags & IFF_UP)) {
		c->dst = NULL;
		dst_release(dst);
		return NULL;
	}
	dst_hold(dst);
	return dst;
}

/*
 * The cached route of flow (@to, @sport), with a reference, and its
 * source address; NULL if none.  BHs off.
 */
static struct dst_entry *prism_udp_rt_get(struct prism_udp_rts __percpu *rts,
					  const struct prism_paddr *to,
					  __be16 sport, void *saddr)
{
	struct prism_paddr key;
	struct prism_udp_rt *c;
	struct dst_entry *dst;

	if (!rts)
		return NULL;
	prism_udp_rt_key(&key, to, sport);
	c = prism_udp_rt_slot(this_cpu_ptr(rts), &key);
	if (!prism_udp_rt_match(c, to, sport))
		return NULL;
	dst = prism_udp_rt_valid(c);
	if (dst)
		memcpy(saddr, &c->saddr6, to->kind == PRISM_LINK_UDP4 ?
		       sizeof(c->saddr4) : sizeof(c->saddr6));
	return dst;
}

/* Keeps @dst (the route of flow @to, @sport, source @saddr) for next time. */
static void prism_udp_rt_set(struct prism_udp_rts __percpu *rts,
			     const struct prism_paddr *to, __be16 sport,
			     struct dst_entry *dst, u32 cookie,
			     const void *saddr)
{
	struct prism_paddr key;
	struct prism_udp_rt *c;

	if (!rts)
		return;
	prism_udp_rt_key(&key, to, sport);
	c = prism_udp_rt_slot(this_cpu_ptr(rts), &key);
	dst_release(c->dst);
	dst_hold(dst);
	c->dst = dst;
	c->key = key;
	c->dport = to->port;
	c->cookie = cookie;
	memcpy(&c->saddr6, saddr, to->kind == PRISM_LINK_UDP4 ?
	       sizeof(c->saddr4) : sizeof(c->saddr6));
}

/* The path MTU of any cached route to @to (whatever its ports); BHs off. */
static int prism_udp_rt_mtu(struct prism_udp_rts __percpu *rts,
			    const struct prism_paddr *to)
{
	struct prism_udp_rts *r;
	struct dst_entry *dst;
	int i, mtu;

	if (!rts)
		return -ENOENT;
	r = this_cpu_ptr(rts);
	for (i = 0; i < PRISM_UDP_RT_SLOTS; i++) {
		struct prism_udp_rt *c = &r->slot[i];

		if (!prism_udp_rt_match(c, to, 0))
			continue;
		dst = prism_udp_rt_valid(c);
		if (!dst)
			continue;
		mtu = dst_mtu(dst);
		dst_release(dst);
		return mtu;
	}
	return -ENOENT;
}

static struct prism_udp_rts __percpu *prism_udp_rts_alloc(void)
{
	return alloc_percpu_gfp(struct prism_udp_rts,
				GFP_KERNEL_ACCOUNT | __GFP_ZERO);
}

static void prism_udp_rts_free(struct prism_udp_rts __percpu *rts)
{
	int cpu, i;

	if (!rts)
		return;
	for_each_possible_cpu(cpu)
		for (i = 0; i < PRISM_UDP_RT_SLOTS; i++)
			dst_release(per_cpu_ptr(rts, cpu)->slot[i].dst);
	free_percpu(rts);
}

/*
 * The socket's encapsulation hook: skb->data is at the UDP header, the
 * length and checksum checked.  Returns 0: the datagram is consumed.
 */
static int prism_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	if (!READ_ONCE(prism_udp_live) ||
	    !pskb_may_pull(skb, sizeof(struct udphdr))) {
		prism_stat_add(sock_net(sk), NULL, PRISM_STAT_RX_DROPPED, 1);
		kfree_skb(skb);
		return 0;
	}
	__skb_pull(skb, sizeof(struct udphdr));
	/*
	 * The input route may be a reference valid only in this softirq,
	 * and the frame may be steered to another CPU (steer.c).
	 */
	skb_dst_drop(skb);
	prism_link_rcv(skb);
	return 0;
}

/*
 * ICMP errors about datagrams this socket sent (their source port is not
 * the socket's) are for it: Path MTU updates reach the route.
 */
static int prism_udp_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return 0;
}

static struct socket *prism_udp_sock_open(struct net *net, int family)
{
	struct sockaddr_in6 a6 = {
		.sin6_family	= AF_INET6,
		.sin6_port	= htons(prism_udp_port),
	};
	struct sockaddr_in a4 = {
		.sin_family	= AF_INET,
		.sin_port	= htons(prism_udp_port),
	};
	struct socket *sock;
	struct sock *sk;
	int err;

	err = sock_create_kern(net, family, SOCK_DGRAM, IPPROTO_UDP, &sock);
	if (err)
		return ERR_PTR(err);
	sk = sock->sk;
	if (family == AF_INET6) {
		/* The IPv4 socket has the port for IPv4. */
		err = ip6_sock_set_v6only(sk);
		if (!err)
			err = kernel_bind(sock, (struct sockaddr *)&a6,
					  sizeof(a6));
	} else {
		err = kernel_bind(sock, (struct sockaddr *)&a4, sizeof(a4));
	}
	if (err) {
		sock_release(sock);
		return ERR_PTR(err);
	}
	udp_sk(sk)->encap_type = 1;
	udp_sk(sk)->encap_err_lookup = prism_udp_err_lookup;
	/* Last: datagrams go to the hook from here. */
	WRITE_ONCE(udp_sk(sk)->encap_rcv, prism_udp_encap_rcv);
	udp_tunnel_encap_enable(sk);
	return sock;
}

/**
 * prism_udp_open() - open the UDP sockets of a network namespace
 * @net: the namespace
 *
 * Binds UDP port udp_port on every address of the namespace, IPv4 and (if
 * the namespace has it) IPv6, unless done already.  They stay open until
 * the namespace goes or the module is unloaded.
 *
 * Context: Process context, may sleep.
 * Return: 0, or the errno of socket creation or bind() (-EADDRINUSE if
 * another socket has the port).
 */
int prism_udp_open(struct net *net)
{
	struct prism_net *pn = prism_pernet(net);
	struct prism_udp_rts __percpu *rts;
	struct socket *s4, *s6;
	int err = 0;

	mutex_lock(&prism_udp_mutex);
	if (rcu_access_pointer(pn->udp4))
		goto out;
	rts = prism_udp_rts_alloc();
	if (!rts) {
		err = -ENOMEM;
		goto out;
	}
	s4 = prism_udp_sock_open(net, AF_INET);
	if (IS_ERR(s4)) {
		free_percpu(rts);
		err = PTR_ERR(s4);
		pr_warn_ratelimited("cannot bind UDP port %u: %d\n",
				    prism_udp_port, err);
		goto out;
	}
	s6 = NULL;
	if (IS_ENABLED(CONFIG_IPV6) && ipv6_mod_enabled()) {
		s6 = prism_udp_sock_open(net, AF_INET6);
		if (IS_ERR(s6)) {
			err = PTR_ERR(s6);
			pr_warn_ratelimited("cannot bind UDP port %u on IPv6: %d\n",
					    prism_udp_port, err);
			sock_release(s4);
			free_percpu(rts);
			goto out;
		}
	}
	WRITE_ONCE(pn->udp_rt, rts);
	rcu_assign_pointer(pn->udp6, s6);
	rcu_assign_pointer(pn->udp4, s4);
out:
	mutex_unlock(&prism_udp_mutex);
	return err;
}

static void prism_udp_sock_close(struct socket *sock)
{
	if (!sock)
		return;
	WRITE_ONCE(udp_sk(sock->sk)->encap_rcv, NULL);
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}

/**
 * prism_udp_close() - close the UDP sockets of a network namespace
 * @net: the namespace, going away (no PRISM socket is left in it)
 *
 * Context: Process context, may sleep (waits for an RCU grace period:
 * senders and receivers using the sockets are done).
 */
void prism_udp_close(struct net *net)
{
	struct prism_net *pn = prism_pernet(net);
	struct prism_udp_rts __percpu *rts;
	struct socket *s4, *s6;

	mutex_lock(&prism_udp_mutex);
	s4 = rcu_replace_pointer(pn->udp4, NULL,
				 lockdep_is_held(&prism_udp_mutex));
	s6 = rcu_replace_pointer(pn->udp6, NULL,
				 lockdep_is_held(&prism_udp_mutex));
	rts = pn->udp_rt;
	WRITE_ONCE(pn->udp_rt, NULL);
	mutex_unlock(&prism_udp_mutex);
	if (!s4 && !s6)
		return;
	synchronize_rcu();
	prism_udp_rts_free(rts);
	prism_udp_sock_close(s4);
	prism_udp_sock_close(s6);
}

/**
 * prism_udp_sport() - the UDP source port of a frame
 * @src_ep: its source endpoint id
 * @session: its session value (the client socket's)
 * @dst_ep: its destination endpoint id
 *
 * The same for every frame of one direction of a session, so that it
 * stays on one path and receive queue; spread over 49152..65535 across
 * sessions (a hash, seeded per module load).
 *
 * Context: Any context.
 * Return: the port, network order.
 */
__be16 prism_udp_sport(u32 src_ep, u32 session, u32 dst_ep)
{
	u32 hash = jhash_3words(src_ep, session, dst_ep, prism_udp_seed);

	return htons(49152 + reciprocal_scale(hash, 16384));
}
EXPORT_SYMBOL_IF_KUNIT(prism_udp_sport);

static __be16 prism_udp_sport_of(const struct sk_buff *skb)
{
	const struct prism_whdr *hdr = (const struct prism_whdr *)skb->data;

	return prism_udp_sport(ntohl(hdr->src_ep), ntohl(hdr->session),
			       ntohl(hdr->dst_ep));
}

static struct udphdr *prism_udp_push(struct sk_buff *skb, __be16 sport,
				     __be16 dport)
{
	struct udphdr *uh;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = sport;
	uh->dest = dport;
	uh->len = htons(skb->len);
	uh->check = 0;
	return uh;
}

/* BHs off. */
static bool prism_udp4_xmit(struct net *net, struct sock *sk,
			    struct prism_udp_rts __percpu *rts,
			    struct sk_buff *skb, const struct prism_paddr *to)
{
	__be16 sport = prism_udp_sport_of(skb);
	struct flowi4 fl4 = {
		.daddr		= to->ip4,
		.saddr		= to->local4,
		.flowi4_proto	= IPPROTO_UDP,
		.fl4_sport	= sport,
		.fl4_dport	= to->port,
	};
	struct dst_entry *dst;
	struct rtable *rt;

	dst = prism_udp_rt_get(rts, to, sport, &fl4.saddr);
	if (dst) {
		rt = container_of(dst, struct rtable, dst);
	} else {
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt))
			return false;
		prism_udp_rt_set(rts, to, sport, &rt->dst, 0, &fl4.saddr);
	}
	prism_udp_push(skb, sport, to->port);
	udp_set_csum(false, skb, fl4.saddr, fl4.daddr, skb->len);
	/* Not a tunnel device: iptunnel_xmit() counts for skb->dev. */
	skb->dev = NULL;
	/* Don't fragment: the path MTU (prism_udp_mtu()) sizes frames. */
	iptunnel_xmit(sk, rt, skb, fl4.saddr, fl4.daddr, IPPROTO_UDP, 0,
		      ip4_dst_hoplimit(&rt->dst), htons(IP_DF), false);
	return true;
}

/* BHs off. */
static bool prism_udp6_xmit(struct net *net, struct sock *sk,
			    struct prism_udp_rts __percpu *rts,
			    struct sk_buff *skb, const struct prism_paddr *to)
{
#if IS_ENABLED(CONFIG_IPV6)
	__be16 sport = prism_udp_sport_of(skb);
	struct flowi6 fl6 = {
		.daddr		= to->ip6,
		.saddr		= to->local6,
		.flowi6_oif	= to->ifindex,
		.flowi6_proto	= IPPROTO_UDP,
		.fl6_sport	= sport,
		.fl6_dport	= to->port,
	};
	struct dst_entry *dst;
	struct rt6_info *rt6;

	dst = prism_udp_rt_get(rts, to, sport, &fl6.saddr);
	if (!dst) {
		dst = ip6_dst_lookup_flow(net, sk, &fl6, NULL);
		if (IS_ERR(dst))
			return false;
		rt6 = container_of(dst, struct rt6_info, dst);
		prism_udp_rt_set(rts, to, sport, dst, rt6_get_cookie(rt6),
				 &fl6.saddr);
	}
	prism_udp_push(skb, sport, to->port);
	udp6_set_csum(false, skb, &fl6.saddr, &fl6.daddr, skb->len);
	skb_dst_set(skb, dst);
	/* A frame above the path MTU is dropped there, never fragmented. */
	ip6_xmit(sk, skb, &fl6, 0, NULL, 0, skb->priority);
	return true;
#else
	return false;
#endif
}

/**
 * prism_udp_xmit() - send a PRISM frame in a UDP datagram
 * @net: network namespace it leaves from
 * @skb: frame whose data is a complete PRISM header and body; consumed
 * @to: the peer (address and port) and our address towards it (none: the
 *      route's source address)
 *
 * A frame that has no socket (the namespace never bound a UDP endpoint) or
 * no route is dropped (tx_dropped).
 *
 * Context: Process context or softirq (prism_link_xmit()).
 */
void prism_udp_xmit(struct net *net, struct sk_buff *skb,
		    const struct prism_paddr *to)
{
	struct prism_net *pn = prism_pernet(net);
	struct socket *sock;
	bool sent = false;

	rcu_read_lock();
	/* The route cache is per CPU; BHs are off in softirq already. */
	local_bh_disable();
	sock = to->kind == PRISM_LINK_UDP4 ? rcu_dereference(pn->udp4) :
					     rcu_dereference(pn->udp6);
	if (sock) {
		/* Set before the socket was published (prism_udp_open()). */
		struct prism_udp_rts __percpu *rts = READ_ONCE(pn->udp_rt);

		if (to->kind == PRISM_LINK_UDP4)
			sent = prism_udp4_xmit(net, sock->sk, rts, skb, to);
		else
			sent = prism_udp6_xmit(net, sock->sk, rts, skb, to);
	}
	local_bh_enable();
	rcu_read_unlock();
	if (!sent) {
		prism_stat_add(net, NULL, PRISM_STAT_TX_DROPPED, 1);
		kfree_skb(skb);
	}
}

/**
 * prism_udp_mtu() - the largest PRISM frame the path to a peer carries
 * @net: network namespace
 * @to: the peer
 *
 * Context: Process context or softirq.
 * Return: the path MTU of the route to @to less the IP and UDP headers, or
 * -ENETUNREACH if there is no route.
 */
int prism_udp_mtu(struct net *net, const struct prism_paddr *to)
{
	struct prism_net *pn = prism_pernet(net);
	int mtu = -ENETUNREACH;

	/* A route a frame to @to took lately, most of the time. */
	rcu_read_lock();
	local_bh_disable();
	if (rcu_dereference(pn->udp4))
		mtu = prism_udp_rt_mtu(READ_ONCE(pn->udp_rt), to);
	local_bh_enable();
	rcu_read_unlock();
	if (mtu > 0)
		return mtu - (to->kind == PRISM_LINK_UDP4 ?
			      PRISM_UDP4_OVERHEAD : PRISM_UDP6_OVERHEAD);
	mtu = -ENETUNREACH;

	if (to->kind == PRISM_LINK_UDP4) {
		struct flowi4 fl4 = {
			.daddr		= to->ip4,
			.saddr		= to->local4,
			.flowi4_proto	= IPPROTO_UDP,
			.fl4_dport	= to->port,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return mtu;
		mtu = dst_mtu(&rt->dst) - PRISM_UDP4_OVERHEAD;
		ip_rt_put(rt);
		return mtu;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (to->kind == PRISM_LINK_UDP6) {
		struct flowi6 fl6 = {
			.daddr		= to->ip6,
			.saddr		= to->local6,
			.flowi6_oif	= to->ifindex,
			.flowi6_proto	= IPPROTO_UDP,
			.fl6_dport	= to->port,
		};
		struct dst_entry *dst = ip6_dst_lookup_flow(net, NULL, &fl6,
							    NULL);

		if (IS_ERR(dst))
			return mtu;
		mtu = dst_mtu(dst) - PRISM_UDP6_OVERHEAD;
		dst_release(dst);
	}
#endif
	return mtu;
}

/**
 * prism_udp_init() - check udp_port and start handing up datagrams
 *
 * Context: Process context, module init.
 * Return: 0, or -EINVAL if udp_port is 0.
 */
int prism_udp_init(void)
{
	if (!udp_port) {
		pr_err("udp_port=0: PRISM needs a fixed UDP port\n");
		return -EINVAL;
	}
	prism_udp_port = udp_port;
	prism_udp_seed = get_random_u32();
	WRITE_ONCE(prism_udp_live, true);
	return 0;
}

/**
 * prism_udp_exit() - stop handing up datagrams
 *
 * Datagrams still arriving before the namespaces close their sockets are
 * dropped.
 *
 * Context: Process context, may sleep; module exit, before the receive
 * path is torn down (prism_dev_exit()).
 */
void prism_udp_exit(void)
{
	WRITE_ONCE(prism_udp_live, false);
	/* Receivers already past the check are done after this. */
	synchronize_rcu();
}
