/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM sockets, network namespaces and the client side of chains.
 */
#ifndef _PRISM_NET_H
#define _PRISM_NET_H

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/timer.h>
#include <linux/if_ether.h>
#include <net/net_namespace.h>
#include "prism.h"

#define PRISM_DEFAULT_TIMEOUT_MS	1000
#define PRISM_MAX_TIMEOUT_MS	60000
#define PRISM_DEFAULT_MAX_OUTSTANDING	256
#define PRISM_DEFAULT_RETRIES	8
#define PRISM_MAX_RETRIES	64

/* Retransmission timeout bounds and start value (RFC 6298 style). */
#define PRISM_RTO_INIT_US	50000
#define PRISM_RTO_MIN_US	5000
#define PRISM_RTO_MAX_US	1000000
/* Peers a socket keeps RTT state for. */
#define PRISM_MAX_PEERS		4096

/* Target side: client sessions with a reply cache, per socket. */
#define PRISM_SESSION_HASH_BITS	6
#define PRISM_MAX_SESSIONS	1024
/* A session idle this long may be dropped (well above any deadline). */
#define PRISM_SESSION_IDLE_MS	(2 * PRISM_MAX_TIMEOUT_MS)
/* Bytes of cached replies one socket may hold; past it chains are NACKed. */
#define PRISM_RCACHE_BYTES	(32U << 20)
/* Receive buffer of a new socket (SO_RCVBUF may change it). */
#define PRISM_DEFAULT_RCVBUF	(1024 * 1024)
/* Largest sendmsg() payload accepted; one frame bounds it far lower. */
#define PRISM_MAX_SUBMIT	65536

extern u16 prism_ethertype;

/* Counter indexes: PRISM_STAT_ID for each X(ID, name) of PRISM_STATS_LIST. */
#define PRISM_STAT_ENUM(ID, name)	PRISM_STAT_##ID,
enum prism_stat {
	PRISM_STATS_LIST(PRISM_STAT_ENUM)
	PRISM_STAT_NR,
};

#undef PRISM_STAT_ENUM

struct prism_netns_stats {
	u64	c[PRISM_STAT_NR];
};

/*
 * Answers to chains refused before any state, per netns: at most
 * PRISM_REFUSALS_BURST per PRISM_REFUSALS_INTERVAL (1000/s on average).
 * They are no larger than the requests (no amplification); the bound keeps
 * a flood from costing the target more than that, while the burst lets the
 * clients of a dead server (several full windows of 512) still fail fast
 * with NO_ENDPOINT.
 */
#define PRISM_REFUSALS_BURST	5000
#define PRISM_REFUSALS_INTERVAL	(5 * HZ)

/* Per network namespace state. */
struct prism_net {
	struct xarray			eps;	/* ep id -> bound socket, RCU */
	/*
	 * Held around changes of eps and their events (after the socket
	 * lock): a reused id's ENDPOINT_DEL comes before its next NEW.
	 */
	struct mutex			ep_mutex;
	u32				next_ep;	/* next ephemeral id */
	struct prism_netns_stats __percpu *stats;
	atomic64_t			pinned_pages;	/* by all its sockets */
	struct ratelimit_state		refusals;	/* prism_refuse() */
};

/* Client side: what a socket knows of one target endpoint. */
struct prism_peer {
	struct hlist_node	node;		/* prism_sock.peers */
	u8			mac[ETH_ALEN];
	u32			ep;
	/* Under the reqs lock: outstanding chains (oldest first), counters. */
	struct list_head	reqs;
	u64			chains;
	u64			retransmits;
	/* Under prism_sock.peer_lock. */
	u32			srtt_us;	/* 0: no sample yet */
	u32			rttvar_us;
	u32			rto_us;
	u64			answered;
	u64			timeouts;
	u64			nacks;
};

struct prism_sock {
	struct sock		sk;		/* first: sk_alloc() */
	bool			bound;		/* in prism_net.eps */
	bool			open_send;	/* PRISM_OPEN_SEND */
	int			ifindex;
	u32			ep;

	struct prism_mem	mem;		/* server side: regions, free lists */

