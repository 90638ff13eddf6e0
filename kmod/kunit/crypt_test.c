// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of crypt.c: AES-GCM against the test cases of the GCM
 * specification and against the crypto API's gcm(aes), tampered tags,
 * text and associated data, messages fed in pieces; GF(2^128)
 * multiplication against the specification's bit-by-bit algorithm;
 * derived keys against fixed vectors (computed with another AES
 * implementation) and what changes them; AES-NI's key schedule against
 * aes_expandkey()'s.
 */
#include <kunit/test.h>
#include <crypto/aead.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "../crypt.h"
#include "../crypt_simd.h"
#include "utils.h"

#define T_MAX_TEXT	64

struct t_gcm_case {
	const char	*desc;
	const char	*key;
	const char	*iv;
	const char	*aad;
	const char	*pt;
	const char	*ct;
	const char	*tag;
};

/*
 * Test cases 1-4 and 15 of "The Galois/Counter Mode of Operation (GCM)"
 * (McGrew and Viega), the vectors NIST SP 800-38D points to.
 */
#define T_K3	"feffe9928665731c6d6a8f9467308308"
#define T_IV3	"cafebabefacedbaddecaf888"
#define T_P3	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d" \
		"8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657" \
		"ba637b39"
#define T_C3	"42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e23" \
		"29aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac97" \
		"3d58e091"
#define T_C15	"522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd" \
		"2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0a" \
		"bcc9f662898015ad"
#define T_Z16	"00000000000000000000000000000000"

static const struct t_gcm_case t_gcm_cases[] = {
	{ "GCM test case 1: no text", T_Z16, "000000000000000000000000", "", "",
	  "", "58e2fccefa7e3061367f1d57a4e7455a" },
	{ "GCM test case 2: one block", T_Z16, "000000000000000000000000", "",
	  T_Z16, "0388dace60b6a392f328c2b971b2fe78",
	  "ab6e47d42cec13bdf53a67b21257bddf" },
	{ "GCM test case 3: four blocks", T_K3, T_IV3, "", T_P3 "1aafd255",
	  T_C3 "473f5985", "4d5c2af327cd64a62cf35abd2ba6fab4" },
	{ "GCM test case 4: 60 bytes, 20 of AAD", T_K3, T_IV3,
	  "feedfacedeadbeeffeedfacedeadbeefabaddad2", T_P3, T_C3,
	  "5bc94fbc3221a5db94fae95ae7121a47" },
	{ "GCM test case 15: AES-256", T_K3 T_K3, T_IV3, "", T_P3 "1aafd255",
	  T_C15,
	  "b094dac5d93471bdec1a502270e3cc6c" },
};

static void t_gcm_desc(const struct t_gcm_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_gcm, t_gcm_cases, t_gcm_desc);

/* Hex to bytes; returns the byte count. */
static size_t t_unhex(struct kunit *test, const char *hex, u8 *out,
		      size_t max)
{
	size_t n = strlen(hex) / 2;

	KUNIT_ASSERT_EQ(test, strlen(hex) % 2, 0);
	KUNIT_ASSERT_LE(test, n, max);
	KUNIT_ASSERT_EQ(test, hex2bin(out, hex, n), 0);
	return n;
}

struct t_gcm_bytes {
	u8	key[32], iv[PRISM_GCM_IV_LEN], aad[T_MAX_TEXT];
	u8	pt[T_MAX_TEXT], ct[T_MAX_TEXT], tag[PRISM_GCM_TAG_LEN];
	size_t	nkey, naad, npt;
};

static void t_gcm_load(struct kunit *test, const struct t_gcm_case *c,
		       struct t_gcm_bytes *b)
{
	b->nkey = t_unhex(test, c->key, b->key, sizeof(b->key));
	KUNIT_ASSERT_EQ(test, t_unhex(test, c->iv, b->iv, sizeof(b->iv)),
			PRISM_GCM_IV_LEN);
	b->naad = t_unhex(test, c->aad, b->aad, sizeof(b->aad));
	b->npt = t_unhex(test, c->pt, b->pt, sizeof(b->pt));
	KUNIT_ASSERT_EQ(test, t_unhex(test, c->ct, b->ct, sizeof(b->ct)),
			b->npt);
	KUNIT_ASSERT_EQ(test, t_unhex(test, c->tag, b->tag, sizeof(b->tag)),
			PRISM_GCM_TAG_LEN);
}

