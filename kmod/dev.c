// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM frames on Ethernet: receive (softirq), transmit, delivery of SEND
 * data to sockets, and reacting to interfaces going away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include <linux/pkt_sched.h>
#include <net/busy_poll.h>
#include "prism_net.h"
#include "seg.h"
#include "steer.h"

/**
 * prism_alloc_frame() - allocate an skb for a PRISM frame
 * @dev: interface the frame will be sent on (headroom and tailroom)
 * @len: bytes of PRISM header and body the caller will put
 * @gfp: allocation flags
 *
 * The skb is empty, with room reserved for the link-layer header; send it
 * with prism_xmit_frame().
 *
 * Context: Any context @gfp allows.
 * Return: the skb, or NULL if out of memory.
 */
struct sk_buff *prism_alloc_frame(struct net_device *dev, u32 len, gfp_t gfp)
{
	unsigned int hlen = LL_RESERVED_SPACE(dev);
	struct sk_buff *skb;

	skb = alloc_skb(hlen + len + dev->needed_tailroom, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, hlen);
	skb_reset_network_header(skb);
	return skb;
}

/**
 * prism_xmit_frame() - send a PRISM frame
 * @skb: frame whose data is a complete PRISM header and body; consumed
 * @dev: interface to send it on
 * @dst_mac: destination MAC address
 *
 * Adds the Ethernet header and queues the frame on @dev, at skb->priority
 * (0 unless the caller set it).  A frame whose link-layer header cannot be
 * built is dropped silently.
 *
 * Context: Process context or softirq; the caller keeps @dev alive (a
 * reference or rcu_read_lock()).
 */
void prism_xmit_frame(struct sk_buff *skb, struct net_device *dev,
		      const u8 *dst_mac)
{
	skb->dev = dev;
	skb->protocol = htons(prism_ethertype);
	if (dev_hard_header(skb, dev, prism_ethertype, dst_mac, dev->dev_addr,
			    skb->len) < 0) {
		kfree_skb(skb);
		return;
	}
	dev_queue_xmit(skb);
}

/**
 * prism_stamp_age_us() - how long ago the stack stamped a received frame
 * @stamp: skb->tstamp of the frame (CLOCK_REALTIME, set on arrival in the
 *         receive queue when receive timestamps are on: module parameter
 *         cc_stamp, or any SO_TIMESTAMP user)
 *
 * Context: Any context.
 * Return: microseconds, at most 65535; 0 if @stamp is unset (then the
 * clock is not read) or not within the last second (a clock step).
 */
u32 prism_stamp_age_us(ktime_t stamp)
{
	s64 us;

	if (!stamp)
		return 0;
	us = ktime_us_delta(ktime_get_real(), stamp);
	if (us < 0 || us >= USEC_PER_SEC)
		return 0;
	return min_t(s64, us, U16_MAX);
}

/**
 * prism_queue_send() - queue a SEND op's data on the target socket
 * @psk: target socket
 * @src: address of the sender, returned by recvmsg() as msg_name
 * @data: the SEND op's inline data
 * @len: bytes at @data
 *
 * The message (&struct prism_msg of kind PRISM_MSG_SEND, then the data) is
 * charged to the receive buffer of @psk: a full socket refuses the SEND.
 *
 * Context: Softirq, from the engine (via the &struct prism_exec_ctx
 * deliver_send callback), under rcu_read_lock(); allocates with GFP_ATOMIC.
 * Return: PRISM_S_OK, or PRISM_S_RECV_FULL if out of memory or @psk refused
 * the message.
 */
int prism_queue_send(struct prism_sock *psk, const struct sockaddr_prism *src,
		     const void *data, u32 len)
{
	struct prism_msg *msg;
	struct sk_buff *skb;

	skb = alloc_skb(sizeof(*msg) + len, GFP_ATOMIC);
	if (!skb)
		return PRISM_S_RECV_FULL;
	msg = skb_put_zero(skb, sizeof(*msg));
	msg->kind = PRISM_MSG_SEND;
	msg->len = sizeof(*msg) + len;
	skb_put_data(skb, data, len);
	BUILD_BUG_ON(sizeof(*src) > sizeof(skb->cb));
	memcpy(skb->cb, src, sizeof(*src));
	/* Charged to the receive buffer: a full socket refuses the SEND. */
	if (sock_queue_rcv_skb(&psk->sk, skb) < 0) {
		kfree_skb(skb);
		return PRISM_S_RECV_FULL;
	}
	return PRISM_S_OK;
}

