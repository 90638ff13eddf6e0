// SPDX-License-Identifier: GPL-2.0
/*
 * Structure-aware mutator of the PRISM fuzz target (prism_fuzz.c): parses
 * an input into its model (fuzz.h), adds, removes, swaps or edits ops,
 * pokes and header fields with values near the boundaries that matter
 * (region ends, page edges, the scratch area, length limits), keeps most
 * chains well-formed enough to reach the engine, and serializes the model
 * back.  One time in ten, libFuzzer's own byte mutator is used instead.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../kmod/prism.h"
#include "fuzz.h"

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static u64 fz_rng;

static u64 fz_rand(void)
{
	fz_rng ^= fz_rng << 13;
	fz_rng ^= fz_rng >> 7;
	fz_rng ^= fz_rng << 17;
	return fz_rng;
}

static u32 fz_below(u32 n)
{
	return n ? (u32)(fz_rand() % n) : 0;
}

static u64 fz_pick_len(void)
{
	static const u64 lens[] = {
		0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 128,
		255, 256, 4095, 4096, 4097, 65535, 65536, 65537,
	};
	const struct fz_region_desc *d = &fz_regions[fz_below(FZ_NREGIONS)];

	switch (fz_below(8)) {
	case 0:		/* the smallest boundary, for lengths and bounds */
		return 0;
	case 1:
		return d->len - 1 + fz_below(3);
	case 2:
	case 3:
		return fz_below(80);
	default:
		return lens[fz_below(ARRAY_SIZE(lens))];
	}
}

/* An address near something interesting of region ri or of the scratch. */
static u64 fz_pick_addr(unsigned int ri, bool scratch)
{
	static const s64 deltas[] = {
		-65, -64, -33, -32, -17, -16, -9, -8, -7, -1, 0, 0, 0, 1, 7, 8,
		9, 15, 16, 24, 31, 32, 33, 56, 63, 64,
	};
	const struct fz_region_desc *d = &fz_regions[ri % FZ_NREGIONS];
	/* exactly on the boundary a third of the time */
	s64 delta = fz_below(3) ? deltas[fz_below(ARRAY_SIZE(deltas))] : 0;
	u64 base;

	if (scratch) {
		switch (fz_below(3)) {
		case 0:
			return fz_below(PRISM_SCRATCH_SIZE + 2);
		default:
			return (u64)((s64)fz_below(5) * 64 + delta) &
			       (fz_below(8) ? 0x1ff : ~0ull);
		}
	}
	switch (fz_below(8)) {
	case 0:
		base = d->start;
		break;
	case 1:
	case 2:
		base = d->start + d->len;
		break;
	case 3:		/* a page boundary of the region */
		base = d->start - d->first_off +
		       FZ_PAGE * (1 + fz_below(fz_region_npages(d)));
		break;
	case 4:
		base = d->start + fz_below((u32)d->len);
		break;
	case 5:
		return fz_rand();
	case 6:
		return fz_below(8);	/* free list ids, small numbers */
	default:
		base = d->start + (fz_below((u32)d->len) & ~63u);
		break;
	}
	return base + (u64)delta;
}

static u16 fz_pick_flags(u8 opcode)
{
	static const u16 allowed[] = {
		[PRISM_OP_READ] = PRISM_READ_FLAGS,
		[PRISM_OP_WRITE] = PRISM_WRITE_FLAGS,
		[PRISM_OP_CAS] = PRISM_CAS_FLAGS,
		[PRISM_OP_ALLOC] = PRISM_ALLOC_FLAGS,
		[PRISM_OP_SEND] = PRISM_SEND_FLAGS,
		[PRISM_OP_REKEY] = PRISM_REKEY_FLAGS,
	};
	u16 mask = opcode >= 1 && opcode <= PRISM_OP_MAX ? allowed[opcode] :
							  PRISM_F_ALL;

	if (!fz_below(16))
		return (u16)fz_rand();
	return (u16)fz_rand() & mask;
}

static u8 fz_arena[1 << 20];
static size_t fz_arena_used;

static const u8 *fz_new_data(u32 n, const u8 *old, u32 oldn)
{
	u8 *p;
	u32 i;

	if (n > sizeof(fz_arena) - fz_arena_used)
		return NULL;
	p = fz_arena + fz_arena_used;
	fz_arena_used += n;
	for (i = 0; i < n; i++) {
		if (i < oldn)
			p[i] = old[i];
		else
			p[i] = fz_below(3) ? 0xff : (u8)fz_rand();
	}
	return p;
}