/* Sealing gives the published ciphertext and tag; opening gives back the
 * plaintext.
 */
static void gcm_vectors(struct kunit *test)
{
	struct t_gcm_bytes b;
	struct prism_gcm_key key;
	u8 buf[T_MAX_TEXT], tag[PRISM_GCM_TAG_LEN];

	t_gcm_load(test, test->param_value, &b);
	KUNIT_ASSERT_EQ(test, prism_gcm_setkey(&key, b.key, b.nkey), 0);
	memcpy(buf, b.pt, b.npt);
	prism_gcm_seal(&key, b.iv, b.aad, b.naad, buf, b.npt, tag);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, buf, b.ct, b.npt);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, tag, b.tag, sizeof(tag));

	KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, b.iv, b.aad, b.naad, buf,
					     b.npt, b.tag), 0);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, buf, b.pt, b.npt);
	prism_gcm_key_wipe(&key);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&key, 0, sizeof(key)));
}

/*
 * Any bit changed in the tag, the ciphertext, the associated data or the
 * nonce makes opening fail, and the buffer is left as it was.
 */
static void gcm_tampered(struct kunit *test)
{
	struct t_gcm_bytes b;
	struct prism_gcm_key key;
	u8 buf[T_MAX_TEXT], tag[PRISM_GCM_TAG_LEN], aad[T_MAX_TEXT];
	u8 iv[PRISM_GCM_IV_LEN];
	unsigned int bit;

	t_gcm_load(test, &t_gcm_cases[3], &b);
	KUNIT_ASSERT_EQ(test, prism_gcm_setkey(&key, b.key, b.nkey), 0);
	for (bit = 0; bit < PRISM_GCM_TAG_LEN * 8; bit += 5) {
		memcpy(tag, b.tag, sizeof(tag));
		tag[bit / 8] ^= 1 << (bit % 8);
		memcpy(buf, b.ct, b.npt);
		KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, b.iv, b.aad, b.naad,
						     buf, b.npt, tag), -EBADMSG);
		KUNIT_EXPECT_MEMEQ_COMPAT(test, buf, b.ct, b.npt);
	}
	for (bit = 0; bit < b.npt * 8; bit += 37) {
		memcpy(buf, b.ct, b.npt);
		buf[bit / 8] ^= 1 << (bit % 8);
		KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, b.iv, b.aad, b.naad,
						     buf, b.npt, b.tag), -EBADMSG);
	}
	for (bit = 0; bit < b.naad * 8; bit += 11) {
		memcpy(aad, b.aad, b.naad);
		aad[bit / 8] ^= 1 << (bit % 8);
		memcpy(buf, b.ct, b.npt);
		KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, b.iv, aad, b.naad,
						     buf, b.npt, b.tag), -EBADMSG);
	}
	memcpy(iv, b.iv, sizeof(iv));
	iv[11] ^= 1;
	memcpy(buf, b.ct, b.npt);
	KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, iv, b.aad, b.naad, buf,
					     b.npt, b.tag), -EBADMSG);
	/* The text cut short, or the AAD taken as text, is another message. */
	KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, b.iv, b.aad, b.naad, buf,
					     b.npt - 1, b.tag), -EBADMSG);
	KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, b.iv, NULL, 0, buf, b.npt,
					     b.tag), -EBADMSG);
	prism_gcm_key_wipe(&key);
}

