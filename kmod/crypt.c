// SPDX-License-Identifier: GPL-2.0
/*
 * Cryptography of keyed regions: AES-GCM with a key per frame, derived
 * keys (crypt.h says why GCM is composed here).
 *
 * Everything here runs in any context, allocates nothing and takes no
 * lock; the caller owns the state it passes.  Secrets on the stack are
 * wiped before return.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/swab.h>
#include <crypto/algapi.h>
#include <kunit/visibility.h>
#include "compat.h"
#include "prism.h"
#include "crypt.h"
#include "crypt_simd.h"

/*
 * GF(2^128) multiplication without tables and without branches on data:
 * carry-less products come from integer multiplications of operands whose
 * set bits are four apart (so sums of up to 8 partial products stay within
 * their 4-bit slots), Karatsuba on top.  Field elements are handled in
 * "natural" form: word 0 holds the coefficients of x^0..x^63, bit i that of
 * x^i; GCM's blocks hold x^0 in the most significant bit of byte 0, so a
 * block's big-endian words are bit-reversed on the way in and out.
 */
#define PRISM_M4	0x1111111111111111ULL

/* Carry-less product of two values below 2^32 (63 bits). */
static u64 prism_clmul32(u64 x, u64 y)
{
	u64 x0 = x & PRISM_M4, x1 = x & (PRISM_M4 << 1);
	u64 x2 = x & (PRISM_M4 << 2), x3 = x & (PRISM_M4 << 3);
	u64 y0 = y & PRISM_M4, y1 = y & (PRISM_M4 << 1);
	u64 y2 = y & (PRISM_M4 << 2), y3 = y & (PRISM_M4 << 3);
	u64 z0, z1, z2, z3;

	z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
	z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
	z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
	z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
	return (z0 & PRISM_M4) | (z1 & (PRISM_M4 << 1)) |
	       (z2 & (PRISM_M4 << 2)) | (z3 & (PRISM_M4 << 3));
}

/* Carry-less product of two 64-bit values: r[0] low, r[1] high word. */
static void prism_clmul64(u64 a, u64 b, u64 r[2])
{
	u64 a0 = (u32)a, a1 = a >> 32, b0 = (u32)b, b1 = b >> 32;
	u64 lo = prism_clmul32(a0, b0), hi = prism_clmul32(a1, b1);
	u64 mid = prism_clmul32(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;

	r[0] = lo ^ (mid << 32);
	r[1] = hi ^ (mid >> 32);
}

/* x = x * h mod x^128 + x^7 + x^2 + x + 1, both in natural form. */
static void prism_gf128_mul_nat(u64 x[2], const u64 h[2])
{
	u64 l[2], hh[2], m[2], t0, t1, o;

	prism_clmul64(x[0], h[0], l);
	prism_clmul64(x[1], h[1], hh);
	prism_clmul64(x[0] ^ x[1], h[0] ^ h[1], m);
	m[0] ^= l[0] ^ hh[0];
	m[1] ^= l[1] ^ hh[1];
	/* The product: hh[1] hh[0]^m[1] l[1]^m[0] l[0], high word first. */
	t0 = hh[0] ^ m[1];
	t1 = hh[1];
	/* x^128 = x^7 + x^2 + x + 1, folded twice (the second fold is small). */
	o = (t1 >> 63) ^ (t1 >> 62) ^ (t1 >> 57);
	x[0] = l[0] ^ t0 ^ (t0 << 1) ^ (t0 << 2) ^ (t0 << 7) ^
	       o ^ (o << 1) ^ (o << 2) ^ (o << 7);
	x[1] = l[1] ^ m[0] ^ t1 ^ (t1 << 1 | t0 >> 63) ^ (t1 << 2 | t0 >> 62) ^
	       (t1 << 7 | t0 >> 57);
}

/* The bits of a word in reverse order. */
static u64 prism_rev64(u64 x)
{
	x = ((x >> 1) & 0x5555555555555555ULL) |
	    ((x & 0x5555555555555555ULL) << 1);
	x = ((x >> 2) & 0x3333333333333333ULL) |
	    ((x & 0x3333333333333333ULL) << 2);
	x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) |
	    ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
	return swab64(x);
}

/* One AES block, with AES-NI when the caller holds the FPU. */
static void prism_aes_block(bool simd, const struct crypto_aes_ctx *ctx,
			    u8 *dst, const u8 *src)
{
	if (simd)
		prism_simd_aes(ctx, dst, src);
	else
		aes_encrypt(ctx, dst, src);
}

