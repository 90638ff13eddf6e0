// SPDX-License-Identifier: GPL-2.0
/*
 * AES-NI, PCLMULQDQ and PSHUFB for crypt.c (crypt_simd.h says when they are used).
 *
 * Each function is one asm statement that loads its inputs, computes and
 * stores its result, then clears the vector registers it used, so no key
 * material stays in them; nothing is kept in vector registers from one
 * statement to the next.  The registers are not named as clobbered: the
 * kernel is built with -mno-sse, so the compiler neither accepts that nor
 * uses them itself (lib/raid6's SSE code relies on the same).  The caller
 * holds the FPU (prism_simd_begin()).
 */
#include <linux/module.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <kunit/visibility.h>
#include "crypt_simd.h"

#ifdef CONFIG_X86_64

static bool crypt_simd = true;
module_param(crypt_simd, bool, 0644);
MODULE_PARM_DESC(crypt_simd,
		 "keyed regions use the CPU's AES and carry-less multiply instructions when it has them (default on; off: lib/crypto's AES and GHASH in C)");

/**
 * prism_simd_begin() - take the FPU for AES-NI and PCLMULQDQ, if allowed
 *
 * Context: Any context; on true, preemption is off until prism_simd_end().
 * Return: true if the prism_simd_*() functions may be called now.
 */
