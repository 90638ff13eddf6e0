// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: busy-polling waits (liburing-prism's prism_busy_poll(3)).
 * Chains complete with the right results while the client spins instead
 * of sleeping (blocking calls and io_uring), and SO_BUSY_POLL is accepted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "cases.h"

#define BP_CHAINS	64
#define BP_SPIN_US	2000000u	/* far above a round trip: never runs out */
#define BP_WORD		(T_AREA + 0x1f00)	/* CAS counter */

static long bp_sleeps(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

/* Chain i: even a READ of the pattern, odd a CAS of the counter i/2 -> +1. */
static void bp_prep(struct client *c, struct prism_chain_buf *ch, unsigned int i)
{
	cl_chain(c, ch);
	if (i % 2)
		prism_prep_cas_u64(ch, c->s.rw_rkey, rw(c, BP_WORD), PRISM_CAS_EQ,
				   i / 2, i / 2 + 1);
	else
		prism_prep_read(ch, c->s.rw_rkey, rw(c, (__u64)i * 97), 16 + i);
}

/* Check chain i's completion; returns 1 when it is right. */
static int bp_check(const struct prism_msg *m, unsigned int i)
{
	int before = st_failed;
	__u64 old = ~0ULL;
	int ok;

	st_failed = 0;
	if (m->status != PRISM_S_OK) {
		FAIL("chain %u: status %s", i, prism_status_str(m->status));
	} else if (i % 2) {
		cl_expect_op(m, 0, PRISM_S_OK, NULL, 0, "CAS while spinning");
		prism_msg_u64(m, 0, &old);
		EXPECT_EQ(old, i / 2, "CAS while spinning: old value");
	} else {
		expect_pattern(m, 0, (__u64)i * 97, 16 + i, "READ while spinning");
	}
	ok = !st_failed;
	st_failed |= before;
	return ok;
}

int case_busy_poll_execute(struct client *c)
{
	struct prism_chain_buf ch;
	unsigned int i, good = 0;
	int v = -1, napi = -1;
	socklen_t l = sizeof(v);
	long before, slept;
	ssize_t n;

	/* SO_BUSY_POLL: root may raise it, and reads it back. */
	EXPECT_EQ(prism_busy_poll(c->fd, 50), 0, "SO_BUSY_POLL 50");
	EXPECT_EQ(getsockopt(c->fd, SOL_SOCKET, SO_BUSY_POLL, &v, &l), 0,
		  "getsockopt SO_BUSY_POLL");
	EXPECT_EQ(v, 50, "SO_BUSY_POLL read back");
	setup_u64(c, BP_WORD, 0);
	before = bp_sleeps();
	for (i = 0; i < BP_CHAINS; i++) {
		bp_prep(c, &ch, i);
		n = prism_execute_spin(c->fd, &c->dst.eth, &ch, c->out, sizeof(c->out),
				       BP_SPIN_US);
		if (n < 0) {
			FAIL("chain %u: %s", i, errno_name((int)-n));
			continue;
		}
		good += bp_check(cl_msg(c), i);
	}
	slept = bp_sleeps() - before;
	EXPECT_EQ(good, BP_CHAINS, "chains completed right while spinning");
	EXPECT_EQ(slept, 0, "times the client slept while spinning");
	EXPECT_EQ(mem_u64(c, rw(c, BP_WORD)), BP_CHAINS / 2, "CASes applied once");
	/* The NAPI id of the last response: veth has no NAPI without GRO/XDP. */
	l = sizeof(napi);
	EXPECT_EQ(getsockopt(c->fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &napi, &l), 0,
		  "getsockopt SO_INCOMING_NAPI_ID");
	st_diag("NAPI id of the responses: %d (0: the device has no NAPI)", napi);
	EXPECT_EQ(prism_busy_poll(c->fd, 0), 0, "SO_BUSY_POLL off");
	return st_failed;
}

int case_busy_poll_ring(struct client *c)
{
	struct prism_ring_spin_stats st;
	struct prism_ring_cqe ev[2];
	struct prism_chain_buf ch;
	struct prism_ring r;
	unsigned int i, good = 0;
	long before, slept;
	int err, k;

	err = prism_ring_init(&r, c->fd, 8, 0, 0, 0);
	if (err) {
		FAIL("prism_ring_init: %s", errno_name(-err));
		return st_failed;
	}
	prism_ring_busy_poll(&r, BP_SPIN_US);
	setup_u64(c, BP_WORD, 0);
	before = bp_sleeps();
	for (i = 0; i < BP_CHAINS; i++) {
		bp_prep(c, &ch, i);
		err = prism_ring_queue(&r, &c->dst.eth, &ch);
		k = err ? err : prism_ring_reap(&r, ev, 2, 1, 10000);
		if (k != 1 || ev[0].res || !ev[0].msg) {
			FAIL("chain %u: queue/reap %d res %d", i, k, k == 1 ? ev[0].res : 0);
			continue;
		}
		good += bp_check(ev[0].msg, i);
	}
	slept = bp_sleeps() - before;
	prism_ring_spin_stats(&r, &st);
	EXPECT_EQ(good, BP_CHAINS, "chains completed right by a spinning ring");
	EXPECT_EQ(slept, 0, "times the client slept while spinning");
	EXPECT_EQ(st.slept, 0, "ring waits that went to sleep");
	EXPECT(st.spun >= BP_CHAINS, "every chain's wait ended while spinning");
	EXPECT_EQ(mem_u64(c, rw(c, BP_WORD)), BP_CHAINS / 2, "CASes applied once");
	st_diag("ring waits: %llu spun, %llu slept", st.spun, st.slept);
	prism_ring_exit(&r);
	return st_failed;
}
