// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM-TX's commit (prepare, decision, install, abort) and the recovery
 * of writes left pending by a client that died; the protocol is in tx.h.
 */
#include "txlib_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The decision record of the transaction of timestamp ts. */
static uint64_t dec_addr(const struct txc *c, uint64_t ts)
{
	return c->sh[tx_home_shard(ts, c->nshards)].dec +
	       (uint64_t)tx_ts_cid(ts) * TX_DEC_SIZE;
}

/* INSTALL (install) or ABORT of the write pending under ts at key. */
static struct prism_op *prep_end(struct bchain *x, const struct txc *c,
				 uint32_t key, uint64_t ts, uint64_t rc,
				 int install, uint64_t pptr)
{
	struct tx_cas_operands o;

	tx_end_operands(&o, ts, rc, install, pptr);
	return prism_prep_cas(&x->cb, c->sh[x->shard].rkey,
			      tx_slot_addr(c, key) + TX_PW, o.len, PRISM_CAS_EQ,
			      o.cmp, o.swap, o.cmask, o.smask);
}

/* DECIDE: record state for ts unless its record holds ts or later. */
static void prep_decide(struct bchain *x, const struct txc *c, uint64_t ts,
			enum tx_decision state)
{
	struct tx_cas_operands o;

	tx_decide_operands(&o, ts, state);
	prism_prep_cas(&x->cb, c->sh[x->shard].rkey, dec_addr(c, ts), o.len,
		       PRISM_CAS_GT, o.cmp, o.swap, o.cmask, o.smask);
}

/*
 * The decision for ts that the DECIDE at op of m shows: mine (what it
 * would record) when it swapped; the record's state when the record holds
 * ts; ABORT when it holds a later timestamp (tx.h, RECOVERY); NONE when the
 * chain's outcome is unknown.
 */
static enum tx_decision decision_of(const struct prism_msg *m, unsigned int op,
				    uint64_t ts, enum tx_decision mine)
{
	const unsigned char *old = tx_op_out(m, op, TX_DEC_SIZE);
	uint64_t rts, state;

	if (m->status != PRISM_S_OK || !old)
		return TX_DEC_NONE;
	if (prism_msg_op_status(m, op) == PRISM_S_OK)
		return mine;
	if (prism_msg_op_status(m, op) != PRISM_S_CMP_FAILED)
		return TX_DEC_NONE;
	rts = tx_get64(old);
	state = tx_get64(old + 8);
	if (rts > ts)
		return TX_DEC_ABORT;
	if (rts == ts && (state == TX_DEC_COMMIT || state == TX_DEC_ABORT))
		return (enum tx_decision)state;
	return TX_DEC_NONE;
}

static void prep_release(const struct txc *c, const struct tx *t,
			 const struct tx_item *it, struct bchain *x)
{
	prep_end(x, c, it->key, t->ts, it->rc, 0, 0);
}

/* Bytes of chain one 32-byte CAS takes: its operands, output, op header. */
#define END_BYTES	(5 * 32 + 48)

static int prism_release(struct txc *c, struct tx *t)
{
	struct bchain *b = c->batch;
	const unsigned int per = tx_per_chain(c, END_BYTES, PRISM_MAX_CHAIN);
	int ret = 0;

	for (unsigned int i = 0; i < t->n; i++)
		t->it[i].done = !(t->it[i].written && t->it[i].prepared);
	for (;;) {
		unsigned int n = tx_batch_items(c, t, 0, per, b, prep_release);

		if (!n)
			break;
		ret = tx_run_batch(c, b, n);
		if (ret)
			break;
		/* Either outcome of the CAS is final; only unknown chains repeat. */
		for (unsigned int j = 0; j < n; j++) {
			if (b[j].msg->status != PRISM_S_OK)
				continue;
			for (unsigned int k = 0; k < b[j].nitems; k++) {
				struct tx_item *it = &t->it[b[j].item[k]];
				const unsigned char *old = tx_op_out(b[j].msg, k, 32);

				/* Whoever ended the write gives its buffer back. */
				if (tx_op_ok(b[j].msg, k) && old)
					tx_recycle(c, it->key,
						   tx_get64(old + TX_AT_PW(TX_PPTR)));
				it->done = 1;
			}
		}
	}
	return ret;
}