bool prism_simd_begin(void)
{
	if (!READ_ONCE(crypt_simd) || !boot_cpu_has(X86_FEATURE_AES) ||
	    !boot_cpu_has(X86_FEATURE_PCLMULQDQ) ||
	    !boot_cpu_has(X86_FEATURE_SSSE3) || !irq_fpu_usable())
		return false;
	kernel_fpu_begin();
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(prism_simd_begin);

/**
 * prism_simd_end() - give the FPU back after prism_simd_begin() said true
 *
 * Context: Any context.
 */
void prism_simd_end(void)
{
	kernel_fpu_end();
}
EXPORT_SYMBOL_IF_KUNIT(prism_simd_end);

/**
 * prism_simd_aes() - encrypt one block with AES-NI
 * @ctx: round keys from aes_expandkey() (any key length)
 * @dst: the 16-byte result; may be @src
 * @src: the 16-byte block
 *
 * aes_expandkey()'s encryption schedule is the standard one, round key by
 * round key in byte order, which is what AESENC takes.
 *
 * Context: Between prism_simd_begin() and prism_simd_end().
 */
void prism_simd_aes(const struct crypto_aes_ctx *ctx, u8 *dst, const u8 *src)
{
	const u32 *rk = ctx->key_enc;
	/* 10, 12 or 14 rounds: all but the last are AESENC */
	unsigned long n = ctx->key_length / 4 + 5;

	asm volatile("movdqu (%[src]), %%xmm0\n\t"
		     "movdqu (%[rk]), %%xmm1\n\t"
		     "pxor %%xmm1, %%xmm0\n"
		     "1:\n\t"
		     "add $16, %[rk]\n\t"
		     "movdqu (%[rk]), %%xmm1\n\t"
		     "aesenc %%xmm1, %%xmm0\n\t"
		     "dec %[n]\n\t"
		     "jnz 1b\n\t"
		     "movdqu 16(%[rk]), %%xmm1\n\t"
		     "aesenclast %%xmm1, %%xmm0\n\t"
		     "movdqu %%xmm0, (%[dst])\n\t"
		     "pxor %%xmm0, %%xmm0\n\t"
		     "pxor %%xmm1, %%xmm1\n\t"
		     : [rk] "+r" (rk), [n] "+r" (n)
		     : [src] "r" (src), [dst] "r" (dst)
		     : "memory", "cc");
}
EXPORT_SYMBOL_IF_KUNIT(prism_simd_aes);

/*
 * One round of the AES-128 key schedule: xmm0 = the previous round key,
 * rcon its round constant; stores the next at off(rk).  xmm1 = SubWord
 * and RotWord of the last word (AESKEYGENASSIST), broadcast; xmm0 gets
 * the running XOR of its own words (three shifts by one word) and xmm1.
 */
#define PRISM_SIMD_KEYROUND(rcon, off)					\
	"aeskeygenassist $" #rcon ", %%xmm0, %%xmm1\n\t"		\
	"pshufd $0xff, %%xmm1, %%xmm1\n\t"				\
	"movdqa %%xmm0, %%xmm2\n\t"					\
	"pslldq $4, %%xmm2\n\t"					\
	"pxor %%xmm2, %%xmm0\n\t"					\
	"pslldq $4, %%xmm2\n\t"					\
	"pxor %%xmm2, %%xmm0\n\t"					\
	"pslldq $4, %%xmm2\n\t"					\
	"pxor %%xmm2, %%xmm0\n\t"					\
	"pxor %%xmm1, %%xmm0\n\t"					\
	"movdqu %%xmm0, " #off "(%[rk])\n\t"

/**
 * prism_simd_aes128_expandkey() - aes_expandkey() of a 128-bit key, by
 *                                 AESKEYGENASSIST
 * @ctx: gets the encryption schedule and key length; its decryption
 *       schedule is zeroed (AES-GCM only encrypts)
 * @key: the 16-byte key
 *
 * The schedule is aes_expandkey()'s, word for word (kunit/crypt_test.c).
 *
 * Context: Between prism_simd_begin() and prism_simd_end().
 */
void prism_simd_aes128_expandkey(struct crypto_aes_ctx *ctx, const u8 *key)
{
	u32 *rk = ctx->key_enc;

	asm volatile("movdqu (%[key]), %%xmm0\n\t"
		     "movdqu %%xmm0, (%[rk])\n\t"
		     PRISM_SIMD_KEYROUND(0x01, 16)
		     PRISM_SIMD_KEYROUND(0x02, 32)
		     PRISM_SIMD_KEYROUND(0x04, 48)
		     PRISM_SIMD_KEYROUND(0x08, 64)
		     PRISM_SIMD_KEYROUND(0x10, 80)
		     PRISM_SIMD_KEYROUND(0x20, 96)
		     PRISM_SIMD_KEYROUND(0x40, 112)
		     PRISM_SIMD_KEYROUND(0x80, 128)
		     PRISM_SIMD_KEYROUND(0x1b, 144)
		     PRISM_SIMD_KEYROUND(0x36, 160)
		     "pxor %%xmm0, %%xmm0\n\t"
		     "pxor %%xmm1, %%xmm1\n\t"
		     "pxor %%xmm2, %%xmm2\n\t"
		     :
		     : [key] "r" (key), [rk] "r" (rk)
		     : "memory");
	memset(ctx->key_dec, 0, sizeof(ctx->key_dec));
	ctx->key_length = AES_KEYSIZE_128;
}
EXPORT_SYMBOL_IF_KUNIT(prism_simd_aes128_expandkey);

/*
 * Constants of the asm below: x^128 = x^7 + x^2 + x + 1 (0x87), the low
 * nibble mask, and each nibble bit-reversed (also shifted to the high
 * nibble), for PSHUFB to reverse the bits of every byte.
 */
static const u64 prism_simd_poly[2] __aligned(16) = { 0x87, 0 };
static const u8 prism_simd_nib[16] __aligned(16) = {
	0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f,
	0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f,
};

static const u8 prism_simd_rev_lo[16] __aligned(16) = {
	0x00, 0x08, 0x04, 0x0c, 0x02, 0x0a, 0x06, 0x0e,
	0x01, 0x09, 0x05, 0x0d, 0x03, 0x0b, 0x07, 0x0f,
};

static const u8 prism_simd_rev_hi[16] __aligned(16) = {
	0x00, 0x80, 0x40, 0xc0, 0x20, 0xa0, 0x60, 0xe0,
	0x10, 0x90, 0x50, 0xd0, 0x30, 0xb0, 0x70, 0xf0,
};

/*
 * xmm6 = xmm6 * xmm1 in GF(2^128), natural form, xmm5 holding 0x87;
 * xmm2..xmm4 are scratch.  Four carry-less products give the 255-bit
 * product [p3 p2 p1 p0] (64-bit words, p0 lowest).  p3 x^192 =
 * p3 x^64 (x^7 + x^2 + x + 1): p3 * 0x87, at most 71 bits, is added at
 * word 1; then p2 (updated) times 0x87 is added at word 0, and [p1 p0] is
 * the result.
 */
#define PRISM_SIMD_MUL							\
	/* xmm2 = y0 h0, xmm3 = y1 h1, xmm6 = y1 h0 + y0 h1 */		\
	"movdqa %%xmm6, %%xmm2\n\t"					\
	"pclmulqdq $0x00, %%xmm1, %%xmm2\n\t"				\
	"movdqa %%xmm6, %%xmm3\n\t"					\
	"pclmulqdq $0x11, %%xmm1, %%xmm3\n\t"				\
	"movdqa %%xmm6, %%xmm4\n\t"					\
	"pclmulqdq $0x01, %%xmm1, %%xmm4\n\t"				\
	"pclmulqdq $0x10, %%xmm1, %%xmm6\n\t"				\
	"pxor %%xmm4, %%xmm6\n\t"					\
	/* xmm2 = [p1 p0], xmm3 = [p3 p2] */				\
	"movdqa %%xmm6, %%xmm4\n\t"					\
	"pslldq $8, %%xmm4\n\t"						\
	"psrldq $8, %%xmm6\n\t"						\
	"pxor %%xmm4, %%xmm2\n\t"					\
	"pxor %%xmm6, %%xmm3\n\t"					\
	/* p3 * 0x87 = [t1 t0]: p1 ^= t0, p2 ^= t1 */			\
	"movdqa %%xmm3, %%xmm4\n\t"					\
	"pclmulqdq $0x01, %%xmm5, %%xmm4\n\t"				\
	"movdqa %%xmm4, %%xmm6\n\t"					\
	"pslldq $8, %%xmm6\n\t"						\
	"pxor %%xmm6, %%xmm2\n\t"					\
	"psrldq $8, %%xmm4\n\t"						\
	"pxor %%xmm4, %%xmm3\n\t"					\
	/* p2 * 0x87 = [u1 u0]: [p1 p0] ^= [u1 u0] */			\
	"pclmulqdq $0x00, %%xmm5, %%xmm3\n\t"				\
	"pxor %%xmm3, %%xmm2\n\t"					\
	"movdqa %%xmm2, %%xmm6\n\t"

#define PRISM_SIMD_CLEAR						\
	"pxor %%xmm0, %%xmm0\n\t"					\
	"pxor %%xmm1, %%xmm1\n\t"					\
	"pxor %%xmm2, %%xmm2\n\t"					\
	"pxor %%xmm3, %%xmm3\n\t"					\
	"pxor %%xmm4, %%xmm4\n\t"					\
	"pxor %%xmm6, %%xmm6\n\t"

/**
 * prism_simd_ghash() - GHASH whole blocks: y = (y + b_i) * h, in order
 * @y: the GHASH state, natural form
 * @h: the hash key, natural form
 * @b: @n blocks in GCM's bit order (x^0 the high bit of byte 0)
 * @n: blocks, at least one
 *
 * A block read little-endian, every byte's bits reversed, is the block in
 * natural form, which PSHUFB does with two nibble lookups.
 *
 * Context: Between prism_simd_begin() and prism_simd_end().
 */
void prism_simd_ghash(u64 y[2], const u64 h[2], const u8 *b, size_t n)
{
	asm volatile("movdqu (%[y]), %%xmm6\n\t"
		     "movdqu (%[h]), %%xmm1\n\t"
		     "movdqa (%[p]), %%xmm5\n\t"
		     "movdqa (%[nib]), %%xmm7\n"
		     "1:\n\t"
		     "movdqu (%[b]), %%xmm0\n\t"
		     "movdqa %%xmm0, %%xmm2\n\t"
		     "pand %%xmm7, %%xmm2\n\t"
		     "psrlw $4, %%xmm0\n\t"
		     "pand %%xmm7, %%xmm0\n\t"
		     "movdqa (%[rhi]), %%xmm3\n\t"
		     "pshufb %%xmm2, %%xmm3\n\t"
		     "movdqa (%[rlo]), %%xmm4\n\t"
		     "pshufb %%xmm0, %%xmm4\n\t"
		     "por %%xmm4, %%xmm3\n\t"
		     "pxor %%xmm3, %%xmm6\n\t"
		     PRISM_SIMD_MUL
		     "add $16, %[b]\n\t"
		     "dec %[n]\n\t"
		     "jnz 1b\n\t"
		     "movdqu %%xmm6, (%[y])\n\t"
		     PRISM_SIMD_CLEAR
		     : [b] "+r" (b), [n] "+r" (n)
		     : [y] "r" (y), [h] "r" (h), [p] "r" (prism_simd_poly),
		       [nib] "r" (prism_simd_nib), [rlo] "r" (prism_simd_rev_lo),
		       [rhi] "r" (prism_simd_rev_hi)
		     : "memory", "cc");
}
EXPORT_SYMBOL_IF_KUNIT(prism_simd_ghash);

#endif /* CONFIG_X86_64 */
