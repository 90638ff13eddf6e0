// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM wire format: validation of ops, encoding of userspace chains into
 * request bodies and decoding of received request bodies.
 *
 * The same checks run on both sides: prism_chain_encode() refuses what a
 * well-behaved client must not send, and the engine refuses the same things
 * in frames crafted by hand.  Every field is checked, including padding and
 * the address fields an op does not use (they must be 0).
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/overflow.h>
#include <kunit/visibility.h>
#include "prism.h"

/* Flags each opcode accepts (uapi/linux/prism.h). */
static const u16 prism_op_flags[PRISM_OP_MAX + 1] = {
	[PRISM_OP_READ] = PRISM_READ_FLAGS,
	[PRISM_OP_WRITE] = PRISM_WRITE_FLAGS,
	[PRISM_OP_CAS] = PRISM_CAS_FLAGS,
	[PRISM_OP_ALLOC] = PRISM_ALLOC_FLAGS,
	[PRISM_OP_SEND] = PRISM_SEND_FLAGS,
	[PRISM_OP_REKEY] = PRISM_REKEY_FLAGS,
};

/* [off, off + len) lies inside the scratch area. */
static bool prism_scratch_ok(u64 off, u64 len)
{
	return off <= PRISM_SCRATCH_SIZE && len <= PRISM_SCRATCH_SIZE - off;
}

/* Output an op produces, before redirection. */
static u32 prism_op_output(const struct prism_op *op)
{
	switch (op->opcode) {
	case PRISM_OP_READ:
	case PRISM_OP_CAS:
		return op->len;
	case PRISM_OP_ALLOC:
	case PRISM_OP_REKEY:
		return sizeof(u64);
	default:
		return 0;
	}
}

/* Output bytes the op returns in the response (0 when redirected). */
static u32 prism_op_out_len(const struct prism_op *op)
{
	if (op->flags & PRISM_F_REDIRECT)
		return 0;
	return prism_op_output(op);
}

/**
 * prism_op_check() - check one op of a chain
 * @op: the op, in host order
 * @idx: its position in the chain (0: the first, which cannot be
 *       conditional)
 *
 * Checks the opcode, the flags it accepts and their combinations, the
 * lengths, the inline data length, that unused address fields are 0 and
 * that scratch offsets lie inside the scratch area.
 *
 * Context: Any context.
 * Return: 0 if the op is well formed, -EINVAL otherwise.
 */
