// SPDX-License-Identifier: GPL-2.0
/*
 * The attacker of test B: forged responses to a client, claiming to come
 * from the target (its MAC and endpoint id).  To be as strong as an
 * attacker can be without the client's session value, it learns the
 * request ids the client really uses: a second raw socket, opened in the
 * target's network namespace, sees the requests arriving there (and the
 * client's MAC, endpoint id and session).  Forgeries carry ids near the
 * newest id seen and ids cycling through 1..4096, random session values
 * (never the client's), and alternate NO_ENDPOINT and OK with bogus data
 * (LEN bytes of 0xEE, the size of the client's READs).
 *
 * Usage: hz_forge IFNAME SNIFF_NETNS SNIFF_IFNAME LEN STOPFILE MAX_S ADDRLINE...
 * Prints "ready=1" once both sockets are open; at the end "forged=..
 * first_id=.. max_id=.. victim_sessions=.. requests_seen=..".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <sys/random.h>

#include "hz.h"

static uint64_t rs;

static uint64_t rnd(void)
{
	return frame_rnd(&rs);
}

static struct raw_link tx = { .fd = -1 }, sniff = { .fd = -1 };
static struct hz_target t;
static uint8_t victim_mac[6];
static uint32_t victim_ep, victim_session;
static int have_victim;
static unsigned long requests, sessions, forged;
static uint64_t first_id, max_id;

/* Learn the client's ids from the requests arriving at the target. */
static void drain_sniffer(void)
{
	uint8_t buf[FRAME_MAX];
	const struct whdr *h = (const struct whdr *)(buf + 14);
	ssize_t n;

	while ((n = recv(sniff.fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		uint64_t id;

		if (n < (ssize_t)FRAME_HLEN || h->type != T_REQ ||
		    memcmp(buf, t.mac, 6) || ntohl(h->dst_ep) != t.ep)
			continue;
		id = be64toh(h->req_id);
		requests++;
		if (!have_victim || ntohl(h->session) != victim_session ||
		    ntohl(h->src_ep) != victim_ep ||
		    memcmp(buf + 6, victim_mac, 6)) {
			/* A new client socket: follow it. */
			memcpy(victim_mac, buf + 6, 6);
			victim_ep = ntohl(h->src_ep);
			victim_session = ntohl(h->session);
			have_victim = 1;
			sessions++;
			if (sessions == 1)
				first_id = id;
			max_id = id;
		}
		if (id > max_id)
			max_id = id;
	}
}

static void forge(uint64_t id, unsigned int len)
{
	static uint8_t bogus[1024];
	struct wres r = { 0 };
	uint32_t session;
	struct frame f;

	if (!bogus[0])
		memset(bogus, 0xEE, sizeof(bogus));
	do {
		session = (uint32_t)rnd();
	} while (session == victim_session);
	frame_start(&f, victim_mac, t.mac, T_RESP, 1, victim_ep, t.ep,
		    session, id, 0);
	if (forged & 1) {
		frame_hdr(&f)->status = PRISM_S_NO_ENDPOINT;
	} else {
		r.len = htonl(len);
		frame_add_bytes(&f, &r, sizeof(r));
		frame_add_bytes(&f, bogus, (len + 7) & ~7u);
	}
	if (!raw_send(&tx, &f))
		forged++;
}

int main(int argc, char **argv)
{
	unsigned int len;
	uint64_t cyc = 1;
	int64_t end;
	int own, ns, err, d;
	struct stat st;

	if (argc < 8) {
		fprintf(stderr, "usage: %s IFNAME SNIFF_NETNS SNIFF_IFNAME LEN STOPFILE MAX_S ADDRLINE...\n",
			argv[0]);
		return 2;
	}
	len = (unsigned int)strtoul(argv[4], NULL, 0);
	if (len > 1024 || hz_parse_target(argc - 7, argv + 7, &t)) {
		fprintf(stderr, "bad LEN or no target address\n");
		return 2;
	}
	getrandom(&rs, sizeof(rs), 0);
	rs |= 1;
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ns = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (own < 0 || ns < 0) {
		perror("open netns");
		return 1;
	}
	err = raw_open(&tx, argv[1], 0);
	if (!err && setns(ns, CLONE_NEWNET))
		err = -errno;
	if (!err)
		err = raw_open(&sniff, argv[3], 1);
	if (setns(own, CLONE_NEWNET) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "setup: %s\n", strerror(-err));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready=1\n");
	end = now_ms() + 1000 * strtoll(argv[6], NULL, 0);
	while (stat(argv[5], &st) && now_ms() < end) {
		drain_sniffer();
		if (!have_victim) {
			poll(NULL, 0, 5);
			continue;
		}
		for (d = -2; d <= 6; d++)
			forge(max_id + d, len);
		for (d = 0; d < 16; d++) {
			forge(cyc, len);
			cyc = cyc % 4096 + 1;
		}
	}
	drain_sniffer();
	printf("forged=%lu first_id=%llu max_id=%llu victim_sessions=%lu requests_seen=%lu\n",
	       forged, (unsigned long long)first_id,
	       (unsigned long long)max_id, sessions, requests);
	return 0;
}