/* Ops of an item's PREPARE: the CAS; a written key adds ALLOC and READ. */
static unsigned int prepare_ops(const struct tx_item *it)
{
	return it->written ? 3 : 1;
}

static void prep_prepare(const struct txc *c, const struct tx *t,
			 const struct tx_item *it, struct bchain *x)
{
	const struct tx_shard *s = &c->sh[x->shard];
	uint64_t slot = tx_slot_addr(c, it->key);
	unsigned char val[8 + TX_MAX_VALUE] = { 0 };
	struct tx_cas_operands o;
	struct prism_op *op;

	tx_prepare_operands(&o, it->written ? TX_VALIDATE_WRITE :
			    TX_VALIDATE_READ, t->ts, it->rc);
	prism_prep_cas(&x->cb, s->rkey, slot, o.len, PRISM_CAS_GT, o.cmp,
		       o.swap, o.cmask, o.smask);
	if (!it->written)
		return;
	tx_put64(val, t->ts);
	tx_value_fill(val + 8, c->vsize, it->key, t->ts, it->newval);
	op = prism_prep_alloc(&x->cb, s->rkey, s->fl, val, tx_buf_size(c->vsize));
	prism_op_set_redirect(&x->cb, op, slot + TX_PPTR);
	prism_op_set_conditional(&x->cb, op);
	op = prism_prep_read(&x->cb, s->rkey, slot + TX_PPTR, 8);
	prism_op_set_conditional(&x->cb, op);
}

static int prism_prepare(struct txc *c, struct tx *t)
{
	struct bchain *b = c->batch;
	/* keys per chain: 3 ops and a version each when written */
	const unsigned int per = tx_per_chain(c, tx_buf_size(c->vsize) + 3 * 48 + 128,
					      PRISM_MAX_CHAIN / 3);
	unsigned int n;
	int ret, ok = 1, nobuf = 0;

	for (unsigned int i = 0; i < t->n; i++) {
		struct tx_item *it = &t->it[i];

		it->prepared = 0;
		it->pptr = 0;
		/* BROKEN on purpose with skip_read_validation: see --broken */
		it->done = !it->written && c->skip_read_validation;
	}
	n = tx_batch_items(c, t, 0, per, b, prep_prepare);
	ret = n ? tx_run_batch(c, b, n) : 0;
	if (ret)
		return ret;
	for (unsigned int j = 0; j < n; j++) {
		const struct prism_msg *m = b[j].msg;
		unsigned int op = 0;

		for (unsigned int k = 0; k < b[j].nitems; k++) {
			struct tx_item *it = &t->it[b[j].item[k]];
			int st = prism_msg_op_status(m, op);
			const unsigned char *old = tx_op_out(m, op, 24);
			const unsigned char *pp = it->written ?
				tx_op_out(m, op + 2, 8) : NULL;

			if (m->status != PRISM_S_OK) {
				it->prepared = 2;	/* may have run */
				ok = 0;
			} else if (st == PRISM_S_OK) {
				it->prepared = 1;
				/* validated, but no buffer for the version: abort */
				if (it->written && (!tx_op_ok(m, op + 2) || !pp))
					ok = 0, nobuf = 1;
				else if (pp)
					it->pptr = tx_get64(pp);
			} else if (st == PRISM_S_CMP_FAILED && !it->written && old &&
				   tx_read_ok_from_old(old, t->ts, it->rc)) {
				it->prepared = 1;
			} else {
				ok = 0;
			}
			op += prepare_ops(it);
		}
	}
	if (nobuf) {
		/* Free list empty: let the server post recycled buffers. */
		c->st.nobuf_retries++;
		txc_flush(c);
	}
	return ok ? TX_COMMITTED : TX_ABORTED;
}

