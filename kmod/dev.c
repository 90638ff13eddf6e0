// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM frames on raw Ethernet (link.h): receive (softirq), transmit, the
 * MTU, and reacting to interfaces going away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include "prism_net.h"
#include "link.h"
#include "steer.h"

/**
 * prism_eth_xmit() - send a PRISM frame in an Ethernet frame
 * @net: network namespace of the interface
 * @skb: frame whose data is a complete PRISM header and body; consumed
 * @to: the peer: interface and MAC address
 *
 * Adds the Ethernet header and queues the frame on the interface.  A frame
 * whose interface is gone or down, or whose link-layer header cannot be
 * built, is dropped (tx_dropped).
 *
 * Context: Process context or softirq (prism_link_xmit()).
 */
void prism_eth_xmit(struct net *net, struct sk_buff *skb,
		    const struct prism_paddr *to)
{
	struct net_device *dev;

	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, to->ifindex);
	if (!dev || !netif_running(dev) ||
	    skb_cow_head(skb, LL_RESERVED_SPACE(dev)))
		goto drop;
	skb->dev = dev;
	skb->protocol = htons(prism_ethertype);
	if (dev_hard_header(skb, dev, prism_ethertype, to->mac, dev->dev_addr,
			    skb->len) < 0)
		goto drop;
	dev_queue_xmit(skb);
	rcu_read_unlock();
	return;
drop:
	rcu_read_unlock();
	prism_stat_add(net, NULL, PRISM_STAT_TX_DROPPED, 1);
	kfree_skb(skb);
}

/**
 * prism_eth_mtu() - the largest PRISM frame an interface carries
 * @net: network namespace of the interface
 * @to: the peer: its interface
 *
 * Context: Process context or softirq.
 * Return: the interface MTU, or -ENETDOWN if it is gone or down.
 */
int prism_eth_mtu(struct net *net, const struct prism_paddr *to)
{
	struct net_device *dev;
	int mtu = -ENETDOWN;

	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, to->ifindex);
	if (dev && netif_running(dev))
		mtu = READ_ONCE(dev->mtu);
	rcu_read_unlock();
	return mtu;
}

static int prism_rcv(struct sk_buff *skb, struct net_device *dev,
		     struct packet_type *pt, struct net_device *orig_dev)
{
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	return prism_link_rcv(skb);
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
