// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of cc.c: the congestion window's room, its slow start and
 * additive increase, its proportional cuts (at most by half, at most once per RTT, never
 * under one chain), cuts on a timeout, the fabric's base delay and its
 * epochs, and the RFC 6298 estimator with its bounds.
 */
#include <kunit/test.h>
#include "../cc.h"

#define ONE	PRISM_CC_ONE

/* ---------------------------------------------------------------------------
 * Room in a window.
 */
struct t_open_case {
	const char	*desc;
	u32		cwnd;
	u32		inflight;
	bool		open;
};

static const struct t_open_case t_open_cases[] = {
	{ "empty one-chain window", ONE, 0, true },
	{ "full one-chain window", ONE, 1, false },
	{ "16 chains, 15 in flight", 16 * ONE, 15, true },
	{ "16 chains, 16 in flight", 16 * ONE, 16, false },
	{ "15.99 chains count as 15", 16 * ONE - 1, 15, false },
};

static void t_open_desc(const struct t_open_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_open, t_open_cases, t_open_desc);

static void open_cases(struct kunit *test)
{
	const struct t_open_case *c = test->param_value;
	struct prism_cc cc;

	prism_cc_init(&cc);
	cc.cwnd = c->cwnd;
	cc.inflight = c->inflight;
	KUNIT_EXPECT_EQ(test, prism_cc_open(&cc), c->open);
}

/* ---------------------------------------------------------------------------
 * One delay sample.
 */
struct t_delay_case {
	const char	*desc;
	u32		cwnd;
	u64		last_cut_ns;
	u32		delay_us;
	u32		target_us;
	u32		rtt_us;
	u64		now_ns;
	u32		cwnd_after;
	bool		cut;
};

static const struct t_delay_case t_delay_cases[] = {
	{ "slow start: a chain per answer", 16 * ONE, 0, 100, 500, 200,
	  1000000, 17 * ONE, false },
	{ "after a cut: a chain per window", 16 * ONE, 1, 100, 500,
	  200, 1000000, 16 * ONE + ONE / 16, false },
	{ "at the target: still grows", 16 * ONE, 1, 500, 500, 200, 1000000,
	  16 * ONE + ONE / 16, false },
	{ "one-chain window grows by a chain", ONE, 1, 0, 500, 200, 1000000,
	  2 * ONE, false },
	{ "twice the target: cut by beta/2", 16 * ONE, 0, 1000, 500, 200,
	  1000000, 16 * ONE * (ONE - 205 * 500 / 1000) / ONE, true },
	{ "far above: cut by half at most", 16 * ONE, 0, 10000, 500, 200,
	  1000000, 8 * ONE, true },
	{ "second cut within an RTT: none", 16 * ONE, 1000000, 10000, 500,
	  200, 1000000 + 199999, 16 * ONE, false },
	{ "second cut one RTT later", 16 * ONE, 1000000, 10000, 500, 200,
	  1000000 + 200000, 8 * ONE, true },
	{ "never under one chain", ONE, 0, 10000, 500, 200, 1000000, ONE,
	  true },
};

static void t_delay_desc(const struct t_delay_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_delay, t_delay_cases, t_delay_desc);

static void delay_cases(struct kunit *test)
{
	const struct t_delay_case *c = test->param_value;
	struct prism_cc cc;

	prism_cc_init(&cc);
	cc.cwnd = c->cwnd;
	cc.last_cut_ns = c->last_cut_ns;
	KUNIT_EXPECT_EQ(test, prism_cc_delay(&cc, c->delay_us, c->target_us,
					     c->rtt_us, c->now_ns), c->cut);
	KUNIT_EXPECT_EQ(test, cc.cwnd, c->cwnd_after);
	KUNIT_EXPECT_EQ(test, cc.last_cut_ns,
			c->cut ? c->now_ns : c->last_cut_ns);
	/* The first sample is the smoothed delay. */
	KUNIT_EXPECT_EQ(test, cc.delay_us, c->delay_us);
}

