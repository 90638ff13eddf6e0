// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the PRISM op engine, wire format, regions and free lists.
 *
 * Every test gets a fresh struct prism_mem with four regions over
 * alloc_page() memory, presented at fake target addresses:
 *   A  3 pages, starts 0x100 into its first page, ends 0x80 before the end
 *      of the last one; all rights
 *   B  1 page, REMOTE_READ only
 *   C  1 page, REMOTE_WRITE | REMOTE_ATOMIC (no read)
 *   D  1 page, REMOTE_READ | REMOTE_WRITE (no atomic)
 * All page bytes start as a known pattern and a shadow copy holds what
 * they must contain; a test records the changes it expects in the shadow
 * and t_check_mem() compares every byte of every page, so "nothing else
 * was touched" is checked everywhere.
 *
 * Requests are built by hand, big-endian, by t_add() (independently of
 * wire.c), with a host-order copy alongside for prism_chain_encode().
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/bottom_half.h>
#include <asm/unaligned.h>
#include "../prism.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

enum { RA, RB, RC, RD, T_NREG };

#define T_MAX_PAGES	3
#define T_REQ_MAX	16384
#define T_RESP_MAX	20000

static const struct {
	unsigned int	npages;
	unsigned int	head;	/* unregistered bytes before the region */
	unsigned int	tail;	/* unregistered bytes after it */
	u64		base;
	u32		access;
} t_spec[T_NREG] = {
	[RA] = { 3, 0x100, 0x80, 0x100000000000ULL, PRISM_ACCESS_ALL },
	[RB] = { 1, 0, 0, 0x200000000000ULL, PRISM_ACCESS_REMOTE_READ },
	[RC] = { 1, 0, 0, 0x300000000000ULL,
		 PRISM_ACCESS_REMOTE_WRITE | PRISM_ACCESS_REMOTE_ATOMIC },
	[RD] = { 1, 0, 0, 0x400000000000ULL,
		 PRISM_ACCESS_REMOTE_READ | PRISM_ACCESS_REMOTE_WRITE },
};

struct t_region {
	struct page	*pages[T_MAX_PAGES];
	unsigned int	npages;
	u64		base;		/* address of the first page's byte 0 */
	u64		start;
	u64		len;
	u64		rkey;
	u8		*shadow;	/* expected bytes of all pages */
};

struct t_req {
	u8	buf[T_REQ_MAX];		/* wire body, big-endian */
	u8	host[T_REQ_MAX];	/* the same chain in host order */
	u32	len;
	u8	nops;
};

struct t_fix {
	struct prism_mem	mem;
	bool			mem_live;
	struct t_region		r[T_NREG];
	struct t_req		*q;
	u8			*resp;
	int			ret;
	struct prism_exec_ctx	ctx;
	/* SEND capture */
	u8			sent[256];
	u32			sent_len;
	int			sends;
	int			send_status;
};

/* Offset of region A's first page boundary, from A's start. */
#define A_PB1		(PAGE_SIZE - 0x100)

#define VA(f, R, off)	((f)->r[R].start + (off))
#define RK(f, R)	((f)->r[R].rkey)
#define OP(...)		(&(struct prism_op){ __VA_ARGS__ })

/* KUNIT_EXPECT_MEMEQ appeared after 6.1. */
#define KUNIT_EXPECT_MEMEQ_COMPAT(test, a, b, n) \
	KUNIT_EXPECT_EQ(test, memcmp(a, b, n), 0)

static u8 t_pattern(unsigned int reg, u64 pos)
{
	return (u8)(pos * 13 + reg * 101 + 7);
}

/* Kernel address of the byte of region reg at target address va. */
static u8 *t_byte(struct t_region *r, u64 va)
{
	u64 pos = va - r->base;

	return (u8 *)page_address(r->pages[pos >> PAGE_SHIFT]) +
	       offset_in_page(pos);
}

static void t_peek(struct t_region *r, u64 va, void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((u8 *)buf)[i] = *t_byte(r, va + i);
}

/* Set bytes in memory and shadow (test setup). */
static void t_poke(struct t_region *r, u64 va, const void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		*t_byte(r, va + i) = ((const u8 *)buf)[i];
		r->shadow[va + i - r->base] = ((const u8 *)buf)[i];
	}
}

static void t_poke_le64(struct t_region *r, u64 va, u64 v)
{
	u8 b[8];

	put_unaligned_le64(v, b);
	t_poke(r, va, b, sizeof(b));
}

