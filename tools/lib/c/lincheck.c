// SPDX-License-Identifier: MIT
/*
 * Register linearizability checker (see lincheck.h).
 *
 * Search (Wing-Gong / Lowe / Porcupine): the history is a list of call
 * and return events in time order.  Walking it from the head, at a call
 * we try to linearize that operation next (a read must return the current
 * value; a write sets it); if the resulting (set of linearized ops, value)
 * was not seen before, we commit to it, take its two events out of the
 * list and restart from the head.  Reaching a return event means the
 * operation returning there was not linearized although everything that
 * remains started later: backtrack.  The memo of seen (set, value) pairs
 * is what keeps this from being exponential on real histories.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lincheck.h"
#include "prism_util.h"	/* pu_put_le64(), pu_splitmix64() */

struct ev {
	int64_t		time;
	int		is_ret;
	size_t		op;		/* index into the key's ops */
	struct ev	*prev, *next;
	struct ev	*match;		/* call: its return event */
};

/* Memo: open hashing of (bitset, value). */
struct memo {
	size_t		words;		/* uint64 words per bitset */
	size_t		cap, used, limit;
	uint64_t	*keys;		/* cap * (words + 1): bits..., value */
	uint8_t		*full;
};

static uint64_t hash_words(const uint64_t *w, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static int memo_grow(struct memo *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024, i, k = m->words + 1;
	uint64_t *nkeys = calloc(ncap, k * sizeof(uint64_t));
	uint8_t *nfull = calloc(ncap, 1);

	if (!nkeys || !nfull) {
		free(nkeys);
		free(nfull);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->full[i])
			continue;
		j = hash_words(&m->keys[i * k], k) & (ncap - 1);
		while (nfull[j])
			j = (j + 1) & (ncap - 1);
		nfull[j] = 1;
		memcpy(&nkeys[j * k], &m->keys[i * k], k * sizeof(uint64_t));
	}
	free(m->keys);
	free(m->full);
	m->keys = nkeys;
	m->full = nfull;
	m->cap = ncap;
	return 0;
}