/* Pieces of sizes that cross blocks give the same message as one call. */
static void gcm_in_pieces(struct kunit *test)
{
	static const unsigned int steps[] = { 1, 7, 16, 33, 5, 64, 3 };
	struct prism_gcm_key key;
	struct prism_gcm g;
	u8 k[16], iv[PRISM_GCM_IV_LEN], aad[29];
	u8 tag1[PRISM_GCM_TAG_LEN], tag2[PRISM_GCM_TAG_LEN];
	u8 *pt, *one, *many;
	size_t len = 300, off, n, i;

	pt = kunit_kmalloc(test, len, GFP_KERNEL);
	one = kunit_kmalloc(test, len, GFP_KERNEL);
	many = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, pt && one && many);
	get_random_bytes(k, sizeof(k));
	get_random_bytes(iv, sizeof(iv));
	get_random_bytes(aad, sizeof(aad));
	get_random_bytes(pt, len);
	KUNIT_ASSERT_EQ(test, prism_gcm_setkey(&key, k, sizeof(k)), 0);

	memcpy(one, pt, len);
	prism_gcm_seal(&key, iv, aad, sizeof(aad), one, len, tag1);

	prism_gcm_start(&g, &key, iv);
	prism_gcm_aad(&g, aad, 10);
	prism_gcm_aad(&g, aad + 10, sizeof(aad) - 10);
	for (off = 0, i = 0; off < len; off += n, i++) {
		n = min_t(size_t, steps[i % ARRAY_SIZE(steps)], len - off);
		prism_gcm_xor(&g, many + off, pt + off, n);
		prism_gcm_hash(&g, many + off, n);
	}
	prism_gcm_finish(&g, tag2);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, many, one, len);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, tag2, tag1, sizeof(tag1));
	KUNIT_EXPECT_EQ(test, prism_gcm_open(&key, iv, aad, sizeof(aad), many,
					     len, tag1), 0);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, many, pt, len);
	prism_gcm_key_wipe(&key);
}

/* The crypto API's gcm(aes) seals a buffer: dst = ciphertext || tag. */
static int t_api_seal(struct crypto_aead *tfm, const u8 *iv, const u8 *aad,
		      size_t naad, const u8 *pt, size_t len, u8 *dst)
{
	DECLARE_CRYPTO_WAIT(wait);
	struct aead_request *req;
	struct scatterlist sg;
	u8 ivbuf[PRISM_GCM_IV_LEN];
	int err;

	req = aead_request_alloc(tfm, GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	memcpy(dst, aad, naad);
	memcpy(dst + naad, pt, len);
	memcpy(ivbuf, iv, sizeof(ivbuf));
	sg_init_one(&sg, dst, naad + len + PRISM_GCM_TAG_LEN);
	aead_request_set_callback(req, CRYPTO_TFM_REQ_MAY_SLEEP,
				  crypto_req_done, &wait);
	aead_request_set_ad(req, naad);
	aead_request_set_crypt(req, &sg, &sg, len, ivbuf);
	err = crypto_wait_req(crypto_aead_encrypt(req), &wait);
	aead_request_free(req);
	return err;
}

/* Seal with the streaming functions, which never use AES-NI: the C path. */
static void t_seal_c(const struct prism_gcm_key *key, const u8 *iv,
		     const u8 *aad, size_t naad, u8 *buf, size_t len, u8 *tag)
{
	struct prism_gcm g;

	prism_gcm_start(&g, key, iv);
	prism_gcm_aad(&g, aad, naad);
	prism_gcm_xor(&g, buf, buf, len);
	prism_gcm_hash(&g, buf, len);
	prism_gcm_finish(&g, tag);
}

struct t_api_bufs {
	u8	*pt, *buf, *ref;
	u8	aad[44];
};

/* One random message of len bytes and naad of AAD, sealed both ways. */
static void t_api_one(struct kunit *test, struct crypto_aead *tfm,
		      const struct prism_gcm_key *key, struct t_api_bufs *b,
		      unsigned int len, unsigned int naad)
{
	static const char *const paths[] = { "one-shot", "C path" };
	u8 iv[PRISM_GCM_IV_LEN], tag[PRISM_GCM_TAG_LEN];
	unsigned int p;

	get_random_bytes(iv, sizeof(iv));
	get_random_bytes(b->aad, naad);
	get_random_bytes(b->pt, len);
	KUNIT_ASSERT_EQ(test, t_api_seal(tfm, iv, b->aad, naad, b->pt, len,
					 b->ref), 0);
	for (p = 0; p < ARRAY_SIZE(paths); p++) {
		memcpy(b->buf, b->pt, len);
		if (p)
			t_seal_c(key, iv, b->aad, naad, b->buf, len, tag);
		else
			prism_gcm_seal(key, iv, b->aad, naad, b->buf, len, tag);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(b->buf, b->ref + naad, len), 0,
				    "%s: text of %u bytes, aad %u", paths[p],
				    len, naad);
		KUNIT_EXPECT_EQ_MSG(test,
				    memcmp(tag, b->ref + naad + len, sizeof(tag)),
				    0, "%s: tag of %u bytes, aad %u", paths[p],
				    len, naad);
	}
}