/* Record an expected change made by the engine. */
static void t_expect(struct t_region *r, u64 va, const void *buf, size_t len)
{
	memcpy(r->shadow + (va - r->base), buf, len);
}

/* The pattern bytes (what the engine must read) at va. */
static void t_shadow(struct t_region *r, u64 va, void *buf, size_t len)
{
	memcpy(buf, r->shadow + (va - r->base), len);
}

/* Every byte of every page equals the shadow. */
static void t_check_mem(struct kunit *test, struct t_fix *f)
{
	unsigned int i, p;
	size_t b;

	for (i = 0; i < T_NREG; i++) {
		struct t_region *r = &f->r[i];

		for (p = 0; p < r->npages; p++) {
			const u8 *k = page_address(r->pages[p]);
			const u8 *s = r->shadow + p * PAGE_SIZE;

			if (!memcmp(k, s, PAGE_SIZE))
				continue;
			for (b = 0; b < PAGE_SIZE && k[b] == s[b]; b++)
				;
			KUNIT_FAIL(test,
				   "region %u page %u byte %zu (addr %llx): %02x, expected %02x",
				   i, p, b, r->base + p * PAGE_SIZE + b, k[b],
				   s[b]);
			return;
		}
	}
}

static int t_deliver(void *priv, const void *data, u32 len)
{
	struct t_fix *f = priv;

	f->sends++;
	f->sent_len = len;
	memcpy(f->sent, data, min_t(u32, len, sizeof(f->sent)));
	return f->send_status;
}