static void delay_is_smoothed(struct kunit *test)
{
	struct prism_cc cc;

	prism_cc_init(&cc);
	prism_cc_delay(&cc, 800, 1000, 100, 1);
	prism_cc_delay(&cc, 0, 1000, 100, 2);
	KUNIT_EXPECT_EQ(test, cc.delay_us, 700);
}

static void window_grows_to_its_cap(struct kunit *test)
{
	struct prism_cc cc;
	u32 i;

	prism_cc_init(&cc);
	KUNIT_EXPECT_EQ(test, cc.cwnd, PRISM_CC_INIT);
	for (i = 0; i < 1000000 && cc.cwnd < PRISM_CC_MAX; i++)
		prism_cc_delay(&cc, 0, 500, 100, i);
	KUNIT_EXPECT_EQ(test, cc.cwnd, PRISM_CC_MAX);
	prism_cc_delay(&cc, 0, 500, 100, i);
	KUNIT_EXPECT_EQ(test, cc.cwnd, PRISM_CC_MAX);
}

/* ---------------------------------------------------------------------------
 * Timeouts.
 */
static void loss_halves_once_per_rtt(struct kunit *test)
{
	struct prism_cc cc;

	prism_cc_init(&cc);
	KUNIT_EXPECT_TRUE(test, prism_cc_loss(&cc, 300, 4000000, 5000000));
	KUNIT_EXPECT_EQ(test, cc.cwnd, PRISM_CC_INIT / 2);
	/* Sent after the cut, lost within an RTT of it. */
	KUNIT_EXPECT_FALSE(test, prism_cc_loss(&cc, 300, 5000001,
					       5000000 + 299999));
	KUNIT_EXPECT_EQ(test, cc.cwnd, PRISM_CC_INIT / 2);
	KUNIT_EXPECT_TRUE(test, prism_cc_loss(&cc, 300, 5000001,
					      5000000 + 300000));
	KUNIT_EXPECT_EQ(test, cc.cwnd, PRISM_CC_INIT / 4);
	cc.cwnd = ONE + 10;
	KUNIT_EXPECT_TRUE(test, prism_cc_loss(&cc, 0, 8000000, 9000000));
	KUNIT_EXPECT_EQ(test, cc.cwnd, ONE);
}

/*
 * A stall: every chain of a flight times out, one after the other, each an
 * RTT after the previous (RTT far below the RTO).  One cut in all; the
 * next flight's loss cuts again.
 */
static void loss_cuts_once_per_flight(struct kunit *test)
{
	struct prism_cc cc;
	u64 now = 10000000;
	u32 i;

	prism_cc_init(&cc);
	cc.cwnd = 64 * ONE;
	for (i = 0; i < 64; i++, now += 100000)
		KUNIT_EXPECT_EQ(test, prism_cc_loss(&cc, 50, 9000000 + i, now),
				i == 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 32 * ONE);
	/* A chain of the next flight (sent after the cut) is lost too. */
	KUNIT_EXPECT_TRUE(test, prism_cc_loss(&cc, 50, 10000001, now));
	KUNIT_EXPECT_EQ(test, cc.cwnd, 16 * ONE);
}

/* ---------------------------------------------------------------------------
 * The target of a path.
 */
struct t_path_case {
	const char	*desc;
	u32		target;
	u32		base;
	u32		path_target;
};

static const struct t_path_case t_path_cases[] = {
	{ "no base yet", 500, U32_MAX, 500 },
	{ "no length", 500, 0, 500 },
	{ "LAN path of 50 us", 500, 50, 506 },
	{ "path of 20 ms", 500, 20000, 3000 },
	{ "longest base", 500, U32_MAX - 1, 500 + (U32_MAX - 1) / 8 },
};

static void t_path_desc(const struct t_path_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_path, t_path_cases, t_path_desc);

static void path_target_cases(struct kunit *test)
{
	const struct t_path_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, prism_cc_path_target(c->target, c->base),
			c->path_target);
}

