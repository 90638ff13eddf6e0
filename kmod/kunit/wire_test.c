// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of wire.c: validation of whole chains (scratch bounds,
 * malformed requests, chain length and work bounds), run through the
 * engine and through prism_chain_encode(), and the encoding of userspace
 * chains.  The fixture is in utils.c.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/mm.h>
#include "utils.h"

/* ---------------------------------------------------------------------------
 * Whole chains: scratch bounds, malformed requests, length and work bounds.
 */
static void scratch_bounds_are_checked(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[8] = "12345678";

	/* Last 8 bytes of scratch: fine. */
	t_add_write(f->q, PRISM_F_ADDR_SCRATCH, 0, PRISM_SCRATCH_SIZE - 8,
		    data, 8);
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_ADDR_SCRATCH,
		       .addr = PRISM_SCRATCH_SIZE - 8, .len = 8), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), data, 8);

	/* One byte further: the whole chain is refused. */
	t_reset(f);
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 0), data, 8);
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_ADDR_SCRATCH,
		       .addr = PRISM_SCRATCH_SIZE - 7, .len = 8), NULL);
	KUNIT_EXPECT_EQ(test, t_run(test, f), -PRISM_S_INVALID);
	t_check_mem(test, f);
}

/* Malformed chains: each starts with a WRITE that must not happen. */
struct t_bad {
	const char	*name;
	int		kind;
};

static const struct t_bad t_bad_cases[] = {
	{ "truncated op header", 0 },
	{ "truncated inline data", 1 },
	{ "data_len larger than the op needs", 2 },
	{ "data_len smaller than the op needs", 3 },
	{ "opcode 0", 4 },
	{ "opcode above REKEY", 5 },
	{ "unknown flag bit", 6 },
	{ "BOUNDED on WRITE", 7 },
	{ "REDIRECT on WRITE", 8 },
	{ "BOUNDED without INDIRECT", 9 },
	{ "REDIRECT_SCRATCH without REDIRECT", 10 },
	{ "ARG_SCRATCH without an indirect operand", 11 },
	{ "cas_mode above LE", 12 },
	{ "cas_mode on READ", 13 },
	{ "CAS len 0", 14 },
	{ "CAS len 33", 15 },
	{ "READ len 0", 16 },
	{ "READ len above PRISM_MAX_OP_LEN", 17 },
	{ "reserved field not 0", 18 },
	{ "inline padding not 0", 19 },
	{ "nops 0", 20 },
	{ "nops 17", 21 },
	{ "nops larger than the ops present", 22 },
	{ "trailing bytes after the last op", 23 },
	{ "CONDITIONAL on the first op", 24 },
	{ "redirect set without REDIRECT", 25 },
	{ "arg_addr set on READ", 26 },
	{ "swap_addr set without SWAP_INDIRECT", 27 },
	{ "ALLOC list id above 32 bits", 28 },
	{ "SEND with addr", 29 },
	{ "scratch addr out of range", 30 },
	{ "scratch redirect out of range", 31 },
	{ "scratch pointer slot out of range", 32 },
	{ "CAS compare operand out of scratch", 33 },
	{ "DATA_INDIRECT scratch source out of range", 34 },
	{ "DATA_INDIRECT on READ", 35 },
	{ "INDIRECT on ALLOC", 36 },
	{ "WRITE len 0", 37 },
	{ "a whole extra op beyond nops", 38 },
	{ "CAS data missing the swap mask", 39 },
	{ "SEND len above PRISM_MAX_OP_LEN", 40 },
	{ "READ redirect scratch of BOUNDED len out of range", 41 },
	{ "REKEY key of 15 bytes", 42 },
	{ "REKEY overlap above PRISM_MAX_OVERLAP_MS", 43 },
	{ "REDIRECT on REKEY", 44 },
};

static void t_bad_desc(const struct t_bad *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_bad, t_bad_cases, t_bad_desc);

