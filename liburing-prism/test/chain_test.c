// SPDX-License-Identifier: MIT
/*
 * Unit tests of the chain builder: byte-exact encoding, padding, limits
 * and error reporting.  Expected bytes are assembled at explicit offsets,
 * independently of the struct definitions.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>

#include "liburing-prism.h"
#include "tap.h"

#define CHAIN_HDR	16
#define OP_SIZE		56

static _Alignas(8) unsigned char buf[4096];
static _Alignas(8) unsigned char exp_buf[4096];
static struct prism_chain_buf c;

static void put(unsigned char *b, size_t off, unsigned int size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(b + off, &u8, 1);
		break;
	case 2:
		memcpy(b + off, &u16, 2);
		break;
	case 4:
		memcpy(b + off, &u32, 4);
		break;
	default:
		memcpy(b + off, &v, 8);
		break;
	}
}

static void exp_hdr(uint64_t ud, uint32_t timeout, uint8_t nops)
{
	memset(exp_buf, 0, sizeof(exp_buf));
	put(exp_buf, 0, 8, ud);
	put(exp_buf, 8, 4, timeout);
	put(exp_buf, 12, 1, nops);
}

struct eop {
	uint8_t opcode, mode;
	uint16_t flags;
	uint32_t len;
	uint64_t rkey, addr, redirect, arg, swap;
	uint32_t data_len;
};

/* Expected op at off; returns the offset after it and its padded data. */
static size_t exp_op(size_t off, const struct eop *o, const void *data)
{
	put(exp_buf, off + 0, 1, o->opcode);
	put(exp_buf, off + 1, 1, o->mode);
	put(exp_buf, off + 2, 2, o->flags);
	put(exp_buf, off + 4, 4, o->len);
	put(exp_buf, off + 8, 8, o->rkey);
	put(exp_buf, off + 16, 8, o->addr);
	put(exp_buf, off + 24, 8, o->redirect);
	put(exp_buf, off + 32, 8, o->arg);
	put(exp_buf, off + 40, 8, o->swap);
	put(exp_buf, off + 48, 4, o->data_len);
	put(exp_buf, off + 52, 4, 0);
	off += OP_SIZE;
	if (o->data_len)
		memcpy(exp_buf + off, data, o->data_len);
	return off + ((o->data_len + 7) / 8) * 8;
}

/* Fresh chain over a buffer full of garbage (padding must be zeroed). */
static void start(uint64_t ud)
{
	memset(buf, 0xa5, sizeof(buf));
	CHECK_EQ(prism_chain_init(&c, buf, sizeof(buf), ud), 0);
}

static void check_chain(size_t len)
{
	CHECK_EQ(prism_chain_len(&c), (long long)len);
	CHECK_MEM(buf, exp_buf, len);
	/* Nothing written past the chain. */
	CHECK_EQ(buf[len], 0xa5);
}

static void test_abi_layout(void)
{
	CHECK_EQ(sizeof(struct prism_chain), CHAIN_HDR);
	CHECK_EQ(sizeof(struct prism_op), OP_SIZE);
	CHECK_EQ(offsetof(struct prism_op, len), 4);
	CHECK_EQ(offsetof(struct prism_op, rkey), 8);
	CHECK_EQ(offsetof(struct prism_op, redirect), 24);
	CHECK_EQ(offsetof(struct prism_op, swap_addr), 40);
	CHECK_EQ(offsetof(struct prism_op, data_len), 48);
	CHECK_EQ(offsetof(struct prism_chain, nops), 12);
	CHECK_EQ(sizeof(struct prism_msg), 16);
	CHECK_EQ(sizeof(struct prism_op_result), 16);
	CHECK_EQ(offsetof(struct prism_msg, res), 16);
	CHECK_EQ(offsetof(struct prism_op_result, offset), 8);
	CHECK_EQ(sizeof(struct sockaddr_prism), 20);
	CHECK_EQ(offsetof(struct sockaddr_prism, sprism_ep), 8);
	CHECK_EQ(offsetof(struct sockaddr_prism, sprism_mac), 12);
}

