// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of engine.c, the execution of request chains: READ, WRITE
 * and SEND, the response size bound (TOO_BIG) and the failed-ops counter.
 * CAS, REDIRECT and CONDITIONAL are in engine_cas_test.c; the fixture
 * (regions A to D, t_add() and friends) is in utils.c.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <asm/unaligned.h>
#include "utils.h"

/* ---------------------------------------------------------------------------
 * READ
 */
static void read_direct_returns_region_bytes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 want[24];

	t_add_read(f->q, RK(f, RA), VA(f, RA, 8), 24);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 24);
	t_shadow(&f->r[RA], VA(f, RA, 8), want, sizeof(want));
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, sizeof(want));
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 0);
	t_check_mem(test, f);
}

static void read_small_across_page_boundary(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 want[32];

	/* 16 and 32 bytes, half on each page: the locked small path. */
	t_add_read(f->q, RK(f, RA), VA(f, RA, A_PB1 - 8), 16);
	t_add_read(f->q, RK(f, RA), VA(f, RA, A_PB1 - 16), 32);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_shadow(&f->r[RA], VA(f, RA, A_PB1 - 8), want, 16);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, 16);
	t_shadow(&f->r[RA], VA(f, RA, A_PB1 - 16), want, 32);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), want, 32);
}

static void read_whole_multi_page_region(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u8 *want;

	want = kunit_kzalloc(test, r->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	t_add_read(f->q, r->rkey, r->start, r->len);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), r->len);
	t_shadow(r, r->start, want, r->len);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, r->len);
}

static void read_last_bytes_of_region_ok(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u8 want[16];

	t_add_read(f->q, r->rkey, r->start + r->len - 16, 16);
	t_add_read(f->q, r->rkey, r->start, 1);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_shadow(r, r->start + r->len - 16, want, 16);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, 16);
}

static void read_outside_region_is_access(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	unsigned int i;

	t_add_read(f->q, r->rkey, r->start + r->len - 8, 16);	/* past end */
	t_add_read(f->q, r->rkey, r->start - 1, 4);		/* before */
	t_add_read(f->q, r->rkey, r->start + r->len, 1);	/* at end */
	t_add_read(f->q, r->rkey, U64_MAX - 3, 8);		/* wraps */
	t_add_read(f->q, r->rkey, 0, 8);
	t_run_ok(test, f);
	for (i = 0; i < 5; i++) {
		T_ST(test, f, i, PRISM_S_ACCESS);
		KUNIT_EXPECT_EQ(test, t_olen(f, i), 0);
	}
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 5);
}

static void read_unknown_rkey_is_auth(struct kunit *test)
{
	struct t_fix *f = test->priv;

	t_add_read(f->q, RK(f, RA) ^ 1, VA(f, RA, 0), 8);
	t_add_read(f->q, 0, VA(f, RA, 0), 8);
	/* A's address with B's key: B's bounds apply. */
	t_add_read(f->q, RK(f, RB), VA(f, RA, 0), 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_AUTH);
	T_ST(test, f, 1, PRISM_S_AUTH);
	T_ST(test, f, 2, PRISM_S_ACCESS);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
}

static void read_without_read_right_is_access(struct kunit *test)
{
	struct t_fix *f = test->priv;

	t_add_read(f->q, RK(f, RC), VA(f, RC, 0), 8);
	t_add_read(f->q, RK(f, RD), VA(f, RD, 0), 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	T_ST(test, f, 1, PRISM_S_OK);
}

/*
 * A keyed region (keyed.c): unsealed chains do not reach it; a chain sealed
 * for it gets the rights of its key; one sealed for another region gets
 * AUTH there; plain regions are reached as ever.
 */
static void keyed_region_needs_its_sealed_chain(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 want[8];

	prism_region_find(&f->mem, RK(f, RA))->keyed = true;
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 8);
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 16), "keyed!!!", 8);
	t_add_read(f->q, RK(f, RB), VA(f, RB, 0), 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_AUTH);
	T_ST(test, f, 1, PRISM_S_AUTH);
	T_ST(test, f, 2, PRISM_S_OK);

	/* Sealed for A with a read-only key. */
	t_reset(f);
	f->ctx.auth_rkey = RK(f, RA);
	f->ctx.auth_rights = PRISM_ACCESS_REMOTE_READ;
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 8);
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 16), "keyed!!!", 8);
	t_add_read(f->q, RK(f, RB), VA(f, RB, 0), 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	t_shadow(&f->r[RA], VA(f, RA, 0), want, sizeof(want));
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, sizeof(want));
	T_ST(test, f, 1, PRISM_S_ACCESS);
	T_ST(test, f, 2, PRISM_S_OK);

	/* With all rights, the WRITE lands. */
	t_reset(f);
	f->ctx.auth_rights = PRISM_ACCESS_ALL;
	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 16), "keyed!!!", 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 16), "keyed!!!", 8);

	/* Sealed for another region: A is out of reach. */
	t_reset(f);
	f->ctx.auth_rkey = RK(f, RB);
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_AUTH);
	t_check_mem(test, f);
}

