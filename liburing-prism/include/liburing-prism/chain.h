/* SPDX-License-Identifier: MIT */
/*
 * liburing-prism, layer 1: the chain builder (header only, static inline).
 * Included by <liburing-prism.h>, which documents the layers; do not
 * include this file directly.
 */
#ifndef LIBURING_PRISM_CHAIN_H
#define LIBURING_PRISM_CHAIN_H

#ifndef LIBURING_PRISM_INSIDE
#error "include <liburing-prism.h>, not <liburing-prism/chain.h>"
#endif

/* ------------------------------------------------------------------------
 * Chain builder
 */

struct prism_chain_buf {
	unsigned char	*buf;	/* 8-byte aligned, starts with struct prism_chain */
	size_t		cap;	/* bytes available at buf */
	size_t		len;	/* bytes used */
	int		err;	/* first error (negative errno) or 0 */
	struct prism_op	*last;	/* most recently added op */
	void		*outbuf;	/* prism_chain_set_outbuf(), or NULL */
	size_t		outbuf_len;
};

#define PRISM_ALIGN8(x)		(((x) + 7) & ~(size_t)7)

/* The struct prism_chain header at the start of the buffer. */
static inline struct prism_chain *prism_chain_hdr(const struct prism_chain_buf *c)
{
	return (struct prism_chain *)(void *)c->buf;
}

/* Record err unless an error is recorded already; returns the recorded one. */
static inline int prism_chain_fail(struct prism_chain_buf *c, int err)
{
	if (!c->err)
		c->err = err;
	return c->err;
}

/*
 * Start a chain in buf (cap bytes, 8-byte aligned).  Returns 0, -EINVAL
 * (NULL or misaligned buffer) or -ENOSPC (cap too small for the header).
 */
static inline int prism_chain_init(struct prism_chain_buf *c, void *buf,
				   size_t cap, __u64 user_data)
{
	struct prism_chain *h;

	c->buf = (unsigned char *)buf;
	c->cap = cap;
	c->len = 0;
	c->err = 0;
	c->last = NULL;
	c->outbuf = NULL;
	c->outbuf_len = 0;
	if (!buf || ((uintptr_t)buf & 7))
		return prism_chain_fail(c, -EINVAL);
	if (cap < sizeof(struct prism_chain))
		return prism_chain_fail(c, -ENOSPC);
	h = prism_chain_hdr(c);
	memset(h, 0, sizeof(*h));
	h->user_data = user_data;
	c->len = sizeof(*h);
	return 0;
}

/* Chain timeout in ms (0: the socket's PRISM_TIMEOUT_MS). */
static inline void prism_chain_set_timeout(struct prism_chain_buf *c,
					   __u32 timeout_ms)
{
	if (!c->err)
		prism_chain_hdr(c)->timeout_ms = timeout_ms;
}

/* Replace the chain's user_data (nothing on a failed chain). */
static inline void prism_chain_set_user_data(struct prism_chain_buf *c,
					     __u64 user_data)
{
	if (!c->err)
		prism_chain_hdr(c)->user_data = user_data;
}

/*
 * Have the chain's outputs copied into buf (len bytes) instead of its
 * completion (PRISM_CMSG_OUTBUF): the module pins buf while the chain is in
 * flight and copies each output there once, from the frames; the
 * completion carries the results only, and prism_msg_outbuf_data() finds
 * an op's output in buf.  buf must hold every output the chain may return
 * (prism_chain_outbuf_size()).  Returns 0, or -EINVAL (NULL buf, len 0).
 */
static inline int prism_chain_set_outbuf(struct prism_chain_buf *c, void *buf,
					 size_t len)
{
	if (c->err)
		return c->err;
	if (!buf || !len)
		return prism_chain_fail(c, -EINVAL);
	c->outbuf = buf;
	c->outbuf_len = len;
	return 0;
}

/* The chain's first error (negative errno), or 0. */
static inline int prism_chain_error(const struct prism_chain_buf *c)
{
	return c->err;
}

/* Ops in the chain (0 for a failed chain). */
static inline unsigned int prism_chain_nops(const struct prism_chain_buf *c)
{
	return c->err ? 0 : prism_chain_hdr(c)->nops;
}

/*
 * Bytes to pass to sendmsg(), or the chain's error; -EINVAL for a chain
 * without ops.
 */
static inline ssize_t prism_chain_len(const struct prism_chain_buf *c)
{
	if (c->err)
		return c->err;
	if (!prism_chain_hdr(c)->nops)
		return -EINVAL;
	return (ssize_t)c->len;
}

/* Inline data of op (follows the struct). */
static inline void *prism_op_data(struct prism_op *op)
{
	return (void *)(op + 1);
}

