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
 * One PRISM socket per replica: the module's request-id window
 * (PRISM_WINDOW) is per socket, so with one shared socket the chains to
 * a dead replica, outstanding until their timeout, would make every
 * sendmsg() fail with ENOBUFS once PRISM_WINDOW more chains were sent to
 * the live ones.  Per replica, only that replica's traffic stalls.
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
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rs.h"

#define RS_SLOTS		512	/* chains tracked in flight */
#define RS_REP_MAX_INFLIGHT	32	/* per replica; beyond it, skip it */
#define RS_REP_HARD_INFLIGHT	48	/* also for unlocks and recycling */
#define RS_RECYCLE_MAX		1024
#define RS_SEND_BATCH		32	/* addresses per piggybacked SEND */
/* Piggyback only from this many: each SEND wakes the replica process. */
#define RS_SEND_MIN		16
#define RS_MAX_UNLOCKS		64

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
	int			fd;		/* socket for this replica only */
	struct sockaddr_prism	dst;
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
	unsigned char	val[RS_MAX_BSIZE];
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
	uint64_t		rng;
	struct rs_stats		st;
	int			debug;
	_Alignas(8) unsigned char cbuf[2048];
	_Alignas(8) unsigned char rbuf[4096];	/* one received message */
	unsigned char		tagval[8 + RS_MAX_BSIZE];
};

static __u64 rnd(struct rs_client *c)
{
	/* backoff jitter only */
	return pu_rng_next(&c->rng);
}

static long long now_ms(void)
{
	return (long long)(pu_now_ns() / 1000000);
}

static void recycle_add(struct rs_rep *rp, __u64 addr)
{
	/* Overflow only happens for a dead replica: leaking is harmless. */
	if (addr && rp->nrecycle < RS_RECYCLE_MAX)
		rp->recycle[rp->nrecycle++] = addr;
}

static struct rs_chain *chain_get(struct rs_client *c)
{
	struct rs_chain *ch;

	if (c->free_chain < 0)
		return NULL;
	ch = &c->chains[c->free_chain];
	c->free_chain = ch->next_free;
	memset(ch, 0, sizeof(*ch));
	ch->used = 1;
	return ch;
}

static void chain_put(struct rs_client *c, struct rs_chain *ch)
{
	ch->used = 0;
	ch->next_free = c->free_chain;
	c->free_chain = (int)(ch - c->chains);
}

/* The chain did not run: its recycled addresses go back on the list. */
static void chain_unsent(struct rs_client *c, struct rs_chain *ch)
{
	unsigned int i;

	for (i = 0; i < ch->nsend; i++)
		recycle_add(&c->rep[ch->rep], ch->send[i]);
	ch->nsend = 0;
}

/*
 * Start a chain of kind for replica r in c->cbuf, piggybacking recycled
 * buffers (SEND first, so op indices of the real work shift by base).
 */
static struct rs_chain *chain_begin(struct rs_client *c, unsigned int r,
				    __u8 kind, struct prism_chain_buf *cb)
{
	struct rs_rep *rp = &c->rep[r];
	unsigned int cap = kind == K_LOCK || kind == K_READ || kind == K_QUERY ||
			   kind == K_WRITE ? RS_REP_MAX_INFLIGHT : RS_REP_HARD_INFLIGHT;
	unsigned char data[RS_SEND_BATCH * 8];
	struct rs_chain *ch;
	unsigned int i;

	if (rp->inflight >= cap)
		return NULL;
	ch = chain_get(c);
	if (!ch)
		return NULL;
	ch->kind = kind;
	ch->rep = (__u8)r;
	ch->round = c->round;
	ch->ud = (++c->chain_seq << 24) | ((__u64)(ch - c->chains) << 8) | r;
	prism_chain_init(cb, c->cbuf, sizeof(c->cbuf), ch->ud);
	prism_chain_set_timeout(cb, c->cfg.chain_timeout_ms);
	if (!(c->no_piggyback & (1u << kind)) &&
	    (rp->nrecycle >= RS_SEND_MIN || (kind == K_SEND && rp->nrecycle))) {
		unsigned int k = rp->nrecycle < RS_SEND_BATCH ? rp->nrecycle :
								 RS_SEND_BATCH;

		for (i = 0; i < k; i++) {
			ch->send[i] = rp->recycle[--rp->nrecycle];
			prism_put_le64(data + 8 * i, ch->send[i]);
		}
		ch->nsend = (__u8)k;
		ch->base = 1;
		prism_prep_send(cb, data, 8 * k);
	}
	return ch;
}

