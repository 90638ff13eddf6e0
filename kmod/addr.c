// SPDX-License-Identifier: GPL-2.0
/*
 * Socket addresses: what bind() binds a socket to (an interface for raw
 * Ethernet, a local IP address or any for UDP), what getsockname()
 * reports, and the peer a sendmsg() destination names.  Parsing and
 * checks only; the endpoint table is af_prism.c's.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/capability.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/sock.h>
#include <kunit/visibility.h>
#include "prism_net.h"

/* bind() to an interface: raw Ethernet frames. */
static int prism_bind_eth(struct net *net, const struct sockaddr_prism *addr,
			  struct prism_bind_link *b)
{
	struct net_device *dev;
	int err = 0;

	if (addr->sprism_ifindex <= 0)
		return -EINVAL;
	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, addr->sprism_ifindex);
	/* Frames are Ethernet frames: no tunnels, IPoIB or loopback. */
	if (dev && (dev->type != ARPHRD_ETHER || dev->addr_len != ETH_ALEN))
		err = -EINVAL;
	rcu_read_unlock();
	if (!dev)
		return -ENODEV;
	b->kind = PRISM_ADDR_ETH;
	b->ifindex = addr->sprism_ifindex;
	return err;
}

/* bind() to an IP address or any: UDP. */
static int prism_bind_udp(struct net *net, const struct sockaddr_prism_udp *addr,
			  struct prism_bind_link *b)
{
	struct prism_paddr *l = &b->laddr;
	__be32 ip4;

	if (addr->sprism_ifindex ||
	    (addr->sprism_port && ntohs(addr->sprism_port) != prism_udp_port))
		return -EINVAL;
	prism_paddr_zero(l);
	switch (addr->sprism_ipfamily) {
	case 0:
		if (memchr_inv(addr->sprism_ip, 0, sizeof(addr->sprism_ip)))
			return -EINVAL;
		break;
	case AF_INET:
		memcpy(&ip4, addr->sprism_ip, sizeof(ip4));
		if (memchr_inv(addr->sprism_ip + 4, 0, 12))
			return -EINVAL;
		if (ip4 && inet_addr_type(net, ip4) != RTN_LOCAL)
			return -EADDRNOTAVAIL;
		l->kind = ip4 ? PRISM_LINK_UDP4 : PRISM_LINK_NONE;
		l->local4 = ip4;
		break;
	case AF_INET6:
		memcpy(&l->local6, addr->sprism_ip, sizeof(l->local6));
		if (ipv6_addr_any(&l->local6))
			break;
		if (!IS_ENABLED(CONFIG_IPV6) ||
		    !ipv6_chk_addr(net, &l->local6, NULL, 0))
			return -EADDRNOTAVAIL;
		l->kind = PRISM_LINK_UDP6;
		break;
	default:
		return -EAFNOSUPPORT;
	}
	b->kind = PRISM_ADDR_UDP;
	b->ifindex = 0;
	/* The namespace's sockets on udp_port, if not open yet. */
	return prism_udp_open(net);
}

/**
 * prism_bind_addr() - check what a bind() binds to
 * @sk: the socket (not locked)
 * @uaddr: the address, a &struct sockaddr_prism (sprism_kind
 *         PRISM_ADDR_ETH) or &struct sockaddr_prism_udp (PRISM_ADDR_UDP)
 * @addr_len: its length
 * @b: receives the link, the local address and the endpoint id
 *
 * Everything bind() checks before it takes the socket lock: the family
 * and length, the right to a well-known endpoint id, the interface or the
 * local IP address.  Binding to UDP opens the namespace's UDP sockets.
 *
 * Context: Process context, may sleep.
 * Return: 0; -EINVAL for a malformed address, -EAFNOSUPPORT for another
 * family, -EACCES for an id below PRISM_EP_PRIVILEGED without
 * CAP_NET_BIND_SERVICE, -ENODEV for no such interface, -EADDRNOTAVAIL for
 * an IP address that is not the namespace's, or prism_udp_open()'s errno.
 */