/* ---------------------------------------------------------------------------
 * The fabric's base delay.
 */
static void fabric_base_is_the_recent_minimum(struct kunit *test)
{
	struct prism_cc cc;
	u32 i;

	prism_cc_init(&cc);
	KUNIT_EXPECT_EQ(test, prism_cc_fabric_excess(&cc, 100), 0);
	KUNIT_EXPECT_EQ(test, prism_cc_fabric_excess(&cc, 80), 0);
	KUNIT_EXPECT_EQ(test, prism_cc_fabric_excess(&cc, 120), 40);
	/* The rest of the first epoch, then a second one, all at 200. */
	for (i = 3; i < PRISM_CC_BASE_EPOCH; i++)
		KUNIT_EXPECT_EQ(test, prism_cc_fabric_excess(&cc, 200), 120);
	for (i = 0; i < PRISM_CC_BASE_EPOCH - 1; i++)
		KUNIT_EXPECT_EQ(test, prism_cc_fabric_excess(&cc, 200), 120);
	/* The second epoch ends: 80 is forgotten, 200 is the base. */
	KUNIT_EXPECT_EQ(test, prism_cc_fabric_excess(&cc, 200), 0);
	KUNIT_EXPECT_EQ(test, prism_cc_fabric_excess(&cc, 250), 50);
}

/* ---------------------------------------------------------------------------
 * RFC 6298.
 */
struct t_rtt_case {
	const char	*desc;
	u32		srtt, rttvar;		/* before; srtt 0: no sample */
	u32		sample, min, max;
	u32		srtt_after, rttvar_after, rto;
};

static const struct t_rtt_case t_rtt_cases[] = {
	{ "first sample", 0, 0, 1000, 100, 1000000, 1000, 500, 3000 },
	{ "steady RTT: variation decays", 1000, 500, 1000, 100, 1000000,
	  1000, 375, 2500 },
	{ "longer RTT", 1000, 100, 1800, 100, 1000000, 1100, 275, 2200 },
	{ "floor", 100, 20, 100, 1000, 1000000, 100, 15, 1000 },
	{ "ceiling", 0, 0, 500000, 100, 1000000, 500000, 250000, 1000000 },
	{ "zero sample keeps srtt positive", 0, 0, 0, 100, 1000000, 1, 0,
	  100 },
};

static void t_rtt_desc(const struct t_rtt_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_rtt, t_rtt_cases, t_rtt_desc);

static void rtt_cases(struct kunit *test)
{
	const struct t_rtt_case *c = test->param_value;
	struct prism_rtt r = { .srtt_us = c->srtt, .rttvar_us = c->rttvar };

	KUNIT_EXPECT_EQ(test, prism_rtt_sample(&r, c->sample, c->min, c->max),
			c->rto);
	KUNIT_EXPECT_EQ(test, r.srtt_us, c->srtt_after);
	KUNIT_EXPECT_EQ(test, r.rttvar_us, c->rttvar_after);
	KUNIT_EXPECT_EQ(test, r.rto_us, c->rto);
}

static struct kunit_case prism_cc_test_cases[] = {
	KUNIT_CASE_PARAM(open_cases, t_open_gen_params),
	KUNIT_CASE_PARAM(delay_cases, t_delay_gen_params),
	KUNIT_CASE(delay_is_smoothed),
	KUNIT_CASE(window_grows_to_its_cap),
	KUNIT_CASE(loss_halves_once_per_rtt),
	KUNIT_CASE(loss_cuts_once_per_flight),
	KUNIT_CASE_PARAM(path_target_cases, t_path_gen_params),
	KUNIT_CASE(fabric_base_is_the_recent_minimum),
	KUNIT_CASE_PARAM(rtt_cases, t_rtt_gen_params),
	{}
};

static struct kunit_suite prism_cc_suite = {
	.name = "prism_cc",
	.test_cases = prism_cc_test_cases,
};

kunit_test_suite(prism_cc_suite);
