/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * PRISM: one-sided remote memory operations over raw Ethernet.
 *
 * User-visible interface of the prism kernel module.
 *
 * Model
 * -----
 * A host runs the module; applications open sockets of the PRISM family
 * (number in /sys/module/prism/parameters/family, default 25) and bind each
 * to an interface and an endpoint id.  An endpoint is addressed from the
 * network by (MAC address, endpoint id).
 *
 * A server endpoint registers memory regions (ioctl PRISM_IOC_REG_MR).  Each
 * region gets an unguessable 64-bit rkey and access rights.  Remote clients
 * then submit chains of operations that the target host's kernel executes in
 * softirq context against those regions, without waking the server process.
 *
 * A client submits a chain with sendmsg() (msg_name = target address, data =
 * struct prism_chain followed by the ops) and collects exactly one
 * completion per chain with recvmsg() (struct prism_msg, kind
 * PRISM_MSG_COMPLETION).  Both work through io_uring (SENDMSG, RECV/RECVMSG,
 * multishot RECV with provided buffers).  A two-sided SEND op delivers its
 * data to the target socket, where recvmsg() returns it as PRISM_MSG_SEND
 * with the sender's address in msg_name.
 *
 * Delivery
 * --------
 * A chain executes at most once.  The client side of the module resends a
 * chain that got no answer (adaptive timeout per peer, PRISM_RETRIES
 * transmissions at most) until its deadline (PRISM_TIMEOUT_MS or
 * prism_chain.timeout_ms); the target answers a repeat from a per-client
 * reply cache instead of running the chain again.  A target that cannot
 * keep up answers NACK without running the chain; the client backs off and
 * resends it until the deadline.  Every accepted chain gets exactly one
 * completion: with OK (per-op results valid: the chain ran once), or with a
 * chain status saying why not.  TIMEOUT means the outcome is unknown: the
 * chain ran once or not at all.  NACK, NO_ENDPOINT, INVALID and TOO_BIG
 * mean it did not run.  NETDOWN and ABORTED are local: unknown, like
 * TIMEOUT.  A target that restarts loses its reply cache, but its regions
 * get new rkeys, so an old chain cannot run against the new instance.
 *
 * Byte order
 * ----------
 * All fields of the structures in this header are in host byte order; the
 * module converts to network order on the wire.  Data in registered memory
 * is raw bytes.  Two places interpret memory as numbers, both as
 * LITTLE-ENDIAN unsigned integers (the native order of x86-64 and arm64):
 *  - pointers read by indirect operations are 8-byte little-endian virtual
 *    addresses in the target process' address space;
 *  - the ordered CAS modes (GT, GE, LT, LE) compare the masked operands as
 *    unsigned integers of op.len bytes, byte op.len-1 most significant.
 *    So in a 16-byte CAS on "struct { __u64 addr; __u64 tag; }" the tag is
 *    the most significant half and decides the comparison.
 */
#ifndef _UAPI_LINUX_PRISM_H
#define _UAPI_LINUX_PRISM_H

#include <linux/types.h>
#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/if_ether.h>
#include <linux/socket.h>

/* Default address family number; the module parameter "family" overrides. */
#define PRISM_DEFAULT_FAMILY	25
/* Default EtherType; the module parameter "ethertype" overrides. */
#define PRISM_DEFAULT_ETHERTYPE	0x88B5
/* Level for setsockopt()/getsockopt(). */
#define SOL_PRISM		300

/* Limits. */
#define PRISM_MAX_CHAIN		16	/* ops in one chain */
#define PRISM_MAX_CAS		32	/* bytes compared/swapped by one CAS */
#define PRISM_SCRATCH_SIZE	256	/* per-chain scratch area, zeroed */
/*
 * Request-id window: a socket never has chains in flight to one target
 * endpoint whose ids are PRISM_WINDOW or more apart, so that target's reply
 * cache always covers every chain the client may still retransmit.
 */
#define PRISM_WINDOW		512
/*
 * Largest len of one READ, WRITE, ALLOC or SEND.  A chain or its answer
 * larger than one frame is carried in segments of the interface's MTU and
 * completes once, whole (prism(7), "Large operations").
 */