/*
 * Random keys, nonces, texts and associated data of many lengths: the
 * same ciphertext and tag as the kernel's own gcm(aes), by the one-shot
 * functions (AES-NI where the CPU has it) and by the C path.
 */
static void gcm_matches_crypto_api(struct kunit *test)
{
	static const unsigned int lens[] = { 0, 1, 15, 16, 17, 63, 64, 65,
					     255, 512, 1500 };
	static const unsigned int aads[] = { 0, 1, 20, 44 };
	static const unsigned int keys[] = { 16, 32 };
	struct crypto_aead *tfm;
	struct prism_gcm_key key;
	struct t_api_bufs b;
	unsigned int a, l, ki;
	u8 k[32];

	tfm = crypto_alloc_aead("gcm(aes)", 0, 0);
	if (IS_ERR(tfm))
		kunit_skip(test, "no gcm(aes) in this kernel (%ld)",
			   PTR_ERR(tfm));
	b.pt = kunit_kmalloc(test, 1500, GFP_KERNEL);
	b.buf = kunit_kmalloc(test, 1500, GFP_KERNEL);
	b.ref = kunit_kmalloc(test, 44 + 1500 + PRISM_GCM_TAG_LEN, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, b.pt && b.buf && b.ref);
	KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(tfm, PRISM_GCM_TAG_LEN),
			0);
	for (ki = 0; ki < ARRAY_SIZE(keys); ki++) {
		get_random_bytes(k, keys[ki]);
		KUNIT_ASSERT_EQ(test, crypto_aead_setkey(tfm, k, keys[ki]), 0);
		KUNIT_ASSERT_EQ(test, prism_gcm_setkey(&key, k, keys[ki]), 0);
		for (l = 0; l < ARRAY_SIZE(lens); l++)
			for (a = 0; a < ARRAY_SIZE(aads); a++)
				t_api_one(test, tfm, &key, &b, lens[l], aads[a]);
	}
	prism_gcm_key_wipe(&key);
	crypto_free_aead(tfm);
}

/*
 * What a new key and sealing 512 bytes cost here, by the one-shot
 * functions (AES-NI where the CPU has it) and by the C path (a diagnostic
 * for doc/SECURITY.md; both give the same tag).
 */
static void gcm_cost(struct kunit *test)
{
	struct prism_gcm_key key;
	u8 k[16] = {}, iv[PRISM_GCM_IV_LEN] = {}, tag[PRISM_GCM_TAG_LEN];
	u8 first[PRISM_GCM_TAG_LEN];
	u8 *buf;
	unsigned int i, path, rounds = 50;
	ktime_t t0;
	u64 ns[2];

	buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (path = 0; path < 2; path++) {
		t0 = ktime_get();
		for (i = 0; i < rounds; i++) {
			KUNIT_ASSERT_EQ(test,
					prism_gcm_setkey(&key, k, sizeof(k)), 0);
			memset(buf, 0, 512);
			if (path)
				t_seal_c(&key, iv, NULL, 0, buf, 512, tag);
			else
				prism_gcm_seal(&key, iv, NULL, 0, buf, 512, tag);
			if (!i && !path)
				memcpy(first, tag, sizeof(tag));
			KUNIT_ASSERT_EQ(test, memcmp(tag, first, sizeof(tag)),
					0);
		}
		ns[path] = div_u64(ktime_to_ns(ktime_sub(ktime_get(), t0)),
				   rounds);
	}
	kunit_info(test,
		   "setkey + seal of 512 bytes: %llu ns one-shot, %llu ns C path\n",
		   ns[0], ns[1]);
	prism_gcm_key_wipe(&key);
}

/* The two ways crypt.c multiplies: C, and PCLMULQDQ (crypt_simd.c). */
static const bool t_paths[] = { false, true };