/*
 * Hand a frame to the target or client side by its type and, for segments
 * and grants, the direction of their message.  -EINVAL: dropped here.
 */
static int prism_dispatch(struct net *net, struct sk_buff *skb,
			  const struct prism_whdr *hdr, const u8 *src_mac)
{
	u32 body_len = ntohs(hdr->body_len);
	struct prism_sock *psk;
	u8 dir = 0;

	switch (hdr->type) {
	case PRISM_T_REQ:
	case PRISM_T_SREQ:
		if (hdr->status || hdr->delay)
			return -EINVAL;
		if (hdr->type == PRISM_T_REQ)
			prism_serve_request(net, skb, hdr, src_mac);
		else
			prism_serve_sreq(net, skb, hdr, src_mac);
		return 0;
	case PRISM_T_SEG:
		if (body_len < sizeof(struct prism_wseg) || hdr->delay)
			return -EINVAL;
		dir = ((const struct prism_wseg *)(hdr + 1))->dir;
		break;
	case PRISM_T_GRANT:
		if (body_len != sizeof(struct prism_wgrant) || hdr->status ||
		    hdr->delay)
			return -EINVAL;
		dir = ((const struct prism_wgrant *)(hdr + 1))->dir;
		break;
	case PRISM_T_RESP:
		break;
	default:
		return -EINVAL;
	}
	/* To the target: segments of requests, grants for answers. */
	if ((hdr->type == PRISM_T_SEG && dir == PRISM_SEG_REQ) ||
	    (hdr->type == PRISM_T_GRANT && dir == PRISM_SEG_RESP)) {
		if (hdr->type == PRISM_T_SEG)
			prism_serve_seg(net, skb, hdr, src_mac);
		else
			prism_serve_grant(net, skb, hdr, src_mac);
		return 0;
	}
	if (hdr->type != PRISM_T_RESP && dir != PRISM_SEG_REQ &&
	    dir != PRISM_SEG_RESP)
		return -EINVAL;
	psk = prism_frame_psk(net, skb->dev, hdr);
	if (!psk)
		return -EINVAL;
	/* What a receive with SO_BUSY_POLL set polls (skb_recv_datagram()). */
	sk_mark_napi_id(&psk->sk, skb);
	if (hdr->type == PRISM_T_RESP)
		prism_client_response(psk, skb, hdr, src_mac);
	else if (hdr->type == PRISM_T_SEG)
		prism_client_seg(psk, skb, hdr, src_mac);
	else
		prism_client_grant(psk, skb, hdr, src_mac);
	return 0;
}

static int prism_rcv_drop(struct net *net, struct sk_buff *skb)
{
	prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
	kfree_skb(skb);
	return NET_RX_DROP;
}

/**
 * prism_rcv_finish() - hand a validated frame to the target or client side
 * @skb: frame checked by prism_rcv(): PRISM header and body in the linear
 *       part (a segment's payload may lie in fragments); consumed
 *
 * Context: Softirq, on the CPU that received the frame or, when steered,
 * on the CPU of its session (steer.c).
 * Return: NET_RX_SUCCESS, or NET_RX_DROP if the frame was dropped.
 */
