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
#include "cc.h"
#include "link.h"

#define PRISM_DEFAULT_TIMEOUT_MS	1000
#define PRISM_MAX_TIMEOUT_MS	60000
#define PRISM_DEFAULT_MAX_OUTSTANDING	256
#define PRISM_DEFAULT_RETRIES	8
#define PRISM_MAX_RETRIES	64

/* Retransmission timeout bounds and start value (RFC 6298 style). */
#define PRISM_RTO_INIT_US	50000
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
#define PRISM_DEFAULT_RCVBUF	(4 << 20)
/* Largest sendmsg() payload accepted: a chain of 16 ops and their data. */
#define PRISM_MAX_SUBMIT	(sizeof(struct prism_chain) + \
				 PRISM_MAX_CHAIN * sizeof(struct prism_op) + \
				 PRISM_MAX_CHAIN_DATA)

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

struct prism_udp_rts;

/**
 * struct prism_net - per network namespace state
 * @eps: endpoint id -> bound &struct prism_sock; readers under RCU
 * @ep_mutex: held around changes of @eps and their events (after the socket
 *            lock): a reused id's ENDPOINT_DEL comes before its next NEW
 * @next_ep: next ephemeral endpoint id
 * @stats: per-CPU counters of the namespace (/proc/net/prism)
 * @pinned_pages: pages pinned by the regions of all its sockets
 * @refusals: rate limit of the answers to refused chains (prism_refuse())
 * @udp4: UDP mode: the namespace's IPv4 socket on udp_port (udp.c), from
 *        the first bind of a UDP endpoint until the namespace goes
 * @udp6: the same for IPv6 (NULL if the namespace has no IPv6)
 * @udp_rt: the routes UDP frames last took, per CPU (udp.c); set with
 *          @udp4, read by those who saw @udp4
 */
struct prism_net {
	struct xarray			eps;
	struct mutex			ep_mutex;	/* changes of eps, events */
	u32				next_ep;
	struct prism_netns_stats __percpu *stats;
	atomic64_t			pinned_pages;
	struct ratelimit_state		refusals;
	struct socket __rcu		*udp4;
	struct socket __rcu		*udp6;
	struct prism_udp_rts __percpu	*udp_rt;
};

/**
 * struct prism_peer - client side: what a socket knows of one target endpoint
 * @node: in &prism_sock.peers
 * @addr: link address of the target
 * @ep: endpoint id of the target
 * @reqs: outstanding chains to the target, oldest first (reqs lock)
 * @chains: chains sent to the target (reqs lock)
 * @retransmits: retransmissions to the target (reqs lock)
 * @rtt: RTT estimate and timeout (&prism_sock.peer_lock; the timeout is
 *       read with READ_ONCE)
 * @answered: chains the target answered (&prism_sock.peer_lock)
 * @timeouts: chains to the target that timed out (&prism_sock.peer_lock)
 * @nacks: NACKs received from the target (&prism_sock.peer_lock)
 * @seg_reorder: reorder threshold learnt by multi-frame chains to the
 *               target (seg.h; READ_ONCE/WRITE_ONCE)
 * @seg_stamp: jiffies of the last grant or segment from the target that
 *             moved a chain on (READ_ONCE/WRITE_ONCE)
 * @cc: congestion window of the target (reqs lock)
 * @cc_cuts: reductions of @cc (reqs lock)
 * @held: chains to the target waiting for room in a window, oldest first
 *        (reqs lock)
 * @nheld: chains in @held (reqs lock; READ_ONCE without it)
 * @ready_node: in &prism_sock.cc_ready while @held is not empty (reqs lock)
 */
struct prism_peer {
	struct hlist_node	node;
	struct prism_paddr	addr;
	u32			ep;
	struct list_head	reqs;
	u64			chains;
	u64			retransmits;
	struct prism_rtt	rtt;
	u64			answered;
	u64			timeouts;
	u64			nacks;
	u32			seg_reorder;
	unsigned long		seg_stamp;
	struct prism_cc		cc;
	u64			cc_cuts;
	struct list_head	held;
	u32			nheld;
	struct list_head	ready_node;
};

