// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: addresses of UDP mode (prism(7), "UDP"): what bind(),
 * sendmsg() and getsockname() refuse or return.  Runs on either kind of
 * client socket: an Ethernet one must refuse UDP destinations.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cases.h"

/* sendmsg() of a one-READ chain to the text address s: 0 or -errno. */
static int send_to(struct client *c, int fd, const char *s)
{
	union prism_sockaddr sa;
	struct prism_chain_buf ch;
	int err = prism_parse_addr(s, &sa);

	if (err) {
		FAIL("parsing %s: %s", s, errno_name(-err));
		return err;
	}
	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, rw(c, 0), 8);
	prism_chain_set_timeout(&ch, 100);
	return prism_submit(fd, &sa.eth, &ch);
}

static int bind_udp(const struct sockaddr_prism_udp *sa, socklen_t len)
{
	int fd = socket(prism_family(), SOCK_DGRAM, 0), err;

	if (fd < 0)
		return -errno;
	err = bind(fd, (const struct sockaddr *)sa, len) ? -errno : 0;
	close(fd);
	return err;
}

static void udp_bind_errors(void)
{
	struct sockaddr_prism_udp sa, any;
	union prism_sockaddr got;
	int fd;

	memset(&any, 0, sizeof(any));
	any.sprism_family = (__kernel_sa_family_t)prism_family();
	any.sprism_kind = PRISM_ADDR_UDP;
	sa = any;
	EXPECT_ERR(bind_udp(&sa, sizeof(struct sockaddr_prism)), EINVAL,
		   "bind to UDP with an Ethernet-sized address");
	sa.sprism_port = htons(1234);
	EXPECT_ERR(bind_udp(&sa, sizeof(sa)), EINVAL, "bind to another UDP port");
	sa = any;
	sa.sprism_ifindex = 1;
	EXPECT_ERR(bind_udp(&sa, sizeof(sa)), EINVAL, "bind to UDP with an interface");
	sa = any;
	sa.sprism_ip[3] = 1;
	EXPECT_ERR(bind_udp(&sa, sizeof(sa)), EINVAL,
		   "bind to any address with an address");
	sa = any;
	sa.sprism_ipfamily = 77;
	EXPECT_ERR(bind_udp(&sa, sizeof(sa)), EAFNOSUPPORT, "bind to IP family 77");
	EXPECT_ERR(prism_addr_from_ip(&sa, "192.0.2.99", 0, 0), 0, "192.0.2.99");
	EXPECT_ERR(bind_udp(&sa, sizeof(sa)), EADDRNOTAVAIL,
		   "bind to an IPv4 address of another host");
	EXPECT_ERR(prism_addr_from_ip(&sa, "2001:db8::99", 0, 0), 0, "2001:db8::99");
	EXPECT_ERR(bind_udp(&sa, sizeof(sa)), EADDRNOTAVAIL,
		   "bind to an IPv6 address of another host");

	/* Bound to any address: no family, the module's port. */
	fd = prism_open_udp(NULL, 0);
	if (fd < 0) {
		FAIL("prism_open_udp(any): %s", errno_name(-fd));
		return;
	}
	EXPECT_ERR(prism_local_addr(fd, &got.eth), 0, "getsockname");
	EXPECT_EQ(got.udp.sprism_kind, PRISM_ADDR_UDP, "getsockname kind");
	EXPECT_EQ(got.udp.sprism_ipfamily, 0, "getsockname family of any");
	EXPECT(got.udp.sprism_ep >= PRISM_EP_EPHEMERAL_MIN, "ephemeral ep");
	EXPECT(ntohs(got.udp.sprism_port) > 0, "getsockname port");
	close(fd);
}

int case_udp_errno(struct client *c)
{
	const struct sockaddr_prism_udp *me = &c->me.udp;
	char peer[PRISM_ADDR_STRLEN];

	if (c->me.eth.sprism_kind == PRISM_ADDR_ETH) {
		EXPECT_ERR(send_to(c, c->fd, "10.0.0.1/5"), EAFNOSUPPORT,
			   "UDP destination on an Ethernet socket");
		return st_failed;
	}
	EXPECT_ERR(send_to(c, c->fd, "02:00:00:00:00:01/5"), EAFNOSUPPORT,
		   "Ethernet destination on a UDP socket");
	EXPECT_ERR(raw_send(c->fd, &c->dst.eth, sizeof(struct sockaddr_prism),
			    "", 0, 0), EINVAL, "UDP destination of 20 bytes");
	EXPECT_ERR(send_to(c, c->fd, "224.0.0.1/5"), EINVAL, "IPv4 multicast");
	EXPECT_ERR(send_to(c, c->fd, "255.255.255.255/5"), EINVAL, "broadcast");
	EXPECT_ERR(send_to(c, c->fd, "0.0.0.0/5"), EINVAL, "0.0.0.0");
	EXPECT_ERR(send_to(c, c->fd, "[ff02::1]/5"), EINVAL, "IPv6 multicast");
	EXPECT_ERR(send_to(c, c->fd, "[::]/5"), EINVAL, "::");
	EXPECT_ERR(send_to(c, c->fd, "[fe80::1]/5"), EINVAL,
		   "link-local IPv6 without an interface");
	snprintf(peer, sizeof(peer), "%s", c->s.addr);
	*strrchr(peer, '/') = 0;
	{
		char s[PRISM_ADDR_STRLEN + 8];

		snprintf(s, sizeof(s), "%s/0", peer);
		EXPECT_ERR(send_to(c, c->fd, s), EINVAL, "endpoint 0");
	}
	if (me->sprism_ipfamily == AF_INET) {
		EXPECT_ERR(send_to(c, c->fd, "[fd00::1]/5"), EAFNOSUPPORT,
			   "IPv6 destination on a socket bound to IPv4");
		EXPECT_ERR(send_to(c, c->fd, "198.51.100.1/5"), ENETUNREACH,
			   "no route to the destination");
	} else if (me->sprism_ipfamily == AF_INET6) {
		EXPECT_ERR(send_to(c, c->fd, "10.0.0.1/5"), EAFNOSUPPORT,
			   "IPv4 destination on a socket bound to IPv6");
		EXPECT_ERR(send_to(c, c->fd, "[2001:db8:99::1]/5"), ENETUNREACH,
			   "no route to the destination");
	}
	udp_bind_errors();
	return st_failed;
}