#define PRISM_MAX_OP_DATA	(1U << 20)
/*
 * A chain's inline data (WRITE, ALLOC, SEND, CAS values) is at most this,
 * and so are its outputs (READ, CAS, ALLOC), each counted padded to 8 bytes.
 */
#define PRISM_MAX_CHAIN_DATA	(2U << 20)
/*
 * Work bound of one chain: the sum of the lengths of its ops (bytes each op
 * may read, write or deliver) is at most this.  Longer chains are refused
 * (sendmsg: EINVAL; from the wire: INVALID, counted in over_budget).
 */
#define PRISM_MAX_CHAIN_WORK	(4U << 20)
/* Endpoint ids below this need CAP_NET_BIND_SERVICE to bind (like ports). */
#define PRISM_EP_PRIVILEGED	1024
/* Endpoint ids from here up are handed out by bind() with ep 0. */
#define PRISM_EP_EPHEMERAL_MIN	0x80000000U

/*
 * Endpoint addresses.  sprism_kind says which transport carries the frames
 * and so which structure the address is: PRISM_ADDR_ETH, raw Ethernet
 * frames of EtherType PRISM_DEFAULT_ETHERTYPE (struct sockaddr_prism), or
 * PRISM_ADDR_UDP, the same frames in UDP over IPv4 or IPv6 (struct
 * sockaddr_prism_udp).  A socket binds to one kind and talks to targets of
 * that kind; recvmsg() names the sender of a SEND in the kind of the socket.
 */
#define PRISM_ADDR_ETH		0
#define PRISM_ADDR_UDP		1

/* Default UDP port of PRISM_ADDR_UDP; the module parameter "udp_port" overrides. */
#define PRISM_DEFAULT_UDP_PORT	4795

struct sockaddr_prism {
	__kernel_sa_family_t sprism_family;
	__u16	sprism_kind;		/* PRISM_ADDR_ETH (0) */
	__s32	sprism_ifindex;	/* bind: interface (required); dst: ignored */
	__u32	sprism_ep;		/* endpoint id; bind with 0 picks one */
	__u8	sprism_mac[ETH_ALEN];	/* dst: target MAC; bind: ignored */
	__u8	sprism_zero[2];
};

struct sockaddr_prism_udp {
	__kernel_sa_family_t sprism_family;
	__u16	sprism_kind;		/* PRISM_ADDR_UDP */
	/*
	 * bind: 0 (any interface); dst: the interface of a link-local IPv6
	 * address (its scope), else 0.
	 */
	__s32	sprism_ifindex;
	__u32	sprism_ep;		/* endpoint id; bind with 0 picks one */
	/*
	 * AF_INET or AF_INET6 (2 or 10, as in sa_family_t); bind: also 0,
	 * any local address of either family.
	 */
	__u16	sprism_ipfamily;
	/*
	 * dst: UDP port of the target, 0 for the module's udp_port; bind: 0
	 * (every socket of a namespace shares the module's port).
	 */
	__be16	sprism_port;
	/*
	 * IPv4 (first 4 bytes, the rest 0) or IPv6 address, network order.
	 * bind: a local address, or all zeros for any.
	 */
	__u8	sprism_ip[16];
};

/* Operation codes (struct prism_op.opcode). */
enum prism_opcode {
	PRISM_OP_READ	= 1,	/* return len bytes at addr */
	PRISM_OP_WRITE	= 2,	/* store data at addr */
	PRISM_OP_CAS	= 3,	/* masked compare-and-swap, returns old value */
	PRISM_OP_ALLOC	= 4,	/* pop buffer from free list addr, fill, return its address */
	PRISM_OP_SEND	= 5,	/* two-sided: deliver data to the target socket */
	PRISM_OP_REKEY	= 6,	/* keyed region: install a new region key */
	PRISM_OP_MAX	= PRISM_OP_REKEY,
};

/*
 * Operation flags (struct prism_op.flags).
 *
 * Address spaces: addr, arg_addr, swap_addr and redirect name bytes in a
 * registered region covered by op.rkey, unless the matching *_SCRATCH flag
 * says they are offsets into the chain's scratch area.  Pointers read from
 * memory by indirection always name region bytes and are checked like any
 * other address.
 */
