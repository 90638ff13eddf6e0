// SPDX-License-Identifier: MIT
/*
 * PRISM-RS client: multi-writer ABD over one-sided PRISM chains, and the
 * ABD-LOCK baseline.
 *
 * Every phase ("round") sends one chain to each replica and returns as
 * soon as f+1 replicas answered in a
 * way that counts (RS_BROKEN_ONE_REPLY: 1).  Chains of a round still in
 * flight when it ends become orphans: their completions are still
 * processed (buffer recycling, releasing late lock acquisitions) but no
 * longer affect an operation.
 *
 * One PRISM socket for all replicas; completions are told apart by
 * user_data (chain slot and replica) and their source address.  The
 * module keeps the request-id window, ack floor and RTT per target, so
 * chains stuck at a dead replica block only chains to it.  What the
 * replicas share, the socket's chains in flight (PRISM_MAX_OUTSTANDING)
 * and its receive buffer, is sized for every replica's cap of chains in
 * flight, so a dead replica holding its share leaves the others theirs.
 *
 * ABD (lock-free):
 *   GET  read phase:  READ|INDIRECT meta[b] -> { tag, value } at all
 *        write-back:  only if the answers disagree, write phase with the
 *                     max (tag, value)
 *   PUT  query phase: READ meta[b] (16 bytes: addr, tag); new tag =
 *                     (max ts + 1, client id)
 *        write phase: WRITE tag -> scratch[8]; ALLOC { tag, value } ->
 *                     scratch[0] (its address); CAS_GT meta[b] with
 *                     compare = swap = scratch[0..16), compare mask on the
 *                     tag half only; READ scratch[0] (the new buffer).
 *                     Success or CMP_FAILED both acknowledge: afterwards
 *                     the replica holds a tag >= ours.
 *   The buffer the CAS replaced (or ours, if the CAS lost) is garbage; its
 *   address is SENT back to the replica, piggybacked on the next chain to
 *   it, and the replica posts it to its free list (the module hands it out
 *   only after a grace period, so concurrent indirect READs stay safe).
 *   A chain that timed out has an unknown outcome: its buffers are leaked
 *   rather than risk recycling one twice.
 *
 * ABD-LOCK (baseline): lock word per block at every replica; a majority of
 *   locks is needed.  Lock phase: CAS_EQ lock 0 -> lv, then (CONDITIONAL)
 *   READ { tag, value }.  Write phase to the locked replicas: CAS_EQ lock
 *   lv -> lv (fence), WRITE { tag, value }, CAS_EQ lock lv -> 0.  A
 *   missed majority releases what it got and backs off (random,
 *   exponential).  lv = (lease expiry in ms of CLOCK_MONOTONIC << 16 |
 *   client id): a lock whose expiry has passed may be broken with CAS_EQ
 *   old -> new, so a client that dies holding locks blocks a block for
 *   at most one lease.  The fence keeps a holder whose lease was broken
 *   from writing afterwards.  This assumes clients share a clock (one
 *   host here) or bounded skew folded into the lease.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rs_int.h"
#include "pu_keys.h"

static __u64 rnd(struct rs_client *c)
{
	/* backoff jitter only */
	return pu_rng_next(&c->rng);
}

static unsigned int need_of(const struct rs_client *c)
{
	return (c->cfg.broken & RS_BROKEN_ONE_REPLY) ? 1 : c->quorum;
}

/* Index of the OK reply with the largest tag, -1 if none. */
static int max_reply(const struct rs_client *c)
{
	unsigned int r;
	int best = -1;

	for (r = 0; r < c->n; r++)
		if (c->reply[r].state == RP_OK &&
		    (best < 0 || c->reply[r].tag > c->reply[best].tag))
			best = (int)r;
	return best;
}

static void all_kinds(const struct rs_client *c, struct rs_round *rd, __u8 kind)
{
	unsigned int r;

	for (r = 0; r < c->n; r++)
		rd->kind[r] = kind;
}

static int op_failed(struct rs_client *c, int err)
{
	c->st.failed++;
	rs_flush_unlocks(c);
	return err;
}

