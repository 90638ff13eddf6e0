// SPDX-License-Identifier: MIT
/*
 * Host tests of signals during blocking calls, on an AF_UNIX SOCK_DGRAM
 * socketpair: a handler installed without SA_RESTART makes
 * prism_wait_from(), prism_execute() and prism_ring_reap() return -EINTR
 * instead of waiting on; with SA_RESTART the receive goes on; events that
 * had already arrived are reaped before -EINTR is reported.
 *
 * A poker thread sends SIGALRM to the main thread every 50 ms.  If the
 * call under test still has not returned after 2 s it sends a message to
 * end the wait, so a library that retries after EINTR fails the checks
 * instead of hanging.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "tap.h"

#define POKE_MS		50
#define RESCUE_MS	2000

static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	handled++;
}

static void set_handler(int restart)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	handled = 0;
}

struct poker {
	pthread_t thread, target;
	int peer;		/* the fake target's end of the socketpair */
	__u64 rescue_ud;	/* completion sent to end a wait that goes on */
	int rescue_after_ms;	/* RESCUE_MS, or earlier for SA_RESTART */
	atomic_int done;
	int rescued;
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void send_completion(int fd, __u64 ud)
{
	struct prism_msg m;

	memset(&m, 0, sizeof(m));
	m.kind = PRISM_MSG_COMPLETION;
	m.len = sizeof(m);
	m.user_data = ud;
	if (send(fd, &m, sizeof(m), 0) != (ssize_t)sizeof(m))
		printf("#   send: %s\n", strerror(errno));
}

static void *poker_main(void *arg)
{
	struct poker *p = arg;
	int ms;

	for (ms = 0; !atomic_load(&p->done); ms += POKE_MS) {
		if (ms >= p->rescue_after_ms && !p->rescued) {
			p->rescued = 1;
			send_completion(p->peer, p->rescue_ud);
		}
		if (!p->rescued)
			pthread_kill(p->target, SIGALRM);
		sleep_ms(POKE_MS);
	}
	return NULL;
}

static void poke_start(struct poker *p, int peer, __u64 rescue_ud,
		       int rescue_after_ms)
{
	memset(p, 0, sizeof(*p));
	p->target = pthread_self();
	p->peer = peer;
	p->rescue_ud = rescue_ud;
	p->rescue_after_ms = rescue_after_ms;
	atomic_init(&p->done, 0);
	if (pthread_create(&p->thread, NULL, poker_main, p))
		abort();
}

static void poke_stop(struct poker *p)
{
	atomic_store(&p->done, 1);
	pthread_join(p->thread, NULL);
}

static int pair(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv);
}

/* Nothing outstanding: SIGTERM-style stop of a daemon's receive loop. */
static void test_wait_from_eintr(void)
{
	_Alignas(8) unsigned char buf[256];
	struct sockaddr_prism src;
	struct poker p;
	ssize_t n;
	int sv[2];

	CHECK_EQ(pair(sv), 0);
	set_handler(0);
	poke_start(&p, sv[1], 1, RESCUE_MS);
	n = prism_wait_from(sv[0], buf, sizeof(buf), &src, 0);
	poke_stop(&p);
	CHECK_EQ(n, -EINTR);
	CHECK(handled > 0);
	CHECK_EQ(p.rescued, 0);
	close(sv[0]);
	close(sv[1]);
}

/* SA_RESTART: the kernel restarts recvmsg(), the message still arrives. */
static void test_wait_restart(void)
{
	_Alignas(8) unsigned char buf[256];
	const struct prism_msg *m = (const void *)buf;
	struct poker p;
	ssize_t n;
	int sv[2];

	CHECK_EQ(pair(sv), 0);
	set_handler(1);
	poke_start(&p, sv[1], 7, 5 * POKE_MS);
	n = prism_wait(sv[0], buf, sizeof(buf));
	poke_stop(&p);
	CHECK_EQ(n, sizeof(struct prism_msg));
	CHECK_EQ(n > 0 ? m->user_data : 0, 7);
	CHECK(handled > 0);
	close(sv[0]);
	close(sv[1]);
}

/* Interrupted while waiting for its completion; the chain stays in flight. */
static void test_execute_eintr(void)
{
	_Alignas(8) unsigned char cb[256], out[256];
	const struct prism_msg *m = (const void *)out;
	struct prism_chain_buf c;
	struct poker p;
	ssize_t n;
	int sv[2];

	CHECK_EQ(pair(sv), 0);
	set_handler(0);
	prism_chain_init(&c, cb, sizeof(cb), 42);
	prism_prep_read(&c, 1, 0, 8);
	poke_start(&p, sv[1], 42, RESCUE_MS);
	n = prism_execute(sv[0], NULL, &c, out, sizeof(out));
	poke_stop(&p);
	CHECK_EQ(n, -EINTR);
	CHECK_EQ(p.rescued, 0);
	/* its completion is there for a later wait */
	send_completion(sv[1], 42);
	n = prism_wait(sv[0], out, sizeof(out));
	CHECK_EQ(n, sizeof(struct prism_msg));
	CHECK_EQ(n > 0 ? m->user_data : 0, 42);
	close(sv[0]);
	close(sv[1]);
}

/*
 * prism_ring_reap() with signals arriving and a handler without
 * SA_RESTART.  Nothing arrived (!arrived, min_events 1): -EINTR.  One event
 * had arrived (arrived, min_events 2): it is returned, not -EINTR.
 */
static void ring_reap_signalled(unsigned int flags, int timeout_ms, int arrived)
{
	struct prism_ring_cqe ev[4];
	struct prism_ring r;
	struct poker p;
	int sv[2], n;

	CHECK_EQ(pair(sv), 0);
	set_handler(0);
	CHECK_EQ(prism_ring_init(&r, sv[0], 4, 0, 0, flags), 0);
	if (arrived)
		send_completion(sv[1], 5);
	poke_start(&p, sv[1], arrived ? 6 : 1, RESCUE_MS);
	n = prism_ring_reap(&r, ev, 4, arrived ? 2 : 1, timeout_ms);
	poke_stop(&p);
	CHECK_EQ(n, arrived ? 1 : -EINTR);
	CHECK_EQ(p.rescued, 0);
	if (arrived && n >= 1) {
		CHECK_EQ(ev[0].res, 0);
		CHECK_EQ(ev[0].user_data, 5);
	}
	prism_ring_exit(&r);
	close(sv[0]);
	close(sv[1]);
}

static void test_ring_reap_eintr(void)
{
	ring_reap_signalled(0, -1, 0);
}

static void test_ring_reap_timeout_eintr(void)
{
	ring_reap_signalled(0, 30000, 0);
}

static void test_ring_reap_plain_eintr(void)
{
	ring_reap_signalled(PRISM_RING_NO_MULTISHOT, -1, 0);
}

static void test_ring_reap_arrived_first(void)
{
	ring_reap_signalled(0, -1, 1);
}

static void test_ring_reap_plain_arrived_first(void)
{
	ring_reap_signalled(PRISM_RING_NO_MULTISHOT, -1, 1);
}

int main(void)
{
	tap_plan(8);
	RUN(test_wait_from_eintr);
	RUN(test_wait_restart);
	RUN(test_execute_eintr);
	RUN(test_ring_reap_eintr);
	RUN(test_ring_reap_timeout_eintr);
	RUN(test_ring_reap_plain_eintr);
	RUN(test_ring_reap_arrived_first);
	RUN(test_ring_reap_plain_arrived_first);
	return tap_done();
}
