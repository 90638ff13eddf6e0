// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: CAS, every mode, masks, wide and odd widths, operands
 * in memory.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cases.h"

static bool mode_holds(unsigned int mode, __u64 cmp, __u64 tgt)
{
	switch (mode) {
	case PRISM_CAS_EQ: return cmp == tgt;
	case PRISM_CAS_NE: return cmp != tgt;
	case PRISM_CAS_GT: return cmp > tgt;
	case PRISM_CAS_GE: return cmp >= tgt;
	case PRISM_CAS_LT: return cmp < tgt;
	default: return cmp <= tgt;
	}
}

static const char *const mode_name[] = { "EQ", "NE", "GT", "GE", "LT", "LE" };

int case_cas_modes(struct client *c)
{
	/* Aligned (cmpxchg path) and unaligned (locked bytes path) targets. */
	const __u64 offs[] = { T_AREA + 0x1000, T_AREA + 0x1000 + 64 + 3 };
	const __u64 cmps[] = { 99, 100, 101, 0x100000000ULL + 100 };
	const __u64 tval = 100;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned int o, mode, k;
	char what[96];
	__u64 old;

	for (o = 0; o < 2; o++) {
		for (mode = 0; mode <= PRISM_CAS_MODE_MAX; mode++) {
			for (k = 0; k < 4; k++) {
				bool ok = mode_holds(mode, cmps[k], tval);

				snprintf(what, sizeof(what), "CAS_%s compare %llu target %llu%s",
					 mode_name[mode], (unsigned long long)cmps[k],
					 (unsigned long long)tval, o ? " (unaligned)" : "");
				setup_u64(c, offs[o], tval);
				cl_chain(c, &ch);
				prism_prep_cas_u64(&ch, c->s.rw_rkey, rw(c, offs[o]), mode,
						   cmps[k], 555);
				m = cl_exec(c, &ch, true);
				if (!m)
					continue;
				cl_expect_op(m, 0, ok ? PRISM_S_OK : PRISM_S_CMP_FAILED,
					     NULL, 0, what);
				if (prism_msg_u64(m, 0, &old))
					FAIL("%s: no old value returned", what);
				else
					EXPECT_EQ(old, tval, what);
				EXPECT_EQ(mem_u64(c, rw(c, offs[o])), ok ? 555 : tval, what);
			}
		}
	}
	return st_failed;
}

int case_cas_masks(struct client *c)
{
	const __u64 off = T_AREA + 0x1100;
	unsigned char cmp[8], swp[8], cm[8], sm[8], t2[2];
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	/* Compare only the low 32 bits, swap only the top 16. */
	setup_u64(c, off, 0x1122334455667788ULL);
	prism_put_le64(cmp, 0xaaaaaaaa55667788ULL);
	prism_put_le64(swp, 0xbeef000000000000ULL);
	prism_put_le64(cm, 0x00000000ffffffffULL);
	prism_put_le64(sm, 0xffff000000000000ULL);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off), 8, PRISM_CAS_EQ, cmp, swp, cm, sm);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "masked CAS_EQ");
	EXPECT_EQ(mem_u64(c, rw(c, off)), 0xbeef334455667788ULL, "masked swap result");

	/* Masked comparison false: nothing stored. */
	prism_put_le64(cmp, 0xbeef334455667789ULL);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off), 8, PRISM_CAS_EQ, cmp, swp, cm, sm);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_CMP_FAILED, NULL, 0, "masked CAS_EQ, low bits differ");
	EXPECT_EQ(mem_u64(c, rw(c, off)), 0xbeef334455667788ULL, "unchanged");

	/* Ordered compare on the masked top half only: 0x2 > 0x1 */
	setup_u64(c, off, 0x00000001ffffffffULL);
	prism_put_le64(cmp, 0x0000000200000000ULL);
	prism_put_le64(swp, 0x0000000200000007ULL);
	prism_put_le64(cm, 0xffffffff00000000ULL);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off), 8, PRISM_CAS_GT, cmp, swp, cm, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "CAS_GT on the masked high half");
	EXPECT_EQ(mem_u64(c, rw(c, off)), 0x0000000200000007ULL, "CAS_GT result");

	/* Zero compare mask: always equal (an unconditional swap). */
	memset(cm, 0, 8);
	prism_put_le64(swp, 42);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off), 8, PRISM_CAS_EQ, cmp, swp, cm, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "CAS with a zero compare mask");
	EXPECT_EQ(mem_u64(c, rw(c, off)), 42, "unconditional swap");

	/*
	 * Little-endian order: target bytes {01 02} = 0x0201, compare
	 * {02 01} = 0x0102 < 0x0201, so GT fails and LT succeeds (a memcmp
	 * order would say the opposite).
	 */
	t2[0] = 1;
	t2[1] = 2;
	setup(c, off + 16, t2, 2);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off + 16), 2, PRISM_CAS_GT,
		       "\x02\x01", "\x09\x09", NULL, NULL);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off + 16), 2, PRISM_CAS_LT,
		       "\x02\x01", "\x07\x07", NULL, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_CMP_FAILED, "\x01\x02", 2,
		     "2-byte CAS_GT 0x0102 > 0x0201 (little-endian)");
	cl_expect_op(m, 1, PRISM_S_OK, "\x01\x02", 2,
		     "2-byte CAS_LT 0x0102 < 0x0201 (little-endian)");
	check_mem(c, off + 16, "\x07\x07", 2, "2-byte CAS result");
	return st_failed;
}