	/* Client side: outstanding chains by request id. */
	struct xarray		reqs;		/* under its xa_lock_bh */
	u64			next_req_id;	/* under the reqs lock */
	u64			id_base;	/* wire request id = id + id_base */
	u32			session;
	atomic_t		outstanding;
	u32			max_outstanding;
	u32			timeout_ms;
	u32			retries;
	spinlock_t		peer_lock;	/* peers, peer RTT state */
	DECLARE_HASHTABLE(peers, 6);
	u32			npeers;

	/* Target side: reply caches of client sessions, admission. */
	spinlock_t		sess_lock;	/* sessions writers */
	DECLARE_HASHTABLE(sessions, PRISM_SESSION_HASH_BITS);
	u32			nsessions;
	atomic_t		rcache_bytes;	/* cached replies, all sessions */
	u32			serve_rate;	/* chains/s, 0: unlimited */
	u64			serve_tokens;	/* under sess_lock; one chain = HZ */
	unsigned long		serve_stamp;

	atomic64_t		stats[PRISM_STAT_NR];
	struct pid		*owner;		/* process that created it */
	/* Memory cgroup of the creator: pays for the state of its clients. */
	struct mem_cgroup	*memcg;
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
struct sk_buff *prism_alloc_frame(struct net_device *dev, u32 len, gfp_t gfp);
void prism_xmit_frame(struct sk_buff *skb, struct net_device *dev,
		      const u8 *dst_mac);
int prism_queue_send(struct prism_sock *psk, const struct sockaddr_prism *src,
		     const void *data, u32 len);

/* netlink.c */
int prism_netlink_init(void);
void prism_netlink_exit(void);

/* What an event tells about a region or free list (nothing secret). */
struct prism_nl_region_ev {
	u64	len;
	u64	pages;
	u32	access;
};

struct prism_nl_fl_ev {
	u32	id;
	u32	buf_size;
	u32	capacity;
};

/*
 * Multicast an event (command PRISM_CMD_*_NEW/DEL) to the "events" group
 * of net.  Process context (allocates with GFP_KERNEL); nothing happens
 * when nobody listens.
 */
void prism_nl_notify_ep(struct net *net, u8 cmd, u32 ep, int ifindex);
void prism_nl_notify_region(struct net *net, u8 cmd, u32 ep,
			    const struct prism_nl_region_ev *ev);
void prism_nl_notify_fl(struct net *net, u8 cmd, u32 ep,
			const struct prism_nl_fl_ev *ev);

/*
 * af_prism.c, socket locked, psk bound (otherwise nothing is sent): the
 * event of region rkey / free list id as they are now.  For a DEL, call
 * prism_*_snap() before the removal and prism_notify_*_ev() after.
 */
bool prism_region_snap(struct prism_sock *psk, u64 rkey,
		       struct prism_nl_region_ev *ev);
bool prism_fl_snap(struct prism_sock *psk, u32 id, struct prism_nl_fl_ev *ev);
void prism_notify_fl(struct prism_sock *psk, u8 cmd, u32 id);

/* rcache.c */
void prism_serve_request(struct net *net, struct sk_buff *skb,
			 const struct prism_whdr *hdr, const u8 *src_mac);
void prism_sessions_destroy(struct prism_sock *psk);

/* client.c */
int prism_client_submit(struct prism_sock *psk, const struct sockaddr_prism *dst,
			const u8 *ubuf, u32 len);
void prism_client_response(struct prism_sock *psk, struct sk_buff *skb,
			   const struct prism_whdr *hdr, const u8 *src_mac);
/* Completes every outstanding chain with status (NETDOWN, ABORTED). */
void prism_client_fail_all(struct prism_sock *psk, u8 status);
/* Socket teardown: drops outstanding chains without completing them. */
void prism_client_release(struct prism_sock *psk);
void prism_client_init(struct prism_sock *psk);
void prism_client_destroy(struct prism_sock *psk);
struct prism_peer *prism_peer_find(struct prism_sock *psk, const u8 *mac,
				   u32 ep);

#endif /* _PRISM_NET_H */