static void prep_install(const struct txc *c, const struct tx *t,
			 const struct tx_item *it, struct bchain *x)
{
	prep_end(x, c, it->key, t->ts, it->rc, 1, it->pptr);
}

/*
 * Read the completion of item it's INSTALL (op of m): 1 installed, 0 to
 * send again, <0 an error.
 */
static int install_done(struct txc *c, const struct tx *t, struct tx_item *it,
			const struct prism_msg *m, unsigned int op)
{
	const unsigned char *old = tx_op_out(m, op, 32);
	int st = prism_msg_op_status(m, op);

	if (m->status != PRISM_S_OK || st == PRISM_S_SKIPPED)
		return 0;	/* unknown or skipped: the CAS is exact, repeat */
	if (st == PRISM_S_OK && old) {
		tx_recycle(c, it->key, tx_get64(old + TX_AT_PW(TX_PTR)));
		return 1;
	}
	/*
	 * Installed already, by a recoverer (which recycled the old buffer)
	 * or by an attempt of ours whose completion was lost (the old buffer
	 * then leaks: recycling it could post it twice).
	 */
	if (st == PRISM_S_CMP_FAILED && old &&
	    tx_get64(old + TX_AT_PW(TX_C)) == t->ts &&
	    tx_get64(old + TX_AT_PW(TX_PTR)) == it->pptr) {
		c->st.install_found_done++;
		return 1;
	}
	fprintf(stderr, "tx: install of key %u at %" PRIu64 ": %s\n", it->key,
		t->ts, prism_status_str(st));
	return -EIO;
}

/*
 * Commit t, whose writes are all prepared: DECIDE in the home shard's
 * chain, with that shard's installs after it (CONDITIONAL); once the
 * decision is COMMIT, install at the other shards.  TX_COMMITTED,
 * TX_ABORTED (a recoverer decided first) or <0.
 */
static int prism_install(struct txc *c, struct tx *t, int home)
{
	struct bchain *b = c->batch;
	const unsigned int per = tx_per_chain(c, END_BYTES, PRISM_MAX_CHAIN - 1);
	enum tx_decision d = TX_DEC_NONE;
	int ret = 0;

	for (unsigned int i = 0; i < t->n; i++)
		t->it[i].done = !t->it[i].written;
	while (d == TX_DEC_NONE) {
		unsigned int n = 0;
		struct bchain *x = tx_batch_add(b, &n, home);

		prep_decide(x, c, t->ts, TX_DEC_COMMIT);
		for (unsigned int i = 0; i < t->n && x->nitems < per; i++) {
			struct tx_item *it = &t->it[i];

			if (it->done || tx_shard_of(c, it->key) != home)
				continue;
			prism_op_set_conditional(&x->cb, prep_end(x, c, it->key,
				t->ts, it->rc, 1, it->pptr));
			x->item[x->nitems++] = i;
		}
		if (c->crash_at == TX_CRASH_DECIDING)
			c->crash_tx = t;
		ret = tx_run_batch(c, b, n);
		c->crash_tx = NULL;
		if (ret)
			return ret;
		d = decision_of(x->msg, 0, t->ts, TX_DEC_COMMIT);
		for (unsigned int k = 0; d == TX_DEC_COMMIT && k < x->nitems; k++) {
			struct tx_item *it = &t->it[x->item[k]];
			int r = install_done(c, t, it, x->msg, 1 + k);

			if (r < 0)
				return r;
			it->done = r;
		}
	}
	if (d == TX_DEC_ABORT) {
		c->st.aborted_by_recovery++;
		ret = prism_release(c, t);
		return ret ? ret : TX_ABORTED;
	}
	if (c->crash_at == TX_CRASH_DECIDED && c->crash_fn)
		c->crash_fn(c, t);
	for (;;) {
		unsigned int n = tx_batch_items(c, t, 0, per, b, prep_install);

		if (!n)
			break;
		ret = tx_run_batch(c, b, n);
		if (ret)
			return ret;
		for (unsigned int j = 0; j < n; j++)
			for (unsigned int k = 0; k < b[j].nitems; k++) {
				struct tx_item *it = &t->it[b[j].item[k]];
				int r = install_done(c, t, it, b[j].msg, k);

				if (r < 0)
					return r;
				it->done = r;
			}
	}
	return TX_COMMITTED;
}

