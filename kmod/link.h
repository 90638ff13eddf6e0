/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The link layer under PRISM: what carries a frame between two hosts.  The
 * transport (client.c, serve.c, rcache.c, seg.c ...) sees only a peer's
 * link address (&struct prism_paddr) and the calls below; link.c hands
 * them to the implementation of the address's kind: dev.c for raw
 * Ethernet, udp.c for UDP over IPv4 and IPv6.
 */
#ifndef _PRISM_LINK_H
#define _PRISM_LINK_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/string.h>

struct net;
struct prism_whdr;
struct prism_sock;

/* The kinds of &struct prism_paddr. */
enum prism_link {
	PRISM_LINK_NONE	= 0,	/* no address: a UDP socket bound to any */
	PRISM_LINK_ETH	= 1,	/* raw Ethernet, EtherType prism_ethertype */
	PRISM_LINK_UDP4	= 2,	/* UDP over IPv4 */
	PRISM_LINK_UDP6	= 3,	/* UDP over IPv6 */
};

/**
 * struct prism_paddr - the link address of a peer, and ours towards it
 * @kind: &enum prism_link
 * @zero: 0
 * @port: UDP: the peer's port
 * @ifindex: Ethernet: the interface; UDP6: the interface a link-local
 *           @ip6 is scoped to, else 0; UDP4: 0
 * @mac: Ethernet: the peer's MAC address
 * @ip4: UDP4: the peer's address
 * @ip6: UDP6: the peer's address
 * @local4: UDP4: our address the peer sent to or we send from (0: the
 *          route's choice)
 * @local6: UDP6: the same
 *
 * Everything up to @local4 names the peer (prism_paddr_equal(),
 * prism_paddr_hash()); the local address only picks the source of what we
 * send.  Build one with prism_paddr_zero() first: unused bytes are zero.
 */
struct prism_paddr {
	u8		kind;
	u8		zero;
	__be16		port;
	int		ifindex;
	union {
		u8		mac[ETH_ALEN];
		__be32		ip4;
		struct in6_addr	ip6;
	};
	union {
		__be32		local4;
		struct in6_addr	local6;
	};
};

/* Bytes of &struct prism_paddr that name the peer. */
#define PRISM_PADDR_PEER_LEN	offsetof(struct prism_paddr, local4)

static inline void prism_paddr_zero(struct prism_paddr *pa)
{
	memset(pa, 0, sizeof(*pa));
}

static inline bool prism_paddr_equal(const struct prism_paddr *a,
				     const struct prism_paddr *b)
{
	return !memcmp(a, b, PRISM_PADDR_PEER_LEN);
}

static inline u32 prism_paddr_hash(const struct prism_paddr *pa, u32 seed)
{
	return jhash(pa, PRISM_PADDR_PEER_LEN, seed);
}

/*
 * Headroom of a frame: an Ethernet header after IPv6 and UDP ones (64
 * bytes).  Not LL_MAX_HEADER (128 in distribution kernels): 176 bytes of
 * headroom put a 512-byte READ's answer in a 2 KiB buffer instead of
 * 1 KiB and a CAS's answer in 1 KiB instead of 512 B, which distribution
 * kernels zero whole (init_on_alloc).  Links that need
 * more make room when they send (skb_cow_head(), ip_finish_output2()).
 */
#define PRISM_FRAME_HEADROOM	ALIGN(ETH_HLEN + 40 + 8, 16)

/* link.c */
struct sk_buff *prism_alloc_frame(u32 len, gfp_t gfp);
void prism_link_xmit(struct net *net, struct sk_buff *skb,
		     const struct prism_paddr *to);
int prism_link_mtu(struct net *net, const struct prism_paddr *to);
void prism_link_src(const struct sk_buff *skb, struct prism_paddr *pa);
int prism_link_rcv(struct sk_buff *skb);
int prism_rcv_finish(struct sk_buff *skb);

/* dev.c: raw Ethernet */
void prism_eth_xmit(struct net *net, struct sk_buff *skb,
		    const struct prism_paddr *to);
int prism_eth_mtu(struct net *net, const struct prism_paddr *to);

/* udp.c: UDP over IPv4 and IPv6 */
extern u16 prism_udp_port;
int prism_udp_init(void);
void prism_udp_exit(void);
int prism_udp_open(struct net *net);
void prism_udp_close(struct net *net);
void prism_udp_xmit(struct net *net, struct sk_buff *skb,
		    const struct prism_paddr *to);
int prism_udp_mtu(struct net *net, const struct prism_paddr *to);
__be16 prism_udp_sport(u32 src_ep, u32 session, u32 dst_ep);

#endif /* _PRISM_LINK_H */