/* Insert key (words + 1 values); 1 if new, 0 if present, -1 on failure. */
static int memo_insert(struct memo *m, const uint64_t *key)
{
	size_t k = m->words + 1, j;

	if (m->used >= m->limit)
		return -1;
	if ((m->used + 1) * 2 > m->cap && memo_grow(m))
		return -1;
	j = hash_words(key, k) & (m->cap - 1);
	while (m->full[j]) {
		if (!memcmp(&m->keys[j * k], key, k * sizeof(uint64_t)))
			return 0;
		j = (j + 1) & (m->cap - 1);
	}
	m->full[j] = 1;
	memcpy(&m->keys[j * k], key, k * sizeof(uint64_t));
	m->used++;
	return 1;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* Calls before returns at equal times: such ops overlap. */
	if (x->is_ret != y->is_ret)
		return x->is_ret ? 1 : -1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static void lift(struct ev **head, struct ev *call)
{
	struct ev *e, *evs[2] = { call, call->match };
	int i;

	for (i = 0; i < 2; i++) {
		e = evs[i];
		if (e->prev)
			e->prev->next = e->next;
		else
			*head = e->next;
		if (e->next)
			e->next->prev = e->prev;
	}
}

static void unlift(struct ev **head, struct ev *call)
{
	struct ev *e, *evs[2] = { call->match, call };
	int i;

	/* Reverse order of lift(): the links saved in e are still valid. */
	for (i = 0; i < 2; i++) {
		e = evs[i];
		if (e->prev)
			e->prev->next = e;
		else
			*head = e;
		if (e->next)
			e->next->prev = e;
	}
}

struct frame {
	struct ev	*call;
	uint64_t	state;
};

enum lc_verdict lc_check_key(const struct lc_op *ops, size_t n, uint64_t init,
			     size_t max_states, size_t *best_prefix,
			     size_t *states)
{
	struct ev *evs, *head, *e;
	struct frame *stack;
	struct memo memo;
	uint64_t *bits, state = init;
	size_t i, depth = 0, best = 0;
	enum lc_verdict v = LC_OK;

	if (best_prefix)
		*best_prefix = 0;
	if (states)
		*states = 0;
	if (!n)
		return LC_OK;
	memset(&memo, 0, sizeof(memo));
	memo.words = (n + 63) / 64;
	memo.limit = max_states ? max_states : (4u << 20);
	evs = calloc(2 * n, sizeof(*evs));
	stack = calloc(n, sizeof(*stack));
	bits = calloc(memo.words + 1, sizeof(uint64_t));
	if (!evs || !stack || !bits) {
		v = LC_GAVE_UP;
		goto out;
	}
	for (i = 0; i < n; i++) {
		evs[2 * i].time = ops[i].call;
		evs[2 * i].op = i;
		evs[2 * i + 1].time = ops[i].ret;
		evs[2 * i + 1].is_ret = 1;
		evs[2 * i + 1].op = i;
	}
	qsort(evs, 2 * n, sizeof(*evs), ev_cmp);
	{
		/* Link the list and pair each call with its return. */
		struct ev **call_of = calloc(n, sizeof(*call_of));

		if (!call_of) {
			v = LC_GAVE_UP;
			goto out;
		}
		for (i = 0; i < 2 * n; i++) {
			evs[i].prev = i ? &evs[i - 1] : NULL;
			evs[i].next = i + 1 < 2 * n ? &evs[i + 1] : NULL;
			if (!evs[i].is_ret)
				call_of[evs[i].op] = &evs[i];
			else
				call_of[evs[i].op]->match = &evs[i];
		}
		free(call_of);
	}
	head = &evs[0];
	e = head;
	while (head) {
		if (!e->is_ret) {
			const struct lc_op *op = &ops[e->op];
			uint64_t next = state;
			int legal = 1, ins;

			if (op->kind == LC_READ)
				legal = op->value == state;
			else
				next = op->value;
			if (legal) {
				bits[e->op / 64] |= 1ULL << (e->op % 64);
				bits[memo.words] = next;
				ins = memo_insert(&memo, bits);
				if (ins < 0) {
					v = LC_GAVE_UP;
					goto out;
				}
				if (ins) {
					stack[depth].call = e;
					stack[depth].state = state;
					depth++;
					if (depth > best)
						best = depth;
					state = next;
					lift(&head, e);
					e = head;
					continue;
				}
				bits[e->op / 64] &= ~(1ULL << (e->op % 64));
			}
			e = e->next;
		} else {
			/* An unlinearized op returned here: undo the last choice. */
			if (!depth) {
				v = LC_VIOLATION;
				goto out;
			}
			depth--;
			e = stack[depth].call;
			state = stack[depth].state;
			bits[e->op / 64] &= ~(1ULL << (e->op % 64));
			unlift(&head, e);
			e = e->next;
		}
	}
out:
	if (best_prefix)
		*best_prefix = v == LC_OK ? n : best;
	if (states)
		*states = memo.used;
	free(memo.keys);
	free(memo.full);
	free(evs);
	free(stack);
	free(bits);
	return v;
}

static int op_cmp(const void *a, const void *b)
{
	const struct lc_op *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	return 0;
}

enum lc_verdict lc_check(struct lc_op *ops, size_t n, uint64_t init,
			 size_t max_states, struct lc_report *rep)
{
	enum lc_verdict worst = LC_OK;
	size_t i = 0, j;

	memset(rep, 0, sizeof(*rep));
	if (!n)
		return LC_OK;
	qsort(ops, n, sizeof(*ops), op_cmp);
	while (i < n) {
		size_t best, states;
		enum lc_verdict v;

		for (j = i; j < n && ops[j].key == ops[i].key; j++)
			;
		v = lc_check_key(ops + i, j - i, init, max_states, &best, &states);
		rep->keys++;
		rep->states += states;
		/* A violation outranks giving up. */
		if (v != LC_OK && (worst == LC_OK ||
				   (v == LC_VIOLATION && worst == LC_GAVE_UP))) {
			worst = v;
			rep->bad_key = ops[i].key;
			rep->bad_ops = j - i;
			rep->best_prefix = best;
		}
		i = j;
	}
	rep->verdict = worst;
	return worst;
}

void lc_hist_write(FILE *f, const struct lc_op *op)
{
	fprintf(f, "%c %" PRIu32 " %" PRIu64 " %" PRId64 " ",
		op->kind == LC_WRITE ? 'W' : 'R', op->key, op->value, op->call);
	if (op->ret == LC_INF)
		fprintf(f, "inf %" PRIu32 "\n", op->client);
	else
		fprintf(f, "%" PRId64 " %" PRIu32 "\n", op->ret, op->client);
}

int lc_hist_load(const char *path, struct lc_op **ops, size_t *n, size_t *cap)
{
	char line[256], kind, ret[32];
	unsigned long long value;
	unsigned int key, client;
	long long call;
	FILE *f = fopen(path, "r");
	int lineno = 0, err = 0;

	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		struct lc_op *op;
		char *end;

		lineno++;
		if (sscanf(line, "%c %u %llu %lld %31s %u", &kind, &key, &value,
			   &call, ret, &client) != 6 || (kind != 'W' && kind != 'R')) {
			fprintf(stderr, "lincheck: %s:%d: bad line\n", path, lineno);
			err = -EINVAL;
			break;
		}
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 4096;
			struct lc_op *no = realloc(*ops, nc * sizeof(**ops));

			if (!no) {
				err = -ENOMEM;
				break;
			}
			*ops = no;
			*cap = nc;
		}
		op = &(*ops)[*n];
		op->key = key;
		op->kind = kind == 'W' ? LC_WRITE : LC_READ;
		op->value = value;
		op->call = call;
		op->ret = strcmp(ret, "inf") ? strtoll(ret, &end, 10) : LC_INF;
		op->client = client;
		if (op->ret != LC_INF && *end) {
			fprintf(stderr, "lincheck: %s:%d: bad return time\n", path,
				lineno);
			err = -EINVAL;
		} else if (op->ret < op->call) {
			fprintf(stderr, "lincheck: %s:%d: returns before its call\n",
				path, lineno);
			err = -EINVAL;
		} else {
			(*n)++;
		}
	}
	fclose(f);
	return err;
}

