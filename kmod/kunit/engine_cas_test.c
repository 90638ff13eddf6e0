// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of engine.c, the execution of request chains: CAS (modes,
 * masks, indirect operands, atomicity under concurrent use), REDIRECT of
 * an op's output and CONDITIONAL ops.  READ, WRITE and SEND are in
 * engine_test.c; the fixture is in utils.c.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/bottom_half.h>
#include <asm/unaligned.h>
#include "utils.h"

/* ---------------------------------------------------------------------------
 * CAS
 */
static void cas_eq_swaps_and_returns_old(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 old[8], cmp[8], swp[8];

	/* Aligned 8 bytes (the cmpxchg path). */
	put_unaligned_le64(0x1122334455667788ULL, old);
	put_unaligned_le64(0x1122334455667788ULL, cmp);
	put_unaligned_le64(0xcafef00ddeadbeefULL, swp);
	t_poke(&f->r[RA], VA(f, RA, 0x200), old, 8);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(VA(f, RA, 0x200), 8));
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x200), .cmp = cmp,
		  .swp = swp });
	/* The same again, now failing: the value changed. */
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x200), .cmp = cmp,
		  .swp = cmp });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 8);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), old, 8);
	T_ST(test, f, 1, PRISM_S_CMP_FAILED);
	KUNIT_EXPECT_EQ(test, t_olen(f, 1), 8);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), swp, 8);
	t_expect(&f->r[RA], VA(f, RA, 0x200), swp, 8);
	t_check_mem(test, f);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 1);
}

static void cas_unaligned_8_bytes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[8], swp[8] = "swapped";

	t_shadow(&f->r[RA], VA(f, RA, 0x203), cur, 8);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x203), .cmp = cur,
		  .swp = swp });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), cur, 8);
	t_expect(&f->r[RA], VA(f, RA, 0x203), swp, 8);
	t_check_mem(test, f);
}

/* Each mode, with its expected outcome for compare <, ==, > target. */
struct t_mode {
	const char	*name;
	u8		mode;
	bool		ok[3];
};

static const struct t_mode t_mode_cases[] = {
	{ "EQ", PRISM_CAS_EQ, { false, true, false } },
	{ "NE", PRISM_CAS_NE, { true, false, true } },
	{ "GT", PRISM_CAS_GT, { false, false, true } },
	{ "GE", PRISM_CAS_GE, { false, true, true } },
	{ "LT", PRISM_CAS_LT, { true, false, false } },
	{ "LE", PRISM_CAS_LE, { true, true, false } },
};

static void t_mode_desc(const struct t_mode *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "mode %s", c->name);
}

KUNIT_ARRAY_PARAM(t_mode, t_mode_cases, t_mode_desc);

static void cas_mode_compares_le_numbers(struct kunit *test)
{
	const struct t_mode *c = test->param_value;
	struct t_fix *f = test->priv;
	/*
	 * Target 0x00000100.  "Less" 0x000000ff has the larger low byte: a
	 * byte-wise comparison from byte 0 would get it wrong.
	 */
	static const u8 target[4] = { 0x00, 0x01, 0x00, 0x00 };
	static const u8 cmps[3][4] = {
		{ 0xff, 0x00, 0x00, 0x00 },
		{ 0x00, 0x01, 0x00, 0x00 },
		{ 0x01, 0x01, 0x00, 0x00 },
	};
	static const u8 swp[4] = { 0xa1, 0xa2, 0xa3, 0xa4 };
	unsigned int rel;

	for (rel = 0; rel < 3; rel++) {
		u64 at = VA(f, RA, 0x300 + 16 * rel);

		t_poke(&f->r[RA], at, target, 4);
		t_add_cas(f->q, &(struct t_cas){ .mode = c->mode, .len = 4,
			  .rkey = RK(f, RA), .addr = at, .cmp = cmps[rel],
			  .swp = swp });
	}
	t_run_ok(test, f);
	for (rel = 0; rel < 3; rel++) {
		bool ok = c->ok[rel];

		KUNIT_EXPECT_EQ_MSG(test, t_status(f, rel),
				    ok ? PRISM_S_OK : PRISM_S_CMP_FAILED,
				    "mode %s relation %u", c->name, rel);
		KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, rel), target, 4);
		if (ok)
			t_expect(&f->r[RA], VA(f, RA, 0x300 + 16 * rel), swp,
				 4);
	}
	t_check_mem(test, f);
}

