// SPDX-License-Identifier: MIT
/*
 * PRISM-RS client: the chains to the replicas.  A chain slot tracks each
 * chain in flight; build() writes the chain of a round's kind for one
 * replica, with buffer recycling piggybacked as a leading SEND;
 * completions update the round's replies (or, for orphans of a finished
 * round, only recycle and release late locks).  The protocol that uses
 * the rounds is in rs_client.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rs_int.h"

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
			   kind == K_WRITE ? c->max_inflight : c->hard_inflight;
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
	prism_chain_init(cb, c->cbuf, c->msg_size, ch->ud);
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
	int err = prism_submit(c->fd, &rp->dst.eth, cb);
	unsigned int kbit = 1u << ch->kind;

	if (err == -EMSGSIZE && ch->nsend && !(c->no_piggyback & kbit)) {
		c->no_piggyback |= kbit;
		err = -EAGAIN;
	} else if (err) {
		/*
		 * E.g. ENOBUFS: this replica's request-id window (per target
		 * in the module) is full of stuck chains.
		 */
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
void rs_fire(struct rs_client *c, const struct rs_round *rd)
{
	unsigned int r;

	for (r = 0; r < c->n; r++)
		if (rd->kind[r])
			send_chain(c, rd, r);
}

/* Release locks acquired by chains that completed after their round. */
void rs_flush_unlocks(struct rs_client *c)
{
	struct rs_round rd;
	unsigned int i, k = c->nunlock;

	c->nunlock = 0;
	for (i = 0; i < k; i++) {
		memset(&rd, 0, sizeof(rd));
		rd.kind[c->unlock_rep[i]] = K_UNLOCK;
		rd.blk = c->unlock_blk[i];
		rd.lv = c->unlock_lv[i];
		rs_fire(c, &rd);
	}
}

/* The completion came from the replica its chain was sent to. */
static int from_rep(const struct rs_client *c, const struct prism_msg *m,
		    const struct sockaddr_prism *src)
{
	unsigned int r = (unsigned int)(m->user_data & 0xff);

	return r < c->n && prism_addr_equal(src, &c->rep[r].dst.eth);
}

/*
 * Wait up to timeout_ms for completions on the client's socket (chains to
 * every replica) and handle all that are there; user_data names the chain
 * slot and its replica, checked against the source address.  Returns the
 * number handled or -errno.
 */
int rs_reap(struct rs_client *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	union prism_sockaddr src;
	struct rs_event ev;
	int n, handled = 0;
	ssize_t len;

	n = poll(&pfd, 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (!(pfd.revents & POLLIN))
		return 0;
	for (;;) {
		len = prism_wait_from(c->fd, c->rbuf, c->msg_size, &src.eth,
				      MSG_DONTWAIT);
		if (len < 0)
			break;	/* EAGAIN: drained; malformed: dropped */
		ev.msg = (const struct prism_msg *)(const void *)c->rbuf;
		if (!prism_msg_is_completion(ev.msg) ||
		    !from_rep(c, ev.msg, &src.eth))
			continue;
		ev.res = 0;
		ev.user_data = ev.msg->user_data;
		handle_event(c, &ev);
		handled++;
	}
	return handled;
}

/*
 * Run one round: send rd's chain to every replica with a kind, wait until
 * need of them count as successes or that became impossible.  Returns the
 * number of successes (replies in c->reply[] with state RP_OK).
 */
int rs_run_round(struct rs_client *c, const struct rs_round *rd,
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
		if (rs_reap(c, (int)left) < 0)
			break;
	}
	c->round = 0;
	return (int)ok;
}
