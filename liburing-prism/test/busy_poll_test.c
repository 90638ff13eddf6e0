// SPDX-License-Identifier: MIT
/*
 * Host tests of the busy-polling waits (prism_busy_poll(3)) against a fake
 * target on a socketpair: spinning waits complete chains without the
 * thread ever sleeping (its voluntary context switches stay put), a spin
 * that runs out falls back to sleeping and still gets its message, and
 * the ring counts which of its waits spun and which slept.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "fake_target.h"
#include "tap.h"

#define N_CHAINS	200
#define LONG_SPIN_US	5000000u	/* far longer than any answer takes */
#define STRAY_SLEEPS	2		/* of N_CHAINS waits: not the waits' own */

/* Times this thread went to sleep (voluntary context switches). */
static long sleeps_of_thread(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw;
}

/* One READ of 8 + i % 64 bytes at i * 100; 1 if its completion is right. */
static int read_ok(const struct prism_msg *m, unsigned int i)
{
	const unsigned char *p;
	__u32 len, k;

	if (m->user_data != i + 1 || m->status != PRISM_S_OK)
		return 0;
	p = prism_msg_data(m, 0, &len);
	if (!p || len != 8 + i % 64)
		return 0;
	for (k = 0; k < len; k++)
		if (p[k] != fake_byte((__u64)i * 100 + k))
			return 0;
	return 1;
}

static void prep(struct prism_chain_buf *c, void *b, size_t blen, unsigned int i)
{
	prism_chain_init(c, b, blen, i + 1);
	prism_prep_read(c, 1, (__u64)i * 100, 8 + i % 64);
}

static void test_execute_spin(void)
{
	_Alignas(8) unsigned char cb[128], out[512];
	struct prism_chain_buf c;
	struct fake_target t;
	unsigned int i, good = 0;
	long before;
	int fd = -1;

	CHECK_EQ(fake_target_start(&t, &fd), 0);
	before = sleeps_of_thread();
	for (i = 0; i < N_CHAINS; i++) {
		prep(&c, cb, sizeof(cb), i);
		if (prism_execute_spin(fd, NULL, &c, out, sizeof(out),
				       LONG_SPIN_US) > 0)
			good += read_ok((const void *)out, i);
	}
	/*
	 * Every wait spun until its answer: this thread did not sleep.  Not
	 * quite never: a page fault can wait for the mmap lock that the
	 * target thread holds (1 in 30 runs saw one sleep).
	 */
	CHECK(sleeps_of_thread() - before <= STRAY_SLEEPS);
	CHECK_EQ(good, N_CHAINS);
	fake_target_stop(&t, fd);
	close(fd);
	CHECK_EQ(t.chains, N_CHAINS);
	CHECK_EQ(t.bad, 0);
}

static void test_spin_dontwait(void)
{
	_Alignas(8) unsigned char out[256];
	int sv[2];

	CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	/* Nothing comes: spins 1 ms, then -EAGAIN instead of sleeping. */
	CHECK_EQ(prism_wait_spin(sv[0], out, sizeof(out), NULL, MSG_DONTWAIT,
				 1000), -EAGAIN);
	fake_send_completion(sv[1], 7);
	CHECK_EQ(prism_wait_spin(sv[0], out, sizeof(out), NULL, MSG_DONTWAIT,
				 1000), (long long)sizeof(struct prism_msg));
	CHECK_EQ(((const struct prism_msg *)out)->user_data, 7);
	/* spin_us 0 is prism_wait_from() */
	CHECK_EQ(prism_wait_spin(sv[0], out, sizeof(out), NULL, MSG_DONTWAIT, 0),
		 -EAGAIN);
	close(sv[0]);
	close(sv[1]);
}

/*
 * The peer of a wait that must run out of spin: it answers (a completion
 * for user_data ud, after reading the chain when read_chain is set) only
 * once the waiting thread is asleep.
 */
struct late_peer {
	int fd;
	pid_t waiter;
	int read_chain;
	__u64 ud;
	int saw_sleep;
	pthread_t thread;
};

/* 1: thread tid is asleep, 0: it is not, -1: cannot tell. */
static int thread_sleeping(pid_t tid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* "tid (comm) state ...": this program's comm holds no ')' */
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state ? state == 'S' : -1;
}

static void *late_peer_main(void *arg)
{
	_Alignas(8) unsigned char in[512];
	struct late_peer *lp = arg;
	int s;

	if (lp->read_chain && recv(lp->fd, in, sizeof(in), 0) <= 0)
		return NULL;
	while ((s = thread_sleeping(lp->waiter)) == 0)
		sched_yield();
	lp->saw_sleep = s == 1;
	fake_send_completion(lp->fd, lp->ud);
	return NULL;
}

static void late_peer_start(struct late_peer *lp, int fd, int read_chain,
			    __u64 ud)
{
	memset(lp, 0, sizeof(*lp));
	lp->fd = fd;
	lp->waiter = gettid();
	lp->read_chain = read_chain;
	lp->ud = ud;
	CHECK_EQ(pthread_create(&lp->thread, NULL, late_peer_main, lp), 0);
}

