// SPDX-License-Identifier: MIT
/* Host-only unit tests of PRISM-KV's encodings and workload generators (TAP). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kv_format.h"
#include "../kv_workload.h"
#include "pu_tap.h"

static int planned;

static void test_hash(void)
{
	unsigned int hits[64] = { 0 }, i, min = ~0u, max = 0;
	char key[32];

	ok(kv_hash64("abc", 3, 1) == kv_hash64("abc", 3, 1), "hash is deterministic");
	ok(kv_hash64("abc", 3, 1) != kv_hash64("abc", 3, 2), "seed changes the hash");
	ok(kv_hash64("abc", 3, 1) != kv_hash64("abd", 3, 1) &&
	   kv_hash64("ab", 2, 1) != kv_hash64("ab\0", 3, 1),
	   "content and length change the hash");
	for (i = 0; i < 64000; i++) {
		snprintf(key, sizeof(key), "user%010u", i);
		hits[kv_key_slot(key, strlen(key), 64)]++;
	}
	for (i = 0; i < 64; i++) {
		if (hits[i] < min)
			min = hits[i];
		if (hits[i] > max)
			max = hits[i];
	}
	ok(min > 900 && max < 1100, "sequential keys spread evenly over slots (%u..%u of 1000)",
	   min, max);
	ok(kv_slot_check(1, 2, 3) != kv_slot_check(1, 2, 4) &&
	   kv_slot_check(1, 2, 3) != kv_slot_check(2, 2, 3),
	   "slot check covers ptr and version");
}

static void test_slot(void)
{
	struct kv_slot a = { 0x7f0012345678ull, 560, 42, 0xdeadbeef }, b;
	unsigned char buf[KV_SLOT_SIZE];

	kv_slot_encode(buf, &a);
	kv_slot_decode(buf, &b);
	ok(!memcmp(&a, &b, sizeof(a)), "slot round trip");
	ok(pu_get_le64(buf + 16) == 42, "slot version is the third word (CAS mask)");
}

static void test_entry(void)
{
	unsigned char buf[KV_MAX_ENTRY + 64], val[KV_MAX_ENTRY], key[KV_MAX_KEY];
	struct kv_entry e;
	int len, i, caught = 0;

	memset(val, 'v', sizeof(val));
	len = kv_entry_encode(buf, sizeof(buf), KV_E_LIVE, "key", 3, val, 512, 7);
	ok(len == (int)(KV_ENTRY_HDR + 3 + 512), "entry length is header + key + value");
	ok(!kv_entry_decode(buf, (size_t)len, &e) && e.flags == KV_E_LIVE &&
	   e.version == 7 && e.vlen == 512 && kv_entry_key_is(&e, "key", 3) &&
	   !kv_entry_key_is(&e, "kez", 3) && !memcmp(e.val, val, 512),
	   "entry decodes to what was encoded");
	for (i = 0; i < len; i++) {
		buf[i] ^= 0x20;
		caught += kv_entry_decode(buf, (size_t)len, &e) == -EBADMSG;
		buf[i] ^= 0x20;
	}
	ok(caught == len, "every flipped byte is detected (%d of %d)", caught, len);
	ok(kv_entry_decode(buf, (size_t)len - 1, &e) == -EBADMSG,
	   "short read is detected");
	memset(key, 'k', KV_MAX_KEY);
	len = kv_entry_encode(buf, sizeof(buf), KV_E_LIVE, key, KV_MAX_KEY, val,
			      KV_MAX_VALUE, 1);
	ok(len == (int)KV_MAX_ENTRY && kv_entry_peek_len(buf, 40) == len &&
	   !kv_entry_decode(buf, (size_t)len, &e) &&
	   e.vlen == KV_MAX_VALUE && !memcmp(e.val, val, KV_MAX_VALUE),
	   "largest key and 64 KiB value fill KV_MAX_ENTRY, round trip");
	ok(kv_entry_decode(buf, KV_GET_FIRST, &e) == -EBADMSG &&
	   kv_entry_peek_len(buf, KV_GET_FIRST) == len,
	   "a first read of it is not an entry but tells its length");
	ok(kv_entry_encode(buf, sizeof(buf), KV_E_LIVE, "k", 1, val,
			   KV_MAX_VALUE + 1, 1) == -E2BIG, "one byte more is E2BIG");
	ok(kv_check_sizes(0, 1) == -EINVAL && kv_check_sizes(KV_MAX_KEY + 1, 0) == -E2BIG &&
	   !kv_check_sizes(KV_MAX_KEY, KV_MAX_VALUE) &&
	   kv_check_sizes(1, KV_MAX_VALUE + 1) == -E2BIG,
	   "key and value limits");
	ok(kv_entry_peek_len("PVK2", 4) == -EBADMSG, "peek wants a header");
	len = kv_entry_encode(buf, sizeof(buf), KV_E_EMPTY, NULL, 0, NULL, 0, 0);
	ok(len == KV_ENTRY_HDR && !kv_entry_decode(buf, KV_ENTRY_HDR, &e) &&
	   e.flags == KV_E_EMPTY, "EMPTY entry");
	len = kv_entry_encode(buf, sizeof(buf), KV_E_DELETED, "gone", 4, NULL, 0, 9);
	ok(!kv_entry_decode(buf, (size_t)len, &e) && e.flags == KV_E_DELETED &&
	   kv_entry_key_is(&e, "gone", 4), "tombstone keeps its key");
}

static void test_classes(void)
{
	ok(kv_class_for(1) == 0 && kv_class_for(64) == 0 && kv_class_for(65) == 1,
	   "smallest class that fits");
	ok(kv_class_for(kv_entry_len(14, 512)) == 3, "bench entry (14-byte key, 512 B) in 640");
	ok(kv_class_for(KV_MAX_ENTRY) == KV_NCLASSES - 1 &&
	   kv_class_for(KV_MAX_ENTRY + 1) == -1, "largest class is KV_MAX_ENTRY");
	ok(kv_class_for(kv_entry_len(KV_MAX_KEY, 4096)) == 6 &&
	   kv_class_for(kv_entry_len(KV_MAX_KEY, 4097)) == 7,
	   "a 4 KiB value with any key in the 4 KiB class");
	ok(kv_class_count(0, 256) == 256 && kv_class_count(4, 256) == 256 &&
	   kv_class_count(6, 4096) == 4096 * 1024 / (4096 + 160) &&
	   kv_class_count(KV_NCLASSES - 1, 256) == 16,
	   "buffers per class: nbufs small, nbufs KiB large, at least 16");
	/*
	 * A PUT chain of an entry up to KV_GET_FIRST (WRITE 24 B, ALLOC entry,
	 * 32-byte CAS, READ 8 B) fits a 1500-byte MTU minus the 20-byte PRISM
	 * header (56-byte ops), as does a GET reply of KV_GET_FIRST.
	 */
	ok(56 + 24 + 56 + KV_GET_FIRST + 56 + 3 * 32 + 56 <= 1480,
	   "PUT chain of a first-read-sized entry fits one frame");
}