/**
 * struct prism_sock - a PRISM socket
 * @sk: the socket; first member (sk_alloc())
 * @bound: in &prism_net.eps
 * @open_send: PRISM_OPEN_SEND: serves chains of SEND ops only without a
 *             valid rkey
 * @kind: what the socket is bound to: PRISM_ADDR_ETH or PRISM_ADDR_UDP
 * @ifindex: PRISM_ADDR_ETH: interface the socket is bound to
 * @laddr: PRISM_ADDR_UDP: local address the socket is bound to (kind
 *         PRISM_LINK_UDP4 or PRISM_LINK_UDP6, address in local4/local6),
 *         or none (kind PRISM_LINK_NONE: any address, both families)
 * @ep: endpoint id the socket is bound to
 * @mem: server side: regions and free lists
 * @reqs: client side: outstanding chains by request id, under its
 *        xa_lock_bh() (the reqs lock)
 * @next_req_id: id of the next chain (reqs lock)
 * @id_base: wire request id = id + @id_base
 * @session: random value every response must carry
 * @outstanding: chains submitted and not yet freed
 * @max_outstanding: PRISM_MAX_OUTSTANDING
 * @timeout_ms: PRISM_TIMEOUT_MS
 * @retries: PRISM_RETRIES
 * @peer_lock: protects @peers, @npeers and the RTT state of the peers
 * @peers: &struct prism_peer by link address and endpoint id
 * @npeers: entries in @peers
 * @cc: client side: congestion window of the socket, all targets (reqs
 *      lock)
 * @cc_ready: client side: peers with chains waiting for a window (reqs
 *            lock)
 * @nheld: client side: chains waiting for a window (reqs lock; read
 *         without it as a hint)
 * @sess_lock: held by writers of @sessions, and for @serve_tokens and
 *             @serve_stamp
 * @sessions: target side: client sessions and their reply caches
 * @nsessions: entries in @sessions
 * @rcache_bytes: bytes of cached replies, all sessions
 * @reasm_bytes: bytes of multi-frame requests in reassembly, all sessions
 * @reasm_timer: drops reassemblies past their chain's deadline
 * @serve_rate: PRISM_SERVE_RATE: chains/s, 0: unlimited
 * @serve_tokens: token bucket of @serve_rate; one chain = HZ
 * @serve_stamp: jiffies of the last refill of @serve_tokens
 * @key_mutex: protects @keys and @nkeys
 * @keys: client side: derived keys attached (PRISM_KEY, keyed.c)
 * @nkeys: entries in @keys
 * @stats: counters of the socket (PRISM_STATS), &enum prism_stat order
 * @owner: process that created the socket
 * @memcg: memory cgroup of the creator: pays for the state of its clients
 */
struct prism_sock {
	struct sock		sk;
	bool			bound;
	bool			open_send;
	u8			kind;
	int			ifindex;
	struct prism_paddr	laddr;
	u32			ep;

	struct prism_mem	mem;

	struct xarray		reqs;
	u64			next_req_id;
	u64			id_base;
	u32			session;
	atomic_t		outstanding;
	u32			max_outstanding;
	u32			timeout_ms;
	u32			retries;
	spinlock_t		peer_lock;	/* peers, peer RTT state */
	DECLARE_HASHTABLE(peers, 6);
	u32			npeers;
	struct prism_cc		cc;
	struct list_head	cc_ready;
	u32			nheld;

	spinlock_t		sess_lock;	/* sessions writers, serve_* */
	DECLARE_HASHTABLE(sessions, PRISM_SESSION_HASH_BITS);
	u32			nsessions;
	atomic_t		rcache_bytes;
	atomic_t		reasm_bytes;
	struct timer_list	reasm_timer;
	u32			serve_rate;
	u64			serve_tokens;
	unsigned long		serve_stamp;

	struct mutex		key_mutex;	/* keys, nkeys */
	struct list_head	keys;
	u32			nkeys;

	atomic64_t		stats[PRISM_STAT_NR];
	struct pid		*owner;
	struct mem_cgroup	*memcg;
};

static inline struct prism_sock *prism_sk(struct sock *sk)
{
	return container_of(sk, struct prism_sock, sk);
}

/* af_prism.c */
struct prism_net *prism_pernet(struct net *net);
struct prism_sock *prism_ep_lookup(struct net *net, u32 ep);
struct prism_sock *prism_frame_psk(struct net *net,
				   const struct prism_paddr *src,
				   const struct prism_whdr *hdr);
