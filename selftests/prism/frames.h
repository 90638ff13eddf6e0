/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw PRISM frames for the selftests: the wire layout, building request and
 * response frames by hand, sending and receiving them on an AF_PACKET
 * socket, so nothing in a sending module can tidy them up.
 *
 * The wire layout below mirrors kmod/prism.h on purpose: the tests must
 * not share the module's definitions, to catch a change in them.
 *
 * Header only (static inline), C11 with _GNU_SOURCE; used by
 * reliability/frame_fuzz.c and the hostile/ tools.
 */
#ifndef PRISM_SELFTEST_FRAMES_H
#define PRISM_SELFTEST_FRAMES_H

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define ETHERTYPE	0x88B5
#define WIRE_VERSION	1
#define T_REQ		1
#define T_RESP		2
#define FRAME_MAX	1514

struct whdr {
	uint8_t version, type, nops, status;
	uint32_t dst_ep, src_ep, session;
	uint64_t req_id, ack_floor;
	uint16_t body_len, delay;
} __attribute__((packed));

struct wop {
	uint8_t opcode, cas_mode;
	uint16_t flags;
	uint32_t len;
	uint64_t rkey, addr, redirect, arg_addr, swap_addr;
	uint32_t data_len, reserved;
} __attribute__((packed));

struct wres {
	uint8_t status, reserved;
	uint16_t reserved2;
	uint32_t len;
} __attribute__((packed));

_Static_assert(sizeof(struct whdr) == 36, "wire header layout");
_Static_assert(sizeof(struct wop) == 56, "wire op layout");
_Static_assert(sizeof(struct wres) == 8, "wire result layout");

#define FRAME_HLEN	(sizeof(struct ether_header) + sizeof(struct whdr))

struct frame {
	uint8_t buf[FRAME_MAX];
	size_t len;		/* bytes sent (Ethernet header included) */
};

/* An AF_PACKET socket on one interface. */
struct raw_link {
	int fd;
	int ifindex;
	uint8_t mac[6];		/* the interface's own address */
};

static inline struct whdr *frame_hdr(struct frame *f)
{
	return (struct whdr *)(f->buf + sizeof(struct ether_header));
}

/* Make body_len match the bytes in the frame. */
static inline void frame_sync_len(struct frame *f)
{
	frame_hdr(f)->body_len = htons((uint16_t)(f->len - FRAME_HLEN));
}

/*
 * Start a frame of type (T_REQ, T_RESP) with nops ops and no body; ids
 * and endpoints in host order, converted here.
 */
static inline void frame_start(struct frame *f, const uint8_t dst_mac[6],
			       const uint8_t src_mac[6], uint8_t type,
			       uint8_t nops, uint32_t dst_ep, uint32_t src_ep,
			       uint32_t session, uint64_t req_id,
			       uint64_t ack_floor)
{
	struct ether_header *eh = (struct ether_header *)f->buf;
	struct whdr *h = frame_hdr(f);

	memset(f, 0, sizeof(*f));
	memcpy(eh->ether_dhost, dst_mac, 6);
	memcpy(eh->ether_shost, src_mac, 6);
	eh->ether_type = htons(ETHERTYPE);
	h->version = WIRE_VERSION;
	h->type = type;
	h->nops = nops;
	h->dst_ep = htonl(dst_ep);
	h->src_ep = htonl(src_ep);
	h->session = htonl(session);
	h->req_id = htobe64(req_id);
	h->ack_floor = htobe64(ack_floor);
	f->len = FRAME_HLEN;
}

/* Append raw body bytes (e.g. response results and data). */
static inline void frame_add_bytes(struct frame *f, const void *p, size_t n)
{
	if (n > sizeof(f->buf) - f->len)
		n = sizeof(f->buf) - f->len;
	memcpy(f->buf + f->len, p, n);
	f->len += n;
	frame_sync_len(f);
}

/*
 * Append an op and its inline data (padded to 8 bytes); returns it so the
 * caller can set the fields not given here (network order).
 */
