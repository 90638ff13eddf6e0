// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: end-to-end client cases against a server sleeping in
 * pause() ("prism_test server", in prism_test.c).  Each case sets up the server memory it needs with
 * process_vm_writev(), runs chains, and checks both the completions and the
 * server memory (process_vm_readv()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "st.h"

/* ------------------------------------------------------------------------
 * Helpers
 */
static void setup(struct client *c, __u64 off, const void *data, size_t len)
{
	int err = poke(c->s.pid, rw(c, off), data, len);

	if (err)
		FAIL("process_vm_writev(server +0x%llx, %zu): %s",
		     (unsigned long long)off, len, errno_name(-err));
}

static void setup_u64(struct client *c, __u64 off, __u64 v)
{
	unsigned char b[8];

	prism_put_le64(b, v);
	setup(c, off, b, 8);
}

static void fill(struct client *c, __u64 off, int byte, size_t len)
{
	unsigned char *b = malloc(len);

	memset(b, byte, len);
	setup(c, off, b, len);
	free(b);
}

/* Server memory at off must equal want. */
static void check_mem(struct client *c, __u64 off, const void *want,
		      size_t len, const char *what)
{
	unsigned char *b = malloc(len);
	int err = peek(c->s.pid, rw(c, off), b, len);

	if (err)
		FAIL("process_vm_readv(server +0x%llx): %s",
		     (unsigned long long)off, errno_name(-err));
	else
		EXPECT_MEM(b, want, len, what);
	free(b);
}

static void check_fill(struct client *c, __u64 off, int byte, size_t len,
		       const char *what)
{
	unsigned char *b = malloc(len);

	memset(b, byte, len);
	check_mem(c, off, b, len, what);
	free(b);
}

static __u64 mem_u64(struct client *c, __u64 addr)
{
	unsigned char b[8] = { 0 };

	if (peek(c->s.pid, addr, b, 8))
		FAIL("process_vm_readv(0x%llx) failed", (unsigned long long)addr);
	return prism_get_le64(b);
}

static void pattern(unsigned char *b, __u64 off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = pat(off + i);
}

/* Results are 8-byte aligned and inside the message. */
static void check_layout(const struct prism_msg *m)
{
	unsigned int i;

	for (i = 0; m && i < m->nops; i++) {
		const struct prism_op_result *r = prism_msg_result(m, i);

		if (!r || !r->len)
			continue;
		if (r->offset % 8)
			FAIL("op %u output at unaligned offset %u", i, r->offset);
		if (!prism_msg_data(m, i, NULL))
			FAIL("op %u output [%u, +%u) outside the message (len %u)",
			     i, r->offset, r->len, m->len);
	}
}

/* ------------------------------------------------------------------------
 * READ
 */
static int case_read_direct(struct client *c)
{
	static const struct { __u64 off; __u32 len; } rd[] = {
		{ 0, 1 }, { 1000, 512 }, { 3, 13 }, { PAT_END - 100, 100 },
		{ 4093, 64 },
	};
	unsigned char want[1472];
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned int i;

	cl_chain(c, &ch);
	for (i = 0; i < 5; i++)
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, rd[i].off), rd[i].len);
	m = cl_exec(c, &ch, true);
	check_layout(m);
	for (i = 0; m && i < 5; i++) {
		pattern(want, rd[i].off, rd[i].len);
		cl_expect_op(m, i, PRISM_S_OK, want, rd[i].len, "READ");
	}
	if (m)
		EXPECT_EQ(m->user_data, c->next_ud, "completion user_data");

	/*
	 * The largest READ one frame can answer (1500-byte MTU; the header
	 * size is the module's business): found by bisection, it must be
	 * near the MTU and return the right bytes; one more byte is refused.
	 */
	{
		__u32 lo = 1024, hi = 1500, mid;
		int err;

		while (lo + 1 < hi) {
			mid = (lo + hi) / 2;
			cl_chain(c, &ch);
			prism_prep_read(&ch, c->s.rw_rkey, rw(c, 20000), mid);
			err = prism_submit(c->fd, &c->dst, &ch);
			if (!err) {
				prism_wait(c->fd, c->out, sizeof(c->out));
				lo = mid;
			} else if (err == -EMSGSIZE) {
				hi = mid;
			} else {
				FAIL("READ of %u bytes: %s", mid, errno_name(-err));
				break;
			}
		}
		st_diag("largest READ answered in one 1500-byte frame: %u bytes", lo);
		EXPECT(lo >= 1400, "a READ of %u bytes fits in a frame", lo);
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 20000), lo);
		m = cl_exec(c, &ch, true);
		pattern(want, 20000, lo);
		cl_expect_op(m, 0, PRISM_S_OK, want, lo, "the largest READ");
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 20000), lo + 1);
		EXPECT_ERR(prism_submit(c->fd, &c->dst, &ch), EMSGSIZE, "one byte more");
	}

	/* The last bytes of the region. */
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, RW_LEN - 8), 8);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "READ at the end of the region");
	return st_failed;
}

static int case_read_indirect(struct client *c)
{
	unsigned char want[512];
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
	pattern(want, 5000, 300);
	cl_expect_op(m, 0, PRISM_S_OK, want, 300, "READ via pointer");
	pattern(want, 7, 33);
	cl_expect_op(m, 1, PRISM_S_OK, want, 33, "READ via unaligned pointer");
	prism_put_le64(want, rw(c, 5000));
	cl_expect_op(m, 2, PRISM_S_OK, want, 8, "pointer value");
	return st_failed;
}

static int case_read_bounded(struct client *c)
{
	unsigned char want[512];
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
	pattern(want, 7000, 100);
	cl_expect_op(m, 0, PRISM_S_OK, want, 100, "bounded READ, bound 100");
	pattern(want, 8000, 400);
	cl_expect_op(m, 1, PRISM_S_OK, want, 400, "bounded READ, bound 100000");
	cl_expect_op(m, 2, PRISM_S_OK, want, 0, "bounded READ, bound 0");
	/* Three 512-byte bounded READs could need 1560 bytes: refused. */
	cl_chain(c, &ch);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 16), 512);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 32), 512);
	prism_prep_read_bounded(&ch, c->s.rw_rkey, rw(c, T_AREA + 48), 512);
	EXPECT_ERR(prism_submit(c->fd, &c->dst, &ch), EMSGSIZE,
		   "bounded READs whose largest reply exceeds a frame");
	return st_failed;
}

/* ------------------------------------------------------------------------
 * WRITE
 */
static int case_write_inline(struct client *c)
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

static int case_write_indirect(struct client *c)
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

static int case_write_data_indirect(struct client *c)
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

/* ------------------------------------------------------------------------
 * CAS
 */
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

static int case_cas_modes(struct client *c)
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

static int case_cas_masks(struct client *c)
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

static int case_cas_wide(struct client *c)
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

static int case_cas_indirect(struct client *c)
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

/* ------------------------------------------------------------------------
 * ALLOC, and the PRISM-KV / PRISM-RS chains
 */
static bool in_main_list(struct client *c, __u64 a)
{
	return a >= rw(c, FL_OFF) && a < rw(c, RW_LEN) &&
	       (a - rw(c, FL_OFF)) % FL_BUF_SIZE == 0;
}

static int case_alloc(struct client *c)
{
	static const char v1[] = "first allocated value";
	static const char v2[] = "second";
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_op *op;
	__u64 a1 = 0, a2 = 0, a3;

	cl_chain(c, &ch);
	prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_main, v1, sizeof(v1));
	prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_main, v2, sizeof(v2));
	m = cl_exec_alloc(c, &ch, 0);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "ALLOC");
	cl_expect_op(m, 1, PRISM_S_OK, NULL, 0, "ALLOC");
	if (m && (prism_msg_u64(m, 0, &a1) || prism_msg_u64(m, 1, &a2)))
		FAIL("ALLOC returned no 8-byte address");
	if (a1 || a2) {
		EXPECT(in_main_list(c, a1), "address 0x%llx in the posted buffers",
		       (unsigned long long)a1);
		EXPECT(in_main_list(c, a2), "address 0x%llx in the posted buffers",
		       (unsigned long long)a2);
		EXPECT(a1 != a2, "two ALLOCs gave the same buffer 0x%llx",
		       (unsigned long long)a1);
		if (in_main_list(c, a1))
			check_mem(c, a1 - c->s.rw_addr, v1, sizeof(v1), "ALLOC data");
		if (in_main_list(c, a2))
			check_mem(c, a2 - c->s.rw_addr, v2, sizeof(v2), "ALLOC data");
	}

	/* Redirected to region memory: no output, address stored there. */
	setup_u64(c, T_AREA + 0x1500, 0);
	cl_chain(c, &ch);
	op = prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_main, "x", 1);
	prism_op_set_redirect(&ch, op, rw(c, T_AREA + 0x1500));
	m = cl_exec_alloc(c, &ch, 0);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "redirected ALLOC");
	a3 = mem_u64(c, rw(c, T_AREA + 0x1500));
	EXPECT(in_main_list(c, a3) && a3 != a1 && a3 != a2,
	       "redirected ALLOC stored a fresh buffer address (0x%llx)",
	       (unsigned long long)a3);

	/* More data than a buffer holds. */
	{
		char big[FL_BUF_SIZE + 1];

		memset(big, 'b', sizeof(big));
		cl_chain(c, &ch);
		prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_main, big, sizeof(big));
		m = cl_exec(c, &ch, true);
		if (m && prism_msg_op_status(m, 0) == PRISM_S_OK)
			FAIL("ALLOC of %zu bytes from %u-byte buffers succeeded",
			     sizeof(big), FL_BUF_SIZE);
	}
	return st_failed;
}