static void read_indirect_follows_le_pointer(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u8 want[24];

	/* The pointer itself straddles the page boundary. */
	t_poke_le64(r, VA(f, RA, A_PB1 - 3), VA(f, RA, 0x1500));
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_INDIRECT,
		       .rkey = r->rkey, .addr = VA(f, RA, A_PB1 - 3),
		       .len = 24), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 24);
	t_shadow(r, VA(f, RA, 0x1500), want, sizeof(want));
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, sizeof(want));
	t_check_mem(test, f);
}

static void read_indirect_bad_pointers_are_access(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	unsigned int i;

	t_poke_le64(r, VA(f, RA, 0x40), r->start - 8);		/* before */
	t_poke_le64(r, VA(f, RA, 0x48), VA(f, RB, 0x10));	/* B's bytes */
	t_poke_le64(r, VA(f, RA, 0x50), r->start + r->len - 4); /* straddles */
	t_poke_le64(r, VA(f, RA, 0x58), U64_MAX - 2);		/* wraps */
	for (i = 0; i < 4; i++)
		t_add(f->q, OP(.opcode = PRISM_OP_READ,
			       .flags = PRISM_F_INDIRECT, .rkey = r->rkey,
			       .addr = VA(f, RA, 0x40 + 8 * i), .len = 8),
		      NULL);
	/* The pointer field itself straddles the end of the region. */
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_INDIRECT,
		       .rkey = r->rkey, .addr = r->start + r->len - 4,
		       .len = 8), NULL);
	t_run_ok(test, f);
	for (i = 0; i < 5; i++)
		T_ST(test, f, i, PRISM_S_ACCESS);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 5);
}

static void read_indirect_pointer_load_needs_read_right(struct kunit *test)
{
	struct t_fix *f = test->priv;

	/* C has no READ: neither the pointer nor the target can be read. */
	t_poke_le64(&f->r[RC], VA(f, RC, 0), VA(f, RC, 0x100));
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_INDIRECT,
		       .rkey = RK(f, RC), .addr = VA(f, RC, 0), .len = 8),
	      NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
}

static void t_bounded(struct t_fix *f, u64 slot, u64 ptr, u64 bound, u32 len)
{
	t_poke_le64(&f->r[RA], slot, ptr);
	t_poke_le64(&f->r[RA], slot + 8, bound);
	t_add(f->q, OP(.opcode = PRISM_OP_READ,
		       .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED,
		       .rkey = RK(f, RA), .addr = slot, .len = len), NULL);
}

static void read_bounded_reads_min_of_len_and_bound(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u8 want[16];

	t_bounded(f, VA(f, RA, 0x40), VA(f, RA, 0x600), 5, 16);  /* bound < len */
	t_bounded(f, VA(f, RA, 0x50), VA(f, RA, 0x700), 100, 16); /* bound > len */
	t_bounded(f, VA(f, RA, 0x60), VA(f, RA, 0x800), 0, 16);   /* bound 0 */
	/* Only the bytes actually read must lie in the region. */
	t_bounded(f, VA(f, RA, 0x70), r->start + r->len - 4, 4, 16);
	t_bounded(f, VA(f, RA, 0x80), r->start + r->len - 4, 5, 16);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 5);
	t_shadow(r, VA(f, RA, 0x600), want, 5);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, 5);
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 1), 16);
	t_shadow(r, VA(f, RA, 0x700), want, 16);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), want, 16);
	T_ST(test, f, 2, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 2), 0);
	T_ST(test, f, 3, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 3), 4);
	t_shadow(r, r->start + r->len - 4, want, 4);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 3), want, 4);
	T_ST(test, f, 4, PRISM_S_ACCESS);
}

/*
 * Zero-length accesses: a bounded READ through {ptr, 0} reads nothing and
 * touches no page, even when ptr is the end of a region that ends on a
 * page boundary (there is no page there).
 */
struct t_zero {
	const char	*name;
	unsigned int	reg;		/* region of the pointer and the target */
	u64		slot;		/* offset of the {ptr, bound} pair */
	bool		at_end;		/* ptr = end of region, else its start */
	u16		flags;		/* REDIRECT flags added to the READ */
};

