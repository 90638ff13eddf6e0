/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM internal definitions shared by the module's parts: wire format,
 * regions and free lists, engine and wire validation.  Sockets, network
 * namespaces and counters are in prism_net.h.  What each file of kmod/
 * does: the "Where things are" table of doc/DESIGN.md (checked by
 * tools/check-filemap.sh).
 */
#ifndef _PRISM_H
#define _PRISM_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>
#include <linux/hashtable.h>
#include <linux/percpu.h>
#include <linux/netdevice.h>
#include <net/sock.h>
#include "../uapi/linux/prism.h"

/* ---------------------------------------------------------------------------
 * Wire format.  All multi-byte fields are big-endian.  A frame is
 * Ethernet header | struct prism_whdr | body (body_len bytes).
 *
 * REQ body:  nops x (struct prism_wop, inline data padded to 8 bytes)
 * RESP body: nops x struct prism_wres, then each op's output in op order,
 *            each padded to 8 bytes (only when hdr.status is PRISM_S_OK)
 */
#define PRISM_WIRE_VERSION	1

enum prism_frame_type {
	PRISM_T_REQ	= 1,
	PRISM_T_RESP	= 2,
};

struct prism_whdr {
	u8	version;
	u8	type;		/* enum prism_frame_type */
	u8	nops;
	u8	status;		/* RESP: chain status; REQ: 0 */
	__be32	dst_ep;
	__be32	src_ep;
	__be32	session;	/* random per client socket */
	__be64	req_id;		/* per client socket: from 1, never reused */
	__be64	ack_floor;	/* REQ: the client completed every id below */
	__be16	body_len;
	__be16	reserved;
} __packed;

struct prism_wop {
	u8	opcode;
	u8	cas_mode;
	__be16	flags;
	__be32	len;
	__be64	rkey;
	__be64	addr;
	__be64	redirect;
	__be64	arg_addr;
	__be64	swap_addr;
	__be32	data_len;
	__be32	reserved;
} __packed;

struct prism_wres {
	u8	status;
	u8	reserved;
	__be16	reserved2;
	__be32	len;		/* output bytes that follow for this op */
} __packed;

#define PRISM_PAD8(x)	ALIGN((x), 8)

/* ---------------------------------------------------------------------------
 * Memory of a server endpoint: regions and free lists.  Lookups run in
 * softirq under RCU; changes run in process context under mem->lock.
 */
#define PRISM_REGION_HASH_BITS	6

struct prism_region {
	struct hlist_node	node;		/* mem->regions, RCU */
	u64			rkey;
	u64			start;		/* target VA of the first byte */
	u64			len;
	u32			access;		/* PRISM_ACCESS_* */
	unsigned int		npages;
	unsigned int		first_off;	/* offset of start in pages[0] */
	struct page		**pages;
	struct mm_struct	*mm;		/* pinned_vm owner; NULL: kernel pages */
	struct user_struct	*user;		/* locked_vm charged; NULL: not */
	struct rcu_head		rcu;
};

struct prism_fl_entry {
	u64		addr;
	unsigned long	rcu_cookie;	/* allocatable once this grace period ended */
};

struct prism_freelist {
	u32			id;
	u64			rkey;		/* region the buffers lie in */
	u32			buf_size;
	u32			capacity;
	spinlock_t		lock;		/* head/count/ring */
	u32			head;
	u32			count;
	struct prism_fl_entry	*ring;
	struct rcu_head		rcu;
};

struct prism_mem {
	spinlock_t		lock;		/* writers of regions, freelists */
	DECLARE_HASHTABLE(regions, PRISM_REGION_HASH_BITS);
	struct xarray		freelists;	/* id -> struct prism_freelist */
	u64			pinned_pages;	/* accounted to mm->pinned_vm */
};

void prism_mem_init(struct prism_mem *mem);
/* Process context; frees everything after in-flight ops are done. */
void prism_mem_destroy(struct prism_mem *mem);

int prism_region_register_user(struct prism_mem *mem, u64 uaddr, u64 len,
			       u32 access, u64 *rkey);
/* For tests: a region over kernel pages, presented at fake address start. */
int prism_region_register_pages(struct prism_mem *mem, struct page **pages,
				unsigned int npages, u64 start, u64 len,
				u32 access, u64 *rkey);