/**
 * prism_gf128_mul() - x = x * h in GF(2^128), GCM's representation
 * @x: a block as two big-endian halves (x[0] holds bytes 0..7); the result
 * @h: the other factor, the same way
 * @simd: use PCLMULQDQ if the FPU may be used here (else C)
 *
 * The time taken does not depend on the values (no tables, no branches).
 * Each way is the one GHASH uses: with PCLMULQDQ, one block of
 * prism_simd_ghash() from a zero state, which is (0 + x) * h.
 *
 * Context: Any context.
 * Return: whether PCLMULQDQ computed it.
 */
bool prism_gf128_mul(u64 x[2], const u64 h[2], bool simd)
{
	u64 hn[2] = { prism_rev64(h[0]), prism_rev64(h[1]) };
	u64 y[2] = {};
	u8 b[AES_BLOCK_SIZE];

	simd = simd && prism_simd_begin();
	if (simd) {
		put_unaligned_be64(x[0], b);
		put_unaligned_be64(x[1], b + 8);
		prism_simd_ghash(y, hn, b, 1);
		prism_simd_end();
	} else {
		y[0] = prism_rev64(x[0]);
		y[1] = prism_rev64(x[1]);
		prism_gf128_mul_nat(y, hn);
	}
	x[0] = prism_rev64(y[0]);
	x[1] = prism_rev64(y[1]);
	return simd;
}
EXPORT_SYMBOL_IF_KUNIT(prism_gf128_mul);

/**
 * prism_gcm_setkey() - expand an AES-GCM key
 * @key: the key to set
 * @k: the key's bytes
 * @len: 16, 24 or 32
 *
 * Context: Any context.
 * Return: 0, or -EINVAL for another @len.
 */
int prism_gcm_setkey(struct prism_gcm_key *key, const u8 *k, unsigned int len)
{
	u8 h[AES_BLOCK_SIZE] = {};
	bool simd;
	int err;

	simd = prism_simd_begin();
	/* A new key for nearly every frame a target serves: AES-NI's. */
	if (simd && len == AES_KEYSIZE_128) {
		prism_simd_aes128_expandkey(&key->aes, k);
	} else {
		err = aes_expandkey(&key->aes, k, len);
		if (err) {
			if (simd)
				prism_simd_end();
			return err;
		}
	}
	prism_aes_block(simd, &key->aes, h, h);
	if (simd)
		prism_simd_end();
	key->h[0] = prism_rev64(get_unaligned_be64(h));
	key->h[1] = prism_rev64(get_unaligned_be64(h + 8));
	memzero_explicit(h, sizeof(h));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_setkey);

/**
 * prism_gcm_key_wipe() - forget a key
 * @key: the key; zeroed
 *
 * Context: Any context.
 */
void prism_gcm_key_wipe(struct prism_gcm_key *key)
{
	memzero_explicit(key, sizeof(*key));
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_key_wipe);

/* The GHASH state (natural form) absorbs n whole blocks. */
static void prism_ghash_blocks(struct prism_gcm *g, const u8 *b, size_t n)
{
	if (g->simd && n) {
		prism_simd_ghash(g->y, g->key->h, b, n);
		return;
	}
	for (; n; n--, b += AES_BLOCK_SIZE) {
		g->y[0] ^= prism_rev64(get_unaligned_be64(b));
		g->y[1] ^= prism_rev64(get_unaligned_be64(b + 8));
		prism_gf128_mul_nat(g->y, g->key->h);
	}
}

/* Hash what is pending, padded with zeroes to a block. */
static void prism_ghash_flush(struct prism_gcm *g)
{
	if (!g->npend)
		return;
	memset(g->pend + g->npend, 0, AES_BLOCK_SIZE - g->npend);
	prism_ghash_blocks(g, g->pend, 1);
	g->npend = 0;
}

static void prism_ghash_update(struct prism_gcm *g, const u8 *p, size_t len)
{
	size_t n;

	if (g->npend) {
		n = min_t(size_t, len, AES_BLOCK_SIZE - g->npend);
		memcpy(g->pend + g->npend, p, n);
		g->npend += n;
		p += n;
		len -= n;
		if (g->npend < AES_BLOCK_SIZE)
			return;
		prism_ghash_blocks(g, g->pend, 1);
		g->npend = 0;
	}
	n = len / AES_BLOCK_SIZE;
	prism_ghash_blocks(g, p, n);
	p += n * AES_BLOCK_SIZE;
	len -= n * AES_BLOCK_SIZE;
	memcpy(g->pend, p, len);
	g->npend = len;
}

/* inc32 of SP 800-38D: the last 32 bits of a counter block, plus one. */
static void prism_gcm_inc32(u8 *ctr)
{
	put_unaligned_be32(get_unaligned_be32(ctr + 12) + 1, ctr + 12);
}

