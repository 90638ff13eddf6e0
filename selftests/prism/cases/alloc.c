// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: ALLOC from free lists, and the PRISM-KV PUT and
 * PRISM-RS write chains built on it.
 */
#define _GNU_SOURCE
#include <string.h>

#include "cases.h"

int case_alloc(struct client *c)
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

int case_alloc_empty(struct client *c)
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

int case_kv_put(struct client *c)
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

int case_rs_write(struct client *c)
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
