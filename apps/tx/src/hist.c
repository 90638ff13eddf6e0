// SPDX-License-Identifier: GPL-2.0
/* Serializability checker: dependency graph of a committed history. */
#include "hist.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_free(struct hist *h)
{
	for (size_t i = 0; i < h->ntx; i++)
		free(h->tx[i].ops);
	free(h->tx);
	free(h->final);
	hist_init(h);
}

int hist_add(struct hist *h, uint64_t txid, const struct hist_op *reads,
	     unsigned int nr, const struct hist_op *writes, unsigned int nw)
{
	struct hist_tx *t;

	if (h->ntx == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 256;
		struct hist_tx *n = realloc(h->tx, cap * sizeof(*n));

		if (!n)
			return -1;
		h->tx = n;
		h->cap = cap;
	}
	t = &h->tx[h->ntx];
	t->ops = malloc((nr + nw + 1) * sizeof(*t->ops));
	if (!t->ops)
		return -1;
	t->txid = txid;
	t->pending = 0;
	t->nr = nr;
	t->nw = nw;
	if (nr)
		memcpy(t->ops, reads, nr * sizeof(*reads));
	if (nw)
		memcpy(t->ops + nr, writes, nw * sizeof(*writes));
	h->ntx++;
	return 0;
}

int hist_add_final(struct hist *h, uint32_t key, uint64_t ver, uint64_t val)
{
	if (h->nfinal == h->capfinal) {
		size_t cap = h->capfinal ? 2 * h->capfinal : 256;
		struct hist_op *n = realloc(h->final, cap * sizeof(*n));

		if (!n)
			return -1;
		h->final = n;
		h->capfinal = cap;
	}
	h->final[h->nfinal++] = (struct hist_op){ key, ver, val };
	return 0;
}

void hist_write_tx(FILE *f, char kind, uint64_t txid, const struct hist_op *reads,
		   unsigned int nr, const struct hist_op *writes, unsigned int nw)
{
	fprintf(f, "%c %" PRIu64 " %u %u", kind, txid, nr, nw);
	for (unsigned int i = 0; i < nr; i++)
		fprintf(f, " r %" PRIu32 " %" PRIu64 " %" PRIu64, reads[i].key,
			reads[i].ver, reads[i].val);
	for (unsigned int i = 0; i < nw; i++)
		fprintf(f, " w %" PRIu32 " %" PRIu64 " %" PRIu64, writes[i].key,
			writes[i].ver, writes[i].val);
	fputc('\n', f);
}

int hist_load(struct hist *h, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	while (getline(&line, &cap, f) > 0) {
		struct hist_op ops[2 * 64];
		unsigned long long txid, ver, val;
		unsigned int nr, nw, key;
		char *p = line;
		int n;

		if (line[0] == 'F') {
			if (sscanf(line, "F %u %llu %llu", &key, &ver, &val) != 3 ||
			    hist_add_final(h, key, ver, val)) {
				ret = -1;
				break;
			}
			continue;
		}
		if (line[0] != 'T' && line[0] != 'P')
			continue;	/* comments, stats */
		if (sscanf(p + 1, " %llu %u %u%n", &txid, &nr, &nw, &n) != 3 ||
		    nr > 64 || nw > 64) {
			ret = -1;
			break;
		}
		p += n + 1;
		for (unsigned int i = 0; i < nr + nw; i++) {
			char kind;

			if (sscanf(p, " %c %u %llu %llu%n", &kind, &key, &ver,
				   &val, &n) != 4 ||
			    kind != (i < nr ? 'r' : 'w')) {
				ret = -1;
				goto out;
			}
			p += n;
			ops[i] = (struct hist_op){ key, ver, val };
		}
		if (hist_add(h, txid, ops, nr, ops + nr, nw)) {
			ret = -1;
			break;
		}
		h->tx[h->ntx - 1].pending = line[0] == 'P';
	}
out:
	free(line);
	return ret;
}