static void t_build_bad(struct t_fix *f, int kind)
{
	struct t_req *q = f->q;
	u64 rk = RK(f, RA), a = VA(f, RA, 0x40);
	static const u8 d[64] = "data";
	u8 cas[4 * 8] = { 0 };
	u32 i;

	t_add_write(q, 0, rk, VA(f, RA, 0), d, 8);
	switch (kind) {
	case 0:
		t_add_read(q, rk, a, 8);
		q->len -= 8;
		break;
	case 1:
		t_add_write(q, 0, rk, a, d, 16);
		q->len -= 8;
		break;
	case 2:
		t_add(q, OP(.opcode = PRISM_OP_WRITE, .rkey = rk, .addr = a,
			    .len = 8, .data_len = 16), d);
		break;
	case 3:
		t_add(q, OP(.opcode = PRISM_OP_WRITE, .rkey = rk, .addr = a,
			    .len = 16, .data_len = 8), d);
		break;
	case 4:
		t_add(q, OP(.opcode = 0, .rkey = rk, .addr = a, .len = 8),
		      NULL);
		break;
	case 5:
		t_add(q, OP(.opcode = PRISM_OP_MAX + 1, .rkey = rk, .addr = a,
			    .len = 8), NULL);
		break;
	case 6:
		t_add(q, OP(.opcode = PRISM_OP_READ, .flags = 1U << 10,
			    .rkey = rk, .addr = a, .len = 8), NULL);
		break;
	case 7:
		t_add(q, OP(.opcode = PRISM_OP_WRITE,
			    .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED,
			    .rkey = rk, .addr = a, .len = 8, .data_len = 8), d);
		break;
	case 8:
		t_add(q, OP(.opcode = PRISM_OP_WRITE, .flags = PRISM_F_REDIRECT,
			    .rkey = rk, .addr = a, .len = 8, .data_len = 8,
			    .redirect = a), d);
		break;
	case 9:
		t_add(q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_BOUNDED,
			    .rkey = rk, .addr = a, .len = 8), NULL);
		break;
	case 10:
		t_add(q, OP(.opcode = PRISM_OP_READ,
			    .flags = PRISM_F_REDIRECT_SCRATCH, .rkey = rk,
			    .addr = a, .len = 8), NULL);
		break;
	case 11:
		t_add(q, OP(.opcode = PRISM_OP_WRITE,
			    .flags = PRISM_F_ARG_SCRATCH, .rkey = rk,
			    .addr = a, .len = 8, .data_len = 8), d);
		break;
	case 12:
		t_add(q, OP(.opcode = PRISM_OP_CAS,
			    .cas_mode = PRISM_CAS_MODE_MAX + 1, .rkey = rk,
			    .addr = a, .len = 8, .data_len = 32), cas);
		break;
	case 13:
		t_add(q, OP(.opcode = PRISM_OP_READ, .cas_mode = 1, .rkey = rk,
			    .addr = a, .len = 8), NULL);
		break;
	case 14:
		t_add(q, OP(.opcode = PRISM_OP_CAS, .rkey = rk, .addr = a,
			    .len = 0, .data_len = 0), NULL);
		break;
	case 15:
		t_add(q, OP(.opcode = PRISM_OP_CAS, .rkey = rk, .addr = a,
			    .len = 33, .data_len = 4 * 33), f->resp);
		break;
	case 16:
		t_add(q, OP(.opcode = PRISM_OP_READ, .rkey = rk, .addr = a,
			    .len = 0), NULL);
		break;
	case 17:
		t_add(q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_REDIRECT,
			    .rkey = rk, .addr = a, .redirect = a,
			    .len = PRISM_MAX_OP_LEN + 1), NULL);
		break;
	case 18:
		t_add(q, OP(.opcode = PRISM_OP_READ, .rkey = rk, .addr = a,
			    .len = 8, .reserved = 1), NULL);
		break;
	case 19:
		t_add_write(q, 0, rk, a, d, 5);
		q->buf[q->len - 1] = 1;
		q->host[q->len - 1] = 1;
		break;
	case 20:
		q->nops = 0;
		break;
	case 21:
		for (i = 0; i < PRISM_MAX_CHAIN; i++)
			t_add_read(q, rk, a, 8);
		break;
	case 22:
		t_add_read(q, rk, a, 8);
		q->nops++;
		break;
	case 23:
		t_add_read(q, rk, a, 8);
		q->len += 8;
		break;
	case 24:
		t_reset(f);
		t_add_write(q, PRISM_F_CONDITIONAL, rk, VA(f, RA, 0), d, 8);
		break;
	case 25:
		t_add(q, OP(.opcode = PRISM_OP_READ, .rkey = rk, .addr = a,
			    .len = 8, .redirect = a), NULL);
		break;
	case 26:
		t_add(q, OP(.opcode = PRISM_OP_READ, .rkey = rk, .addr = a,
			    .len = 8, .arg_addr = a), NULL);
		break;
	case 27:
		t_add(q, OP(.opcode = PRISM_OP_CAS, .rkey = rk, .addr = a,
			    .len = 8, .data_len = 32, .swap_addr = a), cas);
		break;
	case 28:
		t_add(q, OP(.opcode = PRISM_OP_ALLOC, .rkey = rk,
			    .addr = 1ULL << 32, .len = 0), NULL);
		break;
	case 29:
		t_add(q, OP(.opcode = PRISM_OP_SEND, .addr = 1, .len = 0),
		      NULL);
		break;
	case 30:
		t_add(q, OP(.opcode = PRISM_OP_READ,
			    .flags = PRISM_F_ADDR_SCRATCH,
			    .addr = PRISM_SCRATCH_SIZE, .len = 1), NULL);
		break;
	case 31:
		t_add(q, OP(.opcode = PRISM_OP_READ,
			    .flags = PRISM_F_REDIRECT |
				     PRISM_F_REDIRECT_SCRATCH,
			    .rkey = rk, .addr = a, .len = 8,
			    .redirect = PRISM_SCRATCH_SIZE - 4), NULL);
		break;
	case 32:
		t_add(q, OP(.opcode = PRISM_OP_READ,
			    .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED |
				     PRISM_F_ADDR_SCRATCH,
			    .rkey = rk, .addr = PRISM_SCRATCH_SIZE - 8,
			    .len = 8), NULL);
		break;
	case 33:
		t_add(q, OP(.opcode = PRISM_OP_CAS,
			    .flags = PRISM_F_CMP_INDIRECT | PRISM_F_ARG_SCRATCH,
			    .rkey = rk, .addr = a, .len = 8,
			    .arg_addr = U64_MAX - 2, .data_len = 24), cas);
		break;
	case 34:
		t_add(q, OP(.opcode = PRISM_OP_WRITE,
			    .flags = PRISM_F_DATA_INDIRECT | PRISM_F_ARG_SCRATCH,
			    .rkey = rk, .addr = a, .len = 300, .arg_addr = 0),
		      NULL);
		break;
	case 35:
		t_add(q, OP(.opcode = PRISM_OP_READ,
			    .flags = PRISM_F_DATA_INDIRECT, .rkey = rk,
			    .addr = a, .len = 8, .arg_addr = a), NULL);
		break;
	case 36:
		t_add(q, OP(.opcode = PRISM_OP_ALLOC, .flags = PRISM_F_INDIRECT,
			    .rkey = rk, .addr = 1, .len = 0), NULL);
		break;
	case 37:
		t_add(q, OP(.opcode = PRISM_OP_WRITE, .rkey = rk, .addr = a,
			    .len = 0), NULL);
		break;
	case 38:
		t_add_read(q, rk, a, 8);
		t_add_read(q, rk, a, 8);
		q->nops--;
		break;
	case 39:
		t_add(q, OP(.opcode = PRISM_OP_CAS, .rkey = rk, .addr = a,
			    .len = 8, .data_len = 24), cas);
		break;
	case 40: {
		struct prism_wop *w = (void *)(q->buf + q->len);
		struct prism_op *h = (void *)(q->host + q->len);

		/* Only 8 bytes of data follow: the len check must come first. */
		t_add(q, OP(.opcode = PRISM_OP_SEND, .len = 8, .data_len = 8),
		      d);
		w->len = cpu_to_be32(PRISM_MAX_OP_LEN + 1);
		w->data_len = w->len;
		h->len = PRISM_MAX_OP_LEN + 1;
		h->data_len = h->len;
		break;
	}
	case 41:
		t_add(q, OP(.opcode = PRISM_OP_READ,
			    .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED |
				     PRISM_F_REDIRECT |
				     PRISM_F_REDIRECT_SCRATCH,
			    .rkey = rk, .addr = a, .len = 64,
			    .redirect = PRISM_SCRATCH_SIZE - 32), NULL);
		break;
	case 42:
		t_add(q, OP(.opcode = PRISM_OP_REKEY, .rkey = rk, .len = 15,
			    .data_len = 15), d);
		break;
	case 43:
		t_add(q, OP(.opcode = PRISM_OP_REKEY, .rkey = rk,
			    .addr = PRISM_MAX_OVERLAP_MS + 1,
			    .len = PRISM_KEY_SIZE, .data_len = PRISM_KEY_SIZE),
		      d);
		break;
	case 44:
		t_add(q, OP(.opcode = PRISM_OP_REKEY, .flags = PRISM_F_REDIRECT,
			    .rkey = rk, .len = PRISM_KEY_SIZE,
			    .redirect = VA(f, RA, 0x80),
			    .data_len = PRISM_KEY_SIZE), d);
		break;
	}
}

