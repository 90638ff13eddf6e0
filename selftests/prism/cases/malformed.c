// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: malformed chains built by hand are refused at sendmsg()
 * (EINVAL, EMSGSIZE) and never sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "cases.h"

/* A chain image built by hand; ops[] filled by the caller. */
struct raw_chain {
	struct prism_chain	h;
	unsigned char		body[2048];
};

static size_t raw_read_op(unsigned char *p, __u64 rkey, __u64 addr, __u32 len)
{
	struct prism_op op = { .opcode = PRISM_OP_READ, .len = len, .rkey = rkey,
			       .addr = addr };

	memcpy(p, &op, sizeof(op));
	return sizeof(op);
}

/* A field of the chain image: where, how wide, its new value. */
struct raw_field {
	size_t	off, size;	/* size 0: no change */
	__u64	val;
};

#define HDR(f, v)	{ offsetof(struct raw_chain, h.f),			\
			  sizeof(((struct prism_chain *)0)->f), (v) }
#define OP(f, v)	{ offsetof(struct raw_chain, body) +		\
			  offsetof(struct prism_op, f),			\
			  sizeof(((struct prism_op *)0)->f), (v) }
/* The header and one op. */
#define BASE		(sizeof(struct prism_chain) + sizeof(struct prism_op))

/*
 * The valid one-READ chain with up to two fields changed, len bytes of it
 * given to sendmsg(): refused with err.
 */
static const struct bad_chain {
	size_t			len;
	struct raw_field	set[2];
	int			err;
	const char		*what;
} bad_chains[] = {
	{ sizeof(struct prism_chain) - 1, { { 0 } }, EINVAL,
	  "shorter than struct prism_chain" },
	{ sizeof(struct prism_chain), { { 0 } }, EINVAL, "header only" },
	{ BASE, { HDR(nops, 0) }, EINVAL, "nops 0" },
	{ BASE, { HDR(nops, 2) }, EINVAL, "nops larger than the ops present" },
	{ BASE, { HDR(flags, 1) }, EINVAL, "chain flags != 0" },
	{ BASE, { HDR(reserved, 1) }, EINVAL, "chain reserved != 0" },
	/* PRISM_TIMEOUT_MS allows 1..60000 */
	{ BASE, { HDR(timeout_ms, 60001) }, EINVAL,
	  "chain timeout beyond the maximum" },
	{ BASE + 8, { { 0 } }, EINVAL, "bytes after the last op" },
	{ BASE, { OP(opcode, 0) }, EINVAL, "opcode 0" },
	{ BASE, { OP(opcode, PRISM_OP_MAX + 1) }, EINVAL, "opcode past the last" },
	{ BASE, { OP(flags, 1u << 10) }, EINVAL, "unknown op flag" },
	{ BASE, { OP(flags, PRISM_F_BOUNDED) }, EINVAL,
	  "BOUNDED without INDIRECT" },
	{ BASE, { OP(flags, PRISM_F_DATA_INDIRECT) }, EINVAL,
	  "DATA_INDIRECT on READ" },
	{ BASE, { OP(flags, PRISM_F_CONDITIONAL) }, EINVAL,
	  "CONDITIONAL on the first op" },
	{ BASE, { OP(flags, PRISM_F_ARG_SCRATCH) }, EINVAL,
	  "ARG_SCRATCH without an indirect argument" },
	{ BASE, { OP(flags, PRISM_F_ADDR_SCRATCH),
		  OP(addr, PRISM_SCRATCH_SIZE - 4) }, EINVAL,
	  "scratch address out of range" },
	{ BASE, { OP(reserved, 1) }, EINVAL, "op reserved != 0" },
	{ BASE, { OP(cas_mode, 1) }, EINVAL, "cas_mode on READ" },
	{ BASE, { OP(arg_addr, 8) }, EINVAL, "arg_addr set on a plain READ" },
	{ BASE, { OP(len, 0) }, EINVAL, "READ of 0 bytes" },
	{ BASE + 8, { OP(data_len, 8) }, EINVAL, "READ with inline data" },
	/* Size limit of one op (an answer larger than a frame is not one). */
	{ BASE, { OP(len, PRISM_MAX_OP_DATA + 1) }, EINVAL,
	  "READ past PRISM_MAX_OP_DATA" },
};

/* Store f->val in the f->size bytes at f->off of img (host order). */
static void raw_set(void *img, const struct raw_field *f)
{
	union { __u8 u8; __u16 u16; __u32 u32; __u64 u64; } v;

	switch (f->size) {
	case 1: v.u8 = (__u8)f->val; break;
	case 2: v.u16 = (__u16)f->val; break;
	case 4: v.u32 = (__u32)f->val; break;
	default: v.u64 = f->val; break;
	}
	memcpy((unsigned char *)img + f->off, &v, f->size);
}