#define PRISM_F_INDIRECT	_BITUL(0)  /* addr holds a pointer to the target */
/* READ+INDIRECT: addr holds {ptr, bound}; reads min(len, bound) bytes */
#define PRISM_F_BOUNDED		_BITUL(1)
#define PRISM_F_DATA_INDIRECT	_BITUL(2)  /* WRITE: data is len bytes at arg_addr, not inline */
#define PRISM_F_CMP_INDIRECT	_BITUL(3)  /* CAS: compare value is len bytes at arg_addr */
#define PRISM_F_SWAP_INDIRECT	_BITUL(4)  /* CAS: swap value is len bytes at swap_addr */
#define PRISM_F_CONDITIONAL	_BITUL(5)  /* run only if the previous op's status is OK */
#define PRISM_F_REDIRECT	_BITUL(6)  /* store the op's output at redirect, return none */
#define PRISM_F_ADDR_SCRATCH	_BITUL(7)  /* addr is a scratch offset */
#define PRISM_F_ARG_SCRATCH	_BITUL(8)  /* arg_addr and swap_addr are scratch offsets */
#define PRISM_F_REDIRECT_SCRATCH _BITUL(9) /* redirect is a scratch offset */
#define PRISM_F_ALL		(_BITUL(10) - 1)

/*
 * The flags each opcode accepts (the target answers INVALID to any other
 * flag); the one table the module, liburing-prism and the fuzzer share.
 */
#define PRISM_READ_FLAGS	(PRISM_F_INDIRECT | PRISM_F_BOUNDED |		\
				 PRISM_F_CONDITIONAL | PRISM_F_REDIRECT |	\
				 PRISM_F_ADDR_SCRATCH | PRISM_F_REDIRECT_SCRATCH)
#define PRISM_WRITE_FLAGS	(PRISM_F_INDIRECT | PRISM_F_DATA_INDIRECT |	\
				 PRISM_F_CONDITIONAL | PRISM_F_ADDR_SCRATCH |	\
				 PRISM_F_ARG_SCRATCH)
#define PRISM_CAS_FLAGS		(PRISM_F_INDIRECT | PRISM_F_CMP_INDIRECT |	\
				 PRISM_F_SWAP_INDIRECT | PRISM_F_CONDITIONAL |	\
				 PRISM_F_REDIRECT | PRISM_F_ADDR_SCRATCH |	\
				 PRISM_F_ARG_SCRATCH | PRISM_F_REDIRECT_SCRATCH)
#define PRISM_ALLOC_FLAGS	(PRISM_F_CONDITIONAL | PRISM_F_REDIRECT |	\
				 PRISM_F_REDIRECT_SCRATCH)
#define PRISM_SEND_FLAGS	PRISM_F_CONDITIONAL
#define PRISM_REKEY_FLAGS	PRISM_F_CONDITIONAL

/*
 * CAS modes (struct prism_op.cas_mode).  With cm = compare mask and
 * sm = swap mask, the CAS succeeds iff
 *	(compare & cm) <mode> (target & cm)
 * and then stores target = (target & ~sm) | (swap & sm).  The old target
 * value is always returned (or redirected).  A failed comparison gives
 * status PRISM_S_CMP_FAILED, which stops a following CONDITIONAL op.
 * E.g. PRISM_CAS_GT installs a value whose (masked) number is greater
 * than the current one.
 */
enum prism_cas_mode {
	PRISM_CAS_EQ = 0,
	PRISM_CAS_NE = 1,
	PRISM_CAS_GT = 2,	/* compare >  target */
	PRISM_CAS_GE = 3,	/* compare >= target */
	PRISM_CAS_LT = 4,	/* compare <  target */
	PRISM_CAS_LE = 5,	/* compare <= target */
	PRISM_CAS_MODE_MAX = PRISM_CAS_LE,
};

