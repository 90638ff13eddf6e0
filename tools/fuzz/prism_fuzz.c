// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the PRISM wire parser (kmod/wire.c) and op engine
 * (kmod/engine.c), both compiled unmodified against shim/.
 *
 * Each input is a request body plus a small header (fuzz.h).  Per input:
 *  - the regions' fake pages are reset (region bytes to a pattern, bytes of
 *    a page outside the region to a canary), pokes planted, free lists
 *    refilled; all state is rebuilt so every input reproduces;
 *  - prism_wire_check() on the body, and prism_chain_encode() on the same
 *    chain in host order: both must agree, and encoding must give back
 *    the body byte for byte;
 *  - prism_engine_execute() into a response buffer of exactly resp_cap
 *    bytes, then the invariants of the result (see fz_check_resp()), the
 *    canaries, the read-only region, and the stripe locks.
 * Any violated invariant aborts: libFuzzer reports it as a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kmod/prism.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CANARY	0xcc
#define FZ_MAX_RESP	(PRISM_MAX_CHAIN * 8 + PRISM_MAX_CHAIN_DATA)

static void fz_fail(const char *what, long a, long b)
{
	fprintf(stderr, "prism_fuzz: invariant violated: %s (%ld, %ld)\n",
		what, a, b);
	abort();
}

#define FZ_ASSERT(cond, a, b) do {					\
	if (!(cond))							\
		fz_fail(#cond, (long)(a), (long)(b));			\
} while (0)

/* ---------------------------------------------------------------------------
 * Shim services: locks, WARN.
 */
static int fz_locks_held;
static spinlock_t *fz_last_lock;

void prism_fuzz_lock(spinlock_t *l, int subclass)
{
	FZ_ASSERT(l->magic == PRISM_FUZZ_LOCK_MAGIC, l->magic, 0);
	FZ_ASSERT(!l->locked, fz_locks_held, subclass);	/* self-deadlock */
	/* Only an annotated nested lock may be taken while one is held,
	 * and in address order (the engine's rule). */
	FZ_ASSERT(fz_locks_held == 0 || subclass, fz_locks_held, subclass);
	FZ_ASSERT(fz_locks_held == 0 || l > fz_last_lock, fz_locks_held, 0);
	l->locked = 1;
	fz_locks_held++;
	fz_last_lock = l;
}

void prism_fuzz_unlock(spinlock_t *l)
{
	FZ_ASSERT(l->magic == PRISM_FUZZ_LOCK_MAGIC, l->magic, 0);
	FZ_ASSERT(l->locked, fz_locks_held, 0);
	l->locked = 0;
	fz_locks_held--;
}

void prism_fuzz_warn(const char *cond, const char *file, int line)
{
	fprintf(stderr, "prism_fuzz: WARNING at %s:%d: %s\n", file, line,
		cond);
	abort();
}

/* ---------------------------------------------------------------------------
 * Regions over fake pages, free lists.
 */
static struct prism_region fz_reg[FZ_NREGIONS];
static u8 **fz_img[FZ_NREGIONS];	/* initial page images */
static u8 *fz_ro_snap;			/* region 2's page before the chain */
static struct prism_mem fz_mem;

struct fz_fl {
	u32	head, count;
};
static struct fz_fl fz_fl_state[FZ_NFREELISTS];

static void fz_regions_init(void)
{
	unsigned long pfn = 0x1000;
	unsigned int i, j;

	for (i = 0; i < FZ_NREGIONS; i++) {
		const struct fz_region_desc *d = &fz_regions[i];
		struct prism_region *r = &fz_reg[i];

		r->rkey = d->rkey;
		r->start = d->start;
		r->len = d->len;
		r->access = d->access;
		r->first_off = d->first_off;
		r->npages = fz_region_npages(d);
		/* Exactly npages entries: pages[npages] is a heap overflow. */
		r->pages = malloc(r->npages * sizeof(*r->pages));
		if (!r->pages)
			abort();
		for (j = 0; j < r->npages; j++) {
			struct page *pg = malloc(sizeof(*pg));

			if (!pg)
				abort();
			pg->buf = malloc(FZ_PAGE);	/* one allocation each */
			if (!pg->buf)
				abort();
			pg->pfn = pfn++;
			r->pages[j] = pg;
		}
	}
	if (fz_reg[2].npages != 1)	/* fz_ro_snap holds one page */
		abort();
	fz_ro_snap = malloc(FZ_PAGE);
	if (!fz_ro_snap)
		abort();
}

