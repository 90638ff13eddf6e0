// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM op engine: executes a received request chain against the regions
 * of the target endpoint.  Runs in softirq (BH disabled) under
 * rcu_read_lock(); never sleeps and never touches user mappings: region
 * bytes are reached through the pinned pages with kmap_local_page().
 *
 * Trust: the request comes from the network.  The whole chain is checked
 * first (prism_wire_check(), the same checks prism_chain_encode() applies
 * to local chains); nothing runs unless every op is well formed and the
 * largest possible response fits.  Then each op resolves all of its
 * addresses (including pointers it loads from memory) against the region
 * named by its rkey, with the rights it needs, before it modifies anything:
 * an op that fails with AUTH or ACCESS has touched nothing.
 *
 * Atomicity: accesses to region bytes go through a global table of striped
 * spinlocks hashed by (page frame, offset / 64), i.e. by physical cache
 * line, so regions of different sockets that share pages are covered too.
 * An access of at most PRISM_MAX_CAS (32) bytes - every CAS, pointer load,
 * and READ/WRITE of that size - holds the locks of all (at most two) lines
 * it touches, taken in address order, for its whole duration: such accesses
 * are atomic against each other.  Longer READs and WRITEs go line by line,
 * each line under its lock: every line is consistent, the whole is not.
 * A READ, WRITE or pointer load of exactly 8 aligned bytes is a single
 * load/store and an 8-byte aligned CAS uses cmpxchg, so these are also
 * atomic against the application's own atomic instructions on that word;
 * nothing else is synchronised with the CPU accesses of the application.
 * The engine always runs with BH disabled and the stripe locks are taken
 * nowhere else, so plain spin_lock() suffices.
 */
#include <linux/kernel.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/hash.h>
#include <linux/spinlock.h>
#include "compat.h"
#include <kunit/visibility.h>
#include "prism.h"

#define PRISM_LINE_SHIFT	6
#define PRISM_LINE		BIT(PRISM_LINE_SHIFT)
#define PRISM_STRIPE_BITS	9

struct prism_stripe {
	spinlock_t	lock;	/* region bytes of the lines hashed here */
} ____cacheline_aligned_in_smp;

static struct prism_stripe prism_stripes[BIT(PRISM_STRIPE_BITS)];

/**
 * prism_engine_init() - set the engine up before its first op
 *
 * Initializes the stripe locks, all of one lockdep class.  Called once, at
 * module load (and by the fuzzer's setup), before any chain can run: not
 * by a DO_ONCE() in prism_engine_execute(), whose static key would patch
 * the engine's text at its first use while other CPUs run it.
 */
void prism_engine_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prism_stripes); i++)
		spin_lock_init(&prism_stripes[i].lock);
}

/* Lock of the cache line holding byte off of page. */
static spinlock_t *prism_stripe(struct page *page, unsigned int off)
{
	u64 line = ((u64)page_to_pfn(page) << (PAGE_SHIFT - PRISM_LINE_SHIFT)) |
		   (off >> PRISM_LINE_SHIFT);

	return &prism_stripes[hash_64(line, PRISM_STRIPE_BITS)].lock;
}

/* Bytes within one page and one cache line. */
struct prism_piece {
	struct page	*page;
	unsigned int	off;
	unsigned int	len;
};

/*
 * The piece of region r starting at va: up to len bytes, not past the end
 * of va's line.  Lines never cross pages.  va was checked to be inside r.
 */
static void prism_piece_at(const struct prism_region *r, u64 va, u32 len,
			   struct prism_piece *p)
{
	u64 pos = va - r->start + r->first_off;

	p->page = r->pages[pos >> PAGE_SHIFT];
	p->off = offset_in_page(pos);
	p->len = min_t(u32, len, PRISM_LINE - (p->off & (PRISM_LINE - 1)));
}

