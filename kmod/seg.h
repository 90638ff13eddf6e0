/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Segmentation of chains and answers larger than one frame: wire format of
 * the segment and grant frames, and the state of one message's sender and
 * receiver (kmod/seg.c, pure functions tested by kmod/kunit/seg_test.c).
 *
 * A message is the body of a request (client to target) or of a response
 * (target to client).  Its sender cuts it into segments of seg_size bytes
 * (the last may be shorter) and numbers them from 0.  The receiver keeps a
 * bitmap of the segments it stored, and answers with grants: every segment
 * below base arrived, bit i of sack says segment base + 1 + i arrived, and
 * the sender may send segments below limit.  The sender resends a segment
 * when segments it sent at least "reorder" transmissions later were
 * acknowledged (it was lost, not merely overtaken), or when a grant carries
 * PRISM_GRANT_PROBE (the receiver's or the sender's timer fired: resend
 * everything not acknowledged).  A grant also reports the duplicates the
 * receiver saw: when the sender resent segments since the last grant, a
 * report doubles its reorder threshold, so a path that reorders stops
 * causing resends (duplicates made by the network itself do not count).
 * See doc/LARGE-OPS.md.
 */
#ifndef _PRISM_SEG_H
#define _PRISM_SEG_H

#include <linux/types.h>
#include <linux/bitmap.h>

/* Which message a segment or grant belongs to (prism_wseg.dir). */
enum prism_seg_dir {
	PRISM_SEG_REQ	= 1,	/* request body, client to target */
	PRISM_SEG_RESP	= 2,	/* response body, target to client */
};

/* prism_wgrant.flags: resend every segment not acknowledged. */
#define PRISM_GRANT_PROBE	0x01

/* Smallest segment payload a receiver accepts (bounds its bitmap). */
#define PRISM_SEG_MIN		256
/* Bytes a sender sends before the first grant. */
#define PRISM_SEG_INIT_WINDOW	(64U << 10)
/* Bytes a receiver lets the sender have in flight past base. */
#define PRISM_SEG_WINDOW	(256U << 10)
/* A receiver grants after this many new segments. */
#define PRISM_SEG_GRANT_EVERY	8
/* Segments after base that a grant reports. */
#define PRISM_SACK_BITS		256
/* Segments one grant or timer makes the sender transmit, at most. */
#define PRISM_SEG_BURST		64
/* Reorder threshold of a new sender, in transmissions. */
#define PRISM_SEG_REORDER	16

/**
 * struct prism_wseg - after &struct prism_whdr in SREQ and SEG frames
 * @dir: &enum prism_seg_dir
 * @reserved: 0
 * @seg_size: payload bytes of every segment but the last
 * @msg_len: bytes of the whole message
 * @offset: SEG: of this segment's payload in the message (a multiple of
 *          @seg_size); SREQ: 0
 * @timeout_ms: SREQ: the chain's timeout; the target drops what it
 *              reassembled of the request after it.  SEG: 0
 */
struct prism_wseg {
	u8	dir;
	u8	reserved;
	__be16	seg_size;
	__be32	msg_len;
	__be32	offset;
	__be32	timeout_ms;
} __packed;

/**
 * struct prism_wgrant - body of a GRANT frame
 * @dir: &enum prism_seg_dir of the message granted
 * @flags: PRISM_GRANT_*
 * @dups: duplicate segments received since the last grant (saturated)
 * @msg_len: bytes of the message
 * @base: every segment below it arrived
 * @limit: the sender may send segments below it
 * @sack: bit i (of word i / 64, bit i % 64): segment base + 1 + i arrived
 */
struct prism_wgrant {
	u8	dir;
	u8	flags;
	__be16	dups;
	__be32	msg_len;
	__be32	base;
	__be32	limit;
	__be64	sack[PRISM_SACK_BITS / 64];
} __packed;

/**
 * struct prism_grant - a grant in host order
 * @flags: PRISM_GRANT_*
 * @dups: duplicate segments received since the last grant
 * @base: every segment below it arrived
 * @limit: the sender may send segments below it
 * @sack: bit i: segment base + 1 + i arrived
 */