/* Byte at region offset off (host view, bypassing the engine). */
static u8 *fz_byte(unsigned int ri, u64 off)
{
	const struct prism_region *r = &fz_reg[ri];
	u64 pos = off + r->first_off;

	return r->pages[pos / FZ_PAGE]->buf + pos % FZ_PAGE;
}

/*
 * Initial image of every page: region bytes a pattern, the bytes of the
 * page outside the region a canary.
 */
static void fz_images_init(void)
{
	unsigned int i, j;
	u64 b;

	for (i = 0; i < FZ_NREGIONS; i++) {
		const struct prism_region *r = &fz_reg[i];

		fz_img[i] = malloc(r->npages * sizeof(*fz_img[i]));
		if (!fz_img[i])
			abort();
		for (j = 0; j < r->npages; j++) {
			fz_img[i][j] = malloc(FZ_PAGE);
			if (!fz_img[i][j])
				abort();
			memset(r->pages[j]->buf, FZ_CANARY, FZ_PAGE);
		}
		for (b = 0; b < r->len; b++)
			*fz_byte(i, b) = (u8)(b * 7 + i * 31 + 1);
		for (j = 0; j < r->npages; j++)
			memcpy(fz_img[i][j], r->pages[j]->buf, FZ_PAGE);
	}
}

static void fz_regions_reset(const struct fz_model *m)
{
	unsigned int i, j;
	u64 b;

	for (i = 0; i < FZ_NREGIONS; i++)
		for (j = 0; j < fz_reg[i].npages; j++)
			memcpy(fz_reg[i].pages[j]->buf, fz_img[i][j], FZ_PAGE);
	for (i = 0; i < m->npokes; i++) {
		const struct fz_poke *p = &m->pokes[i];
		unsigned int ri = p->region % FZ_NREGIONS;

		if (p->off + (p->kind == FZ_POKE_PAIR ? 16u : 8u) >
		    fz_reg[ri].len)
			continue;
		for (b = 0; b < sizeof(u64); b++)
			*fz_byte(ri, p->off + b) = (u8)(p->val >> (8 * b));
		if (p->kind != FZ_POKE_PAIR)
			continue;
		for (b = 0; b < sizeof(u64); b++)
			*fz_byte(ri, p->off + 8 + b) =
				(u8)((u64)p->bound >> (8 * b));
	}
	/* region 2 is read-only: all of its page must stay as it is now */
	memcpy(fz_ro_snap, fz_reg[2].pages[0]->buf, FZ_PAGE);
	memset(fz_fl_state, 0, sizeof(fz_fl_state));
	for (i = 0; i < FZ_NFREELISTS; i++)
		fz_fl_state[i].count = fz_freelists[i].nbufs;
}

/* Nothing outside a region changed; the read-only region did not change. */
static void fz_regions_verify(void)
{
	unsigned int i, last;
	const struct prism_region *r;
	u64 end;

	for (i = 0; i < FZ_NREGIONS; i++) {
		r = &fz_reg[i];
		last = r->npages - 1;
		end = (r->first_off + r->len) - (u64)last * FZ_PAGE;
		FZ_ASSERT(!memcmp(r->pages[0]->buf, fz_img[i][0],
				  r->first_off), i, 0);
		FZ_ASSERT(!memcmp(r->pages[last]->buf + end,
				  fz_img[i][last] + end, FZ_PAGE - end), i, 1);
	}
	FZ_ASSERT(!memcmp(fz_reg[2].pages[0]->buf, fz_ro_snap, FZ_PAGE), 2, 2);
}

struct prism_region *prism_region_find(struct prism_mem *mem, u64 rkey)
{
	unsigned int i;

	FZ_ASSERT(mem == &fz_mem, 0, 0);
	for (i = 0; i < FZ_NREGIONS; i++)
		if (fz_reg[i].rkey == rkey)
			return &fz_reg[i];
	return NULL;
}