static void malformed_chain_is_invalid_and_touches_nothing(struct kunit *test)
{
	const struct t_bad *c = test->param_value;
	struct t_fix *f = test->priv;

	t_build_bad(f, c->kind);
	KUNIT_EXPECT_EQ(test, t_run(test, f), -PRISM_S_INVALID);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 0);
	t_check_mem(test, f);
	/* The userspace encoder refuses the same chain. */
	KUNIT_EXPECT_EQ(test, t_run_encoded(test, f), -EINVAL);
}

static void nops_up_to_max_chain_accepted(struct kunit *test)
{
	struct t_fix *f = test->priv;
	unsigned int i;

	for (i = 0; i < PRISM_MAX_CHAIN; i++)
		t_add_read(f->q, RK(f, RA), VA(f, RA, 8 * i), 8);
	t_run_ok(test, f);
	for (i = 0; i < PRISM_MAX_CHAIN; i++)
		T_ST(test, f, i, PRISM_S_OK);
}

/*
 * A chain may move at most PRISM_MAX_CHAIN_WORK bytes (sum of op lengths):
 * beyond that it is refused whole, before anything runs, on both paths.
 */
static void chain_work_is_bounded(struct kunit *test)
{
	struct t_fix *f = test->priv;
	unsigned int i, n = PRISM_MAX_CHAIN_WORK / PRISM_MAX_OP_LEN;
	u32 resp_len, work = 0;

	for (i = 0; i < n; i++)
		t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_REDIRECT,
			       .rkey = RK(f, RA), .addr = VA(f, RA, 0),
			       .len = PRISM_MAX_OP_LEN,
			       .redirect = VA(f, RA, 0x100)), NULL);
	KUNIT_EXPECT_EQ(test, prism_wire_check_work(f->q->buf, f->q->len,
						    f->q->nops, &resp_len,
						    &work), 0);
	KUNIT_EXPECT_EQ(test, work, PRISM_MAX_CHAIN_WORK);
	/* Within the bound it runs (and fails: the region is smaller). */
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	KUNIT_EXPECT_EQ(test, t_run_encoded(test, f), 0);

	/* One byte more is refused whole. */
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 1);
	KUNIT_EXPECT_EQ(test, prism_wire_check_work(f->q->buf, f->q->len,
						    f->q->nops, &resp_len,
						    &work), -E2BIG);
	KUNIT_EXPECT_EQ(test, prism_wire_check(f->q->buf, f->q->len,
					       f->q->nops, &resp_len), -E2BIG);
	KUNIT_EXPECT_EQ(test, t_run(test, f), -PRISM_S_INVALID);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 0);
	KUNIT_EXPECT_EQ(test, t_run_encoded(test, f), -EINVAL);
	t_check_mem(test, f);
}