static void t_path_desc(const bool *simd, char *desc)
{
	strscpy(desc, *simd ? "PCLMULQDQ" : "C", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_path, t_paths, t_path_desc);

/* The path a test asks for, or skip the test where the CPU lacks it. */
static bool t_path(struct kunit *test)
{
	bool simd = *(const bool *)test->param_value;
	u64 x[2] = { 1ULL << 63, 0 }, one[2] = { 1ULL << 63, 0 };

	if (simd && !prism_gf128_mul(x, one, true))
		kunit_skip(test, "no PCLMULQDQ, or crypt_simd=0");
	return simd;
}

/*
 * The reference: Algorithm 1 of NIST SP 800-38D, one bit at a time, in
 * GCM's representation (R = 11100001 || 0^120).
 */
static void t_gf128_mul_ref(u64 x[2], const u64 h[2])
{
	u64 z0 = 0, z1 = 0, v0 = h[0], v1 = h[1], lsb;
	unsigned int i;

	for (i = 0; i < 128; i++) {
		if ((x[i / 64] >> (63 - i % 64)) & 1) {
			z0 ^= v0;
			z1 ^= v1;
		}
		lsb = v1 & 1;
		v1 = (v1 >> 1) | (v0 << 63);
		v0 >>= 1;
		if (lsb)
			v0 ^= 0xe100000000000000ULL;
	}
	x[0] = z0;
	x[1] = z1;
}

/*
 * The multiplication of crypt.c against the reference: edges and random,
 * each path.
 */
static void gf128_mul_matches_reference(struct kunit *test)
{
	static const u64 edges[][2] = {
		{ 0, 0 }, { 1ULL << 63, 0 }, { 0, 1 }, { 1, 0 }, { 0, 1ULL << 63 },
		{ ~0ULL, ~0ULL }, { 0xe100000000000000ULL, 0 },
		{ 0x8000000000000001ULL, 0x8000000000000001ULL },
	};
	bool simd = t_path(test);
	u64 a[2], b[2], x[2], y[2];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(edges); i++) {
		for (j = 0; j < ARRAY_SIZE(edges); j++) {
			memcpy(x, edges[i], sizeof(x));
			memcpy(y, edges[i], sizeof(y));
			KUNIT_EXPECT_EQ(test, prism_gf128_mul(x, edges[j], simd),
					simd);
			t_gf128_mul_ref(y, edges[j]);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(x, y, sizeof(x)), 0,
					    "edges %u x %u", i, j);
		}
	}
	for (i = 0; i < 2000; i++) {
		get_random_bytes(a, sizeof(a));
		get_random_bytes(b, sizeof(b));
		if (i & 1)	/* sparse operands too */
			a[i & 2 ? 0 : 1] &= 0x8000000100000001ULL;
		memcpy(x, a, sizeof(x));
		memcpy(y, a, sizeof(y));
		prism_gf128_mul(x, b, simd);
		t_gf128_mul_ref(y, b);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(x, y, sizeof(x)), 0,
				    "%016llx%016llx x %016llx%016llx", a[0],
				    a[1], b[0], b[1]);
	}
}

/* One in GCM's bit order is the block 0x80 00 .. 00.  Each path. */
static void gf128_mul_algebra(struct kunit *test)
{
	static const u64 one[2] = { 1ULL << 63, 0 };
	bool simd = t_path(test);
	u64 a[2], b[2], c[2], x[2], y[2], bc[2];
	unsigned int i;

	for (i = 0; i < 32; i++) {
		get_random_bytes(a, sizeof(a));
		get_random_bytes(b, sizeof(b));
		get_random_bytes(c, sizeof(c));
		memcpy(x, a, sizeof(x));
		prism_gf128_mul(x, one, simd);
		KUNIT_EXPECT_MEMEQ_COMPAT(test, x, a, sizeof(x));
		memcpy(x, a, sizeof(x));
		prism_gf128_mul(x, b, simd);
		memcpy(y, b, sizeof(y));
		prism_gf128_mul(y, a, simd);
		KUNIT_EXPECT_MEMEQ_COMPAT(test, x, y, sizeof(x));	/* ab = ba */
		/* a(b + c) = ab + ac */
		bc[0] = b[0] ^ c[0];
		bc[1] = b[1] ^ c[1];
		memcpy(y, a, sizeof(y));
		prism_gf128_mul(y, c, simd);
		x[0] ^= y[0];
		x[1] ^= y[1];
		memcpy(y, a, sizeof(y));
		prism_gf128_mul(y, bc, simd);
		KUNIT_EXPECT_MEMEQ_COMPAT(test, x, y, sizeof(x));
	}
}

struct t_kd_case {
	const char	*desc;
	u8		kind;
	u8		addr[16];
	u32		ep;
	u8		rights;
	const char	*kd;
};

