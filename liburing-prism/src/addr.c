// SPDX-License-Identifier: MIT
/*
 * UDP addresses (prism(7), "UDP"): from and to text, and sockets bound to
 * an IP address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"

int prism_addr_from_ip(struct sockaddr_prism_udp *sa, const char *ip,
		       unsigned int port, __u32 ep)
{
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	const char *scope;
	size_t n;

	if (!ip || port > 65535)
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	sa->sprism_family = (__kernel_sa_family_t)prism_family();
	sa->sprism_kind = PRISM_ADDR_UDP;
	sa->sprism_ep = ep;
	sa->sprism_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, ip, sa->sprism_ip) == 1) {
		sa->sprism_ipfamily = AF_INET;
		return 0;
	}
	scope = strchr(ip, '%');
	n = scope ? (size_t)(scope - ip) : strlen(ip);
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, ip, n);
	buf[n] = 0;
	if (inet_pton(AF_INET6, buf, sa->sprism_ip) != 1)
		return -EINVAL;
	sa->sprism_ipfamily = AF_INET6;
	if (scope) {
		sa->sprism_ifindex = (int)if_nametoindex(scope + 1);
		if (!sa->sprism_ifindex)
			return -ENODEV;
	}
	return 0;
}

int prism_parse_addr(const char *s, union prism_sockaddr *sa)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	const char *slash = strrchr(s, '/'), *end, *colon;
	unsigned long port = 0, ep;
	int bracket, err;
	char *e;
	__u8 mac[6];
	size_t n;

	if (!slash || !slash[1])
		return -EINVAL;
	errno = 0;
	ep = strtoul(slash + 1, &e, 0);
	if (*e || errno || ep > 0xffffffffUL)
		return -EINVAL;
	n = (size_t)(slash - s);
	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = 0;
	if (!prism_parse_mac(host, mac)) {
		prism_addr_init(&sa->eth, mac, (__u32)ep);
		return 0;
	}
	end = host + n;
	bracket = host[0] == '[';
	if (bracket) {
		/* [IPV6]:PORT or [IPV6] */
		const char *close = strchr(host, ']');

		if (!close)
			return -EINVAL;
		if (close[1] == ':')
			colon = close + 1;
		else if (close + 1 == end)
			colon = NULL;
		else
			return -EINVAL;
		memmove(host, host + 1, (size_t)(close - host - 1));
		host[close - host - 1] = 0;
	} else {
		/* A.B.C.D:PORT, A.B.C.D, or an unbracketed IPv6 address. */
		colon = strchr(host, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;
		if (colon)
			host[colon - host] = 0;
	}
	if (colon) {
		errno = 0;
		port = strtoul(colon + 1, &e, 10);
		if (*e || errno || !colon[1] || port > 65535)
			return -EINVAL;
	}
	err = prism_addr_from_ip(&sa->udp, host, (unsigned int)port, (__u32)ep);
	/* Brackets are for IPv6 only. */
	if (!err && bracket && sa->udp.sprism_ipfamily != AF_INET6)
		err = -EINVAL;
	return err;
}

char *prism_format_addr(const struct sockaddr_prism *sa, char *buf)
{
	const struct sockaddr_prism_udp *su =
		(const struct sockaddr_prism_udp *)sa;
	char ip[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE + 1] = "";
	char mac[18];

	if (sa->sprism_kind != PRISM_ADDR_UDP) {
		snprintf(buf, PRISM_ADDR_STRLEN, "%s/%u",
			 prism_format_mac(sa->sprism_mac, mac), sa->sprism_ep);
		return buf;
	}
	if (su->sprism_ipfamily == AF_INET) {
		inet_ntop(AF_INET, su->sprism_ip, ip, sizeof(ip));
		snprintf(buf, PRISM_ADDR_STRLEN, "%s:%u/%u", ip,
			 ntohs(su->sprism_port), su->sprism_ep);
		return buf;
	}
	if (su->sprism_ipfamily != AF_INET6) {
		/* A socket bound to any address. */
		snprintf(buf, PRISM_ADDR_STRLEN, "*:%u/%u",
			 ntohs(su->sprism_port), su->sprism_ep);
		return buf;
	}
	inet_ntop(AF_INET6, su->sprism_ip, ip, sizeof(ip));
	if (su->sprism_ifindex &&
	    if_indextoname((unsigned int)su->sprism_ifindex, ifname + 1))
		ifname[0] = '%';
	snprintf(buf, PRISM_ADDR_STRLEN, "[%s%s]:%u/%u", ip, ifname,
		 ntohs(su->sprism_port), su->sprism_ep);
	return buf;
}

int prism_open_udp(const char *ip, __u32 ep)
{
	struct sockaddr_prism_udp sa;
	int fd, err;

	if (ip && *ip) {
		err = prism_addr_from_ip(&sa, ip, 0, ep);
		if (err)
			return err;
		/* Bound to an address: no interface. */
		sa.sprism_ifindex = 0;
	} else {
		memset(&sa, 0, sizeof(sa));
		sa.sprism_family = (__kernel_sa_family_t)prism_family();
		sa.sprism_kind = PRISM_ADDR_UDP;
		sa.sprism_ep = ep;
	}
	fd = socket(prism_family(), SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int prism_open_spec(const char *spec, __u32 ep)
{
	if (!spec)
		return -EINVAL;
	if (!strcmp(spec, "udp"))
		return prism_open_udp(NULL, ep);
	if (!strncmp(spec, "udp:", 4))
		return prism_open_udp(spec + 4, ep);
	return prism_open(spec, 0, ep);
}

int prism_addr_equal(const struct sockaddr_prism *a,
		     const struct sockaddr_prism *b)
{
	const struct sockaddr_prism_udp *ua = (const void *)a;
	const struct sockaddr_prism_udp *ub = (const void *)b;

	if (a->sprism_kind != b->sprism_kind || a->sprism_ep != b->sprism_ep)
		return 0;
	if (a->sprism_kind != PRISM_ADDR_UDP)
		return !memcmp(a->sprism_mac, b->sprism_mac, 6);
	return ua->sprism_ipfamily == ub->sprism_ipfamily &&
	       !memcmp(ua->sprism_ip, ub->sprism_ip, sizeof(ua->sprism_ip));
}
