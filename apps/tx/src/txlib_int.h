/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to the transaction client library (txlib.c, txprism.c,
 * farm.c): limits of one chain, and batches of chains sent to several
 * shards at once.
 */
#ifndef TXLIB_INT_H
#define TXLIB_INT_H

#include "txlib.h"

#define MAX_BATCH	64
/* tx_batch_items() puts at least one item in a chain, so it never overflows. */
_Static_assert(TX_MAX_KEYS_TX <= MAX_BATCH, "a batch holds a chain per item");
#define CHAIN_TIMEOUT_MS 10000
#define CHAIN_RETRIES	16
#define RPC_REPLY_MS	3000

/*
 * One chain of a batch sent to several shards at once; its buffers
 * (c->chain_cap and c->out_cap bytes) are allocated with the txc.
 */
struct bchain {
	int shard;
	struct prism_chain_buf cb;
	unsigned char *cbuf;
	size_t ccap;
	unsigned char *out;
	const struct prism_msg *msg;	/* the completion, once done */
	unsigned int nitems;
	unsigned int item[PRISM_MAX_CHAIN];
};

/* Append a chain for shard to batch b of *n chains; returns it. */
struct bchain *tx_batch_add(struct bchain *b, unsigned int *n, int shard);
/* Add the ops of item it of t to chain x (holding x->nitems items so far). */
typedef void tx_prep_fn(const struct txc *c, const struct tx *t,
			const struct tx_item *it, struct bchain *x);
/*
 * Batch the items [from, t->n) of t whose done flag is clear into b: each
 * in the open chain of its shard, a new chain when that holds per items;
 * prep adds the item's ops.  Returns the number of chains (0: none left).
 */
unsigned int tx_batch_items(const struct txc *c, const struct tx *t,
			    unsigned int from, unsigned int per,
			    struct bchain *b, tx_prep_fn *prep);
/* Receive one message into buf, waiting up to timeout_ms (-1: forever). */
ssize_t tx_recv_one(struct txc *c, void *buf, size_t len, int timeout_ms);
/* Submit n chains, retry the ones that time out, wait for all. */
int tx_run_batch(struct txc *c, struct bchain *b, unsigned int n);
/* Op op of completion m succeeded. */
int tx_op_ok(const struct prism_msg *m, unsigned int op);
/* Op op's output if it is exactly want bytes long, else NULL. */
const unsigned char *tx_op_out(const struct prism_msg *m, unsigned int op,
			       uint32_t want);
/* The key's slot address on its shard (tx_shard_of()). */
uint64_t tx_slot_addr(const struct txc *c, uint32_t key);

/* Keys of per_item bytes in one chain: 1..limit, within the chain budget. */
unsigned int tx_per_chain(const struct txc *c, unsigned int per_item,
			  unsigned int limit);
/* Queue a replaced version buffer (ptr, 0: none) for its shard's server. */
void tx_recycle(struct txc *c, uint32_t key, uint64_t ptr);

/* Commit t with the FaRM-style protocol (farm.c). */
int tx_farm_commit(struct txc *c, struct tx *t);
/* Commit t with PRISM-TX (txprism.c): TX_COMMITTED, TX_ABORTED or <0. */
int tx_prism_commit(struct txc *c, struct tx *t);
/*
 * RECOVERY (tx.h, txprism.c): end the write pending under pw at key if its
 * lease ran out.  Returns 1 when the key changed (read it again), 0 when
 * it is left pending, <0 on an error.
 */
int tx_prism_recover_key(struct txc *c, uint32_t key, uint64_t pw);

#endif /* TXLIB_INT_H */