/**
 * prism_gcm_start() - begin a message
 * @g: state of the message
 * @key: the key; must outlive @g's use
 * @iv: the 96-bit nonce; never twice with one key for different messages
 *
 * Then: prism_gcm_aad() (any number of times), then the text in order with
 * prism_gcm_hash() and prism_gcm_xor(), then prism_gcm_finish().  Sealing
 * xors a piece, then hashes the ciphertext; opening hashes the whole
 * ciphertext, checks the tag and only then xors (prism_gcm_open()), so no
 * plaintext of a forged message is ever released.
 *
 * Context: Any context.
 */
void prism_gcm_start(struct prism_gcm *g, const struct prism_gcm_key *key,
		     const u8 iv[PRISM_GCM_IV_LEN])
{
	memset(g, 0, sizeof(*g));
	g->key = key;
	memcpy(g->j0, iv, PRISM_GCM_IV_LEN);
	put_unaligned_be32(1, g->j0 + 12);
	memcpy(g->ctr, g->j0, AES_BLOCK_SIZE);
	prism_gcm_inc32(g->ctr);
	g->ks_used = AES_BLOCK_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_start);

/**
 * prism_gcm_aad() - hash associated data (authenticated, not encrypted)
 * @g: the message, before any text
 * @aad: the data
 * @len: its bytes
 *
 * Context: Any context.
 */
void prism_gcm_aad(struct prism_gcm *g, const u8 *aad, size_t len)
{
	prism_ghash_update(g, aad, len);
	g->aad_len += len;
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_aad);

/**
 * prism_gcm_hash() - hash the next ciphertext bytes
 * @g: the message
 * @text: ciphertext
 * @len: its bytes
 *
 * Context: Any context.
 */
void prism_gcm_hash(struct prism_gcm *g, const u8 *text, size_t len)
{
	if (!g->text_len && len)
		prism_ghash_flush(g);	/* the associated data ended */
	prism_ghash_update(g, text, len);
	g->text_len += len;
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_hash);

/**
 * prism_gcm_xor() - encrypt or decrypt the next bytes (CTR mode)
 * @g: the message
 * @dst: output; may be @src
 * @src: input
 * @len: bytes
 *
 * Context: Any context.
 */
void prism_gcm_xor(struct prism_gcm *g, u8 *dst, const u8 *src, size_t len)
{
	size_t n;

	while (len) {
		if (g->ks_used == AES_BLOCK_SIZE) {
			prism_aes_block(g->simd, &g->key->aes, g->ks, g->ctr);
			prism_gcm_inc32(g->ctr);
			g->ks_used = 0;
		}
		n = min_t(size_t, len, AES_BLOCK_SIZE - g->ks_used);
		crypto_xor_cpy(dst, src, g->ks + g->ks_used, n);
		g->ks_used += n;
		dst += n;
		src += n;
		len -= n;
	}
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_xor);

/**
 * prism_gcm_finish() - compute the tag of a message
 * @g: the message; wiped
 * @tag: the 16-byte tag
 *
 * Context: Any context.
 */
void prism_gcm_finish(struct prism_gcm *g, u8 tag[PRISM_GCM_TAG_LEN])
{
	u8 b[AES_BLOCK_SIZE];

	prism_ghash_flush(g);
	put_unaligned_be64(g->aad_len * 8, b);
	put_unaligned_be64(g->text_len * 8, b + 8);
	prism_ghash_blocks(g, b, 1);
	prism_aes_block(g->simd, &g->key->aes, b, g->j0);
	put_unaligned_be64(get_unaligned_be64(b) ^ prism_rev64(g->y[0]), tag);
	put_unaligned_be64(get_unaligned_be64(b + 8) ^ prism_rev64(g->y[1]),
			   tag + 8);
	memzero_explicit(b, sizeof(b));
	memzero_explicit(g, sizeof(*g));
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_finish);

/**
 * prism_gcm_seal() - encrypt a buffer in place and compute its tag
 * @key: the key
 * @iv: the nonce
 * @aad: associated data
 * @aad_len: its bytes
 * @buf: plaintext in, ciphertext out
 * @len: bytes of @buf
 * @tag: the tag
 *
 * Context: Any context.
 */
void prism_gcm_seal(const struct prism_gcm_key *key,
		    const u8 iv[PRISM_GCM_IV_LEN], const u8 *aad,
		    size_t aad_len, u8 *buf, size_t len,
		    u8 tag[PRISM_GCM_TAG_LEN])
{
	struct prism_gcm g;
	bool simd = prism_simd_begin();

	prism_gcm_start(&g, key, iv);
	g.simd = simd;
	prism_gcm_aad(&g, aad, aad_len);
	prism_gcm_xor(&g, buf, buf, len);
	prism_gcm_hash(&g, buf, len);
	prism_gcm_finish(&g, tag);
	if (simd)
		prism_simd_end();
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_seal);

