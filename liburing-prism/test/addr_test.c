// SPDX-License-Identifier: MIT
/*
 * Unit tests of the UDP address helpers: prism_addr_from_ip(),
 * prism_parse_addr(), prism_format_addr(), prism_addr_len().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>

#include "liburing-prism.h"
#include "tap.h"

/* Text -> address -> text: the same text. */
static void round_trip(const char *s, int kind, int ipfamily)
{
	char buf[PRISM_ADDR_STRLEN];
	union prism_sockaddr sa;

	CHECK_EQ(prism_parse_addr(s, &sa), 0);
	CHECK_EQ(sa.eth.sprism_kind, kind);
	CHECK_EQ(sa.eth.sprism_family, prism_family());
	if (kind == PRISM_ADDR_UDP)
		CHECK_EQ(sa.udp.sprism_ipfamily, ipfamily);
	CHECK_EQ(prism_addr_len(&sa.eth), kind == PRISM_ADDR_UDP ?
		 sizeof(struct sockaddr_prism_udp) : sizeof(struct sockaddr_prism));
	prism_format_addr(&sa.eth, buf);
	if (strcmp(buf, s)) {
		printf("#   %s formatted as %s\n", s, buf);
		tap_case_failed = 1;
	}
}

static void test_round_trips(void)
{
	round_trip("10.77.1.1:4795/1", PRISM_ADDR_UDP, AF_INET);
	round_trip("[fd77:1::1]:4795/2", PRISM_ADDR_UDP, AF_INET6);
	round_trip("[fe80::1%lo]:4795/3", PRISM_ADDR_UDP, AF_INET6);
	round_trip("02:00:00:00:01:0a/7", PRISM_ADDR_ETH, 0);
}

static void test_parse_fields(void)
{
	union prism_sockaddr sa;

	/* No port: 0, the module's. */
	CHECK_EQ(prism_parse_addr("10.0.0.2/4294967295", &sa), 0);
	CHECK_EQ(sa.udp.sprism_port, 0);
	CHECK_EQ(sa.udp.sprism_ep, 4294967295U);
	CHECK_EQ(sa.udp.sprism_ip[0], 10);
	CHECK_EQ(sa.udp.sprism_ip[3], 2);
	CHECK(!memcmp(sa.udp.sprism_ip + 4, "\0\0\0\0\0\0\0\0\0\0\0\0", 12));
	CHECK_EQ(prism_parse_addr("10.0.0.2:7000/0x10", &sa), 0);
	CHECK_EQ(ntohs(sa.udp.sprism_port), 7000);
	CHECK_EQ(sa.udp.sprism_ep, 16);
	/* IPv6 without brackets (no port then). */
	CHECK_EQ(prism_parse_addr("fd00::5/9", &sa), 0);
	CHECK_EQ(sa.udp.sprism_ipfamily, AF_INET6);
	CHECK_EQ(sa.udp.sprism_ip[15], 5);
	CHECK_EQ(sa.udp.sprism_port, 0);
	/* A scope names an interface. */
	CHECK_EQ(prism_parse_addr("[fe80::2%lo]/9", &sa), 0);
	CHECK_EQ(sa.udp.sprism_ifindex, (int)if_nametoindex("lo"));
	CHECK_EQ(prism_addr_from_ip(&sa.udp, "192.0.2.1", 4795, 3), 0);
	CHECK_EQ(ntohs(sa.udp.sprism_port), 4795);
	CHECK_EQ(sa.udp.sprism_ep, 3);
}

static void test_parse_errors(void)
{
	static const char *const bad[] = {
		"10.0.0.1", "10.0.0.1/", "10.0.0.1/x", "10.0.0.1/4294967296",
		"10.0.0.1:/1", "10.0.0.1:65536/1", "10.0.0.1:99x/1",
		"10.0.0.256/1", "[fd00::1/1", "[fd00::1]x/1", "[10.0.0.1]/1",
		"fd00::1::2/1", "02:00:00:00:01/1", "host.example/1", "/1", "",
	};
	union prism_sockaddr sa;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (prism_parse_addr(bad[i], &sa) != -EINVAL) {
			printf("#   '%s' was not refused\n", bad[i]);
			tap_case_failed = 1;
		}
	}
	CHECK_EQ(prism_parse_addr("[fe80::1%nosuchif0]/1", &sa), -ENODEV);
	CHECK_EQ(prism_addr_from_ip(&sa.udp, NULL, 0, 1), -EINVAL);
	CHECK_EQ(prism_addr_from_ip(&sa.udp, "10.0.0.1", 65536, 1), -EINVAL);
}

static void test_format_any(void)
{
	struct sockaddr_prism_udp su;
	char buf[PRISM_ADDR_STRLEN];

	memset(&su, 0, sizeof(su));
	su.sprism_kind = PRISM_ADDR_UDP;
	su.sprism_port = htons(4795);
	su.sprism_ep = 12;
	prism_format_addr((struct sockaddr_prism *)&su, buf);
	CHECK(!strcmp(buf, "*:4795/12"));
}

static void test_equal(void)
{
	union prism_sockaddr a, b;

	CHECK_EQ(prism_parse_addr("10.0.0.1/5", &a), 0);
	CHECK_EQ(prism_parse_addr("10.0.0.1:4795/5", &b), 0);
	CHECK(prism_addr_equal(&a.eth, &b.eth));
	CHECK_EQ(prism_parse_addr("10.0.0.2/5", &b), 0);
	CHECK(!prism_addr_equal(&a.eth, &b.eth));
	CHECK_EQ(prism_parse_addr("10.0.0.1/6", &b), 0);
	CHECK(!prism_addr_equal(&a.eth, &b.eth));
	CHECK_EQ(prism_parse_addr("[::ffff:10.0.0.1]/5", &b), 0);
	CHECK(!prism_addr_equal(&a.eth, &b.eth));
	CHECK_EQ(prism_parse_addr("02:00:00:00:01:0a/5", &a), 0);
	CHECK_EQ(prism_parse_addr("02:00:00:00:01:0a/5", &b), 0);
	CHECK(prism_addr_equal(&a.eth, &b.eth));
	b.eth.sprism_mac[5] = 0x0b;
	CHECK(!prism_addr_equal(&a.eth, &b.eth));
}

int main(void)
{
	tap_plan(5);
	RUN(test_equal);
	RUN(test_round_trips);
	RUN(test_parse_fields);
	RUN(test_parse_errors);
	RUN(test_format_any);
	return tap_done();
}
