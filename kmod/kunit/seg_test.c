// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of seg.c: the receiver's bitmap and grants (out of order,
 * duplicate, missing, offsets that do not fit the message), the sender's
 * choice of what to (re)send, and grants on the wire.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include "../seg.h"

#define T_SEG	1000U		/* segment size of the tests */
#define T_MSG	10500U		/* 11 segments, the last of 500 bytes */
#define T_NSEGS	11U

struct t_rx_case {
	const char	*desc;
	u32		offset;
	u32		len;
	int		ret;		/* of prism_seg_rx_check() */
};

/* Segment 3 arrived already; each case is checked against that. */
static const struct t_rx_case t_rx_cases[] = {
	{ "new segment", 0, T_SEG, 1 },
	{ "new segment out of order", 7 * T_SEG, T_SEG, 1 },
	{ "last segment, short", 10 * T_SEG, 500, 1 },
	{ "duplicate", 3 * T_SEG, T_SEG, 0 },
	{ "offset inside a segment", 3 * T_SEG + 8, T_SEG, -EINVAL },
	{ "offset past the message", 11 * T_SEG, T_SEG, -EINVAL },
	{ "offset far past (overflow)", 4294967000U, T_SEG, -EINVAL },
	{ "short middle segment", 4 * T_SEG, T_SEG - 1, -EINVAL },
	{ "long middle segment", 4 * T_SEG, T_SEG + 1, -EINVAL },
	{ "last segment, full size", 10 * T_SEG, T_SEG, -EINVAL },
	{ "empty", 5 * T_SEG, 0, -EINVAL },
};

static void t_rx_desc(const struct t_rx_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_rx, t_rx_cases, t_rx_desc);

static void rx_check_cases(struct kunit *test)
{
	const struct t_rx_case *c = test->param_value;
	DECLARE_BITMAP(have, T_NSEGS) = {};
	struct prism_seg_rx rx;
	u32 idx = U32_MAX;

	KUNIT_ASSERT_EQ(test, prism_seg_rx_init(&rx, T_MSG, T_SEG, have), 0);
	KUNIT_ASSERT_EQ(test, rx.nsegs, T_NSEGS);
	KUNIT_ASSERT_EQ(test, prism_seg_rx_check(&rx, 3 * T_SEG, T_SEG, &idx),
			1);
	prism_seg_rx_mark(&rx, idx);
	idx = U32_MAX;
	KUNIT_EXPECT_EQ(test, prism_seg_rx_check(&rx, c->offset, c->len, &idx),
			c->ret);
	if (c->ret == 1)
		KUNIT_EXPECT_EQ(test, idx, c->offset / T_SEG);
	else
		KUNIT_EXPECT_EQ(test, idx, U32_MAX);
	KUNIT_EXPECT_EQ(test, rx.count, 1U);
	KUNIT_EXPECT_EQ(test, rx.base, 0U);
	KUNIT_EXPECT_EQ(test, rx.dups, c->ret == 0 ? 1U : 0U);
}

/* A segment size below PRISM_SEG_MIN would make a huge bitmap: refused. */
static void rx_init_refuses_tiny_segments(struct kunit *test)
{
	DECLARE_BITMAP(have, 8) = {};
	struct prism_seg_rx rx;

	KUNIT_EXPECT_EQ(test, prism_seg_rx_init(&rx, 1000, PRISM_SEG_MIN - 1,
						have), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_seg_rx_init(&rx, 0, PRISM_SEG_MIN, have),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_seg_rx_init(&rx, 1000, PRISM_SEG_MIN,
						have), 0);
	KUNIT_EXPECT_EQ(test, rx.nsegs, 4U);
}

static void t_rx_put(struct kunit *test, struct prism_seg_rx *rx, u32 i)
{
	u32 idx;

	KUNIT_ASSERT_EQ(test, prism_seg_rx_check(rx, i * T_SEG,
						 prism_seg_len(T_MSG, T_SEG, i),
						 &idx), 1);
	KUNIT_ASSERT_EQ(test, idx, i);
	prism_seg_rx_mark(rx, idx);
}

/*
 * Out of order with a hole: base stops at the hole, the grant reports
 * what came after it, and filling the hole moves base past all of them.
 */
