// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of region.c: registering and deregistering memory regions,
 * rkeys, destroying a server's memory, free lists and the ALLOC op that
 * pops their buffers.  The fixture is in utils.c.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/bottom_half.h>
#include <asm/unaligned.h>
#include "utils.h"

/* ---------------------------------------------------------------------------
 * Regions.
 */
static int t_reg_pages(struct t_fix *f, unsigned int npages, u64 start,
		       u64 len, u32 access, u64 *rkey)
{
	return prism_region_register_pages(&f->mem, f->r[RA].pages, npages,
					   start, len, access, rkey);
}

/* Invalid arguments to prism_region_register_pages(): all -EINVAL. */
struct t_reg_bad {
	const char	*name;
	unsigned int	npages;
	u64		start;
	u64		len;
	u32		access;
};

static const struct t_reg_bad t_reg_bad_cases[] = {
	{ "no pages", 0, 0x1000, 8, PRISM_ACCESS_ALL },
	{ "len 0", 1, 0x1000, 0, PRISM_ACCESS_ALL },
	{ "len beyond the pages", 1, 0x1000, PAGE_SIZE + 1, PRISM_ACCESS_ALL },
	{ "start+len beyond the pages", 1, 0x1010, PAGE_SIZE - 8,
	  PRISM_ACCESS_ALL },
	{ "no access right", 1, 0x1000, 8, 0 },
	{ "unknown access bit", 1, 0x1000, 8, PRISM_ACCESS_ALL + 1 },
	{ "start+len wraps", 1, U64_MAX - 4, 8, PRISM_ACCESS_ALL },
};

static void t_reg_bad_desc(const struct t_reg_bad *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_reg_bad, t_reg_bad_cases, t_reg_bad_desc);

static void region_register_pages_validates(struct kunit *test)
{
	const struct t_reg_bad *c = test->param_value;
	struct t_fix *f = test->priv;
	u64 rk;

	KUNIT_EXPECT_EQ(test, t_reg_pages(f, c->npages, c->start, c->len,
					  c->access, &rk), -EINVAL);
}

static void region_rkeys_unique_nonzero_and_found(struct kunit *test)
{
	struct t_fix *f = test->priv;
	unsigned int i, j;

	for (i = 0; i < T_NREG; i++) {
		KUNIT_EXPECT_NE(test, RK(f, i), 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, RK(f, i), RK(f, j));
		rcu_read_lock();
		KUNIT_EXPECT_TRUE(test, prism_region_find(&f->mem, RK(f, i)) &&
				  prism_region_find(&f->mem, RK(f, i))->start ==
				  f->r[i].start);
		rcu_read_unlock();
	}
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, prism_region_find(&f->mem, 0));
	rcu_read_unlock();
}

static void region_deregister_then_ops_fail_auth(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 rkey;

	/* A second region over A's pages (shared pages are allowed). */
	KUNIT_ASSERT_EQ(test, t_reg_pages(f, 1, 0x5000, PAGE_SIZE,
					  PRISM_ACCESS_REMOTE_READ, &rkey), 0);
	t_add_read(f->q, rkey, 0x5000 + 0x100, 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0),
				  t_byte(&f->r[RA], f->r[RA].base + 0x100), 8);

	KUNIT_EXPECT_EQ(test, prism_region_deregister(&f->mem, rkey), 0);
	KUNIT_EXPECT_EQ(test, prism_region_deregister(&f->mem, rkey), -ENOENT);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_AUTH);
}

static int t_reg_user(struct t_fix *f, u64 addr, u64 len, u32 access)
{
	u64 rkey;

	return prism_region_register_user(&f->mem, addr, len, access, false,
					  &rkey);
}

/* Arguments to prism_region_register_user() it refuses. */
struct t_user_bad {
	const char	*name;
	u64		addr;
	u64		len;
	u32		access;
	int		err;
	bool		no_mm;	/* only checked without user memory */
};

