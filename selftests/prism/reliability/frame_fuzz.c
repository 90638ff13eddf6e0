// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile frames for the target's receive path, sent raw (AF_PACKET) so
 * nothing in the sending module can tidy them up.
 *
 *   frame_fuzz IFNAME cases  ADDRLINE   crafted frames, expected outcomes (TAP)
 *   frame_fuzz IFNAME random ADDRLINE N SEED
 *                                       N mutated frames, then a health check
 *   frame_fuzz IFNAME replay ADDRLINE   repeats at a target over its serve
 *                                       rate (rel_server ... 1): answered
 *                                       from the reply cache, never NACKed
 *
 * ADDRLINE is rel_server's "mac=.. ep=.. rkey=.. addr=.." output.  The wire
 * layout and the raw socket helpers are in ../frames.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "liburing-prism.h"
#include "../frames.h"

static struct raw_link rlink;
static uint8_t dst_mac[6];
static uint32_t dst_ep, session;
static uint64_t rkey, base, next_id = 1;
static int tno, failures;

static struct whdr *hdr_of(struct frame *f)
{
	return frame_hdr(f);
}

/* A request frame with fresh id; ops appended with add_op(). */
static void frame_init(struct frame *f, uint8_t nops)
{
	frame_start(f, dst_mac, rlink.mac, T_REQ, nops, dst_ep, 7777, session,
		    next_id, next_id);
	next_id++;
}

static void add_op(struct frame *f, uint8_t opcode, uint16_t flags,
		   uint32_t len, uint64_t key, uint64_t addr,
		   const void *data, uint32_t data_len)
{
	frame_add_op(f, opcode, flags, len, key, addr, data, data_len);
}

static void send_frame(const struct frame *f)
{
	int err = raw_send(&rlink, f);

	if (err) {
		errno = -err;
		perror("sendto");
	}
}

static int wait_frame(uint64_t id, uint8_t *buf, size_t *len, int timeout_ms)
{
	return raw_wait_resp(&rlink, id, buf, len, timeout_ms);
}

/* Status of op 0 of a response frame and its output (see frame_resp_op()). */
static int resp_op(const uint8_t *buf, size_t len, void *out, uint32_t out_len)
{
	return frame_resp_op(buf, len, 0, out, out_len);
}

/*
 * Wait for the response to request id; returns its chain status and the
 * first op's status in *op_status, or -1 when none came in timeout_ms.
 */
static int wait_resp(uint64_t id, int *op_status, int timeout_ms)
{
	uint8_t buf[FRAME_MAX];
	size_t len;
	int st = wait_frame(id, buf, &len, timeout_ms);

	*op_status = st < 0 ? -1 : resp_op(buf, len, NULL, 0);
	return st;
}

static void result(int pass, const char *what)
{
	tno++;
	if (!pass)
		failures++;
	printf("%sok %d - %s\n", pass ? "" : "not ", tno, what);
	fflush(stdout);
}

/* Send f; expect chain status want (-1: no answer) and, if want_op >= 0, op status. */
static void expect(struct frame *f, int want, int want_op, const char *what)
{
	uint64_t id = be64toh(hdr_of(f)->req_id);
	int st, op;

	send_frame(f);
	/* Silence is the expected answer for some: wait less for those. */
	st = wait_resp(id, &op, want < 0 ? 300 : 3000);
	if (st != want || (want_op >= 0 && op != want_op))
		fprintf(stderr, "# %s: got chain %d op %d, want %d op %d\n",
			what, st, op, want, want_op);
	result(st == want && (want_op < 0 || op == want_op), what);
}

