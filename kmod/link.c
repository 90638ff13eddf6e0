// SPDX-License-Identifier: GPL-2.0
/*
 * The link layer under PRISM (link.h): frames allocated, sent and received
 * the same way whatever carries them.  Sending goes to dev.c (raw
 * Ethernet) or udp.c (UDP over IPv4/IPv6) by the kind of the peer's
 * address; a received frame, its link header removed by either, is checked
 * and handed to the target or client side here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/busy_poll.h>
#include <net/ipv6.h>
#include <kunit/visibility.h>
#include "prism_net.h"
#include "link.h"
#include "keyed.h"
#include "seg.h"
#include "steer.h"

/**
 * prism_alloc_frame() - allocate an skb for a PRISM frame
 * @len: bytes of PRISM header and body the caller will put
 * @gfp: allocation flags
 *
 * The skb is empty, with room reserved for the headers of any link
 * (PRISM_FRAME_HEADROOM); send it with prism_link_xmit().
 *
 * Context: Any context @gfp allows.
 * Return: the skb, or NULL if out of memory.
 */
struct sk_buff *prism_alloc_frame(u32 len, gfp_t gfp)
{
	struct sk_buff *skb;

	skb = alloc_skb(PRISM_FRAME_HEADROOM + len, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, PRISM_FRAME_HEADROOM);
	skb_reset_network_header(skb);
	return skb;
}

/**
 * prism_link_xmit() - send a PRISM frame to a peer
 * @net: network namespace the frame leaves from
 * @skb: frame whose data is a complete PRISM header and body; consumed
 * @to: the peer (and, for UDP, our address towards it)
 *
 * Queues the frame at skb->priority (0 unless the caller set it).  A frame
 * that cannot leave (interface gone or down, no route) is dropped and
 * counted in tx_dropped: like a frame lost on the way, the sender's
 * timers decide what happens next.
 *
 * Context: Process context or softirq; the caller keeps @net alive.
 */
void prism_link_xmit(struct net *net, struct sk_buff *skb,
		     const struct prism_paddr *to)
{
	switch (to->kind) {
	case PRISM_LINK_ETH:
		prism_eth_xmit(net, skb, to);
		return;
	case PRISM_LINK_UDP4:
	case PRISM_LINK_UDP6:
		prism_udp_xmit(net, skb, to);
		return;
	}
	prism_stat_add(net, NULL, PRISM_STAT_TX_DROPPED, 1);
	kfree_skb(skb);
}

/**
 * prism_link_mtu() - the largest frame the link to a peer carries
 * @net: network namespace
 * @to: the peer
 *
 * Context: Process context or softirq.
 * Return: bytes of PRISM header and body that fit in one frame to @to (the
 * interface MTU, or the path MTU less the IP and UDP headers), or
 * -ENETDOWN if the interface is gone or down, -ENETUNREACH if there is no
 * route to @to.
 */
int prism_link_mtu(struct net *net, const struct prism_paddr *to)
{
	switch (to->kind) {
	case PRISM_LINK_ETH:
		return prism_eth_mtu(net, to);
	case PRISM_LINK_UDP4:
	case PRISM_LINK_UDP6:
		return prism_udp_mtu(net, to);
	}
	return -ENETUNREACH;
}

/**
 * prism_link_src() - the link address of the sender of a received frame
 * @skb: a frame received by dev.c or udp.c (its link headers are still in
 *       the buffer, before skb->data)
 * @pa: receives the sender's address, and for UDP the address it was sent
 *      to as the local one
 *
 * Context: Softirq (the receive path).
 */
void prism_link_src(const struct sk_buff *skb, struct prism_paddr *pa)
{
	prism_paddr_zero(pa);
	/*
	 * UDP: the source port is entropy (udp.c); the peer listens on the
	 * port it sent to, as every host of a deployment uses one udp_port.
	 */
	switch (ntohs(skb->protocol)) {
	case ETH_P_IP:
		pa->kind = PRISM_LINK_UDP4;
		pa->port = udp_hdr(skb)->dest;
		pa->ip4 = ip_hdr(skb)->saddr;
		pa->local4 = ip_hdr(skb)->daddr;
		return;
	case ETH_P_IPV6:
		pa->kind = PRISM_LINK_UDP6;
		pa->port = udp_hdr(skb)->dest;
		pa->ip6 = ipv6_hdr(skb)->saddr;
		pa->local6 = ipv6_hdr(skb)->daddr;
		if (__ipv6_addr_needs_scope_id(ipv6_addr_type(&pa->ip6)))
			pa->ifindex = skb->dev->ifindex;
		return;
	}
	pa->kind = PRISM_LINK_ETH;
	pa->ifindex = skb->dev->ifindex;
	ether_addr_copy(pa->mac, eth_hdr(skb)->h_source);
}
EXPORT_SYMBOL_IF_KUNIT(prism_link_src);

