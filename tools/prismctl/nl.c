// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl netlink layer: one generic netlink socket (libmnl), the "prism"
 * family resolved through the controller, requests built in one growable
 * buffer, answers parsed with their extended acks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

/* Dumps come in skbs of at most 32 KiB (netlink_recvmsg caps them). */
#define RECV_SIZE	65536
#define REQ_SIZE	8192

static struct {
	struct mnl_socket	*sk;
	uint16_t		family;
	uint32_t		events_grp;	/* 0: the module has none */
	uint32_t		portid;
	uint32_t		seq;
	char			*req;
	size_t			reqcap;
	char			*rbuf;
} nl;

int nl_reserve(size_t len)
{
	char *p;

	if (len <= nl.reqcap)
		return 0;
	p = realloc(nl.req, len);
	if (!p) {
		fprintf(stderr, "prismctl: out of memory\n");
		return -1;
	}
	nl.req = p;
	nl.reqcap = len;
	return 0;
}

static struct nlmsghdr *put_header(uint16_t type, uint8_t cmd, uint8_t version,
				   uint16_t flags)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	memset(nl.req, 0, MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*g)));
	nlh = mnl_nlmsg_put_header(nl.req);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl.seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

struct nlmsghdr *nl_req(uint8_t cmd, uint16_t flags)
{
	return put_header(nl.family, cmd, PRISM_GENL_VERSION, flags);
}

/* The extended ack TLVs of an NLMSG_ERROR or NLMSG_DONE message. */
static void parse_ack_tlvs(const struct nlmsghdr *m, size_t off,
			   struct nl_err *e)
{
	const struct nlattr *a;

	if (!(m->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    off > mnl_nlmsg_get_payload_len(m))
		return;
	mnl_attr_for_each(a, m, off) {
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(e->msg, sizeof(e->msg), "%s",
					 mnl_attr_get_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				e->bad_attr = (int)mnl_attr_get_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				e->miss_type = (int)mnl_attr_get_u32(a);
			break;
		}
	}
}

static int parse_error(const struct nlmsghdr *m, struct nl_err *e)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(m);
	size_t off = sizeof(*err);

	if (mnl_nlmsg_get_payload_len(m) < sizeof(*err)) {
		e->err = EBADMSG;
		return e->err;
	}
	if (!err->error)
		return 0;
	e->err = -err->error;
	if (!(m->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_ack_tlvs(m, off, e);
	return e->err;
}

static int parse_done(const struct nlmsghdr *m, struct nl_err *e)
{
	int v;

	/* Dumps report an error as a negative errno after NLMSG_DONE. */
	if (mnl_nlmsg_get_payload_len(m) < sizeof(v))
		return 0;
	memcpy(&v, mnl_nlmsg_get_payload(m), sizeof(v));
	if (v >= 0)
		return 0;
	e->err = -v;
	parse_ack_tlvs(m, MNL_ALIGN(sizeof(v)), e);
	return e->err;
}

static int send_req(struct nlmsghdr *nlh)
{
	int sz = (int)nlh->nlmsg_len * 2;

	/* Large requests (many addresses) need a larger send buffer. */
	if (nlh->nlmsg_len > 65536 &&
	    setsockopt(mnl_socket_get_fd(nl.sk), SOL_SOCKET, SO_SNDBUFFORCE,
		       &sz, sizeof(sz)))
		setsockopt(mnl_socket_get_fd(nl.sk), SOL_SOCKET, SO_SNDBUF,
			   &sz, sizeof(sz));
	if (mnl_socket_sendto(nl.sk, nlh, nlh->nlmsg_len) < 0)
		return errno;
	return 0;
}

int nl_talk(struct nlmsghdr *nlh, nl_cb_t cb, void *data, struct nl_err *e)
{
	uint32_t seq = nlh->nlmsg_seq;
	bool failed = false;
	ssize_t n;
	int err;

	memset(e, 0, sizeof(*e));
	e->bad_attr = -1;
	err = send_req(nlh);
	if (err) {
		e->err = err;
		return err;
	}
	for (;;) {
		const struct nlmsghdr *m = (const void *)nl.rbuf;
		int len;

		n = mnl_socket_recvfrom(nl.sk, nl.rbuf, RECV_SIZE);
		if (n < 0) {
			e->err = errno;
			return e->err;
		}
		len = (int)n;
		for (; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_seq != seq ||
			    !mnl_nlmsg_portid_ok(m, nl.portid))
				continue;
			switch (m->nlmsg_type) {
			case NLMSG_NOOP:
				continue;
			case NLMSG_ERROR:
				err = parse_error(m, e);
				return err ? err : (failed ? -1 : 0);
			case NLMSG_DONE:
				err = parse_done(m, e);
				return err ? err : (failed ? -1 : 0);
			case NLMSG_OVERRUN:
				e->err = ENOBUFS;
				return e->err;
			}
			if (!failed && cb && cb(m, data) < 0)
				failed = true;
		}
	}
}

/* One CTRL_ATTR_MCAST_GROUPS entry: remember the events group's id. */
static void mcast_group(const struct nlattr *grp)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			name = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
			 mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			id = mnl_attr_get_u32(a);
	}
	if (name && !strcmp(name, PRISM_GENL_MCGRP_EVENTS))
		nl.events_grp = id;
}