static void prism_piece_io(const struct prism_piece *p, void *buf,
			   bool to_mem)
{
	u8 *k = kmap_local_page(p->page);
	u8 *m = k + p->off;
	u64 v;

	if (p->len == sizeof(u64) && IS_ALIGNED(p->off, sizeof(u64))) {
		/* A single access, like the application's own atomics. */
		if (to_mem) {
			memcpy(&v, buf, sizeof(v));
			WRITE_ONCE(*(u64 *)m, v);
		} else {
			v = READ_ONCE(*(u64 *)m);
			memcpy(buf, &v, sizeof(v));
		}
	} else if (to_mem) {
		memcpy(m, buf, p->len);
	} else {
		memcpy(buf, m, p->len);
	}
	kunmap_local(k);
}

/* A locked access of at most PRISM_MAX_CAS bytes: at most two lines. */
struct prism_small {
	struct prism_piece	p[2];
	unsigned int		n;
	spinlock_t		*lock[2];	/* stripes, in locking order */
};

static void prism_small_lock(const struct prism_region *r, u64 va, u32 len,
			     struct prism_small *s)
	__acquires(s->lock[0]) __acquires(s->lock[1])
{
	spinlock_t *a, *b = NULL;

	prism_piece_at(r, va, len, &s->p[0]);
	s->n = 1;
	a = prism_stripe(s->p[0].page, s->p[0].off);
	if (s->p[0].len < len) {
		prism_piece_at(r, va + s->p[0].len, len - s->p[0].len,
			       &s->p[1]);
		s->n = 2;
		b = prism_stripe(s->p[1].page, s->p[1].off);
		if (b == a)
			b = NULL;
		else if (b < a)
			swap(a, b);
	}
	s->lock[0] = a;
	s->lock[1] = b;
	spin_lock(a);
	if (b)
		spin_lock_nested(b, SINGLE_DEPTH_NESTING);
	else
		__acquire(b);	/* for sparse: always "two" locks */
}

static void prism_small_unlock(struct prism_small *s)
	__releases(s->lock[0]) __releases(s->lock[1])
{
	if (s->lock[1])
		spin_unlock(s->lock[1]);
	else
		__release(s->lock[1]);
	spin_unlock(s->lock[0]);
}

static void prism_small_io(const struct prism_small *s, u8 *buf, bool to_mem)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		prism_piece_io(&s->p[i], buf, to_mem);
		buf += s->p[i].len;
	}
}

/* Copy len bytes between buf and region bytes at va (checked). */
static void prism_region_io(const struct prism_region *r, u64 va, u8 *buf,
			    u32 len, bool to_mem)
{
	struct prism_small s;
	struct prism_piece p;
	spinlock_t *lock;	/* stripe of the current line */

	/* Nothing to touch: va may be the end of the region (no page there). */
	if (!len)
		return;
	if (len <= PRISM_MAX_CAS) {
		prism_small_lock(r, va, len, &s);
		prism_small_io(&s, buf, to_mem);
		prism_small_unlock(&s);
		return;
	}
	while (len) {
		prism_piece_at(r, va, len, &p);
		lock = prism_stripe(p.page, p.off);
		spin_lock(lock);
		prism_piece_io(&p, buf, to_mem);
		spin_unlock(lock);
		va += p.len;
		buf += p.len;
		len -= p.len;
	}
}

/* ---------------------------------------------------------------------------
 * CAS arithmetic on little-endian unsigned numbers of len bytes.
 */
struct prism_cas_args {
	const u8	*cmp;
	const u8	*swp;
	const u8	*cm;
	const u8	*sm;
	u32		len;
	u8		mode;
};

static bool prism_cas_cond(const struct prism_cas_args *a, const u8 *old)
{
	int c = 0;
	u32 i;

	/* Byte len - 1 is the most significant. */
	for (i = a->len; i-- > 0;) {
		u8 x = a->cmp[i] & a->cm[i], y = old[i] & a->cm[i];

		if (x != y) {
			c = x < y ? -1 : 1;
			break;
		}
	}
	switch (a->mode) {
	case PRISM_CAS_EQ:
		return c == 0;
	case PRISM_CAS_NE:
		return c != 0;
	case PRISM_CAS_GT:
		return c > 0;
	case PRISM_CAS_GE:
		return c >= 0;
	case PRISM_CAS_LT:
		return c < 0;
	case PRISM_CAS_LE:
		return c <= 0;
	}
	return false;
}