static int case_alloc_empty(struct client *c)
{
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	__u64 a = 0;

	/* The small list holds one buffer. */
	cl_chain(c, &ch);
	prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_small, "abc", 3);
	m = cl_exec_alloc(c, &ch, 0);
	cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "ALLOC from the small list");
	if (m && !prism_msg_u64(m, 0, &a))
		EXPECT_EQ(a, rw(c, SMALL_BUF), "the small list's only buffer");
	check_mem(c, SMALL_BUF, "abc", 3, "ALLOC data in the small buffer");
	cl_chain(c, &ch);
	prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_small, "def", 3);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_NO_BUFFER, "", 0, "ALLOC from the empty list");
	check_mem(c, SMALL_BUF, "abc", 3, "no write after a failed ALLOC");

	cl_chain(c, &ch);
	prism_prep_alloc(&ch, c->s.rw_rkey, 0x7fff1234, NULL, 0);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_NO_BUFFER, "", 0, "ALLOC from an unknown list");

	cl_chain(c, &ch);
	prism_prep_alloc(&ch, c->s.ro_rkey, c->s.fl_main, NULL, 0);
	m = cl_exec(c, &ch, true);
	if (m && prism_msg_op_status(m, 0) == PRISM_S_OK)
		FAIL("ALLOC with the rkey of a read-only region succeeded");
	return st_failed;
}

/* PRISM-KV PUT: ALLOC(entry) -> scratch[0]; if OK, CAS slot old -> scratch[0]. */
static const struct prism_msg *kv_put(struct client *c, __u64 slot, __u32 fl,
				      __u64 expect_old, const void *entry,
				      __u32 len, bool retry)
{
	struct prism_chain_buf ch;
	struct prism_op *op;
	unsigned char old[8];

	prism_put_le64(old, expect_old);
	cl_chain(c, &ch);
	op = prism_prep_alloc(&ch, c->s.rw_rkey, fl, entry, len);
	prism_op_set_redirect_scratch(&ch, op, 0);
	op = prism_prep_cas_ex(&ch, c->s.rw_rkey, slot, 8, PRISM_CAS_EQ, 0, old, 0,
			       NULL, 0, NULL, NULL);
	prism_op_set_arg_scratch(&ch, op);
	prism_op_set_conditional(&ch, op);
	return retry ? cl_exec_alloc(c, &ch, 0) : cl_exec(c, &ch, true);
}

static int case_kv_put(struct client *c)
{
	static const char e1[] = "key:alpha=value-one";
	static const char e2[] = "key:alpha=value-two";
	const __u64 slot_off = T_AREA + 0x1600;
	const __u64 p0 = rw(c, 4096);	/* old entry: pattern bytes */
	unsigned char b[8];
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	__u64 a;

	setup_u64(c, slot_off, p0);
	m = kv_put(c, rw(c, slot_off), c->s.fl_main, p0, e1, sizeof(e1), true);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "PUT: ALLOC (redirected)");
	prism_put_le64(b, p0);
	cl_expect_op(m, 1, PRISM_S_OK, b, 8, "PUT: CAS returns the old pointer");
	a = mem_u64(c, rw(c, slot_off));
	EXPECT(in_main_list(c, a), "slot points to a new buffer (0x%llx)",
	       (unsigned long long)a);
	if (in_main_list(c, a))
		check_mem(c, a - c->s.rw_addr, e1, sizeof(e1), "PUT entry");

	/* GET: one indirect READ. */
	cl_chain(c, &ch);
	prism_prep_read_indirect(&ch, c->s.rw_rkey, rw(c, slot_off), sizeof(e1));
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, e1, sizeof(e1), "GET after PUT");

	/* A PUT racing with a stale view: its CAS fails, slot unchanged. */
	m = kv_put(c, rw(c, slot_off), c->s.fl_main, p0, e2, sizeof(e2), true);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "stale PUT: ALLOC");
	prism_put_le64(b, a);
	cl_expect_op(m, 1, PRISM_S_CMP_FAILED, b, 8, "stale PUT: CAS fails with the current pointer");
	EXPECT_EQ(mem_u64(c, rw(c, slot_off)), a, "slot after a stale PUT");

	/*
	 * ALLOC fails (empty list) -> the conditional CAS is skipped.  The
	 * small list holds one buffer: take it, unless alloc_empty did.
	 */
	cl_chain(c, &ch);
	prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_small, "x", 1);
	cl_exec(c, &ch, true);
	m = kv_put(c, rw(c, slot_off), c->s.fl_small, a, e2, sizeof(e2), false);
	cl_expect_op(m, 0, PRISM_S_NO_BUFFER, "", 0, "PUT with no buffer: ALLOC");
	cl_expect_op(m, 1, PRISM_S_SKIPPED, "", 0, "PUT with no buffer: CAS skipped");
	EXPECT_EQ(mem_u64(c, rw(c, slot_off)), a, "slot after a PUT without buffer");
	return st_failed;
}

/*
 * PRISM-RS write: WRITE tag -> scratch[8]; ALLOC(value) -> scratch[0];
 * CAS_GT slot {addr, tag} <- scratch[0..16) comparing the tag only.
 */
static const struct prism_msg *rs_write(struct client *c, __u64 slot, __u64 tag,
					const void *val, __u32 len)
{
	unsigned char t[8], cm[16];
	struct prism_chain_buf ch;
	struct prism_op *op;

	prism_put_le64(t, tag);
	memset(cm, 0, 8);
	memset(cm + 8, 0xff, 8);
	cl_chain(c, &ch);
	op = prism_prep_write(&ch, 0, 8, t, 8);
	prism_op_set_addr_scratch(&ch, op);
	op = prism_prep_alloc(&ch, c->s.rw_rkey, c->s.fl_main, val, len);
	prism_op_set_redirect_scratch(&ch, op, 0);
	op = prism_prep_cas_ex(&ch, c->s.rw_rkey, slot, 16, PRISM_CAS_GT, 0, NULL, 0,
			       NULL, 0, cm, NULL);
	prism_op_set_arg_scratch(&ch, op);
	prism_op_set_conditional(&ch, op);
	return cl_exec_alloc(c, &ch, 1);
}

static int case_rs_write(struct client *c)
{
	const __u64 slot_off = T_AREA + 0x1700;
	unsigned char old[16];
	const struct prism_msg *m;
	__u64 a;

	setup_u64(c, slot_off, rw(c, 2048));
	setup_u64(c, slot_off + 8, 5);
	m = rs_write(c, rw(c, slot_off), 7, "value at tag 7", 15);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "RS write: WRITE tag to scratch");
	cl_expect_op(m, 1, PRISM_S_OK, "", 0, "RS write: ALLOC (redirected)");
	prism_put_le64(old, rw(c, 2048));
	prism_put_le64(old + 8, 5);
	cl_expect_op(m, 2, PRISM_S_OK, old, 16, "RS write: CAS_GT 7 > 5");
	a = mem_u64(c, rw(c, slot_off));
	EXPECT(in_main_list(c, a), "slot address is the new buffer (0x%llx)",
	       (unsigned long long)a);
	EXPECT_EQ(mem_u64(c, rw(c, slot_off + 8)), 7, "slot tag");
	if (in_main_list(c, a))
		check_mem(c, a - c->s.rw_addr, "value at tag 7", 15, "RS value");

	/* Older tags lose: 6 and 7 are not > 7. */
	m = rs_write(c, rw(c, slot_off), 6, "value at tag 6", 15);
	prism_put_le64(old, a);
	prism_put_le64(old + 8, 7);
	cl_expect_op(m, 2, PRISM_S_CMP_FAILED, old, 16, "RS write: CAS_GT 6 > 7");
	m = rs_write(c, rw(c, slot_off), 7, "again tag 7", 12);
	cl_expect_op(m, 2, PRISM_S_CMP_FAILED, old, 16, "RS write: CAS_GT 7 > 7");
	EXPECT_EQ(mem_u64(c, rw(c, slot_off)), a, "slot address after losing writes");
	EXPECT_EQ(mem_u64(c, rw(c, slot_off + 8)), 7, "slot tag after losing writes");
	return st_failed;
}