static inline struct wop *frame_add_op(struct frame *f, uint8_t opcode,
				       uint16_t flags, uint32_t len,
				       uint64_t key, uint64_t addr,
				       const void *data, uint32_t data_len)
{
	struct wop *op = (struct wop *)(f->buf + f->len);

	memset(op, 0, sizeof(*op));
	op->opcode = opcode;
	op->flags = htons(flags);
	op->len = htonl(len);
	op->rkey = htobe64(key);
	op->addr = htobe64(addr);
	op->data_len = htonl(data_len);
	f->len += sizeof(*op);
	if (data_len) {
		memcpy(f->buf + f->len, data, data_len);
		f->len += (data_len + 7) & ~7u;
	}
	frame_sync_len(f);
	return op;
}

/*
 * Open an AF_PACKET socket on ifname.  rx: receive PRISM frames on it
 * (else it only sends, and never queues anything).  0 or -errno.
 */
static inline int raw_open(struct raw_link *l, const char *ifname, int rx)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ifreq ifr;
	int err;

	memset(&ifr, 0, sizeof(ifr));
	l->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC,
		       rx ? htons(ETHERTYPE) : 0);
	if (l->fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(l->fd, SIOCGIFHWADDR, &ifr))
		goto fail;
	memcpy(l->mac, ifr.ifr_hwaddr.sa_data, 6);
	l->ifindex = (int)if_nametoindex(ifname);
	if (!l->ifindex)
		goto fail;
	sll.sll_protocol = rx ? htons(ETHERTYPE) : 0;
	sll.sll_ifindex = l->ifindex;
	if (bind(l->fd, (struct sockaddr *)&sll, sizeof(sll)))
		goto fail;
	return 0;
fail:
	err = -errno;
	close(l->fd);
	l->fd = -1;
	return err;
}

/*
 * Send f as it is (its Ethernet header names the destination).  No
 * padding to 60 bytes: veth carries runts, which is the point for some
 * tests.  0 or -errno.
 */
static inline int raw_send(const struct raw_link *l, const struct frame *f)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = l->ifindex,
		.sll_halen = 6,
		.sll_protocol = htons(ETHERTYPE),
	};

	memcpy(sll.sll_addr, f->buf, 6);
	if (sendto(l->fd, f->buf, f->len, 0, (struct sockaddr *)&sll,
		   sizeof(sll)) < 0)
		return -errno;
	return 0;
}

/* xorshift64: cheap reproducible pseudo-random numbers; *s must not be 0. */
static inline uint64_t frame_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Wait for the response to request id addressed to the link's MAC and
 * copy the whole frame (Ethernet header included) to buf (FRAME_MAX
 * bytes), its length to *len; returns its chain status, or -1 when none
 * came (timeout_ms without any frame).
 */
static inline int raw_wait_resp(const struct raw_link *l, uint64_t id,
				uint8_t *buf, size_t *len, int timeout_ms)
{
	struct pollfd p = { .fd = l->fd, .events = POLLIN };
	const struct whdr *h =
		(const struct whdr *)(buf + sizeof(struct ether_header));
	ssize_t n;

	*len = 0;
	while (poll(&p, 1, timeout_ms) == 1) {
		n = recv(l->fd, buf, FRAME_MAX, 0);
		if (n < (ssize_t)FRAME_HLEN)
			continue;
		if (memcmp(buf, l->mac, 6) || h->type != T_RESP ||
		    be64toh(h->req_id) != id)
			continue;
		*len = (size_t)n;
		return h->status;
	}
	return -1;
}

/*
 * Op idx of a response frame (as returned by raw_wait_resp): its status,
 * its output in *out when out_len bytes are wanted (the op must have
 * exactly that many); -1 if the frame carries no such result.
 */
static inline int frame_resp_op(const uint8_t *buf, size_t len,
				unsigned int idx, void *out, uint32_t out_len)
{
	const struct whdr *h =
		(const struct whdr *)(buf + sizeof(struct ether_header));
	const struct wres *r = (const struct wres *)(h + 1);
	size_t need = FRAME_HLEN, data = 0;
	unsigned int i;

	if (len < need || h->status != 0 || idx >= h->nops)
		return -1;
	need += h->nops * sizeof(*r);
	if (len < need)
		return -1;
	for (i = 0; i < idx; i++)
		data += (ntohl(r[i].len) + 7) & ~7u;
	if (out_len) {
		if (ntohl(r[idx].len) != out_len ||
		    len < need + data + out_len)
			return -1;
		memcpy(out, buf + need + data, out_len);
	}
	return r[idx].status;
}

#endif /* PRISM_SELFTEST_FRAMES_H */