static void prism_cas_new(const struct prism_cas_args *a, const u8 *old,
			  u8 *new)
{
	u32 i;

	for (i = 0; i < a->len; i++)
		new[i] = (old[i] & ~a->sm[i]) | (a->swp[i] & a->sm[i]);
}

/* CAS on buf (scratch, or region bytes under their locks). */
static bool prism_cas_bytes(u8 *buf, const struct prism_cas_args *a, u8 *old)
{
	memcpy(old, buf, a->len);
	if (!prism_cas_cond(a, old))
		return false;
	prism_cas_new(a, old, buf);
	return true;
}

/* Aligned 8-byte CAS: cmpxchg, atomic against CPU atomics as well. */
static bool prism_cas_word(const struct prism_piece *p,
			   const struct prism_cas_args *a, u8 *old)
{
	u8 *k = kmap_local_page(p->page);
	u64 *w = (u64 *)(k + p->off);
	u64 cur = READ_ONCE(*w), prev, nv;
	u8 new[sizeof(u64)];
	bool ok;

	for (;;) {
		memcpy(old, &cur, sizeof(cur));
		ok = prism_cas_cond(a, old);
		if (!ok)
			break;
		prism_cas_new(a, old, new);
		memcpy(&nv, new, sizeof(nv));
		prev = cmpxchg64(w, cur, nv);
		if (prev == cur)
			break;
		cur = prev;
	}
	kunmap_local(k);
	return ok;
}

static bool prism_region_cas(const struct prism_region *r, u64 va,
			     const struct prism_cas_args *a, u8 *old)
{
	u8 buf[PRISM_MAX_CAS];
	struct prism_small s;
	bool ok;

	prism_small_lock(r, va, a->len, &s);
	if (s.n == 1 && a->len == sizeof(u64) &&
	    IS_ALIGNED(s.p[0].off, sizeof(u64))) {
		ok = prism_cas_word(&s.p[0], a, old);
	} else {
		prism_small_io(&s, buf, false);
		ok = prism_cas_bytes(buf, a, old);
		if (ok)
			prism_small_io(&s, buf, true);
	}
	prism_small_unlock(&s);
	return ok;
}

/* ---------------------------------------------------------------------------
 * Operands: region bytes or scratch bytes, checked before use.
 */
struct prism_ref {
	const struct prism_region	*r;	/* NULL: scratch */
	u8				*sp;	/* scratch bytes */
	u64				va;	/* region address */
};

static void prism_ref_read(const struct prism_ref *ref, u32 off, void *buf,
			   u32 len)
{
	if (ref->r)
		prism_region_io(ref->r, ref->va + off, buf, len, false);
	else
		memcpy(buf, ref->sp + off, len);
}

static void prism_ref_write(const struct prism_ref *ref, u32 off,
			    const void *buf, u32 len)
{
	if (ref->r)
		prism_region_io(ref->r, ref->va + off, (u8 *)buf, len, true);
	else
		memcpy(ref->sp + off, buf, len);
}

/*
 * Copy len bytes from src to dst.  Up to PRISM_MAX_CAS bytes, the read and
 * the write are each atomic; longer copies go by lines.  Overlapping region
 * ranges are not supported (no memmove semantics beyond 64 bytes).
 */
static void prism_ref_copy(const struct prism_ref *dst,
			   const struct prism_ref *src, u32 len)
{
	u8 bounce[PRISM_LINE];
	u32 off, n;

	if (!dst->r && !src->r) {
		memmove(dst->sp, src->sp, len);
		return;
	}
	for (off = 0; off < len; off += n) {
		n = min_t(u32, len - off, PRISM_LINE);
		prism_ref_read(src, off, bounce, n);
		prism_ref_write(dst, off, bounce, n);
	}
}

