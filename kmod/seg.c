// SPDX-License-Identifier: GPL-2.0
/*
 * Segmentation state of messages larger than one frame: which segments a
 * receiver has and what it grants, which a sender must (re)send.  Pure
 * functions over the structs of seg.h: no locks, no allocation, no
 * frames; the callers (client.c, serve.c) hold the lock of the message.
 * Every value from a frame is checked here before it indexes a bitmap.
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/pkt_sched.h>
#include <kunit/visibility.h>
#include "prism_net.h"
#include "seg.h"

/**
 * prism_seg_count() - segments of a message
 * @msg_len: bytes of the message, at least 1
 * @seg_size: bytes of each segment but the last, at least 1
 *
 * Context: Any context.
 * Return: the number of segments.
 */
u32 prism_seg_count(u32 msg_len, u32 seg_size)
{
	return DIV_ROUND_UP(msg_len, seg_size);
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_count);

/**
 * prism_seg_len() - payload bytes of one segment
 * @msg_len: bytes of the message
 * @seg_size: bytes of each segment but the last
 * @idx: the segment, below prism_seg_count()
 *
 * Context: Any context.
 * Return: @seg_size, or less for the last segment.
 */
u32 prism_seg_len(u32 msg_len, u32 seg_size, u32 idx)
{
	return min(seg_size, msg_len - idx * seg_size);
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_len);

/* Segments of a window of bytes, at least one. */
static u32 prism_seg_window(u32 bytes, u32 seg_size)
{
	return max(bytes / seg_size, 1U);
}

/**
 * prism_seg_rx_init() - start receiving a message
 * @rx: the receiver
 * @msg_len: bytes of the message (the caller bounds it)
 * @seg_size: bytes of each segment but the last, as the sender declared
 * @have: zeroed bitmap of prism_seg_count(@msg_len, @seg_size) bits
 *
 * The sender may send PRISM_SEG_INIT_WINDOW bytes before the first grant.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if @msg_len is 0 or @seg_size below PRISM_SEG_MIN.
 */
int prism_seg_rx_init(struct prism_seg_rx *rx, u32 msg_len, u32 seg_size,
		      unsigned long *have)
{
	if (!msg_len || seg_size < PRISM_SEG_MIN)
		return -EINVAL;
	rx->msg_len = msg_len;
	rx->seg_size = seg_size;
	rx->nsegs = prism_seg_count(msg_len, seg_size);
	rx->base = 0;
	rx->count = 0;
	rx->since_grant = 0;
	rx->dups = 0;
	rx->granted = min(rx->nsegs,
			  prism_seg_window(PRISM_SEG_INIT_WINDOW, seg_size));
	rx->have = have;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_rx_init);

/**
 * prism_seg_rx_check() - check a received segment against the message
 * @rx: the receiver
 * @offset: the segment's offset, from the frame
 * @len: its payload bytes, from the frame
 * @idx: receives the segment's index when it is new
 *
 * Context: Any context.
 * Return: 1 if the segment is new (store it, then prism_seg_rx_mark()), 0 if
 * it arrived already (counted for the next grant), -EINVAL if @offset is
 * not a segment's start inside the message or @len is not that segment's
 * length.
 */
int prism_seg_rx_check(struct prism_seg_rx *rx, u32 offset, u32 len,
		       u32 *idx)
{
	u32 i;

	if (offset % rx->seg_size)
		return -EINVAL;
	i = offset / rx->seg_size;
	if (i >= rx->nsegs || len != prism_seg_len(rx->msg_len, rx->seg_size, i))
		return -EINVAL;
	if (test_bit(i, rx->have)) {
		rx->dups++;
		return 0;
	}
	*idx = i;
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_rx_check);

/**
 * prism_seg_rx_mark() - record a new segment as stored
 * @rx: the receiver
 * @idx: index from prism_seg_rx_check() (returned 1)
 *
 * Context: Any context.
 * Return: true if a grant is due: PRISM_SEG_GRANT_EVERY segments arrived
 * since the last one, every granted segment arrived (the sender waits for
 * a grant), or the last segment arrived before others (the sender has
 * nothing more to send: tell it what is missing); never once the message
 * is complete.
 */