/*
 * Send a built chain; on failure it is dropped (and counted), except when
 * only the recycling piggybacked on it made it too big for one frame
 * (large blocks): then chains of its kind go without recycling from now on
 * and -EAGAIN asks the caller to build it again.
 */
static int chain_queue(struct rs_client *c, struct rs_chain *ch,
		       struct prism_chain_buf *cb)
{
	struct rs_rep *rp = &c->rep[ch->rep];
	int err = prism_submit(rp->fd, &rp->dst, cb);
	unsigned int kbit = 1u << ch->kind;

	if (err == -EMSGSIZE && ch->nsend && !(c->no_piggyback & kbit)) {
		c->no_piggyback |= kbit;
		err = -EAGAIN;
	} else if (err) {
		/* E.g. ENOBUFS: this replica's window is full of stuck chains. */
		c->st.chain_errors++;
	}
	if (err) {
		chain_unsent(c, ch);
		chain_put(c, ch);
		return err;
	}
	rp->inflight++;
	return 0;
}

/* Build the chain of round rd for replica r. */
static int build(struct rs_client *c, const struct rs_round *rd, unsigned int r,
		 struct prism_chain_buf *cb, struct rs_chain **chp)
{
	const struct rs_info *ri = &c->rep[r].info;
	__u64 meta = ri->meta + (__u64)rd->blk * 16;
	__u64 slot = ri->locks + (__u64)rd->blk * rs_lock_stride(ri->bsize);
	unsigned char cmask[16], tagle[8];
	__u8 kind = rd->kind[r];
	struct prism_op *op;
	struct rs_chain *ch;

	*chp = NULL;
	ch = chain_begin(c, r, kind, cb);
	if (!ch)
		return -EBUSY;
	ch->lockval = rd->lv;
	ch->blk = rd->blk;
	switch (kind) {
	case K_READ:
		prism_prep_read_indirect(cb, ri->rkey, meta, 8 + c->bsize);
		break;
	case K_QUERY:
		prism_prep_read(cb, ri->rkey, meta, 16);
		break;
	case K_WRITE:
		prism_put_le64(tagle, rd->tag);
		op = prism_prep_write(cb, ri->rkey, 8, tagle, 8);
		prism_op_set_addr_scratch(cb, op);
		prism_put_le64(c->tagval, rd->tag);
		memcpy(c->tagval + 8, rd->val, c->bsize);
		op = prism_prep_alloc(cb, ri->rkey, ri->fl, c->tagval, 8 + c->bsize);
		prism_op_set_redirect_scratch(cb, op, 0);
		/* Compare only the tag half: new tag > current tag. */
		memset(cmask, 0, 8);
		memset(cmask + 8, 0xff, 8);
		op = prism_prep_cas_ex(cb, ri->rkey, meta, 16, PRISM_CAS_GT, 0,
				       NULL, 0, NULL, 0, cmask, NULL);
		prism_op_set_arg_scratch(cb, op);
		prism_op_set_conditional(cb, op);
		op = prism_prep_read(cb, ri->rkey, 0, 8);
		prism_op_set_addr_scratch(cb, op);
		break;
	case K_LOCK:
		prism_prep_cas_u64(cb, ri->rkey, slot, PRISM_CAS_EQ,
				   c->rep[r].lock_expect_blk == rd->blk ?
				   c->rep[r].lock_expect : 0, rd->lv);
		op = prism_prep_read(cb, ri->rkey, slot + 8, 8 + c->bsize);
		prism_op_set_conditional(cb, op);
		break;
	case K_LWRITE:
		prism_prep_cas_u64(cb, ri->rkey, slot, PRISM_CAS_EQ, rd->lv, rd->lv);
		prism_put_le64(c->tagval, rd->tag);
		memcpy(c->tagval + 8, rd->val, c->bsize);
		op = prism_prep_write(cb, ri->rkey, slot + 8, c->tagval, 8 + c->bsize);
		prism_op_set_conditional(cb, op);
		op = prism_prep_cas_u64(cb, ri->rkey, slot, PRISM_CAS_EQ, rd->lv, 0);
		prism_op_set_conditional(cb, op);
		break;
	case K_UNLOCK:
		prism_prep_cas_u64(cb, ri->rkey, slot, PRISM_CAS_EQ, rd->lv, 0);
		break;
	case K_SEND:
		break;
	}
	if (prism_chain_error(cb) || !prism_chain_nops(cb)) {
		chain_unsent(c, ch);
		chain_put(c, ch);
		return prism_chain_error(cb) ? prism_chain_error(cb) : -EINVAL;
	}
	*chp = ch;
	return 0;
}