static void run_cases(void)
{
	uint64_t zero = 0;
	struct frame f;
	uint8_t data[64] = { 0 };

	printf("TAP version 13\n1..23\n");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	expect(&f, PRISM_S_OK, PRISM_S_OK, "a well-formed READ is served");

	frame_init(&f, 1);
	f.len = sizeof(struct ether_header) + 10;
	expect(&f, -1, -1, "truncated header: dropped");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->body_len = htons(1400);
	expect(&f, -1, -1, "body_len beyond the frame: dropped");

	frame_init(&f, 0);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->nops = 0;
	expect(&f, -1, -1, "nops 0: dropped");

	frame_init(&f, 17);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	expect(&f, -1, -1, "nops 17 (over PRISM_MAX_CHAIN): dropped");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->version = 2;
	expect(&f, -1, -1, "unknown wire version: dropped");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->type = 9;
	expect(&f, -1, -1, "unknown frame type: dropped");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->req_id = 0;
	expect(&f, -1, -1, "request id 0: dropped");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->ack_floor = htobe64(be64toh(hdr_of(&f)->req_id) + 1);
	expect(&f, -1, -1, "ack floor above the request id: dropped");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->dst_ep = htonl(dst_ep + 12345);
	expect(&f, PRISM_S_NO_ENDPOINT, -1, "unknown endpoint: NO_ENDPOINT");

	frame_init(&f, 1);
	add_op(&f, 99, 0, 8, rkey, base, NULL, 0);
	expect(&f, PRISM_S_INVALID, -1, "bogus opcode: INVALID, nothing runs");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_WRITE, 0, 8, rkey, base, data, 4);
	expect(&f, PRISM_S_INVALID, -1, "WRITE data_len != len: INVALID");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_CAS, 0, 33, rkey, base, data, sizeof(data));
	expect(&f, PRISM_S_INVALID, -1, "CAS of 33 bytes: INVALID");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0xffff, 8, rkey, base, NULL, 0);
	expect(&f, PRISM_S_INVALID, -1, "unknown flags: INVALID");

	frame_init(&f, 2);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->body_len = htons(ntohs(hdr_of(&f)->body_len) + 16);
	f.len += 16;
	expect(&f, PRISM_S_INVALID, -1, "second op truncated: INVALID");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->body_len = htons(ntohs(hdr_of(&f)->body_len) + 8);
	f.len += 8;
	expect(&f, PRISM_S_INVALID, -1, "trailing bytes after the ops: INVALID");

	/* Its only rkey is wrong: refused like a chain to nobody. */
	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey ^ 1, base, NULL, 0);
	expect(&f, PRISM_S_NO_ENDPOINT, -1,
	       "wrong rkey, no valid one: chain NO_ENDPOINT");
	/* With a valid rkey in the chain, the wrong one fails alone. */
	frame_init(&f, 2);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey ^ 1, base, NULL, 0);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	expect(&f, PRISM_S_OK, PRISM_S_AUTH, "wrong rkey next to a valid one: op fails with AUTH");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base - 8, NULL, 0);
	expect(&f, PRISM_S_OK, PRISM_S_ACCESS, "address before the region: ACCESS");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 16, rkey, UINT64_MAX - 8, NULL, 0);
	expect(&f, PRISM_S_OK, PRISM_S_ACCESS, "address+len wrapping 2^64: ACCESS");

	/* The counter at base is 0: as a pointer it is outside the region. */
	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, PRISM_F_INDIRECT, 8, rkey, base, NULL, 0);
	expect(&f, PRISM_S_OK, PRISM_S_ACCESS, "pointer read from memory points outside: ACCESS");

	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 4000, rkey, base, NULL, 0);
	expect(&f, PRISM_S_TOO_BIG, -1, "reply larger than a frame: TOO_BIG");

	/* A response aimed at the target itself must be ignored. */
	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	hdr_of(&f)->type = T_RESP;
	send_frame(&f);
	frame_init(&f, 1);
	add_op(&f, PRISM_OP_WRITE, 0, 8, rkey, base, &zero, 8);
	expect(&f, PRISM_S_OK, PRISM_S_OK, "after all that the target still serves");
}

static uint64_t rnd(void)
{
	static uint64_t s = 88172645463325252ull;

	return frame_rnd(&s);
}