/* Flags each opcode accepts (the module refuses others with EINVAL). */
static inline __u16 prism_op_allowed_flags(__u8 opcode)
{
	switch (opcode) {
	case PRISM_OP_READ:
		return PRISM_READ_FLAGS;
	case PRISM_OP_WRITE:
		return PRISM_WRITE_FLAGS;
	case PRISM_OP_CAS:
		return PRISM_CAS_FLAGS;
	case PRISM_OP_ALLOC:
		return PRISM_ALLOC_FLAGS;
	case PRISM_OP_SEND:
		return PRISM_SEND_FLAGS;
	case PRISM_OP_REKEY:
		return PRISM_REKEY_FLAGS;
	default:
		return 0;
	}
}

/*
 * Append an op with data_len bytes of zeroed inline data (padding
 * included).  Low-level: the prism_prep_* helpers below fill the fields.
 * Checks the opcode and that flags suit it; CONDITIONAL is refused on the
 * first op (it has no previous op).
 */
static inline struct prism_op *prism_chain_add_op(struct prism_chain_buf *c,
						  __u8 opcode, __u16 flags,
						  __u32 len, __u64 rkey,
						  __u64 addr, __u32 data_len)
{
	struct prism_chain *h;
	struct prism_op *op;
	size_t need;

	if (c->err)
		return NULL;
	h = prism_chain_hdr(c);
	if (h->nops >= PRISM_MAX_CHAIN) {
		prism_chain_fail(c, -ENOSPC);
		return NULL;
	}
	if (opcode < PRISM_OP_READ || opcode > PRISM_OP_MAX ||
	    (flags & ~prism_op_allowed_flags(opcode)) ||
	    ((flags & PRISM_F_BOUNDED) && !(flags & PRISM_F_INDIRECT)) ||
	    ((flags & PRISM_F_CONDITIONAL) && !h->nops)) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	need = sizeof(*op) + PRISM_ALIGN8((size_t)data_len);
	if (need > c->cap - c->len) {
		prism_chain_fail(c, -ENOSPC);
		return NULL;
	}
	op = (struct prism_op *)(void *)(c->buf + c->len);
	memset(op, 0, need);
	op->opcode = opcode;
	op->flags = flags;
	op->len = len;
	op->rkey = rkey;
	op->addr = addr;
	op->data_len = data_len;
	c->len += need;
	h->nops++;
	c->last = op;
	return op;
}

/* READ with any flags a READ allows (see prism_op_allowed_flags()). */
static inline struct prism_op *prism_prep_read_flags(struct prism_chain_buf *c,
						     __u64 rkey, __u64 addr,
						     __u32 len, __u16 flags)
{
	if (!c->err && !len) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	return prism_chain_add_op(c, PRISM_OP_READ, flags, len, rkey, addr, 0);
}

/* READ len bytes at addr. */
static inline struct prism_op *prism_prep_read(struct prism_chain_buf *c,
					       __u64 rkey, __u64 addr, __u32 len)
{
	return prism_prep_read_flags(c, rkey, addr, len, 0);
}

/* READ len bytes at the pointer stored at ptr_addr. */
static inline struct prism_op *prism_prep_read_indirect(struct prism_chain_buf *c,
							__u64 rkey, __u64 ptr_addr,
							__u32 len)
{
	return prism_prep_read_flags(c, rkey, ptr_addr, len, PRISM_F_INDIRECT);
}

/*
 * ptr_addr holds { __u64 ptr; __u64 bound; }: READ min(len, bound) bytes
 * at ptr.
 */
static inline struct prism_op *prism_prep_read_bounded(struct prism_chain_buf *c,
						       __u64 rkey, __u64 ptr_addr,
						       __u32 len)
{
	return prism_prep_read_flags(c, rkey, ptr_addr, len,
				     PRISM_F_INDIRECT | PRISM_F_BOUNDED);
}

/* WRITE of len inline bytes with any flags a WRITE allows. */
static inline struct prism_op *prism_prep_write_flags(struct prism_chain_buf *c,
						      __u64 rkey, __u64 addr,
						      const void *data, __u32 len,
						      __u16 flags)
{
	struct prism_op *op;

	if (!c->err && (!len || !data)) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	op = prism_chain_add_op(c, PRISM_OP_WRITE, flags, len, rkey, addr, len);
	if (op && data)
		memcpy(prism_op_data(op), data, len);
	return op;
}

/* WRITE len inline bytes at addr. */
static inline struct prism_op *prism_prep_write(struct prism_chain_buf *c,
						__u64 rkey, __u64 addr,
						const void *data, __u32 len)
{
	return prism_prep_write_flags(c, rkey, addr, data, len, 0);
}

