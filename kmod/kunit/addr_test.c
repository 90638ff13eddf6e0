// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of addr.c: the peer a sendmsg() destination names, for
 * sockets bound to an interface, to any address and to an IPv4 or IPv6
 * address; every refusal with its errno.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include "../prism_net.h"

#define T_IFINDEX	5
#define T_FAMILY	25

/* How the socket that sends is bound. */
enum t_bound { T_ETH, T_ANY, T_V4, T_V6 };

struct t_dst_case {
	const char	*desc;
	enum t_bound	bound;
	u16		kind;		/* sprism_kind */
	u16		ipfamily;
	const char	*ip;		/* text, parsed by in4_pton/in6_pton */
	int		ifindex;
	__be16		port;
	u32		ep;
	int		len;		/* 0: the size of the kind's sockaddr */
	int		err;
	u8		link;		/* expected pa.kind */
};

static const struct t_dst_case t_dst_cases[] = {
	/* interface-bound sockets: a MAC */
	{ "eth: unicast MAC", T_ETH, PRISM_ADDR_ETH, 0, NULL, 0, 0, 9, 0, 0, PRISM_LINK_ETH },
	{ "eth: endpoint 0", T_ETH, PRISM_ADDR_ETH, 0, NULL, 0, 0, 0, 0, -EINVAL },
	{ "eth: short address", T_ETH, PRISM_ADDR_ETH, 0, NULL, 0, 0, 9, 12, -EINVAL },
	{ "eth: a UDP destination", T_ETH, PRISM_ADDR_UDP, AF_INET, "10.1.0.2",
	  0, 0, 9, 0, -EAFNOSUPPORT },
	{ "eth: unknown kind", T_ETH, 7, 0, NULL, 0, 0, 9, 0, -EINVAL },
	/* sockets bound to any address: both families */
	{ "any: IPv4", T_ANY, PRISM_ADDR_UDP, AF_INET, "10.1.0.2", 0, 0, 9, 0, 0, PRISM_LINK_UDP4 },
	{ "any: IPv4, port given", T_ANY, PRISM_ADDR_UDP, AF_INET,
	  "10.1.0.2", 0, htons(5000), 9, 0, 0, PRISM_LINK_UDP4 },
	{ "any: IPv6", T_ANY, PRISM_ADDR_UDP, AF_INET6, "fd00::2", 0, 0, 9, 0, 0, PRISM_LINK_UDP6 },
	{ "any: v4-mapped IPv6 is IPv4", T_ANY, PRISM_ADDR_UDP, AF_INET6, "::ffff:10.1.0.2",
	  0, 0, 9, 0, 0, PRISM_LINK_UDP4 },
	{ "any: link-local with its interface", T_ANY, PRISM_ADDR_UDP, AF_INET6, "fe80::2",
	  T_IFINDEX, 0, 9, 0, 0, PRISM_LINK_UDP6 },
	{ "any: link-local without interface", T_ANY, PRISM_ADDR_UDP, AF_INET6, "fe80::2",
	  0, 0, 9, 0, -EINVAL },
	{ "any: IPv4 multicast", T_ANY, PRISM_ADDR_UDP, AF_INET, "224.0.0.1", 0, 0, 9, 0, -EINVAL },
	{ "any: IPv4 broadcast", T_ANY, PRISM_ADDR_UDP, AF_INET, "255.255.255.255",
	  0, 0, 9, 0, -EINVAL },
	{ "any: IPv4 0.0.0.0", T_ANY, PRISM_ADDR_UDP, AF_INET, "0.0.0.0", 0, 0, 9, 0, -EINVAL },
	{ "any: IPv6 ::", T_ANY, PRISM_ADDR_UDP, AF_INET6, "::", 0, 0, 9, 0, -EINVAL },
	{ "any: IPv6 multicast", T_ANY, PRISM_ADDR_UDP, AF_INET6, "ff02::1", 0, 0, 9, 0, -EINVAL },
	{ "any: unknown IP family", T_ANY, PRISM_ADDR_UDP, 99, "10.1.0.2",
	  0, 0, 9, 0, -EAFNOSUPPORT },
	{ "any: endpoint 0", T_ANY, PRISM_ADDR_UDP, AF_INET, "10.1.0.2", 0, 0, 0, 0, -EINVAL },
	{ "any: short address", T_ANY, PRISM_ADDR_UDP, AF_INET, "10.1.0.2", 0, 0, 9, 16, -EINVAL },
	{ "any: an Ethernet destination", T_ANY, PRISM_ADDR_ETH, 0, NULL,
	  0, 0, 9, 0, -EAFNOSUPPORT },
	/* sockets bound to one address: that family only */
	{ "v4-bound: IPv4", T_V4, PRISM_ADDR_UDP, AF_INET, "10.1.0.2",
	  0, 0, 9, 0, 0, PRISM_LINK_UDP4 },
	{ "v4-bound: IPv6", T_V4, PRISM_ADDR_UDP, AF_INET6, "fd00::2", 0, 0, 9, 0, -EAFNOSUPPORT },
	{ "v6-bound: IPv6", T_V6, PRISM_ADDR_UDP, AF_INET6, "fd00::2",
	  0, 0, 9, 0, 0, PRISM_LINK_UDP6 },
	{ "v6-bound: v4-mapped", T_V6, PRISM_ADDR_UDP, AF_INET6, "::ffff:10.1.0.2",
	  0, 0, 9, 0, -EAFNOSUPPORT },
};

static void t_dst_desc(const struct t_dst_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_dst, t_dst_cases, t_dst_desc);

static const u8 t_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0x05, 0x0b };
static const u8 t_local4[4] = { 10, 1, 0, 1 };
static const struct in6_addr t_local6 = {
	.s6_addr = { 0xfd, [15] = 1 },
};

