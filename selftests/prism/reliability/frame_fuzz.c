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
#include <stdbool.h>
#include <stddef.h>
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

/* A header field set to val, or val added to it (host order; big-endian). */
struct hdr_change {
	size_t		off, size;	/* in struct whdr; size 0: none */
	bool		add;
	uint64_t	val;
};

#define HSET(f, v)	{ offsetof(struct whdr, f),				\
			  sizeof(((struct whdr *)0)->f), false, (v) }
#define HADD(f, v)	{ offsetof(struct whdr, f),				\
			  sizeof(((struct whdr *)0)->f), true, (v) }

static void hdr_apply(struct frame *f, const struct hdr_change *c)
{
	uint8_t *p = (uint8_t *)hdr_of(f) + c->off;
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < c->size; i++)
		v = v << 8 | p[i];
	v = c->add ? v + c->val : c->val;
	for (i = c->size; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

/*
 * The crafted requests of run_cases(), in order.  A request announces nops
 * ops and carries op 0 as given (rkey ^ key_xor; address base + addr, or
 * abs_addr when set; data_len zero bytes of data), then with valid_next a
 * well-formed READ; then damage: hdr changed, extra zero bytes appended to
 * the body (body_len follows), the frame cut to cut bytes.  The answer
 * must be chain status want (-1: none) and, if want_op >= 0, op status
 * want_op.
 */
static const struct fz_case {
	uint8_t			nops, opcode;
	uint16_t		flags;
	uint32_t		len, data_len;
	uint64_t		key_xor, abs_addr;
	int64_t			addr;
	bool			valid_next;
	struct hdr_change	hdr;
	size_t			extra, cut;
	int			want, want_op;
	const char		*what;
} fz_cases[] = {
#define READ8(n)	.nops = (n), .opcode = PRISM_OP_READ, .len = 8
#define DROPPED		.want = -1, .want_op = -1
	{ READ8(1), .want = PRISM_S_OK, .want_op = PRISM_S_OK,
	  .what = "a well-formed READ is served" },
	{ READ8(1), .cut = sizeof(struct ether_header) + 10, DROPPED,
	  .what = "truncated header: dropped" },
	{ READ8(1), .hdr = HSET(body_len, 1400), DROPPED,
	  .what = "body_len beyond the frame: dropped" },
	{ READ8(0), DROPPED, .what = "nops 0: dropped" },
	{ READ8(17), DROPPED, .what = "nops 17 (over PRISM_MAX_CHAIN): dropped" },
	{ READ8(1), .hdr = HSET(version, 2), DROPPED,
	  .what = "unknown wire version: dropped" },
	{ READ8(1), .hdr = HSET(type, 9), DROPPED,
	  .what = "unknown frame type: dropped" },
	{ READ8(1), .hdr = HSET(req_id, 0), DROPPED,
	  .what = "request id 0: dropped" },
	/* frame_init() sets the ack floor to the request id */
	{ READ8(1), .hdr = HADD(ack_floor, 1), DROPPED,
	  .what = "ack floor above the request id: dropped" },
	{ READ8(1), .hdr = HADD(dst_ep, 12345), .want = PRISM_S_NO_ENDPOINT,
	  .want_op = -1, .what = "unknown endpoint: NO_ENDPOINT" },
#define INVALID		.want = PRISM_S_INVALID, .want_op = -1
	{ .nops = 1, .opcode = 99, .len = 8, INVALID,
	  .what = "bogus opcode: INVALID, nothing runs" },
	{ .nops = 1, .opcode = PRISM_OP_WRITE, .len = 8, .data_len = 4, INVALID,
	  .what = "WRITE data_len != len: INVALID" },
	{ .nops = 1, .opcode = PRISM_OP_CAS, .len = 33, .data_len = 64, INVALID,
	  .what = "CAS of 33 bytes: INVALID" },
	{ READ8(1), .flags = 0xffff, INVALID, .what = "unknown flags: INVALID" },
	{ READ8(2), .extra = 16, INVALID, .what = "second op truncated: INVALID" },
	{ READ8(1), .extra = 8, INVALID,
	  .what = "trailing bytes after the ops: INVALID" },
	/* Its only rkey is wrong: refused like a chain to nobody. */
	{ READ8(1), .key_xor = 1, .want = PRISM_S_NO_ENDPOINT, .want_op = -1,
	  .what = "wrong rkey, no valid one: chain NO_ENDPOINT" },
	/* With a valid rkey in the chain, the wrong one fails alone. */
	{ READ8(2), .key_xor = 1, .valid_next = true, .want = PRISM_S_OK,
	  .want_op = PRISM_S_AUTH,
	  .what = "wrong rkey next to a valid one: op fails with AUTH" },
	{ READ8(1), .addr = -8, .want = PRISM_S_OK, .want_op = PRISM_S_ACCESS,
	  .what = "address before the region: ACCESS" },
	{ .nops = 1, .opcode = PRISM_OP_READ, .len = 16,
	  .abs_addr = UINT64_MAX - 8, .want = PRISM_S_OK,
	  .want_op = PRISM_S_ACCESS, .what = "address+len wrapping 2^64: ACCESS" },
	/* The counter at base is 0: as a pointer it is outside the region. */
	{ READ8(1), .flags = PRISM_F_INDIRECT, .want = PRISM_S_OK,
	  .want_op = PRISM_S_ACCESS,
	  .what = "pointer read from memory points outside: ACCESS" },
	{ .nops = 1, .opcode = PRISM_OP_READ, .len = PRISM_MAX_OP_DATA + 1,
	  INVALID, .what = "READ past PRISM_MAX_OP_DATA: INVALID" },
#undef READ8
#undef DROPPED
#undef INVALID
};

static void run_cases(void)
{
	static const uint8_t zeros[64];
	const struct fz_case *c;
	uint64_t zero = 0;
	struct frame f;
	size_t i;

	printf("TAP version 13\n1..%zu\n", sizeof(fz_cases) / sizeof(fz_cases[0]) + 1);
	for (i = 0; i < sizeof(fz_cases) / sizeof(fz_cases[0]); i++) {
		c = &fz_cases[i];
		frame_init(&f, c->nops);
		add_op(&f, c->opcode, c->flags, c->len, rkey ^ c->key_xor,
		       c->abs_addr ? c->abs_addr : base + (uint64_t)c->addr,
		       zeros, c->data_len);
		if (c->valid_next)
			add_op(&f, PRISM_OP_READ, 0, 8, rkey, base, NULL, 0);
		if (c->hdr.size)
			hdr_apply(&f, &c->hdr);
		if (c->extra)
			frame_add_bytes(&f, zeros, c->extra);
		if (c->cut)
			f.len = c->cut;
		expect(&f, c->want, c->want_op, c->what);
	}

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