/*
 * Kr = 00 01 .. 0f, rkey 0x0123456789abcdef; Kd computed with another AES
 * implementation (Python's cryptography).
 */
#define T_RKEY	0x0123456789abcdefULL
static const struct t_kd_case t_kd_cases[] = {
	{ "Ethernet, ep 7, read+write", PRISM_LINK_ETH, { 2, 0, 0, 0, 0, 1 },
	  7, 3, "9c8c66e1b5da57fa797d5c3c016bc3c0" },
	{ "Ethernet, ep 8", PRISM_LINK_ETH, { 2, 0, 0, 0, 0, 1 },
	  8, 3, "e19d546dadbc731b9fbaca4f64550aef" },
	{ "Ethernet, read only", PRISM_LINK_ETH, { 2, 0, 0, 0, 0, 1 },
	  7, 1, "2c3c3d28e98664e517dfd3e2a7d2ffa7" },
	{ "UDP 10.0.0.1, ephemeral ep", PRISM_LINK_UDP4, { 10, 0, 0, 1 },
	  0x80000001, 1, "1381df4b00d5a7e1591aa2d6f142afc8" },
	{ "UDP fd00::2, admin", PRISM_LINK_UDP6,
	  { 0xfd, [15] = 2 }, 1024, 0x87,
	  "9fb5b6f00a951bbfda094432e6542914" },
};

static void t_kd_desc(const struct t_kd_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(t_kd, t_kd_cases, t_kd_desc);

static void t_kr(struct kunit *test, struct crypto_aes_ctx *kr)
{
	u8 k[PRISM_KEY_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(k); i++)
		k[i] = i;
	KUNIT_ASSERT_EQ(test, aes_expandkey(kr, k, sizeof(k)), 0);
}

static void t_kd_addr(const struct t_kd_case *c, struct prism_paddr *pa)
{
	prism_paddr_zero(pa);
	pa->kind = c->kind;
	if (c->kind == PRISM_LINK_ETH)
		memcpy(pa->mac, c->addr, ETH_ALEN);
	else if (c->kind == PRISM_LINK_UDP4)
		memcpy(&pa->ip4, c->addr, 4);
	else
		memcpy(&pa->ip6, c->addr, 16);
}

static void kd_vectors(struct kunit *test)
{
	const struct t_kd_case *c = test->param_value;
	struct crypto_aes_ctx kr;
	struct prism_paddr pa;
	struct prism_kd_id id = {
		.addr = &pa, .ep = c->ep, .rights = c->rights, .rkey = T_RKEY,
	};
	u8 kd[PRISM_KEY_LEN], want[PRISM_KEY_LEN];

	t_kr(test, &kr);
	t_kd_addr(c, &pa);
	KUNIT_ASSERT_EQ(test, hex2bin(want, c->kd, sizeof(want)), 0);
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, kd), 0);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, kd, want, sizeof(kd));

	/* The interface, the port and our own address do not count. */
	pa.ifindex = 9;
	pa.port = htons(4795);
	if (c->kind == PRISM_LINK_UDP4)
		pa.local4 = htonl(0x0a000002);
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, kd), 0);
	KUNIT_EXPECT_MEMEQ_COMPAT(test, kd, want, sizeof(kd));
}