static void t_bind(struct prism_sock *psk, enum t_bound bound)
{
	psk->kind = bound == T_ETH ? PRISM_ADDR_ETH : PRISM_ADDR_UDP;
	psk->ifindex = bound == T_ETH ? T_IFINDEX : 0;
	prism_paddr_zero(&psk->laddr);
	if (bound == T_V4) {
		psk->laddr.kind = PRISM_LINK_UDP4;
		memcpy(&psk->laddr.local4, t_local4, 4);
	} else if (bound == T_V6) {
		psk->laddr.kind = PRISM_LINK_UDP6;
		psk->laddr.local6 = t_local6;
	}
}

static void dst_addr_cases(struct kunit *test)
{
	const struct t_dst_case *c = test->param_value;
	struct sockaddr_prism_udp su = {};
	struct sockaddr_prism *se = (struct sockaddr_prism *)&su;
	struct prism_sock *psk;
	struct prism_paddr pa;
	u32 ep = 12345;
	int len, err;

	/* Only the fields prism_dst_addr() reads are set. */
	psk = kunit_kzalloc(test, sizeof(*psk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, psk);
	t_bind(psk, c->bound);

	su.sprism_family = T_FAMILY;
	su.sprism_kind = c->kind;
	if (c->kind != PRISM_ADDR_UDP) {	/* Ethernet, or an unknown kind */
		se->sprism_ep = c->ep;
		ether_addr_copy(se->sprism_mac, t_mac);
		len = sizeof(*se);
	} else {
		su.sprism_ep = c->ep;
		su.sprism_ipfamily = c->ipfamily;
		su.sprism_ifindex = c->ifindex;
		su.sprism_port = c->port;
		if (!strchr(c->ip, ':'))
			KUNIT_ASSERT_EQ(test, in4_pton(c->ip, -1, su.sprism_ip,
						       -1, NULL), 1);
		else
			KUNIT_ASSERT_EQ(test, in6_pton(c->ip, -1, su.sprism_ip,
						       -1, NULL), 1);
		len = sizeof(su);
	}
	if (c->len)
		len = c->len;

	err = prism_dst_addr(psk, &su, len, &pa, &ep);
	KUNIT_EXPECT_EQ(test, err, c->err);
	if (err)
		return;
	KUNIT_EXPECT_EQ(test, ep, c->ep);
	KUNIT_EXPECT_EQ(test, pa.kind, c->link);
	switch (pa.kind) {
	case PRISM_LINK_ETH:
		KUNIT_EXPECT_EQ(test, pa.ifindex, T_IFINDEX);
		KUNIT_EXPECT_TRUE(test, ether_addr_equal(pa.mac, t_mac));
		return;
	case PRISM_LINK_UDP4:
		/* v4-mapped or not, the IPv4 address alone, zero-padded */
		KUNIT_EXPECT_EQ(test, pa.ip4, htonl(0x0a010002));
		KUNIT_EXPECT_TRUE(test, ipv6_addr_any(&pa.local6) ||
				  c->bound == T_V4);
		if (c->bound == T_V4)
			KUNIT_EXPECT_EQ(test, pa.local4, htonl(0x0a010001));
		break;
	case PRISM_LINK_UDP6:
		KUNIT_EXPECT_EQ(test, pa.ifindex, c->ifindex);
		if (c->bound == T_V6)
			KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&pa.local6,
								&t_local6));
		else
			KUNIT_EXPECT_TRUE(test, ipv6_addr_any(&pa.local6));
		break;
	}
	/* Port 0 is the module's udp_port (the KUnit run loads the default). */
	KUNIT_EXPECT_EQ(test, ntohs(pa.port),
			c->port ? ntohs(c->port) : PRISM_DEFAULT_UDP_PORT);
}

/* Two destinations naming one peer give equal addresses (same session). */
static void dst_addr_mapped_equals_ipv4(struct kunit *test)
{
	struct sockaddr_prism_udp a = {
		.sprism_family = T_FAMILY, .sprism_kind = PRISM_ADDR_UDP,
		.sprism_ep = 9, .sprism_ipfamily = AF_INET,
		.sprism_ip = { 10, 1, 0, 2 },
	};
	struct sockaddr_prism_udp b = a;
	struct prism_paddr pa, pb;
	struct prism_sock *psk;
	u32 ep;

	psk = kunit_kzalloc(test, sizeof(*psk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, psk);
	t_bind(psk, T_ANY);
	b.sprism_ipfamily = AF_INET6;
	memset(b.sprism_ip, 0, sizeof(b.sprism_ip));
	b.sprism_ip[10] = 0xff;
	b.sprism_ip[11] = 0xff;
	memcpy(b.sprism_ip + 12, a.sprism_ip, 4);
	KUNIT_ASSERT_EQ(test, prism_dst_addr(psk, &a, sizeof(a), &pa, &ep), 0);
	KUNIT_ASSERT_EQ(test, prism_dst_addr(psk, &b, sizeof(b), &pb, &ep), 0);
	KUNIT_EXPECT_TRUE(test, prism_paddr_equal(&pa, &pb));
	KUNIT_EXPECT_EQ(test, memcmp(&pa, &pb, sizeof(pa)), 0);
}

static struct kunit_case addr_test_cases[] = {
	KUNIT_CASE_PARAM(dst_addr_cases, t_dst_gen_params),
	KUNIT_CASE(dst_addr_mapped_equals_ipv4),
	{}
};

static struct kunit_suite addr_test_suite = {
	.name = "prism_addr",
	.test_cases = addr_test_cases,
};

kunit_test_suite(addr_test_suite);