/* A random valid-looking chain, then damage to it. */
static void random_frame(struct frame *f)
{
	static const uint16_t flagset[] = {
		0, PRISM_F_INDIRECT, PRISM_F_INDIRECT | PRISM_F_BOUNDED,
		PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH, PRISM_F_CONDITIONAL,
		PRISM_F_ADDR_SCRATCH, PRISM_F_DATA_INDIRECT | PRISM_F_ARG_SCRATCH,
	};
	uint8_t data[128];
	unsigned int nops = 1 + rnd() % 4, i, k;
	size_t hlen = sizeof(struct ether_header);

	frame_init(f, (uint8_t)nops);
	for (i = 0; i < nops; i++) {
		uint8_t opc = 1 + rnd() % 5;
		uint32_t len = 1 + rnd() % 40;
		uint64_t addr = base + (rnd() % 8192) - 64;
		uint32_t dl = 0;

		for (k = 0; k < sizeof(data); k++)
			data[k] = (uint8_t)rnd();
		if (opc == PRISM_OP_WRITE || opc == PRISM_OP_ALLOC ||
		    opc == PRISM_OP_SEND)
			dl = len;
		else if (opc == PRISM_OP_CAS)
			dl = (len % 32 + 1) * 4, len = len % 32 + 1;
		if (opc == PRISM_OP_ALLOC)
			addr = rnd() % 3;
		add_op(f, opc, flagset[rnd() % 7], len,
		       rnd() % 8 ? rkey : rnd(), addr, data, dl);
	}
	/* Damage: flip bytes, cut, or lie about lengths. */
	switch (rnd() % 4) {
	case 0:
		for (k = 0; k < 1 + rnd() % 4; k++)
			f->buf[hlen + rnd() % (f->len - hlen)] ^=
				(uint8_t)(1 + rnd() % 255);
		break;
	case 1:
		f->len = hlen + rnd() % (f->len - hlen + 1);
		break;
	case 2:
		hdr_of(f)->body_len = htons((uint16_t)rnd());
		break;
	default:
		break;	/* valid-looking: exercises the ops themselves */
	}
}

