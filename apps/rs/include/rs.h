/* SPDX-License-Identifier: MIT */
/*
 * PRISM-RS: a linearizable replicated block store over PRISM.
 *
 * n = 2f+1 replica daemons (rs_replica) each export, in one registered
 * region:
 *   meta[blocks]	16 bytes per block: { __u64 addr; __u64 tag; }, addr
 *			names an immutable buffer holding { tag, value };
 *			as a little-endian 128-bit number the tag is the
 *			most significant half, so CAS_GT on it orders writes
 *   lock[blocks]	ABD-LOCK baseline: { __u64 lock; __u64 tag; value }
 *   buffers		(8 + bsize)-byte buffers on a PRISM free list
 *
 * Clients (rs_client_*) run multi-writer ABD (Lynch-Shvartsman) with
 * one-sided chains, or the lock-based baseline, and need f+1 answers per
 * phase.  Tags are (logical timestamp << 16) | client id.
 */
#ifndef RS_H
#define RS_H

#include <stddef.h>
#include <stdint.h>

#include "liburing-prism.h"
#include "prism_util.h"	/* clock, Zipf, random numbers */

#define RS_MAX_REPLICAS		7
#define RS_DEFAULT_BSIZE	512u
/*
 * Largest block: 64 KiB.  A write is still one chain per replica (the
 * block is one ALLOC op, a GET one indirect READ): blocks larger than a
 * frame rely on the module's segmentation (ops up to PRISM_MAX_OP_DATA);
 * before it, a chain or an answer over one frame fails with EMSGSIZE.
 */
#define RS_MAX_BSIZE		65536u
#define RS_TAG_CID_BITS		16
#define RS_TAG(ts, cid)		(((__u64)(ts) << RS_TAG_CID_BITS) | (cid))
#define RS_TAG_TS(tag)		((tag) >> RS_TAG_CID_BITS)

_Static_assert(8 + RS_MAX_BSIZE <= PRISM_MAX_OP_DATA,
	       "{tag, value} of a block is one op");

/* What a replica publishes in its info file (one line of key=value). */
struct rs_info {
	__u8	mac[6];
	__u32	ep;
	__u64	rkey;
	__u64	meta;		/* address of meta[0] */
	__u64	locks;		/* address of lock slot 0 */
	__u32	blocks;
	__u32	bsize;		/* value bytes per block */
	__u32	fl;		/* free list of (8 + bsize)-byte buffers */
	char	addr[80];	/* UDP: "IP:PORT/EP"; empty: Ethernet (mac, ep) */
	char	keys[108];	/* keyed region: its key socket (pu_keys.h) */
};

int rs_info_parse(const char *line, struct rs_info *ri);
int rs_info_format(const struct rs_info *ri, char *buf, size_t len);
/* The replica's address as a destination (UDP if it has addr). */
int rs_info_dst(const struct rs_info *ri, union prism_sockaddr *dst);
/* Read the first line of path; -errno on failure. */
int rs_info_load(const char *path, struct rs_info *ri);

/* Bytes of one lock-mode slot: lock word, tag, value (8-byte aligned). */
static inline __u64 rs_lock_stride(__u32 bsize)
{
	return 16 + (((__u64)bsize + 7) & ~(__u64)7);
}

enum rs_mode {
	RS_MODE_ABD = 0,	/* PRISM-RS: ALLOC + CAS_GT, lock-free */
	RS_MODE_LOCK = 1,	/* ABD-LOCK baseline */
};

/*
 * Deliberately broken clients, so tests can show the linearizability
 * checker catches real bugs.
 */
#define RS_BROKEN_NO_WRITEBACK	(1u << 0)	/* GET skips the write-back phase */
#define RS_BROKEN_ONE_REPLY	(1u << 1)	/* every phase waits for 1 reply */
/* ABD-LOCK: _exit() right after locking a majority (lease recovery test) */
#define RS_BROKEN_DIE_LOCKED	(1u << 2)

struct rs_config {
	const char	*ifname;
	unsigned int	n;			/* replicas, 2f+1 */
	/*
	 * Answers a phase waits for; 0: a majority of n.  A replica that
	 * rejoins reads its n - 1 peers (an even number) with f + 1.
	 */
	unsigned int	quorum;
	struct rs_info	rep[RS_MAX_REPLICAS];
	__u16		client_id;		/* 1..65535, unique among clients */
	enum rs_mode	mode;
	unsigned int	chain_timeout_ms;	/* per chain (0: 1000) */
	unsigned int	op_timeout_ms;		/* whole GET/PUT (0: 10000) */
	unsigned int	lease_ms;		/* lock lease (0: 2000) */
	unsigned int	broken;			/* RS_BROKEN_* */
	unsigned int	seed;
};

struct rs_stats {
	__u64	gets, puts, failed;
	__u64	writebacks;		/* GETs that needed a write-back */
	__u64	cas_lost;		/* ABD: CAS_GT found a newer tag */
	__u64	lock_retries;		/* lock rounds that missed a majority */
	__u64	lock_breaks;		/* expired leases broken */
	__u64	recycled;		/* buffers handed back to replicas */
	__u64	chain_errors;		/* chains not OK (TIMEOUT, NACK, ...) */
};

struct rs_client;

int rs_client_open(struct rs_client **cp, const struct rs_config *cfg);
/*
 * Wait (at most a chain timeout + 0.5 s) for chains still in flight and
 * send pending buffer recycling; rs_client_close() does it too.
 */
void rs_client_drain(struct rs_client *c);
void rs_client_close(struct rs_client *c);
/*
 * GET: val receives bsize bytes (rs_client_bsize()).  PUT: writes bsize
 * bytes.  0 on success; -EIO/-ETIMEDOUT when no majority answered in time: a PUT that failed
 * may still take effect later (its outcome is unknown).
 */
int rs_get(struct rs_client *c, __u32 block, void *val);
int rs_put(struct rs_client *c, __u32 block, const void *val);
/*
 * ABD GET that also gives the tag of the value (0: never written);
 * -EOPNOTSUPP in lock mode.  For a replica's state transfer.
 */
int rs_get_tagged(struct rs_client *c, __u32 block, void *val, __u64 *tag);
/*
 * Replica r restarted and published a new info line: later chains go to
 * ri.  Buffers of the old replica waiting to be recycled are dropped (the
 * new one would take them for its own).  -EINVAL if r is out of range or
 * ri's blocks or bsize differ.
 */
int rs_client_set_replica(struct rs_client *c, unsigned int r,
			  const struct rs_info *ri);
const struct rs_stats *rs_client_stats(const struct rs_client *c);
__u32 rs_client_bsize(const struct rs_client *c);


#endif /* RS_H */
