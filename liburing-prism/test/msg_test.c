// SPDX-License-Identifier: MIT
/*
 * Unit tests of completion parsing, address helpers and the blocking API
 * (against a fake target over a socketpair).
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "fake_target.h"
#include "tap.h"

static _Alignas(8) unsigned char mb[512];

/* Completion with 2 results: op0 READ 8 bytes, op1 CAS_FAILED 4 bytes. */
static struct prism_msg *make_msg(void)
{
	struct prism_msg *m = (void *)mb;

	memset(mb, 0, sizeof(mb));
	m->kind = PRISM_MSG_COMPLETION;
	m->status = PRISM_S_OK;
	m->nops = 2;
	m->user_data = 99;
	m->res[0].status = PRISM_S_OK;
	m->res[0].len = 8;
	m->res[0].offset = 48;
	m->res[1].status = PRISM_S_CMP_FAILED;
	m->res[1].len = 4;
	m->res[1].offset = 56;
	prism_put_le64(mb + 48, 0x0123456789abcdefULL);
	memcpy(mb + 56, "WXYZ", 4);
	m->len = 64;
	return m;
}

static void test_msg_ok(void)
{
	struct prism_msg *m = make_msg();
	const unsigned char *p;
	__u32 len;
	__u64 v = 0;

	CHECK_EQ(prism_msg_check(mb, 64), 0);
	CHECK_EQ(prism_msg_check(mb, 100), 0);
	CHECK(prism_msg_is_completion(m));
	CHECK(prism_msg_result(m, 0) == &m->res[0]);
	CHECK(prism_msg_result(m, 1) == &m->res[1]);
	CHECK(prism_msg_result(m, 2) == NULL);
	CHECK_EQ(prism_msg_op_status(m, 1), PRISM_S_CMP_FAILED);
	CHECK_EQ(prism_msg_op_status(m, 2), -1);
	p = prism_msg_data(m, 0, &len);
	CHECK(p == mb + 48);
	CHECK_EQ(len, 8);
	CHECK_EQ(prism_msg_u64(m, 0, &v), 0);
	CHECK(v == 0x0123456789abcdefULL);
	p = prism_msg_data(m, 1, &len);
	CHECK(p && !memcmp(p, "WXYZ", 4));
	CHECK_EQ(len, 4);
	CHECK_EQ(prism_msg_u64(m, 1, &v), -ENODATA);
	CHECK(prism_msg_data(m, 5, &len) == NULL);
	CHECK_EQ(len, 0);
	CHECK(prism_msg_send_data(m, &len) == NULL);
}

static void test_msg_bounds(void)
{
	struct prism_msg *m = make_msg();
	__u32 len;

	CHECK_EQ(prism_msg_check(mb, 63), -EMSGSIZE);
	CHECK_EQ(prism_msg_check(mb, 15), -EPROTO);
	m->len = 8;
	CHECK_EQ(prism_msg_check(mb, 64), -EPROTO);
	/* results do not fit in len */
	m = make_msg();
	m->len = 40;
	CHECK_EQ(prism_msg_check(mb, 64), -EPROTO);
	CHECK(prism_msg_result(m, 0) != NULL);
	CHECK(prism_msg_result(m, 1) == NULL);
	m = make_msg();
	m->nops = PRISM_MAX_CHAIN + 1;
	m->len = 512;
	CHECK_EQ(prism_msg_check(mb, 512), -EPROTO);
	m = make_msg();
	m->kind = 7;
	CHECK_EQ(prism_msg_check(mb, 64), -EPROTO);
	CHECK(prism_msg_result(m, 0) == NULL);

	/* Output beyond len, overlapping the results, or wrapping. */
	m = make_msg();
	m->res[1].len = 9;
	CHECK(prism_msg_data(m, 1, &len) == NULL);
	CHECK_EQ(len, 0);
	m->res[1].len = 4;
	m->res[1].offset = 40;
	CHECK(prism_msg_data(m, 1, &len) == NULL);
	m->res[1].offset = 0xfffffff0u;
	m->res[1].len = 0x20;
	CHECK(prism_msg_data(m, 1, &len) == NULL);
	m->res[1].offset = 64;
	m->res[1].len = 0;
	CHECK(prism_msg_data(m, 1, &len) == NULL);
}

/*
 * A completion whose outputs went to an output buffer: results alone,
 * offsets into the buffer; prism_msg_outbuf_data() checks them against
 * the buffer, prism_msg_data() finds nothing in the message.
 */