/* ---------------------------------------------------------------------------
 * Encoding userspace chains.
 */
static void t_sample_chain(struct t_fix *f)
{
	static const u8 d[40] = "some inline data, not a multiple of 8";
	u8 cur[8] = { 0 }, swp[8] = "swap it";

	t_add_read(f->q, RK(f, RA), VA(f, RA, 0x10), 20);
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 0x30), d, 37);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_GE, .len = 8,
		  .flags = PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x200), .redirect = 8,
		  .cmp = cur, .swp = swp });
	t_add_alloc(f->q, PRISM_F_CONDITIONAL, RK(f, RA), 3, d, 3, 0);
	t_add(f->q, OP(.opcode = PRISM_OP_SEND, .len = 11, .data_len = 11), d);
	t_add(f->q, OP(.opcode = PRISM_OP_READ,
		       .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED |
				PRISM_F_ADDR_SCRATCH,
		       .rkey = RK(f, RA), .addr = 16, .len = 100), NULL);
}

/*
 * Encoding a chain in place (a large submission keeps its buffer) gives the
 * same wire body and response length as encoding it elsewhere.
 */
static void encode_in_place(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u32 resp_len = 0, resp_in = 0;
	u8 *out, *in;
	int ret;

	out = kunit_kzalloc(test, T_REQ_MAX, GFP_KERNEL);
	in = kunit_kzalloc(test, T_REQ_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, in);
	t_sample_chain(f);
	ret = prism_chain_encode(f->q->host, f->q->len, f->q->nops, out,
				 T_REQ_MAX, &resp_len);
	KUNIT_ASSERT_EQ(test, ret, (int)f->q->len);
	memcpy(in, f->q->host, f->q->len);
	KUNIT_EXPECT_EQ(test, prism_chain_encode(in, f->q->len, f->q->nops, in,
						 f->q->len, &resp_in),
			(int)f->q->len);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, in, out, f->q->len);
	KUNIT_EXPECT_EQ(test, resp_in, resp_len);
}