/* ------------------------------------------------------------------------
 * Redirect, scratch, conditional
 */
static int case_redirect(struct client *c)
{
	const __u64 dst = T_AREA + 0x1800;
	unsigned char want[64];
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
	pattern(want, 3000, 16);
	check_mem(c, dst, want, 16, "redirected READ data");

	/* Copy through scratch: READ -> scratch, WRITE from scratch. */
	cl_chain(c, &ch);
	op = prism_prep_read(&ch, c->s.rw_rkey, rw(c, 3100), 64);
	prism_op_set_redirect_scratch(&ch, op, 100);
	op = prism_prep_write_data_indirect(&ch, c->s.rw_rkey, rw(c, dst + 64), 100, 64);
	prism_op_set_arg_scratch(&ch, op);
	m = cl_exec(c, &ch, true);
	cl_expect_op(m, 0, PRISM_S_OK, "", 0, "READ -> scratch");
	cl_expect_op(m, 1, PRISM_S_OK, "", 0, "WRITE from scratch");
	pattern(want, 3100, 64);
	check_mem(c, dst + 64, want, 64, "copy through scratch");

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

static int case_scratch(struct client *c)
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
	if (prism_execute(c->fd, &c->dst, &ch, c->out, sizeof(c->out)) < 0)
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
	pattern(want, 600, 16);
	cl_expect_op(m, 1, PRISM_S_OK, want, 16, "READ via a pointer in scratch");
	return st_failed;
}

static int case_conditional(struct client *c)
{
	unsigned char want[16];
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
	pattern(want, 32, 16);
	cl_expect_op(m, 3, PRISM_S_OK, want, 16, "unconditional READ runs");
	cl_expect_op(m, 4, PRISM_S_CMP_FAILED, NULL, 0, "CAS with a wrong compare");
	cl_expect_op(m, 5, PRISM_S_SKIPPED, "", 0, "conditional READ after CMP_FAILED");
	EXPECT_EQ(mem_u64(c, rw(c, T_AREA + 0x1900)), 1, "skipped WRITE wrote nothing");
	return st_failed;
}

/* ------------------------------------------------------------------------
 * Access violations
 */
static int case_access_auth(struct client *c)
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

static int case_access_bounds(struct client *c)
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

static int case_access_pointer(struct client *c)
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

/* ------------------------------------------------------------------------
 * SEND, endpoints, timeouts
 */
static int case_send(struct client *c)
{
	_Alignas(8) unsigned char rb[2048];
	const struct prism_msg *rm = (const void *)rb;
	struct sockaddr_prism raddr, src;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct timeval tv = { .tv_sec = 10 };
	const void *p;
	__u32 len;
	ssize_t n;
	int r, err;

	if (!c->peer_ns || !c->peer_if) {
		FAIL("needs --peer-ns and --peer-if");
		return 1;
	}
	r = open_in_netns(c->peer_ns, c->peer_if, 0);
	if (r < 0) {
		FAIL("receiver socket in %s: %s", c->peer_ns, errno_name(-r));
		return 1;
	}
	/* The chains below are SEND only and carry no rkey of r. */
	err = prism_set_opt(r, PRISM_OPEN_SEND, 1);
	if (err) {
		FAIL("PRISM_OPEN_SEND on the receiver: %s", errno_name(-err));
		close(r);
		return 1;
	}
	setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	prism_local_addr(r, &raddr);
	prism_addr_init(&raddr, raddr.sprism_mac, raddr.sprism_ep);

	cl_chain(c, &ch);
	prism_prep_send(&ch, "hello prism", 11);
	prism_prep_send(&ch, "second", 6);
	n = prism_execute(c->fd, &raddr, &ch, c->out, sizeof(c->out));
	m = cl_msg(c);
	if (n < 0) {
		FAIL("SEND chain: %s", errno_name((int)-n));
	} else {
		EXPECT_EQ(m->status, PRISM_S_OK, "SEND chain status");
		cl_expect_op(m, 0, PRISM_S_OK, "", 0, "SEND");
		cl_expect_op(m, 1, PRISM_S_OK, "", 0, "SEND");
	}
	n = prism_wait_from(r, rb, sizeof(rb), &src, 0);
	if (n < 0) {
		FAIL("receiving the SEND: %s", errno_name((int)-n));
	} else {
		EXPECT_EQ(rm->kind, PRISM_MSG_SEND, "message kind");
		p = prism_msg_send_data(rm, &len);
		EXPECT_EQ(len, 11, "SEND length");
		if (p && len == 11)
			EXPECT_MEM(p, "hello prism", 11, "SEND data");
		EXPECT_EQ(src.sprism_family, prism_family(), "source family");
		EXPECT_EQ(src.sprism_ep, c->me.sprism_ep, "source endpoint");
		EXPECT_MEM(src.sprism_mac, c->me.sprism_mac, 6, "source MAC");
	}
	n = prism_wait_from(r, rb, sizeof(rb), &src, 0);
	if (n < 0) {
		FAIL("receiving the second SEND: %s", errno_name((int)-n));
	} else {
		p = prism_msg_send_data(rm, &len);
		EXPECT(p && len == 6 && !memcmp(p, "second", 6), "second SEND in order");
	}
	EXPECT_ERR((int)prism_wait_from(r, rb, sizeof(rb), NULL, MSG_DONTWAIT), EAGAIN,
		   "no more messages");

	/* Empty SEND. */
	cl_chain(c, &ch);
	prism_prep_send(&ch, NULL, 0);
	n = prism_execute(c->fd, &raddr, &ch, c->out, sizeof(c->out));
	EXPECT(n > 0 && m->status == PRISM_S_OK, "empty SEND completes OK");
	n = prism_wait_from(r, rb, sizeof(rb), NULL, 0);
	EXPECT_EQ(n, sizeof(struct prism_msg), "empty SEND message size");

	/* A receiver that never reads fills up: RECV_FULL, then exact count. */
	{
		int small = 1, i, ok = 0, full = 0;
		char big[1000];

		setsockopt(r, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
		memset(big, 's', sizeof(big));
		for (i = 0; i < 2000 && !full; i++) {
			cl_chain(c, &ch);
			prism_prep_send(&ch, big, sizeof(big));
			n = prism_execute(c->fd, &raddr, &ch, c->out, sizeof(c->out));
			if (n < 0 || m->status != PRISM_S_OK) {
				FAIL("SEND %d: %s", i, n < 0 ? errno_name((int)-n) :
				     prism_status_str(m->status));
				break;
			}
			if (prism_msg_op_status(m, 0) == PRISM_S_OK)
				ok++;
			else if (prism_msg_op_status(m, 0) == PRISM_S_RECV_FULL)
				full = 1;
			else
				FAIL("SEND %d: op status %s", i,
				     prism_status_str(prism_msg_op_status(m, 0)));
		}
		EXPECT(full, "RECV_FULL after %d SENDs to a receiver that does not read", ok);
		for (i = 0; prism_wait_from(r, rb, sizeof(rb), NULL, MSG_DONTWAIT) > 0; i++)
			;
		EXPECT_EQ(i, ok, "messages queued = SENDs completed OK");
		st_diag("receiver full after %d SENDs of 1000 bytes", ok);
	}
	close(r);
	return st_failed;
}

static int case_no_endpoint(struct client *c)
{
	struct sockaddr_prism dst = c->dst;
	struct prism_chain_buf ch;
	const struct prism_msg *m = cl_msg(c);
	long long t0;
	ssize_t n;

	dst.sprism_ep = 0x7777;		/* nobody bound there */
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 8), 8);
	t0 = now_ms();
	n = prism_execute(c->fd, &dst, &ch, c->out, sizeof(c->out));
	if (n < 0) {
		FAIL("prism_execute: %s", errno_name((int)-n));
		return 1;
	}
	EXPECT_EQ(m->status, PRISM_S_NO_ENDPOINT, "chain status to an unbound endpoint");
	EXPECT_EQ(m->nops, 2, "results");
	EXPECT(now_ms() - t0 < 900, "NO_ENDPOINT answered, not timed out (%lld ms)",
	       now_ms() - t0);
	EXPECT_EQ(m->len, sizeof(*m) + 2 * sizeof(m->res[0]), "completion length");
	return st_failed;
}

static int timed_chain(struct client *c, const struct sockaddr_prism *dst,
		       __u32 timeout_ms, long long *elapsed)
{
	struct prism_chain_buf ch;
	long long t0 = now_ms();
	ssize_t n;

	cl_chain(c, &ch);
	prism_chain_set_timeout(&ch, timeout_ms);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	n = prism_execute(c->fd, dst, &ch, c->out, sizeof(c->out));
	*elapsed = now_ms() - t0;
	if (n < 0)
		return (int)n;
	return cl_msg(c)->status;
}