int case_errno_chain(struct client *c)
{
	struct raw_chain rc;
	struct prism_op *op = (struct prism_op *)(void *)rc.body;
	struct prism_stats st0, st1;
	size_t base = BASE;
	unsigned int i;
	int fd = c->fd;

#define RESET() do {							\
	memset(&rc, 0, sizeof(rc));					\
	rc.h.user_data = 1;						\
	rc.h.nops = 1;							\
	raw_read_op(rc.body, c->s.rw_rkey, rw(c, 0), 8);		\
} while (0)
#define SEND_EXPECT(len, err, what)					\
	EXPECT_ERR(raw_send(fd, &c->dst.eth, sizeof(c->dst.eth), &rc, (len), 0), err, what)

	prism_get_stats(fd, &st0);
	RESET();
	SEND_EXPECT(base, 0, "valid raw chain");
	{
		ssize_t n = prism_wait(fd, c->out, sizeof(c->out));

		EXPECT(n > 0 && cl_msg(c)->status == PRISM_S_OK, "valid raw chain completes");
	}
	for (i = 0; i < sizeof(bad_chains) / sizeof(bad_chains[0]); i++) {
		const struct bad_chain *bc = &bad_chains[i];
		unsigned int k;

		RESET();
		for (k = 0; k < 2 && bc->set[k].size; k++)
			raw_set(&rc, &bc->set[k]);
		SEND_EXPECT(bc->len, bc->err, bc->what);
	}
	RESET();
	for (i = 0; i < 17; i++)
		raw_read_op(rc.body + i * sizeof(*op), c->s.rw_rkey, rw(c, 0), 8);
	rc.h.nops = 17;
	SEND_EXPECT(sizeof(rc.h) + 17 * sizeof(*op), EINVAL, "17 ops");
	/* WRITE: data_len must equal len, padding must be zero. */
	RESET();
	op->opcode = PRISM_OP_WRITE;
	op->addr = rw(c, T_AREA + 0x1d00);
	op->len = 4;
	op->data_len = 4;
	memcpy(rc.body + sizeof(*op), "abcd", 4);
	SEND_EXPECT(base + 8, 0, "valid raw WRITE");
	prism_wait(fd, c->out, sizeof(c->out));
	op->data_len = 5;
	SEND_EXPECT(base + 8, EINVAL, "WRITE with data_len != len");
	op->data_len = 4;
	rc.body[sizeof(*op) + 6] = 1;
	SEND_EXPECT(base + 8, EINVAL, "nonzero padding");
	rc.body[sizeof(*op) + 6] = 0;
	SEND_EXPECT(base + 4, EINVAL, "inline data cut short");
	/* CAS limits. */
	RESET();
	op->opcode = PRISM_OP_CAS;
	op->len = 33;
	op->data_len = 4 * 33;
	SEND_EXPECT(base + PRISM_ALIGN8(4 * 33), EINVAL, "CAS of 33 bytes");
	op->len = 8;
	op->data_len = 32;
	op->cas_mode = PRISM_CAS_MODE_MAX + 1;
	SEND_EXPECT(base + 32, EINVAL, "CAS mode past the last");
	op->cas_mode = PRISM_CAS_LE;
	SEND_EXPECT(base + 32, 0, "valid raw CAS_LE (zero masks)");
	prism_wait(fd, c->out, sizeof(c->out));

	/*
	 * Size limits of a request: a WRITE past PRISM_MAX_OP_DATA, and a
	 * chain past PRISM_MAX_CHAIN_DATA of inline data (2 WRITEs of 1 MiB
	 * and one of 8 bytes), are refused; a chain larger than one frame is
	 * not.
	 */
	{
		static _Alignas(8) unsigned char big[3 * PRISM_MAX_OP_DATA + 4096];
		static unsigned char data[PRISM_MAX_OP_DATA + 8];
		struct prism_chain_buf ch;
		unsigned int k;

		prism_chain_init(&ch, big, sizeof(big), 5);
		prism_prep_write(&ch, c->s.rw_rkey, rw(c, 0), data,
				 PRISM_MAX_OP_DATA + 1);
		EXPECT_ERR(prism_submit(fd, &c->dst.eth, &ch), EINVAL,
			   "WRITE past PRISM_MAX_OP_DATA");
		prism_chain_init(&ch, big, sizeof(big), 5);
		for (k = 0; k < 2; k++)
			prism_prep_write(&ch, c->s.rw_rkey, rw(c, 0), data,
					 PRISM_MAX_OP_DATA);
		prism_prep_write(&ch, c->s.rw_rkey, rw(c, 0), data, 8);
		EXPECT_ERR(prism_submit(fd, &c->dst.eth, &ch), EINVAL,
			   "inline data past PRISM_MAX_CHAIN_DATA");
	}
	prism_get_stats(fd, &st1);
	EXPECT_EQ(st1.chains_sent - st0.chains_sent, 3, "only the 3 valid chains were sent");
	EXPECT_ERR((int)prism_wait_from(fd, c->out, sizeof(c->out), NULL, MSG_DONTWAIT),
		   EAGAIN, "no completion for refused chains");
#undef RESET
#undef SEND_EXPECT
	return st_failed;
}