static void encode_matches_hand_built_wire_and_parses_back(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct prism_decoded_op pop;
	u32 resp_len = 0, pos = 0, hpos = 0;
	unsigned int i;
	u8 *out;
	int ret;

	out = kunit_kzalloc(test, T_REQ_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	t_sample_chain(f);
	ret = prism_chain_encode(f->q->host, f->q->len, f->q->nops, out,
				 T_REQ_MAX, &resp_len);
	KUNIT_ASSERT_EQ(test, ret, (int)f->q->len);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, out, f->q->buf, f->q->len);
	/* 6 results + READ 20 (24) + redirected CAS 0 + ALLOC 8 + READ 100 (104) */
	KUNIT_EXPECT_EQ(test, resp_len, 6 * 8 + 24 + 8 + 104);

	/* Decode: the host ops and their data come back. */
	for (i = 0; i < f->q->nops; i++) {
		const struct prism_op *h =
			(const struct prism_op *)(f->q->host + hpos);

		KUNIT_ASSERT_EQ(test, prism_wire_parse_op(out, ret, &pos, i,
							  &pop), 0);
		KUNIT_EXPECT_MEMEQ_COMPAT(test, &pop.op, h, sizeof(*h));
		KUNIT_EXPECT_PTR_EQ(test, pop.data,
				    (const u8 *)out + hpos + sizeof(*h));
		KUNIT_EXPECT_MEMEQ_COMPAT(test, pop.data,
					  f->q->host + hpos + sizeof(*h),
					  h->data_len);
		hpos += sizeof(*h) + PRISM_PAD8(h->data_len);
	}
	KUNIT_EXPECT_EQ(test, pos, (u32)ret);
	KUNIT_EXPECT_EQ(test, prism_wire_check(out, ret, f->q->nops,
					       &resp_len), 0);
	/* Wire fields are big-endian: flags of op 2 (CAS). */
	KUNIT_EXPECT_EQ(test, out[sizeof(struct prism_wop) * 2 + 40 + 2],
			(PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH) >> 8);
}

