// SPDX-License-Identifier: MIT
/* Unit tests of PRISM-RS helpers: info lines, tags, Zipf. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rs.h"
#include "pu_tap.h"

/* Compare two n-byte little-endian unsigned numbers, as CAS_GT does. */
static int le_cmp(const unsigned char *a, const unsigned char *b, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static void info(void)
{
	struct rs_info a, b;
	char line[512];

	memset(&a, 0, sizeof(a));
	memcpy(a.mac, "\x02\x00\x00\xab\xcd\xef", 6);
	a.ep = 77;
	a.rkey = 0xdeadbeefcafef00dULL;
	a.meta = 0x7f0000001000ULL;
	a.locks = 0x7f0000101000ULL;
	a.blocks = 1024;
	a.bsize = 512;
	a.fl = 3;
	ok(rs_info_format(&a, line, sizeof(line)) > 0 && !rs_info_parse(line, &b) &&
	       !memcmp(&a, &b, sizeof(a)), "info line round trip: %.60s...", line);
	ok(rs_info_parse("mac=02:00:00:00:00:01 ep=1", &b) == -EINVAL,
	       "incomplete info line refused");
	ok(rs_info_parse("mac=02:00:00:00:00:01 ep=1 rkey=1 meta=1 locks=1 "
			     "blocks=4 bsize=12 fl=1", &b) == -EINVAL,
	       "block size not a multiple of 8 refused");
	a.bsize = RS_MAX_BSIZE;
	ok(rs_info_format(&a, line, sizeof(line)) > 0 && !rs_info_parse(line, &b) &&
	       b.bsize == 65536, "64 KiB blocks in an info line");
	ok(rs_info_parse("mac=02:00:00:00:00:01 ep=1 rkey=1 meta=1 locks=1 "
			     "blocks=4 bsize=65544 fl=1", &b) == -EINVAL,
	       "block size over 64 KiB refused");
	{
		union prism_sockaddr d;

		strcpy(a.addr, "[fd77:1::1]:4795/77");
		ok(rs_info_format(&a, line, sizeof(line)) > 0 &&
		   !rs_info_parse(line, &b) && !memcmp(&a, &b, sizeof(a)) &&
		   !rs_info_dst(&b, &d) && d.eth.sprism_kind == PRISM_ADDR_UDP &&
		   d.udp.sprism_ep == 77 && d.udp.sprism_ip[15] == 1,
		   "info line of a UDP replica: its address is the destination");
		strcpy(a.keys, "/tmp/rs-test/r1.info.keys");
		ok(rs_info_format(&a, line, sizeof(line)) > 0 &&
		   strstr(line, " keys=/tmp/rs-test/r1.info.keys") &&
		   !rs_info_parse(line, &b) && !memcmp(&a, &b, sizeof(a)),
		   "info line of a keyed replica names its key socket");
	}
}

static void tags(void)
{
	unsigned char x[16], y[16];

	/* { addr, tag }: a larger tag wins whatever the addresses. */
	prism_put_le64(x, 0xffffffffffffULL);
	prism_put_le64(x + 8, RS_TAG(5, 2));
	prism_put_le64(y, 0x1000);
	prism_put_le64(y + 8, RS_TAG(5, 3));
	ok(le_cmp(y, x, 16) > 0, "tag is the most significant half of {addr, tag}");
	ok(RS_TAG(6, 1) > RS_TAG(5, 65535), "timestamp dominates client id");
	ok(RS_TAG_TS(RS_TAG(123456, 9)) == 123456, "timestamp extraction");
}

static void zipf(void)
{
	struct pu_zipf z, u;
	unsigned int hits[100] = { 0 }, i, in_range = 1;
	__u64 s = 88172645463325252ULL;

	ok(!pu_zipf_init(&z, 100, 0.99) && !pu_zipf_init(&u, 100, 0), "zipf init");
	for (i = 0; i < 100000; i++) {
		__u32 k;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		k = pu_zipf_pick(&z, (double)(s >> 11) / 9007199254740992.0);
		if (k >= 100)
			in_range = 0;
		else
			hits[k]++;
	}
	ok(in_range, "zipf picks stay in range");
	/* theta .99 over 100 keys: p(0) ~ 0.19, p(1) ~ 0.1. */
	ok(hits[0] > 15000 && hits[0] < 23000 && hits[0] > hits[1] &&
	       hits[1] > hits[50], "zipf is skewed (key0 %u, key1 %u, key50 %u)",
	       hits[0], hits[1], hits[50]);
	ok(pu_zipf_pick(&u, 0.0) == 0 && pu_zipf_pick(&u, 0.999999) == 99 &&
	       pu_zipf_pick(&u, 0.5) == 50, "theta 0 is uniform");
	pu_zipf_free(&z);
	pu_zipf_free(&u);
}

int main(void)
{
	printf("TAP version 13\n");
	info();
	tags();
	zipf();
	printf("1..%d\n", tap_run);
	return tap_failed != 0;
}
