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
#include <crypto/algapi.h>
#include <kunit/visibility.h>
#include "compat.h"
#include "prism.h"
#include "crypt.h"

/*
 * GCM's reduction constant: x^128 = x^7 + x^2 + x + 1, in GCM's bit order
 * (bit 0 is the most significant bit of byte 0), as the high half.
 */
#define PRISM_GF128_R	0xe100000000000000ULL

/**
 * prism_gf128_mul() - x = x * h in GF(2^128), GCM's representation
 * @x: a block as two big-endian halves (x[0] holds bytes 0..7); the result
 * @h: the other factor, the same way
 *
 * Algorithm 1 of NIST SP 800-38D, one bit of @x per step, with masks
 * instead of branches: the time taken does not depend on the values.
 *
 * Context: Any context.
 */
void prism_gf128_mul(u64 x[2], const u64 h[2])
{
	u64 z0 = 0, z1 = 0, v0 = h[0], v1 = h[1], m, r;
	unsigned int i;

	for (i = 0; i < 128; i++) {
		m = -((x[i / 64] >> (63 - i % 64)) & 1);
		z0 ^= v0 & m;
		z1 ^= v1 & m;
		r = -(v1 & 1) & PRISM_GF128_R;
		v1 = (v1 >> 1) | (v0 << 63);
		v0 = (v0 >> 1) ^ r;
	}
	x[0] = z0;
	x[1] = z1;
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
	int err;

	err = aes_expandkey(&key->aes, k, len);
	if (err)
		return err;
	aes_encrypt(&key->aes, h, h);
	key->h[0] = get_unaligned_be64(h);
	key->h[1] = get_unaligned_be64(h + 8);
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

static void prism_ghash_block(struct prism_gcm *g, const u8 *b)
{
	g->y[0] ^= get_unaligned_be64(b);
	g->y[1] ^= get_unaligned_be64(b + 8);
	prism_gf128_mul(g->y, g->key->h);
}

/* Hash what is pending, padded with zeroes to a block. */
static void prism_ghash_flush(struct prism_gcm *g)
{
	if (!g->npend)
		return;
	memset(g->pend + g->npend, 0, AES_BLOCK_SIZE - g->npend);
	prism_ghash_block(g, g->pend);
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
		prism_ghash_block(g, g->pend);
		g->npend = 0;
	}
	for (; len >= AES_BLOCK_SIZE; p += AES_BLOCK_SIZE, len -= AES_BLOCK_SIZE)
		prism_ghash_block(g, p);
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
	size_t i;

	for (i = 0; i < len; i++) {
		if (g->ks_used == AES_BLOCK_SIZE) {
			aes_encrypt(&g->key->aes, g->ks, g->ctr);
			prism_gcm_inc32(g->ctr);
			g->ks_used = 0;
		}
		dst[i] = src[i] ^ g->ks[g->ks_used++];
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
	prism_ghash_block(g, b);
	aes_encrypt(&g->key->aes, b, g->j0);
	put_unaligned_be64(get_unaligned_be64(b) ^ g->y[0], tag);
	put_unaligned_be64(get_unaligned_be64(b + 8) ^ g->y[1], tag + 8);
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

	prism_gcm_start(&g, key, iv);
	prism_gcm_aad(&g, aad, aad_len);
	prism_gcm_xor(&g, buf, buf, len);
	prism_gcm_hash(&g, buf, len);
	prism_gcm_finish(&g, tag);
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
	int bad;

	prism_gcm_start(&g, key, iv);
	prism_gcm_aad(&g, aad, aad_len);
	prism_gcm_hash(&g, text, len);
	prism_gcm_finish(&g, t);
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

	prism_gcm_start(&g, key, iv);
	prism_gcm_xor(&g, buf, buf, len);
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

	aes_encrypt(kr, b, b);
	for (i = 0; i < AES_BLOCK_SIZE; i++)
		b[i] ^= b2[i];
	aes_encrypt(kr, kd, b);
	memzero_explicit(b, sizeof(b));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_kd_derive);