/* A source no frame may come from: multicast, broadcast, unspecified. */
static bool prism_link_src_bogus(const struct prism_paddr *pa)
{
	switch (pa->kind) {
	case PRISM_LINK_UDP4:
		return ipv4_is_multicast(pa->ip4) || ipv4_is_lbcast(pa->ip4) ||
		       ipv4_is_zeronet(pa->ip4) || !pa->port;
	case PRISM_LINK_UDP6:
		return ipv6_addr_any(&pa->ip6) ||
		       ipv6_addr_is_multicast(&pa->ip6) || !pa->port;
	}
	return !is_valid_ether_addr(pa->mac);
}

/**
 * prism_stamp_age_us() - how long ago the stack stamped a received frame
 * @stamp: skb->tstamp of the frame (CLOCK_REALTIME, set on arrival in the
 *         receive queue when receive timestamps are on: module parameter
 *         cc_stamp, or any SO_TIMESTAMP user)
 *
 * Context: Any context.
 * Return: microseconds, at most 65535; 0 if @stamp is unset (then the
 * clock is not read) or not within the last second (a clock step).
 */
u32 prism_stamp_age_us(ktime_t stamp)
{
	s64 us;

	if (!stamp)
		return 0;
	us = ktime_us_delta(ktime_get_real(), stamp);
	if (us < 0 || us >= USEC_PER_SEC)
		return 0;
	return min_t(s64, us, U16_MAX);
}

/*
 * Hand a frame to the target or client side by its type and, for segments
 * and grants, the direction of their message.  -EINVAL: dropped here.
 */
static int prism_dispatch(struct net *net, struct sk_buff *skb,
			  const struct prism_whdr *hdr,
			  const struct prism_paddr *src)
{
	u32 body_len = ntohs(hdr->body_len);
	struct prism_sock *psk;
	u8 dir = 0;

	switch (hdr->type) {
	case PRISM_T_REQ:
	case PRISM_T_SREQ:
		if (hdr->status || hdr->delay)
			return -EINVAL;
		if (hdr->type == PRISM_T_REQ)
			prism_serve_request(net, skb, hdr, src);
		else
			prism_serve_sreq(net, skb, hdr, src);
		return 0;
	case PRISM_T_AREQ:
		if (hdr->status || hdr->delay)
			return -EINVAL;
		prism_serve_keyed(net, skb, hdr, src);
		return 0;
	case PRISM_T_SEG:
		if (body_len < sizeof(struct prism_wseg) || hdr->delay)
			return -EINVAL;
		dir = ((const struct prism_wseg *)(hdr + 1))->dir;
		break;
	case PRISM_T_GRANT:
		if (body_len != sizeof(struct prism_wgrant) || hdr->status ||
		    hdr->delay)
			return -EINVAL;
		dir = ((const struct prism_wgrant *)(hdr + 1))->dir;
		break;
	case PRISM_T_RESP:
	case PRISM_T_ARESP:
		break;
	default:
		return -EINVAL;
	}
	/* To the target: segments of requests, grants for answers. */
	if ((hdr->type == PRISM_T_SEG && dir == PRISM_SEG_REQ) ||
	    (hdr->type == PRISM_T_GRANT && dir == PRISM_SEG_RESP)) {
		if (hdr->type == PRISM_T_SEG)
			prism_serve_seg(net, skb, hdr, src);
		else
			prism_serve_grant(net, skb, hdr, src);
		return 0;
	}
	if (hdr->type != PRISM_T_RESP && hdr->type != PRISM_T_ARESP &&
	    dir != PRISM_SEG_REQ && dir != PRISM_SEG_RESP)
		return -EINVAL;
	psk = prism_frame_psk(net, src, hdr);
	if (!psk)
		return -EINVAL;
	/* What a receive with SO_BUSY_POLL set polls (skb_recv_datagram()). */
	sk_mark_napi_id(&psk->sk, skb);
	if (hdr->type == PRISM_T_RESP || hdr->type == PRISM_T_ARESP)
		prism_client_response(psk, skb, hdr, src);
	else if (hdr->type == PRISM_T_SEG)
		prism_client_seg(psk, skb, hdr, src);
	else
		prism_client_grant(psk, skb, hdr, src);
	return 0;
}

