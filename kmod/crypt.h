/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cryptography of keyed regions (kmod/crypt.c, pure functions tested by
 * kmod/kunit/crypt_test.c): derived keys and AES-GCM with a key chosen per
 * frame.  doc/SECURITY.md, "Keyed regions", says how
 * they fit together.
 *
 * A keyed region has a 128-bit region key Kr that never travels.  A client
 * holds a derived key Kd = prism_kd_derive(Kr, its address, its endpoint
 * id, the rights it is granted), which the server's process computes for it
 * and hands over out of band.  The target derives Kd again from what a
 * frame carries, so it keeps no state per client before a frame proved it
 * holds Kd.
 *
 * Why not the crypto API's "gcm(aes)": the target needs a different key for
 * nearly every frame, and crypto_aead_setkey() of gcm (and of ghash-generic
 * under it) allocates with GFP_KERNEL, which softirq may not do.  AES comes
 * from lib/crypto (aes_expandkey(), aes_encrypt(): no allocation, no
 * module); GCM's mode and GHASH are composed here after NIST SP 800-38D and
 * checked against its published vectors and against the crypto API's
 * gcm(aes) (kunit/crypt_test.c).  Where the CPU has AES-NI and PCLMULQDQ,
 * the one-shot functions (seal, verify, crypt, setkey, derive) use them
 * (crypt_simd.c); the C code is the fallback and the reference.
 */
#ifndef _PRISM_CRYPT_H
#define _PRISM_CRYPT_H

#include <linux/types.h>
#include <crypto/aes.h>
#include "link.h"

#define PRISM_KEY_LEN		16	/* AES-128: Kr and Kd */
#define PRISM_GCM_IV_LEN	12
#define PRISM_GCM_TAG_LEN	16

/**
 * struct prism_kd_id - who a derived key belongs to
 * @addr: the initiator's link address (kind and MAC or IP address; the
 *        UDP port and the interface do not count)
 * @ep: the initiator's endpoint id
 * @rights: PRISM_ACCESS_* bits, PRISM_KEY_ADMIN (uapi/linux/prism.h)
 * @rkey: the region (a key is for one region, even if two share Kr)
 */
struct prism_kd_id {
	const struct prism_paddr	*addr;
	u32				ep;
	u8				rights;
	u64				rkey;
};

/**
 * struct prism_gcm_key - an AES-GCM key, expanded
 * @aes: AES round keys
 * @h: GHASH key H = AES_K(0^128), in crypt.c's natural form (word 0:
 *     the coefficients of x^0..x^63)
 */
struct prism_gcm_key {
	struct crypto_aes_ctx	aes;
	u64			h[2];
};

/**
 * struct prism_gcm - one AES-GCM message being sealed or opened
 * @key: its key
 * @y: GHASH state, natural form
 * @pend: bytes of a GHASH block not yet complete
 * @npend: bytes in @pend
 * @ctr: the counter block of the next keystream block
 * @ks: keystream block in use
 * @ks_used: bytes of @ks used (16: none left)
 * @j0: the pre-counter block (encrypts the tag)
 * @aad_len: bytes of associated data hashed
 * @text_len: bytes of text hashed
 * @simd: the caller holds the FPU: AES-NI and PCLMULQDQ (crypt_simd.h);
 *        set by the one-shot functions, false after prism_gcm_start()
 */
struct prism_gcm {
	const struct prism_gcm_key	*key;
	u64				y[2];
	u8				pend[AES_BLOCK_SIZE];
	unsigned int			npend;
	u8				ctr[AES_BLOCK_SIZE];
	u8				ks[AES_BLOCK_SIZE];
	unsigned int			ks_used;
	u8				j0[AES_BLOCK_SIZE];
	u64				aad_len;
	u64				text_len;
	bool				simd;
};

int prism_gcm_setkey(struct prism_gcm_key *key, const u8 *k, unsigned int len);
void prism_gcm_key_wipe(struct prism_gcm_key *key);
void prism_gcm_start(struct prism_gcm *g, const struct prism_gcm_key *key,
		     const u8 iv[PRISM_GCM_IV_LEN]);
void prism_gcm_aad(struct prism_gcm *g, const u8 *aad, size_t len);
void prism_gcm_hash(struct prism_gcm *g, const u8 *text, size_t len);
void prism_gcm_xor(struct prism_gcm *g, u8 *dst, const u8 *src, size_t len);
void prism_gcm_finish(struct prism_gcm *g, u8 tag[PRISM_GCM_TAG_LEN]);
void prism_gcm_seal(const struct prism_gcm_key *key,
		    const u8 iv[PRISM_GCM_IV_LEN], const u8 *aad,
		    size_t aad_len, u8 *buf, size_t len,
		    u8 tag[PRISM_GCM_TAG_LEN]);
int prism_gcm_verify(const struct prism_gcm_key *key,
		     const u8 iv[PRISM_GCM_IV_LEN], const u8 *aad,
		     size_t aad_len, const u8 *text, size_t len,
		     const u8 tag[PRISM_GCM_TAG_LEN]);
void prism_gcm_crypt(const struct prism_gcm_key *key,
		     const u8 iv[PRISM_GCM_IV_LEN], u8 *buf, size_t len);
int prism_gcm_open(const struct prism_gcm_key *key,
		   const u8 iv[PRISM_GCM_IV_LEN], const u8 *aad,
		   size_t aad_len, u8 *buf, size_t len,
		   const u8 tag[PRISM_GCM_TAG_LEN]);
bool prism_gf128_mul(u64 x[2], const u64 h[2], bool simd);

int prism_kd_derive(const struct crypto_aes_ctx *kr,
		    const struct prism_kd_id *id, u8 kd[PRISM_KEY_LEN]);

#endif /* _PRISM_CRYPT_H */
