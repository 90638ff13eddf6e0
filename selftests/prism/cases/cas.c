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

/*
 * One CAS of len bytes at offset off of the RW region, values inline (a
 * NULL mask is all ones): op 0 must end with status and return old (len
 * bytes); the target then holds after (after_len bytes from off).
 */
struct cas_step {
	__u64		off;
	__u32		len;
	unsigned int	mode;
	const void	*cmp, *swp, *cmask, *smask;
	int		status;
	const void	*old;
	const void	*after;
	size_t		after_len;
};

static void cas_step(struct client *c, const struct cas_step *s,
		     const char *what)
{
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	char mem_what[128];

	cl_chain(c, &ch);
	prism_prep_cas(&ch, c->s.rw_rkey, rw(c, s->off), s->len, s->mode,
		       s->cmp, s->swp, s->cmask, s->smask);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, s->status, s->old, s->len, what);
	snprintf(mem_what, sizeof(mem_what), "%s: the target after it", what);
	check_mem(c, s->off, s->after, s->after_len, mem_what);
}

/* An 8-byte CAS of little-endian numbers; the target is set to before first. */
struct cas_u64 {
	__u64		before;
	unsigned int	mode;
	__u64		cmp, swp, cmask, smask;
	int		status;
	__u64		after;
};

static void cas_u64_step(struct client *c, __u64 off, const struct cas_u64 *u,
			 const char *what)
{
	const __u64 v[] = { u->cmp, u->swp, u->cmask, u->smask, u->before,
			    u->after };
	unsigned char b[6][8];
	unsigned int i;

	for (i = 0; i < 6; i++)
		prism_put_le64(b[i], v[i]);
	setup(c, off, b[4], 8);
	cas_step(c, &(const struct cas_step){ off, 8, u->mode, b[0], b[1], b[2],
					      b[3], u->status, b[4], b[5], 8 },
		 what);
}

int case_cas_modes(struct client *c)
{
	/* Aligned (cmpxchg path) and unaligned (locked bytes path) targets. */
	const __u64 offs[] = { T_AREA + 0x1000, T_AREA + 0x1000 + 64 + 3 };
	const __u64 cmps[] = { 99, 100, 101, 0x100000000ULL + 100 };
	struct cas_u64 u = { .before = 100, .swp = 555, .cmask = ~0ULL,
			     .smask = ~0ULL };
	unsigned int o, k;
	char what[96];

	for (o = 0; o < 2; o++) {
		for (u.mode = 0; u.mode <= PRISM_CAS_MODE_MAX; u.mode++) {
			for (k = 0; k < 4; k++) {
				bool ok = mode_holds(u.mode, cmps[k], u.before);

				snprintf(what, sizeof(what), "CAS_%s compare %llu target %llu%s",
					 mode_name[u.mode], (unsigned long long)cmps[k],
					 (unsigned long long)u.before,
					 o ? " (unaligned)" : "");
				u.cmp = cmps[k];
				u.status = ok ? PRISM_S_OK : PRISM_S_CMP_FAILED;
				u.after = ok ? u.swp : u.before;
				cas_u64_step(c, offs[o], &u, what);
			}
		}
	}
	return st_failed;
}

int case_cas_masks(struct client *c)
{
	static const struct {
		struct cas_u64	u;
		const char	*what;
	} steps[] = {
		/* Compare only the low 32 bits, swap only the top 16. */
		{ { 0x1122334455667788ULL, PRISM_CAS_EQ, 0xaaaaaaaa55667788ULL,
		    0xbeef000000000000ULL, 0x00000000ffffffffULL,
		    0xffff000000000000ULL, PRISM_S_OK, 0xbeef334455667788ULL },
		  "masked CAS_EQ" },
		/* Masked comparison false: nothing stored. */
		{ { 0xbeef334455667788ULL, PRISM_CAS_EQ, 0xbeef334455667789ULL,
		    0xbeef000000000000ULL, 0x00000000ffffffffULL,
		    0xffff000000000000ULL, PRISM_S_CMP_FAILED,
		    0xbeef334455667788ULL },
		  "masked CAS_EQ, low bits differ" },
		/* Ordered compare on the masked top half only: 0x2 > 0x1 */
		{ { 0x00000001ffffffffULL, PRISM_CAS_GT, 0x0000000200000000ULL,
		    0x0000000200000007ULL, 0xffffffff00000000ULL, ~0ULL,
		    PRISM_S_OK, 0x0000000200000007ULL },
		  "CAS_GT on the masked high half" },
		/* Zero compare mask: always equal (an unconditional swap). */
		{ { 0x0000000200000007ULL, PRISM_CAS_EQ, 0x0000000200000000ULL,
		    42, 0, ~0ULL, PRISM_S_OK, 42 },
		  "CAS with a zero compare mask" },
	};
	const __u64 off = T_AREA + 0x1100;
	unsigned char t2[2];
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned int i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		cas_u64_step(c, off, &steps[i].u, steps[i].what);

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
	unsigned char t[32], swp[32], bad[32], t16[16], cmp16[16], swp16[16];
	unsigned char cm16[16] = { 0 };
	/*
	 * 32 bytes across a cache-line boundary (off + 48); a 16-byte {addr,
	 * tag} where CAS_GT compares the tag (high half) only; an odd length,
	 * 3 bytes, whose 4th byte stays.
	 */
	const struct {
		struct cas_step	s;
		const char	*what;
	} steps[] = {
		{ { off + 48, 32, PRISM_CAS_EQ, t, swp, NULL, NULL, PRISM_S_OK,
		    t, swp, 32 }, "32-byte CAS_EQ" },
		{ { off + 48, 32, PRISM_CAS_EQ, bad, t, NULL, NULL,
		    PRISM_S_CMP_FAILED, swp, swp, 32 },
		  "32-byte CAS_EQ, last byte differs" },
		{ { off + 128, 16, PRISM_CAS_GT, cmp16, cmp16, cm16, NULL,
		    PRISM_S_OK, t16, cmp16, 16 }, "16-byte CAS_GT tag 6 > 5" },
		{ { off + 128, 16, PRISM_CAS_GT, swp16, swp16, cm16, NULL,
		    PRISM_S_CMP_FAILED, cmp16, cmp16, 16 },
		  "16-byte CAS_GT tag 4 > 6" },
		{ { off + 200, 3, PRISM_CAS_EQ, "\x10\x20\x30", "\x01\x02\x03",
		    NULL, NULL, PRISM_S_OK, "\x10\x20\x30", "\x01\x02\x03\x40",
		    4 }, "3-byte CAS" },
	};
	unsigned int i;

	for (i = 0; i < 32; i++) {
		t[i] = (unsigned char)i;
		swp[i] = (unsigned char)(0xa0 + i);
	}
	memcpy(bad, t, 32);
	bad[31] ^= 1;
	prism_put_le64(t16, 0x1111);
	prism_put_le64(t16 + 8, 5);
	prism_put_le64(cmp16, 0x2222);
	prism_put_le64(cmp16 + 8, 6);
	prism_put_le64(swp16, 0x3333);
	prism_put_le64(swp16 + 8, 4);
	memset(cm16 + 8, 0xff, 8);
	setup(c, off + 48, t, 32);
	setup(c, off + 128, t16, 16);
	setup(c, off + 200, "\x10\x20\x30\x40", 4);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		cas_step(c, &steps[i].s, steps[i].what);
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
