/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transaction client library: PRISM-TX (one-sided OCC, see tx.h) and a
 * FaRM-style baseline behind one interface.
 *
 *	tx_begin(c, &t);
 *	tx_read(c, &t, keys, n);	// one round trip per shard, in parallel
 *	tx_write(&t, key, value);	// buffered; key must have been read
 *	tx_commit(c, &t);		// TX_COMMITTED or TX_ABORTED
 *
 * A client (struct txc) is one socket and is used by one thread.
 */
#ifndef TXLIB_H
#define TXLIB_H

#include <stdint.h>
#include <stdio.h>

#include "liburing-prism.h"
#include "hist.h"
#include "tx.h"

enum tx_proto { TX_PROTO_PRISM, TX_PROTO_FARM };

struct tx_shard {
	union prism_sockaddr addr;
	uint64_t rkey, ptx, farm, dec;
	uint32_t fl, nslots;
	char keys[108];		/* keyed region: its key socket (pu_keys.h) */
};

struct tx_stats {
	uint64_t commits, aborts, timeouts, nobuf_retries;
	uint64_t recycled, recycle_lost, rpc_resends;
	uint64_t torn;		/* values read again: their filler did not match */
	/* PRISM-TX recovery: pending writes of other clients this one ended */
	uint64_t recovered_commits, recovered_aborts;
	uint64_t aborted_by_recovery;	/* own transactions a recoverer aborted */
	/*
	 * Installs found done already: by a recoverer, or by an attempt of
	 * this client whose completion was lost, whose replaced version
	 * buffer then leaks (the two cannot be told apart).
	 */
	uint64_t install_found_done;
};

/*
 * Points of a PRISM-TX commit where tx_client -X kills its client (tests
 * of the recovery): after every prepare validated; once the home shard's
 * chain (decision and installs) is submitted; once it completed.
 */
enum tx_crash_point { TX_CRASH_NONE, TX_CRASH_PREPARED, TX_CRASH_DECIDING,
		      TX_CRASH_DECIDED };

struct bchain;
struct tx;

struct txc {
	int fd;
	enum tx_proto proto;
	unsigned int nshards, nkeys;
	struct tx_shard sh[TX_MAX_SHARDS];
	unsigned int cid;
	uint64_t last_ts, next_ud, txcount;
	int skip_read_validation;	/* deliberately broken mode for tests */
	unsigned int vsize;		/* value bytes (the shards' --value-size) */
	unsigned int chain_bytes;	/* data budget of one chain */
	struct bchain *batch;		/* the chains of one phase */
	struct bchain *fbatch;		/* txc_flush()'s, also within a phase */
	unsigned char *rbuf;		/* one received message */
	size_t chain_cap, out_cap;	/* of each chain, completion, rbuf */
	/*
	 * PRISM-TX recovery: a write pending longer than this (µs; 0: never)
	 * is ended by this client (tx.h, RECOVERY).
	 */
	uint64_t lease_us;
	/* Tests: at crash_at, crash_fn(c, t) may end the process. */
	enum tx_crash_point crash_at;
	void (*crash_fn)(struct txc *c, const struct tx *t);
	const struct tx *crash_tx;	/* tx_run_batch() calls crash_fn */
	uint64_t recycle[TX_MAX_SHARDS][TX_RECYCLE_MAX];
	unsigned int nrecycle[TX_MAX_SHARDS];
	struct tx_stats st;
};

struct tx_item {
	uint32_t key;
	int written;
	int prepared;		/* 0 no, 1 yes, 2 unknown (chain timed out) */
	int done;		/* nothing (more) to send in this phase */
	int blocked;		/* read found it locked / write pending */
	uint64_t rc;		/* PRISM: slot C seen; FaRM: version */
	uint64_t ver;		/* version read (PRISM: writer's ts) */
	uint64_t val, newval;
	uint64_t ptr;		/* PRISM: buffer of the version read */
	uint64_t pptr;		/* PRISM: our pending version's buffer */
	uint64_t pw;		/* PRISM: PW seen by a read that found it pending */
};

struct tx {
	unsigned int n;
	uint64_t ts;		/* PRISM: commit timestamp; FaRM: txid */
	struct tx_item it[TX_MAX_KEYS_TX];
};

enum { TX_COMMITTED = 0, TX_ABORTED = 1 };

/*
 * Parse the shard info files (paths joined by commas) and open a socket.
 * The value size comes from the info files (every shard's must agree).
 */
int txc_open(struct txc *c, const char *ifname, const char *infos,
	     enum tx_proto proto, unsigned int cid);
/*
 * Data (inline and outputs) one chain carries at most (default
 * TX_CHAIN_BYTES): keys are batched into a chain up to it, at least one
 * per chain.  About 1100 keeps every chain in one 1500-byte frame.
 */
#define TX_CHAIN_BYTES	16384
/*
 * A keyed shard's chains and answers must fit one frame each (prism(7),
 * "Keyed regions"): txc_open() starts with this budget when any is keyed.
 */
#define TX_KEYED_CHAIN_BYTES	1000
int txc_set_chain_bytes(struct txc *c, unsigned int bytes);
void txc_close(struct txc *c);
/* Send pending buffer recycling messages. */
void txc_flush(struct txc *c);

void tx_begin(struct txc *c, struct tx *t);
/* Read keys (skips ones already read).  0, TX_ABORTED (locked/pending key) or <0. */
int tx_read(struct txc *c, struct tx *t, const uint32_t *keys, unsigned int n);
/* Value of a key read earlier (0 if not read). */
uint64_t tx_value(const struct tx *t, uint32_t key);
int tx_write(struct tx *t, uint32_t key, uint64_t val);
/* TX_COMMITTED, TX_ABORTED or <0 on a fatal error. */
int tx_commit(struct txc *c, struct tx *t);
/* History line of a committed transaction ('T'; 'P': outcome unknown). */
void tx_record(const struct txc *c, const struct tx *t, FILE *f);
void tx_record_pending(const struct txc *c, const struct tx *t, FILE *f);
/* Default lease of a pending write before others recover it (µs). */
#define TX_LEASE_US	500000
/*
 * Final state of keys 0..nkeys-1 (0: every key) as "F key ver val" lines;
 * returns pending/locked keys or <0.
 */
int tx_dump(struct txc *c, FILE *f, uint64_t *sum, uint32_t nkeys);

/* The shard holding key. */
int tx_shard_of(const struct txc *c, uint32_t key);

uint64_t tx_now_us(void);

#endif