static const struct t_user_bad t_user_bad_cases[] = {
	{ "len 0", 0x10000, 0, PRISM_ACCESS_ALL, -EINVAL },
	{ "no access right", 0x10000, 4096, 0, -EINVAL },
	{ "unknown access bit", 0x10000, 4096, 1U << 3, -EINVAL },
	{ "addr+len wraps", U64_MAX - 8, 4096, PRISM_ACCESS_ALL, -EINVAL },
	{ "addr+len rounds up past 2^64", U64_MAX - 4096 - 8, 4096,
	  PRISM_ACCESS_ALL, -EINVAL },
	/* KUnit cases run in a kernel thread: no user memory to pin. */
	{ "no user memory", 0x10000, 4096, PRISM_ACCESS_ALL, -EFAULT, true },
};

static void t_user_bad_desc(const struct t_user_bad *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_user_bad, t_user_bad_cases, t_user_bad_desc);

static void region_register_user_validates_args(struct kunit *test)
{
	const struct t_user_bad *c = test->param_value;
	struct t_fix *f = test->priv;

	if (c->no_mm && current->mm)
		return;
	KUNIT_EXPECT_EQ(test, t_reg_user(f, c->addr, c->len, c->access),
			c->err);
}

static void mem_destroy_empties_everything(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 buf = VA(f, RA, 0);
	unsigned int i;

	t_list(test, f, RA, 64, 4, &buf, 1, false);
	prism_mem_destroy(&f->mem);
	rcu_read_lock();
	for (i = 0; i < T_NREG; i++)
		KUNIT_EXPECT_NULL(test, prism_region_find(&f->mem, RK(f, i)));
	rcu_read_unlock();
	/* Still usable for lookups: ops find nothing. */
	t_add_read(f->q, RK(f, RA), VA(f, RA, 0), 8);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_AUTH);
	prism_mem_init(&f->mem);
}

/* ---------------------------------------------------------------------------
 * ALLOC and free lists
 */
static void alloc_pops_fills_and_returns_address(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 bufs[2] = { VA(f, RA, 0x1000), VA(f, RA, 0x1040) };
	static const u8 data[10] = "allocated";
	u8 le[8];
	u32 id;

	id = t_list(test, f, RA, 64, 4, bufs, 2, true);
	t_add_alloc(f->q, 0, RK(f, RA), id, data, 10, 0);
	t_add_alloc(f->q, 0, RK(f, RA), id, NULL, 0, 0);
	t_add_alloc(f->q, 0, RK(f, RA), id, data, 10, 0);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 8);
	put_unaligned_le64(bufs[0], le);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), le, 8);
	T_ST(test, f, 1, PRISM_S_OK);
	put_unaligned_le64(bufs[1], le);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 1), le, 8);
	T_ST(test, f, 2, PRISM_S_NO_BUFFER);
	KUNIT_EXPECT_EQ(test, t_olen(f, 2), 0);
	t_expect(&f->r[RA], bufs[0], data, 10);
	t_check_mem(test, f);
}

static void alloc_posted_buffer_waits_for_grace_period(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 buf = VA(f, RA, 0x1000);
	u8 le[8];
	u32 id;

	id = t_list(test, f, RA, 64, 4, NULL, 0, false);
	t_add_alloc(f->q, 0, RK(f, RA), id, NULL, 0, 0);
	/*
	 * An op in an RCU read-side section that started before the post
	 * (this one) keeps the buffer unavailable: deterministic.
	 */
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, &buf, 1), 0);
	t_run(test, f);
	rcu_read_unlock();
	KUNIT_ASSERT_GE(test, f->ret, 0);
	T_ST(test, f, 0, PRISM_S_NO_BUFFER);

	synchronize_rcu();
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	put_unaligned_le64(buf, le);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, t_out(f, 0), le, 8);
}

static void alloc_failures_keep_the_buffer(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 buf = VA(f, RA, 0x1000);
	u8 data[65] = "too long";
	u32 id;

	id = t_list(test, f, RA, 64, 4, &buf, 1, true);
	t_add_alloc(f->q, 0, RK(f, RA), id, data, 65, 0);	/* > buf_size */
	t_add_alloc(f->q, 0, RK(f, RD), id, data, 8, 0);	/* other rkey */
	t_add_alloc(f->q, 0, 0x77, id, data, 8, 0);		/* no such rkey */
	t_add_alloc(f->q, 0, RK(f, RA), id + 1, data, 8, 0);	/* no list */
	t_add_alloc(f->q, 0, RK(f, RA), 0, data, 8, 0);
	t_add_alloc(f->q, PRISM_F_REDIRECT, RK(f, RA), id, data, 8,
		    f->r[RA].start + f->r[RA].len - 4);		/* bad redirect */
	t_add_alloc(f->q, 0, RK(f, RA), id, data, 64, 0);	/* fits exactly */
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_INVALID);
	T_ST(test, f, 1, PRISM_S_AUTH);
	T_ST(test, f, 2, PRISM_S_AUTH);
	T_ST(test, f, 3, PRISM_S_NO_BUFFER);
	T_ST(test, f, 4, PRISM_S_NO_BUFFER);
	T_ST(test, f, 5, PRISM_S_ACCESS);
	T_ST(test, f, 6, PRISM_S_OK);
	t_expect(&f->r[RA], buf, data, 64);
	t_check_mem(test, f);
	KUNIT_EXPECT_EQ(test, f->ctx.ops_failed, 6);
}

