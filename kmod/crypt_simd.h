/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU's own AES and carry-less multiplication for crypt.c (x86-64:
 * AES-NI and PCLMULQDQ; kmod/crypt_simd.c).  Both are constant-time and
 * several times faster than lib/crypto's AES and crypt.c's GHASH in C,
 * which stay the fallback: on other CPUs, when the module parameter
 * crypt_simd is off, and wherever the FPU may not be used (a hard
 * interrupt that interrupted kernel FPU use, say).
 *
 * Use: if (prism_simd_begin()) { prism_simd_aes(...); ...;
 * prism_simd_end(); }.  Between the two, preemption is off and nothing
 * may sleep; keep it to one message.
 */
#ifndef _PRISM_CRYPT_SIMD_H
#define _PRISM_CRYPT_SIMD_H

#include <linux/types.h>
#include <crypto/aes.h>

#ifdef CONFIG_X86_64
bool prism_simd_begin(void);
void prism_simd_end(void);
void prism_simd_aes(const struct crypto_aes_ctx *ctx, u8 *dst, const u8 *src);
void prism_simd_ghash(u64 y[2], const u64 h[2], const u8 *b, size_t n);
void prism_simd_aes128_expandkey(struct crypto_aes_ctx *ctx, const u8 *key);
#else
static inline bool prism_simd_begin(void)
{
	return false;
}

static inline void prism_simd_end(void)
{
}

static inline void prism_simd_aes(const struct crypto_aes_ctx *ctx, u8 *dst,
				  const u8 *src)
{
}

static inline void prism_simd_ghash(u64 y[2], const u64 h[2], const u8 *b,
				    size_t n)
{
}

static inline void prism_simd_aes128_expandkey(struct crypto_aes_ctx *ctx,
					       const u8 *key)
{
}
#endif

#endif /* _PRISM_CRYPT_SIMD_H */