static const struct t_zero t_zero_cases[] = {
	{ "end of page-aligned region", RD, 0x10, true, 0 },
	{ "end of page-aligned region, redirect to scratch", RD, 0x10, true,
	  PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH },
	{ "end of page-aligned region, redirect to region", RD, 0x10, true,
	  PRISM_F_REDIRECT },
	{ "end of region inside a page", RA, 0x40, true, 0 },
	{ "start of region", RD, 0x10, false, 0 },
};

static void t_zero_desc(const struct t_zero *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_zero, t_zero_cases, t_zero_desc);

static void read_bounded_zero_touches_nothing(struct kunit *test)
{
	const struct t_zero *c = test->param_value;
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[c->reg];
	u64 ptr = c->at_end ? r->start + r->len : r->start;
	u64 redirect = 0;

	if (c->flags & PRISM_F_REDIRECT_SCRATCH)
		redirect = 64;
	else if (c->flags & PRISM_F_REDIRECT)
		redirect = r->start + 0x100;
	t_poke_le64(r, r->start + c->slot, ptr);
	t_poke_le64(r, r->start + c->slot + 8, 0);
	t_add(f->q, OP(.opcode = PRISM_OP_READ,
		       .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED | c->flags,
		       .rkey = r->rkey, .addr = r->start + c->slot, .len = 16,
		       .redirect = redirect), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 0);
	t_check_mem(test, f);
}

static void read_indirect_through_scratch_pointer(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 ptr[8], want[8];

	put_unaligned_le64(VA(f, RA, 0x900), ptr);
	t_add_write(f->q, PRISM_F_ADDR_SCRATCH, 0, 24, ptr, 8);
	t_add(f->q, OP(.opcode = PRISM_OP_READ,
		       .flags = PRISM_F_INDIRECT | PRISM_F_ADDR_SCRATCH,
		       .rkey = RK(f, RA), .addr = 24, .len = 8), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_shadow(&f->r[RA], VA(f, RA, 0x900), want, 8);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), want, 8);
	t_check_mem(test, f);
}

static void read_scratch_starts_zeroed(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 zero[PRISM_SCRATCH_SIZE];

	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_ADDR_SCRATCH,
		       .addr = 0, .len = PRISM_SCRATCH_SIZE), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), PRISM_SCRATCH_SIZE);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), zero, sizeof(zero));
}

static void read_output_padded_with_zeroes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 want[3];

	t_add_read(f->q, RK(f, RA), VA(f, RA, 5), 3);
	t_add_read(f->q, RK(f, RA), VA(f, RA, 9), 1);
	KUNIT_ASSERT_EQ(test, t_run(test, f), 2 * 8 + 8 + 8);
	t_shadow(&f->r[RA], VA(f, RA, 5), want, 3);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), want, 3);
	KUNIT_EXPECT_EQ(test, t_out(f, 1) - t_out(f, 0), 8);
}

/* ---------------------------------------------------------------------------
 * WRITE
 */
static void write_inline_stores_bytes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[] = "twenty-four bytes here!";

	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 0x30), data, 24);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
	t_expect(&f->r[RA], VA(f, RA, 0x30), data, 24);
	t_check_mem(test, f);
}

static void write_across_page_boundaries(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u8 *big;
	u32 i, n = 2 * PAGE_SIZE + 100;

	big = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	for (i = 0; i < n; i++)
		big[i] = i * 7 + 3;
	/* Small (locked) write over a boundary, then one over two. */
	t_add_write(f->q, 0, r->rkey, VA(f, RA, A_PB1 - 8), big + 500, 16);
	t_add_write(f->q, 0, r->rkey, VA(f, RA, 0x50), big, n);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_expect(r, VA(f, RA, A_PB1 - 8), big + 500, 16);
	t_expect(r, VA(f, RA, 0x50), big, n);
	t_check_mem(test, f);
}

static void write_data_indirect_copies_region_bytes(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u8 src[200];

	t_shadow(r, VA(f, RA, 0x800), src, sizeof(src));
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE,
		       .flags = PRISM_F_DATA_INDIRECT, .rkey = r->rkey,
		       .addr = VA(f, RA, A_PB1 - 70), .arg_addr = VA(f, RA, 0x800),
		       .len = 200), NULL);
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE,
		       .flags = PRISM_F_DATA_INDIRECT, .rkey = r->rkey,
		       .addr = VA(f, RA, 0x10), .arg_addr = VA(f, RA, 0x800),
		       .len = 12), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_expect(r, VA(f, RA, A_PB1 - 70), src, 200);
	t_expect(r, VA(f, RA, 0x10), src, 12);
	t_check_mem(test, f);
}

