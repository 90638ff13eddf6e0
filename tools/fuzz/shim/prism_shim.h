/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel API used by kmod/wire.c and
 * kmod/engine.c, so that both compile unmodified into the host fuzzer.
 *
 * Everything here is minimal and written for the fuzzer: spinlocks are
 * checked counters (a double lock, an unlock of a free lock, or a lock still
 * held after a chain is a finding), pages are separate 4096-byte heap
 * buffers (ASan catches any access outside them), and a WARN aborts.
 */
#ifndef _PRISM_FUZZ_SHIM_H
#define _PRISM_FUZZ_SHIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/errno.h>

/* ---- types ---- */
typedef unsigned char		__u8;
typedef unsigned short		__u16;
typedef unsigned int		__u32;
typedef unsigned long long	__u64;
typedef signed char		__s8;
typedef short			__s16;
typedef int			__s32;
typedef long long		__s64;
typedef __u16 __le16;
typedef __u32 __le32;
typedef __u64 __le64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u16 __sum16;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct list_head {
	struct list_head *next, *prev;
};

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

struct xarray {
	void *head;
};

struct mm_struct;

/* A fake page: one 4096-byte heap buffer of its own. */
struct page {
	u8		*buf;
	unsigned long	pfn;
};

/*
 * A checked spinlock.  The engine runs single-threaded here: a lock that is
 * taken while held would deadlock in the kernel, so it aborts.
 */
typedef struct {
	int		locked;
	unsigned int	magic;
} spinlock_t;

#define PRISM_FUZZ_LOCK_MAGIC	0x5b1ca7edU

void prism_fuzz_lock(spinlock_t *l, int subclass);
void prism_fuzz_unlock(spinlock_t *l);
void prism_fuzz_warn(const char *cond, const char *file, int line);

/* ---- compiler, misc ---- */
#define __packed			__attribute__((packed))
#define __rcu
#define ____cacheline_aligned_in_smp	__attribute__((aligned(64)))
#define __acquires(x)
#define __releases(x)
#define __acquire(x)			((void)0)
#define __release(x)			((void)0)
#define likely(x)			__builtin_expect(!!(x), 1)
#define unlikely(x)			__builtin_expect(!!(x), 0)

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#define BIT(nr)		(1UL << (nr))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a)	(((x) + ((__typeof__(x))(a) - 1)) & \
			 ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)

#define min_t(type, x, y) ({			\
	type __mx = (x);			\
	type __my = (y);			\
	__mx < __my ? __mx : __my; })
#define max_t(type, x, y) ({			\
	type __mx = (x);			\
	type __my = (y);			\
	__mx > __my ? __mx : __my; })
#define swap(a, b) do {				\
	__typeof__(a) __tmp = (a);		\
	(a) = (b);				\
	(b) = __tmp;				\
} while (0)

#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	do {				\
	*(volatile __typeof__(x) *)&(x) = (v);			\
} while (0)

/* A WARN is a bug in the fuzzed code: stop with the location. */
#define WARN_ON_ONCE(cond) ({						\
	int __w = !!(cond);						\
	if (__w)							\
		prism_fuzz_warn(#cond, __FILE__, __LINE__);		\
	__w; })
#define WARN_ON(cond)		WARN_ON_ONCE(cond)

#define EXPORT_SYMBOL(sym)		extern int prism_fuzz_export_dummy
#define EXPORT_SYMBOL_GPL(sym)		extern int prism_fuzz_export_dummy
#define EXPORT_SYMBOL_IF_KUNIT(sym)	extern int prism_fuzz_export_dummy

/* ---- byte order (the fuzzer runs on little-endian hosts only) ---- */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PRISM fuzz shim assumes a little-endian host"
#endif
#define cpu_to_be16(x)	((__be16)__builtin_bswap16(x))
#define cpu_to_be32(x)	((__be32)__builtin_bswap32(x))
#define cpu_to_be64(x)	((__be64)__builtin_bswap64(x))
#define be16_to_cpu(x)	((u16)__builtin_bswap16(x))
#define be32_to_cpu(x)	((u32)__builtin_bswap32(x))
#define be64_to_cpu(x)	((u64)__builtin_bswap64(x))
#define cpu_to_le64(x)	((__le64)(x))
#define le64_to_cpu(x)	((u64)(x))

static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put_unaligned_le64(u64 v, void *p)
{
	memcpy(p, &v, sizeof(v));
}

static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ---- memory ---- */
#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)

static inline unsigned long page_to_pfn(const struct page *page)
{
	return page->pfn;
}

static inline void *kmap_local_page(struct page *page)
{
	return page->buf;
}

static inline void kunmap_local(const void *addr)
{
	(void)addr;
}

#define cmpxchg64(ptr, old, new) \
	__sync_val_compare_and_swap((ptr), (old), (new))

/* ---- hash ---- */
#define GOLDEN_RATIO_64	0x61C8864680B583EBull

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return (u32)((val * GOLDEN_RATIO_64) >> (64 - bits));
}

/* ---- locks ---- */
#define SINGLE_DEPTH_NESTING	1

static inline void spin_lock_init(spinlock_t *l)
{
	l->locked = 0;
	l->magic = PRISM_FUZZ_LOCK_MAGIC;
}

#define spin_lock(l)			prism_fuzz_lock((l), 0)
#define spin_lock_nested(l, sub)	prism_fuzz_lock((l), (sub))
#define spin_unlock(l)			prism_fuzz_unlock(l)
#define spin_lock_bh(l)			prism_fuzz_lock((l), 0)
#define spin_unlock_bh(l)		prism_fuzz_unlock(l)

/* ---- containers (declarations only: the fuzzer owns the lookups) ---- */
#define DECLARE_HASHTABLE(name, bits)	struct hlist_head name[1 << (bits)]

#endif /* _PRISM_FUZZ_SHIM_H */