/* The contract of kmod/region.c's prism_freelist_pop() over fz_freelists. */
int prism_freelist_pop(struct prism_mem *mem, u32 id, u64 rkey, u32 len,
		       u64 *addr)
{
	const struct fz_freelist_desc *d = NULL;
	struct fz_fl *s;
	unsigned int i;

	FZ_ASSERT(mem == &fz_mem, 0, 0);
	for (i = 0; i < FZ_NFREELISTS; i++)
		if (fz_freelists[i].id == id)
			d = &fz_freelists[i];
	if (!d)
		return PRISM_S_NO_BUFFER;
	if (fz_regions[d->region].rkey != rkey)
		return PRISM_S_AUTH;
	if (len > d->buf_size)
		return PRISM_S_INVALID;
	s = &fz_fl_state[d - fz_freelists];
	if (!s->count || s->head >= d->ready)
		return PRISM_S_NO_BUFFER;
	*addr = fz_regions[d->region].start + d->off[s->head];
	s->head++;
	s->count--;
	return PRISM_S_OK;
}

/* No fuzzed region is keyed: a REKEY op never gets this far. */
int prism_region_rekey_op(struct prism_mem *mem, struct mem_cgroup *memcg,
			  u64 rkey, const u8 *key, u32 overlap_ms, u32 *gen)
{
	(void)mem;
	(void)memcg;
	(void)key;
	(void)gen;
	fz_fail("REKEY reached a plain region", (u32)rkey, overlap_ms);
	return -EINVAL;
}

/* ---------------------------------------------------------------------------
 * SEND delivery.
 */
static int fz_send_st;
static unsigned int fz_sends;

static volatile u8 fz_sink;

static int fz_deliver_send(void *priv, const void *data, u32 len)
{
	const u8 *d = data;

	FZ_ASSERT(priv == &fz_send_st, 0, 0);
	FZ_ASSERT(len <= PRISM_MAX_OP_LEN, len, 0);
	if (len)	/* every byte must be readable (ASan) */
		fz_sink = d[0] ^ d[len - 1];
	fz_sends++;
	return fz_send_st;
}

/* ---------------------------------------------------------------------------
 * The target.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	prism_engine_init();
	fz_regions_init();
	fz_images_init();
	return 0;
}

/*
 * Body to host order: every op header at the positions the parser visits
 * byte-swapped, inline data unchanged.  Same validity as the wire form.
 */
static void fz_to_host(const u8 *body, u32 len, u8 *host)
{
	u32 pos = 0;

	memcpy(host, body, len);
	while (len - pos >= FZ_WOP_SIZE) {
		struct prism_op op;

		fz_wop_get(body + pos, &op);
		memcpy(host + pos, &op, sizeof(op));
		pos += FZ_WOP_SIZE;
		if (FZ_PAD8((u64)op.data_len) > len - pos)
			break;
		pos += FZ_PAD8(op.data_len);
	}
}

/* prism_wire_check_work() agrees, and its work is the sum of op lengths. */
/*
 * The ops of a valid chain without their data (an SREQ's manifest) must
 * give the same body length, response length and work.
 */
static void fz_check_manifest(const u8 *body, u32 len, u8 nops, u32 need,
			      u32 work)
{
	u8 ops[PRISM_MAX_CHAIN * sizeof(struct prism_wop)];
	u32 blen = 0, need2 = 0, work2 = 0, pos = 0, dl;
	unsigned int i;
	int rc;

	for (i = 0; i < nops; i++) {
		memcpy(ops + i * sizeof(struct prism_wop), body + pos,
		       sizeof(struct prism_wop));
		dl = (u32)fz_get_be(body + pos + 48, 4);
		pos += sizeof(struct prism_wop) + FZ_PAD8(dl);
	}
	rc = prism_wire_check_manifest(ops, nops * sizeof(struct prism_wop),
				       nops, &blen, &need2, &work2);
	FZ_ASSERT(rc == 0, rc, 0);
	FZ_ASSERT(blen == len && need2 == need && work2 == work, blen, len);
}

