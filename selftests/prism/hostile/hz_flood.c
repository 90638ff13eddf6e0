// SPDX-License-Identifier: GPL-2.0
/*
 * The attacker of test A: N raw frames at the target as fast as it can
 * send them, none carrying a valid rkey:
 *   35%  READ to the real endpoint with a random (wrong) rkey
 *   15%  READ to the real endpoint with rkey 0
 *   30%  READ to a random endpoint id with a random rkey
 *    5%  SEND with rkey 0 to the real endpoint
 *   15%  junk: well-formed header, garbage ops (malformed chains), or a
 *        bad version / truncated frame
 * with random session values, source endpoint ids and request ids; a
 * quarter with a random (spoofed) source MAC.  The first 85% are
 * well-formed unauthenticated chains ("unauth").
 *
 * Usage: hz_flood IFNAME N SEED ADDRLINE...
 * Prints "started=1 t0=.." after 1000 frames, then "sent=.. unauth=..
 * junk=.. spoofed=.. send_errors=.. ms=.. t1=.." (t0, t1: CLOCK_MONOTONIC ms).
 */
#define _GNU_SOURCE
#include "hz.h"

static uint64_t rs;

static uint64_t rnd(void)
{
	return frame_rnd(&rs);
}

int main(int argc, char **argv)
{
	unsigned long n, i, unauth = 0, junk = 0, spoofed = 0, errs = 0;
	uint8_t src[6], data[64];
	struct hz_target t;
	struct raw_link rl = { .fd = -1 };
	struct frame f;
	int64_t t0;
	int err;

	if (argc < 5) {
		fprintf(stderr, "usage: %s IFNAME N SEED ADDRLINE...\n", argv[0]);
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	rs = strtoull(argv[3], NULL, 0) * 0x9E3779B97F4A7C15ull + 1;
	if (hz_parse_target(argc - 4, argv + 4, &t)) {
		fprintf(stderr, "no target address (mac=.. ep=..)\n");
		return 2;
	}
	err = raw_open(&rl, argv[1], 0);
	if (err) {
		fprintf(stderr, "raw_open: %s\n", strerror(-err));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(data, 0xA5, sizeof(data));
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		unsigned int kind = rnd() % 100, k, nops = 1 + rnd() % 2;
		uint64_t id = (rnd() >> 1) | 1, key;
		uint32_t ep = t.ep;

		memcpy(src, rl.mac, 6);
		if (rnd() % 4 == 0) {
			uint64_t r = rnd();

			memcpy(src, &r, 6);
			src[0] = (uint8_t)((src[0] & 0xfc) | 0x02);
			spoofed++;
		}
		if (kind >= 50 && kind < 80)
			do {
				ep = (uint32_t)rnd();
			} while (!ep || ep == t.ep);
		frame_start(&f, t.mac, src, T_REQ, (uint8_t)nops, ep,
			    (uint32_t)rnd(), (uint32_t)rnd(), id, id);
		if (kind < 85) {
			unauth++;
			for (k = 0; k < nops; k++) {
				if (kind >= 80) {
					frame_add_op(&f, PRISM_OP_SEND, 0, 8, 0,
						     0, data, 8);
					continue;
				}
				key = kind >= 35 && kind < 50 ? 0 : rnd();
				if (key == t.rkey || key == t.rkey2)
					key++;
				frame_add_op(&f, PRISM_OP_READ, 0,
					     8 + (uint32_t)(rnd() % 57), key,
					     t.addr + rnd() % HZ_REGION_LEN,
					     NULL, 0);
			}
		} else {
			junk++;
			for (k = 0; k < nops; k++) {
				struct wop *op = frame_add_op(&f, PRISM_OP_READ,
							      0, 8, rnd(),
							      rnd(), NULL, 0);
				uint64_t r = rnd();

				memcpy(op, &r, sizeof(r));	/* garbage op */
			}
			switch (rnd() % 3) {
			case 0:
				frame_hdr(&f)->version = 2;
				break;
			case 1:
				f.len = FRAME_HLEN - 1 - rnd() % 20;
				break;
			default:
				break;
			}
		}
		if (raw_send(&rl, &f))
			errs++;
		if (i == 999 || (n < 1000 && i + 1 == n))
			printf("started=1 t0=%lld\n", (long long)t0);
	}
	printf("sent=%lu unauth=%lu junk=%lu spoofed=%lu send_errors=%lu ms=%lld t1=%lld\n",
	       n, unauth, junk, spoofed, errs, (long long)(now_ms() - t0),
	       (long long)now_ms());
	return 0;
}