int prism_queue_send(struct prism_sock *psk, const struct prism_paddr *src,
		     u32 src_ep, const void *data, u32 len);

/* addr.c */

/**
 * struct prism_bind_link - what bind() checked, before the socket lock
 * @kind: PRISM_ADDR_ETH or PRISM_ADDR_UDP
 * @ifindex: PRISM_ADDR_ETH: the interface
 * @laddr: PRISM_ADDR_UDP: the local address (as &prism_sock.laddr)
 * @ep: the endpoint id asked for (0: an ephemeral one)
 */
struct prism_bind_link {
	u8			kind;
	int			ifindex;
	struct prism_paddr	laddr;
	u32			ep;
};

int prism_bind_addr(struct sock *sk, const struct sockaddr *uaddr,
		    int addr_len, struct prism_bind_link *b);
int prism_getname(struct socket *sock, struct sockaddr *uaddr, int peer);
int prism_dst_addr(const struct prism_sock *psk, const void *name, int len,
		   struct prism_paddr *pa, u32 *ep);

/* stats.c */
void prism_stat_add(struct net *net, struct prism_sock *psk,
		    enum prism_stat idx, u64 n);
void prism_stats_fill(struct prism_sock *psk, struct prism_stats *out);
int prism_proc_init(struct net *net);
void prism_proc_exit(struct net *net);

/* dev.c */
int prism_dev_init(void);
void prism_dev_exit(void);

/* link.c */
u32 prism_stamp_age_us(ktime_t stamp);
int prism_paddr_sockaddr(const struct prism_paddr *pa, u32 ep, int family,
			 void *out);

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

/* Events of the "events" multicast group of a netns. */
void prism_nl_notify_ep(struct net *net, u8 cmd, u32 ep, int ifindex);
void prism_nl_notify_region(struct net *net, u8 cmd, u32 ep,
			    const struct prism_nl_region_ev *ev);
void prism_nl_notify_fl(struct net *net, u8 cmd, u32 ep,
			const struct prism_nl_fl_ev *ev);

/* af_prism.c: events of the memory of a socket. */
bool prism_region_snap(struct prism_sock *psk, u64 rkey,
		       struct prism_nl_region_ev *ev);
bool prism_fl_snap(struct prism_sock *psk, u32 id, struct prism_nl_fl_ev *ev);
void prism_notify_fl(struct prism_sock *psk, u8 cmd, u32 id);

/* serve.c */
void prism_serve_request(struct net *net, struct sk_buff *skb,
			 const struct prism_whdr *hdr, const struct prism_paddr *src);

/* rcache.c */
void prism_sessions_init(struct prism_sock *psk);
void prism_sessions_destroy(struct prism_sock *psk);

/* serve_seg.c */
void prism_serve_sreq(struct net *net, struct sk_buff *skb,
		      const struct prism_whdr *hdr, const struct prism_paddr *src);
void prism_serve_seg(struct net *net, struct sk_buff *skb,
		     const struct prism_whdr *hdr, const struct prism_paddr *src);
void prism_serve_grant(struct net *net, struct sk_buff *skb,
		       const struct prism_whdr *hdr, const struct prism_paddr *src);

/* client.c */
int prism_client_submit(struct prism_sock *psk, const struct prism_paddr *dst,
			u32 dst_ep, u8 **ubufp, u32 len,
			const struct prism_outbuf *uob);
void prism_client_response(struct prism_sock *psk, struct sk_buff *skb,
			   const struct prism_whdr *hdr, const struct prism_paddr *src);
void prism_client_seg(struct prism_sock *psk, struct sk_buff *skb,
		      const struct prism_whdr *hdr, const struct prism_paddr *src);
void prism_client_grant(struct prism_sock *psk, struct sk_buff *skb,
			const struct prism_whdr *hdr, const struct prism_paddr *src);
void prism_client_fail_all(struct prism_sock *psk, u8 status);
void prism_client_release(struct prism_sock *psk);
void prism_client_init(struct prism_sock *psk);
void prism_client_destroy(struct prism_sock *psk);
struct prism_peer *prism_peer_find(struct prism_sock *psk,
				   const struct prism_paddr *addr, u32 ep);

#endif /* _PRISM_NET_H */