static void rx_grant_reports_missing(struct kunit *test)
{
	DECLARE_BITMAP(have, T_NSEGS) = {};
	struct prism_seg_rx rx;
	struct prism_grant g;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, prism_seg_rx_init(&rx, T_MSG, T_SEG, have), 0);
	t_rx_put(test, &rx, 0);
	t_rx_put(test, &rx, 1);
	t_rx_put(test, &rx, 4);
	t_rx_put(test, &rx, 6);
	KUNIT_EXPECT_EQ(test, rx.base, 2U);
	prism_seg_rx_grant(&rx, 0, &g);
	KUNIT_EXPECT_EQ(test, g.base, 2U);
	KUNIT_EXPECT_EQ(test, g.limit, T_NSEGS);	/* window covers all */
	/* Bit i: segment base + 1 + i, so 4 is bit 1 and 6 is bit 3. */
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, test_bit(i, g.sack), i == 1 || i == 3);
	KUNIT_EXPECT_EQ(test, rx.since_grant, 0U);
	t_rx_put(test, &rx, 2);
	KUNIT_EXPECT_EQ(test, rx.base, 3U);
	t_rx_put(test, &rx, 3);
	KUNIT_EXPECT_EQ(test, rx.base, 5U);
	for (i = 5; i < T_NSEGS; i++)
		if (i != 6)
			t_rx_put(test, &rx, i);
	KUNIT_EXPECT_EQ(test, rx.count, T_NSEGS);
	KUNIT_EXPECT_EQ(test, rx.base, T_NSEGS);
}

/*
 * Grants are due every PRISM_SEG_GRANT_EVERY segments, and when every
 * granted segment arrived before the message is complete; never for the
 * last segment (the answer, or the completion, follows).
 */
static void rx_grant_due(struct kunit *test)
{
	unsigned long have[BITS_TO_LONGS(64)] = {};
	u32 msg = 40 * PRISM_SEG_MIN, idx, i;
	struct prism_seg_rx rx;
	bool due;

	KUNIT_ASSERT_EQ(test, prism_seg_rx_init(&rx, msg, PRISM_SEG_MIN, have),
			0);
	/* The last segment first: the sender is done, holes are reported. */
	KUNIT_ASSERT_EQ(test, prism_seg_rx_check(&rx, 39 * PRISM_SEG_MIN,
						 PRISM_SEG_MIN, &idx), 1);
	KUNIT_EXPECT_TRUE(test, prism_seg_rx_mark(&rx, idx));
	KUNIT_ASSERT_EQ(test, prism_seg_rx_init(&rx, msg, PRISM_SEG_MIN, have),
			0);
	bitmap_zero(have, 64);
	for (i = 0; i < 40; i++) {
		KUNIT_ASSERT_EQ(test, prism_seg_rx_check(&rx, i * PRISM_SEG_MIN,
							 PRISM_SEG_MIN, &idx), 1);
		due = prism_seg_rx_mark(&rx, idx);
		KUNIT_EXPECT_EQ(test, due, i != 39 &&
				(i + 1) % PRISM_SEG_GRANT_EVERY == 0);
		if (due) {
			struct prism_grant g;

			prism_seg_rx_grant(&rx, 0, &g);
		}
	}
}

static void t_tx_init(struct prism_seg_tx *tx, unsigned long *acked,
		      u32 *sent_seq)
{
	prism_seg_tx_init(tx, T_MSG, T_SEG, acked, sent_seq);
}

/*
 * The first window goes out without a grant; a grant that acknowledges
 * segments sent "reorder" or more transmissions after an earlier one makes
 * the sender resend that one, and only that one, then new ones up to the
 * limit.  Duplicates reported by the receiver after resends make the
 * sender wait for more before it resends.
 */