/* ABD GET: read phase, then write-back when the answers disagree. */
static int abd_get(struct rs_client *c, __u32 blk, void *val, __u64 *tagp,
		   long long deadline)
{
	unsigned char *best = c->best;
	struct rs_round rd;
	unsigned int r;
	int b, agree = 1;
	__u64 tag;

	memset(&rd, 0, sizeof(rd));
	all_kinds(c, &rd, K_READ);
	rd.blk = blk;
	if (rs_run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
		return op_failed(c, -EIO);
	b = max_reply(c);
	tag = c->reply[b].tag;
	memcpy(best, c->reply[b].val, c->bsize);
	for (r = 0; r < c->n; r++)
		if (c->reply[r].state == RP_OK && c->reply[r].tag != tag)
			agree = 0;
	/*
	 * If f+1 replicas already hold the max tag, a majority has it and
	 * the write-back can be skipped; otherwise ABD must write it back
	 * before returning, or a later GET could see an older value.
	 */
	if (!agree && !(c->cfg.broken & RS_BROKEN_NO_WRITEBACK)) {
		c->st.writebacks++;
		all_kinds(c, &rd, K_WRITE);
		rd.tag = tag;
		rd.val = best;
		if (rs_run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
			return op_failed(c, -EIO);
	}
	memcpy(val, best, c->bsize);
	if (tagp)
		*tagp = tag;
	return 0;
}

/* ABD PUT: query the max tag, then write phase with a larger one. */
static int abd_put(struct rs_client *c, __u32 blk, const void *val,
		   long long deadline)
{
	struct rs_round rd;

	memset(&rd, 0, sizeof(rd));
	all_kinds(c, &rd, K_QUERY);
	rd.blk = blk;
	if (rs_run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
		return op_failed(c, -EIO);
	rd.tag = RS_TAG(RS_TAG_TS(c->reply[max_reply(c)].tag) + 1,
			c->cfg.client_id);
	all_kinds(c, &rd, K_WRITE);
	rd.val = val;
	if (rs_run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
		return op_failed(c, -EIO);
	return 0;
}

static void backoff(struct rs_client *c, unsigned int attempt)
{
	long max_us = 200L << (attempt < 7 ? attempt : 7);	/* <= 25.6 ms */
	struct timespec ts;
	long us = (long)(rnd(c) % (__u64)max_us);

	ts.tv_sec = 0;
	ts.tv_nsec = us * 1000;
	nanosleep(&ts, NULL);
}

/*
 * ABD-LOCK: lock a majority (reading { tag, value } in the same chain),
 * then write (PUT, or GET write-back) and unlock.  put_val NULL: GET.
 */
static int lock_op(struct rs_client *c, __u32 blk, void *get_val,
		   const void *put_val, long long deadline)
{
	unsigned char *best = c->best;
	unsigned int r, attempt, need = need_of(c);
	struct rs_round rd, rel;
	int b, got;
	__u64 tag;

	memset(&rd, 0, sizeof(rd));
	rd.blk = blk;
	for (attempt = 0;; attempt++) {
		all_kinds(c, &rd, K_LOCK);
		rd.lv = RS_TAG(now_ms() + c->cfg.lease_ms, c->cfg.client_id);
		got = rs_run_round(c, &rd, need, deadline);
		rs_flush_unlocks(c);
		if (got >= (int)need)
			break;
		/* Missed a majority: release what we got, back off, retry. */
		memset(&rel, 0, sizeof(rel));
		rel.blk = blk;
		rel.lv = rd.lv;
		for (r = 0; r < c->n; r++)
			if (c->reply[r].state == RP_OK)
				rel.kind[r] = K_UNLOCK;
		rs_fire(c, &rel);
		c->st.lock_retries++;
		if (now_ms() >= deadline)
			return op_failed(c, -ETIMEDOUT);
		backoff(c, attempt);
	}
	if (c->cfg.broken & RS_BROKEN_DIE_LOCKED)
		_exit(3);	/* a client crashing while it holds the locks */
	b = max_reply(c);
	tag = c->reply[b].tag;
	memcpy(best, c->reply[b].val, c->bsize);
	memset(&rel, 0, sizeof(rel));
	rel.blk = blk;
	rel.lv = rd.lv;
	if (put_val) {
		rel.tag = RS_TAG(RS_TAG_TS(tag) + 1, c->cfg.client_id);
		rel.val = put_val;
		for (r = 0; r < c->n; r++)
			if (c->reply[r].state == RP_OK)
				rel.kind[r] = K_LWRITE;
	} else {
		rel.tag = tag;
		rel.val = best;
		for (r = 0; r < c->n; r++) {
			if (c->reply[r].state != RP_OK)
				continue;
			if (c->reply[r].tag != tag &&
			    !(c->cfg.broken & RS_BROKEN_NO_WRITEBACK)) {
				rel.kind[r] = K_LWRITE;
				c->st.writebacks++;
			} else {
				rel.kind[r] = K_UNLOCK;
			}
		}
	}
	if (rs_run_round(c, &rel, need, deadline) < (int)need)
		return op_failed(c, -EIO);
	if (get_val)
		memcpy(get_val, best, c->bsize);
	return 0;
}

int rs_get(struct rs_client *c, __u32 block, void *val)
{
	long long deadline = now_ms() + c->cfg.op_timeout_ms;

	if (block >= c->rep[0].info.blocks)
		return -EINVAL;
	c->st.gets++;
	rs_flush_unlocks(c);
	if (c->cfg.mode == RS_MODE_LOCK)
		return lock_op(c, block, val, NULL, deadline);
	return abd_get(c, block, val, NULL, deadline);
}

int rs_get_tagged(struct rs_client *c, __u32 block, void *val, __u64 *tag)
{
	long long deadline = now_ms() + c->cfg.op_timeout_ms;

	if (c->cfg.mode != RS_MODE_ABD)
		return -EOPNOTSUPP;
	if (block >= c->rep[0].info.blocks)
		return -EINVAL;
	c->st.gets++;
	return abd_get(c, block, val, tag, deadline);
}

/*
 * Replica r's region is keyed: attach this socket's key for it, asked of
 * the replica on the key socket its info line names (pu_keys.h).
 */
static int rep_key(struct rs_client *c, unsigned int r)
{
	const struct rs_rep *rep = &c->rep[r];

	if (!rep->info.keys[0])
		return 0;
	return pu_key_fetch(rep->info.keys, c->fd, &rep->dst.eth,
			    rep->info.rkey);
}

int rs_client_set_replica(struct rs_client *c, unsigned int r,
			  const struct rs_info *ri)
{
	struct rs_rep *rep = &c->rep[r];

	if (r >= c->n || ri->blocks != rep->info.blocks ||
	    ri->bsize != rep->info.bsize)
		return -EINVAL;
	if (rs_info_dst(ri, &rep->dst))
		return -EINVAL;
	rep->info = *ri;
	rep->nrecycle = 0;
	rep->lock_expect = 0;
	return rep_key(c, r);
}

int rs_put(struct rs_client *c, __u32 block, const void *val)
{
	long long deadline = now_ms() + c->cfg.op_timeout_ms;

	if (block >= c->rep[0].info.blocks)
		return -EINVAL;
	c->st.puts++;
	rs_flush_unlocks(c);
	if (c->cfg.mode == RS_MODE_LOCK)
		return lock_op(c, block, NULL, val, deadline);
	return abd_put(c, block, val, deadline);
}

const struct rs_stats *rs_client_stats(const struct rs_client *c)
{
	return &c->st;
}

__u32 rs_client_bsize(const struct rs_client *c)
{
	return c->bsize;
}

/*
 * Every completion in flight is charged to the socket's receive buffer at
 * submit: ask for room for RS_REP_HARD_INFLIGHT of the largest (a READ of
 * a block; twice its size for the skb around it, as SO_RCVBUF counts) per
 * replica, e.g. 3 x 48 x 132 KiB = 19 MiB for 64 KiB blocks (a new
 * socket has 4 MiB).  Raising it past net.core.rmem_max takes
 * SO_RCVBUFFORCE (root).  Returns how many such completions the buffer
 * holds.
 */
static unsigned int client_rcvbuf(const struct rs_client *c)
{
	size_t per = 2 * c->msg_size;
	int want = (int)(c->n * RS_REP_HARD_INFLIGHT * per), have = 0;
	socklen_t sl = sizeof(have);

	if (getsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &have, &sl))
		return 0;
	if (have < want) {
		/* The kernel doubles the value it is given. */
		int half = want / 2;

		if (setsockopt(c->fd, SOL_SOCKET, SO_RCVBUFFORCE, &half,
			       sizeof(half)) && c->debug)
			fprintf(stderr, "rs[%u] SO_RCVBUFFORCE %d: %s; receive buffer %d\n",
				c->cfg.client_id, want, strerror(errno), have);
		sl = sizeof(have);
		if (getsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &have, &sl))
			return 0;
	}
	return (unsigned int)((size_t)have / per);
}

int rs_client_open(struct rs_client **cp, const struct rs_config *cfg)
{
	struct rs_client *c;
	unsigned int r, i, fit;
	size_t vlen;
	int err;

	*cp = NULL;
	if (!cfg->n || cfg->n > RS_MAX_REPLICAS || cfg->quorum > cfg->n ||
	    (!(cfg->n % 2) && !cfg->quorum) || !cfg->client_id)
		return -EINVAL;
	for (r = 0; r < cfg->n; r++)
		if (cfg->rep[r].bsize != cfg->rep[0].bsize ||
		    cfg->rep[r].blocks != cfg->rep[0].blocks ||
		    !cfg->rep[r].bsize || cfg->rep[r].bsize > RS_MAX_BSIZE)
			return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cfg = *cfg;
	if (!c->cfg.chain_timeout_ms)
		c->cfg.chain_timeout_ms = 1000;
	if (!c->cfg.op_timeout_ms)
		c->cfg.op_timeout_ms = 10000;
	if (!c->cfg.lease_ms)
		c->cfg.lease_ms = 2000;
	c->debug = getenv("RS_DEBUG") != NULL;
	c->n = cfg->n;
	c->quorum = cfg->quorum ? cfg->quorum : cfg->n / 2 + 1;
	c->bsize = cfg->rep[0].bsize;
	/* cbuf, rbuf, tagval, best, then one value per replica's reply. */
	c->msg_size = rs_msg_size(c->bsize);
	vlen = c->msg_size - RS_MSG_SLACK;
	c->mem = aligned_alloc(8, 2 * c->msg_size + (2 + RS_MAX_REPLICAS) * vlen);
	err = -ENOMEM;
	if (!c->mem)
		goto out_free;
	c->cbuf = c->mem;
	c->rbuf = c->cbuf + c->msg_size;
	c->tagval = c->rbuf + c->msg_size;
	c->best = c->tagval + vlen;
	for (r = 0; r < RS_MAX_REPLICAS; r++)
		c->reply[r].val = c->best + (1 + r) * vlen;
	c->rng = ((__u64)cfg->seed << 17) ^ ((__u64)cfg->client_id << 40) ^
		 0x5851f42d4c957f2dULL;
	for (i = 0; i < RS_SLOTS; i++)
		c->chains[i].next_free = i + 1 < RS_SLOTS ? (int)i + 1 : -1;
	c->free_chain = 0;
	for (r = 0; r < c->n; r++) {
		c->rep[r].info = cfg->rep[r];
		err = rs_info_dst(&cfg->rep[r], &c->rep[r].dst);
		if (err)
			goto out_free;
	}
	c->fd = prism_open_spec(cfg->ifname, 0);
	if (c->fd < 0) {
		err = c->fd;
		goto out_free;
	}
	/* Each replica's share of the receive buffer, at least 2 chains. */
	fit = client_rcvbuf(c) / c->n;
	c->hard_inflight = fit < RS_REP_HARD_INFLIGHT ? fit : RS_REP_HARD_INFLIGHT;
	if (c->hard_inflight < 2)
		c->hard_inflight = 2;
	/* The socket's limit of chains in flight (default 256) too. */
	err = prism_set_opt(c->fd, PRISM_MAX_OUTSTANDING,
			    (int)(c->n * c->hard_inflight));
	for (r = 0; r < c->n && !err; r++)
		err = rep_key(c, r);
	if (err) {
		close(c->fd);
		goto out_free;
	}
	/* Fewer chains in flight than the receive buffer holds: no ENOBUFS. */
	c->max_inflight = c->hard_inflight < RS_REP_MAX_INFLIGHT ?
			  c->hard_inflight : RS_REP_MAX_INFLIGHT;
	*cp = c;
	return 0;

out_free:
	free(c->mem);
	free(c);
	return err;
}

void rs_client_drain(struct rs_client *c)
{
	long long deadline;
	struct rs_round rd;
	unsigned int r;

	/* Let late chains finish, so their buffers are recycled too. */
	deadline = now_ms() + c->cfg.chain_timeout_ms + 500;
	rs_flush_unlocks(c);
	for (;;) {
		unsigned int busy = 0, left = 0;

		for (r = 0; r < c->n; r++) {
			busy += c->rep[r].inflight;
			left += c->rep[r].nrecycle;
		}
		if ((!busy && !left) || now_ms() >= deadline)
			break;
		if (!busy) {
			memset(&rd, 0, sizeof(rd));
			for (r = 0; r < c->n; r++)
				if (c->rep[r].nrecycle)
					rd.kind[r] = K_SEND;
			rs_fire(c, &rd);
		}
		rs_reap(c, 100);
		rs_flush_unlocks(c);
	}
}

void rs_client_close(struct rs_client *c)
{
	struct prism_stats ps;

	if (!c)
		return;
	rs_client_drain(c);
	if (c->debug && !prism_get_stats(c->fd, &ps))
		fprintf(stderr, "rs[%u] socket: sent=%llu completed=%llu timed_out=%llu retransmits=%llu\n",
			c->cfg.client_id, (unsigned long long)ps.chains_sent,
			(unsigned long long)ps.chains_completed,
			(unsigned long long)ps.chains_timed_out,
			(unsigned long long)ps.retransmits);
	close(c->fd);
	free(c->mem);
	free(c);
}