static void cas_most_significant_byte_decides_16_bytes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	/* struct { u64 addr; u64 tag; }: the tag is the high half. */
	u8 tgt[16], bigger[16], smaller[16], swp[16];

	put_unaligned_le64(0xffffffffffffffffULL, tgt);
	put_unaligned_le64(1, tgt + 8);
	put_unaligned_le64(0, bigger);			/* low half smaller */
	put_unaligned_le64(2, bigger + 8);		/* tag larger */
	put_unaligned_le64(0xffffffffffffffffULL, smaller);
	put_unaligned_le64(0, smaller + 8);
	put_unaligned_le64(0x4242, swp);
	put_unaligned_le64(2, swp + 8);

	t_poke(&f->r[RA], VA(f, RA, 0x400), tgt, 16);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_GT, .len = 16,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x400),
		  .cmp = smaller, .swp = swp });
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_GT, .len = 16,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x400),
		  .cmp = bigger, .swp = swp });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_CMP_FAILED);
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), tgt, 16);
	t_expect(&f->r[RA], VA(f, RA, 0x400), swp, 16);
	t_check_mem(test, f);
}

static void cas_compare_mask_ignores_masked_bytes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[8], cmp[8], swp[8] = "maskswap";
	static const u8 cm[8] = { 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x0f };

	t_shadow(&f->r[RA], VA(f, RA, 0x500), cur, 8);
	memcpy(cmp, cur, 8);
	cmp[0] ^= 0xff;		/* outside the mask */
	cmp[7] ^= 0xf0;		/* masked-out nibble */
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x500), .cmp = cmp,
		  .swp = swp, .cm = cm });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 0x500), swp, 8);
	t_check_mem(test, f);

	/* A difference inside the mask fails. */
	t_reset(f);
	memcpy(cmp, swp, 8);
	cmp[5] ^= 1;
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x500), .cmp = cmp,
		  .swp = cur, .cm = cm });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_CMP_FAILED);
	t_check_mem(test, f);
}

static void cas_masked_ordering_uses_masked_values(struct kunit *test)
{
	struct t_fix *f = test->priv;
	/* target 0x80 01, compare 0x10 02, mask keeps only the low byte. */
	static const u8 tgt[2] = { 0x01, 0x80 };
	static const u8 cmp[2] = { 0x02, 0x10 };
	static const u8 cm[2] = { 0xff, 0x00 };
	static const u8 swp[2] = { 0x55, 0x66 };

	t_poke(&f->r[RA], VA(f, RA, 0x520), tgt, 2);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_GT, .len = 2,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x520), .cmp = cmp,
		  .swp = swp, .cm = cm });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 0x520), swp, 2);
	t_check_mem(test, f);
}

static void cas_swap_mask_changes_only_masked_bits(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[8], want[8], i;
	static const u8 swp[8] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
	static const u8 sm[8] = { 0x0f, 0, 0xff, 0, 0xff, 0, 0, 0x80 };

	t_shadow(&f->r[RA], VA(f, RA, 0x540), cur, 8);
	for (i = 0; i < 8; i++)
		want[i] = (cur[i] & ~sm[i]) | (swp[i] & sm[i]);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x540), .cmp = cur,
		  .swp = swp, .sm = sm });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), cur, 8);
	t_expect(&f->r[RA], VA(f, RA, 0x540), want, 8);
	t_check_mem(test, f);
}

