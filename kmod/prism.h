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
 *
 * A request or response body larger than one frame is a message sent in
 * segments (kmod/seg.h): the client first sends an SREQ whose body is a
 * struct prism_wseg and the chain's nops x struct prism_wop without their
 * inline data (the target checks them and the rkey before it keeps any
 * state), then SEG frames carrying the REQ body; the target answers with
 * SEG frames carrying the RESP body.  The receiver of a message sends GRANT
 * frames.  SEG, SREQ and GRANT frames carry the chain's header fields.
 *
 * A chain on a keyed region travels in an AREQ and its answer (status OK)
 * in an ARESP: struct prism_wauth, the REQ or RESP body encrypted, and a
 * 16-byte AES-GCM tag over the header, the prism_wauth and the body
 * (kmod/keyed.c, doc/SECURITY.md "Keyed regions").  Both fit one frame.
 */
#define PRISM_WIRE_VERSION	1

enum prism_frame_type {
	PRISM_T_REQ	= 1,
	PRISM_T_RESP	= 2,
	PRISM_T_SREQ	= 3,	/* a multi-frame request's ops, no data */
	PRISM_T_SEG	= 4,	/* a segment of a request or response body */
	PRISM_T_GRANT	= 5,	/* receiver of a message to its sender */
	PRISM_T_AREQ	= 6,	/* a REQ sealed for a keyed region */
	PRISM_T_ARESP	= 7,	/* its answer, sealed (status OK only) */
};

/**
 * struct prism_whdr - header of a PRISM frame, after the Ethernet header
 * @version: PRISM_WIRE_VERSION
 * @type: &enum prism_frame_type
 * @nops: ops in the chain
 * @status: RESP: PRISM_S_* status of the chain; REQ: 0
 * @dst_ep: endpoint id the frame is for
 * @src_ep: endpoint id of the sender
 * @session: random per client socket
 * @req_id: per client socket: from a random base, never reused
 * @ack_floor: REQ: the client completed every id below
 * @body_len: bytes of body after the header
 * @delay: RESP: microseconds from the request's arrival in the target's
 *         receive queue to this answer, at most 65535, 0 if unknown (the
 *         target does not stamp frames; for congestion control, cc.c);
 *         other types: 0
 */
struct prism_whdr {
	u8	version;
	u8	type;
	u8	nops;
	u8	status;
	__be32	dst_ep;
	__be32	src_ep;
	__be32	session;
	__be64	req_id;
	__be64	ack_floor;
	__be16	body_len;
	__be16	delay;
} __packed;

/**
 * struct prism_wauth - after &struct prism_whdr in AREQ and ARESP frames
 * @rkey: the keyed region whose key the chain's key is derived from
 * @xmit: AREQ: transmission of the chain, from 1 (each one is sealed
 *        under its own nonce); ARESP: 0
 * @time: AREQ: the client's CLOCK_REALTIME seconds (low 32 bits) when it
 *        sealed the frame; ARESP: 0
 * @rights: PRISM_ACCESS_* bits the chain's key was derived for
 * @reserved: 0
 *
 * The nonce of a frame is its request id (8 bytes) and @xmit (4 bytes),
 * big-endian: a client never reuses a request id, and the target answers
 * a chain once (repeats get the same bytes from its reply cache).
 */
