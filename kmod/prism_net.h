/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM sockets, network namespaces and the client side of chains.
 */
#ifndef _PRISM_NET_H
#define _PRISM_NET_H

#include <linux/hashtable.h>
#include <linux/timer.h>
#include <linux/if_ether.h>
#include <net/net_namespace.h>
#include "prism.h"

#define PRISM_EP_HASH_BITS	8
/* Endpoint ids handed out by bind() with ep 0. */
#define PRISM_EP_EPHEMERAL_MIN	0x80000000U
#define PRISM_DEFAULT_TIMEOUT_MS	1000
#define PRISM_MAX_TIMEOUT_MS	600000
#define PRISM_DEFAULT_MAX_OUTSTANDING	1024
/* Largest sendmsg() payload accepted; one frame bounds it far lower. */
#define PRISM_MAX_SUBMIT	65536

extern u16 prism_ethertype;

/* Counter indexes: the order of struct prism_stats. */
enum prism_stat {
	PRISM_STAT_CHAINS_SENT,
	PRISM_STAT_CHAINS_COMPLETED,
	PRISM_STAT_CHAINS_TIMED_OUT,
	PRISM_STAT_CHAINS_SERVED,
	PRISM_STAT_OPS_SERVED,
	PRISM_STAT_OPS_FAILED,
	PRISM_STAT_SENDS_RECEIVED,
	PRISM_STAT_RX_DROPPED,
	PRISM_STAT_NR,
};

struct prism_netns_stats {
	u64	c[PRISM_STAT_NR];
};

/* Per network namespace state. */
struct prism_net {
	spinlock_t			ep_lock;	/* eps writers, next_ep */
	DECLARE_HASHTABLE(eps, PRISM_EP_HASH_BITS);	/* bound sockets, RCU */
	u32				next_ep;
	struct prism_netns_stats __percpu *stats;
};

struct prism_sock {
	struct sock		sk;		/* first: sk_alloc() */
	struct hlist_node	ep_node;	/* prism_net.eps */
	bool			bound;
	int			ifindex;
	u32			ep;

	struct prism_mem	mem;		/* server side: regions, free lists */

	/* Client side: outstanding chains by request id. */
	struct xarray		reqs;
	u32			next_req_id;
	atomic_t		outstanding;
	u32			max_outstanding;
	u32			timeout_ms;

	atomic64_t		stats[PRISM_STAT_NR];
	struct pid		*owner;		/* process that created it */
};

static inline struct prism_sock *prism_sk(struct sock *sk)
{
	return container_of(sk, struct prism_sock, sk);
}

/* af_prism.c */
struct prism_net *prism_pernet(struct net *net);
struct prism_sock *prism_ep_lookup(struct net *net, u32 ep);

/* stats.c */
void prism_stat_add(struct net *net, struct prism_sock *psk,
		    enum prism_stat idx, u64 n);
void prism_stats_fill(struct prism_sock *psk, struct prism_stats *out);
int prism_proc_init(struct net *net);
void prism_proc_exit(struct net *net);

/* dev.c */
int prism_dev_init(void);
void prism_dev_exit(void);
struct sk_buff *prism_alloc_frame(struct net_device *dev, u32 body_len);
void prism_xmit_frame(struct sk_buff *skb, struct net_device *dev,
		      const u8 *dst_mac);
int prism_queue_send(struct prism_sock *psk, const struct sockaddr_prism *src,
		     const void *data, u32 len);

/* netlink.c */
int prism_netlink_init(void);
void prism_netlink_exit(void);

/* client.c */
int prism_client_submit(struct prism_sock *psk, const struct sockaddr_prism *dst,
			const u8 *ubuf, u32 len);
void prism_client_response(struct prism_sock *psk, struct sk_buff *skb,
			   const struct prism_whdr *hdr, const u8 *src_mac);
/* Completes every outstanding chain with status (NETDOWN, ABORTED). */
void prism_client_fail_all(struct prism_sock *psk, u8 status);
/* Socket teardown: drops outstanding chains without completing them. */
void prism_client_release(struct prism_sock *psk);

#endif /* _PRISM_NET_H */
