// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: socket API errors: socket(), bind(), sendmsg() address
 * checks, socket options, PRISM_MAX_OUTSTANDING, poll(), MSG_TRUNC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cases.h"

static int try_bind(int fd, const struct sockaddr_prism *sa, socklen_t len)
{
	return bind(fd, (const struct sockaddr *)sa, len) < 0 ? -errno : 0;
}

int case_errno_socket(struct client *c)
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
	EXPECT_ERR(prism_submit(a, &c->dst.eth, &ch), ENOTCONN, "sendmsg on an unbound socket");
	EXPECT_ERR((int)prism_wait_from(a, buf, sizeof(buf), NULL, MSG_DONTWAIT), EAGAIN,
		   "recvmsg on an unbound socket");

	memset(&sa, 0, sizeof(sa));
	sa.sprism_family = (__kernel_sa_family_t)fam;
	sa.sprism_ifindex = c->me.eth.sprism_ifindex;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa) - 1), EINVAL, "bind with a short address");
	sa.sprism_family = AF_INET;
	EXPECT_ERR2(try_bind(a, &sa, sizeof(sa)), EINVAL, EAFNOSUPPORT, "bind with family AF_INET");
	sa.sprism_family = (__kernel_sa_family_t)fam;
	sa.sprism_kind = 7;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), EINVAL, "bind with an unknown address kind");
	sa.sprism_kind = PRISM_ADDR_UDP;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), EINVAL, "bind to UDP with an Ethernet-sized address");
	sa.sprism_kind = PRISM_ADDR_ETH;
	sa.sprism_ifindex = 0;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), EINVAL, "bind with ifindex 0");
	sa.sprism_ifindex = 99999;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), ENODEV, "bind to a missing interface");
	sa.sprism_ifindex = c->me.eth.sprism_ifindex;
	sa.sprism_ep = 4242;
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), 0, "bind ep 4242");
	EXPECT_ERR(try_bind(a, &sa, sizeof(sa)), EINVAL, "binding a bound socket again");
	EXPECT_ERR(prism_local_addr(a, &got), 0, "getsockname");
	EXPECT_EQ(got.sprism_family, fam, "getsockname family");
	EXPECT_EQ(got.sprism_ifindex, c->me.eth.sprism_ifindex, "getsockname ifindex");
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
	EXPECT_ERR(raw_send(a, &c->dst.eth, sizeof(c->dst.eth) - 1, ch.buf, ch.len, 0), EINVAL,
		   "sendmsg with a short address");
	sa = c->dst.eth;
	sa.sprism_ep = 0;
	EXPECT_ERR(prism_submit(a, &sa, &ch), EINVAL, "sendmsg to endpoint 0");
	sa = c->dst.eth;
	sa.sprism_mac[0] |= 1;
	EXPECT_ERR(prism_submit(a, &sa, &ch), EINVAL, "sendmsg to a multicast MAC");
	sa = c->dst.eth;
	sa.sprism_family = AF_INET;
	EXPECT_ERR(prism_submit(a, &sa, &ch), EINVAL, "sendmsg to family AF_INET");
	EXPECT_ERR(raw_send(a, &c->dst.eth, sizeof(c->dst.eth), ch.buf, ch.len, MSG_OOB),
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
		struct sockaddr_prism nowhere = c->dst.eth;
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
		EXPECT_ERR(prism_submit(a, &c->dst.eth, &ch), 0, "submitting again after they completed");
		EXPECT(prism_wait(a, buf, sizeof(buf)) > 0, "its completion");
	}

	/* poll(): POLLIN once a completion is queued. */
	pfd.fd = a;
	pfd.events = POLLIN;
	EXPECT_EQ(poll(&pfd, 1, 0), 0, "poll on an idle socket");
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	EXPECT_ERR(prism_submit(a, &c->dst.eth, &ch), 0, "submit");
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