/* Build and send the chain of round rd for replica r: 0 or -errno. */
static int send_chain(struct rs_client *c, const struct rs_round *rd,
		      unsigned int r)
{
	struct prism_chain_buf cb;
	struct rs_chain *ch;
	int err, tries = 2;

	do {
		err = build(c, rd, r, &cb, &ch);
		if (err)
			return err;
		err = chain_queue(c, ch, &cb);
	} while (err == -EAGAIN && --tries);
	return err;
}

/* Process the results of a chain that ran (chain status OK). */
static void chain_done_ok(struct rs_client *c, struct rs_chain *ch,
			  const struct prism_msg *m, struct rs_reply *rep)
{
	struct rs_rep *rp = &c->rep[ch->rep];
	unsigned int b = ch->base, i;
	const unsigned char *d;
	int s0, s2;
	__u32 len;
	__u64 v;

	if (ch->nsend) {
		if (prism_msg_op_status(m, 0) == PRISM_S_OK)
			c->st.recycled += ch->nsend;
		else
			chain_unsent(c, ch);
	}
	s0 = prism_msg_op_status(m, b);
	switch (ch->kind) {
	case K_READ:
		d = prism_msg_data(m, b, &len);
		if (s0 == PRISM_S_OK && d && len == 8 + c->bsize && rep) {
			rep->tag = prism_get_le64(d);
			memcpy(rep->val, d + 8, c->bsize);
			rep->state = RP_OK;
		}
		break;
	case K_QUERY:
		d = prism_msg_data(m, b, &len);
		if (s0 == PRISM_S_OK && d && len == 16 && rep) {
			rep->tag = prism_get_le64(d + 8);
			rep->state = RP_OK;
		}
		break;
	case K_WRITE:
		s2 = prism_msg_op_status(m, b + 2);
		d = prism_msg_data(m, b + 2, &len);
		if (s2 == PRISM_S_OK && d && len == 16) {
			/* We replaced the old buffer: it is garbage now. */
			recycle_add(rp, prism_get_le64(d));
		} else if (s2 == PRISM_S_CMP_FAILED &&
			   !prism_msg_u64(m, b + 3, &v)) {
			/* A newer tag won: our fresh buffer was never published. */
			recycle_add(rp, v);
			c->st.cas_lost++;
		}
		if (rep && (s2 == PRISM_S_OK || s2 == PRISM_S_CMP_FAILED))
			rep->state = RP_OK;
		break;
	case K_LOCK:
		if (s0 == PRISM_S_OK) {
			d = prism_msg_data(m, b + 1, &len);
			if (rep && prism_msg_op_status(m, b + 1) == PRISM_S_OK &&
			    d && len == 8 + c->bsize) {
				rep->tag = prism_get_le64(d);
				memcpy(rep->val, d + 8, c->bsize);
				rep->state = RP_OK;
			} else if (c->nunlock < RS_MAX_UNLOCKS) {
				/* Acquired too late (or unreadable): release. */
				c->unlock_rep[c->nunlock] = ch->rep;
				c->unlock_blk[c->nunlock] = ch->blk;
				c->unlock_lv[c->nunlock++] = ch->lockval;
			}
			if (rp->lock_expect && rp->lock_expect_blk == ch->blk)
				c->st.lock_breaks++;
			rp->lock_expect = 0;
		} else if (s0 == PRISM_S_CMP_FAILED && !prism_msg_u64(m, b, &v)) {
			/* An expired lease may be broken by the next attempt. */
			rp->lock_expect = (long long)(v >> RS_TAG_CID_BITS) < now_ms() ?
					  v : 0;
			rp->lock_expect_blk = ch->blk;
			if (rep)
				rep->old = v;
		}
		break;
	case K_LWRITE:
		for (i = 0; i < 3; i++)
			if (prism_msg_op_status(m, b + i) != PRISM_S_OK)
				break;
		if (rep && i == 3)
			rep->state = RP_OK;
		break;
	case K_UNLOCK:
		if (rep && s0 == PRISM_S_OK)
			rep->state = RP_OK;
		break;
	}
}