static int case_timeout(struct client *c)
{
	struct sockaddr_prism dst = c->dst;
	struct prism_stats st0, st1;
	long long el;
	int s;

	prism_get_stats(c->fd, &st0);
	/* A MAC nobody has. */
	prism_parse_mac("02:00:00:00:99:99", dst.sprism_mac);
	s = timed_chain(c, &dst, 300, &el);
	EXPECT_EQ(s, PRISM_S_TIMEOUT, "status of a chain to a missing MAC");
	EXPECT(el >= 280 && el < 5000, "300 ms chain timeout took %lld ms", el);
	/* The server's endpoint id on another MAC must not reach it. */
	prism_parse_mac("02:00:00:00:99:98", dst.sprism_mac);
	s = timed_chain(c, &dst, 200, &el);
	EXPECT_EQ(s, PRISM_S_TIMEOUT, "status of a chain to a wrong MAC");
	/* The socket default applies when the chain says 0. */
	EXPECT_ERR(prism_set_timeout(c->fd, 250), 0, "PRISM_TIMEOUT_MS 250");
	s = timed_chain(c, &dst, 0, &el);
	EXPECT_EQ(s, PRISM_S_TIMEOUT, "status with the socket timeout");
	EXPECT(el >= 230 && el < 5000, "250 ms socket timeout took %lld ms", el);
	prism_get_stats(c->fd, &st1);
	EXPECT_EQ(st1.chains_timed_out - st0.chains_timed_out, 3, "chains_timed_out");
	EXPECT_EQ(st1.chains_completed - st0.chains_completed, 3, "chains_completed");
	/* The real server still answers. */
	s = timed_chain(c, &c->dst, 2000, &el);
	EXPECT_EQ(s, PRISM_S_OK, "status of a chain to the server");
	return st_failed;
}

/*
 * The request-id window is per target: one chain stuck at a silent MAC
 * blocks further chains to that MAC after PRISM_WINDOW newer ones, but
 * not chains to the live server.
 */
static int case_window_per_peer(struct client *c)
{
	const unsigned int live = PRISM_WINDOW + 100;
	struct sockaddr_prism silent = c->dst;
	const struct prism_msg *m = cl_msg(c);
	struct prism_chain_buf ch;
	__u64 silent_ud;
	unsigned int i, ok = 0;
	long long t0;
	int err = 0;
	ssize_t n;

	prism_parse_mac("02:00:00:00:99:95", silent.sprism_mac);
	cl_chain(c, &ch);
	silent_ud = c->next_ud;
	/* Long enough to outlive the loop below even on a slow debug guest. */
	prism_chain_set_timeout(&ch, 20000);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	EXPECT_ERR(prism_submit(c->fd, &silent, &ch), 0, "chain to a silent MAC");
	t0 = now_ms();
	for (i = 0; i < live && !err; i++) {
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 8 * (i % 64)), 8);
		err = prism_submit(c->fd, &c->dst, &ch);
		if (err)
			break;
		n = prism_wait(c->fd, c->out, sizeof(c->out));
		if (n < 0) {
			err = (int)n;
			break;
		}
		if (m->user_data == silent_ud) {
			FAIL("the silent chain completed after %lld ms, during the loop: too slow to test",
			     now_ms() - t0);
			return st_failed;
		}
		if (m->status == PRISM_S_OK && m->user_data == c->next_ud)
			ok++;
	}
	EXPECT_ERR(err, 0, "chains to the live server with one chain stuck elsewhere");
	EXPECT_EQ(ok, live, "chains to the live server answered OK, in order");
	/* The silent target's own window is full: its floor is 600 ids back. */
	cl_chain(c, &ch);
	prism_chain_set_timeout(&ch, 300);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	EXPECT_ERR(prism_submit(c->fd, &silent, &ch), ENOBUFS,
		   "a second chain to the silent MAC, PRISM_WINDOW ids later");
	/* Its deadline frees the window. */
	n = prism_wait(c->fd, c->out, sizeof(c->out));
	EXPECT(n > 0, "completion of the silent chain");
	EXPECT_EQ(m->user_data, silent_ud, "the completion is the silent chain's");
	EXPECT_EQ(m->status, PRISM_S_TIMEOUT, "its status");
	EXPECT_ERR(prism_submit(c->fd, &silent, &ch), 0,
		   "chain to the silent MAC once the old one completed");
	n = prism_wait(c->fd, c->out, sizeof(c->out));
	EXPECT(n > 0 && m->status == PRISM_S_TIMEOUT, "that chain times out too");
	return st_failed;
}

/*
 * A socket talks to at most 4096 targets (its peer table): the 4097th gets
 * ENOBUFS at sendmsg, known targets still work.
 */
#define PEER_LIMIT	4096

static int case_peer_limit(struct client *c)
{
	_Alignas(8) unsigned char buf[256];
	struct sockaddr_prism dst = c->dst;
	struct prism_chain_buf ch;
	unsigned int i, inflight = 0, done = 0;
	int a, err = 0;

	a = prism_open(c->ifname, 0, 0);
	if (a < 0) {
		FAIL("prism_open: %s", errno_name(-a));
		return 1;
	}
	/* Chains to nobody, given up quickly. */
	EXPECT_ERR(prism_set_opt(a, PRISM_RETRIES, 1), 0, "PRISM_RETRIES 1");
	EXPECT_ERR(prism_set_opt(a, PRISM_MAX_OUTSTANDING, PRISM_WINDOW), 0,
		   "PRISM_MAX_OUTSTANDING 512");
	EXPECT_ERR(prism_set_timeout(a, 20), 0, "PRISM_TIMEOUT_MS 20");
	for (i = 0; i < PEER_LIMIT && !err; i++) {
		dst.sprism_mac[0] = 0x02;
		dst.sprism_mac[3] = 0x77;
		dst.sprism_mac[4] = (__u8)(i >> 8);
		dst.sprism_mac[5] = (__u8)i;
		if (inflight == PRISM_WINDOW) {
			if (prism_wait(a, buf, sizeof(buf)) < 0)
				break;
			inflight--;
			done++;
		}
		cl_chain(c, &ch);
		prism_prep_read(&ch, 1, 0, 8);
		err = prism_submit(a, &dst, &ch);
		if (!err)
			inflight++;
	}
	EXPECT_ERR(err, 0, "chains to 4096 different targets");
	for (; inflight; inflight--, done++)
		if (prism_wait(a, buf, sizeof(buf)) < 0)
			break;
	EXPECT_EQ(done, PEER_LIMIT, "their completions");
	/* Nothing in flight: ENOBUFS now can only mean the peer table. */
	dst.sprism_mac[4] = 0xff;
	dst.sprism_mac[5] = 0xff;
	cl_chain(c, &ch);
	prism_prep_read(&ch, 1, 0, 8);
	EXPECT_ERR(prism_submit(a, &dst, &ch), ENOBUFS, "a chain to a 4097th target");
	dst.sprism_mac[4] = 0;
	dst.sprism_mac[5] = 7;
	EXPECT_ERR(prism_submit(a, &dst, &ch), 0, "a chain to a known target");
	EXPECT(prism_wait(a, buf, sizeof(buf)) > 0 &&
	       ((struct prism_msg *)(void *)buf)->status == PRISM_S_TIMEOUT,
	       "its completion (TIMEOUT)");
	close(a);
	return st_failed;
}

/* The server's CPU time does not grow while it serves many chains. */
static int case_cpu_idle(struct client *c)
{
	const __u64 off = T_AREA + 0x1c00;
	long long cpu0, cpu1, cs0, cs1, t0;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	unsigned char b[8];
	int i, n = 400;

	setup_u64(c, off, 0);
	cpu0 = proc_cpu_ticks(c->s.pid);
	cs0 = proc_ctxt_switches(c->s.pid);
	if (cpu0 < 0 || cs0 < 0) {
		FAIL("cannot read /proc/%d/stat or status", (int)c->s.pid);
		return 1;
	}
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, (__u64)i * 8), 64);
		prism_prep_cas_u64(&ch, c->s.rw_rkey, rw(c, off), PRISM_CAS_EQ,
				   (__u64)i, (__u64)i + 1);
		prism_put_le64(b, (__u64)i);
		prism_prep_write(&ch, c->s.rw_rkey, rw(c, off + 8), b, 8);
		m = cl_exec(c, &ch, true);
		if (!m || prism_msg_op_status(m, 1) != PRISM_S_OK) {
			FAIL("chain %d failed", i);
			break;
		}
	}
	cpu1 = proc_cpu_ticks(c->s.pid);
	cs1 = proc_ctxt_switches(c->s.pid);
	st_diag("%d chains (%d ops) in %lld ms; server cpu %lld -> %lld ticks, context switches %lld -> %lld",
		i, 3 * i, now_ms() - t0, cpu0, cpu1, cs0, cs1);
	EXPECT_EQ(mem_u64(c, rw(c, off)), (__u64)n, "counter after the CAS chains");
	EXPECT(cpu1 - cpu0 <= 1, "server CPU time grew by %lld ticks", cpu1 - cpu0);
	EXPECT_EQ(cs1 - cs0, 0, "server context switches (it never woke up)");
	return st_failed;
}

