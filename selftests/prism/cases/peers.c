// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: chains to other targets: timeouts of chains to missing
 * MACs, the per-target request-id window, the 4096-target peer table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "cases.h"

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

int case_timeout(struct client *c)
{
	struct sockaddr_prism dst = c->dst.eth;
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
	s = timed_chain(c, &c->dst.eth, 2000, &el);
	EXPECT_EQ(s, PRISM_S_OK, "status of a chain to the server");
	return st_failed;
}

/*
 * The request-id window is per target: one chain stuck at a silent MAC
 * blocks further chains to that MAC after PRISM_WINDOW newer ones, but
 * not chains to the live server.
 */
int case_window_per_peer(struct client *c)
{
	const unsigned int live = PRISM_WINDOW + 100;
	struct sockaddr_prism silent = c->dst.eth;
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
		err = prism_submit(c->fd, &c->dst.eth, &ch);
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

int case_peer_limit(struct client *c)
{
	_Alignas(8) unsigned char buf[256];
	struct sockaddr_prism dst = c->dst.eth;
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
