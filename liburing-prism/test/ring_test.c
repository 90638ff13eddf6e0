// SPDX-License-Identifier: MIT
/*
 * Host tests of the io_uring layer against a fake target on a socketpair:
 * batches in flight, buffer recycling with few buffers, both receive modes,
 * send failures, truncation and slot exhaustion.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "fake_target.h"
#include "tap.h"

static unsigned int read_len(unsigned int i)
{
	return 8 + (i * 13) % 200;
}

static int check_completion(const struct prism_ring_cqe *e, unsigned int n,
			    unsigned char *seen)
{
	const unsigned char *p;
	__u64 i = e->user_data - 1;
	__u32 len, k;

	if (e->res || !e->msg || i >= n) {
		printf("#   bad event res %d user_data %llu\n", e->res,
		       (unsigned long long)e->user_data);
		return 0;
	}
	if (seen[i]++) {
		printf("#   user_data %llu completed twice\n",
		       (unsigned long long)e->user_data);
		return 0;
	}
	if (e->msg->nops != 1 || e->msg->status != PRISM_S_OK ||
	    prism_msg_op_status(e->msg, 0) != PRISM_S_OK)
		return 0;
	p = prism_msg_data(e->msg, 0, &len);
	if (!p || len != read_len((unsigned int)i))
		return 0;
	for (k = 0; k < len; k++)
		if (p[k] != fake_byte(i * 1000 + k))
			return 0;
	return 1;
}

/* Queue chain id: one READ of len bytes at addr; prism_ring_queue()'s result. */
static int queue_read(struct prism_ring *r, __u64 id, __u64 addr, __u32 len)
{
	_Alignas(8) unsigned char cb[256];
	struct prism_chain_buf c;

	/* The ring copies the chain: cb may go. */
	prism_chain_init(&c, cb, sizeof(cb), id);
	prism_prep_read(&c, 1, addr, len);
	return prism_ring_queue(r, NULL, &c);
}

/* Tear down ring r and the fake target t at the other end of fd. */
static void ring_stop(struct prism_ring *r, struct fake_target *t, int fd)
{
	prism_ring_exit(r);
	fake_target_stop(t, fd);
	close(fd);
}

/* n chains in flight at once, all must complete once with their data. */
static void run_batch(unsigned int n, unsigned int entries, unsigned int nbufs,
		      unsigned int flags)
{
	struct prism_ring_cqe *ev = calloc(n, sizeof(*ev));
	unsigned char *seen = calloc(n, 1);
	struct fake_target t;
	struct prism_ring r;
	unsigned int i, got = 0, good = 0;
	int fd = -1, k, tries = 0;

	CHECK_EQ(fake_target_start(&t, &fd), 0);
	CHECK_EQ(prism_ring_init(&r, fd, entries, nbufs, 0, flags), 0);
	CHECK_EQ(prism_ring_multishot(&r), !(flags & PRISM_RING_NO_MULTISHOT));
	for (i = 0; i < n; i++)
		CHECK_EQ(queue_read(&r, i + 1, (__u64)i * 1000, read_len(i)), 0);
	CHECK_EQ(prism_ring_inflight(&r), n);
	CHECK(prism_ring_submit(&r) >= 0);
	while (got < n && tries++ < 10000) {
		k = prism_ring_reap(&r, ev, n, 1, 5000);
		if (k <= 0) {
			printf("#   reap returned %d after %u\n", k, got);
			break;
		}
		for (i = 0; i < (unsigned int)k; i++)
			good += check_completion(&ev[i], n, seen);
		got += (unsigned int)k;
	}
	CHECK_EQ(got, n);
	CHECK_EQ(good, n);
	CHECK_EQ(prism_ring_inflight(&r), 0);
	/* With fewer buffers than completions, multishot RECV ran dry. */
	if (!(flags & PRISM_RING_NO_MULTISHOT) && nbufs && nbufs < n)
		CHECK(r.rearms > 0);
	/* Nothing more arrives. */
	CHECK_EQ(prism_ring_reap(&r, ev, n, 1, 50), 0);
	ring_stop(&r, &t, fd);
	CHECK_EQ(t.bad, 0);
	CHECK_EQ(t.chains, n);
	free(ev);
	free(seen);
}

static void test_batch_1(void)
{
	run_batch(1, 8, 0, 0);
}

static void test_batch_16(void)
{
	run_batch(16, 16, 0, 0);
}

static void test_batch_256(void)
{
	run_batch(256, 256, 0, 0);
}

static void test_batch_256_few_buffers(void)
{
	/* 16 buffers for 256 completions: multishot stops and is re-armed. */
	run_batch(256, 256, 16, 0);
}

static void test_batch_plain_1(void)
{
	run_batch(1, 8, 0, PRISM_RING_NO_MULTISHOT);
}

