/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Client side, shared by client.c (chains), client_peer.c (peers and
 * congestion windows) and client_seg.c (chains and answers larger than one
 * frame).
 */
#ifndef _PRISM_CLIENT_H
#define _PRISM_CLIENT_H

#include <linux/hrtimer.h>
#include "outbuf.h"
#include "prism_net.h"
#include "seg.h"

struct prism_ckey;

/**
 * struct prism_req - an outstanding chain
 * @psk: its socket
 * @peer: its target
 * @peer_node: in &prism_peer.reqs, under the reqs lock
 * @id: request id (wire id less &prism_sock.id_base)
 * @nops: ops in the chain
 * @nacked: the last answer was a NACK
 * @progress: a grant or a segment arrived since the timer last ran
 * @seg_moved: a grant or a segment arrived once
 * @tries: transmissions after loss
 * @nacks: NACKs received
 * @resp_cap: largest valid response body
 * @user_data: of the chain, for its completion
 * @dst: link address of the target
 * @dst_ep: endpoint id of the target
 * @deadline: CLOCK_MONOTONIC (ktime_get())
 * @sent_at: last transmission
 * @first_sent: first transmission (tracing)
 * @timer: retransmission and deadline, a timer_list (jiffies; the default)
 * @hrtimer: ... or a soft hrtimer (module parameter rto_hrtimer): runs in
 *           softirq too, with a resolution under a jiffy
 * @fine: @hrtimer is the timer
 * @cskb: the completion, preallocated
 * @frame_len: bytes at @frame
 * @frame: header and body of the REQ, or the SREQ of a multi-frame
 *         request, for resending
 * @tx: multi-frame request: its segments; NULL otherwise
 * @body: multi-frame request: its body (@tx.msg_len bytes), in @body_buf
 * @body_buf: the submission it was encoded in (kvmalloc()), freed with it
 * @rx: answer larger than a frame possible: its segments; NULL otherwise
 * @rx_started: @rx was set up by the answer's first segment
 * @held: waiting for room in a congestion window, never sent (reqs lock)
 * @held_node: in &prism_peer.held while @held
 * @local: counted in the socket's window (reqs lock)
 * @ckey: keyed chain: the derived key it is sealed with (a reference);
 *        NULL: a plain chain
 * @xmits: keyed chain: transmissions sealed so far (reqs lock)
 * @ob: the chain's output buffer (PRISM_CMSG_OUTBUF), pinned; NULL: the
 *      outputs go into @cskb
 * @wres: answer in segments: its per-op results (the completion has the
 *        rest of the body in place)
 */
struct prism_req {
	struct prism_sock	*psk;
	struct prism_peer	*peer;
	struct list_head	peer_node;
	u64			id;
	u8			nops;
	bool			nacked;
	bool			progress;
	bool			seg_moved;
	u32			tries;
	u32			nacks;
	u32			resp_cap;
	u64			user_data;
	struct prism_paddr	dst;
	u32			dst_ep;
	ktime_t			deadline;
	ktime_t			sent_at;
	ktime_t			first_sent;
	union {
		struct timer_list	timer;
		struct hrtimer		hrtimer;
	};
	bool			fine;
	struct sk_buff		*cskb;
	u32			frame_len;
	u8			*frame;
	struct prism_seg_tx	*tx;
	u8			*body;
	u8			*body_buf;
	struct prism_seg_rx	*rx;
	bool			rx_started;
	bool			held;
	struct list_head	held_node;
	bool			local;
	struct prism_ckey	*ckey;
	u32			xmits;
	struct prism_obuf	*ob;
	struct prism_wres	wres[PRISM_MAX_CHAIN];
};

/* client.c */
void prism_req_arm(struct prism_req *req, ktime_t now);
u64 prism_ack_floor(struct prism_sock *psk, struct prism_peer *peer);
struct sk_buff *prism_req_skb(const struct prism_req *req, gfp_t gfp);
void prism_req_stamp(struct prism_req *req, struct sk_buff *skb, u64 floor);
void prism_req_unlink(struct prism_sock *psk, struct prism_req *req);
struct prism_req *prism_req_of_frame(struct prism_sock *psk,
				     const struct prism_whdr *hdr,
				     const struct prism_paddr *src,
				     bool *forged);
void prism_req_finish(struct prism_req *req, u8 status, bool sample,
		      u32 rtt_us);

/* completion.c */
u32 prism_completion_head(u8 nops);
u32 prism_completion_size(u8 nops, u32 resp_body_len);
struct sk_buff *prism_cskb_alloc_frags(u8 nops, u32 out_len);
void prism_cskb_reset(struct sk_buff *skb);
int prism_results_check(const struct prism_wres *wres, u8 nops, u32 room);
void prism_completion_head_put(struct prism_msg *msg,
			       const struct prism_req *req,
			       const struct prism_wres *wres);
bool prism_fill_completion(struct prism_req *req, const u8 *body,
			   u32 body_len);
void prism_req_deliver(struct prism_req *req, u8 status);
void prism_req_fail(struct prism_req *req, u8 status);

/* client_peer.c */
struct prism_peer *prism_peer_get(struct prism_sock *psk,
				  const struct prism_paddr *dst, u32 dst_ep);
void prism_peer_answered(struct prism_sock *psk, struct prism_peer *p,
			 bool sent_once, u32 rtt_us);
void prism_peer_count(struct prism_sock *psk, u64 *counter);
void prism_peers_destroy(struct prism_sock *psk);
bool prism_cc_may_send(const struct prism_sock *psk,
		       const struct prism_peer *peer);
void prism_cc_sent(struct prism_sock *psk, struct prism_req *req);
void prism_req_hold(struct prism_sock *psk, struct prism_req *req);
void prism_cc_drop(struct prism_sock *psk, struct prism_req *req);
bool prism_cc_lost(struct prism_sock *psk, struct prism_req *req);
void prism_cc_nacked(struct prism_sock *psk, struct prism_req *req);
void prism_cc_kick(struct prism_sock *psk);
void prism_cc_answer(struct prism_sock *psk, struct prism_peer *peer,
		     const struct sk_buff *skb, const struct prism_whdr *hdr,
		     u32 rtt_us, ktime_t now);

/* client_seg.c */
int prism_req_large_init(struct prism_req *req, u32 mtu, u32 body_len,
			 u32 resp_len, u32 timeout_ms);
void prism_req_large_free(struct prism_req *req);
void prism_req_tx_first(struct prism_req *req, struct sk_buff_head *out);
void prism_req_tx_restart(struct prism_req *req, struct sk_buff_head *out);
struct sk_buff *prism_req_probe(struct prism_req *req);
bool prism_req_stalled(const struct prism_req *req, unsigned long rto);
bool prism_req_rx_whole(struct prism_req *req, const struct sk_buff *skb,
			u32 len);

#endif /* _PRISM_CLIENT_H */