/*
 * One operation.  Followed in a chain by data_len bytes of inline data,
 * padded with zeroes to a multiple of 8 bytes.  Inline data is
 *  WRITE:	len bytes of data (none with PRISM_F_DATA_INDIRECT)
 *  CAS:	compare[len] (absent with CMP_INDIRECT), swap[len] (absent
 *		with SWAP_INDIRECT), compare_mask[len], swap_mask[len]
 *  ALLOC:	len bytes written into the allocated buffer
 *  SEND:	len bytes delivered to the target socket
 *  REKEY:	the new region key (len = PRISM_KEY_SIZE bytes)
 *  READ:	none
 * Output (returned in the completion, or stored at redirect):
 *  READ: the bytes read; CAS: the old len bytes; ALLOC: the buffer's
 *  8-byte little-endian address; REKEY: the new key's generation, 8 bytes
 *  little-endian; WRITE, SEND: none.
 *
 * REKEY (prism(7), "Keyed regions") rotates the key of keyed region rkey
 * as PRISM_IOC_REKEY does, with addr = overlap_ms (at most
 * PRISM_MAX_OVERLAP_MS).  It runs only in a chain sealed for that region
 * with a key derived with PRISM_KEY_ADMIN (else AUTH or ACCESS); the
 * sending module refuses to send it unsealed (ENOKEY), so the new key
 * never travels in clear.
 */
struct prism_op {
	__u8	opcode;		/* enum prism_opcode */
	__u8	cas_mode;	/* enum prism_cas_mode, CAS only */
	__u16	flags;		/* PRISM_F_* */
	__u32	len;		/* bytes read/written/compared/allocated/sent */
	__u64	rkey;		/* region key checked for every region address */
	__u64	addr;		/* target address; ALLOC: free list id */
	__u64	redirect;	/* with PRISM_F_REDIRECT: where the output goes */
	__u64	arg_addr;	/* DATA_INDIRECT/CMP_INDIRECT source */
	__u64	swap_addr;	/* SWAP_INDIRECT source */
	__u32	data_len;	/* inline data bytes that follow (unpadded) */
	__u32	reserved;	/* must be 0 */
};

/* Submission: sendmsg() data = struct prism_chain, then the ops. */
struct prism_chain {
	__u64	user_data;	/* returned in the completion */
	__u32	timeout_ms;	/* 0: the socket's PRISM_TIMEOUT_MS */
	__u8	nops;		/* 1..PRISM_MAX_CHAIN */
	__u8	flags;		/* must be 0 */
	__u16	reserved;	/* must be 0 */
};

/*
 * Control message of a submission (sendmsg() cmsg at level SOL_PRISM,
 * prism(7) "Output buffers"): the chain's outputs go to [addr, addr + len)
 * of the caller's memory, copied there once from the frames that carry
 * them, instead of following the results in its completion.  The
 * completion then holds struct prism_msg and its results only, and
 * prism_op_result.offset counts from addr.  len must hold every output the
 * chain may return, each padded to 8 bytes (else EINVAL).  The pages stay
 * pinned while the chain is in flight, charged to RLIMIT_MEMLOCK (ENOMEM
 * past it, unless CAP_IPC_LOCK); a range not mapped writable gives EFAULT.
 * Bytes of the range that the completion does not report are unspecified
 * afterwards.
 */
#define PRISM_CMSG_OUTBUF	1

struct prism_outbuf {
	__u64	addr;
	__u64	len;
};

/*
 * Status codes: per op (struct prism_op_result.status) and per chain
 * (struct prism_msg.status).  A chain whose status is not OK has no valid
 * per-op results: the target did not answer (TIMEOUT), refused the whole
 * chain (NACK, NO_ENDPOINT, INVALID), or the local side gave up
 * (NETDOWN, ABORTED).
 */
enum prism_status {
	PRISM_S_OK		= 0,
	PRISM_S_CMP_FAILED	= 1,	/* CAS comparison false; old value returned */
	PRISM_S_SKIPPED		= 2,	/* CONDITIONAL op not run: previous op failed */
	PRISM_S_NACK		= 3,	/* target overloaded; retry later */
	PRISM_S_TIMEOUT		= 4,	/* no answer in time */
	PRISM_S_ACCESS		= 5,	/* address outside the region or right missing */
	PRISM_S_AUTH		= 6,	/* no region with this rkey at the target
					 * (another op of the chain had a valid one) */
	PRISM_S_NO_BUFFER	= 7,	/* ALLOC: free list empty or unknown */
	PRISM_S_INVALID		= 8,	/* malformed op or chain */
	PRISM_S_NO_ENDPOINT	= 9,	/* no socket bound to the target endpoint, or
					 * no op of the chain carries a valid rkey of
					 * it (unless SENDs only, PRISM_OPEN_SEND) */
	PRISM_S_RECV_FULL	= 10,	/* SEND: target socket's receive queue full */
	PRISM_S_TOO_BIG		= 11,	/* reply would not fit in one frame */
	PRISM_S_NETDOWN		= 12,	/* local interface went away */
	PRISM_S_ABORTED		= 13,	/* reserved: a local abort (not produced today) */
	PRISM_S_AUTH_FAILED	= 14,	/* keyed region: the chain's derived key,
					 * tag or time was refused (not run) */
	PRISM_S_MAX		= PRISM_S_AUTH_FAILED,
};