int prism_bind_addr(struct sock *sk, const struct sockaddr *uaddr,
		    int addr_len, struct prism_bind_link *b)
{
	const struct sockaddr_prism *addr = (const struct sockaddr_prism *)uaddr;
	struct net *net = sock_net(sk);

	if (addr_len < (int)offsetofend(struct sockaddr_prism, sprism_kind))
		return -EINVAL;
	if (addr->sprism_family != sk->sk_family)
		return -EAFNOSUPPORT;
	if (addr->sprism_kind > PRISM_ADDR_UDP ||
	    addr_len < (int)(addr->sprism_kind == PRISM_ADDR_UDP ?
			     sizeof(struct sockaddr_prism_udp) : sizeof(*addr)))
		return -EINVAL;

	b->ep = addr->sprism_ep;
	/* Like ports below 1024: well-known ids are for the privileged. */
	if (b->ep && b->ep < PRISM_EP_PRIVILEGED &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	if (addr->sprism_kind == PRISM_ADDR_UDP)
		return prism_bind_udp(net, (const struct sockaddr_prism_udp *)
				      uaddr, b);
	return prism_bind_eth(net, addr, b);
}

/**
 * prism_getname() - getsockname() of a PRISM socket
 * @sock: the socket
 * @uaddr: receives the address
 * @peer: getpeername(): not supported (no connections)
 *
 * A socket bound to an interface reports a &struct sockaddr_prism with
 * the interface's MAC; one bound for UDP a &struct sockaddr_prism_udp
 * with its local address (family 0 when bound to any) and udp_port.  An
 * unbound socket reports only its family.
 *
 * Context: Process context; takes the socket lock.
 * Return: the length of the address, or -EOPNOTSUPP for @peer.
 */
int prism_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_prism *addr = (struct sockaddr_prism *)uaddr;
	struct prism_sock *psk = prism_sk(sock->sk);
	struct prism_paddr pa;
	struct net_device *dev;
	int len = sizeof(*addr);

	if (peer)
		return -EOPNOTSUPP;
	memset(addr, 0, sizeof(*addr));
	addr->sprism_family = sock->sk->sk_family;
	lock_sock(sock->sk);
	if (psk->bound && psk->kind == PRISM_ADDR_UDP) {
		/* The bound address, and the port it listens on. */
		pa = psk->laddr;
		if (pa.kind == PRISM_LINK_UDP4)
			pa.ip4 = pa.local4;
		else
			pa.ip6 = pa.local6;
		len = prism_paddr_sockaddr(&pa, psk->ep, sock->sk->sk_family,
					   uaddr);
		if (pa.kind == PRISM_LINK_NONE)
			((struct sockaddr_prism_udp *)uaddr)->sprism_ipfamily = 0;
		((struct sockaddr_prism_udp *)uaddr)->sprism_port =
			htons(prism_udp_port);
	} else if (psk->bound) {
		addr->sprism_ifindex = psk->ifindex;
		addr->sprism_ep = psk->ep;
		rcu_read_lock();
		dev = dev_get_by_index_rcu(sock_net(sock->sk), psk->ifindex);
		if (dev && dev->addr_len == ETH_ALEN)
			ether_addr_copy(addr->sprism_mac, dev->dev_addr);
		rcu_read_unlock();
	}
	release_sock(sock->sk);
	return len;
}

