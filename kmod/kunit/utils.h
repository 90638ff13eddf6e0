/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared fixture of the PRISM KUnit suites (utils.c).
 *
 * Every test gets a fresh struct prism_mem with four regions over
 * alloc_page() memory, presented at fake target addresses:
 *   A  3 pages, starts 0x100 into its first page, ends 0x80 before the end
 *      of the last one; all rights
 *   B  1 page, REMOTE_READ only
 *   C  1 page, REMOTE_WRITE | REMOTE_ATOMIC (no read)
 *   D  1 page, REMOTE_READ | REMOTE_WRITE (no atomic)
 * All page bytes start as a known pattern and a shadow copy holds what
 * they must contain; a test records the changes it expects in the shadow
 * and t_check_mem() compares every byte of every page, so "nothing else
 * was touched" is checked everywhere.
 *
 * Requests are built op by op by t_add(), big-endian with wire.c's
 * prism_wop_encode() (which wire_test.c checks against fixed bytes), with
 * a host-order copy alongside for prism_chain_encode().
 */
#ifndef _PRISM_KUNIT_UTILS_H
#define _PRISM_KUNIT_UTILS_H

#include <kunit/test.h>
#include <linux/types.h>
#include <linux/mm.h>
#include "../prism.h"

enum { RA, RB, RC, RD, T_NREG };

#define T_MAX_PAGES	3
#define T_REQ_MAX	16384
#define T_RESP_MAX	20000

struct t_region {
	struct page	*pages[T_MAX_PAGES];
	unsigned int	npages;
	u64		base;		/* address of the first page's byte 0 */
	u64		start;
	u64		len;
	u64		rkey;
	u8		*shadow;	/* expected bytes of all pages */
};

struct t_req {
	u8	buf[T_REQ_MAX];		/* wire body, big-endian */
	u8	host[T_REQ_MAX];	/* the same chain in host order */
	u32	len;
	u8	nops;
};

struct t_fix {
	struct prism_mem	mem;
	bool			mem_live;
	struct t_region		r[T_NREG];
	struct t_req		*q;
	u8			*resp;
	int			ret;
	struct prism_exec_ctx	ctx;
	/* SEND capture */
	u8			sent[256];
	u32			sent_len;
	int			sends;
	int			send_status;
};

/* Offset of region A's first page boundary, from A's start. */
#define A_PB1		(PAGE_SIZE - 0x100)

#define VA(f, R, off)	((f)->r[R].start + (off))
#define RK(f, R)	((f)->r[R].rkey)
#define OP(...)		(&(struct prism_op){ __VA_ARGS__ })

/* KUNIT_EXPECT_MEMEQ appeared after 6.1. */
#define KUNIT_EXPECT_MEMEQ_COMPAT(test, a, b, n) \
	KUNIT_EXPECT_EQ(test, memcmp(a, b, n), 0)

/* Op i ended with status st. */
#define T_ST(test, f, i, st)	KUNIT_EXPECT_EQ(test, t_status(f, i), st)

/* A CAS op for t_add_cas(): inline operands are cmp, swp, cm and sm. */
struct t_cas {
	u16		flags;
	u8		mode;
	u32		len;
	u64		rkey;
	u64		addr;
	u64		redirect;
	u64		arg_addr;
	u64		swap_addr;
	const void	*cmp;
	const void	*swp;
	const void	*cm;	/* NULL: all ones */
	const void	*sm;	/* NULL: all ones */
};

/* Fixture: the .init and .exit of every suite. */
int t_init(struct kunit *test);
void t_exit(struct kunit *test);

/* Region memory. */
u8 *t_byte(struct t_region *r, u64 va);
void t_peek(struct t_region *r, u64 va, void *buf, size_t len);
void t_poke(struct t_region *r, u64 va, const void *buf, size_t len);
void t_poke_le64(struct t_region *r, u64 va, u64 v);
void t_expect(struct t_region *r, u64 va, const void *buf, size_t len);
void t_shadow(struct t_region *r, u64 va, void *buf, size_t len);
void t_check_mem(struct kunit *test, struct t_fix *f);

/* Building requests. */
void t_reset(struct t_fix *f);
void t_add(struct t_req *q, const struct prism_op *op, const void *data);
void t_add_read(struct t_req *q, u64 rkey, u64 addr, u32 len);
void t_add_write(struct t_req *q, u16 flags, u64 rkey, u64 addr,
		 const void *data, u32 len);
void t_add_cas(struct t_req *q, const struct t_cas *c);
void t_add_alloc(struct t_req *q, u16 flags, u64 rkey, u64 id,
		 const void *data, u32 len, u64 redirect);
u32 t_list(struct kunit *test, struct t_fix *f, unsigned int reg,
	   u32 buf_size, u32 cap, const u64 *addrs, u32 n, bool settle);

/* Running them and reading the response. */
int t_run_cap(struct kunit *test, struct t_fix *f, u32 cap);
int t_run(struct kunit *test, struct t_fix *f);
void t_run_ok(struct kunit *test, struct t_fix *f);
int t_run_encoded(struct kunit *test, struct t_fix *f);

static inline struct prism_wres *t_res(struct t_fix *f, unsigned int i)
{
	return (struct prism_wres *)f->resp + i;
}

static inline u8 t_status(struct t_fix *f, unsigned int i)
{
	return t_res(f, i)->status;
}

static inline u32 t_olen(struct t_fix *f, unsigned int i)
{
	return be32_to_cpu(t_res(f, i)->len);
}

const u8 *t_out(struct t_fix *f, unsigned int i);

#endif /* _PRISM_KUNIT_UTILS_H */
