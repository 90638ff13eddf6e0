/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM engine fuzzer: the memory layout the target sets up and the fuzz
 * input format, shared by the target (prism_fuzz.c), its mutator
 * (mutate.c) and the seed generator (seeds.c).
 *
 * Fuzz input:
 *   struct fz_hdr
 *   hdr.npokes x struct fz_poke	(at most FZ_MAX_POKES)
 *   request body: ops as on the wire (struct prism_wop, big-endian, then
 *   the inline data padded to 8 bytes), passed unchanged except that op i
 *   gets the rkey of region hdr.slot[i] when that slot names a region.
 *
 * Integers in fz_hdr and fz_poke are little-endian.
 */
#ifndef _PRISM_FUZZ_H
#define _PRISM_FUZZ_H

#include <stdint.h>
#include <string.h>

#define FZ_PAGE			4096u
#define FZ_MAX_OPS		20	/* a few more than PRISM_MAX_CHAIN */
#define FZ_MAX_POKES		8
#define FZ_NREGIONS		4
#define FZ_NFREELISTS		5
#define FZ_MAX_FL_BUFS		4
#define FZ_WOP_SIZE		56	/* sizeof(struct prism_wop) */

/* mode bits of struct fz_hdr */
#define FZ_MODE_NO_SEND		0x01	/* ctx.deliver_send = NULL */

struct fz_hdr {
	uint8_t		nops;		/* passed to the engine as is */
	uint8_t		mode;		/* FZ_MODE_* */
	int8_t		send_st;	/* what deliver_send() returns */
	uint8_t		npokes;
	int16_t		cap_delta;	/* resp_cap = needed + cap_delta */
	uint16_t	pad;
	uint8_t		slot[16];	/* op i: rkey of region slot[i] */
} __attribute__((packed));

/*
 * Store val (LE) at byte off of region region before the chain runs; with
 * kind FZ_POKE_PAIR a pointer pair {ptr = val, bound} (16 bytes, what a
 * bounded indirect READ loads).
 */
#define FZ_POKE_PAIR	1

struct fz_poke {
	uint8_t		region;
	uint8_t		kind;
	uint16_t	off;
	uint32_t	bound;
	uint64_t	val;
} __attribute__((packed));

/* Regions of the target endpoint. */
struct fz_region_desc {
	uint64_t	rkey;
	uint64_t	start;
	uint64_t	len;
	uint32_t	first_off;
	uint32_t	access;		/* PRISM_ACCESS_* bits */
};

/*
 * 0: two full pages, ends exactly on a page boundary
 * 1: starts at 0xf00 of its first page, three pages, ends inside a page
 * 2: read-only, starts at 0x40, ends exactly on a page boundary
 * 3: write and atomic but not read, 48 bytes inside one page
 */
static const struct fz_region_desc fz_regions[FZ_NREGIONS] = {
	{ 0x9e3779b97f4a7c15ull, 0x7f1000000000ull, 2 * FZ_PAGE, 0, 7 },
	{ 0x2545f4914f6cdd1dull, 0x7f2000000f00ull, 0x100 + FZ_PAGE + 0x80,
	  0xf00, 7 },
	{ 0xd1b54a32d192ed03ull, 0x7f3000000040ull, FZ_PAGE - 0x40, 0x40, 1 },
	{ 0x8cb92ba72f3d8dd7ull, 0x7f4000000010ull, 0x30, 0x10, 6 },
};

static inline uint32_t fz_region_npages(const struct fz_region_desc *d)
{
	return (uint32_t)((d->first_off + d->len + FZ_PAGE - 1) / FZ_PAGE);
}

static inline uint64_t fz_region_end(unsigned int i)
{
	return fz_regions[i].start + fz_regions[i].len;
}

/* Free lists (ALLOC's addr is the id). */
struct fz_freelist_desc {
	uint32_t	id;
	unsigned int	region;
	uint32_t	buf_size;
	unsigned int	nbufs;
	unsigned int	ready;		/* buffers past the grace period */
	uint64_t	off[FZ_MAX_FL_BUFS];	/* buffer offsets in the region */
};

static const struct fz_freelist_desc fz_freelists[FZ_NFREELISTS] = {
	/* the last buffer ends exactly at the end of region 0 */
	{ 1, 0, 64, 3, 3, { 0, 64, 2 * FZ_PAGE - 64 } },
	/* crosses a page; the last one ends at the end of region 1 */
	{ 2, 1, 256, 2, 2, { 0xf8, 0x100 + FZ_PAGE + 0x80 - 256 } },
	/* in the read-only region */
	{ 3, 2, 32, 1, 1, { 0 } },
	/* empty */
	{ 4, 0, 128, 0, 0, { 0 } },
	/* posted, grace period not over yet */
	{ 5, 1, 64, 2, 0, { 0, 64 } },
};