/* WRITE len inline bytes at the pointer stored at ptr_addr. */
static inline struct prism_op *prism_prep_write_indirect(struct prism_chain_buf *c,
							 __u64 rkey, __u64 ptr_addr,
							 const void *data, __u32 len)
{
	return prism_prep_write_flags(c, rkey, ptr_addr, data, len,
				      PRISM_F_INDIRECT);
}

/*
 * WRITE the len bytes found at arg_addr (region, or scratch after
 * prism_op_set_arg_scratch()) to addr.
 */
static inline struct prism_op *prism_prep_write_data_indirect(struct prism_chain_buf *c,
							      __u64 rkey, __u64 addr,
							      __u64 arg_addr, __u32 len)
{
	struct prism_op *op;

	if (!c->err && !len) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	op = prism_chain_add_op(c, PRISM_OP_WRITE, PRISM_F_DATA_INDIRECT, len,
				rkey, addr, 0);
	if (op)
		op->arg_addr = arg_addr;
	return op;
}

/*
 * General CAS of len (1..PRISM_MAX_CAS) bytes at addr.
 *  flags:	0 or PRISM_F_INDIRECT (addr holds a pointer to the target)
 *  compare:	inline compare value, or NULL to use the len bytes at
 *		cmp_addr (PRISM_F_CMP_INDIRECT)
 *  swap:	inline swap value, or NULL to use swap_addr
 *		(PRISM_F_SWAP_INDIRECT)
 *  cmask, smask: compare and swap masks, NULL = all ones
 */
static inline struct prism_op *prism_prep_cas_ex(struct prism_chain_buf *c,
						 __u64 rkey, __u64 addr, __u32 len,
						 unsigned int mode, __u16 flags,
						 const void *compare, __u64 cmp_addr,
						 const void *swap, __u64 swap_addr,
						 const void *cmask, const void *smask)
{
	struct prism_op *op;
	unsigned char *d;
	__u32 data_len;

	if (c->err)
		return NULL;
	if (!len || len > PRISM_MAX_CAS || mode > PRISM_CAS_MODE_MAX ||
	    (flags & ~PRISM_F_INDIRECT)) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	data_len = 2 * len;
	if (compare)
		data_len += len;
	else
		flags |= PRISM_F_CMP_INDIRECT;
	if (swap)
		data_len += len;
	else
		flags |= PRISM_F_SWAP_INDIRECT;
	op = prism_chain_add_op(c, PRISM_OP_CAS, flags, len, rkey, addr,
				data_len);
	if (!op)
		return NULL;
	op->cas_mode = (__u8)mode;
	d = (unsigned char *)prism_op_data(op);
	if (compare) {
		memcpy(d, compare, len);
		d += len;
	} else {
		op->arg_addr = cmp_addr;
	}
	if (swap) {
		memcpy(d, swap, len);
		d += len;
	} else {
		op->swap_addr = swap_addr;
	}
	if (cmask)
		memcpy(d, cmask, len);
	else
		memset(d, 0xff, len);
	d += len;
	if (smask)
		memcpy(d, smask, len);
	else
		memset(d, 0xff, len);
	return op;
}

/* CAS with inline compare and swap values; masks NULL = all ones. */
static inline struct prism_op *prism_prep_cas(struct prism_chain_buf *c,
					      __u64 rkey, __u64 addr, __u32 len,
					      unsigned int mode,
					      const void *compare, const void *swap,
					      const void *cmask, const void *smask)
{
	if (!c->err && (!compare || !swap)) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	return prism_prep_cas_ex(c, rkey, addr, len, mode, 0, compare, 0,
				 swap, 0, cmask, smask);
}

/* Same on the target named by the pointer stored at ptr_addr. */
static inline struct prism_op *prism_prep_cas_indirect(struct prism_chain_buf *c,
						       __u64 rkey, __u64 ptr_addr,
						       __u32 len, unsigned int mode,
						       const void *compare,
						       const void *swap,
						       const void *cmask,
						       const void *smask)
{
	if (!c->err && (!compare || !swap)) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	return prism_prep_cas_ex(c, rkey, ptr_addr, len, mode,
				 PRISM_F_INDIRECT, compare, 0, swap, 0,
				 cmask, smask);
}