static void write_data_indirect_from_scratch(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[16] = "scratch->region";

	t_add_write(f->q, PRISM_F_ADDR_SCRATCH, 0, 100, data, 16);
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE,
		       .flags = PRISM_F_DATA_INDIRECT | PRISM_F_ARG_SCRATCH,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0x20),
		       .arg_addr = 100, .len = 16), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 0x20), data, 16);
	t_check_mem(test, f);
}

static void write_indirect_stores_at_pointer(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[8] = "pointed";

	t_poke_le64(&f->r[RA], VA(f, RA, 0x40), VA(f, RA, 0x900));
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE, .flags = PRISM_F_INDIRECT,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0x40), .len = 8,
		       .data_len = 8), data);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	t_expect(&f->r[RA], VA(f, RA, 0x900), data, 8);
	t_check_mem(test, f);
}

static void write_without_rights_touches_nothing(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[8] = "nope";

	/* B: no WRITE. */
	t_add_write(f->q, 0, RK(f, RB), VA(f, RB, 0), data, 8);
	/* C: may be written but not read: DATA_INDIRECT source fails. */
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE,
		       .flags = PRISM_F_DATA_INDIRECT, .rkey = RK(f, RC),
		       .addr = VA(f, RC, 0), .arg_addr = VA(f, RC, 0x100),
		       .len = 8), NULL);
	/* INDIRECT target pointer in C cannot be loaded. */
	t_poke_le64(&f->r[RC], VA(f, RC, 0x200), VA(f, RC, 0x300));
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE, .flags = PRISM_F_INDIRECT,
		       .rkey = RK(f, RC), .addr = VA(f, RC, 0x200), .len = 8,
		       .data_len = 8), data);
	/* Target straddles the end of A. */
	t_add_write(f->q, 0, RK(f, RA), f->r[RA].start + f->r[RA].len - 4,
		    data, 8);
	/* Pointer to outside A. */
	t_poke_le64(&f->r[RA], VA(f, RA, 0x40), VA(f, RD, 0));
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE, .flags = PRISM_F_INDIRECT,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0x40), .len = 8,
		       .data_len = 8), data);
	/* Plain WRITE into C works. */
	t_add_write(f->q, 0, RK(f, RC), VA(f, RC, 8), data, 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	T_ST(test, f, 1, PRISM_S_ACCESS);
	T_ST(test, f, 2, PRISM_S_ACCESS);
	T_ST(test, f, 3, PRISM_S_ACCESS);
	T_ST(test, f, 4, PRISM_S_ACCESS);
	T_ST(test, f, 5, PRISM_S_OK);
	t_expect(&f->r[RC], VA(f, RC, 8), data, 8);
	t_check_mem(test, f);
}

static void write_unknown_rkey_is_auth(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[8] = "nope";

	t_add_write(f->q, 0, 0x1234, VA(f, RA, 0), data, 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_AUTH);
	t_check_mem(test, f);
}

/* ---------------------------------------------------------------------------
 * SEND
 */
static void send_delivers_inline_data(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 msg[13] = "hello, world";

	t_add(f->q, OP(.opcode = PRISM_OP_SEND, .len = 13, .data_len = 13),
	      msg);
	t_add(f->q, OP(.opcode = PRISM_OP_SEND, .len = 0), NULL);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->sends, 2);
	KUNIT_EXPECT_EQ(test, f->sent_len, 0);

	t_reset(f);
	f->sends = 0;
	t_add(f->q, OP(.opcode = PRISM_OP_SEND, .len = 13, .data_len = 13),
	      msg);
	t_run_ok(test, f);
	KUNIT_EXPECT_EQ(test, f->sends, 1);
	KUNIT_EXPECT_EQ(test, f->sent_len, 13);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, f->sent, msg, 13);
}

static void send_status_from_target_and_missing_callback(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 msg[4] = "abc";

	f->send_status = PRISM_S_RECV_FULL;
	t_add(f->q, OP(.opcode = PRISM_OP_SEND, .len = 4, .data_len = 4), msg);
	t_add(f->q, OP(.opcode = PRISM_OP_SEND, .flags = PRISM_F_CONDITIONAL,
		       .len = 4, .data_len = 4), msg);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_RECV_FULL);
	T_ST(test, f, 1, PRISM_S_SKIPPED);
	KUNIT_EXPECT_EQ(test, f->sends, 1);

	f->ctx.deliver_send = NULL;
	t_reset(f);
	t_add(f->q, OP(.opcode = PRISM_OP_SEND, .len = 4, .data_len = 4), msg);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_INVALID);
	KUNIT_EXPECT_EQ(test, f->sends, 1);
}