static void tx_resends_only_missing(struct kunit *test)
{
	DECLARE_BITMAP(acked, T_NSEGS) = {};
	u32 sent_seq[T_NSEGS] = {}, todo[32], hi, resent = 0, n;
	struct prism_seg_tx tx;
	struct prism_grant g = {};

	t_tx_init(&tx, acked, sent_seq);
	KUNIT_EXPECT_EQ(test, tx.reorder, PRISM_SEG_REORDER);
	/* A threshold that fits this short message (learnt per peer). */
	tx.reorder = 4;
	/* 64 KiB of 1000-byte segments: all 11 fit the first window. */
	n = prism_seg_tx_pick(&tx, false, 0, todo, 8, &resent);
	KUNIT_EXPECT_EQ(test, n, 8U);
	KUNIT_EXPECT_EQ(test, todo[0], 0U);
	KUNIT_EXPECT_EQ(test, todo[7], 7U);
	KUNIT_EXPECT_EQ(test, resent, 0U);

	/* 0, 2 and 5 arrived; 1, 3, 4, 6 and 7 did not (yet). */
	g.base = 1;
	g.limit = T_NSEGS;
	__set_bit(0, g.sack);		/* segment 2 */
	__set_bit(3, g.sack);		/* segment 5 */
	KUNIT_ASSERT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	KUNIT_EXPECT_EQ(test, hi, 6U);	/* segment 5 was the sixth sent */
	n = prism_seg_tx_pick(&tx, false, hi, todo, ARRAY_SIZE(todo), &resent);
	/* 1 was sent 4 transmissions before 5: lost.  3 and 4: overtaken. */
	KUNIT_ASSERT_EQ(test, n, 1U + (T_NSEGS - 8));
	KUNIT_EXPECT_EQ(test, todo[0], 1U);
	KUNIT_EXPECT_EQ(test, todo[1], 8U);
	KUNIT_EXPECT_EQ(test, resent, 1U);

	/* Nothing new acknowledged: nothing is resent again. */
	KUNIT_ASSERT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	KUNIT_EXPECT_EQ(test, hi, 0U);
	KUNIT_EXPECT_EQ(test, prism_seg_tx_pick(&tx, false, hi, todo,
						ARRAY_SIZE(todo), &resent), 0U);

	/* Duplicates without a resend since the last grant: the network's. */
	g.dups = 2;
	KUNIT_ASSERT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	KUNIT_EXPECT_EQ(test, tx.reorder, 4U);

	/* A probe resends every segment not acknowledged. */
	n = prism_seg_tx_pick(&tx, true, 0, todo, ARRAY_SIZE(todo), &resent);
	KUNIT_EXPECT_EQ(test, n, T_NSEGS - 3);
	KUNIT_EXPECT_EQ(test, todo[0], 1U);
	KUNIT_EXPECT_EQ(test, todo[1], 3U);

	/* Duplicates after those resends: reordering, the threshold doubles. */
	KUNIT_ASSERT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	KUNIT_EXPECT_EQ(test, tx.reorder, 8U);

	/* Everything acknowledged. */
	memset(&g, 0, sizeof(g));
	g.base = T_NSEGS;
	g.limit = T_NSEGS;
	KUNIT_ASSERT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	KUNIT_EXPECT_EQ(test, tx.base, T_NSEGS);
	KUNIT_EXPECT_EQ(test, prism_seg_tx_pick(&tx, true, 0, todo,
						ARRAY_SIZE(todo), &resent), 0U);

	/* Restarted (the receiver lost it all): from segment 0, as learnt. */
	prism_seg_tx_restart(&tx);
	KUNIT_EXPECT_EQ(test, tx.base, 0U);
	KUNIT_EXPECT_EQ(test, tx.reorder, 8U);
	KUNIT_EXPECT_FALSE(test, test_bit(0, acked));
	n = prism_seg_tx_pick(&tx, false, 0, todo, ARRAY_SIZE(todo), &resent);
	KUNIT_EXPECT_EQ(test, n, T_NSEGS);
	KUNIT_EXPECT_EQ(test, todo[0], 0U);
	KUNIT_EXPECT_EQ(test, sent_seq[0], 1U);
}

/* Grants the sender cannot have earned are refused. */
static void tx_refuses_impossible_grants(struct kunit *test)
{
	DECLARE_BITMAP(acked, T_NSEGS) = {};
	u32 sent_seq[T_NSEGS] = {}, todo[4], hi, resent = 0;
	struct prism_seg_tx tx;
	struct prism_grant g = {};

	t_tx_init(&tx, acked, sent_seq);
	prism_seg_tx_pick(&tx, false, 0, todo, 2, &resent);
	g.base = 3;			/* beyond what was sent */
	g.limit = 5;
	KUNIT_EXPECT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), -EINVAL);
	g.base = 1;
	g.limit = T_NSEGS + 1;		/* past the message */
	KUNIT_EXPECT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), -EINVAL);
	g.limit = 0;			/* below the base */
	KUNIT_EXPECT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), -EINVAL);
	/* Acknowledging segments never sent is ignored. */
	g.base = 2;
	g.limit = T_NSEGS;
	__set_bit(5, g.sack);
	KUNIT_ASSERT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	KUNIT_EXPECT_FALSE(test, test_bit(8, acked));
	KUNIT_EXPECT_EQ(test, tx.base, 2U);
}

/*
 * A restart forgets what the receiver had acknowledged, but a receiver may
 * still hold those segments: its NACK was for an earlier transmission of the
 * request, and a later one started the reassembly that has them (seen under
 * load, 2026-11-28: such grants were refused and the chain timed out).  Its
 * grants are taken: what it has is not sent again.  A base beyond anything
 * ever sent is still refused.
 */