static void alloc_needs_write_right(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 buf = VA(f, RB, 0x100), got = 0;
	u32 id;
	int st;

	id = t_list(test, f, RB, 32, 4, &buf, 1, true);
	t_add_alloc(f->q, 0, RK(f, RB), id, NULL, 0, 0);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_ACCESS);
	/* Not consumed. */
	local_bh_disable();
	rcu_read_lock();
	st = prism_freelist_pop(&f->mem, id, RK(f, RB), 0, &got);
	rcu_read_unlock();
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, st, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, got, buf);
}

static void alloc_redirect_to_scratch_feeds_indirect_ops(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 bufs[1] = { VA(f, RA, 0x2000) };
	static const u8 payload[16] = "node payload...";
	u8 cur[8], le[8];
	u32 id;

	id = t_list(test, f, RA, 64, 4, bufs, 1, true);
	/* Insert a node: allocate, fill, link it with a CAS on the head. */
	t_shadow(&f->r[RA], VA(f, RA, 0x80), cur, 8);
	t_add_alloc(f->q, PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH,
		    RK(f, RA), id, NULL, 0, 16);
	t_add(f->q, OP(.opcode = PRISM_OP_WRITE,
		       .flags = PRISM_F_INDIRECT | PRISM_F_ADDR_SCRATCH |
				PRISM_F_CONDITIONAL,
		       .rkey = RK(f, RA), .addr = 16, .len = 16,
		       .data_len = 16), payload);
	t_add_cas(f->q, &(struct t_cas){ .mode = PRISM_CAS_EQ, .len = 8,
		  .flags = PRISM_F_SWAP_INDIRECT | PRISM_F_ARG_SCRATCH |
			   PRISM_F_CONDITIONAL,
		  .rkey = RK(f, RA), .addr = VA(f, RA, 0x80), .cmp = cur,
		  .swap_addr = 16 });
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), 0);
	T_ST(test, f, 1, PRISM_S_OK);
	T_ST(test, f, 2, PRISM_S_OK);
	put_unaligned_le64(bufs[0], le);
	t_expect(&f->r[RA], bufs[0], payload, 16);
	t_expect(&f->r[RA], VA(f, RA, 0x80), le, 8);
	t_check_mem(test, f);
}

static void freelist_post_validates_and_limits(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct t_region *r = &f->r[RA];
	u64 ok = VA(f, RA, 0x100);
	u64 mixed[2] = { VA(f, RA, 0x200), r->start + r->len - 63 };
	u64 three[3] = { ok, ok + 64, ok + 128 };
	u64 edge = r->start + r->len - 64;
	u32 id, id2;

	id = t_list(test, f, RA, 64, 2, NULL, 0, false);
	/* One bad address: nothing is posted. */
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, mixed, 2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, &mixed[0], 0),
			-EINVAL);
	mixed[1] = r->start - 1;
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, mixed, 2),
			-EINVAL);
	mixed[1] = U64_MAX - 10;
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, mixed, 2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, three, 3),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id + 5, &ok, 1),
			-ENOENT);
	synchronize_rcu();
	t_add_alloc(f->q, 0, RK(f, RA), id, NULL, 0, 0);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_NO_BUFFER);

	/* A buffer ending exactly at the end of the region is fine. */
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, &edge, 1), 0);
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, &ok, 1), 0);
	KUNIT_EXPECT_EQ(test, prism_freelist_post(&f->mem, id, &ok, 1),
			-ENOSPC);

	/* Create errors. */
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, 0x55, 64, 4,
						    &id2), -ENOENT);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey, 0, 4,
						    &id2), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey, 64, 0,
						    &id2), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey, 64,
						    U32_MAX, &id2), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey, 64,
						    65537, &id2), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey,
						    r->len + 1, 4, &id2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey, 64, 4,
						    &id2), 0);
	KUNIT_EXPECT_NE(test, id2, id);
}