/* Make an op well formed enough to get past the parser, mostly. */
static void fz_fixup(struct fz_op *o, unsigned int idx)
{
	struct prism_op *op = &o->op;
	u64 dl;

	op->reserved = 0;
	if (op->opcode != PRISM_OP_CAS)
		op->cas_mode = 0;
	else if (op->cas_mode > PRISM_CAS_MODE_MAX)
		op->cas_mode = fz_below(PRISM_CAS_MODE_MAX + 1);
	if (idx == 0)
		op->flags &= ~PRISM_F_CONDITIONAL;
	if (!(op->flags & PRISM_F_REDIRECT))
		op->redirect = 0;
	if (!(op->flags & (PRISM_F_DATA_INDIRECT | PRISM_F_CMP_INDIRECT)))
		op->arg_addr = 0;
	if (!(op->flags & PRISM_F_SWAP_INDIRECT))
		op->swap_addr = 0;
	if (op->opcode == PRISM_OP_SEND)
		op->addr = 0;
	if (op->opcode == PRISM_OP_REKEY) {
		op->len = PRISM_KEY_SIZE;
		op->addr %= PRISM_MAX_OVERLAP_MS + 1;
	}
	dl = prism_op_data_len(op);
	if (dl > 8192)
		return;
	op->data_len = (u32)dl;
	if (o->dlen != dl) {
		const u8 *p = fz_new_data((u32)dl, o->data, o->dlen);

		if (p) {
			o->data = p;
			o->dlen = (u32)dl;
		}
	}
}

static void fz_random_op(struct fz_model *m, struct fz_op *o, unsigned int idx)
{
	unsigned int ri = fz_below(FZ_NREGIONS);
	struct prism_op *op = &o->op;

	memset(o, 0, sizeof(*o));
	op->opcode = 1 + fz_below(PRISM_OP_MAX);
	op->flags = fz_pick_flags(op->opcode);
	op->len = (u32)fz_pick_len();
	op->addr = op->opcode == PRISM_OP_ALLOC ? 1 + fz_below(6) :
		   fz_pick_addr(ri, op->flags & PRISM_F_ADDR_SCRATCH);
	op->redirect = fz_pick_addr(ri, op->flags & PRISM_F_REDIRECT_SCRATCH);
	op->arg_addr = fz_pick_addr(ri, op->flags & PRISM_F_ARG_SCRATCH);
	op->swap_addr = fz_pick_addr(ri, op->flags & PRISM_F_ARG_SCRATCH);
	op->rkey = fz_regions[ri].rkey;
	if (idx < 16)
		m->hdr.slot[idx] = fz_below(4) ? ri : (u8)fz_rand();
}

static void fz_mutate_op(struct fz_model *m, unsigned int i)
{
	struct fz_op *o = &m->ops[i];
	struct prism_op *op = &o->op;
	unsigned int ri = i < 16 && m->hdr.slot[i] < FZ_NREGIONS ?
			  m->hdr.slot[i] : fz_below(FZ_NREGIONS);
	u8 tmp[256];
	size_t n;

	switch (fz_below(12)) {
	case 0:
		op->opcode = fz_below(8) ? 1 + fz_below(PRISM_OP_MAX) :
					   (u8)fz_rand();
		break;
	case 1:
		op->flags ^= 1u << fz_below(11);
		break;
	case 2:
		op->flags = fz_pick_flags(op->opcode);
		break;
	case 3:
		op->len = (u32)fz_pick_len();
		break;
	case 4:
		op->addr = fz_pick_addr(ri, op->flags & PRISM_F_ADDR_SCRATCH);
		break;
	case 5:
		op->redirect = fz_pick_addr(ri,
				op->flags & PRISM_F_REDIRECT_SCRATCH);
		break;
	case 6:
		if (fz_below(2))
			op->arg_addr = fz_pick_addr(ri,
					op->flags & PRISM_F_ARG_SCRATCH);
		else
			op->swap_addr = fz_pick_addr(ri,
					op->flags & PRISM_F_ARG_SCRATCH);
		break;
	case 7:
		if (i < 16)
			m->hdr.slot[i] = fz_below(5) ? fz_below(FZ_NREGIONS) :
						       (u8)fz_rand();
		else
			op->rkey = fz_rand();
		break;
	case 8:
		op->cas_mode = fz_below(PRISM_CAS_MODE_MAX + 2);
		break;
	case 9:
		if (op->opcode == PRISM_OP_ALLOC)
			op->addr = fz_below(7);
		else
			op->addr += (u64)(s64)(s32)(fz_below(129) - 64);
		break;
	case 10:	/* inline data bytes */
		n = o->dlen < sizeof(tmp) ? o->dlen : sizeof(tmp);
		if (n) {
			u8 *p = (u8 *)fz_new_data(o->dlen, o->data, o->dlen);

			if (!p)
				break;
			memcpy(tmp, p, n);
			n = LLVMFuzzerMutate(tmp, n, n);
			memcpy(p, tmp, n);
			o->data = p;
		}
		break;
	default:	/* rare fields */
		switch (fz_below(3)) {
		case 0:
			op->data_len = (u32)fz_pick_len();
			break;
		case 1:
			op->reserved = (u32)fz_rand();
			break;
		default:
			op->len = (u32)fz_rand();
			break;
		}
		return;		/* keep the odd value: no fixup */
	}
	if (fz_below(8))
		fz_fixup(o, i);
}