static void cas_32_bytes_across_page_and_lines(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[32], swp[32];
	unsigned int i;

	for (i = 0; i < 32; i++)
		swp[i] = 0x80 + i;
	/* Over the page boundary, then over a line boundary in a page. */
	t_shadow(&f->r[RA], VA(f, RA, A_PB1 - 16), cur, 32);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 32,
		  .rkey = RK(f, RA), .addr = VA(f, RA, A_PB1 - 16),
		  .cmp = cur, .swp = swp });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), cur, 32);
	t_expect(&f->r[RA], VA(f, RA, A_PB1 - 16), swp, 32);
	t_check_mem(test, f);

	t_reset(f);
	t_shadow(&f->r[RA], VA(f, RA, 0x30), cur, 32);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 32,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x30), .cmp = cur,
		  .swp = swp });
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_LT, .len = 1,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x40), .cmp = swp,
		  .swp = cur });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 0x30), swp, 32);
	/* Now swp[0x10] = 0x90 is there; compare swp[0] = 0x80 < 0x90. */
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_out(f, 1)[0], 0x90);
	t_expect(&f->r[RA], VA(f, RA, 0x40), cur, 1);
	t_check_mem(test, f);
}

static void cas_indirect_operands_from_region_and_scratch(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[16], swp[16] = "from the region";
	static const u8 cmpdata[16] = "not the value..";

	t_shadow(&f->r[RA], VA(f, RA, 0x600), cur, 16);
	/* compare value in scratch (written by op 0), swap value in A. */
	t_add_write(f->q, PRISM_F_ADDR_SCRATCH, 0, 64, cur, 16);
	t_poke(&f->r[RA], VA(f, RA, 0x700), swp, 16);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 16,
		  .flags = PRISM_F_CMP_INDIRECT | PRISM_F_ARG_SCRATCH,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x600), .arg_addr = 64,
		  .swp = swp });
	/* Now both from A: compare = cmpdata, fails. */
	t_poke(&f->r[RA], VA(f, RA, 0x720), cmpdata, 16);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 16,
		  .flags = PRISM_F_CMP_INDIRECT | PRISM_F_SWAP_INDIRECT,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x600),
		  .arg_addr = VA(f, RA, 0x720),
		  .swap_addr = VA(f, RA, 0x700) });
	/* Swap value from scratch, compare inline. */
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 16,
		  .flags = PRISM_F_SWAP_INDIRECT | PRISM_F_ARG_SCRATCH,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x600), .cmp = swp,
		  .swap_addr = 64 });
	t_run_ok(test, f);
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), cur, 16);
	T_ST(test, f, 2, PRISM_S_CMP_FAILED);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 2), swp, 16);
	T_ST(test, f, 3, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 3), swp, 16);
	t_expect(&f->r[RA], VA(f, RA, 0x600), cur, 16);
	t_check_mem(test, f);
}

static void cas_indirect_target(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[4], swp[4] = { 1, 2, 3, 4 };

	t_poke_le64(&f->r[RA], VA(f, RA, 0x40), VA(f, RA, 0xa00));
	t_shadow(&f->r[RA], VA(f, RA, 0xa00), cur, 4);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 4,
		  .flags = PRISM_F_INDIRECT, .rkey = RK(f, RA),
		  .addr = VA(f, RA, 0x40), .cmp = cur, .swp = swp });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 0xa00), swp, 4);
	t_check_mem(test, f);
}

static void cas_needs_atomic_right(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[8], swp[8] = "atomic!";

	/* D has READ and WRITE but no ATOMIC; B only READ. */
	t_shadow(&f->r[RD], VA(f, RD, 0), cur, 8);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RD), .addr = VA(f, RD, 0), .cmp = cur,
		  .swp = swp });
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_NE, .len = 8,
		  .rkey = RK(f, RB), .addr = VA(f, RB, 0), .cmp = swp,
		  .swp = swp });
	/* C has WRITE|ATOMIC, no READ: CAS works (returns old value). */
	t_shadow(&f->r[RC], VA(f, RC, 0), cur, 8);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RC), .addr = VA(f, RC, 0), .cmp = cur,
		  .swp = swp });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
	T_ST(test, f, 1, PRISM_S_ACCESS);
	T_ST(test, f, 2, PRISM_S_OK);
	t_expect(&f->r[RC], VA(f, RC, 0), swp, 8);
	t_check_mem(test, f);
}