/* Whether (key, ver) was read by a transaction that is not pending, or is final. */
static int version_seen(const struct hist *h, uint32_t key, uint64_t ver)
{
	for (size_t i = 0; i < h->nfinal; i++)
		if (h->final[i].key == key && h->final[i].ver == ver)
			return 1;
	for (size_t i = 0; i < h->ntx; i++) {
		const struct hist_tx *t = &h->tx[i];

		for (unsigned int j = 0; !t->pending && j < t->nr; j++)
			if (t->ops[j].key == key && t->ops[j].ver == ver)
				return 1;
	}
	return 0;
}

void hist_resolve_pending(struct hist *h)
{
	size_t keep = 0;

	h->pending_committed = h->pending_aborted = h->pending_torn = 0;
	/* Decide them all first: a pending one's reads count for none. */
	for (size_t i = 0; i < h->ntx; i++) {
		struct hist_tx *t = &h->tx[i];
		unsigned int seen = 0;

		if (!t->pending)
			continue;
		for (unsigned int j = 0; j < t->nw; j++)
			seen += version_seen(h, t->ops[t->nr + j].key,
					     t->ops[t->nr + j].ver);
		if (seen && seen < t->nw)
			h->pending_torn++;
		t->pending = seen ? 2 : 3;	/* committed (or torn), aborted */
	}
	for (size_t i = 0; i < h->ntx; i++) {
		struct hist_tx *t = &h->tx[i];

		if (t->pending == 3) {
			h->pending_aborted++;
			free(t->ops);
			continue;
		}
		if (t->pending == 2)
			h->pending_committed++;
		t->pending = 0;
		h->tx[keep++] = *t;
	}
	h->ntx = keep;
}

/* A written version: (key, ver) -> writing transaction and value. */
struct version {
	uint32_t key;
	uint64_t ver;
	uint64_t val;
	size_t tx;
};

static int version_cmp(const void *a, const void *b)
{
	const struct version *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ver != y->ver)
		return x->ver < y->ver ? -1 : 1;
	return 0;
}

/* Index of the first version of key with ver >= v (or nv). */
static size_t version_lower(const struct version *vs, size_t nv, uint32_t key,
			    uint64_t ver)
{
	size_t lo = 0, hi = nv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vs[mid].key < key ||
		    (vs[mid].key == key && vs[mid].ver < ver))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct edges {
	size_t *from, *to;
	size_t n, cap;
};

static int edge_add(struct edges *e, size_t from, size_t to)
{
	if (from == to)
		return 0;
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 1024;
		size_t *f = realloc(e->from, cap * sizeof(*f));

		if (!f)
			return -1;
		e->from = f;
		f = realloc(e->to, cap * sizeof(*f));
		if (!f)
			return -1;
		e->to = f;
		e->cap = cap;
	}
	e->from[e->n] = from;
	e->to[e->n] = to;
	e->n++;
	return 0;
}

static void note(struct hist_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->first_error, sizeof(r->first_error), fmt, ap);
	va_end(ap);
}