bool prism_seg_rx_mark(struct prism_seg_rx *rx, u32 idx)
{
	__set_bit(idx, rx->have);
	rx->count++;
	rx->since_grant++;
	while (rx->base < rx->nsegs && test_bit(rx->base, rx->have))
		rx->base++;
	if (rx->count == rx->nsegs)
		return false;
	return rx->since_grant >= PRISM_SEG_GRANT_EVERY ||
	       rx->base >= rx->granted || idx == rx->nsegs - 1;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_rx_mark);

/**
 * prism_seg_rx_grant() - what the receiver has and allows
 * @rx: the receiver
 * @flags: PRISM_GRANT_* of the grant
 * @g: receives the grant: @rx's base, a window of PRISM_SEG_WINDOW bytes
 *     past it, and the segments after base that arrived
 *
 * Context: Any context.
 */
void prism_seg_rx_grant(struct prism_seg_rx *rx, u8 flags,
			struct prism_grant *g)
{
	u32 i, s;

	memset(g, 0, sizeof(*g));
	g->flags = flags;
	g->dups = min(rx->dups, U16_MAX);
	g->base = rx->base;
	g->limit = min(rx->nsegs, rx->base +
		       prism_seg_window(PRISM_SEG_WINDOW, rx->seg_size));
	for (i = 0; i < PRISM_SACK_BITS; i++) {
		s = rx->base + 1 + i;
		if (s >= rx->nsegs)
			break;
		if (test_bit(s, rx->have))
			__set_bit(i, g->sack);
	}
	rx->granted = g->limit;
	rx->since_grant = 0;
	rx->dups = 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_rx_grant);

/**
 * prism_seg_tx_init() - start sending a message
 * @tx: the sender
 * @msg_len: bytes of the message, at least 1
 * @seg_size: bytes of each segment but the last, at least 1
 * @acked: zeroed bitmap of prism_seg_count(@msg_len, @seg_size) bits
 * @sent_seq: zeroed array of as many entries
 *
 * The first PRISM_SEG_INIT_WINDOW bytes may be sent before any grant.
 *
 * Context: Any context.
 */
void prism_seg_tx_init(struct prism_seg_tx *tx, u32 msg_len, u32 seg_size,
		       unsigned long *acked, u32 *sent_seq)
{
	tx->msg_len = msg_len;
	tx->seg_size = seg_size;
	tx->nsegs = prism_seg_count(msg_len, seg_size);
	tx->base = 0;
	tx->next = 0;
	tx->sent_max = 0;
	tx->limit = min(tx->nsegs,
			prism_seg_window(PRISM_SEG_INIT_WINDOW, seg_size));
	tx->seq = 0;
	tx->reorder = PRISM_SEG_REORDER;
	tx->resent = 0;
	tx->acked = acked;
	tx->sent_seq = sent_seq;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_tx_init);

/**
 * prism_seg_tx_new() - a sender for a message, with its bitmap and array
 * @msg_len: bytes of the message, at least 1
 * @seg_size: bytes of each segment but the last, at least 1
 * @gfp: allocation flags (process context or GFP_ATOMIC)
 *
 * Context: Any context @gfp allows.
 * Return: the sender, as prism_seg_tx_init() leaves it, or NULL if out of
 * memory.  Free it with prism_seg_tx_delete().
 */
struct prism_seg_tx *prism_seg_tx_new(u32 msg_len, u32 seg_size, gfp_t gfp)
{
	u32 n = prism_seg_count(msg_len, seg_size);
	struct prism_seg_tx *tx;

	tx = kzalloc(sizeof(*tx) + BITS_TO_LONGS(n) * sizeof(long), gfp);
	if (!tx)
		return NULL;
	tx->sent_seq = kvcalloc(n, sizeof(*tx->sent_seq), gfp);
	if (!tx->sent_seq) {
		kfree(tx);
		return NULL;
	}
	prism_seg_tx_init(tx, msg_len, seg_size, (unsigned long *)(tx + 1),
			  tx->sent_seq);
	return tx;
}

