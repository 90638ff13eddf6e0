// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: WRITE of inline data, through a pointer, from region
 * memory (data-indirect).
 */
#define _GNU_SOURCE
#include <string.h>

#include "cases.h"

int case_write_inline(struct client *c)
{
	const __u64 base = T_AREA + 0x100;
	unsigned char data[1000], img[1200];
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 3 + 5);
	fill(c, base, 0xee, sizeof(img));
	cl_chain(c, &ch);
	prism_prep_write(&ch, c->s.rw_rkey, rw(c, base + 3), data, 37);
	prism_prep_write(&ch, c->s.rw_rkey, rw(c, base + 60), "\x42", 1);
	prism_prep_write(&ch, c->s.rw_rkey, rw(c, base + 64), data, 8);
	m = cl_exec(c, &ch, true);
	for (i = 0; i < 3; i++)
		cl_expect_op(m, i, PRISM_S_OK, "", 0, "WRITE");
	memset(img, 0xee, sizeof(img));
	memcpy(img + 3, data, 37);
	img[60] = 0x42;
	memcpy(img + 64, data, 8);
	check_mem(c, base, img, 100, "server memory after WRITEs");

	/* A long WRITE (crosses many cache lines). */
	cl_chain(c, &ch);
	prism_prep_write(&ch, c->s.rw_rkey, rw(c, base + 101), data, 1000);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "WRITE 1000 bytes");
	memcpy(img + 101, data, 1000);
	check_mem(c, base, img, sizeof(img), "server memory after a 1000-byte WRITE");
	return st_failed;
}

int case_write_indirect(struct client *c)
{
	const __u64 slot = T_AREA + 0x600, tgt = T_AREA + 0x700;
	static const char msg[] = "written through a pointer";
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	fill(c, tgt, 0, 64);
	setup_u64(c, slot, rw(c, tgt));
	cl_chain(c, &ch);
	prism_prep_write_indirect(&ch, c->s.rw_rkey, rw(c, slot), msg, sizeof(msg));
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "WRITE via pointer");
	check_mem(c, tgt, msg, sizeof(msg), "WRITE via pointer target");
	EXPECT_EQ(mem_u64(c, rw(c, slot)), rw(c, tgt), "pointer slot unchanged");
	return st_failed;
}

int case_write_data_indirect(struct client *c)
{
	const __u64 dst = T_AREA + 0x800;
	unsigned char want[300];
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	fill(c, dst, 0, 320);
	cl_chain(c, &ch);
	prism_prep_write_data_indirect(&ch, c->s.rw_rkey, rw(c, dst), rw(c, 9000), 200);
	prism_prep_write_data_indirect(&ch, c->s.rw_rkey, rw(c, dst + 200), rw(c, 123), 100);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "WRITE data-indirect");
	cl_expect_op(m, 1, PRISM_S_OK, NULL, 0, "WRITE data-indirect");
	pattern(want, 9000, 200);
	pattern(want + 200, 123, 100);
	check_mem(c, dst, want, 300, "copied bytes");
	check_fill(c, dst + 300, 0, 20, "bytes after the copy");
	return st_failed;
}
