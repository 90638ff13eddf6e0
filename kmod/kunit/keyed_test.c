// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of keyed.c: region keys (install, rotate, refuse), derived
 * keys for clients, and the target's check of an AREQ: the right key, a
 * key of another endpoint or of other rights, a changed header, text or
 * tag, the old key after a rotation, during and after an overlap; the
 * REKEY op, run by the engine, with and without the rights it needs.
 * Region A of the fixture (utils.h) is made keyed for each test.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/timekeeping.h>
#include "../compat.h"
#include "../keyed.h"
#include "utils.h"

#define T_SRC_EP	77
#define T_TEXT		48

static const struct prism_paddr t_client = {
	.kind = PRISM_LINK_ETH, .ifindex = 2,
	.mac = { 0x02, 0, 0, 0, 0x07, 0x0b },
};

/* An AREQ frame: header, prism_wauth, text and tag. */
struct t_areq {
	u8	buf[sizeof(struct prism_whdr) + PRISM_SEAL_OVERHEAD + T_TEXT];
};

static struct prism_whdr *t_hdr(struct t_areq *a)
{
	return (struct prism_whdr *)a->buf;
}

/*
 * Seal a frame from t_client (endpoint src_ep) naming region rkey with
 * rights, under kd, as the client's kernel does.
 */
static void t_seal(struct t_areq *a, const u8 *kd, u32 src_ep, u64 rkey,
		   u8 rights)
{
	struct prism_whdr *hdr = t_hdr(a);
	struct prism_wauth *wa = (struct prism_wauth *)(hdr + 1);
	u8 *text = (u8 *)(wa + 1), iv[PRISM_GCM_IV_LEN];
	struct prism_gcm_key key;
	unsigned int i;

	memset(a, 0, sizeof(*a));
	hdr->version = PRISM_WIRE_VERSION;
	hdr->type = PRISM_T_AREQ;
	hdr->nops = 1;
	hdr->dst_ep = htonl(7);
	hdr->src_ep = htonl(src_ep);
	hdr->session = htonl(0x5e55);
	hdr->req_id = cpu_to_be64(1000);
	hdr->ack_floor = cpu_to_be64(1000);
	hdr->body_len = htons(PRISM_SEAL_OVERHEAD + T_TEXT);
	wa->rkey = cpu_to_be64(rkey);
	wa->xmit = htonl(1);
	wa->time = htonl((u32)ktime_get_real_seconds());
	wa->rights = rights;
	for (i = 0; i < T_TEXT; i++)
		text[i] = i;
	memcpy(iv, &hdr->req_id, 8);
	put_unaligned_be32(1, iv + 8);
	WARN_ON(prism_gcm_setkey(&key, kd, PRISM_KEY_LEN));
	prism_gcm_seal(&key, iv, a->buf,
		       sizeof(*hdr) + sizeof(*wa), text, T_TEXT, text + T_TEXT);
	prism_gcm_key_wipe(&key);
}

/* What the target decides for frame a (with rcu_read_lock()). */
static bool t_check(struct t_fix *f, struct t_areq *a)
{
	struct prism_gcm_key key;
	struct prism_region *r;
	bool ok;

	rcu_read_lock();
	r = prism_region_find(&f->mem, RK(f, RA));
	ok = r && prism_areq_authentic(r, t_hdr(a), &t_client, T_TEXT, &key);
	rcu_read_unlock();
	prism_gcm_key_wipe(&key);
	return ok;
}

static void t_kd(struct kunit *test, struct t_fix *f, u32 ep, u32 rights,
		 u8 *kd, u32 want_gen)
{
	u32 gen = 0;

	KUNIT_ASSERT_EQ(test, prism_region_derive(&f->mem, RK(f, RA), &t_client,
						  ep, rights, kd, &gen), 0);
	KUNIT_EXPECT_EQ(test, gen, want_gen);
}

static int t_keyed_init(struct kunit *test)
{
	struct t_fix *f;
	int ret = t_init(test);

	if (ret)
		return ret;
	f = test->priv;
	/* Set at registration in real life (PRISM_MR_KEYED). */
	prism_region_find(&f->mem, RK(f, RA))->keyed = true;
	return 0;
}

static const u8 t_k1[PRISM_KEY_LEN] = { 1 }, t_k2[PRISM_KEY_LEN] = { 2 },
		t_k3[PRISM_KEY_LEN] = { 3 };