/**
 * prism_seg_tx_delete() - free a sender of prism_seg_tx_new()
 * @tx: the sender, or NULL
 *
 * Context: Any context.
 */
void prism_seg_tx_delete(struct prism_seg_tx *tx)
{
	if (!tx)
		return;
	kvfree(tx->sent_seq);
	kfree(tx);
}

/**
 * prism_seg_tx_restart() - send a message again from its first segment
 * @tx: the sender
 *
 * Forgets what was sent and acknowledged (the receiver kept none of it, as
 * far as the sender knows); keeps the reorder threshold learnt and how far
 * it ever sent.  A NACK may be for an earlier transmission of the request
 * while a later one started a reassembly that holds segments sent before:
 * the grants of that receiver are still taken (prism_seg_tx_ack()).
 *
 * Context: Any context.
 */
void prism_seg_tx_restart(struct prism_seg_tx *tx)
{
	u32 reorder = tx->reorder, sent_max = tx->sent_max;

	bitmap_zero(tx->acked, tx->nsegs);
	memset(tx->sent_seq, 0, tx->nsegs * sizeof(*tx->sent_seq));
	prism_seg_tx_init(tx, tx->msg_len, tx->seg_size, tx->acked,
			  tx->sent_seq);
	tx->reorder = reorder;
	tx->sent_max = sent_max;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_tx_restart);

/* Acknowledge segment i; remember the latest transmission acknowledged. */
static void prism_seg_tx_ack_one(struct prism_seg_tx *tx, u32 i, u32 *hi_seq)
{
	if (__test_and_set_bit(i, tx->acked))
		return;
	*hi_seq = max(*hi_seq, tx->sent_seq[i]);
}

/**
 * prism_seg_tx_ack() - apply a grant from the receiver
 * @tx: the sender
 * @g: the grant, decoded (prism_grant_decode())
 * @hi_seq: receives the latest transmission (sent_seq) among the segments
 *          this grant acknowledges first; 0 if none
 *
 * Acknowledges the segments below @g->base and those of @g->sack, and
 * raises the sender's limit to @g->limit.  Acknowledgements of segments
 * never sent are ignored (a receiver cannot have them); segments sent only
 * before a restart count as sent.  Duplicates seen by
 * the receiver after the sender resent segments double the reorder
 * threshold (up to PRISM_SACK_BITS).
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if @g names segments past the message or a base
 * beyond what was sent.
 */
int prism_seg_tx_ack(struct prism_seg_tx *tx, const struct prism_grant *g,
		     u32 *hi_seq)
{
	u32 i, s, sent = max(tx->next, tx->sent_max);

	*hi_seq = 0;
	if (g->base > sent || g->limit > tx->nsegs || g->limit < g->base)
		return -EINVAL;
	for (i = tx->base; i < g->base; i++)
		prism_seg_tx_ack_one(tx, i, hi_seq);
	for_each_set_bit(i, g->sack, PRISM_SACK_BITS) {
		s = g->base + 1 + i;
		if (s >= sent)
			break;
		prism_seg_tx_ack_one(tx, s, hi_seq);
	}
	while (tx->base < tx->nsegs && test_bit(tx->base, tx->acked))
		tx->base++;
	/* After a restart the receiver may have more than was sent since. */
	tx->next = max(tx->next, tx->base);
	tx->limit = max(tx->limit, g->limit);
	if (g->dups && tx->resent)
		tx->reorder = min(tx->reorder * 2, PRISM_SACK_BITS);
	tx->resent = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_tx_ack);

/**
 * prism_seg_tx_pick() - segments to transmit now
 * @tx: the sender
 * @probe: a timer fired: resend every segment sent and not acknowledged
 * @hi_seq: from prism_seg_tx_ack(): a segment not acknowledged and sent
 *          at least @tx->reorder transmissions before that one is presumed
 *          lost and resent
 * @todo: receives the indexes of the segments to send, in order
 * @max: room in @todo
 * @resent: incremented by the number of them sent before
 *
 * Lost segments first, then new ones below the limit.  Each picked segment
 * is recorded as transmitted now.
 *
 * Context: Any context.
 * Return: the number of segments put in @todo.
 */