/* Kahn's algorithm: how many nodes are on or behind a cycle. */
static size_t unsorted_nodes(size_t n, const struct edges *e)
{
	size_t *indeg = calloc(n + 1, sizeof(size_t));
	size_t *start = calloc(n + 2, sizeof(size_t));
	size_t *adj = malloc((e->n + 1) * sizeof(size_t));
	size_t *queue = malloc((n + 1) * sizeof(size_t));
	size_t head = 0, tail = 0, done = 0, left;

	if (!indeg || !start || !adj || !queue) {
		left = (size_t)-1;
		goto out;
	}
	for (size_t i = 0; i < e->n; i++) {
		indeg[e->to[i]]++;
		start[e->from[i] + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	{
		size_t *pos = calloc(n + 1, sizeof(size_t));

		if (!pos) {
			left = (size_t)-1;
			goto out;
		}
		for (size_t i = 0; i < e->n; i++)
			adj[start[e->from[i]] + pos[e->from[i]]++] = e->to[i];
		free(pos);
	}
	for (size_t i = 0; i < n; i++)
		if (!indeg[i])
			queue[tail++] = i;
	while (head < tail) {
		size_t u = queue[head++];

		done++;
		for (size_t j = start[u]; j < start[u + 1]; j++)
			if (--indeg[adj[j]] == 0)
				queue[tail++] = adj[j];
	}
	left = n - done;
out:
	free(indeg);
	free(start);
	free(adj);
	free(queue);
	return left;
}

int hist_check(const struct hist *h, uint64_t init_val, struct hist_result *r)
{
	struct edges e = { 0 };
	struct version *vs;
	size_t nv = 0;

	memset(r, 0, sizeof(*r));
	r->ntx = h->ntx;
	r->pending_committed = h->pending_committed;
	r->pending_aborted = h->pending_aborted;
	r->pending_torn = h->pending_torn;
	if (r->pending_torn)
		note(r, "%zu transactions whose client died are torn: some of their writes took effect, not all",
		     r->pending_torn);
	for (size_t i = 0; i < h->ntx; i++)
		nv += h->tx[i].nw;
	vs = malloc((nv + 1) * sizeof(*vs));
	if (!vs) {
		note(r, "out of memory");
		return 1;
	}
	nv = 0;
	for (size_t i = 0; i < h->ntx; i++) {
		const struct hist_tx *t = &h->tx[i];

		for (unsigned int j = 0; j < t->nw; j++) {
			const struct hist_op *w = &t->ops[t->nr + j];

			vs[nv++] = (struct version){ w->key, w->ver, w->val, i };
		}
	}
	qsort(vs, nv, sizeof(*vs), version_cmp);
	for (size_t i = 0; i + 1 < nv; i++) {
		if (vs[i].key != vs[i + 1].key)
			continue;
		if (vs[i].ver == vs[i + 1].ver) {
			r->dup_versions++;
			note(r, "key %u version %llu written twice", vs[i].key,
			     (unsigned long long)vs[i].ver);
		}
		if (edge_add(&e, vs[i].tx, vs[i + 1].tx))	/* ww */
			goto oom;
	}
	for (size_t i = 0; i < nv; i++)
		if (vs[i].ver == 0) {
			r->dup_versions++;
			note(r, "key %u: a transaction wrote version 0", vs[i].key);
		}
	for (size_t i = 0; i < h->ntx; i++) {
		const struct hist_tx *t = &h->tx[i];

		for (unsigned int j = 0; j < t->nr; j++) {
			const struct hist_op *rd = &t->ops[j];
			size_t at = version_lower(vs, nv, rd->key, rd->ver);
			int found = at < nv && vs[at].key == rd->key &&
				    vs[at].ver == rd->ver;
			size_t next = found ? at + 1 : at;

			if (rd->ver == 0 ? rd->val != init_val :
			    !found || vs[at].val != rd->val) {
				r->bad_reads++;
				note(r, "tx %llu read key %u version %llu value %llu: %s",
				     (unsigned long long)t->txid, rd->key,
				     (unsigned long long)rd->ver,
				     (unsigned long long)rd->val,
				     rd->ver && !found ? "no such version" :
				     "wrong value");
			}
			if (found && edge_add(&e, vs[at].tx, i))	/* wr */
				goto oom;
			if (next < nv && vs[next].key == rd->key &&
			    edge_add(&e, i, vs[next].tx))		/* rw */
				goto oom;
		}
	}
	for (size_t i = 0; i < h->nfinal; i++) {
		const struct hist_op *f = &h->final[i];
		size_t at = version_lower(vs, nv, f->key + 1, 0);
		uint64_t ver = 0, val = init_val;

		if (at > 0 && vs[at - 1].key == f->key) {
			ver = vs[at - 1].ver;
			val = vs[at - 1].val;
		}
		if (f->ver != ver || f->val != val) {
			r->bad_final++;
			note(r, "final key %u is version %llu value %llu, last committed %llu value %llu",
			     f->key, (unsigned long long)f->ver,
			     (unsigned long long)f->val,
			     (unsigned long long)ver, (unsigned long long)val);
		}
	}
	r->edges = e.n;
	r->in_cycle = unsorted_nodes(h->ntx, &e);
	if (r->in_cycle)
		note(r, "dependency graph has a cycle (%zu transactions not orderable)",
		     r->in_cycle);
	free(e.from);
	free(e.to);
	free(vs);
	return r->in_cycle || r->bad_reads || r->dup_versions || r->bad_final ||
	       r->pending_torn;
oom:
	free(e.from);
	free(e.to);
	free(vs);
	note(r, "out of memory");
	return 1;
}