/* Store/load v as 8 little-endian bytes at p (any alignment). */
static inline void prism_put_le64(void *p, __u64 v)
{
	unsigned char *b = (unsigned char *)p;
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static inline __u64 prism_get_le64(const void *p)
{
	const unsigned char *b = (const unsigned char *)p;
	__u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

/* 8-byte CAS of little-endian numbers, full masks. */
static inline struct prism_op *prism_prep_cas_u64(struct prism_chain_buf *c,
						  __u64 rkey, __u64 addr,
						  unsigned int mode,
						  __u64 compare, __u64 swap)
{
	unsigned char cv[8], sv[8];

	prism_put_le64(cv, compare);
	prism_put_le64(sv, swap);
	return prism_prep_cas(c, rkey, addr, 8, mode, cv, sv, NULL, NULL);
}

/*
 * Pop a buffer from free list fl_id (of region rkey), write len bytes of
 * data (may be NULL when len is 0) at its start; output: its address.
 */
static inline struct prism_op *prism_prep_alloc(struct prism_chain_buf *c,
						__u64 rkey, __u32 fl_id,
						const void *data, __u32 len)
{
	struct prism_op *op;

	if (!c->err && len && !data) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	op = prism_chain_add_op(c, PRISM_OP_ALLOC, 0, len, rkey, fl_id, len);
	if (op && len && data)
		memcpy(prism_op_data(op), data, len);
	return op;
}

/* Two-sided: deliver len bytes to the target socket. */
static inline struct prism_op *prism_prep_send(struct prism_chain_buf *c,
					       const void *data, __u32 len)
{
	struct prism_op *op;

	if (!c->err && len && !data) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	op = prism_chain_add_op(c, PRISM_OP_SEND, 0, len, 0, 0, len);
	if (op && len && data)
		memcpy(prism_op_data(op), data, len);
	return op;
}

/*
 * Keyed region rkey: install key as its region key, keys derived from the
 * current one staying valid overlap_ms more (prism_rekey(3)).  The chain
 * must be sealed with a key derived with PRISM_KEY_ADMIN for rkey and
 * attached for the target; the output is the new key's generation
 * (prism_msg_u64()).
 */
static inline struct prism_op *prism_prep_rekey(struct prism_chain_buf *c,
						__u64 rkey,
						const __u8 key[PRISM_KEY_SIZE],
						__u32 overlap_ms)
{
	struct prism_op *op;

	if (!c->err && (!key || overlap_ms > PRISM_MAX_OVERLAP_MS)) {
		prism_chain_fail(c, -EINVAL);
		return NULL;
	}
	op = prism_chain_add_op(c, PRISM_OP_REKEY, 0, PRISM_KEY_SIZE, rkey,
				overlap_ms, PRISM_KEY_SIZE);
	if (op)
		memcpy(prism_op_data(op), key, PRISM_KEY_SIZE);
	return op;
}

/* Output bytes an op produces (READ: up to len). */
static inline __u32 prism_op_output_len(const struct prism_op *op)
{
	switch (op->opcode) {
	case PRISM_OP_READ:
	case PRISM_OP_CAS:
		return op->len;
	case PRISM_OP_ALLOC:
	case PRISM_OP_REKEY:
		return 8;
	default:
		return 0;
	}
}

/*
 * Bytes of the outputs the chain can get: the output of each op that is
 * not redirected, padded to 8.  An output buffer (prism_chain_set_outbuf())
 * needs this many bytes.  Returns the chain's error, or -EINVAL for a chain
 * without ops.
 */
static inline ssize_t prism_chain_outbuf_size(const struct prism_chain_buf *c)
{
	const unsigned char *p;
	const struct prism_op *op;
	unsigned int i, nops;
	size_t n = 0;

	if (c->err)
		return c->err;
	nops = prism_chain_hdr(c)->nops;
	if (!nops)
		return -EINVAL;
	p = c->buf + sizeof(struct prism_chain);
	for (i = 0; i < nops; i++) {
		op = (const struct prism_op *)(const void *)p;
		if (!(op->flags & PRISM_F_REDIRECT))
			n += PRISM_ALIGN8((size_t)prism_op_output_len(op));
		p += sizeof(*op) + PRISM_ALIGN8((size_t)op->data_len);
	}
	return (ssize_t)n;
}

/*
 * Bytes of the largest completion the chain can get: struct prism_msg, one
 * struct prism_op_result per op, then its outputs (prism_chain_outbuf_size()),
 * unless they go to an output buffer.  A buffer that receives the
 * completion (prism_execute()'s out, prism_ring_init()'s buf_size) needs
 * this many bytes.  Returns the chain's error, or -EINVAL for a chain
 * without ops.
 */
static inline ssize_t prism_chain_completion_size(const struct prism_chain_buf *c)
{
	ssize_t out = prism_chain_outbuf_size(c);

	if (out < 0)
		return out;
	return (ssize_t)(sizeof(struct prism_msg) +
			 prism_chain_hdr(c)->nops * sizeof(struct prism_op_result) +
			 (c->outbuf ? 0 : (size_t)out));
}

/* Bytes at op->addr the op touches (pointer size when indirect). */
static inline __u32 prism_op_addr_span(const struct prism_op *op)
{
	if (op->flags & PRISM_F_BOUNDED)
		return 16;
	if (op->flags & PRISM_F_INDIRECT)
		return 8;
	return op->len;
}

/* 1 if [off, off + len) lies inside the chain's scratch area. */
static inline int prism_scratch_ok(__u64 off, __u64 len)
{
	return off <= PRISM_SCRATCH_SIZE && len <= PRISM_SCRATCH_SIZE - off;
}

/* The chain's error, or -EINVAL (recorded) for a NULL op, else 0. */
static inline int prism_op_check(struct prism_chain_buf *c,
				 const struct prism_op *op)
{
	if (c->err)
		return c->err;
	if (!op)
		return prism_chain_fail(c, -EINVAL);
	return 0;
}

/*
 * Run op only if the previous op's status is OK (a skipped op counts as
 * failed for the next one).  Not allowed on the first op.
 */
static inline int prism_op_set_conditional(struct prism_chain_buf *c,
					   struct prism_op *op)
{
	int err = prism_op_check(c, op);

	if (err)
		return err;
	if ((unsigned char *)op == c->buf + sizeof(struct prism_chain))
		return prism_chain_fail(c, -EINVAL);
	op->flags |= PRISM_F_CONDITIONAL;
	return 0;
}

/* Store the op's output at addr (region rkey of the op) instead of returning it. */
static inline int prism_op_set_redirect(struct prism_chain_buf *c,
					struct prism_op *op, __u64 addr)
{
	int err = prism_op_check(c, op);

	if (err)
		return err;
	if (!(prism_op_allowed_flags(op->opcode) & PRISM_F_REDIRECT) ||
	    !prism_op_output_len(op))
		return prism_chain_fail(c, -EINVAL);
	op->flags |= PRISM_F_REDIRECT;
	op->flags &= (__u16)~PRISM_F_REDIRECT_SCRATCH;
	op->redirect = addr;
	return 0;
}

/* Store the op's output at offset off of the chain's scratch area. */
static inline int prism_op_set_redirect_scratch(struct prism_chain_buf *c,
						struct prism_op *op, __u32 off)
{
	int err = prism_op_check(c, op);

	if (err)
		return err;
	if (!(prism_op_allowed_flags(op->opcode) & PRISM_F_REDIRECT) ||
	    !prism_op_output_len(op) ||
	    !prism_scratch_ok(off, prism_op_output_len(op)))
		return prism_chain_fail(c, -EINVAL);
	op->flags |= PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH;
	op->redirect = off;
	return 0;
}

/* op->addr is an offset into the scratch area (READ, WRITE, CAS). */
static inline int prism_op_set_addr_scratch(struct prism_chain_buf *c,
					    struct prism_op *op)
{
	int err = prism_op_check(c, op);

	if (err)
		return err;
	if (op->opcode != PRISM_OP_READ && op->opcode != PRISM_OP_WRITE &&
	    op->opcode != PRISM_OP_CAS)
		return prism_chain_fail(c, -EINVAL);
	if (!prism_scratch_ok(op->addr, prism_op_addr_span(op)))
		return prism_chain_fail(c, -EINVAL);
	op->flags |= PRISM_F_ADDR_SCRATCH;
	return 0;
}

/*
 * op->arg_addr and op->swap_addr are scratch offsets (WRITE with
 * DATA_INDIRECT, CAS with CMP_INDIRECT or SWAP_INDIRECT).
 */
static inline int prism_op_set_arg_scratch(struct prism_chain_buf *c,
					   struct prism_op *op)
{
	int err = prism_op_check(c, op);
	int used = 0;

	if (err)
		return err;
	if (op->flags & (PRISM_F_DATA_INDIRECT | PRISM_F_CMP_INDIRECT)) {
		if (!prism_scratch_ok(op->arg_addr, op->len))
			return prism_chain_fail(c, -EINVAL);
		used = 1;
	}
	if (op->flags & PRISM_F_SWAP_INDIRECT) {
		if (!prism_scratch_ok(op->swap_addr, op->len))
			return prism_chain_fail(c, -EINVAL);
		used = 1;
	}
	if (!used)
		return prism_chain_fail(c, -EINVAL);
	op->flags |= PRISM_F_ARG_SCRATCH;
	return 0;
}

#endif /* LIBURING_PRISM_CHAIN_H */