static void cas_on_scratch(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 zero[8], one[8] = { 1 };

	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .flags = PRISM_F_ADDR_SCRATCH, .addr = 8, .cmp = zero,
		  .swp = one });
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .flags = PRISM_F_ADDR_SCRATCH, .addr = 8, .cmp = zero,
		  .swp = one });
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_ADDR_SCRATCH,
		       .addr = 8, .len = 8), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), zero, 8);
	T_ST(test, f, 1, PRISM_S_CMP_FAILED);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), one, 8);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 2), one, 8);
	t_check_mem(test, f);
}

static void cas_failed_redirect_check_leaves_target(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[8], swp[8] = "swapped";

	t_shadow(&f->r[RC], VA(f, RC, 0x10), cur, 8);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .flags = PRISM_F_REDIRECT, .rkey = RK(f, RC),
		  .addr = VA(f, RC, 0x10), .redirect = VA(f, RC, PAGE_SIZE),
		  .cmp = cur, .swp = swp });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	t_check_mem(test, f);
}

/* ---------------------------------------------------------------------------
 * REDIRECT and CONDITIONAL
 */
static void redirect_read_to_scratch_then_read_scratch(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 want[16];

	t_add(f->q, OP(.opcode = PRISM_OP_READ,
		       .flags = PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0x10), .len = 16,
		       .redirect = 32), NULL);
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_ADDR_SCRATCH,
		       .addr = 32, .len = 16), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
	T_ST(test, f, 1, PRISM_S_OK);
	t_shadow(&f->r[RA], VA(f, RA, 0x10), want, 16);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), want, 16);
	t_check_mem(test, f);
}

static void redirect_read_to_region(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u8 small[16], *big;
	u32 n = 1000;

	big = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	t_shadow(r, VA(f, RA, 0x10), small, 16);
	t_shadow(r, VA(f, RA, 0x1800), big, n);
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_REDIRECT,
		       .rkey = r->rkey, .addr = VA(f, RA, 0x10), .len = 16,
		       .redirect = VA(f, RA, 0xa00)), NULL);
	/* Large copy over the page boundary. */
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_REDIRECT,
		       .rkey = r->rkey, .addr = VA(f, RA, 0x1800), .len = n,
		       .redirect = VA(f, RA, A_PB1 - 300)), NULL);
	KUNIT_ASSERT_EQ(test, t_run(test, f), 16);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_expect(r, VA(f, RA, 0xa00), small, 16);
	t_expect(r, VA(f, RA, A_PB1 - 300), big, n);
	t_check_mem(test, f);
}

static void redirect_needs_write_right_and_range(struct kunit *test)
{
	struct t_fix *f = test->priv;

	/* B is read-only: the output cannot be stored there. */
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_REDIRECT,
		       .rkey = RK(f, RB), .addr = VA(f, RB, 0), .len = 8,
		       .redirect = VA(f, RB, 0x100)), NULL);
	/* Redirect must fit len bytes even when the bounded read is short. */
	t_poke_le64(&f->r[RA], VA(f, RA, 0x40), VA(f, RA, 0x100));
	t_poke_le64(&f->r[RA], VA(f, RA, 0x48), 2);
	t_add(f->q, OP(.opcode = PRISM_OP_READ,
		       .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED |
				PRISM_F_REDIRECT,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0x40), .len = 16,
		       .redirect = f->r[RA].start + f->r[RA].len - 8), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	T_ST(test, f, 1, PRISM_S_ACCESS);
	t_check_mem(test, f);
}

static void redirect_cas_old_value_even_on_failure(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[8], bad[8] = "bad cmp";

	t_shadow(&f->r[RA], VA(f, RA, 0x300), cur, 8);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .flags = PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x300), .redirect = 0,
		  .cmp = bad, .swp = bad });
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .flags = PRISM_F_REDIRECT, .rkey = RK(f, RA),
		  .addr = VA(f, RA, 0x300), .redirect = VA(f, RA, 0x310),
		  .cmp = cur, .swp = bad });
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_ADDR_SCRATCH,
		       .addr = 0, .len = 8), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_CMP_FAILED);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 1), 0);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 2), cur, 8);
	t_expect(&f->r[RA], VA(f, RA, 0x300), bad, 8);
	t_expect(&f->r[RA], VA(f, RA, 0x310), cur, 8);
	t_check_mem(test, f);
}