static void test_msg_outbuf(void)
{
	struct prism_msg *m = make_msg();
	_Alignas(8) unsigned char ob[16];
	const unsigned char *p;
	__u32 len;

	m->len = 48;
	m->res[0].offset = 0;
	m->res[1].offset = 8;
	CHECK_EQ(prism_msg_check(mb, 48), 0);
	p = prism_msg_outbuf_data(m, 0, ob, sizeof(ob), &len);
	CHECK(p == ob);
	CHECK_EQ(len, 8);
	p = prism_msg_outbuf_data(m, 1, ob, sizeof(ob), &len);
	CHECK(p == ob + 8);
	CHECK_EQ(len, 4);
	CHECK(prism_msg_data(m, 0, &len) == NULL);
	CHECK_EQ(len, 0);
	/* Outside the buffer, wrapping, no output, no buffer, no result. */
	CHECK(prism_msg_outbuf_data(m, 1, ob, 11, &len) == NULL);
	CHECK_EQ(len, 0);
	CHECK(prism_msg_outbuf_data(m, 1, ob, 12, &len) == ob + 8);
	m->res[1].offset = 0xfffffff0u;
	m->res[1].len = 0x20;
	CHECK(prism_msg_outbuf_data(m, 1, ob, sizeof(ob), &len) == NULL);
	m->res[1].offset = 8;
	m->res[1].len = 0;
	CHECK(prism_msg_outbuf_data(m, 1, ob, sizeof(ob), &len) == NULL);
	CHECK(prism_msg_outbuf_data(m, 0, NULL, sizeof(ob), &len) == NULL);
	CHECK(prism_msg_outbuf_data(m, 2, ob, sizeof(ob), &len) == NULL);
	CHECK(prism_msg_outbuf_data(m, 0, ob, sizeof(ob), NULL) == ob);
}

static void test_msg_send(void)
{
	struct prism_msg *m = (void *)mb;
	const char *p;
	__u32 len;

	memset(mb, 0, sizeof(mb));
	m->kind = PRISM_MSG_SEND;
	m->len = sizeof(*m) + 5;
	memcpy(mb + sizeof(*m), "hello", 5);
	CHECK_EQ(prism_msg_check(mb, m->len), 0);
	p = prism_msg_send_data(m, &len);
	CHECK(p && !memcmp(p, "hello", 5));
	CHECK_EQ(len, 5);
	CHECK(prism_msg_result(m, 0) == NULL);
	CHECK(!prism_msg_is_completion(m));
}

static void test_strings(void)
{
	__u8 mac[6];
	char s[18];

	CHECK(!strcmp(prism_status_str(PRISM_S_OK), "OK"));
	CHECK(!strcmp(prism_status_str(PRISM_S_TIMEOUT), "TIMEOUT"));
	CHECK(!strcmp(prism_status_str(PRISM_S_ABORTED), "ABORTED"));
	CHECK(!strcmp(prism_status_str(PRISM_S_AUTH_FAILED), "AUTH_FAILED"));
	CHECK(!strcmp(prism_status_str(PRISM_S_MAX + 1), "UNKNOWN"));
	CHECK(!strcmp(prism_status_str(-1), "UNKNOWN"));
	CHECK_EQ(prism_parse_mac("02:aB:0c:dd:ee:7F", mac), 0);
	CHECK(!strcmp(prism_format_mac(mac, s), "02:ab:0c:dd:ee:7f"));
	CHECK_EQ(prism_parse_mac("02-ab-0c-dd-ee-7f", mac), 0);
	CHECK_EQ(prism_parse_mac("02:ab:0c:dd:ee", mac), -EINVAL);
	CHECK_EQ(prism_parse_mac("02:ab:0c:dd:ee:7f:00", mac), -EINVAL);
	CHECK_EQ(prism_parse_mac("0g:ab:0c:dd:ee:7f", mac), -EINVAL);
	CHECK_EQ(prism_parse_mac("", mac), -EINVAL);
}

static void test_family_and_addr(void)
{
	struct sockaddr_prism sa;
	const __u8 mac[6] = { 2, 0, 0, 0, 0, 9 };
	int fam = prism_family();

	/* Module loaded: its parameter; otherwise the default. */
	if (access("/sys/module/prism/parameters/family", R_OK))
		CHECK_EQ(fam, PRISM_DEFAULT_FAMILY);
	CHECK(fam > 0 && fam < 256);
	memset(&sa, 0x77, sizeof(sa));
	prism_addr_init(&sa, mac, 1234);
	CHECK_EQ(sa.sprism_family, fam);
	CHECK_EQ(sa.sprism_ep, 1234);
	CHECK_EQ(sa.sprism_kind, 0);
	CHECK_EQ(sa.sprism_ifindex, 0);
	CHECK(!memcmp(sa.sprism_mac, mac, 6));
	CHECK_EQ(sa.sprism_zero[0] | sa.sprism_zero[1], 0);
}