/* A completion (res 0, msg set) or a failed send (res < 0). */
struct rs_event {
	int			res;
	__u64			user_data;
	const struct prism_msg	*msg;
};

/* RS_DEBUG=1: one line per completed chain on stderr. */
static void debug_chain(const struct rs_client *c, const struct rs_chain *ch,
			const struct rs_event *ev, int status)
{
	unsigned int i;

	fprintf(stderr, "rs[%u] chain kind=%u rep=%u round=%llu/%llu res=%d status=%s ops:",
		c->cfg.client_id, ch->kind, ch->rep, (unsigned long long)ch->round,
		(unsigned long long)c->round, ev->res,
		status < 0 ? "-" : prism_status_str(status));
	for (i = 0; ev->msg && i < ev->msg->nops; i++)
		fprintf(stderr, " %s", prism_status_str(prism_msg_op_status(ev->msg, i)));
	fprintf(stderr, "\n");
}

static void handle_event(struct rs_client *c, const struct rs_event *ev)
{
	unsigned int idx = (unsigned int)((ev->user_data >> 8) & 0xffff);
	struct rs_reply *rep = NULL;
	struct rs_chain *ch;
	int status;

	if (!ev->user_data || idx >= RS_SLOTS)
		return;
	ch = &c->chains[idx];
	if (!ch->used || ch->ud != ev->user_data)
		return;
	if (c->rep[ch->rep].inflight)
		c->rep[ch->rep].inflight--;
	/* Only chains of the active round still feed an operation. */
	if (c->round && ch->round == c->round)
		rep = &c->reply[ch->rep];
	status = ev->res < 0 || !ev->msg ? -1 : ev->msg->status;
	if (c->debug)
		debug_chain(c, ch, ev, status);
	if (status == PRISM_S_OK) {
		chain_done_ok(c, ch, ev->msg, rep);
	} else {
		c->st.chain_errors++;
		/*
		 * Refused chains did not run: resend their recycling.  After
		 * TIMEOUT/NETDOWN/ABORTED the outcome is unknown: leak.
		 */
		if (status < 0 || status == PRISM_S_NACK ||
		    status == PRISM_S_INVALID || status == PRISM_S_TOO_BIG)
			chain_unsent(c, ch);
	}
	if (rep && rep->state == RP_PENDING)
		rep->state = RP_FAILED;
	chain_put(c, ch);
}

/* Send rd's chains outside any round; completions are handled later. */
static void fire(struct rs_client *c, const struct rs_round *rd)
{
	unsigned int r;

	for (r = 0; r < c->n; r++)
		if (rd->kind[r])
			send_chain(c, rd, r);
}