u32 prism_seg_tx_pick(struct prism_seg_tx *tx, bool probe, u32 hi_seq,
		      u32 *todo, u32 max, u32 *resent)
{
	u32 i, n = 0;

	for (i = tx->base; i < tx->next && n < max; i++) {
		if (test_bit(i, tx->acked))
			continue;
		if (!probe && (u64)tx->sent_seq[i] + tx->reorder > hi_seq)
			continue;
		todo[n++] = i;
		tx->sent_seq[i] = ++tx->seq;
		tx->resent++;
		(*resent)++;
	}
	while (tx->next < tx->limit && n < max) {
		/* Acknowledged already: the receiver kept it across a restart. */
		if (!test_bit(tx->next, tx->acked)) {
			todo[n++] = tx->next;
			tx->sent_seq[tx->next] = ++tx->seq;
		}
		tx->next++;
	}
	tx->sent_max = max(tx->sent_max, tx->next);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(prism_seg_tx_pick);

/**
 * prism_grant_encode() - write a grant in wire format
 * @g: the grant
 * @dir: &enum prism_seg_dir of the message
 * @msg_len: bytes of the message
 * @w: receives the grant, big-endian
 *
 * Context: Any context.
 */
void prism_grant_encode(const struct prism_grant *g, u8 dir, u32 msg_len,
			struct prism_wgrant *w)
{
	u64 words[PRISM_SACK_BITS / 64];
	unsigned int i;

	memset(w, 0, sizeof(*w));
	w->dir = dir;
	w->flags = g->flags;
	w->dups = cpu_to_be16(g->dups);
	w->msg_len = cpu_to_be32(msg_len);
	w->base = cpu_to_be32(g->base);
	w->limit = cpu_to_be32(g->limit);
	bitmap_to_arr64(words, g->sack, PRISM_SACK_BITS);
	for (i = 0; i < ARRAY_SIZE(words); i++)
		w->sack[i] = cpu_to_be64(words[i]);
}
EXPORT_SYMBOL_IF_KUNIT(prism_grant_encode);

/**
 * prism_grant_decode() - read a grant from the wire
 * @w: the grant, big-endian (its dir and msg_len are the caller's to check)
 * @g: receives it
 *
 * Context: Any context.
 * Return: 0, or -EINVAL for unknown flags or a limit below the base.
 */
int prism_grant_decode(const struct prism_wgrant *w, struct prism_grant *g)
{
	u64 words[PRISM_SACK_BITS / 64];
	unsigned int i;

	if (w->flags & ~PRISM_GRANT_PROBE)
		return -EINVAL;
	g->flags = w->flags;
	g->dups = be16_to_cpu(w->dups);
	g->base = be32_to_cpu(w->base);
	g->limit = be32_to_cpu(w->limit);
	if (g->limit < g->base)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		words[i] = be64_to_cpu(w->sack[i]);
	bitmap_from_arr64(g->sack, words, PRISM_SACK_BITS);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_grant_decode);

/* ---------------------------------------------------------------------------
 * Frames.
 */

/**
 * prism_seg_size() - segment payload for a link
 * @mtu: bytes of PRISM header and body a frame of the link carries
 *       (prism_link_mtu())
 *
 * Context: Any context.
 * Return: the bytes of a segment that fit in @mtu (at most 65535), 0 if
 * none fit.
 */
u32 prism_seg_size(u32 mtu)
{
	u32 hdrs = sizeof(struct prism_whdr) + sizeof(struct prism_wseg);

	if (mtu <= hdrs)
		return 0;
	return min(mtu - hdrs, U16_MAX);
}

/*
 * The page of byte p of a message in memory of the page allocator (a
 * large kmalloc() block or vmalloc() memory), or NULL if p is slab memory,
 * whose pages must not be lent to skbs.
 */
static struct page *prism_msg_page(const u8 *p)
{
	if (is_vmalloc_addr(p))
		return vmalloc_to_page(p);
	if (folio_test_slab(virt_to_folio(p)))
		return NULL;
	return virt_to_page(p);
}

/*
 * Lend [data, data + len), page allocator memory of one allocation, to skb
 * as page fragments (a page reference each): the frame is sent without
 * copying it.
 */
static void prism_skb_lend(struct sk_buff *skb, const u8 *data, u32 len)
{
	struct page *page;
	u32 off, n;

	while (len) {
		page = prism_msg_page(data);
		off = offset_in_page(data);
		n = min_t(u32, len, PAGE_SIZE - off);
		get_page(page);
		skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page, off, n);
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		data += n;
		len -= n;
	}
}