/* State of the op being executed. */
struct prism_op_state {
	struct prism_exec_ctx		*ctx;
	const struct prism_op		*op;
	u8				*scratch;
	const struct prism_region	*region;
	bool				looked_up;
};

/* The op's region, if it grants need. */
static int prism_resolve_region(struct prism_op_state *x, u32 need,
				const struct prism_region **rp)
{
	if (!x->looked_up) {
		x->region = prism_region_find(x->ctx->mem, x->op->rkey);
		x->looked_up = true;
	}
	if (!x->region)
		return PRISM_S_AUTH;
	if ((x->region->access & need) != need)
		return PRISM_S_ACCESS;
	/* A keyed region: only for the chain sealed for it, within its key. */
	if (x->region->keyed) {
		if (x->op->rkey != x->ctx->auth_rkey)
			return PRISM_S_AUTH;
		if ((x->ctx->auth_rights & need) != need)
			return PRISM_S_ACCESS;
	}
	*rp = x->region;
	return PRISM_S_OK;
}

/* Region bytes [va, va + len), entirely inside the op's region. */
static int prism_resolve_mem(struct prism_op_state *x, u64 va, u64 len,
			     u32 need, struct prism_ref *ref)
{
	const struct prism_region *r;
	int st;

	st = prism_resolve_region(x, need, &r);
	if (st)
		return st;
	if (va < r->start || va - r->start > r->len ||
	    len > r->len - (va - r->start))
		return PRISM_S_ACCESS;
	ref->r = r;
	ref->sp = NULL;
	ref->va = va;
	return PRISM_S_OK;
}

/* [addr, addr + len) in the scratch area or in the op's region. */
static int prism_resolve_ref(struct prism_op_state *x, bool scratch, u64 addr,
			     u64 len, u32 need, struct prism_ref *ref)
{
	if (!scratch)
		return prism_resolve_mem(x, addr, len, need, ref);
	/* Checked by prism_op_check() already; never trust a single check. */
	if (addr > PRISM_SCRATCH_SIZE || len > PRISM_SCRATCH_SIZE - addr)
		return PRISM_S_ACCESS;
	ref->r = NULL;
	ref->sp = x->scratch + addr;
	ref->va = 0;
	return PRISM_S_OK;
}

/* Load the pointer (and bound) at op.addr. */
static int prism_resolve_pointer(struct prism_op_state *x, u64 *ptr, u64 *bound)
{
	u8 buf[2 * sizeof(u64)];
	u32 n = bound ? 2 * sizeof(u64) : sizeof(u64);
	struct prism_ref ref;
	int st;

	st = prism_resolve_ref(x, x->op->flags & PRISM_F_ADDR_SCRATCH,
			       x->op->addr, n, PRISM_ACCESS_REMOTE_READ, &ref);
	if (st)
		return st;
	prism_ref_read(&ref, 0, buf, n);
	*ptr = get_unaligned_le64(buf);
	if (bound)
		*bound = get_unaligned_le64(buf + sizeof(u64));
	return PRISM_S_OK;
}

/* The target of a WRITE or CAS: at addr, or where addr points. */
static int prism_resolve_target(struct prism_op_state *x, u32 len, u32 need,
				struct prism_ref *ref)
{
	u64 ptr;
	int st;

	if (x->op->flags & PRISM_F_INDIRECT) {
		st = prism_resolve_pointer(x, &ptr, NULL);
		if (st)
			return st;
		return prism_resolve_mem(x, ptr, len, need, ref);
	}
	return prism_resolve_ref(x, x->op->flags & PRISM_F_ADDR_SCRATCH,
				 x->op->addr, len, need, ref);
}

/* Where a redirected output of at most len bytes goes. */
static int prism_resolve_redirect(struct prism_op_state *x, u32 len,
				  struct prism_ref *ref)
{
	return prism_resolve_ref(x, x->op->flags & PRISM_F_REDIRECT_SCRATCH,
				 x->op->redirect, len,
				 PRISM_ACCESS_REMOTE_WRITE, ref);
}

/* ---------------------------------------------------------------------------
 * Ops.  Each returns a PRISM_S_* status and sets *out_len to the bytes it
 * wrote at out (its output in the response).
 */
