// SPDX-License-Identifier: GPL-2.0
/*
 * The FaRM-style baseline of PRISM-TX: the client locks its write set by
 * RPC (two-sided SENDs to each shard's server), validates its reads
 * with one-sided READs, then commits or unlocks by RPC.  The protocol and
 * message formats are in tx.h; the shared client machinery in txlib.c.
 */
#include "txlib.h"
#include "txlib_int.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A lock, commit or unlock request: FARM_MAX_ENTRIES entries at most. */
#define RPC_CHAIN_CAP	1024
_Static_assert(sizeof(struct farm_req) + 256 <= RPC_CHAIN_CAP, "an RPC fits its chain");

struct rpc {
	int shard;
	struct farm_req q;
	uint64_t ud;
	int chain_done, replied, ok;
};

static int rpc_send(struct txc *c, struct rpc *r)
{
	_Alignas(8) unsigned char cbuf[RPC_CHAIN_CAP];
	struct prism_chain_buf cb;

	r->ud = c->next_ud++;
	r->q.seq = r->ud;
	r->chain_done = 0;
	prism_chain_init(&cb, cbuf, sizeof(cbuf), r->ud);
	prism_chain_set_timeout(&cb, CHAIN_TIMEOUT_MS);
	prism_prep_send(&cb, &r->q, (uint32_t)(offsetof(struct farm_req, e) +
				  r->q.n * sizeof(r->q.e[0])));
	return prism_submit(c->fd, &c->sh[r->shard].addr.eth, &cb);
}

/* Run RPCs (one per shard) until each has a reply; requests are idempotent. */
static int rpc_run(struct txc *c, struct rpc *rs, unsigned int n)
{
	unsigned int waits = 0;

	for (unsigned int i = 0; i < n; i++) {
		int err = rpc_send(c, &rs[i]);

		rs[i].replied = 0;
		if (err)
			return err;
	}
	for (;;) {
		const struct prism_msg *m = (const void *)c->rbuf;
		unsigned int busy = 0;
		ssize_t r;

		for (unsigned int i = 0; i < n; i++)
			busy += !rs[i].replied || !rs[i].chain_done;
		if (!busy)
			return 0;
		r = tx_recv_one(c, c->rbuf, c->out_cap, RPC_REPLY_MS);
		if (r < 0)
			return (int)r;
		if (r == 0) {
			/* No reply in time although delivered: ask again. */
			if (++waits > 20)
				return -ETIMEDOUT;
			for (unsigned int i = 0; i < n; i++)
				if (!rs[i].replied && rs[i].chain_done) {
					int err = rpc_send(c, &rs[i]);

					c->st.rpc_resends++;
					if (err)
						return err;
				}
			continue;
		}
		if (m->kind == PRISM_MSG_COMPLETION) {
			for (unsigned int i = 0; i < n; i++) {
				if (m->user_data != rs[i].ud || rs[i].chain_done)
					continue;
				if (m->status == PRISM_S_TIMEOUT)
					c->st.timeouts++;
				if (m->status != PRISM_S_OK && !rs[i].replied) {
					int err = rpc_send(c, &rs[i]);

					c->st.rpc_resends++;
					if (err)
						return err;
				} else {
					rs[i].chain_done = 1;
				}
			}
		} else {
			uint32_t len;
			const unsigned char *d = prism_msg_send_data(m, &len);
			struct farm_rep rep;

			if (!d || len < sizeof(rep))
				continue;
			memcpy(&rep, d, sizeof(rep));
			for (unsigned int i = 0; i < n; i++)
				if (rep.magic == FARM_MAGIC && rep.seq == rs[i].ud &&
				    !rs[i].replied) {
					rs[i].replied = 1;
					rs[i].ok = rep.ok;
				}
		}
	}
}

/* One RPC per shard holding written keys. */
static unsigned int farm_rpcs(struct txc *c, struct tx *t, int type,
			      struct rpc *rs)
{
	int idx[TX_MAX_SHARDS];
	unsigned int n = 0;

	for (unsigned int s = 0; s < TX_MAX_SHARDS; s++)
		idx[s] = -1;
	for (unsigned int i = 0; i < t->n; i++) {
		struct tx_item *it = &t->it[i];
		int s = tx_shard_of(c, it->key);
		struct rpc *r;

		if (!it->written)
			continue;
		if (idx[s] < 0) {
			idx[s] = (int)n;
			r = &rs[n++];
			memset(r, 0, sizeof(*r));
			r->shard = s;
			r->q.magic = FARM_MAGIC;
			r->q.type = (uint8_t)type;
			r->q.txid = t->ts;
		}
		r = &rs[idx[s]];
		r->q.e[r->q.n].slot = it->key / c->nshards;
		r->q.e[r->q.n].arg = type == FARM_LOCK ? it->rc : it->newval;
		r->q.n++;
	}
	return n;
}

static void prep_version_read(const struct txc *c, const struct tx *t,
			      const struct tx_item *it, struct bchain *x)
{
	(void)t;
	prism_prep_read(&x->cb, c->sh[x->shard].rkey, tx_slot_addr(c, it->key), 8);
}

/* Re-read the versions of read-only keys: 1 all unchanged and unlocked. */
static int farm_validate(struct txc *c, struct tx *t)
{
	struct bchain *b = c->batch;
	unsigned int n;
	int ret, ok = 1;

	for (unsigned int i = 0; i < t->n; i++)
		t->it[i].done = t->it[i].written || c->skip_read_validation;
	n = tx_batch_items(c, t, 0, PRISM_MAX_CHAIN, b, prep_version_read);
	ret = n ? tx_run_batch(c, b, n) : 0;
	for (unsigned int j = 0; !ret && j < n; j++)
		for (unsigned int k = 0; k < b[j].nitems; k++) {
			const unsigned char *v = tx_op_out(b[j].msg, k, 8);
			struct tx_item *it = &t->it[b[j].item[k]];

			if (!tx_op_ok(b[j].msg, k) || !v || tx_get64(v) != it->rc << 1)
				ok = 0;
		}
	return ret ? ret : ok;
}

int tx_farm_commit(struct txc *c, struct tx *t)
{
	struct rpc rs[TX_MAX_SHARDS];
	unsigned int n;
	int ok = 1, r;

	t->ts = ((uint64_t)c->cid << 40) | ++c->txcount;
	n = farm_rpcs(c, t, FARM_LOCK, rs);
	r = n ? rpc_run(c, rs, n) : 0;
	if (r)
		return r;
	for (unsigned int i = 0; i < n; i++)
		ok &= rs[i].ok;
	if (ok) {
		r = farm_validate(c, t);
		if (r < 0)
			return r;
		ok = r;
	}
	n = farm_rpcs(c, t, ok ? FARM_COMMIT : FARM_UNLOCK, rs);
	r = n ? rpc_run(c, rs, n) : 0;
	if (r)
		return r;
	return ok ? TX_COMMITTED : TX_ABORTED;
}