static void test_batch_plain_256(void)
{
	run_batch(256, 256, 0, PRISM_RING_NO_MULTISHOT);
}

static void test_batch_plain_few_buffers(void)
{
	run_batch(100, 128, 16, PRISM_RING_NO_MULTISHOT);
}

struct cb_state {
	unsigned int n, good, events;
	unsigned char seen[64];
};

static void count_cb(void *arg, const struct prism_ring_cqe *e)
{
	struct cb_state *s = arg;

	s->events++;
	s->good += check_completion(e, s->n, s->seen);
}

static void test_callback(void)
{
	struct cb_state s = { .n = 40 };
	struct fake_target t;
	struct prism_ring r;
	int fd = -1, tries = 0;
	unsigned int i;

	CHECK_EQ(fake_target_start(&t, &fd), 0);
	CHECK_EQ(prism_ring_init(&r, fd, 64, 0, 0, 0), 0);
	for (i = 0; i < s.n; i++)
		CHECK_EQ(queue_read(&r, i + 1, (__u64)i * 1000, read_len(i)), 0);
	/* reap submits what is queued */
	while (s.events < s.n && tries++ < 1000)
		if (prism_ring_run(&r, count_cb, &s, s.n - s.events, 5000) <= 0)
			break;
	CHECK_EQ(s.events, s.n);
	CHECK_EQ(s.good, s.n);
	ring_stop(&r, &t, fd);
}

