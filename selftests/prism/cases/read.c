// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: READ, direct, through a pointer, through {ptr, bound}.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "cases.h"

int case_read_direct(struct client *c)
{
	static const struct { __u64 off; __u32 len; } rd[] = {
		{ 0, 1 }, { 1000, 512 }, { 3, 13 }, { PAT_END - 100, 100 },
		{ 4093, 64 },
	};
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned int i;

	cl_chain(c, &ch);
	for (i = 0; i < 5; i++)
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, rd[i].off), rd[i].len);
	m = cl_exec(c, &ch, true);
	check_layout(m);
	for (i = 0; m && i < 5; i++)
		expect_pattern(m, i, rd[i].off, rd[i].len, "READ");
	if (m)
		EXPECT_EQ(m->user_data, c->next_ud, "completion user_data");

	/*
	 * An answer larger than one frame (1500-byte MTU) comes in segments:
	 * READs past the frame return the right bytes.  One op past
	 * PRISM_MAX_OP_DATA, and a chain whose outputs pass
	 * PRISM_MAX_CHAIN_DATA, are refused before anything is sent.
	 */
	{
		static const __u32 sizes[] = { 1456, 1457, 3000, 4000 };
		unsigned int k;

		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			cl_chain(c, &ch);
			prism_prep_read(&ch, c->s.rw_rkey, rw(c, 20000), sizes[k]);
			m = cl_exec(c, &ch, true);
			expect_pattern(m, 0, 20000, sizes[k], "READ over a frame");
		}
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), PRISM_MAX_OP_DATA + 1);
		EXPECT_ERR(prism_submit(c->fd, &c->dst.eth, &ch), EINVAL,
			   "a READ past PRISM_MAX_OP_DATA");
		cl_chain(c, &ch);
		for (k = 0; k < 3; k++)
			prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), PRISM_MAX_OP_DATA);
		EXPECT_ERR(prism_submit(c->fd, &c->dst.eth, &ch), EINVAL,
			   "outputs past PRISM_MAX_CHAIN_DATA");
	}

	/* The last bytes of the region. */
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, RW_LEN - 8), 8);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "READ at the end of the region");
	return st_failed;
}

int case_read_indirect(struct client *c)
{
	unsigned char want[8];
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	setup_u64(c, T_AREA, rw(c, 5000));
	setup_u64(c, T_AREA + 11, rw(c, 7));	/* unaligned pointer slot */
	cl_chain(c, &ch);
	prism_prep_read_indirect(&ch, c->s.rw_rkey, rw(c, T_AREA), 300);
	prism_prep_read_indirect(&ch, c->s.rw_rkey, rw(c, T_AREA + 11), 33);
	/* the pointer itself, read directly */
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, T_AREA), 8);
	m = cl_exec(c, &ch, true);
	expect_pattern(m, 0, 5000, 300, "READ via pointer");
	expect_pattern(m, 1, 7, 33, "READ via unaligned pointer");
	prism_put_le64(want, rw(c, 5000));
	cl_expect_op(m, 2, PRISM_S_OK, want, 8, "pointer value");
	return st_failed;
}

int case_read_bounded(struct client *c)
{
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	setup_u64(c, T_AREA + 16, rw(c, 7000));
	setup_u64(c, T_AREA + 24, 100);		/* bound < len */
	setup_u64(c, T_AREA + 32, rw(c, 8000));
	setup_u64(c, T_AREA + 40, 100000);	/* bound > len */
	setup_u64(c, T_AREA + 48, rw(c, 9000));
	setup_u64(c, T_AREA + 56, 0);		/* empty */
	/* The reply must fit len bytes per op (the bound is not known). */
	cl_chain(c, &ch);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 16), 400);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 32), 400);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 48), 400);
	m = cl_exec(c, &ch, true);
	check_layout(m);
	expect_pattern(m, 0, 7000, 100, "bounded READ, bound 100");
	expect_pattern(m, 1, 8000, 400, "bounded READ, bound 100000");
	expect_pattern(m, 2, 9000, 0, "bounded READ, bound 0");
	/*
	 * Three 512-byte bounded READs could need 1560 bytes, more than a
	 * frame: the client is ready for a segmented answer, and the target,
	 * whose answer fits in a frame after all, sends a plain one.
	 */
	cl_chain(c, &ch);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 16), 512);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 32), 512);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 48), 512);
	m = cl_exec(c, &ch, true);
	check_layout(m);
	expect_pattern(m, 0, 7000, 100, "large bounded READ, bound 100");
	expect_pattern(m, 1, 8000, 512, "large bounded READ, bound 100000");
	expect_pattern(m, 2, 9000, 0, "large bounded READ, bound 0");
	return st_failed;
}