static int t_init(struct kunit *test)
{
	struct t_fix *f;
	unsigned int i, p;
	int ret;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->q = kunit_kzalloc(test, sizeof(*f->q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->q);
	f->resp = kunit_kzalloc(test, T_RESP_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->resp);
	test->priv = f;

	prism_mem_init(&f->mem);
	f->mem_live = true;
	f->ctx.mem = &f->mem;
	f->ctx.deliver_send = t_deliver;
	f->ctx.priv = f;

	for (i = 0; i < T_NREG; i++) {
		struct t_region *r = &f->r[i];

		r->npages = t_spec[i].npages;
		r->base = t_spec[i].base;
		r->start = r->base + t_spec[i].head;
		r->len = r->npages * PAGE_SIZE - t_spec[i].head -
			 t_spec[i].tail;
		r->shadow = kunit_kzalloc(test, r->npages * PAGE_SIZE,
					  GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->shadow);
		for (p = 0; p < r->npages; p++) {
			r->pages[p] = alloc_page(GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, r->pages[p]);
		}
		for (p = 0; p < r->npages * PAGE_SIZE; p++) {
			r->shadow[p] = t_pattern(i, p);
			*t_byte(r, r->base + p) = r->shadow[p];
		}
		ret = prism_region_register_pages(&f->mem, r->pages,
						  r->npages, r->start, r->len,
						  t_spec[i].access, &r->rkey);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	return 0;
}

static void t_exit(struct kunit *test)
{
	struct t_fix *f = test->priv;
	unsigned int i, p;

	if (!f)
		return;
	if (f->mem_live)
		prism_mem_destroy(&f->mem);
	for (i = 0; i < T_NREG; i++)
		for (p = 0; p < T_MAX_PAGES; p++)
			if (f->r[i].pages[p])
				__free_page(f->r[i].pages[p]);
}

/* ---------------------------------------------------------------------------
 * Building requests and reading responses.
 */
static void t_reset(struct t_fix *f)
{
	memset(f->q, 0, sizeof(*f->q));
}

/* Append op (host order) with its inline data, padded with zeroes. */
static void t_add(struct t_req *q, const struct prism_op *op,
		  const void *data)
{
	struct prism_wop *w = (struct prism_wop *)(q->buf + q->len);
	u32 pad = PRISM_PAD8(op->data_len);

	if (WARN_ON(q->len + sizeof(*w) + pad > T_REQ_MAX))
		return;
	w->opcode = op->opcode;
	w->cas_mode = op->cas_mode;
	w->flags = cpu_to_be16(op->flags);
	w->len = cpu_to_be32(op->len);
	w->rkey = cpu_to_be64(op->rkey);
	w->addr = cpu_to_be64(op->addr);
	w->redirect = cpu_to_be64(op->redirect);
	w->arg_addr = cpu_to_be64(op->arg_addr);
	w->swap_addr = cpu_to_be64(op->swap_addr);
	w->data_len = cpu_to_be32(op->data_len);
	w->reserved = cpu_to_be32(op->reserved);
	memcpy(q->host + q->len, op, sizeof(*op));
	q->len += sizeof(*w);
	memset(q->buf + q->len, 0, pad);
	memset(q->host + q->len, 0, pad);
	if (op->data_len && data) {
		memcpy(q->buf + q->len, data, op->data_len);
		memcpy(q->host + q->len, data, op->data_len);
	}
	q->len += pad;
	q->nops++;
}

static void t_add_read(struct t_req *q, u64 rkey, u64 addr, u32 len)
{
	t_add(q, OP(.opcode = PRISM_OP_READ, .rkey = rkey, .addr = addr,
		    .len = len), NULL);
}

static void t_add_write(struct t_req *q, u16 flags, u64 rkey, u64 addr,
			const void *data, u32 len)
{
	t_add(q, OP(.opcode = PRISM_OP_WRITE, .flags = flags, .rkey = rkey,
		    .addr = addr, .len = len, .data_len = len), data);
}

static const u8 t_ones[PRISM_MAX_CAS] = {
	[0 ... PRISM_MAX_CAS - 1] = 0xff
};

struct t_cas {
	u16		flags;
	u8		mode;
	u32		len;
	u64		rkey;
	u64		addr;
	u64		redirect;
	u64		arg_addr;
	u64		swap_addr;
	const void	*cmp;
	const void	*swp;
	const void	*cm;	/* NULL: all ones */
	const void	*sm;	/* NULL: all ones */
};

static void t_add_cas(struct t_req *q, const struct t_cas *c)
{
	u8 data[4 * PRISM_MAX_CAS];
	u32 n = 0;

	if (!(c->flags & PRISM_F_CMP_INDIRECT)) {
		memcpy(data + n, c->cmp, c->len);
		n += c->len;
	}
	if (!(c->flags & PRISM_F_SWAP_INDIRECT)) {
		memcpy(data + n, c->swp, c->len);
		n += c->len;
	}
	memcpy(data + n, c->cm ?: t_ones, c->len);
	n += c->len;
	memcpy(data + n, c->sm ?: t_ones, c->len);
	n += c->len;
	t_add(q, OP(.opcode = PRISM_OP_CAS, .cas_mode = c->mode,
		    .flags = c->flags, .len = c->len, .rkey = c->rkey,
		    .addr = c->addr, .redirect = c->redirect,
		    .arg_addr = c->arg_addr, .swap_addr = c->swap_addr,
		    .data_len = n), data);
}

static struct prism_wres *t_res(struct t_fix *f, unsigned int i)
{
	return (struct prism_wres *)f->resp + i;
}

static u8 t_status(struct t_fix *f, unsigned int i)
{
	return t_res(f, i)->status;
}

static u32 t_olen(struct t_fix *f, unsigned int i)
{
	return be32_to_cpu(t_res(f, i)->len);
}

/* Output of op i of the last response. */
static const u8 *t_out(struct t_fix *f, unsigned int i)
{
	u32 off = f->q->nops * sizeof(struct prism_wres);
	unsigned int j;

	for (j = 0; j < i; j++)
		off += PRISM_PAD8(t_olen(f, j));
	return f->resp + off;
}

/* Execute the chain in q like the RX path does; check the response form. */
static int t_run_cap(struct kunit *test, struct t_fix *f, u32 cap)
{
	u32 off, j, k;
	int ret;

	memset(f->resp, 0xaa, T_RESP_MAX);
	f->ctx.ops_failed = 0xdead;
	local_bh_disable();
	rcu_read_lock();
	ret = prism_engine_execute(&f->ctx, f->q->buf, f->q->len, f->q->nops,
				   f->resp, cap);
	rcu_read_unlock();
	local_bh_enable();
	f->ret = ret;
	if (ret < 0)
		return ret;

	/* Results, then the outputs padded with zeroes, nothing more. */
	off = f->q->nops * sizeof(struct prism_wres);
	for (j = 0; j < f->q->nops; j++) {
		struct prism_wres *w = t_res(f, j);

		KUNIT_EXPECT_EQ(test, w->reserved, 0);
		KUNIT_EXPECT_EQ(test, be16_to_cpu(w->reserved2), 0);
		KUNIT_EXPECT_LE(test, w->status, PRISM_S_MAX);
		for (k = t_olen(f, j); k < PRISM_PAD8(t_olen(f, j)); k++)
			KUNIT_EXPECT_EQ(test, f->resp[off + k], 0);
		off += PRISM_PAD8(t_olen(f, j));
	}
	KUNIT_EXPECT_EQ(test, (u32)ret, off);
	KUNIT_EXPECT_LE(test, (u32)ret, cap);
	return ret;
}

static int t_run(struct kunit *test, struct t_fix *f)
{
	return t_run_cap(test, f, T_RESP_MAX);
}

/* Run and expect the chain to execute. */
static void t_run_ok(struct kunit *test, struct t_fix *f)
{
	KUNIT_ASSERT_GE(test, t_run(test, f), 0);
}

/* Op i ended with status st. */
#define T_ST(test, f, i, st)	KUNIT_EXPECT_EQ(test, t_status(f, i), st)

static int t_run_encoded(struct kunit *test, struct t_fix *f)
{
	u32 resp_len;
	u8 *out;
	int ret;

	out = kunit_kzalloc(test, T_REQ_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	ret = prism_chain_encode(f->q->host, f->q->len, f->q->nops, out,
				 T_REQ_MAX, &resp_len);
	if (ret < 0)
		return ret;
	KUNIT_EXPECT_EQ(test, (u32)ret, f->q->len);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, out, f->q->buf, f->q->len);
	return 0;
}

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

/* Expected outcome of each mode for compare <, ==, > target. */
static const bool t_mode_table[PRISM_CAS_MODE_MAX + 1][3] = {
	[PRISM_CAS_EQ] = { false, true, false },
	[PRISM_CAS_NE] = { true, false, true },
	[PRISM_CAS_GT] = { false, false, true },
	[PRISM_CAS_GE] = { false, true, true },
	[PRISM_CAS_LT] = { true, false, false },
	[PRISM_CAS_LE] = { true, true, false },
};

static const char * const t_mode_names[] = {
	"EQ", "NE", "GT", "GE", "LT", "LE",
};

static const void *t_mode_gen(const void *prev, char *desc)
{
	static const u8 modes[] = { 0, 1, 2, 3, 4, 5 };
	const u8 *m = prev ? (const u8 *)prev + 1 : modes;

	if (m >= modes + ARRAY_SIZE(modes))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "mode %s", t_mode_names[*m]);
	return m;
}

static void cas_mode_compares_le_numbers(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 mode = *(const u8 *)test->param_value;
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
		t_add_cas(f->q, &(struct t_cas){ .mode = mode, .len = 4,
			  .rkey = RK(f, RA), .addr = at, .cmp = cmps[rel],
			  .swp = swp });
	}
	t_run_ok(test, f);
	for (rel = 0; rel < 3; rel++) {
		bool ok = t_mode_table[mode][rel];

		KUNIT_EXPECT_EQ_MSG(test, t_status(f, rel),
				    ok ? PRISM_S_OK : PRISM_S_CMP_FAILED,
				    "mode %s relation %u", t_mode_names[mode],
				    rel);
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
 * ALLOC and free lists
 */
static u32 t_list(struct kunit *test, struct t_fix *f, unsigned int reg,
		  u32 buf_size, u32 cap, const u64 *addrs, u32 n, bool settle)
{
	u32 id = 0;

	KUNIT_ASSERT_EQ(test, prism_freelist_create(&f->mem, RK(f, reg),
						    buf_size, cap, &id), 0);
	KUNIT_ASSERT_NE(test, id, 0);
	if (n)
		KUNIT_ASSERT_EQ(test, prism_freelist_post(&f->mem, id, addrs,
							  n), 0);
	if (settle)
		synchronize_rcu();
	return id;
}

static void t_add_alloc(struct t_req *q, u16 flags, u64 rkey, u64 id,
			const void *data, u32 len, u64 redirect)
{
	t_add(q, OP(.opcode = PRISM_OP_ALLOC, .flags = flags, .rkey = rkey,
		    .addr = id, .len = len, .data_len = len,
		    .redirect = redirect), data);
}

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
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey,
						    r->len + 1, 4, &id2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_freelist_create(&f->mem, r->rkey, 64, 4,
						    &id2), 0);
	KUNIT_EXPECT_NE(test, id2, id);
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
 * Whole chains: scratch bounds, malformed requests, TOO_BIG, counters.
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
	{ "opcode above SEND", 5 },
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

static void encode_matches_hand_built_wire_and_parses_back(struct kunit *test)
{
	struct t_fix *f = test->priv;
	struct prism_pop pop;
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

/* ---------------------------------------------------------------------------
 * Regions.
 */
static int t_reg_pages(struct t_fix *f, unsigned int npages, u64 start,
		       u64 len, u32 access, u64 *rkey)
{
	return prism_region_register_pages(&f->mem, f->r[RA].pages, npages,
					   start, len, access, rkey);
}

static void region_register_pages_validates(struct kunit *test)
{
	struct t_fix *f = test->priv;
	const u32 all = PRISM_ACCESS_ALL;
	u64 rk;

	KUNIT_EXPECT_EQ(test, t_reg_pages(f, 0, 0x1000, 8, all, &rk), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_pages(f, 1, 0x1000, 0, all, &rk), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_pages(f, 1, 0x1000, PAGE_SIZE + 1, all,
					  &rk), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_pages(f, 1, 0x1010, PAGE_SIZE - 8, all,
					  &rk), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_pages(f, 1, 0x1000, 8, 0, &rk), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_pages(f, 1, 0x1000, 8, all + 1, &rk),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_pages(f, 1, U64_MAX - 4, 8, all, &rk),
			-EINVAL);
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

	return prism_region_register_user(&f->mem, addr, len, access, &rkey);
}

static void region_register_user_validates_args(struct kunit *test)
{
	struct t_fix *f = test->priv;
	const u32 all = PRISM_ACCESS_ALL;

	KUNIT_EXPECT_EQ(test, t_reg_user(f, 0x10000, 0, all), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_user(f, 0x10000, 4096, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_user(f, 0x10000, 4096, 1U << 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_user(f, U64_MAX - 8, 4096, all), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_reg_user(f, U64_MAX - 4096 - 8, 4096, all),
			-EINVAL);
	/* KUnit cases run in a kernel thread: no user memory to pin. */
	if (!current->mm)
		KUNIT_EXPECT_EQ(test, t_reg_user(f, 0x10000, 4096, all),
				-EFAULT);
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

static struct kunit_case prism_engine_cases[] = {
	KUNIT_CASE(read_direct_returns_region_bytes),
	KUNIT_CASE(read_small_across_page_boundary),
	KUNIT_CASE(read_whole_multi_page_region),
	KUNIT_CASE(read_last_bytes_of_region_ok),
	KUNIT_CASE(read_outside_region_is_access),
	KUNIT_CASE(read_unknown_rkey_is_auth),
	KUNIT_CASE(read_without_read_right_is_access),
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
	KUNIT_CASE(cas_eq_swaps_and_returns_old),
	KUNIT_CASE(cas_unaligned_8_bytes),
	KUNIT_CASE_PARAM(cas_mode_compares_le_numbers, t_mode_gen),
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
	KUNIT_CASE(alloc_pops_fills_and_returns_address),
	KUNIT_CASE(alloc_posted_buffer_waits_for_grace_period),
	KUNIT_CASE(alloc_failures_keep_the_buffer),
	KUNIT_CASE(alloc_needs_write_right),
	KUNIT_CASE(alloc_redirect_to_scratch_feeds_indirect_ops),
	KUNIT_CASE(freelist_post_validates_and_limits),
	KUNIT_CASE(freelist_destroy_and_region_busy),
	KUNIT_CASE(send_delivers_inline_data),
	KUNIT_CASE(send_status_from_target_and_missing_callback),
	KUNIT_CASE(scratch_bounds_are_checked),
	KUNIT_CASE_PARAM(malformed_chain_is_invalid_and_touches_nothing,
			 t_bad_gen_params),
	KUNIT_CASE(nops_up_to_max_chain_accepted),
	KUNIT_CASE(chain_work_is_bounded),
	KUNIT_CASE(too_big_response_rejected_before_running),
	KUNIT_CASE(too_big_counts_bounded_read_at_full_len),
	KUNIT_CASE(ops_failed_counts_every_non_ok_status),
	KUNIT_CASE(encode_matches_hand_built_wire_and_parses_back),
	KUNIT_CASE(encode_errors),
	KUNIT_CASE(encoded_chain_executes),
	KUNIT_CASE(region_register_pages_validates),
	KUNIT_CASE(region_rkeys_unique_nonzero_and_found),
	KUNIT_CASE(region_deregister_then_ops_fail_auth),
	KUNIT_CASE(region_register_user_validates_args),
	KUNIT_CASE(mem_destroy_empties_everything),
	KUNIT_CASE(cas_concurrent_increments_are_atomic),
	{}
};

static struct kunit_suite prism_engine_suite = {
	.name = "prism_engine",
	.init = t_init,
	.exit = t_exit,
	.test_cases = prism_engine_cases,
};

kunit_test_suite(prism_engine_suite);

MODULE_DESCRIPTION("KUnit tests of the PRISM op engine");
MODULE_LICENSE("GPL");