/* ---------------------------------------------------------------------------
 * Structured form of an input, for the custom mutator and the seeds.
 */
struct fz_op {
	struct prism_op	op;		/* host order */
	const uint8_t	*data;
	uint32_t	dlen;		/* inline bytes present (unpadded) */
};

struct fz_model {
	struct fz_hdr	hdr;
	struct fz_poke	pokes[FZ_MAX_POKES];
	unsigned int	npokes;
	struct fz_op	ops[FZ_MAX_OPS];
	unsigned int	nops;
};

#define FZ_PAD8(x)	(((x) + 7u) & ~7u)

static inline void fz_put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static inline uint64_t fz_get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* struct prism_op (host) <-> struct prism_wop bytes (big-endian). */
static inline void fz_wop_put(uint8_t *w, const struct prism_op *op)
{
	w[0] = op->opcode;
	w[1] = op->cas_mode;
	fz_put_be(w + 2, op->flags, 2);
	fz_put_be(w + 4, op->len, 4);
	fz_put_be(w + 8, op->rkey, 8);
	fz_put_be(w + 16, op->addr, 8);
	fz_put_be(w + 24, op->redirect, 8);
	fz_put_be(w + 32, op->arg_addr, 8);
	fz_put_be(w + 40, op->swap_addr, 8);
	fz_put_be(w + 48, op->data_len, 4);
	fz_put_be(w + 52, op->reserved, 4);
}

static inline void fz_wop_get(const uint8_t *w, struct prism_op *op)
{
	op->opcode = w[0];
	op->cas_mode = w[1];
	op->flags = (uint16_t)fz_get_be(w + 2, 2);
	op->len = (uint32_t)fz_get_be(w + 4, 4);
	op->rkey = fz_get_be(w + 8, 8);
	op->addr = fz_get_be(w + 16, 8);
	op->redirect = fz_get_be(w + 24, 8);
	op->arg_addr = fz_get_be(w + 32, 8);
	op->swap_addr = fz_get_be(w + 40, 8);
	op->data_len = (uint32_t)fz_get_be(w + 48, 4);
	op->reserved = (uint32_t)fz_get_be(w + 52, 4);
}

/* Bytes of input into the model; data points into buf.  Never fails. */
static inline void fz_parse(const uint8_t *buf, size_t size,
			    struct fz_model *m)
{
	size_t pos = 0;
	unsigned int i;

	memset(m, 0, sizeof(*m));
	memcpy(&m->hdr, buf, size < sizeof(m->hdr) ? size : sizeof(m->hdr));
	pos = sizeof(m->hdr) < size ? sizeof(m->hdr) : size;
	for (i = 0; i < m->hdr.npokes && i < FZ_MAX_POKES; i++) {
		if (size - pos < sizeof(struct fz_poke))
			break;
		memcpy(&m->pokes[i], buf + pos, sizeof(struct fz_poke));
		pos += sizeof(struct fz_poke);
	}
	m->npokes = i;
	while (m->nops < FZ_MAX_OPS && size - pos >= FZ_WOP_SIZE) {
		struct fz_op *o = &m->ops[m->nops++];
		size_t left;

		fz_wop_get(buf + pos, &o->op);
		pos += FZ_WOP_SIZE;
		left = size - pos;
		o->data = buf + pos;
		o->dlen = o->op.data_len < left ? o->op.data_len : (uint32_t)left;
		pos += FZ_PAD8((uint64_t)o->dlen) < left ?
		       FZ_PAD8((uint64_t)o->dlen) : left;
	}
}

/* The model into bytes; 0 if it does not fit in cap. */
static inline size_t fz_serialize(const struct fz_model *m, uint8_t *out,
				  size_t cap)
{
	struct fz_hdr h = m->hdr;
	size_t pos = 0;
	unsigned int i;

	h.npokes = (uint8_t)m->npokes;
	if (cap < sizeof(h) + m->npokes * sizeof(struct fz_poke))
		return 0;
	memcpy(out, &h, sizeof(h));
	pos = sizeof(h);
	memcpy(out + pos, m->pokes, m->npokes * sizeof(struct fz_poke));
	pos += m->npokes * sizeof(struct fz_poke);
	for (i = 0; i < m->nops; i++) {
		const struct fz_op *o = &m->ops[i];
		size_t padded = FZ_PAD8((size_t)o->dlen);

		if (cap - pos < FZ_WOP_SIZE + padded)
			return 0;
		fz_wop_put(out + pos, &o->op);
		pos += FZ_WOP_SIZE;
		/* data may alias out (in-place mutation): memmove */
		if (o->dlen)
			memmove(out + pos, o->data, o->dlen);
		memset(out + pos + o->dlen, 0, padded - o->dlen);
		pos += padded;
	}
	return pos;
}

#endif /* _PRISM_FUZZ_H */