/* ------------------------------------------------------------------------
 * io_uring
 */
/*
 * Chain i of a batch exercises primitive i % RING_KINDS, on its own 64-byte
 * cell of RING_AREA: [0, 8) word A, [8, 16) word B, [16, 48) data.
 */
#define RING_AREA	(T_AREA + 0x4000)	/* 256 cells, up to T_AREA + 0x8000 */
#define RING_CELL	64u
#define RING_DATA	24u

enum ring_kind {
	RK_READ,	/* direct READ of the pattern */
	RK_READ_IND,	/* READ through the pointer in A */
	RK_WRITE,	/* WRITE data, READ it back */
	RK_CAS,		/* CAS A: i -> i + 0x1000 */
	RK_ALLOC,	/* PRISM-KV PUT: ALLOC -> scratch, conditional CAS of A */
	RK_SKIP,	/* failing CAS of B, conditional WRITE skipped */
	RING_KINDS
};

static const char *const ring_kind_name[RING_KINDS] = {
	"READ", "READ indirect", "WRITE+READ", "CAS", "ALLOC+CAS", "CONDITIONAL",
};

static __u64 ring_cell(struct client *c, unsigned int i)
{
	return rw(c, RING_AREA + (__u64)i * RING_CELL);
}

static __u64 ring_pat_off(unsigned int i)
{
	return ((__u64)i * 97) % (PAT_END - 256);
}

static __u32 ring_read_len(unsigned int i)
{
	return 16 + i % 200;
}

static void ring_data(unsigned char *b, unsigned int i)
{
	snprintf((char *)b, RING_DATA, "ring chain %u", i);
}

/* The cells before the batch: pointers, CAS operands, zeroed data. */
static void ring_setup(struct client *c, unsigned int n)
{
	unsigned char *img = calloc(n, RING_CELL);
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned char *cell = img + (size_t)i * RING_CELL;

		switch (i % RING_KINDS) {
		case RK_READ_IND:
			prism_put_le64(cell, rw(c, ring_pat_off(i)));
			break;
		case RK_CAS:
			prism_put_le64(cell, i);
			break;
		case RK_SKIP:
			prism_put_le64(cell + 8, 7);
			break;
		}
	}
	setup(c, RING_AREA, img, (size_t)n * RING_CELL);
	free(img);
}

static void ring_prep(struct client *c, struct prism_chain_buf *ch,
		      unsigned int i)
{
	__u64 rkey = c->s.rw_rkey, cell = ring_cell(c, i);
	unsigned char data[RING_DATA] = { 0 }, cmp[8];
	struct prism_op *op;

	ring_data(data, i);
	switch (i % RING_KINDS) {
	case RK_READ:
		prism_prep_read(ch, rkey, rw(c, ring_pat_off(i)), ring_read_len(i));
		break;
	case RK_READ_IND:
		prism_prep_read_indirect(ch, rkey, cell, 32);
		break;
	case RK_WRITE:
		prism_prep_write(ch, rkey, cell + 16, data, RING_DATA);
		prism_prep_read(ch, rkey, cell + 16, RING_DATA);
		break;
	case RK_CAS:
		prism_prep_cas_u64(ch, rkey, cell, PRISM_CAS_EQ, i, i + 0x1000);
		break;
	case RK_ALLOC:
		op = prism_prep_alloc(ch, rkey, c->s.fl_main, data, RING_DATA);
		prism_op_set_redirect_scratch(ch, op, 0);
		prism_put_le64(cmp, 0);
		op = prism_prep_cas_ex(ch, rkey, cell, 8, PRISM_CAS_EQ, 0, cmp, 0,
				       NULL, 0, NULL, NULL);
		prism_op_set_arg_scratch(ch, op);
		prism_op_set_conditional(ch, op);
		break;
	case RK_SKIP:
		prism_prep_cas_u64(ch, rkey, cell + 8, PRISM_CAS_EQ, 8, 9);
		op = prism_prep_write(ch, rkey, cell + 16, data, RING_DATA);
		prism_op_set_conditional(ch, op);
		break;
	}
}

/* Check chain i's completion; false (and FAIL) if it is wrong. */
static bool ring_check(const struct prism_msg *m, unsigned int i)
{
	unsigned char want[256], data[RING_DATA] = { 0 };
	int before = st_failed;
	__u64 old = ~0ULL;
	bool ok;

	st_failed = 0;
	ring_data(data, i);
	switch (i % RING_KINDS) {
	case RK_READ:
		pattern(want, ring_pat_off(i), ring_read_len(i));
		cl_expect_op(m, 0, PRISM_S_OK, want, ring_read_len(i), "batched READ");
		break;
	case RK_READ_IND:
		pattern(want, ring_pat_off(i), 32);
		cl_expect_op(m, 0, PRISM_S_OK, want, 32, "batched indirect READ");
		break;
	case RK_WRITE:
		cl_expect_op(m, 0, PRISM_S_OK, "", 0, "batched WRITE");
		cl_expect_op(m, 1, PRISM_S_OK, data, RING_DATA, "batched read-back");
		break;
	case RK_CAS:
		cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "batched CAS");
		prism_msg_u64(m, 0, &old);
		EXPECT_EQ(old, i, "batched CAS: old value");
		break;
	case RK_ALLOC:
		cl_expect_op(m, 0, PRISM_S_OK, "", 0, "batched ALLOC (redirected)");
		cl_expect_op(m, 1, PRISM_S_OK, NULL, 0, "batched conditional CAS");
		prism_msg_u64(m, 1, &old);
		EXPECT_EQ(old, 0, "batched conditional CAS: old value");
		break;
	case RK_SKIP:
		cl_expect_op(m, 0, PRISM_S_CMP_FAILED, NULL, 0, "batched failing CAS");
		cl_expect_op(m, 1, PRISM_S_SKIPPED, "", 0, "batched conditional WRITE");
		break;
	}
	ok = !st_failed;
	if (!ok)
		st_diag("chain %u (%s) was wrong", i, ring_kind_name[i % RING_KINDS]);
	st_failed |= before;
	return ok;
}

/* Server memory after the batch: each chain's effect, exactly once. */
static void ring_check_memory(struct client *c, unsigned int n)
{
	unsigned char data[RING_DATA], zero[RING_DATA] = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		__u64 cell = ring_cell(c, i), a;

		memset(data, 0, sizeof(data));
		ring_data(data, i);
		switch (i % RING_KINDS) {
		case RK_WRITE:
			check_mem(c, cell + 16 - c->s.rw_addr, data, RING_DATA,
				  "batched WRITE in memory");
			break;
		case RK_CAS:
			EXPECT_EQ(mem_u64(c, cell), i + 0x1000, "batched CAS in memory");
			break;
		case RK_ALLOC:
			a = mem_u64(c, cell);
			if (!in_main_list(c, a)) {
				FAIL("chain %u: slot holds 0x%llx, not an allocated buffer",
				     i, (unsigned long long)a);
				break;
			}
			check_mem(c, a - c->s.rw_addr, data, RING_DATA,
				  "value in the allocated buffer");
			break;
		case RK_SKIP:
			EXPECT_EQ(mem_u64(c, cell + 8), 7, "failed CAS left B alone");
			check_mem(c, cell + 16 - c->s.rw_addr, zero, RING_DATA,
				  "skipped WRITE left the data alone");
			break;
		}
	}
}