static void fz_check_work(const u8 *body, u32 len, u8 nops, int check_rc,
			  u32 need)
{
	u32 need2 = 0, work = 0, sum = 0, pos = 0;
	struct prism_decoded_op pop;
	unsigned int i;
	int rc;

	rc = prism_wire_check_work(body, len, nops, &need2, &work);
	FZ_ASSERT(rc == check_rc, rc, check_rc);
	if (rc)
		return;
	FZ_ASSERT(need2 == need, need2, need);
	for (i = 0; i < nops; i++) {
		FZ_ASSERT(!prism_wire_parse_op(body, len, &pos, i, &pop), i, 0);
		sum += pop.op.len;
	}
	FZ_ASSERT(work == sum && work <= PRISM_MAX_CHAIN_WORK, work, sum);
	fz_check_manifest(body, len, nops, need, work);
}

/* Both entry points of wire.c on the same chain must agree. */
static void fz_check_encode(const u8 *body, u32 len, u8 nops, int check_rc,
			    u32 need)
{
	u8 *host = malloc(len ? len : 1), *out = malloc(len ? len : 1);
	u32 resp_len = 0;
	int rc;

	if (!host || !out)
		abort();
	fz_to_host(body, len, host);
	rc = prism_chain_encode(host, len, nops, out, len, &resp_len);
	FZ_ASSERT((rc >= 0) == (check_rc == 0), rc, check_rc);
	if (rc >= 0) {
		FZ_ASSERT((u32)rc == len, rc, len);
		FZ_ASSERT(resp_len == need, resp_len, need);
		FZ_ASSERT(!memcmp(out, body, len), len, 0);
		if (len) {
			rc = prism_chain_encode(host, len, nops, out, len - 1,
						&resp_len);
			FZ_ASSERT(rc == -EMSGSIZE, rc, len);
		}
	}
	free(host);
	free(out);
}

/* Statuses an op other than SEND may end with. */
static void fz_check_status(const struct prism_op *op, unsigned int i, int st)
{
	switch (st) {
	case PRISM_S_OK:
		/* REKEY runs only in sealed chains, on keyed regions. */
		FZ_ASSERT(op->opcode != PRISM_OP_REKEY, i, st);
		break;
	case PRISM_S_ACCESS:
	case PRISM_S_AUTH:
	case PRISM_S_INVALID:
		break;
	case PRISM_S_CMP_FAILED:
		FZ_ASSERT(op->opcode == PRISM_OP_CAS, i, op->opcode);
		break;
	case PRISM_S_SKIPPED:
		FZ_ASSERT(op->flags & PRISM_F_CONDITIONAL, i, 0);
		break;
	case PRISM_S_NO_BUFFER:
		FZ_ASSERT(op->opcode == PRISM_OP_ALLOC, i, op->opcode);
		break;
	default:
		fz_fail("unexpected op status", i, st);
	}
}