/* Free list capacities: 65536 anywhere, more only in a region that large. */
struct t_fl_cap {
	const char	*name;
	u64		region_len;
	u32		buf_size;
	u32		capacity;
	bool		ok;
};

static const struct t_fl_cap t_fl_cap_cases[] = {
	{ "0", 1ULL << 30, 512, 0, false },
	{ "1 in a tiny region", 64, 64, 1, true },
	{ "65536 in a tiny region", 4096, 64, 65536, true },
	{ "65537 in a tiny region", 4096, 64, 65537, false },
	{ "8M of 640 B in 5 GiB", 5ULL << 30, 640, 8U << 20, true },
	{ "as many as fit", 640ULL * 100000, 640, 100000, true },
	{ "one more than fit", 640ULL * 100000, 640, 100001, false },
	{ "small buffers count 16 B", 16ULL * 100000, 1, 100000, true },
	{ "small buffers, one more", 16ULL * 100000, 1, 100001, false },
	{ "2^24", 1ULL << 40, 64, 1U << 24, true },
	{ "2^24 + 1", 1ULL << 40, 64, (1U << 24) + 1, false },
	{ "U32_MAX", 1ULL << 40, 64, U32_MAX, false },
};

static void t_fl_cap_desc(const struct t_fl_cap *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_fl_cap, t_fl_cap_cases, t_fl_cap_desc);

static void freelist_capacity_bounded_by_region(struct kunit *test)
{
	const struct t_fl_cap *c = test->param_value;

	KUNIT_EXPECT_EQ(test, prism_freelist_capacity_ok(c->region_len,
							 c->buf_size,
							 c->capacity), c->ok);
}

static void freelist_destroy_and_region_busy(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u64 buf = VA(f, RD, 0);
	u32 id;

	id = t_list(test, f, RD, 64, 4, &buf, 1, true);
	KUNIT_EXPECT_EQ(test, prism_region_deregister(&f->mem, RK(f, RD)),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, prism_freelist_destroy(&f->mem, id), 0);
	KUNIT_EXPECT_EQ(test, prism_freelist_destroy(&f->mem, id), -ENOENT);
	t_add_alloc(f->q, 0, RK(f, RD), id, NULL, 0, 0);
	t_run_ok(test, f);
	T_ST(test, f, 0, PRISM_S_NO_BUFFER);
	KUNIT_EXPECT_EQ(test, prism_region_deregister(&f->mem, RK(f, RD)), 0);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, RK(f, RD), 64, 4,
						    &id), -ENOENT);
}

static struct kunit_case prism_region_cases[] = {
	KUNIT_CASE_PARAM(region_register_pages_validates,
			 t_reg_bad_gen_params),
	KUNIT_CASE(region_rkeys_unique_nonzero_and_found),
	KUNIT_CASE(region_deregister_then_ops_fail_auth),
	KUNIT_CASE_PARAM(region_register_user_validates_args,
			 t_user_bad_gen_params),
	KUNIT_CASE(mem_destroy_empties_everything),
	KUNIT_CASE(alloc_pops_fills_and_returns_address),
	KUNIT_CASE(alloc_posted_buffer_waits_for_grace_period),
	KUNIT_CASE(alloc_failures_keep_the_buffer),
	KUNIT_CASE(alloc_needs_write_right),
	KUNIT_CASE(alloc_redirect_to_scratch_feeds_indirect_ops),
	KUNIT_CASE(freelist_post_validates_and_limits),
	KUNIT_CASE_PARAM(freelist_capacity_bounded_by_region,
			 t_fl_cap_gen_params),
	KUNIT_CASE(freelist_destroy_and_region_busy),
	{}
};

static struct kunit_suite prism_region_suite = {
	.name = "prism_region",
	.init = t_init,
	.exit = t_exit,
	.test_cases = prism_region_cases,
};

kunit_test_suite(prism_region_suite);