static int ring_batch(struct client *c, unsigned int n, unsigned int flags)
{
	_Alignas(8) unsigned char cb[512];
	struct prism_ring_cqe *ev = calloc(n, sizeof(*ev));
	unsigned char *seen = calloc(n, 1);
	struct prism_chain_buf ch;
	struct prism_ring r;
	unsigned int i, got = 0, good = 0, k;
	long long t0 = now_ms(), end = t0 + 30000, t1, t2;
	int err, rounds = 0;

	ring_setup(c, n);
	err = prism_ring_init(&r, c->fd, n < 8 ? 8 : n, 0, 0, flags);
	if (err) {
		FAIL("prism_ring_init: %s", errno_name(-err));
		return 1;
	}
	t1 = now_ms();
	st_diag("receive mode: %s", prism_ring_multishot(&r) ?
		"multishot RECV + buffer ring" : "plain RECVs");
	if (!(flags & PRISM_RING_NO_MULTISHOT))
		EXPECT(prism_ring_multishot(&r), "multishot RECV available on 6.1");
	for (i = 0; i < n; i++) {
		prism_chain_init(&ch, cb, sizeof(cb), 1000 + i);
		ring_prep(c, &ch, i);
		if (prism_chain_error(&ch))
			FAIL("building chain %u: %s", i, errno_name(-prism_chain_error(&ch)));
		err = prism_ring_queue(&r, &c->dst, &ch);
		if (err)
			FAIL("queue chain %u: %s", i, errno_name(-err));
	}
	/* One io_uring_submit() for the whole batch. */
	err = prism_ring_submit(&r);
	EXPECT_EQ(err, n, "SQEs submitted at once");
	while (got < n && now_ms() < end) {
		int m = prism_ring_reap(&r, ev, n, 1, (int)(end - now_ms()));

		rounds++;
		if (m < 0) {
			FAIL("reap: %s", errno_name(-m));
			break;
		}
		for (k = 0; k < (unsigned int)m; k++) {
			__u64 idx = ev[k].user_data - 1000;

			got++;
			if (ev[k].res || !ev[k].msg || idx >= n) {
				FAIL("event res %s user_data %llu",
				     ev[k].res ? errno_name(-ev[k].res) : "0",
				     (unsigned long long)ev[k].user_data);
				continue;
			}
			if (seen[idx]++) {
				FAIL("chain %llu completed twice", (unsigned long long)idx);
				continue;
			}
			if (ev[k].msg->status != PRISM_S_OK) {
				FAIL("chain %llu status %s", (unsigned long long)idx,
				     prism_status_str(ev[k].msg->status));
				continue;
			}
			if (ring_check(ev[k].msg, (unsigned int)idx))
				good++;
		}
	}
	t2 = now_ms();
	EXPECT_EQ(got, n, "completions");
	EXPECT_EQ(good, n, "completions with the right results");
	EXPECT_EQ(prism_ring_inflight(&r), 0, "chains in flight at the end");
	EXPECT_EQ(prism_ring_reap(&r, ev, n, 1, 300), 0, "no extra completion");
	ring_check_memory(c, n);
	st_diag("%u chains in flight (%s): completed in %lld ms (%d reaps; ring setup %lld ms)",
		n, n < RING_KINDS ? "READ" : "every primitive", t2 - t1, rounds,
		t1 - t0);
	prism_ring_exit(&r);
	free(ev);
	free(seen);
	return st_failed;
}

static int case_ring_1(struct client *c) { return ring_batch(c, 1, 0); }
static int case_ring_16(struct client *c) { return ring_batch(c, 16, 0); }
static int case_ring_256(struct client *c) { return ring_batch(c, 256, 0); }
static int case_ring_256_plain(struct client *c)
{
	return ring_batch(c, 256, PRISM_RING_NO_MULTISHOT);
}

/* ------------------------------------------------------------------------
 * errno checks
 */
static int raw_send(int fd, const struct sockaddr_prism *dst, socklen_t dlen,
		    const void *buf, size_t len, int flags)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_name = (void *)dst, .msg_namelen = dst ? dlen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };

	return sendmsg(fd, &mh, flags) < 0 ? -errno : 0;
}

static int try_bind(int fd, const struct sockaddr_prism *sa, socklen_t len)
{
	return bind(fd, (const struct sockaddr *)sa, len) < 0 ? -errno : 0;
}

static int case_errno_socket(struct client *c)
{
	int fam = prism_family(), a, b, one = 1, v;
	struct sockaddr_prism sa, got;
	struct prism_chain_buf ch;
	_Alignas(8) unsigned char buf[256];
	socklen_t l;
	char path[128], macs[32] = "";
	FILE *f;
	__u8 mac[6] = { 0 };
	struct pollfd pfd;

	a = socket(fam, SOCK_STREAM, 0);
	EXPECT_ERR(a < 0 ? -errno : 0, ESOCKTNOSUPPORT, "socket(SOCK_STREAM)");
	a = socket(fam, SOCK_DGRAM, 1);
	EXPECT_ERR(a < 0 ? -errno : 0, EPROTONOSUPPORT, "socket(protocol 1)");

	a = socket(fam, SOCK_DGRAM, 0);
	if (a < 0) {
		FAIL("socket: %s", errno_name(errno));
		return 1;
	}
	/* Unbound: nothing can be sent. */
	cl_chain(c, &ch);
	prism_prep_read(&ch, 1, 0, 8);
	EXPECT_ERR(prism_submit(a, &c->dst, &ch), ENOTCONN, "sendmsg on an unbound socket");
	EXPECT_ERR((int)prism_wait_from(a, buf, sizeof(buf), NULL, MSG_DONTWAIT), EAGAIN,
		   "recvmsg on an unbound socket");

	memset(&sa, 0, sizeof(sa));
	sa.sprism_family = (__kernel_sa_family_t)fam;
	sa.sprism_ifindex = c->me.sprism_ifindex;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa) - 1), EINVAL, "bind with a short address");
	sa.sprism_family = AF_INET;
	EXPECT_ERR2(try_bind(a, &sa, sizeof(sa)), EINVAL, EAFNOSUPPORT, "bind with family AF_INET");
	sa.sprism_family = (__kernel_sa_family_t)fam;
	sa.sprism_reserved = 1;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), EINVAL, "bind with reserved != 0");
	sa.sprism_reserved = 0;
	sa.sprism_ifindex = 0;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), EINVAL, "bind with ifindex 0");
	sa.sprism_ifindex = 99999;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), ENODEV, "bind to a missing interface");
	sa.sprism_ifindex = c->me.sprism_ifindex;
	sa.sprism_ep = 4242;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), 0, "bind ep 4242");
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), EINVAL, "binding a bound socket again");
	EXPECT_ERR(prism_local_addr(a, &got), 0, "getsockname");
	EXPECT_EQ(got.sprism_family, fam, "getsockname family");
	EXPECT_EQ(got.sprism_ifindex, c->me.sprism_ifindex, "getsockname ifindex");
	EXPECT_EQ(got.sprism_ep, 4242, "getsockname ep");
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", c->ifname);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%31s", macs) != 1)
			macs[0] = '\0';
		fclose(f);
	}
	if (prism_parse_mac(macs, mac))
		FAIL("cannot read %s", path);
	EXPECT_MEM(got.sprism_mac, mac, 6, "getsockname MAC = interface MAC");

	b = socket(fam, SOCK_DGRAM, 0);
	EXPECT_ERR(try_bind(b, &sa, sizeof(sa)), EADDRINUSE, "bind to an endpoint in use");
	close(a);
	EXPECT_ERR(try_bind(b, &sa, sizeof(sa)), 0, "bind after the owner closed");
	close(b);

	/* Automatic endpoint ids are distinct and nonzero. */
	a = prism_open(c->ifname, 0, 0);
	b = prism_open(c->ifname, 0, 0);
	if (a >= 0 && b >= 0) {
		struct sockaddr_prism x, y;

		prism_local_addr(a, &x);
		prism_local_addr(b, &y);
		EXPECT(x.sprism_ep && y.sprism_ep && x.sprism_ep != y.sprism_ep,
		       "automatic endpoints %u and %u", x.sprism_ep, y.sprism_ep);
	} else {
		FAIL("prism_open with ep 0: %s", errno_name(-(a < 0 ? a : b)));
	}
	if (b >= 0)
		close(b);

	/* sendmsg address checks (on a bound socket). */
	EXPECT_ERR(prism_submit(a, NULL, &ch), EDESTADDRREQ, "sendmsg without address");
	EXPECT_ERR(raw_send(a, &c->dst, sizeof(c->dst) - 1, ch.buf, ch.len, 0), EINVAL,
		   "sendmsg with a short address");
	sa = c->dst;
	sa.sprism_ep = 0;
	EXPECT_ERR(prism_submit(a, &sa, &ch), EINVAL, "sendmsg to endpoint 0");
	sa = c->dst;
	sa.sprism_mac[0] |= 1;
	EXPECT_ERR(prism_submit(a, &sa, &ch), EINVAL, "sendmsg to a multicast MAC");
	sa = c->dst;
	sa.sprism_family = AF_INET;
	EXPECT_ERR(prism_submit(a, &sa, &ch), EINVAL, "sendmsg to family AF_INET");
	EXPECT_ERR(raw_send(a, &c->dst, sizeof(c->dst), ch.buf, ch.len, MSG_OOB),
		   EOPNOTSUPP, "sendmsg with MSG_OOB");

	/* Socket options. */
	v = 0;
	EXPECT_ERR(setsockopt(a, SOL_PRISM, PRISM_TIMEOUT_MS, &v, sizeof(v)) ? -errno : 0,
		   EINVAL, "PRISM_TIMEOUT_MS 0");
	v = -5;
	EXPECT_ERR(setsockopt(a, SOL_PRISM, PRISM_TIMEOUT_MS, &v, sizeof(v)) ? -errno : 0,
		   EINVAL, "PRISM_TIMEOUT_MS -5");
	EXPECT_ERR(setsockopt(a, SOL_PRISM, PRISM_TIMEOUT_MS, &one, 2) ? -errno : 0,
		   EINVAL, "PRISM_TIMEOUT_MS with optlen 2");
	EXPECT_ERR(setsockopt(a, SOL_PRISM, 99, &one, sizeof(one)) ? -errno : 0,
		   ENOPROTOOPT, "unknown option");
	EXPECT_ERR(setsockopt(a, SOL_PRISM, PRISM_STATS, &one, sizeof(one)) ? -errno : 0,
		   ENOPROTOOPT, "setting PRISM_STATS");
	EXPECT_ERR(prism_set_opt(a, PRISM_TIMEOUT_MS, 60001), EINVAL, "PRISM_TIMEOUT_MS 60001");
	EXPECT_ERR(prism_set_opt(a, PRISM_TIMEOUT_MS, 1234), 0, "PRISM_TIMEOUT_MS 1234");
	v = 0;
	l = sizeof(v);
	EXPECT_ERR(getsockopt(a, SOL_PRISM, PRISM_TIMEOUT_MS, &v, &l) ? -errno : 0, 0,
		   "get PRISM_TIMEOUT_MS");
	EXPECT_EQ(v, 1234, "PRISM_TIMEOUT_MS read back");
	EXPECT_ERR(prism_set_opt(a, PRISM_RETRIES, 0), EINVAL, "PRISM_RETRIES 0");
	EXPECT_ERR(prism_set_opt(a, PRISM_RETRIES, 65), EINVAL, "PRISM_RETRIES 65");
	EXPECT_ERR(prism_set_opt(a, PRISM_RETRIES, 3), 0, "PRISM_RETRIES 3");
	EXPECT_ERR(prism_set_opt(a, PRISM_MAX_OUTSTANDING, PRISM_WINDOW + 1), EINVAL,
		   "PRISM_MAX_OUTSTANDING beyond PRISM_WINDOW");
	EXPECT_ERR(prism_set_opt(a, PRISM_MAX_OUTSTANDING, 0), EINVAL, "PRISM_MAX_OUTSTANDING 0");

	/* PRISM_MAX_OUTSTANDING: the next chain is refused with ENOBUFS. */
	{
		struct sockaddr_prism nowhere = c->dst;
		int k, err = 0, done = 0;

		prism_parse_mac("02:00:00:00:99:97", nowhere.sprism_mac);
		EXPECT_ERR(prism_set_opt(a, PRISM_MAX_OUTSTANDING, 3), 0,
			   "PRISM_MAX_OUTSTANDING 3");
		for (k = 0; k < 4 && !err; k++) {
			cl_chain(c, &ch);
			prism_chain_set_timeout(&ch, 300);
			prism_prep_read(&ch, 1, 0, 8);
			err = prism_submit(a, &nowhere, &ch);
		}
		EXPECT_EQ(k, 4, "chains tried");
		EXPECT_ERR(err, ENOBUFS, "a 4th chain with 3 outstanding");
		for (k = 0; k < 3; k++) {
			ssize_t n = prism_wait(a, buf, sizeof(buf));

			if (n > 0 && ((struct prism_msg *)(void *)buf)->status == PRISM_S_TIMEOUT)
				done++;
		}
		EXPECT_EQ(done, 3, "the 3 accepted chains time out");
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
		EXPECT_ERR(prism_submit(a, &c->dst, &ch), 0, "submitting again after they completed");
		EXPECT(prism_wait(a, buf, sizeof(buf)) > 0, "its completion");
	}

	/* poll(): POLLIN once a completion is queued. */
	pfd.fd = a;
	pfd.events = POLLIN;
	EXPECT_EQ(poll(&pfd, 1, 0), 0, "poll on an idle socket");
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	EXPECT_ERR(prism_submit(a, &c->dst, &ch), 0, "submit");
	EXPECT_EQ(poll(&pfd, 1, 5000), 1, "poll after submitting");
	EXPECT(pfd.revents & POLLIN, "POLLIN (revents 0x%x)", pfd.revents);
	{
		/* MSG_TRUNC: short buffer, the datagram is consumed. */
		int n = (int)recv(a, buf, 8, 0);

		EXPECT_EQ(n, 8, "recv into 8 bytes");
		EXPECT_ERR((int)prism_wait_from(a, buf, sizeof(buf), NULL, MSG_DONTWAIT),
			   EAGAIN, "the truncated message was consumed");
	}
	close(a);
	return st_failed;
}

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