/* Keys: none before the first REKEY, generations, what is refused. */
static void rekey_and_derive(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 kd[PRISM_KEY_LEN];
	u32 gen = 0;

	KUNIT_EXPECT_EQ(test, prism_region_derive(&f->mem, RK(f, RA), &t_client,
						  1, PRISM_ACCESS_REMOTE_READ,
						  kd, &gen), -ENOKEY);
	KUNIT_EXPECT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k1,
						 PRISM_MAX_OVERLAP_MS + 1, &gen),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prism_region_rekey(&f->mem, RK(f, RB), t_k1, 0,
						 &gen), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA) ^ 1, t_k1,
						 0, &gen), -ENOENT);
	KUNIT_ASSERT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k1, 0,
						 &gen), 0);
	KUNIT_EXPECT_EQ(test, gen, 1);
	KUNIT_ASSERT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k2,
						 PRISM_MAX_OVERLAP_MS, &gen), 0);
	KUNIT_EXPECT_EQ(test, gen, 2);
	t_kd(test, f, 1, PRISM_ACCESS_ALL, kd, 2);
	KUNIT_EXPECT_EQ(test, prism_region_derive(&f->mem, RK(f, RA), &t_client,
						  1, 0, kd, &gen), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_region_derive(&f->mem, RK(f, RA), &t_client,
						  1, PRISM_ACCESS_ALL + 1, kd,
						  &gen), -EINVAL);
	/* The admin right, alone or with access rights; no other bit. */
	t_kd(test, f, 1, PRISM_KEY_ADMIN, kd, 2);
	t_kd(test, f, 1, PRISM_ACCESS_ALL | PRISM_KEY_ADMIN, kd, 2);
	KUNIT_EXPECT_EQ(test, prism_region_derive(&f->mem, RK(f, RA), &t_client,
						  1, PRISM_KEY_ADMIN >> 1, kd,
						  &gen), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_region_derive(&f->mem, RK(f, RB), &t_client,
						  1, PRISM_ACCESS_REMOTE_READ,
						  kd, &gen), -EINVAL);
	KUNIT_EXPECT_EQ(test, prism_region_derive(&f->mem, RK(f, RA) ^ 1,
						  &t_client, 1,
						  PRISM_ACCESS_REMOTE_READ, kd,
						  &gen), -ENOENT);
}

/* The right key checks; any other key, or any changed byte, does not. */
static void areq_needs_its_key(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 kd[PRISM_KEY_LEN], other[PRISM_KEY_LEN];
	struct t_areq a;
	unsigned int i;
	u32 gen;

	KUNIT_ASSERT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k1, 0,
						 &gen), 0);
	t_kd(test, f, T_SRC_EP, PRISM_ACCESS_REMOTE_READ, kd, 1);
	t_seal(&a, kd, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_TRUE(test, t_check(f, &a));

	/* Every byte of header, prism_wauth, text and tag counts. */
	for (i = 0; i < sizeof(a.buf); i += 7) {
		a.buf[i] ^= 0x10;
		KUNIT_EXPECT_FALSE_MSG(test, t_check(f, &a), "byte %u", i);
		a.buf[i] ^= 0x10;
	}
	KUNIT_EXPECT_TRUE(test, t_check(f, &a));

	/* Another endpoint's key, presented by this one. */
	t_kd(test, f, T_SRC_EP + 1, PRISM_ACCESS_REMOTE_READ, other, 1);
	t_seal(&a, other, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_FALSE(test, t_check(f, &a));
	/* A read-only key claiming all rights. */
	t_seal(&a, kd, T_SRC_EP, RK(f, RA), PRISM_ACCESS_ALL);
	KUNIT_EXPECT_FALSE(test, t_check(f, &a));
	/* A key derived for all rights, claiming them: fine. */
	t_kd(test, f, T_SRC_EP, PRISM_ACCESS_ALL, other, 1);
	t_seal(&a, other, T_SRC_EP, RK(f, RA), PRISM_ACCESS_ALL);
	KUNIT_EXPECT_TRUE(test, t_check(f, &a));
}

/* Old keys: refused at once without an overlap, until its end with one. */
static void areq_after_rekey(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 kd1[PRISM_KEY_LEN], kd2[PRISM_KEY_LEN], kd3[PRISM_KEY_LEN];
	struct prism_region_keys *keys;
	struct prism_region *r;
	struct t_areq a1, a2, a3;
	u32 gen;

	KUNIT_ASSERT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k1, 0,
						 &gen), 0);
	t_kd(test, f, T_SRC_EP, PRISM_ACCESS_REMOTE_READ, kd1, 1);
	t_seal(&a1, kd1, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_TRUE(test, t_check(f, &a1));

	KUNIT_ASSERT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k2, 0,
						 &gen), 0);
	KUNIT_EXPECT_FALSE(test, t_check(f, &a1));
	t_kd(test, f, T_SRC_EP, PRISM_ACCESS_REMOTE_READ, kd2, 2);
	t_seal(&a2, kd2, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_TRUE(test, t_check(f, &a2));

	KUNIT_ASSERT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k3,
						 10000, &gen), 0);
	t_kd(test, f, T_SRC_EP, PRISM_ACCESS_REMOTE_READ, kd3, 3);
	t_seal(&a3, kd3, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_TRUE(test, t_check(f, &a3));
	KUNIT_EXPECT_TRUE(test, t_check(f, &a2));	/* the overlap */
	KUNIT_EXPECT_FALSE(test, t_check(f, &a1));	/* two keys ago */

	/* The overlap ends. */
	spin_lock_bh(&f->mem.lock);
	r = prism_region_find(&f->mem, RK(f, RA));
	keys = rcu_dereference_protected(r->keys, lockdep_is_held(&f->mem.lock));
	keys->old_until = jiffies - 1;
	spin_unlock_bh(&f->mem.lock);
	KUNIT_EXPECT_FALSE(test, t_check(f, &a2));
	KUNIT_EXPECT_TRUE(test, t_check(f, &a3));
}