/* Release locks acquired by chains that completed after their round. */
static void flush_unlocks(struct rs_client *c)
{
	struct rs_round rd;
	unsigned int i, k = c->nunlock;

	c->nunlock = 0;
	for (i = 0; i < k; i++) {
		memset(&rd, 0, sizeof(rd));
		rd.kind[c->unlock_rep[i]] = K_UNLOCK;
		rd.blk = c->unlock_blk[i];
		rd.lv = c->unlock_lv[i];
		fire(c, &rd);
	}
}

/*
 * Wait up to timeout_ms for completions on any replica socket and handle
 * all that are there.  Returns the number handled or -errno.
 */
static int reap(struct rs_client *c, int timeout_ms)
{
	struct pollfd pfd[RS_MAX_REPLICAS];
	struct rs_event ev;
	unsigned int r;
	int n, handled = 0;
	ssize_t len;

	for (r = 0; r < c->n; r++) {
		pfd[r].fd = c->rep[r].fd;
		pfd[r].events = POLLIN;
		pfd[r].revents = 0;
	}
	n = poll(pfd, c->n, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (r = 0; r < c->n; r++) {
		if (!(pfd[r].revents & POLLIN))
			continue;
		for (;;) {
			len = prism_wait_from(c->rep[r].fd, c->rbuf, sizeof(c->rbuf),
					      NULL, MSG_DONTWAIT);
			if (len < 0)
				break;	/* EAGAIN: drained; malformed: dropped */
			ev.msg = (const struct prism_msg *)(const void *)c->rbuf;
			if (!prism_msg_is_completion(ev.msg))
				continue;
			ev.res = 0;
			ev.user_data = ev.msg->user_data;
			handle_event(c, &ev);
			handled++;
		}
	}
	return handled;
}

/*
 * Run one round: send rd's chain to every replica with a kind, wait until
 * need of them count as successes or that became impossible.  Returns the
 * number of successes (replies in c->reply[] with state RP_OK).
 */
static int run_round(struct rs_client *c, const struct rs_round *rd,
		     unsigned int need, long long deadline)
{
	unsigned int r, ok, pending;

	c->round = ++c->round_seq;
	for (r = 0; r < c->n; r++) {
		c->reply[r].state = RP_IDLE;
		/* Not sent (e.g. replica saturated): treat it as silent. */
		if (rd->kind[r] && !send_chain(c, rd, r))
			c->reply[r].state = RP_PENDING;
	}
	for (;;) {
		long long left = deadline - now_ms();

		ok = pending = 0;
		for (r = 0; r < c->n; r++) {
			ok += c->reply[r].state == RP_OK;
			pending += c->reply[r].state == RP_PENDING;
		}
		if (ok >= need || ok + pending < need || left <= 0)
			break;
		if (reap(c, (int)left) < 0)
			break;
	}
	c->round = 0;
	return (int)ok;
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
	flush_unlocks(c);
	return err;
}

/* ABD GET: read phase, then write-back when the answers disagree. */
static int abd_get(struct rs_client *c, __u32 blk, void *val, long long deadline)
{
	unsigned char best[RS_MAX_BSIZE];
	struct rs_round rd;
	unsigned int r;
	int b, agree = 1;
	__u64 tag;

	memset(&rd, 0, sizeof(rd));
	all_kinds(c, &rd, K_READ);
	rd.blk = blk;
	if (run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
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
		if (run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
			return op_failed(c, -EIO);
	}
	memcpy(val, best, c->bsize);
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
	if (run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
		return op_failed(c, -EIO);
	rd.tag = RS_TAG(RS_TAG_TS(c->reply[max_reply(c)].tag) + 1,
			c->cfg.client_id);
	all_kinds(c, &rd, K_WRITE);
	rd.val = val;
	if (run_round(c, &rd, need_of(c), deadline) < (int)need_of(c))
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
	unsigned char best[RS_MAX_BSIZE];
	unsigned int r, attempt, need = need_of(c);
	struct rs_round rd, rel;
	int b, got;
	__u64 tag;

	memset(&rd, 0, sizeof(rd));
	rd.blk = blk;
	for (attempt = 0;; attempt++) {
		all_kinds(c, &rd, K_LOCK);
		rd.lv = RS_TAG(now_ms() + c->cfg.lease_ms, c->cfg.client_id);
		got = run_round(c, &rd, need, deadline);
		flush_unlocks(c);
		if (got >= (int)need)
			break;
		/* Missed a majority: release what we got, back off, retry. */
		memset(&rel, 0, sizeof(rel));
		rel.blk = blk;
		rel.lv = rd.lv;
		for (r = 0; r < c->n; r++)
			if (c->reply[r].state == RP_OK)
				rel.kind[r] = K_UNLOCK;
		fire(c, &rel);
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
	if (run_round(c, &rel, need, deadline) < (int)need)
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
	flush_unlocks(c);
	if (c->cfg.mode == RS_MODE_LOCK)
		return lock_op(c, block, val, NULL, deadline);
	return abd_get(c, block, val, deadline);
}

int rs_put(struct rs_client *c, __u32 block, const void *val)
{
	long long deadline = now_ms() + c->cfg.op_timeout_ms;

	if (block >= c->rep[0].info.blocks)
		return -EINVAL;
	c->st.puts++;
	flush_unlocks(c);
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

int rs_client_open(struct rs_client **cp, const struct rs_config *cfg)
{
	struct rs_client *c;
	unsigned int r, i;
	int err;

	*cp = NULL;
	if (!cfg->n || cfg->n > RS_MAX_REPLICAS || !(cfg->n % 2) ||
	    !cfg->client_id)
		return -EINVAL;
	for (r = 0; r < cfg->n; r++)
		if (cfg->rep[r].bsize != cfg->rep[0].bsize ||
		    cfg->rep[r].blocks != cfg->rep[0].blocks)
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
	c->quorum = cfg->n / 2 + 1;
	c->bsize = cfg->rep[0].bsize;
	c->rng = ((__u64)cfg->seed << 17) ^ ((__u64)cfg->client_id << 40) ^
		 0x5851f42d4c957f2dULL;
	for (i = 0; i < RS_SLOTS; i++)
		c->chains[i].next_free = i + 1 < RS_SLOTS ? (int)i + 1 : -1;
	c->free_chain = 0;
	for (r = 0; r < c->n; r++) {
		c->rep[r].info = cfg->rep[r];
		prism_addr_init(&c->rep[r].dst, cfg->rep[r].mac, cfg->rep[r].ep);
	}
	for (r = 0; r < c->n; r++) {
		c->rep[r].fd = prism_open(cfg->ifname, 0, 0);
		if (c->rep[r].fd < 0) {
			err = c->rep[r].fd;
			while (r--)
				close(c->rep[r].fd);
			free(c);
			return err;
		}
	}
	*cp = c;
	return 0;
}

void rs_client_drain(struct rs_client *c)
{
	long long deadline;
	struct rs_round rd;
	unsigned int r;

	/* Let late chains finish, so their buffers are recycled too. */
	deadline = now_ms() + c->cfg.chain_timeout_ms + 500;
	flush_unlocks(c);
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
			fire(c, &rd);
		}
		reap(c, 100);
		flush_unlocks(c);
	}
}

void rs_client_close(struct rs_client *c)
{
	struct prism_stats ps;
	unsigned int r;

	if (!c)
		return;
	rs_client_drain(c);
	for (r = 0; r < c->n; r++) {
		if (c->debug && !prism_get_stats(c->rep[r].fd, &ps))
			fprintf(stderr, "rs[%u] socket %u: sent=%llu completed=%llu timed_out=%llu retransmits=%llu\n",
				c->cfg.client_id, r, (unsigned long long)ps.chains_sent,
				(unsigned long long)ps.chains_completed,
				(unsigned long long)ps.chains_timed_out,
				(unsigned long long)ps.retransmits);
		close(c->rep[r].fd);
	}
	free(c);
}
