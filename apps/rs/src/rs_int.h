/* SPDX-License-Identifier: MIT */
/*
 * PRISM-RS client internals shared by rs_client.c (the ABD and ABD-LOCK
 * operations) and rs_chain.c (the chains to the replicas: building,
 * sending, completions, rounds).
 */
#ifndef RS_INT_H
#define RS_INT_H

#include "rs.h"
#include "prism_util.h"

#define RS_SLOTS		512	/* chains tracked in flight */
#define RS_REP_MAX_INFLIGHT	32	/* per replica; beyond it, skip it */
#define RS_REP_HARD_INFLIGHT	48	/* also for unlocks and recycling */
/* All replicas' chains fit the slots and PRISM_MAX_OUTSTANDING's range. */
_Static_assert(RS_MAX_REPLICAS * RS_REP_HARD_INFLIGHT <= RS_SLOTS &&
	       RS_MAX_REPLICAS * RS_REP_HARD_INFLIGHT <= PRISM_WINDOW,
	       "chains in flight of one client");
#define RS_RECYCLE_MAX		1024
#define RS_SEND_BATCH		32	/* addresses per piggybacked SEND */
/* Piggyback only from this many: each SEND wakes the replica process. */
#define RS_SEND_MIN		16
#define RS_MAX_UNLOCKS		64
/*
 * A chain and a completion hold at most one block ({tag, value}: 8 + bsize
 * bytes) plus, with 16 ops, less than this: the chain and op headers, the
 * piggybacked SEND, CAS operands, per-op results and 8-byte outputs.
 */
#define RS_MSG_SLACK		2048

enum rs_kind {
	K_READ = 1,	/* ABD read phase */
	K_QUERY,	/* ABD tag query of a PUT */
	K_WRITE,	/* ABD write phase */
	K_LOCK,		/* lock + read */
	K_LWRITE,	/* fence + write + unlock */
	K_UNLOCK,
	K_SEND,		/* recycling only */
};

/* Reply state of one replica in the current round. */
enum { RP_IDLE, RP_PENDING, RP_OK, RP_FAILED };

struct rs_chain {
	__u64	ud;
	__u64	round;
	__u64	lockval;		/* K_LOCK/K_LWRITE/K_UNLOCK */
	__u64	send[RS_SEND_BATCH];	/* piggybacked recycled buffers */
	__u32	blk;
	int	next_free;
	__u8	used, kind, rep, base, nsend;
};

struct rs_rep {
	union prism_sockaddr	dst;
	struct rs_info		info;
	unsigned int		inflight;
	__u64			lock_expect;	/* stale lock value to break, or 0 */
	__u32			lock_expect_blk;	/* ... on this block */
	unsigned int		nrecycle;
	__u64			recycle[RS_RECYCLE_MAX];
};

struct rs_reply {
	int		state;
	__u64		tag;
	__u64		old;		/* K_LOCK: lock word found */
	unsigned char	*val;		/* bsize bytes, in rs_client.mem */
};

/* What a round sends; kind per replica (lock-mode GET mixes two). */
struct rs_round {
	__u8			kind[RS_MAX_REPLICAS];
	__u32			blk;
	__u64			tag;
	const unsigned char	*val;
	__u64			lv;
};

struct rs_client {
	struct rs_config	cfg;
	int			fd;		/* one socket for all replicas */
	unsigned int		n, quorum;
	__u32			bsize;
	struct rs_rep		rep[RS_MAX_REPLICAS];
	struct rs_reply		reply[RS_MAX_REPLICAS];
	struct rs_chain		chains[RS_SLOTS];
	int			free_chain;
	__u64			round;		/* active round, 0: none */
	__u64			round_seq;
	__u64			chain_seq;
	__u64			unlock_lv[RS_MAX_UNLOCKS];
	__u32			unlock_blk[RS_MAX_UNLOCKS];
	__u8			unlock_rep[RS_MAX_UNLOCKS];
	unsigned int		nunlock;
	/* 1 << kind: its chains leave recycling out (too big with it) */
	unsigned int		no_piggyback;
	/*
	 * Chains in flight per replica: work, and also unlocks/recycling.
	 * A silent replica holds at most hard_inflight of the socket's
	 * chains and receive buffer, sized for all replicas' share.
	 */
	unsigned int		max_inflight, hard_inflight;
	uint64_t		rng;
	struct rs_stats		st;
	int			debug;
	/*
	 * Buffers sized by the block size (rs_msg_size() each, 8-byte
	 * aligned), carved from one allocation, mem: the chain being built,
	 * one received completion, {tag, value} of a write, the best value
	 * of a round, and the replies' values.
	 */
	size_t			msg_size;
	unsigned char		*cbuf, *rbuf, *tagval, *best;
	unsigned char		*mem;
};

/* Bytes of a chain or a completion buffer for blocks of bsize bytes. */
static inline size_t rs_msg_size(__u32 bsize)
{
	return RS_MSG_SLACK + 8 + (((size_t)bsize + 7) & ~(size_t)7);
}

static inline long long now_ms(void)
{
	return (long long)(pu_now_ns() / 1000000);
}

/* rs_chain.c (each documented there) */
int rs_run_round(struct rs_client *c, const struct rs_round *rd,
		 unsigned int need, long long deadline);
void rs_fire(struct rs_client *c, const struct rs_round *rd);
void rs_flush_unlocks(struct rs_client *c);
int rs_reap(struct rs_client *c, int timeout_ms);

#endif /* RS_INT_H */