int tx_prism_commit(struct txc *c, struct tx *t)
{
	uint64_t floor = 0;
	int r, home = -1;

	for (unsigned int i = 0; i < t->n; i++) {
		if (t->it[i].rc > floor)
			floor = t->it[i].rc;
		if (home < 0 && t->it[i].written)
			home = tx_shard_of(c, t->it[i].key);
	}
	/* The decision's record lives on the shard of the first write. */
	t->ts = tx_ts_next_home(tx_now_us(), c->cid, c->last_ts, floor,
				home < 0 ? 0 : (unsigned int)home, c->nshards);
	c->last_ts = t->ts;
	r = prism_prepare(c, t);
	if (r < 0)
		return r;
	if (r == TX_ABORTED) {
		int e = prism_release(c, t);

		return e ? e : TX_ABORTED;
	}
	if (home < 0)
		return TX_COMMITTED;	/* read-only: nothing to decide */
	if (c->crash_at == TX_CRASH_PREPARED && c->crash_fn)
		c->crash_fn(c, t);
	r = prism_install(c, t, home);
	if (r)
		return r;
	if (c->nrecycle[0] + c->nrecycle[c->nshards - 1] > TX_RECYCLE_MAX)
		txc_flush(c);
	return TX_COMMITTED;
}

/* RECOVERY (tx.h) of the write pending under pw at key: see txlib_int.h. */
int tx_prism_recover_key(struct txc *c, uint32_t key, uint64_t pw)
{
	struct bchain *b = c->fbatch, *x;
	int s = tx_shard_of(c, key);
	const unsigned char *cur, *old;
	enum tx_decision d;
	uint64_t cts, pptr;
	unsigned int n = 0;
	int r;

	if (!c->lease_us || tx_now_us() < tx_ts_us(pw) + c->lease_us)
		return 0;
	x = tx_batch_add(b, &n, (int)tx_home_shard(pw, c->nshards));
	prep_decide(x, c, pw, TX_DEC_ABORT);
	r = tx_run_batch(c, b, n);
	if (r)
		return r;
	d = decision_of(x->msg, 0, pw, TX_DEC_ABORT);
	if (d == TX_DEC_NONE)
		return 0;
	n = 0;
	x = tx_batch_add(b, &n, s);
	prism_prep_read(&x->cb, c->sh[s].rkey, tx_slot_addr(c, key) + TX_PW, 32);
	r = tx_run_batch(c, b, n);
	if (r)
		return r;
	cur = tx_op_out(x->msg, 0, 32);
	if (!tx_op_ok(x->msg, 0) || !cur)
		return 0;
	cts = tx_get64(cur + TX_AT_PW(TX_C));
	pptr = tx_get64(cur + TX_AT_PW(TX_PPTR));
	if (tx_get64(cur + TX_AT_PW(TX_PW)) != pw || cts == pw)
		return 1;	/* ended meanwhile */
	if (d == TX_DEC_COMMIT && !pptr) {
		fprintf(stderr, "tx: key %u: write %" PRIu64 " committed without a buffer\n",
			key, pw);
		return -EIO;
	}
	n = 0;
	x = tx_batch_add(b, &n, s);
	prep_end(x, c, key, pw, cts, d == TX_DEC_COMMIT, pptr);
	r = tx_run_batch(c, b, n);
	if (r)
		return r;
	old = tx_op_out(x->msg, 0, 32);
	if (!tx_op_ok(x->msg, 0) || !old)
		return 1;	/* someone else ended it, or unknown: read again */
	if (d == TX_DEC_COMMIT) {
		c->st.recovered_commits++;
		tx_recycle(c, key, tx_get64(old + TX_AT_PW(TX_PTR)));
	} else {
		c->st.recovered_aborts++;
		tx_recycle(c, key, tx_get64(old + TX_AT_PW(TX_PPTR)));
	}
	return 1;
}