static void test_slots_busy(void)
{
	_Alignas(8) unsigned char cb[256];
	struct prism_ring_cqe ev[8];
	struct prism_chain_buf c;
	struct fake_target t;
	struct prism_ring r;
	int fd = -1, i, n = 0;

	CHECK_EQ(fake_target_start(&t, &fd), 0);
	CHECK_EQ(prism_ring_init(&r, fd, 4, 0, 0, 0), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(queue_read(&r, (__u64)i + 1, 0, 8), 0);
	CHECK_EQ(queue_read(&r, 5, 0, 8), -EBUSY);
	while (n < 4) {
		int k = prism_ring_reap(&r, ev, 8, 1, 5000);

		if (k <= 0)
			break;
		n += k;
	}
	CHECK_EQ(n, 4);
	/* SENDMSG CQEs came back, so the slots are free again. */
	CHECK_EQ(queue_read(&r, 5, 0, 8), 0);
	CHECK_EQ(prism_ring_reap(&r, ev, 8, 1, 5000), 1);
	CHECK(ev[0].user_data == 5 && ev[0].res == 0);

	/* Invalid chains are refused without queueing. */
	prism_chain_init(&c, cb, sizeof(cb), 6);
	CHECK_EQ(prism_ring_queue(&r, NULL, &c), -EINVAL);
	CHECK_EQ(prism_ring_inflight(&r), 0);
	ring_stop(&r, &t, fd);
}

static void test_send_error(void)
{
	struct prism_ring_cqe ev[4];
	struct prism_ring r;
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	CHECK(fd >= 0);
	CHECK_EQ(prism_ring_init(&r, fd, 4, 0, 0, 0), 0);
	CHECK_EQ(queue_read(&r, 77, 0, 8), 0);
	CHECK_EQ(prism_ring_reap(&r, ev, 4, 1, 5000), 1);
	CHECK(ev[0].user_data == 77);
	CHECK(ev[0].res == -ENOTCONN || ev[0].res == -EDESTADDRREQ);
	CHECK(ev[0].msg == NULL);
	CHECK_EQ(prism_ring_inflight(&r), 0);
	prism_ring_exit(&r);
	close(fd);
}

static void test_truncated(void)
{
	struct prism_ring_cqe ev[4];
	struct fake_target t;
	struct prism_ring r;
	unsigned int mode;
	int fd = -1;

	for (mode = 0; mode < 2; mode++) {
		CHECK_EQ(fake_target_start(&t, &fd), 0);
		CHECK_EQ(prism_ring_init(&r, fd, 4, 16, 64,
					 mode ? PRISM_RING_NO_MULTISHOT : 0), 0);
		CHECK_EQ(queue_read(&r, 9, 0, 200), 0);
		CHECK_EQ(prism_ring_reap(&r, ev, 4, 1, 5000), 1);
		CHECK_EQ(ev[0].res, -EMSGSIZE);
		CHECK(ev[0].user_data == 9);
		CHECK(ev[0].msg == NULL);
		CHECK_EQ(prism_ring_inflight(&r), 0);
		ring_stop(&r, &t, fd);
	}
}

/* Queue a WRITE of len bytes of fake_byte() data at addr, as chain id. */
static int queue_write(struct prism_ring *r, __u64 id, __u64 addr, __u32 len)
{
	size_t cap = sizeof(struct prism_chain) + sizeof(struct prism_op) + len;
	unsigned char *cb = aligned_alloc(8, cap), *data = malloc(len);
	struct prism_chain_buf c;
	__u32 k;
	int err = -ENOMEM;

	if (cb && data) {
		for (k = 0; k < len; k++)
			data[k] = fake_byte(addr + k);
		prism_chain_init(&c, cb, cap, id);
		prism_prep_write(&c, 1, addr, data, len);
		err = prism_ring_queue(r, NULL, &c);
	}
	free(cb);
	free(data);
	return err;
}

/*
 * Ops larger than the old 64 KiB limit (up to 1 MiB where the socketpair
 * carries it) through the ring, with buffers of exactly the READ's
 * completion size; and a WRITE of PRISM_MAX_OP_DATA, which the ring
 * queues whatever the socketpair then makes of it.
 */
static void test_large(void)
{
	_Alignas(8) unsigned char cb[256];
	struct prism_ring_cqe ev[1];
	struct prism_chain_buf c;
	const unsigned char *p;
	struct fake_target t;
	struct prism_ring r;
	unsigned int mode, n;
	size_t bad;
	ssize_t need;
	__u32 len, got, k;
	int fd = -1;

	for (mode = 0; mode < 2; mode++) {
		CHECK_EQ(fake_target_start(&t, &fd), 0);
		len = fake_large_len(&t, fd);
		CHECK(len >= 128 << 10);
		prism_chain_init(&c, cb, sizeof(cb), 2);
		prism_prep_read(&c, 1, 0x200000, len);
		need = prism_chain_completion_size(&c);
		CHECK_EQ(need, 16 + 16 + len);
		CHECK_EQ(prism_ring_init(&r, fd, 4, 16, (unsigned int)need,
					 mode ? PRISM_RING_NO_MULTISHOT : 0), 0);
		CHECK_EQ(queue_write(&r, 1, 0x10000, len), 0);
		CHECK_EQ(prism_ring_queue(&r, NULL, &c), 0);
		CHECK_EQ(queue_write(&r, 3, 0x400000, PRISM_MAX_OP_DATA), 0);
		CHECK_EQ(prism_ring_inflight(&r), 3);
		/* A message is valid until the next reap: check each at once. */
		for (n = 0; n < 3 && prism_ring_reap(&r, ev, 1, 1, 5000) == 1; n++) {
			switch (ev[0].user_data) {
			case 1:
				CHECK(ev[0].res == 0 && ev[0].len == 32 &&
				      ev[0].msg->status == PRISM_S_OK);
				break;
			case 2:
				CHECK_EQ(ev[0].res, 0);
				CHECK_EQ(ev[0].len, need);
				got = 0;
				p = ev[0].msg ? prism_msg_data(ev[0].msg, 0, &got) : NULL;
				CHECK(p && got == len);
				for (k = 0, bad = 0; p && k < got; k++)
					bad += p[k] != fake_byte(0x200000 + k);
				CHECK_EQ(bad, 0);
				break;
			case 3:
				/* Sent whole, or refused whole by AF_UNIX. */
				if (len == PRISM_MAX_OP_DATA)
					CHECK(ev[0].res == 0 && ev[0].len == 32);
				else
					CHECK_EQ(ev[0].res, -EMSGSIZE);
				break;
			default:
				CHECK(0);
			}
		}
		CHECK_EQ(n, 3);
		CHECK_EQ(prism_ring_inflight(&r), 0);
		ring_stop(&r, &t, fd);
		CHECK_EQ(t.bad, 0);
		CHECK_EQ(t.write_bytes,
			 len + (len == PRISM_MAX_OP_DATA ? PRISM_MAX_OP_DATA : 0));
	}
}

static void test_init_errors(void)
{
	struct prism_ring r;

	CHECK_EQ(prism_ring_init(&r, 0, 0, 0, 0, 0), -EINVAL);
	CHECK_EQ(prism_ring_init(&r, -1, 4, 0, 0, 0), -EINVAL);
	CHECK_EQ(prism_ring_init(&r, 0, 4, 0, 8, 0), -EINVAL);
	CHECK_EQ(prism_ring_init(&r, 0, 4, 65536, 0, 0), -EINVAL);
}

int main(void)
{
	tap_plan(13);
	RUN(test_batch_1);
	RUN(test_batch_16);
	RUN(test_batch_256);
	RUN(test_batch_256_few_buffers);
	RUN(test_batch_plain_1);
	RUN(test_batch_plain_256);
	RUN(test_batch_plain_few_buffers);
	RUN(test_callback);
	RUN(test_slots_busy);
	RUN(test_send_error);
	RUN(test_truncated);
	RUN(test_large);
	RUN(test_init_errors);
	return tap_done();
}
