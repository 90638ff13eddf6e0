// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: malformed chains built by hand are refused at sendmsg()
 * (EINVAL, EMSGSIZE) and never sent.
 */
#define _GNU_SOURCE
#include <errno.h>
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

int case_errno_chain(struct client *c)
{
	struct raw_chain rc;
	struct prism_op *op = (struct prism_op *)(void *)rc.body;
	struct prism_stats st0, st1;
	size_t base = sizeof(rc.h) + sizeof(*op);
	unsigned int i;
	int fd = c->fd;

#define RESET() do {							\
	memset(&rc, 0, sizeof(rc));					\
	rc.h.user_data = 1;						\
	rc.h.nops = 1;							\
	raw_read_op(rc.body, c->s.rw_rkey, rw(c, 0), 8);		\
} while (0)
#define SEND_EXPECT(len, err, what)					\
	EXPECT_ERR(raw_send(fd, &c->dst, sizeof(c->dst), &rc, (len), 0), err, what)

	prism_get_stats(fd, &st0);
	RESET();
	SEND_EXPECT(base, 0, "valid raw chain");
	{
		ssize_t n = prism_wait(fd, c->out, sizeof(c->out));

		EXPECT(n > 0 && cl_msg(c)->status == PRISM_S_OK, "valid raw chain completes");
	}
	RESET();
	SEND_EXPECT(sizeof(rc.h) - 1, EINVAL, "shorter than struct prism_chain");
	SEND_EXPECT(sizeof(rc.h), EINVAL, "header only");
	rc.h.nops = 0;
	SEND_EXPECT(base, EINVAL, "nops 0");
	RESET();
	rc.h.nops = 2;
	SEND_EXPECT(base, EINVAL, "nops larger than the ops present");
	RESET();
	for (i = 0; i < 17; i++)
		raw_read_op(rc.body + i * sizeof(*op), c->s.rw_rkey, rw(c, 0), 8);
	rc.h.nops = 17;
	SEND_EXPECT(sizeof(rc.h) + 17 * sizeof(*op), EINVAL, "17 ops");
	RESET();
	rc.h.flags = 1;
	SEND_EXPECT(base, EINVAL, "chain flags != 0");
	RESET();
	rc.h.reserved = 1;
	SEND_EXPECT(base, EINVAL, "chain reserved != 0");
	RESET();
	rc.h.timeout_ms = 60001;	/* PRISM_TIMEOUT_MS allows 1..60000 */
	SEND_EXPECT(base, EINVAL, "chain timeout beyond the maximum");
	RESET();
	SEND_EXPECT(base + 8, EINVAL, "bytes after the last op");
	RESET();
	op->opcode = 0;
	SEND_EXPECT(base, EINVAL, "opcode 0");
	op->opcode = PRISM_OP_MAX + 1;
	SEND_EXPECT(base, EINVAL, "opcode past the last");
	RESET();
	op->flags = 1u << 10;
	SEND_EXPECT(base, EINVAL, "unknown op flag");
	op->flags = PRISM_F_BOUNDED;
	SEND_EXPECT(base, EINVAL, "BOUNDED without INDIRECT");
	op->flags = PRISM_F_DATA_INDIRECT;
	SEND_EXPECT(base, EINVAL, "DATA_INDIRECT on READ");
	op->flags = PRISM_F_CONDITIONAL;
	SEND_EXPECT(base, EINVAL, "CONDITIONAL on the first op");
	op->flags = PRISM_F_ARG_SCRATCH;
	SEND_EXPECT(base, EINVAL, "ARG_SCRATCH without an indirect argument");
	op->flags = PRISM_F_ADDR_SCRATCH;
	op->addr = PRISM_SCRATCH_SIZE - 4;
	SEND_EXPECT(base, EINVAL, "scratch address out of range");
	RESET();
	op->reserved = 1;
	SEND_EXPECT(base, EINVAL, "op reserved != 0");
	RESET();
	op->cas_mode = 1;
	SEND_EXPECT(base, EINVAL, "cas_mode on READ");
	RESET();
	op->arg_addr = 8;
	SEND_EXPECT(base, EINVAL, "arg_addr set on a plain READ");
	RESET();
	op->len = 0;
	SEND_EXPECT(base, EINVAL, "READ of 0 bytes");
	RESET();
	op->data_len = 8;
	SEND_EXPECT(base + 8, EINVAL, "READ with inline data");
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

	/* Size limits: one frame each way (1500-byte MTU). */
	RESET();
	op->len = 1473;
	SEND_EXPECT(base, EMSGSIZE, "READ whose reply exceeds a frame");
	{
		static _Alignas(8) unsigned char big[2048], data[1480];
		struct prism_chain_buf ch;

		prism_chain_init(&ch, big, sizeof(big), 5);
		memset(data, 'w', sizeof(data));
		prism_prep_write(&ch, c->s.rw_rkey, rw(c, T_AREA), data, sizeof(data));
		EXPECT_ERR(prism_submit(fd, &c->dst, &ch), EMSGSIZE,
			   "WRITE request larger than a frame");
	}
	prism_get_stats(fd, &st1);
	EXPECT_EQ(st1.chains_sent - st0.chains_sent, 3, "only the 3 valid chains were sent");
	EXPECT_ERR((int)prism_wait_from(fd, c->out, sizeof(c->out), NULL, MSG_DONTWAIT),
		   EAGAIN, "no completion for refused chains");
#undef RESET
#undef SEND_EXPECT
	return st_failed;
}