static int prism_exec_read(struct prism_op_state *x,
			   const struct prism_decoded_op *p,
			   u8 *out, u32 *out_len)
{
	const struct prism_op *op = &p->op;
	struct prism_ref src, dst;
	u64 n = op->len, ptr, bound;
	int st;

	if (op->flags & PRISM_F_INDIRECT) {
		bool bounded = op->flags & PRISM_F_BOUNDED;

		st = prism_resolve_pointer(x, &ptr, bounded ? &bound : NULL);
		if (st)
			return st;
		if (bounded && bound < n)
			n = bound;
		st = prism_resolve_mem(x, ptr, n, PRISM_ACCESS_REMOTE_READ,
				       &src);
	} else {
		st = prism_resolve_ref(x, op->flags & PRISM_F_ADDR_SCRATCH,
				       op->addr, n, PRISM_ACCESS_REMOTE_READ,
				       &src);
	}
	if (st)
		return st;

	if (op->flags & PRISM_F_REDIRECT) {
		st = prism_resolve_redirect(x, op->len, &dst);
		if (st)
			return st;
		if (n)
			prism_ref_copy(&dst, &src, n);
		return PRISM_S_OK;
	}
	/*
	 * A bound of 0 reads nothing: OK with no output, memory untouched
	 * (the pointer may be the end of the region, where no page is).
	 */
	if (n)
		prism_ref_read(&src, 0, out, n);
	*out_len = n;
	return PRISM_S_OK;
}

static int prism_exec_write(struct prism_op_state *x,
			    const struct prism_decoded_op *p)
{
	const struct prism_op *op = &p->op;
	struct prism_ref src, dst;
	int st;

	st = prism_resolve_target(x, op->len, PRISM_ACCESS_REMOTE_WRITE, &dst);
	if (st)
		return st;
	if (op->flags & PRISM_F_DATA_INDIRECT) {
		st = prism_resolve_ref(x, op->flags & PRISM_F_ARG_SCRATCH,
				       op->arg_addr, op->len,
				       PRISM_ACCESS_REMOTE_READ, &src);
		if (st)
			return st;
		prism_ref_copy(&dst, &src, op->len);
	} else {
		prism_ref_write(&dst, 0, p->data, op->len);
	}
	return PRISM_S_OK;
}

/* Load a CAS operand of len bytes from arg_addr or swap_addr. */
static int prism_resolve_operand(struct prism_op_state *x, u64 addr, u8 *buf)
{
	struct prism_ref ref;
	int st;

	st = prism_resolve_ref(x, x->op->flags & PRISM_F_ARG_SCRATCH, addr,
			       x->op->len, PRISM_ACCESS_REMOTE_READ, &ref);
	if (st)
		return st;
	prism_ref_read(&ref, 0, buf, x->op->len);
	return PRISM_S_OK;
}

static int prism_exec_cas(struct prism_op_state *x,
			  const struct prism_decoded_op *p,
			  u8 *out, u32 *out_len)
{
	u8 cmp[PRISM_MAX_CAS], swp[PRISM_MAX_CAS], old[PRISM_MAX_CAS];
	const struct prism_op *op = &p->op;
	struct prism_ref tgt, dst;
	struct prism_cas_args a;
	const u8 *d = p->data;
	bool ok;
	int st;

	a.len = op->len;
	a.mode = op->cas_mode;
	st = prism_resolve_target(x, op->len, PRISM_ACCESS_REMOTE_ATOMIC, &tgt);
	if (st)
		return st;
	if (op->flags & PRISM_F_CMP_INDIRECT) {
		st = prism_resolve_operand(x, op->arg_addr, cmp);
		if (st)
			return st;
		a.cmp = cmp;
	} else {
		a.cmp = d;
		d += op->len;
	}
	if (op->flags & PRISM_F_SWAP_INDIRECT) {
		st = prism_resolve_operand(x, op->swap_addr, swp);
		if (st)
			return st;
		a.swp = swp;
	} else {
		a.swp = d;
		d += op->len;
	}
	a.cm = d;
	a.sm = d + op->len;
	if (op->flags & PRISM_F_REDIRECT) {
		st = prism_resolve_redirect(x, op->len, &dst);
		if (st)
			return st;
	}

	if (tgt.r)
		ok = prism_region_cas(tgt.r, tgt.va, &a, old);
	else
		ok = prism_cas_bytes(tgt.sp, &a, old);

	if (op->flags & PRISM_F_REDIRECT) {
		prism_ref_write(&dst, 0, old, op->len);
	} else {
		memcpy(out, old, op->len);
		*out_len = op->len;
	}
	return ok ? PRISM_S_OK : PRISM_S_CMP_FAILED;
}