/* ---------------------------------------------------------------------------
 * Whole chains: TOO_BIG, counters.
 */
static void too_big_response_rejected_before_running(struct kunit *test)
{
	struct t_fix *f = test->priv;
	static const u8 data[8] = "no write";
	u32 need = 2 * 8 + 1000;

	t_add_write(f->q, 0, RK(f, RA), VA(f, RA, 0), data, 8);
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0x100), 1000);
	KUNIT_EXPECT_EQ(test, t_run_cap(test, f, need - 1), -PRISM_S_TOO_BIG);
	t_check_mem(test, f);
	/* The bound is on the largest output: exact fit works. */
	KUNIT_EXPECT_EQ(test, t_run_cap(test, f, need), need);
	t_expect(&f->r[RA], VA(f, RA, 0), data, 8);
	t_check_mem(test, f);
}

static void too_big_counts_bounded_read_at_full_len(struct kunit *test)
{
	struct t_fix *f = test->priv;

	t_poke_le64(&f->r[RA], VA(f, RA, 0x40), VA(f, RA, 0x100));
	t_poke_le64(&f->r[RA], VA(f, RA, 0x48), 4);
	t_add(f->q, OP(.opcode = PRISM_OP_READ,
		       .flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0x40), .len = 64),
	      NULL);
	KUNIT_EXPECT_EQ(test, t_run_cap(test, f, 8 + 63), -PRISM_S_TOO_BIG);
	KUNIT_EXPECT_EQ(test, t_run_cap(test, f, 8 + 64), 8 + 8);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 4);
}

static void ops_failed_counts_every_non_ok_status(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 bad[8] = "mismatch";

	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 8);		/* OK */
	t_add_read(f->q, RK(f, RA), 0, 8);			/* ACCESS */
	t_add_read(f->q, 1, 0, 8);				/* AUTH */
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0), .cmp = bad,
		  .swp = bad });				/* CMP_FAILED */
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 8);		/* OK */
	t_add_alloc(f->q, 0, RK(f, RA), 42, NULL, 0, 0);	/* NO_BUFFER */
	t_add(f->q, OP(.opcode = PRISM_OP_READ, .flags = PRISM_F_CONDITIONAL,
		       .rkey = RK(f, RA), .addr = VA(f, RA, 0), .len = 8),
	      NULL);						/* SKIPPED */
	t_run_ok(test, f);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 5);
}

static struct kunit_case prism_engine_cases[] = {
	KUNIT_CASE(read_direct_returns_region_bytes),
	KUNIT_CASE(read_small_across_page_boundary),
	KUNIT_CASE(read_whole_multi_page_region),
	KUNIT_CASE(read_last_bytes_of_region_ok),
	KUNIT_CASE(read_outside_region_is_access),
	KUNIT_CASE(read_unknown_rkey_is_auth),
	KUNIT_CASE(read_without_read_right_is_access),
	KUNIT_CASE(keyed_region_needs_its_sealed_chain),
	KUNIT_CASE(read_indirect_follows_le_pointer),
	KUNIT_CASE(read_indirect_bad_pointers_are_access),
	KUNIT_CASE(read_indirect_pointer_load_needs_read_right),
	KUNIT_CASE(read_bounded_reads_min_of_len_and_bound),
	KUNIT_CASE_PARAM(read_bounded_zero_touches_nothing,
			 t_zero_gen_params),
	KUNIT_CASE(read_indirect_through_scratch_pointer),
	KUNIT_CASE(read_scratch_starts_zeroed),
	KUNIT_CASE(read_output_padded_with_zeroes),
	KUNIT_CASE(write_inline_stores_bytes),
	KUNIT_CASE(write_across_page_boundaries),
	KUNIT_CASE(write_data_indirect_copies_region_bytes),
	KUNIT_CASE(write_data_indirect_from_scratch),
	KUNIT_CASE(write_indirect_stores_at_pointer),
	KUNIT_CASE(write_without_rights_touches_nothing),
	KUNIT_CASE(write_unknown_rkey_is_auth),
	KUNIT_CASE(send_delivers_inline_data),
	KUNIT_CASE(send_status_from_target_and_missing_callback),
	KUNIT_CASE(too_big_response_rejected_before_running),
	KUNIT_CASE(too_big_counts_bounded_read_at_full_len),
	KUNIT_CASE(ops_failed_counts_every_non_ok_status),
	{}
};

static struct kunit_suite prism_engine_suite = {
	.name = "prism_engine",
	.init = t_init,
	.exit = t_exit,
	.test_cases = prism_engine_cases,
};

kunit_test_suite(prism_engine_suite);