int prism_region_deregister(struct prism_mem *mem, u64 rkey);
/* Caller holds rcu_read_lock(). */
struct prism_region *prism_region_find(struct prism_mem *mem, u64 rkey);

int prism_freelist_create(struct prism_mem *mem, u64 rkey, u32 buf_size,
			  u32 capacity, u32 *id);
int prism_freelist_post(struct prism_mem *mem, u32 id, const u64 *addrs,
			u32 count);
int prism_freelist_destroy(struct prism_mem *mem, u32 id);
/*
 * BH disabled, under rcu_read_lock(): take one buffer of free list id whose
 * grace period has ended, for len bytes of data.  Returns PRISM_S_OK and
 * the address, or NO_BUFFER (unknown list, empty, not ready yet), AUTH
 * (rkey is not the list's region), INVALID (len > buf_size); on error
 * nothing is taken.
 */
int prism_freelist_pop(struct prism_mem *mem, u32 id, u64 rkey, u32 len,
		       u64 *addr);

/* ---------------------------------------------------------------------------
 * Op engine.
 */
struct prism_exec_ctx {
	struct prism_mem	*mem;
	/*
	 * Deliver a SEND op's data to the target socket.  Returns a
	 * PRISM_S_* status.  NULL: SEND fails with PRISM_S_INVALID.
	 */
	int (*deliver_send)(void *priv, const void *data, u32 len);
	void			*priv;
	/* Set by the engine: ops of the chain whose status is not OK. */
	u32			ops_failed;
};

/*
 * Execute the request body req (req_len bytes, nops ops) and write the
 * response body (results + outputs) to resp, at most resp_cap bytes.
 * Must run with BH disabled and under rcu_read_lock().
 * Returns the response body length, or a negative PRISM_S_* status when the
 * chain as a whole is rejected (-PRISM_S_INVALID: malformed; nothing was
 * executed; -PRISM_S_TOO_BIG: outputs cannot fit in resp_cap, nothing was
 * executed).
 */
int prism_engine_execute(struct prism_exec_ctx *ctx, const u8 *req,
			 u32 req_len, u8 nops, u8 *resp, u32 resp_cap);

/*
 * Validate a chain given by userspace (host order, struct prism_op +
 * inline data) and encode it into the wire body at out (out_cap bytes).
 * Returns the body length or a negative errno; *resp_len receives the
 * response body length the chain needs.
 */
int prism_chain_encode(const u8 *ops, u32 ops_len, u8 nops, u8 *out,
		       u32 out_cap, u32 *resp_len);

/*
 * Shared validation of ops (wire.c), used by prism_chain_encode() for
 * userspace chains and by the engine for received frames.
 */
/* Largest len of READ, WRITE, ALLOC and SEND; bounds work in softirq. */
#define PRISM_MAX_OP_LEN	65536

/* One op decoded to host order and validated. */
struct prism_pop {
	struct prism_op	op;
	const u8	*data;		/* op.data_len bytes of inline data */
	u32		out_len;	/* most output bytes returned (not redirected) */
};

/* 0 if op (host order) is well formed as op number idx of a chain. */
int prism_op_check(const struct prism_op *op, unsigned int idx);
/*
 * Decode and check the wire op at body + *pos (op number idx) and its
 * inline data; advances *pos.  0 or -EINVAL.
 */
int prism_wire_parse_op(const u8 *body, u32 body_len, u32 *pos,
			unsigned int idx, struct prism_pop *pop);
/*
 * Check a whole wire request body of nops ops: every op valid, nothing
 * left over, work within PRISM_MAX_CHAIN_WORK.  0 and the largest
 * response body length, or -EINVAL (malformed) or -E2BIG (too much work).
 */
int prism_wire_check(const u8 *body, u32 body_len, u8 nops, u32 *resp_len);
/*
 * The same, and the chain's work: the sum of its op lengths, the most
 * bytes it may read, write or deliver.  -E2BIG: well formed, but more
 * work than PRISM_MAX_CHAIN_WORK (prism_wire_check() refuses it too).
 */
int prism_wire_check_work(const u8 *body, u32 body_len, u8 nops,
			  u32 *resp_len, u32 *work);

#endif /* _PRISM_H */
