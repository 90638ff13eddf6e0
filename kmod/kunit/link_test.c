// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of link.c and udp.c: the sender's link address read back
 * from a received Ethernet frame or UDP datagram over IPv4 and IPv6, the
 * socket address userspace gets for either, and UDP source ports.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include "../prism_net.h"
#include "../link.h"

#define T_IFINDEX	7

static struct net_device t_dev = { .ifindex = T_IFINDEX };

enum t_kind { T_ETH, T_UDP4, T_UDP6, T_UDP6_LL };

/*
 * A received frame as dev.c or udp.c hand it up: link headers in the
 * buffer, skb->data at the PRISM header (8 bytes stand for it here).
 */
static struct sk_buff *t_frame(struct kunit *test, enum t_kind kind)
{
	static const u8 src_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0x01, 0x0a };
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);
	struct ipv6hdr *ip6;
	struct udphdr *uh;
	struct ethhdr *eh;
	struct iphdr *ip;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 128);
	skb_put_zero(skb, 8);
	skb->dev = &t_dev;
	if (kind == T_ETH) {
		eh = skb_push(skb, sizeof(*eh));
		skb_reset_mac_header(skb);
		memset(eh, 0, sizeof(*eh));
		ether_addr_copy(eh->h_source, src_mac);
		skb_pull(skb, sizeof(*eh));
		skb->protocol = htons(PRISM_DEFAULT_ETHERTYPE);
		return skb;
	}
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(50000);
	uh->dest = htons(4795);
	if (kind == T_UDP4) {
		ip = skb_push(skb, sizeof(*ip));
		skb_reset_network_header(skb);
		memset(ip, 0, sizeof(*ip));
		ip->saddr = htonl(0x0a4d0202);	/* 10.77.2.2 */
		ip->daddr = htonl(0x0a4d0101);	/* 10.77.1.1 */
		skb->protocol = htons(ETH_P_IP);
	} else {
		ip6 = skb_push(skb, sizeof(*ip6));
		skb_reset_network_header(skb);
		memset(ip6, 0, sizeof(*ip6));
		ip6->saddr.s6_addr32[0] = kind == T_UDP6_LL ? htonl(0xfe800000) :
							   htonl(0xfd770002);
		ip6->saddr.s6_addr32[3] = htonl(3);
		ip6->daddr.s6_addr32[0] = htonl(0xfd770001);
		ip6->daddr.s6_addr32[3] = htonl(1);
		skb->protocol = htons(ETH_P_IPV6);
	}
	skb_pull(skb, skb_transport_offset(skb) + sizeof(*uh));
	return skb;
}

struct t_src_case {
	const char	*desc;
	enum t_kind	kind;
	u8		link;		/* &enum prism_link expected */
	int		ifindex;
	u16		port;
	u32		first;		/* first word of the sender's address */
};

/*
 * UDP: the peer listens on the port it sent to (4795), not on its source
 * port; only a link-local IPv6 sender is scoped to the interface.
 */
static const struct t_src_case t_src_cases[] = {
	{ "Ethernet frame", T_ETH, PRISM_LINK_ETH, T_IFINDEX, 0, 0 },
	{ "IPv4 datagram", T_UDP4, PRISM_LINK_UDP4, 0, 4795, 0x0a4d0202 },
	{ "IPv6 datagram, global source", T_UDP6, PRISM_LINK_UDP6, 0, 4795,
	  0xfd770002 },
	{ "IPv6 datagram, link-local source", T_UDP6_LL, PRISM_LINK_UDP6,
	  T_IFINDEX, 4795, 0xfe800000 },
};

static void t_src_desc(const struct t_src_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_src, t_src_cases, t_src_desc);

static void src_of_frame(struct kunit *test)
{
	const struct t_src_case *c = test->param_value;
	struct sk_buff *skb = t_frame(test, c->kind);
	struct prism_paddr pa;

	prism_link_src(skb, &pa);
	KUNIT_EXPECT_EQ(test, pa.kind, c->link);
	KUNIT_EXPECT_EQ(test, pa.ifindex, c->ifindex);
	KUNIT_EXPECT_EQ(test, ntohs(pa.port), c->port);
	if (c->link == PRISM_LINK_ETH) {
		KUNIT_EXPECT_EQ(test, pa.mac[5], 0x0a);
	} else if (c->link == PRISM_LINK_UDP4) {
		KUNIT_EXPECT_EQ(test, ntohl(pa.ip4), c->first);
		KUNIT_EXPECT_EQ(test, ntohl(pa.local4), 0x0a4d0101);
	} else {
		KUNIT_EXPECT_EQ(test, ntohl(pa.ip6.s6_addr32[0]), c->first);
		KUNIT_EXPECT_EQ(test, ntohl(pa.local6.s6_addr32[0]), 0xfd770001);
	}
	kfree_skb(skb);
}

