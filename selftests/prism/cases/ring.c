// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: batches of chains in flight through io_uring
 * (liburing-prism's prism_ring), every primitive, multishot and plain RECVs.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

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
	unsigned char data[RING_DATA] = { 0 };
	int before = st_failed;
	__u64 old = ~0ULL;
	bool ok;

	st_failed = 0;
	ring_data(data, i);
	switch (i % RING_KINDS) {
	case RK_READ:
		expect_pattern(m, 0, ring_pat_off(i), ring_read_len(i), "batched READ");
		break;
	case RK_READ_IND:
		expect_pattern(m, 0, ring_pat_off(i), 32, "batched indirect READ");
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
		err = prism_ring_queue(&r, &c->dst.eth, &ch);
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

int case_ring_1(struct client *c) { return ring_batch(c, 1, 0); }
int case_ring_16(struct client *c) { return ring_batch(c, 16, 0); }
int case_ring_256(struct client *c) { return ring_batch(c, 256, 0); }
int case_ring_256_plain(struct client *c)
{
	return ring_batch(c, 256, PRISM_RING_NO_MULTISHOT);
}
