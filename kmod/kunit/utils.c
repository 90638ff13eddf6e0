// SPDX-License-Identifier: GPL-2.0
/*
 * Shared fixture of the PRISM KUnit suites: fake regions over alloc_page()
 * memory with a shadow of their expected bytes, hand-built request chains
 * and running them through the engine.  See utils.h.
 *
 * The suites, one file per module source file they test:
 *   engine_test.c      engine.c: READ, WRITE, SEND, TOO_BIG, counters
 *   engine_cas_test.c  engine.c: CAS, REDIRECT, CONDITIONAL, concurrency
 *   wire_test.c        wire.c: validation and encoding of chains
 *   region_test.c      region.c: regions, free lists and ALLOC
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/rcupdate.h>
#include <linux/bottom_half.h>
#include <asm/unaligned.h>
#include "utils.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* The regions of every test (see utils.h). */
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

static u8 t_pattern(unsigned int reg, u64 pos)
{
	return (u8)(pos * 13 + reg * 101 + 7);
}

/**
 * t_byte() - kernel address of a byte of a test region
 * @r: the region
 * @va: target address of the byte, inside @r's pages
 *
 * Return: the byte's address in the page that holds it.
 */
u8 *t_byte(struct t_region *r, u64 va)
{
	u64 pos = va - r->base;

	return (u8 *)page_address(r->pages[pos >> PAGE_SHIFT]) +
	       offset_in_page(pos);
}

/**
 * t_peek() - copy bytes out of a region's pages
 * @r: the region
 * @va: target address of the first byte
 * @buf: where to copy them
 * @len: how many
 */
void t_peek(struct t_region *r, u64 va, void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((u8 *)buf)[i] = *t_byte(r, va + i);
}

/**
 * t_poke() - set bytes in memory and shadow (test setup)
 * @r: the region
 * @va: target address of the first byte
 * @buf: the bytes
 * @len: how many
 */
void t_poke(struct t_region *r, u64 va, const void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		*t_byte(r, va + i) = ((const u8 *)buf)[i];
		r->shadow[va + i - r->base] = ((const u8 *)buf)[i];
	}
}

/**
 * t_poke_le64() - t_poke() a little-endian u64 (a pointer or bound)
 * @r: the region
 * @va: target address of the first byte
 * @v: the value
 */
void t_poke_le64(struct t_region *r, u64 va, u64 v)
{
	u8 b[8];

	put_unaligned_le64(v, b);
	t_poke(r, va, b, sizeof(b));
}

/**
 * t_expect() - record an expected change made by the engine
 * @r: the region
 * @va: target address of the first byte
 * @buf: the bytes the engine must have stored there
 * @len: how many
 *
 * Only the shadow changes; t_check_mem() then compares the pages with it.
 */
void t_expect(struct t_region *r, u64 va, const void *buf, size_t len)
{
	memcpy(r->shadow + (va - r->base), buf, len);
}

/**
 * t_shadow() - the bytes the pages must hold (what the engine must read)
 * @r: the region
 * @va: target address of the first byte
 * @buf: where to copy them
 * @len: how many
 */
void t_shadow(struct t_region *r, u64 va, void *buf, size_t len)
{
	memcpy(buf, r->shadow + (va - r->base), len);
}

/**
 * t_check_mem() - every byte of every page of every region equals the shadow
 * @test: the test, failed at the first difference
 * @f: the fixture
 */
void t_check_mem(struct kunit *test, struct t_fix *f)
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

/**
 * t_init() - suite .init: fresh memory with the four regions A to D
 * @test: the test; its priv becomes the struct t_fix
 *
 * Return: 0 (failures abort the test through KUnit assertions).
 */
int t_init(struct kunit *test)
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

/**
 * t_exit() - suite .exit: destroy the memory, free the pages
 * @test: the test
 */
void t_exit(struct kunit *test)
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
/**
 * t_reset() - empty the request of the fixture
 * @f: the fixture
 */
void t_reset(struct t_fix *f)
{
	memset(f->q, 0, sizeof(*f->q));
}

/**
 * t_add() - append an op with its inline data, padded with zeroes
 * @q: the request
 * @op: the op, host order; written big-endian to @q->buf, as is to @q->host
 * @data: @op->data_len bytes of inline data, or NULL for zeroes
 */