struct prism_wauth {
	__be64	rkey;
	__be32	xmit;
	__be32	time;
	u8	rights;
	u8	reserved[7];
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

/**
 * struct prism_wres - result of one op in a response body
 * @status: PRISM_S_* status of the op
 * @reserved: 0
 * @reserved2: 0
 * @len: output bytes that follow for this op
 */
struct prism_wres {
	u8	status;
	u8	reserved;
	__be16	reserved2;
	__be32	len;
} __packed;

#define PRISM_PAD8(x)	ALIGN((x), 8)

/**
 * prism_op_data_len() - inline data bytes an op must carry
 * @op: the op, in host order
 *
 * The rule of uapi/linux/prism.h: WRITE its len bytes unless
 * DATA_INDIRECT; CAS compare value, swap value, compare mask and swap mask
 * of len bytes each, less the values read indirectly; ALLOC, SEND and REKEY
 * their len bytes; READ none.  Also used by the host fuzzer (tools/fuzz/) to
 * build well-formed ops.
 *
 * Context: Any context.
 * Return: the bytes @op's data_len must equal.
 */
static inline u64 prism_op_data_len(const struct prism_op *op)
{
	u64 n;

	switch (op->opcode) {
	case PRISM_OP_WRITE:
		return (op->flags & PRISM_F_DATA_INDIRECT) ? 0 : op->len;
	case PRISM_OP_CAS:
		n = 4;
		if (op->flags & PRISM_F_CMP_INDIRECT)
			n--;
		if (op->flags & PRISM_F_SWAP_INDIRECT)
			n--;
		return n * op->len;
	case PRISM_OP_ALLOC:
	case PRISM_OP_SEND:
	case PRISM_OP_REKEY:
		return op->len;
	default:
		return 0;
	}
}

/* ---------------------------------------------------------------------------
 * Memory of a server endpoint: regions and free lists.  Lookups run in
 * softirq under RCU; changes run in process context under mem->lock.
 */
#define PRISM_REGION_HASH_BITS	6

/**
 * struct prism_region - registered memory of a server socket
 * @node: in &prism_mem.regions, RCU
 * @rkey: key naming the region in ops (random, non-zero)
 * @start: target virtual address of the first byte
 * @len: bytes in the region
 * @access: PRISM_ACCESS_* flags
 * @npages: entries in @pages
 * @first_off: offset of @start in pages[0]
 * @pages: the pages of the region
 * @mm: owner of the pinned_vm count; NULL: kernel pages (not pinned)
 * @user: user whose locked_vm is charged; NULL: not charged
 * @keyed: only chains sealed with a key derived from @keys reach it
 *         (PRISM_MR_KEYED; set at registration)
 * @keys: keyed: its region keys, NULL until the first PRISM_IOC_REKEY;
 *        readers under RCU (keyed.c)
 * @rcu: frees the region after a grace period
 */
struct prism_region {
	struct hlist_node	node;
	u64			rkey;
	u64			start;
	u64			len;
	u32			access;
	unsigned int		npages;
	unsigned int		first_off;
	struct page		**pages;
	struct mm_struct	*mm;
	struct user_struct	*user;
	bool			keyed;
	struct prism_region_keys __rcu *keys;
	struct rcu_head		rcu;
};

/**
 * struct prism_fl_entry - a buffer posted to a free list
 * @addr: target address of the buffer
 * @rcu_cookie: the buffer may be allocated once this grace period ended
 */
struct prism_fl_entry {
	u64		addr;
	unsigned long	rcu_cookie;
};

/*
 * Buffers in one free list: any list may hold PRISM_FL_SMALL_CAPACITY (1 MiB
 * of ring, 1 GiB for all the lists of a socket); a larger one (up to
 * PRISM_FL_MAX_CAPACITY) only as many as its region has room for at 16
 * bytes each, the size of a ring entry, and the rings of all such lists of
 * a socket together no larger than the pages it pinned, which
 * RLIMIT_MEMLOCK already charges (prism_mem.fl_big_bytes; region.c).
 */
#define PRISM_FL_SMALL_CAPACITY	65536U
#define PRISM_FL_MAX_CAPACITY	(16U << 20)

/**
 * struct prism_freelist - ring of buffers of one size inside a region
 * @id: id of the list in &prism_mem.freelists
 * @rkey: region the buffers lie in
 * @buf_size: bytes of each buffer
 * @capacity: entries in @ring
 * @lock: protects @head, @count and @ring
 * @head: index of the oldest buffer in @ring
 * @count: buffers in @ring
 * @ring: the buffers, oldest first (in the same allocation as the list)
 * @rcu: frees the list after a grace period
 */
struct prism_freelist {
	u32			id;
	u64			rkey;
	u32			buf_size;
	u32			capacity;
	spinlock_t		lock;		/* head/count/ring */
	u32			head;
	u32			count;
	struct prism_fl_entry	*ring;
	struct rcu_head		rcu;
};

/**
 * struct prism_mem - memory of a server socket: regions and free lists
 * @lock: held by writers of @regions and @freelists
 * @regions: &struct prism_region by rkey; readers under RCU
 * @freelists: id -> &struct prism_freelist; readers under RCU
 * @pinned_pages: pages of user regions, accounted to mm->pinned_vm
 * @fl_big_bytes: ring bytes of the free lists above 65536 buffers; at most
 *                the bytes of @pinned_pages
 */
struct prism_mem {
	spinlock_t		lock;		/* writers of regions, freelists */
	DECLARE_HASHTABLE(regions, PRISM_REGION_HASH_BITS);
	struct xarray		freelists;
	u64			pinned_pages;
	u64			fl_big_bytes;
};

/* region.c; kernel-doc at the definitions. */
void prism_mem_init(struct prism_mem *mem);
void prism_mem_destroy(struct prism_mem *mem);

int prism_region_register_user(struct prism_mem *mem, u64 uaddr, u64 len,
			       u32 access, bool keyed, u64 *rkey);
int prism_region_register_pages(struct prism_mem *mem, struct page **pages,
				unsigned int npages, u64 start, u64 len,
				u32 access, u64 *rkey);
int prism_region_deregister(struct prism_mem *mem, u64 rkey);
struct prism_region *prism_region_find(struct prism_mem *mem, u64 rkey);

bool prism_freelist_capacity_ok(u64 region_len, u32 buf_size, u32 capacity);
int prism_freelist_create(struct prism_mem *mem, u64 rkey, u32 buf_size,
			  u32 capacity, u32 *id);
int prism_freelist_post(struct prism_mem *mem, u32 id, const u64 *addrs,
			u32 count);
int prism_freelist_destroy(struct prism_mem *mem, u32 id);
int prism_freelist_pop(struct prism_mem *mem, u32 id, u64 rkey, u32 len,
		       u64 *addr);
/* keyed.c: the rotation a REKEY op asks for. */
struct mem_cgroup;
int prism_region_rekey_op(struct prism_mem *mem, struct mem_cgroup *memcg,
			  u64 rkey, const u8 *key, u32 overlap_ms, u32 *gen);

/* ---------------------------------------------------------------------------
 * Op engine.
 */
/**
 * struct prism_exec_ctx - what the engine executes a chain against
 * @mem: memory of the target socket
 * @auth_rkey: the keyed region the chain was sealed for (its AREQ); 0: a
 *             plain chain.  Ops reach a keyed region only through it.
 * @auth_rights: PRISM_ACCESS_* bits the chain's key grants on @auth_rkey,
 *               and PRISM_KEY_ADMIN if it may rotate its region key (REKEY)
 * @memcg: memory cgroup of the target socket, charged for what REKEY
 *         allocates (NULL: none)
 * @deliver_send: deliver a SEND op's data to the target socket; returns a
 *                PRISM_S_* status.  NULL: SEND fails with PRISM_S_INVALID.
 * @priv: first argument of @deliver_send
 * @ops_failed: set by the engine: ops of the chain whose status is not OK
 * @rekeys: set by the engine: REKEY ops that installed a key
 * @rekeys_refused: set by the engine: REKEY ops that did not
 */
struct prism_exec_ctx {
	struct prism_mem	*mem;
	u64			auth_rkey;
	u32			auth_rights;
	struct mem_cgroup	*memcg;
	int (*deliver_send)(void *priv, const void *data, u32 len);
	void			*priv;
	u32			ops_failed;
	u32			rekeys;
	u32			rekeys_refused;
};

/* engine.c */
void prism_engine_init(void);
int prism_engine_execute(struct prism_exec_ctx *ctx, const u8 *req,
			 u32 req_len, u8 nops, u8 *resp, u32 resp_cap);

/* wire.c */
int prism_chain_encode(const u8 *ops, u32 ops_len, u8 nops, u8 *out,
		       u32 out_cap, u32 *resp_len);

/*
 * Shared validation of ops (wire.c), used by prism_chain_encode() for
 * userspace chains and by the engine for received frames.
 */
/* Largest len of READ, WRITE, ALLOC and SEND; bounds work in softirq. */
#define PRISM_MAX_OP_LEN	PRISM_MAX_OP_DATA
/* Largest request body: every op and the chain's inline data. */
#define PRISM_MAX_BODY		(PRISM_MAX_CHAIN * sizeof(struct prism_wop) + \
				 PRISM_MAX_CHAIN_DATA)

/**
 * struct prism_decoded_op - one op decoded to host order and validated
 * @op: the op
 * @data: op.data_len bytes of inline data (in the body it was parsed from)
 * @out_len: most output bytes returned (0 when redirected)
 */
struct prism_decoded_op {
	struct prism_op	op;
	const u8	*data;
	u32		out_len;
};

void prism_wop_encode(const struct prism_op *op, struct prism_wop *w);
void prism_wop_decode(const struct prism_wop *w, struct prism_op *op);
int prism_op_check(const struct prism_op *op, unsigned int idx);
int prism_wire_parse_op(const u8 *body, u32 body_len, u32 *pos,
			unsigned int idx, struct prism_decoded_op *pop);
int prism_wire_check(const u8 *body, u32 body_len, u8 nops, u32 *resp_len);
int prism_wire_check_work(const u8 *body, u32 body_len, u8 nops,
			  u32 *resp_len, u32 *work);
int prism_wire_check_manifest(const u8 *ops, u32 ops_len, u8 nops,
			      u32 *body_len, u32 *resp_len, u32 *work);

#endif /* _PRISM_H */