/* Pattern word at byte offset i of value id's (0 for id 0). */
static uint64_t value_word(uint64_t id, size_t i)
{
	return id ? pu_splitmix64(id ^ ((uint64_t)i << 48)) : 0;
}

void lc_value_fill(void *buf, size_t size, uint64_t id)
{
	unsigned char *b = buf;
	size_t i;

	pu_put_le64(b, id);
	for (i = 8; i + 8 <= size; i += 8)
		pu_put_le64(b + i, value_word(id, i));
	for (; i < size; i++)	/* a tail shorter than a word */
		b[i] = (unsigned char)(value_word(id, i & ~(size_t)7) >> (i % 8 * 8));
}

uint64_t lc_value_id(const void *buf, size_t size)
{
	const unsigned char *b = buf;
	uint64_t id = pu_get_le64(b);
	size_t i;

	for (i = 8; i + 8 <= size; i += 8)
		if (pu_get_le64(b + i) != value_word(id, i))
			return LC_VALUE_CORRUPT;
	for (; i < size; i++)
		if (b[i] != (unsigned char)(value_word(id, i & ~(size_t)7) >> (i % 8 * 8)))
			return LC_VALUE_CORRUPT;
	return id;
}

const char *lc_verdict_name(enum lc_verdict v)
{
	return v == LC_OK ? "linearizable" :
	       v == LC_VIOLATION ? "NOT-linearizable" : "gave-up";
}

int lc_check_files(char *const *files, int nfiles, uint64_t corrupt,
		   const char *key_prefix, FILE *out)
{
	size_t n = 0, cap = 0, i, reads = 0, unknown = 0, bad = 0;
	struct lc_op *ops = NULL;
	struct lc_report rep;
	enum lc_verdict v;
	int a, err;

	for (a = 0; a < nfiles; a++) {
		err = lc_hist_load(files[a], &ops, &n, &cap);
		if (err) {
			fprintf(stderr, "lincheck: %s: %s\n", files[a],
				strerror(-err));
			free(ops);
			return -1;
		}
	}
	for (i = 0; i < n; i++) {
		reads += ops[i].kind == LC_READ;
		unknown += ops[i].ret == LC_INF;
		bad += ops[i].kind == LC_READ && ops[i].value == corrupt;
	}
	v = lc_check(ops, n, 0, 0, &rep);
	fprintf(out, "ops=%zu reads=%zu writes=%zu unknown_writes=%zu "
		"corrupt_reads=%zu keys=%zu states=%zu verdict=%s\n", n, reads,
		n - reads, unknown, bad, rep.keys, rep.states,
		lc_verdict_name(v));
	if (v != LC_OK)
		fprintf(out, "key=%s%" PRIu32 " ops_on_key=%zu "
			"longest_linearizable_prefix=%zu\n", key_prefix,
			rep.bad_key, rep.bad_ops, rep.best_prefix);
	free(ops);
	return v;
}