static void test_init(void)
{
	start(0x1122334455667788ULL);
	exp_hdr(0x1122334455667788ULL, 0, 0);
	CHECK_MEM(buf, exp_buf, CHAIN_HDR);
	CHECK_EQ(c.len, CHAIN_HDR);
	CHECK_EQ(prism_chain_nops(&c), 0);
	/* A chain without ops cannot be sent. */
	CHECK_EQ(prism_chain_len(&c), -EINVAL);
	prism_chain_set_timeout(&c, 250);
	prism_chain_set_user_data(&c, 7);
	exp_hdr(7, 250, 0);
	CHECK_MEM(buf, exp_buf, CHAIN_HDR);

	CHECK_EQ(prism_chain_init(&c, buf + 4, 100, 1), -EINVAL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	CHECK(prism_prep_read(&c, 1, 2, 3) == NULL);
	CHECK_EQ(prism_chain_len(&c), -EINVAL);
	CHECK_EQ(prism_chain_init(&c, NULL, 100, 1), -EINVAL);
	CHECK_EQ(prism_chain_init(&c, buf, CHAIN_HDR - 1, 1), -ENOSPC);
	CHECK_EQ(prism_chain_len(&c), -ENOSPC);
	CHECK_EQ(prism_chain_init(&c, buf, CHAIN_HDR, 1), 0);
	CHECK(prism_prep_read(&c, 1, 2, 3) == NULL);
	CHECK_EQ(prism_chain_error(&c), -ENOSPC);
}

static void test_read(void)
{
	struct eop o = { .opcode = PRISM_OP_READ, .len = 512,
			 .rkey = 0xdeadbeefcafef00dULL, .addr = 0x7f0012345678ULL };
	struct prism_op *op;
	size_t off;

	start(1);
	op = prism_prep_read(&c, o.rkey, o.addr, 512);
	CHECK(op == (struct prism_op *)(void *)(buf + CHAIN_HDR));
	exp_hdr(1, 0, 1);
	off = exp_op(CHAIN_HDR, &o, NULL);
	check_chain(off);
	CHECK_EQ(off, CHAIN_HDR + OP_SIZE);

	start(2);
	prism_prep_read_indirect(&c, 5, 0x1000, 64);
	exp_hdr(2, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_READ, .flags = PRISM_F_INDIRECT,
			  .len = 64, .rkey = 5, .addr = 0x1000 };
	check_chain(exp_op(CHAIN_HDR, &o, NULL));

	start(3);
	prism_prep_read_bounded(&c, 5, 0x1000, 4096);
	exp_hdr(3, 0, 1);
	o.flags = PRISM_F_INDIRECT | PRISM_F_BOUNDED;
	o.len = 4096;
	check_chain(exp_op(CHAIN_HDR, &o, NULL));
	CHECK_EQ(PRISM_F_INDIRECT | PRISM_F_BOUNDED, 3);

	start(4);
	CHECK(prism_prep_read(&c, 5, 0x1000, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	CHECK_EQ(prism_chain_nops(&c), 0);
}

static void test_write_padding(void)
{
	static const unsigned char data[24] = "abcdefghijklmnopqrstuvw";
	unsigned int lens[] = { 1, 5, 7, 8, 9, 16, 17, 24 };
	struct eop o;
	unsigned int i;
	size_t off;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		start(i);
		CHECK(prism_prep_write(&c, 9, 0x2000 + i, data, lens[i]));
		exp_hdr(i, 0, 1);
		o = (struct eop){ .opcode = PRISM_OP_WRITE, .len = lens[i],
				  .rkey = 9, .addr = 0x2000 + i,
				  .data_len = lens[i] };
		off = exp_op(CHAIN_HDR, &o, data);
		CHECK_EQ(off, CHAIN_HDR + OP_SIZE + (lens[i] + 7) / 8 * 8);
		check_chain(off);
	}

	start(20);
	prism_prep_write_indirect(&c, 9, 0x3000, data, 3);
	exp_hdr(20, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_WRITE, .flags = PRISM_F_INDIRECT,
			  .len = 3, .rkey = 9, .addr = 0x3000, .data_len = 3 };
	check_chain(exp_op(CHAIN_HDR, &o, data));

	start(21);
	CHECK(prism_prep_write(&c, 9, 0x3000, NULL, 3) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(22);
	CHECK(prism_prep_write(&c, 9, 0x3000, data, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
}

static void test_write_data_indirect(void)
{
	struct eop o = { .opcode = PRISM_OP_WRITE,
			 .flags = PRISM_F_DATA_INDIRECT, .len = 100, .rkey = 4,
			 .addr = 0x5000, .arg = 0x6000 };

	start(5);
	CHECK(prism_prep_write_data_indirect(&c, 4, 0x5000, 0x6000, 100));
	exp_hdr(5, 0, 1);
	check_chain(exp_op(CHAIN_HDR, &o, NULL));

	start(6);
	CHECK(prism_prep_write_data_indirect(&c, 4, 0x5000, 0x6000, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
}

static void test_cas_inline(void)
{
	unsigned char cmp[32], swp[32], cm[32], sm[32], d[128];
	unsigned int lens[] = { 1, 3, 8, 16, 32 };
	unsigned int i, j, len;
	struct eop o;

	for (i = 0; i < 32; i++) {
		cmp[i] = (unsigned char)(0x10 + i);
		swp[i] = (unsigned char)(0x80 + i);
		cm[i] = (unsigned char)(i & 1 ? 0xff : 0x0f);
		sm[i] = (unsigned char)(i & 2 ? 0xf0 : 0xff);
	}
	for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
		len = lens[j];
		start(j);
		CHECK(prism_prep_cas(&c, 3, 0x8000, len, PRISM_CAS_GE, cmp, swp,
				     cm, sm));
		/* compare, swap, compare mask, swap mask */
		memcpy(d, cmp, len);
		memcpy(d + len, swp, len);
		memcpy(d + 2 * len, cm, len);
		memcpy(d + 3 * len, sm, len);
		exp_hdr(j, 0, 1);
		o = (struct eop){ .opcode = PRISM_OP_CAS, .mode = PRISM_CAS_GE,
				  .len = len, .rkey = 3, .addr = 0x8000,
				  .data_len = 4 * len };
		check_chain(exp_op(CHAIN_HDR, &o, d));
	}

	/* NULL masks are all ones. */
	start(10);
	prism_prep_cas(&c, 3, 0x8000, 3, PRISM_CAS_EQ, cmp, swp, NULL, NULL);
	memcpy(d, cmp, 3);
	memcpy(d + 3, swp, 3);
	memset(d + 6, 0xff, 6);
	exp_hdr(10, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_CAS, .len = 3, .rkey = 3,
			  .addr = 0x8000, .data_len = 12 };
	check_chain(exp_op(CHAIN_HDR, &o, d));

	/* Indirect target. */
	start(11);
	prism_prep_cas_indirect(&c, 3, 0x8008, 8, PRISM_CAS_LT, cmp, swp, cm, sm);
	memcpy(d, cmp, 8);
	memcpy(d + 8, swp, 8);
	memcpy(d + 16, cm, 8);
	memcpy(d + 24, sm, 8);
	exp_hdr(11, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_CAS, .mode = PRISM_CAS_LT,
			  .flags = PRISM_F_INDIRECT, .len = 8, .rkey = 3,
			  .addr = 0x8008, .data_len = 32 };
	check_chain(exp_op(CHAIN_HDR, &o, d));
}

static void test_cas_u64(void)
{
	unsigned char d[32];
	struct eop o = { .opcode = PRISM_OP_CAS, .mode = PRISM_CAS_NE, .len = 8,
			 .rkey = 1, .addr = 0x40, .data_len = 32 };
	static const unsigned char le_cmp[8] = { 0x08, 0x07, 0x06, 0x05,
						 0x04, 0x03, 0x02, 0x01 };

	start(1);
	prism_prep_cas_u64(&c, 1, 0x40, PRISM_CAS_NE, 0x0102030405060708ULL, 42);
	memcpy(d, le_cmp, 8);
	memset(d + 8, 0, 8);
	d[8] = 42;
	memset(d + 16, 0xff, 16);
	exp_hdr(1, 0, 1);
	check_chain(exp_op(CHAIN_HDR, &o, d));
	CHECK_EQ(prism_get_le64(le_cmp), 0x0102030405060708LL);
}

static void test_cas_indirect_args(void)
{
	unsigned char cmp[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, d[64];
	unsigned char cm[8] = { 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	struct eop o;

	/* Compare from memory: data = swap, cmask, smask. */
	start(1);
	prism_prep_cas_ex(&c, 2, 0x100, 8, PRISM_CAS_EQ, 0, NULL, 0x200,
			  cmp, 0, cm, NULL);
	memcpy(d, cmp, 8);
	memcpy(d + 8, cm, 8);
	memset(d + 16, 0xff, 8);
	exp_hdr(1, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_CAS,
			  .flags = PRISM_F_CMP_INDIRECT, .len = 8, .rkey = 2,
			  .addr = 0x100, .arg = 0x200, .data_len = 24 };
	check_chain(exp_op(CHAIN_HDR, &o, d));

	/* Swap from memory: data = compare, cmask, smask. */
	start(2);
	prism_prep_cas_ex(&c, 2, 0x100, 8, PRISM_CAS_GT, PRISM_F_INDIRECT, cmp,
			  0, NULL, 0x300, NULL, cm);
	memcpy(d, cmp, 8);
	memset(d + 8, 0xff, 8);
	memcpy(d + 16, cm, 8);
	exp_hdr(2, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_CAS, .mode = PRISM_CAS_GT,
			  .flags = PRISM_F_INDIRECT | PRISM_F_SWAP_INDIRECT,
			  .len = 8, .rkey = 2, .addr = 0x100, .swap = 0x300,
			  .data_len = 24 };
	check_chain(exp_op(CHAIN_HDR, &o, d));

	/* Both from memory: data = masks only; 5 bytes -> padded to 16. */
	start(3);
	prism_prep_cas_ex(&c, 2, 0x100, 5, PRISM_CAS_LE, 0, NULL, 0x200, NULL,
			  0x300, cm, cm);
	memcpy(d, cm, 5);
	memcpy(d + 5, cm, 5);
	exp_hdr(3, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_CAS, .mode = PRISM_CAS_LE,
			  .flags = PRISM_F_CMP_INDIRECT | PRISM_F_SWAP_INDIRECT,
			  .len = 5, .rkey = 2, .addr = 0x100, .arg = 0x200,
			  .swap = 0x300, .data_len = 10 };
	check_chain(exp_op(CHAIN_HDR, &o, d));
	CHECK_EQ(prism_chain_len(&c), CHAIN_HDR + OP_SIZE + 16);
}

static void test_cas_errors(void)
{
	unsigned char v[40] = { 0 };

	start(1);
	CHECK(prism_prep_cas(&c, 1, 0, 33, PRISM_CAS_EQ, v, v, NULL, NULL) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_prep_cas(&c, 1, 0, 0, PRISM_CAS_EQ, v, v, NULL, NULL) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_prep_cas(&c, 1, 0, 8, PRISM_CAS_MODE_MAX + 1, v, v, NULL,
			     NULL) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_prep_cas(&c, 1, 0, 8, PRISM_CAS_EQ, NULL, v, NULL, NULL) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_prep_cas_ex(&c, 1, 0, 8, PRISM_CAS_EQ, PRISM_F_CONDITIONAL,
				v, 0, v, 0, NULL, NULL) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_prep_cas(&c, 1, 0, 32, PRISM_CAS_EQ, v, v, NULL, NULL));
	CHECK_EQ(prism_chain_len(&c), CHAIN_HDR + OP_SIZE + 128);
}

static void test_alloc_send(void)
{
	static const unsigned char val[13] = "hello, prism";
	struct eop o;
	size_t off;

	start(1);
	CHECK(prism_prep_alloc(&c, 0xabc, 7, val, sizeof(val)));
	exp_hdr(1, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_ALLOC, .len = 13, .rkey = 0xabc,
			  .addr = 7, .data_len = 13 };
	check_chain(exp_op(CHAIN_HDR, &o, val));

	start(2);
	CHECK(prism_prep_alloc(&c, 0xabc, 7, NULL, 0));
	exp_hdr(2, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_ALLOC, .rkey = 0xabc, .addr = 7 };
	check_chain(exp_op(CHAIN_HDR, &o, NULL));

	start(3);
	CHECK(prism_prep_alloc(&c, 0xabc, 7, NULL, 5) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);

	start(4);
	CHECK(prism_prep_send(&c, val, 5));
	CHECK(prism_prep_send(&c, val, 8));
	exp_hdr(4, 0, 2);
	o = (struct eop){ .opcode = PRISM_OP_SEND, .len = 5, .data_len = 5 };
	off = exp_op(CHAIN_HDR, &o, val);
	o = (struct eop){ .opcode = PRISM_OP_SEND, .len = 8, .data_len = 8 };
	off = exp_op(off, &o, val);
	CHECK_EQ(off, CHAIN_HDR + 2 * OP_SIZE + 16);
	check_chain(off);
}

/* REKEY: the key inline, the overlap in addr, 8 bytes of output. */
static void test_rekey(void)
{
	static const __u8 key[PRISM_KEY_SIZE] = "0123456789abcde";
	struct prism_op *op;
	struct eop o;

	start(5);
	op = prism_prep_rekey(&c, 0x77, key, 2500);
	CHECK(op != NULL);
	exp_hdr(5, 0, 1);
	o = (struct eop){ .opcode = PRISM_OP_REKEY, .len = PRISM_KEY_SIZE,
			  .rkey = 0x77, .addr = 2500,
			  .data_len = PRISM_KEY_SIZE };
	check_chain(exp_op(CHAIN_HDR, &o, key));
	CHECK_EQ(prism_op_output_len(op), 8);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 16 + 8);
	/* CONDITIONAL (not on the first op); never REDIRECT. */
	CHECK(prism_prep_rekey(&c, 0x77, key, 0) != NULL);
	CHECK_EQ(prism_op_set_conditional(&c, c.last), 0);
	CHECK_EQ(prism_chain_error(&c), 0);
	CHECK_EQ(prism_op_set_redirect(&c, c.last, 64), -EINVAL);
	start(6);
	op = prism_prep_rekey(&c, 0x77, key, 0);
	CHECK_EQ(prism_op_set_redirect_scratch(&c, op, 0), -EINVAL);

	start(7);
	CHECK(prism_prep_rekey(&c, 0x77, key, PRISM_MAX_OVERLAP_MS + 1) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(8);
	CHECK(prism_prep_rekey(&c, 0x77, NULL, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
}

static void test_op_limit(void)
{
	struct prism_op *op;
	size_t len;
	int i;

	start(1);
	for (i = 0; i < PRISM_MAX_CHAIN; i++)
		CHECK(prism_prep_read(&c, 1, (uint64_t)i * 8, 8) != NULL);
	CHECK_EQ(prism_chain_nops(&c), PRISM_MAX_CHAIN);
	len = c.len;
	CHECK_EQ(len, CHAIN_HDR + PRISM_MAX_CHAIN * OP_SIZE);
	op = prism_prep_read(&c, 1, 0, 8);
	CHECK(op == NULL);
	CHECK_EQ(prism_chain_error(&c), -ENOSPC);
	CHECK_EQ(prism_chain_len(&c), -ENOSPC);
	/* The failed op left the buffer alone. */
	CHECK_EQ(c.len, len);
	CHECK_EQ(buf[len], 0xa5);
	CHECK_EQ(((struct prism_chain *)(void *)buf)->nops, PRISM_MAX_CHAIN);
	/* Sticky: later valid calls fail too. */
	CHECK(prism_prep_send(&c, "x", 1) == NULL);
	CHECK_EQ(prism_op_set_conditional(&c, c.last), -ENOSPC);
	CHECK_EQ(c.len, len);
}

static void test_capacity(void)
{
	static _Alignas(8) unsigned char small[CHAIN_HDR + OP_SIZE + 8 + 8];
	const size_t cap = CHAIN_HDR + OP_SIZE + 8;

	memset(small, 0x5a, sizeof(small));
	CHECK_EQ(prism_chain_init(&c, small, cap, 1), 0);
	CHECK(prism_prep_write(&c, 1, 0, "12345678", 8));
	CHECK_EQ(prism_chain_len(&c), (long long)cap);
	CHECK_EQ(small[cap], 0x5a);

	memset(small, 0x5a, sizeof(small));
	CHECK_EQ(prism_chain_init(&c, small, cap, 1), 0);
	CHECK(prism_prep_write(&c, 1, 0, "123456789", 9) == NULL);
	CHECK_EQ(prism_chain_error(&c), -ENOSPC);
	CHECK_EQ(small[CHAIN_HDR], 0x5a);
	CHECK_EQ(small[cap], 0x5a);

	/* Huge data lengths do not overflow the check. */
	CHECK_EQ(prism_chain_init(&c, small, cap, 1), 0);
	CHECK(prism_chain_add_op(&c, PRISM_OP_WRITE, 0, 1, 0, 0, 0xffffffffu) == NULL);
	CHECK_EQ(prism_chain_error(&c), -ENOSPC);
}

static void test_low_level_errors(void)
{
	start(1);
	CHECK(prism_chain_add_op(&c, 0, 0, 8, 0, 0, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_MAX + 1, 0, 8, 0, 0, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_READ, PRISM_F_ALL + 1, 8, 0, 0, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_READ, PRISM_F_INDIRECT |
				 PRISM_F_BOUNDED | PRISM_F_REDIRECT, 8, 0, 0, 0) != NULL);
	CHECK_EQ(prism_chain_error(&c), 0);
	/* Flags that do not suit the opcode. */
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_READ, PRISM_F_DATA_INDIRECT, 8,
				 0, 0, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_READ, PRISM_F_BOUNDED, 8, 0, 0, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_WRITE, PRISM_F_REDIRECT, 8, 0, 0, 8) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_ALLOC, PRISM_F_INDIRECT, 8, 0, 0, 8) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_SEND, PRISM_F_ADDR_SCRATCH, 8, 0, 0, 8) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	/* CONDITIONAL needs a previous op. */
	start(1);
	CHECK(prism_chain_add_op(&c, PRISM_OP_READ, PRISM_F_CONDITIONAL, 8, 0, 0, 0) == NULL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(1);
	CHECK(prism_prep_read(&c, 1, 0, 8));
	CHECK(prism_chain_add_op(&c, PRISM_OP_READ, PRISM_F_CONDITIONAL, 8, 0, 0, 0) != NULL);
	CHECK_EQ(prism_chain_error(&c), 0);
}

static void test_setters(void)
{
	struct prism_op *rd, *wr, *al, *cas, *snd, *wdi;
	unsigned char v[8] = { 0 };

	start(1);
	rd = prism_prep_read(&c, 1, 0x10, 8);
	/* The first op cannot be conditional. */
	CHECK_EQ(prism_op_set_conditional(&c, rd), -EINVAL);
	CHECK_EQ(rd->flags, 0);
	start(1);
	prism_prep_read(&c, 1, 0x0, 8);
	rd = prism_prep_read(&c, 1, 0x10, 8);
	CHECK_EQ(prism_op_set_conditional(&c, rd), 0);
	CHECK_EQ(rd->flags, PRISM_F_CONDITIONAL);
	CHECK_EQ(prism_op_set_redirect(&c, rd, 0x4000), 0);
	CHECK_EQ(rd->flags, PRISM_F_CONDITIONAL | PRISM_F_REDIRECT);
	CHECK_EQ(rd->redirect, 0x4000);
	CHECK_EQ(prism_op_set_redirect_scratch(&c, rd, 248), 0);
	CHECK_EQ(rd->flags, PRISM_F_CONDITIONAL | PRISM_F_REDIRECT |
		 PRISM_F_REDIRECT_SCRATCH);
	CHECK_EQ(rd->redirect, 248);
	/* Back to a region address clears REDIRECT_SCRATCH. */
	CHECK_EQ(prism_op_set_redirect(&c, rd, 0x4000), 0);
	CHECK_EQ(rd->flags, PRISM_F_CONDITIONAL | PRISM_F_REDIRECT);
	CHECK_EQ(prism_chain_error(&c), 0);

	/* Scratch bounds: 8 output bytes at 249 do not fit in 256. */
	CHECK_EQ(prism_op_set_redirect_scratch(&c, rd, 249), -EINVAL);
	CHECK_EQ(rd->redirect, 0x4000);

	start(2);
	wr = prism_prep_write(&c, 1, 0x10, v, 8);
	CHECK_EQ(prism_op_set_redirect(&c, wr, 0x10), -EINVAL);
	start(3);
	snd = prism_prep_send(&c, v, 8);
	CHECK_EQ(prism_op_set_redirect_scratch(&c, snd, 0), -EINVAL);
	start(4);
	snd = prism_prep_send(&c, v, 8);
	CHECK_EQ(prism_op_set_addr_scratch(&c, snd), -EINVAL);

	start(5);
	al = prism_prep_alloc(&c, 1, 3, v, 8);
	CHECK_EQ(prism_op_set_redirect_scratch(&c, al, 248), 0);
	CHECK_EQ(al->flags, PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH);
	CHECK_EQ(prism_op_set_addr_scratch(&c, al), -EINVAL);

	/* addr in scratch: span is len, 8 (indirect) or 16 (bounded). */
	start(6);
	rd = prism_prep_read(&c, 1, 240, 16);
	CHECK_EQ(prism_op_set_addr_scratch(&c, rd), 0);
	CHECK_EQ(rd->flags, PRISM_F_ADDR_SCRATCH);
	rd = prism_prep_read_indirect(&c, 1, 248, 64);
	CHECK_EQ(prism_op_set_addr_scratch(&c, rd), 0);
	rd = prism_prep_read_bounded(&c, 1, 240, 64);
	CHECK_EQ(prism_op_set_addr_scratch(&c, rd), 0);
	CHECK_EQ(prism_chain_error(&c), 0);
	rd = prism_prep_read_bounded(&c, 1, 241, 64);
	CHECK_EQ(prism_op_set_addr_scratch(&c, rd), -EINVAL);
	start(7);
	rd = prism_prep_read(&c, 1, 241, 16);
	CHECK_EQ(prism_op_set_addr_scratch(&c, rd), -EINVAL);

	/* Arguments in scratch. */
	start(8);
	wr = prism_prep_write(&c, 1, 0x10, v, 8);
	CHECK_EQ(prism_op_set_arg_scratch(&c, wr), -EINVAL);
	start(9);
	wdi = prism_prep_write_data_indirect(&c, 1, 0x10, 200, 56);
	CHECK_EQ(prism_op_set_arg_scratch(&c, wdi), 0);
	CHECK_EQ(wdi->flags, PRISM_F_DATA_INDIRECT | PRISM_F_ARG_SCRATCH);
	wdi = prism_prep_write_data_indirect(&c, 1, 0x10, 200, 57);
	CHECK_EQ(prism_op_set_arg_scratch(&c, wdi), -EINVAL);
	start(10);
	cas = prism_prep_cas_ex(&c, 1, 0x10, 8, PRISM_CAS_EQ, 0, v, 0, NULL, 250,
				NULL, NULL);
	CHECK_EQ(prism_op_set_arg_scratch(&c, cas), -EINVAL);
	start(11);
	cas = prism_prep_cas_ex(&c, 1, 0x10, 8, PRISM_CAS_EQ, 0, NULL, 0, NULL, 248,
				NULL, NULL);
	CHECK_EQ(prism_op_set_arg_scratch(&c, cas), 0);
	CHECK_EQ(cas->flags, PRISM_F_CMP_INDIRECT | PRISM_F_SWAP_INDIRECT |
		 PRISM_F_ARG_SCRATCH);
	start(12);
	cas = prism_prep_cas(&c, 1, 0x10, 8, PRISM_CAS_EQ, v, v, NULL, NULL);
	CHECK_EQ(prism_op_set_arg_scratch(&c, cas), -EINVAL);

	/* NULL op. */
	start(13);
	CHECK_EQ(prism_op_set_conditional(&c, NULL), -EINVAL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
}

/*
 * PRISM-KV PUT: ALLOC a buffer holding the entry, its address into
 * scratch[0..8); then, only if that worked, CAS the index slot from the
 * expected old pointer to scratch[0..8).
 */
static void test_kv_put_chain(void)
{
	static const unsigned char entry[20] = "key1\0\0\0\0value-one!";
	unsigned char d[64], old[8];
	struct prism_op *al, *cas;
	struct eop o;
	size_t off;

	prism_put_le64(old, 0x7f0000001000ULL);
	start(0x4b56);
	al = prism_prep_alloc(&c, 0x1234, 2, entry, sizeof(entry));
	CHECK_EQ(prism_op_set_redirect_scratch(&c, al, 0), 0);
	cas = prism_prep_cas_ex(&c, 0x1234, 0x7f0000000040ULL, 8, PRISM_CAS_EQ, 0,
				old, 0, NULL, 0, NULL, NULL);
	CHECK_EQ(prism_op_set_arg_scratch(&c, cas), 0);
	CHECK_EQ(prism_op_set_conditional(&c, cas), 0);

	exp_hdr(0x4b56, 0, 2);
	o = (struct eop){ .opcode = PRISM_OP_ALLOC,
			  .flags = PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH,
			  .len = 20, .rkey = 0x1234, .addr = 2, .redirect = 0,
			  .data_len = 20 };
	off = exp_op(CHAIN_HDR, &o, entry);
	memcpy(d, old, 8);
	memset(d + 8, 0xff, 16);
	o = (struct eop){ .opcode = PRISM_OP_CAS,
			  .flags = PRISM_F_SWAP_INDIRECT | PRISM_F_ARG_SCRATCH |
				   PRISM_F_CONDITIONAL,
			  .len = 8, .rkey = 0x1234, .addr = 0x7f0000000040ULL,
			  .swap = 0, .data_len = 24 };
	off = exp_op(off, &o, d);
	CHECK_EQ(off, CHAIN_HDR + OP_SIZE + 24 + OP_SIZE + 24);
	check_chain(off);
}

/*
 * PRISM-RS write: WRITE the new tag to scratch[8..16), ALLOC the value
 * buffer with its address redirected to scratch[0..8), then CAS_GT the
 * 16-byte slot {addr, tag} to scratch[0..16), comparing the tag only.
 */
static void test_rs_write_chain(void)
{
	unsigned char tag[8], val[32], cm[16], d[64];
	struct prism_op *w, *al, *cas;
	struct eop o;
	size_t off;

	prism_put_le64(tag, 0x0000000500000002ULL);
	memset(val, 'v', sizeof(val));
	memset(cm, 0, 8);
	memset(cm + 8, 0xff, 8);

	start(77);
	w = prism_prep_write(&c, 0, 8, tag, 8);
	CHECK_EQ(prism_op_set_addr_scratch(&c, w), 0);
	al = prism_prep_alloc(&c, 0x99, 1, val, sizeof(val));
	CHECK_EQ(prism_op_set_redirect_scratch(&c, al, 0), 0);
	cas = prism_prep_cas_ex(&c, 0x99, 0x600000, 16, PRISM_CAS_GT, 0, NULL, 0,
				NULL, 0, cm, NULL);
	CHECK_EQ(prism_op_set_arg_scratch(&c, cas), 0);
	CHECK_EQ(prism_op_set_conditional(&c, cas), 0);
	CHECK_EQ(prism_chain_error(&c), 0);

	exp_hdr(77, 0, 3);
	o = (struct eop){ .opcode = PRISM_OP_WRITE, .flags = PRISM_F_ADDR_SCRATCH,
			  .len = 8, .addr = 8, .data_len = 8 };
	off = exp_op(CHAIN_HDR, &o, tag);
	o = (struct eop){ .opcode = PRISM_OP_ALLOC,
			  .flags = PRISM_F_REDIRECT | PRISM_F_REDIRECT_SCRATCH,
			  .len = 32, .rkey = 0x99, .addr = 1, .data_len = 32 };
	off = exp_op(off, &o, val);
	memcpy(d, cm, 16);
	memset(d + 16, 0xff, 16);
	o = (struct eop){ .opcode = PRISM_OP_CAS, .mode = PRISM_CAS_GT,
			  .flags = PRISM_F_CMP_INDIRECT | PRISM_F_SWAP_INDIRECT |
				   PRISM_F_ARG_SCRATCH | PRISM_F_CONDITIONAL,
			  .len = 16, .rkey = 0x99, .addr = 0x600000,
			  .data_len = 32 };
	off = exp_op(off, &o, d);
	check_chain(off);
}

/* prism_chain_completion_size(): 16 + 16 per op + outputs padded to 8. */
static void test_completion_size(void)
{
	_Alignas(8) unsigned char small[CHAIN_HDR];
	struct prism_op *op;
	unsigned int i;

	start(1);
	CHECK_EQ(prism_chain_completion_size(&c), -EINVAL);
	prism_prep_read(&c, 1, 0, 200);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 16 + 200);
	start(1);
	prism_prep_read(&c, 1, 0, 201);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 16 + 208);

	/* READ 13, CAS 8, WRITE, ALLOC, SEND, bounded READ 100, redirected READ. */
	start(2);
	prism_prep_read(&c, 1, 0, 13);
	prism_prep_cas_u64(&c, 1, 8, PRISM_CAS_EQ, 0, 1);
	prism_prep_write(&c, 1, 16, "abc", 3);
	prism_prep_alloc(&c, 1, 1, "xy", 2);
	prism_prep_send(&c, "hello", 5);
	prism_prep_read_bounded(&c, 1, 32, 100);
	op = prism_prep_read(&c, 1, 64, 4000);
	CHECK_EQ(prism_op_set_redirect(&c, op, 128), 0);
	CHECK_EQ(prism_chain_error(&c), 0);
	CHECK_EQ(prism_chain_completion_size(&c),
		 16 + 7 * 16 + 16 + 8 + 0 + 8 + 0 + 104 + 0);

	/* The largest: 16 READs of 2 MiB / 16 (PRISM_MAX_CHAIN_DATA). */
	start(3);
	for (i = 0; i < 16; i++)
		prism_prep_read(&c, 1, 0, PRISM_MAX_CHAIN_DATA / 16);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 16 * 16 + (2 << 20));

	/* A failed chain reports its error. */
	CHECK_EQ(prism_chain_init(&c, small, sizeof(small), 4), 0);
	CHECK(prism_prep_read(&c, 1, 0, 8) == NULL);
	CHECK_EQ(prism_chain_completion_size(&c), -ENOSPC);
}

/*
 * prism_chain_set_outbuf(): an output buffer leaves the encoded chain as it
 * is, takes the outputs out of the completion's size, and
 * prism_chain_outbuf_size() counts them.
 */
static void test_outbuf(void)
{
	static unsigned char ob[64];
	unsigned char before[256];
	size_t len;

	start(1);
	CHECK_EQ(prism_chain_outbuf_size(&c), -EINVAL);
	prism_prep_read(&c, 1, 0, 13);
	prism_prep_cas_u64(&c, 1, 8, PRISM_CAS_EQ, 0, 1);
	CHECK_EQ(prism_chain_outbuf_size(&c), 16 + 8);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 2 * 16 + 16 + 8);
	CHECK(c.outbuf == NULL);
	len = c.len;
	memcpy(before, buf, len);
	CHECK_EQ(prism_chain_set_outbuf(&c, ob, sizeof(ob)), 0);
	CHECK(c.outbuf == ob);
	CHECK_EQ(c.outbuf_len, sizeof(ob));
	CHECK_EQ(c.len, len);
	CHECK(!memcmp(before, buf, len));
	CHECK_EQ(prism_chain_outbuf_size(&c), 16 + 8);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 2 * 16);
	/* A new chain has none. */
	start(2);
	CHECK(c.outbuf == NULL);
	CHECK_EQ(c.outbuf_len, 0);

	/* NULL or empty: EINVAL, recorded. */
	start(3);
	CHECK_EQ(prism_chain_set_outbuf(&c, NULL, 8), -EINVAL);
	CHECK_EQ(prism_chain_error(&c), -EINVAL);
	start(4);
	CHECK_EQ(prism_chain_set_outbuf(&c, ob, 0), -EINVAL);
	CHECK(c.outbuf == NULL);
	/* A failed chain keeps its error. */
	CHECK_EQ(prism_chain_set_outbuf(&c, ob, sizeof(ob)), -EINVAL);
	CHECK_EQ(prism_chain_outbuf_size(&c), -EINVAL);
}

/*
 * PRISM_MAX_OP_DATA (1 MiB) of WRITE data fits a buffer of exactly the
 * header, the op and the data; one byte less of buffer does not.  Two ops
 * of 1 MiB each (PRISM_MAX_CHAIN_DATA of inline data) build too.
 */
static void test_large_write(void)
{
	const size_t one = CHAIN_HDR + OP_SIZE + PRISM_MAX_OP_DATA;
	const size_t two = CHAIN_HDR + 2 * OP_SIZE + PRISM_MAX_CHAIN_DATA;
	unsigned char *b = aligned_alloc(8, two + 8), *data = malloc(PRISM_MAX_OP_DATA);
	struct prism_op *op;
	size_t k, bad = 0;

	CHECK(b && data);
	if (!b || !data)
		goto out;
	for (k = 0; k < PRISM_MAX_OP_DATA; k++)
		data[k] = (unsigned char)(k * 7 + (k >> 12));
	memset(b, 0xa5, two + 8);
	CHECK_EQ(prism_chain_init(&c, b, one, 5), 0);
	op = prism_prep_write(&c, 1, 0x1000, data, PRISM_MAX_OP_DATA);
	CHECK(op != NULL);
	CHECK_EQ(prism_chain_len(&c), (long long)one);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 16);
	if (op) {
		CHECK_EQ(op->len, PRISM_MAX_OP_DATA);
		CHECK_EQ(op->data_len, PRISM_MAX_OP_DATA);
		CHECK_MEM(prism_op_data(op), data, 64);
		for (k = 0; k < PRISM_MAX_OP_DATA; k++)
			bad += b[CHAIN_HDR + OP_SIZE + k] != data[k];
		CHECK_EQ(bad, 0);
	}
	CHECK_EQ(b[one], 0xa5);

	CHECK_EQ(prism_chain_init(&c, b, one - 1, 6), 0);
	CHECK(prism_prep_write(&c, 1, 0x1000, data, PRISM_MAX_OP_DATA) == NULL);
	CHECK_EQ(prism_chain_error(&c), -ENOSPC);

	/* 1 MiB - 1 bytes are padded to 1 MiB: the same buffer, zero pad. */
	memset(b, 0xa5, two + 8);
	CHECK_EQ(prism_chain_init(&c, b, one, 7), 0);
	CHECK(prism_prep_write(&c, 1, 0, data, PRISM_MAX_OP_DATA - 1) != NULL);
	CHECK_EQ(prism_chain_len(&c), (long long)one);
	CHECK_EQ(b[one - 1], 0);

	CHECK_EQ(prism_chain_init(&c, b, two, 8), 0);
	CHECK(prism_prep_write(&c, 1, 0, data, PRISM_MAX_OP_DATA) != NULL);
	CHECK(prism_prep_send(&c, data, PRISM_MAX_OP_DATA) != NULL);
	CHECK_EQ(prism_chain_len(&c), (long long)two);
	CHECK_EQ(prism_chain_completion_size(&c), 16 + 2 * 16);
out:
	free(b);
	free(data);
}

static void test_le64(void)
{
	unsigned char b[8];

	prism_put_le64(b, 0x8877665544332211ULL);
	CHECK_EQ(b[0], 0x11);
	CHECK_EQ(b[7], 0x88);
	CHECK(prism_get_le64(b) == 0x8877665544332211ULL);
}

int main(void)
{
	tap_plan(21);
	RUN(test_abi_layout);
	RUN(test_init);
	RUN(test_read);
	RUN(test_write_padding);
	RUN(test_write_data_indirect);
	RUN(test_cas_inline);
	RUN(test_cas_u64);
	RUN(test_cas_indirect_args);
	RUN(test_cas_errors);
	RUN(test_alloc_send);
	RUN(test_rekey);
	RUN(test_op_limit);
	RUN(test_capacity);
	RUN(test_low_level_errors);
	RUN(test_setters);
	RUN(test_kv_put_chain);
	RUN(test_rs_write_chain);
	RUN(test_completion_size);
	RUN(test_large_write);
	RUN(test_outbuf);
	RUN(test_le64);
	return tap_done();
}