static void test_info(void)
{
	struct kv_info a = { 0 }, b;
	char line[1024];
	int i;

	a.proto = KV_PROTO_PILAF;
	memcpy(a.mac, "\x02\x00\xab\xcd\xef\x01", 6);
	a.ep = 7;
	a.rkey = 0xfedcba9876543210ull;
	a.base = 0x7f0000000000ull;
	a.len = 1 << 20;
	a.table = a.base + KV_TABLE_OFFSET;
	a.nslots = 1024;
	a.empty = a.base;
	a.pid = 1234;
	for (i = 0; i < KV_NCLASSES; i++) {
		a.fl_size[i] = kv_class_size[i];
		a.fl_id[i] = (uint32_t)i + 10;
	}
	ok(kv_info_format(&a, line, sizeof(line)) > 0 && !kv_info_parse(line, &b) &&
	   !memcmp(&a, &b, sizeof(a)), "address line round trip");
	strcpy(a.keys, "/tmp/kv.info.keys");
	ok(kv_info_format(&a, line, sizeof(line)) > 0 &&
	   strstr(line, " keys=/tmp/kv.info.keys") && !kv_info_parse(line, &b) &&
	   !memcmp(&a, &b, sizeof(a)), "address line of a keyed region round trip");
	a.keys[0] = 0;
	ok(kv_info_parse("proto=prism mac=02:00:00:00:00:01 ep=1", &b) == -EINVAL,
	   "incomplete address line refused");
	line[strlen(line) - 1] = 0;
	strcat(line, " slots=1000\n");
	ok(kv_info_parse(line, &b) == -EINVAL, "non-power-of-two slot count refused");
	ok(kv_info_format(&a, line, 40) == -ENOSPC, "short buffer reported");
}

static void test_rpc(void)
{
	unsigned char buf[KV_RPC_HDR + 64];
	struct kv_rpc_req r = { KV_RPC_PUT, 1, 99, 5, (const uint8_t *)"key", 3,
				(const uint8_t *)"value", 5 }, d;
	struct kv_rpc_reply rep = { -EAGAIN, 99, 6 }, rd;
	int len = kv_rpc_req_encode(buf, sizeof(buf), &r);

	ok(len == (int)KV_RPC_HDR + 8 && !kv_rpc_req_decode(buf, (size_t)len, &d) &&
	   d.op == KV_RPC_PUT && d.conditional == 1 && d.req_id == 99 &&
	   d.expected == 5 && d.klen == 3 && !memcmp(d.key, "key", 3) &&
	   d.vlen == 5 && !memcmp(d.val, "value", 5), "RPC request round trip");
	ok(kv_rpc_req_decode(buf, (size_t)len + 1, &d) == -EBADMSG,
	   "RPC length mismatch refused");
	kv_rpc_reply_encode(buf, &rep);
	ok(!kv_rpc_reply_decode(buf, KV_RPC_REPLY_LEN, &rd) && rd.err == -EAGAIN &&
	   rd.req_id == 99 && rd.version == 6, "RPC reply round trip");
}