/*
 * Every field of a wire op at its offset, big-endian: the op whose wire
 * byte i is i + 1.  t_add() builds the requests of all suites with
 * prism_wop_encode(); this pins its output to fixed bytes.
 */
static void wop_encode_matches_fixed_bytes(struct kunit *test)
{
	static const struct prism_op op = {
		.opcode		= 0x01,
		.cas_mode	= 0x02,
		.flags		= 0x0304,
		.len		= 0x05060708,
		.rkey		= 0x090a0b0c0d0e0f10ULL,
		.addr		= 0x1112131415161718ULL,
		.redirect	= 0x191a1b1c1d1e1f20ULL,
		.arg_addr	= 0x2122232425262728ULL,
		.swap_addr	= 0x292a2b2c2d2e2f30ULL,
		.data_len	= 0x31323334,
		.reserved	= 0x35363738,
	};
	u8 want[sizeof(struct prism_wop)];
	struct prism_wop w;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sizeof(w), 56);
	for (i = 0; i < sizeof(want); i++)
		want[i] = i + 1;
	memset(&w, 0xee, sizeof(w));
	prism_wop_encode(&op, &w);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, &w, want, sizeof(want));
}

static void encode_errors(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u32 resp_len = 0xabcd;
	u8 *out;

	out = kunit_kzalloc(test, T_REQ_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	t_sample_chain(f);
	/* Too small an output buffer. */
	KUNIT_EXPECT_EQ(test, prism_chain_encode(f->q->host, f->q->len,
						 f->q->nops, out,
						 f->q->len - 1, &resp_len),
			-EMSGSIZE);
	/* Wrong op count or length. */
	KUNIT_EXPECT_EQ(test, prism_chain_encode(f->q->host, f->q->len, 0, out,
						 T_REQ_MAX, &resp_len),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_chain_encode(f->q->host, f->q->len,
						 f->q->nops - 1, out,
						 T_REQ_MAX, &resp_len),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_chain_encode(f->q->host, f->q->len - 8,
						 f->q->nops, out, T_REQ_MAX,
						 &resp_len), -EINVAL);
	/* Invalid wins over too small. */
	KUNIT_EXPECT_EQ(test, prism_chain_encode(f->q->host, f->q->len - 8,
						 f->q->nops, out, 8,
						 &resp_len), -EINVAL);
	KUNIT_EXPECT_EQ(test, resp_len, 0xabcd);
}

static void encoded_chain_executes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[8] = "encoded";
	u32 resp_len;
	u8 *out;
	int n;

	out = kunit_kzalloc(test, T_REQ_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, A_PB1 - 4), data, 8);
	t_add_read(f->q, RK(f, RA), VA(f, RA, A_PB1 - 4), 8);
	n = prism_chain_encode(f->q->host, f->q->len, f->q->nops, out,
			       T_REQ_MAX, &resp_len);
	KUNIT_ASSERT_GT(test, n, 0);
	memcpy(f->q->buf, out, n);
	KUNIT_EXPECT_EQ(test, t_run(test, f), resp_len);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), data, 8);
	t_expect(&f->r[RA], VA(f, RA, A_PB1 - 4), data, 8);
	t_check_mem(test, f);
}