static void conditional_skipped_after_cmp_failed(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 bad[8] = "bad cmp";

	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x300), .cmp = bad,
		  .swp = bad });
	t_add_write(f->q, PRISM_F_CONDITIONAL, RK(f, RA), VA(f, RA, 0x10),
		    bad, 8);
	/* SKIPPED is not OK either: the next one is skipped too. */
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_CONDITIONAL,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0), .len = 8),
	      NULL);
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 8);
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_CONDITIONAL,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0), .len = 8),
	      NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_CMP_FAILED);
	T_ST(test, f, 1, PRISM_S_SKIPPED);
	T_ST(test, f, 2, PRISM_S_SKIPPED);
	KUNIT_EXPECT_EQ(test, t_olen(f, 2), 0);
	T_ST(test, f, 3, PRISM_S_OK);
	T_ST(test, f, 4, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 3);
	t_check_mem(test, f);
}

static void conditional_skipped_after_access(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[8] = "skipped";

	t_add_read(f->q, RK(f, RA), VA(f, RA, 0) - 8, 8);
	t_add_write(f->q, PRISM_F_CONDITIONAL, RK(f, RA), VA(f, RA, 0x10),
		    data, 8);
	t_add_read(f->q, 99, VA(f, RA, 0), 8);
	t_add_write(f->q, PRISM_F_CONDITIONAL, RK(f, RA), VA(f, RA, 0x10),
		    data, 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	T_ST(test, f, 1, PRISM_S_SKIPPED);
	T_ST(test, f, 2, PRISM_S_AUTH);
	T_ST(test, f, 3, PRISM_S_SKIPPED);
	t_check_mem(test, f);
}

static void conditional_runs_after_ok(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 cur[8], swp[8] = "newvalue";
	static const u8 data[8] = "written";

	t_shadow(&f->r[RA], VA(f, RA, 0x300), cur, 8);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x300), .cmp = cur,
		  .swp = swp });
	t_add_write(f->q, PRISM_F_CONDITIONAL, RK(f, RA), VA(f, RA, 0x10),
		    data, 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 0x300), swp, 8);
	t_expect(&f->r[RA], VA(f, RA, 0x10), data, 8);
	t_check_mem(test, f);
}

/* ---------------------------------------------------------------------------
 * Concurrency: CAS increments of a 16-byte counter {v, v} straddling a page
 * boundary from several threads, with readers checking that no 16-byte
 * READ ever sees the halves differ.
 */
#define T_STRESS_ITERS	1500

struct t_worker {
	struct t_fix		*f;
	struct t_req		q;
	u8			resp[256];
	struct prism_exec_ctx	ctx;
	bool			reader;
	u32			torn;
	u32			done;
	u32			bad;
	struct completion	exited;
};

static int t_exec_worker(struct t_worker *w)
{
	int ret;

	local_bh_disable();
	rcu_read_lock();
	ret = prism_engine_execute(&w->ctx, w->q.buf, w->q.len, w->q.nops,
				   w->resp, sizeof(w->resp));
	rcu_read_unlock();
	local_bh_enable();
	return ret;
}

