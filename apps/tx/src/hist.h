/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transaction histories and the serializability checker.
 *
 * A history line per committed transaction:
 *	T <txid> <nreads> <nwrites> {r <key> <ver> <val>} {w <key> <ver> <val>}
 * Versions of a key are totally ordered numbers (PRISM-TX: the writer's
 * timestamp; FaRM: the version counter); version 0 is the initial value.
 * A final-state line (from a dump after the run):
 *	F <key> <ver> <val>
 * A transaction whose client died while committing it (tx_client -X) is a
 * 'P' line, in the format of a 'T' line: hist_resolve_pending() counts it
 * as committed when every version it wrote was read or is final (the RMW
 * workloads read each version they overwrite), as aborted when none was,
 * and as torn (an atomicity violation) otherwise.
 *
 * The checker builds the dependency graph (wr: writer of a version ->
 * its reader; ww: writers of consecutive versions; rw: reader of a
 * version -> writer of the next one) and reports a cycle as a violation,
 * along with reads of unknown versions or wrong values and a final state
 * that is not the last committed version.
 */
#ifndef TX_HIST_H
#define TX_HIST_H

#include <stdint.h>
#include <stdio.h>

struct hist_op {
	uint32_t key;
	uint64_t ver;
	uint64_t val;
};

struct hist_tx {
	uint64_t txid;
	unsigned int nr, nw;
	struct hist_op *ops;	/* nr reads, then nw writes */
	int pending;		/* a 'P' line not resolved yet */
};

struct hist {
	struct hist_tx *tx;
	size_t ntx, cap;
	struct hist_op *final;	/* final state, key order not assumed */
	size_t nfinal, capfinal;
	/* 'P' transactions, by hist_resolve_pending() */
	size_t pending_committed, pending_aborted, pending_torn;
};

struct hist_result {
	size_t ntx;
	size_t edges;
	size_t in_cycle;	/* transactions left after topological sort */
	size_t bad_reads;	/* unknown version or wrong value */
	size_t dup_versions;	/* two writers of one (key, version) */
	size_t bad_final;	/* final state differs from the last version */
	size_t pending_committed, pending_aborted, pending_torn;
	char first_error[256];
};

void hist_init(struct hist *h);
void hist_free(struct hist *h);
int hist_add(struct hist *h, uint64_t txid, const struct hist_op *reads,
	     unsigned int nr, const struct hist_op *writes, unsigned int nw);
int hist_add_final(struct hist *h, uint32_t key, uint64_t ver, uint64_t val);
/* Parse lines of a history or dump file; returns 0 or -1 (bad line). */
int hist_load(struct hist *h, FILE *f);
/* A 'T' (kind) or 'P' line. */
void hist_write_tx(FILE *f, char kind, uint64_t txid, const struct hist_op *reads,
		   unsigned int nr, const struct hist_op *writes, unsigned int nw);
/*
 * Decide each 'P' transaction from the others' reads and the final state
 * (the counts in h; hist_check() reports them and fails on a torn one);
 * call it once every file is loaded, before hist_check().
 */
void hist_resolve_pending(struct hist *h);
/* 0: serializable and consistent; 1: a violation (details in r). */
int hist_check(const struct hist *h, uint64_t init_val, struct hist_result *r);

#endif