static int prism_exec_alloc(struct prism_op_state *x,
			    const struct prism_decoded_op *p,
			    u8 *out, u32 *out_len)
{
	const struct prism_op *op = &p->op;
	const struct prism_region *r;
	struct prism_ref buf, dst;
	u8 le[sizeof(u64)];
	u64 addr;
	int st;

	/* Everything that can fail is checked before a buffer is taken. */
	st = prism_resolve_region(x, PRISM_ACCESS_REMOTE_WRITE, &r);
	if (st)
		return st;
	if (op->flags & PRISM_F_REDIRECT) {
		st = prism_resolve_redirect(x, sizeof(le), &dst);
		if (st)
			return st;
	}
	st = prism_freelist_pop(x->ctx->mem, op->addr, op->rkey, op->len,
				&addr);
	if (st)
		return st;
	/* Posted buffers lie in the list's region, which cannot go away. */
	st = prism_resolve_mem(x, addr, op->len, PRISM_ACCESS_REMOTE_WRITE,
			       &buf);
	if (WARN_ON_ONCE(st))
		return st;
	if (op->len)
		prism_ref_write(&buf, 0, p->data, op->len);

	put_unaligned_le64(addr, le);
	if (op->flags & PRISM_F_REDIRECT) {
		prism_ref_write(&dst, 0, le, sizeof(le));
	} else {
		memcpy(out, le, sizeof(le));
		*out_len = sizeof(le);
	}
	return PRISM_S_OK;
}

static int prism_exec_send(struct prism_op_state *x,
			   const struct prism_decoded_op *p)
{
	struct prism_exec_ctx *ctx = x->ctx;
	int st;

	if (!ctx->deliver_send)
		return PRISM_S_INVALID;
	st = ctx->deliver_send(ctx->priv, p->data, p->op.len);
	if (st < 0 || st > PRISM_S_MAX)
		st = PRISM_S_INVALID;
	return st;
}

/*
 * REKEY: only in the chain sealed for the region, with a key derived with
 * PRISM_KEY_ADMIN (prism_resolve_region() sends every other chain away).
 */
static int prism_rekey_status(struct prism_op_state *x,
			      const struct prism_decoded_op *p, u32 *gen)
{
	const struct prism_region *r;
	int st;

	st = prism_resolve_region(x, 0, &r);
	if (st)
		return st;
	if (!r->keyed)
		return PRISM_S_INVALID;
	if (!(x->ctx->auth_rights & PRISM_KEY_ADMIN))
		return PRISM_S_ACCESS;
	/* The new key's memory is the only thing that can fail: retry. */
	if (prism_region_rekey_op(x->ctx->mem, x->ctx->memcg, p->op.rkey,
				  p->data, p->op.addr, gen))
		return PRISM_S_NACK;
	return PRISM_S_OK;
}

static int prism_exec_rekey(struct prism_op_state *x,
			    const struct prism_decoded_op *p,
			    u8 *out, u32 *out_len)
{
	u32 gen;
	int st = prism_rekey_status(x, p, &gen);

	if (st) {
		x->ctx->rekeys_refused++;
		return st;
	}
	x->ctx->rekeys++;
	put_unaligned_le64(gen, out);
	*out_len = sizeof(u64);
	return PRISM_S_OK;
}