/* Kinds of message returned by recvmsg(). */
enum prism_msg_kind {
	PRISM_MSG_COMPLETION	= 1,
	PRISM_MSG_SEND		= 2,
};

struct prism_op_result {
	__u8	status;		/* enum prism_status */
	__u8	reserved[3];
	__u32	len;		/* output bytes (0 if redirected or failed) */
	__u32	offset;		/* of the output, from the start of struct prism_msg
				 * (with PRISM_CMSG_OUTBUF: of the output buffer) */
	__u32	reserved2;
};

/*
 * recvmsg() data.  COMPLETION: nops results follow, then the outputs at
 * their offsets.  SEND: data of len - sizeof(struct prism_msg) bytes
 * follows directly; msg_name holds the sender.
 */
struct prism_msg {
	__u16	kind;		/* enum prism_msg_kind */
	__u8	status;		/* COMPLETION: chain status */
	__u8	nops;		/* COMPLETION: number of results */
	__u32	len;		/* bytes of the whole message */
	__u64	user_data;	/* COMPLETION: from struct prism_chain */
	struct prism_op_result res[];
};

/* Remote access rights of a region. */
#define PRISM_ACCESS_REMOTE_READ	_BITUL(0)
#define PRISM_ACCESS_REMOTE_WRITE	_BITUL(1)	/* WRITE, ALLOC, redirect */
#define PRISM_ACCESS_REMOTE_ATOMIC	_BITUL(2)	/* CAS */
#define PRISM_ACCESS_ALL		(_BITUL(3) - 1)

/*
 * prism_reg_mr.flags: a keyed region.  Only chains authenticated and
 * encrypted with a key derived from its region key reach it (prism(7),
 * "Keyed regions"); until PRISM_IOC_REKEY installs that key, none does.
 */
#define PRISM_MR_KEYED		_BITUL(0)

/* Register [addr, addr+len) of the caller's memory; returns rkey. */
struct prism_reg_mr {
	__u64	addr;
	__u64	len;
	__u32	access;		/* PRISM_ACCESS_* */
	__u32	flags;		/* PRISM_MR_*; 0: a plain region */
	__u64	rkey;		/* out */
};

/* Bytes of a region key and of a derived key (AES-128). */
#define PRISM_KEY_SIZE		16
/*
 * A right of a derived key beyond the PRISM_ACCESS_* bits: its chains may
 * rotate the region key with PRISM_OP_REKEY (an admin key).
 */
#define PRISM_KEY_ADMIN		_BITUL(7)
/* Longest overlap of a rotation (prism_rekey.overlap_ms, REKEY's addr). */
#define PRISM_MAX_OVERLAP_MS	60000

/*
 * Install the region key of keyed region rkey (the first one, or a new one:
 * a rotation).  With overlap_ms (at most 60000), chains sealed with keys
 * derived from the previous region key are still accepted for that long;
 * with 0 they are refused at once.
 */
struct prism_rekey {
	__u64	rkey;
	__u8	key[PRISM_KEY_SIZE];
	__u32	overlap_ms;
	__u32	gen;		/* out: generation of the key, from 1 */
};

/*
 * The derived key of one client of keyed region rkey: addr is the client's
 * endpoint address (struct sockaddr_prism or sockaddr_prism_udp, addr_len
 * bytes, of the kind of this socket); rights are the PRISM_ACCESS_* bits
 * its chains get (within the region's access), and PRISM_KEY_ADMIN for a
 * key that may rotate the region key (PRISM_OP_REKEY).  The server hands kd to that
 * client out of band; it never travels in a frame.
 */