/* Every other input changes the key: address, kind, ep, rights, rkey, Kr. */
static void kd_inputs_count(struct kunit *test)
{
	struct crypto_aes_ctx kr, kr2;
	struct prism_paddr pa;
	struct prism_kd_id id = {
		.addr = &pa, .ep = 7, .rights = 3, .rkey = T_RKEY,
	};
	u8 base[PRISM_KEY_LEN], kd[PRISM_KEY_LEN], k2[PRISM_KEY_LEN] = { 1 };

	t_kr(test, &kr);
	KUNIT_ASSERT_EQ(test, aes_expandkey(&kr2, k2, sizeof(k2)), 0);
	t_kd_addr(&t_kd_cases[0], &pa);
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, base), 0);

	pa.mac[5] ^= 1;
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, kd), 0);
	KUNIT_EXPECT_NE(test, memcmp(kd, base, sizeof(kd)), 0);
	pa.mac[5] ^= 1;
	/* The same 6 bytes as the start of an IPv6 address. */
	pa.kind = PRISM_LINK_UDP6;
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, kd), 0);
	KUNIT_EXPECT_NE(test, memcmp(kd, base, sizeof(kd)), 0);
	pa.kind = PRISM_LINK_ETH;
	id.ep = 0x07000000;
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, kd), 0);
	KUNIT_EXPECT_NE(test, memcmp(kd, base, sizeof(kd)), 0);
	id.ep = 7;
	id.rights = 3 | PRISM_KEY_ADMIN;
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, kd), 0);
	KUNIT_EXPECT_NE(test, memcmp(kd, base, sizeof(kd)), 0);
	id.rights = 3;
	id.rkey = T_RKEY + 1;
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr, &id, kd), 0);
	KUNIT_EXPECT_NE(test, memcmp(kd, base, sizeof(kd)), 0);
	id.rkey = T_RKEY;
	KUNIT_ASSERT_EQ(test, prism_kd_derive(&kr2, &id, kd), 0);
	KUNIT_EXPECT_NE(test, memcmp(kd, base, sizeof(kd)), 0);

	pa.kind = PRISM_LINK_NONE;
	KUNIT_EXPECT_EQ(test, prism_kd_derive(&kr, &id, kd), -EINVAL);
}

/* AESKEYGENASSIST's schedule is aes_expandkey()'s, for any key. */
static void aes128_expandkey_matches(struct kunit *test)
{
	struct crypto_aes_ctx *a, *b;
	u8 key[AES_KEYSIZE_128];
	unsigned int i;
	ktime_t t0;
	u64 ns[2];

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, a && b);
	if (!prism_simd_begin())
		kunit_skip(test, "no AES-NI, or crypt_simd=0");
	prism_simd_end();
	for (i = 0; i < 500; i++) {
		/* All zeroes, all ones, then random keys. */
		if (i < 2)
			memset(key, i ? 0xff : 0, sizeof(key));
		else
			get_random_bytes(key, sizeof(key));
		KUNIT_ASSERT_EQ(test, aes_expandkey(a, key, sizeof(key)), 0);
		memset(b->key_dec, 0x5a, sizeof(b->key_dec));
		KUNIT_ASSERT_TRUE(test, prism_simd_begin());
		prism_simd_aes128_expandkey(b, key);
		prism_simd_end();
		KUNIT_EXPECT_EQ(test, b->key_length, AES_KEYSIZE_128);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(a->key_enc, b->key_enc,
						 44 * sizeof(u32)), 0,
				    "key %u", i);
		KUNIT_EXPECT_PTR_EQ(test, memchr_inv(b->key_dec, 0,
						     sizeof(b->key_dec)), NULL);
	}

	/* What each costs here (the target expands a key per frame). */
	t0 = ktime_get();
	for (i = 0; i < 200; i++)
		aes_expandkey(a, key, sizeof(key));
	ns[0] = div_u64(ktime_to_ns(ktime_sub(ktime_get(), t0)), 200);
	t0 = ktime_get();
	for (i = 0; i < 200; i++) {
		if (prism_simd_begin()) {
			prism_simd_aes128_expandkey(b, key);
			prism_simd_end();
		}
	}
	ns[1] = div_u64(ktime_to_ns(ktime_sub(ktime_get(), t0)), 200);
	kunit_info(test, "key expansion: %llu ns aes_expandkey(), %llu ns AES-NI with the FPU taken and given back\n",
		   ns[0], ns[1]);
}

static struct kunit_case crypt_test_cases[] = {
	KUNIT_CASE_PARAM(gcm_vectors, t_gcm_gen_params),
	KUNIT_CASE(gcm_tampered),
	KUNIT_CASE(gcm_in_pieces),
	KUNIT_CASE(gcm_matches_crypto_api),
	KUNIT_CASE(gcm_cost),
	KUNIT_CASE_PARAM(gf128_mul_algebra, t_path_gen_params),
	KUNIT_CASE_PARAM(gf128_mul_matches_reference, t_path_gen_params),
	KUNIT_CASE_PARAM(kd_vectors, t_kd_gen_params),
	KUNIT_CASE(kd_inputs_count),
	KUNIT_CASE(aes128_expandkey_matches),
	{}
};

static struct kunit_suite crypt_test_suite = {
	.name = "prism_crypt",
	.test_cases = crypt_test_cases,
};

kunit_test_suite(crypt_test_suite);