static void tx_grant_after_restart(struct kunit *test)
{
	DECLARE_BITMAP(acked, T_NSEGS) = {};
	u32 sent_seq[T_NSEGS] = {}, todo[32], hi, resent = 0, n;
	struct prism_seg_tx tx;
	struct prism_grant g = {};

	t_tx_init(&tx, acked, sent_seq);
	KUNIT_ASSERT_EQ(test, prism_seg_tx_pick(&tx, false, 0, todo, 8,
						&resent), 8U);
	prism_seg_tx_restart(&tx);
	KUNIT_ASSERT_EQ(test, prism_seg_tx_pick(&tx, false, 0, todo, 2,
						&resent), 2U);
	/* The receiver has 0..5 and 7 from before the restart. */
	g.base = 6;
	g.limit = T_NSEGS;
	__set_bit(0, g.sack);		/* segment 7 */
	KUNIT_ASSERT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	KUNIT_EXPECT_EQ(test, tx.base, 6U);
	KUNIT_EXPECT_TRUE(test, test_bit(7, acked));
	/* A probe resends 6 only; then the rest, never 0..5 or 7. */
	n = prism_seg_tx_pick(&tx, true, 0, todo, ARRAY_SIZE(todo), &resent);
	KUNIT_ASSERT_EQ(test, n, T_NSEGS - 7);
	KUNIT_EXPECT_EQ(test, todo[0], 6U);
	KUNIT_EXPECT_EQ(test, todo[1], 8U);
	/* Beyond anything ever sent: refused. */
	prism_seg_tx_restart(&tx);
	g.base = T_NSEGS;
	memset(g.sack, 0, sizeof(g.sack));
	KUNIT_EXPECT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), 0);
	t_tx_init(&tx, acked, sent_seq);
	memset(acked, 0, sizeof(acked));
	prism_seg_tx_pick(&tx, false, 0, todo, 3, &resent);
	prism_seg_tx_restart(&tx);
	g.base = 4;
	KUNIT_EXPECT_EQ(test, prism_seg_tx_ack(&tx, &g, &hi), -EINVAL);
}

/* The first window is PRISM_SEG_INIT_WINDOW bytes, at least a segment. */
static void tx_first_window(struct kunit *test)
{
	unsigned long acked[BITS_TO_LONGS(1024)] = {};
	static u32 sent_seq[1024];
	u32 todo[PRISM_SEG_BURST], resent = 0;
	struct prism_seg_tx tx;

	memset(sent_seq, 0, sizeof(sent_seq));
	prism_seg_tx_init(&tx, 1 << 20, 1024, acked, sent_seq);
	KUNIT_EXPECT_EQ(test, tx.nsegs, 1024U);
	KUNIT_EXPECT_EQ(test, prism_seg_tx_pick(&tx, false, 0, todo,
						ARRAY_SIZE(todo), &resent),
			PRISM_SEG_INIT_WINDOW / 1024);
	prism_seg_tx_init(&tx, 1 << 20, 65535, acked, sent_seq);
	KUNIT_EXPECT_EQ(test, tx.limit, 1U);
}

/* A grant survives the wire; unknown flags and a bad limit do not. */
static void grant_wire_round_trip(struct kunit *test)
{
	struct prism_grant g = {}, back;
	struct prism_wgrant w;

	g.flags = PRISM_GRANT_PROBE;
	g.dups = 300;
	g.base = 70000;
	g.limit = 70200;
	__set_bit(0, g.sack);
	__set_bit(63, g.sack);
	__set_bit(64, g.sack);
	__set_bit(PRISM_SACK_BITS - 1, g.sack);
	prism_grant_encode(&g, PRISM_SEG_RESP, 123456, &w);
	KUNIT_EXPECT_EQ(test, w.dir, PRISM_SEG_RESP);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(w.msg_len), 123456U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(w.sack[0]), BIT_ULL(63) | 1);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(w.sack[1]), 1ULL);
	KUNIT_ASSERT_EQ(test, prism_grant_decode(&w, &back), 0);
	KUNIT_EXPECT_EQ(test, back.flags, g.flags);
	KUNIT_EXPECT_EQ(test, back.dups, g.dups);
	KUNIT_EXPECT_EQ(test, back.base, g.base);
	KUNIT_EXPECT_EQ(test, back.limit, g.limit);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(back.sack, g.sack,
					     PRISM_SACK_BITS));
	w.flags = 0x80;
	KUNIT_EXPECT_EQ(test, prism_grant_decode(&w, &back), -EINVAL);
	w.flags = 0;
	w.limit = cpu_to_be32(g.base - 1);
	KUNIT_EXPECT_EQ(test, prism_grant_decode(&w, &back), -EINVAL);
}

static struct kunit_case prism_seg_test_cases[] = {
	KUNIT_CASE_PARAM(rx_check_cases, t_rx_gen_params),
	KUNIT_CASE(rx_init_refuses_tiny_segments),
	KUNIT_CASE(rx_grant_reports_missing),
	KUNIT_CASE(rx_grant_due),
	KUNIT_CASE(tx_resends_only_missing),
	KUNIT_CASE(tx_refuses_impossible_grants),
	KUNIT_CASE(tx_grant_after_restart),
	KUNIT_CASE(tx_first_window),
	KUNIT_CASE(grant_wire_round_trip),
	{}
};

static struct kunit_suite prism_seg_suite = {
	.name = "prism_seg",
	.test_cases = prism_seg_test_cases,
};

kunit_test_suite(prism_seg_suite);