/* What recvmsg() gets as the sender of each kind. */
static void sockaddr_of_each_kind(struct kunit *test)
{
	union {
		struct sockaddr_prism		eth;
		struct sockaddr_prism_udp	udp;
	} sa;
	struct sk_buff *skb;
	struct prism_paddr pa;

	skb = t_frame(test, T_ETH);
	prism_link_src(skb, &pa);
	KUNIT_EXPECT_EQ(test, prism_paddr_sockaddr(&pa, 9, 25, &sa),
			(int)sizeof(sa.eth));
	KUNIT_EXPECT_EQ(test, sa.eth.sprism_family, 25);
	KUNIT_EXPECT_EQ(test, sa.eth.sprism_kind, PRISM_ADDR_ETH);
	KUNIT_EXPECT_EQ(test, sa.eth.sprism_ep, 9);
	KUNIT_EXPECT_EQ(test, sa.eth.sprism_ifindex, T_IFINDEX);
	KUNIT_EXPECT_EQ(test, sa.eth.sprism_mac[5], 0x0a);
	kfree_skb(skb);

	skb = t_frame(test, T_UDP4);
	prism_link_src(skb, &pa);
	KUNIT_EXPECT_EQ(test, prism_paddr_sockaddr(&pa, 9, 25, &sa),
			(int)sizeof(sa.udp));
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_kind, PRISM_ADDR_UDP);
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_ipfamily, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohs(sa.udp.sprism_port), 4795);
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_ip[0], 10);
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_ip[3], 2);
	/* Nothing after the 4 bytes of IPv4 (no local address leaks). */
	KUNIT_EXPECT_NULL(test, memchr_inv(sa.udp.sprism_ip + 4, 0, 12));
	kfree_skb(skb);

	skb = t_frame(test, T_UDP6_LL);
	prism_link_src(skb, &pa);
	KUNIT_EXPECT_EQ(test, prism_paddr_sockaddr(&pa, 9, 25, &sa),
			(int)sizeof(sa.udp));
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_ipfamily, AF_INET6);
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_ifindex, T_IFINDEX);
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_ip[0], 0xfe);
	KUNIT_EXPECT_EQ(test, sa.udp.sprism_ip[15], 3);
	kfree_skb(skb);
}

#define T_SESSIONS	2048U

/*
 * One direction of a session keeps one source port, in 49152..65535;
 * sessions spread over the range.
 */
static void udp_sport_per_session(struct kunit *test)
{
	unsigned long *seen;
	unsigned int s, distinct = 0;
	u16 port;

	KUNIT_EXPECT_EQ(test, prism_udp_sport(5, 77, 1),
			prism_udp_sport(5, 77, 1));
	seen = kunit_kzalloc(test, BITS_TO_LONGS(16384) * sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (s = 0; s < T_SESSIONS; s++) {
		port = ntohs(prism_udp_sport(0x80000000 + s % 7, s * 2654435761U,
					     1));
		KUNIT_ASSERT_GE(test, port, 49152);
		if (!__test_and_set_bit(port - 49152, seen))
			distinct++;
	}
	/* 2048 hashes into 16384 ports: ~120 collide; far fewer is wrong. */
	KUNIT_EXPECT_GT(test, distinct, T_SESSIONS * 85 / 100);
}

static struct kunit_case link_test_cases[] = {
	KUNIT_CASE_PARAM(src_of_frame, t_src_gen_params),
	KUNIT_CASE(sockaddr_of_each_kind),
	KUNIT_CASE(udp_sport_per_session),
	{}
};

static struct kunit_suite link_test_suite = {
	.name = "prism_link",
	.test_cases = link_test_cases,
};

kunit_test_suite(link_test_suite);