static void test_spin_falls_back(void)
{
	_Alignas(8) unsigned char out[256];
	struct late_peer lp;
	long before;
	int sv[2];

	CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	before = sleeps_of_thread();
	late_peer_start(&lp, sv[1], 0, 42);
	/* 1 ms of spinning, then a blocking receive, woken by the answer. */
	CHECK_EQ(prism_wait_spin(sv[0], out, sizeof(out), NULL, 0, 1000),
		 (long long)sizeof(struct prism_msg));
	pthread_join(lp.thread, NULL);
	CHECK_EQ(lp.saw_sleep, 1);
	CHECK_EQ(((const struct prism_msg *)out)->user_data, 42);
	CHECK(sleeps_of_thread() - before >= 1);
	close(sv[0]);
	close(sv[1]);
}

/* One chain at a time through a ring: reap(min 1) after each. */
static void test_ring_spin(void)
{
	_Alignas(8) unsigned char cb[128];
	struct prism_ring_spin_stats st;
	struct prism_ring_cqe ev[4];
	struct prism_chain_buf c;
	struct fake_target t;
	struct prism_ring r;
	unsigned int i, good = 0;
	long before;
	int fd = -1, k;

	CHECK_EQ(fake_target_start(&t, &fd), 0);
	CHECK_EQ(prism_ring_init(&r, fd, 8, 0, 0, 0), 0);
	prism_ring_busy_poll(&r, LONG_SPIN_US);
	before = sleeps_of_thread();
	for (i = 0; i < N_CHAINS; i++) {
		prep(&c, cb, sizeof(cb), i);
		CHECK_EQ(prism_ring_queue(&r, NULL, &c), 0);
		k = prism_ring_reap(&r, ev, 4, 1, 10000);
		if (k == 1 && !ev[0].res && ev[0].msg)
			good += read_ok(ev[0].msg, i);
		else
			printf("#   chain %u: reap %d\n", i, k);
	}
	CHECK(sleeps_of_thread() - before <= STRAY_SLEEPS);
	CHECK_EQ(good, N_CHAINS);
	prism_ring_spin_stats(&r, &st);
	/* A wait for the SENDMSG's CQE, another for the completion's. */
	CHECK(st.spun >= N_CHAINS);
	CHECK_EQ(st.slept, 0);
	prism_ring_exit(&r);
	fake_target_stop(&t, fd);
	close(fd);
	CHECK_EQ(t.chains, N_CHAINS);
}

static void test_ring_spin_falls_back(void)
{
	_Alignas(8) unsigned char cb[128];
	struct prism_ring_spin_stats st;
	struct prism_ring_cqe ev[4];
	struct prism_chain_buf c;
	struct late_peer lp;
	struct prism_ring r;
	int sv[2], k;

	CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	CHECK_EQ(prism_ring_init(&r, sv[0], 8, 0, 0, 0), 0);
	prism_ring_busy_poll(&r, 1000);
	late_peer_start(&lp, sv[1], 1, 5);
	prep(&c, cb, sizeof(cb), 4);
	CHECK_EQ(prism_ring_queue(&r, NULL, &c), 0);
	k = prism_ring_reap(&r, ev, 4, 1, 10000);
	pthread_join(lp.thread, NULL);
	CHECK_EQ(k, 1);
	CHECK_EQ(lp.saw_sleep, 1);
	CHECK_EQ(ev[0].user_data, 5);
	prism_ring_spin_stats(&r, &st);
	CHECK(st.slept >= 1);
	/* Turned off: a wait sleeps at once and counts nothing. */
	prism_ring_busy_poll(&r, 0);
	CHECK_EQ(prism_ring_reap(&r, ev, 4, 1, 20), 0);
	prism_ring_spin_stats(&r, &st);
	CHECK(st.slept >= 1);
	prism_ring_exit(&r);
	close(sv[0]);
	close(sv[1]);
}

static void test_so_busy_poll(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), v = -1, err;
	socklen_t l = sizeof(v);

	CHECK(fd >= 0);
	err = prism_busy_poll(fd, 50);
	/* Unprivileged above net.core.busy_read: EPERM, else it is set. */
	if (err == -EPERM) {
		printf("#   SO_BUSY_POLL 50: EPERM (no CAP_NET_ADMIN)\n");
	} else {
		CHECK_EQ(err, 0);
		CHECK_EQ(getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, &l), 0);
		CHECK_EQ(v, 50);
	}
	/* Lowering is always allowed. */
	CHECK_EQ(prism_busy_poll(fd, 0), 0);
	CHECK_EQ(prism_busy_poll(-1, 0), -EBADF);
	close(fd);
}

int main(void)
{
	tap_plan(6);
	RUN(test_execute_spin);
	RUN(test_spin_dontwait);
	RUN(test_spin_falls_back);
	RUN(test_ring_spin);
	RUN(test_ring_spin_falls_back);
	RUN(test_so_busy_poll);
	return tap_done();
}