/* The response of a chain that ran: results, outputs, padding, counters. */
static void fz_check_resp(const u8 *body, u32 len, u8 nops, const u8 *resp,
			  int ret, u32 need, u32 ops_failed)
{
	const struct prism_wres *res = (const struct prism_wres *)resp;
	u32 out = nops * sizeof(*res), pos = 0, failed = 0;
	int prev = PRISM_S_OK;
	unsigned int i;

	FZ_ASSERT(ret >= (int)out, ret, out);
	FZ_ASSERT((u32)ret <= need, ret, need);
	for (i = 0; i < nops; i++) {
		struct prism_decoded_op pop;
		const struct prism_op *op = &pop.op;
		u32 olen = be32_to_cpu(res[i].len), k;
		int st = res[i].status;

		FZ_ASSERT(!prism_wire_parse_op(body, len, &pos, i, &pop), i, 0);
		FZ_ASSERT(!res[i].reserved && !res[i].reserved2, i, 0);
		/* SEND passes deliver_send's own statuses on */
		if (op->opcode == PRISM_OP_SEND)
			FZ_ASSERT(st <= PRISM_S_MAX, i, st);
		else
			fz_check_status(op, i, st);
		if ((op->flags & PRISM_F_CONDITIONAL) && prev != PRISM_S_OK)
			FZ_ASSERT(st == PRISM_S_SKIPPED, i, st);
		if (st != PRISM_S_OK && st != PRISM_S_CMP_FAILED)
			FZ_ASSERT(olen == 0, i, olen);
		FZ_ASSERT(olen <= pop.out_len, olen, pop.out_len);
		if (st == PRISM_S_OK || st == PRISM_S_CMP_FAILED) {
			if (op->opcode == PRISM_OP_CAS ||
			    op->opcode == PRISM_OP_ALLOC ||
			    (op->opcode == PRISM_OP_READ &&
			     !(op->flags & PRISM_F_BOUNDED)))
				FZ_ASSERT(olen == pop.out_len, olen,
					  pop.out_len);
		}
		FZ_ASSERT(out + FZ_PAD8(olen) <= (u32)ret, out, olen);
		for (k = olen; k < FZ_PAD8(olen); k++)
			FZ_ASSERT(resp[out + k] == 0, i, k);
		out += FZ_PAD8(olen);
		if (st != PRISM_S_OK)
			failed++;
		prev = st;
	}
	FZ_ASSERT(out == (u32)ret, out, ret);
	FZ_ASSERT(failed == ops_failed, failed, ops_failed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prism_exec_ctx ctx;
	struct fz_model m;
	u32 len, need = 0, cap, pos = 0;
	u8 *body, *resp;
	size_t off;
	unsigned int i;
	int check_rc, ret;

	if (size < sizeof(struct fz_hdr) || size > 1u << 20)
		return -1;
	fz_parse(data, size, &m);
	off = sizeof(struct fz_hdr) + m.npokes * sizeof(struct fz_poke);
	len = (u32)(size - off);

	/* The body, in a buffer of its exact size, rkeys from the slots. */
	body = malloc(len ? len : 1);
	if (!body)
		abort();
	memcpy(body, data + off, len);
	for (i = 0; i < 16 && len - pos >= FZ_WOP_SIZE; i++) {
		u32 dl = (u32)fz_get_be(body + pos + 48, 4);

		if (m.hdr.slot[i] < FZ_NREGIONS)
			fz_put_be(body + pos + 8,
				  fz_regions[m.hdr.slot[i]].rkey, 8);
		pos += FZ_WOP_SIZE;
		if (FZ_PAD8((u64)dl) > len - pos)
			break;
		pos += FZ_PAD8(dl);
	}

	fz_regions_reset(&m);
	check_rc = prism_wire_check(body, len, m.hdr.nops, &need);
	if (!check_rc)
		FZ_ASSERT(need >= m.hdr.nops * sizeof(struct prism_wres) &&
			  need <= FZ_MAX_RESP, need, 0);
	fz_check_work(body, len, m.hdr.nops, check_rc, need);
	fz_check_encode(body, len, m.hdr.nops, check_rc, need);

	if (!check_rc) {
		long c = (long)need + m.hdr.cap_delta;

		cap = c < 0 ? 0 : (u32)c;
	} else {
		cap = (u16)m.hdr.cap_delta;
	}
	resp = malloc(cap ? cap : 1);
	if (!resp)
		abort();

	memset(&ctx, 0, sizeof(ctx));
	ctx.mem = &fz_mem;
	ctx.deliver_send = (m.hdr.mode & FZ_MODE_NO_SEND) ? NULL :
							    fz_deliver_send;
	ctx.priv = &fz_send_st;
	fz_send_st = m.hdr.send_st;
	fz_sends = 0;
	fz_locks_held = 0;

	ret = prism_engine_execute(&ctx, body, len, m.hdr.nops, resp, cap);

	FZ_ASSERT(fz_locks_held == 0, fz_locks_held, 0);
	if (check_rc) {
		FZ_ASSERT(ret == -PRISM_S_INVALID, ret, check_rc);
	} else if (need > cap) {
		FZ_ASSERT(ret == -PRISM_S_TOO_BIG, ret, cap);
	} else {
		FZ_ASSERT(ret >= 0 && (u32)ret <= cap, ret, cap);
		fz_check_resp(body, len, m.hdr.nops, resp, ret, need,
			      ctx.ops_failed);
	}
	if (ret < 0)
		FZ_ASSERT(fz_sends == 0, fz_sends, ret);
	fz_regions_verify();
	free(resp);
	free(body);
	return 0;
}