static void test_zipf(void)
{
	const uint64_t n = 1000, draws = 200000;
	uint64_t *count = calloc(n, sizeof(*count)), i, out_of_range = 0;
	struct kv_keygen g;
	struct kv_rng r;
	double p0, p1, p9, zeta = 0;

	/* The ranks kv bench draws: prism_util's Zipf from kv's splitmix64. */
	ok(!kv_keygen_init(&g, n, 1, 0.99), "Zipf key chooser");
	kv_rng_seed(&r, 1);
	for (i = 0; i < draws; i++) {
		uint64_t v = pu_zipf_pick(&g.z, kv_rng_unit(&r));

		if (v >= n)
			out_of_range++;
		else
			count[v]++;
	}
	ok(!out_of_range, "Zipf ranks stay below n");
	/* P(rank k) = 1 / ((k + 1)^theta * zeta(n, theta)) */
	for (i = 1; i <= n; i++)
		zeta += 1.0 / pow((double)i, 0.99);
	p0 = 1.0 / zeta;
	p1 = p0 / pow(2, 0.99);
	p9 = p0 / pow(10, 0.99);
	ok(fabs((double)count[0] / draws - p0) < 0.01, "P(rank 0) %.4f ~ %.4f",
	   (double)count[0] / draws, p0);
	ok(fabs((double)count[1] / draws - p1) < 0.01, "P(rank 1) %.4f ~ %.4f",
	   (double)count[1] / draws, p1);
	ok(fabs((double)count[9] / draws - p9) < 0.005, "P(rank 9) %.4f ~ %.4f",
	   (double)count[9] / draws, p9);
	memset(count, 0, n * sizeof(*count));
	for (i = 0; i < draws; i++)
		count[kv_keygen_next(&g, &r)]++;
	for (i = 0; i < n && count[i] < (uint64_t)(draws * p0 * 0.8); i++)
		;
	ok(i < n && i != 0, "scrambled Zipf: the hottest key (%llu) is not key 0",
	   (unsigned long long)i);
	kv_keygen_free(&g);
	memset(count, 0, n * sizeof(*count));
	ok(!kv_keygen_init(&g, n, 0, 0) && !g.z.cdf, "uniform key chooser (no table)");
	for (i = 0; i < draws; i++)
		count[kv_keygen_next(&g, &r)]++;
	{
		uint64_t lo = draws, hi = 0;

		for (i = 0; i < n; i++) {
			lo = count[i] < lo ? count[i] : lo;
			hi = count[i] > hi ? count[i] : hi;
		}
		ok(lo > 120 && hi < 290, "uniform keys: every key 120..290 of 200 (%llu..%llu)",
		   (unsigned long long)lo, (unsigned long long)hi);
	}
	free(count);
}

/* Bench records: 8-byte keys, values a reader can recognise. */
static void test_records(void)
{
	unsigned char v[600];
	char key[16];

	ok(kv_key_name(0, key, sizeof(key)) == KV_KEY_LEN &&
	   !strcmp(key, "00000000"), "record 0 is key 00000000 (%s)", key);
	ok(kv_key_name(8388607, key, sizeof(key)) == KV_KEY_LEN &&
	   !strcmp(key, "007fffff"), "record 8M-1 is key 007fffff (%s)", key);
	ok(kv_key_name(KV_MAX_RECORDS - 1, key, sizeof(key)) == KV_KEY_LEN &&
	   kv_key_name(KV_MAX_RECORDS, key, sizeof(key)) == -EINVAL,
	   "keys stay 8 bytes: record 2^32 is refused");
	kv_value_fill(v, sizeof(v), 12345, 7);
	ok(kv_value_ok(v, sizeof(v)), "a filled value is recognised");
	v[511] ^= 1;
	ok(!kv_value_ok(v, sizeof(v)), "one changed byte is not");
	kv_value_fill(v, 300, 1, 0);
	kv_value_fill(v + 300, 300, 2, 0);
	ok(!kv_value_ok(v, sizeof(v)), "nor two values spliced (a torn read)");
}

int main(void)
{
	planned = 46;
	printf("TAP version 13\n1..%d\n", planned);
	test_hash();
	test_slot();
	test_entry();
	test_classes();
	test_info();
	test_rpc();
	test_zipf();
	test_records();
	if (tap_run != planned)
		printf("# planned %d tests, ran %d\n", planned, tap_run);
	return tap_failed || tap_run != planned;
}