static void test_blocking_execute(void)
{
	_Alignas(8) unsigned char cb[256], out[512];
	struct prism_chain_buf c;
	const struct prism_msg *m = (void *)out;
	struct fake_target t;
	const unsigned char *p;
	struct timeval tv = { .tv_sec = 5 };
	__u32 len, i;
	__u64 v = 0;
	ssize_t n;
	int fd = -1;

	CHECK_EQ(fake_target_start(&t, &fd), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/* Noise first (a SEND and someone else's completion): dropped. */
	prism_chain_init(&c, cb, sizeof(cb), FAKE_NOISE | 42);
	prism_prep_read(&c, 1, 1000, 24);
	prism_prep_alloc(&c, 1, 3, "abc", 3);
	n = prism_execute(fd, NULL, &c, out, sizeof(out));
	CHECK(n > 0);
	if (n > 0) {
		CHECK_EQ(n, m->len);
		CHECK(m->user_data == (FAKE_NOISE | 42));
		CHECK_EQ(m->nops, 2);
		p = prism_msg_data(m, 0, &len);
		CHECK_EQ(len, 24);
		for (i = 0; p && i < len; i++)
			CHECK_EQ(p[i], fake_byte(1000 + i));
		CHECK_EQ(prism_msg_u64(m, 1, &v), 0);
		CHECK(v == 0x100000 + (FAKE_NOISE | 42));
	}

	/* Short buffer: truncated completion reported, not misparsed. */
	prism_chain_init(&c, cb, sizeof(cb), 43);
	prism_prep_read(&c, 1, 0, 200);
	n = prism_execute(fd, NULL, &c, out, 64);
	CHECK_EQ(n, -EMSGSIZE);
	CHECK_EQ(prism_execute(fd, NULL, &c, out, 8), -EINVAL);

	/* prism_wait on a plain submit. */
	prism_chain_init(&c, cb, sizeof(cb), 44);
	prism_prep_read(&c, 1, 5, 3);
	CHECK_EQ(prism_submit(fd, NULL, &c), 0);
	n = prism_wait(fd, out, sizeof(out));
	CHECK_EQ(n, sizeof(struct prism_msg) + 16 + 8);
	CHECK(m->user_data == 44);

	/* Failed chains are never sent. */
	prism_chain_init(&c, cb, sizeof(cb), 45);
	CHECK_EQ(prism_submit(fd, NULL, &c), -EINVAL);
	prism_prep_read(&c, 1, 5, 0);
	CHECK_EQ(prism_submit(fd, NULL, &c), -EINVAL);
	CHECK_EQ(prism_wait_from(fd, out, sizeof(out), NULL, MSG_DONTWAIT), -EAGAIN);

	fake_target_stop(&t, fd);
	CHECK_EQ(t.bad, 0);
	CHECK_EQ(t.chains, 3);
	close(fd);
}

/*
 * One op larger than the old 64 KiB limit (up to 1 MiB where the
 * socketpair carries it) through the blocking calls; the completion
 * buffer is exactly prism_chain_completion_size().
 */
static void test_blocking_large(void)
{
	_Alignas(8) unsigned char cb[256];
	struct timeval tv = { .tv_sec = 5 };
	struct prism_chain_buf c;
	const struct prism_msg *m;
	unsigned char *wbuf, *data, *out;
	const unsigned char *p;
	struct fake_target t;
	size_t cap, bad = 0;
	ssize_t n, need;
	__u32 len, k, got;
	int fd = -1;

	CHECK_EQ(fake_target_start(&t, &fd), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	len = fake_large_len(&t, fd);
	printf("#   op size %u\n", len);
	CHECK(len >= 128 << 10);
	cap = sizeof(struct prism_chain) + sizeof(struct prism_op) + len;
	wbuf = aligned_alloc(8, cap);
	data = malloc(len);
	out = malloc(32 + (size_t)len);
	CHECK(wbuf && data && out);
	if (!wbuf || !data || !out || len < 128 << 10)
		goto out;
	m = (const void *)out;

	/* WRITE len bytes: the chain is header, op and data, nothing more. */
	for (k = 0; k < len; k++)
		data[k] = fake_byte(0x10000 + k);
	prism_chain_init(&c, wbuf, cap, 50);
	CHECK(prism_prep_write(&c, 1, 0x10000, data, len) != NULL);
	CHECK_EQ(prism_chain_len(&c), 16 + 56 + len);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 16);
	CHECK_EQ(prism_execute(fd, NULL, &c, out, 32), 32);
	CHECK(m->user_data == 50 && m->status == PRISM_S_OK);

	/* READ len bytes into a buffer of exactly the completion's size. */
	prism_chain_init(&c, cb, sizeof(cb), 51);
	prism_prep_read(&c, 1, 0x200000, len);
	need = prism_chain_completion_size(&c);
	CHECK_EQ(need, 16 + 16 + len);
	n = prism_execute(fd, NULL, &c, out, (size_t)need);
	CHECK_EQ(n, need);
	if (n == need) {
		p = prism_msg_data(m, 0, &got);
		CHECK_EQ(got, len);
		for (k = 0; p && k < got; k++)
			bad += p[k] != fake_byte(0x200000 + k);
		CHECK_EQ(bad, 0);
	}
	/* 8 bytes short: the completion is truncated and reported. */
	CHECK_EQ(prism_execute(fd, NULL, &c, out, (size_t)need - 8), -EMSGSIZE);
out:
	fake_target_stop(&t, fd);
	CHECK_EQ(t.bad, 0);
	CHECK_EQ(t.write_bytes, len);
	close(fd);
	free(wbuf);
	free(data);
	free(out);
}

int main(void)
{
	tap_plan(8);
	RUN(test_msg_ok);
	RUN(test_msg_bounds);
	RUN(test_msg_outbuf);
	RUN(test_msg_send);
	RUN(test_strings);
	RUN(test_family_and_addr);
	RUN(test_blocking_execute);
	RUN(test_blocking_large);
	return tap_done();
}