struct prism_derive_key {
	__u64	rkey;
	__u8	addr[32];
	__u32	addr_len;
	__u32	rights;
	__u32	gen;			/* out: generation of the region key */
	__u32	reserved;		/* must be 0 */
	__u8	kd[PRISM_KEY_SIZE];	/* out */
};

/* Create a free list of buf_size-byte buffers inside region rkey. */
struct prism_fl_create {
	__u64	rkey;
	__u32	buf_size;
	__u32	capacity;	/* most buffers the list holds */
	__u32	id;		/* out: free list id, used as ALLOC's addr */
	__u32	reserved;	/* must be 0 */
};

/*
 * Post count buffers (array of __u64 addresses at addrs) to free list id.
 * A buffer becomes allocatable only after every op that could still be
 * touching it when it was posted has finished.
 */
struct prism_fl_post {
	__u32	id;
	__u32	count;
	__u64	addrs;
};

#define PRISM_IOC_MAGIC		0xB5
#define PRISM_IOC_REG_MR	_IOWR(PRISM_IOC_MAGIC, 1, struct prism_reg_mr)
#define PRISM_IOC_DEREG_MR	_IOW(PRISM_IOC_MAGIC, 2, __u64)
#define PRISM_IOC_FL_CREATE	_IOWR(PRISM_IOC_MAGIC, 3, struct prism_fl_create)
#define PRISM_IOC_FL_POST	_IOW(PRISM_IOC_MAGIC, 4, struct prism_fl_post)
#define PRISM_IOC_FL_DESTROY	_IOW(PRISM_IOC_MAGIC, 5, __u32)
#define PRISM_IOC_REKEY		_IOWR(PRISM_IOC_MAGIC, 6, struct prism_rekey)
#define PRISM_IOC_DERIVE_KEY	_IOWR(PRISM_IOC_MAGIC, 7, struct prism_derive_key)

/* Socket options at SOL_PRISM. */
#define PRISM_TIMEOUT_MS	1	/* int: default chain deadline (ms, 1..60000) */
#define PRISM_STATS		2	/* get: struct prism_stats of this socket */
#define PRISM_RETRIES		3	/* int: transmissions before TIMEOUT (1..64, default 8) */
#define PRISM_MAX_OUTSTANDING	4	/* int: chains in flight (1..PRISM_WINDOW, default 256) */
#define PRISM_SERVE_RATE	5	/* int: chains/s served before NACKing (0: no limit) */
/*
 * int: 1 = run chains that carry no valid rkey of this socket if they
 * consist of SEND ops only (an open mailbox, e.g. an RPC server); 0 (the
 * default) = such chains are refused as if the endpoint did not exist.
 */
#define PRISM_OPEN_SEND		6
/*
 * set: struct prism_key: chains of this socket to the endpoint addr that
 * name region rkey are sealed with kd (a keyed region).  A new kd for the
 * same endpoint and rkey replaces the old one; PRISM_KEY_DETACH removes it.
 */
#define PRISM_KEY		7

/* prism_key.flags */
#define PRISM_KEY_DETACH	_BITUL(0)

struct prism_key {
	__u8	addr[32];		/* target endpoint, as msg_name */
	__u32	addr_len;
	__u32	flags;			/* PRISM_KEY_* */
	__u64	rkey;
	__u32	rights;			/* what kd was derived for */
	__u32	reserved;		/* must be 0 */
	__u8	kd[PRISM_KEY_SIZE];
};

/*
 * The counters: the one list of them.  X(ID, name) for each, in the order
 * of struct prism_stats, of the netlink attributes PRISM_STATS_ATTR_ID
 * (<linux/prism_netlink.h>) and of /proc/net/prism, which shows them as
 * "name value" lines; the module's own indexes are PRISM_STAT_ID.  The
 * order is ABI: a new counter goes at the end.  Its line here is all the
 * module, prismctl and this header need (besides the code that counts it);
 * prismctl(8) and prism_set_opt(3) describe each counter.
 */
