// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: SEND to a receiving socket (delivery, source address,
 * RECV_FULL), and chains to an unbound endpoint.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cases.h"

int case_send(struct client *c)
{
	_Alignas(8) unsigned char rb[2048];
	const struct prism_msg *rm = (const void *)rb;
	union prism_sockaddr raddr, src;
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
	prism_local_addr(r, &raddr.eth);
	/* A UDP socket's own address is a destination as it is. */
	if (raddr.eth.sprism_kind == PRISM_ADDR_ETH)
		prism_addr_init(&raddr.eth, raddr.eth.sprism_mac,
				raddr.eth.sprism_ep);

	cl_chain(c, &ch);
	prism_prep_send(&ch, "hello prism", 11);
	prism_prep_send(&ch, "second", 6);
	n = prism_execute(c->fd, &raddr.eth, &ch, c->out, sizeof(c->out));
	m = cl_msg(c);
	if (n < 0) {
		FAIL("SEND chain: %s", errno_name((int)-n));
	} else {
		EXPECT_EQ(m->status, PRISM_S_OK, "SEND chain status");
		cl_expect_op(m, 0, PRISM_S_OK, "", 0, "SEND");
		cl_expect_op(m, 1, PRISM_S_OK, "", 0, "SEND");
	}
	n = prism_wait_from(r, rb, sizeof(rb), &src.eth, 0);
	if (n < 0) {
		FAIL("receiving the SEND: %s", errno_name((int)-n));
	} else {
		EXPECT_EQ(rm->kind, PRISM_MSG_SEND, "message kind");
		p = prism_msg_send_data(rm, &len);
		EXPECT_EQ(len, 11, "SEND length");
		if (p && len == 11)
			EXPECT_MEM(p, "hello prism", 11, "SEND data");
		EXPECT_EQ(src.eth.sprism_family, prism_family(), "source family");
		EXPECT_EQ(src.eth.sprism_kind, c->me.eth.sprism_kind, "source kind");
		EXPECT_EQ(src.eth.sprism_ep, c->me.eth.sprism_ep, "source endpoint");
		if (src.eth.sprism_kind == PRISM_ADDR_UDP)
			EXPECT_MEM(src.udp.sprism_ip, c->me.udp.sprism_ip, 16,
				   "source IP address");
		else
			EXPECT_MEM(src.eth.sprism_mac, c->me.eth.sprism_mac, 6,
				   "source MAC");
	}
	n = prism_wait_from(r, rb, sizeof(rb), &src.eth, 0);
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
	n = prism_execute(c->fd, &raddr.eth, &ch, c->out, sizeof(c->out));
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
			n = prism_execute(c->fd, &raddr.eth, &ch, c->out, sizeof(c->out));
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

int case_no_endpoint(struct client *c)
{
	union prism_sockaddr dst = c->dst;
	struct prism_chain_buf ch;
	const struct prism_msg *m = cl_msg(c);
	long long t0;
	ssize_t n;

	dst.eth.sprism_ep = 0x7777;	/* nobody bound there */
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 8), 8);
	t0 = now_ms();
	n = prism_execute(c->fd, &dst.eth, &ch, c->out, sizeof(c->out));
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