static int prism_exec_op(struct prism_op_state *x,
			 const struct prism_decoded_op *p,
			 u8 *out, u32 *out_len)
{
	switch (p->op.opcode) {
	case PRISM_OP_READ:
		return prism_exec_read(x, p, out, out_len);
	case PRISM_OP_WRITE:
		return prism_exec_write(x, p);
	case PRISM_OP_CAS:
		return prism_exec_cas(x, p, out, out_len);
	case PRISM_OP_ALLOC:
		return prism_exec_alloc(x, p, out, out_len);
	case PRISM_OP_SEND:
		return prism_exec_send(x, p);
	case PRISM_OP_REKEY:
		return prism_exec_rekey(x, p, out, out_len);
	}
	return PRISM_S_INVALID;
}

/**
 * prism_engine_execute() - execute a request chain
 * @ctx: memory the ops work on and SEND delivery; ctx->ops_failed is set to
 *       the number of ops whose status is not PRISM_S_OK
 * @req: request body (wire format, nops x &struct prism_wop and inline data)
 * @req_len: bytes at @req
 * @nops: ops in the chain
 * @resp: buffer for the response body (results, then outputs)
 * @resp_cap: bytes at @resp
 *
 * The whole body is checked (prism_wire_check()) before any op runs.  Ops
 * run in order; a PRISM_F_CONDITIONAL op is skipped (PRISM_S_SKIPPED) when
 * the op before it did not succeed.
 *
 * Context: BH disabled, under rcu_read_lock() (the engine looks up regions
 * and free lists under RCU).
 * Return: the length of the response body written to @resp, or a negative
 * PRISM_S_* status (not an errno) when the chain as a whole is rejected and
 * nothing was executed: -PRISM_S_INVALID if it is malformed or exceeds
 * PRISM_MAX_CHAIN_WORK, -PRISM_S_TOO_BIG if its outputs cannot fit in
 * @resp_cap.
 */
int prism_engine_execute(struct prism_exec_ctx *ctx, const u8 *req,
			 u32 req_len, u8 nops, u8 *resp, u32 resp_cap)
{
	struct prism_wres *res = (struct prism_wres *)resp;
	u8 scratch[PRISM_SCRATCH_SIZE];
	u32 need, pos = 0, out;
	struct prism_decoded_op pop;
	struct prism_op_state x;
	int st = PRISM_S_OK;
	unsigned int i;

	ctx->ops_failed = 0;
	ctx->rekeys = 0;
	ctx->rekeys_refused = 0;
	if (prism_wire_check(req, req_len, nops, &need))
		return -PRISM_S_INVALID;
	if (need > resp_cap)
		return -PRISM_S_TOO_BIG;

	memset(scratch, 0, sizeof(scratch));
	out = nops * sizeof(*res);
	for (i = 0; i < nops; i++) {
		u32 olen = 0;

		/* Checked above: the request cannot change in between. */
		if (WARN_ON_ONCE(prism_wire_parse_op(req, req_len, &pos, i,
						     &pop)))
			return -PRISM_S_INVALID;

		if ((pop.op.flags & PRISM_F_CONDITIONAL) && st != PRISM_S_OK) {
			st = PRISM_S_SKIPPED;
		} else {
			x.ctx = ctx;
			x.op = &pop.op;
			x.scratch = scratch;
			x.region = NULL;
			x.looked_up = false;
			st = prism_exec_op(&x, &pop, resp + out, &olen);
		}
		/* Only OK and CMP_FAILED (the old value) have output. */
		if (st != PRISM_S_OK && st != PRISM_S_CMP_FAILED)
			olen = 0;
		if (st != PRISM_S_OK)
			ctx->ops_failed++;

		res[i].status = st;
		res[i].reserved = 0;
		res[i].reserved2 = 0;
		res[i].len = cpu_to_be32(olen);
		memset(resp + out + olen, 0, PRISM_PAD8(olen) - olen);
		out += PRISM_PAD8(olen);
	}
	return out;
}
EXPORT_SYMBOL_IF_KUNIT(prism_engine_execute);
