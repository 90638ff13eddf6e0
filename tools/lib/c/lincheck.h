/* SPDX-License-Identifier: MIT */
/*
 * Linearizability checker for a history of register operations (one
 * register per key), in the style of Wing & Gong with Lowe's memoisation
 * of (linearized set, state) as in Porcupine.  Keys are independent
 * (linearizability is local), so each key is checked on its own.
 *
 * An operation whose outcome is unknown (a PUT that failed: it may or may
 * not take effect) is given ret = LC_INF: it can be linearized anywhere
 * after its call, including after everything else (i.e. never).
 */
#ifndef LINCHECK_H
#define LINCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LC_INF		INT64_MAX

enum lc_kind {
	LC_READ = 0,
	LC_WRITE = 1,
};

struct lc_op {
	uint32_t	key;
	uint8_t		kind;		/* enum lc_kind */
	uint64_t	value;		/* written or read */
	int64_t		call, ret;	/* ret >= call; LC_INF: unknown outcome */
	uint32_t	client;		/* for reports only */
};

enum lc_verdict {
	LC_OK = 0,		/* linearizable */
	LC_VIOLATION = 1,	/* not linearizable */
	LC_GAVE_UP = 2,		/* search exceeded its budget */
};

struct lc_report {
	enum lc_verdict	verdict;
	uint32_t	bad_key;	/* first key that is not LC_OK */
	size_t		bad_ops;	/* operations on that key */
	size_t		best_prefix;	/* most ops linearized on that key */
	size_t		keys;		/* keys checked */
	size_t		states;		/* cache entries explored (total) */
};

/*
 * Check ops (any order; the array is sorted in place by key and call
 * time).  init: the value every register holds at first.  max_states
 * bounds the memo per key (0: 4M).
 */
enum lc_verdict lc_check(struct lc_op *ops, size_t n, uint64_t init,
			 size_t max_states, struct lc_report *rep);

/* One key only: ops must all have the same key. */
enum lc_verdict lc_check_key(const struct lc_op *ops, size_t n, uint64_t init,
			     size_t max_states, size_t *best_prefix,
			     size_t *states);

/*
 * History files: one operation per line, "KIND KEY VALUE CALL RET CLIENT"
 * with KIND W or R, times in ns of one clock (CLOCK_MONOTONIC: the same in
 * every network namespace of a host) and RET "inf" for an unknown outcome.
 * The clients of a run each write one; the checker merges them.
 */
/* Append op to f as one line. */
void lc_hist_write(FILE *f, const struct lc_op *op);
/*
 * Append the operations of file path to *ops (n used, cap allocated;
 * grown with realloc).  0, or a negative errno (-EINVAL: a bad line,
 * reported on stderr with its number).
 */
int lc_hist_load(const char *path, struct lc_op **ops, size_t *n, size_t *cap);
/*
 * Values that name their write, for stores under test: the first 8 bytes
 * (little-endian) are a unique id, e.g. (client id << 40) | sequence, the
 * rest a pattern derived from it, so a reader can tell which write it
 * sees and that it is not torn.  Id 0 is the all-zero value.  size >= 8.
 */
#define LC_VALUE_CORRUPT	UINT64_MAX
void lc_value_fill(void *buf, size_t size, uint64_t id);
/* Id of a value, or LC_VALUE_CORRUPT when its pattern does not match. */
uint64_t lc_value_id(const void *buf, size_t size);

/* "linearizable", "NOT-linearizable" or "gave-up". */
const char *lc_verdict_name(enum lc_verdict v);
/*
 * Merge the history files, check them (every register starts at 0) and
 * print one line to out: "ops=N reads=N writes=N unknown_writes=N
 * corrupt_reads=N keys=N states=N verdict=V", where corrupt_reads counts
 * the reads of value corrupt (the caller's mark for a value no write
 * produced); if not linearizable a second line "key=KEY ops_on_key=N
 * longest_linearizable_prefix=N", KEY printed as key_prefix and the
 * number.  Returns the verdict, or -1 if a file could not be loaded (said
 * on stderr).
 */
int lc_check_files(char *const *files, int nfiles, uint64_t corrupt,
		   const char *key_prefix, FILE *out);

#endif /* LINCHECK_H */
