// SPDX-License-Identifier: GPL-2.0
/*
 * Chains sent raw (AF_PACKET), as no well-behaved client would send them.
 * Prints "key=status" results (status "none": no answer).
 *
 * Usage: hz_raw IFNAME MODE [ARGS...] ADDRLINE...
 *   budget NOPS DST [LEN]  one chain of NOPS READ|REDIRECT ops, each copying
 *                    the LEN bytes (64 KiB) at HZ_SRC_OFF to region offset
 *                    DST
 *   zero             READ, WRITE and CAS of length 0, valid rkey
 *   noauth           READ with rkey 0 and with a random rkey to the real
 *                    endpoint, and a valid one to an unbound endpoint
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/random.h>

#include "hz.h"

static struct raw_link rl;
static struct hz_target t;
static uint32_t session;
static uint64_t next_id;

static void req(struct frame *f, uint8_t nops, uint32_t ep)
{
	frame_start(f, t.mac, rl.mac, T_REQ, nops, ep, 4242, session, next_id,
		    next_id);
	next_id++;
}

static const char *name(int st)
{
	return st < 0 ? "none" : prism_status_str(st);
}

/* Send f (up to tries times while unanswered); the answer's status. */
static int ask(struct frame *f, int tries, int *op0)
{
	uint8_t buf[FRAME_MAX];
	size_t len;
	int st = -1;

	while (tries-- > 0 && st < 0) {
		raw_send(&rl, f);
		st = raw_wait_resp(&rl, be64toh(frame_hdr(f)->req_id), buf,
				   &len, 1000);
	}
	if (op0)
		*op0 = st < 0 ? -1 : frame_resp_op(buf, len, 0, NULL, 0);
	return st;
}

static int do_budget(unsigned int nops, uint32_t dst, uint32_t len)
{
	struct frame f;
	struct wop *op;
	unsigned int i;
	int st, op0;

	req(&f, (uint8_t)nops, t.ep);
	for (i = 0; i < nops; i++) {
		op = frame_add_op(&f, PRISM_OP_READ, PRISM_F_REDIRECT,
				  len, t.rkey, t.addr + HZ_SRC_OFF,
				  NULL, 0);
		op->redirect = htobe64(t.addr + dst);
	}
	st = ask(&f, 3, &op0);
	printf("status=%s op0=%s\n", name(st), op0 < 0 ? "-" : name(op0));
	return 0;
}

/*
 * One op to endpoint ep, sent up to 3 times while unanswered: prints
 * "key=STATUS" of the answer, with "/OP0STATUS" when show_op0.
 */
static void ask_op(const char *key, bool show_op0, uint32_t ep,
		   uint8_t opcode, uint32_t len, uint64_t rkey, uint64_t addr)
{
	struct frame f;
	int st, op0;

	req(&f, 1, ep);
	frame_add_op(&f, opcode, 0, len, rkey, addr, NULL, 0);
	st = ask(&f, 3, &op0);
	printf("%s=%s", key, name(st));
	if (show_op0)
		printf("/%s", op0 < 0 ? "-" : name(op0));
	printf("\n");
}

static int do_zero(void)
{
	ask_op("read0", false, t.ep, PRISM_OP_READ, 0, t.rkey,
	       t.addr + HZ_KNOWN_OFF);
	ask_op("write0", false, t.ep, PRISM_OP_WRITE, 0, t.rkey,
	       t.addr + HZ_DST3_OFF);
	ask_op("cas0", false, t.ep, PRISM_OP_CAS, 0, t.rkey,
	       t.addr + HZ_DST3_OFF);
	/* The end of the region itself, length 0. */
	ask_op("read0_end", false, t.ep, PRISM_OP_READ, 0, t.rkey,
	       t.addr + t.len);
	return 0;
}

static int do_noauth(void)
{
	uint64_t key;

	ask_op("rkey0", false, t.ep, PRISM_OP_READ, 8, 0,
	       t.addr + HZ_KNOWN_OFF);
	do {
		getrandom(&key, sizeof(key), 0);
	} while (key == t.rkey || key == t.rkey2);
	ask_op("wrong_rkey", false, t.ep, PRISM_OP_READ, 8, key,
	       t.addr + HZ_KNOWN_OFF);
	ask_op("unbound", false, t.ep + 777, PRISM_OP_READ, 8, t.rkey,
	       t.addr + HZ_KNOWN_OFF);
	/* Control: the valid rkey on the real endpoint is served. */
	ask_op("valid", true, t.ep, PRISM_OP_READ, 8, t.rkey,
	       t.addr + HZ_KNOWN_OFF);
	return 0;
}

int main(int argc, char **argv)
{
	char *pos[4] = { NULL };
	int npos = 0, err;

	if (hz_mode_args(argc, argv, pos, &npos, &t))
		return 2;
	err = raw_open(&rl, argv[1], 1);
	if (err) {
		fprintf(stderr, "raw_open: %s\n", strerror(-err));
		return 1;
	}
	getrandom(&session, sizeof(session), 0);
	getrandom(&next_id, sizeof(next_id), 0);
	next_id = (next_id >> 2) | 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "budget") && npos >= 2)
		return do_budget((unsigned int)strtoul(pos[0], NULL, 0),
				 (uint32_t)strtoul(pos[1], NULL, 0),
				 npos > 2 ? (uint32_t)strtoul(pos[2], NULL, 0) :
					    HZ_COPY_LEN);
	if (!strcmp(argv[2], "zero"))
		return do_zero();
	if (!strcmp(argv[2], "noauth"))
		return do_noauth();
	fprintf(stderr, "unknown mode or missing arguments: %s\n", argv[2]);
	return 2;
}