/**
 * prism_gcm_verify() - check a message's tag without decrypting it
 * @key: the key
 * @iv: the nonce
 * @aad: associated data
 * @aad_len: its bytes
 * @text: ciphertext (only read)
 * @len: its bytes
 * @tag: the tag received
 *
 * Context: Any context.
 * Return: 0, or -EBADMSG if the tag does not match.
 */
int prism_gcm_verify(const struct prism_gcm_key *key,
		     const u8 iv[PRISM_GCM_IV_LEN], const u8 *aad,
		     size_t aad_len, const u8 *text, size_t len,
		     const u8 tag[PRISM_GCM_TAG_LEN])
{
	struct prism_gcm g;
	u8 t[PRISM_GCM_TAG_LEN];
	bool simd = prism_simd_begin();
	int bad;

	prism_gcm_start(&g, key, iv);
	g.simd = simd;
	prism_gcm_aad(&g, aad, aad_len);
	prism_gcm_hash(&g, text, len);
	prism_gcm_finish(&g, t);
	if (simd)
		prism_simd_end();
	bad = crypto_memneq(t, tag, sizeof(t));
	memzero_explicit(t, sizeof(t));
	return bad ? -EBADMSG : 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_verify);

/**
 * prism_gcm_crypt() - decrypt (or encrypt) a message in place, no tag
 * @key: the key
 * @iv: the nonce
 * @buf: the text
 * @len: its bytes
 *
 * Opening a message is prism_gcm_verify(), then this once it succeeded.
 *
 * Context: Any context.
 */
void prism_gcm_crypt(const struct prism_gcm_key *key,
		     const u8 iv[PRISM_GCM_IV_LEN], u8 *buf, size_t len)
{
	struct prism_gcm g;
	bool simd = prism_simd_begin();

	prism_gcm_start(&g, key, iv);
	g.simd = simd;
	prism_gcm_xor(&g, buf, buf, len);
	if (simd)
		prism_simd_end();
	memzero_explicit(&g, sizeof(g));
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_crypt);

/**
 * prism_gcm_open() - check a buffer's tag, then decrypt it in place
 * @key: the key
 * @iv: the nonce
 * @aad: associated data
 * @aad_len: its bytes
 * @buf: ciphertext in, plaintext out (untouched if the tag is wrong)
 * @len: bytes of @buf
 * @tag: the tag received
 *
 * Context: Any context.
 * Return: 0, or -EBADMSG if the tag does not match.
 */
int prism_gcm_open(const struct prism_gcm_key *key,
		   const u8 iv[PRISM_GCM_IV_LEN], const u8 *aad,
		   size_t aad_len, u8 *buf, size_t len,
		   const u8 tag[PRISM_GCM_TAG_LEN])
{
	int err = prism_gcm_verify(key, iv, aad, aad_len, buf, len, tag);

	if (!err)
		prism_gcm_crypt(key, iv, buf, len);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(prism_gcm_open);

/**
 * prism_kd_derive() - the derived key of one initiator
 * @kr: the region key, expanded
 * @id: the initiator and its rights
 * @kd: the 16-byte derived key
 *
 * Kd = AES_Kr(AES_Kr(B1) ^ B2), a CBC-MAC of two blocks, which is a
 * pseudo-random function of inputs of this one fixed length.  B1 is the
 * initiator's address: IPv6 as is, IPv4 in the first 4 bytes, a MAC in
 * the first 6, the rest zero.  B2 is the address kind, the rights, two
 * zero bytes, the endpoint id and the rkey (big-endian).
 *
 * Context: Any context.
 * Return: 0, or -EINVAL for an address of no kind.
 */
int prism_kd_derive(const struct crypto_aes_ctx *kr,
		    const struct prism_kd_id *id, u8 kd[PRISM_KEY_LEN])
{
	u8 b[AES_BLOCK_SIZE] = {}, b2[AES_BLOCK_SIZE] = {};
	unsigned int i;
	bool simd;

	switch (id->addr->kind) {
	case PRISM_LINK_ETH:
		memcpy(b, id->addr->mac, ETH_ALEN);
		break;
	case PRISM_LINK_UDP4:
		memcpy(b, &id->addr->ip4, sizeof(id->addr->ip4));
		break;
	case PRISM_LINK_UDP6:
		memcpy(b, &id->addr->ip6, sizeof(id->addr->ip6));
		break;
	default:
		return -EINVAL;
	}
	b2[0] = id->addr->kind;
	b2[1] = id->rights;
	put_unaligned_be32(id->ep, b2 + 4);
	put_unaligned_be64(id->rkey, b2 + 8);

	simd = prism_simd_begin();
	prism_aes_block(simd, kr, b, b);
	for (i = 0; i < AES_BLOCK_SIZE; i++)
		b[i] ^= b2[i];
	prism_aes_block(simd, kr, kd, b);
	if (simd)
		prism_simd_end();
	memzero_explicit(b, sizeof(b));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_kd_derive);