void t_add(struct t_req *q, const struct prism_op *op, const void *data)
{
	struct prism_wop *w = (struct prism_wop *)(q->buf + q->len);
	u32 pad = PRISM_PAD8(op->data_len);

	if (WARN_ON(q->len + sizeof(*w) + pad > T_REQ_MAX))
		return;
	prism_wop_encode(op, w);
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

/**
 * t_add_read() - append a plain READ
 * @q: the request
 * @rkey: region key
 * @addr: target address
 * @len: bytes to read
 */
void t_add_read(struct t_req *q, u64 rkey, u64 addr, u32 len)
{
	t_add(q, OP(.opcode = PRISM_OP_READ, .rkey = rkey, .addr = addr,
		    .len = len), NULL);
}

/**
 * t_add_write() - append a WRITE of inline data
 * @q: the request
 * @flags: PRISM_F_* flags
 * @rkey: region key
 * @addr: target address (or scratch offset)
 * @data: the bytes to write
 * @len: how many
 */
void t_add_write(struct t_req *q, u16 flags, u64 rkey, u64 addr,
		 const void *data, u32 len)
{
	t_add(q, OP(.opcode = PRISM_OP_WRITE, .flags = flags, .rkey = rkey,
		    .addr = addr, .len = len, .data_len = len), data);
}

static const u8 t_ones[PRISM_MAX_CAS] = {
	[0 ... PRISM_MAX_CAS - 1] = 0xff
};

/**
 * t_add_cas() - append a CAS
 * @q: the request
 * @c: the op; its compare and swap values go inline unless the op reads
 *     them indirectly, then the compare and swap masks (all ones if NULL)
 */
void t_add_cas(struct t_req *q, const struct t_cas *c)
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

/**
 * t_out() - output of an op in the last response
 * @f: the fixture
 * @i: index of the op
 *
 * Return: the first byte of op @i's output (t_olen() bytes).
 */
const u8 *t_out(struct t_fix *f, unsigned int i)
{
	u32 off = f->q->nops * sizeof(struct prism_wres);
	unsigned int j;

	for (j = 0; j < i; j++)
		off += PRISM_PAD8(t_olen(f, j));
	return f->resp + off;
}

/**
 * t_run_cap() - execute the request like the RX path does
 * @test: the test
 * @f: the fixture; the response goes to @f->resp, the return value to @f->ret
 * @cap: room for the response
 *
 * Checks the form of the response: results, then the outputs padded with
 * zeroes, nothing more.
 *
 * Return: prism_engine_execute()'s value: the response length or a
 * negative chain status.
 */
int t_run_cap(struct kunit *test, struct t_fix *f, u32 cap)
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

/**
 * t_run() - t_run_cap() with room for any response
 * @test: the test
 * @f: the fixture
 *
 * Return: as t_run_cap().
 */
int t_run(struct kunit *test, struct t_fix *f)
{
	return t_run_cap(test, f, T_RESP_MAX);
}

/**
 * t_run_ok() - t_run() and assert that the chain executed
 * @test: the test
 * @f: the fixture
 */
void t_run_ok(struct kunit *test, struct t_fix *f)
{
	KUNIT_ASSERT_GE(test, t_run(test, f), 0);
}

/**
 * t_run_encoded() - encode the host-order copy like sendmsg() does
 * @test: the test; expects the encoding to equal the hand-built wire body
 * @f: the fixture
 *
 * Return: 0, or prism_chain_encode()'s error.
 */
int t_run_encoded(struct kunit *test, struct t_fix *f)
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

/**
 * t_list() - create a free list and post buffers to it
 * @test: the test; asserts that both succeed
 * @f: the fixture
 * @reg: region (RA ... RD) of the list
 * @buf_size: buffer size of the list
 * @cap: capacity of the list
 * @addrs: @n buffer addresses to post
 * @n: how many (0: post nothing)
 * @settle: wait for a grace period, so the buffers can be allocated
 *
 * Return: the list id.
 */
u32 t_list(struct kunit *test, struct t_fix *f, unsigned int reg,
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

/**
 * t_add_alloc() - append an ALLOC
 * @q: the request
 * @flags: PRISM_F_* flags
 * @rkey: region key
 * @id: free list id
 * @data: @len bytes to fill the buffer with
 * @len: how many
 * @redirect: where to store the buffer's address (with PRISM_F_REDIRECT)
 */
void t_add_alloc(struct t_req *q, u16 flags, u64 rkey, u64 id,
		 const void *data, u32 len, u64 redirect)
{
	t_add(q, OP(.opcode = PRISM_OP_ALLOC, .flags = flags, .rkey = rkey,
		    .addr = id, .len = len, .data_len = len,
		    .redirect = redirect), data);
}

MODULE_DESCRIPTION("KUnit tests of the PRISM op engine, wire format, regions and free lists");
MODULE_LICENSE("GPL");