/*
 * The ops of a multi-frame request without their data (an SREQ) give the
 * same body length, response length and work as the whole body; a chain
 * past PRISM_MAX_CHAIN_DATA of outputs is refused on both.
 */
static void manifest_matches_body(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u32 blen, resp, work, resp2, work2, pos = 0, i;
	struct prism_wop *w;
	u8 data[40] = { 1 };

	w = kunit_kzalloc(test, PRISM_MAX_CHAIN * sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 0), data, sizeof(data));
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 100);
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 64), data, 3);
	for (i = 0; i < f->q->nops; i++) {
		memcpy(&w[i], f->q->buf + pos, sizeof(*w));
		pos += sizeof(*w) + PRISM_PAD8(be32_to_cpu(w[i].data_len));
	}
	KUNIT_ASSERT_EQ(test, prism_wire_check_work(f->q->buf, f->q->len,
						    f->q->nops, &resp, &work),
			0);
	KUNIT_ASSERT_EQ(test, prism_wire_check_manifest((u8 *)w,
							f->q->nops * sizeof(*w),
							f->q->nops, &blen,
							&resp2, &work2), 0);
	KUNIT_EXPECT_EQ(test, blen, f->q->len);
	KUNIT_EXPECT_EQ(test, resp2, resp);
	KUNIT_EXPECT_EQ(test, work2, work);
	/* Not a whole number of ops, or an invalid op: refused. */
	KUNIT_EXPECT_EQ(test, prism_wire_check_manifest((u8 *)w,
							f->q->nops * sizeof(*w) - 1,
							f->q->nops, &blen,
							&resp2, &work2), -EINVAL);
	w[1].len = cpu_to_be32(PRISM_MAX_OP_LEN + 1);
	KUNIT_EXPECT_EQ(test, prism_wire_check_manifest((u8 *)w,
							f->q->nops * sizeof(*w),
							f->q->nops, &blen,
							&resp2, &work2), -EINVAL);
	/* Three READs of 1 MiB: 3 MiB of outputs, past the chain's 2 MiB. */
	for (i = 0; i < 3; i++) {
		struct prism_op op = { .opcode = PRISM_OP_READ,
				       .rkey = RK(f, RA), .addr = VA(f, RA, 0),
				       .len = PRISM_MAX_OP_DATA };

		prism_wop_encode(&op, &w[i]);
	}
	KUNIT_EXPECT_EQ(test, prism_wire_check_manifest((u8 *)w, 2 * sizeof(*w),
							2, &blen, &resp2,
							&work2), 0);
	KUNIT_EXPECT_EQ(test, resp2, 2 * (u32)sizeof(struct prism_wres) +
			2 * PRISM_MAX_OP_DATA);
	KUNIT_EXPECT_EQ(test, prism_wire_check_manifest((u8 *)w, 3 * sizeof(*w),
							3, &blen, &resp2,
							&work2), -EINVAL);
}

static struct kunit_case prism_wire_cases[] = {
	KUNIT_CASE(scratch_bounds_are_checked),
	KUNIT_CASE_PARAM(malformed_chain_is_invalid_and_touches_nothing,
			 t_bad_gen_params),
	KUNIT_CASE(nops_up_to_max_chain_accepted),
	KUNIT_CASE(chain_work_is_bounded),
	KUNIT_CASE(encode_matches_hand_built_wire_and_parses_back),
	KUNIT_CASE(encode_in_place),
	KUNIT_CASE(wop_encode_matches_fixed_bytes),
	KUNIT_CASE(encode_errors),
	KUNIT_CASE(encoded_chain_executes),
	KUNIT_CASE(manifest_matches_body),
	{}
};

static struct kunit_suite prism_wire_suite = {
	.name = "prism_wire",
	.init = t_init,
	.exit = t_exit,
	.test_cases = prism_wire_cases,
};

kunit_test_suite(prism_wire_suite);