static int run_random(unsigned long n)
{
	struct frame f;
	uint8_t drain[FRAME_MAX];
	unsigned long i;
	uint64_t id;
	int op, st;

	printf("TAP version 13\n1..1\n");
	for (i = 0; i < n; i++) {
		random_frame(&f);
		send_frame(&f);
		/* Keep the socket's receive queue short. */
		while (recv(rlink.fd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
			;
	}
	frame_init(&f, 1);
	add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
	id = be64toh(hdr_of(&f)->req_id);
	send_frame(&f);
	st = wait_resp(id, &op, 5000);
	result(st == PRISM_S_OK && op == PRISM_S_OK,
	       "after random frames the target serves a valid READ");
	return failures != 0;
}

/*
 * Send f until the target does not NACK it (at most budget_ms), backing off
 * like a client.  Returns the chain status of the last answer (-1: none),
 * the answer in buf and len, and in *sent_ms when its request was sent.
 */
static int serve(struct frame *f, uint8_t *buf, size_t *len, int budget_ms,
		 int64_t *sent_ms)
{
	uint64_t id = be64toh(hdr_of(f)->req_id);
	int64_t end = now_ms() + budget_ms;
	int st;

	for (;;) {
		*sent_ms = now_ms();
		send_frame(f);
		st = wait_frame(id, buf, len, 3000);
		if (st != PRISM_S_NACK || now_ms() >= end)
			return st;
		poll(NULL, 0, 50);
	}
}

/*
 * A NACK means "not run", so a target over its PRISM_SERVE_RATE must
 * still answer a repeat of a chain that ran from its reply cache; only new
 * work may be NACKed.  The target serves 1 chain/s with a burst of one:
 * once a chain is admitted, nothing else is for a second, so a repeat
 * sent right after it can only be answered from the cache.
 */
#define REFILL_MS	900	/* a token takes 1 s; margin for clock skew */

static int run_replay(void)
{
	static const uint8_t swap[8] = { 0x11, 0x22, 0x33, 0x44,
					 0x55, 0x66, 0x77, 0x88 };
	uint8_t cas[32], first[FRAME_MAX], again[FRAME_MAX], buf[FRAME_MAX];
	uint8_t old[8], mem[16], zero[16] = { 0 };
	size_t first_len, again_len, len;
	int64_t t_admit, t_repeat, t;
	struct frame r, n, rd;
	uint64_t id;
	int st, op;

	printf("TAP version 13\n1..6\n");
	/* CAS 8 bytes EQ: compare 0, swap, full compare and swap masks. */
	memset(cas, 0, sizeof(cas));
	memcpy(cas + 8, swap, 8);
	memset(cas + 16, 0xff, 16);
	frame_init(&r, 1);
	add_op(&r, PRISM_OP_CAS, 0, 8, rkey, base + 8, cas, sizeof(cas));
	id = be64toh(hdr_of(&r)->req_id);

	/* The bucket fills in the first second of the socket: wait for it. */
	st = serve(&r, first, &first_len, 5000, &t_admit);
	op = resp_op(first, first_len, old, sizeof(old));
	if (st != PRISM_S_OK || op != PRISM_S_OK)
		fprintf(stderr, "# request: got chain %d op %d\n", st, op);
	result(st == PRISM_S_OK && op == PRISM_S_OK && !memcmp(old, zero, 8),
	       "a CAS 0 -> x chain is admitted and runs: OK, old value 0");

	/* The identical frame again, at once: a retransmission. */
	send_frame(&r);
	st = wait_frame(id, again, &again_len, 3000);
	t_repeat = now_ms();
	if (st != PRISM_S_OK)
		fprintf(stderr, "# repeat: got chain %d, want %d\n", st,
			PRISM_S_OK);
	result(st == PRISM_S_OK,
	       "its repeat at the over-rate target is answered OK, not NACKed");
	result(st == PRISM_S_OK && again_len == first_len &&
	       !memcmp(again, first, first_len),
	       "the answer is the cached reply byte for byte (the CAS did not run again)");
	result(t_repeat - t_admit < REFILL_MS,
	       "the repeat came before a token could refill (it was not admitted)");

	/* New work at once: must be refused, else the test proves nothing. */
	frame_init(&n, 1);
	hdr_of(&n)->ack_floor = htobe64(id);
	add_op(&n, PRISM_OP_WRITE, 0, 8, rkey, base, swap, 8);
	send_frame(&n);
	st = wait_frame(be64toh(hdr_of(&n)->req_id), buf, &len, 3000);
	t = now_ms();
	if (st != PRISM_S_NACK)
		fprintf(stderr, "# new chain: got chain %d after %lld ms, want %d\n",
			st, (long long)(t - t_admit), PRISM_S_NACK);
	result(st == PRISM_S_NACK,
	       "a new chain sent right after is NACKed (the rate limit is active)");

	/* Once a token refilled: the CAS ran once, the NACKed WRITE never. */
	frame_init(&rd, 1);
	add_op(&rd, PRISM_OP_READ, 0, 16, rkey, base, NULL, 0);
	st = serve(&rd, buf, &len, 5000, &t);
	op = resp_op(buf, len, mem, sizeof(mem));
	if (st != PRISM_S_OK || op != PRISM_S_OK)
		fprintf(stderr, "# read: got chain %d op %d\n", st, op);
	result(st == PRISM_S_OK && op == PRISM_S_OK && !memcmp(mem, zero, 8) &&
	       !memcmp(mem + 8, swap, 8),
	       "memory: the CAS stored x, the NACKed WRITE did not run");
	return failures != 0;
}

static int setup(const char *ifname, int argc, char **argv)
{
	int i, err;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mac=", 4))
			prism_parse_mac(argv[i] + 4, dst_mac);
		else if (!strncmp(argv[i], "ep=", 3))
			dst_ep = (uint32_t)strtoul(argv[i] + 3, NULL, 0);
		else if (!strncmp(argv[i], "rkey=", 5))
			rkey = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "addr=", 5))
			base = strtoull(argv[i] + 5, NULL, 0);
	}
	err = raw_open(&rlink, ifname, 1);
	if (err)
		return err;
	session = (uint32_t)time(NULL) ^ (uint32_t)getpid();
	return 0;
}

int main(int argc, char **argv)
{
	int err;

	if (argc < 4) {
		fprintf(stderr, "usage: %s IFNAME cases|random|replay ADDR... [N SEED]\n",
			argv[0]);
		return 2;
	}
	err = setup(argv[1], argc - 3, argv + 3);
	if (err) {
		fprintf(stderr, "setup: %s\n", strerror(-err));
		return 1;
	}
	if (!strcmp(argv[2], "cases")) {
		run_cases();
		return failures != 0;
	}
	if (!strcmp(argv[2], "replay"))
		return run_replay();
	if (!strcmp(argv[2], "random") && argc >= 6) {
		unsigned long n = strtoul(argv[argc - 2], NULL, 0);
		unsigned long seed = strtoul(argv[argc - 1], NULL, 0);

		while (seed--)
			rnd();
		return run_random(n);
	}
	return 2;
}