static int case_errno_chain(struct client *c)
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

static int case_errno_ioctl(struct client *c)
{
	int fd = prism_open(c->ifname, 0, 0);
	struct prism_reg_mr mr;
	unsigned char *mem, *gone;
	__u64 rkey = 0, addrs[4];
	__u32 id = 0, id2;
	int err;

	if (fd < 0) {
		FAIL("prism_open: %s", errno_name(-fd));
		return 1;
	}
	mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 4096);

	EXPECT_ERR(prism_reg_mr(fd, mem, 0, PRISM_ACCESS_ALL, &rkey), EINVAL, "REG_MR of 0 bytes");
	EXPECT_ERR(prism_reg_mr(fd, mem, 4096, 0, &rkey), EINVAL, "REG_MR without access");
	EXPECT_ERR(prism_reg_mr(fd, mem, 4096, PRISM_ACCESS_ALL + 1, &rkey), EINVAL,
		   "REG_MR with an unknown access bit");
	memset(&mr, 0, sizeof(mr));
	mr.addr = (__u64)(uintptr_t)mem;
	mr.len = 4096;
	mr.access = PRISM_ACCESS_ALL;
	mr.reserved = 1;
	EXPECT_ERR(ioctl(fd, PRISM_IOC_REG_MR, &mr) ? -errno : 0, EINVAL, "REG_MR reserved != 0");
	EXPECT_ERR(prism_reg_mr(fd, gone, 4096, PRISM_ACCESS_ALL, &rkey), EFAULT,
		   "REG_MR of unmapped memory");
	EXPECT_ERR(prism_reg_mr(fd, (void *)(uintptr_t)0xffff800000000000ULL, 4096,
				PRISM_ACCESS_ALL, &rkey), EFAULT, "REG_MR of a kernel address");
	EXPECT_ERR(ioctl(fd, PRISM_IOC_REG_MR, (void *)16) ? -errno : 0, EFAULT,
		   "REG_MR with a bad argument pointer");

	err = prism_reg_mr(fd, mem, 8192, PRISM_ACCESS_ALL, &rkey);
	EXPECT_ERR(err, 0, "REG_MR");
	EXPECT(rkey != 0, "rkey is nonzero");
	{
		__u64 rk2 = 0;

		EXPECT_ERR(prism_reg_mr(fd, mem, 4096, PRISM_ACCESS_REMOTE_READ, &rk2), 0,
			   "REG_MR of overlapping memory");
		EXPECT(rk2 && rk2 != rkey, "a distinct rkey per region");
		EXPECT_ERR(prism_dereg_mr(fd, rk2), 0, "DEREG_MR");
		EXPECT_ERR(prism_dereg_mr(fd, rk2), ENOENT, "DEREG_MR twice");
	}
	EXPECT_ERR(prism_dereg_mr(fd, rkey ^ 0x5a5a), ENOENT, "DEREG_MR of an unknown rkey");

	EXPECT_ERR(prism_fl_create(fd, rkey ^ 0x5a5a, 64, 4, &id), ENOENT,
		   "FL_CREATE on an unknown rkey");
	EXPECT_ERR(prism_fl_create(fd, rkey, 0, 4, &id), EINVAL, "FL_CREATE with buf_size 0");
	EXPECT_ERR(prism_fl_create(fd, rkey, 64, 0, &id), EINVAL, "FL_CREATE with capacity 0");
	EXPECT_ERR(prism_fl_create(fd, rkey, 8193, 4, &id), EINVAL,
		   "FL_CREATE with buffers larger than the region");
	EXPECT_ERR(prism_fl_create(fd, rkey, 64, 2, &id), 0, "FL_CREATE");
	EXPECT_ERR(prism_fl_create(fd, rkey, 64, 2, &id2), 0, "second FL_CREATE");
	EXPECT(id != id2, "free list ids differ");
	addrs[0] = (__u64)(uintptr_t)mem;
	addrs[1] = (__u64)(uintptr_t)mem + 64;
	addrs[2] = (__u64)(uintptr_t)mem + 128;
	EXPECT_ERR(prism_fl_post(fd, id ^ 0x77, addrs, 1), ENOENT, "FL_POST to an unknown list");
	EXPECT_ERR(prism_fl_post(fd, id, addrs, 0), EINVAL, "FL_POST of 0 buffers");
	addrs[3] = (__u64)(uintptr_t)mem + 8192 - 32;
	EXPECT_ERR(prism_fl_post(fd, id, addrs + 3, 1), EINVAL,
		   "FL_POST of a buffer crossing the region end");
	addrs[3] = (__u64)(uintptr_t)gone;
	EXPECT_ERR(prism_fl_post(fd, id, addrs + 3, 1), EINVAL,
		   "FL_POST of a buffer outside the region");
	EXPECT_ERR(prism_fl_post(fd, id, addrs, 3), ENOSPC, "FL_POST beyond capacity");
	EXPECT_ERR(prism_fl_post(fd, id, addrs, 2), 0, "FL_POST");
	EXPECT_ERR(prism_fl_post(fd, id, addrs + 2, 1), ENOSPC, "FL_POST to a full list");
	{
		struct prism_fl_post fp = { .id = id, .count = 1, .addrs = 16 };

		EXPECT_ERR(ioctl(fd, PRISM_IOC_FL_POST, &fp) ? -errno : 0, EFAULT,
			   "FL_POST with a bad address array pointer");
	}
	EXPECT_ERR(prism_dereg_mr(fd, rkey), EBUSY, "DEREG_MR of a region with free lists");
	EXPECT_ERR(prism_fl_destroy(fd, id), 0, "FL_DESTROY");
	EXPECT_ERR(prism_fl_destroy(fd, id), ENOENT, "FL_DESTROY twice");
	EXPECT_ERR(prism_fl_destroy(fd, 0x7fffffff), ENOENT, "FL_DESTROY of an unknown list");
	EXPECT_ERR(prism_fl_destroy(fd, id2), 0, "FL_DESTROY");
	EXPECT_ERR(prism_dereg_mr(fd, rkey), 0, "DEREG_MR after its lists are gone");
	EXPECT_ERR(ioctl(fd, _IO(PRISM_IOC_MAGIC, 99), 0) ? -errno : 0, ENOTTY,
		   "unknown ioctl");
	close(fd);
	munmap(mem, 8192);
	return st_failed;
}