int prism_rcv_finish(struct sk_buff *skb)
{
	const struct prism_whdr *hdr = (const struct prism_whdr *)skb->data;
	struct net *net = dev_net(skb->dev);
	u8 src_mac[ETH_ALEN];
	int err;

	ether_addr_copy(src_mac, eth_hdr(skb)->h_source);
	rcu_read_lock();
	err = prism_dispatch(net, skb, hdr, src_mac);
	rcu_read_unlock();
	if (err)
		return prism_rcv_drop(net, skb);
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static int prism_rcv(struct sk_buff *skb, struct net_device *dev,
		     struct packet_type *pt, struct net_device *orig_dev)
{
	struct net *net = dev_net(dev);
	const struct prism_whdr *hdr;
	u8 src_mac[ETH_ALEN];
	u32 body_len;

	if (skb->pkt_type != PACKET_HOST)
		goto drop;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	if (!pskb_may_pull(skb, sizeof(*hdr)))
		goto drop;
	hdr = (const struct prism_whdr *)skb->data;
	/*
	 * The engine and the client parse a flat buffer; a segment's payload
	 * is copied out of the frame wherever it lies.
	 */
	if (hdr->type == PRISM_T_SEG ?
	    !pskb_may_pull(skb, sizeof(*hdr) + sizeof(struct prism_wseg)) :
	    skb_linearize(skb))
		goto drop;
	hdr = (const struct prism_whdr *)skb->data;
	body_len = ntohs(hdr->body_len);
	/* Ethernet pads short frames: the header says how much is ours. */
	if (hdr->version != PRISM_WIRE_VERSION ||
	    body_len > skb->len - sizeof(*hdr) ||
	    !hdr->nops || hdr->nops > PRISM_MAX_CHAIN)
		goto drop;
	ether_addr_copy(src_mac, eth_hdr(skb)->h_source);
	if (!is_valid_ether_addr(src_mac))
		goto drop;
	/* Target-side frames run on the CPU of their session (steer.c). */
	if (prism_steer_frame(skb, hdr, src_mac))
		return NET_RX_SUCCESS;
	return prism_rcv_finish(skb);

drop:
	return prism_rcv_drop(net, skb);
}

static struct packet_type prism_packet_type = {
	.func	= prism_rcv,
};

/* Fail the chains of sockets bound to an interface that went away. */
static void prism_dev_gone(struct net_device *dev)
{
	struct prism_net *pn = prism_pernet(dev_net(dev));
	struct prism_sock *psk;
	unsigned long ep;

	rcu_read_lock();
	xa_for_each(&pn->eps, ep, psk) {
		if (psk->ifindex == dev->ifindex)
			prism_client_fail_all(psk, PRISM_S_NETDOWN);
	}
	rcu_read_unlock();
}

static int prism_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_DOWN:
		prism_dev_gone(dev);
		break;
	case NETDEV_UNREGISTER:
		prism_dev_gone(dev);
		prism_steer_flush_dev(dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block prism_netdev_notifier = {
	.notifier_call = prism_netdev_event,
};

/**
 * prism_dev_init() - start receiving PRISM frames and interface events
 *
 * Sets up receive steering (steer.c), registers the netdevice notifier and
 * the packet type of prism_ethertype; with cc_stamp, turns receive
 * timestamps on.
 *
 * Context: Process context, module init, after prism_ethertype is set.
 * Return: 0, or the errno of prism_steer_init() or
 * register_netdevice_notifier().
 */
int prism_dev_init(void)
{
	int err;

	err = prism_steer_init();
	if (err)
		return err;
	err = register_netdevice_notifier(&prism_netdev_notifier);
	if (err) {
		prism_steer_exit();
		return err;
	}
	prism_packet_type.type = htons(prism_ethertype);
	/*
	 * cc_stamp: frames are stamped on arrival in the receive queue, for
	 * the delays of congestion control (cc.c).  This costs every received
	 * frame of the host one clock read while the module is loaded, as a
	 * socket with SO_TIMESTAMP would.
	 */
	if (prism_cc_stamp())
		net_enable_timestamp();
	dev_add_pack(&prism_packet_type);
	return 0;
}

/**
 * prism_dev_exit() - stop receiving PRISM frames and interface events
 *
 * Waits for receivers still running.
 *
 * Context: Process context, may sleep; module exit.
 */
void prism_dev_exit(void)
{
	/* Waits for receivers still running. */
	dev_remove_pack(&prism_packet_type);
	if (prism_cc_stamp())
		net_disable_timestamp();
	/* Then the frames queued to other CPUs (steer.c). */
	prism_steer_exit();
	unregister_netdevice_notifier(&prism_netdev_notifier);
}
