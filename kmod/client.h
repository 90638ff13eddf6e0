/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Client side, shared by client.c (chains) and client_seg.c (chains and
 * answers larger than one frame).
 */
#ifndef _PRISM_CLIENT_H
#define _PRISM_CLIENT_H

#include "prism_net.h"
#include "seg.h"

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
 * @dst: target address
 * @deadline: jiffies
 * @sent_at: last transmission
 * @first_sent: first transmission (tracing)
 * @timer: retransmission and deadline
 * @cskb: the completion, preallocated
 * @frame_len: bytes at @frame
 * @frame: header and body of the REQ, or the SREQ of a multi-frame
 *         request, for resending
 * @tx: multi-frame request: its segments; NULL otherwise
 * @body: multi-frame request: its body (@tx.msg_len bytes)
 * @rx: answer larger than a frame possible: its segments; NULL otherwise
 * @rx_started: @rx was set up by the answer's first segment
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
	struct sockaddr_prism	dst;
	unsigned long		deadline;
	ktime_t			sent_at;
	ktime_t			first_sent;
	struct timer_list	timer;
	struct sk_buff		*cskb;
	u32			frame_len;
	u8			*frame;
	struct prism_seg_tx	*tx;
	u8			*body;
	struct prism_seg_rx	*rx;
	bool			rx_started;
	struct prism_wres	wres[PRISM_MAX_CHAIN];
};

/* client.c */
int prism_results_check(const struct prism_wres *wres, u8 nops, u32 room);
void prism_completion_head_put(struct prism_msg *msg,
			       const struct prism_req *req,
			       const struct prism_wres *wres);
void prism_req_unlink(struct prism_sock *psk, struct prism_req *req);
struct prism_req *prism_req_of_frame(struct prism_sock *psk,
				     const struct prism_whdr *hdr,
				     const u8 *src_mac, bool *forged);
void prism_req_finish(struct prism_req *req, u8 status, bool sample,
		      u32 rtt_us);

/* client_seg.c */
int prism_req_large_init(struct prism_req *req, struct net_device *dev,
			 u32 body_len, u32 resp_len, u32 timeout_ms);
void prism_req_large_free(struct prism_req *req);
u32 prism_completion_head(u8 nops);
void prism_req_tx_first(struct prism_req *req, struct net_device *dev,
			struct sk_buff_head *out);
void prism_req_tx_restart(struct prism_req *req, struct net_device *dev,
			  struct sk_buff_head *out);
struct sk_buff *prism_req_probe(struct prism_req *req, struct net_device *dev);
bool prism_req_stalled(const struct prism_req *req, unsigned long rto);
bool prism_req_rx_whole(struct prism_req *req, const struct sk_buff *skb,
			u32 len);
void prism_cskb_reset(struct sk_buff *skb);

#endif /* _PRISM_CLIENT_H */