/* A keyed region without a key yet admits no AREQ. */
static void areq_without_key(struct kunit *test)
{
	struct t_fix *f = test->priv;
	u8 kd[PRISM_KEY_LEN] = { 9 };
	struct t_areq a;

	t_seal(&a, kd, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_FALSE(test, t_check(f, &a));
}

/* A REKEY op run by the engine: who may rotate the key, and what then. */
struct t_rekey {
	const char	*name;
	bool		sealed;		/* the chain was sealed for region A */
	u8		rights;		/* of its key */
	int		region;		/* the op's: RA, RB, or -1 (no region) */
	u32		overlap_ms;
	u8		want;		/* status of the op */
};

static const struct t_rekey t_rekey_cases[] = {
	{ "admin key", true, PRISM_ACCESS_REMOTE_READ | PRISM_KEY_ADMIN, RA, 0,
	  PRISM_S_OK },
	{ "admin key, with an overlap", true, PRISM_KEY_ADMIN, RA, 5000,
	  PRISM_S_OK },
	{ "key without the admin right", true, PRISM_ACCESS_ALL, RA, 0,
	  PRISM_S_ACCESS },
	{ "plain chain", false, 0, RA, 0, PRISM_S_AUTH },
	{ "a plain region", true, PRISM_ACCESS_ALL | PRISM_KEY_ADMIN, RB, 0,
	  PRISM_S_INVALID },
	{ "no such region", true, PRISM_ACCESS_ALL | PRISM_KEY_ADMIN, -1, 0,
	  PRISM_S_AUTH },
};

static void t_rekey_desc(const struct t_rekey *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_rekey, t_rekey_cases, t_rekey_desc);

static void rekey_op(struct kunit *test)
{
	const struct t_rekey *c = test->param_value;
	struct t_fix *f = test->priv;
	u64 rkey = c->region < 0 ? RK(f, RA) ^ 1 : RK(f, c->region);
	bool ok = c->want == PRISM_S_OK;
	u8 kd1[PRISM_KEY_LEN], kd2[PRISM_KEY_LEN];
	struct t_areq a1, a2;
	struct prism_region *r;
	u32 gen;

	KUNIT_ASSERT_EQ(test, prism_region_rekey(&f->mem, RK(f, RA), t_k1, 0,
						 &gen), 0);
	t_kd(test, f, T_SRC_EP, PRISM_ACCESS_REMOTE_READ, kd1, 1);
	t_seal(&a1, kd1, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);

	if (c->sealed) {
		f->ctx.auth_rkey = RK(f, RA);
		f->ctx.auth_rights = c->rights;
	}
	t_add(f->q, OP(.opcode = PRISM_OP_REKEY, .rkey = rkey,
		       .addr = c->overlap_ms, .len = PRISM_KEY_SIZE,
		       .data_len = PRISM_KEY_SIZE), t_k2);
	t_add_read(f->q, RK(f, RB), VA(f, RB, 0), 8);
	KUNIT_ASSERT_GE(test, t_run(test, f), 0);
	T_ST(test, f, 0, c->want);
	T_ST(test, f, 1, PRISM_S_OK);
	KUNIT_EXPECT_EQ(test, t_olen(f, 0), ok ? 8U : 0U);
	KUNIT_EXPECT_EQ(test, f->ctx.rekeys, ok ? 1U : 0U);
	KUNIT_EXPECT_EQ(test, f->ctx.rekeys_refused, ok ? 0U : 1U);
	if (ok)
		KUNIT_EXPECT_EQ(test, get_unaligned_le64(t_out(f, 0)), 2ULL);

	rcu_read_lock();
	r = prism_region_find(&f->mem, RK(f, RA));
	KUNIT_EXPECT_EQ(test, prism_region_key_gen(r), ok ? 2U : 1U);
	rcu_read_unlock();
	/* The key derived from t_k1 works until the rotation's overlap ends. */
	KUNIT_EXPECT_EQ(test, t_check(f, &a1), !ok || c->overlap_ms > 0);
	if (ok) {
		t_kd(test, f, T_SRC_EP, PRISM_ACCESS_REMOTE_READ, kd2, 2);
		t_seal(&a2, kd2, T_SRC_EP, RK(f, RA), PRISM_ACCESS_REMOTE_READ);
		KUNIT_EXPECT_TRUE(test, t_check(f, &a2));
	}
}

static struct kunit_case keyed_test_cases[] = {
	KUNIT_CASE(rekey_and_derive),
	KUNIT_CASE(areq_needs_its_key),
	KUNIT_CASE(areq_after_rekey),
	KUNIT_CASE(areq_without_key),
	KUNIT_CASE_PARAM(rekey_op, t_rekey_gen_params),
	{}
};

static struct kunit_suite keyed_test_suite = {
	.name = "prism_keyed",
	.init = t_keyed_init,
	.exit = t_exit,
	.test_cases = keyed_test_cases,
};

kunit_test_suite(keyed_test_suite);
