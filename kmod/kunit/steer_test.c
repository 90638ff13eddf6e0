// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of steer.c: which CPUs the map holds (steer_cpus, online
 * CPUs, a CPU going offline), that one session always picks one CPU, that
 * sessions spread evenly over the map and never leave it.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/if_ether.h>
#include <linux/random.h>
#include "../link.h"
#include "../steer.h"

struct t_map_case {
	const char	*desc;
	const char	*allowed;	/* cpulist */
	const char	*online;	/* cpulist */
	int		exclude;
	unsigned int	n;
	u16		cpus[4];
};

static const struct t_map_case t_map_cases[] = {
	{ "all online", "0-3", "0-3", -1, 4, { 0, 1, 2, 3 } },
	{ "steer_cpus restricts", "1,3", "0-3", -1, 2, { 1, 3 } },
	{ "pinned to one CPU", "0", "0-3", -1, 1, { 0 } },
	{ "offline CPU skipped", "0-3", "0,2-3", -1, 3, { 0, 2, 3 } },
	{ "CPU going offline excluded", "0-3", "0-3", 2, 3, { 0, 1, 3 } },
	{ "allowed CPUs all offline", "4-5", "0-3", -1, 0, { } },
	{ "highest CPU", "0-7", "7", -1, 1, { 7 } },
	{ "only allowed CPU going offline", "1", "0-1", 1, 0, { } },
};

static void t_map_desc(const struct t_map_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_map, t_map_cases, t_map_desc);

#define T_NBITS	8U

static void map_fill_cases(struct kunit *test)
{
	const struct t_map_case *c = test->param_value;
	DECLARE_BITMAP(allowed, T_NBITS);
	DECLARE_BITMAP(online, T_NBITS);
	u16 cpus[T_NBITS];
	unsigned int i, n;

	KUNIT_ASSERT_EQ(test, bitmap_parselist(c->allowed, allowed, T_NBITS), 0);
	KUNIT_ASSERT_EQ(test, bitmap_parselist(c->online, online, T_NBITS), 0);
	n = prism_steer_map_fill(cpus, allowed, online, T_NBITS, c->exclude);
	KUNIT_ASSERT_EQ(test, n, c->n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, cpus[i], c->cpus[i]);
}

static const struct prism_paddr t_eth = {
	.kind = PRISM_LINK_ETH, .ifindex = 3,
	.mac = { 0x02, 0, 0, 0, 0x06, 0x0b },
};

/* One session, one hash: every field of the key and the seed count. */
static void hash_is_per_session(struct kunit *test)
{
	struct prism_paddr other = t_eth;
	u32 h = prism_steer_hash(&t_eth, 7, 0x1234, 99);

	other.mac[5] = 0x0c;
	KUNIT_EXPECT_EQ(test, prism_steer_hash(&t_eth, 7, 0x1234, 99), h);
	KUNIT_EXPECT_NE(test, prism_steer_hash(&other, 7, 0x1234, 99), h);
	KUNIT_EXPECT_NE(test, prism_steer_hash(&t_eth, 8, 0x1234, 99), h);
	KUNIT_EXPECT_NE(test, prism_steer_hash(&t_eth, 7, 0x1235, 99), h);
	KUNIT_EXPECT_NE(test, prism_steer_hash(&t_eth, 7, 0x1234, 100), h);
}

/*
 * UDP: the sender's IP address is part of the session, the local address
 * it was sent to is not (prism_paddr_equal()).
 */
static void hash_of_udp_sender(struct kunit *test)
{
	struct prism_paddr a, b;
	u32 h;

	prism_paddr_zero(&a);
	a.kind = PRISM_LINK_UDP4;
	a.port = htons(4795);
	a.ip4 = htonl(0x0a000001);
	a.local4 = htonl(0x0a000002);
	h = prism_steer_hash(&a, 7, 0x1234, 99);
	b = a;
	b.local4 = htonl(0x0a000003);
	KUNIT_EXPECT_EQ(test, prism_steer_hash(&b, 7, 0x1234, 99), h);
	KUNIT_EXPECT_TRUE(test, prism_paddr_equal(&a, &b));
	b.ip4 = htonl(0x0a000004);
	KUNIT_EXPECT_NE(test, prism_steer_hash(&b, 7, 0x1234, 99), h);
	KUNIT_EXPECT_FALSE(test, prism_paddr_equal(&a, &b));
	/* The same address bytes as IPv6 are another sender. */
	b = a;
	b.kind = PRISM_LINK_UDP6;
	KUNIT_EXPECT_FALSE(test, prism_paddr_equal(&a, &b));
	KUNIT_EXPECT_NE(test, prism_steer_hash(&b, 7, 0x1234, 99), h);
}

struct t_spread_case {
	const char	*desc;
	unsigned int	n;
	u16		cpus[4];
};

static const struct t_spread_case t_spread_cases[] = {
	{ "one CPU", 1, { 5 } },
	{ "two CPUs", 2, { 0, 1 } },
	{ "three CPUs, gaps", 3, { 1, 4, 6 } },
	{ "four CPUs", 4, { 0, 1, 2, 3 } },
};

static void t_spread_desc(const struct t_spread_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_spread, t_spread_cases, t_spread_desc);

#define T_SESSIONS	4096U

/*
 * Sessions of one client (random nonces) spread evenly: each CPU of the
 * map gets within 15% of its share, and no session picks a CPU outside.
 */
static void pick_spreads_sessions(struct kunit *test)
{
	const struct t_spread_case *c = test->param_value;
	unsigned int count[4] = {}, s, i, share = T_SESSIONS / c->n;
	u32 seed = get_random_u32();

	for (s = 0; s < T_SESSIONS; s++) {
		u32 hash = prism_steer_hash(&t_eth, 1 + s % 3, get_random_u32(),
					    seed);
		unsigned int cpu = prism_steer_pick(hash, c->cpus, c->n);

		for (i = 0; i < c->n && c->cpus[i] != cpu; i++)
			;
		KUNIT_ASSERT_LT_MSG(test, i, c->n, "picked CPU %u", cpu);
		count[i]++;
	}
	for (i = 0; i < c->n; i++) {
		KUNIT_EXPECT_GE(test, count[i], share - share * 15 / 100);
		KUNIT_EXPECT_LE(test, count[i], share + share * 15 / 100);
	}
}

static struct kunit_case steer_test_cases[] = {
	KUNIT_CASE_PARAM(map_fill_cases, t_map_gen_params),
	KUNIT_CASE(hash_is_per_session),
	KUNIT_CASE(hash_of_udp_sender),
	KUNIT_CASE_PARAM(pick_spreads_sessions, t_spread_gen_params),
	{}
};

static struct kunit_suite steer_test_suite = {
	.name = "prism_steer",
	.test_cases = steer_test_cases,
};

kunit_test_suite(steer_test_suite);