/* The controller's answer to CTRL_CMD_GETFAMILY. */
static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *g;
	uint16_t *id = data;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			*id = mnl_attr_get_u16(a);
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS)
			mnl_attr_for_each_nested(g, a)
				mcast_group(g);
	}
	return 0;
}

int nl_join_events(void)
{
	int grp = (int)nl.events_grp;

	if (!grp) {
		fprintf(stderr, "prismctl: the prism module has no '%s' multicast group (module too old?)\n",
			PRISM_GENL_MCGRP_EVENTS);
		return -1;
	}
	if (mnl_socket_setsockopt(nl.sk, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		fprintf(stderr, "prismctl: cannot join the '%s' multicast group: %s\n",
			PRISM_GENL_MCGRP_EVENTS, strerror(errno));
		return -1;
	}
	return 0;
}

int nl_listen(nl_cb_t cb, void *data, const sigset_t *waitmask,
	      volatile sig_atomic_t *stop)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(nl.sk), .events = POLLIN };

	for (;;) {
		const struct nlmsghdr *m = (const void *)nl.rbuf;
		bool draining = *stop;
		ssize_t n;
		int len;

		/*
		 * Signals are delivered only while waiting here.  Once
		 * stopped, what is queued already is still printed: every
		 * change made before the signal.
		 */
		if (!draining && ppoll(&pfd, 1, NULL, waitmask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "prismctl: poll: %s\n", strerror(errno));
			return -1;
		}
		n = recv(pfd.fd, nl.rbuf, RECV_SIZE, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN && draining)
				return 0;
			if (errno == EAGAIN || errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				fprintf(stderr, "prismctl: events lost (receive buffer full)\n");
				continue;
			}
			fprintf(stderr, "prismctl: receiving events: %s\n",
				strerror(errno));
			return -1;
		}
		len = (int)n;
		for (; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_type != nl.family ||
			    mnl_nlmsg_get_payload_len(m) <
			    sizeof(struct genlmsghdr))
				continue;
			if (cb(m, data) < 0)
				return -1;
		}
	}
}

int nl_open(void)
{
	struct nlmsghdr *nlh;
	struct nl_err e;
	uint16_t id = 0;
	int one = 1, fd, err;

	nl.rbuf = malloc(RECV_SIZE);
	if (!nl.rbuf || nl_reserve(REQ_SIZE))
		return -1;
	nl.sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl.sk) {
		fprintf(stderr, "prismctl: cannot open a generic netlink socket: %s\n",
			strerror(errno));
		return -1;
	}
	if (mnl_socket_bind(nl.sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "prismctl: cannot bind the netlink socket: %s\n",
			strerror(errno));
		return -1;
	}
	nl.portid = mnl_socket_get_portid(nl.sk);
	fd = mnl_socket_get_fd(nl.sk);
	/* Best effort: older kernels lack some of these. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one));

	nlh = put_header(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, PRISM_GENL_NAME);
	err = nl_talk(nlh, family_cb, &id, &e);
	if (err == ENOENT) {
		fprintf(stderr, "prismctl: prism module not loaded (generic netlink family '%s' not found)\n",
			PRISM_GENL_NAME);
		return -1;
	}
	if (err || !id) {
		fprintf(stderr, "prismctl: cannot resolve generic netlink family '%s': %s\n",
			PRISM_GENL_NAME, strerror(err > 0 ? err : EPROTO));
		return -1;
	}
	nl.family = id;
	return 0;
}

void nl_close(void)
{
	if (nl.sk)
		mnl_socket_close(nl.sk);
	nl.sk = NULL;
	free(nl.req);
	free(nl.rbuf);
	nl.req = NULL;
	nl.rbuf = NULL;
	nl.reqcap = 0;
}