#define PRISM_STATS_LIST(X)						\
	X(CHAINS_SENT,		chains_sent)		/* client: chains submitted */ \
	X(CHAINS_COMPLETED,	chains_completed)	/* client: completions delivered */ \
	X(CHAINS_TIMED_OUT,	chains_timed_out)	/* client: completed with TIMEOUT */ \
	X(CHAINS_SERVED,	chains_served)		/* target: request chains executed */ \
	X(OPS_SERVED,		ops_served)		/* target: ops executed (incl. failed) */ \
	X(OPS_FAILED,		ops_failed)		/* target: ops with status not OK */ \
	X(SENDS_RECEIVED,	sends_received)		/* target: SEND messages queued */ \
	X(RX_DROPPED,		rx_dropped)		/* frames dropped (malformed, unknown, stale) */ \
	X(RETRANSMITS,		retransmits)		/* client: chains sent again after no answer */ \
	X(NACKS_RECEIVED,	nacks_received)		/* client: NACKs, each followed by a backoff */ \
	X(NACKS_SENT,		nacks_sent)		/* target: chains refused for overload */ \
	X(DUPLICATES,		duplicates)		/* target: repeats answered from the reply cache */ \
	X(UNAUTH_REFUSED,	unauth_refused)		/* target: chains without a valid rkey, refused */ \
	X(REPLIES_LIMITED,	replies_limited)	/* target: status answers not sent (rate limit) */ \
	X(OVER_BUDGET,		over_budget)		/* target: chains refused for their work (bytes) */ \
	X(RCVBUF_FULL,		rcvbuf_full)		/* client: sendmsg ENOBUFS, receive buffer full */ \
	X(RESP_FORGED,		resp_forged)		/* client: responses with a wrong session, source or endpoint */ \
	X(SEGS_SENT,		segs_sent)		/* segments of multi-frame chains and answers sent */ \
	X(SEGS_RESENT,		segs_resent)		/* of them, sent again (reported missing or timed out) */ \
	X(SEGS_RECEIVED,	segs_received)		/* segments stored in a reassembly */ \
	X(SEGS_DROPPED,		segs_dropped)		/* segments dropped: duplicate, unknown chain, bad offset */ \
	X(GRANTS_SENT,		grants_sent)		/* receiver: grants (window and missing segments) sent */ \
	X(REASM_ACTIVE,		reasm_active)		/* gauge: multi-frame chains and answers being reassembled */ \
	X(REASM_BYTES,		reasm_bytes)		/* gauge: bytes held for them */ \
	X(CC_HELD,		cc_held)		/* client: chains that waited for a congestion window */ \
	X(CC_CUTS_REMOTE,	cc_cuts_remote)		/* client: target windows cut for remote delay */ \
	X(CC_CUTS_LOCAL,	cc_cuts_local)		/* client: socket windows cut for local delay */ \
	X(CC_CUTS_RTO,		cc_cuts_rto)		/* client: target windows cut for a retransmission timeout */ \
	X(TX_DROPPED,		tx_dropped)		/* frames not sent: interface gone or down, no route */ \
	X(AUTH_FAILED,		auth_failed)		/* target: keyed chains refused (tag, key, time) */ \
	X(RESP_AUTH_FAILED,	resp_auth_failed)	/* client: answers to keyed chains dropped (tag) */ \
	X(REKEYS,		rekeys)			/* target: region keys installed by REKEY ops */ \
	X(REKEYS_REFUSED,	rekeys_refused)		/* target: REKEY ops refused (no admin right, unsealed, plain region, memory) */ \
	X(OUTBUF_PAGES,		outbuf_pages)		/* gauge: client: user pages pinned as output buffers of chains in flight */ \
	X(OUTBUF_REFUSED,	outbuf_refused)		/* client: output buffers refused (too short, RLIMIT_MEMLOCK, not writable) */

/*
 * Counters, per socket (PRISM_STATS) and per netns (/proc/net/prism): one
 * __u64 per entry of PRISM_STATS_LIST, named as there.
 */
#define __PRISM_STATS_FIELD(ID, name)	__u64 name;
struct prism_stats {
	PRISM_STATS_LIST(__PRISM_STATS_FIELD)
};
#undef __PRISM_STATS_FIELD

#endif /* _UAPI_LINUX_PRISM_H */
