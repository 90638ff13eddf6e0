/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Target side, shared by rcache.c (sessions, reply cache, reassemblies),
 * serve.c (serving chains) and serve_seg.c (chains and answers larger than
 * one frame).
 */
#ifndef _PRISM_RCACHE_H
#define _PRISM_RCACHE_H

#include "prism_net.h"
#include "seg.h"

struct prism_gcm_key;

/*
 * Multi-frame requests one session may have in reassembly at once (a
 * client pipelining 16 WRITEs of 1 MiB has them all in flight).
 */
#define PRISM_SESSION_REASM	32
/* Bytes of request reassembly one target socket may hold, all sessions. */
#define PRISM_REASM_BYTES	(32U << 20)
/* Allocations for a target socket's clients (prism_client_alloc()). */
#define PRISM_CLIENT_GFP	(GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN)
/* Period of the check for reassemblies past their chain's deadline. */
#define PRISM_REASM_TICK	(HZ / 10)

/**
 * struct prism_cached - the answer of a chain that ran, kept for repeats
 * @id: request id of the chain
 * @len: bytes of @frame: response header and body
 * @cap: bytes accounted for the entry (&prism_sock.rcache_bytes)
 * @tx: answer larger than one frame: its segmentation, NULL otherwise
 *      (the header's body_len is then 0: segments carry their own)
 * @frame: the response header and body
 */
struct prism_cached {
	u64			id;
	u32			len;
	u32			cap;
	struct prism_seg_tx	*tx;
	u8			frame[];
};

/**
 * struct prism_reasm - a multi-frame request being received
 * @id: request id of the chain
 * @hdr: header of its SREQ frame (what the chain runs with)
 * @size: bytes accounted (&prism_sock.reasm_bytes)
 * @expires: jiffies: the chain's deadline at the client has passed
 * @rx: which segments arrived
 * @body: the request body, rx.msg_len bytes
 * @have: bitmap of @rx
 */
struct prism_reasm {
	u64			id;
	struct prism_whdr	hdr;
	u32			size;
	unsigned long		expires;
	struct prism_seg_rx	rx;
	u8			*body;
	unsigned long		have[];
};

/**
 * struct prism_session - one client socket incarnation, on a target socket
 * @node: in &prism_sock.sessions, RCU
 * @psk: the target socket
 * @addr: link address of the client
 * @ep: endpoint id of the client
 * @nonce: session value of the client socket
 * @lock: protects all below; held while serving
 * @dead: unhashed: look up again
 * @floor: the client completed every id below
 * @last_used: jiffies
 * @slot: PRISM_WINDOW cached answers, by id
 * @reasm: multi-frame requests in reassembly
 * @seg_reorder: reorder threshold learnt by the large answers (seg.h)
 * @rcu: frees the session after a grace period
 */
struct prism_session {
	struct hlist_node	node;
	struct prism_sock	*psk;
	struct prism_paddr	addr;
	u32			ep;
	u32			nonce;
	spinlock_t		lock;		/* all below; held while serving */
	bool			dead;
	u64			floor;
	unsigned long		last_used;
	struct prism_cached	**slot;
	struct prism_reasm	*reasm[PRISM_SESSION_REASM];
	u32			seg_reorder;
	struct rcu_head		rcu;
};

/**
 * struct prism_chain_in - a chain to serve, from one frame or reassembled
 * @hdr: its REQ or SREQ header (eps, session, ids, nops)
 * @body: the request body
 * @body_len: bytes at @body
 * @resp_len: largest response body (checked)
 * @work: sum of its op lengths (checked)
 * @admitted: admission was applied already (its SREQ was admitted)
 * @rx_stamp: skb->tstamp of its request frame; 0 when reassembled (its
 *            answer then reports no delay)
 * @mtu: prism_link_mtu() towards the client: larger answers are segmented
 * @wauth: keyed chain (AREQ): its &struct prism_wauth; NULL: plain
 * @auth_key: keyed chain: the key its answer is sealed with (keyed.c)
 */
struct prism_chain_in {
	const struct prism_whdr	*hdr;
	const u8		*body;
	u32			body_len;
	u32			resp_len;
	u32			work;
	bool			admitted;
	ktime_t			rx_stamp;
	int			mtu;
	const struct prism_wauth	*wauth;
	const struct prism_gcm_key	*auth_key;
};

/* rcache.c */
void *prism_client_alloc(struct prism_sock *psk, size_t size, bool zero);
struct prism_session *prism_session_get(struct prism_sock *psk,
					const struct prism_paddr *addr,
					u32 ep, u32 nonce, u64 floor);
struct prism_session *prism_session_find(struct prism_sock *psk,
					 const struct prism_paddr *addr,
					 u32 ep, u32 nonce);
void prism_session_advance(struct prism_session *s, u64 floor);
u32 prism_cached_size(u32 frame_len);
void prism_cached_free(struct prism_session *s, struct prism_cached **slot);
bool prism_rcache_reserve(struct prism_sock *psk, u32 frame_len);
void prism_rcache_unreserve(struct prism_sock *psk, bool reserved,
			    u32 frame_len);
bool prism_cached_segment(struct prism_session *s, u32 mtu,
			  struct prism_cached *c);
void prism_cached_xmit(struct prism_session *s, struct prism_cached *c,
		       const struct prism_grant *g, struct sk_buff_head *out);
void prism_xmit_list(struct net *net, struct sk_buff_head *list,
		     const struct prism_paddr *to);
void prism_reasm_detach(struct prism_session *s, struct prism_reasm *r);
void prism_reasm_free(struct prism_session *s, struct prism_reasm *r);
void prism_reasm_release(struct prism_sock *psk, struct prism_reasm *r);
void prism_reasm_expire_arm(struct prism_sock *psk);

/* serve.c */
bool prism_admit(struct prism_sock *psk);
void prism_reply_hdr(struct prism_whdr *rhdr, const struct prism_whdr *hdr);
void prism_reply_status(struct net *net, const struct prism_whdr *hdr,
			const struct prism_paddr *src, u8 status);
void prism_refuse(struct net *net, const struct prism_whdr *hdr,
		  const struct prism_paddr *src, u8 status);
bool prism_psk_authentic(struct prism_sock *psk, const struct prism_op *op,
			 bool *only_send);
bool prism_chain_authentic(struct prism_sock *psk, const u8 *body,
			   u32 body_len, u8 nops);
void prism_nack(struct prism_sock *psk, const struct prism_whdr *hdr,
		const struct prism_paddr *src, u8 why);
bool prism_refuse_unchecked(struct net *net, const struct prism_whdr *hdr,
			    const struct prism_paddr *src, int mtu, int err,
			    struct prism_sock *psk, bool authentic,
			    u32 resp_len);
int prism_req_frame_mtu(struct net *net, const struct prism_whdr *hdr,
			const struct prism_paddr *src);
void prism_serve_checked(struct net *net, struct prism_sock *psk,
			 struct prism_chain_in *in,
			 const struct prism_paddr *src);
void prism_serve_chain(struct prism_sock *psk, const struct prism_chain_in *in,
		       const struct prism_paddr *src);

#endif /* _PRISM_RCACHE_H */
