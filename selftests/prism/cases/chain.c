// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: chain features: redirected outputs, the scratch address
 * space, CONDITIONAL ops.
 */
#define _GNU_SOURCE
#include <string.h>

#include "cases.h"

int case_redirect(struct client *c)
{
	const __u64 dst = T_AREA + 0x1800;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_op *op;

	fill(c, dst, 0, 256);
	/* READ redirected into region memory. */
	cl_chain(c, &ch);
	op = prism_prep_read(&ch, c->s.rw_rkey, rw(c, 3000), 16);
	prism_op_set_redirect(&ch, op, rw(c, dst));
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "redirected READ has no output");
	check_pattern(c, dst, 3000, 16, "redirected READ data");

	/* Copy through scratch: READ -> scratch, WRITE from scratch. */
	cl_chain(c, &ch);
	op = prism_prep_read(&ch, c->s.rw_rkey, rw(c, 3100), 64);
	prism_op_set_redirect_scratch(&ch, op, 100);
	op = prism_prep_write_data_indirect(&ch, c->s.rw_rkey, rw(c, dst + 64), 100, 64);
	prism_op_set_arg_scratch(&ch, op);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "READ -> scratch");
	cl_expect_op(m, 1, PRISM_S_OK, "", 0, "WRITE from scratch");
	check_pattern(c, dst + 64, 3100, 64, "copy through scratch");

	/* CAS old value redirected. */
	setup_u64(c, dst + 128, 77);
	cl_chain(c, &ch);
	op = prism_prep_cas_u64(&ch, c->s.rw_rkey, rw(c, dst + 128), PRISM_CAS_EQ, 77, 78);
	prism_op_set_redirect(&ch, op, rw(c, dst + 136));
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "redirected CAS");
	EXPECT_EQ(mem_u64(c, rw(c, dst + 128)), 78, "CAS target");
	EXPECT_EQ(mem_u64(c, rw(c, dst + 136)), 77, "CAS old value redirected");
	return st_failed;
}

int case_scratch(struct client *c)
{
	unsigned char zero[32] = { 0 }, want[16];
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_op *op;

	/*
	 * Scratch ops ignore their rkey, but a chain must carry a valid rkey
	 * of the target somewhere: without one it is refused like a chain
	 * to an unbound endpoint.
	 */
	cl_chain(c, &ch);
	op = prism_prep_read(&ch, 0, 0, 8);
	prism_op_set_addr_scratch(&ch, op);
	if (prism_execute(c->fd, &c->dst.eth, &ch, c->out, sizeof(c->out)) < 0)
		FAIL("prism_execute of a chain without an rkey failed");
	else
		EXPECT_EQ(cl_msg(c)->status, PRISM_S_NO_ENDPOINT,
			  "chain status of scratch ops without an rkey");

	cl_chain(c, &ch);
	/* The scratch area starts zeroed. */
	op = prism_prep_read(&ch, c->s.rw_rkey, 224, 32);
	prism_op_set_addr_scratch(&ch, op);
	op = prism_prep_write(&ch, 0, 40, "scratch!", 8);
	prism_op_set_addr_scratch(&ch, op);
	op = prism_prep_read(&ch, 0, 36, 16);
	prism_op_set_addr_scratch(&ch, op);
	/* CAS on scratch. */
	op = prism_prep_cas(&ch, 0, 40, 8, PRISM_CAS_EQ, "scratch!", "SCRATCH?", NULL, NULL);
	prism_op_set_addr_scratch(&ch, op);
	op = prism_prep_read(&ch, 0, 40, 8);
	prism_op_set_addr_scratch(&ch, op);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, zero, 32, "fresh scratch is zero");
	memset(want, 0, 4);
	memcpy(want + 4, "scratch!", 8);
	memset(want + 12, 0, 4);
	cl_expect_op(m, 2, PRISM_S_OK, want, 16, "scratch after WRITE");
	cl_expect_op(m, 3, PRISM_S_OK, "scratch!", 8, "CAS on scratch");
	cl_expect_op(m, 4, PRISM_S_OK, "SCRATCH?", 8, "scratch after CAS");

	/* Scratch does not survive the chain. */
	cl_chain(c, &ch);
	op = prism_prep_read(&ch, c->s.rw_rkey, 40, 8);
	prism_op_set_addr_scratch(&ch, op);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, zero, 8, "scratch of a new chain is zero");

	/* Pointer in scratch: READ indirect through it. */
	cl_chain(c, &ch);
	{
		unsigned char p[8];

		prism_put_le64(p, rw(c, 600));
		op = prism_prep_write(&ch, 0, 0, p, 8);
		prism_op_set_addr_scratch(&ch, op);
		op = prism_prep_read_indirect(&ch, c->s.rw_rkey, 0, 16);
		prism_op_set_addr_scratch(&ch, op);
	}
	m = cl_exec(c, &ch, true);
	expect_pattern(m, 1, 600, 16, "READ via a pointer in scratch");
	return st_failed;
}

int case_conditional(struct client *c)
{
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_op *op;

	setup_u64(c, T_AREA + 0x1900, 1);
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey ^ 1, rw(c, 0), 8);		/* AUTH */
	op = prism_prep_write(&ch, c->s.rw_rkey, rw(c, T_AREA + 0x1900), "\x09", 1);
	prism_op_set_conditional(&ch, op);				/* SKIPPED */
	op = prism_prep_read(&ch, c->s.rw_rkey, rw(c, 16), 16);
	prism_op_set_conditional(&ch, op);				/* SKIPPED */
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 32), 16);		/* runs */
	op = prism_prep_cas_u64(&ch, c->s.rw_rkey, rw(c, T_AREA + 0x1900),
				PRISM_CAS_EQ, 99, 5);			/* CMP_FAILED */
	op = prism_prep_read(&ch, c->s.rw_rkey, rw(c, 48), 16);
	prism_op_set_conditional(&ch, op);				/* SKIPPED */
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_AUTH, "", 0, "READ with a wrong rkey");
	cl_expect_op(m, 1, PRISM_S_SKIPPED, "", 0, "conditional WRITE after a failure");
	cl_expect_op(m, 2, PRISM_S_SKIPPED, "", 0, "conditional READ after a skipped op");
	expect_pattern(m, 3, 32, 16, "unconditional READ runs");
	cl_expect_op(m, 4, PRISM_S_CMP_FAILED, NULL, 0, "CAS with a wrong compare");
	cl_expect_op(m, 5, PRISM_S_SKIPPED, "", 0, "conditional READ after CMP_FAILED");
	EXPECT_EQ(mem_u64(c, rw(c, T_AREA + 0x1900)), 1, "skipped WRITE wrote nothing");
	return st_failed;
}