int prism_op_check(const struct prism_op *op, unsigned int idx)
{
	u16 f = op->flags;
	u32 min_len = 1, max_len = PRISM_MAX_OP_LEN;

	if (op->opcode < PRISM_OP_READ || op->opcode > PRISM_OP_MAX)
		return -EINVAL;
	if (op->reserved)
		return -EINVAL;
	if (f & ~prism_op_flags[op->opcode])
		return -EINVAL;
	if (op->opcode == PRISM_OP_CAS) {
		if (op->cas_mode > PRISM_CAS_MODE_MAX)
			return -EINVAL;
		max_len = PRISM_MAX_CAS;
	} else if (op->cas_mode) {
		return -EINVAL;
	}
	if (op->opcode == PRISM_OP_ALLOC || op->opcode == PRISM_OP_SEND)
		min_len = 0;
	/* REKEY: a region key, and addr is the overlap in ms. */
	if (op->opcode == PRISM_OP_REKEY) {
		min_len = PRISM_KEY_SIZE;
		max_len = PRISM_KEY_SIZE;
		if (op->addr > PRISM_MAX_OVERLAP_MS)
			return -EINVAL;
	}
	if (op->len < min_len || op->len > max_len)
		return -EINVAL;
	if (op->data_len != prism_op_data_len(op))
		return -EINVAL;

	/* Flags that only make sense together with another one. */
	if ((f & PRISM_F_BOUNDED) && !(f & PRISM_F_INDIRECT))
		return -EINVAL;
	if ((f & PRISM_F_REDIRECT_SCRATCH) && !(f & PRISM_F_REDIRECT))
		return -EINVAL;
	if ((f & PRISM_F_ARG_SCRATCH) &&
	    !(f & (PRISM_F_DATA_INDIRECT | PRISM_F_CMP_INDIRECT |
		   PRISM_F_SWAP_INDIRECT)))
		return -EINVAL;
	/* The first op has no previous op to depend on. */
	if ((f & PRISM_F_CONDITIONAL) && idx == 0)
		return -EINVAL;

	/* Address fields the op does not use must be 0. */
	if (!(f & PRISM_F_REDIRECT) && op->redirect)
		return -EINVAL;
	if (!(f & (PRISM_F_DATA_INDIRECT | PRISM_F_CMP_INDIRECT)) &&
	    op->arg_addr)
		return -EINVAL;
	if (!(f & PRISM_F_SWAP_INDIRECT) && op->swap_addr)
		return -EINVAL;
	if (op->opcode == PRISM_OP_ALLOC && op->addr > U32_MAX)
		return -EINVAL;
	if (op->opcode == PRISM_OP_SEND && op->addr)
		return -EINVAL;

	/* Scratch offsets are known up front: check them here. */
	if (f & PRISM_F_ADDR_SCRATCH) {
		u64 n = op->len;

		if (f & PRISM_F_INDIRECT)
			n = (f & PRISM_F_BOUNDED) ? 2 * sizeof(u64) :
						    sizeof(u64);
		if (!prism_scratch_ok(op->addr, n))
			return -EINVAL;
	}
	if (f & PRISM_F_ARG_SCRATCH) {
		if ((f & (PRISM_F_DATA_INDIRECT | PRISM_F_CMP_INDIRECT)) &&
		    !prism_scratch_ok(op->arg_addr, op->len))
			return -EINVAL;
		if ((f & PRISM_F_SWAP_INDIRECT) &&
		    !prism_scratch_ok(op->swap_addr, op->len))
			return -EINVAL;
	}
	if ((f & PRISM_F_REDIRECT_SCRATCH) &&
	    !prism_scratch_ok(op->redirect, prism_op_output(op)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_op_check);

/* The zero padding after len bytes of inline data. */
static bool prism_pad_zero(const u8 *data, u32 len)
{
	u32 i;

	for (i = len; i < PRISM_PAD8(len); i++)
		if (data[i])
			return false;
	return true;
}

/**
 * prism_wop_decode() - read an op from wire format
 * @w: the op, big-endian
 * @op: receives it in host order
 *
 * Nothing is checked: see prism_op_check().
 *
 * Context: Any context.
 */
void prism_wop_decode(const struct prism_wop *w, struct prism_op *op)
{
	op->opcode = w->opcode;
	op->cas_mode = w->cas_mode;
	op->flags = be16_to_cpu(w->flags);
	op->len = be32_to_cpu(w->len);
	op->rkey = be64_to_cpu(w->rkey);
	op->addr = be64_to_cpu(w->addr);
	op->redirect = be64_to_cpu(w->redirect);
	op->arg_addr = be64_to_cpu(w->arg_addr);
	op->swap_addr = be64_to_cpu(w->swap_addr);
	op->data_len = be32_to_cpu(w->data_len);
	op->reserved = be32_to_cpu(w->reserved);
}

/**
 * prism_wop_encode() - write an op in wire format
 * @op: the op, in host order
 * @w: receives it, big-endian
 *
 * Nothing is checked: the KUnit fixture also writes malformed ops with it.
 *
 * Context: Any context.
 */
void prism_wop_encode(const struct prism_op *op, struct prism_wop *w)
{
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
}
EXPORT_SYMBOL_IF_KUNIT(prism_wop_encode);

/*
 * Take the op at buf + *pos (host order if !wire) and its inline data;
 * check both and advance *pos.
 */
static int prism_take_op(const u8 *buf, u32 buf_len, u32 *pos, bool wire,
			 unsigned int idx, struct prism_decoded_op *pop)
{
	u32 left, padded;

	BUILD_BUG_ON(sizeof(struct prism_wop) != sizeof(struct prism_op));
	if (*pos > buf_len || buf_len - *pos < sizeof(struct prism_op))
		return -EINVAL;
	if (wire)
		prism_wop_decode((const struct prism_wop *)(buf + *pos),
				 &pop->op);
	else
		memcpy(&pop->op, buf + *pos, sizeof(pop->op));
	*pos += sizeof(struct prism_op);
	if (prism_op_check(&pop->op, idx))
		return -EINVAL;

	/* data_len <= 4 * PRISM_MAX_OP_LEN here: no overflow. */
	padded = PRISM_PAD8(pop->op.data_len);
	left = buf_len - *pos;
	if (padded > left)
		return -EINVAL;
	pop->data = buf + *pos;
	if (!prism_pad_zero(pop->data, pop->op.data_len))
		return -EINVAL;
	*pos += padded;
	pop->out_len = prism_op_out_len(&pop->op);
	return 0;
}

/**
 * prism_wire_parse_op() - decode and check one op of a request body
 * @body: request body (wire format)
 * @body_len: bytes at @body
 * @pos: offset of the op in @body; on success advanced past the op and its
 *       padded inline data (on error it may have moved)
 * @idx: position of the op in the chain
 * @pop: receives the op in host order, its inline data (in @body) and the
 *       output bytes it returns
 *
 * Context: Any context.
 * Return: 0 on success; -EINVAL if the op or its inline data is truncated,
 * invalid (prism_op_check()) or not padded with zeros.
 */
int prism_wire_parse_op(const u8 *body, u32 body_len, u32 *pos,
			unsigned int idx, struct prism_decoded_op *pop)
{
	return prism_take_op(body, body_len, pos, true, idx, pop);
}
EXPORT_SYMBOL_IF_KUNIT(prism_wire_parse_op);

/* What a chain's ops add up to. */
struct prism_totals {
	u32	data;		/* inline data, padded */
	u32	out;		/* outputs, padded */
	u32	work;		/* op lengths */
};

/* Add a checked op; ops are bounded: 16 x 4 MiB cannot overflow. */
static void prism_totals_add(struct prism_totals *t, const struct prism_op *op)
{
	t->data += PRISM_PAD8(op->data_len);
	t->out += PRISM_PAD8(prism_op_out_len(op));
	t->work += op->len;
}

/* -EINVAL past PRISM_MAX_CHAIN_DATA, -E2BIG past PRISM_MAX_CHAIN_WORK. */
static int prism_totals_check(const struct prism_totals *t, u8 nops,
			      u32 *resp_len, u32 *work)
{
	if (t->data > PRISM_MAX_CHAIN_DATA || t->out > PRISM_MAX_CHAIN_DATA)
		return -EINVAL;
	if (t->work > PRISM_MAX_CHAIN_WORK)
		return -E2BIG;
	*resp_len = nops * sizeof(struct prism_wres) + t->out;
	if (work)
		*work = t->work;
	return 0;
}

/*
 * Check nops ops in buf, nothing after them; compute the response size and
 * the chain's work (the sum of its op lengths).  -E2BIG: well formed, but
 * more work than PRISM_MAX_CHAIN_WORK.
 */
static int prism_check_chain(const u8 *buf, u32 buf_len, u8 nops, bool wire,
			     u32 *resp_len, u32 *work)
{
	struct prism_totals t = {};
	struct prism_decoded_op pop;
	unsigned int i;
	u32 pos = 0;

	if (!nops || nops > PRISM_MAX_CHAIN)
		return -EINVAL;
	for (i = 0; i < nops; i++) {
		if (prism_take_op(buf, buf_len, &pos, wire, i, &pop))
			return -EINVAL;
		prism_totals_add(&t, &pop.op);
	}
	if (pos != buf_len)
		return -EINVAL;
	return prism_totals_check(&t, nops, resp_len, work);
}

/**
 * prism_wire_check_manifest() - check the ops of a multi-frame request
 * @ops: the chain's nops x &struct prism_wop, without inline data (the body
 *       of an SREQ frame after its &struct prism_wseg)
 * @ops_len: bytes at @ops
 * @nops: ops in the chain
 * @body_len: receives the length of the request body they make
 * @resp_len: receives the largest response body the chain can produce
 * @work: receives the chain's work
 *
 * The checks of prism_wire_check_work() that need no inline data.
 *
 * Context: Any context.
 * Return: 0, -EINVAL or -E2BIG, as prism_wire_check_work().
 */
int prism_wire_check_manifest(const u8 *ops, u32 ops_len, u8 nops,
			      u32 *body_len, u32 *resp_len, u32 *work)
{
	const struct prism_wop *w = (const struct prism_wop *)ops;
	struct prism_totals t = {};
	struct prism_op op;
	unsigned int i;
	int err;

	if (!nops || nops > PRISM_MAX_CHAIN ||
	    ops_len != nops * sizeof(*w))
		return -EINVAL;
	for (i = 0; i < nops; i++) {
		prism_wop_decode(&w[i], &op);
		if (prism_op_check(&op, i))
			return -EINVAL;
		prism_totals_add(&t, &op);
	}
	err = prism_totals_check(&t, nops, resp_len, work);
	if (!err)
		*body_len = ops_len + t.data;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(prism_wire_check_manifest);

/**
 * prism_wire_check_work() - check a request body and measure its work
 * @body: request body (wire format)
 * @body_len: bytes at @body
 * @nops: ops in the chain
 * @resp_len: receives the largest response body the chain can produce
 * @work: receives the chain's work, the sum of its op lengths (the most
 *        bytes it may read, write or deliver); may be NULL
 *
 * Context: Any context.
 * Return: as prism_wire_check(): 0, -EINVAL or -E2BIG (well formed, but
 * more work than PRISM_MAX_CHAIN_WORK).
 */
int prism_wire_check_work(const u8 *body, u32 body_len, u8 nops,
			  u32 *resp_len, u32 *work)
{
	return prism_check_chain(body, body_len, nops, true, resp_len, work);
}
EXPORT_SYMBOL_IF_KUNIT(prism_wire_check_work);

/**
 * prism_wire_check() - check a whole request body
 * @body: request body (wire format)
 * @body_len: bytes at @body
 * @nops: ops in the chain
 * @resp_len: receives the largest response body the chain can produce
 *
 * Used for received frames by the engine; prism_chain_encode() applies the
 * same checks to userspace chains.
 *
 * Context: Any context.
 * Return: 0 on success; -EINVAL if @nops is 0 or above PRISM_MAX_CHAIN, an
 * op is invalid or bytes are left over; -E2BIG if the chain is well formed
 * but its work exceeds PRISM_MAX_CHAIN_WORK.
 */
int prism_wire_check(const u8 *body, u32 body_len, u8 nops, u32 *resp_len)
{
	return prism_check_chain(body, body_len, nops, true, resp_len, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(prism_wire_check);

/**
 * prism_chain_encode() - check a userspace chain and encode it for the wire
 * @ops: the chain's ops in host order (&struct prism_op, then inline data
 *       padded to 8 bytes)
 * @ops_len: bytes at @ops
 * @nops: ops in the chain
 * @out: buffer for the request body; may be @ops itself (the chain is
 *       then encoded in place: a wire op takes the room of its host op)
 * @out_cap: bytes at @out
 * @resp_len: receives the length of the response body the chain needs
 *
 * Everything is checked before anything is written to @out.
 *
 * Context: Any context.
 * Return: the body length (equal to @ops_len) on success; -EINVAL if the
 * chain is malformed or exceeds PRISM_MAX_CHAIN_WORK; -EMSGSIZE if the body
 * does not fit in @out_cap.
 */
int prism_chain_encode(const u8 *ops, u32 ops_len, u8 nops, u8 *out,
		       u32 out_cap, u32 *resp_len)
{
	struct prism_decoded_op pop;
	u32 pos = 0, resp;
	unsigned int i;

	/* Check everything before writing anything. */
	if (prism_check_chain(ops, ops_len, nops, false, &resp, NULL))
		return -EINVAL;
	/* The wire op has the size of struct prism_op: same body length. */
	if (ops_len > out_cap)
		return -EMSGSIZE;
	if (ops_len > INT_MAX)
		return -EMSGSIZE;

	for (i = 0; i < nops; i++) {
		u32 at = pos;

		if (prism_take_op(ops, ops_len, &pos, false, i, &pop))
			return -EINVAL;
		prism_wop_encode(&pop.op, (struct prism_wop *)(out + at));
		at += sizeof(struct prism_wop);
		/* In place, the data is where it belongs already. */
		if (out + at != pop.data)
			memcpy(out + at, pop.data, pos - at);
	}
	*resp_len = resp;
	return ops_len;
}
EXPORT_SYMBOL_IF_KUNIT(prism_chain_encode);