/* A region deregistered at the target: later ops fail with AUTH. */
static int case_dereg_auth(struct client *c)
{
	struct sockaddr_prism sa;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	struct prism_stats st0, st1;
	unsigned char *mem;
	__u64 rkey = 0;
	int s;

	if (!c->peer_ns || !c->peer_if) {
		FAIL("needs --peer-ns and --peer-if");
		return 1;
	}
	s = open_in_netns(c->peer_ns, c->peer_if, 0);
	if (s < 0) {
		FAIL("socket in %s: %s", c->peer_ns, errno_name(-s));
		return 1;
	}
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(mem, "private region", 15);
	EXPECT_ERR(prism_reg_mr(s, mem, 4096, PRISM_ACCESS_REMOTE_READ, &rkey), 0, "REG_MR");
	prism_local_addr(s, &sa);
	prism_addr_init(&sa, sa.sprism_mac, sa.sprism_ep);
	prism_get_stats(s, &st0);

	cl_chain(c, &ch);
	prism_prep_read(&ch, rkey, (__u64)(uintptr_t)mem, 15);
	if (prism_execute(c->fd, &sa, &ch, c->out, sizeof(c->out)) < 0)
		FAIL("READ before DEREG failed");
	m = cl_msg(c);
	cl_expect_op(m, 0, PRISM_S_OK, "private region", 15, "READ before DEREG");

	EXPECT_ERR(prism_dereg_mr(s, rkey), 0, "DEREG_MR");
	cl_chain(c, &ch);
	prism_prep_read(&ch, rkey, (__u64)(uintptr_t)mem, 15);
	if (prism_execute(c->fd, &sa, &ch, c->out, sizeof(c->out)) < 0)
		FAIL("READ after DEREG failed");
	/* Its only rkey is gone: refused like a chain to nobody, not run. */
	EXPECT_EQ(m->status, PRISM_S_NO_ENDPOINT, "READ after DEREG: chain status");
	prism_get_stats(s, &st1);
	EXPECT_EQ(st1.chains_served - st0.chains_served, 1, "chains_served at the target");
	EXPECT_EQ(st1.ops_served - st0.ops_served, 1, "ops_served at the target");
	EXPECT_EQ(st1.ops_failed - st0.ops_failed, 0, "ops_failed at the target");
	EXPECT_EQ(st1.unauth_refused - st0.unauth_refused, 1, "unauth_refused at the target");
	close(s);
	return st_failed;
}

static int proc_counter(const char *name, long long *v)
{
	char key[64];
	long long x;
	FILE *f = fopen("/proc/net/prism", "r");
	int found = -1;

	if (!f)
		return -errno;
	while (fscanf(f, "%63s %lld", key, &x) == 2)
		if (!strcmp(key, name)) {
			*v = x;
			found = 0;
		}
	fclose(f);
	return found;
}

static int case_stats(struct client *c)
{
	struct prism_stats st0, st1;
	struct prism_chain_buf ch;
	long long p0 = 0, p1 = 0;
	int i;

	EXPECT_ERR(prism_get_stats(c->fd, &st0), 0, "PRISM_STATS");
	EXPECT_ERR(proc_counter("chains_sent", &p0), 0, "chains_sent in /proc/net/prism");
	for (i = 0; i < 5; i++) {
		cl_chain(c, &ch);
		prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
		prism_prep_read(&ch, c->s.rw_rkey + 1, rw(c, 0), 8);
		cl_exec(c, &ch, true);
	}
	prism_get_stats(c->fd, &st1);
	proc_counter("chains_sent", &p1);
	EXPECT_EQ(st1.chains_sent - st0.chains_sent, 5, "chains_sent");
	EXPECT_EQ(st1.chains_completed - st0.chains_completed, 5, "chains_completed");
	EXPECT_EQ(st1.chains_timed_out - st0.chains_timed_out, 0, "chains_timed_out");
	EXPECT_EQ(p1 - p0, 5, "netns chains_sent");
	{
		static const char *const names[] = {
			"chains_sent", "chains_completed", "chains_timed_out",
			"chains_served", "ops_served", "ops_failed",
			"sends_received", "rx_dropped",
		};
		long long v;
		unsigned int k;

		for (k = 0; k < 8; k++)
			EXPECT(proc_counter(names[k], &v) == 0,
			       "/proc/net/prism has %s", names[k]);
	}
	return st_failed;
}

const struct st_case st_cases[] = {
	{ "read_direct", case_read_direct, "READ: several lengths, 1472 bytes, region end" },
	{ "read_indirect", case_read_indirect, "READ through pointers" },
	{ "read_bounded", case_read_bounded, "READ through {ptr, bound}" },
	{ "write_inline", case_write_inline, "WRITE inline data, guards intact" },
	{ "write_indirect", case_write_indirect, "WRITE through a pointer" },
	{ "write_data_indirect", case_write_data_indirect, "WRITE from region memory" },
	{ "cas_modes", case_cas_modes, "CAS EQ..LE, aligned and unaligned" },
	{ "cas_masks", case_cas_masks, "CAS with compare/swap masks, byte order" },
	{ "cas_wide", case_cas_wide, "16-, 32- and 3-byte CAS" },
	{ "cas_indirect", case_cas_indirect, "CAS via pointer, operands in memory" },
	{ "alloc", case_alloc, "ALLOC returns, fills, redirects" },
	{ "alloc_empty", case_alloc_empty, "ALLOC from empty/unknown lists" },
	{ "kv_put", case_kv_put, "PRISM-KV PUT chain (ALLOC + conditional CAS)" },
	{ "rs_write", case_rs_write, "PRISM-RS write chain (tag, ALLOC, CAS_GT)" },
	{ "redirect", case_redirect, "redirect to region and scratch" },
	{ "scratch", case_scratch, "scratch address space" },
	{ "conditional", case_conditional, "CONDITIONAL ops after failures" },
	{ "access_auth", case_access_auth, "wrong rkey -> AUTH" },
	{ "access_bounds", case_access_bounds, "out of bounds, read-only, no-atomic -> ACCESS" },
	{ "access_pointer", case_access_pointer, "pointers outside the region -> ACCESS" },
	{ "send", case_send, "SEND delivery, source address, RECV_FULL" },
	{ "no_endpoint", case_no_endpoint, "chain to an unbound endpoint" },
	{ "timeout", case_timeout, "chains to missing MACs time out" },
	{ "window_per_peer", case_window_per_peer, "a silent target blocks only its own id window" },
	{ "peer_limit", case_peer_limit, "4096 targets per socket, then ENOBUFS" },
	{ "cpu_idle", case_cpu_idle, "server sleeping in pause() uses no CPU" },
	{ "ring_1", case_ring_1, "io_uring: 1 chain" },
	{ "ring_16", case_ring_16, "io_uring: 16 chains in flight, every primitive" },
	{ "ring_256", case_ring_256, "io_uring: 256 chains in flight, every primitive" },
	{ "ring_256_plain", case_ring_256_plain, "io_uring: 256 chains, plain RECVs" },
	{ "errno_socket", case_errno_socket, "socket/bind/sendmsg/sockopt errors" },
	{ "errno_chain", case_errno_chain, "malformed chains -> EINVAL/EMSGSIZE" },
	{ "errno_ioctl", case_errno_ioctl, "region and free list ioctl errors" },
	{ "dereg_auth", case_dereg_auth, "ops after DEREG_MR -> AUTH" },
	{ "stats", case_stats, "PRISM_STATS and /proc/net/prism" },
	{ NULL, NULL, NULL },
};