/* The peer of a UDP destination: an IPv4 or IPv6 unicast address. */
static int prism_dst_udp(const struct sockaddr_prism_udp *su,
			 struct prism_paddr *pa)
{
	pa->port = su->sprism_port ?: htons(prism_udp_port);
	if (su->sprism_ipfamily == AF_INET6 &&
	    ipv6_addr_v4mapped((const struct in6_addr *)su->sprism_ip)) {
		/* ::ffff:a.b.c.d is IPv4 a.b.c.d */
		pa->kind = PRISM_LINK_UDP4;
		memcpy(&pa->ip4, su->sprism_ip + 12, sizeof(pa->ip4));
	} else if (su->sprism_ipfamily == AF_INET) {
		pa->kind = PRISM_LINK_UDP4;
		memcpy(&pa->ip4, su->sprism_ip, sizeof(pa->ip4));
		if (memchr_inv(su->sprism_ip + 4, 0, 12))
			return -EINVAL;
	} else if (su->sprism_ipfamily == AF_INET6) {
		pa->kind = PRISM_LINK_UDP6;
		memcpy(&pa->ip6, su->sprism_ip, sizeof(pa->ip6));
		if (__ipv6_addr_needs_scope_id(ipv6_addr_type(&pa->ip6))) {
			/* A link-local address names its interface. */
			if (su->sprism_ifindex <= 0)
				return -EINVAL;
			pa->ifindex = su->sprism_ifindex;
		}
	} else {
		return -EAFNOSUPPORT;
	}
	if (pa->kind == PRISM_LINK_UDP4 ?
	    ipv4_is_multicast(pa->ip4) || ipv4_is_lbcast(pa->ip4) ||
	    ipv4_is_zeronet(pa->ip4) :
	    ipv6_addr_any(&pa->ip6) || ipv6_addr_is_multicast(&pa->ip6))
		return -EINVAL;
	return 0;
}

/**
 * prism_dst_addr() - the peer a sendmsg() destination names
 * @psk: the sending socket, bound
 * @name: the destination, of the socket's kind: a &struct sockaddr_prism
 *        or a &struct sockaddr_prism_udp; its family checked by the caller
 * @len: its length, at least sizeof(struct sockaddr_prism) (the caller
 *       checked)
 * @pa: receives the peer's link address, and for UDP the socket's bound
 *      address as the local one (none when bound to any)
 * @ep: receives the destination endpoint id
 *
 * Context: Any context.
 * Return: 0; -EINVAL for a malformed address (too short, unknown kind, id
 * 0, a multicast, broadcast or unspecified peer, a link-local IPv6 peer
 * without its interface); -EAFNOSUPPORT for a destination of the other
 * kind, an unknown IP family, or an IP family other than the bound
 * address's.
 */
int prism_dst_addr(const struct prism_sock *psk, const void *name, int len,
		   struct prism_paddr *pa, u32 *ep)
{
	const struct sockaddr_prism_udp *su = name;
	const struct sockaddr_prism *se = name;
	const struct prism_paddr *l = &psk->laddr;
	int err;

	if (se->sprism_kind != psk->kind)
		return se->sprism_kind > PRISM_ADDR_UDP ? -EINVAL : -EAFNOSUPPORT;
	prism_paddr_zero(pa);
	if (psk->kind == PRISM_ADDR_ETH) {
		if (len < (int)sizeof(*se) || !is_valid_ether_addr(se->sprism_mac))
			return -EINVAL;
		pa->kind = PRISM_LINK_ETH;
		pa->ifindex = psk->ifindex;
		ether_addr_copy(pa->mac, se->sprism_mac);
		*ep = se->sprism_ep;
		return *ep ? 0 : -EINVAL;
	}
	if (len < (int)sizeof(*su))
		return -EINVAL;
	*ep = su->sprism_ep;
	err = prism_dst_udp(su, pa);
	if (err)
		return err;
	/* Sent from the bound address: it must be of the target's family. */
	if (l->kind != PRISM_LINK_NONE && l->kind != pa->kind)
		return -EAFNOSUPPORT;
	if (l->kind == PRISM_LINK_UDP4)
		pa->local4 = l->local4;
	else if (l->kind == PRISM_LINK_UDP6)
		pa->local6 = l->local6;
	return *ep ? 0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(prism_dst_addr);