static int t_stress_fn(void *arg)
{
	struct t_worker *w = arg;
	struct t_fix *f = w->f;
	u64 at = VA(f, RA, A_PB1 - 8);
	u8 cur[16], swp[16];
	u64 v = 0;

	while (w->done < T_STRESS_ITERS) {
		w->q.len = 0;
		w->q.nops = 0;
		if (w->reader) {
			t_add_read(&w->q, RK(f, RA), at, 16);
			if (t_exec_worker(w) < 0 || w->resp[0] != PRISM_S_OK)
				w->bad++;
			else if (memcmp(w->resp + 8, w->resp + 16, 8))
				w->torn++;
			w->done++;
		} else {
			put_unaligned_le64(v, cur);
			put_unaligned_le64(v, cur + 8);
			put_unaligned_le64(v + 1, swp);
			put_unaligned_le64(v + 1, swp + 8);
			t_add_cas(&w->q, &(struct t_cas){ .mode = PRISM_CAS_EQ,
				  .len = 16, .rkey = RK(f, RA), .addr = at,
				  .cmp = cur, .swp = swp });
			if (t_exec_worker(w) < 0) {
				w->bad++;
				w->done++;
			} else if (w->resp[0] == PRISM_S_OK) {
				w->done++;
				v++;
			} else {
				/* Lost the race: retry from the old value. */
				if (memcmp(w->resp + 8, w->resp + 16, 8))
					w->torn++;
				v = get_unaligned_le64(w->resp + 8);
			}
		}
		cond_resched();
	}
	complete(&w->exited);
	return 0;
}

static void cas_concurrent_increments_are_atomic(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_worker *w;
	struct task_struct *t;
	u8 zero[16] = { 0 }, final[16];
	unsigned int i, n = 4, writers = 3;

	w = kunit_kcalloc(test, n, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	t_poke(&f->r[RA], VA(f, RA, A_PB1 - 8), zero, 16);
	for (i = 0; i < n; i++) {
		w[i].f = f;
		w[i].ctx.mem = &f->mem;
		w[i].reader = i >= writers;
		init_completion(&w[i].exited);
		t = kthread_run(t_stress_fn, &w[i], "prism_stress/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	for (i = 0; i < n; i++)
		wait_for_completion(&w[i].exited);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, w[i].bad, 0);
		KUNIT_EXPECT_EQ(test, w[i].torn, 0);
	}
	t_peek(&f->r[RA], VA(f, RA, A_PB1 - 8), final, 16);
	KUNIT_EXPECT_EQ(test, get_unaligned_le64(final),
			(u64)writers * T_STRESS_ITERS);
	KUNIT_EXPECT_EQ(test, get_unaligned_le64(final + 8),
			(u64)writers * T_STRESS_ITERS);
}

static struct kunit_case prism_engine_cas_cases[] = {
	KUNIT_CASE(cas_eq_swaps_and_returns_old),
	KUNIT_CASE(cas_unaligned_8_bytes),
	KUNIT_CASE_PARAM(cas_mode_compares_le_numbers,
			 t_mode_gen_params),
	KUNIT_CASE(cas_most_significant_byte_decides_16_bytes),
	KUNIT_CASE(cas_compare_mask_ignores_masked_bytes),
	KUNIT_CASE(cas_masked_ordering_uses_masked_values),
	KUNIT_CASE(cas_swap_mask_changes_only_masked_bits),
	KUNIT_CASE(cas_32_bytes_across_page_and_lines),
	KUNIT_CASE(cas_indirect_operands_from_region_and_scratch),
	KUNIT_CASE(cas_indirect_target),
	KUNIT_CASE(cas_needs_atomic_right),
	KUNIT_CASE(cas_on_scratch),
	KUNIT_CASE(cas_failed_redirect_check_leaves_target),
	KUNIT_CASE(redirect_read_to_scratch_then_read_scratch),
	KUNIT_CASE(redirect_read_to_region),
	KUNIT_CASE(redirect_needs_write_right_and_range),
	KUNIT_CASE(redirect_cas_old_value_even_on_failure),
	KUNIT_CASE(conditional_skipped_after_cmp_failed),
	KUNIT_CASE(conditional_skipped_after_access),
	KUNIT_CASE(conditional_runs_after_ok),
	KUNIT_CASE(cas_concurrent_increments_are_atomic),
	{}
};

static struct kunit_suite prism_engine_cas_suite = {
	.name = "prism_engine_cas",
	.init = t_init,
	.exit = t_exit,
	.test_cases = prism_engine_cas_cases,
};

kunit_test_suite(prism_engine_cas_suite);