struct prism_grant {
	u8		flags;
	u16		dups;
	u32		base;
	u32		limit;
	unsigned long	sack[BITS_TO_LONGS(PRISM_SACK_BITS)];
};

/**
 * struct prism_seg_rx - receiver of one message
 * @msg_len: bytes of the message
 * @seg_size: bytes of each segment but the last
 * @nsegs: segments of the message
 * @base: first segment not yet received
 * @count: segments received
 * @since_grant: segments received since the last grant
 * @dups: duplicates received since the last grant
 * @granted: limit of the last grant (or of the sender's first window)
 * @have: bitmap of the segments received, @nsegs bits
 */
struct prism_seg_rx {
	u32		msg_len;
	u32		seg_size;
	u32		nsegs;
	u32		base;
	u32		count;
	u32		since_grant;
	u32		dups;
	u32		granted;
	unsigned long	*have;
};

/**
 * struct prism_seg_tx - sender of one message
 * @msg_len: bytes of the message
 * @seg_size: bytes of each segment but the last
 * @nsegs: segments of the message
 * @base: first segment not yet acknowledged
 * @next: first segment never sent (since the last restart)
 * @sent_max: segments below it were sent once, before a restart too: a
 *            receiver may hold them
 * @limit: segments below it may be sent
 * @seq: transmissions so far
 * @reorder: a segment is presumed lost once one sent this many
 *           transmissions later is acknowledged
 * @resent: segments resent since the last grant
 * @acked: bitmap of the segments acknowledged, @nsegs bits
 * @sent_seq: per segment, value of @seq at its last transmission (0: never)
 */
struct prism_seg_tx {
	u32		msg_len;
	u32		seg_size;
	u32		nsegs;
	u32		base;
	u32		next;
	u32		sent_max;
	u32		limit;
	u32		seq;
	u32		reorder;
	u32		resent;
	unsigned long	*acked;
	u32		*sent_seq;
};

u32 prism_seg_count(u32 msg_len, u32 seg_size);
u32 prism_seg_len(u32 msg_len, u32 seg_size, u32 idx);
int prism_seg_rx_init(struct prism_seg_rx *rx, u32 msg_len, u32 seg_size,
		      unsigned long *have);
int prism_seg_rx_check(struct prism_seg_rx *rx, u32 offset, u32 len,
		       u32 *idx);
bool prism_seg_rx_mark(struct prism_seg_rx *rx, u32 idx);
void prism_seg_rx_grant(struct prism_seg_rx *rx, u8 flags,
			struct prism_grant *g);
void prism_seg_tx_init(struct prism_seg_tx *tx, u32 msg_len, u32 seg_size,
		       unsigned long *acked, u32 *sent_seq);
struct prism_seg_tx *prism_seg_tx_new(u32 msg_len, u32 seg_size, gfp_t gfp);
void prism_seg_tx_delete(struct prism_seg_tx *tx);
void prism_seg_tx_restart(struct prism_seg_tx *tx);
int prism_seg_tx_ack(struct prism_seg_tx *tx, const struct prism_grant *g,
		     u32 *hi_seq);
u32 prism_seg_tx_pick(struct prism_seg_tx *tx, bool probe, u32 hi_seq,
		      u32 *todo, u32 max, u32 *resent);
void prism_grant_encode(const struct prism_grant *g, u8 dir, u32 msg_len,
			struct prism_wgrant *w);
int prism_grant_decode(const struct prism_wgrant *w, struct prism_grant *g);

struct sk_buff;
struct prism_whdr;
u32 prism_seg_size(u32 mtu);
struct sk_buff *prism_seg_frame(const struct prism_whdr *tmpl, u8 dir,
				const struct prism_seg_tx *tx, const u8 *msg,
				u32 idx);
struct sk_buff *prism_grant_frame(const struct prism_whdr *tmpl, u8 dir,
				  u32 msg_len, const struct prism_grant *g);

#endif /* _PRISM_SEG_H */
