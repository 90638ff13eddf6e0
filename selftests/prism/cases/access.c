// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: access violations: wrong rkeys (AUTH), out-of-bounds,
 * read-only and no-atomic regions, wild pointers (ACCESS).
 */
#define _GNU_SOURCE
#include <string.h>

#include "cases.h"

int case_access_auth(struct client *c)
{
	const __u64 off = T_AREA + 0x1a00;
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	fill(c, off, 0x33, 16);
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey + 1, rw(c, 0), 8);
	prism_prep_write(&ch, 0x1234567, rw(c, off), "XXXXXXXX", 8);
	prism_prep_cas_u64(&ch, ~c->s.rw_rkey, rw(c, off), PRISM_CAS_NE, 0, 0);
	/* the rkey of another region does not cover this one's bytes */
	prism_prep_read(&ch, c->s.ro_rkey, rw(c, 0), 8);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_AUTH, "", 0, "READ with a wrong rkey");
	cl_expect_op(m, 1, PRISM_S_AUTH, "", 0, "WRITE with a wrong rkey");
	cl_expect_op(m, 2, PRISM_S_AUTH, "", 0, "CAS with a wrong rkey");
	cl_expect_op(m, 3, PRISM_S_ACCESS, "", 0, "READ of region A with region B's rkey");
	check_fill(c, off, 0x33, 16, "memory untouched by unauthorized ops");
	return st_failed;
}

int case_access_bounds(struct client *c)
{
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned char ro[16];
	unsigned int i;

	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, RW_LEN - 4), 8);	/* crosses the end */
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0) - 8, 8);		/* before the start */
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, RW_LEN), 1);		/* just past */
	prism_prep_write(&ch, c->s.rw_rkey, rw(c, RW_LEN - 1), "ab", 2);
	prism_prep_read(&ch, c->s.rw_rkey, ~0ULL - 3, 8);		/* wraps */
	prism_prep_cas_u64(&ch, c->s.rw_rkey, rw(c, RW_LEN - 4), PRISM_CAS_EQ, 0, 0);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, RW_LEN - 1), 1);	/* last byte: OK */
	m = cl_exec(c, &ch, true);
	for (i = 0; i < 6; i++)
		cl_expect_op(m, i, PRISM_S_ACCESS, "", 0, "out-of-bounds access");
	cl_expect_op(m, 6, PRISM_S_OK, NULL, 0, "last byte of the region");

	/* Read-only region: READ works, WRITE/CAS/redirect into it do not. */
	for (i = 0; i < 16; i++)
		ro[i] = ro_pat(100 + i);
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.ro_rkey, c->s.ro_addr + 100, 16);
	prism_prep_write(&ch, c->s.ro_rkey, c->s.ro_addr + 100, "XXXX", 4);
	prism_prep_cas(&ch, c->s.ro_rkey, c->s.ro_addr + 100, 4, PRISM_CAS_NE,
		       "\0\0\0\0", "YYYY", NULL, NULL);
	{
		struct prism_op *op = prism_prep_read(&ch, c->s.ro_rkey,
						      c->s.ro_addr + 200, 4);

		prism_op_set_redirect(&ch, op, c->s.ro_addr + 100);
	}
	prism_prep_read(&ch, c->s.ro_rkey, c->s.ro_addr + 100, 16);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, ro, 16, "READ of the read-only region");
	cl_expect_op(m, 1, PRISM_S_ACCESS, "", 0, "WRITE to the read-only region");
	cl_expect_op(m, 2, PRISM_S_ACCESS, "", 0, "CAS on the read-only region");
	cl_expect_op(m, 3, PRISM_S_ACCESS, "", 0, "redirect into the read-only region");
	cl_expect_op(m, 4, PRISM_S_OK, ro, 16, "read-only region unchanged");
	{
		unsigned char b[16];

		if (!peek(c->s.pid, c->s.ro_addr + 100, b, 16))
			EXPECT_MEM(b, ro, 16, "read-only region memory");
	}

	/* No ATOMIC right: CAS refused, READ/WRITE fine. */
	cl_chain(c, &ch);
	prism_prep_write(&ch, c->s.na_rkey, c->s.na_addr, "\x05\0\0\0\0\0\0\0", 8);
	prism_prep_cas_u64(&ch, c->s.na_rkey, c->s.na_addr, PRISM_CAS_EQ, 5, 6);
	prism_prep_read(&ch, c->s.na_rkey, c->s.na_addr, 8);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "WRITE to a region without ATOMIC");
	cl_expect_op(m, 1, PRISM_S_ACCESS, "", 0, "CAS on a region without ATOMIC");
	cl_expect_op(m, 2, PRISM_S_OK, "\x05\0\0\0\0\0\0\0", 8, "value not swapped");
	return st_failed;
}

int case_access_pointer(struct client *c)
{
	const __u64 off = T_AREA + 0x1b00;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_op *op;

	setup_u64(c, off, rw(c, RW_LEN) + 100);		/* past the end */
	setup_u64(c, off + 8, c->s.ro_addr);		/* another region */
	setup_u64(c, off + 16, rw(c, RW_LEN - 4));	/* straddles the end */
	setup_u64(c, off + 24, 0x1000);			/* nowhere */
	setup_u64(c, off + 32, rw(c, 0));		/* bounded: {ptr, bound} */
	setup_u64(c, off + 40, RW_LEN + 1);
	fill(c, off + 64, 0x44, 8);
	cl_chain(c, &ch);
	prism_prep_read_indirect(&ch, c->s.rw_rkey, rw(c, off), 8);
	prism_prep_read_indirect(&ch, c->s.rw_rkey, rw(c, off + 8), 8);
	prism_prep_read_indirect(&ch, c->s.rw_rkey, rw(c, off + 16), 8);
	prism_prep_write_indirect(&ch, c->s.rw_rkey, rw(c, off + 24), "zzzz", 4);
	prism_prep_cas_indirect(&ch, c->s.rw_rkey, rw(c, off), 8, PRISM_CAS_NE,
				"\0\0\0\0\0\0\0\0", "\1\1\1\1\1\1\1\1", NULL, NULL);
	/* bound larger than the region: the READ is clipped to len, OK */
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, off + 32), 16);
	/* pointer slot itself outside the region */
	prism_prep_read_indirect(&ch, c->s.rw_rkey, rw(c, RW_LEN - 4), 8);
	/* redirect outside the region */
	op = prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	prism_op_set_redirect(&ch, op, rw(c, RW_LEN) - 4);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_ACCESS, "", 0, "pointer past the region");
	cl_expect_op(m, 1, PRISM_S_ACCESS, "", 0, "pointer into another region");
	cl_expect_op(m, 2, PRISM_S_ACCESS, "", 0, "pointer straddling the end");
	cl_expect_op(m, 3, PRISM_S_ACCESS, "", 0, "WRITE via a wild pointer");
	cl_expect_op(m, 4, PRISM_S_ACCESS, "", 0, "CAS via a pointer past the region");
	cl_expect_op(m, 5, PRISM_S_OK, NULL, 0, "bounded READ with a large bound");
	cl_expect_op(m, 6, PRISM_S_ACCESS, "", 0, "pointer slot outside the region");
	cl_expect_op(m, 7, PRISM_S_ACCESS, "", 0, "redirect past the region");
	check_fill(c, off + 64, 0x44, 8, "neighbouring memory");
	return st_failed;
}