static int prism_rcv_drop(struct net *net, struct sk_buff *skb)
{
	prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* Dispatch a validated frame from src, then free it. */
static int prism_rcv_deliver(struct sk_buff *skb, const struct prism_paddr *src)
{
	const struct prism_whdr *hdr = (const struct prism_whdr *)skb->data;
	struct net *net = dev_net(skb->dev);
	int err;

	rcu_read_lock();
	err = prism_dispatch(net, skb, hdr, src);
	rcu_read_unlock();
	if (err)
		return prism_rcv_drop(net, skb);
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

/**
 * prism_rcv_finish() - hand a validated frame to the target or client side
 * @skb: frame checked by prism_link_rcv(): PRISM header and body in the
 *       linear part (a segment's payload may lie in fragments); consumed
 *
 * Reads the frame's sender from its headers: the steering queue
 * (steer.c) keeps only the skb.
 *
 * Context: Softirq, on the CPU of the frame's session (steer.c).
 * Return: NET_RX_SUCCESS, or NET_RX_DROP if the frame was dropped.
 */
int prism_rcv_finish(struct sk_buff *skb)
{
	struct prism_paddr src;

	prism_link_src(skb, &src);
	return prism_rcv_deliver(skb, &src);
}

/**
 * prism_link_rcv() - check a received PRISM frame and hand it up
 * @skb: the frame, its data at the PRISM header (the link headers pulled
 *       by dev.c or udp.c, still in the buffer); skb->dev is the receiving
 *       interface; consumed
 *
 * Drops (and counts in rx_dropped) what is not for this host, too short,
 * of another wire version, with a body longer than the frame, without ops
 * or with too many, or from a source no frame may come from.  Target-side
 * frames may be steered to the CPU of their session (steer.c).
 *
 * Context: Softirq (the receive path).
 * Return: NET_RX_SUCCESS, or NET_RX_DROP if the frame was dropped.
 */
int prism_link_rcv(struct sk_buff *skb)
{
	struct net *net = dev_net(skb->dev);
	const struct prism_whdr *hdr;
	struct prism_paddr src;
	u32 body_len;

	if (skb->pkt_type != PACKET_HOST)
		goto drop;
	if (!pskb_may_pull(skb, sizeof(*hdr)))
		goto drop;
	hdr = (const struct prism_whdr *)skb->data;
	/*
	 * The engine and the client parse a flat buffer; a segment's payload
	 * is copied out of the frame wherever it lies.
	 */
	if (hdr->type == PRISM_T_SEG ?
	    !pskb_may_pull(skb, sizeof(*hdr) + sizeof(struct prism_wseg)) :
	    skb_linearize(skb))
		goto drop;
	hdr = (const struct prism_whdr *)skb->data;
	body_len = ntohs(hdr->body_len);
	/* Ethernet pads short frames: the header says how much is ours. */
	if (hdr->version != PRISM_WIRE_VERSION ||
	    body_len > skb->len - sizeof(*hdr) ||
	    !hdr->nops || hdr->nops > PRISM_MAX_CHAIN)
		goto drop;
	prism_link_src(skb, &src);
	if (prism_link_src_bogus(&src))
		goto drop;
	/*
	 * Target-side frames run on the CPU of their session (steer.c),
	 * which reads their sender again there (prism_rcv_finish()).
	 */
	if (prism_steer_frame(skb, hdr, &src))
		return NET_RX_SUCCESS;
	return prism_rcv_deliver(skb, &src);

drop:
	return prism_rcv_drop(net, skb);
}

/**
 * prism_paddr_sockaddr() - the socket address of a peer, for userspace
 * @pa: the peer's link address
 * @ep: its endpoint id
 * @family: the address family of PRISM sockets
 * @out: receives a &struct sockaddr_prism (Ethernet) or &struct
 *       sockaddr_prism_udp (UDP); room for the larger
 *
 * Context: Any context.
 * Return: the length of the address written.
 */
int prism_paddr_sockaddr(const struct prism_paddr *pa, u32 ep, int family,
			 void *out)
{
	struct sockaddr_prism_udp *su = out;
	struct sockaddr_prism *se = out;

	BUILD_BUG_ON(sizeof(*su) < sizeof(*se));
	memset(out, 0, sizeof(*su));
	if (pa->kind == PRISM_LINK_ETH) {
		se->sprism_family = family;
		se->sprism_kind = PRISM_ADDR_ETH;
		se->sprism_ifindex = pa->ifindex;
		se->sprism_ep = ep;
		ether_addr_copy(se->sprism_mac, pa->mac);
		return sizeof(*se);
	}
	su->sprism_family = family;
	su->sprism_kind = PRISM_ADDR_UDP;
	su->sprism_ifindex = pa->ifindex;
	su->sprism_ep = ep;
	su->sprism_port = pa->port;
	if (pa->kind == PRISM_LINK_UDP4) {
		su->sprism_ipfamily = AF_INET;
		memcpy(su->sprism_ip, &pa->ip4, sizeof(pa->ip4));
	} else {
		su->sprism_ipfamily = AF_INET6;
		memcpy(su->sprism_ip, &pa->ip6, sizeof(pa->ip6));
	}
	return sizeof(*su);
}
EXPORT_SYMBOL_IF_KUNIT(prism_paddr_sockaddr);