int case_cas_wide(struct client *c)
{
	const __u64 off = T_AREA + 0x1200;
	unsigned char t[32], cmp[32], swp[32], cm[16], want[32];
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned int i;

	/* 32 bytes, across a cache-line boundary (off + 48). */
	for (i = 0; i < 32; i++) {
		t[i] = (unsigned char)i;
		swp[i] = (unsigned char)(0xa0 + i);
	}
	setup(c, off + 48, t, 32);
	memcpy(cmp, t, 32);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off + 48), 32, PRISM_CAS_EQ, cmp, swp,
		       NULL, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, t, 32, "32-byte CAS_EQ");
	check_mem(c, off + 48, swp, 32, "32-byte CAS result");
	cmp[31] ^= 1;
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off + 48), 32, PRISM_CAS_EQ, cmp, t,
		       NULL, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_CMP_FAILED, swp, 32, "32-byte CAS_EQ, last byte differs");
	check_mem(c, off + 48, swp, 32, "unchanged after failed 32-byte CAS");

	/* 16-byte {addr, tag}: CAS_GT compares the tag (high half) only. */
	prism_put_le64(t, 0x1111);
	prism_put_le64(t + 8, 5);
	setup(c, off + 128, t, 16);
	memset(cm, 0, 8);
	memset(cm + 8, 0xff, 8);
	prism_put_le64(cmp, 0x2222);
	prism_put_le64(cmp + 8, 6);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off + 128), 16, PRISM_CAS_GT, cmp, cmp,
		       cm, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, t, 16, "16-byte CAS_GT tag 6 > 5");
	check_mem(c, off + 128, cmp, 16, "16-byte CAS_GT result");
	prism_put_le64(swp, 0x3333);
	prism_put_le64(swp + 8, 4);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off + 128), 16, PRISM_CAS_GT, swp, swp,
		       cm, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_CMP_FAILED, cmp, 16, "16-byte CAS_GT tag 4 > 6");
	check_mem(c, off + 128, cmp, 16, "unchanged after failed 16-byte CAS_GT");

	/* An odd length: 3 bytes. */
	setup(c, off + 200, "\x10\x20\x30\x40", 4);
	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, off + 200), 3, PRISM_CAS_EQ,
		       "\x10\x20\x30", "\x01\x02\x03", NULL, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, "\x10\x20\x30", 3, "3-byte CAS");
	memcpy(want, "\x01\x02\x03\x40", 4);
	check_mem(c, off + 200, want, 4, "3-byte CAS result (4th byte untouched)");
	return st_failed;
}

int case_cas_indirect(struct client *c)
{
	const __u64 off = T_AREA + 0x1400;
	unsigned char b[8];
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	/* target via pointer; compare and swap values from region memory */
	setup_u64(c, off, rw(c, off + 64));	/* pointer */
	setup_u64(c, off + 64, 1000);		/* target */
	setup_u64(c, off + 8, 1000);		/* compare value */
	setup_u64(c, off + 16, 2000);		/* swap value */
	cl_chain(c, &ch);
	prism_prep_cas_ex(&ch, c->s.rw_rkey, rw(c, off), 8, PRISM_CAS_EQ,
			  PRISM_F_INDIRECT, NULL, rw(c, off + 8), NULL,
			  rw(c, off + 16), NULL, NULL);
	m = cl_exec(c, &ch, true);
	prism_put_le64(b, 1000);
	cl_expect_op(m, 0, PRISM_S_OK, b, 8, "CAS via pointer, operands in memory");
	EXPECT_EQ(mem_u64(c, rw(c, off + 64)), 2000, "CAS via pointer target");
	EXPECT_EQ(mem_u64(c, rw(c, off)), rw(c, off + 64), "pointer unchanged");

	/* inline compare, swap from memory */
	cl_chain(c, &ch);
	prism_put_le64(b, 2000);
	prism_prep_cas_ex(&ch, c->s.rw_rkey, rw(c, off + 64), 8, PRISM_CAS_EQ, 0,
			  b, 0, NULL, rw(c, off + 8), NULL, NULL);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, b, 8, "CAS with swap value from memory");
	EXPECT_EQ(mem_u64(c, rw(c, off + 64)), 1000, "CAS swap-indirect result");
	return st_failed;
}