static void fz_mutate_poke(struct fz_model *m)
{
	struct fz_poke *p;
	unsigned int ri = fz_below(FZ_NREGIONS);
	const struct fz_region_desc *d = &fz_regions[ri];
	u64 off;

	if (m->npokes < FZ_MAX_POKES && (!m->npokes || fz_below(2)))
		p = &m->pokes[m->npokes++];
	else
		p = &m->pokes[fz_below(m->npokes)];
	memset(p, 0, sizeof(*p));
	p->region = ri;
	switch (fz_below(4)) {
	case 0:
		off = d->len - 16 * (1 + fz_below(2));
		break;
	case 1:
		off = fz_below(4) * 8;
		break;
	default:
		off = fz_below((u32)d->len) & ~(u64)(fz_below(2) ? 7 : 0);
		break;
	}
	p->off = (u16)off;
	/* a pointer (into any region) or a number; a pair: and a bound */
	if (fz_below(3))
		p->val = fz_pick_addr(fz_below(FZ_NREGIONS), false);
	else
		p->val = fz_pick_len();
	if (fz_below(2)) {
		p->kind = FZ_POKE_PAIR;
		p->bound = (u32)fz_pick_len();
	}
}

/* Make op i load its pointer from a planted one. */
static void fz_aim_at_poke(struct fz_model *m, unsigned int i)
{
	const struct fz_poke *p;
	struct prism_op *op = &m->ops[i].op;

	if (!m->npokes || i >= 16)
		return;
	p = &m->pokes[fz_below(m->npokes)];
	m->hdr.slot[i] = p->region % FZ_NREGIONS;
	op->addr = fz_regions[m->hdr.slot[i]].start + p->off;
	op->flags &= ~PRISM_F_ADDR_SCRATCH;
	if (op->opcode != PRISM_OP_READ && op->opcode != PRISM_OP_WRITE &&
	    op->opcode != PRISM_OP_CAS)
		op->opcode = PRISM_OP_READ;
	op->flags |= PRISM_F_INDIRECT;
	if (op->opcode == PRISM_OP_READ && p->kind == FZ_POKE_PAIR)
		op->flags |= PRISM_F_BOUNDED;
	fz_fixup(&m->ops[i], i);
}

static u8 fz_copy[1 << 20];

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	struct fz_model m;
	unsigned int i, n;
	size_t out;

	fz_rng = seed * 0x9e3779b97f4a7c15ull + 1;
	if (!fz_below(10) || size > sizeof(fz_copy))
		return LLVMFuzzerMutate(data, size, max_size);

	memcpy(fz_copy, data, size);
	fz_parse(fz_copy, size, &m);
	fz_arena_used = 0;

	n = 1 + fz_below(3);
	while (n--) {
		switch (fz_below(12)) {
		case 0:		/* add an op */
			if (m.nops < FZ_MAX_OPS) {
				i = fz_below(m.nops + 1);
				memmove(&m.ops[i + 1], &m.ops[i],
					(m.nops - i) * sizeof(m.ops[0]));
				m.nops++;
				fz_random_op(&m, &m.ops[i], i);
				fz_fixup(&m.ops[i], i);
			}
			break;
		case 1:		/* remove an op */
			if (m.nops > 1) {
				i = fz_below(m.nops);
				memmove(&m.ops[i], &m.ops[i + 1],
					(m.nops - i - 1) * sizeof(m.ops[0]));
				m.nops--;
			}
			break;
		case 2:		/* duplicate or swap ops */
			if (m.nops) {
				unsigned int a = fz_below(m.nops);
				unsigned int b = fz_below(m.nops);
				struct fz_op t = m.ops[a];

				if (fz_below(2) && m.nops < FZ_MAX_OPS) {
					m.ops[m.nops++] = t;
				} else {
					m.ops[a] = m.ops[b];
					m.ops[b] = t;
				}
			}
			break;
		case 3:
		case 4:
			fz_mutate_poke(&m);
			break;
		case 6:
			if (m.nops)
				fz_aim_at_poke(&m, fz_below(m.nops));
			break;
		case 5:		/* header */
			switch (fz_below(4)) {
			case 0:
				m.hdr.cap_delta = (s16)(fz_below(4) ?
					(s32)fz_below(17) - 8 : (s32)fz_rand());
				break;
			case 1:
				m.hdr.mode ^= FZ_MODE_NO_SEND;
				break;
			case 2:
				m.hdr.send_st = (s8)(fz_below(4) ?
					fz_below(PRISM_S_MAX + 2) : fz_rand());
				break;
			default:
				m.hdr.nops = (u8)(m.nops + fz_below(3) - 1);
				break;
			}
			break;
		default:
			if (m.nops)
				fz_mutate_op(&m, fz_below(m.nops));
			else
				fz_random_op(&m, &m.ops[m.nops++], 0);
			break;
		}
	}
	if (fz_below(10))
		m.hdr.nops = (u8)m.nops;

	out = fz_serialize(&m, data, max_size);
	if (!out)
		return LLVMFuzzerMutate(data, size, max_size);
	if (!fz_below(20))
		out = LLVMFuzzerMutate(data, out, max_size);
	return out;
}