/**
 * prism_seg_frame() - a frame carrying one segment of a message
 * @tmpl: header of the message's frames (eps, session, ids, nops, status)
 * @dir: &enum prism_seg_dir
 * @tx: the sender of the message
 * @msg: the message; when it is page allocator memory (a large kmalloc()
 *       or vmalloc() block, which stays unchanged until freed) the frame
 *       takes references to its pages instead of copying the bytes (an
 *       interface without scatter-gather copies them when it sends)
 * @idx: the segment
 *
 * Context: Any context (GFP_ATOMIC).
 * Return: the frame, or NULL if out of memory.
 */
struct sk_buff *prism_seg_frame(const struct prism_whdr *tmpl, u8 dir,
				const struct prism_seg_tx *tx, const u8 *msg,
				u32 idx)
{
	u32 len = prism_seg_len(tx->msg_len, tx->seg_size, idx);
	const u8 *data = msg + idx * tx->seg_size;
	bool lend = prism_msg_page(data);
	struct prism_whdr *h;
	struct prism_wseg *w;
	struct sk_buff *skb;

	/* 65,535 bytes span at most 17 pages: within MAX_SKB_FRAGS. */
	BUILD_BUG_ON(DIV_ROUND_UP(U16_MAX, PAGE_SIZE) + 1 > MAX_SKB_FRAGS);
	skb = prism_alloc_frame(sizeof(*h) + sizeof(*w) + (lend ? 0 : len),
				GFP_ATOMIC);
	if (!skb)
		return NULL;
	h = skb_put_data(skb, tmpl, sizeof(*h));
	h->type = PRISM_T_SEG;
	h->body_len = htons(sizeof(*w) + len);
	w = skb_put_zero(skb, sizeof(*w));
	w->dir = dir;
	w->seg_size = htons(tx->seg_size);
	w->msg_len = htonl(tx->msg_len);
	w->offset = htonl(idx * tx->seg_size);
	if (lend)
		prism_skb_lend(skb, data, len);
	else
		skb_put_data(skb, data, len);
	return skb;
}

/**
 * prism_grant_frame() - a GRANT frame
 * @tmpl: header from the receiver of the message to its sender
 * @dir: &enum prism_seg_dir of the message
 * @msg_len: bytes of the message
 * @g: the grant
 *
 * Grants go out first (TC_PRIO_CONTROL): they clock the sender.
 *
 * Context: Any context (GFP_ATOMIC).
 * Return: the frame, or NULL if out of memory.
 */
struct sk_buff *prism_grant_frame(const struct prism_whdr *tmpl, u8 dir,
				  u32 msg_len, const struct prism_grant *g)
{
	struct prism_wgrant *w;
	struct prism_whdr *h;
	struct sk_buff *skb;

	skb = prism_alloc_frame(sizeof(*h) + sizeof(*w), GFP_ATOMIC);
	if (!skb)
		return NULL;
	h = skb_put_data(skb, tmpl, sizeof(*h));
	h->type = PRISM_T_GRANT;
	h->status = 0;
	h->body_len = htons(sizeof(*w));
	w = skb_put(skb, sizeof(*w));
	prism_grant_encode(g, dir, msg_len, w);
	skb->priority = TC_PRIO_CONTROL;
	return skb;
}
